//! HTTP as values: the request the wire layer reads ([`HttpRequest`]) and the reply it answers with ([`HttpReply`],
//! whole or as [`Frames`] sent one at a time). No I/O and no protocol: the vocabulary below every protocol, the MCP
//! transport and the recordings (what hyper's `http` crate is to hyper and h2), so each of them can hold a reply
//! without depending on the others. Each value has a data form, which is what crosses to hosts that serve their own
//! HTTP stack.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::sync::Arc;

/// Largest request body accepted; larger bodies get a provider-shaped 413.
/// Largest request body accepted; larger bodies get a provider-shaped 413.
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

/// An HTTP request as the wire layer sees it. As data (what crosses to hosts that serve their own HTTP stack):
/// `{"method", "path", "query", "headers": [[name, value], ...], "body"}`, or `"body_base64"` for a body that
/// is not UTF-8; `path` may carry the query (`/v1/models?x=1`), which is then split off.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "HttpRequestData", into = "HttpRequestData")]
pub struct HttpRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path, without the query string.
    pub path: String,
    /// The query string, without `?`.
    pub query: String,
    /// Headers with lower-case names.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// Set by a server that checked its admin token on this request: the admin surface then answers it whatever
    /// its `Host` (a token is how a server beyond loopback is administered). Never part of the data form, so a
    /// request that crosses as data cannot claim it.
    pub admin_token_checked: bool,
    /// The path prefix the request came in under and that was taken off `path` (`/t/{id}` for a test of a shared
    /// server; empty otherwise): what a reply that names its own URL (an A2A agent card) puts back.
    pub mount: String,
}

#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct HttpRequestData {
    method: String,
    path: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    query: String,
    #[serde(default)]
    headers: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body_base64: Option<String>,
}

impl From<HttpRequestData> for HttpRequest {
    fn from(data: HttpRequestData) -> HttpRequest {
        let body = match (data.body, data.body_base64) {
            (Some(text), _) => text.into_bytes(),
            (None, Some(encoded)) => {
                use base64::Engine;
                // Undecodable base64 becomes a body that is not JSON, which the endpoint refuses and journals.
                base64::engine::general_purpose::STANDARD
                    .decode(encoded.as_bytes())
                    .unwrap_or_else(|_| encoded.into_bytes())
            }
            (None, None) => Vec::new(),
        };
        let mut request = HttpRequest::new(&data.method, &data.path, data.headers, body);
        if request.query.is_empty() {
            request.query = data.query;
        }
        request
    }
}

impl From<HttpRequest> for HttpRequestData {
    fn from(request: HttpRequest) -> HttpRequestData {
        let (body, body_base64) = match String::from_utf8(request.body) {
            Ok(text) if text.is_empty() => (None, None),
            Ok(text) => (Some(text), None),
            Err(e) => {
                use base64::Engine;
                (None, Some(base64::engine::general_purpose::STANDARD.encode(e.into_bytes())))
            }
        };
        HttpRequestData {
            method: request.method,
            path: request.path,
            query: request.query,
            headers: request.headers,
            body,
            body_base64,
        }
    }
}

impl HttpRequest {
    /// A request from what any HTTP stack has: the method, the request target (path and optional `?query`),
    /// the headers (names are lower-cased here) and the body.
    pub fn new(method: &str, target: &str, headers: Vec<(String, String)>, body: Vec<u8>) -> HttpRequest {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        HttpRequest {
            method: method.to_string(),
            path: path.to_string(),
            query: query.to_string(),
            headers: headers.into_iter().map(|(n, v)| (n.to_ascii_lowercase(), v)).collect(),
            body,
            admin_token_checked: false,
            mount: String::new(),
        }
    }

    /// A `POST` with a JSON body.
    pub fn post_json(path: &str, body: &str) -> HttpRequest {
        HttpRequest::new("POST", path, Vec::new(), body.as_bytes().to_vec())
    }

    /// Adds a header (the name is lower-cased).
    pub fn with_header(mut self, name: &str, value: &str) -> HttpRequest {
        self.headers.push((name.to_ascii_lowercase(), value.to_string()));
        self
    }

