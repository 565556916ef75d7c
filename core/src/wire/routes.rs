//! The protocol table: which method and path pattern is which protocol's endpoint. `wire::handle` dispatches from
//! it and holds no protocol's rules; a new protocol is its module plus its rows here.
//!
//! A pattern is a path of `/`-separated segments, each one of:
//! - a literal (`chat`);
//! - `[v1]`: a literal that may be left out (`/chat/completions` is served with and without `/v1`);
//! - `{model}`: any one segment, percent-decoded, taken as the request's model (Gemini's model, Azure's
//!   deployment); `{_}`: any one segment, not kept;
//! - `{model}:verb`: a segment ending in `:verb` (or `%3Averb`), the part before it taken as the model.
//!
//! Rows are tried in order and the first that matches answers; a row may add a condition on the request
//! (`when`), so that `GET /v1/models` from a Google SDK lists Gemini models and from anyone else OpenAI's.

use super::{
    anthropic, batches, bedrock, cohere, gemini, ollama, openai_audio, openai_chat, openai_completions, openai_images,
    openai_moderations, openai_responses, served, HttpReply, HttpRequest,
};
use crate::mock::pending::Turn;
use crate::mock::MockModel;
use crate::model::ChatRequest;

/// What a row's answer is given: the row, and the model its path named.
pub(crate) struct Matched {
    /// The endpoint name (`chat_completions`, `gemini_generate`, ...): journaled as `metadata.endpoint`, and what
    /// `routes[].match.endpoint` matches.
    pub endpoint: &'static str,
    /// The model (or Azure deployment) the path names; it replaces the body's.
    pub model: Option<String>,
    /// Whether the path itself asks for a stream (Gemini's `:streamGenerateContent`), whatever the body says.
    pub stream: Option<bool>,
}

type Answer = fn(&MockModel, &HttpRequest, &Matched) -> Turn<HttpReply>;

/// One row of the table.
pub(crate) struct Route {
    method: &'static str,
    pattern: &'static str,
    endpoint: &'static str,
    stream: Option<bool>,
    when: Option<Client>,
    answer: Answer,
    decode: Option<Decode>,
}

/// A chat row's request as the neutral request, or what is wrong with it.
type Decode = fn(&HttpRequest, &Matched) -> Result<ChatRequest, String>;

const fn row(method: &'static str, pattern: &'static str, endpoint: &'static str, answer: Answer) -> Route {
    Route { method, pattern, endpoint, stream: None, when: None, answer, decode: None }
}

/// OpenAI's stored responses (retrieve, cancel, delete, input items).
fn stored(mock: &MockModel, request: &HttpRequest, matched: &Matched) -> HttpReply {
    openai_responses::stored::answer(mock, request, matched)
}

/// A request from one of Google's SDKs (they send `x-goog-api-key` or `x-goog-api-client`); they share
/// `GET /v1/models` with OpenAI's.
fn from_google(request: &HttpRequest) -> bool {
    request.header("x-goog-api-client").is_some() || request.header("x-goog-api-key").is_some()
}

/// Which clients a row answers, when not every one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Client {
    /// Google's SDKs only.
    Google,
    /// Every client but Google's SDKs.
    NotGoogle,
}

impl Client {
    /// Whether `request` came from such a client.
    fn sent(self, request: &HttpRequest) -> bool {
        from_google(request) == (self == Client::Google)
    }
}

/// A chat protocol's row: answered by `wire::chat`, and decodable to a neutral request alone (what a recorder
/// keeps of a request).
const fn chat_row<P: super::ChatProtocol + 'static>(
    method: &'static str,
    pattern: &'static str,
    endpoint: &'static str,
) -> Route {
    Route { decode: Some(super::decode_http::<P>), ..row(method, pattern, endpoint, super::chat::<P>) }
}

/// A row's answer that is whole at once (no computed step to wait for): `whole!(|mock, request, matched| ...)`.
macro_rules! whole {
    (|$mock:ident, $request:ident, $matched:ident| $body:expr) => {{
        fn answer($mock: &MockModel, $request: &HttpRequest, $matched: &Matched) -> Turn<HttpReply> {
            Turn::Done($body)
        }
        answer as Answer
    }};
}

