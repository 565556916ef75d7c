//! Stored responses: `GET /v1/responses/{id}`, `POST /v1/responses/{id}/cancel`, `DELETE /v1/responses/{id}` and
//! `GET /v1/responses/{id}/input_items` (`docs/concepts/wire.md`, "OpenAI Responses").
//!
//! A response is read back from the journal (the answer and the request that made it, re-encoded as it was sent),
//! so it is kept exactly as long as the journal keeps its entry; `store: false` responses are not found, as on the
//! API. A `background: true` response was answered `queued`: its first retrieve shows it `in_progress`, the next
//! ones `completed` with its output, and a cancel before that ends it `cancelled`.

use super::objects::{Output, ResponseObject};
use super::{echo_of, status_of, OpenAiResponses};
use crate::error::ErrorKind;
use crate::journal::JournalEntry;
use crate::mock::MockModel;
use crate::stream::Envelope;
use crate::wire::errors::{cuecard_reply, Dialect};
use crate::wire::routes::Matched;
use crate::wire::{json_reply, raw, request_id, served_reply, ChatProtocol, DecodedRequest, HttpReply, HttpRequest};
use serde_json::{json, Value};

/// A stored response: its journal entry, the decoded request that made it and its envelope.
struct Stored {
    entry: JournalEntry,
    decoded: DecodedRequest,
    envelope: Envelope,
}

/// The response `id` (`resp_3`, or a scripted id) if the journal has it from `/v1/responses`, stored.
fn find(mock: &MockModel, id: &str) -> Option<Stored> {
    let neutral = match id.strip_prefix("resp_").filter(|n| n.parse::<u64>().is_ok()) {
        Some(number) => format!("chatcmpl-{number}"),
        None => id.to_string(),
    };
    let entry = mock.answer_entry(&neutral)?;
    let raw = entry.raw.as_ref().filter(|raw| raw.path.ends_with("/responses"))?;
    let body: Value = serde_json::from_str(&raw.body).ok()?;
    let decoded = OpenAiResponses::decode(&body).ok().filter(|decoded| decoded.store)?;
    let response = entry.response.as_ref()?;
    let number = neutral.strip_prefix("chatcmpl-").and_then(|n| n.parse().ok()).unwrap_or(0);
    let envelope = Envelope {
        number,
        scripted_id: (number == 0).then(|| id.to_string()),
        model: response.model.clone().unwrap_or_else(|| entry.request.model.clone()),
        created: response.created.unwrap_or(crate::clock::CLOCK_EPOCH_SECONDS),
        recorded: None,
        headers: Vec::new(),
        rate_limit: None,
        go_away_ms: None,
        answered_by: Default::default(),
    };
    Some(Stored { entry, decoded, envelope })
}

/// The row's answer for every stored-response path.
pub(crate) fn answer(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> HttpReply {
    let mut segments = http.path.trim_end_matches('/').rsplit('/');
    let last = segments.next().unwrap_or_default();
    let (id, action) = match last {
        "cancel" | "input_items" => (segments.next().unwrap_or_default(), last),
        _ => (last, ""),
    };
    let stored = find(mock, id).filter(|_| !mock.update_response_state(id, |_| {}).deleted);
    let Some(stored) = stored else {
        let message = format!("Response with id '{id}' not found.");
        let refused = crate::wire::served_request("", matched.endpoint, Vec::new());
        let index = mock.reject(refused, Some(raw(http)), message.clone());
        return cuecard_reply(Dialect::OpenAi, 404, ErrorKind::NotFound, &message, &request_id(index));
    };
    let served = crate::wire::served_request(&stored.entry.request.model, matched.endpoint, Vec::new());
    if action == "cancel" && !stored.decoded.background {
        let message = "Only responses created with background: true can be cancelled.";
        let index = mock.reject(served, Some(raw(http)), message.to_string());
        return cuecard_reply(Dialect::OpenAi, 400, ErrorKind::InvalidRequest, message, &request_id(index));
    }
    let index = mock.record_served(served, Some(raw(http)));
    let request_id = request_id(index);
    match (http.method.as_str(), action) {
        ("DELETE", _) => {
            mock.update_response_state(id, |state| state.deleted = true);
            served_reply(index, &json!({"id": id, "object": "response", "deleted": true}))
        }
        ("GET", "input_items") => served_reply(index, &input_items(&stored)),
        ("POST", "cancel") => {
            let state = mock.update_response_state(id, |_| {});
            if state.polls < 2 {
                mock.update_response_state(id, |state| state.cancelled = true);
            }
            object_reply(mock, &stored, id, false, &request_id)
        }
        _ => object_reply(mock, &stored, id, true, &request_id),
    }
}

/// The response object as it stands (a retrieve moves a background response on).
fn object_reply(mock: &MockModel, stored: &Stored, id: &str, poll: bool, request_id: &str) -> HttpReply {
    let state = mock.update_response_state(id, |state| {
        if poll && !state.cancelled {
            state.polls += 1;
        }
    });
    let echo = echo_of(&stored.decoded);
    let headers = vec![("x-request-id".into(), request_id.to_owned().into())];
    let status = match (stored.decoded.background, state.cancelled, state.polls) {
        (true, true, _) => Some("cancelled"),
        (true, false, 0) => Some("queued"),
        (true, false, 1) => Some("in_progress"),
        _ => None,
    };
    let Some(response) = stored.entry.response.as_deref() else {
        return cuecard_reply(Dialect::OpenAi, 404, ErrorKind::NotFound, "the response has no answer", request_id);
    };
    let body = match status {
        Some(status) => ResponseObject::new(None, None, &stored.envelope, &echo, &[], status),
        None => {
            let usage = response.usage.unwrap_or_else(|| {
                crate::wire::estimated_usage(&stored.entry.request, response, &stored.envelope.answered_by)
            });
            let output = Output::of(response, &stored.envelope);
            let items = output.items("completed");
            let body =
                ResponseObject::new(Some(response), Some(usage), &stored.envelope, &echo, &items, status_of(response));
            let body = if stored.decoded.background { body.in_background() } else { body };
            return json_reply(200, headers, &body);
        }
    };
    json_reply(200, headers, &body.in_background())
}

/// The request's input as the API lists it: each item with an id, newest first.
fn input_items(stored: &Stored) -> Value {
    let body: Value =
        stored.entry.raw.as_ref().and_then(|raw| serde_json::from_str(&raw.body).ok()).unwrap_or_default();
    let items: Vec<Value> = match body.get("input") {
        Some(Value::String(text)) => vec![json!({"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": text}]})],
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    };
    let number = stored.envelope.number;
    let mut data: Vec<Value> = items
        .into_iter()
        .enumerate()
        .map(|(i, mut item)| {
            if item.get("id").is_none() {
                item["id"] = json!(format!("msg_in_{number}_{i}"));
            }
            if item.get("type").is_none() {
                item["type"] = json!("message");
            }
            item["status"] = json!("completed");
            item
        })
        .collect();
    data.reverse();
    let first = data.first().and_then(|item| item.get("id")).cloned();
    let last = data.last().and_then(|item| item.get("id")).cloned();
    json!({"object": "list", "data": data, "first_id": first, "last_id": last, "has_more": false})
}
