//! The book (`docs/`, built by mdBook) against the code it describes:
//!
//! - its reference pages hold regions generated from the code (the scenario format from
//!   `tests/scenario.schema.json`, the checks from core's `Check`, the error catalogue from `ErrorKind`, the wire
//!   endpoints from the protocol table, the CLI from its clap definition), so they cannot drift:
//!   `UPDATE_BOOK=1 cargo test -p cuecard-cli --test book` rewrites them;
//! - every code block is run by CI: program code only by including a file a test suite runs, scenario data by
//!   loading it as a scenario, `cuecard` command lines by parsing them with the command's own definition.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::print_stdout)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

// ---------------------------------------------------------------------------------------------------------------
// Generated regions: `<!-- generated: NAME -->` ... `<!-- end generated -->` in a page.

/// Replaces each generated region of `page` with its fresh text; returns the new page.
fn fill_regions(page: &str, generate: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = page;
    while let Some(start) = rest.find("<!-- generated: ") {
        let (before, region) = rest.split_at(start);
        out.push_str(before);
        let name_end = region.find(" -->").expect("a generated marker ends with -->");
        let name = &region["<!-- generated: ".len()..name_end];
        let end = region.find("<!-- end generated -->").unwrap_or_else(|| panic!("region {name} is not closed"));
        let _ = write!(out, "<!-- generated: {name} -->\n{}<!-- end generated -->", generate(name));
        rest = &region[end + "<!-- end generated -->".len()..];
    }
    out.push_str(rest);
    out
}

fn generate(name: &str) -> String {
    match name {
        "scenario" => scenario_reference(&serde_json::from_str(&read("tests/scenario.schema.json")).unwrap()),
        "checks" => checks_reference(
            &read("core/src/verify/check.rs"),
            &serde_json::from_str(&read("tests/vectors/verify.json")).unwrap(),
        ),
        "errors" => errors_reference(),
        "endpoints" => endpoints_reference(),
        "cli" => cli_reference(),
        other => panic!("no generator for region {other}"),
    }
}

