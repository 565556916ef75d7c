//! Gemini Live (`BidiGenerateContent`, `../shared/spec/realtime.md` §4): `setup` answered with `setupComplete`,
//! turns from client content, realtime text and audio (a deterministic VAD, or `audioStreamEnd`/`activityEnd`) and
//! tool responses, each taking the next step; answers as `serverContent` model turns ending in
//! `generationComplete` and `turnComplete` with `usageMetadata`, tool calls as `toolCall` (no `turnComplete` until
//! the response); failures as closes with Gemini's codes. Client keys are read in camelCase or snake_case (the
//! Python SDK mixes them), server keys are camelCase.

use super::audio::{self, Activity, Format, Vad, VadSettings};
use super::{Ask, Outbox, TurnContext};
use crate::mock::StreamResult;
use crate::provider_error::ProviderErrorKind;
use crate::stream::StreamEvent;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The client messages, by their top-level key.
const CLIENT_MESSAGES: [(&str, &str); 5] = [
    ("setup", "setup"),
    ("clientContent", "client_content"),
    ("realtimeInput", "realtime_input"),
    ("toolResponse", "tool_response"),
    ("contextUpdate", "context_update"),
];

/// The server messages' top-level keys (one of them names a message in the journal).
const SERVER_MESSAGES: [&str; 7] = [
    "setupComplete",
    "serverContent",
    "toolCall",
    "toolCallCancellation",
    "goAway",
    "sessionResumptionUpdate",
    "usageMetadata",
];

/// A message's kind: its top-level key, camelCase.
pub(super) fn message_kind(message: &Value) -> String {
    let Some(object) = message.as_object() else { return String::new() };
    for (camel, snake) in CLIENT_MESSAGES {
        if object.contains_key(camel) || object.contains_key(snake) {
            return camel.to_string();
        }
    }
    SERVER_MESSAGES
        .iter()
        .find(|key| object.contains_key(**key))
        .map_or_else(|| object.keys().next().cloned().unwrap_or_default(), |key| key.to_string())
}

/// A field under either spelling.
fn field<'a>(object: &'a Value, camel: &str, snake: &str) -> Option<&'a Value> {
    object.get(camel).or_else(|| object.get(snake)).filter(|v| !v.is_null())
}

/// The close for a message the server cannot take (Google's generic text).
const INVALID: &str = "Request contains an invalid argument.";

/// One Gemini Live session.
pub(super) struct Session {
    vertex: bool,
    setup: Option<Value>,
    /// The conversation as Gemini contents.
    contents: Vec<Value>,
    /// Realtime audio since the last turn, and its rate.
    audio: Vec<u8>,
    rate: u32,
    vad: Vad,
    /// Resumption handles sent.
    handles: u64,
    /// The model's turn is being sent (its last message not yet): new input interrupts it.
    answering: bool,
}

impl Session {
    pub(super) fn new(vertex: bool) -> Session {
        Session {
            vertex,
            setup: None,
            contents: Vec::new(),
            audio: Vec::new(),
            rate: 16_000,
            vad: Vad::default(),
            handles: 0,
            answering: false,
        }
    }

    fn setup_flag(&self, camel: &str, snake: &str) -> bool {
        self.setup.as_ref().and_then(|s| field(s, camel, snake)).is_some()
    }

    fn speaks(&self) -> bool {
        let modalities = self
            .setup
            .as_ref()
            .and_then(|s| field(s, "generationConfig", "generation_config"))
            .and_then(|c| field(c, "responseModalities", "response_modalities"))
            .and_then(Value::as_array);
        match modalities {
            Some(list) => list.iter().any(|m| m.as_str().is_some_and(|m| m.eq_ignore_ascii_case("audio"))),
            // Vertex answers in audio when the setup says nothing (both SDKs set it then).
            None => self.vertex,
        }
    }

