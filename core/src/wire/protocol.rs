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
    /// Whether the body is a `multipart/form-data` upload (transcriptions, image edits), read by `decode_form`
    /// instead of `decode`.
    const FORM: bool = false;
    /// A form body's parts as a neutral request (only when `FORM`).
    fn decode_form(_parts: &[super::multipart::Part<'_>]) -> Result<DecodedRequest, String> {
        Err("this endpoint takes a JSON body".to_string())
    }
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
    /// A failure before anything was streamed, on a request that asked for a stream, when the protocol sends it as a
    /// stream (Gemini streams a safety block as a blocked candidate); `None` sends the failure's HTTP error.
    fn encode_failed_stream(_stream: &EventStream, _request_id: &str) -> Option<HttpReply> {
        None
    }
    /// The protocol as a table of its functions, which `wire::chat` takes.
    const CODEC: Codec = Codec {
        dialect: Self::DIALECT,
        framing: Self::FRAMING,
        form: Self::FORM,
        decode_common: Self::decode_common,
        decode: Self::decode,
        decode_form: Self::decode_form,
        encode_response: Self::encode_response,
        encode_stream: Self::encode_stream,
        encode_failed_stream: Self::encode_failed_stream,
    };
}

/// A chat protocol's functions as a table. `wire::chat` and the decoders take it, so their code exists once for
/// every protocol: generic over the protocol, they were copied per protocol (fourteen copies of the dispatcher's
/// largest functions), and the copies were a good part of the WASM module's size.
#[derive(Clone, Copy)]
pub(crate) struct Codec {
    pub dialect: Dialect,
    pub framing: crate::delivery::StreamFraming,
    pub form: bool,
    pub decode_common: fn(&str) -> Option<DecodedRequest>,
    pub decode: fn(&serde_json::Value) -> Result<DecodedRequest, String>,
    pub decode_form: fn(&[super::multipart::Part<'_>]) -> Result<DecodedRequest, String>,
    pub encode_response:
        fn(&crate::model::ChatResponse, crate::model::Usage, &Envelope, &DecodedRequest, &str) -> HttpReply,
    pub encode_stream: fn(&EventStream, &DecodedRequest, &str) -> HttpReply,
    pub encode_failed_stream: fn(&EventStream, &str) -> Option<HttpReply>,
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
    /// What a media endpoint (speech, transcription, images) was asked to answer with.
    pub media: Option<Box<MediaOptions>>,
    /// Responses' `background`: answered `queued`, then retrieved (`GET /v1/responses/{id}`) until completed.
    pub background: bool,
}

/// A media endpoint's options: what its answer is made of beside the step.
#[derive(Clone, Debug, Default)]
pub(crate) struct MediaOptions {
    /// The reply's format: speech's `mp3`, `wav`, ...; a transcription's `json`, `text`, `srt`, `vtt`,
    /// `verbose_json`; images' `b64_json` or `url`.
    pub format: String,
    /// A transcription's `timestamp_granularities` include `word`.
    pub words: bool,
    /// A transcription's audio, when cuecard made it: the text it speaks (what an unscripted transcription answers).
    pub spoken: Option<String>,
    /// The scenario's seed (images are drawn from it and the prompt).
    pub seed: u64,
    /// Images: how many, and their size.
    pub count: u32,
    pub width: u32,
    pub height: u32,
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
            media: None,
            background: false,
        }
    }
}
