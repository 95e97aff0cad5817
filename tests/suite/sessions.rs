//! Agents' own session files: Claude Code session transcripts.
//!
//! - every sample the corpus and these tests hold is a valid entry of the
//!   public Claude Code session schema;
//! - broken sessions (cut off, results without calls and calls without
//!   results, answers that are not JSON, sidechains without a parent,
//!   unknown entry types) give a pointed diagnostic or a reasoned skip;
//! - a coding session that never used voicehook is quiet, through the CLI;
//! - the voicehook server is found by its calls or named in callint.toml;
//! - a session of two calls is judged call by call.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::{self, callint_in, root, scratch, stdout};

fn schema() -> jsonschema::Validator {
    let path = root().join("tests/data/schemas/claude-code-session.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema)
        .expect("the session schema compiles")
}

fn assert_entries_valid(v: &jsonschema::Validator, name: &str, text: &str) {
    for (k, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let doc: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{name}:{}: not JSON: {e}", k + 1));
        let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(
            errors.is_empty(),
            "{name}:{} breaks the session schema:\n{}",
            k + 1,
            errors.join("\n")
        );
    }
}

/// One session, written entry by entry as the client writes them.
struct Session {
    lines: Vec<String>,
    n: u32,
    parent: Option<String>,
    clock: u32,
}

impl Session {
    fn new() -> Session {
        Session {
            lines: Vec::new(),
            n: 0,
            parent: None,
            clock: 0,
        }
    }

    fn uuid(&mut self) -> String {
        self.n += 1;
        format!("3f2a9c1e-5b7d-4e8f-9a0b-{:012x}", self.n)
    }

    fn ts(&mut self, step_ms: u32) -> String {
        self.clock += step_ms;
        let s = self.clock / 1000;
        format!(
            "2026-11-03T14:{:02}:{:02}.{:03}Z",
            s / 60 % 60,
            s % 60,
            self.clock % 1000
        )
    }

    fn entry(&mut self, kind: &str, message: Value, extra: Value, step_ms: u32) -> &mut Session {
        let uuid = self.uuid();
        let ts = self.ts(step_ms);
        let mut e = json!({
            "type": kind, "uuid": uuid, "parentUuid": self.parent, "sessionId":
            "3f2a9c1e-5b7d-4e8f-9a0b-aaaaaaaaaaaa", "timestamp": ts, "version": "2.1.144",
            "cwd": "/home/ines/shop", "isSidechain": false, "userType": "external",
            "message": message,
        });
        if let Value::Object(x) = extra {
            e.as_object_mut().unwrap().extend(x);
        }
        self.parent = Some(uuid);
        self.lines.push(e.to_string());
        self
    }

    fn user(&mut self, text: &str) -> &mut Session {
        self.entry(
            "user",
            json!({"role": "user", "content": text}),
            Value::Null,
            2000,
        )
    }

    fn assistant(&mut self, content: Value, stop: Option<&str>, extra: Value) -> &mut Session {
        let n = self.n;
        let message = json!({
            "model": "claude-opus-4-6", "id": format!("msg_01{n:022}"), "type": "message",
            "role": "assistant", "content": content, "stop_reason": stop,
            "stop_sequence": null, "usage": {"input_tokens": 900, "output_tokens": 30},
        });
        self.entry("assistant", message, extra, 700)
    }

    fn say(&mut self, text: &str) -> &mut Session {
        self.assistant(
            json!([{"type": "text", "text": text}]),
            Some("end_turn"),
            Value::Null,
        )
    }

    fn call(&mut self, id: &str, name: &str, input: Value) -> &mut Session {
        self.assistant(
            json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
            Some("tool_use"),
            Value::Null,
        )
    }

    fn result(&mut self, id: &str, text: &str, is_error: bool) -> &mut Session {
        let content = json!([{"type": "text", "text": text}]);
        self.entry(
            "user",
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error}
            ]}),
            json!({"toolUseResult": content}),
            900,
        )
    }

    fn raw(&mut self, line: &str) -> &mut Session {
        self.lines.push(line.to_string());
        self
    }

    fn text(&self) -> String {
        self.lines.join("\n") + "\n"
    }
}

