//! cuecard's face for the Go package: the engine compiled to a WebAssembly module with a plain ABI, which the Go
//! package embeds and runs with wazero (pure Go: `go get` works on every GOOS/GOARCH, with no cgo and no C compiler).
//!
//! The ABI is three exports. `cuecard_alloc(len) -> ptr` gives the host a buffer to write a request into;
//! `cuecard_call(ptr, len) -> u64` takes that buffer (and frees it), runs one operation and answers with a buffer
//! packed as `ptr << 32 | len`, which the host reads and gives back with `cuecard_free(ptr, len)`. A request is a
//! JSON object `{"op": ..., "mock": id, ...}`; an answer is `{"ok": value}` or `{"error": <the core's error JSON>}`
//! (`code`, `message`, `issues`, `context`), so Go's typed errors carry the core's codes. Every rule stays in the
//! core: this file reads arguments and calls one core function per operation, as the C ABI does.
//!
//! A module instance is single-threaded: the Go package gives each mock an instance of its own and serialises the
//! calls to it.

use base64::Engine;
use cuecard::api::{FailSpec, StepInput};
use cuecard::{CallContext, CallError, Error, ErrorKind, MockModel, MockSettings, ObservationEvent, RecordingObserver};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    /// The mocks of this instance, by id (`id - 1`). A mock lives as long as its instance: the Go package gives
    /// each mock an instance of its own and closes it with the mock.
    static MOCKS: RefCell<Vec<Arc<MockModel>>> = const { RefCell::new(Vec::new()) };
    /// The servers' test routing (`/t/{id}/...` and `x-cuecard-test`, each over a mock), by id.
    static SERVERS: RefCell<Vec<cuecard::isolation::Tests>> = const { RefCell::new(Vec::new()) };
    /// The recorders of recordings being made (`recording_open`), by id; `recording_close` drops one. They live in
    /// the Go package's shared instance (the one `Tokenize` uses), which outlives every test.
    static RECORDERS: RefCell<Vec<Option<cuecard::record::Recorder>>> = const { RefCell::new(Vec::new()) };
    /// The observers of this instance (the engine attempts a host reports, for the checks that read them), by id.
    static OBSERVERS: RefCell<Vec<RecordingObserver>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of `len` bytes for the host to write a request into (`cuecard_call` takes it back).
#[unsafe(no_mangle)]
pub extern "C" fn cuecard_alloc(len: u32) -> u32 {
    let mut buffer = Vec::<u8>::with_capacity(len as usize);
    let pointer = buffer.as_mut_ptr();
    std::mem::forget(buffer);
    pointer as u32
}

/// Gives back an answer buffer of `cuecard_call`.
///
/// # Safety
/// `pointer` and `len` are an answer `cuecard_call` gave, not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_free(pointer: u32, len: u32) {
    // SAFETY: the buffer was a Vec<u8> of capacity `len` (an answer's, made by `answer`).
    drop(unsafe { Vec::from_raw_parts(pointer as *mut u8, 0, len as usize) });
}

/// Runs the request in the buffer (`cuecard_alloc`'s, `len` bytes written) and answers with a buffer packed as
/// `ptr << 32 | len`.
///
/// # Safety
/// `pointer` is a buffer `cuecard_alloc(len)` gave, with `len` bytes written, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_call(pointer: u32, len: u32) -> u64 {
    // SAFETY: the host's promise: a buffer of capacity and length `len`.
    let request = unsafe { Vec::from_raw_parts(pointer as *mut u8, len as usize, len as usize) };
    let answered = match serde_json::from_slice::<Value>(&request) {
        Ok(request) => run(&request),
        Err(e) => Err(Error::new(ErrorKind::InvalidArgument, format!("the request is not JSON: {e}")).into()),
    };
    let body = match answered {
        Ok(value) => json!({"ok": value}),
        Err(Failure::Cuecard(error)) => json!({"error": error.to_json()}),
        // A scripted provider failure (a chat answered with a 429): the provider's error, as the C ABI gives it.
        Err(Failure::Provider(error)) => json!({"error": {"code": "provider_error", "message": error.message,
                                                          "provider_error": error}}),
    };
    answer(body.to_string().into_bytes())
}