/// The table. Order matters only where two patterns can match one path (the Gemini model list before OpenAI's).
pub(crate) static ROUTES: &[Route] = &[
    // OpenAI and Anthropic, with and without the /v1 prefix.
    chat_row::<openai_chat::OpenAiChat>("POST", "/[v1]/chat/completions", "chat_completions"),
    chat_row::<openai_responses::OpenAiResponses>("POST", "/[v1]/responses", "responses"),
    chat_row::<openai_completions::OpenAiCompletions>("POST", "/[v1]/completions", "completions"),
    row(
        "GET",
        "/[v1]/responses/{_}",
        "stored_responses",
        whole!(|mock, request, matched| stored(mock, request, matched)),
    ),
    row(
        "DELETE",
        "/[v1]/responses/{_}",
        "stored_responses",
        whole!(|mock, request, matched| stored(mock, request, matched)),
    ),
    row(
        "POST",
        "/[v1]/responses/{_}/cancel",
        "stored_responses",
        whole!(|mock, request, matched| stored(mock, request, matched)),
    ),
    row(
        "GET",
        "/[v1]/responses/{_}/input_items",
        "stored_responses",
        whole!(|mock, request, matched| stored(mock, request, matched)),
    ),
    chat_row::<anthropic::AnthropicMessages>("POST", "/[v1]/messages", "messages"),
    row("POST", "/[v1]/moderations", "moderations", openai_moderations::answer),
    // Files and batches (OpenAI's and Anthropic's), kept per mock.
    row("POST", "/[v1]/files", "files", whole!(|mock, request, matched| batches::upload(mock, request, matched))),
    row("GET", "/[v1]/files", "files", whole!(|mock, request, matched| batches::files(mock, request, matched))),
    row("GET", "/[v1]/files/{_}", "files", whole!(|mock, request, matched| batches::files(mock, request, matched))),
    row("DELETE", "/[v1]/files/{_}", "files", whole!(|mock, request, matched| batches::files(mock, request, matched))),
    row(
        "GET",
        "/[v1]/files/{_}/content",
        "files",
        whole!(|mock, request, matched| batches::files(mock, request, matched)),
    ),
    row(
        "POST",
        "/[v1]/batches",
        "batches",
        whole!(|mock, request, matched| batches::create_batch(mock, request, matched)),
    ),
    row("GET", "/[v1]/batches", "batches", whole!(|mock, request, matched| batches::batches(mock, request, matched))),
    // Gemini's batches are `/v1/batches/{n}` too when its SDK asks on v1: theirs when a Google SDK asks.
    Route {
        when: Some(Client::NotGoogle),
        ..row(
            "GET",
            "/[v1]/batches/{_}",
            "batches",
            whole!(|mock, request, matched| batches::batches(mock, request, matched)),
        )
    },
    row(
        "POST",
        "/[v1]/batches/{_}/cancel",
        "batches",
        whole!(|mock, request, matched| batches::batches(mock, request, matched)),
    ),
    row(
        "POST",
        "/[v1]/messages/batches",
        "message_batches",
        whole!(|mock, request, matched| batches::create_message_batch(mock, request, matched)),
    ),
    row(
        "GET",
        "/[v1]/messages/batches",
        "message_batches",
        whole!(|mock, request, matched| batches::message_batches(mock, request, matched)),
    ),
    row(
        "GET",
        "/[v1]/messages/batches/{_}",
        "message_batches",
        whole!(|mock, request, matched| batches::message_batches(mock, request, matched)),
    ),
    row(
        "DELETE",
        "/[v1]/messages/batches/{_}",
        "message_batches",
        whole!(|mock, request, matched| batches::message_batches(mock, request, matched)),
    ),
    row(
        "GET",
        "/[v1]/messages/batches/{_}/results",
        "message_batches",
        whole!(|mock, request, matched| batches::message_batches(mock, request, matched)),
    ),
    row(
        "POST",
        "/[v1]/messages/batches/{_}/cancel",
        "message_batches",
        whole!(|mock, request, matched| batches::message_batches(mock, request, matched)),
    ),
    row("POST", "/[v1]/images/generations", "images", openai_images::generations),
    row("POST", "/[v1]/images/edits", "images", openai_images::edits),
    row("POST", "/[v1]/images/variations", "images", openai_images::edits),
    row("POST", "/[v1]/audio/speech", "speech", openai_audio::speech),
    row("POST", "/[v1]/audio/transcriptions", "transcriptions", openai_audio::transcription),
    row("POST", "/[v1]/audio/translations", "translations", openai_audio::translation),
    row(
        "POST",
        "/[v1]/messages/count_tokens",
        "anthropic_count_tokens",
        whole!(|mock, request, matched| anthropic::count_tokens(mock, request, matched)),
    ),
    Route {
        when: Some(Client::Google),
        ..row(
            "GET",
            "/v1/models",
            "gemini_models",
            whole!(|mock, request, matched| gemini::models(mock, request, matched)),
        )
    },
    row("GET", "/[v1]/models", "models", whole!(|mock, request, _m| served::models(mock, request))),
    row(
        "POST",
        "/[v1]/embeddings",
        "embeddings",
        whole!(|mock, request, matched| served::embeddings(mock, request, matched)),
    ),
    // Azure OpenAI: deployments (the deployment is the model), the unversioned and the /openai/v1 surfaces.
    chat_row::<openai_chat::AzureChat>("POST", "/openai/deployments/{model}/chat/completions", "chat_completions"),
    chat_row::<openai_responses::OpenAiResponses>("POST", "/openai/deployments/{model}/responses", "responses"),
    row(
        "POST",
        "/openai/deployments/{model}/embeddings",
        "embeddings",
        whole!(|mock, request, matched| served::embeddings(mock, request, matched)),
    ),
    chat_row::<openai_chat::AzureChat>("POST", "/openai/[v1]/chat/completions", "chat_completions"),
    chat_row::<openai_responses::OpenAiResponses>("POST", "/openai/[v1]/responses", "responses"),
    row(
        "POST",
        "/openai/[v1]/embeddings",
        "embeddings",
        whole!(|mock, request, matched| served::embeddings(mock, request, matched)),
    ),
    row("GET", "/openai/[v1]/models", "models", whole!(|mock, request, _m| served::models(mock, request))),
    // Google Gemini (v1, v1beta, v1alpha, and Vertex AI's v1beta1 with or without a project and location).
    chat_row::<gemini::GeminiGenerate>("POST", "/{_}/models/{model}:generateContent", "gemini_generate"),
    Route {
        stream: Some(true),
        ..chat_row::<gemini::GeminiGenerate>("POST", "/{_}/models/{model}:streamGenerateContent", "gemini_generate")
    },
    row(
        "POST",
        "/{_}/models/{model}:countTokens",
        "gemini_count_tokens",
        whole!(|mock, request, matched| gemini::count_tokens(mock, request, matched)),
    ),
    row(
        "POST",
        "/{_}/models/{model}:embedContent",
        "gemini_embed",
        whole!(|mock, request, matched| gemini::embed(mock, request, matched)),
    ),
    row(
        "POST",
        "/{_}/models/{model}:batchEmbedContents",
        "gemini_embed",
        whole!(|mock, request, matched| gemini::embed(mock, request, matched)),
    ),
    chat_row::<gemini::GeminiGenerate>("POST", "/{_}/publishers/{_}/models/{model}:generateContent", "gemini_generate"),
    Route {
        stream: Some(true),
        ..chat_row::<gemini::GeminiGenerate>(
            "POST",
            "/{_}/publishers/{_}/models/{model}:streamGenerateContent",
            "gemini_generate",
        )
    },
    chat_row::<gemini::GeminiGenerate>(
        "POST",
        "/{_}/projects/{_}/locations/{_}/publishers/{_}/models/{model}:generateContent",
        "gemini_generate",
    ),
    Route {
        stream: Some(true),
        ..chat_row::<gemini::GeminiGenerate>(
            "POST",
            "/{_}/projects/{_}/locations/{_}/publishers/{_}/models/{model}:streamGenerateContent",
            "gemini_generate",
        )
    },
    row(
        "POST",
        "/{_}/projects/{_}/locations/{_}/publishers/{_}/models/{model}:countTokens",
        "gemini_count_tokens",
        whole!(|mock, request, matched| gemini::count_tokens(mock, request, matched)),
    ),
    // Claude on Vertex AI: the Messages protocol at Vertex's paths (the count first: its "model" is a verb's).
    row(
        "POST",
        "/{_}/projects/{_}/locations/{_}/publishers/anthropic/models/count-tokens:rawPredict",
        "anthropic_count_tokens",
        whole!(|mock, request, matched| anthropic::count_tokens(mock, request, matched)),
    ),
    chat_row::<anthropic::AnthropicVertex>(
        "POST",
        "/{_}/projects/{_}/locations/{_}/publishers/anthropic/models/{model}:rawPredict",
        "messages",
    ),
    Route {
        stream: Some(true),
        ..chat_row::<anthropic::AnthropicVertex>(
            "POST",
            "/{_}/projects/{_}/locations/{_}/publishers/anthropic/models/{model}:streamRawPredict",
            "messages",
        )
    },
    row(
        "POST",
        "/{_}/models/{model}:batchGenerateContent",
        "gemini_batches",
        whole!(|mock, request, matched| batches::create_gemini_batch(mock, request, matched)),
    ),
    row(
        "GET",
        "/{_}/batches/{_}",
        "gemini_batches",
        whole!(|mock, request, matched| batches::gemini_batches(mock, request, matched)),
    ),
    row(
        "DELETE",
        "/{_}/batches/{_}",
        "gemini_batches",
        whole!(|mock, request, matched| batches::gemini_batches(mock, request, matched)),
    ),
    row(
        "POST",
        "/{_}/batches/{_}:cancel",
        "gemini_batches",
        whole!(|mock, request, matched| batches::gemini_batches(mock, request, matched)),
    ),
    row(
        "GET",
        "/v1beta/models",
        "gemini_models",
        whole!(|mock, request, matched| gemini::models(mock, request, matched)),
    ),
    row(
        "GET",
        "/v1alpha/models",
        "gemini_models",
        whole!(|mock, request, matched| gemini::models(mock, request, matched)),
    ),
    Route {
        when: Some(Client::Google),
        ..row(
            "GET",
            "/{_}/models/{model}",
            "gemini_models",
            whole!(|mock, request, matched| gemini::model(mock, request, matched)),
        )
    },
    row(
        "GET",
        "/v1beta/models/{model}",
        "gemini_models",
        whole!(|mock, request, matched| gemini::model(mock, request, matched)),
    ),
    // AWS Bedrock Runtime (the model id percent-decoded; the path says whether to stream).
    chat_row::<bedrock::BedrockConverse>("POST", "/model/{model}/converse", "bedrock_converse"),
    Route {
        stream: Some(true),
        ..chat_row::<bedrock::BedrockConverse>("POST", "/model/{model}/converse-stream", "bedrock_converse")
    },
    chat_row::<bedrock::BedrockInvoke>("POST", "/model/{model}/invoke", "bedrock_invoke"),
    Route {
        stream: Some(true),
        ..chat_row::<bedrock::BedrockInvoke>("POST", "/model/{model}/invoke-with-response-stream", "bedrock_invoke")
    },
    // Cohere v2.
    chat_row::<cohere::CohereChat>("POST", "/v2/chat", "cohere_chat"),
    // Ollama.
    chat_row::<ollama::OllamaChat>("POST", "/api/chat", "ollama_chat"),
    chat_row::<ollama::OllamaGenerate>("POST", "/api/generate", "ollama_generate"),
    row("POST", "/api/embed", "ollama_embed", whole!(|mock, request, matched| ollama::embed(mock, request, matched))),
    row(
        "POST",
        "/api/embeddings",
        "ollama_embed",
        whole!(|mock, request, matched| ollama::embed(mock, request, matched)),
    ),
    row("GET", "/api/tags", "ollama_models", whole!(|mock, request, matched| ollama::tags(mock, request, matched))),
    row("GET", "/api/ps", "ollama_models", whole!(|mock, request, matched| ollama::running(mock, request, matched))),
    row("POST", "/api/show", "ollama_models", whole!(|mock, request, matched| ollama::show(mock, request, matched))),
    row(
        "GET",
        "/api/version",
        "ollama_models",
        whole!(|mock, request, matched| ollama::version(mock, request, matched)),
    ),
];

