//! A provider's reply read back into the neutral answer (a step: thinking, text, tool calls, usage, finish
//! reason, or a failure), for every protocol cuecard speaks, whole and streamed. It is what a recording replays
//! on another protocol, and what a user reads and edits.
//!
//! Each reader takes the reply as a client would: a whole body's JSON, or a stream's events accumulated in order
//! (text and argument deltas appended, a block's start giving a call's id and name).

// Replies are read with serde_json's `value["key"]` and `value[0]`, which give `null` for what is missing and
// cannot panic on a `Value`; that is the only indexing here.
#![allow(clippy::indexing_slicing)]

use crate::model::{FinishReason, Usage};
use crate::provider_error::ProviderErrorKind;
use crate::script::spec::{FailSpec, StepSpec, ToolCallSpec};
use serde_json::Value;

/// The answer being accumulated.
#[derive(Default)]
struct Answer {
    thinking: String,
    text: String,
    calls: Vec<Call>,
    /// The provider's own finish reason, as it wrote it.
    finish: Option<String>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cached_tokens: Option<u64>,
}

#[derive(Default)]
struct Call {
    /// The index the protocol numbers it by (a stream's `index`), to find it again for its deltas.
    index: u64,
    id: String,
    name: String,
    arguments: String,
}

impl Answer {
    /// The call numbered `index`, added when it is new.
    fn call(&mut self, index: u64) -> &mut Call {
        if !self.calls.iter().any(|c| c.index == index) {
            self.calls.push(Call { index, ..Call::default() });
        }
        let mut calls = self.calls.iter_mut();
        calls.find(|c| c.index == index).unwrap_or_else(|| unreachable!("added above"))
    }

    fn add_call(&mut self, id: &str, name: &str, arguments: String) {
        let index = self.calls.len() as u64;
        self.calls.push(Call { index, id: id.to_string(), name: name.to_string(), arguments });
    }

    fn into_step(self) -> StepSpec {
        let finish = self.finish.as_deref().map(finish_reason);
        let derived = if self.calls.is_empty() { FinishReason::Stop } else { FinishReason::ToolCalls };
        let usage = match (self.input_tokens, self.output_tokens) {
            (None, None) => None,
            (input, output) => {
                let (input_tokens, output_tokens) = (input.unwrap_or(0), output.unwrap_or(0));
                Some(Usage {
                    input_tokens,
                    output_tokens,
                    total_tokens: input_tokens + output_tokens,
                    cached_tokens: self.cached_tokens,
                })
            }
        };
        let tool_calls: Vec<ToolCallSpec> = self.calls.into_iter().map(Call::into_spec).collect();
        let empty = self.text.is_empty() && self.thinking.is_empty() && tool_calls.is_empty();
        StepSpec {
            // An answer with nothing in it (a reply cut before its first token) is an answer without text.
            tokens: empty.then(Vec::new),
            text: (!self.text.is_empty()).then_some(self.text),
            thinking: (!self.thinking.is_empty()).then_some(self.thinking),
            tool_calls: (!tool_calls.is_empty()).then_some(tool_calls),
            finish_reason: finish.filter(|f| *f != derived),
            usage,
            ..StepSpec::default()
        }
    }
}

impl Call {
    fn into_spec(self) -> ToolCallSpec {
        // Arguments that are a JSON object are kept as data (readable, editable); anything else as its text.
        let parsed = serde_json::from_str::<Value>(&self.arguments).ok().filter(Value::is_object);
        let (arguments, arguments_json) = match (parsed, self.arguments.is_empty()) {
            (Some(object), _) => (Some(object), None),
            (None, true) => (None, None),
            (None, false) => (None, Some(self.arguments)),
        };
        ToolCallSpec { id: (!self.id.is_empty()).then_some(self.id), name: self.name, arguments, arguments_json }
    }
}

/// The neutral finish reason of a provider's own (`stop`, `end_turn`, `MAX_TOKENS`, `tool_use`, ...).
fn finish_reason(given: &str) -> FinishReason {
    match given.to_ascii_lowercase().as_str() {
        "stop" | "end_turn" | "stop_sequence" | "completed" | "complete" => FinishReason::Stop,
        "length" | "max_tokens" | "max_output_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "tool_calls" | "tool_use" | "function_call" | "tool_call" => FinishReason::ToolCalls,
        "content_filter"
        | "safety"
        | "refusal"
        | "content_filtered"
        | "guardrail_intervened"
        | "prohibited_content"
        | "blocklist"
        | "spii"
        | "recitation" => FinishReason::ContentFilter,
        _ => FinishReason::Other,
    }
}

