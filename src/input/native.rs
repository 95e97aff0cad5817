//! The native log: one JSON object per line (docs/formats.md).
//!
//! Every line is parsed on its own, so one broken line costs that line only.
//! Values of the wrong type become a problem pointing at the value and are
//! treated as absent; unknown keys, functions and event types are accepted.

use serde_json::{Map, Value};

use super::jdom::{Node, View, J};
use super::{ts, Problem};
use crate::model::*;
use bumpalo::Bump;

/// Parse a whole native log. Problems are returned beside the log, in line
/// order; the log holds every record that could be read.
pub fn parse(bytes: &[u8]) -> (Log, Vec<Problem>) {
    let (log, problems, _) = parse_capped(bytes, usize::MAX);
    (log, problems)
}

/// Problems of a file beyond the first few: counted, not kept. A file of
/// a million broken lines costs the memory of the first ones only.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dropped {
    pub count: usize,
    /// Where the first of them is.
    pub first: Option<Anchor>,
}

/// [`parse`], keeping the first `keep` problems and counting the rest.
pub fn parse_capped(bytes: &[u8], keep: usize) -> (Log, Vec<Problem>, Dropped) {
    // One record a line: sized once, so a large log is not copied while
    // its vector grows.
    let mut p = Lines::new(memchr::memchr_iter(b'\n', bytes).count() + 1, keep);
    p.feed(bytes, 0, true);
    p.finish()
}

/// How much of a file [`parse_reader`] reads at a time.
/// A name longer than this, in characters, is no one's name.
const MAX_NAME_CHARS: usize = 200;

const BLOCK: usize = 1 << 20;

/// The most a line's JSON tree may have taken of the arena for the arena
/// to be kept for the next line, not made anew.
const ARENA_KEPT: usize = 1 << 20;

/// What [`parse_reader`] read: the log, the problems kept and those
/// dropped, and how many bytes there were.
#[derive(Debug)]
pub struct Streamed {
    pub log: Log,
    pub problems: Vec<Problem>,
    pub dropped: Dropped,
    pub bytes: usize,
}

/// Parse a native log from `reader`, a block at a time, never holding more
/// of the file than its longest record and one block: a large log is
/// linted without its bytes in memory. A line longer than a block that
/// cannot be a record (it starts with something no JSON value starts with)
/// is not held at all: what its problem needs is kept while the rest is
/// read past. `lines` sizes the record vector (the file's count of line
/// ends, or any guess); the first `keep` problems are kept. Spans are
/// offsets into the whole stream, exactly as [`parse`] gives them for the
/// same bytes.
pub fn parse_reader(
    reader: impl std::io::Read,
    lines: usize,
    keep: usize,
) -> std::io::Result<Streamed> {
    parse_blocks(reader, lines, keep, BLOCK)
}

fn parse_blocks(
    mut reader: impl std::io::Read,
    lines: usize,
    keep: usize,
    block: usize,
) -> std::io::Result<Streamed> {
    let mut p = Lines::new(lines, keep);
    // `buf[..filled]` holds the bytes read but not yet parsed: at most one
    // line and the bytes after it. It doubles for a line longer than itself.
    let mut buf = vec![0u8; block.max(8)];
    let mut filled = 0usize;
    // Offset of `buf[0]` in the stream.
    let mut base = 0usize;
    loop {
        if filled == buf.len() {
            // One line fills the buffer (it starts at `buf[0]`).
            let bom = if base == 0 && p.line_no == 0 {
                super::bom_len(&buf[..filled])
            } else {
                0
            };
            match hopeless_head(&buf[bom..filled]) {
                Some(head) => {
                    match p.skip_line(&mut reader, &mut buf, &mut filled, base, bom, head)? {
                        Some(next) => {
                            base = next;
                            continue;
                        }
                        None => {
                            let (log, problems, dropped) = p.finish();
                            return Ok(Streamed {
                                log,
                                problems,
                                dropped,
                                bytes: filled,
                            });
                        }
                    }
                }
                None => buf.resize(buf.len() * 2, 0),
            }
        }
        let n = read_some(&mut reader, &mut buf[filled..])?;
        let old = filled;
        filled += n;
        let eof = n == 0;
        // Every whole line but the one whose end is the last byte read: only
        // the next read tells whether that one is the file's last line.
        let cut = if eof {
            filled
        } else {
            // What was kept from before holds no line end but maybe its
            // last byte, so only the new bytes are searched.
            let from = old.saturating_sub(1);
            match memchr::memrchr(b'\n', &buf[from..filled - 1]) {
                Some(k) => from + k + 1,
                None => 0,
            }
        };
        if cut == 0 && !eof {
            continue;
        }
        p.feed(&buf[..cut], base, eof);
        if eof {
            let (log, problems, dropped) = p.finish();
            return Ok(Streamed {
                log,
                problems,
                dropped,
                bytes: base + cut,
            });
        }
        buf.copy_within(cut..filled, 0);
        filled -= cut;
        base += cut;
    }
}

/// For the start of a line that can be no record, the length of the part
/// its problem is found in: up to and with its first character that no
/// JSON value starts with. `None` when the line may still be a record (or
/// a value, or blank), which only the whole line tells.
fn hopeless_head(line: &[u8]) -> Option<usize> {
    let at = line
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r'))?;
    let b = line[at];
    if b.is_ascii_whitespace()
        || matches!(
            b,
            b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
        )
    {
        return None;
    }
    // The whole character, when it is one; else the byte alone.
    let len = match b {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    };
    let end = (at + len).min(line.len());
    let end = if std::str::from_utf8(&line[at..end]).is_ok() {
        end
    } else {
        at + 1
    };
    Some(end)
}

/// Count the line ends `reader` holds: what [`parse_reader`] sizes its
/// record vector by.
pub fn count_lines(mut reader: impl std::io::Read) -> std::io::Result<usize> {
    let mut buf = vec![0u8; BLOCK];
    let mut count = 0;
    loop {
        match read_some(&mut reader, &mut buf)? {
            0 => return Ok(count),
            n => count += memchr::memchr_iter(b'\n', &buf[..n]).count(),
        }
    }
}

