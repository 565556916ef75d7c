//! `NativeMemory`: Cogitator's memory adapter double, through core's JSON entry point (`MockMemory::call_json`).

use crate::convert::{json_of, json_text};
use crate::errors::Fallible;
use cuecard::memory::MemoryMethod;
use napi::{Env, Unknown};
use napi_derive::napi;

/// An in-process conversation store that records every call.
#[napi]
pub struct NativeMemory {
    inner: cuecard::MockMemory,
}

#[napi]
impl NativeMemory {
    #[napi(constructor)]
    pub fn new() -> Self {
        NativeMemory { inner: cuecard::MockMemory::new() }
    }

    /// Calls `method` (camelCase or snake_case) with its arguments by parameter name; the result as JSON.
    #[napi]
    pub fn call(&self, env: Env, method: String, arguments: Unknown<'_>) -> napi::Result<String> {
        let method: MemoryMethod = method.parse().or_throw(&env)?;
        let arguments = json_of(&env, &arguments, "arguments")?;
        let result = self.inner.call_json(method, arguments).or_throw(&env)?;
        json_text(&env, &result)
    }

    /// Every recorded call (`[{method, args}]`), or those of one method (JSON).
    #[napi]
    pub fn calls(&self, env: Env, method: Option<String>) -> napi::Result<String> {
        match method {
            Some(method) => {
                let method: MemoryMethod = method.parse().or_throw(&env)?;
                json_text(&env, &self.inner.calls_for(method))
            }
            None => json_text(&env, &self.inner.calls()),
        }
    }

    /// Whether connected.
    #[napi]
    pub fn is_connected(&self) -> bool {
        self.inner.is_connected()
    }

    /// Clears everything and disconnects.
    #[napi]
    pub fn reset(&self) {
        self.inner.reset();
    }
}

impl Default for NativeMemory {
    fn default() -> Self {
        NativeMemory::new()
    }
}
