//! Tool calls and their answers, paired, for the inputs that record MCP
//! traffic in shapes other than a trace's JSON-RPC lines: client logs,
//! recording proxies, the Inspector's history, the two halves of a `tee`.
//!
//! Each reader finds the messages of its shape and says where each one is
//! (a [`Site`]); this module reads a `tools/call` request into a pending
//! [`Call`], pairs it with its answer (by id, or in order for recorders
//! that keep no ids) and makes the pair one function record, exactly as
//! the MCP trace reader does ([`super::mcp`]): the record is the request,
//! the texts of the answer point into the answer.

use crate::core::hash::HashMap;
use std::collections::VecDeque;

use serde_json::{Map, Value};

use super::json::{Place, Places};
use super::mcp::{answer_of, refusal, text_content};
use super::{native, Problem};
use crate::model::*;

pub(crate) type Obj = Map<String, Value>;

/// Where a message is: its line, the bytes of the JSON text holding it,
/// the path of the message in that text, and when it was written.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Site {
    pub line: u32,
    pub span: Span,
    /// Where the message is in its span: `<json>` (a step into the JSON
    /// text a string holds) when the message is itself inside a string, as
    /// the Inspector keeps each message.
    pub at: Path,
    pub ts: Option<Ms>,
}

impl Site {
    /// The place of the value at `path` (a path from the JSON text's root).
    fn place(&self, path: Path) -> Place {
        Place {
            path,
            within: Some(self.span),
            opaque: false,
        }
    }
}

/// A `tools/call` request waiting for its answer.
pub(crate) struct Call {
    site: Site,
    name: String,
    arguments: Obj,
    /// Where the record goes among the others when it is never answered.
    pub order: usize,
}

impl Call {
    fn args_place(&self) -> Place {
        Place::at(self.site.at.key("params").key("arguments"))
    }
}

/// Read a `tools/call` request (`params.name`, `params.arguments`) at
/// `site`. `tool`, when given, names the tool instead of `params.name` (a
/// recorder's own field, without the prefix it adds). A request that
/// names no tool is a problem and no call.
pub(crate) fn call(
    m: &Obj,
    site: Site,
    tool: Option<&str>,
    order: usize,
    problems: &mut Vec<Problem>,
) -> Option<Call> {
    let params_at = site.at.key("params");
    let anchor = |path: Path| Anchor {
        span: site.span,
        path,
    };
    let params = match m.get("params") {
        Some(Value::Object(p)) => Some(p),
        None | Some(Value::Null) if tool.is_some() => None,
        _ => {
            problems.push(Problem::new(
                anchor(params_at),
                "this `tools/call` has no `params` object".into(),
                Some(
                    "a tool call names the tool in `params.name` and sends `params.arguments`"
                        .into(),
                ),
            ));
            return None;
        }
    };
    let name = match (params.and_then(|p| p.get("name")), tool) {
        (_, Some(t)) => t,
        (Some(Value::String(s)), None) => s.as_str(),
        _ => {
            problems.push(Problem::new(
                anchor(params_at.key("name")),
                "this `tools/call` names no tool: `params.name` should be a string".into(),
                Some("the call was skipped".into()),
            ));
            return None;
        }
    };
    let arguments = match params.and_then(|p| p.get("arguments")) {
        None | Some(Value::Null) => Obj::new(),
        Some(Value::Object(a)) => a.clone(),
        Some(_) => {
            problems.push(Problem::new(
                anchor(params_at.key("arguments")),
                "`params.arguments` should be an object".into(),
                Some("the arguments were ignored".into()),
            ));
            Obj::new()
        }
    };
    Some(Call {
        site,
        name: super::server::function_name(name).to_string(),
        arguments,
        order,
    })
}

/// What answered a call.
#[derive(Clone, Copy)]
pub(crate) enum Reply<'a> {
    /// A JSON-RPC response: `result` or `error`.
    Rpc(&'a Obj),
    /// The tool's result itself (`content`, `structuredContent`,
    /// `isError`), as recorders that keep no JSON-RPC frame write it.
    Result(&'a Obj),
}

impl Reply<'_> {
    /// The tool's answer as an object, when it has one: what
    /// [`super::server`] tells the voicehook server by.
    pub fn answer(&self) -> Option<Obj> {
        let r = match self {
            Reply::Rpc(m) => m.get("result")?.as_object()?,
            Reply::Result(r) => r,
        };
        answer_of(r, Path::ROOT, Span::default()).0
    }
}

fn record(call: &Call, ts: Option<Ms>, f: FnCall) -> Record {
    Record {
        ts,
        ..Record::new(call.site.line, call.site.span, Body::Fn(f))
    }
}

