//! Ollama's API: `POST /api/chat`, `/api/generate`, `/api/embed` (and the older `/api/embeddings`),
//! `GET /api/tags`, `GET /api/ps`, `POST /api/show`, `GET /api/version` (`docs/concepts/wire.md`, "Ollama";
//! `../shared/spec/providers.md` §3 and §9).
//!
//! What the SDKs hold a mock to: a stream is NDJSON (`application/x-ndjson`), one JSON object per `\n`-ended line,
//! never a blank line, always ending with a `done: true` line (ollama-js throws without it); `stream` defaults to
//! true only when the body leaves it out (both SDKs send `false` unless asked); every chat chunk has `message` with
//! its `role`; tool calls come whole with `arguments` as an object; thinking is `message.thinking`; errors are
//! `{"error": "<text>"}`, also as a line mid-stream. Durations are nanoseconds of the virtual clock.

use super::errors::{error_object, Dialect};
use super::json::{self, Object};
use super::routes::Matched;
use super::{
    json_reply, json_text, push_json_str, raw, request_id, served_reply, ChatProtocol, DecodedRequest, Encoding, Frame,
    HttpReply, HttpRequest,
};
use crate::delivery::{BodyKind, StreamFraming};
use crate::mock::MockModel;
use crate::model::{
    ChatRequest, ChatResponse, FinishReason, ImagePart, Message, ResponseFormat, Role, ToolCall, ToolDefinition, Usage,
};
use crate::script::StreamBreak;
use crate::stream::{Envelope, EventStream, StreamEvent, TimedEvent};
use serde_json::{json, Value};

/// `POST /api/chat`.
pub(crate) struct OllamaChat;

/// `POST /api/generate`: a prompt (and a system text) instead of messages; the answer is `response`.
pub(crate) struct OllamaGenerate;

/// The version `GET /api/version` reports (a current Ollama's).
const OLLAMA_VERSION: &str = "0.12.6";

/// The dimensions of an embedding (nomic-embed-text's).
const EMBEDDING_DIMENSIONS: usize = 768;

impl ChatProtocol for OllamaChat {
    const DIALECT: Dialect = Dialect::Ollama;
    const FRAMING: StreamFraming = StreamFraming::only(BodyKind::Ndjson);

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        let mut messages = Vec::new();
        for (i, message) in json::required_array(top, "messages", "request")?.iter().enumerate() {
            messages.push(decode_message(message, &format!("messages[{i}]"))?);
        }
        let mut tools = Vec::new();
        for (i, tool) in json::optional_array(top, "tools", "request")?.iter().enumerate() {
            let what = format!("tools[{i}].function");
            let function = json::object(tool.get("function").unwrap_or(&Value::Null), &what)?;
            tools.push(ToolDefinition {
                name: json::required_str(function, "name", &what)?.to_string(),
                description: json::optional_str(function, "description", &what)?,
                parameters: function.get("parameters").cloned().unwrap_or_else(|| json!({"type": "object"})),
            });
        }
        decoded(top, messages, tools)
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        _: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        let mut body = final_line(envelope, response, usage, 0);
        body["message"] = chat_message(
            response.message.text.as_deref().unwrap_or_default(),
            response.message.thinking.as_deref(),
            &response.message.tool_calls,
        );
        json_reply(200, vec![("x-request-id".into(), request_id.to_owned().into())], &body)
    }

    fn encode_stream(stream: &EventStream, _: &DecodedRequest, request_id: &str) -> HttpReply {
        encode_lines(stream, request_id, Shape::Chat)
    }
}

impl ChatProtocol for OllamaGenerate {
    const DIALECT: Dialect = Dialect::Ollama;
    const FRAMING: StreamFraming = StreamFraming::only(BodyKind::Ndjson);

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        let mut messages = Vec::new();
        if let Some(system) = json::optional_str(top, "system", "request")? {
            messages.push(Message::system(system));
        }
        let mut prompt = Message::user(json::optional_str(top, "prompt", "request")?.unwrap_or_default());
        prompt.content.extend(images(top, "request")?);
        messages.push(prompt);
        decoded(top, messages, Vec::new())
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        _: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        let mut body = final_line(envelope, response, usage, 0);
        body["response"] = json!(response.message.text.as_deref().unwrap_or_default());
        if let Some(thinking) = &response.message.thinking {
            body["thinking"] = json!(thinking);
        }
        json_reply(200, vec![("x-request-id".into(), request_id.to_owned().into())], &body)
    }

    fn encode_stream(stream: &EventStream, _: &DecodedRequest, request_id: &str) -> HttpReply {
        encode_lines(stream, request_id, Shape::Generate)
    }
}

