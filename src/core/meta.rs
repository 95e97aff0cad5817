//! What a rule declares about itself: its public id, the rulebook rule it
//! enforces, its default severity, its options, and the facts every list
//! of rules is derived from (where it judges, when it can judge, what
//! evidence it needs). Each rule module holds one [`RuleMeta`]; nothing
//! else names a rule's facts.

use std::fmt;

use crate::core::diagnostic::Severity;

/// A rule's declaration.
#[derive(Debug)]
pub struct RuleMeta {
    /// The public id, e.g. `board-bundle`.
    pub name: &'static str,
    /// Which rule of the rulebook it enforces: a number, `hard` for the hard
    /// rules, `server` for what the server itself enforces, `format` for the
    /// engine's own findings on the input.
    pub rulebook: &'static str,
    pub default_severity: Severity,
    /// One line, imperative-free: what the rule finds.
    pub summary: &'static str,
    /// Options settable in `callint.toml` under `[rules.<name>]`.
    pub options: &'static [OptionMeta],
    /// Where the rule can judge an agent.
    pub scope: Scope,
    /// When the rule can judge a record.
    pub when: When,
    /// What a format must carry for the rule to fire on it.
    pub needs: Evidence,
    /// The instruction form of the rule, when an instruction in a prompt or
    /// skill can make an agent break it: what such an instruction tells
    /// the agent to do. Rules with one judge the instructions of a
    /// document ([`Evidence::INSTRUCTIONS`]).
    pub instruction: Option<&'static str>,
}

impl RuleMeta {
    /// True when the rule can judge a record before it is sent (`callint
    /// guard`, the proxy, `lint::live`).
    pub fn judges_pending(&self) -> bool {
        matches!(self.when, When::Record | When::Before)
    }
}

/// One option of a rule, with its default.
#[derive(Debug)]
pub struct OptionMeta {
    pub name: &'static str,
    pub default: OptValue,
    pub help: &'static str,
}

/// A value of a rule option.
#[derive(Clone, Debug, PartialEq)]
pub enum OptValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(&'static str),
    String(String),
}

impl OptValue {
    /// What kind of value it is, as a message names it.
    pub fn kind(&self) -> &'static str {
        match self {
            OptValue::Int(_) => "a whole number",
            OptValue::Float(_) => "a number",
            OptValue::Bool(_) => "true or false",
            OptValue::Str(_) | OptValue::String(_) => "a string",
        }
    }
}

impl fmt::Display for OptValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptValue::Int(i) => write!(f, "{i}"),
            OptValue::Float(x) => write!(f, "{x}"),
            OptValue::Bool(b) => write!(f, "{b}"),
            OptValue::Str(s) => write!(f, "{s:?}"),
            OptValue::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// Where a rule can judge an agent: from its own log only, or also from the
/// room that other agents' logs show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The rule needs the agent's own records: its joins, boards, decisions,
    /// messages to its user, tools, say outcomes, or the events it received.
    Own,
    /// The rule judges what an agent said against what was said in the
    /// room (who was addressed, who spoke before), which every agent's log
    /// holds alike. With several logs of one call it also judges, on the
    /// merged room timeline, the agents whose own log is not among them.
    Room,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Own => "own",
            Scope::Room => "room",
        }
    }
}

/// When a rule can judge a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// By the record alone (a board, a label, a say's length): a pending
    /// record is judged with no history at all.
    Record,
    /// By the record against what came before it (who was addressed, the
    /// call language, what the agent's events delivered): a pending record
    /// is judged against the call so far, and the verdict on the last
    /// record of a log cannot change with what follows.
    Before,
    /// Only once what follows the record is known (a greeting after a
    /// join, an answer to a line, the end of a turn, a delay): a log still
    /// being written holds these findings back until it has moved on.
    After,
    /// By something that is no voicehook call (the agent's other tools, its
    /// helper code): never on a pending call.
    Elsewhere,
}

