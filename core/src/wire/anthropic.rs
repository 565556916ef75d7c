//! Anthropic Messages, `POST /v1/messages` (`docs/concepts/wire.md`, "Anthropic Messages"), its token count,
//! `POST /v1/messages/count_tokens`, and Claude on Vertex AI (`:rawPredict`, `:streamRawPredict`).
//!
//! Streams use named events with the same `type` in the data: `message_start` (content `[]`, usage),
//! per block `content_block_start` / `content_block_delta` (`thinking_delta` + `signature_delta`,
//! `text_delta`, `input_json_delta`) / `content_block_stop`, then `message_delta` with the cumulative
//! `usage.output_tokens`, then `message_stop`. A failure mid-stream is `event: error`.

use super::errors::{cuecard_reply, error_object, Dialect};
use super::json::{self, Object};
use super::routes::Matched;
use super::{
    json_reply, json_text, push_json_number, push_json_str, raw, request_id, sse_json, stream_reply, ChatProtocol,
    DecodedRequest, Encoding, Frame, HttpReply, HttpRequest,
};
use crate::contracts::thinking_signature;
use crate::delivery::{self, StreamFraming};
use crate::error::ErrorKind;
use crate::mock::MockModel;
use crate::model::{
    ChatRequest, ChatResponse, ContentPart, FinishReason, ImagePart, Message, Role, ToolCall, ToolDefinition, Usage,
};
use crate::script::StreamBreak;
use crate::stream::{Envelope, EventStream, StreamEvent, TimedEvent};
use serde_json::{json, Value};

pub(crate) struct AnthropicMessages;

/// `POST /v1/messages/count_tokens`: `{"input_tokens": N}`, the input tokens `/v1/messages` reports for the same
/// body when the script gives no usage (the word-like count of the system prompt and the messages,
/// `docs/concepts/tokens.md`), so a test can compare the two; a route naming `anthropic_count_tokens` scripts the
/// count (its step's `usage.input_tokens`) or a failure. The body is a Messages request without `max_tokens`;
/// it is journaled as its messages, and a body that is not one is refused as `/v1/messages` refuses it.
pub(crate) fn count_tokens(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let decoded = serde_json::from_slice::<Value>(&http.body)
        .map_err(|e| format!("the request body is not valid JSON: {e}"))
        .and_then(|mut body| {
            if let Some(top) = body.as_object_mut() {
                top.entry("max_tokens").or_insert(json!(1)); // not part of a count request
            }
            AnthropicMessages::decode(&body)
        });
    match decoded {
        Ok(decoded) => {
            let request = &decoded.request;
            let estimate = crate::usage::estimate_input_tokens(request);
            let served = super::served_request(&request.model, matched.endpoint, request.messages.clone());
            match super::scripted::counted(mock, http, served, estimate, Dialect::Anthropic) {
                Ok((index, input_tokens)) => {
                    super::served_reply_as(Dialect::Anthropic, index, &json!({"input_tokens": input_tokens}))
                }
                Err(reply) => reply,
            }
        }
        Err(message) => {
            let refused = super::served_request("", matched.endpoint, Vec::new());
            let index = mock.reject(refused, Some(raw(http)), message.clone());
            cuecard_reply(Dialect::Anthropic, 400, ErrorKind::InvalidRequest, &message, &request_id(index))
        }
    }
}

/// Claude on Vertex AI, `.../publishers/anthropic/models/{model}:rawPredict` and `:streamRawPredict`, as the
/// `AnthropicVertex` clients call it: the Messages body without `model` (the path names it, `routes::Matched`)
/// and with `anthropic_version` (`vertex-2023-10-16`), which Vertex requires; the answer is the Messages answer.
pub(crate) struct AnthropicVertex;

impl ChatProtocol for AnthropicVertex {
    const DIALECT: Dialect = Dialect::Anthropic;
    const FRAMING: StreamFraming = AnthropicMessages::FRAMING;

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        if json::optional_str(top, "anthropic_version", "request")?.is_none() {
            return Err("request.anthropic_version is required on Vertex AI (as `vertex-2023-10-16`)".to_string());
        }
        if top.contains_key("model") {
            return AnthropicMessages::decode(body);
        }
        let mut named = body.clone();
        named["model"] = Value::from(""); // replaced by the path's model
        AnthropicMessages::decode(&named)
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        AnthropicMessages::encode_response(response, usage, envelope, request, request_id)
    }

    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply {
        AnthropicMessages::encode_stream(stream, request, request_id)
    }
}

