//! Files of the shapes real clients, transcribers and tools write, through
//! the binary: a Codex rollout in the older layout, opencode's sessions as
//! its storage folder and its server keep them, a JSON-lines application
//! log; heard speech that does not say who is who; and what `report` makes
//! of a meeting's transcript.

use crate::common::{self, callint, callint_in, root, scratch, stdout};

use serde_json::Value;

/// `check --format json` over `args` (in `dir`): each finding's file name,
/// line, rule and message, and the exit status.
fn check_json(dir: &std::path::Path, args: &[&str]) -> (Vec<(String, u64, String, String)>, i32) {
    let mut all = vec!["check", "--no-config", "--format", "json"];
    all.extend_from_slice(args);
    let o = callint_in(dir, &all);
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&o), String::from_utf8_lossy(&o.stderr)));
    let found = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let file = d["file"].as_str().unwrap_or("");
            let name = file.rsplit(['/', '\\']).next().unwrap_or(file).to_string();
            (
                name,
                d["line"].as_u64().unwrap(),
                d["rule"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (found, o.status.code().unwrap_or(-1))
}

fn rules_of(found: &[(String, u64, String, String)]) -> Vec<(String, u64, String)> {
    found
        .iter()
        .map(|(f, l, r, _)| (f.clone(), *l, r.clone()))
        .collect()
}

const SHAPES: &str = "corpus/real-shapes";
const ROLLOUT: &str = "rollout-2026-10-10T10-00-00-5b1f9e20.jsonl";

#[test]
fn an_older_codex_rollout_is_read_as_codex() {
    let dir = root().join(SHAPES);
    let (found, _) = check_json(&dir, &[ROLLOUT]);
    // its calls are read: the refused join's label, at the function_call
    // line, and one note, at the first record (the user's message), that
    // no line carries a time
    assert_eq!(
        rules_of(&found),
        [
            (ROLLOUT.to_string(), 4, "no-times".to_string()),
            (ROLLOUT.to_string(), 6, "label-too-long".to_string()),
        ],
        "{found:#?}"
    );
    // as `--input-format codex` reads it
    let (forced, _) = check_json(&dir, &["--input-format", "codex", ROLLOUT]);
    assert_eq!(rules_of(&forced), rules_of(&found));
}

/// An opencode storage folder of one session: its info, two messages and
/// their parts, each a file, as opencode writes them (pretty-printed).
fn storage(dir: &std::path::Path) -> std::path::PathBuf {
    let s = dir.join("storage");
    let ses = "ses_5e6f7a8b9c0dAbCdEfGhIjKl";
    let write = |rel: String, v: Value| {
        let p = s.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, serde_json::to_string_pretty(&v).unwrap() + "\n").unwrap();
    };
    let t = |sec: u64| 1_791_626_400_000u64 + sec * 1000;
    write(
        format!("session/4b0ea68d7af9/{ses}.json"),
        serde_json::json!({"id": ses, "version": "0.15.8", "projectID": "4b0ea68d7af9",
            "directory": "/home/ines/shop", "title": "Release call",
            "time": {"created": t(0), "updated": t(40)}}),
    );
    write(
        format!("message/{ses}/msg_0001.json"),
        serde_json::json!({"id": "msg_0001", "sessionID": ses, "role": "user",
            "time": {"created": t(0)}}),
    );
    write(
        "part/msg_0001/prt_0001.json".into(),
        serde_json::json!({"id": "prt_0001", "sessionID": ses, "messageID": "msg_0001",
            "type": "text", "text": "Join the call c-st0r3d as opencode."}),
    );
    write(
        format!("message/{ses}/msg_0002.json"),
        serde_json::json!({"id": "msg_0002", "sessionID": ses, "role": "assistant",
            "time": {"created": t(1), "completed": t(40)}}),
    );
    write(
        "part/msg_0002/prt_0002.json".into(),
        serde_json::json!({"id": "prt_0002", "sessionID": ses, "messageID": "msg_0002",
            "type": "tool", "callID": "toolu_1", "tool": "voicehook_join",
            "state": {"status": "completed",
                "input": {"call_id": "c-st0r3d", "label": "opencode-storage-session-one", "greet": true},
                "output": "{\"status\":\"joined\",\"role\":\"participant\",\"context\":{\"lang\":\"en\"}}",
                "title": "", "metadata": {}, "time": {"start": t(2), "end": t(3)}}}),
    );
    write(
        "part/msg_0002/prt_0003.json".into(),
        serde_json::json!({"id": "prt_0003", "sessionID": ses, "messageID": "msg_0002",
            "type": "text", "text": "I joined the call.", "time": {"start": t(39), "end": t(40)}}),
    );
    // another tool's files beside them
    write(
        "project/4b0ea68d7af9.json".into(),
        serde_json::json!({"id": "4b0ea68d7af9", "worktree": "/home/ines/shop", "time": {"created": t(0)}}),
    );
    s
}

