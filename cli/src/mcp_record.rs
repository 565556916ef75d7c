//! `cuecard record --out FILE -- COMMAND [ARGS...]`: a real MCP server over stdio, recorded. cuecard spawns COMMAND
//! and stands between it and the client that spawned cuecard: each line of stdin goes to the server, each line the
//! server writes goes to stdout, unchanged and at once, and every request with its response is written into the
//! recording's `mcp` section by core's MCP recorder (`cuecard mcp --scenario FILE` then replays it). The server's
//! stderr is its own.

use cuecard::record::{RecordingFile, RecordingSettings};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

/// The requests sent and not yet answered, by their id's JSON text.
type Pending = Arc<Mutex<HashMap<String, Value>>>;

/// Relays stdio between the client and `command` until the server's stdout ends; returns the server's exit code.
pub fn record_stdio(out: &Path, settings: &RecordingSettings, command: &[String]) -> Result<u8, String> {
    let file = RecordingFile::open_with(out, settings).map_err(|e| e.to_string())?;
    if !file.records() {
        return Err(format!(
            "{} exists and mode {} records nothing: replay it with `cuecard mcp --scenario {}`, or record it again \
             with --mode all",
            out.display(),
            file.mode().name(),
            out.display()
        ));
    }
    let (program, args) = command.split_first().ok_or("no server command after --")?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start the MCP server {program:?}: {e}"))?;
    let mut to_server = child.stdin.take().ok_or("the server's stdin is not piped")?;
    let from_server = child.stdout.take().ok_or("the server's stdout is not piped")?;
    let pending: Pending = Arc::default();

    let sent = Arc::clone(&pending);
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if let Ok(message) = serde_json::from_str::<Value>(&line) {
                if let (Some(_), Some(id)) = (message.get("method"), message.get("id")) {
                    sent.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(id.to_string(), message);
                }
            }
            if writeln!(to_server, "{line}").and_then(|()| to_server.flush()).is_err() {
                break;
            }
        }
        // The client's stdin ended: so does the server's, and it exits as a stdio server does.
    });

    let file = Mutex::new(file);
    let mut stdout = std::io::stdout().lock();
    for line in BufReader::new(from_server).lines() {
        let line = line.map_err(|e| format!("cannot read the server's output: {e}"))?;
        writeln!(stdout, "{line}").and_then(|()| stdout.flush()).map_err(|e| format!("cannot write stdout: {e}"))?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        let answered = message.get("method").is_none().then(|| message.get("id")).flatten();
        let request = answered
            .and_then(|id| pending.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&id.to_string()));
        if let Some(request) = request {
            let mut file = file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Err(e) = file.record_mcp_message(&request, &message) {
                let _ = writeln!(std::io::stderr(), "cuecard: not recorded in {}: {e}", out.display());
            }
        }
    }
    let status = child.wait().map_err(|e| format!("the server did not exit: {e}"))?;
    let mut file = file.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let recorded = file.recorded();
    file.close();
    let _ = writeln!(
        std::io::stderr(),
        "cuecard: the server exited; {recorded} MCP exchange(s) recorded in {}",
        out.display()
    );
    Ok(status.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(1))
}
