//! OpenAI Chat Completions, `POST /v1/chat/completions` (`docs/concepts/wire.md`, "OpenAI Chat Completions").
//!
//! Streams are data-only SSE (no `event:` lines): the first delta carries the role, each tool call's id, type
//! and name appear only in its first delta, every tool-call delta carries `index` and `function`, a final empty
//! delta carries `finish_reason`, the usage chunk (with `choices: []`) comes last when
//! `stream_options.include_usage` is set, then `data: [DONE]`.

use super::errors::{error_object, Dialect};
use super::json::{self, Object};
use super::{
    json_text, json_text_reply, push_json_id, push_json_number, push_json_str, sse_event, sse_json, stream_reply,
    ChatProtocol, DecodedRequest, Encoding, Frame, HttpReply,
};
use crate::delivery::{self, StreamFraming};
use crate::model::{
    AudioPart, ChatRequest, ChatResponse, ContentPart, FilePart, FinishReason, ImagePart, Message, ResponseFormat,
    Role, ToolCall, ToolChoice, ToolDefinition, Usage,
};
use crate::script::{ReasoningField, StreamBreak};
use crate::stream::{Envelope, EventStream, StreamEvent, TimedEvent};
use serde::Serialize;
use serde_json::{json, Value};

// A speed-up for servers under load; the WASM module (in-process fetch) keeps its size budget without it, and answers
// the same (the shortcut's requests equal the full decoder's).
#[cfg(not(target_arch = "wasm32"))]
mod simple;

pub(crate) struct OpenAiChat;

/// Azure OpenAI's chat completions: OpenAI's protocol (the deployment in the path is the model, `routes`), with
/// Azure's error bodies (a content filter's `innererror`, string codes).
pub(crate) struct AzureChat;

impl ChatProtocol for AzureChat {
    const DIALECT: Dialect = Dialect::Azure;
    const FRAMING: StreamFraming = OpenAiChat::FRAMING;

    #[cfg(not(target_arch = "wasm32"))]
    fn decode_common(body: &str) -> Option<DecodedRequest> {
        OpenAiChat::decode_common(body)
    }

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        // A deployment's body need not name the model: the path does (`routes::Matched::model` replaces it).
        if body.is_object() && body.get("model").is_none() {
            let mut named = body.clone();
            named["model"] = Value::from("");
            return OpenAiChat::decode(&named);
        }
        OpenAiChat::decode(body)
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        request: &DecodedRequest,
        id: &str,
    ) -> HttpReply {
        OpenAiChat::encode_response(response, usage, envelope, request, id)
    }

    fn encode_stream(stream: &EventStream, request: &DecodedRequest, id: &str) -> HttpReply {
        OpenAiChat::encode_stream(stream, request, id)
    }
}

impl ChatProtocol for OpenAiChat {
    const DIALECT: Dialect = Dialect::OpenAi;
    /// SSE comments as keep-alives (a named event or a `ping` object would be yielded as a chunk, spec C.3).
    const FRAMING: StreamFraming =
        StreamFraming { chat_tool_calls: true, ..StreamFraming::sse(Some(delivery::COMMENT_KEEPALIVE), true) };

