//! The room: several native logs of one call merged into one timeline
//! (docs/formats.md: several logs of one call).
//!
//! A native log is one agent's view of the call: its own records, and what
//! the others said as the events it received. [`merge`] puts the lines of
//! several views ([`Digest`]s of their calls) together into one timeline:
//! each agent's own lines come from its own log, and a line that several
//! logs heard (the same speaker and text, at most [`MERGE_MS`] apart) is
//! kept once, with every copy.
//! `callint report` draws that timeline; `callint check` feeds it to the
//! rules of [`Scope::Room`](crate::rules::Scope::Room) through [`check`].
//!
//! What the room adds to linting each log on its own: an agent whose own
//! log is not among the files is never judged by the per-file pass, since
//! a log only judges its recorder. Its lines are in the other agents' logs,
//! though, with the human's lines and everyone else's around them. [`check`]
//! builds, for every such agent, its view of the room (its lines as says,
//! the others' as events, from its first line to its last: before and after
//! them nobody can tell whether it was in the call; only a human's line
//! naming it just before its first line is kept, as the turn it answers)
//! and runs the room-scope rules over it. A call whose every agent has a
//! log of its own is not merged at all ([`groups`]). Agents with a log of
//! their own are judged from that log only: it holds exactly what they knew and did, and the rules' excuses
//! (a line not yet received, a say the server dropped) depend on it.
//!
//! Findings point at real bytes of real files: the view's records carry the
//! spans of the copies they came from, shifted into one address space (each
//! file at its own base), and each finding is mapped back to its file.

mod merge;

use crate::core::hash::{HashMap, HashSet};
use std::borrow::Cow;

use rayon::prelude::*;

pub use self::merge::{merge, Lanes, Line, LineCopy, MERGE_MS};
pub use crate::model::digest::dropped_says;

use crate::core::diagnostic::Diagnostic;
use crate::core::lines::{resolve, LineIndex};
use crate::input::{self, Format};
use crate::lint::engine::{for_each_call, CallSeen, FileResult, Linter};
use crate::model::digest::Digest;
use crate::model::turns::{name_key, same_name};
use crate::model::{
    is_voicebot, Anchor, Body, Call, Context, Event, EventKind, FnCall, Join, Line as EventLine,
    Log, Meta, Ms, Op, Record, Role, Say, Span, Text, Thread,
};
use crate::text::addressing::Roster;

/// The server wakes an agent with an `operator` event at most this often;
/// further lines naming it stay in `operators_said`.
const OPERATOR_EVERY_MS: Ms = 5_000;

/// Which files to merge: from `(file, linter, call)` items, the groups of
/// at least two files with the same linter (configuration) and call id,
/// each with its files in the order given, the groups in the order of their
/// first file. A file of several calls may be in several groups. A group in
/// which every agent heard has a log of its own is left out: its room would
/// judge nobody.
pub fn groups<'a>(
    items: impl IntoIterator<Item = (usize, usize, &'a CallSeen)>,
) -> Vec<(usize, String, Vec<usize>)> {
    let mut groups: Vec<(usize, &'a str, Vec<usize>, Vec<&'a CallSeen>)> = Vec::new();
    let mut at: HashMap<(usize, &'a str), usize> = HashMap::default();
    for (file, linter, seen) in items {
        let g = *at.entry((linter, seen.id.as_str())).or_insert_with(|| {
            groups.push((linter, seen.id.as_str(), Vec::new(), Vec::new()));
            groups.len() - 1
        });
        if !groups[g].2.contains(&file) {
            groups[g].2.push(file);
        }
        groups[g].3.push(seen);
    }
    groups
        .into_iter()
        .filter(|g| g.2.len() > 1 && has_logless(&g.3))
        .map(|(linter, id, files, _)| (linter, id.to_string(), files))
        .collect()
}

/// Some agent that the logs heard has no log of its own among them.
fn has_logless(seen: &[&CallSeen]) -> bool {
    let own: Vec<&str> = seen.iter().filter_map(|s| s.recorder.as_deref()).collect();
    seen.iter()
        .flat_map(|s| s.agents.iter())
        .any(|a| !own.iter().any(|o| same_name(o, a)))
}

/// The room pass over files linted one by one with `linter` (their sources
/// kept): the native logs of one call are merged, and what the room finds
/// is added to each file's findings, which are sorted again. What
/// `callint check` does, on one thread.
pub fn pass(linter: &Linter, results: &mut [FileResult]) {
    let groups = groups(
        results
            .iter()
            .enumerate()
            .flat_map(|(i, r)| r.calls.iter().map(move |c| (i, 0, c))),
    );
    let mut added: Vec<Vec<Diagnostic>> = results.iter().map(|_| Vec::new()).collect();
    for (_, id, files) in &groups {
        let members: Vec<Member<'_>> = files.iter().map(|&i| Member::of(&results[i])).collect();
        for (&i, new) in files.iter().zip(check(linter, id, &members)) {
            added[i].extend(new);
        }
    }
    for (r, new) in results.iter_mut().zip(added) {
        if !new.is_empty() {
            r.diagnostics.extend(new);
            finish(&mut r.diagnostics);
        }
    }
}

/// A file's findings after the room's were added: in file order, each once.
pub fn finish(diagnostics: &mut Vec<Diagnostic>) {
    crate::core::diagnostic::sort(diagnostics);
    diagnostics.dedup_by(|a, b| a == b);
}

/// One file of a call, as `callint check` hands it to [`check`].
pub struct Member<'a> {
    pub path: &'a str,
    /// Its bytes; they may be left empty when `digests` are given: then a
    /// file is read again only to name a line of it in a note.
    pub source: &'a [u8],
    /// The length of its bytes (unpacked), which findings point into.
    pub len: usize,
    pub format: Format,
    /// What the per-file pass found in it.
    pub found: &'a [Diagnostic],
    /// Its calls' digests, when the per-file pass made them
    /// ([`Linter::lint_keeping`]); otherwise `source` is read again.
    pub digests: &'a [Digest],
}

