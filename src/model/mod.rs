//! The call model: what was recorded (`Log`, `Record`) and what it means
//! (`Call`: participants, roles, language over time, utterances, turns).
//!
//! Inputs build a [`Log`]; [`Call::build`] derives the room from it. Rules
//! read the model only, never the bytes of a file.

pub mod digest;
mod record;
pub mod tools;
pub mod turns;

use crate::core::hash::HashSet;

pub use crate::core::name::{Interner, Name};
pub use crate::core::span::{Anchor, Ms, Path, Seg, Segs, Span};

pub use record::*;

// ---------------------------------------------------------------------------

/// Who spoke a line, relative to the recording agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Who {
    Human,
    Voicebot,
    /// The agent whose log this is.
    Me,
    /// Another agent.
    Agent,
}

/// How an utterance came to be in the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Via {
    /// The recorder's own `say`.
    Say,
    /// The recorder's `join` with a greeting text.
    Greet,
    /// A `user` event.
    UserEvent,
    /// An `operator` event (another agent addressed the recorder).
    OperatorEvent,
    /// An `operators_said` line of any event.
    OperatorsSaid,
    /// An `agent_said` line of any event.
    AgentSaid,
}

/// One thing said in the call, as the recording agent saw it.
#[derive(Clone, Debug)]
pub struct Utterance<'a> {
    /// Index of the record it came from ([`Utterance::record`]): a log's
    /// records are numbered as its lines, in 32 bits.
    record: u32,
    pub speaker: &'a str,
    pub who: Who,
    /// What was said, and where in its record ([`Utterance::anchor`]).
    pub text: &'a Text,
    /// When ([`Utterance::ts`]), [`NO_TIME`] when not known: 8 bytes, where
    /// an `Option` takes 16.
    ts: Ms,
    /// Names addressed: as recorded (borrowed from the record), else
    /// computed with the server's rule.
    pub addressed_to: Addressees<'a>,
    pub addressed_to_you: Option<bool>,
    pub to_human: Option<bool>,
    pub via: Via,
    /// The bytes of the text: its own, or its record's.
    pub span: Span,
    /// Index into `Call::turns` of the human turn it falls in.
    pub turn: Option<u32>,
}

// One per line said: a long call holds hundreds of thousands.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Utterance<'static>>() <= 88);

/// A record's index as an utterance holds it. A log has fewer records
/// than 32 bits count (its lines are counted in 32 bits).
fn utterance_record(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// The time an utterance without one holds. No reader makes it: a time
/// this far back is read as none.
const NO_TIME: Ms = Ms::MIN;

impl Utterance<'_> {
    /// Index of the record it came from.
    pub fn record(&self) -> usize {
        self.record as usize
    }

    /// When it was said, if known.
    pub fn ts(&self) -> Option<Ms> {
        (self.ts != NO_TIME).then_some(self.ts)
    }

    /// Where the text is: its bytes and its path in the record.
    pub fn anchor(&self) -> Anchor {
        Anchor {
            span: self.span,
            path: self.text.path,
        }
    }
}

/// The names a line addresses: borrowed from its record when the recorder
/// wrote them down, else computed. Reads as a slice of names either way.
#[derive(Clone, Debug)]
pub enum Addressees<'a> {
    Recorded(&'a [Name]),
    Computed(Box<[Name]>),
}

impl Addressees<'_> {
    /// True when the names were computed, not recorded.
    pub fn computed(&self) -> bool {
        matches!(self, Addressees::Computed(_))
    }
}

impl<const N: usize> PartialEq<[&str; N]> for Addressees<'_> {
    fn eq(&self, other: &[&str; N]) -> bool {
        self.len() == N && self.iter().zip(other).all(|(a, b)| **a == **b)
    }
}

impl std::ops::Deref for Addressees<'_> {
    type Target = [Name];
    fn deref(&self) -> &[Name] {
        match self {
            Addressees::Recorded(n) => n,
            Addressees::Computed(n) => n,
        }
    }
}

/// A human turn: from one of the human's lines to the next.
#[derive(Clone, Debug)]
pub struct Turn {
    /// Index into `Call::utterances` of the human's line.
    pub start: usize,
    /// One past the last utterance of the turn.
    pub end: usize,
}

