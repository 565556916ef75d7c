//! The MCP engine and transports against the checklist of `../shared/spec/mcp.md` §9 (numbers in the test names'
//! comments), and the checks.

use super::*;
use crate::verify::{run_check, Check};
use crate::wire::{handle, HttpReply, HttpRequest};
use crate::{MockModel, Scenario};
use serde_json::json;
use serde_json::Value;

fn mock() -> MockModel {
    let scenario = json!({"cuecard": 1, "routes": [{"steps": [{"text": "The forecast is sunny."}]}], "mcp": {"servers": [
        {"name": "weather", "instructions": "Weather tools", "page_size": 1, "tools": [
            {"name": "get_forecast", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
             "steps": [
                {"match": {"arguments": {"city": "Paris"}}, "text": "22 °C, sunny"},
                {"structured": {"temp_c": 22}},
                {"is_error": true, "text": "city not found"},
                {"error": {"code": -32603, "message": "backend down"}},
                {"progress": [0.5, 1.0], "delay_ms": 200, "text": "done"},
                {"drop_connection": true}]},
            {"name": "get_time", "steps": [{"text": "noon"}], "on_exhausted": "repeat_last"}],
         "resources": [{"uri": "file:///notes.txt", "text": "milk"}],
         "prompts": [{"name": "summarize", "arguments": [{"name": "topic", "required": true}],
                      "messages": [{"role": "user", "text": "Summarize {{topic}}"}]}]},
        {"name": "second", "tools": [{"name": "t", "steps": [{"text": "x"}]}]}]}});
    MockModel::from_scenario(&Scenario::from_value(scenario).unwrap()).unwrap()
}

