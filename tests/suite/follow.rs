//! `callint check --follow`: a log written in steps is linted as it grows,
//! each new finding printed once as it appears; a truncated log is read
//! again from its start; Ctrl-C prints the summary.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{root, scratch};

/// The seed incident's opencode log, line by line.
fn seed_lines() -> Vec<String> {
    std::fs::read_to_string(root().join("corpus/seed-incident/opencode.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn append(path: &std::path::Path, lines: &[String]) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
}

/// Lines of output until one contains `want`, or none for 20 s.
fn until(rx: &mpsc::Receiver<String>, want: &str, seen: &mut Vec<String>) {
    loop {
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(l) => {
                let hit = l.contains(want);
                seen.push(l);
                if hit {
                    return;
                }
            }
            Err(_) => panic!("no line with {want:?}; got {seen:#?}"),
        }
    }
}

#[test]
fn a_growing_log_is_linted_as_it_is_written() {
    let dir = scratch();
    let log = dir.join("live.jsonl");
    let lines = seed_lines();
    append(&log, &lines[..4]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_callint"))
        .args(["check", "--follow", "--no-config", "--format", "concise"])
        .arg(&log)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    // the refused join of the first lines
    until(&rx, ":4:", &mut seen);
    assert!(seen.last().unwrap().contains("label-too-long"), "{seen:#?}");
    // a line written in two parts is judged once it is whole
    let greeting = &lines[5];
    let (a, b) = greeting.split_at(greeting.len() / 2);
    append(&log, &lines[4..5]);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .unwrap()
        .write_all(a.as_bytes())
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    append(&log, &[b.to_string()]);
    until(&rx, ":6:", &mut seen);
    assert!(seen.last().unwrap().contains("wrong-language"), "{seen:#?}");
    // no finding of a cut line, and each finding printed once
    assert!(
        !seen.iter().any(|l| l.contains("invalid-record")),
        "{seen:#?}"
    );
    let label_lines = seen.iter().filter(|l| l.contains("label-too-long")).count();
    assert_eq!(label_lines, 1, "{seen:#?}");
    // truncated and written again: its findings are new again
    std::fs::write(&log, "").unwrap();
    std::thread::sleep(Duration::from_millis(600));
    append(&log, &lines[..4]);
    until(&rx, "label-too-long", &mut seen);
    // Ctrl-C: the summary of what the log holds now
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    until(&rx, "Found 1 problem", &mut seen);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "errors found: {seen:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn follow_with_json_prints_one_finding_a_line() {
    let dir = scratch();
    let log = dir.join("live.jsonl");
    append(&log, &seed_lines()[..6]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_callint"))
        .args(["check", "--follow", "--no-config", "--format", "json"])
        .arg(&log)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let mut lines = BufReader::new(out).lines();
    let mut rules = Vec::new();
    for _ in 0..2 {
        let l = lines.next().unwrap().unwrap();
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        rules.push(v["rule"].as_str().unwrap().to_string());
    }
    rules.sort();
    assert_eq!(rules, ["label-too-long", "wrong-language"]);
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}
