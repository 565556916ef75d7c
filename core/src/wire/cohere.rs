//! Cohere's v2 chat, `POST /v2/chat` (`docs/concepts/wire.md`, "Cohere"; `../shared/spec/providers.md` §6.3), as
//! `cohere.ClientV2.chat` and `chat_stream` call it.
//!
//! The request is close to Chat Completions (`messages` with `system`, `user`, `assistant` and `tool` roles, content
//! as a string or text parts, `tools` as functions) with Cohere's names: `p` for top-p, `stop_sequences`,
//! `tool_choice` `REQUIRED`/`NONE`, `response_format` `{type: json_object, json_schema}`. `documents` are not part
//! of the neutral request (the raw body keeps them).
//!
//! The answer is `{id, finish_reason, message: {role, content: [thinking?, text], tool_calls}, usage}` with upper-case
//! finish reasons (`COMPLETE`, `MAX_TOKENS`, `TOOL_CALL`, ...). A stream is SSE whose data carries the event's `type`
//! (the SDK dispatches on it and silently skips what it cannot read, so every event must have it): `message-start`,
//! per block `content-start` / `content-delta` / `content-end` (text and thinking) and `tool-call-start` /
//! `tool-call-delta` / `tool-call-end`, then `message-end` with the finish reason and usage; the body ends there (no
//! `[DONE]`). A failure mid-stream is a `message-end` with `finish_reason: ERROR` and the failure's message in
//! `error`, as the API reports one.

use super::errors::{error_object, Dialect};
use super::json::{self, Object};
use super::{json_reply, sse_json, stream_reply, ChatProtocol, DecodedRequest, Encoding, Frame, HttpReply};
use crate::delivery::StreamFraming;
use crate::model::{
    ChatRequest, ChatResponse, ContentPart, FinishReason, ImagePart, Message, ResponseFormat, Role, ToolCall,
    ToolChoice, ToolDefinition, Usage,
};
use crate::script::StreamBreak;
use crate::stream::{Envelope, EventStream, StreamEvent, TimedEvent};
use serde_json::{json, Value};

pub(crate) struct CohereChat;

impl ChatProtocol for CohereChat {
    const DIALECT: Dialect = Dialect::Cohere;
    /// The SDK's SSE reader takes `\n`, `\r\n` and `\r` and ignores comment lines.
    const FRAMING: StreamFraming = StreamFraming::sse(Some(crate::delivery::COMMENT_KEEPALIVE), true);

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        let model = json::required_str(top, "model", "request")?.to_string();
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
        let tool_choice = match json::optional_str(top, "tool_choice", "request")?.as_deref() {
            None => None,
            Some("REQUIRED") => Some(ToolChoice::Required),
            Some("NONE") => Some(ToolChoice::None),
            Some(other) => return Err(format!("request.tool_choice {other:?} is not REQUIRED or NONE")),
        };
        let request = ChatRequest {
            model,
            messages,
            tools,
            tool_choice,
            response_format: response_format(top.get("response_format"))?.map(Box::new),
            temperature: json::optional_f64(top, "temperature", "request")?,
            top_p: json::optional_f64(top, "p", "request")?,
            max_tokens: json::optional_u64(top, "max_tokens", "request")?,
            stop: json::string_or_strings(top, "stop_sequences", "request")?,
            seed: json::optional_i64(top, "seed", "request")?,
            stream: json::optional_bool(top, "stream", "request")?,
            metadata: crate::model::RequestMetadata::default(),
        };
        Ok(DecodedRequest::new(request))
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        _: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        let message = &response.message;
        let mut content = Vec::new();
        if let Some(thinking) = &message.thinking {
            content.push(json!({"type": "thinking", "thinking": thinking}));
        }
        if let Some(text) = &message.text {
            content.push(json!({"type": "text", "text": text}));
        }
        let mut reply = json!({"role": "assistant", "content": content});
        if !message.tool_calls.is_empty() {
            reply["tool_calls"] = message.tool_calls.iter().map(tool_call).collect();
        }
        let body = json!({
            "id": chat_id(envelope),
            "finish_reason": finish_reason(response.finish_reason),
            "message": reply,
            "usage": usage_json(&usage),
        });
        json_reply(200, vec![("x-request-id".into(), request_id.to_owned().into())], &body)
    }

    fn encode_stream(stream: &EventStream, _: &DecodedRequest, request_id: &str) -> HttpReply {
        stream_reply(stream, "x-request-id", request_id, super::frames::encoded(stream, stream_encoding))
    }
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
    let mut message = Message { role, content: Vec::new(), ..Message::user("") };
    match object.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(text)) => message.content.push(json::text_part(text)),
        Some(Value::Array(parts)) => {
            for (i, part) in parts.iter().enumerate() {
                decode_part(part, &format!("{what}.content[{i}]"), &mut message)?;
            }
        }
        Some(other) => {
            return Err(format!("{what}.content must be a string or an array of parts, found {}", json::kind(other)))
        }
    }
    if message.thinking.is_none() {
        // The plan a tool-calling answer gave before its calls: Cohere's reasoning before tools.
        message.thinking = json::optional_str(object, "tool_plan", what)?.filter(|plan| !plan.is_empty());
    }
    for (i, call) in json::optional_array(object, "tool_calls", what)?.iter().enumerate() {
        let what = format!("{what}.tool_calls[{i}]");
        let call = json::object(call, &what)?;
        let function = json::object(call.get("function").unwrap_or(&Value::Null), &format!("{what}.function"))?;
        message.tool_calls.push(ToolCall {
            id: json::required_str(call, "id", &what)?.to_string(),
            name: json::required_str(function, "name", &format!("{what}.function"))?.to_string(),
            arguments: json::optional_str(function, "arguments", &what)?.unwrap_or_else(|| "{}".to_string()),
        });
    }
    if role == Role::Tool {
        message.tool_call_id = Some(json::required_str(object, "tool_call_id", what)?.to_string());
    }
    Ok(message)
}

