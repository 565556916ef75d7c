//! `cuecard_mock`: the scripted provider. Scripting with the seed verbs, answering (whole, streamed, and HTTP for a
//! host's own HTTP stack), the journal and the checks. Each export reads its arguments and calls one core method.

use crate::boundary::{
    borrow, c_string, data, free_handle, guard, into_handle, json, json_string, out, request_of_text, text, HandleKind,
};
use crate::callback::{cuecard_answer_fn, cuecard_destroy_fn, HostResponder};
use crate::errors::{cuecard_error, cuecard_status};
use crate::observe::cuecard_observer;
use cuecard::api::{FailSpec, RouteOptions, StepInput};
use cuecard::{MockModel, MockSettings, RecordingObserver};
use std::ffi::{c_char, c_void};
use std::sync::Arc;

/// A scripted provider. Thread-safe: share it between threads and with a server.
pub struct cuecard_mock {
    _private: [u8; 0],
}

/// The value behind a `cuecard_mock` handle.
pub(crate) struct Mock(pub Arc<MockModel>);

impl HandleKind for Mock {
    type C = cuecard_mock;
    const TAG: u64 = 0x6375_6563_6172_6401;
    const NAME: &'static str = "cuecard_mock";
}

/// The mock behind a handle argument.
pub(crate) unsafe fn mock<'a>(pointer: *const cuecard_mock) -> crate::errors::Outcome<&'a Arc<MockModel>> {
    // SAFETY: forwarded from the export's contract.
    unsafe { borrow::<Mock>(pointer, "mock") }.map(|m| &m.0)
}

/// Makes a mock with no steps. `settings_json` (may be NULL with length 0) is a settings object:
/// `{"instant", "usage", "seed", "provider_id", "capabilities", "on_exhausted", "step_defaults", "journal_limit"}`.
/// Caller owns `*out`; free it with `cuecard_mock_free`.
///
/// # Safety
/// Pointers are NULL or valid for their lengths; `out` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_new(
    settings_json: *const c_char,
    settings_len: usize,
    out_mock: *mut *mut cuecard_mock,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_mock, "out_mock")?;
        let mock = MockModel::new();
        if settings_len > 0 {
            // SAFETY: the caller's promise.
            let settings: MockSettings = unsafe { data(settings_json, settings_len, "settings_json")? };
            mock.configure(&settings)?;
        }
        *slot = into_handle(Mock(Arc::new(mock)));
        Ok(())
    })
}

/// Makes a mock from a scenario text, JSON (it starts with `{`) or YAML. Caller owns `*out_mock`.
///
/// # Safety
/// As for `cuecard_mock_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_from_scenario(
    scenario: *const c_char,
    scenario_len: usize,
    out_mock: *mut *mut cuecard_mock,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_mock, "out_mock")?;
        // SAFETY: the caller's promise.
        let scenario = cuecard::Scenario::from_text(unsafe { text(scenario, scenario_len, "scenario")? })?;
        *slot = into_handle(Mock(Arc::new(MockModel::from_scenario(&scenario)?)));
        Ok(())
    })
}

/// Makes a mock from a scenario file (YAML for `.yaml`/`.yml`, JSON otherwise). Caller owns `*out_mock`.
///
/// # Safety
/// As for `cuecard_mock_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_from_scenario_file(
    path: *const c_char,
    path_len: usize,
    out_mock: *mut *mut cuecard_mock,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_mock, "out_mock")?;
        // SAFETY: the caller's promise.
        let scenario = cuecard::Scenario::from_path(unsafe { text(path, path_len, "path")? })?;
        *slot = into_handle(Mock(Arc::new(MockModel::from_scenario(&scenario)?)));
        Ok(())
    })
}

/// Frees a mock handle (a server or computed answer still using the mock keeps it alive). NULL is a no-op.
///
/// # Safety
/// `mock` is NULL or a live handle, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_free(mock: *mut cuecard_mock) {
    // SAFETY: the caller's promise.
    unsafe { free_handle::<Mock>(mock) }
}

