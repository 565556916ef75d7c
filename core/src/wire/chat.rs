//! A chat request through its protocol: decoded, checked against the contracts, answered by the mock, and encoded
//! whole or streamed with the step's headers, the delivery setting and the recorded reply when there is one.

use super::*;
use crate::error::ErrorKind;
use crate::journal::RawRequest;
use crate::mock::pending::Turn;
use crate::mock::{Exchange, MockModel, StreamResult};
use crate::model::ChatRequest;
use crate::script::CallError;
use crate::stream::Envelope;
use routes::Matched;
use std::sync::Arc;

/// A chat row's answer: [`chat_with`] the protocol's codec.
pub(super) fn chat<P: ChatProtocol>(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> Turn<HttpReply> {
    chat_with(P::CODEC, mock, http, matched)
}

/// Answers a chat request through `codec`.
pub(super) fn chat_with(codec: Codec, mock: &MockModel, http: &HttpRequest, matched: &Matched) -> Turn<HttpReply> {
    let dialect = codec.dialect;
    if http.body.len() > MAX_BODY_BYTES {
        let message =
            // The server stops reading one byte past the limit, so the real size is unknown: name the limit only.
            format!("the request body is larger than the limit of {MAX_BODY_BYTES} bytes (32 MiB)");
        let request = ChatRequest { metadata: endpoint_metadata(matched.endpoint, http), ..ChatRequest::default() };
        let index = mock.reject(
            request,
            Some(RawRequest { path: http.path.as_str().into(), body: Box::default(), contract_violation: None }),
            message.clone(),
        );
        return Turn::Done(errors::cuecard_reply(
            dialect,
            413,
            ErrorKind::RequestTooLarge,
            &message,
            &request_id(index),
        ));
    }
    let mut decoded = match decode_with(codec, http, matched) {
        Ok(decoded) => decoded,
        Err(message) => {
            let request = ChatRequest { metadata: endpoint_metadata(matched.endpoint, http), ..ChatRequest::default() };
            let index = mock.reject(request, Some(raw(http)), message.clone());
            return Turn::Done(errors::cuecard_reply(
                dialect,
                400,
                ErrorKind::InvalidRequest,
                &message,
                &request_id(index),
            ));
        }
    };
    decoded.reasoning_field = mock.reasoning_field();
    if let Some(media) = decoded.media.as_mut() {
        media.seed = mock.seed();
    }
    let mut raw_request = raw(http);
    let contracts = mock.contracts_for(&decoded.request);
    let violation = match contracts.mode {
        ContractMode::Off => None,
        _ => contract_violation(mock, http, matched.endpoint, &contracts),
    };
    match (contracts.mode, violation) {
        (ContractMode::Strict, Some(violation)) => {
            let index = mock.refuse_by_contract(Arc::unwrap_or_clone(decoded.request), Some(raw_request), &violation);
            return Turn::Done(errors::contract_reply(dialect, &violation, &request_id(index)));
        }
        (ContractMode::Warn, Some(violation)) => raw_request.contract_violation = Some(Box::new(violation)),
        _ => {}
    }
    resolve_item_references(mock, Arc::make_mut(&mut decoded.request));
    let (endpoint, speed) = (matched.endpoint, mock.replay_speed());
    if decoded.request.stream {
        let turn = mock.chat_stream_turn(Arc::clone(&decoded.request), Some(raw_request));
        // The journal keeps the request's delivery seed (`MockModel::take`); the reply is cut with it here.
        let delivery = mock.delivery().map(|delivery| (delivery, mock.seed()));
        turn.map(move |result| {
            let step_headers =
                result.as_ref().map(|stream| reply_headers(codec.dialect, stream.envelope())).unwrap_or_default();
            let reply = match recorded_stream_reply(&result, endpoint, speed) {
                Some(reply) => reply,
                None => streamed_reply(codec, result, &decoded),
            };
            delivered(with_step_headers(reply, step_headers), delivery, codec.framing)
        })
    } else {
        let turn = mock.chat_timed_turn(Arc::clone(&decoded.request), Some(raw_request));
        turn.map(move |exchange| {
            let step_headers = exchange.envelope.as_ref().map(|e| reply_headers(codec.dialect, e)).unwrap_or_default();
            let recorded = exchange.envelope.as_ref().and_then(|e| e.recorded.as_ref());
            let reply = match recorded.filter(|r| r.replays_for(endpoint, false)) {
                Some(recorded) => recorded.reply(speed),
                None => whole_reply(codec, exchange, &decoded),
            };
            with_step_headers(reply, step_headers)
        })
    }
}

/// The first rule of the real API that the request breaks, read from its body (only when contracts are checked:
/// the body is parsed again).
pub(super) fn contract_violation(
    mock: &MockModel,
    http: &HttpRequest,
    endpoint: &str,
    setting: &Contracts,
) -> Option<Violation> {
    let body: serde_json::Value = serde_json::from_slice(&http.body).ok()?;
    crate::contracts::check(endpoint, &body, setting, &JournalHistory(mock))
}

/// The mock's journal as the answers the Responses rules look back at.
pub(super) struct JournalHistory<'a>(&'a MockModel);

