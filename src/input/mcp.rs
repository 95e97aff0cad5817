//! MCP traces: the JSON-RPC 2.0 messages between an MCP client and the
//! voicehook MCP server, one per line (docs/formats.md), as
//! inspectors and proxies record them: the bare message, or an envelope
//! `{"ts", "dir", "message"}`.
//!
//! A `tools/call` request (`params.name`, `params.arguments`) is paired by
//! `id` with its response, and the pair becomes one function record, like a
//! native `fn` record: the arguments from the request, the answer from the
//! response (`result.structuredContent`, else the JSON in
//! `result.content[].text`), or an error for a refusal (`result.isError`,
//! or a JSON-RPC `error`). The record is the request line; texts of the
//! answer point into the response line. Records are in the order the
//! answers arrived, as a native log writes them; a request never answered
//! is kept without a result, where it was sent. Notifications, other
//! methods and responses to them are passed over.

use crate::core::hash::HashMap;

use serde_json::{Map, Value};

use super::json::{self, lines, Place, Places};
use super::{native, ts, Parsed, Problem};
use crate::model::*;

type Obj = Map<String, Value>;

/// A `tools/call` request waiting for its response.
#[derive(Clone)]
struct Request {
    line: u32,
    span: Span,
    ts: Option<Ms>,
    /// Path of the message in its line (`message` in an envelope).
    at: Path,
    name: String,
    arguments: Obj,
    /// Order of the request among the lines.
    order: usize,
}

/// Read an MCP trace into one log.
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut p = Partial::default();
    let mut out: Vec<(usize, Record)> = p.read(bytes);
    let mut problems = std::mem::take(&mut p.problems);
    let mut left: Vec<Request> = p.pending.into_values().collect();
    left.sort_by_key(|r| r.order);
    for req in left {
        out.push((req.order, unanswered(req, &mut problems)));
    }
    out.sort_by_key(|(o, _)| *o);
    let mut records: Vec<Record> = out.into_iter().map(|(_, r)| r).collect();
    name_calls(&mut records);
    Parsed {
        logs: vec![Log {
            meta: None,
            records,
        }],
        problems,
        ..Parsed::default()
    }
}

/// An MCP trace read as far as it came, which reads on from where it
/// stopped: what the proxy keeps of a session, so that each message costs
/// only its own line. Reading a trace in parts (each ending with a line
/// break) gives the records of reading it whole.
#[derive(Clone, Default)]
pub struct Partial {
    /// The bytes and lines read so far: offsets, line numbers and the
    /// order of the next part start there.
    bytes: usize,
    lines: u32,
    order: usize,
    pending: HashMap<String, Request>,
    problems: Vec<Problem>,
}

impl Partial {
    pub fn new() -> Partial {
        Partial::default()
    }

