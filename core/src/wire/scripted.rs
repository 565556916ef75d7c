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
        Ok(decoded) => {
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
