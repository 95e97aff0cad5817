//! `callint server` gives for every file of the corpus, open as it is
//! saved, the findings `callint check FILE` gives: the same rules at the
//! same places (columns in UTF-16 units), with the same messages. The
//! editor-facing behaviour (hover, actions, growing logs, malformed input)
//! is driven by a real language client in python/tests/test_server.py.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use crate::common::{callint_in, case_logs, corpus_cases, root, scratch};

/// One framed message.
fn frame(v: &serde_json::Value) -> Vec<u8> {
    let body = v.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

/// The next message the server writes (none at its end).
fn next_message(r: &mut impl BufRead) -> Option<serde_json::Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            len = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// A place as the protocol gives it, from a 1-based line and a column in
/// characters of `text`.
fn place(text: &str, line: u64, column: u64) -> (u64, u64) {
    let l = text.split('\n').nth(line as usize - 1).unwrap_or("");
    let units: usize = l
        .chars()
        .take(column as usize - 1)
        .map(char::len_utf16)
        .sum();
    (line - 1, units as u64)
}

type Finding = (String, (u64, u64), (u64, u64), String);

#[test]
fn every_corpus_file_gets_what_check_finds() {
    let root = root();
    let files: Vec<std::path::PathBuf> = corpus_cases()
        .iter()
        .flat_map(|c| case_logs(c))
        .filter(|p| std::fs::read_to_string(p).is_ok())
        .filter(|p| p.file_name().is_none_or(|n| n != "callint.toml"))
        .collect();
    assert!(files.len() > 50, "{}", files.len());
    let uri = |p: &std::path::Path| format!("file://{}", p.display());
    let mut input = frame(&serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"capabilities": {}, "rootUri": uri(&root)},
    }));
    input.extend(frame(&serde_json::json!({
        "jsonrpc": "2.0", "method": "initialized", "params": {},
    })));
    for p in &files {
        input.extend(frame(&serde_json::json!({
            "jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {
                "uri": uri(p), "languageId": "plaintext", "version": 1,
                "text": std::fs::read_to_string(p).unwrap(),
            }},
        })));
    }
    // Pulled last: answered once each file's latest text is linted, so
    // every push is written by then.
    for (k, p) in files.iter().enumerate() {
        input.extend(frame(&serde_json::json!({
            "jsonrpc": "2.0", "id": 100 + k, "method": "textDocument/diagnostic",
            "params": {"textDocument": {"uri": uri(p)}},
        })));
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_callint"))
        .arg("server")
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let writer = std::thread::spawn(move || {
        stdin.write_all(&input).unwrap();
        stdin
    });
    // Every pull answered, then shutdown and exit.
    let mut all = Vec::new();
    let mut answered = 0;
    while answered < files.len() {
        let m = next_message(&mut stdout).expect("the server ended early");
        if m["id"].as_u64().is_some_and(|i| i >= 100) {
            answered += 1;
        }
        all.push(m);
    }
    let mut stdin = writer.join().unwrap();
    stdin
        .write_all(&frame(
            &serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
        ))
        .unwrap();
    stdin
        .write_all(&frame(
            &serde_json::json!({"jsonrpc": "2.0", "method": "exit"}),
        ))
        .unwrap();
    while let Some(m) = next_message(&mut stdout) {
        all.push(m);
    }
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert!(all.iter().any(|m| m["id"] == 2 && m["result"].is_null()));
    let mut pushed: std::collections::BTreeMap<String, Vec<Finding>> = Default::default();
    let mut pulled: std::collections::BTreeMap<u64, Vec<Finding>> = Default::default();
    for m in &all {
        if m["method"] == "textDocument/publishDiagnostics" {
            let p = &m["params"];
            pushed.insert(
                p["uri"].as_str().unwrap().to_string(),
                findings_of(&p["diagnostics"]),
            );
        } else if let Some(id) = m["id"].as_u64().filter(|&i| i >= 100) {
            pulled.insert(id, findings_of(&m["result"]["items"]));
        }
    }
    let mut compared = 0;
    for (k, p) in files.iter().enumerate() {
        let want = checked(&root, p);
        compared += want.len();
        let name = p.strip_prefix(&root).unwrap().display().to_string();
        for got in [
            pushed.get(&uri(p)).cloned().unwrap_or_default(),
            pulled.get(&(100 + k as u64)).cloned().unwrap_or_default(),
        ] {
            assert_eq!(got.len(), want.len(), "{name}: {got:#?}\n{want:#?}");
            for (g, w) in got.iter().zip(&want) {
                // The server's message adds the underline's text and the
                // help after check's.
                assert!(
                    g.0 == w.0 && g.1 == w.1 && g.2 == w.2 && g.3.starts_with(&w.3),
                    "{name}: {g:?} is not {w:?}"
                );
            }
        }
    }
    assert!(compared > 100, "{compared}");
}

