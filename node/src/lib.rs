//! The native part of the npm package `cuecard`: a thin napi-rs layer over the core's host-neutral face
//! (`docs/concepts/face.md`). One file per core module; each method converts JS values (through the core's limits on host
//! data), calls one core function, and throws the package's error classes. Results cross as JSON text. The
//! package's JS (`node/lib`) adds only what needs JS itself: awaiting computed answers and scripted delays, async
//! iterables, `fetch`, the AI SDK model, the Cogitator-compatible module, test-runner matchers.

// Under `cfg(test)` napi-derive registers nothing, so exported functions of private modules look unused.
#![cfg_attr(test, allow(dead_code))]

// Every call allocates (JSON in, JSON out, journal copies, SSE frames); with the system allocator malloc and free
// were a third of a 200-token streamed fetch. The addon's Rust allocations only; V8 keeps its own heap.
// Not on macOS (Cargo.toml says why).
#[cfg(not(target_os = "macos"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod callback;
mod convert;
mod errors;
mod memory;
mod mock;
mod observe;
mod pending;
mod record;
mod server;
mod tools;

use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Called once per JS thread by the package: the factory of its error classes (`makeError(family, json)`) and
/// the dispatcher that runs computed answers for the server's threads (`dispatch(key, requestJson, ticket)`).
#[napi(
    ts_args_type = "makeError: (family: string, json: string) => Error, dispatch: (key: number, request: string, ticket: number) => void"
)]
pub fn init(
    make_error: errors::ErrorFactory,
    dispatch: Function<'_, FnArgs<(u32, String, u32)>, Unknown<'static>>,
) -> Result<()> {
    errors::set_factory(make_error);
    let dispatcher = dispatch
        .build_threadsafe_function::<(u32, String, u32)>()
        .callee_handled::<false>()
        .weak::<true>()
        .build_callback(|ctx| Ok(FnArgs::from(ctx.value)))?;
    callback::set_dispatcher(dispatcher);
    Ok(())
}

/// Splits text into word-like tokens.
#[napi]
pub fn tokenize(text: String) -> Vec<String> {
    cuecard::tokenize(&text).map(str::to_string).collect()
}

/// Counts the word-like tokens of a text.
#[napi]
pub fn count_tokens(text: String) -> u32 {
    u32::try_from(cuecard::count_tokens(&text)).unwrap_or(u32::MAX)
}

/// Every cuecard error kind as `[code, number, description]`, so the package can prove it maps them all.
#[napi]
pub fn error_catalogue() -> Vec<(String, u32, String)> {
    cuecard::ErrorKind::ALL.iter().map(|k| (k.code().to_string(), k.number(), k.description().to_string())).collect()
}

/// The name of every check the core has (the package's test proves its chain covers them).
#[napi]
pub fn check_names() -> Vec<String> {
    cuecard::verify::CHECK_NAMES.iter().map(|n| n.to_string()).collect()
}

/// Whether this build serves realtime sockets (the wasm module does not).
#[napi]
pub fn serves_sockets() -> bool {
    cuecard::wire::sockets::SERVED
}

/// Whether this build serves A2A agents (the wasm module does not).
#[napi]
pub fn serves_agents() -> bool {
    cuecard::a2a::SERVED
}

/// cuecard's version.
#[napi]
pub fn version() -> String {
    cuecard::VERSION.to_string()
}

/// The `cuecard` command line, run off the JS thread.
pub struct CommandLine {
    argv: Vec<String>,
}

impl Task for CommandLine {
    type Output = u8;
    type JsValue = u32;

    fn compute(&mut self) -> Result<u8> {
        Ok(cuecard_cli::run(std::mem::take(&mut self.argv).into_iter().map(std::ffi::OsString::from)))
    }

    fn resolve(&mut self, _env: Env, code: u8) -> Result<u32> {
        Ok(u32::from(code))
    }
}

/// Runs the `cuecard` command line (`argv[0]` is the program name) on a worker thread; resolves to its exit
/// code. The JS thread stays free: under Node, signals reach JS handlers, so the bin stops `serve` on Ctrl-C
/// and SIGTERM itself.
#[napi(ts_return_type = "Promise<number>")]
pub fn cli_main(argv: Vec<String>) -> AsyncTask<CommandLine> {
    AsyncTask::new(CommandLine { argv })
}

/// Throws the error of a code, to prove every code maps to its class (the `testing` feature only).
#[cfg(feature = "testing")]
#[napi]
pub fn testing_error(env: Env, code: String) -> Result<()> {
    let kind = cuecard::ErrorKind::from_code(&code).ok_or_else(|| {
        errors::throw(
            &env,
            &cuecard::Error::new(cuecard::ErrorKind::InvalidArgument, format!("no error code {code:?}")),
        )
    })?;
    Err(errors::throw(&env, &cuecard::Error::new(kind, format!("a {code} error thrown on purpose"))))
}
