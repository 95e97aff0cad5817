//! `callint guard feedback`: what the call so far shows once a voicehook
//! call was made, told to the agent right after it.
//!
//! Some rules can judge a record only once what follows it is known
//! ([`When::After`](crate::core::meta::When): no greeting within 3 s of a
//! join, the join sequence out of order, a slow acknowledgement, text
//! after the call's link). The guard before a call cannot run them; a hook
//! after the call can, and the client hands what it says to the model with
//! the tool's answer, so that the agent corrects itself in its next step.
//!
//! The session is read as for the guard before a call ([`super::read_session_with`],
//! the same session readers and kept state, in a folder of its own, as
//! every line is read here), with the call just made and its answer
//! appended as the client records them ([`super::Shape::done_entry`]), and
//! the rules that look ahead run over the call so far through the live
//! engine ([`crate::lint::live::settled`]): exactly what `check` finds of
//! them on the session as it then is. Each finding is told once a session
//! (a key per finding, [`Told::key`]); nothing is written when there is
//! nothing new to say.
//!
//! The clients and what they do with the answer:
//!
//! | client | hook | answer | source of the contract |
//! |---|---|---|---|
//! | Claude Code | `PostToolUse` | `hookSpecificOutput.additionalContext` | the hooks reference (docs.claude.com, "PostToolUse decision control") |
//! | Codex | `PostToolUse` | the same | `codex-rs/hooks/src/events/post_tool_use.rs` (`parse_completed`, `additional_contexts_for_model`) |
//! | Gemini CLI | `AfterTool` | `hookSpecificOutput.additionalContext` | `packages/core/src/hooks/types.ts` (`AfterToolOutput`), `packages/core/src/core/coreToolHookTriggers.ts` (appended to the tool's answer in `<hook_context>`) |
//!
//! None of these answers blocks or undoes anything: the call already ran,
//! and the model's turn goes on. Cursor and opencode have no hook after a
//! call that passes text to the model.

use serde_json::{json, Value};

use super::client::{self, Client, History, Pending};
use super::{voicehook_tool, Appending, Keep, Shape, Verdict};
use crate::core::diagnostic::{Diagnostic, Severity};
use crate::core::meta::Evidence;
use crate::lint::engine::Linter;
use crate::model::{Body, Ms};

/// What a tool answered, as the session records it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answer {
    /// The text of the answer (a voicehook function answers JSON).
    pub text: String,
    /// The call failed (an error result).
    pub error: bool,
}

/// A call done, as a client's post-tool hook hands it over.
#[derive(Debug)]
pub struct Done {
    pub pending: Pending,
    pub answer: Answer,
}

/// The name of the client's hook after a tool call and of its hook before
/// one; `None` for a client without a hook after a call that passes text
/// to the model.
pub fn events(client: Client) -> Option<(&'static str, &'static str)> {
    match client {
        Client::ClaudeCode | Client::Codex => Some(("PostToolUse", "PreToolUse")),
        Client::Gemini => Some(("AfterTool", "BeforeTool")),
        Client::Cursor | Client::Opencode => None,
    }
}

/// Read a client's post-tool hook input: the fields of its pre-tool hook
/// input, read as those are ([`Client::read`]), and the tool's answer
/// (`tool_response`).
pub fn read(client: Client, bytes: &[u8]) -> Result<Done, String> {
    let Some((after, before)) = events(client) else {
        return Err(format!(
            "{} has no hook after a tool call that passes text to the model",
            client.name()
        ));
    };
    let v: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("the hook input is not JSON ({e})"))?;
    let Value::Object(mut o) = v else {
        return Err("the hook input is not a JSON object".into());
    };
    match o.get("hook_event_name") {
        None => {}
        Some(e) if e.as_str() == Some(after) => {}
        Some(e) => {
            return Err(format!(
                "the hook input is for {}, not {after}",
                crate::core::escape::one_line(&e.to_string())
            ))
        }
    }
    o.insert("hook_event_name".into(), json!(before));
    let response = o.remove("tool_response").unwrap_or(Value::Null);
    let pending = client.read(Value::Object(o).to_string().as_bytes())?;
    Ok(Done {
        pending,
        answer: answer_of(&response),
    })
}

