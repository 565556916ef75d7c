use crate::http::{HttpReply, HttpRequest};
use crate::mock::MockModel;
use serde_json::{json, Value};

fn mock() -> MockModel {
    let scenario = crate::scenario::Scenario::from_value(json!({"cuecard": 1, "a2a": {"agents": [
        {"name": "researcher", "skills": [{"id": "research", "tags": ["search"]}], "steps": [
            {"match": {"text": "weather"}, "text": "Sunny in Paris."},
            {"state": "input_required", "status": "Which city?"},
            {"text": "Rain in Oslo."},
            {"message": "Hello from the agent."},
            {"error": {"code": -32005, "message": "Incompatible content types"}},
        ]},
        {"name": "writer", "push_notifications": true, "steps": [{"text": "A draft.", "cut_after": 3}, {"text": "Done."}]},
    ]}}))
    .unwrap();
    MockModel::from_scenario(&scenario).unwrap()
}

fn post(mock: &MockModel, path: &str, body: Value) -> HttpReply {
    let request = HttpRequest::post_json(path, &body.to_string()).with_header("host", "127.0.0.1:9100");
    crate::wire::handle(mock, &request)
}

fn result(reply: &HttpReply) -> Value {
    serde_json::from_str(&reply.body_text()).unwrap()
}