fn rpc(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn post(mock: &MockModel, session: Option<&str>, body: &str) -> HttpReply {
    let mut request = HttpRequest::post_json("/mcp", body)
        .with_header("content-type", "application/json")
        .with_header("accept", "application/json, text/event-stream");
    if let Some(session) = session {
        request = request.with_header("mcp-session-id", session).with_header("mcp-protocol-version", "2025-06-18");
    }
    handle(mock, &request)
}

fn body(reply: &HttpReply) -> Value {
    serde_json::from_str(&reply.body_text()).unwrap()
}

/// Initializes over HTTP and returns the session id.
fn initialize(mock: &MockModel, version: &str) -> (String, Value) {
    let reply = post(
        mock,
        None,
        &rpc(
            0,
            "initialize",
            json!({"protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}),
        ),
    );
    assert_eq!(reply.status(), 200);
    let session = reply.header("mcp-session-id").unwrap().to_string();
    (session, body(&reply))
}

#[test]
fn initialize_echoes_a_served_version_and_answers_the_newest_to_others() {
    // §9.1
    let mock = mock();
    for (asked, agreed) in [
        ("2025-06-18", "2025-06-18"),
        ("2024-11-05", "2024-11-05"),
        ("2026-07-28", "2025-11-25"),
        ("1.0.0", "2025-11-25"),
    ] {
        let (_, body) = initialize(&mock, asked);
        assert_eq!(body["result"]["protocolVersion"], agreed, "asked {asked}");
    }
    // §9.4: what every client requires is there.
    let (session, body) = initialize(&mock, "2025-11-25");
    assert_eq!(session, "cuecard-mcp-5");
    let result = &body["result"];
    assert_eq!(result["serverInfo"], json!({"name": "weather", "version": "1.0.0"}));
    assert_eq!(result["instructions"], "Weather tools");
    assert_eq!(result["capabilities"]["tools"], json!({"listChanged": false}));
    assert!(result["capabilities"]["resources"].is_object() && result["capabilities"]["prompts"].is_object());
}

#[test]
fn notifications_are_never_answered_on_either_transport() {
    // §9.2, §9.15
    let mock = mock();
    let (session, _) = initialize(&mock, "2025-11-25");
    for method in ["notifications/initialized", "notifications/cancelled", "notifications/whatever", "initialized"] {
        let reply = post(&mock, Some(&session), &json!({"jsonrpc": "2.0", "method": method}).to_string());
        assert_eq!(
            (reply.status(), reply.body_text().as_str(), reply.header("content-type")),
            (202, "", None),
            "{method}"
        );
    }
    let mut stdio = StdioSession::new(&mock, None).unwrap();
    let out = stdio.handle_line(&mock, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!(out, StdioOutput::default());
    let entries = mock.mcp_entries();
    assert_eq!(entries.iter().filter(|e| e.method.contains("initialized")).count(), 3);
    assert!(entries.iter().all(|e| !e.is_unexpected()), "notifications are expected: {entries:?}");
}

#[test]
fn ids_keep_their_type_and_an_unreadable_one_is_answered_with_null() {
    // §9.3
    let mock = mock();
    let mut stdio = StdioSession::new(&mock, None).unwrap();
    let line = |stdio: &mut StdioSession, text: &str| -> Value {
        let out = stdio.handle_line(&mock, text);
        assert_eq!(out.lines.len(), 1, "{text}");
        assert!(!out.lines[0].1.contains('\n'), "§9.12: one line per message");
        serde_json::from_str(&out.lines[0].1).unwrap()
    };
    assert_eq!(line(&mut stdio, r#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#)["id"], json!("1"));
    assert_eq!(line(&mut stdio, r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#)["id"], json!(7));
    let null_id = line(&mut stdio, r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
    assert_eq!((null_id["id"].clone(), null_id["error"]["code"].clone()), (Value::Null, json!(-32600)));
    let parse = line(&mut stdio, "{not json\r");
    assert_eq!((parse["id"].clone(), parse["error"]["code"].clone()), (Value::Null, json!(-32700)));
    let batch = line(&mut stdio, r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    assert!(batch["error"]["message"].as_str().unwrap().contains("batch"));
}

#[test]
fn stdio_refuses_requests_before_initialize_but_answers_ping_and_discover() {
    // §9.7, and the reference server's -32602 before initialization
    let mock = mock();
    let mut stdio = StdioSession::new(&mock, Some("weather")).unwrap();
    let answer = |stdio: &mut StdioSession, text: String| -> Value {
        serde_json::from_str(&stdio.handle_line(&mock, &text).lines[0].1).unwrap()
    };
    assert_eq!(answer(&mut stdio, rpc(1, "tools/list", json!({})))["error"]["code"], -32602);
    assert_eq!(answer(&mut stdio, rpc(2, "ping", json!({})))["result"], json!({}));
    // Discovery needs no handshake: it lists the stateless revision first, then the handshake ones (issue #54).
    let discover = answer(&mut stdio, rpc(3, "server/discover", json!({})));
    assert_eq!(
        discover["result"]["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
    );
    answer(&mut stdio, rpc(4, "initialize", json!({"protocolVersion": "2025-03-26"})));
    assert_eq!(answer(&mut stdio, rpc(5, "tools/list", json!({})))["result"]["tools"][0]["name"], "get_forecast");
    assert!(StdioSession::new(&mock, Some("nope")).unwrap_err().to_string().contains("weather, second"));
}

#[test]
fn tool_steps_answer_in_order_with_matches_and_every_kind() {
    // §9.5, §9.6
    let mock = mock();
    let (session, _) = initialize(&mock, "2025-11-25");
    let call = |id: u64, arguments: Value| {
        post(&mock, Some(&session), &rpc(id, "tools/call", json!({"name": "get_forecast", "arguments": arguments})))
    };
    // London does not match the first step (Paris), so it takes the second: structured, with its text mirror.
    let london = body(&call(1, json!({"city": "London"})));
    assert_eq!(
        london["result"],
        json!({"content": [{"type": "text", "text": "{\"temp_c\":22}"}], "structuredContent": {"temp_c": 22}, "isError": false})
    );
    assert_eq!(body(&call(2, json!({"city": "Paris"})))["result"]["content"][0]["text"], "22 °C, sunny");
    assert_eq!(body(&call(3, json!({})))["result"]["isError"], true);
    assert_eq!(body(&call(4, json!({})))["error"], json!({"code": -32603, "message": "backend down"}));
    // Without a progressToken, no progress: a JSON answer after the whole delay.
    match call(5, json!({})) {
        HttpReply::Full { delay_ms, headers, .. } => {
            assert_eq!(delay_ms, 200);
            assert_eq!(headers[0], ("content-type".into(), "application/json".into()));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(call(6, json!({})), HttpReply::Abort { delay_ms: 0 }));
    let exhausted = body(&call(7, json!({})));
    assert!(exhausted["error"]["message"].as_str().unwrap().contains("all 6 of its steps were used"), "{exhausted}");
    let unknown = body(&post(&mock, Some(&session), &rpc(8, "tools/call", json!({"name": "get_wether"}))));
    assert_eq!(unknown["error"], json!({"code": -32602, "message": "Unknown tool: get_wether"}));
    // repeat_last keeps answering.
    for id in 9..12 {
        let reply = post(&mock, Some(&session), &rpc(id, "tools/call", json!({"name": "get_time"})));
        assert_eq!(body(&reply)["result"]["content"][0]["text"], "noon");
    }
    let outcomes: Vec<String> = mock.mcp_entries().iter().map(|e| e.outcome.describe()).collect();
    assert_eq!(&outcomes[7..9], ["exhausted", "unmatched"]);
    let dropped = &mock.mcp_entries()[6];
    assert!(dropped.dropped_connection && dropped.result.is_none());
}

#[test]
fn progress_goes_before_the_answer_on_an_sse_stream_to_a_client_that_asked() {
    // §9.9, §9.19
    let mock = mock();
    let (session, _) = initialize(&mock, "2025-11-25");
    for id in 1..5 {
        post(
            &mock,
            Some(&session),
            &rpc(id, "tools/call", json!({"name": "get_forecast", "arguments": {"city": "Paris"}})),
        );
    }
    let reply = post(
        &mock,
        Some(&session),
        &rpc(5, "tools/call", json!({"name": "get_forecast", "_meta": {"progressToken": "p1"}})),
    );
    let HttpReply::Stream { headers, frames, .. } = &reply else { panic!("{reply:?}") };
    assert_eq!(headers[0], ("content-type".into(), "text/event-stream".into()));
    let frames = frames.to_vec();
    let delays: Vec<u64> = frames.iter().map(|f| f.delay_ms).collect();
    assert_eq!(delays, [66, 67, 67], "progress spread over the 200 ms");
    for frame in &frames {
        assert!(frame.data.starts_with("event: message\ndata: {") && frame.data.ends_with("}\n\n"), "{:?}", frame.data);
    }
    let message = |i: usize| -> Value {
        serde_json::from_str(frames[i].data.strip_prefix("event: message\ndata: ").unwrap().trim()).unwrap()
    };
    assert_eq!(message(0)["params"], json!({"progressToken": "p1", "progress": 0.5, "total": 1.0}));
    assert_eq!(message(1)["params"]["progress"], 1.0);
    assert_eq!(message(2)["result"]["content"][0]["text"], "done");
    assert_eq!(mock.clock_ms(), 200, "the delay passed on the virtual clock");
}

#[test]
fn the_http_transport_keeps_sessions_origins_and_methods_as_the_spec_says() {
    // §9.16, §9.17, §9.18, §9.20, §9.21
    let mock = mock();
    // The initialize POST needs no session and no version header, and tolerates any version header.
    let init = HttpRequest::post_json("/mcp", &rpc(0, "initialize", json!({"protocolVersion": "2025-11-25"})))
        .with_header("mcp-protocol-version", "2099-01-01");
    let reply = handle(&mock, &init);
    assert_eq!(reply.status(), 200);
    let session = reply.header("mcp-session-id").unwrap().to_string();
    assert!(session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    // Only initialize mints one.
    assert_eq!(post(&mock, Some(&session), &rpc(1, "ping", json!({}))).header("mcp-session-id"), None);
    assert_eq!(post(&mock, None, &rpc(2, "tools/list", json!({}))).status(), 400);
    assert_eq!(post(&mock, Some("cuecard-mcp-99"), &rpc(3, "tools/list", json!({}))).status(), 404);
    let bad_version = HttpRequest::post_json("/mcp", &rpc(4, "tools/list", json!({})))
        .with_header("mcp-session-id", &session)
        .with_header("mcp-protocol-version", "2099-01-01");
    assert_eq!(handle(&mock, &bad_version).status(), 400);
    let get =
        handle(&mock, &HttpRequest::new("GET", "/mcp", vec![("accept".into(), "text/event-stream".into())], vec![]));
    assert_eq!((get.status(), get.header("allow")), (405, Some("POST, DELETE")));
    for (origin, status) in
        [("http://localhost:3000", 200), ("http://127.0.0.1:8080", 200), ("https://evil.example", 403)]
    {
        let request = HttpRequest::post_json("/mcp", &rpc(5, "ping", json!({}))).with_header("origin", origin);
        assert_eq!(handle(&mock, &request).status(), status, "{origin}");
    }
    let text = HttpRequest::post_json("/mcp", "{}").with_header("content-type", "text/plain");
    assert_eq!(handle(&mock, &text).status(), 415);
    assert_eq!(handle(&mock, &HttpRequest::post_json("/mcp", "{oops")).status(), 400);
    let delete =
        |s: &str| handle(&mock, &HttpRequest::new("DELETE", "/mcp", vec![("mcp-session-id".into(), s.into())], vec![]));
    assert_eq!(delete(&session).status(), 200);
    assert_eq!(delete(&session).status(), 404);
    assert_eq!(post(&mock, Some(&session), &rpc(6, "ping", json!({}))).status(), 404);
    // A session belongs to its server.
    let second = handle(
        &mock,
        &HttpRequest::post_json("/mcp/second", &rpc(0, "initialize", json!({"protocolVersion": "2025-11-25"}))),
    );
    let second_session = second.header("mcp-session-id").unwrap().to_string();
    assert_eq!(body(&second)["result"]["serverInfo"]["name"], "second");
    let wrong = HttpRequest::post_json("/mcp/weather", &rpc(1, "ping", json!({})))
        .with_header("mcp-session-id", &second_session);
    assert_eq!(handle(&mock, &wrong).status(), 404);
    let unknown = handle(&mock, &HttpRequest::post_json("/mcp/nope", &rpc(0, "ping", json!({}))));
    assert_eq!(unknown.status(), 404);
    assert!(unknown.body_text().contains("weather, second"));
    // Every request journaled once, in the MCP journal (but the foreign page's, refused before it; issue #59
    // S2); none in the model's.
    assert_eq!(mock.mcp_entries().len(), 16);
    assert_eq!(mock.request_count(), 0);
}

#[test]
fn lists_page_with_opaque_cursors_and_resources_and_prompts_answer() {
    // §9.11
    let mock = mock();
    let (session, _) = initialize(&mock, "2025-11-25");
    let ask = |id: u64, method: &str, params: Value| body(&post(&mock, Some(&session), &rpc(id, method, params)));
    let first = ask(1, "tools/list", json!({}));
    assert_eq!(
        (first["result"]["tools"].as_array().unwrap().len(), first["result"]["nextCursor"].clone()),
        (1, json!("cuecard-page-1"))
    );
    assert_eq!(first["result"]["tools"][0]["inputSchema"]["type"], "object");
    let second = ask(2, "tools/list", json!({"cursor": "cuecard-page-1"}));
    assert_eq!(second["result"]["tools"][0]["inputSchema"], json!({"type": "object", "properties": {}}));
    assert!(second["result"].get("nextCursor").is_none());
    assert_eq!(ask(3, "tools/list", json!({"cursor": "page-9"}))["error"]["code"], -32602);
    assert_eq!(
        ask(4, "resources/read", json!({"uri": "file:///notes.txt"}))["result"]["contents"][0],
        json!({"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "milk"})
    );
    assert_eq!(
        ask(5, "resources/read", json!({"uri": "file:///x"}))["error"],
        json!({"code": -32002, "message": "Resource not found", "data": {"uri": "file:///x"}})
    );
    assert_eq!(
        ask(6, "prompts/get", json!({"name": "summarize", "arguments": {"topic": "cats"}}))["result"]["messages"][0]
            ["content"]["text"],
        "Summarize cats"
    );
    assert_eq!(
        ask(7, "prompts/get", json!({"name": "summarize"}))["error"]["message"],
        "Missing required arguments: topic"
    );
    assert_eq!(ask(8, "completion/complete", json!({}))["error"]["code"], -32601);
    assert_eq!(ask(9, "logging/setLevel", json!({"level": "loud"}))["error"]["code"], -32602);
}

#[test]
fn mcp_entries_sit_between_the_model_requests_they_came_between() {
    let mock = mock();
    let (session, _) = initialize(&mock, "2025-11-25");
    let chat = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"Forecast?"}]}"#;
    handle(&mock, &HttpRequest::post_json("/v1/chat/completions", chat));
    post(&mock, Some(&session), &rpc(1, "tools/call", json!({"name": "get_forecast", "arguments": {"city": "Paris"}})));
    let after: Vec<u64> = mock.mcp_entries().iter().map(|e| e.after_requests).collect();
    assert_eq!(after, [0, 1]);
    let journal = crate::wire::journal_document(&mock);
    assert_eq!(journal["mcp"]["entries"][1]["name"], "get_forecast");
    let mut streamed = Vec::new();
    crate::wire::write_journal_document(&mock, 1, |piece| {
        streamed.extend(piece);
        true
    });
    assert_eq!(serde_json::from_slice::<Value>(&streamed).unwrap(), journal);
    mock.reset();
    assert!(mock.mcp_entries().is_empty() && mock.mcp_unused_steps().len() == 8);
}

#[test]
fn the_checks_hold_or_show_the_mcp_journal() {
    let mock = mock();
    let (session, _) = initialize(&mock, "2025-11-25");
    post(&mock, Some(&session), &rpc(1, "tools/call", json!({"name": "get_forecast", "arguments": {"city": "Paris"}})));
    let check = |value: Value| run_check(&mock, None, &Check::from_value(value).unwrap());
    check(json!({"check": "mcp_tool_called", "tool": "get_forecast"})).unwrap();
    check(json!({"check": "mcp_tool_called", "tool": "get_forecast", "server": "weather", "times": 1, "arguments": {"city": "Paris"}})).unwrap();
    let twice = check(json!({"check": "mcp_tool_called", "tool": "get_forecast", "times": 2})).unwrap_err();
    assert_eq!((twice.expected.as_str(), twice.actual.as_str()), ("get_forecast called 2 times", "1 time such"));
    assert!(
        twice.history.contains(r#"tools/call get_forecast {"city":"Paris"}  answered  "22 °C, sunny""#),
        "{}",
        twice.history
    );
    check(json!({"check": "mcp_tool_called", "tool": "get_forecast", "arguments": {"city": "Rome"}})).unwrap_err();
    check(json!({"check": "mcp_tools_listed"})).unwrap_err();
    check(json!({"check": "no_unexpected_mcp_calls"})).unwrap();
    assert!(check(json!({"check": "all_mcp_steps_used"})).unwrap_err().history.contains("weather get_forecast step 1"));
    post(&mock, Some(&session), &rpc(2, "tools/call", json!({"name": "nope"})));
    assert_eq!(check(json!({"check": "no_unexpected_mcp_calls"})).unwrap_err().actual, "1 unexpected MCP message");
}

#[test]
fn a_scenario_with_a_broken_mcp_section_names_the_path() {
    let problem = |mcp: Value| {
        let error = Scenario::from_value(json!({"cuecard": 1, "mcp": mcp})).unwrap_err();
        error.issues().iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    };
    assert!(problem(json!({"servers": [{"name": "a b"}]})).contains("mcp.servers[0].name"));
    let two = problem(
        json!({"servers": [{"name": "a", "tools": [{"name": "t", "steps": [{"text": "x", "error": {"code": 1, "message": "m"}}]}]}]}),
    );
    assert!(two.contains("mcp.servers[0].tools[0].steps[0]") && two.contains("give one answer"), "{two}");
    assert!(problem(json!({"servers": [{"name": "a", "tools": [{"name": "t", "input_schema": {"type": "string"}}]}]}))
        .contains("input_schema"));
    assert!(problem(
        json!({"servers": [{"name": "a", "tools": [{"name": "t", "steps": [{"text": "x", "progress": [1, 0.5]}]}]}]})
    )
    .contains("progress"));
    assert!(problem(json!({"servers": []})).contains("at least one route (or an mcp section"));
    // A step that scripts -32602 is answered as scripted, not journaled as a refused request.
    let scripted = json!({"cuecard": 1, "mcp": {"servers": [{"name": "s", "tools": [{"name": "t",
        "steps": [{"error": {"code": -32602, "message": "bad city"}}]}]}]}});
    let mock = MockModel::from_scenario(&Scenario::from_value(scripted).unwrap()).unwrap();
    let (session, _) = initialize(&mock, "2025-11-25");
    let reply = body(&post(&mock, Some(&session), &rpc(1, "tools/call", json!({"name": "t"}))));
    assert_eq!(reply["error"]["message"], "bad city");
    assert_eq!(mock.mcp_entries()[1].outcome, crate::journal::Outcome::Answered);
    // An MCP-only scenario is a scenario.
    Scenario::from_value(json!({"cuecard": 1, "mcp": {"servers": [{"name": "only"}]}})).unwrap();
    let settings = crate::MockSettings {
        mcp: Some(serde_json::from_value(json!({"servers": [{"name": "x y"}]})).unwrap()),
        ..Default::default()
    };
    assert!(MockModel::new().configure(&settings).unwrap_err().to_string().contains("invalid mcp.servers[0].name"));
}

/// Issue #59 S2: the MCP journal keeps what the mock's journal limit keeps (the indexes go on counting), and a
/// request from a web page of another origin is refused without a journal entry.
#[test]
fn the_mcp_journal_is_bounded_by_the_journal_limit_and_foreign_pages_leave_no_entry() {
    let mock = mock();
    mock.set_journal_limit(Some(3));
    for id in 0..10 {
        assert_eq!(post(&mock, None, &rpc(id, "ping", json!({}))).status(), 200);
    }
    let indexes: Vec<u64> = mock.mcp_entries().iter().map(|e| e.index).collect();
    assert_eq!(indexes, vec![7, 8, 9]);

    let mock = self::mock();
    let foreign = HttpRequest::post_json("/mcp", &rpc(1, "ping", json!({})))
        .with_header("content-type", "application/json")
        .with_header("accept", "application/json, text/event-stream")
        .with_header("origin", "http://evil.example");
    for _ in 0..20 {
        let reply = handle(&mock, &foreign);
        assert_eq!(reply.status(), 403);
        assert!(reply.body_text().contains("is not this server's"), "{}", reply.body_text());
    }
    assert_eq!(mock.mcp_entries(), Vec::new());
}

/// Issue #59 S15: a body over the limit is 413 with a JSON-RPC error that says so, not a parse error.
#[test]
fn an_oversized_mcp_body_is_413_and_journaled_as_rejected() {
    let mock = mock();
    let reply = post(&mock, None, &" ".repeat(crate::http::MAX_BODY_BYTES + 1));
    assert_eq!(reply.status(), 413, "{}", reply.body_text());
    assert_eq!(body(&reply)["error"]["code"], json!(-32600));
    assert!(body(&reply)["error"]["message"].as_str().unwrap().contains("larger than the limit"));
    assert!(matches!(mock.mcp_entries()[0].outcome, crate::journal::Outcome::Rejected { .. }));
}

/// A 2026-07-28 request: its revision, client info and capabilities in `params._meta`.
fn modern(id: u64, method: &str, mut params: Value) -> String {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    rpc(id, method, params)
}

/// A 2026-07-28 POST with its headers (`name` for `Mcp-Name`).
fn post_modern(mock: &MockModel, body: &str, method: &str, name: Option<&str>) -> HttpReply {
    let mut request = HttpRequest::post_json("/mcp", body)
        .with_header("content-type", "application/json")
        .with_header("accept", "application/json, text/event-stream")
        .with_header("mcp-protocol-version", "2026-07-28")
        .with_header("mcp-method", method);
    if let Some(name) = name {
        request = request.with_header("mcp-name", name);
    }
    handle(mock, &request)
}

#[test]
fn the_stateless_revision_is_served_without_a_handshake_on_both_transports() {
    // mcp.md §1.3, §6.3
    let mock = mock();
    let mut stdio = StdioSession::new(&mock, Some("weather")).unwrap();
    let line = |stdio: &mut StdioSession, text: String| -> Value {
        serde_json::from_str(&stdio.handle_line(&mock, &text).lines[0].1).unwrap()
    };
    let discover = line(&mut stdio, modern(1, "server/discover", json!({})));
    let result = &discover["result"];
    assert_eq!(
        (result["resultType"].as_str(), result["ttlMs"].as_u64(), result["cacheScope"].as_str()),
        (Some("complete"), Some(0), Some("private"))
    );
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "weather");
    assert_eq!(result["instructions"], "Weather tools");
    // No initialize: a stateless request is served at once, and cacheable results say so.
    let tools = line(&mut stdio, modern(2, "tools/list", json!({})));
    assert_eq!(tools["result"]["tools"][0]["name"], "get_forecast");
    assert_eq!(tools["result"]["ttlMs"], 0);
    let call =
        line(&mut stdio, modern(3, "tools/call", json!({"name": "get_forecast", "arguments": {"city": "Paris"}})));
    assert_eq!(
        (call["result"]["resultType"].as_str(), call["result"]["content"][0]["text"].as_str()),
        (Some("complete"), Some("22 °C, sunny"))
    );
    assert!(call["result"].get("ttlMs").is_none(), "a tool result is not cacheable");
    // Methods the revision removed are unknown in it; a resource not found is -32602 there.
    assert_eq!(line(&mut stdio, modern(4, "ping", json!({})))["error"]["code"], -32601);
    let missing = line(&mut stdio, modern(5, "resources/read", json!({"uri": "file:///nope"})));
    assert_eq!(missing["error"]["code"], -32602);
    // A version not served: -32022 naming those that are.
    let mut future: Value = serde_json::from_str(&modern(6, "tools/list", json!({}))).unwrap();
    future["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2030-01-01");
    let refused = line(&mut stdio, future.to_string());
    assert_eq!(
        (refused["error"]["code"].clone(), refused["error"]["data"].clone()),
        (json!(-32022), json!({"supported": ["2026-07-28"], "requested": "2030-01-01"}))
    );
    let revisions: Vec<Option<String>> = mock.mcp_entries().iter().map(|e| e.revision.clone()).collect();
    assert!(revisions.iter().all(|r| r.is_some()), "{revisions:?}");
    // The same server still speaks the handshake era to a client that initializes.
    let (session, init) = initialize(&mock, "2025-11-25");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert!(body(&post(&mock, Some(&session), &rpc(9, "tools/list", json!({}))))["result"].get("resultType").is_none());
}

#[test]
fn over_http_the_stateless_revision_checks_its_headers_and_keeps_no_session() {
    // mcp.md §6.3
    let mock = mock();
    let list = post_modern(&mock, &modern(1, "tools/list", json!({})), "tools/list", None);
    assert_eq!(list.status(), 200);
    assert!(list.header("mcp-session-id").is_none(), "no session is minted");
    let call = modern(2, "tools/call", json!({"name": "get_forecast", "arguments": {"city": "Paris"}}));
    assert_eq!(
        body(&post_modern(&mock, &call, "tools/call", Some("get_forecast")))["result"]["content"][0]["text"],
        "22 °C, sunny"
    );
    // Mcp-Name may travel as RFC 2047 base64.
    let encoded = post_modern(&mock, &call, "tools/call", Some("=?base64?Z2V0X2ZvcmVjYXN0?="));
    assert_eq!(encoded.status(), 200, "{}", encoded.body_text());
    for (method, name, why) in [
        ("tools/list", Some("get_forecast"), "Mcp-Method header says tools/list"),
        ("tools/call", None, "Mcp-Name header is required"),
        ("tools/call", Some("get_time"), "Mcp-Name header says get_time"),
    ] {
        let refused = post_modern(&mock, &call, method, name);
        assert_eq!((refused.status(), body(&refused)["error"]["code"].clone()), (400, json!(-32020)));
        assert!(body(&refused)["error"]["message"].as_str().unwrap().contains(why), "{}", refused.body_text());
    }
    let unknown = post_modern(&mock, &modern(3, "tools/nothing", json!({})), "tools/nothing", None);
    assert_eq!((unknown.status(), body(&unknown)["error"]["code"].clone()), (404, json!(-32601)));
    let get = handle(
        &mock,
        &HttpRequest::new("GET", "/mcp", vec![("mcp-protocol-version".into(), "2026-07-28".into())], Vec::new()),
    );
    assert_eq!(get.status(), 405);
    let future = HttpRequest::post_json("/mcp", &rpc(4, "tools/list", json!({})))
        .with_header("content-type", "application/json")
        .with_header("mcp-protocol-version", "2031-01-01")
        .with_header("mcp-method", "tools/list");
    let refused = handle(&mock, &future);
    assert_eq!(refused.status(), 400);
    assert!(mock.mcp_entries().iter().all(|e| e.session.is_none()));
}

fn asking_mock() -> MockModel {
    let confirm = json!({"method": "elicitation/create", "params": {"message": "Delete 3 files?",
        "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}}});
    let scenario = json!({"cuecard": 1, "mcp": {"servers": [{"name": "files", "tools": [{"name": "delete", "steps": [
        {"input_required": {"confirm": confirm}},
        {"match": {"input_responses": {"confirm": {"action": "accept"}}}, "text": "Deleted 3 files."},
        {"match": {"input_responses": {"confirm": {"action": "decline"}}}, "text": "Kept them."}]}]}]}});
    MockModel::from_scenario(&Scenario::from_value(scenario).unwrap()).unwrap()
}

#[test]
fn a_step_asks_a_stateless_client_for_input_and_its_retry_takes_the_step_its_answer_matches() {
    // mcp.md §5.4: the interim result, then the retry with the responses and the state echoed.
    let mock = asking_mock();
    let call = |id: u64, extra: Value| {
        let mut params = json!({"name": "delete", "arguments": {"dir": "/tmp"}});
        if let (Some(params), Value::Object(extra)) = (params.as_object_mut(), extra) {
            params.extend(extra);
        }
        body(&post_modern(&mock, &modern(id, "tools/call", params), "tools/call", Some("delete")))
    };
    let asked = call(1, json!({}));
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(result["inputRequests"]["confirm"]["method"], "elicitation/create");
    assert_eq!(result["inputRequests"]["confirm"]["params"]["message"], "Delete 3 files?");
    let state = result["requestState"].as_str().unwrap().to_string();
    // A retry that does not echo the state, or lacks an answer asked for, is refused, naming what is wrong.
    let forged = call(2, json!({"inputResponses": {"confirm": {"action": "accept"}}, "requestState": "forged"}));
    assert_eq!(forged["error"]["code"], -32602);
    assert!(forged["error"]["message"].as_str().unwrap().contains("\"forged\" was not issued"), "{forged}");
    // The state names the step that asked (a stateless server keeps nothing between the two calls): only its own
    // spelling of a step that asks is one it issued.
    assert_eq!(state, "cuecard-input/delete/0");
    for other in ["cuecard-input/delete/00", "cuecard-input/delete/1", "cuecard-input/other/0"] {
        let refused = call(2, json!({"inputResponses": {"confirm": {"action": "accept"}}, "requestState": other}));
        assert_eq!(refused["error"]["code"], -32602, "{other}: {refused}");
    }
    let lacking = call(3, json!({"inputResponses": {}, "requestState": state}));
    assert!(lacking["error"]["message"].as_str().unwrap().contains("lacks \"confirm\""), "{lacking}");
    let stateless = call(4, json!({"inputResponses": {"confirm": {"action": "accept"}}}));
    assert!(stateless["error"]["message"].as_str().unwrap().contains("without the requestState"), "{stateless}");
    // The retry with the client's answer takes the step that matches it, not the next in line.
    let declined = call(5, json!({"inputResponses": {"confirm": {"action": "decline"}}, "requestState": state}));
    assert_eq!(declined["result"]["content"][0]["text"], "Kept them.");
    assert_eq!(declined["result"]["resultType"], "complete");
    // Journaled with what the client answered; the checks count retries by their answers.
    let entries = mock.mcp_entries();
    assert_eq!(entries[7].input_responses, Some(json!({"confirm": {"action": "decline"}})));
    assert_eq!(entries[7].step, Some(2));
    let called = |times, responses: Value| Check::McpToolCalled {
        tool: "delete".into(),
        server: None,
        times: Some(times),
        arguments: None,
        input_responses: Some(responses),
    };
    assert!(run_check(&mock, None, &called(1, json!({"confirm": {"action": "decline"}}))).is_ok());
    let failure = run_check(&mock, None, &called(1, json!({"confirm": {"action": "accept"}}))).unwrap_err();
    assert!(failure.to_string().contains("with input responses containing {\"confirm\":{\"action\":\"accept\"}}"));
    assert!(failure.to_string().contains("input_required confirm"), "{failure}");
    // The six refused retries are unexpected; the accepting step is unused.
    assert!(run_check(&mock, None, &Check::NoUnexpectedMcpCalls).unwrap_err().to_string().contains("6 unexpected"));
    assert!(run_check(&mock, None, &Check::AllMcpStepsUsed).is_err());
}

#[test]
fn a_handshake_era_client_is_not_asked_and_the_step_stays_for_one_that_can_be() {
    let mock = asking_mock();
    let (session, _) = initialize(&mock, "2025-06-18");
    let called = rpc(1, "tools/call", json!({"name": "delete", "arguments": {}}));
    let refused = body(&post(&mock, Some(&session), &called));
    assert_eq!(refused["error"]["code"], -32603);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("asks the client for input") && message.contains("2026-07-28"), "{message}");
    // Still there for a stateless client.
    let asked = body(&post_modern(
        &mock,
        &modern(2, "tools/call", json!({"name": "delete", "arguments": {}})),
        "tools/call",
        Some("delete"),
    ));
    assert_eq!(asked["result"]["resultType"], "input_required");
    // Taken again by `repeat_last` after that, a refused handshake-era call leaves the step used.
    let scenario = json!({"cuecard": 1, "mcp": {"servers": [{"name": "s", "tools": [{"name": "ask",
        "on_exhausted": "repeat_last", "steps": [{"input_required": {"q": {"method": "roots/list"}}}]}]}]}});
    let mock = MockModel::from_scenario(&Scenario::from_value(scenario).unwrap()).unwrap();
    let ask = |id| modern(id, "tools/call", json!({"name": "ask", "arguments": {}}));
    assert_eq!(body(&post_modern(&mock, &ask(1), "tools/call", Some("ask")))["result"]["resultType"], "input_required");
    let (session, _) = initialize(&mock, "2025-06-18");
    let refused = body(&post(&mock, Some(&session), &rpc(2, "tools/call", json!({"name": "ask", "arguments": {}}))));
    assert_eq!(refused["error"]["code"], -32603);
    assert!(run_check(&mock, None, &Check::AllMcpStepsUsed).is_ok(), "the step answered the stateless call");
}

#[test]
fn input_requests_are_checked_when_the_scenario_is_read() {
    let read = |step: Value| {
        Scenario::from_value(json!({"cuecard": 1, "mcp": {"servers": [{"name": "s", "tools": [
            {"name": "t", "steps": [step]}]}]}}))
        .err()
        .map(|e| e.to_string())
    };
    let wrong_method = read(json!({"input_required": {"q": {"method": "tools/call"}}})).unwrap();
    assert!(wrong_method.contains("mcp.servers[0].tools[0].steps[0].input_required[\"q\"].method"), "{wrong_method}");
    assert!(wrong_method.contains("elicitation/create, sampling/createMessage, roots/list"), "{wrong_method}");
    let two = read(json!({"input_required": {}, "text": "x"})).unwrap();
    assert!(two.contains("give one answer"), "{two}");
    let params = read(json!({"input_required": {"q": {"method": "roots/list", "params": []}}})).unwrap();
    assert!(params.contains("params as an object"), "{params}");
    assert_eq!(read(json!({"input_required": {"q": {"method": "roots/list"}}})), None);
}