/// Hands `bytes` to the host: its capacity made its length, then packed.
fn answer(bytes: Vec<u8>) -> u64 {
    let mut bytes = bytes.into_boxed_slice().into_vec();
    let (pointer, len) = (bytes.as_mut_ptr() as u64, bytes.len() as u64);
    std::mem::forget(bytes);
    (pointer << 32) | len
}

/// Why an operation gave no value: one of cuecard's errors, or a scripted provider failure.
enum Failure {
    Cuecard(Error),
    Provider(cuecard::ProviderError),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure::Cuecard(error)
    }
}

impl From<CallError> for Failure {
    fn from(error: CallError) -> Failure {
        match error {
            CallError::Provider(e) => Failure::Provider(e),
            CallError::Cuecard(e) => Failure::Cuecard(e),
            CallError::Host(h) => Failure::Cuecard(h.to_error()),
        }
    }
}

fn invalid(what: String) -> Error {
    Error::new(ErrorKind::InvalidArgument, what)
}

/// The argument `key` of a request, read as `T`; a missing or wrong one is `invalid_argument` naming it.
fn argument<T: serde::de::DeserializeOwned>(request: &Value, key: &str) -> cuecard::Result<T> {
    let value = request.get(key).cloned().unwrap_or(Value::Null);
    serde_json::from_value(value).map_err(|e| invalid(format!("invalid {key}: {e}")).with_context("argument", key))
}

/// One operation.
fn run(request: &Value) -> Result<Value, Failure> {
    let op = request.get("op").and_then(Value::as_str).unwrap_or_default();
    match op {
        "version" => Ok(json!(cuecard::VERSION)),
        "tokenize" => Ok(json!(cuecard::tokenize::tokenize(&argument::<String>(request, "text")?).collect::<Vec<_>>())),
        "count_tokens" => Ok(json!(cuecard::tokenize::count_tokens(&argument::<String>(request, "text")?))),
        "new" => {
            let mock = match request.get("scenario") {
                // A scenario's text (JSON or YAML, as read from a file by the host) or its data.
                Some(Value::String(text)) => MockModel::from_scenario(&cuecard::Scenario::from_text(text)?)?,
                Some(value) if !value.is_null() => {
                    MockModel::from_scenario(&cuecard::Scenario::from_value(value.clone())?)?
                }
                _ => MockModel::new(),
            };
            if let Some(settings) = request.get("settings").filter(|s| !s.is_null()) {
                let settings: MockSettings = argument(&json!({"settings": settings}), "settings")?;
                mock.configure(&settings)?;
            }
            MOCKS.with(|mocks| {
                let mut mocks = mocks.borrow_mut();
                mocks.push(Arc::new(mock));
                Ok(json!(mocks.len()))
            })
        }
        // A server's routing over a mock: the unprefixed surface is the mock itself; `/t/{id}/...` (or the header
        // `x-cuecard-test`) is a test of its own, made from the mock's scenario at its first request, with the
        // per-test admin paths (`/_cuecard/t/{id}/journal`, ...), as `cuecard serve` routes.
        "serve" => {
            let mock = mock_of(request)?;
            let max_tests =
                argument::<Option<usize>>(request, "max_tests")?.unwrap_or(cuecard::isolation::DEFAULT_MAX_TESTS);
            let tests = cuecard::isolation::Tests::new(mock, max_tests, cuecard::isolation::DEFAULT_JOURNAL_TOTAL);
            SERVERS.with(|servers| {
                let mut servers = servers.borrow_mut();
                servers.push(tests);
                Ok(json!(servers.len()))
            })
        }
        "serve_http" => {
            let id: usize = argument(request, "server")?;
            let mut http: cuecard::wire::HttpRequest = argument(request, "request")?;
            let header = http.header(cuecard::isolation::TEST_HEADER).map(str::to_string);
            let reply = SERVERS.with(|servers| match servers.borrow().get(id.wrapping_sub(1)) {
                Some(tests) => Ok(match tests.select(&mut http, header.as_deref()) {
                    Ok(mock) => cuecard::wire::handle(&mock, &http),
                    Err(reply) => reply,
                }),
                None => Err(Error::new(ErrorKind::InvalidState, format!("no server {id}"))),
            })?;
            serde_json::to_value(&reply).map_err(|e| Error::new(ErrorKind::Internal, e.to_string()).into())
        }
        "recording_name" => Ok(json!(cuecard::record::recording_file_name(
            &argument::<Vec<String>>(request, "names")?.iter().map(String::as_str).collect::<Vec<_>>()
        ))),
        "recording_open" => recording_open(request),
        "recording_record" => recording_record(request),
        "recording_close" => {
            let id: usize = argument(request, "recorder")?;
            RECORDERS.with(|recorders| recorders.borrow_mut().get_mut(id.wrapping_sub(1)).map(Option::take));
            Ok(Value::Null)
        }
        "observer_new" => OBSERVERS.with(|observers| {
            let mut observers = observers.borrow_mut();
            observers.push(RecordingObserver::new());
            Ok(json!(observers.len()))
        }),
        "observer_start_call" => {
            let context: CallContext = argument(request, "context")?;
            with_observer(request, |observer| Ok(json!(observer.start_call(context))))
        }
        "observer_report" => {
            let (index, event): (usize, ObservationEvent) = (argument(request, "index")?, argument(request, "event")?);
            with_observer(request, |observer| Ok(observer.report(index, event).map(|()| Value::Null)?))
        }
        _ => on_mock(op, &*mock_of(request)?, request),
    }
}

