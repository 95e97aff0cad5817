//! `callint proxy`: an MCP proxy between any MCP client and the voicehook
//! MCP server. It judges every `tools/call` of a voicehook function before
//! the server gets it, answers a call that breaks a rule itself, and writes
//! the traffic down as an MCP trace (`{"ts", "dir", "message"}` lines) that
//! `callint check` reads.
//!
//! The proxy's state of a call is what the MCP trace reader
//! ([`crate::input::mcp::Partial`]) made of the messages that went by, in
//! the live engine ([`crate::lint::live::Live`]): a pending `tools/call` is
//! read as the next line of the trace (a request without a response) and
//! judged there, as `callint guard` judges a call from a transcript.
//! What `check` finds on the recording is what the proxy found live.
//!
//! [`Session`] is the transport-free part: it takes the messages of each
//! side and says what to pass on and what to answer. The transports drive
//! it: [`stdio`] (a child server on standard input and output, or a remote
//! one behind a stdio front) and [`http`] (streamable HTTP).

use crate::core::hash::HashSet;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::app::guard::denying;
use crate::core::diagnostic::{Diagnostic, Severity};
use crate::core::escape::one_line;
use crate::input::server::{function_name, FUNCTIONS};
use crate::input::{mcp, ts};
use crate::lint::engine::Linter;
use crate::lint::live::Live;
use crate::model::{Ms, Name, Record};

#[doc(hidden)]
pub mod fake;
pub mod http;
mod sse;
pub mod stdio;

/// The exit status of a stdio proxy whose server failed: it could not be
/// started, ended while the client was still there, or wrote something
/// that is not JSON.
pub const UPSTREAM_FAILED: u8 = 3;

/// The JSON-RPC error code of the proxy's answer to a request the server
/// will not answer (it failed).
pub const UPSTREAM_ERROR: i64 = -32603;

/// The largest message the proxy reads, from either side.
pub const MAX_MESSAGE: usize = 64 << 20;

/// How the proxy acts on what it finds.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// The lowest severity that denies a call (never `info`).
    pub deny: Severity,
    /// Deny nothing; say on standard error what would have been denied.
    pub dry_run: bool,
    /// Take each message's time from its `_meta` (`callint/ts`) when it
    /// has one: a recorded call replayed through the proxy keeps its times.
    pub clock_from_meta: bool,
}

/// The key of `_meta` a replayed message carries its time in.
pub const META_TS: &str = "callint/ts";

/// The judge of pending calls: the session's trace read as it goes by
/// ([`mcp::Partial`]), its records in the live engine ([`Live`]).
///
/// Only what the trace reader turns into records is read: `tools/call`
/// requests and the responses to them. Each is read once, when it passes;
/// a pending call costs its own line and the judgment of its call.
pub struct Judge {
    linter: Arc<Linter>,
    reader: mcp::Partial,
    live: Live,
    /// Ids (as JSON text) of the `tools/call` requests read and not yet
    /// answered.
    calls: HashSet<String>,
    /// The call the records read last belong to ([`name_calls`](crate::model::name_calls)).
    call: Option<Name>,
}

impl Judge {
    pub fn new(linter: Arc<Linter>) -> Judge {
        Judge {
            linter,
            reader: mcp::Partial::new(),
            live: Live::new(None),
            calls: HashSet::default(),
            call: None,
        }
    }

    /// Note a message that went by, as the line `line` of the trace.
    pub fn note(&mut self, msg: &Value, line: &[u8]) {
        let keep = match msg {
            // Every message of a batch is noted (no short cut).
            Value::Array(items) => {
                let mut any = false;
                for m in items {
                    any |= self.wanted(m);
                }
                any
            }
            m => self.wanted(m),
        };
        if !keep {
            return;
        }
        for (place, r) in self.reader.read(line) {
            let r = self.named(r);
            self.live.insert(place as u64, r);
        }
        // What breaks the trace is the recording's to show, not the judge's.
        self.reader.take_problems();
    }

    /// The record with its call named, as [`name_calls`](crate::model::name_calls) names it (the
    /// records before the first that starts a call are left unnamed: the
    /// live engine counts them to the first call, as `check` does).
    fn named(&mut self, mut r: Record) -> Record {
        if let Some(id) = r.starts_call() {
            self.call = Some(Name::from(id));
        }
        if let Some(c) = &self.call {
            r.set_call(c.clone());
        }
        r
    }

