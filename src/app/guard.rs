//! `callint guard`: judge a voicehook call an agent is about to make, before
//! it is made.
//!
//! Claude Code runs a command before each tool call (a `PreToolUse` hook)
//! and hands it, as JSON on standard input, the tool's name, its input and
//! the path of the session transcript. The guard reads the end of that
//! transcript (from the last `join` or `create_call` of the same server on:
//! everything the call so far consists of, see `read_tail`), appends the
//! pending call to it as the client would write it, reads the whole through
//! the session reader ([`crate::input::claude`]) and lets the engine judge
//! the pending record alone ([`crate::lint::live::judge_pending`]). What
//! it read is kept between runs (`kept`), so the next call costs only the
//! lines written since. A Codex rollout is read the same way
//! ([`client::rollout`]).
//!
//! The guard never stands in an agent's way by failing: whatever it cannot
//! read or judge, it lets through, and says why ([`Verdict::Allow`]).

use crate::core::hash::HashSet;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::core::diagnostic::{Diagnostic, Severity};
use crate::core::escape::one_line;
use crate::core::meta::Evidence;
use crate::input::server::{function_name, split_mcp_name, FUNCTIONS};
use crate::input::session::LineReader;
use crate::input::{claude, ts};
use crate::lint::engine::Linter;
use crate::model::{Body, Ms};

pub mod client;
pub mod doctor;
pub mod feedback;
pub mod install;
mod jsonc;
pub(crate) mod kept;
pub mod notes;
pub mod server;

pub use kept::default_dir as default_cache_dir;

type Obj = Map<String, Value>;

/// The tool-use id the pending call is given in the transcript it is
/// appended to.
const PENDING_ID: &str = "callint-pending";

/// What a `PreToolUse` hook input holds that the guard needs.
#[derive(Debug)]
pub struct Hook {
    pub transcript_path: Option<PathBuf>,
    /// The session the call is made in: what the guard keeps between
    /// calls is kept per session.
    pub session_id: Option<String>,
    /// The folder the agent works in: where `callint.toml` is looked for.
    pub cwd: Option<PathBuf>,
    /// The tool about to be called, as Claude Code names it
    /// (`mcp__<server>__<tool>`).
    pub tool_name: String,
    pub tool_input: Obj,
    /// Set when the call comes from a subagent rather than the main thread.
    pub agent_id: Option<String>,
    /// The id of the pending `tool_use`: the client may have written it to
    /// the transcript already.
    pub tool_use_id: Option<String>,
}

/// Read a hook input: one JSON object. The error says what is wrong with it.
pub fn read_hook(bytes: &[u8]) -> Result<Hook, String> {
    let v: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("the hook input is not JSON ({e})"))?;
    let Value::Object(mut o) = v else {
        return Err("the hook input is not a JSON object".into());
    };
    let string = |o: &Obj, k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(event) = o.get("hook_event_name") {
        if event.as_str() != Some("PreToolUse") {
            return Err(format!(
                "the hook input is for {}, not PreToolUse",
                one_line(&event.to_string())
            ));
        }
    }
    let tool_name =
        string(&o, "tool_name").ok_or_else(|| "the hook input has no `tool_name`".to_string())?;
    let tool_input = match o.remove("tool_input") {
        None | Some(Value::Null) => Obj::new(),
        Some(Value::Object(i)) => i,
        Some(_) => return Err("the hook input's `tool_input` is not an object".into()),
    };
    Ok(Hook {
        transcript_path: string(&o, "transcript_path").map(PathBuf::from),
        session_id: string(&o, "session_id").filter(|s| !s.is_empty()),
        cwd: string(&o, "cwd").map(PathBuf::from),
        tool_name,
        tool_input,
        agent_id: string(&o, "agent_id").filter(|s| !s.is_empty()),
        tool_use_id: string(&o, "tool_use_id").filter(|s| !s.is_empty()),
    })
}

/// What the guard makes of one pending call.
#[derive(Debug)]
pub enum Verdict {
    /// Let it through without judging it, for the reason given.
    Allow(String),
    /// The session file could not be read, for the reason given (not a
    /// regular file, unreadable, the call too long): the call is to be
    /// judged with no history, by itself ([`client::alone`]).
    Unread(String),
    /// The findings on the pending call (none: it breaks no rule).
    Judged(Vec<Diagnostic>),
}

/// Judge the call `hook` announces, at time `now` (or the transcript's last
/// time, when that is later).
pub fn judge(linter: &Linter, hook: &Hook, now: Ms) -> Verdict {
    judge_kept(linter, hook, now, None)
}

/// Where and how often the guard keeps the state of a session's call
/// ([`kept`]).
#[derive(Clone, Copy, Debug)]
pub struct Keep<'a> {
    /// The folder of the states, one file per session.
    pub dir: &'a Path,
    /// How many more bytes of the transcript must have been read since
    /// the kept state before it is written again: writing it costs more
    /// than reading a few lines again on the next run.
    pub rewrite_after: u64,
}

/// What [`Keep::rewrite_after`] is unless told otherwise.
pub const REWRITE_AFTER: u64 = 256 << 10;

/// [`judge`], keeping the state of the session's call as `keep` says (when
/// given) for the next call to start from.
pub fn judge_kept(linter: &Linter, hook: &Hook, now: Ms, keeping: Option<Keep<'_>>) -> Verdict {
    judge_transcript(linter, linter.read_options(), hook, now, keeping)
}

/// [`judge_kept`], the transcript read with the reader options `opts`
/// (the configuration's, and the server when the client's hook input
/// tells it is voicehook's: [`server::is_voicehook`]).
pub(crate) fn judge_transcript(
    linter: &Linter,
    opts: &crate::input::Options,
    hook: &Hook,
    now: Ms,
    keeping: Option<Keep<'_>>,
) -> Verdict {
    let name = one_line(&hook.tool_name);
    let (server, _) = match voicehook_tool(hook) {
        Ok(t) => t,
        Err(v) => return v,
    };
    let Some(path) = &hook.transcript_path else {
        return Verdict::Allow("the hook input names no transcript".into());
    };
    let (parsed, base) =
        match read_session::<Claude>(linter, opts, hook, path, server, now, keeping) {
            Ok(r) => r,
            Err(v) => return v,
        };
    let Some(log) = parsed.logs.into_iter().next() else {
        return Verdict::Allow(format!(
            "the session shows no call of voicehook, and {name} alone does not tell its server is voicehook"
        ));
    };
    let Some(k) = log.records.iter().rposition(|r| r.span.start >= base) else {
        return Verdict::Allow(format!("{name} could not be read as a voicehook call"));
    };
    judge_record(linter, log, k, server)
}

