//! Provider failures: what a test scripts the "model" to fail with (429, 529, a cut connection, ...).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The kind of a provider failure. Each has a default HTTP status, retryability and provider error type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderErrorKind {
    /// 429: too many requests. Retryable.
    RateLimited,
    /// 529: the provider is overloaded (Anthropic). Retryable.
    Overloaded,
    /// 500: internal server error. Retryable.
    ServerError,
    /// 503: service unavailable. Retryable.
    Unavailable,
    /// 408: the request timed out. Retryable.
    Timeout,
    /// 401: bad or missing credentials. Not retryable.
    Unauthorized,
    /// 403: not allowed. Not retryable.
    Forbidden,
    /// 404: unknown model or path. Not retryable.
    NotFound,
    /// 400: the request is invalid. Not retryable.
    BadRequest,
    /// 400: the prompt is longer than the model's context. Not retryable.
    ContextLengthExceeded,
    /// 400: the provider's content filter refused. Not retryable.
    ContentFiltered,
    /// The connection was reset: no HTTP status at all. Retryable.
    ConnectionReset,
    /// Anything else: give the status; retryable follows the status unless given.
    Custom,
}

impl ProviderErrorKind {
    /// Every kind, for catalogues and tests.
    pub const ALL: [ProviderErrorKind; 13] = [
        ProviderErrorKind::RateLimited,
        ProviderErrorKind::Overloaded,
        ProviderErrorKind::ServerError,
        ProviderErrorKind::Unavailable,
        ProviderErrorKind::Timeout,
        ProviderErrorKind::Unauthorized,
        ProviderErrorKind::Forbidden,
        ProviderErrorKind::NotFound,
        ProviderErrorKind::BadRequest,
        ProviderErrorKind::ContextLengthExceeded,
        ProviderErrorKind::ContentFiltered,
        ProviderErrorKind::ConnectionReset,
        ProviderErrorKind::Custom,
    ];