/// The neutral answer of a reply: `status` and the whole `body`, or a stream's `events` (each event's bytes).
pub(crate) fn neutral_answer(endpoint: &str, status: u16, body: Option<&[u8]>, events: &[Vec<u8>]) -> StepSpec {
    if status >= 400 {
        let text = body.map(<[u8]>::to_vec).unwrap_or_else(|| events.concat());
        return failure(status, &text);
    }
    let mut answer = Answer::default();
    match body {
        Some(body) => {
            let json: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
            whole(endpoint, &json, &mut answer);
        }
        None => {
            for event in events {
                streamed(endpoint, event, &mut answer);
            }
        }
    }
    answer.into_step()
}

/// A failure reply as a scripted failure: its status, and the provider's message and error type when its body
/// says them (`{"error": {"message", "type", "code"}}`, Anthropic's `{"type": "error", "error": {...}}`, Gemini's
/// `{"error": {"status", "message"}}`, Bedrock's `{"message"}`, Ollama's `{"error": "..."}`).
fn failure(status: u16, body: &[u8]) -> StepSpec {
    let json: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let error = json.get("error").unwrap_or(&json);
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .or_else(|| json.get("message").and_then(Value::as_str))
        .map(str::to_string);
    let string = |key: &str| error.get(key).and_then(Value::as_str).map(str::to_string);
    let kind = ProviderErrorKind::for_status(status);
    StepSpec {
        fail: Some(FailSpec {
            status: (kind.default_status() != Some(status)).then_some(status),
            message,
            error_type: string("type").or_else(|| string("status")),
            error_code: string("code"),
            ..FailSpec::of(kind)
        }),
        ..StepSpec::default()
    }
}

fn text_of(value: &Value) -> &str {
    value.as_str().unwrap_or("")
}