/// The paths the unknown-path 404 lists, one per protocol.
pub(crate) const SERVED: &str =
    "OpenAI /v1/chat/completions, /v1/responses (and /{id}), /v1/completions, /v1/models, /v1/embeddings, /v1/moderations, /v1/images/..., /v1/audio/speech, \
    /v1/audio/transcriptions, /v1/audio/translations, /v1/files, /v1/batches; \
    Anthropic /v1/messages, /v1/messages/count_tokens, /v1/messages/batches, Vertex AI's .../publishers/anthropic/models/{m}:rawPredict and \
    :streamRawPredict; Azure /openai/deployments/{d}/...; Gemini /v1beta/models/{m}:generateContent and \
    :streamGenerateContent, :countTokens, :embedContent, :batchEmbedContents, :batchGenerateContent, /batches/{n}; Ollama /api/chat, /api/generate, \
    /api/embed, /api/tags, /api/show; Bedrock /model/{id}/converse, /converse-stream, /invoke, \
    /invoke-with-response-stream; Cohere /v2/chat";

/// One row of the protocol table as data: what the book's endpoint reference is generated from, so it cannot drift
/// from what the server answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndpointRow {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The path pattern (see the module's documentation for `[v1]`, `{model}` and `{_}`).
    pub pattern: &'static str,
    /// The endpoint name journaled as `metadata.endpoint`, which `routes[].match.endpoint` matches.
    pub endpoint: &'static str,
    /// `Some(true)` when the path itself asks for a stream (Gemini's `:streamGenerateContent`, Bedrock's
    /// `converse-stream`); `None` when the body decides.
    pub stream: Option<bool>,
    /// Whether the row answers only requests from Google's SDKs (the model list they share with OpenAI's).
    pub google_only: bool,
    /// Whether the row answers with a model's reply (a chat protocol, scripted by steps).
    pub answers_from_script: bool,
}