/// The request both endpoints share: model, options, format, think and stream (true when left out).
fn decoded(top: &Object, messages: Vec<Message>, tools: Vec<ToolDefinition>) -> Result<DecodedRequest, String> {
    let options = top.get("options").and_then(Value::as_object);
    let option = |key: &str| options.and_then(|o| o.get(key)).and_then(Value::as_f64);
    let stop = match options.and_then(|o| o.get("stop")) {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    };
    let response_format = match top.get("format") {
        Some(Value::String(format)) if format == "json" => Some(ResponseFormat::JsonObject),
        Some(schema @ Value::Object(_)) => {
            Some(ResponseFormat::JsonSchema { name: None, schema: schema.clone(), strict: None })
        }
        _ => None,
    };
    let request = ChatRequest {
        model: json::required_str(top, "model", "request")?.to_string(),
        messages,
        tools,
        tool_choice: None,
        response_format: response_format.map(Box::new),
        temperature: option("temperature"),
        top_p: option("top_p"),
        max_tokens: option("num_predict").filter(|n| *n >= 0.0).map(|n| n as u64),
        stop,
        seed: option("seed").map(|n| n as i64),
        // The server streams unless told not to; the SDKs send `false` unless the caller asks for a stream.
        stream: match top.get("stream") {
            None | Some(Value::Null) => true,
            Some(_) => json::optional_bool(top, "stream", "request")?,
        },
        metadata: crate::model::RequestMetadata::default(),
    };
    Ok(DecodedRequest::new(request))
}

fn images(object: &Object, what: &str) -> Result<Vec<crate::model::ContentPart>, String> {
    Ok(json::optional_array(object, "images", what)?
        .iter()
        .filter_map(Value::as_str)
        .map(|data| {
            crate::model::ContentPart::Image(Box::new(ImagePart {
                url: None,
                data: Some(data.to_string()),
                media_type: None,
                detail: None,
            }))
        })
        .collect())
}

fn decode_message(value: &Value, what: &str) -> Result<Message, String> {
    let object = json::object(value, what)?;
    let role = match json::required_str(object, "role", what)? {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        other => return Err(format!("{what}.role {other:?} is not system, user, assistant or tool")),
    };
    let text = json::optional_str(object, "content", what)?.unwrap_or_default();
    let mut message = Message { role, ..Message::user(text) };
    if message.content.iter().all(|p| matches!(p, crate::model::ContentPart::Text { text } if text.is_empty())) {
        message.content.clear();
    }
    message.content.extend(images(object, what)?);
    message.thinking = json::optional_str(object, "thinking", what)?;
    for (i, call) in json::optional_array(object, "tool_calls", what)?.iter().enumerate() {
        let what = format!("{what}.tool_calls[{i}].function");
        let function = json::object(call.get("function").unwrap_or(&Value::Null), &what)?;
        let name = json::required_str(function, "name", &what)?.to_string();
        message.tool_calls.push(ToolCall {
            // Ollama's calls have no id: a call is answered by its tool's name.
            id: call.get("id").and_then(Value::as_str).map_or_else(|| name.clone(), str::to_string),
            arguments: function.get("arguments").map_or_else(|| "{}".to_string(), Value::to_string),
            name,
        });
    }
    if role == Role::Tool {
        message.tool_call_id =
            json::optional_str(object, "tool_name", what)?.or(json::optional_str(object, "tool_call_id", what)?);
    }
    Ok(message)
}

