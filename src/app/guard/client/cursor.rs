//! Cursor's `beforeMCPExecution` hook (`.cursor/hooks.json`). Its input
//! names the tool (`tool_name`: the tool's own name, or
//! `MCP:<server>:<tool>`), its arguments (`tool_input`, an object or a JSON
//! string of one), the server by how it is reached (`url`, or the
//! `command` that starts it), the conversation (`conversation_id`) and the
//! project (`workspace_roots`). Cursor reads `{"permission": "allow" |
//! "deny", "user_message", "agent_message"}` on standard output. Its hook
//! input names no session callint reads: the call is judged by itself
//! ([`super::alone`]).

use std::path::PathBuf;

use serde_json::{json, Value};

use super::{event, mcp_name, object, string, History, Pending};
use crate::app::guard::Hook;
use crate::input::server::split_mcp_name;

/// The name given to a server Cursor does not name.
const UNNAMED: &str = "cursor-mcp";

pub(super) fn read(bytes: &[u8]) -> Result<Pending, String> {
    let mut o = object(bytes)?;
    event(&o, "beforeMCPExecution")?;
    let name =
        string(&o, "tool_name").ok_or_else(|| "the hook input has no `tool_name`".to_string())?;
    let tool_input = super::arguments(o.remove("tool_input"))?;
    let tool_name = if split_mcp_name(&name).is_some() {
        name
    } else if let Some((server, tool)) = name
        .strip_prefix("MCP:")
        .and_then(|rest| rest.rsplit_once(':'))
        .filter(|(s, t)| !s.is_empty() && !t.is_empty())
    {
        mcp_name(server, tool)
    } else {
        mcp_name(UNNAMED, &name)
    };
    let hint = ["url", "command"].iter().find_map(|k| string(&o, k));
    let cwd = o
        .get("workspace_roots")
        .and_then(Value::as_array)
        .and_then(|r| r.first())
        .and_then(Value::as_str)
        .or_else(|| o.get("cwd").and_then(Value::as_str))
        .map(PathBuf::from);
    Ok(Pending {
        hook: Hook {
            transcript_path: None,
            session_id: string(&o, "conversation_id"),
            cwd,
            tool_name,
            tool_input,
            agent_id: None,
            tool_use_id: None,
        },
        history: History::None("Cursor's hook input names no session file callint reads".into()),
        server_hint: hint,
    })
}

/// Cursor's answer: `permission`, and with a denial the reason for the
/// user and for the agent.
pub(super) fn answer(permission: &str, reason: Option<&str>) -> String {
    match reason {
        Some(r) => json!({
            "permission": permission,
            "user_message": r,
            "agent_message": r,
        }),
        None => json!({ "permission": permission }),
    }
    .to_string()
}
