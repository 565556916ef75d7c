//! `NativeMock`: the scripted provider under the package's `MockModel`, with the napi addon's interface
//! (`node/src/mock.rs`) method for method, so `node/lib` runs on either backend. Each method converts its
//! arguments and calls one core method. A computed step always stops the call as a `NativePending` (core's
//! `Turn`): there are no threads to wait on, and the package awaits the JS function and resumes.

use crate::convert::{data_of, json_of, json_text};
use crate::errors::{wrong_type, Fallible};
use crate::pending::NativePending;
use cuecard::api::outcome::{exchange_json, headers_from_lines, http_reply_text, stream_json, Collapse};
use cuecard::api::{FailSpec, JsonResponder, RequestInput, RouteOptions, StepInput, ToolCallSpec};
use cuecard::{CallError, ChatRequest, Error, ErrorKind, MockModel, MockSettings, Turn};
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// The scripted provider.
#[wasm_bindgen]
pub struct NativeMock {
    pub(crate) inner: Arc<MockModel>,
}

fn request_of(value: &JsValue) -> Result<ChatRequest, JsValue> {
    RequestInput::from_value(json_of(value, "request")?).into_request().or_throw()
}

fn answered(turn: Turn<String>, mock: &Arc<MockModel>) -> JsValue {
    match turn {
        Turn::Done(json) => JsValue::from_str(&json),
        Turn::Pending(pending) => NativePending::new(pending, Arc::clone(mock)).into(),
    }
}

/// The responder of a step computed by the package's function `key`. Its blocking form is never right here
/// (a wasm instance has one thread, which would wait for itself): every call stops at it as a pending turn.
fn responder(key: u32) -> Arc<dyn cuecard::Responder> {
    let blocking = |_: &ChatRequest| -> Result<serde_json::Value, CallError> {
        Err(CallError::Cuecard(Error::new(
            ErrorKind::CallbackFailed,
            "a computed answer cannot be awaited in a wasm instance; use the async API",
        )))
    };
    Arc::new(JsonResponder::new(blocking).with_host_key(u64::from(key)))
}

