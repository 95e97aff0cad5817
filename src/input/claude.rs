//! Claude Code session transcripts (`~/.claude/projects/<project>/<id>.jsonl`,
//! and the files of its subagents): one JSON entry a line, as the client
//! writes them while it works.
//!
//! The entries map onto the records of a native log:
//!
//! - an assistant `tool_use` of the voicehook MCP server (`mcp__<server>__say`,
//!   the server told by [`server::Servers`]) with its `tool_result` (paired
//!   by `tool_use_id`) is a function call: the arguments from `input`, the
//!   answer from the JSON in the result's text, an error when `is_error` is
//!   set. The record is the `tool_use` block and is timed and placed where
//!   the result arrived, as a native log records a call when its answer
//!   comes; a call never answered (a session cut off) stays where it was
//!   sent. Texts of the answer point into the result.
//! - assistant `text` blocks are chat to the agent's own user; the last one
//!   before the user's next message ends the turn. A user entry whose
//!   content is text is the user's chat.
//! - every other `tool_use` (Bash, Edit, Write, Task, SendMessage, other MCP
//!   servers' tools) is a tool run, with its input.
//! - sidechain entries (`isSidechain`) are the subagent's thread, or the
//!   background's when the `Task` that started the agent ran in the
//!   background; a subagent's own conversation with its parent is not chat
//!   with the user, and is left out.
//! - every other entry (progress, system, summaries, attachments, snapshots,
//!   and types to come) is passed over without a finding.
//!
//! A session that never called voicehook yields no log and no finding, so a
//! folder of everyday coding sessions lints quietly. Records carry the call
//! they belong to (the `create_call` or `join` they follow), so a session of
//! several calls is judged call by call.

use crate::core::hash::HashMap;
use std::marker::PhantomData;

use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::json::Place;
use super::server;
use super::session::{self, CallItem, ChatItem, Item, Line, LineReader, Session, Side, ToolItem};
use super::{mcp, ts, Options, Parsed, Problem};
use crate::model::*;

type Obj = Map<String, Value>;

/// The keys of an entry that matter, read in one pass over the line; the
/// rest is skipped unparsed. A line whose `message` has an unexpected shape
/// fails here and is read again by [`Loose`], to say what is wrong.
#[derive(Deserialize)]
struct Entry<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<&'a RawValue>,
    #[serde(borrow, default)]
    timestamp: Option<&'a RawValue>,
    #[serde(rename = "isSidechain", borrow, default)]
    sidechain: Option<&'a RawValue>,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Option<&'a RawValue>,
    #[serde(rename = "isMeta", borrow, default)]
    is_meta: Option<&'a RawValue>,
    #[serde(rename = "isCompactSummary", borrow, default)]
    compact: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<Msg<'a>>,
    #[serde(rename = "toolUseResult", borrow, default)]
    tool_use_result: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Msg<'a> {
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
}

