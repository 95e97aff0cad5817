//! opencode, through the plugin shipped with callint
//! (`integrations/opencode/callint-guard.js`): on `tool.execute.before` it
//! runs `callint guard --client opencode` with `{"hook_event_name":
//! "tool.execute.before", "tool", "session_id", "call_id", "tool_input",
//! "cwd"}` on standard input, and throws the reason of a denial
//! (`{"decision": "deny", "reason"}` on standard output) as an error, which
//! opencode hands the model instead of running the tool. opencode names an
//! MCP server's tool `<server>_<tool>`. The session so far is in
//! opencode's storage, which callint does not read: the call is judged by
//! itself ([`super::alone`]).

use std::path::PathBuf;

use super::{event, mcp_name, object, split_single, string, History, Pending};
use crate::app::guard::Hook;
use crate::input::server::split_mcp_name;

pub(super) fn read(bytes: &[u8]) -> Result<Pending, String> {
    let mut o = object(bytes)?;
    event(&o, "tool.execute.before")?;
    let name = string(&o, "tool")
        .or_else(|| string(&o, "tool_name"))
        .ok_or_else(|| "the hook input has no `tool`".to_string())?;
    let tool_input = super::arguments(o.remove("tool_input"))?;
    let tool_name = if split_mcp_name(&name).is_some() {
        name
    } else {
        match split_single(&name) {
            Some((server, tool)) => mcp_name(server, tool),
            None => name,
        }
    };
    Ok(Pending {
        hook: Hook {
            transcript_path: None,
            session_id: string(&o, "session_id"),
            cwd: string(&o, "cwd").map(PathBuf::from),
            tool_name,
            tool_input,
            agent_id: None,
            tool_use_id: string(&o, "call_id"),
        },
        history: History::None("opencode's session is kept where callint does not read it".into()),
        server_hint: None,
    })
}
