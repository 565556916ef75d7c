//! AWS Bedrock Runtime: `POST /model/{modelId}/converse` and `/converse-stream`, and `/invoke` and
//! `/invoke-with-response-stream` for Anthropic models (`docs/concepts/wire.md`, "AWS Bedrock"; `../shared/spec/providers.md`
//! §4 and §9).
//!
//! What the SDKs hold a mock to: the model id is percent-encoded in the path (`%3A`), and the journal keeps it
//! decoded; SigV4 (or Bearer) authorization is accepted and never verified. A stream is AWS event-stream frames
//! (`eventstream.rs`) carrying the bare member JSON: `messageStart`, text and reasoning blocks that start directly
//! with `contentBlockDelta` (only tool use has a `contentBlockStart`, its input streamed as partial JSON text),
//! `contentBlockStop`, `messageStop`, then `metadata` with the usage; every frame has `:event-type` (or
//! `:exception-type`), `:content-type` and `:message-type`. Errors are `{"message"}` with `x-amzn-errortype` naming the
//! class; a failure after tokens is an exception frame (`throttlingException`, ...), which botocore raises as an
//! `EventStreamError` and the JS client as the modelled class.

use super::anthropic::{tool_input, AnthropicMessages};
use super::errors::{error_object, Dialect};
use super::json::{self, Object};
use super::{
    json_reply, push_json_number, push_json_str, ChatProtocol, DecodedRequest, Encoding, Frame, Frames, HttpReply,
};
use crate::delivery::{BodyKind, StreamFraming};
use crate::model::{
    ChatRequest, ChatResponse, ContentPart, FinishReason, ImagePart, Message, Role, ToolCall, ToolChoice,
    ToolDefinition, Usage,
};
use crate::script::StreamBreak;
use crate::stream::{Envelope, EventStream, StreamEvent, TimedEvent};
use base64::Engine;
use serde_json::{json, Value};

/// `converse` and `converse-stream`.
pub(crate) struct BedrockConverse;

/// `invoke` and `invoke-with-response-stream` with an Anthropic Messages body (`anthropic_version`).
pub(crate) struct BedrockInvoke;

/// The request id header of every Bedrock reply.
pub(crate) const REQUEST_ID: &str = "x-amzn-requestid";

/// A deterministic reasoning signature (clients only send it back).
const REASONING_SIGNATURE: &str = "Y3VlY2FyZC1iZWRyb2Nr";

impl ChatProtocol for BedrockConverse {
    const DIALECT: Dialect = Dialect::Bedrock;
    const FRAMING: StreamFraming = StreamFraming::only(BodyKind::Binary);

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        let mut messages = Vec::new();
        let system: Vec<String> = json::optional_array(top, "system", "request")?
            .iter()
            .filter_map(|block| block.get("text").and_then(Value::as_str).map(str::to_string))
            .collect();
        if !system.is_empty() {
            messages.push(Message::system(system.join("\n")));
        }
        for (i, message) in json::required_array(top, "messages", "request")?.iter().enumerate() {
            decode_message(message, &format!("messages[{i}]"), &mut messages)?;
        }
        let config = top.get("inferenceConfig").and_then(Value::as_object);
        let number = |key: &str| config.and_then(|c| c.get(key)).and_then(Value::as_f64);
        let tool_config = top.get("toolConfig").and_then(Value::as_object);
        let mut tools = Vec::new();
        for tool in tool_config.and_then(|c| c.get("tools")).and_then(Value::as_array).map_or(&[][..], Vec::as_slice) {
            let Some(spec) = tool.get("toolSpec").and_then(Value::as_object) else { continue };
            tools.push(ToolDefinition {
                name: json::required_str(spec, "name", "toolConfig.tools[].toolSpec")?.to_string(),
                description: json::optional_str(spec, "description", "toolConfig.tools[].toolSpec")?,
                parameters: spec
                    .get("inputSchema")
                    .and_then(|s| s.get("json"))
                    .cloned()
                    .unwrap_or_else(|| json!({"type": "object"})),
            });
        }
        let choice = tool_config.and_then(|c| c.get("toolChoice")).and_then(Value::as_object);
        let tool_choice = choice.and_then(|choice| {
            if choice.contains_key("auto") {
                Some(ToolChoice::Auto)
            } else if choice.contains_key("any") {
                Some(ToolChoice::Required)
            } else {
                let name = choice.get("tool")?.get("name")?.as_str()?;
                Some(ToolChoice::Tool { name: name.to_string() })
            }
        });
        let request = ChatRequest {
            model: String::new(), // the path's
            messages,
            tools,
            tool_choice,
            response_format: None,
            temperature: number("temperature"),
            top_p: number("topP"),
            max_tokens: number("maxTokens").map(|n| n as u64),
            stop: config
                .and_then(|c| c.get("stopSequences"))
                .and_then(Value::as_array)
                .map(|s| s.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default(),
            seed: None,
            stream: false, // the path's
            metadata: crate::model::RequestMetadata::default(),
        };
        Ok(DecodedRequest::new(request))
    }

