//! The `answer_fault` check of `verify::Check`: answers were made faulty (the `answer_faults` setting drew a fault,
//! or a step named one), of a kind, so many times, and the code under test went on past each of them. It reads the
//! journal's `answer_fault`; a failure shows every request with its fault and outcome.

use super::assertion::{AssertionFailure, CheckResult};
use super::tables::{dash, table};
use crate::faults::FaultKind;
use crate::journal::{JournalEntry, Outcome};
use crate::mock::MockModel;

/// What a count of faults is called.
fn faults(n: usize) -> String {
    format!("{n} answer fault{}", if n == 1 { "" } else { "s" })
}

/// Whether a later request was answered whole and without a fault: the code went on past the fault and got a clean
/// answer (a retry, or the fault's error sent back to the model and answered).
fn recovered_after(entries: &[JournalEntry], faulted: &JournalEntry) -> bool {
    entries
        .iter()
        .any(|e| e.index > faulted.index && e.answer_fault.is_none() && matches!(e.outcome, Outcome::Answered))
}

/// The `answer_fault` check: faults of `kind` (any when `None`), `times` of them exactly when given, else at least
/// one; with `recovered`, each followed by a clean answer.
pub(crate) fn answer_fault(
    mock: &MockModel,
    kind: Option<FaultKind>,
    times: Option<u64>,
    recovered: bool,
) -> CheckResult<()> {
    let entries = mock.entries();
    let faulted: Vec<&JournalEntry> =
        entries.iter().filter(|e| e.answer_fault.is_some_and(|k| kind.is_none_or(|want| k == want))).collect();
    let counted = times.map_or(!faulted.is_empty(), |times| faulted.len() as u64 == times);
    let unrecovered: Vec<u64> =
        faulted.iter().filter(|e| recovered && !recovered_after(&entries, e)).map(|e| e.index).collect();
    if counted && unrecovered.is_empty() {
        return Ok(());
    }
    let name = kind.map_or("any kind", FaultKind::as_str);
    let mut label = format!("answer_fault({:?}", kind.map_or("*", FaultKind::as_str));
    let mut expected = match times {
        Some(times) => format!("{} of {name}", faults(times as usize)),
        None => format!("an answer fault of {name}"),
    };
    if let Some(times) = times {
        label.push_str(&format!(", times={times}"));
    }
    if recovered {
        label.push_str(", recovered=true");
        expected.push_str(", each followed by a request answered without a fault");
    }
    label.push(')');
    let actual = if counted {
        let list: Vec<String> = unrecovered.iter().map(|i| format!("#{i}")).collect();
        format!("no request answered without a fault after {}", list.join(", "))
    } else {
        faults(faulted.len())
    };
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            vec![
                format!("#{}", e.index),
                dash(e.route.map(|r| r.to_string())),
                dash(e.step.map(|s| s.to_string())),
                dash(e.answer_fault.map(|k| k.as_str().to_string())),
                e.outcome.describe(),
            ]
        })
        .collect();
    Err(AssertionFailure {
        check: label,
        expected,
        actual,
        history: format!(
            "requests ({}):\n{}",
            entries.len(),
            table(&["#", "route", "step", "fault", "outcome"], &rows)
        ),
    })
}
