//! The A2A checks of `verify::Check`: an agent received a message (with a text, so many times), a task was
//! cancelled, an agent was not called, every agent step was used. Each failure shows the A2A journal.

use super::assertion::{AssertionFailure, CheckResult};
use crate::journal::A2aEntry;
use crate::mock::MockModel;

const SENDS: [&str; 4] = ["message/send", "message/stream", "SendMessage", "SendStreamingMessage"];

/// The A2A journal as a failure shows it.
fn table(entries: &[A2aEntry]) -> String {
    let rows: Vec<String> = entries
        .iter()
        .map(|e| {
            let text = e.text.as_deref().map(|t| format!(" {t:?}")).unwrap_or_default();
            let outcome = e.outcome.describe();
            format!("  #{} {} {} ({}){text}: {outcome}", e.index, e.agent, e.method, e.version)
        })
        .collect();
    format!("A2A requests ({}):\n{}", entries.len(), rows.join("\n"))
}

fn of_agent(entry: &A2aEntry, agent: Option<&str>) -> bool {
    agent.is_none_or(|a| entry.agent == a)
}

/// The `a2a_received` check: messages sent to `agent` (any when `None`) whose text contains `text`, `times` of them
/// exactly when given, else at least one.
pub(crate) fn received(
    mock: &MockModel,
    agent: Option<&str>,
    text: Option<&str>,
    times: Option<u64>,
) -> CheckResult<()> {
    let entries = mock.a2a_entries();
    let count = entries
        .iter()
        .filter(|e| SENDS.contains(&e.method.as_str()) && of_agent(e, agent))
        .filter(|e| text.is_none_or(|t| e.text.as_deref().is_some_and(|got| got.contains(t))))
        .count() as u64;
    if times.map_or(count > 0, |times| count == times) {
        return Ok(());
    }
    let mut label = "a2a_received(".to_string();
    let mut wanted = format!("a message sent to {}", agent.unwrap_or("an agent"));
    let mut given = Vec::new();
    if let Some(agent) = agent {
        given.push(format!("agent={agent:?}"));
    }
    if let Some(text) = text {
        given.push(format!("text={text:?}"));
        wanted.push_str(&format!(" containing {text:?}"));
    }
    if let Some(times) = times {
        given.push(format!("times={times}"));
        wanted = format!("{wanted}, {times} time{}", if times == 1 { "" } else { "s" });
    }
    label.push_str(&given.join(", "));
    label.push(')');
    Err(AssertionFailure {
        check: label,
        expected: wanted,
        actual: format!("{count} such message{}", if count == 1 { "" } else { "s" }),
        history: table(&entries),
    })
}

/// The `a2a_task_canceled` check: a task of `agent` (any when `None`) was cancelled by the client.
pub(crate) fn task_canceled(mock: &MockModel, agent: Option<&str>) -> CheckResult<()> {
    let entries = mock.a2a_entries();
    let cancelled = entries
        .iter()
        .any(|e| matches!(e.method.as_str(), "tasks/cancel" | "CancelTask") && e.error.is_none() && of_agent(e, agent));
    if cancelled {
        return Ok(());
    }
    let label = agent.map_or("a2a_task_canceled()".to_string(), |a| format!("a2a_task_canceled(agent={a:?})"));
    Err(AssertionFailure {
        check: label,
        expected: format!("a task of {} cancelled", agent.unwrap_or("an agent")),
        actual: "no task cancelled".into(),
        history: table(&entries),
    })
}

/// The `a2a_not_called` check: no JSON-RPC request reached `agent` (reading its card is not a call).
pub(crate) fn not_called(mock: &MockModel, agent: &str) -> CheckResult<()> {
    let entries = mock.a2a_entries();
    let calls = entries.iter().filter(|e| e.agent == agent && e.method != "card").count();
    if calls == 0 {
        return Ok(());
    }
    Err(AssertionFailure {
        check: format!("a2a_not_called({agent:?})"),
        expected: format!("no request to {agent}"),
        actual: format!("{calls} request{}", if calls == 1 { "" } else { "s" }),
        history: table(&entries),
    })
}

/// The `all_a2a_steps_used` check: every agent step answered a message.
pub(crate) fn all_steps_used(mock: &MockModel) -> CheckResult<()> {
    let unused = mock.a2a_unused_steps();
    if unused.is_empty() {
        return Ok(());
    }
    let listed: Vec<String> = unused.iter().map(|u| format!("{} step {}", u.agent, u.step)).collect();
    Err(AssertionFailure {
        check: "all_a2a_steps_used()".into(),
        expected: "every agent step used".into(),
        actual: format!("{} unused: {}", unused.len(), listed.join(", ")),
        history: table(&mock.a2a_entries()),
    })
}
