//! OpenAI Realtime (GA) over a socket (`../shared/spec/realtime.md` §2): the session, its conversation, the input
//! audio buffer with a deterministic server VAD, and responses made from the script's steps.
//!
//! Fixed rules answer what takes no step (session and item events, the audio buffer); each `response.create`, or a
//! VAD turn when the session creates responses, takes the next step. The events and their order are §2.6's; every
//! server event carries `event_id`, every item `object: "realtime.item"`, every response `object:
//! "realtime.response"` and integer usage (what the Agents SDKs validate, §5.1).

use super::audio::{self, Activity, Format, Vad, VadSettings};
use super::{Ask, Outbox, TurnContext};
use crate::http::HttpRequest;
use crate::mock::StreamResult;
use crate::stream::StreamEvent;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The client events this session serves, listed by the error for any other.
const CLIENT_EVENTS: [&str; 10] = [
    "session.update",
    "input_audio_buffer.append",
    "input_audio_buffer.commit",
    "input_audio_buffer.clear",
    "conversation.item.create",
    "conversation.item.retrieve",
    "conversation.item.truncate",
    "conversation.item.delete",
    "response.create",
    "response.cancel",
];

/// The beta protocol's session fields, refused by name on a GA session (§2.8, `unknown_parameter`).
const BETA_FIELDS: [&str; 6] =
    ["modalities", "voice", "input_audio_format", "output_audio_format", "turn_detection", "input_audio_transcription"];

/// Input audio shorter than this cannot be committed (`input_audio_buffer_commit_empty`).
const MIN_COMMIT_MS: u64 = 100;

/// One OpenAI Realtime session.
pub(super) struct Session {
    session: Value,
    conversation: String,
    /// The conversation's items, in order, complete.
    items: Vec<Value>,
    next_event: u64,
    next_item: u64,
    next_response: u64,
    /// The input audio buffer since the last commit or clear.
    buffer: Vec<u8>,
    /// Milliseconds of audio appended before the buffer (VAD times count from the session's first byte).
    buffer_offset_ms: u64,
    vad: Vad,
    /// The user item the VAD's current speech will become.
    speech_item: Option<String>,
    /// The response whose events are still being sent, if the transport may not have sent them all.
    active: Option<Active>,
}

/// A response still in flight: where its events sit in the last answer, and what a cancel must close.
struct Active {
    id: String,
    /// Index, in the last answer's messages, of each text or transcript delta: (message index, delta).
    deltas: Vec<(usize, String)>,
    /// Index of its `response.done` in the last answer.
    done_at: usize,
    item: Option<Value>,
    response: Value,
}

impl Session {
    /// A session as the connection's query makes it (`model`, `intent=transcription`).
    pub(super) fn new(request: &HttpRequest) -> Session {
        let query = |name: &str| {
            request
                .query
                .split('&')
                .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
                .map(super::super::routes::percent_decode)
        };
        let transcription = query("intent").as_deref() == Some("transcription");
        let model = query("model").unwrap_or_else(|| "gpt-realtime".to_string());
        let session = default_session(&model, transcription);
        Session {
            session,
            conversation: String::new(),
            items: Vec::new(),
            next_event: 0,
            next_item: 0,
            next_response: 0,
            buffer: Vec::new(),
            buffer_offset_ms: 0,
            vad: Vad::default(),
            speech_item: None,
            active: None,
        }
    }

    fn event_id(&mut self) -> String {
        self.next_event += 1;
        crate::stream::numbered_id("event_", self.next_event)
    }

    fn item_id(&mut self) -> String {
        self.next_item += 1;
        crate::stream::numbered_id("item_", self.next_item)
    }

    /// Sends a server event of `kind` with `fields`, `event_id` first.
    fn emit(&mut self, out: &mut Outbox, kind: &str, fields: Value, delay_ms: u64) {
        let mut event = Map::new();
        event.insert("type".into(), kind.into());
        event.insert("event_id".into(), self.event_id().into());
        if let Value::Object(fields) = fields {
            event.extend(fields);
        }
        out.send(Value::Object(event), delay_ms);
    }

    /// An `error` event (`invalid_request_error` unless said), echoing the client event's id.
    fn error(&mut self, out: &mut Outbox, code: &str, message: &str, param: Option<&str>, client: Option<&str>) {
        self.error_of_type(out, "invalid_request_error", code, message, param, client);
    }

    fn error_of_type(
        &mut self,
        out: &mut Outbox,
        kind: &str,
        code: &str,
        message: &str,
        param: Option<&str>,
        client: Option<&str>,
    ) {
        let error = json!({"type": kind, "code": code, "message": message, "param": param, "event_id": client});
        self.emit(out, "error", json!({"error": error}), 0);
    }

