//! The agent card: both generations' fields in one document (`../shared/spec/a2a.md` §2.3), which a2a-sdk 0.3 and
//! 1.x and @a2a-js/sdk all accept — v0.3's `url`, `protocolVersion` and `preferredTransport` beside v1.0's
//! `supportedInterfaces` (the 1.0 interface first, then the 0.3 one, at the same URL).

use crate::script::a2a::A2aAgent;
use serde_json::{json, Value};

/// The card of `agent`, whose JSON-RPC endpoint is `url`.
pub(super) fn card(agent: &A2aAgent, url: &str) -> Value {
    let modes = |given: &Option<Vec<String>>| given.clone().unwrap_or_else(|| vec!["text/plain".to_string()]);
    let skills: Vec<Value> = agent
        .skills
        .iter()
        .map(|skill| {
            let name = skill.name.clone().unwrap_or_else(|| skill.id.clone());
            let mut made = json!({"id": skill.id, "name": name, "description": skill.description.clone().unwrap_or(name.clone()),
                "tags": skill.tags});
            if let (false, Some(fields)) = (skill.examples.is_empty(), made.as_object_mut()) {
                fields.insert("examples".into(), json!(skill.examples));
            }
            made
        })
        .collect();
    json!({
        "name": agent.name,
        "description": agent.description.clone().unwrap_or_else(|| "A scripted agent (cuecard)".to_string()),
        "version": agent.version.clone().unwrap_or_else(|| "1.0.0".to_string()),
        "url": url,
        "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC",
        "supportedInterfaces": [
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        ],
        "capabilities": {
            "streaming": agent.streaming.unwrap_or(true),
            "pushNotifications": agent.push_notifications.unwrap_or(false),
        },
        "defaultInputModes": modes(&agent.input_modes),
        "defaultOutputModes": modes(&agent.output_modes),
        "skills": skills,
    })
}
