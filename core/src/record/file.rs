//! A recording file opened in a record mode: whether it replays, whether it records, where a request it lacks is
//! forwarded, and writing it back after each exchange. Every host follows these rules through this one type: the
//! CLI's proxy, the Python transports, Node's `fetch`. The host does the network I/O; this does the deciding and
//! the file.

use super::upstream::{parse_upstreams, upstream_for, Upstream};
use super::writer::Writer;
use super::{RecordOptions, Recorder, UpstreamReply};
use crate::error::{invalid_argument, Error, ErrorKind, Result};
use crate::http::HttpRequest;
use crate::scenario::Scenario;
use std::path::{Path, PathBuf};

/// When a recording file forwards and records. Nothing goes to an upstream unless a mode says so.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordMode {
    /// Replay only: a request the file lacks is a `no_recording` error. The default everywhere.
    #[default]
    None,
    /// Record when the file does not exist; replay only when it does.
    Once,
    /// Replay what the file has; forward and append what it lacks.
    New,
    /// Forward and record everything, replacing the file.
    All,
}

impl RecordMode {
    /// The mode's name, as the CLI, the pytest option and `CUECARD_RECORD` spell it.
    pub fn name(self) -> &'static str {
        match self {
            RecordMode::None => "none",
            RecordMode::Once => "once",
            RecordMode::New => "new",
            RecordMode::All => "all",
        }
    }
}

/// The environment variable per-test recordings take their mode from (`none` when unset).
pub const RECORD_MODE_VARIABLE: &str = "CUECARD_RECORD";

impl RecordMode {
    /// The mode `CUECARD_RECORD` names, `none` when it is unset or empty.
    pub fn from_env() -> Result<RecordMode> {
        match std::env::var(RECORD_MODE_VARIABLE) {
            Ok(text) if !text.is_empty() => text
                .parse()
                .map_err(|e: Error| Error::new(e.kind(), format!("{RECORD_MODE_VARIABLE}: {}", e.message()))),
            _ => Ok(RecordMode::None),
        }
    }
}

impl std::str::FromStr for RecordMode {
    type Err = Error;

    fn from_str(text: &str) -> Result<RecordMode> {
        match text {
            "none" => Ok(RecordMode::None),
            "once" => Ok(RecordMode::Once),
            "new" => Ok(RecordMode::New),
            "all" => Ok(RecordMode::All),
            _ => Err(invalid_argument(format!("unknown record mode {text:?} (one of none, once, new, all)"))
                .with_context("argument", "mode")),
        }
    }
}

/// The environment variable that, when set, refuses recording unless the host allows it (`--allow-in-ci`): a CI
/// run replays, and one that records would go live with whatever key it holds.
pub const CI_VARIABLE: &str = "CI";

/// How the bindings open a recording file (Python's keywords, a JS options object): the same fields everywhere.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecordingSettings {
    /// The record mode (`none` unless given).
    pub mode: RecordMode,
    /// Where requests the file lacks are forwarded: `URL` for every protocol, or `PROTOCOL=URL`. None given: the
    /// providers' public APIs ([`PUBLIC_UPSTREAMS`]).
    pub upstream: Vec<String>,
    /// Texts never written (beside the keys a client sends, which never are).
    pub redact: Vec<String>,
    /// Request fields written as `[REDACTED]` and not compared on replay (`messages[*].content`).
    pub redact_fields: Vec<String>,
    /// Record even though `CI` is set.
    pub allow_in_ci: bool,
    /// The recording's description.
    pub description: Option<String>,
}

/// Where a recording forwards each protocol when no upstream is given: the providers' public APIs (Ollama's
/// local default port). Bedrock and Azure are per region and per resource, so they must be named.
pub const PUBLIC_UPSTREAMS: [&str; 4] = [
    "openai=https://api.openai.com",
    "anthropic=https://api.anthropic.com",
    "gemini=https://generativelanguage.googleapis.com",
    "ollama=http://127.0.0.1:11434",
];

/// A recording file in a mode.
#[derive(Debug)]
pub struct RecordingFile {
    path: PathBuf,
    mode: RecordMode,
    replays: bool,
    recorder: Option<Recorder>,
    /// Writes what the recorder records (and holds the file's lock), when it records.
    writer: Option<Writer>,
    upstreams: Vec<Upstream>,
}

