//! What was recorded: a [`Log`] of [`Record`]s, each a function call with
//! its arguments and answer, a message to the agent's own user, or another
//! tool it ran, with the bytes it was read from.

use serde::{Deserialize, Serialize};

use std::sync::Arc;

use crate::core::name::Name;
use crate::core::span::{Anchor, Ms, Path, Span};

/// A text value of a record with the path it was read from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Text {
    /// Boxed to its length: a log holds a text for nearly every line.
    pub value: Box<str>,
    /// Path of the value inside the JSON text it came from.
    pub path: Path,
    /// The bytes that JSON text covers, when it is not the record's own
    /// (an MCP call's arguments are on its request line, its result on the
    /// response line; a transcript's text is part of its line). Boxed: a
    /// native log, the most of what is read, never has it.
    pub within: Option<Box<Span>>,
}

/// A text reads as the string it holds.
impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.value
    }
}

impl Text {
    /// A text at `path` inside its record.
    pub fn new(value: String, path: Path) -> Text {
        Text {
            value: value.into_boxed_str(),
            path,
            within: None,
        }
    }

    /// A text whose value is exactly the bytes `span` (no JSON path).
    pub fn at_bytes(value: String, span: Span) -> Text {
        Text {
            value: value.into_boxed_str(),
            path: Path::ROOT,
            within: Some(Box::new(span)),
        }
    }

    /// A text at `path` inside the JSON text that `span` covers.
    pub fn inside(value: String, path: Path, span: Span) -> Text {
        Text {
            value: value.into_boxed_str(),
            path,
            within: Some(Box::new(span)),
        }
    }

    /// The bytes of the JSON text the value is in, when not its record's.
    pub fn within(&self) -> Option<Span> {
        self.within.as_deref().copied()
    }

    pub fn as_str(&self) -> &str {
        &self.value
    }
}

/// Which thread of the recording client made a record.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Thread {
    #[default]
    Main,
    Subagent,
    Fork,
    Background,
    Other(String),
}

impl Thread {
    pub fn parse(s: &str) -> Thread {
        match s {
            "main" => Thread::Main,
            "subagent" => Thread::Subagent,
            "fork" => Thread::Fork,
            "background" => Thread::Background,
            other => Thread::Other(other.to_string()),
        }
    }
    pub fn name(&self) -> &str {
        match self {
            Thread::Main => "main",
            Thread::Subagent => "subagent",
            Thread::Fork => "fork",
            Thread::Background => "background",
            Thread::Other(s) => s,
        }
    }
}

/// Everything read from one input file.
#[derive(Debug, Default)]
pub struct Log {
    pub meta: Option<Meta>,
    pub records: Vec<Record>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub format: Option<i64>,
    pub recorder: Option<String>,
    pub client: Option<String>,
    pub human: Option<String>,
    pub voicebot: Option<String>,
}

/// One recorded line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    /// 1-based line number of the record in its file.
    pub line: u32,
    /// The bytes of the record (one line for native logs).
    pub span: Span,
    pub ts: Option<Ms>,
    /// The agent, call and thread the record names, shared: most records
    /// name none, or the same as the record before them (a log is one
    /// agent's, of one call, from its main thread) ([`Origins`]).
    pub origin: Option<Arc<Origin>>,
    pub body: Body,
}

// A log is hundreds of thousands of records.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Record>() <= 88);

/// Who made a record, in which call, from which thread: the keys `agent`,
/// `call` and `thread`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Origin {
    pub agent: Option<Name>,
    pub call: Option<Name>,
    pub thread: Thread,
}

/// Name the call of each record of a log whose records do not name it:
/// the call the last record before it started ([`Record::starts_call`]),
/// those before the first to the first. A log without a `join` or
/// `create_call` that names its call is left as it is.
pub fn name_calls(records: &mut [Record]) {
    let mut names = crate::core::name::Interner::default();
    let mut origins = Origins::default();
    let mut call: Option<Name> = records
        .iter()
        .find_map(Record::starts_call)
        .map(|id| names.name(id));
    for r in records.iter_mut() {
        if let Some(id) = r.starts_call() {
            call = Some(names.name(id));
        }
        if call.is_some() {
            let agent = r.origin.as_ref().and_then(|o| o.agent.clone());
            r.origin = origins.of(agent, call.clone(), r.thread().clone());
        }
    }
}

