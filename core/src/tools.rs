//! Mock tools: tools that record every invocation and answer fixed, computed, failing or slowly; plus the
//! fixture tools of Cogitator's test utilities (calculator, weather, failing, slow).

use crate::error::{invalid_argument, not_found, Error, ErrorKind, Result};
use crate::mock::Timed;
use crate::model::ToolDefinition;
use crate::script::CallError;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex, MutexGuard};

/// A host or Rust function that computes a tool's result from its arguments.
pub type ToolFunction = Arc<dyn Fn(&Value) -> std::result::Result<Value, CallError> + Send + Sync>;

/// How a mock tool answers.
#[derive(Clone)]
pub enum ToolResponder {
    /// Always this value.
    Fixed(Value),
    /// Computed from the arguments.
    Computed(ToolFunction),
    /// Always fails with this message.
    Failing(String),
    /// Takes `delay_ms` (virtual; hosts wait it out), then answers like `then`.
    Slow {
        /// The delay.
        delay_ms: u64,
        /// The answer after it.
        then: Box<ToolResponder>,
    },
}

impl std::fmt::Debug for ToolResponder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolResponder::Fixed(v) => f.debug_tuple("Fixed").field(v).finish(),
            ToolResponder::Computed(_) => f.write_str("Computed(..)"),
            ToolResponder::Failing(m) => f.debug_tuple("Failing").field(m).finish(),
            ToolResponder::Slow { delay_ms, then } => {
                f.debug_struct("Slow").field("delay_ms", delay_ms).field("then", then).finish()
            }
        }
    }
}

/// One recorded invocation. As data: `{"index", "arguments", "result"}` or, for a failed one,
/// `{"index", "arguments", "error"}`, plus `"delay_ms"`.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolInvocation {
    /// Position among this tool's invocations.
    pub index: usize,
    /// The arguments it was called with.
    pub arguments: Value,
    /// The result, or the failure message.
    pub result: std::result::Result<Value, String>,
    /// Virtual time the tool took.
    pub delay_ms: u64,
}

impl Serialize for ToolInvocation {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut out = serde_json::Map::new();
        out.insert("index".into(), Value::from(self.index));
        out.insert("arguments".into(), self.arguments.clone());
        match &self.result {
            Ok(value) => out.insert("result".into(), value.clone()),
            Err(message) => out.insert("error".into(), Value::from(message.as_str())),
        };
        out.insert("delay_ms".into(), Value::from(self.delay_ms));
        out.serialize(serializer)
    }
}

/// How to make a [`MockTool`], as data (a Python `**kwargs`, a JS options object). Give at most one of `result`
/// and `fails`, or neither and a responder (host code); with none of the three the tool answers `{}`.
/// `delay_ms` makes it slow (a virtual delay the host waits out).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MockToolOptions {
    /// The tool's name.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// The JSON Schema of its arguments (default: an object with no properties).
    #[serde(default)]
    pub parameters: Option<Value>,
    /// Always answer this.
    #[serde(default)]
    pub result: Option<Value>,
    /// Always fail with this message.
    #[serde(default)]
    pub fails: Option<String>,
    /// Take this long (virtual milliseconds) before answering.
    #[serde(default)]
    pub delay_ms: Option<u64>,
}

/// A tool double: name, description and JSON-schema parameters, a responder, and a record of every call.
#[derive(Debug)]
pub struct MockTool {
    name: String,
    description: String,
    parameters: Value,
    responder: ToolResponder,
    invocations: Mutex<Vec<ToolInvocation>>,
}