/// A participant's session: it joins the call `call` on server `server`
/// as `label`, greets, and later answers a question the human put to
/// someone else.
fn participant(server: &str, call: &str, label: &str) -> Session {
    let t = |f: &str| format!("mcp__{server}__{f}");
    let mut s = Session::new();
    s.user(&format!("Join call {call} and listen in, please."))
        .call(
            "toolu_01A",
            &t("join"),
            json!({"call_id": call, "label": label, "greet": true}),
        )
        .result(
            "toolu_01A",
            &json!({"status": "joined", "role": "participant", "context": {"lang": "en", "mode": "normal"}})
                .to_string(),
            false,
        )
        .call(
            "toolu_01B",
            &t("status"),
            json!({"emoji": "👂", "doing": "Listening", "open": [], "done": ["Joined the call"]}),
        )
        .result("toolu_01B", "{}", false)
        .call("toolu_01C", &t("activity"), json!({"text": "Joined, listening"}))
        .result("toolu_01C", "{}", false)
        .call("toolu_01D", &t("show"), json!({"panel": "board"}))
        .result("toolu_01D", "{}", false)
        .call("toolu_01E", &t("next"), json!({}))
        .result(
            "toolu_01E",
            &json!({"type": "user", "speaker": "Ines", "text": "Pico, is the cache warm?",
                    "addressed_to": ["Pico"], "addressed_to_you": false})
            .to_string(),
            false,
        )
        .call(
            "toolu_01F",
            &t("say"),
            json!({"text": "Yes, the cache is warm since noon."}),
        )
        .result(
            "toolu_01F",
            r#"{"say_id":"s1","say_status":"queued"}"#,
            false,
        );
    s
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn rules_of(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| Some(l.split_once('[')?.1.split_once(']')?.0.to_string()))
        .collect()
}

#[test]
fn every_session_sample_is_valid_against_the_public_schema() {
    let v = schema();
    let mut checked = 0;
    for case in common::corpus_cases() {
        for f in common::case_logs(&case) {
            let text = std::fs::read_to_string(&f).unwrap();
            if callint::input::detect(&f.to_string_lossy(), text.as_bytes())
                == callint::input::Format::Session(callint::input::Client::ClaudeCode)
            {
                assert_entries_valid(&v, &f.display().to_string(), &text);
                checked += 1;
            }
        }
    }
    assert!(checked >= 9, "only {checked} session files in the corpus");
    assert_entries_valid(&v, "participant", &participant("vh", "c-9", "Quill").text());
    // and the validator does reject a broken entry
    let bad = json!({"type": "assistant", "uuid": "x", "message": {}});
    assert!(v.iter_errors(&bad).next().is_some());
}

#[test]
fn the_server_is_found_by_its_calls_whatever_its_name() {
    for server in ["voicehook", "vh", "plugin:voicehook:voicehook", "calls-7"] {
        let f = common::lint(
            "s.jsonl",
            participant(server, "c-9", "Quill").text().as_bytes(),
            &[],
        );
        let rules: Vec<&str> = f.diagnostics.iter().map(|d| d.rule).collect();
        assert_eq!(rules, ["spoke-for-addressed"], "{server}: {rules:?}");
    }
}

