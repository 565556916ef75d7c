//! The objects a Responses reply is made of, as serde types written straight to the wire.
//!
//! They replace `json!` trees: building a `Value` for every event (a `BTreeMap` per object, the whole response
//! object three times a stream) and freeing it again was most of a stream's cost. The bytes must stay what
//! serde_json writes for a `Value`, whose maps are sorted by key, so **every struct declares its fields in sorted
//! order** (byte order: `_` sorts before letters, so `tool_choice` < `tools` < `top_p`).
//! `wire::tests::every_responses_frame_is_written_in_sorted_key_order` re-reads every kind of event and the whole
//! response and fails on any field out of order; `tests/vectors/wire.json` holds the exact bytes.

use crate::model::{ChatResponse, FinishReason, Usage};
use crate::stream::Envelope;
use crate::tokenize::count_tokens;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;

/// A JSON `null` in a fixed place.
type Null = ();

/// `[]` in a fixed place.
type EmptyList = [(); 0];

/// A content part of a message item, or a summary part of a reasoning item.
#[derive(Serialize, Clone, Copy)]
#[serde(untagged)]
pub(super) enum Part<'a> {
    OutputText { annotations: EmptyList, text: &'a str, r#type: &'static str },
    Refusal { refusal: &'a str, r#type: &'static str },
    SummaryText { text: &'a str, r#type: &'static str },
}

