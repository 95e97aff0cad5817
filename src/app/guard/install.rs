//! `callint guard install`: write a client's hook configuration so that
//! it runs the guard before each MCP tool call.
//!
//! | client | project file | user file | what is added |
//! |---|---|---|---|
//! | Claude Code | `.claude/settings.json` | `~/.claude/settings.json` | `hooks.PreToolUse`, matcher `mcp__.*` |
//! | Codex | `.codex/hooks.json` | `$CODEX_HOME/hooks.json` (`~/.codex`) | `hooks.PreToolUse`, matcher `mcp__.*` |
//! | Gemini CLI | `.gemini/settings.json` | `~/.gemini/settings.json` | `hooks.BeforeTool`, matcher `mcp_.*` |
//! | Cursor | `.cursor/hooks.json` | `~/.cursor/hooks.json` | `hooks.beforeMCPExecution` |
//! | opencode | `.opencode/plugins/callint-guard.js` | `$XDG_CONFIG_HOME/opencode/plugins/` (`~/.config`) | the plugin file |
//!
//! The hook is merged into what the file holds (keys keep their order,
//! other hooks stay), once: a second run finds it and changes nothing. A
//! file that changes is copied to `FILE.bak` first. `--uninstall` takes
//! out the guard's hook command (and the groups and lists it leaves
//! empty), nothing else. A file that is not JSON, or whose `hooks` is not
//! what the client reads, is an error naming it, and is left untouched.
//! JSON with comments is read, and edited so that its comments stay
//! ([`super::jsonc`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::client::Client;

/// The opencode plugin, as shipped in `integrations/opencode/`.
pub const OPENCODE_PLUGIN: &str = include_str!("../../../integrations/opencode/callint-guard.js");

/// Where the configuration is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// In the project folder.
    Project,
    /// In the user's home (every project).
    User,
}

/// What an install (or uninstall) does to one file.
#[derive(Debug)]
pub struct Plan {
    pub file: PathBuf,
    /// The file's content before (`None`: there is no file).
    pub before: Option<String>,
    /// The content to write; `None`: remove the file.
    pub after: Option<String>,
}

impl Plan {
    /// True when carrying it out changes nothing.
    pub fn unchanged(&self) -> bool {
        self.before == self.after
    }

    /// Write it: the old file copied to `FILE.bak` first. Returns the
    /// backup's path, when one was made.
    pub fn apply(&self) -> Result<Option<PathBuf>, String> {
        if self.unchanged() {
            return Ok(None);
        }
        let shown = self.file.display();
        let backup = match &self.before {
            Some(_) => {
                let mut name = self.file.clone().into_os_string();
                name.push(".bak");
                let bak = PathBuf::from(name);
                std::fs::copy(&self.file, &bak)
                    .map_err(|e| format!("cannot back {shown} up to {}: {e}", bak.display()))?;
                Some(bak)
            }
            None => None,
        };
        match &self.after {
            Some(text) => {
                if let Some(dir) = self.file.parent() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                }
                if !crate::app::cache::write_whole(&self.file, text.as_bytes()) {
                    return Err(format!("cannot write {shown}"));
                }
            }
            None => std::fs::remove_file(&self.file)
                .map_err(|e| format!("cannot remove {shown}: {e}"))?,
        }
        Ok(backup)
    }
}

/// The command the hook runs: `program` (the callint binary, by its whole
/// path), quoted for a shell when it needs to be, and the guard's
/// arguments for `client`.
pub fn command(client: Client, program: &str) -> String {
    command_of(client, program, Kind::Before)
}

/// [`command`], of the hook of `kind`.
pub fn command_of(client: Client, program: &str, kind: Kind) -> String {
    format!("{} {}", shell_quoted(program), arguments(client, kind))
}

/// Which of the guard's hooks: the one before a call (`callint guard`),
/// or the one after it that tells the agent what the call shows
/// (`callint guard feedback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Before,
    After,
}

