//! Redaction of a streamed reply as a reader of the file can reassemble it (issue #59, S1). A provider streams its
//! answer a few characters at a time, so a secret arrives split over several frames (`"Corp"`, `"Secret-"`,
//! `"XYZ"`): scrubbing each frame alone misses it, and so does scrubbing the base64 of an AWS event-stream message.
//!
//! So the string values of every event are read (the JSON of each SSE `data:` line, of each NDJSON line, of each
//! event-stream message's payload, and of the base64 JSON an `InvokeModelWithResponseStream` chunk carries in its
//! `bytes`), values at the same place of their events (`choices/0/delta/content`, `delta/text`, ...) are joined in
//! stream order as a client joins them, and each secret found in a joined text is cut out of the values it spans: the
//! first keeps `[REDACTED]` where the secret began, the others lose their part. Only the events that change are
//! written again (their JSON re-serialized, an event-stream message re-framed with new checksums); every other
//! frame keeps its exact bytes, and the stream still parses.

use super::redact::{Scrubber, REDACTED};
use crate::script::recorded::RecordedFrame;
use crate::wire::eventstream;
use base64::Engine;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ops::Range;

/// One event's JSON, where it sits in its frame, and whether it was changed.
struct Document {
    value: Value,
    /// Set when a string in it was cut.
    changed: bool,
}

/// A frame taken apart into what can be rewritten.
enum Parsed {
    /// A text frame: its lines, each with the JSON of a `data:` line (or of the whole line, for NDJSON).
    Text { lines: Vec<(String, Option<Document>)> },
    /// An AWS event-stream message: its headers and its payload's JSON (the `bytes` of a chunk read as JSON too).
    Binary { headers: Vec<(String, String)>, payload: Document, chunk: Option<Document> },
    /// What cannot be read (not JSON, a cut message): kept as it is.
    Opaque,
}

/// A string value of an event: which frame, which document of it (0-based, in the order `documents` gives),
/// its path, and its text.
struct Leaf {
    frame: usize,
    document: usize,
    path: Vec<PathStep>,
    text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum PathStep {
    Key(String),
    Index(usize),
}

/// The frames of a stream with every secret a reader could reassemble cut out, and whether any frame changed.
pub(crate) fn redact_frames(
    frames: Vec<RecordedFrame>,
    base64: bool,
    scrubber: &Scrubber,
) -> (Vec<RecordedFrame>, bool) {
    let mut parsed: Vec<Parsed> = frames.iter().map(|frame| parse(&frame.data, base64)).collect();
    let leaves = leaves(&parsed);
    let cuts = cuts(&leaves, scrubber);
    if cuts.is_empty() {
        return (frames, false);
    }
    for (leaf_index, new_text) in cuts {
        if let Some(leaf) = leaves.get(leaf_index) {
            if let Some(document) = documents_mut(parsed.get_mut(leaf.frame)).into_iter().nth(leaf.document) {
                set_string(&mut document.value, &leaf.path, new_text);
                document.changed = true;
            }
        }
    }
    let frames = frames
        .into_iter()
        .zip(parsed)
        .map(|(frame, parsed)| match rebuild(&parsed, base64) {
            Some(data) => RecordedFrame { data, ..frame },
            None => frame,
        })
        .collect();
    (frames, true)
}

/// The first secret a reader could still reassemble from `frames`, named: what the recorder checks before writing.
pub(crate) fn reassembled_secret(frames: &[RecordedFrame], base64: bool, scrubber: &Scrubber) -> Option<String> {
    let parsed: Vec<Parsed> = frames.iter().map(|frame| parse(&frame.data, base64)).collect();
    let leaves = leaves(&parsed);
    for (path, members) in groups(&leaves) {
        let joined: String = members.iter().filter_map(|&i| leaves.get(i)).map(|leaf| leaf.text.as_str()).collect();
        if let Some(range) = scrubber.secret_ranges(&joined).into_iter().next() {
            let shown: String = joined.get(range).unwrap_or_default().chars().take(6).collect();
            return Some(format!("a secret ({shown}...) joined from the stream's values at {path}"));
        }
    }
    None
}

fn parse(data: &str, base64: bool) -> Parsed {
    if base64 {
        let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data) else { return Parsed::Opaque };
        let Ok((message, used)) = eventstream::decode(&bytes) else { return Parsed::Opaque };
        if used != bytes.len() {
            return Parsed::Opaque;
        }
        let Ok(value) = serde_json::from_slice::<Value>(&message.payload) else { return Parsed::Opaque };
        // An InvokeModelWithResponseStream chunk: `{"bytes": base64 of the provider's own JSON event}`.
        let chunk = value
            .get("bytes")
            .and_then(Value::as_str)
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .map(|value| Document { value, changed: false });
        return Parsed::Binary { headers: message.headers, payload: Document { value, changed: false }, chunk };
    }
    let lines = data
        .split_inclusive('\n')
        .map(|line| {
            let content = line.trim_end_matches(['\n', '\r']);
            let json = content.strip_prefix("data:").map_or(content, |rest| rest.strip_prefix(' ').unwrap_or(rest));
            let document = (json.starts_with('{') || json.starts_with('['))
                .then(|| serde_json::from_str::<Value>(json).ok())
                .flatten()
                .map(|value| Document { value, changed: false });
            (line.to_string(), document)
        })
        .collect();
    Parsed::Text { lines }
}

