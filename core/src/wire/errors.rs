//! Provider failures on the wire: the exact status, headers and error body each SDK maps to its own exception
//! class and retry decision (`docs/concepts/wire.md`, "Failures").
//!
//! Headers: the provider's request-id header (`x-request-id` for OpenAI, `request-id` for Anthropic),
//! `retry-after-ms` and `retry-after` when the failure asks for a delay, and `x-should-retry` carrying the
//! failure's `retryable` flag, so every Stainless SDK retries exactly the failures the script marks retryable.

use super::{json_reply, HttpReply};
use crate::error::ErrorKind;
use crate::provider_error::{ProviderError, ProviderErrorKind};
use crate::rate_limits::{go_duration, rfc3339, RateLimitReading};
use serde_json::{json, Value};

/// Which family of error envelopes to speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `{"error": {"message", "type", "param", "code"}}`, header `x-request-id`.
    OpenAi,
    /// `{"type": "error", "error": {"type", "message"}, "request_id"}`, header `request-id`.
    Anthropic,
    /// OpenAI's envelope with Azure's codes: a content filter's `innererror`, string codes such as `"429"`.
    Azure,
    /// Google's `{"error": {"code": <status>, "message", "status": "RESOURCE_EXHAUSTED"}}`.
    Gemini,
    /// Ollama's `{"error": "<text>"}`.
    Ollama,
    /// AWS Bedrock's `{"message"}` with the class in `x-amzn-errortype`.
    Bedrock,
    /// Cohere's `{"id", "message"}` (the SDK maps the status to its exception class).
    Cohere,
}

impl Dialect {
    pub(crate) fn request_id_header(self) -> &'static str {
        match self {
            Dialect::Anthropic => "request-id",
            Dialect::Bedrock => super::bedrock::REQUEST_ID,
            Dialect::OpenAi | Dialect::Azure | Dialect::Gemini | Dialect::Ollama | Dialect::Cohere => "x-request-id",
        }
    }

    /// The dialect of a client whose request no protocol serves, from what it sent: Anthropic's SDKs send
    /// `anthropic-version`, Google's `x-goog-api-*`, Ollama's paths start with `/api/`.
    pub(crate) fn of_client(request: &super::HttpRequest) -> Dialect {
        if request.header("anthropic-version").is_some() {
            Dialect::Anthropic
        } else if request.header("x-goog-api-client").is_some() || request.header("x-goog-api-key").is_some() {
            Dialect::Gemini
        } else if request.path.starts_with("/api/") {
            Dialect::Ollama
        } else if request.path.starts_with("/model/") {
            Dialect::Bedrock
        } else if request.path.starts_with("/v2/") {
            Dialect::Cohere
        } else {
            Dialect::OpenAi
        }
    }
}

/// Google's `status` string (google.rpc.Code) for a failure.
fn google_status(kind: ProviderErrorKind, status: u16) -> &'static str {
    match (kind, status) {
        (ProviderErrorKind::RateLimited, _) | (_, 429) => "RESOURCE_EXHAUSTED",
        (ProviderErrorKind::Overloaded | ProviderErrorKind::Unavailable, _) | (_, 503) => "UNAVAILABLE",
        (ProviderErrorKind::Timeout, _) | (_, 504 | 408) => "DEADLINE_EXCEEDED",
        (ProviderErrorKind::Unauthorized, _) | (_, 401) => "UNAUTHENTICATED",
        (ProviderErrorKind::Forbidden, _) | (_, 403) => "PERMISSION_DENIED",
        (ProviderErrorKind::NotFound, _) | (_, 404) => "NOT_FOUND",
        (_, 400..=499) => "INVALID_ARGUMENT",
        _ => "INTERNAL",
    }
}