/// A call whose answer is not in the input.
pub(crate) fn unanswered(call: Call, problems: &mut Vec<Problem>) -> Record {
    let mut obj = Obj::new();
    obj.insert("args".into(), Value::Object(call.arguments.clone()));
    let mut found = Vec::new();
    let mut f = native::read_fn_call(&call.name, obj, call.site.span, &mut found);
    let args = call.args_place();
    let places = Places {
        args,
        result: args,
        error: args,
    };
    places.relocate(&mut f.op);
    places.relocate_problems(call.site.span, &mut found);
    problems.extend(found);
    record(&call, call.site.ts, f)
}

/// A call with its answer, at `site`.
pub(crate) fn answered(
    call: Call,
    reply: Reply<'_>,
    site: Site,
    problems: &mut Vec<Problem>,
) -> Record {
    let mut obj = Obj::new();
    obj.insert("args".into(), Value::Object(call.arguments.clone()));
    let (r, result_at) = match reply {
        Reply::Rpc(m) => match (m.get("result"), m.get("error")) {
            (_, Some(Value::Object(e))) => {
                let status = e
                    .get("data")
                    .and_then(|d| d.get("status"))
                    .and_then(Value::as_i64)
                    .or_else(|| {
                        e.get("code")
                            .and_then(Value::as_i64)
                            .filter(|c| (100..600).contains(c))
                    });
                let error = ApiError {
                    status,
                    message: e.get("message").and_then(Value::as_str).map(str::to_string),
                };
                let place = site.place(site.at.key("error"));
                return made(call, obj, Some(error), Some(place), site, problems);
            }
            (Some(Value::Object(r)), _) => (r, site.at.key("result")),
            (_, e) => {
                let key = if e.is_some() { "error" } else { "result" };
                problems.push(Problem::new(
                    Anchor {
                        span: site.span,
                        path: site.at.key(key),
                    },
                    format!("`{key}` of this response should be an object"),
                    Some("the answer was ignored".into()),
                ));
                return made(call, obj, None, None, site, problems);
            }
        },
        Reply::Result(r) => (r, site.at),
    };
    let (answer, place) = answer_of(r, result_at, site.span);
    let place = match place {
        Some(p) => Some(p),
        None => Some(site.place(result_at)),
    };
    if r.get("isError").and_then(Value::as_bool) == Some(true) {
        let text = text_content(r).map(|(_, s)| s.to_string());
        let error = refusal(answer.as_ref(), text);
        return made(call, obj, Some(error), place, site, problems);
    }
    if let Some(a) = answer {
        obj.insert("result".into(), Value::Object(a));
    }
    made(call, obj, None, place, site, problems)
}

fn made(
    call: Call,
    obj: Obj,
    error: Option<ApiError>,
    place: Option<Place>,
    site: Site,
    problems: &mut Vec<Problem>,
) -> Record {
    let mut found = Vec::new();
    let mut f = native::read_fn_call(&call.name, obj, call.site.span, &mut found);
    f.error = error.map(Box::new);
    let fallback = site.place(site.at);
    let here = place.unwrap_or(fallback);
    let places = Places {
        args: call.args_place(),
        result: here,
        error: here,
    };
    places.relocate(&mut f.op);
    places.relocate_problems(call.site.span, &mut found);
    problems.extend(found);
    record(&call, site.ts.or(call.site.ts), f)
}

/// Calls waiting for their answers, and the records made so far.
#[derive(Default)]
pub(crate) struct Pairing {
    by_id: HashMap<String, Call>,
    /// Calls of recorders that keep no ids, in the order they were made.
    queue: VecDeque<Call>,
    /// Ids of every request seen, of any method: an answer to one of them
    /// that is no tool call's is passed over quietly.
    asked: crate::core::hash::HashSet<String>,
    out: Vec<(usize, Record)>,
    pub problems: Vec<Problem>,
    /// What each call looked like (tool, arguments, answer), for telling
    /// which server is voicehook ([`super::server`]).
    pub evidence: Vec<Evidence>,
}

/// One call as [`super::server::Servers::note`] takes it: the tool, its
/// arguments, its answer.
pub(crate) type Evidence = (String, Value, Option<Value>);

/// The id of a message, as a key (`1` and `"1"` differ, as in JSON-RPC).
pub(crate) fn id_of(m: &Obj) -> Option<String> {
    m.get("id").filter(|v| !v.is_null()).map(Value::to_string)
}

/// What an answer was to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Answered {
    /// A tool call, now a record.
    Call,
    /// A request of another method (`initialize`, `tools/list`).
    Other,
    /// No request in the input.
    Nothing,
}

impl Pairing {
    /// Note a request of another method than `tools/call`, with its id.
    pub fn asked(&mut self, id: Option<String>) {
        if let Some(id) = id {
            self.asked.insert(id);
        }
    }

