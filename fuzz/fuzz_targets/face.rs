//! The host-neutral face's JSON entry points, as bindings call them with data from users: a request, a step, a
//! failure, a check, settings, a route and a computed answer. Typed errors, never a panic.
#![no_main]
use cuecard::api::{FailSpec, RequestInput, RouteOptions, StepInput};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mock = cuecard::MockModel::new();
    if let Some(Ok(request)) = RequestInput::from_host_json(text) {
        let _ = mock.chat(&request);
    }
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else { return };
    if let Ok(step) = StepInput::from_value(value.clone(), "answer") {
        if mock.then_responds(step).is_ok() {
            let _ = mock.chat_stream(&cuecard::ChatRequest::user("m", "x"));
        }
    }
    if let Ok(request) = RequestInput::from_value(value.clone()).into_request() {
        let _ = mock.chat(&request);
    }
    if let Ok(failure) = serde_json::from_value::<FailSpec>(value.clone()) {
        let _ = mock.then_fails(&failure);
    }
    if let Ok(route) = serde_json::from_value::<RouteOptions>(value.clone()) {
        let _ = mock.route(&route.matcher(), route.on_exhausted);
    }
    if let Ok(settings) = serde_json::from_value::<cuecard::MockSettings>(value.clone()) {
        let _ = mock.configure(&settings);
    }
    if let Ok(check) = serde_json::from_value::<cuecard::verify::Check>(value.clone()) {
        let _ = cuecard::verify::run_check(&mock, None, &check);
    }
    let _ = cuecard::api::step_from_answer(value);
});
