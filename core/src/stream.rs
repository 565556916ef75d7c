//! Streaming: an answer as the ordered events a provider streams, each with its virtual delay.
//!
//! Order (architecture §3): thinking deltas, text deltas, then per tool call its argument deltas followed by the
//! complete call, then the complete response. A step that fails after its tokens streams thinking and text and
//! then the error: no tool calls, no complete response. A step that fails before anything streams only the error.

use crate::answer::Chunks;
use crate::journal::EntryTicket;
use crate::model::{ChatResponse, ToolCall, Usage};
use crate::provider_error::ProviderError;
use crate::script::{StreamBreak, Timing};
use serde::Serialize;
use std::sync::{Arc, OnceLock};

/// One streamed event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// A piece of reasoning.
    ThinkingDelta {
        /// The token.
        text: String,
    },
    /// A piece of text.
    TextDelta {
        /// The token.
        text: String,
    },
    /// A fragment of a tool call's arguments. `id` and `name` are repeated on every fragment; wire encoders
    /// put them only where their protocol does (the first fragment).
    ToolCallDelta {
        /// Position of the call in the answer.
        index: usize,
        /// The call's id.
        id: String,
        /// The tool's name.
        name: String,
        /// This fragment of the arguments JSON text.
        arguments: String,
    },
    /// A tool call, complete.
    ToolCall {
        /// Position of the call in the answer.
        index: usize,
        /// The call.
        call: ToolCall,
    },
    /// The whole response; always the last event of a successful stream.
    Complete {
        /// The response.
        response: ChatResponse,
    },
    /// The failure; always the last event of a failing stream.
    Error {
        /// The failure.
        error: ProviderError,
    },
}

/// An event with its virtual timing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TimedEvent {
    /// How long to wait before this event, after the previous one (or after the request for the first).
    pub delay_ms: u64,
    /// Virtual time of the event, in milliseconds since the mock was created.
    pub at_ms: u64,
    /// The event.
    #[serde(flatten)]
    pub event: StreamEvent,
}

/// What a resolved step streams, owned: the events are made from it one at a time ([`Events`]), so a long answer
/// is never held as one `String` per token (a 1 MB text made about 600k events, 84 MB, before the first byte).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StreamPlan {
    pub thinking: Option<Chunks>,
    pub text: Option<Chunks>,
    pub response: ChatResponse,
    pub fail_after: Option<ProviderError>,
    /// The wait before the first event: the step's delay and time to first token (the delay alone for a failure
    /// before anything streams).
    pub first_delay_ms: u64,
    /// The waits before the deltas after the first event (`Timing::before_delta`).
    pub timing: Timing,
    pub start_ms: u64,
}

impl StreamPlan {
    /// The plan of a step's answer with its timing.
    pub(crate) fn answer(
        thinking: Option<&Chunks>,
        text: Option<&Chunks>,
        response: &ChatResponse,
        fail_after: Option<&ProviderError>,
        timing: Timing,
        start_ms: u64,
    ) -> StreamPlan {
        StreamPlan {
            thinking: thinking.cloned(),
            text: text.cloned(),
            response: response.clone(),
            fail_after: fail_after.cloned(),
            first_delay_ms: timing.delay_ms.saturating_add(timing.ttft_ms),
            timing,
            start_ms,
        }
    }

    /// The single event of a step that fails before streaming anything, after the step's delay.
    pub(crate) fn failure_before_stream(error: &ProviderError, timing: Timing, start_ms: u64) -> StreamPlan {
        StreamPlan {
            thinking: None,
            text: None,
            response: ChatResponse::default(),
            fail_after: Some(error.clone()),
            first_delay_ms: timing.delay_ms,
            timing,
            start_ms,
        }
    }

    /// The total virtual duration of the events, computed without making them.
    pub(crate) fn total_delay_ms(&self) -> u64 {
        span_ms(self.first_delay_ms, &self.timing, || {
            delta_count(self.thinking.as_ref(), self.text.as_ref(), &self.response, self.fail_after.as_ref())
        })
    }

    /// How many events there are (what a reader collecting them all reserves room for).
    fn event_count(&self) -> usize {
        let deltas = token_count(self.thinking.as_ref()) + token_count(self.text.as_ref());
        match self.fail_after {
            Some(_) => deltas + 1,
            // Each call's fragments and its closing event, then the completed response.
            None => {
                let calls = &self.response.message.tool_calls;
                deltas + calls.iter().map(|c| argument_fragments(c) + 1).sum::<usize>() + 1
            }
        }
    }