impl<'a> Part<'a> {
    /// The message's content part: its text, or a refusal's.
    pub(super) fn text(text: &'a str, refused: bool) -> Part<'a> {
        if refused {
            Part::Refusal { refusal: text, r#type: "refusal" }
        } else {
            Part::OutputText { annotations: [], text, r#type: "output_text" }
        }
    }

    pub(super) fn summary(text: &'a str) -> Part<'a> {
        Part::SummaryText { text, r#type: "summary_text" }
    }
}

/// An item of a response's `output`.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum OutputItem<'a> {
    Reasoning {
        id: Cow<'a, str>,
        summary: &'a [Part<'a>],
        r#type: &'static str,
    },
    Message {
        content: &'a [Part<'a>],
        id: Cow<'a, str>,
        role: &'static str,
        status: &'a str,
        r#type: &'static str,
    },
    FunctionCall {
        arguments: &'a str,
        call_id: &'a str,
        id: Cow<'a, str>,
        name: &'a str,
        status: &'a str,
        r#type: &'static str,
    },
}

impl<'a> OutputItem<'a> {
    pub(super) fn reasoning(id: impl Into<Cow<'a, str>>, summary: &'a [Part<'a>]) -> OutputItem<'a> {
        OutputItem::Reasoning { id: id.into(), summary, r#type: "reasoning" }
    }

    pub(super) fn message(id: impl Into<Cow<'a, str>>, status: &'a str, content: &'a [Part<'a>]) -> OutputItem<'a> {
        OutputItem::Message { content, id: id.into(), role: "assistant", status, r#type: "message" }
    }

    pub(super) fn function_call(
        id: impl Into<Cow<'a, str>>,
        status: &'a str,
        call_id: &'a str,
        name: &'a str,
        arguments: &'a str,
    ) -> OutputItem<'a> {
        OutputItem::FunctionCall { arguments, call_id, id: id.into(), name, status, r#type: "function_call" }
    }
}

/// A whole response's output items: its reasoning, its message, its function calls, in that order.
pub(super) struct Output<'a> {
    parts: [Part<'a>; 2],
    response: &'a ChatResponse,
    number: u64,
}

impl<'a> Output<'a> {
    pub(super) fn of(response: &'a ChatResponse, envelope: &Envelope) -> Output<'a> {
        let message = &response.message;
        Output {
            parts: [
                Part::summary(message.thinking.as_deref().unwrap_or_default()),
                Part::text(
                    message.text.as_deref().unwrap_or_default(),
                    response.finish_reason == Some(FinishReason::Refusal),
                ),
            ],
            response,
            number: envelope.number,
        }
    }

    pub(super) fn items(&'a self, status: &'a str) -> Vec<OutputItem<'a>> {
        let message = &self.response.message;
        let number = self.number;
        let mut items = Vec::with_capacity(2 + message.tool_calls.len());
        let [summary, text] = &self.parts;
        if message.thinking.is_some() {
            items.push(OutputItem::reasoning(format!("rs_{number}"), std::slice::from_ref(summary)));
        }
        if message.text.is_some() {
            items.push(OutputItem::message(format!("msg_{number}"), status, std::slice::from_ref(text)));
        }
        for (i, call) in message.tool_calls.iter().enumerate() {
            items.push(OutputItem::function_call(
                format!("fc_{number}_{i}"),
                status,
                &call.id,
                &call.name,
                &call.arguments,
            ));
        }
        items
    }
}

/// What a response object repeats of its request, taken once so that a stream need not keep the request.
#[derive(Clone)]
pub(super) struct Echo {
    pub(super) max_output_tokens: Option<u64>,
    pub(super) temperature: f64,
    pub(super) top_p: f64,
    /// The request's tools, echoed as OpenAI does (in the Responses shape the request gave them in).
    pub(super) tools: Value,
    pub(super) store: bool,
    pub(super) previous_response_id: Option<String>,
}

#[derive(Serialize)]
struct Incomplete {
    reason: &'static str,
}

#[derive(Serialize)]
struct CachedTokens {
    cached_tokens: u64,
}

#[derive(Serialize)]
struct ReasoningTokens {
    reasoning_tokens: u64,
}

#[derive(Serialize)]
struct UsageObject {
    input_tokens: u64,
    input_tokens_details: CachedTokens,
    output_tokens: u64,
    output_tokens_details: ReasoningTokens,
    total_tokens: u64,
}

#[derive(Serialize)]
struct ReasoningConfig {
    effort: Null,
    summary: Null,
}

#[derive(Serialize)]
struct TextFormat {
    r#type: &'static str,
}

#[derive(Serialize)]
struct TextConfig {
    format: TextFormat,
}

#[derive(Serialize)]
struct NoMetadata {}

/// The response object; `response` is `None` while it is in progress.
#[derive(Serialize)]
pub(super) struct ResponseObject<'a> {
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    background: bool,
    created_at: u64,
    error: Null,
    id: Cow<'a, str>,
    incomplete_details: Option<Incomplete>,
    instructions: Null,
    max_output_tokens: Option<u64>,
    metadata: NoMetadata,
    model: &'a str,
    object: &'static str,
    output: &'a [OutputItem<'a>],
    parallel_tool_calls: bool,
    previous_response_id: Option<&'a str>,
    reasoning: ReasoningConfig,
    status: &'a str,
    store: bool,
    temperature: f64,
    text: TextConfig,
    tool_choice: &'static str,
    tools: &'a Value,
    top_p: f64,
    truncation: &'static str,
    usage: Option<UsageObject>,
    user: Null,
}

impl<'a> ResponseObject<'a> {
    /// The object of a response made with `background: true` (which the API echoes).
    pub(super) fn in_background(self) -> ResponseObject<'a> {
        ResponseObject { background: true, ..self }
    }

    /// The object around `output`; `usage` is the usage it reports (the reply's, given apart from the response,
    /// which is the journal's own), none while in progress.
    pub(super) fn new(
        response: Option<&ChatResponse>,
        usage: Option<Usage>,
        envelope: &'a Envelope,
        echo: &'a Echo,
        output: &'a [OutputItem<'a>],
        status: &'a str,
    ) -> ResponseObject<'a> {
        let finish_reason = response.and_then(|r| r.finish_reason);
        let usage = usage.map(|usage| {
            // The reasoning's share of the output, by the word-like count (never more than the output itself).
            let thinking = response.and_then(|r| r.message.thinking.as_deref()).map_or(0, count_tokens) as u64;
            UsageObject {
                input_tokens: usage.input_tokens,
                input_tokens_details: CachedTokens { cached_tokens: usage.cached_tokens.unwrap_or(0) },
                output_tokens: usage.output_tokens,
                output_tokens_details: ReasoningTokens { reasoning_tokens: thinking.min(usage.output_tokens) },
                total_tokens: usage.total_tokens,
            }
        });
        let incomplete_details = match (status, finish_reason) {
            ("incomplete", Some(FinishReason::ContentFilter)) => Some(Incomplete { reason: "content_filter" }),
            ("incomplete", _) => Some(Incomplete { reason: "max_output_tokens" }),
            _ => None,
        };
        ResponseObject {
            background: false,
            created_at: envelope.created,
            error: (),
            id: match &envelope.scripted_id {
                Some(id) => Cow::Borrowed(id),
                None => Cow::Owned(envelope.id("resp_")),
            },
            incomplete_details,
            instructions: (),
            max_output_tokens: echo.max_output_tokens,
            metadata: NoMetadata {},
            model: &envelope.model,
            object: "response",
            output,
            parallel_tool_calls: true,
            previous_response_id: echo.previous_response_id.as_deref(),
            reasoning: ReasoningConfig { effort: (), summary: () },
            status,
            store: echo.store,
            temperature: echo.temperature,
            text: TextConfig { format: TextFormat { r#type: "text" } },
            tool_choice: "auto",
            tools: &echo.tools,
            top_p: echo.top_p,
            truncation: "disabled",
            usage,
            user: (),
        }
    }
}

/// A stream event: `type` and `sequence_number` with the fields of its kind (the others are left out). One struct
/// for every kind, whose fields together are in sorted order, keeps each kind's fields sorted too.
#[derive(Serialize, Default)]
pub(super) struct Event<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) arguments: Option<&'a str>,
    /// An `error` event's code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) code: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) content_index: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) delta: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) item: Option<&'a OutputItem<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) item_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) logprobs: Option<EmptyList>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) output_index: Option<usize>,
    /// An `error` event's `param`, always `null` (`Some(())`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) param: Option<Null>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) part: Option<Part<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) refusal: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) response: Option<&'a ResponseObject<'a>>,
    pub(super) sequence_number: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) summary_index: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) text: Option<&'a str>,
    pub(super) r#type: &'a str,
}

impl<'a> Event<'a> {
    /// An event of kind `kind` with none of its fields yet.
    pub(super) fn of(kind: &'a str) -> Event<'a> {
        Event { r#type: kind, ..Event::default() }
    }
}
