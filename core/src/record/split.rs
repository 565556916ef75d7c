//! A streamed body as it arrived (chunks, each with its arrival time) cut into its events: SSE events, NDJSON
//! lines, or AWS event-stream messages. Each event is timed by the chunk that brought its last byte, so a replay
//! waits where the provider made the client wait.

use crate::script::recorded::RecordedFrame;
use base64::Engine;

/// What the events of a body are, from its content type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framing {
    /// `text/event-stream`: events end with a blank line.
    Sse,
    /// Anything else that is text (Ollama's NDJSON, a JSON array streamed line by line): events end with `\n`.
    Lines,
    /// `application/vnd.amazon.eventstream`: binary messages that say their own length.
    EventStream,
}

impl Framing {
    pub(crate) fn of(content_type: Option<&str>) -> Framing {
        let content_type = content_type.unwrap_or("").to_ascii_lowercase();
        if content_type.starts_with("text/event-stream") {
            Framing::Sse
        } else if content_type.starts_with("application/vnd.amazon.eventstream") {
            Framing::EventStream
        } else {
            Framing::Lines
        }
    }
}

/// The events of `chunks` (`(at_ms, bytes)` in arrival order), and whether they are base64. Bytes after the last
/// whole event (a stream cut mid-event) are the last frame. Text that is not UTF-8 is kept as base64 frames.
pub(crate) fn frames(framing: Framing, chunks: &[(u64, Vec<u8>)]) -> (Vec<RecordedFrame>, bool) {
    let mut ends: Vec<(usize, u64)> = Vec::new(); // (end offset of an event, at_ms)
    let mut body: Vec<u8> = Vec::new();
    let mut searched = 0;
    for (at_ms, chunk) in chunks {
        body.extend_from_slice(chunk);
        loop {
            let start = ends.last().map_or(0, |(end, _)| *end);
            match next_end(framing, &body, start, searched) {
                Some(end) => {
                    ends.push((end, *at_ms));
                    searched = end;
                }
                None => {
                    searched = body.len().saturating_sub(3).max(start);
                    break;
                }
            }
        }
    }
    let last_end = ends.last().map_or(0, |(end, _)| *end);
    if last_end < body.len() {
        ends.push((body.len(), chunks.last().map_or(0, |(at, _)| *at)));
    }
    let binary = framing == Framing::EventStream || std::str::from_utf8(&body).is_err();
    let mut start = 0;
    let frames = ends
        .into_iter()
        .map(|(end, at_ms)| {
            let bytes = body.get(start..end).unwrap_or_default();
            start = end;
            let data = if binary {
                base64::engine::general_purpose::STANDARD.encode(bytes)
            } else {
                String::from_utf8_lossy(bytes).into_owned()
            };
            RecordedFrame { at_ms, data }
        })
        .collect();
    (frames, binary)
}

/// The end of the event that starts at `start`, when `body` holds all of it (`searched`: where a terminator can
/// first end, so each byte is scanned about once).
fn next_end(framing: Framing, body: &[u8], start: usize, searched: usize) -> Option<usize> {
    match framing {
        Framing::Sse => {
            let from = searched.max(start);
            let rest = body.get(from..)?;
            // A blank line: "\n\n", or "\r\n\r\n" (each line ending "\r\n"), or "\r\r".
            (0..rest.len()).find_map(|i| {
                let tail = rest.get(i..)?;
                [&b"\n\n"[..], b"\r\n\r\n", b"\r\r"].iter().find(|t| tail.starts_with(t)).map(|t| from + i + t.len())
            })
        }
        Framing::Lines => {
            let from = searched.max(start);
            body.get(from..)?.iter().position(|b| *b == b'\n').map(|i| from + i + 1)
        }
        Framing::EventStream => {
            let prelude: [u8; 4] = body.get(start..start + 4)?.try_into().ok()?;
            let total = u32::from_be_bytes(prelude) as usize;
            // A length below the smallest message (16 bytes) cannot be framed: the rest is one frame.
            if total < 16 {
                return None;
            }
            (body.len() >= start + total).then_some(start + total)
        }
    }
}

/// The bytes of recorded frames, joined (base64 frames decoded).
pub(crate) fn joined(frames: &[RecordedFrame], base64: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for frame in frames {
        if base64 {
            out.extend(base64::engine::general_purpose::STANDARD.decode(&frame.data).unwrap_or_default());
        } else {
            out.extend_from_slice(frame.data.as_bytes());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_are_cut_at_blank_lines_whatever_the_chunks_and_timed_by_their_last_byte() {
        let chunks = vec![
            (10, b"data: {\"a\"".to_vec()),
            (20, b":1}\n\nda".to_vec()),
            (30, b"ta: 2\r\n\r\ndata: [DONE]\n\n".to_vec()),
        ];
        let (frames, base64) = frames(Framing::Sse, &chunks);
        assert!(!base64);
        let got: Vec<(u64, &str)> = frames.iter().map(|f| (f.at_ms, f.data.as_str())).collect();
        assert_eq!(got, vec![(20, "data: {\"a\":1}\n\n"), (30, "data: 2\r\n\r\n"), (30, "data: [DONE]\n\n")]);
    }

    #[test]
    fn a_cut_stream_keeps_its_partial_event_and_lines_split_at_newlines() {
        let (frames, _) = frames(Framing::Sse, &[(5, b"data: 1\n\ndata: {\"tru".to_vec())]);
        assert_eq!(frames.last().map(|f| f.data.as_str()), Some("data: {\"tru"));
        // A chunk that ends inside a UTF-8 character: the line is whole text once its last byte came.
        let line = "{\"a\":\"é\"}\n".as_bytes();
        let (lines, base64) = frames_of_lines(&[(1, line[..7].to_vec()), (2, line[7..].to_vec())]);
        assert_eq!((lines, base64), (vec!["{\"a\":\"é\"}\n".to_string()], false));
    }

    fn frames_of_lines(chunks: &[(u64, Vec<u8>)]) -> (Vec<String>, bool) {
        let (frames, base64) = frames(Framing::Lines, chunks);
        (frames.into_iter().map(|f| f.data).collect(), base64)
    }

    #[test]
    fn event_stream_messages_are_cut_by_their_length_and_kept_as_base64() {
        let message = |n: u8| {
            let mut m = 20u32.to_be_bytes().to_vec();
            m.extend([0, 0, 0, 0, 0, 0, 0, 0, n, n, n, n, 0, 0, 0, 0]);
            m
        };
        let mut both = message(1);
        both.extend(message(2));
        let (frames, base64) = frames(Framing::EventStream, &[(1, both[..25].to_vec()), (9, both[25..].to_vec())]);
        assert!(base64);
        assert_eq!(frames.iter().map(|f| f.at_ms).collect::<Vec<_>>(), vec![1, 9]);
        assert_eq!(joined(&frames, true), both);
    }
}