    /// The first events of a connection: `session.created`, and `conversation.created`.
    pub(super) fn opened(&mut self, out: &mut Outbox) {
        let number = out.socket.trim_start_matches("ws_").to_string();
        self.session["id"] = format!("sess_{number}").into();
        self.conversation = format!("conv_{number}");
        let session = self.session.clone();
        self.emit(out, "session.created", json!({"session": session}), 0);
        let conversation = json!({"id": self.conversation, "object": "realtime.conversation"});
        self.emit(out, "conversation.created", json!({"conversation": conversation}), 0);
    }

    /// A message that is not a JSON object.
    pub(super) fn unreadable(&mut self, out: &mut Outbox) {
        self.error(out, "invalid_json", "The message is not a JSON object.", None, None);
    }

    /// Answers one client event; asks for a step when it makes a response.
    pub(super) fn receive(
        &mut self,
        kind: &str,
        event: &Value,
        undelivered: Option<usize>,
        out: &mut Outbox,
    ) -> Option<Ask> {
        // A response whose events were all sent before this message is over.
        let in_flight = self.active.as_ref().is_some_and(|a| undelivered.is_some_and(|u| u > 0) && a.done_at > 0);
        if !in_flight {
            self.active = None;
        }
        let client = event.get("event_id").and_then(Value::as_str).map(str::to_string);
        let client = client.as_deref();
        match kind {
            "session.update" => self.session_update(event, client, out),
            "input_audio_buffer.append" => return self.append(event, client, undelivered.unwrap_or(0), out),
            "input_audio_buffer.commit" => self.commit(client, out),
            "input_audio_buffer.clear" => {
                self.clear_buffer();
                self.emit(out, "input_audio_buffer.cleared", json!({}), 0);
            }
            "conversation.item.create" => self.item_create(event, client, out),
            "conversation.item.retrieve" => self.item_lookup(event, client, out, "retrieve"),
            "conversation.item.delete" => self.item_lookup(event, client, out, "delete"),
            "conversation.item.truncate" => self.item_truncate(event, client, out),
            "response.create" => {
                if let Some(active) = &self.active {
                    let message = format!(
                        "Conversation already has an active response in progress: {}. Wait until the response is \
                         finished before creating a new one.",
                        active.id
                    );
                    self.error(out, "conversation_already_has_active_response", &message, None, client);
                    return None;
                }
                let options = event.get("response").cloned().unwrap_or(Value::Null);
                return Some(self.ask(options, client, out));
            }
            "response.cancel" => self.cancel(undelivered.unwrap_or(0), client, out),
            other => {
                let supported = CLIENT_EVENTS.map(|e| format!("'{e}'")).join(", ");
                let message = format!("Invalid value: '{other}'. Supported values are: {supported}.");
                self.error(out, "invalid_value", &message, Some("type"), client);
            }
        }
        None
    }

    fn session_update(&mut self, event: &Value, client: Option<&str>, out: &mut Outbox) {
        let Some(update) = event.get("session").filter(|s| s.is_object()) else {
            let message = "Missing required parameter: 'session'.";
            return self.error(out, "missing_required_parameter", message, Some("session"), client);
        };
        match update.get("type").and_then(Value::as_str) {
            None => {
                let message = "Missing required parameter: 'session.type'.";
                return self.error(out, "missing_required_parameter", message, Some("session.type"), client);
            }
            Some("realtime" | "transcription") => {}
            Some(_) => {
                let message = "Invalid value: 'session'. Supported values are: 'realtime' and 'transcription'.";
                return self.error(out, "invalid_value", message, Some("session.type"), client);
            }
        }
        if let Some(field) = BETA_FIELDS.iter().find(|f| update.get(**f).is_some()) {
            let message = format!("Unknown parameter: 'session.{field}'.");
            return self.error(out, "unknown_parameter", &message, Some(&format!("session.{field}")), client);
        }
        merge(&mut self.session, update);
        let session = self.session.clone();
        self.emit(out, "session.updated", json!({"session": session}), 0);
    }

    fn input_format(&self) -> Format {
        Format::of_openai(self.session.pointer("/audio/input/format"))
    }

    fn output_format(&self) -> Format {
        Format::of_openai(self.session.pointer("/audio/output/format"))
    }

    /// The server VAD's settings, when turn detection is on.
    fn vad_settings(&self) -> Option<VadSettings> {
        let detection = self.session.pointer("/audio/input/turn_detection").filter(|d| d.is_object())?;
        let number = |name: &str, default: f64| detection.get(name).and_then(Value::as_f64).unwrap_or(default);
        Some(VadSettings {
            threshold: number("threshold", 0.5),
            prefix_padding_ms: number("prefix_padding_ms", 300.0) as u64,
            silence_duration_ms: number("silence_duration_ms", 200.0) as u64,
        })
    }