    /// Answers one client message; a turn asks for a step. `undelivered`: messages of the last answer the client
    /// had not been sent when this one arrived.
    pub(super) fn receive(
        &mut self,
        kind: &str,
        message: &Value,
        undelivered: Option<usize>,
        out: &mut Outbox,
    ) -> Option<Ask> {
        let unsent = undelivered.unwrap_or(0);
        if self.answering && unsent > 0 && matches!(kind, "clientContent" | "realtimeInput") {
            // Input while the model speaks interrupts it: the rest of its turn is dropped, then `interrupted` and
            // `turnComplete` (no `generationComplete` in an interrupted turn).
            out.interrupt(unsent);
            out.send(json!({"serverContent": {"interrupted": true}}), 0);
            out.send(json!({"serverContent": {"turnComplete": true}}), 0);
        }
        self.answering = false;
        let body = CLIENT_MESSAGES
            .iter()
            .find(|(camel, _)| *camel == kind)
            .and_then(|(camel, snake)| field(message, camel, snake))
            .cloned()
            .unwrap_or(Value::Null);
        match (kind, self.setup.is_some()) {
            ("setup", false) => {
                self.setup = Some(body.clone());
                out.send(json!({"setupComplete": {}}), 0);
                if field(&body, "sessionResumption", "session_resumption").is_some() {
                    self.handles += 1;
                    let handle = format!("{}_resume_{}", out.socket, self.handles);
                    out.send(json!({"sessionResumptionUpdate": {"newHandle": handle, "resumable": true}}), 0);
                }
                None
            }
            ("setup", true) => {
                out.close(1007, INVALID);
                None
            }
            (_, false) => {
                out.close(1007, INVALID);
                None
            }
            ("clientContent", true) => {
                let turns = field(&body, "turns", "turns").and_then(Value::as_array).cloned().unwrap_or_default();
                self.contents.extend(turns);
                let complete = field(&body, "turnComplete", "turn_complete").and_then(Value::as_bool) == Some(true);
                complete.then(|| self.ask(None, out))
            }
            ("realtimeInput", true) => self.realtime_input(&body, out),
            ("toolResponse", true) => {
                let responses = field(&body, "functionResponses", "function_responses")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let parts: Vec<Value> = responses.into_iter().map(|r| json!({"functionResponse": r})).collect();
                self.contents.push(json!({"role": "user", "parts": parts}));
                Some(self.ask(None, out))
            }
            ("contextUpdate", true) => {
                if let (Some(setup), Some(Value::Object(update))) = (self.setup.as_mut(), Some(body)) {
                    for (key, value) in update {
                        setup[key] = value;
                    }
                }
                None
            }
            _ => {
                out.close(1007, INVALID);
                None
            }
        }
    }

    fn realtime_input(&mut self, body: &Value, out: &mut Outbox) -> Option<Ask> {
        if let Some(text) = field(body, "text", "text").and_then(Value::as_str) {
            self.contents.push(json!({"role": "user", "parts": [{"text": text}]}));
            return Some(self.ask(None, out));
        }
        if field(body, "mediaChunks", "media_chunks").is_some() {
            out.close(1007, "realtime_input.media_chunks is deprecated");
            return None;
        }
        if field(body, "activityStart", "activity_start").is_some() {
            self.audio.clear();
            self.vad = Vad::default();
            return None;
        }
        let ends = field(body, "audioStreamEnd", "audio_stream_end").and_then(Value::as_bool) == Some(true)
            || field(body, "activityEnd", "activity_end").is_some();
        if let Some(blob) = field(body, "audio", "audio") {
            let Some(bytes) = field(blob, "data", "data").and_then(Value::as_str).and_then(audio::from_base64) else {
                out.close(1007, INVALID);
                return None;
            };
            let mime = field(blob, "mimeType", "mime_type").and_then(Value::as_str).unwrap_or("audio/pcm;rate=16000");
            // A rate the VAD can count in (`rate=0` would divide by zero): 8 to 48 kHz, else Gemini's native 16 kHz.
            self.rate = mime
                .split("rate=")
                .nth(1)
                .and_then(|r| r.parse().ok())
                .filter(|rate| (8_000..=48_000).contains(rate))
                .unwrap_or(16_000);
            self.audio.extend_from_slice(&bytes);
            if !self.automatic_detection() {
                return None;
            }
            let settings = self.vad_settings();
            let seen = self.vad.feed(&self.audio, Format::Pcm16(self.rate), settings);
            if let Some(Activity::Stopped { end_byte, .. }) =
                seen.into_iter().find(|a| matches!(a, Activity::Stopped { .. }))
            {
                let turn: Vec<u8> = self.audio.drain(..end_byte.min(self.audio.len())).collect();
                return self.audio_turn(&turn, out);
            }
            return None;
        }
        if ends && !self.audio.is_empty() {
            let turn = std::mem::take(&mut self.audio);
            return self.audio_turn(&turn, out);
        }
        None
    }

    fn automatic_detection(&self) -> bool {
        let disabled = self
            .setup
            .as_ref()
            .and_then(|s| field(s, "realtimeInputConfig", "realtime_input_config"))
            .and_then(|c| field(c, "automaticActivityDetection", "automatic_activity_detection"))
            .and_then(|d| field(d, "disabled", "disabled"))
            .and_then(Value::as_bool);
        disabled != Some(true)
    }

