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
use std::time::{Duration, Instant};

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

/// The JSON-RPC error code of the proxy's answer to a request the server
/// did not answer within `--upstream-timeout` (the code the MCP SDKs give
/// a request that timed out).
pub const TIMED_OUT: i64 = -32001;

/// How long the server has to answer a request, unless `--upstream-timeout`
/// says otherwise (the default request timeout of the MCP SDKs).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The key of `_meta` in which a request of the stateless protocol
/// (2026-07-28 and later) declares its protocol version.
pub const META_PROTOCOL: &str = "io.modelcontextprotocol/protocolVersion";

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
    /// How long the server has to answer a request before the proxy
    /// answers it with an error ([`TIMED_OUT`]).
    pub upstream_timeout: Duration,
}

/// The protocol version a request declares in its `_meta`: set on every
/// request of the stateless protocol (2026-07-28), absent in the 2025
/// protocols, whose version is settled once by `initialize`.
pub fn declared_version(m: &Value) -> Option<&str> {
    m.get("params")?.get("_meta")?.get(META_PROTOCOL)?.as_str()
}

/// The headers a streamable-HTTP POST of `m` carries in the stateless
/// protocol, taken from the message: `MCP-Protocol-Version` (from
/// `_meta`), `Mcp-Method`, and `Mcp-Name` (the tool's or prompt's name, the
/// resource's URI) for the methods that name something. None for a message
/// of the 2025 protocols (no version in its `_meta`).
pub fn request_headers(m: &Value) -> Vec<(&'static str, String)> {
    let Some(version) = declared_version(m) else {
        return Vec::new();
    };
    let mut out = vec![("mcp-protocol-version", version.to_string())];
    if let Some(method) = m.get("method").and_then(Value::as_str) {
        out.push(("mcp-method", header_value(method)));
        let params = m.get("params");
        let name = match method {
            "tools/call" | "prompts/get" => params.and_then(|p| p.get("name")),
            "resources/read" => params.and_then(|p| p.get("uri")),
            _ => None,
        };
        if let Some(n) = name.and_then(Value::as_str) {
            out.push(("mcp-name", header_value(n)));
        }
    }
    out
}