    /// The snake_case name used in scenarios and every binding.
    pub const fn code(self) -> &'static str {
        match self {
            ProviderErrorKind::RateLimited => "rate_limited",
            ProviderErrorKind::Overloaded => "overloaded",
            ProviderErrorKind::ServerError => "server_error",
            ProviderErrorKind::Unavailable => "unavailable",
            ProviderErrorKind::Timeout => "timeout",
            ProviderErrorKind::Unauthorized => "unauthorized",
            ProviderErrorKind::Forbidden => "forbidden",
            ProviderErrorKind::NotFound => "not_found",
            ProviderErrorKind::BadRequest => "bad_request",
            ProviderErrorKind::ContextLengthExceeded => "context_length_exceeded",
            ProviderErrorKind::ContentFiltered => "content_filtered",
            ProviderErrorKind::ConnectionReset => "connection_reset",
            ProviderErrorKind::Custom => "custom",
        }
    }

    /// The kind named by `code`, if any.
    pub fn from_code(code: &str) -> Option<ProviderErrorKind> {
        ProviderErrorKind::ALL.into_iter().find(|k| k.code() == code)
    }

    /// The HTTP status a provider answers with; `None` for a connection that breaks before any status.
    pub const fn default_status(self) -> Option<u16> {
        match self {
            ProviderErrorKind::RateLimited => Some(429),
            ProviderErrorKind::Overloaded => Some(529),
            ProviderErrorKind::ServerError | ProviderErrorKind::Custom => Some(500),
            ProviderErrorKind::Unavailable => Some(503),
            ProviderErrorKind::Timeout => Some(408),
            ProviderErrorKind::Unauthorized => Some(401),
            ProviderErrorKind::Forbidden => Some(403),
            ProviderErrorKind::NotFound => Some(404),
            ProviderErrorKind::BadRequest
            | ProviderErrorKind::ContextLengthExceeded
            | ProviderErrorKind::ContentFiltered => Some(400),
            ProviderErrorKind::ConnectionReset => None,
        }
    }

    /// Whether a client should retry this kind by default.
    pub const fn default_retryable(self) -> bool {
        matches!(
            self,
            ProviderErrorKind::RateLimited
                | ProviderErrorKind::Overloaded
                | ProviderErrorKind::ServerError
                | ProviderErrorKind::Unavailable
                | ProviderErrorKind::Timeout
                | ProviderErrorKind::ConnectionReset
        )
    }

    /// The default human message.
    pub const fn default_message(self) -> &'static str {
        match self {
            ProviderErrorKind::RateLimited => "Rate limit exceeded",
            ProviderErrorKind::Overloaded => "Overloaded",
            ProviderErrorKind::ServerError => "The server had an error while processing your request",
            ProviderErrorKind::Unavailable => "The service is temporarily unavailable",
            ProviderErrorKind::Timeout => "The request timed out",
            ProviderErrorKind::Unauthorized => "Invalid API key",
            ProviderErrorKind::Forbidden => "Permission denied",
            ProviderErrorKind::NotFound => "The model does not exist",
            ProviderErrorKind::BadRequest => "Invalid request",
            ProviderErrorKind::ContextLengthExceeded => "This model's maximum context length was exceeded",
            ProviderErrorKind::ContentFiltered => "The response was filtered by the content policy",
            ProviderErrorKind::ConnectionReset => "Connection reset by peer",
            ProviderErrorKind::Custom => "Provider error",
        }
    }

    /// The kind a status means, for a failure given only by its status.
    pub fn for_status(status: u16) -> ProviderErrorKind {
        match status {
            400 => ProviderErrorKind::BadRequest,
            401 => ProviderErrorKind::Unauthorized,
            403 => ProviderErrorKind::Forbidden,
            404 => ProviderErrorKind::NotFound,
            408 => ProviderErrorKind::Timeout,
            429 => ProviderErrorKind::RateLimited,
            500 => ProviderErrorKind::ServerError,
            503 => ProviderErrorKind::Unavailable,
            529 => ProviderErrorKind::Overloaded,
            _ => ProviderErrorKind::Custom,
        }
    }
}

impl fmt::Display for ProviderErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A simulated provider failure: what the mock answers instead of a response, and what the wire server turns
/// into the provider's exact status, headers and error body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProviderError {
    /// The kind of failure.
    pub kind: ProviderErrorKind,
    /// HTTP status; `None` when the connection breaks before a status is sent.
    pub status: Option<u16>,
    /// Whether a client should retry.
    pub retryable: bool,
    /// How long the provider asks the client to wait, in milliseconds (`retry-after-ms` / `retry-after`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// The human message.
    pub message: String,
    /// The provider's error type (`rate_limit_error`, `overloaded_error`, ...), if set explicitly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    /// The provider's error code (`rate_limit_exceeded`, `context_length_exceeded`, ...), if set explicitly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
}

impl ProviderError {
    /// A failure of `kind` with that kind's defaults.
    pub fn new(kind: ProviderErrorKind) -> ProviderError {
        ProviderError {
            kind,
            status: kind.default_status(),
            retryable: kind.default_retryable(),
            retry_after_ms: None,
            message: kind.default_message().to_string(),
            error_type: None,
            error_code: None,
        }
    }

    /// A retryable failure with a message and an optional status (Tramai's `retryableFailure`).
    pub fn retryable_failure(message: impl Into<String>, status: Option<u16>) -> ProviderError {
        let kind = status.map_or(ProviderErrorKind::ServerError, ProviderErrorKind::for_status);
        ProviderError { status: status.or(kind.default_status()), retryable: true, ..ProviderError::new(kind) }
            .with_message(message)
    }