/// A client's session file of one entry a line, as the guard reads it:
/// which line starts a call, how the client writes the pending call and
/// how it is taken out when the client wrote it already, which lines the
/// rules that judge a pending call read, and the reader of its lines.
pub(crate) trait Shape {
    /// The session reader, kept between runs.
    type Reader: LineReader + Serialize + DeserializeOwned;
    /// The client's name: the states of two shapes are never mixed up.
    const NAME: &'static str;
    /// What the file is called in a reason ("transcript").
    const FILE: &'static str;
    /// True when `line` starts a call of `server` (its `join` or
    /// `create_call`), read from its JSON.
    fn starts_call(line: &[u8], server: &str) -> bool;
    /// Take the pending call `id` out of `bytes`, if the client wrote it
    /// already; where the first line changed starts.
    fn drop_pending(bytes: &mut Vec<u8>, id: &str) -> Option<usize>;
    /// The lines of `part` that the rules judging a pending call of
    /// `server` read (all with `all`), as their spans in `part`, in order;
    /// `ids` holds the ids of the calls read before `part` and gets those
    /// of `part`'s, so that reading a file in parts keeps the same lines
    /// as reading it whole.
    fn calls_only(part: &[u8], server: &str, all: bool, ids: &mut HashSet<Vec<u8>>) -> Lines;
    /// The line the client writes for the pending call, at time `when`.
    fn pending_entry(hook: &Hook, when: Ms) -> String;
    /// The lines the client writes for a call done with its `answer`, at
    /// time `when`: the call and what answered it, as the session will
    /// hold them.
    fn done_entry(hook: &Hook, answer: &feedback::Answer, when: Ms) -> String;
    /// Take the call `id` and its answer out of `bytes`, where the client
    /// wrote them already; where the first line changed starts.
    fn drop_done(bytes: &mut Vec<u8>, id: &str) -> Option<usize> {
        Self::drop_pending(bytes, id)
    }
    /// The lines before offset `tail` (the call's start) that the reader
    /// must read too, with their offsets: none unless the shape says.
    fn before_call(_file: &mut File, _tail: u64) -> io::Result<Vec<(u64, Vec<u8>)>> {
        Ok(Vec::new())
    }
}

/// Claude Code's session transcript.
struct Claude;

impl Shape for Claude {
    type Reader = claude::Reader;
    const NAME: &'static str = "claude-code";
    const FILE: &'static str = "transcript";

    fn starts_call(line: &[u8], server: &str) -> bool {
        starts_call(line, server)
    }

    fn drop_pending(bytes: &mut Vec<u8>, id: &str) -> Option<usize> {
        drop_block(bytes, id)
    }

    fn calls_only(part: &[u8], server: &str, all: bool, ids: &mut HashSet<Vec<u8>>) -> Lines {
        calls_only(part, server, all, ids)
    }

    fn pending_entry(hook: &Hook, when: Ms) -> String {
        pending_entry(hook, when)
    }

    fn done_entry(hook: &Hook, answer: &feedback::Answer, when: Ms) -> String {
        let result = json!({
            "type": "user",
            "timestamp": ts::format_rfc3339(when),
            "isSidechain": hook.agent_id.is_some(),
            "message": {
                "role": "user",
                "content": [{
                    "type": "tool_result",
                    "tool_use_id": PENDING_ID,
                    "content": [{"type": "text", "text": answer.text}],
                    "is_error": answer.error,
                }],
            },
        });
        format!("{}\n{result}", pending_entry(hook, when))
    }

