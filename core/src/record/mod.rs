//! The recorder: real exchanges in (the request's bytes, the reply's status, headers and chunks with their
//! arrival times), a recording out. It does no I/O, so the CLI's proxy and the bindings' in-process transports
//! record the same way.
//!
//! A recording is a scenario (`recording: {version: 1}` marks it): one route per distinct request, matching it
//! by its neutral request (`match.request`), with one step per time it was sent, in order. Each step is the
//! neutral answer read back from the reply (what other protocols and the in-process face replay) and the reply
//! itself (`recorded`: what the same protocol replays, byte for byte, with its timing).
//!
//! Nothing secret is written: credential headers are never kept, the keys a client sent are scrubbed wherever
//! they reappear, key-shaped words are replaced, and the text is checked once more before it is returned.

pub(crate) mod a2a;
mod answer;
mod drift;
mod file;
mod import;
mod mcp;
#[cfg(feature = "proxy")]
mod proxy;
pub mod redact;
mod split;
mod stream_redact;
pub mod upstream;
mod writer;

pub use drift::{drift_file, drift_report, Difference, DriftReport, ExchangeDrift, NotCompared};
pub use file::{
    age_problem, age_warning, age_warning_of_text, document_of_text, is_yaml, recorder_for, recording_file_name,
    recording_path_for_test, today, what_a_recording_does, RecordMode, RecordingFile, RecordingSettings, CI_VARIABLE,
    PUBLIC_UPSTREAMS, RECORD_MODE_VARIABLE,
};
pub use import::{import_vcrpy, Imported};
#[cfg(feature = "proxy")]
pub use proxy::{ProxyOptions, RecordingProxy};
pub use upstream::{forwarded_headers, parse_upstreams, protocol_of, upstream_for, upstream_target, Upstream};

use crate::error::{invalid_argument, Error, ErrorKind, Result};
use crate::http::HttpRequest;
use crate::request_match::FieldPath;
use crate::script::recorded::Recorded;
use crate::script::spec::StepSpec;
use redact::{object, Scrubber};
use serde_json::{json, Value};
use std::collections::HashMap;

/// How a recorder writes.
#[derive(Clone, Debug, Default)]
pub struct RecordOptions {
    /// Texts replaced by `[REDACTED]` wherever they occur (beside the keys seen in requests).
    pub redact_texts: Vec<String>,
    /// Request fields (paths such as `messages[*].content`) written as `[REDACTED]` and not compared on replay.
    pub redact_fields: Vec<String>,
    /// The recording's description.
    pub description: Option<String>,
    /// The day the recording is made (`YYYY-MM-DD`), written as `recording.recorded_on`; a recording file sets it
    /// to today when it starts a file, and keeps the first day when it appends.
    pub recorded_on: Option<String>,
    /// How many days a replay trusts the recording (`recording.max_age_days`), kept from the file it replaces or
    /// goes on from.
    pub max_age_days: Option<u64>,
}

/// A reply as it came from the upstream.
#[derive(Clone, Debug, Default)]
pub struct UpstreamReply {
    /// Its status.
    pub status: u16,
    /// Its headers.
    pub headers: Vec<(String, String)>,
    /// Milliseconds from sending the request to the headers.
    pub headers_ms: u64,
    /// The body as it arrived: each chunk with the milliseconds from sending the request.
    pub chunks: Vec<(u64, Vec<u8>)>,
    /// The body ended broken (the upstream cut the connection).
    pub cut: bool,
}

/// Accumulates exchanges into a recording.
#[derive(Debug)]
pub struct Recorder {
    options: RecordOptions,
    fields: Vec<FieldPath>,
    scrubber: Scrubber,
    /// The routes as data, in order (an appended recording's first).
    routes: Vec<Value>,
    /// Each route's position by its request.
    by_request: HashMap<String, usize>,
    /// The number of exchanges recorded by this recorder.
    recorded: usize,
    /// The MCP servers recorded (`mcp::McpRecording`).
    mcp: mcp::McpRecording,
    /// The A2A agents recorded (`a2a::A2aRecording`).
    a2a: a2a::A2aRecording,
}

