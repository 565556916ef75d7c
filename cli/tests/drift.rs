//! `cuecard drift` on the recordings in `tests/recordings/` (the real APIs' replies as the wire spec gives them, and
//! a vcrpy cassette): no drift, exit 0. The same recording with a field renamed and an event left out: exit 1, each
//! named, in text and in JSON; a file that is not a recording: exit 2.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn drift(args: &[&Path], json: bool) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cuecard"));
    command.arg("drift").args(args);
    if json {
        command.arg("--json");
    }
    command.output().unwrap()
}

fn recordings() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/recordings");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

#[test]
fn the_committed_recordings_have_no_drift() {
    let files = recordings();
    assert!(files.len() >= 2);
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let output = drift(&paths, false);
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert_eq!(text.matches(" 0 drifted, 0 not compared").count(), files.len(), "{text}");
}

#[test]
fn a_renamed_field_and_a_missing_event_are_found() {
    let spec = recordings().into_iter().find(|p| p.ends_with("wire-spec-examples.yaml")).unwrap();
    let text = std::fs::read_to_string(&spec).unwrap();
    // Chat Completions' `finish_reason` renamed in the whole reply; Anthropic's `content_block_stop` left out of the
    // stream (made one more text delta).
    let planted = text.replacen("finish_reason\":\"stop\"", "finish_reasons\":\"stop\"", 1);
    let planted = planted.replace("event: content_block_stop", "event: content_block_delta").replace(
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"!"}}"#,
    );
    assert_ne!(planted, text);
    let dir = std::env::temp_dir().join(format!("cuecard-drift-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("planted.yaml");
    std::fs::write(&file, planted).unwrap();

    let output = drift(&[&file], false);
    let report = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{report}");
    assert!(report.contains("4 exchange(s) compared, 2 drifted"), "{report}");
    assert!(report.contains("field choices[].finish_reasons: recorded string, cuecard -"), "{report}");
    assert!(report.contains("events content_block_stop: recorded -, cuecard sent"), "{report}");

    let output = drift(&[&file], true);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["drifted"], true);
    assert_eq!(json["file"], file.display().to_string());
    assert_eq!(json["exchanges"][0]["differences"][0]["at"], "choices[].finish_reasons");

    std::fs::write(&file, "cuecard: 1\nroutes: [{steps: [{nonsense: 1}]}]\n").unwrap();
    let output = drift(&[&file], false);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stdout).unwrap().contains("nonsense"));
    std::fs::remove_dir_all(&dir).unwrap();
}