/// One read into `buf`, tried again when a signal interrupted it; 0 at the
/// end of the stream.
fn read_some(reader: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            r => return r,
        }
    }
}

/// A native log read as its file grows: its whole lines fed as they are
/// written, each read once, into the log and problems that [`parse`]
/// gives for the file as it is so far.
pub struct Growing {
    lines: Lines,
    /// Where the last line fed starts.
    last: usize,
}

impl Growing {
    /// Nothing read yet; the first `keep` problems are kept.
    pub fn new(keep: usize) -> Growing {
        Growing {
            lines: Lines::new(0, keep),
            last: 0,
        }
    }

    /// Read `bytes`: whole lines (each ending in a line end) that start at
    /// `offset` in the file, right after the lines fed before.
    pub fn feed(&mut self, bytes: &[u8], offset: usize) {
        let Some(body) = bytes.strip_suffix(b"\n") else {
            return;
        };
        self.last = offset + memchr::memrchr(b'\n', body).map_or(0, |k| k + 1);
        self.lines.feed(bytes, offset, false);
    }

    /// The log read so far.
    pub fn log_mut(&mut self) -> &mut Log {
        &mut self.lines.log
    }

    /// The problems so far, as [`parse_capped`] gives them for the file
    /// as it is now: a record cut off on its last line is the file's last.
    pub fn problems(&self) -> (Vec<Problem>, Dropped) {
        let mut problems = self.lines.problems.clone();
        for p in &mut problems {
            if p.at.span.start >= self.last && p.message == CUT_SHORT.0 {
                p.message = CUT_AT_END.0.into();
                p.help = Some(CUT_AT_END.1.into());
            }
        }
        (problems, self.lines.dropped.clone())
    }
}

/// The problem of a line that ends inside a JSON value, and its help.
const CUT_SHORT: (&str, &str) = (
    "this record is cut off before its end",
    "the line ends inside a JSON value; the rest of the file was still linted",
);

/// [`CUT_SHORT`] on the last line of a file.
const CUT_AT_END: (&str, &str) = (
    "the last record is cut off (the file ends inside it)",
    "the recorder probably stopped mid-write; the records before it were linted",
);

/// The line-by-line reader behind [`parse`] and [`parse_reader`].
struct Lines {
    log: Log,
    problems: Vec<Problem>,
    /// How many problems are kept; the others are counted in `dropped`.
    keep: usize,
    dropped: Dropped,
    line_no: u32,
    names: Interner,
    /// The records' origins, shared by the lines in a row that name the
    /// same.
    origins: Origins,
    /// Where the line being read keeps its JSON tree.
    arena: Bump,
}

impl Lines {
    fn new(lines: usize, keep: usize) -> Lines {
        let mut log = Log::default();
        // Room for `lines` records if the system grants it (a file of
        // blank lines counts many more lines than records); else the
        // vector grows as records come.
        let _ = log.records.try_reserve_exact(lines);
        Lines {
            log,
            problems: Vec::new(),
            keep,
            dropped: Dropped::default(),
            line_no: 0,
            names: Interner::default(),
            origins: Origins::default(),
            arena: Bump::new(),
        }
    }

    /// Read the whole lines of `bytes`, which start at `offset` in the
    /// file; `end` says that they run to the end of the file (the last of
    /// them may then lack its line end).
    fn feed(&mut self, bytes: &[u8], offset: usize, end: bool) {
        // A byte order mark before the first line is not part of it.
        let mut start = if offset == 0 && self.line_no == 0 {
            super::bom_len(bytes)
        } else {
            0
        };
        let len = bytes.len();
        while start < len {
            self.line_no = self.line_no.saturating_add(1);
            let nl = memchr::memchr(b'\n', &bytes[start..]).map(|k| start + k);
            let stop = nl.unwrap_or(len);
            let mut content_end = stop;
            if content_end > start && bytes[content_end - 1] == b'\r' {
                content_end -= 1;
            }
            let is_last = end && (nl.is_none() || nl == Some(len - 1));
            self.parse_line(&bytes[start..content_end], offset + start, is_last);
            self.cap();
            match nl {
                Some(k) => start = k + 1,
                None => break,
            }
        }
    }

    /// Count the problems beyond the first `keep` instead of keeping them.
    fn cap(&mut self) {
        if self.problems.len() > self.keep {
            for p in self.problems.drain(self.keep..) {
                self.dropped.count += 1;
                self.dropped.first.get_or_insert(p.at);
            }
        }
    }

    /// Read past a line that can be no record, longer than `buf`: `buf`
    /// is full, `buf[0]` is at `base` in the stream, and the line starts
    /// at `buf[bom]` (after a byte order mark, for the first line). Its
    /// problem is the one [`Lines::parse_line`] gives for the whole line: at the
    /// first byte that is not UTF-8, or else at the end of its first
    /// `head` bytes, which are all that is kept of it. Returns the offset
    /// of the next line, whose bytes read so far are left at the start of
    /// `buf`, or `None` at the end of the stream (`filled` then counts the
    /// bytes of `buf` past the last offset read).
    fn skip_line(
        &mut self,
        reader: &mut impl std::io::Read,
        buf: &mut [u8],
        filled: &mut usize,
        base: usize,
        bom: usize,
        head: usize,
    ) -> std::io::Result<Option<usize>> {
        let line_start = base + bom;
        let first = buf[bom..bom + head].to_vec();
        // `buf[..*filled]` is at `at` in the stream; bytes before `from`
        // are not the line's or were checked already.
        let mut at = base;
        let mut from = bom;
        let mut bad: Option<(usize, u8, usize)> = None;
        let next = loop {
            let nl = memchr::memchr(b'\n', &buf[from..*filled]).map(|k| from + k);
            let body = nl.unwrap_or(*filled);
            let mut tail = 0;
            if bad.is_none() {
                if let Err(e) = std::str::from_utf8(&buf[from..body]) {
                    let k = from + e.valid_up_to();
                    match e.error_len() {
                        Some(len) => bad = Some((at + k, buf[k], len)),
                        // Cut inside a character: it ends in the next
                        // read, unless the line ends inside it.
                        None if nl.is_none() => tail = body - k,
                        None => bad = Some((at + k, buf[k], 1)),
                    }
                }
            }
            if let Some(k) = nl {
                break Some(at + k + 1);
            }
            // Keep an unfinished character; read on after it.
            buf.copy_within(*filled - tail..*filled, 0);
            at += *filled - tail;
            *filled = tail;
            from = 0;
            let n = read_some(reader, &mut buf[tail..])?;
            *filled += n;
            if n == 0 {
                if tail > 0 && bad.is_none() {
                    bad = Some((at, buf[0], 1));
                }
                break None;
            }
        };
        self.line_no = self.line_no.saturating_add(1);
        match bad {
            Some((o, byte, len)) => self.problems.push(utf8_problem(o, byte, len)),
            None => self.parse_line(&first, line_start, false),
        }
        self.cap();
        Ok(match next {
            Some(n) => {
                let k = n - at;
                buf.copy_within(k..*filled, 0);
                *filled -= k;
                Some(n)
            }
            None => {
                *filled += at;
                None
            }
        })
    }