/// A chat chunk's `message` (every chunk has one with its role, the final one too).
fn chat_message(text: &str, thinking: Option<&str>, calls: &[ToolCall]) -> Value {
    let mut message = json!({"role": "assistant", "content": text});
    if let Some(thinking) = thinking {
        message["thinking"] = json!(thinking);
    }
    if !calls.is_empty() {
        let calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(index, call)| {
                json!({"function": {"index": index, "name": call.name, "arguments": super::anthropic::tool_input(&call.arguments)}})
            })
            .collect();
        message["tool_calls"] = Value::Array(calls);
    }
    message
}

/// `2026-01-01T00:00:00Z` from Unix seconds (the mock's clock), the date by `clock::days_date`.
pub(crate) fn rfc3339(seconds: u64) -> String {
    let date = crate::clock::days_date(i64::try_from(seconds / 86_400).unwrap_or(i64::MAX));
    let rest = seconds % 86_400;
    format!("{date}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}

/// The `done: true` line (and a whole answer's body): the finish reason and the counters, with `total_duration`
/// and `eval_duration` the answer's virtual milliseconds in nanoseconds.
fn final_line(envelope: &Envelope, response: &ChatResponse, usage: Usage, duration_ms: u64) -> Value {
    let nanoseconds = duration_ms.saturating_mul(1_000_000);
    json!({
        "model": envelope.model,
        "created_at": rfc3339(envelope.created),
        "done": true,
        "done_reason": match response.finish_reason.unwrap_or(FinishReason::Stop) {
            FinishReason::Length => "length",
            _ => "stop",
        },
        "total_duration": nanoseconds,
        "load_duration": 0,
        "prompt_eval_count": usage.input_tokens,
        "prompt_eval_duration": 0,
        "eval_count": usage.output_tokens,
        "eval_duration": nanoseconds,
    })
}

/// One NDJSON line: the object and its `\n`.
fn line(value: &Value) -> String {
    let mut out = Vec::with_capacity(192);
    let _ = serde_json::to_writer(&mut out, value); // into a Vec, this cannot fail
    out.push(b'\n');
    json_text(out)
}

/// Which endpoint's lines a stream is made of: chat's `message`, or generate's `response`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Chat,
    Generate,
}

/// The per-token lines of one stream, written by hand around the token (keys in serde_json's sorted order, so the
/// bytes are those of the serialized object): each line of a 75-token stream re-serialized its whole object and
/// re-formatted its date, eight times the work of a Chat Completions chunk.
struct TokenLines {
    /// `{"created_at":"...","done":false,` and, for generate, `"model":"...",`.
    head: String,
    /// `"model":"..."}` for chat (it sorts after `message`), nothing for generate.
    model_tail: String,
    shape: Shape,
}

impl TokenLines {
    fn new(envelope: &Envelope, shape: Shape) -> TokenLines {
        let mut head = Vec::with_capacity(96);
        head.extend_from_slice(b"{\"created_at\":");
        push_json_str(&mut head, &rfc3339(envelope.created));
        head.extend_from_slice(b",\"done\":false,");
        let mut model_tail = Vec::with_capacity(48);
        let model = if shape == Shape::Chat { &mut model_tail } else { &mut head };
        model.extend_from_slice(b"\"model\":");
        push_json_str(model, &envelope.model);
        if shape == Shape::Chat {
            model_tail.extend_from_slice(b"}\n");
        } else {
            head.push(b',');
        }
        TokenLines { head: json_text(head), model_tail: json_text(model_tail), shape }
    }

    /// The line of one text token (`thinking: false`) or thinking token.
    fn token(&self, text: &str, thinking: bool) -> String {
        let mut out = Vec::with_capacity(self.head.len() + self.model_tail.len() + text.len() + 64);
        out.extend_from_slice(self.head.as_bytes());
        match (self.shape, thinking) {
            (Shape::Chat, false) => {
                out.extend_from_slice(b"\"message\":{\"content\":");
                push_json_str(&mut out, text);
                out.extend_from_slice(b",\"role\":\"assistant\"},");
            }
            (Shape::Chat, true) => {
                out.extend_from_slice(b"\"message\":{\"content\":\"\",\"role\":\"assistant\",\"thinking\":");
                push_json_str(&mut out, text);
                out.extend_from_slice(b"},");
            }
            (Shape::Generate, false) => {
                out.extend_from_slice(b"\"response\":");
                push_json_str(&mut out, text);
                out.extend_from_slice(b"}\n");
            }
            (Shape::Generate, true) => {
                out.extend_from_slice(b"\"response\":\"\",\"thinking\":");
                push_json_str(&mut out, text);
                out.extend_from_slice(b"}\n");
            }
        }
        out.extend_from_slice(self.model_tail.as_bytes());
        json_text(out)
    }
}

/// A stream as NDJSON lines: thinking and text deltas, the tool calls whole in one line, then the `done` line; a
/// failure mid-stream is an `{"error": ...}` line (or a cut, or a clean end without the `done` line).
fn encode_lines(stream: &EventStream, request_id: &str, shape: Shape) -> HttpReply {
    let frames = super::frames::encoded(stream, move |stream| lines_encoding(stream, shape));
    let headers = vec![
        ("content-type".into(), "application/x-ndjson".into()),
        ("x-request-id".into(), request_id.to_owned().into()),
    ];
    super::streamed_http_reply(stream, headers, frames, false)
}

/// The lines of one stream (`encode_lines`).
fn lines_encoding(stream: &EventStream, shape: Shape) -> Encoding {
    let envelope = stream.envelope().clone();
    let stream_break = stream.stream_break();
    let total_delay_ms = stream.total_delay_ms();
    let lines = TokenLines::new(&envelope, shape);
    let mut pending_delay = 0u64;
    let mut calls = Vec::new();
    let each = move |timed: &TimedEvent| -> Option<Frame> {
        let envelope = &envelope;
        pending_delay += timed.delay_ms;
        let data = match &timed.event {
            StreamEvent::ThinkingDelta { text } => lines.token(text, true),
            StreamEvent::TextDelta { text } => lines.token(text, false),
            StreamEvent::ToolCallDelta { .. } => return None,
            StreamEvent::ToolCall { call, .. } => {
                calls.push(call.clone());
                return None;
            }
            StreamEvent::Complete { response } => {
                let mut out = String::new();
                if !calls.is_empty() {
                    let mut called = json!({"message": chat_message("", None, &calls), "model": envelope.model,
                        "created_at": rfc3339(envelope.created), "done": false});
                    if shape == Shape::Generate {
                        called["response"] = json!("");
                    }
                    out.push_str(&line(&called));
                }
                let mut done = final_line(envelope, response, response.usage.unwrap_or_default(), total_delay_ms);
                match shape {
                    Shape::Chat => done["message"] = chat_message("", None, &[]),
                    Shape::Generate => done["response"] = json!(""),
                }
                out.push_str(&line(&done));
                out
            }
            StreamEvent::Error { error } => {
                if stream_break != StreamBreak::ErrorEvent {
                    return None;
                }
                line(&json!({"error": error_object(Dialect::Ollama, error)}))
            }
        };
        Some(Frame { delay_ms: std::mem::take(&mut pending_delay), data })
    };
    Encoding { opening: Vec::new(), each: Box::new(each) }
}

/// `POST /api/embed` (`input`: a text or a list; `embeddings`) and `POST /api/embeddings` (`prompt`; `embedding`).
pub(crate) fn embed(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let parsed =
        serde_json::from_slice::<Value>(&http.body).map_err(|e| format!("the request body is not valid JSON: {e}"));
    let inputs = parsed.and_then(|body| {
        let model = body.get("model").and_then(Value::as_str).ok_or("request.model is required")?.to_string();
        let legacy = body.get("prompt").and_then(Value::as_str).map(|p| vec![p.to_string()]);
        let inputs = match (body.get("input"), legacy.clone()) {
            (Some(Value::String(text)), _) => vec![text.clone()],
            (Some(Value::Array(items)), _) => {
                items.iter().map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string)).collect()
            }
            (None, Some(prompt)) => prompt,
            _ => return Err("request.input must be a string or an array of strings".to_string()),
        };
        let dimensions =
            body.get("dimensions").and_then(Value::as_u64).map_or(EMBEDDING_DIMENSIONS, |d| d.clamp(1, 8192) as usize);
        Ok((model, inputs, dimensions, legacy.is_some() && body.get("input").is_none()))
    });
    let (model, inputs, dimensions, legacy) = match inputs {
        Ok(parsed) => parsed,
        Err(message) => {
            let index =
                mock.reject(super::served_request("", matched.endpoint, Vec::new()), Some(raw(http)), message.clone());
            return super::errors::cuecard_reply(
                Dialect::Ollama,
                400,
                crate::error::ErrorKind::InvalidRequest,
                &message,
                &request_id(index),
            );
        }
    };
    let index = mock.record_served(
        super::served_request(&model, matched.endpoint, inputs.iter().cloned().map(Message::user).collect()),
        Some(raw(http)),
    );
    let seed = mock.seed();
    let vectors: Vec<Vec<f64>> = inputs
        .iter()
        .map(|text| crate::embed::embedding(seed, text, dimensions).iter().map(|v| f64::from(*v)).collect())
        .collect();
    let body = if legacy {
        json!({"embedding": vectors.first().cloned().unwrap_or_default()})
    } else {
        let tokens: usize = inputs.iter().map(|t| crate::tokenize::count_tokens(t)).sum();
        json!({"model": model, "embeddings": vectors, "total_duration": 0, "load_duration": 0, "prompt_eval_count": tokens})
    };
    served_reply(index, &body)
}