    /// Appends audio; the VAD may start speech (interrupting a response still being sent, whose last `unsent`
    /// messages the client has not had) or end a turn.
    fn append(&mut self, event: &Value, client: Option<&str>, unsent: usize, out: &mut Outbox) -> Option<Ask> {
        let Some(bytes) = event.get("audio").and_then(Value::as_str).and_then(audio::from_base64) else {
            let message = "Invalid 'audio': expected a base64-encoded audio string.";
            self.error(out, "invalid_value", message, Some("audio"), client);
            return None;
        };
        self.buffer.extend_from_slice(&bytes);
        let (format, settings) = (self.input_format(), self.vad_settings()?);
        let seen = self.vad.feed(&self.buffer, format, settings);
        let mut ask = None;
        for activity in seen {
            match activity {
                Activity::Started { at_ms } => {
                    // Speech while a response is still being sent interrupts it when the session says so (the
                    // default): its unsent events are dropped first (the journal forgets them), then the
                    // cancellation follows `speech_started`.
                    let interrupts = self.active.is_some() && unsent > 0 && self.detection_flag("interrupt_response");
                    if interrupts {
                        out.interrupt(unsent);
                    }
                    let item = self.item_id();
                    self.speech_item = Some(item.clone());
                    let audio_start_ms = self.buffer_offset_ms + at_ms;
                    self.emit(
                        out,
                        "input_audio_buffer.speech_started",
                        json!({"audio_start_ms": audio_start_ms, "item_id": item}),
                        0,
                    );
                    if interrupts {
                        self.cancel_active_at(out, "turn_detected", unsent);
                    }
                }
                Activity::Stopped { at_ms, end_byte } => {
                    let item = self.speech_item.take().unwrap_or_else(|| self.item_id());
                    let audio_end_ms = self.buffer_offset_ms + at_ms;
                    self.emit(
                        out,
                        "input_audio_buffer.speech_stopped",
                        json!({"audio_end_ms": audio_end_ms, "item_id": item}),
                        0,
                    );
                    let turn: Vec<u8> = self.buffer.drain(..end_byte.min(self.buffer.len())).collect();
                    let transcript = format.text_of(self.vad.speech(&turn, format, settings));
                    self.buffer_offset_ms += format.ms(end_byte);
                    self.vad = Vad::default();
                    self.committed(out, item, transcript);
                    if self.detection_flag("create_response") && ask.is_none() && self.active.is_none() {
                        ask = Some(self.ask(Value::Null, client, out));
                    }
                }
            }
        }
        ask
    }

    /// A flag of `turn_detection` (true unless it says false).
    fn detection_flag(&self, name: &str) -> bool {
        self.session.pointer("/audio/input/turn_detection").and_then(|d| d.get(name)).and_then(Value::as_bool)
            != Some(false)
    }

    fn clear_buffer(&mut self) {
        self.buffer_offset_ms += self.input_format().ms(self.buffer.len());
        self.buffer.clear();
        self.vad = Vad::default();
        self.speech_item = None;
    }

    fn commit(&mut self, client: Option<&str>, out: &mut Outbox) {
        let format = self.input_format();
        let buffered = format.ms(self.buffer.len());
        if buffered < MIN_COMMIT_MS {
            let message = format!(
                "Error committing input audio buffer: buffer too small. Expected at least {MIN_COMMIT_MS}ms of audio, \
                 but buffer only has {buffered}.00ms of audio."
            );
            return self.error(out, "input_audio_buffer_commit_empty", &message, None, client);
        }
        let turn = std::mem::take(&mut self.buffer);
        let transcript = format.text_of(&turn).or_else(|| {
            let settings = VadSettings { threshold: 0.5, prefix_padding_ms: 0, silence_duration_ms: 0 };
            format.text_of(self.vad.speech(&turn, format, settings))
        });
        self.buffer_offset_ms += format.ms(turn.len());
        self.vad = Vad::default();
        let item = self.speech_item.take().unwrap_or_else(|| self.item_id());
        self.committed(out, item, transcript);
    }

    /// A committed buffer: `committed`, the user's audio item, and its transcription when the session asks.
    fn committed(&mut self, out: &mut Outbox, item_id: String, transcript: Option<String>) {
        let previous = self.items.last().and_then(|i| i.get("id")).cloned().unwrap_or(Value::Null);
        self.emit(out, "input_audio_buffer.committed", json!({"item_id": item_id, "previous_item_id": previous}), 0);
        let item = json!({
            "id": item_id, "object": "realtime.item", "type": "message", "role": "user", "status": "completed",
            "content": [{"type": "input_audio", "transcript": null}],
        });
        self.emit(out, "conversation.item.added", json!({"item": item, "previous_item_id": previous}), 0);
        self.emit(out, "conversation.item.done", json!({"item": item, "previous_item_id": previous}), 0);
        let mut kept = item;
        kept["content"][0]["transcript"] = transcript.clone().map_or(Value::Null, Value::from);
        self.items.push(kept);
        let transcribes = self.session.pointer("/audio/input/transcription").is_some_and(Value::is_object);
        if transcribes {
            let text = transcript.unwrap_or_default();
            let tokens = crate::tokenize::count_tokens(&text) as u64;
            let at = json!({"item_id": item_id, "content_index": 0});
            let mut delta = at.clone();
            delta["delta"] = text.clone().into();
            self.emit(out, "conversation.item.input_audio_transcription.delta", delta, 0);
            let mut done = at;
            done["transcript"] = text.into();
            done["usage"] =
                json!({"type": "tokens", "input_tokens": tokens, "output_tokens": tokens, "total_tokens": 2 * tokens});
            self.emit(out, "conversation.item.input_audio_transcription.completed", done, 0);
        }
    }

