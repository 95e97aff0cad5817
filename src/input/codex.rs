//! Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`):
//! one JSON object a line, `{"timestamp", "type", "payload"}`.
//!
//! - `session_meta` (the first line) says which thread wrote the file: a
//!   subagent's rollout (`source: {"subagent": ..}`) or a fork
//!   (`forked_from_id`) is linted as that thread;
//! - `response_item` `function_call` (the tool's name, `server__tool` or
//!   `mcp__server__tool` for an MCP server's tool, and its arguments as a
//!   JSON string), `function_call_output`, and the `event_msg`
//!   `mcp_tool_call_end` (the server, the tool, the arguments and the
//!   server's result as objects) are linked by `call_id` into one call:
//!   findings on it point at the `function_call` line, into the arguments
//!   string; its answer is read from the `mcp_tool_call_end` when there is
//!   one, else from the output text; its time is when the first of them
//!   was written;
//! - assistant `message`s are the agent's chat to its user; the user's
//!   messages are the `event_msg` `user_message`s (the `response_item`
//!   user messages also hold what the client adds, such as the working
//!   folder's context, so they are read only from a file without those
//!   events);
//! - the client's own tools (`shell`, `shell_command`, `exec_command`,
//!   `local_shell_call`, `apply_patch`, `web_search_call`, `update_plan`,
//!   ...) are `tool` records with the command or the path they carry;
//! - every other line type, and types that do not exist yet, are passed
//!   over.
//!
//! The file is read a line at a time (`Partial`), so a rollout can be
//! read on from where an earlier read stopped. A call is made into its
//! record once it is whole: when its output arrives (Codex writes it last,
//! after the call and its `mcp_tool_call_end`), or its `mcp_tool_call_end`
//! when that holds the answer; lines of a call after that are passed over.
//! A call never whole is made at the end, from what the file holds of it.

use crate::core::hash::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::json::{self, Place};
use super::session::{
    self, Answer, CallItem, ChatItem, Item, Line, LineReader, Obj, Order, Session, ToolItem,
};
use super::{ts, Options, Parsed, Problem};
use crate::model::*;

/// One line of the file, as far as a call needs it.
#[derive(Clone, Copy, Serialize, Deserialize)]
struct At {
    no: u32,
    span: Span,
    ts: Option<Ms>,
    /// Position among the lines.
    order: usize,
    /// Where the item is in its line: under `payload`, or the line itself
    /// in the older layout.
    base: Path,
}

/// A `function_call`, as far as its call needs it.
#[derive(Serialize, Deserialize)]
struct Called {
    name: String,
    namespace: Option<String>,
    args: Obj,
    /// Problems reading the arguments.
    problems: Vec<Problem>,
}

/// An `mcp_tool_call_end`, as far as its call needs it.
#[derive(Serialize, Deserialize)]
struct Ended {
    /// The server and the tool its `invocation` names.
    by: Option<(String, String)>,
    /// The invocation's arguments, kept only while no `function_call`
    /// holds them.
    args: Obj,
    answer: Answer,
}

/// The lines of one tool call, by `call_id`, each read when it came.
#[derive(Default, Serialize, Deserialize)]
struct Parts {
    call: Option<(At, Called)>,
    /// The output's answer: [`Answer::None`] when the end event's answer,
    /// which comes first, is there.
    output: Option<(At, Answer)>,
    end: Option<(At, Ended)>,
    /// First position any of them holds.
    first: usize,
}

impl Parts {
    /// True when the end event holds an answer: the output's is not read.
    fn answered_by_end(&self) -> bool {
        self.end
            .as_ref()
            .is_some_and(|(_, e)| !matches!(e.answer, Answer::None))
    }
}

/// Read a Codex CLI rollout file.
pub fn parse(bytes: &[u8], opts: &Options) -> Parsed {
    let mut p = Partial::new(opts);
    p.read(bytes, true);
    p.finish()
}

/// A rollout read as far as it was written ([`session::Partial`]).
pub(crate) type Partial = session::Partial<Reader>;

/// The reader of a rollout's lines ([`LineReader`]).
#[derive(Serialize, Deserialize)]
pub(crate) struct Reader {
    session: Session,
    /// The calls not yet whole.
    calls: HashMap<String, Parts>,
    /// The calls made into their records.
    made: HashSet<String>,
    /// Assistant and user messages from either source; which source is
    /// used is decided at the end (the other is dropped as soon as that
    /// one has a message).
    replies: Vec<(usize, ChatItem)>,
    agent_events: Vec<(usize, ChatItem)>,
    user_items: Vec<(usize, ChatItem)>,
    user_events: Vec<(usize, ChatItem)>,
}

