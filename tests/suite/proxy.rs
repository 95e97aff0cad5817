//! `callint proxy` through the binary, between a test client and the fake
//! voicehook server (`callint fake-mcp`), on pipes or on 127.0.0.1.
//!
//! The seed incident's traces are replayed through the proxy: the client's
//! messages are sent one after another, the fake server answers each call
//! with its recorded response. Every break of a rule that judges a pending
//! call is denied, the clean calls pass, and `check` on the recording finds
//! what the proxy found live.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{callint_in, convert, root, scratch};

const BIN: &str = env!("CARGO_BIN_EXE_callint");
const WAIT: Duration = Duration::from_secs(20);

/// The infos raised to warnings, so that every break the proxy can see is
/// denied.
const STRICT: &str = crate::common::INFO_DENIES;

/// A proxy running with the fake server as its child, the test the client.
struct Proxy {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Vec<u8>>,
    stderr: mpsc::Receiver<String>,
}

fn lines_of(r: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(r);
        loop {
            let mut l = Vec::new();
            match r.read_until(b'\n', &mut l) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.send(l).is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}

impl Proxy {
    /// `callint proxy ARGS -- callint fake-mcp FAKE`, in `dir`.
    fn start(dir: &Path, args: &[&str], fake: &[&str]) -> Proxy {
        let mut cmd = Command::new(BIN);
        cmd.arg("proxy")
            .args(args)
            .arg("--")
            .arg(BIN)
            .arg("fake-mcp")
            .args(fake);
        Proxy::spawn(dir, cmd)
    }

    fn spawn(dir: &Path, mut cmd: Command) -> Proxy {
        let mut child = cmd
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the proxy");
        let lines = lines_of(child.stdout.take().unwrap());
        let err = lines_of(child.stderr.take().unwrap());
        let (tx, stderr) = mpsc::channel();
        std::thread::spawn(move || {
            for l in err {
                if tx.send(String::from_utf8_lossy(&l).into_owned()).is_err() {
                    break;
                }
            }
        });
        Proxy {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
        }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let w = self.stdin.as_mut().expect("open");
        w.write_all(bytes).unwrap();
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
    }

    fn send(&mut self, v: &Value) {
        self.send_raw(v.to_string().as_bytes());
    }

    /// The next message from the proxy.
    fn recv(&self) -> Value {
        let l = self
            .lines
            .recv_timeout(WAIT)
            .expect("an answer in time (nothing hangs)");
        serde_json::from_slice(&l).expect("the client gets JSON")
    }

    /// Send a request and wait for the answer with its id; what came before
    /// it is returned too.
    fn call(&mut self, v: &Value) -> (Value, Vec<Value>) {
        self.send(v);
        let mut before = Vec::new();
        loop {
            let m = self.recv();
            if m.get("id") == v.get("id") && m.get("method").is_none() {
                return (m, before);
            }
            before.push(m);
        }
    }

    /// Close standard input and wait for the exit status; the standard
    /// error written.
    fn finish(mut self) -> (Option<i32>, String) {
        drop(self.stdin.take());
        let status = wait(&mut self.child);
        // The reader thread may not have passed on the last lines yet (on
        // a busy machine): wait for them until the stream ends, a moment
        // at most (the fake server may hold it open a little longer).
        let mut err = Vec::new();
        while let Ok(l) = self.stderr.recv_timeout(Duration::from_millis(1000)) {
            err.push(l);
        }
        (status, err.concat())
    }
}

/// Wait for `child` to exit, at most [`WAIT`].
fn wait(child: &mut Child) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code();
        }
        if start.elapsed() > WAIT {
            let _ = child.kill();
            panic!("the proxy did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn init(p: &mut Proxy) {
    let (r, _) = p.call(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    assert_eq!(r["result"]["serverInfo"]["name"], "voicehook");
    p.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
}

/// The rules a denial's text names, in its order.
fn denied_rules(answer: &Value) -> Option<Vec<String>> {
    let r = &answer["result"];
    if r["isError"] != true {
        return None;
    }
    let text = r["content"][0]["text"].as_str()?;
    if !text.starts_with("callint denied") {
        return None;
    }
    Some(
        text.lines()
            .filter_map(|l| l.strip_prefix("- "))
            .filter_map(|l| l.split(' ').next())
            .map(str::to_string)
            .collect(),
    )
}

/// A trace's messages from the client, with their lines and times.
fn client_messages(trace: &[u8]) -> Vec<(usize, Value, Option<String>)> {
    let mut out = Vec::new();
    for (i, l) in trace.split(|&b| b == b'\n').enumerate() {
        let Ok(v) = serde_json::from_slice::<Value>(l) else {
            continue;
        };
        let (m, ts) = match v.get("message") {
            Some(m) => (m.clone(), v["ts"].as_str().map(String::from)),
            None => (v, None),
        };
        if m.get("method").is_some() {
            out.push((i + 1, m, ts));
        }
    }
    out
}

/// What a replay of one trace gave: the rules of each call the proxy
/// answered itself (by the call's line in the trace), the would-be denials
/// of a dry run on standard error (by request id), and the recording.
struct Replay {
    denied: BTreeMap<usize, Vec<String>>,
    stderr: String,
    recording: PathBuf,
    status: Option<i32>,
}

fn replay(dir: &Path, name: &str, trace: &[u8], extra: &[&str]) -> Replay {
    let src = dir.join(format!("{name}.trace"));
    std::fs::write(&src, trace).unwrap();
    let recording = dir.join(format!("{name}.rec.jsonl"));
    let mut args = vec!["--clock-from-meta", "--record", recording.to_str().unwrap()];
    args.extend_from_slice(extra);
    let mut p = Proxy::start(dir, &args, &["--replay", src.to_str().unwrap()]);
    let mut denied = BTreeMap::new();
    for (line, mut m, ts) in client_messages(trace) {
        if let (Some(ts), Some(Value::Object(params))) = (&ts, m.get_mut("params")) {
            params.insert("_meta".into(), json!({"callint/ts": ts}));
        }
        if m.get("id").is_some() {
            let (answer, _) = p.call(&m);
            if let Some(rules) = denied_rules(&answer) {
                denied.insert(line, rules);
            }
        } else {
            p.send(&m);
        }
    }
    let (status, stderr) = p.finish();
    Replay {
        denied,
        stderr,
        recording,
        status,
    }
}

/// A case's expected findings of the rules that judge a pending call, by
/// (file, line).
fn expected_pending(case: &str) -> BTreeMap<(String, usize), BTreeSet<String>> {
    let tsv = std::fs::read_to_string(root().join(case).join("expected.tsv")).unwrap();
    let mut m: BTreeMap<(String, usize), BTreeSet<String>> = BTreeMap::new();
    for l in tsv.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = l.split('\t').collect();
        if callint::rules::judges_pending(f[2]) {
            m.entry((f[0].to_string(), f[1].parse().unwrap()))
                .or_default()
                .insert(f[2].to_string());
        }
    }
    m
}

#[test]
fn each_break_of_the_incident_is_denied_before_the_server_gets_it() {
    let dir = scratch();
    std::fs::write(dir.join("callint.toml"), STRICT).unwrap();
    let case = "corpus/seed-incident-mcp";
    let expected = expected_pending(case);
    let mut got: BTreeMap<(String, usize), BTreeSet<String>> = BTreeMap::new();
    for file in ["claude.jsonl", "opencode.jsonl", "promo.jsonl"] {
        let trace = std::fs::read(root().join(case).join(file)).unwrap();
        let r = replay(&dir, file, &trace, &[]);
        assert_eq!(r.status, Some(0), "{file}: {}", r.stderr);
        for (line, rules) in r.denied {
            got.insert((file.to_string(), line), rules.into_iter().collect());
        }
        // The recording holds the denials, as the proxy's own answers.
        let rec = std::fs::read_to_string(&r.recording).unwrap();
        assert!(rec.contains("\"by\":\"callint\""), "{file}");
    }
    for (at, rules) in &expected {
        let denied = got
            .get(at)
            .unwrap_or_else(|| panic!("{at:?} breaks {rules:?}, passed"));
        assert!(rules.is_subset(denied), "{at:?}: {rules:?} vs {denied:?}");
    }
    // Beyond them, only what a denial changed: a status without an emoji
    // denied, the next one is the first the server would get.
    for (at, rules) in &got {
        if !expected.contains_key(at) {
            assert_eq!(
                rules.iter().collect::<Vec<_>>(),
                ["board-missing-emoji"],
                "{at:?}"
            );
        }
    }
}

#[test]
fn a_dry_run_would_deny_exactly_the_breaks_of_the_incident() {
    let dir = scratch();
    std::fs::write(dir.join("callint.toml"), STRICT).unwrap();
    let case = "corpus/seed-incident-mcp";
    let expected = expected_pending(case);
    let mut got = BTreeSet::new();
    for file in ["claude.jsonl", "opencode.jsonl", "promo.jsonl"] {
        let trace = std::fs::read(root().join(case).join(file)).unwrap();
        let ids = request_lines(&trace);
        let r = replay(&dir, file, &trace, &["--dry-run"]);
        for (id, rules) in would_deny(&r.stderr) {
            let line = ids[&id];
            let want = expected.get(&(file.to_string(), line));
            assert!(
                want.is_some_and(|w| w.is_subset(&rules)),
                "{file}:{line} {rules:?} vs {want:?}"
            );
            got.insert((file.to_string(), line));
        }
    }
    assert_eq!(got, expected.keys().cloned().collect::<BTreeSet<_>>());
}

/// The line of each request of a trace, by id (JSON text).
fn request_lines(trace: &[u8]) -> BTreeMap<String, usize> {
    client_messages(trace)
        .into_iter()
        .filter(|(_, m, _)| m.get("id").is_some())
        .map(|(l, m, _)| (m["id"].to_string(), l))
        .collect()
}

#[test]
fn clean_calls_pass_untouched() {
    let dir = scratch();
    std::fs::write(dir.join("callint.toml"), STRICT).unwrap();
    for case in ["corpus/clean-en", "corpus/clean-de"] {
        let mut logs = Vec::new();
        for e in std::fs::read_dir(root().join(case)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                logs.push((name, std::fs::read(&p).unwrap()));
            }
        }
        logs.sort();
        let traces = convert::mcp(&logs);
        assert!(!traces.files.is_empty());
        for (name, trace) in &traces.files {
            let r = replay(&dir, name, trace, &[]);
            assert_eq!(r.status, Some(0), "{case}/{name}: {}", r.stderr);
            assert!(r.denied.is_empty(), "{case}/{name}: {:?}", r.denied);
            assert!(!r.stderr.contains("deny"), "{}", r.stderr);
            assert!(r.stderr.contains("denied"), "the summary: {}", r.stderr);
        }
    }
}