impl ChatProtocol for AnthropicMessages {
    const DIALECT: Dialect = Dialect::Anthropic;
    /// `ping` events, as the API sends them between any two events (spec C.5).
    const FRAMING: StreamFraming = StreamFraming::sse(Some(delivery::ANTHROPIC_PING), true);

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        let model = json::required_str(top, "model", "request")?.to_string();
        let mut messages = Vec::new();
        match top.get("system") {
            None | Some(Value::Null) => {}
            Some(system) => messages.push(Message::system(json::flatten_text(system))),
        }
        for (i, message) in json::required_array(top, "messages", "request")?.iter().enumerate() {
            decode_message(message, &format!("messages[{i}]"), &mut messages)?;
        }
        let mut tools = Vec::new();
        for (i, tool) in json::optional_array(top, "tools", "request")?.iter().enumerate() {
            let what = format!("tools[{i}]");
            let object = json::object(tool, &what)?;
            tools.push(ToolDefinition {
                name: json::required_str(object, "name", &what)?.to_string(),
                description: json::optional_str(object, "description", &what)?,
                parameters: object.get("input_schema").cloned().unwrap_or_else(|| json!({"type": "object"})),
            });
        }
        let request = ChatRequest {
            model,
            messages,
            tools,
            tool_choice: super::openai_chat::decode_tool_choice(top.get("tool_choice")),
            response_format: None,
            temperature: json::optional_f64(top, "temperature", "request")?,
            top_p: json::optional_f64(top, "top_p", "request")?,
            // Required on Anthropic's API (its 400 names it), so a client that forgets it fails here too.
            max_tokens: Some(
                json::optional_u64(top, "max_tokens", "request")?
                    .ok_or_else(|| "request.max_tokens: Field required".to_string())?,
            ),
            stop: json::string_or_strings(top, "stop_sequences", "request")?,
            seed: None,
            stream: json::optional_bool(top, "stream", "request")?,
            metadata: crate::model::RequestMetadata::default(),
        };
        Ok(DecodedRequest::new(request))
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        _request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        let mut content = Vec::new();
        if let Some(thinking) = &response.message.thinking {
            content.push(json!({"type": "thinking", "thinking": thinking, "signature": thinking_signature(thinking)}));
        }
        if let Some(text) = &response.message.text {
            content.push(json!({"type": "text", "text": text}));
        }
        for call in &response.message.tool_calls {
            content.push(
                json!({"type": "tool_use", "id": tool_use_id(&call.id), "name": call.name, "input": tool_input(&call.arguments)}),
            );
        }
        let mut body = message_envelope(envelope, usage);
        body["content"] = Value::Array(content);
        body["stop_reason"] = json!(stop_reason(response.finish_reason));
        json_reply(200, vec![("request-id".into(), request_id.to_owned().into())], &body)
    }

    fn encode_stream(stream: &EventStream, _request: &DecodedRequest, request_id: &str) -> HttpReply {
        stream_reply(stream, "request-id", request_id, super::frames::encoded(stream, stream_encoding))
    }
}

