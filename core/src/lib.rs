//! cuecard: a deterministic stand-in for an LLM in tests.
//!
//! A test scripts what "the model" answers, step by step; the code under test runs against it; the test then
//! asserts what was sent and how the code behaved. This crate is the one engine behind every binding.
//!
//! ```
//! use cuecard::{ChatRequest, MockModel, ProviderError, StreamEvent};
//!
//! let mock = MockModel::builder()
//!     .fails(ProviderError::rate_limited().with_retry_after_ms(20))
//!     .responds("Hello, world!")
//!     .build()?;
//! let request = ChatRequest::user("gpt-4o", "Say hello").with_operation("greet");
//!
//! let error = mock.chat(&request).unwrap_err();
//! assert_eq!(error.provider().map(|e| e.status), Some(Some(429)));
//!
//! let stream = mock.chat_stream(&request)?;
//! assert_eq!(stream.text_tokens(), ["Hello", ",", " world", "!"]);
//! assert!(matches!(stream.iter().last(), Some(StreamEvent::Complete { .. })));
//!
//! cuecard::verify::expect_that(&mock).when_called("greet").was_called_times(2).and_retried(1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing))]

// The A2A agents; the WebAssembly module has a stub that refuses them by name (see `a2a/absent.rs`).
#[cfg_attr(target_arch = "wasm32", path = "a2a/absent.rs")]
pub mod a2a;
mod answer;
pub mod api;
pub mod chaos;
pub mod clock;
mod contracts;
mod delivery;
pub mod embed;
mod error;
pub mod faults;
pub mod generate;
mod http;
pub mod input;
// Pure (no I/O): the server routes by it, and so does the Go package's loopback server through the face.
pub mod isolation;
pub mod journal;
pub mod latency;
pub mod mcp;
pub mod media;
pub mod memory;
mod mock;
pub mod model;
pub mod observe;
mod provider_error;
pub mod rate_limits;
#[cfg(feature = "record")]
pub mod record;
pub use script::recorded;
pub mod request_match;
#[cfg(not(target_arch = "wasm32"))]
mod route_index;
pub mod scenario;
mod script;
mod seeded;
mod segments;
#[cfg(feature = "server")]
pub mod server;
pub mod stream;
#[cfg(feature = "otlp")]
pub mod telemetry;
pub mod tokenize;
pub mod tools;
pub mod usage;
pub mod verify;
pub mod wire;

pub use answer::{Answer, Chunks, ScriptedToolCall};
pub use clock::{CLOCK_EPOCH_SECONDS, DEFAULT_MODEL, DEFAULT_PROVIDER_ID, VERSION};
pub use error::{Error, ErrorKind, Issue, Result};
pub use journal::{EntryTicket, IntoJournaled, JournalEntry, Outcome, RawRequest};
pub use memory::MockMemory;
/// A computed step's continuation (the bindings call it pending): the old path of [`Pending`] and [`Turn`].
pub use mock::pending as turn;
pub use mock::pending::{Pending, Turn};
pub use mock::{Exchange, MockBuilder, MockModel, StreamResult, Timed, UnusedStep};
pub use model::{
    AssistantMessage, AudioPart, ChatRequest, ChatResponse, ContentPart, FilePart, FinishReason, ImagePart, Message,
    RequestMetadata, ResponseFormat, Role, ToolCall, ToolChoice, ToolDefinition, Usage,
};
pub use observe::{CallContext, CallRecord, FailureInfo, Observation, ObservationEvent, Observer, RecordingObserver};
pub use provider_error::{ProviderError, ProviderErrorKind};
pub use scenario::Scenario;
pub use script::spec::{FailSpec, MatchSpec, RouteSpec, StepInput, StepSpec, ToolCallSpec};
pub use script::{
    CallError, Exhaustion, HostError, MockSettings, ReasoningField, RequestPredicate, Responder, Route, RouteMatch,
    Script, Step, StepBody, StepTiming, StreamBreak, Timing,
};
#[cfg(feature = "server")]
pub use server::{Server, ServerOptions, DEFAULT_IDLE_TIMEOUT_MS};
pub use stream::{Envelope, EventStream, Events, StreamEvent, TimedEvent};
pub use tokenize::{count_tokens, tokenize};
pub use tools::{MockTool, MockToolOptions};
pub use usage::UsagePolicy;