impl Recorder {
    /// An empty recording.
    pub fn new(options: RecordOptions) -> Result<Recorder> {
        let fields = options.redact_fields.iter().map(|p| FieldPath::parse(p)).collect::<Result<Vec<_>>>()?;
        let scrubber = Scrubber { texts: options.redact_texts.iter().filter(|t| !t.is_empty()).cloned().collect() };
        Ok(Recorder {
            options,
            fields,
            scrubber,
            routes: Vec::new(),
            by_request: HashMap::new(),
            recorded: 0,
            mcp: mcp::McpRecording::default(),
            a2a: a2a::A2aRecording::default(),
        })
    }

    /// A recording that goes on from `existing` (a recording's document): its routes come first, and a request
    /// it already has gets one more step.
    pub fn appending(options: RecordOptions, existing: &Value) -> Result<Recorder> {
        let mut recorder = Recorder::new(options)?;
        recorder.mcp = mcp::McpRecording::from_document(existing)?;
        recorder.a2a = a2a::A2aRecording::from_document(existing)?;
        let routes = existing.get("routes").and_then(Value::as_array).cloned().unwrap_or_default();
        for route in routes {
            if let Some(key) = route.get("match").map(route_key) {
                recorder.by_request.insert(key, recorder.routes.len());
            }
            recorder.routes.push(route);
        }
        Ok(recorder)
    }

    /// How many exchanges this recorder recorded (an appended recording's own are not counted).
    pub fn recorded(&self) -> usize {
        self.recorded
    }

    /// Records one exchange. A request that is not a chat endpoint's (a model list, embeddings) is refused
    /// with `invalid_request`: a recording holds model answers.
    pub fn record(&mut self, request: &HttpRequest, reply: &UpstreamReply) -> Result<()> {
        self.record_exchange(request, reply).map(drop)
    }

    /// Records one exchange as [`Recorder::record`] does, and gives it as a route of its own (its request and
    /// its one step): what is appended to a file already written ([`Recorder::route_text`]).
    pub fn record_exchange(&mut self, request: &HttpRequest, reply: &UpstreamReply) -> Result<Value> {
        let refused = |why: String| Error::new(ErrorKind::InvalidRequest, why);
        let Some((endpoint, decoded)) = crate::wire::decode_request(request) else {
            return Err(refused(format!("{} {} is not an endpoint cuecard serves", request.method, request.path)));
        };
        let chat = match decoded {
            Some(Ok(chat)) => chat,
            Some(Err(why)) => return Err(refused(format!("the request to {endpoint} cannot be read: {why}"))),
            None => {
                return Err(refused(format!("{endpoint} answers no model reply; only chat endpoints are recorded")))
            }
        };
        for secret in redact::request_secrets(&request.headers, &request.query) {
            if !self.scrubber.texts.contains(&secret) {
                self.scrubber.texts.push(secret);
            }
        }
        // The request alone, whatever protocol carried it: another protocol's request, or the in-process face,
        // that asks the same is answered from the neutral answer.
        let matched = json!({
            "request": self.scrubber.scrub_value(redact::redact_fields(
                crate::request_match::recorded_request(&chat),
                &self.fields
            )),
        });
        let step = self.step(endpoint, chat.stream, reply)?;
        let exchange = object(vec![("match", matched.clone()), ("steps", Value::Array(vec![step.clone()]))]);
        let key = route_key(&matched);
        match self.by_request.get(&key).and_then(|&i| self.routes.get_mut(i)) {
            Some(route) => {
                if let Some(steps) = route.get_mut("steps").and_then(Value::as_array_mut) {
                    steps.push(step);
                }
            }
            None => {
                self.by_request.insert(key, self.routes.len());
                self.routes.push(exchange.clone());
            }
        }
        self.recorded += 1;
        Ok(exchange)
    }

    /// Whether a route (a model exchange) was recorded: until then the file's `routes` is `[]`, not a list to
    /// append to.
    pub(super) fn has_routes(&self) -> bool {
        !self.routes.is_empty()
    }

    /// Records one MCP exchange (a JSON-RPC request over HTTP and the reply), as the server it tells of: its tools,
    /// resources and prompts, and each call's result as a step. A notification, or a reply without the response,
    /// records nothing. Returns whether something was kept.
    pub fn record_mcp(&mut self, request: &HttpRequest, reply: &UpstreamReply) -> bool {
        let Some(message) = mcp::request_of(&request.body) else { return false };
        let Some(id) = message.get("id") else { return false };
        let body: Vec<u8> = reply.chunks.iter().flat_map(|(_, chunk)| chunk.iter().copied()).collect();
        let Some(response) = mcp::response_of(&body, id) else { return false };
        self.record_mcp_message(&request.path, &request.headers, &message, &response)
    }