#[test]
fn reference_pages_are_generated_from_the_code() {
    let mut stale = Vec::new();
    for page in ["scenario", "checks", "errors", "endpoints", "cli"] {
        let path = format!("docs/reference/{page}.md");
        let committed = read(&path);
        assert!(committed.contains(&format!("<!-- generated: {page} -->")), "{path} has no generated region");
        let fresh = fill_regions(&committed, &generate);
        if fresh != committed {
            if std::env::var_os("UPDATE_BOOK").is_some() {
                std::fs::write(root().join(&path), &fresh).unwrap();
            } else {
                stale.push(path);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated pages {stale:?}: run UPDATE_BOOK=1 cargo test -p cuecard-cli --test book"
    );
}

/// A markdown table cell of code-made text (types, patterns, which may hold links): pipes escaped.
fn code_cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// A markdown table cell of prose: pipes escaped, line breaks as spaces.
fn cell(text: &str) -> String {
    // Brackets escaped too: `messages[0]` in a description is not a link.
    text.replace('|', "\\|").replace('[', "\\[").replace(']', "\\]").replace('\n', " ")
}

// --- the scenario format, from the JSON schema ---

fn schema_type(value: &Value) -> String {
    if let Some(reference) = value.get("$ref").and_then(Value::as_str) {
        let name = reference.trim_start_matches("#/$defs/");
        return format!("[`{name}`](#{name})");
    }
    if let Some(constant) = value.get("const") {
        return format!("`{constant}`");
    }
    if let Some(values) = value.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(|v| format!("`{}`", v.as_str().map_or_else(|| v.to_string(), str::to_string)))
            .collect::<Vec<_>>()
            .join(", ");
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = value.get(key).and_then(Value::as_array) {
            let kinds: Vec<String> = options.iter().map(schema_type).filter(|k| !k.is_empty()).collect();
            if !kinds.is_empty() {
                return kinds.join(" or ");
            }
        }
    }
    match value.get("type") {
        Some(Value::String(kind)) if kind == "array" => {
            let items = value.get("items").map(schema_type).unwrap_or_default();
            if items.is_empty() {
                "list".into()
            } else {
                format!("list of {items}")
            }
        }
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        _ => String::new(),
    }
}

/// The rows of an object's fields; an inline object with fields of its own adds its rows as `parent.child`.
fn schema_rows(prefix: &str, object: &Value, out: &mut String) {
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = object.get("properties").and_then(Value::as_object) else { return };
    for (name, field) in properties {
        let path = format!("{prefix}{name}");
        let kind = schema_type(field);
        let description = field.get("description").and_then(Value::as_str).unwrap_or("");
        let needed = if required.contains(&name.as_str()) { "yes" } else { "" };
        let _ = writeln!(out, "| `{path}` | {} | {needed} | {} |", code_cell(&kind), cell(description));
        if field.get("properties").is_some() {
            schema_rows(&format!("{path}."), field, out);
        }
        if let Some(items) = field.get("items").filter(|items| items.get("properties").is_some()) {
            schema_rows(&format!("{path}[]."), items, out);
        }
    }
}

fn scenario_reference(schema: &Value) -> String {
    let mut out = String::new();
    let header = "| field | type | required | meaning |\n|---|---|---|---|\n";
    let _ = writeln!(out, "## The scenario\n\n{}\n", schema["description"].as_str().unwrap_or(""));
    out.push_str(header);
    schema_rows("", schema, &mut out);
    for (name, definition) in schema["$defs"].as_object().unwrap() {
        let _ = writeln!(out, "\n## `{name}`\n");
        if let Some(description) = definition.get("description").and_then(Value::as_str) {
            let _ = writeln!(out, "{description}\n");
        }
        if definition.get("properties").is_some() {
            out.push_str(header);
            schema_rows("", definition, &mut out);
        } else {
            let _ = writeln!(out, "One of: {}.", schema_type(definition));
        }
    }
    out
}

// --- the checks, from core's `Check` enum and the shared verify vectors ---

/// One variant of `Check` as its source says it: the doc comment and the fields (name, type, optional, doc).
struct CheckDoc {
    name: String,
    doc: String,
    fields: Vec<(String, String, bool, String)>,
}

fn snake_case(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// Reads the variants of `pub enum Check` from its source (doc comments are not visible at run time).
fn parse_checks(source: &str) -> Vec<CheckDoc> {
    let body = source.split("pub enum Check {\n").nth(1).expect("pub enum Check").split("\n}\n").next().unwrap();
    let mut checks: Vec<CheckDoc> = Vec::new();
    let mut doc = Vec::new();
    let mut optional = false;
    // A field's name in the data, when serde renames it (`kind` is `type`).
    let mut renamed: Option<String> = None;
    for line in body.lines() {
        if let Some(text) = line.strip_prefix("    /// ") {
            doc.push(text.to_string());
        } else if let Some(text) = line.strip_prefix("        /// ") {
            doc.push(text.to_string());
        } else if line.starts_with("        #[serde(default") {
            optional = true;
        } else if let Some(name) = line.strip_prefix("        #[serde(rename = \"") {
            renamed = name.split('"').next().map(str::to_string);
        } else if let Some(field) = line.strip_prefix("        ").filter(|l| l.contains(": ")) {
            let (name, kind) = field.trim_end_matches(',').split_once(": ").unwrap();
            let check = checks.last_mut().expect("a field inside a variant");
            let name = renamed.take().unwrap_or_else(|| name.to_string());
            check.fields.push((name, kind.to_string(), optional, doc.join(" ")));
            doc.clear();
            optional = false;
        } else if let Some(variant) = line.strip_prefix("    ").filter(|l| l.starts_with(char::is_uppercase)) {
            let name = variant.trim_end_matches([',', '{', ' ']);
            checks.push(CheckDoc { name: snake_case(name), doc: doc.join(" "), fields: Vec::new() });
            doc.clear();
        }
    }
    checks
}

/// A value of a field's type, to prove the parsed variant is what serde reads.
fn sample(kind: &str) -> Value {
    match kind {
        "String" | "Option<String>" => Value::from("x"),
        "usize" | "u64" | "Option<u64>" => Value::from(1),
        "Vec<String>" => serde_json::json!(["x"]),
        "RequestRef" => Value::from("last"),
        "Option<serde_json::Value>" => serde_json::json!({}),
        other => panic!("a Check field of type {other} the book does not know"),
    }
}

fn checks_reference(source: &str, vectors: &Value) -> String {
    // The first failure message of each check in the shared vectors, as every language prints it.
    let mut failures: BTreeMap<String, String> = BTreeMap::new();
    for vector in vectors["vectors"].as_array().unwrap() {
        let (Some(checks), Some(expected)) = (vector["input"]["checks"].as_array(), vector["expected"].as_array())
        else {
            continue;
        };
        for (check, outcome) in checks.iter().zip(expected) {
            if let (Some(name), Some(message)) = (check["check"].as_str(), outcome["message"].as_str()) {
                failures.entry(name.to_string()).or_insert_with(|| message.to_string());
            }
        }
    }
    let checks = parse_checks(source);
    assert!(checks.len() >= 20, "parsed only {} checks from core/src/verify/check.rs", checks.len());
    let mut out = String::new();
    for check in &checks {
        let mut form = serde_json::Map::new();
        form.insert("check".into(), Value::from(check.name.clone()));
        for (name, kind, optional, _) in &check.fields {
            if !optional {
                form.insert(name.clone(), sample(kind));
            }
        }
        let parsed: Result<cuecard::verify::Check, _> = serde_json::from_value(Value::Object(form.clone()));
        assert!(parsed.is_ok(), "{} as read from its source is not a Check: {parsed:?}", check.name);
        let example = serde_json::to_string(&Value::Object(form)).unwrap().replace(":", ": ").replace(",", ", ");
        let _ = writeln!(out, "## `{}`\n\n{}\n\n```json,output\n{example}\n```\n", check.name, check.doc);
        if !check.fields.is_empty() {
            out.push_str("| field | type | required | meaning |\n|---|---|---|---|\n");
            for (name, kind, optional, doc) in &check.fields {
                let needed = if *optional { "" } else { "yes" };
                let _ = writeln!(out, "| `{name}` | `{}` | {needed} | {} |", code_cell(kind), cell(doc));
            }
            out.push('\n');
        }
        if let Some(message) = failures.get(&check.name) {
            let _ = writeln!(out, "When it fails (from `tests/vectors/verify.json`):\n\n```text\n{message}\n```\n");
        }
    }
    out
}

// --- the error catalogue, from `ErrorKind` ---

fn errors_reference() -> String {
    let mut out = String::from("| code | number | C status | meaning |\n|---|---|---|---|\n");
    for kind in cuecard::ErrorKind::ALL {
        let _ = writeln!(
            out,
            "| `{}` | {} | `CUECARD_STATUS_{}` | {} |",
            kind.code(),
            kind.number(),
            kind.code().to_uppercase(),
            kind.description()
        );
    }
    out
}

// --- the wire endpoints, from the protocol table ---

fn endpoints_reference() -> String {
    let mut out = String::from("| method | path | endpoint | answered by | stream |\n|---|---|---|---|---|\n");
    for row in cuecard::wire::endpoint_rows() {
        let answered = if row.answers_from_script { "the script (a step per request)" } else { "cuecard (no step)" };
        let stream = match row.stream {
            Some(true) => "always (the path says so)",
            Some(false) => "never",
            None if row.answers_from_script => "when the body asks",
            None => "",
        };
        let condition = if row.google_only { " (from Google's SDKs)" } else { "" };
        let _ = writeln!(
            out,
            "| `{}` | `{}`{condition} | `{}` | {answered} | {stream} |",
            row.method,
            code_cell(row.pattern),
            row.endpoint
        );
    }
    out
}

// --- the CLI, from its clap definition ---

fn cli_reference() -> String {
    let mut command = cuecard_cli::command().term_width(110);
    let mut out = format!("```text\n{}```\n", command.render_long_help());
    for sub in command.get_subcommands_mut() {
        let name = sub.get_name().to_string();
        if name == "help" {
            continue;
        }
        let mut sub = sub.clone().bin_name(format!("cuecard {name}")).term_width(110);
        let _ = write!(out, "\n## `cuecard {name}`\n\n```text\n{}```\n", sub.render_long_help());
    }
    out
}

// ---------------------------------------------------------------------------------------------------------------
// Every code block of the book is run by CI.

/// Where the files that CI runs live: a book block includes program code from these only.
const RUN_BY_CI: [&str; 10] = [
    "core/examples/",
    "go/",
    "core/tests/",
    "examples/c/",
    "python/tests/",
    "node/test/",
    "tests/sdk/",
    "jvm/src/test/",
    "tests/scenarios/",
    "bench/",
];

/// Program code: never written inline in the book.
const PROGRAM_LANGUAGES: [&str; 11] =
    ["rust", "python", "js", "ts", "c", "java", "kotlin", "javascript", "typescript", "lua", "go"];

/// The book's chapters, from SUMMARY.md.
fn chapters() -> Vec<String> {
    let summary = read("docs/SUMMARY.md");
    summary
        .split("](")
        .skip(1)
        .map(|rest| rest.split(')').next().unwrap().to_string())
        .filter(|target| target.ends_with(".md"))
        .collect()
}

/// Splits shell words (enough for the book's command lines: quotes, no expansions).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, ' ') => {
                if any || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        words.push(word);
    }
    words
}