/// The findings of pushed or pulled diagnostics, sorted.
fn findings_of(items: &serde_json::Value) -> Vec<Finding> {
    let mut v: Vec<Finding> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let r = &d["range"];
            let at = |k: &str| {
                (
                    r[k]["line"].as_u64().unwrap(),
                    r[k]["character"].as_u64().unwrap(),
                )
            };
            (
                d["code"].as_str().unwrap().to_string(),
                at("start"),
                at("end"),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

/// What `callint check` finds in the file `p`, run in `dir`, sorted.
fn checked(dir: &std::path::Path, p: &std::path::Path) -> Vec<Finding> {
    let text = std::fs::read_to_string(p).unwrap();
    let o = callint_in(
        dir,
        &[
            "check",
            "--no-cache",
            "--format",
            "json",
            &p.to_string_lossy(),
        ],
    );
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut want: Vec<Finding> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let n = |k: &str| d[k].as_u64().unwrap();
            (
                d["rule"].as_str().unwrap().to_string(),
                place(&text, n("line"), n("column")),
                place(&text, n("end_line"), n("end_column")),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    want.sort();
    want
}

/// A log open in the editor that grows on disk in several steps, then is
/// rewritten: after each step, the diagnostics pushed are those `check`
/// gives for the file as it then is (the server reads on from where it
/// stopped and parses only the new lines; a rewritten file is read anew).
#[test]
fn a_log_growing_in_steps_gets_what_check_finds_after_each() {
    let dir = scratch();
    let root = root();
    let mut lines: Vec<String> = Vec::new();
    for case in ["answer-window", "language-switch", "turn-taking"] {
        for p in case_logs(&root.join("corpus").join(case)) {
            if p.extension().is_some_and(|e| e == "jsonl") {
                let text = std::fs::read_to_string(&p).unwrap();
                lines.extend(text.lines().map(|l| format!("{l}\n")));
            }
        }
    }
    assert!(lines.len() > 60, "{}", lines.len());
    let log = dir.join("call.jsonl");
    let head: String = lines[..3].concat();
    std::fs::write(&log, &head).unwrap();
    let uri = format!("file://{}", log.display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_callint"))
        .arg("server")
        .current_dir(&*dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: serde_json::Value| stdin.write_all(&frame(&v)).unwrap();
    send(serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"capabilities": {}, "rootUri": format!("file://{}", dir.display())},
    }));
    send(serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(serde_json::json!({
        "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {
            "uri": uri, "languageId": "plaintext", "version": 1, "text": head,
        }},
    }));
    let mut pushed = || loop {
        let m = next_message(&mut stdout).expect("the server ended early");
        if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
            return findings_of(&m["params"]["diagnostics"]);
        }
    };
    let got = pushed();
    assert_eq!(got, checked(&dir, &log), "opened");
    // Each step: what the file holds (a line cut off at its end first
    // broken, then whole), whether it is appended to or rewritten.
    let n = lines.len();
    let whole = |k: usize| lines[..k].concat();
    let cut = &lines[n - 1][..lines[n - 1].len() / 2];
    let mut steps: Vec<(String, &str)> = vec![
        (whole(4), "one line appended"),
        (whole(20), "several lines appended"),
        (whole(n / 2), "a call's worth appended"),
        (whole(n / 2) + "not a record\n", "a broken line appended"),
        (whole(n / 2) + "not a record\n" + cut, "half a line written"),
        (
            whole(n / 2) + "not a record\n" + cut + "\n",
            "a line cut off",
        ),
        (
            whole(n / 2) + "not a record\n" + cut + "\n" + &whole(n),
            "the rest",
        ),
        (whole(n / 3), "truncated"),
    ];
    // The same length, an earlier line changed: rewritten.
    let mut changed = whole(n / 3);
    let at = changed.find("\"text\":\"").unwrap() + 8;
    changed.replace_range(at..at + 1, "X");
    steps.push((changed.clone(), "a byte changed before the end"));
    let again = changed + &lines[n / 3..].concat();
    steps.push((again.clone(), "grown again"));
    // Past the bytes that tell a file's format: read as `check` reads a
    // large log, a block at a time.
    let mut long = again;
    while long.len() < 3 * 64 * 1024 {
        long.push_str(&lines.concat());
    }
    steps.push((long.clone(), "grown past its first 64 KiB"));
    steps.push((long + &lines[5], "one line appended to a long log"));
    let mut was = head;
    for (text, what) in &steps {
        // Appended as a writer appends (a reader never sees the file
        // shorter), or written anew.
        match text.strip_prefix(was.as_str()) {
            Some(more) => std::fs::OpenOptions::new()
                .append(true)
                .open(&log)
                .unwrap()
                .write_all(more.as_bytes())
                .unwrap(),
            None => std::fs::write(&log, text).unwrap(),
        }
        was.clone_from(text);
        send(serde_json::json!({
            "jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles",
            "params": {"changes": [{"uri": uri, "type": 2}]},
        }));
        if *what == "half a line written" {
            // Nothing new to lint; the next step pushes.
            continue;
        }
        let got = pushed();
        // `check` of the whole lines: what the server has read.
        let end = text.rfind('\n').map_or(0, |k| k + 1);
        std::fs::write(dir.join("whole.jsonl"), &text[..end]).unwrap();
        let want = checked(&dir, &dir.join("whole.jsonl"));
        assert!(!want.is_empty() || *what == "one line appended", "{what}");
        assert_eq!(got.len(), want.len(), "{what}: {got:#?}\n{want:#?}");
        for (g, w) in got.iter().zip(&want) {
            assert!(
                g.0 == w.0 && g.1 == w.1 && g.2 == w.2 && g.3.starts_with(&w.3),
                "{what}: {g:?} is not {w:?}"
            );
        }
    }
    send(serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
    send(serde_json::json!({"jsonrpc": "2.0", "method": "exit"}));
    while next_message(&mut stdout).is_some() {}
    assert_eq!(child.wait().unwrap().code(), Some(0));
}
