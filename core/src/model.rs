//! The provider-neutral data model: what a request to "the model" carries and what the model answers.
//!
//! Every wire protocol decodes into [`ChatRequest`] and encodes from [`ChatResponse`]; every binding converts
//! these types. They are plain serde data and round-trip through JSON.

use crate::error::{Error, ErrorKind};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Instructions from the application.
    System,
    /// Instructions from the developer (OpenAI's newer name for system).
    Developer,
    /// The user.
    User,
    /// The model.
    Assistant,
    /// The result of a tool call.
    Tool,
}

impl Role {
    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One part of a message's content.
///
/// Images, audio and files are boxed: a text part, by far the most common, is then 24 bytes instead of 120, and a
/// journal keeps one copy of every part of every request.
///
/// In JSON an object tagged by `type` (`{"type": "text", "text": "Hi"}`), read by [`content_part`] rather than
/// serde's internally tagged derive, which buffered every part into a tree before reading it again.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image by URL or inline base64 data.
    Image(Box<ImagePart>),
    /// Audio, inline.
    Audio(Box<AudioPart>),
    /// A file or document, by id, URL or inline data.
    File(Box<FilePart>),
}

impl<'de> Deserialize<'de> for ContentPart {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ContentPart, D::Error> {
        deserializer.deserialize_map(content_part::PartVisitor)
    }
}

/// A content part read in one pass: every field of every kind of part is a string, so the fields are read as
/// they come (in any order, `type` included) and the part is built once `type` says which fields it may have.
/// Unknown fields, duplicates, a missing `type` or a missing required field are refused as the derive did.
mod content_part {
    use super::{AudioPart, ContentPart, FilePart, ImagePart};
    use serde::de::{self, MapAccess, Visitor};

    const KINDS: &[&str] = &["text", "image", "audio", "file"];
    const FIELDS: &[&str] = &["type", "text", "url", "data", "media_type", "detail", "format", "file_id", "filename"];

    /// A field of some kind of part.
    #[derive(Clone, Copy, PartialEq)]
    enum Field {
        Type,
        Text,
        Url,
        Data,
        MediaType,
        Detail,
        Format,
        FileId,
        Filename,
    }

    impl Field {
        /// Every field but `type`, in the order [`FIELDS`] names them.
        const CONTENT: [Field; 8] = [
            Field::Text,
            Field::Url,
            Field::Data,
            Field::MediaType,
            Field::Detail,
            Field::Format,
            Field::FileId,
            Field::Filename,
        ];

        fn of(name: &str) -> Option<Field> {
            Some(match name {
                "type" => Field::Type,
                "text" => Field::Text,
                "url" => Field::Url,
                "data" => Field::Data,
                "media_type" => Field::MediaType,
                "detail" => Field::Detail,
                "format" => Field::Format,
                "file_id" => Field::FileId,
                "filename" => Field::Filename,
                _ => return None,
            })
        }

