//! Delivery fuzzing: whatever the cuts, keep-alives, whitespace and line ends, a tolerant client (one that reads
//! SSE as the spec's table C.2 says every official SDK does) decodes the same events as from the whole delivery.

use super::*;
use crate::wire::{handle, HttpRequest};
use crate::{MockModel, Scenario};
use serde_json::{json, Value};

/// A step with text (several UTF-8 widths), thinking and two tool calls.
fn scenario(delivery: Option<Value>) -> Scenario {
    let mut document = json!({"cuecard": 1, "routes": [{"steps": [{
        "thinking": "Zuerst das Wetter prüfen — 東京 too.",
        "text": "Grüße aus Köln — 東京 🌧️ \"quoted\"\nnew line.",
        "tool_calls": [{"name": "get_weather", "arguments": {"city": "Köln", "units": ["c", "f"]}},
                       {"name": "get_time", "arguments": {"zone": "Asia/東京"}}]
    }]}]});
    if let Some(delivery) = delivery {
        document["delivery"] = delivery;
    }
    Scenario::from_json(&document.to_string()).unwrap()
}

/// Each protocol's streaming request.
fn requests() -> Vec<(&'static str, HttpRequest)> {
    let chat = r#"{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}"#;
    let responses = r#"{"model":"gpt-4o","stream":true,"input":"hi"}"#;
    let messages =
        r#"{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
    let gemini = r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#;
    let ollama = r#"{"model":"llama3.2","messages":[{"role":"user","content":"hi"}]}"#;
    let bedrock = r#"{"messages":[{"role":"user","content":[{"text":"hi"}]}]}"#;
    vec![
        ("chat", HttpRequest::post_json("/v1/chat/completions", chat)),
        ("responses", HttpRequest::post_json("/v1/responses", responses)),
        ("anthropic", HttpRequest::post_json("/v1/messages", messages)),
        ("gemini", HttpRequest::post_json("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", gemini)),
        ("ollama", HttpRequest::post_json("/api/chat", ollama)),
        ("bedrock", HttpRequest::post_json("/model/anthropic.claude-3-haiku/converse-stream", bedrock)),
    ]
}

/// The writes of a reply, as bytes.
fn writes(reply: &HttpReply) -> Vec<Vec<u8>> {
    let HttpReply::Stream { frames, base64, .. } = reply else { panic!("not a stream: {reply:?}") };
    frames.iter().map(|f| if *base64 { decode_base64(&f.data) } else { f.data.into_bytes() }).collect()
}

/// What a tolerant client decodes from the bytes: SSE events (name and JSON data; comments, `ping` and data-less
/// events skipped, `data:` lines joined with `\n`, any line end), NDJSON objects, or the binary bytes themselves.
fn decoded(protocol: &str, bytes: &[u8]) -> Vec<(String, Value)> {
    if protocol == "bedrock" {
        // Event-stream messages, each led by its total length (big-endian u32).
        let mut messages = Vec::new();
        let mut rest = bytes;
        while rest.len() >= 4 {
            let length = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
            let (message, tail) = rest.split_at(length);
            messages.push((String::new(), Value::from(crate::delivery::encode_base64(message))));
            rest = tail;
        }
        assert!(rest.is_empty());
        return messages;
    }
    let text = std::str::from_utf8(bytes).expect("the writes join into UTF-8");
    if protocol == "ollama" {
        return text.lines().map(|line| (String::new(), serde_json::from_str(line).unwrap())).collect();
    }
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut events = Vec::new();
    for event in text.split("\n\n").filter(|e| !e.is_empty()) {
        let (mut name, mut data) = (String::new(), Vec::new());
        for line in event.lines() {
            if line.starts_with(':') {
                continue;
            } else if let Some(n) = line.strip_prefix("event: ") {
                name = n.to_string();
            } else if let Some(d) = line.strip_prefix("data: ") {
                data.push(d);
            }
        }
        if data.is_empty() || name == "ping" {
            continue;
        }
        let data = data.join("\n");
        let value = if data == "[DONE]" { Value::from("[DONE]") } else { serde_json::from_str(&data).unwrap() };
        events.push((name, value));
    }
    events
}

fn reply_of(delivery: Option<Value>, request: &HttpRequest) -> HttpReply {
    let mock = MockModel::from_scenario(&scenario(delivery)).unwrap();
    handle(&mock, request)
}