fn number(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

/// A whole response.
fn whole(endpoint: &str, json: &Value, answer: &mut Answer) {
    match endpoint {
        "completions" => completion_choice(json, answer),
        "chat_completions" => {
            let choice = &json["choices"][0];
            chat_message(&choice["message"], answer, false);
            answer.finish = choice["finish_reason"].as_str().map(str::to_string);
            chat_usage(&json["usage"], answer);
        }
        "responses" => responses(json, answer),
        "messages" | "bedrock_invoke" => {
            for block in json["content"].as_array().into_iter().flatten() {
                match block["type"].as_str() {
                    Some("text") => answer.text.push_str(text_of(&block["text"])),
                    Some("thinking") => answer.thinking.push_str(text_of(&block["thinking"])),
                    Some("tool_use") => {
                        answer.add_call(text_of(&block["id"]), text_of(&block["name"]), block["input"].to_string());
                    }
                    _ => {}
                }
            }
            answer.finish = json["stop_reason"].as_str().map(str::to_string);
            anthropic_usage(&json["usage"], answer);
        }
        "gemini_generate" => gemini_chunk(json, answer),
        "cohere_chat" => cohere_whole(json, answer),
        "ollama_chat" | "ollama_generate" => ollama_chunk(json, answer),
        "bedrock_converse" => {
            for block in json["output"]["message"]["content"].as_array().into_iter().flatten() {
                converse_block(block, answer);
            }
            answer.finish = json["stopReason"].as_str().map(str::to_string);
            converse_usage(&json["usage"], answer);
        }
        _ => {}
    }
}

/// One event of a stream.
fn streamed(endpoint: &str, event: &[u8], answer: &mut Answer) {
    match endpoint {
        "ollama_chat" | "ollama_generate" => {
            if let Ok(json) = serde_json::from_slice::<Value>(event) {
                ollama_chunk(&json, answer);
            }
        }
        "bedrock_converse" | "bedrock_invoke" => {
            let mut rest = event;
            while let Ok((message, used)) = crate::wire::eventstream::decode(rest) {
                bedrock_message(endpoint, &message, answer);
                rest = rest.get(used..).unwrap_or_default();
            }
        }
        _ => {
            let Some((name, data)) = sse_event(event) else { return };
            let Ok(json) = serde_json::from_str::<Value>(&data) else { return };
            match endpoint {
                "completions" => completion_choice(&json, answer),
                "chat_completions" => {
                    if let Some(choice) = json["choices"].get(0) {
                        chat_message(&choice["delta"], answer, true);
                        if let Some(reason) = choice["finish_reason"].as_str() {
                            answer.finish = Some(reason.to_string());
                        }
                    }
                    chat_usage(&json["usage"], answer);
                }
                "responses" => {
                    // The last event holds the whole response; the deltas before it add nothing to it.
                    let kind = json["type"].as_str().or(name.as_deref()).unwrap_or("");
                    if matches!(kind, "response.completed" | "response.incomplete" | "response.failed") {
                        responses(&json["response"], answer);
                    }
                }
                "messages" => anthropic_event(&json, answer),
                "gemini_generate" => gemini_chunk(&json, answer),
                "cohere_chat" => cohere_event(&json, answer),
                _ => {}
            }
        }
    }
}

/// An SSE event's name and its data lines joined.
fn sse_event(event: &[u8]) -> Option<(Option<String>, String)> {
    let text = std::str::from_utf8(event).ok()?;
    let mut name = None;
    let mut data: Vec<&str> = Vec::new();
    for line in text.lines() {
        if let Some(value) = line.strip_prefix("data:") {
            data.push(value.strip_prefix(' ').unwrap_or(value));
        } else if let Some(value) = line.strip_prefix("event:") {
            name = Some(value.trim().to_string());
        }
    }
    (!data.is_empty()).then(|| (name, data.join("\n")))
}

/// A Chat Completions message, or a stream's delta (whose tool calls come in pieces by `index`).
fn chat_message(message: &Value, answer: &mut Answer, delta: bool) {
    answer.text.push_str(text_of(&message["content"]));
    for field in ["reasoning_content", "reasoning"] {
        answer.thinking.push_str(text_of(&message[field]));
    }
    for (position, call) in message["tool_calls"].as_array().into_iter().flatten().enumerate() {
        let function = &call["function"];
        if delta {
            let index = number(call, "index").unwrap_or(position as u64);
            let entry = answer.call(index);
            entry.id.push_str(text_of(&call["id"]));
            entry.name.push_str(text_of(&function["name"]));
            entry.arguments.push_str(text_of(&function["arguments"]));
        } else {
            let arguments = text_of(&function["arguments"]).to_string();
            answer.add_call(text_of(&call["id"]), text_of(&function["name"]), arguments);
        }
    }
}

/// A legacy completion, whole or one chunk of its stream: the first choice's text, its finish, the usage.
/// Cohere v2's whole answer: content parts (text, thinking), `tool_calls`, the finish reason and usage.
fn cohere_whole(json: &Value, answer: &mut Answer) {
    let message = &json["message"];
    for part in message["content"].as_array().into_iter().flatten() {
        match part["type"].as_str() {
            Some("text") => answer.text.push_str(text_of(&part["text"])),
            Some("thinking") => answer.thinking.push_str(text_of(&part["thinking"])),
            _ => {}
        }
    }
    for call in message["tool_calls"].as_array().into_iter().flatten() {
        let function = &call["function"];
        answer.add_call(text_of(&call["id"]), text_of(&function["name"]), text_of(&function["arguments"]).into());
    }
    answer.finish = json["finish_reason"].as_str().map(str::to_string);
    cohere_usage(&json["usage"], answer);
}

/// One event of a Cohere v2 stream, by its data's `type`.
fn cohere_event(json: &Value, answer: &mut Answer) {
    let message = &json["delta"]["message"];
    match json["type"].as_str() {
        Some("content-delta") => {
            let content = &message["content"];
            answer.text.push_str(text_of(&content["text"]));
            answer.thinking.push_str(text_of(&content["thinking"]));
        }
        Some("tool-call-start" | "tool-call-delta") => {
            let index = json["index"].as_u64().unwrap_or(0);
            let given = &message["tool_calls"];
            let call = answer.call(index);
            if let Some(id) = given["id"].as_str() {
                call.id = id.to_string();
            }
            if let Some(name) = given["function"]["name"].as_str() {
                call.name = name.to_string();
            }
            call.arguments.push_str(text_of(&given["function"]["arguments"]));
        }
        Some("message-end") => {
            answer.finish = json["delta"]["finish_reason"].as_str().map(str::to_string);
            cohere_usage(&json["delta"]["usage"], answer);
        }
        _ => {}
    }
}

fn cohere_usage(usage: &Value, answer: &mut Answer) {
    let tokens = &usage["tokens"];
    if tokens.is_object() {
        answer.input_tokens = number(tokens, "input_tokens");
        answer.output_tokens = number(tokens, "output_tokens");
    }
}

fn completion_choice(json: &Value, answer: &mut Answer) {
    if let Some(choice) = json["choices"].get(0) {
        answer.text.push_str(text_of(&choice["text"]));
        if let Some(reason) = choice["finish_reason"].as_str() {
            answer.finish = Some(reason.to_string());
        }
    }
    chat_usage(&json["usage"], answer);
}

fn chat_usage(usage: &Value, answer: &mut Answer) {
    if usage.is_object() {
        answer.input_tokens = number(usage, "prompt_tokens");
        answer.output_tokens = number(usage, "completion_tokens");
        answer.cached_tokens = number(&usage["prompt_tokens_details"], "cached_tokens");
    }
}

/// A Responses response object: its output items.
fn responses(response: &Value, answer: &mut Answer) {
    for item in response["output"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("message") => {
                for part in item["content"].as_array().into_iter().flatten() {
                    answer.text.push_str(text_of(&part["text"]));
                }
            }
            Some("reasoning") => {
                for part in item["summary"].as_array().into_iter().flatten() {
                    answer.thinking.push_str(text_of(&part["text"]));
                }
            }
            Some("function_call") => {
                let arguments = text_of(&item["arguments"]).to_string();
                answer.add_call(text_of(&item["call_id"]), text_of(&item["name"]), arguments);
            }
            _ => {}
        }
    }
    answer.finish = match response["status"].as_str() {
        Some("incomplete") => response["incomplete_details"]["reason"].as_str().map(str::to_string),
        Some("completed") if !answer.calls.is_empty() => Some("tool_calls".into()),
        Some(status) => Some(status.to_string()),
        None => None,
    };
    let usage = &response["usage"];
    if usage.is_object() {
        answer.input_tokens = number(usage, "input_tokens");
        answer.output_tokens = number(usage, "output_tokens");
        answer.cached_tokens = number(&usage["input_tokens_details"], "cached_tokens");
    }
}