impl LineReader for Reader {
    fn new(opts: &Options) -> Reader {
        Reader {
            session: Session::new(opts),
            calls: HashMap::default(),
            made: HashSet::default(),
            replies: Vec::new(),
            agent_events: Vec::new(),
            user_items: Vec::new(),
            user_events: Vec::new(),
        }
    }

    fn line(&mut self, l: Line<'_>) {
        let v = serde_json::from_slice(l.raw);
        self.take(&l, v);
    }

    /// Lines parsed side by side (the JSON is most of the cost), taken in
    /// order.
    fn lines(&mut self, lines: &[Line<'_>]) {
        session::in_blocks(
            lines,
            |l, _| (Line { ..*l }, serde_json::from_slice(l.raw)),
            |(l, v)| self.take(&l, v),
        );
    }

    fn finish(mut self) -> Parsed {
        // The user's messages as the client showed them, when it recorded
        // them; otherwise the model's view of them.
        let users = if self.user_events.is_empty() {
            self.user_items
        } else {
            self.user_events
        };
        let assistants = if self.replies.is_empty() {
            self.agent_events
        } else {
            self.replies
        };
        for (order, c) in users.into_iter().chain(assistants) {
            self.session.push((order, 0), Item::Chat(c));
        }
        let mut parts: Vec<Parts> = self.calls.into_values().collect();
        parts.sort_by_key(|p| p.first);
        for p in parts {
            if let Some((order, item)) = call_item(p) {
                self.session.push(order, item);
            }
        }
        self.session.finish()
    }
}

impl Reader {
    /// One line, as parsed.
    fn take(&mut self, l: &Line<'_>, v: serde_json::Result<Value>) {
        let raw = l.raw;
        let v: Value = match v {
            Ok(v) => v,
            Err(e) => {
                let mut p = json::broken(raw, l.span.start, &e);
                if e.is_eof() && l.last_line {
                    p.message = "the last line is cut off (the file ends inside it)".into();
                    p.help = Some("the client was probably stopped while writing; the lines before it were read".into());
                }
                self.session.problems.push(p);
                return;
            }
        };
        let Value::Object(line) = v else {
            self.session.problems.push(Problem::new(
                Anchor::bytes(l.span),
                "this line is not a rollout line: a rollout holds one JSON object a line".into(),
                Some("the line was skipped".into()),
            ));
            return;
        };
        let ts = line
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(ts::parse_rfc3339);
        let (ty, p, payload) = match line.get("payload") {
            Some(Value::Object(p)) => (
                line.get("type").and_then(Value::as_str).unwrap_or(""),
                p,
                Path::ROOT.key("payload"),
            ),
            // The older layout: a bare response item a line, after a
            // first line `{id, timestamp, instructions, git}` and with
            // `{"record_type": ..}` lines among them.
            None if line.contains_key("type") && !line.contains_key("record_type") => {
                ("response_item", &line, Path::ROOT)
            }
            _ => return,
        };
        let order = l.no as usize;
        let at = At {
            no: l.no,
            span: l.span,
            ts,
            order,
            base: payload,
        };
        let pty = p.get("type").and_then(Value::as_str).unwrap_or("");
        let s = &mut self.session;
        match (ty, pty) {
            ("session_meta", _) => {
                if p.get("forked_from_id").is_some_and(|v| !v.is_null()) {
                    s.thread = Thread::Fork;
                }
                if let Some(Value::Object(src)) = p.get("source") {
                    if src.contains_key("subagent") {
                        s.thread = Thread::Subagent;
                    }
                }
            }
            ("response_item", "message") => {
                let role = p.get("role").and_then(Value::as_str).unwrap_or("");
                let Some(Value::Array(content)) = p.get("content") else {
                    return;
                };
                let (into, other) = match role {
                    "assistant" => (&mut self.replies, &mut self.agent_events),
                    "user" => (&mut self.user_items, &mut self.user_events),
                    _ => return,
                };
                for (i, c) in content.iter().enumerate() {
                    let Some(text) = c.get("text").and_then(Value::as_str) else {
                        continue;
                    };
                    // What the client adds to the user's turn comes as
                    // tagged blocks (`<environment_context>`).
                    if role == "user" && text.trim_start().starts_with('<') {
                        continue;
                    }
                    // The user's events win over the user's items; the
                    // assistant's items over its events.
                    if role == "user" && !other.is_empty() {
                        continue;
                    }
                    let path = payload.key("content").index(i).key("text");
                    into.push((order, chat(role == "user", text, path, at)));
                    if role == "assistant" {
                        other.clear();
                    }
                }
            }
            ("event_msg", "user_message") => {
                if let Some(text) = p.get("message").and_then(Value::as_str) {
                    self.user_events
                        .push((order, chat(true, text, payload.key("message"), at)));
                    self.user_items.clear();
                }
            }
            ("event_msg", "agent_message") => {
                if let Some(text) = p.get("message").and_then(Value::as_str) {
                    if self.replies.is_empty() {
                        self.agent_events
                            .push((order, chat(false, text, payload.key("message"), at)));
                    }
                }
            }
            ("response_item", "function_call") => {
                if let Some(e) = call_id(p).and_then(|id| self.part(id, order)) {
                    if e.call.is_none() {
                        let mut problems = Vec::new();
                        let args = call_args(p, at, &mut problems);
                        e.call = Some((
                            at,
                            Called {
                                name: p
                                    .get("name")
                                    .and_then(Value::as_str)
                                    .unwrap_or("")
                                    .to_string(),
                                namespace: p
                                    .get("namespace")
                                    .and_then(Value::as_str)
                                    .map(str::to_string),
                                args,
                                problems,
                            },
                        ));
                    }
                }
            }
            ("response_item", "function_call_output") => {
                let (Some(id), Some(out)) = (call_id(p), p.get("output")) else {
                    return;
                };
                let Some(e) = self.part(id.clone(), order) else {
                    return;
                };
                if e.output.is_none() {
                    let answer = if e.answered_by_end() {
                        Answer::None
                    } else {
                        output_answer(raw, out, at)
                    };
                    e.output = Some((at, answer));
                }
                // An output is the last line of a call: it is whole.
                if e.call.is_some() || e.end.is_some() {
                    self.make(&id);
                }
            }
            ("event_msg", "mcp_tool_call_end") => {
                let Some(id) = call_id(p) else {
                    return;
                };
                let Some(e) = self.part(id.clone(), order) else {
                    return;
                };
                if e.end.is_some() {
                    return;
                }
                let inv = p.get("invocation").and_then(Value::as_object);
                let by = inv.and_then(|i| {
                    Some((
                        i.get("server")?.as_str()?.to_string(),
                        i.get("tool")?.as_str()?.to_string(),
                    ))
                });
                let args = match (&e.call, inv) {
                    (None, Some(i)) => i
                        .get("arguments")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default(),
                    _ => Obj::new(),
                };
                let answer = end_answer(raw, p, at);
                if !matches!(answer, Answer::None) {
                    if let Some((_, a)) = &mut e.output {
                        *a = Answer::None;
                    }
                }
                e.end = Some((at, Ended { by, args, answer }));
                // With the call and its answer, nothing later changes it.
                if e.call.is_some() && e.answered_by_end() {
                    self.make(&id);
                }
            }
            ("response_item", "custom_tool_call") => {
                let name = p.get("name").and_then(Value::as_str).unwrap_or("tool");
                let input = p.get("input").and_then(Value::as_str).unwrap_or("");
                let args = if name == "apply_patch" {
                    patch_args(input)
                } else {
                    let mut a = Obj::new();
                    a.insert("input".into(), Value::String(input.into()));
                    a
                };
                s.push((order, 0), tool(name, args, at));
            }
            ("response_item", "local_shell_call") => {
                let cmd = p
                    .get("action")
                    .and_then(|a| a.get("command"))
                    .and_then(session::command_line);
                let mut a = Obj::new();
                if let Some(cmd) = cmd {
                    a.insert("command".into(), Value::String(cmd));
                }
                let mut t = tool("shell", a, at);
                t_at_none(&mut t);
                s.push((order, 0), t);
            }
            ("response_item", "web_search_call") => {
                let a = p
                    .get("action")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let mut t = tool("web_search", a, at);
                t_at_none(&mut t);
                s.push((order, 0), t);
            }
            _ => {}
        }
    }