/// The documents of a frame, in a fixed order (its lines', or an event-stream payload's then its chunk's).
fn documents(parsed: &Parsed) -> Vec<&Document> {
    match parsed {
        Parsed::Text { lines } => lines.iter().filter_map(|(_, d)| d.as_ref()).collect(),
        Parsed::Binary { payload, chunk, .. } => std::iter::once(payload).chain(chunk.as_ref()).collect(),
        Parsed::Opaque => Vec::new(),
    }
}

fn documents_mut(parsed: Option<&mut Parsed>) -> Vec<&mut Document> {
    match parsed {
        Some(Parsed::Text { lines }) => lines.iter_mut().filter_map(|(_, d)| d.as_mut()).collect(),
        Some(Parsed::Binary { payload, chunk, .. }) => std::iter::once(payload).chain(chunk.as_mut()).collect(),
        _ => Vec::new(),
    }
}

fn leaves(parsed: &[Parsed]) -> Vec<Leaf> {
    let mut out = Vec::new();
    for (frame, parsed) in parsed.iter().enumerate() {
        for (document, doc) in documents(parsed).into_iter().enumerate() {
            // A chunk's own JSON is a place apart from its envelope's (`bytes` itself is base64, never joined).
            let mut path = if matches!(parsed, Parsed::Binary { .. }) && document == 1 {
                vec![PathStep::Key("bytes>".into())]
            } else {
                Vec::new()
            };
            // The `bytes` of a chunk that was read as JSON is base64: its text is in the chunk's own leaves.
            let chunk_read = matches!(parsed, Parsed::Binary { chunk: Some(_), .. }) && document == 0;
            collect(&doc.value, &mut path, &mut |path, text| {
                if !(chunk_read && path == [PathStep::Key("bytes".into())]) {
                    out.push(Leaf { frame, document, path: path.to_vec(), text: text.to_string() });
                }
            });
        }
    }
    out
}

fn collect(value: &Value, path: &mut Vec<PathStep>, found: &mut impl FnMut(&[PathStep], &str)) {
    match value {
        Value::String(text) => found(path, text),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(PathStep::Index(i));
                collect(item, path, found);
                path.pop();
            }
        }
        Value::Object(fields) => {
            for (key, item) in fields {
                path.push(PathStep::Key(key.clone()));
                collect(item, path, found);
                path.pop();
            }
        }
        _ => {}
    }
}

