//! A pending call judged by itself, for a client whose hook input names no
//! session callint can read: only the rules that judge a record by what it
//! holds ([`rules::judges_alone`]) are run, and the guard says which were not.
//! Judged without the call so far, the others would guess: an "On it."
//! looks unaddressed when the question put to the agent is not there.

use serde_json::{json, Value};

use super::Pending;
use crate::app::guard::Verdict;
use crate::core::escape::one_line;
use crate::input::server::{function_name, split_mcp_name, FUNCTIONS};
use crate::input::{claude, ts};
use crate::lint::engine::Linter;
use crate::model::{Body, Ms};
use crate::rules;

/// The agent a pending call judged alone is made by, when nothing names it.
const SOMEONE: &str = "this agent";

/// Judge `pending` by itself at time `now`; `why` says why the session
/// cannot be read. The note names the rules left unjudged.
pub fn judge(
    linter: &Linter,
    opts: &crate::input::Options,
    pending: &Pending,
    now: Ms,
    why: &str,
) -> (Verdict, Option<String>) {
    let hook = &pending.hook;
    let name = one_line(&hook.tool_name);
    let Some((server, tool)) = split_mcp_name(&hook.tool_name) else {
        return (
            Verdict::Allow(format!("{name} is not a tool of an MCP server")),
            None,
        );
    };
    if !FUNCTIONS.contains(&function_name(tool)) {
        return (
            Verdict::Allow(format!("{name} is no voicehook function")),
            None,
        );
    }
    // With no session to tell the server by its calls, what the client
    // said of it must (`opts` names it then: [`super::judge_with`]), or
    // the call's own shape (a `create_call`, a board).
    let mut entry = json!({
        "type": "assistant",
        "timestamp": ts::format_rfc3339(now),
        "isSidechain": hook.agent_id.is_some(),
        "message": {
            "role": "assistant",
            "content": [{
                "type": "tool_use",
                "id": "callint-pending",
                "name": hook.tool_name,
                "input": hook.tool_input,
            }],
        },
    });
    if let Some(a) = &hook.agent_id {
        entry["agentId"] = Value::String(a.clone());
    }
    let parsed = claude::parse(entry.to_string().as_bytes(), opts);
    let pending_record = parsed.logs.into_iter().next().and_then(|log| {
        let meta = log.meta;
        log.records
            .into_iter()
            .rfind(|r| matches!(r.body, Body::Fn(_)))
            .map(|r| (meta, r))
    });
    let Some((meta, record)) = pending_record else {
        return (Verdict::Allow(crate::app::guard::not_known(server)), None);
    };
    // The rules about the agent's own lines look at the lines of the
    // agent a call names; with no join before it, the pending call is the
    // agent's by saying so.
    let mut record = record;
    let origin = std::sync::Arc::make_mut(record.origin.get_or_insert_with(Default::default));
    if origin.agent.is_none() {
        origin.agent = Some(SOMEONE.into());
    }
    let mut found = crate::lint::live::judge_pending(linter, meta.as_ref(), Vec::new(), record);
    found.retain(|d| rules::judges_alone(d.rule));
    let left: Vec<&str> = rules::all()
        .iter()
        .map(|r| r.meta())
        .filter(|m| m.judges_pending() && m.when != crate::core::meta::When::Record)
        .map(|m| m.name)
        .filter(|r| linter.is_active(r))
        .collect();
    let note = (!left.is_empty()).then(|| {
        format!(
            "judged by the call alone: {why}; not judged, as they need the call so far: {} (the MCP proxy, `callint proxy`, sees the whole call)",
            left.join(", ")
        )
    });
    (Verdict::Judged(found), note)
}
