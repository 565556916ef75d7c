//! `NativeTool`: a tool double recording every invocation. A tool computed by a JS function is answered by the
//! package (which awaits the function) and recorded here with `recordComputed`; fixed, failing and slow tools and
//! Cogitator's fixture tools answer here.

use crate::convert::{data_of, json_of, json_text, read_json};
use crate::errors::Fallible;
use cuecard::api::outcome::tool_outcome_json;
use cuecard::tools::{MockToolOptions, ToolFunction};
use cuecard::{CallError, Error, ErrorKind, HostError};
use napi::bindgen_prelude::*;
use napi::{Env, Unknown};
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;

/// A tool double.
#[napi]
pub struct NativeTool {
    inner: Arc<cuecard::MockTool>,
}

#[napi]
impl NativeTool {
    /// A tool from options (`{name, description?, parameters?, result? | fails?, delay_ms?}`); `computed` when
    /// the package answers it with a JS function.
    #[napi(constructor)]
    pub fn new(env: Env, options: Unknown<'_>, computed: bool) -> napi::Result<Self> {
        let options: MockToolOptions = data_of(&env, &options, "options")?;
        let function: Option<ToolFunction> = if computed {
            // Never called: the package runs the JS function itself and records with `recordComputed`. It only
            // tells the core that this tool is computed (so `result` and `fails` are refused beside it).
            Some(Arc::new(|_: &Value| {
                Err(CallError::Cuecard(Error::new(ErrorKind::Internal, "a JS tool is answered by the package")))
            }))
        } else {
            None
        };
        let tool = cuecard::MockTool::from_options(options, function).or_throw(&env)?;
        Ok(NativeTool { inner: Arc::new(tool) })
    }

    /// One of Cogitator's fixture tools: `calculator`, `weather`, `failing` (with a message), `slow` (with a delay).
    #[napi(factory)]
    pub fn fixture(env: Env, name: String, message: Option<String>, delay_ms: Option<u32>) -> napi::Result<Self> {
        let tool = cuecard::tools::fixtures::by_name(&name, message.as_deref(), delay_ms.map(u64::from));
        Ok(NativeTool { inner: Arc::new(tool.or_throw(&env)?) })
    }

    #[napi(getter)]
    pub fn name(&self) -> String {
        self.inner.name().to_string()
    }

    #[napi(getter)]
    pub fn description(&self) -> String {
        self.inner.description().to_string()
    }

    /// The definition to offer in a request (JSON `{name, description, parameters}`).
    #[napi]
    pub fn definition(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.definition())
    }

    /// Calls the tool (arguments as an object, or the JSON text a model produced): the outcome JSON.
    #[napi]
    pub fn invoke(&self, env: Env, arguments: Unknown<'_>) -> napi::Result<String> {
        let timed = match arguments.get_type()? {
            ValueType::String => self.inner.invoke_json(&unsafe { arguments.cast::<String>()? }),
            _ => self.inner.invoke(&json_of(&env, &arguments, "arguments")?),
        };
        Ok(tool_outcome_json(&timed))
    }

    /// Records an invocation the package's JS function answered: `answer` is what it returned, or `failure`
    /// the message of what it threw.
    #[napi]
    pub fn record_computed(
        &self,
        env: Env,
        arguments: Unknown<'_>,
        answer: Unknown<'_>,
        failure: Option<String>,
    ) -> napi::Result<String> {
        let arguments = json_of(&env, &arguments, "arguments")?;
        let answer = match failure {
            Some(message) => Err(CallError::Host(HostError::new(message, Arc::new(())))),
            None => read_json(&env, &answer, "tool result")?
                .map_err(|e| CallError::Cuecard(Error::new(ErrorKind::CallbackFailed, e.message()))),
        };
        Ok(tool_outcome_json(&self.inner.record_computed(&arguments, answer)))
    }

    /// Every invocation (JSON `[{index, arguments, result | error, delay_ms}]`).
    #[napi]
    pub fn invocations(&self, env: Env) -> napi::Result<String> {
        json_text(&env, &self.inner.invocations())
    }

    /// How often it was called.
    #[napi]
    pub fn call_count(&self) -> u32 {
        u32::try_from(self.inner.call_count()).unwrap_or(u32::MAX)
    }

    /// Forgets the invocations.
    #[napi]
    pub fn reset(&self) {
        self.inner.reset();
    }
}
