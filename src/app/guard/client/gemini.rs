//! Gemini CLI's `BeforeTool` hook. Its input names the tool
//! (`tool_name`: `mcp_<server>_<tool>` for an MCP server's), its arguments
//! (`tool_input`), and for an MCP tool `mcp_context` with the server's name
//! and the tool's own (`server_name`, `tool_name`), which are used when
//! given; `cwd`, `session_id`. It denies with `{"decision": "deny",
//! "reason": ...}` on standard output (exit 0), the reason going to the
//! model as the tool's error. Its `transcript_path` is Gemini CLI's own
//! session file, which callint does not read: the call is judged by
//! itself ([`super::alone`]).

use std::path::PathBuf;

use serde_json::Value;

use super::{event, mcp_name, object, split_single, string, History, Pending};
use crate::app::guard::server::Server;
use crate::app::guard::Hook;

pub(super) fn read(bytes: &[u8]) -> Result<Pending, String> {
    let mut o = object(bytes)?;
    event(&o, "BeforeTool")?;
    let name =
        string(&o, "tool_name").ok_or_else(|| "the hook input has no `tool_name`".to_string())?;
    let tool_input = super::arguments(o.remove("tool_input"))?;
    let context = o.get("mcp_context").and_then(Value::as_object);
    let field = |k: &str| context.and_then(|c| super::string(c, k));
    let tool_name = match (field("server_name"), field("tool_name")) {
        (Some(server), Some(tool)) => mcp_name(&server, &tool),
        _ => match name.strip_prefix("mcp_").and_then(split_single) {
            Some((server, tool)) => mcp_name(server, tool),
            None => name.clone(),
        },
    };
    // What `mcp_context` says of the server: how it is reached (`url`,
    // `tcp`; `command` and `args` for one it starts) and the tool's own
    // name (packages/core/src/hooks/types.ts, `McpToolContext`).
    let command = field("command").map(|c| {
        let args = context
            .and_then(|c| c.get("args"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        format!("{c} {args}").trim().to_string()
    });
    let server = Server {
        name: String::new(),
        url: field("url").or_else(|| field("tcp")),
        command,
        tool: field("tool_name").or(Some(name.clone())),
    };
    Ok(Pending {
        hook: Hook {
            transcript_path: None,
            session_id: string(&o, "session_id"),
            cwd: string(&o, "cwd").map(PathBuf::from),
            tool_name,
            tool_input,
            agent_id: None,
            tool_use_id: None,
        },
        history: History::None(
            "Gemini CLI's hook input names no session file callint reads".into(),
        ),
        server,
    })
}
