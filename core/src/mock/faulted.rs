//! A taken step rewritten into a faulty one (`faults::AnswerFaults`): the answer as the fault makes it, so every
//! protocol's encoder renders the fault as that protocol would carry it, whole and streamed.

use crate::answer::{Answer, Chunks};
use crate::faults::{AnswerFaults, FaultKind};
use crate::model::{ChatRequest, FinishReason};
use crate::script::{Step, StepBody};
use serde_json::Value;

/// What a refused answer says.
const REFUSAL: &str = "I'm sorry, but I can't help with that request.";

/// The fault of this step, if any, and the step it makes: the one the step names (`fault`), else one drawn by the
/// `answer_faults` setting among the kinds that apply to the step and the request.
/// `at` is the request's journal index, the route that took it and how many faults were drawn before; the bool says
/// whether the fault was drawn (a step's own is not counted against `times`).
pub(super) fn fault(
    faults: Option<&AnswerFaults>,
    seed: u64,
    at: (u64, usize, u64),
    step: &Step,
    request: &ChatRequest,
) -> Option<(FaultKind, Step, bool)> {
    let StepBody::Answer(answer) = &step.body else { return None };
    let (kind, drawn) = match step.fault {
        Some(kind) => (kind, false),
        None => {
            let called: Vec<&str> = answer.tool_calls.iter().map(|c| c.name.as_str()).collect();
            (faults?.fault_for(seed, at, &called, |kind| applies(kind, answer, request))?, true)
        }
    };
    let (answer, finish) = rewrite(kind, answer, request, at.0);
    let mut faulted = step.clone();
    faulted.body = StepBody::Answer(answer);
    faulted.finish_reason = finish;
    // A recorded reply would be replayed as it was: the faulty answer is encoded instead.
    faulted.recorded = None;
    Some((kind, faulted, drawn))
}

/// Whether a fault can be drawn for this answer to this request: a tool-call fault needs tool calls, a text fault
/// text, a structured-output fault a request for JSON of a schema answered with a JSON object.
fn applies(kind: FaultKind, answer: &Answer, request: &ChatRequest) -> bool {
    kind.missing_in(answer).is_none() && (kind != FaultKind::OutputSchemaViolation || output_schema(request).is_some())
}

/// The schema the request asked its output to match, if any.
fn output_schema(request: &ChatRequest) -> Option<&Value> {
    match request.response_format.as_deref() {
        Some(crate::model::ResponseFormat::JsonSchema { schema, .. }) => Some(schema),
        _ => None,
    }
}

/// The first half of `text` (at a character boundary), at least one character short of it.
fn half(text: &str) -> String {
    let mut end = text.len() / 2;
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default().to_string()
}

