//! `NativeMock`: the scripted provider under the package's `MockModel` (`js/mock.js`), which gives it the seed
//! verbs' names and shapes. Each method converts its arguments and calls one core method.
//!
//! Answering never blocks the JS thread: `chat`, `stream` and `handleHttp` take the request (journaled at once,
//! in arrival order) and, when the step is computed by a JS function, stop there and return a `NativePending`
//! (core's `Turn`). The package awaits the function (sync or async) and resumes. Results cross as JSON text.

use crate::convert::{data_of, json_of, json_text};
use crate::errors::{wrong_type, Fallible};
use crate::pending::NativePending;
use cuecard::api::outcome::{exchange_json, headers_from_lines, http_reply_text, stream_json, Collapse};
use cuecard::api::{FailSpec, RequestInput, RouteOptions, StepInput, ToolCallSpec};
use cuecard::{ChatRequest, MockModel, MockSettings, Turn};
use napi::bindgen_prelude::*;
use napi::{Env, Unknown};
use napi_derive::napi;
use std::sync::Arc;

/// A JSON result, or a call waiting for a JS function's answer.
pub type Answered = Either<String, NativePending>;

/// The scripted provider.
#[napi]
pub struct NativeMock {
    pub(crate) inner: Arc<MockModel>,
}

/// A request as JS gives it: a user text, or an object in cuecard's neutral format.
pub fn request_of(env: &Env, value: &Unknown<'_>) -> napi::Result<ChatRequest> {
    RequestInput::from_value(json_of(env, value, "request")?).into_request().or_throw(env)
}

/// A request the package serialized with `JSON.stringify`, or `None` when the walker must read it
/// (`RequestInput::from_host_json`).
pub fn request_of_json(env: &Env, json: &str) -> napi::Result<Option<ChatRequest>> {
    RequestInput::from_host_json(json).map(|request| request.or_throw(env)).transpose()
}

fn answered(turn: Turn<String>, mock: &Arc<MockModel>) -> Answered {
    match turn {
        Turn::Done(json) => Either::A(json),
        Turn::Pending(pending) => Either::B(NativePending::new(pending, Arc::clone(mock))),
    }
}

#[napi]
impl NativeMock {
    /// A mock with no steps.
    #[napi(constructor)]
    pub fn new() -> Self {
        NativeMock { inner: Arc::new(MockModel::new()) }
    }

    /// Changes the settings given (`instant`, `usage`, `seed`, `provider_id`, `capabilities`, `on_exhausted`,
    /// `step_defaults`, `journal_limit`).
    #[napi]
    pub fn configure(&self, env: Env, settings: Unknown<'_>) -> napi::Result<()> {
        let settings: MockSettings = data_of(&env, &settings, "settings")?;
        self.inner.configure(&settings).or_throw(&env)
    }