/// The models a route matches on, plus `cuecard-mock`, as Ollama names them.
fn model_entries(mock: &MockModel) -> Vec<Value> {
    let mut ids = mock.route_models();
    ids.push(crate::clock::DEFAULT_MODEL.to_string());
    ids.dedup();
    ids.iter().map(|id| model_entry(id)).collect()
}

fn model_entry(id: &str) -> Value {
    json!({
        "name": id, "model": id, "modified_at": rfc3339(crate::clock::CLOCK_EPOCH_SECONDS), "size": 0,
        "digest": "cuecard", "details": details(),
    })
}

fn details() -> Value {
    json!({"parent_model": "", "format": "gguf", "family": "cuecard", "families": ["cuecard"],
        "parameter_size": "0B", "quantization_level": "none"})
}

/// `GET /api/tags`: the local models (`model` and `name` both, as ollama-python reads `model`).
pub(crate) fn tags(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let index = mock.record_served(super::served_request("", matched.endpoint, Vec::new()), Some(raw(http)));
    served_reply(index, &json!({"models": model_entries(mock)}))
}

/// `GET /api/ps`: the same models, as loaded ones.
pub(crate) fn running(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let index = mock.record_served(super::served_request("", matched.endpoint, Vec::new()), Some(raw(http)));
    let models: Vec<Value> = model_entries(mock)
        .into_iter()
        .map(|mut m| {
            m["expires_at"] = json!(rfc3339(crate::clock::CLOCK_EPOCH_SECONDS + 300));
            m["size_vram"] = json!(0);
            m
        })
        .collect();
    served_reply(index, &json!({"models": models}))
}