    fn vad_settings(&self) -> VadSettings {
        let detection = self
            .setup
            .as_ref()
            .and_then(|s| field(s, "realtimeInputConfig", "realtime_input_config"))
            .and_then(|c| field(c, "automaticActivityDetection", "automatic_activity_detection"));
        let number = |camel: &str, snake: &str, default: u64| {
            detection.and_then(|d| field(d, camel, snake)).and_then(Value::as_u64).unwrap_or(default)
        };
        VadSettings {
            threshold: 0.5,
            prefix_padding_ms: number("prefixPaddingMs", "prefix_padding_ms", 20),
            silence_duration_ms: number("silenceDurationMs", "silence_duration_ms", 500),
        }
    }

    /// A spoken turn: its words (when cuecard's voice spoke them) become the user's turn.
    fn audio_turn(&mut self, turn: &[u8], out: &mut Outbox) -> Option<Ask> {
        let format = Format::Pcm16(self.rate);
        let settings = self.vad_settings();
        let transcript = format.text_of(self.vad.speech(turn, format, settings)).or_else(|| format.text_of(turn));
        self.vad = Vad::default();
        let text = transcript.clone().unwrap_or_default();
        self.contents.push(json!({"role": "user", "parts": [{"text": text}]}));
        Some(self.ask(transcript, out))
    }

    /// The model turn: the session's contents as a `generateContent` body, read by the Gemini protocol.
    fn ask(&mut self, heard: Option<String>, out: &mut Outbox) -> Ask {
        let setup = self.setup.clone().unwrap_or(Value::Null);
        let mut body = json!({"contents": self.contents});
        for (camel, snake) in
            [("systemInstruction", "system_instruction"), ("tools", "tools"), ("generationConfig", "generation_config")]
        {
            if let Some(value) = field(&setup, camel, snake) {
                body[camel] = value.clone();
            }
        }
        if let Some(config) = body.get_mut("generationConfig").and_then(Value::as_object_mut) {
            // Not a `generateContent` field: the modalities are the socket's, read by `speaks`.
            config.remove("responseModalities");
            config.remove("response_modalities");
        }
        let model = field(&setup, "model", "model").and_then(Value::as_str).unwrap_or_default();
        let model = model.rsplit("/models/").next().unwrap_or(model).trim_start_matches("models/").to_string();
        use super::super::ChatProtocol;
        let mut request = match super::super::gemini::GeminiGenerate::decode(&body) {
            Ok(decoded) => Arc::unwrap_or_clone(decoded.request),
            Err(_) => crate::model::ChatRequest::default(),
        };
        request.model = model;
        request.stream = true;
        request.metadata.endpoint = Some("gemini_live".to_string());
        request.metadata.extra.insert("session".to_string(), out.socket.as_str().into());
        let raw = crate::journal::RawRequest {
            path: "/ws/BidiGenerateContent".into(),
            body: body.to_string().into(),
            contract_violation: None,
        };
        let options = json!({"heard": heard});
        Ask { request: Arc::new(request), raw, context: TurnContext { event_id: None, audio: self.speaks(), options } }
    }