/// The findings `check` gives on a recording, of the rules that judge a
/// pending call, by the id of the request they are on.
fn checked(dir: &Path, recording: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let o = callint_in(
        dir,
        &[
            "check",
            "--no-cache",
            "--format",
            "json",
            "--max-repeats",
            "0",
            recording.to_str().unwrap(),
        ],
    );
    let v: Value = serde_json::from_slice(&o.stdout).expect("check's JSON");
    let lines: Vec<Value> = std::fs::read(recording)
        .unwrap()
        .split(|&b| b == b'\n')
        .map(|l| serde_json::from_slice(l).unwrap_or(Value::Null))
        .collect();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for d in v["diagnostics"].as_array().unwrap() {
        let rule = d["rule"].as_str().unwrap();
        if !callint::rules::judges_pending(rule) || d["severity"] == "info" {
            continue;
        }
        let line = d["line"].as_u64().unwrap() as usize;
        let m = &lines[line - 1]["message"];
        assert_eq!(m["method"], "tools/call", "{d}");
        out.entry(m["id"].to_string())
            .or_default()
            .insert(rule.to_string());
    }
    out
}

/// The would-be denials of a dry run's standard error, by request id.
fn would_deny(stderr: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for l in stderr.lines() {
        let Some(rest) = l.strip_prefix("callint proxy: would deny ") else {
            continue;
        };
        let id = rest
            .split("(request ")
            .nth(1)
            .unwrap()
            .split(')')
            .next()
            .unwrap();
        let rules = rest
            .split(") for ")
            .nth(1)
            .unwrap()
            .split(": ")
            .next()
            .unwrap();
        out.insert(
            id.to_string(),
            rules.split(", ").map(String::from).collect(),
        );
    }
    out
}

