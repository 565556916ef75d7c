//! The endpoints beside chat that a script may answer (moderations, images, speech, transcriptions): a request
//! takes the next step of a route only when a route's match names its endpoint (`match: {endpoint: moderations}`),
//! so a script of chat steps is not consumed by them. Otherwise it gets the endpoint's own answer, made from the
//! request alone (not flagged; an image drawn from the prompt; the input spoken; ...), journaled as served.

use super::errors::cuecard_reply;
use super::routes::Matched;
use super::{chat_with, decode_with, raw, request_id, ChatProtocol, DecodedRequest, HttpReply, HttpRequest};
use crate::error::ErrorKind;
use crate::mock::pending::Turn;
use crate::mock::MockModel;
use std::sync::Arc;

/// How an endpoint answers without the script: whether it can (what is missing, when not), and its answer to the
/// request journaled at an index.
pub(super) struct Unscripted {
    pub can_answer: fn(&DecodedRequest) -> Result<(), String>,
    pub answer: fn(&DecodedRequest, u64) -> HttpReply,
}

impl Unscripted {
    /// An endpoint that answers every well-formed request without the script.
    pub(super) const fn always(answer: fn(&DecodedRequest, u64) -> HttpReply) -> Unscripted {
        Unscripted { can_answer: |_| Ok(()), answer }
    }
}

/// Answers from the script when a route names the endpoint, else as `unscripted` says.
pub(super) fn scripted_when_named<P: ChatProtocol>(
    mock: &MockModel,
    http: &HttpRequest,
    matched: &Matched,
    unscripted: Unscripted,
) -> Turn<HttpReply> {
    scripted_with(P::CODEC, mock, http, matched, unscripted)
}

fn scripted_with(
    codec: super::protocol::Codec,
    mock: &MockModel,
    http: &HttpRequest,
    matched: &Matched,
    unscripted: Unscripted,
) -> Turn<HttpReply> {
    if mock.routes_name_endpoint(matched.endpoint) {
        return chat_with(codec, mock, http, matched);
    }
    let decoded = decode_with(codec, http, matched).and_then(|decoded| {
        (unscripted.can_answer)(&decoded)?;
        Ok(decoded)
    });
    match decoded {
        Ok(mut decoded) => {
            if let Some(media) = decoded.media.as_mut() {
                media.seed = mock.seed();
            }
            let index = mock.record_served(Arc::unwrap_or_clone(Arc::clone(&decoded.request)), Some(raw(http)));
            Turn::Done((unscripted.answer)(&decoded, index))
        }
        Err(message) => {
            let refused = super::served_request("", matched.endpoint, Vec::new());
            let index = mock.reject(refused, Some(raw(http)), message.clone());
            Turn::Done(cuecard_reply(codec.dialect, 400, ErrorKind::InvalidRequest, &message, &request_id(index)))
        }
    }
}

/// A token count (`anthropic_count_tokens`, `gemini_count_tokens`): `estimate`, or, when a route names the
/// endpoint, its step's `usage.input_tokens` (the estimate when the step gives none); a failing step is answered
/// with that failure. Journals `request` once; the count comes with its journal index.
pub(super) fn counted(
    mock: &MockModel,
    http: &HttpRequest,
    request: crate::model::ChatRequest,
    estimate: u64,
    dialect: super::Dialect,
) -> Result<(u64, u64), HttpReply> {
    if !mock.routes_name_endpoint(request.metadata.endpoint.as_deref().unwrap_or_default()) {
        return Ok((mock.record_served(request, Some(raw(http))), estimate));
    }
    let exchange = mock.chat_timed_raw(request, Some(raw(http)));
    let id = request_id(exchange.index);
    match exchange.result {
        Ok(response) => Ok((exchange.index, response.usage.map_or(estimate, |usage| usage.input_tokens))),
        Err(crate::script::CallError::Provider(error)) => {
            Err(super::errors::error_reply(dialect, &error, &id, exchange.delay_ms))
        }
        Err(error) => Err(super::chat::call_error_reply(dialect, &error, &id, exchange.delay_ms)),
    }
}