/// A value as a header carries it: as it is when it is plain visible
/// ASCII without surrounding spaces, else in the `=?base64?...?=` form of
/// the streamable-HTTP transport (as is a plain value that looks like one).
pub fn header_value(s: &str) -> String {
    let visible = s.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = s.starts_with(' ') || s.ends_with(' ');
    let sentinel = s.starts_with("=?base64?") && s.ends_with("?=");
    let plain = !s.is_empty() && visible && !padded && !sentinel;
    if plain {
        s.to_string()
    } else {
        format!("=?base64?{}?=", base64(s.as_bytes()))
    }
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(ABC[((n >> (18 - 6 * k)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
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
pub(crate) fn call_function(m: &Value) -> Option<&str> {
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
    /// The headers a streamable-HTTP POST of the message carries in the
    /// stateless protocol ([`request_headers`]); empty for the 2025 ones.
    pub headers: Vec<(&'static str, String)>,
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
    /// text), in the order they were sent, with when.
    in_flight: Vec<(String, Value, Instant)>,
    /// Requests the proxy answered itself after the server did not in
    /// time: a late answer of the server's is not passed on.
    given_up: HashSet<String>,
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
            given_up: HashSet::default(),
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
        if !out.batch {
            out.headers = request_headers(&msg);
        }
        let mut kept = Vec::with_capacity(items.len());
        for m in items {
            match self.verdict(&m, ts) {
                Some(denial) => {
                    // The request as it came and the proxy's answer as it
                    // goes (the transports write it as `to_string` does).
                    let raw: &[u8] = if out.batch { b"" } else { raw };
                    self.pass(ts, Dir::Send, raw, &m, false);
                    self.pass(ts, Dir::Recv, b"", &denial, true);
                    out.answers.push(denial);
                }
                None => kept.push(m),
            }
        }
        for m in &kept {
            if let (Some(id), Some(_)) = (m.get("id").filter(|v| !v.is_null()), m.get("method")) {
                out.requests.push(id.to_string());
                self.given_up.remove(&id.to_string());
                self.in_flight
                    .push((id.to_string(), id.clone(), Instant::now()));
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
        let mut result = json!({
            "content": [{"type": "text", "text": denial_text(&function, &denied)}],
            "isError": true,
        });
        if declared_version(m).is_some() {
            // Every result of the stateless protocol says what it is.
            result["resultType"] = json!("complete");
        }
        Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }

    /// A message (or batch) from the server; an error when it is not JSON.
    /// False when it is not to be passed on: the answer to a request the
    /// proxy already answered, when the server took too long.
    pub fn from_server(&mut self, raw: &[u8]) -> Result<bool, Garbage> {
        if trim(raw).is_empty() {
            return Ok(false);
        }
        let msg: Value = serde_json::from_slice(raw).map_err(|e| {
            let raw = trim(raw);
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
        if let [id] = ids.as_slice() {
            if self.given_up.remove(id) {
                warn(&format!(
                    "the MCP server answered request {} after callint proxy had answered it (--upstream-timeout); dropped",
                    one_line(id)
                ));
                return Ok(false);
            }
        }
        self.in_flight.retain(|(id, _, _)| !ids.contains(id));
        self.pass(ts, Dir::Recv, raw, &msg, false);
        Ok(true)
    }

    /// The requests in flight longer than `--upstream-timeout`, answered by
    /// the proxy (a [`TIMED_OUT`] error each, recorded), with the
    /// `notifications/cancelled` to send the server for each; the
    /// server's late answers to them are dropped.
    pub fn expired(&mut self) -> (Vec<Value>, Vec<Value>) {
        let limit = self.policy.upstream_timeout;
        let ids: Vec<String> = self
            .in_flight
            .iter()
            .filter(|(_, _, at)| at.elapsed() >= limit)
            .map(|(k, _, _)| k.clone())
            .collect();
        if ids.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let why = format!(
            "the MCP server did not answer within {} (--upstream-timeout)",
            seconds(limit)
        );
        warn(&format!(
            "{why}: {} request(s) answered with an error",
            ids.len()
        ));
        let answers = self.answer_these(Some(&ids), TIMED_OUT, &why);
        let mut cancels = Vec::new();
        for a in &answers {
            let c = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": a["id"], "reason": why}});
            self.given_up.insert(a["id"].to_string());
            let ts = self.proxy_time();
            self.pass(ts, Dir::Send, b"", &c, true);
            cancels.push(c);
        }
        (answers, cancels)
    }

    /// When the oldest request in flight runs out of time, if one is.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.in_flight
            .iter()
            .map(|(_, _, at)| *at + self.policy.upstream_timeout)
            .min()
    }

    fn proxy_time(&self) -> Option<Ms> {
        if self.policy.clock_from_meta {
            self.last_ts
        } else {
            Some(now_ms())
        }
    }

    /// The proxy's answers to the requests in flight, when the server will
    /// not answer them (`why`), recorded; none is in flight after it.
    pub fn fail_in_flight(&mut self, why: &str) -> Vec<Value> {
        self.fail_these(None, why)
    }

    /// As [`Session::fail_in_flight`], for those of `ids` still in flight.
    pub fn fail_these(&mut self, ids: Option<&[String]>, why: &str) -> Vec<Value> {
        self.answer_these(ids, UPSTREAM_ERROR, why)
    }

    /// Answer those of `ids` (all when None) still in flight with a
    /// JSON-RPC error, recorded as sent.
    fn answer_these(&mut self, ids: Option<&[String]>, code: i64, why: &str) -> Vec<Value> {
        let (gone, left): (Vec<_>, Vec<_>) = std::mem::take(&mut self.in_flight)
            .into_iter()
            .partition(|(k, _, _)| ids.is_none_or(|ids| ids.contains(k)));
        self.in_flight = left;
        let mut out = Vec::new();
        for (_, id, _) in gone {
            let e = json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": code, "message": why}});
            let ts = self.proxy_time();
            self.pass(ts, Dir::Recv, b"", &e, true);
            out.push(e);
        }
        out
    }

    /// Those of `ids` still in flight, answered by the proxy when the
    /// server took longer than `--upstream-timeout` (a [`TIMED_OUT`]
    /// error each, recorded).
    pub fn answer_late(&mut self, ids: &[String], why: &str) -> Vec<Value> {
        self.answer_these(Some(ids), TIMED_OUT, why)
    }

    /// Take those of `ids` out of the requests in flight, unanswered: the
    /// client gave up on them.
    pub fn forget(&mut self, ids: &[String]) {
        self.in_flight.retain(|(k, _, _)| !ids.contains(k));
    }

    /// Whether any of `ids` waits for the server's answer.
    pub fn waits_for(&self, ids: &[String]) -> bool {
        self.in_flight.iter().any(|(k, _, _)| ids.contains(k))
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

/// `90 s`, `1.5 s`.
fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
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
            upstream_timeout: DEFAULT_TIMEOUT,
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
    fn headers_of_the_stateless_protocol_come_from_the_message() {
        let m = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "say", "arguments": {},
            "_meta": {META_PROTOCOL: "2026-07-28"}}});
        assert_eq!(
            request_headers(&m),
            vec![
                ("mcp-protocol-version", "2026-07-28".to_string()),
                ("mcp-method", "tools/call".to_string()),
                ("mcp-name", "say".to_string()),
            ]
        );
        let r = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {
            "uri": "file:///a b/ü", "_meta": {META_PROTOCOL: "2026-07-28"}}});
        assert_eq!(
            request_headers(&r)[2],
            ("mcp-name", "=?base64?ZmlsZTovLy9hIGIvw7w=?=".to_string())
        );
        // The 2025 protocols: nothing from the message.
        let old = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
        assert!(request_headers(&old).is_empty());
        assert_eq!(header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(
            header_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(
            header_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    }

    #[test]
    fn a_late_answer_after_the_proxys_error_is_dropped() {
        let tally = Arc::new(Mutex::new(Tally::default()));
        let policy = Policy {
            upstream_timeout: Duration::ZERO,
            ..policy()
        };
        let mut s = Session::new(linter(), policy, None, tally);
        s.from_client(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#);
        let (answers, cancels) = s.expired();
        assert_eq!(answers[0]["error"]["code"], TIMED_OUT);
        assert_eq!(cancels[0]["params"]["requestId"], 7);
        assert_eq!(s.in_flight(), 0);
        let late = br#"{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}"#;
        assert!(!s.from_server(late).unwrap());
        // The id used again is a new request, answered as usual.
        s.from_client(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#);
        assert!(s.from_server(late).unwrap());
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