/// The answer a `tool_response` holds: an MCP `CallToolResult`
/// (`content` blocks, `isError`; Claude Code and Codex), its list of
/// content blocks, Gemini CLI's `{llmContent, returnDisplay, error}`
/// (packages/core/src/hooks/types.ts, `AfterToolInput`), or a text.
pub fn answer_of(v: &Value) -> Answer {
    if let Some(o) = v.as_object() {
        if o.contains_key("llmContent") || o.contains_key("returnDisplay") {
            let error = o.get("error").filter(|e| !e.is_null());
            let text = error
                .and_then(|e| e.get("message").and_then(Value::as_str).map(str::to_string))
                .or_else(|| o.get("llmContent").and_then(text_of))
                .or_else(|| o.get("returnDisplay").and_then(text_of))
                .unwrap_or_default();
            return Answer {
                text,
                error: error.is_some(),
            };
        }
        if let Some(content) = o.get("content") {
            return Answer {
                text: text_of(content).unwrap_or_default(),
                error: o.get("isError").and_then(Value::as_bool) == Some(true),
            };
        }
    }
    Answer {
        text: text_of(v).unwrap_or_else(|| v.to_string()),
        error: false,
    }
}

/// The text of an answer's content: a string, a block's `text`, the
/// `output` (or `content`) of a Gemini CLI `functionResponse`, the texts
/// of a list of those, one a line.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => {
            let texts: Vec<String> = items.iter().filter_map(text_of).collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        Value::Object(o) => {
            if let Some(t) = o.get("text").and_then(Value::as_str) {
                return Some(t.to_string());
            }
            if let Some(r) = o.get("functionResponse").and_then(|f| f.get("response")) {
                return r
                    .get("output")
                    .and_then(text_of)
                    .or_else(|| r.get("content").and_then(text_of));
            }
            o.get("content").and_then(text_of)
        }
        _ => None,
    }
}

/// A finding told after a call, with the key it is told once a session
/// by: the rule, the call, and the time and place in the session of the
/// record it is about, which stay the same however often the session is
/// read.
#[derive(Debug)]
pub struct Told {
    pub key: String,
    pub finding: Diagnostic,
}

/// What the feedback after a call comes to.
#[derive(Debug)]
pub enum Feedback {
    /// Nothing was judged, for the reason given (none: another server's
    /// tool, of which nothing is said).
    Unjudged(Option<String>),
    /// What the rules that look ahead find on the call so far (perhaps
    /// nothing), findings of severity info left out.
    Found(Vec<Told>),
}

/// The folder of the states kept for the feedback, inside the guard's:
/// they read every line of a session, those of the guard before a call
/// only some.
pub fn kept_dir(dir: &std::path::Path) -> std::path::PathBuf {
    dir.join("after")
}

