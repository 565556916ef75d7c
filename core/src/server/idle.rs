//! Closing a connection that has been idle for the idle timeout, whatever its protocol. HTTP/1.1's idle
//! keep-alive connections end at hyper's header timeout, but an HTTP/2 connection whose client answers the
//! server's keep-alive pings (or sends its own) would stay open forever (issue #59 S13). Idle is counted from the
//! requests: none in flight (a response still streaming counts) and none begun or ended for the timeout. The
//! connection is then shut down gracefully (HTTP/2: GOAWAY), so nothing in flight is cut.

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// The requests of one connection: how many are in flight, and when one last began or ended.
#[derive(Debug)]
pub(super) struct Activity {
    started: Instant,
    last_ms: AtomicU64,
    in_flight: AtomicUsize,
}

impl Activity {
    pub(super) fn new() -> Arc<Activity> {
        Arc::new(Activity { started: Instant::now(), last_ms: AtomicU64::new(0), in_flight: AtomicUsize::new(0) })
    }

    fn touch(&self) {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(now, Ordering::Relaxed);
    }

    /// A request begins: in flight until the guard (kept by its response's body) is dropped.
    pub(super) fn begin(self: &Arc<Activity>) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
        self.touch();
        InFlight(Arc::clone(self))
    }

    /// Resolves once the connection has had no request in flight, and none begun or ended, for `idle`.
    pub(super) async fn idle_for(&self, idle: Duration) {
        loop {
            let last = self.started + Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
            let due = last + idle;
            if self.in_flight.load(Ordering::Relaxed) == 0 && Instant::now() >= due {
                return;
            }
            // Busy: look again a timeout later (a request ending then starts the count anew).
            tokio::time::sleep_until(due.max(Instant::now() + idle / 4).into()).await;
        }
    }
}

/// A request in flight; its drop ends it.
#[derive(Debug)]
pub(super) struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.touch();
        self.0.in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A response body that keeps its request in flight until it is sent whole (or dropped).
pub(super) struct Tracked<B> {
    pub(super) body: B,
    pub(super) _in_flight: InFlight,
}

impl<B: Body<Data = Bytes> + Unpin> Body for Tracked<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
