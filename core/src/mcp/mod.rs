//! MCP servers scripted in the same scenario as the model: tools answered by steps, resources and prompts, over
//! Streamable HTTP (`/mcp`, `/mcp/{server}` on the wire server, and so every in-process transport) and stdio
//! (`cuecard mcp`). The engine is pure: a JSON-RPC message in, the messages to send out, against the mock's state.
//!
//! Facts are from `../shared/spec/mcp.md`: the handshake era (2024-11-05 to 2025-11-25) is served in full, with the
//! client's version echoed when it is one of those; `server/discover` (2026-07-28) is answered at once with -32601,
//! as a server without that revision answers it, so a client that probes falls back to `initialize` without waiting
//! (the spec's §6.3).
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

/// The version answered to a client asking for one not served (the newest handshake version, as the reference
/// server does).
pub const LATEST_PROTOCOL_VERSION: &str = PROTOCOL_VERSIONS[0];

#[cfg(test)]
mod tests;