impl MockTool {
    /// A tool answering with `responder`.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        responder: ToolResponder,
    ) -> MockTool {
        MockTool {
            name: name.into(),
            description: description.into(),
            parameters,
            responder,
            invocations: Mutex::new(Vec::new()),
        }
    }

    /// A tool from options and, for a computed tool, the host function that answers.
    pub fn from_options(options: MockToolOptions, responder: Option<ToolFunction>) -> Result<MockTool> {
        if options.name.is_empty() {
            return Err(invalid_argument("a tool needs a name").with_context("argument", "name"));
        }
        let answers = match (options.result, responder, options.fails) {
            (Some(value), None, None) => ToolResponder::Fixed(value),
            (None, Some(function), None) => ToolResponder::Computed(function),
            (None, None, Some(message)) => ToolResponder::Failing(message),
            (None, None, None) => ToolResponder::Fixed(json!({})),
            _ => return Err(invalid_argument("give at most one of result, responder or fails")),
        };
        let answers = match options.delay_ms {
            Some(delay_ms) => ToolResponder::Slow { delay_ms, then: Box::new(answers) },
            None => answers,
        };
        let parameters = options.parameters.unwrap_or_else(|| json!({"type": "object", "properties": {}}));
        Ok(MockTool::new(options.name, options.description, parameters, answers))
    }

    /// A tool that always answers `result` (Tramai's `MockTool.fixed`).
    pub fn fixed(name: impl Into<String>, description: impl Into<String>, result: Value) -> MockTool {
        MockTool::new(name, description, json!({"type": "object", "properties": {}}), ToolResponder::Fixed(result))
    }

    /// A tool computed by a Rust function.
    pub fn computed(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        f: impl Fn(&Value) -> std::result::Result<Value, CallError> + Send + Sync + 'static,
    ) -> MockTool {
        MockTool::new(name, description, parameters, ToolResponder::Computed(Arc::new(f)))
    }

    fn lock(&self) -> MutexGuard<'_, Vec<ToolInvocation>> {
        self.invocations.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tool's description.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The JSON Schema of its arguments.
    pub fn parameters(&self) -> &Value {
        &self.parameters
    }

    /// The definition to offer in a request.
    pub fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name.clone(),
            description: Some(self.description.clone()),
            parameters: self.parameters.clone(),
        }
    }

    /// Calls the tool: records the arguments first, then answers. A failing tool gives `tool_failed`.
    pub fn invoke(&self, arguments: &Value) -> Timed<std::result::Result<Value, CallError>> {
        let (result, delay_ms) = answer(&self.responder, arguments, 0);
        let recorded = match &result {
            Ok(v) => Ok(v.clone()),
            Err(e) => Err(e.to_string()),
        };
        let mut invocations = self.lock();
        let index = invocations.len();
        invocations.push(ToolInvocation { index, arguments: arguments.clone(), result: recorded, delay_ms });
        Timed { value: result, delay_ms }
    }

    /// Records an invocation of a computed tool whose host function answered by itself, later (an async JS
    /// function): `answer` is what it returned or why it failed; the tool's delay applies as in [`MockTool::invoke`].
    pub fn record_computed(
        &self,
        arguments: &Value,
        answer: std::result::Result<Value, CallError>,
    ) -> Timed<std::result::Result<Value, CallError>> {
        let delay_ms = total_delay(&self.responder);
        let recorded = match &answer {
            Ok(v) => Ok(v.clone()),
            Err(e) => Err(e.to_string()),
        };
        let mut invocations = self.lock();
        let index = invocations.len();
        invocations.push(ToolInvocation { index, arguments: arguments.clone(), result: recorded, delay_ms });
        Timed { value: answer, delay_ms }
    }

    /// Calls the tool with arguments as JSON text (as a model produces them). Invalid JSON is recorded as a
    /// string argument and fails with `invalid_argument`.
    pub fn invoke_json(&self, arguments_json: &str) -> Timed<std::result::Result<Value, CallError>> {
        match serde_json::from_str::<Value>(arguments_json) {
            Ok(arguments) => self.invoke(&arguments),
            Err(e) => {
                let message = format!("the arguments of tool {:?} are not valid JSON: {e}", self.name);
                let mut invocations = self.lock();
                let index = invocations.len();
                invocations.push(ToolInvocation {
                    index,
                    arguments: Value::String(arguments_json.to_string()),
                    result: Err(message.clone()),
                    delay_ms: 0,
                });
                Timed { value: Err(CallError::Cuecard(Error::new(ErrorKind::InvalidArgument, message))), delay_ms: 0 }
            }
        }
    }

    /// Every invocation, in order.
    pub fn invocations(&self) -> Vec<ToolInvocation> {
        self.lock().clone()
    }

    /// The arguments of every invocation, in order (Tramai's `calls`).
    pub fn calls(&self) -> Vec<Value> {
        self.lock().iter().map(|i| i.arguments.clone()).collect()
    }

    /// How often it was called.
    pub fn call_count(&self) -> usize {
        self.lock().len()
    }

    /// Forgets the invocations.
    pub fn reset(&self) {
        self.lock().clear();
    }
}

/// The delay of a (possibly slow) responder.
fn total_delay(responder: &ToolResponder) -> u64 {
    match responder {
        ToolResponder::Slow { delay_ms, then } => delay_ms.saturating_add(total_delay(then)),
        _ => 0,
    }
}