/// The guard's arguments for `client`, in its hook of `kind`.
fn arguments(client: Client, kind: Kind) -> String {
    let sub = match kind {
        Kind::Before => "guard",
        Kind::After => "guard feedback",
    };
    match client {
        Client::ClaudeCode => sub.into(),
        c => format!("{sub} --client {}", c.name()),
    }
}

/// True when `client` has a hook after a tool call that passes text to
/// the model (Claude Code and Codex `PostToolUse`, Gemini CLI
/// `AfterTool`): the feedback hook is installed with the guard's there.
pub fn has_feedback(client: Client) -> bool {
    super::feedback::events(client).is_some()
}

/// `word` as one word of a POSIX shell's command line: as it is when it
/// holds only characters no shell treats apart, else in single quotes (a
/// `'` in it written `'\''`).
pub fn shell_quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._+-,:@%=".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The first word of a shell command line, unquoted (single or double
/// quotes, or none), and the rest after the spaces that follow it.
fn first_word(cmd: &str) -> Option<(String, &str)> {
    let cmd = cmd.trim_start();
    let mut word = String::new();
    let mut chars = cmd.char_indices().peekable();
    let mut end = cmd.len();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => loop {
                match chars.next() {
                    Some((_, '\'')) => break,
                    Some((_, c)) => word.push(c),
                    None => return None,
                }
            },
            '"' => loop {
                match chars.next() {
                    Some((_, '"')) => break,
                    Some((_, '\\')) => word.push(chars.next()?.1),
                    Some((_, c)) => word.push(c),
                    None => return None,
                }
            },
            '\\' => word.push(chars.next()?.1),
            c if c.is_whitespace() => {
                end = i;
                break;
            }
            c => word.push(c),
        }
    }
    (!word.is_empty()).then(|| (word, cmd[end..].trim()))
}

/// True when the hook command `cmd` is the guard's for `client`, as this
/// or an earlier install wrote it: a callint binary (any path whose file
/// is `callint`, a bare `callint` found on PATH, or `program`) with the
/// guard's arguments.
#[cfg(test)]
fn is_guard_command(cmd: &str, client: Client, program: &str) -> bool {
    is_hook_command(cmd, client, program, Kind::Before)
}

/// [`is_guard_command`], for the hook of `kind`.
fn is_hook_command(cmd: &str, client: Client, program: &str, kind: Kind) -> bool {
    let Some((first, rest)) = first_word(cmd) else {
        return false;
    };
    let name = Path::new(&first)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let callint = matches!(name, "callint" | "callint.exe") || first == program;
    let args: Vec<&str> = rest.split_whitespace().collect();
    callint
        && args
            == arguments(client, kind)
                .split_whitespace()
                .collect::<Vec<_>>()
}

