//! Streaming: an answer as the ordered events a provider streams, each with its virtual delay.
//!
//! Order (architecture §3): thinking deltas, text deltas, then per tool call its argument deltas followed by the
//! complete call, then the complete response. A step that fails after its tokens streams thinking and text and
//! then the error: no tool calls, no complete response. A step that fails before anything streams only the error.

use crate::failure::ProviderError;
use crate::journal::EntryTicket;
use crate::model::{ChatResponse, ToolCall, Usage};
use crate::script::{Chunks, StreamBreak, Timing};
use serde::Serialize;

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

/// What a resolved step streams; built by the mock, expanded here.
pub(crate) struct StreamPlan<'a> {
    pub thinking: Option<&'a Chunks>,
    pub text: Option<&'a Chunks>,
    pub response: &'a ChatResponse,
    pub fail_after: Option<&'a ProviderError>,
    pub timing: Timing,
    pub start_ms: u64,
}

/// Accumulates events and their delays: the first streamed event waits `delay + ttft`, every later delta waits
/// the per-token delay, and the closing events (complete tool call, complete response, error) follow at once.
struct Timeline {
    events: Vec<TimedEvent>,
    clock_ms: u64,
    first_delay_ms: Option<u64>,
    token_delay_ms: u64,
}

impl Timeline {
    fn push_delta(&mut self, event: StreamEvent) {
        let delay = self.first_delay_ms.take().unwrap_or(self.token_delay_ms);
        self.push(delay, event);
    }

    fn push_closing(&mut self, event: StreamEvent) {
        let delay = self.first_delay_ms.take().unwrap_or(0);
        self.push(delay, event);
    }

    fn push(&mut self, delay_ms: u64, event: StreamEvent) {
        self.clock_ms = self.clock_ms.saturating_add(delay_ms);
        self.events.push(TimedEvent { delay_ms, at_ms: self.clock_ms, event });
    }
}

/// The events of an answer.
pub(crate) fn expand(plan: &StreamPlan<'_>) -> Vec<TimedEvent> {
    let expected = event_count(plan);
    let mut line = Timeline {
        // Sized once: an event holds a whole response, and a 75-token answer's vector grew seven times.
        events: Vec::with_capacity(expected),
        clock_ms: plan.start_ms,
        first_delay_ms: Some(plan.timing.delay_ms.saturating_add(plan.timing.ttft_ms)),
        token_delay_ms: plan.timing.token_delay_ms,
    };
    each_token(plan.thinking, |token| line.push_delta(StreamEvent::ThinkingDelta { text: token.to_string() }));
    each_token(plan.text, |token| line.push_delta(StreamEvent::TextDelta { text: token.to_string() }));
    if let Some(error) = plan.fail_after {
        line.push_closing(StreamEvent::Error { error: error.clone() });
        debug_assert_eq!(line.events.len(), expected, "event_count disagrees with expand");
        return line.events;
    }
    for (index, call) in plan.response.message.tool_calls.iter().enumerate() {
        let fragments: Vec<&str> = crate::tokenize(&call.arguments).collect();
        // A call with empty arguments still announces itself with one (empty) fragment.
        let fragments = if fragments.is_empty() { vec![""] } else { fragments };
        for fragment in fragments {
            line.push_delta(StreamEvent::ToolCallDelta {
                index,
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: fragment.to_string(),
            });
        }
        line.push_closing(StreamEvent::ToolCall { index, call: call.clone() });
    }
    line.push_closing(StreamEvent::Complete { response: plan.response.clone() });
    debug_assert_eq!(line.events.len(), expected, "event_count disagrees with expand");
    line.events
}

/// The total virtual duration of [`expand`]'s events, computed without building them (the whole-answer path).
pub(crate) fn planned_delay(plan: &StreamPlan<'_>) -> u64 {
    let first = plan.timing.delay_ms.saturating_add(plan.timing.ttft_ms);
    if plan.timing.token_delay_ms == 0 {
        return first; // no time between tokens: nothing to count (a whole answer's usual case)
    }
    let mut deltas = token_count(plan.thinking) + token_count(plan.text);
    if plan.fail_after.is_none() {
        deltas += plan.response.message.tool_calls.iter().map(argument_fragments).sum::<usize>();
    }
    first.saturating_add(plan.timing.token_delay_ms.saturating_mul((deltas as u64).saturating_sub(1)))
}

/// How many events [`expand`] makes of `plan`.
fn event_count(plan: &StreamPlan<'_>) -> usize {
    let deltas = token_count(plan.thinking) + token_count(plan.text);
    match plan.fail_after {
        Some(_) => deltas + 1,
        // Each call's fragments and its closing event, then the completed response.
        None => deltas + plan.response.message.tool_calls.iter().map(|c| argument_fragments(c) + 1).sum::<usize>() + 1,
    }
}

