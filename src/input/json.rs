//! Helpers shared by the inputs that map JSON onto function records (MCP
//! traces, boards, payloads in prompts): where JSON values sit in the bytes,
//! lines of a file, and moving the paths a record was read with.
//!
//! The scanners are iterative and give up quietly on text that is not JSON,
//! so no input can make them recurse or panic.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Problem;
use crate::model::*;

/// One line of a file: 1-based number, the bytes without the line end.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawLine {
    pub no: u32,
    pub span: Span,
}

/// The lines of `bytes`, without `\n` or `\r\n`; a byte order mark
/// at the start is not part of the first.
pub(crate) fn lines(bytes: &[u8]) -> Vec<RawLine> {
    lines_from(bytes, super::bom_len(bytes))
}

/// The lines of `bytes` from offset `start` on.
pub(crate) fn lines_from(bytes: &[u8], start: usize) -> Vec<RawLine> {
    line_spans(bytes, start).collect()
}

/// The lines of `bytes` from offset `start` on, one at a time, without
/// `\n` or `\r\n`.
pub(crate) fn line_spans(bytes: &[u8], mut start: usize) -> impl Iterator<Item = RawLine> + '_ {
    let mut no: u32 = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        no = no.saturating_add(1);
        let end = memchr::memchr(b'\n', &bytes[start..]).map(|k| start + k);
        let mut content = end.unwrap_or(bytes.len());
        if content > start && bytes[content - 1] == b'\r' {
            content -= 1;
        }
        let line = RawLine {
            no,
            span: Span::new(start, content),
        };
        start = end.map_or(bytes.len(), |k| k + 1);
        Some(line)
    })
}

/// Line numbers of byte offsets.
pub(crate) struct LineStarts(Vec<usize>);

impl LineStarts {
    pub fn new(bytes: &[u8]) -> LineStarts {
        let mut v = vec![0];
        v.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        LineStarts(v)
    }
    /// 1-based line number of byte `offset`.
    pub fn line(&self, offset: usize) -> u32 {
        u32::try_from(self.0.partition_point(|&s| s <= offset)).unwrap_or(u32::MAX)
    }
}

pub(crate) use crate::core::locate::{skip_ws, value_span};

/// The spans of the elements of the array at `arr`, in order.
pub(crate) fn elements(t: &[u8], arr: Span) -> Vec<Span> {
    let mut out = Vec::new();
    if t.get(arr.start) != Some(&b'[') {
        return out;
    }
    let mut i = skip_ws(t, arr.start + 1);
    while i < arr.end && t[i] != b']' {
        let Some(v) = value_span(t, i) else { break };
        out.push(v);
        i = skip_ws(t, v.end);
        if t.get(i) == Some(&b',') {
            i = skip_ws(t, i + 1);
        } else {
            break;
        }
    }
    out
}

/// A JSON value read from part of a file, or why it could not be.
pub(crate) enum Read {
    Value(Span, Value),
    /// Not JSON: the problem, at the byte the parser stopped on.
    Broken(Problem),
}

/// The JSON values in `bytes[span]`, one after another (one value, JSON
/// lines, or pretty-printed values in a row). Reading stops at the first
/// broken value.
pub(crate) fn values(bytes: &[u8], span: Span) -> Vec<Read> {
    let part = &bytes[span.start..span.end];
    let mut out = Vec::new();
    let mut stream = serde_json::Deserializer::from_slice(part).into_iter::<Value>();
    let mut prev = 0usize;
    loop {
        match stream.next() {
            None => break,
            Some(Ok(v)) => {
                let end = stream.byte_offset();
                let start = skip_ws(part, prev);
                prev = end;
                out.push(Read::Value(
                    Span::new(span.start + start, span.start + end),
                    v,
                ));
            }
            Some(Err(e)) => {
                out.push(Read::Broken(broken(part, span.start, &e)));
                break;
            }
        }
    }
    out
}

/// One line (the bytes `raw`, at `offset` in the file) read as a JSON
/// value; `None` when it does not parse, with the problem noted.
pub(crate) fn line_value(raw: &[u8], offset: usize, problems: &mut Vec<Problem>) -> Option<Value> {
    match serde_json::from_slice(raw) {
        Ok(v) => Some(v),
        Err(e) => {
            problems.push(broken(raw, offset, &e));
            None
        }
    }
}

