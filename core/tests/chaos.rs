//! Seeded chaos over 10,000 requests: the journal (which requests failed, how, and which step answered each of the
//! others) is the golden `tests/golden/chaos-10k.json`, which the Python and Node suites check against their own
//! runs, so the same scenario fails the same requests in every language. Regenerate with
//! `UPDATE_VECTORS=1 cargo test -p cuecard --test chaos`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::{ChatRequest, MockModel, Scenario};
use serde_json::{json, Value};

fn golden_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/chaos-10k.json")
}

/// One character per request: the step that answered it (`0`-`2`), or the first letter of the chaos failure's kind.
fn journal_line(mock: &MockModel) -> String {
    mock.entries()
        .iter()
        .map(|entry| {
            let value = serde_json::to_value(entry).unwrap();
            match (&value["chaos"], &value["error"]["kind"], entry.step) {
                (Value::Bool(true), Value::String(kind), None) => kind.chars().next().unwrap(),
                (Value::Null, Value::Null, Some(step)) => char::from_digit(step, 10).unwrap(),
                other => panic!("unexpected entry {}: {other:?}", entry.index),
            }
        })
        .collect()
}

#[test]
fn ten_thousand_requests_fail_as_the_golden_journal_says() {
    let mut golden: Value = serde_json::from_str(&std::fs::read_to_string(golden_path()).unwrap()).unwrap();
    let scenario = Scenario::from_value(golden["scenario"].clone()).unwrap();
    let mock = MockModel::from_scenario(&scenario).unwrap();
    let request = ChatRequest::user("gpt-4o", "hi");
    let count = golden["requests"].as_u64().unwrap();
    for _ in 0..count {
        let _ = mock.chat(&request);
    }
    let line = journal_line(&mock);
    let failed = line.chars().filter(|c| !c.is_ascii_digit()).count() as f64 / count as f64;
    // The rates add up to 8%: about 800 of 10,000 fail.
    assert!((failed - 0.08).abs() < 0.01, "{failed}");
    if std::env::var_os("UPDATE_VECTORS").is_some() {
        golden["journal"] = json!(line);
        std::fs::write(golden_path(), serde_json::to_string_pretty(&golden).unwrap() + "\n").unwrap();
    } else {
        assert_eq!(golden["journal"].as_str().unwrap(), line, "the chaos journal differs from the golden one");
    }
}
