//! OpenAI Responses, `POST /v1/responses` (`docs/wire.md`, "OpenAI Responses").
//!
//! Streams send `event: <type>` with the same `type` in the data and a `sequence_number` counting from 0:
//! `response.created`, `response.in_progress`, per output item `response.output_item.added`, its deltas and
//! `…done` events, `response.output_item.done`, then `response.completed` carrying the whole response. A
//! failure mid-stream is an `error` event. Thinking is sent as OpenAI's reasoning models send it: a `reasoning`
//! output item first, with one `summary_text` part, streamed as `response.reasoning_summary_part.added`,
//! `response.reasoning_summary_text.delta`s, `….done` and `response.reasoning_summary_part.done`, and counted in
//! `usage.output_tokens_details.reasoning_tokens`.

use super::delivery::{self, StreamFraming};
use super::errors::{error_object, Dialect};
use super::json::{self, Object};
use super::{
    json_reply, json_text, push_json_number, push_json_str, sse_json, stream_reply, ChatProtocol, DecodedRequest,
    Encoding, Frame, Frames, HttpReply, ITEM_REFERENCE,
};
use crate::model::{
    ChatRequest, ChatResponse, ContentPart, FilePart, FinishReason, ImagePart, Message, ResponseFormat, Role, ToolCall,
    ToolDefinition,
};
use crate::script::StreamBreak;
use crate::stream::{Envelope, EventStream, StreamEvent, TimedEvent};
use crate::tokenize::count_tokens;
use serde_json::{json, Value};

pub(crate) struct OpenAiResponses;

impl ChatProtocol for OpenAiResponses {
    const DIALECT: Dialect = Dialect::OpenAi;
    /// SSE comments as keep-alives: `keepalive` events would need the stream renumbered, and openai-node before
    /// 2026-07 throws on them (spec C.4); a comment is skipped by every client.
    const FRAMING: StreamFraming = StreamFraming::sse(Some(delivery::COMMENT_KEEPALIVE), true);

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        let model = json::required_str(top, "model", "request")?.to_string();
        let mut messages = Vec::new();
        if let Some(instructions) = json::optional_str(top, "instructions", "request")? {
            messages.push(Message::system(instructions));
        }
        match top.get("input") {
            Some(Value::String(text)) => messages.push(Message::user(text.clone())),
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    decode_item(item, &format!("input[{i}]"), &mut messages)?;
                }
            }
            None | Some(Value::Null) => {}
            Some(other) => {
                return Err(format!("request.input must be a string or an array of items, found {}", json::kind(other)))
            }
        }
        let mut tools = Vec::new();
        for (i, tool) in json::optional_array(top, "tools", "request")?.iter().enumerate() {
            let what = format!("tools[{i}]");
            let object = json::object(tool, &what)?;
            if object.get("type").and_then(Value::as_str).is_some_and(|t| t != "function") {
                continue; // built-in tools (web search, file search) are not scripted here
            }
            tools.push(ToolDefinition {
                name: json::required_str(object, "name", &what)?.to_string(),
                description: json::optional_str(object, "description", &what)?,
                parameters: object.get("parameters").cloned().unwrap_or_else(|| json!({"type": "object"})),
            });
        }
        let format = top.get("text").and_then(|t| t.get("format"));
        let response_format = match format.and_then(|f| f.get("type")).and_then(Value::as_str) {
            Some("json_schema") => Some(ResponseFormat::JsonSchema {
                name: format.and_then(|f| f.get("name")).and_then(Value::as_str).map(str::to_string),
                schema: format.and_then(|f| f.get("schema")).cloned().unwrap_or(Value::Null),
                strict: format.and_then(|f| f.get("strict")).and_then(Value::as_bool),
            }),
            Some("json_object") => Some(ResponseFormat::JsonObject),
            Some("text") => Some(ResponseFormat::Text),
            _ => None,
        };
        let request = ChatRequest {
            model,
            messages,
            tools,
            tool_choice: super::openai_chat::decode_tool_choice(top.get("tool_choice")),
            response_format: response_format.map(Box::new),
            temperature: json::optional_f64(top, "temperature", "request")?,
            top_p: json::optional_f64(top, "top_p", "request")?,
            max_tokens: json::optional_u64(top, "max_output_tokens", "request")?,
            stop: Vec::new(),
            seed: None,
            stream: json::optional_bool(top, "stream", "request")?,
            metadata: crate::model::RequestMetadata::default(),
        };
        let mut decoded = DecodedRequest::new(request);
        // The API stores a response unless told not to.
        decoded.store = match top.get("store") {
            None | Some(Value::Null) => true,
            Some(_) => json::optional_bool(top, "store", "request")?,
        };
        decoded.previous_response_id = json::optional_str(top, "previous_response_id", "request")?;
        Ok(decoded)
    }

    fn encode_response(
        response: &ChatResponse,
        envelope: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        let output = output_items(response, envelope, "completed");
        let body = response_object(Some(response), envelope, &Echo::of(request), output, status_of(response));
        json_reply(200, vec![("x-request-id".into(), request_id.into())], &body)
    }

    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply {
        let echo = Echo::of(request);
        let frames = Frames::encoded(stream, move |stream| stream_encoding(stream, echo.clone()));
        stream_reply(stream, "x-request-id", request_id, frames)
    }
}