    fn finish(self) -> (Log, Vec<Problem>, Dropped) {
        (self.log, self.problems, self.dropped)
    }
}

/// Read a function call from an object shaped like a native record (`args`,
/// and `result` or `error`), for the inputs that map onto function records
/// (MCP traces, boards, payloads in prompts). Values of the wrong type
/// become problems at `span` with native paths (`args.open[1]`), which the
/// caller moves to where the values really are.
pub fn read_fn_call(
    name: &str,
    obj: Map<String, Value>,
    span: Span,
    problems: &mut Vec<Problem>,
) -> FnCall {
    // The readers walk a node; the fields are the object's.
    let obj = Value::Object(obj);
    Reader {
        span,
        problems,
        names: &mut Interner::default(),
    }
    .fn_call(name, &obj)
}

impl Lines {
    /// Read line number `self.line_no`, `raw` at `offset` in the file (its
    /// last line when `is_last`): its record, or the problem it has.
    fn parse_line(&mut self, raw: &[u8], offset: usize, is_last: bool) {
        let Lines {
            log,
            problems,
            names,
            origins,
            arena,
            line_no,
            ..
        } = self;
        let line = *line_no;
        if raw.iter().all(|b| b.is_ascii_whitespace()) {
            return;
        }
        let span = Span::new(offset, offset + raw.len());
        let text = match std::str::from_utf8(raw) {
            Ok(t) => t,
            Err(e) => {
                let at = offset + e.valid_up_to();
                let bad = raw[e.valid_up_to()];
                problems.push(utf8_problem(at, bad, e.error_len().unwrap_or(1)));
                return;
            }
        };
        // What the line before left in the arena is gone with its tree; an
        // arena a huge line grew is not kept for the lines after it.
        if arena.allocated_bytes() > ARENA_KEPT {
            *arena = Bump::new();
        } else {
            arena.reset();
        }
        let obj = match J::read_direct(text, arena) {
            Some(v) => v,
            None => {
                // What the direct reader built before it gave up is not
                // kept beside serde_json's tree of the same line.
                arena.reset();
                match J::parse_with_serde(text, arena) {
                    Ok(v) => v,
                    Err(e) => {
                        problems.push(json_problem(&e, text, offset, is_last));
                        return;
                    }
                }
            }
        };
        let J::Obj(_) = obj else {
            problems.push(Problem::new(
                Anchor::bytes(span),
                format!(
                    "a record must be a JSON object, this line holds {}",
                    obj.kind_name()
                ),
                Some("each line of a call log is one object with `fn`, `chat` or `tool`".into()),
            ));
            return;
        };
        let mut rd = Reader {
            span,
            problems,
            names,
        };
        if let Some(meta) = obj.field("meta") {
            let m = rd.meta(meta);
            if log.meta.is_none() && log.records.is_empty() {
                log.meta = Some(m.clone());
            }
            log.records
                .push(Record::new(line, span, Body::Meta(Box::new(m))));
            return;
        }
        let mut kinds = ["fn", "chat", "tool"]
            .into_iter()
            .filter(|k| obj.field(k).is_some_and(|v| !v.is_null()));
        let root = Path::ROOT;
        let body = match (kinds.next(), kinds.next()) {
            (Some("fn"), None) => {
                let Some(name) = rd.req_str_ref(&obj, root, "fn") else {
                    return;
                };
                Body::Fn(rd.fn_call(name, &obj))
            }
            (Some("chat"), None) => {
                let Some(role) = rd.req_str(&obj, root, "chat") else {
                    return;
                };
                Body::Chat(Box::new(Chat {
                    role,
                    text: rd.text(&obj, root, "text"),
                    turn_end: rd.bool(&obj, root, "turn_end").unwrap_or(false),
                }))
            }
            (Some(_), None) => {
                let Some(name) = rd.req_str(&obj, root, "tool") else {
                    return;
                };
                Body::Tool(Box::new(Tool {
                    name,
                    args: rd.obj(&obj, root, "args").map(J::to_value),
                    at: None,
                }))
            }
            (None, _) => {
                rd.problem(
                Anchor::bytes(span),
                "this record has none of `fn`, `chat` or `tool`, so it is neither a function call, a chat message nor a tool run".into(),
                Some("add the key that says what the record is".into()),
            );
                return;
            }
            (Some(first), Some(second)) => {
                rd.problem(
                    Anchor {
                        span,
                        path: root.key(second),
                    },
                    format!(
                    "this record has both `{first}` and `{second}`; a record is exactly one kind"
                ),
                    Some("split it into one record per kind".into()),
                );
                return;
            }
        };
        let ts = rd.ts(&obj, root, "ts");
        let agent = rd.name(&obj, root, "agent");
        let call = rd.name(&obj, root, "call");
        let thread = rd
            .str_ref(&obj, root, "thread")
            .map(Thread::parse)
            .unwrap_or_default();
        log.records.push(
            Record {
                ts,
                ..Record::new(line, span, body)
            }
            .from_origin(origins.of(agent, call, thread)),
        );
    }
}