#[test]
fn opencode_sessions_are_read_as_opencode_keeps_them() {
    // the storage folder: the walk reads the session's files, and they are
    // read as one session; the finding is in the part that holds the call
    let dir = scratch();
    let s = storage(&dir);
    let (found, _) = check_json(&dir, &["storage"]);
    let part = std::fs::read_to_string(s.join("part/msg_0002/prt_0002.json")).unwrap();
    let label_line = part.lines().position(|l| l.contains("\"label\"")).unwrap() as u64 + 1;
    assert_eq!(
        rules_of(&found),
        [(
            "prt_0002.json".to_string(),
            label_line,
            "label-too-long".to_string()
        )],
        "{found:#?}"
    );
    assert!(
        found[0].3.contains("opencode-storage-session-one"),
        "{found:#?}"
    );
    // the messages as opencode's server lists them, and a session's info
    // alone (no call in it: one note says what it is)
    let shapes = root().join(SHAPES);
    let (found, _) = check_json(
        &shapes,
        &["opencode-messages.json", "ses_7a1b2c3d4effQx9LmN0pQr.json"],
    );
    let (info, messages): (Vec<_>, Vec<_>) = found
        .iter()
        .partition(|f| f.0 == "ses_7a1b2c3d4effQx9LmN0pQr.json");
    assert_eq!(info.len(), 1, "{found:#?}");
    assert_eq!((info[0].1, info[0].2.as_str()), (1, "invalid-record"));
    assert!(info[0].3.contains("session's info"), "{found:#?}");
    assert!(messages.iter().any(|f| f.2 == "long-say"), "{found:#?}");
    assert!(
        messages.iter().all(|f| f.2 != "invalid-record"),
        "{found:#?}"
    );
    // a folder walk does not skip them
    let (walked, _) = check_json(&shapes, &["."]);
    assert!(
        walked
            .iter()
            .any(|f| f.0 == "opencode-messages.json" && f.2 == "long-say"),
        "{walked:#?}"
    );
}

#[test]
fn a_json_lines_application_log_is_said_once_to_be_one() {
    let dir = root().join(SHAPES);
    let (found, status) = check_json(&dir, &["app-events.jsonl"]);
    assert_eq!(found.len(), 1, "{found:#?}");
    let (_, line, rule, message) = &found[0];
    assert_eq!((*line, rule.as_str()), (1, "invalid-record"));
    assert!(message.contains("JSON-lines application log"), "{message}");
    assert!(!message.contains("CSV"), "{message}");
    assert_eq!(status, 1);
}

const ROLES: &str = "corpus/roles-unknown";

#[test]
fn a_transcript_of_unknown_roles_is_told_once_and_judged_on_no_guess() {
    let dir = root().join(ROLES);
    // captions of no voicehook call: one note, and the run does not fail
    let (found, status) = check_json(&dir, &["lecture.vtt"]);
    assert_eq!(
        rules_of(&found),
        [("lecture.vtt".to_string(), 5, "unknown-roles".to_string())],
        "{found:#?}"
    );
    assert!(found[0].3.contains("voicehook call"), "{found:#?}");
    assert_eq!(status, 0);
    // a voicehook call (Delta speaks) that names nobody: one note, that
    // says which rules could not judge it
    let (found, status) = check_json(&dir, &["standup.txt"]);
    assert_eq!(
        rules_of(&found),
        [("standup.txt".to_string(), 1, "unknown-roles".to_string())],
        "{found:#?}"
    );
    assert!(found[0].3.contains("ack-not-addressed"), "{found:#?}");
    assert_eq!(status, 0);
    // told who is who by the configuration, the rules judge it: Kit's bare
    // "Okay." answers Jun, who addressed it
    let conf = scratch();
    std::fs::write(
        conf.join("callint.toml"),
        "human = \"Marta\"\nagents = [\"Kit\", \"Jun\"]\n",
    )
    .unwrap();
    std::fs::copy(dir.join("standup.txt"), conf.join("standup.txt")).unwrap();
    let o = callint_in(&conf, &["check", "--format", "json", "standup.txt"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rules: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert!(!rules.contains(&"unknown-roles"), "{rules:?}");
}

#[test]
fn report_files_findings_on_the_file_under_no_agent_and_hears_the_language() {
    let out_dir = scratch();
    let out = out_dir.join("report.html");
    let o = callint(&[
        "report",
        "--no-config",
        "corpus/report-meeting/weekly.txt",
        "--html",
        out.to_str().unwrap(),
    ]);
    let text = stdout(&o);
    let lang = text
        .lines()
        .find(|l| l.trim_start().starts_with("language"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(lang.contains("en"), "{lang}");
    assert!(!lang.contains("unknown"), "{lang}");
    let html = std::fs::read_to_string(&out).unwrap();
    // the transcript's unreadable line is the file's, under no agent
    let findings = &html[html.find("id=\"findings\"").expect("findings")..];
    let heads: Vec<(usize, &str)> = findings.match_indices("<h3>").collect();
    let row = findings
        .find("data-rule=\"invalid-record\"")
        .expect("the finding");
    let under = heads
        .iter()
        .rev()
        .find(|(i, _)| *i < row)
        .map(|(i, _)| &findings[*i..(*i + 200).min(findings.len())])
        .unwrap();
    assert!(under.contains("No participant"), "{under}");
    assert!(common::root().join("corpus/report-meeting").is_dir());
}
