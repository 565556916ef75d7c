//! The frames of a streamed reply, made one at a time as they are sent.
//!
//! A protocol's stream encoder is an [`Encoding`]: the frames before the first event, and a closure that turns
//! each event into at most one frame, holding the encoder's state (open blocks, sequence numbers, delays of
//! events that sent nothing). [`encoded`] ties it to the stream's events, which are themselves made one at a
//! time, so a server holds one frame of an answer at a time instead of all of them (a 1 MB answer was 70-140 MB
//! of frames before its first byte). Each read of [`Frames`] runs the encoder anew from the start: the same
//! frames every time, which is what the data form and the in-process transports read.

use crate::http::{Frame, FrameIter, Frames};
use crate::stream::{EventStream, TimedEvent};
use std::sync::Arc;

/// What each event of a stream becomes, at most one frame; the encoder's state lives in the closure.
pub(crate) type EventEncoder = Box<dyn FnMut(&TimedEvent) -> Option<Frame> + Send>;

/// How a protocol encodes one stream.
pub(crate) struct Encoding {
    /// Sent before the first event (Chat's role chunk, Anthropic's `message_start`, ...).
    pub opening: Vec<Frame>,
    /// What each event becomes.
    pub each: EventEncoder,
}

/// Frames that `encode` makes of `stream`'s events, lazily. `encode` runs once per read of the frames.
pub(crate) fn encoded(
    stream: &EventStream,
    encode: impl Fn(&EventStream) -> Encoding + Send + Sync + 'static,
) -> Frames {
    let stream = stream.clone(); // the plan behind an Arc and the envelope, never the made events
    Frames::made(Arc::new(move || -> FrameIter {
        let Encoding { opening, mut each } = encode(&stream);
        Box::new(opening.into_iter().chain(stream.lazy_events().filter_map(move |timed| each(&timed))))
    }))
}
