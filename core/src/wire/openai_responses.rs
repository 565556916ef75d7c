//! OpenAI Responses, `POST /v1/responses` (`docs/concepts/wire.md`, "OpenAI Responses").
//!
//! Streams send `event: <type>` with the same `type` in the data and a `sequence_number` counting from 0:
//! `response.created`, `response.in_progress`, per output item `response.output_item.added`, its deltas and
//! `…done` events, `response.output_item.done`, then `response.completed` carrying the whole response. A
//! failure mid-stream is an `error` event. Thinking is sent as OpenAI's reasoning models send it: a `reasoning`
//! output item first, with one `summary_text` part, streamed as `response.reasoning_summary_part.added`,
//! `response.reasoning_summary_text.delta`s, `….done` and `response.reasoning_summary_part.done`, and counted in
//! `usage.output_tokens_details.reasoning_tokens`.

use super::errors::{error_object, Dialect};
use super::json::{self, Object};
use super::{
    json_reply, json_text, push_json_number, push_json_str, push_sse_json, stream_reply, ChatProtocol, DecodedRequest,
    Encoding, Frame, HttpReply, ITEM_REFERENCE,
};
use crate::delivery::{self, StreamFraming};
use crate::model::{
    ChatRequest, ChatResponse, ContentPart, FilePart, FinishReason, ImagePart, Message, ResponseFormat, Role, ToolCall,
    ToolDefinition, Usage,
};
use crate::script::StreamBreak;
use crate::stream::{Envelope, EventStream, StreamEvent, TimedEvent};
use objects::{Echo, Event, Output, OutputItem, Part, ResponseObject};
use serde_json::{json, Value};

mod objects;
pub(crate) mod stored;

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
        decoded.background = json::optional_bool(top, "background", "request")?;
        if decoded.background && !decoded.store {
            return Err("request.background requires store: a background response is kept to be retrieved".into());
        }
        Ok(decoded)
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        let echo = echo_of(request);
        if request.background {
            // Queued now; `GET /v1/responses/{id}` moves it on (`stored`).
            let body = ResponseObject::new(None, None, envelope, &echo, &[], "queued").in_background();
            return json_reply(200, vec![("x-request-id".into(), request_id.to_owned().into())], &body);
        }
        let output = Output::of(response, envelope);
        let items = output.items("completed");
        let body = ResponseObject::new(Some(response), Some(usage), envelope, &echo, &items, status_of(response));
        json_reply(200, vec![("x-request-id".into(), request_id.to_owned().into())], &body)
    }

    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply {
        let echo = echo_of(request);
        let frames = super::frames::encoded(stream, move |stream| stream_encoding(stream, echo.clone()));
        stream_reply(stream, "x-request-id", request_id, frames)
    }
}

/// Writes a stream's events, each with the next `sequence_number` (from 0).
#[derive(Default)]
struct EventWriter {
    next: u64,
}

impl EventWriter {
    fn next_number(&mut self) -> u64 {
        let number = self.next;
        self.next += 1;
        number
    }