impl RecordingFile {
    /// Opens `path` in `mode`:
    /// - `none` needs the file (a missing one is `not_found`, saying how to record it);
    /// - `once` replays an existing file and records a missing one;
    /// - `new` replays an existing file and appends what it lacks;
    /// - `all` records anew, replacing the file when the first exchange is written.
    ///
    /// Recording is refused (`invalid_argument`) when the `CI` environment variable is set, unless `allow_in_ci`.
    /// The file's replay is loaded by the host as a scenario ([`RecordingFile::replay_scenario`]).
    pub fn open(path: impl AsRef<Path>, mode: RecordMode, options: RecordOptions, allow_in_ci: bool) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let shown = path.display().to_string();
        let exists = path.exists();
        let ci = std::env::var_os(CI_VARIABLE).is_some_and(|v| !v.is_empty());
        let (records, replays) = what_a_recording_does(&shown, mode, exists, ci, allow_in_ci)?;
        // Locked and checked before the file is read: a recording another recorder is writing, or that cannot be
        // written, is refused before anything is forwarded (issue #59 S7, S8).
        let writer = records.then(|| Writer::open(&path)).transpose()?;
        let recorder = recorder_for(records, replays, exists, options, today(), || read_document(&path))?;
        Ok(RecordingFile { path, mode, replays, recorder, writer, upstreams: Vec::new() })
    }

    /// Opens `path` as the bindings do: [`RecordingFile::open`] with the settings' mode and redaction, and the
    /// settings' upstreams (the public APIs when none is given).
    pub fn open_with(path: impl AsRef<Path>, settings: &RecordingSettings) -> Result<Self> {
        let options = RecordOptions {
            redact_texts: settings.redact.clone(),
            redact_fields: settings.redact_fields.clone(),
            description: settings.description.clone(),
            ..RecordOptions::default()
        };
        let upstreams = if settings.upstream.is_empty() {
            parse_upstreams(&PUBLIC_UPSTREAMS)?
        } else {
            parse_upstreams(&settings.upstream)?
        };
        let file = RecordingFile::open(path, settings.mode, options, settings.allow_in_ci)?;
        Ok(RecordingFile { upstreams, ..file })
    }

    /// The upstream a request the file lacks is forwarded to.
    pub fn upstream_for(&self, request: &HttpRequest) -> Result<&Upstream> {
        upstream_for(&self.upstreams, request)
    }

    /// Where and how a request the file lacks is forwarded: the URL (its upstream's origin and prefix, then the
    /// request's own path and query) and the headers ([`super::forwarded_headers`]).
    pub fn forwarding(&self, request: &HttpRequest) -> Result<(String, Vec<(String, String)>)> {
        Ok((self.forward_url(request)?, super::forwarded_headers(&request.headers)))
    }

    /// The URL a request the file lacks is forwarded to (its upstream's origin and prefix, then the request's own
    /// path and query).
    pub fn forward_url(&self, request: &HttpRequest) -> Result<String> {
        let target =
            if request.query.is_empty() { request.path.clone() } else { format!("{}?{}", request.path, request.query) };
        upstream_for(&self.upstreams, request).map(|upstream| upstream.url(&target))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The mode it was opened in.
    pub fn mode(&self) -> RecordMode {
        self.mode
    }

    /// Whether requests are answered from the file first.
    pub fn replays(&self) -> bool {
        self.replays
    }

    /// Whether requests the file lacks (or all, in mode `all`) are forwarded and recorded.
    pub fn records(&self) -> bool {
        self.recorder.is_some()
    }

    /// The file as a scenario to replay, when it replays.
    pub fn replay_scenario(&self) -> Result<Option<Scenario>> {
        if self.replays {
            Scenario::from_path(&self.path).map(Some)
        } else {
            Ok(None)
        }
    }

    /// A warning naming the file when it is replayed and older than its `max_age_days` (None otherwise).
    pub fn age_warning(&self) -> Option<String> {
        self.replays.then(|| age_warning(&self.path, today())).flatten()
    }

    /// Whether a replayed answer is a miss that a recording file forwards instead: its `x-cuecard-error` header
    /// says `no_recording` or `script_exhausted` (a request the file lacks, or one sent more often than recorded).
    pub fn is_miss<'a>(headers: impl IntoIterator<Item = (&'a str, &'a str)>) -> bool {
        headers.into_iter().any(|(name, value)| {
            name.eq_ignore_ascii_case("x-cuecard-error") && matches!(value, "no_recording" | "script_exhausted")
        })
    }

    /// Records one forwarded exchange and writes it: the first exchange writes the whole recording (to a
    /// temporary file renamed over the old one, so the file is never half written), each later one is appended
    /// (see `writer`). Refused with `invalid_argument` when the file does not record; a write that fails is an
    /// `io` error naming the file.
    pub fn record(&mut self, request: &HttpRequest, reply: &UpstreamReply) -> Result<()> {
        let (Some(recorder), Some(writer)) = (self.recorder.as_mut(), self.writer.as_mut()) else {
            let why = if self.recorder.is_some() {
                "was closed".to_string()
            } else {
                format!("is opened in mode {}", self.mode.name())
            };
            return Err(invalid_argument(format!("{} {why} and records nothing", self.path.display())));
        };
        // An MCP exchange changes the `mcp` section, which is written whole; other requests to an MCP path (the
        // GET stream, a session's DELETE, a notification) say nothing to keep.
        if crate::mcp::is_mcp_path(&request.path) {
            return if recorder.record_mcp(request, reply) { writer.write_whole(recorder) } else { Ok(()) };
        }
        // So does an A2A exchange, its `a2a` section.
        if crate::a2a::is_a2a_path(&request.path) {
            return if recorder.record_a2a(request, reply) { writer.write_whole(recorder) } else { Ok(()) };
        }
        let route = recorder.record_exchange(request, reply)?;
        writer.write(recorder, &route)
    }

    /// Records one MCP request and its response as relayed over stdio (`cuecard record -- COMMAND`), and writes the
    /// recording whole; returns whether the exchange said something kept. Refused as [`RecordingFile::record`] is
    /// when the file does not record.
    pub fn record_mcp_message(&mut self, request: &serde_json::Value, response: &serde_json::Value) -> Result<bool> {
        let (Some(recorder), Some(writer)) = (self.recorder.as_mut(), self.writer.as_mut()) else {
            return Err(invalid_argument(format!(
                "{} records nothing (mode {})",
                self.path.display(),
                self.mode.name()
            )));
        };
        let kept = recorder.record_mcp_message("/mcp", &[], request, response);
        if kept {
            writer.write_whole(recorder)?;
        }
        Ok(kept)
    }

    /// Stops recording: the file's lock is released at once (another recorder may take the file), and a later
    /// exchange is refused as in a mode that records nothing. What was recorded is already written.
    pub fn close(&mut self) {
        self.writer = None;
    }

    /// How many exchanges were recorded since the file was opened.
    pub fn recorded(&self) -> usize {
        self.recorder.as_ref().map_or(0, Recorder::recorded)
    }
}

