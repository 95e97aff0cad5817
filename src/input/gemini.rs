//! Gemini CLI's session recording (`~/.gemini/tmp/<project>/chats/
//! session-*.jsonl`), as its chat recording service writes it: one JSON
//! value a line.
//!
//! - the first line holds the session's metadata (`sessionId`,
//!   `projectHash`, `startTime`, `kind`); a subagent's file
//!   (`kind: "subagent"`) is linted as the subagent's thread;
//! - a line with an `id` is a message: `type` `user` (the user's turn),
//!   `gemini` (the model's: its text in `content`, and the tools it ran in
//!   `toolCalls`, each `{id, name, args, result, status, timestamp}`), or
//!   `info`, `error`, `warning` (the client's own notes, passed over). A
//!   message is written again, whole, each time it changes (its tool calls
//!   are added as they complete): the last line of an id holds it, and it
//!   keeps the place of its first;
//! - `{"$rewindTo": id}` takes that message and every later one out (all
//!   of them when the id is not there), and `{"$set": {"messages": [..]}}`
//!   replaces them all; other `$set` lines change only the metadata;
//! - a tool named `mcp_<server>_<tool>` is an MCP server's; its result is
//!   the `functionResponse` parts Gemini CLI gives the model, whose
//!   `output` holds the server's text (inside `<untrusted_context>`
//!   markers); a call whose `status` is `error` failed, with the server's
//!   refusal quoted in the output; a `cancelled` one got no answer.
//!
//! A session written by an older Gemini CLI (`session-*.json`: the whole
//! record as one JSON object, `messages` in it) is read too.
//!
//! The file is read a line at a time ([`Partial`]), so the guard can read
//! on from where it stopped. Messages are kept by id until the end (a
//! later line may change or take out any of them), as what they become:
//! their chat and calls, not their bytes.

use crate::core::hash::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::json::{self, Place};
use super::server::{split_mcp_name, FUNCTIONS};
use super::session::{
    self, Answer, CallItem, ChatItem, Item, Line, LineReader, Obj, Session, ToolItem,
};
use super::{ts, Options, Parsed, Problem};
use crate::model::*;

/// Read a Gemini CLI session file.
pub fn parse(bytes: &[u8], opts: &Options) -> Parsed {
    if let Some(parsed) = legacy(bytes, opts) {
        return parsed;
    }
    let mut p = Partial::new(opts);
    p.read(bytes, true);
    p.finish()
}

/// A session read as far as it was written ([`session::Partial`]).
pub(crate) type Partial = session::Partial<Reader>;

/// A run of a tool that is not voicehook's, as kept.
#[derive(Serialize, Deserialize)]
struct ToolPart {
    name: String,
    args: Obj,
    at: Anchor,
    line: u32,
    span: Span,
    ts: Option<Ms>,
}

/// What a message holds, in order.
#[derive(Serialize, Deserialize)]
enum Part {
    Chat(ChatItem),
    Tool(ToolPart),
    Call(CallItem),
}

/// One message: its id and what it holds, as its last line wrote it.
#[derive(Serialize, Deserialize)]
struct Message {
    id: String,
    parts: Vec<Part>,
}

/// The reader of a session's lines ([`LineReader`]).
#[derive(Serialize, Deserialize)]
pub(crate) struct Reader {
    session: Session,
    /// The messages in the order of their first line.
    messages: Vec<Message>,
    /// Where each id is in `messages`.
    at: HashMap<String, usize>,
}

impl LineReader for Reader {
    fn new(opts: &Options) -> Reader {
        Reader {
            session: Session::new(opts),
            messages: Vec::new(),
            at: HashMap::default(),
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
        for (k, m) in self.messages.into_iter().enumerate() {
            for (j, part) in m.parts.into_iter().enumerate() {
                let item = match part {
                    Part::Chat(c) => Item::Chat(c),
                    Part::Call(c) => Item::Call(c),
                    Part::Tool(t) => Item::Tool(ToolItem {
                        name: t.name,
                        args: Some(Value::Object(t.args)),
                        at: Some(t.at),
                        line: t.line,
                        span: t.span,
                        ts: t.ts,
                    }),
                };
                self.session.push((k, j), item);
            }
        }
        self.session.finish()
    }
}

/// Where a message is: the bytes that hold it (a line, or the whole file
/// of the older layout), its line, and its path in those bytes.
#[derive(Clone, Copy)]
struct Home<'a> {
    src: &'a [u8],
    span: Span,
    no: u32,
    base: Path,
}

