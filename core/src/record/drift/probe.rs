//! The request drift sends cuecard for a recorded exchange: the recorded endpoint, streamed or not as recorded,
//! asking what the recorded request asked (its model and its last user text). A recording keeps the request in
//! its neutral form only, and the shape of a reply does not depend on the rest.

use crate::http::HttpRequest;
use crate::model::ChatRequest;
use serde_json::{json, Value};

/// The request for `endpoint`, or `None` for an endpoint drift has no request form for.
pub(super) fn request(endpoint: &str, stream: bool, asked: &ChatRequest) -> Option<HttpRequest> {
    let model = if asked.model.is_empty() { "model" } else { asked.model.as_str() };
    let text = asked.last_user_message().map(crate::model::Message::text).filter(|t| !t.is_empty());
    let text = text.unwrap_or_else(|| "Hello".to_string());
    let chat = json!([{"role": "user", "content": text}]);
    let encoded = |segment: &str| segment.replace(':', "%3A").replace('/', "%2F");
    let (path, body): (String, Value) = match endpoint {
        "chat_completions" => {
            ("/v1/chat/completions".into(), json!({"model": model, "messages": chat, "stream": stream}))
        }
        "completions" => ("/v1/completions".into(), json!({"model": model, "prompt": text, "stream": stream})),
        "responses" => ("/v1/responses".into(), json!({"model": model, "input": text, "stream": stream})),
        "messages" => {
            ("/v1/messages".into(), json!({"model": model, "max_tokens": 1024, "messages": chat, "stream": stream}))
        }
        "cohere_chat" => ("/v2/chat".into(), json!({"model": model, "messages": chat, "stream": stream})),
        "ollama_chat" => ("/api/chat".into(), json!({"model": model, "messages": chat, "stream": stream})),
        "ollama_generate" => ("/api/generate".into(), json!({"model": model, "prompt": text, "stream": stream})),
        "gemini_generate" => {
            let verb = if stream { "streamGenerateContent?alt=sse" } else { "generateContent" };
            let contents = json!([{"role": "user", "parts": [{"text": text}]}]);
            (format!("/v1beta/models/{}:{verb}", encoded(model)), json!({"contents": contents}))
        }
        "bedrock_converse" => {
            let verb = if stream { "converse-stream" } else { "converse" };
            let messages = json!([{"role": "user", "content": [{"text": text}]}]);
            (format!("/model/{}/{verb}", encoded(model)), json!({"messages": messages}))
        }
        "bedrock_invoke" => {
            let verb = if stream { "invoke-with-response-stream" } else { "invoke" };
            let body = json!({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 1024, "messages": chat});
            (format!("/model/{}/{verb}", encoded(model)), body)
        }
        _ => return None,
    };
    let request = HttpRequest::post_json(&path, &body.to_string());
    Some(if endpoint == "messages" { request.with_header("anthropic-version", "2023-06-01") } else { request })
}
