//! OpenAI's `GET /v1/models` and `POST /v1/embeddings`, and the deterministic embedding every protocol's embeddings
//! endpoint shares.

use super::errors::{cuecard_reply, Dialect};
use super::{raw, request_id, served_reply, HttpReply, HttpRequest};
use crate::error::ErrorKind;
use crate::mock::MockModel;
use crate::model::Message;
use base64::Engine;
use serde_json::{json, Value};

/// The model list: every model a route matches on, plus `cuecard-mock`.
pub(crate) fn models(mock: &MockModel, request: &HttpRequest) -> HttpReply {
    let served = super::served_request("", "models", Vec::new());
    let index = mock.record_served(served, Some(raw(request)));
    let mut ids = mock.route_models();
    ids.push(crate::clock::DEFAULT_MODEL.to_string());
    ids.dedup();
    let data: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "object": "model", "created": crate::clock::CLOCK_EPOCH_SECONDS, "owned_by": "cuecard"}))
        .collect();
    served_reply(index, &json!({"object": "list", "data": data}))
}

/// The most inputs one embeddings request may have (OpenAI's own limit).
pub const MAX_EMBEDDING_INPUTS: usize = 2048;

/// The most values (inputs x dimensions) one embeddings request is answered with: a reply of at most about 20 MB as
/// JSON floats (5.6 MB in base64), made in well under a second, so one request cannot stall the server.
pub const MAX_EMBEDDING_VALUES: usize = 1 << 20;

/// Deterministic embeddings: each input's vector is derived from its text, the model and the mock's seed, and
/// L2-normalised. `encoding_format: "base64"` (what the OpenAI SDKs send by default) gives little-endian f32.
pub(crate) fn embeddings(mock: &MockModel, request: &HttpRequest, matched: &super::routes::Matched) -> HttpReply {
    let parsed: Result<Value, String> =
        serde_json::from_slice(&request.body).map_err(|e| format!("the request body is not valid JSON: {e}"));
    let decoded = parsed.and_then(|body| {
        // Azure names the deployment in the path, and it is the model.
        let model = match &matched.model {
            Some(deployment) => deployment.clone(),
            None => body.get("model").and_then(Value::as_str).ok_or("request.model is required")?.to_string(),
        };
        let inputs: Vec<String> = match body.get("input") {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                items.iter().filter_map(Value::as_str).map(str::to_string).collect()
            }
            Some(Value::Array(items)) => items.iter().map(Value::to_string).collect(),
            _ => return Err("request.input must be a string or an array".to_string()),
        };
        let dimensions = match body.get("dimensions") {
            None | Some(Value::Null) => 1536,
            Some(v) => {
                v.as_u64().filter(|d| (1..=8192).contains(d)).ok_or("request.dimensions must be 1 to 8192")? as usize
            }
        };
        let base64 = body.get("encoding_format").and_then(Value::as_str) == Some("base64");
        if inputs.len() > MAX_EMBEDDING_INPUTS {
            return Err(format!(
                "request.input has {} items; at most {MAX_EMBEDDING_INPUTS} are allowed",
                inputs.len()
            ));
        }
        let values = inputs.len().saturating_mul(dimensions);
        if values > MAX_EMBEDDING_VALUES {
            return Err(format!(
                "the request asks for {} inputs x {dimensions} dimensions = {values} values; cuecard answers at most \
                 {MAX_EMBEDDING_VALUES} per request (send fewer inputs or fewer dimensions)",
                inputs.len()
            ));
        }
        Ok((model, inputs, dimensions, base64))
    });
    let (model, inputs, dimensions, base64) = match decoded {
        Ok(d) => d,
        Err(message) => {
            let index =
                mock.reject(super::served_request("", "embeddings", Vec::new()), Some(raw(request)), message.clone());
            return cuecard_reply(Dialect::OpenAi, 400, ErrorKind::InvalidRequest, &message, &request_id(index));
        }
    };
    let served = super::served_request(&model, "embeddings", inputs.iter().map(|i| Message::user(i.clone())).collect());
    let index = mock.record_served(served, Some(raw(request)));
    let seed = mock.seed();
    let mut tokens = 0usize;
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, input)| {
            tokens += crate::tokenize::count_tokens(input);
            let vector = crate::embed::embedding(seed, input, dimensions);
            let embedding = if base64 {
                let bytes: Vec<u8> = vector.iter().flat_map(|v| v.to_le_bytes()).collect();
                Value::from(base64::engine::general_purpose::STANDARD.encode(bytes))
            } else {
                Value::from(vector.iter().map(|v| f64::from(*v)).collect::<Vec<f64>>())
            };
            json!({"object": "embedding", "index": index, "embedding": embedding})
        })
        .collect();
    let body = json!({"object": "list", "data": data, "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens}});
    served_reply(index, &body)
}
