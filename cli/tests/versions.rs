//! One version for every artifact (issue #58 §4): the workspace's `version` in Cargo.toml, and every file that
//! has to spell it again (the npm package, the Maven project, the C header's macros) says the same; `cuecard
//! --version` prints it. Python's wheel takes it from Cargo.toml (maturin), the JVM jar from the POM.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::PathBuf;

fn read(path: &str) -> String {
    std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(path)).unwrap()
}

/// The text between the first `before` and the next `after` in `text`.
fn between<'a>(text: &'a str, before: &str, after: &str) -> &'a str {
    let start = text.find(before).unwrap_or_else(|| panic!("no {before:?}")) + before.len();
    let rest = &text[start..];
    &rest[..rest.find(after).unwrap()]
}

#[test]
fn every_artifact_spells_the_workspace_version() {
    let version = between(&read("Cargo.toml"), "\nversion = \"", "\"").to_string();
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    let node: serde_json::Value = serde_json::from_str(&read("node/package.json")).unwrap();
    assert_eq!(node["version"], version.as_str(), "node/package.json");
    let pom = read("jvm/pom.xml");
    assert_eq!(between(&pom, "<artifactId>cuecard</artifactId>\n  <version>", "</version>"), version, "jvm/pom.xml");
    let header = read("include/cuecard.h");
    let parts: Vec<&str> = ["MAJOR", "MINOR", "PATCH"]
        .iter()
        .map(|part| between(&header, &format!("#define CUECARD_VERSION_{part} "), "\n").trim())
        .collect();
    assert_eq!(parts.join("."), version, "include/cuecard.h");
    assert!(read("python/pyproject.toml").contains("dynamic = [\"version\"]"), "the wheel takes Cargo's version");
    let printed = std::process::Command::new(env!("CARGO_BIN_EXE_cuecard")).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8(printed.stdout).unwrap().trim(), format!("cuecard {version}"));
    assert!(read("CHANGELOG.md").contains(&format!("## {version}")), "CHANGELOG.md has a section for {version}");
}
