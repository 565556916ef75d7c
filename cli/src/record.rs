//! `cuecard record`: core's recording proxy (`cuecard::record::RecordingProxy`) on the address given, until Ctrl-C
//! or SIGTERM; the recording is written after every exchange.

use cuecard::record::{ProxyOptions, RecordingProxy, RecordingSettings};
use std::path::PathBuf;

/// What `cuecard record` was told.
pub struct RecordSettings {
    pub out: PathBuf,
    pub recording: RecordingSettings,
    pub proxy: ProxyOptions,
}

/// Runs the proxy until `until_stopped` returns.
pub fn record(settings: RecordSettings, until_stopped: impl FnOnce() -> Result<(), String>) -> Result<u8, String> {
    let proxy =
        RecordingProxy::start(&settings.out, &settings.recording, &settings.proxy).map_err(|e| e.to_string())?;
    let doing = match (proxy.records(), proxy.replays()) {
        (true, true) => "replaying it and recording what it lacks into",
        (true, false) => "recording into",
        (false, _) => "replaying only",
    };
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "base URL: {} (OpenAI clients: {})", proxy.base_url(), proxy.openai_base_url());
        let _ = writeln!(out, "{doing} {}", settings.out.display());
        let _ = out.flush();
    }
    if let Some(warning) = proxy.age_warning() {
        let _ = {
            use std::io::Write;
            writeln!(std::io::stderr(), "cuecard: warning: {warning}")
        };
    }
    until_stopped()?;
    proxy.stop();
    let recorded = proxy.recorded();
    let _ = {
        use std::io::Write;
        writeln!(std::io::stderr(), "cuecard: stopped; {recorded} exchange(s) recorded")
    };
    Ok(0)
}
