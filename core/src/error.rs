//! cuecard's own errors: one typed catalogue with stable codes shared by every language.
//!
//! A scripted provider failure is not one of these: that is a [`crate::ProviderError`], the thing a test asked
//! the mock to simulate. These are errors of cuecard itself: a bad scenario, a script that ran out, misuse.

use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// What went wrong, as a stable code. Codes and numbers are part of the API of every binding: never reuse a
/// number; a retired kind stays here as a comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A scenario (JSON/YAML) is malformed: bad syntax, an unknown field, a wrong type or an impossible step.
    InvalidScenario,
    /// A request given to the mock is malformed (for example a request JSON that is not a chat request).
    InvalidRequest,
    /// A request arrived after the last step of its route, and the route does not repeat or cycle.
    ScriptExhausted,
    /// No route matches the request and there is no default route.
    NoRouteMatched,
    /// An argument is invalid: an empty text, an empty token, a negative count.
    InvalidArgument,
    /// A call is not allowed in the current state (a step added after `repeats`, `and_fails` twice, ...).
    InvalidState,
    /// A journal query expected a number of requests that is not the number received.
    RequestCountMismatch,
    /// A fluent assertion did not hold.
    AssertionFailed,
    /// A computed answer or tool responder (a host callback) failed or returned something unusable.
    CallbackFailed,
    /// Input text is not valid UTF-8.
    InvalidUtf8,
    /// A file could not be read.
    Io,
    /// A mock tool failed, as scripted.
    ToolFailed,
    /// A bug in cuecard: please report it.
    Internal,
    /// Something looked up by name or id does not exist: an unknown path on the wire, an unknown memory thread,
    /// an unknown fixture tool.
    NotFound,
    /// A request body is larger than the limit (32 MiB on the wire).
    RequestTooLarge,
    /// A host callback (a Python callable, a JS function, a C function pointer) raised its own error. Bindings
    /// re-raise the host's own object; this code is what other languages and the wire see of it.
    HostError,
    /// A request matches none of a recording's requests (the miss names the nearest one and what differs).
    NoRecording,
}

impl ErrorKind {
    /// Every kind, in number order (used by bindings to prove that each one is mapped).
    pub const ALL: [ErrorKind; 17] = [
        ErrorKind::InvalidScenario,
        ErrorKind::InvalidRequest,
        ErrorKind::ScriptExhausted,
        ErrorKind::NoRouteMatched,
        ErrorKind::InvalidArgument,
        ErrorKind::InvalidState,
        ErrorKind::RequestCountMismatch,
        ErrorKind::AssertionFailed,
        ErrorKind::CallbackFailed,
        ErrorKind::InvalidUtf8,
        ErrorKind::Io,
        ErrorKind::ToolFailed,
        ErrorKind::Internal,
        ErrorKind::NotFound,
        ErrorKind::RequestTooLarge,
        ErrorKind::HostError,
        ErrorKind::NoRecording,
    ];

    /// The stable snake_case code, identical in every language.
    pub const fn code(self) -> &'static str {
        match self {
            ErrorKind::InvalidScenario => "invalid_scenario",
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::ScriptExhausted => "script_exhausted",
            ErrorKind::NoRouteMatched => "no_route_matched",
            ErrorKind::InvalidArgument => "invalid_argument",
            ErrorKind::InvalidState => "invalid_state",
            ErrorKind::RequestCountMismatch => "request_count_mismatch",
            ErrorKind::AssertionFailed => "assertion_failed",
            ErrorKind::CallbackFailed => "callback_failed",
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::Io => "io",
            ErrorKind::ToolFailed => "tool_failed",
            ErrorKind::Internal => "internal",
            ErrorKind::NotFound => "not_found",
            ErrorKind::RequestTooLarge => "request_too_large",
            ErrorKind::HostError => "host_error",
            ErrorKind::NoRecording => "no_recording",
        }
    }

    /// The stable number (C status code, exit code family). Never reused.
    pub const fn number(self) -> u32 {
        match self {
            ErrorKind::InvalidScenario => 1,
            ErrorKind::InvalidRequest => 2,
            ErrorKind::ScriptExhausted => 3,
            ErrorKind::NoRouteMatched => 4,
            ErrorKind::InvalidArgument => 5,
            ErrorKind::InvalidState => 6,
            ErrorKind::RequestCountMismatch => 7,
            ErrorKind::AssertionFailed => 8,
            ErrorKind::CallbackFailed => 9,
            ErrorKind::InvalidUtf8 => 10,
            ErrorKind::Io => 11,
            ErrorKind::ToolFailed => 12,
            ErrorKind::Internal => 13,
            ErrorKind::NotFound => 14,
            ErrorKind::RequestTooLarge => 15,
            ErrorKind::HostError => 16,
            ErrorKind::NoRecording => 17,
        }
    }

    /// One line saying what the kind means (for generated docs and the error vectors).
    pub const fn description(self) -> &'static str {
        match self {
            ErrorKind::InvalidScenario => "the scenario is malformed",
            ErrorKind::InvalidRequest => "the request is malformed",
            ErrorKind::ScriptExhausted => "a request arrived after the last step of the script",
            ErrorKind::NoRouteMatched => "no route matches the request",
            ErrorKind::InvalidArgument => "an argument is invalid",
            ErrorKind::InvalidState => "the call is not allowed in the current state",
            ErrorKind::RequestCountMismatch => "the journal holds a different number of requests than expected",
            ErrorKind::AssertionFailed => "an assertion did not hold",
            ErrorKind::CallbackFailed => "a host callback failed or returned something unusable",
            ErrorKind::InvalidUtf8 => "the input is not valid UTF-8",
            ErrorKind::Io => "a file could not be read",
            ErrorKind::ToolFailed => "a mock tool failed as scripted",
            ErrorKind::Internal => "an internal error of cuecard",
            ErrorKind::NotFound => "what was asked for does not exist",
            ErrorKind::RequestTooLarge => "the request is larger than the limit",
            ErrorKind::HostError => "a host callback raised its own error",
            ErrorKind::NoRecording => "no recording matches the request",
        }
    }

    /// The kind with the given code, if any.
    pub fn from_code(code: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.code() == code)
    }

    /// The kind with the given number, if any.
    pub fn from_number(number: u32) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.number() == number)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// One problem found at a path of a document, for errors that report several (scenario validation).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Issue {
    /// Where: a path such as `routes[0].steps[2].fail.kind`, or `""` for the whole document.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// An error of cuecard itself, with a stable [`ErrorKind`], a message that names what was wrong, and structured
