//! The `static native` methods of `dev.cuecard.internal.Native`. Each reads its arguments, calls one core method
//! and returns JSON text, an id or nothing; the Java package gives them types.

use super::handles::{self, Native};
use super::{java_bytes, java_string, json_text, optional_text, run, text, utf8, JsonFunction, Outcome, Thrown};
use crate::boundary::{data_of_text, json_of_text, request_of_text};
use cuecard::api::outcome::{exchange_json, stream_json, tool_outcome_json};
use cuecard::api::{FailSpec, RouteOptions, StepInput, ToolCallSpec};
use cuecard::record::{ProxyOptions, RecordingProxy, RecordingSettings};
use cuecard::{MockModel, MockSettings, RecordingObserver, Server, ServerOptions};
use jni::objects::{JByteArray, JClass, JObject, JString};
use jni::sys::{jbyteArray, jint, jlong, jstring};
use jni::EnvUnowned;
use std::sync::Arc;

/// A request as Java gives it: a user text or an object in cuecard's neutral format, as JSON.
fn request_of(json: &str) -> Outcome<cuecard::ChatRequest> {
    Ok(request_of_text(json, "request")?)
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_version<'l>(env: EnvUnowned<'l>, _: JClass<'l>) -> jstring {
    run(env, |env| java_string(env, cuecard::VERSION))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_tokenize<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    value: JString<'l>,
) -> jstring {
    run(env, |env| {
        let value = text(env, &value, "text")?;
        java_string(env, json_text(&cuecard::tokenize(&value).collect::<Vec<&str>>()))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_countTokens<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    value: JString<'l>,
) -> jlong {
    run(env, |env| Ok(cuecard::count_tokens(&text(env, &value, "text")?) as jlong))
}

/// `[[code, number, description], ...]`: every error kind, for the package's exception classes and the vectors.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_errorCatalogue<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
) -> jstring {
    run(env, |env| {
        let rows: Vec<_> = cuecard::ErrorKind::ALL.iter().map(|k| (k.code(), k.number(), k.description())).collect();
        java_string(env, json_text(&rows))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_drift<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    path: JString<'l>,
) -> jstring {
    run(env, |env| {
        let path = text(env, &path, "path")?;
        java_string(env, json_text(&cuecard::record::drift_file(path)?.to_json()))
    })
}

/// Forgets a handle (close()). Unknown or already released ids are ignored.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_release<'l>(env: EnvUnowned<'l>, _: JClass<'l>, id: jlong) {
    run(env, |_| {
        // A server stops when its last holder lets go; stop it now so close() returns with the port free.
        match handles::release(id) {
            Some(Native::Server(server)) => server.stop(),
            Some(Native::Proxy(proxy)) => proxy.stop(),
            _ => {}
        }
        Ok(())
    })
}

// ---- the mock ------------------------------------------------------------------------------------------------

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockNew<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    settings: JString<'l>,
) -> jlong {
    run(env, |env| {
        let mock = MockModel::new();
        if let Some(settings) = optional_text(env, &settings, "settings")? {
            mock.configure(&data_of_text::<MockSettings>(&settings, "settings")?)?;
        }
        Ok(handles::register(Native::Mock(Arc::new(mock))))
    })
}

/// A mock from a scenario: JSON or YAML text, or (`is_path`) the path of a file.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockFromScenario<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    scenario: JString<'l>,
    is_path: bool,
) -> jlong {
    run(env, |env| {
        let scenario = text(env, &scenario, if is_path { "path" } else { "scenario" })?;
        let scenario = match is_path {
            true => cuecard::Scenario::from_path(&scenario)?,
            false => cuecard::Scenario::from_text(&scenario)?,
        };
        Ok(handles::register(Native::Mock(Arc::new(MockModel::from_scenario(&scenario)?))))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockConfigure<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    settings: JString<'l>,
) {
    run(env, |env| {
        let settings = data_of_text::<MockSettings>(&text(env, &settings, "settings")?, "settings")?;
        Ok(handles::mock(mock, "mock")?.configure(&settings)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockSettings<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
) -> jstring {
    run(env, |env| {
        let settings = handles::mock(mock, "mock")?.settings();
        java_string(env, json_text(&settings))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockThenResponds<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    step: JString<'l>,
) {
    run(env, |env| {
        let step = StepInput::from_value(json_of_text(&text(env, &step, "answer")?, "answer")?, "answer")?;
        Ok(handles::mock(mock, "mock")?.then_responds(step)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockThenStreams<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    tokens: JString<'l>,
) {
    run(env, |env| {
        let tokens = data_of_text::<Vec<String>>(&text(env, &tokens, "tokens")?, "tokens")?;
        Ok(handles::mock(mock, "mock")?.then_streams(tokens)?)
    })
}

/// Adds a step calling tools: `[{name, arguments | arguments_json, id?}]`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockThenCallsTools<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    calls: JString<'l>,
) {
    run(env, |env| {
        let calls = data_of_text::<Vec<ToolCallSpec>>(&text(env, &calls, "calls")?, "calls")?;
        Ok(handles::mock(mock, "mock")?.then_calls_tools(calls)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockThenFails<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    failure: JString<'l>,
    after_text: bool,
) {
    run(env, |env| {
        let failure = data_of_text::<FailSpec>(&text(env, &failure, "failure")?, "failure")?;
        let mock = handles::mock(mock, "mock")?;
        match after_text {
            true => mock.and_fails(&failure)?,
            false => mock.then_fails(&failure)?,
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockThenRepeats<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
) {
    run(env, |_| Ok(handles::mock(mock, "mock")?.then_repeats()?))
}

/// A computed answer implemented by a Java function: the request in, a text or a step object out, both as JSON.
struct JavaResponder(JsonFunction);

impl cuecard::Responder for JavaResponder {
    fn respond(&self, request: &cuecard::ChatRequest) -> Result<cuecard::Step, cuecard::CallError> {
        cuecard::api::step_from_answer_json(&self.0.call(&json_text(request))?)
    }
}

/// Adds a step computed by a `JsonFunction`: it gets the request as JSON and returns a text or a step object as
/// JSON.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockThenComputes<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    function: JObject<'l>,
) {
    run(env, |env| {
        let function = JsonFunction::new(env, &function, "answer")?;
        Ok(handles::mock(mock, "mock")?.then_computes(Arc::new(JavaResponder(function)))?)
    })
}

/// Starts a route (`{operation?, model?, endpoint?, on_exhausted?}`); returns its index.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockRoute<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    route: JString<'l>,
) -> jint {
    run(env, |env| {
        let route = data_of_text::<RouteOptions>(&text(env, &route, "route")?, "route")?;
        let index = handles::mock(mock, "mock")?.route(&route.matcher(), route.on_exhausted)?;
        Ok(jint::try_from(index).unwrap_or(jint::MAX))
    })
}

/// Answers whole: `{"index", "delay_ms", "response"}` or `{"index", "delay_ms", "error"}` (the Java side waits out
/// the delay, then raises). A Java exception from a computed answer is thrown at once, unchanged.
///
/// The request and the answer cross as UTF-8 bytes, not `String`s: Java writes and reads JSON as bytes anyway
/// (Jackson), and a `String` crossing converts to and from JNI's modified UTF-8 both ways.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockChat<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    request: JByteArray<'l>,
) -> jbyteArray {
    run(env, |env| {
        let request = request_of(&utf8(env, &request, "request")?)?;
        let exchange = handles::mock(mock, "mock")?.chat_timed_raw(request, None);
        if let Err(error @ cuecard::CallError::Host(_)) = &exchange.result {
            return Err(Thrown::from(error.clone()));
        }
        java_bytes(env, exchange_json(&exchange))
    })
}

/// Answers as events: `{"index", "events": [...]}` or `{"index", "error"}` (bytes both ways, as `mockChat`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockStream<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    request: JByteArray<'l>,
) -> jbyteArray {
    run(env, |env| {
        let request = request_of(&utf8(env, &request, "request")?)?;
        let result = handles::mock(mock, "mock")?.chat_stream_raw(request, None);
        if let Err((_, error @ cuecard::CallError::Host(_))) = &result {
            return Err(Thrown::from(error.clone()));
        }
        java_bytes(env, stream_json(&result))
    })
}

/// Answers one HTTP request with the wire protocols: the reply as JSON (`{"kind": "full" | "stream" | "abort", ...}`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockHandleHttp<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    method: JString<'l>,
    target: JString<'l>,
    headers: JString<'l>,
    body: JByteArray<'l>,
) -> jstring {
    run(env, |env| {
        let (method, target) = (text(env, &method, "method")?, text(env, &target, "target")?);
        let headers = data_of_text::<Vec<(String, String)>>(&text(env, &headers, "headers")?, "headers")?;
        let body = if body.is_null() { Vec::new() } else { env.convert_byte_array(&body)? };
        let mock = handles::mock(mock, "mock")?;
        let reply = cuecard::wire::handle(&mock, &cuecard::wire::HttpRequest::new(&method, &target, headers, body));
        java_string(env, json_text(&reply))
    })
}

/// Runs one check (`{"check": ...}`), with an observer's records when `observer` is not 0.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockCheck<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    observer: jlong,
    check: JString<'l>,
) {
    run(env, |env| {
        let check = data_of_text::<cuecard::verify::Check>(&text(env, &check, "check")?, "check")?;
        let mock = handles::mock(mock, "mock")?;
        let observer = match observer {
            0 => None,
            id => Some(handles::observer(id, "observer")?),
        };
        cuecard::verify::run_check(&mock, observer.as_deref(), &check).map_err(cuecard::Error::from)?;
        Ok(())
    })
}

/// What the mock knows, by `what`: `journal` (the HTTP journal document), `entries`, `requests`, `only_request`,
/// `last_request` (core's errors when there is not exactly one / none), `unused_steps`, `unexpected_requests`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockRead<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    what: JString<'l>,
) -> jstring {
    run(env, |env| {
        let (mock, what) = (handles::mock(mock, "mock")?, text(env, &what, "what")?);
        let json = match what.as_str() {
            "journal" => cuecard::wire::journal_document(&mock).to_string(),
            "entries" => json_text(&mock.entries()),
            "requests" => json_text(&mock.requests()),
            "only_request" => json_text(&mock.request()?),
            "last_request" => json_text(&mock.last_request()?),
            "unused_steps" => json_text(&mock.unused_steps()),
            "mcp_entries" => json_text(&mock.mcp_entries()),
            "mcp_unused_steps" => json_text(&mock.mcp_unused_steps()),
            "unexpected_requests" => json_text(&mock.unexpected_requests()),
            other => return Err(crate::errors::invalid("what", format!("names nothing to read: {other}")).into()),
        };
        java_string(env, json)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_mockReset<'l>(env: EnvUnowned<'l>, _: JClass<'l>, mock: jlong) {
    run(env, |_| {
        handles::mock(mock, "mock")?.reset();
        Ok(())
    })
}

// ---- observer, server, tool, memory ----------------------------------------------------------------------------

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_observerNew<'l>(env: EnvUnowned<'l>, _: JClass<'l>) -> jlong {
    run(env, |_| Ok(handles::register(Native::Observer(Arc::new(RecordingObserver::new())))))
}

/// Starts a call record (`{operation?, service?, provider_id?, model?, attempt?}`); returns its index.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_observerStartCall<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    observer: jlong,
    context: JString<'l>,
) -> jlong {
    run(env, |env| {
        let context = data_of_text::<cuecard::CallContext>(&text(env, &context, "context")?, "context")?;
        Ok(handles::observer(observer, "observer")?.start_call(context) as jlong)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_observerReport<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    observer: jlong,
    index: jlong,
    event: JString<'l>,
) {
    run(env, |env| {
        let event = data_of_text::<cuecard::ObservationEvent>(&text(env, &event, "event")?, "event")?;
        let index = usize::try_from(index).map_err(|_| crate::errors::invalid("index", "is negative"))?;
        Ok(handles::observer(observer, "observer")?.report(index, event)?)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_observerRecords<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    observer: jlong,
) -> jstring {
    run(env, |env| {
        let records = handles::observer(observer, "observer")?.call_records();
        java_string(env, json_text(&records))
    })
}

/// Serves `mock` over HTTP (`options`: `{host?, port?, ...}` or null); returns the server's id.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_serverStart<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    mock: jlong,
    options: JString<'l>,
) -> jlong {
    run(env, |env| {
        let options = match optional_text(env, &options, "options")? {
            Some(options) => data_of_text::<ServerOptions>(&options, "options")?,
            None => ServerOptions::default(),
        };
        let server = Server::start_with(handles::mock(mock, "mock")?, options)?;
        Ok(handles::register(Native::Server(Arc::new(server))))
    })
}

/// `{"openai_base_url", "anthropic_base_url", "port"}`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_serverInfo<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    server: jlong,
) -> jstring {
    run(env, |env| {
        let server = handles::server(server, "server")?;
        let info = serde_json::json!({
            "openai_base_url": server.openai_base_url(),
            "anthropic_base_url": server.anthropic_base_url(),
            "port": server.addr().port(),
        });
        java_string(env, info.to_string())
    })
}

/// Starts a recording proxy on the file at `path` (`settings` as core's `RecordingSettings`, `options` as
/// `ProxyOptions` or null); returns its id.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_recordingProxyStart<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    path: JString<'l>,
    settings: JString<'l>,
    options: JString<'l>,
) -> jlong {
    run(env, |env| {
        let path = text(env, &path, "path")?;
        let settings: RecordingSettings = data_of_text(&text(env, &settings, "settings")?, "settings")?;
        let options = match optional_text(env, &options, "options")? {
            Some(options) => data_of_text::<ProxyOptions>(&options, "options")?,
            None => ProxyOptions::default(),
        };
        let proxy = RecordingProxy::start(&path, &settings, &options)?;
        Ok(handles::register(Native::Proxy(Arc::new(proxy))))
    })
}

/// `{"base_url", "openai_base_url", "replays", "records", "recorded", "age_warning"}`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_recordingProxyInfo<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    proxy: jlong,
) -> jstring {
    run(env, |env| {
        let proxy = handles::proxy(proxy, "proxy")?;
        let info = serde_json::json!({
            "base_url": proxy.base_url(),
            "openai_base_url": proxy.openai_base_url(),
            "replays": proxy.replays(),
            "records": proxy.records(),
            "recorded": proxy.recorded(),
            "age_warning": proxy.age_warning(),
        });
        java_string(env, info.to_string())
    })
}

/// Checks that a replaying proxy's recording was used whole (`script_fully_used`); nothing when it records.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_recordingProxyCheck<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    proxy: jlong,
) {
    run(env, |_| {
        let proxy = handles::proxy(proxy, "proxy")?;
        if let (Some(mock), false) = (proxy.replay_mock(), proxy.records()) {
            cuecard::verify::run_check(mock, None, &cuecard::verify::Check::ScriptFullyUsed)
                .map_err(cuecard::Error::from)?;
        }
        Ok(())
    })
}

/// The file of a test's recording, relative to its directory (core's rule): `names` is a JSON list of strings.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_recordingPathForTest<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    module: JString<'l>,
    names: JString<'l>,
) -> jstring {
    run(env, |env| {
        let module = text(env, &module, "module")?;
        let names: Vec<String> = data_of_text(&text(env, &names, "names")?, "names")?;
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        java_string(env, cuecard::record::recording_path_for_test(&module, &names))
    })
}

/// A mock tool (`options` as `MockToolOptions`), computed by `function` when it is not null.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_toolNew<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    options: JString<'l>,
    function: JObject<'l>,
) -> jlong {
    run(env, |env| {
        let options = data_of_text::<cuecard::MockToolOptions>(&text(env, &options, "options")?, "options")?;
        let function: Option<cuecard::tools::ToolFunction> = match function.is_null() {
            true => None,
            false => {
                let function = JsonFunction::new(env, &function, "function")?;
                Some(Arc::new(move |arguments: &serde_json::Value| {
                    cuecard::api::tool_result_from_json(&function.call(&arguments.to_string())?)
                }))
            }
        };
        let tool = cuecard::MockTool::from_options(options, function)?;
        Ok(handles::register(Native::Tool(Arc::new(tool))))
    })
}

/// Invokes a tool with JSON arguments (a JSON string is raw arguments text): `{"delay_ms", "result" | "error"}`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_toolInvoke<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    tool: jlong,
    arguments: JString<'l>,
) -> jstring {
    run(env, |env| {
        let arguments = json_of_text(&text(env, &arguments, "arguments")?, "arguments")?;
        let tool = handles::tool(tool, "tool")?;
        let timed = match &arguments {
            serde_json::Value::String(raw) => tool.invoke_json(raw),
            other => tool.invoke(other),
        };
        if let Err(error @ cuecard::CallError::Host(_)) = &timed.value {
            return Err(Thrown::from(error.clone()));
        }
        java_string(env, tool_outcome_json(&timed))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_toolInvocations<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    tool: jlong,
) -> jstring {
    run(env, |env| {
        let invocations = handles::tool(tool, "tool")?.invocations();
        java_string(env, json_text(&invocations))
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_memoryNew<'l>(env: EnvUnowned<'l>, _: JClass<'l>) -> jlong {
    run(env, |_| Ok(handles::register(Native::Memory(Arc::new(cuecard::MockMemory::new())))))
}

/// Calls a memory method by name with JSON arguments (`calls` gives the call log); the result as JSON.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_cuecard_internal_Native_memoryCall<'l>(
    env: EnvUnowned<'l>,
    _: JClass<'l>,
    memory: jlong,
    method: JString<'l>,
    arguments: JString<'l>,
) -> jstring {
    run(env, |env| {
        let memory = handles::memory(memory, "memory")?;
        let method = text(env, &method, "method")?;
        let arguments = match optional_text(env, &arguments, "arguments")? {
            Some(arguments) => json_of_text(&arguments, "arguments")?,
            None => serde_json::Value::Null,
        };
        let result = match method.as_str() {
            "calls" => json_text(&memory.calls()),
            _ => json_text(&memory.call_json(method.parse::<cuecard::memory::MemoryMethod>()?, arguments)?),
        };
        java_string(env, result)
    })
}
