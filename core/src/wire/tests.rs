//! Wire encoders as bytes: the shapes the official SDKs depend on (`docs/concepts/wire.md`).

use super::*;
use crate::{MockModel, ProviderError, Step};
use serde_json::{json, Value};

fn body_json(reply: &HttpReply) -> Value {
    serde_json::from_str(&reply.body_text()).unwrap()
}

/// The `data:` payloads of an SSE body, with their event names.
fn sse(reply: &HttpReply) -> Vec<(Option<String>, String)> {
    let text = reply.body_text();
    assert!(text.ends_with("\n\n") || text.is_empty(), "every event ends with a blank line");
    text.split("\n\n")
        .filter(|e| !e.is_empty())
        .map(|e| {
            let mut name = None;
            let mut data = String::new();
            for line in e.lines() {
                if let Some(n) = line.strip_prefix("event: ") {
                    name = Some(n.to_string());
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data = d.to_string();
                }
            }
            (name, data)
        })
        .collect()
}

fn mock(steps: Vec<Step>) -> MockModel {
    let mock = MockModel::new();
    for step in steps {
        mock.add_step(step).unwrap();
    }
    mock
}

#[test]
fn chat_completion_whole_and_streamed() {
    let m = mock(vec![Step::text("Hello, world!").unwrap(), Step::tool_call("get_weather", &json!({"city": "Paris"}))]);
    let reply = handle(
        &m,
        &HttpRequest::post_json(
            "/v1/chat/completions",
            r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#,
        ),
    );
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let body = body_json(&reply);
    assert_eq!(body["object"], "chat.completion");
    assert_eq!(body["choices"][0]["message"]["content"], "Hello, world!");
    assert_eq!(body["choices"][0]["finish_reason"], "stop");
    let reply = handle(
        &m,
        &HttpRequest::post_json(
            "/v1/chat/completions",
            r#"{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}"#,
        ),
    );
    let events = sse(&reply);
    assert!(events.iter().all(|(name, _)| name.is_none()), "no event: lines on Chat Completions");
    assert_eq!(events.last().unwrap().1, "[DONE]");
    let chunks: Vec<Value> = events[..events.len() - 1].iter().map(|(_, d)| serde_json::from_str(d).unwrap()).collect();
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let heads: Vec<&Value> =
        chunks.iter().filter(|c| c["choices"][0]["delta"]["tool_calls"][0]["id"].is_string()).collect();
    assert_eq!(heads.len(), 1, "id and name only in the first tool-call delta");
    let args: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str())
        .collect();
    assert_eq!(args, r#"{"city":"Paris"}"#);
    assert!(chunks.iter().flat_map(|c| c["choices"].as_array().unwrap()).all(|c| c.get("index").is_some()));
    assert_eq!(
        chunks.iter().rev().find(|c| !c["choices"].as_array().unwrap().is_empty()).unwrap()["choices"][0]
            ["finish_reason"],
        "tool_calls"
    );
}

#[test]
fn anthropic_stream_has_named_events_in_order() {
    let m = mock(vec![Step::thinking_and_text("Let me think.", "Hi there").unwrap()]);
    let reply = handle(
        &m,
        &HttpRequest::post_json(
            "/v1/messages",
            r#"{"model":"claude","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}"#,
        ),
    );
    let names: Vec<String> = sse(&reply)
        .into_iter()
        .map(|(n, d)| {
            let data: Value = serde_json::from_str(&d).unwrap();
            assert_eq!(data["type"].as_str(), n.as_deref(), "the data carries the event's type");
            n.unwrap()
        })
        .collect();
    assert_eq!(names.first().map(String::as_str), Some("message_start"));
    assert_eq!(names.last().map(String::as_str), Some("message_stop"));
    assert_eq!(names.iter().filter(|n| *n == "content_block_start").count(), 2);
    assert!(names.contains(&"message_delta".to_string()));
}