#[test]
fn check_on_the_recording_finds_what_the_proxy_found_live() {
    let dir = scratch();
    std::fs::write(dir.join("callint.toml"), STRICT).unwrap();
    let case = "corpus/seed-incident-mcp";
    let mut total = 0;
    for file in ["claude.jsonl", "opencode.jsonl", "promo.jsonl"] {
        let trace = std::fs::read(root().join(case).join(file)).unwrap();
        let r = replay(&dir, file, &trace, &["--dry-run"]);
        assert!(r.denied.is_empty(), "a dry run denies nothing");
        let live = would_deny(&r.stderr);
        let batch = checked(&dir, &r.recording);
        assert_eq!(live, batch, "{file}: {}", r.stderr);
        total += live.len();
    }
    assert!(total >= 15, "{total}");
}

/// The requests the proxy answered itself in a recording, with the rules
/// its answer names, by request id (JSON text).
fn denied_in(recording: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for l in std::fs::read_to_string(recording).unwrap().lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        if v["by"] == "callint" {
            if let Some(rules) = denied_rules(&v["message"]) {
                out.insert(v["message"]["id"].to_string(), rules.into_iter().collect());
            }
        }
    }
    out
}

#[test]
fn check_on_an_enforcing_recording_finds_exactly_what_was_denied() {
    let dir = scratch();
    std::fs::write(dir.join("callint.toml"), STRICT).unwrap();
    let case = "corpus/seed-incident-mcp";
    let mut total = 0;
    for file in ["claude.jsonl", "opencode.jsonl", "promo.jsonl"] {
        let trace = std::fs::read(root().join(case).join(file)).unwrap();
        let r = replay(&dir, file, &trace, &[]);
        assert_eq!(r.status, Some(0), "{file}: {}", r.stderr);
        let live = denied_in(&r.recording);
        assert_eq!(live.len(), r.denied.len(), "{file}");
        let batch = checked(&dir, &r.recording);
        assert_eq!(live, batch, "{file}: {}", r.stderr);
        total += live.len();
    }
    assert!(total >= 15, "{total}");
}

/// The recording's messages, in order.
fn recorded(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("each line whole"))
        .collect()
}

