//! One JSON-RPC request to a scripted agent, answered: the method tells the generation (v0.3 `message/send`, v1.0
//! `SendMessage`, ...), a message takes the agent's next step, and the tasks it makes are kept for follow-ups,
//! `tasks/get`, `tasks/cancel`, re-subscriptions and push configs. The answer is a JSON-RPC response, or a stream of
//! them (SSE) that ends when the task reaches its state — or is cut where the step says.

use super::render::{self, Gen};
use crate::journal::{A2aEntry, Outcome};
use crate::mock::a2a::{AgentsState, Made, Part, Said, Task, TaskState};
use crate::mock::MockModel;
use crate::script::a2a::{A2aAgent, A2aState, A2aStep};
use crate::script::mcp::contains;
use serde_json::{json, Value};

/// What the transport sends back.
#[derive(Debug)]
pub(crate) enum Answer {
    /// One JSON-RPC response (a result or an error).
    Json(Value),
    /// A stream: each JSON-RPC response with the virtual milliseconds before it; `cut` drops the connection after
    /// the last instead of closing it.
    Stream { events: Vec<(u64, Value)>, cut: bool },
}

/// What a method does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Send { stream: bool },
    Get,
    List,
    Cancel,
    Resubscribe,
    PushSet,
    PushGet,
    PushList,
    PushDelete,
    ExtendedCard,
}

fn op_of(method: &str) -> Option<(Gen, Op)> {
    Some(match method {
        "message/send" => (Gen::V03, Op::Send { stream: false }),
        "message/stream" => (Gen::V03, Op::Send { stream: true }),
        "tasks/get" => (Gen::V03, Op::Get),
        "tasks/cancel" => (Gen::V03, Op::Cancel),
        "tasks/resubscribe" => (Gen::V03, Op::Resubscribe),
        "tasks/pushNotificationConfig/set" => (Gen::V03, Op::PushSet),
        "tasks/pushNotificationConfig/get" => (Gen::V03, Op::PushGet),
        "tasks/pushNotificationConfig/list" => (Gen::V03, Op::PushList),
        "tasks/pushNotificationConfig/delete" => (Gen::V03, Op::PushDelete),
        "agent/getAuthenticatedExtendedCard" => (Gen::V03, Op::ExtendedCard),
        "SendMessage" => (Gen::V1, Op::Send { stream: false }),
        "SendStreamingMessage" => (Gen::V1, Op::Send { stream: true }),
        "GetTask" => (Gen::V1, Op::Get),
        "ListTasks" => (Gen::V1, Op::List),
        "CancelTask" => (Gen::V1, Op::Cancel),
        "SubscribeToTask" => (Gen::V1, Op::Resubscribe),
        "CreateTaskPushNotificationConfig" => (Gen::V1, Op::PushSet),
        "GetTaskPushNotificationConfig" => (Gen::V1, Op::PushGet),
        "ListTaskPushNotificationConfigs" => (Gen::V1, Op::PushList),
        "DeleteTaskPushNotificationConfig" => (Gen::V1, Op::PushDelete),
        "GetExtendedAgentCard" => (Gen::V1, Op::ExtendedCard),
        _ => return None,
    })
}

/// A JSON-RPC error to answer with, and how the journal calls it.
struct Failure {
    code: i64,
    message: String,
    data: Option<Value>,
    outcome: Outcome,
}

fn failure(code: i64, message: impl Into<String>) -> Failure {
    Failure { code, message: message.into(), data: None, outcome: Outcome::Answered }
}

fn rejected(code: i64, message: impl Into<String>) -> Failure {
    let message = message.into();
    Failure { code, message: message.clone(), data: None, outcome: Outcome::Rejected { reason: message } }
}

