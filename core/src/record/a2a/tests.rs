//! A2A recordings: exchanges with an agent (here a scripted one standing in for a real partner) recorded, then the
//! recording replayed to the same requests, in both generations, whole, streamed, cut, non-blocking and failed.

use super::*;
use crate::http::{HttpReply, HttpRequest, StreamEnd};
use crate::mock::MockModel;
use crate::record::{RecordOptions, Recorder, UpstreamReply};

/// The partner agent: what a real remote agent would answer.
fn partner() -> MockModel {
    let scenario = crate::scenario::Scenario::from_value(json!({"cuecard": 1, "a2a": {"agents": [
        {"name": "trip-planner", "description": "Books trips", "version": "2.4.0", "push_notifications": true,
         "skills": [{"id": "book", "name": "Booking", "tags": ["travel"], "examples": ["Book Paris"]}],
         "steps": [
            {"match": {"text": "Paris"}, "text": "Booked Paris for Tuesday.", "status": "All set"},
            {"match": {"text": "Rome"}, "state": "input_required", "status": "Which day?"},
            {"message": "Tuesday works."},
            {"error": {"code": -32005, "message": "Incompatible content types"}},
            {"text": "A long answer that breaks off", "cut_after": 4},
            {"artifacts": [{"name": "quote", "data": {"price": 120}}, {"name": "notes", "text": "Window seat"}]},
        ]},
    ]}}))
    .unwrap();
    MockModel::from_scenario(&scenario).unwrap()
}