    fn drop_done(bytes: &mut Vec<u8>, id: &str) -> Option<usize> {
        let call = drop_block(bytes, id);
        let answer = feedback::drop_result(bytes, id);
        match (call, answer) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Judge the call `hook` announces from the session file of shape `S` at
/// `path`, at time `now` (or the file's last time, when that is later),
/// keeping what was read as `keeping` says (when given) for the next call.
pub(crate) fn judge_session<S: Shape>(
    linter: &Linter,
    opts: &crate::input::Options,
    hook: &Hook,
    path: &std::path::Path,
    now: Ms,
    keeping: Option<Keep<'_>>,
) -> Verdict {
    let name = one_line(&hook.tool_name);
    let (server, _) = match voicehook_tool(hook) {
        Ok(t) => t,
        Err(v) => return v,
    };
    match read_session::<S>(linter, opts, hook, path, server, now, keeping) {
        Ok((parsed, base)) => judge_appended(linter, parsed, base, server, &name),
        Err(v) => v,
    }
}

/// Read the call the pending call of `hook` (to `server`) belongs to from
/// the session file at `path`, with the pending call appended as the
/// client writes it, at time `now` (or the file's last time, when that is
/// later): from the line of the call's last `join` or `create_call` on
/// ([`read_tail`]), or on from the state kept by the last run when
/// `keeping` says to keep one and it still holds. Returns what the reader
/// made of it and where the pending call was appended (in the bytes the
/// reader read); the verdict that lets the call through when the file
/// cannot be read or is being written.
pub(crate) fn read_session<S: Shape>(
    linter: &Linter,
    opts: &crate::input::Options,
    hook: &Hook,
    path: &Path,
    server: &str,
    now: Ms,
    keeping: Option<Keep<'_>>,
) -> Result<(crate::input::Parsed, usize), Verdict> {
    let id = hook.tool_use_id.as_deref();
    let appending = Appending {
        entry: &|when| S::pending_entry(hook, when),
        drop: &|bytes| id.and_then(|id| S::drop_pending(bytes, id)),
        all: !only_calls_read(linter),
        whole: false,
    };
    read_session_with::<S>(opts, hook, path, server, now, keeping, &appending)
}

/// What is appended to a session as read, and how it is read: the
/// pending call before it is made ([`read_session`]), or a call done with
/// its answer, for the feedback after it ([`feedback`]).
pub(crate) struct Appending<'a> {
    /// The lines the client writes for the call, at a time.
    pub entry: &'a dyn Fn(Ms) -> String,
    /// Take the call out of the bytes read where the client wrote it
    /// already; where the first line changed starts.
    pub drop: &'a dyn Fn(&mut Vec<u8>) -> Option<usize>,
    /// Read every line, not only the server's calls and their answers.
    pub all: bool,
    /// Read from the file's start (within [`MAX_CALL_BYTES`]), not from
    /// the call's last `join` or `create_call`.
    pub whole: bool,
}

/// [`read_session`], appending and reading as `appending` says.
pub(crate) fn read_session_with<S: Shape>(
    opts: &crate::input::Options,
    hook: &Hook,
    path: &Path,
    server: &str,
    now: Ms,
    keeping: Option<Keep<'_>>,
    appending: &Appending<'_>,
) -> Result<(crate::input::Parsed, usize), Verdict> {
    let cannot = |e: io::Error| {
        Verdict::Unread(format!(
            "cannot read the {} {}: {e}",
            S::FILE,
            crate::core::escape::file_name(&path.to_string_lossy())
        ))
    };
    let mut file = open_session(path, S::FILE).map_err(Verdict::Unread)?;
    let room = (appending.entry)(now).len() + 64;
    // Where the read starts: the line of the call's last `join` or
    // `create_call`, or with `whole` the file's start.
    fn never(_: &[u8], _: &str) -> bool {
        false
    }
    let starts: fn(&[u8], &str) -> bool = if appending.whole {
        never
    } else {
        S::starts_call
    };
    let slot = keeping.map(|k| {
        kept::Slot::new(
            k.dir,
            S::NAME,
            hook.session_id.as_deref(),
            path,
            server,
            &format!("{opts:?}"),
        )
    });
    // The state kept from the last run, with the bytes written since, if
    // it still holds, the call did not start again since, and the pending
    // call is not among what it read.
    let resumed = slot
        .as_ref()
        .and_then(|s| s.load::<S::Reader>(&mut file))
        .filter(|(k, new)| {
            call_start_in(new, server, starts).is_none()
                && hook
                    .tool_use_id
                    .as_ref()
                    .is_none_or(|id| !k.ids.contains(id.as_bytes()))
        });
    let loaded = resumed.as_ref().map(|(k, _)| k.end);
    let (mut kept, mut bytes) = match resumed {
        Some(r) => r,
        None => {
            // A read of the whole call: a long run, for which huge pages pay.
            crate::app::alloc::huge_pages_again();
            let (tail, bytes) = read_tail(&mut file, server, room, starts).map_err(cannot)?;
            let before = S::before_call(&mut file, tail).map_err(cannot)?;
            (kept::Kept::fresh(opts, tail, before), bytes)
        }
    };
    if cut_off(&bytes) {
        // The entry being written could change the verdict (an event that
        // addressed this agent): better no judgment than a wrong one.
        return Err(Verdict::Allow(format!(
            "the {}'s last line is cut off (still being written); the call was not judged",
            S::FILE
        )));
    }
    let taken = (appending.drop)(&mut bytes);
    // What is kept for the next run: the whole lines, up to the one the
    // pending call was taken out of.
    let whole = memchr::memrchr(b'\n', &bytes).map_or(0, |k| k + 1);
    let keep = taken.map_or(whole, |t| t.min(whole));
    let mut recent = times(&bytes);
    recent.extend(kept.times.iter().copied());
    recent.truncate(TIME_TRIES);
    let when = recent
        .into_iter()
        .flatten()
        .next()
        .map_or(now, |t| t.max(now));
    let all = appending.all;
    let done = S::calls_only(&bytes[..keep], server, all, &mut kept.ids);
    let rewrite = slot.is_some()
        && keep > 0
        && loaded.is_none_or(|end| {
            kept.end + keep as u64 - end >= keeping.map_or(0, |k| k.rewrite_after)
        });
    if rewrite {
        kept.advance(&bytes[..keep], times(&bytes[..keep]));
    }
    // The lines kept are moved together in place: the buffer holds the
    // whole call, and a second one as large costs its pages.
    let done = gather(&mut bytes, 0, &done, 0);
    kept.reader.read(&bytes[..done], false);
    let state = match &slot {
        Some(s) if rewrite => file.metadata().ok().and_then(|m| s.serialize(&kept, &m)),
        _ => None,
    };
    // The lines moved are all before `keep`: those after are as read.
    let rest = S::calls_only(&bytes[keep..], server, all, &mut kept.ids);
    let end = gather(&mut bytes, keep, &rest, done);
    bytes.truncate(end);
    if end > done && bytes.last() != Some(&b'\n') {
        bytes.push(b'\n');
    }
    let base = kept.reader.bytes() + (bytes.len() - done);
    bytes.extend_from_slice((appending.entry)(when).as_bytes());
    kept.reader.read(&bytes[done..], true);
    drop(bytes);
    let parsed = kept.reader.finish();
    if let (Some(slot), Some(state)) = (&slot, state) {
        slot.write(&state);
    }
    Ok((parsed, base))
}

/// The most of a session file read for one call: from the line that
/// starts the call (its last `join` or `create_call`) to the end of the
/// file. A call longer than this (hours of an agent's work in one call) is
/// judged with no history, as no session were named; the search for the
/// call's start goes back no further either.
pub const MAX_CALL_BYTES: u64 = 256 << 20;

/// The session file at `path` (what it is called: `what`), opened to be
/// read, if it is a regular file. A device (`/dev/zero`), a FIFO, a socket
/// or a folder is refused before it is opened, and opened without waiting
/// (a FIFO's open waits for a writer) and checked again once open, so that
/// reading it can neither wait nor go on without end. The error says why,
/// for the note of a call judged with no history.
pub(crate) fn open_session(path: &Path, what: &str) -> Result<File, String> {
    let shown = crate::core::escape::file_name(&path.to_string_lossy());
    let not_regular = || {
        format!(
            "the {what} {shown} is not a regular file (a device, a FIFO or a folder is never read)"
        )
    };
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read the {what} {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| format!("cannot read the {what} {shown}: {e}"))?;
    match file.metadata() {
        Ok(m) if m.is_file() => Ok(file),
        Ok(_) => Err(not_regular()),
        Err(e) => Err(format!("cannot read the {what} {shown}: {e}")),
    }
}

/// The server and tool of the voicehook function `hook` calls, or the
/// verdict that lets a call of anything else through unjudged.
pub(crate) fn voicehook_tool(hook: &Hook) -> Result<(&str, &str), Verdict> {
    let name = one_line(&hook.tool_name);
    let Some((server, tool)) = split_mcp_name(&hook.tool_name) else {
        return Err(Verdict::Allow(format!(
            "{name} is not a tool of an MCP server"
        )));
    };
    if !FUNCTIONS.contains(&function_name(tool)) {
        return Err(Verdict::Allow(format!("{name} is no voicehook function")));
    }
    Ok((server, tool))
}

/// True when no active rule that judges a pending call reads the chat with
/// the agent's user or the agent's other tools (their declared needs): a
/// live reader may then read only the server's calls and their answers.
pub(crate) fn only_calls_read(linter: &Linter) -> bool {
    !linter
        .pending_needs()
        .intersects(Evidence::CHAT.and(Evidence::TOOLS))
}

/// Judge the pending call a session reader read as the record that starts
/// at or after `base` (where it was appended to the session's bytes).
pub(crate) fn judge_appended(
    linter: &Linter,
    parsed: crate::input::Parsed,
    base: usize,
    server: &str,
    name: &str,
) -> Verdict {
    let found = parsed.logs.into_iter().find_map(|log| {
        let k = log.records.iter().rposition(|r| r.span.start >= base)?;
        Some((log, k))
    });
    match found {
        Some((log, k)) => judge_record(linter, log, k, server),
        None => Verdict::Allow(format!("{name} could not be read as a voicehook call")),
    }
}

/// Judge record `k` of `log`, the pending call as the session reader read
/// it, against the records before it.
pub(crate) fn judge_record(
    linter: &Linter,
    log: crate::model::Log,
    k: usize,
    server: &str,
) -> Verdict {
    let mut records = log.records;
    let pending = records.remove(k);
    if !matches!(pending.body, Body::Fn(_)) {
        return Verdict::Allow(not_known(server));
    }
    Verdict::Judged(crate::lint::live::judge_pending(
        linter,
        log.meta.as_ref(),
        records,
        pending,
    ))
}

/// Why a call of `server` is let through unjudged when nothing tells it is
/// voicehook's.
pub(crate) fn not_known(server: &str) -> String {
    format!(
        "the server {} is not known to be voicehook (name it in callint.toml's `[guard] servers`)",
        one_line(server)
    )
}

/// The lines of `tail` that the rules judging a pending call read: the
/// calls of `server` (`mcp__<server>__...`) and the results that answer
/// them (by `tool_use_id`), with `room` bytes to spare. A session's other
/// lines (file reads, shell output, chat with the user) can be most of its
/// bytes; none of the rules that judge a pending call reads them, so they
/// are not parsed.
///
/// This only chooses which lines the session reader reads; it never reads
/// them itself. A line is left out only when it surely cannot be one of
/// those: it holds neither the server's tool prefix nor the key
/// `tool_use_id`, or it answers no call of the server. The prefix and the
/// keys can be written other ways only with `\u` escapes, so a line with
/// one is always kept, and its ids are read from its JSON. Other lines are
/// not parsed here: the values of their `id` and `tool_use_id` keys are
/// read from the bytes ([`string_values`]), whatever the spacing or key
/// order, which finds every id the JSON holds and perhaps a few more (a
/// few more lines kept, read by the reader as reading whole reads them);
/// a value that is escaped or no string has its line parsed.
///
/// `ids` holds the ids of the server's calls read before `tail`, and gets
/// those of `tail`'s: reading a transcript in parts keeps the same lines
/// as reading it whole.
///
/// None of those rules reads the chat or the tool runs (their declared
/// needs, [`Linter::pending_needs`]); with `all` (a rule that does is
/// active) every line is kept.
fn calls_only(tail: &[u8], server: &str, all: bool, ids: &mut HashSet<Vec<u8>>) -> Lines {
    use memchr::memmem;
    let tool = format!("mcp__{server}__");
    let is_call = memmem::Finder::new(tool.as_bytes());
    let result_key = memmem::Finder::new(b"\"tool_use_id\"");
    let id_key = memmem::Finder::new(b"\"id\"");
    let escape = memmem::Finder::new(b"\\u");
    // The lines kept, and the lines that only may answer a call (they
    // hold `tool_use_id` and nothing else that keeps them), each with the
    // number of ids read before it.
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut maybe: Vec<((usize, usize), usize)> = Vec::new();
    // The ids of `tail`'s calls, in the order read.
    let mut new_ids: Vec<Vec<u8>> = Vec::new();
    // What a line holds is read on its own (side by side, for many); the
    // ids are then taken in order.
    let lines: Vec<(usize, &[u8])> = crate::core::lines::with_starts(tail).collect();
    crate::input::session::in_blocks(
        &lines,
        |&(start, line), _| {
            let escaped = escape.find(line).is_some();
            let call = escaped || is_call.find(line).is_some();
            // The ids of the line's `id` keys stand for those of its calls
            // of the server (a few more ids only keep a few more lines),
            // unless the line must be parsed to tell.
            let found: Vec<Vec<u8>> = if !call {
                Vec::new()
            } else {
                match (escaped, string_values(line, &id_key)) {
                    (false, Some(found)) => found.into_iter().map(<[u8]>::to_vec).collect(),
                    _ => entry_blocks(line)
                        .map(|blocks| call_ids(&blocks, server).collect())
                        .unwrap_or_default(),
                }
            };
            let answers = !call && result_key.find(line).is_some();
            ((start, start + line.len()), call, found, answers)
        },
        |(span, call, found, answers)| {
            for id in found {
                if ids.insert(id.clone()) {
                    new_ids.push(id);
                }
            }
            if all || call {
                kept.push(span);
            } else if answers {
                maybe.push((span, new_ids.len()));
            }
        },
    );
    // The ids read before a line: those kept from earlier parts, and the
    // first `n` of `tail`'s.
    let order: crate::core::hash::HashMap<&[u8], usize> = new_ids
        .iter()
        .enumerate()
        .map(|(k, id)| (id.as_slice(), k))
        .collect();
    let known = |id: &[u8], n: usize| ids.contains(id) && order.get(id).is_none_or(|&k| k < n);
    for (span, n) in maybe {
        let line = &tail[span.0..span.1];
        let answers = match string_values(line, &result_key) {
            Some(found) => found.into_iter().any(|id| known(id, n)),
            // Ids written in a way not read here: the line's JSON says.
            // None when the line is no entry: then it is kept, and the
            // reader decides.
            None => entry_blocks(line).is_none_or(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b.tool_use_id.as_deref())
                    .any(|id| known(id.as_bytes(), n))
            }),
        };
        if answers {
            kept.push(span);
        }
    }
    kept.sort_unstable();
    kept
}

