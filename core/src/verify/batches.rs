//! The batch checks of `verify::Check`: a batch held so many requests, and every line of it was answered by a step.
//! A batch is the latest one made unless the check names one; its lines are the journal's entries that carry its id
//! (`metadata.extra.batch`, `wire::batches`). Each failure shows the batch's lines.

use super::assertion::{AssertionFailure, CheckResult};
use crate::journal::{JournalEntry, Outcome};
use crate::mock::{MockModel, StoredBatch};

/// The batch a check is about: the named one, or the latest made.
fn the_batch(mock: &MockModel, batch: Option<&str>, check: &str) -> CheckResult<StoredBatch> {
    let batches = mock.batches();
    let found = match batch {
        Some(id) => batches.into_iter().find(|b| b.id == id),
        None => batches.into_iter().last(),
    };
    found.ok_or_else(|| AssertionFailure {
        check: check.to_string(),
        expected: match batch {
            Some(id) => format!("a batch {id}"),
            None => "a batch".to_string(),
        },
        actual: "no such batch was made (or it was deleted)".to_string(),
        history: String::new(),
    })
}

/// The journal's entries for the batch's lines, in order.
fn lines_of(mock: &MockModel, id: &str) -> Vec<JournalEntry> {
    let of_batch = |e: &JournalEntry| e.request.metadata.extra.get("batch").and_then(|b| b.as_str()) == Some(id);
    mock.entries().into_iter().filter(of_batch).collect()
}

/// One line per journaled batch line: its custom id and outcome.
fn lines_table(lines: &[JournalEntry]) -> String {
    let rows: Vec<String> = lines
        .iter()
        .map(|e| {
            let custom_id = e.request.metadata.extra.get("custom_id").and_then(|c| c.as_str()).unwrap_or("?");
            let outcome = serde_json::to_value(&e.outcome).ok();
            let outcome = outcome.as_ref().and_then(|o| o.get("outcome")).and_then(|o| o.as_str()).unwrap_or("?");
            format!("  #{} {custom_id}: {outcome}", e.index)
        })
        .collect();
    format!("lines answered ({}):\n{}", lines.len(), rows.join("\n"))
}

fn label(name: &str, batch: Option<&str>, first: Option<String>) -> String {
    let mut arguments: Vec<String> = first.into_iter().collect();
    if let Some(batch) = batch {
        arguments.push(format!("batch={batch:?}"));
    }
    format!("{name}({})", arguments.join(", "))
}

/// The `batch_held` check.
pub(crate) fn held(mock: &MockModel, batch: Option<&str>, requests: u64) -> CheckResult<()> {
    let check = label("batch_held", batch, Some(requests.to_string()));
    let found = the_batch(mock, batch, &check)?;
    let total = found.outcome.get("total").and_then(|t| t.as_u64()).unwrap_or(0);
    if total == requests {
        return Ok(());
    }
    Err(AssertionFailure {
        check,
        expected: format!("{} holding {requests} request{}", found.id, if requests == 1 { "" } else { "s" }),
        actual: format!("it held {total}"),
        history: lines_table(&lines_of(mock, &found.id)),
    })
}

/// The `batch_lines_answered` check.
pub(crate) fn lines_answered(mock: &MockModel, batch: Option<&str>) -> CheckResult<()> {
    let check = label("batch_lines_answered", batch, None);
    let found = the_batch(mock, batch, &check)?;
    let total = found.outcome.get("total").and_then(|t| t.as_u64()).unwrap_or(0) as usize;
    let lines = lines_of(mock, &found.id);
    let by_a_step = |e: &&JournalEntry| {
        matches!(e.outcome, Outcome::Answered | Outcome::Failed { .. } | Outcome::FailedAfterTokens { .. })
    };
    let answered = lines.iter().filter(by_a_step).count();
    if answered == total && lines.len() == total {
        return Ok(());
    }
    let actual = if lines.len() < total {
        format!("{} of its {total} lines were answered (a batch answers them when polled to its end)", lines.len())
    } else {
        format!(
            "{} of its {total} lines took no step (past the end of their route, or matching none)",
            total - answered
        )
    };
    Err(AssertionFailure {
        check,
        expected: format!("every line of {} answered by a step", found.id),
        actual,
        history: lines_table(&lines),
    })
}