#[test]
fn callint_toml_names_a_server_its_calls_do_not_reveal() {
    // Only say and next, with answers that show no voicehook shape.
    let mut s = Session::new();
    s.call(
        "toolu_01A",
        "mcp__room__say",
        json!({"text": "Hallo zusammen!"}),
    )
    .result("toolu_01A", "ok", false);
    let dir = scratch();
    write(&dir, "s.jsonl", &s.text());
    let o = callint_in(&dir, &["check", "s.jsonl", "--format", "concise"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(rules_of(&stdout(&o)).is_empty());
    write(&dir, "callint.toml", "servers = [\"room\"]\n");
    // Now the say is voicehook's; with no join it is judged as far as it
    // can be (no language without a call language): it is read.
    let o = callint_in(
        &dir,
        &["check", "s.jsonl", "--format", "json", "--exit-zero"],
    );
    let doc: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(doc["summary"]["records"], 1, "{doc}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_of_coding_sessions_is_quiet() {
    let dir = scratch();
    let project = dir.join(".claude/projects/-home-ines-shop");
    std::fs::create_dir_all(&project).unwrap();
    let mut coding = Session::new();
    coding
        .user("Fix the flaky test in the cart module.")
        .call(
            "toolu_01A",
            "Bash",
            json!({"command": "cargo test cart", "description": "Run the cart tests"}),
        )
        .result("toolu_01A", "test result: ok", false)
        .call(
            "toolu_01B",
            "mcp__github__create_issue",
            json!({"title": "Flaky cart test"}),
        )
        .result("toolu_01B", "{\"number\": 7}", false)
        .raw(r#"{"type":"progress","data":{"type":"bash_progress"},"uuid":"3f2a9c1e-5b7d-4e8f-9a0b-00000000ffff"}"#)
        .raw(r#"{"type":"some-future-entry","sessionId":"3f2a9c1e-5b7d-4e8f-9a0b-aaaaaaaaaaaa"}"#)
        .say("Fixed: the test waited on a clock.")
        // killed while writing its last line
        .raw(r#"{"type":"assistant","uuid":"3f2a9c1e-5b7d-4e8f-9a0b-00000000eeee","message":{"content":[{"type":"te"#);
    write(&project, "0a1b.jsonl", &coding.text());
    write(&project, "0a1c.jsonl", &coding.text());
    let o = callint_in(&dir, &["check", ".claude/projects", "--format", "concise"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(rules_of(&stdout(&o)).is_empty(), "{}", stdout(&o));
    // the same folder with one call in it reports that call only
    write(
        &project,
        "0a1d.jsonl",
        &participant("voicehook", "c-9", "Quill").text(),
    );
    let o = callint_in(&dir, &["check", ".claude", "--format", "concise"]);
    assert_eq!(
        rules_of(&stdout(&o)),
        ["spoke-for-addressed"],
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("0a1d.jsonl:"), "{}", stdout(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn broken_sessions_are_pointed_at_and_the_rest_is_linted() {
    let mut s = participant("vh", "c-9", "Quill");
    // a result whose call is not in the file (a resumed session): skipped
    s.result("toolu_01Z", "{\"say_id\":\"s0\"}", false)
        // an answer that is not JSON: the call is kept, without a result
        .call("toolu_01G", "mcp__vh__activity", json!({"text": "Noted the cache question"}))
        .result("toolu_01G", "done", false)
        // a sidechain whose parent is not in the file
        .raw(r#"{"type":"assistant","uuid":"3f2a9c1e-5b7d-4e8f-9a0b-00000000dddd","isSidechain":true,"agentId":"a77","timestamp":"2026-11-03T14:05:00.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01H","name":"mcp__vh__activity","input":{"text":"Checking the cache"}}]}}"#)
        // a line that is not JSON at all
        .raw("{not json")
        // a tool_use without its id
        .raw(r#"{"type":"assistant","uuid":"3f2a9c1e-5b7d-4e8f-9a0b-00000000cccc","message":{"role":"assistant","content":[{"type":"tool_use","name":"mcp__vh__say","input":{}}]}}"#)
        // a call never answered, and the file cut off inside the last line
        .call("toolu_01J", "mcp__vh__next", json!({}))
        .raw(r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01J","content":"{\"ty"#);
    let text = s.text();
    let f = common::lint("broken.jsonl", text.as_bytes(), &[]);
    let got: Vec<(usize, String)> = common::lines_and_rules(&f);
    let lines: Vec<&str> = text.lines().collect();
    let line_of = |needle: &str| lines.iter().position(|l| l.contains(needle)).unwrap() + 1;
    let want = vec![
        (12, "spoke-for-addressed".to_string()),
        (line_of("{not json"), "invalid-record".to_string()),
        (line_of("00000000cccc"), "invalid-record".to_string()),
        (lines.len(), "invalid-record".to_string()),
    ];
    assert_eq!(got, want, "{:#?}", f.diagnostics);
    let last = f.diagnostics.last().unwrap();
    assert!(last.message.contains("cut off"), "{}", last.message);
    // the calls around the broken lines were still read
    assert!(f.records >= 10, "{}", f.records);
}

#[test]
fn a_session_of_two_calls_is_judged_call_by_call() {
    // The same participant in two calls: in the first, German is the call
    // language and its English line is wrong; in the second it is right.
    let mut s = Session::new();
    let join = |s: &mut Session, id: &str, call: &str, lang: &str| {
        s.call(
            id,
            "mcp__vh__join",
            json!({"call_id": call, "label": "Quill", "greet": true}),
        )
        .result(
            id,
            &json!({"status": "joined", "role": "participant", "context": {"lang": lang}})
                .to_string(),
            false,
        );
    };
    s.user("Join c-1 please.");
    join(&mut s, "toolu_01A", "c-1", "de");
    s.call(
        "toolu_01B",
        "mcp__vh__say",
        json!({"text": "The deployment finished and every check is green."}),
    )
    .result(
        "toolu_01B",
        r#"{"say_id":"s1","say_status":"queued"}"#,
        false,
    )
    .user("Now join c-2.");
    join(&mut s, "toolu_01C", "c-2", "en");
    s.call(
        "toolu_01D",
        "mcp__vh__say",
        json!({"text": "The deployment finished and every check is green."}),
    )
    .result(
        "toolu_01D",
        r#"{"say_id":"s2","say_status":"queued"}"#,
        false,
    );
    let text = s.text();
    let f = common::lint("two.jsonl", text.as_bytes(), &["wrong-language"]);
    let got = common::lines_and_rules(&f);
    assert_eq!(got, [(4, "wrong-language".to_string())], "{got:?}");
}

/// The seed incident's opencode side in every shape real tools write for
/// it, in one folder: `callint check` over the folder reads each file as
/// what it is, finds opencode's breaks in each, and reports no valid file
/// as broken.
#[test]
fn one_folder_of_every_shape_finds_the_call_in_each() {
    let dir = scratch();
    let corpus = root().join("corpus");
    let files = [
        (
            "seed-incident-claude/opencode.jsonl",
            "claude-session.jsonl",
        ),
        (
            "seed-incident-codex/opencode.jsonl",
            "rollout-opencode.jsonl",
        ),
        (
            "seed-incident-opencode/opencode.json",
            "opencode-export.json",
        ),
        (
            "seed-incident-desktop/mcp-server-vh.log",
            "mcp-server-vh.log",
        ),
        ("seed-incident-mcp-debug/opencode.jsonl", "mcp-debug.jsonl"),
        (
            "seed-incident-inspector/opencode.json",
            "inspector-history.json",
        ),
        ("seed-incident-vtt/transcript.vtt", "room.vtt"),
        ("seed-incident-srt/transcript.srt", "room.srt"),
    ];
    for (from, to) in files {
        std::fs::copy(corpus.join(from), dir.join(to)).unwrap();
    }
    let o = callint_in(&dir, &["check", ".", "--no-config", "--format", "json"]);
    let doc: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(doc["summary"]["files"], files.len(), "{doc}");
    let found: Vec<(String, String, String)> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let file = d["file"].as_str().unwrap();
            let name = file.rsplit(['/', '\\']).next().unwrap().to_string();
            let agent = d["agent"].as_str().unwrap_or_default().to_string();
            (name, d["rule"].as_str().unwrap().to_string(), agent)
        })
        .collect();
    assert!(!found.iter().any(|f| f.1 == "invalid-record"), "{found:#?}");
    for (_, name) in files {
        // opencode's German in an English call shows in every shape
        assert!(
            found
                .iter()
                .any(|f| f.0 == name && f.1 == "wrong-language" && f.2 == "opencode"),
            "{name}: {found:#?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `(line, rule)` of every finding `callint check` prints for `path`.
fn lines_and_rules(path: &str) -> Vec<(usize, String)> {
    let o = common::callint(&["check", "--no-cache", path, "--format", "concise"]);
    stdout(&o)
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix(path)?.strip_prefix(':')?;
            let line: usize = rest.split(':').next()?.parse().ok()?;
            let rule = rest.split('[').nth(1)?.split(']').next()?;
            Some((line, rule.to_string()))
        })
        .collect()
}

/// A finding about a record points at the same record in the native log
/// and in the Claude Code session of the same call: in the session, at the
/// call's `tool_use` entry, also where what it is about (the human's line,
/// a name in `operators_said` or in the server's lists) is in the
/// `tool_result` entry after it.
#[test]
fn findings_point_at_the_same_record_in_a_session_as_in_the_native_log() {
    let native = lines_and_rules("corpus/session-anchors/vela.jsonl");
    let session_path = "corpus/session-anchors-claude/vela.jsonl";
    let session = lines_and_rules(session_path);
    assert_eq!(native.len(), 3, "{native:?}");
    let rules = |v: &[(usize, String)]| v.iter().map(|x| x.1.clone()).collect::<Vec<_>>();
    assert_eq!(rules(&native), rules(&session));
    let text = std::fs::read_to_string(root().join(session_path)).unwrap();
    let entries: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The record of each native finding, and the session's entry.
    let native_text =
        std::fs::read_to_string(root().join("corpus/session-anchors/vela.jsonl")).unwrap();
    let records: Vec<Value> = native_text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for ((n, rule), (s, _)) in native.iter().zip(&session) {
        let entry = &entries[s - 1];
        let block = &entry["message"]["content"][0];
        assert_eq!(block["type"], "tool_use", "{rule} at session line {s}");
        let function = block["name"].as_str().unwrap().rsplit("__").next().unwrap();
        assert_eq!(
            function,
            records[n - 1]["fn"],
            "{rule}: native line {n}, session line {s}"
        );
        let args = records[n - 1].get("args").cloned().unwrap_or(json!({}));
        assert_eq!(
            block["input"], args,
            "{rule}: native line {n}, session line {s}"
        );
    }
}
