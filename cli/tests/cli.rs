//! The `cuecard` binary as a user runs it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn cuecard(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cuecard"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn repo_file(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn tokenize_prints_one_json_array() {
    let out = cuecard(&["tokenize"], "Hello, world! Order 12345 你好".as_bytes());
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "[\"Hello\",\",\",\" world\",\"!\",\" Order\",\" \",\"123\",\"45\",\" \",\"你\",\"好\"]\n"
    );
}

#[test]
fn tokenize_count() {
    let out = cuecard(&["tokenize", "--count"], b"Hello, world!");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "4\n");
    let out = cuecard(&["tokenize", "--count"], b"");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "0\n");
}

#[test]
fn invalid_utf8_is_a_clear_error_with_exit_code_2() {
    let out = cuecard(&["tokenize"], b"ok \xff\xfe");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "cuecard: stdin is not valid UTF-8: invalid byte at offset 3\n");
}

#[test]
fn validate_accepts_good_files_and_prints_each_problem_with_its_path() {
    let out = cuecard(&["validate", &repo_file("tests/scenarios/default.json")], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8(out.stdout).unwrap().ends_with(": ok (3 routes, 7 steps)\n"));

    let dir = std::env::temp_dir().join(format!("cuecard-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"cuecard": 1, "routes": [{"steps": [{"text": ""}, {"tokens": ["a", ""]}]}]}"#).unwrap();
    let out = cuecard(&["validate", bad.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].ends_with(
        "bad.json: routes[0].steps[0].text: the text cannot be empty: use \"tokens\": [] for an answer without text"
    ));
    assert!(lines[1].ends_with("bad.json: routes[0].steps[1].tokens[1]: a token cannot be empty"));

    let missing = dir.join("missing.json");
    let out = cuecard(&["validate", missing.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stdout).unwrap().contains("cannot read"));
    let binary = dir.join("binary.json");
    std::fs::write(&binary, b"{\xff}").unwrap();
    let out = cuecard(&["validate", binary.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stdout).unwrap().contains("not valid UTF-8 (byte 1) (invalid_utf8)"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn serve_prints_the_base_urls_answers_and_stops_on_sigterm() {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_cuecard"))
        .args(["serve", "--port", "0", "--instant"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let openai = lines.next().unwrap().unwrap();
    let anthropic = lines.next().unwrap().unwrap();
    assert!(openai.starts_with("OpenAI base URL:    http://127.0.0.1:") && openai.ends_with("/v1"), "{openai}");
    assert!(anthropic.starts_with("Anthropic base URL: http://127.0.0.1:"), "{anthropic}");
    let ai_sdk = lines.next().unwrap().unwrap();
    let url = anthropic.split_whitespace().last().unwrap(); // each line ends with its URL
    assert_eq!(ai_sdk, format!("AI SDK Anthropic:   {url}/v1"), "the AI SDK's Anthropic provider wants /v1");
    let _admin = lines.next().unwrap().unwrap();
    let journal = lines.next().unwrap().unwrap();
    assert_eq!(journal, "journal:            the newest 10000 requests (--journal-limit; counters count all)");
    let tests = lines.next().unwrap().unwrap();
    assert_eq!(
        tests,
        "tests:              under /t/{id}/, at most 1000 live, each keeping its newest 100 requests \
         (--max-tests, --journal-total 100000)"
    );
    let addr = url.rsplit("//").next().unwrap().to_string();
    let body = r#"{"model":"claude","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}"#;
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        stream,
        "POST /v1/messages HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    std::io::Read::read_to_string(&mut stream, &mut reply).unwrap();
    assert!(reply.contains(r#""text":"Hello! I am cuecard, a scripted stand-in for an LLM.""#), "{reply}");
    assert!(reply.contains(r#""type":"thinking""#), "the default scenario thinks first: {reply}");
    // `cuecard health` (the container image's HEALTHCHECK): 0 while it answers, 1 once it is gone.
    let health = |url: &str| Command::new(env!("CARGO_BIN_EXE_cuecard")).args(["health", url]).output().unwrap();
    let healthy = health(&format!("http://{addr}"));
    assert_eq!(healthy.status.code(), Some(0), "{}", String::from_utf8_lossy(&healthy.stdout));
    assert!(String::from_utf8_lossy(&healthy.stdout).starts_with("healthy: "));
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "cuecard: stopped\n");
    let gone = health(&format!("http://{addr}"));
    assert_eq!(gone.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&gone.stdout).starts_with("unhealthy: cannot connect"));
    assert_eq!(health("ftp://x").status.code(), Some(2), "not a URL: a usage error");
}

#[test]
fn serve_refuses_an_invalid_scenario_with_its_paths() {
    let dir = std::env::temp_dir().join(format!("cuecard-serve-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"cuecard": 1, "routes": [{"steps": [{"fail": {"kind": "nope"}}]}]}"#).unwrap();
    let out = cuecard(&["serve", "--port", "0", "--scenario", bad.to_str().unwrap()], b"");
    let validated = cuecard(&["validate", bad.to_str().unwrap()], b"");
    assert_eq!((out.status.code(), validated.status.code()), (Some(1), Some(1)), "one exit code for a bad scenario");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("cuecard: routes[0].steps[0].fail.kind: unknown variant `nope`"), "{stderr}");
    // Each problem is printed once (the summary line does not repeat the first one).
    assert_eq!(stderr.matches("unknown variant").count(), 1, "{stderr}");
    assert!(stderr.ends_with("cuecard: the scenario has 1 problem; nothing is served\n"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn validate_prints_a_yaml_problem_with_its_path_once() {
    let dir = std::env::temp_dir().join(format!("cuecard-yaml-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "cuecard: 1\nroutes:\n  - steps:\n      - tokens: 5\n").unwrap();
    let out = cuecard(&["validate", bad.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("routes[0].steps[0].tokens").count(), 1, "{text}");
    assert!(
        text.trim_end()
            .ends_with("bad.yaml: routes[0].steps[0].tokens: invalid type: integer `5`, expected a sequence"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn serve_on_a_busy_port_suggests_port_0() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = cuecard(&["serve", "--port", &port], b"");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains(&format!("cannot serve on 127.0.0.1:{port}")), "{stderr}");
    assert!(stderr.contains("--port 0 for a free one"), "{stderr}");
}

/// CPU time (user + system, in clock ticks) a process has used, from /proc.
#[cfg(target_os = "linux")]
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name (which may hold spaces) start after the last ')': utime and stime are the
    // 12th and 13th of them.
    let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Out of file descriptors (`ulimit -n 64`, then 100 connections held open), the server waits between failed
/// accepts instead of spinning a core, and answers again once descriptors are free.
#[test]
#[cfg(target_os = "linux")]
fn out_of_file_descriptors_the_server_backs_off_and_recovers() {
    use std::io::{BufRead, Read};
    let command =
        format!("ulimit -n 64 && exec {} serve --port 0 --instant --idle-timeout-ms 0", env!("CARGO_BIN_EXE_cuecard"));
    let mut child =
        Command::new("sh").args(["-c", &command]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let anthropic = lines.nth(1).unwrap().unwrap();
    let addr = anthropic.rsplit("//").next().unwrap().to_string();
    let held: Vec<std::net::TcpStream> = (0..100).map(|_| std::net::TcpStream::connect(&addr).unwrap()).collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let before = cpu_ticks(child.id());
    std::thread::sleep(std::time::Duration::from_secs(2));
    let spent = cpu_ticks(child.id()) - before;
    assert!(spent < 40, "the server used {spent} ticks of CPU in 2 s while out of descriptors (a spin uses ~200)");
    drop(held);
    let body = r#"{"model":"claude","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}"#;
    // Freed descriptors come back as the server reads the held connections' EOFs and drains its backlog; then
    // it answers. Each try waits a little, whatever failed.
    let mut answered = false;
    let mut last = String::new();
    for _ in 0..100 {
        std::thread::sleep(std::time::Duration::from_millis(100));
        let mut stream = match std::net::TcpStream::connect(&addr) {
            Ok(stream) => stream,
            Err(e) => {
                last = format!("connect: {e}");
                continue;
            }
        };
        stream.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
        let request = format!(
            "POST /v1/messages HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        let mut reply = String::new();
        match stream.write_all(request.as_bytes()).and_then(|()| stream.read_to_string(&mut reply)) {
            Ok(_) if reply.starts_with("HTTP/1.1 200") => {
                answered = true;
                break;
            }
            Ok(_) => last = format!("reply: {}", reply.lines().next().unwrap_or("(empty)")),
            Err(e) => last = format!("exchange: {e}"),
        }
    }
    let exited = child.try_wait().unwrap();
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let _ = child.wait();
    assert!(exited.is_none(), "the server died out of descriptors: {exited:?}");
    assert!(answered, "the server answers again once descriptors are free (last try: {last})");
}

/// Beyond loopback, `serve` warns that the admin surface is open, unless an admin token guards it.
#[test]
fn serve_beyond_loopback_warns_about_the_admin_surface() {
    use std::io::BufRead;
    for (token, expected) in [(None, "set --admin-token"), (Some("t0ken"), "the admin paths require the --admin-token")]
    {
        let mut command = Command::new(env!("CARGO_BIN_EXE_cuecard"));
        command.args(["serve", "--host", "0.0.0.0", "--port", "0"]).env_remove("CUECARD_ADMIN_TOKEN");
        if let Some(token) = token {
            command.env("CUECARD_ADMIN_TOKEN", token);
        }
        let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut warning = String::new();
        stderr.read_line(&mut warning).unwrap();
        let _ = child.kill();
        let _ = child.wait();
        assert!(warning.starts_with("cuecard: warning: serving on 0.0.0.0 (not loopback)"), "{warning}");
        assert!(warning.contains(expected), "{warning}");
    }
}

#[test]
fn serve_refuses_an_empty_admin_token_from_the_flag_or_the_environment() {
    let out = cuecard(&["serve", "--port", "0", "--admin-token", ""], b"");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("the admin token is empty"), "{stderr}");
    let out = Command::new(env!("CARGO_BIN_EXE_cuecard"))
        .args(["serve", "--port", "0"])
        .env("CUECARD_ADMIN_TOKEN", "")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stderr).unwrap().contains("the admin token is empty"));
}
