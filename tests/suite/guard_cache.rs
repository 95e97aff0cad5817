//! What `callint guard` keeps of a session between runs: the next run
//! reads only what the transcript grew by, and decides exactly as a fresh
//! read of the whole transcript would; a transcript rewritten or cut
//! shorter, or a broken cache file, is read afresh. The same for a Codex
//! rollout file.

use std::io::Write;
use std::path::Path;
use std::process::Output;

use serde_json::{json, Value};

use crate::common::{guard_in, root, scratch};

const CASE: &str = "corpus/seed-incident-claude";

/// What the guard answered: its exit code, standard output and error.
fn answer(o: &Output) -> (Option<i32>, String, String) {
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The guard's answer with the cache in `cache`, checked to be the answer
/// of a fresh read.
fn judged(dir: &Path, cache: &Path, at: &str, hook: &Value) -> (Option<i32>, String, String) {
    judged_with(dir, cache, at, hook, &[])
}

/// [`judged`], with more flags for the run that keeps the state.
fn judged_with(
    dir: &Path,
    cache: &Path,
    at: &str,
    hook: &Value,
    flags: &[&str],
) -> (Option<i32>, String, String) {
    judged_by(dir, cache, at, hook, &[], flags)
}

/// [`judged_with`], with `both` given to both runs (the client).
fn judged_by(
    dir: &Path,
    cache: &Path,
    at: &str,
    hook: &Value,
    both: &[&str],
    flags: &[&str],
) -> (Option<i32>, String, String) {
    let input = hook.to_string();
    let cache = cache.to_str().unwrap();
    let mut args = vec!["--now", at, "--cache-dir", cache];
    args.extend_from_slice(both);
    args.extend_from_slice(flags);
    let kept = answer(&guard_in(dir, &args, input.as_bytes()));
    let mut args = vec!["--now", at, "--no-cache"];
    args.extend_from_slice(both);
    let fresh = answer(&guard_in(dir, &args, input.as_bytes()));
    assert_eq!(kept, fresh, "{hook}");
    kept
}

/// The cache files (one per session) under `cache`.
fn cache_files(cache: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for v in std::fs::read_dir(cache).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(v.path()).into_iter().flatten().flatten() {
            out.push(f.path());
        }
    }
    out
}

/// The voicehook `tool_use` blocks of a session's line, if any.
fn calls(line: &str) -> Vec<Value> {
    let e: Value = serde_json::from_str(line).unwrap();
    if e["type"] != "assistant" {
        return Vec::new();
    }
    e["message"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| {
            b["type"] == "tool_use" && b["name"].as_str().is_some_and(|n| n.starts_with("mcp__"))
        })
        .cloned()
        .collect()
}

fn hook(transcript: &Path, dir: &Path, line: &str, block: &Value) -> Value {
    let e: Value = serde_json::from_str(line).unwrap();
    let mut hook = json!({
        "session_id": "one-session",
        "transcript_path": transcript,
        "cwd": dir,
        "hook_event_name": "PreToolUse",
        "tool_name": block["name"],
        "tool_input": block["input"],
    });
    if e["isSidechain"] == true {
        hook["agent_id"] = e["agentId"].clone();
    }
    hook
}

fn time_of(line: &str) -> String {
    let e: Value = serde_json::from_str(line).unwrap();
    e["timestamp"].as_str().unwrap().to_string()
}

#[test]
fn a_growing_transcript_is_judged_as_a_fresh_read_would() {
    // The incident's sessions, written line by line as the client writes
    // them, and each voicehook call judged before its line is written,
    // then again once the client wrote it (the hook names its id); the
    // state written again after every call, and as seldom as by default.
    for flags in [&["--cache-rewrite", "0"][..], &[]] {
        grow_and_judge(flags);
    }
}