impl Reader {
    /// One line, as parsed.
    fn take(&mut self, l: &Line<'_>, v: serde_json::Result<Value>) {
        let v: Value = match v {
            Ok(v) => v,
            Err(e) => {
                let mut p = json::broken(l.raw, l.span.start, &e);
                if e.is_eof() && l.last_line {
                    p.message = "the last line is cut off (the file ends inside it)".into();
                    p.help = Some("the client was probably stopped while writing; the lines before it were read".into());
                }
                self.session.problems.push(p);
                return;
            }
        };
        let Value::Object(o) = v else {
            self.session.problems.push(Problem::new(
                Anchor::bytes(l.span),
                "this line is not a Gemini CLI session line: a session holds one JSON object a line".into(),
                Some("the line was skipped".into()),
            ));
            return;
        };
        let home = Home {
            src: l.raw,
            span: l.span,
            no: l.no,
            base: Path::ROOT,
        };
        self.record(&o, home);
    }

    /// One record, told apart as Gemini CLI tells them when it loads a
    /// session (`loadConversationRecord`).
    fn record(&mut self, o: &Obj, home: Home<'_>) {
        if let Some(id) = o.get("$rewindTo").and_then(Value::as_str) {
            let from = self.at.get(id).copied().unwrap_or(0);
            for m in self.messages.drain(from..) {
                self.at.remove(&m.id);
            }
            return;
        }
        if o.get("id").is_some_and(Value::is_string) {
            self.message(o, home);
            return;
        }
        if let Some(Value::Object(set)) = o.get("$set") {
            self.metadata(set);
            if let Some(Value::Array(all)) = set.get("messages") {
                self.messages.clear();
                self.at.clear();
                let base = home.base.key("$set").key("messages");
                self.messages_of(all, base, home);
            }
            return;
        }
        let text = |k: &str| o.get(k).is_some_and(Value::is_string);
        if text("sessionId") && text("projectHash") {
            self.metadata(o);
            if let Some(Value::Array(all)) = o.get("messages") {
                self.messages_of(all, home.base.key("messages"), home);
            }
        }
    }

    fn messages_of(&mut self, all: &[Value], base: Path, home: Home<'_>) {
        for (i, m) in all.iter().enumerate() {
            if let Value::Object(m) = m {
                if m.get("id").is_some_and(Value::is_string) {
                    self.message(
                        m,
                        Home {
                            base: base.index(i),
                            ..home
                        },
                    );
                }
            }
        }
    }

    /// The session's metadata: whose thread it is.
    fn metadata(&mut self, o: &Obj) {
        match o.get("kind").and_then(Value::as_str) {
            Some("subagent") => self.session.thread = Thread::Subagent,
            Some("main") => self.session.thread = Thread::Main,
            _ => {}
        }
    }

    /// A message, new or written again.
    fn message(&mut self, o: &Obj, home: Home<'_>) {
        let id = o
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let parts = parts(o, home);
        match self.at.get(&id) {
            Some(&k) => self.messages[k].parts = parts,
            None => {
                self.at.insert(id.clone(), self.messages.len());
                self.messages.push(Message { id, parts });
            }
        }
    }
}