        fn name(self) -> &'static str {
            match self {
                Field::Type => "type",
                Field::Text => "text",
                Field::Url => "url",
                Field::Data => "data",
                Field::MediaType => "media_type",
                Field::Detail => "detail",
                Field::Format => "format",
                Field::FileId => "file_id",
                Field::Filename => "filename",
            }
        }
    }

    /// Each field as given: absent (`None`), `null` (`Some(None)`) or a string.
    #[derive(Default)]
    struct Fields {
        kind: Option<Option<String>>,
        text: Option<Option<String>>,
        url: Option<Option<String>>,
        data: Option<Option<String>>,
        media_type: Option<Option<String>>,
        detail: Option<Option<String>>,
        format: Option<Option<String>>,
        file_id: Option<Option<String>>,
        filename: Option<Option<String>>,
    }

    impl Fields {
        fn slot(&mut self, field: Field) -> &mut Option<Option<String>> {
            match field {
                Field::Type => &mut self.kind,
                Field::Text => &mut self.text,
                Field::Url => &mut self.url,
                Field::Data => &mut self.data,
                Field::MediaType => &mut self.media_type,
                Field::Detail => &mut self.detail,
                Field::Format => &mut self.format,
                Field::FileId => &mut self.file_id,
                Field::Filename => &mut self.filename,
            }
        }

        /// An optional field: absent or `null` is `None`.
        fn optional(&mut self, field: Field) -> Option<String> {
            self.slot(field).take().flatten()
        }

        /// A required string.
        fn required<E: de::Error>(&mut self, field: Field) -> Result<String, E> {
            match self.slot(field).take() {
                Some(Some(text)) => Ok(text),
                Some(None) => Err(E::invalid_type(de::Unexpected::Unit, &"a string")),
                None => Err(E::missing_field(field.name())),
            }
        }

        /// Refuses a field the kind of part does not have (`allowed`: their names, for the message).
        fn only<E: de::Error>(&mut self, fields: &[Field], allowed: &'static [&'static str]) -> Result<(), E> {
            match Field::CONTENT.into_iter().find(|field| !fields.contains(field) && self.slot(*field).is_some()) {
                Some(field) => Err(E::unknown_field(field.name(), allowed)),
                None => Ok(()),
            }
        }
    }

    /// A key, read without copying it.
    impl<'de> de::Deserialize<'de> for Field {
        fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Field, D::Error> {
            deserializer.deserialize_identifier(FieldVisitor)
        }
    }

    struct FieldVisitor;

    impl Visitor<'_> for FieldVisitor {
        type Value = Field;

        fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            formatter.write_str("a field of a content part")
        }

        fn visit_str<E: de::Error>(self, key: &str) -> Result<Field, E> {
            Field::of(key).ok_or_else(|| E::unknown_field(key, FIELDS))
        }
    }

    pub(super) struct PartVisitor;

    impl<'de> Visitor<'de> for PartVisitor {
        type Value = ContentPart;

        fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            formatter.write_str("a content part ({\"type\": \"text\"|\"image\"|\"audio\"|\"file\", ...})")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ContentPart, A::Error> {
            let mut fields = Fields::default();
            while let Some(field) = map.next_key::<Field>()? {
                if fields.slot(field).is_some() {
                    return Err(de::Error::custom(format_args!("duplicate field `{}`", field.name())));
                }
                *fields.slot(field) = Some(map.next_value::<Option<String>>()?);
            }
            let kind = match fields.kind.take() {
                Some(Some(kind)) => kind,
                Some(None) => return Err(de::Error::invalid_type(de::Unexpected::Unit, &"a part type")),
                None => return Err(de::Error::missing_field("type")),
            };
            match kind.as_str() {
                "text" => {
                    fields.only(&[Field::Text], &["text"])?;
                    Ok(ContentPart::Text { text: fields.required(Field::Text)? })
                }
                "image" => {
                    fields.only(
                        &[Field::Url, Field::Data, Field::MediaType, Field::Detail],
                        &["url", "data", "media_type", "detail"],
                    )?;
                    Ok(ContentPart::Image(Box::new(ImagePart {
                        url: fields.optional(Field::Url),
                        data: fields.optional(Field::Data),
                        media_type: fields.optional(Field::MediaType),
                        detail: fields.optional(Field::Detail),
                    })))
                }
                "audio" => {
                    fields.only(&[Field::Data, Field::Format], &["data", "format"])?;
                    let data = fields.required(Field::Data)?;
                    Ok(ContentPart::Audio(Box::new(AudioPart { data, format: fields.required(Field::Format)? })))
                }
                "file" => {
                    let allowed = &["file_id", "url", "data", "media_type", "filename"];
                    fields
                        .only(&[Field::FileId, Field::Url, Field::Data, Field::MediaType, Field::Filename], allowed)?;
                    Ok(ContentPart::File(Box::new(FilePart {
                        file_id: fields.optional(Field::FileId),
                        url: fields.optional(Field::Url),
                        data: fields.optional(Field::Data),
                        media_type: fields.optional(Field::MediaType),
                        filename: fields.optional(Field::Filename),
                    })))
                }
                other => Err(de::Error::unknown_variant(other, KINDS)),
            }
        }
    }
}

/// An image by URL or inline base64 data ([`ContentPart::Image`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImagePart {
    /// A URL (including `data:` URLs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Base64 data, when not given by URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// The media type of `data` (`image/png`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// OpenAI's detail hint (`low`, `high`, `auto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Inline audio ([`ContentPart::Audio`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AudioPart {
    /// Base64 data.
    pub data: String,
    /// The format (`wav`, `mp3`, ...).
    pub format: String,
}