/// The origins of a log's records, each shared by the records in a row
/// that name the same agent, call and thread: one allocation for a run of
/// them, where a log of one call names it on every line.
#[derive(Debug, Default)]
pub struct Origins {
    last: Option<Arc<Origin>>,
}

impl Origins {
    /// The origin naming `agent`, `call` and `thread`: `None` when it
    /// names nothing but the main thread, the last one made when it is
    /// the same.
    pub fn of(
        &mut self,
        agent: Option<Name>,
        call: Option<Name>,
        thread: Thread,
    ) -> Option<Arc<Origin>> {
        if agent.is_none() && call.is_none() && thread == Thread::Main {
            return None;
        }
        if let Some(o) = &self.last {
            if o.agent == agent && o.call == call && o.thread == thread {
                return Some(o.clone());
            }
        }
        let o = Arc::new(Origin {
            agent,
            call,
            thread,
        });
        self.last = Some(o.clone());
        Some(o)
    }
}

/// The thread of a record that names none.
static MAIN: Thread = Thread::Main;

impl Record {
    /// A record of the main thread with no time, agent or call id.
    pub fn new(line: u32, span: Span, body: Body) -> Record {
        Record {
            line,
            span,
            ts: None,
            origin: None,
            body,
        }
    }

    /// This record, made by `agent` in `call` from `thread`.
    pub fn from(self, agent: Option<Name>, call: Option<Name>, thread: Thread) -> Record {
        self.from_origin(Origins::default().of(agent, call, thread))
    }

    /// This record, of `origin` ([`Origins::of`]).
    pub fn from_origin(mut self, origin: Option<Arc<Origin>>) -> Record {
        self.origin = origin;
        self
    }

    /// The id of the call this record starts, in a reader whose records
    /// do not name their call: a `create_call`'s answer, a `join`'s
    /// argument. Each record of such a log belongs to the call of the last
    /// record before it that starts one (those before the first, to the
    /// first).
    pub fn starts_call(&self) -> Option<&str> {
        let f = self.as_fn()?;
        match &f.op {
            Op::CreateCall(c) if f.ok() => c.call_id.as_deref(),
            Op::Join(j) => j.call_id.as_deref(),
            _ => None,
        }
    }

    /// Say which call the record belongs to.
    pub fn set_call(&mut self, call: Name) {
        Arc::make_mut(self.origin.get_or_insert_with(Default::default)).call = Some(call);
    }

    /// The label of the agent that recorded this record, if it names one.
    pub fn agent(&self) -> Option<&str> {
        self.origin.as_ref()?.agent.as_deref()
    }
    /// The call id the record names.
    pub fn call(&self) -> Option<&str> {
        self.origin.as_ref()?.call.as_deref()
    }
    /// The thread of the client that made the record.
    pub fn thread(&self) -> &Thread {
        self.origin.as_ref().map_or(&MAIN, |o| &o.thread)
    }

