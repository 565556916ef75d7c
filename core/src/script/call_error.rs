//! What a call can fail with besides a provider error: a host callback's own error ([`HostError`]), carried
//! through unchanged, or cuecard's ([`CallError`]).

use crate::error::{Error, ErrorKind};
use crate::provider_error::ProviderError;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// An error raised by a host callback (a Python exception, a JS error, ...), carried through the core unchanged
/// so the binding can re-raise the very same object.
#[derive(Clone)]
pub struct HostError {
    message: String,
    payload: Arc<dyn Any + Send + Sync>,
}

impl HostError {
    /// Wraps a host error object with a message for Rust-side display.
    pub fn new(message: impl Into<String>, payload: Arc<dyn Any + Send + Sync>) -> HostError {
        HostError { message: message.into(), payload }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The host's error object.
    pub fn payload(&self) -> &Arc<dyn Any + Send + Sync> {
        &self.payload
    }
}

impl fmt::Debug for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostError").field("message", &self.message).finish_non_exhaustive()
    }
}

/// Why a call to the mock did not produce a response.
#[derive(Clone, Debug, thiserror::Error)]
pub enum CallError {
    /// The script says the provider fails this way.
    #[error("{0}")]
    Provider(ProviderError),
    /// cuecard itself refused: the script ran out, no route matched, a callback misbehaved.
    #[error("{0}")]
    Cuecard(Error),
    /// A host callback raised this error; bindings re-raise it unchanged.
    #[error("{}", .0.message)]
    Host(HostError),
}

impl CallError {
    /// The provider failure, if it is one.
    pub fn provider(&self) -> Option<&ProviderError> {
        match self {
            CallError::Provider(e) => Some(e),
            _ => None,
        }
    }

    /// cuecard's own error, if it is one.
    pub fn cuecard(&self) -> Option<&Error> {
        match self {
            CallError::Cuecard(e) => Some(e),
            _ => None,
        }
    }

    /// The stable code of a cuecard error or the kind of a provider failure (`host_error` for host errors).
    pub fn code(&self) -> &'static str {
        match self {
            CallError::Provider(e) => e.kind.code(),
            CallError::Cuecard(e) => e.code(),
            CallError::Host(_) => ErrorKind::HostError.code(),
        }
    }
}

impl From<Error> for CallError {
    fn from(error: Error) -> CallError {
        CallError::Cuecard(error)
    }
}

impl From<ProviderError> for CallError {
    fn from(error: ProviderError) -> CallError {
        CallError::Provider(error)
    }
}

pub(crate) fn callback_failed(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::CallbackFailed, message)
}

impl HostError {
    /// The error other languages and the wire see of a host error: `host_error` with its message.
    pub fn to_error(&self) -> Error {
        Error::new(ErrorKind::HostError, self.message.clone())
    }
}