/// `event: <type>` with `type` and the next `sequence_number` in the data.
fn numbered_event(sequence: &std::cell::Cell<u64>, kind: &str, mut data: Value) -> String {
    data["type"] = json!(kind);
    data["sequence_number"] = json!(sequence.replace(sequence.get() + 1));
    sse_json(Some(kind), &data)
}

/// A stream's events: `response.created` and `response.in_progress`, then each output item as it opens, grows
/// and closes.
fn stream_encoding(stream: &EventStream, echo: Echo) -> Encoding {
    let envelope = stream.envelope().clone();
    let stream_break = stream.stream_break();
    let message_id = format!("msg_{}", envelope.number);
    let sequence = std::cell::Cell::new(0u64);
    let in_progress = response_object(None, &envelope, &echo, Vec::new(), "in_progress");
    let opening = vec![Frame {
        delay_ms: 0,
        data: [
            numbered_event(&sequence, "response.created", json!({"response": in_progress.clone()})),
            numbered_event(&sequence, "response.in_progress", json!({"response": in_progress})),
        ]
        .concat(),
    }];
    let mut pending_delay = 0u64;
    let mut output_index = 0usize;
    let reasoning_id = format!("rs_{}", envelope.number);
    let mut reasoning: Option<String> = None; // the summary so far, while the reasoning item is open
    let mut text_open = false;
    let mut text = String::new();
    // A refusal streams as a `refusal` part (`response.refusal.delta` / `.done`) instead of `output_text`.
    let refused = stream.response().is_some_and(|r| r.finish_reason == Some(FinishReason::Refusal));
    let mut open_call: Option<(String, String, String, String)> = None; // item id, call id, name, arguments
    let each = move |timed: &TimedEvent| -> Option<Frame> {
        let envelope = &envelope;
        let next_sequence = || sequence.replace(sequence.get() + 1);
        let mut event = |kind: &str, data: Value| numbered_event(&sequence, kind, data);
        pending_delay += timed.delay_ms;
        let mut bytes = String::new();
        // The reasoning item ends where anything else begins.
        if !matches!(timed.event, StreamEvent::ThinkingDelta { .. }) {
            if let Some(summary) = reasoning.take() {
                bytes.push_str(&close_reasoning(&mut event, &reasoning_id, output_index, &summary));
                output_index += 1;
            }
        }
        match &timed.event {
            StreamEvent::ThinkingDelta { text: token } => {
                let summary = match reasoning.as_mut() {
                    Some(summary) => summary,
                    None => {
                        bytes.push_str(&event(
                            "response.output_item.added",
                            json!({"output_index": output_index,
                            "item": {"id": reasoning_id, "type": "reasoning", "summary": []}}),
                        ));
                        bytes.push_str(&event("response.reasoning_summary_part.added", json!({"item_id": reasoning_id,
                            "output_index": output_index, "summary_index": 0, "part": {"type": "summary_text", "text": ""}})));
                        reasoning.insert(String::new())
                    }
                };
                summary.push_str(token);
                bytes.push_str(&event(
                    "response.reasoning_summary_text.delta",
                    json!({"item_id": reasoning_id,
                    "output_index": output_index, "summary_index": 0, "delta": token}),
                ));
            }
            StreamEvent::TextDelta { text: token } => {
                if !text_open {
                    text_open = true;
                    bytes.push_str(&event("response.output_item.added", json!({"output_index": output_index,
                        "item": {"id": message_id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}})));
                    bytes.push_str(&event(
                        "response.content_part.added",
                        json!({"item_id": message_id, "output_index": output_index,
                        "content_index": 0, "part": empty_part(refused)}),
                    ));
                }
                text.push_str(token);
                let delta = if refused {
                    event(
                        "response.refusal.delta",
                        json!({"item_id": message_id, "output_index": output_index,
                        "content_index": 0, "delta": token}),
                    )
                } else {
                    text_delta_event(token, &message_id, output_index, next_sequence())
                };
                if bytes.is_empty() {
                    bytes = delta; // the usual case: another token of the open message
                } else {
                    bytes.push_str(&delta);
                }
            }
            StreamEvent::ToolCallDelta { index, id, name, arguments } => {
                if text_open {
                    bytes.push_str(&close_text(&mut event, &message_id, output_index, &text, refused));
                    text_open = false;
                    output_index += 1;
                }
                if open_call.is_none() {
                    let item_id = format!("fc_{}_{index}", envelope.number);
                    bytes.push_str(&event("response.output_item.added", json!({"output_index": output_index,
                        "item": {"id": item_id, "type": "function_call", "status": "in_progress", "call_id": id, "name": name, "arguments": ""}})));
                    open_call = Some((item_id, id.clone(), name.clone(), String::new()));
                }
                if let Some((item_id, _, _, so_far)) = open_call.as_mut() {
                    if !arguments.is_empty() {
                        so_far.push_str(arguments);
                        bytes.push_str(&event(
                            "response.function_call_arguments.delta",
                            json!({"item_id": item_id,
                            "output_index": output_index, "delta": arguments}),
                        ));
                    }
                }
            }
            StreamEvent::ToolCall { call, .. } => {
                if let Some((item_id, call_id, name, _)) = open_call.take() {
                    bytes.push_str(&event(
                        "response.function_call_arguments.done",
                        json!({"item_id": item_id,
                        "output_index": output_index, "name": name, "arguments": call.arguments}),
                    ));
                    bytes.push_str(&event(
                        "response.output_item.done",
                        json!({"output_index": output_index,
                        "item": {"id": item_id, "type": "function_call", "status": "completed", "call_id": call_id,
                                 "name": name, "arguments": call.arguments}}),
                    ));
                    output_index += 1;
                }
            }
            StreamEvent::Complete { response } => {
                if text_open {
                    bytes.push_str(&close_text(&mut event, &message_id, output_index, &text, refused));
                    text_open = false;
                }
                let status = status_of(response);
                let output = output_items(response, envelope, "completed");
                let done = response_object(Some(response), envelope, &echo, output, status);
                let kind = if status == "incomplete" { "response.incomplete" } else { "response.completed" };
                bytes.push_str(&event(kind, json!({"response": done})));
            }
            StreamEvent::Error { error } => {
                if stream_break == StreamBreak::ErrorEvent {
                    let inner = error_object(Dialect::OpenAi, error);
                    bytes.push_str(&event("error", json!({"code": inner["code"].clone().as_str().map_or_else(|| inner["type"].clone(), |c| json!(c)),
                        "message": error.message, "param": null})));
                }
            }
        }
        if bytes.is_empty() {
            return None;
        }
        Some(Frame { delay_ms: std::mem::take(&mut pending_delay), data: bytes })
    };
    Encoding { opening, each: Box::new(each) }
}