/// The leaves of each place, in stream order, by the place written out (`choices/0/delta/content`).
fn groups(leaves: &[Leaf]) -> BTreeMap<String, Vec<usize>> {
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, leaf) in leaves.iter().enumerate() {
        let path: Vec<String> = leaf
            .path
            .iter()
            .map(|step| match step {
                PathStep::Key(key) => key.clone(),
                PathStep::Index(i) => i.to_string(),
            })
            .collect();
        groups.entry(path.join("/")).or_default().push(i);
    }
    groups
}

/// The new text of every leaf a secret runs through: for each joined text, each secret's range cut from the leaves
/// it spans, `[REDACTED]` put where it began.
fn cuts(leaves: &[Leaf], scrubber: &Scrubber) -> BTreeMap<usize, String> {
    let mut cut: BTreeMap<usize, String> = BTreeMap::new();
    for members in groups(leaves).into_values() {
        let texts: Vec<&str> = members.iter().filter_map(|&i| leaves.get(i)).map(|leaf| leaf.text.as_str()).collect();
        let joined: String = texts.concat();
        let ranges = scrubber.secret_ranges(&joined);
        if ranges.is_empty() {
            continue;
        }
        let mut start = 0;
        for (&leaf, text) in members.iter().zip(&texts) {
            let span = start..start + text.len();
            start = span.end;
            if ranges.iter().any(|r| r.start < span.end && span.start < r.end) {
                cut.insert(leaf, cut_ranges(text, &span, &ranges));
            }
        }
    }
    cut
}

/// `text` (which sits at `span` of the joined text) without the parts of `ranges` it holds; `[REDACTED]` where a
/// range begins inside it.
fn cut_ranges(text: &str, span: &Range<usize>, ranges: &[Range<usize>]) -> String {
    let mut out = String::new();
    let mut at = span.start;
    for range in ranges.iter().filter(|r| r.start < span.end && span.start < r.end) {
        let from = range.start.max(at);
        out.push_str(text.get(at - span.start..from - span.start).unwrap_or_default());
        if range.start >= span.start {
            out.push_str(REDACTED);
        }
        at = range.end.min(span.end).max(at);
    }
    out.push_str(text.get(at - span.start..).unwrap_or_default());
    out
}

fn set_string(value: &mut Value, path: &[PathStep], text: String) {
    let mut target = value;
    for step in path {
        let next = match step {
            PathStep::Key(key) if key == "bytes>" => continue,
            PathStep::Key(key) => target.get_mut(key.as_str()),
            PathStep::Index(i) => target.get_mut(*i),
        };
        match next {
            Some(next) => target = next,
            None => return,
        }
    }
    *target = Value::String(text);
}