    /// An anchor on the value at `path` inside this record.
    pub fn at(&self, path: Path) -> Anchor {
        Anchor {
            span: self.span,
            path,
        }
    }
    /// An anchor on a text value of this record.
    pub fn text(&self, t: &Text) -> Anchor {
        Anchor {
            span: t.within().unwrap_or(self.span),
            path: t.path,
        }
    }
    /// Where a finding about this record points when it names `a`, a place
    /// of the record: `a` when it lies in the record's own bytes (a native
    /// log's line holds a call and its answer), else the record's head. A
    /// client's session keeps a call's answer in an entry of its own, after
    /// the call's; a finding about the call points at the call there too, so
    /// that it is at the same record in every shape of the log.
    pub fn on_record(&self, a: Anchor) -> Anchor {
        if a.span.start >= self.span.start && a.span.end <= self.span.end {
            a
        } else {
            self.head()
        }
    }
    /// The anchor a finding about the whole record points at: the value
    /// naming what the record is (`fn`, `chat`, `tool`).
    pub fn head(&self) -> Anchor {
        if let Body::Tool(t) = &self.body {
            if let Some(at) = t.at {
                return at;
            }
        }
        let key = match &self.body {
            Body::Fn(_) => "fn",
            Body::Chat(_) => "chat",
            Body::Tool(_) => "tool",
            Body::Meta(_) => "meta",
        };
        self.at(Path::ROOT.key(key))
    }
    pub fn as_fn(&self) -> Option<&FnCall> {
        match &self.body {
            Body::Fn(f) => Some(f),
            _ => None,
        }
    }
    pub fn is_main(&self) -> bool {
        *self.thread() == Thread::Main
    }
}

/// What a record is. Every variant but the function call is boxed: a log
/// is mostly function calls, which keep their payload in [`Op`]'s boxes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Body {
    Meta(Box<Meta>),
    Fn(FnCall),
    Chat(Box<Chat>),
    Tool(Box<Tool>),
}

/// A voicehook function call with its outcome.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FnCall {
    pub name: Name,
    pub op: Op,
    pub error: Option<Box<ApiError>>,
}

impl FnCall {
    /// A call of `name` that the server answered without an error.
    pub fn new(name: &str, op: Op) -> FnCall {
        FnCall {
            name: name.into(),
            op,
            error: None,
        }
    }

