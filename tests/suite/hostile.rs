//! A battery of hostile native logs, each a broken or strange line between
//! two lines with known findings: cut lines (in the middle and at the end),
//! invalid UTF-8, NUL bytes, 200,000-deep nesting, a 30 MB line, random
//! bytes, a value of the wrong type in every field of the log format,
//! timestamps that are no dates or go backwards, unknown functions and
//! event types, and terminal escape sequences in every kind of text.
//!
//! For each: every invariant of `callint::app::harness` holds (which includes
//! that the pretty output shows no raw control character), the broken line
//! gets its diagnostic, and the lines around it are still linted. The
//! `callint` binary exits 0 or 1 on each.
//!
//! `tests/cli.rs` checks exit codes and JSON for a few of these through the
//! binary; `tests/properties.rs` throws generated inputs at the harness.

use crate::common;
use callint::app::harness;
use callint::input::Format;
use callint::lint::engine::FileResult;
use callint::report::{resolve, LineIndex};
use serde_json::{json, Value};

/// Line 1 of every case: a board item bundling three things.
const BEFORE: &str = r#"{"ts":"2026-10-10T10:00:00.000Z","agent":"Promo","fn":"status","args":{"emoji":"🛠️","open":["Fix login, update docs and tag release"]}}"#;
/// The last line of every case: a label the server refuses.
const AFTER: &str = r#"{"ts":"2026-10-10T10:00:09.000Z","fn":"join","args":{"call_id":"c1","label":"opencode-session-2026-10-10"},"error":{"status":422,"message":"label longer than 22 characters"}}"#;

/// `BEFORE`, the hostile bytes, `AFTER`: the hostile part starts on line 2.
fn sandwich(middle: &[u8]) -> Vec<u8> {
    [
        BEFORE.as_bytes(),
        b"\n",
        middle,
        b"\n",
        AFTER.as_bytes(),
        b"\n",
    ]
    .concat()
}

/// Lint as a native log, check every invariant, and return the result with
/// each finding's line and rule.
fn lint(bytes: &[u8]) -> (FileResult, Vec<(usize, &'static str)>) {
    let f = harness::lint(
        &harness::linter(),
        "call.jsonl",
        bytes,
        Some(Format::Native),
    )
    .unwrap_or_else(|e| panic!("invariant broken: {e}"));
    let index = LineIndex::new(&f.source);
    let found = f
        .diagnostics
        .iter()
        .map(|d| (resolve(&f.source, &index, &d.primary.at).line, d.rule))
        .collect();
    (f, found)
}

fn lines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

/// The findings of the lines around the hostile part are there.
fn still_linted(what: &str, bytes: &[u8], found: &[(usize, &str)]) {
    assert!(
        found.contains(&(1, "board-bundle")),
        "{what}: line 1 no longer linted: {found:?}"
    );
    let last = lines(bytes);
    assert!(
        found.contains(&(last, "label-too-long")),
        "{what}: line {last} no longer linted: {found:?}"
    );
}

fn invalid_at(found: &[(usize, &str)], line: usize) -> bool {
    found.contains(&(line, "invalid-record"))
}

/// A broken line: its diagnostic on line 2, the rest linted.
fn broken(what: &str, middle: &[u8]) {
    let bytes = sandwich(middle);
    let (_, found) = lint(&bytes);
    assert!(
        invalid_at(&found, 2),
        "{what}: no invalid-record on line 2: {found:?}"
    );
    still_linted(what, &bytes, &found);
}

#[test]
fn cut_lines_in_the_middle_and_at_the_end() {
    let say = r#"{"ts":"2026-10-10T10:00:01.000Z","fn":"say","args":{"text":"Grüße aus Köln, alles läuft"},"result":{"say_id":"s1","say_status":"spoken"}}"#;
    // Cut at every byte, also inside the two-byte characters.
    for cut in 1..say.len() {
        let part = &say.as_bytes()[..cut];
        broken(&format!("cut at {cut}"), part);
        // The same cut as the last line of the file, with and without its
        // line end.
        for end in [&b""[..], b"\n"] {
            let bytes = [BEFORE.as_bytes(), b"\n", AFTER.as_bytes(), b"\n", part, end].concat();
            let (_, found) = lint(&bytes);
            assert!(invalid_at(&found, 3), "cut at {cut} at the end: {found:?}");
            assert!(
                found.contains(&(1, "board-bundle")) && found.contains(&(2, "label-too-long")),
                "cut at {cut} at the end: {found:?}"
            );
        }
    }
}

#[test]
fn invalid_utf8_and_nul_bytes() {
    let cases: &[(&str, &[u8])] = &[
        (
            "bad byte in a text",
            b"{\"fn\":\"say\",\"args\":{\"text\":\"\xff\xfe\"}}",
        ),
        ("bad byte in a key", b"{\"f\xc0\":\"say\"}"),
        (
            "surrogate as UTF-8",
            b"{\"fn\":\"say\",\"args\":{\"text\":\"\xed\xa0\x80\"}}",
        ),
        (
            "overlong",
            b"{\"fn\":\"say\",\"args\":{\"text\":\"\xc0\xaf\"}}",
        ),
        (
            "cut character",
            b"{\"fn\":\"say\",\"args\":{\"text\":\"\xc3",
        ),
        ("NUL before", b"\0\0{\"fn\":\"leave\"}"),
        (
            "NUL in a text",
            b"{\"fn\":\"say\",\"args\":{\"text\":\"a\0b\"}}",
        ),
        ("NUL after", b"{\"fn\":\"leave\"}\0"),
        ("NULs only", b"\0\0\0\0"),
        (
            "lone surrogate escape",
            b"{\"fn\":\"say\",\"args\":{\"text\":\"\\ud800\"}}",
        ),
    ];
    for (what, middle) in cases {
        broken(what, middle);
    }
    // An escaped NUL is a valid JSON string: no finding, nothing raw out.
    let bytes = sandwich(br#"{"fn":"say","args":{"text":"a\u0000b"}}"#);
    let (f, found) = lint(&bytes);
    assert!(!invalid_at(&found, 2), "{found:?}");
    still_linted("escaped NUL", &bytes, &found);
    assert!(!harness::pretty(&f).contains('\0'));
}

#[test]
fn deep_nesting() {
    let n = 200_000;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("open brackets", b"[".repeat(n)),
        (
            "balanced brackets",
            [b"[".repeat(n), b"]".repeat(n)].concat(),
        ),
        ("open objects", b"{\"a\":".repeat(n)),
        (
            "deep value in a record",
            [
                &br#"{"fn":"say","args":{"text":"hi","x":"#[..],
                &b"[".repeat(n),
                &b"]".repeat(n),
                b"}}",
            ]
            .concat(),
        ),
    ];
    for (what, middle) in cases {
        broken(what, &middle);
    }
}

#[test]
fn a_30_mb_line() {
    let text = "x".repeat(30 * 1024 * 1024);
    // A valid record whose text is huge and starts with escape sequences
    // (a cut line of any length is the same case as a short one, above).
    let record = format!(
        r#"{{"fn":"status","args":{{"emoji":"\u001b[2J","open":["\u001b]0;pwned\u0007{text}, B and C"]}}}}"#
    );
    let bytes = sandwich(record.as_bytes());
    let (f, found) = lint(&bytes);
    still_linted("30 MB record", &bytes, &found);
    let out = harness::pretty(&f);
    assert!(out.len() < 50_000, "a 30 MB line is not printed whole");
    assert!(found.contains(&(2, "board-bundle")), "{found:?}");
}

#[test]
fn random_bytes() {
    // A fixed pseudo-random stream (no new dependency, same bytes on every
    // run), in pieces of several sizes, as one or several lines.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 24) as u8
    };
    for len in [1, 7, 64, 1000, 20_000] {
        let mut middle: Vec<u8> = (0..len).map(|_| next()).collect();
        // Start with a byte that is no JSON, so line 2 is surely broken.
        middle[0] = b'~';
        let bytes = sandwich(&middle);
        let (_, found) = lint(&bytes);
        assert!(invalid_at(&found, 2), "{len} random bytes: {found:?}");
        still_linted(&format!("{len} random bytes"), &bytes, &found);
    }
}

