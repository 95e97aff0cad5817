//! Gemini CLI's `BeforeTool` hook. Its input names the tool
//! (`tool_name`: `mcp_<server>_<tool>` for an MCP server's), its arguments
//! (`tool_input`), and for an MCP tool `mcp_context` with the server's name
//! and the tool's own (`server_name`, `tool_name`), which are used when
//! given; `cwd`, `session_id`. It denies with `{"decision": "deny",
//! "reason": ...}` on standard output (exit 0), the reason going to the
//! model as the tool's error. Its `transcript_path` is Gemini CLI's own
//! session recording (`ChatRecordingService.getConversationFilePath` in
//! `packages/core/src/hooks/hookEventHandler.ts`; empty when the client
//! records nothing): the call is judged from it as a Claude Code call is
//! from its transcript ([`judge`]), else by itself ([`super::alone`]).
//!
//! The session is read from the line of the call's last `join` or
//! `create_call` on, with the metadata line that starts the file (whose
//! thread it is), and kept between calls. Gemini CLI records a tool call
//! once it has completed, so the pending call is not in the file yet; it
//! is appended as the client will record it (a `gemini` message whose
//! `toolCalls` holds it, not yet answered). Every line is read: a message
//! is written again whole each time it changes, and a `$rewindTo` names
//! any earlier message, so no line can be left out unread.

use crate::core::hash::HashSet;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;

use serde_json::{json, Value};

use super::{event, mcp_name, object, split_single, string, History, Pending};
use crate::app::guard::server::Server;
use crate::app::guard::{Hook, Lines, Shape};
use crate::input::server::function_name;
use crate::input::{gemini, ts};
use crate::model::Ms;

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
    let transcript = string(&o, "transcript_path").map(PathBuf::from);
    let history = match &transcript {
        Some(path) => History::Gemini(path.clone()),
        None => History::None(
            "Gemini CLI's hook input names no session file (the client records none)".into(),
        ),
    };
    Ok(Pending {
        hook: Hook {
            transcript_path: transcript,
            session_id: string(&o, "session_id"),
            cwd: string(&o, "cwd").map(PathBuf::from),
            tool_name,
            tool_input,
            agent_id: None,
            tool_use_id: None,
        },
        history,
        server,
    })
}

/// The id the pending call is given.
const PENDING_ID: &str = "callint-pending";

/// Gemini CLI's session recording.
pub(crate) struct Chats;

impl Shape for Chats {
    type Reader = gemini::Reader;
    const NAME: &'static str = "gemini";
    const FILE: &'static str = "session file";

    fn starts_call(line: &[u8], server: &str) -> bool {
        starts_call(line, server)
    }

    fn drop_pending(_bytes: &mut Vec<u8>, _id: &str) -> Option<usize> {
        // Gemini CLI records a call once it completed: never before.
        None
    }

    fn calls_only(part: &[u8], _server: &str, _all: bool, _ids: &mut HashSet<Vec<u8>>) -> Lines {
        // Every line, as one span (see the module's note).
        if part.is_empty() {
            Vec::new()
        } else {
            vec![(0, part.len())]
        }
    }

    fn pending_entry(hook: &Hook, when: Ms) -> String {
        let name = match crate::input::server::split_mcp_name(&hook.tool_name) {
            Some((server, tool)) => format!("mcp_{server}_{tool}"),
            None => hook.tool_name.clone(),
        };
        let at = ts::format_rfc3339(when);
        json!({
            "id": PENDING_ID,
            "timestamp": at,
            "type": "gemini",
            "content": "",
            "toolCalls": [{
                "id": PENDING_ID,
                "name": name,
                "args": Value::Object(hook.tool_input.clone()),
                "status": "executing",
                "timestamp": at,
            }],
        })
        .to_string()
    }

    fn done_entry(hook: &Hook, answer: &crate::app::guard::feedback::Answer, when: Ms) -> String {
        // The call as Gemini CLI records it once done: its `status`, and
        // the `functionResponse` given to the model with the server's text
        // as its `output` (packages/core/src/utils/generateContentResponseUtilities.ts,
        // `convertToFunctionResponse`).
        let mut e: Value = serde_json::from_str(&Self::pending_entry(hook, when))
            .unwrap_or_else(|_| json!({"toolCalls": [{}]}));
        if let Some(c) = e.pointer_mut("/toolCalls/0").and_then(Value::as_object_mut) {
            let name = c.get("name").cloned().unwrap_or(Value::Null);
            c.insert(
                "status".into(),
                json!(if answer.error { "error" } else { "success" }),
            );
            c.insert(
                "result".into(),
                json!([{"functionResponse": {"id": PENDING_ID, "name": name,
                    "response": {"output": answer.text}}}]),
            );
        }
        e.to_string()
    }

    fn before_call(file: &mut File, tail: u64) -> io::Result<Vec<(u64, Vec<u8>)>> {
        metadata_line(file, tail)
    }
}

/// The most of the first line read for the session's metadata.
const METADATA_MAX: u64 = 64 << 10;

/// The file's first line, when the call starts after it and it is the
/// session's metadata without messages (which says whose thread it is).
fn metadata_line(file: &mut File, tail: u64) -> io::Result<Vec<(u64, Vec<u8>)>> {
    if tail == 0 {
        return Ok(Vec::new());
    }
    file.seek(SeekFrom::Start(0))?;
    let mut head = Vec::new();
    file.by_ref()
        .take(METADATA_MAX.min(tail))
        .read_to_end(&mut head)?;
    let Some(end) = memchr::memchr(b'\n', &head) else {
        return Ok(Vec::new());
    };
    let line = &head[..=end];
    let body = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    let is_meta = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(o)) => gemini::is_start(&o) && !o.contains_key("messages"),
        _ => false,
    };
    Ok(if is_meta {
        vec![(0, line.to_vec())]
    } else {
        Vec::new()
    })
}

/// True when `line` holds a call of `server`'s `join` or `create_call`
/// (in a message's `toolCalls`, or in the messages a line sets), read
/// from its JSON.
fn starts_call(line: &[u8], server: &str) -> bool {
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(line) else {
        return false;
    };
    let starts = |m: &Value| {
        m.get("toolCalls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c.get("name")?.as_str())
            .filter_map(gemini::split_name)
            .any(|(s, t)| s == server && matches!(function_name(t), "join" | "create_call"))
    };
    if o.get("id").is_some_and(Value::is_string) {
        return starts(&Value::Object(o));
    }
    let set = o.get("$set").unwrap_or(&Value::Null);
    let found = [set.get("messages"), o.get("messages")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
        .flatten()
        .any(starts);
    found
}