/// Whether a recording in `mode` records and whether it replays, from what the host knows: whether the file
/// `shown` exists, and whether `CI` is set. Refused: mode `none` without the file (`not_found`, saying how to record
/// it), and recording while CI is set unless `allow_in_ci`. Pure, as [`recorder_for`]: [`RecordingFile::open`] reads
/// the facts from the file system, a host without one (the Go package's engine) gives them as data.
pub fn what_a_recording_does(
    shown: &str,
    mode: RecordMode,
    exists: bool,
    ci: bool,
    allow_in_ci: bool,
) -> Result<(bool, bool)> {
    let records = match mode {
        RecordMode::None => false,
        RecordMode::Once => !exists,
        RecordMode::New | RecordMode::All => true,
    };
    if !exists && mode == RecordMode::None {
        return Err(Scenario::read_error(
            shown,
            true,
            "there is no such recording (record it with mode once: --cuecard-record=once in pytest, \
             CUECARD_RECORD=once for vitest/jest and go test, cuecard record --mode once)",
        ));
    }
    if records && !allow_in_ci && ci {
        return Err(invalid_argument(format!(
            "CI is set: recording {shown} (mode {}) is refused; replay with mode none, or allow recording in CI \
             (--allow-in-ci, allow_in_ci=True, allowInCi: true, cuecard.AllowRecordingInCI())",
            mode.name()
        ))
        .with_context("path", shown.to_string()));
    }
    Ok((records, records_or_replays(exists, mode)))
}

fn records_or_replays(exists: bool, mode: RecordMode) -> bool {
    exists && mode != RecordMode::All
}

/// The recorder of a recording that records (none otherwise): going on from the file's document when it replays
/// it, else a new one. `read` gives the file's document; it is asked only when the file exists and is recorded over.
/// The document says the recording's first day (`recorded_on`, kept when appending; else `today`, in days from
/// 1970-01-01) and how long it is trusted (`max_age_days`, kept).
pub fn recorder_for(
    records: bool,
    replays: bool,
    exists: bool,
    options: RecordOptions,
    today: i64,
    read: impl FnOnce() -> Result<serde_json::Value>,
) -> Result<Option<Recorder>> {
    // The file it goes on from (or replaces) says its first day and how long it is trusted.
    // (A file mode `all` replaces may be broken: it is read only for what it says of itself.)
    let existing = match (records && exists, replays) {
        (false, _) => None,
        (true, true) => Some(read()?),
        (true, false) => read().ok(),
    };
    let head = |field: &str| existing.as_ref().and_then(|d| d.get("recording")).and_then(|r| r.get(field)).cloned();
    let mut options = options;
    options.max_age_days = options.max_age_days.or_else(|| head("max_age_days").and_then(|v| v.as_u64()));
    let first_day = if replays { head("recorded_on").and_then(|v| v.as_str().map(str::to_string)) } else { None };
    options.recorded_on = options.recorded_on.or(first_day).or_else(|| {
        // A file that goes on from an undated one cannot say when its first exchanges were made.
        (!replays).then(|| crate::clock::days_date(today))
    });
    Ok(match (records, existing) {
        (false, _) => None,
        (true, Some(existing)) if replays => Some(Recorder::appending(options, &existing)?),
        (true, _) => Some(Recorder::new(options)?),
    })
}

