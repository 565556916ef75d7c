//! Any HTTP request to the wire layer (the first byte picks the endpoint, the rest is the body), against a mock
//! whose script has every kind of step: an HTTP reply, never a panic; every model request journaled once.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const ENDPOINTS: [(&str, &str); 8] = [
    ("POST", "/v1/chat/completions"),
    ("POST", "/v1/responses"),
    ("POST", "/v1/messages"),
    ("POST", "/v1/embeddings"),
    ("GET", "/v1/models"),
    ("PUT", "/_cuecard/scenario"),
    ("GET", "/_cuecard/journal?after=0&limit=2"),
    ("POST", "/v1/unknown"),
];

const SCRIPT: &str = r#"{"cuecard": 1, "routes": [{"on_exhausted": "cycle", "steps": [
  "Hello, world!",
  {"thinking": "Let me see.", "text": "Partial", "fail_after": {"kind": "connection_reset"}},
  {"tool_calls": [{"name": "lookup", "arguments": {"id": 7}}, {"name": "raw", "arguments_json": "{\"a\": "}]},
  {"fail": {"kind": "rate_limited", "retry_after_ms": 10}},
  {"tokens": []}
]}]}"#;

fn mock() -> &'static cuecard::MockModel {
    static MOCK: OnceLock<cuecard::MockModel> = OnceLock::new();
    MOCK.get_or_init(|| {
        let scenario = cuecard::Scenario::from_json(SCRIPT).expect("the fuzz script parses");
        cuecard::MockModel::from_scenario(&scenario).expect("the fuzz script builds")
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else { return };
    let (method, target) = ENDPOINTS[usize::from(selector) % ENDPOINTS.len()];
    let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
    if selector & 0x80 != 0 {
        headers.push(("anthropic-version".to_string(), "2023-06-01".to_string()));
    }
    let mock = mock();
    if target.starts_with("/_cuecard/scenario") {
        // Replacing the script is fuzzed on a mock of its own, so the shared one keeps every kind of step.
        let own = cuecard::MockModel::new();
        let _ = cuecard::wire::handle(&own, &cuecard::wire::HttpRequest::new(method, target, headers, body.to_vec()));
        return;
    }
    let before = mock.request_count();
    let _ = cuecard::wire::handle(mock, &cuecard::wire::HttpRequest::new(method, target, headers, body.to_vec()));
    if !target.starts_with("/_cuecard") {
        assert_eq!(mock.request_count(), before + 1, "a model request is journaled exactly once");
    }
    if mock.request_count() > 10_000 {
        mock.reset();
    }
});
