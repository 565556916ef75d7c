use super::*;
use crate::http::{Frames, StreamEnd};
use bytes::Bytes;
use http_body_util::BodyExt;

#[test]
fn the_known_header_names_are_the_names_hyper_reads_and_others_still_work() {
    for name in KNOWN_HEADER_NAMES {
        // `from_static` panics on a name that is not lower-case token characters: each one is made here once.
        assert_eq!(header_name(name), hyper::header::HeaderName::from_bytes(name.as_bytes()).ok(), "{name}");
    }
    assert_eq!(header_name("x-cuecard-delivery-seed").unwrap().as_str(), "x-cuecard-delivery-seed");
    assert_eq!(header_name("bad name"), None);
    let reply = response(200, vec![("x-request-id".into(), "req_1".into())], ReplyBody::empty());
    assert_eq!(reply.headers()["x-request-id"], "req_1");
    let invalid = response(200, vec![("x-request-id".into(), "line\nbreak".into())], ReplyBody::empty());
    assert_eq!(invalid.status(), 500, "an invalid value is a 500, not a panic");
}

/// The pieces a streamed body sends, in order.
fn sent_pieces(frames: Vec<wire::Frame>, instant: bool) -> Vec<Bytes> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut body = ReplyBody::stream(&Frames::from(frames), false, StreamEnd::Close, 0, instant);
        let mut pieces = Vec::new();
        while let Some(piece) = body.frame().await {
            pieces.push(piece.unwrap().into_data().unwrap());
        }
        pieces
    })
}

#[test]
fn frames_due_at_once_go_out_as_one_piece_in_order_and_a_delay_starts_the_next() {
    let frame = |delay_ms: u64, data: String| wire::Frame { delay_ms, data };
    // Larger than the room first made for a join (JOINED_START_BYTES), so the buffer also grows once more.
    let long = "b".repeat(JOINED_START_BYTES + 100);
    let frames = vec![frame(0, "a".repeat(10)), frame(0, long.clone()), frame(0, "c".into()), frame(5, "d".into())];
    let joined = format!("{}{long}c", "a".repeat(10));
    assert_eq!(sent_pieces(frames.clone(), false), vec![Bytes::from(joined.clone()), Bytes::from("d")]);
    // Delays skipped: everything is due at once.
    assert_eq!(sent_pieces(frames, true), vec![Bytes::from(format!("{joined}d"))]);
    // A piece never grows far beyond JOINED_FRAMES_BYTES: the frame that reaches it closes the piece.
    let big = "e".repeat(JOINED_FRAMES_BYTES / 2 + 1);
    let pieces = sent_pieces(vec![frame(0, big.clone()), frame(0, big.clone()), frame(0, big.clone())], true);
    assert_eq!(pieces.iter().map(Bytes::len).collect::<Vec<_>>(), vec![2 * big.len(), big.len()]);
}

/// Issue #59 S14: an OTLP endpoint that is the server itself is refused when it starts (each export would be a
/// request it journals and traces, 36 entries in 7 s from one request); another port or host is not.
#[cfg(feature = "otlp")]
#[test]
fn an_otlp_endpoint_that_is_the_server_itself_is_recognised() {
    let at = |text: &str| text.parse::<SocketAddr>().unwrap();
    let loopback = at("127.0.0.1:4000");
    for own in ["http://127.0.0.1:4000", "http://localhost:4000/v1/traces", "http://127.0.0.2:4000/"] {
        assert!(exports_to(own, loopback), "{own}");
    }
    for other in
        ["http://127.0.0.1:4318", "http://collector:4000", "http://10.0.0.1:4000", "https://x", "http://localhost"]
    {
        assert!(!exports_to(other, loopback), "{other}");
    }
    assert!(exports_to("http://10.0.0.1:4000", at("0.0.0.0:4000")), "a server binding every address");
    assert!(exports_to("http://[::1]:4000", at("[::1]:4000")));
    assert!(exports_to("http://localhost:80", at("127.0.0.1:80")), "no port is 80");
}

#[cfg(feature = "otlp")]
#[test]
fn a_server_told_to_export_to_itself_does_not_start() {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = probe.local_addr().unwrap().port();
    drop(probe);
    let options =
        ServerOptions { port, otlp_endpoint: Some(format!("http://127.0.0.1:{port}")), ..ServerOptions::default() };
    let mock = Arc::new(MockModel::builder().responds("hi").build().unwrap());
    let error = Server::start_with(mock, options).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidArgument);
    assert!(error.message().contains("feeding itself"), "{}", error.message());
}