fn anthropic_usage(usage: &Value, answer: &mut Answer) {
    if let Some(input) = number(usage, "input_tokens") {
        answer.input_tokens = Some(input);
    }
    if let Some(output) = number(usage, "output_tokens") {
        answer.output_tokens = Some(output);
    }
    if let Some(cached) = number(usage, "cache_read_input_tokens") {
        answer.cached_tokens = Some(cached);
    }
}

/// One Anthropic Messages stream event (also what Bedrock's invoke stream carries).
fn anthropic_event(json: &Value, answer: &mut Answer) {
    match json["type"].as_str() {
        Some("message_start") => anthropic_usage(&json["message"]["usage"], answer),
        Some("content_block_start") => {
            let block = &json["content_block"];
            if block["type"] == "tool_use" {
                let call = answer.call(number(json, "index").unwrap_or(0));
                call.id = text_of(&block["id"]).to_string();
                call.name = text_of(&block["name"]).to_string();
            }
            answer.text.push_str(text_of(&block["text"]));
        }
        Some("content_block_delta") => {
            let delta = &json["delta"];
            match delta["type"].as_str() {
                Some("text_delta") => answer.text.push_str(text_of(&delta["text"])),
                Some("thinking_delta") => answer.thinking.push_str(text_of(&delta["thinking"])),
                Some("input_json_delta") => {
                    let call = answer.call(number(json, "index").unwrap_or(0));
                    call.arguments.push_str(text_of(&delta["partial_json"]));
                }
                _ => {}
            }
        }
        Some("message_delta") => {
            if let Some(reason) = json["delta"]["stop_reason"].as_str() {
                answer.finish = Some(reason.to_string());
            }
            anthropic_usage(&json["usage"], answer);
        }
        _ => {}
    }
}