/// A file or document, by id, URL or inline data ([`ContentPart::File`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilePart {
    /// Provider file id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_id: Option<String>,
    /// URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Base64 data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// Media type of the data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// File name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
}

/// A tool call made by the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The call id (`call_1`, ...). Empty means "not yet assigned": the mock fills it.
    #[serde(default)]
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as raw JSON text, exactly as the model produced them (possibly invalid JSON).
    pub arguments: String,
}

/// A message of a conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its content parts. In JSON a plain string is accepted as one text part.
    #[serde(default, deserialize_with = "content_from_string_or_parts", skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ContentPart>,
    /// Reasoning text of an assistant message replayed into the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// Tool calls of an assistant message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool message: the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Optional author or tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A message's content: a string (one text part), an array of parts, or null (none).
///
/// A visitor of its own rather than an untagged enum: the enum buffered every part and tried the string first,
/// building an error for every array (5.3k of the 9k instructions a two-message request took to read), and it
/// replaced what was wrong inside a part with a generic message. Now a bad part names its own path and problem
/// (`messages[1].content[0]: unknown variant ...`).
fn content_from_string_or_parts<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<ContentPart>, D::Error> {
    struct StringOrParts;

    impl<'de> serde::de::Visitor<'de> for StringOrParts {
        type Value = Vec<ContentPart>;

        fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            formatter.write_str(
                "a string or an array of content parts ({\"type\": \"text\"|\"image\"|\"audio\"|\"file\", ...})",
            )
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Self::Value, E> {
            Ok(vec![ContentPart::Text { text: text.to_owned() }])
        }

        fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Self::Value, E> {
            Ok(vec![ContentPart::Text { text }])
        }

        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }

        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut parts: A) -> Result<Self::Value, A::Error> {
            // At most a small reservation from the hint: the hint is the host's claim, not memory already spent.
            let mut read = Vec::with_capacity(parts.size_hint().unwrap_or(0).min(16));
            while let Some(part) = parts.next_element()? {
                read.push(part);
            }
            Ok(read)
        }
    }

    deserializer.deserialize_any(StringOrParts)
}

impl Message {
    fn with_text(role: Role, text: impl Into<String>) -> Message {
        Message {
            role,
            content: vec![ContentPart::Text { text: text.into() }],
            thinking: None,
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
        }
    }

    /// A system message.
    pub fn system(text: impl Into<String>) -> Message {
        Message::with_text(Role::System, text)
    }

    /// A user message.
    pub fn user(text: impl Into<String>) -> Message {
        Message::with_text(Role::User, text)
    }

    /// An assistant message with text.
    pub fn assistant(text: impl Into<String>) -> Message {
        Message::with_text(Role::Assistant, text)
    }

    /// An assistant message that calls tools.
    pub fn assistant_tool_calls(tool_calls: Vec<ToolCall>) -> Message {
        Message { tool_calls, ..Message::with_text(Role::Assistant, "") }.without_empty_text()
    }

    /// A tool result answering the call `tool_call_id`.
    pub fn tool_result(tool_call_id: impl Into<String>, content: impl Into<String>) -> Message {
        Message { tool_call_id: Some(tool_call_id.into()), ..Message::with_text(Role::Tool, content) }
    }

    fn without_empty_text(mut self) -> Message {
        self.content.retain(|part| !matches!(part, ContentPart::Text { text } if text.is_empty()));
        self
    }

    /// The text parts joined (no separator): what a text-only reader sees.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for part in &self.content {
            if let ContentPart::Text { text } = part {
                out.push_str(text);
            }
        }
        out
    }
}

/// A tool the request offers to the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolDefinition {
    /// The tool's name.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of its arguments.
    #[serde(default = "empty_object_schema")]
    pub parameters: Value,
}

fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}

/// Whether and which tool the model must call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// This tool.
    Tool {
        /// The tool's name.
        name: String,
    },
}

/// The shape the answer must have.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ResponseFormat {
    /// Free text.
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON matching a schema.
    JsonSchema {
        /// The schema's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// The JSON Schema.
        schema: Value,
        /// Strict mode.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strict: Option<bool>,
    },
}

