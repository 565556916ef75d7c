//! The generated steps: `{"generate": "tool_calls", "tools": [...] | "all"}` calls tools with arguments drawn from
//! the input schemas the request declared; `{"generate": "output"}` answers with JSON valid against the request's
//! structured-output schema (or the step's own `schema`). `with` fixes values and the rest is drawn.

use super::{generate, is_valid};
use crate::answer::{Answer, Chunks, ScriptedToolCall};
use crate::model::{ChatRequest, ResponseFormat};
use serde_json::{Map, Value};

/// What a generated step generates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GenerateKind {
    /// Calls to the request's tools.
    ToolCalls,
    /// A structured output.
    Output,
}

/// A generated step, as scripted.
#[derive(Clone, Debug, PartialEq)]
pub struct GenerateStep {
    /// Tool calls or an output.
    pub kind: GenerateKind,
    /// The tools to call, in order; `None` calls every tool the request offers.
    pub tools: Option<Vec<String>>,
    /// The output's schema, instead of the request's.
    pub schema: Option<Value>,
    /// Values kept as given (top-level properties of the arguments or the output); the rest is drawn.
    pub fixed: Map<String, Value>,
    /// Thinking streamed before the generated answer.
    pub thinking: Option<String>,
}

/// How an output tool is named: pydantic-ai's `final_result` (and `final_result_<Model>` with several outputs).
const OUTPUT_TOOL: &str = "final_result";

impl GenerateStep {
    /// The answer for `request`, drawn from `seed`; or what prevents it (the request offers no such tool, a schema
    /// outside the supported subset or that nothing satisfies).
    pub fn answer(&self, request: &ChatRequest, seed: u64) -> Result<Answer, String> {
        let thinking = self.thinking.clone().map(Chunks::Words);
        match self.kind {
            GenerateKind::ToolCalls => {
                let calls = self.tool_calls(request, seed)?;
                Ok(Answer { thinking, text: None, tool_calls: calls })
            }
            GenerateKind::Output => {
                let declared = match &self.schema {
                    Some(schema) => Some(schema.clone()),
                    None => match request.response_format.as_deref() {
                        Some(ResponseFormat::JsonSchema { schema, .. }) => Some(schema.clone()),
                        Some(ResponseFormat::JsonObject) => Some(serde_json::json!({"type": "object"})),
                        _ => None,
                    },
                };
                if let Some(schema) = declared {
                    let value = self.value(&schema, seed).map_err(|e| format!("generate output: {e}"))?;
                    return Ok(Answer {
                        thinking,
                        text: Some(Chunks::Words(value.to_string())),
                        tool_calls: Vec::new(),
                    });
                }
                let tool = request.tools.iter().find(|t| t.name.starts_with(OUTPUT_TOOL)).ok_or_else(|| {
                    "generate output: the request declares no structured output (no response_format schema, Gemini \
                     responseSchema or Ollama format, and no final_result output tool): give the step a schema"
                        .to_string()
                })?;
                let value =
                    self.value(&tool.parameters, seed).map_err(|e| format!("generate output ({}): {e}", tool.name))?;
                let call = ScriptedToolCall { id: None, name: tool.name.clone(), arguments: value.to_string() };
                Ok(Answer { thinking, text: None, tool_calls: vec![call] })
            }
        }
    }

    fn tool_calls(&self, request: &ChatRequest, seed: u64) -> Result<Vec<ScriptedToolCall>, String> {
        let offered: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
        if offered.is_empty() {
            return Err("generate tool_calls: the request offers no tools".into());
        }
        let chosen: Vec<&crate::model::ToolDefinition> = match &self.tools {
            // Every function tool, as TestModel calls them: an output tool is the answer, not a call to make
            // first (unless it is all the request offers).
            None => {
                let functions: Vec<_> = request.tools.iter().filter(|t| !t.name.starts_with(OUTPUT_TOOL)).collect();
                if functions.is_empty() {
                    request.tools.iter().collect()
                } else {
                    functions
                }
            }
            Some(names) => names
                .iter()
                .map(|name| {
                    request.tools.iter().find(|t| t.name == *name).ok_or_else(|| {
                        format!(
                            "generate tool_calls: the request offers no tool {name:?} (it offers {})",
                            offered.join(", ")
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        chosen
            .iter()
            .enumerate()
            .map(|(k, tool)| {
                let draw = crate::seeded::mix(seed ^ (k as u64).wrapping_add(1));
                let value = self
                    .value(&tool.parameters, draw)
                    .map_err(|e| format!("generate tool_calls ({}): {e}", tool.name))?;
                Ok(ScriptedToolCall { id: None, name: tool.name.clone(), arguments: value.to_string() })
            })
            .collect()
    }

    /// A value for `schema` with the fixed values in place, checked against the schema.
    fn value(&self, schema: &Value, seed: u64) -> Result<Value, String> {
        // An absent schema (`null`) is what a tool without parameters declares: any object.
        let object_schema = serde_json::json!({"type": "object"});
        let schema = if schema.is_null() { &object_schema } else { schema };
        let mut value = generate(schema, seed).map_err(|e| e.to_string())?;
        if self.fixed.is_empty() {
            return Ok(value);
        }
        let Some(object) = value.as_object_mut() else {
            return Err("`with` fixes properties, and the schema's value is not an object".into());
        };
        for (key, fixed) in &self.fixed {
            object.insert(key.clone(), fixed.clone());
        }
        if !is_valid(schema, &value) {
            let keys: Vec<&str> = self.fixed.keys().map(String::as_str).collect();
            return Err(format!("the values `with` fixes ({}) do not satisfy the schema", keys.join(", ")));
        }
        Ok(value)
    }
}