/// The problem of a line that is not UTF-8: `len` bytes at `at`, the
/// first of them `bad`.
fn utf8_problem(at: usize, bad: u8, len: usize) -> Problem {
    Problem::new(
        Anchor::bytes(Span::new(at, at + len)),
        format!("this line is not valid UTF-8 (byte 0x{bad:02x})"),
        Some("a log is UTF-8 text; this line was skipped".into()),
    )
}

fn json_problem(e: &serde_json::Error, text: &str, offset: usize, is_last: bool) -> Problem {
    // serde_json counts columns in bytes from 1; point at the byte it stopped on.
    let col = e.column().max(1) - 1;
    let at = floor_char_boundary(text, col.min(text.len()));
    let end = text[at..]
        .chars()
        .next()
        .map(|c| at + c.len_utf8())
        .unwrap_or(at);
    let anchor = Anchor::bytes(Span::new(offset + at, offset + end));
    let what = e.to_string();
    let what = what
        .rsplit_once(" at line ")
        .map(|(a, _)| a.to_string())
        .unwrap_or(what);
    if e.is_eof() {
        let (msg, help) = if is_last { CUT_AT_END } else { CUT_SHORT };
        return Problem::new(anchor, msg.into(), Some(help.into()));
    }
    if what.starts_with(super::jdom::TOO_MANY_VALUES) {
        return Problem::new(
            anchor,
            "this line holds more values than a call record can: reading them all would take several times its size in memory".into(),
            Some("a record is one call with its answer, a few kilobytes; this line was skipped and the rest of the file was still linted".into()),
        );
    }
    if what.contains("recursion limit") {
        return Problem::new(
            anchor,
            "this record is nested too deeply to be a call record".into(),
            Some("records nest a few levels at most; this line was skipped".into()),
        );
    }
    Problem::new(
        anchor,
        format!("this line is not valid JSON: {what}"),
        Some("the line was skipped; the rest of the file was still linted".into()),
    )
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Typed access to a record's fields that notes every value of the wrong
/// type as a problem at that value.
struct Reader<'p> {
    span: Span,
    problems: &'p mut Vec<Problem>,
    names: &'p mut Interner,
}

