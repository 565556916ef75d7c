//! Each rule returns the real API's text (spec part B), and each case the spec says the API accepts passes.

use super::*;
use serde_json::json;

fn strict() -> Contracts {
    Contracts::from(ContractMode::Strict)
}

fn check(endpoint: &str, body: &Value) -> Option<Violation> {
    super::check(endpoint, body, &strict(), &NoHistory)
}

fn rule_of(endpoint: &str, body: Value) -> Option<(String, String)> {
    check(endpoint, &body).map(|v| (v.rule, v.message))
}

fn anthropic_body(messages: Value) -> Value {
    json!({"model": "claude-test-model", "max_tokens": 100, "messages": messages})
}

fn tool_use(id: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "get_weather", "input": {}})
}

fn tool_result(id: &str) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "content": "sunny"})
}

#[test]
fn anthropic_tool_use_and_tool_result_pair_both_ways() {
    let unanswered = anthropic_body(json!([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [tool_use("toolu_1"), tool_use("toolu_2")]},
        {"role": "user", "content": [tool_result("toolu_1")]},
    ]));
    assert_eq!(
        rule_of("messages", unanswered).unwrap(),
        (
            "A1".into(),
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. \
          Each `tool_use` block must have a corresponding `tool_result` block in the next message."
                .into()
        )
    );
    let orphan = anthropic_body(json!([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": "Let me think."},
        {"role": "user", "content": [{"type": "text", "text": "here"}, tool_result("toolu_9")]},
    ]));
    assert_eq!(
        rule_of("messages", orphan).unwrap(),
        (
            "A2".into(),
            "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each \
          `tool_result` block must have a corresponding `tool_use` block in the previous message."
                .into()
        )
    );
}

#[test]
fn anthropic_thinking_rules() {
    let thinking = |budget: u64, max_tokens: u64| {
        json!({"model": "m", "max_tokens": max_tokens, "thinking": {"type": "enabled", "budget_tokens": budget},
               "messages": [{"role": "user", "content": "hi"}]})
    };
    assert_eq!(rule_of("messages", thinking(512, 4000)).unwrap().0, "A7");
    assert_eq!(
        rule_of("messages", thinking(512, 4000)).unwrap().1,
        "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    );
    assert_eq!(rule_of("messages", thinking(2048, 2048)).unwrap().0, "A8");
    let mut forced = thinking(1024, 4000);
    forced["tool_choice"] = json!({"type": "any"});
    assert_eq!(
        rule_of("messages", forced).unwrap(),
        ("A6".into(), "Thinking may not be enabled when tool_choice forces tool use.".into())
    );
    // The tool loop in progress must start with its thinking; older turns may drop theirs (A5b).
    let mut loop_without = thinking(1024, 4000);
    loop_without["messages"] = json!([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [tool_use("toolu_1")]},
        {"role": "user", "content": [tool_result("toolu_1")]},
    ]);
    let (rule, message) = rule_of("messages", loop_without.clone()).unwrap();
    assert_eq!(rule, "A3");
    assert!(message
        .starts_with("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`."));
    loop_without["messages"][1]["content"] =
        json!([{"type": "thinking", "thinking": "t", "signature": "s"}, tool_use("toolu_1")]);
    assert_eq!(rule_of("messages", loop_without.clone()), None);
    // A completed earlier loop may have dropped its thinking (A5b).
    let mut earlier = loop_without;
    earlier["messages"][1]["content"] = json!([tool_use("toolu_1")]);
    earlier["messages"].as_array_mut().unwrap().extend([
        json!({"role": "assistant", "content": "It is sunny."}),
        json!({"role": "user", "content": "thanks"}),
    ]);
    assert_eq!(rule_of("messages", earlier), None);
}

