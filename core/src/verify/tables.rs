//! The tables and short descriptions a failure message shows: the journal, the observer's records, previews.

use crate::journal::JournalEntry;
use crate::model::ResponseFormat;
use crate::observe::CallRecord;
use crate::script::preview;

pub(super) fn describe_format(format: Option<&ResponseFormat>) -> String {
    match format {
        None => "no response format".into(),
        Some(ResponseFormat::Text) => "response format text".into(),
        Some(ResponseFormat::JsonObject) => "response format json_object".into(),
        Some(ResponseFormat::JsonSchema { name: Some(name), .. }) => {
            format!("response format json_schema named {name:?}")
        }
        Some(ResponseFormat::JsonSchema { name: None, .. }) => "response format json_schema without a name".into(),
    }
}

/// A text quoted as JSON, shortened to `max` characters.
pub(super) fn preview_at(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        serde_json::Value::from(text).to_string()
    } else {
        let short: String = text.chars().take(max - 1).collect();
        format!("{}…", serde_json::Value::from(short))
    }
}

pub(super) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

pub(super) fn describe_parse(parse: Option<bool>) -> &'static str {
    match parse {
        Some(true) => "true",
        Some(false) => "false",
        None => "none (raw or unknown)",
    }
}

/// Renders rows as an aligned table, indented by two spaces.
pub(super) fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let render = |cells: &mut dyn Iterator<Item = &str>| {
        let line: Vec<String> = cells.zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        format!("  {}", line.join("  ").trim_end())
    };
    let mut lines = vec![render(&mut header.iter().copied())];
    for row in rows {
        lines.push(render(&mut row.iter().map(String::as_str)));
    }
    lines.join("\n")
}

pub(super) fn dash(value: Option<String>) -> String {
    value.unwrap_or_else(|| "-".into())
}

/// An answer in one table cell: its text, or the tools it calls.
pub(super) fn describe_answer(response: &crate::model::ChatResponse) -> String {
    let calls: Vec<&str> = response.message.tool_calls.iter().map(|c| c.name.as_str()).collect();
    if calls.is_empty() {
        preview(response.text())
    } else {
        format!("tool_calls [{}]", calls.join(", "))
    }
}

/// The journal as a table: `#  operation  model  route  step  outcome  answer`.
pub fn journal_table(entries: &[JournalEntry]) -> String {
    if entries.is_empty() {
        return "  (no requests)".into();
    }
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            vec![
                // Numbered from 1, as messages and request ids (`req_1`) are; `request_at` takes `# - 1`.
                (e.index + 1).to_string(),
                dash(e.request.operation().map(str::to_string)),
                e.request.model.clone(),
                dash(e.route.map(|r| r.to_string())),
                dash(e.step.map(|s| s.to_string())),
                e.outcome.describe(),
                dash(e.response.as_deref().map(describe_answer)),
            ]
        })
        .collect();
    table(&["#", "operation", "model", "route", "step", "outcome", "answer"], &rows)
}

/// Call records as a table: `#  attempt  provider  result  parse`.
pub fn records_table(records: &[CallRecord]) -> String {
    if records.is_empty() {
        return "  (no call records)".into();
    }
    let rows: Vec<Vec<String>> = records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let result = match (&r.failure, &r.response) {
                (Some(f), _) => match f.status {
                    Some(s) => format!("failed {} {s}", f.kind),
                    None => format!("failed {}", f.kind),
                },
                (None, Some(resp)) => format!("response {}", describe_answer(resp)),
                (None, None) => "-".into(),
            };
            let parse = match (&r.parse_failure_summary, r.parse_success) {
                (Some(summary), _) => format!("failed: {summary}"),
                (None, p) => describe_parse(p).split(' ').next().unwrap_or("none").to_string(),
            };
            // Numbered from 1, as the requests table is; `attempt` stays the engine's own count (0 first).
            vec![(i + 1).to_string(), r.context.attempt.to_string(), r.context.provider_id.clone(), result, parse]
        })
        .collect();
    table(&["#", "attempt", "provider", "result", "parse"], &rows)
}