/// A recording's document as data from its text (YAML, or JSON), as a recorder goes on from it.
pub fn document_of_text(shown: &str, text: &str, yaml: bool) -> Result<serde_json::Value> {
    let document = if yaml {
        crate::scenario::yaml_value(text)
    } else {
        serde_json::from_str(text).map_err(|e| Error::new(ErrorKind::InvalidScenario, format!("{shown}: {e}")))
    };
    document.map_err(|e| e.with_context("path", shown.to_string()))
}

/// The file a test's recording is kept in, relative to the test file's directory:
/// `recordings/<module>/<name>.yaml`, the name being the test's names (class, test, parameters) joined with `.`.
/// A character a file name cannot safely hold (anything but letters, digits, `_ . [ ] = , + -`) becomes `-`, and
/// an empty part becomes `test`; so pytest, vitest, jest and node:test name their files by one rule.
pub fn recording_path_for_test(module: &str, names: &[&str]) -> String {
    format!("recordings/{}/{}", safe_file_name(module), recording_file_name(names))
}

/// A test's recording file name: its names joined with `.`, made safe (as in [`recording_path_for_test`]), then
/// `.yaml`. Go keeps it in `testdata/recordings/`.
pub fn recording_file_name(names: &[&str]) -> String {
    let name = names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()).collect::<Vec<_>>().join(".");
    format!("{}.yaml", safe_file_name(&name))
}

fn safe_file_name(text: &str) -> String {
    let safe = |text: &str| -> String {
        let cleaned: String =
            text.chars().map(|c| if c.is_alphanumeric() || "_.[]=,+-".contains(c) { c } else { '-' }).collect();
        // A name of dots alone would climb out of the recordings directory.
        if cleaned.is_empty() || cleaned.chars().all(|c| c == '.') {
            "test".to_string()
        } else {
            cleaned
        }
    };
    safe(text)
}

/// Whether a path names a YAML file (`.yaml`/`.yml`); anything else is written as JSON.
pub fn is_yaml(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"))
}

/// A recording's document as data (to append to).
fn read_document(path: &Path) -> Result<serde_json::Value> {
    document_of_text(&path.display().to_string(), &Scenario::read_text(path)?, is_yaml(path))
}

/// Today, as days from 1970-01-01 (UTC), for a recording's age.
pub fn today() -> i64 {
    let seconds = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    i64::try_from(seconds / 86_400).unwrap_or(i64::MAX)
}

/// The head of a recording: its `recording` section, everything else skipped unread.
#[derive(serde::Deserialize)]
struct Head {
    #[serde(default)]
    recording: Option<HeadRecording>,
}

#[derive(serde::Deserialize)]
struct HeadRecording {
    #[serde(default)]
    recorded_on: Option<String>,
    #[serde(default)]
    max_age_days: Option<u64>,
}

/// A warning naming the recording at `path` when, on day `today`, it is older than its `max_age_days`. Only the
/// `recording` section is read: in YAML the lines before the top-level `routes:` (where the recorder writes it),
/// in JSON the document with every other field skipped, so a 15 MB recording is not parsed twice.
pub fn age_warning(path: &Path, today: i64) -> Option<String> {
    let text = Scenario::read_text(path).ok()?;
    age_warning_of_text(&path.display().to_string(), &text, is_yaml(path), today)
}

/// [`age_warning`] of a recording's text already read (a host that does its own file I/O: the Go package).
pub fn age_warning_of_text(shown: &str, text: &str, yaml: bool, today: i64) -> Option<String> {
    let head: Head = if yaml {
        let end = text.find("\nroutes:").map_or(text.len(), |at| at + 1);
        serde_yaml_ng::from_str(text.get(..end)?).ok()?
    } else {
        serde_json::from_str(text).ok()?
    };
    let recording = head.recording?;
    age_problem(shown, &recording.recorded_on?, recording.max_age_days?, today)
}

/// The warning for the recording `shown`, made on `day` and trusted `max` days, when on day `today` it is older.
pub fn age_problem(shown: &str, day: &str, max: u64, today: i64) -> Option<String> {
    let age = today - crate::clock::date_days(day)?;
    (age > i64::try_from(max).unwrap_or(i64::MAX)).then(|| {
        format!(
            "{shown} was recorded on {day}, {age} days ago, more than its max_age_days of {max}: the real API may \
             have moved since (record it again with mode all, or check it with cuecard drift)"
        )
    })
}