/// A message's content: the user's text, or a list of blocks.
enum Content<'a> {
    Text(String),
    Blocks(Vec<&'a RawValue>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or a list of blocks")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Content<'a>, E> {
                Ok(Content::Text(v.to_string()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Content<'a>, E> {
                Ok(Content::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content<'a>, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element::<&'de RawValue>()? {
                    out.push(b);
                }
                Ok(Content::Blocks(out))
            }
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// An entry read with every key left raw, to say what is wrong with one
/// that [`Entry`] could not read.
#[derive(Deserialize)]
struct Loose<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct LooseMsg<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<&'a RawValue>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_use_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    is_error: Option<&'a RawValue>,
}

/// Where an entry was: its line, time and thread.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct At {
    line: u32,
    ts: Option<Ms>,
    side: Side,
}

/// A `tool_use` block waiting for its result.
#[derive(Serialize, Deserialize)]
struct Use {
    at: At,
    /// The bytes of the block.
    span: Span,
    order: usize,
    name: String,
    input: Obj,
    /// A `Task`/`Agent` that started its agent in the background.
    background: bool,
}

/// A `tool_result` block, read as far as its call needs.
struct Res {
    at: At,
    order: usize,
    answer: Answer,
    is_error: bool,
    /// The agent a `Task` started (`toolUseResult.agentId`).
    spawned: Option<String>,
}

/// The reader of a session's lines ([`LineReader`]).
#[derive(Serialize, Deserialize)]
pub(crate) struct Reader {
    order: usize,
    pending: HashMap<String, Use>,
    session: Session,
}

/// Read a Claude Code session transcript.
pub fn parse(bytes: &[u8], opts: &Options) -> Parsed {
    let mut p = Partial::new(opts);
    p.read(bytes, true);
    p.finish()
}

/// A session read as far as it was written ([`session::Partial`]).
pub(crate) type Partial = session::Partial<Reader>;

impl LineReader for Reader {
    fn new(opts: &Options) -> Reader {
        Reader {
            order: 0,
            pending: HashMap::default(),
            session: Session::new(opts),
        }
    }

    fn line(&mut self, line: Line<'_>) {
        let mut steps = Vec::new();
        read_line(&line, false, &mut steps);
        for s in steps {
            self.apply(s);
        }
    }

    /// Lines parsed side by side (the JSON is most of the cost), their
    /// steps taken in order.
    fn lines(&mut self, lines: &[Line<'_>]) {
        session::in_blocks(
            lines,
            |l, ahead| {
                let mut out = Vec::new();
                read_line(l, ahead, &mut out);
                out
            },
            |steps| steps.into_iter().for_each(|s| self.apply(s)),
        );
    }

    fn finish(mut self) -> Parsed {
        let mut pending: Vec<Use> = std::mem::take(&mut self.pending).into_values().collect();
        pending.sort_by_key(|u| u.order);
        for u in pending {
            self.settle(u, None);
        }
        self.session.finish()
    }
}

/// The string a raw JSON value holds, if it is a string.
fn string(v: Option<&RawValue>) -> Option<String> {
    serde_json::from_str::<String>(v?.get()).ok()
}

fn boolean(v: Option<&RawValue>) -> Option<bool> {
    serde_json::from_str::<bool>(v?.get()).ok()
}

/// The bytes of `raw`, which was read out of `line` (at `base` in the file).
fn span_of(line: &str, base: usize, raw: &RawValue) -> Span {
    let start = (raw.get().as_ptr() as usize)
        .checked_sub(line.as_ptr() as usize)
        .filter(|&o| o + raw.get().len() <= line.len());
    match start {
        Some(o) => Span::new(base + o, base + o + raw.get().len()),
        None => Span::new(base, base + line.len()),
    }
}

fn role_of(kind: Option<&RawValue>) -> Option<&'static str> {
    match kind?.get() {
        "\"user\"" => Some("user"),
        "\"assistant\"" => Some("assistant"),
        _ => None,
    }
}

/// What one line says, read without the reader's state (so on any
/// thread): the steps [`Reader::apply`] takes in order, which are all that
/// depends on the lines before it.
enum Step<'a> {
    Problem(Problem),
    Chat(ChatItem),
    /// A `tool_use` block and its id; its order is given when applied.
    Use(String, Use),
    Result(ResultStep<'a>),
}

/// A `tool_result` block as read. What it answered is read only for an MCP
/// tool's call, which its line does not tell: `answer` holds it when it was
/// read ahead (a list of content items read on another thread), `content`
/// otherwise.
struct ResultStep<'a> {
    at: At,
    span: Span,
    id: String,
    content: Option<&'a RawValue>,
    answer: Option<Answer>,
    is_error: bool,
    /// The entry's `toolUseResult`, read only for a call that started its
    /// agent in the background.
    result: Option<&'a RawValue>,
}

/// Read one line into `out`. With `ahead`, a result's content that has the
/// shape of an MCP tool's answer is read now rather than when it is
/// applied (worth it only where lines are read side by side).
fn read_line<'a>(line: &Line<'a>, ahead: bool, out: &mut Vec<Step<'a>>) {
    let text = match std::str::from_utf8(line.raw) {
        Ok(t) => t,
        Err(e) => {
            let at = line.span.start.saturating_add(e.valid_up_to());
            out.push(Step::Problem(Problem::new(
                Anchor::bytes(Span::new(at, at + e.error_len().unwrap_or(1))),
                "this line is not valid UTF-8".into(),
                Some("a session file is UTF-8 text; this line was skipped".into()),
            )));
            return;
        }
    };
    read_entry(text, line.no, line.span, line.last_entry, ahead, out);
}