    /// A `tools/call` request, with its id when it has one.
    pub fn request(&mut self, id: Option<String>, call: Call) {
        match id {
            Some(id) => {
                self.asked.insert(id.clone());
                if let Some(old) = self.by_id.insert(id, call) {
                    // The id was used again before an answer came.
                    self.left(old);
                }
            }
            None => self.queue.push_back(call),
        }
    }

    fn note(&mut self, call: &Call, answer: Option<Obj>) {
        self.evidence.push((
            call.name.clone(),
            Value::Object(call.arguments.clone()),
            answer.map(Value::Object),
        ));
    }

    fn left(&mut self, call: Call) {
        let order = call.order;
        self.note(&call, None);
        let rec = unanswered(call, &mut self.problems);
        self.out.push((order, rec));
    }

    /// An answer at `site`: to the call with `id`, or, without an id, to
    /// the oldest waiting call of `tool` (of any tool, when not named). An answer
    /// shaped like a tool's result that answers no request in the input
    /// is a problem: a call was lost.
    pub fn response(
        &mut self,
        id: Option<&str>,
        tool: Option<&str>,
        reply: Reply<'_>,
        site: Site,
        order: usize,
    ) -> Answered {
        let call = match id {
            Some(id) => self.by_id.remove(id),
            None => {
                let k = match tool.map(super::server::function_name) {
                    Some(t) => self.queue.iter().position(|c| c.name == t),
                    None => (!self.queue.is_empty()).then_some(0),
                };
                k.and_then(|k| self.queue.remove(k))
            }
        };
        let Some(call) = call else {
            if id.is_some_and(|id| self.asked.contains(id)) {
                return Answered::Other;
            }
            let r = match reply {
                Reply::Rpc(m) => m.get("result").and_then(Value::as_object),
                Reply::Result(r) => Some(r),
            };
            let tool_like = r.is_some_and(|r| {
                ["content", "structuredContent", "isError"]
                    .iter()
                    .any(|k| r.contains_key(*k))
            });
            if tool_like {
                self.problems.push(Problem::new(
                    Anchor {
                        span: site.span,
                        path: Path::ROOT,
                    },
                    "this answer to a tool call has no request before it: the call is not linted".into(),
                    Some("the request was not recorded (a log that starts mid-call, or a capture missing its other half); the rest was still linted".into()),
                ));
            }
            return Answered::Nothing;
        };
        self.note(&call, reply.answer());
        let rec = answered(call, reply, site, &mut self.problems);
        self.out.push((order, rec));
        Answered::Call
    }

    /// The records, in order, and the problems found: calls never
    /// answered are kept without a result, where they were made.
    pub fn finish(mut self) -> (Vec<Record>, Vec<Problem>, Vec<Evidence>) {
        let mut left: Vec<Call> = self.by_id.drain().map(|(_, c)| c).collect();
        left.extend(self.queue.drain(..));
        left.sort_by_key(|c| c.order);
        for c in left {
            self.left(c);
        }
        self.out.sort_by_key(|(o, _)| *o);
        (
            self.out.into_iter().map(|(_, r)| r).collect(),
            self.problems,
            self.evidence,
        )
    }
}

/// The calls of each server of a log that holds several (an MCP client's
/// log, a proxy that fronts several servers), paired per server; only
/// the voicehook servers' are kept ([`super::server`]).
#[derive(Default)]
pub(crate) struct PerServer {
    servers: Vec<(String, Pairing)>,
    index: HashMap<String, usize>,
}

/// What a [`PerServer`] yields: the voicehook servers' records and
/// problems, and which servers are voicehook.
pub(crate) struct Kept {
    pub records: Vec<Record>,
    pub problems: Vec<Problem>,
    pub known: super::server::Servers,
    /// True when some server of the log is voicehook.
    pub any: bool,
}

impl PerServer {
    /// The pairing of server `name`.
    pub fn get(&mut self, name: &str) -> &mut Pairing {
        let k = match self.index.get(name) {
            Some(&k) => k,
            None => {
                self.servers.push((name.to_string(), Pairing::default()));
                self.index.insert(name.to_string(), self.servers.len() - 1);
                self.servers.len() - 1
            }
        };
        &mut self.servers[k].1
    }

    pub fn finish(self, opts: &super::Options) -> Kept {
        let mut known = super::server::Servers::new(opts);
        let mut done = Vec::new();
        for (name, pairing) in self.servers {
            let (records, problems, evidence) = pairing.finish();
            for (tool, args, answer) in &evidence {
                known.note(&name, tool, Some(args), answer.as_ref());
            }
            done.push((name, records, problems));
        }
        let mut kept = Kept {
            records: Vec::new(),
            problems: Vec::new(),
            any: false,
            known,
        };
        for (name, records, problems) in done {
            if kept.known.is_voicehook(&name) {
                kept.any = true;
                kept.records.extend(records);
                kept.problems.extend(problems);
            }
        }
        kept
    }
}
