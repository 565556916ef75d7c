use cuecard::wire::{self, HttpRequest};
use std::time::Instant;
fn main() {
    let scenario = cuecard::Scenario::from_json(&std::fs::read_to_string("bench/load.json").unwrap()).unwrap();
    let limit: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(1000);
    let mock = cuecard::MockModel::from_scenario(&scenario).unwrap();
    mock.set_journal_limit(Some(limit));
    let body =
        br#"{"model":"gpt-4o","stream":false,"messages":[{"role":"user","content":"What is the weather in Paris?"}]}"#
            .to_vec();
    let req = HttpRequest {
        method: "POST".into(),
        path: "/v1/chat/completions".into(),
        query: String::new(),
        headers: vec![("content-type".into(), "application/json".into()), ("host".into(), "127.0.0.1:8080".into())],
        body,
    };
    for _ in 0..3 {
        let n = 200_000;
        let t = Instant::now();
        let mut bytes = 0;
        for _ in 0..n {
            let r = wire::handle(&mock, &req);
            bytes += match &r {
                wire::HttpReply::Full { body, .. } => body.len(),
                _ => 0,
            };
        }
        println!("{:.2} us/request ({bytes})", t.elapsed().as_secs_f64() * 1e6 / n as f64);
    }
}
