//! The frames of a streamed reply, made one at a time as they are sent.
//!
//! A protocol's stream encoder is an [`Encoding`]: the frames before the first event, and a closure that turns
//! each event into at most one frame, holding the encoder's state (open blocks, sequence numbers, delays of
//! events that sent nothing). [`encoded`] ties it to the stream's events, which are themselves made one at a
//! time, so a server holds one frame of an answer at a time instead of all of them (a 1 MB answer was 70-140 MB
//! of frames before its first byte). Each read of [`Frames`] runs the encoder anew from the start: the same
//! frames every time, which is what the data form and the in-process transports read.

use super::Frame;
use crate::stream::{EventStream, TimedEvent};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::sync::Arc;

/// Frames, one after the other.
pub type FrameIter = Box<dyn Iterator<Item = Frame> + Send>;

/// What each event of a stream becomes, at most one frame; the encoder's state lives in the closure.
pub(crate) type EventEncoder = Box<dyn FnMut(&TimedEvent) -> Option<Frame> + Send>;

/// How a protocol encodes one stream.
pub(crate) struct Encoding {
    /// Sent before the first event (Chat's role chunk, Anthropic's `message_start`, ...).
    pub opening: Vec<Frame>,
    /// What each event becomes.
    pub each: EventEncoder,
}

/// The frames of a streamed reply: made as they are read, or given whole (the data form read back).
#[derive(Clone)]
pub struct Frames(Source);

#[derive(Clone)]
enum Source {
    Given(Vec<Frame>),
    Made(Arc<dyn Fn() -> FrameIter + Send + Sync>),
}

impl Frames {
    /// The frames from the first, made as they are taken.
    pub fn iter(&self) -> FrameIter {
        match &self.0 {
            Source::Given(frames) => Box::new(frames.clone().into_iter()),
            Source::Made(make) => make(),
        }
    }

    /// All the frames at once.
    pub fn to_vec(&self) -> Vec<Frame> {
        match &self.0 {
            Source::Given(frames) => frames.clone(),
            Source::Made(make) => make().collect(),
        }
    }

    /// Frames that `encode` makes of `stream`'s events, lazily. `encode` runs once per read of the frames.
    pub(crate) fn encoded(
        stream: &EventStream,
        encode: impl Fn(&EventStream) -> Encoding + Send + Sync + 'static,
    ) -> Frames {
        let stream = stream.clone(); // the plan behind an Arc and the envelope, never the made events
        Frames(Source::Made(Arc::new(move || -> FrameIter {
            let Encoding { opening, mut each } = encode(&stream);
            Box::new(opening.into_iter().chain(stream.lazy_events().filter_map(move |timed| each(&timed))))
        })))
    }

    /// These frames, each passed through `wrap` (which may keep state, and drop a frame), lazily: `wrap` is made
    /// anew for each read.
    pub(crate) fn wrapped<W>(self, make_wrap: impl Fn() -> W + Send + Sync + 'static) -> Frames
    where
        W: FnMut(Frame) -> Option<Frame> + Send + 'static,
    {
        Frames(Source::Made(Arc::new(move || -> FrameIter { Box::new(self.iter().filter_map(make_wrap())) })))
    }
}

impl From<Vec<Frame>> for Frames {
    fn from(frames: Vec<Frame>) -> Frames {
        Frames(Source::Given(frames))
    }
}

impl std::fmt::Debug for Frames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Frames {
    fn eq(&self, other: &Frames) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Frames {}

/// As data, the list of frames.
impl Serialize for Frames {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Frames {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Frames, D::Error> {
        Vec::<Frame>::deserialize(deserializer).map(Frames::from)
    }
}