impl crate::contracts::History for JournalHistory<'_> {
    fn response(&self, id: &str) -> Option<crate::contracts::Issued> {
        // The journal keeps an answer under its neutral id: `resp_3` was answer 3, `chatcmpl-3`.
        let neutral = match id.strip_prefix("resp_").filter(|n| n.parse::<u64>().is_ok()) {
            Some(number) => format!("chatcmpl-{number}"),
            None => id.to_string(),
        };
        let entry = self.0.answer_entry(&neutral)?;
        let raw = entry.raw.as_ref().filter(|raw| raw.path.ends_with("/responses"))?;
        let body: serde_json::Value = serde_json::from_str(&raw.body).unwrap_or_default();
        let message = &entry.response.as_ref()?.message;
        Some(crate::contracts::Issued {
            stored: body.get("store") != Some(&serde_json::Value::Bool(false)),
            call_ids: message.tool_calls.iter().map(|call| call.id.clone()).collect(),
            reasoned: message.thinking.is_some(),
        })
    }
}

/// The headers an answer adds to its reply: the provider's rate-limit headers (not on a recorded reply, which
/// keeps its own), then the step's own, which replace any of the same name.
pub(super) fn reply_headers(dialect: Dialect, envelope: &Envelope) -> Vec<ReplyHeader> {
    let mut headers = match envelope.rate_limit.filter(|_| envelope.recorded.is_none()) {
        Some(reading) => errors::rate_limit_headers(dialect, &reading),
        None => Vec::new(),
    };
    for (name, value) in &envelope.headers {
        headers.retain(|(existing, _)| existing != name);
        headers.push((name.clone().into(), value.clone().into()));
    }
    headers
}

/// `reply` with a step's own headers (`headers` in a scenario step), each replacing any of the same name. Not
/// generic, so that the protocols share one copy of it.
#[inline(never)]
pub(super) fn with_step_headers(mut reply: HttpReply, step_headers: Vec<ReplyHeader>) -> HttpReply {
    if let HttpReply::Full { headers, .. } | HttpReply::Stream { headers, .. } = &mut reply {
        headers.reserve(step_headers.len()); // one growth, not one per header (the rate limits are six)
        for (name, value) in step_headers {
            headers.retain(|(existing, _)| *existing != name);
            headers.push((name, value));
        }
    }
    reply
}

/// A streamed reply delivered as the `delivery` setting says (`(setting, scenario seed)`), when it is set. Not
/// generic, so that the protocols share one copy of it.
#[inline(never)]
pub(super) fn delivered(
    reply: HttpReply,
    delivery: Option<(Delivery, u64)>,
    framing: crate::delivery::StreamFraming,
) -> HttpReply {
    match (delivery, &reply) {
        (Some((delivery, seed)), HttpReply::Stream { entry: Some(ticket), .. }) => {
            let index = ticket.index;
            crate::delivery::deliver(reply, &delivery, framing, seed, index)
        }
        _ => reply,
    }
}

/// The recorded reply of the step that answers a streaming request, when it was recorded from this endpoint as a
/// stream: sent as recorded, and journaled as the scripted stream would be (a client that leaves early shows).
pub(super) fn recorded_stream_reply(result: &StreamResult, endpoint: &str, speed: f64) -> Option<HttpReply> {
    let stream = result.as_ref().ok()?;
    let recorded = stream.envelope().recorded.as_ref().filter(|r| r.replays_for(endpoint, true))?;
    match recorded.reply(speed) {
        HttpReply::Stream { stall_ms, status, headers, frames, end, base64, separate_writes, .. } => {
            let entry = Some(stream.entry());
            Some(HttpReply::Stream { stall_ms, status, headers, frames, end, base64, separate_writes, entry })
        }
        whole => Some(whole),
    }
}