/// Every row of the protocol table, in the order they are tried.
pub fn endpoint_rows() -> Vec<EndpointRow> {
    ROUTES
        .iter()
        .map(|route| EndpointRow {
            method: route.method,
            pattern: route.pattern,
            endpoint: route.endpoint,
            stream: route.stream,
            google_only: route.when == Some(Client::Google),
            answers_from_script: route.decode.is_some(),
        })
        .collect()
}

/// The row that answers a request, and what its path named.
pub(crate) fn find(request: &HttpRequest) -> Option<(&'static Route, Matched)> {
    // openai-node's Azure client joins an endpoint that ends in `/` into `//openai/...`.
    let path = request.path.trim_end_matches('/');
    let path = if path.starts_with("//") { &path[1..] } else { path };
    let mut given = [""; MAX_SEGMENTS];
    let mut count = 0;
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        *given.get_mut(count)? = segment; // a path deeper than any pattern matches none
        count += 1;
    }
    let given = given.get(..count)?;
    ROUTES.iter().zip(compiled()).find_map(|(route, pattern)| {
        if route.method != request.method || route.when.is_some_and(|client| !client.sent(request)) {
            return None;
        }
        let model = matches_segments(pattern, given)?;
        Some((route, Matched { endpoint: route.endpoint, model, stream: route.stream }))
    })
}