fn read_entry<'a>(
    text: &'a str,
    no: u32,
    span: Span,
    is_last: bool,
    ahead: bool,
    out: &mut Vec<Step<'a>>,
) {
    let entry: Entry<'_> = match serde_json::from_str(text) {
        Ok(e) => e,
        Err(e) => {
            if let Some(p) = unreadable(text, span.start, &e, (no == 1, is_last)) {
                out.push(Step::Problem(p));
            }
            return;
        }
    };
    // Everything but user and assistant entries carries no call.
    let Some(role) = role_of(entry.kind) else {
        return;
    };
    let Some(Msg {
        content: Some(content),
    }) = entry.message
    else {
        return;
    };
    let at = At {
        line: no,
        ts: string(entry.timestamp).and_then(|s| ts::parse_rfc3339(&s)),
        side: if boolean(entry.sidechain) == Some(true) {
            Side::Sidechain(string(entry.agent_id).map(String::into_boxed_str))
        } else {
            Side::File
        },
    };
    let chat_ok = at.side == Side::File
        && !(role == "user"
            && (boolean(entry.is_meta) == Some(true) || boolean(entry.compact) == Some(true)));
    let content_at = Path::ROOT.key("message").key("content");
    let blocks = match content {
        Content::Text(s) => {
            // A message typed by the user.
            if chat_ok && !is_command_echo(&s) {
                out.push(chat(&at, span, role, s, content_at));
            }
            return;
        }
        Content::Blocks(b) => b,
    };
    for (i, raw) in blocks.into_iter().enumerate() {
        let Ok(b) = serde_json::from_str::<Block<'_>>(raw.get()) else {
            continue; // not an object: nothing a call is made of
        };
        match b.kind.map(RawValue::get) {
            Some("\"text\"") => {
                let Some(t) = string(b.text).filter(|_| chat_ok) else {
                    continue;
                };
                if role == "user" && is_command_echo(&t) {
                    continue;
                }
                out.push(chat(&at, span, role, t, content_at.index(i).key("text")));
            }
            Some("\"tool_use\"") => {
                tool_use(&b, &at, span_of(text, span.start, raw), out);
            }
            Some("\"tool_result\"") => {
                let Some(id) = string(b.tool_use_id) else {
                    continue;
                };
                let span = span_of(text, span.start, raw);
                let answer = b
                    .content
                    .filter(|c| ahead && c.get().starts_with('['))
                    .map(|c| read_answer(c, span));
                out.push(Step::Result(ResultStep {
                    at: at.clone(),
                    span,
                    id,
                    content: b.content,
                    answer,
                    is_error: boolean(b.is_error) == Some(true),
                    result: entry.tool_use_result,
                }));
            }
            _ => {}
        }
    }
}

