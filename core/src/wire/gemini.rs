//! Google Gemini API (and Vertex AI's paths): `models/{m}:generateContent`, `:streamGenerateContent?alt=sse`,
//! `:countTokens`, `:embedContent`, `:batchEmbedContents`, and the model list (`docs/concepts/wire.md`, "Gemini";
//! `../shared/spec/providers.md` §2 and §9).
//!
//! What the SDKs hold a mock to: success is exactly 200; a stream is `data: <one-line JSON>` + a blank line per
//! event, with no `event:` lines, no comments and no `[DONE]`; every chunk carries `candidates[0].content.parts`,
//! the last one `finishReason` and the whole `usageMetadata`; function calls are whole parts with `args` as an
//! object and a call turn ends with `STOP`; an error mid-stream is a chunk whose first key is `error`; and
//! `continuationToken` is never sent (@google/genai would request again). Thinking is sent as `thought: true`
//! parts only when the request asks for it (`includeThoughts`), as the API does; its tokens are counted either way.

use super::errors::{error_object, Dialect};
use super::json::{self, Object};
use super::routes::Matched;
use super::{
    json_text, json_text_reply, push_json_id, push_json_number, push_json_str, raw, request_id, served_reply,
    stream_reply, ChatProtocol, DecodedRequest, Encoding, Frame, HttpReply, HttpRequest,
};
use crate::delivery::StreamFraming;
use crate::mock::MockModel;
use crate::model::{
    ChatRequest, ChatResponse, ContentPart, FinishReason, ImagePart, Message, ResponseFormat, Role, ToolCall,
    ToolChoice, ToolDefinition, Usage,
};
use crate::script::StreamBreak;
use crate::stream::{Envelope, EventStream, StreamEvent, TimedEvent};
use serde_json::{json, Value};

pub(crate) struct GeminiGenerate;

/// An opaque, deterministic thought signature (base64 of "cuecard"); clients only send it back.
const THOUGHT_SIGNATURE: &str = "Y3VlY2FyZA==";

/// The dimensions of an embedding when the request names none (text-embedding-004's).
const DEFAULT_DIMENSIONS: usize = 768;

/// A field under either of its protobuf-JSON spellings (the Python SDK sends some keys in snake_case).
fn field<'a>(object: &'a Object, camel: &str, snake: &str) -> Option<&'a Value> {
    object.get(camel).or_else(|| object.get(snake)).filter(|v| !v.is_null())
}

