//! Stream delivery fuzzing: the same events, delivered the way real networks and real servers deliver them.
//!
//! A mock that sends each event whole, in one write, gives false greens: production bugs come from an SSE event
//! split across reads, half a UTF-8 character at the end of a read, keep-alives between events, a `\r\n` split
//! between its two bytes. With the `delivery` setting, a streamed reply goes through three seeded layers
//! (`../shared/spec/recording-contracts-streams.md` C.7):
//!
//! 1. **Order** (opt-in `variations`, legal on the wire but hostile to some SDKs' helpers): Chat Completions'
//!    parallel tool-call deltas interleaved by index after each call's first delta.
//! 2. **Text of each event**: insignificant JSON whitespace, the protocol's legal keep-alives between events,
//!    `\r\n` or `\r` line ends, a `data:` line broken into several at whitespace outside strings.
//! 3. **Transport cuts**: the bytes cut at seeded positions (inside UTF-8 sequences, inside `data:` lines,
//!    between `\r` and `\n`), several events joined in one write where no wait separates them.
//!
//! Only what the protocol table says a protocol's clients accept is done to it ([`StreamFraming`]): no `id:`
//! lines, no invented event types, no split signatures, Anthropic blocks never interleaved, Bedrock's binary
//! event stream only cut. Every draw comes from the request's own seed (`seeded::request_seed` of the delivery
//! seed, or the scenario's, and the request's index), so a reply is the same bytes in every language; the reply
//! carries it in `x-cuecard-delivery-seed` and the journal keeps it (`delivery_seed`).

use crate::http::{Frame, Frames, HttpReply};
use crate::seeded::{request_seed, Seeded};
use serde::{Deserialize, Serialize};

/// The `delivery` setting (scenario, `configure`, or the server's `--delivery`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delivery {
    /// The seed of the cuts (default: the scenario's `seed`). Each request draws from its own stream of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Where writes are cut: `bytes` (default), `lines` (each line its own write) or `none`.
    #[serde(default)]
    pub split: Split,
    /// The largest write when cutting `bytes` (default 16; 1 sends one byte per write).
    #[serde(default = "default_max_chunk_bytes")]
    pub max_chunk_bytes: u32,
    /// Keep-alives between events, where the protocol has them: a `: keep-alive` comment (Chat Completions,
    /// Responses), an `event: ping` (Anthropic); Gemini, Ollama and Bedrock have none.
    #[serde(default)]
    pub keepalives: bool,
    /// Insignificant whitespace inside the JSON of events (after `:` and `,`, before `}` and `]`).
    #[serde(default)]
    pub whitespace: bool,
    /// The line end of SSE streams whose clients accept all three (Chat Completions, Responses, Anthropic).
    #[serde(default)]
    pub line_ending: LineEnding,
    /// Opt-in changes that are legal on the wire but break some SDKs' helpers (`docs/concepts/delivery.md` names which).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variations: Vec<Variation>,
}

const fn default_max_chunk_bytes() -> u32 {
    16
}

/// The largest `max_chunk_bytes` accepted.
pub const MAX_CHUNK_BYTES: u32 = 1 << 20;

/// Where writes are cut.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// Each event is one write, as without the setting (the other layers still apply).
    None,
    /// Each line (with its line end) is its own write.
    Lines,
    /// Writes of 1 to `max_chunk_bytes` bytes, cut anywhere.
    #[default]
    Bytes,
}

/// An SSE stream's line end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineEnding {
    /// `\n`.
    #[default]
    Lf,
    /// `\r\n`.
    Crlf,
    /// `\r`.
    Cr,
}

impl LineEnding {
    fn text(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::Crlf => "\r\n",
            LineEnding::Cr => "\r",
        }
    }
}

/// Opt-in variations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variation {
    /// Chat Completions: parallel tool calls' argument deltas interleaved by index (0, 1, 0, 1, ...) after each
    /// call's first delta. Raw iteration, the AI SDK and LangChain4j accept it; the openai-python and openai-node
    /// `.stream()` helpers end a call at the first change of index (a premature `arguments.done`).
    InterleaveToolCalls,
    /// A `data:` line broken into several at whitespace outside JSON strings (clients join them with `\n`).
    /// Legal for every SSE client the spec read; opt-in because few servers do it.
    MultilineData,
}

impl Delivery {
    /// What is wrong with the setting, if anything: `(field, problem)`.
    pub fn problem(&self) -> Option<(&'static str, String)> {
        if self.max_chunk_bytes == 0 || self.max_chunk_bytes > MAX_CHUNK_BYTES {
            return Some((
                "max_chunk_bytes",
                format!("{} is out of range (1 to {MAX_CHUNK_BYTES})", self.max_chunk_bytes),
            ));
        }
        None
    }

