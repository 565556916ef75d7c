//! cuecard's errors as JS errors. The package's JS gives the addon one factory at load time
//! (`init(makeError, ...)`); the addon calls it with the error's JSON (`Error::to_json`, or a scripted
//! `ProviderError`) and throws what it returns, so every error is an instance of the package's own classes
//! (`CuecardError` subclasses with `.code`, `ProviderError`) with no wrapper around each call.

use napi::bindgen_prelude::{FnArgs, FunctionRef};
use napi::{sys, Env, JsValue, Status, Unknown};
use std::cell::RefCell;

/// `makeError(family, json)`: `family` is `"cuecard"` or `"provider"`.
pub type ErrorFactory = FunctionRef<FnArgs<(String, String)>, Unknown<'static>>;

thread_local! {
    // One per JS thread: each worker thread loads the addon and calls `init` itself.
    static FACTORY: RefCell<Option<ErrorFactory>> = const { RefCell::new(None) };
}

/// Keeps the factory of this JS thread.
pub fn set_factory(factory: ErrorFactory) {
    FACTORY.with(|slot| *slot.borrow_mut() = Some(factory));
}

/// The JS error for a family and its JSON, built by the package's factory.
pub fn make(env: &Env, family: &'static str, json: String) -> napi::Result<Unknown<'static>> {
    FACTORY.with(|slot| match slot.borrow().as_ref() {
        Some(factory) => factory.borrow_back(env)?.call(FnArgs::from((family.to_string(), json))),
        None => Err(napi::Error::from_reason(format!("cuecard's addon was not initialised: {json}"))),
    })
}

/// Throws the JS error for `family`/`json` and returns the `napi::Error` that tells napi-rs it is thrown.
fn throw_json(env: &Env, family: &'static str, json: String) -> napi::Error {
    match make(env, family, json) {
        Ok(error) => {
            unsafe { sys::napi_throw(env.raw(), error.value().value) };
            napi::Error::new(Status::PendingException, "cuecard error thrown")
        }
        Err(e) => e,
    }
}

/// Throws one of cuecard's own errors.
pub fn throw(env: &Env, error: &cuecard::Error) -> napi::Error {
    throw_json(env, "cuecard", error.to_json().to_string())
}

/// `Result<T, cuecard::Error>` to `napi::Result<T>`, throwing the package's error.
pub trait Fallible<T> {
    /// Throws the error as the package's JS error.
    fn or_throw(self, env: &Env) -> napi::Result<T>;
}

impl<T> Fallible<T> for cuecard::Result<T> {
    fn or_throw(self, env: &Env) -> napi::Result<T> {
        self.map_err(|e| throw(env, &e))
    }
}

/// An argument of the wrong JS type: `invalid_argument` naming it (the package raises it as a `TypeError`).
pub fn wrong_type(env: &Env, argument: &str, expected: &str, found: &str) -> napi::Error {
    let error = cuecard::Error::new(
        cuecard::ErrorKind::InvalidArgument,
        format!("invalid {argument}: expected {expected}, found {found}"),
    )
    .with_context("argument", argument);
    throw(env, &error)
}