/// A line [`Entry`] could not read: broken JSON, or a user or assistant
/// entry whose message has an unexpected shape.
fn unreadable(
    text: &str,
    base: usize,
    e: &serde_json::Error,
    (is_first, is_last): (bool, bool),
) -> Option<Problem> {
    let Ok(loose) = serde_json::from_str::<Loose<'_>>(text) else {
        return Some(broken_line(text, base, e, (is_first, is_last)));
    };
    let role = role_of(loose.kind)?;
    let skipped = || Some("the entry was skipped; the rest of the session was still linted".into());
    let message = loose.message?;
    Some(match serde_json::from_str::<LooseMsg<'_>>(message.get()) {
        Err(_) => Problem::new(
            Anchor::bytes(span_of(text, base, message)),
            format!("the `message` of this {role} entry should be an object"),
            skipped(),
        ),
        Ok(LooseMsg {
            content: Some(content),
        }) => Problem::new(
            Anchor::bytes(span_of(text, base, content)),
            "`message.content` should be a string or a list of blocks".into(),
            skipped(),
        ),
        Ok(_) => Problem::new(
            Anchor::bytes(Span::new(base, base + text.len())),
            format!("this {role} entry could not be read: {e}"),
            skipped(),
        ),
    })
}

/// A `tool_use` block: the call it makes, after the problem of its input
/// if it has one, or the problem that it names no tool or carries no id.
fn tool_use(b: &Block<'_>, at: &At, span: Span, out: &mut Vec<Step<'_>>) {
    let (Some(id), Some(name)) = (string(b.id), string(b.name)) else {
        out.push(Step::Problem(Problem::new(
            Anchor::bytes(span),
            "this `tool_use` has no `id` or no `name`".into(),
            Some(
                "a tool call names its tool and carries an id its result refers to; it was skipped"
                    .into(),
            ),
        )));
        return;
    };
    let input = match b.input.map(|r| serde_json::from_str::<Value>(r.get())) {
        None | Some(Ok(Value::Null)) => Obj::new(),
        Some(Ok(Value::Object(o))) => o,
        Some(_) => {
            out.push(Step::Problem(Problem::new(
                Anchor {
                    span,
                    path: Path::ROOT.key("input"),
                },
                format!(
                    "the `input` of `{}` should be an object",
                    crate::core::escape::one_line(&name)
                ),
                Some("the call's arguments were ignored".into()),
            )));
            Obj::new()
        }
    };
    let background = matches!(name.as_str(), "Task" | "Agent")
        && input.get("run_in_background").and_then(Value::as_bool) == Some(true);
    let call = Use {
        at: at.clone(),
        span,
        order: 0,
        name,
        input,
        background,
    };
    out.push(Step::Use(id, call));
}

/// A message of the user or of the agent to its user.
fn chat(at: &At, span: Span, role: &str, text: String, path: Path) -> Step<'static> {
    Step::Chat(ChatItem {
        user: role == "user",
        text: Text::new(text, path),
        line: at.line,
        span,
        ts: at.ts,
    })
}

/// What a result's `content` answered.
fn read_answer(content: &RawValue, span: Span) -> Answer {
    serde_json::from_str::<Value>(content.get())
        .ok()
        .map(|c| answer(c, span))
        .unwrap_or_default()
}

impl Reader {
    fn next_order(&mut self) -> usize {
        self.order += 1;
        self.order
    }

    /// Take one step of a line, in the order of the lines.
    fn apply(&mut self, step: Step<'_>) {
        match step {
            Step::Problem(p) => self.session.problems.push(p),
            Step::Chat(c) => {
                let order = self.next_order();
                self.session.push((order, 0), Item::Chat(c));
            }
            Step::Use(id, mut u) => {
                u.order = self.next_order();
                if let Some(old) = self.pending.insert(id, u) {
                    // The same id again before a result: the first went unanswered.
                    self.settle(old, None);
                }
            }
            Step::Result(r) => self.tool_result(r),
        }
    }

    fn tool_result(&mut self, r: ResultStep<'_>) {
        // A result whose call is not in the file (a resumed or compacted
        // session starts with one) tells nothing about a call.
        let Some(u) = self.pending.remove(&r.id) else {
            return;
        };
        // Only an MCP tool's answer is read; a file's contents are not.
        let answer = if u.name.starts_with("mcp__") {
            match (r.answer, r.content) {
                (Some(a), _) => a,
                (None, Some(c)) => read_answer(c, r.span),
                (None, None) => Answer::default(),
            }
        } else {
            Answer::default()
        };
        let spawned = if u.background {
            r.result
                .and_then(|r| serde_json::from_str::<Obj>(r.get()).ok())
                .and_then(|o| o.get("agentId")?.as_str().map(str::to_string))
        } else {
            None
        };
        let order = self.next_order();
        let res = Res {
            at: r.at,
            order,
            answer,
            is_error: r.is_error,
            spawned,
        };
        self.settle(u, Some(res));
    }