    /// `event: <type>` and the event as its data, appended to `out`.
    fn write(&mut self, out: &mut Vec<u8>, mut event: Event<'_>) {
        event.sequence_number = self.next_number();
        push_sse_json(out, Some(event.r#type), &event);
    }

    /// `response.output_item.added` (`done` false) or `.done` for `item` at `output_index`.
    fn write_item(&mut self, out: &mut Vec<u8>, done: bool, item: &OutputItem<'_>, output_index: usize) {
        let kind = if done { "response.output_item.done" } else { "response.output_item.added" };
        self.write(out, Event { item: Some(item), output_index: Some(output_index), ..Event::of(kind) });
    }
}

/// The function call whose arguments are streaming.
struct OpenCall {
    item_id: String,
    call_id: String,
    name: String,
}

/// A stream's events: `response.created` and `response.in_progress`, then each output item as it opens, grows
/// and closes.
fn stream_encoding(stream: &EventStream, echo: Echo) -> Encoding {
    let envelope = stream.envelope().clone();
    let stream_break = stream.stream_break();
    let message_id = format!("msg_{}", envelope.number);
    let mut writer = EventWriter::default();
    let opening = {
        let in_progress = ResponseObject::new(None, None, &envelope, &echo, &[], "in_progress");
        let mut bytes = Vec::with_capacity(2048);
        for kind in ["response.created", "response.in_progress"] {
            writer.write(&mut bytes, Event { response: Some(&in_progress), ..Event::of(kind) });
        }
        vec![Frame { delay_ms: 0, data: json_text(bytes) }]
    };
    let mut pending_delay = 0u64;
    let mut output_index = 0usize;
    let reasoning_id = format!("rs_{}", envelope.number);
    let mut reasoning: Option<String> = None; // the summary so far, while the reasoning item is open
    let mut text_open = false;
    let mut text = String::new();
    // A refusal streams as a `refusal` part (`response.refusal.delta` / `.done`) instead of `output_text`.
    let refused = stream.response().is_some_and(|r| r.finish_reason == Some(FinishReason::Refusal));
    let mut open_call: Option<OpenCall> = None;
    let each = move |timed: &TimedEvent| -> Option<Frame> {
        let envelope = &envelope;
        pending_delay += timed.delay_ms;
        let mut bytes = Vec::new();
        // The reasoning item ends where anything else begins.
        if !matches!(timed.event, StreamEvent::ThinkingDelta { .. }) {
            if let Some(summary) = reasoning.take() {
                close_reasoning(&mut writer, &mut bytes, &reasoning_id, output_index, &summary);
                output_index += 1;
            }
        }
        let at = Some(output_index);
        match &timed.event {
            StreamEvent::ThinkingDelta { text: token } => {
                let item_id = Some(reasoning_id.as_str());
                let summary = match reasoning.as_mut() {
                    Some(summary) => summary,
                    None => {
                        let item = OutputItem::reasoning(reasoning_id.as_str(), &[]);
                        writer.write_item(&mut bytes, false, &item, output_index);
                        writer.write(
                            &mut bytes,
                            Event {
                                item_id,
                                output_index: at,
                                part: Some(Part::summary("")),
                                summary_index: Some(0),
                                ..Event::of("response.reasoning_summary_part.added")
                            },
                        );
                        reasoning.insert(String::new())
                    }
                };
                summary.push_str(token);
                writer.write(
                    &mut bytes,
                    Event {
                        delta: Some(token),
                        item_id,
                        output_index: at,
                        summary_index: Some(0),
                        ..Event::of("response.reasoning_summary_text.delta")
                    },
                );
            }
            StreamEvent::TextDelta { text: token } => {
                let item_id = Some(message_id.as_str());
                if !text_open {
                    text_open = true;
                    let item = OutputItem::message(message_id.as_str(), "in_progress", &[]);
                    writer.write_item(&mut bytes, false, &item, output_index);
                    writer.write(
                        &mut bytes,
                        Event {
                            content_index: Some(0),
                            item_id,
                            output_index: at,
                            part: Some(Part::text("", refused)),
                            ..Event::of("response.content_part.added")
                        },
                    );
                }
                text.push_str(token);
                if refused {
                    writer.write(
                        &mut bytes,
                        Event {
                            content_index: Some(0),
                            delta: Some(token),
                            item_id,
                            output_index: at,
                            ..Event::of("response.refusal.delta")
                        },
                    );
                } else {
                    push_text_delta_event(&mut bytes, token, &message_id, output_index, writer.next_number());
                }
            }
            StreamEvent::ToolCallDelta { index, id, name, arguments } => {
                if text_open {
                    close_text(&mut writer, &mut bytes, &message_id, output_index, &text, refused);
                    text_open = false;
                    output_index += 1;
                }
                let at = Some(output_index);
                let call = open_call.get_or_insert_with(|| {
                    let item_id = format!("fc_{}_{index}", envelope.number);
                    let item = OutputItem::function_call(item_id.as_str(), "in_progress", id, name, "");
                    writer.write_item(&mut bytes, false, &item, output_index);
                    OpenCall { item_id, call_id: id.clone(), name: name.clone() }
                });
                if !arguments.is_empty() {
                    writer.write(
                        &mut bytes,
                        Event {
                            delta: Some(arguments),
                            item_id: Some(&call.item_id),
                            output_index: at,
                            ..Event::of("response.function_call_arguments.delta")
                        },
                    );
                }
            }
            StreamEvent::ToolCall { call, .. } => {
                if let Some(open) = open_call.take() {
                    writer.write(
                        &mut bytes,
                        Event {
                            arguments: Some(&call.arguments),
                            item_id: Some(&open.item_id),
                            name: Some(&open.name),
                            output_index: at,
                            ..Event::of("response.function_call_arguments.done")
                        },
                    );
                    let item = OutputItem::function_call(
                        open.item_id.as_str(),
                        "completed",
                        &open.call_id,
                        &open.name,
                        &call.arguments,
                    );
                    writer.write_item(&mut bytes, true, &item, output_index);
                    output_index += 1;
                }
            }
            StreamEvent::Complete { response } => {
                // The closing events and the whole response repeat the text up to five times: room for all of it.
                let message = &response.message;
                let answer_len =
                    message.text.as_ref().map_or(0, String::len) + message.thinking.as_ref().map_or(0, String::len);
                bytes.reserve(3072 + 5 * answer_len);
                if text_open {
                    close_text(&mut writer, &mut bytes, &message_id, output_index, &text, refused);
                    text_open = false;
                }
                let status = status_of(response);
                let output = Output::of(response, envelope);
                let items = output.items("completed");
                let done = ResponseObject::new(Some(response), response.usage, envelope, &echo, &items, status);
                let kind = if status == "incomplete" { "response.incomplete" } else { "response.completed" };
                writer.write(&mut bytes, Event { response: Some(&done), ..Event::of(kind) });
            }
            StreamEvent::Error { error } => {
                if stream_break == StreamBreak::ErrorEvent {
                    let inner = error_object(Dialect::OpenAi, error);
                    let code = inner["code"].as_str().map_or_else(|| inner["type"].clone(), |code| json!(code));
                    writer.write(
                        &mut bytes,
                        Event {
                            code: Some(code),
                            message: Some(&error.message),
                            param: Some(()),
                            ..Event::of("error")
                        },
                    );
                }
            }
        }
        if bytes.is_empty() {
            return None;
        }
        Some(Frame { delay_ms: std::mem::take(&mut pending_delay), data: json_text(bytes) })
    };
    Encoding { opening, each: Box::new(each) }
}

/// A `response.output_text.delta` event, one per streamed token, written by hand around the token and the ids
/// (`push_json_str`): the bytes serde_json writes for its object, keys in its sorted order (`tests/vectors/wire.json`
/// holds them).
fn push_text_delta_event(out: &mut Vec<u8>, token: &str, item_id: &str, output_index: usize, sequence_number: u64) {
    out.reserve(192 + token.len());
    out.extend_from_slice(b"event: response.output_text.delta\ndata: {\"content_index\":0,\"delta\":");
    push_json_str(out, token);
    out.extend_from_slice(b",\"item_id\":");
    push_json_str(out, item_id);
    out.extend_from_slice(b",\"logprobs\":[],\"output_index\":");
    push_json_number(out, output_index as u64);
    out.extend_from_slice(b",\"sequence_number\":");
    push_json_number(out, sequence_number);
    out.extend_from_slice(b",\"type\":\"response.output_text.delta\"}\n\n");
}

/// The reasoning item's closing events, its summary whole.
fn close_reasoning(
    writer: &mut EventWriter,
    out: &mut Vec<u8>,
    reasoning_id: &str,
    output_index: usize,
    summary: &str,
) {
    let (item_id, at) = (Some(reasoning_id), Some(output_index));
    let part = Part::summary(summary);
    writer.write(
        out,
        Event {
            item_id,
            output_index: at,
            summary_index: Some(0),
            text: Some(summary),
            ..Event::of("response.reasoning_summary_text.done")
        },
    );
    writer.write(
        out,
        Event {
            item_id,
            output_index: at,
            part: Some(part),
            summary_index: Some(0),
            ..Event::of("response.reasoning_summary_part.done")
        },
    );
    let item = OutputItem::reasoning(reasoning_id, std::slice::from_ref(&part));
    writer.write_item(out, true, &item, output_index);
}

/// The message item's closing events, its text (or refusal) whole.
fn close_text(
    writer: &mut EventWriter,
    out: &mut Vec<u8>,
    message_id: &str,
    output_index: usize,
    text: &str,
    refused: bool,
) {
    let (item_id, at, content_index) = (Some(message_id), Some(output_index), Some(0));
    let done = if refused {
        Event { content_index, item_id, output_index: at, refusal: Some(text), ..Event::of("response.refusal.done") }
    } else {
        Event {
            content_index,
            item_id,
            logprobs: Some([]),
            output_index: at,
            text: Some(text),
            ..Event::of("response.output_text.done")
        }
    };
    writer.write(out, done);
    let part = Part::text(text, refused);
    writer.write(
        out,
        Event { content_index, item_id, output_index: at, part: Some(part), ..Event::of("response.content_part.done") },
    );
    let item = OutputItem::message(message_id, "completed", std::slice::from_ref(&part));
    writer.write_item(out, true, &item, output_index);
}

fn status_of(response: &ChatResponse) -> &'static str {
    match response.finish_reason {
        Some(FinishReason::Length | FinishReason::ContentFilter) => "incomplete",
        _ => "completed",
    }
}

/// What the response objects of a request repeat of it.
fn echo_of(decoded: &DecodedRequest) -> Echo {
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