    /// Records one MCP request and its response as JSON-RPC messages (what `cuecard record -- COMMAND` relays over
    /// stdio): `path` says which server (`/mcp/{name}`, else the first), `headers` the credentials never written.
    pub fn record_mcp_message(
        &mut self,
        path: &str,
        headers: &[(String, String)],
        request: &Value,
        response: &Value,
    ) -> bool {
        for secret in redact::request_secrets(headers, "") {
            if !self.scrubber.texts.contains(&secret) {
                self.scrubber.texts.push(secret);
            }
        }
        let kept = self.mcp.record(path, request, response);
        if kept {
            self.recorded += 1;
        }
        kept
    }

    /// Records one exchange with a remote A2A agent: a card fetched (the agent's description, skills, capabilities)
    /// or a JSON-RPC call and its reply (JSON, or an SSE stream), as the agent it tells of. A call that says nothing
    /// kept (a cancel, a push config, a notification) records nothing. Returns whether something was kept.
    pub fn record_a2a(&mut self, request: &HttpRequest, reply: &UpstreamReply) -> bool {
        for secret in redact::request_secrets(&request.headers, &request.query) {
            if !self.scrubber.texts.contains(&secret) {
                self.scrubber.texts.push(secret);
            }
        }
        let body: Vec<u8> = reply.chunks.iter().flat_map(|(_, chunk)| chunk.iter().copied()).collect();
        let kept = if a2a::is_card_path(&request.path) {
            reply.status == 200
                && serde_json::from_slice::<Value>(&body).is_ok_and(|card| self.a2a.record_card(&request.path, &card))
        } else {
            let Ok(call) = serde_json::from_slice::<Value>(&request.body) else { return false };
            reply.status == 200 && self.a2a.record_call(&request.path, &call, &a2a::responses_of(&body), reply.cut)
        };
        if kept {
            self.recorded += 1;
        }
        kept
    }

    /// The step of one reply: its neutral answer, and the reply as recorded.
    fn step(&self, endpoint: &str, stream: bool, reply: &UpstreamReply) -> Result<Value> {
        let headers = redact::kept_response_headers(&reply.headers);
        let content_type = headers.iter().find(|(n, _)| n == "content-type").map(|(_, v)| v.as_str());
        // A request that asked for a stream but got a whole reply (an error before streaming) is recorded whole.
        let streamed = stream && reply.status < 400 && !content_type.is_some_and(|t| t.starts_with("application/json"));
        let mut recorded = Recorded {
            endpoint: endpoint.to_string(),
            stream,
            status: reply.status,
            headers: headers.iter().map(|(n, v)| (n.clone(), self.scrubber.scrub(v))).collect(),
            headers_ms: reply.headers_ms,
            cut: reply.cut,
            ..Recorded::default()
        };
        let body: Vec<u8> = reply.chunks.iter().flat_map(|(_, chunk)| chunk.iter().copied()).collect();
        let neutral = if streamed {
            let (frames, base64) = split::frames(split::Framing::of(content_type), &reply.chunks);
            let events: Vec<Vec<u8>> = frames.iter().map(|f| split::joined(std::slice::from_ref(f), base64)).collect();
            let neutral = answer::neutral_answer(endpoint, reply.status, None, &events);
            recorded.base64 = base64;
            // A secret split over the stream's frames is cut from the values a reader would join (and from the
            // decoded payloads of binary frames); then each text frame is scrubbed alone, for what is not a value.
            let (frames, _) = stream_redact::redact_frames(frames, base64, &self.scrubber);
            let frames: Vec<_> = frames
                .into_iter()
                .map(|mut frame| {
                    if !base64 {
                        frame.data = self.scrubber.scrub(&frame.data);
                    }
                    frame
                })
                .collect();
            if let Some(what) = stream_redact::reassembled_secret(&frames, base64, &self.scrubber) {
                return Err(Error::new(ErrorKind::Internal, format!("the recorded stream still holds {what}")));
            }
            recorded.frames = Some(frames);
            neutral
        } else {
            let neutral = answer::neutral_answer(endpoint, reply.status, Some(&body), &[]);
            recorded.body = Some(self.scrubber.scrub(&String::from_utf8_lossy(&body)));
            neutral
        };
        // The neutral answer is scrubbed as data, then read back, so its digest is that of what is written.
        let neutral = serde_json::to_value(&neutral).map_err(|e| invalid_argument(e.to_string()))?;
        let neutral: StepSpec = crate::input::deserialize_data(&self.scrubber.scrub_value(neutral))
            .map_err(|e| Error::new(ErrorKind::Internal, format!("a recorded answer does not read back: {e:?}")))?;
        recorded.answer_digest = Some(neutral.answer_digest());
        let step = StepSpec { recorded: Some(std::sync::Arc::new(recorded)), ..neutral };
        serde_json::to_value(&step).map_err(|e| invalid_argument(e.to_string()))
    }