    /// A call with its result (or none), as an item of the session: a
    /// voicehook call when its server is voicehook, else a tool run.
    fn settle(&mut self, u: Use, r: Option<Res>) {
        if u.background {
            if let Some(a) = r.as_ref().and_then(|r| r.spawned.clone()) {
                self.session.background.insert(a);
            }
        }
        let order = (r.as_ref().map_or(u.order, |r| r.order), 0);
        let ts = r.as_ref().and_then(|r| r.at.ts).or(u.at.ts);
        let at = Some(Anchor {
            span: u.span,
            path: Path::ROOT.key("name"),
        });
        let item = match server::split_mcp_name(&u.name) {
            Some((srv, tool)) => Item::Call(CallItem {
                server: srv.to_string(),
                tool: tool.to_string(),
                args: u.input,
                args_place: Place::at(Path::ROOT.key("input")),
                answer: r.map_or(session::Answer::None, outcome),
                at,
                line: u.at.line,
                span: u.span,
                ts,
                problems: Vec::new(),
            }),
            None => Item::Tool(ToolItem {
                name: u.name,
                args: Some(Value::Object(u.input)),
                at,
                line: u.at.line,
                span: u.span,
                ts,
            }),
        };
        self.session.push_on(order, item, u.at.side);
    }
}

/// What a result answered, read when it arrives.
#[derive(Default)]
struct Answer {
    /// The answer as an object, when the result holds one.
    value: Option<Obj>,
    place: Option<Place>,
    /// The result's first text, for an error's message.
    text: Option<String>,
}

/// The answer in a `tool_result`'s `content` (a JSON text, or a list of
/// MCP content items), the block at `span`.
fn answer(content: Value, span: Span) -> Answer {
    match content {
        Value::String(s) => Answer {
            value: match serde_json::from_str::<Value>(&s) {
                Ok(Value::Object(o)) => Some(o),
                _ => None,
            },
            place: Some(Place {
                path: Path::ROOT.key("content"),
                within: Some(span),
                opaque: true,
            }),
            text: Some(s),
        },
        items @ Value::Array(_) => {
            let mut block = Obj::new();
            block.insert("content".into(), items);
            let (value, place) = mcp::answer_of(&block, Path::ROOT, span);
            Answer {
                value,
                place,
                text: mcp::text_content(&block).map(|(_, s)| s.to_string()),
            }
        }
        _ => Answer::default(),
    }
}

/// What a call's result says: its answer, or the server's refusal.
fn outcome(r: Res) -> session::Answer {
    let a = r.answer;
    let place = a.place.unwrap_or(Place::at(Path::ROOT));
    if r.is_error {
        return session::Answer::Error(mcp::refusal(a.value.as_ref(), a.text), place);
    }
    match a.value {
        Some(v) => session::Answer::Result(v, place),
        None => session::Answer::None,
    }
}

/// The echo of a slash command or its output, which the client stores as a
/// user message: not something the user said.
fn is_command_echo(s: &str) -> bool {
    let t = s.trim_start();
    t.starts_with("<command-name>")
        || t.starts_with("<command-message>")
        || t.starts_with("<local-command-")
}

