//! OpenAI's audio endpoints (`docs/concepts/wire.md`, "Speech and transcription"): `POST /v1/audio/speech`,
//! `/v1/audio/transcriptions` and `/v1/audio/translations`.
//!
//! Speech is the text spoken by cuecard's deterministic voice (`media::audio`): the input, or the step's text when a
//! route names the endpoint `speech`; `wav` and `pcm` are reversible, `flac` lossless, `mp3`, `opus` and `aac` valid
//! files of silence as long as the speech. A transcription is the step's text when a route names `transcriptions`
//! (or `translations`); without one, cuecard transcribes audio it made itself (exactly) and refuses other audio by
//! name. Transcripts come as `json`, `text`, `srt`, `vtt` or `verbose_json` (segments per sentence, words with
//! their times), or streamed as `transcript.text.delta` events; every time is the voice's: 20 ms per UTF-8 byte.

use super::errors::{error_object, Dialect};
use super::json;
use super::multipart::{self, Part};
use super::protocol::MediaOptions;
use super::routes::Matched;
use super::scripted::{scripted_when_named, Unscripted};
use super::{
    binary_reply, json_reply, sse_json, stream_reply, ChatProtocol, DecodedRequest, Encoding, Frame, HttpReply,
    HttpRequest, ReplyHeader,
};
use crate::delivery::{self, StreamFraming};
use crate::media::audio::{self, AudioFormat};
use crate::mock::pending::Turn;
use crate::mock::MockModel;
use crate::model::{ChatRequest, ChatResponse, ContentPart, FilePart, Message, Usage};
use crate::script::StreamBreak;
use crate::stream::{Envelope, EventStream, StreamEvent, TimedEvent};
use serde_json::{json, Value};

/// `POST /v1/audio/speech`.
pub(crate) struct OpenAiSpeech;

/// `POST /v1/audio/transcriptions`.
pub(crate) struct OpenAiTranscription;

/// `POST /v1/audio/translations`: a transcription into English, not streamed.
pub(crate) struct OpenAiTranslation;