#[test]
fn anthropic_content_rules() {
    let empty = anthropic_body(json!([{"role": "user", "content": []}]));
    assert_eq!(
        rule_of("messages", empty).unwrap().1,
        "messages.0: all messages must have non-empty content except for the optional final assistant message"
    );
    let blank = anthropic_body(json!([{"role": "user", "content": [{"type": "text", "text": ""}]}]));
    assert_eq!(rule_of("messages", blank).unwrap().1, "messages: text content blocks must be non-empty");
    let spaces = anthropic_body(json!([{"role": "user", "content": " "}]));
    assert_eq!(
        rule_of("messages", spaces).unwrap().1,
        "messages: text content blocks must contain non-whitespace text"
    );
    let prefill = anthropic_body(json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure "}]));
    assert_eq!(
        rule_of("messages", prefill).unwrap().1,
        "messages: final assistant content cannot end with trailing whitespace"
    );
    let bad_tool = json!({"model": "m", "max_tokens": 10, "tools": [{"name": "get weather", "input_schema": {}}],
                          "messages": [{"role": "user", "content": "hi"}]});
    assert_eq!(
        rule_of("messages", bad_tool).unwrap(),
        ("A13".into(), "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'".into())
    );
}

#[test]
fn anthropic_accepts_what_the_real_api_accepts() {
    for body in [
        // Consecutive user turns are merged, not refused.
        anthropic_body(json!([{"role": "user", "content": "one"}, {"role": "user", "content": "two"}])),
        // A final assistant message is a prefill; an empty one is allowed.
        anthropic_body(json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure"}])),
        anthropic_body(json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": []}])),
        // max_tokens 0 pre-warms the cache.
        json!({"model": "m", "max_tokens": 0, "messages": [{"role": "user", "content": "hi"}]}),
        // Whitespace next to real text.
        anthropic_body(
            json!([{"role": "user", "content": [{"type": "text", "text": " "}, {"type": "text", "text": "hi"}]}]),
        ),
        // A complete tool loop, and server tools with their own names.
        anthropic_body(json!([
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [{"type": "text", "text": "Checking."}, tool_use("toolu_1")]},
            {"role": "user", "content": [tool_result("toolu_1"), {"type": "text", "text": "thanks"}]},
        ])),
        json!({"model": "m", "max_tokens": 10, "tools": [{"type": "web_search_20250305", "name": "web_search"}],
               "messages": [{"role": "user", "content": "hi"}]}),
    ] {
        assert_eq!(rule_of("messages", body.clone()), None, "{body}");
    }
}

fn chat_body(messages: Value) -> Value {
    json!({"model": "gpt-4o", "messages": messages})
}

fn call(id: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": "get_weather", "arguments": "{}"}})
}

#[test]
fn chat_tool_messages_follow_their_calls() {
    let stray = chat_body(
        json!([{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_1", "content": "x"}]),
    );
    let v = check("chat_completions", &stray).unwrap();
    assert_eq!(v.rule, "C1");
    assert_eq!(
        v.message,
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
    );
    assert_eq!(v.param.as_deref(), Some("messages.[1].role"));
    let unknown = chat_body(json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": null, "tool_calls": [call("call_1")]},
        {"role": "tool", "tool_call_id": "call_7", "content": "x"},
    ]));
    assert_eq!(
        rule_of("chat_completions", unknown).unwrap(),
        (
            "C3".into(),
            "Invalid parameter: 'tool_call_id' of 'call_7' not found in 'tool_calls' of previous message.".into()
        )
    );
    let unanswered = chat_body(json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": null, "tool_calls": [call("call_1"), call("call_2")]},
        {"role": "tool", "tool_call_id": "call_1", "content": "x"},
        {"role": "user", "content": "and?"},
    ]));
    assert_eq!(
        rule_of("chat_completions", unanswered).unwrap(),
        (
            "C2".into(),
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each \
          'tool_call_id'. The following tool_call_ids did not have response messages: call_2"
                .into()
        )
    );
    let null_content = chat_body(json!([{"role": "user", "content": null}]));
    assert_eq!(
        rule_of("chat_completions", null_content).unwrap().1,
        "Invalid value for 'content': expected a string, got null."
    );
}

#[test]
fn chat_tools_and_formats() {
    let mut json_object = chat_body(json!([{"role": "user", "content": "Give me an object."}]));
    json_object["response_format"] = json!({"type": "json_object"});
    assert_eq!(rule_of("chat_completions", json_object.clone()).unwrap().0, "C5");
    json_object["messages"][0]["content"] = json!("Answer in JSON.");
    assert_eq!(rule_of("chat_completions", json_object), None);
    let mut too_many = chat_body(json!([{"role": "user", "content": "hi"}]));
    too_many["tools"] =
        Value::Array((0..129).map(|i| json!({"type": "function", "function": {"name": format!("t{i}")}})).collect());
    let v = check("chat_completions", &too_many).unwrap();
    assert_eq!((v.rule.as_str(), v.code.as_deref()), ("C6", Some("array_above_max_length")));
    assert!(v.message.ends_with("but got an array with length 129 instead."));
    let mut bad_name = chat_body(json!([{"role": "user", "content": "hi"}]));
    bad_name["tools"] = json!([{"type": "function", "function": {"name": "get.weather"}}]);
    let v = check("chat_completions", &bad_name).unwrap();
    assert_eq!(v.param.as_deref(), Some("tools[0].function.name"));
    assert_eq!(
        v.message,
        "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
    );
}

#[test]
fn strict_schemas_follow_the_supported_subset() {
    let strict = |schema: Value| {
        let mut body = chat_body(json!([{"role": "user", "content": "hi"}]));
        body["response_format"] =
            json!({"type": "json_schema", "json_schema": {"name": "word", "strict": true, "schema": schema}});
        rule_of("chat_completions", body).map(|(_, m)| m)
    };
    assert_eq!(
        strict(json!({"type": "object", "properties": {"w": {"type": "string"}}, "required": ["w"]})).unwrap(),
        "Invalid schema for response_format 'word': In context=(), 'additionalProperties' is required to be supplied and to be false."
    );
    assert_eq!(
        strict(json!({"type": "object", "properties": {"w": {"type": "string"}, "n": {"type": "integer"}},
                      "required": ["w"], "additionalProperties": false}))
        .unwrap(),
        "Invalid schema for response_format 'word': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'n'."
    );
    assert_eq!(
        strict(json!({"type": "object", "additionalProperties": false, "required": ["etymology"],
                      "properties": {"etymology": {"type": "object", "properties": {}}}}))
        .unwrap(),
        "Invalid schema for response_format 'word': In context=('properties', 'etymology'), 'additionalProperties' is required to be supplied and to be false."
    );
    assert_eq!(
        strict(json!({"type": "object", "additionalProperties": false, "required": ["p"],
                      "properties": {"p": {"type": "string", "default": "x"}}}))
        .unwrap(),
        "Invalid schema for response_format 'word': In context=('properties', 'p'), 'default' is not permitted."
    );
    // What openai-python's `to_strict_json_schema` makes is accepted: nullable optional fields, nested objects.
    assert_eq!(
        strict(json!({"type": "object", "additionalProperties": false, "required": ["w", "tags"],
                      "properties": {"w": {"type": ["string", "null"]},
                                     "tags": {"type": "array", "items": {"type": "object", "additionalProperties": false,
                                              "required": ["t"], "properties": {"t": {"type": "string"}}}}}})),
        None
    );
}

#[test]
fn responses_items_and_parts() {
    let orphan = json!({"model": "gpt-4o", "input": [
        {"role": "user", "content": "hi"},
        {"type": "function_call_output", "call_id": "call_5", "output": "x"}]});
    assert_eq!(
        rule_of("responses", orphan.clone()).unwrap(),
        ("R3".into(), "No tool call found for function call output with call_id call_5.".into())
    );
    let mut chained = orphan;
    chained["previous_response_id"] = json!("resp_1");
    let answers = Answers(vec![("resp_1", true, vec!["call_5"], false)]);
    assert_eq!(responses_rule(chained, &answers), None, "the call may be in the chained response");
    let wrong_part = json!({"model": "gpt-4o", "input": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "input_text", "text": "earlier"}]}]});
    let v = check("responses", &wrong_part).unwrap();
    assert_eq!(
        (v.rule.as_str(), v.param.as_deref(), v.code.as_deref()),
        ("R6", Some("input[1].content[0]"), Some("invalid_value"))
    );
    let strict = json!({"model": "gpt-4o", "input": "hi", "text": {"format": {"type": "json_schema", "name": "w",
        "strict": true, "schema": {"type": "object", "properties": {}}}}});
    let v = check("responses", &strict).unwrap();
    assert_eq!((v.param.as_deref(), v.code.as_deref()), (Some("text.format.schema"), Some("invalid_json_schema")));
}