/// The problem of a line that is no JSON: a session cut off at its end
/// or at its start (a copy of its last lines, the first of them cut) is
/// said as such.
fn broken_line(
    text: &str,
    base: usize,
    e: &serde_json::Error,
    (is_first, is_last): (bool, bool),
) -> Problem {
    let t = text.trim_start();
    if is_first && !t.starts_with('{') && text.trim_end().ends_with('}') {
        let end = text.len().min(200);
        let end = (0..=end)
            .rev()
            .find(|&k| text.is_char_boundary(k))
            .unwrap_or(0);
        return Problem::new(
            Anchor::bytes(Span::new(base, base + end)),
            "the first entry of the session is cut off (the file starts inside it)".into(),
            Some("the file holds the end of a session: this line was skipped, the entries after it were linted".into()),
        );
    }
    if e.is_eof() && is_last {
        let end = text.len();
        return Problem::new(
            Anchor::bytes(Span::new(base + end.saturating_sub(1), base + end)),
            "the last entry of the session is cut off (the file ends inside it)".into(),
            Some(
                "the client probably stopped while writing it; the entries before it were linted"
                    .into(),
            ),
        );
    }
    if e.is_data() && !text.trim_start().starts_with('{') {
        return Problem::new(
            Anchor::bytes(Span::new(base, base + text.len())),
            "a session entry should be a JSON object".into(),
            Some("the line was skipped; the rest of the session was still linted".into()),
        );
    }
    super::json::broken(text.as_bytes(), base, e)
}