    /// Whether any text delta is streamed.
    pub(crate) fn streams_text(&self) -> bool {
        token_count(self.text.as_ref()) > 0
    }

    /// Whether the only event is the failure: nothing streamed before it.
    pub(crate) fn fails_before_streaming(&self) -> bool {
        self.fail_after.is_some() && token_count(self.thinking.as_ref()) + token_count(self.text.as_ref()) == 0
    }
}

/// The events of a plan, made one at a time. Order (the module's): thinking deltas, text deltas, then per tool
/// call its argument deltas and the complete call, then the complete response; or, failing, the thinking and text
/// deltas and the error. The first event waits the plan's first delay, every later delta the per-token delay, and
/// the closing events (complete call, response, error) follow at once.
#[derive(Clone, Debug)]
pub struct Events {
    plan: Arc<StreamPlan>,
    cursor: Cursor,
}

/// How far [`Events`] has gone.
#[derive(Clone, Debug)]
struct Cursor {
    at: Position,
    clock_ms: u64,
    first_waited: bool,
    /// How many deltas after the first event have waited (the next is `deltas + 1`).
    deltas: u64,
    /// Ends of the next tokens of the words being read, found a batch at a time by the tokenizer's block path.
    ahead: [usize; 32],
    ahead_len: usize,
    ahead_next: usize,
}

/// Where [`Events`] is: a token start of the thinking or the text (a byte offset of words, an index of exact
/// tokens), a fragment start of a call's arguments, a call to close, or the closing event.
#[derive(Clone, Copy, Debug)]
enum Position {
    Thinking(usize),
    Text(usize),
    Arguments { call: usize, start: usize },
    CallDone(usize),
    Closing,
    Done,
}

impl Events {
    fn new(plan: Arc<StreamPlan>) -> Events {
        let cursor = Cursor {
            at: Position::Thinking(0),
            clock_ms: plan.start_ms,
            first_waited: false,
            deltas: 0,
            ahead: [0; 32],
            ahead_len: 0,
            ahead_next: 0,
        };
        Events { plan, cursor }
    }
}

impl Cursor {
    fn timed(&mut self, plan: &StreamPlan, event: StreamEvent, delta: bool) -> TimedEvent {
        let delay_ms = match (self.first_waited, delta) {
            (false, _) => plan.first_delay_ms,
            (true, true) => {
                self.deltas += 1;
                plan.timing.before_delta(self.deltas)
            }
            (true, false) => 0,
        };
        self.first_waited = true;
        self.clock_ms = self.clock_ms.saturating_add(delay_ms);
        TimedEvent { delay_ms, at_ms: self.clock_ms, event }
    }

    /// The end of the word-like token of `text` that starts at `start`. The batch of ends ahead always belongs to
    /// the text being read: it is used up exactly where that text ends, before the next is read.
    fn word_end(&mut self, text: &str, start: usize) -> Option<usize> {
        if self.ahead_next == self.ahead_len {
            self.ahead_len = crate::tokenize::token_ends_from(text, start, &mut self.ahead);
            self.ahead_next = 0;
        }
        let end = *self.ahead.get(self.ahead_next).filter(|_| self.ahead_next < self.ahead_len)?;
        self.ahead_next += 1;
        Some(end)
    }

    /// The token of `chunks` at `start` and where the next starts.
    fn token<'p>(&mut self, chunks: Option<&'p Chunks>, start: usize) -> Option<(&'p str, usize)> {
        match chunks? {
            Chunks::Words(text) => {
                let end = self.word_end(text, start)?;
                Some((text.get(start..end)?, end))
            }
            Chunks::Exact(tokens) => Some((tokens.get(start)?.as_str(), start + 1)),
        }
    }
}

impl Iterator for Events {
    type Item = TimedEvent;