/// Lines of a part of a session, as the spans of their bytes (with their
/// line ends) in that part, in order.
pub(crate) type Lines = Vec<(usize, usize)>;

/// Move the `lines` of the part of `bytes` that starts at `from` to follow
/// one another from offset `to` on (`to <= from`: each line moves towards
/// the start, so none is overwritten before it moved); the end of the last.
pub(crate) fn gather(
    bytes: &mut [u8],
    from: usize,
    lines: &[(usize, usize)],
    mut to: usize,
) -> usize {
    debug_assert!(to <= from);
    for &(start, end) in lines {
        let (start, end) = (from + start, from + end);
        if start != to {
            bytes.copy_within(start..end, to);
        }
        to += end - start;
    }
    to
}

/// The values of every key `key` (a finder of the key with its quotes) of
/// a JSON line, at any depth, read without parsing the line: a string
/// followed by `:` is a key in JSON (text inside a string holds no
/// unescaped `"`), and a value without a backslash is its own bytes.
/// `None` when a value is anything else (escaped, or no string): the line
/// must then be parsed. Every such key of the blocks a session reader reads
/// is among those found, unless it is spelt with `\u`.
fn string_values<'l>(line: &'l [u8], key: &memchr::memmem::Finder<'_>) -> Option<Vec<&'l [u8]>> {
    use crate::core::locate::skip_ws;
    let mut out = Vec::new();
    for at in key.find_iter(line) {
        let mut i = skip_ws(line, at + key.needle().len());
        if line.get(i) != Some(&b':') {
            continue;
        }
        i = skip_ws(line, i + 1);
        if line.get(i) != Some(&b'"') {
            return None;
        }
        let value = &line[i + 1..];
        let end = memchr::memchr2(b'"', b'\\', value)?;
        if value[end] != b'"' {
            return None;
        }
        out.push(&value[..end]);
    }
    Some(out)
}

/// The content blocks of a session line; `None` when it is no entry.
fn entry_blocks(line: &[u8]) -> Option<Vec<Block>> {
    serde_json::from_slice::<BlockEntry>(line)
        .ok()
        .map(|e| e.message.map(|m| m.content.0).unwrap_or_default())
}

/// The time of a session line's entry, as far as the guard looks into it.
#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(borrow, default)]
    timestamp: Option<std::borrow::Cow<'a, str>>,
}

/// The scalar visits of a visitor for which a scalar (text, a number, a
/// boolean, null) holds nothing: each gives `$none`.
macro_rules! nothing_from_scalars {
    ($none:expr) => {
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
    };
}

