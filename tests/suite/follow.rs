//! `callint check --follow`: a log written in steps, its findings read as
//! they appear, through truncation, until Ctrl-C.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{root, scratch};

/// Findings read until `want` is among them or time runs out.
fn until(rx: &Receiver<Value>, want: impl Fn(&Value) -> bool) -> Vec<Value> {
    let end = Instant::now() + Duration::from_secs(20);
    let mut got = Vec::new();
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(v) => {
                let done = want(&v);
                got.push(v);
                if done {
                    return got;
                }
            }
            Err(_) => break,
        }
    }
    panic!("not found among {got:#?}");
}

fn is(v: &Value, rule: &str, line: u64) -> bool {
    v["rule"] == rule && v["line"] == line
}

#[test]
fn findings_appear_as_the_log_grows() {
    let dir = scratch();
    let log = dir.join("live.jsonl");
    let src = std::fs::read_to_string(root().join("corpus/seed-incident/opencode.jsonl")).unwrap();
    let lines: Vec<&str> = src.lines().collect();
    let part = |r: std::ops::Range<usize>| lines[r].join("\n") + "\n";
    std::fs::write(&log, part(0..5)).unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_callint"))
        .args([
            "check",
            "--follow",
            "--no-config",
            "--format",
            "jsonl",
            "--poll-ms",
            "30",
        ])
        .arg(&log)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            tx.send(serde_json::from_str::<Value>(&l).expect("one JSON object a line"))
                .unwrap();
        }
    });

    // the join with the label the server refused
    let first = until(&rx, |v| is(v, "label-too-long", 4));
    assert_eq!(first.len(), 1, "{first:#?}");

    // more lines, the last one still being written
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    let cut = lines[20];
    write!(f, "{}{}", part(5..20), &cut[..cut.len() / 2]).unwrap();
    f.flush().unwrap();
    let second = until(&rx, |v| is(v, "contradicted-claim", 16));
    let rules: Vec<(&str, u64)> = second
        .iter()
        .map(|v| (v["rule"].as_str().unwrap(), v["line"].as_u64().unwrap()))
        .collect();
    assert!(rules.contains(&("wrong-language", 6)), "{rules:?}");
    // the first finding is not shown again, the half-written line is not
    // broken, and the join's greeting, written meanwhile, was never missing
    for (rule, line) in &rules {
        assert_ne!(*rule, "invalid-record");
        assert_ne!(*rule, "no-greeting");
        assert_ne!((*rule, *line), ("label-too-long", 4));
    }

    // truncated and written again: its findings come again
    std::fs::write(&log, part(0..4)).unwrap();
    until(&rx, |v| is(v, "label-too-long", 4));

    // Ctrl-C: a summary, and the status of the findings shown
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    let status = child.wait().unwrap();
    assert!(err.contains("truncated"), "{err}");
    assert!(
        err.contains("followed 1 file:") && err.contains("error"),
        "{err}"
    );
    assert_eq!(status.code(), Some(1), "{err}");
}

#[test]
fn follow_takes_files_and_writes_lines() {
    let o = crate::common::callint(&["check", "corpus", "--follow"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("follows files"));
    // --follow writes concise lines or JSON lines, to standard output
    let o = crate::common::callint(&["check", "x.jsonl", "--follow", "--format", "sarif"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("concise or jsonl"));
}