impl ChatProtocol for GeminiGenerate {
    const DIALECT: Dialect = Dialect::Gemini;
    /// No keep-alive, `\n` line ends only: what Google's SDKs were checked against.
    const FRAMING: StreamFraming = StreamFraming::sse(None, false);

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        let mut messages = Vec::new();
        if let Some(system) = field(top, "systemInstruction", "system_instruction") {
            // Whatever its role (the Python SDK gives it "user"), the system instruction is the system message.
            let text = match system {
                Value::String(text) => text.clone(),
                other => parts_text(other.get("parts").unwrap_or(&Value::Null)),
            };
            messages.push(Message::system(text));
        }
        let contents = match top.get("contents") {
            Some(Value::Array(contents)) => contents.as_slice(),
            Some(Value::Object(_)) => std::slice::from_ref(top.get("contents").unwrap_or(&Value::Null)),
            None | Some(Value::Null) => return Err("request.contents is required".to_string()),
            Some(other) => return Err(format!("request.contents must be an array, found {}", json::kind(other))),
        };
        for (i, content) in contents.iter().enumerate() {
            decode_content(content, &format!("contents[{i}]"), &mut messages)?;
        }
        let mut tools = Vec::new();
        for (i, tool) in json::optional_array(top, "tools", "request")?.iter().enumerate() {
            let what = format!("tools[{i}]");
            let tool = json::object(tool, &what)?;
            let declarations = field(tool, "functionDeclarations", "function_declarations");
            for (j, declaration) in
                declarations.and_then(Value::as_array).map_or(&[][..], Vec::as_slice).iter().enumerate()
            {
                let what = format!("{what}.functionDeclarations[{j}]");
                let declaration = json::object(declaration, &what)?;
                tools.push(ToolDefinition {
                    name: json::required_str(declaration, "name", &what)?.to_string(),
                    description: json::optional_str(declaration, "description", &what)?,
                    parameters: field(declaration, "parametersJsonSchema", "parameters_json_schema")
                        .or_else(|| declaration.get("parameters"))
                        .cloned()
                        .unwrap_or_else(|| json!({"type": "object"})),
                });
            }
        }
        let config = field(top, "generationConfig", "generation_config").and_then(Value::as_object);
        let number = |camel: &str, snake: &str| config.and_then(|c| field(c, camel, snake)).and_then(Value::as_f64);
        let thinking = config.and_then(|c| field(c, "thinkingConfig", "thinking_config")).and_then(Value::as_object);
        let include_thoughts = thinking
            .and_then(|t| field(t, "includeThoughts", "include_thoughts"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let stop = config
            .and_then(|c| field(c, "stopSequences", "stop_sequences"))
            .and_then(Value::as_array)
            .map(|s| s.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default();
        let request = ChatRequest {
            model: String::new(), // the path's (`routes::Matched::model`)
            messages,
            tools,
            tool_choice: decode_tool_choice(top),
            response_format: config.and_then(decode_response_format).map(Box::new),
            temperature: number("temperature", "temperature"),
            top_p: number("topP", "top_p"),
            max_tokens: number("maxOutputTokens", "max_output_tokens").map(|n| n as u64),
            stop,
            seed: number("seed", "seed").map(|n| n as i64),
            stream: false, // the path's verb
            metadata: crate::model::RequestMetadata::default(),
        };
        Ok(DecodedRequest { include_thoughts, ..DecodedRequest::new(request) })
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        let message = &response.message;
        let thought = message.thinking.as_deref().filter(|_| request.include_thoughts);
        // The signature goes on the first call, or, for an answer that thought and called no tool, the last part.
        let sign_last = message.tool_calls.is_empty() && message.thinking.is_some();
        let pieces = Pieces::new(envelope);
        let mut out = Vec::with_capacity(message.text.as_ref().map_or(0, String::len) + 512);
        let usage = usage_metadata(usage, message.thinking.as_deref());
        pieces.write(&mut out, Some((finish_reason(response.finish_reason), &usage)), |out| {
            let mut first = true;
            let mut comma = |out: &mut Vec<u8>| {
                if !std::mem::take(&mut first) {
                    out.push(b',');
                }
            };
            if let Some(thinking) = thought {
                comma(out);
                text_part(out, thinking, true, sign_last && message.text.is_none());
            }
            if let Some(text) = &message.text {
                comma(out);
                text_part(out, text, false, sign_last);
            }
            for (i, call) in message.tool_calls.iter().enumerate() {
                comma(out);
                let _ = serde_json::to_writer(&mut *out, &function_call_part(call, i == 0));
                // into a Vec: cannot fail
            }
        });
        json_text_reply(200, vec![("x-request-id".into(), request_id.to_owned().into())], out)
    }

    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply {
        let include_thoughts = request.include_thoughts;
        let frames = super::frames::encoded(stream, move |stream| stream_encoding(stream, include_thoughts));
        stream_reply(stream, "x-request-id", request_id, frames)
    }

    /// A `content_filtered` failure on a streaming request is what the API streams for a blocked answer: one chunk
    /// whose candidate has no content, `finishReason: SAFETY` and the blocking rating (`../shared/spec/providers.md`
    /// §2.3); a JSON 200 there left `@google/genai` with an empty stream. Other failures are HTTP errors.
    fn encode_failed_stream(stream: &EventStream, request_id: &str) -> Option<HttpReply> {
        stream.error().filter(|e| e.kind == crate::provider_error::ProviderErrorKind::ContentFiltered)?;
        let envelope = stream.envelope();
        let chunk = json!({
            "candidates": [{"finishReason": "SAFETY", "index": 0, "safetyRatings": [
                {"blocked": true, "category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH"}]}],
            "modelVersion": envelope.model,
            "responseId": envelope.id("resp_"),
        });
        let frame =
            Frame { delay_ms: stream.first_delay_ms() + stream.stall_ms(), data: super::sse_json(None, &chunk) };
        let headers = super::sse_headers(vec![("x-request-id".into(), request_id.to_string().into())]);
        Some(HttpReply::Stream {
            stall_ms: 0,
            status: 200,
            headers,
            frames: vec![frame].into(),
            end: crate::http::StreamEnd::Close,
            base64: false,
            separate_writes: false,
            entry: Some(stream.entry()),
        })
    }
}

/// A stream's `GenerateContentResponse`s: one per text (or thought) token and per whole call, then the last with
/// the finish reason and usage.
fn stream_encoding(stream: &EventStream, include_thoughts: bool) -> Encoding {
    let stream_break = stream.stream_break();
    let pieces = Pieces::new(stream.envelope());
    let thinking = stream.response().and_then(|r| r.message.thinking.clone());
    let mut pending_delay = 0u64;
    let each = move |timed: &TimedEvent| -> Option<Frame> {
        let thinking = &thinking;
        pending_delay += timed.delay_ms;
        let mut out = Vec::with_capacity(pieces.len() + 96);
        out.extend_from_slice(b"data: ");
        match &timed.event {
            StreamEvent::ThinkingDelta { text } if include_thoughts => {
                pieces.write(&mut out, None, |out| text_part(out, text, true, false));
            }
            StreamEvent::TextDelta { text } => pieces.write(&mut out, None, |out| text_part(out, text, false, false)),
            // Gemini sends each call whole, in one part: the fragments are not sent (their time still passes).
            StreamEvent::ThinkingDelta { .. } | StreamEvent::ToolCallDelta { .. } => return None,
            StreamEvent::ToolCall { index, call } => pieces.write(&mut out, None, |out| {
                let _ = serde_json::to_writer(&mut *out, &function_call_part(call, *index == 0));
                // into a Vec
            }),
            StreamEvent::Complete { response } => {
                // The last chunk: an empty text part (every chunk has parts, or Python's `chats` drops the turn),
                // signed when the answer thought and called no tool, with the finish reason and the usage.
                let signed = response.message.tool_calls.is_empty() && thinking.is_some();
                let usage = usage_metadata(response.usage.unwrap_or_default(), thinking.as_deref());
                let finish = Some((finish_reason(response.finish_reason), &usage));
                pieces.write(&mut out, finish, |out| text_part(out, "", false, signed));
            }
            StreamEvent::Error { error } => {
                if stream_break != StreamBreak::ErrorEvent {
                    return None;
                }
                // `error` is the only key, so the first: Python checks that the chunk starts with it.
                let data = json!({"error": error_object(Dialect::Gemini, error)});
                let _ = serde_json::to_writer(&mut out, &data); // into a Vec, this cannot fail
            }
        }
        out.extend_from_slice(b"\n\n");
        Some(Frame { delay_ms: std::mem::take(&mut pending_delay), data: json_text(out) })
    };
    Encoding { opening: Vec::new(), each: Box::new(each) }
}

/// What every `GenerateContentResponse` of one answer repeats, written once: each chunk is
/// `{"candidates":[{"content":{"parts":[<parts>],"role":"model"},["finishReason":R,]"index":0}],"modelVersion":M,
/// "responseId":I[,"usageMetadata":U]}`, keys in serde_json's sorted order (the bytes of the serialized object). A
/// 75-token stream built and serialized a `Value` tree per token: eight times the work of a Chat Completions chunk.
struct Pieces {
    /// `,"index":0}],"modelVersion":M,"responseId":I`
    tail: Vec<u8>,
}

impl Pieces {
    fn new(envelope: &Envelope) -> Pieces {
        let mut tail = Vec::with_capacity(96);
        tail.extend_from_slice(b"\"index\":0}],\"modelVersion\":");
        push_json_str(&mut tail, &envelope.model);
        tail.extend_from_slice(b",\"responseId\":");
        push_json_id(&mut tail, envelope, "resp_");
        Pieces { tail }
    }

    fn len(&self) -> usize {
        self.tail.len() + 64
    }

    /// One response object into `out`: the parts `write_parts` writes, and on the last one the finish and usage.
    fn write(&self, out: &mut Vec<u8>, last: Option<(&str, &UsageMetadata)>, write_parts: impl FnOnce(&mut Vec<u8>)) {
        out.extend_from_slice(b"{\"candidates\":[{\"content\":{\"parts\":[");
        write_parts(out);
        out.extend_from_slice(b"],\"role\":\"model\"},");
        if let Some((reason, _)) = last {
            out.extend_from_slice(b"\"finishReason\":");
            push_json_str(out, reason);
            out.push(b',');
        }
        out.extend_from_slice(&self.tail);
        if let Some((_, usage)) = last {
            out.extend_from_slice(b",\"usageMetadata\":");
            usage.write(out);
        }
        out.push(b'}');
    }
}

/// `{"text":T}`, with `"thought":true` for thinking and the signature when asked.
fn text_part(out: &mut Vec<u8>, text: &str, thought: bool, signed: bool) {
    out.extend_from_slice(b"{\"text\":");
    push_json_str(out, text);
    if thought {
        out.extend_from_slice(b",\"thought\":true");
    }
    if signed {
        out.extend_from_slice(b",\"thoughtSignature\":");
        push_json_str(out, THOUGHT_SIGNATURE);
    }
    out.push(b'}');
}

fn function_call_part(call: &ToolCall, signed: bool) -> Value {
    let mut part = json!({"functionCall": {"id": call.id, "name": call.name, "args": super::anthropic::tool_input(&call.arguments)}});
    // Only the first of parallel calls carries the signature, as Gemini sends it.
    if signed {
        part["thoughtSignature"] = json!(THOUGHT_SIGNATURE);
    }
    part
}

/// `usageMetadata`: thought tokens are not inside `candidatesTokenCount`, and the total is their sum.
struct UsageMetadata {
    prompt: u64,
    candidates: u64,
    thoughts: u64,
    total: u64,
    cached: Option<u64>,
}

fn usage_metadata(usage: Usage, thinking: Option<&str>) -> UsageMetadata {
    let thoughts = thinking.map_or(0, |t| crate::tokenize::count_tokens(t) as u64).min(usage.output_tokens);
    UsageMetadata {
        prompt: usage.input_tokens,
        candidates: usage.output_tokens - thoughts,
        thoughts,
        total: usage.total_tokens,
        cached: usage.cached_tokens,
    }
}

impl UsageMetadata {
    /// The object, keys in serde_json's sorted order; `thoughtsTokenCount` only when there was thinking.
    fn write(&self, out: &mut Vec<u8>) {
        out.push(b'{');
        if let Some(cached) = self.cached {
            out.extend_from_slice(b"\"cachedContentTokenCount\":");
            push_json_number(out, cached);
            out.push(b',');
        }
        out.extend_from_slice(b"\"candidatesTokenCount\":");
        push_json_number(out, self.candidates);
        out.extend_from_slice(b",\"promptTokenCount\":");
        push_json_number(out, self.prompt);
        if self.thoughts > 0 {
            out.extend_from_slice(b",\"thoughtsTokenCount\":");
            push_json_number(out, self.thoughts);
        }
        out.extend_from_slice(b",\"totalTokenCount\":");
        push_json_number(out, self.total);
        out.push(b'}');
    }
}

/// Gemini's finish reasons: there is no tool-call reason, a call turn ends with `STOP`.
fn finish_reason(reason: Option<FinishReason>) -> &'static str {
    match reason.unwrap_or(FinishReason::Stop) {
        FinishReason::Stop | FinishReason::ToolCalls => "STOP",
        FinishReason::Length => "MAX_TOKENS",
        FinishReason::ContentFilter | FinishReason::Refusal => "SAFETY",
        FinishReason::Other => "OTHER",
    }
}

/// The joined text of a content's parts (thought parts left out).
fn parts_text(parts: &Value) -> String {
    parts
        .as_array()
        .map(|parts| {
            parts
                .iter()
                .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default()
}

/// One `contents[]` entry: a user or model turn; function responses become tool messages of their own.
fn decode_content(value: &Value, what: &str, out: &mut Vec<Message>) -> Result<(), String> {
    let content = json::object(value, what)?;
    let role = match json::optional_str(content, "role", what)?.as_deref() {
        None | Some("user") => Role::User,
        Some("model") => Role::Assistant,
        Some(other) => return Err(format!("{what}.role {other:?} is not user or model")),
    };
    let parts = json::required_array(content, "parts", what)?;
    let mut message =
        Message { role, content: Vec::new(), thinking: None, tool_calls: Vec::new(), tool_call_id: None, name: None };
    let mut results = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        // The part's path is made only for an error: a request's parts are many, and all but a broken one are fine.
        let at = |rest: &str| format!("{what}.parts[{i}]{rest}");
        let part = part.as_object().ok_or_else(|| at(" must be a JSON object"))?;
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                message.thinking = Some(message.thinking.take().unwrap_or_default() + text);
            } else if !text.is_empty() {
                message.content.push(json::text_part(text));
            }
        } else if let Some(call) = field(part, "functionCall", "function_call").and_then(Value::as_object) {
            let name =
                call.get("name").and_then(Value::as_str).ok_or_else(|| at(".functionCall.name must be a string"))?;
            let name = name.to_string();
            message.tool_calls.push(ToolCall {
                id: call.get("id").and_then(Value::as_str).map_or_else(|| name.clone(), str::to_string),
                arguments: call.get("args").map_or_else(|| "{}".to_string(), Value::to_string),
                name,
            });
        } else if let Some(result) = field(part, "functionResponse", "function_response").and_then(Value::as_object) {
            let name = result
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| at(".functionResponse.name must be a string"))?;
            let name = name.to_string();
            let id = result.get("id").and_then(Value::as_str).map_or_else(|| name.clone(), str::to_string);
            let response = result.get("response").map_or_else(String::new, Value::to_string);
            results.push(Message { name: Some(name), ..Message::tool_result(id, response) });
        } else if let Some(data) = field(part, "inlineData", "inline_data").and_then(Value::as_object) {
            message.content.push(ContentPart::Image(Box::new(ImagePart {
                url: None,
                data: data.get("data").and_then(Value::as_str).map(str::to_string),
                media_type: field(data, "mimeType", "mime_type").and_then(Value::as_str).map(str::to_string),
                detail: None,
            })));
        } else if let Some(file) = field(part, "fileData", "file_data").and_then(Value::as_object) {
            message.content.push(ContentPart::Image(Box::new(ImagePart {
                url: field(file, "fileUri", "file_uri").and_then(Value::as_str).map(str::to_string),
                data: None,
                media_type: field(file, "mimeType", "mime_type").and_then(Value::as_str).map(str::to_string),
                detail: None,
            })));
        }
        // Other parts (executable code, a bare thought signature) carry nothing a test asserts on.
    }
    if !message.content.is_empty() || !message.tool_calls.is_empty() || message.thinking.is_some() || results.is_empty()
    {
        out.push(message);
    }
    out.extend(results);
    Ok(())
}