/// An entry's content blocks, read in the same pass as the entry: a
/// message whose content is text (or anything but a list) has none.
#[derive(Deserialize)]
struct BlockEntry {
    #[serde(default)]
    message: Option<BlockMessage>,
}

#[derive(Deserialize)]
struct BlockMessage {
    #[serde(default)]
    content: Blocks,
}

#[derive(Default)]
struct Blocks(Vec<Block>);

impl<'de> Deserialize<'de> for Blocks {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Blocks;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a message's content")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Blocks, A::Error> {
                let mut out = Vec::new();
                // A block that is not an object is no block of ours.
                while let Some(b) = seq.next_element::<MaybeBlock>()? {
                    out.extend(b.0);
                }
                Ok(Blocks(out))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Blocks, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Blocks::default())
            }
            nothing_from_scalars!(Blocks::default());
        }
        d.deserialize_any(V)
    }
}

/// A list element that is a block when it is an object.
struct MaybeBlock(Option<Block>);

impl<'de> Deserialize<'de> for MaybeBlock {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = MaybeBlock;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<MaybeBlock, A::Error> {
                Block::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(|b| MaybeBlock(Some(b)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<MaybeBlock, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(MaybeBlock(None))
            }
            nothing_from_scalars!(MaybeBlock(None));
        }
        d.deserialize_any(V)
    }
}

/// A content block, as far as the guard looks into it.
#[derive(Deserialize)]
struct Block {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    tool_use_id: Option<String>,
}

/// Of a line's blocks, the ids of the `tool_use` blocks that call a tool of
/// `server`.
fn call_ids<'a>(blocks: &'a [Block], server: &'a str) -> impl Iterator<Item = Vec<u8>> + 'a {
    blocks
        .iter()
        .filter(move |b| {
            b.kind.as_deref() == Some("tool_use")
                && b.name
                    .as_deref()
                    .and_then(split_mcp_name)
                    .is_some_and(|(s, _)| s == server)
        })
        .filter_map(|b| b.id.as_ref().map(|i| i.clone().into_bytes()))
}

/// The session entry Claude Code writes for the pending call: an assistant
/// message with its `tool_use`, on a subagent's sidechain when a subagent
/// makes it.
fn pending_entry(hook: &Hook, when: Ms) -> String {
    let mut e = json!({
        "type": "assistant",
        "timestamp": ts::format_rfc3339(when),
        "isSidechain": hook.agent_id.is_some(),
        "message": {
            "role": "assistant",
            "content": [{
                "type": "tool_use",
                "id": PENDING_ID,
                "name": hook.tool_name,
                "input": hook.tool_input,
            }],
        },
    });
    if let Some(a) = &hook.agent_id {
        e["agentId"] = Value::String(a.clone());
    }
    e.to_string()
}

/// True when the last line of `bytes` is an entry the client has not
/// finished writing: no line break after it, and no complete JSON value.
fn cut_off(bytes: &[u8]) -> bool {
    if bytes.last().is_none_or(|&b| b == b'\n') {
        return false;
    }
    let start = memchr::memrchr(b'\n', bytes).map_or(0, |k| k + 1);
    let last = &bytes[start..];
    !last.iter().all(u8::is_ascii_whitespace)
        && serde_json::from_slice::<serde::de::IgnoredAny>(last).is_err()
}

/// Take the `tool_use` block with id `id` out of the entry that holds it,
/// if the client wrote the pending call to the transcript before it ran
/// the hook: the call is judged once, as the pending one. Returns where
/// the line changed starts, when one did.
fn drop_block(bytes: &mut Vec<u8>, id: &str) -> Option<usize> {
    // The id as a JSON string: a value, so whatever the spacing around it.
    let quoted = serde_json::to_string(id).ok()?;
    let mut before = bytes.len();
    while let Some(at) = memchr::memmem::rfind(&bytes[..before], quoted.as_bytes()) {
        before = at;
        let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |k| k + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |k| at + k);
        let Ok(mut entry) = serde_json::from_slice::<Value>(&bytes[start..end]) else {
            continue;
        };
        let Some(blocks) = entry
            .pointer_mut("/message/content")
            .and_then(Value::as_array_mut)
        else {
            continue;
        };
        let n = blocks.len();
        blocks.retain(|b| {
            !(b.get("type").and_then(Value::as_str) == Some("tool_use")
                && b.get("id").and_then(Value::as_str) == Some(id))
        });
        if blocks.len() == n {
            continue;
        }
        let line = entry.to_string();
        bytes.splice(start..end, line.into_bytes());
        return Some(start);
    }
    None
}

/// How many entries are tried, from the end, for the time of the last
/// entry that has one.
const TIME_TRIES: usize = 16;

/// The time of the last entry of a transcript that carries one.
#[cfg(test)]
fn last_time(bytes: &[u8]) -> Option<Ms> {
    times(bytes).into_iter().flatten().next()
}

/// The times (`timestamp`) of the last [`TIME_TRIES`] lines of `bytes`,
/// the latest first, each as a time if the line is an entry with one: the
/// last entry's time is the first of them (of these and those of the bytes
/// before, for a transcript read in parts).
fn times(bytes: &[u8]) -> Vec<Option<Ms>> {
    bytes
        .split(|&b| b == b'\n')
        .rev()
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .take(TIME_TRIES)
        .map(|l| {
            serde_json::from_slice::<Entry<'_>>(l)
                .ok()
                .and_then(|e| e.timestamp)
                .and_then(|t| ts::parse_rfc3339(&t))
        })
        .collect()
}

/// The end of a transcript from the line of the last `join` or
/// `create_call` of `server` on: the call the pending one belongs to, as
/// far as the rules that judge a pending call look back (its language,
/// peers and turns all come after its join). A transcript without one is
/// read whole. `room` is spare capacity asked for at the end (for the
/// pending call), so that appending it copies nothing.
///
/// The file is searched backwards a block at a time, then read once from
/// that line on: a long session costs the bytes of its last call. A
/// candidate line (one that holds `join"` or `create_call"`, or a `\u`
/// escape that could spell them) is taken only when `starts` reads it as
/// the start of a call of that server ([`Shape::starts_call`]: from its
/// JSON, so not by how it is spaced): a mention of the name inside some
/// text does not cut the call short.
///
/// Returns the offset the tail starts at, and its bytes.
pub(crate) fn read_tail(
    file: &mut File,
    server: &str,
    room: usize,
    starts: fn(&[u8], &str) -> bool,
) -> io::Result<(u64, Vec<u8>)> {
    read_tail_by(file, server, room, BLOCK, starts)
}

