//! OpenAI's legacy text completions, `POST /v1/completions` (`docs/concepts/wire.md`, "Legacy completions"), which
//! older code and some gateways still call.
//!
//! The prompt is the user's message (and `suffix`, when given, is journaled after it as a second user message). The
//! answer is the step's text: `{"object":"text_completion","choices":[{"text",...}]}` whole, or `text_completion`
//! chunks streamed (one per token, then a chunk with the finish reason, the usage chunk when
//! `stream_options.include_usage` asks for it, and `[DONE]`). The API has no tool calls or reasoning: a step's
//! thinking and tool calls are not sent (their time still passes), and such an answer finishes as `stop`.

use super::errors::{error_object, Dialect};
use super::json::{self, Object};
use super::{json_reply, sse_event, sse_json, stream_reply, ChatProtocol, DecodedRequest, Encoding, Frame, HttpReply};
use crate::delivery::{self, StreamFraming};
use crate::model::{ChatRequest, ChatResponse, Message, Usage};
use crate::script::StreamBreak;
use crate::stream::{Envelope, EventStream, StreamEvent, TimedEvent};
use serde_json::{json, Value};

pub(crate) struct OpenAiCompletions;

impl ChatProtocol for OpenAiCompletions {
    const DIALECT: Dialect = Dialect::OpenAi;
    /// SSE comments as keep-alives, as Chat Completions.
    const FRAMING: StreamFraming = StreamFraming::sse(Some(delivery::COMMENT_KEEPALIVE), true);

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        let model = json::required_str(top, "model", "request")?.to_string();
        let mut messages = vec![Message::user(prompt(top)?)];
        if let Some(suffix) = json::optional_str(top, "suffix", "request")? {
            messages.push(Message::user(suffix));
        }
        let stop = match top.get("stop") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(stop)) => vec![stop.clone()],
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                items.iter().filter_map(Value::as_str).map(str::to_string).collect()
            }
            Some(_) => return Err("request.stop must be a string or an array of strings".to_string()),
        };
        let include_usage =
            top.get("stream_options").and_then(|o| o.get("include_usage")).and_then(Value::as_bool).unwrap_or(false);
        let request = ChatRequest {
            model,
            messages,
            temperature: json::optional_f64(top, "temperature", "request")?,
            top_p: json::optional_f64(top, "top_p", "request")?,
            max_tokens: json::optional_u64(top, "max_tokens", "request")?,
            stop,
            seed: json::optional_i64(top, "seed", "request")?,
            stream: json::optional_bool(top, "stream", "request")?,
            ..ChatRequest::default()
        };
        Ok(DecodedRequest { include_usage, ..DecodedRequest::new(request) })
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        _: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        let text = response.message.text.as_deref().unwrap_or_default();
        let mut body = completion(envelope, text, Some(finish_reason(response.finish_reason)));
        body["usage"] = usage_json(&usage);
        json_reply(200, vec![("x-request-id".into(), request_id.to_owned().into())], &body)
    }

    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply {
        let include_usage = request.include_usage;
        let frames = super::frames::encoded(stream, move |stream| stream_encoding(stream, include_usage));
        stream_reply(stream, "x-request-id", request_id, frames)
    }
}

/// The finish reasons of Chat Completions but `tool_calls`, which this API cannot send.
fn finish_reason(reason: Option<crate::model::FinishReason>) -> &'static str {
    match super::openai_chat::finish_reason(reason) {
        "tool_calls" => "stop",
        other => other,
    }
}

/// `prompt`: a text, or a list of exactly one text. A list of several (one completion each) or of token ids is
/// refused: cuecard answers one prompt per request, from text.
fn prompt(top: &Object) -> Result<String, String> {
    match top.get("prompt") {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(text)) => Ok(text.clone()),
        Some(Value::Array(items)) => match items.as_slice() {
            [] => Ok(String::new()),
            [Value::String(text)] => Ok(text.clone()),
            [Value::String(_), ..] => Err(format!(
                "request.prompt has {} prompts; cuecard answers one prompt per request (send them one by one)",
                items.len()
            )),
            _ => Err("request.prompt as token ids is not supported; send the prompt as text".to_string()),
        },
        Some(_) => Err("request.prompt must be a string or an array of strings".to_string()),
    }
}

/// A `text_completion` (whole) or one of its chunks: the same envelope, one choice.
fn completion(envelope: &Envelope, text: &str, finish: Option<&str>) -> Value {
    let id = envelope.scripted_id.clone().unwrap_or_else(|| format!("cmpl-{}", envelope.number));
    json!({
        "id": id,
        "object": "text_completion",
        "created": envelope.created,
        "model": envelope.model,
        "system_fingerprint": "fp_cuecard",
        "choices": [{"text": text, "index": 0, "logprobs": null, "finish_reason": finish}],
    })
}

fn usage_json(usage: &Usage) -> Value {
    json!({"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens})
}

/// A stream's chunks: one per text token, the finishing chunk, the usage chunk when asked for, `[DONE]`.
fn stream_encoding(stream: &EventStream, include_usage: bool) -> Encoding {
    let envelope = stream.envelope().clone();
    let stream_break = stream.stream_break();
    let mut pending_delay = 0u64;
    let each = move |timed: &TimedEvent| -> Option<Frame> {
        pending_delay += timed.delay_ms;
        let data = match &timed.event {
            StreamEvent::TextDelta { text } => sse_json(None, &completion(&envelope, text, None)),
            StreamEvent::ThinkingDelta { .. } | StreamEvent::ToolCallDelta { .. } | StreamEvent::ToolCall { .. } => {
                return None
            }
            StreamEvent::Complete { response } => {
                let mut out = sse_json(None, &completion(&envelope, "", Some(finish_reason(response.finish_reason))));
                if let (true, Some(usage)) = (include_usage, &response.usage) {
                    let mut chunk = completion(&envelope, "", None);
                    chunk["choices"] = json!([]);
                    chunk["usage"] = usage_json(usage);
                    out.push_str(&sse_json(None, &chunk));
                }
                out.push_str(&sse_event(None, "[DONE]"));
                out
            }
            StreamEvent::Error { error } => match stream_break {
                StreamBreak::ErrorEvent => sse_json(None, &json!({"error": error_object(Dialect::OpenAi, error)})),
                StreamBreak::ConnectionCut | StreamBreak::CleanEnd => return None,
            },
        };
        Some(Frame { delay_ms: std::mem::take(&mut pending_delay), data })
    };
    Encoding { opening: Vec::new(), each: Box::new(each) }
}