fn grow_and_judge(flags: &[&str]) {
    let dir = scratch();
    let cache = dir.join("cache");
    std::fs::write(
        dir.join("callint.toml"),
        "[rules.decision-not-yes-no]\nseverity = \"warning\"\n",
    )
    .unwrap();
    let mut denied = 0;
    let mut judged_calls = 0;
    for file in ["claude.jsonl", "opencode.jsonl", "promo.jsonl"] {
        let src = std::fs::read_to_string(root().join(CASE).join(file)).unwrap();
        let transcript = dir.join(file);
        std::fs::write(&transcript, "").unwrap();
        for line in src.lines() {
            let blocks = calls(line);
            let at = if blocks.is_empty() {
                String::new()
            } else {
                time_of(line)
            };
            for b in &blocks {
                let h = hook(&transcript, &dir, line, b);
                let (_, out, _) = judged_with(&dir, &cache, &at, &h, flags);
                denied += usize::from(!out.is_empty());
                judged_calls += 1;
            }
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&transcript)
                .unwrap();
            writeln!(f, "{line}").unwrap();
            drop(f);
            for b in &blocks {
                let mut h = hook(&transcript, &dir, line, b);
                h["tool_use_id"] = b["id"].clone();
                judged_with(&dir, &cache, &at, &h, flags);
            }
        }
    }
    assert!(judged_calls > 100, "{judged_calls}");
    assert!(denied >= 15, "{denied} of {judged_calls} denied");
    // one state per session's transcript
    assert_eq!(cache_files(&cache).len(), 3, "{:?}", cache_files(&cache));
}

/// The opencode session up to (not including) its German `say`, which the
/// guard denies, with the hook input of that say.
fn german_say(dir: &Path) -> (std::path::PathBuf, Value, String, Vec<String>) {
    let src = std::fs::read_to_string(root().join(CASE).join("opencode.jsonl")).unwrap();
    let lines: Vec<String> = src.lines().map(str::to_string).collect();
    let transcript = dir.join("opencode.jsonl");
    std::fs::write(&transcript, lines[..7].join("\n") + "\n").unwrap();
    let b = &calls(&lines[7])[0];
    assert_eq!(b["name"], "mcp__vh__say");
    let h = hook(&transcript, dir, &lines[7], b);
    (transcript, h, time_of(&lines[7]), lines)
}

#[test]
fn a_transcript_rewritten_or_cut_shorter_is_read_afresh() {
    let dir = scratch();
    let cache = dir.join("cache");
    let (transcript, h, at, lines) = german_say(&dir);
    let (_, first, _) = judged(&dir, &cache, &at, &h);
    assert!(first.contains("wrong-language"), "{first}");
    assert_eq!(cache_files(&cache).len(), 1);

    // Cut shorter, in place: before the call's join, there is no call to
    // judge; a kept state of the longer transcript would still deny.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&transcript)
        .unwrap()
        .set_len(lines[0].len() as u64 + 1)
        .unwrap();
    let (_, out, err) = judged(&dir, &cache, &at, &h);
    assert!(
        out.is_empty() && err.contains("allowed without judging"),
        "{out} {err}"
    );

    // Rewritten in place, longer than before, with another session's
    // lines: the kept state is no longer the transcript's.
    let (_, _, _, _) = german_say(&dir);
    judged(&dir, &cache, &at, &h);
    let promo = std::fs::read_to_string(root().join(CASE).join("promo.jsonl")).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&transcript)
        .unwrap();
    f.write_all(promo.as_bytes()).unwrap();
    drop(f);
    let (_, out, _) = judged(&dir, &cache, &at, &h);
    assert_ne!(out, first);

    // Replaced by another file of the same name and the same bytes plus a
    // line: read afresh too (and decided alike).
    let (transcript, _, _, _) = german_say(&dir);
    judged(&dir, &cache, &at, &h);
    let copy = dir.join("copy.jsonl");
    let mut bytes = std::fs::read(&transcript).unwrap();
    bytes.extend_from_slice(lines[7].as_bytes());
    bytes.push(b'\n');
    std::fs::write(&copy, bytes).unwrap();
    std::fs::rename(&copy, &transcript).unwrap();
    judged(&dir, &cache, &at, &h);
}