#[test]
fn ten_thousand_messages_keep_their_order() {
    let dir = scratch();
    let rec = dir.join("rec.jsonl");
    let mut p = Proxy::start(
        &dir,
        &["--no-config", "--record", rec.to_str().unwrap()],
        &[],
    );
    init(&mut p);
    // From the client: notifications and requests, interleaved, sent at once.
    for k in 0..5000 {
        p.send(&json!({"jsonrpc": "2.0", "method": "notifications/test", "params": {"seq": k}}));
        p.send(&json!({"jsonrpc": "2.0", "id": 100 + k, "method": "ping"}));
    }
    for k in 0..5000 {
        let m = p.recv();
        assert_eq!(m["id"], 100 + k, "answers in order");
    }
    let (seen, _) = p.call(&json!({"jsonrpc": "2.0", "id": "s", "method": "tools/call",
        "params": {"name": "seen", "arguments": {}}}));
    let seen = &seen["result"]["structuredContent"]["seen"];
    let want: Vec<Value> = (0..5000).map(|k| json!(k)).collect();
    assert_eq!(seen.as_array().unwrap(), &want);
    // From the server: a flood of notifications before the answer.
    let (done, before) = p.call(&json!({"jsonrpc": "2.0", "id": "f", "method": "tools/call",
        "params": {"name": "flood", "arguments": {"n": 10000}}}));
    assert_eq!(done["result"]["structuredContent"]["sent"], 10000);
    assert_eq!(before.len(), 10000);
    for (k, n) in before.iter().enumerate() {
        assert_eq!(n["params"]["data"]["seq"], k);
    }
    let (status, _) = p.finish();
    assert_eq!(status, Some(0));
    let lines = recorded(&rec);
    // initialize (2), initialized, 10,000 + 5,000 answers, seen (2), flood (10,002)
    assert_eq!(lines.len(), 2 + 1 + 15_000 + 2 + 10_002);
    assert!(lines
        .iter()
        .all(|l| l["ts"].is_string() && (l["dir"] == "send" || l["dir"] == "recv")));
}

#[test]
fn big_messages_and_bad_json_pass_or_are_refused() {
    let dir = scratch();
    let rec = dir.join("rec.jsonl");
    let mut p = Proxy::start(
        &dir,
        &["--no-config", "--record", rec.to_str().unwrap()],
        &[],
    );
    init(&mut p);
    let big = "x".repeat(10 << 20);
    let (r, _) = p.call(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"blob": big}}}));
    assert_eq!(
        r["result"]["structuredContent"]["echo"]["blob"]
            .as_str()
            .map(str::len),
        Some(10 << 20)
    );
    // Not JSON from the client: a parse error, and the proxy goes on.
    p.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": ");
    let e = p.recv();
    assert_eq!(e["error"]["code"], -32700);
    assert_eq!(e["id"], Value::Null);
    let (r, _) = p.call(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    assert_eq!(r["result"], json!({}));
    let (status, err) = p.finish();
    assert_eq!(status, Some(0), "{err}");
    assert!(err.contains("not JSON"), "{err}");
    assert!(std::fs::metadata(&rec).unwrap().len() > 2 * (10 << 20));
}

#[test]
fn a_server_that_dies_fails_the_calls_in_flight() {
    let dir = scratch();
    let mut p = Proxy::start(&dir, &["--no-config"], &["--die-after", "3"]);
    init(&mut p);
    let (r, _) = p.call(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}));
    assert_eq!(r["error"]["code"], -32603, "{r}");
    assert!(
        r["error"]["message"].as_str().unwrap().contains("ended"),
        "{r}"
    );
    let status = wait(&mut p.child);
    assert_eq!(status, Some(3));
}

#[test]
fn a_line_of_a_server_that_is_not_json_goes_to_stderr_and_the_session_goes_on() {
    let dir = scratch();
    let mut p = Proxy::start(
        &dir,
        &["--no-config", "--upstream-timeout", "0.5"],
        &["--garbage-after", "3"],
    );
    init(&mut p);
    // The third message is answered with a line that is not JSON: the
    // request it was for is never answered, and gets the proxy's error in
    // time; the next is answered by the server.
    let (r, _) = p.call(&json!({"jsonrpc": "2.0", "id": "g", "method": "tools/list"}));
    assert_eq!(r["error"]["code"], -32001, "{r}");
    let (r, _) = p.call(&json!({"jsonrpc": "2.0", "id": "h", "method": "ping"}));
    assert_eq!(r["result"], json!({}), "{r}");
    let (status, err) = p.finish();
    assert_eq!(status, Some(0), "{err}");
    let warned = err
        .lines()
        .filter(|l| l.starts_with("callint proxy:") && l.contains("not JSON"))
        .count();
    assert_eq!(warned, 1, "{err}");
    assert!(
        err.lines().any(|l| l == "<html>this is not JSON</html>"),
        "{err}"
    );
}