#[wasm_bindgen]
impl NativeMock {
    /// A mock with no steps.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Self {
        NativeMock { inner: Arc::new(MockModel::new()) }
    }

    /// Changes the settings given.
    pub fn configure(&self, settings: JsValue) -> Result<(), JsValue> {
        let settings: MockSettings = data_of(&settings, "settings")?;
        self.inner.configure(&settings).or_throw()
    }

    /// Every setting in force (JSON).
    pub fn settings(&self) -> String {
        json_text(&self.inner.settings())
    }

    /// Replaces the script with a scenario: an object, or a JSON or YAML text. A text that names a file
    /// (`scenarioNamesAFile`) is the host's to read: `node/lib/wasm-backend.js` reads it and calls
    /// `loadScenarioFile`, as a wasm instance has no file system.
    #[wasm_bindgen(js_name = loadScenario)]
    pub fn load_scenario(&self, scenario: JsValue) -> Result<(), JsValue> {
        let parsed = match scenario.as_string() {
            Some(text) => cuecard::Scenario::from_text(&text),
            None => cuecard::Scenario::from_value(json_of(&scenario, "scenario")?),
        };
        self.inner.load_scenario(&parsed.or_throw()?).or_throw()
    }

    /// Replaces the script with a scenario file the host read (`path` decides YAML or JSON).
    #[wasm_bindgen(js_name = loadScenarioFile)]
    pub fn load_scenario_file(&self, path: String, bytes: Vec<u8>) -> Result<(), JsValue> {
        let parsed = cuecard::Scenario::from_file_bytes(&path, bytes).or_throw()?;
        self.inner.load_scenario(&parsed).or_throw()
    }

    // ---- scripting -------------------------------------------------------------------------------------------

    /// Adds a step: a text (streamed in word-like tokens) or a step object.
    #[wasm_bindgen(js_name = thenResponds)]
    pub fn then_responds(&self, answer: JsValue) -> Result<(), JsValue> {
        let input = StepInput::from_value(json_of(&answer, "answer")?, "answer").or_throw()?;
        self.inner.then_responds(input).or_throw()
    }

    /// Adds a step computed by the JS function the package keeps under `key`.
    #[wasm_bindgen(js_name = thenComputes)]
    pub fn then_computes(&self, key: u32) -> Result<(), JsValue> {
        self.inner.then_computes(responder(key)).or_throw()
    }

    /// Adds a step streaming exactly these tokens.
    #[wasm_bindgen(js_name = thenStreams)]
    pub fn then_streams(&self, tokens: JsValue) -> Result<(), JsValue> {
        let tokens: Vec<String> = data_of(&tokens, "tokens")?;
        self.inner.then_streams(tokens).or_throw()
    }

    /// Adds a step calling one tool; arguments as an object, or raw JSON text (possibly invalid on purpose).
    #[wasm_bindgen(js_name = thenCallsTool)]
    pub fn then_calls_tool(&self, name: JsValue, arguments: JsValue) -> Result<(), JsValue> {
        let Some(name) = name.as_string() else {
            return Err(wrong_type("name", "a string", &name.js_typeof().as_string().unwrap_or_default()));
        };
        let arguments = json_of(&arguments, "arguments")?;
        self.inner.then_calls_tool(&name, arguments).or_throw()
    }

    /// Adds a step calling several tools.
    #[wasm_bindgen(js_name = thenCallsTools)]
    pub fn then_calls_tools(&self, calls: JsValue) -> Result<(), JsValue> {
        let calls: Vec<ToolCallSpec> = data_of(&calls, "calls")?;
        self.inner.then_calls_tools(calls).or_throw()
    }

    /// Adds a step failing before anything is streamed.
    #[wasm_bindgen(js_name = thenFails)]
    pub fn then_fails(&self, failure: JsValue) -> Result<(), JsValue> {
        let spec: FailSpec = data_of(&failure, "failure")?;
        self.inner.then_fails(&spec).or_throw()
    }

    /// Makes the last step fail after its thinking and text were streamed.
    #[wasm_bindgen(js_name = andFails)]
    pub fn and_fails(&self, failure: JsValue) -> Result<(), JsValue> {
        let spec: FailSpec = data_of(&failure, "failure")?;
        self.inner.and_fails(&spec).or_throw()
    }

    /// Answers every further request of the current route with its last step.
    #[wasm_bindgen(js_name = thenRepeats)]
    pub fn then_repeats(&self) -> Result<(), JsValue> {
        self.inner.then_repeats().or_throw()
    }

    /// Starts a route (`{operation?, model?, endpoint?, on_exhausted?}`); returns its index.
    pub fn route(&self, options: JsValue) -> Result<u32, JsValue> {
        let options: RouteOptions = data_of(&options, "route")?;
        let index = self.inner.route(&options.matcher(), options.on_exhausted).or_throw()?;
        Ok(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// Empties route `index` and makes it current; the journal stays.
    #[wasm_bindgen(js_name = restartRoute)]
    pub fn restart_route(&self, index: u32) -> Result<(), JsValue> {
        self.inner.restart_route(index as usize).or_throw()
    }

    // ---- answering -------------------------------------------------------------------------------------------

    /// Answers whole: the outcome JSON, or a pending call.
    pub fn chat(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let request = request_of(&request)?;
        let turn = self.inner.chat_timed_turn(request, None).map(|exchange| exchange_json(&exchange));
        Ok(answered(turn, &self.inner))
    }

    /// `chat` for a request serialized by the package; null when the walker must read it.
    #[wasm_bindgen(js_name = chatJson)]
    pub fn chat_json(&self, json: String) -> Result<JsValue, JsValue> {
        let Some(request) = RequestInput::from_host_json(&json) else { return Ok(JsValue::NULL) };
        let turn = self.inner.chat_timed_turn(request.or_throw()?, None).map(|exchange| exchange_json(&exchange));
        Ok(answered(turn, &self.inner))
    }

    /// `stream` for a request serialized by the package; null when the walker must read it.
    #[wasm_bindgen(js_name = streamJson)]
    pub fn stream_json(&self, json: String) -> Result<JsValue, JsValue> {
        let Some(request) = RequestInput::from_host_json(&json) else { return Ok(JsValue::NULL) };
        let turn = self.inner.chat_stream_turn(request.or_throw()?, None).map(|result| stream_json(&result));
        Ok(answered(turn, &self.inner))
    }

    /// Answers as events: the outcome JSON, or a pending call.
    pub fn stream(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let request = request_of(&request)?;
        let turn = self.inner.chat_stream_turn(request, None).map(|result| stream_json(&result));
        Ok(answered(turn, &self.inner))
    }

    /// Answers one HTTP request with the wire protocols, for the in-process `fetch` (headers as `name:value`
    /// lines; the body a string or bytes; collapse `never`, `unless_waits`, `always` or `as_mock`).
    #[wasm_bindgen(js_name = handleHttp)]
    pub fn handle_http(
        &self,
        method: String,
        target: String,
        headers: String,
        body: JsValue,
        collapse: String,
    ) -> Result<JsValue, JsValue> {
        let collapse = collapse.parse::<Collapse>().or_throw()?.for_mock(self.inner.is_instant());
        let headers = headers_from_lines(&headers);
        let body = match body.as_string() {
            Some(text) => text.into_bytes(),
            None if body.is_instance_of::<js_sys::Uint8Array>() => js_sys::Uint8Array::new(&body).to_vec(),
            None => return Err(wrong_type("body", "a string or a Uint8Array", "another value")),
        };
        let request = cuecard::wire::HttpRequest::new(&method, &target, headers, body);
        let turn = cuecard::wire::handle_turn(&self.inner, &request).map(move |reply| http_reply_text(reply, collapse));
        Ok(answered(turn, &self.inner))
    }

    // ---- the journal -----------------------------------------------------------------------------------------

    /// The journal entries, oldest first (JSON).
    pub fn entries(&self) -> String {
        json_text(&self.inner.entries())
    }

    /// The journal entry of request `index` (JSON), or null.
    pub fn entry(&self, index: f64) -> Option<String> {
        if index.is_nan() || index < 0.0 {
            return None;
        }
        self.inner.entry(index as u64).map(|entry| json_text(&entry))
    }

    /// The requests received, in arrival order (JSON).
    pub fn requests(&self) -> String {
        json_text(&self.inner.requests())
    }

    /// The only request received (JSON); `request_count_mismatch` otherwise.
    pub fn request(&self) -> Result<String, JsValue> {
        Ok(json_text(&self.inner.request().or_throw()?))
    }

    /// The last request received (JSON); `request_count_mismatch` when there is none.
    #[wasm_bindgen(js_name = lastRequest)]
    pub fn last_request(&self) -> Result<String, JsValue> {
        Ok(json_text(&self.inner.last_request().or_throw()?))
    }

    /// The text of the only user message of the only request.
    #[wasm_bindgen(js_name = userMessageText)]
    pub fn user_message_text(&self) -> Result<String, JsValue> {
        self.inner.user_message_text().or_throw()
    }

    /// Number of requests received.
    #[wasm_bindgen(js_name = requestCount)]
    pub fn request_count(&self) -> f64 {
        self.inner.request_count() as f64
    }

    /// Counters by outcome (JSON).
    pub fn counts(&self) -> String {
        json_text(&self.inner.counts())
    }

    /// Steps no request took (JSON).
    #[wasm_bindgen(js_name = unusedSteps)]
    pub fn unused_steps(&self) -> String {
        json_text(&self.inner.unused_steps())
    }

    /// The realtime socket messages (none: the module serves no sockets), as JSON.
    #[wasm_bindgen(js_name = socketEvents)]
    pub fn socket_events(&self) -> String {
        json_text(&self.inner.socket_events())
    }

    /// The MCP journal: every message the scenario's MCP servers received, oldest first (JSON).
    #[wasm_bindgen(js_name = mcpEntries)]
    pub fn mcp_entries(&self) -> String {
        json_text(&self.inner.mcp_entries())
    }

    /// MCP tool steps no call took (JSON).
    #[wasm_bindgen(js_name = mcpUnusedSteps)]
    pub fn mcp_unused_steps(&self) -> String {
        json_text(&self.inner.mcp_unused_steps())
    }

    /// The journal entries of requests the script did not expect (JSON).
    #[wasm_bindgen(js_name = unexpectedRequests)]
    pub fn unexpected_requests(&self) -> String {
        json_text(&self.inner.unexpected_requests())
    }

    /// Provider-side call records, one per request (JSON).
    #[wasm_bindgen(js_name = callRecords)]
    pub fn call_records(&self) -> String {
        json_text(&self.inner.call_records())
    }

    /// Forgets every request and rewinds the script; ids restart.
    pub fn reset(&self) {
        self.inner.reset();
    }

    /// Advances the virtual clock by `ms`.
    #[wasm_bindgen(js_name = advanceClock)]
    pub fn advance_clock(&self, ms: f64) -> Result<(), JsValue> {
        if !(ms.is_finite() && ms >= 0.0) {
            return Err(wrong_type("ms", "a number of milliseconds >= 0", &ms.to_string()));
        }
        self.inner.advance_clock(ms as u64);
        Ok(())
    }

    /// The virtual clock, in milliseconds since the mock was created.
    #[wasm_bindgen(js_name = clockMs)]
    pub fn clock_ms(&self) -> f64 {
        self.inner.clock_ms() as f64
    }

    /// Whether the waiting forms skip the scripted delays.
    #[wasm_bindgen(getter)]
    pub fn instant(&self) -> bool {
        self.inner.is_instant()
    }

    /// Runs one check against this mock: `null` when it holds, else the failure's JSON. (wasm-bindgen takes no
    /// optional reference to an exported class, so the package's `runCheck(check, observer?)` is these two,
    /// joined in `node/wasm-backend.js`.)
    #[wasm_bindgen(js_name = runCheckAlone)]
    pub fn run_check_alone(&self, check: JsValue) -> Result<Option<String>, JsValue> {
        self.run_check(check, None)
    }

    /// Runs one check against this mock and the records of `observer`.
    #[wasm_bindgen(js_name = runCheckWithObserver)]
    pub fn run_check_with_observer(
        &self,
        check: JsValue,
        observer: &crate::observe::NativeObserver,
    ) -> Result<Option<String>, JsValue> {
        self.run_check(check, Some(observer.inner.as_ref()))
    }
}

impl NativeMock {
    fn run_check(
        &self,
        check: JsValue,
        observer: Option<&cuecard::RecordingObserver>,
    ) -> Result<Option<String>, JsValue> {
        let check: cuecard::verify::Check = data_of(&check, "check")?;
        match cuecard::verify::run_check(&self.inner, observer, &check) {
            Ok(()) => Ok(None),
            Err(failure) => Ok(Some(cuecard::Error::from(failure).to_json().to_string())),
        }
    }
}

impl Default for NativeMock {
    fn default() -> Self {
        NativeMock::new()
    }
}