    /// The bytes read so far.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Read `part`, the lines that follow those read so far. Returns the
    /// records settled by them (each `tools/call` answered), with their
    /// order (the line of the answer, or of a request whose id came again
    /// unanswered), in order.
    pub fn read(&mut self, part: &[u8]) -> Vec<(usize, Record)> {
        let problems = &mut self.problems;
        let pending = &mut self.pending;
        let (base, first_line, first_order) = (self.bytes, self.lines, self.order);
        let all = lines(part);
        let count = all.len();
        let mut out: Vec<(usize, Record)> = Vec::new();
        for (k, mut l) in all.into_iter().enumerate() {
            let raw = &part[l.span.start..l.span.end];
            let order = first_order + k;
            l.span = Span::new(base + l.span.start, base + l.span.end);
            l.no = first_line.saturating_add(l.no);
            if raw.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let Some(value) = json::line_value(raw, l.span.start, problems) else {
                continue;
            };
            let Value::Object(obj) = value else {
                problems.push(not_a_message(l.span, Path::ROOT));
                continue;
            };
            // An envelope holds the message; a bare message is one.
            // The proxy's own answer (`"by": "callint"`) to a call it
            // denied: the call was judged as a request without an answer,
            // and is read as one, so that what `check` finds on it is what
            // the proxy found.
            let by_proxy = !obj.contains_key("jsonrpc")
                && obj.contains_key("message")
                && obj.get("by").and_then(Value::as_str) == Some("callint");
            let (msg, at, line_ts) = match obj.get("message") {
                Some(m) if !obj.contains_key("jsonrpc") => {
                    // `ts` or `timestamp`; the direction (`dir`, `direction`)
                    // is not needed: the message's shape says which it is.
                    let key = if obj.contains_key("ts") {
                        "ts"
                    } else {
                        "timestamp"
                    };
                    let ts = match obj.get(key) {
                        None | Some(Value::Null) => None,
                        Some(Value::String(s)) => match ts::parse_rfc3339(s) {
                            Some(t) => Some(t),
                            None => {
                                problems.push(Problem::new(
                                    Anchor {
                                        span: l.span,
                                        path: Path::ROOT.key(key),
                                    },
                                    format!(
                                        "`{key}` is not an RFC 3339 time: {}",
                                        crate::core::escape::quote(s, 40)
                                    ),
                                    Some("write times like 2026-10-10T09:14:03.512Z; rules that need the time skip this message".into()),
                                ));
                                None
                            }
                        },
                        Some(_) => {
                            problems.push(Problem::new(
                                Anchor {
                                    span: l.span,
                                    path: Path::ROOT.key(key),
                                },
                                format!("`{key}` should be an RFC 3339 time string"),
                                None,
                            ));
                            None
                        }
                    };
                    (m, Path::ROOT.key("message"), ts)
                }
                _ => (&Value::Object(obj.clone()), Path::ROOT, None),
            };
            for (m, path) in batch(msg, at) {
                let Value::Object(m) = m else {
                    problems.push(not_a_message(l.span, path));
                    continue;
                };
                let id = m.get("id").filter(|v| !v.is_null()).map(Value::to_string);
                if let Some(method) = m.get("method") {
                    if method.as_str() != Some("tools/call") {
                        continue; // other methods and notifications
                    }
                    let Some(id) = id else { continue };
                    if let Some(req) = request(m, path, l.no, l.span, line_ts, order, problems) {
                        if let Some(old) = pending.insert(id, req) {
                            // The id was used again before an answer came.
                            out.push((old.order, unanswered(old, problems)));
                        }
                    }
                } else if m.contains_key("result") || m.contains_key("error") {
                    let Some(req) = id.and_then(|id| pending.remove(&id)) else {
                        continue; // the answer to another method
                    };
                    if by_proxy && denial(m) {
                        out.push((req.order, unanswered(req, problems)));
                        continue;
                    }
                    let rec = answered(req, m, path, l.span, line_ts, problems);
                    out.push((order, rec));
                } else {
                    problems.push(not_a_message(l.span, path));
                }
            }
        }
        self.bytes = base + part.len();
        self.lines = first_line.saturating_add(u32::try_from(count).unwrap_or(u32::MAX));
        self.order = first_order + count;
        out
    }

    /// What was found wrong in the lines read so far, taken out.
    pub fn take_problems(&mut self) -> Vec<Problem> {
        std::mem::take(&mut self.problems)
    }

    /// The `tools/call` requests read that wait for their answer, each as
    /// a record without a result, with its order, in order.
    pub fn waiting(&self) -> Vec<(usize, Record)> {
        let mut left: Vec<&Request> = self.pending.values().collect();
        left.sort_by_key(|r| r.order);
        let mut problems = Vec::new();
        left.into_iter()
            .map(|r| (r.order, unanswered(r.clone(), &mut problems)))
            .collect()
    }
}

/// The messages of a JSON-RPC line at `at`, with their paths: a batch is
/// a list of messages.
pub(crate) fn batch(msg: &Value, at: Path) -> Vec<(&Value, Path)> {
    match msg {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, m)| (m, at.index(i)))
            .collect(),
        m => vec![(m, at)],
    }
}

fn not_a_message(span: Span, path: Path) -> Problem {
    Problem::new(
        Anchor { span, path },
        "this is not a JSON-RPC message: it has neither `method` nor `result` or `error`".into(),
        Some("an MCP trace holds one JSON-RPC 2.0 message a line, bare or as `message` of `{\"ts\", \"dir\", \"message\"}`".into()),
    )
}

pub(crate) use super::server::function_name;