    fn wanted(&mut self, m: &Value) -> bool {
        let id = match m.get("id") {
            Some(v) if !v.is_null() => v.to_string(),
            _ => return false,
        };
        match m.get("method").and_then(Value::as_str) {
            Some("tools/call") => {
                self.calls.insert(id);
                true
            }
            Some(_) => false,
            None => self.calls.remove(&id),
        }
    }

    /// The findings on `line`, the envelope of a `tools/call` request not
    /// yet sent, as the next line of the trace.
    pub fn pending(&mut self, line: &[u8]) -> Vec<Diagnostic> {
        let mut probe = self.reader.clone();
        let start = probe.bytes();
        let settled = probe.read(line);
        debug_assert!(settled.is_empty(), "a request settles no call");
        let mut waiting = probe.waiting();
        let Some(k) = waiting.iter().rposition(|(_, r)| r.span.start >= start) else {
            return Vec::new();
        };
        let (_, pending) = waiting.remove(k);
        // Named as if read, then the state as it was.
        let call = self.call.clone();
        let waiting: Vec<(u64, Record)> = waiting
            .into_iter()
            .map(|(p, r)| (p as u64, self.named(r)))
            .collect();
        let pending = self.named(pending);
        self.call = call;
        self.live.judge_with(&self.linter, waiting, pending)
    }
}

/// The voicehook function a `tools/call` request calls, if it is one.
fn call_function(m: &Value) -> Option<&str> {
    let name = m.get("params")?.get("name")?.as_str()?;
    let f = function_name(name);
    FUNCTIONS.contains(&f).then_some(f)
}

/// Which way a message went.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Dir {
    /// From the client to the server.
    Send,
    /// From the server to the client (or the proxy's own answer).
    Recv,
}

impl Dir {
    fn name(self) -> &'static str {
        match self {
            Dir::Send => "send",
            Dir::Recv => "recv",
        }
    }
}

/// The envelope line of one message: `{"ts", "dir", "message"}` and a line
/// break. The message is written as it came when it is one line of JSON.
pub fn envelope(ts: Option<Ms>, dir: Dir, raw: &[u8], msg: &Value, by_proxy: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() + 80);
    match ts {
        Some(t) => {
            out.extend_from_slice(b"{\"ts\":\"");
            out.extend_from_slice(ts::format_rfc3339(t).as_bytes());
            out.extend_from_slice(b"\",\"dir\":\"");
        }
        None => out.extend_from_slice(b"{\"ts\":null,\"dir\":\""),
    }
    out.extend_from_slice(dir.name().as_bytes());
    out.extend_from_slice(b"\",");
    if by_proxy {
        out.extend_from_slice(b"\"by\":\"callint\",");
    }
    out.extend_from_slice(b"\"message\":");
    let raw = trim(raw);
    if raw.is_empty() || raw.iter().any(|&b| b == b'\n' || b == b'\r') {
        out.extend_from_slice(msg.to_string().as_bytes());
    } else {
        out.extend_from_slice(raw);
    }
    out.extend_from_slice(b"}\n");
    out
}

fn trim(raw: &[u8]) -> &[u8] {
    let start = raw
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(raw.len());
    let end = raw
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |k| k + 1);
    &raw[start..end]
}

/// Where the recordings go: one file for every session, or a folder with
/// one file per session.
#[derive(Clone, Debug)]
pub enum RecordTo {
    File(PathBuf),
    Folder(PathBuf),
}

impl RecordTo {
    /// `--record PATH`: a folder when it is one or ends in a slash.
    pub fn from_arg(path: &Path) -> RecordTo {
        let s = path.to_string_lossy();
        if path.is_dir() || s.ends_with('/') || s.ends_with(std::path::MAIN_SEPARATOR) {
            RecordTo::Folder(path.to_path_buf())
        } else {
            RecordTo::File(path.to_path_buf())
        }
    }

    /// Open the recording of a new session (`name` tells sessions apart
    /// in a folder).
    pub fn open(&self, name: &str) -> io::Result<Recorder> {
        let path = match self {
            RecordTo::File(p) => p.clone(),
            RecordTo::Folder(dir) => {
                std::fs::create_dir_all(dir)?;
                let stamp = ts::format_rfc3339(now_ms()).replace([':', '.'], "-");
                let safe: String = name
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '-' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .take(64)
                    .collect();
                dir.join(format!("{stamp}-{safe}.jsonl"))
            }
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)?;
        Ok(Recorder {
            out: BufWriter::new(file),
            path,
            failed: false,
        })
    }
}

/// One session's recording: line by line, each flushed, so that a crash
/// loses at most the line being written.
pub struct Recorder {
    out: BufWriter<File>,
    path: PathBuf,
    failed: bool,
}