fn read_tail_by(
    file: &mut File,
    server: &str,
    room: usize,
    block: u64,
    starts: fn(&[u8], &str) -> bool,
) -> io::Result<(u64, Vec<u8>)> {
    let len = file.metadata()?.len();
    let from = last_call_start(file, len, server, block.max(1), starts)?.unwrap_or(0);
    if len - from > MAX_CALL_BYTES {
        return Err(io::Error::other(format!(
            "the call is more than {} MiB of it",
            MAX_CALL_BYTES >> 20
        )));
    }
    file.seek(SeekFrom::Start(from))?;
    let size = usize::try_from(len - from).unwrap_or(0);
    let mut buf = Vec::with_capacity(size.saturating_add(room));
    // As far as the file reached when it was looked at: what is written
    // meanwhile is read by the next call.
    file.by_ref().take(len - from).read_to_end(&mut buf)?;
    Ok((from, buf))
}

/// The offset in `bytes` of the first line that starts a call of `server`
/// (`starts`), if one does.
fn call_start_in(bytes: &[u8], server: &str, starts: fn(&[u8], &str) -> bool) -> Option<usize> {
    // A line with a `\u` escape may spell the names another way: it is
    // tried too.
    let needles = [
        memchr::memmem::Finder::new(b"join\""),
        memchr::memmem::Finder::new(b"create_call\""),
        memchr::memmem::Finder::new(b"\\u"),
    ];
    crate::core::lines::with_starts(bytes)
        .find(|&(_, line)| needles.iter().any(|n| n.find(line).is_some()) && starts(line, server))
        .map(|(start, _)| start)
}

/// The size of the blocks [`last_call_start`] reads.
const BLOCK: u64 = 1 << 20;