fn decode_tool_choice(top: &Object) -> Option<ToolChoice> {
    let config = field(top, "toolConfig", "tool_config")?.as_object()?;
    let calling = field(config, "functionCallingConfig", "function_calling_config")?.as_object()?;
    let allowed = field(calling, "allowedFunctionNames", "allowed_function_names").and_then(Value::as_array);
    match calling.get("mode").and_then(Value::as_str)?.to_ascii_uppercase().as_str() {
        "NONE" => Some(ToolChoice::None),
        "ANY" | "VALIDATED" => match allowed.map(Vec::as_slice) {
            Some([only]) => only.as_str().map(|name| ToolChoice::Tool { name: name.to_string() }),
            _ => Some(ToolChoice::Required),
        },
        _ => Some(ToolChoice::Auto),
    }
}

fn decode_response_format(config: &Object) -> Option<ResponseFormat> {
    let mime = field(config, "responseMimeType", "response_mime_type")?.as_str()?;
    if mime != "application/json" {
        return None;
    }
    let schema = field(config, "responseJsonSchema", "response_json_schema")
        .or_else(|| field(config, "responseSchema", "response_schema"));
    Some(match schema {
        Some(schema) => ResponseFormat::JsonSchema { name: None, schema: schema.clone(), strict: None },
        None => ResponseFormat::JsonObject,
    })
}