    fn item_create(&mut self, event: &Value, client: Option<&str>, out: &mut Outbox) {
        let Some(mut item) = event.get("item").filter(|i| i.is_object()).cloned() else {
            let message = "Missing required parameter: 'item'.";
            return self.error(out, "missing_required_parameter", message, Some("item"), client);
        };
        if item.get("id").and_then(Value::as_str).is_none() {
            item["id"] = self.item_id().into();
        }
        item["object"] = "realtime.item".into();
        if item.get("status").is_none() {
            item["status"] = "completed".into();
        }
        let at = match event.get("previous_item_id").and_then(Value::as_str) {
            None => self.items.len(),
            Some("root") => 0,
            Some(id) => match self.position(id) {
                Some(at) => at + 1,
                None => {
                    let message = format!("Item with item_id not found: {id}");
                    return self.error(
                        out,
                        "item_create_invalid_previous_item_id",
                        &message,
                        Some("previous_item_id"),
                        client,
                    );
                }
            },
        };
        let previous = at.checked_sub(1).and_then(|p| self.items.get(p)).and_then(|i| i.get("id")).cloned();
        let previous = previous.unwrap_or(Value::Null);
        self.items.insert(at, item.clone());
        self.emit(out, "conversation.item.added", json!({"item": item, "previous_item_id": previous}), 0);
        self.emit(out, "conversation.item.done", json!({"item": item, "previous_item_id": previous}), 0);
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.items.iter().position(|i| i.get("id").and_then(Value::as_str) == Some(id))
    }

    fn item_lookup(&mut self, event: &Value, client: Option<&str>, out: &mut Outbox, verb: &str) {
        let id = event.get("item_id").and_then(Value::as_str).unwrap_or_default().to_string();
        let Some(at) = self.position(&id) else {
            let message = format!("Item with item_id not found: {id}");
            return self.error(out, &format!("item_{verb}_invalid_item_id"), &message, Some("item_id"), client);
        };
        if verb == "delete" {
            self.items.remove(at);
            self.emit(out, "conversation.item.deleted", json!({"item_id": id}), 0);
        } else {
            let item = self.items.get(at).cloned().unwrap_or(Value::Null);
            self.emit(out, "conversation.item.retrieved", json!({"item": item}), 0);
        }
    }

    fn item_truncate(&mut self, event: &Value, client: Option<&str>, out: &mut Outbox) {
        let id = event.get("item_id").and_then(Value::as_str).unwrap_or_default().to_string();
        if self.position(&id).is_none() {
            let message = format!("Item with item_id not found: {id}");
            return self.error(out, "item_truncate_invalid_item_id", &message, Some("item_id"), client);
        }
        let content_index = event.get("content_index").and_then(Value::as_u64).unwrap_or(0);
        let audio_end_ms = event.get("audio_end_ms").and_then(Value::as_u64).unwrap_or(0);
        let fields = json!({"item_id": id, "content_index": content_index, "audio_end_ms": audio_end_ms});
        self.emit(out, "conversation.item.truncated", fields, 0);
    }

    fn cancel(&mut self, undelivered: usize, client: Option<&str>, out: &mut Outbox) {
        if self.active.is_none() || undelivered == 0 {
            self.active = None;
            let message = "Cancellation failed: no active response found";
            return self.error(out, "response_cancel_not_active", message, None, client);
        }
        out.interrupt(undelivered);
        self.cancel_active_at(out, "client_cancelled", undelivered);
    }

    /// Ends the active response as cancelled, its last `undelivered` messages unsent: the item with what the
    /// client saw of it, `incomplete`, then `response.done` `cancelled`.
    fn cancel_active_at(&mut self, out: &mut Outbox, reason: &str, undelivered: usize) {
        let Some(active) = self.active.take() else { return };
        let sent_before = active.done_at + 1 - undelivered.min(active.done_at + 1);
        let seen: String = active.deltas.iter().filter(|(at, _)| *at < sent_before).map(|(_, d)| d.as_str()).collect();
        let mut response = active.response;
        let mut output = Vec::new();
        if let Some(mut item) = active.item {
            item["status"] = "incomplete".into();
            let audio = item.pointer("/content/0/type").and_then(Value::as_str) == Some("output_audio");
            item["content"] = if audio {
                json!([{"type": "output_audio", "transcript": seen}])
            } else {
                json!([{"type": "output_text", "text": seen}])
            };
            let fields = json!({"response_id": active.id, "output_index": 0, "item": item});
            self.emit(out, "response.output_item.done", fields, 0);
            if let Some(at) = self.position(item.get("id").and_then(Value::as_str).unwrap_or_default()) {
                if let Some(kept) = self.items.get_mut(at) {
                    *kept = item.clone();
                }
            }
            output.push(item);
        }
        response["status"] = "cancelled".into();
        response["status_details"] = json!({"type": "cancelled", "reason": reason});
        response["output"] = Value::Array(output);
        self.emit(out, "response.done", json!({"response": response}), 0);
    }

