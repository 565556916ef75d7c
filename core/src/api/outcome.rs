//! A call's outcome as JSON text, for hosts that wait out delays and raise errors themselves (the JS packages:
//! napi and wasm). Failures are data here, not raised: the host waits out the scripted delay first and then
//! raises (a failing step that takes 2 s fails after 2 s).

use crate::http::HttpReply;
use crate::mock::{Exchange, StreamResult, Timed};
use crate::model::ChatResponse;
use crate::script::CallError;
use crate::stream::TimedEvent;
use serde::Serialize;
use serde_json::{json, Value};

/// `{"family": "provider" | "cuecard" | "host", ...}`: which error the host raises.
pub fn call_error_json(error: &CallError) -> Value {
    match error {
        CallError::Provider(e) => json!({"family": "provider", "error": e}),
        CallError::Cuecard(e) => json!({"family": "cuecard", "error": e.to_json()}),
        // The JS function's own error: the package rethrows the very object it caught.
        CallError::Host(h) => json!({"family": "host", "message": h.message()}),
    }
}

/// A whole answer: `{"index", "delay_ms", "response"}` or `{"index", "delay_ms", "error"}`.
pub fn exchange_json(exchange: &Exchange) -> String {
    // Serialized from borrowed fields straight to text: building a `Value` first copies the whole response.
    #[derive(Serialize)]
    struct Answer<'a> {
        index: u64,
        delay_ms: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        response: Option<&'a ChatResponse>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<Value>,
    }
    let (response, error) = match &exchange.result {
        Ok(response) => (Some(&**response), None),
        Err(error) => (None, Some(call_error_json(error))),
    };
    to_text(&Answer { index: exchange.index, delay_ms: exchange.delay_ms, response, error })
}

/// A streamed answer: `{"index", "events"}` (a scripted failure is the last event) or `{"index", "error"}` for
/// cuecard's own errors.
pub fn stream_json(result: &StreamResult) -> String {
    #[derive(Serialize)]
    struct Events<'a> {
        index: u64,
        events: &'a [TimedEvent],
    }
    match result {
        Ok(stream) => to_text(&Events { index: stream.request_index(), events: stream.events() }),
        Err((index, error)) => to_text(&json!({"index": index, "error": call_error_json(error)})),
    }
}

/// JSON text of core data (which always serializes).
fn to_text(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// An in-process `fetch`'s request headers as `name:value` lines (how the JS packages pass them: one string
/// crosses faster than an array of pairs, and neither a header name nor a value, which `Headers` validates, can
/// hold a newline; a name cannot hold a colon).
pub fn headers_from_lines(lines: &str) -> Vec<(String, String)> {
    lines
        .split('\n')
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect()
}

impl std::str::FromStr for Collapse {
    type Err = crate::error::Error;

    /// `never`, `unless_waits`, `always` or `as_mock`; anything else is `invalid_argument` naming the four.
    fn from_str(text: &str) -> Result<Collapse, Self::Err> {
        match text {
            "never" => Ok(Collapse::Never),
            "unless_waits" => Ok(Collapse::UnlessWaits),
            "always" => Ok(Collapse::Always),
            "as_mock" => Ok(Collapse::AsMock),
            other => Err(crate::error::Error::new(
                crate::error::ErrorKind::InvalidArgument,
                format!("invalid collapse: expected 'never', 'unless_waits', 'always' or 'as_mock', found {other}"),
            )
            .with_context("argument", "collapse")),
        }
    }
}

/// Whether a streamed reply crosses as one body rather than frame by frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collapse {
    /// Always frames (the wire vectors compare them).
    Never,
    /// One body when there is nothing to wait for (no stall, no frame delay).
    UnlessWaits,
    /// One body (the delays are skipped: instant mode).
    Always,
    /// `Always` when the mock is instant, else `UnlessWaits`: what an in-process `fetch` does unless told, decided
    /// where the mock is ([`Collapse::for_mock`]) rather than by asking it for its setting on every call.
    AsMock,
}

impl Collapse {
    /// What an in-process transport's `instant` option asks for: unset follows the mock (`AsMock`), `true` skips
    /// every delay (`Always`), `false` keeps them (`UnlessWaits`).
    pub fn of_instant(instant: Option<bool>) -> Collapse {
        match instant {
            None => Collapse::AsMock,
            Some(true) => Collapse::Always,
            Some(false) => Collapse::UnlessWaits,
        }
    }

    /// This collapse for a mock whose `instant` setting is `instant` (only `AsMock` depends on it).
    pub fn for_mock(self, instant: bool) -> Collapse {
        match self {
            Collapse::AsMock if instant => Collapse::Always,
            Collapse::AsMock => Collapse::UnlessWaits,
            other => other,
        }
    }
}

