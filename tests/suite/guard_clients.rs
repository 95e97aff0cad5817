//! `callint guard --client NAME` for every client, and `callint guard
//! install`, through the binary. The hook inputs are written from each
//! client's hook contract: Codex's `PreToolUse` (the seed incident's
//! rollouts cut before each voicehook call), Gemini CLI's `BeforeTool`,
//! Cursor's `beforeMCPExecution`, and what the opencode plugin shipped in
//! `integrations/opencode/` hands the guard.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

use crate::common::{guard_in, guard_within, root, scratch};

/// Run `callint ARGS` in `dir` with `input` on standard input and the
/// environment changed by `env` (HOME and the clients' folders point into
/// the test's folder, never at the user's).
fn run_env(dir: &Path, args: &[&str], input: &[u8], env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_callint"));
    cmd.args(args)
        .current_dir(dir)
        .env("HOME", dir.join("home"))
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env(
            "XDG_CACHE_HOME",
            std::env::temp_dir().join("callint-test-cache"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("run callint");
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The one JSON object a client reads on standard output.
fn answer(o: &Output) -> Value {
    assert_eq!(o.status.code(), Some(0), "the guard exits 0: {}", err(o));
    let text = out(o);
    assert_eq!(text.lines().count(), 1, "one line: {text:?}");
    serde_json::from_str(&text).expect("a JSON object")
}

/// A reason the agent can read: plain text on one line.
fn plain(reason: &str) -> &str {
    assert!(
        !reason.chars().any(char::is_control),
        "plain text on one line: {reason:?}"
    );
    assert!(reason.starts_with("callint "), "{reason}");
    reason
}

// ---- Codex ----

const CODEX: &str = "corpus/seed-incident-codex";

/// Every voicehook `function_call` of the Codex rollouts of the incident:
/// (file, line, time, hook input), each with its rollout cut just before
/// the call and written under `dir`.
fn codex_calls(dir: &Path) -> Vec<(String, usize, String, Value)> {
    let mut calls = Vec::new();
    for file in ["claude.jsonl", "opencode.jsonl", "promo.jsonl"] {
        let src = std::fs::read_to_string(root().join(CODEX).join(file)).unwrap();
        let lines: Vec<&str> = src.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let e: Value = serde_json::from_str(l).unwrap();
            let p = &e["payload"];
            let name = p["name"].as_str().unwrap_or("");
            if e["type"] != "response_item"
                || p["type"] != "function_call"
                || !name.starts_with("mcp__")
            {
                continue;
            }
            let rollout = dir.join(format!("rollout-{file}-{}", i + 1));
            std::fs::write(&rollout, lines[..i].join("\n") + "\n").unwrap();
            let args: Value = serde_json::from_str(p["arguments"].as_str().unwrap()).unwrap();
            // Codex's PreToolUse input: the fields its hooks receive.
            let hook = json!({
                "session_id": "0199c7f3-0000-7000-8000-000000000001",
                "turn_id": "turn-1",
                "transcript_path": rollout,
                "cwd": dir,
                "hook_event_name": "PreToolUse",
                "model": "gpt-5-codex",
                "permission_mode": "default",
                "tool_name": name,
                "tool_input": args,
                "tool_use_id": p["call_id"],
            });
            calls.push((
                file.to_string(),
                i + 1,
                e["timestamp"].as_str().unwrap().to_string(),
                hook,
            ));
        }
    }
    calls
}

/// Codex's denial: the same shape as Claude Code's.
fn codex_denial(o: &Output) -> Option<String> {
    if o.stdout.is_empty() {
        assert_eq!(o.status.code(), Some(0));
        return None;
    }
    let v = answer(o);
    let h = &v["hookSpecificOutput"];
    assert_eq!(h["hookEventName"], "PreToolUse");
    assert_eq!(h["permissionDecision"], "deny");
    Some(plain(h["permissionDecisionReason"].as_str().unwrap()).to_string())
}

#[test]
fn codex_calls_are_judged_from_the_rollout() {
    let dir = scratch();
    std::fs::write(dir.join("callint.toml"), crate::common::INFO_DENIES).unwrap();
    let want = crate::common::expected_findings(CODEX);
    let calls = codex_calls(&dir);
    let mut denied = BTreeSet::new();
    for (file, line, at, hook) in &calls {
        let o = guard_in(
            &dir,
            &["--client", "codex", "--now", at],
            hook.to_string().as_bytes(),
        );
        let got = codex_denial(&o);
        match (want.get(&(file.clone(), *line)), got) {
            (None, None) => assert!(err(&o).is_empty(), "{file}:{line}: {}", err(&o)),
            (None, Some(r)) => panic!("{file}:{line} is a good line, denied: {r}"),
            (Some(w), None) => panic!("{file}:{line} breaks {w:?}, allowed ({})", err(&o)),
            (Some(w), Some(r)) => {
                for rule in w {
                    assert!(r.contains(&format!("{rule}:")), "{file}:{line} {rule}: {r}");
                }
                denied.insert((file.clone(), *line));
            }
        }
    }
    // Every bad line is a voicehook call the guard sees, but for the tool
    // run a participant made.
    let unseen: Vec<_> = want.keys().filter(|k| !denied.contains(*k)).collect();
    assert!(unseen.len() <= 1, "{unseen:?}");
    assert!(calls.len() > 100, "{}", calls.len());
}

#[test]
fn codex_finds_the_rollout_by_session_and_takes_a_written_call_out() {
    let dir = scratch();
    let calls = codex_calls(&dir);
    let (_, _, at, hook) = calls
        .iter()
        .find(|(f, l, _, _)| f == "claude.jsonl" && *l == 91)
        .expect("the long say")
        .clone();
    // no transcript_path: the rollout is looked for in CODEX_HOME by the
    // session id, in the folder of its day
    let home = dir.join("codex-home");
    let day = home.join("sessions/2026/10/10");
    std::fs::create_dir_all(&day).unwrap();
    let id = "0199c7f3-c1a0-7a2e-9c41-5e0d1b2a3c4d";
    let mut rollout = std::fs::read(hook["transcript_path"].as_str().unwrap()).unwrap();
    // Codex wrote the pending call before it ran the hook, with spaces
    // after its colons: taken out, it is judged once.
    let written = json!({
        "timestamp": at,
        "type": "response_item",
        "payload": {"type": "function_call", "name": hook["tool_name"], "arguments": hook["tool_input"].to_string(), "call_id": hook["tool_use_id"]},
    });
    let spaced = serde_json::to_string_pretty(&written)
        .unwrap()
        .replace('\n', "");
    rollout.extend_from_slice(spaced.as_bytes());
    rollout.push(b'\n');
    std::fs::write(
        day.join(format!("rollout-2026-10-10T10-01-57-{id}.jsonl")),
        &rollout,
    )
    .unwrap();
    let mut h = hook.clone();
    h["transcript_path"] = Value::Null;
    h["session_id"] = json!(id);
    let input = h.to_string();
    let o = run_env(
        &dir,
        &["guard", "--client", "codex", "--now", &at, "--no-cache"],
        input.as_bytes(),
        &[("CODEX_HOME", &home)],
    );
    let r = codex_denial(&o).unwrap_or_else(|| panic!("allowed: {}", err(&o)));
    assert!(r.starts_with("callint long-say:"), "{r}");
    // another session: nothing found, judged by the call alone (long-say
    // needs nothing before it), and said so
    h["session_id"] = json!("0199c7f3-ffff-7000-8000-000000000000");
    let o = run_env(
        &dir,
        &["guard", "--client", "codex", "--now", &at, "--no-cache"],
        h.to_string().as_bytes(),
        &[("CODEX_HOME", &home)],
    );
    assert!(codex_denial(&o).unwrap().starts_with("callint long-say:"));
    assert!(err(&o).contains("not judged"), "{}", err(&o));
}

/// A session path that is no regular file (a device that never ends, a
/// FIFO no one writes, a folder, a path that is not there) is judged as no
/// history: at once, by the call alone, with one note that says why; never
/// a wait. The hook inputs are Claude Code's `PreToolUse` input
/// (<https://docs.claude.com/en/docs/claude-code/hooks>, "PreToolUse
/// input") and Codex's, whose fields are the same.
#[test]
fn a_session_path_that_is_no_regular_file_is_no_history_and_no_wait() {
    let dir = scratch();
    let fifo = dir.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    // A file (sparse: no disk) one byte longer than the guard reads of a
    // call, with no call's start in it.
    let huge = dir.join("huge.jsonl");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(callint::app::guard::MAX_CALL_BYTES + 1)
        .unwrap();
    let paths: Vec<(&str, std::path::PathBuf)> = vec![
        ("/dev/zero", "/dev/zero".into()),
        ("a FIFO", fifo.clone()),
        ("a folder", dir.to_path_buf()),
        ("a missing file", dir.join("no-such.jsonl")),
        ("a call too long", huge.clone()),
    ];
    for client in ["claude-code", "codex"] {
        for (what, path) in &paths {
            let hook = |text: &str| {
                json!({
                    "session_id": "s-unread",
                    "transcript_path": path,
                    "cwd": dir.to_path_buf(),
                    "hook_event_name": "PreToolUse",
                    "tool_name": "mcp__voicehook__say",
                    "tool_input": {"text": text},
                    "tool_use_id": "toolu_01",
                })
                .to_string()
            };
            let args = ["--client", client, "--no-cache"];
            // a long say needs no history: denied, by the call alone
            let o = guard_within(&dir, &args, hook(LONG).as_bytes(), 10);
            let r = codex_denial(&o).unwrap_or_else(|| panic!("{client} {what}: {}", err(&o)));
            assert!(r.starts_with("callint long-say:"), "{client} {what}: {r}");
            let e = err(&o);
            assert_eq!(e.lines().count(), 1, "{client} {what}: one note: {e}");
            assert!(
                e.contains("judged by the call alone"),
                "{client} {what}: {e}"
            );
            let why = match *what {
                "a missing file" => "cannot read",
                "a call too long" => "more than 256 MiB",
                _ => "not a regular file",
            };
            assert!(e.contains(why), "{client} {what}: {e}");
            // a clean one: nothing on standard output
            let o = guard_within(&dir, &args, hook("Done.").as_bytes(), 10);
            assert_eq!(
                (o.status.code(), out(&o)),
                (Some(0), String::new()),
                "{client} {what}"
            );
        }
    }
    // With the kept state on, the same.
    let hook = json!({
        "session_id": "s-unread-kept",
        "transcript_path": "/dev/zero",
        "hook_event_name": "PreToolUse",
        "tool_name": "mcp__voicehook__say",
        "tool_input": {"text": LONG},
    });
    let o = guard_within(&dir, &[], hook.to_string().as_bytes(), 10);
    assert!(codex_denial(&o).is_some(), "{}", err(&o));
}

/// A pending `say` of `LONG` to the server `server` (reached at `url`, when
/// the client says), as each client's hook input has it: Claude Code's and
/// Codex's `PreToolUse` (the tool `mcp__<server>__say`; a transcript that
/// is no file, so the call is judged by itself), Gemini CLI's `BeforeTool`
/// (`mcp_context`, packages/core/src/hooks/types.ts `McpToolContext`),
/// Cursor's `beforeMCPExecution` (`tool_name`, `mcp_server_name`,
/// `mcp_server_url`) and what the opencode plugin hands over.
fn say_to(client: &str, server: &str, url: Option<&str>) -> String {
    let say = json!({"text": LONG});
    match client {
        "claude-code" | "codex" => json!({
            "session_id": "s-server", "transcript_path": "/dev/null/none",
            "hook_event_name": "PreToolUse", "tool_name": format!("mcp__{server}__say"),
            "tool_input": say,
        }),
        "gemini" => {
            let mut ctx = json!({"server_name": server, "tool_name": "say"});
            match url {
                Some(u) => ctx["url"] = json!(u),
                None => {
                    ctx["command"] = json!("node");
                    ctx["args"] = json!(["server.js"]);
                }
            }
            json!({"session_id": "g-server", "hook_event_name": "BeforeTool",
                "tool_name": format!("mcp_{server}_say"), "tool_input": say, "mcp_context": ctx})
        }
        "cursor" => {
            let mut h = json!({"conversation_id": "c-server", "hook_event_name": "beforeMCPExecution",
                "tool_name": "say", "tool_input": say.to_string(), "mcp_server_name": server});
            match url {
                Some(u) => h["mcp_server_url"] = json!(u),
                None => h["command"] = json!("node server.js"),
            }
            h
        }
        _ => json!({"hook_event_name": "tool.execute.before", "tool": format!("{server}_say"),
            "session_id": "ses_server", "call_id": "call_1", "tool_input": say}),
    }
    .to_string()
}

/// Which server is voicehook is decided the same way for every client:
/// by `callint.toml` (`[guard] servers` by name, URL or command; the
/// top-level `servers` by name), or by `voicehook` in what the client says
/// of the server; else the call is let through unjudged.
#[test]
fn every_client_tells_the_voicehook_server_the_same_way() {
    let url = "http://127.0.0.1:7001/mcp";
    for client in ["claude-code", "codex", "gemini", "cursor", "opencode"] {
        let dir = scratch();
        let home = dir.join("home");
        let run = |input: &str| {
            run_env(
                &dir,
                &["guard", "--client", client, "--no-cache"],
                input.as_bytes(),
                &[("CODEX_HOME", &home)],
            )
        };
        let denied = |o: &Output| {
            assert_eq!(o.status.code(), Some(0), "{client}: {}", err(o));
            out(o).contains("long-say")
        };
        let with_url = matches!(client, "gemini" | "cursor").then_some(url);
        let input = say_to(client, "calls", with_url);
        // nothing tells: let through, and said why
        let o = run(&input);
        assert!(!denied(&o), "{client}: {}", out(&o));
        assert!(
            err(&o).contains("not known to be voicehook"),
            "{client}: {}",
            err(&o)
        );
        // its name in [guard] servers, or in the top-level servers
        for toml in [
            "[guard]\nservers = [\"calls\"]\n",
            "servers = [\"calls\"]\n",
        ] {
            std::fs::write(dir.join("callint.toml"), toml).unwrap();
            assert!(denied(&run(&input)), "{client} {toml}");
        }
        // another name there is no help
        std::fs::write(dir.join("callint.toml"), "[guard]\nservers = [\"other\"]\n").unwrap();
        assert!(!denied(&run(&input)), "{client}");
        // the URL or the command the client reaches it by
        if client == "gemini" || client == "cursor" {
            std::fs::write(
                dir.join("callint.toml"),
                format!("[guard]\nservers = [\"{url}\"]\n"),
            )
            .unwrap();
            assert!(denied(&run(&input)), "{client} by URL");
            let by_command = say_to(client, "calls", None);
            assert!(
                !denied(&run(&by_command)),
                "{client}: the URL is not the command"
            );
            std::fs::write(
                dir.join("callint.toml"),
                "[guard]\nservers = [\"server.js\"]\n",
            )
            .unwrap();
            assert!(denied(&run(&by_command)), "{client} by command");
            std::fs::remove_file(dir.join("callint.toml")).unwrap();
            // voicehook in the URL says so without any configuration
            let said = say_to(client, "calls", Some("https://voicehook.example/mcp"));
            assert!(denied(&run(&said)), "{client}: voicehook in the URL");
        }
        std::fs::remove_file(dir.join("callint.toml")).ok();
        // voicehook in the server's name
        assert!(
            denied(&run(&say_to(client, "voicehook", with_url))),
            "{client}"
        );
        // never another server's tool that is no voicehook function
        let other = say_to(client, "github", with_url).replace("say", "create_issue");
        let o = run(&other);
        assert_eq!(
            (out(&o), err(&o).contains("not known")),
            (String::new(), false),
            "{client}"
        );
    }
}

/// Gemini CLI shows a hook's standard error, when it exits 0 with nothing
/// on standard output, as a message in its window
/// (packages/core/src/hooks/hookRunner.ts, `convertPlainTextToHookOutput`).
/// So the guard says nothing of another server's tools, and what holds
/// for a whole session (judged by the call alone; a server not known to be
/// voicehook) once a session. The hook inputs are Gemini CLI's `BeforeTool`
/// (packages/core/src/hooks/types.ts: `session_id`, `tool_name`,
/// `tool_input`, `mcp_context`) and Cursor's `beforeMCPExecution`.
#[test]
fn notes_are_said_once_a_session_and_never_for_another_server() {
    let dir = scratch();
    let cache = dir.join("cache");
    let run = |client: &str, input: &str| {
        guard_in(
            &dir,
            &["--client", client, "--cache-dir", cache.to_str().unwrap()],
            input.as_bytes(),
        )
    };
    let gemini_in = |session: &str, server: &str, tool: &str, text: &str| {
        json!({"session_id": session, "hook_event_name": "BeforeTool",
            "tool_name": format!("mcp_{server}_{tool}"), "tool_input": {"text": text},
            "mcp_context": {"server_name": server, "tool_name": tool}})
        .to_string()
    };
    // judged by the call alone: said on the session's first call only
    let first = run("gemini", &gemini_in("g-a", "voicehook", "say", "Done."));
    assert_eq!(out(&first), "");
    assert!(
        err(&first).contains("judged by the call alone"),
        "{}",
        err(&first)
    );
    for text in ["Done.", "On it."] {
        let o = run("gemini", &gemini_in("g-a", "voicehook", "say", text));
        assert_eq!((out(&o), err(&o)), (String::new(), String::new()), "{text}");
    }
    // a denial is said every time, on standard output
    let o = run("gemini", &gemini_in("g-a", "voicehook", "say", LONG));
    assert_eq!(answer(&o)["decision"], "deny");
    assert_eq!(err(&o), "");
    // another session: said again
    let o = run("gemini", &gemini_in("g-b", "voicehook", "say", "Done."));
    assert!(err(&o).contains("judged by the call alone"), "{}", err(&o));
    // another server's tools: nothing, on the first call as on every one
    for (server, tool) in [("github", "create_issue"), ("files", "read_file")] {
        let o = run("gemini", &gemini_in("g-c", server, tool, "x"));
        assert_eq!(
            (o.status.code(), out(&o), err(&o)),
            (Some(0), String::new(), String::new())
        );
    }
    // a server not known to be voicehook, whose tool is named like one of
    // voicehook's: said once
    let o = run("gemini", &gemini_in("g-c", "speech", "say", LONG));
    assert_eq!(out(&o), "");
    assert!(err(&o).contains("not known to be voicehook"), "{}", err(&o));
    let o = run("gemini", &gemini_in("g-c", "speech", "say", LONG));
    assert_eq!((out(&o), err(&o)), (String::new(), String::new()));
    // Cursor alike
    let cursor_in = |tool: &str| {
        json!({"conversation_id": "c-a", "hook_event_name": "beforeMCPExecution",
            "tool_name": tool, "tool_input": {"text": "Done."}, "mcp_server_name": "voicehook"})
        .to_string()
    };
    assert!(err(&run("cursor", &cursor_in("say"))).contains("judged by the call alone"));
    assert_eq!(err(&run("cursor", &cursor_in("say"))), "");
    assert_eq!(err(&run("cursor", &cursor_in("create_issue"))), "");
}

// ---- Gemini CLI, Cursor, opencode: the call by itself ----

/// A say of 47 words: `long-say`, which needs nothing before it.
const LONG: &str = "I have looked at the build and the tests and everything seems fine so far. I will now start on the release notes and then tag the release. After that I will post the link in the channel so that everybody can see it and check it.";

/// A board that bundles, asks the human a question, and has no emoji.
fn board() -> Value {
    json!({
        "doing": "Release prep",
        "open": ["Should we ship on Friday or wait for QA?", "Fix login, update the docs and bump the version"],
    })
}

fn gemini(tool: &str, input: Value, context: Option<Value>) -> String {
    let mut h = json!({
        "session_id": "g-1",
        "transcript_path": "/home/u/.gemini/tmp/abc/chats/session-1.json",
        "cwd": "/w",
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-10-10T10:00:00.000Z",
        "tool_name": tool,
        "tool_input": input,
    });
    if let Some(c) = context {
        h["mcp_context"] = c;
    }
    h.to_string()
}

#[test]
fn gemini_denies_with_its_decision_and_says_what_was_not_judged() {
    let dir = scratch();
    // (--no-cache: nothing kept, so every note is said on every call)
    let run = |input: &str| {
        guard_in(
            &dir,
            &["--client", "gemini", "--no-cache"],
            input.as_bytes(),
        )
    };
    let ctx = json!({"server_name": "voicehook", "tool_name": "say", "command": "node", "args": ["server.js"]});
    let o = run(&gemini(
        "mcp_voicehook_say",
        json!({"text": LONG}),
        Some(ctx),
    ));
    let v = answer(&o);
    assert_eq!(v.as_object().unwrap().len(), 2, "{v}");
    assert_eq!(v["decision"], "deny");
    assert!(plain(v["reason"].as_str().unwrap()).starts_with("callint long-say:"));
    let e = err(&o);
    assert!(
        e.contains("not judged") && e.contains("wrong-language") && !e.contains("long-say"),
        "{e}"
    );
    // every finding, the most severe first, ties by rule name
    let o = run(&gemini("mcp_voicehook_status", board(), None));
    let r = answer(&o)["reason"].as_str().unwrap().to_string();
    let at = |rule: &str| {
        r.find(&format!("{rule}:"))
            .unwrap_or_else(|| panic!("{rule}: {r}"))
    };
    assert!(at("board-bundle") < at("board-missing-emoji"), "{r}");
    assert!(at("board-missing-emoji") < at("question-on-board"), "{r}");
    assert!(r.contains(" Also question-on-board: "), "{r}");
    // a line that breaks nothing by itself: no output
    let o = run(&gemini("mcp_voicehook_say", json!({"text": "Done."}), None));
    assert_eq!((o.status.code(), out(&o)), (Some(0), String::new()));
    // a server not known to be voicehook: let through, and why
    let o = run(&gemini("mcp_vh_say", json!({"text": LONG}), None));
    assert_eq!(out(&o), "");
    assert!(err(&o).contains("not known to be voicehook"), "{}", err(&o));
    // ... unless callint.toml names it
    std::fs::write(dir.join("callint.toml"), "servers = [\"vh\"]\n").unwrap();
    let input = gemini("mcp_vh_say", json!({"text": LONG}), None)
        .replace("\"/w\"", &serde_json::to_string(&dir).unwrap());
    let o = run(&input);
    assert_eq!(answer(&o)["decision"], "deny");
    // another tool, another event: let through
    let o = run(&gemini("run_shell_command", json!({"command": "ls"}), None));
    assert_eq!(out(&o), "");
    let o = run(&gemini("mcp_voicehook_say", json!({"text": LONG}), None)
        .replace("BeforeTool", "AfterTool"));
    assert_eq!(out(&o), "");
    assert!(err(&o).contains("allowed"), "{}", err(&o));
}

/// A Gemini CLI session of call `c-1`, in English, as its chat recording
/// service writes it (packages/core/src/services/chatRecordingService.ts
/// and chatRecordingTypes.ts of google-gemini/gemini-cli: the metadata
/// line, messages of one JSON object a line, a model's message written
/// again as its tool calls complete, `$set` of `lastUpdated`; an MCP
/// tool's result is the `functionResponse` whose `output` holds the
/// server's text inside `<untrusted_context>`, as `mcp-tool.ts` and
/// `generateContentResponseUtilities.ts` make it), with `work` lines of
/// shell output before the join.
fn gemini_session(work: usize) -> Vec<Value> {
    let wrap = |v: Value| format!("<untrusted_context>\n{v}\n</untrusted_context>");
    let call = |id: &str, tool: &str, args: Value, result: Value, at: &str| {
        let name = format!("mcp_voicehook_{tool}");
        json!({"id": id, "name": name, "args": args, "result": [{"functionResponse":
            {"id": id, "name": name, "response": {"output": wrap(result)}}}],
            "status": "success", "timestamp": at, "displayName": format!("{tool} (voicehook MCP Server)"),
            "description": "", "renderOutputAsMarkdown": true})
    };
    let mut lines = vec![
        json!({"sessionId": "5f0e7c1a-1", "projectHash": "9c4b", "startTime": "2026-10-10T09:59:00.000Z",
            "lastUpdated": "2026-10-10T09:59:00.000Z", "kind": "main"}),
        json!({"id": "u1", "timestamp": "2026-10-10T09:59:01.000Z", "type": "user",
            "content": [{"text": "Join the voice call c-1 and help the team"}]}),
    ];
    for k in 0..work {
        lines.push(json!({"id": format!("w{k}"), "timestamp": "2026-10-10T09:59:30.000Z", "type": "gemini",
            "content": "", "toolCalls": [{"id": format!("sh{k}"), "name": "run_shell_command",
            "args": {"command": "cargo test"}, "result": [{"functionResponse": {"id": format!("sh{k}"),
            "name": "run_shell_command", "response": {"output": "test ok\n".repeat(80)}}}],
            "status": "success", "timestamp": "2026-10-10T09:59:31.000Z"}]}));
        lines.push(json!({"$set": {"lastUpdated": "2026-10-10T09:59:31.000Z"}}));
    }
    let join = call(
        "j1",
        "join",
        json!({"call_id": "c-1", "label": "Kit"}),
        json!({"status": "joined", "call_id": "c-1", "context": {"lang": "en"}}),
        "2026-10-10T10:00:01.000Z",
    );
    let next = call(
        "n1",
        "next",
        json!({"wait": 5}),
        json!({"events": [{"type": "utterance", "speaker": "Ana", "role": "human", "text": "Thanks Kit, good to have you here."}]}),
        "2026-10-10T10:00:03.000Z",
    );
    lines.push(
        json!({"id": "g1", "timestamp": "2026-10-10T10:00:00.500Z", "type": "gemini", "content": "",
        "toolCalls": [join.clone()], "model": "gemini-2.5-pro"}),
    );
    lines.push(json!({"$set": {"lastUpdated": "2026-10-10T10:00:01.000Z"}}));
    lines.push(
        json!({"id": "g1", "timestamp": "2026-10-10T10:00:00.500Z", "type": "gemini", "content": "",
        "toolCalls": [join, next], "model": "gemini-2.5-pro"}),
    );
    lines.push(json!({"$set": {"lastUpdated": "2026-10-10T10:00:03.000Z"}}));
    lines
}

fn write_lines(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// Gemini CLI hands its `BeforeTool` hook the path of its session
/// recording (`transcript_path`, packages/core/src/hooks/hookEventHandler.ts);
/// the guard reads the call so far from it, so the rules that need it run
/// there too: a German say in an English call is denied, an English one
/// passes without a word, read fresh and from the state kept since the
/// call before; and `check` reads the same file.
#[test]
fn gemini_judges_a_call_from_the_session_so_far() {
    let dir = scratch();
    let cache = dir.join("cache");
    let session = dir.join("session-2026-10-10T09-59-5f0e7c1a.jsonl");
    let mut lines = gemini_session(30);
    write_lines(&session, &lines);
    let hook = |text: &str, at: &str| {
        json!({"session_id": "5f0e7c1a-1", "transcript_path": session, "cwd": dir,
            "hook_event_name": "BeforeTool", "timestamp": at,
            "tool_name": "mcp_voicehook_say", "tool_input": {"text": text},
            "mcp_context": {"server_name": "voicehook", "tool_name": "say",
                "command": "npx", "args": ["-y", "voicehook-mcp"]}})
        .to_string()
    };
    let german = "Hallo zusammen, ich schaue mir das jetzt gleich einmal genauer an.";
    let english = "Thanks Ana, I am looking at the failing build now.";
    for cached in [false, true] {
        let args: Vec<&str> = if cached {
            vec!["--client", "gemini", "--cache-dir", cache.to_str().unwrap()]
        } else {
            vec!["--client", "gemini", "--no-cache"]
        };
        let o = guard_in(
            &dir,
            &args,
            hook(german, "2026-10-10T10:00:04.000Z").as_bytes(),
        );
        let v = answer(&o);
        assert_eq!(v["decision"], "deny", "{v}");
        let reason = plain(v["reason"].as_str().unwrap());
        assert!(reason.starts_with("callint wrong-language:"), "{reason}");
        let o = guard_in(
            &dir,
            &args,
            hook(english, "2026-10-10T10:00:04.000Z").as_bytes(),
        );
        assert_eq!(
            (o.status.code(), out(&o), err(&o)),
            (Some(0), String::new(), String::new()),
            "cached: {cached}"
        );
    }
    assert!(cache.read_dir().unwrap().count() > 0, "a state was kept");
    // The English say made, then the same German say again: judged from the
    // kept state with the lines written since, as read fresh.
    let say = json!({"id": "s1", "name": "mcp_voicehook_say", "args": {"text": english},
        "result": [{"functionResponse": {"id": "s1", "name": "mcp_voicehook_say", "response":
        {"output": "<untrusted_context>\n{\"say_id\":\"s1\",\"say_status\":\"queued\"}\n</untrusted_context>"}}}],
        "status": "success", "timestamp": "2026-10-10T10:00:05.000Z"});
    lines.push(
        json!({"id": "g2", "timestamp": "2026-10-10T10:00:04.500Z", "type": "gemini", "content": "",
        "toolCalls": [say]}),
    );
    write_lines(&session, &lines);
    for args in [
        vec!["--client", "gemini", "--cache-dir", cache.to_str().unwrap()],
        vec!["--client", "gemini", "--no-cache"],
    ] {
        let o = guard_in(
            &dir,
            &args,
            hook(german, "2026-10-10T10:00:06.000Z").as_bytes(),
        );
        assert_eq!(answer(&o)["decision"], "deny");
    }
    // check reads the file as a Gemini CLI session
    let o = run_env(
        &dir,
        &["check", "--format", "json", session.to_str().unwrap()],
        b"",
        &[],
    );
    let text = out(&o);
    assert!(
        !text.contains("invalid-record") && !text.contains("not a board"),
        "{text}"
    );
    let mut german_session = lines.clone();
    german_session.push(
        json!({"id": "g3", "timestamp": "2026-10-10T10:00:07.000Z", "type": "gemini", "content": "",
        "toolCalls": [{"id": "s2", "name": "mcp_voicehook_say", "args": {"text": german},
        "result": [{"functionResponse": {"id": "s2", "name": "mcp_voicehook_say", "response":
        {"output": "<untrusted_context>\n{\"say_id\":\"s2\"}\n</untrusted_context>"}}}],
        "status": "success", "timestamp": "2026-10-10T10:00:07.000Z"}]}),
    );
    write_lines(&session, &german_session);
    let o = run_env(
        &dir,
        &["check", "--format", "concise", session.to_str().unwrap()],
        b"",
        &[],
    );
    let text = out(&o);
    let line = german_session.len();
    assert!(
        text.contains(&format!(":{line}:")) && text.contains("wrong-language"),
        "{text}"
    );
}

fn cursor(tool: &str, input: Value) -> String {
    json!({
        "conversation_id": "conv-1",
        "generation_id": "gen-1",
        "hook_event_name": "beforeMCPExecution",
        "workspace_roots": ["/w"],
        "tool_name": tool,
        "tool_input": input,
        "command": "npx -y voicehook-mcp",
    })
    .to_string()
}

#[test]
fn cursor_reads_permission_deny() {
    let dir = scratch();
    let run = |input: &str| guard_in(&dir, &["--client", "cursor"], input.as_bytes());
    // the arguments as a JSON string, the tool by its own name: the
    // server is told by the command that starts it
    let o = run(&cursor("say", json!(json!({"text": LONG}).to_string())));
    let v = answer(&o);
    assert_eq!(v["permission"], "deny", "{v}");
    let r = plain(v["agent_message"].as_str().unwrap());
    assert!(r.starts_with("callint long-say:"), "{r}");
    assert_eq!(v["user_message"], v["agent_message"]);
    assert_eq!(v.as_object().unwrap().len(), 3);
    // a board, named MCP:server:tool
    let o = run(&cursor("MCP:voicehook:status", board()));
    assert!(answer(&o)["agent_message"]
        .as_str()
        .unwrap()
        .starts_with("callint board-bundle:"));
}

/// Cursor's hook contract (<https://cursor.com/docs/agent/hooks>): a
/// `beforeMCPExecution` hook answers `{"permission": "allow" | "deny" |
/// "ask"}`, and an `"allow"` approves the call in the user's stead. A hook
/// that prints nothing decides nothing, and Cursor goes on to the user's own
/// approval. So the guard answers only with a denial, and is silent on
/// every other call: its own server's calls that break no rule, another
/// server's, another event's, input it cannot read.
#[test]
fn cursor_never_grants_what_it_was_not_asked() {
    let dir = scratch();
    let run = |input: &str| guard_in(&dir, &["--client", "cursor"], input.as_bytes());
    let github = json!({
        "conversation_id": "conv-1",
        "generation_id": "gen-1",
        "hook_event_name": "beforeMCPExecution",
        "workspace_roots": ["/w"],
        "tool_name": "create_issue",
        "tool_input": {},
        "command": "npx -y @modelcontextprotocol/server-github",
    })
    .to_string();
    let shell = json!({
        "conversation_id": "conv-1",
        "hook_event_name": "beforeShellExecution",
        "command": "rm -rf build",
        "cwd": "/w",
    })
    .to_string();
    let inputs = [
        // the voicehook server's calls that break no rule
        cursor("MCP:voicehook:say", json!({"text": "Done."})),
        cursor("say", json!(json!({"text": "Done."}).to_string())),
        cursor(
            "MCP:voicehook:status",
            json!({"emoji": "🔧", "doing": "Release notes", "open": [], "done": []}),
        ),
        // another server's call, as the issue's report gave it
        github,
        // another server's say-shaped tool, named as Cursor names it
        cursor("MCP:github:say", json!({"text": LONG})).replace("voicehook-mcp", "gh-mcp"),
        // another event
        shell,
        // input the guard cannot read
        "{not json".to_string(),
        String::new(),
        "[]".to_string(),
        json!({"hook_event_name": "beforeMCPExecution"}).to_string(),
    ];
    for input in &inputs {
        let o = run(input);
        assert_eq!(o.status.code(), Some(0), "{input}: {}", err(&o));
        assert_eq!(out(&o), "", "no answer, so no grant, for {input}");
    }
    // the same holds without a configuration and in a dry run
    for flags in [&["--no-config"][..], &["--dry-run"][..]] {
        let mut args = vec!["--client", "cursor"];
        args.extend_from_slice(flags);
        for input in &inputs {
            let o = guard_in(&dir, &args, input.as_bytes());
            assert_eq!(out(&o), "", "{flags:?} {input}");
        }
        let o = guard_in(&dir, &args, cursor("say", json!({"text": LONG})).as_bytes());
        let text = out(&o);
        assert!(!text.contains("allow") && !text.contains("ask"), "{text}");
    }
}

#[test]
fn opencode_plugin_input_is_judged_and_denied_for_the_plugin_to_throw() {
    let dir = scratch();
    let run = |tool: &str, args: Value| {
        let input = json!({
            "hook_event_name": "tool.execute.before",
            "tool": tool,
            "session_id": "ses_1",
            "call_id": "call_1",
            "tool_input": args,
            "cwd": dir,
        });
        guard_in(
            &dir,
            &["--client", "opencode"],
            input.to_string().as_bytes(),
        )
    };
    let o = run("voicehook_say", json!({"text": LONG}));
    let v = answer(&o);
    assert_eq!(v["decision"], "deny");
    assert!(plain(v["reason"].as_str().unwrap()).starts_with("callint long-say:"));
    let o = run("voicehook_say", json!({"text": "Done."}));
    assert_eq!(out(&o), "");
    let o = run("bash", json!({"command": "ls"}));
    assert_eq!(out(&o), "");
    // the plugin hands callint exactly the tools that end in a voicehook
    // function
    let plugin =
        std::fs::read_to_string(root().join("integrations/opencode/callint-guard.js")).unwrap();
    let list = plugin
        .lines()
        .find(|l| l.starts_with("const FUNCTIONS"))
        .unwrap();
    let names: Vec<&str> = list.split('"').skip(1).step_by(2).collect();
    assert_eq!(names, callint::input::server::FUNCTIONS);
    assert!(plugin.contains("\"tool.execute.before\"") && plugin.contains("throw new Error"));
}

#[test]
fn claude_code_is_the_default_client() {
    let dir = scratch();
    let input = json!({
        "hook_event_name": "PreToolUse",
        "tool_name": "mcp__voicehook__say",
        "tool_input": {"text": LONG},
    })
    .to_string();
    // Claude Code always names its transcript; without one, nothing is
    // judged, with or without --client
    for args in [&[][..], &["--client", "claude-code"][..]] {
        let o = guard_in(&dir, args, input.as_bytes());
        assert_eq!(out(&o), "");
        assert!(err(&o).contains("names no transcript"), "{}", err(&o));
    }
    let o = guard_in(&dir, &["--client", "nobody"], input.as_bytes());
    assert_eq!(o.status.code(), Some(1), "a wrong flag is no block");
}

// ---- guard install ----

fn install(dir: &Path, args: &[&str]) -> Output {
    let mut a = vec!["guard", "install"];
    a.extend_from_slice(args);
    run_env(dir, &a, b"", &[])
}

#[test]
fn install_merges_once_backs_up_and_uninstalls_exactly() {
    let clients = [
        (
            "claude-code",
            ".claude/settings.json",
            "PreToolUse",
            "callint guard",
        ),
        (
            "codex",
            ".codex/hooks.json",
            "PreToolUse",
            "callint guard --client codex",
        ),
        (
            "gemini",
            ".gemini/settings.json",
            "BeforeTool",
            "callint guard --client gemini",
        ),
        (
            "cursor",
            ".cursor/hooks.json",
            "beforeMCPExecution",
            "callint guard --client cursor",
        ),
    ];
    for (client, rel, event, cmd) in clients {
        let dir = scratch();
        let file = dir.join(rel);
        // no file: written, no backup
        let o = install(&dir, &["--client", client]);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        assert!(out(&o).contains(&file.display().to_string()), "{}", out(&o));
        let v: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let text = v["hooks"][event].to_string();
        assert!(text.contains(cmd), "{client}: {v}");
        if client == "cursor" {
            assert_eq!(v["version"], 1);
            // a silent guard must not count as a failed one, which
            // `failClosed` would turn into a refusal of every MCP call
            assert!(!text.contains("failClosed"), "{v}");
        } else {
            assert!(
                text.contains("mcp_"),
                "{client}: a matcher for MCP tools: {v}"
            );
        }
        assert!(!dir.join(format!("{rel}.bak")).exists());
        // an empty file: the same
        std::fs::write(&file, "").unwrap();
        assert_eq!(install(&dir, &["--client", client]).status.code(), Some(0));
        assert_eq!(
            serde_json::from_slice::<Value>(&std::fs::read(&file).unwrap()).unwrap(),
            v
        );
        // a file with other settings and hooks: merged, backed up
        let other = format!(
            "{{\n  \"model\": \"x\",\n  \"hooks\": {{\n    \"{event}\": [\n      {{ \"matcher\": \"Bash\", \"hooks\": [ {{ \"type\": \"command\", \"command\": \"audit\" }} ] }}\n    ],\n    \"Stop\": []\n  }}\n}}\n"
        );
        std::fs::write(&file, &other).unwrap();
        let o = install(&dir, &["--client", client]);
        assert!(out(&o).contains(".bak"), "{}", out(&o));
        assert_eq!(
            std::fs::read_to_string(dir.join(format!("{rel}.bak"))).unwrap(),
            other
        );
        let merged = std::fs::read_to_string(&file).unwrap();
        let m: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(m["model"], "x");
        assert!(m["hooks"][event].to_string().contains("audit"), "{merged}");
        assert!(m["hooks"][event].to_string().contains(cmd), "{merged}");
        assert!(merged.find("\"model\"").unwrap() < merged.find("\"hooks\"").unwrap());
        // twice: nothing changes
        let o = install(&dir, &["--client", client]);
        assert!(out(&o).contains("nothing changed"), "{}", out(&o));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), merged);
        // --print shows and writes nothing
        let o = install(&dir, &["--client", client, "--uninstall", "--print"]);
        assert!(!out(&o).contains(cmd), "{}", out(&o));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), merged);
        // --uninstall: exactly what was added goes
        let o = install(&dir, &["--client", client, "--uninstall"]);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        let back: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let was: Value = serde_json::from_str(&other).unwrap();
        assert_eq!(back, was, "{client}");
        let o = install(&dir, &["--client", client, "--uninstall"]);
        assert!(out(&o).contains("nothing changed"), "{}", out(&o));
        // broken JSON: an error naming the file and line, the file as it was
        let broken = "{\n  \"hooks\": {\n    \"x\": [1,,]\n  }\n}\n";
        std::fs::write(&file, broken).unwrap();
        let o = install(&dir, &["--client", client]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            err(&o).contains(&format!("{}:3:", file.display())),
            "{}",
            err(&o)
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
        assert_eq!(out(&o), "");
    }
}