/// `POST /api/show`: a model's facts; `model_info` is always there (ollama-python requires the key).
pub(crate) fn show(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let body: Value = serde_json::from_slice(&http.body).unwrap_or(Value::Null);
    let model = body.get("model").or_else(|| body.get("name")).and_then(Value::as_str).unwrap_or_default().to_string();
    let index = mock.record_served(super::served_request(&model, matched.endpoint, Vec::new()), Some(raw(http)));
    let shown = json!({
        "modelfile": format!("FROM {model}\n"), "parameters": "", "template": "{{ .Prompt }}", "details": details(),
        "model_info": {}, "capabilities": ["completion", "tools", "thinking", "embedding"],
        "modified_at": rfc3339(crate::clock::CLOCK_EPOCH_SECONDS),
    });
    served_reply(index, &shown)
}

/// `GET /api/version`.
pub(crate) fn version(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let index = mock.record_served(super::served_request("", matched.endpoint, Vec::new()), Some(raw(http)));
    served_reply(index, &json!({"version": OLLAMA_VERSION}))
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn civil_dates_from_unix_seconds() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_767_225_600), "2026-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400 + 3_723), "2000-02-29T01:02:03Z");
        assert_eq!(rfc3339(4_107_542_399), "2100-02-28T23:59:59Z");
    }
}