fn events(reply: &HttpReply) -> Vec<Value> {
    reply
        .body_text()
        .split("\n\n")
        .filter_map(|event| event.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}

fn v03(method: &str, id: u64, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn user(text: &str, extra: Value) -> Value {
    let mut message = json!({"kind": "message", "messageId": format!("m-{text}"), "role": "user", "parts": [{"kind": "text", "text": text}]});
    if let (Some(message), Value::Object(extra)) = (message.as_object_mut(), extra) {
        message.extend(extra);
    }
    message
}

#[test]
fn a_v03_client_sends_follows_up_gets_and_cannot_cancel_a_finished_task() {
    let mock = mock();
    // The match picks the weather step even though it is not the next unused one's turn by text alone.
    let sent = result(&post(
        &mock,
        "/a2a/researcher",
        v03("message/send", 1, json!({"message": user("weather in Paris?", json!({}))})),
    ));
    let task = &sent["result"];
    assert_eq!((task["kind"].as_str(), task["status"]["state"].as_str()), (Some("task"), Some("completed")));
    assert_eq!(task["artifacts"][0]["parts"][0], json!({"kind": "text", "text": "Sunny in Paris."}));
    assert_eq!(task["id"], "00000000-0000-4000-8000-000000000001");
    assert_eq!(task["status"]["timestamp"], "2026-01-01T00:00:00.000Z");
    // The next message needs input; its follow-up (the task's id) takes the step after.
    let asked = result(&post(
        &mock,
        "/a2a/researcher",
        v03("message/send", 2, json!({"message": user("forecast", json!({}))})),
    ));
    let asked = &asked["result"];
    assert_eq!(asked["status"]["state"], "input-required");
    assert_eq!(asked["status"]["message"]["parts"][0]["text"], "Which city?");
    let id = asked["id"].as_str().unwrap().to_string();
    let followed = result(&post(
        &mock,
        "/a2a/researcher",
        v03("message/send", 3, json!({"message": user("Oslo", json!({"taskId": id}))})),
    ));
    assert_eq!(
        (followed["result"]["id"].as_str(), followed["result"]["status"]["state"].as_str()),
        (Some(id.as_str()), Some("completed"))
    );
    let got = result(&post(&mock, "/a2a/researcher", v03("tasks/get", 4, json!({"id": id}))));
    assert_eq!(got["result"]["history"].as_array().unwrap().len(), 2);
    assert_eq!(got["result"]["artifacts"][0]["parts"][0]["text"], "Rain in Oslo.");
    let cancel = result(&post(&mock, "/a2a/researcher", v03("tasks/cancel", 5, json!({"id": id}))));
    assert_eq!(cancel["error"]["code"], -32002);
    let missing = result(&post(&mock, "/a2a/researcher", v03("tasks/get", 6, json!({"id": "nope"}))));
    assert_eq!(
        (missing["error"]["code"].as_i64(), missing["error"]["data"]["taskId"].as_str()),
        (Some(-32001), Some("nope"))
    );
    // A direct message, then a scripted error, then nothing left.
    let said =
        result(&post(&mock, "/a2a/researcher", v03("message/send", 7, json!({"message": user("hi", json!({}))}))));
    assert_eq!((said["result"]["kind"].as_str(), said["result"]["role"].as_str()), (Some("message"), Some("agent")));
    let error =
        result(&post(&mock, "/a2a/researcher", v03("message/send", 8, json!({"message": user("hi", json!({}))}))));
    assert_eq!(error["error"], json!({"code": -32005, "message": "Incompatible content types"}));
    let exhausted =
        result(&post(&mock, "/a2a/researcher", v03("message/send", 9, json!({"message": user("more", json!({}))}))));
    assert!(exhausted["error"]["message"].as_str().unwrap().contains("has no step left for the message \"more\""));
    let journal = mock.a2a_entries();
    let outcomes: Vec<String> = journal
        .iter()
        .map(|e| format!("{} {}", e.method, serde_json::to_value(&e.outcome).unwrap()["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(outcomes.len(), 9);
    assert_eq!(outcomes.last().unwrap(), "message/send exhausted");
    assert!(journal.iter().all(|e| e.version == "0.3" && e.agent == "researcher"));
    assert_eq!(journal[0].step, Some(0));
    assert!(mock.a2a_unused_steps().iter().all(|u| u.agent == "writer"));
}

#[test]
fn a_v1_stream_sends_the_task_its_updates_and_closes_at_the_end() {
    let mock = mock();
    let message = json!({"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "weather?"}]});
    let reply = post(
        &mock,
        "/a2a/researcher",
        json!({"jsonrpc": "2.0", "id": 2, "method": "SendStreamingMessage", "params": {"message": message}}),
    );
    let HttpReply::Stream { end, ref headers, .. } = reply else { panic!("a stream") };
    assert_eq!(end, crate::http::StreamEnd::Close);
    assert!(headers.iter().any(|(n, v)| n == "content-type" && v == "text/event-stream"));
    let events = events(&reply);
    assert!(events.iter().all(|e| e["id"] == 2 && e["jsonrpc"] == "2.0"));
    let kinds: Vec<&str> =
        events.iter().map(|e| e["result"].as_object().unwrap().keys().next().unwrap().as_str()).collect();
    assert_eq!(kinds.first(), Some(&"task"));
    assert_eq!(kinds.last(), Some(&"statusUpdate"));
    assert_eq!(events[0]["result"]["task"]["status"]["state"], "TASK_STATE_SUBMITTED");
    assert!(events[0]["result"]["task"].get("kind").is_none());
    let chunks: Vec<&Value> = events.iter().filter_map(|e| e["result"].get("artifactUpdate")).collect();
    let text: String = chunks.iter().map(|c| c["artifact"]["parts"][0]["text"].as_str().unwrap()).collect();
    assert_eq!(text, "Sunny in Paris.");
    assert_eq!(
        (chunks[0]["append"].as_bool(), chunks.last().unwrap()["lastChunk"].as_bool()),
        (Some(false), Some(true))
    );
    assert_eq!(events.last().unwrap()["result"]["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(events.last().unwrap()["result"]["statusUpdate"].get("final").is_none());
    // v1 results are wrapped; v1 errors carry google.rpc.ErrorInfo.
    let sent = result(&post(
        &mock,
        "/a2a/researcher",
        json!({"jsonrpc": "2.0", "id": "x", "method": "SendMessage", "params": {"message": message}}),
    ));
    assert_eq!(sent["result"]["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let missing = result(&post(
        &mock,
        "/a2a/researcher",
        json!({"jsonrpc": "2.0", "id": "y", "method": "GetTask", "params": {"id": "nope"}}),
    ));
    assert_eq!(missing["error"]["data"][0]["reason"], "TASK_NOT_FOUND");
}

#[test]
fn a_stream_cut_after_some_events_and_push_configs_recorded() {
    let mock = mock();
    let reply = post(&mock, "/a2a/writer", v03("message/stream", 1, json!({"message": user("draft", json!({}))})));
    let HttpReply::Stream { end, .. } = reply else { panic!("a stream") };
    assert_eq!(end, crate::http::StreamEnd::Cut);
    let events = events(&reply);
    assert_eq!(events.len(), 3);
    assert!(events.iter().all(|e| e["result"]["final"] != true));
    let task = events[0]["result"]["id"].as_str().unwrap().to_string();
    let set = result(&post(
        &mock,
        "/a2a/writer",
        v03(
            "tasks/pushNotificationConfig/set",
            2,
            json!({"taskId": task, "pushNotificationConfig": {"url": "http://127.0.0.1:9/hook", "token": "t"}}),
        ),
    ));
    assert_eq!(set["result"]["pushNotificationConfig"]["url"], "http://127.0.0.1:9/hook");
    let listed = result(&post(&mock, "/a2a/writer", v03("tasks/pushNotificationConfig/list", 3, json!({"id": task}))));
    assert_eq!(listed["result"].as_array().unwrap().len(), 1);
    // The researcher takes no push configs.
    let refused = result(&post(
        &mock,
        "/a2a/researcher",
        v03(
            "tasks/pushNotificationConfig/set",
            4,
            json!({"taskId": task, "pushNotificationConfig": {"url": "http://x"}}),
        ),
    ));
    assert_eq!(refused["error"]["code"], -32003);
}

#[test]
fn the_card_serves_both_generations_and_bad_requests_are_named() {
    let mock = mock();
    let get = |path: &str| {
        crate::wire::handle(
            &mock,
            &HttpRequest::new("GET", path, vec![("host".into(), "127.0.0.1:9100".into())], Vec::new()),
        )
    };
    let card = result(&get("/.well-known/agent-card.json"));
    assert_eq!(card["name"], "researcher");
    assert_eq!(card["url"], "http://127.0.0.1:9100/a2a/researcher");
    assert_eq!(card["supportedInterfaces"][0]["protocolVersion"], "1.0");
    assert_eq!(
        card["skills"][0],
        json!({"id": "research", "name": "research", "description": "research", "tags": ["search"]})
    );
    assert_eq!(result(&get("/a2a/writer/.well-known/agent-card.json"))["capabilities"]["pushNotifications"], true);
    assert_eq!(get("/a2a/nobody/.well-known/agent-card.json").status(), 404);
    assert_eq!(get("/a2a/researcher").status(), 405);
    let bad = |body: &str| result(&crate::wire::handle(&mock, &HttpRequest::post_json("/a2a/researcher", body)));
    assert_eq!(bad("{not json")["error"]["code"], -32700);
    assert_eq!(bad(r#"{"id": 1, "method": "message/send"}"#)["error"]["code"], -32600);
    assert_eq!(bad(r#"{"jsonrpc": "2.0", "id": 1, "method": "tasks/explode"}"#)["error"]["code"], -32601);
    assert_eq!(bad(r#"{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {}}"#)["error"]["code"], -32602);
    let unknown = result(&post(&mock, "/a2a/nobody", v03("message/send", 1, json!({"message": user("x", json!({}))}))));
    assert_eq!(unknown["error"]["code"], -32601);
    let versioned = crate::wire::handle(
        &mock,
        &HttpRequest::post_json(
            "/a2a/researcher",
            &v03("message/send", 1, json!({"message": user("x", json!({}))})).to_string(),
        )
        .with_header("a2a-version", "2.0"),
    );
    assert_eq!(result(&versioned)["error"]["code"], -32009);
    // Every request above is in the A2A journal once, the card fetches and the refused GET too.
    let journal = mock.a2a_entries();
    assert_eq!(journal.len(), 10);
    assert_eq!(
        (journal[3].method.as_str(), serde_json::to_value(&journal[3].outcome).unwrap()["outcome"].as_str()),
        ("GET", Some("rejected"))
    );
}

/// A test's webhook on loopback: each POST it receives (its head, lower-cased, and its body), answered 200.
fn webhook(expected: usize) -> (String, std::thread::JoinHandle<Vec<(String, Value)>>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let receiving = std::thread::spawn(move || {
        let mut received = Vec::new();
        while received.len() < expected {
            let (stream, _) = listener.accept().unwrap();
            stream.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
            let mut reader = BufReader::new(stream);
            let mut head = String::new();
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line == "\r\n" || line.is_empty() {
                    break;
                }
                head.push_str(&line.to_ascii_lowercase());
            }
            let length: usize =
                head.lines().find_map(|l| l.strip_prefix("content-length:")).map_or(0, |n| n.trim().parse().unwrap());
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            reader.get_mut().write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").unwrap();
            received.push((head, serde_json::from_slice(&body).unwrap()));
        }
        received
    });
    (url, receiving)
}

#[test]
fn a_webhook_on_loopback_is_told_where_each_task_ended() {
    let mock = mock();
    let (url, receiving) = webhook(2);
    // v0.3: the webhook given with the message hears the task as it ends, with its token.
    let config = json!({"url": url, "token": "tok-1"});
    let sent = v03(
        "message/send",
        1,
        json!({"message": user("draft", json!({})), "configuration": {"pushNotificationConfig": config}}),
    );
    // The writer's first step is a cut stream; a plain send takes it whole.
    let answered = result(&post(&mock, "/a2a/writer", sent));
    assert_eq!(answered["result"]["status"]["state"], "completed");
    // v1.0: answered at once (working), no webhook yet; the first registered hears where it ended.
    let v1 = json!({"jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": {
        "message": {"role": "ROLE_USER", "messageId": "m2", "parts": [{"text": "again"}]},
        "configuration": {"returnImmediately": true}}});
    let started = result(&post(&mock, "/a2a/writer", v1));
    assert_eq!(started["result"]["task"]["status"]["state"], "TASK_STATE_WORKING");
    let task = started["result"]["task"]["id"].as_str().unwrap().to_string();
    let register = json!({"jsonrpc": "2.0", "id": 3, "method": "CreateTaskPushNotificationConfig", "params": {
        "taskId": task, "url": url, "authentication": {"scheme": "Bearer", "credentials": "hook-secret"}}});
    assert_eq!(result(&post(&mock, "/a2a/writer", register))["result"]["url"], url);
    // Each request's pushes are sent from a thread of their own: the two may arrive in either order.
    let mut received = receiving.join().unwrap();
    received.sort_by_key(|(head, _)| head.contains("a2a+json"));
    let (head, body) = &received[0];
    assert!(head.starts_with("post /hook http/1.1"), "{head}");
    assert!(head.contains("x-a2a-notification-token: tok-1") && head.contains("content-type: application/json"));
    assert_eq!((body["kind"].as_str(), body["status"]["state"].as_str()), (Some("task"), Some("completed")));
    assert_eq!(body["artifacts"][0]["parts"][0]["text"], "A draft.");
    let (head, body) = &received[1];
    assert!(head.contains("authorization: bearer hook-secret") && head.contains("content-type: application/a2a+json"));
    assert_eq!(
        (body["task"]["id"].as_str(), body["task"]["status"]["state"].as_str()),
        (Some(task.as_str()), Some("TASK_STATE_COMPLETED"))
    );
    let pushed: Vec<Vec<String>> = mock.a2a_entries().iter().map(|e| e.pushed.clone()).collect();
    assert_eq!(
        pushed,
        [vec![url.clone()], vec![], vec![url.clone()]],
        "each push is named by the request that caused it"
    );
}

#[test]
fn a_webhook_off_loopback_is_refused_before_a_step_is_taken() {
    let mock = mock();
    let config = json!({"url": "http://hooks.example.com/a2a"});
    let sent = v03(
        "message/send",
        1,
        json!({"message": user("draft", json!({})), "configuration": {"pushNotificationConfig": config}}),
    );
    let refused = result(&post(&mock, "/a2a/writer", sent));
    assert_eq!(refused["error"]["code"], -32602);
    assert!(refused["error"]["message"].as_str().unwrap().contains("only to http:// on loopback"), "{refused}");
    // No step was used: the next message takes the first.
    let next = post(&mock, "/a2a/writer", v03("message/stream", 2, json!({"message": user("draft", json!({}))})));
    assert!(matches!(next, HttpReply::Stream { end: crate::http::StreamEnd::Cut, .. }));
    let without_push = v03(
        "message/send",
        3,
        json!({"message": user("x", json!({})), "configuration": {"pushNotificationConfig": {"url": "http://127.0.0.1:9/"}}}),
    );
    assert_eq!(result(&post(&mock, "/a2a/researcher", without_push))["error"]["code"], -32003);
}

#[test]
fn a_missing_agent_is_not_found_or_in_a_replayed_recording_no_recording() {
    let plain = mock();
    let card = |mock: &MockModel| {
        crate::wire::handle(mock, &HttpRequest::new("GET", "/a2a/nobody/.well-known/agent-card.json", vec![], vec![]))
    };
    let send =
        |mock: &MockModel| post(mock, "/a2a/nobody", v03("message/send", 1, json!({"message": user("x", json!({}))})));
    assert_eq!(
        (card(&plain).header("x-cuecard-error"), send(&plain).header("x-cuecard-error")),
        (Some("not_found"), Some("not_found"))
    );
    // A recording's replay names what it lacks as a model request it lacks is named: a recording proxy forwards it.
    let recording = crate::scenario::Scenario::from_value(json!({"cuecard": 1, "recording": {"version": 1},
        "a2a": {"agents": [{"name": "partner", "steps": [{"text": "ok"}]}]}}))
    .unwrap();
    let replay = MockModel::from_scenario(&recording).unwrap();
    assert_eq!(card(&replay).header("x-cuecard-error"), Some("no_recording"));
    assert_eq!(send(&replay).header("x-cuecard-error"), Some("no_recording"));
    // A message with no step left is `script_exhausted`, recording or not.
    let exhausted =
        |mock: &MockModel| post(mock, "/a2a/partner", v03("message/send", 2, json!({"message": user("y", json!({}))})));
    assert_eq!(exhausted(&replay).header("x-cuecard-error"), None, "the first message takes the step");
    assert_eq!(exhausted(&replay).header("x-cuecard-error"), Some("script_exhausted"));
}

#[test]
fn a_stream_sends_as_many_events_before_its_final_status_as_its_step_counts() {
    // The recorder cuts a broken-off stream at `events_before_final`: it must be what the engine streams.
    let step = json!({"text": "Two words.", "artifacts": [
        {"name": "table", "text": "a b", "data": {"rows": 2}}, {"name": "raw", "data": [1, 2]}]});
    let scenario = crate::scenario::Scenario::from_value(
        json!({"cuecard": 1, "a2a": {"agents": [{"name": "many", "steps": [step.clone()]}]}}),
    )
    .unwrap();
    let mock = MockModel::from_scenario(&scenario).unwrap();
    let reply = post(&mock, "/a2a/many", v03("message/stream", 1, json!({"message": user("go", json!({}))})));
    let events = events(&reply);
    assert_eq!(events.last().unwrap()["result"]["final"], true);
    let counted: crate::script::a2a::A2aStep = serde_json::from_value(step).unwrap();
    // The task, `working`, "Two", " words", ".", "a", " b", the table's data, the raw data: 9.
    assert_eq!((events.len() - 1, counted.events_before_final()), (9, 9));
}