    /// Every setting in force (JSON).
    #[napi]
    pub fn settings(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.settings())
    }

    /// Replaces the script with a scenario: an object, a JSON or YAML text, or the path of a JSON/YAML file.
    #[napi]
    pub fn load_scenario(&self, env: Env, scenario: Unknown<'_>) -> napi::Result<()> {
        let parsed = match scenario.get_type()? {
            ValueType::String => {
                let text: String = unsafe { scenario.cast()? };
                cuecard::Scenario::from_text_or_path(&text)
            }
            _ => cuecard::Scenario::from_value(json_of(&env, &scenario, "scenario")?),
        };
        self.inner.load_scenario(&parsed.or_throw(&env)?).or_throw(&env)
    }

    // ---- scripting -------------------------------------------------------------------------------------------

    /// Adds a step: a text (streamed in word-like tokens) or a step object.
    #[napi]
    pub fn then_responds(&self, env: Env, answer: Unknown<'_>) -> napi::Result<()> {
        let input = StepInput::from_value(json_of(&env, &answer, "answer")?, "answer").or_throw(&env)?;
        self.inner.then_responds(input).or_throw(&env)
    }

    /// Adds a step computed by the JS function the package keeps under `key`.
    #[napi]
    pub fn then_computes(&self, env: Env, key: u32) -> napi::Result<()> {
        self.inner.then_computes(crate::callback::responder(key)).or_throw(&env)
    }

    /// Adds a step streaming exactly these tokens.
    #[napi]
    pub fn then_streams(&self, env: Env, tokens: Unknown<'_>) -> napi::Result<()> {
        let tokens: Vec<String> = data_of(&env, &tokens, "tokens")?;
        self.inner.then_streams(tokens).or_throw(&env)
    }

    /// Adds a step calling one tool; arguments as an object, or raw JSON text (possibly invalid on purpose).
    #[napi]
    pub fn then_calls_tool(&self, env: Env, name: Unknown<'_>, arguments: Unknown<'_>) -> napi::Result<()> {
        let name = match name.get_type()? {
            ValueType::String => unsafe { name.cast::<String>()? },
            other => return Err(wrong_type(&env, "name", "a string", &format!("{other}"))),
        };
        let arguments = json_of(&env, &arguments, "arguments")?;
        self.inner.then_calls_tool(&name, arguments).or_throw(&env)
    }

    /// Adds a step calling several tools (`[{name, arguments | arguments_json, id?}]`).
    #[napi]
    pub fn then_calls_tools(&self, env: Env, calls: Unknown<'_>) -> napi::Result<()> {
        let calls: Vec<ToolCallSpec> = data_of(&env, &calls, "calls")?;
        self.inner.then_calls_tools(calls).or_throw(&env)
    }

    /// Adds a step failing before anything is streamed (`{kind, status?, message?, retryable?, ...}`).
    #[napi]
    pub fn then_fails(&self, env: Env, failure: Unknown<'_>) -> napi::Result<()> {
        let spec: FailSpec = data_of(&env, &failure, "failure")?;
        self.inner.then_fails(&spec).or_throw(&env)
    }

    /// Makes the last step fail after its thinking and text were streamed.
    #[napi]
    pub fn and_fails(&self, env: Env, failure: Unknown<'_>) -> napi::Result<()> {
        let spec: FailSpec = data_of(&env, &failure, "failure")?;
        self.inner.and_fails(&spec).or_throw(&env)
    }

    /// Answers every further request of the current route with its last step.
    #[napi]
    pub fn then_repeats(&self, env: Env) -> napi::Result<()> {
        self.inner.then_repeats().or_throw(&env)
    }

    /// Starts a route (`{operation?, model?, endpoint?, on_exhausted?}`).
    /// Returns the route's index.
    #[napi]
    pub fn route(&self, env: Env, options: Unknown<'_>) -> napi::Result<u32> {
        let options: RouteOptions = data_of(&env, &options, "route")?;
        let index = self.inner.route(&options.matcher(), options.on_exhausted).or_throw(&env)?;
        Ok(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// Empties route `index` and makes it current; the journal stays.
    #[napi]
    pub fn restart_route(&self, env: Env, index: u32) -> napi::Result<()> {
        self.inner.restart_route(index as usize).or_throw(&env)
    }

    // ---- answering -------------------------------------------------------------------------------------------

    /// Answers whole: `{"index", "delay_ms", "response"}` or `{"index", "delay_ms", "error"}`, or a pending call.
    #[napi(ts_return_type = "string | NativePending")]
    pub fn chat(&self, env: Env, request: Unknown<'_>) -> napi::Result<Answered> {
        let request = request_of(&env, &request)?;
        let turn = self.inner.chat_timed_turn(request, None).map(|exchange| exchange_json(&exchange));
        Ok(answered(turn, &self.inner))
    }

    /// `chat` for a request serialized by the package; null when the walker must read it (see `request_of_json`).
    #[napi(ts_return_type = "string | NativePending | null")]
    pub fn chat_json(&self, env: Env, json: String) -> napi::Result<Option<Answered>> {
        let Some(request) = request_of_json(&env, &json)? else { return Ok(None) };
        let turn = self.inner.chat_timed_turn(request, None).map(|exchange| exchange_json(&exchange));
        Ok(Some(answered(turn, &self.inner)))
    }

    /// `stream` for a request serialized by the package; null when the walker must read it.
    #[napi(ts_return_type = "string | NativePending | null")]
    pub fn stream_json(&self, env: Env, json: String) -> napi::Result<Option<Answered>> {
        let Some(request) = request_of_json(&env, &json)? else { return Ok(None) };
        let turn = self.inner.chat_stream_turn(request, None).map(|result| stream_json(&result));
        Ok(Some(answered(turn, &self.inner)))
    }

    /// Answers as events: `{"index", "events": [...]}` or `{"index", "error"}`, or a pending call.
    #[napi(ts_return_type = "string | NativePending")]
    pub fn stream(&self, env: Env, request: Unknown<'_>) -> napi::Result<Answered> {
        let request = request_of(&env, &request)?;
        let turn = self.inner.chat_stream_turn(request, None).map(|result| stream_json(&result));
        Ok(answered(turn, &self.inner))
    }

    /// Answers one HTTP request with the wire protocols (the server's own code), for the in-process `fetch`:
    /// the reply as `http_reply_text` writes it (collapse: `never`, `unless_waits`, `always` or `as_mock`), or
    /// a pending call.
    #[napi(ts_return_type = "string | NativePending")]
    pub fn handle_http(
        &self,
        env: Env,
        method: String,
        target: String,
        headers: String,
        body: Either<String, Buffer>,
        collapse: String,
    ) -> napi::Result<Answered> {
        let collapse = collapse.parse::<Collapse>().or_throw(&env)?.for_mock(self.inner.is_instant());
        let headers = headers_from_lines(&headers);
        let body = match body {
            Either::A(text) => text.into_bytes(),
            Either::B(bytes) => bytes.to_vec(),
        };
        let request = cuecard::wire::HttpRequest::new(&method, &target, headers, body);
        let turn = cuecard::wire::handle_turn(&self.inner, &request).map(move |reply| http_reply_text(reply, collapse));
        Ok(answered(turn, &self.inner))
    }

    // ---- the journal -----------------------------------------------------------------------------------------

    /// The journal entries, oldest first (JSON).
    #[napi]
    pub fn entries(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.entries())
    }

    /// The journal entry of request `index` (JSON), or null when the journal no longer keeps it.
    #[napi]
    pub fn entry(&self, env: Env, index: i64) -> napi::Result<Option<String>> {
        let Ok(index) = u64::try_from(index) else { return Ok(None) };
        self.inner.entry(index).map(|entry| json_text(&env, &entry)).transpose()
    }

    /// The requests received, in arrival order (JSON).
    #[napi]
    pub fn requests(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.requests())
    }

    /// The only request received (JSON); `request_count_mismatch` otherwise.
    #[napi]
    pub fn request(&self, env: Env) -> napi::Result<String> {
        let request = self.inner.request().or_throw(&env)?;
        json_text(&env, &request)
    }

    /// The last request received (JSON); `request_count_mismatch` when there is none.
    #[napi]
    pub fn last_request(&self, env: Env) -> napi::Result<String> {
        let request = self.inner.last_request().or_throw(&env)?;
        json_text(&env, &request)
    }

    /// The text of the only user message of the only request (LangChain4j's `userMessageText()`).
    #[napi]
    pub fn user_message_text(&self, env: Env) -> napi::Result<String> {
        self.inner.user_message_text().or_throw(&env)
    }

    /// Number of requests received.
    #[napi]
    pub fn request_count(&self) -> i64 {
        self.inner.request_count() as i64
    }

    /// Counters by outcome (JSON).
    #[napi]
    pub fn counts(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.counts())
    }

    /// Steps no request took (JSON).
    #[napi]
    pub fn unused_steps(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.unused_steps())
    }

    /// The realtime socket messages, both ways, in the order they crossed (JSON).
    #[napi]
    pub fn socket_events(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.socket_events())
    }

    /// The MCP journal: every message the scenario's MCP servers received, oldest first (JSON).
    #[napi]
    pub fn mcp_entries(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.mcp_entries())
    }

    /// MCP tool steps no call took (JSON).
    #[napi]
    pub fn mcp_unused_steps(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.mcp_unused_steps())
    }

    /// The journal entries of requests the script did not expect (JSON).
    #[napi]
    pub fn unexpected_requests(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.unexpected_requests())
    }

    /// Provider-side call records, one per request (JSON).
    #[napi]
    pub fn call_records(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.call_records())
    }

    /// Forgets every request and rewinds the script; ids restart.
    #[napi]
    pub fn reset(&self) {
        self.inner.reset();
    }

    /// Advances the virtual clock by `ms`.
    #[napi]
    pub fn advance_clock(&self, env: Env, ms: f64) -> napi::Result<()> {
        if !(ms.is_finite() && ms >= 0.0) {
            return Err(wrong_type(&env, "ms", "a number of milliseconds >= 0", &ms.to_string()));
        }
        self.inner.advance_clock(ms as u64);
        Ok(())
    }

    /// The virtual clock, in milliseconds since the mock was created.
    #[napi]
    pub fn clock_ms(&self) -> i64 {
        self.inner.clock_ms() as i64
    }

    /// Whether the waiting forms skip the scripted delays.
    #[napi(getter)]
    pub fn instant(&self) -> bool {
        self.inner.is_instant()
    }

    /// Runs one check (`{"check": "was_called_times", ...}`) against this mock and, if given, an observer's
    /// records: `null` when it holds, else the failure's JSON (the package throws an `AssertionError`).
    #[napi]
    pub fn run_check(
        &self,
        env: Env,
        check: Unknown<'_>,
        observer: Option<&crate::observe::NativeObserver>,
    ) -> napi::Result<Option<String>> {
        let check: cuecard::verify::Check = data_of(&env, &check, "check")?;
        let observer = observer.map(|o| o.inner.as_ref());
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