#[test]
fn a_thinking_block_sent_back_must_be_the_one_cuecard_issued() {
    let thinking = "The user wants the weather.";
    let issued = crate::contracts::thinking_signature(thinking);
    let turn = |block: Value| {
        let mut body = anthropic_body(json!([
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [block, tool_use("toolu_1")]},
            {"role": "user", "content": [tool_result("toolu_1")]},
        ]));
        body["max_tokens"] = json!(2048);
        body["thinking"] = json!({"type": "enabled", "budget_tokens": 1024});
        body
    };
    let intact = turn(json!({"type": "thinking", "thinking": thinking, "signature": issued}));
    assert_eq!(rule_of("messages", intact), None);
    let edited = turn(json!({"type": "thinking", "thinking": "The user wants the weather!", "signature": issued}));
    assert_eq!(
        rule_of("messages", edited).unwrap(),
        ("A5".into(), "messages.1.content.0: Invalid `signature` in `thinking` block".into())
    );
    let unsigned = turn(json!({"type": "thinking", "thinking": thinking}));
    assert_eq!(
        rule_of("messages", unsigned).unwrap(),
        ("A5".into(), "messages.1.content.0.thinking.signature: Field required".into())
    );
    // A real signature (a recording of the real API) is not cuecard's to check.
    let recorded = turn(json!({"type": "thinking", "thinking": "anything", "signature": "EqQBCkYIARgCKkD"}));
    assert_eq!(rule_of("messages", recorded), None);
}