impl Recorder {
    fn write(&mut self, line: &[u8]) {
        if self.failed {
            return;
        }
        if let Err(e) = self.out.write_all(line).and_then(|()| self.out.flush()) {
            self.failed = true;
            warn(&format!(
                "cannot write the recording {}: {e}; recording stopped",
                crate::core::escape::file_name(&self.path.to_string_lossy())
            ));
        }
    }
}

/// What was denied (or would have been, in a dry run), for the summary.
#[derive(Debug, Default)]
pub struct Tally {
    pub judged: usize,
    pub denied: usize,
    pub would_deny: usize,
    /// Denials per rule.
    pub rules: BTreeMap<&'static str, usize>,
}

impl Tally {
    /// The closing summary, one line.
    pub fn summary(&self) -> String {
        let what = if self.would_deny > 0 && self.denied == 0 {
            format!("{} would have been denied", self.would_deny)
        } else {
            format!("{} denied", self.denied)
        };
        let mut s = format!("{} voicehook calls judged, {what}", self.judged);
        if !self.rules.is_empty() {
            let per: Vec<String> = self.rules.iter().map(|(r, n)| format!("{r} {n}")).collect();
            s.push_str(&format!(" ({})", per.join(", ")));
        }
        s
    }
}

/// Print `callint proxy: MSG` on standard error.
pub fn warn(msg: &str) {
    let _ = writeln!(io::stderr().lock(), "callint proxy: {msg}");
}

