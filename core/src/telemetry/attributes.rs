//! A mocked call as a span: its name and attributes, from its journal entry (OpenTelemetry's GenAI semantic
//! conventions, plus `cuecard.*` for what only a mock knows: the test, the route and step, the outcome).

use crate::journal::{JournalEntry, Outcome};
use opentelemetry::{Array, KeyValue, StringValue, Value};

/// What the server knows of a call that its journal entry does not say.
#[derive(Clone, Debug)]
pub(crate) struct CallFacts {
    /// `POST`, ...
    pub method: String,
    /// The path it was answered on, without a test's `/t/{id}` prefix.
    pub path: String,
    /// The test it belongs to (`/t/{id}/` or `x-cuecard-test`), if any.
    pub test: Option<String>,
}

/// A span's name, attributes and error description (for a failed call).
#[derive(Debug)]
pub(crate) struct Described {
    pub name: String,
    pub attributes: Vec<KeyValue>,
    pub error: Option<String>,
}

/// `gen_ai.provider.name` of an endpoint (the names the conventions list; Ollama is not listed and is `ollama`).
fn provider(endpoint: &str, path: &str) -> &'static str {
    match endpoint {
        "chat_completions" | "responses" | "embeddings" | "models" if path.starts_with("/openai/") => "azure.ai.openai",
        "chat_completions" | "completions" | "responses" | "embeddings" | "models" | "moderations" | "images"
        | "speech" | "transcriptions" | "translations" => "openai",
        "messages" if path.contains("/publishers/anthropic/") => "gcp.vertex_ai",
        "messages" => "anthropic",
        "cohere_chat" => "cohere",
        e if e.starts_with("gemini") && path.contains("/publishers/") => "gcp.vertex_ai",
        e if e.starts_with("gemini") => "gcp.gemini",
        e if e.starts_with("bedrock") => "aws.bedrock",
        e if e.starts_with("ollama") => "ollama",
        _ => "cuecard",
    }
}

/// `gen_ai.operation.name` of an endpoint.
fn operation(endpoint: &str) -> &'static str {
    match endpoint {
        "gemini_generate" => "generate_content",
        "ollama_generate" | "completions" => "text_completion",
        "embeddings" | "gemini_embed" | "ollama_embed" => "embeddings",
        // Not named by the conventions: the endpoint's own name.
        "moderations" => "moderations",
        "images" => "images",
        "speech" => "speech",
        "transcriptions" => "transcriptions",
        "translations" => "translations",
        _ => "chat",
    }
}

/// The outcome's name as the journal writes it (`answered`, `failed`, `exhausted`, ...).
fn outcome_name(outcome: &Outcome) -> String {
    match serde_json::to_value(outcome) {
        Ok(serde_json::Value::Object(fields)) => {
            fields.get("outcome").and_then(|o| o.as_str()).unwrap_or("unknown").to_string()
        }
        Ok(serde_json::Value::String(name)) => name,
        _ => "unknown".to_string(),
    }
}

fn int(value: impl TryInto<i64>) -> Value {
    Value::I64(value.try_into().unwrap_or(i64::MAX))
}

/// The span of a journaled call answered with `status`.
pub(crate) fn describe(entry: &JournalEntry, facts: &CallFacts, status: u16) -> Described {
    let request = &entry.request;
    let endpoint = request.metadata.endpoint.as_deref().unwrap_or("");
    let operation_name = operation(endpoint);
    let mut attributes = vec![
        KeyValue::new("gen_ai.operation.name", operation_name),
        KeyValue::new("gen_ai.provider.name", provider(endpoint, &facts.path)),
        KeyValue::new("gen_ai.request.model", request.model.clone()),
        KeyValue::new("http.request.method", facts.method.clone()),
        KeyValue::new("http.response.status_code", int(status)),
        KeyValue::new("url.path", facts.path.clone()),
        KeyValue::new("cuecard.endpoint", endpoint.to_string()),
        KeyValue::new("cuecard.journal.index", int(entry.index)),
        KeyValue::new("cuecard.outcome", outcome_name(&entry.outcome)),
    ];
    let mut optional = |key: &'static str, value: Option<Value>| {
        if let Some(value) = value {
            attributes.push(KeyValue::new(key, value));
        }
    };
    optional("cuecard.test.id", facts.test.clone().map(Value::from));
    optional("cuecard.operation", request.metadata.operation.clone().map(Value::from));
    optional("cuecard.route", entry.route.map(int));
    optional("cuecard.step", entry.step.map(int));
    optional("gen_ai.request.max_tokens", request.max_tokens.map(int));
    optional("gen_ai.request.temperature", request.temperature.map(Value::F64));
    if let Some(response) = &entry.response {
        optional("gen_ai.response.id", response.id.clone().map(Value::from));
        optional("gen_ai.response.model", response.model.clone().map(Value::from));
        let finish = response.finish_reason.and_then(|f| serde_json::to_value(f).ok());
        let finish = finish.as_ref().and_then(|f| f.as_str()).map(|f| StringValue::from(f.to_string()));
        optional("gen_ai.response.finish_reasons", finish.map(|f| Value::Array(Array::String(vec![f]))));
        if let Some(usage) = &response.usage {
            optional("gen_ai.usage.input_tokens", Some(int(usage.input_tokens)));
            optional("gen_ai.usage.output_tokens", Some(int(usage.output_tokens)));
        }
    }
    let error = match (&entry.error, &entry.outcome) {
        (Some(error), _) => {
            let kind = serde_json::to_value(error.kind).ok().and_then(|k| k.as_str().map(str::to_string));
            let kind = kind.unwrap_or_else(|| "provider_error".to_string());
            optional("error.type", Some(Value::from(kind.clone())));
            optional("cuecard.failure.kind", Some(Value::from(kind)));
            Some(error.message.clone())
        }
        (None, Outcome::Answered) if status < 400 => None,
        (None, outcome) => {
            let name = outcome_name(outcome);
            optional("error.type", Some(Value::from(name.clone())));
            Some(format!("{name} (HTTP {status})"))
        }
    };
    if entry.left_mid_stream {
        optional("cuecard.left_mid_stream", Some(Value::Bool(true)));
    }
    Described { name: format!("{operation_name} {}", request.model), attributes, error }
}