    #[cfg(not(target_arch = "wasm32"))]
    fn decode_common(body: &str) -> Option<DecodedRequest> {
        simple::decode(body)
    }

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        let model = json::required_str(top, "model", "request")?.to_string();
        // Sized exactly: the journal keeps these vectors as they are (a pushed-to Vec of one message holds four).
        let given_messages = json::required_array(top, "messages", "request")?;
        let mut messages = Vec::with_capacity(given_messages.len());
        for (i, message) in given_messages.iter().enumerate() {
            messages.push(decode_message(message, &format!("messages[{i}]"))?);
        }
        let given_tools = json::optional_array(top, "tools", "request")?;
        let mut tools = Vec::with_capacity(given_tools.len());
        for (i, tool) in given_tools.iter().enumerate() {
            tools.push(decode_tool(tool, &format!("tools[{i}]"))?);
        }
        let include_usage =
            top.get("stream_options").and_then(|o| o.get("include_usage")).and_then(Value::as_bool).unwrap_or(false);
        let request = ChatRequest {
            model,
            messages,
            tools,
            tool_choice: decode_tool_choice(top.get("tool_choice")),
            response_format: decode_response_format(top.get("response_format"))?.map(Box::new),
            temperature: json::optional_f64(top, "temperature", "request")?,
            top_p: json::optional_f64(top, "top_p", "request")?,
            max_tokens: match json::optional_u64(top, "max_completion_tokens", "request")? {
                Some(n) => Some(n),
                None => json::optional_u64(top, "max_tokens", "request")?,
            },
            stop: json::string_or_strings(top, "stop", "request")?,
            seed: json::optional_i64(top, "seed", "request")?,
            stream: json::optional_bool(top, "stream", "request")?,
            metadata: crate::model::RequestMetadata::default(),
        };
        Ok(DecodedRequest { include_usage, ..DecodedRequest::new(request) })
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        // `{"choices":[<the choice>],` and then the envelope, as each chunk of a stream is written (`chunk_with`),
        // the answer's text through `push_json_str`: serializing it through serde_json was a quarter of the
        // request's instructions.
        let message = &response.message;
        // A refusal's text is sent as `refusal`, with `content: null` (what structured-output clients read).
        let refused = response.finish_reason == Some(FinishReason::Refusal);
        let text_len = message.text.as_ref().map_or(0, String::len);
        let mut out = Vec::with_capacity(text_len + 640);
        out.extend_from_slice(b"{\"choices\":[{\"finish_reason\":");
        push_json_str(&mut out, finish_reason(response.finish_reason));
        out.extend_from_slice(b",\"index\":0,\"logprobs\":null,\"message\":{\"annotations\":[],\"content\":");
        match &message.text {
            Some(text) if !refused => push_json_str(&mut out, text),
            _ => out.extend_from_slice(b"null"),
        }
        // An OpenAI-compatible provider's reasoning field (sorted between `content` and `refusal`).
        if let (Some(key), Some(thinking)) = (request.reasoning_field.key(), &message.thinking) {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(key.as_bytes());
            out.extend_from_slice(b"\":");
            push_json_str(&mut out, thinking);
        }
        out.extend_from_slice(b",\"refusal\":");
        match &message.text {
            Some(text) if refused => push_json_str(&mut out, text),
            _ => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"role\":\"assistant\"");
        if !message.tool_calls.is_empty() {
            out.extend_from_slice(b",\"tool_calls\":");
            let calls: Vec<CallJson<'_>> = message.tool_calls.iter().map(CallJson::from).collect();
            let _ = serde_json::to_writer(&mut out, &calls); // into a Vec, this cannot fail
        }
        out.extend_from_slice(b"}}],");
        push_envelope_tail(&mut out, envelope, "chat.completion", Some(Some(&usage)));
        json_text_reply(200, vec![("x-request-id".into(), request_id.to_owned().into())], out)
    }

    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply {
        let (include_usage, reasoning_field) = (request.include_usage, request.reasoning_field);
        let frames =
            super::frames::encoded(stream, move |stream| stream_encoding(stream, include_usage, reasoning_field));
        stream_reply(stream, "x-request-id", request_id, frames)
    }
}

