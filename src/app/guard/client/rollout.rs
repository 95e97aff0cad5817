//! A pending call of Codex judged from the session's rollout file: the
//! lines the rules that judge a pending call read ([`calls_only`]) are read
//! through the rollout reader ([`crate::input::codex`]), with the pending
//! call appended as Codex writes a tool call (a `response_item`
//! `function_call`), and the live engine judges that record
//! ([`crate::lint::live::Live::judge`]).
//!
//! Every line the guard looks at itself is read as JSON, whatever its
//! spacing or key order: the time of the last entry, and the pending call
//! when Codex wrote it before running the hook (its `call_id` is the hook's
//! `tool_use_id`), which is taken out so that the call is judged once.

use serde_json::{json, Value};

use crate::app::guard::{judge_appended, only_calls_read, voicehook_tool, Hook, Verdict};
use crate::core::escape::{file_name, one_line};
use crate::input::{codex, ts};
use crate::lint::engine::Linter;
use crate::model::Ms;

/// How many lines from the end are tried for the time of the last entry.
const TIME_TRIES: usize = 16;

/// The `call_id` the pending call is given.
const PENDING_ID: &str = "callint-pending";

/// Judge the call `hook` announces, from the rollout file at `path`, at
/// time `now` (or the file's last time, when that is later).
pub fn judge(linter: &Linter, hook: &Hook, path: &std::path::Path, now: Ms) -> Verdict {
    let name = one_line(&hook.tool_name);
    let (server, _) = match voicehook_tool(hook) {
        Ok(t) => t,
        Err(v) => return v,
    };
    let mut bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            return Verdict::Allow(format!(
                "cannot read the rollout file {}: {e}",
                file_name(&path.to_string_lossy())
            ))
        }
    };
    if cut_off(&bytes) {
        return Verdict::Allow(
            "the rollout file's last line is cut off (still being written); the call was not judged"
                .into(),
        );
    }
    if let Some(id) = &hook.tool_use_id {
        drop_call(&mut bytes, id);
    }
    let when = last_time(&bytes).map_or(now, |t| t.max(now));
    if !bytes.is_empty() && bytes.last() != Some(&b'\n') {
        bytes.push(b'\n');
    }
    if only_calls_read(linter) {
        bytes = calls_only(&bytes, server);
    }
    let base = bytes.len();
    let entry = json!({
        "timestamp": ts::format_rfc3339(when),
        "type": "response_item",
        "payload": {
            "type": "function_call",
            "name": hook.tool_name,
            "arguments": Value::Object(hook.tool_input.clone()).to_string(),
            "call_id": PENDING_ID,
        },
    });
    bytes.extend_from_slice(entry.to_string().as_bytes());
    bytes.push(b'\n');
    let parsed = codex::parse(&bytes, linter.read_options());
    judge_appended(linter, parsed, base, server, &name)
}

/// The lines of `bytes` that can matter to a rule judging a pending call
/// of `server`, which reads neither the chat with the agent's user nor the
/// agent's other tools ([`only_calls_read`]):
/// the session's `session_meta` (the thread), the server's calls, and the
/// lines that answer them (by `call_id`). A rollout's other lines (shell
/// output, file reads, the model's messages) are most of its bytes.
///
/// A line is left out only when it surely is none of those: it holds
/// neither the server's tool prefix, nor `session_meta`, nor an MCP call's
/// event, nor `\u` (which could spell any of them another way), and the
/// `call_id` it carries, read from its JSON, is none of the server's. So
/// the choice does not depend on how the JSON is spaced or ordered.
fn calls_only(bytes: &[u8], server: &str) -> Vec<u8> {
    use memchr::memmem::Finder;
    let prefix = format!("mcp__{server}__");
    let always = [
        Finder::new(prefix.as_bytes()),
        Finder::new(b"session_meta"),
        Finder::new(b"mcp_tool_call"),
        Finder::new(b"\\u"),
    ];
    let has_id = Finder::new(b"call_id");
    let mut ids: crate::core::hash::HashSet<String> = crate::core::hash::HashSet::default();
    let mut out = Vec::with_capacity(bytes.len() / 4);
    for (_, line) in lines(bytes) {
        let keep = if always.iter().any(|f| f.find(line).is_some()) {
            if let Some(id) = line_call_id(line) {
                ids.insert(id);
            }
            true
        } else {
            has_id.find(line).is_some() && line_call_id(line).is_none_or(|id| ids.contains(&id))
        };
        if keep {
            out.extend_from_slice(line);
        }
    }
    out
}

