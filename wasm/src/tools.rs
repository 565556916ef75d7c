//! `NativeTool`: a tool double recording every invocation, as in the napi addon (`node/src/tools.rs`). A tool
//! computed by a JS function is answered by the package and recorded here with `recordComputed`.

use crate::convert::{data_of, json_of, json_text, read_json};
use crate::errors::Fallible;
use cuecard::api::outcome::tool_outcome_json;
use cuecard::tools::{MockToolOptions, ToolFunction};
use cuecard::{CallError, Error, ErrorKind, HostError};
use serde_json::Value;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// A tool double.
#[wasm_bindgen]
pub struct NativeTool {
    inner: Arc<cuecard::MockTool>,
}

#[wasm_bindgen]
impl NativeTool {
    /// A tool from options (`{name, description?, parameters?, result? | fails?, delay_ms?}`); `computed` when
    /// the package answers it with a JS function.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue, computed: bool) -> Result<NativeTool, JsValue> {
        let options: MockToolOptions = data_of(&options, "options")?;
        let function: Option<ToolFunction> = if computed {
            // Never called: it only tells the core that the tool is computed (see the napi addon).
            Some(Arc::new(|_: &Value| {
                Err(CallError::Cuecard(Error::new(ErrorKind::Internal, "a JS tool is answered by the package")))
            }))
        } else {
            None
        };
        let tool = cuecard::MockTool::from_options(options, function).or_throw()?;
        Ok(NativeTool { inner: Arc::new(tool) })
    }

    /// One of Cogitator's fixture tools: `calculator`, `weather`, `failing` (with a message), `slow` (with a delay).
    pub fn fixture(name: String, message: Option<String>, delay_ms: Option<u32>) -> Result<NativeTool, JsValue> {
        let tool = cuecard::tools::fixtures::by_name(&name, message.as_deref(), delay_ms.map(u64::from));
        Ok(NativeTool { inner: Arc::new(tool.or_throw()?) })
    }

    /// The tool's name.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.inner.name().to_string()
    }

    /// What it does.
    #[wasm_bindgen(getter)]
    pub fn description(&self) -> String {
        self.inner.description().to_string()
    }

    /// The definition to offer in a request (JSON).
    pub fn definition(&self) -> String {
        json_text(&self.inner.definition())
    }

    /// Calls the tool (arguments as an object, or the JSON text a model produced): the outcome JSON.
    pub fn invoke(&self, arguments: JsValue) -> Result<String, JsValue> {
        let timed = match arguments.as_string() {
            Some(text) => self.inner.invoke_json(&text),
            None => self.inner.invoke(&json_of(&arguments, "arguments")?),
        };
        Ok(tool_outcome_json(&timed))
    }

    /// Records an invocation the package's JS function answered.
    #[wasm_bindgen(js_name = recordComputed)]
    pub fn record_computed(
        &self,
        arguments: JsValue,
        answer: JsValue,
        failure: Option<String>,
    ) -> Result<String, JsValue> {
        let arguments = json_of(&arguments, "arguments")?;
        let answer = match failure {
            Some(message) => Err(CallError::Host(HostError::new(message, Arc::new(())))),
            None => read_json(&answer, "tool result")
                .map_err(|e| CallError::Cuecard(Error::new(ErrorKind::CallbackFailed, e.message()))),
        };
        Ok(tool_outcome_json(&self.inner.record_computed(&arguments, answer)))
    }

    /// Every invocation (JSON).
    pub fn invocations(&self) -> String {
        json_text(&self.inner.invocations())
    }

    /// How often it was called.
    #[wasm_bindgen(js_name = callCount)]
    pub fn call_count(&self) -> u32 {
        u32::try_from(self.inner.call_count()).unwrap_or(u32::MAX)
    }

    /// Forgets the invocations.
    pub fn reset(&self) {
        self.inner.reset();
    }
}
