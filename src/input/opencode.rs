//! opencode sessions, as `opencode export <session>` writes them: one JSON
//! document `{"info": session, "messages": [{"info": message, "parts":
//! [part, ..]}, ..]}`.
//!
//! - a `tool` part whose tool is an MCP server's (`<server>_<tool>`, the
//!   server as its user named it) and voicehook's is a function record:
//!   `state.input` the arguments, `state.output` (the server's JSON text)
//!   the answer, `state.error` (or an output that is no JSON) the failure;
//!   its time is when the tool finished (`state.time.end`); findings point
//!   at the part;
//! - every other tool part (`bash`, `edit`, `write`, `patch`, `webfetch`,
//!   `task`, other servers' tools) is a `tool` record with its input;
//! - text parts of assistant messages are the agent's chat to its user, of
//!   user messages the user's (parts the client added itself, marked
//!   `synthetic`, are not);
//! - a session with a parent (`info.parentID`: a subagent's, started by the
//!   `task` tool) is linted as a subagent's thread;
//! - every other part type, and types that do not exist yet, are passed
//!   over.
//!
//! Messages are read one by one, so an export cut off in the middle keeps
//! the messages before the cut. opencode's own storage folder is not read:
//! one session is spread there over a file per message and per part (and
//! newer versions keep it in a database), while `opencode export` gives it
//! whole.

use serde_json::Value;

use super::json::{LineStarts, Place};
use super::server::FUNCTIONS;
use super::session::{self, Answer, CallItem, ChatItem, Item, Session, ToolItem};
use super::{Options, Parsed, Problem};
use crate::core::locate::{skip_ws, value_span};
use crate::model::*;

/// Read an opencode session: an export, a list of its messages, or one
/// file of its storage folder.
pub fn parse(bytes: &[u8], opts: &Options) -> Parsed {
    let export = match scan(bytes) {
        // No export: one file of the storage folder, when it is one.
        Ok(e) if e.info.is_none() && e.messages.is_empty() => {
            if let Some((_, kind)) = stored_session(bytes) {
                let mut parsed = parse_storage(bytes, &[Span::new(0, bytes.len())], opts);
                // One note says what the file is and what to give instead
                // (a session's info holds no call; a walk of the folder
                // reads it with the session's other files, when it has
                // any).
                parsed.problems.push(alone(bytes, kind));
                return parsed;
            }
            e
        }
        Ok(e) => e,
        Err(p) => {
            // Not an export at all: one problem, never a session.
            return Parsed {
                logs: Vec::new(),
                problems: vec![p],
                ..Parsed::default()
            };
        }
    };
    let mut s = Session::new(opts);
    let lines = LineStarts::new(bytes);
    if let Some(info) = export.info {
        if let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(&bytes[info.start..info.end])
        {
            if o.get("parentID").is_some_and(|p| p.is_string()) {
                s.thread = Thread::Subagent;
            }
        }
    }
    for (m, span) in export.messages.iter().enumerate() {
        let msg: Value = match serde_json::from_slice(&bytes[span.start..span.end]) {
            Ok(v) => v,
            Err(e) => {
                s.problems.push(super::json::broken(
                    &bytes[span.start..span.end],
                    span.start,
                    &e,
                ));
                continue;
            }
        };
        message(bytes, &lines, *span, &msg, m, &mut s);
    }
    if let Some(cut) = export.cut {
        s.problems.push(Problem::new(
            Anchor::bytes(cut),
            "the export ends inside a message (the file is cut off here)".into(),
            Some("the messages before it were read".into()),
        ));
    }
    s.finish()
}

/// What a file of opencode's storage folder holds
/// (`storage/session/<project>/<session>.json`,
/// `storage/message/<session>/<message>.json`,
/// `storage/part/<message>/<part>.json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// A session's info: `{id, title, version, time, ..}`.
    Session,
    /// A message's info: `{id, sessionID, role, time, ..}`.
    Message,
    /// One part of a message: `{id, sessionID, messageID, type, ..}`.
    Part,
}

