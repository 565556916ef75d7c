use super::*;
use serde_json::json;

#[test]
fn every_check_name_is_a_variant_and_back() {
    let samples = [
        json!({"check": "all_steps_used"}),
        json!({"check": "no_unexpected_requests"}),
        json!({"check": "script_fully_used"}),
        json!({"check": "no_contract_violations"}),
        json!({"check": "received_requests", "times": 1}),
        json!({"check": "was_called_times", "operation": "o", "times": 1}),
        json!({"check": "and_retried", "operation": "o", "times": 1}),
        json!({"check": "and_parsed_successfully", "operation": "o"}),
        json!({"check": "and_observed_parse_failure", "operation": "o"}),
        json!({"check": "and_observed_failure", "operation": "o", "kind": "k"}),
        json!({"check": "and_failed_with", "operation": "o", "kind": "k"}),
        json!({"check": "emitted_provider", "operation": "o", "provider_id": "p"}),
        json!({"check": "and_called_tool", "operation": "o", "name": "t"}),
        json!({"check": "and_called_tool_times", "operation": "o", "name": "t", "times": 2}),
        json!({"check": "has_last_user_message_containing", "text": "x"}),
        json!({"check": "has_system_message_containing", "request": "only", "text": "x"}),
        json!({"check": "offers_tool", "request": 3, "name": "t"}),
        json!({"check": "offers_exactly_tools", "names": ["a", "b"]}),
        json!({"check": "has_json_schema_response_format", "name": "n"}),
        json!({"check": "has_model", "model": "m"}),
        json!({"check": "mcp_tool_called", "tool": "t", "server": "s", "times": 2, "arguments": {"city": "Paris"}}),
        json!({"check": "mcp_tools_listed", "server": "s"}),
        json!({"check": "no_unexpected_mcp_calls"}),
        json!({"check": "all_mcp_steps_used"}),
        json!({"check": "batch_held", "requests": 100, "batch": "batch_1"}),
        json!({"check": "batch_lines_answered", "batch": "msgbatch_1"}),
        json!({"check": "socket_received", "type": "response.create", "fields": {"event_id": "e"}, "session": "ws_1", "times": 1}),
        json!({"check": "socket_sent", "type": "response.done"}),
        json!({"check": "socket_events_in_order", "types": ["open", "close"], "direction": "client", "session": "ws_2"}),
        json!({"check": "answer_fault", "kind": "invalid_arguments", "times": 2, "recovered": true}),
        json!({"check": "a2a_received", "agent": "researcher", "text": "weather", "times": 1}),
        json!({"check": "a2a_task_canceled", "agent": "researcher"}),
        json!({"check": "a2a_not_called", "agent": "writer"}),
        json!({"check": "all_a2a_steps_used"}),
    ];
    assert_eq!(samples.len(), CHECK_NAMES.len());
    for (sample, name) in samples.iter().zip(CHECK_NAMES) {
        assert_eq!(sample["check"], name);
        let check = Check::from_value(sample.clone()).unwrap();
        assert_eq!(&serde_json::to_value(&check).unwrap(), sample);
    }
    let err = Check::from_value(json!({"check": "was_called_times", "operation": "o", "n": 2})).unwrap_err();
    assert_eq!(err.code(), "invalid_argument");
    assert!(err.message().contains("unknown field `n`"), "{err}");
}
