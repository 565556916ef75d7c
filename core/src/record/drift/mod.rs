//! Drift reports (issue #54 §3): for each recorded exchange of a recording, what the real API sent beside what
//! cuecard's encoder sends for the same neutral answer on the same endpoint — fields present on one side only, types
//! that differ, kind names (`type`, `object`) that differ, a stream's event types and their order, the status, the
//! content type and the headers the SDKs read. What only cuecard sends is listed too, as notes: extra fields break
//! no client, missing ones may.
//!
//! A recording made once with real keys, checked with `cuecard drift` on every run, tells a team when the provider
//! (or cuecard) moved. vcrpy cassettes are read as `cuecard recording import` reads them.

mod probe;
mod shape;

use crate::error::{Error, ErrorKind, Result};
use crate::http::HttpReply;
use crate::model::ChatRequest;
use crate::script::recorded::Recorded;
use serde::Serialize;
use serde_json::{json, Value};
use shape::{Event, Shape};
use std::collections::{BTreeMap, BTreeSet};

/// Headers (or name prefixes) the official SDKs read from a reply: request ids, retry advice and rate limits.
const SDK_HEADERS: [&str; 9] = [
    "x-request-id",
    "request-id",
    "retry-after",
    "retry-after-ms",
    "x-should-retry",
    "x-ratelimit-",
    "anthropic-ratelimit-",
    "x-amzn-requestid",
    "x-amzn-errortype",
];

/// Events a provider may send any number of, which no client acts on (Anthropic's `ping`): left out of both sides.
const IGNORED_EVENTS: [&str; 1] = ["ping"];

/// One way cuecard's reply differs from the recorded one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// `status`, `content_type`, `header`, `field` (the recording has it, cuecard not), `type`, `kind` (a `type`
    /// or `object` value), `events` (a stream's event types or their order).
    pub what: &'static str,
    /// Where: a field path (`choices[].delta.content`, prefixed by the event type in a stream), a header name.
    pub at: String,
    /// What the recording has there.
    pub recorded: String,
    /// What cuecard sends there (`-`: nothing).
    pub cuecard: String,
}

/// One recorded exchange compared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExchangeDrift {
    /// The route's index in the recording.
    pub route: usize,
    /// The step's index in the route.
    pub step: usize,
    /// The endpoint it was recorded from.
    pub endpoint: String,
    /// Whether it was a stream.
    pub stream: bool,
    /// How cuecard's reply differs.
    pub differences: Vec<Difference>,
    /// Fields only cuecard sends (not drift: a client reads what it knows).
    pub only_cuecard: Vec<String>,
}

/// A recorded exchange that could not be compared, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotCompared {
    /// The route's index.
    pub route: usize,
    /// The step's index.
    pub step: usize,
    /// Why.
    pub why: String,
}

/// The drift of a whole recording.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DriftReport {
    /// Every recorded exchange compared, drifted or not.
    pub exchanges: Vec<ExchangeDrift>,
    /// The ones that could not be.
    pub not_compared: Vec<NotCompared>,
}

impl DriftReport {
    /// Whether some exchange differs.
    pub fn drifted(&self) -> bool {
        self.exchanges.iter().any(|e| !e.differences.is_empty())
    }

    /// The report as JSON: `{"drifted", "exchanges", "not_compared"}`.
    pub fn to_json(&self) -> Value {
        json!({"drifted": self.drifted(), "exchanges": self.exchanges, "not_compared": self.not_compared})
    }

    /// The report a person reads, naming the recording `name`.
    pub fn to_text(&self, name: &str) -> String {
        let drifted = self.exchanges.iter().filter(|e| !e.differences.is_empty()).count();
        let mut lines = vec![format!(
            "{name}: {} exchange(s) compared, {drifted} drifted, {} not compared",
            self.exchanges.len(),
            self.not_compared.len()
        )];
        for exchange in &self.exchanges {
            let form = if exchange.stream { "streamed" } else { "whole" };
            let verdict = if exchange.differences.is_empty() { "no drift" } else { "DRIFT" };
            lines.push(format!(
                "  route {} step {} ({}, {form}): {verdict}",
                exchange.route, exchange.step, exchange.endpoint
            ));
            for d in &exchange.differences {
                lines.push(format!("    {} {}: recorded {}, cuecard {}", d.what, d.at, d.recorded, d.cuecard));
            }
            if !exchange.only_cuecard.is_empty() {
                lines.push(format!("    only cuecard sends (not drift): {}", exchange.only_cuecard.join(", ")));
            }
        }
        for skipped in &self.not_compared {
            lines.push(format!("  route {} step {}: not compared: {}", skipped.route, skipped.step, skipped.why));
        }
        lines.join("\n") + "\n"
    }
}