    /// The first header with this (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// One piece of a streamed body (one whole SSE event), sent after waiting `delay_ms`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    /// Virtual milliseconds to wait before sending it.
    pub delay_ms: u64,
    /// The text of the frame.
    pub data: String,
}

/// How a streamed body ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamEnd {
    /// The body ends normally.
    Close,
    /// The connection is cut: the body ends without its final chunk, which clients see as a broken transfer.
    Cut,
}

/// One header of a reply. Names, and values such as `application/json`, are mostly fixed text: borrowed, they cost
/// no allocation (about a quarter of a whole answer's allocations were these copies, issue #31). As data, a string.
pub type ReplyHeader = (Cow<'static, str>, Cow<'static, str>);

/// What to answer. As data, tagged by `kind`: `full`, `stream` or `abort`. Every body cuecard sends is UTF-8
/// (JSON or SSE), so bodies and frames are text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HttpReply {
    /// A whole response.
    Full {
        /// Wait this long before sending anything.
        delay_ms: u64,
        /// Status.
        status: u16,
        /// Headers.
        headers: Vec<ReplyHeader>,
        /// Body.
        body: String,
    },
    /// A streamed (SSE) response: headers at once, then the frames.
    Stream {
        /// Wait this long after the headers, before the first frame (a stall).
        stall_ms: u64,
        /// Status (200).
        status: u16,
        /// Headers.
        headers: Vec<ReplyHeader>,
        /// The frames, made as they are read (`Frames`); as data, the list.
        frames: Frames,
        /// How the body ends.
        end: StreamEnd,
        /// Each frame's `data` is the base64 of binary bytes (AWS event-stream messages), which hosts decode before
        /// sending; otherwise it is the text sent. Absent in the data form when false.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        base64: bool,
        /// Each frame is one write, sent (flushed) alone even when no wait separates it from the next: the
        /// `delivery` setting cut them on purpose. Otherwise a host may join frames that are due at once. Absent in
        /// the data form when false.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        separate_writes: bool,
        /// The journal entry of the request it answers, so a server can record a client that left before the
        /// end. Not part of the reply's data.
        #[serde(skip)]
        entry: Option<crate::journal::EntryTicket>,
    },
    /// Close the connection without any response (a connection reset before headers).
    Abort {
        /// Wait this long first.
        delay_ms: u64,
    },
    /// A WebSocket's messages (`wire::sockets`): to an upgrade request, the `101` that opens the socket (its headers
    /// beside the upgrade's own) and the messages the server sends first; to a message on an open socket, the
    /// messages it answers with (status 0, no headers). Each frame is one text message, sent after its delay.
    Socket {
        /// `101` for an opened socket; `0` for the answer to a message.
        status: u16,
        /// The upgrade reply's headers (`sec-websocket-protocol`, `x-cuecard-socket`).
        headers: Vec<ReplyHeader>,
        /// The session the socket serves (`ws_1`): what the transport names in each message it passes on.
        socket: String,
        /// The messages to send, in order.
        frames: Vec<Frame>,
        /// What happens after them.
        end: SocketEnd,
        /// The messages still unsent of the previous answer are dropped, not sent before these (a cancelled
        /// response). Absent in the data form when false.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        interrupt: bool,
    },
}

/// How a socket goes on after an answer's messages.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SocketEnd {
    /// It stays open for the next message.
    Open,
    /// The server closes it with this code and reason.
    Close {
        /// The close code (1000 normal, 1007 invalid data, 1008 policy, 1011 internal error, ...).
        code: u16,
        /// The reason, at most 123 bytes of UTF-8.
        reason: String,
    },
    /// The connection is cut without a close frame (clients see 1006).
    Cut,
}

impl HttpReply {
    /// This reply with no wait of any kind, as instant mode sends it in every host: a whole reply's delay, a
    /// stream's stall and each frame's delay, an abort's delay. A socket's messages are left as they are (its hosts
    /// pace them as the server does). The frames are made at once (the in-process hosts that ask take them whole).
    pub fn without_delays(self) -> HttpReply {
        match self {
            HttpReply::Full { status, headers, body, .. } => HttpReply::Full { delay_ms: 0, status, headers, body },
            HttpReply::Stream { status, headers, frames, end, base64, separate_writes, entry, .. } => {
                let mut frames = frames.into_vec();
                frames.iter_mut().for_each(|frame| frame.delay_ms = 0);
                let frames = frames.into();
                HttpReply::Stream { stall_ms: 0, status, headers, frames, end, base64, separate_writes, entry }
            }
            HttpReply::Abort { .. } => HttpReply::Abort { delay_ms: 0 },
            socket @ HttpReply::Socket { .. } => socket,
        }
    }

