//! What never reaches a recording file: credentials in headers, the keys a client sent (wherever they reappear),
//! key-shaped text, and what the user names (texts, and request fields by path).

use serde_json::{Map, Value};

/// What replaces a redacted value.
pub const REDACTED: &str = "[REDACTED]";

/// Request headers whose values are credentials: their values are scrubbed from everything written.
const CREDENTIAL_HEADERS: [&str; 6] =
    ["authorization", "x-api-key", "api-key", "x-goog-api-key", "proxy-authorization", "x-amz-security-token"];

/// Response headers that say nothing about the answer, or identify an account or a connection.
const DROPPED_RESPONSE_HEADERS: [&str; 16] = [
    "connection",
    "keep-alive",
    "transfer-encoding",
    "content-length",
    "content-encoding",
    "date",
    "server",
    "via",
    "alt-svc",
    "strict-transport-security",
    "set-cookie",
    "openai-organization",
    "openai-project",
    "anthropic-organization-id",
    "cf-ray",
    "x-envoy-upstream-service-time",
];

/// Whether a header's or a query parameter's name says it holds a secret (`x-my-api-key`, `x-session-token`,
/// `cookie`, `api_key`, `access_token`, SigV4's `X-Amz-Signature`): `_` counts as `-`.
fn names_a_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace('_', "-");
    CREDENTIAL_HEADERS.contains(&name.as_str())
        || ["secret", "password", "cookie", "api-key", "apikey", "auth", "session", "signature", "credential"]
            .iter()
            .any(|w| name.contains(w))
        || name.ends_with("-key")
        || name.ends_with("token")
}

/// The parts of a credential header's value an upstream may echo alone: each cookie's value, and SigV4's
/// `Credential=` (with its access key id) and `Signature=`. The whole value is a secret as well.
fn credential_parts(name: &str, value: &str) -> Vec<String> {
    let mut parts = Vec::new();
    if name.eq_ignore_ascii_case("cookie") {
        parts.extend(value.split(';').filter_map(|pair| pair.split_once('=')).map(|(_, v)| v.trim().to_string()));
    }
    if value.starts_with("AWS4-") {
        for field in value.split([',', ' ']) {
            if let Some(credential) = field.trim().strip_prefix("Credential=") {
                parts.push(credential.to_string());
                parts.extend(credential.split('/').next().map(str::to_string));
            } else if let Some(signature) = field.trim().strip_prefix("Signature=") {
                parts.push(signature.to_string());
            }
        }
    }
    parts
}

/// The response headers a recording keeps: lower-case names, without the dropped and the secret ones.
pub fn kept_response_headers(headers: &[(String, String)]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(n, v)| (n.to_ascii_lowercase(), v.clone()))
        .filter(|(n, _)| !DROPPED_RESPONSE_HEADERS.contains(&n.as_str()) && !n.starts_with("cf-") && !names_a_secret(n))
        .collect()
}

/// The secrets a request carries: its credential headers' values (a bearer token without `Bearer `), and query
/// parameters named like a secret (`key=` of Google's API).
pub fn request_secrets(headers: &[(String, String)], query: &str) -> Vec<String> {
    let mut secrets = Vec::new();
    for (name, value) in headers {
        if names_a_secret(name) {
            let value = value.trim();
            let token = value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer ")).unwrap_or(value);
            secrets.push(token.trim().to_string());
            secrets.extend(credential_parts(name, value));
        }
    }
    for pair in query.split('&') {
        if let Some((name, value)) = pair.split_once('=') {
            let name = crate::wire::percent_decode(name);
            if name == "key" || names_a_secret(&name) {
                // An upstream echoes the value decoded (a presigned URL's `X-Amz-Credential=AKIA...%2F...`).
                let decoded = crate::wire::percent_decode(value);
                secrets.extend(credential_parts("", &decoded));
                if let Some(key_id) = name.eq_ignore_ascii_case("x-amz-credential").then(|| decoded.split('/').next()) {
                    secrets.extend(key_id.map(str::to_string));
                }
                secrets.push(decoded);
                secrets.push(value.to_string());
            }
        }
    }
    // A short value ("x") would blank ordinary words; credentials are long.
    secrets.retain(|s| s.len() >= 8);
    secrets.sort();
    secrets.dedup();
    secrets
}