#[test]
fn a_broken_cache_file_is_ignored_silently() {
    let dir = scratch();
    let cache = dir.join("cache");
    let (transcript, h, at, lines) = german_say(&dir);
    let (_, first, _) = judged(&dir, &cache, &at, &h);
    let files = cache_files(&cache);
    assert_eq!(files.len(), 1);
    let good = std::fs::read(&files[0]).unwrap();
    let state = named(rmp_serde::from_slice::<Value>(&good).expect("the state is MessagePack"));
    let mut half = good[..good.len() / 2].to_vec();
    let mut other = state.clone();
    other["reader"] = json!({"reader": 5});
    let mut moved = state.clone();
    moved["end"] = json!(u64::MAX);
    for bad in [
        b"".to_vec(),
        b"{not json".to_vec(),
        b"\xff\xfe\x00".to_vec(),
        std::mem::take(&mut half),
        rmp_serde::to_vec(&unnamed(&other)).unwrap(),
        rmp_serde::to_vec(&unnamed(&moved)).unwrap(),
        // the state as earlier builds wrote it: its fields by name, and
        // before that as JSON
        rmp_serde::to_vec_named(&state).unwrap(),
        serde_json::to_vec(&state).unwrap(),
    ] {
        std::fs::write(&files[0], &bad).unwrap();
        let (code, out, err) = judged(&dir, &cache, &at, &h);
        assert_eq!(
            (code, out.as_str(), err.as_str()),
            (Some(0), first.as_str(), "")
        );
        // and it is written anew, whole
        let again = std::fs::read(&files[0]).unwrap();
        rmp_serde::from_slice::<Value>(&again).expect("written anew");
    }
    // a cache folder that cannot be written is no error either
    let blocked = dir.join("blocked");
    std::fs::write(&blocked, "a file, not a folder").unwrap();
    let (code, out, err) = judged(&dir, &blocked, &at, &h);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (Some(0), first.as_str(), "")
    );
    drop((transcript, lines));
}

// ---- Codex ----

const CODEX: &str = "corpus/seed-incident-codex";

/// The fields of a kept state, in the order it writes them (an array, by
/// position), named.
const FIELDS: [&str; 12] = [
    "key",
    "binary",
    "identity",
    "tail",
    "end",
    "head",
    "last",
    "before",
    "before_hash",
    "times",
    "ids",
    "reader",
];

/// A kept state as read back (an array), as an object with its fields
/// named.
fn named(state: Value) -> Value {
    let Value::Array(fields) = state else {
        panic!("a state is an array of its fields: {state}");
    };
    assert_eq!(fields.len(), FIELDS.len());
    Value::Object(FIELDS.iter().map(|f| f.to_string()).zip(fields).collect())
}

/// A state named as [`named`] makes it, as the guard writes it.
fn unnamed(state: &Value) -> Value {
    Value::Array(FIELDS.iter().map(|f| state[*f].clone()).collect())
}

/// The state kept in `cache`'s only file, read back, its fields named.
fn state(cache: &Path) -> Value {
    let files = cache_files(cache);
    assert_eq!(files.len(), 1, "{files:?}");
    named(rmp_serde::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap())
}

/// Codex's hook input for the voicehook `function_call` of the rollout
/// line `line`, if it is one.
fn codex_hook(rollout: &Path, dir: &Path, session: &str, line: &str) -> Option<(Value, String)> {
    let e: Value = serde_json::from_str(line).unwrap();
    let p = &e["payload"];
    let name = p["name"].as_str().unwrap_or("");
    if e["type"] != "response_item" || p["type"] != "function_call" || !name.starts_with("mcp__") {
        return None;
    }
    let args: Value = serde_json::from_str(p["arguments"].as_str().unwrap()).unwrap();
    let hook = json!({
        "session_id": session,
        "turn_id": "turn-1",
        "transcript_path": rollout,
        "cwd": dir,
        "hook_event_name": "PreToolUse",
        "model": "gpt-5-codex",
        "tool_name": name,
        "tool_input": args,
    });
    Some((hook, e["timestamp"].as_str().unwrap().to_string()))
}

