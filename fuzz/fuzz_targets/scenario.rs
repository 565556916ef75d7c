//! Any text as a scenario, JSON or YAML: a typed error or a scenario that builds a mock, never a panic or a hang.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for parsed in
        [cuecard::Scenario::from_text(text), cuecard::Scenario::from_json(text), cuecard::Scenario::from_yaml(text)]
    {
        if let Ok(scenario) = parsed {
            let _ = cuecard::MockModel::from_scenario(&scenario);
        }
    }
});