impl<'a> Member<'a> {
    /// The length of its bytes.
    fn size(&self) -> usize {
        self.len.max(self.source.len())
    }

    /// A native log linted with [`Linter::lint`] or
    /// [`Linter::lint_keeping`].
    pub fn of(r: &'a FileResult) -> Member<'a> {
        Member {
            path: &r.path,
            source: &r.source,
            len: r.len,
            format: Format::Native,
            found: &r.diagnostics,
            digests: &r.digests,
        }
    }
}

/// The room pass over the files of the call `call`: the findings of the
/// room-scope rules about agents whose own log is not among the files, per
/// file (in the order of `members`), each at a copy of the line in that
/// file. A finding the per-file pass already made (same rule, same agent,
/// same line, whichever copy it points at) is left out, and so is a second
/// finding on another copy of the same line.
pub fn check(linter: &Linter, call: &str, members: &[Member<'_>]) -> Vec<Vec<Diagnostic>> {
    let mut out: Vec<Vec<Diagnostic>> = members.iter().map(|_| Vec::new()).collect();
    let parts = parts_of(linter, call, members);
    if parts.iter().map(|p| p.member).collect::<HashSet<_>>().len() < 2 {
        return out;
    }
    let views: Vec<&Digest> = parts.iter().map(|p| &*p.digest).collect();
    let human = views.iter().find_map(|v| v.human.as_deref());
    let voicebot = views.first().map_or("Delta", |v| v.voicebot.as_str());
    let mut lanes = RoomLanes::new(human, voicebot);
    let lines = merge(&views, &mut lanes);
    let mut by_lane = vec![Vec::new(); lanes.names.len()];
    for (i, l) in lines.iter().enumerate() {
        by_lane[l.lane].push(i);
    }
    let labels: Vec<&str> = lanes.names[2..].iter().map(String::as_str).collect();
    let mut room = Room {
        members,
        parts: &parts,
        views: &views,
        lines: &lines,
        lanes: &lanes,
        by_lane,
        roster: Roster::new(human, voicebot, &labels),
        langs: Vec::new(),
        bases: bases(members),
        copies: Copies::new(&parts, &views, &lines, members.len()),
        call,
        human,
        voicebot,
    };
    room.langs = room.langs();
    let mut found = room.found_keys();
    let mut sources: Vec<Option<Located<'_>>> = members.iter().map(|_| None).collect();
    let cast = linter.cast();
    // The agents without a log are judged on every core.
    let judged: Vec<Vec<Diagnostic>> = room
        .logless()
        .par_iter()
        .with_max_len(1)
        .map(|&k| {
            let log = room.view_of(k);
            let view = Call::build(log.meta.as_ref(), &log.records, cast);
            let mut diagnostics = Vec::new();
            linter.run_room(&view, &mut diagnostics);
            diagnostics
        })
        .collect();
    for diagnostics in judged {
        for d in diagnostics {
            let Some((m, mut d)) = room.place(d, &mut sources) else {
                continue;
            };
            d.call.get_or_insert_with(|| call.to_string());
            if !linter
                .ignored_in(members[m].path)
                .iter()
                .all(|(r, _)| *r != d.rule && *r != "all")
            {
                continue;
            }
            if found.insert(room.key(m, &d)) {
                out[m].push(d);
            }
        }
    }
    out
}

/// The digest of one call in one file.
struct Part<'a> {
    member: usize,
    digest: Cow<'a, Digest>,
}

/// The digests of `call` in each native member, one part per log, on
/// every core.
fn parts_of<'a>(linter: &Linter, call: &str, members: &[Member<'a>]) -> Vec<Part<'a>> {
    let each: Vec<Vec<Part<'a>>> = members
        .par_iter()
        .enumerate()
        .with_max_len(1)
        .map(|(m, mem)| parts_of_member(linter, call, m, mem))
        .collect();
    each.into_iter().flatten().collect()
}