#[test]
fn every_protocol_decodes_the_same_events_under_200_seeded_deliveries() {
    for (protocol, request) in requests() {
        let whole = reply_of(None, &request);
        assert_eq!(whole.status(), 200, "{protocol}: {}", whole.body_text());
        let whole_bytes = writes(&whole).concat();
        let expected = decoded(protocol, &whole_bytes);
        assert!(expected.len() > 5, "{protocol}: {} events", expected.len());
        let (mut keepalives, mut changed) = (0, 0);
        for seed in 0..200u64 {
            let line_ending = ["lf", "crlf", "cr"][(seed % 3) as usize];
            let delivery = json!({"seed": seed, "max_chunk_bytes": 1 + seed % 24, "keepalives": true,
                "whitespace": true, "line_ending": line_ending, "variations": ["multiline_data"]});
            let reply = reply_of(Some(delivery), &request);
            let writes = writes(&reply);
            assert!(writes.len() > expected.len(), "{protocol} seed {seed}: cut into {} writes", writes.len());
            assert!(writes.iter().all(|w| !w.is_empty() && w.len() <= 24), "{protocol} seed {seed}");
            let bytes = writes.concat();
            let text = String::from_utf8_lossy(&bytes);
            keepalives += text.matches(": keep-alive").count() + text.matches("event: ping").count();
            changed += usize::from(bytes != whole_bytes);
            let got = decoded(protocol, &bytes);
            assert!(got == expected, "{protocol} seed {seed}: the events differ from the whole delivery's");
        }
        let has_keepalives = matches!(protocol, "chat" | "responses" | "anthropic");
        assert_eq!(keepalives > 100, has_keepalives, "{protocol}: {keepalives} keep-alives");
        // Whitespace (and line ends, data lines) changed the text of every text protocol; Bedrock's is only cut.
        assert_eq!(changed, if protocol == "bedrock" { 0 } else { 200 }, "{protocol}");
    }
}