#[test]
fn a_request_the_server_never_answers_gets_an_error_in_time() {
    let dir = scratch();
    let rec = dir.join("rec.jsonl");
    let mut p = Proxy::start(
        &dir,
        &[
            "--no-config",
            "--upstream-timeout",
            "0.3",
            "--record",
            rec.to_str().unwrap(),
        ],
        &["--silent"],
    );
    init(&mut p);
    // Two calls in flight at once: each gets its error, then the proxy
    // still passes what the server answers.
    p.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {}}}));
    let (r, _) = p.call(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {}}}));
    assert_eq!(r["error"]["code"], -32001, "{r}");
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("--upstream-timeout"));
    let (r, _) = p.call(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    assert_eq!(r["result"], json!({}));
    let (status, err) = p.finish();
    assert_eq!(status, Some(0), "{err}");
    // Recorded as sent: the errors, and the cancellations the server got.
    let lines = recorded(&rec);
    let by_proxy: Vec<&Value> = lines.iter().filter(|l| l["by"] == "callint").collect();
    let errors = by_proxy
        .iter()
        .filter(|l| l["message"]["error"]["code"] == -32001)
        .count();
    let cancels = by_proxy
        .iter()
        .filter(|l| l["message"]["method"] == "notifications/cancelled" && l["dir"] == "send")
        .count();
    assert_eq!((errors, cancels), (2, 2), "{lines:?}");
}

#[test]
fn a_server_that_cannot_start_is_said_so() {
    let dir = scratch();
    let mut cmd = Command::new(BIN);
    cmd.args([
        "proxy",
        "--no-config",
        "--",
        "/nonexistent/voicehook-server",
    ]);
    let mut p = Proxy::spawn(&dir, cmd);
    assert_eq!(wait(&mut p.child), Some(3));
    let err: String = p.stderr.recv_timeout(WAIT).unwrap();
    assert!(err.contains("cannot start the server"), "{err}");
}

#[test]
fn when_the_client_closes_the_server_is_ended_and_the_recording_closed() {
    let dir = scratch();
    let rec = dir.join("rec.jsonl");
    let mut p = Proxy::start(
        &dir,
        &["--no-config", "--record", rec.to_str().unwrap()],
        &["--silent"],
    );
    init(&mut p);
    p.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "echo", "arguments": {}}}));
    std::thread::sleep(Duration::from_millis(200));
    let (status, _) = p.finish();
    assert_eq!(status, Some(0));
    let lines = recorded(&rec);
    assert_eq!(lines.last().unwrap()["message"]["id"], 9);
}

// --- streamable HTTP ---------------------------------------------------

/// The fake server on a port of 127.0.0.1.
fn fake_http(args: &[&str]) -> (Child, u16) {
    let mut child = Command::new(BIN)
        .arg("fake-mcp")
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = lines_of(child.stdout.take().unwrap());
    let l = String::from_utf8(lines.recv_timeout(WAIT).unwrap()).unwrap();
    let port = l.trim().strip_prefix("port ").unwrap().parse().unwrap();
    (child, port)
}

/// The proxy as an HTTP server in front of `upstream`; its port.
fn http_proxy(dir: &Path, upstream: u16, args: &[&str]) -> (Proxy, u16) {
    let mut cmd = Command::new(BIN);
    cmd.args([
        "proxy",
        "--upstream",
        &format!("http://127.0.0.1:{upstream}/mcp"),
        "--listen",
        "127.0.0.1:0",
    ])
    .args(args);
    let p = Proxy::spawn(dir, cmd);
    let l = p.stderr.recv_timeout(WAIT).unwrap();
    let port = l
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{l}"));
    (p, port)
}

struct Reply {
    status: u16,
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
}

/// One HTTP/1.1 exchange with 127.0.0.1:`port`.
fn http(port: u16, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    let mut req = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut rest = raw[split + 4..].to_vec();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: BTreeMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    if headers
        .get("transfer-encoding")
        .is_some_and(|v| v == "chunked")
    {
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            let nl = rest[at..].windows(2).position(|w| w == b"\r\n").unwrap() + at;
            let n =
                usize::from_str_radix(String::from_utf8_lossy(&rest[at..nl]).trim(), 16).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&rest[nl + 2..nl + 2 + n]);
            at = nl + 2 + n + 2;
        }
        rest = out;
    }
    Reply {
        status,
        headers,
        body: rest,
    }
}

/// The messages of a reply: a JSON body, or the data of its events.
fn messages(r: &Reply) -> Vec<Value> {
    let body = String::from_utf8_lossy(&r.body);
    if r.headers
        .get("content-type")
        .is_some_and(|c| c.starts_with("text/event-stream"))
    {
        return body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .flat_map(|d| match serde_json::from_str(d).unwrap() {
                Value::Array(v) => v,
                v => vec![v],
            })
            .collect();
    }
    match serde_json::from_str::<Value>(&body) {
        Ok(Value::Array(v)) => v,
        Ok(v) => vec![v],
        Err(_) => Vec::new(),
    }
}

fn post(port: u16, session: Option<&str>, v: &Value) -> Reply {
    let mut h = vec![("Authorization", "Bearer s3cret-token")];
    if let Some(s) = session {
        h.push(("Mcp-Session-Id", s));
    }
    http(port, "POST", &h, v.to_string().as_bytes())
}

