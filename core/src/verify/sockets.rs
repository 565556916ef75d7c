//! The realtime socket checks of `verify::Check`: a session received (or sent) a message of a type with fields, and
//! messages came in an order. They read the journal of socket messages (`MockModel::socket_events`); each failure
//! shows it.

use super::assertion::{AssertionFailure, CheckResult};
use crate::journal::SocketEvent;
use crate::mock::MockModel;
use crate::script::mcp::contains;
use serde_json::Value;

/// The messages of one direction (and session, when given).
fn of(events: &[SocketEvent], direction: Option<&str>, session: Option<&str>) -> Vec<SocketEvent> {
    events
        .iter()
        .filter(|e| direction.is_none_or(|d| e.direction == d) && session.is_none_or(|s| e.session == s))
        .cloned()
        .collect()
}

/// One line per message, long events cut: what a failure shows.
fn table(events: &[SocketEvent]) -> String {
    let rows: Vec<String> = events
        .iter()
        .map(|e| {
            let mut text = e.event.to_string();
            if text.len() > 120 {
                let mut end = 117;
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.truncate(end);
                text.push_str("...");
            }
            let arrow = if e.direction == "client" { "->" } else { "<-" };
            format!("  #{} {} {arrow} {}: {text}", e.index, e.session, e.kind)
        })
        .collect();
    format!("socket messages ({}):\n{}", events.len(), rows.join("\n"))
}

/// What a count of messages is called.
fn messages(n: u64) -> String {
    format!("{n} message{}", if n == 1 { "" } else { "s" })
}

/// The `socket_received` (`direction` client) and `socket_sent` (server) checks: messages of `kind` whose JSON
/// contains `fields`, `times` of them exactly when given, else at least one.
pub(crate) fn exchanged(
    mock: &MockModel,
    direction: &'static str,
    kind: &str,
    fields: Option<&Value>,
    session: Option<&str>,
    times: Option<u64>,
) -> CheckResult<()> {
    let scoped = of(&mock.socket_events(), Some(direction), session);
    let count =
        scoped.iter().filter(|e| e.kind == kind && fields.is_none_or(|want| contains(&e.event, want))).count() as u64;
    if times.map_or(count > 0, |times| count == times) {
        return Ok(());
    }
    let name = if direction == "client" { "socket_received" } else { "socket_sent" };
    let mut label = format!("{name}({kind:?}");
    let verb = if direction == "client" { "received" } else { "sent" };
    let mut wanted = format!("a {kind} message {verb}");
    if let Some(fields) = fields {
        label.push_str(&format!(", fields={fields}"));
        wanted.push_str(&format!(" containing {fields}"));
    }
    if let Some(session) = session {
        label.push_str(&format!(", session={session:?}"));
        wanted.push_str(&format!(" on {session}"));
    }
    if let Some(times) = times {
        label.push_str(&format!(", times={times}"));
        wanted = format!("{wanted}, {}", messages(times));
    }
    label.push(')');
    Err(AssertionFailure {
        check: label,
        expected: wanted,
        actual: format!("{} such", messages(count)),
        history: table(&scoped),
    })
}

/// The `socket_events_in_order` check: messages of these types crossed in this order (others may come between).
pub(crate) fn in_order(
    mock: &MockModel,
    kinds: &[String],
    direction: Option<&str>,
    session: Option<&str>,
) -> CheckResult<()> {
    let events = mock.socket_events();
    let scoped = of(&events, direction, session);
    let mut wanted = kinds.iter().peekable();
    for event in &scoped {
        if wanted.peek().is_some_and(|kind| **kind == event.kind) {
            wanted.next();
        }
    }
    let Some(missing) = wanted.next() else { return Ok(()) };
    let found = kinds.len() - 1 - wanted.count();
    let mut label = format!("socket_events_in_order({kinds:?}");
    if let Some(direction) = direction {
        label.push_str(&format!(", direction={direction:?}"));
    }
    if let Some(session) = session {
        label.push_str(&format!(", session={session:?}"));
    }
    label.push(')');
    Err(AssertionFailure {
        check: label,
        expected: format!("messages of types {} in that order", kinds.join(", ")),
        actual: format!("the first {found} in order, then no {missing} after them"),
        history: table(&scoped),
    })
}