#[test]
fn cuts_fall_inside_utf8_sequences_data_lines_and_crlf_pairs() {
    let (_, request) = requests().remove(2); // Anthropic
    let (mut inside_char, mut inside_crlf, mut inside_data, mut several_events) = (0, 0, 0, 0);
    for seed in 0..200u64 {
        let delivery = json!({"seed": seed, "max_chunk_bytes": 12, "line_ending": "crlf"});
        let writes = writes(&reply_of(Some(delivery), &request));
        let all = writes.concat();
        let mut at = 0;
        for write in &writes[..writes.len() - 1] {
            at += write.len();
            inside_char += usize::from(std::str::from_utf8(&all[..at]).is_err());
            inside_crlf += usize::from(all[at - 1] == b'\r' && all[at] == b'\n');
            let line_start = all[..at].iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
            inside_data += usize::from(all[line_start..at].starts_with(b"data: ") && all[at] != b'\r');
        }
        several_events += writes.iter().filter(|w| w.windows(4).filter(|p| p == b"\r\n\r\n").count() > 0).count();
    }
    assert!(inside_char > 50, "{inside_char} cuts inside a UTF-8 sequence");
    assert!(inside_crlf > 50, "{inside_crlf} cuts between \\r and \\n");
    assert!(inside_data > 1000, "{inside_data} cuts inside a data: line");
    assert!(several_events > 0);
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_a_new_seed_new_cuts() {
    let (_, request) = requests().remove(0);
    let delivery = |seed: u64| json!({"seed": seed, "keepalives": true, "whitespace": true});
    let first = writes(&reply_of(Some(delivery(7)), &request));
    assert_eq!(first, writes(&reply_of(Some(delivery(7)), &request)));
    assert_ne!(first, writes(&reply_of(Some(delivery(8)), &request)));
}

#[test]
fn the_reply_and_the_journal_name_the_request_seed() {
    let mock = MockModel::from_scenario(&scenario(Some(json!({"seed": 3})))).unwrap();
    let (_, request) = requests().remove(0);
    let reply = handle(&mock, &request);
    let header: u64 = reply.header(SEED_HEADER).unwrap().parse().unwrap();
    assert_eq!(header, request_seed(3, PURPOSE, 0) & ((1 << 53) - 1));
    assert_eq!(mock.entries()[0].delivery_seed.map(|s| s.get()), Some(header));
    let journaled = serde_json::to_value(&mock.entries()[0]).unwrap();
    assert_eq!(journaled["delivery_seed"], json!(header));
}

#[test]
fn waits_stay_where_the_script_put_them() {
    let mut document = json!({"cuecard": 1, "routes": [{"steps": [{"text": "one two three four five",
        "ttft_ms": 40, "token_delay_ms": 10}]}], "delivery": {"seed": 1, "max_chunk_bytes": 5}});
    document["delivery"]["keepalives"] = json!(true);
    let mock = MockModel::from_scenario(&Scenario::from_json(&document.to_string()).unwrap()).unwrap();
    let (_, request) = requests().remove(0);
    let whole_mock = MockModel::from_scenario(
        &Scenario::from_json(&{
            let mut d = document.clone();
            d.as_object_mut().unwrap().remove("delivery");
            d.to_string()
        })
        .unwrap(),
    )
    .unwrap();
    let total = |reply: &HttpReply| match reply {
        HttpReply::Stream { frames, .. } => frames.iter().map(|f| f.delay_ms).sum::<u64>(),
        _ => panic!(),
    };
    let (cut, whole) = (handle(&mock, &request), handle(&whole_mock, &request));
    assert_eq!(total(&cut), total(&whole));
    assert!(total(&whole) >= 40);
}

#[test]
fn interleaved_tool_calls_alternate_after_each_first_delta() {
    let (_, request) = requests().remove(0);
    let delivery = json!({"split": "none", "variations": ["interleave_tool_calls"]});
    let events = decoded("chat", &writes(&reply_of(Some(delivery), &request)).concat());
    let indexes: Vec<u64> =
        events.iter().filter_map(|(_, v)| v["choices"][0]["delta"]["tool_calls"][0]["index"].as_u64()).collect();
    let first_one = indexes.iter().position(|i| *i == 1).unwrap();
    assert!(indexes[..first_one].iter().all(|i| *i == 0), "index 0 appears first: {indexes:?}");
    assert!(indexes.windows(2).filter(|w| w[0] != w[1]).count() > 3, "interleaved: {indexes:?}");
    // The calls still accumulate to the same arguments.
    let arguments = |events: &[(String, Value)], index: u64| -> String {
        events
            .iter()
            .filter_map(|(_, v)| v["choices"][0]["delta"]["tool_calls"][0].as_object().cloned())
            .filter(|call| call["index"] == json!(index))
            .filter_map(|call| call["function"]["arguments"].as_str().map(str::to_string))
            .collect()
    };
    let plain = decoded("chat", &writes(&reply_of(None, &request)).concat());
    for index in 0..2 {
        assert_eq!(arguments(&events, index), arguments(&plain, index));
    }
}

#[test]
fn split_lines_writes_each_line_alone() {
    let (_, request) = requests().remove(1);
    let writes = writes(&reply_of(Some(json!({"split": "lines"})), &request));
    for write in &writes {
        let text = std::str::from_utf8(write).unwrap();
        assert!(text.ends_with('\n') && text.matches('\n').count() == 1, "{text:?}");
    }
}

#[test]
fn a_bad_setting_is_named() {
    let document = json!({"cuecard": 1, "routes": [{"steps": [{"text": "x"}]}], "delivery": {"max_chunk_bytes": 0}});
    let error = Scenario::from_json(&document.to_string()).unwrap_err();
    assert_eq!(error.issues()[0].path, "delivery.max_chunk_bytes", "{error}");
    let document = json!({"cuecard": 1, "routes": [{"steps": [{"text": "x"}]}], "delivery": {"split": "words"}});
    let error = Scenario::from_json(&document.to_string()).unwrap_err();
    assert!(error.to_string().contains("delivery.split") || error.issues()[0].path.contains("delivery"), "{error}");
    let mock = MockModel::new();
    let settings: crate::MockSettings = serde_json::from_value(json!({"delivery": {"max_chunk_bytes": 0}})).unwrap();
    assert!(mock.configure(&settings).unwrap_err().to_string().contains("delivery.max_chunk_bytes"));
}

#[test]
fn a_binary_stream_is_cut_at_bytes_whatever_split_says() {
    let (_, request) = requests().remove(5); // Bedrock's binary event stream
    let whole = writes(&reply_of(None, &request)).concat();
    for split in ["bytes", "lines", "none"] {
        let reply = reply_of(Some(json!({"seed": 4, "split": split, "max_chunk_bytes": 7})), &request);
        let HttpReply::Stream { base64, .. } = &reply else { panic!() };
        assert!(*base64, "{split}");
        let writes = writes(&reply);
        assert!(writes.len() > 10 && writes.iter().all(|w| w.len() <= 7), "{split}");
        assert_eq!(writes.concat(), whole, "{split}: the bytes are the whole delivery's");
    }
}
