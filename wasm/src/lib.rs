//! cuecard's engine as a WebAssembly module (wasm-bindgen) for the npm package's JS where a native addon cannot
//! load: browsers, Deno, workers. It has the napi addon's interface (`node/src`) class for class and method for
//! method, minus what needs threads or a file system (the loopback server, the CLI, scenario files), so the
//! package's JS (`node/lib`) runs unchanged on either backend. Every method converts its JS arguments through the
//! core's limits on host data and calls one function of the host-neutral face (`docs/concepts/face.md`).
//!
//! Tests: the Node package's whole suite runs on this module (`CUECARD_BACKEND=wasm`, `npm run test:wasm` after
//! `npm run build:wasm`), so every shared vector file runs here too through `node/test/vectors.test.mjs`:
//! tokenizer.json, tokenizer-reference.json, scenarios.json, errors.json, verify.json and wire.json.

mod convert;
mod errors;
mod memory;
mod mock;
mod observe;
mod pending;
mod tools;

use wasm_bindgen::prelude::*;

/// Called once by the package: the factory of its error classes (`makeError(family, json)`). The second
/// argument (the napi addon's dispatcher for server threads) has no use without threads.
#[wasm_bindgen]
pub fn init(make_error: js_sys::Function, _dispatch: JsValue) {
    errors::set_factory(make_error);
}

/// Splits text into word-like tokens.
#[wasm_bindgen]
pub fn tokenize(text: &str) -> Vec<String> {
    cuecard::tokenize(text).map(str::to_string).collect()
}

/// Counts the word-like tokens of a text.
#[wasm_bindgen(js_name = countTokens)]
pub fn count_tokens(text: &str) -> u32 {
    u32::try_from(cuecard::count_tokens(text)).unwrap_or(u32::MAX)
}

/// Every cuecard error kind as `[code, number, description]`.
#[wasm_bindgen(js_name = errorCatalogue)]
pub fn error_catalogue() -> js_sys::Array {
    cuecard::ErrorKind::ALL
        .iter()
        .map(|k| js_sys::Array::of3(&k.code().into(), &JsValue::from(k.number()), &k.description().into()))
        .collect()
}

/// The name of every check the core has.
#[wasm_bindgen(js_name = checkNames)]
pub fn check_names() -> Vec<String> {
    cuecard::verify::CHECK_NAMES.iter().map(|n| n.to_string()).collect()
}

/// Whether a scenario text names a file (no newline, not starting with `{`), for the host to read.
#[wasm_bindgen(js_name = scenarioNamesAFile)]
pub fn scenario_names_a_file(text: &str) -> bool {
    cuecard::Scenario::names_a_file(text)
}

/// Throws the error for a scenario file the host could not read (`not_found` or `io`, with its reason).
#[wasm_bindgen(js_name = scenarioReadError)]
pub fn scenario_read_error(path: &str, not_found: bool, reason: &str) -> JsValue {
    errors::throw(&cuecard::Scenario::read_error(path, not_found, reason))
}

/// Whether this build serves realtime sockets: not the WebAssembly module (`core/src/wire/sockets/absent.rs`).
#[wasm_bindgen(js_name = servesSockets)]
pub fn serves_sockets() -> bool {
    cuecard::wire::sockets::SERVED
}

/// Whether this build serves A2A agents: not the WebAssembly module (`core/src/a2a/absent.rs`).
#[wasm_bindgen(js_name = servesAgents)]
pub fn serves_agents() -> bool {
    cuecard::a2a::SERVED
}

/// cuecard's version.
#[wasm_bindgen]
pub fn version() -> String {
    cuecard::VERSION.to_string()
}

/// Throws the error of a code, to prove every code maps to its class (the `testing` feature only).
#[cfg(feature = "testing")]
#[wasm_bindgen(js_name = testingError)]
pub fn testing_error(code: String) -> Result<(), JsValue> {
    let kind = cuecard::ErrorKind::from_code(&code).ok_or_else(|| {
        errors::throw(&cuecard::Error::new(cuecard::ErrorKind::InvalidArgument, format!("no error code {code:?}")))
    })?;
    Err(errors::throw(&cuecard::Error::new(kind, format!("a {code} error thrown on purpose"))))
}