fn answer(
    responder: &ToolResponder,
    arguments: &Value,
    waited_ms: u64,
) -> (std::result::Result<Value, CallError>, u64) {
    match responder {
        ToolResponder::Fixed(value) => (Ok(value.clone()), waited_ms),
        ToolResponder::Computed(f) => (f(arguments), waited_ms),
        ToolResponder::Failing(message) => {
            (Err(CallError::Cuecard(Error::new(ErrorKind::ToolFailed, message.clone()))), waited_ms)
        }
        ToolResponder::Slow { delay_ms, then } => answer(then, arguments, waited_ms.saturating_add(*delay_ms)),
    }
}

/// Fixture tools with the exact names, schemas and answers of Cogitator's `createCalculatorTool`,
/// `createWeatherTool`, `createFailingTool` and `createSlowTool`.
pub mod fixtures {
    use super::*;

    /// The fixture names [`by_name`] knows.
    pub const NAMES: [&str; 4] = ["calculator", "weather", "failing", "slow"];

    /// A fixture tool by name: `calculator`, `weather`, `failing` (with an optional message) or `slow` (with an
    /// optional delay); another name is `not_found` listing these.
    pub fn by_name(name: &str, message: Option<&str>, delay_ms: Option<u64>) -> Result<MockTool> {
        match name {
            "calculator" => Ok(calculator()),
            "weather" => Ok(weather()),
            "failing" => Ok(failing(message)),
            "slow" => Ok(slow(delay_ms)),
            other => {
                Err(not_found(format!("no fixture tool {other:?} ({})", NAMES.join(", ")))
                    .with_context("argument", "name"))
            }
        }
    }

    /// `calculator`: evaluates `a op b` for non-negative integers and `+ - * /`; anything else answers
    /// `{"error": "Invalid expression"}` (returned, not raised). Division by zero gives `null` (JSON has no
    /// infinity).
    pub fn calculator() -> MockTool {
        MockTool::computed(
            "calculator",
            "Perform mathematical calculations",
            json!({
                "type": "object",
                "properties": {"expression": {"type": "string", "description": "The mathematical expression to evaluate"}},
                "required": ["expression"]
            }),
            |args| Ok(calculate(args.get("expression"))),
        )
    }

    fn calculate(expression: Option<&Value>) -> Value {
        let invalid = || json!({"error": "Invalid expression"});
        let Some(text) = expression.and_then(Value::as_str) else {
            return invalid();
        };
        let Some((a, op, b)) = parse_binary(text) else {
            return invalid();
        };
        let result = match op {
            '+' => a + b,
            '-' => a - b,
            '*' => a * b,
            _ => a / b,
        };
        json!({"result": number(result)})
    }

    /// `^(\d+)\s*([+\-*/])\s*(\d+)$` by hand: digits, optional spaces, operator, optional spaces, digits.
    fn parse_binary(text: &str) -> Option<(f64, char, f64)> {
        let op_at = text.find(|c: char| "+-*/".contains(c))?;
        let (left, rest) = text.split_at(op_at);
        let op = rest.chars().next()?;
        let right = rest.get(op.len_utf8()..)?;
        let digits = |s: &str| -> Option<f64> {
            (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse::<f64>().ok()).flatten()
        };
        let is_js_space = |c: char| c.is_whitespace() || c == '\u{feff}';
        Some((digits(left.trim_end_matches(is_js_space))?, op, digits(right.trim_start_matches(is_js_space))?))
    }

    /// A JS number as JSON: integral values as integers, non-finite as null.
    fn number(value: f64) -> Value {
        if !value.is_finite() {
            Value::Null
        } else if value.fract() == 0.0 && value.abs() < 9.007_199_254_740_992e15 {
            Value::from(value as i64)
        } else {
            Value::from(value)
        }
    }