/// A Gemini response, whole or one chunk of a stream (each chunk holds new parts).
fn gemini_chunk(json: &Value, answer: &mut Answer) {
    // A stream without `alt=sse` is one JSON array of chunks.
    if let Some(chunks) = json.as_array() {
        for chunk in chunks {
            gemini_chunk(chunk, answer);
        }
        return;
    }
    let candidate = &json["candidates"][0];
    for part in candidate["content"]["parts"].as_array().into_iter().flatten() {
        if let Some(call) = part.get("functionCall") {
            answer.add_call(text_of(&call["id"]), text_of(&call["name"]), call["args"].to_string());
        } else if part["thought"] == true {
            answer.thinking.push_str(text_of(&part["text"]));
        } else {
            answer.text.push_str(text_of(&part["text"]));
        }
    }
    if let Some(reason) = candidate["finishReason"].as_str() {
        answer.finish = Some(reason.to_string());
    }
    let usage = &json["usageMetadata"];
    if usage.is_object() {
        answer.input_tokens = number(usage, "promptTokenCount");
        answer.output_tokens = number(usage, "candidatesTokenCount");
        answer.cached_tokens = number(usage, "cachedContentTokenCount");
    }
}

/// An Ollama reply, whole or one line of a stream (`/api/chat`'s `message`, `/api/generate`'s `response`).
fn ollama_chunk(json: &Value, answer: &mut Answer) {
    let message = &json["message"];
    answer.text.push_str(text_of(&message["content"]));
    answer.text.push_str(text_of(&json["response"]));
    answer.thinking.push_str(text_of(&message["thinking"]));
    answer.thinking.push_str(text_of(&json["thinking"]));
    for call in message["tool_calls"].as_array().into_iter().flatten() {
        let function = &call["function"];
        answer.add_call(text_of(&call["id"]), text_of(&function["name"]), function["arguments"].to_string());
    }
    if let Some(reason) = json["done_reason"].as_str() {
        answer.finish = Some(reason.to_string());
    }
    if let Some(input) = number(json, "prompt_eval_count") {
        answer.input_tokens = Some(input);
    }
    if let Some(output) = number(json, "eval_count") {
        answer.output_tokens = Some(output);
    }
}

/// A Converse content block (whole) or the start of one (a stream's `contentBlockStart.start`).
fn converse_block(block: &Value, answer: &mut Answer) {
    answer.text.push_str(text_of(&block["text"]));
    answer.thinking.push_str(text_of(&block["reasoningContent"]["reasoningText"]["text"]));
    if let Some(tool) = block.get("toolUse") {
        answer.add_call(text_of(&tool["toolUseId"]), text_of(&tool["name"]), tool["input"].to_string());
    }
}

fn converse_usage(usage: &Value, answer: &mut Answer) {
    if usage.is_object() {
        answer.input_tokens = number(usage, "inputTokens");
        answer.output_tokens = number(usage, "outputTokens");
        answer.cached_tokens = number(usage, "cacheReadInputTokens");
    }
}

/// One event-stream message of a Bedrock stream: a Converse event named by `:event-type`, or an invoke chunk
/// whose `bytes` are an Anthropic stream event.
fn bedrock_message(endpoint: &str, message: &crate::wire::eventstream::Message, answer: &mut Answer) {
    let Ok(payload) = serde_json::from_slice::<Value>(&message.payload) else { return };
    if endpoint == "bedrock_invoke" {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD.decode(text_of(&payload["bytes"])).unwrap_or_default();
        if let Ok(event) = serde_json::from_slice::<Value>(&bytes) {
            anthropic_event(&event, answer);
        }
        return;
    }
    let event_type = message.headers.iter().find(|(n, _)| n == ":event-type").map_or("", |(_, v)| v.as_str());
    let index = number(&payload, "contentBlockIndex").unwrap_or(0);
    match event_type {
        "contentBlockStart" => {
            if let Some(tool) = payload["start"].get("toolUse") {
                let call = answer.call(index);
                call.id = text_of(&tool["toolUseId"]).to_string();
                call.name = text_of(&tool["name"]).to_string();
            }
        }
        "contentBlockDelta" => {
            let delta = &payload["delta"];
            answer.text.push_str(text_of(&delta["text"]));
            answer.thinking.push_str(text_of(&delta["reasoningContent"]["text"]));
            if let Some(tool) = delta.get("toolUse") {
                answer.call(index).arguments.push_str(text_of(&tool["input"]));
            }
        }
        "messageStop" => answer.finish = payload["stopReason"].as_str().map(str::to_string),
        "metadata" => converse_usage(&payload["usage"], answer),
        _ => {}
    }
}