/// The head of a whole reply, written straight to text: the bytes `json!` wrote (its map keeps keys sorted, so the
/// fields are declared in that order) without building a `Value` and formatting it, which was half of a JS
/// package's `handleHttp` call (22k of 43k instructions).
#[derive(Serialize)]
struct FullHead<'a> {
    delay_ms: u64,
    headers: &'a [crate::http::ReplyHeader],
    kind: &'static str,
    status: u16,
}

/// The head of a stream collapsed into one body (keys sorted, as for [`FullHead`]).
#[derive(Serialize)]
struct WholeStreamHead<'a> {
    end: crate::http::StreamEnd,
    headers: &'a [crate::http::ReplyHeader],
    kind: &'static str,
    stall_ms: u64,
    status: u16,
    whole: bool,
}

/// `head` as one line of JSON, a newline, then `body` as it is.
fn head_line(head: &impl Serialize, body: &str) -> String {
    // Plain data of our own: serializing it cannot fail.
    let mut text = serde_json::to_string(head).unwrap_or_default();
    text.reserve(body.len() + 1);
    text.push('\n');
    text.push_str(body);
    text
}

/// A reply for an in-process `fetch`: one line of JSON (the reply without its body), a newline, then the body
/// as it is. A body inside JSON would be escaped here and parsed back in JS; for a 200-token stream that was
/// most of the call. A stream collapsed to one body is `{"kind": "stream", "whole": true, ...}` with its frames'
/// text as the body; otherwise the frames stay in the JSON (each waits its delay) and the body is empty.
///
/// `Collapse::Always` is instant mode: the reply carries no delay at all (a whole reply's, a stall, a frame's, an
/// abort's), so the host waits what the head says and never asks the mock for its setting.
pub fn http_reply_text(reply: HttpReply, collapse: Collapse) -> String {
    let reply = paced(reply, collapse);
    match reply {
        HttpReply::Full { delay_ms, status, headers, body } => {
            let head = FullHead { delay_ms, headers: &headers, kind: "full", status };
            head_line(&head, &body)
        }
        HttpReply::Stream { stall_ms, status, headers, frames, end, base64, separate_writes, .. } => {
            let frames = frames.into_vec(); // an in-process reply crosses whole
            let waits = stall_ms > 0 || frames.iter().any(|f| f.delay_ms > 0);
            // Binary frames (base64 text) cannot be joined into one text body, and frames cut on purpose
            // (`delivery`) are read one by one: they always cross as frames.
            let whole = !base64
                && !separate_writes
                && match collapse {
                    Collapse::Never => false,
                    // `AsMock` not resolved by `for_mock`: the mock's delays are kept, so as `UnlessWaits`.
                    Collapse::UnlessWaits | Collapse::AsMock => !waits,
                    Collapse::Always => true,
                };
            if whole {
                let head = WholeStreamHead { end, headers: &headers, kind: "stream", stall_ms, status, whole: true };
                let body: String = frames.iter().map(|frame| frame.data.as_str()).collect();
                head_line(&head, &body)
            } else {
                let mut meta = serde_json::Map::new();
                meta.insert("kind".into(), json!("stream"));
                meta.insert("stall_ms".into(), json!(stall_ms));
                meta.insert("status".into(), json!(status));
                meta.insert("headers".into(), json!(headers));
                meta.insert("frames".into(), json!(frames));
                meta.insert("end".into(), json!(end));
                if base64 {
                    meta.insert("base64".into(), json!(true));
                }
                if separate_writes {
                    meta.insert("separate_writes".into(), json!(true));
                }
                let meta = serde_json::Value::Object(meta);
                format!("{meta}\n")
            }
        }
        abort @ HttpReply::Abort { .. } => format!("{}\n", serde_json::to_string(&abort).unwrap_or_default()),
        // A socket's messages (each a message of its own: they never join into one body).
        other @ HttpReply::Socket { .. } => {
            format!("{}\n", serde_json::to_string(&other).unwrap_or_default())
        }
    }
}

/// `reply` as it is sent under `collapse`: `Always` (instant mode) without any delay
/// ([`HttpReply::without_delays`]), otherwise as it is. For hosts that take the reply as data (Python's
/// transports) as [`http_reply_text`] does for those that take its text.
pub fn paced(reply: HttpReply, collapse: Collapse) -> HttpReply {
    if collapse == Collapse::Always {
        reply.without_delays()
    } else {
        reply
    }
}

