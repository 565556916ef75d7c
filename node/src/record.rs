//! `NativeRecordingFile`: core's recording file (its mode, where a request it lacks is forwarded, recording an
//! exchange). `lib/recording.js` does the network I/O with the platform's `fetch`.

use crate::convert::{data_of, json_text};
use crate::errors::Fallible;
use cuecard::api::outcome::headers_from_lines;
use cuecard::record::{RecordingFile, RecordingSettings, UpstreamReply};
use cuecard::wire::HttpRequest;
use napi::bindgen_prelude::{Buffer, Either};
use napi::{Env, Unknown};
use napi_derive::napi;
use std::sync::Mutex;

/// A recording file opened in a record mode (`none`, `once`, `new`, `all`).
#[napi]
pub struct NativeRecordingFile {
    file: Mutex<RecordingFile>,
}

impl NativeRecordingFile {
    fn with<T>(&self, env: &Env, f: impl FnOnce(&mut RecordingFile) -> cuecard::Result<T>) -> napi::Result<T> {
        let result = match self.file.lock() {
            Ok(mut file) => f(&mut file),
            Err(_) => Err(cuecard::Error::new(cuecard::ErrorKind::Internal, "a recording failed while being written")),
        };
        result.or_throw(env)
    }
}

#[napi]
impl NativeRecordingFile {
    /// Opens `path` with core's settings (`{mode, upstream, redact, redact_fields, allow_in_ci, description}`).
    #[napi(constructor)]
    pub fn new(env: Env, path: String, settings: Option<Unknown<'_>>) -> napi::Result<Self> {
        let settings: RecordingSettings = match settings {
            Some(s) => data_of(&env, &s, "options")?,
            None => RecordingSettings::default(),
        };
        let file = RecordingFile::open_with(&path, &settings).or_throw(&env)?;
        Ok(NativeRecordingFile { file: Mutex::new(file) })
    }

    /// The record mode's name.
    #[napi(getter)]
    pub fn mode(&self, env: Env) -> napi::Result<String> {
        self.with(&env, |f| Ok(f.mode().name().to_string()))
    }

    /// Whether requests are answered from the file first.
    #[napi(getter)]
    pub fn replays(&self, env: Env) -> napi::Result<bool> {
        self.with(&env, |f| Ok(f.replays()))
    }

    /// A warning naming the file when it is replayed past its `max_age_days`.
    #[napi(getter)]
    pub fn age_warning(&self, env: Env) -> napi::Result<Option<String>> {
        self.with(&env, |f| Ok(f.age_warning()))
    }

    /// Whether requests the file lacks are forwarded and recorded.
    #[napi(getter)]
    pub fn records(&self, env: Env) -> napi::Result<bool> {
        self.with(&env, |f| Ok(f.records()))
    }

    /// How many exchanges were recorded since the file was opened.
    #[napi(getter)]
    pub fn recorded(&self, env: Env) -> napi::Result<u32> {
        self.with(&env, |f| Ok(u32::try_from(f.recorded()).unwrap_or(u32::MAX)))
    }

    /// Whether a replayed reply's headers (`name:value` lines) say it is a miss the file forwards.
    #[napi]
    pub fn is_miss(headers: String) -> bool {
        let headers = headers_from_lines(&headers);
        RecordingFile::is_miss(headers.iter().map(|(n, v)| (n.as_str(), v.as_str())))
    }

    /// Where and how a request is forwarded (headers as `name:value` lines): `{"url", "headers": [[name, value]]}`
    /// as JSON (core's rule: the connection's own headers and `accept-encoding` are left out).
    #[napi]
    pub fn forwarding(&self, env: Env, method: String, target: String, headers: String) -> napi::Result<String> {
        let request = HttpRequest::new(&method, &target, headers_from_lines(&headers), Vec::new());
        let (url, headers) = self.with(&env, |f| f.forwarding(&request))?;
        json_text(&env, &serde_json::json!({"url": url, "headers": headers}))
    }

    /// Records one forwarded exchange (headers as `name:value` lines; each chunk with the milliseconds since the
    /// request was sent, in `chunk_ms`) and writes the file.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        env: Env,
        method: String,
        target: String,
        headers: String,
        body: Either<String, Buffer>,
        status: u32,
        reply_headers: String,
        headers_ms: f64,
        chunks: Vec<Buffer>,
        chunk_ms: Vec<f64>,
        cut: bool,
    ) -> napi::Result<()> {
        let body = match body {
            Either::A(text) => text.into_bytes(),
            Either::B(bytes) => bytes.to_vec(),
        };
        let request = HttpRequest::new(&method, &target, headers_from_lines(&headers), body);
        let millis = |ms: f64| if ms.is_finite() && ms > 0.0 { ms as u64 } else { 0 };
        let reply = UpstreamReply {
            status: u16::try_from(status).unwrap_or(u16::MAX),
            headers: headers_from_lines(&reply_headers),
            headers_ms: millis(headers_ms),
            chunks: chunks
                .iter()
                .zip(chunk_ms.iter().chain(std::iter::repeat(&0.0)))
                .map(|(c, &ms)| (millis(ms), c.to_vec()))
                .collect(),
            cut,
        };
        self.with(&env, |f| f.record(&request, &reply))
    }
}

/// The file a test's recording is kept in, relative to the test file's directory (core's one rule):
/// `recordings/<module>/<names joined with .>.yaml`.
#[napi]
pub fn recording_path_for_test(module: String, names: Vec<String>) -> String {
    cuecard::record::recording_path_for_test(&module, &names.iter().map(String::as_str).collect::<Vec<_>>())
}

/// The drift report of the recording at `path`, as JSON text (`cuecard drift --json`); the package parses it.
#[napi]
pub fn drift_report(env: Env, path: String) -> napi::Result<String> {
    cuecard::record::drift_file(&path).map(|report| report.to_json().to_string()).or_throw(&env)
}