/// Runs `f` on the observer the request names (`observer`).
fn with_observer(
    request: &Value,
    f: impl FnOnce(&RecordingObserver) -> Result<Value, Failure>,
) -> Result<Value, Failure> {
    let id: usize = argument(request, "observer")?;
    OBSERVERS.with(|observers| match observers.borrow().get(id.wrapping_sub(1)) {
        Some(observer) => f(observer),
        None => Err(Error::new(ErrorKind::InvalidState, format!("no observer {id}")).into()),
    })
}

/// Opens a recording from what the host read (the Go package does the file I/O): whether the file `path` exists and
/// its text, whether CI is set, today (days from 1970-01-01). The core decides (`what_a_recording_does`,
/// `recorder_for`): `{"records", "replays", "recorder": id or null}`.
fn recording_open(request: &Value) -> Result<Value, Failure> {
    let path: String = argument(request, "path")?;
    let mode: cuecard::record::RecordMode = argument::<String>(request, "mode")?.parse()?;
    let exists = request.get("text").is_some_and(|t| t.is_string());
    let (records, replays) = cuecard::record::what_a_recording_does(
        &path,
        mode,
        exists,
        argument(request, "ci")?,
        argument(request, "allow_in_ci")?,
    )?;
    let options = cuecard::record::RecordOptions {
        redact_texts: argument::<Option<Vec<String>>>(request, "redact")?.unwrap_or_default(),
        redact_fields: argument::<Option<Vec<String>>>(request, "redact_fields")?.unwrap_or_default(),
        description: argument(request, "description")?,
        ..cuecard::record::RecordOptions::default()
    };
    let text: Option<String> = argument(request, "text")?;
    let yaml = cuecard::record::is_yaml(std::path::Path::new(&path));
    let read = || cuecard::record::document_of_text(&path, text.as_deref().unwrap_or_default(), yaml);
    let recorder = cuecard::record::recorder_for(records, replays, exists, options, argument(request, "today")?, read)?;
    let id = recorder.map(|recorder| {
        RECORDERS.with(|recorders| {
            let mut recorders = recorders.borrow_mut();
            recorders.push(Some(recorder));
            recorders.len()
        })
    });
    // A replayed recording older than its `max_age_days` says so (the host shows it; the replay goes on).
    let today: i64 = argument(request, "today")?;
    let warning = (replays && exists)
        .then(|| cuecard::record::age_warning_of_text(&path, text.as_deref().unwrap_or_default(), yaml, today))
        .flatten();
    Ok(json!({"records": records, "replays": replays, "recorder": id, "yaml": yaml, "age_warning": warning}))
}

