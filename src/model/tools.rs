//! What a tool an agent ran does: only look, or change something.
//!
//! Agents' clients name the same kinds of tool differently: an edit is
//! `Edit`, `edit_file`, `write_to_file`, `apply_patch` or
//! `str_replace_based_edit_tool`; a message to another agent is
//! `send_message` of some MCP server, recorded as
//! `mcp__agentbus__send_message`; a pull request is `create_pull_request`
//! of a GitHub server. A tool is judged by what its name says it does: the
//! name without the MCP server in front (`mcp__github__`, `github.`,
//! `github/`), split into words (`create_pull_request`, `createPullRequest`),
//! and its first verb. A verb that writes, sends, deploys or runs
//! (`conduct.act-verbs`) makes it acting; a verb that only looks
//! (`conduct.look-verbs`: `get_pull_request`, `list_issues`) does not. A
//! shell runs whatever its command says: it acts unless every part of the
//! command only looks. A tool whose name has neither kind of verb, and is
//! no client's known editing tool, is not judged: nothing says what it did.

use crate::model::Tool;
use crate::text::lexicon::Lexicon;
use crate::text::phrases::{lower_words, starts_with_any};

/// What a tool did, as far as its name and arguments tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// It only read, searched or listed.
    Looks,
    /// It wrote, sent, deployed or ran something.
    Acts,
    /// Nothing tells.
    Unknown,
}

/// The tool's own name without the MCP server in front, lower case.
fn own_name(name: &str) -> &str {
    let name = name.trim();
    let cut = [
        name.rfind("__").map(|i| i + 2),
        name.rfind(['.', '/', ':']).map(|i| i + 1),
    ]
    .into_iter()
    .flatten()
    .max()
    .unwrap_or(0);
    &name[cut..]
}

/// The words of a tool's name: `create_pull_request`, `createPullRequest`
/// and `create-pull-request` are `create pull request`.
fn name_words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The shell command a tool ran, when it is a shell: `command` or `cmd`
/// as a string, or as a list of words (`["bash", "-lc", "ls"]`: the script
/// the shell was given).
fn shell_command(t: &Tool) -> Option<String> {
    let args = t.args.as_ref()?;
    let c = ["command", "cmd", "commandLine", "command_line", "script"]
        .iter()
        .find_map(|k| args.get(*k))?;
    if let Some(s) = c.as_str() {
        return Some(s.to_string());
    }
    let parts: Vec<&str> = c.as_array()?.iter().filter_map(|v| v.as_str()).collect();
    match parts.as_slice() {
        [sh, flag, script, ..]
            if matches!(*sh, "bash" | "sh" | "zsh" | "/bin/bash" | "/bin/sh")
                && flag.starts_with('-') =>
        {
            Some(script.to_string())
        }
        _ => Some(parts.join(" ")),
    }
}

/// What `t` did.
pub fn effect(lex: &Lexicon, t: &Tool) -> Effect {
    let full = t.name.to_lowercase();
    let own = own_name(&t.name);
    let joined: String = name_words(own).concat();
    let known = |key: &str| {
        lex.has(key, &full) || lex.has(key, &own.to_lowercase()) || lex.has(key, &joined)
    };
    if known("conduct.read-only-tools") {
        return Effect::Looks;
    }
    if known("conduct.shell-tools") {
        let cmd = shell_command(t).unwrap_or_default();
        // Every part of a pipeline or chain must only look, and nothing may
        // be written to a file; no command recorded tells nothing.
        let looks = |part: &str| {
            let w = lower_words(part);
            !w.is_empty() && starts_with_any(&w, lex.list("conduct.read-only-commands")).is_some()
        };
        let parts: Vec<&str> = cmd
            .split(['|', ';', '&'])
            .filter(|p| !p.trim().is_empty())
            .collect();
        return if parts.is_empty() {
            Effect::Unknown
        } else if !cmd.contains('>') && parts.iter().all(|p| looks(p)) {
            Effect::Looks
        } else {
            Effect::Acts
        };
    }
    if known("conduct.acting-tools") {
        return Effect::Acts;
    }
    let (look, act) = (
        lex.phrases("conduct.look-verbs"),
        lex.phrases("conduct.act-verbs"),
    );
    for w in name_words(own) {
        if look.has(&w) {
            return Effect::Looks;
        }
        if act.has(&w) {
            return Effect::Acts;
        }
    }
    Effect::Unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, args: serde_json::Value) -> Tool {
        Tool {
            name: name.into(),
            args: Some(args),
            at: None,
        }
    }

    fn of(name: &str) -> Effect {
        effect(Lexicon::get(), &tool(name, serde_json::json!({})))
    }

    #[test]
    fn tools_of_every_client_by_what_they_do() {
        for name in [
            "Edit",
            "Write",
            "MultiEdit",
            "NotebookEdit",
            "edit_file",
            "write_file",
            "write_to_file",
            "replace_in_file",
            "apply_patch",
            "str_replace_based_edit_tool",
            "delete_file",
            "mcp__agentbus__send_message",
            "mcp__github__create_pull_request",
            "github.createPullRequest",
            "slack/post-message",
            "mcp__deploy__trigger_deploy",
            "mcp__vercel__deploy",
            "mcp__github__merge_pull_request",
        ] {
            assert_eq!(of(name), Effect::Acts, "{name}");
        }
        for name in [
            "Read",
            "Grep",
            "Glob",
            "read_file",
            "WebFetch",
            "mcp__github__get_pull_request",
            "mcp__github__list_issues",
            "github.searchCode",
            "mcp__jira__get_issue",
            "mcp__voicehook__status",
        ] {
            assert_eq!(of(name), Effect::Looks, "{name}");
        }
        assert_eq!(of("mcp__misc__frobnicate"), Effect::Unknown);
    }

    #[test]
    fn shells_by_their_command() {
        let lex = Lexicon::get();
        let sh = |name: &str, c: serde_json::Value| {
            effect(lex, &tool(name, serde_json::json!({ "command": c })))
        };
        assert_eq!(
            sh("Bash", "git log --oneline | head -5".into()),
            Effect::Looks
        );
        assert_eq!(
            sh("run_shell_command", "ls -la && cat README.md".into()),
            Effect::Looks
        );
        assert_eq!(
            sh("execute_command", "git push --tags".into()),
            Effect::Acts
        );
        assert_eq!(
            sh("run_terminal_cmd", "ls > files.txt".into()),
            Effect::Acts
        );
        assert_eq!(
            sh("shell", serde_json::json!(["bash", "-lc", "git status"])),
            Effect::Looks
        );
        assert_eq!(
            sh(
                "exec_command",
                serde_json::json!(["bash", "-lc", "rm -rf dist"])
            ),
            Effect::Acts
        );
        assert_eq!(sh("shell", "".into()), Effect::Unknown);
    }
}