/// The frame's new data, when a document of it changed.
fn rebuild(parsed: &Parsed, base64: bool) -> Option<String> {
    match parsed {
        Parsed::Text { lines } if lines.iter().any(|(_, d)| d.as_ref().is_some_and(|d| d.changed)) => Some(
            lines
                .iter()
                .map(|(line, document)| match document.as_ref().filter(|d| d.changed) {
                    Some(document) => {
                        let ending = line.get(line.trim_end_matches(['\n', '\r']).len()..).unwrap_or_default();
                        let prefix = if line.starts_with("data: ") {
                            "data: "
                        } else if line.starts_with("data:") {
                            "data:"
                        } else {
                            ""
                        };
                        format!("{prefix}{}{ending}", document.value)
                    }
                    None => line.clone(),
                })
                .collect(),
        ),
        Parsed::Binary { headers, payload, chunk }
            if base64 && (payload.changed || chunk.as_ref().is_some_and(|c| c.changed)) =>
        {
            let mut payload = payload.value.clone();
            if let Some(chunk) = chunk.as_ref().filter(|c| c.changed) {
                let encoded = base64::engine::general_purpose::STANDARD.encode(chunk.value.to_string());
                if let Some(bytes) = payload.get_mut("bytes") {
                    *bytes = Value::String(encoded);
                }
            }
            let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
            let message = eventstream::encode(&headers, payload.to_string().as_bytes());
            Some(base64::engine::general_purpose::STANDARD.encode(message))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeded::Seeded;

    #[test]
    fn a_range_is_cut_from_each_value_it_spans_and_named_where_it_began() {
        let ranges = [3..9, 12..14];
        // "abcSECRETxyzAB!" split as "abcSE", "CRE", "TxyzA", "B!"
        assert_eq!(cut_ranges("abcSE", &(0..5), &ranges), "abc[REDACTED]");
        assert_eq!(cut_ranges("CRE", &(5..8), &ranges), "");
        assert_eq!(cut_ranges("TxyzA", &(8..13), &ranges), "xyz[REDACTED]");
        assert_eq!(cut_ranges("B!", &(13..15), &ranges), "!");
        let scrubber = Scrubber { texts: vec!["SECRET".into()] };
        assert_eq!(scrubber.secret_ranges("a SECRET and sk-abcdefghijklmnopqrstuvwxyz"), vec![2..8, 13..42]);
    }

    /// Random secrets in random text, split at random places over a chat stream's frames: what a reader joins holds
    /// `[REDACTED]` where each was, and nothing of it; frames without a secret keep their exact bytes.
    #[test]
    fn random_secrets_split_at_random_frame_boundaries_never_reassemble() {
        let alphabet: Vec<char> = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789".chars().collect();
        for seed in 0..300u64 {
            let mut draw = Seeded::new(seed);
            let pick = |draw: &mut Seeded, n: usize| draw.below(n as u64) as usize;
            let secret: String =
                (0..8 + pick(&mut draw, 9)).map(|_| alphabet[pick(&mut draw, alphabet.len())]).collect();
            let words: Vec<&str> = ["the", "key", "is", "here", "ok", "é", "\"quoted\"", "a\nb"].to_vec();
            let mut text = String::new();
            for i in 0..6 + pick(&mut draw, 6) {
                if i == 3 {
                    text.push_str(&secret);
                } else {
                    text.push_str(words[pick(&mut draw, words.len())]);
                }
                text.push(' ');
            }
            let mut pieces = Vec::new();
            let chars: Vec<char> = text.chars().collect();
            let mut at = 0;
            while at < chars.len() {
                let take = (1 + pick(&mut draw, 5)).min(chars.len() - at);
                pieces.push(chars[at..at + take].iter().collect::<String>());
                at += take;
            }
            let frames: Vec<RecordedFrame> = pieces
                .iter()
                .enumerate()
                .map(|(i, piece)| {
                    let event =
                        serde_json::json!({"id": "chatcmpl-1", "choices": [{"index": 0, "delta": {"content": piece}}]});
                    RecordedFrame { at_ms: i as u64, data: format!("data: {event}\n\n") }
                })
                .chain(std::iter::once(RecordedFrame { at_ms: 99, data: "data: [DONE]\n\n".into() }))
                .collect();
            let scrubber = Scrubber { texts: vec![secret.clone()] };
            let (redacted, changed) = redact_frames(frames.clone(), false, &scrubber);
            assert!(changed, "seed {seed}");
            let joined: String = redacted
                .iter()
                .filter_map(|f| {
                    f.data.strip_prefix("data: ").and_then(|d| serde_json::from_str::<Value>(d.trim()).ok())
                })
                .map(|event| event["choices"][0]["delta"]["content"].as_str().unwrap_or_default().to_string())
                .collect();
            assert_eq!(joined, text.replace(&secret, REDACTED), "seed {seed}: {pieces:?}");
            assert_eq!(reassembled_secret(&redacted, false, &scrubber), None, "seed {seed}");
            for (before, after) in frames.iter().zip(&redacted) {
                if before.data != after.data {
                    let piece: String = serde_json::from_str::<Value>(before.data.trim_start_matches("data: ").trim())
                        .map(|e| e["choices"][0]["delta"]["content"].as_str().unwrap_or_default().to_string())
                        .unwrap_or_default();
                    assert!(
                        secret.chars().any(|c| piece.contains(c)),
                        "seed {seed}: a frame without the secret changed"
                    );
                }
            }
        }
    }
}
