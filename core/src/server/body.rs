//! A reply's body as hyper sends it: whole, or frame by frame with the virtual delays waited out (frames due at
//! once joined into one write), and the journal document streamed page by page.

use crate::http::{FrameIter, Frames, HttpReply, ReplyHeader, StreamEnd};
use crate::mock::MockModel;
use crate::wire;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::{Body, Frame as BodyFrame};
use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc;

/// One piece of a streamed body: its bytes and the virtual delay before it. The bytes stay a plain buffer until they
/// are sent: frames due at once are joined into the first one's buffer, and only what is sent becomes `Bytes`.
pub(super) struct BodyPiece {
    delay_ms: u64,
    data: Vec<u8>,
}

/// Why a connection is closed without a (complete) response; hyper then drops the connection.
#[derive(Debug)]
pub(super) struct Cut(pub(super) &'static str);

impl std::fmt::Display for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for Cut {}

/// Journal entries per piece of a streamed journal body (an entry is about 0.5-1 KB of JSON).
pub(super) const JOURNAL_PAGE: usize = 1000;

/// The whole journal document in pieces, written on the blocking pool at most two pieces ahead of the reader; the
/// writer stops when the reader goes away.
pub(super) fn journal_pieces(mock: Arc<MockModel>) -> mpsc::Receiver<Bytes> {
    let (sender, receiver) = mpsc::channel(2);
    tokio::task::spawn_blocking(move || {
        wire::write_journal_document(&mock, JOURNAL_PAGE, |piece| sender.blocking_send(Bytes::from(piece)).is_ok());
    });
    receiver
}

/// Runs `work` on tokio's blocking pool and waits for it.
pub(super) async fn on_blocking_pool<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> std::result::Result<T, Cut> {
    tokio::task::spawn_blocking(work).await.map_err(|_| Cut("the request's work panicked"))
}

/// A whole reply sent at once (its delay, if any, ignored).
pub(super) fn reply_now(reply: HttpReply) -> hyper::Response<ReplyBody> {
    match reply {
        HttpReply::Full { status, headers, body, .. } => response(status, headers, ReplyBody::full(body.into_bytes())),
        other => response(other.status(), Vec::new(), ReplyBody::full(other.body_text().into_bytes())),
    }
}

pub(super) fn response(status: u16, headers: Vec<ReplyHeader>, body: ReplyBody) -> hyper::Response<ReplyBody> {
    let mut response = hyper::Response::new(body);
    let status = hyper::StatusCode::from_u16(status);
    let map = response.headers_mut();
    map.reserve(headers.len());
    let mut valid = status.is_ok();
    for (name, value) in headers {
        // The value's bytes are taken as they are (`from_maybe_shared` of an owned buffer copies nothing).
        // Fixed text is taken as it is too (`Bytes::from_static`, checked like any value, so it cannot panic).
        let value = match value {
            Cow::Borrowed(text) => Bytes::from_static(text.as_bytes()),
            Cow::Owned(text) => Bytes::from(text),
        };
        match (header_name(&name), hyper::header::HeaderValue::from_maybe_shared(value)) {
            (Some(name), Ok(value)) => {
                map.append(name, value);
            }
            _ => valid = false,
        }
    }
    match status {
        Ok(status) if valid => {
            *response.status_mut() = status;
            response
        }
        // Only invalid statuses, header names or values get here, and the wire layer writes none; answer 500 rather
        // than panic.
        _ => {
            let mut fallback = hyper::Response::new(ReplyBody::full(b"invalid reply".to_vec()));
            *fallback.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
            fallback
        }
    }
}

/// Header names the wire layer writes on most replies (request ids, rate limits): made from static text, without
/// the copy `HeaderName::from_bytes` makes of every name it does not know (issue #31: fewer allocations per request).
pub(super) const KNOWN_HEADER_NAMES: [&str; 14] = [
    "x-request-id",
    "request-id",
    "x-ratelimit-limit-requests",
    "x-ratelimit-limit-tokens",
    "x-ratelimit-remaining-requests",
    "x-ratelimit-remaining-tokens",
    "x-ratelimit-reset-requests",
    "x-ratelimit-reset-tokens",
    "anthropic-ratelimit-requests-limit",
    "anthropic-ratelimit-requests-remaining",
    "anthropic-ratelimit-requests-reset",
    "anthropic-ratelimit-tokens-limit",
    "anthropic-ratelimit-tokens-remaining",
    "anthropic-ratelimit-tokens-reset",
];

/// The known names as header names, made once: `HeaderName::from_static` checks its text every time it is called,
/// and a clone of a made name is a reference count (issue #31).
pub(super) static KNOWN_HEADERS: std::sync::LazyLock<Vec<(&'static str, hyper::header::HeaderName)>> =
    std::sync::LazyLock::new(|| {
        KNOWN_HEADER_NAMES.iter().map(|name| (*name, hyper::header::HeaderName::from_static(name))).collect()
    });

pub(super) fn header_name(name: &str) -> Option<hyper::header::HeaderName> {
    match KNOWN_HEADERS.iter().find(|(known, _)| *known == name) {
        Some((_, known)) => Some(known.clone()),
        None => hyper::header::HeaderName::from_bytes(name.as_bytes()).ok(),
    }
}

/// A reply body: whole, pieces as another task writes them (the journal), or SSE frames released one by one after
/// their delays, ending normally or cut. A stream's frames are made as they are sent (`Frames`), so an open
/// stream holds the frame being sent and the next, never the whole answer.
pub(super) struct ReplyBody {
    whole: Option<Full<Bytes>>,
    pieces: Option<mpsc::Receiver<Bytes>>,
    frames: Option<FrameIter>,
    /// Each frame's `data` is base64 of binary bytes (AWS event-stream messages), decoded here.
    base64: bool,
    /// The next frame, made ahead to know its delay.
    next: Option<BodyPiece>,
    end: StreamEnd,
    instant: bool,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    stall_ms: u64,
    flushed_before_cut: bool,
    /// Each frame is its own write, flushed before the next (a `delivery` setting cut them on purpose): frames due
    /// at once are not joined, and the body pauses once between frames so hyper writes each out alone.
    pub(super) separate_writes: bool,
    /// A frame was just sent in `separate_writes` mode: yield before the next.
    yield_next: bool,
    /// The mock and journal index of the request a stream answers: dropped before its end, the body records that
    /// the client left mid-stream.
    pub(super) watch: Option<(Arc<MockModel>, crate::journal::EntryTicket)>,
    ended: bool,
    /// Run when the body is dropped (sent whole, or its client gone): ends the call's span.
    pub(super) on_end: Option<Box<dyn FnOnce() + Send>>,
}

/// At most this many bytes of frames that are due at once are joined into one piece of the body.
pub(super) const JOINED_FRAMES_BYTES: usize = 64 * 1024;

/// Room made at once when a frame is first joined to another (see `ReplyBody::due_now`).
pub(super) const JOINED_START_BYTES: usize = 4096;

impl Drop for ReplyBody {
    fn drop(&mut self) {
        if let (Some((mock, entry)), false) = (&self.watch, self.ended) {
            mock.note_left_mid_stream(*entry);
        }
        if let Some(on_end) = self.on_end.take() {
            on_end();
        }
    }
}

impl ReplyBody {
    pub(super) fn full(body: Vec<u8>) -> ReplyBody {
        let mut reply = ReplyBody::empty();
        reply.whole = Some(Full::new(Bytes::from(body)));
        reply.ended = true;
        reply
    }

    pub(super) fn empty() -> ReplyBody {
        ReplyBody {
            whole: None,
            pieces: None,
            frames: None,
            base64: false,
            next: None,
            end: StreamEnd::Close,
            instant: true,
            sleep: None,
            stall_ms: 0,
            flushed_before_cut: false,
            separate_writes: false,
            yield_next: false,
            watch: None,
            ended: false,
            on_end: None,
        }
    }

    pub(super) fn pieces(pieces: mpsc::Receiver<Bytes>) -> ReplyBody {
        let mut reply = ReplyBody::empty();
        reply.pieces = Some(pieces);
        reply
    }

    /// A streamed body of these frames; `base64` frames (AWS event-stream messages) are decoded to their bytes.
    pub(super) fn stream(frames: &Frames, base64: bool, end: StreamEnd, stall_ms: u64, instant: bool) -> ReplyBody {
        let mut reply = ReplyBody::empty();
        (reply.frames, reply.base64, reply.end, reply.stall_ms, reply.instant) =
            (Some(frames.iter()), base64, end, stall_ms, instant);
        reply
    }

    /// The next frame, made now if it was not yet.
    fn peek(&mut self) -> Option<&mut BodyPiece> {
        if self.next.is_none() {
            let frame = self.frames.as_mut()?.next()?;
            let data = if self.base64 {
                use base64::Engine;
                // The wire layer wrote this base64 itself, so it decodes; an empty piece is the impossible rest.
                base64::engine::general_purpose::STANDARD.decode(frame.data).unwrap_or_default()
            } else {
                frame.data.into_bytes()
            };
            self.next = Some(BodyPiece { delay_ms: frame.delay_ms, data });
        }
        self.next.as_mut()
    }

    /// `joined` (the first frame) and the frames after it that are due at once (no delay, or delays skipped), as one
    /// piece of at most about `JOINED_FRAMES_BYTES`: hyper then frames one chunk rather than one per SSE event (short
    /// streams: about 9% more per second).
    ///
    /// The frames are appended to the first frame's own buffer, which grows once to room for about
    /// `JOINED_START_BYTES` (a short stream whole) rather than doubling from one frame's size: each doubling copied
    /// everything joined so far (issue #31: a 13-event stream copied its bytes about three times).
    fn due_now(&mut self, mut joined: Vec<u8>) -> Bytes {
        let instant = self.instant;
        while joined.len() < JOINED_FRAMES_BYTES {
            match self.peek() {
                Some(frame) if frame.delay_ms == 0 || instant => {}
                _ => break,
            }
            let Some(frame) = self.next.take() else { break };
            if joined.capacity() - joined.len() < frame.data.len() {
                joined.reserve(frame.data.len().max(JOINED_START_BYTES.saturating_sub(joined.len())));
            }
            joined.extend_from_slice(&frame.data);
        }
        Bytes::from(joined)
    }
}

impl Body for ReplyBody {
    type Data = Bytes;
    type Error = Cut;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<std::result::Result<BodyFrame<Bytes>, Cut>>> {
        let this = &mut *self;
        if let Some(whole) = this.whole.as_mut() {
            return Pin::new(whole).poll_frame(cx).map_err(|never| match never {});
        }
        if let Some(pieces) = this.pieces.as_mut() {
            return pieces.poll_recv(cx).map(|piece| {
                this.ended = piece.is_none();
                piece.map(|piece| Ok(BodyFrame::data(piece)))
            });
        }
        loop {
            if let Some(sleep) = this.sleep.as_mut() {
                match sleep.as_mut().poll(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(()) => this.sleep = None,
                }
            }
            // A stall comes first, then each frame's own delay; each is waited once.
            let mut delay = std::mem::take(&mut this.stall_ms);
            if let Some(front) = this.peek() {
                delay += std::mem::take(&mut front.delay_ms);
            }
            if delay > 0 && !this.instant {
                this.sleep = Some(Box::pin(tokio::time::sleep(Duration::from_millis(delay))));
                continue;
            }
            if this.yield_next && this.next.is_some() {
                // Returning Pending makes hyper flush what it holds, so the previous frame goes out as its own write.
                this.yield_next = false;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            return match this.next.take() {
                Some(frame) if this.separate_writes => {
                    this.yield_next = true;
                    Poll::Ready(Some(Ok(BodyFrame::data(Bytes::from(frame.data)))))
                }
                Some(frame) => Poll::Ready(Some(Ok(BodyFrame::data(this.due_now(frame.data))))),
                None => match this.end {
                    StreamEnd::Close => {
                        this.ended = true;
                        Poll::Ready(None)
                    }
                    StreamEnd::Cut if !this.flushed_before_cut => {
                        // Pause once so hyper writes the frames out before the connection is dropped.
                        this.flushed_before_cut = true;
                        this.sleep = Some(Box::pin(tokio::time::sleep(Duration::from_millis(10))));
                        continue;
                    }
                    StreamEnd::Cut => {
                        // The script cut the connection: the client did not leave.
                        this.ended = true;
                        this.end = StreamEnd::Close;
                        Poll::Ready(Some(Err(Cut("connection cut mid-stream as scripted"))))
                    }
                },
            };
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.whole {
            Some(whole) => whole.is_end_stream(),
            None => false,
        }
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        match &self.whole {
            Some(whole) => whole.size_hint(),
            None => hyper::body::SizeHint::default(),
        }
    }
}