/// The drift report of a recording's text (a cuecard recording, YAML or JSON, or a vcrpy cassette).
pub fn drift_report(text: &str) -> Result<DriftReport> {
    let document = crate::scenario::yaml_value(text)?;
    let document = if document.get("interactions").is_some() {
        super::import_vcrpy(text, super::RecordOptions::default())?.recorder.document()
    } else {
        // Refused as a scenario is (a typed error naming the field) before anything is compared.
        crate::scenario::Scenario::from_value(document.clone())?;
        document
    };
    let mut report = DriftReport { exchanges: Vec::new(), not_compared: Vec::new() };
    let routes = document.get("routes").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for (r, route) in routes.iter().enumerate() {
        let asked = route.pointer("/match/request").cloned().map(ChatRequest::from_value).transpose()?;
        let asked = asked.unwrap_or_default();
        let steps = route.get("steps").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for (s, step) in steps.iter().enumerate() {
            let Some(recorded) = step.get("recorded") else { continue };
            let recorded: Recorded = serde_json::from_value(recorded.clone())
                .map_err(|e| Error::new(ErrorKind::InvalidScenario, format!("routes[{r}].steps[{s}].recorded: {e}")))?;
            let mut neutral = step.clone();
            if let Some(object) = neutral.as_object_mut() {
                object.remove("recorded");
            }
            match compare(&recorded, neutral, &asked) {
                Ok((differences, only_cuecard)) => report.exchanges.push(ExchangeDrift {
                    route: r,
                    step: s,
                    endpoint: recorded.endpoint.clone(),
                    stream: recorded.stream,
                    differences,
                    only_cuecard,
                }),
                Err(why) => report.not_compared.push(NotCompared { route: r, step: s, why }),
            }
        }
    }
    Ok(report)
}

/// The drift report of the recording at `path` (read as `serve --scenario` reads a file: bounded, regular files only).
pub fn drift_file(path: impl AsRef<std::path::Path>) -> Result<DriftReport> {
    drift_report(&crate::scenario::Scenario::read_text(path)?)
}

type Compared = (Vec<Difference>, Vec<String>);

/// The recorded reply beside cuecard's reply to the same request from the neutral step.
fn compare(recorded: &Recorded, neutral: Value, asked: &ChatRequest) -> std::result::Result<Compared, String> {
    let request = probe::request(&recorded.endpoint, recorded.stream, asked)
        .ok_or_else(|| format!("drift has no request form for the endpoint {}", recorded.endpoint))?;
    let scenario = crate::scenario::Scenario::from_value(json!({"cuecard": 1, "routes": [{"steps": [neutral]}]}))
        .map_err(|e| format!("the neutral answer does not load: {e}"))?;
    let mock = crate::mock::MockModel::from_scenario(&scenario).map_err(|e| e.to_string())?;
    let reply = crate::wire::handle(&mock, &request);
    let mut differences = Vec::new();
    let mut differ = |what, at: &str, recorded: String, cuecard: String| {
        differences.push(Difference { what, at: at.to_string(), recorded, cuecard });
    };
    if recorded.status != reply.status() {
        differ("status", "", recorded.status.to_string(), reply.status().to_string());
    }
    let media = |value: Option<&str>| value.map(|v| v.split(';').next().unwrap_or("").trim().to_ascii_lowercase());
    let recorded_type = media(recorded.headers.get("content-type").map(String::as_str));
    let cuecard_type = media(reply.header("content-type"));
    if recorded_type.is_some() && recorded_type != cuecard_type {
        differ("content_type", "content-type", shown(recorded_type), shown(cuecard_type.clone()));
    }
    for name in recorded.headers.keys().filter(|n| SDK_HEADERS.iter().any(|h| n.starts_with(h))) {
        if reply.header(name).is_none() {
            differ("header", name, "sent".into(), "-".into());
        }
    }
    let mut only_cuecard = Vec::new();
    match &recorded.frames {
        None => {
            let ours = reply_bytes(&reply);
            let theirs = recorded.body.as_deref().unwrap_or_default().as_bytes();
            match (serde_json::from_slice::<Value>(theirs), serde_json::from_slice::<Value>(&ours)) {
                (Ok(theirs), Ok(ours)) => {
                    compare_shapes("", &Shape::of(&theirs), &Shape::of(&ours), &mut differences, &mut only_cuecard)
                }
                (Ok(_), Err(_)) => differ("field", "body", "JSON".into(), "not JSON".into()),
                (Err(_), _) => {} // a body that is not JSON (a plain-text error) has no fields to compare
            }
        }
        Some(frames) => {
            let theirs = shape::events(
                recorded.headers.get("content-type").map(String::as_str),
                &super::split::joined(frames, recorded.base64),
            );
            let ours = shape::events(reply.header("content-type"), &reply_bytes(&reply));
            let kept = |events: Vec<Event>| -> Vec<Event> {
                events.into_iter().filter(|e| !IGNORED_EVENTS.contains(&e.kind.as_str())).collect()
            };
            let (theirs, ours) = (kept(theirs), kept(ours));
            compare_streams(&theirs, &ours, &mut differences, &mut only_cuecard);
        }
    }
    Ok((differences, only_cuecard))
}