/// The call language in force from a record on.
#[derive(Clone, Debug)]
pub struct LangSetting<'a> {
    pub record: usize,
    pub lang: &'a str,
    pub anchor: Anchor,
}

/// An agent in the call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agent {
    pub label: String,
    pub role: Option<Role>,
}

/// The call as one agent's log shows it.
#[derive(Debug)]
pub struct Call<'a> {
    pub records: &'a [Record],
    pub call_id: Option<&'a str>,
    /// Label of the recording agent.
    pub recorder: Option<&'a str>,
    pub recorder_role: Option<Role>,
    pub human: Option<&'a str>,
    pub voicebot: &'a str,
    /// Every agent seen, the recorder first.
    pub agents: Vec<Agent>,
    /// The server's addressing rule over the call's names: the human, the
    /// voicebot and every agent, folded once for every rule that asks.
    pub roster: crate::text::addressing::Roster,
    pub langs: Vec<LangSetting<'a>>,
    pub utterances: Vec<Utterance<'a>>,
    pub turns: Vec<Turn>,
    /// Analyses several rules share, computed once per call on first use.
    pub memo: Memo,
}

/// Analyses shared by several rules, computed at most once per call.
#[derive(Debug, Default)]
pub struct Memo {
    /// Turn-taking breaches of the recorder (see `turns::verdicts`).
    pub turn_verdicts: std::sync::OnceLock<Vec<TurnBreach>>,
}

/// What a say did wrong, from the most specific to the least.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Breach {
    /// The human addressed Delta; the recorder spoke in that turn.
    OverDelta,
    /// Another agent asked the human; the recorder spoke before the human.
    HumanQuestion,
    /// The human addressed another agent; the recorder spoke in that turn.
    ForAddressed,
    /// Another agent spoke to the human; the recorder answered that agent.
    AnsweredAgent,
}

/// One breach: the offending say, the line it broke the rule against, and
/// later says of the same breach against the same line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnBreach {
    pub breach: Breach,
    /// Index into `Call::utterances` of the say.
    pub say: usize,
    /// Index into `Call::utterances` of the human's or other agent's line.
    pub against: usize,
    /// Further says of the same breach against the same line.
    pub again: Vec<usize>,
}

impl TurnBreach {
    /// `f` with a label on every further say of this breach.
    pub fn with_repeats(
        &self,
        call: &Call<'_>,
        mut f: crate::core::diagnostic::Finding,
        text: &str,
    ) -> crate::core::diagnostic::Finding {
        for &k in &self.again {
            f = f.label(call.utterances[k].anchor(), text);
        }
        f
    }
}

/// The names in a log's `meta.recorder` of the readers of heard speech (a
/// transcript, WebVTT and SRT captions): their logs name a voicebot in
/// `meta.voicebot` only when the file shows one.
pub const HEARD: &[&str] = &["transcript", "vtt", "srt"];

/// Who is who, as the configuration or the caller knows it.
#[derive(Clone, Debug, Default)]
pub struct Cast {
    pub human: Option<String>,
    pub voicebot: Option<String>,
}