pub fn now_ms() -> Ms {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// What to do with a message from the client.
#[derive(Debug, Default)]
pub struct FromClient {
    /// The bytes to pass on to the server: the message as it came, or the
    /// rest of a batch once denied calls are taken out of it.
    pub forward: Option<Vec<u8>>,
    /// The proxy's own answers to the client (denials, a parse error).
    pub answers: Vec<Value>,
    /// The ids (JSON text) of the requests passed on.
    pub requests: Vec<String>,
    /// The message was a batch: the answers belong in one.
    pub batch: bool,
}

/// A message from the server that is not JSON.
#[derive(Debug)]
pub struct Garbage(pub String);

/// One MCP session through the proxy: its judge, its recording, the
/// requests it passed on that the server has not answered.
pub struct Session {
    judge: Judge,
    record: Option<Recorder>,
    policy: Policy,
    /// Requests passed on to the server and not answered yet, by id (JSON
    /// text), in the order they were sent.
    in_flight: Vec<(String, Value)>,
    tally: Arc<Mutex<Tally>>,
    /// The time of the last message, for a replay's messages without one.
    last_ts: Option<Ms>,
}

impl Session {
    pub fn new(
        linter: Arc<Linter>,
        policy: Policy,
        record: Option<Recorder>,
        tally: Arc<Mutex<Tally>>,
    ) -> Session {
        Session {
            judge: Judge::new(linter),
            record,
            policy,
            in_flight: Vec::new(),
            tally,
            last_ts: None,
        }
    }

    fn time_of(&mut self, msg: &Value) -> Option<Ms> {
        let t = if self.policy.clock_from_meta {
            let stamp = |m: &Value| {
                let meta = m
                    .get("params")
                    .or_else(|| m.get("result"))
                    .and_then(|p| p.get("_meta"))?;
                ts::parse_rfc3339(meta.get(META_TS)?.as_str()?)
            };
            let first = match msg {
                Value::Array(items) => items.iter().find_map(stamp),
                m => stamp(m),
            };
            first.or(self.last_ts)
        } else {
            Some(now_ms())
        };
        self.last_ts = self.last_ts.max(t);
        t
    }

    /// Record a message and note it in the judge.
    fn pass(&mut self, ts: Option<Ms>, dir: Dir, raw: &[u8], msg: &Value, by_proxy: bool) {
        let line = envelope(ts, dir, raw, msg, by_proxy);
        if let Some(r) = &mut self.record {
            r.write(&line);
        }
        self.judge.note(msg, &line);
    }

    /// A message (or batch) from the client.
    pub fn from_client(&mut self, raw: &[u8]) -> FromClient {
        let mut out = FromClient::default();
        if trim(raw).is_empty() {
            return out;
        }
        let msg: Value = match serde_json::from_slice(raw) {
            Ok(v) => v,
            Err(e) => {
                warn(&format!(
                    "the client sent a message that is not JSON ({e}); answered with a parse error"
                ));
                out.answers.push(json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32700, "message": format!("Parse error: {e}")}}));
                return out;
            }
        };
        let ts = self.time_of(&msg);
        let items: Vec<Value> = match &msg {
            Value::Array(items) => {
                out.batch = true;
                items.clone()
            }
            m => vec![m.clone()],
        };
        let mut kept = Vec::with_capacity(items.len());
        for m in items {
            match self.verdict(&m, ts) {
                Some(denial) => {
                    // The request and the proxy's answer, as the client saw them.
                    self.pass(ts, Dir::Send, b"", &m, false);
                    self.pass(ts, Dir::Recv, b"", &denial, true);
                    out.answers.push(denial);
                }
                None => kept.push(m),
            }
        }
        for m in &kept {
            if let (Some(id), Some(_)) = (m.get("id").filter(|v| !v.is_null()), m.get("method")) {
                out.requests.push(id.to_string());
                self.in_flight.push((id.to_string(), id.clone()));
            }
        }
        if out.answers.is_empty() {
            self.pass(ts, Dir::Send, raw, &msg, false);
            out.forward = Some(trim(raw).to_vec());
        } else if !kept.is_empty() {
            let rest = Value::Array(kept);
            let bytes = rest.to_string().into_bytes();
            self.pass(ts, Dir::Send, &bytes, &rest, false);
            out.forward = Some(bytes);
        }
        out
    }

    /// Judge `m` when it is a `tools/call` of a voicehook function: the
    /// proxy's answer when it is denied.
    fn verdict(&mut self, m: &Value, ts: Option<Ms>) -> Option<Value> {
        if m.get("method").and_then(Value::as_str) != Some("tools/call") {
            return None;
        }
        let function = call_function(m)?.to_string();
        let id = m.get("id").filter(|v| !v.is_null())?.clone();
        let line = envelope(ts, Dir::Send, b"", m, false);
        let findings = self.judge.pending(&line);
        let denied = denying(&findings, self.policy.deny);
        let mut tally = self.tally.lock().unwrap_or_else(|e| e.into_inner());
        tally.judged += 1;
        if denied.is_empty() {
            return None;
        }
        for d in &denied {
            *tally.rules.entry(d.rule).or_default() += 1;
        }
        let rules: Vec<&str> = dedup(denied.iter().map(|d| d.rule));
        let first = one_line(denied[0].message.trim_end_matches('.'));
        if self.policy.dry_run {
            tally.would_deny += 1;
            warn(&format!(
                "would deny {function} (request {}) for {}: {first}",
                one_line(&id.to_string()),
                rules.join(", ")
            ));
            return None;
        }
        tally.denied += 1;
        warn(&format!(
            "denied {function} (request {}) for {}: {first}",
            one_line(&id.to_string()),
            rules.join(", ")
        ));
        Some(json!({"jsonrpc": "2.0", "id": id, "result": {
            "content": [{"type": "text", "text": denial_text(&function, &denied)}],
            "isError": true,
        }}))
    }

    /// A message (or batch) from the server; an error when it is not JSON.
    pub fn from_server(&mut self, raw: &[u8]) -> Result<(), Garbage> {
        if trim(raw).is_empty() {
            return Ok(());
        }
        let msg: Value = serde_json::from_slice(raw).map_err(|e| {
            let start = &raw[..raw.len().min(60)];
            Garbage(format!(
                "the server sent a message that is not JSON ({e}): {}",
                crate::core::escape::quote(&String::from_utf8_lossy(start), 60)
            ))
        })?;
        let ts = self.time_of(&msg);
        let answered = |m: &Value| {
            (m.get("method").is_none())
                .then(|| m.get("id").filter(|v| !v.is_null()).map(Value::to_string))
                .flatten()
        };
        let ids: Vec<String> = match &msg {
            Value::Array(items) => items.iter().filter_map(answered).collect(),
            m => answered(m).into_iter().collect(),
        };
        self.in_flight.retain(|(id, _)| !ids.contains(id));
        self.pass(ts, Dir::Recv, raw, &msg, false);
        Ok(())
    }

    /// The proxy's answers to the requests in flight, when the server will
    /// not answer them (`why`), recorded; none is in flight after it.
    pub fn fail_in_flight(&mut self, why: &str) -> Vec<Value> {
        self.fail_these(None, why)
    }

    /// As [`Session::fail_in_flight`], for those of `ids` still in flight.
    pub fn fail_these(&mut self, ids: Option<&[String]>, why: &str) -> Vec<Value> {
        let (gone, left): (Vec<_>, Vec<_>) = std::mem::take(&mut self.in_flight)
            .into_iter()
            .partition(|(k, _)| ids.is_none_or(|ids| ids.contains(k)));
        self.in_flight = left;
        let mut out = Vec::new();
        for (_, id) in gone {
            let e = json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": UPSTREAM_ERROR, "message": why}});
            let ts = if self.policy.clock_from_meta {
                self.last_ts
            } else {
                Some(now_ms())
            };
            self.pass(ts, Dir::Recv, b"", &e, true);
            out.push(e);
        }
        out
    }

    /// How many requests wait for the server's answer.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Flush and close the recording.
    pub fn close(&mut self) {
        self.record = None;
    }
}