    /// The model turn a response makes: the conversation (or the response's own input) as a neutral request.
    fn ask(&mut self, options: Value, client: Option<&str>, out: &mut Outbox) -> Ask {
        let instructions = options
            .get("instructions")
            .or_else(|| self.session.get("instructions"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        let tools = options.get("tools").or_else(|| self.session.get("tools")).cloned().unwrap_or_else(|| json!([]));
        let tool_choice = options.get("tool_choice").or_else(|| self.session.get("tool_choice")).cloned();
        let input: Vec<Value> = match (options.get("input"), options.get("conversation").and_then(Value::as_str)) {
            (Some(Value::Array(items)), _) => items.iter().map(|i| self.resolve_reference(i)).collect(),
            (_, Some("none")) => Vec::new(),
            _ => self.items.clone(),
        };
        let mut body = json!({
            "model": self.session.get("model").cloned().unwrap_or(Value::Null),
            "input": input.iter().filter_map(as_responses_item).collect::<Vec<_>>(),
            "tools": tools.as_array().map(|t| t.iter().filter(|t| t.get("type").and_then(Value::as_str) == Some("function")).cloned().collect::<Vec<_>>()).unwrap_or_default(),
        });
        if !instructions.is_empty() {
            body["instructions"] = instructions.into();
        }
        if let Some(choice) = tool_choice {
            body["tool_choice"] = choice;
        }
        if let Some(max) =
            options.get("max_output_tokens").or_else(|| self.session.get("max_output_tokens")).and_then(Value::as_u64)
        {
            body["max_output_tokens"] = max.into();
        }
        let modalities = options
            .get("output_modalities")
            .or_else(|| self.session.get("output_modalities"))
            .and_then(Value::as_array)
            .map(|m| m.iter().filter_map(Value::as_str).map(str::to_string).collect::<Vec<_>>())
            .unwrap_or_default();
        let audio = modalities.iter().any(|m| m == "audio");
        let request = request_of(&body, out.socket.as_str());
        let raw = crate::journal::RawRequest {
            path: "/v1/realtime".into(),
            body: body.to_string().into(),
            contract_violation: None,
        };
        Ask {
            request: Arc::new(request),
            raw,
            context: TurnContext { event_id: client.map(str::to_string), audio, options },
        }
    }

    /// An `item_reference` in a response's input, as the item it names.
    fn resolve_reference(&self, item: &Value) -> Value {
        match (item.get("type").and_then(Value::as_str), item.get("id").and_then(Value::as_str)) {
            (Some("item_reference"), Some(id)) => {
                self.position(id).and_then(|at| self.items.get(at)).cloned().unwrap_or(Value::Null)
            }
            _ => item.clone(),
        }
    }

    /// Encodes the step's answer as a response's events.
    pub(super) fn answer(&mut self, result: StreamResult, context: TurnContext, out: &mut Outbox) {
        self.next_response += 1;
        let id = crate::stream::numbered_id("resp_", self.next_response);
        let modalities = if context.audio { json!(["audio"]) } else { json!(["text"]) };
        let output_audio = self.session.pointer("/audio/output").cloned().unwrap_or_else(|| json!({}));
        let metadata = context.options.get("metadata").cloned().unwrap_or(Value::Null);
        let conversation_id = match context.options.get("conversation").and_then(Value::as_str) {
            Some("none") => Value::Null,
            _ => self.conversation.clone().into(),
        };
        let mut response = json!({
            "object": "realtime.response", "id": id, "status": "in_progress", "status_details": null, "output": [],
            "conversation_id": conversation_id, "output_modalities": modalities, "max_output_tokens": "inf",
            "audio": {"output": output_audio}, "usage": null, "metadata": metadata,
        });
        let stream = match result {
            Ok(stream) => stream,
            Err((index, error)) => {
                out.for_request(index, 0);
                self.emit(out, "response.created", json!({"response": response}), 0);
                let (code, message) = match &error {
                    crate::script::CallError::Provider(e) => {
                        (e.error_code.clone().unwrap_or_default(), e.message.clone())
                    }
                    crate::script::CallError::Cuecard(e) => {
                        (format!("cuecard_{}", e.kind().code()), e.message().to_string())
                    }
                    crate::script::CallError::Host(h) => ("cuecard_host_error".to_string(), h.message().to_string()),
                };
                self.fail(out, &mut response, "invalid_request_error", &code, &message, context.event_id.as_deref());
                return;
            }
        };
        out.for_request(stream.request_index(), stream.events().first().map_or(0, |e| e.at_ms));
        // Events of this response are sent on, so a cancel can find what the client saw.
        let start = out.frames.len();
        let mut active = Active { id: id.clone(), deltas: Vec::new(), done_at: 0, item: None, response: Value::Null };
        self.emit(out, "response.created", json!({"response": response}), stream.stall_ms());
        if let Some(reading) = &stream.envelope().rate_limit {
            // Where the mock's rate limits stand after this response (the `rate_limits` setting), as the service
            // reports them on the socket: seconds, not the HTTP headers' durations.
            let seconds = |ms: u64| ms as f64 / 1000.0;
            let limits = json!([
                {"name": "requests", "limit": reading.requests_limit, "remaining": reading.requests_remaining,
                 "reset_seconds": seconds(reading.requests_reset_ms)},
                {"name": "tokens", "limit": reading.tokens_limit, "remaining": reading.tokens_remaining,
                 "reset_seconds": seconds(reading.tokens_reset_ms)},
            ]);
            self.emit(out, "rate_limits.updated", json!({"rate_limits": limits}), 0);
        }
        let mut output: Vec<Value> = Vec::new();
        let mut message: Option<(Value, String)> = None;
        let previous = |items: &Vec<Value>| items.last().and_then(|i| i.get("id")).cloned().unwrap_or(Value::Null);
        let format = self.output_format();
        for timed in stream.events() {
            let delay = timed.delay_ms;
            match &timed.event {
                StreamEvent::ThinkingDelta { .. } => {}
                StreamEvent::TextDelta { text } => {
                    if message.is_none() {
                        let item_id = self.item_id();
                        let item = json!({"id": item_id, "object": "realtime.item", "type": "message", "role": "assistant", "status": "in_progress", "content": []});
                        let prev = previous(&self.items);
                        self.emit(
                            out,
                            "response.output_item.added",
                            json!({"response_id": id, "output_index": output.len(), "item": item}),
                            0,
                        );
                        self.emit(out, "conversation.item.added", json!({"item": item, "previous_item_id": prev}), 0);
                        let part = if context.audio {
                            json!({"type": "audio", "transcript": ""})
                        } else {
                            json!({"type": "text", "text": ""})
                        };
                        self.emit(out, "response.content_part.added", json!({"response_id": id, "item_id": item_id, "output_index": output.len(), "content_index": 0, "part": part}), 0);
                        self.items.push(item.clone());
                        active.item = Some(item.clone());
                        message = Some((item, String::new()));
                    }
                    let Some((item, full)) = message.as_mut() else { continue };
                    full.push_str(text);
                    let at = json!({"response_id": id, "item_id": item["id"], "output_index": output.len(), "content_index": 0});
                    active.deltas.push((out.frames.len() - start, text.clone()));
                    if context.audio {
                        let mut transcript = at.clone();
                        transcript["delta"] = text.as_str().into();
                        self.emit(out, "response.output_audio_transcript.delta", transcript, delay);
                        let mut sound = at;
                        sound["delta"] = audio::base64(&format.speak(text)).into();
                        self.emit(out, "response.output_audio.delta", sound, 0);
                    } else {
                        let mut delta = at;
                        delta["delta"] = text.as_str().into();
                        self.emit(out, "response.output_text.delta", delta, delay);
                    }
                }
                StreamEvent::ToolCallDelta { .. } => {}
                StreamEvent::ToolCall { call, .. } => {
                    if let Some((item, full)) = message.take() {
                        let finished =
                            self.finish_message(out, &id, item, &full, context.audio, (output.len(), "completed"));
                        output.push(finished);
                    }
                    let item_id = self.item_id();
                    let call_id = call.id.clone();
                    let mut item = json!({"id": item_id, "object": "realtime.item", "type": "function_call", "status": "in_progress", "name": call.name, "call_id": call_id, "arguments": ""});
                    let prev = previous(&self.items);
                    let index = output.len();
                    self.emit(
                        out,
                        "response.output_item.added",
                        json!({"response_id": id, "output_index": index, "item": item}),
                        delay,
                    );
                    self.emit(out, "conversation.item.added", json!({"item": item, "previous_item_id": prev}), 0);
                    let arguments = call.arguments.clone();
                    for piece in crate::tokenize::tokenize(&arguments) {
                        self.emit(out, "response.function_call_arguments.delta", json!({"response_id": id, "item_id": item_id, "output_index": index, "call_id": call_id, "delta": piece}), 0);
                    }
                    self.emit(out, "response.function_call_arguments.done", json!({"response_id": id, "item_id": item_id, "output_index": index, "call_id": call_id, "name": call.name, "arguments": arguments}), 0);
                    item["status"] = "completed".into();
                    item["arguments"] = arguments.into();
                    self.emit(out, "conversation.item.done", json!({"item": item, "previous_item_id": prev}), 0);
                    self.emit(
                        out,
                        "response.output_item.done",
                        json!({"response_id": id, "output_index": index, "item": item}),
                        0,
                    );
                    self.items.push(item.clone());
                    output.push(item);
                }
                StreamEvent::Complete { response: done } => {
                    // A length or content-filter stop leaves the response (and its message) incomplete, as the
                    // service reports a response cut by max_output_tokens or its filter.
                    let stopped = match done.finish_reason {
                        Some(crate::model::FinishReason::Length) => Some("max_output_tokens"),
                        Some(crate::model::FinishReason::ContentFilter) => Some("content_filter"),
                        _ => None,
                    };
                    let status = if stopped.is_some() { "incomplete" } else { "completed" };
                    if let Some((item, full)) = message.take() {
                        let finished =
                            self.finish_message(out, &id, item, &full, context.audio, (output.len(), status));
                        output.push(finished);
                    }
                    let usage = done.usage.unwrap_or_default();
                    let (input, output_tokens) = (usage.input_tokens, usage.output_tokens);
                    let cached = usage.cached_tokens.unwrap_or(0);
                    let (text_out, audio_out) = if context.audio { (0, output_tokens) } else { (output_tokens, 0) };
                    response["status"] = status.into();
                    if let Some(reason) = stopped {
                        response["status_details"] = json!({"type": "incomplete", "reason": reason});
                    }
                    response["output"] = Value::Array(output.clone());
                    response["usage"] = json!({
                        "total_tokens": input + output_tokens, "input_tokens": input, "output_tokens": output_tokens,
                        "input_token_details": {"text_tokens": input, "audio_tokens": 0, "image_tokens": 0, "cached_tokens": cached,
                            "cached_tokens_details": {"text_tokens": cached, "audio_tokens": 0, "image_tokens": 0}},
                        "output_token_details": {"text_tokens": text_out, "audio_tokens": audio_out},
                    });
                    self.emit(out, "response.done", json!({"response": response}), delay);
                    if stream.envelope().go_away_ms.is_some() {
                        // The session's end as the service reports it: an error, then a clean close.
                        let message = "Your session hit the maximum duration of 60 minutes.";
                        self.error(out, "session_expired", message, None, None);
                        out.close(1000, "");
                    }
                }
                StreamEvent::Error { error } => {
                    match stream.stream_break() {
                        crate::script::StreamBreak::ConnectionCut => {
                            out.cut();
                            return;
                        }
                        crate::script::StreamBreak::CleanEnd => {
                            out.close(1000, "");
                            return;
                        }
                        crate::script::StreamBreak::ErrorEvent => {}
                    }
                    if let Some((mut item, full)) = message.take() {
                        item["status"] = "incomplete".into();
                        item["content"] = content(&full, context.audio);
                        output.push(item);
                    }
                    response["output"] = Value::Array(output.clone());
                    let object = super::super::errors::error_object(super::super::Dialect::OpenAi, error);
                    let kind = object.get("type").and_then(Value::as_str).unwrap_or("server_error").to_string();
                    let code = object.get("code").and_then(Value::as_str).unwrap_or_default().to_string();
                    self.fail(out, &mut response, &kind, &code, &error.message, context.event_id.as_deref());
                    return;
                }
            }
        }
        active.done_at = out.frames.len().saturating_sub(start + 1);
        active.response = response;
        self.active = Some(active);
    }

    /// The events that close a text or audio item, its content complete: at its output index, with its final status
    /// (`completed`, or `incomplete` when the response stopped for max_output_tokens or its filter).
    fn finish_message(
        &mut self,
        out: &mut Outbox,
        id: &str,
        mut item: Value,
        full: &str,
        audio: bool,
        (index, status): (usize, &str),
    ) -> Value {
        let at = json!({"response_id": id, "item_id": item["id"], "output_index": index, "content_index": 0});
        if audio {
            self.emit(out, "response.output_audio.done", at.clone(), 0);
            let mut done = at.clone();
            done["transcript"] = full.into();
            self.emit(out, "response.output_audio_transcript.done", done, 0);
        } else {
            let mut done = at.clone();
            done["text"] = full.into();
            self.emit(out, "response.output_text.done", done, 0);
        }
        let mut part = at;
        part["part"] =
            if audio { json!({"type": "audio", "transcript": full}) } else { json!({"type": "text", "text": full}) };
        self.emit(out, "response.content_part.done", part, 0);
        item["status"] = status.into();
        item["content"] = content(full, audio);
        let prev = self
            .position(item["id"].as_str().unwrap_or_default())
            .and_then(|at| at.checked_sub(1))
            .and_then(|p| self.items.get(p))
            .and_then(|i| i.get("id"))
            .cloned()
            .unwrap_or(Value::Null);
        self.emit(out, "response.output_item.done", json!({"response_id": id, "output_index": index, "item": item}), 0);
        self.emit(out, "conversation.item.done", json!({"item": item, "previous_item_id": prev}), 0);
        if let Some(at) = self.position(item["id"].as_str().unwrap_or_default()) {
            if let Some(kept) = self.items.get_mut(at) {
                *kept = item.clone();
            }
        }
        item
    }

    /// A failed response: the `error` (echoing the client event that asked) and `response.done` `failed`.
    fn fail(
        &mut self,
        out: &mut Outbox,
        response: &mut Value,
        kind: &str,
        code: &str,
        message: &str,
        client: Option<&str>,
    ) {
        let code = if code.is_empty() { Value::Null } else { code.into() };
        let error = json!({"type": kind, "code": code, "message": message, "param": null, "event_id": client});
        self.emit(out, "error", json!({"error": error}), 0);
        response["status"] = "failed".into();
        response["status_details"] =
            json!({"type": "failed", "error": {"type": kind, "code": code, "message": message}});
        let done = response.clone();
        self.emit(out, "response.done", json!({"response": done}), 0);
    }
}

/// An assistant item's content, complete.
fn content(full: &str, audio: bool) -> Value {
    if audio {
        json!([{"type": "output_audio", "transcript": full}])
    } else {
        json!([{"type": "output_text", "text": full}])
    }
}

/// The session the real service starts with (§2.5.1).
fn default_session(model: &str, transcription: bool) -> Value {
    let pcm = json!({"type": "audio/pcm", "rate": 24000});
    let detection = json!({"type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300, "silence_duration_ms": 200,
        "idle_timeout_ms": null, "create_response": true, "interrupt_response": true});
    if transcription {
        return json!({"type": "transcription", "object": "realtime.transcription_session", "id": "",
            "audio": {"input": {"format": pcm, "transcription": {"model": "gpt-4o-transcribe"}, "noise_reduction": null, "turn_detection": detection}},
            "include": null});
    }
    json!({
        "type": "realtime", "object": "realtime.session", "id": "", "model": model, "output_modalities": ["audio"],
        "instructions": "", "tools": [], "tool_choice": "auto", "max_output_tokens": "inf", "tracing": null,
        "truncation": "auto", "prompt": null, "expires_at": 0, "include": null,
        "audio": {
            "input": {"format": pcm, "transcription": null, "noise_reduction": null, "turn_detection": detection},
            "output": {"format": pcm, "voice": "alloy", "speed": 1.0},
        },
    })
}

/// `update` merged into `target`, object by object (a `null` clears a field).
fn merge(target: &mut Value, update: &Value) {
    match (target, update) {
        (Value::Object(target), Value::Object(update)) => {
            for (key, value) in update {
                match target.get_mut(key) {
                    Some(existing) if existing.is_object() && value.is_object() => merge(existing, value),
                    _ => {
                        target.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (target, update) => *target = update.clone(),
    }
}

/// A conversation item as a Responses input item (what `OpenAiResponses` reads into the neutral request).
fn as_responses_item(item: &Value) -> Option<Value> {
    let kind = item.get("type").and_then(Value::as_str)?;
    match kind {
        "message" => {
            let role = item.get("role").and_then(Value::as_str).unwrap_or("user");
            let parts: Vec<Value> = item
                .get("content")
                .and_then(Value::as_array)
                .map(|parts| {
                    parts
                        .iter()
                        .filter_map(|part| {
                            let text = part.get("text").or_else(|| part.get("transcript")).and_then(Value::as_str)?;
                            let kind = if role == "assistant" { "output_text" } else { "input_text" };
                            Some(json!({"type": kind, "text": text}))
                        })
                        .collect()
                })
                .unwrap_or_default();
            Some(json!({"type": "message", "role": role, "content": parts}))
        }
        "function_call" => Some(json!({
            "type": "function_call",
            "call_id": item.get("call_id").cloned().unwrap_or_else(|| "".into()),
            "name": item.get("name").cloned().unwrap_or_else(|| "".into()),
            "arguments": item.get("arguments").cloned().unwrap_or_else(|| "".into()),
        })),
        "function_call_output" => Some(json!({
            "type": "function_call_output",
            "call_id": item.get("call_id").cloned().unwrap_or_else(|| "".into()),
            "output": item.get("output").cloned().unwrap_or_else(|| "".into()),
        })),
        _ => None,
    }
}

/// The neutral request of a Responses-shaped body, journaled under the realtime endpoint and its session.
fn request_of(body: &Value, session: &str) -> crate::model::ChatRequest {
    use super::super::ChatProtocol;
    let mut request = match super::super::openai_responses::OpenAiResponses::decode(body) {
        Ok(decoded) => Arc::unwrap_or_clone(decoded.request),
        Err(_) => crate::model::ChatRequest::default(),
    };
    request.model = body.get("model").and_then(Value::as_str).unwrap_or_default().to_string();
    request.stream = true;
    request.metadata.endpoint = Some("realtime".to_string());
    request.metadata.extra.insert("session".to_string(), session.into());
    request
}
