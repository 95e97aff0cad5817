//! What the readers of agent clients' session files share: a reader turns
//! its file's lines or parts into [`Item`]s (a chat message, a tool run, a
//! tool call with its answer), and [`Session::finish`] makes them the
//! records of a native log:
//!
//! - a call of a voicehook tool (its server told by [`Servers`]) becomes a
//!   function record: the arguments from the call, the answer or the error
//!   from its output, its time when the output arrived;
//! - a call of any other server's tool is a `tool` record, like the
//!   client's own tools;
//! - the last assistant message before the next user message (or the end
//!   of the file) ends the turn;
//! - each record carries the call id of the `create_call` or `join` it
//!   follows, so one session holding several calls is linted call by call;
//! - a session that never called voicehook yields no record and no problem:
//!   a folder of everyday coding sessions is quiet (a session still being
//!   written, cut off in its last line, included).
//!
//! A reader of a file of one JSON entry a line ([`LineReader`]) reads it
//! through [`Partial`], which can stop after any line and go on later, and
//! be kept (serialized) in between: what the guard keeps per session.

use crate::core::hash::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::json::{lines, lines_from, Place, Places};
use super::server::{function_name, Servers};
use super::{native, Options, Parsed, Problem};
use crate::model::*;

pub(crate) type Obj = Map<String, Value>;

/// Where an item sits among the others: its position in the file, then
/// its place among the items of that position.
pub(crate) type Order = (usize, usize);

/// A message of the agent's own chat.
#[derive(Serialize, Deserialize)]
pub(crate) struct ChatItem {
    pub user: bool,
    pub text: Text,
    pub line: u32,
    pub span: Span,
    pub ts: Option<Ms>,
}

/// A run of a tool that is not voicehook's.
pub(crate) struct ToolItem {
    pub name: String,
    pub args: Option<Value>,
    /// Where the tool's name is.
    pub at: Option<Anchor>,
    pub line: u32,
    pub span: Span,
    pub ts: Option<Ms>,
}

/// What a tool call got back.
#[derive(Serialize, Deserialize)]
pub(crate) enum Answer {
    /// No answer in the file (the session ends before it came).
    None,
    /// The answer object, and where it is.
    Result(Obj, Place),
    /// The call failed: the server refused it, or the client could not
    /// make it.
    Error(ApiError, Place),
}

/// A call of an MCP server's tool, voicehook's or another's.
#[derive(Serialize, Deserialize)]
pub(crate) struct CallItem {
    /// The server's name as the client's user configured it.
    pub server: String,
    /// The tool's own name (without the server's).
    pub tool: String,
    pub args: Obj,
    pub args_place: Place,
    pub answer: Answer,
    /// Where the tool's name is, for when it is another server's tool.
    pub at: Option<Anchor>,
    /// The call's line and bytes: findings on the call point there.
    pub line: u32,
    pub span: Span,
    /// When the answer arrived (else when the call was made).
    pub ts: Option<Ms>,
    /// Problems reading the call, kept only when it is voicehook's.
    pub problems: Vec<Problem>,
}

pub(crate) enum Item {
    Chat(ChatItem),
    Tool(ToolItem),
    Call(CallItem),
}

/// Which thread of the client made an item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum Side {
    /// The thread of the whole file ([`Session::thread`]).
    File,
    /// A sidechain inside the file, with the agent id it names: the
    /// subagent's thread, or the background's when that agent was started
    /// in the background ([`Session::background`]).
    Sidechain(Option<Box<str>>),
}

/// The items of one session file, gathered in any order. Each becomes its
/// record as it is pushed, as soon as its server is known to be voicehook
/// or not, so a session's answers are not all kept at once.
#[derive(Serialize, Deserialize)]
pub(crate) struct Session {
    records: Vec<(Order, Record, Side)>,
    /// Calls of servers not (yet) known to be voicehook.
    undecided: Vec<(Order, CallItem, Side)>,
    servers: Servers,
    /// The thread of the client that wrote the whole file.
    pub thread: Thread,
    /// The agents (by id) that were started in the background.
    pub background: HashSet<String>,
    /// Problems reading the file (broken lines), kept when the session
    /// called voicehook.
    pub problems: Vec<Problem>,
}