/// A `response.output_text.delta` event, one per streamed token, written by hand around the token and the ids
/// (`push_json_str`): the bytes serde_json writes for its object, keys in its sorted order (`tests/vectors/wire.json`
/// holds them).
fn text_delta_event(token: &str, item_id: &str, output_index: usize, sequence_number: u64) -> String {
    let mut out = Vec::with_capacity(192 + token.len());
    out.extend_from_slice(b"event: response.output_text.delta\ndata: {\"content_index\":0,\"delta\":");
    push_json_str(&mut out, token);
    out.extend_from_slice(b",\"item_id\":");
    push_json_str(&mut out, item_id);
    out.extend_from_slice(b",\"logprobs\":[],\"output_index\":");
    push_json_number(&mut out, output_index as u64);
    out.extend_from_slice(b",\"sequence_number\":");
    push_json_number(&mut out, sequence_number);
    out.extend_from_slice(b",\"type\":\"response.output_text.delta\"}\n\n");
    json_text(out)
}

fn close_reasoning(
    event: &mut impl FnMut(&str, Value) -> String,
    reasoning_id: &str,
    output_index: usize,
    summary: &str,
) -> String {
    let part = json!({"type": "summary_text", "text": summary});
    [
        event(
            "response.reasoning_summary_text.done",
            json!({"item_id": reasoning_id, "output_index": output_index, "summary_index": 0, "text": summary}),
        ),
        event(
            "response.reasoning_summary_part.done",
            json!({"item_id": reasoning_id, "output_index": output_index, "summary_index": 0, "part": part.clone()}),
        ),
        event(
            "response.output_item.done",
            json!({"output_index": output_index,
            "item": {"id": reasoning_id, "type": "reasoning", "summary": [part]}}),
        ),
    ]
    .concat()
}

