//! Isolation by prefix and header, its admin paths, its bound, and many tests at once on one real server.

use super::*;
use crate::{MockModel, Scenario};
use serde_json::Value;

fn default_mock() -> Arc<MockModel> {
    let scenario = json!({"cuecard": 1, "routes": [{"steps": [{"text": "first"}, {"text": "second"}]}]});
    Arc::new(MockModel::from_scenario(&Scenario::from_value(scenario).unwrap()).unwrap())
}

const CHAT: &str = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#;

/// Answers `request` as the server does: selects the test's mock, then the wire.
fn send(tests: &Tests, mut request: HttpRequest) -> (u16, Value) {
    let header = request.header(TEST_HEADER).map(str::to_string);
    let reply = match tests.select(&mut request, header.as_deref()) {
        Ok(mock) => crate::wire::handle(&mock, &request),
        Err(reply) => reply,
    };
    (reply.status(), serde_json::from_str(&reply.body_text()).unwrap_or(Value::Null))
}

fn text(body: &Value) -> String {
    body["choices"][0]["message"]["content"].as_str().unwrap_or_default().to_string()
}

#[test]
fn each_test_has_its_own_script_cursor_and_journal() {
    let tests = Tests::new(default_mock(), 10, DEFAULT_JOURNAL_TOTAL);
    let chat = |path: &str| send(&tests, HttpRequest::post_json(path, CHAT));
    assert_eq!(text(&chat("/t/a/v1/chat/completions").1), "first");
    assert_eq!(text(&chat("/t/a/v1/chat/completions").1), "second");
    assert_eq!(text(&chat("/t/b/chat/completions").1), "first", "b starts at the first step");
    assert_eq!(text(&chat("/v1/chat/completions").1), "first", "the unprefixed surface is the default test");
    let by_header = HttpRequest::post_json("/v1/chat/completions", CHAT).with_header(TEST_HEADER, "c");
    assert_eq!(text(&send(&tests, by_header).1), "first");
    assert_eq!(tests.ids(), ["a", "b", "c"]);
    let journal =
        |id: &str| send(&tests, HttpRequest::new("GET", &format!("/_cuecard/t/{id}/journal"), vec![], vec![])).1;
    assert_eq!(journal("a")["count"], 2);
    assert_eq!(journal("b")["count"], 1);
    assert_eq!(tests.default_mock().request_count(), 1);
    // A test's scenario, reset and drop.
    let scenario = r#"{"cuecard": 1, "routes": [{"steps": [{"text": "own"}]}]}"#;
    let put = HttpRequest::new("PUT", "/_cuecard/t/d/scenario", vec![], scenario.as_bytes().to_vec());
    assert_eq!(send(&tests, put).0, 200);
    assert_eq!(text(&chat("/t/d/v1/chat/completions").1), "own");
    assert_eq!(send(&tests, HttpRequest::new("POST", "/_cuecard/t/a/reset", vec![], vec![])).0, 200);
    assert_eq!(journal("a")["count"], 0);
    let delete = |id: &str| send(&tests, HttpRequest::new("DELETE", &format!("/_cuecard/t/{id}"), vec![], vec![])).1;
    assert_eq!(delete("a"), json!({"ok": true, "dropped": true}));
    assert_eq!(delete("a"), json!({"ok": true, "dropped": false}));
    let listed = send(&tests, HttpRequest::new("GET", "/_cuecard/tests", vec![], vec![])).1;
    assert_eq!(listed, json!({"tests": ["b", "c", "d"], "max_tests": 10, "journal_per_test": 10_000}));
}