    /// The parts of call `id` read so far; `None` once it was made.
    fn part(&mut self, id: String, order: usize) -> Option<&mut Parts> {
        if self.made.contains(&id) {
            return None;
        }
        Some(self.calls.entry(id).or_insert_with(|| Parts {
            first: order,
            ..Parts::default()
        }))
    }

    /// Make call `id` into its record: it is whole.
    fn make(&mut self, id: &str) {
        let Some(p) = self.calls.remove(id) else {
            return;
        };
        self.made.insert(id.to_string());
        if let Some((order, item)) = call_item(p) {
            self.session.push(order, item);
        }
    }
}

fn chat(user: bool, text: &str, path: Path, at: At) -> ChatItem {
    ChatItem {
        user,
        text: Text::new(text.to_string(), path),
        line: at.no,
        span: at.span,
        ts: at.ts,
    }
}

fn call_id(p: &Obj) -> Option<String> {
    match p.get("call_id")? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A run of one of the client's own tools, its name at `payload.name`.
fn tool(name: &str, args: Obj, at: At) -> Item {
    Item::Tool(ToolItem {
        name: name.to_string(),
        args: Some(Value::Object(args)),
        at: Some(Anchor {
            span: at.span,
            path: at.base.key("name"),
        }),
        line: at.no,
        span: at.span,
        ts: at.ts,
    })
}

/// A tool line without a `name`: its finding points at its `type`.
fn t_at_none(item: &mut Item) {
    if let Item::Tool(t) = item {
        if let Some(a) = &mut t.at {
            a.path = a.path.parent().key("type");
        }
    }
}

/// The files a patch (`*** Update File: path`) changes: the first as
/// `path`, all as `paths`.
fn patch_args(patch: &str) -> Obj {
    let paths: Vec<Value> = patch
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            ["*** Add File:", "*** Update File:", "*** Delete File:"]
                .iter()
                .find_map(|p| l.strip_prefix(p))
                .map(|p| Value::String(p.trim().to_string()))
        })
        .collect();
    let mut a = Obj::new();
    if let Some(first) = paths.first() {
        a.insert("path".into(), first.clone());
    }
    a.insert("paths".into(), Value::Array(paths));
    a
}