/// The message's content part as it opens: `output_text`, or for a refusal `refusal`.
fn empty_part(refused: bool) -> Value {
    if refused {
        json!({"type": "refusal", "refusal": ""})
    } else {
        json!({"type": "output_text", "text": "", "annotations": []})
    }
}

/// The message's whole content part: its text, or a refusal's.
fn text_part(text: &str, refused: bool) -> Value {
    if refused {
        json!({"type": "refusal", "refusal": text})
    } else {
        json!({"type": "output_text", "text": text, "annotations": []})
    }
}

fn close_text(
    event: &mut impl FnMut(&str, Value) -> String,
    message_id: &str,
    output_index: usize,
    text: &str,
    refused: bool,
) -> String {
    let part = text_part(text, refused);
    let done = if refused {
        event(
            "response.refusal.done",
            json!({"item_id": message_id, "output_index": output_index, "content_index": 0, "refusal": text}),
        )
    } else {
        event(
            "response.output_text.done",
            json!({"item_id": message_id, "output_index": output_index, "content_index": 0, "text": text, "logprobs": []}),
        )
    };
    [
        done,
        event("response.content_part.done", json!({"item_id": message_id, "output_index": output_index, "content_index": 0, "part": part.clone()})),
        event("response.output_item.done", json!({"output_index": output_index,
            "item": {"id": message_id, "type": "message", "status": "completed", "role": "assistant", "content": [part]}})),
    ]
    .concat()
}

fn status_of(response: &ChatResponse) -> &'static str {
    match response.finish_reason {
        Some(FinishReason::Length | FinishReason::ContentFilter) => "incomplete",
        _ => "completed",
    }
}