/// The tokens of `chunks`, one by one, without collecting them first.
fn each_token(chunks: Option<&Chunks>, push: impl FnMut(&str)) {
    match chunks {
        Some(Chunks::Words(text)) => crate::tokenize(text).for_each(push),
        Some(Chunks::Exact(tokens)) => tokens.iter().map(String::as_str).for_each(push),
        None => {}
    }
}

fn token_count(chunks: Option<&Chunks>) -> usize {
    match chunks {
        Some(Chunks::Words(text)) => crate::count_tokens(text),
        Some(Chunks::Exact(tokens)) => tokens.len(),
        None => 0,
    }
}

/// The argument deltas of a streamed tool call: one per token, and one (empty) for empty arguments.
fn argument_fragments(call: &crate::model::ToolCall) -> usize {
    crate::count_tokens(&call.arguments).max(1)
}

/// The single event of a step that fails before streaming anything.
pub(crate) fn failure_before_stream(error: &ProviderError, timing: Timing, start_ms: u64) -> Vec<TimedEvent> {
    let delay_ms = timing.delay_ms;
    vec![TimedEvent {
        delay_ms,
        at_ms: start_ms.saturating_add(delay_ms),
        event: StreamEvent::Error { error: error.clone() },
    }]
}

/// Total virtual duration of a list of events.
pub(crate) fn total_delay(events: &[TimedEvent]) -> u64 {
    events.iter().fold(0u64, |sum, e| sum.saturating_add(e.delay_ms))
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
}

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
    let mut digits = [0u8; 20]; // u64::MAX has 20 digits
    let mut start = digits.len();
    let mut rest = number;
    for slot in digits.iter_mut().rev() {
        *slot = b'0' + (rest % 10) as u8;
        rest /= 10;
        start -= 1;
        if rest == 0 {
            break;
        }
    }
    let digits = digits.get(start..).and_then(|d| std::str::from_utf8(d).ok()).unwrap_or_default();
    let mut id = String::with_capacity(prefix.len() + digits.len());
    id.push_str(prefix);
    id.push_str(digits);
    id
}

/// The events of one streamed answer, in order. Iterate it, or read [`EventStream::events`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EventStream {
    events: Vec<TimedEvent>,
    #[serde(skip)]
    stream_break: StreamBreak,
    #[serde(skip)]
    stall_ms: u64,
    #[serde(skip)]
    entry: EntryTicket,
    #[serde(skip)]
    envelope: Envelope,
}

impl EventStream {
    pub(crate) fn new(
        events: Vec<TimedEvent>,
        stream_break: StreamBreak,
        stall_ms: u64,
        entry: EntryTicket,
        envelope: Envelope,
    ) -> EventStream {
        EventStream { events, stream_break, stall_ms, entry, envelope }
    }

    /// The stream with `usage` given to its completed response when the script gave none (the wire always sends
    /// usage, as real providers do).
    pub(crate) fn with_usage_if_missing(mut self, usage: impl Fn(&ChatResponse) -> Usage) -> EventStream {
        for timed in &mut self.events {
            if let StreamEvent::Complete { response } = &mut timed.event {
                if response.usage.is_none() {
                    response.usage = Some(usage(response));
                }
            }
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

    /// The events with their timing.
    pub fn events(&self) -> &[TimedEvent] {
        &self.events
    }

    /// The events without timing.
    pub fn iter(&self) -> impl Iterator<Item = &StreamEvent> {
        self.events.iter().map(|e| &e.event)
    }

    /// The concatenated text deltas.
    pub fn text(&self) -> String {
        self.iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
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

    /// The complete response, if the stream completed.
    pub fn response(&self) -> Option<&ChatResponse> {
        self.iter().find_map(|e| match e {
            StreamEvent::Complete { response } => Some(response),
            _ => None,
        })
    }

    /// The failure, if the stream failed.
    pub fn error(&self) -> Option<&ProviderError> {
        self.iter().find_map(|e| match e {
            StreamEvent::Error { error } => Some(error),
            _ => None,
        })
    }

    /// Total virtual duration in milliseconds.
    pub fn total_delay_ms(&self) -> u64 {
        total_delay(&self.events)
    }

    /// Consumes the stream into its events.
    pub fn into_events(self) -> Vec<TimedEvent> {
        self.events
    }
}

impl IntoIterator for EventStream {
    type Item = TimedEvent;
    type IntoIter = std::vec::IntoIter<TimedEvent>;

    fn into_iter(self) -> Self::IntoIter {
        self.events.into_iter()
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