    /// The seed of request `index`'s delivery, when the scenario's seed is `scenario_seed`: never 0, and at most
    /// 2⁵³ − 1, so that JavaScript (whose numbers are doubles) reads the journal's `delivery_seed` exactly.
    pub fn request_seed(&self, scenario_seed: u64, index: u64) -> std::num::NonZeroU64 {
        let seed = request_seed(self.seed.unwrap_or(scenario_seed), PURPOSE, index) & ((1 << 53) - 1);
        std::num::NonZeroU64::new(seed).unwrap_or(std::num::NonZeroU64::MIN)
    }
}

/// `seeded::request_seed`'s purpose for delivery ("delivery" in ASCII).
const PURPOSE: u64 = 0x0064_656c_6976_6572;

/// The reply header that carries a request's delivery seed.
pub const SEED_HEADER: &str = "x-cuecard-delivery-seed";

/// How a protocol's stream is framed, and what its clients accept (a column of the protocol table).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StreamFraming {
    pub body: BodyKind,
    /// The keep-alive event its clients skip, sent between two events (never before the first).
    pub keepalive: Option<&'static str>,
    /// Whether its clients accept `\r\n` and `\r` line ends (spec C.2) and several `data:` lines per event.
    pub any_line_end: bool,
    /// Chat Completions' tool-call deltas (the `interleave_tool_calls` variation).
    pub chat_tool_calls: bool,
}

/// The body of a protocol's stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// Server-sent events of JSON data.
    Sse,
    /// One JSON object per `\n`-ended line (Ollama).
    Ndjson,
    /// Binary messages, as base64 frames (AWS event stream): only cut.
    Binary,
}

impl StreamFraming {
    /// SSE with a keep-alive.
    pub(crate) const fn sse(keepalive: Option<&'static str>, any_line_end: bool) -> StreamFraming {
        StreamFraming { body: BodyKind::Sse, keepalive, any_line_end, chat_tool_calls: false }
    }

    /// A body that is only cut.
    pub(crate) const fn only(body: BodyKind) -> StreamFraming {
        StreamFraming { body, keepalive: None, any_line_end: false, chat_tool_calls: false }
    }
}

/// An SSE comment: every SSE client skips it (the Chat Completions and Responses keep-alive).
pub(crate) const COMMENT_KEEPALIVE: &str = ": keep-alive\n\n";
/// Anthropic's keep-alive, as its API sends it.
pub(crate) const ANTHROPIC_PING: &str = "event: ping\ndata: {\"type\": \"ping\"}\n\n";

/// `reply` delivered as `delivery` says, for request `index` of a mock seeded `scenario_seed`. A whole reply or an
/// abort is returned as it is. The writes are made at once (a delivered stream is a test's, and small), which keeps
/// this module plain loops over vectors: lazily chained iterators cost the WASM module several kilobytes.
#[inline(never)]
pub(crate) fn deliver(
    reply: HttpReply,
    delivery: &Delivery,
    framing: StreamFraming,
    scenario_seed: u64,
    index: u64,
) -> HttpReply {
    let HttpReply::Stream { stall_ms, status, mut headers, frames, end, base64, entry, .. } = reply else {
        return reply;
    };
    let seed = delivery.request_seed(scenario_seed, index).get();
    headers.push((SEED_HEADER.into(), seed.to_string().into()));
    let plan = Plan { delivery, framing, seed, base64 };
    let cut = delivery.split == Split::Bytes || base64;
    let frames = Frames::from(plan.apply(frames.to_vec()));
    HttpReply::Stream { stall_ms, status, headers, frames, end, base64: cut, separate_writes: true, entry }
}

/// Everything one reply's delivery depends on.
struct Plan<'a> {
    delivery: &'a Delivery,
    framing: StreamFraming,
    seed: u64,
    /// The frames given are base64 (binary).
    base64: bool,
}

/// Each layer draws from its own generator, so turning one on does not move another's draws.
const TEXT: u64 = 2;
const CUTS: u64 = 3;