impl Route {
    /// The neutral request of a chat row's request (`None` for the other rows).
    pub(crate) fn decode(&self, request: &HttpRequest, matched: &Matched) -> Option<Result<ChatRequest, String>> {
        self.decode.map(|decode| decode(request, matched))
    }

    /// Answers the request this row matched.
    pub(crate) fn answer(&self, mock: &MockModel, request: &HttpRequest, matched: &Matched) -> Turn<HttpReply> {
        (self.answer)(mock, request, matched)
    }
}

/// The most segments a pattern has (Vertex AI's paths have eight).
const MAX_SEGMENTS: usize = 12;

/// One segment of a pattern, parsed once.
#[derive(Debug, PartialEq, Eq)]
enum Segment {
    Literal(&'static str),
    Optional(&'static str),
    /// `{name}` or `{name}:verb`; `keep` for `{model}`.
    Capture {
        keep: bool,
        verb: Option<&'static str>,
    },
}

fn parse(pattern: &'static str) -> Vec<Segment> {
    pattern
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|segment| {
            if let Some(optional) = segment.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
                Segment::Optional(optional)
            } else if let Some((name, verb)) = segment.strip_prefix('{').and_then(|s| s.split_once('}')) {
                Segment::Capture { keep: name == "model", verb: verb.strip_prefix(':') }
            } else {
                Segment::Literal(segment)
            }
        })
        .collect()
}