fn call(method: &str, id: u64, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn message(text: &str, task: Option<&str>) -> Value {
    let mut message = json!({"role": "user", "messageId": format!("m-{text}"), "kind": "message",
                             "parts": [{"kind": "text", "text": text}]});
    if let Some(task) = task {
        message["taskId"] = json!(task);
    }
    message
}

fn send(mock: &MockModel, path: &str, body: Option<&Value>) -> (HttpRequest, HttpReply) {
    let request = match body {
        Some(body) => HttpRequest::post_json(path, &body.to_string()),
        None => HttpRequest::new("GET", path, vec![], vec![]),
    }
    .with_header("host", "partner.test");
    let reply = crate::wire::handle(mock, &request);
    (request, reply)
}

fn upstream_reply(reply: &HttpReply) -> UpstreamReply {
    let cut = matches!(reply, HttpReply::Stream { end: StreamEnd::Cut, .. });
    UpstreamReply {
        status: reply.status(),
        chunks: vec![(0, reply.body_text().into_bytes())],
        cut,
        ..UpstreamReply::default()
    }
}

/// What an answer said, as the recorder reads it: the step it would make.
fn said(reply: &HttpReply) -> A2aStep {
    let mut answer = Answer::default();
    for response in responses_of(reply.body_text().as_bytes()) {
        answer.read(&response);
    }
    answer.step()
}

/// The exchanges, in order; a follow-up's task id is taken from the answer before it.
fn session(mock: &MockModel, recorder: Option<&mut Recorder>) -> Vec<A2aStep> {
    let mut recorder = recorder;
    let mut seen = Vec::new();
    let mut exchange = |path: &str, body: Option<Value>| {
        let (request, reply) = send(mock, path, body.as_ref());
        if let Some(recorder) = recorder.as_deref_mut() {
            recorder.record_a2a(&request, &upstream_reply(&reply));
        }
        reply
    };
    let card = exchange("/a2a/.well-known/agent-card.json", None);
    assert_eq!(card.status(), 200);
    seen.push(said(&exchange("/a2a", Some(call("message/send", 1, json!({"message": message("Book Paris", None)}))))));
    let v1_message = json!({"role": "ROLE_USER", "messageId": "m-rome", "parts": [{"text": "Book Rome"}]});
    let rome = exchange("/a2a", Some(call("SendMessage", 2, json!({"message": v1_message}))));
    let task = responses_of(rome.body_text().as_bytes())[0]["result"]["task"]["id"].as_str().unwrap().to_string();
    seen.push(said(&rome));
    let follow_up = call("message/send", 3, json!({"message": message("Tuesday", Some(&task))}));
    seen.push(said(&exchange("/a2a", Some(follow_up))));
    let failing = call("SendStreamingMessage", 4, json!({"message": message("Book Mars", None)}));
    seen.push(said(&exchange("/a2a", Some(failing))));
    let cut = exchange("/a2a", Some(call("message/stream", 5, json!({"message": message("Tell me a story", None)}))));
    assert!(matches!(cut, HttpReply::Stream { end: StreamEnd::Cut, .. }), "the partner's stream breaks off");
    seen.push(said(&cut));
    let later = json!({"message": message("Quote it", None), "configuration": {"blocking": false}});
    let started = exchange("/a2a", Some(call("message/send", 6, later)));
    let task = responses_of(started.body_text().as_bytes())[0]["result"]["id"].as_str().unwrap().to_string();
    seen.push(said(&exchange("/a2a", Some(call("tasks/get", 7, json!({"id": task}))))));
    seen
}

#[test]
fn a_session_with_an_agent_is_recorded_and_its_recording_answers_the_same() {
    let mut recorder = Recorder::new(RecordOptions::default()).unwrap();
    let live = session(&partner(), Some(&mut recorder));
    let document = recorder.document();
    let agent = &document["a2a"]["agents"][0];
    assert_eq!(agent["name"], "trip-planner", "the card's name");
    assert_eq!((agent["description"].as_str(), agent["version"].as_str()), (Some("Books trips"), Some("2.4.0")));
    assert_eq!(
        agent["skills"][0],
        json!({"id": "book", "name": "Booking", "description": "Booking",
                                           "tags": ["travel"], "examples": ["Book Paris"]})
    );
    assert_eq!(agent["push_notifications"], true);
    let steps = agent["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 6, "{steps:#?}");
    assert_eq!(
        steps[0],
        json!({"match": {"text": "Book Paris"}, "text": "Booked Paris for Tuesday.", "status": "All set"})
    );
    assert_eq!(steps[1], json!({"match": {"text": "Book Rome"}, "state": "input_required", "status": "Which day?"}));
    assert_eq!(steps[2], json!({"match": {"text": "Tuesday"}, "message": "Tuesday works."}));
    assert_eq!(steps[3]["error"], json!({"code": -32005, "message": "Incompatible content types"}));
    // The stream broke off after its first chunks: what arrived is replayed, then the same break.
    assert_eq!(steps[4]["text"], "A long");
    assert_eq!(steps[4]["cut_after"], 4);
    // Answered at once as `working`; the read that found it done completed the step.
    assert_eq!(
        steps[5]["artifacts"],
        json!([{"name": "quote", "data": {"price": 120}}, {"name": "notes", "text": "Window seat"}])
    );

    let scenario = crate::scenario::Scenario::from_value(document).unwrap();
    let replay = MockModel::from_scenario(&scenario).unwrap();
    let replayed = session(&replay, None);
    assert_eq!(replayed, live, "the recording answers each message as the partner did");
    assert!(replay.a2a_unused_steps().is_empty(), "every recorded step was used");
}

#[test]
fn a_recording_goes_on_from_its_agents_and_a_card_under_a_name_keeps_the_name() {
    let mut recorder = Recorder::new(RecordOptions::default()).unwrap();
    let card = json!({"name": "Other Name", "capabilities": {"streaming": false}, "skills": []});
    assert!(recorder.a2a.record_card("/a2a/scout/.well-known/agent-card.json", &card));
    let asked = call("message/send", 1, json!({"message": message("hi", None)}));
    let answered = json!({"jsonrpc": "2.0", "id": 1, "result": {"kind": "message", "role": "agent", "messageId": "x",
                          "parts": [{"kind": "text", "text": "hello"}]}});
    assert!(recorder.a2a.record_call("/a2a/scout", &asked, &[answered], false));
    assert!(!recorder.a2a.record_call("/a2a/scout", &call("tasks/cancel", 2, json!({"id": "t"})), &[], false));
    let document = recorder.document();
    assert_eq!(document["a2a"]["agents"][0]["name"], "scout", "a client on /a2a/scout replays there");
    let mut first = A2aRecording::default();
    assert!(first.record_card("/.well-known/agent-card.json", &json!({"name": "Research Agent (EU)"})));
    assert_eq!(first.to_value()["agents"][0]["name"], "Research-Agent--EU-", "a card's name made a path segment");
    assert_eq!(document["a2a"]["agents"][0]["streaming"], false);
    let mut again = Recorder::appending(RecordOptions::default(), &document).unwrap();
    assert!(again.a2a.record_call(
        "/a2a/scout",
        &asked,
        &[json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "busy"}})],
        false
    ));
    let steps = &again.document()["a2a"]["agents"][0]["steps"];
    assert_eq!(steps.as_array().map(Vec::len), Some(2));
    assert_eq!(steps[1]["error"]["message"], "busy");
}

#[test]
fn a_relayed_card_points_every_endpoint_at_the_proxy() {
    let mut card = json!({"url": "http://agent:9/", "supportedInterfaces": [{"url": "http://agent:9/", "protocolBinding": "JSONRPC"}],
                          "additionalInterfaces": [{"url": "http://agent:9/grpc", "transport": "GRPC"}]});
    card_pointing_at(&mut card, "http://127.0.0.1:5/a2a");
    assert_eq!(card["url"], "http://127.0.0.1:5/a2a");
    assert_eq!(card["supportedInterfaces"][0]["url"], "http://127.0.0.1:5/a2a");
    assert_eq!(card["additionalInterfaces"][0]["url"], "http://127.0.0.1:5/a2a");
}