fn append(path: &Path, line: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

#[test]
fn a_growing_rollout_is_judged_as_a_fresh_read_would() {
    // The incident's rollouts, written line by line as Codex writes them,
    // and each voicehook call judged before its line is written, then
    // again once Codex wrote it (the hook names its call_id); the state
    // written again after every call, and as seldom as by default.
    for flags in [&["--cache-rewrite", "0"][..], &[]] {
        let dir = scratch();
        let cache = dir.join("cache");
        std::fs::write(dir.join("callint.toml"), crate::common::INFO_DENIES).unwrap();
        let (mut denied, mut judged_calls) = (0, 0);
        for file in ["claude.jsonl", "opencode.jsonl", "promo.jsonl"] {
            let src = std::fs::read_to_string(root().join(CODEX).join(file)).unwrap();
            let rollout = dir.join(format!("rollout-{file}"));
            std::fs::write(&rollout, "").unwrap();
            for line in src.lines() {
                let pending = codex_hook(&rollout, &dir, file, line);
                if let Some((h, at)) = &pending {
                    let (_, out, _) = judged_by(&dir, &cache, at, h, &["--client", "codex"], flags);
                    denied += usize::from(!out.is_empty());
                    judged_calls += 1;
                }
                append(&rollout, line);
                if let Some((mut h, at)) = pending {
                    let e: Value = serde_json::from_str(line).unwrap();
                    h["tool_use_id"] = e["payload"]["call_id"].clone();
                    judged_by(&dir, &cache, &at, &h, &["--client", "codex"], flags);
                }
            }
        }
        assert!(judged_calls > 100, "{judged_calls}");
        assert!(denied >= 15, "{denied} of {judged_calls} denied");
        // one state per rollout
        assert_eq!(cache_files(&cache).len(), 3, "{:?}", cache_files(&cache));
    }
}

/// A rollout of call `c-1`: its `session_meta` (with `source`, and `pad`
/// bytes of padding), shell work of more than the bytes the state's checks
/// compare, the join, and Codex's hook input of a `create_call` made then.
fn codex_rollout(dir: &Path, source: &str, pad: usize) -> (std::path::PathBuf, Value, String) {
    let rollout = dir.join("rollout.jsonl");
    let mut lines = vec![
        json!({"timestamp": "2026-10-10T10:00:00.000Z", "type": "session_meta",
        "payload": {"id": "0199", "cwd": "/w", "originator": "codex_cli_rs", "pad": "x".repeat(pad),
        "source": serde_json::from_str::<Value>(source).unwrap()}}),
    ];
    for k in 0..40 {
        lines.push(json!({"timestamp": "2026-10-10T10:00:01.000Z", "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": format!("sh{k}"), "output": "ok\n".repeat(60)}}));
    }
    lines.push(json!({"timestamp": "2026-10-10T10:00:02.000Z", "type": "response_item",
        "payload": {"type": "function_call", "name": "mcp__voicehook__join", "arguments": "{\"call_id\":\"c-1\",\"label\":\"Kit\"}", "call_id": "j1"}}));
    lines.push(json!({"timestamp": "2026-10-10T10:00:03.000Z", "type": "response_item",
        "payload": {"type": "function_call_output", "call_id": "j1", "output": "{\"status\":\"joined\",\"context\":{\"lang\":\"en\"}}"}}));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&rollout, text).unwrap();
    let hook = json!({
        "session_id": "rewritten",
        "transcript_path": rollout,
        "cwd": dir,
        "hook_event_name": "PreToolUse",
        "tool_name": "mcp__voicehook__create_call",
        "tool_input": {"lang": "en"},
    });
    (rollout, hook, "2026-10-10T10:00:04.000Z".into())
}

