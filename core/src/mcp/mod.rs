//! MCP servers scripted in the same scenario as the model: tools answered by steps, resources and prompts, over
//! Streamable HTTP (`/mcp`, `/mcp/{server}` on the wire server, and so every in-process transport) and stdio
//! (`cuecard mcp`). The engine is pure: a JSON-RPC message in, the messages to send out, against the mock's state.
//!
//! Facts are from `../shared/spec/mcp.md`. Both eras are served, as a dual-era server (§1.3):
//! - the handshake revisions (2024-11-05 to 2025-11-25) in full, the client's version echoed when it is one of those,
//!   sessions minted by `initialize`;
//! - the stateless 2026-07-28 revision: a request whose `params._meta` names a protocol version is served without a
//!   handshake or a session, `server/discover` says which versions are served, every result carries `resultType`
//!   (lists and reads also `ttlMs` and `cacheScope`), and over HTTP the `MCP-Protocol-Version`, `Mcp-Method` and
//!   `Mcp-Name` headers are checked (-32020), an unsupported version is -32022 with the versions served.
//!
//! MCP requests have a journal of their own beside the model's (`McpEntry`): the model's request indexes, counts
//! and checks stay about the model, and each MCP entry says how many model requests came before it
//! (`after_requests`), so the two read as one story in arrival order.

mod engine;
mod http;
mod stdio;

pub use crate::script::mcp::{
    Mcp, McpError, McpPrompt, McpPromptArgument, McpPromptMessage, McpResource, McpServer, McpTool, McpToolMatch,
    McpToolStep,
};
pub use http::{handle_http, is_mcp_path};
pub use stdio::{StdioOutput, StdioSession};

pub use crate::journal::{McpEntry, UnusedMcpStep};

/// The handshake versions served, newest first: a client asking for one of them gets it echoed.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The stateless revisions served (a request names one in `params._meta`).
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];

/// The version answered to a client asking for one not served (the newest handshake version, as the reference
/// server does).
pub const LATEST_PROTOCOL_VERSION: &str = PROTOCOL_VERSIONS[0];

#[cfg(test)]
mod tests;