    fn next(&mut self) -> Option<TimedEvent> {
        let (plan, cursor) = (&*self.plan, &mut self.cursor);
        loop {
            match cursor.at {
                Position::Thinking(start) => match cursor.token(plan.thinking.as_ref(), start) {
                    Some((token, next)) => {
                        cursor.at = Position::Thinking(next);
                        return Some(cursor.timed(plan, StreamEvent::ThinkingDelta { text: token.to_string() }, true));
                    }
                    None => cursor.at = Position::Text(0),
                },
                Position::Text(start) => match cursor.token(plan.text.as_ref(), start) {
                    Some((token, next)) => {
                        cursor.at = Position::Text(next);
                        return Some(cursor.timed(plan, StreamEvent::TextDelta { text: token.to_string() }, true));
                    }
                    None if plan.fail_after.is_some() => cursor.at = Position::Closing,
                    None => cursor.at = Position::Arguments { call: 0, start: 0 },
                },
                Position::Arguments { call: index, start } => {
                    let Some(call) = plan.response.message.tool_calls.get(index) else {
                        cursor.at = Position::Closing;
                        continue;
                    };
                    // A call with empty arguments still announces itself with one (empty) fragment.
                    let arguments = call.arguments.as_str();
                    let (fragment, next) = match cursor.word_end(arguments, start) {
                        Some(end) => (arguments.get(start..end).unwrap_or_default(), end),
                        None => ("", arguments.len()),
                    };
                    cursor.at = if next < arguments.len() {
                        Position::Arguments { call: index, start: next }
                    } else {
                        Position::CallDone(index)
                    };
                    let delta = StreamEvent::ToolCallDelta {
                        index,
                        id: call.id.clone(),
                        name: call.name.clone(),
                        arguments: fragment.to_string(),
                    };
                    return Some(cursor.timed(plan, delta, true));
                }
                Position::CallDone(index) => {
                    cursor.at = Position::Arguments { call: index + 1, start: 0 };
                    let call = plan.response.message.tool_calls.get(index)?.clone();
                    return Some(cursor.timed(plan, StreamEvent::ToolCall { index, call }, false));
                }
                Position::Closing => {
                    cursor.at = Position::Done;
                    let event = match &plan.fail_after {
                        Some(error) => StreamEvent::Error { error: error.clone() },
                        None => StreamEvent::Complete { response: plan.response.clone() },
                    };
                    return Some(cursor.timed(plan, event, false));
                }
                Position::Done => return None,
            }
        }
    }
}

impl std::iter::FusedIterator for Events {}

/// The total virtual duration of a resolved step's events, computed without making them (the whole-answer path).
pub(crate) fn planned_delay(
    thinking: Option<&Chunks>,
    text: Option<&Chunks>,
    response: &ChatResponse,
    fail_after: Option<&ProviderError>,
    timing: Timing,
) -> u64 {
    let first = timing.delay_ms.saturating_add(timing.ttft_ms);
    span_ms(first, &timing, || delta_count(thinking, text, response, fail_after))
}

/// The first wait, then the token delay before every later delta; the closing events wait nothing.
fn span_ms(first_delay_ms: u64, timing: &Timing, deltas: impl FnOnce() -> usize) -> u64 {
    let later = (deltas_if_timed(timing, deltas) as u64).saturating_sub(1);
    match &timing.itl {
        // Each drawn latency depends on its delta's number alone, so they are summed without the events.
        Some(itl) => (1..=later).fold(first_delay_ms, |sum, k| sum.saturating_add(itl.before_delta(k))),
        None => first_delay_ms.saturating_add(timing.token_delay_ms.saturating_mul(later)),
    }
}

/// The number of deltas, counted only when a delta waits anything (a whole answer's usual case counts nothing).
fn deltas_if_timed(timing: &Timing, deltas: impl FnOnce() -> usize) -> usize {
    if timing.token_delay_ms == 0 && timing.itl.is_none() {
        0
    } else {
        deltas()
    }
}

/// How many deltas (thinking, text and argument fragments) an answer streams.
fn delta_count(
    thinking: Option<&Chunks>,
    text: Option<&Chunks>,
    response: &ChatResponse,
    fail_after: Option<&ProviderError>,
) -> usize {
    let mut deltas = token_count(thinking) + token_count(text);
    if fail_after.is_none() {
        deltas += response.message.tool_calls.iter().map(argument_fragments).sum::<usize>();
    }
    deltas
}

fn token_count(chunks: Option<&Chunks>) -> usize {
    match chunks {
        Some(Chunks::Words(text)) => crate::tokenize::count_tokens(text),
        Some(Chunks::Exact(tokens)) => tokens.len(),
        None => 0,
    }
}