#[test]
fn a_final_assistant_message_may_not_carry_thinking_when_thinking_is_off() {
    let issued = crate::contracts::thinking_signature("t");
    let prefill = anthropic_body(json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": issued}]},
    ]));
    assert_eq!(rule_of("messages", prefill).unwrap().0, "A4");
    // Earlier turns may keep theirs.
    let earlier = anthropic_body(json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": issued},
                                          {"type": "text", "text": "Hello."}]},
        {"role": "user", "content": "again"},
    ]));
    assert_eq!(rule_of("messages", earlier), None);
}

#[test]
fn max_tokens_within_the_models_cap_by_name_prefix_and_the_settings_own_models() {
    let mut body = anthropic_body(json!([{"role": "user", "content": "hi"}]));
    body["model"] = json!("claude-sonnet-4-5-20250929");
    body["max_tokens"] = json!(100_000);
    assert_eq!(
        rule_of("messages", body.clone()).unwrap(),
        (
            "A9".into(),
            "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for \
             claude-sonnet-4-5-20250929"
                .into()
        )
    );
    body["max_tokens"] = json!(64_000);
    assert_eq!(rule_of("messages", body), None);
    // An unknown model has no cap; the setting's `models` gives one.
    let unknown = json!({"model": "my-model", "max_tokens": 5000, "messages": [{"role": "user", "content": "hi"}]});
    assert_eq!(rule_of("messages", unknown.clone()), None);
    let given: Contracts = serde_json::from_value(json!({"mode": "strict",
        "models": {"my-model": {"max_output_tokens": 4096}}}))
    .unwrap();
    assert_eq!(super::check("messages", &unknown, &given, &NoHistory).unwrap().rule, "A9");
}

#[test]
fn chat_completion_tokens_and_the_context_window() {
    let body =
        json!({"model": "gpt-4o-2024-08-06", "max_tokens": 20_000, "messages": [{"role": "user", "content": "hi"}]});
    let v = check("chat_completions", &body).unwrap();
    assert_eq!(v.rule, "C8");
    assert_eq!(
        v.message,
        "max_tokens is too large: 20000. This model supports at most 16384 completion tokens, whereas you provided 20000."
    );
    assert_eq!(v.param.as_deref(), Some("max_tokens"));
    let long = "word ".repeat(16_000); // 16,001 word-like tokens: the last space is one
    let body = json!({"model": "gpt-3.5-turbo", "max_completion_tokens": 500,
                      "messages": [{"role": "user", "content": long}]});
    let v = check("chat_completions", &body).unwrap();
    assert_eq!((v.rule.as_str(), v.code.as_deref()), ("C9", Some("context_length_exceeded")));
    assert_eq!(
        v.message,
        "This model's maximum context length is 16385 tokens. However, you requested 16501 tokens (16001 in the \
         messages, 500 in the completion). Please reduce the length of the messages or completion."
    );
}