    fn encode_response(
        response: &ChatResponse,
        reported: Usage,
        _envelope: &Envelope,
        _: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        let message = &response.message;
        let mut content = Vec::new();
        if let Some(thinking) = &message.thinking {
            content.push(
                json!({"reasoningContent": {"reasoningText": {"text": thinking, "signature": REASONING_SIGNATURE}}}),
            );
        }
        if let Some(text) = &message.text {
            content.push(json!({"text": text}));
        }
        for call in &message.tool_calls {
            content.push(
                json!({"toolUse": {"toolUseId": call.id, "name": call.name, "input": tool_input(&call.arguments)}}),
            );
        }
        let body = json!({
            "output": {"message": {"role": "assistant", "content": content}},
            "stopReason": stop_reason(response.finish_reason),
            "usage": usage(reported),
            "metrics": {"latencyMs": 0},
        });
        json_reply(200, vec![(REQUEST_ID.into(), request_id.to_owned().into())], &body)
    }

    fn encode_stream(stream: &EventStream, _: &DecodedRequest, request_id: &str) -> HttpReply {
        binary_stream(stream, request_id, super::frames::encoded(stream, converse_encoding))
    }
}

/// A ConverseStream's messages: `messageStart`, the content blocks (a reasoning block ends with its signature),
/// `messageStop` and `metadata` (or the exception).
fn converse_encoding(stream: &EventStream) -> Encoding {
    let stream_break = stream.stream_break();
    let total_delay_ms = stream.total_delay_ms();
    let opening = vec![Frame { delay_ms: 0, data: base64(&event("messageStart", &json!({"role": "assistant"}))) }];
    let mut pending_delay = 0u64;
    // The open block: its index and what it holds (thinking, text, or tool call N).
    let mut open: Option<(usize, Block)> = None;
    let mut next_index = 0usize;
    let each = move |timed: &TimedEvent| -> Option<Frame> {
        pending_delay += timed.delay_ms;
        let mut data = Vec::new();
        // The delta's kind: its block, and the keys around the token (`{"text":T}`, ...).
        let (block, text, open_keys, close_keys): (Block, &str, &[u8], &[u8]) = match &timed.event {
            StreamEvent::ThinkingDelta { text } => (Block::Thinking, text, b"{\"reasoningContent\":{\"text\":", b"}}"),
            StreamEvent::TextDelta { text } => (Block::Text, text, b"{\"text\":", b"}"),
            StreamEvent::ToolCallDelta { index, arguments, .. } => {
                (Block::Tool(*index), arguments, b"{\"toolUse\":{\"input\":", b"}}")
            }
            StreamEvent::ToolCall { .. } => return None,
            StreamEvent::Complete { response } => {
                close(&mut open, &mut data);
                data.extend(event("messageStop", &json!({"stopReason": stop_reason(response.finish_reason)})));
                let latency = total_delay_ms;
                let metadata =
                    json!({"usage": usage(response.usage.unwrap_or_default()), "metrics": {"latencyMs": latency}});
                data.extend(event("metadata", &metadata));
                return Some(Frame { delay_ms: std::mem::take(&mut pending_delay), data: base64(&data) });
            }
            StreamEvent::Error { error } => {
                if stream_break != StreamBreak::ErrorEvent {
                    return None;
                }
                return Some(Frame { delay_ms: std::mem::take(&mut pending_delay), data: base64(&exception(error)) });
            }
        };
        if open.map(|(_, b)| b) != Some(block) {
            close(&mut open, &mut data);
            let index = next_index;
            next_index += 1;
            if let (Block::Tool(_), StreamEvent::ToolCallDelta { id, name, .. }) = (block, &timed.event) {
                let start = json!({"contentBlockIndex": index, "start": {"toolUse": {"toolUseId": id, "name": name}}});
                data.extend(event("contentBlockStart", &start));
            }
            open = Some((index, block));
        }
        let index = open.map_or(0, |(i, _)| i);
        // `{"contentBlockIndex":N,"delta":...}` written by hand around the token: one per token, and a `Value`
        // tree per token was most of a stream's work.
        let mut payload = Vec::with_capacity(text.len() + 64);
        payload.extend_from_slice(b"{\"contentBlockIndex\":");
        push_json_number(&mut payload, index as u64);
        payload.extend_from_slice(b",\"delta\":");
        payload.extend_from_slice(open_keys);
        push_json_str(&mut payload, text);
        payload.extend_from_slice(close_keys);
        payload.push(b'}');
        data.extend(event_bytes("contentBlockDelta", &payload));
        Some(Frame { delay_ms: std::mem::take(&mut pending_delay), data: base64(&data) })
    };
    Encoding { opening, each: Box::new(each) }
}

