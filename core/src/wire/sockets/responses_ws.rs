//! The Responses API's WebSocket mode (`../shared/spec/realtime.md` §3): `response.create` in, the very events of
//! the Responses SSE stream out, one JSON text message each (no `event:` lines, no `[DONE]`), and errors as `error`
//! messages instead of HTTP statuses. The socket stays open for the next `response.create`.

use super::{Ask, Outbox, TurnContext};
use crate::http::{HttpReply, StreamEnd};
use crate::mock::StreamResult;
use serde_json::{json, Value};
use std::sync::Arc;

/// One socket of the Responses WebSocket mode.
#[derive(Default)]
pub(super) struct Session {
    /// The newest response on this socket: what a continuation (`previous_response_id`) may name when not stored.
    last_response: Option<String>,
    /// Error messages sent, numbered like the stream's events.
    sequence: u64,
}

/// A message that is not a JSON object.
pub(super) fn unreadable(out: &mut Outbox) {
    let error = json!({"type": "invalid_request_error", "code": "invalid_json", "message": "The message is not a JSON object.", "param": null});
    out.send(json!({"type": "error", "status": 400, "error": error}), 0);
}

impl Session {
    fn error(&mut self, out: &mut Outbox, status: u16, code: &str, message: &str, param: Option<&str>) {
        let error = json!({"type": "invalid_request_error", "code": code, "message": message, "param": param});
        out.send(json!({"type": "error", "status": status, "error": error}), 0);
    }

    /// Answers one client message; a `response.create` asks for a step.
    pub(super) fn receive(&mut self, kind: &str, event: &Value, out: &mut Outbox) -> Option<Ask> {
        if kind != "response.create" {
            let message = format!("Invalid value: '{kind}'. Supported values are: 'response.create'.");
            self.error(out, 400, "invalid_value", &message, Some("type"));
            return None;
        }
        let mut body = event.clone();
        if let Some(fields) = body.as_object_mut() {
            fields.remove("type");
            // `stream` is implicit over the socket.
            fields.remove("stream");
        }
        if body.get("background").and_then(Value::as_bool) == Some(true) {
            self.error(
                out,
                400,
                "unsupported_parameter",
                "'background' is not supported in WebSocket mode.",
                Some("background"),
            );
            return None;
        }
        let stored = body.get("store").and_then(Value::as_bool) != Some(false);
        if let Some(previous) = body.get("previous_response_id").and_then(Value::as_str) {
            if !stored && self.last_response.as_deref() != Some(previous) {
                let message = format!("Previous response with id '{previous}' not found.");
                self.error(out, 400, "previous_response_not_found", &message, Some("previous_response_id"));
                return None;
            }
        }
        let decoded = match decode(&body, &out.socket) {
            Ok(decoded) => decoded,
            Err(message) => {
                self.error(out, 400, "invalid_request", &message, None);
                return None;
            }
        };
        let raw = crate::journal::RawRequest {
            path: "/v1/responses".into(),
            body: body.to_string().into(),
            contract_violation: None,
        };
        Some(Ask { request: decoded.request, raw, context: TurnContext { options: body, ..TurnContext::default() } })
    }

    /// The step's answer as the Responses stream's events, one message each.
    pub(super) fn answer(&mut self, result: StreamResult, context: TurnContext, out: &mut Outbox) {
        let index = match &result {
            Ok(stream) => stream.request_index(),
            Err((index, _)) => *index,
        };
        out.for_request(index, 0);
        let Ok(decoded) = decode(&context.options, &out.socket) else { return };
        let codec = <super::super::openai_responses::OpenAiResponses as super::super::ChatProtocol>::CODEC;
        let go_away = result.as_ref().is_ok_and(|stream| stream.envelope().go_away_ms.is_some());
        match super::super::chat::streamed_reply(codec, result, &decoded) {
            HttpReply::Stream { frames, end, stall_ms, .. } => {
                let mut first = true;
                for frame in frames.iter() {
                    let delay = if first { frame.delay_ms + stall_ms } else { frame.delay_ms };
                    first = false;
                    for line in frame.data.lines() {
                        let Some(data) = line.strip_prefix("data: ").or_else(|| line.strip_prefix("data:")) else {
                            continue;
                        };
                        let Ok(event) = serde_json::from_str::<Value>(data) else { continue };
                        if event.get("type").and_then(Value::as_str) == Some("response.created") {
                            self.last_response =
                                event.pointer("/response/id").and_then(Value::as_str).map(str::to_string);
                        }
                        self.sequence = event.get("sequence_number").and_then(Value::as_u64).unwrap_or(self.sequence);
                        out.send(event, delay);
                    }
                }
                if end == StreamEnd::Cut {
                    out.cut();
                } else if go_away {
                    out.close(1000, "the connection reached its maximum duration");
                }
            }
            HttpReply::Full { status, body, delay_ms, .. } => {
                // A failure before anything streamed: an `error` message with the status the HTTP API would send.
                let parsed: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
                let error = parsed.get("error").cloned().unwrap_or(parsed);
                out.send(json!({"type": "error", "status": status, "error": error}), delay_ms);
            }
            HttpReply::Abort { .. } | HttpReply::Socket { .. } => out.cut(),
        }
    }
}

/// A `response.create` body as the Responses protocol's request, journaled under `responses` with its socket.
fn decode(body: &Value, socket: &str) -> Result<super::super::DecodedRequest, String> {
    use super::super::ChatProtocol;
    let mut decoded = super::super::openai_responses::OpenAiResponses::decode(body)?;
    let request = Arc::make_mut(&mut decoded.request);
    request.stream = true;
    request.metadata.endpoint = Some("responses".to_string());
    request.metadata.extra.insert("session".to_string(), socket.into());
    request.metadata.extra.insert("transport".to_string(), "websocket".into());
    Ok(decoded)
}