/// Facts about a request that are not part of the conversation: how to route it and where it came from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestMetadata {
    /// The operation (method, use case) the code under test calls the model for; the main routing key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// The endpoint it arrived on (`chat_completions`, `responses`, `messages`), set by the wire server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Anything else (user ids, tags), kept as given.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Value>,
}

/// A request to the model, independent of any provider's wire format.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatRequest {
    /// The requested model name.
    #[serde(default)]
    pub model: String,
    /// The conversation.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// Tools offered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolDefinition>,
    /// Tool choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Required answer format. Boxed: few requests have one, and a journal keeps every request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<Box<ResponseFormat>>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Maximum output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// Sampling seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// Whether the caller asked for a stream.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
    /// Routing and origin facts.
    #[serde(default, skip_serializing_if = "metadata_is_empty")]
    pub metadata: RequestMetadata,
}

fn invalid_request(path: String, problem: &str) -> Error {
    let at = if path == "." { "the top level".to_string() } else { path };
    Error::new(ErrorKind::InvalidRequest, format!("invalid request at {at}: {problem}"))
}

fn metadata_is_empty(metadata: &RequestMetadata) -> bool {
    metadata == &RequestMetadata::default()
}

impl ChatRequest {
    /// A request for `model` with `messages`.
    pub fn new(model: impl Into<String>, messages: Vec<Message>) -> ChatRequest {
        ChatRequest { model: model.into(), messages, ..ChatRequest::default() }
    }

    /// A request with one user message.
    pub fn user(model: impl Into<String>, text: impl Into<String>) -> ChatRequest {
        ChatRequest::new(model, vec![Message::user(text)])
    }

    /// Sets the operation name (the routing key).
    pub fn with_operation(mut self, operation: impl Into<String>) -> ChatRequest {
        self.metadata.operation = Some(operation.into());
        self
    }

    /// Adds an offered tool.
    pub fn with_tool(mut self, tool: ToolDefinition) -> ChatRequest {
        self.tools.push(tool);
        self
    }

    /// Parses a request from JSON, naming the path of the first offending field.
    pub fn from_json(json: &str) -> crate::error::Result<ChatRequest> {
        let value: Value = serde_json::from_str(json).map_err(|e| invalid_request(".".into(), &e.to_string()))?;
        ChatRequest::from_value(value)
    }

    /// Reads a request from JSON data (a Python dict, a JS object), naming the path of the first offending field.
    pub fn from_value(value: serde_json::Value) -> crate::error::Result<ChatRequest> {
        crate::input::deserialize_data(&value).map_err(|e| invalid_request(e.path, &e.message))
    }

    /// The operation name, if any.
    pub fn operation(&self) -> Option<&str> {
        self.metadata.operation.as_deref()
    }

    /// The last message written by the user, if any.
    pub fn last_user_message(&self) -> Option<&Message> {
        self.messages.iter().rev().find(|m| m.role == Role::User)
    }

    /// The system (or developer) messages' text, joined with newlines.
    pub fn system_text(&self) -> Option<String> {
        let texts: Vec<String> = self
            .messages
            .iter()
            .filter(|m| matches!(m.role, Role::System | Role::Developer))
            .map(Message::text)
            .collect();
        (!texts.is_empty()).then(|| texts.join("\n"))
    }
}

/// Why the model stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural end.
    Stop,
    /// The token limit was reached.
    Length,
    /// The answer calls tools.
    ToolCalls,
    /// The content filter stopped it.
    ContentFilter,
    /// The model refused: its text is a refusal (OpenAI's `refusal` field and parts, Anthropic's `refusal` stop).
    Refusal,
    /// Anything else.
    Other,
}

impl FinishReason {
    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Refusal => "refusal",
            FinishReason::Other => "other",
        }
    }
}

/// Token usage of one answer. As data, `total_tokens` may be left out: it is then the sum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "UsageData")]
pub struct Usage {
    /// Tokens read.
    pub input_tokens: u64,
    /// Tokens written.
    pub output_tokens: u64,
    /// Their sum, unless given otherwise.
    pub total_tokens: u64,
    /// Input tokens served from a prompt cache, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
}

