//! A recorded exchange: what a real provider sent for one request (status, kept headers, the body or the
//! stream's frames with the time each arrived), kept in a step beside the neutral answer decoded from it.
//!
//! Replay on the protocol it was recorded from sends these bytes (`Recorded::reply`); anything else (another
//! protocol, the in-process face, a neutral answer edited since it was recorded) uses the neutral answer. An edit
//! is seen by `answer_digest`: the recorder writes the digest of the step's neutral fields, and a step whose
//! fields no longer give that digest is encoded from them.

use crate::http::{Frame, Frames, HttpReply, ReplyHeader, StreamEnd};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The exchange as a recording holds it (`steps[].recorded`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recorded {
    /// The protocol table's endpoint it came from (`chat_completions`, `messages`, `gemini_generate`, ...).
    pub endpoint: String,
    /// Whether the request asked for a stream: a recorded stream replays to streaming requests only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
    /// The status the provider answered.
    pub status: u16,
    /// The response headers kept (redacted, without hop-by-hop and per-connection ones), lower-case names.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Milliseconds from the request to the response headers.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub headers_ms: u64,
    /// A whole body, as text (byte for byte what was sent: JSON bodies are not re-serialised).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// A streamed body: its events (SSE events, NDJSON lines, event-stream messages) with their arrival times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frames: Option<Vec<RecordedFrame>>,
    /// The frames are base64 of binary messages (AWS event-stream).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub base64: bool,
    /// The upstream's body ended broken (a cut connection), and replay cuts it the same way.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
    /// The digest of the step's neutral answer when it was recorded (`fnv1a64:` and 16 hex digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_digest: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One event of a recorded stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedFrame {
    /// Milliseconds from the request to its last byte.
    pub at_ms: u64,
    /// Its text (or base64, when the recording says so).
    pub data: String,
}

impl Recorded {
    /// Whether this exchange answers a request to `endpoint` that does (or does not) ask for a stream.
    pub fn replays_for(&self, endpoint: &str, stream: bool) -> bool {
        self.endpoint == endpoint && self.stream == stream
    }

    /// The recorded reply, its waits divided by `speed` (2.0 replays twice as fast; hosts that are instant skip
    /// the waits as they skip scripted ones).
    pub fn reply(&self, speed: f64) -> HttpReply {
        let scaled = |ms: u64| scale(ms, speed);
        let headers: Vec<ReplyHeader> =
            self.headers.iter().map(|(n, v)| (n.clone().into(), v.clone().into())).collect();
        match &self.frames {
            None => HttpReply::Full {
                delay_ms: scaled(self.headers_ms),
                status: self.status,
                headers,
                body: self.body.clone().unwrap_or_default(),
            },
            Some(recorded) => {
                let mut previous = self.headers_ms;
                let frames: Vec<Frame> = recorded
                    .iter()
                    .map(|frame| {
                        let wait = frame.at_ms.saturating_sub(previous);
                        previous = previous.max(frame.at_ms);
                        Frame { delay_ms: scaled(wait), data: frame.data.clone() }
                    })
                    .collect();
                HttpReply::Stream {
                    stall_ms: scaled(self.headers_ms),
                    status: self.status,
                    headers,
                    frames: Frames::from(frames),
                    end: if self.cut { StreamEnd::Cut } else { StreamEnd::Close },
                    base64: self.base64,
                    separate_writes: false,
                    entry: None,
                }
            }
        }
    }
}

/// `ms / speed`, rounded; a speed that is not a positive number (refused when read) leaves `ms` as it is.
fn scale(ms: u64, speed: f64) -> u64 {
    if speed.is_finite() && speed > 0.0 {
        // Virtual milliseconds stay far below 2^52, where f64 is exact.
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let scaled = (ms as f64 / speed).round() as u64;
        scaled
    } else {
        ms
    }
}

/// The digest a recorder writes for a neutral answer's JSON text: FNV-1a, 64 bits, as `fnv1a64:` and hex. It
/// only tells an edit apart from the recorded answer, so it need not resist anyone.
pub fn answer_digest(canonical_json: &str) -> String {
    let hash = crate::seeded::fnv1a64(canonical_json.bytes());
    format!("fnv1a64:{hash:016x}")
}

/// The endpoints whose rows answer with a model's reply (the chat protocols), which a recording can hold: the
/// wire's routing table (`wire/routes.rs`) is checked against it.
pub(crate) const ANSWER_ENDPOINTS: [&str; 10] = [
    "chat_completions",
    "cohere_chat",
    "completions",
    "responses",
    "messages",
    "gemini_generate",
    "bedrock_converse",
    "bedrock_invoke",
    "ollama_chat",
    "ollama_generate",
];

/// Whether `endpoint` is one the protocol table answers with a model's reply (what a recording can hold).
pub fn is_answer_endpoint(endpoint: &str) -> bool {
    ANSWER_ENDPOINTS.contains(&endpoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream() -> Recorded {
        Recorded {
            endpoint: "chat_completions".into(),
            stream: true,
            status: 200,
            headers: BTreeMap::from([("content-type".into(), "text/event-stream".into())]),
            headers_ms: 100,
            frames: Some(vec![
                RecordedFrame { at_ms: 120, data: "data: 1\n\n".into() },
                RecordedFrame { at_ms: 120, data: "data: 2\n\n".into() },
                RecordedFrame { at_ms: 200, data: "data: [DONE]\n\n".into() },
            ]),
            ..Recorded::default()
        }
    }

    #[test]
    fn a_stream_replays_its_frames_at_their_recorded_times_scaled() {
        let HttpReply::Stream { stall_ms, frames, end, status, headers, .. } = stream().reply(2.0) else {
            panic!("a stream")
        };
        assert_eq!((stall_ms, status, end), (50, 200, StreamEnd::Close));
        assert_eq!(headers, vec![("content-type".into(), "text/event-stream".into())]);
        let frames = frames.to_vec();
        assert_eq!(frames.iter().map(|f| f.delay_ms).collect::<Vec<_>>(), vec![10, 0, 40]);
        assert_eq!(
            frames.iter().map(|f| f.data.as_str()).collect::<String>(),
            "data: 1\n\ndata: 2\n\ndata: [DONE]\n\n"
        );
    }

    #[test]
    fn a_whole_reply_and_an_empty_one_replay_as_recorded() {
        let whole = Recorded {
            endpoint: "messages".into(),
            status: 529,
            headers_ms: 30,
            body: Some("{}".into()),
            ..Recorded::default()
        };
        assert_eq!(
            whole.reply(1.0),
            HttpReply::Full { delay_ms: 30, status: 529, headers: Vec::new(), body: "{}".into() }
        );
        let empty = Recorded { endpoint: "messages".into(), status: 200, ..Recorded::default() };
        assert_eq!(empty.reply(1.0).body_text(), "");
        assert!(whole.replays_for("messages", false) && !whole.replays_for("messages", true));
        assert!(!whole.replays_for("chat_completions", false));
    }

    #[test]
    fn the_digest_tells_texts_apart_and_is_stable() {
        assert_eq!(answer_digest(""), "fnv1a64:cbf29ce484222325");
        assert_eq!(answer_digest("a"), "fnv1a64:af63dc4c8601ec8c");
        assert_ne!(answer_digest(r#"{"text":"Hi"}"#), answer_digest(r#"{"text":"Hi!"}"#));
    }
}
