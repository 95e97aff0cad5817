//! `callint guard` as Claude Code runs it: a PreToolUse hook input on
//! standard input, a denial (or nothing) on standard output, exit 0.
//!
//! The seed incident's sessions are replayed call by call: the transcript
//! is cut just before the line of each voicehook call, and that call is
//! handed to the guard as the pending one, at the time the client wrote it.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};

use crate::common::{guard_in, root, scratch};

const CASE: &str = "corpus/seed-incident-claude";

/// Run `callint guard ARGS` with `input` on standard input.
fn guard(args: &[&str], input: &[u8]) -> Output {
    guard_in(&root(), args, input)
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The reason of a denial, checked for Claude Code's shape; None when the
/// call was let through silently.
fn denial(o: &Output) -> Option<String> {
    assert_eq!(o.status.code(), Some(0), "the guard always exits 0");
    if o.stdout.is_empty() {
        return None;
    }
    let v: Value = serde_json::from_slice(&o.stdout).expect("a denial is one JSON object");
    let h = &v["hookSpecificOutput"];
    assert_eq!(h["hookEventName"], "PreToolUse");
    assert_eq!(h["permissionDecision"], "deny");
    let reason = h["permissionDecisionReason"].as_str().unwrap().to_string();
    assert!(
        !reason.chars().any(char::is_control),
        "plain text on one line: {reason:?}"
    );
    Some(reason)
}

/// One voicehook call of a session: where it is, and the hook input that
/// announces it with the transcript cut just before it.
struct Pending {
    file: String,
    line: usize,
    at: String,
    hook: Value,
}

/// Every voicehook `tool_use` of the case's sessions, each with its own
/// cut transcript written under `dir`.
fn pending_calls(dir: &Path) -> Vec<Pending> {
    let mut out = Vec::new();
    for file in ["claude.jsonl", "opencode.jsonl", "promo.jsonl"] {
        let src = std::fs::read_to_string(root().join(CASE).join(file)).unwrap();
        let lines: Vec<&str> = src.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let e: Value = serde_json::from_str(l).unwrap();
            if e["type"] != "assistant" {
                continue;
            }
            let Some(blocks) = e["message"]["content"].as_array() else {
                continue;
            };
            for b in blocks {
                let name = b["name"].as_str().unwrap_or("");
                if b["type"] != "tool_use" || !name.starts_with("mcp__") {
                    continue;
                }
                let transcript = dir.join(format!("{file}-{}", i + 1));
                let mut before = lines[..i].join("\n");
                before.push('\n');
                std::fs::write(&transcript, before).unwrap();
                let mut hook = json!({
                    "session_id": "s",
                    "transcript_path": transcript,
                    "cwd": dir,
                    "hook_event_name": "PreToolUse",
                    "tool_name": name,
                    "tool_input": b["input"],
                });
                if e["isSidechain"] == true {
                    hook["agent_id"] = e["agentId"].clone();
                }
                out.push(Pending {
                    file: file.to_string(),
                    line: i + 1,
                    at: e["timestamp"].as_str().unwrap().to_string(),
                    hook,
                });
            }
        }
    }
    out
}

