//! The book's Rust quickstart (docs/start/rust.md); CI runs it with `cargo run -p cuecard --example quickstart`.
// Test-style code: a panic is how it reports a failure.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::print_stdout)]
use cuecard::verify::expect_that;
use cuecard::{ChatRequest, MockModel, ProviderError, StreamEvent};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Script the model: a rate limit, then a tool call, then the final answer.
    let mock = MockModel::builder()
        .fails(ProviderError::rate_limited().with_retry_after_ms(20))
        .calls_tool("get_weather", json!({"city": "Paris"}))
        .responds("It is 22 °C and sunny in Paris.")
        .build()?;

    let request = ChatRequest::user("gpt-4o", "Weather in Paris?").with_operation("weather");

    // The code under test would retry the 429 ...
    let error = mock.chat(&request).unwrap_err();
    assert_eq!(error.provider().and_then(|e| e.status), Some(429));

    // ... get a tool call (ids come from the mock's counter, so they are the same on every run) ...
    let response = mock.chat(&request)?;
    assert_eq!(response.message.tool_calls[0].id, "call_1");

    // ... and stream the final answer in word-like tokens.
    let stream = mock.chat_stream(&request)?;
    assert_eq!(stream.text_tokens()[..4], ["It", " is", " ", "22"]);
    assert!(matches!(stream.iter().last(), Some(StreamEvent::Complete { .. })));

    // Then assert what happened: three calls, two of them retries of the first, every step used.
    expect_that(&mock).when_called("weather").was_called_times(3).and_retried(2).and_observed_failure("rate_limited");
    expect_that(&mock).script_fully_used();
    println!("quickstart: ok, {} requests journaled", mock.request_count());
    Ok(())
}