fn rewrite(kind: FaultKind, answer: &Answer, request: &ChatRequest, index: u64) -> (Answer, Option<FinishReason>) {
    let mut faulted = answer.clone();
    let text = answer.text.as_ref().map(Chunks::text).unwrap_or_default();
    let first = faulted.tool_calls.first_mut();
    match (kind, first) {
        (FaultKind::InvalidArguments, Some(call)) => {
            // JSON cut before its end: the closing brace (at least) is missing.
            call.arguments = half(&call.arguments);
            if serde_json::from_str::<Value>(&call.arguments).is_ok() {
                call.arguments.push('{');
            }
        }
        (FaultKind::SchemaViolation, Some(call)) => {
            let schema = request.tools.iter().find(|t| t.name == call.name).map(|t| &t.parameters);
            call.arguments = break_schema(&call.arguments, schema, index).to_string();
        }
        (FaultKind::UnknownTool, Some(call)) => {
            let mut name = format!("{}_unavailable", call.name);
            while request.tools.iter().any(|t| t.name == name) {
                name.push('_');
            }
            call.name = name;
        }
        (FaultKind::DuplicateCallId, Some(call)) => {
            let id = call.id.clone().unwrap_or_else(|| "call_duplicate".to_string());
            call.id = Some(id);
            let again = call.clone();
            faulted.tool_calls.insert(1, again);
        }
        (FaultKind::EmptyToolName, Some(call)) => call.name.clear(),
        (FaultKind::LengthInToolCall, Some(call)) => {
            call.arguments = half(&call.arguments);
            faulted.tool_calls.truncate(1);
            return (faulted, Some(FinishReason::Length));
        }
        (FaultKind::TruncatedOutput, _) => {
            faulted.text = Some(Chunks::Words(half(&text))).filter(|c| !c.is_empty());
            faulted.tool_calls.clear();
            return (faulted, Some(FinishReason::Length));
        }
        (FaultKind::ContentFilter, _) => {
            faulted.text = Some(Chunks::Words(half(&text))).filter(|c| !c.is_empty());
            faulted.tool_calls.clear();
            return (faulted, Some(FinishReason::ContentFilter));
        }
        (FaultKind::Refusal, _) => {
            let refusal = Answer { text: Some(Chunks::Words(REFUSAL.to_string())), ..Answer::default() };
            return (refusal, Some(FinishReason::Refusal));
        }
        (FaultKind::ReasoningOnly, _) => {
            // The text becomes reasoning, after the thinking there was; the calls are gone.
            let mut thought = answer.thinking.as_ref().map(Chunks::text).unwrap_or_default();
            thought.push_str(&text);
            let thinking = Some(Chunks::Words(thought)).filter(|c| !c.is_empty());
            return (Answer { thinking, ..Answer::default() }, Some(FinishReason::Stop));
        }
        (FaultKind::EmptyAnswer, _) => return (Answer::default(), Some(FinishReason::Stop)),
        (FaultKind::OutputSchemaViolation, _) => {
            let broken = break_schema(&text, output_schema(request), index).to_string();
            faulted.text = Some(Chunks::Words(broken));
            faulted.tool_calls.clear();
            return (faulted, Some(FinishReason::Stop));
        }
        // A tool-call kind is only drawn for (or named by) a step with tool calls.
        (_, None) => {}
    }
    let finish = answer.tool_calls.is_empty().then_some(FinishReason::Stop).or(Some(FinishReason::ToolCalls));
    (faulted, finish)
}

/// Arguments that break `schema`, in one of the ways the schema allows, chosen by the request's index (so a suite
/// meets each): a required field left out, a declared field of the wrong type, a value outside a field's `enum`; a
/// field the schema does not declare when it allows none of those.
fn break_schema(arguments: &str, schema: Option<&Value>, index: u64) -> Value {
    let mut object = match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(object)) => object,
        _ => serde_json::Map::new(),
    };
    let schema = schema.cloned().unwrap_or(Value::Null);
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .and_then(|r| r.iter().filter_map(Value::as_str).find(|f| object.contains_key(*f)))
        .map(str::to_string);
    let properties = schema.get("properties").and_then(Value::as_object);
    let typed = properties.and_then(|p| p.iter().find(|(_, d)| d.get("type").and_then(Value::as_str).is_some()));
    let enumerated = properties.and_then(|p| p.iter().find(|(_, d)| d.get("enum").and_then(Value::as_array).is_some()));
    // Each way is a field and what it becomes (`None`: left out).
    let mut ways: Vec<(String, Option<Value>)> = Vec::new();
    if let Some(field) = required {
        ways.push((field, None));
    }
    if let Some((name, declared)) = typed {
        let wrong = match declared.get("type").and_then(Value::as_str) {
            Some("string") => Value::from(12345),
            Some("number" | "integer") => Value::from("not a number"),
            Some("boolean") => Value::from("yes"),
            _ => Value::Null,
        };
        ways.push((name.clone(), Some(wrong)));
    }
    if let Some((name, declared)) = enumerated {
        let allowed: Vec<Value> = declared.get("enum").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut outside = "not_one_of_them".to_string();
        while allowed.contains(&Value::from(outside.as_str())) {
            outside.push('_');
        }
        ways.push((name.clone(), Some(Value::from(outside))));
    }
    let count = ways.len() as u64;
    let (field, value) = ways
        .into_iter()
        .nth(usize::try_from(index % count.max(1)).unwrap_or(0))
        .unwrap_or_else(|| ("unexpected_field".to_string(), Some(Value::Bool(true))));
    match value {
        Some(value) => {
            object.insert(field, value);
        }
        None => {
            object.remove(&field);
        }
    }
    Value::Object(object)
}