#[test]
fn each_line_of_the_incident_is_judged_before_it_is_sent() {
    let dir = scratch();
    // The two rules of severity info deny here too, so that every bad
    // line the guard can see is shown denied.
    std::fs::write(dir.join("callint.toml"), crate::common::INFO_DENIES).unwrap();
    let calls = pending_calls(&dir);
    let expected = crate::common::expected_findings(CASE);
    let mut denied_lines = BTreeSet::new();
    for p in &calls {
        let o = guard(&["--now", &p.at], p.hook.to_string().as_bytes());
        let want = expected.get(&(p.file.clone(), p.line));
        let got = denial(&o);
        match (want, got) {
            (None, None) => assert!(err(&o).is_empty(), "{}:{}: {}", p.file, p.line, err(&o)),
            (None, Some(r)) => panic!("{}:{} is a good line, denied: {r}", p.file, p.line),
            (Some(w), None) => panic!("{}:{} breaks {w:?}, allowed ({})", p.file, p.line, err(&o)),
            (Some(w), Some(r)) => {
                // the reason names the rule first, then the others
                let first = r
                    .strip_prefix("callint ")
                    .and_then(|s| s.split(':').next())
                    .unwrap();
                assert!(w.contains(first), "{}:{}: {r}", p.file, p.line);
                for rule in w {
                    assert!(
                        r.contains(rule.as_str()),
                        "{}:{} {rule}: {r}",
                        p.file,
                        p.line
                    );
                }
                // what is wrong, and what to do: two sentences at least,
                // short enough to act on
                assert!(r.matches(". ").count() >= 1 && r.len() < 600, "{r}");
                denied_lines.insert((p.file.clone(), p.line));
            }
        }
    }
    // Every bad line of the incident is a voicehook call the guard sees,
    // but for the one tool run a participant made (not voicehook's).
    let unseen: Vec<_> = expected
        .keys()
        .filter(|k| !denied_lines.contains(*k))
        .collect();
    assert_eq!(
        unseen,
        [&("opencode.jsonl".to_string(), 96)],
        "{denied_lines:?}"
    );
    assert!(calls.len() > 100, "{}", calls.len());
}

/// The hook input of one call of the incident, by file and line.
fn call_at(dir: &Path, file: &str, line: usize) -> (Value, String) {
    let p = pending_calls(dir)
        .into_iter()
        .find(|p| p.file == file && p.line == line)
        .unwrap();
    (p.hook, p.at)
}

#[test]
fn severity_decides_and_a_dry_run_denies_nothing() {
    let dir = scratch();
    // no callint.toml: defaults
    let (decide, at) = call_at(&dir, "promo.jsonl", 13);
    let o = guard(&["--now", &at], decide.to_string().as_bytes());
    assert_eq!(denial(&o), None, "an info finding never denies");

    let (long, at) = call_at(&dir, "claude.jsonl", 60);
    let input = long.to_string();
    assert!(denial(&guard(&["--now", &at], input.as_bytes()))
        .unwrap()
        .starts_with("callint long-say:"));
    let o = guard(&["--now", &at, "--deny", "error"], input.as_bytes());
    assert_eq!(
        denial(&o),
        None,
        "a warning does not deny with --deny error"
    );

    let (label, at) = call_at(&dir, "opencode.jsonl", 4);
    let o = guard(
        &["--now", &at, "--deny", "error"],
        label.to_string().as_bytes(),
    );
    assert!(denial(&o).unwrap().starts_with("callint label-too-long:"));

    let o = guard(&["--now", &at, "--dry-run"], label.to_string().as_bytes());
    assert_eq!(denial(&o), None);
    assert!(
        err(&o).contains("would deny") && err(&o).contains("label-too-long"),
        "{}",
        err(&o)
    );
}

#[test]
fn a_create_call_from_a_subagent_is_denied() {
    let dir = scratch();
    let (mut hook, at) = call_at(&dir, "promo.jsonl", 3);
    assert_eq!(
        denial(&guard(&["--now", &at], hook.to_string().as_bytes())),
        None
    );
    hook["agent_id"] = json!("a1");
    let r = denial(&guard(&["--now", &at], hook.to_string().as_bytes())).unwrap();
    assert!(r.starts_with("callint create-call-delegated:"), "{r}");
}