/// Adds a step to the current route: `step_json` is a JSON text (`"Hello!"`, streamed in word-like tokens) or a
/// step object (`{"tool_calls": [...]}`, `{"fail": {...}}`, ...).
///
/// # Safety
/// `mock` is a live handle; pointers are valid for their lengths; `err` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_then_responds(
    mock: *const cuecard_mock,
    step_json: *const c_char,
    step_len: usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        let (mock, input) = unsafe { (self::mock(mock)?, json(step_json, step_len, "step_json")?) };
        mock.then_responds(StepInput::from_value(input, "step_json")?)?;
        Ok(())
    })
}

/// Adds a step streaming exactly these tokens (`tokens_json` is a JSON array of strings; `[]` is an answer without
/// text).
///
/// # Safety
/// As for `cuecard_mock_then_responds`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_then_streams(
    mock: *const cuecard_mock,
    tokens_json: *const c_char,
    tokens_len: usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        let (mock, tokens) =
            unsafe { (self::mock(mock)?, data::<Vec<String>>(tokens_json, tokens_len, "tokens_json")?) };
        mock.then_streams(tokens)?;
        Ok(())
    })
}

/// Adds a step calling one tool. `arguments_json` is the arguments as JSON; a JSON string is raw arguments text
/// (possibly invalid on purpose); NULL or `null` means `{}`.
///
/// # Safety
/// As for `cuecard_mock_then_responds`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_then_calls_tool(
    mock: *const cuecard_mock,
    name: *const c_char,
    name_len: usize,
    arguments_json: *const c_char,
    arguments_len: usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        let (mock, name) = unsafe { (self::mock(mock)?, text(name, name_len, "name")?) };
        let arguments = match arguments_len {
            0 => serde_json::Value::Null,
            // SAFETY: the caller's promise.
            _ => unsafe { json(arguments_json, arguments_len, "arguments_json")? },
        };
        mock.then_calls_tool(name, arguments)?;
        Ok(())
    })
}

/// Adds a step failing before anything is streamed: `fail_json` is `{"kind", "status"?, "message"?, "retryable"?,
/// "retry_after_ms"?, "error_type"?, "error_code"?}`.
///
/// # Safety
/// As for `cuecard_mock_then_responds`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_then_fails(
    mock: *const cuecard_mock,
    fail_json: *const c_char,
    fail_len: usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        let (mock, failure) = unsafe { (self::mock(mock)?, data::<FailSpec>(fail_json, fail_len, "fail_json")?) };
        mock.then_fails(&failure)?;
        Ok(())
    })
}

/// Makes the last step fail after its thinking and text were streamed (`fail_json` as for `then_fails`).
///
/// # Safety
/// As for `cuecard_mock_then_responds`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_and_fails(
    mock: *const cuecard_mock,
    fail_json: *const c_char,
    fail_len: usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        let (mock, failure) = unsafe { (self::mock(mock)?, data::<FailSpec>(fail_json, fail_len, "fail_json")?) };
        mock.and_fails(&failure)?;
        Ok(())
    })
}

/// Answers every further request of the current route with its last step; it must end the route.
///
/// # Safety
/// `mock` is a live handle; `err` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_then_repeats(
    mock: *const cuecard_mock,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    // SAFETY: the caller's promise.
    guard(err, || unsafe { self::mock(mock)? }.then_repeats().map_err(Into::into))
}

/// Adds a step whose answer `answer` computes from the request, when the request arrives (possibly on a server
/// thread: the function must be thread-safe if the mock is served or shared). It is called with `user_data`, the
/// request as JSON, and an answer slot to fill with `cuecard_answer_set_json` (a text or a step object) or
/// `cuecard_answer_fail` (the host's own error). `destroy`, if not NULL, is called with `user_data` once the mock
/// no longer needs it.
///
/// # Safety
/// `mock` is a live handle; `answer` is a valid function; `user_data` stays valid until `destroy` is called.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_then_computes(
    mock: *const cuecard_mock,
    answer: cuecard_answer_fn,
    user_data: *mut c_void,
    destroy: cuecard_destroy_fn,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // Take ownership of user_data first, so `destroy` runs whatever happens next.
        let responder = HostResponder::new(answer, user_data, destroy);
        // SAFETY: the caller's promise.
        let mock = unsafe { self::mock(mock)? };
        mock.then_computes(Arc::new(responder.ok_or_else(|| crate::errors::invalid("answer", "is NULL"))?))?;
        Ok(())
    })
}