#[test]
fn an_inline_image_over_5_mb_of_base64_is_refused() {
    let image = |data: String| {
        anthropic_body(json!([{"role": "user", "content": [
            {"type": "text", "text": "what is this?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}]}]))
    };
    assert_eq!(rule_of("messages", image("A".repeat(5_242_880))), None);
    assert_eq!(
        rule_of("messages", image("A".repeat(5_242_881))).unwrap(),
        (
            "A14".into(),
            "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 5242881 bytes > 5242880 bytes"
                .into()
        )
    );
}

#[test]
fn strict_schemas_nest_at_most_10_objects() {
    let mut schema = json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false});
    for _ in 0..10 {
        schema = json!({"type": "object", "properties": {"inner": schema}, "required": ["inner"],
                        "additionalProperties": false});
    }
    let format = |schema: Value| {
        json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}],
               "response_format": {"type": "json_schema", "json_schema": {"name": "deep", "strict": true, "schema": schema}}})
    };
    let v = check("chat_completions", &format(schema.clone())).unwrap();
    assert_eq!(
        (v.rule.as_str(), v.message.as_str()),
        ("S2", "Invalid schema for response_format 'deep': 11 levels of nesting exceeds limit of 10")
    );
    assert_eq!(check("chat_completions", &format(schema["properties"]["inner"].clone())), None);
}

#[test]
fn rules_left_out_by_except_are_not_checked_and_the_next_rule_still_is() {
    let body = json!({"model": "gpt-4o", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "call_1", "content": null}]});
    assert_eq!(check("chat_completions", &body).unwrap().rule, "C4");
    let lenient: Contracts = serde_json::from_value(json!({"mode": "strict", "except": ["C4"]})).unwrap();
    assert_eq!(super::check("chat_completions", &body, &lenient, &NoHistory).unwrap().rule, "C1");
    let none: Contracts = serde_json::from_value(json!({"mode": "strict", "except": ["C4", "C1"]})).unwrap();
    assert_eq!(super::check("chat_completions", &body, &none, &NoHistory), None);
}

#[test]
fn the_setting_reads_a_mode_or_an_object_and_names_what_is_wrong() {
    let mode: Contracts = serde_json::from_value(json!("warn")).unwrap();
    assert_eq!(mode, Contracts::from(ContractMode::Warn));
    assert_eq!(serde_json::to_value(&mode).unwrap(), json!("warn"));
    let object: Contracts = serde_json::from_value(json!({"mode": "strict", "except": ["A12"]})).unwrap();
    assert_eq!(serde_json::to_value(&object).unwrap(), json!({"mode": "strict", "except": ["A12"]}));
    let unknown_rule: Contracts = serde_json::from_value(json!({"mode": "strict", "except": ["Z9"]})).unwrap();
    assert_eq!(unknown_rule.problem().unwrap().0, "except");
    let bad_cap: Contracts =
        serde_json::from_value(json!({"mode": "strict", "models": {"m": {"max_output_tokens": 0}}})).unwrap();
    assert_eq!(bad_cap.problem().unwrap().0, "models.m.max_output_tokens");
    assert!(serde_json::from_value::<Contracts>(json!(3)).unwrap_err().to_string().contains("not 3"));
    assert!(serde_json::from_value::<Contracts>(json!({"mode": "strict", "rules": []})).is_err());
}

/// Answers given earlier on the Responses endpoint, by id.
struct Answers(Vec<(&'static str, bool, Vec<&'static str>, bool)>);

impl History for Answers {
    fn response(&self, id: &str) -> Option<Issued> {
        let (_, stored, calls, reasoned) = self.0.iter().find(|(given, ..)| *given == id)?;
        Some(Issued { stored: *stored, call_ids: calls.iter().map(|c| c.to_string()).collect(), reasoned: *reasoned })
    }
}

fn responses_rule(body: Value, answers: &Answers) -> Option<(String, String)> {
    super::check("responses", &body, &strict(), answers).map(|v| (v.rule, v.message))
}

