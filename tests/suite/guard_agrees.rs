//! The guard's answer is `check`'s answer, however the session's JSON is
//! written: compact as Claude Code writes it, with a space after every `:`
//! and `,` (as Python's `json.dumps` writes it), and with every object's
//! keys in the reverse order. For each serialisation, every voicehook call
//! of every corpus case in Claude Code's shape is replayed as the hook sees
//! it (the transcript just before the call), once read fresh and once from
//! the state the guard kept from the call before; the rules the guard names
//! must be exactly those `check` finds at that line among the rules that can
//! judge a pending call.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::Path;

use serde_json::{json, Value};

use crate::common::{guard_in, root, scratch};

/// Write `v` as JSON: `spaced` puts a space after `:` and `,`; `reversed`
/// writes each object's keys in the reverse of their order in `v`.
pub(crate) fn write(v: &Value, spaced: bool, reversed: bool, out: &mut String) {
    let (colon, comma) = if spaced { (": ", ", ") } else { (":", ",") };
    match v {
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                write(x, spaced, reversed, out);
            }
            out.push(']');
        }
        Value::Object(o) => {
            out.push('{');
            let mut entries: Vec<_> = o.iter().collect();
            if reversed {
                entries.reverse();
            }
            for (i, (k, x)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push_str(colon);
                write(x, spaced, reversed, out);
            }
            out.push('}');
        }
        other => out.push_str(&serde_json::to_string(other).unwrap()),
    }
}

/// A session's lines written again in one of the serialisations.
fn rewrite(src: &str, spaced: bool, reversed: bool) -> Vec<String> {
    src.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let mut s = String::new();
            write(&v, spaced, reversed, &mut s);
            s
        })
        .collect()
}

/// The Claude Code sessions of the corpus: (case folder, file name).
fn sessions() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for case in ["seed-incident-claude", "link-and-join-claude"] {
        let dir = root().join("corpus").join(case);
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".jsonl"))
            .collect();
        files.sort();
        out.extend(files.into_iter().map(|f| (case.to_string(), f)));
    }
    out
}

/// The rules `check` finds per line of `file` (in `dir`), among those
/// that can judge a pending call.
fn check_findings(dir: &Path, file: &str) -> BTreeMap<usize, BTreeSet<String>> {
    let o = crate::common::callint_in(dir, &["check", "--format", "json", "--no-cache", file]);
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut m: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    for d in doc["diagnostics"].as_array().unwrap() {
        let rule = d["rule"].as_str().unwrap();
        if callint::rules::judges_pending(rule) && d["severity"] != "info" {
            m.entry(d["line"].as_u64().unwrap() as usize)
                .or_default()
                .insert(rule.to_string());
        }
    }
    m
}

/// The rules a denial's reason names (none when the call was let through).
fn named(out: &std::process::Output) -> BTreeSet<String> {
    assert_eq!(out.status.code(), Some(0), "the guard always exits 0");
    if out.stdout.is_empty() {
        return BTreeSet::new();
    }
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    let word = regex::Regex::new(r"[a-z]+(?:-[a-z]+)+").unwrap();
    word.find_iter(reason)
        .map(|m| m.as_str())
        .filter(|w| callint::rules::judges_pending(w))
        .map(str::to_string)
        .collect()
}

/// Every voicehook call of `lines`: its line (1-based), the hook input's
/// tool name and input, the subagent that made it, and its time.
fn calls(lines: &[String]) -> Vec<(usize, Value)> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let e: Value = serde_json::from_str(l).unwrap();
        if e["type"] != "assistant" {
            continue;
        }
        for b in e["message"]["content"].as_array().into_iter().flatten() {
            let name = b["name"].as_str().unwrap_or("");
            if b["type"] == "tool_use" && name.starts_with("mcp__") {
                let mut hook = json!({
                    "hook_event_name": "PreToolUse",
                    "tool_name": name,
                    "tool_input": b["input"],
                    "at": e["timestamp"],
                });
                if e["isSidechain"] == true {
                    hook["agent_id"] = e["agentId"].clone();
                }
                out.push((i + 1, hook));
            }
        }
    }
    out
}

#[test]
fn the_guard_names_what_check_finds_in_every_serialisation() {
    let dir = scratch();
    // Both info rules deny here, so every finding the guard can see shows.
    std::fs::write(dir.join("callint.toml"), crate::common::INFO_DENIES).unwrap();
    let cache = dir.join("cache");
    let cache_arg = cache.to_string_lossy().into_owned();
    let mut judged = 0;
    let mut denied = 0;
    let mut wrong = Vec::new();
    let mut reference: BTreeMap<(String, String), BTreeMap<usize, BTreeSet<String>>> =
        BTreeMap::new();
    for (spaced, reversed, shape) in [
        (false, false, "compact"),
        (true, false, "spaced"),
        (false, true, "reversed"),
        (true, true, "spaced-reversed"),
    ] {
        for (case, file) in sessions() {
            let src =
                std::fs::read_to_string(root().join("corpus").join(&case).join(&file)).unwrap();
            let lines = rewrite(&src, spaced, reversed);
            let whole = format!("{shape}-{case}-{file}");
            std::fs::write(dir.join(&whole), lines.join("\n") + "\n").unwrap();
            let found = check_findings(&dir, &whole);
            // check reads every serialisation alike
            let first = reference
                .entry((case.clone(), file.clone()))
                .or_insert_with(|| found.clone());
            assert_eq!(*first, found, "{shape} {case}/{file}: check differs");
            // A transcript that grows call by call, for the kept state.
            let growing = dir.join(format!("grow-{whole}"));
            let mut grow = std::fs::File::create(&growing).unwrap();
            let mut written = 0;
            for (line, hook) in calls(&lines) {
                let cut = dir.join(format!("cut-{whole}-{line}"));
                std::fs::write(&cut, lines[..line - 1].join("\n") + "\n").unwrap();
                for l in &lines[written..line - 1] {
                    writeln!(grow, "{l}").unwrap();
                }
                grow.flush().unwrap();
                written = line - 1;
                let at = hook["at"].as_str().unwrap().to_string();
                let want = found.get(&line).cloned().unwrap_or_default();
                for (transcript, keep) in [(&cut, false), (&growing, true)] {
                    let mut input = hook.clone();
                    input.as_object_mut().unwrap().remove("at");
                    input["transcript_path"] = json!(transcript);
                    input["cwd"] = json!(dir);
                    input["session_id"] = json!(format!("{whole}-{keep}"));
                    let mut args = vec!["--now", at.as_str()];
                    if keep {
                        args.extend(["--cache-dir", cache_arg.as_str()]);
                    } else {
                        args.push("--no-cache");
                    }
                    let got = named(&guard_in(&dir, &args, input.to_string().as_bytes()));
                    judged += 1;
                    denied += usize::from(!got.is_empty());
                    if got != want {
                        wrong.push(format!(
                            "{shape} {case}/{file}:{line} ({}): guard {got:?}, check {want:?}",
                            if keep { "kept" } else { "fresh" }
                        ));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {judged} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(
        judged > 400 && denied > 40,
        "{judged} judged, {denied} denied"
    );
}