/// The data form of [`Usage`], whose total is optional.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UsageData {
    input_tokens: u64,
    output_tokens: u64,
    #[serde(default)]
    total_tokens: Option<u64>,
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl From<UsageData> for Usage {
    fn from(data: UsageData) -> Usage {
        let mut usage = Usage::new(data.input_tokens, data.output_tokens);
        usage.total_tokens = data.total_tokens.unwrap_or(usage.total_tokens);
        usage.cached_tokens = data.cached_tokens;
        usage
    }
}

impl Usage {
    /// Usage with `total = input + output`.
    pub fn new(input_tokens: u64, output_tokens: u64) -> Usage {
        Usage {
            input_tokens,
            output_tokens,
            total_tokens: input_tokens.saturating_add(output_tokens),
            cached_tokens: None,
        }
    }
}

/// What the model said: text, reasoning and tool calls.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssistantMessage {
    /// The text, or `None` when the model wrote no text (which is not the same as `""`).
    #[serde(default)]
    pub text: Option<String>,
    /// The reasoning, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// Tool calls, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
}

/// The whole answer to one request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatResponse {
    /// Response id (`chatcmpl-1`, ...), from the mock's counter unless a scripted response gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The model that answered (the request's model unless a scripted response says otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Creation time in Unix seconds, from the mock's clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<u64>,
    /// The message.
    pub message: AssistantMessage,
    /// Why it stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<FinishReason>,
    /// Token usage, when the mock reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