/// Judge the call so far once the call `done` announces was made, at time
/// `now` (or the session's last time, when that is later), with the
/// servers `[guard] servers` lists, keeping what was read as `keep` says.
pub fn judge(
    linter: &Linter,
    done: &Done,
    guard_servers: &[String],
    now: Ms,
    keep: Option<Keep<'_>>,
) -> Feedback {
    let pending = &done.pending;
    let opts = match client::options(linter, pending, guard_servers) {
        Ok(o) => o,
        Err(_) => return Feedback::Unjudged(None),
    };
    let hook = &pending.hook;
    let server = match voicehook_tool(hook) {
        Ok((s, _)) => s.to_string(),
        Err(_) => return Feedback::Unjudged(None),
    };
    let dir = keep.map(|k| kept_dir(k.dir));
    let keep = keep.zip(dir.as_deref()).map(|(k, dir)| Keep { dir, ..k });
    let read = |path: &std::path::Path| -> Result<(crate::input::Parsed, usize), Verdict> {
        match &pending.history {
            History::Claude => read_done::<super::Claude>(&opts, done, path, &server, now, keep),
            History::Rollout(_) => {
                read_done::<client::rollout::Rollout>(&opts, done, path, &server, now, keep)
            }
            _ => read_done::<client::gemini::Chats>(&opts, done, path, &server, now, keep),
        }
    };
    let read = match &pending.history {
        History::Claude => match &hook.transcript_path {
            Some(p) => read(p),
            None => return Feedback::Unjudged(Some("the hook input names no transcript".into())),
        },
        History::Rollout(p) | History::Gemini(p) => read(p),
        History::Messages(_) => {
            return Feedback::Unjudged(Some("the client hands over no session to read".into()))
        }
        History::None(why) => return Feedback::Unjudged(Some(why.clone())),
    };
    let (parsed, base) = match read {
        Ok(r) => r,
        Err(Verdict::Allow(why) | Verdict::Unread(why)) => {
            return Feedback::Unjudged(Some(why));
        }
        Err(Verdict::Judged(_)) => return Feedback::Unjudged(None),
    };
    let unknown_roles = parsed.unknown_roles.is_some();
    let Some(log) = parsed
        .logs
        .into_iter()
        .find(|log| log.records.iter().any(|r| r.span.start >= base))
    else {
        return Feedback::Unjudged(Some(format!(
            "{} could not be read as a voicehook call",
            crate::core::escape::one_line(&hook.tool_name)
        )));
    };
    let done_at = log.records.iter().rposition(|r| r.span.start >= base);
    if done_at.is_none_or(|k| !matches!(log.records[k].body, Body::Fn(_))) {
        return Feedback::Unjudged(Some(super::not_known(&server)));
    }
    // Where each record starts, for the place of a finding's record.
    let starts: Vec<(usize, Option<Ms>)> =
        log.records.iter().map(|r| (r.span.start, r.ts)).collect();
    // The agent's turn is still going on when its hook runs after a call:
    // it starts after the user's last message or the agent's last message
    // that ended a turn.
    let turn = log
        .records
        .iter()
        .rposition(|r| match &r.body {
            Body::Chat(c) => c.role == "user" || c.is_assistant() && c.turn_end && r.is_main(),
            _ => false,
        })
        .map_or(0, |k| k + 1);
    let found = crate::lint::live::settled(linter, log.meta.as_ref(), log.records);
    let told = found
        .into_iter()
        .filter(|d| d.severity > Severity::Info)
        .filter(|d| {
            // As `check` does: no rule that needs the roles on speech that
            // does not say who is who.
            !unknown_roles
                || !crate::rules::meta(d.rule).is_some_and(|m| m.needs.covers(Evidence::ROLES))
        })
        .filter_map(|d| {
            let at = d.primary.at.span.start;
            let k = starts.iter().rposition(|&(s, _)| s <= at).unwrap_or(0);
            // A rule that reads the chat judges a turn of the agent as a
            // whole (the link as its last line, work before the link): on
            // the turn still going on it waits until the turn ended.
            let chat = crate::rules::meta(d.rule).is_some_and(|m| m.needs.covers(Evidence::CHAT));
            if chat && k >= turn {
                return None;
            }
            let ts = starts.get(k).and_then(|&(_, t)| t);
            // Not what it says: a finding's words may grow with what
            // follows (a name learnt later), and it is told once.
            let key = format!(
                "after\n{}\n{}\n{k}\n{ts:?}",
                d.rule,
                d.call.as_deref().unwrap_or("")
            );
            Some(Told { key, finding: d })
        })
        .collect();
    Feedback::Found(told)
}

/// The session of shape `S` at `path` as it is once the call `done`
/// announces was made: read as [`super::read_session`] reads it, every
/// line, with the call and its answer appended as the client records
/// them (taken out first where the client wrote them already).
fn read_done<S: Shape>(
    opts: &crate::input::Options,
    done: &Done,
    path: &std::path::Path,
    server: &str,
    now: Ms,
    keep: Option<Keep<'_>>,
) -> Result<(crate::input::Parsed, usize), Verdict> {
    let hook = &done.pending.hook;
    let id = hook.tool_use_id.as_deref();
    let appending = Appending {
        entry: &|when| S::done_entry(hook, &done.answer, when),
        drop: &|bytes| id.and_then(|id| S::drop_done(bytes, id)),
        all: true,
        // The rules after a call judge what followed a `create_call` (the
        // link, the turn that hands it over) across the joins after it:
        // the session is read as `check` reads it, from its start.
        whole: true,
    };
    super::read_session_with::<S>(opts, hook, path, server, now, keep, &appending)
}