/// One record per kind the log format knows, every field filled with a
/// value of its type.
fn full_records() -> Vec<Value> {
    let line = json!({"speaker": "Promo", "op": "Promo", "model": "m", "text": "Hi Oliver",
        "ts": "2026-10-10T10:00:02Z", "addressed_to": ["Oliver"], "addressed_to_you": false,
        "to_human": true});
    let ctx = json!({"lang": "en", "mode": "normal", "instructions": "i", "functions": ["say"],
        "rules": "r", "skill_url": "https://x"});
    let common = |mut v: Value| {
        let o = v.as_object_mut().unwrap();
        o.insert("ts".into(), json!("2026-10-10T10:00:03.000Z"));
        o.insert("agent".into(), json!("opencode"));
        o.insert("call".into(), json!("c1"));
        o.insert("thread".into(), json!("main"));
        v
    };
    let next = |event: Value| common(json!({"fn": "next", "result": event}));
    vec![
        json!({"meta": {"format": 1, "recorder": "r 0.1", "client": "c", "human": "Oliver",
            "voicebot": "Delta"}}),
        common(
            json!({"fn": "create_call", "args": {"lang": "en", "title": "t"},
            "result": {"call_id": "c1", "link": "https://voicehook.ai/c/abc",
                "share_text": "Join: https://voicehook.ai/c/abc"}}),
        ),
        common(
            json!({"fn": "join", "args": {"call_id": "c1", "label": "opencode", "emoji": "🛠️",
            "greet": true, "quiet": false}, "result": {"status": "joined", "instructions": "i",
            "context": ctx, "role": "owner"}}),
        ),
        common(
            json!({"fn": "say", "args": {"text": "Hi Oliver, opencode here."},
            "result": {"say_id": "s1", "say_status": "dropped", "reason": "addressed_other"}}),
        ),
        common(
            json!({"fn": "status", "args": {"emoji": "🛠️", "doing": "fixing the login",
            "open": ["Fix login redirect"], "done": ["Tag v1"]},
            "result": {"peers": ["Promo"], "operators": ["Promo"]}}),
        ),
        common(json!({"fn": "activity", "args": {"text": "reading logs"}})),
        common(
            json!({"fn": "decide", "args": {"question": "Ship v1 today?",
            "options": ["yes", "no"]}, "result": {"decision_id": "d1"}}),
        ),
        common(json!({"fn": "show", "args": {"panel": "board"}})),
        common(json!({"fn": "share", "args": {"text": "notes", "url": "https://x"}})),
        common(json!({"fn": "say", "args": {"text": "x"},
            "error": {"status": 422, "message": "too long"}})),
        next(
            json!({"type": "user", "speaker": "Oliver", "text": "Promo, status?",
            "addressed_to": ["Promo"], "addressed_to_you": false,
            "operators_said": [line.clone()], "agent_said": [line.clone()]}),
        ),
        next(
            json!({"type": "operator", "op": "Promo", "speaker": "Promo", "model": "m",
            "text": "opencode, can you check?", "addressed_to": ["opencode"],
            "addressed_to_you": true}),
        ),
        next(json!({"type": "revise", "say_id": "s1", "reason": "addressed_other", "text": "x"})),
        next(json!({"type": "context", "context": ctx})),
        next(json!({"type": "decision", "decision_id": "d1", "answer": "yes"})),
        common(
            json!({"chat": "assistant", "text": "Join me: https://voicehook.ai/c/abc",
            "turn_end": true}),
        ),
        common(json!({"tool": "edit_file", "args": {"path": "skills/SKILL.md"}})),
    ]
}