fn long_say(id: u32) -> Value {
    let words = vec!["word"; 45].join(" ");
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "say", "arguments": {"text": words}}})
}

fn join(id: u32) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "join", "arguments": {"call_id": "c-1", "label": "Kit"}}})
}

#[test]
fn over_http_calls_are_judged_and_sessions_pass_through() {
    for sse in [true, false] {
        let dir = scratch();
        let rec = dir.join("calls");
        std::fs::create_dir_all(&rec).unwrap();
        let (mut up, up_port) = fake_http(if sse { &["--sse"] } else { &[] });
        let (mut p, port) = http_proxy(
            &dir,
            up_port,
            &["--no-config", "--record", rec.to_str().unwrap()],
        );
        let r = post(
            port,
            None,
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
        );
        assert_eq!(r.status, 200);
        let session = r
            .headers
            .get("mcp-session-id")
            .cloned()
            .expect("the session id passes");
        assert_eq!(messages(&r)[0]["result"]["serverInfo"]["name"], "voicehook");
        let r = post(
            port,
            Some(&session),
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        assert_eq!(r.status, 202);
        let r = post(port, Some(&session), &join(1));
        assert_eq!(
            messages(&r)[0]["result"]["structuredContent"]["status"],
            "joined"
        );
        // a long say: answered by the proxy
        let r = post(port, Some(&session), &long_say(2));
        let m = messages(&r);
        assert_eq!(
            denied_rules(&m[0]),
            Some(vec!["long-say".to_string()]),
            "{m:?}"
        );
        // a good say passes
        let good = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "say", "arguments": {"text": "Hello, I am Kit, I will look at the build."}}});
        let m = messages(&post(port, Some(&session), &good));
        assert_eq!(
            m[0]["result"]["structuredContent"]["say_status"], "queued",
            "{m:?}"
        );
        // headers reach the server untouched
        let h = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "headers", "arguments": {}}});
        let m = messages(&post(port, Some(&session), &h));
        assert_eq!(
            m[0]["result"]["structuredContent"]["authorization"],
            callint::app::proxy::fake::checksum("Bearer s3cret-token")
        );
        // a batch with a denied call: the proxy's answer and the server's
        let b = json!([long_say(5), {"jsonrpc": "2.0", "id": 6, "method": "ping"}]);
        let m = messages(&post(port, Some(&session), &b));
        let ids: BTreeSet<String> = m.iter().map(|x| x["id"].to_string()).collect();
        assert_eq!(
            ids,
            ["5", "6"].iter().map(|s| s.to_string()).collect(),
            "{m:?}"
        );
        // the GET stream and DELETE
        let g = http(port, "GET", &[("Mcp-Session-Id", &session)], b"");
        assert_eq!(g.status, 200);
        assert_eq!(messages(&g)[0]["method"], "notifications/message");
        let d = http(port, "DELETE", &[("Mcp-Session-Id", &session)], b"");
        assert_eq!(d.status, 200);
        // The recording: every message, and no header.
        let files: Vec<PathBuf> = std::fs::read_dir(&rec)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        let text = std::fs::read_to_string(&files[0]).unwrap();
        assert!(!text.contains("s3cret"), "headers are never recorded");
        let lines = recorded(&files[0]);
        assert!(lines
            .iter()
            .any(|l| l["message"]["method"] == "notifications/message"));
        assert_eq!(lines.iter().filter(|l| l["by"] == "callint").count(), 2);
        // The upstream goes away: each request gets an error, the proxy serves on.
        let _ = up.kill();
        let _ = up.wait();
        for id in [10, 11] {
            let r = post(
                port,
                Some(&session),
                &json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
            );
            assert_eq!(r.status, 200);
            let m = messages(&r);
            assert_eq!(m[0]["id"], id);
            assert_eq!(m[0]["error"]["code"], -32603, "{m:?}");
        }
        assert!(
            p.child.try_wait().unwrap().is_none(),
            "the HTTP proxy keeps serving"
        );
        let _ = p.child.kill();
        let _ = p.child.wait();
    }
}

#[test]
fn an_http_server_that_answers_garbage_gets_the_client_an_error() {
    let dir = scratch();
    let (mut up, up_port) = fake_http(&["--garbage-after", "2"]);
    let (mut p, port) = http_proxy(&dir, up_port, &["--no-config"]);
    let r = post(
        port,
        None,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
    );
    let session = r.headers.get("mcp-session-id").cloned().unwrap();
    let m = messages(&post(
        port,
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
    ));
    assert_eq!(m[0]["id"], 1);
    assert_eq!(m[0]["error"]["code"], -32603);
    let _ = up.kill();
    let _ = p.child.kill();
    let _ = up.wait();
    let _ = p.child.wait();
}