/// Every row's pattern, parsed on first use: matching compares slices, where splitting every pattern anew for
/// every request cost a Gemini request (its rows come late) about 4,500 instructions.
fn compiled() -> &'static [Vec<Segment>] {
    static COMPILED: std::sync::OnceLock<Vec<Vec<Segment>>> = std::sync::OnceLock::new();
    COMPILED.get_or_init(|| ROUTES.iter().map(|route| parse(route.pattern)).collect())
}

/// Whether `path` matches `pattern`: `Some(model)` (the `{model}` capture, if the pattern has one) or `None`.
#[cfg(test)]
fn matches(pattern: &'static str, path: &str) -> Option<Option<String>> {
    let given: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    matches_segments(&parse(pattern), &given)
}

fn matches_segments(pattern: &[Segment], given: &[&str]) -> Option<Option<String>> {
    let mut given = given.iter().copied().peekable();
    let mut model = None;
    for want in pattern {
        match want {
            Segment::Optional(optional) => {
                if given.peek() == Some(optional) {
                    given.next();
                }
            }
            Segment::Literal(literal) => {
                if given.next()? != *literal {
                    return None;
                }
            }
            Segment::Capture { keep, verb } => {
                let segment = given.next()?;
                let value = match verb {
                    None => segment,
                    Some(verb) => strip_verb(segment, verb)?,
                };
                if value.is_empty() {
                    return None;
                }
                if *keep {
                    model = Some(percent_decode(value));
                }
            }
        }
    }
    if given.next().is_some() {
        return None;
    }
    Some(model)
}

/// `segment` without its `:verb` (also written `%3Averb`), or `None` when it does not end in it.
fn strip_verb<'a>(segment: &'a str, verb: &str) -> Option<&'a str> {
    let before = segment.strip_suffix(verb)?;
    before.strip_suffix(':').or_else(|| before.strip_suffix("%3A")).or_else(|| before.strip_suffix("%3a"))
}