/// Records one exchange the host forwarded (`request` in the wire form; `reply` with `status`, `headers`,
/// `body_base64` and `cut`) and answers with the recording's whole text, for the host to write (`yaml` as
/// `recording_open` said: the core's rule for the path).
fn recording_record(request: &Value) -> Result<Value, Failure> {
    let id: usize = argument(request, "recorder")?;
    let http: cuecard::wire::HttpRequest = argument(request, "request")?;
    let reply: Value = argument(request, "reply")?;
    let body: String = argument(&reply, "body_base64")?;
    let body = base64::engine::general_purpose::STANDARD
        .decode(body.as_bytes())
        .map_err(|e| invalid(format!("reply.body_base64 is not base64: {e}")))?;
    let upstream = cuecard::record::UpstreamReply {
        status: argument(&reply, "status")?,
        headers: argument(&reply, "headers")?,
        headers_ms: 0,
        chunks: vec![(0, body)],
        cut: argument::<Option<bool>>(&reply, "cut")?.unwrap_or(false),
    };
    let yaml: bool = argument(request, "yaml")?;
    RECORDERS.with(|recorders| match recorders.borrow_mut().get_mut(id.wrapping_sub(1)).and_then(Option::as_mut) {
        Some(recorder) => {
            recorder.record(&http, &upstream)?;
            Ok(json!(recorder.to_text(yaml)?))
        }
        None => Err(Error::new(ErrorKind::InvalidState, format!("no recorder {id}")).into()),
    })
}

/// The mock the request names (`mock`).
fn mock_of(request: &Value) -> Result<Arc<MockModel>, Failure> {
    let id: usize = argument(request, "mock")?;
    let found = MOCKS.with(|mocks| mocks.borrow().get(id.wrapping_sub(1)).cloned());
    found.ok_or_else(|| Error::new(ErrorKind::InvalidState, format!("no mock {id} in this instance")).into())
}

/// An operation on one mock.
fn on_mock(op: &str, mock: &MockModel, request: &Value) -> Result<Value, Failure> {
    match op {
        "then_responds" => mock.then_responds(StepInput::from_value(argument(request, "step")?, "step")?)?,
        "then_streams" => mock.then_streams(argument::<Vec<String>>(request, "tokens")?)?,
        "then_calls_tool" => {
            mock.then_calls_tool(&argument::<String>(request, "name")?, argument(request, "arguments")?)?
        }
        "then_fails" => mock.then_fails(&argument::<FailSpec>(request, "fail")?)?,
        "and_fails" => mock.and_fails(&argument::<FailSpec>(request, "fail")?)?,
        "then_repeats" => mock.then_repeats()?,
        "configure" => mock.configure(&argument::<MockSettings>(request, "settings")?)?,
        "reset" => mock.reset(),
        "journal" => return Ok(cuecard::wire::journal_document(mock)),
        "handle_http" => {
            let http: cuecard::wire::HttpRequest = argument(request, "request")?;
            let reply = cuecard::wire::handle(mock, &http);
            // A recording that records forwards what its replay lacks: the host is told to, instead of the miss.
            let forwards = request.get("records").and_then(Value::as_bool).unwrap_or(false)
                && cuecard::record::RecordingFile::is_miss(
                    reply.header("x-cuecard-error").map(|v| ("x-cuecard-error", v)),
                );
            if forwards {
                return Ok(json!({"kind": "forward"}));
            }
            return serde_json::to_value(&reply).map_err(|e| Error::new(ErrorKind::Internal, e.to_string()).into());
        }
        "chat" => {
            // The request as neutral data (`{"messages": [...], "model": ...}`), answered as `chat` is.
            let chat = cuecard::api::RequestInput::from_value(argument(request, "request")?).into_request()?;
            let response = mock.chat_timed_raw(chat, None).result?;
            return serde_json::to_value(&*response).map_err(|e| Error::new(ErrorKind::Internal, e.to_string()).into());
        }
        "check" => {
            let check: cuecard::verify::Check = argument(request, "check")?;
            match request.get("observer").and_then(Value::as_u64) {
                Some(_) => with_observer(request, |observer| {
                    cuecard::verify::run_check(mock, Some(observer), &check).map_err(Error::from)?;
                    Ok(Value::Null)
                })?,
                None => cuecard::verify::run_check(mock, None, &check).map_err(Error::from).map(|()| Value::Null)?,
            };
        }
        other => return Err(invalid(format!("unknown operation {other:?}")).with_context("argument", "op").into()),
    }
    Ok(Value::Null)
}
