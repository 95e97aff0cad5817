//! The native log: one JSON object per line (LOG-FORMAT.md, section 1).
//!
//! Every line is parsed on its own, so one broken line costs that line only.
//! Values of the wrong type become a problem pointing at the value and are
//! treated as absent; unknown keys, functions and event types are accepted.

use serde_json::{Map, Value};

use super::{ts, Problem};
use crate::model::*;

/// Parse a whole native log. Problems are returned beside the log, in line
/// order; the log holds every record that could be read.
pub fn parse(bytes: &[u8]) -> (Log, Vec<Problem>) {
    let mut log = Log::default();
    let mut problems = Vec::new();
    let mut start = 0usize;
    let mut line_no: u32 = 0;
    let len = bytes.len();
    while start < len {
        line_no = line_no.saturating_add(1);
        let nl = memchr(b'\n', &bytes[start..]).map(|k| start + k);
        let end = nl.unwrap_or(len);
        let mut content_end = end;
        if content_end > start && bytes[content_end - 1] == b'\r' {
            content_end -= 1;
        }
        let is_last = nl.is_none() || nl == Some(len - 1);
        parse_line(
            &bytes[start..content_end],
            start,
            line_no,
            is_last,
            &mut log,
            &mut problems,
        );
        match nl {
            Some(k) => start = k + 1,
            None => break,
        }
    }
    (log, problems)
}

fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&b| b == needle)
}

/// Read a function call from an object shaped like a native record (`args`,
/// and `result` or `error`), for the inputs that map onto function records
/// (MCP traces, boards, payloads in prompts). Values of the wrong type
/// become problems at `span` with native paths (`args.open[1]`), which the
/// caller moves to where the values really are.
pub fn read_fn_call(
    name: &str,
    obj: &Map<String, Value>,
    span: Span,
    problems: &mut Vec<Problem>,
) -> FnCall {
    Reader {
        span,
        problems,
        line: 0,
    }
    .fn_call(name.to_string(), obj)
}

fn parse_line(
    raw: &[u8],
    offset: usize,
    line: u32,
    is_last: bool,
    log: &mut Log,
    problems: &mut Vec<Problem>,
) {
    if raw.iter().all(|b| b.is_ascii_whitespace()) {
        return;
    }
    let span = Span::new(offset, offset + raw.len());
    let text = match std::str::from_utf8(raw) {
        Ok(t) => t,
        Err(e) => {
            let at = offset + e.valid_up_to();
            let bad = raw[e.valid_up_to()];
            problems.push(Problem::new(
                Anchor::bytes(Span::new(at, at + e.error_len().unwrap_or(1))),
                format!("this line is not valid UTF-8 (byte 0x{bad:02x})"),
                Some("a log is UTF-8 text; this line was skipped".into()),
            ));
            return;
        }
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            problems.push(json_problem(&e, text, offset, is_last));
            return;
        }
    };
    let Value::Object(obj) = value else {
        problems.push(Problem::new(
            Anchor::bytes(span),
            format!(
                "a record must be a JSON object, this line holds {}",
                kind_name(&value)
            ),
            Some("each line of a call log is one object with `fn`, `chat` or `tool`".into()),
        ));
        return;
    };
    let mut rd = Reader {
        span,
        problems,
        line,
    };
    if let Some(meta) = obj.get("meta") {
        let m = rd.meta(meta);
        if log.meta.is_none() && log.records.is_empty() {
            log.meta = Some(m.clone());
        }
        log.records.push(Record {
            line,
            span,
            ts: None,
            agent: None,
            call: None,
            thread: Thread::Main,
            body: Body::Meta(m),
        });
        return;
    }
    let kinds: Vec<&str> = ["fn", "chat", "tool"]
        .into_iter()
        .filter(|k| obj.get(*k).is_some_and(|v| !v.is_null()))
        .collect();
    let root = Path::ROOT;
    let body = match kinds.as_slice() {
        ["fn"] => {
            let Some(name) = rd.req_str(&obj, root, "fn") else {
                return;
            };
            Body::Fn(rd.fn_call(name, &obj))
        }
        ["chat"] => {
            let Some(role) = rd.req_str(&obj, root, "chat") else {
                return;
            };
            Body::Chat(Chat {
                role,
                text: rd.text(&obj, root, "text"),
                turn_end: rd.bool(&obj, root, "turn_end").unwrap_or(false),
            })
        }
        ["tool"] => {
            let Some(name) = rd.req_str(&obj, root, "tool") else {
                return;
            };
            Body::Tool(Tool {
                name,
                args: obj.get("args").cloned(),
            })
        }
        [] => {
            rd.problem(
                Anchor::bytes(span),
                "this record has none of `fn`, `chat` or `tool`, so it is neither a function call, a chat message nor a tool run".into(),
                Some("add the key that says what the record is".into()),
            );
            return;
        }
        many => {
            let second: &'static str = match many[1] {
                "chat" => "chat",
                _ => "tool",
            };
            rd.problem(
                Anchor {
                    span,
                    path: root.key(second),
                },
                format!(
                    "this record has both `{}` and `{}`; a record is exactly one kind",
                    many[0], many[1]
                ),
                Some("split it into one record per kind".into()),
            );
            return;
        }
    };
    let ts = rd.ts(&obj, root, "ts");
    let agent = rd.str(&obj, root, "agent");
    let call = rd.str(&obj, root, "call");
    let thread = rd
        .str(&obj, root, "thread")
        .map(|t| Thread::parse(&t))
        .unwrap_or_default();
    log.records.push(Record {
        line,
        span,
        ts,
        agent,
        call,
        thread,
        body,
    });
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
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
        let (msg, help) = if is_last {
            (
                "the last record is cut off (the file ends inside it)",
                "the recorder probably stopped mid-write; the records before it were linted",
            )
        } else {
            (
                "this record is cut off before its end",
                "the line ends inside a JSON value; the rest of the file was still linted",
            )
        };
        return Problem::new(anchor, msg.into(), Some(help.into()));
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
    #[allow(dead_code)]
    line: u32,
}