impl Plan<'_> {
    fn rng(&self, layer: u64) -> Seeded {
        Seeded::new(crate::seeded::mix(self.seed ^ layer))
    }

    fn apply(&self, mut frames: Vec<Frame>) -> Vec<Frame> {
        let delivery = self.delivery;
        if self.framing.chat_tool_calls && delivery.variations.contains(&Variation::InterleaveToolCalls) {
            frames = interleave_tool_calls(frames);
        }
        let pieces: Vec<Piece> = if self.base64 {
            frames
                .into_iter()
                .map(|frame| Piece { delay_ms: frame.delay_ms, bytes: decode_base64(&frame.data) })
                .collect()
        } else {
            self.text_layer(frames)
        };
        // A binary body (AWS event stream) has no lines to split at and no text to send: it is always cut at
        // bytes, whatever `split` says, and crosses as base64 (`deliver`).
        let split = if self.base64 { Split::Bytes } else { delivery.split };
        match split {
            Split::Bytes => cut(pieces, self.rng(CUTS), delivery.max_chunk_bytes)
                .into_iter()
                .map(|piece| Frame { delay_ms: piece.delay_ms, data: encode_base64(&piece.bytes) })
                .collect(),
            Split::Lines => pieces.into_iter().flat_map(by_lines).collect(),
            // Only text layers made these bytes (a binary body is always cut, above).
            Split::None => pieces
                .into_iter()
                .map(|piece| Frame {
                    delay_ms: piece.delay_ms,
                    data: String::from_utf8_lossy(&piece.bytes).into_owned(),
                })
                .collect(),
        }
    }

    /// Whitespace, line ends and keep-alives, event by event.
    fn text_layer(&self, frames: Vec<Frame>) -> Vec<Piece> {
        let (delivery, framing) = (self.delivery, self.framing);
        let mut rng = self.rng(TEXT);
        let line_end = if framing.any_line_end { delivery.line_ending } else { LineEnding::Lf };
        let multiline = framing.any_line_end && delivery.variations.contains(&Variation::MultilineData);
        let mut pieces = Vec::with_capacity(frames.len() + frames.len() / 2);
        for (n, frame) in frames.into_iter().enumerate() {
            let mut delay_ms = frame.delay_ms;
            if let Some(keepalive) = framing.keepalive.filter(|_| delivery.keepalives && n > 0) {
                if rng.chance(1, 3) {
                    // A keep-alive goes out during the wait before the event it precedes.
                    let bytes = with_line_end(keepalive, line_end).into_bytes();
                    pieces.push(Piece { delay_ms: std::mem::take(&mut delay_ms), bytes });
                }
            }
            let mut text = frame.data;
            if delivery.whitespace || multiline {
                text = match framing.body {
                    BodyKind::Sse => sse_padded(&text, &mut rng, delivery.whitespace, multiline),
                    BodyKind::Ndjson | BodyKind::Binary => json_padded(&text, &mut rng, None),
                };
            }
            if line_end != LineEnding::Lf && framing.body == BodyKind::Sse {
                text = with_line_end(&text, line_end);
            }
            pieces.push(Piece { delay_ms, bytes: text.into_bytes() });
        }
        pieces
    }
}

/// Bytes to send after waiting `delay_ms`.
struct Piece {
    delay_ms: u64,
    bytes: Vec<u8>,
}

fn with_line_end(text: &str, line_end: LineEnding) -> String {
    text.replace('\n', line_end.text())
}

/// Each line of a piece (with its line end: `\n`, `\r\n` or `\r`) as its own frame; the piece's wait goes before
/// the first.
fn by_lines(piece: Piece) -> Vec<Frame> {
    let text = String::from_utf8_lossy(&piece.bytes).into_owned();
    let bytes = text.as_bytes();
    let mut frames = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        let end = match bytes.get(i) {
            Some(b'\r') if bytes.get(i + 1) == Some(&b'\n') => i + 2,
            Some(b'\n' | b'\r') => i + 1,
            _ => {
                i += 1;
                continue;
            }
        };
        frames.push(text.get(start..end).unwrap_or_default().to_string());
        (start, i) = (end, end);
    }
    if start < text.len() {
        frames.push(text.get(start..).unwrap_or_default().to_string());
    }
    let mut delay_ms = piece.delay_ms;
    frames.into_iter().map(|data| Frame { delay_ms: std::mem::take(&mut delay_ms), data }).collect()
}