/// A stream's chunks: the role chunk, then about one frame per event (the last event's frame also holds `[DONE]`).
fn stream_encoding(stream: &EventStream, include_usage: bool, reasoning_field: ReasoningField) -> Encoding {
    let base = stream.envelope().clone();
    let stream_break = stream.stream_break();
    // Every chunk is `{"choices":[...],` + the same envelope (keys in serde_json's sorted order: `choices`
    // sorts first), so the envelope is written once and each chunk writes only its choice. A 200-token
    // stream spent most of its time rebuilding and re-serializing the envelope per token.
    let mut envelope_tail = Vec::with_capacity(160);
    push_envelope_tail(&mut envelope_tail, &base, "chat.completion.chunk", include_usage.then_some(None));
    let envelope_tail = json_text(envelope_tail);
    let refused = stream.response().is_some_and(|r| r.finish_reason == Some(FinishReason::Refusal));
    let role_delta = if refused {
        RoleDelta { content: None, refusal: Some(""), role: "assistant" }
    } else {
        RoleDelta { content: stream.streams_text().then_some(""), refusal: None, role: "assistant" }
    };
    let opening = vec![Frame { delay_ms: 0, data: chunk(&envelope_tail, &role_delta, None) }];
    let mut announced = std::collections::HashSet::new();
    let mut pending_delay = 0u64;
    let each = move |timed: &TimedEvent| -> Option<Frame> {
        let envelope_tail = envelope_tail.as_str();
        let base = &base;
        pending_delay += timed.delay_ms;
        let data = match &timed.event {
            // OpenAI's Chat Completions has no reasoning stream: thinking is not sent (its time still passes),
            // unless the mock speaks for a provider that sends it (`reasoning_field`).
            StreamEvent::ThinkingDelta { text } => match reasoning_field {
                ReasoningField::None => return None,
                ReasoningField::ReasoningContent => {
                    chunk(envelope_tail, &json!({"content": "", "reasoning_content": text}), None)
                }
                ReasoningField::Reasoning => chunk(envelope_tail, &json!({"reasoning": text}), None),
            },
            StreamEvent::ToolCall { .. } => return None,
            // DeepSeek's deltas carry both keys, so its sample code (content when reasoning_content is empty)
            // reads them.
            StreamEvent::TextDelta { text } if reasoning_field == ReasoningField::ReasoningContent => {
                chunk(envelope_tail, &json!({"content": text, "reasoning_content": null}), None)
            }
            StreamEvent::TextDelta { text } if refused => chunk(envelope_tail, &json!({"refusal": text}), None),
            StreamEvent::TextDelta { text } => content_chunk(envelope_tail, text),
            StreamEvent::ToolCallDelta { index, id, name, arguments } => {
                let mut out = String::new();
                if announced.insert(*index) {
                    let head = json!({"tool_calls": [{"index": index, "id": id, "type": "function",
                        "function": {"name": name, "arguments": ""}}]});
                    out.push_str(&chunk(envelope_tail, &head, None));
                }
                if !arguments.is_empty() {
                    let delta = json!({"tool_calls": [{"index": index, "function": {"arguments": arguments}}]});
                    out.push_str(&chunk(envelope_tail, &delta, None));
                }
                out
            }
            StreamEvent::Complete { response } => {
                let mut out = chunk(envelope_tail, &NoDelta {}, Some(finish_reason(response.finish_reason)));
                if include_usage {
                    if let Some(usage) = &response.usage {
                        let mut usage_chunk = Vec::with_capacity(512);
                        usage_chunk.extend_from_slice(b"data: {\"choices\":[],");
                        push_envelope_tail(&mut usage_chunk, base, "chat.completion.chunk", Some(Some(usage)));
                        usage_chunk.extend_from_slice(b"\n\n");
                        out.push_str(&json_text(usage_chunk));
                    }
                }
                out.push_str(&sse_event(None, "[DONE]"));
                out
            }
            StreamEvent::Error { error } => match stream_break {
                StreamBreak::ErrorEvent => sse_json(None, &json!({"error": error_object(Dialect::OpenAi, error)})),
                StreamBreak::ConnectionCut | StreamBreak::CleanEnd => String::new(),
            },
        };
        if data.is_empty() {
            return None;
        }
        Some(Frame { delay_ms: std::mem::take(&mut pending_delay), data })
    };
    Encoding { opening, each: Box::new(each) }
}