/// A request body the answer needs, or the 400 that says why it is not one (journaled as rejected).
fn body_or_refusal(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> Result<Value, HttpReply> {
    serde_json::from_slice::<Value>(&http.body).map_err(|e| {
        let message = format!("the request body is not valid JSON: {e}");
        let index =
            mock.reject(super::served_request("", matched.endpoint, Vec::new()), Some(raw(http)), message.clone());
        super::errors::cuecard_reply(
            Dialect::Gemini,
            400,
            crate::error::ErrorKind::InvalidRequest,
            &message,
            &request_id(index),
        )
    })
}

/// `:countTokens`: the word-like count of the contents' text (`docs/concepts/tokens.md`).
pub(crate) fn count_tokens(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let body = match body_or_refusal(mock, http, matched) {
        Ok(body) => body,
        Err(reply) => return reply,
    };
    let contents = body
        .get("contents")
        .or_else(|| body.get("generateContentRequest").and_then(|r| r.get("contents")))
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let texts: Vec<String> = contents.iter().map(|c| parts_text(c.get("parts").unwrap_or(&Value::Null))).collect();
    let total: usize = texts.iter().map(|t| crate::tokenize::count_tokens(t)).sum();
    let model = matched.model.as_deref().unwrap_or_default();
    let served = super::served_request(model, matched.endpoint, texts.into_iter().map(Message::user).collect());
    match super::scripted::counted(mock, http, served, total as u64, Dialect::Gemini) {
        Ok((index, total)) => served_reply(index, &json!({"totalTokens": total})),
        Err(reply) => reply,
    }
}

/// `:embedContent` (one content) and `:batchEmbedContents` (`requests[]`, answered in order): deterministic unit
/// vectors, the same as every other protocol's for the same text, model and seed.
pub(crate) fn embed(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let body = match body_or_refusal(mock, http, matched) {
        Ok(body) => body,
        Err(reply) => return reply,
    };
    let model = matched.model.clone().unwrap_or_default();
    let batch = body.get("requests").and_then(Value::as_array);
    let one = std::slice::from_ref(&body);
    let requests = batch.map_or(one, Vec::as_slice);
    let inputs: Vec<(String, usize)> = requests
        .iter()
        .map(|r| {
            let text = parts_text(r.get("content").and_then(|c| c.get("parts")).unwrap_or(&Value::Null));
            let dimensions = r
                .get("outputDimensionality")
                .or_else(|| r.get("output_dimensionality"))
                .and_then(Value::as_u64)
                .map_or(DEFAULT_DIMENSIONS, |d| d.clamp(1, 8192) as usize);
            (text, dimensions)
        })
        .collect();
    let index = mock.record_served(
        super::served_request(&model, matched.endpoint, inputs.iter().map(|(t, _)| Message::user(t.clone())).collect()),
        Some(raw(http)),
    );
    let seed = mock.seed();
    let vectors: Vec<Value> = inputs
        .iter()
        .map(|(text, dimensions)| {
            let values = crate::embed::embedding(seed, text, *dimensions);
            json!({"values": values.iter().map(|v| f64::from(*v)).collect::<Vec<f64>>()})
        })
        .collect();
    let body = match (batch, vectors.first()) {
        (None, Some(vector)) => json!({"embedding": vector}),
        _ => json!({"embeddings": vectors}),
    };
    served_reply(index, &body)
}

fn model_object(id: &str) -> Value {
    let id = id.strip_prefix("models/").unwrap_or(id);
    json!({
        "name": format!("models/{id}"), "version": "001", "displayName": id, "description": "A cuecard mock model",
        "inputTokenLimit": 1_048_576, "outputTokenLimit": 65_536,
        "supportedGenerationMethods": ["generateContent", "streamGenerateContent", "countTokens", "embedContent", "batchEmbedContents"],
        "temperature": 1, "topP": 0.95, "topK": 64, "maxTemperature": 2, "thinking": true,
    })
}

/// `GET /{v}/models`: every model a route matches on, plus `cuecard-mock`, on one page (no `nextPageToken`).
pub(crate) fn models(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let index = mock.record_served(super::served_request("", matched.endpoint, Vec::new()), Some(raw(http)));
    let mut ids = mock.route_models();
    ids.push(crate::clock::DEFAULT_MODEL.to_string());
    ids.dedup();
    let models: Vec<Value> = ids.iter().map(|id| model_object(id)).collect();
    served_reply(index, &json!({"models": models}))
}

/// `GET /{v}/models/{m}`: that model (any name is served, as the mock answers any model).
pub(crate) fn model(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let id = matched.model.as_deref().unwrap_or_default();
    let index = mock.record_served(super::served_request(id, matched.endpoint, Vec::new()), Some(raw(http)));
    served_reply(index, &model_object(id))
}
