//! Upstreams: where a recorder forwards each protocol's requests. One URL for every protocol, or
//! `PROTOCOL=URL` per protocol; the request's path picks the protocol. The hosts (the CLI's proxy, the Python
//! transports, Node's `fetch`) send; this only decides where.

use crate::error::{invalid_argument, Result};
use crate::http::HttpRequest;

/// The protocols an upstream can be named for.
pub const PROTOCOLS: [&str; 8] = ["openai", "anthropic", "gemini", "ollama", "bedrock", "azure", "mcp", "a2a"];

/// An upstream: the scheme, host, port and path prefix requests are forwarded to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upstream {
    /// One of [`PROTOCOLS`], or `None` for every protocol not named.
    pub protocol: Option<String>,
    /// TLS or plain HTTP.
    pub https: bool,
    /// The host name or address.
    pub host: String,
    /// The port (443 or 80 unless given).
    pub port: u16,
    /// A path prefix put before the client's path (no trailing `/`).
    pub prefix: String,
}

impl Upstream {
    /// The URL a request with `target` (its path and query) is forwarded to.
    pub fn url(&self, target: &str) -> String {
        format!("{}{}{target}", self.origin(), self.prefix)
    }

    /// `scheme://host[:port]`, the port left out when it is the scheme's default.
    pub fn origin(&self) -> String {
        let scheme = if self.https { "https" } else { "http" };
        format!("{scheme}://{}", self.authority())
    }

    /// `host[:port]`, as the `Host` header says it.
    pub fn authority(&self) -> String {
        let default_port = if self.https { 443 } else { 80 };
        if self.port == default_port {
            self.host.clone()
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

impl std::str::FromStr for Upstream {
    type Err = crate::error::Error;

    /// `https://api.openai.com` (every protocol), or `anthropic=https://api.anthropic.com`.
    fn from_str(text: &str) -> Result<Upstream> {
        let bad = |why: String| invalid_argument(why).with_context("argument", "upstream");
        let (protocol, url) = match text.split_once('=') {
            Some((name, url)) if !name.contains('/') => {
                if !PROTOCOLS.contains(&name) {
                    return Err(bad(format!("unknown protocol {name:?} (one of {})", PROTOCOLS.join(", "))));
                }
                (Some(name.to_string()), url)
            }
            _ => (None, text),
        };
        let (https, rest) = if let Some(rest) = url.strip_prefix("https://") {
            (true, rest)
        } else if let Some(rest) = url.strip_prefix("http://") {
            (false, rest)
        } else {
            return Err(bad(format!("{url:?} is not an http:// or https:// URL")));
        };
        let (authority, prefix) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) => {
                (host.to_string(), port.parse().map_err(|_| bad(format!("{url:?} has a port that is not a number")))?)
            }
            None => (authority.to_string(), if https { 443 } else { 80 }),
        };
        if host.is_empty() {
            return Err(bad(format!("{url:?} has no host")));
        }
        Ok(Upstream { protocol, https, host, port, prefix: prefix.trim_end_matches('/').to_string() })
    }
}

/// The protocol family of a request, to pick its upstream: `mcp` for `/mcp` (an MCP server's Streamable HTTP), `a2a`
/// for `/a2a` and the agent card paths (a remote agent),
/// `azure` for `/openai/...`, `anthropic` for Messages, `gemini`, `ollama` and `bedrock` by endpoint, else `openai`.
pub fn protocol_of(request: &HttpRequest) -> &'static str {
    let endpoint = crate::wire::decode_request(request).map_or("", |(endpoint, _)| endpoint);
    if crate::mcp::is_mcp_path(&request.path) {
        "mcp"
    } else if crate::a2a::is_a2a_path(&request.path) {
        "a2a"
    } else if request.path.starts_with("/openai/") {
        "azure"
    } else if endpoint == "messages" {
        "anthropic"
    } else if endpoint.starts_with("gemini") {
        "gemini"
    } else if endpoint.starts_with("ollama") {
        "ollama"
    } else if endpoint.starts_with("bedrock") {
        "bedrock"
    } else {
        "openai"
    }
}

/// The upstream for `request`: the one named for its protocol, else the one for every protocol; an error that
/// says which to give when there is none.
pub fn upstream_for<'a>(upstreams: &'a [Upstream], request: &HttpRequest) -> Result<&'a Upstream> {
    let family = protocol_of(request);
    upstreams
        .iter()
        .find(|u| u.protocol.as_deref() == Some(family))
        .or_else(|| upstreams.iter().find(|u| u.protocol.is_none()))
        .ok_or_else(|| {
            invalid_argument(format!("no upstream for {family} requests (give {family}=URL)"))
                .with_context("argument", "upstream")
        })
}