/// Every path to a value inside `v`, with the value.
fn paths(v: &Value, at: Vec<String>, out: &mut Vec<(Vec<String>, Value)>) {
    if !at.is_empty() {
        out.push((at.clone(), v.clone()));
    }
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                let mut p = at.clone();
                p.push(k.clone());
                paths(x, p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let mut p = at.clone();
                p.push(i.to_string());
                paths(x, p, out);
            }
        }
        _ => {}
    }
}

fn set(v: &mut Value, path: &[String], new: Value) {
    let mut cur = v;
    for k in path {
        cur = match cur {
            Value::Object(o) => o.get_mut(k).unwrap(),
            Value::Array(a) => &mut a[k.parse::<usize>().unwrap()],
            _ => unreachable!(),
        };
    }
    *cur = new;
}

/// Values of every type but the one of `v`.
fn wrong_types(v: &Value) -> Vec<Value> {
    let all = [
        json!(7),
        json!("seven"),
        json!(true),
        json!(["x"]),
        json!({"x": 1}),
    ];
    let same = |w: &Value| std::mem::discriminant(w) == std::mem::discriminant(v);
    all.into_iter().filter(|w| !same(w)).collect()
}

/// Values of another type the log format accepts: `greet` is a bool or a
/// text; a list of texts may be given as one text; a decision's answer is
/// whatever the human chose; a tool's arguments are the tool's own; what a
/// board's `peers` and `operators` lists hold the format leaves open.
fn accepted(path: &str, wrong: &Value) -> bool {
    const LISTS: &[&str] = &[
        "args.open",
        "args.done",
        "args.options",
        "result.addressed_to",
        "result.agent_said.0.addressed_to",
        "result.operators_said.0.addressed_to",
    ];
    (path == "args.greet" && wrong.is_string())
        || (LISTS.contains(&path) && wrong.is_string())
        || path == "result.answer"
        || path.starts_with("args.path")
        || path.starts_with("result.peers.")
        || path.starts_with("result.operators.")
}

/// The wrong types in fields of every record that got no diagnostic on
/// their line; the rest of the file is linted in every case.
fn unreported() -> Vec<String> {
    let mut out = Vec::new();
    for rec in full_records() {
        let (_, found) = lint(&sandwich(rec.to_string().as_bytes()));
        assert!(
            !invalid_at(&found, 2),
            "the full record is valid: {rec}: {found:?}"
        );
        let mut ps = Vec::new();
        paths(&rec, Vec::new(), &mut ps);
        for (path, v) in ps {
            let p = path.join(".");
            for wrong in wrong_types(&v) {
                let mut bad = rec.clone();
                set(&mut bad, &path, wrong.clone());
                let bytes = sandwich(bad.to_string().as_bytes());
                let (_, found) = lint(&bytes);
                let what = format!("{p} = {wrong} in {bad}");
                still_linted(&what, &bytes, &found);
                if !invalid_at(&found, 2) && !accepted(&p, &wrong) {
                    out.push(what);
                }
            }
        }
    }
    out
}

#[test]
fn a_wrong_type_in_any_field_is_reported() {
    let missed = unreported();
    assert!(
        missed.is_empty(),
        "{} wrong types not reported:\n{}",
        missed.len(),
        missed.join("\n")
    );
}

#[test]
fn timestamps_that_are_no_dates_or_go_backwards() {
    for ts in [
        "yesterday",
        "",
        "2026-13-45T25:61:61Z",
        "2026-10-10",
        "10:00:00",
        "2026-10-10T10:00:00",
        "+275760-09-13T00:00:00Z",
        "99999999999999999999-10-10T10:00:00Z",
    ] {
        let rec = json!({"ts": ts, "fn": "say", "args": {"text": "hi"}});
        broken(&format!("ts {ts:?}"), rec.to_string().as_bytes());
    }
    // Going backwards, by a second and by years: no finding for the time
    // itself, no negative durations, every rule still runs.
    let back = [
        r#"{"ts":"2026-10-10T10:00:05.000Z","fn":"next","result":{"type":"user","speaker":"Oliver","text":"opencode, are you there?","addressed_to":["opencode"],"addressed_to_you":true}}"#,
        r#"{"ts":"2026-10-10T10:00:04.000Z","fn":"say","args":{"text":"Yes, I am here."},"result":{"say_id":"s1","say_status":"spoken"}}"#,
        r#"{"ts":"1999-01-01T00:00:00.000Z","fn":"say","args":{"text":"Still here."},"result":{"say_id":"s2","say_status":"spoken"}}"#,
    ]
    .join("\n");
    let bytes = sandwich(back.as_bytes());
    let (f, found) = lint(&bytes);
    still_linted("backwards", &bytes, &found);
    for d in &f.diagnostics {
        assert!(
            !d.message.contains("-0") && !d.message.contains(" -"),
            "a negative duration: {}",
            d.message
        );
    }
}