fn output_items(response: &ChatResponse, envelope: &Envelope, status: &str) -> Vec<Value> {
    let number = envelope.number;
    let mut items = Vec::new();
    if let Some(thinking) = &response.message.thinking {
        items.push(json!({"id": format!("rs_{number}"), "type": "reasoning",
            "summary": [{"type": "summary_text", "text": thinking}]}));
    }
    if let Some(text) = &response.message.text {
        let part = text_part(text, response.finish_reason == Some(FinishReason::Refusal));
        items.push(json!({"id": format!("msg_{number}"), "type": "message", "status": status, "role": "assistant",
            "content": [part]}));
    }
    for (i, call) in response.message.tool_calls.iter().enumerate() {
        items.push(json!({"id": format!("fc_{number}_{i}"), "type": "function_call", "status": status,
            "call_id": call.id, "name": call.name, "arguments": call.arguments}));
    }
    items
}

/// The response object; `response` is `None` while it is in progress.
/// What a response object repeats of its request, taken once so that a stream need not keep the request.
#[derive(Clone)]
struct Echo {
    max_output_tokens: Option<u64>,
    temperature: f64,
    top_p: f64,
    /// The request's tools, echoed as OpenAI does (in the Responses shape the request gave them in).
    tools: Value,
    store: bool,
    previous_response_id: Option<String>,
}

impl Echo {
    fn of(decoded: &DecodedRequest) -> Echo {
        let request = &decoded.request;
        Echo {
            store: decoded.store,
            previous_response_id: decoded.previous_response_id.clone(),
            max_output_tokens: request.max_tokens,
            temperature: request.temperature.unwrap_or(1.0),
            top_p: request.top_p.unwrap_or(1.0),
            tools: request
                .tools
                .iter()
                .map(|tool| {
                    json!({"type": "function", "name": tool.name, "description": tool.description,
                           "parameters": tool.parameters, "strict": true})
                })
                .collect(),
        }
    }
}

fn response_object(
    response: Option<&ChatResponse>,
    envelope: &Envelope,
    echo: &Echo,
    output: Vec<Value>,
    status: &str,
) -> Value {
    let finish_reason = response.and_then(|r| r.finish_reason);
    // The reasoning's share of the output, by the word-like count (never more than the output itself).
    let reasoning_tokens = |output_tokens: u64| {
        let thinking = response.and_then(|r| r.message.thinking.as_deref()).map_or(0, count_tokens) as u64;
        thinking.min(output_tokens)
    };
    let usage = match response.and_then(|r| r.usage) {
        None => Value::Null,
        Some(u) => {
            json!({
                "input_tokens": u.input_tokens,
                "input_tokens_details": {"cached_tokens": u.cached_tokens.unwrap_or(0)},
                "output_tokens": u.output_tokens,
                "output_tokens_details": {"reasoning_tokens": reasoning_tokens(u.output_tokens)},
                "total_tokens": u.total_tokens,
            })
        }
    };
    let incomplete = match (status, finish_reason) {
        ("incomplete", Some(FinishReason::ContentFilter)) => json!({"reason": "content_filter"}),
        ("incomplete", _) => json!({"reason": "max_output_tokens"}),
        _ => Value::Null,
    };
    json!({
        "id": envelope.id("resp_"),
        "object": "response",
        "created_at": envelope.created,
        "status": status,
        "error": null,
        "incomplete_details": incomplete,
        "instructions": null,
        "max_output_tokens": echo.max_output_tokens,
        "model": envelope.model,
        "output": output,
        "parallel_tool_calls": true,
        "previous_response_id": echo.previous_response_id,
        "reasoning": {"effort": null, "summary": null},
        "store": echo.store,
        "temperature": echo.temperature,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": echo.tools,
        "top_p": echo.top_p,
        "truncation": "disabled",
        "usage": usage,
        "user": null,
        "metadata": {},
    })
}