#[test]
fn a_stdio_front_gets_an_error_for_an_answer_that_is_not_json_and_goes_on() {
    let dir = scratch();
    // initialize, notifications/initialized, then the third message is
    // answered with HTML
    let (mut up, up_port) = fake_http(&["--garbage-after", "3"]);
    let mut cmd = Command::new(BIN);
    cmd.args([
        "proxy",
        "--no-config",
        "--upstream",
        &format!("http://127.0.0.1:{up_port}/mcp"),
        "--stdio",
    ]);
    let mut p = Proxy::spawn(&dir, cmd);
    init(&mut p);
    let (r, _) = p.call(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    assert_eq!(r["error"]["code"], -32603, "{r}");
    assert!(
        r["error"]["message"].as_str().unwrap().contains("not JSON"),
        "{r}"
    );
    // the session goes on
    let (r, _) = p.call(&join(2));
    assert_eq!(r["result"]["structuredContent"]["status"], "joined", "{r}");
    let (status, err) = p.finish();
    assert_eq!(status, Some(0), "{err}");
    let warned = err
        .lines()
        .filter(|l| l.starts_with("callint proxy:") && l.contains("not JSON"))
        .count();
    assert_eq!(warned, 1, "{err}");
    let _ = up.kill();
    let _ = up.wait();
}

#[test]
fn a_stdio_front_reaches_a_remote_server() {
    let dir = scratch();
    let (mut up, up_port) = fake_http(&["--sse"]);
    let rec = dir.join("rec.jsonl");
    let mut cmd = Command::new(BIN);
    cmd.args([
        "proxy",
        "--no-config",
        "--upstream",
        &format!("http://127.0.0.1:{up_port}/mcp"),
        "--stdio",
        "--header",
        "Authorization: Bearer s3cret-token",
        "--record",
        rec.to_str().unwrap(),
    ]);
    let mut p = Proxy::spawn(&dir, cmd);
    init(&mut p);
    let (r, _) = p.call(&join(1));
    assert_eq!(r["result"]["structuredContent"]["status"], "joined");
    let (r, _) = p.call(&long_say(2));
    assert_eq!(denied_rules(&r), Some(vec!["long-say".to_string()]));
    let (r, _) = p.call(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "headers", "arguments": {}}}));
    assert_eq!(
        r["result"]["structuredContent"]["authorization"],
        callint::app::proxy::fake::checksum("Bearer s3cret-token")
    );
    assert!(!std::fs::read_to_string(&rec).unwrap().contains("s3cret"));
    // The server goes away: a request in flight gets an error, the proxy
    // exits 3. It may see the event stream close before the request comes;
    // then it exits at once, and the client reads the end of its output.
    let _ = up.kill();
    let _ = up.wait();
    let ping = json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}).to_string() + "\n";
    let sent = p.stdin.as_mut().is_some_and(|w| {
        w.write_all(ping.as_bytes())
            .and_then(|()| w.flush())
            .is_ok()
    });
    loop {
        match p.lines.recv_timeout(WAIT) {
            Ok(l) => {
                let m: Value = serde_json::from_slice(&l).expect("the client gets JSON");
                if m.get("id") == Some(&json!(4)) {
                    assert_eq!(m["error"]["code"], -32603, "{m}");
                    break;
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(e) => panic!("nothing hangs ({e}; the ping was sent: {sent})"),
        }
    }
    assert_eq!(wait(&mut p.child), Some(3));
}

/// A request of the stateless protocol (2026-07-28): its version and the
/// client's capabilities in `_meta`.
fn modern(id: u32, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn stdio_front(dir: &Path, up_port: u16, rec: &Path) -> Proxy {
    let mut cmd = Command::new(BIN);
    cmd.args([
        "proxy",
        "--no-config",
        "--upstream",
        &format!("http://127.0.0.1:{up_port}/mcp"),
        "--stdio",
        "--record",
        rec.to_str().unwrap(),
    ]);
    Proxy::spawn(dir, cmd)
}

#[test]
fn a_stdio_front_speaks_the_stateless_protocol_with_its_headers() {
    let dir = scratch();
    let (mut up, up_port) = fake_http(&[]);
    let rec = dir.join("rec.jsonl");
    let mut p = stdio_front(&dir, up_port, &rec);
    let (r, _) = p.call(&modern(
        1,
        "tools/call",
        json!({"name": "headers", "arguments": {}}),
    ));
    let seen = &r["result"]["structuredContent"];
    assert_eq!(seen["mcp-protocol-version"], "2026-07-28", "{r}");
    assert_eq!(seen["mcp-method"], "tools/call");
    assert_eq!(seen["mcp-name"], "headers");
    assert_eq!(seen["mcp-session-id"], Value::Null);
    let (r, _) = p.call(&modern(
        2,
        "tools/call",
        json!({"name": "join",
        "arguments": {"call_id": "c-1", "label": "Kit"}}),
    ));
    assert_eq!(r["result"]["structuredContent"]["status"], "joined");
    // The proxy's denial has the shape of the request's era.
    let words = vec!["word"; 45].join(" ");
    let (r, _) = p.call(&modern(
        3,
        "tools/call",
        json!({"name": "say", "arguments": {"text": words}}),
    ));
    assert_eq!(denied_rules(&r), Some(vec!["long-say".to_string()]));
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    // A request of the 2025 protocols gets none.
    let (r, _) = p.call(&long_say(4));
    assert_eq!(denied_rules(&r), Some(vec!["long-say".to_string()]));
    assert!(r["result"].get("resultType").is_none(), "{r}");
    let (status, err) = p.finish();
    assert_eq!(status, Some(0), "{err}");
    let _ = up.kill();
    let _ = up.wait();
    // What the client got is what was recorded, byte for byte.
    let text = std::fs::read_to_string(&rec).unwrap();
    assert!(text.contains(&format!(
        "\"by\":\"callint\",\"message\":{}",
        serde_json::to_string(&r).unwrap()
    )));
}

#[test]
fn a_refused_probe_leaves_no_session_behind() {
    // A server of the 2025 protocols refuses the stateless `server/discover`
    // with 400, naming a session it does not keep; the client falls back
    // to initialize, which must not carry that id.
    let dir = scratch();
    let (mut up, up_port) = fake_http(&["--sessions"]);
    let rec = dir.join("rec.jsonl");
    let mut p = stdio_front(&dir, up_port, &rec);
    let (r, _) = p.call(&modern(1, "server/discover", json!({})));
    assert!(
        r["error"]["message"].as_str().unwrap().contains("400"),
        "{r}"
    );
    init(&mut p);
    let (r, _) = p.call(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "headers", "arguments": {}}}));
    let seen = &r["result"]["structuredContent"];
    assert_eq!(seen["mcp-session-id"], "fake-session-1", "{r}");
    assert_eq!(seen["mcp-protocol-version"], "2025-06-18", "{r}");
    assert_eq!(seen["mcp-method"], Value::Null, "{r}");
    let (status, err) = p.finish();
    assert_eq!(status, Some(0), "{err}");
    let _ = up.kill();
    let _ = up.wait();
}

