//! The guard for each agent client that can run a command (or a plugin)
//! before an MCP tool call: one small adapter per client maps its hook
//! input (JSON on standard input) to the guard's [`Hook`] and says where
//! the session so far can be read ([`History`]); the same judge decides
//! for all of them ([`judge`]), and the adapter writes the client's own
//! answer ([`Client::deny`]). A call the guard does not deny gets no answer
//! at all, in every client: the guard never grants what the client would
//! otherwise ask its user for.
//!
//! | client | hook | session read |
//! |---|---|---|
//! | Claude Code | `PreToolUse` | its transcript ([`super::judge_kept`]) |
//! | Codex | `PreToolUse` | its rollout file ([`rollout`]) |
//! | Gemini CLI | `BeforeTool` | its session recording ([`gemini`]) |
//! | Cursor | `beforeMCPExecution` | none ([`alone`]) |
//! | opencode | plugin `tool.execute.before` | none ([`alone`]) |

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use super::server::{is_voicehook, Server};
use super::{voicehook_tool, Hook, Keep, Verdict};
use crate::core::escape::one_line;
use crate::input::server::FUNCTIONS;
use crate::lint::engine::Linter;
use crate::model::Ms;

pub mod alone;
mod codex;
mod cursor;
pub mod gemini;
mod opencode;
pub mod rollout;

type Obj = Map<String, Value>;

/// The clients the guard answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// Claude Code: a `PreToolUse` command hook.
    ClaudeCode,
    /// Codex CLI: a `PreToolUse` command hook (`hooks.json`).
    Codex,
    /// Gemini CLI: a `BeforeTool` command hook (`settings.json`).
    Gemini,
    /// Cursor: a `beforeMCPExecution` command hook (`hooks.json`).
    Cursor,
    /// opencode: the plugin `integrations/opencode/callint-guard.js`.
    Opencode,
}

/// Where the session the pending call belongs to can be read.
#[derive(Debug)]
pub enum History {
    /// A Claude Code transcript: the hook's `transcript_path`.
    Claude,
    /// A Codex rollout file.
    Rollout(PathBuf),
    /// Gemini CLI's session recording.
    Gemini(PathBuf),
    /// The session's messages, as the client handed them over (opencode's
    /// plugin: `client.session.messages`, each `{info, parts}`).
    Messages(Vec<Value>),
    /// Nowhere callint can read, for the reason given: the pending call
    /// is judged by itself ([`alone`]).
    None(String),
}

/// A pending call as a client announced it.
#[derive(Debug)]
pub struct Pending {
    /// The call, its tool named `mcp__<server>__<tool>` whatever the
    /// client calls it.
    pub hook: Hook,
    pub history: History,
    /// What the client says of the server (its address, its command, the
    /// tool's own name); its name is the one in `hook.tool_name`.
    pub server: Server,
}

impl Client {
    /// The name `--client` takes.
    pub fn name(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
            Client::Cursor => "cursor",
            Client::Opencode => "opencode",
        }
    }

    /// Read the client's hook input.
    pub fn read(self, bytes: &[u8]) -> Result<Pending, String> {
        match self {
            Client::ClaudeCode => super::read_hook(bytes).map(|hook| Pending {
                hook,
                history: History::Claude,
                server: Server::default(),
            }),
            Client::Codex => codex::read(bytes),
            Client::Gemini => gemini::read(bytes),
            Client::Cursor => cursor::read(bytes),
            Client::Opencode => opencode::read(bytes),
        }
    }

    /// The longest reason the client is given.
    pub fn reason_max(self) -> usize {
        super::REASON_MAX
    }

    /// What the guard writes on standard output to deny the call with
    /// `reason`, and its exit status.
    pub fn deny(self, reason: &str) -> (String, u8) {
        let out = match self {
            Client::ClaudeCode | Client::Codex => super::deny_output(reason),
            Client::Gemini | Client::Opencode => json!({
                "decision": "deny",
                "reason": reason,
            })
            .to_string(),
            Client::Cursor => cursor::deny(reason),
        };
        (out, 0)
    }
}

/// Judge `pending` at time `now`: from the session where it can be read,
/// else by itself. The note, when there is one, says what was not judged
/// and why (for standard error).
pub fn judge(
    linter: &Linter,
    pending: &Pending,
    now: Ms,
    keep: Option<Keep<'_>>,
) -> (Verdict, Option<String>) {
    judge_with(linter, pending, &[], now, keep)
}

/// [`judge`], with the servers `[guard] servers` of `callint.toml` lists
/// (names, URLs, commands) beside its `servers`: which server is
/// voicehook's is decided once, the same way for every client
/// ([`is_voicehook`]), and a server known to be is one to the session
/// reader too.
pub fn judge_with(
    linter: &Linter,
    pending: &Pending,
    guard_servers: &[String],
    now: Ms,
    keep: Option<Keep<'_>>,
) -> (Verdict, Option<String>) {
    // Another server's tool, or no voicehook function: let through before
    // anything is read, and nothing to note.
    let opts = match options(linter, pending, guard_servers) {
        Ok(o) => o,
        Err(v) => return (v, None),
    };
    let verdict = match &pending.history {
        History::Claude => super::judge_transcript(linter, &opts, &pending.hook, now, keep),
        History::Rollout(path) => {
            super::judge_session::<rollout::Rollout>(linter, &opts, &pending.hook, path, now, keep)
        }
        History::Gemini(path) => {
            super::judge_session::<gemini::Chats>(linter, &opts, &pending.hook, path, now, keep)
        }
        History::Messages(m) => opencode::judge(linter, &opts, &pending.hook, m, now),
        History::None(why) => return alone::judge(linter, &opts, pending, now, why),
    };
    match verdict {
        // A session file that is no regular file, cannot be read or holds
        // too long a call: no history, as if none were named.
        Verdict::Unread(why) => alone::judge(linter, &opts, pending, now, &why),
        v => (v, None),
    }
}