/// A chat request as the neutral request and its protocol options: the body decoded, then what the path and
/// headers say (the endpoint and operation; Gemini's model and stream verb and Azure's deployment win over the
/// body).
pub(super) fn decode_with(codec: Codec, http: &HttpRequest, matched: &Matched) -> Result<DecodedRequest, String> {
    let mut decoded = if codec.form {
        (codec.decode_form)(&multipart::parse(http.header("content-type"), &http.body)?)?
    } else {
        decode_json(codec, http)?
    };
    let metadata = endpoint_metadata(matched.endpoint, http);
    let request = Arc::make_mut(&mut decoded.request); // not shared yet: no copy
    request.metadata.endpoint = metadata.endpoint;
    if metadata.operation.is_some() {
        request.metadata.operation = metadata.operation;
    }
    request.metadata.extra.extend(metadata.extra);
    if let Some(model) = &matched.model {
        request.model.clone_from(model);
    }
    if let Some(stream) = matched.stream {
        request.stream = stream;
    }
    Ok(decoded)
}

/// A JSON body as the protocol's request.
fn decode_json(codec: Codec, http: &HttpRequest) -> Result<DecodedRequest, String> {
    let text = std::str::from_utf8(&http.body)
        .map_err(|e| format!("the request body is not valid UTF-8 (byte {})", e.valid_up_to()))?;
    match (codec.decode_common)(text) {
        Some(decoded) => Ok(decoded),
        None => {
            let body: serde_json::Value =
                serde_json::from_str(text).map_err(|e| format!("the request body is not valid JSON: {e}"))?;
            (codec.decode)(&body)
        }
    }
}

/// The neutral request of a chat protocol's HTTP request (the protocol table's `decode`).
pub(super) fn decode_http<P: ChatProtocol>(http: &HttpRequest, matched: &Matched) -> Result<ChatRequest, String> {
    decode_with(P::CODEC, http, matched).map(|decoded| Arc::unwrap_or_clone(decoded.request))
}

/// The name of an assistant message that stands for an OpenAI `item_reference` (`item_reference:msg_1`).
pub(crate) const ITEM_REFERENCE: &str = "item_reference:";

/// Resolves OpenAI `item_reference`s (earlier output sent back by id, as the AI SDK does with `store` on) from
/// the journal: `msg_N` is the text cuecard answered as response N, `rs_N` its reasoning, `fc_N_I` its tool call
/// I. An id cuecard did not issue (or no longer keeps) stays visible as an empty assistant message named
/// `item_reference:<id>`.
pub(super) fn resolve_item_references(mock: &MockModel, request: &mut ChatRequest) {
    let is_reference = |m: &crate::model::Message| m.name.as_deref().is_some_and(|n| n.starts_with(ITEM_REFERENCE));
    if !request.messages.iter().any(is_reference) {
        return;
    }
    let entries = mock.entries();
    for message in &mut request.messages {
        let Some(id) = message.name.as_deref().and_then(|n| n.strip_prefix(ITEM_REFERENCE)) else { continue };
        if let Some(resolved) = referenced_output(&entries, id) {
            *message = resolved;
        }
    }
}

pub(super) fn referenced_output(entries: &[crate::journal::JournalEntry], id: &str) -> Option<crate::model::Message> {
    use crate::model::Message;
    let (kind, rest) = id.split_once('_')?;
    let (number, call) = match kind {
        "fc" => {
            let (number, index) = rest.split_once('_')?;
            (number, Some(index.parse::<usize>().ok()?))
        }
        _ => (rest, None),
    };
    let response_id = format!("chatcmpl-{number}");
    let message = &entries
        .iter()
        .rev()
        .filter_map(|e| e.response.as_ref())
        .find(|r| r.id.as_deref() == Some(response_id.as_str()))?
        .message;
    match (kind, call) {
        ("msg", None) => message.text.clone().map(Message::assistant),
        ("rs", None) => message
            .thinking
            .clone()
            .map(|thinking| Message { thinking: Some(thinking), ..Message::assistant_tool_calls(Vec::new()) }),
        ("fc", Some(index)) => {
            message.tool_calls.get(index).map(|call| Message::assistant_tool_calls(vec![call.clone()]))
        }
        _ => None,
    }
}

