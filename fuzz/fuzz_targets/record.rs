//! The recorder's redaction (issue #59 S1): a secret the recorder is told about, said by the upstream in a streamed
//! chat completion and split over frames and over TCP chunks at places the input chooses, never reaches the
//! written recording: not whole in the file, and not in the text a reader joins from the recorded frames. A
//! recorder may refuse the exchange instead (nothing is written then); it may not panic.
#![no_main]
use cuecard::wire::HttpRequest;
use cuecard::record::{RecordOptions, Recorder, UpstreamReply};
use libfuzzer_sys::fuzz_target;

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

fuzz_target!(|data: &[u8]| {
    let Some((&length, rest)) = data.split_first() else { return };
    let length = 8 + usize::from(length % 24);
    if rest.len() < length {
        return;
    }
    let (secret_bytes, cuts) = rest.split_at(length);
    // Upper case and digits only: nothing of the frames' own JSON can be the secret.
    let secret: String = secret_bytes.iter().map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()])).collect();
    let said = format!("the password is {secret} and again {secret}, ok");
    // The deltas, cut where the input says (1 to 8 characters each), then the SSE body cut into TCP chunks.
    let chars: Vec<char> = said.chars().collect();
    let mut deltas = Vec::new();
    let (mut at, mut cut) = (0, cuts.iter().cycle());
    while at < chars.len() {
        let take = 1 + usize::from(cut.next().copied().unwrap_or(3) % 8);
        deltas.push(chars[at..(at + take).min(chars.len())].iter().collect::<String>());
        at += take;
    }
    let mut body = String::new();
    for delta in &deltas {
        let chunk = serde_json::json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "delta": {"content": delta}, "finish_reason": null}]});
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    let bytes = body.into_bytes();
    let mut chunks = Vec::new();
    let (mut at, mut cut) = (0, cuts.iter().rev().cycle());
    while at < bytes.len() {
        let take = 1 + usize::from(cut.next().copied().unwrap_or(7)) % 97;
        chunks.push((0, bytes[at..(at + take).min(bytes.len())].to_vec()));
        at += take;
    }
    let request = HttpRequest::post_json(
        "/v1/chat/completions",
        r#"{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"the password?"}]}"#,
    );
    let reply = UpstreamReply {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        headers_ms: 0,
        chunks,
        cut: false,
    };
    let options = RecordOptions { redact_texts: vec![secret.clone()], ..RecordOptions::default() };
    let mut recorder = Recorder::new(options).expect("a recorder");
    if recorder.record(&request, &reply).is_err() {
        return; // refused: nothing is written
    }
    let Ok(text) = recorder.to_text(false) else { return };
    assert!(!text.contains(&secret), "the secret is in the file");
    let document: serde_json::Value = serde_json::from_str(&text).expect("the recording is JSON");
    let step = &document["routes"][0]["steps"][0];
    let mut joined = String::new();
    for frame in step["recorded"]["frames"].as_array().expect("recorded frames") {
        let data = frame["data"].as_str().unwrap_or_default();
        for line in data.lines().filter_map(|l| l.strip_prefix("data: ")) {
            if let Ok(event) = serde_json::from_str::<serde_json::Value>(line) {
                joined.push_str(event["choices"][0]["delta"]["content"].as_str().unwrap_or_default());
            }
        }
    }
    assert!(!joined.contains(&secret), "a reader joins the secret from the frames: {joined}");
    assert!(!step["text"].as_str().unwrap_or_default().contains(&secret), "the neutral text holds it");
});