#[test]
fn every_code_block_of_the_book_is_run_by_ci() {
    let mut ran: BTreeMap<String, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    let chapters = chapters();
    assert!(chapters.len() >= 30, "SUMMARY.md lists {} chapters", chapters.len());
    for chapter in &chapters {
        let page = read(&format!("docs/{chapter}"));
        let directory = root().join("docs").join(chapter).parent().unwrap().to_path_buf();
        for block in page.split("\n```").skip(1).step_by(2) {
            let (info, body) = block.split_once('\n').unwrap_or((block, ""));
            let language = info.split(',').next().unwrap().trim();
            let place = format!("{chapter} ({info} block {:?})", body.lines().next().unwrap_or(""));
            if let Some(include) = body.trim().strip_prefix("{{#include ").and_then(|i| i.strip_suffix("}}")) {
                let file = include.split(':').next().unwrap();
                let path = directory.join(file).canonicalize().unwrap_or_else(|e| panic!("{place}: {file}: {e}"));
                let relative = path.strip_prefix(root().canonicalize().unwrap()).unwrap().to_string_lossy().to_string();
                if !RUN_BY_CI.iter().any(|dir| relative.starts_with(dir)) {
                    problems.push(format!("{place}: includes {relative}, which no suite runs"));
                }
                if let Some(anchor) = include.split(':').nth(1) {
                    let text = std::fs::read_to_string(&path).unwrap();
                    if !text.contains(&format!("ANCHOR: {anchor}")) || !text.contains(&format!("ANCHOR_END: {anchor}"))
                    {
                        problems.push(format!("{place}: {relative} has no anchor {anchor}"));
                    }
                }
                *ran.entry(language.to_string()).or_default() += 1;
                continue;
            }
            match language {
                l if PROGRAM_LANGUAGES.contains(&l) => {
                    problems.push(format!("{place}: program code inline; include the file a suite runs"));
                }
                "json" | "yaml" if !info.contains("output") && !info.contains("data") => {
                    // Scenario data: it must load, whole or as a part (a fragment gets the version added).
                    let mut text = body.to_string();
                    if language == "json" && text.trim_start().starts_with('{') && !text.contains("\"cuecard\"") {
                        text = text.trim_start().replacen('{', "{\"cuecard\": 1, ", 1);
                    } else if language == "yaml" && !text.contains("cuecard:") {
                        text = format!("cuecard: 1\n{text}");
                    }
                    let loaded = if language == "json" {
                        cuecard::Scenario::from_json(&text)
                    } else {
                        cuecard::Scenario::from_yaml(&text)
                    };
                    match loaded {
                        Ok(_) => *ran.entry(format!("{language} (scenario)")).or_default() += 1,
                        Err(error) => problems.push(format!(
                            "{place}: not a scenario ({error}); tag it `{language},data` if it is not one"
                        )),
                    }
                }
                "sh" => {
                    // Each `cuecard` command line must parse with the command's own definition.
                    for line in body.lines().filter(|l| l.trim_start().starts_with("cuecard ")) {
                        let words = shell_words(line.split(" # ").next().unwrap().trim());
                        if let Err(error) = cuecard_cli::command().try_get_matches_from(&words) {
                            problems.push(format!("{place}: `{line}` does not parse: {error}"));
                        }
                        *ran.entry("sh (cuecard command)".to_string()).or_default() += 1;
                    }
                }
                _ => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let total: usize = ran.values().sum();
    let per_language: Vec<String> = ran.iter().map(|(language, n)| format!("{language} {n}")).collect();
    let summary = format!("book code blocks run by CI: {total} ({})", per_language.join(", "));
    println!("{summary}");
    // For tests/book.sh, which prints it beside the book's build without running the tests again.
    std::fs::write(Path::new(env!("CARGO_TARGET_TMPDIR")).join("book-code-blocks.txt"), &summary).unwrap();
    assert!(total >= 20, "only {total} code blocks");
}