/// The argument deltas of a streamed tool call: one per token, and one (empty) for empty arguments.
fn argument_fragments(call: &crate::model::ToolCall) -> usize {
    crate::tokenize::count_tokens(&call.arguments).max(1)
}

/// What every frame of one answer repeats on the wire: the response's number (from the mock's counter), the id a
/// scripted response gave, the model and the creation time. Each encoder formats its own ids from the number
/// (`chatcmpl-3`, `msg_3`, `resp_3`), so nothing parses ids back out of strings. A stream that fails before it
/// completes has an envelope too.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Envelope {
    /// The response number, from 1, counted per mock.
    pub number: u64,
    /// The id a scripted whole response gave, used as is by every encoder.
    pub scripted_id: Option<String>,
    /// The model that answers.
    pub model: String,
    /// Creation time, Unix seconds from the mock's clock.
    pub created: u64,
    /// The recorded reply of the step that answers, sent as is on its protocol.
    #[serde(skip)]
    pub recorded: Option<std::sync::Arc<crate::script::recorded::Recorded>>,
    /// The step's own reply headers (`Step::with_reply_headers`), added on the wire.
    #[serde(skip)]
    pub headers: Vec<(String, String)>,
    /// Where the rate limits stood after the request, sent in the provider's rate-limit headers.
    #[serde(skip)]
    pub rate_limit: Option<crate::rate_limits::RateLimitReading>,
    /// The step ends a realtime session after its answer, announced this many milliseconds ahead.
    #[serde(skip)]
    pub go_away_ms: Option<u64>,
    /// The step whose answer, uncut, is the response: its output tokens are counted once, not per reply.
    #[serde(skip)]
    pub(crate) answered_by: AnsweredBy,
}

/// The scripted step a response is exactly the answer of, when it is (not cut at `max_tokens`, not computed
/// differently): its estimated output tokens are cached on the step.
#[derive(Clone, Debug, Default)]
pub(crate) struct AnsweredBy(pub(crate) Option<Arc<crate::script::Step>>);

impl AnsweredBy {
    /// The estimated output tokens of the response, when the step knows them.
    pub(crate) fn output_tokens(&self) -> Option<u64> {
        self.0.as_ref().and_then(|step| step.answer_output_tokens())
    }
}

impl PartialEq for AnsweredBy {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

impl Eq for AnsweredBy {}

impl Envelope {
    /// The scripted id, or `prefix` followed by the number (`msg_3`).
    pub fn id(&self, prefix: &str) -> String {
        match &self.scripted_id {
            Some(id) => id.clone(),
            None => numbered_id(prefix, self.number),
        }
    }
}

/// `prefix` followed by `number` in decimal (`req_12`). Ids are made for every request; `format!` spent several
/// times the work of the digits on its general machinery.
pub(crate) fn numbered_id(prefix: &str, number: u64) -> String {
    let mut decimal = itoa::Buffer::new();
    let digits = decimal.format(number);
    let mut id = String::with_capacity(prefix.len() + digits.len());
    id.push_str(prefix);
    id.push_str(digits);
    id
}

/// The events of one streamed answer, in order. Iterate it, read [`EventStream::events`], or take them one at a
/// time with [`EventStream::lazy_events`] (what the wire server sends from, so a long answer is never held whole).
#[derive(Debug)]
pub struct EventStream {
    plan: Arc<StreamPlan>,
    /// The events, made on first need by the readers that want them all at once.
    made: OnceLock<Vec<TimedEvent>>,
    stream_break: StreamBreak,
    stall_ms: u64,
    entry: EntryTicket,
    envelope: Envelope,
}

/// A clone shares the plan and makes its own events when asked for them (a clone is cheap: the wire server
/// clones a stream to send it).
impl Clone for EventStream {
    fn clone(&self) -> EventStream {
        EventStream {
            plan: Arc::clone(&self.plan),
            made: OnceLock::new(),
            stream_break: self.stream_break,
            stall_ms: self.stall_ms,
            entry: self.entry,
            envelope: self.envelope.clone(),
        }
    }
}

impl PartialEq for EventStream {
    fn eq(&self, other: &EventStream) -> bool {
        self.events() == other.events()
            && (self.stream_break, self.stall_ms, self.entry) == (other.stream_break, other.stall_ms, other.entry)
            && self.envelope == other.envelope
    }
}

impl Eq for EventStream {}

/// As data: `{"events": [...]}`.
impl Serialize for EventStream {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("EventStream", 1)?;
        out.serialize_field("events", self.events())?;
        out.end()
    }
}