    /// The step's answer as server messages.
    pub(super) fn answer(&mut self, result: StreamResult, context: TurnContext, out: &mut Outbox) {
        let stream = match result {
            Ok(stream) => stream,
            Err((index, error)) => {
                out.for_request(index, 0);
                let message = match &error {
                    crate::script::CallError::Provider(e) => e.message.clone(),
                    crate::script::CallError::Cuecard(e) => e.message().to_string(),
                    crate::script::CallError::Host(h) => h.message().to_string(),
                };
                out.close(1011, &close_reason(&message));
                return;
            }
        };
        out.for_request(stream.request_index(), stream.events().first().map_or(0, |e| e.at_ms));
        self.answering = true;
        if let Some(heard) = context.options.get("heard").and_then(Value::as_str) {
            if self.setup_flag("inputAudioTranscription", "input_audio_transcription") {
                out.send(json!({"serverContent": {"inputTranscription": {"text": heard, "finished": true}}}), 0);
            }
        }
        let transcribes = self.setup_flag("outputAudioTranscription", "output_audio_transcription");
        let mut first_delay = stream.stall_ms();
        let mut said = String::new();
        let mut calls = Vec::new();
        for timed in stream.events() {
            let delay = std::mem::take(&mut first_delay) + timed.delay_ms;
            match &timed.event {
                StreamEvent::TextDelta { text } => {
                    said.push_str(text);
                    if context.audio {
                        let data = audio::base64(&Format::Pcm16(24_000).speak(text));
                        let part = json!({"inlineData": {"mimeType": "audio/pcm;rate=24000", "data": data}});
                        out.send(json!({"serverContent": {"modelTurn": {"role": "model", "parts": [part]}}}), delay);
                        if transcribes {
                            out.send(json!({"serverContent": {"outputTranscription": {"text": text}}}), 0);
                        }
                    } else {
                        let part = json!({"text": text});
                        out.send(json!({"serverContent": {"modelTurn": {"role": "model", "parts": [part]}}}), delay);
                    }
                }
                StreamEvent::ToolCall { call, .. } => {
                    let args: Value = serde_json::from_str(&call.arguments).unwrap_or_else(|_| json!({}));
                    calls.push(json!({"id": call.id, "name": call.name, "args": args}));
                }
                StreamEvent::ThinkingDelta { .. } | StreamEvent::ToolCallDelta { .. } => {}
                StreamEvent::Complete { response } => {
                    let mut parts: Vec<Value> = Vec::new();
                    if !said.is_empty() {
                        parts.push(json!({"text": said}));
                    }
                    if !calls.is_empty() {
                        parts.extend(calls.iter().map(|c| json!({"functionCall": c})));
                        self.contents.push(json!({"role": "model", "parts": parts}));
                        // The model waits for the tool's response: no turnComplete until then.
                        out.send(json!({"toolCall": {"functionCalls": calls}}), delay);
                        go_away(stream.envelope().go_away_ms, out);
                        return;
                    }
                    self.contents.push(json!({"role": "model", "parts": parts}));
                    let usage = response.usage.unwrap_or_default();
                    out.send(json!({"serverContent": {"generationComplete": true}}), delay);
                    let modality = if context.audio { "AUDIO" } else { "TEXT" };
                    let (output_key, details_key) = if self.vertex {
                        ("candidatesTokenCount", "candidatesTokensDetails")
                    } else {
                        ("responseTokenCount", "responseTokensDetails")
                    };
                    let mut metadata = Map::new();
                    metadata.insert("promptTokenCount".into(), usage.input_tokens.into());
                    metadata.insert(output_key.into(), usage.output_tokens.into());
                    metadata.insert("totalTokenCount".into(), (usage.input_tokens + usage.output_tokens).into());
                    metadata.insert(
                        "promptTokensDetails".into(),
                        json!([{"modality": "TEXT", "tokenCount": usage.input_tokens}]),
                    );
                    metadata
                        .insert(details_key.into(), json!([{"modality": modality, "tokenCount": usage.output_tokens}]));
                    out.send(json!({"serverContent": {"turnComplete": true}, "usageMetadata": metadata}), 0);
                    go_away(stream.envelope().go_away_ms, out);
                }
                StreamEvent::Error { error } => {
                    match stream.stream_break() {
                        crate::script::StreamBreak::ConnectionCut => out.cut(),
                        crate::script::StreamBreak::CleanEnd => out.close(1000, ""),
                        crate::script::StreamBreak::ErrorEvent => {
                            let code = match error.kind {
                                ProviderErrorKind::BadRequest
                                | ProviderErrorKind::ContextLengthExceeded
                                | ProviderErrorKind::ContentFiltered
                                | ProviderErrorKind::Unauthorized => 1007,
                                ProviderErrorKind::NotFound | ProviderErrorKind::Forbidden => 1008,
                                _ => 1011,
                            };
                            out.close(code, &close_reason(&error.message));
                        }
                    }
                    return;
                }
            }
        }
    }
}

/// A step that ends the session: `goAway` with the time left (a protobuf duration, `10s`, `1.500s`), then the close.
fn go_away(ms: Option<u64>, out: &mut Outbox) {
    let Some(ms) = ms else { return };
    let time_left = match ms % 1000 {
        0 => format!("{}s", ms / 1000),
        rest => format!("{}.{rest:03}s", ms / 1000),
    };
    out.send(json!({"goAway": {"timeLeft": time_left}}), 0);
    out.close(1000, "");
}

/// A close reason: at most 123 bytes of UTF-8 (what a close frame holds), cut at a character boundary.
fn close_reason(message: &str) -> String {
    let mut end = message.len().min(123);
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    message.get(..end).unwrap_or_default().to_string()
}
