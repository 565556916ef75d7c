//! The README's Rust example (the front page's): CI runs it with `cargo test`.
#![allow(clippy::unwrap_used)]
use cuecard::verify::expect_that;
use cuecard::{ChatRequest, MockModel, ProviderError};

#[test]
fn a_rate_limit_then_an_answer() {
    let mock = MockModel::builder().fails(ProviderError::rate_limited()).responds("Hello!").build().unwrap();
    let request = ChatRequest::user("gpt-4o", "Hi");
    assert_eq!(mock.chat(&request).unwrap_err().provider().and_then(|e| e.status), Some(429));
    assert_eq!(mock.chat(&request).unwrap().message.text.as_deref(), Some("Hello!"));
    expect_that(&mock).received_requests(2).script_fully_used();
}