fn request(
    m: &Obj,
    at: Path,
    line: u32,
    span: Span,
    ts: Option<Ms>,
    order: usize,
    problems: &mut Vec<Problem>,
) -> Option<Request> {
    let params_at = at.key("params");
    let Some(Value::Object(params)) = m.get("params") else {
        problems.push(Problem::new(
            Anchor {
                span,
                path: params_at,
            },
            "this `tools/call` has no `params` object".into(),
            Some("a tool call names the tool in `params.name` and sends `params.arguments`".into()),
        ));
        return None;
    };
    let name = match params.get("name") {
        Some(Value::String(s)) => function_name(s).to_string(),
        _ => {
            problems.push(Problem::new(
                Anchor {
                    span,
                    path: params_at.key("name"),
                },
                "this `tools/call` names no tool: `params.name` should be a string".into(),
                Some("the call was skipped".into()),
            ));
            return None;
        }
    };
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => Obj::new(),
        Some(Value::Object(a)) => a.clone(),
        Some(_) => {
            problems.push(Problem::new(
                Anchor {
                    span,
                    path: params_at.key("arguments"),
                },
                "`params.arguments` should be an object".into(),
                Some("the arguments were ignored".into()),
            ));
            Obj::new()
        }
    };
    Some(Request {
        line,
        span,
        ts,
        at,
        name,
        arguments,
        order,
    })
}

fn record(req: &Request, ts: Option<Ms>, f: FnCall) -> Record {
    Record {
        ts,
        ..Record::new(req.line, req.span, Body::Fn(f))
    }
}

fn args_place(req: &Request) -> Place {
    Place::at(req.at.key("params").key("arguments"))
}

/// A call whose answer is not in the trace.
fn unanswered(req: Request, problems: &mut Vec<Problem>) -> Record {
    let mut obj = Obj::new();
    obj.insert("args".into(), Value::Object(req.arguments.clone()));
    let mut found = Vec::new();
    let mut f = native::read_fn_call(&req.name, obj, req.span, &mut found);
    let places = Places {
        args: args_place(&req),
        result: args_place(&req),
        error: args_place(&req),
    };
    places.relocate(&mut f.op);
    places.relocate_problems(req.span, &mut found);
    problems.extend(found);
    record(&req, req.ts, f)
}

/// A call with its response.
fn answered(
    req: Request,
    m: &Obj,
    at: Path,
    span: Span,
    ts: Option<Ms>,
    problems: &mut Vec<Problem>,
) -> Record {
    let mut obj = Obj::new();
    obj.insert("args".into(), Value::Object(req.arguments.clone()));
    let here = |path: Path, opaque: bool| Place {
        path,
        within: Some(span),
        opaque,
    };
    let mut result_place = here(at.key("result"), false);
    let mut error_place = here(at.key("error"), false);
    let mut error: Option<ApiError> = None;
    match (m.get("result"), m.get("error")) {
        (_, Some(Value::Object(e))) => {
            // A JSON-RPC error: the server refused the call.
            let data_status = e
                .get("data")
                .and_then(|d| d.get("status"))
                .and_then(Value::as_i64);
            let code = e
                .get("code")
                .and_then(Value::as_i64)
                .filter(|c| (100..600).contains(c));
            error = Some(ApiError {
                status: data_status.or(code),
                message: e.get("message").and_then(Value::as_str).map(str::to_string),
            });
        }
        (Some(Value::Object(r)), _) => {
            let result_at = at.key("result");
            let (answer, place) = answer_of(r, result_at, span);
            if r.get("isError").and_then(Value::as_bool) == Some(true) {
                let text = text_content(r).map(|(_, s)| s.to_string());
                error = Some(refusal(answer.as_ref(), text));
                error_place = place.unwrap_or(error_place);
            } else if let Some(a) = answer {
                obj.insert("result".into(), Value::Object(a));
                result_place = place.unwrap_or(result_place);
            }
        }
        (r, e) => {
            let path = if e.is_some() {
                at.key("error")
            } else {
                at.key("result")
            };
            let found = r.or(e).unwrap_or(&Value::Null);
            problems.push(Problem::new(
                Anchor { span, path },
                format!(
                    "`{path}` should be an object, found {}",
                    match found {
                        Value::Null => "null",
                        Value::Bool(_) => "a boolean",
                        Value::Number(_) => "a number",
                        Value::String(_) => "a string",
                        Value::Array(_) => "an array",
                        Value::Object(_) => "an object",
                    }
                ),
                Some("the answer was ignored".into()),
            ));
        }
    }
    let mut found = Vec::new();
    let mut f = native::read_fn_call(&req.name, obj, req.span, &mut found);
    f.error = error.map(Box::new);
    let places = Places {
        args: args_place(&req),
        result: result_place,
        error: error_place,
    };
    places.relocate(&mut f.op);
    places.relocate_problems(req.span, &mut found);
    problems.extend(found);
    record(&req, ts.or(req.ts), f)
}

