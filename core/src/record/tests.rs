//! Recording a mock's own replies (a stand-in upstream), then replaying the recording: the same bytes on the same
//! protocol, the neutral answer in-process and after an edit, and misses that say what differs.

use super::*;
use crate::wire::{handle, HttpReply};
use crate::{MockModel, Scenario};
use base64::Engine;

/// The upstream: one answer with text and a tool call, for each of 32 requests.
fn upstream() -> MockModel {
    let step = json!({"text": "It is sunny in Paris.", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]});
    let steps = vec![step; 32];
    let scenario = Scenario::from_value(json!({"cuecard": 1, "routes": [{"steps": steps}]})).unwrap();
    MockModel::from_scenario(&scenario).unwrap()
}

/// Every chat protocol's path and body, whole and streamed.
fn requests() -> Vec<(&'static str, HttpRequest)> {
    let chat = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"Weather in Paris?"}]STREAM}"#;
    let responses = r#"{"model":"gpt-4o","input":"Weather in Paris?"STREAM}"#;
    let messages = r#"{"model":"claude-sonnet-4-5","max_tokens":256,"messages":[{"role":"user","content":"Weather in Paris?"}]STREAM}"#;
    let gemini = r#"{"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]}]}"#;
    let ollama = r#"{"model":"llama3.2","messages":[{"role":"user","content":"Weather in Paris?"}]STREAM}"#;
    let generate = r#"{"model":"llama3.2","prompt":"Weather in Paris?"STREAM}"#;
    let completions = r#"{"model":"gpt-3.5-turbo-instruct","prompt":"Weather in Paris?"STREAM}"#;
    let cohere = r#"{"model":"command-a-03-2025","messages":[{"role":"user","content":"Weather in Paris?"}]STREAM}"#;
    let converse = r#"{"messages":[{"role":"user","content":[{"text":"Weather in Paris?"}]}]}"#;
    let invoke = r#"{"anthropic_version":"bedrock-2023-05-31","max_tokens":256,"messages":[{"role":"user","content":"Weather in Paris?"}]}"#;
    let body = |template: &str, stream: &str| template.replace("STREAM", stream);
    let mut out = Vec::new();
    for (name, path, template, whole, streamed) in [
        ("chat", "/v1/chat/completions", chat, "", r#","stream":true,"stream_options":{"include_usage":true}"#),
        ("responses", "/v1/responses", responses, "", r#","stream":true"#),
        ("messages", "/v1/messages", messages, "", r#","stream":true"#),
        ("ollama chat", "/api/chat", ollama, r#","stream":false"#, r#","stream":true"#),
        ("cohere", "/v2/chat", cohere, "", r#","stream":true"#),
        ("ollama generate", "/api/generate", generate, r#","stream":false"#, r#","stream":true"#),
        (
            "completions",
            "/v1/completions",
            completions,
            "",
            r#","stream":true,"stream_options":{"include_usage":true}"#,
        ),
    ] {
        out.push((name, HttpRequest::post_json(path, &body(template, whole))));
        out.push((name, HttpRequest::post_json(path, &body(template, streamed))));
    }
    out.push(("gemini", HttpRequest::post_json("/v1beta/models/gemini-2.5-flash:generateContent", gemini)));
    out.push((
        "gemini",
        HttpRequest::post_json("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", gemini),
    ));
    out.push(("converse", HttpRequest::post_json("/model/amazon.nova-pro-v1:0/converse", converse)));
    out.push(("converse", HttpRequest::post_json("/model/amazon.nova-pro-v1:0/converse-stream", converse)));
    out.push(("invoke", HttpRequest::post_json("/model/anthropic.claude-sonnet-4-5/invoke", invoke)));
    out.push((
        "invoke",
        HttpRequest::post_json("/model/anthropic.claude-sonnet-4-5/invoke-with-response-stream", invoke),
    ));
    out
}

/// A reply as a proxy would have seen it arrive: each frame a chunk at its time.
fn as_upstream(reply: &HttpReply) -> UpstreamReply {
    match reply {
        HttpReply::Full { delay_ms, status, headers, body } => UpstreamReply {
            status: *status,
            headers: headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
            headers_ms: *delay_ms,
            chunks: vec![(*delay_ms, body.as_bytes().to_vec())],
            cut: false,
        },
        HttpReply::Stream { stall_ms, status, headers, frames, base64, end, .. } => {
            let mut at = *stall_ms;
            let chunks = frames
                .iter()
                .map(|frame| {
                    at += frame.delay_ms;
                    let bytes = if *base64 {
                        base64::engine::general_purpose::STANDARD.decode(&frame.data).unwrap()
                    } else {
                        frame.data.into_bytes()
                    };
                    (at, bytes)
                })
                .collect();
            UpstreamReply {
                status: *status,
                headers: headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
                headers_ms: 0,
                chunks,
                cut: *end == crate::http::StreamEnd::Cut,
            }
        }
        HttpReply::Abort { .. } | HttpReply::Socket { .. } => panic!("no HTTP reply"),
    }
}

/// The bytes a client receives.
fn bytes_of(reply: &HttpReply) -> Vec<u8> {
    as_upstream(reply).chunks.into_iter().flat_map(|(_, c)| c).collect()
}

fn replaying(recorder: &Recorder) -> MockModel {
    let text = recorder.to_text(true).unwrap();
    MockModel::from_scenario(&Scenario::from_yaml(&text).unwrap()).unwrap()
}

#[test]
fn every_protocol_replays_the_recorded_bytes_whole_and_streamed() {
    let upstream = upstream();
    let mut recorder = Recorder::new(RecordOptions::default()).unwrap();
    let mut sent = Vec::new();
    for (name, request) in requests() {
        let reply = handle(&upstream, &request);
        assert_eq!(reply.status(), 200, "{name}: {}", reply.body_text());
        recorder.record(&request, &as_upstream(&reply)).unwrap_or_else(|e| panic!("{name}: {e}"));
        sent.push((name, request, reply));
    }
    assert_eq!(recorder.recorded(), sent.len());
    let replay = replaying(&recorder);
    for (name, request, original) in &sent {
        let replayed = handle(&replay, request);
        assert_eq!(replayed.status(), original.status(), "{name}");
        assert_eq!(replayed.header("content-type"), original.header("content-type"), "{name}");
        assert!(bytes_of(&replayed) == bytes_of(original), "{name} {}: the replay differs", request.path);
    }
    assert_eq!(replay.unused_steps(), Vec::new(), "every recorded reply was replayed");
}

#[test]
fn the_neutral_answer_is_read_back_from_every_protocol() {
    let upstream = upstream();
    for (name, request) in requests() {
        let mut recorder = Recorder::new(RecordOptions::default()).unwrap();
        recorder.record(&request, &as_upstream(&handle(&upstream, &request))).unwrap();
        let step = &recorder.document()["routes"][0]["steps"][0];
        assert_eq!(step["text"], "It is sunny in Paris.", "{name} {}: {step:#}", request.path);
        // Neither protocol sends tool calls.
        if !matches!(name, "ollama generate" | "completions") {
            assert_eq!(step["tool_calls"][0]["name"], "get_weather", "{name} {}: {step:#}", request.path);
            assert_eq!(step["tool_calls"][0]["arguments"], json!({"city": "Paris"}), "{name} {}", request.path);
        }
        assert!(step["usage"]["output_tokens"].as_u64().is_some_and(|n| n > 0), "{name} {}: {step:#}", request.path);
    }
}

#[test]
fn in_process_and_after_an_edit_the_neutral_answer_is_what_replays() {
    let upstream = upstream();
    let (_, request) = requests().remove(0);
    let mut recorder = Recorder::new(RecordOptions::default()).unwrap();
    recorder.record(&request, &as_upstream(&handle(&upstream, &request))).unwrap();
    // In-process: the neutral request of the same question gets the neutral answer.
    let chat = crate::ChatRequest::user("gpt-4o", "Weather in Paris?");
    let answered = replaying(&recorder).chat(&chat).unwrap();
    assert_eq!(answered.message.text.as_deref(), Some("It is sunny in Paris."));
    // Edited: the text changed, so the wire encodes it instead of sending the recorded bytes.
    let mut document = recorder.document();
    document["routes"][0]["steps"][0]["text"] = json!("It rains in Paris.");
    let edited = MockModel::from_scenario(&Scenario::from_value(document).unwrap()).unwrap();
    let reply = handle(&edited, &request);
    assert!(reply.body_text().contains("It rains in Paris."), "{}", reply.body_text());
}

#[test]
fn a_request_no_recording_matches_names_the_nearest_and_what_differs() {
    let upstream = upstream();
    let (_, request) = requests().remove(0);
    let mut recorder = Recorder::new(RecordOptions::default()).unwrap();
    recorder.record(&request, &as_upstream(&handle(&upstream, &request))).unwrap();
    let replay = replaying(&recorder);
    let lyon = crate::ChatRequest::user("gpt-4o", "Weather in Lyon?");
    let error = replay.chat(&lyon).unwrap_err().to_string();
    assert!(error.contains("no recording matches"), "{error}");
    assert!(error.contains(r#"messages[0].content[0].text: "Weather in Paris?" != "Weather in Lyon?""#), "{error}");
    let wire = handle(
        &replay,
        &HttpRequest::post_json(
            "/v1/chat/completions",
            r#"{"model":"gpt-4o","messages":[{"role":"user","content":"Weather in Lyon?"}]}"#,
        ),
    );
    assert_eq!(wire.status(), 422);
    assert!(wire.body_text().contains("no_recording"), "{}", wire.body_text());
}

#[test]
fn the_same_request_twice_is_one_route_with_two_steps_in_order() {
    let upstream = MockModel::from_scenario(
        &Scenario::from_value(json!({"cuecard": 1, "routes": [{"steps": [{"fail": {"kind": "rate_limited"}}, {"text": "Now it works."}]}]}))
            .unwrap(),
    )
    .unwrap();
    let (_, request) = requests().remove(0);
    let mut recorder = Recorder::new(RecordOptions::default()).unwrap();
    for _ in 0..2 {
        recorder.record(&request, &as_upstream(&handle(&upstream, &request))).unwrap();
    }
    let document = recorder.document();
    let routes = document["routes"].as_array().unwrap();
    assert_eq!(routes.len(), 1);
    assert_eq!(routes[0]["steps"][0]["fail"]["kind"], "rate_limited");
    assert_eq!(routes[0]["steps"][1]["text"], "Now it works.");
    let replay = replaying(&recorder);
    assert_eq!(handle(&replay, &request).status(), 429);
    assert!(handle(&replay, &request).body_text().contains("Now it works."));
    // Each recorded reply plays once: a third request is a script that ran out, naming the route.
    assert_eq!(handle(&replay, &request).status(), 422);
}

#[test]
fn no_key_the_client_sent_reaches_the_file() {
    let upstream = upstream();
    let key = "sk-test-0123456789abcdefghijklmnop";
    let google = "AIzaSyD-0123456789abcdefghijklmnopqrs";
    let body = format!(r#"{{"model":"gpt-4o","messages":[{{"role":"user","content":"my key is {key}"}}]}}"#);
    let request = HttpRequest::new(
        "POST",
        &format!("/v1/chat/completions?key={google}"),
        vec![("authorization".into(), format!("Bearer {key}")), ("x-goog-api-key".into(), google.into())],
        body.into_bytes(),
    );
    let mut reply = as_upstream(&handle(&upstream, &request));
    reply.headers.push(("set-cookie".into(), "session=abc".into()));
    reply.headers.push(("x-echo".into(), format!("sent {key}")));
    let options = RecordOptions { redact_texts: vec!["Paris".into()], ..RecordOptions::default() };
    let mut recorder = Recorder::new(options).unwrap();
    recorder.record(&request, &reply).unwrap();
    for yaml in [true, false] {
        let text = recorder.to_text(yaml).unwrap();
        for secret in [key, google, "session=abc", "Paris"] {
            assert!(!text.contains(secret), "{secret} is in the file:\n{text}");
        }
        assert!(text.contains(redact::REDACTED));
    }
}

#[test]
fn redacted_fields_are_written_redacted_and_not_compared() {
    let upstream = upstream();
    let (_, request) = requests().remove(0);
    let options = RecordOptions { redact_fields: vec!["messages[*].content".into()], ..RecordOptions::default() };
    let mut recorder = Recorder::new(options).unwrap();
    recorder.record(&request, &as_upstream(&handle(&upstream, &request))).unwrap();
    let document = recorder.document();
    assert_eq!(document["routes"][0]["match"]["request"]["messages"][0]["content"], redact::REDACTED);
    assert_eq!(document["recording"]["ignore"], json!(["messages[*].content"]));
    // Another question still matches: the redacted field is not compared.
    let other = HttpRequest::post_json(
        "/v1/chat/completions",
        r#"{"model":"gpt-4o","messages":[{"role":"user","content":"anything at all"}]}"#,
    );
    assert_eq!(handle(&replaying(&recorder), &other).status(), 200);
}

#[test]
fn appending_adds_what_is_new_and_a_step_to_what_is_known() {
    let upstream = upstream();
    let all = requests();
    let mut first = Recorder::new(RecordOptions::default()).unwrap();
    first.record(&all[0].1, &as_upstream(&handle(&upstream, &all[0].1))).unwrap();
    let mut more = Recorder::appending(RecordOptions::default(), &first.document()).unwrap();
    more.record(&all[0].1, &as_upstream(&handle(&upstream, &all[0].1))).unwrap();
    more.record(&all[4].1, &as_upstream(&handle(&upstream, &all[4].1))).unwrap();
    let document = more.document();
    assert_eq!(document["routes"].as_array().unwrap().len(), 2);
    assert_eq!(document["routes"][0]["steps"].as_array().unwrap().len(), 2);
    assert_eq!(more.recorded(), 2);
}

#[test]
fn non_chat_endpoints_and_unknown_paths_are_refused_by_name() {
    let mut recorder = Recorder::new(RecordOptions::default()).unwrap();
    let models = HttpRequest::new("GET", "/v1/models", Vec::new(), Vec::new());
    let error = recorder.record(&models, &UpstreamReply::default()).unwrap_err();
    assert!(error.to_string().contains("only chat endpoints are recorded"), "{error}");
    let unknown = HttpRequest::post_json("/v9/nothing", "{}");
    assert!(recorder.record(&unknown, &UpstreamReply::default()).unwrap_err().to_string().contains("/v9/nothing"));
    let bad = HttpRequest::post_json("/v1/chat/completions", "{not json");
    assert!(recorder.record(&bad, &UpstreamReply::default()).unwrap_err().to_string().contains("cannot be read"));
}

#[test]
fn a_recorded_empty_reply_and_a_recorded_stream_cut_replay_as_recorded() {
    let (_, request) = requests().remove(1); // chat, streamed
    let mut recorder = Recorder::new(RecordOptions::default()).unwrap();
    let empty = UpstreamReply {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        chunks: vec![(40, b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hal".to_vec())],
        cut: true,
        ..UpstreamReply::default()
    };
    recorder.record(&request, &empty).unwrap();
    let replay = replaying(&recorder);
    let HttpReply::Stream { end, frames, .. } = handle(&replay, &request) else { panic!("a stream") };
    assert_eq!(end, crate::http::StreamEnd::Cut);
    assert_eq!(frames.to_vec().len(), 1);
}

/// The recording in the wire vector `a-recording-replays-its-bytes-on-its-protocol-and-its-answer-on-others` is
/// what the recorder writes for these exchanges (so every language replays a real recorder's output).
#[test]
fn the_wire_vectors_recording_is_the_recorders_output() {
    let scenario = json!({"cuecard": 1, "routes": [{"steps": [
        {"text": "Sunny, 22 °C.", "ttft_ms": 120, "token_delay_ms": 30},
        {"text": "Sunny, 23 °C.", "ttft_ms": 90, "token_delay_ms": 20},
        {"text": "Clear, 25 °C.", "delay_ms": 200}
    ]}]});
    let upstream = MockModel::from_scenario(&Scenario::from_value(scenario).unwrap()).unwrap();
    let chat = HttpRequest::post_json(
        "/v1/chat/completions",
        r#"{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"Weather in Paris?"}]}"#,
    );
    let messages = HttpRequest::post_json(
        "/v1/messages",
        r#"{"model":"claude-sonnet-4-5","max_tokens":256,"messages":[{"role":"user","content":"Weather in Rome?"}]}"#,
    )
    .with_header("anthropic-version", "2023-06-01");
    let options = RecordOptions { description: Some("recorded by cuecard record".into()), ..RecordOptions::default() };
    let mut recorder = Recorder::new(options).unwrap();
    for request in [chat.clone(), chat, messages] {
        recorder.record(&request, &as_upstream(&handle(&upstream, &request))).unwrap();
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/wire.json");
    let mut vectors: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let vector = vectors["vectors"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|v| v["id"] == "a-recording-replays-its-bytes-on-its-protocol-and-its-answer-on-others")
        .unwrap();
    if std::env::var_os("UPDATE_VECTORS").is_some() {
        // Rewritten as the vectors test writes the file (one-space indents); run that test after this one.
        vector["input"]["scenario"] = recorder.document();
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
        serde::Serialize::serialize(&vectors, &mut serde_json::Serializer::with_formatter(&mut out, formatter))
            .unwrap();
        std::fs::write(path, String::from_utf8(out).unwrap() + "\n").unwrap();
        return;
    }
    assert!(vector["input"]["scenario"] == recorder.document(), "regenerate: UPDATE_VECTORS=1, this test first");
}

/// A fresh directory under the system's temporary one, for a test's recording files.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cuecard-recording-file-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_recording_file_follows_its_mode_and_writes_after_every_exchange() {
    let dir = scratch("modes");
    let path = dir.join("nested").join("test_weather.yaml");
    let settings = |mode: RecordMode| RecordingSettings { mode, allow_in_ci: true, ..RecordingSettings::default() };
    // none: a missing file is not_found, and says how to record it.
    let missing = RecordingFile::open_with(&path, &settings(RecordMode::None)).unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound);
    assert!(missing.message().contains("record it with mode once"), "{}", missing.message());
    // once on a missing file records (into directories it makes), forwarding to the public APIs by default.
    let mut file = RecordingFile::open_with(&path, &settings(RecordMode::Once)).unwrap();
    assert!((file.records(), file.replays()) == (true, false));
    let (_, request) = requests().remove(0);
    assert_eq!(file.forward_url(&request).unwrap(), "https://api.openai.com/v1/chat/completions");
    let mock = upstream();
    file.record(&request, &as_upstream(&handle(&mock, &request))).unwrap();
    assert_eq!(file.recorded(), 1);
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.contains("recording:") && !dir.join("nested").join("test_weather.cuecard-partial").exists());
    // once on an existing file replays only: recording into it is refused.
    let mut replaying = RecordingFile::open_with(&path, &settings(RecordMode::Once)).unwrap();
    assert!((replaying.records(), replaying.replays()) == (false, true));
    assert!(replaying.replay_scenario().unwrap().is_some());
    let refused = replaying.record(&request, &as_upstream(&handle(&mock, &request))).unwrap_err();
    assert!(refused.message().contains("records nothing"), "{}", refused.message());
    // new appends: the same request again is a second step of its route.
    let mut appending = RecordingFile::open_with(&path, &settings(RecordMode::New)).unwrap();
    assert!((appending.records(), appending.replays()) == (true, true));
    appending.record(&request, &as_upstream(&handle(&mock, &request))).unwrap();
    let document = crate::scenario::yaml_value(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(document["routes"].as_array().unwrap().len(), 1);
    assert_eq!(document["routes"][0]["steps"].as_array().unwrap().len(), 2);
    // all records anew and does not replay.
    let all = RecordingFile::open_with(&path, &settings(RecordMode::All)).unwrap();
    assert!((all.records(), all.replays(), all.replay_scenario().unwrap().is_none()) == (true, false, true));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A recording says the day it was made and keeps it when appended to; replayed past its `max_age_days` it warns,
/// naming the file; a `recorded_on` that is not a date is refused as the scenario's problem.
#[test]
fn a_recording_says_its_day_and_warns_when_replayed_past_its_max_age() {
    let dir = scratch("age");
    let path = dir.join("weather.yaml");
    let mock = upstream();
    let (_, request) = requests().remove(0);
    let mut file = record_into(&path, &mock, std::slice::from_ref(&request));
    file.close();
    let today = crate::clock::days_date(super::today());
    let document = crate::scenario::yaml_value(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(document["recording"]["recorded_on"], today.as_str());
    // Dated long ago and trusted for 30 days: replaying warns, naming the file; recording more keeps the first day.
    let text = std::fs::read_to_string(&path).unwrap().replace(&today, "2025-01-15");
    let text = text.replacen("recorded_on:", "max_age_days: 30\n  recorded_on:", 1);
    std::fs::write(&path, text).unwrap();
    let settings = |mode| RecordingSettings { mode, allow_in_ci: true, ..RecordingSettings::default() };
    let replay = RecordingFile::open_with(&path, &settings(RecordMode::None)).unwrap();
    let warning = replay.age_warning().unwrap();
    assert!(warning.starts_with(&format!("{} was recorded on 2025-01-15", path.display())), "{warning}");
    assert!(warning.contains("more than its max_age_days of 30"), "{warning}");
    let scenario = replay.replay_scenario().unwrap().unwrap();
    assert_eq!(scenario.recording_age(), Some(("2025-01-15", Some(30))));
    let mut appending = RecordingFile::open_with(&path, &settings(RecordMode::New)).unwrap();
    appending.record(&lyon(), &as_upstream(&handle(&mock, &lyon()))).unwrap();
    appending.close();
    let document = crate::scenario::yaml_value(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        (document["recording"]["recorded_on"].as_str(), document["recording"]["max_age_days"].as_u64()),
        (Some("2025-01-15"), Some(30))
    );
    // Within its age, or without a max age: no warning.
    assert_eq!(super::age_problem("r.yaml", "2025-01-15", 30, crate::clock::date_days("2025-02-14").unwrap()), None);
    assert!(super::age_problem("r.yaml", "2025-01-15", 30, crate::clock::date_days("2025-02-15").unwrap()).is_some());
    let bad = crate::scenario::Scenario::from_yaml(
        "cuecard: 1\nrecording: {version: 1, recorded_on: 2025-02-30}\nroutes: [{steps: [hi]}]\n",
    );
    assert_eq!(bad.unwrap_err().issues()[0].path, "recording.recorded_on");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A chat request unlike every one of [`requests`].
fn lyon() -> HttpRequest {
    HttpRequest::post_json(
        "/v1/chat/completions",
        r#"{"model":"gpt-4o","messages":[{"role":"user","content":"Lyon?"}]}"#,
    )
}

/// Records `requests` (in order) into a new recording file at `path`, answered by `upstream`.
fn record_into(path: &std::path::Path, upstream: &MockModel, requests: &[HttpRequest]) -> RecordingFile {
    let settings = RecordingSettings { mode: RecordMode::All, allow_in_ci: true, ..RecordingSettings::default() };
    let mut file = RecordingFile::open_with(path, &settings).unwrap();
    for request in requests {
        file.record(request, &as_upstream(&handle(upstream, request))).unwrap();
    }
    file
}

#[test]
fn later_exchanges_are_appended_and_replay_as_if_written_whole() {
    // Issue #59 S3: the file is written whole once, then each exchange is appended (a request sent again is a
    // route of its own further down); reading it joins them, so it replays what the whole recording would.
    let (a, b) = (requests()[0].1.clone(), lyon());
    let order = [a.clone(), b.clone(), a.clone(), a.clone()];
    for name in ["appended.yaml", "appended.json"] {
        let dir = scratch(&format!("append-{name}"));
        let path = dir.join(name);
        let upstream = MockModel::from_scenario(
            &Scenario::from_value(json!({"cuecard": 1, "routes": [{"steps": [
                {"text": "one"}, {"text": "two"}, {"text": "three"}, {"text": "four"}]}]}))
            .unwrap(),
        )
        .unwrap();
        let file = record_into(&path, &upstream, &order);
        let text = std::fs::read_to_string(&path).unwrap();
        let document = if name.ends_with("yaml") {
            crate::scenario::yaml_value(&text).unwrap()
        } else {
            serde_json::from_str(&text).unwrap()
        };
        // Written whole after the first exchange, then three routes appended.
        assert_eq!(document["routes"].as_array().unwrap().len(), 4, "{name}");
        assert!(text.ends_with(if name.ends_with("json") { JSON_TRAILER } else { "\n" }), "{name}");
        let replay = MockModel::from_scenario(&Scenario::from_path(&path).unwrap()).unwrap();
        let replies: Vec<String> = order.iter().map(|r| handle(&replay, r).body_text()).collect();
        for (reply, expected) in replies.iter().zip(["one", "two", "three", "four"]) {
            assert!(reply.contains(expected), "{name}: {reply} lacks {expected}");
        }
        assert_eq!(handle(&replay, &a).status(), 422, "{name}: the request recorded three times replays three");
        drop(file);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_recording_changed_under_the_recorder_is_written_whole_again() {
    let dir = scratch("changed");
    let path = dir.join("changed.json");
    let mut file = record_into(&path, &upstream(), &[requests()[0].1.clone()]);
    std::fs::write(&path, "{}").unwrap();
    file.record(&lyon(), &as_upstream(&handle(&upstream(), &lyon()))).unwrap();
    let document: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(document["routes"].as_array().unwrap().len(), 2, "both exchanges, from the recorder's memory");
    drop(file);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_recording_that_cannot_be_written_is_refused_before_anything_is_forwarded() {
    // Issue #59 S8: an --out that cannot be written is refused when opened, naming it.
    let dir = scratch("unwritable");
    std::fs::create_dir_all(&dir).unwrap();
    let blocker = dir.join("a-file");
    std::fs::write(&blocker, "").unwrap();
    let settings = RecordingSettings { mode: RecordMode::All, allow_in_ci: true, ..RecordingSettings::default() };
    let error = RecordingFile::open_with(blocker.join("r.yaml"), &settings).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Io);
    assert!(error.message().starts_with("cannot write "), "{}", error.message());
    assert!(error.message().contains("a-file"), "{}", error.message());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn recorders_of_one_file_in_one_process_share_its_lock_and_remove_it_when_gone() {
    let dir = scratch("lock");
    let path = dir.join("shared.yaml");
    let settings = RecordingSettings { mode: RecordMode::All, allow_in_ci: true, ..RecordingSettings::default() };
    let first = RecordingFile::open_with(&path, &settings).unwrap();
    let lock = super::writer::lock_path(&path).unwrap();
    assert!(lock.starts_with(std::env::temp_dir()), "not beside the recording: {}", lock.display());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "nothing is written beside it until an exchange is");
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), std::process::id().to_string());
    let second = RecordingFile::open_with(&path, &settings).unwrap();
    drop(first);
    assert!(lock.exists(), "the second recorder still holds it");
    drop(second);
    assert!(!lock.exists());
    // A recording only replayed takes no lock.
    let _recorded = record_into(&path, &upstream(), &[requests()[0].1.clone()]);
    drop(_recorded);
    let replaying = RecordingFile::open_with(&path, &RecordingSettings::default()).unwrap();
    assert!(!replaying.records() && !lock.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn recording_settings_name_what_is_wrong() {
    let bad_mode = crate::input::deserialize_data::<RecordingSettings>(&json!({"mode": "sometimes"})).unwrap_err();
    assert!(format!("{bad_mode:?}").contains("sometimes"), "{bad_mode:?}");
    let unknown = crate::input::deserialize_data::<RecordingSettings>(&json!({"upstreams": []})).unwrap_err();
    assert!(format!("{unknown:?}").contains("upstreams"), "{unknown:?}");
    let settings = RecordingSettings { upstream: vec!["nowhere".into()], ..RecordingSettings::default() };
    let path = scratch("settings").join("r.json");
    let error = RecordingFile::open_with(&path, &settings).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidArgument);
    assert!(error.message().contains("not an http:// or https:// URL"), "{}", error.message());
    assert_eq!("sometimes".parse::<RecordMode>().unwrap_err().kind(), ErrorKind::InvalidArgument);
}

#[test]
fn a_miss_is_what_the_replay_says_it_lacks_or_used_up() {
    assert!(RecordingFile::is_miss([("X-Cuecard-Error", "no_recording")]));
    assert!(RecordingFile::is_miss([("x-cuecard-error", "script_exhausted")]));
    assert!(!RecordingFile::is_miss([("x-cuecard-error", "invalid_request"), ("content-type", "text/plain")]));
}

#[test]
fn a_tests_recording_is_named_by_one_rule() {
    assert_eq!(recording_path_for_test("test_weather", &["test_asks"]), "recordings/test_weather/test_asks.yaml");
    assert_eq!(
        recording_path_for_test("test_weather", &["TestCity", "test_asks[paris-1]"]),
        "recordings/test_weather/TestCity.test_asks[paris-1].yaml"
    );
    assert_eq!(
        recording_path_for_test("weather.test", &["suite > asks: \"Paris\"/now"]),
        "recordings/weather.test/suite---asks---Paris--now.yaml"
    );
    assert_eq!(recording_path_for_test("..", &["..", ""]), "recordings/test/test.yaml");
}

/// A vcrpy cassette as pytest-recording writes it (constructed): a whole chat answer, a streamed one, a model list,
/// a `!!binary` body, and pydantic-ai's `parsed_body`.
const CASSETTE: &str = include_str!("../../../tests/recordings/vcrpy-cassette.yaml");

#[test]
fn a_vcrpy_cassette_imports_into_a_recording_that_replays_on_the_wire_and_in_process() {
    let imported = import_vcrpy(CASSETTE, RecordOptions::default()).unwrap();
    assert_eq!(imported.skipped.len(), 1, "{:?}", imported.skipped);
    assert_eq!(imported.skipped[0].0, 1);
    assert!(imported.skipped[0].1.contains("models"), "{}", imported.skipped[0].1);
    let text = imported.recorder.to_text(true).unwrap();
    for secret in ["sk-live-abcdefghijklmnop0123456789", "sk-ant-secret-0123456789abcdef", "org-secret"] {
        assert!(!text.contains(secret), "{secret} was written");
    }
    let mock = MockModel::from_scenario(&Scenario::from_yaml(&text).unwrap()).unwrap();
    // The streamed answer replays as the same SSE bytes, split into its events.
    let stream = HttpRequest::post_json(
        "/v1/chat/completions",
        r#"{"messages":[{"role":"user","content":"Stream it"}],"model":"gpt-4o","stream":true}"#,
    );
    let HttpReply::Stream { frames, .. } = handle(&mock, &stream) else { panic!("not a stream") };
    let frames = frames.to_vec();
    assert_eq!(frames.len(), 3);
    assert!(frames[0].data.contains("\"Hot\"") && frames[2].data == "data: [DONE]\n\n");
    // The whole answer, and the Anthropic one (its body was !!binary), read back in-process as neutral answers.
    let paris = crate::ChatRequest::from_value(
        json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "Weather in Paris?"}]}),
    )
    .unwrap();
    assert_eq!(mock.chat(&paris).unwrap().message.text.as_deref(), Some("Sunny."));
    let hello = HttpRequest::post_json(
        "/v1/messages",
        r#"{"model":"claude-test","max_tokens":64,"messages":[{"role":"user","content":"Hello?"}]}"#,
    );
    let HttpReply::Full { status, body, .. } = handle(&mock, &hello) else { panic!("not whole") };
    assert_eq!(status, 200);
    assert!(body.contains("Bonjour."), "{body}");
}

#[test]
fn a_cassette_that_cannot_be_imported_says_why_and_where() {
    let error = import_vcrpy("version: 1\n", RecordOptions::default()).unwrap_err();
    assert!(error.message().contains("no `interactions` list"), "{}", error.message());
    let compressed = CASSETTE.replacen(
        "content-type: [application/json]\n      openai-organization",
        "content-encoding: [gzip]\n      openai-organization",
        1,
    );
    let error = import_vcrpy(&compressed, RecordOptions::default()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidScenario);
    assert!(
        error.message().starts_with("interaction 0: ") && error.message().contains("decode_compressed_response"),
        "{}",
        error.message()
    );
}

/// Issue #59 S1: a secret split over a stream's frames (a `--redact` text, a key-shaped word) is cut from what a
/// reader reassembles, on every protocol that streams, text and binary (Bedrock's event stream and the base64 JSON
/// of an InvokeModelWithResponseStream chunk); the replayed stream still parses into the redacted answer.
#[test]
fn a_secret_split_over_stream_frames_is_cut_from_what_a_reader_reassembles() {
    let said = "the password is CorpSecret-XYZ-123 ok, key sk-proj-abcdefghijklmnopqrstuvwxyz012345 end";
    let steps = vec![json!({"text": said}); 16];
    let upstream =
        MockModel::from_scenario(&Scenario::from_value(json!({"cuecard": 1, "routes": [{"steps": steps}]})).unwrap())
            .unwrap();
    let options = RecordOptions { redact_texts: vec!["CorpSecret-XYZ-123".into()], ..RecordOptions::default() };
    let mut recorder = Recorder::new(options).unwrap();
    let streamed: Vec<(&str, HttpRequest)> = requests()
        .into_iter()
        .filter(|(_, r)| r.path.contains("stream") || String::from_utf8_lossy(&r.body).contains(r#""stream":true"#))
        .collect();
    assert_eq!(streamed.len(), 10, "every protocol's streamed request");
    for (name, request) in &streamed {
        let reply = handle(&upstream, request);
        let frames = match &reply {
            HttpReply::Stream { frames, .. } => frames.to_vec(),
            other => panic!("{name}: not streamed: {other:?}"),
        };
        if *name == "chat" {
            // The finding: no single frame holds the secret, so scrubbing frame by frame let it through.
            assert!(frames.iter().all(|f| !f.data.contains("CorpSecret-XYZ-123")), "{name}: a frame holds it whole");
        }
        recorder.record(request, &as_upstream(&reply)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let text = recorder.to_text(true).unwrap();
    let replay = replaying(&recorder);
    for (name, request) in &streamed {
        let replayed = handle(&replay, request);
        let upstream = as_upstream(&replayed);
        let content_type = replayed.header("content-type").map(str::to_string);
        let (frames, base64) = split::frames(split::Framing::of(content_type.as_deref()), &upstream.chunks);
        let events: Vec<Vec<u8>> = frames.iter().map(|f| split::joined(std::slice::from_ref(f), base64)).collect();
        for event in events.iter().filter(|_| base64) {
            crate::wire::eventstream::decode(event)
                .unwrap_or_else(|e| panic!("{name}: a message does not decode: {e:?}"));
        }
        let endpoint = crate::wire::decode_request(request).unwrap().0;
        let reassembled = serde_json::to_value(answer::neutral_answer(endpoint, 200, None, &events)).unwrap();
        assert_eq!(
            reassembled["text"],
            json!("the password is [REDACTED] ok, key [REDACTED] end"),
            "{name} {}: what a reader joins from the replayed stream",
            request.path
        );
    }
    for secret in ["CorpSecret", "sk-proj-abcdefghijklmnop"] {
        assert!(!text.contains(secret), "{secret} is in the file");
    }
}

/// MCP exchanges and model exchanges in one recording file: the `mcp` section is rewritten whole, the routes go on
/// being appended after it, and the file loads and replays both.
#[test]
fn mcp_and_model_exchanges_share_one_recording_file() {
    let dir = scratch("mcp-and-model");
    let path = dir.join("agent.yaml");
    let scenario =
        Scenario::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/scenarios/mcp-agent.json")).unwrap();
    let upstream = MockModel::from_scenario(&scenario).unwrap();
    let json_headers = vec![
        ("content-type".to_string(), "application/json".to_string()),
        ("accept".to_string(), "application/json, text/event-stream".to_string()),
        ("authorization".to_string(), "Bearer sk-mcp-secret-0123456789abcdef".to_string()),
    ];
    let initialize = HttpRequest::new(
        "POST",
        "/mcp",
        json_headers.clone(),
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_vec(),
    );
    let initialized = handle(&upstream, &initialize);
    let mut headers = json_headers;
    headers.push(("mcp-session-id".to_string(), initialized.header("mcp-session-id").unwrap().to_string()));
    let call = HttpRequest::new(
        "POST",
        "/mcp",
        headers,
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Paris"}}}"#.to_vec(),
    );
    let chat = HttpRequest::post_json(
        "/v1/chat/completions",
        r#"{"model":"gpt-4o","messages":[{"role":"user","content":"Weather?"}]}"#,
    );
    let settings = RecordingSettings { mode: RecordMode::All, allow_in_ci: true, ..RecordingSettings::default() };
    let mut file = RecordingFile::open_with(&path, &settings).unwrap();
    file.record(&initialize, &as_upstream(&initialized)).unwrap();
    file.record(&call, &as_upstream(&handle(&upstream, &call))).unwrap();
    file.record(&chat, &as_upstream(&handle(&upstream, &chat))).unwrap();
    file.record(&chat, &as_upstream(&handle(&upstream, &chat))).unwrap();
    assert_eq!(file.recorded(), 4);
    file.close();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("sk-mcp-secret"), "{text}");
    let replay = MockModel::from_scenario(&Scenario::from_path(&path).unwrap()).unwrap();
    let document = crate::scenario::yaml_value(&text).unwrap();
    assert_eq!(document["mcp"]["servers"][0]["tools"][0]["steps"][0]["content"][0]["text"], "22 °C, sunny");
    // The second model exchange was appended after the first (a route of its own, joined when read).
    assert_eq!(document["routes"].as_array().unwrap().len(), 2);
    assert!(handle(&replay, &chat).body_text().contains("get_forecast"));
    assert!(handle(&replay, &chat).body_text().contains("22 °C and sunny"));
    std::fs::remove_dir_all(&dir).unwrap();
}