impl Session {
    pub fn new(opts: &Options) -> Session {
        Session {
            records: Vec::new(),
            undecided: Vec::new(),
            servers: Servers::new(opts),
            thread: Thread::Main,
            background: HashSet::default(),
            problems: Vec::new(),
        }
    }

    /// An item of the file's own thread.
    pub fn push(&mut self, order: Order, item: Item) {
        self.push_on(order, item, Side::File);
    }

    /// An item of thread `side`.
    pub fn push_on(&mut self, order: Order, item: Item, side: Side) {
        let rec = match item {
            Item::Chat(c) => chat_record(c),
            Item::Tool(t) => tool_record(t),
            Item::Call(c) => {
                let answer = match &c.answer {
                    Answer::Result(a, _) => Some(a),
                    _ => None,
                };
                self.servers
                    .note_obj(&c.server, &c.tool, Some(&c.args), answer);
                if !self.servers.is_voicehook(&c.server) {
                    self.undecided.push((order, c, side));
                    return;
                }
                self.fn_record(c)
            }
        };
        self.records.push((order, rec, side));
    }

    fn fn_record(&mut self, mut c: CallItem) -> Record {
        self.problems.append(&mut c.problems);
        fn_record(c, &mut self.problems)
    }

    /// The records of the session, as one log.
    pub fn finish(mut self) -> Parsed {
        for (order, c, side) in std::mem::take(&mut self.undecided) {
            let rec = if self.servers.is_voicehook(&c.server) {
                self.fn_record(c)
            } else {
                tool_record(ToolItem {
                    name: c.tool,
                    args: Some(Value::Object(c.args)),
                    at: c.at,
                    line: c.line,
                    span: c.span,
                    ts: c.ts,
                })
            };
            self.records.push((order, rec, side));
        }
        if self.servers.none() {
            // No call in this session: nothing to judge, nothing to report.
            return Parsed::default();
        }
        let mut items = self.records;
        items.sort_by_key(|(o, _, _)| *o);
        // The last assistant message before the user's next one ends the
        // turn.
        let mut later_reply = false;
        for (_, r, _) in items.iter_mut().rev() {
            if let Body::Chat(c) = &mut r.body {
                if c.is_assistant() {
                    c.turn_end = !later_reply;
                    later_reply = true;
                } else {
                    later_reply = false;
                }
            }
        }
        // Each record belongs to the call of the create_call or join before
        // it; what comes before the first, to the first.
        let mut names = Interner::default();
        let mut origins = Origins::default();
        let mut call: Option<Name> = items
            .iter()
            .find_map(|(_, r, _)| r.starts_call())
            .map(|id| names.name(id));
        let (file, background) = (self.thread, self.background);
        let records = items
            .into_iter()
            .map(|(_, rec, side)| {
                if let Some(id) = rec.starts_call() {
                    call = Some(names.name(id));
                }
                let thread = match side {
                    Side::File => file.clone(),
                    Side::Sidechain(Some(a)) if background.contains(&*a) => Thread::Background,
                    Side::Sidechain(_) => Thread::Subagent,
                };
                rec.from_origin(origins.of(None, call.clone(), thread))
            })
            .collect();
        Parsed {
            logs: vec![Log {
                meta: None,
                records,
            }],
            problems: self.problems,
            ..Parsed::default()
        }
    }
}

/// The bytes of lines worth reading side by side ([`in_blocks`]): fewer
/// are read on one thread.
pub(crate) const PARALLEL_BYTES: usize = 1 << 20;

