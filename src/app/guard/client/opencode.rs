//! opencode, through the plugin shipped with callint
//! (`integrations/opencode/callint-guard.js`): on `tool.execute.before` it
//! runs `callint guard --client opencode` with `{"hook_event_name":
//! "tool.execute.before", "tool", "session_id", "call_id", "tool_input",
//! "cwd"}` on standard input, and throws the reason of a denial
//! (`{"decision": "deny", "reason"}` on standard output) as an error, which
//! opencode hands the model instead of running the tool. opencode names an
//! MCP server's tool `<server>_<tool>`.
//!
//! The plugin also hands over the session so far, as opencode's own client
//! gives it (`client.session.messages`: `[{info, parts}]`, the `messages`
//! of `opencode export`) in `messages`. The guard reads them, with the
//! pending call as a running tool part of one more assistant message,
//! through the export reader ([`crate::input::opencode`]), and the live
//! engine judges that part. A hook input without `messages` (an older
//! plugin) is judged by the call alone ([`super::alone`]).

use std::path::PathBuf;

use serde_json::{json, Value};

use super::{event, mcp_name, object, split_single, string, History, Pending};
use crate::app::guard::{judge_appended, voicehook_tool, Hook, Verdict};
use crate::core::escape::one_line;
use crate::input::server::split_mcp_name;
use crate::lint::engine::Linter;
use crate::model::Ms;

/// The `callID` the pending call is given.
const PENDING_ID: &str = "callint-pending";

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
        history: match o.remove("messages") {
            Some(Value::Array(m)) => History::Messages(m),
            _ => History::None(
                "the hook input holds no `messages` (the plugin is older than this callint): the call is judged by itself".into(),
            ),
        },
        server: Default::default(),
    })
}

/// Judge the call `hook` announces against the session's `messages`, at
/// time `now` (or the last message's time, when that is later).
pub(super) fn judge(
    linter: &Linter,
    opts: &crate::input::Options,
    hook: &Hook,
    messages: &[Value],
    now: Ms,
) -> Verdict {
    let name = one_line(&hook.tool_name);
    let (server, tool) = match voicehook_tool(hook) {
        Ok(t) => t,
        Err(v) => return v,
    };
    let mut doc = String::from("{\"info\":{\"id\":\"callint-guard\"},\"messages\":[");
    let mut last: Option<Ms> = None;
    for m in messages {
        let mut m = m.clone();
        // The pending call, if opencode listed it already, is judged once:
        // as the pending one.
        if let (Some(id), Some(parts)) = (
            hook.tool_use_id.as_deref(),
            m.get_mut("parts").and_then(Value::as_array_mut),
        ) {
            parts.retain(|p| p.get("callID").and_then(Value::as_str) != Some(id));
        }
        last = last.max(message_time(&m));
        doc.push_str(&m.to_string());
        doc.push(',');
    }
    let when = last.map_or(now, |t| t.max(now));
    let base = doc.len();
    let pending = json!({
        "info": {"id": PENDING_ID, "role": "assistant", "time": {"created": when}},
        "parts": [{
            "id": PENDING_ID,
            "type": "tool",
            "tool": format!("{server}_{tool}"),
            "callID": PENDING_ID,
            "state": {"status": "running", "input": hook.tool_input, "time": {"start": when}},
        }],
    });
    doc.push_str(&pending.to_string());
    doc.push_str("]}");
    let parsed = crate::input::opencode::parse(doc.as_bytes(), opts);
    judge_appended(linter, parsed, base, server, &name)
}

/// The latest time a message carries (its creation, its tools' ends).
fn message_time(m: &Value) -> Option<Ms> {
    let num = |v: Option<&Value>| v.and_then(Value::as_i64);
    let created = num(m.pointer("/info/time/created"));
    let parts = m
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| num(p.pointer("/state/time/end")).or(num(p.pointer("/state/time/start"))));
    created.into_iter().chain(parts).max()
}
