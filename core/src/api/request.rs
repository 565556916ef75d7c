//! What the bindings' `chat(...)` takes: a whole request, or only a user text, which means one user message to
//! the default model (`cuecard-mock`), so `mock.chat("Hi")` is the same request in every language.

use crate::clock::DEFAULT_MODEL;
use crate::error::Result;
use crate::model::ChatRequest;
use serde_json::Value;

/// A request as a host gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum RequestInput {
    /// A user text.
    Text(String),
    /// A request in cuecard's neutral format.
    Request(Value),
}

impl RequestInput {
    /// From JSON data: a string is a user text, anything else a request.
    pub fn from_value(value: Value) -> RequestInput {
        match value {
            Value::String(text) => RequestInput::Text(text),
            other => RequestInput::Request(other),
        }
    }

    /// The neutral request; a malformed one is `invalid_request` naming the path of the offending field.
    pub fn into_request(self) -> Result<ChatRequest> {
        match self {
            RequestInput::Text(text) => Ok(ChatRequest::user(DEFAULT_MODEL, text)),
            RequestInput::Request(value) => ChatRequest::from_value(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_text_is_a_user_message_to_the_default_model() {
        let request = RequestInput::from_value(json!("Hi")).into_request().unwrap();
        assert_eq!((request.model.as_str(), request.messages[0].text()), ("cuecard-mock", "Hi".to_string()));
        let err = RequestInput::from_value(json!({"model": "m", "messages": 5})).into_request().unwrap_err();
        assert_eq!(err.code(), "invalid_request");
    }
}