/// `mcp__server__tool` or `server__tool` (with the server in `namespace`
/// when the client keeps it apart) split into server and tool.
pub(crate) fn split_name<'a>(
    name: &'a str,
    namespace: Option<&'a str>,
) -> Option<(&'a str, &'a str)> {
    if let Some(ns) = namespace.filter(|n| !n.is_empty()) {
        let ns = ns.strip_prefix("mcp__").unwrap_or(ns);
        let ns = ns.strip_suffix("__").unwrap_or(ns);
        return Some((ns, name));
    }
    if let Some(st) = super::server::split_mcp_name(name) {
        return Some(st);
    }
    let (server, tool) = name.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

/// The arguments of a `function_call`: the object its JSON string holds.
fn call_args(c: &Obj, at: At, problems: &mut Vec<Problem>) -> Obj {
    let here = at.base.key("arguments");
    let problem = |problems: &mut Vec<Problem>, what: &str| {
        problems.push(Problem::new(
            Anchor {
                span: at.span,
                path: here,
            },
            format!("the arguments of this call are {what}"),
            Some("the call was read without its arguments".into()),
        ));
    };
    match c.get("arguments") {
        None | Some(Value::Null) => Obj::new(),
        Some(Value::Object(o)) => o.clone(),
        Some(Value::String(s)) if s.trim().is_empty() => Obj::new(),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(o)) => o,
            Ok(_) => {
                problem(problems, "not a JSON object");
                Obj::new()
            }
            Err(_) => {
                problem(problems, "not valid JSON");
                Obj::new()
            }
        },
        Some(_) => {
            problem(problems, "neither a JSON string nor an object");
            Obj::new()
        }
    }
}

/// The answer of an `mcp_tool_call_end`: `result` is `{"Ok": CallToolResult}`
/// or `{"Err": message}`.
/// `line` is the bytes of the event's line.
fn end_answer(line: &[u8], end: &Obj, at: At) -> Answer {
    let result_at = at.base.key("result");
    let Some(Value::Object(r)) = end.get("result") else {
        return Answer::None;
    };
    if let Some(e) = r.get("Err") {
        let msg = e
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| e.to_string());
        return Answer::Error(
            session::refusal(&msg),
            Place {
                path: result_at.key("Err"),
                within: Some(at.span),
                opaque: false,
            },
        );
    }
    let Some(Value::Object(ok)) = r.get("Ok") else {
        return Answer::None;
    };
    let ok_at = result_at.key("Ok");
    let failed = ok
        .get("isError")
        .or_else(|| ok.get("is_error"))
        .and_then(Value::as_bool)
        == Some(true);
    let structured = ok
        .get("structuredContent")
        .or_else(|| ok.get("structured_content"))
        .and_then(Value::as_object);
    if let (Some(s), false) = (structured, failed) {
        let key = if ok.contains_key("structuredContent") {
            "structuredContent"
        } else {
            "structured_content"
        };
        return Answer::Result(
            s.clone(),
            Place {
                path: ok_at.key(key),
                within: Some(at.span),
                opaque: false,
            },
        );
    }
    let Some((i, text)) = super::mcp::text_content(ok) else {
        return if failed {
            Answer::Error(
                ApiError {
                    status: None,
                    message: None,
                },
                Place {
                    path: ok_at,
                    within: Some(at.span),
                    opaque: false,
                },
            )
        } else {
            Answer::None
        };
    };
    let place = session::string_place_in(
        line,
        at.span.start,
        ok_at.key("content").index(i).key("text"),
    );
    if failed {
        // The server's message: its own JSON error, or its text.
        let parsed = serde_json::from_str::<Value>(text).ok();
        let message = parsed
            .as_ref()
            .and_then(|v| v.get("message"))
            .and_then(Value::as_str)
            .unwrap_or(text);
        let mut e = session::refusal(message);
        if let Some(st) = parsed
            .as_ref()
            .and_then(|v| v.get("status"))
            .and_then(Value::as_i64)
        {
            e.status = Some(st);
        }
        return Answer::Error(e, place);
    }
    session::answer_of_text(text, place)
}