/// One chunk's SSE event: `{"choices":[{"delta":…,"finish_reason":…,"index":0,"logprobs":null}],` and then the
/// stream's envelope (`envelope_tail`, serialized once per stream: a 200-token stream spent most of its time
/// re-serializing it per token). `choices` sorts first, so the bytes are a whole chunk's.
fn chunk(envelope_tail: &str, delta: &impl Serialize, finish: Option<&str>) -> String {
    let delta = |out: &mut Vec<u8>| {
        let _ = serde_json::to_writer(out, delta); // into a Vec, this cannot fail
    };
    chunk_with(envelope_tail, delta, finish)
}

/// The chunk of one streamed token, `{"content":…}` written by hand (`push_json_str`): one per token.
fn content_chunk(envelope_tail: &str, text: &str) -> String {
    let delta = |out: &mut Vec<u8>| {
        out.extend_from_slice(b"{\"content\":");
        push_json_str(out, text);
        out.push(b'}');
    };
    chunk_with(envelope_tail, delta, None)
}

fn chunk_with(envelope_tail: &str, write_delta: impl FnOnce(&mut Vec<u8>), finish: Option<&str>) -> String {
    // The fixed parts are about 84 bytes; a delta of a token or two fits in the rest without the Vec growing.
    let mut out = Vec::with_capacity(envelope_tail.len() + 192);
    out.extend_from_slice(b"data: {\"choices\":[{\"delta\":");
    write_delta(&mut out);
    out.extend_from_slice(b",\"finish_reason\":");
    match finish {
        Some(reason) => push_json_str(&mut out, reason),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"index\":0,\"logprobs\":null}],");
    out.extend_from_slice(envelope_tail.as_bytes());
    out.extend_from_slice(b"\n\n");
    json_text(out)
}

/// The first delta of a stream: `content` is `""` when text follows, else `null`.
#[derive(Serialize)]
struct RoleDelta<'a> {
    content: Option<&'a str>,
    refusal: Option<&'a str>,
    role: &'static str,
}

/// `{}`: the last chunk's delta, which only finishes.
#[derive(Serialize)]
struct NoDelta {}

/// What follows `choices` in a `chat.completion` or a `chat.completion.chunk`, up to its closing brace:
/// `"created":…,"id":…,"model":…,"object":…,` (`"service_tier":"default",` whole) `"system_fingerprint":"fp_cuecard"`, then the usage when it is sent
/// (`None`: absent; `Some(None)`: `null`, as every chunk but the last of a stream asked to include usage). Written
/// by hand with keys in serde_json's sorted order, so the bytes are those of the typed body it replaced
/// (`tests/vectors/wire.json` holds them); serializing it was most of what a whole completion still cost.
fn push_envelope_tail(out: &mut Vec<u8>, envelope: &Envelope, object: &str, usage: Option<Option<&Usage>>) {
    out.extend_from_slice(b"\"created\":");
    push_json_number(out, envelope.created);
    out.extend_from_slice(b",\"id\":");
    push_json_id(out, envelope, "chatcmpl-");
    out.extend_from_slice(b",\"model\":");
    push_json_str(out, &envelope.model);
    out.extend_from_slice(b",\"object\":");
    push_json_str(out, object);
    // A whole completion says its tier, as the API's does (`cuecard drift` on the spec's example found it missing);
    // the chunks of the recorded streams do not.
    if object == "chat.completion" {
        out.extend_from_slice(b",\"service_tier\":\"default\"");
    }
    out.extend_from_slice(b",\"system_fingerprint\":\"fp_cuecard\"");
    match usage {
        None => {}
        Some(None) => out.extend_from_slice(b",\"usage\":null"),
        // With the details OpenAI always sends.
        Some(Some(usage)) => {
            out.extend_from_slice(b",\"usage\":{\"completion_tokens\":");
            push_json_number(out, usage.output_tokens);
            out.extend_from_slice(
                b",\"completion_tokens_details\":{\"accepted_prediction_tokens\":0,\"audio_tokens\":0,",
            );
            out.extend_from_slice(b"\"reasoning_tokens\":0,\"rejected_prediction_tokens\":0},\"prompt_tokens\":");
            push_json_number(out, usage.input_tokens);
            out.extend_from_slice(b",\"prompt_tokens_details\":{\"audio_tokens\":0,\"cached_tokens\":");
            push_json_number(out, usage.cached_tokens.unwrap_or(0));
            out.extend_from_slice(b"},\"total_tokens\":");
            push_json_number(out, usage.total_tokens);
            out.push(b'}');
        }
    }
    out.push(b'}');
}