/// Gemini CLI reads its `settings.json` with comments (the settings
/// loader of packages/cli/src/config/settings.ts strips them before it
/// parses): `install` reads such a file, keeps every comment, and
/// `doctor` finds the hook in it; `--uninstall` gives the file back.
#[test]
fn gemini_settings_with_comments_keep_them() {
    let dir = scratch();
    let file = dir.join(".gemini/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let text = "{\n  // which look\n  \"theme\": \"GitHub\",\n  /* the hooks we run */\n  \"hooks\": {\n    \"BeforeTool\": [\n      { \"matcher\": \"run_shell_command\", \"hooks\": [{ \"type\": \"command\", \"command\": \"lint-sh\" }] } // ours\n    ]\n  }\n}\n";
    std::fs::write(&file, text).unwrap();
    let o = install(&dir, &["--client", "gemini"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let after = std::fs::read_to_string(&file).unwrap();
    for c in ["// which look", "/* the hooks we run */", "// ours"] {
        assert!(after.contains(c), "{c}: {after}");
    }
    assert!(after.contains("guard --client gemini"), "{after}");
    let o = run_env(
        &dir,
        &["guard", "doctor", "--dir", dir.to_str().unwrap()],
        b"",
        &[],
    );
    let report = out(&o);
    let gemini = report.split("cursor:").next().unwrap();
    assert!(
        !gemini.contains("not JSON") && gemini.contains("gemini:"),
        "{report}"
    );
    assert!(!gemini.contains("no callint guard hook"), "{report}");
    let o = install(&dir, &["--client", "gemini", "--uninstall"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn install_writes_the_user_files_under_home_and_the_opencode_plugin() {
    let dir = scratch();
    let home = dir.join("home");
    // --user: under HOME (the test's), CODEX_HOME when set
    let o = install(&dir, &["--client", "gemini", "--user"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(home.join(".gemini/settings.json").is_file());
    let codex = dir.join("elsewhere");
    let o = run_env(
        &dir,
        &["guard", "install", "--client", "codex", "--user"],
        b"",
        &[("CODEX_HOME", &codex)],
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(codex.join("hooks.json").is_file());
    // --dir names the project
    let project = dir.join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let p = project.display().to_string();
    install(&dir, &["--client", "cursor", "--dir", &p]);
    assert!(project.join(".cursor/hooks.json").is_file());
    // opencode: the plugin copied, once, and removed again
    let plugin = project.join(".opencode/plugins/callint-guard.js");
    let o = install(&dir, &["--client", "opencode", "--dir", &p]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let shipped =
        std::fs::read_to_string(root().join("integrations/opencode/callint-guard.js")).unwrap();
    // the shipped plugin, running this callint by its whole path
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_callint")).unwrap();
    let line = format!(
        "  const callint = process.env.CALLINT || {}",
        json!(exe.to_str().unwrap())
    );
    let want: Vec<String> = shipped
        .lines()
        .map(|l| {
            if l.starts_with("  const callint =") {
                line.clone()
            } else {
                l.to_string()
            }
        })
        .collect();
    let got = std::fs::read_to_string(&plugin).unwrap();
    assert_eq!(got.lines().collect::<Vec<_>>(), want);
    assert_ne!(got, shipped);
    assert!(out(&install(&dir, &["--client", "opencode", "--dir", &p])).contains("nothing changed"));
    install(&dir, &["--client", "opencode", "--dir", &p, "--uninstall"]);
    assert!(!plugin.exists());
    install(&dir, &["--client", "opencode", "--user"]);
    assert!(home
        .join(".config/opencode/plugins/callint-guard.js")
        .is_file());
    // --print writes nothing
    let o = install(&dir, &["--client", "claude-code", "--print"]);
    assert!(out(&o).contains("callint guard"), "{}", out(&o));
    assert!(!dir.join(".claude").exists());
    // a wrong flag is a usage error
    assert_eq!(install(&dir, &["--client", "vim"]).status.code(), Some(2));
}

/// The hook command `install` wrote for `client` into `file` (the one
/// guard entry there: more is a duplicate).
fn installed_command(file: &Path, event: &str) -> String {
    let v: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let mut found = Vec::new();
    for item in v["hooks"][event].as_array().unwrap() {
        let hooks = item["hooks"]
            .as_array()
            .cloned()
            .unwrap_or(vec![item.clone()]);
        for h in hooks {
            let c = h["command"].as_str().unwrap_or("").to_string();
            if c.contains("guard") {
                found.push(c);
            }
        }
    }
    assert_eq!(found.len(), 1, "one guard entry: {v}");
    found.remove(0)
}

/// `install` writes the whole path of the callint that runs it (or
/// `--command`), quoted for the shell the client runs it with, so that a
/// client without the shell's PATH still runs it; an earlier install's
/// bare `callint guard` is its own, made to run that path, never doubled.
#[test]
fn install_writes_the_whole_path_and_takes_a_bare_entry_for_its_own() {
    let dir = scratch();
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_callint")).unwrap();
    let exe = exe.to_str().unwrap();
    let file = dir.join(".claude/settings.json");
    let o = install(&dir, &["--client", "claude-code"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(
        installed_command(&file, "PreToolUse"),
        format!("{exe} guard")
    );
    // an earlier install's bare command, beside another hook: changed in
    // place, not doubled
    let codex = dir.join(".codex/hooks.json");
    std::fs::create_dir_all(codex.parent().unwrap()).unwrap();
    std::fs::write(
        &codex,
        r#"{"hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]},
            {"matcher": "mcp__.*", "hooks": [{"type": "command", "command": "callint guard --client codex"}]}]}}"#,
    )
    .unwrap();
    let o = install(&dir, &["--client", "codex"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(
        installed_command(&codex, "PreToolUse"),
        format!("{exe} guard --client codex")
    );
    let text = std::fs::read_to_string(&codex).unwrap();
    // one group before calls, one after them (the feedback hook)
    assert_eq!(text.matches("mcp__.*").count(), 2, "{text}");
    assert_eq!(text.matches("guard --client codex").count(), 1, "{text}");
    assert!(text.contains("audit"), "{text}");
    // Codex runs it only once trusted: install says how
    assert!(out(&o).contains("/hooks"), "{}", out(&o));
    // again: nothing changes
    assert!(out(&install(&dir, &["--client", "codex"])).contains("nothing changed"));
    // uninstall takes out the bare form too
    std::fs::write(
        &codex,
        r#"{"hooks": {"PreToolUse": [{"matcher": "mcp__.*", "hooks": [{"type": "command", "command": "callint guard --client codex"}]}]}, "x": 1}"#,
    )
    .unwrap();
    install(&dir, &["--client", "codex", "--uninstall"]);
    let left: Value = serde_json::from_slice(&std::fs::read(&codex).unwrap()).unwrap();
    assert_eq!(left, json!({"x": 1}));

    // --command with a space: quoted for the shell, and the client's shell
    // runs it
    let spaced = dir.join("my tools");
    std::fs::create_dir_all(&spaced).unwrap();
    let copy = spaced.join("callint");
    std::fs::copy(env!("CARGO_BIN_EXE_callint"), &copy).unwrap();
    let c = copy.to_str().unwrap();
    let o = install(&dir, &["--client", "gemini", "--command", c]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let cmd = installed_command(&dir.join(".gemini/settings.json"), "BeforeTool");
    assert_eq!(cmd, format!("'{c}' guard --client gemini"));
    let input = json!({"hook_event_name": "BeforeTool", "tool_name": "mcp_voicehook_say",
        "tool_input": {"text": LONG}, "cwd": dir.to_path_buf(),
        "mcp_context": {"server_name": "voicehook", "tool_name": "say"}});
    let mut sh = Command::new("sh")
        .arg("-c")
        .arg(&cmd)
        .current_dir(&dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    sh.stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let o = sh.wait_with_output().unwrap();
    assert_eq!(answer(&o)["decision"], "deny", "{}", err(&o));

    // a file that held only the guard's hook goes with it: no `{}` left
    for (client, rel) in [
        ("claude-code", ".claude/settings.json"),
        ("cursor", ".cursor/hooks.json"),
        ("gemini", ".gemini/settings.json"),
    ] {
        let o = install(&dir, &["--client", client, "--uninstall"]);
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        assert!(!dir.join(rel).exists(), "{client}: {}", out(&o));
    }
}

/// opencode's plugin is replaced (or removed) only when it is one callint
/// installed: a copy edited since is left alone unless `--force`.
#[test]
fn an_edited_opencode_plugin_is_kept_without_force() {
    let dir = scratch();
    let p = dir.to_str().unwrap().to_string();
    let plugin = dir.join(".opencode/plugins/callint-guard.js");
    let o = install(&dir, &["--client", "opencode", "--dir", &p]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    // one written by an install of another callint (another path) is ours
    let other = std::fs::read_to_string(&plugin)
        .unwrap()
        .lines()
        .map(|l| {
            if l.starts_with("  const callint =") {
                "  const callint = process.env.CALLINT || \"/usr/local/bin/callint\"".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    std::fs::write(&plugin, &other).unwrap();
    let o = install(&dir, &["--client", "opencode", "--dir", &p]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_ne!(std::fs::read_to_string(&plugin).unwrap(), other);
    // edited by the user: left as it is, install and uninstall
    let edited = other.replace("throw new Error", "console.log");
    std::fs::write(&plugin, &edited).unwrap();
    for extra in [&[][..], &["--uninstall"][..]] {
        let mut args = vec!["--client", "opencode", "--dir", &p];
        args.extend_from_slice(extra);
        let o = install(&dir, &args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert!(err(&o).contains("--force"), "{}", err(&o));
        assert_eq!(std::fs::read_to_string(&plugin).unwrap(), edited);
    }
    // --force replaces it, and then removes it
    let o = install(&dir, &["--client", "opencode", "--dir", &p, "--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(std::fs::read_to_string(&plugin)
        .unwrap()
        .contains("throw new Error"));
    std::fs::write(&plugin, &edited).unwrap();
    let o = install(
        &dir,
        &[
            "--client",
            "opencode",
            "--dir",
            &p,
            "--uninstall",
            "--force",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(!plugin.exists());
}

/// `guard doctor` on a scratch HOME: a broken install (a command path that
/// does not exist, a stand-in that answers nothing) fails it with exit 1;
/// good ones pass, with Codex's trust step and a warning on Cursor's
/// `failClosed`.
#[test]
fn doctor_finds_a_broken_install_and_passes_good_ones() {
    let dir = scratch();
    let p = dir.to_str().unwrap().to_string();
    let doctor = || run_env(&dir, &["guard", "doctor", "--dir", &p], b"", &[]);
    // nothing installed: nothing broken
    let o = doctor();
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(out(&o).contains("no file"), "{}", out(&o));
    // a command path that does not exist
    let o = install(
        &dir,
        &[
            "--client",
            "claude-code",
            "--user",
            "--command",
            "/nonexistent/bin/callint",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let o = doctor();
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let text = out(&o);
    assert!(
        text.contains(".claude/settings.json") && text.contains("BROKEN"),
        "{text}"
    );
    assert!(text.contains("not found"), "{text}");
    // `status` is the same
    let o = run_env(&dir, &["guard", "status", "--dir", &p], b"", &[]);
    assert_eq!(o.status.code(), Some(1));
    // installed again by this callint: the entry is fixed
    install(&dir, &["--client", "claude-code", "--user"]);
    // good installs in the project, one with failClosed
    for client in ["codex", "gemini", "cursor", "opencode"] {
        let o = install(&dir, &["--client", client, "--dir", &p]);
        assert_eq!(o.status.code(), Some(0), "{client}: {}", err(&o));
    }
    let cursor = dir.join(".cursor/hooks.json");
    let text = std::fs::read_to_string(&cursor)
        .unwrap()
        .replace("\"command\":", "\"failClosed\": true, \"command\":");
    std::fs::write(&cursor, text).unwrap();
    let o = doctor();
    let text = out(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    // five guards, and the feedback hooks of Claude Code, Codex and Gemini CLI
    assert_eq!(text.matches("    ok: ").count(), 8, "{text}");
    assert!(text.contains("/hooks"), "Codex's trust step: {text}");
    assert!(text.contains("failClosed"), "{text}");
    assert!(!text.contains("BROKEN"), "{text}");
    // a stand-in that runs but answers nothing: it would pass every call
    let fake = dir.join("fake/callint");
    std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
    std::fs::write(&fake, "#!/bin/sh\ncat >/dev/null\nexit 0\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let f = fake.to_str().unwrap();
    install(&dir, &["--client", "gemini", "--dir", &p, "--command", f]);
    let o = doctor();
    let text = out(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("not denied"), "{text}");
    // not executable
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o644)).unwrap();
        let o = doctor();
        assert_eq!(o.status.code(), Some(1));
        assert!(out(&o).contains("not executable"), "{}", out(&o));
    }
}

/// The shipped opencode plugin, run by Node.js with stand-ins for what
/// opencode hands a plugin (Bun's `$`, which here starts the binary, and
/// the client, whose `session.messages` lists `messages`): the tool call
/// `call` is judged, and the plugin's answer is "allowed" or "denied: "
/// and the error it threw. None when Node.js is not installed.
fn run_plugin(dir: &Path, messages: Option<Value>, call: Value) -> Option<String> {
    let node = std::env::var_os("NODE").unwrap_or_else(|| "node".into());
    if Command::new(&node).arg("--version").output().is_err() {
        return None;
    }
    let plugin = root().join("integrations/opencode/callint-guard.js");
    // An ES module whatever the folder's package.json says.
    std::fs::copy(plugin, dir.join("plugin.mjs")).unwrap();
    let driver = r#"
import { spawnSync } from "node:child_process"
import { CallintGuard } from "./plugin.mjs"
const call = JSON.parse(process.env.CALL)
const messages = process.env.MESSAGES ? JSON.parse(process.env.MESSAGES) : undefined
// Bun's shell, as the plugin uses it: `${callint} guard --client opencode < ${response}`
const $ = (strings, ...values) => {
  const run = {
    quiet: () => run,
    nothrow: () => run,
    then: (resolve, reject) =>
      values[1].text().then((input) => {
        const args = strings[1].trim().split(/\s+/).filter((a) => a !== "<")
        const r = spawnSync(values[0], args, { input })
        resolve({ stdout: r.stdout })
      }, reject),
  }
  return run
}
const client = messages === undefined ? undefined
  : { session: { messages: async ({ path }) => (path.id === call.sessionID ? { data: messages } : { data: [] }) } }
const hooks = await CallintGuard({ $, client, directory: process.cwd() })
try {
  await hooks["tool.execute.before"]({ tool: call.tool, sessionID: call.sessionID, callID: call.callID }, { args: call.args })
  console.log("allowed")
} catch (e) {
  console.log("denied: " + e.message)
}
"#;
    std::fs::write(dir.join("driver.mjs"), driver).unwrap();
    let mut cmd = Command::new(&node);
    cmd.arg("driver.mjs")
        .current_dir(dir)
        .env("CALLINT", env!("CARGO_BIN_EXE_callint"))
        .env("CALL", call.to_string())
        .env("XDG_CACHE_HOME", dir.join("cache"));
    match messages {
        Some(m) => cmd.env("MESSAGES", m.to_string()),
        None => cmd.env_remove("MESSAGES"),
    };
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    Some(String::from_utf8_lossy(&o.stdout).trim().to_string())
}

#[test]
fn the_opencode_plugin_hands_over_the_session_and_throws_a_denial() {
    let dir = scratch();
    let t = |s: u32| 1_791_626_400_000_i64 + i64::from(s) * 1000;
    let tool = |id: &str, s: u32, name: &str, input: Value, output: Value| {
        json!({"info": {"id": format!("msg_{id}"), "role": "assistant", "time": {"created": t(s)}},
            "parts": [{"id": format!("prt_{id}"), "type": "tool", "tool": name, "callID": id,
            "state": {"status": "completed", "input": input, "output": output.to_string(),
            "time": {"start": t(s), "end": t(s)}}}]})
    };
    // opencode joined; then the human asked Promo, not opencode.
    let messages = json!([
        tool(
            "c1",
            1,
            "voicehook_join",
            json!({"call_id": "c-1", "label": "opencode", "greet": false}),
            json!({"status": "joined", "role": "participant", "context": {"lang": "en"}})
        ),
        tool(
            "c2",
            5,
            "voicehook_next",
            json!({}),
            json!({"type": "user", "speaker": "Mara", "text": "Promo, can you check the release notes?"})
        ),
    ]);
    let call = json!({"tool": "voicehook_say", "sessionID": "ses_1", "callID": "c3",
        "args": {"text": "On it."}});
    let Some(with) = run_plugin(&dir, Some(messages), call.clone()) else {
        eprintln!("Node.js is not installed: the plugin was not run");
        return;
    };
    assert!(
        with.starts_with("denied: callint ack-not-addressed"),
        "{with}"
    );
    // Without the session the same call cannot be told unaddressed.
    let alone = run_plugin(&dir, None, call).unwrap();
    assert_eq!(alone, "allowed");
    // Other tools never reach callint.
    let bash =
        json!({"tool": "bash", "sessionID": "ses_1", "callID": "c4", "args": {"command": "ls"}});
    assert_eq!(run_plugin(&dir, Some(json!([])), bash).unwrap(), "allowed");
}
