//! A check that did not hold, and the result of every check.

use crate::error::{Error, ErrorKind};
use serde::{Serialize, Serializer};
use std::fmt;

/// A check that did not hold: what was expected, what was found, and the history that explains it. Its JSON
/// form is `{"check", "expected", "actual", "history", "message"}`.
#[derive(Clone, PartialEq, Eq)]
pub struct AssertionFailure {
    /// The check, as written: `when_called("classify").was_called_times(3)`.
    pub check: String,
    /// What it expected.
    pub expected: String,
    /// What it found.
    pub actual: String,
    /// The recorded history, as a compact table.
    pub history: String,
}

impl fmt::Display for AssertionFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed\n  expected: {}\n  actual:   {}", self.check, self.expected, self.actual)?;
        if !self.history.is_empty() {
            write!(f, "\n{}", self.history)?;
        }
        Ok(())
    }
}

// Debug shows the readable message, so `.unwrap()` in a test prints it as it is.
impl fmt::Debug for AssertionFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for AssertionFailure {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_json::json!({
            "check": self.check, "expected": self.expected, "actual": self.actual, "history": self.history,
            "message": self.to_string(),
        })
        .serialize(serializer)
    }
}

impl std::error::Error for AssertionFailure {}

impl From<AssertionFailure> for Error {
    fn from(failure: AssertionFailure) -> Error {
        Error::new(ErrorKind::AssertionFailed, failure.to_string())
            .with_context("check", failure.check)
            .with_context("expected", failure.expected)
            .with_context("actual", failure.actual)
    }
}

/// The result of a check.
pub type CheckResult<T> = Result<T, AssertionFailure>;