#[test]
fn a_tests_checks_run_against_its_own_journal() {
    let tests = Tests::new(default_mock(), 10, DEFAULT_JOURNAL_TOTAL);
    let checks = |id: &str, body: &str| {
        let path = format!("/_cuecard/t/{id}/checks");
        send(&tests, HttpRequest::new("POST", &path, vec![], body.as_bytes().to_vec()))
    };
    send(&tests, HttpRequest::post_json("/t/a/v1/chat/completions", CHAT));
    let (status, failed) =
        checks("a", r#"[{"check": "received_requests", "times": 1}, {"check": "script_fully_used"}]"#);
    assert_eq!(status, 200);
    assert_eq!(failed["ok"], false);
    assert_eq!(failed["ran"], 2, "the first check held, the second did not");
    assert_eq!(failed["failure"]["check"], "script_fully_used()");
    assert!(failed["failure"]["message"].as_str().unwrap().contains("unused"), "{failed}");
    send(&tests, HttpRequest::post_json("/t/a/v1/chat/completions", CHAT));
    assert_eq!(checks("a", r#"{"check": "script_fully_used"}"#).1, json!({"ok": true, "ran": 1}));
    // Another test's journal is its own: b received nothing.
    assert_eq!(checks("b", r#"{"check": "received_requests", "times": 0}"#).1, json!({"ok": true, "ran": 1}));
    let (status, bad) = checks("a", r#"[{"check": "no_such_check"}]"#);
    assert_eq!(status, 400);
    assert_eq!(bad["error"]["code"], "invalid_argument", "{bad}");
    let (status, bad) = checks("a", "not json");
    assert_eq!(status, 400);
    assert!(bad["error"]["message"].as_str().unwrap().contains("POST /_cuecard/checks takes a check"), "{bad}");
}

#[test]
fn bad_ids_foreign_pages_and_admin_paths_under_the_prefix_are_refused() {
    let tests = Tests::new(default_mock(), 10, DEFAULT_JOURNAL_TOTAL);
    let (status, body) = send(&tests, HttpRequest::post_json("/t/a%20b/v1/chat/completions", CHAT));
    assert_eq!(status, 400);
    assert!(body["error"]["message"].as_str().unwrap().contains("is not a test id"), "{body}");
    let (status, body) = send(&tests, HttpRequest::new("GET", "/t/a/_cuecard/journal", vec![], vec![]));
    assert_eq!(status, 404);
    assert!(body["error"]["message"].as_str().unwrap().contains("/_cuecard/t/a/"), "{body}");
    let page =
        HttpRequest::new("DELETE", "/_cuecard/t/a", vec![("origin".into(), "https://evil.example".into())], vec![]);
    assert_eq!(send(&tests, page).0, 403);
    let off = Tests::new(default_mock(), 0, DEFAULT_JOURNAL_TOTAL);
    assert_eq!(send(&off, HttpRequest::post_json("/t/a/v1/chat/completions", CHAT)).0, 400);
}

#[test]
fn past_the_bound_the_least_recently_used_test_is_dropped_and_says_so() {
    let tests = Tests::new(default_mock(), 2, DEFAULT_JOURNAL_TOTAL);
    let chat = |id: &str| send(&tests, HttpRequest::post_json(&format!("/t/{id}/v1/chat/completions"), CHAT));
    chat("a");
    chat("b");
    chat("a"); // b is now the least recently used
    chat("c");
    assert_eq!(tests.ids(), ["a", "c"]);
    let (status, body) = chat("b");
    assert_eq!(status, 410);
    assert!(body["error"]["message"].as_str().unwrap().contains("test b was dropped: more than 2 tests"), "{body}");
    // Dropping it on purpose lets the id be used again.
    send(&tests, HttpRequest::new("DELETE", "/_cuecard/t/b", vec![], vec![]));
    assert_eq!(chat("b").0, 200);
}

/// Issue #59 S11: an evicted test is still answered 410 after many more evictions than `max_tests` (it was
/// forgotten after `max_tests`), and the memory of evictions is bounded.
#[test]
fn an_evicted_test_is_remembered_long_after_and_the_memory_is_bounded() {
    let tests = Tests::new(default_mock(), 2, DEFAULT_JOURNAL_TOTAL);
    let chat = |id: &str| send(&tests, HttpRequest::post_json(&format!("/t/{id}/v1/chat/completions"), CHAT)).0;
    chat("first");
    for n in 0..100 {
        assert_eq!(chat(&format!("t{n}")), 200);
    }
    assert_eq!(chat("first"), 410, "remembered after 100 evictions at max_tests 2");
    for n in 100..200 {
        chat(&format!("t{n}"));
    }
    let remembered = 2 * EVICTED_REMEMBERED_PER_TEST;
    assert_eq!(tests.evicted().order.len(), remembered);
    assert_eq!(tests.evicted().latest.len(), remembered);
    assert_eq!(chat("first"), 200, "forgotten after {remembered} evictions: a fresh test");
}

/// Issue #59 S4: the tests share one journal bound: each keeps its share of the total, never more than the
/// default mock's own limit.
#[test]
fn the_tests_share_one_journal_bound() {
    let tests = Tests::new(default_mock(), 4, 12);
    assert_eq!(tests.journal_share(), 3);
    let chat = |id: &str| send(&tests, HttpRequest::post_json(&format!("/t/{id}/v1/chat/completions"), CHAT));
    for _ in 0..10 {
        chat("a");
    }
    let journal = send(&tests, HttpRequest::new("GET", "/_cuecard/t/a/journal", vec![], vec![])).1;
    assert_eq!((journal["count"].as_u64(), journal["entries"].as_array().map(Vec::len)), (Some(10), Some(3)));
    let limited = default_mock();
    limited.set_journal_limit(Some(2));
    assert_eq!(Tests::new(limited, 4, 12).journal_share(), 2);
    assert_eq!(Tests::new(default_mock(), 0, 12).journal_share(), 12);
}

#[test]
#[cfg(feature = "server")] // the isolation layer is pure; this test runs it behind the real server
fn eight_threads_of_fifty_tests_each_see_exactly_their_own_requests_on_one_server() {
    use crate::{Server, ServerOptions};
    use std::io::{Read, Write};
    let server =
        Server::start_with(default_mock(), ServerOptions { instant: true, ..ServerOptions::default() }).unwrap();
    let addr = server.addr();
    let request = |path: &str, method: &str, body: &str| -> String {
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        // HTTP/1.0: the (streamed) journal comes unchunked, ended by the close.
        write!(stream, "{method} {path} HTTP/1.0\r\nhost: 127.0.0.1\r\ncontent-length: {}\r\n\r\n{body}", body.len())
            .unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        reply
    };
    std::thread::scope(|scope| {
        for worker in 0..8 {
            scope.spawn(move || {
                for test in 0..50 {
                    let id = format!("w{worker}-t{test}");
                    let calls = 1 + (worker + test) % 2; // one or two requests, so counts differ between tests
                    for _ in 0..calls {
                        assert!(request(&format!("/t/{id}/v1/chat/completions"), "POST", CHAT).contains("200 OK"));
                    }
                    let journal = request(&format!("/_cuecard/t/{id}/journal"), "GET", "");
                    let body: Value = serde_json::from_str(journal.split("\r\n\r\n").nth(1).unwrap()).unwrap();
                    assert_eq!(body["count"], calls, "{id}");
                }
            });
        }
    });
    assert_eq!(server.tests_live(), 400);
}

/// Issue #59 S10: requests to paths no endpoint serves make no test, so they cannot evict a live one; on a live
/// test the same path is that test's 404, journaled there.
#[test]
fn a_stray_path_makes_no_test_and_evicts_none() {
    let tests = Tests::new(default_mock(), 2, DEFAULT_JOURNAL_TOTAL);
    assert_eq!(send(&tests, HttpRequest::post_json("/t/live/v1/chat/completions", CHAT)).0, 200);
    for n in 0..50 {
        let stray = HttpRequest::new("GET", &format!("/t/junk{n}/favicon.ico"), Vec::new(), Vec::new());
        assert_eq!(send(&tests, stray).0, 404);
    }
    assert_eq!(tests.ids(), vec!["live".to_string()]);
    assert_eq!(send(&tests, HttpRequest::post_json("/t/live/v1/chat/completions", CHAT)).0, 200, "still live");
    let on_live = HttpRequest::new("GET", "/t/live/favicon.ico", Vec::new(), Vec::new());
    assert_eq!(send(&tests, on_live).0, 404);
    let by_header = HttpRequest::new("GET", "/favicon.ico", Vec::new(), Vec::new()).with_header(TEST_HEADER, "junk-h");
    assert_eq!(send(&tests, by_header).0, 404, "the header names a test the same way");
    assert_eq!(tests.ids(), vec!["live".to_string()]);
    let mock = tests.select(&mut HttpRequest::post_json("/t/live/v1/models", ""), None).unwrap();
    assert_eq!(mock.request_count(), 3, "two chats and the live test's own 404");
}

#[test]
fn an_agent_card_fetched_under_a_test_prefix_names_the_endpoint_under_it() {
    let scenario = json!({"cuecard": 1, "a2a": {"agents": [{"name": "researcher", "steps": [{"text": "done"}]}]}});
    let default = Arc::new(MockModel::from_scenario(&Scenario::from_value(scenario).unwrap()).unwrap());
    let tests = Tests::new(default, 10, DEFAULT_JOURNAL_TOTAL);
    let card = |path: &str| {
        let request = HttpRequest::new("GET", path, vec![("host".into(), "127.0.0.1:9".into())], vec![]);
        send(&tests, request).1
    };
    // A client that resolves the card under `/t/{id}` must send its messages there too, or they reach the default.
    let prefixed = card("/t/alpha/a2a/.well-known/agent-card.json");
    assert_eq!(prefixed["url"], "http://127.0.0.1:9/t/alpha/a2a/researcher");
    assert_eq!(prefixed["supportedInterfaces"][0]["url"], "http://127.0.0.1:9/t/alpha/a2a/researcher");
    assert_eq!(card("/a2a/.well-known/agent-card.json")["url"], "http://127.0.0.1:9/a2a/researcher");
}