/// A tool call: `{"function": {"arguments", "name"}, "id", "type": "function"}`, its fields declared in serde_json's
/// sorted key order so that the bytes are those of the shared wire vectors.
#[derive(Serialize)]
struct CallJson<'a> {
    function: FunctionJson<'a>,
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct FunctionJson<'a> {
    arguments: &'a str,
    name: &'a str,
}

impl<'a> From<&'a ToolCall> for CallJson<'a> {
    fn from(call: &'a ToolCall) -> CallJson<'a> {
        CallJson {
            function: FunctionJson { arguments: &call.arguments, name: &call.name },
            id: &call.id,
            kind: "function",
        }
    }
}

pub(crate) fn finish_reason(reason: Option<FinishReason>) -> &'static str {
    match reason.unwrap_or(FinishReason::Stop) {
        // A refusal ends as a natural stop; its text is in `refusal` rather than `content`.
        FinishReason::Stop | FinishReason::Other | FinishReason::Refusal => "stop",
        FinishReason::Length => "length",
        FinishReason::ToolCalls => "tool_calls",
        FinishReason::ContentFilter => "content_filter",
    }
}

fn decode_role(role: &str, what: &str) -> Result<Role, String> {
    match role {
        "system" => Ok(Role::System),
        "developer" => Ok(Role::Developer),
        "user" => Ok(Role::User),
        "assistant" => Ok(Role::Assistant),
        "tool" | "function" => Ok(Role::Tool),
        other => Err(format!("{what}.role {other:?} is not one of system, developer, user, assistant, tool")),
    }
}

fn decode_message(value: &Value, what: &str) -> Result<Message, String> {
    let object = json::object(value, what)?;
    let role = decode_role(json::required_str(object, "role", what)?, what)?;
    let content = decode_content(object.get("content"), what)?;
    let mut tool_calls = Vec::new();
    for (i, call) in json::optional_array(object, "tool_calls", what)?.iter().enumerate() {
        let call_what = format!("{what}.tool_calls[{i}]");
        let call = json::object(call, &call_what)?;
        let function = call
            .get("function")
            .and_then(Value::as_object)
            .ok_or_else(|| format!("{call_what}.function is required"))?;
        tool_calls.push(ToolCall {
            id: json::optional_str(call, "id", &call_what)?.unwrap_or_default(),
            name: json::required_str(function, "name", &format!("{call_what}.function"))?.to_string(),
            arguments: json::optional_str(function, "arguments", &format!("{call_what}.function"))?.unwrap_or_default(),
        });
    }
    Ok(Message {
        role,
        content,
        thinking: None,
        tool_calls,
        tool_call_id: json::optional_str(object, "tool_call_id", what)?,
        name: json::optional_str(object, "name", what)?,
    })
}