/// What a content block of a stream holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    Thinking,
    Text,
    Tool(usize),
}

/// Closes the open block into `data` (a reasoning block ends with its signature delta).
fn close(open: &mut Option<(usize, Block)>, data: &mut Vec<u8>) {
    if let Some((index, block)) = open.take() {
        if block == Block::Thinking {
            let signature =
                json!({"contentBlockIndex": index, "delta": {"reasoningContent": {"signature": REASONING_SIGNATURE}}});
            data.extend(event("contentBlockDelta", &signature));
        }
        data.extend(event("contentBlockStop", &json!({"contentBlockIndex": index})));
    }
}

/// One event message: the headers every Bedrock event has, in the order Bedrock sends them, and the payload.
fn event(name: &str, payload: &Value) -> Vec<u8> {
    event_bytes(name, payload.to_string().as_bytes())
}

fn event_bytes(name: &str, payload: &[u8]) -> Vec<u8> {
    super::eventstream::encode(
        &[(":event-type", name), (":content-type", "application/json"), (":message-type", "event")],
        payload,
    )
}

/// One exception message for a failure after tokens.
fn exception(error: &crate::provider_error::ProviderError) -> Vec<u8> {
    let class = exception_member(&error_type(error));
    super::eventstream::encode(
        &[(":exception-type", &class), (":content-type", "application/json"), (":message-type", "exception")],
        error_object(Dialect::Bedrock, error).to_string().as_bytes(),
    )
}

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A streamed reply of event-stream frames. Each frame's `data` is the base64 of its bytes, one or more whole
/// messages back to back (`HttpReply::Stream::base64`): hosts decode it before sending.
fn binary_stream(stream: &EventStream, request_id: &str, frames: Frames) -> HttpReply {
    let headers = vec![
        ("content-type".into(), "application/vnd.amazon.eventstream".into()),
        (REQUEST_ID.into(), request_id.to_owned().into()),
    ];
    super::streamed_http_reply(stream, headers, frames, true)
}

fn usage(usage: crate::model::Usage) -> Value {
    let mut out = json!({"inputTokens": usage.input_tokens, "outputTokens": usage.output_tokens, "totalTokens": usage.total_tokens});
    if let Some(cached) = usage.cached_tokens {
        out["cacheReadInputTokens"] = json!(cached);
        out["cacheWriteInputTokens"] = json!(0);
    }
    out
}

fn stop_reason(reason: Option<FinishReason>) -> &'static str {
    match reason.unwrap_or(FinishReason::Stop) {
        FinishReason::Stop | FinishReason::Other => "end_turn",
        FinishReason::Length => "max_tokens",
        FinishReason::ToolCalls => "tool_use",
        FinishReason::ContentFilter | FinishReason::Refusal => "content_filtered",
    }
}

/// The error class a failure is on Bedrock's wire (`x-amzn-errortype`), unless the step names its own.
pub(crate) fn error_type(error: &crate::provider_error::ProviderError) -> String {
    use crate::provider_error::ProviderErrorKind as Kind;
    if let Some(given) = &error.error_type {
        return given.clone();
    }
    let status = error.status.unwrap_or(500);
    match error.kind {
        Kind::RateLimited => "ThrottlingException",
        Kind::Overloaded | Kind::Unavailable => "ServiceUnavailableException",
        Kind::ServerError | Kind::ConnectionReset => "InternalServerException",
        Kind::Timeout => "ModelTimeoutException",
        Kind::Unauthorized => "UnrecognizedClientException",
        Kind::Forbidden => "AccessDeniedException",
        Kind::NotFound => "ResourceNotFoundException",
        Kind::BadRequest | Kind::ContextLengthExceeded | Kind::ContentFiltered => "ValidationException",
        Kind::Custom => match status {
            429 => "ThrottlingException",
            503 => "ServiceUnavailableException",
            500..=599 => "InternalServerException",
            _ => "ValidationException",
        },
    }
    .to_string()
}