/// The file `client`'s hook configuration goes to, for `scope`, with the
/// project folder `project` and the home folder `home`; `env` reads the
/// environment (`CODEX_HOME`, `XDG_CONFIG_HOME`).
pub fn file(
    client: Client,
    scope: Scope,
    project: &Path,
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<PathBuf, String> {
    let home = || {
        home.map(Path::to_path_buf).ok_or_else(|| {
            "HOME is not set: cannot tell where the user's configuration is".to_string()
        })
    };
    let absolute = |k: &str| env(k).map(PathBuf::from).filter(|p| p.is_absolute());
    Ok(match (client, scope) {
        (Client::ClaudeCode, Scope::Project) => project.join(".claude/settings.json"),
        (Client::ClaudeCode, Scope::User) => home()?.join(".claude/settings.json"),
        (Client::Codex, Scope::Project) => project.join(".codex/hooks.json"),
        (Client::Codex, Scope::User) => match absolute("CODEX_HOME") {
            Some(h) => h.join("hooks.json"),
            None => home()?.join(".codex/hooks.json"),
        },
        (Client::Gemini, Scope::Project) => project.join(".gemini/settings.json"),
        (Client::Gemini, Scope::User) => home()?.join(".gemini/settings.json"),
        (Client::Cursor, Scope::Project) => project.join(".cursor/hooks.json"),
        (Client::Cursor, Scope::User) => home()?.join(".cursor/hooks.json"),
        (Client::Opencode, Scope::Project) => project.join(".opencode/plugins/callint-guard.js"),
        (Client::Opencode, Scope::User) => match absolute("XDG_CONFIG_HOME") {
            Some(c) => c.join("opencode/plugins/callint-guard.js"),
            None => home()?.join(".config/opencode/plugins/callint-guard.js"),
        },
    })
}

/// What installing (or, with `uninstall`, removing) the guard's hook does
/// to `file`.
///
/// `program` is the callint the hook runs (its whole path); an entry of an
/// earlier install that runs callint another way (`callint guard`, found
/// on PATH) is the guard's too, and is changed to run `program`.
///
/// An opencode plugin that is neither the one this callint writes nor one
/// an earlier install wrote (it was edited) is replaced only with `force`.
pub fn plan(
    client: Client,
    file: &Path,
    uninstall: bool,
    program: &str,
    force: bool,
) -> Result<Plan, String> {
    plan_with(client, file, uninstall, program, force, Hooks::BOTH)
}

/// Which of the two hooks an install writes; the one left out is taken
/// out of an earlier install.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hooks {
    /// The guard's, before a call.
    pub guard: bool,
    /// The feedback's, after a call (for a client that has one).
    pub feedback: bool,
}

impl Hooks {
    pub const BOTH: Hooks = Hooks {
        guard: true,
        feedback: true,
    };
}