/// The answer of a `function_call_output`: a text, a list of content
/// items, or (in older files) `{"content", "success"}`.
/// `line` is the bytes of the output's line.
fn output_answer(line: &[u8], out: &Value, at: At) -> Answer {
    let out_at = at.base.key("output");
    match out {
        Value::String(text) => {
            session::answer_of_text(text, session::string_place_in(line, at.span.start, out_at))
        }
        Value::Array(items) => {
            let Some((i, text)) = items.iter().enumerate().find_map(|(i, it)| {
                Some((i, it.get("text")?.as_str()?)).filter(|_| {
                    it.get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("input_text")
                        != "input_image"
                })
            }) else {
                return Answer::None;
            };
            session::answer_of_text(
                text,
                session::string_place_in(line, at.span.start, out_at.index(i).key("text")),
            )
        }
        Value::Object(o) => {
            let Some(text) = o.get("content").and_then(Value::as_str) else {
                return Answer::None;
            };
            let place = session::string_place_in(line, at.span.start, out_at.key("content"));
            if o.get("success").and_then(Value::as_bool) == Some(false) {
                return Answer::Error(session::refusal(text), place);
            }
            session::answer_of_text(text, place)
        }
        _ => Answer::None,
    }
}

/// One tool call from its lines; `None` for an output whose call is not
/// in the file (the session was resumed or compacted past it: nothing
/// says what it answered).
fn call_item(p: Parts) -> Option<(Order, Item)> {
    let Parts {
        call, output, end, ..
    } = p;
    let by_call = call.is_some();
    let (end_at, end) = match end {
        Some((at, e)) => (Some(at), Some(e)),
        None => (None, None),
    };
    let by_event = end.as_ref().and_then(|e| e.by.clone());
    let (server, name, args, args_place, home, problems) = match (call, &end_at) {
        (Some((at, c)), _) => {
            let split = split_name(&c.name, c.namespace.as_deref())
                .map(|(s, t)| (s.to_string(), t.to_string()));
            match by_event.or(split) {
                Some((server, tool)) => (
                    server,
                    tool,
                    c.args,
                    Place {
                        path: at.base.key("arguments").json(),
                        within: None,
                        opaque: false,
                    },
                    at,
                    c.problems,
                ),
                None => {
                    // One of the client's own tools.
                    let args = builtin_args(&c.name, c.args);
                    return Some(((at.order, 0), tool(&c.name, args, at)));
                }
            }
        }
        (None, Some(at)) => {
            let (server, tool) = by_event?;
            (
                server,
                tool,
                end.as_ref().map(|e| e.args.clone()).unwrap_or_default(),
                Place::at(at.base.key("invocation").key("arguments")),
                *at,
                Vec::new(),
            )
        }
        (None, None) => return None,
    };
    // When the answer arrived: the first line that holds it.
    let answered: Option<At> = [end_at, output.as_ref().map(|o| o.0)]
        .into_iter()
        .flatten()
        .min_by_key(|a| a.order);
    let answer = match (end.map(|e| e.answer), output) {
        (Some(a), _) if !matches!(a, Answer::None) => a,
        (_, Some((_, a))) => a,
        _ => Answer::None,
    };
    let when = answered.unwrap_or(home);
    Some((
        (when.order, 1),
        Item::Call(CallItem {
            server,
            tool: name,
            args,
            args_place,
            answer,
            at: Some(Anchor {
                span: home.span,
                path: if by_call {
                    home.base.key("name")
                } else {
                    home.base.key("invocation").key("tool")
                },
            }),
            line: home.no,
            span: home.span,
            ts: when.ts.or(home.ts),
            problems,
        }),
    ))
}