/// The usage a reply reports when the script gave none: real providers always send usage, so every endpoint
/// sends the word-like estimate (`docs/concepts/tokens.md`), whole and streamed, whatever the mock's `usage` setting.
/// The step's cached count of its answer stands for the response's output tokens when the response is that answer.
pub(super) fn estimated_usage(
    request: &ChatRequest,
    response: &crate::model::ChatResponse,
    answered_by: &crate::stream::AnsweredBy,
) -> crate::model::Usage {
    let message = &response.message;
    let output = answered_by.output_tokens().unwrap_or_else(|| {
        crate::usage::estimate_output_tokens(message.text.as_deref(), message.thinking.as_deref(), &message.tool_calls)
    });
    crate::model::Usage::new(crate::usage::estimate_input_tokens(request), output)
}

/// A streamed answer, or its failure.
pub(super) fn streamed_reply(codec: Codec, result: StreamResult, decoded: &DecodedRequest) -> HttpReply {
    let dialect = codec.dialect;
    match result {
        Ok(stream) => {
            let request_id = request_id(stream.request_index());
            if let Some(error) = stream.error().filter(|_| stream.fails_before_streaming()) {
                // A failure before anything is streamed is an HTTP error, also when a stream was asked for, unless
                // the protocol streams it.
                if let Some(reply) = (codec.encode_failed_stream)(&stream, &request_id) {
                    return reply;
                }
                let delay_ms = stream.first_delay_ms() + stream.stall_ms();
                return error_reply(dialect, error, &request_id, delay_ms);
            }
            let answered_by = stream.envelope().answered_by.clone();
            let stream =
                stream.with_usage_if_missing(|response| estimated_usage(&decoded.request, response, &answered_by));
            (codec.encode_stream)(&stream, decoded, &request_id)
        }
        Err((index, error)) => call_error_reply(dialect, &error, &request_id(index), 0),
    }
}

/// A non-streaming answer: the response (or failure) after the step's whole virtual duration.
pub(super) fn whole_reply(codec: Codec, exchange: Exchange, decoded: &DecodedRequest) -> HttpReply {
    let request_id = request_id(exchange.index);
    let delay_ms = exchange.delay_ms + exchange.stall_ms;
    match (exchange.result, exchange.envelope) {
        (Ok(response), Some(envelope)) => {
            let usage =
                response.usage.unwrap_or_else(|| estimated_usage(&decoded.request, &response, &envelope.answered_by));
            match (codec.encode_response)(&response, usage, &envelope, decoded, &request_id) {
                HttpReply::Full { status, headers, body, .. } => HttpReply::Full { delay_ms, status, headers, body },
                other => other,
            }
        }
        (Ok(_), None) => {
            let error =
                CallError::Cuecard(crate::error::Error::new(ErrorKind::Internal, "an answer without an envelope"));
            call_error_reply(codec.dialect, &error, &request_id, delay_ms)
        }
        (Err(error), _) => call_error_reply(codec.dialect, &error, &request_id, delay_ms),
    }
}

/// A failed call on the wire: a scripted failure in the provider's shape, or cuecard's own refusal (script
/// exhausted, no route, a callback that failed) as a provider-shaped 422. Those are bugs of the test, never
/// transient, and no mainstream client retries a 422: the Stainless SDKs (openai, anthropic) and the AI SDK retry
/// 408, 409, 429 and 5xx, and the AI SDK and LangChain4j ignore `x-should-retry` (a 500 cost the AI SDK three
/// requests and about 6 s of back-off). cuecard's own bug (`internal`) stays a 500.
pub(super) fn call_error_reply(dialect: Dialect, error: &CallError, request_id: &str, delay_ms: u64) -> HttpReply {
    let (kind, message) = match error {
        CallError::Provider(error) => return error_reply(dialect, error, request_id, delay_ms),
        CallError::Cuecard(e) => (e.kind(), e.message().to_string()),
        CallError::Host(h) => (ErrorKind::HostError, h.message().to_string()),
    };
    let status = if kind == ErrorKind::Internal { 500 } else { 422 };
    errors::cuecard_reply(dialect, status, kind, &message, request_id)
}