/// A tool's answer: `{"delay_ms", "result"}` or `{"delay_ms", "error"}`.
pub fn tool_outcome_json(timed: &Timed<std::result::Result<Value, CallError>>) -> String {
    match &timed.value {
        Ok(value) => to_text(&json!({"delay_ms": timed.delay_ms, "result": value})),
        Err(error) => to_text(&json!({"delay_ms": timed.delay_ms, "error": call_error_json(error)})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_js_packages_header_lines_and_collapse_words() {
        let headers = headers_from_lines("content-type:application/json\nx-a:b:c\n\nnot a header\n");
        assert_eq!(
            headers,
            [("content-type".to_string(), "application/json".to_string()), ("x-a".to_string(), "b:c".to_string())]
        );
        assert_eq!("unless_waits".parse::<Collapse>().unwrap(), Collapse::UnlessWaits);
        let as_mock = "as_mock".parse::<Collapse>().unwrap();
        assert_eq!((as_mock.for_mock(true), as_mock.for_mock(false)), (Collapse::Always, Collapse::UnlessWaits));
        assert_eq!(Collapse::Never.for_mock(true), Collapse::Never);
        let err = "sometimes".parse::<Collapse>().unwrap_err();
        assert_eq!(err.code(), "invalid_argument");
        assert!(err.to_string().contains("found sometimes"), "{err}");
    }

    #[test]
    fn a_whole_reply_head_is_the_json_object_it_was() {
        let frame = |data: &str| crate::http::Frame { delay_ms: 0, data: data.into() };
        let headers = vec![("content-type".into(), "application/json".into()), ("x-q".into(), "\"a\"".into())];
        let full = HttpReply::Full { delay_ms: 7, status: 200, headers: headers.clone(), body: "{\"x\":1}".into() };
        let expected = json!({"kind": "full", "delay_ms": 7, "status": 200, "headers": headers});
        assert_eq!(http_reply_text(full.clone(), Collapse::UnlessWaits), format!("{expected}\n{{\"x\":1}}"));
        // Instant mode: no delay crosses.
        let expected = json!({"kind": "full", "delay_ms": 0, "status": 200, "headers": headers});
        assert_eq!(http_reply_text(full, Collapse::Always), format!("{expected}\n{{\"x\":1}}"));

        let frames: crate::http::Frames = vec![frame("data: a\n\n"), frame("data: b\n\n")].into();
        let stream = HttpReply::Stream {
            stall_ms: 0,
            status: 200,
            headers: headers.clone(),
            frames,
            end: crate::http::StreamEnd::Cut,
            base64: false,
            separate_writes: false,
            entry: None,
        };
        let expected = json!({"kind": "stream", "whole": true, "stall_ms": 0, "status": 200, "headers": headers,
                              "end": crate::http::StreamEnd::Cut});
        assert_eq!(http_reply_text(stream, Collapse::Always), format!("{expected}\ndata: a\n\ndata: b\n\n"));
    }

    #[test]
    fn instant_mode_sends_no_delay_of_any_kind() {
        let frame = |delay_ms, data: &str| crate::http::Frame { delay_ms, data: data.into() };
        let stream = |base64| HttpReply::Stream {
            stall_ms: 40,
            status: 200,
            headers: vec![],
            frames: vec![frame(5, "AAAA"), frame(9, "AAAA")].into(),
            end: crate::http::StreamEnd::Close,
            base64,
            separate_writes: false,
            entry: None,
        };
        let head = |text: String| serde_json::from_str::<Value>(text.lines().next().unwrap()).unwrap();
        // Binary frames cross one by one even when instant, without their delays.
        let instant = head(http_reply_text(stream(true), Collapse::Always));
        assert_eq!((instant["stall_ms"].clone(), instant["frames"][1]["delay_ms"].clone()), (json!(0), json!(0)));
        let paced = head(http_reply_text(stream(true), Collapse::UnlessWaits));
        assert_eq!((paced["stall_ms"].clone(), paced["frames"][1]["delay_ms"].clone()), (json!(40), json!(9)));
        // A text stream with waits is one body only when instant.
        assert_eq!(head(http_reply_text(stream(false), Collapse::UnlessWaits))["whole"], Value::Null);
        assert_eq!(head(http_reply_text(stream(false), Collapse::Always))["whole"], json!(true));
        let abort = |collapse| head(http_reply_text(HttpReply::Abort { delay_ms: 30 }, collapse));
        assert_eq!(abort(Collapse::Always), json!({"kind": "abort", "delay_ms": 0}));
        assert_eq!(abort(Collapse::Never), json!({"kind": "abort", "delay_ms": 30}));
        let full = |collapse| {
            let reply = HttpReply::Full { delay_ms: 25, status: 200, headers: vec![], body: "{}".into() };
            head(http_reply_text(reply, collapse))["delay_ms"].clone()
        };
        assert_eq!((full(Collapse::Always), full(Collapse::UnlessWaits)), (json!(0), json!(25)));
    }
}
