//! Cursor's `beforeMCPExecution` hook (`.cursor/hooks.json`). Its input
//! names the tool (`tool_name`: the tool's own name, or
//! `MCP:<server>:<tool>`), its arguments (`tool_input`, an object or a JSON
//! string of one), the server by its name (`mcp_server_name`) and by how it
//! is reached (`mcp_server_url` or `url`, or the `command` that starts it;
//! all go to [`crate::app::guard::server::is_voicehook`]), the conversation (`conversation_id`) and the
//! project (`workspace_roots`). Cursor reads `{"permission": "allow" |
//! "deny" | "ask", "user_message", "agent_message"}` on standard output
//! (<https://cursor.com/docs/agent/hooks>, "beforeShellExecution /
//! beforeMCPExecution"). Its hook input names no session callint reads:
//! the call is judged by itself ([`super::alone`]).
//!
//! The guard only ever writes `"deny"`. In Cursor an `"allow"` from a hook
//! approves the call in the user's stead (the user's own approval of an MCP
//! tool is skipped), and `"ask"` forces a prompt the user may have turned
//! off; either would change what the user chose. For every call it does not
//! deny (another server's, one it cannot read, one that breaks no rule) the
//! guard writes nothing and exits 0: Cursor's hook contract takes a hook
//! that gives no decision as one that did not decide (it fails open), and
//! the call goes on to the approval the user configured, exactly as without
//! the hook. `guard install` never sets `failClosed` on its entry, since
//! with it Cursor would refuse a hook that answers nothing.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::{event, mcp_name, object, string, History, Pending};
use crate::app::guard::server::Server;
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
    // The server as Cursor names it (`mcp_server_name`), else as the tool's
    // name says (`MCP:<server>:<tool>`).
    let tool_name = if split_mcp_name(&name).is_some() {
        name.clone()
    } else if let Some((server, tool)) = name
        .strip_prefix("MCP:")
        .and_then(|rest| rest.rsplit_once(':'))
        .filter(|(s, t)| !s.is_empty() && !t.is_empty())
    {
        mcp_name(server, tool)
    } else {
        mcp_name(
            string(&o, "mcp_server_name").as_deref().unwrap_or(UNNAMED),
            &name,
        )
    };
    // How Cursor reaches it: `mcp_server_url` (or `url`), `command`.
    let server = Server {
        name: String::new(),
        url: string(&o, "mcp_server_url").or_else(|| string(&o, "url")),
        command: string(&o, "command"),
        tool: Some(name.clone()),
    };
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
        server,
    })
}

/// Cursor's denial, with the reason for the user and for the agent. There
/// is no allowing counterpart, on purpose (see the module's note).
pub(super) fn deny(reason: &str) -> String {
    json!({
        "permission": "deny",
        "user_message": reason,
        "agent_message": reason,
    })
    .to_string()
}