type Obj = Map<String, Value>;

impl Reader<'_> {
    fn problem(&mut self, at: Anchor, message: String, help: Option<String>) {
        self.problems.push(Problem::new(at, message, help));
    }

    fn wrong_type(&mut self, path: Path, expected: &str, v: &Value) {
        self.problem(
            Anchor {
                span: self.span,
                path,
            },
            format!("`{path}` should be {expected}, found {}", kind_name(v)),
            Some("the value was ignored; the rest of the record was linted".into()),
        );
    }

    /// A present, non-null value.
    fn get<'v>(&self, obj: &'v Obj, key: &str) -> Option<&'v Value> {
        obj.get(key).filter(|v| !v.is_null())
    }

    fn str(&mut self, obj: &Obj, at: Path, key: &'static str) -> Option<String> {
        match self.get(obj, key)? {
            Value::String(s) => Some(s.clone()),
            v => {
                self.wrong_type(at.key(key), "a string", v);
                None
            }
        }
    }

    fn req_str(&mut self, obj: &Obj, at: Path, key: &'static str) -> Option<String> {
        match self.get(obj, key)? {
            Value::String(s) => Some(s.clone()),
            v => {
                let path = at.key(key);
                self.problem(
                    Anchor {
                        span: self.span,
                        path,
                    },
                    format!("`{path}` should be a string, found {}", kind_name(v)),
                    Some("this record was skipped".into()),
                );
                None
            }
        }
    }

    fn text(&mut self, obj: &Obj, at: Path, key: &'static str) -> Option<Text> {
        self.str(obj, at, key)
            .map(|value| Text::new(value, at.key(key)))
    }

    fn bool(&mut self, obj: &Obj, at: Path, key: &'static str) -> Option<bool> {
        match self.get(obj, key)? {
            Value::Bool(b) => Some(*b),
            v => {
                self.wrong_type(at.key(key), "true or false", v);
                None
            }
        }
    }

    fn int(&mut self, obj: &Obj, at: Path, key: &'static str) -> Option<i64> {
        match self.get(obj, key)? {
            Value::Number(n) if n.as_i64().is_some() => n.as_i64(),
            v => {
                self.wrong_type(at.key(key), "a whole number", v);
                None
            }
        }
    }

    fn ts(&mut self, obj: &Obj, at: Path, key: &'static str) -> Option<Ms> {
        let s = self.str(obj, at, key)?;
        match ts::parse_rfc3339(&s) {
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
                        crate::report::escape::quote(&s, 40)
                    ),
                    Some("write times like 2026-10-10T09:14:03.512Z; rules that need the time skip this record".into()),
                );
                None
            }
        }
    }

    fn obj<'v>(&mut self, obj: &'v Obj, at: Path, key: &'static str) -> Option<&'v Obj> {
        match self.get(obj, key)? {
            Value::Object(o) => Some(o),
            v => {
                self.wrong_type(at.key(key), "an object", v);
                None
            }
        }
    }

    /// A list of strings; items of another type are noted and skipped.
    fn texts(&mut self, obj: &Obj, at: Path, key: &'static str) -> Option<Vec<Text>> {
        let path = at.key(key);
        match self.get(obj, key)? {
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, v) in items.iter().enumerate() {
                    match v {
                        Value::String(s) => out.push(Text::new(s.clone(), path.index(i))),
                        Value::Null => {}
                        v => self.wrong_type(path.index(i), "a string", v),
                    }
                }
                Some(out)
            }
            // A single string where a list was expected is read as a list of one.
            Value::String(s) => Some(vec![Text::new(s.clone(), path)]),
            v => {
                self.wrong_type(path, "a list of strings", v);
                None
            }
        }
    }

    fn names(&mut self, obj: &Obj, at: Path, key: &'static str) -> Option<Vec<String>> {
        self.texts(obj, at, key)
            .map(|v| v.into_iter().map(|t| t.value).collect())
    }

    fn meta(&mut self, v: &Value) -> Meta {
        let at = Path::ROOT.key("meta");
        let Value::Object(o) = v else {
            self.wrong_type(at, "an object", v);
            return Meta::default();
        };
        Meta {
            format: self.int(o, at, "format"),
            recorder: self.str(o, at, "recorder"),
            client: self.str(o, at, "client"),
            human: self.str(o, at, "human"),
            voicebot: self.str(o, at, "voicebot"),
        }
    }

    fn fn_call(&mut self, name: String, obj: &Obj) -> FnCall {
        let root = Path::ROOT;
        let empty = Obj::new();
        let args_path = root.key("args");
        let args = self.obj(obj, root, "args").unwrap_or(&empty);
        let res_path = root.key("result");
        // `next` returns an event; everything else an object.
        let error = self.obj(obj, root, "error").map(|e| {
            let ep = root.key("error");
            ApiError {
                status: self.int(e, ep, "status"),
                message: self.str(e, ep, "message"),
            }
        });
        let result = if error.is_none() {
            self.obj(obj, root, "result")
        } else {
            None
        };
        let res = result.unwrap_or(&empty);
        let a = args_path;
        let op = match name.as_str() {
            "create_call" => Op::CreateCall(CreateCall {
                lang: self.str(args, a, "lang"),
                title: self.str(args, a, "title"),
                call_id: self.str(res, res_path, "call_id"),
                link: self.str(res, res_path, "link"),
                share_text: self.text(res, res_path, "share_text"),
            }),
            "join" => Op::Join(Join {
                call_id: self.str(args, a, "call_id"),
                label: self.text(args, a, "label"),
                emoji: self.str(args, a, "emoji"),
                greet: match self.get(args, "greet") {
                    None => None,
                    Some(Value::Bool(b)) => Some(Greet::Flag(*b)),
                    Some(Value::String(s)) => {
                        Some(Greet::Text(Text::new(s.clone(), a.key("greet"))))
                    }
                    Some(v) => {
                        self.wrong_type(a.key("greet"), "true, false or a text", v);
                        None
                    }
                },
                quiet: self.bool(args, a, "quiet"),
                status: self.str(res, res_path, "status"),
                context: self
                    .obj(res, res_path, "context")
                    .map(|c| self.context(c, res_path.key("context"))),
                role: match self.str(res, res_path, "role").as_deref() {
                    Some("owner") => Some(Role::Owner),
                    Some("participant") => Some(Role::Participant),
                    _ => None,
                },
            }),
            "next" => Op::Next(result.map(|r| self.event(r, res_path))),
            "say" => Op::Say(Say {
                text: self.text(args, a, "text"),
                say_id: self.str(res, res_path, "say_id"),
                say_status: self.str(res, res_path, "say_status"),
                reason: self.str(res, res_path, "reason"),
            }),
            "status" => Op::Status(self.board(args, a)),
            "activity" => Op::Activity(self.text(args, a, "text")),
            "decide" => Op::Decide(Decide {
                question: self.text(args, a, "question"),
                options: self.texts(args, a, "options"),
                decision_id: self.str(res, res_path, "decision_id"),
            }),
            "show" => Op::Show(self.str(args, a, "panel")),
            "share" => Op::Share(
                self.text(args, a, "text")
                    .or_else(|| self.text(args, a, "url")),
            ),
            "notice" => Op::Notice(
                self.text(args, a, "text")
                    .or_else(|| self.text(args, a, "url")),
            ),
            "leave" => Op::Leave,
            _ => Op::Other,
        };
        FnCall { name, op, error }
    }

    fn context(&mut self, c: &Obj, at: Path) -> Context {
        Context {
            lang: self.text(c, at, "lang"),
            mode: self.str(c, at, "mode"),
        }
    }

    /// A board: the arguments of `status` or a board payload.
    pub(crate) fn board(&mut self, o: &Obj, at: Path) -> Board {
        Board {
            label: self.text(o, at, "label"),
            emoji: self.text(o, at, "emoji"),
            doing: self.text(o, at, "doing"),
            open: self.texts(o, at, "open").unwrap_or_default(),
            done: self.texts(o, at, "done").unwrap_or_default(),
        }
    }

    fn line(&mut self, o: &Obj, at: Path) -> Line {
        Line {
            speaker: self.str(o, at, "speaker"),
            op: self.str(o, at, "op"),
            model: self.str(o, at, "model"),
            text: self.text(o, at, "text"),
            ts: self.ts(o, at, "ts"),
            addressed_to: self.names(o, at, "addressed_to"),
            addressed_to_you: self.bool(o, at, "addressed_to_you"),
            to_human: self.bool(o, at, "to_human"),
            path: at,
        }
    }

    fn lines(&mut self, o: &Obj, at: Path, key: &'static str) -> Vec<Line> {
        let path = at.key(key);
        match self.get(o, key) {
            None => Vec::new(),
            Some(Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, v) in items.iter().enumerate() {
                    match v {
                        Value::Object(l) => out.push(self.line(l, path.index(i))),
                        v => self.wrong_type(path.index(i), "a line object", v),
                    }
                }
                out
            }
            Some(v) => {
                self.wrong_type(path, "a list of lines", v);
                Vec::new()
            }
        }
    }

    fn event(&mut self, r: &Obj, at: Path) -> Event {
        let ty = self.str(r, at, "type").unwrap_or_default();
        let kind = match ty.as_str() {
            "user" => EventKind::User(self.line(r, at)),
            "timeout" => EventKind::Timeout,
            "operator" => EventKind::Operator(self.line(r, at)),
            "revise" => EventKind::Revise {
                say_id: self.str(r, at, "say_id"),
                reason: self.str(r, at, "reason"),
                text: self.text(r, at, "text"),
            },
            "context" => EventKind::Context(
                self.obj(r, at, "context")
                    .map(|c| self.context(c, at.key("context")))
                    .unwrap_or_default(),
            ),
            "decision" => EventKind::Decision {
                decision_id: self.str(r, at, "decision_id"),
                answer: self.text(r, at, "answer"),
            },
            "status_request" => EventKind::StatusRequest,
            "waiting_for_human" => EventKind::WaitingForHuman,
            _ => EventKind::Other(ty),
        };
        Event {
            kind,
            operators_said: self.lines(r, at, "operators_said"),
            agent_said: self.lines(r, at, "agent_said"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(s.text.as_ref().unwrap().value, "Hi");
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