    /// `get_weather`: always 22 °C (72 °F) and sunny.
    pub fn weather() -> MockTool {
        MockTool::computed(
            "get_weather",
            "Get the current weather for a location",
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The city name"},
                    "units": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature units"}
                },
                "required": ["city"]
            }),
            |args| {
                let units = args.get("units").cloned().unwrap_or_else(|| Value::from("celsius"));
                let temperature = if units == "celsius" { 22 } else { 72 };
                Ok(json!({
                    "city": args.get("city").cloned().unwrap_or(Value::Null),
                    "temperature": temperature,
                    "condition": "sunny",
                    "units": units
                }))
            },
        )
    }

    /// `failing_tool`: always fails with `message` (default "Tool execution failed").
    pub fn failing(message: Option<&str>) -> MockTool {
        MockTool::new(
            "failing_tool",
            "A tool that always fails",
            json!({"type": "object", "properties": {}}),
            ToolResponder::Failing(message.unwrap_or("Tool execution failed").to_string()),
        )
    }

    /// `slow_tool`: takes `delay_ms` (default 1000), then answers `{"result": "completed", "delay": ms, "args": ...}`.
    pub fn slow(delay_ms: Option<u64>) -> MockTool {
        let ms = delay_ms.unwrap_or(1000);
        MockTool::new(
            "slow_tool",
            "A tool that takes time to execute",
            json!({"type": "object", "properties": {}}),
            ToolResponder::Slow {
                delay_ms: ms,
                then: Box::new(ToolResponder::Computed(Arc::new(move |args| {
                    Ok(json!({"result": "completed", "delay": ms, "args": args}))
                }))),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;

    fn calc(expression: Value) -> Value {
        calculator().invoke(&json!({ "expression": expression })).value.unwrap_or(Value::Null)
    }

    #[test]
    fn calculator_follows_the_fixture_rule() {
        assert_eq!(calc("2 + 3".into()), json!({"result": 5}));
        assert_eq!(calc("7/2".into()), json!({"result": 3.5}));
        assert_eq!(calc("10 -  4".into()), json!({"result": 6}));
        assert_eq!(calc("3*4".into()), json!({"result": 12}));
        assert_eq!(calc("1/0".into()), json!({"result": null}));
        for bad in [json!("-1 + 2"), json!("1.5 + 2"), json!("2 +"), json!(" 2 + 3"), json!(7), json!("2 ^ 3")] {
            assert_eq!(calc(bad.clone()), json!({"error": "Invalid expression"}), "{bad}");
        }
    }

    #[test]
    fn weather_is_always_sunny_and_tools_record_calls() {
        let tool = weather();
        let r = tool.invoke(&json!({"city": "Oslo"})).value.unwrap_or(Value::Null);
        assert_eq!(r, json!({"city": "Oslo", "temperature": 22, "condition": "sunny", "units": "celsius"}));
        let r = tool.invoke(&json!({"city": "Oslo", "units": "fahrenheit"})).value.unwrap_or(Value::Null);
        assert_eq!(r["temperature"], 72);
        assert_eq!(tool.call_count(), 2);
        assert_eq!(tool.calls()[1]["units"], "fahrenheit");
    }

    #[test]
    fn failing_and_slow_tools() {
        let failing = failing(None);
        let err = failing.invoke(&json!({})).value.unwrap_err();
        assert_eq!(err.code(), "tool_failed");
        assert_eq!(err.to_string(), "Tool execution failed");
        assert_eq!(failing.invocations()[0].result, Err("Tool execution failed".to_string()));
        assert_eq!(
            serde_json::to_value(&failing.invocations()[0]).unwrap(),
            json!({"index": 0, "arguments": {}, "error": "Tool execution failed", "delay_ms": 0})
        );
        let slow = slow(Some(250));
        let timed = slow.invoke(&json!({"x": 1}));
        assert_eq!(timed.delay_ms, 250);
        assert_eq!(timed.value.unwrap_or(Value::Null), json!({"result": "completed", "delay": 250, "args": {"x": 1}}));
    }

    #[test]
    fn tools_from_options_and_fixtures_by_name() {
        let options = |value: Value| serde_json::from_value::<MockToolOptions>(value).unwrap();
        let slow = MockTool::from_options(options(json!({"name": "t", "result": 1, "delay_ms": 5})), None).unwrap();
        let timed = slow.invoke(&json!({}));
        assert_eq!((timed.value.unwrap(), timed.delay_ms), (json!(1), 5));
        let default = MockTool::from_options(options(json!({"name": "t"})), None).unwrap();
        assert_eq!(default.invoke(&json!({})).value.unwrap(), json!({}));
        let both = MockTool::from_options(options(json!({"name": "t", "result": 1, "fails": "x"})), None);
        assert_eq!(both.unwrap_err().code(), "invalid_argument");
        assert_eq!(MockTool::from_options(options(json!({"name": ""})), None).unwrap_err().code(), "invalid_argument");
        assert_eq!(by_name("weather", None, None).unwrap().name(), "get_weather");
        let err = by_name("clock", None, None).unwrap_err();
        assert_eq!(err.code(), "not_found");
        assert!(err.message().contains("calculator, weather, failing, slow"), "{err}");
    }

    #[test]
    fn invalid_json_arguments_are_recorded_and_refused() {
        let tool = MockTool::fixed("f", "d", json!(1));
        let timed = tool.invoke_json("{not json");
        assert_eq!(timed.value.unwrap_err().code(), "invalid_argument");
        assert_eq!(tool.calls(), [Value::from("{not json")]);
    }
}
