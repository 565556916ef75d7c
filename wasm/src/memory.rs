//! `NativeMemory`: Cogitator's memory adapter double (`MockMemory`), every method through its JSON dispatcher.

use crate::convert::{json_of, json_text};
use crate::errors::Fallible;
use cuecard::memory::MemoryMethod;
use wasm_bindgen::prelude::*;

/// An in-memory conversation store that records every call.
#[wasm_bindgen]
pub struct NativeMemory {
    inner: cuecard::MockMemory,
}

#[wasm_bindgen]
impl NativeMemory {
    /// An empty store.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Self {
        NativeMemory { inner: cuecard::MockMemory::new() }
    }

    /// Calls `method` (snake_case or Cogitator's camelCase) with its arguments: the result (JSON).
    pub fn call(&self, method: String, arguments: JsValue) -> Result<String, JsValue> {
        let method: MemoryMethod = method.parse().or_throw()?;
        let arguments = json_of(&arguments, "arguments")?;
        let result = self.inner.call_json(method, arguments).or_throw()?;
        Ok(json_text(&result))
    }

    /// Every recorded call, or those of one method (JSON).
    pub fn calls(&self, method: Option<String>) -> Result<String, JsValue> {
        match method {
            Some(method) => {
                let method: MemoryMethod = method.parse().or_throw()?;
                Ok(json_text(&self.inner.calls_for(method)))
            }
            None => Ok(json_text(&self.inner.calls())),
        }
    }

    /// Whether `connect` was called last (not `disconnect`).
    #[wasm_bindgen(js_name = isConnected)]
    pub fn is_connected(&self) -> bool {
        self.inner.is_connected()
    }

    /// Clears everything and disconnects.
    pub fn reset(&self) {
        self.inner.reset();
    }
}

impl Default for NativeMemory {
    fn default() -> Self {
        NativeMemory::new()
    }
}
