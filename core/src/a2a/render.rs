//! The A2A objects in the generation a request speaks: v0.3 (`kind` members, lower-case kebab enums, bare results)
//! or v1.0 (member-name polymorphism, `TASK_STATE_*`/`ROLE_*` enums, `{"task": …}` results and stream items),
//! never mixed. Timestamps come from the mock's virtual clock, with milliseconds and `Z`, always.

use crate::mock::a2a::{Made, Part, Said, Task, TaskState};
use crate::script::a2a::A2aState;
use serde_json::{json, Map, Value};

/// The protocol generation of a request (by its method's name: the two sets are disjoint).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gen {
    V03,
    V1,
}

impl Gen {
    pub fn name(self) -> &'static str {
        match self {
            Gen::V03 => "0.3",
            Gen::V1 => "1.0",
        }
    }
}

/// `2026-01-01T00:00:00.000Z` plus `ms` of virtual time.
pub(crate) fn timestamp(ms: u64) -> String {
    let day = i64::try_from(ms / 86_400_000).unwrap_or(0);
    let of_day = ms % 86_400_000;
    // The wire encoders' epoch (1767225600: 2026-01-01) is day 20454.
    let date = crate::clock::days_date(20_454 + day);
    let (hours, minutes, seconds, millis) =
        (of_day / 3_600_000, of_day / 60_000 % 60, of_day / 1000 % 60, of_day % 1000);
    format!("{date}T{hours:02}:{minutes:02}:{seconds:02}.{millis:03}Z")
}

fn state_name(state: TaskState, gen: Gen) -> &'static str {
    let (v03, v1) = match state {
        TaskState::Submitted => ("submitted", "TASK_STATE_SUBMITTED"),
        TaskState::Working => ("working", "TASK_STATE_WORKING"),
        TaskState::Ended(A2aState::Completed) => ("completed", "TASK_STATE_COMPLETED"),
        TaskState::Ended(A2aState::InputRequired) => ("input-required", "TASK_STATE_INPUT_REQUIRED"),
        TaskState::Ended(A2aState::AuthRequired) => ("auth-required", "TASK_STATE_AUTH_REQUIRED"),
        TaskState::Ended(A2aState::Failed) => ("failed", "TASK_STATE_FAILED"),
        TaskState::Ended(A2aState::Rejected) => ("rejected", "TASK_STATE_REJECTED"),
        TaskState::Ended(A2aState::Canceled) => ("canceled", "TASK_STATE_CANCELED"),
    };
    if gen == Gen::V03 {
        v03
    } else {
        v1
    }
}

fn object(fields: Vec<(&str, Value)>) -> Value {
    Value::Object(fields.into_iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.to_string(), v)).collect())
}

pub(crate) fn part(part: &Part, gen: Gen) -> Value {
    match (part, gen) {
        (Part::Text(text), Gen::V03) => json!({"kind": "text", "text": text}),
        (Part::Text(text), Gen::V1) => json!({"text": text}),
        (Part::Data(data), Gen::V03) => json!({"kind": "data", "data": data}),
        (Part::Data(data), Gen::V1) => json!({"data": data}),
    }
}

pub(crate) fn message(said: &Said, task: Option<&Task>, context_id: &str, gen: Gen) -> Value {
    let parts: Vec<Value> = said.parts.iter().map(|p| part(p, gen)).collect();
    let role = match (said.from_user, gen) {
        (true, Gen::V03) => "user",
        (false, Gen::V03) => "agent",
        (true, Gen::V1) => "ROLE_USER",
        (false, Gen::V1) => "ROLE_AGENT",
    };
    object(vec![
        ("kind", if gen == Gen::V03 { json!("message") } else { Value::Null }),
        ("messageId", json!(said.message_id)),
        ("role", json!(role)),
        ("parts", Value::Array(parts)),
        ("taskId", task.map_or(Value::Null, |t| json!(t.id))),
        ("contextId", json!(context_id)),
    ])
}

pub(crate) fn status(task: &Task, state: TaskState, with_message: bool, gen: Gen) -> Value {
    let said = task.status.as_ref().filter(|_| with_message).map(|s| message(s, Some(task), &task.context_id, gen));
    object(vec![
        ("state", json!(state_name(state, gen))),
        ("message", said.unwrap_or(Value::Null)),
        ("timestamp", json!(timestamp(task.status_at_ms))),
    ])
}