#[test]
fn responses_stream_numbers_every_event_and_completes_with_the_whole_response() {
    let m = mock(vec![Step::text("Hi there!").unwrap()]);
    let reply =
        handle(&m, &HttpRequest::post_json("/v1/responses", r#"{"model":"gpt-4.1","input":"hi","stream":true}"#));
    let events: Vec<Value> = sse(&reply).into_iter().map(|(_, d)| serde_json::from_str(&d).unwrap()).collect();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["sequence_number"], i);
    }
    assert_eq!(events[0]["type"], "response.created");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "response.completed");
    assert_eq!(last["response"]["output"][0]["content"][0]["text"], "Hi there!");
}

/// The Responses encoder writes serde structs whose fields must be declared in sorted order to give the bytes a
/// `Value` gives (`openai_responses/objects.rs`): every event of every kind, and the whole response, re-read as a
/// `Value` and written again, must come out byte for byte as sent.
#[test]
fn every_responses_frame_is_written_in_sorted_key_order() {
    let scenario = json!({"cuecard": 1, "routes": [{"steps": [
        {"thinking": "Plan first.", "text": "Hello, \"world\"!", "usage": {"cached_tokens": 3, "input_tokens": 10, "output_tokens": 4}},
        {"text": "Let me check.", "tool_calls": [{"arguments": {"city": "Paris"}, "name": "get_weather"}, {"name": "now"}]},
        {"refusal": "I can't help with that."},
        {"text": "cut short", "finish_reason": "content_filter"},
        {"text": "partial", "fail_after": {"kind": "rate_limited"}, "fail_after_as": "error_event"},
    ]}]});
    let mut kinds = std::collections::BTreeSet::new();
    for stream in [true, false] {
        let m = MockModel::from_scenario(&crate::Scenario::from_value(scenario.clone()).unwrap()).unwrap();
        let body = json!({"model": "gpt-4.1", "input": "hi", "stream": stream, "previous_response_id": "resp_0",
            "max_output_tokens": 50, "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]});
        for _ in 0..5 {
            let reply = handle(&m, &HttpRequest::post_json("/v1/responses", &body.to_string()));
            let datas =
                if stream { sse(&reply).into_iter().map(|(_, d)| d).collect() } else { vec![reply.body_text()] };
            for data in datas {
                let value: Value = serde_json::from_str(&data).unwrap();
                assert_eq!(serde_json::to_string(&value).unwrap(), data, "not in sorted key order");
                kinds.insert(value["type"].as_str().unwrap_or("whole response").to_string());
            }
        }
    }
    // Every kind of event the encoder writes was among them.
    for kind in [
        "created",
        "in_progress",
        "output_item.added",
        "output_item.done",
        "content_part.added",
        "content_part.done",
        "output_text.delta",
        "output_text.done",
        "refusal.delta",
        "refusal.done",
        "reasoning_summary_part.added",
        "reasoning_summary_part.done",
        "reasoning_summary_text.delta",
        "reasoning_summary_text.done",
        "function_call_arguments.delta",
        "function_call_arguments.done",
        "completed",
        "incomplete",
    ] {
        assert!(kinds.contains(&format!("response.{kind}")), "no response.{kind} event among {kinds:?}");
    }
    assert!(kinds.contains("error") && kinds.contains("whole response"), "{kinds:?}");
}

#[test]
fn failures_carry_status_headers_and_the_provider_body() {
    let m = mock(vec![
        Step::fail(ProviderError::rate_limited().with_retry_after_ms(1500)),
        Step::fail(ProviderError::overloaded()),
        Step::fail(ProviderError::connection_reset()),
    ]);
    let chat = r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#;
    let reply = handle(&m, &HttpRequest::post_json("/v1/chat/completions", chat));
    assert_eq!(reply.status(), 429);
    assert_eq!(reply.header("retry-after-ms"), Some("1500"));
    assert_eq!(reply.header("retry-after"), Some("2"));
    assert_eq!(reply.header("x-should-retry"), Some("true"));
    assert_eq!(reply.header("x-request-id"), Some("req_1"));
    assert_eq!(body_json(&reply)["error"]["code"], "rate_limit_exceeded");
    let reply = handle(
        &m,
        &HttpRequest::post_json(
            "/v1/messages",
            r#"{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}"#,
        ),
    );
    assert_eq!(reply.status(), 529);
    assert_eq!(body_json(&reply)["error"]["type"], "overloaded_error");
    assert_eq!(reply.header("request-id"), Some("req_2"));
    assert_eq!(handle(&m, &HttpRequest::post_json("/v1/chat/completions", chat)), HttpReply::Abort { delay_ms: 0 });
}

#[test]
fn bad_requests_unknown_paths_and_exhaustion_are_journaled_provider_errors() {
    let m = mock(vec![]);
    let reply = handle(&m, &HttpRequest::post_json("/v1/chat/completions", "{not json"));
    assert_eq!(reply.status(), 400);
    assert!(body_json(&reply)["error"]["message"].as_str().unwrap().contains("not valid JSON"));
    let reply = handle(&m, &HttpRequest::post_json("/v1/chat/completions", r#"{"messages":[]}"#));
    assert_eq!(body_json(&reply)["error"]["message"], "request.model is required");
    let reply = handle(&m, &HttpRequest::post_json("/v1/nope", "{}"));
    assert_eq!(reply.status(), 404);
    let reply = handle(
        &m,
        &HttpRequest::post_json("/v1/chat/completions", r#"{"model":"m","messages":[{"role":"user","content":"x"}]}"#),
    );
    assert_eq!(reply.status(), 422, "a test bug, which no client retries");
    assert_eq!(reply.header("x-should-retry"), Some("false"));
    assert_eq!(body_json(&reply)["error"]["code"], "script_exhausted");
    let outcomes: Vec<String> = m.entries().iter().map(|e| e.outcome.describe()).collect();
    assert_eq!(outcomes.len(), 4);
    assert!(outcomes[0].starts_with("rejected: the request body is not valid JSON"));
    assert_eq!(outcomes[3], "exhausted");
}

#[test]
fn admin_loads_a_scenario_and_reads_the_journal() {
    let m = MockModel::new();
    let mut put =
        HttpRequest::post_json("/_cuecard/scenario", r#"{"cuecard":1,"routes":[{"steps":[{"text":"loaded"}]}]}"#);
    put.method = "PUT".into();
    assert_eq!(handle(&m, &put).status(), 200);
    let reply = handle(
        &m,
        &HttpRequest::post_json("/chat/completions", r#"{"model":"m","messages":[{"role":"user","content":"x"}]}"#)
            .with_header("x-cuecard-operation", "op"),
    );
    assert_eq!(body_json(&reply)["choices"][0]["message"]["content"], "loaded");
    let journal =
        handle(&m, &HttpRequest { method: "GET".into(), path: "/_cuecard/journal".into(), ..HttpRequest::default() });
    let journal = body_json(&journal);
    assert_eq!(journal["count"], 1);
    assert_eq!(journal["entries"][0]["request"]["metadata"]["operation"], "op");
    assert_eq!(journal["entries"][0]["request"]["metadata"]["endpoint"], "chat_completions");
    let mut bad = put.clone();
    bad.body = br#"{"cuecard":1,"routes":[{"steps":[{"txt":"a"}]}]}"#.to_vec();
    let reply = handle(&m, &bad);
    assert_eq!(reply.status(), 400);
    assert_eq!(body_json(&reply)["error"]["issues"][0]["path"], "routes[0].steps[0].txt");
}

#[test]
fn embeddings_are_deterministic_unit_vectors_in_both_encodings() {
    let m = MockModel::new();
    let req = |fmt: &str| {
        HttpRequest::post_json(
            "/v1/embeddings",
            &format!(r#"{{"model":"e","input":["a","b"],"dimensions":4,"encoding_format":"{fmt}"}}"#),
        )
    };
    let floats = body_json(&handle(&m, &req("float")));
    let v: Vec<f64> = floats["data"][0]["embedding"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
    assert_eq!(v.len(), 4);
    assert!((v.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-5);
    let b64 = body_json(&handle(&m, &req("base64")));
    let bytes = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        b64["data"][0]["embedding"].as_str().unwrap(),
    )
    .unwrap();
    let decoded: Vec<f64> = bytes.chunks(4).map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect();
    assert_eq!(decoded, v);
    assert_ne!(floats["data"][0]["embedding"], floats["data"][1]["embedding"]);
}

#[test]
fn embedding_work_is_capped_with_a_provider_shaped_400_that_is_journaled() {
    let m = MockModel::new();
    let ask = |inputs: usize, dimensions: usize| {
        let input: Vec<String> = (0..inputs).map(|i| format!("text {i}")).collect();
        let body = json!({"model": "e", "input": input, "dimensions": dimensions}).to_string();
        handle(&m, &HttpRequest::post_json("/v1/embeddings", &body))
    };
    let too_much = ask(1000, 8192);
    assert_eq!(too_much.status(), 400);
    let message = body_json(&too_much)["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("1000 inputs x 8192 dimensions = 8192000 values"), "{message}");
    assert_eq!(ask(2049, 1).status(), 400, "more inputs than OpenAI allows");
    assert_eq!(ask(128, 8192).status(), 200, "exactly the cap is answered");
    assert_eq!(m.request_count(), 3, "refused requests are journaled too");
}

#[test]
fn the_paths_that_may_take_long_are_the_admin_surface_and_embeddings() {
    for path in ["/_cuecard/journal", "/v1/_cuecard/scenario", "/v1/embeddings", "/embeddings/", "/v1/embeddings/"] {
        assert!(may_take_long(path), "{path}");
    }
    for path in ["/v1/chat/completions", "/v1/messages", "/v1/models", "/v1/embeddings-x", "/other/embeddings"] {
        assert!(!may_take_long(path), "{path}");
    }
}

#[test]
fn the_journal_is_read_in_pages() {
    let m = mock(vec![Step::text("ok").unwrap()]);
    m.then_repeats().unwrap();
    for _ in 0..5 {
        handle(
            &m,
            &HttpRequest::post_json(
                "/v1/chat/completions",
                r#"{"model":"m","messages":[{"role":"user","content":"x"}]}"#,
            ),
        );
    }
    let page = |query: &str| {
        let mut request = HttpRequest::new("GET", "/_cuecard/journal", Vec::new(), Vec::new());
        request.query = query.to_string();
        handle(&m, &request)
    };
    let first = body_json(&page("limit=2"));
    let indexes = |doc: &Value| {
        doc["entries"].as_array().unwrap().iter().map(|e| e["index"].as_u64().unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(
        (indexes(&first), first["next_after"].clone(), first["count"].clone()),
        (vec![0, 1], json!(1), json!(5))
    );
    let next = body_json(&page("after=1&limit=2"));
    assert_eq!((indexes(&next), next["next_after"].clone()), (vec![2, 3], json!(3)));
    let last = body_json(&page("after=3&limit=10"));
    assert_eq!((indexes(&last), last["next_after"].clone()), (vec![4], Value::Null));
    assert_eq!(indexes(&body_json(&page(""))).len(), 5, "without a query, the whole journal as before");
    let refused = page("after=-1");
    assert_eq!(refused.status(), 400);
    assert!(body_json(&refused)["error"]["message"].as_str().unwrap().contains("after=-1 is not one"));
    assert_eq!(page("offset=3").status(), 400);
}

#[test]
fn the_admin_surface_says_which_content_types_a_scenario_takes() {
    let m = MockModel::new();
    let put = |content_type: Option<&str>, body: &str| {
        let mut request = HttpRequest::new("PUT", "/_cuecard/scenario", Vec::new(), body.as_bytes().to_vec());
        if let Some(c) = content_type {
            request = request.with_header("content-type", c);
        }
        handle(&m, &request)
    };
    let yaml = "cuecard: 1\nroutes:\n  - steps: [Hello]\n";
    assert_eq!(put(None, yaml).status(), 200, "without a content type, YAML is recognised");
    assert_eq!(put(Some("application/yaml"), yaml).status(), 200);
    let refused = put(Some("text/plain"), yaml);
    assert_eq!(refused.status(), 415);
    let error = &body_json(&refused)["error"];
    assert_eq!(error["code"], "invalid_scenario");
    assert_eq!(
        error["message"],
        "a scenario is sent as application/json or application/yaml (also text/yaml, application/x-yaml), not text/plain"
    );
    let garbage = put(None, "this is not a scenario");
    assert_eq!(garbage.status(), 400);
    let message = body_json(&garbage)["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("send a JSON or YAML scenario as application/json or application/yaml"), "{message}");
    let bad_field = put(Some("application/json"), r#"{"cuecard": 1, "routes": [{"steps": [{"txt": "a"}]}]}"#);
    assert_eq!(body_json(&bad_field)["error"]["issues"][0]["path"], "routes[0].steps[0].txt");
}

#[test]
fn request_ids_come_from_the_journal_index_of_each_request() {
    let m = mock(vec![Step::text("a").unwrap()]);
    let bad = handle(&m, &HttpRequest::post_json("/v1/chat/completions", "{"));
    assert_eq!(bad.header("x-request-id"), Some("req_1"));
    let ok = handle(&m, &HttpRequest::post_json("/v1/chat/completions", r#"{"model":"m","messages":[]}"#));
    assert_eq!(ok.header("x-request-id"), Some("req_2"));
    let models = handle(&m, &HttpRequest::new("GET", "/v1/models?x=1", Vec::new(), Vec::new()));
    assert_eq!(models.header("x-request-id"), Some("req_3"));
    assert_eq!(m.request_count(), 3);
}

#[test]
fn responses_item_references_resolve_from_the_journal_and_unknown_ones_stay_visible() {
    let m = mock(vec![
        Step::thinking_and_text("Think first.", "First answer.").unwrap(),
        Step::tool_call("lookup", &json!({"q": 1})),
        Step::text("Done.").unwrap(),
    ]);
    handle(&m, &HttpRequest::post_json("/v1/responses", r#"{"model":"gpt-4o","input":"hi"}"#));
    handle(&m, &HttpRequest::post_json("/v1/responses", r#"{"model":"gpt-4o","input":"next"}"#));
    let follow_up = json!({"model": "gpt-4o", "input": [
        {"role": "user", "content": "hi"},
        {"type": "item_reference", "id": "rs_1"},
        {"type": "item_reference", "id": "msg_1"},
        {"type": "item_reference", "id": "fc_2_0"},
        {"type": "function_call_output", "call_id": "call_1", "output": "42"},
        {"type": "item_reference", "id": "msg_99"},
    ]});
    let reply = handle(&m, &HttpRequest::post_json("/v1/responses", &follow_up.to_string()));
    assert_eq!(reply.status(), 200);
    let messages = &m.entries()[2].request.messages;
    assert_eq!(messages[1].thinking.as_deref(), Some("Think first."));
    assert_eq!(messages[2].text(), "First answer.");
    assert_eq!(messages[3].tool_calls[0].name, "lookup");
    assert_eq!(messages[3].tool_calls[0].id, "call_1");
    assert_eq!(messages[4].tool_call_id.as_deref(), Some("call_1"));
    assert_eq!(messages[5].name.as_deref(), Some("item_reference:msg_99"), "an id cuecard did not issue stays visible");
}

#[test]
fn the_admin_surface_refuses_web_pages_foreign_hosts_and_post() {
    let m = MockModel::new();
    let scenario = r#"{"cuecard":1,"routes":[{"steps":[{"text":"loaded"}]}]}"#;
    let put = || {
        HttpRequest::new("PUT", "/_cuecard/scenario", Vec::new(), scenario.as_bytes().to_vec())
            .with_header("content-type", "application/json")
    };
    assert_eq!(handle(&m, &put().with_header("host", "127.0.0.1:8080")).status(), 200);
    assert_eq!(handle(&m, &put().with_header("host", "localhost")).status(), 200);
    assert_eq!(handle(&m, &put().with_header("host", "[::1]:9")).status(), 200);
    let from_page = handle(&m, &put().with_header("origin", "https://evil.example"));
    assert_eq!(from_page.status(), 403);
    assert!(body_json(&from_page)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("Origin header (https://evil.example)"));
    let rebound = handle(&m, &put().with_header("host", "evil.example:8080"));
    assert_eq!(rebound.status(), 403);
    let journal = HttpRequest { method: "GET".into(), path: "/_cuecard/journal".into(), ..HttpRequest::default() };
    assert_eq!(handle(&m, &journal.clone().with_header("host", "attacker.test")).status(), 403, "the journal too");
    assert_eq!(handle(&m, &journal.with_header("host", "127.0.0.1:1")).status(), 200);
    let mut post = put();
    post.method = "POST".into();
    assert_eq!(handle(&m, &post).status(), 405, "POST is what a page sends without a preflight");
    // The model endpoints take any Origin: browsers calling the mock in-page are a use case.
    let chat =
        HttpRequest::post_json("/v1/chat/completions", r#"{"model":"m","messages":[{"role":"user","content":"x"}]}"#)
            .with_header("origin", "https://app.example");
    assert_eq!(handle(&m, &chat).status(), 200);
}

#[test]
fn anthropic_messages_require_max_tokens_as_anthropic_does() {
    let m = mock(vec![Step::text("never").unwrap()]);
    let reply = handle(
        &m,
        &HttpRequest::post_json("/v1/messages", r#"{"model":"c","messages":[{"role":"user","content":"x"}]}"#),
    );
    assert_eq!(reply.status(), 400);
    let message = body_json(&reply)["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("max_tokens: Field required"), "{message}");
    assert_eq!(m.entries()[0].outcome.describe(), "rejected: request.max_tokens: Field required", "journaled once");
}

#[test]
fn oversized_bodies_are_413_on_the_admin_surface_too_and_the_message_names_the_limit() {
    let m = mock(vec![Step::text("x").unwrap()]);
    let big = vec![b' '; MAX_BODY_BYTES + 1];
    let admin = handle(
        &m,
        &HttpRequest::new("PUT", "/_cuecard/scenario", Vec::new(), big.clone())
            .with_header("content-type", "application/json"),
    );
    assert_eq!(admin.status(), 413);
    assert_eq!(body_json(&admin)["error"]["code"], "request_too_large");
    let chat = handle(&m, &HttpRequest::new("POST", "/v1/chat/completions", Vec::new(), big));
    assert_eq!(chat.status(), 413);
    let message = body_json(&chat)["error"]["message"].as_str().unwrap().to_string();
    assert_eq!(message, "the request body is larger than the limit of 33554432 bytes (32 MiB)");
}

#[test]
fn anthropic_streams_no_argument_text_for_an_empty_input_however_it_was_written() {
    for arguments in ["{}", "{ }", " {\n} "] {
        let m = mock(vec![Step::tool_call_json("now", arguments)]);
        let body = r#"{"model":"c","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"x"}]}"#;
        let reply = handle(&m, &HttpRequest::post_json("/v1/messages", body));
        let partials: Vec<String> = sse(&reply)
            .into_iter()
            .filter_map(|(_, d)| serde_json::from_str::<Value>(&d).ok())
            .filter_map(|d| d["delta"]["partial_json"].as_str().map(str::to_string))
            .collect();
        assert!(!partials.is_empty() && partials.iter().all(String::is_empty), "{arguments:?}: {partials:?}");
    }
}

/// The whole journal written in pieces is, put together, the document `journal_document` gives, byte for byte,
/// for any page size; a reader that goes away stops the writing.
#[test]
fn the_journal_written_in_pieces_is_the_whole_document() {
    let written = |mock: &MockModel, page: usize| {
        let mut pieces = Vec::new();
        write_journal_document(mock, page, |piece| {
            pieces.push(piece);
            true
        });
        pieces
    };
    let empty = MockModel::new();
    let whole = serde_json::to_string(&journal_document(&empty)).unwrap();
    assert_eq!(written(&empty, 10).concat(), whole.as_bytes());

    let mock = mock(vec![Step::text("one").unwrap(), Step::fail(ProviderError::rate_limited())]);
    for text in ["a", "b", "c", "d", "e"] {
        let _ = mock.chat(crate::ChatRequest::user("m", text));
    }
    let whole = serde_json::to_string(&journal_document(&mock)).unwrap();
    for page in [1, 2, 3, 5, 1000] {
        let pieces = written(&mock, page);
        assert_eq!(pieces.concat(), whole.as_bytes(), "page {page}");
        assert_eq!(pieces.len(), 5usize.div_ceil(page) + 1, "page {page}: the entries a page at a time, then the end");
    }
    let mut asked = 0;
    write_journal_document(&mock, 1, |_| {
        asked += 1;
        asked < 2
    });
    assert_eq!(asked, 2, "no piece after the reader went away");
}

/// `/v1/_cuecard/...` is not the admin surface: an unknown path, answered 404 with a hint and journaled once as
/// rejected, where `/_cuecard/...` is answered and not journaled.
#[test]
fn admin_paths_under_v1_are_unknown_paths_and_journaled() {
    let m = MockModel::new();
    let get = |path: &str| handle(&m, &HttpRequest::new("GET", path, Vec::new(), Vec::new()));
    let reply = get("/v1/_cuecard/journal");
    assert_eq!(reply.status(), 404);
    assert!(
        reply.body_text().contains("the admin endpoints are under /_cuecard/, without /v1"),
        "{}",
        reply.body_text()
    );
    assert_eq!(m.request_count(), 1, "journaled");
    let entry = m.entry(0).unwrap();
    assert!(matches!(entry.outcome, crate::journal::Outcome::Rejected { .. }), "{:?}", entry.outcome);
    assert_eq!(entry.raw.as_ref().map(|r| &*r.path), Some("/v1/_cuecard/journal"));
    assert_eq!(get("/_cuecard/journal").status(), 200);
    assert_eq!(get("/_cuecard/nope").status(), 404);
    assert_eq!(m.request_count(), 1, "the admin surface itself is not journaled");
}

#[test]
fn a_responses_reply_echoes_store_and_previous_response_id_as_the_api_does() {
    let m = mock(vec![Step::text("ok").unwrap()]);
    m.then_repeats().unwrap();
    let ask = |body: &str| body_json(&handle(&m, &HttpRequest::post_json("/v1/responses", body)));
    let stored = ask(r#"{"model":"gpt-4o","input":"hi"}"#);
    assert_eq!((stored["store"].clone(), stored["previous_response_id"].clone()), (json!(true), json!(null)));
    let chained = ask(r#"{"model":"gpt-4o","input":"again","store":false,"previous_response_id":"resp_1"}"#);
    assert_eq!((chained["store"].clone(), chained["previous_response_id"].clone()), (json!(false), json!("resp_1")));
    let wrong = handle(&m, &HttpRequest::post_json("/v1/responses", r#"{"model":"gpt-4o","input":"x","store":"no"}"#));
    assert_eq!(wrong.status(), 400);
}