/// The reader options a call of `pending` is read with: the
/// configuration's, with its server among the servers when it is known to
/// be voicehook's ([`is_voicehook`]); the verdict that lets a tool of no
/// voicehook function through unread.
pub(crate) fn options(
    linter: &Linter,
    pending: &Pending,
    guard_servers: &[String],
) -> Result<crate::input::Options, Verdict> {
    let name = voicehook_tool(&pending.hook)?.0.to_string();
    let mut opts = linter.read_options().clone();
    let said = Server {
        name: name.clone(),
        ..pending.server.clone()
    };
    let mut configured = opts.servers.clone();
    configured.extend(guard_servers.iter().cloned());
    if is_voicehook(&said, &configured) && !opts.servers.contains(&name) {
        opts.servers.push(name);
    }
    Ok(opts)
}

/// A string field of `o`, when it is a non-empty string.
fn string(o: &Obj, k: &str) -> Option<String> {
    o.get(k)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The hook input as a JSON object.
fn object(bytes: &[u8]) -> Result<Obj, String> {
    let v: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("the hook input is not JSON ({e})"))?;
    match v {
        Value::Object(o) => Ok(o),
        _ => Err("the hook input is not a JSON object".into()),
    }
}

/// Check the hook input's event name, when it has one.
fn event(o: &Obj, want: &str) -> Result<(), String> {
    match o.get("hook_event_name") {
        None => Ok(()),
        Some(e) if e.as_str() == Some(want) => Ok(()),
        Some(e) => Err(format!(
            "the hook input is for {}, not {want}",
            one_line(&e.to_string())
        )),
    }
}

/// The tool's arguments: an object, or (as some clients send them) a JSON
/// string holding one.
fn arguments(v: Option<Value>) -> Result<Obj, String> {
    match v {
        None | Some(Value::Null) => Ok(Obj::new()),
        Some(Value::Object(o)) => Ok(o),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(Obj::new()),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
            Ok(Value::Object(o)) => Ok(o),
            _ => Err("the hook input's `tool_input` is not an object".into()),
        },
        Some(_) => Err("the hook input's `tool_input` is not an object".into()),
    }
}

/// `<server>_<tool>` (the one-underscore names Gemini CLI and opencode
/// give MCP tools) split where a voicehook function ends it: `vh_say` is
/// `vh` and `say`, `my_server_create_call` is `my_server` and
/// `create_call`. `None` when it ends in no voicehook function.
fn split_single(name: &str) -> Option<(&str, &str)> {
    let mut fns: Vec<&str> = FUNCTIONS.to_vec();
    // `create_call` before `call`-like shorter names that end it
    fns.sort_by_key(|f| std::cmp::Reverse(f.len()));
    fns.into_iter().find_map(|f| {
        let server = name.strip_suffix(f)?.strip_suffix('_')?;
        (!server.is_empty()).then_some((server, &name[name.len() - f.len()..]))
    })
}

/// The guard's name of a server's tool.
fn mcp_name(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_underscore_names_split_at_the_function() {
        assert_eq!(split_single("vh_say"), Some(("vh", "say")));
        assert_eq!(
            split_single("my_server_create_call"),
            Some(("my_server", "create_call"))
        );
        assert_eq!(split_single("voicehook_join"), Some(("voicehook", "join")));
        assert_eq!(split_single("say"), None);
        assert_eq!(split_single("github_create_issue"), None);
        assert_eq!(split_single("_say"), None);
    }

    #[test]
    fn a_reason_too_long_counts_what_it_leaves_out() {
        let linter = Linter::new(&crate::lint::config::Config::default(), None, &[]).unwrap();
        let pending = Client::Gemini
            .read(
                br#"{"tool_name":"mcp_voicehook_status","tool_input":{"doing":"Release prep","open":["Should we ship on Friday or wait for QA?","Fix login, update the docs and bump the version"]}}"#,
            )
            .unwrap();
        let (Verdict::Judged(found), Some(_)) = judge(&linter, &pending, 0, None) else {
            panic!("judged by the call alone, with a note");
        };
        let denied = super::super::denying(&found, crate::core::diagnostic::Severity::Warning);
        let rules: Vec<&str> = denied.iter().map(|d| d.rule).collect();
        assert_eq!(
            rules,
            ["board-bundle", "board-missing-emoji", "question-on-board"]
        );
        let whole = super::super::reason(&denied);
        for r in &rules {
            assert!(whole.contains(&format!("{r}:")), "{whole}");
        }
        // shorter: the first whole, the rest counted
        let first = super::super::reason_within(&denied[..1], usize::MAX);
        let short = super::super::reason_within(&denied, first.len() + 60);
        assert!(short.len() <= first.len() + 60, "{short}");
        assert!(short.starts_with(&first), "{short}");
        assert!(short.contains(" more"), "{short}");
        assert!(!short.contains("Also"), "{short}");
        // a limit below the first finding cuts it
        let cut = super::super::reason_within(&denied, 40);
        assert!(cut.len() <= 40 && cut.ends_with("..."), "{cut}");
    }

    #[test]
    fn arguments_may_come_as_a_string() {
        assert_eq!(
            arguments(Some(json!("{\"text\":\"hi\"}"))).unwrap()["text"],
            "hi"
        );
        assert!(arguments(Some(json!(5))).is_err());
        assert!(arguments(Some(json!("[1]"))).is_err());
        assert!(arguments(None).unwrap().is_empty());
    }
}