/// The problem for JSON that does not parse, at the byte serde_json stopped on.
pub(crate) fn broken(part: &[u8], offset: usize, e: &serde_json::Error) -> Problem {
    // serde_json gives a line and a column (in bytes, from 1) inside `part`.
    let mut line = 1usize;
    let mut at = 0usize;
    while line < e.line() && at < part.len() {
        if part[at] == b'\n' {
            line += 1;
        }
        at += 1;
    }
    let at = (at + e.column().saturating_sub(1)).min(part.len());
    let end = (at + 1).min(part.len()).max(at);
    let what = e.to_string();
    let what = what
        .rsplit_once(" at line ")
        .map(|(a, _)| a.to_string())
        .unwrap_or(what);
    let (message, help) = if what.contains("recursion limit") {
        (
            "this JSON is nested too deeply to be a voicehook record".to_string(),
            "records nest a few levels at most; this value was skipped",
        )
    } else if e.is_eof() {
        (
            "this JSON ends before its value does".to_string(),
            "the value was skipped; the rest of the file was still linted",
        )
    } else {
        (
            format!("this is not valid JSON: {what}"),
            "the value was skipped; the rest of the file was still linted",
        )
    };
    Problem::new(
        Anchor::bytes(Span::new(offset + at, offset + end)),
        message,
        Some(help.into()),
    )
}

/// `base` followed by `rest`.
pub(crate) fn join(base: Path, rest: &[Seg]) -> Path {
    rest.iter().fold(base, |p, s| match s {
        Seg::Key(k) => p.key(k),
        Seg::Index(i) => p.index(*i as usize),
        Seg::Json => p.json(),
    })
}

/// Where the parts of a record read as a native record (`args`, `result`,
/// `error`) really are: the JSON path of each, and the bytes holding it when
/// they are not the record's own.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct Place {
    pub path: Path,
    pub within: Option<Span>,
    /// True when the part is a JSON text inside the string at `path`: its
    /// values point into that string ([`Seg::Json`]).
    pub opaque: bool,
}

impl Place {
    pub fn at(path: Path) -> Place {
        Place {
            path,
            within: None,
            opaque: false,
        }
    }
}

/// The places of a record's parts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Places {
    pub args: Place,
    pub result: Place,
    pub error: Place,
}

impl Places {
    /// Move a path read under `args`, `result` or `error` to where it is.
    fn place(&self, p: Path) -> (Path, Option<Span>) {
        let segs = p.segs();
        let (place, rest) = match segs.first() {
            Some(Seg::Key("args")) => (&self.args, &segs[1..]),
            Some(Seg::Key("result")) => (&self.result, &segs[1..]),
            Some(Seg::Key("error")) => (&self.error, &segs[1..]),
            _ => return (p, None),
        };
        if place.opaque {
            (join(place.path.json(), rest), place.within)
        } else {
            (join(place.path, rest), place.within)
        }
    }

    /// Move every text and line of `op`.
    pub fn relocate(&self, op: &mut Op) {
        each_text(op, &mut |t: &mut Text| {
            let (path, within) = self.place(t.path);
            t.path = path;
            if within.is_some() {
                t.within = within.map(Box::new);
            }
        });
    }

    /// Move the problems found reading the record (they point at `record`).
    pub fn relocate_problems(&self, record: Span, problems: &mut [Problem]) {
        for p in problems {
            if p.at.span != record {
                continue;
            }
            let (path, within) = self.place(p.at.path);
            p.at = Anchor {
                span: within.unwrap_or(record),
                path,
            };
        }
    }
}

/// Call `text` on every text of `op`.
pub(crate) fn each_text(op: &mut Op, text: &mut dyn FnMut(&mut Text)) {
    let opt = |t: &mut Option<Text>, f: &mut dyn FnMut(&mut Text)| {
        if let Some(t) = t {
            f(t)
        }
    };
    let ctx = |c: &mut Context, f: &mut dyn FnMut(&mut Text)| {
        if let Some(t) = &mut c.lang {
            f(t)
        }
    };
    match op {
        Op::CreateCall(c) => opt(&mut c.share_text, text),
        Op::Join(j) => {
            opt(&mut j.label, text);
            if let Some(Greet::Text(t)) = &mut j.greet {
                text(t);
            }
            if let Some(c) = &mut j.context {
                ctx(c, text);
            }
        }
        Op::Next(Some(ev)) => {
            let line = |l: &mut Line, text: &mut dyn FnMut(&mut Text)| {
                opt(&mut l.text, text);
            };
            for l in ev.operators_said.iter_mut().chain(ev.agent_said.iter_mut()) {
                line(l, text);
            }
            match &mut ev.kind {
                EventKind::User(l) | EventKind::Operator(l) => line(l, text),
                EventKind::Revise(r) => opt(&mut r.text, text),
                EventKind::Context(c) => ctx(c, text),
                EventKind::Decision(d) => opt(&mut d.answer, text),
                _ => {}
            }
        }
        Op::Say(s) => opt(&mut s.text, text),
        Op::Status(b) => {
            opt(&mut b.label, text);
            opt(&mut b.emoji, text);
            opt(&mut b.doing, text);
            b.open.iter_mut().chain(b.done.iter_mut()).for_each(text);
        }
        Op::Activity(t) | Op::Share(t) | Op::Notice(t) => {
            if let Some(t) = t {
                text(t)
            }
        }
        Op::Decide(d) => {
            opt(&mut d.question, text);
            if let Some(o) = &mut d.options {
                o.iter_mut().for_each(text);
            }
        }
        Op::Next(None) | Op::Show(_) | Op::Leave | Op::Other => {}
    }
}