/// context for hosts that want more than the message (`{"argument": "request", "path": "messages[0]"}`, the
/// issues of a scenario, the request index of an exhausted script).
///
/// Its JSON form (what crosses the C ABI and the admin surface) is
/// `{"code", "number", "message", "issues": [{"path", "message"}], "context": {...}}`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    kind: ErrorKind,
    message: String,
    issues: Vec<Issue>,
    context: BTreeMap<String, Value>,
}

impl Error {
    /// A new error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), issues: Vec::new(), context: BTreeMap::new() }
    }

    /// An error that lists problems found at paths of a document; the message says the first and how many.
    pub fn with_issues(kind: ErrorKind, what: &str, issues: Vec<Issue>) -> Error {
        let message = match issues.as_slice() {
            [] => what.to_string(),
            [only] => format!("{what}: {only}"),
            [first, rest @ ..] => format!("{what}: {first} (and {} more)", rest.len()),
        };
        Error { kind, message, issues, context: BTreeMap::new() }
    }

    /// Adds a fact to the structured context.
    pub fn with_context(mut self, key: &str, value: impl Into<Value>) -> Error {
        self.context.insert(key.to_string(), value.into());
        self
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The stable code of the kind (`"script_exhausted"`, ...).
    pub fn code(&self) -> &'static str {
        self.kind.code()
    }

    /// The human message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Every problem found, with its path (empty unless the error is about a document).
    pub fn issues(&self) -> &[Issue] {
        &self.issues
    }

    /// The structured context (empty when the message says it all).
    pub fn context(&self) -> &BTreeMap<String, Value> {
        &self.context
    }

    /// The JSON form: `{"code", "number", "message", "issues", "context"}`.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "code": self.code(),
            "number": self.kind.number(),
            "message": self.message,
            "issues": self.issues,
            "context": self.context,
        })
    }
}

impl Serialize for Error {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

/// `Result` with cuecard's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn invalid_argument(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidArgument, message)
}

pub(crate) fn invalid_state(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidState, message)
}

pub(crate) fn not_found(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::NotFound, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_kind_has_a_unique_code_number_and_description() {
        let codes: HashSet<_> = ErrorKind::ALL.iter().map(|k| k.code()).collect();
        let numbers: HashSet<_> = ErrorKind::ALL.iter().map(|k| k.number()).collect();
        assert_eq!(codes.len(), ErrorKind::ALL.len());
        assert_eq!(numbers.len(), ErrorKind::ALL.len());
        for kind in ErrorKind::ALL {
            assert!(!kind.description().is_empty());
            assert_eq!(ErrorKind::from_code(kind.code()), Some(kind));
            assert_eq!(ErrorKind::from_number(kind.number()), Some(kind));
            assert!(kind.code().chars().all(|c| c.is_ascii_lowercase() || c == '_' || c.is_ascii_digit()));
        }
    }

    #[test]
    fn issues_are_summarised_in_the_message() {
        let err = Error::with_issues(
            ErrorKind::InvalidScenario,
            "invalid scenario",
            vec![
                Issue { path: "routes[0]".into(), message: "bad".into() },
                Issue { path: "seed".into(), message: "worse".into() },
            ],
        );
        assert_eq!(err.to_string(), "invalid scenario: routes[0]: bad (and 1 more)");
        assert_eq!(err.issues().len(), 2);
        let json = err.with_context("file", "a.json").to_json();
        assert_eq!(json["code"], "invalid_scenario");
        assert_eq!(json["number"], 1);
        assert_eq!(json["issues"][1]["path"], "seed");
        assert_eq!(json["context"]["file"], "a.json");
    }
}