/// Read each of `lines` with `read` and hand what it gives to `apply`, in
/// the order of the lines. `read` needs nothing from the lines before it;
/// when the lines are many, it runs on every thread of the pool, a block of
/// lines at a time while the block before is applied, and is told so
/// (`true`: it may read ahead what `apply` may not need).
pub(crate) fn in_blocks<L: AsBytes + Sync, T: Send>(
    lines: &[L],
    read: impl Fn(&L, bool) -> T + Sync,
    mut apply: impl FnMut(T) + Send,
) {
    use rayon::prelude::*;
    let bytes: usize = lines.iter().map(|l| l.bytes().len()).sum();
    if bytes < PARALLEL_BYTES || rayon::current_num_threads() < 2 {
        for l in lines {
            apply(read(l, false));
        }
        return;
    }
    let ahead = |block: &[L]| -> Vec<T> {
        block
            .par_iter()
            .with_min_len(8)
            .map(|l| read(l, true))
            .collect()
    };
    let mut blocks = blocks(lines, PARALLEL_BYTES / 4);
    let mut ready = blocks.next().map(ahead);
    while let Some(done) = ready.take() {
        let next = blocks.next();
        ready = rayon::join(|| done.into_iter().for_each(&mut apply), || next.map(ahead)).1;
    }
}

/// A line's bytes.
pub(crate) trait AsBytes {
    fn bytes(&self) -> &[u8];
}

impl AsBytes for Line<'_> {
    fn bytes(&self) -> &[u8] {
        self.raw
    }
}

impl AsBytes for &[u8] {
    fn bytes(&self) -> &[u8] {
        self
    }
}

/// A line with the offset it starts at ([`crate::core::lines::with_starts`]).
impl AsBytes for (usize, &[u8]) {
    fn bytes(&self) -> &[u8] {
        self.1
    }
}

/// `lines` in blocks of about `size` bytes each, in order.
fn blocks<L: AsBytes>(lines: &[L], size: usize) -> impl Iterator<Item = &[L]> {
    let mut rest = lines;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut bytes = 0;
        let n = rest
            .iter()
            .position(|l| {
                bytes += l.bytes().len();
                bytes >= size
            })
            .map_or(rest.len(), |i| i + 1);
        let (block, tail) = rest.split_at(n);
        rest = tail;
        Some(block)
    })
}

/// `parse` of `one` over and over (until the lines make several blocks
/// of [`in_blocks`]) on one thread and on two, as debug text.
#[cfg(test)]
pub(crate) fn alone_and_side_by_side(
    one: &[u8],
    parse: fn(&[u8], &Options) -> Parsed,
) -> (String, String) {
    let mut src = Vec::new();
    while src.len() < 3 * PARALLEL_BYTES {
        src.extend(one);
    }
    let read = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        format!("{:?}", pool.install(|| parse(&src, &Options::default())))
    };
    (read(1), read(2))
}

/// One line of a session file that is not blank, as a [`LineReader`] gets
/// it.
pub(crate) struct Line<'a> {
    /// The line's bytes, without its line break.
    pub raw: &'a [u8],
    /// Its number (from 1) and its bytes in the file.
    pub no: u32,
    pub span: Span,
    /// Set on the last line of the input that is not blank: the file may
    /// end inside it. Known only in the last part read ([`Partial::read`]
    /// with `end`).
    pub last_entry: bool,
    /// Set on the last line of the input when it is not blank: no line at
    /// all follows it.
    pub last_line: bool,
}