/// Starts a route: the steps added next answer only requests matching every given criterion. `route_json` is
/// `{"operation"?, "model"?, "endpoint"?, "on_exhausted"?}`; `{}` takes every other request and belongs last.
///
/// # Safety
/// As for `cuecard_mock_then_responds`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_route(
    mock: *const cuecard_mock,
    route_json: *const c_char,
    route_len: usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        let (mock, route) = unsafe { (self::mock(mock)?, data::<RouteOptions>(route_json, route_len, "route_json")?) };
        mock.route(&route.matcher(), route.on_exhausted)?;
        Ok(())
    })
}

/// Changes the settings `settings_json` gives (as for `cuecard_mock_new`).
///
/// # Safety
/// As for `cuecard_mock_then_responds`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_configure(
    mock: *const cuecard_mock,
    settings_json: *const c_char,
    settings_len: usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        let mock = unsafe { self::mock(mock)? };
        // SAFETY: the caller's promise.
        let settings: MockSettings = unsafe { data(settings_json, settings_len, "settings_json")? };
        mock.configure(&settings)?;
        Ok(())
    })
}

/// Answers a request whole. `request_json` is a request in cuecard's neutral format, or a JSON string (one user
/// message to `cuecard-mock`). On success `*out_response_json` is the response; a scripted failure is
/// `CUECARD_STATUS_PROVIDER_ERROR`. `out_delay_ms` (may be NULL) receives the virtual time the answer took.
/// Caller owns `*out_response_json`; free it with `cuecard_string_free`.
///
/// # Safety
/// `mock` is a live handle; pointers are valid for their lengths; out-parameters are NULL (where allowed) or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_chat(
    mock: *const cuecard_mock,
    request_json: *const c_char,
    request_len: usize,
    out_response_json: *mut *mut c_char,
    out_delay_ms: *mut u64,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_response_json, "out_response_json")?;
        // SAFETY: the caller's promise.
        let (mock, request) = unsafe { (self::mock(mock)?, text(request_json, request_len, "request_json")?) };
        let exchange = mock.chat_timed_raw(request_of_text(request, "request_json")?, None);
        let response = exchange.result?;
        *slot = json_string(&*response)?;
        // SAFETY: NULL or writable (the caller's promise).
        if let Some(delay) = unsafe { out_delay_ms.as_mut() } {
            *delay = exchange.delay_ms;
        }
        Ok(())
    })
}

/// Answers a request as a stream: `*out_events_json` is the array of events, each with `type`, `delay_ms` and
/// `at_ms` (a scripted failure is the last event, not an error). Caller owns it; free it with `cuecard_string_free`.
///
/// # Safety
/// As for `cuecard_mock_chat`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_stream(
    mock: *const cuecard_mock,
    request_json: *const c_char,
    request_len: usize,
    out_events_json: *mut *mut c_char,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_events_json, "out_events_json")?;
        // SAFETY: the caller's promise.
        let (mock, request) = unsafe { (self::mock(mock)?, text(request_json, request_len, "request_json")?) };
        let stream = mock.chat_stream(request_of_text(request, "request_json")?)?;
        *slot = json_string(stream.events())?;
        Ok(())
    })
}