/// A tool result that refuses the call (`isError`): in an answer of the
/// proxy's own, a denial.
fn denial(m: &Obj) -> bool {
    m.get("result")
        .and_then(|r| r.get("isError"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// The first text item of a result's `content`, with its index.
pub(crate) fn text_content(r: &Obj) -> Option<(usize, &str)> {
    let Some(Value::Array(items)) = r.get("content") else {
        return None;
    };
    items.iter().enumerate().find_map(|(i, it)| {
        let o = it.as_object()?;
        if o.get("type").and_then(Value::as_str).unwrap_or("text") != "text" {
            return None;
        }
        Some((i, o.get("text")?.as_str()?))
    })
}

/// The answer of a tool call as an object, with where it is:
/// `structuredContent`, else the first JSON object in `content[].text`.
pub(crate) fn answer_of(r: &Obj, at: Path, span: Span) -> (Option<Obj>, Option<Place>) {
    if let Some(Value::Object(s)) = r.get("structuredContent") {
        return (
            Some(s.clone()),
            Some(Place {
                path: at.key("structuredContent"),
                within: Some(span),
                opaque: false,
            }),
        );
    }
    if let Some(Value::Array(items)) = r.get("content") {
        for (i, it) in items.iter().enumerate() {
            let Some(text) = it.get("text").and_then(Value::as_str) else {
                continue;
            };
            if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(text) {
                return (
                    Some(o),
                    Some(Place {
                        path: at.key("content").index(i).key("text"),
                        within: Some(span),
                        opaque: true,
                    }),
                );
            }
        }
    }
    (None, None)
}

/// The server's refusal of a call: the message and status of its answer
/// (`{"status": 422, "message": ...}`), else its text, with the status the
/// text starts with (`422 label longer ...`, `Error: 422 ...`).
pub(crate) fn refusal(answer: Option<&Obj>, text: Option<String>) -> ApiError {
    let message = answer
        .and_then(|a| a.get("message"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or(text);
    let status = answer
        .and_then(|a| a.get("status"))
        .and_then(Value::as_i64)
        .or_else(|| {
            let m = message.as_deref()?;
            leading_status(m.strip_prefix("Error:").unwrap_or(m))
        });
    ApiError { status, message }
}

/// `422 label longer than 22 characters` -> 422.
pub(crate) fn leading_status(msg: &str) -> Option<i64> {
    let digits: String = msg
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let n: i64 = (digits.len() == 3).then(|| digits.parse().ok())??;
    (100..600).contains(&n).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn say_text(r: &Record) -> &Text {
        match &r.as_fn().unwrap().op {
            Op::Say(s) => s.text.as_ref().unwrap(),
            _ => panic!("not a say"),
        }
    }

    #[test]
    fn pairs_requests_with_responses_by_id() {
        let src = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"next","arguments":{}}}
{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"say","arguments":{"text":"Hi, this is Kit."}}}
{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"{\"say_id\":\"s1\",\"say_status\":\"queued\"}"}]}}
{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"type":"user","speaker":"Oliver","text":"Kit, hi."},"content":[]}}
{"jsonrpc":"2.0","id":7,"result":{}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__voicehook__leave"}}
"#;
        let p = parse(src.as_bytes());
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        let recs = &p.logs[0].records;
        let names: Vec<&str> = recs
            .iter()
            .map(|r| r.as_fn().unwrap().name.as_ref())
            .collect();
        assert_eq!(names, ["say", "next", "leave"]);
        // the say points at its request line, text at its argument
        assert_eq!(recs[0].line, 5);
        let t = say_text(&recs[0]);
        assert_eq!(t.path.to_string(), "params.arguments.text");
        let Op::Say(s) = &recs[0].as_fn().unwrap().op else {
            panic!()
        };
        assert_eq!(s.say_status.as_deref(), Some("queued"));
        // the event's text points into the response line
        let ev = next_event(&recs[1]).unwrap();
        let EventKind::User(l) = &ev.kind else {
            panic!()
        };
        let t = l.text.as_ref().unwrap();
        assert_eq!(t.path.to_string(), "result.structuredContent.text");
        let line7 = src.lines().take(6).map(|l| l.len() + 1).sum::<usize>();
        assert_eq!(t.within().unwrap().start, line7);
    }

    #[test]
    fn a_denial_of_the_proxy_is_read_as_the_call_it_judged() {
        let src = r#"{"ts":"2026-10-10T10:00:00.000Z","dir":"send","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"say","arguments":{"text":"Hi."}}}}
{"ts":"2026-10-10T10:00:00.000Z","dir":"recv","by":"callint","message":{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"callint denied this say"}]}}}
{"ts":"2026-10-10T10:00:02.000Z","dir":"send","message":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"say","arguments":{"text":"Hi."}}}}
{"ts":"2026-10-10T10:00:03.000Z","dir":"recv","by":"callint","message":{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"the MCP server did not answer"}}}
{"ts":"2026-10-10T10:00:04.000Z","dir":"send","message":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"say","arguments":{"text":"Hi."}}}}
{"ts":"2026-10-10T10:00:05.000Z","dir":"recv","message":{"jsonrpc":"2.0","id":3,"result":{"isError":true,"content":[{"type":"text","text":"422 too fast"}]}}}
"#;
        let p = parse(src.as_bytes());
        let recs = &p.logs[0].records;
        assert_eq!(recs.len(), 3);
        // Denied by the proxy: a call without an answer, on its request line.
        let f = recs[0].as_fn().unwrap();
        assert!(f.error.is_none());
        assert_eq!(recs[0].line, 1);
        // The proxy's error for a call the server got, and the server's
        // own refusal: refusals.
        assert!(recs[1].as_fn().unwrap().error.is_some());
        assert_eq!(
            recs[2].as_fn().unwrap().error.as_ref().unwrap().status,
            Some(422)
        );
    }

    #[test]
    fn envelopes_refusals_and_errors() {
        let src = r#"{"ts":"2026-10-10T10:00:00.000Z","dir":"send","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"join","arguments":{"label":"opencode-session-2026-10-10"}}}}
{"ts":"2026-10-10T10:00:01.000Z","dir":"recv","message":{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"label longer than 22 characters"}]}}}
{"ts":"2026-10-10T10:00:02.000Z","dir":"send","message":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{"open":["a",3]}}}}
{"ts":"2026-10-10T10:00:03.000Z","dir":"recv","message":{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad open item","data":{"status":422}}}}
"#;
        let p = parse(src.as_bytes());
        let recs = &p.logs[0].records;
        assert_eq!(recs.len(), 2);
        let f = recs[0].as_fn().unwrap();
        assert_eq!(&*f.name, "join");
        assert_eq!(
            f.error.as_ref().unwrap().message.as_deref(),
            Some("label longer than 22 characters")
        );
        assert_eq!(recs[0].ts, Some(1_791_626_401_000));
        let Op::Join(j) = &f.op else { panic!() };
        assert_eq!(
            j.label.as_ref().unwrap().path.to_string(),
            "message.params.arguments.label"
        );
        let f = recs[1].as_fn().unwrap();
        assert_eq!(f.error.as_ref().unwrap().status, Some(422));
        // the wrong-typed item is pointed at in the request
        assert_eq!(p.problems.len(), 1);
        assert_eq!(
            p.problems[0].at.path.to_string(),
            "message.params.arguments.open[1]"
        );
        assert_eq!(p.problems[0].at.span, recs[1].span);
    }

    #[test]
    fn hostile_lines_never_panic() {
        for src in [
            &b""[..],
            b"{}",
            b"[]",
            b"[1,2]",
            b"{\"message\":5}",
            b"{\"message\":[5,{}]}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":5}}",
            b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/call\",\"params\":{\"name\":\"say\",\"arguments\":[]}}\n{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":7}",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"next\"}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"text\":\"{\\\"type\\\":\\\"user\\\",\\\"operators_said\\\":5}\"}]}}",
            b"\xff\xfe",
            b"{\"ts\":5,\"message\":{\"jsonrpc\":\"2.0\"}}",
        ] {
            let _ = parse(src);
        }
        let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
        let p = parse(deep.as_bytes());
        assert_eq!(p.problems.len(), 1);
    }
}