/// Answers one JSON-RPC body sent to `agent` (None: the path named no agent), journaling it once. Beside the answer,
/// the kind of cuecard error it is when the scenario lacks what was asked (`script_exhausted`: no step left for the
/// message; `missing_agent`'s for no such agent), which a recording proxy forwards instead of replaying; and the pushes owed
/// to webhooks, to send after the reply.
pub(crate) fn answer(
    mock: &MockModel,
    agent: Option<usize>,
    agent_name: &str,
    body: &[u8],
    version: Option<&str>,
) -> (Answer, Option<&'static str>, Vec<super::push::Push>) {
    mock.with_a2a(|state, now| {
        let name =
            agent.and_then(|a| state.a2a.agents.get(a)).map_or_else(|| agent_name.to_string(), |a| a.name.clone());
        let mut entry = arrival(state, &now, name, String::new(), Outcome::Answered);
        let request: Option<Value> = serde_json::from_slice(body).ok();
        let id = request.as_ref().and_then(|r| r.get("id")).cloned().unwrap_or(Value::Null);
        let method = request.as_ref().and_then(|r| r.get("method")).and_then(Value::as_str).unwrap_or_default();
        entry.method = method.to_string();
        entry.id = Some(id.clone()).filter(|i| !i.is_null());
        let known = op_of(method);
        let gen = known.map_or(if version == Some("0.3") { Gen::V03 } else { Gen::V1 }, |(gen, _)| gen);
        entry.version = gen.name();
        let stream = matches!(known, Some((_, Op::Send { stream: true } | Op::Resubscribe)));
        let outcome = match (&request, known, agent) {
            (None, _, _) => Err(rejected(-32700, "Invalid JSON payload")),
            (Some(r), _, _) if !r.is_object() || r.get("jsonrpc") != Some(&json!("2.0")) || method.is_empty() => {
                Err(rejected(-32600, "Invalid JSON-RPC Request"))
            }
            (_, None, _) => {
                Err(Failure { outcome: Outcome::Unmatched, ..failure(-32601, format!("Method not found: {method}")) })
            }
            (_, _, None) => Err(Failure {
                outcome: Outcome::Unmatched,
                ..failure(-32601, format!("no A2A agent named {agent_name:?} in the scenario"))
            }),
            (_, Some(_), Some(_)) if version.is_some_and(|v| !matches!(v, "0.3" | "1.0" | "1")) => Err(failure(
                -32009,
                format!("A2A version {} is not supported (this agent serves 0.3 and 1.0)", version.unwrap_or_default()),
            )),
            (Some(request), Some((gen, op)), Some(agent)) => {
                let params = request.get("params").cloned().unwrap_or_else(|| json!({}));
                serve(state, now.clock_ms, agent, gen, op, &params, &mut entry)
            }
        };
        let mut miss = None;
        let reply = match outcome {
            Ok(Answer::Json(result)) => Answer::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})),
            Ok(Answer::Stream { events, cut }) => Answer::Stream {
                events: events
                    .into_iter()
                    .map(|(delay, result)| (delay, json!({"jsonrpc": "2.0", "id": id, "result": result})))
                    .collect(),
                cut,
            },
            Err(f) => {
                miss = match f.outcome {
                    Outcome::Exhausted => Some("script_exhausted"),
                    Outcome::Unmatched if agent.is_none() => Some(missing_agent(now.replays_recording)),
                    _ => None,
                };
                let error = render::error(f.code, &f.message, f.data.as_ref(), gen);
                entry.outcome = f.outcome;
                entry.error = Some(error.clone());
                let response = json!({"jsonrpc": "2.0", "id": id, "error": error});
                // An error on a streaming call is an SSE event, then the close (what a2a-sdk 0.3 can read).
                if stream {
                    Answer::Stream { events: vec![(0, response)], cut: false }
                } else {
                    Answer::Json(response)
                }
            }
        };
        state.record(entry, now.journal_limit);
        (reply, miss, std::mem::take(&mut state.outbox))
    })
}

/// The kind of error for a path that names no agent: `no_recording` when the mock replays a recording (as for a model
/// request a recording lacks, so a recording proxy forwards it), else `not_found`.
pub(crate) fn missing_agent(replays_recording: bool) -> &'static str {
    if replays_recording {
        "no_recording"
    } else {
        "not_found"
    }
}

/// Journals a card fetch.
pub(crate) fn journal_card(mock: &MockModel, agent_name: &str, found: bool) {
    let outcome = if found { Outcome::Answered } else { Outcome::Unmatched };
    journal_plain(mock, agent_name, "card", outcome);
}

/// Journals a request the transport refused (a GET on an endpoint).
pub(crate) fn journal_refused(mock: &MockModel, agent_name: &str, method: &str, reason: &str) {
    journal_plain(mock, agent_name, method, Outcome::Rejected { reason: reason.to_string() });
}

