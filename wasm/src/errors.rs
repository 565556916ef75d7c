//! cuecard's errors as JS errors, as in the napi addon (`node/src/errors.rs`): the package's JS gives the module
//! one factory at load time (`init(makeError, ...)`) and every error thrown is built by it, so it is an instance
//! of the package's own classes (`CuecardError` subclasses with `.code`, `ProviderError`).

use std::cell::RefCell;
use wasm_bindgen::JsValue;

thread_local! {
    // A wasm instance is single-threaded: one factory per instance.
    static FACTORY: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

/// Keeps the factory.
pub fn set_factory(factory: js_sys::Function) {
    FACTORY.with(|slot| *slot.borrow_mut() = Some(factory));
}

/// The JS error for a family (`"cuecard"` or `"provider"`) and its JSON, built by the package's factory.
fn make(family: &str, json: String) -> JsValue {
    FACTORY.with(|slot| match slot.borrow().as_ref() {
        Some(factory) => factory
            .call2(&JsValue::NULL, &JsValue::from_str(family), &JsValue::from_str(&json))
            .unwrap_or_else(|thrown| thrown),
        None => js_sys::Error::new(&format!("cuecard's wasm module was not initialised: {json}")).into(),
    })
}

/// One of cuecard's own errors, as the JS error to throw.
pub fn throw(error: &cuecard::Error) -> JsValue {
    make("cuecard", error.to_json().to_string())
}

/// `Result<T, cuecard::Error>` to `Result<T, JsValue>`, with the package's error.
pub trait Fallible<T> {
    /// The error as the package's JS error.
    fn or_throw(self) -> Result<T, JsValue>;
}

impl<T> Fallible<T> for cuecard::Result<T> {
    fn or_throw(self) -> Result<T, JsValue> {
        self.map_err(|e| throw(&e))
    }
}

/// An argument of the wrong JS type: `invalid_argument` naming it (the package raises it as a `TypeError`).
pub fn wrong_type(argument: &str, expected: &str, found: &str) -> JsValue {
    let error = cuecard::Error::new(
        cuecard::ErrorKind::InvalidArgument,
        format!("invalid {argument}: expected {expected}, found {found}"),
    )
    .with_context("argument", argument);
    throw(&error)
}
