//! What `callint guard` keeps of a session between runs: the next run
//! reads only what the transcript grew by, and decides exactly as a fresh
//! read of the whole transcript would; a transcript rewritten or cut
//! shorter, or a broken cache file, is read afresh.

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
    let input = hook.to_string();
    let cache = cache.to_str().unwrap();
    let mut args = vec!["--now", at, "--cache-dir", cache];
    args.extend_from_slice(flags);
    let kept = answer(&guard_in(dir, &args, input.as_bytes()));
    let fresh = answer(&guard_in(
        dir,
        &["--now", at, "--no-cache"],
        input.as_bytes(),
    ));
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
    let state = rmp_serde::from_slice::<Value>(&good).expect("the state is MessagePack");
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
        rmp_serde::to_vec_named(&other).unwrap(),
        rmp_serde::to_vec_named(&moved).unwrap(),
        // the state as an earlier build wrote it
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
