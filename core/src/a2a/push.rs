//! Push notifications (`../shared/spec/a2a.md` §7): a client registers a webhook for a task (inline in a send's
//! configuration, or by the config methods); when the task reaches where its step leaves it, the agent POSTs the
//! task there — v0.3 the `Task` JSON, v1.0 a `StreamResponse` (`{"task": …}`, `application/a2a+json`) — with the
//! config's token as `X-A2A-Notification-Token` and its credentials as `Authorization`.
//!
//! A scripted agent delivers only to loopback (`127.0.0.1`, `::1`, `localhost`): a test's webhook, never the network.
//! A config naming any other host is refused when it is registered (`-32602`). A request's deliveries are sent after
//! its reply, in order, from a thread of their own (so a test's webhook may be served by the test's own thread; two
//! requests' pushes may arrive in either order); the journal entry of the request that caused one names the URL
//! (`pushed`).

use serde_json::{json, Value};

pub(crate) use crate::mock::a2a::Push;

/// Why a config's URL is refused, if it is: not `http://` to a loopback host.
pub(crate) fn refused_url(config: &Value) -> Option<String> {
    let Some(url) = config.get("url").and_then(Value::as_str) else {
        return Some("a push notification config needs its url".to_string());
    };
    match loopback_target(url) {
        Some(_) => None,
        None => Some(format!(
            "push notification url {url:?}: a scripted agent delivers pushes only to http:// on loopback \
             (127.0.0.1, [::1], localhost)"
        )),
    }
}

/// `(host, port, path)` of an `http://` URL whose host is loopback.
fn loopback_target(url: &str) -> Option<(String, u16, String)> {
    let rest = url.strip_prefix("http://")?;
    let (authority, path) = rest.find('/').map_or((rest, "/"), |i| (&rest[..i], &rest[i..]));
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(':') => (host, port.parse().ok()?),
        _ => (authority, 80),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    matches!(host, "127.0.0.1" | "::1" | "localhost").then(|| (host.to_string(), port, path.to_string()))
}

/// The POST that tells `config`'s webhook of `task` (the task as rendered in the generation the config came in).
pub(crate) fn push_for(config: &Value, task: Value, v1: bool) -> Option<Push> {
    let url = config.get("url").and_then(Value::as_str)?.to_string();
    let (content_type, body) =
        if v1 { ("application/a2a+json", json!({"task": task})) } else { ("application/json", task) };
    let mut headers = vec![("content-type".to_string(), content_type.to_string())];
    if let Some(token) = config.get("token").and_then(Value::as_str) {
        headers.push(("x-a2a-notification-token".to_string(), token.to_string()));
    }
    // v0.3 `authentication: {schemes: [...], credentials}`, v1.0 `{scheme, credentials}`.
    let authentication = config.get("authentication");
    let scheme = authentication.and_then(|a| {
        a.get("scheme").and_then(Value::as_str).or_else(|| a.pointer("/schemes/0").and_then(Value::as_str))
    });
    if let (Some(scheme), Some(credentials)) =
        (scheme, authentication.and_then(|a| a.get("credentials")).and_then(Value::as_str))
    {
        headers.push(("authorization".to_string(), format!("{scheme} {credentials}")));
    }
    Some(Push { url, headers, body: body.to_string() })
}

/// Sends `pushes` in order, after the reply that caused them, from a thread of their own. A webhook that cannot be
/// reached is said on stderr (the test that registered it sees nothing arrive).
#[cfg(feature = "server")]
pub(crate) fn deliver(pushes: Vec<Push>) {
    if pushes.is_empty() {
        return;
    }
    let spawned = std::thread::Builder::new().name("cuecard-a2a-push".into()).spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        for push in pushes {
            if let Err(e) = runtime.block_on(post(&push)) {
                eprintln!("cuecard: the A2A push to {} was not delivered: {e}", push.url);
            }
        }
    });
    if let Err(e) = spawned {
        eprintln!("cuecard: A2A pushes were not delivered: {e}");
    }
}

/// Without the server (and its HTTP client) no push is sent; the journal still names it.
#[cfg(not(feature = "server"))]
pub(crate) fn deliver(_pushes: Vec<Push>) {}

#[cfg(feature = "server")]
async fn post(push: &Push) -> Result<(), String> {
    use http_body_util::{BodyExt, Full};
    let (host, port, path) = loopback_target(&push.url).ok_or("not a loopback URL")?;
    let address = if host == "localhost" { "127.0.0.1".to_string() } else { host.clone() };
    let connect = tokio::net::TcpStream::connect((address.as_str(), port));
    let tcp = tokio::time::timeout(std::time::Duration::from_secs(5), connect)
        .await
        .map_err(|_| "the connection timed out".to_string())?
        .map_err(|e| e.to_string())?;
    let io = hyper_util::rt::TokioIo::new(tcp);
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io).await.map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    let authority = if host == "::1" { format!("[::1]:{port}") } else { format!("{host}:{port}") };
    let mut request = hyper::Request::builder().method("POST").uri(path).header("host", authority);
    for (name, value) in &push.headers {
        request = request.header(name, value);
    }
    let request = request.body(Full::new(bytes::Bytes::from(push.body.clone()))).map_err(|e| e.to_string())?;
    let response = tokio::time::timeout(std::time::Duration::from_secs(10), sender.send_request(request))
        .await
        .map_err(|_| "the webhook did not answer in 10 s".to_string())?
        .map_err(|e| e.to_string())?;
    let status = response.status();
    let _ = response.into_body().collect().await;
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("the webhook answered {status}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_webhooks_are_taken() {
        for url in ["http://127.0.0.1:9000/hook", "http://localhost/hook", "http://[::1]:8080/", "http://127.0.0.1:7"] {
            assert_eq!(refused_url(&json!({"url": url})), None, "{url}");
        }
        for url in ["https://127.0.0.1/hook", "http://example.com/hook", "http://10.0.0.1:80/", "http://127.0.0.1:x/"] {
            assert!(refused_url(&json!({"url": url})).is_some_and(|why| why.contains("loopback")), "{url}");
        }
        assert!(refused_url(&json!({})).is_some_and(|why| why.contains("needs its url")));
        assert_eq!(loopback_target("http://[::1]:8080/a?b"), Some(("::1".into(), 8080, "/a?b".into())));
    }

    #[test]
    fn a_push_carries_the_token_and_credentials_of_either_generation() {
        let v03 = json!({"url": "http://127.0.0.1:9/h", "token": "tok",
                         "authentication": {"schemes": ["Bearer"], "credentials": "secret"}});
        let push = push_for(&v03, json!({"kind": "task", "id": "t"}), false).unwrap();
        assert_eq!(push.body, r#"{"id":"t","kind":"task"}"#);
        assert!(push.headers.contains(&("x-a2a-notification-token".into(), "tok".into())));
        assert!(push.headers.contains(&("authorization".into(), "Bearer secret".into())));
        let v1 = json!({"url": "http://127.0.0.1:9/h", "authentication": {"scheme": "Basic", "credentials": "dTpw"}});
        let push = push_for(&v1, json!({"id": "t"}), true).unwrap();
        assert_eq!(push.body, r#"{"task":{"id":"t"}}"#);
        assert_eq!(push.headers[0], ("content-type".into(), "application/a2a+json".into()));
        assert!(push.headers.contains(&("authorization".into(), "Basic dTpw".into())));
    }
}