/// The user's redaction rules and the secrets seen, applied to every string written.
#[derive(Clone, Debug, Default)]
pub struct Scrubber {
    /// Exact texts replaced wherever they occur (the keys seen, and the user's).
    pub texts: Vec<String>,
}

impl Scrubber {
    /// `text` with every known secret and every key-shaped word replaced.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        for secret in &self.texts {
            if !secret.is_empty() && out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        scrub_key_shapes(&out)
    }

    /// Where `text` holds a secret: every occurrence of a known secret and every key-shaped word, as byte ranges in
    /// order, overlapping ones merged (what a stream's joined text is cut by).
    pub(crate) fn secret_ranges(&self, text: &str) -> Vec<std::ops::Range<usize>> {
        let mut ranges: Vec<std::ops::Range<usize>> = key_shape_ranges(text);
        for secret in self.texts.iter().filter(|s| !s.is_empty()) {
            ranges.extend(text.match_indices(secret.as_str()).map(|(at, found)| at..at + found.len()));
        }
        ranges.sort_by_key(|r| (r.start, r.end));
        let mut merged: Vec<std::ops::Range<usize>> = Vec::new();
        for range in ranges {
            match merged.last_mut() {
                Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
                _ => merged.push(range),
            }
        }
        merged
    }

    /// Every string of `value` (object keys too) scrubbed.
    pub fn scrub_value(&self, value: Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.scrub(&s)),
            Value::Array(items) => Value::Array(items.into_iter().map(|v| self.scrub_value(v)).collect()),
            Value::Object(fields) => {
                Value::Object(fields.into_iter().map(|(k, v)| (self.scrub(&k), self.scrub_value(v))).collect())
            }
            other => other,
        }
    }
}

/// The prefixes of provider keys, and the least length of what follows: OpenAI's `sk-` (and `sk-proj-`),
/// Anthropic's `sk-ant-`, Google's `AIza`, AWS access key ids: `AKIA` (long-term) and `ASIA` (temporary, from STS).
const KEY_SHAPES: [(&str, usize); 4] = [("sk-", 20), ("AIza", 30), ("AKIA", 16), ("ASIA", 16)];

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// The byte ranges of the words of `text` shaped like a provider key, in order.
fn key_shape_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let mut previous: Option<char> = None;
    let mut skip_to = 0;
    for (at, c) in text.char_indices() {
        if at >= skip_to && previous.is_none_or(|p| !is_key_char(p)) {
            let rest = text.get(at..).unwrap_or_default();
            for (prefix, least) in KEY_SHAPES {
                if let Some(after) = rest.strip_prefix(prefix) {
                    let length = after.find(|c: char| !is_key_char(c)).unwrap_or(after.len());
                    if length >= least {
                        ranges.push(at..at + prefix.len() + length);
                        skip_to = at + prefix.len() + length;
                        break;
                    }
                }
            }
        }
        previous = Some(c);
    }
    ranges
}

/// `text` with every word shaped like a provider key replaced (a key the recorder was not told about, pasted
/// into a prompt or echoed by an upstream).
pub fn scrub_key_shapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for range in key_shape_ranges(text) {
        out.push_str(text.get(at..range.start).unwrap_or_default());
        out.push_str(REDACTED);
        at = range.end;
    }
    out.push_str(text.get(at..).unwrap_or_default());
    out
}

/// Whether `text` still holds a secret or a key-shaped word: checked on the whole file before it is written.
pub fn leftover_secret(text: &str, secrets: &[String]) -> Option<String> {
    if let Some(secret) = secrets.iter().find(|s| !s.is_empty() && text.contains(s.as_str())) {
        let shown: String = secret.chars().take(6).collect();
        return Some(format!("a key the client sent ({shown}...)"));
    }
    (scrub_key_shapes(text) != text).then(|| "a word shaped like a provider key".to_string())
}

/// `request` with the fields `paths` name replaced by `[REDACTED]` (the request a recording matches on; the same
/// paths are then ignored when matching, so the live request's value never counts).
pub fn redact_fields(request: Value, paths: &[crate::request_match::FieldPath]) -> Value {
    paths.iter().fold(request, |value, path| path.replace_all(value, &Value::String(REDACTED.into())))
}