/// Which file of the storage folder `o` is, if it is one.
pub fn stored(o: &serde_json::Map<String, Value>) -> Option<Stored> {
    let text = |k: &str| o.get(k).is_some_and(Value::is_string);
    if !text("id") || o.contains_key("messages") || o.contains_key("info") {
        return None;
    }
    if text("sessionID") && text("messageID") && text("type") {
        return Some(Stored::Part);
    }
    let timed = o.get("time").is_some_and(Value::is_object);
    if text("sessionID") && timed && o.get("role").and_then(Value::as_str).is_some() {
        return Some(Stored::Message);
    }
    // opencode's session ids start with `ses_`; a version is written in
    // every session's info opencode keeps.
    let session_id = o
        .get("id")
        .and_then(Value::as_str)
        .is_some_and(|id| id.starts_with("ses_"));
    (timed && (text("version") || session_id) && (text("title") || text("projectID")))
        .then_some(Stored::Session)
}

/// The one note for a file of opencode's storage folder read alone.
fn alone(bytes: &[u8], kind: Stored) -> Problem {
    let message = match kind {
        Stored::Session => "this is a session's info from opencode's storage folder, read alone: it holds no call (the session's messages and parts are files of their own)",
        Stored::Message => "this is one message of a session in opencode's storage folder, read alone: the session's other files were not given with it",
        Stored::Part => "this is one part of a message of a session in opencode's storage folder, read alone: the session's other files were not given with it",
    };
    let end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len()).min(200);
    let end = (0..=end)
        .rev()
        .find(|&k| std::str::from_utf8(&bytes[..k]).is_ok())
        .unwrap_or(0);
    Problem::note(
        Anchor::bytes(Span::new(0, end)),
        message.into(),
        Some("opencode keeps a session as many files (storage/session, storage/message, storage/part); point callint at the storage folder (~/.local/share/opencode/storage) to read the session whole, or export it with `opencode export`".into()),
    )
}

/// The session a storage file belongs to, and the file's kind.
pub fn stored_session(bytes: &[u8]) -> Option<(String, Stored)> {
    let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(bytes) else {
        return None;
    };
    let kind = stored(&o)?;
    let key = if kind == Stored::Session {
        "id"
    } else {
        "sessionID"
    };
    Some((o.get(key)?.as_str()?.to_string(), kind))
}

/// Read the files of one session in opencode's storage folder as one
/// text: `pieces` are their spans in `bytes` (each file whole). The
/// session's info gives its thread; the messages are read in the order
/// they were created, each with its parts in the order of their ids
/// (opencode's ids grow with time); parts whose message is not among the
/// files come last. Records' lines are lines of their own file.
pub fn parse_storage(bytes: &[u8], pieces: &[Span], opts: &Options) -> Parsed {
    let mut s = Session::new(opts);
    let index = LineStarts::new(bytes);
    let mut messages: Vec<(Option<Ms>, String, Value)> = Vec::new();
    let mut parts: Vec<(String, String, Value, Span)> = Vec::new();
    let mut starts: Vec<usize> = Vec::with_capacity(pieces.len());
    for piece in pieces {
        starts.push(piece.start);
        let raw = &bytes[piece.start..piece.end];
        let v: Value = match serde_json::from_slice(raw) {
            Ok(v) => v,
            Err(e) => {
                s.problems.push(super::json::broken(raw, piece.start, &e));
                continue;
            }
        };
        let Value::Object(o) = &v else {
            continue;
        };
        let id = |k: &str| o.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match stored(o) {
            Some(Stored::Session) if o.get("parentID").is_some_and(Value::is_string) => {
                s.thread = Thread::Subagent;
            }
            Some(Stored::Message) => {
                let created = ms(o.get("time").and_then(|t| t.get("created")));
                messages.push((created, id("id"), v));
            }
            Some(Stored::Part) => {
                let (m, p) = (id("messageID"), id("id"));
                parts.push((m, p, v, *piece));
            }
            _ => {}
        }
    }
    messages.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    parts.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    // A byte's line within its own file.
    let line = |at: usize| {
        let k = starts.partition_point(|&st| st <= at).saturating_sub(1);
        let first = starts.get(k).map_or(1, |&st| index.line(st));
        index.line(at) - first + 1
    };
    let mut used = vec![false; parts.len()];
    let mut m = 0;
    for (_, id, info) in &messages {
        let lo = parts.partition_point(|p| p.0.as_str() < id.as_str());
        let hi = parts.partition_point(|p| p.0.as_str() <= id.as_str());
        for u in &mut used[lo..hi] {
            *u = true;
        }
        let mine = parts[lo..hi].iter().map(|p| (&p.2, p.3));
        message_parts(bytes, Some(info), mine, &line, m, &mut s);
        m += 1;
    }
    // Parts without their message: tool parts are still the assistant's.
    let mut k = 0;
    while k < parts.len() {
        let group = parts[k..].partition_point(|p| p.0 == parts[k].0) + k;
        if !used[k] {
            let info = serde_json::json!({"role": "assistant"});
            let mine = parts[k..group].iter().map(|p| (&p.2, p.3));
            message_parts(bytes, Some(&info), mine, &line, m, &mut s);
            m += 1;
        }
        k = group;
    }
    s.finish()
}