#[test]
fn stateless_calls_through_one_http_proxy_are_told_apart_by_call_and_agent() {
    let dir = scratch();
    let (mut up, up_port) = fake_http(&[]);
    let recs = dir.join("recs");
    let (mut p, port) = http_proxy(
        &dir,
        up_port,
        &["--record", &format!("{}/", recs.display())],
    );
    // Two agents in two calls, their requests interleaved, no sessions:
    // each call says which it is (`call_id`, `label`).
    let who = [("c-1", "Kit"), ("c-2", "Bo")];
    let mut id = 0;
    for round in 0..3 {
        for (call, label) in who {
            id += 1;
            let (name, args) = if round == 0 {
                ("join", json!({"call_id": call, "label": label}))
            } else {
                (
                    "say",
                    json!({"call_id": call, "label": label, "text": format!("Hi, {label} here.")}),
                )
            };
            let r = post(
                port,
                None,
                &modern(id, "tools/call", json!({"name": name, "arguments": args})),
            );
            assert_eq!(r.status, 200);
        }
    }
    let _ = p.child.kill();
    let _ = p.child.wait();
    let _ = up.kill();
    let _ = up.wait();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&recs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    let mut seen = BTreeSet::new();
    for f in &files {
        let calls: BTreeSet<String> = recorded(f)
            .iter()
            .filter_map(|l| {
                l["message"]["params"]["arguments"]["call_id"]
                    .as_str()
                    .map(String::from)
            })
            .collect();
        assert_eq!(calls.len(), 1, "{f:?}: {calls:?}");
        // 3 requests and 3 answers, in one file per call.
        assert_eq!(recorded(f).len(), 6, "{f:?}");
        seen.extend(calls);
    }
    assert_eq!(seen.len(), 2);
}

#[test]
fn ctrl_c_ends_the_proxy_with_a_summary_of_what_it_denied() {
    let dir = scratch();
    let rec = dir.join("rec.jsonl");
    let rec_arg = rec.to_string_lossy().into_owned();
    let mut p = Proxy::start(&dir, &["--no-config", "--record", &rec_arg], &[]);
    init(&mut p);
    p.call(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "join", "arguments": {"call_id": "c-1", "label": "Kit"}}}));
    let long = "This is a say that goes on and on. ".repeat(20);
    let (r, _) = p.call(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "say", "arguments": {"text": long}}}));
    assert_eq!(denied_rules(&r), Some(vec!["long-say".to_string()]), "{r}");
    let pid = p.child.id().to_string();
    let killed = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(killed.success());
    let status = wait(&mut p.child);
    let err: String = {
        let mut s = String::new();
        while let Ok(l) = p.stderr.recv_timeout(Duration::from_secs(2)) {
            s.push_str(&l);
        }
        s
    };
    assert_eq!(status, Some(130), "{err}");
    assert!(err.contains("stopped:"), "{err}");
    assert!(err.contains("long-say"), "{err}");
    // What went by before the stop is in the recording, line by line.
    let lines = recorded(&rec);
    assert!(lines.iter().any(|l| l["message"]["id"] == 2), "{lines:?}");
}