/// The digests of `call` in member `m`: those the per-file pass made, or
/// else made from the file's bytes read again.
fn parts_of_member<'a>(linter: &Linter, call: &str, m: usize, mem: &Member<'a>) -> Vec<Part<'a>> {
    if mem.format != Format::Native {
        return Vec::new();
    }
    if !mem.digests.is_empty() {
        return mem
            .digests
            .iter()
            .filter(|d| d.call_id.as_deref() == Some(call))
            .map(|d| Part {
                member: m,
                digest: Cow::Borrowed(d),
            })
            .collect();
    }
    let mut parts = Vec::new();
    for log in input::parse(mem.format, mem.source).logs {
        for_each_call(&log.records, |records| {
            if crate::model::call_id(records.iter()) == Some(call) {
                let built = Call::build(log.meta.as_ref(), records, linter.cast());
                parts.push(Part {
                    member: m,
                    digest: Cow::Owned(Digest::of(&built)),
                });
            }
        });
    }
    parts
}

/// A member's bytes with their line index, to name a line in a note.
struct Located<'a> {
    source: Cow<'a, [u8]>,
    index: LineIndex,
}

impl<'a> Located<'a> {
    /// The bytes of `file`: those given, or else the file read again
    /// (unpacked when compressed). A file that cannot be read again is
    /// named without a line.
    fn of(file: &Member<'a>) -> Located<'a> {
        let source = if file.source.len() == file.size() {
            Cow::Borrowed(file.source)
        } else {
            input::packed::read(std::path::Path::new(file.path))
                .map(Cow::Owned)
                .unwrap_or_default()
        };
        let index = LineIndex::new(&source);
        Located { source, index }
    }
}

/// The room line of every copy, by member and anchor.
struct Copies {
    /// Per view: the line of each of its lines, `u32::MAX` for none.
    line_of: Vec<Vec<u32>>,
    /// Per view: its lines' anchors, sorted, with their index.
    anchors: Vec<Vec<(Anchor, u32)>>,
    /// Per member: its views.
    views_of: Vec<Vec<usize>>,
}

impl Copies {
    fn new(parts: &[Part<'_>], views: &[&Digest], lines: &[Line], members: usize) -> Copies {
        let mut line_of: Vec<Vec<u32>> = views
            .iter()
            .map(|v| vec![u32::MAX; v.lines.len()])
            .collect();
        for (i, l) in lines.iter().enumerate() {
            for c in &l.copies {
                line_of[c.view][c.utterance] = i as u32;
            }
        }
        let anchors = views
            .par_iter()
            .with_max_len(1)
            .map(|v| {
                let mut a: Vec<(Anchor, u32)> = v
                    .lines
                    .iter()
                    .enumerate()
                    .map(|(k, h)| (h.anchor, k as u32))
                    .collect();
                a.sort_unstable_by_key(|x| (x.0.span.start, x.0.span.end, x.1));
                a
            })
            .collect();
        let mut views_of = vec![Vec::new(); members];
        for (vi, p) in parts.iter().enumerate() {
            views_of[p.member].push(vi);
        }
        Copies {
            line_of,
            anchors,
            views_of,
        }
    }

    /// The room line whose copy in member `m` is at `at`: the first in
    /// the timeline when several are.
    fn line_at(&self, m: usize, at: &Anchor) -> Option<usize> {
        let mut best: Option<u32> = None;
        for &vi in self.views_of.get(m)? {
            let a = &self.anchors[vi];
            let from = a
                .partition_point(|x| (x.0.span.start, x.0.span.end) < (at.span.start, at.span.end));
            for &(anchor, k) in a[from..].iter().take_while(|x| x.0.span == at.span) {
                let line = self.line_of[vi][k as usize];
                if anchor == *at && line != u32::MAX {
                    best = Some(best.map_or(line, |b| b.min(line)));
                }
            }
        }
        best.map(|b| b as usize)
    }
}

/// Where each member's bytes start in the one address space of the views.
fn bases(members: &[Member<'_>]) -> Vec<usize> {
    let mut at = 0usize;
    members
        .iter()
        .map(|m| {
            let base = at;
            at = at.saturating_add(m.size()).saturating_add(1);
            base
        })
        .collect()
}

/// Lanes by name: the human, the voicebot, then every agent.
struct RoomLanes {
    names: Vec<String>,
    voicebot: String,
    /// The first lane of each name, by [`name_key`]: a room of many agents
    /// finds a lane without comparing a name with all the others.
    by_key: HashMap<String, usize>,
}

impl RoomLanes {
    fn new(human: Option<&str>, voicebot: &str) -> RoomLanes {
        let names = vec![human.unwrap_or("human").to_string(), voicebot.to_string()];
        let mut by_key = HashMap::default();
        for (k, n) in names.iter().enumerate() {
            by_key.entry(name_key(n)).or_insert(k);
        }
        RoomLanes {
            names,
            voicebot: voicebot.to_string(),
            by_key,
        }
    }

    fn find(&self, name: &str) -> Option<usize> {
        if is_voicebot(&self.voicebot, name) {
            return Some(1);
        }
        self.by_key.get(&name_key(name)).copied()
    }
}

impl Lanes for RoomLanes {
    fn human(&self) -> usize {
        0
    }
    fn voicebot(&self) -> usize {
        1
    }
    fn agent(&mut self, name: &str) -> usize {
        if let Some(k) = self.find(name) {
            return k;
        }
        self.names.push(name.to_string());
        self.by_key.insert(name_key(name), self.names.len() - 1);
        self.names.len() - 1
    }
}

/// What a finding is about, to tell the same finding through two copies.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Target {
    /// A line of the room.
    Line(usize),
    /// Anything else: a place in a file.
    At(usize, Anchor),
}

type Key = (&'static str, String, Target);

/// The merged call, ready to give views of it.
struct Room<'r, 'c> {
    members: &'r [Member<'r>],
    parts: &'r [Part<'r>],
    views: &'r [&'c Digest],
    lines: &'r [Line],
    lanes: &'r RoomLanes,
    /// Each lane's lines, in spoken order.
    by_lane: Vec<Vec<usize>>,
    /// Every participant's name, to tell whom a line addresses.
    roster: Roster,
    /// The call's language settings ([`Room::langs`]).
    langs: Vec<(Ms, bool, Text)>,
    bases: Vec<usize>,
    copies: Copies,
    call: &'r str,
    human: Option<&'c str>,
    voicebot: &'c str,
}