pub(crate) fn artifact(made: &Made, parts: &[Part], gen: Gen) -> Value {
    object(vec![
        ("artifactId", json!(made.artifact_id)),
        ("name", made.name.as_ref().map_or(Value::Null, |n| json!(n))),
        ("parts", Value::Array(parts.iter().map(|p| part(p, gen)).collect())),
    ])
}

/// A task as `tasks/get` and a blocking send give it (with its history, `history_length` of it when given).
pub(crate) fn task(task: &Task, state: TaskState, whole: bool, history_length: Option<usize>, gen: Gen) -> Value {
    let history: Vec<Value> = task.history.iter().map(|s| message(s, Some(task), &task.context_id, gen)).collect();
    let keep = history_length.unwrap_or(history.len()).min(history.len());
    let history = history.get(history.len() - keep..).map(<[Value]>::to_vec).unwrap_or_default();
    let artifacts: Vec<Value> = task.artifacts.iter().map(|m| artifact(m, &m.parts, gen)).collect();
    object(vec![
        ("kind", if gen == Gen::V03 { json!("task") } else { Value::Null }),
        ("id", json!(task.id)),
        ("contextId", json!(task.context_id)),
        ("status", status(task, state, whole, gen)),
        ("history", if history.is_empty() { Value::Null } else { Value::Array(history) }),
        ("artifacts", if artifacts.is_empty() || !whole { Value::Null } else { Value::Array(artifacts) }),
    ])
}

/// A result or stream item: bare with its `kind` on v0.3, `{"<member>": …}` on v1.0.
pub(crate) fn item(member: &str, value: Value, gen: Gen) -> Value {
    match gen {
        Gen::V03 => value,
        Gen::V1 => Value::Object(Map::from_iter([(member.to_string(), value)])),
    }
}

pub(crate) fn status_update(task: &Task, state: TaskState, gen: Gen) -> Value {
    let terminal_or_interrupted = matches!(state, TaskState::Ended(_));
    let body = object(vec![
        ("kind", if gen == Gen::V03 { json!("status-update") } else { Value::Null }),
        ("taskId", json!(task.id)),
        ("contextId", json!(task.context_id)),
        ("status", status(task, state, terminal_or_interrupted, gen)),
        ("final", if gen == Gen::V03 { json!(terminal_or_interrupted) } else { Value::Null }),
    ]);
    item("statusUpdate", body, gen)
}

pub(crate) fn artifact_update(task: &Task, made: &Made, chunk: &[Part], append: bool, last: bool, gen: Gen) -> Value {
    let body = object(vec![
        ("kind", if gen == Gen::V03 { json!("artifact-update") } else { Value::Null }),
        ("taskId", json!(task.id)),
        ("contextId", json!(task.context_id)),
        ("artifact", artifact(made, chunk, gen)),
        ("append", json!(append)),
        ("lastChunk", json!(last)),
    ]);
    item("artifactUpdate", body, gen)
}

/// A JSON-RPC error body: the code and message, and on v1.0 the `google.rpc.ErrorInfo` its clients read the reason
/// from (`data` is an array there).
pub(crate) fn error(code: i64, message: &str, data: Option<&Value>, gen: Gen) -> Value {
    let reason = match code {
        -32001 => Some("TASK_NOT_FOUND"),
        -32002 => Some("TASK_NOT_CANCELABLE"),
        -32003 => Some("PUSH_NOTIFICATION_NOT_SUPPORTED"),
        -32004 => Some("UNSUPPORTED_OPERATION"),
        -32005 => Some("CONTENT_TYPE_NOT_SUPPORTED"),
        -32006 => Some("INVALID_AGENT_RESPONSE"),
        -32007 => Some("EXTENDED_AGENT_CARD_NOT_CONFIGURED"),
        -32009 => Some("VERSION_NOT_SUPPORTED"),
        _ => None,
    };
    let data = match (gen, reason, data) {
        (Gen::V1, Some(reason), given) => {
            let mut info = json!({"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason,
                "domain": "a2a-protocol.org"});
            if let (Some(Value::Object(metadata)), Some(fields)) = (given, info.as_object_mut()) {
                fields.insert("metadata".into(), Value::Object(metadata.clone()));
            }
            Some(json!([info]))
        }
        (_, _, given) => given.cloned(),
    };
    object(vec![("code", json!(code)), ("message", json!(message)), ("data", data.unwrap_or(Value::Null))])
}