/// One content part: text, an image (user messages), thinking (assistant messages) or a document (tool results,
/// kept as its JSON text).
fn decode_part(part: &Value, what: &str, message: &mut Message) -> Result<(), String> {
    let object = json::object(part, what)?;
    match json::required_str(object, "type", what)? {
        "text" => message.content.push(json::text_part(json::required_str(object, "text", what)?)),
        "thinking" => message.thinking = Some(json::required_str(object, "thinking", what)?.to_string()),
        "image_url" => {
            let url = object.get("image_url").and_then(|image| image.get("url").or(Some(image)));
            let url = url.and_then(Value::as_str).map(str::to_string);
            message.content.push(ContentPart::Image(Box::new(ImagePart {
                url,
                data: None,
                media_type: None,
                detail: None,
            })));
        }
        "document" => {
            let document = object.get("document").and_then(|d| d.get("data")).unwrap_or(&Value::Null);
            message.content.push(json::text_part(&json::flatten_text(document)));
        }
        other => return Err(format!("{what}.type {other:?} is not text, image_url, thinking or document")),
    }
    Ok(())
}

fn response_format(value: Option<&Value>) -> Result<Option<ResponseFormat>, String> {
    let Some(value) = value.filter(|v| !v.is_null()) else { return Ok(None) };
    let object: &Object = json::object(value, "request.response_format")?;
    Ok(Some(match json::required_str(object, "type", "request.response_format")? {
        "text" => ResponseFormat::Text,
        "json_object" => match object.get("json_schema").filter(|s| !s.is_null()) {
            Some(schema) => ResponseFormat::JsonSchema { name: None, schema: schema.clone(), strict: None },
            None => ResponseFormat::JsonObject,
        },
        other => return Err(format!("request.response_format.type {other:?} is not text or json_object")),
    }))
}

/// Cohere's ids are UUIDs: the answer's number as the last group of one (a scripted id is sent as it is).
fn chat_id(envelope: &Envelope) -> String {
    envelope.scripted_id.clone().unwrap_or_else(|| format!("00000000-0000-4000-8000-{:012x}", envelope.number))
}

fn finish_reason(reason: Option<FinishReason>) -> &'static str {
    match reason {
        None | Some(FinishReason::Stop | FinishReason::Refusal | FinishReason::Other) => "COMPLETE",
        Some(FinishReason::Length) => "MAX_TOKENS",
        Some(FinishReason::ToolCalls) => "TOOL_CALL",
        Some(FinishReason::ContentFilter) => "ERROR",
    }
}

