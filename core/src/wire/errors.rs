//! Provider failures on the wire: the exact status, headers and error body each SDK maps to its own exception
//! class and retry decision (`docs/wire.md`, "Failures").
//!
//! Headers: the provider's request-id header (`x-request-id` for OpenAI, `request-id` for Anthropic),
//! `retry-after-ms` and `retry-after` when the failure asks for a delay, and `x-should-retry` carrying the
//! failure's `retryable` flag, so every Stainless SDK retries exactly the failures the script marks retryable.

use super::{json_reply, HttpReply};
use crate::error::ErrorKind;
use crate::failure::{ProviderError, ProviderErrorKind};
use serde_json::{json, Value};

/// Which family of error envelopes to speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `{"error": {"message", "type", "param", "code"}}`, header `x-request-id`.
    OpenAi,
    /// `{"type": "error", "error": {"type", "message"}, "request_id"}`, header `request-id`.
    Anthropic,
}

impl Dialect {
    fn request_id_header(self) -> &'static str {
        match self {
            Dialect::OpenAi => "x-request-id",
            Dialect::Anthropic => "request-id",
        }
    }
}

/// OpenAI's `type` and `code` for a kind.
fn openai_type_and_code(kind: ProviderErrorKind) -> (&'static str, Option<&'static str>) {
    match kind {
        ProviderErrorKind::RateLimited => ("requests", Some("rate_limit_exceeded")),
        ProviderErrorKind::Overloaded => ("server_error", Some("overloaded")),
        ProviderErrorKind::ServerError => ("server_error", None),
        ProviderErrorKind::Unavailable => ("server_error", Some("service_unavailable")),
        ProviderErrorKind::Timeout => ("timeout", None),
        ProviderErrorKind::Unauthorized => ("invalid_request_error", Some("invalid_api_key")),
        ProviderErrorKind::Forbidden => ("invalid_request_error", Some("unsupported_country_region_territory")),
        ProviderErrorKind::NotFound => ("invalid_request_error", Some("model_not_found")),
        ProviderErrorKind::BadRequest => ("invalid_request_error", None),
        ProviderErrorKind::ContextLengthExceeded => ("invalid_request_error", Some("context_length_exceeded")),
        ProviderErrorKind::ContentFiltered => ("invalid_request_error", Some("content_filter")),
        ProviderErrorKind::ConnectionReset | ProviderErrorKind::Custom => ("api_error", None),
    }
}

/// Anthropic's `error.type` for a kind.
fn anthropic_type(kind: ProviderErrorKind) -> &'static str {
    match kind {
        ProviderErrorKind::RateLimited => "rate_limit_error",
        ProviderErrorKind::Overloaded => "overloaded_error",
        ProviderErrorKind::Timeout => "timeout_error",
        ProviderErrorKind::Unauthorized => "authentication_error",
        ProviderErrorKind::Forbidden => "permission_error",
        ProviderErrorKind::NotFound => "not_found_error",
        ProviderErrorKind::BadRequest
        | ProviderErrorKind::ContextLengthExceeded
        | ProviderErrorKind::ContentFiltered => "invalid_request_error",
        ProviderErrorKind::ServerError
        | ProviderErrorKind::Unavailable
        | ProviderErrorKind::ConnectionReset
        | ProviderErrorKind::Custom => "api_error",
    }
}

/// The inner error object of a provider failure (also used for mid-stream error events).
pub(crate) fn error_object(dialect: Dialect, error: &ProviderError) -> Value {
    match dialect {
        Dialect::OpenAi => {
            let (kind_type, kind_code) = openai_type_and_code(error.kind);
            json!({
                "message": error.message,
                "type": error.error_type.as_deref().unwrap_or(kind_type),
                "param": null,
                "code": error.error_code.as_deref().or(kind_code),
            })
        }
        Dialect::Anthropic => json!({
            "type": error.error_type.as_deref().unwrap_or(anthropic_type(error.kind)),
            "message": error.message,
        }),
    }
}

fn body(dialect: Dialect, inner: Value, request_id: &str) -> Value {
    match dialect {
        Dialect::OpenAi => json!({ "error": inner }),
        Dialect::Anthropic => json!({ "type": "error", "error": inner, "request_id": request_id }),
    }
}

/// The HTTP reply for a failure before anything is streamed, after waiting `delay_ms`.
pub fn error_reply(dialect: Dialect, error: &ProviderError, request_id: &str, delay_ms: u64) -> HttpReply {
    let Some(status) = error.status else {
        // No status at all: the connection breaks before the headers.
        return HttpReply::Abort { delay_ms };
    };
    let mut headers = vec![(dialect.request_id_header().to_string(), request_id.to_string())];
    if let Some(ms) = error.retry_after_ms {
        headers.push(("retry-after-ms".into(), ms.to_string()));
        headers.push(("retry-after".into(), ms.div_ceil(1000).to_string()));
    }
    headers.push(("x-should-retry".into(), if error.retryable { "true" } else { "false" }.into()));
    match json_reply(status, headers, &body(dialect, error_object(dialect, error), request_id)) {
        HttpReply::Full { status, headers, body, .. } => HttpReply::Full { delay_ms, status, headers, body },
        other => other,
    }
}

/// A reply for cuecard's own refusal (malformed request, unknown path, exhausted script): provider-shaped, with
/// the cuecard code as the error code, in `x-cuecard-error` too, and `x-should-retry: false`, so an SDK surfaces
/// it at once. Every code is one of [`ErrorKind`]'s.
pub(crate) fn cuecard_reply(
    dialect: Dialect,
    status: u16,
    kind: ErrorKind,
    message: &str,
    request_id: &str,
) -> HttpReply {
    let code = kind.code();
    let inner = match dialect {
        Dialect::OpenAi => json!({
            "message": message,
            "type": if status < 500 { "invalid_request_error" } else { "cuecard_error" },
            "param": null,
            "code": code,
        }),
        Dialect::Anthropic => json!({
            "type": match status { 404 => "not_found_error", 413 => "request_too_large", s if s < 500 => "invalid_request_error", _ => "api_error" },
            "message": format!("{message} ({code})"),
        }),
    };
    let headers = vec![
        (dialect.request_id_header().to_string(), request_id.to_string()),
        ("x-should-retry".to_string(), "false".to_string()),
        ("x-cuecard-error".to_string(), code.to_string()),
    ];
    json_reply(status, headers, &body(dialect, inner, request_id))
}