/// The arguments of one of the client's own function tools, with a shell
/// command as one line under `command`.
fn builtin_args(name: &str, mut args: Obj) -> Obj {
    if let Some(cmd) = args.get("command").and_then(session::command_line) {
        args.insert("command".into(), Value::String(cmd));
    }
    if name == "apply_patch" {
        if let Some(input) = args.get("input").and_then(Value::as_str) {
            let mut a = patch_args(input);
            a.insert("input".into(), Value::String(input.to_string()));
            return a;
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(src: &str) -> Parsed {
        parse(src.as_bytes(), &Options::default())
    }

    const META: &str = r#"{"timestamp":"2026-10-10T10:00:00.000Z","type":"session_meta","payload":{"id":"0199","timestamp":"2026-10-10T10:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.50.0","source":"cli"}}"#;

    #[test]
    fn lines_read_side_by_side_read_as_one_by_one() {
        // The seed's rollouts, with a broken line and one that is no
        // object, over and over until they are read in several blocks.
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/seed-incident-codex");
        let mut one = Vec::new();
        for file in ["claude.jsonl", "opencode.jsonl", "promo.jsonl"] {
            one.extend(std::fs::read(dir.join(file)).unwrap());
            one.extend(b"{\"type\":\n[1]\n");
        }
        let (alone, side_by_side) = session::alone_and_side_by_side(&one, parse);
        assert!(alone.contains("not a rollout line") && alone.contains("Fn("));
        assert!(alone == side_by_side);
    }

    #[test]
    fn a_call_is_its_call_output_and_end_event() {
        let src = [
            META,
            r#"{"timestamp":"2026-10-10T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"voicehook__say","arguments":"{\"text\":\"Hallo zusammen\"}","call_id":"call_1"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:02.000Z","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"call_1","invocation":{"server":"voicehook","tool":"say","arguments":{"text":"Hallo zusammen"}},"duration":{"secs":0,"nanos":5},"result":{"Ok":{"content":[{"type":"text","text":"{\"say_id\":\"s1\",\"say_status\":\"queued\"}"}]}}}}"#,
            r#"{"timestamp":"2026-10-10T10:00:02.100Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"[{\"type\":\"text\",\"text\":\"{\\\"say_id\\\":\\\"s1\\\"}\"}]"}}"#,
        ]
        .join("\n");
        let parsed = p(&src);
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        let recs = &parsed.logs[0].records;
        assert_eq!(recs.len(), 1);
        let r = &recs[0];
        assert_eq!(r.line, 2);
        assert_eq!(r.ts, Some(1_791_626_402_000));
        let Op::Say(say) = &r.as_fn().unwrap().op else {
            panic!()
        };
        assert_eq!(say.say_status.as_deref(), Some("queued"));
        let t = say.text.as_ref().unwrap();
        let at = crate::core::lines::resolve(
            src.as_bytes(),
            &crate::core::lines::LineIndex::new(src.as_bytes()),
            &r.text(t),
        );
        assert_eq!(&src[at.span.start..at.span.end], "Hallo zusammen");
        assert_eq!(at.line, 2);
    }

    #[test]
    fn a_session_without_voicehook_is_quiet() {
        let src = [
            META,
            r#"{"timestamp":"2026-10-10T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"rm -rf build\"]}","call_id":"c1"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}"#,
            r#"{"timestamp":"2026-10-10T10:00:03.000Z","type":"response_item","payload":{"type":"function_call","#,
        ]
        .join("\n");
        let parsed = p(&src);
        assert!(parsed.logs.is_empty());
        assert!(parsed.problems.is_empty());
    }

    #[test]
    fn refusals_and_broken_outputs() {
        let src = [
            META,
            r#"{"timestamp":"2026-10-10T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__vh__join","arguments":"{\"call_id\":\"c-1\",\"label\":\"a-very-long-label-for-this-agent\"}","call_id":"j1"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"j1","output":"422 label longer than 22 characters"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"nobody","output":"{}"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:04.000Z","type":"response_item","payload":{"type":"function_call","name":"vh__say","arguments":"{not json","call_id":"s1"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:05.000Z","type":"hologram","payload":{"x":1}}"#,
            r#"[1,2]"#,
        ]
        .join("\n");
        let parsed = p(&src);
        let recs = &parsed.logs[0].records;
        // the join (refused), the say without arguments nor answer
        assert_eq!(recs.len(), 2, "{recs:#?}");
        let f = recs[0].as_fn().unwrap();
        assert_eq!(f.error.as_ref().unwrap().status, Some(422));
        assert_eq!(recs[1].call(), Some("c-1"));
        let msgs: Vec<&str> = parsed.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(msgs.len(), 2, "{msgs:?}");
        assert!(msgs[0].contains("not a rollout line"), "{msgs:?}");
        assert!(msgs[1].contains("not valid JSON"), "{msgs:?}");
    }

    #[test]
    fn threads_chat_and_tools() {
        let sub = r#"{"timestamp":"2026-10-10T10:00:00.000Z","type":"session_meta","payload":{"id":"1","source":{"subagent":{"thread_spawn":{"parent_thread_id":"0","depth":1}}}}}"#;
        let src = [
            sub,
            r#"{"timestamp":"2026-10-10T10:00:00.500Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}}"#,
            r#"{"timestamp":"2026-10-10T10:00:00.600Z","type":"event_msg","payload":{"type":"user_message","message":"Open a call"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"voicehook__create_call","arguments":"{}","call_id":"c"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"{\"call_id\":\"c-9\",\"link\":\"https://voicehook.ai/c/9\",\"share_text\":\"Join: https://voicehook.ai/c/9\"}"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:03.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** End Patch","call_id":"p"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Join: https://voicehook.ai/c/9"}]}}"#,
            r#"{"timestamp":"2026-10-10T10:00:04.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Join: https://voicehook.ai/c/9"}}"#,
        ]
        .join("\n");
        let parsed = p(&src);
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        let recs = &parsed.logs[0].records;
        let kinds: Vec<&str> = recs
            .iter()
            .map(|r| match &r.body {
                Body::Chat(c) if c.turn_end => "end",
                Body::Chat(c) => &c.role,
                Body::Tool(t) => &t.name,
                Body::Fn(f) => &f.name,
                Body::Meta(_) => "meta",
            })
            .collect();
        assert_eq!(kinds, ["user", "create_call", "apply_patch", "end"]);
        assert!(recs.iter().all(|r| *r.thread() == Thread::Subagent));
        assert_eq!(recs[3].call(), Some("c-9"));
        let Body::Tool(t) = &recs[2].body else {
            panic!()
        };
        assert_eq!(t.args.as_ref().unwrap()["path"], "src/a.rs");
    }

    /// The records and problems of `p`, to compare.
    fn shown(p: &Parsed) -> String {
        format!("{:?}", (&p.logs, &p.problems))
    }

    #[test]
    fn a_rollout_read_in_parts_reads_as_read_whole() {
        // The state between parts goes through MessagePack, as the guard
        // keeps it between runs.
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/seed-incident-codex");
        let mut files: Vec<(String, Vec<u8>)> = ["claude.jsonl", "opencode.jsonl", "promo.jsonl"]
            .iter()
            .map(|f| (f.to_string(), std::fs::read(dir.join(f)).unwrap()))
            .collect();
        // Every way a call's lines come: the call with its end event only,
        // with its output only, the end after the output, an end without
        // its call, the older layout, a user's message given both ways,
        // and lines that are no UTF-8 or no rollout line at all.
        let shapes = [
            META,
            r#"{"timestamp":"2026-10-10T10:00:00.500Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Join c-1"}]}}"#,
            r#"{"timestamp":"2026-10-10T10:00:00.600Z","type":"event_msg","payload":{"type":"user_message","message":"Join c-1"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__voicehook__join","arguments":"{\"call_id\":\"c-1\",\"label\":\"Kit\"}","call_id":"j"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:02.000Z","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"j","invocation":{"server":"voicehook","tool":"join","arguments":{"call_id":"c-1"}},"result":{"Ok":{"content":[{"type":"text","text":"{\"status\":\"joined\",\"context\":{\"lang\":\"en\"}}"}]}}}}"#,
            r#"{"timestamp":"2026-10-10T10:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"c1"}}"#,
            "NOT UTF-8",
            r#"{"timestamp":"2026-10-10T10:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:05.000Z","type":"response_item","payload":{"type":"function_call","name":"voicehook__say","arguments":"{\"text\":\"On it.\"}","call_id":"s1"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:06.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"s1","output":"{\"say_id\":\"s1\"}"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:06.500Z","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"s1","invocation":{"server":"voicehook","tool":"say","arguments":{}},"result":{"Err":"422 nope"}}}"#,
            "[1]",
            r#"{"timestamp":"2026-10-10T10:00:07.000Z","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"e9","invocation":{"server":"voicehook","tool":"next","arguments":{"wait":5}},"result":{"Ok":{"content":[]}}}}"#,
            r#"{"timestamp":"2026-10-10T10:00:08.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"e9","output":"{\"events\":[]}"}}"#,
            r#"{"type":"function_call","name":"voicehook__say","arguments":"{\"text\":\"Done.\"}","call_id":"o1"}"#,
            r#"{"record_type":"state"}"#,
            "",
            r#"{"type":"function_call_output","call_id":"o1","output":"{\"say_id\":\"s2\"}"}"#,
            r#"{"timestamp":"2026-10-10T10:00:09.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Joined."}]}}"#,
            r#"{"timestamp":"2026-10-10T10:00:10.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__voicehook__say","arguments":"{\"text\":\"Bye.\"}","call_id":"s9"}}"#,
        ];
        let mut shaped = Vec::new();
        for l in shapes {
            if l == "NOT UTF-8" {
                shaped.extend_from_slice(b"{\"type\":\"response_item\",\xff}");
            } else {
                shaped.extend_from_slice(l.as_bytes());
            }
            shaped.push(b'\n');
        }
        files.push(("shapes".into(), shaped));
        for (file, src) in &files {
            let whole = parse(src, &Options::default());
            assert!(!whole.logs.is_empty(), "{file}");
            let whole = shown(&whole);
            // every line break but the last: the last part holds the last line
            let breaks = src
                .iter()
                .enumerate()
                .filter(|(k, &b)| b == b'\n' && k + 1 < src.len())
                .map(|(k, _)| k + 1);
            for cut in breaks {
                let mut p = Partial::new(&Options::default());
                p.read(&src[..cut], false);
                let kept = crate::app::guard::kept::encode(&p).unwrap();
                let mut p: Partial = crate::app::guard::kept::decode(&kept).unwrap();
                assert_eq!(p.bytes(), cut);
                p.read(&src[cut..], true);
                assert!(shown(&p.finish()) == whole, "{file} cut at byte {cut}");
            }
            // and a line at a time
            let mut p = Partial::new(&Options::default());
            let mut from = 0;
            for (k, _) in src.iter().enumerate().filter(|(_, &b)| b == b'\n') {
                p.read(&src[from..=k], false);
                from = k + 1;
            }
            p.read(&src[from..], true);
            assert!(shown(&p.finish()) == whole, "{file} a line at a time");
        }
    }

    #[test]
    fn a_call_is_made_once_it_is_whole() {
        let lines = [
            META,
            r#"{"timestamp":"2026-10-10T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__vh__say","arguments":"{\"text\":\"Hi\"}","call_id":"a"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__vh__say","arguments":"{\"text\":\"Yo\"}","call_id":"b"}}"#,
            r#"{"timestamp":"2026-10-10T10:00:03.000Z","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"b","invocation":{"server":"vh","tool":"say"},"result":{"Ok":{"content":[{"type":"text","text":"{\"say_id\":\"s2\"}"}]}}}}"#,
            r#"{"timestamp":"2026-10-10T10:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"a","output":"{\"say_id\":\"s1\"}"}}"#,
            // after the call was made: passed over
            r#"{"timestamp":"2026-10-10T10:00:05.000Z","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"a","invocation":{"server":"vh","tool":"say"},"result":{"Err":"500"}}}"#,
            r#"{"timestamp":"2026-10-10T10:00:06.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__vh__say","arguments":"{\"text\":\"Again\"}","call_id":"c"}}"#,
        ];
        let mut p = Partial::new(&Options::default());
        p.read((lines.join("\n") + "\n").as_bytes(), false);
        // the answered ones are records already; the one still waiting is
        // all the state keeps of calls
        let waiting: Vec<&String> = p.reader().calls.keys().collect();
        assert_eq!(waiting, ["c"]);
        let parsed = p.finish();
        let recs = &parsed.logs[0].records;
        let says: Vec<(String, bool)> = recs
            .iter()
            .map(|r| {
                let f = r.as_fn().unwrap();
                let Op::Say(s) = &f.op else { panic!() };
                (
                    s.text.as_ref().unwrap().value.to_string(),
                    f.error.is_some(),
                )
            })
            .collect();
        assert_eq!(
            says,
            [
                ("Yo".to_string(), false),
                ("Hi".to_string(), false),
                ("Again".to_string(), false)
            ]
        );
    }
}