/// The text told to the agent: each finding's rule, what is wrong and
/// what to do instead, within `max` bytes.
pub fn message(told: &[&Diagnostic], max: usize) -> String {
    let said = super::reason_within(told, max.saturating_sub(PREFIX.len()));
    format!("{PREFIX}{said}")
}

/// What the feedback starts with.
const PREFIX: &str = "After your last voicehook call, the call so far shows: ";

/// What the client reads from its post-tool hook to pass `text` to the
/// model with the tool's answer, without blocking anything.
pub fn output(client: Client, text: &str) -> Option<String> {
    let (event, _) = events(client)?;
    Some(
        json!({
            "hookSpecificOutput": {
                "hookEventName": event,
                "additionalContext": text,
            }
        })
        .to_string(),
    )
}

/// Take the `tool_result` blocks answering call `id` out of a Claude Code
/// transcript's `bytes`; where the first line changed starts.
pub(crate) fn drop_result(bytes: &mut Vec<u8>, id: &str) -> Option<usize> {
    let quoted = serde_json::to_string(id).ok()?;
    let mut before = bytes.len();
    let mut first = None;
    while let Some(at) = memchr::memmem::rfind(&bytes[..before], quoted.as_bytes()) {
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |k| k + 1);
        before = start;
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |k| at + k);
        let Ok(mut entry) = serde_json::from_slice::<Value>(&bytes[start..end]) else {
            if start == 0 {
                break;
            }
            continue;
        };
        let Some(blocks) = entry
            .pointer_mut("/message/content")
            .and_then(Value::as_array_mut)
        else {
            if start == 0 {
                break;
            }
            continue;
        };
        let n = blocks.len();
        blocks.retain(|b| {
            !(b.get("type").and_then(Value::as_str) == Some("tool_result")
                && b.get("tool_use_id").and_then(Value::as_str) == Some(id))
        });
        if blocks.len() != n {
            let line = entry.to_string();
            bytes.splice(start..end, line.into_bytes());
            first = Some(start);
        }
        if start == 0 {
            break;
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_in_each_clients_shape() {
        // An MCP CallToolResult (Claude Code, Codex)
        let a = answer_of(&json!({"content": [{"type": "text", "text": "{\"say_id\":\"s1\"}"}]}));
        assert_eq!(a.text, "{\"say_id\":\"s1\"}");
        assert!(!a.error);
        let e = answer_of(&json!({"content": [{"type": "text", "text": "409"}], "isError": true}));
        assert!(e.error && e.text == "409");
        // its blocks alone, and a text
        assert_eq!(answer_of(&json!([{"type": "text", "text": "x"}])).text, "x");
        assert_eq!(answer_of(&json!("plain")).text, "plain");
        // Gemini CLI's llmContent, and its error
        let g = answer_of(
            &json!({"llmContent": [{"text": "{\"a\":1}"}], "returnDisplay": "{\"a\":1}"}),
        );
        assert_eq!(g.text, "{\"a\":1}");
        let ge = answer_of(
            &json!({"llmContent": "x", "returnDisplay": "x", "error": {"message": "boom"}}),
        );
        assert!(ge.error && ge.text == "boom");
    }

    #[test]
    fn a_result_already_written_is_taken_out() {
        let first = r#"{"type":"user","message":{"content":"hi"}}"#;
        let mut b = format!(
            "{first}\n{}\n",
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_7","content":"ok"}]}}"#
        )
        .into_bytes();
        assert_eq!(drop_result(&mut b, "toolu_7"), Some(first.len() + 1));
        let s = String::from_utf8(b).unwrap();
        assert!(!s.contains("toolu_7"), "{s}");
        assert!(s.starts_with(first));
        let mut c = s.clone().into_bytes();
        assert_eq!(drop_result(&mut c, "toolu_8"), None);
        assert_eq!(c, s.as_bytes());
    }
}