fn shown(value: Option<String>) -> String {
    value.unwrap_or_else(|| "-".into())
}

/// The bytes of a reply's body (a stream's frames joined, base64 frames decoded).
fn reply_bytes(reply: &HttpReply) -> Vec<u8> {
    match reply {
        HttpReply::Stream { frames, base64: true, .. } => {
            use base64::Engine;
            frames
                .iter()
                .flat_map(|f| base64::engine::general_purpose::STANDARD.decode(f.data).unwrap_or_default())
                .collect()
        }
        other => other.body_text().into_bytes(),
    }
}

/// A stream's event types (one side only: drift both ways) and the order of those both send, then each event type
/// both send compared as the union of its events' shapes.
fn compare_streams(theirs: &[Event], ours: &[Event], out: &mut Vec<Difference>, only_cuecard: &mut Vec<String>) {
    let (their_order, our_order) = (shape::sequence(theirs), shape::sequence(ours));
    let event = |at: &String, recorded: &str, cuecard: &str| Difference {
        what: "events",
        at: at.clone(),
        recorded: recorded.into(),
        cuecard: cuecard.into(),
    };
    let mut one_side: BTreeSet<&String> = BTreeSet::new();
    for kind in their_order.iter().filter(|k| !our_order.contains(k)) {
        if one_side.insert(kind) {
            out.push(event(kind, "sent", "-"));
        }
    }
    for kind in our_order.iter().filter(|k| !their_order.contains(k)) {
        if one_side.insert(kind) {
            out.push(event(kind, "-", "sent"));
        }
    }
    let both = |order: &[String]| -> Vec<String> { order.iter().filter(|k| !one_side.contains(k)).cloned().collect() };
    let (their_common, our_common) = (shape::sequence_of(both(&their_order)), shape::sequence_of(both(&our_order)));
    if their_common != our_common {
        out.push(event(&"order".to_string(), &their_common.join(" > "), &our_common.join(" > ")));
    }
    let by_kind = |events: &[Event]| {
        let mut shapes: BTreeMap<String, Shape> = BTreeMap::new();
        for event in events {
            shapes.entry(event.kind.clone()).or_default().add("", &event.json);
        }
        shapes
    };
    let (their_shapes, our_shapes) = (by_kind(theirs), by_kind(ours));
    for (kind, theirs) in &their_shapes {
        if let Some(ours) = our_shapes.get(kind) {
            compare_shapes(&format!("{kind}:"), theirs, ours, out, only_cuecard);
        }
    }
}

/// The fields, types and kind names of `theirs` that `ours` lacks or differs in (a missing field once, at its
/// outermost path); the outermost fields only `ours` has go to `only_cuecard`.
fn compare_shapes(prefix: &str, theirs: &Shape, ours: &Shape, out: &mut Vec<Difference>, only: &mut Vec<String>) {
    let at = |path: &str| format!("{prefix}{}", if path.is_empty() { "(body)" } else { path });
    let types = |set: &BTreeSet<&'static str>| set.iter().copied().collect::<Vec<_>>().join("|");
    let missing_parent = |path: &str, other: &Shape| parents(path).any(|p| !other.types.contains_key(p));
    for (path, their_types) in &theirs.types {
        match ours.types.get(path) {
            None if !missing_parent(path, ours) => {
                out.push(Difference { what: "field", at: at(path), recorded: types(their_types), cuecard: "-".into() })
            }
            Some(our_types) if their_types.iter().any(|t| *t != "null" && !our_types.contains(t)) => {
                let (recorded, cuecard) = (types(their_types), types(our_types));
                out.push(Difference { what: "type", at: at(path), recorded, cuecard });
            }
            _ => {}
        }
    }
    for (path, their_kinds) in &theirs.kinds {
        let our_kinds = ours.kinds.get(path);
        if our_kinds.is_some_and(|ours| !their_kinds.is_subset(ours)) {
            let join = |set: &BTreeSet<String>| set.iter().cloned().collect::<Vec<_>>().join("|");
            let cuecard = our_kinds.map(join).unwrap_or_default();
            out.push(Difference { what: "kind", at: at(path), recorded: join(their_kinds), cuecard });
        }
    }
    for path in ours.types.keys() {
        if !theirs.types.contains_key(path) && !missing_parent(path, theirs) {
            only.push(at(path));
        }
    }
}

/// The paths that hold `path` (`a.b[]` holds `a.b[].c`; `a` holds `a.b`), innermost first; the root not.
fn parents(path: &str) -> impl Iterator<Item = &str> {
    let ends: Vec<usize> = path.char_indices().filter(|(_, c)| *c == '.' || *c == '[').map(|(i, _)| i).collect();
    ends.into_iter().rev().filter_map(move |end| path.get(..end)).filter(|p| !p.is_empty())
}

#[cfg(test)]
mod tests;