/// The file offset of the line of the last `join` or `create_call` of
/// `server` (`starts`), searched from the end.
fn last_call_start(
    file: &mut File,
    len: u64,
    server: &str,
    block: u64,
    starts: fn(&[u8], &str) -> bool,
) -> io::Result<Option<u64>> {
    // Searched forwards (vectorized) within each window, the candidates
    // then tried latest first.
    // A line with a `\u` escape may spell the names another way: it is a
    // candidate too.
    let needles = [
        memchr::memmem::Finder::new(b"join\""),
        memchr::memmem::Finder::new(b"create_call\""),
        memchr::memmem::Finder::new(b"\\u"),
    ];
    let mut pos = len;
    // No further back than a call is read.
    let stop = len.saturating_sub(MAX_CALL_BYTES);
    // The window: the block just read, then the first line of the window
    // before it (which may have started in this block), so every line is
    // searched whole once its start is read.
    let mut win: Vec<u8> = Vec::new();
    let mut found: Vec<usize> = Vec::new();
    while pos > stop {
        let carry = match memchr::memchr(b'\n', &win) {
            Some(k) => k + 1,
            None => win.len(),
        };
        // A line longer than a block is carried into the next window:
        // that window is read at least as long as what is carried, so a
        // long line (or a file of no lines) costs its length a few times
        // over, not once per block.
        let n = block.max(carry as u64).min(pos - stop);
        pos -= n;
        let mut next = Vec::with_capacity(n as usize + carry);
        file.seek(SeekFrom::Start(pos))?;
        file.by_ref().take(n).read_to_end(&mut next)?;
        if next.len() as u64 != n {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        next.extend_from_slice(&win[..carry]);
        win = next;
        found.clear();
        for needle in &needles {
            found.extend(needle.find_iter(&win));
        }
        found.sort_unstable();
        // Candidates latest first; a line is tried once, for its last one.
        let mut done = win.len();
        for &at in found.iter().rev() {
            if at >= done {
                continue;
            }
            let start = match memchr::memrchr(b'\n', &win[..at]) {
                Some(nl) => nl + 1,
                // The line started before this window: searched with the
                // next one.
                None if pos > 0 => break,
                None => 0,
            };
            let stop = memchr::memchr(b'\n', &win[at..]).map_or(win.len(), |e| at + e);
            if starts(&win[start..stop], server) {
                return Ok(Some(pos + start as u64));
            }
            // The whole line is done with: go on before it.
            done = start;
        }
    }
    Ok(None)
}

/// True when `line` is an assistant entry with a `tool_use` of `server`'s
/// `join` or `create_call`.
fn starts_call(line: &[u8], server: &str) -> bool {
    entry_blocks(line).unwrap_or_default().iter().any(|b| {
        b.kind.as_deref() == Some("tool_use")
            && b.name
                .as_deref()
                .and_then(split_mcp_name)
                .is_some_and(|(s, t)| {
                    s == server && matches!(function_name(t), "join" | "create_call")
                })
    })
}

/// The findings that deny the call: at `deny` or above, never an `info`;
/// the most severe first, and among equals by rule name, then in file
/// order.
pub fn denying(findings: &[Diagnostic], deny: Severity) -> Vec<&Diagnostic> {
    let mut d: Vec<&Diagnostic> = findings
        .iter()
        .filter(|d| d.severity >= deny && d.severity > Severity::Info)
        .collect();
    // A stable sort: file order stays among findings of one rule.
    d.sort_by_key(|x| (std::cmp::Reverse(x.severity), x.rule));
    d
}

/// How long a reason is at most unless a client needs it shorter: every
/// client shows this much to its model.
pub const REASON_MAX: usize = 1000;

/// [`reason_within`] [`REASON_MAX`].
pub fn reason(denied: &[&Diagnostic]) -> String {
    reason_within(denied, REASON_MAX)
}

/// The reason the agent reads when the call is denied: every finding, in
/// the order given ([`denying`]). The first with its rule, what is wrong
/// and what to do instead; each other one with its rule and what is
/// wrong. Plain text on one line, control characters escaped, at most
/// `max` bytes: the findings that do not fit are counted at the end
/// ("And 2 more: ..."), and a first finding longer than that is cut.
pub fn reason_within(denied: &[&Diagnostic], max: usize) -> String {
    let Some(first) = denied.first() else {
        return String::new();
    };
    let mut s = format!(
        "callint {}: {}.",
        first.rule,
        one_line(first.message.trim_end_matches('.'))
    );
    let help = first
        .help
        .as_deref()
        .unwrap_or("rephrase the line so that it keeps the rule, or stay silent");
    s.push(' ');
    s.push_str(&capitalized(&one_line(help.trim_end_matches('.'))));
    s.push('.');
    if s.len() > max {
        return cut(&s, max);
    }
    let items: Vec<String> = denied[1..]
        .iter()
        .map(|d| {
            format!(
                " Also {}: {}.",
                d.rule,
                one_line(d.message.trim_end_matches('.'))
            )
        })
        .collect();
    for (k, item) in items.iter().enumerate() {
        let left = &denied[1 + k..];
        let rest = if left.len() > 1 {
            more(&left[1..])
        } else {
            String::new()
        };
        if s.len() + item.len() + rest.len() <= max {
            s.push_str(item);
            continue;
        }
        let tail = more(left);
        if s.len() + tail.len() <= max {
            s.push_str(&tail);
        } else {
            let short = format!(" And {} more.", left.len());
            if s.len() + short.len() <= max {
                s.push_str(&short);
            }
        }
        break;
    }
    s
}

/// " And N more: rule, rule." for the findings left out of a reason.
fn more(left: &[&Diagnostic]) -> String {
    let mut rules: Vec<&str> = left.iter().map(|d| d.rule).collect();
    rules.dedup();
    format!(" And {} more: {}.", left.len(), rules.join(", "))
}

/// `s` cut to at most `max` bytes at a character boundary, ending in "...".
fn cut(s: &str, max: usize) -> String {
    let room = max.saturating_sub(3);
    let end = (0..=room.min(s.len()))
        .rev()
        .find(|&k| s.is_char_boundary(k))
        .unwrap_or(0);
    format!("{}...", &s[..end])
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The JSON Claude Code reads from a `PreToolUse` hook that denies the
/// call, with `reason` shown to the model.
pub fn deny_output(reason: &str) -> String {
    json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &str) -> String {
        format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"t","name":"{name}","input":{{}}}}]}}}}"#
        )
    }

    #[test]
    fn the_tail_starts_at_the_last_join_of_the_server() {
        let dir = crate::app::harness::scratch("guard");
        let path = dir.join("s.jsonl");
        let filler =
            r#"{"type":"user","message":{"content":"the word join" and create_call" in text"}}"#;
        let mut src = String::new();
        src.push_str(&line("mcp__vh__join"));
        src.push('\n');
        for _ in 0..5000 {
            src.push_str(filler);
            src.push('\n');
        }
        let second = line("mcp__vh__join");
        src.push_str(&second);
        src.push('\n');
        // another server's join, and mentions in text, do not count
        src.push_str(&line("mcp__chat__join"));
        src.push('\n');
        for _ in 0..3000 {
            src.push_str(filler);
            src.push('\n');
        }
        std::fs::write(&path, &src).unwrap();
        let at = src.rfind(&second).unwrap();
        // blocks of every size: lines and names across their seams
        for block in [1, 7, 100, 4096, 1 << 20] {
            let mut file = File::open(&path).unwrap();
            let (from, tail) = read_tail_by(&mut file, "vh", 0, block, starts_call).unwrap();
            assert_eq!(tail, &src.as_bytes()[at..], "{block}");
            assert_eq!(from, at as u64);
        }
        // no join of that server: the whole file
        let (from, all) =
            read_tail(&mut File::open(&path).unwrap(), "other", 0, starts_call).unwrap();
        assert_eq!((from, all.len()), (0, src.len()));
        // a join in appended bytes is found at the start of its line
        let appended = format!("{filler}\n{second}\n{filler}\n");
        assert_eq!(
            call_start_in(appended.as_bytes(), "vh", starts_call),
            Some(filler.len() + 1)
        );
        assert_eq!(
            call_start_in(appended.as_bytes(), "chat", starts_call),
            None
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_next_run_goes_on_from_the_kept_state() {
        let dir = crate::app::harness::scratch("guard-kept");
        let path = dir.join("s.jsonl");
        let result = |id: &str, text: &str| {
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":{}}}]}}}}"#,
                serde_json::to_string(text).unwrap()
            )
        };
        let mut src = format!(
            "{}\n{}\n",
            line("mcp__vh__join").replace("\"id\":\"t\"", "\"id\":\"j\""),
            result("j", r#"{"status":"joined","context":{"lang":"en"}}"#)
        );
        std::fs::write(&path, &src).unwrap();
        let hook = read_hook(
            format!(
                r#"{{"session_id":"k","transcript_path":{},"tool_name":"mcp__vh__say","tool_input":{{"text":"Hello there, I am on it."}}}}"#,
                serde_json::to_string(&path).unwrap()
            )
            .as_bytes(),
        )
        .unwrap();
        let linter = Linter::new(&crate::lint::config::Config::default(), None, &[]).unwrap();
        let cache = dir.join("cache");
        let slot = kept::Slot::new(
            &cache,
            Claude::NAME,
            Some("k"),
            &path,
            "vh",
            &format!("{:?}", linter.read_options()),
        );
        let every = Keep {
            dir: &cache,
            rewrite_after: 0,
        };
        let run = || judge_kept(&linter, &hook, 0, Some(every));
        assert!(matches!(run(), Verdict::Judged(_)));
        let mut file = File::open(&path).unwrap();
        let (k, new) = slot
            .load::<claude::Reader>(&mut file)
            .expect("the state was kept");
        assert_eq!((k.tail, k.end, new.len()), (0, src.len() as u64, 0));
        // a say and its answer appended: only they are new
        let more = format!(
            "{}\n{}\n",
            line("mcp__vh__say").replace("\"id\":\"t\"", "\"id\":\"s\""),
            result("s", r#"{"say_id":"s1"}"#)
        );
        src.push_str(&more);
        std::fs::write(&path, &src).unwrap();
        let (k, new) = slot.load::<claude::Reader>(&mut file).unwrap();
        assert_eq!(new, more.as_bytes());
        assert!(k.ids.contains(b"j".as_slice()));
        // not written again for so few new bytes ...
        let seldom = Keep {
            rewrite_after: more.len() as u64 + 1,
            ..every
        };
        assert!(matches!(
            judge_kept(&linter, &hook, 0, Some(seldom)),
            Verdict::Judged(_)
        ));
        let (_, new) = slot.load::<claude::Reader>(&mut file).unwrap();
        assert_eq!(new, more.as_bytes());
        // ... and written again for enough of them
        assert!(matches!(run(), Verdict::Judged(_)));
        let (k, new) = slot.load::<claude::Reader>(&mut file).unwrap();
        assert_eq!((k.end, new.len()), (src.len() as u64, 0));
        // another session's state is not this one's
        let other = kept::Slot::new(&cache, Claude::NAME, Some("other"), &path, "vh", "");
        assert!(other.load::<claude::Reader>(&mut file).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_new_join_is_judged_as_a_fresh_read_would() {
        let dir = crate::app::harness::scratch("guard-join");
        let path = dir.join("s.jsonl");
        let call = |id: &str, name: &str, input: &str| {
            format!(
                r#"{{"type":"assistant","timestamp":"2026-10-10T09:00:00.000Z","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"{name}","input":{input}}}]}}}}"#
            ) + "\n"
        };
        let result = |id: &str, text: &str| {
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":{}}}]}}}}"#,
                serde_json::to_string(text).unwrap()
            ) + "\n"
        };
        let joined = |lang: &str| format!(r#"{{"status":"joined","context":{{"lang":"{lang}"}}}}"#);
        let mut src =
            call("j1", "mcp__vh__join", r#"{"call_id":"c-1"}"#) + &result("j1", &joined("en"));
        std::fs::write(&path, &src).unwrap();
        let hook = read_hook(
            format!(
                r#"{{"session_id":"n","transcript_path":{},"tool_name":"mcp__vh__say","tool_input":{{"text":"Yes, the build is green and the tests pass."}}}}"#,
                serde_json::to_string(&path).unwrap()
            )
            .as_bytes(),
        )
        .unwrap();
        let linter = Linter::new(&crate::lint::config::Config::default(), None, &[]).unwrap();
        let keep = Keep {
            dir: &dir.join("cache"),
            rewrite_after: 0,
        };
        let both = || {
            let kept = format!("{:?}", judge_kept(&linter, &hook, 0, Some(keep)));
            let fresh = format!("{:?}", judge(&linter, &hook, 0));
            assert_eq!(kept, fresh);
            fresh
        };
        let slot = kept::Slot::new(
            keep.dir,
            Claude::NAME,
            Some("n"),
            &path,
            "vh",
            &format!("{:?}", linter.read_options()),
        );
        let tail = || {
            let (k, new) = slot
                .load::<claude::Reader>(&mut File::open(&path).unwrap())
                .unwrap();
            assert!(new.is_empty());
            k.tail
        };
        assert!(both().starts_with("Judged"));
        assert_eq!(tail(), 0);
        // the agent joins another call: read from its join on
        let second = src.len() as u64;
        src += &call("j2", "mcp__vh__join", r#"{"call_id":"c-2"}"#);
        src += &result("j2", &joined("de"));
        std::fs::write(&path, &src).unwrap();
        assert!(both().starts_with("Judged"));
        assert_eq!(tail(), second);
        // a say of the new call, then the pending one again
        src += &call("s1", "mcp__vh__say", r#"{"text":"Ja, ich bin dabei."}"#);
        src += &result("s1", r#"{"say_id":"s1"}"#);
        std::fs::write(&path, &src).unwrap();
        assert!(both().starts_with("Judged"));
        assert_eq!(tail(), second);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn hook_inputs_are_checked() {
        assert!(read_hook(b"").is_err());
        assert!(read_hook(b"[]").is_err());
        assert!(read_hook(br#"{"tool_input":{}}"#).is_err());
        assert!(read_hook(br#"{"hook_event_name":"Stop","tool_name":"x"}"#).is_err());
        assert!(read_hook(br#"{"tool_name":"x","tool_input":5}"#).is_err());
        let h = read_hook(
            br#"{"hook_event_name":"PreToolUse","tool_name":"mcp__vh__say","tool_input":{"text":"hi"},"transcript_path":"/t.jsonl","agent_id":"a1"}"#,
        )
        .unwrap();
        assert_eq!(h.tool_name, "mcp__vh__say");
        assert_eq!(h.agent_id.as_deref(), Some("a1"));
        assert_eq!(h.transcript_path.as_deref(), Some(Path::new("/t.jsonl")));
    }

    /// The ids read from a line's bytes are a superset of those its JSON
    /// holds, in any spacing and key order, or the line is parsed.
    #[test]
    fn ids_read_from_the_bytes_are_never_fewer_than_the_json_holds() {
        let call = memchr::memmem::Finder::new(br#""id""#);
        let result = memchr::memmem::Finder::new(br#""tool_use_id""#);
        let lines = [
            r#"{"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","id":"toolu_1","name":"mcp__vh__say","input":{"text":"x"}}]}}"#,
            r#"{ "message" : { "content" : [ { "name" : "mcp__vh__say", "id" : "toolu_2" , "type" : "tool_use" } ] } }"#,
            r#"{"message":{"content":[{"type":"tool_use","id":"to\/olu","name":"mcp__vh__say"}]}}"#,
            r#"{"message":{"content":[{"type":"tool_use","id":7,"name":"mcp__vh__say"}]}}"#,
            r#"{"message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"{\"tool_use_id\":\"toolu_9\"}"}]}}"#,
            r#"{"message":{"content":[{"tool_use_id" :"toolu_2","type":"tool_result","content":[{"type":"text","text":"\"id\": 3"}]}]}}"#,
            r#"{"message":{"content":[{"type":"tool_result","tool_use_id":null}]}}"#,
            r#"{"text":"\"tool_use_id\" : \"toolu_1\"", "id" : "x"}"#,
        ];
        for line in lines {
            let b = line.as_bytes();
            let blocks = entry_blocks(b).unwrap_or_default();
            let parsed: Vec<Vec<u8>> = call_ids(&blocks, "vh")
                .chain(
                    blocks
                        .iter()
                        .filter_map(|k| k.tool_use_id.clone().map(String::into_bytes)),
                )
                .collect();
            let read: Option<Vec<&[u8]>> = string_values(b, &call)
                .zip(string_values(b, &result))
                .map(|(mut a, r)| {
                    a.extend(r);
                    a
                });
            if let Some(read) = read {
                for id in &parsed {
                    assert!(
                        read.contains(&id.as_slice()),
                        "{line}: {id:?} not in {read:?}"
                    );
                }
            }
        }
        // A shell result naming a call's id in its text is kept; one that
        // names none is left out; each line kept is whole.
        let tail = [
            lines[0],
            r#"{"message":{"content":[{"type":"tool_result","tool_use_id":"toolu_x","content":"cargo test"}]}}"#,
            lines[4],
            r#"{"message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1"}]}}"#,
            r#"{"message":{"content":[{"type":"tool_result","tool_use_id":"to\u006fl"}]}}"#,
        ]
        .map(|l| format!("{l}\n"))
        .concat();
        let mut ids = HashSet::default();
        let mut bytes = tail.clone().into_bytes();
        let spans = calls_only(&bytes, "vh", false, &mut ids);
        let end = gather(&mut bytes, 0, &spans, 0);
        let kept = String::from_utf8(bytes[..end].to_vec()).unwrap();
        let want = [
            lines[0],
            lines[4],
            r#"{"message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1"}]}}"#,
            r#"{"message":{"content":[{"type":"tool_result","tool_use_id":"to\u006fl"}]}}"#,
        ]
        .map(|l| format!("{l}\n"))
        .concat();
        assert_eq!(kept, want);
        assert!(ids.contains(b"toolu_1".as_slice()));
    }

    #[test]
    fn a_pending_call_already_written_is_taken_out() {
        let first = r#"{"type":"user","message":{"content":"hi"}}"#;
        let mut b = format!(
            "{first}\n{}\n",
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"toolu_7","name":"mcp__vh__say","input":{"text":"x"}}]}}"#
        )
        .into_bytes();
        drop_block(&mut b, "toolu_7");
        let s = String::from_utf8(b).unwrap();
        assert!(s.starts_with(first) && s.ends_with('\n'), "{s}");
        assert!(
            !s.contains("toolu_7") && s.contains(r#""text":"ok""#),
            "{s}"
        );
        // an id nowhere in the file changes nothing
        let mut c = s.clone().into_bytes();
        drop_block(&mut c, "toolu_8");
        assert_eq!(c, s.as_bytes());
        assert!(cut_off(
            br#"{"a":1}
{"type":"assistant","mess"#
        ));
        assert!(!cut_off(b"{\"a\":1}\n"));
        assert!(!cut_off(b"{\"a\":1}"));
        assert!(!cut_off(b""));
    }

    #[test]
    fn the_last_time_is_found_from_the_end() {
        let src = br#"{"timestamp":"2026-10-10T09:00:00.000Z"}
{"timestamp":"2026-10-10T09:00:05.000Z","x":"\"timestamp\":\"nonsense"}
{"type":"summary"}"#;
        assert_eq!(
            last_time(src),
            ts::parse_rfc3339("2026-10-10T09:00:05.000Z")
        );
        assert_eq!(last_time(b"{}"), None);
    }
}
