//! OpenAI's images (`docs/concepts/wire.md`, "Images"): `POST /v1/images/generations` (JSON), `/v1/images/edits`
//! and `/v1/images/variations` (forms with the images).
//!
//! Each image is a valid PNG of the requested size drawn from a seed (`media::image`): the prompt's digest, the
//! scenario's seed and the image's position, or the step's text when a route names the endpoint (`images`), which is also sent as the
//! `revised_prompt`. `b64_json` or, with `response_format: url`, a `data:image/png;base64,...` URL (cuecard keeps
//! no files to link to). Images are always PNG; `output_format` is answered as `png`.

use super::errors::Dialect;
use super::json;
use super::multipart::{self, Part};
use super::protocol::MediaOptions;
use super::routes::Matched;
use super::scripted::{scripted_when_named, Unscripted};
use super::{json_reply, ChatProtocol, DecodedRequest, HttpReply, HttpRequest};
use crate::delivery::{BodyKind, StreamFraming};
use crate::media::image;
use crate::mock::pending::Turn;
use crate::mock::MockModel;
use crate::model::{ChatRequest, ChatResponse, ContentPart, FilePart, Message, Usage};
use crate::stream::{Envelope, EventStream};
use serde_json::{json, Map, Value};

/// `POST /v1/images/generations`.
pub(crate) struct OpenAiImages;

/// `POST /v1/images/edits` and `/v1/images/variations`: the same answer from a form.
pub(crate) struct OpenAiImageEdits;

/// The most images one request asks for (the API's limit).
const MAX_IMAGES: u32 = 10;

pub(crate) fn generations(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> Turn<HttpReply> {
    scripted_when_named::<OpenAiImages>(mock, http, matched, Unscripted::always(unscripted))
}

pub(crate) fn edits(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> Turn<HttpReply> {
    scripted_when_named::<OpenAiImageEdits>(mock, http, matched, Unscripted::always(unscripted))
}

impl ChatProtocol for OpenAiImages {
    const DIALECT: Dialect = Dialect::OpenAi;
    const FRAMING: StreamFraming = StreamFraming::only(BodyKind::Sse);

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        let field = |name: &str| -> Result<Option<String>, String> {
            match top.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Number(n)) => Ok(Some(n.to_string())),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(format!("request.{name} must be a string, found {}", json::kind(other))),
            }
        };
        if json::optional_bool(top, "stream", "request")? {
            return Err("request.stream: cuecard does not stream images (partial images); ask without it".to_string());
        }
        let prompt = json::required_str(top, "prompt", "request")?;
        decoded(&field, vec![Message::user(prompt)])
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        images_reply(response.text(), true, envelope.created, usage, request, request_id)
    }

    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply {
        let text = stream.response().map(ChatResponse::text).unwrap_or_default();
        images_reply(text, true, stream.envelope().created, Usage::default(), request, request_id)
    }
}

impl ChatProtocol for OpenAiImageEdits {
    const DIALECT: Dialect = Dialect::OpenAi;
    const FRAMING: StreamFraming = StreamFraming::only(BodyKind::Sse);
    const FORM: bool = true;

    fn decode(_: &Value) -> Result<DecodedRequest, String> {
        Err("an image edit is a multipart/form-data upload".to_string())
    }