    /// The status (0 for an abort).
    pub fn status(&self) -> u16 {
        match self {
            HttpReply::Full { status, .. } | HttpReply::Stream { status, .. } | HttpReply::Socket { status, .. } => {
                *status
            }
            HttpReply::Abort { .. } => 0,
        }
    }

    /// The whole body (a stream's frames concatenated).
    pub fn body_text(&self) -> String {
        match self {
            HttpReply::Full { body, .. } => body.clone(),
            HttpReply::Stream { frames, .. } => frames.iter().map(|f| f.data).collect(),
            HttpReply::Socket { frames, .. } => frames.iter().map(|f| f.data.as_str()).collect::<Vec<_>>().join("\n"),
            HttpReply::Abort { .. } => String::new(),
        }
    }

    /// A header of the reply.
    pub fn header(&self, name: &str) -> Option<&str> {
        match self {
            HttpReply::Full { headers, .. } | HttpReply::Stream { headers, .. } | HttpReply::Socket { headers, .. } => {
                headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_ref())
            }
            HttpReply::Abort { .. } => None,
        }
    }
}

/// Frames, one after the other.
pub type FrameIter = Box<dyn Iterator<Item = Frame> + Send>;

/// The frames of a streamed reply: made as they are read, or given whole (the data form read back).
#[derive(Clone)]
pub struct Frames(Source);

#[derive(Clone)]
enum Source {
    Given(Vec<Frame>),
    Made(Arc<dyn Fn() -> FrameIter + Send + Sync>),
}

impl Frames {
    /// The frames from the first, made as they are taken.
    pub fn iter(&self) -> FrameIter {
        match &self.0 {
            Source::Given(frames) => Box::new(frames.clone().into_iter()),
            Source::Made(make) => make(),
        }
    }

    /// All the frames at once, taken (given frames are moved, not copied).
    pub fn into_vec(self) -> Vec<Frame> {
        match self.0 {
            Source::Given(frames) => frames,
            Source::Made(make) => make().collect(),
        }
    }

    /// All the frames at once.
    pub fn to_vec(&self) -> Vec<Frame> {
        match &self.0 {
            Source::Given(frames) => frames.clone(),
            Source::Made(make) => make().collect(),
        }
    }

    /// Frames made anew, from the first, by `make` at each read: what the protocols' stream encoders give
    /// (`wire::frames::encoded`).
    pub(crate) fn made(make: Arc<dyn Fn() -> FrameIter + Send + Sync>) -> Frames {
        Frames(Source::Made(make))
    }

    /// These frames, each passed through `wrap` (which may keep state, and drop a frame), lazily: `wrap` is made
    /// anew for each read.
    pub(crate) fn wrapped<W>(self, make_wrap: impl Fn() -> W + Send + Sync + 'static) -> Frames
    where
        W: FnMut(Frame) -> Option<Frame> + Send + 'static,
    {
        Frames(Source::Made(Arc::new(move || -> FrameIter { Box::new(self.iter().filter_map(make_wrap())) })))
    }
}

impl From<Vec<Frame>> for Frames {
    fn from(frames: Vec<Frame>) -> Frames {
        Frames(Source::Given(frames))
    }
}

impl std::fmt::Debug for Frames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for Frames {
    fn eq(&self, other: &Frames) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Frames {}

/// As data, the list of frames.
impl Serialize for Frames {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Frames {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Frames, D::Error> {
        Vec::<Frame>::deserialize(deserializer).map(Frames::from)
    }
}

/// `localhost`, `*.localhost`, `127.x.x.x` or `[::1]`, with or without a port.
pub(crate) fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => host
            .rsplit_once(':')
            .map_or(host, |(name, port)| if port.chars().all(|c| c.is_ascii_digit()) { name } else { host }),
    };
    let name = name.to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name == "::1"
        || name.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}