    /// The recording as a scenario document.
    pub fn document(&self) -> Value {
        let mut recording = vec![("version", json!(crate::scenario::RECORDING_VERSION))];
        if !self.options.redact_fields.is_empty() {
            recording.push(("ignore", json!(self.options.redact_fields)));
        }
        if let Some(day) = &self.options.recorded_on {
            recording.push(("recorded_on", json!(day)));
        }
        if let Some(days) = self.options.max_age_days {
            recording.push(("max_age_days", json!(days)));
        }
        let mut fields = vec![("cuecard", json!(crate::scenario::FORMAT_VERSION))];
        if let Some(description) = &self.options.description {
            fields.push(("description", json!(description)));
        }
        fields.push(("recording", object(recording)));
        if !self.mcp.is_empty() {
            fields.push(("mcp", self.scrubber.scrub_value(self.mcp.to_value())));
        }
        if !self.a2a.is_empty() {
            fields.push(("a2a", self.scrubber.scrub_value(self.a2a.to_value())));
        }
        fields.push(("routes", Value::Array(self.routes.clone())));
        object(fields)
    }

    /// The recording as the text of a file (YAML or JSON), refused when a secret is still in it.
    pub fn to_text(&self, yaml: bool) -> Result<String> {
        let document = self.document();
        let text = if yaml {
            serde_yaml_ng::to_string(&document).map_err(|e| Error::new(ErrorKind::Internal, e.to_string()))?
        } else {
            let mut text =
                serde_json::to_string_pretty(&document).map_err(|e| Error::new(ErrorKind::Internal, e.to_string()))?;
            text.push('\n');
            text
        };
        if let Some(what) = redact::leftover_secret(&text, &self.scrubber.texts) {
            return Err(Error::new(
                ErrorKind::Internal,
                format!("the recording still holds {what}: nothing was written"),
            ));
        }
        Ok(text)
    }
}

/// The end of a recording written as JSON (the routes' array, then the document, closed): an exchange appended to
/// a JSON recording is written over it, followed by it again.
pub(crate) const JSON_TRAILER: &str = "\n  ]\n}\n";

impl Recorder {
    /// One exchange's route ([`Recorder::record_exchange`]) as the text appended to a recording already written:
    /// a YAML item of `routes` (the document's last key), or for JSON `,` and the item followed by
    /// [`JSON_TRAILER`]. Refused, like [`Recorder::to_text`], when a secret is still in it.
    pub fn route_text(&self, route: &Value, yaml: bool) -> Result<String> {
        let internal = |e: String| Error::new(ErrorKind::Internal, e);
        let text = if yaml {
            serde_yaml_ng::to_string(std::slice::from_ref(route)).map_err(|e| internal(e.to_string()))?
        } else {
            // serde_json's pretty layout nests an item of the routes four spaces in; a JSON string holds no raw
            // newline, so indenting each line indents the item and nothing inside a string.
            let item = serde_json::to_string_pretty(route).map_err(|e| internal(e.to_string()))?;
            let mut text = String::from(",\n");
            for line in item.lines() {
                text.push_str("    ");
                text.push_str(line);
                text.push('\n');
            }
            text.pop();
            text.push_str(JSON_TRAILER);
            text
        };
        if let Some(what) = redact::leftover_secret(&text, &self.scrubber.texts) {
            return Err(internal(format!("the recording still holds {what}: nothing was written")));
        }
        Ok(text)
    }
}

/// What makes two recorded requests one route: the request, as JSON text.
fn route_key(matched: &Value) -> String {
    matched["request"].to_string()
}

#[cfg(test)]
mod tests;