fn journal_plain(mock: &MockModel, agent_name: &str, method: &str, outcome: Outcome) {
    mock.with_a2a(|state, now| {
        let entry = arrival(state, &now, agent_name.to_string(), method.to_string(), outcome);
        state.record(entry, now.journal_limit);
    });
}

/// The journal entry of a request arriving now, its details to fill in.
fn arrival(
    state: &AgentsState,
    now: &crate::mock::mcp::Now<'_>,
    agent: String,
    method: String,
    outcome: Outcome,
) -> A2aEntry {
    A2aEntry {
        index: state.received,
        after_requests: now.requests,
        at_ms: *now.clock_ms,
        agent,
        method,
        version: Gen::V1.name(),
        id: None,
        task_id: None,
        text: None,
        parts: None,
        step: None,
        outcome,
        error: None,
        pushed: Vec::new(),
    }
}

fn serve(
    state: &mut AgentsState,
    clock_ms: &mut u64,
    agent: usize,
    gen: Gen,
    op: Op,
    params: &Value,
    entry: &mut A2aEntry,
) -> Result<Answer, Failure> {
    let Some(script) = state.a2a.agents.get(agent).cloned() else {
        return Err(failure(-32603, "the agent is gone"));
    };
    let push_supported = script.push_notifications.unwrap_or(false);
    let task_param = |params: &Value| -> Option<String> {
        ["id", "taskId"].iter().find_map(|k| params.get(*k).and_then(Value::as_str)).map(str::to_string)
    };
    match op {
        Op::Send { stream } => send(state, clock_ms, agent, &script, gen, stream, params, entry),
        Op::Get | Op::Cancel | Op::Resubscribe => {
            let id = task_param(params).ok_or_else(|| rejected(-32602, "params.id (the task's id) is required"))?;
            entry.task_id = Some(id.clone());
            let at = state.tasks.iter().position(|t| t.id == id && t.agent == agent);
            let (tasks, outbox) = (&mut state.tasks, &mut state.outbox);
            let task = at
                .and_then(|at| tasks.get_mut(at))
                .ok_or_else(|| Failure { data: Some(json!({"taskId": id})), ..failure(-32001, "Task not found") })?;
            match op {
                Op::Get => {
                    let length = params.get("historyLength").and_then(Value::as_u64).map(|n| n as usize);
                    Ok(Answer::Json(render::task(task, task.state, true, length, gen)))
                }
                Op::Cancel if task.state.is_terminal() => Err(failure(-32002, "Task cannot be canceled")),
                Op::Cancel => {
                    task.state = TaskState::Ended(A2aState::Canceled);
                    task.status = None;
                    task.status_at_ms = *clock_ms;
                    task.push_owed = false;
                    notify(task, gen, outbox, entry);
                    Ok(Answer::Json(render::task(task, task.state, true, None, gen)))
                }
                _ if task.state.is_terminal() => {
                    Err(failure(-32004, "This operation is not supported: the task is in a terminal state"))
                }
                _ => {
                    let snapshot = render::item("task", render::task(task, task.state, true, None, gen), gen);
                    let events = vec![(0, snapshot), (0, render::status_update(task, task.state, gen))];
                    Ok(Answer::Stream { events, cut: false })
                }
            }
        }
        Op::List => {
            let context = params.get("contextId").and_then(Value::as_str);
            let tasks: Vec<Value> = state
                .tasks
                .iter()
                .filter(|t| t.agent == agent && context.is_none_or(|c| t.context_id == c))
                .map(|t| render::task(t, t.state, true, None, gen))
                .collect();
            let total = tasks.len();
            Ok(Answer::Json(json!({"tasks": tasks, "nextPageToken": "", "pageSize": total, "totalSize": total})))
        }
        Op::PushSet | Op::PushGet | Op::PushList | Op::PushDelete if !push_supported => {
            Err(failure(-32003, "Push Notification is not supported"))
        }
        Op::PushSet | Op::PushGet | Op::PushList | Op::PushDelete => push(state, agent, gen, op, params, entry),
        Op::ExtendedCard => match gen {
            Gen::V03 => Err(failure(-32007, "Authenticated Extended Card not configured")),
            Gen::V1 => Err(failure(-32004, "This operation is not supported: the agent has no extended card")),
        },
    }
}

