//! The wire protocols as pure functions: an HTTP request in, the provider's exact HTTP reply out.
//!
//! No I/O happens here, so the same code answers the loopback server, the bindings' in-process transports
//! (Python `httpx`, a JS `fetch`) and the WASM build. A reply says what to send and when: the status and
//! headers, then either a whole body or stream frames (SSE, or NDJSON for Ollama), each with the virtual delay to
//! wait before it.
//!
//! Protocols (`docs/concepts/wire.md`): OpenAI Chat Completions and Responses, Anthropic Messages, Azure OpenAI, Google
//! Gemini (and Vertex AI's paths), Ollama, OpenAI's models and embeddings, each a module here; `routes.rs` is the
//! table of which path is which (`handle` dispatches from it), `admin.rs` the surface under `/_cuecard/`. The
//! operation name of a request comes from the `x-cuecard-operation` header.

// The encoders build JSON objects with `json!` and then set fields with `value["key"] = …`; serde_json's
// IndexMut on an object (or null) inserts and cannot panic, which is the only way it is used here.
#![allow(clippy::indexing_slicing)]

mod admin;
mod anthropic;
mod batches;
mod bedrock;
mod chat;
mod cohere;
mod errors;
mod escape;
pub mod eventstream;
pub(crate) mod frames;
mod gemini;
mod handle;
mod json;
mod multipart;
mod ollama;
mod openai_audio;
mod openai_chat;
mod openai_completions;
mod openai_images;
mod openai_moderations;
mod openai_responses;
mod protocol;
mod reply;
mod routes;
mod scripted;
mod served;
// The realtime sockets; the WebAssembly module has a stub that refuses them by name (see `sockets/absent.rs`).
#[cfg_attr(target_arch = "wasm32", path = "sockets/absent.rs")]
pub mod sockets;

#[cfg(feature = "record")]
pub(crate) use routes::percent_decode;
pub use routes::{endpoint_rows, EndpointRow};

pub use crate::http::{
    Frame, FrameIter, Frames, HttpReply, HttpRequest, ReplyHeader, SocketEnd, StreamEnd, MAX_BODY_BYTES,
};
pub(crate) use frames::Encoding;

// The admin refusals are for the per-test surface (`isolation`: the server's, and the Go package's server's).
pub use crate::contracts::{ContractMode, Contracts, Violation, RULES as CONTRACT_RULES};
pub use crate::delivery::{
    Delivery, LineEnding, Split, Variation, MAX_CHUNK_BYTES, SEED_HEADER as DELIVERY_SEED_HEADER,
};
pub use crate::script::recorded::is_answer_endpoint;
pub(crate) use admin::{admin_error, foreign_admin_request};
pub use admin::{is_whole_journal_read, journal_document, write_journal_document};
use chat::*;
pub use errors::{error_reply, Dialect};
pub(crate) use handle::serves;
pub use handle::{
    admin_token_refusal, decode_request, handle, handle_turn, is_admin_path, may_take_long, unreadable_body_reply,
};
pub(crate) use protocol::{ChatProtocol, Codec, DecodedRequest};
pub(crate) use reply::*;

/// Header naming the operation of a request (the main routing key).
pub const OPERATION_HEADER: &str = "x-cuecard-operation";

/// The request headers the wire layer reads (lower case); transports may pass only these.
/// `origin` and `host` are read for the admin surface, which refuses web pages (`admin::foreign_admin_request`).
/// `x-goog-api-client` and `x-goog-api-key` tell a Google SDK's `GET /v1/models` from OpenAI's (`routes`).
/// `x-cuecard-batch` marks a batch's line (`batches`).
pub const READ_HEADERS: [&str; 13] = [
    OPERATION_HEADER,
    "anthropic-version",
    "content-type",
    "origin",
    "host",
    "x-goog-api-client",
    "x-goog-api-key",
    batches::BATCH_HEADER,
    // A socket: the upgrade, the subprotocols a client offers, and the face's socket headers (`sockets`).
    "upgrade",
    "sec-websocket-protocol",
    sockets::SOCKET_HEADER,
    sockets::CLOSED_HEADER,
    sockets::DELIVERED_HEADER,
];

#[cfg(test)]
mod tests;