fn decode_item(value: &Value, what: &str, out: &mut Vec<Message>) -> Result<(), String> {
    let object: &Object = json::object(value, what)?;
    match object.get("type").and_then(Value::as_str).unwrap_or("message") {
        "message" => {
            let role = match json::required_str(object, "role", what)? {
                "system" => Role::System,
                "developer" => Role::Developer,
                "user" => Role::User,
                "assistant" => Role::Assistant,
                other => return Err(format!("{what}.role {other:?} is not system, developer, user or assistant")),
            };
            let content = match object.get("content") {
                Some(Value::String(text)) => vec![json::text_part(text)],
                Some(Value::Array(parts)) => {
                    let mut content = Vec::new();
                    for (i, part) in parts.iter().enumerate() {
                        let part_what = format!("{what}.content[{i}]");
                        let part = json::object(part, &part_what)?;
                        match json::required_str(part, "type", &part_what)? {
                            "input_text" | "output_text" | "text" => {
                                content.push(json::text_part(json::required_str(part, "text", &part_what)?))
                            }
                            "input_image" => content.push(ContentPart::Image(Box::new(ImagePart {
                                url: json::optional_str(part, "image_url", &part_what)?,
                                data: None,
                                media_type: None,
                                detail: json::optional_str(part, "detail", &part_what)?,
                            }))),
                            "input_file" => content.push(ContentPart::File(Box::new(FilePart {
                                file_id: json::optional_str(part, "file_id", &part_what)?,
                                url: json::optional_str(part, "file_url", &part_what)?,
                                data: json::optional_str(part, "file_data", &part_what)?,
                                media_type: None,
                                filename: json::optional_str(part, "filename", &part_what)?,
                            }))),
                            "refusal" => {}
                            other => return Err(format!("{part_what}.type {other:?} is not a known content part")),
                        }
                    }
                    content
                }
                other => {
                    return Err(format!(
                        "{what}.content must be a string or an array, found {}",
                        other.map_or("nothing", json::kind)
                    ))
                }
            };
            out.push(Message { role, content, thinking: None, tool_calls: Vec::new(), tool_call_id: None, name: None });
        }
        "function_call" => {
            let call = ToolCall {
                id: json::required_str(object, "call_id", what)?.to_string(),
                name: json::required_str(object, "name", what)?.to_string(),
                arguments: json::optional_str(object, "arguments", what)?.unwrap_or_default(),
            };
            // Consecutive calls belong to one assistant turn.
            match out.last_mut() {
                Some(last) if last.role == Role::Assistant && !last.tool_calls.is_empty() => last.tool_calls.push(call),
                _ => out.push(Message::assistant_tool_calls(vec![call])),
            }
        }
        "function_call_output" => {
            let output = object.get("output").map(json::flatten_text).unwrap_or_default();
            out.push(Message::tool_result(json::required_str(object, "call_id", what)?, output));
        }
        "reasoning" => {
            // A reasoning item replayed in a follow-up: its summary is the assistant turn's thinking.
            let summary: String = match object.get("summary") {
                Some(Value::Array(parts)) => parts.iter().map(json::flatten_text).collect::<Vec<_>>().join("\n"),
                _ => String::new(),
            };
            if !summary.is_empty() {
                out.push(Message {
                    role: Role::Assistant,
                    content: Vec::new(),
                    thinking: Some(summary),
                    tool_calls: Vec::new(),
                    tool_call_id: None,
                    name: None,
                });
            }
        }
        "item_reference" => {
            // Earlier output the client refers to by id (the AI SDK does with `store` on): a placeholder the
            // server resolves from the journal (`resolve_item_references`), or leaves visible.
            let id = json::required_str(object, "id", what)?;
            out.push(Message {
                name: Some(format!("{ITEM_REFERENCE}{id}")),
                ..Message::assistant_tool_calls(Vec::new())
            });
        }
        other => return Err(format!("{what}.type {other:?} is not a known input item")),
    }
    Ok(())
}