/// [`plan`]; of the guard's hook before a call and the feedback's after it
/// (for a client that has one, [`has_feedback`]), what `hooks` leaves out
/// is taken out. `uninstall` takes out both.
pub fn plan_with(
    client: Client,
    file: &Path,
    uninstall: bool,
    program: &str,
    force: bool,
    hooks: Hooks,
) -> Result<Plan, String> {
    let installs = hooks.guard || hooks.feedback && has_feedback(client);
    if !uninstall && !installs {
        return Err(format!(
            "nothing to install for {}: {}",
            client.name(),
            if has_feedback(client) {
                "the guard's hook and the feedback's are both left out (--uninstall takes them out)"
            } else {
                "it has no hook after a call, and the guard's is left out"
            }
        ));
    }
    let before = match std::fs::read(file) {
        Ok(b) => {
            Some(String::from_utf8(b).map_err(|_| format!("{}: not UTF-8 text", file.display()))?)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
    };
    if client == Client::Opencode {
        // The plugin is the guard's hook alone (opencode has no hook after
        // a call that reaches the model): `hooks.guard` is true here, or
        // it is an uninstall.
        let edited = before
            .as_deref()
            .is_some_and(|b| !is_our_plugin(b) && !force);
        let after = match (edited, uninstall) {
            (true, false) => {
                return Err(format!(
                    "{} is not the plugin callint installs (it was changed since): left as it is; --force replaces it",
                    file.display()
                ))
            }
            (true, true) => {
                return Err(format!(
                    "{} is not the plugin callint installs (it was changed since): left as it is; --force removes it",
                    file.display()
                ))
            }
            (false, false) => Some(opencode_plugin(program)),
            (false, true) => None,
        };
        return Ok(Plan {
            file: file.to_path_buf(),
            before,
            after,
        });
    }
    // JSON with comments (Gemini CLI reads its settings so) is read with
    // them made blanks, and edited so that they stay.
    let blanked = before.as_deref().and_then(super::jsonc::blank);
    let mut doc = match blanked.as_deref().or(before.as_deref()) {
        None => Json::Obj(Vec::new()),
        Some(t) if t.trim().is_empty() => Json::Obj(Vec::new()),
        Some(t) => serde_json::from_str::<Json>(t).map_err(|e| {
            format!(
                "{}:{}:{}: not JSON ({}); the file was left as it is",
                file.display(),
                e.line(),
                e.column(),
                strip_position(&e.to_string())
            )
        })?,
    };
    let was = blanked.as_ref().map(|_| doc.clone());
    let mut changed = edit(
        client,
        &mut doc,
        uninstall || !hooks.guard,
        program,
        Kind::Before,
    )
    .map_err(|e| format!("{}: {e}; the file was left as it is", file.display()))?;
    if has_feedback(client) {
        changed |= edit(
            client,
            &mut doc,
            uninstall || !hooks.feedback,
            program,
            Kind::After,
        )
        .map_err(|e| format!("{}: {e}; the file was left as it is", file.display()))?;
    }
    let after = if uninstall && changed && doc == Json::Obj(Vec::new()) && blanked.is_none() {
        // Nothing but the guard's hook was there: the file goes (one with
        // comments stays, with them).
        None
    } else if let (true, Some(blanked), Some(was), Some(text)) =
        (changed, &blanked, &was, before.as_deref())
    {
        Some(super::jsonc::rewrite(text, blanked, was, &doc))
    } else if changed {
        let mut s = String::new();
        doc.write(&mut s, 0);
        s.push('\n');
        Some(s)
    } else {
        before.clone()
    };
    Ok(Plan {
        file: file.to_path_buf(),
        before,
        after,
    })
}

/// A hook entry of the guard found in a client's configuration.
#[derive(Debug)]
pub struct Found {
    /// The command line it runs.
    pub command: String,
    /// Cursor's `failClosed: true` on it: a silent guard then refuses
    /// every MCP call.
    pub fail_closed: bool,
}

/// The guard's hook entries in the configuration `text` of `client` (a
/// command running `guard` with the client's arguments, whatever runs it);
/// for opencode, the plugin's program when `text` is the plugin callint
/// installs. The error says why the file cannot be read.
pub fn find(client: Client, text: &str) -> Result<Vec<Found>, String> {
    find_of(client, text, Kind::Before)
}

/// [`find`], of the hook of `kind`.
pub fn find_of(client: Client, text: &str, kind: Kind) -> Result<Vec<Found>, String> {
    if client == Client::Opencode {
        if !is_our_plugin(text) {
            return Err("not the plugin callint installs (edited since)".into());
        }
        let program = text
            .lines()
            .find_map(|l| l.strip_prefix(PLUGIN_PROGRAM))
            .and_then(|q| serde_json::from_str::<String>(q.trim()).ok())
            .unwrap_or_else(|| "callint".into());
        return Ok(vec![Found {
            command: format!("{} guard --client opencode", shell_quoted(&program)),
            fail_closed: false,
        }]);
    }
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let blanked = super::jsonc::blank(text);
    let doc: Json = serde_json::from_str(blanked.as_deref().unwrap_or(text))
        .map_err(|e| format!("not JSON ({e})"))?;
    let (event, matcher, _) = entry(client, "callint", kind);
    let mut out = Vec::new();
    let list = doc.get("hooks").and_then(|h| h.get(event));
    let Some(Json::Arr(list)) = list else {
        return Ok(out);
    };
    let mut look = |h: &Json| {
        let Some(c) = h.get("command").and_then(Json::as_str) else {
            return;
        };
        let ours = first_word(c).is_some_and(|(first, _)| is_hook_command(c, client, &first, kind));
        if ours {
            out.push(Found {
                command: c.to_string(),
                fail_closed: h.get("failClosed") == Some(&Json::Bool(true)),
            });
        }
    };
    for item in list {
        match (matcher, item.get("hooks")) {
            (Some(_), Some(Json::Arr(hs))) => hs.iter().for_each(&mut look),
            (None, _) => look(item),
            _ => {}
        }
    }
    Ok(out)
}

/// The program a hook command runs, unquoted.
pub fn program_of(command: &str) -> Option<String> {
    first_word(command).map(|(p, _)| p)
}

/// The line of the opencode plugin that names the callint it runs.
const PLUGIN_PROGRAM: &str = "  const callint = process.env.CALLINT || ";

/// The opencode plugin as installed: the shipped one, running `program`
/// (unless `CALLINT` says otherwise).
pub fn opencode_plugin(program: &str) -> String {
    let quoted = serde_json::to_string(program).unwrap_or_else(|_| "\"callint\"".into());
    OPENCODE_PLUGIN
        .lines()
        .map(|l| match l.strip_prefix(PLUGIN_PROGRAM) {
            Some(_) => format!("{PLUGIN_PROGRAM}{quoted}"),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if OPENCODE_PLUGIN.ends_with('\n') {
            "\n"
        } else {
            ""
        }
}

/// True when `text` is the plugin callint installs, running any program.
pub fn is_our_plugin(text: &str) -> bool {
    fn shipped(t: &str) -> Vec<&str> {
        t.lines()
            .map(|l| {
                if l.starts_with(PLUGIN_PROGRAM) {
                    PLUGIN_PROGRAM
                } else {
                    l
                }
            })
            .collect()
    }
    shipped(text) == shipped(OPENCODE_PLUGIN)
}

/// serde_json's message without its " at line L column C".
fn strip_position(msg: &str) -> &str {
    msg.rfind(" at line ").map_or(msg, |k| &msg[..k])
}

/// The hook event `client` runs the guard on, the matcher, and the hook
/// entry.
fn entry(client: Client, program: &str, kind: Kind) -> (&'static str, Option<&'static str>, Json) {
    let cmd = Json::Str(command_of(client, program, kind));
    let s = |v: &str| Json::Str(v.to_string());
    if kind == Kind::After {
        // The hooks after a call: Claude Code's and Codex's `PostToolUse`
        // (codex-rs/hooks/src/events/post_tool_use.rs), Gemini CLI's
        // `AfterTool` (packages/core/src/hooks/types.ts), with the same
        // matchers as before a call.
        return match client {
            Client::Gemini => (
                "AfterTool",
                Some("mcp_.*"),
                Json::Obj(vec![
                    ("name".into(), s("callint-feedback")),
                    ("type".into(), s("command")),
                    ("command".into(), cmd),
                ]),
            ),
            _ => (
                "PostToolUse",
                Some("mcp__.*"),
                Json::Obj(vec![("type".into(), s("command")), ("command".into(), cmd)]),
            ),
        };
    }
    match client {
        Client::ClaudeCode | Client::Codex => (
            "PreToolUse",
            Some("mcp__.*"),
            Json::Obj(vec![("type".into(), s("command")), ("command".into(), cmd)]),
        ),
        Client::Gemini => (
            "BeforeTool",
            Some("mcp_.*"),
            Json::Obj(vec![
                ("name".into(), s("callint-guard")),
                ("type".into(), s("command")),
                ("command".into(), cmd),
            ]),
        ),
        Client::Cursor | Client::Opencode => (
            "beforeMCPExecution",
            None,
            Json::Obj(vec![("command".into(), cmd)]),
        ),
    }
}

/// Add (or take out) the guard's hook in `doc`; true when it changed.
fn edit(
    client: Client,
    doc: &mut Json,
    uninstall: bool,
    program: &str,
    kind: Kind,
) -> Result<bool, String> {
    let (event, matcher, hook) = entry(client, program, kind);
    let cmd = command_of(client, program, kind);
    let Json::Obj(top) = doc else {
        return Err("the file is not a JSON object".into());
    };
    let is_ours = |h: &Json| {
        h.get("command")
            .and_then(Json::as_str)
            .is_some_and(|c| is_hook_command(c, client, program, kind))
    };
    if uninstall {
        let Some(hooks) = get_mut(top, "hooks") else {
            return Ok(false);
        };
        let Json::Obj(events) = hooks else {
            return Err("`hooks` is not an object".into());
        };
        let Some(Json::Arr(list)) = get_mut(events, event) else {
            return Ok(false);
        };
        let before = list.len();
        let mut changed = false;
        if matcher.is_some() {
            // A group is taken out when the guard's hook was all it held.
            let mut emptied = Vec::new();
            for group in list.iter_mut() {
                let mut gone = false;
                if let Some(Json::Arr(hs)) = group.get_mut("hooks") {
                    let n = hs.len();
                    hs.retain(|h| !is_ours(h));
                    changed |= hs.len() != n;
                    gone = hs.len() != n && hs.is_empty();
                }
                emptied.push(gone);
            }
            let mut k = 0;
            list.retain(|_| {
                k += 1;
                !emptied[k - 1]
            });
        } else {
            list.retain(|h| !is_ours(h));
        }
        changed |= list.len() != before;
        if list.is_empty() {
            events.retain(|(k, _)| k != event);
        }
        if events.is_empty() {
            top.retain(|(k, _)| k != "hooks");
            // With no hook left, the format Cursor's file was given for it
            // goes too.
            if client == Client::Cursor && changed {
                top.retain(|(k, v)| !(k == "version" && *v == Json::Num(1.into())));
            }
        }
        return Ok(changed);
    }
    // Cursor's file says its format; one that has hooks already is read
    // as it is.
    if client == Client::Cursor
        && get_mut(top, "version").is_none()
        && get_mut(top, "hooks").is_none()
    {
        top.insert(0, ("version".into(), Json::Num(1.into())));
    }
    if get_mut(top, "hooks").is_none() {
        top.push(("hooks".into(), Json::Obj(Vec::new())));
    }
    let Some(Json::Obj(events)) = get_mut(top, "hooks") else {
        return Err("`hooks` is not an object".into());
    };
    if get_mut(events, event).is_none() {
        events.push((event.into(), Json::Arr(Vec::new())));
    }
    let Some(Json::Arr(list)) = get_mut(events, event) else {
        return Err(format!("`hooks.{event}` is not a list"));
    };
    // The guard's entries there already: each made to run `program`.
    let mut there = false;
    let mut changed = false;
    let mut update = |h: &mut Json| {
        if !is_ours(h) {
            return;
        }
        there = true;
        if let Some(c @ Json::Str(_)) = h.get_mut("command") {
            if c.as_str() != Some(cmd.as_str()) {
                *c = Json::Str(cmd.clone());
                changed = true;
            }
        }
    };
    for item in list.iter_mut() {
        match (matcher, item.get_mut("hooks")) {
            (Some(_), Some(Json::Arr(hs))) => hs.iter_mut().for_each(&mut update),
            (None, _) => update(item),
            _ => {}
        }
    }
    if there {
        return Ok(changed);
    }
    list.push(match matcher {
        Some(m) => Json::Obj(vec![
            ("matcher".into(), Json::Str(m.into())),
            ("hooks".into(), Json::Arr(vec![hook])),
        ]),
        None => hook,
    });
    Ok(true)
}

fn get_mut<'a>(o: &'a mut [(String, Json)], key: &str) -> Option<&'a mut Json> {
    o.iter_mut().rev().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// A JSON value whose objects keep their keys in the order written, so
/// that a configuration file merged into reads as it did.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Json {
    Null,
    Bool(bool),
    Num(serde_json::Number),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(o) => o.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Obj(o) => get_mut(o, key),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Written with two spaces a level, as the clients write their own.
    pub(super) fn write(&self, out: &mut String, level: usize) {
        let pad = |out: &mut String, n: usize| out.extend(std::iter::repeat_n("  ", n));
        let string = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            Json::Num(n) => {
                let _ = write!(out, "{n}");
            }
            Json::Str(s) => out.push_str(&string(s)),
            Json::Arr(a) if a.is_empty() => out.push_str("[]"),
            Json::Obj(o) if o.is_empty() => out.push_str("{}"),
            Json::Arr(a) => {
                out.push_str("[\n");
                for (k, v) in a.iter().enumerate() {
                    pad(out, level + 1);
                    v.write(out, level + 1);
                    out.push_str(if k + 1 < a.len() { ",\n" } else { "\n" });
                }
                pad(out, level);
                out.push(']');
            }
            Json::Obj(o) => {
                out.push_str("{\n");
                for (k, (key, v)) in o.iter().enumerate() {
                    pad(out, level + 1);
                    out.push_str(&string(key));
                    out.push_str(": ");
                    v.write(out, level + 1);
                    out.push_str(if k + 1 < o.len() { ",\n" } else { "\n" });
                }
                pad(out, level);
                out.push('}');
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
                Ok(Json::Bool(b))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
                Ok(Json::Num(n.into()))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
                Ok(Json::Num(n.into()))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Json, E> {
                Ok(serde_json::Number::from_f64(n).map_or(Json::Null, Json::Num))
            }
            fn visit_str<E>(self, s: &str) -> Result<Json, E> {
                Ok(Json::Str(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<Json, E> {
                Ok(Json::Str(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut v = Vec::new();
                while let Some(x) = a.next_element()? {
                    v.push(x);
                }
                Ok(Json::Arr(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Json, A::Error> {
                let mut v: Vec<(String, Json)> = Vec::new();
                while let Some((k, x)) = m.next_entry::<String, Json>()? {
                    v.push((k, x));
                }
                Ok(Json::Obj(v))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(client: Client, text: &str, uninstall: bool) -> Result<String, String> {
        let dir = crate::app::harness::scratch("install");
        let f = dir.join("f.json");
        std::fs::write(&f, text).unwrap();
        let p = plan(client, &f, uninstall, "/opt/callint/bin/callint", false)?;
        std::fs::remove_dir_all(&dir).unwrap();
        Ok(p.after.unwrap_or_default())
    }

    /// Gemini CLI reads `settings.json` with comments
    /// (packages/cli/src/config/settings.ts strips them before parsing):
    /// installing keeps every one, and uninstalling gives the file back as
    /// it was, byte for byte.
    #[test]
    fn comments_in_settings_stay() {
        let files = [
            // hooks there already, another hook's group commented
            "{\n  // the theme\n  \"theme\": \"GitHub\", /* block\n  comment */\n  \"hooks\": {\n    \"BeforeTool\": [\n      // lint shell commands\n      {\n        \"matcher\": \"run_shell_command\",\n        \"hooks\": [{ \"type\": \"command\", \"command\": \"lint-sh\" }] // theirs\n      }\n    ]\n  }\n  // end\n}\n",
            // no hooks yet
            "// user settings\n{\n  \"theme\": \"GitHub\" // dark one\n}\n",
            // an empty object with a comment in it
            "{ /* nothing yet */ }",
        ];
        for text in files {
            let installed = run(Client::Gemini, text, false).unwrap();
            for c in [
                "the theme",
                "block\n  comment",
                "lint shell",
                "theirs",
                "end",
                "user settings",
                "dark one",
                "nothing yet",
            ] {
                assert_eq!(text.contains(c), installed.contains(c), "{c}: {installed}");
            }
            let blanked = super::super::jsonc::blank(&installed).unwrap();
            let v: serde_json::Value =
                serde_json::from_str(&blanked).unwrap_or_else(|e| panic!("{e}: {installed}"));
            let groups = v["hooks"]["BeforeTool"].as_array().unwrap();
            let ours = groups.last().unwrap();
            assert_eq!(ours["matcher"], "mcp_.*", "{installed}");
            assert_eq!(
                ours["hooks"][0]["command"],
                "/opt/callint/bin/callint guard --client gemini"
            );
            assert_eq!(find(Client::Gemini, &installed).unwrap().len(), 1);
            // once
            assert_eq!(run(Client::Gemini, &installed, false).unwrap(), installed);
            // and out again: the file as it was
            let removed = run(Client::Gemini, &installed, true).unwrap();
            let removed_v: serde_json::Value =
                serde_json::from_str(&super::super::jsonc::blank(&removed).unwrap()).unwrap();
            let text_v: serde_json::Value =
                serde_json::from_str(&super::super::jsonc::blank(text).unwrap()).unwrap();
            assert_eq!(removed_v, text_v, "{removed}");
            // (an object that was empty gets its closing brace a line of
            // its own)
            if !text.starts_with("{ /*") {
                assert_eq!(removed, text);
            }
        }
    }

    #[test]
    fn commands_are_quoted_for_a_shell_and_read_back() {
        assert_eq!(shell_quoted("/usr/bin/callint"), "/usr/bin/callint");
        assert_eq!(shell_quoted("/a b/callint"), "'/a b/callint'");
        assert_eq!(shell_quoted("/it's/callint"), "'/it'\\''s/callint'");
        assert_eq!(shell_quoted("/a$b"), "'/a$b'");
        for p in [
            "/usr/bin/callint",
            "/a b/callint",
            "/it's here/callint",
            "/x\"y/callint",
        ] {
            let cmd = command(Client::Codex, p);
            let (first, rest) = first_word(&cmd).unwrap();
            assert_eq!((first.as_str(), rest), (p, "guard --client codex"), "{cmd}");
            assert!(is_guard_command(&cmd, Client::Codex, "/elsewhere/callint"));
            assert!(!is_guard_command(&cmd, Client::Gemini, p));
        }
        // an earlier install's, and a double-quoted one, are the guard's
        assert!(is_guard_command(
            "callint guard",
            Client::ClaudeCode,
            "/x/callint"
        ));
        assert!(is_guard_command(
            "\"/a b/callint\" guard --client cursor",
            Client::Cursor,
            "/x"
        ));
        // not another program, nor other arguments
        assert!(!is_guard_command(
            "notify guard",
            Client::ClaudeCode,
            "/x/callint"
        ));
        assert!(!is_guard_command(
            "callint check",
            Client::ClaudeCode,
            "/x/callint"
        ));
        assert!(!is_guard_command(
            "'unclosed guard",
            Client::ClaudeCode,
            "/x"
        ));
        // --command names a wrapper of any name
        assert!(is_guard_command(
            "/opt/wrap guard",
            Client::ClaudeCode,
            "/opt/wrap"
        ));
    }

    #[test]
    fn keys_keep_their_order_and_numbers_their_value() {
        let src = "{\"z\": 1.5, \"a\": [true, null, -3], \"m\": {\"y\": \"\\u00e9\", \"b\": {}}}";
        let j: Json = serde_json::from_str(src).unwrap();
        let mut s = String::new();
        j.write(&mut s, 0);
        assert!(s.find("\"z\"").unwrap() < s.find("\"a\"").unwrap(), "{s}");
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(
            back,
            serde_json::from_str::<serde_json::Value>(src).unwrap()
        );
    }

    #[test]
    fn every_client_merges_once_and_comes_out_again() {
        for c in [
            Client::ClaudeCode,
            Client::Codex,
            Client::Gemini,
            Client::Cursor,
        ] {
            let other = "{\"theme\": \"dark\", \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify\"}]}]}}";
            let once = run(c, other, false).unwrap();
            assert!(
                once.contains(&command(c, "/opt/callint/bin/callint")),
                "{once}"
            );
            assert!(once.contains("notify") && once.contains("dark"), "{once}");
            assert_eq!(run(c, &once, false).unwrap(), once, "{c:?}");
            let out = run(c, &once, true).unwrap();
            assert!(!out.contains("callint"), "{out}");
            assert!(out.contains("notify"), "{out}");
            // out again changes nothing
            assert_eq!(run(c, &out, true).unwrap(), out);
        }
        assert!(run(Client::Codex, "{\"hooks\": []}", false).is_err());
        assert!(run(Client::Codex, "[1]", false).is_err());
        let e = run(Client::Gemini, "{\n  \"a\": 1,\n  oops\n}", false).unwrap_err();
        assert!(e.contains("f.json:3:"), "{e}");
    }
}