#[test]
fn unknown_functions_and_event_types_are_accepted() {
    for rec in [
        r#"{"fn":"teleport","args":{"to":"mars"},"result":{"ok":true}}"#,
        r#"{"fn":"next","result":{"type":"earthquake","magnitude":9}}"#,
        r#"{"fn":"next","result":{"type":"user","speaker":"Oliver","text":"hi","mood":"good"}}"#,
        r#"{"chat":"system","text":"booted"}"#,
        r#"{"tool":"warp_drive"}"#,
        r#"{"fn":"say","args":{"text":"hi"},"result":{"say_status":"whispered"}}"#,
        r#"{"fn":"leave","thread":"quantum"}"#,
    ] {
        let bytes = sandwich(rec.as_bytes());
        let (_, found) = lint(&bytes);
        assert!(
            !invalid_at(&found, 2),
            "{rec}: an unknown name is no broken line: {found:?}"
        );
        still_linted(rec, &bytes, &found);
    }
}

/// Escape sequences and controls, as JSON escapes (decoded into texts).
const ESCAPES: &[&str] = &[
    r"\u001b[2J\u001b[31m",
    r"\u001b]0;pwned\u0007",
    r"\u001b]8;;https://evil\u001b\\link\u001b]8;;\u001b\\",
    r"\u0007\u0008\u000b\u000c\r",
    r"\u009b31m\u0085\u0090",
    r"\u202e\u2066\u200f",
    r"\u007f\u0000",
];

