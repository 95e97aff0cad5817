//! Codex CLI's `PreToolUse` hook. Its input has the fields of Claude
//! Code's (`session_id`, `transcript_path`, `cwd`, `tool_name`,
//! `tool_input`, `tool_use_id`; `agent_id` for a subagent's call), an MCP
//! tool is named `mcp__<server>__<tool>`, and `transcript_path` (which may
//! be null) is the session's rollout file. Codex reads the same denial as
//! Claude Code (`hookSpecificOutput.permissionDecision: "deny"`); it has
//! no other decision worth giving, so an allowed call gets no output.
//!
//! Without a `transcript_path`, the rollout is looked for where Codex
//! writes them: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<session
//! id>.jsonl` (`~/.codex` when `CODEX_HOME` is not set).

use std::path::{Path, PathBuf};

use super::{event, object, string, History, Pending};
use crate::app::guard::Hook;

pub(super) fn read(bytes: &[u8]) -> Result<Pending, String> {
    let mut o = object(bytes)?;
    event(&o, "PreToolUse")?;
    let tool_name =
        string(&o, "tool_name").ok_or_else(|| "the hook input has no `tool_name`".to_string())?;
    let tool_input = super::arguments(o.remove("tool_input"))?;
    let session_id = string(&o, "session_id");
    let given = string(&o, "transcript_path").map(PathBuf::from);
    let history = match given.or_else(|| session_id.as_deref().and_then(find_rollout)) {
        Some(p) => History::Rollout(p),
        None => History::None(
            "the hook input names no rollout file, and none of this session was found in Codex's sessions folder".into(),
        ),
    };
    Ok(Pending {
        hook: Hook {
            transcript_path: None,
            session_id,
            cwd: string(&o, "cwd").map(PathBuf::from),
            tool_name,
            tool_input,
            agent_id: string(&o, "agent_id"),
            tool_use_id: string(&o, "tool_use_id"),
        },
        history,
        server: Default::default(),
    })
}

/// Codex's own folder: `$CODEX_HOME`, else `~/.codex`.
fn codex_home() -> Option<PathBuf> {
    std::env::var_os("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".codex"))
        })
}

/// The rollout file of session `id`, searched in Codex's sessions folder
/// (the latest days first).
fn find_rollout(id: &str) -> Option<PathBuf> {
    // An id is a UUID: anything that could leave the folder is none.
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return None;
    }
    let suffix = format!("-{id}.jsonl");
    search(&codex_home()?.join("sessions"), &suffix, 3)
}

/// The file below `dir` (at most `depth` folders down) whose name starts
/// with `rollout-` and ends with `suffix`; the folders searched in reverse
/// name order (the latest dates first).
fn search(dir: &Path, suffix: &str, depth: u32) -> Option<PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir).ok()?.flatten().collect();
    entries.sort_by_key(|e| std::cmp::Reverse(e.file_name()));
    for e in entries {
        let path = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_file() && name.starts_with("rollout-") && name.ends_with(suffix) {
            return Some(path);
        }
        if kind.is_dir() && depth > 0 {
            if let Some(p) = search(&path, suffix, depth - 1) {
                return Some(p);
            }
        }
    }
    None
}