/// What a message holds: its text (the user's, or the model's to its
/// user), then the tools the model ran.
fn parts(o: &Obj, home: Home<'_>) -> Vec<Part> {
    let ts = o
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(ts::parse_rfc3339);
    let user = match o.get("type").and_then(Value::as_str) {
        Some("user") => true,
        Some("gemini") => false,
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    let content = home.base.key("content");
    let mut chat = |text: &str, path: Path| {
        if !text.trim().is_empty() {
            out.push(Part::Chat(ChatItem {
                user,
                text: Text::new(text.to_string(), path),
                line: home.no,
                span: home.span,
                ts,
            }));
        }
    };
    match o.get("content") {
        Some(Value::String(s)) => chat(s, content),
        Some(Value::Array(items)) => {
            for (i, it) in items.iter().enumerate() {
                match it {
                    Value::String(s) => chat(s, content.index(i)),
                    Value::Object(p) if p.get("thought") != Some(&Value::Bool(true)) => {
                        if let Some(s) = p.get("text").and_then(Value::as_str) {
                            chat(s, content.index(i).key("text"));
                        }
                    }
                    _ => {}
                }
            }
        }
        Some(Value::Object(p)) => {
            if let Some(s) = p.get("text").and_then(Value::as_str) {
                chat(s, content.key("text"));
            }
        }
        _ => {}
    }
    if !user {
        if let Some(Value::Array(calls)) = o.get("toolCalls") {
            let base = home.base.key("toolCalls");
            for (j, c) in calls.iter().enumerate() {
                if let Value::Object(c) = c {
                    out.extend(tool_call(
                        c,
                        Home {
                            base: base.index(j),
                            ..home
                        },
                        ts,
                    ));
                }
            }
        }
    }
    out
}

/// The server and the tool of an MCP tool's name: `mcp_<server>_<tool>`
/// as Gemini CLI names them (`generateValidName` in
/// `packages/core/src/tools/mcp-tool.ts`), or `mcp__<server>__<tool>`,
/// when the tool is one of voicehook's functions.
pub(crate) fn split_name(name: &str) -> Option<(&str, &str)> {
    if let Some(st) = split_mcp_name(name) {
        return Some(st);
    }
    let rest = name.strip_prefix("mcp_")?;
    FUNCTIONS
        .iter()
        .filter(|f| rest.len() > f.len() + 1 && rest.ends_with(*f))
        .filter(|f| rest.as_bytes()[rest.len() - f.len() - 1] == b'_')
        .max_by_key(|f| f.len())
        .map(|f| {
            let server = &rest[..rest.len() - f.len() - 1];
            (server, &rest[rest.len() - f.len()..])
        })
}

/// One tool call of a model's message.
fn tool_call(c: &Obj, home: Home<'_>, message_ts: Option<Ms>) -> Option<Part> {
    let name = c.get("name").and_then(Value::as_str)?;
    let ts = c
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(ts::parse_rfc3339)
        .or(message_ts);
    let mut problems = Vec::new();
    let args = match c.get("args") {
        None | Some(Value::Null) => Obj::new(),
        Some(Value::Object(a)) => a.clone(),
        Some(_) => {
            problems.push(Problem::new(
                Anchor {
                    span: home.span,
                    path: home.base.key("args"),
                },
                "the arguments of this call are not a JSON object".into(),
                Some("the call was read without its arguments".into()),
            ));
            Obj::new()
        }
    };
    let name_at = Anchor {
        span: home.span,
        path: home.base.key("name"),
    };
    let Some((server, tool)) = split_name(name) else {
        let mut args = args;
        if let Some(cmd) = args.get("command").and_then(session::command_line) {
            args.insert("command".into(), Value::String(cmd));
        }
        return Some(Part::Tool(ToolPart {
            name: name.to_string(),
            args,
            at: name_at,
            line: home.no,
            span: home.span,
            ts,
        }));
    };
    Some(Part::Call(CallItem {
        server: server.to_string(),
        tool: tool.to_string(),
        args,
        args_place: Place::at(home.base.key("args")),
        answer: answer(c, home),
        at: Some(name_at),
        line: home.no,
        span: home.span,
        ts,
        problems,
    }))
}

/// What a tool call got back, from its `status` and `result`.
fn answer(c: &Obj, home: Home<'_>) -> Answer {
    let status = c.get("status").and_then(Value::as_str).unwrap_or("");
    if !matches!(status, "success" | "error") {
        // Cancelled, or not done yet: no answer.
        return Answer::None;
    }
    let Some((text, path)) = output(c, home.base) else {
        return Answer::None;
    };
    let place = session::string_place_in(home.src, home.span.start, path);
    let text = unwrapped(&text);
    if status == "error" {
        return Answer::Error(session::refusal(&refused(&text)), place);
    }
    session::answer_of_text(&text, place)
}

/// The text a tool call's result holds, and its path: the `output` of the
/// `functionResponse` Gemini CLI gives the model
/// (`convertToFunctionResponse`), else the text shown to the user
/// (`resultDisplay`).
fn output(c: &Obj, base: Path) -> Option<(String, Path)> {
    let result = base.key("result");
    let from_part = |p: &Value, at: Path| -> Option<(String, Path)> {
        let out = p.get("functionResponse")?.get("response")?.get("output")?;
        Some((
            out.as_str()?.to_string(),
            at.key("functionResponse").key("response").key("output"),
        ))
    };
    let found = match c.get("result") {
        Some(Value::Array(parts)) => parts
            .iter()
            .enumerate()
            .find_map(|(k, p)| from_part(p, result.index(k))),
        Some(p @ Value::Object(_)) => from_part(p, result),
        Some(Value::String(s)) => Some((s.clone(), result)),
        _ => None,
    };
    found.or_else(|| {
        let s = c.get("resultDisplay")?.as_str()?;
        Some((s.to_string(), base.key("resultDisplay")))
    })
}

/// An MCP server's text as Gemini CLI hands it to the model: inside
/// `<untrusted_context>` markers (`wrapUntrusted`, which escapes a closing
/// marker in the text).
fn unwrapped(text: &str) -> String {
    const OPEN: &str = "<untrusted_context>";
    const CLOSE: &str = "</untrusted_context>";
    let t = text.trim();
    match t.strip_prefix(OPEN).and_then(|r| r.strip_suffix(CLOSE)) {
        Some(inner) => inner.trim().replace("&lt;/untrusted_context&gt;", CLOSE),
        None => t.to_string(),
    }
}

/// The refusal a failed call's output quotes: Gemini CLI reports a server's
/// error result as "MCP tool '<tool>' reported tool error for function
/// call: {..} with response: [..]", the server's answer as JSON at the
/// end; its text blocks are the refusal. Any other failure is its text.
fn refused(text: &str) -> String {
    const MARK: &str = " with response: ";
    let Some(k) = text.rfind(MARK) else {
        return text.to_string();
    };
    let Ok(Value::Array(parts)) = serde_json::from_str::<Value>(&text[k + MARK.len()..]) else {
        return text.to_string();
    };
    let said: Vec<&str> = parts
        .iter()
        .filter_map(|p| p.get("functionResponse")?.get("response")?.get("content"))
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    if said.is_empty() {
        text.to_string()
    } else {
        said.join("\n")
    }
}

/// A session of the older layout: the whole record as one JSON object
/// (written over many lines). `None` when the first line that is not
/// blank is a JSON value by itself (the layout of one record a line).
fn legacy(bytes: &[u8], opts: &Options) -> Option<Parsed> {
    let start = super::bom_len(bytes);
    let first = bytes[start..]
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))?;
    if serde_json::from_slice::<Value>(first).is_ok() {
        return None;
    }
    let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(&bytes[start..]) else {
        return None;
    };
    let starts = json::LineStarts::new(bytes);
    let mut r = Reader::new(opts);
    r.metadata(&o);
    if let Some(Value::Array(all)) = o.get("messages") {
        for (i, m) in all.iter().enumerate() {
            let Value::Object(m) = m else {
                continue;
            };
            if !m.get("id").is_some_and(Value::is_string) {
                continue;
            }
            let at =
                crate::core::locate::locate(&bytes[start..], &Path::ROOT.key("messages").index(i));
            let span = Span::new(start + at.start, start + at.end);
            r.message(
                m,
                Home {
                    src: &bytes[span.start..span.end],
                    span,
                    no: starts.line(span.start),
                    base: Path::ROOT,
                },
            );
        }
    }
    Some(r.finish())
}