impl EventStream {
    pub(crate) fn new(
        plan: StreamPlan,
        stream_break: StreamBreak,
        stall_ms: u64,
        entry: EntryTicket,
        envelope: Envelope,
    ) -> EventStream {
        EventStream { plan: Arc::new(plan), made: OnceLock::new(), stream_break, stall_ms, entry, envelope }
    }

    /// The stream with `usage` given to its completed response when the script gave none (the wire always sends
    /// usage, as real providers do).
    pub(crate) fn with_usage_if_missing(mut self, usage: impl Fn(&ChatResponse) -> Usage) -> EventStream {
        if self.plan.fail_after.is_none() && self.plan.response.usage.is_none() {
            let plan = Arc::make_mut(&mut self.plan);
            plan.response.usage = Some(usage(&plan.response));
            self.made = OnceLock::new();
        }
        self
    }

    /// The ids, model and time every frame of this answer repeats on the wire.
    pub fn envelope(&self) -> &Envelope {
        &self.envelope
    }

    /// How a failure at the end of this stream looks on the wire.
    pub fn stream_break(&self) -> StreamBreak {
        self.stream_break
    }

    /// How long the wire server holds the response before the first event.
    pub fn stall_ms(&self) -> u64 {
        self.stall_ms
    }

    /// The journal index of the request this stream answers.
    pub fn request_index(&self) -> u64 {
        self.entry.index
    }

    /// The journal entry this stream answers, for a server to note a client that left mid-stream.
    pub fn entry(&self) -> EntryTicket {
        self.entry
    }

    /// The events with their timing, all made at once (on the first call).
    pub fn events(&self) -> &[TimedEvent] {
        self.made.get_or_init(|| all_events(&self.plan))
    }

    /// The events made one at a time as they are taken, from the start; each call starts anew.
    pub fn lazy_events(&self) -> Events {
        Events::new(Arc::clone(&self.plan))
    }

    /// The events without timing.
    pub fn iter(&self) -> impl Iterator<Item = &StreamEvent> {
        self.events().iter().map(|e| &e.event)
    }

    /// The concatenated text deltas.
    pub fn text(&self) -> String {
        self.text_tokens().concat()
    }

    /// The text deltas, one per token.
    pub fn text_tokens(&self) -> Vec<&str> {
        self.iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Whether any text delta is streamed (known without making the events).
    pub fn streams_text(&self) -> bool {
        self.plan.streams_text()
    }

    /// Whether the failure is the only event: the stream failed before anything was streamed.
    pub fn fails_before_streaming(&self) -> bool {
        self.plan.fails_before_streaming()
    }

    /// The wait before the first event.
    pub fn first_delay_ms(&self) -> u64 {
        self.plan.first_delay_ms
    }

    /// The complete response, if the stream completes.
    pub fn response(&self) -> Option<&ChatResponse> {
        self.plan.fail_after.is_none().then_some(&self.plan.response)
    }

    /// The failure, if the stream fails.
    pub fn error(&self) -> Option<&ProviderError> {
        self.plan.fail_after.as_ref()
    }

    /// Total virtual duration in milliseconds.
    pub fn total_delay_ms(&self) -> u64 {
        self.plan.total_delay_ms()
    }

    /// Consumes the stream into its events.
    pub fn into_events(self) -> Vec<TimedEvent> {
        match self.made.into_inner() {
            Some(events) => events,
            None => all_events(&self.plan),
        }
    }
}

/// Every event of `plan`, in a vector sized once (a 75-token answer's vector grew seven times).
fn all_events(plan: &Arc<StreamPlan>) -> Vec<TimedEvent> {
    let mut events = Vec::with_capacity(plan.event_count());
    events.extend(Events::new(Arc::clone(plan)));
    events
}

impl IntoIterator for EventStream {
    type Item = TimedEvent;
    type IntoIter = Events;

    fn into_iter(self) -> Events {
        Events::new(self.plan)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbered_ids_are_the_prefix_and_the_decimal_number() {
        for number in [0, 1, 9, 10, 99, 100, 12_345, u64::MAX - 1, u64::MAX] {
            assert_eq!(super::numbered_id("req_", number), format!("req_{number}"));
        }
        assert_eq!(super::numbered_id("", 7), "7");
    }
}