/// The row answers.
pub(crate) fn speech(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> Turn<HttpReply> {
    scripted_when_named::<OpenAiSpeech>(mock, http, matched, Unscripted::always(unscripted_speech))
}

pub(crate) fn transcription(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> Turn<HttpReply> {
    let unscripted = Unscripted {
        can_answer: can_transcribe,
        answer: |request, index| unscripted_transcript(false, request, index),
    };
    scripted_when_named::<OpenAiTranscription>(mock, http, matched, unscripted)
}

pub(crate) fn translation(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> Turn<HttpReply> {
    let unscripted =
        Unscripted { can_answer: can_transcribe, answer: |request, index| unscripted_transcript(true, request, index) };
    scripted_when_named::<OpenAiTranslation>(mock, http, matched, unscripted)
}

impl ChatProtocol for OpenAiSpeech {
    const DIALECT: Dialect = Dialect::OpenAi;
    const FRAMING: StreamFraming = StreamFraming::sse(Some(delivery::COMMENT_KEEPALIVE), true);

    fn decode(body: &Value) -> Result<DecodedRequest, String> {
        let top = json::object(body, "the request")?;
        let model = json::required_str(top, "model", "request")?.to_string();
        let input = json::required_str(top, "input", "request")?;
        if input.is_empty() {
            return Err("request.input cannot be empty".to_string());
        }
        // The API's limit, and what keeps the speech bounded: 1,920 bytes of audio per byte of input.
        let characters = input.chars().count();
        if characters > MAX_SPEECH_INPUT {
            return Err(format!("request.input has {characters} characters; the most is {MAX_SPEECH_INPUT}"));
        }
        match top.get("voice") {
            Some(Value::String(_)) => {}
            Some(Value::Object(voice)) if voice.get("id").is_some_and(Value::is_string) => {}
            _ => return Err("request.voice is required: a voice name or {\"id\": ...}".to_string()),
        }
        let format = json::optional_str(top, "response_format", "request")?.unwrap_or_else(|| "mp3".to_string());
        if AudioFormat::named(&format).is_none() {
            return Err(format!("request.response_format {format:?} is not mp3, opus, aac, flac, wav or pcm"));
        }
        if let Some(speed) = json::optional_f64(top, "speed", "request")? {
            if !(0.25..=4.0).contains(&speed) {
                return Err(format!("request.speed {speed} is not from 0.25 to 4.0"));
            }
        }
        let stream = match json::optional_str(top, "stream_format", "request")?.as_deref() {
            None | Some("audio") => false,
            Some("sse") => true,
            Some(other) => return Err(format!("request.stream_format {other:?} is not audio or sse")),
        };
        let mut messages = Vec::new();
        if let Some(instructions) = json::optional_str(top, "instructions", "request")? {
            messages.push(Message::system(instructions));
        }
        messages.push(Message::user(input));
        let request = ChatRequest { model, messages, stream, ..ChatRequest::default() };
        let media = MediaOptions { format, ..MediaOptions::default() };
        Ok(DecodedRequest { media: Some(Box::new(media)), ..DecodedRequest::new(request) })
    }

    fn encode_response(
        response: &ChatResponse,
        _: Usage,
        _: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        spoken_reply(response.text(), request, request_id)
    }

    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply {
        let format = media_format(request);
        let frames = super::frames::encoded(stream, move |stream| speech_events(stream, format));
        stream_reply(stream, "x-request-id", request_id, frames)
    }
}

/// The format a speech request asked for.
fn media_format(request: &DecodedRequest) -> AudioFormat {
    request.media.as_ref().and_then(|m| AudioFormat::named(&m.format)).unwrap_or(AudioFormat::Mp3)
}

/// The input of a speech request: its last user message.
fn input_text(request: &ChatRequest) -> String {
    request.messages.last().map(Message::text).unwrap_or_default()
}

fn unscripted_speech(request: &DecodedRequest, index: u64) -> HttpReply {
    let text = input_text(&request.request);
    let request_id = super::request_id(index);
    if !request.request.stream {
        return spoken_reply(&text, request, &request_id);
    }
    // `stream_format: sse` without a script: the whole speech as one delta, then the end.
    let audio = base64_of(&audio::encode(&text, media_format(request)));
    let mut body = sse_json(None, &json!({"type": "speech.audio.delta", "audio": audio}));
    body.push_str(&sse_json(None, &json!({"type": "speech.audio.done", "usage": speech_usage(&text)})));
    HttpReply::Stream {
        stall_ms: 0,
        status: 200,
        headers: super::sse_headers(vec![("x-request-id".into(), request_id.into())]),
        frames: vec![Frame { delay_ms: 0, data: body }].into(),
        end: crate::http::StreamEnd::Close,
        base64: false,
        separate_writes: false,
        entry: None,
    }
}

/// `text` spoken in the requested format, as a binary body.
fn spoken_reply(text: &str, request: &DecodedRequest, request_id: &str) -> HttpReply {
    let format = media_format(request);
    let headers: Vec<ReplyHeader> = vec![
        ("content-type".into(), format.content_type().into()),
        ("x-request-id".into(), request_id.to_owned().into()),
    ];
    binary_reply(headers, &audio::encode(text, format))
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A speech's usage: the input's word-like tokens in, the audio's out (one per 20 ms frame, as the voice speaks).
fn speech_usage(text: &str) -> Value {
    let input = crate::tokenize::count_tokens(text) as u64;
    let output = text.len() as u64;
    json!({"input_tokens": input, "output_tokens": output, "total_tokens": input + output})
}

/// `stream_format: sse`: one `speech.audio.delta` per token (PCM16 of that token for `pcm`; other formats send the
/// whole file in the last delta, as a container cannot be cut per token), then `speech.audio.done`.
fn speech_events(stream: &EventStream, format: AudioFormat) -> Encoding {
    let stream_break = stream.stream_break();
    let mut pending_delay = 0u64;
    let each = move |timed: &TimedEvent| -> Option<Frame> {
        pending_delay += timed.delay_ms;
        let data = match &timed.event {
            StreamEvent::TextDelta { text } if format == AudioFormat::Pcm => {
                let audio = base64_of(&audio::pcm16(text, audio::SPEECH_RATE));
                sse_json(None, &json!({"type": "speech.audio.delta", "audio": audio}))
            }
            StreamEvent::Complete { response } => {
                let mut out = String::new();
                if format != AudioFormat::Pcm {
                    let audio = base64_of(&audio::encode(response.text(), format));
                    out.push_str(&sse_json(None, &json!({"type": "speech.audio.delta", "audio": audio})));
                }
                let done = json!({"type": "speech.audio.done", "usage": speech_usage(response.text())});
                out.push_str(&sse_json(None, &done));
                out
            }
            StreamEvent::Error { error } if stream_break == StreamBreak::ErrorEvent => {
                sse_json(None, &json!({"error": error_object(Dialect::OpenAi, error)}))
            }
            _ => return None,
        };
        Some(Frame { delay_ms: std::mem::take(&mut pending_delay), data })
    };
    Encoding { opening: Vec::new(), each: Box::new(each) }
}

/// The most characters a speech request's input has (OpenAI's limit).
const MAX_SPEECH_INPUT: usize = 4096;

/// The transcript formats.
const TRANSCRIPT_FORMATS: [&str; 5] = ["json", "text", "srt", "vtt", "verbose_json"];

impl ChatProtocol for OpenAiTranscription {
    const DIALECT: Dialect = Dialect::OpenAi;
    const FRAMING: StreamFraming = StreamFraming::sse(Some(delivery::COMMENT_KEEPALIVE), true);
    const FORM: bool = true;

    fn decode(_: &Value) -> Result<DecodedRequest, String> {
        Err("a transcription is a multipart/form-data upload".to_string())
    }

    fn decode_form(parts: &[Part<'_>]) -> Result<DecodedRequest, String> {
        decode_transcription(false, parts)
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        _: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        transcript_reply(false, response.text(), usage, request, request_id)
    }

    fn encode_stream(stream: &EventStream, _: &DecodedRequest, request_id: &str) -> HttpReply {
        stream_reply(stream, "x-request-id", request_id, super::frames::encoded(stream, transcript_events))
    }
}

impl ChatProtocol for OpenAiTranslation {
    const DIALECT: Dialect = Dialect::OpenAi;
    const FRAMING: StreamFraming = OpenAiTranscription::FRAMING;
    const FORM: bool = true;

    fn decode(_: &Value) -> Result<DecodedRequest, String> {
        Err("a translation is a multipart/form-data upload".to_string())
    }

    fn decode_form(parts: &[Part<'_>]) -> Result<DecodedRequest, String> {
        decode_transcription(true, parts)
    }

    fn encode_response(
        response: &ChatResponse,
        usage: Usage,
        _: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply {
        transcript_reply(true, response.text(), usage, request, request_id)
    }

    /// Translations never stream (the decoder refuses it); the stream's response is sent whole.
    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply {
        let response = stream.response();
        let text = response.map(ChatResponse::text).unwrap_or_default();
        let usage = response.and_then(|r| r.usage).unwrap_or_default();
        transcript_reply(true, text, usage, request, request_id)
    }
}

/// A transcription's (or, `translate`, a translation's) form.
fn decode_transcription(translate: bool, parts: &[Part<'_>]) -> Result<DecodedRequest, String> {
    let text = |name: &str| multipart::field(parts, name).map(Part::text).transpose();
    let file = multipart::field(parts, "file").ok_or("the form has no file (the audio to transcribe)")?;
    let model = text("model")?.ok_or("the form has no model")?.to_string();
    let format = text("response_format")?.unwrap_or("json").to_string();
    if !TRANSCRIPT_FORMATS.contains(&format.as_str()) {
        return Err(format!("response_format {format:?} is not json, text, srt, vtt or verbose_json"));
    }
    let stream = match text("stream")? {
        None | Some("false") => false,
        Some("true") if !translate => true,
        Some(other) => return Err(format!("stream {other:?} is not true or false (translations do not stream)")),
    };
    let granularities = parts.iter().filter(|p| p.name.starts_with("timestamp_granularities"));
    let words = granularities.map(Part::text).collect::<Result<Vec<_>, _>>()?.contains(&"word");
    let spoken = audio::transcribe(file.body);
    let mut messages = Vec::new();
    if let Some(prompt) = text("prompt")? {
        messages.push(Message::system(prompt));
    }
    // The audio as a file part; when cuecard made it, what it says as the text routes can match on.
    let mut content = Vec::new();
    if let Some(spoken) = &spoken {
        content.push(json::text_part(spoken));
    }
    content.push(ContentPart::File(Box::new(FilePart {
        filename: file.filename.clone(),
        media_type: file.content_type.clone(),
        ..FilePart::default()
    })));
    messages.push(Message { content, ..Message::user("") });
    let request = ChatRequest {
        model,
        messages,
        temperature: text("temperature")?.and_then(|t| t.parse().ok()),
        stream,
        ..ChatRequest::default()
    };
    let media = MediaOptions { format, words, spoken, ..MediaOptions::default() };
    Ok(DecodedRequest { media: Some(Box::new(media)), ..DecodedRequest::new(request) })
}

/// An unscripted transcription needs audio cuecard made (the words are read back from it).
fn can_transcribe(request: &DecodedRequest) -> Result<(), String> {
    match request.media.as_ref().and_then(|m| m.spoken.as_ref()) {
        Some(_) => Ok(()),
        None => Err("cuecard transcribes only audio its own speech made; script the transcript with a route whose \
                     match names this endpoint (transcriptions or translations) and a step whose text it is"
            .to_string()),
    }
}

fn unscripted_transcript(translate: bool, request: &DecodedRequest, index: u64) -> HttpReply {
    let spoken = request.media.as_ref().and_then(|m| m.spoken.clone()).unwrap_or_default();
    let usage = Usage::new(spoken.len() as u64, crate::tokenize::count_tokens(&spoken) as u64);
    if request.request.stream {
        let mut body = String::new();
        for token in crate::tokenize::tokenize(&spoken) {
            body.push_str(&sse_json(None, &json!({"type": "transcript.text.delta", "delta": token})));
        }
        body.push_str(&sse_json(None, &transcript_done(&spoken, &usage)));
        return HttpReply::Stream {
            stall_ms: 0,
            status: 200,
            headers: super::sse_headers(vec![("x-request-id".into(), super::request_id(index).into())]),
            frames: vec![Frame { delay_ms: 0, data: body }].into(),
            end: crate::http::StreamEnd::Close,
            base64: false,
            separate_writes: false,
            entry: None,
        };
    }
    transcript_reply(translate, &spoken, usage, request, &super::request_id(index))
}

/// The transcript in the requested format.
fn transcript_reply(
    translate: bool,
    transcript: &str,
    usage: Usage,
    request: &DecodedRequest,
    request_id: &str,
) -> HttpReply {
    let format = request.media.as_ref().map_or("json", |m| m.format.as_str());
    let words = request.media.as_ref().is_some_and(|m| m.words);
    let duration = audio::duration_seconds(transcript);
    let headers = |content_type: &'static str| -> Vec<ReplyHeader> {
        vec![("content-type".into(), content_type.into()), ("x-request-id".into(), request_id.to_owned().into())]
    };
    let request_id_header = || -> Vec<ReplyHeader> { vec![("x-request-id".into(), request_id.to_owned().into())] };
    let usage_json = transcript_usage(&request.request.model, duration, &usage);
    let text_reply = |content_type: &'static str, body: String| HttpReply::Full {
        delay_ms: 0,
        status: 200,
        headers: headers(content_type),
        body,
    };
    match format {
        "text" => text_reply("text/plain; charset=utf-8", format!("{transcript}\n")),
        "srt" => text_reply("text/plain; charset=utf-8", subtitles(transcript, false)),
        "vtt" => text_reply("text/vtt; charset=utf-8", subtitles(transcript, true)),
        "verbose_json" => {
            let segments: Vec<Value> = sentences(transcript)
                .iter()
                .enumerate()
                .map(|(id, (start, end, text))| {
                    json!({"id": id, "seek": 0, "start": start, "end": end, "text": text, "tokens": [],
                        "temperature": 0.0, "avg_logprob": 0.0, "compression_ratio": 1.0, "no_speech_prob": 0.0})
                })
                .collect();
            let mut body = json!({"task": if translate { "translate" } else { "transcribe" }, "language": "english",
                "duration": duration, "text": transcript, "segments": segments, "usage": usage_json});
            if words {
                body["words"] = word_times(transcript);
            }
            json_reply(200, request_id_header(), &body)
        }
        _ => json_reply(200, request_id_header(), &json!({"text": transcript, "usage": usage_json})),
    }
}

/// Usage as each model family reports it: Whisper by duration, the GPT transcribers in tokens.
fn transcript_usage(model: &str, duration: f64, usage: &Usage) -> Value {
    if model.starts_with("whisper") {
        return json!({"type": "duration", "seconds": duration.ceil() as u64});
    }
    json!({"type": "tokens", "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
        "input_token_details": {"text_tokens": 0, "audio_tokens": usage.input_tokens}})
}

fn transcript_done(transcript: &str, usage: &Usage) -> Value {
    json!({"type": "transcript.text.done", "text": transcript, "usage": transcript_usage("", 0.0, usage)})
}

/// The sentences of a transcript with their start and end in seconds (20 ms per byte).
fn sentences(transcript: &str) -> Vec<(f64, f64, String)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = transcript.as_bytes();
    for (i, byte) in bytes.iter().enumerate() {
        let ends = matches!(byte, b'.' | b'!' | b'?') && bytes.get(i + 1).is_none_or(|b| *b == b' ');
        if ends || i + 1 == bytes.len() {
            let text = transcript.get(start..=i).unwrap_or_default();
            if !text.trim().is_empty() {
                out.push((seconds_at(start), seconds_at(i + 1), text.trim().to_string()));
            }
            start = i + 1;
        }
    }
    out
}

fn seconds_at(byte: usize) -> f64 {
    // Rounded to milliseconds, so `0.06` is not written `0.06000000000000001`.
    (byte as f64 * 20.0).round() / 1000.0
}

/// Each word (the transcript's non-space tokens) with its start and end.
fn word_times(transcript: &str) -> Value {
    let mut at = 0;
    let mut words = Vec::new();
    for token in crate::tokenize::tokenize(transcript) {
        let start = at;
        at += token.len();
        let word = token.trim();
        if !word.is_empty() && word.chars().any(char::is_alphanumeric) {
            let lead = token.len() - token.trim_start().len();
            words.push(json!({"word": word, "start": seconds_at(start + lead), "end": seconds_at(at)}));
        }
    }
    Value::Array(words)
}

/// SRT (`vtt` false) or WebVTT subtitles: one cue per sentence.
fn subtitles(transcript: &str, vtt: bool) -> String {
    let stamp = |seconds: f64| {
        let ms = (seconds * 1000.0).round() as u64;
        let (h, m, s, ms) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
        if vtt {
            format!("{h:02}:{m:02}:{s:02}.{ms:03}")
        } else {
            format!("{h:02}:{m:02}:{s:02},{ms:03}")
        }
    };
    let mut out = if vtt { String::from("WEBVTT\n\n") } else { String::new() };
    for (i, (start, end, text)) in sentences(transcript).iter().enumerate() {
        if !vtt {
            out.push_str(&format!("{}\n", i + 1));
        }
        out.push_str(&format!("{} --> {}\n{text}\n\n", stamp(*start), stamp(*end)));
    }
    out
}

/// A streamed transcription: one `transcript.text.delta` per token, then `transcript.text.done`.
fn transcript_events(stream: &EventStream) -> Encoding {
    let stream_break = stream.stream_break();
    let mut pending_delay = 0u64;
    let each = move |timed: &TimedEvent| -> Option<Frame> {
        pending_delay += timed.delay_ms;
        let data = match &timed.event {
            StreamEvent::TextDelta { text } => sse_json(None, &json!({"type": "transcript.text.delta", "delta": text})),
            StreamEvent::Complete { response } => {
                sse_json(None, &transcript_done(response.text(), &response.usage.unwrap_or_default()))
            }
            StreamEvent::Error { error } if stream_break == StreamBreak::ErrorEvent => {
                sse_json(None, &json!({"error": error_object(Dialect::OpenAi, error)}))
            }
            _ => return None,
        };
        Some(Frame { delay_ms: std::mem::take(&mut pending_delay), data })
    };
    Encoding { opening: Vec::new(), each: Box::new(each) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtitles_and_word_times_follow_the_voice() {
        assert_eq!(
            subtitles("Hi there. Bye!", false),
            "1\n00:00:00,000 --> 00:00:00,180\nHi there.\n\n2\n00:00:00,180 --> 00:00:00,280\nBye!\n\n"
        );
        assert!(subtitles("Hi.", true).starts_with("WEBVTT\n\n00:00:00.000 --> 00:00:00.060\nHi.\n"));
        assert_eq!(
            word_times("Hi there."),
            json!([{"word": "Hi", "start": 0.0, "end": 0.04}, {"word": "there", "start": 0.06, "end": 0.16}])
        );
    }
}
