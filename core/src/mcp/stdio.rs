//! MCP's stdio transport as data: a line in, the lines to write out (each after its virtual wait). The `cuecard mcp`
//! command reads stdin and writes stdout around it; nothing but these lines goes to stdout.

use super::engine::{self, Incoming, PARSE_ERROR};
use crate::error::{Error, ErrorKind, Result};
use crate::journal::Outcome;
use crate::mock::MockModel;
use serde_json::Value;

/// One stdio connection to one server: whether it has initialized.
#[derive(Clone, Debug)]
pub struct StdioSession {
    server: usize,
    initialized: bool,
}

/// What to write for one line read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StdioOutput {
    /// Lines (compact JSON, without the newline), each after waiting its virtual milliseconds.
    pub lines: Vec<(u64, String)>,
    /// End the process instead (a `drop_connection` step), after the waits.
    pub close: bool,
}

impl StdioSession {
    /// A connection to the server named `server` (the first when `None`); `not_found` naming the servers there are.
    pub fn new(mock: &MockModel, server: Option<&str>) -> Result<StdioSession> {
        let (index, names) = mock.with_mcp(|state, _| {
            (state.server_index(server), state.mcp.servers.iter().map(|s| s.name.clone()).collect::<Vec<_>>())
        });
        let Some(server) = index else {
            let message = match (server, names.is_empty()) {
                (_, true) => "the scenario has no MCP server: add an `mcp` section with servers".to_string(),
                (Some(name), false) => format!("no MCP server named {name} (the scenario has {})", names.join(", ")),
                (None, false) => unreachable!("the first server exists"),
            };
            return Err(Error::new(ErrorKind::NotFound, message));
        };
        Ok(StdioSession { server, initialized: false })
    }

    /// Answers one line (a trailing `\r` is ignored; a blank line is nothing).
    pub fn handle_line(&mut self, mock: &MockModel, line: &str) -> StdioOutput {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            return StdioOutput::default();
        }
        let incoming =
            Incoming { server: Some(self.server), transport: "stdio", session: None, initialized: self.initialized };
        let message: Value = match serde_json::from_str(line) {
            Ok(message) => message,
            Err(e) => {
                let reason = format!("Parse error: {e}");
                engine::journal_transport(mock, &incoming, None, Outcome::Rejected { reason: reason.clone() });
                let error = engine::error_response(Value::Null, PARSE_ERROR, &reason);
                return StdioOutput { lines: vec![(0, error.to_string())], close: false };
            }
        };
        let answer = engine::answer(mock, &incoming, &message);
        // As the reference server: initialized once its initialize result is sent.
        self.initialized |= answer.negotiated.is_some();
        let mut lines: Vec<(u64, String)> = answer.before.iter().map(|(d, m)| (*d, m.to_string())).collect();
        if answer.dropped {
            return StdioOutput { lines, close: true };
        }
        if let Some(response) = answer.response {
            lines.push((answer.delay_ms, response.to_string()));
        }
        StdioOutput { lines, close: false }
    }
}