fn tool_call(call: &ToolCall) -> Value {
    json!({"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}})
}

/// Usage as Cohere reports it: the billed units and the tokens, the same counts here.
fn usage_json(usage: &Usage) -> Value {
    let counts = json!({"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens});
    json!({"billed_units": counts, "tokens": counts})
}

/// One event: the name on the `event:` line and again as the data's `type`, which is what the SDK reads.
fn event(kind: &str, mut data: Value) -> String {
    data["type"] = Value::from(kind);
    sse_json(Some(kind), &data)
}

/// A stream's events: `message-start`, the blocks as they open, grow and close, then `message-end`.
fn stream_encoding(stream: &EventStream) -> Encoding {
    let envelope = stream.envelope();
    let id = chat_id(envelope);
    let stream_break = stream.stream_break();
    let opening = vec![Frame {
        delay_ms: 0,
        data: event("message-start", json!({"id": id, "delta": {"message": {"role": "assistant"}}})),
    }];
    let mut pending_delay = 0u64;
    // The open block: text or thinking content at a content index, or the tool call at its own index.
    let mut open: Option<Block> = None;
    let mut next_content = 0usize;
    let each = move |timed: &TimedEvent| -> Option<Frame> {
        pending_delay += timed.delay_ms;
        let mut out = String::new();
        match &timed.event {
            StreamEvent::TextDelta { text } | StreamEvent::ThinkingDelta { text } => {
                let field = if matches!(timed.event, StreamEvent::TextDelta { .. }) { "text" } else { "thinking" };
                if !matches!(open, Some(Block::Content { field: open_field, .. }) if open_field == field) {
                    out.push_str(&close(&mut open));
                    let index = next_content;
                    next_content += 1;
                    open = Some(Block::Content { index, field });
                    let start = json!({"index": index, "delta": {"message": {"content": {"type": field, field: ""}}}});
                    out.push_str(&event("content-start", start));
                }
                let index = match open {
                    Some(Block::Content { index, .. }) => index,
                    _ => 0,
                };
                out.push_str(&event(
                    "content-delta",
                    json!({"index": index, "delta": {"message": {"content": {field: text}}}}),
                ));
            }
            StreamEvent::ToolCallDelta { index, id, name, arguments } => {
                if !matches!(open, Some(Block::ToolCall { index: open_index }) if open_index == *index) {
                    out.push_str(&close(&mut open));
                    open = Some(Block::ToolCall { index: *index });
                    let call = json!({"id": id, "type": "function", "function": {"name": name, "arguments": ""}});
                    out.push_str(&event(
                        "tool-call-start",
                        json!({"index": index, "delta": {"message": {"tool_calls": call}}}),
                    ));
                }
                out.push_str(&event(
                    "tool-call-delta",
                    json!({"index": index, "delta": {"message": {"tool_calls": {"function": {"arguments": arguments}}}}}),
                ));
            }
            StreamEvent::ToolCall { .. } => out.push_str(&close(&mut open)),
            StreamEvent::Complete { response } => {
                out.push_str(&close(&mut open));
                let usage = response.usage.unwrap_or_default();
                let delta =
                    json!({"finish_reason": finish_reason(response.finish_reason), "usage": usage_json(&usage)});
                out.push_str(&event("message-end", json!({"id": id, "delta": delta})));
            }
            StreamEvent::Error { error } => {
                if stream_break != StreamBreak::ErrorEvent {
                    return None;
                }
                out.push_str(&close(&mut open));
                let message = error_object(Dialect::Cohere, error)["message"].clone();
                out.push_str(&event(
                    "message-end",
                    json!({"id": id, "delta": {"finish_reason": "ERROR", "error": message}}),
                ));
            }
        }
        (!out.is_empty()).then(|| Frame { delay_ms: std::mem::take(&mut pending_delay), data: out })
    };
    Encoding { opening, each: Box::new(each) }
}

/// The block a stream has open.
#[derive(Clone, Copy)]
enum Block {
    /// Text or thinking content at its content index.
    Content { index: usize, field: &'static str },
    /// A tool call at its position among the answer's calls.
    ToolCall { index: usize },
}

/// The event that closes the open block, if one is open.
fn close(open: &mut Option<Block>) -> String {
    match open.take() {
        Some(Block::Content { index, .. }) => event("content-end", json!({"index": index})),
        Some(Block::ToolCall { index }) => event("tool-call-end", json!({"index": index})),
        None => String::new(),
    }
}