#[test]
fn escape_sequences_in_every_kind_of_text() {
    for esc in ESCAPES {
        // Texts that end up in messages, labels and source lines.
        let records = [
            format!(r#"{{"fn":"status","args":{{"emoji":"🛠️","open":["6 decisions {esc}"]}}}}"#),
            format!(
                r#"{{"fn":"join","args":{{"call_id":"c1","label":"{esc}opencode-session-2026-10-10-long"}}}}"#
            ),
            format!(
                r#"{{"ts":"2026-10-10T10:00:01Z","fn":"next","result":{{"type":"user","speaker":"Oliver{esc}","text":"Delta{esc}, what time is it?","addressed_to":["Delta"]}}}}"#
            ),
            format!(
                r#"{{"ts":"2026-10-10T10:00:02Z","fn":"say","args":{{"text":"Delta, it is ten {esc} o'clock, and I also wanted to say that the build is green and the docs are updated and the release is tagged and everything else is fine too."}}}}"#
            ),
            format!(r#"{{"fn":"decide","args":{{"question":"What should we do about {esc}?"}}}}"#),
            format!(r#"{{"chat":"assistant","text":"done {esc}","turn_end":true}}"#),
            format!(r#"{{"tool":"shell{esc}","args":{{"command":"deploy {esc}"}}}}"#),
        ];
        let bytes = sandwich(records.join("\n").as_bytes());
        let (f, found) = lint(&bytes);
        still_linted(esc, &bytes, &found);
        assert!(found.len() > 3, "{esc}: {found:?}");
        let out = harness::pretty(&f);
        assert!(
            out.contains("\\e") || !esc.contains("001b"),
            "escaped form shown: {out}"
        );
    }
    // Raw (unescaped) controls make a line invalid JSON; it is shown in its
    // source line, escaped.
    for raw in [
        "\x1b[2J",
        "\x1b]0;t\x07",
        "\u{9b}1m",
        "\u{202e}",
        "\x7f",
        "\x08",
    ] {
        let rec = format!(r#"{{"fn":"say","args":{{"text":"a{raw}b"}}}}"#);
        let bytes = sandwich(rec.as_bytes());
        let (f, found) = lint(&bytes);
        still_linted(&format!("{raw:?}"), &bytes, &found);
        // Whether the line is broken (C0) or not (DEL, C1, bidi), the
        // pretty output holds nothing raw: the harness checked it.
        let _ = harness::pretty(&f);
    }
}

#[test]
fn escape_sequences_in_the_other_inputs() {
    let linter = harness::linter();
    for esc in [
        "\x1b[2J",
        "\x1b]0;pwned\x07",
        "\u{9b}31m",
        "\u{202e}",
        "\x07",
    ] {
        let inputs: Vec<(&str, String)> = vec![
            (
                "room.txt",
                format!("# lang: en\n# human: Oliver{esc}\n# agents: opencode, Promo\n[10:00:00] Oliver: Delta, what time is it?\n[10:00:01] Promo{esc}: Delta, it is ten {esc}.\n[10:00:02] opencode: On it {esc}\n"),
            ),
            (
                "trace.jsonl",
                format!(
                    "{}\n{}\n",
                    json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"join","arguments":{"label":format!("{esc}opencode-session-2026-10-10")}}}),
                    json!({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":format!("{esc}not json")}]}})
                ),
            ),
            (
                "board.json",
                json!({"label": format!("label{esc}"), "open": [format!("3 offene Fragen {esc}")], "doing": esc}).to_string(),
            ),
            (
                "SKILL.md",
                format!("# Skill {esc}\n```json\n{}\n```\n```python\nif ev['type'] == 'timeout': continue  # {esc}\n```\n", json!({"fn":"status","args":{"open":[format!("6 decisions {esc}")]}})),
            ),
            ("poll.sh", format!("#!/bin/sh\n# {esc}\njq 'select(.type != \"timeout\")'\n")),
            (
                "mcp.log",
                format!(
                    "2026-10-10T10:00:00.000Z [voicehook{esc}] [info] Message from client: {}\nstderr {esc}\n",
                    json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"join","arguments":{"call_id":"c1","label":format!("{esc}opencode-session-2026-10-10")}}})
                ),
            ),
            (
                "rec.jsonl",
                format!(
                    "# {esc}\n{}\n",
                    json!({"timestamp":"2026-10-10T12:00:00+02:00","direction":"request","message_type":"tool_call","tool_name":"voicehook_join","message":{"method":"tools/call","params":{"name":"voicehook_join","arguments":{"call_id":"c1","label":format!("{esc}opencode-session-2026-10-10")}}}})
                ),
            ),
            (
                "history.json",
                json!([{"request": json!({"method":"tools/call","params":{"name":"join","arguments":{"call_id":"c1","label":format!("{esc}opencode-session-2026-10-10")}}}).to_string(), "response": format!("{esc}")}]).to_string(),
            ),
            (
                "room.vtt",
                format!("WEBVTT\n\nNOTE human: Oliver{esc}\n\n00:00.000 --> 00:01.000\n<v Oliver>Delta, what time is it?\n\n00:01.000 --> 00:02.000\n<v Promo{esc}>Delta, it is ten {esc}.\n\n00:02.000 --> 00:03.000\nopencode: On it {esc}\n"),
            ),
            (
                "room.srt",
                format!("1\n00:00:00,000 --> 00:00:01,000\nOliver: Delta, what time is it?\n\n2\n00:00:01,000 --> 00:00:02,000\nPromo{esc}: Delta, it is ten {esc}.\n\n3\n00:00:0{esc} --> x\nopencode: On it {esc}\n"),
            ),
        ];
        for (name, text) in inputs {
            let f = harness::lint(&linter, name, text.as_bytes(), None)
                .unwrap_or_else(|e| panic!("{name} with {esc:?}: {e}"));
            assert!(
                !f.diagnostics.is_empty(),
                "{name} with {esc:?}: no finding, so nothing was rendered"
            );
        }
    }
}

/// The binary on every kind of case: exit 0 or 1, nothing on standard
/// error, no raw control character in the pretty output.
#[test]
fn the_binary_exits_0_or_1_on_each() {
    let dir = std::env::temp_dir().join(format!("callint-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("cut-end.jsonl", [BEFORE.as_bytes(), b"\n{\"fn\":\"say\",\"args\":{\"te"].concat()),
        ("nul.jsonl", sandwich(b"\0{\"fn\":\"leave\"}\0")),
        ("utf8.jsonl", sandwich(b"{\"fn\":\"say\",\"args\":{\"text\":\"\xff\"}}")),
        ("deep.jsonl", sandwich(&b"{\"a\":[".repeat(200_000))),
        ("types.jsonl", sandwich(br#"{"ts":7,"agent":[],"call":{},"thread":1,"fn":"join","args":{"label":5,"greet":[]}}"#)),
        ("ts.jsonl", sandwich(br#"{"ts":"2026-99-99T99:99:99Z","fn":"say","args":{"text":"hi"}}"#)),
        ("unknown.jsonl", sandwich(br#"{"fn":"next","result":{"type":"earthquake"}}"#)),
        ("esc.jsonl", sandwich("{\"fn\":\"say\",\"args\":{\"text\":\"\x1b]0;t\x07\u{9b}\u{202e}\"}}".as_bytes())),
        ("esc.txt", b"[10:00:00] Oliver\x1b[2J: Delta\x07, hi\n[10:00:01] Promo: Delta, hi\x1b]0;t\x07\n".to_vec()),
        ("esc.vtt", b"WEBVTT\n\n00:00.000 --> 00:01.000\n<v Oliver\x1b[2J>Delta\x07, hi\n\n00:01.000 --> 00:02.000\n<v Promo>Delta, hi\x1b]0;t\x07\n".to_vec()),
        ("bad.srt", b"1\n00:00:01,000 --> \xff\nA: \x1b[2J\n\nno cue\n".to_vec()),
        ("cut.jsonl.gz", gz_cut(&sandwich(b"{\"fn\":\"leave\"}"))),
        ("junk.jsonl.zst", [&[0x28, 0xb5, 0x2f, 0xfd][..], &[0xff; 64]].concat()),
        ("app.log", b"2026-10-10 10:00:00 INFO \x1b[31mstarted\n2026-10-10 10:00:01 WARN slow\n".to_vec()),
    ];
    for (name, bytes) in &cases {
        std::fs::write(dir.join(name), bytes).unwrap();
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_callint"))
            .args(["check", name, "--format", "pretty", "--color", "never"])
            .current_dir(&dir)
            .output()
            .unwrap();
        let code = o.status.code();
        assert!(code == Some(0) || code == Some(1), "{name}: exit {code:?}");
        assert!(
            o.stderr.is_empty(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(harness::raw_control(&out), None, "{name}: {out:?}");
        assert!(out.contains(name), "{name}: a finding is shown: {out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `bytes` gzipped and cut off before the end.
fn gz_cut(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    let all = e.finish().unwrap();
    all[..all.len() - 12].to_vec()
}

/// Captions and compressed files, broken every way: every invariant
/// holds, and something is said about each.
#[test]
fn broken_captions_and_compressed_files() {
    let linter = harness::linter();
    let log = sandwich(b"{\"fn\":\"leave\"}");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("a.vtt", b"WEBVTT\n\n-->\n<v".to_vec()),
        (
            "a.vtt",
            b"WEBVTT\n\n00:00.000 --> 00:01.000\n<v \xff>x\n\nA: hi\n".to_vec(),
        ),
        (
            "a.vtt",
            b"no signature\n\n00:00.000 --> 00:01.000\nA: &#x110000; &amp\n".to_vec(),
        ),
        (
            "a.srt",
            b"1\n-->\nNOTE agents: ,,,\n\n2\n99:99:99,999 --> 0\n{\\an8\n".to_vec(),
        ),
        (
            "a.srt",
            "1\n00:00:01,000 --> 00:00:02,000\n- Ä: ü\n>> \n\n"
                .repeat(500)
                .into_bytes(),
        ),
        ("a.jsonl.gz", gz_cut(&log)),
        ("a.jsonl.gz", [&[0x1f, 0x8b, 8, 0][..], &[0; 40]].concat()),
        ("a.jsonl.gz", vec![0x1f, 0x8b]),
        ("a.vtt.zst", vec![0x28, 0xb5, 0x2f, 0xfd, 0x00]),
        (
            "a.jsonl.zst",
            [&[0x28, 0xb5, 0x2f, 0xfd][..], &[0xff; 64]].concat(),
        ),
        (
            "a.jsonl.zst",
            vec![0x50, 0x2a, 0x4d, 0x18, 0xff, 0xff, 0xff, 0xff, 1],
        ),
    ];
    for (name, bytes) in &cases {
        let f = harness::lint(&linter, name, bytes, None)
            .unwrap_or_else(|e| panic!("{name} {bytes:?}: {e}"));
        assert!(
            !f.diagnostics.is_empty(),
            "{name} {bytes:?}: nothing said about a broken file"
        );
    }
}

/// A log naming thousands of speakers, all alike ("Agent 1", "Agent 2"
/// ...): each is still found ambiguous, but beside at most three others,
/// so the findings grow with the speakers, not with their pairs; and a
/// request the recorder makes of no one names a few of them, not all.
#[test]
fn thousands_of_speakers_alike() {
    let n = 2_000;
    let mut log = String::from(
        r#"{"ts":"2026-10-10T09:00:00.000Z","fn":"join","args":{"call_id":"c","label":"Kit"},"result":{"status":"joined","context":{"lang":"en"}}}"#,
    );
    log.push('\n');
    for i in 0..n {
        let s = i / 10;
        log.push_str(&format!(
            r#"{{"ts":"2026-10-10T09:{:02}:{:02}.000Z","fn":"next","result":{{"type":"timeout","operators_said":[{{"speaker":"Agent {i}","text":"The build is green."}}]}}}}"#,
            s / 60 % 60,
            s % 60
        ));
        log.push('\n');
    }
    log.push_str(
        r#"{"ts":"2026-10-10T09:05:00.000Z","fn":"say","args":{"text":"Can you check the logs?"}}"#,
    );
    log.push('\n');
    // Every finding listed: none summed up after the first hundred.
    let all = callint::lint::config::Config::parse("max-repeats = 0", None).unwrap();
    let f = callint::lint::engine::Linter::new(&all, None, &[])
        .unwrap()
        .lint("many.jsonl", log.as_bytes().to_vec());
    let ambiguous: Vec<_> = f
        .diagnostics
        .iter()
        .filter(|d| d.rule == "ambiguous-labels")
        .collect();
    assert!(ambiguous.len() >= n - 1, "{}", ambiguous.len());
    assert!(ambiguous.len() <= 3 * n, "{}", ambiguous.len());
    let request = f
        .diagnostics
        .iter()
        .find(|d| d.rule == "unaddressed-request")
        .expect("the say asks no one by name");
    let named = &request.primary.text;
    let named = named.as_deref().unwrap_or_default();
    assert!(named.contains("others could each take it"), "{named}");
    assert!(named.len() < 200, "{named}");
}

/// The recorders' shapes (Claude Desktop logs, mcp-debug recordings,
/// Inspector history, a `tee` half) with hostile bytes inside: every
/// invariant holds, and a call before them is still linted.
#[test]
fn hostile_recordings() {
    use callint::input::Recorder;
    let linter = harness::linter();
    let status = json!({"method":"tools/call","params":{"name":"status","arguments":{"emoji":"\u{1F6E0}","open":["Fix login, update docs and tag release"]}},"jsonrpc":"2.0","id":1});
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let huge = format!(
        "{{\"method\":\"tools/call\",\"x\":\"{}\"}}",
        "a".repeat(3_000_000)
    );
    let middles: Vec<Vec<u8>> = vec![
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"res".to_vec(),
        b"\xff\xfe\x00 \x1b[2J".to_vec(),
        deep.clone().into_bytes(),
        huge.clone().into_bytes(),
        b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/call\",\"params\":{\"name\":[]}}"
            .to_vec(),
    ];
    for middle in &middles {
        let text = String::from_utf8_lossy(middle);
        let cases: Vec<(Recorder, Vec<u8>)> = vec![
            (
                Recorder::ClaudeDesktop,
                [
                    format!("2026-10-10T10:00:00.000Z [voicehook] [info] Message from client: {status}\n").as_bytes(),
                    b"2026-10-10T10:00:00.500Z [voicehook] [info] Message from server: ",
                    middle,
                    b"\n",
                    middle,
                    b"\n",
                ]
                .concat(),
            ),
            (
                Recorder::McpDebug,
                [
                    format!("# MCP Recording Session\n{}\n", json!({"timestamp":"2026-10-10T12:00:00+02:00","direction":"request","message_type":"tool_call","tool_name":"voicehook_status","message":status})).as_bytes(),
                    middle,
                    b"\n",
                ]
                .concat(),
            ),
            (
                Recorder::Inspector,
                json!([{"request": status.to_string()}, {"request": text, "response": text}])
                    .to_string()
                    .into_bytes(),
            ),
            (
                Recorder::Tee,
                [format!("{status}\n").as_bytes(), middle, b"\n"].concat(),
            ),
        ];
        for (r, bytes) in cases {
            let f = harness::lint(&linter, "input", &bytes, Some(Format::Recording(r)))
                .unwrap_or_else(|e| panic!("{r:?}: invariant broken: {e}"));
            assert!(
                f.diagnostics.iter().any(|d| d.rule == "board-bundle"),
                "{r:?}: the call before the hostile part is no longer linted: {:#?}",
                f.diagnostics
            );
        }
    }
}

/// Agent clients' session files broken in the ways a real one breaks: a
/// line cut off in the middle (a client killed while writing) and at the
/// end, an output without its call and a call without its output, an
/// output that is no JSON, a line that is no object, a line type that does
/// not exist yet. Each gets a diagnostic or a reasoned skip; the rest of
/// the session is still linted.
#[test]
fn session_files_broken_in_every_way() {
    let linter = harness::linter();
    let codex =
        std::fs::read_to_string(common::root().join("corpus/seed-incident-codex/opencode.jsonl"))
            .unwrap();
    let mut lines: Vec<String> = codex.lines().map(str::to_string).collect();
    let join_line = lines
        .iter()
        .position(|l| l.contains("opencode-session-2026-10-10"))
        .unwrap();
    let extra = [
        // cut off in the middle
        r#"{"timestamp":"2026-10-10T10:04:00.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__vh__say","argu"#.to_string(),
        // an output whose call is not in the file: skipped
        r#"{"timestamp":"2026-10-10T10:04:00.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"gone","output":"{\"say_id\":\"s0\"}"}}"#.to_string(),
        // a call whose output never came: kept, without an answer
        r#"{"timestamp":"2026-10-10T10:04:00.200Z","type":"response_item","payload":{"type":"function_call","name":"mcp__vh__activity","arguments":"{\"text\":\"Listening\"}","call_id":"open"}}"#.to_string(),
        // an answer that is no JSON: the server's failure
        r#"{"timestamp":"2026-10-10T10:04:00.300Z","type":"response_item","payload":{"type":"function_call","name":"mcp__vh__show","arguments":"{\"panel\":\"board\"}","call_id":"nj"}}"#.to_string(),
        r#"{"timestamp":"2026-10-10T10:04:00.400Z","type":"response_item","payload":{"type":"function_call_output","call_id":"nj","output":"upstream timed out"}}"#.to_string(),
        // no object, and a type from the future
        "[\"not\", \"a\", \"line\"]".to_string(),
        r#"{"timestamp":"2026-10-10T10:04:00.500Z","type":"hologram","payload":{"type":"x"}}"#.to_string(),
        "\u{1b}[2J{\"timestamp\":".to_string(),
    ];
    let at = join_line + 3;
    for (k, l) in extra.iter().enumerate() {
        lines.insert(at + k, l.clone());
    }
    let mut text = lines.join("\n");
    text.push_str("\n{\"timestamp\":\"2026-10-10T10:12:00.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_mess");
    let f = harness::lint(
        &linter,
        "rollout.jsonl",
        text.as_bytes(),
        Some(Format::Session(callint::input::Client::Codex)),
    )
    .unwrap_or_else(|e| panic!("invariant broken: {e}"));
    let index = LineIndex::new(&f.source);
    let found: Vec<(usize, &str)> = f
        .diagnostics
        .iter()
        .map(|d| (resolve(&f.source, &index, &d.primary.at).line, d.rule))
        .collect();
    let invalid: Vec<usize> = found
        .iter()
        .filter(|(_, r)| *r == "invalid-record")
        .map(|(l, _)| *l)
        .collect();
    // the cut line, the list, the escape-led line, the cut last line
    let n = text.lines().count();
    assert_eq!(invalid, [at + 1, at + 6, at + 8, n], "{found:?}");
    let last = f
        .diagnostics
        .iter()
        .find(|d| resolve(&f.source, &index, &d.primary.at).line == n)
        .unwrap();
    assert!(last.message.contains("cut off"), "{}", last.message);
    // the rest is still linted: the refused join and the participant's edit
    assert!(
        found.contains(&(join_line + 1, "label-too-long")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|(_, r)| *r == "participant-acted"),
        "{found:?}"
    );

    // an export cut anywhere: never a panic, and what came before the cut
    // is read
    let export =
        std::fs::read(common::root().join("corpus/seed-incident-opencode/opencode.json")).unwrap();
    let fmt = Some(Format::Session(callint::input::Client::Opencode));
    for cut in (0..export.len()).step_by(997) {
        let f = harness::lint(&linter, "s.json", &export[..cut], fmt)
            .unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        let invalid = f
            .diagnostics
            .iter()
            .filter(|d| d.rule == "invalid-record")
            .count();
        assert!(invalid <= 1, "cut at {cut}: {:#?}", f.diagnostics);
    }
    let half = harness::lint(&linter, "s.json", &export[..export.len() / 2], fmt).unwrap();
    assert!(half.diagnostics.iter().any(|d| d.rule == "label-too-long"));
    assert!(half
        .diagnostics
        .iter()
        .any(|d| d.rule == "invalid-record" && d.message.contains("cut off")));
}

/// Run the binary on `name` in `dir` with `args`: exit 0 or 1, nothing on
/// standard error (no panic), and no raw control character out.
fn binary_holds(dir: &std::path::Path, args: &[&str]) -> String {
    let o = common::callint_in(dir, args);
    let code = o.status.code();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        code == Some(0) || code == Some(1),
        "{args:?}: exit {code:?}: {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    let out = common::stdout(&o);
    assert_eq!(harness::raw_control(&out), None, "{args:?}: {out:?}");
    out
}

/// An `&` that may start a character reference, with a character of
/// several bytes where the reference's window of bytes ends: in a cue of
/// SRT and WebVTT and in a text transcript, through `check` in every output
/// and `report`.
#[test]
fn a_reference_cut_inside_a_character() {
    let dir = common::scratch();
    let cues = [
        "&только можно.",
        "&aaaaaaaaaaé",
        "&#1234567ш;",
        "&ш",
        "&amp;ш&",
    ];
    let mut files = Vec::new();
    for (k, cue) in cues.iter().enumerate() {
        let srt = format!("1\n00:00:01,000 --> 00:00:02,000\n{cue}\n");
        let vtt = format!("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v Ann>{cue}\n");
        let txt = format!("[00:00:01] Ann: {cue}\n");
        for (ext, text) in [("srt", srt), ("vtt", vtt), ("txt", txt)] {
            let name = format!("c{k}.{ext}");
            std::fs::write(dir.join(&name), text).unwrap();
            files.push(name);
        }
    }
    // The file the fault was first seen on, byte for byte (58 bytes).
    let first = "1\n00:00:01,000 --> 00:00:02,000\n&только можно.\n";
    assert_eq!(first.len(), 58);
    std::fs::write(dir.join("first.srt"), first).unwrap();
    files.push("first.srt".into());
    for name in &files {
        for format in [
            "concise", "pretty", "json", "sarif", "github", "gitlab", "junit",
        ] {
            binary_holds(
                &dir,
                &[
                    "check",
                    "--no-cache",
                    name,
                    "--format",
                    format,
                    "--color",
                    "never",
                ],
            );
        }
        binary_holds(&dir, &["report", name]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Inputs whose names and texts are a megabyte long (as
/// scripts/huge-names.sh writes them, smaller): every output of `check`
/// and `report` holds a few hundred characters of each, not a copy, and
/// the name is itself said once where the reader sees it.
#[test]
fn huge_names_and_texts_are_cut_in_every_output() {
    let n = 1 << 20;
    let words = "Bolt Sam ".repeat(n / 9);
    let word = "b".repeat(n);
    let said = "The staging build is green and every integration test passes now.";
    let join = r#"{"ts":"2026-10-10T10:00:00.000Z","call":"c1","fn":"join","args":{"call_id":"c1","label":"Kit","greet":true},"result":{"status":"joined","context":{"lang":"en"}}}"#;
    let greet = r#"{"ts":"2026-10-10T10:00:01.000Z","call":"c1","fn":"say","args":{"text":"Hi, this is Kit, I am in and listening."}}"#;
    let timeout = |who: &str, text: &str| {
        format!(
            r#"{{"ts":"2026-10-10T10:00:10.000Z","call":"c1","fn":"next","result":{{"type":"timeout","operators_said":[{{"speaker":"{who}","text":"{text}"}}]}}}}"#
        )
    };
    let say = format!(
        r#"{{"ts":"2026-10-10T10:00:12.000Z","call":"c1","fn":"say","args":{{"text":"{said}"}}}}"#
    );
    let cases: Vec<(&str, String)> = vec![
        ("repeat.jsonl", format!("{join}\n{greet}\n{}\n{say}\n", timeout(&words, said))),
        ("speaker.jsonl", format!("{join}\n{greet}\n{}\n", timeout(&word, "ok"))),
        (
            "label.jsonl",
            format!("{}\n{greet}\n", join.replace("\"label\":\"Kit\"", &format!("\"label\":\"{words}\""))),
        ),
        ("human.jsonl", format!("{{\"meta\":{{\"format\":1,\"human\":\"{word}\"}}}}\n{join}\n{greet}\n")),
        ("board.json", format!("{{\"label\":\"{word}\",\"emoji\":\"🛠️\",\"doing\":\"Release\",\"open\":[\"Tag 2.4\"],\"done\":[]}}\n")),
        ("prompt.md", format!("# Join\n\n```json\n{{\"call_id\": \"c\", \"label\": \"{words}\", \"greet\": true}}\n```\n")),
        ("timing.vtt", format!("WEBVTT\n\n{} --> 00:00:02.000\n<v Ann>Kit, is the build green?\n", "\\".repeat(n))),
        ("voice.vtt", format!("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v {words}>Kit, is the build green?\n")),
    ];
    let dir = common::scratch();
    for (name, text) in &cases {
        std::fs::write(dir.join(name), text).unwrap();
        for format in ["concise", "json", "pretty", "sarif"] {
            let out = binary_holds(
                &dir,
                &[
                    "check",
                    "--no-cache",
                    "--no-config",
                    name,
                    "--format",
                    format,
                    "--color",
                    "never",
                ],
            );
            // SARIF carries every rule's page besides the findings.
            let most = if format == "sarif" { 400_000 } else { 40_000 };
            assert!(
                out.len() < most,
                "{name} --format {format}: {} bytes",
                out.len()
            );
            if *name == "repeat.jsonl" {
                assert!(out.contains("repeated-say"), "{format}: {out}");
                assert!(out.contains("…"), "{format}: nothing was cut: {out}");
            }
            for piece in [&words[..1000], &word[..1000], &"\\".repeat(1000)[..]] {
                assert!(
                    !out.contains(piece),
                    "{name} --format {format}: a name copied whole"
                );
            }
        }
        let out = binary_holds(
            &dir,
            &["report", "--no-config", name, "--html", "page.html"],
        );
        assert!(out.len() < 40_000, "{name} report: {} bytes", out.len());
        let page = std::fs::read(dir.join("page.html")).unwrap();
        assert!(
            page.len() < 100_000,
            "{name} report --html: {} bytes",
            page.len()
        );
    }
    // The speaker of a megabyte is said once, where it is.
    let out = binary_holds(
        &dir,
        &[
            "check",
            "--no-cache",
            "--no-config",
            "speaker.jsonl",
            "--format",
            "concise",
        ],
    );
    assert!(
        out.contains("speaker.jsonl:3:114: error[invalid-record]"),
        "{out}"
    );
    assert!(out.contains("is a name of 1048576 characters"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