fn decode_content(value: Option<&Value>, what: &str) -> Result<Vec<ContentPart>, String> {
    let parts = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::String(text)) => return Ok(vec![json::text_part(text)]),
        Some(Value::Array(parts)) => parts,
        Some(other) => {
            return Err(format!("{what}.content must be a string or an array of parts, found {}", json::kind(other)))
        }
    };
    let mut out = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let part_what = format!("{what}.content[{i}]");
        let object = json::object(part, &part_what)?;
        let kind = json::required_str(object, "type", &part_what)?;
        out.push(match kind {
            "text" | "input_text" | "output_text" => json::text_part(json::required_str(object, "text", &part_what)?),
            "refusal" => json::text_part(json::required_str(object, "refusal", &part_what)?),
            "image_url" => {
                let image = object.get("image_url");
                let url = image.and_then(|i| i.get("url").or(Some(i))).and_then(Value::as_str).map(str::to_string);
                let detail = image.and_then(|i| i.get("detail")).and_then(Value::as_str).map(str::to_string);
                ContentPart::Image(Box::new(ImagePart { url, data: None, media_type: None, detail }))
            }
            "input_audio" => {
                let audio = object.get("input_audio");
                ContentPart::Audio(Box::new(AudioPart {
                    data: audio.and_then(|a| a.get("data")).and_then(Value::as_str).unwrap_or_default().to_string(),
                    format: audio.and_then(|a| a.get("format")).and_then(Value::as_str).unwrap_or_default().to_string(),
                }))
            }
            "file" => {
                let file = object.get("file");
                let get = |k: &str| file.and_then(|f| f.get(k)).and_then(Value::as_str).map(str::to_string);
                ContentPart::File(Box::new(FilePart {
                    file_id: get("file_id"),
                    url: None,
                    data: get("file_data"),
                    media_type: None,
                    filename: get("filename"),
                }))
            }
            other => return Err(format!("{part_what}.type {other:?} is not a known content part")),
        });
    }
    Ok(out)
}

fn decode_tool(value: &Value, what: &str) -> Result<ToolDefinition, String> {
    let object = json::object(value, what)?;
    // Chat tools nest the definition under `function`; accept the flat form too.
    let function = object.get("function").and_then(Value::as_object).unwrap_or(object);
    Ok(ToolDefinition {
        name: json::required_str(function, "name", what)?.to_string(),
        description: json::optional_str(function, "description", what)?,
        parameters: function.get("parameters").cloned().unwrap_or_else(|| json!({"type": "object", "properties": {}})),
    })
}

pub(crate) fn decode_tool_choice(value: Option<&Value>) -> Option<ToolChoice> {
    match value? {
        Value::String(s) => match s.as_str() {
            "auto" => Some(ToolChoice::Auto),
            "none" => Some(ToolChoice::None),
            "required" | "any" => Some(ToolChoice::Required),
            _ => None,
        },
        Value::Object(o) => {
            let name = o.get("function").and_then(|f| f.get("name")).or_else(|| o.get("name")).and_then(Value::as_str);
            match (o.get("type").and_then(Value::as_str), name) {
                (_, Some(name)) => Some(ToolChoice::Tool { name: name.to_string() }),
                (Some("auto"), None) => Some(ToolChoice::Auto),
                (Some("any"), None) => Some(ToolChoice::Required),
                (Some("none"), None) => Some(ToolChoice::None),
                _ => None,
            }
        }
        _ => None,
    }
}

fn decode_response_format(value: Option<&Value>) -> Result<Option<ResponseFormat>, String> {
    let Some(value) = value.filter(|v| !v.is_null()) else { return Ok(None) };
    let object: &Object = json::object(value, "request.response_format")?;
    Ok(match json::required_str(object, "type", "request.response_format")? {
        "text" => Some(ResponseFormat::Text),
        "json_object" => Some(ResponseFormat::JsonObject),
        "json_schema" => {
            let schema = object.get("json_schema").unwrap_or(&Value::Null);
            Some(ResponseFormat::JsonSchema {
                name: schema.get("name").and_then(Value::as_str).map(str::to_string),
                schema: schema.get("schema").cloned().unwrap_or(Value::Null),
                strict: schema.get("strict").and_then(Value::as_bool),
            })
        }
        other => return Err(format!("request.response_format.type {other:?} is not text, json_object or json_schema")),
    })
}