impl When {
    pub fn name(self) -> &'static str {
        match self {
            When::Record => "the record alone",
            When::Before => "the record and what came before it",
            When::After => "only after what follows the record",
            When::Elsewhere => "the agent's tools or code, not its calls",
        }
    }
}

/// A set of kinds of evidence: what an input format carries, or what a
/// rule needs of it. A rule can fire on a format only when the format
/// carries everything the rule needs.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Evidence(u16);

impl Evidence {
    /// Nothing at all.
    pub const NONE: Evidence = Evidence(0);
    /// What was said in the call, by whom, and who was addressed.
    pub const SPEECH: Evidence = Evidence(1);
    /// The messages an agent wrote to its own user.
    pub const CHAT: Evidence = Evidence(1 << 1);
    /// Which thread of the client made a record (main, subagent, ...).
    pub const THREADS: Evidence = Evidence(1 << 2);
    /// The other tools an agent ran (edits, shell commands, deploys).
    pub const TOOLS: Evidence = Evidence(1 << 3);
    /// Helper code that reads the call's events.
    pub const CODE: Evidence = Evidence(1 << 4);
    /// The records that follow a join, in the order the agent made them.
    pub const JOIN_FLOW: Evidence = Evidence(1 << 5);
    /// Board payloads (`status`).
    pub const BOARDS: Evidence = Evidence(1 << 6);
    /// Questions put on the Decision Board (`decide`).
    pub const DECISIONS: Evidence = Evidence(1 << 7);
    /// The labels agents sent (a `join` or a board's `label`).
    pub const LABELS: Evidence = Evidence(1 << 8);
    /// What the server did with a `say` (queued, dropped, revised).
    pub const SAY_OUTCOMES: Evidence = Evidence(1 << 9);
    /// When each record was made. A format may carry times or not, file by
    /// file; the engine tells which (`no-times`).
    pub const TIMES: Evidence = Evidence(1 << 10);
    /// Who is who: which speakers are agents, which the human and which
    /// the voicebot. An agent's own log knows it is an agent; heard speech
    /// knows it from its headers or the configuration, file by file, and
    /// the engine tells which (`unknown-roles`).
    pub const ROLES: Evidence = Evidence(1 << 11);
    /// Every kind a record of a call can carry.
    pub const ALL: Evidence = Evidence((1 << 12) - 1);
    /// What a prompt, skill or instruction file tells an agent to do, in
    /// its prose: no record of a call, but what makes the agent's records.
    pub const INSTRUCTIONS: Evidence = Evidence(1 << 12);

    /// Every kind, with its name, in the order they are listed.
    pub const KINDS: [(Evidence, &'static str); 13] = [
        (Evidence::SPEECH, "speech"),
        (Evidence::CHAT, "chat"),
        (Evidence::THREADS, "threads"),
        (Evidence::TOOLS, "tools"),
        (Evidence::CODE, "code"),
        (Evidence::JOIN_FLOW, "join-flow"),
        (Evidence::BOARDS, "boards"),
        (Evidence::DECISIONS, "decisions"),
        (Evidence::LABELS, "labels"),
        (Evidence::SAY_OUTCOMES, "say-outcomes"),
        (Evidence::TIMES, "times"),
        (Evidence::ROLES, "roles"),
        (Evidence::INSTRUCTIONS, "instructions"),
    ];

    /// Both sets together.
    pub const fn and(self, other: Evidence) -> Evidence {
        Evidence(self.0 | other.0)
    }

    /// This set without `other`.
    pub const fn without(self, other: Evidence) -> Evidence {
        Evidence(self.0 & !other.0)
    }

    /// True when this set holds any kind of `other`.
    pub const fn intersects(self, other: Evidence) -> bool {
        self.0 & other.0 != 0
    }

    /// True when this set holds everything `need` asks for.
    pub const fn covers(self, need: Evidence) -> bool {
        self.0 & need.0 == need.0
    }

    /// The names of the kinds in this set.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Evidence::KINDS
            .into_iter()
            .filter(move |(k, _)| self.covers(*k))
            .map(|(_, n)| n)
    }
}

impl fmt::Debug for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}