/// The voicehook function a payload without `fn` is for, told by its keys:
/// `doing`/`open`/`done`/`emoji` a board (`status`; `emoji` with `label`
/// alone is a join and its chip), `question`/`options` a
/// `decide`, `label` a `join`, `text` alone a `say`. Objects with keys of
/// anything else (events, lines, messages, other tools' settings) are not
/// payloads.
pub(crate) fn payload_fn(obj: &serde_json::Map<String, Value>) -> Option<&'static str> {
    const STATUS: &[&str] = &["label", "emoji", "doing", "open", "done"];
    const DECIDE: &[&str] = &["question", "options"];
    const JOIN: &[&str] = &["call_id", "label", "emoji", "greet", "quiet"];
    const SAY: &[&str] = &["text"];
    let only = |allowed: &[&str]| obj.keys().all(|k| allowed.contains(&k.as_str()));
    let has = |k: &str| obj.contains_key(k);
    // `label` with `emoji` alone is a join with its chip.
    if ["doing", "open", "done"].iter().any(|k| has(k)) || (has("emoji") && !has("label")) {
        return only(STATUS).then_some("status");
    }
    if has("question") {
        return only(DECIDE).then_some("decide");
    }
    if has("label") {
        return only(JOIN).then_some("join");
    }
    if has("text") {
        return only(SAY).then_some("say");
    }
    None
}

/// The voicehook functions, as named in records.
pub const FUNCTIONS: &[&str] = &[
    "create_call",
    "join",
    "next",
    "say",
    "status",
    "activity",
    "decide",
    "show",
    "share",
    "notice",
    "leave",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_spans_and_elements() {
        let t = br#" [ {"a":"]"} , 2, "x\"" ] "#;
        let arr = value_span(t, skip_ws(t, 0)).unwrap();
        let els: Vec<&[u8]> = elements(t, arr)
            .iter()
            .map(|s| &t[s.start..s.end])
            .collect();
        assert_eq!(els, [&br#"{"a":"]"}"#[..], b"2", br#""x\"""#]);
        for bad in [&b"[[[["[..], b"]", b"{\"a", b"", b"\"\\"] {
            let _ = value_span(bad, 0).map(|s| elements(bad, s));
        }
    }

    #[test]
    fn values_in_a_row_with_spans() {
        let src = b"xx{\"a\":1}\n{\n \"b\": 2\n}\n  3 {";
        let reads = values(src, Span::new(2, src.len()));
        let spans: Vec<Span> = reads
            .iter()
            .filter_map(|r| match r {
                Read::Value(s, _) => Some(*s),
                _ => None,
            })
            .collect();
        assert_eq!(&src[spans[0].start..spans[0].end], b"{\"a\":1}");
        assert_eq!(&src[spans[1].start..spans[1].end], b"{\n \"b\": 2\n}");
        assert_eq!(&src[spans[2].start..spans[2].end], b"3");
        assert!(matches!(reads.last(), Some(Read::Broken(_))));
    }

    #[test]
    fn payloads_by_keys() {
        let f = |s: &str| {
            let v: Value = serde_json::from_str(s).unwrap();
            payload_fn(v.as_object().unwrap())
        };
        assert_eq!(f(r#"{"emoji":"🛠️","doing":"x"}"#), Some("status"));
        assert_eq!(f(r#"{"label":"a","open":[]}"#), Some("status"));
        assert_eq!(f(r#"{"label":"a","greet":true,"emoji":"x"}"#), Some("join"));
        assert_eq!(f(r#"{"label":"a","emoji":"🧩"}"#), Some("join"));
        assert_eq!(f(r#"{"emoji":"🧩"}"#), Some("status"));
        assert_eq!(f(r#"{"question":"q?","options":["a"]}"#), Some("decide"));
        assert_eq!(f(r#"{"text":"Hi"}"#), Some("say"));
        assert_eq!(f(r#"{"type":"user","text":"Hi"}"#), None);
        assert_eq!(f(r#"{"text":"x","url":"y"}"#), None);
        assert_eq!(f(r#"{"mcpServers":{}}"#), None);
    }
}