/// The `call_id` of a rollout line's payload, read from its JSON.
fn line_call_id(line: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Line {
        #[serde(default)]
        payload: Option<Payload>,
    }
    #[derive(serde::Deserialize)]
    struct Payload {
        #[serde(default)]
        call_id: Option<Value>,
    }
    match serde_json::from_slice::<Line>(line)
        .ok()?
        .payload?
        .call_id?
    {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// True when the last line has no line break after it and is no complete
/// JSON value: Codex is still writing it.
fn cut_off(bytes: &[u8]) -> bool {
    if bytes.last().is_none_or(|&b| b == b'\n') {
        return false;
    }
    let start = memchr::memrchr(b'\n', bytes).map_or(0, |k| k + 1);
    let last = &bytes[start..];
    !last.iter().all(u8::is_ascii_whitespace)
        && serde_json::from_slice::<serde::de::IgnoredAny>(last).is_err()
}

/// The lines of `bytes`, each with its start.
fn lines(bytes: &[u8]) -> impl DoubleEndedIterator<Item = (usize, &[u8])> {
    let mut start = 0;
    bytes
        .split_inclusive(|&b| b == b'\n')
        .map(move |l| {
            let at = start;
            start += l.len();
            (at, l)
        })
        .collect::<Vec<_>>()
        .into_iter()
}

/// Take out the lines that carry the call `id` as Codex writes it before
/// running the hook (a `function_call`, and the `mcp_tool_call_begin`
/// event), so that it is judged once, as the pending call.
fn drop_call(bytes: &mut Vec<u8>, id: &str) {
    let finder = memchr::memmem::Finder::new(id.as_bytes());
    let mut out = Vec::with_capacity(bytes.len());
    let mut changed = false;
    for (_, line) in lines(bytes) {
        // Only a line holding the id's characters can hold it (a line
        // escaping them, `\u0063`, is read and kept as it is).
        let carries = finder.find(line).is_some()
            && serde_json::from_slice::<Value>(line).is_ok_and(|v| {
                let p = &v["payload"];
                p["call_id"].as_str() == Some(id)
                    && matches!(
                        (v["type"].as_str(), p["type"].as_str()),
                        (Some("response_item"), Some("function_call"))
                            | (Some("event_msg"), Some("mcp_tool_call_begin"))
                    )
            });
        if carries {
            changed = true;
        } else {
            out.extend_from_slice(line);
        }
    }
    if changed {
        *bytes = out;
    }
}

/// The time of the last entry that has one, among the last
/// [`TIME_TRIES`] lines.
fn last_time(bytes: &[u8]) -> Option<Ms> {
    lines(bytes)
        .rev()
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
        .take(TIME_TRIES)
        .find_map(|(_, l)| {
            let v: Value = serde_json::from_slice(l).ok()?;
            ts::parse_rfc3339(v.get("timestamp")?.as_str()?)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pending_call_is_found_and_taken_out_in_any_spacing() {
        let compact = "{\"timestamp\":\"2026-10-10T10:00:01.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"mcp__vh__say\",\"arguments\":\"{}\",\"call_id\":\"c7\"}}\n";
        let spaced = "{ \"payload\" : { \"call_id\" : \"c7\", \"type\" : \"function_call\" }, \"type\" : \"response_item\", \"timestamp\" : \"2026-10-10T10:00:02.000Z\" }\n";
        let other = "{\"timestamp\":\"2026-10-10T10:00:03.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_message\",\"message\":\"c7\"}}\n";
        for line in [compact, spaced] {
            let mut b = format!("{other}{line}").into_bytes();
            assert_eq!(
                last_time(&b),
                ts::parse_rfc3339(if line == compact {
                    "2026-10-10T10:00:01.000Z"
                } else {
                    "2026-10-10T10:00:02.000Z"
                })
            );
            drop_call(&mut b, "c7");
            assert_eq!(b, other.as_bytes());
        }
        assert!(cut_off(b"{\"a\":1}\n{\"times"));
        assert!(!cut_off(b"{\"a\":1}"));
    }
}