/// The status a failure has on Bedrock's wire: the scripted one, except a kind's default where Bedrock answers
/// otherwise (an overload is 503 `ServiceUnavailableException` there, never Anthropic's 529).
pub(crate) fn status(error: &crate::provider_error::ProviderError) -> Option<u16> {
    use crate::provider_error::ProviderErrorKind as Kind;
    match (error.kind, error.status) {
        (Kind::Overloaded, Some(529)) => Some(503),
        (Kind::Unauthorized, Some(401)) => Some(403),
        (_, status) => status,
    }
}

/// The event-stream member of an error class: `ThrottlingException` is `throttlingException`.
fn exception_member(class: &str) -> String {
    let mut chars = class.chars();
    chars.next().map_or_else(String::new, |first| first.to_lowercase().chain(chars).collect())
}

fn decode_message(value: &Value, what: &str, out: &mut Vec<Message>) -> Result<(), String> {
    let object: &Object = json::object(value, what)?;
    let role = match json::required_str(object, "role", what)? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        other => return Err(format!("{what}.role {other:?} is not user or assistant")),
    };
    let mut message =
        Message { role, content: Vec::new(), thinking: None, tool_calls: Vec::new(), tool_call_id: None, name: None };
    let mut results = Vec::new();
    for (i, block) in json::required_array(object, "content", what)?.iter().enumerate() {
        let at = || format!("{what}.content[{i}]");
        let block = block.as_object().ok_or_else(|| format!("{} must be a JSON object", at()))?;
        if let Some(text) = block.get("text").and_then(Value::as_str) {
            message.content.push(json::text_part(text));
        } else if let Some(reasoning) = block.get("reasoningContent") {
            let text = reasoning.get("reasoningText").and_then(|r| r.get("text")).and_then(Value::as_str);
            message.thinking = text.map(str::to_string);
        } else if let Some(call) = block.get("toolUse").and_then(Value::as_object) {
            message.tool_calls.push(ToolCall {
                id: call.get("toolUseId").and_then(Value::as_str).unwrap_or_default().to_string(),
                name: call
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("{}.toolUse.name is required", at()))?
                    .to_string(),
                arguments: call.get("input").map_or_else(|| "{}".to_string(), Value::to_string),
            });
        } else if let Some(result) = block.get("toolResult").and_then(Value::as_object) {
            let id = result
                .get("toolUseId")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("{}.toolResult.toolUseId is required", at()))?;
            let text: Vec<String> = result
                .get("content")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|part| match (part.get("text").and_then(Value::as_str), part.get("json")) {
                    (Some(text), _) => text.to_string(),
                    (None, Some(json)) => json.to_string(),
                    (None, None) => String::new(),
                })
                .collect();
            results.push(Message::tool_result(id, text.join("")));
        } else if let Some(image) = block.get("image") {
            let bytes = image.get("source").and_then(|s| s.get("bytes")).and_then(Value::as_str).map(str::to_string);
            let format = image.get("format").and_then(Value::as_str).map(|f| format!("image/{f}"));
            message.content.push(ContentPart::Image(Box::new(ImagePart {
                url: None,
                data: bytes,
                media_type: format,
                detail: None,
            })));
        }
    }
    if !message.content.is_empty() || !message.tool_calls.is_empty() || message.thinking.is_some() || results.is_empty()
    {
        out.push(message);
    }
    out.extend(results);
    Ok(())
}

impl ChatProtocol for BedrockInvoke {
    const DIALECT: Dialect = Dialect::Bedrock;
    const FRAMING: StreamFraming = StreamFraming::only(BodyKind::Binary);

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        // The Messages body without `model` (the path names it) or `stream` (the path says it).
        let mut named = body.clone();
        if named.is_object() && named.get("model").is_none() {
            named["model"] = Value::from("");
        }
        AnthropicMessages::decode(&named)
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        match AnthropicMessages::encode_response(response, usage, envelope, request, request_id) {
            HttpReply::Full { delay_ms, status, body, .. } => HttpReply::Full {
                delay_ms,
                status,
                headers: vec![
                    ("content-type".into(), "application/json".into()),
                    (REQUEST_ID.into(), request_id.to_owned().into()),
                ],
                body,
            },
            other => other,
        }
    }

    fn encode_stream(stream: &EventStream, _: &DecodedRequest, request_id: &str) -> HttpReply {
        // Anthropic's events, each data object as the base64 `bytes` of a `chunk` event (an error event becomes an
        // exception frame, as Bedrock sends one).
        let error = stream.error().cloned();
        let frames = super::frames::encoded(stream, super::anthropic::stream_encoding).wrapped(move || {
            let error = error.clone();
            let mut pending_delay = 0u64;
            move |frame: Frame| {
                pending_delay += frame.delay_ms;
                let mut data = Vec::new();
                for sse_event in frame.data.split("\n\n").filter(|e| !e.is_empty()) {
                    let Some(payload) = sse_event.lines().find_map(|line| line.strip_prefix("data: ")) else {
                        continue;
                    };
                    match error.as_ref().filter(|_| sse_event.starts_with("event: error")) {
                        Some(error) => data.extend(exception(error)),
                        None => data.extend(event("chunk", &json!({"bytes": base64(payload.as_bytes())}))),
                    }
                }
                (!data.is_empty()).then(|| Frame { delay_ms: std::mem::take(&mut pending_delay), data: base64(&data) })
            }
        });
        binary_stream(stream, request_id, frames)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exception_members_are_lower_camel() {
        assert_eq!(exception_member("ThrottlingException"), "throttlingException");
        assert_eq!(exception_member(""), "");
    }
}