fn dedup<'a>(it: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut v: Vec<&str> = Vec::new();
    for r in it {
        if !v.contains(&r) {
            v.push(r);
        }
    }
    v
}

/// The text of the proxy's answer to a denied call: every finding, the
/// most severe first, with what to do about it.
pub fn denial_text(function: &str, denied: &[&Diagnostic]) -> String {
    let mut s = format!(
        "callint denied this {function}: it breaks {} of the call. Nothing was sent to the server.",
        if denied.len() == 1 {
            "a rule".to_string()
        } else {
            format!("{} rules", denied.len())
        }
    );
    for d in denied {
        let help = d
            .help
            .as_deref()
            .unwrap_or("change the call so that it keeps the rule, or leave it out");
        s.push_str(&format!(
            "\n- {} ({}): {}. What to do: {}.",
            d.rule,
            d.severity,
            one_line(d.message.trim_end_matches('.')),
            one_line(help.trim_end_matches('.'))
        ));
    }
    s.push_str(&format!(
        "\nSee `callint explain RULE` for each rule. Send the {function} again once it keeps them."
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linter() -> Arc<Linter> {
        Arc::new(Linter::new(&crate::lint::config::Config::default(), None, &[]).unwrap())
    }

    fn policy() -> Policy {
        Policy {
            deny: Severity::Warning,
            dry_run: false,
            clock_from_meta: false,
        }
    }

    #[test]
    fn a_long_say_is_answered_by_the_proxy_and_the_rest_passes() {
        let tally = Arc::new(Mutex::new(Tally::default()));
        let mut s = Session::new(linter(), policy(), None, tally.clone());
        let join = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"join","arguments":{"call_id":"c-1","label":"Kit"}}}"#;
        let out = s.from_client(join);
        assert_eq!(out.forward.as_deref(), Some(&join[..]));
        assert_eq!(s.in_flight(), 1);
        s.from_server(br#"{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"status":"joined","context":{"lang":"en"}}}}"#).unwrap();
        assert_eq!(s.in_flight(), 0);
        let words = vec!["word"; 45].join(" ");
        let say = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"say","arguments":{"text": words}}});
        let out = s.from_client(say.to_string().as_bytes());
        assert!(out.forward.is_none());
        let text = out.answers[0]["result"]["content"][0]["text"]
            .as_str()
            .unwrap();
        assert!(text.contains("long-say"), "{text}");
        assert_eq!(out.answers[0]["result"]["isError"], true);
        assert_eq!(s.in_flight(), 0);
        // a notification and garbage
        let n = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#;
        assert!(s.from_client(n).forward.is_some());
        let bad = s.from_client(b"{nope");
        assert_eq!(bad.answers[0]["error"]["code"], -32700);
        assert!(s.from_server(b"<html>").is_err());
        let t = tally.lock().unwrap();
        assert_eq!((t.judged, t.denied), (2, 1));
    }

    #[test]
    fn a_batch_keeps_what_passes() {
        let tally = Arc::new(Mutex::new(Tally::default()));
        let mut s = Session::new(linter(), policy(), None, tally);
        s.from_client(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"join","arguments":{"call_id":"c-1","label":"Kit"}}}"#);
        s.from_server(br#"{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"status":"joined","context":{"lang":"en"}}}}"#).unwrap();
        let words = vec!["word"; 45].join(" ");
        let batch = json!([
            {"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"say","arguments":{"text": words}}},
            {"jsonrpc":"2.0","id":"b","method":"tools/list"},
        ]);
        let out = s.from_client(batch.to_string().as_bytes());
        assert!(out.batch);
        assert_eq!(out.answers.len(), 1);
        let rest: Value = serde_json::from_slice(&out.forward.unwrap()).unwrap();
        assert_eq!(rest.as_array().unwrap().len(), 1);
        assert_eq!(rest[0]["id"], "b");
        let failed = s.fail_in_flight("gone");
        assert_eq!(failed[0]["id"], "b");
        assert_eq!(s.in_flight(), 0);
    }
}