/// True when `o`, a file's first JSON value, starts a Gemini CLI session:
/// its metadata (`sessionId` and `projectHash`).
pub(crate) fn is_start(o: &Obj) -> bool {
    let text = |k: &str| o.get(k).is_some_and(Value::is_string);
    text("sessionId") && text("projectHash")
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines as Gemini CLI's chat recording service writes them
    // (packages/core/src/services/chatRecordingService.ts of
    // google-gemini/gemini-cli: `initialize`, `recordMessage`,
    // `recordToolCalls`, `rewindTo`).
    const META: &str = r#"{"sessionId":"5f0e","projectHash":"9c4b","startTime":"2026-10-10T10:00:00.000Z","lastUpdated":"2026-10-10T10:00:00.000Z","kind":"main"}"#;
    const USER: &str = r#"{"id":"u1","timestamp":"2026-10-10T10:00:00.500Z","type":"user","content":[{"text":"Join call c-1 please"}]}"#;
    const JOIN: &str = r#"{"id":"g1","timestamp":"2026-10-10T10:00:01.000Z","type":"gemini","content":"","toolCalls":[{"id":"j1","name":"mcp_voicehook_join","args":{"call_id":"c-1","label":"Kit"},"result":[{"functionResponse":{"id":"j1","name":"mcp_voicehook_join","response":{"output":"<untrusted_context>\n{\"status\":\"joined\",\"call_id\":\"c-1\",\"context\":{\"lang\":\"en\"}}\n</untrusted_context>"}}}],"status":"success","timestamp":"2026-10-10T10:00:02.000Z"}],"model":"gemini-2.5-pro"}"#;
    // The same message written again with a second call added.
    const JOIN_SAY: &str = r#"{"id":"g1","timestamp":"2026-10-10T10:00:01.000Z","type":"gemini","content":"","toolCalls":[{"id":"j1","name":"mcp_voicehook_join","args":{"call_id":"c-1","label":"Kit"},"result":[{"functionResponse":{"id":"j1","name":"mcp_voicehook_join","response":{"output":"<untrusted_context>\n{\"status\":\"joined\",\"call_id\":\"c-1\",\"context\":{\"lang\":\"en\"}}\n</untrusted_context>"}}}],"status":"success","timestamp":"2026-10-10T10:00:02.000Z"},{"id":"s1","name":"mcp_voicehook_say","args":{"text":"Hi all"},"result":[{"functionResponse":{"id":"s1","name":"mcp_voicehook_say","response":{"output":"MCP tool 'say' reported tool error for function call: {\"name\":\"say\",\"args\":{\"text\":\"Hi all\"}} with response: [{\"functionResponse\":{\"name\":\"say\",\"response\":{\"content\":[{\"type\":\"text\",\"text\":\"409 not in a call\"}],\"isError\":true}}}]"}}}],"status":"error","timestamp":"2026-10-10T10:00:03.000Z"},{"id":"r1","name":"run_shell_command","args":{"command":"ls"},"status":"success","timestamp":"2026-10-10T10:00:04.000Z"}]}"#;
    const REPLY: &str = r#"{"id":"g2","timestamp":"2026-10-10T10:00:05.000Z","type":"gemini","content":"Joined the call.","model":"gemini-2.5-pro"}"#;

    fn p(src: &str) -> Parsed {
        parse(src.as_bytes(), &Options::default())
    }

    fn kinds(parsed: &Parsed) -> Vec<String> {
        parsed.logs[0]
            .records
            .iter()
            .map(|r| match &r.body {
                Body::Chat(c) => format!("{}:{}", c.role, c.text.as_ref().unwrap().value),
                Body::Tool(t) => t.name.clone(),
                Body::Fn(f) => format!("{}{}", f.name, if f.error.is_some() { "!" } else { "" }),
                Body::Meta(_) => "meta".into(),
            })
            .collect()
    }

    #[test]
    fn a_message_written_again_keeps_its_place_and_its_last_content() {
        let src = [
            META,
            USER,
            JOIN,
            r#"{"$set":{"lastUpdated":"x"}}"#,
            JOIN_SAY,
            REPLY,
        ]
        .join("\n");
        let parsed = p(&src);
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        assert_eq!(
            kinds(&parsed),
            [
                "user:Join call c-1 please",
                "join",
                "say!",
                "run_shell_command",
                "assistant:Joined the call."
            ]
        );
        let recs = &parsed.logs[0].records;
        // the calls point at the line that wrote them last
        assert_eq!(recs[1].line, 5);
        assert_eq!(recs[1].ts, Some(1_791_626_402_000));
        let join = recs[1].as_fn().unwrap();
        let Op::Join(j) = &join.op else { panic!() };
        let lang = j.context.as_ref().and_then(|c| c.lang.as_ref()).unwrap();
        assert_eq!(&*lang.value, "en");
        assert_eq!(j.status.as_deref(), Some("joined"));
        let say = recs[2].as_fn().unwrap();
        let e = say.error.as_ref().unwrap();
        assert_eq!(e.status, Some(409));
        assert_eq!(e.message.as_deref(), Some("409 not in a call"));
        // the say's text points into its arguments
        let Op::Say(s) = &say.op else { panic!() };
        let t = s.text.as_ref().unwrap();
        let at = crate::core::lines::resolve(
            src.as_bytes(),
            &crate::core::lines::LineIndex::new(src.as_bytes()),
            &recs[2].text(t),
        );
        assert_eq!(&src[at.span.start..at.span.end], "\"Hi all\"");
        assert!(recs.iter().all(|r| *r.thread() == Thread::Main));
    }

    #[test]
    fn rewinds_and_checkpoints_take_messages_out() {
        let rewind = r#"{"$rewindTo":"g2"}"#;
        let src = [META, USER, JOIN, REPLY, rewind].join("\n");
        assert_eq!(kinds(&p(&src)), ["user:Join call c-1 please", "join"]);
        // an id not there takes them all out: nothing of voicehook is left
        let src = [META, USER, JOIN, r#"{"$rewindTo":"nobody"}"#, REPLY].join("\n");
        assert!(p(&src).logs.is_empty());
        // a checkpoint replaces them all
        let set = format!(r#"{{"$set":{{"messages":[{JOIN},{REPLY}]}}}}"#);
        let src = [META, USER, &set].join("\n");
        let parsed = p(&src);
        assert_eq!(kinds(&parsed), ["join", "assistant:Joined the call."]);
        assert_eq!(parsed.logs[0].records[0].line, 3);
    }

    #[test]
    fn a_subagent_session_and_the_older_layout() {
        let sub = META.replace("\"main\"", "\"subagent\"");
        let parsed = p(&[&sub, JOIN].join("\n"));
        assert!(parsed.logs[0]
            .records
            .iter()
            .all(|r| *r.thread() == Thread::Subagent));
        // One object over many lines, as older releases wrote it.
        let v: Value = serde_json::from_str(&format!(
            r#"{{"sessionId":"5f0e","projectHash":"9c4b","startTime":"x","lastUpdated":"x","messages":[{USER},{JOIN},{REPLY}]}}"#
        ))
        .unwrap();
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        assert_eq!(
            super::super::detect("session-2026-10-10T10-00-5f0e.json", pretty.as_bytes()),
            super::super::Format::Session(super::super::Client::Gemini)
        );
        let parsed = p(&pretty);
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        assert_eq!(kinds(&parsed).len(), 3);
        let join = &parsed.logs[0].records[1];
        let line = pretty.lines().nth(join.line as usize - 1).unwrap();
        assert!(line.trim_start().starts_with('{'), "{line}");
    }

    #[test]
    fn broken_lines_and_sessions_without_voicehook() {
        let src = [META, USER, "{\"id\":", REPLY, "[1]"].join("\n");
        let parsed = p(&src);
        assert!(parsed.logs.is_empty());
        let src = [META, JOIN, "{\"id\":\"x\",", "[1]", r#"{"id":"g9","type":"gemini","content":"","toolCalls":[{"id":"q","name":"mcp_voicehook_say","args":"oops","status":"cancelled"}]}"#].join("\n");
        let parsed = p(&src);
        let msgs: Vec<&str> = parsed.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert!(
            msgs[1].contains("not a Gemini CLI session line"),
            "{msgs:?}"
        );
        assert!(msgs[2].contains("not a JSON object"), "{msgs:?}");
        assert_eq!(kinds(&parsed), ["join", "say"]);
    }

    #[test]
    fn names_split_into_server_and_function() {
        assert_eq!(split_name("mcp_voicehook_say"), Some(("voicehook", "say")));
        assert_eq!(
            split_name("mcp_my_calls_create_call"),
            Some(("my_calls", "create_call"))
        );
        assert_eq!(split_name("mcp__vh__join"), Some(("vh", "join")));
        assert_eq!(split_name("mcp_github_create_issue"), None);
        assert_eq!(split_name("voicehook_say"), None);
        assert_eq!(split_name("mcp__say"), None);
    }

    #[test]
    fn a_session_read_in_parts_reads_as_read_whole() {
        let src = [
            META,
            USER,
            JOIN,
            r#"{"$set":{"lastUpdated":"y"}}"#,
            JOIN_SAY,
            REPLY,
            r#"{"$rewindTo":"g2"}"#,
            REPLY,
            "[2]",
        ]
        .join("\n")
            + "\n";
        let src = src.as_bytes();
        let breaks: Vec<usize> = src
            .iter()
            .enumerate()
            .filter(|(k, &b)| b == b'\n' && k + 1 < src.len())
            .map(|(k, _)| k + 1)
            .collect();
        for &cut in &breaks {
            crate::app::harness::check_parts(
                super::super::Format::Session(super::super::Client::Gemini),
                src,
                &[cut],
            )
            .unwrap();
        }
        crate::app::harness::check_parts(
            super::super::Format::Session(super::super::Client::Gemini),
            src,
            &breaks,
        )
        .unwrap();
        let (alone, side_by_side) = session::alone_and_side_by_side(src, parse);
        assert!(alone.contains("Fn("));
        assert!(alone == side_by_side);
    }
}
