//! `cuecard record` against a local upstream (another `cuecard serve`), then `cuecard serve` on the recording:
//! the client sees the same bytes for every protocol, whole and streamed; the proxy relays a stream as it arrives;
//! no key reaches the file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::io::{BufRead, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const KEY: &str = "sk-test-recorder0123456789abcdefghij";

/// A running `cuecard` and the address its first stdout line names (`... http://ADDR...`).
struct Running {
    child: Child,
    addr: String,
}

impl Running {
    fn start(args: &[&str]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cuecard"))
            .args(args)
            .env_remove("CI")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let after = first.split("http://").nth(1).unwrap_or_else(|| panic!("no address in {first:?}"));
        let addr = after.split(['/', ' ']).next().unwrap().to_string();
        std::thread::spawn(move || for _ in lines {});
        Running { child, addr }
    }

    fn stop(mut self) -> String {
        Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().unwrap();
        let mut stderr = String::new();
        self.child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
        assert!(self.child.wait().unwrap().success(), "{stderr}");
        stderr
    }
}

/// One request over HTTP/1.1: the status, the headers and the body (de-chunked), and when each body chunk came.
fn send(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, Vec<u8>, Vec<Duration>) {
    let started = Instant::now();
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let mut head =
        format!("{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-length: {}\r\n", body.len());
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    write!(stream, "{head}\r\n{body}").unwrap();
    let mut raw = Vec::new();
    let mut arrivals = Vec::new();
    let mut buffer = [0u8; 65536];
    loop {
        let n = stream.read(&mut buffer).unwrap();
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buffer[..n]);
        arrivals.push(started.elapsed());
    }
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let headers = String::from_utf8(raw[..split].to_vec()).unwrap();
    let status: u16 = headers[9..12].parse().unwrap();
    let mut body = raw[split + 4..].to_vec();
    if headers.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        let mut plain = Vec::new();
        let mut rest = &body[..];
        loop {
            let line_end = rest.windows(2).position(|w| w == b"\r\n").unwrap();
            let size = usize::from_str_radix(std::str::from_utf8(&rest[..line_end]).unwrap().trim(), 16).unwrap();
            if size == 0 {
                break;
            }
            plain.extend_from_slice(&rest[line_end + 2..line_end + 2 + size]);
            rest = &rest[line_end + 2 + size + 2..];
        }
        body = plain;
    }
    (status, headers, body, arrivals)
}

