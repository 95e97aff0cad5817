//! `callint guard feedback`, the hook after a voicehook call, through the
//! binary, for each client that has one. The hook inputs are written from
//! each client's contract: Claude Code's `PostToolUse` (its hooks
//! reference: `tool_response`, and `hookSpecificOutput.additionalContext`
//! in the answer), Codex's `PostToolUse`
//! (`codex-rs/hooks/src/events/post_tool_use.rs`: `tool_response`,
//! `tool_use_id`; `additionalContext` read by `parse_completed`), Gemini
//! CLI's `AfterTool` (`packages/core/src/hooks/types.ts`: `AfterToolInput`
//! with `tool_response` `{llmContent, returnDisplay, error}` and
//! `mcp_context`; `AfterToolOutput`'s `additionalContext`, appended to the
//! tool's answer in `packages/core/src/core/coreToolHookTriggers.ts`).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

use crate::common::{guard_within, scratch};

fn run(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_callint"))
        .args(args)
        .current_dir(dir)
        .env("HOME", dir.join("home"))
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run callint");
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

fn out(o: &Output) -> String {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The text the client passes to the model, from its answer; the event it
/// is for must be `event`, and nothing in it may grant, deny or block.
fn context(o: &Output, event: &str) -> String {
    let text = out(o);
    assert_eq!(text.lines().count(), 1, "{text:?}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let o = v.as_object().unwrap();
    assert_eq!(o.keys().collect::<Vec<_>>(), ["hookSpecificOutput"], "{v}");
    let h = &v["hookSpecificOutput"];
    assert_eq!(h["hookEventName"], event, "{v}");
    assert_eq!(h.as_object().unwrap().len(), 2, "{v}");
    h["additionalContext"].as_str().unwrap().to_string()
}

const JOIN_TS: &str = "2026-10-10T09:00:00.000Z";
const JOINED: &str = r#"{"status":"joined","call_id":"c-1","context":{"lang":"en"}}"#;

/// A Claude Code transcript: a join without a greeting, and its answer.
fn claude_session(path: &Path) {
    let lines = [
        json!({"type": "assistant", "timestamp": JOIN_TS, "message": {"role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_j", "name": "mcp__voicehook__join",
            "input": {"call_id": "c-1", "label": "Kit", "greet": false}}]}}),
        json!({"type": "user", "timestamp": "2026-10-10T09:00:01.000Z", "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_j",
            "content": [{"type": "text", "text": JOINED}]}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

#[test]
fn claude_code_is_told_after_the_call_once_and_nothing_else() {
    let dir = scratch();
    let t = dir.join("t.jsonl");
    claude_session(&t);
    let post = |tool: &str, input: Value, id: &str| {
        json!({"hook_event_name": "PostToolUse", "session_id": "fb-1", "transcript_path": t,
            "cwd": &*dir, "tool_name": tool, "tool_input": input, "tool_use_id": id,
            "tool_response": {"content": [{"type": "text", "text": "{\"ok\":true}"}]}})
        .to_string()
    };
    let at = ["--now", "2026-10-10T09:00:09Z"];
    // 9 s after the join, a status without a greeting before it
    let first = post(
        "mcp__voicehook__status",
        json!({"doing": "🔧 Checking the logs"}),
        "toolu_s",
    );
    let o = run(
        &dir,
        &[&["guard", "feedback"][..], &at].concat(),
        first.as_bytes(),
    );
    let said = context(&o, "PostToolUse");
    assert!(said.contains("callint no-greeting:"), "{said}");
    assert!(said.contains("within 3 s"), "{said}");
    // told once a session: the same finding is not told again
    let o = run(
        &dir,
        &[&["guard", "feedback"][..], &at].concat(),
        first.as_bytes(),
    );
    assert_eq!(out(&o), "");
    // another session is told
    let other = first.replace("fb-1", "fb-2");
    let o = run(
        &dir,
        &[&["guard", "feedback"][..], &at].concat(),
        other.as_bytes(),
    );
    assert!(context(&o, "PostToolUse").contains("no-greeting"));
    // another server's tool: nothing at all, on either stream
    let foreign = post("mcp__github__create_issue", json!({}), "toolu_g");
    let o = run(&dir, &["guard", "feedback"], foreign.as_bytes());
    assert_eq!(out(&o), "");
    assert!(o.stderr.is_empty());
    // a greeting in time: nothing to say
    let dir2 = scratch();
    let t2 = dir2.join("t.jsonl");
    claude_session(&t2);
    let say = post(
        "mcp__voicehook__say",
        json!({"text": "Hi, this is Kit, I am listening."}),
        "toolu_y",
    )
    .replace(&*t.to_string_lossy(), &t2.to_string_lossy());
    let o = run(
        &dir2,
        &["guard", "feedback", "--now", "2026-10-10T09:00:02Z"],
        say.as_bytes(),
    );
    assert_eq!(out(&o), "");
    // turned off in callint.toml
    std::fs::write(dir.join("callint.toml"), "[guard]\nfeedback = false\n").unwrap();
    let off = first.replace("fb-1", "fb-3");
    let o = run(
        &dir,
        &[&["guard", "feedback"][..], &at].concat(),
        off.as_bytes(),
    );
    assert_eq!(out(&o), "");
}

#[test]
fn codex_and_gemini_are_told_in_their_own_shapes() {
    let dir = scratch();
    // Codex: the rollout, and a PostToolUse with the call's CallToolResult
    let rollout = dir.join("rollout.jsonl");
    let lines = [
        json!({"timestamp": JOIN_TS, "type": "response_item", "payload": {"type": "function_call",
            "name": "mcp__voicehook__join", "arguments": "{\"call_id\":\"c-1\",\"label\":\"Kit\",\"greet\":false}",
            "call_id": "call_j"}}),
        json!({"timestamp": "2026-10-10T09:00:01.000Z", "type": "event_msg", "payload": {"type": "mcp_tool_call_end",
            "call_id": "call_j", "invocation": {"server": "voicehook", "tool": "join",
            "arguments": {"call_id": "c-1", "label": "Kit", "greet": false}},
            "result": {"Ok": {"content": [{"type": "text", "text": JOINED}]}}}}),
    ];
    std::fs::write(
        &rollout,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let input = json!({"hook_event_name": "PostToolUse", "session_id": "cx-1", "turn_id": "1",
        "transcript_path": rollout, "cwd": &*dir, "model": "gpt-5", "permission_mode": "default",
        "tool_name": "mcp__voicehook__status", "tool_input": {"doing": "🔧 Checking"},
        "tool_use_id": "call_s",
        "tool_response": {"content": [{"type": "text", "text": "{\"ok\":true}"}]}});
    let o = run(
        &dir,
        &[
            "guard",
            "feedback",
            "--client",
            "codex",
            "--now",
            "2026-10-10T09:00:09Z",
        ],
        input.to_string().as_bytes(),
    );
    assert!(context(&o, "PostToolUse").contains("callint no-greeting:"));
    // Gemini CLI: its session recording, and an AfterTool
    let chats = dir.join("session.jsonl");
    let msg = json!({"id": "m1", "timestamp": JOIN_TS, "type": "gemini", "content": "",
        "toolCalls": [{"id": "j1", "name": "mcp_voicehook_join",
        "args": {"call_id": "c-1", "label": "Kit", "greet": false}, "status": "success",
        "timestamp": "2026-10-10T09:00:01.000Z",
        "result": [{"functionResponse": {"id": "j1", "name": "mcp_voicehook_join",
            "response": {"output": format!("<untrusted_context>\n{JOINED}\n</untrusted_context>")}}}]}]});
    std::fs::write(&chats, format!("{msg}\n")).unwrap();
    let input = json!({"hook_event_name": "AfterTool", "session_id": "gm-1",
        "transcript_path": chats, "cwd": &*dir, "timestamp": "2026-10-10T09:00:09.000Z",
        "tool_name": "mcp_voicehook_status", "tool_input": {"doing": "🔧 Checking"},
        "mcp_context": {"server_name": "voicehook", "tool_name": "status"},
        "tool_response": {"llmContent": [{"text": "{\"ok\":true}"}], "returnDisplay": "{\"ok\":true}"}});
    let o = run(
        &dir,
        &[
            "guard",
            "feedback",
            "--client",
            "gemini",
            "--now",
            "2026-10-10T09:00:09Z",
        ],
        input.to_string().as_bytes(),
    );
    assert!(context(&o, "AfterTool").contains("callint no-greeting:"));
    // Cursor has no hook after a call that reaches the model: nothing, and
    // a note why
    let o = run(
        &dir,
        &["guard", "feedback", "--client", "cursor"],
        b"{\"tool_name\":\"say\"}",
    );
    assert_eq!(out(&o), "");
    assert!(String::from_utf8_lossy(&o.stderr).contains("no hook after a tool call"));
}

#[test]
fn install_writes_both_hooks_and_each_can_go() {
    let dir = scratch();
    let file = dir.join(".claude/settings.json");
    let o = run(&dir, &["guard", "install", "--client", "claude-code"], b"");
    out(&o);
    let v: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let cmd = |event: &str| {
        v["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    assert!(cmd("PreToolUse").ends_with("callint guard"), "{v}");
    assert!(
        cmd("PostToolUse").ends_with("callint guard feedback"),
        "{v}"
    );
    assert_eq!(v["hooks"]["PostToolUse"][0]["matcher"], "mcp__.*");
    // doctor checks both
    let o = run(&dir, &["guard", "doctor"], b"");
    let report = out(&o);
    assert!(report.contains("after calls runs"), "{report}");
    // --no-feedback takes the one after calls out, the guard's stays
    let o = run(
        &dir,
        &[
            "guard",
            "install",
            "--client",
            "claude-code",
            "--no-feedback",
        ],
        b"",
    );
    out(&o);
    let v: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert!(v["hooks"].get("PostToolUse").is_none(), "{v}");
    assert!(v["hooks"]["PreToolUse"].is_array(), "{v}");
    // --no-guard: the one after calls alone, the guard's taken out
    let o = run(
        &dir,
        &["guard", "install", "--client", "claude-code", "--no-guard"],
        b"",
    );
    assert!(out(&o).contains("feedback hook after calls"));
    let v: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert!(v["hooks"].get("PreToolUse").is_none(), "{v}");
    assert!(
        cmd_of(&v, "PostToolUse").ends_with("callint guard feedback"),
        "{v}"
    );
    let o = run(&dir, &["guard", "doctor"], b"");
    let report = out(&o);
    assert!(report.contains("after calls runs"), "{report}");
    assert!(report.contains("no callint guard hook"), "{report}");
    // both left out is nothing to install, and a client with no hook
    // after calls has nothing without the guard's: an error, the file
    // left as it is
    let before = std::fs::read(&file).unwrap();
    for client in ["claude-code", "cursor"] {
        let mut args = vec!["guard", "install", "--client", client, "--no-guard"];
        if client == "claude-code" {
            args.push("--no-feedback");
        }
        let o = run(&dir, &args, b"");
        assert_eq!(o.status.code(), Some(2), "{client}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("nothing to install"),
            "{client}"
        );
    }
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert!(!dir.join(".cursor/hooks.json").exists());
    // Gemini CLI: AfterTool beside BeforeTool; uninstall takes out both
    let g = dir.join(".gemini/settings.json");
    out(&run(&dir, &["guard", "install", "--client", "gemini"], b""));
    let v: Value = serde_json::from_slice(&std::fs::read(&g).unwrap()).unwrap();
    assert_eq!(v["hooks"]["AfterTool"][0]["matcher"], "mcp_.*", "{v}");
    assert!(v["hooks"]["AfterTool"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .ends_with("guard feedback --client gemini"));
    out(&run(
        &dir,
        &["guard", "install", "--client", "gemini", "--uninstall"],
        b"",
    ));
    assert!(!g.exists(), "nothing else was in it");
    // Cursor gets no hook after calls
    out(&run(&dir, &["guard", "install", "--client", "cursor"], b""));
    let c = std::fs::read_to_string(dir.join(".cursor/hooks.json")).unwrap();
    assert!(!c.contains("guard feedback"), "{c}");
}

/// The command of the first hook of `event` in a client's settings.
fn cmd_of(v: &Value, event: &str) -> String {
    v["hooks"][event][0]["hooks"][0]["command"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// A doctor on a scratch HOME finds a feedback hook whose program is gone.
#[test]
fn doctor_finds_a_broken_feedback_hook() {
    let dir = scratch();
    let file = dir.join(".codex/hooks.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let gone = dir.join("gone/callint");
    std::fs::write(
        &file,
        json!({"hooks": {"PostToolUse": [{"matcher": "mcp__.*", "hooks": [{"type": "command",
            "command": format!("{} guard feedback --client codex", gone.display())}]}]}})
        .to_string(),
    )
    .unwrap();
    let o = run(
        &dir,
        &["guard", "doctor", "--dir", &dir.to_string_lossy()],
        b"",
    );
    assert_eq!(o.status.code(), Some(1));
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(report.contains("BROKEN"), "{report}");
    assert!(report.contains("not found"), "{report}");
}

/// The hook input of a pending call of `tool` (`say` or another server's
/// `create_issue`) as each client hands it over, in a session whose file
/// is not written yet: Claude Code's and Codex's `PreToolUse`, Gemini CLI's `BeforeTool` (packages/core/src/hooks/types.ts),
/// Cursor's `beforeMCPExecution` (its hooks documentation:
/// `mcp_server_name`, `tool_input` as a JSON string), and what the opencode
/// plugin in `integrations/opencode/` hands over.
fn pending(client: &str, server: &str, tool: &str, input: Value, cwd: &Path) -> String {
    match client {
        "claude-code" | "codex" => json!({"hook_event_name": "PreToolUse", "session_id": "s",
            "transcript_path": cwd.join("new-session.jsonl"),
            "cwd": cwd, "tool_name": format!("mcp__{server}__{tool}"), "tool_input": input}),
        "gemini" => json!({"hook_event_name": "BeforeTool", "session_id": "s", "cwd": cwd,
            "transcript_path": cwd.join("new-session.json"),
            "tool_name": format!("mcp_{server}_{tool}"), "tool_input": input,
            "mcp_context": {"server_name": server, "tool_name": tool}}),
        "cursor" => json!({"hook_event_name": "beforeMCPExecution", "conversation_id": "s",
            "workspace_roots": [cwd], "tool_name": tool, "mcp_server_name": server,
            "tool_input": input.to_string()}),
        _ => json!({"hook_event_name": "tool.execute.before", "tool": format!("{server}_{tool}"),
            "session_id": "s", "call_id": "c", "cwd": cwd, "tool_input": input}),
    }
    .to_string()
}

/// Every client, before and after a call: a call the guard does not deny
/// gets no output at all (no client takes silence as a grant), and a call
/// of another server gets exactly what it gets with no hook: nothing on
/// either stream, exit 0.
#[test]
fn every_client_is_silent_on_allowed_and_other_servers_calls() {
    let dir = scratch();
    for client in ["claude-code", "codex", "gemini", "cursor", "opencode"] {
        let clean = pending(client, "voicehook", "say", json!({"text": "Done."}), &dir);
        let o = run(&dir, &["guard", "--client", client], clean.as_bytes());
        assert_eq!(out(&o), "", "{client}");
        let foreign = pending(
            client,
            "github",
            "create_issue",
            json!({"title": "x"}),
            &dir,
        );
        let o = run(&dir, &["guard", "--client", client], foreign.as_bytes());
        assert_eq!(out(&o), "", "{client}");
        assert!(
            o.stderr.is_empty(),
            "{client}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        // a bad say is denied, never granted, in the client's own form
        let long = "word ".repeat(45);
        let bad = pending(client, "voicehook", "say", json!({"text": long}), &dir);
        let text = out(&run(&dir, &["guard", "--client", client], bad.as_bytes()));
        assert!(
            text.contains("deny") && text.contains("long-say"),
            "{client}: {text}"
        );
        for grant in ["\"allow\"", "\"approve\"", "\"ask\""] {
            assert!(!text.contains(grant), "{client}: {text}");
        }
    }
    // after the call: another server's tool gets nothing either
    for (client, event) in [
        ("claude-code", "PostToolUse"),
        ("codex", "PostToolUse"),
        ("gemini", "AfterTool"),
    ] {
        let mut v: Value =
            serde_json::from_str(&pending(client, "github", "create_issue", json!({}), &dir))
                .unwrap();
        v["hook_event_name"] = json!(event);
        v["tool_response"] = json!({"content": [{"type": "text", "text": "#12"}]});
        let o = run(
            &dir,
            &["guard", "feedback", "--client", client],
            v.to_string().as_bytes(),
        );
        assert_eq!(out(&o), "", "{client}");
        assert!(o.stderr.is_empty(), "{client}");
    }
}

/// `callint guard feedback ARGS` ([`guard_within`]).
fn feedback_within(dir: &Path, args: &[&str], input: &[u8], secs: u64) -> Output {
    let all: Vec<&str> = std::iter::once("feedback")
        .chain(args.iter().copied())
        .collect();
    guard_within(dir, &all, input, secs)
}

/// The post-tool hook input of a `say` greeting in time (1 s after the
/// join of [`claude_session`] and its kin), as `client` hands it over:
/// Claude Code's `PostToolUse` (its hooks reference, "PostToolUse input":
/// `tool_response` as the tool returned it, here an MCP tool's content
/// blocks), Codex's `PostToolUse` (`codex-rs/hooks/src/schema.rs`,
/// `PostToolUseCommandInput`: `turn_id`, `model`, `permission_mode`,
/// `tool_use_id`, `tool_response`), Gemini CLI's `AfterTool`
/// (`packages/core/src/hooks/types.ts`, `AfterToolInput`: `tool_response`
/// `{llmContent, returnDisplay, error}`, `mcp_context`).
fn greeting_done(client: &str, session: &Path, cwd: &Path) -> Value {
    let say = json!({"text": "Hi, this is Kit, I am listening."});
    let answer = "{\"say_id\":\"s1\",\"say_status\":\"queued\"}";
    match client {
        "gemini" => json!({"hook_event_name": "AfterTool", "session_id": "q-gm",
            "transcript_path": session, "cwd": cwd, "timestamp": "2026-10-10T09:00:02.000Z",
            "tool_name": "mcp_voicehook_say", "tool_input": say,
            "mcp_context": {"server_name": "voicehook", "tool_name": "say"},
            "tool_response": {"llmContent": [{"text": answer}], "returnDisplay": answer, "error": null}}),
        "codex" => json!({"hook_event_name": "PostToolUse", "session_id": "q-cx", "turn_id": "1",
            "transcript_path": session, "cwd": cwd, "model": "gpt-5", "permission_mode": "default",
            "tool_name": "mcp__voicehook__say", "tool_input": say, "tool_use_id": "call_y",
            "tool_response": {"content": [{"type": "text", "text": answer}], "isError": false}}),
        _ => json!({"hook_event_name": "PostToolUse", "session_id": "q-cc",
            "transcript_path": session, "cwd": cwd, "permission_mode": "default",
            "tool_name": "mcp__voicehook__say", "tool_input": say, "tool_use_id": "toolu_y",
            "tool_response": [{"type": "text", "text": answer}]}),
    }
}

/// The session of a join that did not greet, as `client` records it.
fn join_session(client: &str, path: &Path) {
    match client {
        "gemini" => {
            let msg = json!({"id": "m1", "timestamp": JOIN_TS, "type": "gemini", "content": "",
                "toolCalls": [{"id": "j1", "name": "mcp_voicehook_join",
                "args": {"call_id": "c-1", "label": "Kit", "greet": false}, "status": "success",
                "timestamp": "2026-10-10T09:00:01.000Z",
                "result": [{"functionResponse": {"id": "j1", "name": "mcp_voicehook_join",
                    "response": {"output": JOINED}}}]}]});
            std::fs::write(path, format!("{msg}\n")).unwrap();
        }
        "codex" => {
            let join = json!({"call_id": "c-1", "label": "Kit", "greet": false});
            let lines = [
                json!({"timestamp": JOIN_TS, "type": "response_item", "payload": {"type": "function_call",
                    "name": "mcp__voicehook__join", "arguments": join.to_string(), "call_id": "call_j"}}),
                json!({"timestamp": "2026-10-10T09:00:01.000Z", "type": "event_msg", "payload": {
                    "type": "mcp_tool_call_end", "call_id": "call_j",
                    "invocation": {"server": "voicehook", "tool": "join", "arguments": join},
                    "result": {"Ok": {"content": [{"type": "text", "text": JOINED}]}}}}),
            ];
            std::fs::write(
                path,
                lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
            )
            .unwrap();
        }
        _ => claude_session(path),
    }
}

/// Where no rule has anything to say (a greeting 1 s after the join), the
/// hook prints nothing on either stream and exits 0 in every client
/// (Gemini CLI, `packages/core/src/hooks/hookRunner.ts`: exit 0 with empty
/// output is no answer, output that is not JSON would become a message
/// shown to the user, exit 2 would block; Codex, `post_tool_use.rs`
/// `parse_completed`: the same for exit 0, and exit 2 hands the standard
/// error to the model); the same session with the status made later instead is told, whatever
/// the hook input's spacing and key order. Input that is not a hook input
/// gets nothing on standard output and exit 0: a hook after a call never
/// blocks anything.
#[test]
fn every_client_is_quiet_when_no_rule_has_anything_to_say() {
    let dir = scratch();
    for client in ["claude-code", "codex", "gemini"] {
        let session = dir.join(format!("{client}.jsonl"));
        join_session(client, &session);
        let done = greeting_done(client, &session, &dir);
        let args = ["--client", client, "--now", "2026-10-10T09:00:02Z"];
        let o = feedback_within(&dir, &args, done.to_string().as_bytes(), 20);
        assert_eq!(out(&o), "", "{client}");
        assert!(
            o.stderr.is_empty(),
            "{client}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        // no greeting, a status 9 s after the join instead: told, the
        // input pretty-printed
        let mut late = done.clone();
        late["session_id"] = json!(format!("{client}-late"));
        let status = if client == "gemini" {
            late["mcp_context"]["tool_name"] = json!("status");
            "mcp_voicehook_status"
        } else {
            "mcp__voicehook__status"
        };
        late["tool_name"] = json!(status);
        late["tool_input"] = json!({"doing": "🔧 Checking the logs"});
        let pretty = serde_json::to_string_pretty(&late).unwrap();
        let args = ["--client", client, "--now", "2026-10-10T09:00:09Z"];
        let o = feedback_within(&dir, &args, pretty.as_bytes(), 20);
        let event = if client == "gemini" {
            "AfterTool"
        } else {
            "PostToolUse"
        };
        let said = context(&o, event);
        assert!(said.starts_with("After your last voicehook call"), "{said}");
        assert!(said.contains("callint no-greeting:"), "{client}: {said}");
        // not a hook input at all
        for junk in [&b"not json"[..], b"[]", b"{\"tool_name\": 7}", b""] {
            let o = feedback_within(&dir, &["--client", client], junk, 20);
            assert_eq!(out(&o), "", "{client} {junk:?}");
        }
    }
}

/// A session path that is no regular file (a device that never ends, a
/// FIFO no one writes, a folder, a missing file) gets no feedback, at once:
/// nothing on standard output, exit 0, never a wait.
#[test]
fn a_session_path_that_is_no_regular_file_gets_no_feedback_and_no_wait() {
    let dir = scratch();
    let fifo = dir.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let paths: Vec<std::path::PathBuf> = vec![
        "/dev/zero".into(),
        fifo,
        dir.to_path_buf(),
        dir.join("no-such.jsonl"),
    ];
    for client in ["claude-code", "codex", "gemini"] {
        for path in &paths {
            for keep in [&["--no-cache"][..], &[]] {
                let mut done = greeting_done(client, path, &dir);
                done["tool_name"] = json!(if client == "gemini" {
                    "mcp_voicehook_status"
                } else {
                    "mcp__voicehook__status"
                });
                let args = [&["--client", client][..], keep].concat();
                let o = feedback_within(&dir, &args, done.to_string().as_bytes(), 20);
                assert_eq!(out(&o), "", "{client} {}", path.display());
            }
        }
    }
}
