//! Which MCP server of an agent's client is voicehook.
//!
//! A client names each MCP server as its user configured it (`voicehook`,
//! `vh`, `plugin:voicehook:voicehook`) and prefixes its tools with that
//! name (`mcp__vh__say`). The session readers tell the voicehook server by
//! its calls: a server is voicehook when `callint.toml` names it
//! (`servers`), when its name says so, or when one of its calls has a
//! shape only voicehook's functions have (a `join` with a `label` or
//! `call_id`, a `create_call`, a `next` that answered an event, a `say`
//! that answered a `say_status`, a `status` with `doing`/`open`/`done`, a
//! `decide` with a `question`). A server that only shares a function name
//! with voicehook (a speech server's `say`) is not taken for it.

use crate::core::hash::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Options;

type Obj = Map<String, Value>;

/// The functions of the voicehook server (docs/formats.md: function calls).
pub use super::json::FUNCTIONS;

/// Evidence, per server name, of which servers are voicehook.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Servers {
    named: Vec<String>,
    seen: HashMap<String, bool>,
}

impl Servers {
    pub fn new(opts: &Options) -> Servers {
        Servers {
            named: opts.servers.clone(),
            seen: HashMap::default(),
        }
    }

    /// Note one call of `tool` on `server`, with its arguments and the
    /// answer (the parsed result object), as far as they are known.
    pub fn note(&mut self, server: &str, tool: &str, args: Option<&Value>, answer: Option<&Value>) {
        self.note_obj(
            server,
            tool,
            args.and_then(Value::as_object),
            answer.and_then(Value::as_object),
        );
    }

    /// [`Servers::note`], with the arguments and answer as objects.
    pub fn note_obj(&mut self, server: &str, tool: &str, args: Option<&Obj>, answer: Option<&Obj>) {
        let shaped = voicehook_shaped(function_name(tool), args, answer);
        match self.seen.get_mut(server) {
            Some(e) => *e |= shaped,
            None => {
                self.seen.insert(server.to_string(), shaped);
            }
        }
    }

    /// True when `server`'s tools are voicehook's functions.
    pub fn is_voicehook(&self, server: &str) -> bool {
        self.named.iter().any(|n| n == server)
            || server.to_ascii_lowercase().contains("voicehook")
            || self.seen.get(server).copied().unwrap_or(false)
    }

    /// True when no server of the session is voicehook.
    pub fn none(&self) -> bool {
        !self.seen.keys().any(|s| self.is_voicehook(s))
    }
}

/// The voicehook function a tool name stands for: `join`, also when a
/// client or proxy prefixed it (`voicehook_join`, `mcp__voicehook__join`).
pub fn function_name(tool: &str) -> &str {
    let t = tool.rsplit("__").next().unwrap_or(tool);
    for p in ["voicehook_", "voicehook.", "voicehook-", "vh_", "vh."] {
        if let Some(rest) = t.strip_prefix(p) {
            return rest;
        }
    }
    t
}

/// `mcp__<server>__<tool>` (Claude Code's name of an MCP tool) split into
/// server and tool. The server may hold `:` and single underscores; the
/// tool is what follows the last `__`.
pub fn split_mcp_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.rsplit_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

/// True when a call of `function` has a shape only voicehook's has.
fn voicehook_shaped(function: &str, args: Option<&Obj>, answer: Option<&Obj>) -> bool {
    let has = |v: Option<&Obj>, k: &str| v.and_then(|v| v.get(k)).is_some_and(|x| !x.is_null());
    match function {
        "create_call" => true,
        "join" => {
            has(args, "label")
                || has(args, "call_id")
                || answer
                    .and_then(|a| a.get("context"))
                    .is_some_and(|c| c.get("lang").is_some())
        }
        "next" => {
            answer
                .and_then(|a| a.get("type"))
                .and_then(Value::as_str)
                .is_some_and(|t| crate::model::EVENT_TYPES.contains(&t))
                || has(answer, "operators_said")
                || has(answer, "agent_said")
        }
        "say" => has(answer, "say_id") || has(answer, "say_status"),
        "status" => ["doing", "open", "done"].iter().any(|k| has(args, k)),
        "decide" => has(args, "question"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_split_and_strip() {
        assert_eq!(split_mcp_name("mcp__vh__say"), Some(("vh", "say")));
        assert_eq!(
            split_mcp_name("mcp__plugin:voicehook:voicehook__create_call"),
            Some(("plugin:voicehook:voicehook", "create_call"))
        );
        assert_eq!(
            split_mcp_name("mcp__my_srv__join"),
            Some(("my_srv", "join"))
        );
        assert_eq!(split_mcp_name("mcp__claude-in-chrome"), None);
        assert_eq!(split_mcp_name("Bash"), None);
        assert_eq!(function_name("voicehook_say"), "say");
        assert_eq!(function_name("mcp__x__next"), "next");
    }

    #[test]
    fn a_server_is_told_by_its_calls() {
        let mut s = Servers::new(&Options::default());
        // a speech server's `say` is not voicehook's
        s.note(
            "tts",
            "say",
            Some(&json!({"text": "hi"})),
            Some(&json!({"ok": true})),
        );
        assert!(!s.is_voicehook("tts"));
        assert!(s.none());
        s.note("vh", "say", Some(&json!({"text": "hi"})), None);
        assert!(!s.is_voicehook("vh"));
        s.note("vh", "next", None, Some(&json!({"type": "timeout"})));
        assert!(s.is_voicehook("vh"));
        assert!(!s.none());
        // by name, or because the configuration says so
        assert!(s.is_voicehook("plugin:voicehook:voicehook"));
        let named = Servers::new(&Options {
            servers: vec!["calls".into()],
            ..Options::default()
        });
        assert!(named.is_voicehook("calls"));
        assert!(!named.is_voicehook("vh"));
    }
}