/// True when `o`, one line of JSON, is an entry of a Claude Code session.
pub(crate) fn is_entry(o: &Obj) -> bool {
    let Some(kind) = o.get("type").and_then(Value::as_str) else {
        return false;
    };
    let session_keys = ["sessionId", "uuid", "leafUuid", "messageId"];
    !kind.is_empty()
        && !o.contains_key("payload")
        && session_keys.iter().any(|k| o.contains_key(*k))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = r#""uuid":"00000000-0000-4000-8000-000000000001","parentUuid":null,"sessionId":"00000000-0000-4000-8000-0000000000aa","version":"2.1.144","cwd":"/w","userType":"external""#;

    fn entry(kind: &str, ts: &str, side: bool, message: &str, extra: &str) -> String {
        format!(
            r#"{{"type":"{kind}",{HEAD},"timestamp":"{ts}","isSidechain":{side},"message":{message}{extra}}}"#
        )
    }

    fn use_line(ts: &str, id: &str, name: &str, input: &str) -> String {
        entry(
            "assistant",
            ts,
            false,
            &format!(
                r#"{{"role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"{name}","input":{input}}}],"stop_reason":"tool_use"}}"#
            ),
            "",
        )
    }

    fn result_line(ts: &str, id: &str, text: &str, err: bool) -> String {
        let t = serde_json::to_string(text).unwrap();
        entry(
            "user",
            ts,
            false,
            &format!(
                r#"{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":[{{"type":"text","text":{t}}}],"is_error":{err}}}]}}"#
            ),
            "",
        )
    }

    fn parse_str(s: &str) -> Parsed {
        parse(s.as_bytes(), &Options::default())
    }

    #[test]
    fn a_call_pairs_its_use_and_result_and_is_timed_by_the_result() {
        let src = [
            entry(
                "user",
                "2026-10-10T09:00:00.000Z",
                false,
                r#"{"role":"user","content":"Join the call c-1 please"}"#,
                "",
            ),
            use_line(
                "2026-10-10T09:00:01.000Z",
                "toolu_01",
                "mcp__vh__join",
                r#"{"call_id":"c-1","label":"Kit"}"#,
            ),
            result_line(
                "2026-10-10T09:00:02.500Z",
                "toolu_01",
                r#"{"status":"joined","context":{"lang":"en"}}"#,
                false,
            ),
            use_line(
                "2026-10-10T09:00:03.000Z",
                "toolu_02",
                "mcp__vh__say",
                r#"{"text":"Hi, this is Kit."}"#,
            ),
            use_line(
                "2026-10-10T09:00:03.100Z",
                "toolu_03",
                "Bash",
                r#"{"command":"git push"}"#,
            ),
            result_line("2026-10-10T09:00:04.000Z", "toolu_03", "done", false),
            result_line(
                "2026-10-10T09:00:05.000Z",
                "toolu_02",
                r#"{"say_id":"s1","say_status":"queued"}"#,
                false,
            ),
        ]
        .join("\n");
        let p = parse_str(&src);
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        let recs = &p.logs[0].records;
        let kinds: Vec<String> = recs
            .iter()
            .map(|r| match &r.body {
                Body::Fn(f) => format!("fn {}", f.name),
                Body::Tool(t) => format!("tool {}", t.name),
                Body::Chat(c) => format!("chat {}", c.role),
                Body::Meta(_) => "meta".into(),
            })
            .collect();
        // in the order the answers came
        assert_eq!(kinds, ["chat user", "fn join", "tool Bash", "fn say"]);
        let say = &recs[3];
        assert_eq!(say.line, 4, "the record is the tool_use's line");
        assert_eq!(say.ts, ts::parse_rfc3339("2026-10-10T09:00:05.000Z"));
        let Op::Say(s) = &say.as_fn().unwrap().op else {
            panic!()
        };
        assert_eq!(s.say_status.as_deref(), Some("queued"));
        assert_eq!(s.text.as_ref().unwrap().path.to_string(), "input.text");
        // every record carries the call it belongs to, the first chat too
        assert!(recs.iter().all(|r| r.call() == Some("c-1")));
        // the span of the call is its tool_use block
        let line4 = src.lines().nth(3).unwrap();
        let block = &src[say.span.start..say.span.end];
        assert!(block.starts_with(r#"{"type":"tool_use""#) && line4.contains(block));
    }

    #[test]
    fn errors_sidechains_and_quiet_sessions() {
        let src = [
            use_line("2026-10-10T09:00:01.000Z", "toolu_01", "mcp__voicehook__join", r#"{"call_id":"c-1","label":"a-label-far-longer-than-allowed"}"#),
            result_line("2026-10-10T09:00:01.500Z", "toolu_01", "422 label longer than 22 characters", true),
            entry("assistant", "2026-10-10T09:00:02.000Z", true, r#"{"role":"assistant","content":[{"type":"tool_use","id":"toolu_09","name":"mcp__voicehook__create_call","input":{"lang":"en"}}]}"#, r#","agentId":"a1""#),
        ]
        .join("\n");
        let p = parse_str(&src);
        let recs = &p.logs[0].records;
        let e = recs[0].as_fn().unwrap().error.as_ref().unwrap();
        assert_eq!(e.status, Some(422));
        assert_eq!(*recs[1].thread(), Thread::Subagent);
        // a coding session without voicehook: no log, no finding, even
        // when its last line is cut off
        let quiet = [
            use_line(
                "2026-10-10T09:00:01.000Z",
                "toolu_01",
                "Bash",
                r#"{"command":"ls"}"#,
            ),
            r#"{"type":"assistant","message":{"content":[{"type":"te"#.to_string(),
        ]
        .join("\n");
        let p = parse_str(&quiet);
        assert!(p.logs.is_empty() && p.problems.is_empty());
    }

    #[test]
    fn a_speech_server_is_not_voicehook() {
        let src = [
            use_line(
                "2026-10-10T09:00:01.000Z",
                "toolu_01",
                "mcp__tts__say",
                r#"{"text":"hello"}"#,
            ),
            result_line(
                "2026-10-10T09:00:02.000Z",
                "toolu_01",
                r#"{"ok":true}"#,
                false,
            ),
        ]
        .join("\n");
        assert!(parse_str(&src).logs.is_empty());
    }

    #[test]
    fn a_session_read_in_parts_reads_as_read_whole() {
        // The state between parts goes through serde, as the guard keeps
        // it between runs.
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/seed-incident-claude");
        for file in ["claude.jsonl", "opencode.jsonl", "promo.jsonl"] {
            let mut src = std::fs::read(dir.join(file)).unwrap();
            // a line that is no UTF-8 and one that is no JSON, mid-session
            let mid = src.len() / 2;
            let at = mid + src[mid..].iter().position(|&b| b == b'\n').unwrap() + 1;
            src.splice(at..at, b"{\"type\":\"user\",\xff}\n[1]\n".iter().copied());
            let whole = format!("{:?}", parse(&src, &Options::default()));
            let breaks: Vec<usize> = src
                .iter()
                .enumerate()
                .filter(|(_, &b)| b == b'\n')
                .map(|(k, _)| k + 1)
                .collect();
            for &cut in &breaks {
                let mut p = Partial::new(&Options::default());
                p.read(&src[..cut], false);
                let kept = serde_json::to_vec(&p).unwrap();
                let mut p: Partial = serde_json::from_slice(&kept).unwrap();
                assert_eq!(p.bytes(), cut);
                p.read(&src[cut..], true);
                let parts = format!("{:?}", p.finish());
                assert!(parts == whole, "{file} cut at byte {cut}");
            }
        }
    }

    #[test]
    fn lines_read_side_by_side_read_as_one_by_one() {
        // The seed's sessions, with the steps only some entries take (a
        // background agent's result, an MCP answer given as a string, an
        // input that is no object, a broken line), over and over until the
        // reader reads them in several blocks on two threads.
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/seed-incident-claude");
        let mut one = Vec::new();
        for file in ["claude.jsonl", "opencode.jsonl", "promo.jsonl"] {
            one.extend(std::fs::read(dir.join(file)).unwrap());
        }
        let extra = [
            use_line(
                "2026-10-10T10:00:00Z",
                "t1",
                "Task",
                r#"{"run_in_background":true}"#,
            ),
            entry(
                "user",
                "2026-10-10T10:00:01Z",
                false,
                r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"started"}]}]}"#,
                r#","toolUseResult":{"agentId":"a7","status":"async_launched"}"#,
            ),
            entry(
                "assistant",
                "2026-10-10T10:00:01Z",
                true,
                r#"{"role":"assistant","content":[{"type":"tool_use","id":"t4","name":"mcp__voicehook__say","input":{"text":"Done."}}]}"#,
                r#","agentId":"a7""#,
            ),
            use_line("2026-10-10T10:00:02Z", "t2", "mcp__voicehook__next", "{}"),
            entry(
                "user",
                "2026-10-10T10:00:03Z",
                false,
                r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"{\"type\":\"timeout\"}"}]}"#,
                "",
            ),
            use_line("2026-10-10T10:00:04Z", "t3", "mcp__voicehook__say", "[1]"),
            "{\"type\":\"user\",".to_string(),
        ];
        for l in extra {
            one.extend(l.as_bytes());
            one.push(b'\n');
        }
        let (alone, side_by_side) = session::alone_and_side_by_side(&one, parse);
        assert!(alone.contains("Background") && alone.contains("timeout"));
        assert!(alone == side_by_side);
    }

    #[test]
    fn hostile_lines_never_panic() {
        for src in [
            "",
            "{}",
            "[]",
            "5",
            "{\"type\":\"user\"}",
            "{\"type\":\"user\",\"message\":5}",
            "{\"type\":\"user\",\"message\":{\"content\":5}}",
            "{\"type\":\"assistant\",\"message\":{\"content\":[5,{\"type\":\"tool_use\"}]}}",
            "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"mcp__v__next\",\"input\":[]}]}}\n{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t\",\"content\":\"{\\\"type\\\":\\\"user\\\",\\\"operators_said\\\":5}\"}]}}",
            "{\"type\":\"user\",\"type\":\"user\"}",
            "\u{feff}{\"type\":\"user\"}",
        ] {
            let _ = parse_str(src);
        }
        let deep = format!(
            "{{\"type\":\"user\",\"message\":{}{}}}",
            "[".repeat(50_000),
            "]".repeat(50_000)
        );
        assert_eq!(parse_str(&deep).problems.len(), 0);
    }
}