impl<'a> Call<'a> {
    /// Derive the room from the records of one call.
    pub fn build(meta: Option<&'a Meta>, records: &'a [Record], cast: &'a Cast) -> Call<'a> {
        let mut call = Call {
            records,
            call_id: None,
            recorder: None,
            recorder_role: None,
            human: cast.human.as_deref(),
            voicebot: cast
                .voicebot
                .as_deref()
                .or_else(|| meta.and_then(|m| m.voicebot.as_deref()))
                .unwrap_or("Delta"),
            agents: Vec::new(),
            roster: Default::default(),
            langs: Vec::new(),
            utterances: Vec::new(),
            turns: Vec::new(),
            memo: Memo::default(),
        };
        if call.human.is_none() {
            call.human = meta.and_then(|m| m.human.as_deref());
        }
        let said = call.find_cast();
        let labels: Vec<&str> = call.agents.iter().map(|a| a.label.as_str()).collect();
        // A client's log is of a voicehook call, which has a voicebot; a
        // transcript's shows one only where it names it.
        let voicebot_known = cast.voicebot.is_some()
            || meta.is_some_and(|m| {
                m.voicebot.is_some() || !m.recorder.as_deref().is_some_and(|r| HEARD.contains(&r))
            })
            || meta.is_none();
        call.roster = crate::text::addressing::Roster::with_variants(
            call.human,
            call.voicebot,
            &labels,
            voicebot_known,
        );
        call.collect_utterances(said);
        call.compute_turns();
        call
    }

    /// The call's id, its recorder, human, agents and language settings,
    /// in one pass over the records (a long call's events are each a
    /// pointer away from its record, and every pass follows them all).
    /// Returns how many lines at most the records hold said.
    fn find_cast(&mut self) -> usize {
        let records = self.records;
        let mut created = false;
        let mut said = 0usize;
        // The other speakers in order of their first line.
        let mut speakers: Vec<&'a str> = Vec::new();
        let mut seen: HashSet<&'a str> = HashSet::default();
        for (i, r) in records.iter().enumerate() {
            if self.call_id.is_none() {
                self.call_id = r.call();
            }
            if self.recorder.is_none() {
                self.recorder = r.agent();
            }
            let Body::Fn(f) = &r.body else { continue };
            match &f.op {
                Op::CreateCall(c) if f.ok() => {
                    created = true;
                    if self.call_id.is_none() {
                        self.call_id = c.call_id.as_deref();
                    }
                }
                Op::Say(_) => said += 1,
                Op::Join(j) => {
                    said += 1;
                    if !f.ok() {
                        continue;
                    }
                    if let Some(l) = &j.label {
                        self.recorder.get_or_insert(l.as_str());
                    }
                    if let Some(role) = j.role {
                        self.recorder_role = Some(role);
                    }
                    if let Some(ctx) = &j.context {
                        if let Some(lang) = &ctx.lang {
                            self.langs.push(LangSetting {
                                record: i,
                                lang: lang.as_str(),
                                anchor: r.text(lang),
                            });
                        }
                    }
                }
                Op::Next(Some(ev)) => {
                    said += 1 + ev.agent_said.len() + ev.operators_said.len();
                    let op_line = match &ev.kind {
                        EventKind::Operator(l) => Some(&**l),
                        _ => None,
                    };
                    for l in ev.operators_said.iter().chain(op_line) {
                        if let Some(s) = l.speaker.as_deref() {
                            if seen.insert(s) {
                                speakers.push(s);
                            }
                        }
                    }
                    if let EventKind::User(l) = &ev.kind {
                        if self.human.is_none() {
                            self.human = l.speaker.as_deref();
                        }
                    }
                    if let EventKind::Context(ctx) = &ev.kind {
                        if let Some(lang) = &ctx.lang {
                            self.langs.push(LangSetting {
                                record: i,
                                lang: lang.as_str(),
                                anchor: r.text(lang),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        if created {
            self.recorder_role = Some(Role::Owner);
        }
        // The recorder first, then everyone else in order of their first
        // line.
        if let Some(me) = self.recorder {
            self.agents.push(Agent {
                label: me.to_string(),
                role: self.recorder_role,
            });
        }
        for s in speakers {
            if Some(s) != self.recorder {
                self.agents.push(Agent {
                    label: s.to_string(),
                    role: None,
                });
            }
        }
        // A log without `call` keys names its call by the join that
        // entered it, as the room pass groups logs.
        if self.call_id.is_none() {
            self.call_id = call_id(records.iter());
        }
        said
    }

    /// True for the voicebot's name and the names speech recognition hears
    /// for it.
    pub fn is_voicebot(&self, name: &str) -> bool {
        is_voicebot(self.voicebot, name)
    }

    /// The lines said in the call, of which there are at most `bound`
    /// ([`Call::find_cast`]): sized once, as a long call has many.
    fn collect_utterances(&mut self, bound: usize) {
        let records = self.records;
        let roster = &self.roster;
        let (me, human, voicebot) = (self.recorder, self.human, self.voicebot);
        let mut out: Vec<Utterance<'a>> = Vec::with_capacity(bound);
        for (i, r) in records.iter().enumerate() {
            let Body::Fn(f) = &r.body else { continue };
            match &f.op {
                Op::Say(s) => {
                    if let (Some(t), Some(me)) = (&s.text, self.recorder) {
                        out.push(self.own_line(i, r, me, t, Via::Say));
                    }
                }
                Op::Join(j) if f.ok() => {
                    if let (Some(Greet::Text(t)), Some(me)) = (&j.greet, self.recorder) {
                        out.push(self.own_line(i, r, me, t, Via::Greet));
                    }
                }
                Op::Next(Some(ev)) => {
                    let mut push = |l: &'a Line, via: Via, default: Who| {
                        let Some(t) = &l.text else { return };
                        let speaker: &'a str = l.speaker.as_deref().unwrap_or(match default {
                            Who::Voicebot => voicebot,
                            _ => "?",
                        });
                        let addressed_to = match &l.addressed_to {
                            Some(a) => Addressees::Recorded(a),
                            None => Addressees::Computed(roster.addressee_names(t.as_str())),
                        };
                        out.push(Utterance {
                            record: utterance_record(i),
                            speaker,
                            who: who(speaker, me, human, voicebot, default),
                            text: t,
                            ts: l.ts.or(r.ts).unwrap_or(NO_TIME),
                            addressed_to,
                            addressed_to_you: l.addressed_to_you,
                            to_human: l.to_human,
                            via,
                            span: r.text(t).span,
                            turn: None,
                        });
                    };
                    // What others said before this event's own line.
                    for l in &ev.agent_said {
                        push(l, Via::AgentSaid, Who::Voicebot);
                    }
                    for l in &ev.operators_said {
                        push(l, Via::OperatorsSaid, Who::Agent);
                    }
                    match &ev.kind {
                        EventKind::User(l) => push(l, Via::UserEvent, Who::Human),
                        EventKind::Operator(l) => {
                            // A recorder may also list the waking line in
                            // operators_said; keep it once.
                            let dup = ev.operators_said.iter().any(|o| {
                                o.speaker == l.speaker
                                    && o.text.as_ref().map(|t| &t.value)
                                        == l.text.as_ref().map(|t| &t.value)
                            });
                            if !dup {
                                push(l, Via::OperatorEvent, Who::Agent)
                            }
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        // Order by the time each line was spoken where known; lines without
        // a time keep their place in the log.
        let mut last = i64::MIN;
        let keys: Vec<i64> = out
            .iter()
            .map(|u| {
                if let Some(t) = u.ts() {
                    last = last.max(t);
                    t
                } else {
                    last
                }
            })
            .collect();
        permute(&mut out, &order_by(&keys));
        self.utterances = out;
    }

    fn own_line(
        &self,
        i: usize,
        r: &'a Record,
        me: &'a str,
        t: &'a Text,
        via: Via,
    ) -> Utterance<'a> {
        Utterance {
            record: utterance_record(i),
            speaker: me,
            who: Who::Me,
            text: t,
            ts: r.ts.unwrap_or(NO_TIME),
            addressed_to: Addressees::Computed(self.roster.addressee_names(t.as_str())),
            addressed_to_you: None,
            to_human: None,
            via,
            span: r.text(t).span,
            turn: None,
        }
    }

    fn compute_turns(&mut self) {
        let mut current: Option<usize> = None;
        for (k, u) in self.utterances.iter_mut().enumerate() {
            if u.who == Who::Human {
                if let Some(t) = current {
                    self.turns[t].end = k;
                }
                self.turns.push(Turn {
                    start: k,
                    end: k + 1,
                });
                current = Some(self.turns.len() - 1);
            }
            u.turn = current.map(|t| t as u32);
        }
        if let Some(t) = current {
            self.turns[t].end = self.utterances.len();
        }
    }

    /// The type of the event an utterance arrived in, for the lines of
    /// `next` events.
    pub fn event_of(&self, u: &Utterance<'_>) -> Option<&'a str> {
        next_event(self.records.get(u.record())?).map(|e| e.kind.name())
    }

    /// The call language in force at record `record`, with where it was set.
    pub fn lang_at(&self, record: usize) -> Option<&LangSetting<'a>> {
        let k = self.langs.partition_point(|l| l.record <= record);
        k.checked_sub(1).map(|k| &self.langs[k])
    }

    /// Every function call, with its record.
    pub fn fn_calls(&self) -> impl Iterator<Item = (&'a Record, &'a FnCall)> + 'a {
        self.records
            .iter()
            .filter_map(|r| r.as_fn().map(|f| (r, f)))
    }

    /// Every board the recorder set (`status` calls the server accepted).
    pub fn boards(&self) -> impl Iterator<Item = (&'a Record, &'a Board)> + 'a {
        self.fn_calls().filter_map(|(r, f)| match &f.op {
            Op::Status(b) if f.ok() => Some((r, &**b)),
            _ => None,
        })
    }

    /// Every `decide` the recorder made.
    pub fn decides(&self) -> impl Iterator<Item = (&'a Record, &'a Decide)> + 'a {
        self.fn_calls().filter_map(|(r, f)| match &f.op {
            Op::Decide(d) => Some((r, &**d)),
            _ => None,
        })
    }

    /// Every word of every participant's name, lower-cased: the agents'
    /// labels, the human, the voicebot. Lines are compared without them.
    pub fn name_words(&self) -> crate::core::hash::HashSet<String> {
        use crate::text::phrases::{lower_words, name_head};
        let mut v: crate::core::hash::HashSet<String> = self
            .agents
            .iter()
            .flat_map(|a| lower_words(name_head(&a.label)))
            .collect();
        v.extend(
            self.human
                .map(|h| lower_words(name_head(h)))
                .unwrap_or_default(),
        );
        v.extend(lower_words(name_head(self.voicebot)));
        v
    }

    /// The recorder is a participant (not the owner) of this call.
    pub fn recorder_is_participant(&self) -> bool {
        self.recorder_role == Some(Role::Participant)
    }
}

fn who(speaker: &str, me: Option<&str>, human: Option<&str>, voicebot: &str, default: Who) -> Who {
    if Some(speaker) == me {
        Who::Me
    } else if is_voicebot(voicebot, speaker) {
        Who::Voicebot
    } else if human == Some(speaker) {
        Who::Human
    } else {
        default
    }
}

/// True for the voicebot's name and, for Delta, the names speech
/// recognition hears for it.
pub fn is_voicebot(voicebot: &str, name: &str) -> bool {
    name.eq_ignore_ascii_case(voicebot)
        || (voicebot.eq_ignore_ascii_case("delta")
            && ["data", "della", "delter", "delta's"]
                .iter()
                .any(|a| name.eq_ignore_ascii_case(a)))
}

/// The event a `next` record returned, if any.
pub fn next_event(r: &Record) -> Option<&Event> {
    match &r.body {
        Body::Fn(FnCall {
            op: Op::Next(Some(ev)),
            ..
        }) => Some(ev),
        _ => None,
    }
}

/// The places `0..keys.len()` in the order of their keys, equal keys in
/// place order (a stable sort by key).
///
/// The lines of a log come nearly in time order: what was heard during a
/// wait comes a few places after the line before it. They are put in
/// order by inserting each where it belongs, which costs a step per place
/// it moves; past [`MOVES_PER_LINE`] steps a line on average (a log out of
/// order), the rest is sorted as a whole.
fn order_by(keys: &[i64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..keys.len()).collect();
    let mut budget = keys.len().saturating_mul(MOVES_PER_LINE);
    for i in 1..idx.len() {
        let k = idx[i];
        let mut j = i;
        while j > 0 && keys[idx[j - 1]] > keys[k] {
            if budget == 0 {
                // Still each place once: sorted by key and place, in
                // whatever order they stand.
                idx[j] = k;
                idx.sort_by_key(|&k| (keys[k], k));
                return idx;
            }
            budget -= 1;
            idx[j] = idx[j - 1];
            j -= 1;
        }
        idx[j] = k;
    }
    idx
}

/// How many places a line moves on average, at most, before [`order_by`]
/// sorts the rest as a whole.
const MOVES_PER_LINE: usize = 8;

/// Reorder `v` in place so that position `i` holds what was at `order[i]`
/// (`order` a permutation of the indices), without a second vector of `T`.
fn permute<T>(v: &mut [T], order: &[usize]) {
    let mut done = vec![false; v.len()];
    for start in 0..v.len() {
        if done[start] {
            continue;
        }
        let mut j = start;
        loop {
            done[j] = true;
            let k = order[j];
            if k == start {
                break;
            }
            v.swap(j, k);
            j = k;
        }
    }
}

/// The call id of a call's records: the first `call` key; else the id of the
/// call a successful `join` entered or a `create_call` made. `None` when the
/// log names no call: such a log is never merged with others.
pub fn call_id<'r>(records: impl Iterator<Item = &'r Record>) -> Option<&'r str> {
    let mut from_fn: Option<&'r str> = None;
    for r in records {
        if let Some(c) = r.call() {
            return Some(c);
        }
        let Some(f) = r.as_fn() else { continue };
        if from_fn.is_some() || !f.ok() {
            continue;
        }
        from_fn = match &f.op {
            Op::Join(j) => j.call_id.as_deref(),
            Op::CreateCall(c) => c.call_id.as_deref(),
            _ => None,
        };
    }
    from_fn
}

/// The record whose bytes hold `offset`, among records in file order.
pub fn record_at(records: &[Record], offset: usize) -> Option<&Record> {
    record_index(records, offset).map(|k| &records[k])
}

/// The index of [`record_at`]'s record.
pub fn record_index(records: &[Record], offset: usize) -> Option<usize> {
    let k = records
        .partition_point(|r| r.span.start <= offset)
        .checked_sub(1)?;
    let r = &records[k];
    (offset < r.span.end.max(r.span.start + 1)).then_some(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::native::parse;

    const LOG: &str = r#"{"meta":{"format":1,"human":"Oliver"}}
{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{"call_id":"c1","label":"opencode","greet":"Hi, this is opencode."},"result":{"status":"joined","role":"participant","context":{"lang":"en","mode":"normal"}}}
{"ts":"2026-10-10T10:00:05.000Z","fn":"next","result":{"type":"timeout","operators_said":[{"speaker":"Promo","text":"Oliver, two quick questions?","ts":"2026-10-10T10:00:03.000Z","addressed_to":["Oliver"],"to_human":true}]}}
{"ts":"2026-10-10T10:00:09.000Z","fn":"next","result":{"type":"user","speaker":"Oliver","text":"Promo, is the build green?"},"agent_said":[]}
{"ts":"2026-10-10T10:00:10.000Z","fn":"say","args":{"text":"Yes, it is."},"result":{"say_id":"s1","say_status":"queued"}}
{"ts":"2026-10-10T10:00:20.000Z","fn":"next","result":{"type":"context","context":{"lang":"de"},"agent_said":[{"text":"Sure.","ts":"2026-10-10T10:00:19.000Z"}]}}
{"ts":"2026-10-10T10:00:30.000Z","fn":"next","result":{"type":"operator","speaker":"Promo","text":"opencode, check the logs?","addressed_to":["opencode"],"addressed_to_you":true,"operators_said":[{"speaker":"Promo","text":"opencode, check the logs?"}]}}
"#;

    fn with_call(f: impl FnOnce(&Call<'_>)) {
        let (log, problems) = parse(LOG.as_bytes());
        assert!(problems.is_empty(), "{problems:?}");
        let cast = Cast::default();
        let call = Call::build(log.meta.as_ref(), &log.records, &cast);
        f(&call)
    }

    /// Inserting lines nearly in order and sorting them give one order, on
    /// logs in order, nearly so, and out of order past the budget.
    #[test]
    fn ordering_by_time_is_a_stable_sort() {
        use proptest::prelude::*;
        let sorted = |keys: &[i64]| {
            let mut idx: Vec<usize> = (0..keys.len()).collect();
            idx.sort_by_key(|&k| (keys[k], k));
            idx
        };
        let mut runner = proptest::test_runner::TestRunner::default();
        let keys = proptest::collection::vec((0i64..400, 0i64..6, any::<bool>()), 0..300);
        runner
            .run(&keys, |v| {
                // Mostly rising, some lines a few steps back, repeats.
                let near: Vec<i64> = v.iter().map(|&(t, back, _)| t * 10 - back * 7).collect();
                let mut rising: Vec<i64> = v.iter().map(|&(t, _, _)| t).collect();
                rising.sort_unstable();
                let sawtooth: Vec<i64> = rising
                    .iter()
                    .zip(&v)
                    .map(|(&t, &(_, back, flip))| if flip { t - back } else { t })
                    .collect();
                let reversed: Vec<i64> = rising.iter().rev().copied().collect();
                for keys in [&near, &rising, &sawtooth, &reversed] {
                    prop_assert_eq!(order_by(keys), sorted(keys));
                }
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn cast_and_roles() {
        with_call(|c| {
            assert_eq!(c.recorder, Some("opencode"));
            assert_eq!(c.recorder_role, Some(Role::Participant));
            assert!(c.recorder_is_participant());
            assert_eq!(c.human, Some("Oliver"));
            assert_eq!(c.voicebot, "Delta");
            let labels: Vec<&str> = c.agents.iter().map(|a| a.label.as_str()).collect();
            assert_eq!(labels, ["opencode", "Promo"]);
            assert!(c.is_voicebot("Data") && !c.is_voicebot("data-bot"));
        });
    }

    #[test]
    fn language_over_time() {
        with_call(|c| {
            assert!(c.lang_at(0).is_none());
            assert_eq!(c.lang_at(1).unwrap().lang, "en");
            assert_eq!(c.lang_at(4).unwrap().lang, "en");
            assert_eq!(c.lang_at(5).unwrap().lang, "de");
            assert_eq!(c.lang_at(99).unwrap().record, 5);
        });
    }

    #[test]
    fn utterances_in_spoken_order_with_turns() {
        with_call(|c| {
            let seen: Vec<(&str, Who, Via)> = c
                .utterances
                .iter()
                .map(|u| (u.text.as_str(), u.who, u.via))
                .collect();
            assert_eq!(
                seen,
                [
                    ("Hi, this is opencode.", Who::Me, Via::Greet),
                    (
                        "Oliver, two quick questions?",
                        Who::Agent,
                        Via::OperatorsSaid
                    ),
                    ("Promo, is the build green?", Who::Human, Via::UserEvent),
                    ("Yes, it is.", Who::Me, Via::Say),
                    ("Sure.", Who::Voicebot, Via::AgentSaid),
                    // the waking line is listed once, not twice
                    ("opencode, check the logs?", Who::Agent, Via::OperatorsSaid),
                ]
            );
            assert_eq!(c.turns.len(), 1);
            assert_eq!((c.turns[0].start, c.turns[0].end), (2, 6));
            assert_eq!(c.utterances[1].turn, None);
            assert_eq!(c.utterances[3].turn, Some(0));
            // recorded addressees are kept; missing ones are computed
            assert_eq!(c.utterances[1].addressed_to, ["Oliver"]);
            assert!(!c.utterances[1].addressed_to.computed());
            assert_eq!(c.utterances[2].addressed_to, ["Promo"]);
            assert!(c.utterances[2].addressed_to.computed());
            assert_eq!(c.utterances[4].speaker, "Delta");
            assert_eq!(c.event_of(&c.utterances[2]), Some("user"));
            assert_eq!(c.event_of(&c.utterances[3]), None);
        });
    }

    #[test]
    fn owner_from_create_call_and_several_calls_in_one_file() {
        let src = r#"{"call":"a","fn":"create_call","result":{"call_id":"a","share_text":"x"}}
{"call":"b","fn":"join","args":{"label":"B"},"result":{"status":"joined","role":"participant"}}
{"fn":"say","args":{"text":"hi"}}
"#;
        let (log, _) = parse(src.as_bytes());
        let cast = Cast::default();
        let call = Call::build(None, &log.records[..1], &cast);
        assert_eq!(call.recorder_role, Some(Role::Owner));
        assert_eq!(call.call_id, Some("a"));
        let call = Call::build(None, &log.records[1..], &cast);
        assert_eq!(call.recorder, Some("B"));
        assert_eq!(call.utterances.len(), 1);
    }
}