    /// A failure that must not be retried (Tramai's `nonRetryableFailure`).
    pub fn non_retryable_failure(message: impl Into<String>, status: Option<u16>) -> ProviderError {
        let kind = status.map_or(ProviderErrorKind::BadRequest, ProviderErrorKind::for_status);
        ProviderError { status: status.or(kind.default_status()), retryable: false, ..ProviderError::new(kind) }
            .with_message(message)
    }

    /// 429 rate limited.
    pub fn rate_limited() -> ProviderError {
        ProviderError::new(ProviderErrorKind::RateLimited)
    }

    /// 529 overloaded.
    pub fn overloaded() -> ProviderError {
        ProviderError::new(ProviderErrorKind::Overloaded)
    }

    /// 500 server error.
    pub fn server_error() -> ProviderError {
        ProviderError::new(ProviderErrorKind::ServerError)
    }

    /// 401 unauthorized.
    pub fn unauthorized() -> ProviderError {
        ProviderError::new(ProviderErrorKind::Unauthorized)
    }

    /// A reset connection (no status).
    pub fn connection_reset() -> ProviderError {
        ProviderError::new(ProviderErrorKind::ConnectionReset)
    }

    /// Replaces the message.
    pub fn with_message(mut self, message: impl Into<String>) -> ProviderError {
        self.message = message.into();
        self
    }

    /// Replaces the status. A `custom` failure also takes that status's retryability, as the SDKs judge it:
    /// 408, 409, 429 and every 5xx are retried, the rest not.
    pub fn with_status(mut self, status: u16) -> ProviderError {
        self.status = Some(status);
        if self.kind == ProviderErrorKind::Custom {
            self.retryable = status_is_retryable(status);
        }
        self
    }

    /// Overrides whether the failure is retryable.
    pub fn with_retryable(mut self, retryable: bool) -> ProviderError {
        self.retryable = retryable;
        self
    }

    /// Sets the retry-after delay in milliseconds.
    pub fn with_retry_after_ms(mut self, ms: u64) -> ProviderError {
        self.retry_after_ms = Some(ms);
        self
    }
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.status {
            Some(status) => write!(f, "{} ({}, status {status}): {}", self.kind, retry_word(self), self.message),
            None => write!(f, "{} ({}): {}", self.kind, retry_word(self), self.message),
        }
    }
}

/// Whether the official SDKs retry a response with this status (`docs/concepts/wire.md`, "Failures").
pub const fn status_is_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

fn retry_word(error: &ProviderError) -> &'static str {
    if error.retryable {
        "retryable"
    } else {
        "not retryable"
    }
}

impl std::error::Error for ProviderError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_style_constructors_pick_kind_and_status() {
        let e = ProviderError::retryable_failure("slow down", Some(429));
        assert_eq!((e.kind, e.status, e.retryable), (ProviderErrorKind::RateLimited, Some(429), true));
        assert_eq!(e.message, "slow down");
        let e = ProviderError::non_retryable_failure("bad key", Some(401));
        assert_eq!((e.kind, e.status, e.retryable), (ProviderErrorKind::Unauthorized, Some(401), false));
        let e = ProviderError::retryable_failure("odd", Some(418));
        assert_eq!((e.kind, e.status, e.retryable), (ProviderErrorKind::Custom, Some(418), true));
        assert_eq!(e.to_string(), "custom (retryable, status 418): odd");
    }

    #[test]
    fn a_custom_status_brings_its_retryability() {
        let custom = ProviderError::new(ProviderErrorKind::Custom);
        assert!(!custom.clone().with_status(418).retryable);
        assert!(custom.clone().with_status(409).retryable);
        assert!(custom.with_status(599).retryable);
        // A named kind keeps its own retryability whatever the status.
        assert!(ProviderError::rate_limited().with_status(400).retryable);
    }

    #[test]
    fn codes_round_trip() {
        for kind in ProviderErrorKind::ALL {
            assert_eq!(ProviderErrorKind::from_code(kind.code()), Some(kind));
            let json = serde_json::to_string(&kind).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", kind.code()));
        }
    }
}
