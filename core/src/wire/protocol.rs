//! What a chat protocol is to the dispatcher: [`ChatProtocol`] (decode a request, encode a response, a stream and
//! an error) and the [`DecodedRequest`] its answer is shaped by.

use super::*;
use crate::model::ChatRequest;
use crate::stream::{Envelope, EventStream};
use std::sync::Arc;

/// A protocol that answers chat requests.
pub(crate) trait ChatProtocol {
    const DIALECT: Dialect;
    /// How its streams are framed and what its clients accept (what `delivery` may do to them).
    const FRAMING: crate::delivery::StreamFraming;
    /// The request JSON as a neutral request, or a message saying what is wrong.
    fn decode(body: &serde_json::Value) -> Result<DecodedRequest, String>;
    /// The request read straight from the body when it has the protocol's common shape, past the
    /// `serde_json::Value` tree; `None` leaves it to `decode`, whose request it must equal where it answers.
    fn decode_common(_body: &str) -> Option<DecodedRequest> {
        None
    }
    /// A whole response. `usage` is what the reply reports (the script's, else the estimate): the response's own
    /// `usage` is not read, as the response is the journal's, which keeps the mock's setting.
    fn encode_response(
        response: &crate::model::ChatResponse,
        usage: crate::model::Usage,
        envelope: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply;
    /// A stream.
    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply;
}

/// A decoded request and the protocol options that shape the answer.
pub(crate) struct DecodedRequest {
    /// Shared with the journal once decoded: the engine keeps this very request, with no copy.
    pub request: Arc<ChatRequest>,
    /// OpenAI Chat `stream_options.include_usage`.
    pub include_usage: bool,
    /// Gemini's `thinkingConfig.includeThoughts`: thinking is sent as thought parts only when asked for.
    pub include_thoughts: bool,
    /// Where Chat Completions sends scripted thinking (the mock's `reasoning_field` setting; `chat` sets it).
    pub reasoning_field: crate::script::ReasoningField,
    /// Responses' `store` (true unless the request says `false`), echoed in the reply as the API echoes it.
    pub store: bool,
    /// Responses' `previous_response_id`, echoed in the reply.
    pub previous_response_id: Option<String>,
}

impl DecodedRequest {
    /// A request with no protocol option set; a decoder sets those its protocol has.
    pub(crate) fn new(request: ChatRequest) -> DecodedRequest {
        DecodedRequest {
            request: Arc::new(request),
            include_usage: false,
            include_thoughts: false,
            reasoning_field: crate::script::ReasoningField::None,
            store: true,
            previous_response_id: None,
        }
    }
}