impl<'r> Room<'r, '_> {
    fn member_of(&self, c: &LineCopy) -> usize {
        self.parts[c.view].member
    }

    fn shift(&self, m: usize, s: Span) -> Span {
        let b = self.bases[m];
        Span::new(b.saturating_add(s.start), b.saturating_add(s.end))
    }

    /// The member whose bytes a shifted span starts in, and the span there.
    fn unshift(&self, s: Span) -> Option<(usize, Span)> {
        let m = self
            .bases
            .partition_point(|&b| b <= s.start)
            .checked_sub(1)?;
        let b = self.bases[m];
        let len = self.members[m].size();
        let span = Span::new(s.start - b, s.end.saturating_sub(b).min(len));
        (span.start <= len).then_some((m, span))
    }

    /// The anchor of a copy, in its own file.
    fn anchor(&self, c: &LineCopy) -> Anchor {
        self.views[c.view].lines[c.utterance].anchor
    }

    /// The agents that spoke in the room and have no log of their own here.
    fn logless(&self) -> Vec<usize> {
        let own: Vec<&str> = self
            .views
            .iter()
            .filter_map(|v| v.recorder.as_deref())
            .collect();
        (2..self.lanes.names.len())
            .filter(|&k| {
                let name = &self.lanes.names[k];
                !own.iter().any(|o| same_name(o, name))
                    && self.by_lane[k].iter().any(|&i| !self.lines[i].dropped)
            })
            .collect()
    }

    /// The key of a finding placed in member `m`.
    fn key(&self, m: usize, d: &Diagnostic) -> Key {
        let agent: String = d
            .agent
            .as_deref()
            .unwrap_or("")
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        let target = self
            .line_at(m, &d.primary.at)
            .map_or(Target::At(m, d.primary.at), Target::Line);
        (d.rule, agent, target)
    }

    /// The room line whose copy in member `m` is at `at`.
    fn line_at(&self, m: usize, at: &Anchor) -> Option<usize> {
        self.copies.line_at(m, at)
    }

    /// The keys of what the per-file pass found.
    fn found_keys(&self) -> HashSet<Key> {
        let mut keys = HashSet::default();
        for (m, mem) in self.members.iter().enumerate() {
            for d in mem.found {
                keys.insert(self.key(m, d));
            }
        }
        keys
    }

    /// Move a finding of a view into the file its primary place is in.
    /// Secondary places in other files become notes in its help.
    fn place(
        &self,
        mut d: Diagnostic,
        sources: &mut [Option<Located<'r>>],
    ) -> Option<(usize, Diagnostic)> {
        let (m, span) = self.unshift(d.primary.at.span)?;
        d.primary.at.span = span;
        // The line is a copy in another agent's log: say whose it is when
        // the message does not.
        if let Some(agent) = d.agent.as_deref() {
            if !d.message.contains(agent) {
                d.message = format!("{agent}: {}", d.message);
            }
        }
        let mut notes: Vec<String> = Vec::new();
        let mut labels = Vec::new();
        for mut l in std::mem::take(&mut d.labels) {
            let Some((lm, ls)) = self.unshift(l.at.span) else {
                continue;
            };
            l.at.span = ls;
            if lm == m {
                labels.push(l);
                continue;
            }
            let file = &self.members[lm];
            let here = sources[lm].get_or_insert_with(|| Located::of(file));
            let mut note = file.path.to_string();
            if here.source.len() == file.size() {
                let at = resolve(&here.source, &here.index, &l.at);
                note.push_str(&format!(":{}:{}", at.line, at.column));
            }
            if let Some(t) = &l.text {
                note.push_str(": ");
                note.push_str(t);
            }
            notes.push(note);
        }
        d.labels = labels;
        if !notes.is_empty() {
            let mut help = d.help.take().unwrap_or_default();
            if !help.is_empty() {
                help.push_str("; ");
            }
            help.push_str("see also ");
            help.push_str(&notes.join("; "));
            d.help = Some(help);
        }
        Some((m, d))
    }

    /// The member order in which copies are picked for agent `k`: the files
    /// holding most of its lines first, then by path (so the order the files
    /// were named in does not matter).
    fn ranks(&self, k: usize) -> Vec<usize> {
        let mut count = vec![0usize; self.members.len()];
        // The last line each member was counted for: a member counts once
        // per line, however many copies it holds.
        let mut counted = vec![usize::MAX; self.members.len()];
        for &i in &self.by_lane[k] {
            for c in &self.lines[i].copies {
                let m = self.member_of(c);
                if counted[m] != i {
                    counted[m] = i;
                    count[m] += 1;
                }
            }
        }
        let mut order: Vec<usize> = (0..self.members.len()).collect();
        order.sort_by_key(|&m| (std::cmp::Reverse(count[m]), self.members[m].path, m));
        let mut rank = vec![0; self.members.len()];
        for (r, &m) in order.iter().enumerate() {
            rank[m] = r;
        }
        rank
    }

    /// The language settings of the call, in time order, each once: the
    /// time, whether a join reported it, and the value where a log holds it.
    fn langs(&self) -> Vec<(Ms, bool, Text)> {
        let mut v: Vec<(Ms, bool, Text)> = Vec::new();
        for (vi, d) in self.views.iter().enumerate() {
            let m = self.parts[vi].member;
            for l in &d.langs {
                v.push((
                    l.ts.unwrap_or(Ms::MIN),
                    l.join,
                    Text::inside(l.lang.clone(), l.anchor.path, self.shift(m, l.anchor.span)),
                ));
            }
        }
        v.sort_by_key(|x| x.0);
        v.dedup_by(|b, a| a.2.value == b.2.value);
        v
    }

    /// The log agent `k` would have recorded, as far as the room shows it:
    /// a join, then every line from its first to its last (from the human's
    /// line before its first when that one named it), its own as says, the
    /// others' as the events that carry them.
    fn view_of(&self, k: usize) -> Log {
        let me = self.lanes.names[k].as_str();
        let mine: Vec<usize> = self.by_lane[k]
            .iter()
            .copied()
            .filter(|&i| !self.lines[i].dropped)
            .collect();
        let (Some(&first), Some(&last)) = (mine.first(), mine.last()) else {
            return Log::default();
        };
        let rank = self.ranks(k);
        let pick = |l: &Line| -> LineCopy {
            l.copies
                .iter()
                .copied()
                .min_by_key(|c| rank[self.member_of(c)])
                .unwrap_or(l.copies[0])
        };
        let record = |c: &LineCopy, ts: Option<Ms>, name: &str, op: Op| {
            let m = self.member_of(c);
            let src = &self.views[c.view].lines[c.utterance];
            Record {
                ts,
                ..Record::new(
                    src.line,
                    self.shift(m, src.span),
                    Body::Fn(FnCall::new(name, op)),
                )
            }
            .from(Some(me.into()), Some(self.call.into()), Thread::Main)
        };
        let text = |c: &LineCopy, value: &str| -> Text {
            let a = self.anchor(c);
            Text::inside(
                value.to_string(),
                a.path,
                self.shift(self.member_of(c), a.span),
            )
        };

        let owner = self
            .views
            .iter()
            .find(|v| v.recorder_role == Some(Role::Owner))
            .and_then(|v| v.recorder.as_deref());
        let role = owner.map(|o| {
            if same_name(o, me) {
                Role::Owner
            } else {
                Role::Participant
            }
        });
        let names_me = |l: &Line| {
            if l.addressed_recorded {
                l.addressed.iter().any(|n| same_name(n, me))
            } else {
                self.roster
                    .addressees(&l.text)
                    .iter()
                    .any(|n| same_name(n, me))
            }
        };
        // The view starts at the agent's first line, or at the human's line
        // just before it when that line named the agent: then its first
        // line answers the human (the human took it to be in the call).
        let humans = &self.by_lane[0];
        let begin = humans[..humans.partition_point(|&h| h < first)]
            .iter()
            .copied()
            .rfind(|&h| !self.lines[h].dropped)
            .filter(|&h| {
                let l = &self.lines[h];
                self.lines[first].ts - l.ts <= crate::model::turns::WINDOW_MS && names_me(l)
            })
            .unwrap_or(first);
        let langs = &self.langs;
        let t0 = self.lines[begin].ts;
        // The language in force at the agent's first line: the setting
        // before it, or a join's (which holds from the call's start).
        let mut lang_at = langs
            .iter()
            .rposition(|x| x.0 <= t0)
            .or_else(|| langs.first().filter(|x| x.1).map(|_| 0));
        let mut records = Vec::new();
        let c0 = pick(&self.lines[first]);
        records.push(record(
            &c0,
            None,
            "join",
            Op::Join(Box::new(Join {
                call_id: Some(self.call.to_string()),
                label: Some(text(&c0, me)),
                status: Some("waiting_for_human".into()),
                context: Some(Context {
                    lang: lang_at.map(|i| langs[i].2.clone()),
                    mode: None,
                }),
                role,
                ..Join::default()
            })),
        ));
        let mut last_wake: Option<Ms> = None;
        let mut next_lang = lang_at.map_or(0, |i| i + 1);
        for l in &self.lines[begin..=last] {
            if l.dropped {
                continue;
            }
            let c = pick(l);
            // Language changes up to this line, as `context` events.
            while next_lang < langs.len() && langs[next_lang].0 <= l.ts {
                let (ts, _, t) = &langs[next_lang];
                if *ts > t0 && lang_at.is_none_or(|i| langs[i].2.value != t.value) {
                    let span = t.within().unwrap_or_default();
                    records.push(Record {
                        span,
                        ..record(
                            &c,
                            Some(*ts),
                            "next",
                            Op::next(Event::new(EventKind::Context(Box::new(Context {
                                lang: Some(t.clone()),
                                mode: None,
                            })))),
                        )
                    });
                    lang_at = Some(next_lang);
                }
                next_lang += 1;
            }
            let u = &self.views[c.view].lines[c.utterance];
            let line = |to_you: Option<bool>| EventLine {
                speaker: Some(u.speaker.clone()),
                text: Some(text(&c, &l.text)),
                ts: Some(l.ts),
                addressed_to: l.addressed_recorded.then(|| l.addressed.as_slice().into()),
                addressed_to_you: to_you,
                to_human: u.to_human,
            };
            let (name, op) = if l.lane == k {
                (
                    "say",
                    Op::Say(Box::new(Say {
                        text: Some(text(&c, &l.text)),
                        ..Say::default()
                    })),
                )
            } else if l.lane == 0 {
                let to_you = l
                    .addressed_recorded
                    .then(|| l.addressed.iter().any(|n| same_name(n, me)));
                (
                    "next",
                    Op::next(Event::new(EventKind::User(Box::new(line(to_you))))),
                )
            } else if l.lane == 1 {
                let mut ev = Event::new(EventKind::Timeout);
                ev.agent_said = Box::new([line(None)]);
                ("next", Op::next(ev))
            } else {
                let to_me = names_me(l);
                let may_wake = last_wake.is_none_or(|w| l.ts - w >= OPERATOR_EVERY_MS);
                if to_me && may_wake {
                    last_wake = Some(l.ts);
                    (
                        "next",
                        Op::next(Event::new(EventKind::Operator(Box::new(line(Some(true)))))),
                    )
                } else {
                    let mut ev = Event::new(EventKind::Timeout);
                    ev.operators_said = Box::new([line(Some(to_me))]);
                    ("next", Op::next(ev))
                }
            };
            records.push(record(&c, Some(l.ts), name, op));
        }
        Log {
            meta: Some(Meta {
                format: None,
                recorder: None,
                client: None,
                human: self.human.map(str::to_string),
                voicebot: Some(self.voicebot.to_string()),
            }),
            records,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::native::parse;
    use crate::lint::config::Config;
    use crate::model::Cast;

    const A: &str = r#"{"meta":{"format":1,"human":"Oliver"}}
{"ts":"2026-10-10T10:00:00.000Z","call":"c-1","fn":"join","args":{"call_id":"c-1","label":"Ann","greet":true},"result":{"status":"joined","role":"owner","context":{"lang":"en"}}}
{"ts":"2026-10-10T10:00:10.000Z","call":"c-1","fn":"next","result":{"type":"timeout","operators_said":[{"speaker":"Sol","text":"Hi, this is Sol, I'm in and listening.","ts":"2026-10-10T10:00:08.000Z","addressed_to":[],"to_human":true}]}}
{"ts":"2026-10-10T10:00:20.000Z","call":"c-1","fn":"next","result":{"type":"user","speaker":"Oliver","text":"Delta, what's on the boards?","addressed_to":["Delta"],"addressed_to_you":false}}
{"ts":"2026-10-10T10:00:26.000Z","call":"c-1","fn":"next","result":{"type":"timeout","operators_said":[{"speaker":"Sol","text":"The build is green and the tag is set.","ts":"2026-10-10T10:00:24.000Z","addressed_to":[],"to_human":true}]}}
"#;

    const B: &str = r#"{"meta":{"format":1,"human":"Oliver"}}
{"ts":"2026-10-10T10:00:01.000Z","fn":"join","args":{"call_id":"c-1","label":"Bo","greet":true},"result":{"status":"joined","role":"participant","context":{"lang":"en"}}}
{"ts":"2026-10-10T10:00:10.500Z","fn":"next","result":{"type":"timeout","operators_said":[{"speaker":"Sol","text":"Hi, this is Sol, I'm in and listening.","ts":"2026-10-10T10:00:08.100Z","addressed_to":[],"to_human":true}]}}
{"ts":"2026-10-10T10:00:20.200Z","fn":"next","result":{"type":"user","speaker":"Oliver","text":"Delta, what's on the boards?","addressed_to":["Delta"],"addressed_to_you":false}}
{"ts":"2026-10-10T10:00:26.500Z","fn":"next","result":{"type":"timeout","operators_said":[{"speaker":"Sol","text":"The build is green and the tag is set.","ts":"2026-10-10T10:00:24.100Z","addressed_to":[],"to_human":true}]}}
"#;

    /// The rules of the room only: the tiny logs here skip the board and
    /// join steps the other rules want.
    fn linter() -> Linter {
        let room: Vec<String> = crate::rules::all()
            .iter()
            .map(|r| r.meta())
            .filter(|m| m.scope == crate::core::meta::Scope::Room)
            .map(|m| m.name.to_string())
            .collect();
        Linter::new(&Config::default(), Some(&room), &[]).unwrap()
    }

    #[test]
    fn call_id_from_records_then_join_or_create_call() {
        let (a, _) = parse(A.as_bytes());
        assert_eq!(crate::model::call_id(a.records.iter()), Some("c-1"));
        let (b, _) = parse(B.as_bytes());
        assert_eq!(crate::model::call_id(b.records.iter()), Some("c-1"));
        // A refused join names no call.
        let refused =
            r#"{"fn":"join","args":{"call_id":"c-9","label":"X"},"error":{"status":404}}"#;
        let (r, _) = parse(refused.as_bytes());
        assert_eq!(crate::model::call_id(r.records.iter()), None);
        let (none, _) = parse(b"{\"fn\":\"say\",\"args\":{\"text\":\"hi\"}}\n");
        assert_eq!(crate::model::call_id(none.records.iter()), None);
    }

    #[test]
    fn groups_need_two_files_of_one_call_and_someone_without_a_log() {
        let seen = |id: &str, me: &str, heard: &[&str]| CallSeen {
            id: id.to_string(),
            recorder: Some(me.to_string()),
            agents: std::iter::once(me)
                .chain(heard.iter().copied())
                .map(str::to_string)
                .collect(),
            start: None,
        };
        let (a, b) = (
            seen("c-1", "Ann", &["Bo", "Sol"]),
            seen("c-1", "Bo", &["Ann"]),
        );
        let other = seen("c-2", "Cy", &["Sol"]);
        let g = groups([
            (0, 0, &a),
            (1, 0, &other),
            (2, 0, &b),
            (3, 1, &a),
            (3, 1, &a),
            (4, 1, &b),
            (5, 0, &other),
        ]);
        assert_eq!(
            g,
            vec![
                (0, "c-1".to_string(), vec![0, 2]),
                (0, "c-2".to_string(), vec![1, 5]),
                (1, "c-1".to_string(), vec![3, 4]),
            ]
        );
        // Everyone heard has a log: no room to judge anybody in.
        let (a, b) = (seen("c-1", "Ann", &["Bo"]), seen("c-1", "Bo", &["ann"]));
        assert!(groups([(0, 0, &a), (1, 0, &b)]).is_empty());
    }

    #[test]
    fn a_line_two_logs_heard_is_one_line_with_two_copies() {
        let (a, _) = parse(A.as_bytes());
        let (b, _) = parse(B.as_bytes());
        let cast = Cast::default();
        let ca = Call::build(a.meta.as_ref(), &a.records, &cast);
        let cb = Call::build(b.meta.as_ref(), &b.records, &cast);
        let mut lanes = RoomLanes::new(Some("Oliver"), "Delta");
        let (da, db) = (Digest::of(&ca), Digest::of(&cb));
        let lines = merge(&[&da, &db], &mut lanes);
        let texts: Vec<(&str, usize)> = lines
            .iter()
            .map(|l| (l.text.as_str(), l.copies.len()))
            .collect();
        assert_eq!(
            texts,
            [
                ("Hi, this is Sol, I'm in and listening.", 2),
                ("Delta, what's on the boards?", 2),
                ("The build is green and the tag is set.", 2),
            ]
        );
        // The earliest time of the copies is the line's.
        assert_eq!(
            lines[0].ts,
            crate::input::ts::parse_rfc3339("2026-10-10T10:00:08.000Z").unwrap()
        );
    }

    #[test]
    fn the_agent_without_a_log_is_judged_once_at_a_real_line() {
        let l = linter();
        let a = l.lint("a.jsonl", A.as_bytes().to_vec());
        let b = l.lint("b.jsonl", B.as_bytes().to_vec());
        assert!(a.diagnostics.is_empty() && b.diagnostics.is_empty());
        let members = [Member::of(&a), Member::of(&b)];
        let found = check(&l, "c-1", &members);
        assert_eq!(found[0].len(), 1, "{found:#?}");
        assert!(found[1].is_empty(), "{found:#?}");
        let d = &found[0][0];
        assert_eq!(
            (d.rule, d.agent.as_deref()),
            ("spoke-over-delta", Some("Sol"))
        );
        // It points at Sol's line in a.jsonl, and its label at Oliver's.
        let index = LineIndex::new(&a.source);
        assert_eq!(resolve(&a.source, &index, &d.primary.at).line, 5);
        let at = resolve(&a.source, &index, &d.primary.at).span;
        assert_eq!(
            &A[at.start..at.end],
            "\"The build is green and the tag is set.\""
        );
        assert!(d.labels.iter().all(|x| x.at.span.end <= a.source.len()));

        // The call must match, and one file is no room.
        assert!(check(&l, "c-2", &members).iter().all(Vec::is_empty));
        assert!(check(&l, "c-1", &members[..1]).iter().all(Vec::is_empty));

        // A finding the per-file pass already made is not made again.
        let mut again = a.diagnostics.clone();
        again.push(d.clone());
        let members = [
            Member {
                found: &again,
                ..Member::of(&a)
            },
            Member::of(&b),
        ];
        assert!(check(&l, "c-1", &members).iter().all(Vec::is_empty));
    }

    #[test]
    fn a_label_in_another_file_becomes_a_note() {
        let l = linter();
        // b.jsonl holds Oliver's line, a.jsonl Sol's only (Sol's line and
        // greeting are cut from b, Oliver's line from a).
        let a_src: String = A
            .lines()
            .filter(|x| !x.contains("\"user\""))
            .map(|x| format!("{x}\n"))
            .collect();
        let b_src: String = B
            .lines()
            .filter(|x| !x.contains("Sol"))
            .map(|x| format!("{x}\n"))
            .collect();
        let a = l.lint("a.jsonl", a_src.into_bytes());
        let b = l.lint("b.jsonl", b_src.into_bytes());
        let found = check(&l, "c-1", &[Member::of(&a), Member::of(&b)]);
        let d = found[0].first().expect("a finding in a.jsonl");
        assert!(d.labels.is_empty(), "{d:#?}");
        let help = d.help.as_deref().unwrap();
        assert!(help.contains("see also b.jsonl:3:"), "{help}");
    }
}