/// A stream's events: `message_start`, the content blocks as they open, grow and close, then `message_delta`
/// and `message_stop` (or the error).
pub(crate) fn stream_encoding(stream: &EventStream) -> Encoding {
    let stream_break = stream.stream_break();
    fn event(name: &str, data: Value) -> String {
        sse_json(Some(name), &data)
    }
    let usage = stream.response().and_then(|r| r.usage).unwrap_or_default();
    // Calls whose whole input is an empty object: Anthropic streams no argument text for them (clients add
    // `{}` themselves at the block's end, and would see it twice), whatever fragments the arguments made.
    let empty_input: Vec<bool> = stream.response().map_or_else(Vec::new, |r| {
        r.message
            .tool_calls
            .iter()
            .map(|c| tool_input(&c.arguments).as_object().is_some_and(|o| o.is_empty()))
            .collect()
    });
    let signature =
        thinking_signature(stream.response().and_then(|r| r.message.thinking.as_deref()).unwrap_or_default());
    let mut start = message_envelope(stream.envelope(), usage);
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    start["usage"]["output_tokens"] = json!(0);
    let opening =
        vec![Frame { delay_ms: 0, data: event("message_start", json!({"type": "message_start", "message": start})) }];
    let mut pending_delay = 0u64;
    // The open content block: its index, kind, and for tool_use the tool call's position in the answer.
    let mut block: Option<(usize, &'static str, Option<usize>)> = None;
    let mut next_index = 0usize;
    // A frame of `data` after the delays waited since the last one; nothing for no data.
    let frame =
        |delay: &mut u64, data: String| (!data.is_empty()).then(|| Frame { delay_ms: std::mem::take(delay), data });
    let close = move |block: &mut Option<(usize, &'static str, Option<usize>)>| -> String {
        let mut out = String::new();
        if let Some((index, kind, _)) = block.take() {
            if kind == "thinking" {
                let delta = json!({"type": "content_block_delta", "index": index,
                    "delta": {"type": "signature_delta", "signature": &signature}});
                out.push_str(&event("content_block_delta", delta));
            }
            out.push_str(&event("content_block_stop", json!({"type": "content_block_stop", "index": index})));
        }
        out
    };
    let each = move |timed: &TimedEvent| -> Option<Frame> {
        pending_delay += timed.delay_ms;
        let mut bytes = String::new();
        let mut tool_index = None;
        let (kind, delta) = match &timed.event {
            StreamEvent::ThinkingDelta { text } => ("thinking", Delta::Thinking(text)),
            StreamEvent::TextDelta { text } => ("text", Delta::Text(text)),
            StreamEvent::ToolCallDelta { index, arguments, .. } => {
                tool_index = Some(*index);
                let empty = empty_input.get(*index).copied().unwrap_or(false);
                ("tool_use", Delta::InputJson(if empty { "" } else { arguments }))
            }
            StreamEvent::ToolCall { .. } => {
                bytes.push_str(&close(&mut block));
                return frame(&mut pending_delay, bytes);
            }
            StreamEvent::Complete { response } => {
                bytes.push_str(&close(&mut block));
                // The wire gives every completed stream its usage (`with_usage_if_missing`); without it, the
                // same estimate.
                let usage = response.usage.map_or_else(
                    || {
                        let message = &response.message;
                        let (text, thinking) = (message.text.as_deref(), message.thinking.as_deref());
                        crate::usage::estimate_output_tokens(text, thinking, &message.tool_calls)
                    },
                    |u| u.output_tokens,
                );
                let delta = json!({"type": "message_delta",
                    "delta": {"stop_reason": stop_reason(response.finish_reason), "stop_sequence": null},
                    "usage": {"output_tokens": usage}});
                bytes.push_str(&event("message_delta", delta));
                bytes.push_str(&event("message_stop", json!({"type": "message_stop"})));
                return frame(&mut pending_delay, bytes);
            }
            StreamEvent::Error { error } => {
                if stream_break != StreamBreak::ErrorEvent {
                    return None;
                }
                let data = json!({"type": "error", "error": error_object(Dialect::Anthropic, error)});
                return frame(&mut pending_delay, event("error", data));
            }
        };
        let same_block = matches!(block, Some((_, open, open_tool)) if open == kind && open_tool == tool_index);
        if !same_block {
            bytes.push_str(&close(&mut block));
            let index = next_index;
            next_index += 1;
            block = Some((index, kind, tool_index));
            let start_block = match &timed.event {
                StreamEvent::ToolCallDelta { id, name, .. } => {
                    json!({"type": "tool_use", "id": tool_use_id(id), "name": name, "input": {}})
                }
                StreamEvent::ThinkingDelta { .. } => json!({"type": "thinking", "thinking": "", "signature": ""}),
                _ => json!({"type": "text", "text": ""}),
            };
            bytes.push_str(&event(
                "content_block_start",
                json!({"type": "content_block_start", "index": index, "content_block": start_block}),
            ));
        }
        let index = block.map_or(0, |(i, _, _)| i);
        let delta = block_delta_event(index, delta);
        if bytes.is_empty() {
            bytes = delta; // the usual case: another token of the open block
        } else {
            bytes.push_str(&delta);
        }
        frame(&mut pending_delay, bytes)
    };
    Encoding { opening, each: Box::new(each) }
}

/// What a `content_block_delta` carries: its field, the streamed piece, and the delta's `type`.
enum Delta<'a> {
    Text(&'a str),
    Thinking(&'a str),
    InputJson(&'a str),
}

/// A `content_block_delta` event, one per streamed token, written by hand around the token (`push_json_str`): the
/// bytes serde_json writes for `{"delta":{<field>:…,"type":…},"index":…,"type":"content_block_delta"}`, keys in
/// its sorted order (`tests/vectors/wire.json` holds them).
fn block_delta_event(index: usize, delta: Delta<'_>) -> String {
    let (field, piece, kind): (&[u8], &str, &[u8]) = match delta {
        Delta::Text(text) => (b"text", text, b"text_delta"),
        Delta::Thinking(text) => (b"thinking", text, b"thinking_delta"),
        Delta::InputJson(arguments) => (b"partial_json", arguments, b"input_json_delta"),
    };
    let mut out = Vec::with_capacity(128 + piece.len());
    out.extend_from_slice(b"event: content_block_delta\ndata: {\"delta\":{\"");
    out.extend_from_slice(field);
    out.extend_from_slice(b"\":");
    push_json_str(&mut out, piece);
    out.extend_from_slice(b",\"type\":\"");
    out.extend_from_slice(kind);
    out.extend_from_slice(b"\"},\"index\":");
    push_json_number(&mut out, index as u64);
    out.extend_from_slice(b",\"type\":\"content_block_delta\"}\n\n");
    json_text(out)
}

fn message_envelope(envelope: &Envelope, usage: crate::model::Usage) -> Value {
    json!({
        "id": envelope.id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": envelope.model,
        "content": [],
        "stop_reason": null,
        "stop_sequence": null,
        // On Anthropic's wire `input_tokens` is only the uncached part: the total input is `input_tokens +
        // cache_creation_input_tokens + cache_read_input_tokens` (clients add them up).
        "usage": {
            "input_tokens": usage.input_tokens.saturating_sub(usage.cached_tokens.unwrap_or(0)),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": usage.cached_tokens.unwrap_or(0),
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "output_tokens": usage.output_tokens,
            "service_tier": "standard",
        },
    })
}

/// Tool input must be a JSON object on this protocol; arguments that are not (invalid JSON on purpose) are sent
/// as `{"_raw": "<text>"}` so the SDK still parses the message.
/// The prefix of the mock's tool-use ids on Anthropic's wire: `toolu_01` and 22 digits, the length and look of
/// Anthropic's own (`toolu_01A09q90qw90lq917835lq9`), so code that checks the prefix works.
const TOOL_USE_PREFIX: &str = "toolu_01";

/// The id a call of the mock's counter (`call_7`) has on Anthropic's wire (`toolu_010000000000000000000007`);
/// any other id (a scripted one) is sent as it is.
fn tool_use_id(id: &str) -> String {
    match id.strip_prefix("call_").filter(|n| !n.is_empty() && n.len() <= 22 && n.bytes().all(|b| b.is_ascii_digit())) {
        Some(number) => format!("{TOOL_USE_PREFIX}{number:0>22}"),
        None => id.to_string(),
    }
}

/// The mock's id of a tool-use id it sent (`toolu_010000000000000000000007` is `call_7`), so the journal names
/// a call the same whichever protocol carried it; any other id is kept.
fn call_id(id: &str) -> String {
    match id.strip_prefix(TOOL_USE_PREFIX).filter(|n| n.len() == 22 && n.bytes().all(|b| b.is_ascii_digit())) {
        Some(digits) => {
            let number = digits.trim_start_matches('0');
            format!("call_{}", if number.is_empty() { "0" } else { number })
        }
        None => id.to_string(),
    }
}

/// A tool call's arguments text as the JSON object a protocol sends (`{"_raw": text}` for text that is not one).
pub(crate) fn tool_input(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(o)) => Value::Object(o),
        Ok(_) | Err(_) if arguments.trim().is_empty() => json!({}),
        _ => json!({ "_raw": arguments }),
    }
}

fn stop_reason(reason: Option<FinishReason>) -> &'static str {
    match reason.unwrap_or(FinishReason::Stop) {
        FinishReason::Stop | FinishReason::Other => "end_turn",
        FinishReason::Length => "max_tokens",
        FinishReason::ToolCalls => "tool_use",
        // Claude's refusal stop: the text streamed so far stays, the turn ends `refusal`.
        FinishReason::ContentFilter | FinishReason::Refusal => "refusal",
    }
}