    fn decode_form(parts: &[Part<'_>]) -> Result<DecodedRequest, String> {
        let field = |name: &str| multipart::field(parts, name).map(|p| p.text().map(str::to_string)).transpose();
        let mut content = Vec::new();
        if let Some(prompt) = field("prompt")? {
            content.push(json::text_part(&prompt));
        }
        let images = parts.iter().filter(|p| matches!(p.name.as_str(), "image" | "image[]" | "mask"));
        for part in images {
            if image::png_size(part.body).is_none() && part.content_type.as_deref() == Some("image/png") {
                return Err(format!("the form's {} is not a PNG", part.name));
            }
            content.push(ContentPart::File(Box::new(FilePart {
                filename: part.filename.clone(),
                media_type: part.content_type.clone(),
                ..FilePart::default()
            })));
        }
        if !content.iter().any(|p| matches!(p, ContentPart::File(_))) {
            return Err("the form has no image".to_string());
        }
        if field("stream")?.as_deref() == Some("true") {
            return Err("stream: cuecard does not stream images (partial images); ask without it".to_string());
        }
        decoded(&field, vec![Message { content, ..Message::user("") }])
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        envelope: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        OpenAiImages::encode_response(response, usage, envelope, request, request_id)
    }

    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply {
        OpenAiImages::encode_stream(stream, request, request_id)
    }
}

/// The options both forms share: model, n, size and the response format.
fn decoded(
    field: &dyn Fn(&str) -> Result<Option<String>, String>,
    messages: Vec<Message>,
) -> Result<DecodedRequest, String> {
    let model = field("model")?.unwrap_or_else(|| "dall-e-2".to_string());
    let count = match field("n")? {
        None => 1,
        Some(n) => n
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_IMAGES).contains(n))
            .ok_or_else(|| format!("n {n} is not a whole number from 1 to {MAX_IMAGES}"))?,
    };
    let size = field("size")?.unwrap_or_else(|| "auto".to_string());
    let (width, height) = match size.as_str() {
        "auto" => (1024, 1024),
        other => other
            .split_once('x')
            .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
            .filter(|(w, h)| (1..=image::MAX_SIDE).contains(w) && (1..=image::MAX_SIDE).contains(h))
            .ok_or_else(|| {
                format!("size {other:?} is not auto or WIDTHxHEIGHT with sides from 1 to {}", image::MAX_SIDE)
            })?,
    };
    // The GPT image models always answer base64; DALL·E answers a URL unless asked for base64.
    let format = match field("response_format")? {
        Some(format) if format == "url" || format == "b64_json" => format,
        Some(other) => return Err(format!("response_format {other:?} is not url or b64_json")),
        None if model.starts_with("dall-e") => "url".to_string(),
        None => "b64_json".to_string(),
    };
    let request = ChatRequest { model, messages, ..ChatRequest::default() };
    let media = MediaOptions { format, count, width, height, ..MediaOptions::default() };
    Ok(DecodedRequest { media: Some(Box::new(media)), ..DecodedRequest::new(request) })
}

fn unscripted(request: &DecodedRequest, index: u64) -> HttpReply {
    let prompt = request.request.messages.last().map(Message::text).unwrap_or_default();
    let usage = Usage::new(crate::tokenize::count_tokens(&prompt) as u64, 0);
    let request_id = super::request_id(index);
    images_reply(&prompt, false, crate::clock::CLOCK_EPOCH_SECONDS, usage, request, &request_id)
}

/// The images of `text` (the prompt, or the step's text, sent back as the revised prompt when `scripted`).
fn images_reply(
    text: &str,
    scripted: bool,
    created: u64,
    usage: Usage,
    request: &DecodedRequest,
    request_id: &str,
) -> HttpReply {
    let media = request.media.as_deref().cloned().unwrap_or_default();
    let seed = crate::seeded::fnv1a64(text.bytes()) ^ media.seed;
    let data: Vec<Value> = (0..media.count.max(1))
        .map(|i| {
            let png =
                image::png(media.width, media.height, crate::seeded::request_seed(seed, 0x696d_6167, u64::from(i)));
            let encoded = {
                use base64::Engine;
                base64::engine::general_purpose::STANDARD.encode(png)
            };
            let mut item = Map::new();
            if media.format == "url" {
                item.insert("url".into(), Value::from(format!("data:image/png;base64,{encoded}")));
            } else {
                item.insert("b64_json".into(), Value::from(encoded));
            }
            if scripted {
                item.insert("revised_prompt".into(), Value::from(text));
            }
            Value::Object(item)
        })
        .collect();
    let mut body = json!({"created": created, "data": data});
    if request.request.model.starts_with("gpt-image") {
        let output = 272 * u64::from(media.count.max(1)); // a low-quality square's image tokens
        body["output_format"] = json!("png");
        body["size"] = json!(format!("{}x{}", media.width, media.height));
        body["usage"] = json!({"input_tokens": usage.input_tokens, "output_tokens": output,
            "total_tokens": usage.input_tokens + output,
            "input_tokens_details": {"text_tokens": usage.input_tokens, "image_tokens": 0}});
    }
    json_reply(200, vec![("x-request-id".into(), request_id.to_owned().into())], &body)
}
