//! `cuecard mcp`: one scripted MCP server over stdio. The protocol is core's (`cuecard::mcp::StdioSession`); this
//! is the loop around it: a line of stdin in, its lines to stdout (flushed each), the waits in real time unless
//! `--instant`.

use super::ExitCode;
use cuecard::mcp::StdioSession;
use std::io::{BufRead, Write};
use std::path::Path;

pub(crate) fn serve_stdio(
    scenario: &cuecard::Scenario,
    server: Option<&str>,
    instant: bool,
    journal: Option<&Path>,
) -> Result<ExitCode, String> {
    let mock = cuecard::MockModel::from_scenario(scenario).map_err(|e| e.to_string())?;
    let mut session = StdioSession::new(&mock, server).map_err(|e| e.to_string())?;
    let instant = instant || mock.is_instant();
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match stdin.read_until(b'\n', &mut line) {
            Ok(0) => break, // the client closed stdin: the session is over
            Ok(_) => {}
            Err(e) => return Err(format!("cannot read stdin: {e}")),
        }
        let text = String::from_utf8_lossy(&line);
        let output = session.handle_line(&mock, text.trim_end_matches('\n'));
        for (delay_ms, reply) in &output.lines {
            if !instant && *delay_ms > 0 {
                std::thread::sleep(std::time::Duration::from_millis(*delay_ms));
            }
            // A client that went away ends the session as EOF does.
            if writeln!(stdout, "{reply}").and_then(|()| stdout.flush()).is_err() {
                return write_journal(&mock, journal);
            }
        }
        if output.close {
            break;
        }
    }
    write_journal(&mock, journal)
}

fn write_journal(mock: &cuecard::MockModel, path: Option<&Path>) -> Result<ExitCode, String> {
    if let Some(path) = path {
        let document = serde_json::json!({"entries": mock.mcp_entries(), "unused_steps": mock.mcp_unused_steps()});
        std::fs::write(path, document.to_string()).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(0)
}
