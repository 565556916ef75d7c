//! Remote agents over the Agent2Agent protocol (issue #53): the scenario's `a2a` agents, each served as an A2A server
//! beside the model and MCP — its card at the well-known paths, JSON-RPC in both generations on one endpoint (v0.3's
//! `message/send` and v1.0's `SendMessage` are told apart by name, `../shared/spec/a2a.md` §1), tasks through their
//! states, streams that close when the task ends, and the A2A journal beside the model's.
//!
//! - `card`: the agent card both generations of client accept;
//! - `engine`: a JSON-RPC request answered (steps taken, tasks kept);
//! - `render`: the objects in the request's generation;
//! - `http`: the paths, the HTTP replies and SSE;
//! - `push`: webhooks told where a task ended (loopback only).

mod card;
mod engine;
mod http;
mod push;
mod render;

pub use http::{handle_http, is_a2a_path};

/// Whether this build serves A2A agents (the WebAssembly module does not: `absent.rs`).
pub const SERVED: bool = true;

#[cfg(test)]
mod tests;