/// Where the parts of an export are.
struct Export {
    info: Option<Span>,
    messages: Vec<Span>,
    /// Where a message begins that the file cuts off.
    cut: Option<Span>,
}

/// The spans of the session's info and of each whole message, read
/// without parsing the document as a whole.
fn scan(t: &[u8]) -> Result<Export, Problem> {
    let not_export = |at: usize| {
        let at = at.min(t.len());
        Problem::new(
            Anchor::bytes(Span::new(at, (at + 1).min(t.len()))),
            "this is not an opencode session: it should be one JSON object with `info` and `messages` (or a list of messages, or one file of opencode's storage)".into(),
            Some("write one with `opencode export <session> > session.json`".into()),
        )
    };
    let mut out = Export {
        info: None,
        messages: Vec::new(),
        cut: None,
    };
    let start = skip_ws(t, 0);
    let start = if t[start..].starts_with(b"\xef\xbb\xbf") {
        skip_ws(t, start + 3)
    } else {
        start
    };
    if t.get(start) == Some(&b'[') {
        // The messages alone, as opencode's server lists them: `[{"info":
        // message, "parts": [..]}, ..]`.
        let mut i = skip_ws(t, start + 1);
        while i < t.len() && t[i] != b']' {
            let Some(v) = value_span(t, i) else {
                return Ok(cut(out, i, t));
            };
            if t[v.start] != b'{' {
                return Err(not_export(v.start));
            }
            out.messages.push(v);
            i = skip_ws(t, v.end);
            if t.get(i) == Some(&b',') {
                i = skip_ws(t, i + 1);
            }
        }
        return Ok(out);
    }
    if t.get(start) != Some(&b'{') {
        return Err(not_export(start));
    }
    let mut i = skip_ws(t, start + 1);
    while t.get(i) == Some(&b'"') {
        let Some(key) = value_span(t, i) else {
            return Ok(cut(out, i, t));
        };
        let name = &t[key.start + 1..key.end - 1];
        i = skip_ws(t, key.end);
        if t.get(i) != Some(&b':') {
            return Ok(cut(out, i, t));
        }
        i = skip_ws(t, i + 1);
        if name == b"messages" && t.get(i) == Some(&b'[') {
            i = skip_ws(t, i + 1);
            while i < t.len() && t[i] != b']' {
                let Some(v) = value_span(t, i) else {
                    return Ok(cut(out, i, t));
                };
                out.messages.push(v);
                i = skip_ws(t, v.end);
                if t.get(i) == Some(&b',') {
                    i = skip_ws(t, i + 1);
                }
            }
            i = skip_ws(t, i + 1);
        } else {
            let Some(v) = value_span(t, i) else {
                return Ok(cut(out, i, t));
            };
            if name == b"info" {
                out.info = Some(v);
            }
            i = skip_ws(t, v.end);
        }
        if t.get(i) == Some(&b',') {
            i = skip_ws(t, i + 1);
        } else {
            break;
        }
    }
    Ok(out)
}

fn cut(mut e: Export, at: usize, t: &[u8]) -> Export {
    let at = at.min(t.len());
    e.cut = Some(Span::new(at, (at + 1).min(t.len())));
    e
}

