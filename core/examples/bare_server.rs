//! A bare hyper server that answers every request with one fixed chat completion: the practical ceiling of
//! this machine for `bench/server-load.sh`, measured in the same run as cuecard's server.
//!
//! `bare_server WORK_NS` first keeps the CPU busy for WORK_NS nanoseconds per request: the same server doing a
//! fixed amount of work, which shows how fast throughput falls below the ceiling once a request costs anything
//! (with the load tool on the same cores, every microsecond also costs wake-ups and context switches).
//!
//! `BARE_BODY=FILE` answers with that file's bytes instead (`BARE_CONTENT_TYPE`, `application/json` by default):
//! the same bytes as cuecard's reply, captured by the pinned mode of `bench/server-load.sh`. `BARE_HEADERS=FILE`
//! adds the headers of that file's `name: value` lines to every reply (cuecard's own: request id and rate limits),
//! so that the two servers write the same bytes; they are parsed once and appended per reply, as any handler
//! that sets headers does.
//!
//! `BARE_READ_BODY=1` reads each request's body whole before answering: the floor of any server that answers from
//! the request (hyper hands the body over through a channel and wakes the task). Without it the body is never
//! read, as the issue's (#31) bare server does.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use http_body_util::Full;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;

const BODY: &str = r#"{"id":"chatcmpl-1","object":"chat.completion","created":1767225600,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"The weather in Paris is sunny, 22 degrees.","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],"usage":null,"system_fingerprint":"fp_cuecard"}"#;

/// Keeps this thread busy for `nanos` (a spin, not a sleep: it stands for the CPU work of answering).
fn work_for(nanos: u64) {
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_nanos(nanos) {
        std::hint::spin_loop();
    }
}

fn main() {
    let work_ns: u64 = std::env::args().nth(1).map_or(0, |n| n.parse().expect("WORK_NS is a number of nanoseconds"));
    let body: &'static [u8] = match std::env::var_os("BARE_BODY") {
        Some(path) => std::fs::read(path).expect("BARE_BODY is a readable file").leak(),
        None => BODY.as_bytes(),
    };
    let content_type: &'static str = match std::env::var("BARE_CONTENT_TYPE") {
        Ok(given) => given.leak(),
        Err(_) => "application/json",
    };
    let headers: &'static [(hyper::header::HeaderName, hyper::header::HeaderValue)] =
        match std::env::var_os("BARE_HEADERS") {
            Some(path) => std::fs::read_to_string(path)
                .expect("BARE_HEADERS is a readable file")
                .lines()
                .filter_map(|line| line.split_once(':'))
                .map(|(name, value)| {
                    (
                        hyper::header::HeaderName::from_bytes(name.trim().as_bytes()).expect("a header name"),
                        hyper::header::HeaderValue::from_str(value.trim()).expect("a header value"),
                    )
                })
                .collect::<Vec<_>>()
                .leak(),
            None => &[],
        };
    let read_body = std::env::var_os("BARE_READ_BODY").is_some();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("http://{}", listener.local_addr().unwrap());
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let _ = stream.set_nodelay(true);
            tokio::spawn(async move {
                let service = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                    // Unless asked to read the body, the request is dropped here: hyper then skips its body itself
                    // and keeps the connection for the next request.
                    let incoming = read_body.then(|| request.into_body());
                    async move {
                        if let Some(incoming) = incoming {
                            // As any server that answers from the request must: the body, whole.
                            let _ = http_body_util::BodyExt::collect(incoming).await;
                        }
                        work_for(work_ns);
                        let mut response = hyper::Response::builder()
                            .header("content-type", content_type)
                            .body(Full::new(Bytes::from_static(body)))
                            .unwrap();
                        for (name, value) in headers {
                            response.headers_mut().append(name.clone(), value.clone());
                        }
                        Ok::<_, std::convert::Infallible>(response)
                    }
                });
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
}