impl ChatResponse {
    /// The text, or `""` when there is none.
    pub fn text(&self) -> &str {
        self.message.text.as_deref().unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxed_content_parts_keep_their_flat_json_and_refuse_unknown_fields() {
        let parts = serde_json::json!([
            {"type": "image", "url": "https://example.com/cat.png", "detail": "low"},
            {"type": "audio", "data": "AAAA", "format": "wav"},
            {"type": "file", "file_id": "file_1", "filename": "a.pdf"},
            {"type": "text", "text": "hi"}
        ]);
        let parsed: Vec<ContentPart> = serde_json::from_value(parts.clone()).unwrap();
        let image = ImagePart {
            url: Some("https://example.com/cat.png".into()),
            detail: Some("low".into()),
            ..ImagePart::default()
        };
        assert_eq!(parsed[0], ContentPart::Image(Box::new(image)));
        assert_eq!(parsed[1], ContentPart::Audio(Box::new(AudioPart { data: "AAAA".into(), format: "wav".into() })));
        assert_eq!(serde_json::to_value(&parsed).unwrap(), parts);
        let unknown = serde_json::json!({"type": "image", "url": "x", "size": 3});
        let error = serde_json::from_value::<ContentPart>(unknown).unwrap_err().to_string();
        assert!(error.contains("unknown field `size`"), "{error}");
        let text_part = std::mem::size_of::<String>();
        assert!(std::mem::size_of::<ContentPart>() <= text_part + 8, "a text part stays small");
    }

    #[test]
    fn a_full_request_round_trips_through_json() {
        let json = serde_json::json!({
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image", "url": "https://example.com/cat.png", "detail": "low"}
                ]},
                {"role": "assistant", "tool_calls": [{"id": "call_1", "name": "look", "arguments": "{\"x\":1}"}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "a cat"}
            ],
            "tools": [{"name": "look", "description": "Look", "parameters": {"type": "object"}}],
            "tool_choice": {"tool": {"name": "look"}},
            "response_format": {"type": "json_schema", "name": "answer", "schema": {"type": "object"}, "strict": true},
            "temperature": 0.5, "max_tokens": 100, "stop": ["\n\n"], "seed": 7, "stream": true,
            "metadata": {"operation": "describe", "extra": {"user": "u1"}}
        });
        let request: ChatRequest = serde_json::from_value(json).unwrap();
        assert_eq!(request.operation(), Some("describe"));
        assert_eq!(request.messages[3].text(), "a cat");
        assert_eq!(request.system_text().as_deref(), Some("Be brief."));
        let again: ChatRequest = serde_json::from_value(serde_json::to_value(&request).unwrap()).unwrap();
        assert_eq!(again, request);
    }

    #[test]
    fn unknown_fields_are_rejected_with_their_path() {
        let err = ChatRequest::from_json(r#"{"model":"m","messages":[{"role":"user","contnt":"hi"}]}"#).unwrap_err();
        assert_eq!(err.code(), "invalid_request");
        assert!(err.message().contains("messages[0]"), "{}", err.message());
        assert!(err.message().contains("contnt"), "{}", err.message());
    }

    #[test]
    fn content_is_a_string_parts_or_null_and_a_bad_part_names_its_own_path() {
        let request = ChatRequest::from_json(
            r#"{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"text":"Hi","type":"text"}]},
            {"role":"assistant","content":null,"tool_calls":[{"name":"f","arguments":"{}"}]},{"role":"user"}]}"#,
        )
        .unwrap();
        assert_eq!(request.messages[0].content, vec![ContentPart::Text { text: "Be brief.".into() }]);
        assert_eq!(request.messages[1].content, vec![ContentPart::Text { text: "Hi".into() }]);
        assert!(request.messages[2].content.is_empty() && request.messages[3].content.is_empty());

        let bad_part = r#"{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"video"}]}]}"#;
        let message = ChatRequest::from_json(bad_part).unwrap_err().message().to_string();
        assert!(message.starts_with("invalid request at messages[0].content[1]: unknown variant `video`"), "{message}");
        let missing = r#"{"messages":[{"role":"user","content":[{"type":"text"}]}]}"#;
        let message = ChatRequest::from_json(missing).unwrap_err().message().to_string();
        assert_eq!(message, "invalid request at messages[0].content[0]: missing field `text`");
        let part = |json: &str| -> Result<ContentPart, String> {
            crate::input::deserialize_data::<ContentPart>(&serde_json::from_str(json).unwrap()).map_err(|e| e.message)
        };
        assert_eq!(part(r#"{"text": "a", "type": "text"}"#), Ok(ContentPart::Text { text: "a".into() }));
        let image = ImagePart { url: Some("u".into()), ..ImagePart::default() };
        assert_eq!(part(r#"{"detail": null, "url": "u", "type": "image"}"#), Ok(ContentPart::Image(Box::new(image))));
        let refused = [
            (r#"{"type": "text"}"#, "missing field `text`"),
            (r#"{"type": "text", "text": null}"#, "invalid type: null, expected a string"),
            (r#"{"text": "a"}"#, "missing field `type`"),
            (r#"{"type": "text", "text": "a", "url": "u"}"#, "unknown field `url`, expected `text`"),
            (r#"{"type": "audio", "data": "AA"}"#, "missing field `format`"),
            (r#"{"type": "image", "size": 3}"#, "unknown field `size`"),
            (r#"{"type": "text", "text": 5}"#, "invalid type: integer `5`, expected a string"),
            (r#"["text", "a"]"#, "invalid type: sequence, expected a content part"),
        ];
        for (json, problem) in refused {
            let error = part(json).unwrap_err();
            assert!(error.starts_with(problem), "{json}: {error}");
        }
        let twice = part(r#"{"type": "text", "text": "a", "type": "text"}"#);
        assert!(serde_json::from_str::<ContentPart>(r#"{"type": "text", "text": "a", "type": "text"}"#)
            .unwrap_err()
            .to_string()
            .starts_with("duplicate field `type`"));
        assert_eq!(twice, Ok(ContentPart::Text { text: "a".into() }), "a Value keeps the last of duplicate keys");

        let number = r#"{"messages":[{"role":"user","content":5}]}"#;
        let message = ChatRequest::from_json(number).unwrap_err().message().to_string();
        assert!(message.starts_with("invalid request at messages[0].content: invalid type: integer `5`, expected a string or an array of content parts"), "{message}");
    }
    #[test]
    fn a_response_round_trips_and_keeps_no_text_distinct_from_empty_text() {
        let response = ChatResponse {
            id: Some("chatcmpl-1".into()),
            model: Some("m".into()),
            created: Some(1),
            message: AssistantMessage { text: None, thinking: None, tool_calls: vec![] },
            finish_reason: Some(FinishReason::Stop),
            usage: Some(Usage::new(3, 4)),
        };
        let json = serde_json::to_string(&response).unwrap();
        assert!(json.contains("\"text\":null"));
        assert_eq!(serde_json::from_str::<ChatResponse>(&json).unwrap(), response);
    }
}