#[test]
fn a_call_the_client_already_wrote_is_judged_once() {
    // The client may write the tool_use to the transcript before the hook
    // runs: the hook's tool_use_id tells it apart from the call so far.
    // Judged twice, the first copy would take the finding (a rule reports
    // one mistake once) and the pending call would pass.
    let dir = scratch();
    for (file, line, rule) in [
        ("claude.jsonl", 6, "board-bundle"),
        ("opencode.jsonl", 44, "answered-human-question"),
    ] {
        let src = std::fs::read_to_string(root().join(CASE).join(file)).unwrap();
        let lines: Vec<&str> = src.lines().collect();
        let e: Value = serde_json::from_str(lines[line - 1]).unwrap();
        let block = &e["message"]["content"][0];
        let transcript = dir.join(file);
        std::fs::write(&transcript, lines[..line].join("\n") + "\n").unwrap();
        let hook = json!({
            "transcript_path": transcript,
            "cwd": dir,
            "hook_event_name": "PreToolUse",
            "tool_name": block["name"],
            "tool_input": block["input"],
            "tool_use_id": block["id"],
        });
        let at = e["timestamp"].as_str().unwrap();
        let r = denial(&guard(&["--now", at], hook.to_string().as_bytes()));
        let r = r.unwrap_or_else(|| panic!("{file}:{line} allowed"));
        assert!(r.starts_with(&format!("callint {rule}:")), "{r}");
    }
}

#[test]
fn what_it_cannot_judge_it_lets_through_and_says_why() {
    let dir = scratch();
    let (good, at) = call_at(&dir, "opencode.jsonl", 8);
    let transcript = good["transcript_path"].as_str().unwrap().to_string();
    let mut inputs: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("not JSON", b"{\"tool_name\": ".to_vec()),
        ("an array", b"[1,2]".to_vec()),
        (
            "invalid UTF-8",
            b"{\"tool_name\":\"mcp__vh__say\xff\"}".to_vec(),
        ),
        ("no tool name", br#"{"tool_input":{"text":"hi"}}"#.to_vec()),
        (
            "tool input no object",
            br#"{"tool_name":"mcp__vh__say","tool_input":"hi"}"#.to_vec(),
        ),
        (
            "another event",
            br#"{"hook_event_name":"PostToolUse","tool_name":"mcp__vh__say"}"#.to_vec(),
        ),
        ("deep nesting", {
            let mut v = b"{\"tool_name\":\"mcp__vh__say\",\"tool_input\":{\"x\":".to_vec();
            v.extend(std::iter::repeat_n(b'[', 100_000));
            v
        }),
    ];
    // (a missing transcript is judged as no history: guard_clients.rs)
    let mut none = good.clone();
    none.as_object_mut().unwrap().remove("transcript_path");
    inputs.push(("no transcript", none.to_string().into_bytes()));
    let mut bash = good.clone();
    bash["tool_name"] = json!("Bash");
    bash["tool_input"] = json!({"command": "ls"});
    inputs.push(("not voicehook", bash.to_string().into_bytes()));
    let mut other = good.clone();
    other["tool_name"] = json!("mcp__github__create_issue");
    inputs.push(("another server's tool", other.to_string().into_bytes()));
    // the German say is denied when the transcript is whole ...
    assert!(denial(&guard(&["--now", &at], good.to_string().as_bytes())).is_some());
    // ... and let through when its last line is cut off mid-entry
    let cut = dir.join("cut.jsonl");
    let mut bytes = std::fs::read(&transcript).unwrap();
    let full = std::fs::read_to_string(root().join(CASE).join("opencode.jsonl")).unwrap();
    let next_line = full.lines().nth(7).unwrap();
    bytes.extend_from_slice(&next_line.as_bytes()[..next_line.len() / 2]);
    std::fs::write(&cut, bytes).unwrap();
    let mut cut_hook = good.clone();
    cut_hook["transcript_path"] = json!(cut);
    inputs.push(("transcript cut mid-line", cut_hook.to_string().into_bytes()));
    for (what, input) in inputs {
        let o = guard(&["--now", &at], &input);
        assert_eq!(denial(&o), None, "{what}");
        let e = err(&o);
        if what == "not voicehook" || what == "another server's tool" {
            // nothing to say of another server's tool
            assert_eq!(e, "", "{what}");
        } else {
            assert!(e.contains("allowed"), "{what}: {e}");
        }
        assert!(!e.contains("panicked"), "{what}: {e}");
    }
    // a wrong flag is no block either: exit 1 is a failure Claude Code
    // reports without stopping the call (exit 2 would stop it)
    let o = guard(&["--no-such-flag"], good.to_string().as_bytes());
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
}
