//! Importing a vcrpy cassette (pytest-recording's, pydantic-ai's) into a recording, so a suite that replays LLM
//! calls with vcrpy can move over: each interaction is an exchange given to the [`Recorder`], as if it had been
//! recorded through the proxy (at time 0, the body as one chunk: a cassette keeps no timing and no chunks).
//!
//! A cassette is YAML (or JSON): `interactions: [{request: {method, uri, body, headers}, response: {status:
//! {code}, headers, body: {string}}}]`, header values as lists. pydantic-ai's serializer writes `parsed_body`
//! (the JSON body as data) instead of `body`; both are read. A body vcrpy stored as `!!binary` is decoded; one
//! that is still compressed (recorded without `decode_compressed_response`) is refused, naming the interaction.

use super::{RecordOptions, Recorder, UpstreamReply};
use crate::error::{Error, ErrorKind, Result};
use crate::http::HttpRequest;
use base64::Engine;
use serde_yaml_ng::Value as Yaml;

/// What an import made: the recording, and each interaction left out with the reason (a request that is not a
/// model call, such as a model list, has no place in a recording).
#[derive(Debug)]
pub struct Imported {
    /// The recording.
    pub recorder: Recorder,
    /// `(interaction index, why)` for each interaction not imported.
    pub skipped: Vec<(usize, String)>,
}

/// Reads a vcrpy cassette's text into a recording.
pub fn import_vcrpy(text: &str, options: RecordOptions) -> Result<Imported> {
    let bad = |what: String| Error::new(ErrorKind::InvalidScenario, format!("not a vcrpy cassette: {what}"));
    crate::input::host_data::check_text_depth(text, crate::scenario::MAX_DEPTH).map_err(bad)?;
    let cassette: Yaml = serde_yaml_ng::from_str(&binary_tags_kept(text)).map_err(|e| bad(e.to_string()))?;
    let Some(interactions) = cassette.get("interactions").and_then(Yaml::as_sequence) else {
        return Err(bad("it has no `interactions` list".into()));
    };
    let mut recorder = Recorder::new(options)?;
    let mut skipped = Vec::new();
    for (index, interaction) in interactions.iter().enumerate() {
        let at = |e: Error| Error::new(e.kind(), format!("interaction {index}: {}", e.message()));
        let (request, reply) = exchange(interaction).map_err(at)?;
        match recorder.record(&request, &reply) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::InvalidRequest => skipped.push((index, e.message().to_string())),
            Err(e) => return Err(at(e)),
        }
    }
    Ok(Imported { recorder, skipped })
}

/// The text with each `!!binary` tag written `!binary`: serde_yaml_ng resolves the core schema's `!!binary` to a
/// plain string (the tag is lost, and the body would be read as its base64), but keeps a local tag. Only a tag
/// in value position (after `: ` or `- `, or `{string: `) is rewritten, never text inside a body.
fn binary_tags_kept(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("!!binary") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("!!binary") {
        let (before, after) = rest.split_at(at);
        out.push_str(before);
        let in_value_position = before.ends_with(": ") || before.ends_with("- ");
        out.push_str(if in_value_position { "!binary" } else { "!!binary" });
        rest = after.get("!!binary".len()..).unwrap_or("");
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// One interaction as the request sent and the reply received.
fn exchange(interaction: &Yaml) -> Result<(HttpRequest, UpstreamReply)> {
    let invalid = |what: &str| Error::new(ErrorKind::InvalidScenario, what.to_string());
    let request = interaction.get("request").ok_or_else(|| invalid("no request"))?;
    let response = interaction.get("response").ok_or_else(|| invalid("no response"))?;
    let method = request.get("method").and_then(Yaml::as_str).ok_or_else(|| invalid("the request has no method"))?;
    let uri = request.get("uri").and_then(Yaml::as_str).ok_or_else(|| invalid("the request has no uri"))?;
    let target = target_of(uri);
    let body = body_of(request, "request")?;
    let status = response
        .get("status")
        .and_then(|s| s.get("code").or(Some(s)))
        .and_then(Yaml::as_u64)
        .and_then(|code| u16::try_from(code).ok())
        .ok_or_else(|| invalid("the response has no status code"))?;
    let reply_headers = headers_of(response.get("headers"));
    if let Some((_, encoding)) =
        reply_headers.iter().find(|(n, v)| n == "content-encoding" && !v.eq_ignore_ascii_case("identity"))
    {
        return Err(invalid(&format!(
            "the response body is {encoding}-compressed: record the cassette with decode_compressed_response=True"
        )));
    }
    let reply_body = body_of(response, "response")?;
    let request = HttpRequest::new(method, &target, headers_of(request.get("headers")), body);
    Ok((
        request,
        UpstreamReply { status, headers: reply_headers, headers_ms: 0, chunks: vec![(0, reply_body)], cut: false },
    ))
}

/// The path and query of a URI (`https://api.openai.com/v1/chat/completions?x=1` -> `/v1/chat/completions?x=1`).
fn target_of(uri: &str) -> String {
    let after_scheme = uri.split_once("://").map_or(uri, |(_, rest)| rest);
    match after_scheme.find('/') {
        Some(i) => after_scheme.get(i..).unwrap_or("/").to_string(),
        None => "/".to_string(),
    }
}

/// Headers as `(lower-case name, value)` pairs: vcrpy keeps each name's values as a list.
fn headers_of(headers: Option<&Yaml>) -> Vec<(String, String)> {
    let Some(Yaml::Mapping(map)) = headers else { return Vec::new() };
    let mut out = Vec::new();
    for (name, values) in map {
        let Some(name) = name.as_str() else { continue };
        let name = name.to_ascii_lowercase();
        match values {
            Yaml::Sequence(values) => out.extend(values.iter().filter_map(scalar).map(|v| (name.clone(), v))),
            other => out.extend(scalar(other).map(|v| (name.clone(), v))),
        }
    }
    out
}

fn scalar(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(s) => Some(s.clone()),
        Yaml::Number(n) => Some(n.to_string()),
        Yaml::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A request's or response's body: `body` as a string, `body: {string: ...}`, a `!!binary` value (base64), or
/// pydantic-ai's `parsed_body` (JSON data); none is an empty body.
fn body_of(part: &Yaml, which: &str) -> Result<Vec<u8>> {
    if let Some(parsed) = part.get("parsed_body") {
        let json: serde_json::Value = serde_yaml_ng::from_value(parsed.clone())
            .map_err(|e| Error::new(ErrorKind::InvalidScenario, format!("the {which}'s parsed_body: {e}")))?;
        return Ok(json.to_string().into_bytes());
    }
    let body = match part.get("body") {
        Some(Yaml::Mapping(map)) => map.get("string").cloned().unwrap_or(Yaml::Null),
        Some(other) => other.clone(),
        None => Yaml::Null,
    };
    match body {
        Yaml::Null => Ok(Vec::new()),
        Yaml::String(text) => Ok(text.into_bytes()),
        Yaml::Tagged(tagged) if tagged.tag == "binary" => {
            let text = tagged.value.as_str().unwrap_or_default();
            let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            base64::engine::general_purpose::STANDARD.decode(compact).map_err(|e| {
                Error::new(ErrorKind::InvalidScenario, format!("the {which}'s !!binary body is not base64: {e}"))
            })
        }
        _ => Err(Error::new(ErrorKind::InvalidScenario, format!("the {which}'s body is neither text nor !!binary"))),
    }
}