impl Reader<'_> {
    fn problem(&mut self, at: Anchor, message: String, help: Option<String>) {
        self.problems.push(Problem::new(at, message, help));
    }

    fn wrong_type<N: Node>(&mut self, path: Path, expected: &str, v: &N) {
        self.problem(
            Anchor {
                span: self.span,
                path,
            },
            format!("`{path}` should be {expected}, found {}", v.kind_name()),
            Some("the value was ignored; the rest of the record was linted".into()),
        );
    }

    /// A present, non-null value.
    fn get<'v, N: Node>(&self, obj: &'v N, key: &str) -> Option<&'v N> {
        obj.field(key).filter(|v| !v.is_null())
    }

    fn str<N: Node>(&mut self, obj: &N, at: Path, key: &'static str) -> Option<String> {
        self.str_ref(obj, at, key).map(str::to_string)
    }

    /// A string value that names someone or something, shared. A name of
    /// more than [`MAX_NAME_CHARS`] is said once, where it is.
    fn name<N: Node>(&mut self, obj: &N, at: Path, key: &'static str) -> Option<Name> {
        let s = self.str_ref(obj, at, key)?;
        // No more bytes than that, no more characters: only a long name is
        // counted.
        if s.len() > MAX_NAME_CHARS && s.chars().nth(MAX_NAME_CHARS).is_some() {
            let path = at.key(key);
            self.problem(
                Anchor {
                    span: self.span,
                    path,
                },
                format!(
                    "`{path}` is a name of {} characters: no one is called that",
                    s.chars().count()
                ),
                Some("it was read as it is; findings show it cut short".into()),
            );
        }
        Some(self.names.name(s))
    }

    /// A string value, borrowed: for fields only checked, not kept.
    fn str_ref<'v, N: Node>(&mut self, obj: &'v N, at: Path, key: &'static str) -> Option<&'v str> {
        let v = self.get(obj, key)?;
        match v.view() {
            View::Str(s) => Some(s),
            _ => {
                self.wrong_type(at.key(key), "a string", v);
                None
            }
        }
    }

    fn req_str<N: Node>(&mut self, obj: &N, at: Path, key: &'static str) -> Option<String> {
        self.req_str_ref(obj, at, key).map(str::to_string)
    }

    /// [`Reader::req_str`], borrowed: for a value read, not kept.
    fn req_str_ref<'v, N: Node>(
        &mut self,
        obj: &'v N,
        at: Path,
        key: &'static str,
    ) -> Option<&'v str> {
        let v = self.get(obj, key)?;
        match v.view() {
            View::Str(s) => Some(s),
            _ => {
                let path = at.key(key);
                self.problem(
                    Anchor {
                        span: self.span,
                        path,
                    },
                    format!("`{path}` should be a string, found {}", v.kind_name()),
                    Some("this record was skipped".into()),
                );
                None
            }
        }
    }

    fn text<N: Node>(&mut self, obj: &N, at: Path, key: &'static str) -> Option<Text> {
        self.str(obj, at, key)
            .map(|value| Text::new(value, at.key(key)))
    }

    fn bool<N: Node>(&mut self, obj: &N, at: Path, key: &'static str) -> Option<bool> {
        let v = self.get(obj, key)?;
        match v.view() {
            View::Bool(b) => Some(b),
            _ => {
                self.wrong_type(at.key(key), "true or false", v);
                None
            }
        }
    }

    fn int<N: Node>(&mut self, obj: &N, at: Path, key: &'static str) -> Option<i64> {
        let v = self.get(obj, key)?;
        match v.view() {
            View::Num { int: Some(i) } => Some(i),
            _ => {
                self.wrong_type(at.key(key), "a whole number", v);
                None
            }
        }
    }

    fn ts<N: Node>(&mut self, obj: &N, at: Path, key: &'static str) -> Option<Ms> {
        let v = self.get(obj, key)?;
        let View::Str(s) = v.view() else {
            self.wrong_type(at.key(key), "a string", v);
            return None;
        };
        match ts::parse_rfc3339(s) {
            Some(ms) => Some(ms),
            None => {
                self.problem(
                    Anchor {
                        span: self.span,
                        path: at.key(key),
                    },
                    format!(
                        "`{}` is not an RFC 3339 time: {}",
                        at.key(key),
                        crate::core::escape::quote(s, 40)
                    ),
                    Some("write times like 2026-10-10T09:14:03.512Z; rules that need the time skip this record".into()),
                );
                None
            }
        }
    }

    /// An object value (the node itself, which [`Node::field`] reads).
    fn obj<'v, N: Node>(&mut self, obj: &'v N, at: Path, key: &'static str) -> Option<&'v N> {
        let v = self.get(obj, key)?;
        match v.view() {
            View::Obj => Some(v),
            _ => {
                self.wrong_type(at.key(key), "an object", v);
                None
            }
        }
    }

    /// A list of strings; items of another type are noted and skipped.
    fn texts<N: Node>(&mut self, obj: &N, at: Path, key: &'static str) -> Option<Vec<Text>> {
        self.strings(obj, at, key, |_, s, path| Text::new(s.to_string(), path))
    }

    /// A board's `open` or `done`: a list of strings. Anything else is a
    /// wrong type; a single string is still kept as one item, so that what
    /// it says is judged with the rest of the board.
    fn items<N: Node>(&mut self, obj: &N, at: Path, key: &'static str) -> Vec<Text> {
        if let Some(v) = self.get(obj, key) {
            if let View::Str(_) = v.view() {
                self.wrong_type(at.key(key), "a list of strings", v);
            }
        }
        self.texts(obj, at, key).unwrap_or_default()
    }

    /// A list of strings, each made into a `T` with its path; a single
    /// string where a list was expected is read as a list of one.
    fn strings<N: Node, T>(
        &mut self,
        obj: &N,
        at: Path,
        key: &'static str,
        mut make: impl FnMut(&mut Interner, &str, Path) -> T,
    ) -> Option<Vec<T>> {
        let path = at.key(key);
        let v = self.get(obj, key)?;
        match v.view() {
            View::Arr(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, v) in items.iter().enumerate() {
                    match v.view() {
                        View::Str(s) => out.push(make(self.names, s, path.index(i))),
                        View::Null => {}
                        _ => self.wrong_type(path.index(i), "a string", v),
                    }
                }
                Some(out)
            }
            View::Str(s) => Some(vec![make(self.names, s, path)]),
            _ => {
                self.wrong_type(path, "a list of strings", v);
                None
            }
        }
    }

    /// The names in a list of participants: each item a name, or an object
    /// whose `label` (else `name`) is one. Other items are passed over.
    fn listed<N: Node>(&mut self, obj: &N, at: Path, key: &'static str) -> Option<Vec<Text>> {
        let path = at.key(key);
        let v = self.get(obj, key)?;
        let View::Arr(items) = v.view() else {
            self.wrong_type(path, "a list", v);
            return None;
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item.view() {
                View::Str(s) => out.push(Text::new(s.to_string(), path.index(i))),
                View::Obj => {
                    for k in ["label", "name"] {
                        if let Some(View::Str(s)) = item.field(k).map(|n| n.view()) {
                            out.push(Text::new(s.to_string(), path.index(i).key(k)));
                            break;
                        }
                    }
                }
                _ => {}
            }
        }
        Some(out)
    }

    /// A list of strings, checked and not kept.
    fn check_names<N: Node>(&mut self, obj: &N, at: Path, key: &'static str) -> Option<()> {
        let path = at.key(key);
        let v = self.get(obj, key)?;
        match v.view() {
            View::Arr(items) => {
                for (i, item) in items.iter().enumerate() {
                    if !matches!(item.view(), View::Str(_) | View::Null) {
                        self.wrong_type(path.index(i), "a string", item);
                    }
                }
            }
            _ => self.wrong_type(path, "a list of strings", v),
        }
        Some(())
    }

    /// `text`, else `url`, of `share` and `notice`; both are checked.
    fn text_or_url<N: Node>(&mut self, args: Option<&N>, a: Path) -> Option<Box<Text>> {
        let o = args?;
        let text = self.text(o, a, "text");
        let url = self.text(o, a, "url");
        text.or(url).map(Box::new)
    }

    /// A list of names: [`Reader::texts`] without the paths.
    fn names<N: Node>(&mut self, obj: &N, at: Path, key: &'static str) -> Option<Box<[Name]>> {
        self.strings(obj, at, key, |names, s, _| names.name(s))
            .map(Vec::into_boxed_slice)
    }

    fn meta<N: Node>(&mut self, o: &N) -> Meta {
        let at = Path::ROOT.key("meta");
        if !matches!(o.view(), View::Obj) {
            self.wrong_type(at, "an object", o);
            return Meta::default();
        }
        Meta {
            format: self.int(o, at, "format"),
            recorder: self.str(o, at, "recorder"),
            client: self.str(o, at, "client"),
            human: self.str(o, at, "human"),
            voicebot: self.str(o, at, "voicebot"),
        }
    }

    fn fn_call<N: Node>(&mut self, name: &str, obj: &N) -> FnCall {
        let root = Path::ROOT;
        let args_path = root.key("args");
        let args = self.obj(obj, root, "args");
        let res_path = root.key("result");
        // `next` returns an event; everything else an object.
        let error = self.obj(obj, root, "error").map(|e| {
            let ep = root.key("error");
            Box::new(ApiError {
                status: self.int(e, ep, "status"),
                message: self.str(e, ep, "message"),
            })
        });
        let result = if error.is_none() {
            self.obj(obj, root, "result")
        } else {
            None
        };
        let a = args_path;
        // Fields of an absent `args` or `result` read as absent.
        macro_rules! arg {
            ($m:ident, $key:literal) => {
                match args {
                    Some(o) => self.$m(o, a, $key),
                    None => None,
                }
            };
        }
        macro_rules! res {
            ($m:ident, $key:literal) => {
                match result {
                    Some(o) => self.$m(o, res_path, $key),
                    None => None,
                }
            };
        }
        let op = match name {
            "create_call" => Op::CreateCall(Box::new(CreateCall {
                lang: arg!(str, "lang"),
                title: arg!(str, "title"),
                call_id: res!(str, "call_id"),
                link: res!(str, "link"),
                share_text: res!(text, "share_text"),
            })),
            "join" => {
                // The server's instructions: checked, not kept.
                res!(str_ref, "instructions");
                Op::Join(Box::new(Join {
                    call_id: arg!(str, "call_id"),
                    label: arg!(text, "label"),
                    emoji: arg!(str, "emoji"),
                    greet: match args.and_then(|o| self.get(o, "greet")) {
                        None => None,
                        Some(v) => match v.view() {
                            View::Bool(b) => Some(Greet::Flag(b)),
                            View::Str(s) => {
                                Some(Greet::Text(Text::new(s.to_string(), a.key("greet"))))
                            }
                            _ => {
                                self.wrong_type(a.key("greet"), "true, false or a text", v);
                                None
                            }
                        },
                    },
                    quiet: arg!(bool, "quiet"),
                    status: res!(str, "status"),
                    context: res!(obj, "context").map(|c| self.context(c, res_path.key("context"))),
                    role: match res!(str, "role").as_deref() {
                        Some("owner") => Some(Role::Owner),
                        Some("participant") => Some(Role::Participant),
                        _ => None,
                    },
                }))
            }
            "next" => Op::Next(result.map(|r| Box::new(self.event(r, res_path)))),
            "say" => Op::Say(Box::new(Say {
                text: arg!(text, "text"),
                say_id: res!(str, "say_id"),
                say_status: res!(str, "say_status"),
                reason: res!(str, "reason"),
            })),
            "status" => Op::Status(Box::new({
                // Who else is in the call, as the server answers: lists
                // of names or of objects with a `label` (the format leaves
                // it open).
                let mut listed = res!(listed, "peers").unwrap_or_default();
                listed.extend(res!(listed, "operators").unwrap_or_default());
                let mut board = match args {
                    Some(o) => self.board(o, a),
                    None => Board::default(),
                };
                board.listed = listed;
                board
            })),
            "activity" => Op::Activity(arg!(text, "text").map(Box::new)),
            "decide" => Op::Decide(Box::new(Decide {
                question: arg!(text, "question"),
                options: arg!(texts, "options"),
                decision_id: res!(str, "decision_id"),
            })),
            "show" => Op::Show(arg!(str, "panel").map(Box::new)),
            "share" => Op::Share(self.text_or_url(args, a)),
            "notice" => Op::Notice(self.text_or_url(args, a)),
            "leave" => Op::Leave,
            _ => Op::Other,
        };
        FnCall {
            name: self.names.name(name),
            op,
            error,
        }
    }

    fn context<N: Node>(&mut self, c: &N, at: Path) -> Context {
        // Checked, not kept: what the server tells the agent.
        self.str_ref(c, at, "instructions");
        self.str_ref(c, at, "rules");
        self.str_ref(c, at, "skill_url");
        self.check_names(c, at, "functions");
        Context {
            lang: self.text(c, at, "lang"),
            mode: self.str(c, at, "mode"),
        }
    }

    /// A board: the arguments of `status` or a board payload.
    fn board<N: Node>(&mut self, o: &N, at: Path) -> Board {
        Board {
            label: self.text(o, at, "label"),
            emoji: self.text(o, at, "emoji"),
            doing: self.text(o, at, "doing"),
            open: self.items(o, at, "open"),
            done: self.items(o, at, "done"),
            listed: Vec::new(),
        }
    }

    fn line<N: Node>(&mut self, o: &N, at: Path) -> Line {
        // The speaking operator and its model: checked, not kept (no rule
        // reads them, and a long call has hundreds of thousands of lines).
        self.str_ref(o, at, "op");
        self.str_ref(o, at, "model");
        Line {
            speaker: self.name(o, at, "speaker"),
            text: self.text(o, at, "text"),
            ts: self.ts(o, at, "ts"),
            addressed_to: self.names(o, at, "addressed_to"),
            addressed_to_you: self.bool(o, at, "addressed_to_you"),
            to_human: self.bool(o, at, "to_human"),
        }
    }

    fn lines<N: Node>(&mut self, o: &N, at: Path, key: &'static str) -> Vec<Line> {
        let path = at.key(key);
        let Some(v) = self.get(o, key) else {
            return Vec::new();
        };
        match v.view() {
            View::Arr(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, v) in items.iter().enumerate() {
                    match v.view() {
                        View::Obj => out.push(self.line(v, path.index(i))),
                        _ => self.wrong_type(path.index(i), "a line object", v),
                    }
                }
                out
            }
            _ => {
                self.wrong_type(path, "a list of lines", v);
                Vec::new()
            }
        }
    }

    fn event<N: Node>(&mut self, r: &N, at: Path) -> Event {
        // The type is copied only when it is none of the known ones.
        let ty = self.str_ref(r, at, "type").unwrap_or_default();
        let kind = match ty {
            "user" => EventKind::User(Box::new(self.line(r, at))),
            "timeout" => EventKind::Timeout,
            "operator" => EventKind::Operator(Box::new(self.line(r, at))),
            "revise" => EventKind::Revise(Box::new(Revise {
                say_id: self.str(r, at, "say_id"),
                reason: self.str(r, at, "reason"),
                text: self.text(r, at, "text"),
            })),
            "context" => EventKind::Context(Box::new(
                self.obj(r, at, "context")
                    .map(|c| self.context(c, at.key("context")))
                    .unwrap_or_default(),
            )),
            "decision" => EventKind::Decision(Box::new(Decision {
                decision_id: self.str(r, at, "decision_id"),
                answer: self.text(r, at, "answer"),
            })),
            "status_request" => EventKind::StatusRequest,
            "waiting_for_human" => EventKind::WaitingForHuman,
            _ => EventKind::Other(ty.into()),
        };
        Event {
            kind,
            operators_said: self.lines(r, at, "operators_said").into_boxed_slice(),
            agent_said: self.lines(r, at, "agent_said").into_boxed_slice(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out its bytes a few at a time, in pieces of
    /// varying size: every line end falls at every place of a read.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.step = self.step % 7 + 1;
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_line_of_millions_of_tiny_values_is_skipped_not_held() {
        let ok = r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"leave"}"#;
        // Five bytes a value, a tree node of 24 bytes each: far more than
        // the line's size and the 8 MiB beside it.
        let dense = format!(
            r#"{{"fn":"say","args":{{"text":"hi","x":[{}0]}}}}"#,
            "1,2,".repeat(600_000)
        );
        let (log, problems) = parse(
            format!(
                "{ok}
{dense}
{ok}
"
            )
            .as_bytes(),
        );
        assert_eq!(log.records.len(), 2, "the lines around it are read");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0]
            .message
            .contains("more values than a call record can"));
        // A long line of text is read: its tree borrows the text (or holds
        // it unescaped, shorter).
        for text in ["word ".repeat(3_000_000), "line\\n".repeat(2_000_000)] {
            let long = format!(r#"{{"fn":"say","args":{{"text":"{text}"}}}}"#);
            let (log, problems) = parse(long.as_bytes());
            assert!(problems.is_empty(), "{problems:?}");
            assert_eq!(log.records.len(), 1);
        }
    }

    #[test]
    fn a_name_is_too_long_past_its_characters_not_its_bytes() {
        let said = |n: usize| {
            let line = format!(
                r#"{{"fn":"say","agent":"{}","args":{{"text":"hi"}}}}"#,
                "é".repeat(n)
            );
            let (_, problems) = parse(line.as_bytes());
            problems
                .iter()
                .filter(|p| p.message.contains("is a name of"))
                .count()
        };
        assert_eq!(said(MAX_NAME_CHARS), 0);
        assert_eq!(said(MAX_NAME_CHARS + 1), 1);
    }

    fn streamed_as_whole(src: &[u8]) {
        let whole = parse(src);
        // Small blocks too: lines longer than a block, kept whole or read
        // past, at every place of a read.
        for block in [BLOCK, 8, 13, 64] {
            for step in [0, 3] {
                let r = parse_blocks(Trickle { bytes: src, step }, 0, usize::MAX, block).unwrap();
                assert_eq!(r.bytes, src.len(), "block {block}");
                assert_eq!(
                    format!("{:?}", (&r.log, &r.problems)),
                    format!("{whole:?}"),
                    "block {block}, step {step}"
                );
            }
        }
        // Sized by any count, even one no system grants, the records are
        // the same.
        for lines in [4, usize::MAX] {
            let r = parse_reader(src, lines, usize::MAX).unwrap();
            assert_eq!(format!("{:?}", (&r.log, &r.problems)), format!("{whole:?}"));
        }
        assert_eq!(
            count_lines(src).unwrap(),
            memchr::memchr_iter(b'\n', src).count()
        );
    }

    #[test]
    fn long_lines_that_are_no_record_are_read_past_as_whole_reading_sees_them() {
        let long = |head: &str, fill: &str, n: usize| format!("{head}{}", fill.repeat(n));
        let ok = r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"leave"}"#;
        for src in [
            long("", "\0", 200),
            long("  x", "y", 200),
            format!("{}\n{ok}\n", long("\t\u{e9}", "z", 100)),
            format!("{ok}\n{}\r\n{ok}", long("}", "\u{20ac}", 70)),
            format!("{}\u{20ac}\n{ok}", long("#", "a", 101)),
            long("\u{feff}zz", "q", 90),
        ] {
            streamed_as_whole(src.as_bytes());
            // Not UTF-8 later in the line: that is its problem.
            for bad in [&b"\xff"[..], b"\xe2\x82", b"\xe2\x82\n"] {
                let mut b = src.clone().into_bytes();
                b.extend_from_slice(bad);
                b.extend_from_slice(b"tail\n");
                b.extend_from_slice(ok.as_bytes());
                streamed_as_whole(&b);
                let mut b = src.clone().into_bytes();
                b.extend_from_slice(bad);
                streamed_as_whole(&b);
            }
        }
    }

    #[test]
    fn problems_beyond_the_kept_ones_are_counted() {
        let src = "{\n".repeat(1000);
        let (_, problems, dropped) = parse_capped(src.as_bytes(), 10);
        assert_eq!(problems.len(), 10);
        assert_eq!(dropped.count, 990);
        assert_eq!(dropped.first.map(|a| a.span.start), Some(20));
        let r = parse_blocks(src.as_bytes(), 0, 10, 16).unwrap();
        assert_eq!(
            (r.problems, r.dropped),
            (problems, parse_capped(src.as_bytes(), 10).2)
        );
    }

    #[test]
    fn reading_block_by_block_gives_what_reading_whole_gives() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");
        let mut logs = 0;
        for case in std::fs::read_dir(dir).unwrap() {
            for f in std::fs::read_dir(case.unwrap().path()).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "jsonl") {
                    streamed_as_whole(&std::fs::read(&f).unwrap());
                    logs += 1;
                }
            }
        }
        assert!(logs > 10, "{logs}");
        let say = r#"{"fn":"say","args":{"text":"Hi"}}"#;
        for src in [
            String::new(),
            "\n\n".to_string(),
            say.to_string(),
            format!("{say}\r\n{say}\r\n"),
            format!("{say}\n\n  \n{say}"),
            // cut off in the middle of the last line, and of the first
            format!("{say}\n{}", &say[..20]),
            format!("{}\n{say}\n", &say[..9]),
            format!("{say}\nnot json\n[1]\n{say}\n"),
        ] {
            streamed_as_whole(src.as_bytes());
        }
        let mut bad = format!("{say}\n").into_bytes();
        bad.extend_from_slice(b"{\"fn\":\"say\",\"args\":{\"text\":\"\xff\"}}\n");
        bad.extend_from_slice(say.as_bytes());
        streamed_as_whole(&bad);
    }

    #[test]
    fn a_line_longer_than_a_block_is_read_whole() {
        let text = "word ".repeat(BLOCK / 2);
        let src =
            format!("{{\"fn\":\"say\",\"args\":{{\"text\":\"{text}\"}}}}\n{{\"fn\":\"leave\"}}\n");
        assert!(src.len() > 2 * BLOCK);
        let r = parse_reader(src.as_bytes(), 0, usize::MAX).unwrap();
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        assert_eq!((r.bytes, r.log.records.len()), (src.len(), 2));
        assert_eq!(r.log.records[1].line, 2);
        assert_eq!(r.log.records[1].span.start, src.len() - 15);
    }

    fn one(src: &str) -> (Log, Vec<Problem>) {
        parse(src.as_bytes())
    }

    #[test]
    fn reads_a_say_with_its_text_path() {
        let (log, p) = one(
            r#"{"ts":"2026-10-10T09:00:04.100Z","fn":"say","args":{"text":"Hi"},"result":{"say_id":"s1","say_status":"queued"}}"#,
        );
        assert!(p.is_empty(), "{p:?}");
        let r = &log.records[0];
        assert_eq!(r.ts, Some(1_791_622_804_100));
        let Op::Say(s) = &r.as_fn().unwrap().op else {
            panic!()
        };
        assert_eq!(s.text.as_ref().unwrap().as_str(), "Hi");
        assert_eq!(s.text.as_ref().unwrap().path.to_string(), "args.text");
        assert_eq!(s.say_status.as_deref(), Some("queued"));
    }

    #[test]
    fn broken_line_in_the_middle_keeps_the_rest() {
        let src = "{\"fn\":\"leave\"}\n{\"fn\":\"say\",\"args\":{\"text\":\"x\"\n{\"chat\":\"assistant\",\"text\":\"hi\"}\n";
        let (log, p) = one(src);
        assert_eq!(log.records.len(), 2);
        assert_eq!(p.len(), 1);
        assert!(p[0].message.contains("cut off"), "{}", p[0].message);
        // points inside line 2
        let line2 = src.find("{\"fn\":\"say\"").unwrap();
        assert!(p[0].at.span.start >= line2);
    }

    #[test]
    fn wrong_types_point_at_the_value_and_keep_the_record() {
        let (log, p) = one(r#"{"fn":"status","args":{"emoji":"✅","open":["a",3]},"ts":5}"#);
        assert_eq!(log.records.len(), 1);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].at.path.to_string(), "args.open[1]");
        assert_eq!(p[1].at.path.to_string(), "ts");
    }

    #[test]
    fn a_board_list_of_the_wrong_type_is_a_problem_and_the_board_stays() {
        for (args, bad) in [
            (
                r#"{"emoji":"✅","open":"Fix login","done":[]}"#,
                "args.open",
            ),
            (r#"{"emoji":"✅","open":[],"done":3}"#, "args.done"),
            (r#"{"emoji":"✅","open":{"a":1},"done":[]}"#, "args.open"),
        ] {
            let (log, p) = one(&format!(r#"{{"fn":"status","args":{args}}}"#));
            assert_eq!(p.len(), 1, "{args}: {p:?}");
            assert_eq!(p[0].at.path.to_string(), bad);
            assert!(p[0].message.contains("list"), "{}", p[0].message);
            let Op::Status(st) = &log.records[0].as_fn().unwrap().op else {
                panic!("{args}")
            };
            assert_eq!(st.emoji.as_ref().unwrap().as_str(), "✅");
        }
    }

    #[test]
    fn unknown_functions_events_and_keys_are_accepted() {
        let (log, p) = one(
            "{\"fn\":\"teleport\",\"args\":{\"x\":[1]},\"zzz\":1}\n{\"fn\":\"next\",\"result\":{\"type\":\"hologram\",\"operators_said\":[]}}",
        );
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(log.records.len(), 2);
        let ev = next_event(&log.records[1]).unwrap();
        assert_eq!(ev.kind.name(), "hologram");
    }

    #[test]
    fn bad_bytes_never_panic() {
        let cases: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"\n\n\n".to_vec(),
            b"{".to_vec(),
            vec![0xff, 0xfe, b'\n', b'{', b'}'],
            b"\0\0\0".to_vec(),
            "[".repeat(100_000).into_bytes(),
            b"{\"fn\":\"say\",\"args\":{\"text\":\"\x1b[31mred\"}}".to_vec(),
            b"{\"meta\":5}\n{\"fn\":5}\n{\"chat\":true}\n{\"fn\":\"next\",\"result\":{\"type\":\"user\",\"operators_said\":{}}}"
                .to_vec(),
        ];
        for c in cases {
            let _ = parse(&c);
        }
    }

    #[test]
    fn invalid_utf8_points_at_the_byte() {
        let mut src = b"{\"fn\":\"leave\"}\n{\"fn\":\"say\",\"args\":{\"text\":\"a".to_vec();
        let bad = src.len();
        src.extend_from_slice(b"\xff\"}}\n{\"fn\":\"leave\"}");
        let (log, p) = parse(&src);
        assert_eq!(log.records.len(), 2);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].at.span.start, bad);
    }

    #[test]
    fn crlf_line_ends() {
        let (log, p) = one("{\"fn\":\"leave\"}\r\n{\"fn\":\"leave\"}\r\n");
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(log.records.len(), 2);
        assert_eq!(log.records[1].line, 2);
    }
}