/// The target an A2A request is forwarded to: its path with `/a2a` (and the agent's name) taken off, as the upstream
/// is the remote agent's own base URL — its card at `{URL}/.well-known/agent-card.json`, its JSON-RPC endpoint at
/// `{URL}` itself (where a2a-sdk's and Strands' servers put it). Any other request's target is kept.
pub fn upstream_target(path: &str, target: &str) -> String {
    if !crate::a2a::is_a2a_path(path) {
        return target.to_string();
    }
    let query = target.split_once('?').map(|(_, q)| format!("?{q}")).unwrap_or_default();
    let card = ["/.well-known/agent-card.json", "/.well-known/agent.json"].into_iter().find(|f| path.ends_with(f));
    match card {
        Some(file) => format!("{file}{query}"),
        None => format!("/{query}"),
    }
}

/// Headers that belong to one connection, never forwarded either way.
pub(crate) const HOP_BY_HOP: [&str; 9] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "host",
    "content-length",
];

/// The headers a request is forwarded with: the client's, less those of its connection (the forwarding client sets
/// its own) and `accept-encoding` (the reply is recorded as sent, so it is asked for uncompressed). Every host
/// forwards with these: the proxy, the Python transports, Node's `fetch`.
pub fn forwarded_headers(headers: &[(String, String)]) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(name, _)| {
            let name = name.to_ascii_lowercase();
            !HOP_BY_HOP.contains(&name.as_str()) && name != "accept-encoding"
        })
        .cloned()
        .collect()
}

/// Parses a list of upstream specs (`URL` or `PROTOCOL=URL`).
pub fn parse_upstreams<S: AsRef<str>>(specs: &[S]) -> Result<Vec<Upstream>> {
    specs.iter().map(|s| s.as_ref().parse()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upstream_is_read_with_its_protocol_port_and_prefix() {
        let u: Upstream = "anthropic=http://127.0.0.1:8080/proxy/".parse().unwrap();
        assert_eq!(u.protocol.as_deref(), Some("anthropic"));
        assert_eq!((u.https, u.host.as_str(), u.port, u.prefix.as_str()), (false, "127.0.0.1", 8080, "/proxy"));
        assert_eq!(u.url("/v1/messages"), "http://127.0.0.1:8080/proxy/v1/messages");
        let all: Upstream = "https://api.openai.com".parse().unwrap();
        assert_eq!((all.protocol.clone(), all.port, all.authority()), (None, 443, "api.openai.com".to_string()));
        for bad in ["mystery=https://x", "ftp://x", "http://:80", "http://x:port"] {
            assert_eq!(bad.parse::<Upstream>().unwrap_err().kind(), crate::ErrorKind::InvalidArgument, "{bad}");
        }
    }

    #[test]
    fn forwarded_headers_leave_out_the_connections_own_and_compression() {
        let given =
            [("Host", "x"), ("content-length", "2"), ("Accept-Encoding", "gzip"), ("authorization", "Bearer k")];
        let given: Vec<_> = given.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        assert_eq!(forwarded_headers(&given), vec![("authorization".to_string(), "Bearer k".to_string())]);
    }

    #[test]
    fn an_a2a_request_goes_to_the_agents_own_paths() {
        assert_eq!(upstream_target("/a2a", "/a2a"), "/");
        assert_eq!(upstream_target("/a2a/researcher", "/a2a/researcher?x=1"), "/?x=1");
        let card = "/a2a/researcher/.well-known/agent-card.json";
        assert_eq!(upstream_target(card, card), "/.well-known/agent-card.json");
        assert_eq!(upstream_target("/.well-known/agent.json", "/.well-known/agent.json"), "/.well-known/agent.json");
        assert_eq!(upstream_target("/v1/chat/completions", "/v1/chat/completions?a=b"), "/v1/chat/completions?a=b");
    }

    #[test]
    fn a_request_goes_to_its_protocols_upstream_else_the_general_one() {
        let upstreams = parse_upstreams(&["anthropic=http://a.test", "http://general.test"]).unwrap();
        let request = |path: &str| HttpRequest::new("POST", path, vec![], b"{}".to_vec());
        assert_eq!(upstream_for(&upstreams, &request("/v1/messages")).unwrap().host, "a.test");
        assert_eq!(upstream_for(&upstreams, &request("/v1/chat/completions")).unwrap().host, "general.test");
        let only = parse_upstreams(&["anthropic=http://a.test"]).unwrap();
        let agents = parse_upstreams(&["a2a=http://agent.test:9999/rpc"]).unwrap();
        assert_eq!(upstream_for(&agents, &request("/a2a/researcher")).unwrap().host, "agent.test");
        assert_eq!(protocol_of(&request("/.well-known/agent-card.json")), "a2a");
        let missing = upstream_for(&only, &request("/v1/chat/completions")).unwrap_err();
        assert!(missing.message().contains("give openai=URL"), "{}", missing.message());
    }
}