/// The message a failure carries on the wire: the scripted one, or, where the script left the default of a kind
/// whose wording clients classify errors by, the provider's own words. litellm and LangChain tell a context-window
/// error from a plain bad request only by this text.
fn wire_message(dialect: Dialect, error: &ProviderError) -> &str {
    let is_default = error.message == error.kind.default_message();
    if !(is_default && error.kind == ProviderErrorKind::ContextLengthExceeded) {
        return error.message.as_str();
    }
    match dialect {
        Dialect::OpenAi | Dialect::Azure => {
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 128001 \
             tokens. Please reduce the length of the messages."
        }
        Dialect::Anthropic => "prompt is too long: 200001 tokens > 200000 maximum",
        Dialect::Gemini => "The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).",
        Dialect::Ollama => "the input length exceeds the context length",
        Dialect::Bedrock => "Input is too long for requested model.",
        Dialect::Cohere => {
            "too many tokens: total number of tokens in the prompt cannot exceed 128000 - received 128001. Try using a \
             shorter prompt"
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

/// The inner error object of a provider failure (also used for mid-stream error events); for Ollama, the text.
pub(crate) fn error_object(dialect: Dialect, error: &ProviderError) -> Value {
    let message = wire_message(dialect, error);
    match dialect {
        Dialect::OpenAi => {
            let (kind_type, kind_code) = openai_type_and_code(error.kind);
            json!({
                "message": message,
                "type": error.error_type.as_deref().unwrap_or(kind_type),
                "param": null,
                "code": error.error_code.as_deref().or(kind_code),
            })
        }
        Dialect::Azure => azure_error_object(error, message),
        Dialect::Anthropic => json!({
            "type": error.error_type.as_deref().unwrap_or(anthropic_type(error.kind)),
            "message": message,
        }),
        Dialect::Gemini => {
            let status = error.status.unwrap_or(500);
            json!({
                "code": status,
                "message": message,
                "status": error.error_code.as_deref().unwrap_or(google_status(error.kind, status)),
            })
        }
        Dialect::Ollama => Value::from(message),
        Dialect::Bedrock | Dialect::Cohere => json!({"message": message}),
    }
}

/// Azure OpenAI's error object: OpenAI's fields, with the content filter's `innererror` (which categories
/// filtered) and the codes Azure sends as strings (`"429"`, `"DeploymentNotFound"`).
fn azure_error_object(error: &ProviderError, message: &str) -> Value {
    let (kind_type, kind_code) = openai_type_and_code(error.kind);
    let code = match error.kind {
        ProviderErrorKind::RateLimited => Some("429"),
        ProviderErrorKind::Unauthorized => Some("401"),
        ProviderErrorKind::NotFound => Some("DeploymentNotFound"),
        _ => kind_code,
    };
    let mut object = json!({
        "message": message,
        "type": error.error_type.as_deref().unwrap_or(kind_type),
        "param": null,
        "code": error.error_code.as_deref().or(code),
    });
    if error.kind == ProviderErrorKind::ContentFiltered {
        let calm = json!({"filtered": false, "severity": "safe"});
        object["param"] = json!("prompt");
        object["status"] = json!(error.status.unwrap_or(400));
        object["innererror"] = json!({
            "code": "ResponsibleAIPolicyViolation",
            "content_filter_result": {
                "hate": {"filtered": true, "severity": "high"},
                "jailbreak": {"filtered": false, "detected": false},
                "self_harm": calm, "sexual": calm, "violence": calm,
            },
        });
    }
    object
}

fn body(dialect: Dialect, inner: Value, request_id: &str) -> Value {
    match dialect {
        Dialect::OpenAi | Dialect::Azure | Dialect::Gemini | Dialect::Ollama => json!({ "error": inner }),
        Dialect::Bedrock => inner,
        Dialect::Cohere => {
            let mut inner = inner;
            inner["id"] = Value::from(request_id);
            inner
        }
        Dialect::Anthropic => json!({ "type": "error", "error": inner, "request_id": request_id }),
    }
}

/// The real API's 400 for a request that broke one of its rules (`contracts: strict`): OpenAI's error object with
/// the rule's `param` and `code`, Anthropic's `invalid_request_error`.
pub(crate) fn contract_reply(dialect: Dialect, violation: &super::Violation, request_id: &str) -> HttpReply {
    let inner = match dialect {
        Dialect::Anthropic => json!({"type": "invalid_request_error", "message": violation.message}),
        _ => json!({"message": violation.message, "type": "invalid_request_error", "param": violation.param,
                    "code": violation.code}),
    };
    let headers = vec![(dialect.request_id_header().into(), request_id.to_owned().into())];
    json_reply(400, headers, &body(dialect, inner, request_id))
}

/// Each provider's rate-limit headers, as its API sends them on every reply: OpenAI's and Azure's
/// `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (resets as durations, `120ms`), Anthropic's
/// `anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}` (resets as RFC 3339 times). Gemini, Ollama and
/// Bedrock send none.
pub(crate) fn rate_limit_headers(dialect: Dialect, reading: &RateLimitReading) -> Vec<super::ReplyHeader> {
    let r = reading;
    match dialect {
        Dialect::OpenAi | Dialect::Azure => vec![
            ("x-ratelimit-limit-requests".into(), decimal(r.requests_limit).into()),
            ("x-ratelimit-limit-tokens".into(), decimal(r.tokens_limit).into()),
            ("x-ratelimit-remaining-requests".into(), decimal(r.requests_remaining).into()),
            ("x-ratelimit-remaining-tokens".into(), decimal(r.tokens_remaining).into()),
            ("x-ratelimit-reset-requests".into(), go_duration(r.requests_reset_ms).into()),
            ("x-ratelimit-reset-tokens".into(), go_duration(r.tokens_reset_ms).into()),
        ],
        Dialect::Anthropic => vec![
            ("anthropic-ratelimit-requests-limit".into(), decimal(r.requests_limit).into()),
            ("anthropic-ratelimit-requests-remaining".into(), decimal(r.requests_remaining).into()),
            ("anthropic-ratelimit-requests-reset".into(), rfc3339(r.at_ms + r.requests_reset_ms).into()),
            ("anthropic-ratelimit-tokens-limit".into(), decimal(r.tokens_limit).into()),
            ("anthropic-ratelimit-tokens-remaining".into(), decimal(r.tokens_remaining).into()),
            ("anthropic-ratelimit-tokens-reset".into(), rfc3339(r.at_ms + r.tokens_reset_ms).into()),
        ],
        _ => Vec::new(),
    }
}

/// A number as its decimal text, without `to_string`'s formatting machinery (rate-limit headers: every reply).
fn decimal(number: impl itoa::Integer) -> String {
    itoa::Buffer::new().format(number).to_owned()
}

/// The HTTP reply for a failure before anything is streamed, after waiting `delay_ms`.
pub fn error_reply(dialect: Dialect, error: &ProviderError, request_id: &str, delay_ms: u64) -> HttpReply {
    let status = if dialect == Dialect::Bedrock { super::bedrock::status(error) } else { error.status };
    let Some(status) = status else {
        // No status at all: the connection breaks before the headers.
        return HttpReply::Abort { delay_ms };
    };
    let mut headers = vec![(dialect.request_id_header().into(), request_id.to_owned().into())];
    if dialect == Dialect::Gemini && error.kind == ProviderErrorKind::ContentFiltered {
        // Gemini blocks a prompt with a 200 and no candidates: the SDKs raise nothing, `.text` is None.
        let blocked = json!({"promptFeedback": {"blockReason": "SAFETY", "safetyRatings": [
            {"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH", "blocked": true}]}});
        return match json_reply(200, headers, &blocked) {
            HttpReply::Full { status, headers, body, .. } => HttpReply::Full { delay_ms, status, headers, body },
            other => other,
        };
    }
    if dialect == Dialect::Bedrock {
        // The class the SDKs raise (botocore cuts the header at the first `:`), and botocore's retry hint in ms.
        let class = super::bedrock::error_type(error);
        headers.push((
            "x-amzn-errortype".into(),
            format!("{class}:http://internal.amazon.com/coral/com.amazon.bedrock/").into(),
        ));
        if let Some(ms) = error.retry_after_ms {
            headers.push(("x-amz-retry-after".into(), ms.to_string().into()));
        }
    }
    if let Some(ms) = error.retry_after_ms {
        headers.push(("retry-after-ms".into(), ms.to_string().into()));
        headers.push(("retry-after".into(), ms.div_ceil(1000).to_string().into()));
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
        Dialect::OpenAi | Dialect::Azure => json!({
            "message": message,
            "type": if status < 500 { "invalid_request_error" } else { "cuecard_error" },
            "param": null,
            "code": code,
        }),
        Dialect::Gemini => json!({
            "code": status,
            "message": format!("{message} ({code})"),
            "status": match status { 404 => "NOT_FOUND", 400..=499 => "INVALID_ARGUMENT", _ => "INTERNAL" },
        }),
        Dialect::Ollama => Value::from(format!("{message} ({code})")),
        Dialect::Bedrock | Dialect::Cohere => json!({"message": format!("{message} ({code})")}),
        Dialect::Anthropic => json!({
            "type": match status { 404 => "not_found_error", 413 => "request_too_large", s if s < 500 => "invalid_request_error", _ => "api_error" },
            "message": format!("{message} ({code})"),
        }),
    };
    let mut headers: Vec<super::ReplyHeader> = vec![
        (dialect.request_id_header().into(), request_id.to_owned().into()),
        ("x-should-retry".into(), "false".into()),
        ("x-cuecard-error".into(), code.to_string().into()),
    ];
    if dialect == Dialect::Bedrock {
        let class = match status {
            404 => "UnknownOperationException",
            400..=499 => "ValidationException",
            _ => "InternalServerException",
        };
        headers.push(("x-amzn-errortype".into(), class.into()));
    }
    json_reply(status, headers, &body(dialect, inner, request_id))
}