#[cfg(test)]
mod wire_tests {
    use crate::mock::MockModel;
    use crate::wire::{eventstream, handle, HttpReply, HttpRequest};
    use base64::Engine;
    use serde_json::{json, Value};

    /// Every event-stream message of a reply: (`:message-type`, the event or exception type, the payload JSON).
    fn messages(reply: &HttpReply) -> Vec<(String, String, Value)> {
        let HttpReply::Stream { frames, base64: true, .. } = reply else { panic!("not a binary stream: {reply:?}") };
        let mut out = Vec::new();
        for frame in frames.iter() {
            let bytes = base64::engine::general_purpose::STANDARD.decode(&frame.data).unwrap();
            let mut rest = &bytes[..];
            while !rest.is_empty() {
                let (message, used) = eventstream::decode(rest).unwrap();
                let header = |name: &str| message.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
                let kind = header(":event-type").or_else(|| header(":exception-type")).unwrap();
                out.push((header(":message-type").unwrap(), kind, serde_json::from_slice(&message.payload).unwrap()));
                rest = &rest[used..];
            }
        }
        out
    }

    #[test]
    fn converse_stream_events_in_bedrock_order_and_an_exception_frame() {
        let mock = MockModel::from_scenario(
            &crate::Scenario::from_value(json!({"cuecard": 1, "routes": [{"steps": [
                {"thinking": "Hm.", "text": "Hi!", "tool_calls": [{"name": "f", "arguments": {"x": 1}}], "usage": {"input_tokens": 3, "output_tokens": 5}},
                {"text": "Partial", "fail_after": {"kind": "rate_limited"}}]}]}))
            .unwrap(),
        )
        .unwrap();
        let body = r#"{"messages":[{"role":"user","content":[{"text":"x"}]}]}"#;
        let reply = handle(&mock, &HttpRequest::post_json("/model/anthropic.claude%3A0/converse-stream", body));
        let events: Vec<(String, String, Value)> = messages(&reply);
        let names: Vec<&str> = events.iter().map(|(_, name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "messageStart",
                "contentBlockDelta",
                "contentBlockDelta",
                "contentBlockDelta",
                "contentBlockStop",
                "contentBlockDelta",
                "contentBlockDelta",
                "contentBlockStop",
                "contentBlockStart",
                "contentBlockDelta",
                "contentBlockDelta",
                "contentBlockDelta",
                "contentBlockDelta",
                "contentBlockDelta",
                "contentBlockStop",
                "messageStop",
                "metadata"
            ]
        );
        assert!(events.iter().all(|(kind, _, _)| kind == "event"));
        assert_eq!(events[1].2, json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Hm"}}}));
        assert_eq!(
            events[3].2,
            json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": super::REASONING_SIGNATURE}}})
        );
        assert_eq!(events[8].2["start"]["toolUse"]["name"], "f");
        let input: String =
            events[9..14].iter().map(|(_, _, p)| p["delta"]["toolUse"]["input"].as_str().unwrap()).collect();
        assert_eq!(input, r#"{"x":1}"#);
        assert_eq!(events[15].2, json!({"stopReason": "tool_use"}));
        assert_eq!(events[16].2["usage"], json!({"inputTokens": 3, "outputTokens": 5, "totalTokens": 8}));
        assert_eq!(mock.requests()[0].model, "anthropic.claude:0");

        let failing = handle(&mock, &HttpRequest::post_json("/model/m/converse-stream", body));
        let events = messages(&failing);
        let last = events.last().unwrap();
        assert_eq!((last.0.as_str(), last.1.as_str()), ("exception", "throttlingException"));
        assert_eq!(last.2, json!({"message": "Rate limit exceeded"}));
    }
}