/// Answers one HTTP request with the wire protocols, for a host that serves its own HTTP stack: `method`,
/// `target` (path and optional query), `headers_json` (`[["name", "value"], ...]`, may be NULL with length 0) and
/// the raw body. `*out_reply_json` is the reply: `{"kind": "full", "delay_ms", "status", "headers", "body"}`,
/// `{"kind": "stream", "stall_ms", "status", "headers", "frames": [{"delay_ms", "data"}], "end": "close"|"cut"}`
/// (plus `"base64": true` when each frame's data is base64 of bytes, and `"separate_writes": true` when each frame
/// must be its own write: the `delivery` setting, `docs/concepts/delivery.md`) or `{"kind": "abort", "delay_ms"}` (see
/// `docs/concepts/wire.md`). The request is journaled. Caller owns the reply.
///
/// # Safety
/// As for `cuecard_mock_chat`; `body` is NULL (length 0) or valid for `body_len` bytes.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cuecard_mock_handle_http(
    mock: *const cuecard_mock,
    method: *const c_char,
    method_len: usize,
    target: *const c_char,
    target_len: usize,
    headers_json: *const c_char,
    headers_len: usize,
    body: *const u8,
    body_len: usize,
    out_reply_json: *mut *mut c_char,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_reply_json, "out_reply_json")?;
        // SAFETY: the caller's promise.
        let (mock, method, target) =
            unsafe { (self::mock(mock)?, text(method, method_len, "method")?, text(target, target_len, "target")?) };
        let headers: Vec<(String, String)> = match headers_len {
            0 => Vec::new(),
            // SAFETY: the caller's promise.
            _ => unsafe { data(headers_json, headers_len, "headers_json")? },
        };
        let body = match (body.is_null(), body_len) {
            (_, 0) => Vec::new(),
            (true, _) => return Err(crate::errors::invalid("body", "is NULL")),
            // SAFETY: the caller promises `body_len` readable bytes.
            (false, len) => unsafe { std::slice::from_raw_parts(body, len) }.to_vec(),
        };
        let reply = cuecard::wire::handle(mock, &cuecard::wire::HttpRequest::new(method, target, headers, body));
        *slot = json_string(&reply)?;
        Ok(())
    })
}

/// Runs one check: `check_json` is a check object (`{"check": "was_called_times", "operation": "greet", "times":
/// 2}`, see `docs/concepts/face.md`), judged against the mock and, if `observer` is not NULL, its call records. A check that
/// does not hold is `CUECARD_STATUS_ASSERTION_FAILED` with the message (expected, actual, history).
///
/// # Safety
/// `mock` is a live handle, `observer` NULL or a live handle; pointers are valid for their lengths.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_check(
    mock: *const cuecard_mock,
    observer: *const cuecard_observer,
    check_json: *const c_char,
    check_len: usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        let mock = unsafe { self::mock(mock)? };
        let observer: Option<&RecordingObserver> = match observer.is_null() {
            true => None,
            // SAFETY: the caller's promise.
            false => Some(unsafe { crate::observe::observer(observer)? }),
        };
        // SAFETY: the caller's promise.
        let check: cuecard::verify::Check = unsafe { data(check_json, check_len, "check_json")? };
        cuecard::verify::run_check(mock, observer, &check).map_err(cuecard::Error::from)?;
        Ok(())
    })
}

/// The journal as JSON: `{"count", "counts", "unused_steps", "entries"}` (as `GET /_cuecard/journal` gives it).
/// Caller owns `*out_journal_json`; free it with `cuecard_string_free`.
///
/// # Safety
/// `mock` is a live handle; `out_journal_json` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_journal(
    mock: *const cuecard_mock,
    out_journal_json: *mut *mut c_char,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_journal_json, "out_journal_json")?;
        // SAFETY: the caller's promise.
        let mock = unsafe { self::mock(mock)? };
        *slot = c_string(cuecard::wire::journal_document(mock).to_string())?;
        Ok(())
    })
}

/// The settings in force, as JSON. Caller owns `*out_settings_json`.
///
/// # Safety
/// As for `cuecard_mock_journal`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_settings(
    mock: *const cuecard_mock,
    out_settings_json: *mut *mut c_char,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_settings_json, "out_settings_json")?;
        // SAFETY: the caller's promise.
        *slot = json_string(&unsafe { self::mock(mock)? }.settings())?;
        Ok(())
    })
}

/// Forgets every request and rewinds the script; ids restart.
///
/// # Safety
/// `mock` is a live handle; `err` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_mock_reset(mock: *const cuecard_mock, err: *mut *mut cuecard_error) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        unsafe { self::mock(mock)? }.reset();
        Ok(())
    })
}