/// The span of member `key` of the object at `obj` (relative to `t`).
fn member(t: &[u8], obj: Span, key: &'static str) -> Option<Span> {
    let inner = crate::core::locate::locate(&t[obj.start..obj.end], &Path::ROOT.key(key));
    let s = Span::new(obj.start + inner.start, obj.start + inner.end);
    // `locate` gives the object itself when the key is not there.
    (s != obj).then_some(s)
}

fn ms(v: Option<&Value>) -> Option<Ms> {
    let n = v?.as_f64()?;
    (n.is_finite() && n > 0.0 && n < 1e15).then_some(n as Ms)
}

fn message(src: &[u8], lines: &LineStarts, span: Span, msg: &Value, m: usize, s: &mut Session) {
    let Some(Value::Array(parts)) = msg.get("parts") else {
        return;
    };
    let Some(parts_span) = member(src, span, "parts") else {
        return;
    };
    let spans = super::json::elements(src, parts_span);
    let line = |at: usize| lines.line(at);
    message_parts(src, msg.get("info"), parts.iter().zip(spans), &line, m, s);
}

/// The records of one message: its info (role and times) and its parts,
/// each with its span; `line` gives the line of a byte.
fn message_parts<'a>(
    src: &[u8],
    info: Option<&Value>,
    parts: impl Iterator<Item = (&'a Value, Span)>,
    line: &dyn Fn(usize) -> u32,
    m: usize,
    s: &mut Session,
) {
    let role = info
        .and_then(|i| i.get("role"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let created = ms(info
        .and_then(|i| i.get("time"))
        .and_then(|t| t.get("created")));
    let completed = ms(info
        .and_then(|i| i.get("time"))
        .and_then(|t| t.get("completed")));
    for (k, (part, pspan)) in parts.enumerate() {
        let line = line(pspan.start);
        let order = (m, k);
        let ty = part.get("type").and_then(Value::as_str).unwrap_or("");
        match (role, ty) {
            ("user" | "assistant", "text") => {
                let synthetic = ["synthetic", "ignored"]
                    .iter()
                    .any(|f| part.get(*f).and_then(Value::as_bool) == Some(true));
                let Some(text) = part.get("text").and_then(Value::as_str) else {
                    continue;
                };
                if synthetic {
                    continue;
                }
                let time = part.get("time");
                let ts = if role == "user" {
                    created
                } else {
                    ms(time.and_then(|t| t.get("end")))
                        .or(completed)
                        .or(ms(time.and_then(|t| t.get("start"))))
                        .or(created)
                };
                s.push(
                    order,
                    Item::Chat(ChatItem {
                        user: role == "user",
                        text: Text::new(text.to_string(), Path::ROOT.key("text")),
                        line,
                        span: pspan,
                        ts,
                    }),
                );
            }
            ("assistant", "tool") => {
                if let Some(item) = tool_part(src, part, pspan, line) {
                    s.push(order, item);
                }
            }
            _ => {}
        }
    }
}

/// The server and the tool of an MCP tool's name, `<server>_<tool>`, when
/// the tool is one of voicehook's functions.
fn split_name(name: &str) -> Option<(&str, &str)> {
    FUNCTIONS
        .iter()
        .filter(|f| name.len() > f.len() + 1 && name.ends_with(*f))
        .filter(|f| name.as_bytes()[name.len() - f.len() - 1] == b'_')
        .max_by_key(|f| f.len())
        .map(|f| {
            let server = &name[..name.len() - f.len() - 1];
            (server, &name[name.len() - f.len()..])
        })
}

fn tool_part(src: &[u8], part: &Value, span: Span, line: u32) -> Option<Item> {
    let name = part.get("tool").and_then(Value::as_str)?;
    let state = part.get("state");
    let input = state
        .and_then(|s| s.get("input"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let time = state.and_then(|s| s.get("time"));
    let ts = ms(time.and_then(|t| t.get("end"))).or(ms(time.and_then(|t| t.get("start"))));
    let Some((server, tool)) = split_name(name) else {
        let mut args = input;
        if let Some(cmd) = args.get("command").and_then(session::command_line) {
            args.insert("command".into(), Value::String(cmd));
        }
        return Some(Item::Tool(ToolItem {
            name: name.to_string(),
            args: Some(Value::Object(args)),
            at: None,
            line,
            span,
            ts,
        }));
    };
    let state_at = Path::ROOT.key("state");
    let status = state
        .and_then(|s| s.get("status"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let answer = match status {
        "completed" => match state.and_then(|s| s.get("output")).and_then(Value::as_str) {
            Some(out) => session::answer_of_text(
                out,
                session::string_place(src, span, state_at.key("output")),
            ),
            None => Answer::None,
        },
        "error" => {
            let msg = state
                .and_then(|s| s.get("error"))
                .and_then(Value::as_str)
                .unwrap_or("");
            Answer::Error(
                session::refusal(msg),
                Place {
                    path: state_at.key("error"),
                    within: None,
                    opaque: false,
                },
            )
        }
        _ => Answer::None,
    };
    Some(Item::Call(CallItem {
        server: server.to_string(),
        tool: tool.to_string(),
        args: input,
        args_place: Place::at(state_at.key("input")),
        answer,
        at: None,
        line,
        span,
        ts,
        problems: Vec::new(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(src: &str) -> Parsed {
        parse(src.as_bytes(), &Options::default())
    }

    fn export(parts: &str) -> String {
        format!(
            r#"{{
  "info": {{"id": "ses_1", "title": "t", "time": {{"created": 1791626400000, "updated": 1791626500000}}}},
  "messages": [
    {{
      "info": {{"id": "msg_1", "role": "user", "time": {{"created": 1791626400000}}}},
      "parts": [{{"id": "prt_1", "type": "text", "text": "Join the call please"}}]
    }},
    {{
      "info": {{"id": "msg_2", "role": "assistant", "time": {{"created": 1791626401000, "completed": 1791626409000}}}},
      "parts": [{parts}]
    }}
  ]
}}
"#
        )
    }

    #[test]
    fn a_tool_part_is_a_call_with_its_answer() {
        let src = export(
            r#"{"id": "prt_2", "type": "tool", "callID": "c1", "tool": "voicehook_say",
        "state": {"status": "completed", "input": {"text": "Hallo zusammen"},
          "output": "{\"say_id\":\"s1\",\"say_status\":\"queued\"}", "title": "", "metadata": {},
          "time": {"start": 1791626402000, "end": 1791626403000}}},
      {"id": "prt_3", "type": "tool", "callID": "c2", "tool": "edit",
        "state": {"status": "completed", "input": {"filePath": "a.md", "oldString": "x", "newString": "y"},
          "output": "", "title": "", "metadata": {}, "time": {"start": 1, "end": 2}}},
      {"id": "prt_4", "type": "step-finish"},
      {"id": "prt_5", "type": "text", "text": "I'm in."}"#,
        );
        let parsed = p(&src);
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        let recs = &parsed.logs[0].records;
        assert_eq!(recs.len(), 4, "{recs:#?}");
        let r = &recs[1];
        assert_eq!(r.ts, Some(1_791_626_403_000));
        let Op::Say(say) = &r.as_fn().unwrap().op else {
            panic!()
        };
        assert_eq!(say.say_status.as_deref(), Some("queued"));
        let at = crate::core::lines::resolve(
            src.as_bytes(),
            &crate::core::lines::LineIndex::new(src.as_bytes()),
            &r.text(say.text.as_ref().unwrap()),
        );
        assert_eq!(&src[at.span.start..at.span.end], "\"Hallo zusammen\"");
        assert_eq!(at.line, 11);
        let Body::Tool(t) = &recs[2].body else {
            panic!()
        };
        assert_eq!(t.name, "edit");
        let Body::Chat(c) = &recs[3].body else {
            panic!()
        };
        assert!(c.turn_end);
    }

    #[test]
    fn errors_cuts_and_strangers() {
        let src = export(
            r#"{"id": "prt_2", "type": "tool", "tool": "vh_join",
        "state": {"status": "error", "input": {"call_id": "c-1", "label": "x"}, "error": "422 label longer than 22 characters",
          "time": {"start": 1791626402000, "end": 1791626403000}}},
      {"id": "prt_3", "type": "hologram"}"#,
        );
        let parsed = p(&src);
        let recs = &parsed.logs[0].records;
        let f = recs[1].as_fn().unwrap();
        assert_eq!(f.error.as_ref().unwrap().status, Some(422));
        assert_eq!(recs[1].call(), Some("c-1"));
        // cut off inside the second message: the first is still read
        let cut = &src[..src.find("\"prt_3\"").unwrap()];
        let parsed = p(cut);
        assert!(parsed.logs.is_empty(), "no voicehook call before the cut");
        let end = src.rfind("\n  ]").unwrap();
        let cut2 = format!(
            "{},\n    {{\"info\": {{\"role\": \"user\"}}, \"parts\": [{{\"type\": \"text\", \"text\": \"Tha",
            &src[..end]
        );
        let parsed = p(&cut2);
        assert_eq!(parsed.logs[0].records.len(), 2);
        assert_eq!(parsed.problems.len(), 1, "{:?}", parsed.problems);
        assert!(parsed.problems[0].message.contains("cut off"));
        for bad in [
            "",
            "[]",
            "{",
            "{\"info\": 5, \"messages\": 7}",
            "{\"messages\": [1, {\"parts\": 3}]}",
        ] {
            let _ = p(bad);
        }
        assert!(p("[1, 2]").problems[0].message.contains("not an opencode"));
        // an empty list of messages is a session without any
        assert!(p("[]").problems.is_empty());
    }

    #[test]
    fn storage_files_and_message_lists_are_sessions() {
        let info = r#"{"id": "ses_1", "version": "0.15.8", "projectID": "p", "title": "t", "time": {"created": 1791626400000}}"#;
        let msg = r#"{"id": "msg_2", "sessionID": "ses_1", "role": "assistant", "time": {"created": 1791626401000}}"#;
        let call = "{\n  \"id\": \"prt_2\", \"sessionID\": \"ses_1\", \"messageID\": \"msg_2\", \"type\": \"tool\", \"tool\": \"voicehook_say\",\n  \"state\": {\"status\": \"completed\", \"input\": {\"text\": \"Hallo\"}, \"output\": \"{}\", \"time\": {\"start\": 1791626402000, \"end\": 1791626403000}}}";
        let text = r#"{"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_2", "type": "text", "text": "On it."}"#;
        // the files in any order: the message's parts by their ids
        let files = [info, call, text, msg];
        let mut all = String::new();
        let mut pieces = Vec::new();
        for f in files {
            let start = all.len();
            all.push_str(f);
            pieces.push(Span::new(start, all.len()));
        }
        let parsed = parse_storage(all.as_bytes(), &pieces, &Options::default());
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        let recs = &parsed.logs[0].records;
        let kinds: Vec<&str> = recs
            .iter()
            .map(|r| match &r.body {
                Body::Fn(f) => &f.name[..],
                Body::Chat(_) => "chat",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["chat", "say"], "{recs:#?}");
        // a line of the part's own file
        assert_eq!(recs[1].line, 1);
        assert_eq!(recs[1].span.start, pieces[1].start);
        // a session's info alone: no call, and one note that says so
        let p = parse(info.as_bytes(), &Options::default());
        assert!(p.logs.is_empty());
        assert_eq!(p.problems.len(), 1, "{:?}", p.problems);
        assert!(p.problems[0].note && p.problems[0].message.contains("session's info"));
        // a part alone is read too
        assert_eq!(parse(call.as_bytes(), &Options::default()).logs.len(), 1);
        // the messages as the server lists them
        let list = format!("[{{\"info\": {msg}, \"parts\": [{call}]}}]");
        let p = parse(list.as_bytes(), &Options::default());
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(p.logs[0].records.len(), 1);
    }

    #[test]
    fn names_split_into_server_and_function() {
        assert_eq!(split_name("voicehook_say"), Some(("voicehook", "say")));
        assert_eq!(
            split_name("my_calls_create_call"),
            Some(("my_calls", "create_call"))
        );
        assert_eq!(split_name("say"), None);
        assert_eq!(split_name("bash"), None);
        assert_eq!(split_name("_say"), None);
    }
}