/// An object with `key` set, for building documents in order.
pub(crate) fn object(fields: Vec<(&str, Value)>) -> Value {
    let mut map = Map::new();
    for (key, value) in fields {
        map.insert(key.to_string(), value);
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_headers_are_secrets_and_never_kept() {
        let headers = vec![
            ("Authorization".to_string(), "Bearer sk-test-0123456789abcdefghij".to_string()),
            ("x-api-key".to_string(), "ant-key-123456".to_string()),
            ("content-type".to_string(), "application/json".to_string()),
        ];
        assert_eq!(
            request_secrets(&headers, "key=AIzaSecretSecret&alt=sse"),
            vec![
                "AIzaSecretSecret".to_string(),
                "ant-key-123456".to_string(),
                "sk-test-0123456789abcdefghij".to_string(),
            ]
        );
        let reply = vec![
            ("Content-Type".to_string(), "text/event-stream".to_string()),
            ("set-cookie".to_string(), "a=b".to_string()),
            ("openai-organization".to_string(), "org-x".to_string()),
            ("x-ratelimit-remaining-tokens".to_string(), "999".to_string()),
            ("x-request-id".to_string(), "req_1".to_string()),
        ];
        let kept: Vec<String> = kept_response_headers(&reply).into_iter().map(|(name, _)| name).collect();
        assert_eq!(kept, ["content-type", "x-ratelimit-remaining-tokens", "x-request-id"]);
    }

    #[test]
    fn secrets_echoed_in_parts_are_known() {
        // Issue #59 S5: query keys spelled with `_`, each cookie's value, SigV4's credential and signature (in the
        // header and in a presigned query), and temporary AWS key ids.
        let headers = vec![
            ("Cookie".to_string(), "theme=dark; session_id=sess-0123456789abcdef".to_string()),
            (
                "authorization".to_string(),
                "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261206/us-east-1/bedrock/aws4_request, \
                 SignedHeaders=host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
                    .to_string(),
            ),
        ];
        let query = "api_key=query-key-0123456789&access_token=ya29.token-abcdef&\
                     X-Amz-Credential=ASIAQEXAMPLEKEYID123%2F20261206%2Fus-east-1%2Fbedrock%2Faws4_request&\
                     X-Amz-Signature=aaaabbbbccccdddd0000&alt=sse";
        let secrets = request_secrets(&headers, query);
        for expected in [
            "sess-0123456789abcdef",
            "AKIAIOSFODNN7EXAMPLE",
            "AKIAIOSFODNN7EXAMPLE/20261206/us-east-1/bedrock/aws4_request",
            "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7",
            "query-key-0123456789",
            "ya29.token-abcdef",
            "ASIAQEXAMPLEKEYID123",
            "ASIAQEXAMPLEKEYID123/20261206/us-east-1/bedrock/aws4_request",
            "aaaabbbbccccdddd0000",
        ] {
            assert!(secrets.contains(&expected.to_string()), "{expected} missing from {secrets:?}");
        }
        assert!(!secrets.iter().any(|s| s == "sse" || s == "dark"));
        assert_eq!(scrub_key_shapes("temporary ASIAQEXAMPLEKEYID1234 id"), "temporary [REDACTED] id");
    }

    #[test]
    fn key_shaped_words_are_replaced_and_ordinary_words_stay() {
        assert_eq!(
            scrub_key_shapes("use sk-proj-abcdefghijklmnopqrstuvwx now; task-sk-1 and sk-short stay"),
            "use [REDACTED] now; task-sk-1 and sk-short stay"
        );
        assert_eq!(scrub_key_shapes("é AIzaSyA1234567890abcdefghijklmnopqrs"), "é [REDACTED]");
        let scrubber = Scrubber { texts: vec!["hunter2-long-secret".into()] };
        assert_eq!(
            scrubber.scrub_value(serde_json::json!({"a": ["x hunter2-long-secret y"]})),
            serde_json::json!({"a": ["x [REDACTED] y"]})
        );
        assert!(leftover_secret("x hunter2-long-secret", &scrubber.texts).is_some());
        assert!(leftover_secret("nothing here", &scrubber.texts).is_none());
    }
}