/// A reader of a session file of one entry a line, which reads the lines
/// one at a time, in order, and keeps what it needs of them until the end.
pub(crate) trait LineReader {
    fn new(opts: &Options) -> Self;
    fn line(&mut self, line: Line<'_>);
    /// Read `lines`, in order: the same as reading each with
    /// [`LineReader::line`], which a reader may do side by side
    /// ([`in_blocks`]).
    fn lines(&mut self, lines: &[Line<'_>]) {
        for l in lines {
            self.line(Line { ..*l });
        }
    }
    /// The records of the lines read.
    fn finish(self) -> Parsed;
}

/// A session read as far as it was written, which can be read on from where
/// it stopped, and kept (serialized) between runs: what the guard keeps per
/// session so that the next pending call costs only the lines written since.
/// Reading a file in several parts gives the same records as reading it
/// whole, provided each part but the last ends with a line break and the
/// last holds the last line that is not blank (the one the file may end
/// inside): the reader sees the same lines, with the same numbers and
/// offsets.
#[derive(Serialize, Deserialize)]
pub(crate) struct Partial<R> {
    reader: R,
    /// The bytes and lines read so far: the offsets and line numbers of
    /// the next part start there.
    bytes: usize,
    lines: u32,
}

impl<R: LineReader> Partial<R> {
    pub fn new(opts: &Options) -> Partial<R> {
        Partial {
            reader: R::new(opts),
            bytes: 0,
            lines: 0,
        }
    }

    /// The bytes read so far.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The line reader, as far as it read.
    #[cfg(test)]
    pub fn reader(&self) -> &R {
        &self.reader
    }

    /// Read `part`, the bytes that follow those read so far: whole lines
    /// unless `end` says it is the end of the input, whose last line may
    /// be cut off.
    pub fn read(&mut self, part: &[u8], end: bool) {
        debug_assert!(end || part.is_empty() || part.ends_with(b"\n"));
        // A byte order mark counts only at the start of the file.
        let all = if self.bytes == 0 {
            lines(part)
        } else {
            lines_from(part, 0)
        };
        let blank = |s: Span| part[s.start..s.end].iter().all(u8::is_ascii_whitespace);
        let last = if end {
            all.iter().rposition(|l| !blank(l.span))
        } else {
            None
        };
        let (base, first) = (self.bytes, self.lines);
        let read: Vec<Line<'_>> = all
            .iter()
            .enumerate()
            .filter(|(_, l)| !blank(l.span))
            .map(|(k, l)| Line {
                raw: &part[l.span.start..l.span.end],
                no: first.saturating_add(l.no),
                span: Span::new(
                    base.saturating_add(l.span.start),
                    base.saturating_add(l.span.end),
                ),
                last_entry: Some(k) == last,
                last_line: end && k + 1 == all.len(),
            })
            .collect();
        self.reader.lines(&read);
        // Saturating: a kept state is read back from a file.
        self.bytes = self.bytes.saturating_add(part.len());
        self.lines = first.saturating_add(u32::try_from(all.len()).unwrap_or(u32::MAX));
    }

    /// The records of the session read so far.
    pub fn finish(self) -> Parsed {
        self.reader.finish()
    }
}

fn chat_record(c: ChatItem) -> Record {
    Record {
        ts: c.ts,
        ..Record::new(
            c.line,
            c.span,
            Body::Chat(Box::new(Chat {
                role: if c.user { "user" } else { "assistant" }.into(),
                text: Some(c.text),
                turn_end: false,
            })),
        )
    }
}

fn tool_record(t: ToolItem) -> Record {
    Record {
        ts: t.ts,
        ..Record::new(
            t.line,
            t.span,
            Body::Tool(Box::new(Tool {
                name: t.name,
                args: t.args,
                at: t.at,
            })),
        )
    }
}

fn fn_record(c: CallItem, problems: &mut Vec<Problem>) -> Record {
    let mut obj = Obj::new();
    obj.insert("args".into(), Value::Object(c.args));
    let mut places = Places {
        args: c.args_place,
        result: c.args_place,
        error: c.args_place,
    };
    let mut error = None;
    match c.answer {
        Answer::None => {}
        Answer::Result(a, place) => {
            obj.insert("result".into(), Value::Object(a));
            places.result = place;
        }
        Answer::Error(e, place) => {
            error = Some(Box::new(e));
            places.error = place;
        }
    }
    let mut found = Vec::new();
    let mut f = native::read_fn_call(function_name(&c.tool), obj, c.span, &mut found);
    if error.is_some() {
        f.error = error;
    }
    places.relocate(&mut f.op);
    places.relocate_problems(c.span, &mut found);
    problems.extend(found);
    Record {
        ts: c.ts,
        ..Record::new(c.line, c.span, Body::Fn(f))
    }
}

/// The answer a tool's output text holds: the JSON object in it, or, for
/// a text that is no JSON, the failure it reports (a voicehook function
/// always answers with an object). `place` is where the text is.
pub(crate) fn answer_of_text(text: &str, place: Place) -> Answer {
    let t = text.trim();
    if t.is_empty() {
        return Answer::None;
    }
    match serde_json::from_str::<Value>(t) {
        Ok(Value::Object(o)) => Answer::Result(
            o,
            Place {
                opaque: true,
                ..place
            },
        ),
        // A client's own rendering of the content blocks: the first block
        // whose text is an object.
        Ok(Value::Array(items)) => {
            for (i, it) in items.iter().enumerate() {
                let Some(s) = it.get("text").and_then(Value::as_str) else {
                    continue;
                };
                if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(s) {
                    return Answer::Result(
                        o,
                        Place {
                            path: place.path.json().index(i).key("text"),
                            within: place.within,
                            opaque: true,
                        },
                    );
                }
            }
            let msg = items
                .iter()
                .find_map(|it| it.get("text").and_then(Value::as_str))
                .unwrap_or(t);
            Answer::Error(refusal(msg), place)
        }
        _ => Answer::Error(refusal(t), place),
    }
}

/// A failure's message, with the HTTP status it starts with.
pub(crate) fn refusal(msg: &str) -> ApiError {
    let msg = msg.trim();
    let msg = msg.strip_prefix("err:").map(str::trim).unwrap_or(msg);
    super::mcp::refusal(None, Some(msg.to_string()))
}

/// The span of the string at `path` inside `within` (a JSON value), for a
/// place that is a JSON text inside a string: answers are pointed into
/// with short paths from there.
pub(crate) fn string_place(src: &[u8], within: Span, path: Path) -> Place {
    string_place_in(&src[within.start..within.end], within.start, path)
}

/// [`string_place`] inside `value`, the bytes of a JSON value that start at
/// `start` in the file.
pub(crate) fn string_place_in(value: &[u8], start: usize, path: Path) -> Place {
    let inner = crate::core::locate::locate(value, &path);
    Place {
        path: Path::ROOT,
        within: Some(Span::new(start + inner.start, start + inner.end)),
        opaque: true,
    }
}

/// A shell command as one line: `["bash", "-lc", "git status"]` is
/// `git status`.
pub(crate) fn command_line(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            match words.as_slice() {
                [sh, flag, cmd]
                    if ["bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"].contains(sh)
                        && flag.starts_with('-')
                        && flag.ends_with('c') =>
                {
                    Some(cmd.to_string())
                }
                [] => None,
                w => Some(w.join(" ")),
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_read_as_one_line() {
        assert_eq!(
            command_line(&json!(["bash", "-lc", "git status"])).as_deref(),
            Some("git status")
        );
        assert_eq!(
            command_line(&json!(["git", "push"])).as_deref(),
            Some("git push")
        );
        assert_eq!(command_line(&json!("ls")).as_deref(), Some("ls"));
        assert_eq!(command_line(&json!([])), None);
        assert_eq!(command_line(&json!(5)), None);
    }

    #[test]
    fn output_texts_become_answers_or_failures() {
        let place = Place::at(Path::ROOT.key("output"));
        assert!(matches!(
            answer_of_text("{\"say_id\":\"s1\"}", place),
            Answer::Result(o, p) if o.contains_key("say_id") && p.opaque
        ));
        match answer_of_text(r#"[{"type":"text","text":"{\"ok\":1}"}]"#, place) {
            Answer::Result(_, p) => assert_eq!(p.path.to_string(), "output<json>[0].text"),
            _ => panic!(),
        }
        match answer_of_text("err: 422 label longer than 22 characters", place) {
            Answer::Error(e, _) => {
                assert_eq!(e.status, Some(422));
                assert_eq!(
                    e.message.as_deref(),
                    Some("422 label longer than 22 characters")
                );
            }
            _ => panic!(),
        }
        assert!(matches!(answer_of_text("  ", place), Answer::None));
        assert!(matches!(
            answer_of_text(r#"[{"type":"text","text":"no"}]"#, place),
            Answer::Error(e, _) if e.message.as_deref() == Some("no")
        ));
    }
}