/// `%XX` escapes decoded (model ids arrive percent-encoded: `%3A` for `:`); an invalid escape is kept as it is.
pub(crate) fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        let escaped = (byte == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(decoded) => {
                out.push(decoded);
                i += 3;
            }
            None => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recordings' list of answer endpoints (`script::recorded`, a layer below this table) is exactly the
    /// endpoints of the rows that answer from the script.
    #[test]
    fn the_answer_endpoints_are_the_rows_that_answer_from_the_script() {
        let mut from_rows: Vec<&str> =
            endpoint_rows().into_iter().filter(|row| row.answers_from_script).map(|row| row.endpoint).collect();
        from_rows.sort_unstable();
        from_rows.dedup();
        let mut listed = crate::script::recorded::ANSWER_ENDPOINTS.to_vec();
        listed.sort_unstable();
        assert_eq!(listed, from_rows);
    }

    #[test]
    fn patterns_match_literals_optional_segments_captures_and_verbs() {
        assert_eq!(matches("/[v1]/chat/completions", "/v1/chat/completions"), Some(None));
        assert_eq!(matches("/[v1]/chat/completions", "/chat/completions"), Some(None));
        assert_eq!(matches("/[v1]/chat/completions", "/v2/chat/completions"), None);
        assert_eq!(matches("/[v1]/models", "/v1/models/x"), None);
        let generate = "/{_}/models/{model}:generateContent";
        assert_eq!(
            matches(generate, "/v1beta/models/gemini-2.5-flash:generateContent"),
            Some(Some("gemini-2.5-flash".into()))
        );
        assert_eq!(matches(generate, "/v1/models/gemini%2D2:generateContent"), Some(Some("gemini-2".into())));
        assert_eq!(matches(generate, "/v1/models/m%3AgenerateContent"), Some(Some("m".into())));
        assert_eq!(matches(generate, "/v1/models/m:streamGenerateContent"), None);
        assert_eq!(matches(generate, "/v1/models/:generateContent"), None);
        assert_eq!(
            matches("/openai/deployments/{model}/chat/completions", "/openai/deployments/gpt%3A4/chat/completions"),
            Some(Some("gpt:4".into()))
        );
    }

    #[test]
    fn every_protocol_is_found_by_its_paths() {
        let find_endpoint = |method: &str, target: &str, headers: &[(&str, &str)]| {
            let mut request = HttpRequest::new(method, target, Vec::new(), Vec::new());
            for (name, value) in headers {
                request = request.with_header(name, value);
            }
            find(&request).map(|(_, m)| (m.endpoint, m.model, m.stream))
        };
        assert_eq!(find_endpoint("GET", "/v1/models", &[]), Some(("models", None, None)));
        assert_eq!(
            find_endpoint("GET", "/v1/models?pageSize=50", &[("x-goog-api-client", "google-genai-sdk/3")]),
            Some(("gemini_models", None, None))
        );
        assert_eq!(
            find_endpoint("POST", "/v1/models/g:streamGenerateContent?alt=sse", &[]),
            Some(("gemini_generate", Some("g".into()), Some(true)))
        );
        assert_eq!(
            find_endpoint("POST", "/v1beta1/projects/p/locations/us/publishers/google/models/g:generateContent", &[]),
            Some(("gemini_generate", Some("g".into()), None))
        );
        assert_eq!(
            find_endpoint("POST", "//openai/deployments/dep/chat/completions?api-version=1", &[]),
            Some(("chat_completions", Some("dep".into()), None))
        );
        let vertex_claude = "/v1/projects/p/locations/us-east5/publishers/anthropic/models";
        assert_eq!(
            find_endpoint("POST", &format!("{vertex_claude}/claude-x@2025:streamRawPredict"), &[]),
            Some(("messages", Some("claude-x@2025".into()), Some(true)))
        );
        assert_eq!(
            find_endpoint("POST", &format!("{vertex_claude}/count-tokens:rawPredict"), &[]),
            Some(("anthropic_count_tokens", None, None))
        );
        assert_eq!(find_endpoint("POST", "/api/chat", &[]), Some(("ollama_chat", None, None)));
        assert_eq!(find_endpoint("POST", "/v1/_cuecard/reset", &[]), None);
        assert_eq!(find_endpoint("DELETE", "/v1/messages", &[]), None);
    }

    #[test]
    fn percent_decoding_keeps_what_is_not_an_escape() {
        assert_eq!(percent_decode("a%3Ab"), "a:b");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("%C3%A9"), "é");
        assert_eq!(percent_decode("%FF"), "%FF");
    }
}