/// The neutral parts of a message's `parts` (text and data; any other part is kept as data, as sent).
fn parts_of(message: &Value) -> Vec<Part> {
    let parts = message.get("parts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    parts
        .iter()
        .map(|part| match (part.get("text").and_then(Value::as_str), part.get("data")) {
            (Some(text), _) => Part::Text(text.to_string()),
            (None, Some(data)) if part.get("kind").is_none_or(|k| k == "data") => Part::Data(data.clone()),
            _ => Part::Data(part.clone()),
        })
        .collect()
}

fn text_of(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|p| if let Part::Text(t) = p { Some(t.as_str()) } else { None })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The step a message takes: the first unused one it meets, else what the agent's exhaustion policy says.
fn take_step(used: &mut [bool], agent: &A2aAgent, text: &str, message: &Value) -> Option<usize> {
    let accepts = |step: &A2aStep| {
        step.matcher.as_ref().is_none_or(|m| {
            m.text.as_ref().is_none_or(|t| text.contains(t.as_str()))
                && m.context_id.as_ref().is_none_or(|c| message.get("contextId").and_then(Value::as_str) == Some(c))
                && m.metadata.as_ref().is_none_or(|want| message.get("metadata").is_some_and(|got| contains(got, want)))
        })
    };
    agent.on_exhausted.unwrap_or_default().take(used, &agent.steps, accepts)
}

#[allow(clippy::too_many_arguments)]
fn send(
    state: &mut AgentsState,
    clock_ms: &mut u64,
    agent: usize,
    script: &A2aAgent,
    gen: Gen,
    stream: bool,
    params: &Value,
    entry: &mut A2aEntry,
) -> Result<Answer, Failure> {
    let message = params
        .get("message")
        .filter(|m| m.is_object())
        .ok_or_else(|| rejected(-32602, "params.message is required"))?;
    let parts = parts_of(message);
    let text = text_of(&parts);
    entry.text = Some(text.clone());
    entry.parts = message.get("parts").cloned();
    // A follow-up names its task: it must be this agent's, and still take messages.
    let follow_up = message.get("taskId").and_then(Value::as_str).map(str::to_string);
    if let Some(id) = &follow_up {
        entry.task_id = Some(id.clone());
        match state.tasks.iter().find(|t| &t.id == id && t.agent == agent) {
            None => return Err(Failure { data: Some(json!({"taskId": id})), ..failure(-32001, "Task not found") }),
            Some(task) if task.state.is_terminal() => {
                return Err(failure(-32004, "This operation is not supported: the task is in a terminal state"))
            }
            Some(_) => {}
        }
    }
    // A webhook given with the message (v0.3 `pushNotificationConfig`, v1.0 `taskPushNotificationConfig`) is checked
    // before a step is taken: a refused one uses none.
    let inline_push = ["pushNotificationConfig", "taskPushNotificationConfig"]
        .iter()
        .find_map(|key| params.get("configuration").and_then(|c| c.get(*key)))
        .filter(|config| !config.is_null())
        .cloned();
    if let Some(config) = &inline_push {
        if !script.push_notifications.unwrap_or(false) {
            return Err(failure(-32003, "Push Notification is not supported"));
        }
        if let Some(why) = super::push::refused_url(config) {
            return Err(rejected(-32602, why));
        }
    }
    let used = state.used.get_mut(agent).ok_or_else(|| failure(-32603, "the agent is gone"))?;
    let Some(taken) = take_step(used, script, &text, message) else {
        let preview: String = text.chars().take(80).collect();
        return Err(Failure {
            outcome: Outcome::Exhausted,
            ..failure(-32603, format!("cuecard: agent {:?} has no step left for the message {preview:?} (every step was used, or none matches it)", script.name))
        });
    };
    entry.step = u32::try_from(taken).ok();
    let Some(step) = script.steps.get(taken).cloned() else { return Err(failure(-32603, "the step is gone")) };
    *clock_ms += step.delay_ms;
    if let Some(error) = &step.error {
        return Err(Failure { data: error.data.clone(), ..failure(error.code, error.message.clone()) });
    }
    let user = Said {
        message_id: message.get("messageId").and_then(Value::as_str).map_or_else(|| state.next_id(), str::to_string),
        from_user: true,
        parts,
    };
    let context_id = message.get("contextId").and_then(Value::as_str).map(str::to_string);
    if let Some(reply) = &step.message {
        let context_id = context_id.unwrap_or_else(|| state.next_id());
        let said = Said { message_id: state.next_id(), from_user: false, parts: vec![Part::Text(reply.clone())] };
        let reply = render::item("message", render::message(&said, None, &context_id, gen), gen);
        return Ok(if stream {
            Answer::Stream { events: vec![(step.delay_ms, reply)], cut: false }
        } else {
            Answer::Json(reply)
        });
    }
    // The task: made, or the follow-up's, with the user's message in its history.
    let at = match follow_up.as_ref().and_then(|id| state.tasks.iter().position(|t| &t.id == id)) {
        Some(at) => at,
        None => {
            let id = state.next_id();
            let context_id = context_id.unwrap_or_else(|| state.next_id());
            state.tasks.push(Task {
                id,
                context_id,
                agent,
                state: TaskState::Submitted,
                status: None,
                status_at_ms: *clock_ms,
                history: Vec::new(),
                artifacts: Vec::new(),
                push: Vec::new(),
                push_owed: false,
            });
            state.tasks.len() - 1
        }
    };
    let made: Vec<Made> = step
        .artifacts_made()
        .into_iter()
        .map(|(name, parts)| Made { artifact_id: state.next_id(), name, parts })
        .collect();
    let status = step.status.clone().map(|text| Said {
        message_id: String::new(),
        from_user: false,
        parts: vec![Part::Text(text)],
    });
    let status = status.map(|s| Said { message_id: state.next_id(), ..s });
    let config_id = inline_push.as_ref().map(|_| state.next_id());
    let AgentsState { tasks, outbox, .. } = state;
    let Some(task) = tasks.get_mut(at) else { return Err(failure(-32603, "the task is gone")) };
    entry.task_id = Some(task.id.clone());
    if let (Some(mut config), Some(fresh)) = (inline_push, config_id) {
        if let (false, Some(fields)) = (config.get("id").is_some(), config.as_object_mut()) {
            fields.insert("id".into(), json!(fresh));
        }
        task.push.retain(|c| c.get("id") != config.get("id"));
        task.push.push(config);
    }
    task.history.push(user);
    let before = task.state;
    let final_state = TaskState::Ended(step.state.unwrap_or_default());
    task.state = final_state;
    task.status = status;
    task.status_at_ms = *clock_ms;
    task.artifacts.extend(made.iter().cloned());
    if !stream {
        // Non-blocking (v0.3 `blocking: false`, v1.0 `returnImmediately: true`): the task as it starts; the client
        // reads the rest with tasks/get.
        let waits = params.pointer("/configuration/blocking") == Some(&json!(false))
            || params.pointer("/configuration/returnImmediately") == Some(&json!(true));
        let shown = if waits { TaskState::Working } else { final_state };
        // The webhooks known now hear where the task ends; answered at once without one, the first registered
        // later is told (the task ends after the reply).
        task.push_owed = waits && task.push.is_empty();
        notify(task, gen, outbox, entry);
        return Ok(Answer::Json(render::item("task", render::task(task, shown, !waits, None, gen), gen)));
    }
    let mut events: Vec<Value> = Vec::new();
    let first = if before == TaskState::Submitted { TaskState::Submitted } else { TaskState::Working };
    events.push(render::item("task", render::task(task, first, false, None, gen), gen));
    events.push(render::status_update(task, TaskState::Working, gen));
    for artifact in &made {
        let chunks = crate::script::a2a::stream_chunks(&artifact.parts);
        let last = chunks.len().saturating_sub(1);
        for (i, chunk) in chunks.iter().enumerate() {
            events.push(render::artifact_update(task, artifact, chunk, i > 0, i == last, gen));
        }
    }
    events.push(render::status_update(task, final_state, gen));
    let cut = step.cut_after.is_some_and(|n| n < events.len());
    if let Some(n) = step.cut_after {
        events.truncate(n);
    }
    // A stream cut before the end is an agent that went away: it tells no webhook.
    if !cut {
        notify(task, gen, outbox, entry);
    }
    // The step's delay before the first event, then none: a stream is paced by its delay, not slowed per event.
    let timed = events.into_iter().enumerate().map(|(i, e)| (if i == 0 { step.delay_ms } else { 0 }, e)).collect();
    Ok(Answer::Stream { events: timed, cut })
}

/// Queues a POST of `task` as it is now to each webhook registered for it, naming each in the journal entry.
fn notify(task: &Task, gen: Gen, outbox: &mut Vec<super::push::Push>, entry: &mut A2aEntry) {
    for config in &task.push {
        let rendered = render::task(task, task.state, true, None, gen);
        if let Some(push) = super::push::push_for(config, rendered, gen == Gen::V1) {
            entry.pushed.push(push.url.clone());
            outbox.push(push);
        }
    }
}

/// The push notification config methods: configs are kept per task (`push`: what is delivered to them).
fn push(
    state: &mut AgentsState,
    agent: usize,
    gen: Gen,
    op: Op,
    params: &Value,
    entry: &mut A2aEntry,
) -> Result<Answer, Failure> {
    let task_id = ["taskId", "id"]
        .iter()
        .find_map(|k| params.get(*k).and_then(Value::as_str))
        .map(str::to_string)
        .ok_or_else(|| rejected(-32602, "params.taskId is required"))?;
    entry.task_id = Some(task_id.clone());
    let fresh = state.next_id();
    let (tasks, outbox) = (&mut state.tasks, &mut state.outbox);
    let task = tasks
        .iter_mut()
        .find(|t| t.id == task_id && t.agent == agent)
        .ok_or_else(|| Failure { data: Some(json!({"taskId": task_id})), ..failure(-32001, "Task not found") })?;
    let config_id = |config: &Value| config.get("id").and_then(Value::as_str).map(str::to_string);
    let wanted = match gen {
        Gen::V03 => params.get("pushNotificationConfigId").and_then(Value::as_str).map(str::to_string),
        Gen::V1 => params.get("id").and_then(Value::as_str).map(str::to_string),
    };
    match op {
        Op::PushSet => {
            let mut config = match gen {
                Gen::V03 => params.get("pushNotificationConfig").cloned().unwrap_or_else(|| json!({})),
                Gen::V1 => {
                    let mut flat = params.clone();
                    if let Some(object) = flat.as_object_mut() {
                        object.remove("taskId");
                    }
                    flat
                }
            };
            if let Some(why) = super::push::refused_url(&config) {
                return Err(rejected(-32602, why));
            }
            if let (None, Some(fields)) = (config_id(&config), config.as_object_mut()) {
                fields.insert("id".into(), json!(fresh));
            }
            task.push.retain(|c| config_id(c) != config_id(&config));
            task.push.push(config.clone());
            // A task answered at once ends after the reply: the first webhook registered for it hears how.
            if std::mem::take(&mut task.push_owed) {
                notify(task, gen, outbox, entry);
            }
            Ok(Answer::Json(wrap_config(&task_id, &config, gen)))
        }
        Op::PushGet => {
            let found = task.push.iter().find(|c| wanted.is_none() || config_id(c) == wanted).cloned();
            let config = found.ok_or_else(|| failure(-32602, "no push notification config with that id"))?;
            Ok(Answer::Json(wrap_config(&task_id, &config, gen)))
        }
        Op::PushList => {
            let configs: Vec<Value> = task.push.iter().map(|c| wrap_config(&task_id, c, gen)).collect();
            Ok(Answer::Json(match gen {
                Gen::V03 => Value::Array(configs),
                Gen::V1 => json!({"configs": configs, "nextPageToken": ""}),
            }))
        }
        _ => {
            task.push.retain(|c| config_id(c) != wanted);
            Ok(Answer::Json(if gen == Gen::V03 { Value::Null } else { json!({}) }))
        }
    }
}

fn wrap_config(task_id: &str, config: &Value, gen: Gen) -> Value {
    match gen {
        Gen::V03 => json!({"taskId": task_id, "pushNotificationConfig": config}),
        Gen::V1 => {
            let mut flat = config.clone();
            if let Some(fields) = flat.as_object_mut() {
                fields.insert("taskId".into(), json!(task_id));
            }
            flat
        }
    }
}