#[test]
fn a_rollout_rewritten_or_cut_shorter_is_read_afresh() {
    let dir = scratch();
    let cache = dir.join("cache");
    let codex: &[&str] = &["--client", "codex"];
    let (rollout, h, at) = codex_rollout(&dir, r#""cli""#, 20);
    let (_, first, _) = judged_by(&dir, &cache, &at, &h, codex, &[]);
    assert!(!first.contains("create-call-delegated"), "{first}");
    assert!(state(&cache)["tail"].as_u64().unwrap() > 4096);

    // Its session_meta rewritten in place, to the same length, as a
    // subagent's: the state read the thread from that line before the
    // call, which it checks too, so the create_call is now denied.
    let main = std::fs::read(&rollout).unwrap();
    codex_rollout(&dir, r#"{"subagent":1}"#, 20);
    let longer = std::fs::read(&rollout).unwrap().len() - main.len();
    codex_rollout(&dir, r#"{"subagent":1}"#, 20 - longer);
    let same = std::fs::read(&rollout).unwrap();
    assert_eq!(same.len(), main.len());
    let meta_end = main.iter().position(|&b| b == b'\n').unwrap();
    assert_eq!(same[meta_end..], main[meta_end..]);
    std::fs::write(&rollout, &main).unwrap();
    judged_by(&dir, &cache, &at, &h, codex, &[]);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(&rollout)
        .unwrap();
    f.write_all(&same).unwrap();
    drop(f);
    let (_, out, _) = judged_by(&dir, &cache, &at, &h, codex, &[]);
    assert!(out.contains("create-call-delegated"), "{out}");

    // Cut shorter, in place, before the join: nothing to judge it by.
    judged_by(&dir, &cache, &at, &h, codex, &[]);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&rollout)
        .unwrap()
        .set_len(meta_end as u64 + 1)
        .unwrap();
    judged_by(&dir, &cache, &at, &h, codex, &[]);

    // Replaced by another file with the same bytes and a line more.
    std::fs::write(&rollout, &main).unwrap();
    judged_by(&dir, &cache, &at, &h, codex, &[]);
    let copy = dir.join("copy.jsonl");
    let mut bytes = main.clone();
    bytes.extend_from_slice(br#"{"timestamp":"2026-10-10T10:00:03.500Z","type":"event_msg","payload":{"type":"agent_message","message":"Joined."}}"#);
    bytes.push(b'\n');
    std::fs::write(&copy, bytes).unwrap();
    std::fs::rename(&copy, &rollout).unwrap();
    judged_by(&dir, &cache, &at, &h, codex, &[]);
    assert_eq!(cache_files(&cache).len(), 1);
}

#[test]
fn a_new_join_in_a_rollout_starts_over() {
    let dir = scratch();
    let cache = dir.join("cache");
    let codex: &[&str] = &["--client", "codex"];
    let (rollout, mut h, at) = codex_rollout(&dir, r#""cli""#, 0);
    h["tool_name"] = json!("mcp__voicehook__say");
    h["tool_input"] = json!({"text": "Hello, I am on it."});
    judged_by(&dir, &cache, &at, &h, codex, &[]);
    let first = state(&cache)["tail"].as_u64().unwrap();
    // more of the same call: the state goes on from where it was
    append(
        &rollout,
        r#"{"timestamp":"2026-10-10T10:00:05.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__voicehook__say","arguments":"{\"text\":\"Hello, I am on it.\"}","call_id":"s1"}}"#,
    );
    append(
        &rollout,
        r#"{"timestamp":"2026-10-10T10:00:06.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"s1","output":"{\"say_id\":\"s1\"}"}}"#,
    );
    judged_by(&dir, &cache, &at, &h, codex, &["--cache-rewrite", "0"]);
    assert_eq!(state(&cache)["tail"].as_u64().unwrap(), first);
    // the agent joins another call, in German: read from that join on
    let second = std::fs::metadata(&rollout).unwrap().len();
    append(
        &rollout,
        r#"{ "payload" : { "arguments" : "{\"call_id\":\"c-2\",\"label\":\"Kit\"}" , "call_id" : "j2" , "name" : "mcp__voicehook__join" , "type" : "function_call" } , "type" : "response_item" , "timestamp" : "2026-10-10T10:01:00.000Z" }"#,
    );
    append(
        &rollout,
        r#"{"timestamp":"2026-10-10T10:01:01.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"j2","output":"{\"status\":\"joined\",\"context\":{\"lang\":\"de\"}}"}}"#,
    );
    h["tool_input"] = json!({"text": "Ja, ich bin dabei und melde mich gleich."});
    let (_, out, _) = judged_by(&dir, &cache, "2026-10-10T10:01:02.000Z", &h, codex, &[]);
    assert!(!out.contains("wrong-language"), "{out}");
    assert_eq!(state(&cache)["tail"].as_u64().unwrap(), second);
    // and an English say in the German call is denied, kept or not
    h["tool_input"] = json!({"text": "Okay, I am on it and will report back soon."});
    let (_, out, _) = judged_by(&dir, &cache, "2026-10-10T10:01:03.000Z", &h, codex, &[]);
    assert!(out.contains("wrong-language"), "{out}");
}