    pub fn ok(&self) -> bool {
        self.error.is_none()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApiError {
    pub status: Option<i64>,
    pub message: Option<String>,
}

/// What a function call did, per function. Unknown functions are `Other`.
/// Payloads are boxed so that a record costs what it holds: a log has
/// hundreds of thousands of records of very different sizes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Op {
    CreateCall(Box<CreateCall>),
    Join(Box<Join>),
    Next(Option<Box<Event>>),
    Say(Box<Say>),
    Status(Box<Board>),
    Activity(Option<Box<Text>>),
    Decide(Box<Decide>),
    /// The panel shown (boxed: a string is three words).
    Show(Option<Box<String>>),
    Share(Option<Box<Text>>),
    Notice(Option<Box<Text>>),
    Leave,
    Other,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CreateCall {
    pub lang: Option<String>,
    pub title: Option<String>,
    pub call_id: Option<String>,
    pub link: Option<String>,
    pub share_text: Option<Text>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Greet {
    Flag(bool),
    Text(Text),
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Join {
    pub call_id: Option<String>,
    pub label: Option<Text>,
    pub emoji: Option<String>,
    pub greet: Option<Greet>,
    pub quiet: Option<bool>,
    pub status: Option<String>,
    pub context: Option<Context>,
    pub role: Option<Role>,
}

impl Join {
    /// The join went through and the agent is in the call.
    pub fn joined(&self) -> bool {
        self.status.as_deref() != Some("waiting_for_human")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    Owner,
    Participant,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Context {
    pub lang: Option<Text>,
    pub mode: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Say {
    pub text: Option<Text>,
    pub say_id: Option<String>,
    pub say_status: Option<String>,
    pub reason: Option<String>,
}

/// A board: the arguments of `status`, or a board payload.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Board {
    pub label: Option<Text>,
    /// `None` when the key is absent (or null).
    pub emoji: Option<Text>,
    pub doing: Option<Text>,
    pub open: Vec<Text>,
    pub done: Vec<Text>,
    /// For `status`: the names its answer listed (`peers`, `operators`).
    pub listed: Vec<Text>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Decide {
    pub question: Option<Text>,
    /// `None` when no `options` were given.
    pub options: Option<Vec<Text>>,
    pub decision_id: Option<String>,
}

/// The result of `next`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Event {
    pub kind: EventKind,
    /// Boxed to their length: a long call has a list of each per event.
    pub operators_said: Box<[Line]>,
    pub agent_said: Box<[Line]>,
}

impl Event {
    /// An event of `kind` that carries no other lines.
    pub fn new(kind: EventKind) -> Event {
        Event {
            kind,
            operators_said: Box::default(),
            agent_said: Box::default(),
        }
    }
}

impl Op {
    /// A `next` call that returned `ev`.
    pub fn next(ev: Event) -> Op {
        Op::Next(Some(Box::new(ev)))
    }
}

/// The event types a `next` answers with (docs/formats.md: events).
pub const EVENT_TYPES: &[&str] = &[
    "user",
    "timeout",
    "operator",
    "revise",
    "context",
    "decision",
    "status_request",
    "waiting_for_human",
];

/// What kind of event `next` returned. The payloads are boxed: a long call
/// is mostly `timeout` events, which carry none.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum EventKind {
    User(Box<Line>),
    Timeout,
    Operator(Box<Line>),
    Revise(Box<Revise>),
    Context(Box<Context>),
    Decision(Box<Decision>),
    StatusRequest,
    WaitingForHuman,
    Other(Box<str>),
}

/// A `revise` event: the server dropped or changed one of the agent's says.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Revise {
    pub say_id: Option<String>,
    pub reason: Option<String>,
    pub text: Option<Text>,
}

/// A `decision` event: the human answered one of the agent's `decide`s.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Decision {
    pub decision_id: Option<String>,
    pub answer: Option<Text>,
}

impl EventKind {
    pub fn name(&self) -> &str {
        match self {
            EventKind::User(_) => "user",
            EventKind::Timeout => "timeout",
            EventKind::Operator(_) => "operator",
            EventKind::Revise(_) => "revise",
            EventKind::Context(_) => "context",
            EventKind::Decision(_) => "decision",
            EventKind::StatusRequest => "status_request",
            EventKind::WaitingForHuman => "waiting_for_human",
            EventKind::Other(s) => s,
        }
    }
}

/// A spoken line as a recorder reports it: the human's turn in a `user`
/// event, another agent's line in an `operator` event or `operators_said`,
/// Delta's line in `agent_said`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Line {
    pub speaker: Option<Name>,
    pub text: Option<Text>,
    pub ts: Option<Ms>,
    pub addressed_to: Option<Box<[Name]>>,
    pub addressed_to_you: Option<bool>,
    pub to_human: Option<bool>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Chat {
    pub role: String,
    pub text: Option<Text>,
    pub turn_end: bool,
}

impl Chat {
    pub fn is_assistant(&self) -> bool {
        self.role == "assistant"
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub args: Option<serde_json::Value>,
    /// Where the tool's name is, when not at the record's `tool` key (an
    /// agent client's session file names its tools in its own places).
    pub at: Option<Anchor>,
}

// ---------------------------------------------------------------------------
// The room, derived from a log.

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_in_a_row_of_one_origin_share_it() {
        let mut origins = Origins::default();
        let (a, c): (Name, Name) = ("Ann".into(), "c-1".into());
        let first = origins
            .of(Some(a.clone()), Some(c.clone()), Thread::Main)
            .unwrap();
        let again = origins
            .of(Some(a.clone()), Some(c.clone()), Thread::Main)
            .unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        let other = origins
            .of(Some(a.clone()), Some(c.clone()), Thread::Subagent)
            .unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(
            (other.agent.as_deref(), other.call.as_deref()),
            (Some("Ann"), Some("c-1"))
        );
        assert_eq!(other.thread, Thread::Subagent);
        assert!(origins.of(None, None, Thread::Main).is_none());
        // Naming another call changes only the record it is set on.
        let mut r = Record::new(1, Span::new(0, 1), Body::Meta(Box::default()))
            .from_origin(Some(first.clone()));
        r.set_call("c-2".into());
        assert_eq!((r.agent(), r.call()), (Some("Ann"), Some("c-2")));
        assert_eq!(first.call.as_deref(), Some("c-1"));
    }
}