#[test]
fn previous_response_id_names_a_stored_answer_whose_calls_are_all_answered() {
    let answers = Answers(vec![("resp_1", true, vec!["call_1", "call_2"], false), ("resp_2", false, vec![], false)]);
    let output = |id: &str| json!({"type": "function_call_output", "call_id": id, "output": "sunny"});
    let chained =
        |previous: &str, input: Value| json!({"model": "gpt-4o", "previous_response_id": previous, "input": input});
    assert_eq!(responses_rule(chained("resp_1", json!([output("call_1"), output("call_2")])), &answers), None);
    assert_eq!(
        responses_rule(chained("resp_9", json!([])), &answers).unwrap(),
        ("R1".into(), "Previous response with id 'resp_9' not found.".into())
    );
    assert_eq!(responses_rule(chained("resp_2", json!("hi")), &answers).unwrap().0, "R1");
    assert_eq!(
        responses_rule(chained("resp_1", json!([output("call_1")])), &answers).unwrap(),
        ("R2".into(), "No tool output found for function call call_2.".into())
    );
}

#[test]
fn reasoning_items_travel_with_their_items_and_unstored_items_are_not_referenced() {
    let answers = Answers(vec![("resp_3", true, vec!["call_5"], true), ("resp_4", false, vec![], true)]);
    let reasoning = |n: u64| json!({"type": "reasoning", "id": format!("rs_{n}"), "summary": []});
    let call = json!({"type": "function_call", "id": "fc_3_0", "call_id": "call_5", "name": "f", "arguments": "{}"});
    let output = json!({"type": "function_call_output", "call_id": "call_5", "output": "x"});
    let body = |input: Value| json!({"model": "o4-mini", "input": input});
    assert_eq!(responses_rule(body(json!([reasoning(3), call.clone(), output.clone()])), &answers), None);
    assert_eq!(
        responses_rule(body(json!([call.clone(), output.clone()])), &answers).unwrap(),
        ("R4".into(), "Item 'fc_3_0' was provided without its required 'reasoning' item: 'rs_3'.".into())
    );
    assert_eq!(
        responses_rule(body(json!([{"role": "user", "content": "hi"}, reasoning(3)])), &answers).unwrap(),
        ("R4".into(), "Item 'rs_3' of type 'reasoning' was provided without its required following item.".into())
    );
    assert_eq!(
        responses_rule(
            body(json!([reasoning(4), {"type": "message", "id": "msg_4", "role": "assistant",
            "content": [{"type": "output_text", "text": "Hi."}]}])),
            &answers
        )
        .unwrap(),
        (
            "R5".into(),
            "Item with id 'rs_4' not found. Items are not persisted when `store` is set to false. Try again with \
             `store` set to true, or remove this item from your input."
                .into()
        )
    );
    // With its encrypted content, a reasoning item travels without being stored.
    let encrypted = json!({"type": "reasoning", "id": "rs_4", "summary": [], "encrypted_content": "gAAAA"});
    let message = json!({"type": "message", "id": "msg_4", "role": "assistant",
                         "content": [{"type": "output_text", "text": "Hi."}]});
    assert_eq!(responses_rule(body(json!([encrypted, message])), &answers), None);
    // Another server's ids are not this mock's to check.
    assert_eq!(responses_rule(body(json!([{"type": "reasoning", "id": "rs_68ab", "summary": []}])), &answers), None);
}

#[test]
fn image_sides_up_to_8000_pixels_and_2000_in_many_image_requests() {
    use base64::Engine;
    let png = |width: u32, height: u32| {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        bytes.extend_from_slice(&width.to_be_bytes());
        bytes.extend_from_slice(&height.to_be_bytes());
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png",
               "data": base64::engine::general_purpose::STANDARD.encode(bytes)}})
    };
    let ask = |images: Vec<Value>| anthropic_body(json!([{"role": "user", "content": images}]));
    assert_eq!(rule_of("messages", ask(vec![png(8000, 10)])), None);
    assert_eq!(
        rule_of("messages", ask(vec![png(10, 8001)])).unwrap(),
        (
            "A15".into(),
            "messages.0.content.0.image.source.base64.data: At least one of the image dimensions exceed max allowed \
             size: 8000 pixels"
                .into()
        )
    );
    let mut many: Vec<Value> = (0..21).map(|_| png(2000, 2000)).collect();
    assert_eq!(rule_of("messages", ask(many.clone())), None);
    many[20] = png(2001, 10);
    assert_eq!(
        rule_of("messages", ask(many)).unwrap().1,
        "messages.0.content.20.image.source.base64.data: At least one of the image dimensions exceed max allowed size \
         for many-image requests: 2000 pixels"
    );
}
