//! The MCP checks of `verify::Check`: a tool was called (times, with arguments), tools were listed, no unexpected
//! MCP call, every MCP step used. Each failure shows the MCP journal.

use super::assertion::{AssertionFailure, CheckResult};
use crate::journal::McpEntry;
use crate::mock::MockModel;
use crate::script::mcp::contains;
use serde_json::Value;

/// What the calls `mcp_tool_called` counts must carry, when given.
pub(crate) struct CallWanted<'a> {
    /// Arguments they contain.
    pub arguments: Option<&'a Value>,
    /// `inputResponses` they contain (retries after an `input_required` step).
    pub input_responses: Option<&'a Value>,
}

/// The `mcp_tool_called` check: `tool` (of `server`, if given) was called, `times` times exactly when given (else at
/// least once), counting only calls that carry what `wanted` names.
pub(crate) fn tool_called(
    mock: &MockModel,
    server: Option<&str>,
    tool: &str,
    times: Option<u64>,
    wanted: CallWanted<'_>,
) -> CheckResult<()> {
    let CallWanted { arguments, input_responses } = wanted;
    let carries = |want: Option<&Value>, got: &Option<Value>| {
        want.is_none_or(|want| got.as_ref().is_some_and(|got| contains(got, want)))
    };
    let entries = mock.mcp_entries();
    let count = entries
        .iter()
        .filter(|e| e.method == "tools/call" && e.name.as_deref() == Some(tool) && of_server(e, server))
        .filter(|e| carries(arguments, &e.arguments) && carries(input_responses, &e.input_responses))
        .count() as u64;
    if times.map_or(count > 0, |times| count == times) {
        return Ok(());
    }
    let mut label = format!("mcp_tool_called({tool:?}");
    let mut wanted = format!("{tool} called");
    if let Some(server) = server {
        label.push_str(&format!(", server={server:?}"));
        wanted.push_str(&format!(" on {server}"));
    }
    if let Some(times) = times {
        label.push_str(&format!(", times={times}"));
    }
    if let Some(arguments) = arguments {
        label.push_str(&format!(", arguments={arguments}"));
        wanted.push_str(&format!(" with arguments containing {arguments}"));
    }
    if let Some(responses) = input_responses {
        label.push_str(&format!(", input_responses={responses}"));
        wanted.push_str(&format!(" with input responses containing {responses}"));
    }
    label.push(')');
    let expected = match times {
        Some(times) => format!("{wanted} {}", calls(times)),
        None => format!("{wanted} at least once"),
    };
    Err(AssertionFailure { check: label, expected, actual: format!("{} such", calls(count)), history: table(&entries) })
}

/// The `mcp_tools_listed` check: a client listed the tools (of `server`, if given).
pub(crate) fn tools_listed(mock: &MockModel, server: Option<&str>) -> CheckResult<()> {
    let entries = mock.mcp_entries();
    if entries.iter().any(|e| e.method == "tools/list" && of_server(e, server) && e.result.is_some()) {
        return Ok(());
    }
    let label = match server {
        Some(server) => format!("mcp_tools_listed(server={server:?})"),
        None => "mcp_tools_listed()".to_string(),
    };
    let expected = format!("a tools/list answered{}", server.map(|s| format!(" by {s}")).unwrap_or_default());
    Err(AssertionFailure { check: label, expected, actual: "none".into(), history: table(&entries) })
}

/// The `no_unexpected_mcp_calls` check: no unknown tool, prompt, resource or method, no tool past its steps, no
/// message refused.
pub(crate) fn no_unexpected_calls(mock: &MockModel) -> CheckResult<()> {
    let entries = mock.mcp_entries();
    let unexpected = entries.iter().filter(|e| e.is_unexpected()).count();
    if unexpected == 0 {
        return Ok(());
    }
    Err(AssertionFailure {
        check: "no_unexpected_mcp_calls()".into(),
        expected: "no MCP message beyond the scenario".into(),
        actual: format!("{unexpected} unexpected MCP message{}", if unexpected == 1 { "" } else { "s" }),
        history: table(&entries),
    })
}

/// The `all_mcp_steps_used` check: every tool step answered a call.
pub(crate) fn all_steps_used(mock: &MockModel) -> CheckResult<()> {
    let unused = mock.mcp_unused_steps();
    if unused.is_empty() {
        return Ok(());
    }
    let lines: Vec<String> = unused.iter().map(|u| format!("  {} {} step {}", u.server, u.tool, u.step)).collect();
    Err(AssertionFailure {
        check: "all_mcp_steps_used()".into(),
        expected: "every MCP tool step to answer a call".into(),
        actual: format!("{} unused step{}", unused.len(), if unused.len() == 1 { "" } else { "s" }),
        history: format!("unused MCP steps:\n{}\n{}", lines.join("\n"), table(&mock.mcp_entries())),
    })
}

fn of_server(entry: &McpEntry, server: Option<&str>) -> bool {
    server.is_none_or(|server| entry.server == server)
}

fn calls(count: u64) -> String {
    format!("{count} time{}", if count == 1 { "" } else { "s" })
}

/// The MCP journal as a table: index, server, method, name and arguments, outcome, and the first text answered.
fn table(entries: &[McpEntry]) -> String {
    let mut lines = vec![format!("MCP messages ({}):", entries.len())];
    for entry in entries {
        let mut what = entry.method.clone();
        if let Some(name) = &entry.name {
            what.push(' ');
            what.push_str(name);
        }
        if let Some(arguments) = entry.arguments.as_ref().filter(|a| a.as_object().is_some_and(|o| !o.is_empty())) {
            what.push_str(&format!(" {arguments}"));
        }
        if let Some(responses) = &entry.input_responses {
            what.push_str(&format!(" responses {responses}"));
        }
        let asked = entry.result.as_ref().filter(|r| r["resultType"] == "input_required");
        let answer = match (&entry.result, &entry.error) {
            (_, Some(error)) => format!("error {}", error["message"]),
            (Some(_), None) if asked.is_some() => {
                let keys: Vec<&str> = asked
                    .and_then(|r| r["inputRequests"].as_object())
                    .map(|requests| requests.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                format!("input_required {}", keys.join(", ")).trim_end().to_string()
            }
            (Some(result), None) => result.pointer("/content/0/text").map(ToString::to_string).unwrap_or_default(),
            (None, None) => String::new(),
        };
        let outcome = entry.outcome.describe();
        lines.push(
            format!("  {}  {}  {what}  {outcome}  {answer}", entry.index + 1, entry.server).trim_end().to_string(),
        );
    }
    lines.join("\n")
}