/// Every chat protocol, whole and streamed.
fn requests() -> Vec<(&'static str, String)> {
    let chat = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"Weather in Paris?"}]STREAM}"#;
    let messages = r#"{"model":"claude-sonnet-4-5","max_tokens":256,"messages":[{"role":"user","content":"Weather in Paris?"}]STREAM}"#;
    let gemini = r#"{"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]}]}"#;
    let ollama = r#"{"model":"llama3.2","messages":[{"role":"user","content":"Weather in Paris?"}]STREAM}"#;
    let converse = r#"{"messages":[{"role":"user","content":[{"text":"Weather in Paris?"}]}]}"#;
    let with = |t: &str, s: &str| t.replace("STREAM", s);
    vec![
        ("/v1/chat/completions", with(chat, "")),
        ("/v1/chat/completions", with(chat, r#","stream":true"#)),
        ("/v1/responses", r#"{"model":"gpt-4o","input":"Weather in Paris?"}"#.into()),
        ("/v1/responses", r#"{"model":"gpt-4o","input":"Weather in Paris?","stream":true}"#.into()),
        ("/v1/messages", with(messages, "")),
        ("/v1/messages", with(messages, r#","stream":true"#)),
        ("/v1beta/models/gemini-2.5-flash:generateContent", gemini.into()),
        ("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", gemini.into()),
        ("/api/chat", with(ollama, r#","stream":false"#)),
        ("/api/chat", with(ollama, "")),
        ("/model/amazon.nova-pro-v1:0/converse", converse.into()),
        ("/model/amazon.nova-pro-v1:0/converse-stream", converse.into()),
    ]
}

fn upstream_scenario(dir: &std::path::Path) -> String {
    let step = serde_json::json!({"text": "It is sunny in Paris, 22 degrees.", "token_delay_ms": 25, "ttft_ms": 100});
    let scenario = serde_json::json!({"cuecard": 1, "routes": [{"steps": vec![step; 16]}]});
    let path = dir.join("upstream.json");
    std::fs::write(&path, scenario.to_string()).unwrap();
    path.display().to_string()
}

#[test]
fn recorded_through_the_proxy_every_protocol_replays_the_same_bytes() {
    let dir = std::env::temp_dir().join(format!("cuecard-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("recording.yaml");
    let upstream = Running::start(&["serve", "--port", "0", "--scenario", &upstream_scenario(&dir)]);
    let url = format!("http://{}", upstream.addr);
    let proxy =
        Running::start(&["record", "--upstream", &url, "--out", out.to_str().unwrap(), "--port", "0", "--mode", "all"]);
    let auth = format!("Bearer {KEY}");
    let headers =
        [("content-type", "application/json"), ("authorization", auth.as_str()), ("anthropic-version", "2023-06-01")];
    let mut recorded = Vec::new();
    for (path, body) in requests() {
        let (status, head, bytes, arrivals) = send(&proxy.addr, "POST", path, &headers, &body);
        assert_eq!(status, 200, "{path}: {head}\n{}", String::from_utf8_lossy(&bytes));
        if path == "/v1/chat/completions" && body.contains("stream") {
            // Relayed as it arrives: the first bytes come long before the last (about 800 ms of tokens).
            let (first, last) = (arrivals[0], *arrivals.last().unwrap());
            assert!(last - first > Duration::from_millis(300), "buffered: first {first:?}, last {last:?}");
        }
        recorded.push((path, body, bytes));
    }
    let stopped = proxy.stop();
    assert!(stopped.contains("12 exchange(s) recorded"), "{stopped}");
    upstream.stop();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains(KEY), "the key is in the recording");
    assert!(text.contains("recording:") && text.contains("at_ms:"), "{text}");
    let validate =
        Command::new(env!("CARGO_BIN_EXE_cuecard")).args(["validate", out.to_str().unwrap()]).output().unwrap();
    assert!(validate.status.success(), "{}", String::from_utf8_lossy(&validate.stdout));

    let replay = Running::start(&["serve", "--port", "0", "--instant", "--scenario", out.to_str().unwrap()]);
    for (path, body, bytes) in &recorded {
        let (status, _, replayed, _) = send(&replay.addr, "POST", path, &headers, body);
        assert_eq!(status, 200, "{path}");
        assert!(
            replayed == *bytes,
            "{path}: the replay differs\n{}\n---\n{}",
            String::from_utf8_lossy(&replayed),
            String::from_utf8_lossy(bytes)
        );
    }
    let lyon = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"Weather in Lyon?"}]}"#;
    let (status, _, miss, _) = send(&replay.addr, "POST", "/v1/chat/completions", &headers, lyon);
    assert_eq!(status, 422);
    let miss = String::from_utf8(miss).unwrap();
    assert!(
        miss.contains("no_recording") && miss.contains(r#"\"Weather in Paris?\" != \"Weather in Lyon?\""#),
        "{miss}"
    );
    replay.stop();

    // Mode new: what the file has is replayed (the upstream is gone), what it lacks goes to the upstream.
    let upstream = Running::start(&["serve", "--port", "0", "--scenario", &upstream_scenario(&dir)]);
    let url = format!("http://{}", upstream.addr);
    let proxy =
        Running::start(&["record", "--upstream", &url, "--out", out.to_str().unwrap(), "--port", "0", "--mode", "new"]);
    let (status, _, known, _) = send(&proxy.addr, "POST", recorded[0].0, &headers, &recorded[0].1);
    assert_eq!((status, known == recorded[0].2), (200, true));
    let (status, _, new, _) = send(&proxy.addr, "POST", "/v1/chat/completions", &headers, lyon);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&new));
    assert!(proxy.stop().contains("1 exchange(s) recorded"));
    upstream.stop();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("Weather in Lyon?") && text.contains("Weather in Paris?"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn recording_in_ci_is_refused_unless_allowed_and_bad_upstreams_are_named() {
    let out = Command::new(env!("CARGO_BIN_EXE_cuecard"))
        .args(["record", "--upstream", "http://127.0.0.1:9", "--out", "/tmp/never.yaml", "--port", "0"])
        .env("CI", "true")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-in-ci"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new(env!("CARGO_BIN_EXE_cuecard"))
        .args(["record", "--upstream", "claude=https://x", "--out", "/tmp/never.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown protocol \"claude\""));
    let out = Command::new(env!("CARGO_BIN_EXE_cuecard"))
        .args(["record", "--upstream", "ftp://x", "--out", "/tmp/never.yaml"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not an http:// or https:// URL"));
}

/// A TLS front for `upstream` with a self-signed certificate for 127.0.0.1 (made by openssl): the certificate's
/// PEM, and the port it listens on.
fn tls_front(dir: &std::path::Path, upstream: String) -> (std::path::PathBuf, u16, tokio::runtime::Runtime) {
    use rustls_pki_types::pem::PemObject;
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = Command::new("openssl")
        .args(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"])
        .args(["-subj", "/CN=cuecard-test", "-addext", "subjectAltName=IP:127.0.0.1"])
        .args(["-addext", "basicConstraints=critical,CA:FALSE", "-addext", "extendedKeyUsage=serverAuth"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let certs: Vec<_> = rustls_pki_types::CertificateDer::pem_file_iter(&cert).unwrap().map(Result::unwrap).collect();
    let key = rustls_pki_types::PrivateKeyDer::from_pem_file(&key).unwrap();
    let config =
        rustls::ServerConfig::builder_with_provider(std::sync::Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let port = listener.local_addr().unwrap().port();
    runtime.spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (acceptor, upstream) = (acceptor.clone(), upstream.clone());
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(stream).await else { return };
                let mut plain = tokio::net::TcpStream::connect(upstream).await.unwrap();
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    (cert, port, runtime)
}

#[test]
fn an_https_upstream_with_a_private_ca_records_and_replays_the_same_bytes() {
    let dir = std::env::temp_dir().join(format!("cuecard-record-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("recording.json");
    let upstream = Running::start(&["serve", "--port", "0", "--instant", "--scenario", &upstream_scenario(&dir)]);
    let (cert, port, _front) = tls_front(&dir, upstream.addr.clone());
    let url = format!("anthropic=https://127.0.0.1:{port}");
    let (ca, file) = (cert.to_str().unwrap(), out.to_str().unwrap());
    // Without the private CA the upstream's certificate is refused, and nothing is recorded.
    let untrusting = Running::start(&["record", "--upstream", &url, "--out", file, "--port", "0", "--mode", "all"]);
    let headers = [("content-type", "application/json"), ("x-api-key", KEY), ("anthropic-version", "2023-06-01")];
    let (path, body) = requests().remove(5);
    let (status, _, refused, _) = send(&untrusting.addr, "POST", path, &headers, &body);
    assert_eq!(status, 502);
    assert!(String::from_utf8_lossy(&refused).contains("TLS"), "{}", String::from_utf8_lossy(&refused));
    assert!(untrusting.stop().contains("0 exchange(s) recorded"));
    let proxy = Running::start(&[
        "record",
        "--upstream",
        &url,
        "--upstream-ca",
        ca,
        "--out",
        file,
        "--port",
        "0",
        "--mode",
        "all",
    ]);
    let (status, _, streamed, _) = send(&proxy.addr, "POST", path, &headers, &body);
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&streamed));
    proxy.stop();
    upstream.stop();
    assert!(!std::fs::read_to_string(&out).unwrap().contains(KEY));
    let replay = Running::start(&["serve", "--port", "0", "--instant", "--scenario", file]);
    let (_, _, replayed, _) = send(&replay.addr, "POST", path, &headers, &body);
    assert!(replayed == streamed, "the replay differs");
    replay.stop();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_vcrpy_cassette_imports_validates_and_replays_its_stream_byte_for_byte() {
    let dir = std::env::temp_dir().join(format!("cuecard-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cassette = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/recordings/vcrpy-cassette.yaml");
    let out = dir.join("imported.yaml");
    let imported = Command::new(env!("CARGO_BIN_EXE_cuecard"))
        .args(["recording", "import", "--from", "vcrpy", cassette, "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&imported.stdout);
    assert!(imported.status.success(), "{report}{}", String::from_utf8_lossy(&imported.stderr));
    assert!(report.contains("interaction 1 left out") && report.contains("3 exchange(s) imported"), "{report}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains("sk-live-") && !text.contains("sk-ant-secret") && !text.contains("org-secret"));
    let validated = Command::new(env!("CARGO_BIN_EXE_cuecard")).arg("validate").arg(&out).output().unwrap();
    assert!(String::from_utf8_lossy(&validated.stdout).contains("ok (3 routes, 3 steps)"));
    let server = Running::start(&["serve", "--port", "0", "--instant", "--scenario", out.to_str().unwrap()]);
    let body = r#"{"messages":[{"role":"user","content":"Stream it"}],"model":"gpt-4o","stream":true}"#;
    let (status, _, streamed, _) =
        send(&server.addr, "POST", "/v1/chat/completions", &[("content-type", "application/json")], body);
    assert_eq!(status, 200);
    // The cassette's SSE body, as its YAML string says it.
    let chunk = |delta: &str, finish: &str| {
        format!(
            "data: {{\"id\":\"c2\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n"
        )
    };
    let expected = chunk(r#"{"role":"assistant","content":"Hot"}"#, "null")
        + &chunk(r#"{"content":" today"}"#, r#""stop""#)
        + "data: [DONE]\n\n";
    assert_eq!(String::from_utf8(streamed).unwrap(), expected);
    server.stop();
    let missing = Command::new(env!("CARGO_BIN_EXE_cuecard"))
        .args(["recording", "import", "--from", "vcrpy", "/nonexistent.yaml", "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read /nonexistent.yaml"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `cuecard ARGS` run to its end within 20 s (a command that never ends fails the test instead of hanging it).
fn run_bounded(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cuecard"))
        .args(args)
        .env_remove("CI")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("cuecard {args:?} did not end in 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    (child.wait().unwrap().code(), stderr)
}

#[test]
fn a_second_recorder_an_unwritable_out_and_a_fifo_cassette_are_refused() {
    let dir = std::env::temp_dir().join(format!("cuecard-record-refusals-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Issue #59 S8: an --out that cannot be written (its directory is a file) refuses to start.
    let blocker = dir.join("a-file");
    std::fs::write(&blocker, "").unwrap();
    let unwritable = blocker.join("r.yaml");
    let (code, stderr) =
        run_bounded(&["record", "--upstream", "http://127.0.0.1:9", "--out", unwritable.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("cannot write") && stderr.contains("a-file"), "{stderr}");

    // S7: a second recorder of one --out is refused while the first runs, naming the first's process.
    let out = dir.join("shared.yaml");
    let first = Running::start(&["record", "--upstream", "http://127.0.0.1:9", "--out", out.to_str().unwrap()]);
    let (code, stderr) = run_bounded(&["record", "--upstream", "http://127.0.0.1:9", "--out", out.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("is being recorded by another recorder (process {})", first.child.id())),
        "{stderr}"
    );
    first.stop();
    // Once it stopped, the file is free again, and nothing but the recordings is left in their directory.
    assert!(std::fs::read_dir(&dir).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().contains("lock")));
    let again = Running::start(&["record", "--upstream", "http://127.0.0.1:9", "--out", out.to_str().unwrap()]);
    again.stop();

    // S9: a cassette that is a FIFO is refused at once, not read forever.
    let fifo = dir.join("cassette.yaml");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (code, stderr) = run_bounded(&[
        "recording",
        "import",
        "--from",
        "vcrpy",
        fifo.to_str().unwrap(),
        "--out",
        dir.join("x.yaml").to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The MCP conversation both MCP recording tests hold: the handshake, every list, calls with a result and with a
/// tool error, a resource read and a prompt.
fn mcp_messages() -> Vec<serde_json::Value> {
    use serde_json::json;
    let call = |id: u32, city: &str| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "get_forecast", "arguments": {"city": city}}});
    vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        call(3, "Paris"),
        call(4, "Atlantis"),
        json!({"jsonrpc": "2.0", "id": 5, "method": "resources/list"}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "resources/read", "params": {"uri": "file:///notes.txt"}}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "prompts/list"}),
        json!({"jsonrpc": "2.0", "id": 8, "method": "prompts/get", "params": {"name": "summarize", "arguments": {"topic": "rain"}}}),
    ]
}

/// Runs `cuecard ARGS` with the MCP messages on stdin; its answers by id.
fn mcp_over_stdio(args: &[&str]) -> (std::collections::BTreeMap<u64, serde_json::Value>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cuecard"))
        .args(args)
        .env_remove("CI")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A command that refuses at once (a recording it will not overwrite) exits before reading: its stdin may be
    // closed under the writes, which is not this test's failure (its stderr is).
    for message in mcp_messages() {
        if writeln!(stdin, "{message}").is_err() {
            break;
        }
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let answers = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter_map(|answer| Some((answer["id"].as_u64()?, answer)))
        .collect();
    (answers, String::from_utf8(output.stderr).unwrap())
}

fn mcp_server_scenario() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/scenarios/mcp-agent.json").to_string()
}

#[test]
fn an_mcp_server_over_stdio_is_recorded_and_its_recording_answers_the_same() {
    let dir = std::env::temp_dir().join(format!("cuecard-record-mcp-stdio-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("weather-mcp.yaml");
    let (out_text, server) = (out.to_str().unwrap(), mcp_server_scenario());
    let bin = env!("CARGO_BIN_EXE_cuecard");
    let (live, said) = mcp_over_stdio(&["record", "--out", out_text, "--", bin, "mcp", "--scenario", &server]);
    assert_eq!(live.len(), 8, "{said}");
    assert!(said.contains("8 MCP exchange(s) recorded"), "{said}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("mcp:") && text.contains("name: weather") && text.contains("recorded_on:"), "{text}");
    let (replayed, said) = mcp_over_stdio(&["mcp", "--scenario", out_text]);
    for (id, answer) in &live {
        assert_eq!(replayed.get(id), Some(answer), "answer {id} differs on replay ({said})");
    }
    assert_eq!(live[&3]["result"]["content"][0]["text"], "22 °C, sunny");
    assert_eq!(live[&4]["result"]["isError"], true);
    // Recording again onto the file in mode once is refused, naming how to replay it.
    let (_, said) = mcp_over_stdio(&["record", "--out", out_text, "--", bin, "mcp", "--scenario", &server]);
    assert!(said.contains("replay it with `cuecard mcp --scenario"), "{said}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_mcp_server_over_http_is_recorded_through_the_proxy_and_replayed_by_serve() {
    let dir = std::env::temp_dir().join(format!("cuecard-record-mcp-http-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("weather-mcp.yaml");
    let upstream = Running::start(&["serve", "--port", "0", "--scenario", &mcp_server_scenario()]);
    let url = format!("mcp=http://{}", upstream.addr);
    let proxy = Running::start(&["record", "--upstream", &url, "--out", out.to_str().unwrap(), "--port", "0"]);
    let conversation = |addr: &str| {
        let mut session = String::new();
        let mut answers = std::collections::BTreeMap::new();
        for message in mcp_messages() {
            let mut headers =
                vec![("content-type", "application/json"), ("accept", "application/json, text/event-stream")];
            if !session.is_empty() {
                headers.push(("mcp-session-id", session.as_str()));
            }
            let (status, head, body, _) = send(addr, "POST", "/mcp", &headers, &message.to_string());
            assert!(status == 200 || status == 202, "{status} {head}");
            if let Some(line) = head.lines().find(|l| l.to_ascii_lowercase().starts_with("mcp-session-id:")) {
                session = line.split_once(':').unwrap().1.trim().to_string();
            }
            let body = String::from_utf8(body).unwrap();
            let json = body.lines().find_map(|l| l.strip_prefix("data: ")).unwrap_or(&body).to_string();
            if let (Ok(answer), Some(id)) = (serde_json::from_str::<serde_json::Value>(&json), message["id"].as_u64()) {
                answers.insert(id, answer);
            }
        }
        answers
    };
    let live = conversation(&proxy.addr);
    let stopped = proxy.stop();
    assert!(stopped.contains("8 exchange(s) recorded"), "{stopped}");
    upstream.stop();
    let replay = Running::start(&["serve", "--port", "0", "--instant", "--scenario", out.to_str().unwrap()]);
    let replayed = conversation(&replay.addr);
    replay.stop();
    assert_eq!(live.len(), 8);
    for (id, answer) in &live {
        assert_eq!(replayed.get(id), Some(answer), "answer {id} differs on replay");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A remote agent's scenario: what the partner agent answers.
fn a2a_partner_scenario(dir: &std::path::Path) -> String {
    let scenario = serde_json::json!({"cuecard": 1, "a2a": {"agents": [{
    "name": "partner", "description": "Books trips",
    "skills": [{"id": "book", "name": "Booking", "tags": ["travel"]}],
    "steps": [
        {"match": {"text": "Paris"}, "text": "Booked Paris for Tuesday.", "status": "All set"},
        {"match": {"text": "Rome"}, "state": "input_required", "status": "Which day?"},
        {"error": {"code": -32005, "message": "Incompatible content types"}},
        {"match": {"text": "Lisbon"}, "text": "Lisbon is sunny."},
    ]}]}});
    let path = dir.join("partner.json");
    std::fs::write(&path, scenario.to_string()).unwrap();
    path.display().to_string()
}

#[test]
fn a_remote_agent_is_recorded_through_the_proxy_and_replayed_by_serve() {
    let dir = std::env::temp_dir().join(format!("cuecard-record-a2a-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("partner-a2a.yaml");
    let upstream = Running::start(&["serve", "--port", "0", "--scenario", &a2a_partner_scenario(&dir)]);
    let url = format!("a2a=http://{}/a2a/partner", upstream.addr);
    let proxy = Running::start(&["record", "--upstream", &url, "--out", out.to_str().unwrap(), "--port", "0"]);
    let auth = ("authorization", "Bearer partner-secret-0123456789");
    let conversation = |addr: &str| {
        let (status, _, card, _) = send(addr, "GET", "/a2a/.well-known/agent-card.json", &[auth], "");
        assert_eq!(status, 200);
        let mut card: serde_json::Value = serde_json::from_slice(&card).unwrap();
        // The proxy's card names `/a2a` (where the client is); serve's names the agent (`/a2a/partner`).
        let endpoint = card["url"].as_str().unwrap();
        assert!(
            endpoint.starts_with(&format!("http://{addr}/a2a")),
            "the card sends the client back to {addr}: {endpoint}"
        );
        card.as_object_mut().unwrap().retain(|k, _| !["url", "supportedInterfaces"].contains(&k.as_str()));
        let mut answers = vec![card];
        let message = |text: &str| serde_json::json!({"role": "user", "kind": "message", "messageId": text, "parts": [{"kind": "text", "text": text}]});
        for (method, text) in
            [("message/send", "Book Paris"), ("message/stream", "Book Rome"), ("message/send", "Book Mars")]
        {
            let body =
                serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": message(text)}});
            let (status, _, answer, _) =
                send(addr, "POST", "/a2a", &[("content-type", "application/json"), auth], &body.to_string());
            assert_eq!(status, 200);
            answers.push(serde_json::Value::String(String::from_utf8(answer).unwrap()));
        }
        answers
    };
    let live = conversation(&proxy.addr);
    let stopped = proxy.stop();
    assert!(stopped.contains("4 exchange(s) recorded"), "{stopped}");
    // Mode new replays what the file has and forwards what it lacks: a message no recorded step takes (the replay's
    // `script_exhausted`) reaches the partner and is appended; the recorded ones are not asked again.
    let again =
        Running::start(&["record", "--upstream", &url, "--out", out.to_str().unwrap(), "--port", "0", "--mode", "new"]);
    let ask = |addr: &str, text: &str| {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 9, "method": "message/send", "params": {"message":
            {"role": "user", "kind": "message", "messageId": text, "parts": [{"kind": "text", "text": text}]}}});
        let (status, _, answer, _) =
            send(addr, "POST", "/a2a", &[("content-type", "application/json"), auth], &body.to_string());
        assert_eq!(status, 200);
        String::from_utf8(answer).unwrap()
    };
    assert!(ask(&again.addr, "Book Paris").contains("Booked Paris for Tuesday."), "replayed from the file");
    let lisbon = ask(&again.addr, "Book Lisbon");
    assert!(lisbon.contains("Lisbon is sunny."), "forwarded to the partner: {lisbon}");
    let stopped = again.stop();
    assert!(stopped.contains("1 exchange(s) recorded"), "only the new message was recorded: {stopped}");
    upstream.stop();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("Lisbon is sunny.") && text.matches("Booked Paris for Tuesday.").count() == 1, "{text}");
    assert!(text.contains("a2a:") && text.contains("name: partner") && text.contains("Booked Paris"), "{text}");
    assert!(!text.contains("partner-secret"), "the agent's credential is not written: {text}");
    assert!(live[2].as_str().unwrap().contains("input-required"), "{:?}", live[2]);
    let replay = Running::start(&["serve", "--port", "0", "--instant", "--scenario", out.to_str().unwrap()]);
    let replayed = conversation(&replay.addr);
    replay.stop();
    assert_eq!(replayed, live, "the recording answers as the partner did");
    std::fs::remove_dir_all(&dir).unwrap();
}