/// The pieces cut into writes of 1 to `max` bytes. Pieces that follow without a wait may share a write (one read
/// holding several events); a piece after a wait starts a new write, so the timing stays as scripted.
fn cut(pieces: Vec<Piece>, mut rng: Seeded, max: u32) -> Vec<Piece> {
    let max = u64::from(max.max(1));
    let mut next_size = move || usize::try_from(rng.between(1, max)).unwrap_or(1);
    let mut writes = Vec::new();
    let (mut buffer, mut buffer_delay): (Vec<u8>, u64) = (Vec::new(), 0);
    let mut want = next_size();
    for piece in pieces {
        if piece.delay_ms > 0 && !buffer.is_empty() {
            // A wait comes next: what is buffered goes out before it.
            writes.push(Piece { delay_ms: std::mem::take(&mut buffer_delay), bytes: std::mem::take(&mut buffer) });
            want = next_size();
        }
        if buffer.is_empty() {
            buffer_delay = piece.delay_ms;
        }
        buffer.extend_from_slice(&piece.bytes);
        while buffer.len() >= want {
            let rest = buffer.split_off(want);
            let write = std::mem::replace(&mut buffer, rest);
            writes.push(Piece { delay_ms: std::mem::take(&mut buffer_delay), bytes: write });
            want = next_size();
        }
    }
    if !buffer.is_empty() {
        writes.push(Piece { delay_ms: buffer_delay, bytes: buffer });
    }
    writes
}

fn decode_base64(data: &str) -> Vec<u8> {
    use base64::Engine;
    // `as_bytes`: the same instantiation of `decode` as the wire's request bodies (a second one costs WASM 3 KB).
    base64::engine::general_purpose::STANDARD.decode(data.as_bytes()).unwrap_or_else(|_| data.as_bytes().to_vec())
}

fn encode_base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// An SSE event's text with whitespace in the JSON of its `data:` lines (only data that is a JSON object: Chat's
/// `[DONE]` stays as it is), and with `multiline`, some of that whitespace a line break into a new `data:` line.
fn sse_padded(event: &str, rng: &mut Seeded, whitespace: bool, multiline: bool) -> String {
    let mut out = String::with_capacity(event.len() + 16);
    for line in event.split_inclusive('\n') {
        match line.strip_prefix("data: ").filter(|json| json.starts_with('{')) {
            Some(json) => {
                let (json, end) = json.strip_suffix('\n').map_or((json, ""), |j| (j, "\n"));
                out.push_str("data: ");
                let padded = if whitespace { json_padded(json, rng, None) } else { json.to_string() };
                out.push_str(&if multiline { json_padded(&padded, rng, Some("\ndata: ")) } else { padded });
                out.push_str(end);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// JSON text with insignificant whitespace added at seeded places outside strings: after `:` and `,`, before `}`
/// and `]`. With `break_line`, that text is put at some of those places instead of spaces (and only there, where
/// it stands between two tokens, never inside a string).
fn json_padded(json: &str, rng: &mut Seeded, break_line: Option<&str>) -> String {
    let mut out = String::with_capacity(json.len() + 16);
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if matches!(c, '}' | ']') {
            pad(&mut out, rng, break_line);
        }
        out.push(c);
        match c {
            '"' => in_string = true,
            ':' | ',' => pad(&mut out, rng, break_line),
            _ => {}
        }
    }
    out
}

fn pad(out: &mut String, rng: &mut Seeded, break_line: Option<&str>) {
    match break_line {
        Some(text) => {
            if rng.chance(1, 6) {
                out.push_str(text);
            }
        }
        None => {
            if rng.chance(1, 4) {
                for _ in 0..rng.between(1, 3) {
                    out.push(' ');
                }
            }
        }
    }
}

/// Chat Completions frames with the argument deltas of parallel tool calls interleaved: the frames that carry
/// tool-call deltas keep their places (and waits), and are refilled round-robin by call index, so each call still
/// first appears in index order (openai-python corrupts calls whose index 1 comes before index 0; spec C.3).
fn interleave_tool_calls(frames: Vec<Frame>) -> Vec<Frame> {
    let index_of = |frame: &Frame| -> Option<u64> {
        let json = frame.data.strip_prefix("data: ")?.lines().next()?;
        let value: serde_json::Value = serde_json::from_str(json).ok()?;
        let calls = value.get("choices")?.get(0)?.get("delta")?.get("tool_calls")?.as_array()?;
        match calls.as_slice() {
            [only] => only.get("index")?.as_u64(),
            _ => None,
        }
    };
    let mut slots = Vec::new();
    let mut by_call: std::collections::BTreeMap<u64, std::collections::VecDeque<String>> = Default::default();
    for (position, frame) in frames.iter().enumerate() {
        if let Some(index) = index_of(frame) {
            slots.push(position);
            by_call.entry(index).or_default().push_back(frame.data.clone());
        }
    }
    let mut order = Vec::with_capacity(slots.len());
    while order.len() < slots.len() {
        for queue in by_call.values_mut() {
            if let Some(data) = queue.pop_front() {
                order.push(data);
            }
        }
    }
    let mut frames = frames;
    for (position, data) in slots.into_iter().zip(order) {
        if let Some(frame) = frames.get_mut(position) {
            frame.data = data;
        }
    }
    frames
}

#[cfg(test)]
mod tests;
