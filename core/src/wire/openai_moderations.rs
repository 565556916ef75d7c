//! OpenAI's moderations, `POST /v1/moderations` (`docs/concepts/wire.md`, "Moderations").
//!
//! The input (a text, a list of texts, or a list of text and image parts) is journaled as user messages, one per
//! result the API gives: one per text of a list, one for a list of parts. Not flagged unless the script says so: a
//! route whose match names the endpoint `moderations` answers with its steps, and a step's `flagged` verdict (the
//! categories, or scores by category) flags every input of the request (`wire::scripted`).

use super::errors::Dialect;
use super::json::{self, Object};
use super::{json_reply, ChatProtocol, DecodedRequest, HttpReply};
use crate::delivery::{BodyKind, StreamFraming};
use crate::model::{ChatRequest, ChatResponse, ContentPart, FinishReason, ImagePart, Message, Usage};
use crate::script::spec::MODERATION_CATEGORIES;
use crate::stream::{Envelope, EventStream};
use serde_json::{json, Map, Value};

pub(crate) struct OpenAiModerations;

/// The model a request without one is answered as (the API's default).
const DEFAULT_MODEL: &str = "omni-moderation-latest";

/// The categories OpenAI also scores on images.
const IMAGE_CATEGORIES: [&str; 6] =
    ["self-harm", "self-harm/intent", "self-harm/instructions", "sexual", "violence", "violence/graphic"];

/// A score from this up flags its category (a verdict given as scores).
const FLAGGED_FROM: f64 = 0.5;

impl ChatProtocol for OpenAiModerations {
    const DIALECT: Dialect = Dialect::OpenAi;
    const FRAMING: StreamFraming = StreamFraming::only(BodyKind::Sse);

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        let model = json::optional_str(top, "model", "request")?.unwrap_or_else(|| DEFAULT_MODEL.to_string());
        let messages = match top.get("input") {
            Some(Value::String(text)) => vec![Message::user(text.as_str())],
            Some(Value::Array(items)) if !items.is_empty() && items.iter().all(Value::is_string) => {
                items.iter().filter_map(Value::as_str).map(Message::user).collect()
            }
            Some(Value::Array(parts)) if !parts.is_empty() => vec![parts_message(parts)?],
            _ => return Err("request.input must be a string, an array of strings, or an array of parts".to_string()),
        };
        Ok(DecodedRequest::new(ChatRequest { model, messages, ..ChatRequest::default() }))
    }

    fn encode_response(
        response: &ChatResponse,
        _: Usage,
        envelope: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        let body = moderation(&envelope.id("modr-"), &envelope.model, &request.request, Some(response));
        json_reply(200, vec![("x-request-id".into(), request_id.to_owned().into())], &body)
    }

    /// Moderations never stream (the decoder never asks for it); a stream's response is sent whole.
    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply {
        let envelope = stream.envelope();
        let body = moderation(&envelope.id("modr-"), &envelope.model, &request.request, stream.response());
        json_reply(200, vec![("x-request-id".into(), request_id.to_owned().into())], &body)
    }
}

/// The row's answer: from the script when a route names `moderations`, else nothing flagged.
pub(crate) fn answer(
    mock: &crate::mock::MockModel,
    http: &super::HttpRequest,
    matched: &super::routes::Matched,
) -> crate::mock::pending::Turn<HttpReply> {
    use super::scripted::{scripted_when_named, Unscripted};
    scripted_when_named::<OpenAiModerations>(mock, http, matched, Unscripted::always(unscripted))
}

/// The answer to a request no route names the endpoint for: nothing flagged.
fn unscripted(request: &DecodedRequest, index: u64) -> HttpReply {
    let id = crate::stream::numbered_id("modr-", index + 1);
    super::served_reply(index, &moderation(&id, &request.request.model, &request.request, None))
}

/// A list of `{type: text}` and `{type: image_url}` parts as one user message.
fn parts_message(parts: &[Value]) -> Result<Message, String> {
    let mut content = Vec::with_capacity(parts.len());
    for (i, part) in parts.iter().enumerate() {
        let what = format!("request.input[{i}]");
        let object: &Object = json::object(part, &what)?;
        match json::required_str(object, "type", &what)? {
            "text" => content.push(json::text_part(json::required_str(object, "text", &what)?)),
            "image_url" => {
                let url = object.get("image_url").and_then(|i| i.get("url")).and_then(Value::as_str);
                let url = url.ok_or_else(|| format!("{what}.image_url.url is required"))?;
                content.push(ContentPart::Image(Box::new(ImagePart {
                    url: Some(url.to_string()),
                    data: None,
                    media_type: None,
                    detail: None,
                })));
            }
            other => return Err(format!("{what}.type {other:?} is not text or image_url")),
        }
    }
    Ok(Message { content, ..Message::user("") })
}

/// The scores a step's verdict gives (`flagged`: its text is the scores as a JSON object, finishing
/// `content_filter`); none for any other answer.
fn verdict(response: Option<&ChatResponse>) -> Map<String, Value> {
    response
        .filter(|r| r.finish_reason == Some(FinishReason::ContentFilter))
        .and_then(|r| serde_json::from_str::<Value>(r.text()).ok())
        .and_then(|scores| match scores {
            Value::Object(scores) => Some(scores),
            _ => None,
        })
        .unwrap_or_default()
}

/// The moderation object: one result per journaled input, each with every category.
fn moderation(id: &str, model: &str, request: &ChatRequest, response: Option<&ChatResponse>) -> Value {
    let scores = verdict(response);
    let results: Vec<Value> = request
        .messages
        .iter()
        .map(|input| {
            let has_image = input.content.iter().any(|p| matches!(p, ContentPart::Image(_)));
            let mut categories = Map::new();
            let mut category_scores = Map::new();
            let mut applied = Map::new();
            for name in MODERATION_CATEGORIES {
                let score = scores.get(name).and_then(Value::as_f64).unwrap_or(0.0);
                categories.insert(name.to_string(), Value::Bool(score >= FLAGGED_FROM));
                category_scores.insert(name.to_string(), json!(score));
                let mut types = vec!["text"];
                if has_image && IMAGE_CATEGORIES.contains(&name) {
                    types.push("image");
                }
                applied.insert(name.to_string(), json!(types));
            }
            let flagged = categories.values().any(|v| v == &Value::Bool(true));
            json!({"flagged": flagged, "categories": categories, "category_scores": category_scores,
                "category_applied_input_types": applied})
        })
        .collect();
    json!({"id": id, "model": model, "results": results})
}