fn decode_message(value: &Value, what: &str, out: &mut Vec<Message>) -> Result<(), String> {
    let object: &Object = json::object(value, what)?;
    let role = match json::required_str(object, "role", what)? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        other => return Err(format!("{what}.role {other:?} is not user or assistant")),
    };
    let blocks = match object.get("content") {
        Some(Value::String(text)) => {
            out.push(Message { role, ..Message::user(text.clone()) });
            return Ok(());
        }
        Some(Value::Array(blocks)) => blocks,
        Some(other) => {
            return Err(format!("{what}.content must be a string or an array of blocks, found {}", json::kind(other)))
        }
        None => return Err(format!("{what}.content is required")),
    };
    let mut message =
        Message { role, content: Vec::new(), thinking: None, tool_calls: Vec::new(), tool_call_id: None, name: None };
    let mut tool_results = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let block_what = format!("{what}.content[{i}]");
        let block = json::object(block, &block_what)?;
        match json::required_str(block, "type", &block_what)? {
            "text" => message.content.push(json::text_part(json::required_str(block, "text", &block_what)?)),
            "image" | "document" => {
                let source = block.get("source");
                let get = |k: &str| source.and_then(|s| s.get(k)).and_then(Value::as_str).map(str::to_string);
                message.content.push(ContentPart::Image(Box::new(ImagePart {
                    url: get("url"),
                    data: get("data"),
                    media_type: get("media_type"),
                    detail: None,
                })));
            }
            "tool_use" => message.tool_calls.push(ToolCall {
                id: call_id(&json::optional_str(block, "id", &block_what)?.unwrap_or_default()),
                name: json::required_str(block, "name", &block_what)?.to_string(),
                arguments: block.get("input").map_or_else(|| "{}".to_string(), Value::to_string),
            }),
            "tool_result" => tool_results.push(Message::tool_result(
                call_id(json::required_str(block, "tool_use_id", &block_what)?),
                json::flatten_text(block.get("content").unwrap_or(&Value::Null)),
            )),
            "thinking" => message.thinking = json::optional_str(block, "thinking", &block_what)?,
            "redacted_thinking" | "server_tool_use" | "web_search_tool_result" => {}
            other => return Err(format!("{block_what}.type {other:?} is not a known content block")),
        }
    }
    // Tool results become tool messages of their own; any remaining content stays a user message.
    out.extend(tool_results);
    if !message.content.is_empty() || !message.tool_calls.is_empty() || message.thinking.is_some() {
        out.push(message);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{call_id, tool_use_id};

    #[test]
    fn tool_use_ids_look_like_anthropics_and_come_back_as_the_mocks() {
        assert_eq!(tool_use_id("call_7"), "toolu_010000000000000000000007");
        assert_eq!(tool_use_id("call_7").len(), "toolu_01A09q90qw90lq917835lq9".len() + 1);
        for id in ["call_1", "call_0", "call_18446744073709551615"] {
            assert_eq!(call_id(&tool_use_id(id)), id);
        }
        // Scripted ids, and ids the mock did not make, pass unchanged both ways.
        for id in ["call_fixed", "toolu_01A09q90qw90lq917835lq9", "call_", ""] {
            assert_eq!(tool_use_id(id), id);
            assert_eq!(call_id(id), id);
        }
    }
}
