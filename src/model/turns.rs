//! Turn-taking: who had the floor when the recorder spoke.
//!
//! Shared by the rules of seed rules 2 to 4 (`spoke-for-addressed`,
//! `spoke-over-delta`, `answered-human-question`, `answered-agent`,
//! `asked-delta`). [`verdicts`] walks the utterances of a call once, keeps
//! the state of the current human turn (whom the human addressed, which
//! agents addressed the recorder, the open question to the human, the agents
//! that spoke to the human) and classifies every `say` of the recorder that
//! the room heard. Each say gets at most one breach, the most specific one:
//! speaking over Delta, then answering a question meant for the human, then
//! speaking in another agent's turn, then answering an agent.
//!
//! A line only counts against a say when the recorder had it in hand (the
//! record that delivered the line comes before the `say` record in the log)
//! and was said at most [`WINDOW_MS`] before it.
//! A say queued before the human spoke is sorted into the turn before, and a
//! say the server dropped or revised was never heard; neither is judged.
//! A `decision` event (the human answered one of the recorder's own
//! `decide`s on the Decision Board) after the human's line ends that turn:
//! the human has turned to the recorder, and its says after it are judged
//! as if the human had addressed it.

use crate::core::hash::{HashMap, HashSet};

use crate::model::{
    next_event, Body, Breach, Call, EventKind, Op, TurnBreach, Utterance, Via, Who,
};
use crate::text::addressing::{sentences, Kind, Roster, GREETINGS};
use crate::text::lexicon::Lexicon;
use crate::text::phrases::{phrase_at, words};
use crate::text::words::{push_lower, NameList, Phrases, Words};

/// How long a line keeps its hold on the room: a say more than this long
/// after the human's line (or after another agent's question or line to the
/// human) is not judged against it. A human silent for a minute has let the
/// call move on, and an agent may then bring up what the human needs.
pub const WINDOW_MS: i64 = 60_000;

/// Every breach of turn-taking by the recorder, in the order of the says.
/// Computed once per call, however many rules ask.
/// The recorder's breaches of one kind, in the order of the says.
pub fn breaches<'c>(call: &'c Call<'_>, kind: Breach) -> impl Iterator<Item = &'c TurnBreach> + 'c {
    verdicts(call).iter().filter(move |v| v.breach == kind)
}

pub fn verdicts<'c>(call: &'c Call<'_>) -> &'c [TurnBreach] {
    call.memo.turn_verdicts.get_or_init(|| compute(call))
}

fn compute(call: &Call<'_>) -> Vec<TurnBreach> {
    let lex = Lexicon::get();
    let greetings = lex.list("turns.greetings");
    let heard = heard_says(call);
    let names = call.name_words();
    // Whether a line asks something is worked out only for the lines a
    // judged say depends on, once each.
    let mut asked = Asked {
        questions: Questions::new(lex, &names),
        memo: vec![None; call.utterances.len()],
    };
    let mut roles = Roles {
        call,
        memo: HashMap::default(),
    };
    let mut out: Vec<TurnBreach> = Vec::new();
    let mut seen: HashMap<(Breach, usize), usize> = HashMap::default();
    let mut st = TurnState::default();
    // Where each agent's latest line to the human is in `st.to_human`.
    // Keyed by names from the log: a hasher seeded anew in each process (`core::hash`).
    let mut latest: HashMap<&str, usize> = HashMap::default();
    // The records of `decision` events: the human answering one of the
    // recorder's own `decide`s on the Decision Board has turned to the
    // recorder, and ends a turn it gave to others before.
    let decisions: Vec<usize> = call
        .records
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            r.as_fn().is_some_and(|f| {
                matches!(&f.op, crate::model::Op::Next(Some(ev)) if matches!(ev.kind, crate::model::EventKind::Decision(_)))
            })
        })
        .map(|(i, _)| i)
        .collect();
    let decided_between = |a: usize, b: usize| {
        let i = decisions.partition_point(|&d| d <= a);
        decisions.get(i).is_some_and(|&d| d < b)
    };
    let mut prev: Option<usize> = None;
    for (k, u) in call.utterances.iter().enumerate() {
        match u.who {
            Who::Human => {
                let mut to_human = std::mem::take(&mut st.to_human);
                let mut lines_to_human = std::mem::take(&mut st.lines_to_human);
                to_human.clear();
                lines_to_human.clear();
                latest.clear();
                st = TurnState {
                    human: Some(k),
                    me: roles.names_me(u),
                    delta: u.addressed_to.iter().any(|n| roles.of(n).voicebot),
                    // Someone other than the recorder, the voicebot and
                    // the human.
                    others: u.addressed_to.iter().any(|n| {
                        let r = roles.of(n);
                        !r.me && !r.voicebot && !r.human
                    }),
                    to_human,
                    lines_to_human,
                    ..TurnState::default()
                };
            }
            Who::Agent => {
                if roles.names_me(u) {
                    st.woken = Some(st.woken.map_or(u.record(), |r| r.min(u.record())));
                } else if roles.speaks_to_human(u) && !greets(greetings, u.speaker, u.text) {
                    st.lines_to_human.push(k);
                    // Only the speaker's latest line stays: the one before
                    // is left as a gap, found through `latest`.
                    if let Some(p) = latest.insert(u.speaker, st.to_human.len()) {
                        st.to_human[p] = GONE;
                    }
                    st.to_human.push(k);
                }
            }
            Who::Me if u.via == Via::Say && heard.contains(&u.record()) => {
                let turned_to_me = st
                    .human
                    .is_some_and(|h| decided_between(call.utterances[h].record(), u.record()));
                if turned_to_me {
                    prev = Some(k);
                    continue;
                }
                if let Some((breach, against)) = judge(call, lex, &st, prev, k, &mut asked) {
                    match seen.get(&(breach, against)) {
                        Some(&i) => out[i].again.push(k),
                        None => {
                            seen.insert((breach, against), out.len());
                            out.push(TurnBreach {
                                breach,
                                say: k,
                                against,
                                again: Vec::new(),
                            });
                        }
                    }
                }
            }
            _ => {}
        }
        prev = Some(k);
    }
    out
}

/// What is known about the current human turn.
#[derive(Default)]
struct TurnState {
    /// The human's line that opened the turn.
    human: Option<usize>,
    /// The human addressed the recorder.
    me: bool,
    /// The human addressed the voicebot.
    delta: bool,
    /// The human addressed another agent (or someone else by name).
    others: bool,
    /// The earliest record that brought another agent's line addressing
    /// the recorder in this turn.
    woken: Option<usize>,
    /// The other agents' lines to the human (greetings left out), in
    /// order: the latest of them that asks something is the open question.
    lines_to_human: Vec<usize>,
    /// The latest line to the human of each other agent, in order; an
    /// earlier line of the same agent is [`GONE`].
    to_human: Vec<usize>,
}

/// A line in [`TurnState::to_human`] that a later one of its speaker
/// replaced.
const GONE: usize = usize::MAX;

/// The lines of a turn looked back at from one say stop at this many, and
/// at the first said more than [`WINDOW_MS`] before it: a turn of thousands
/// of lines must not cost their number for every say in it.
const LOOK_BACK: usize = 1024;

fn judge(
    call: &Call<'_>,
    lex: &Lexicon,
    st: &TurnState,
    prev: Option<usize>,
    k: usize,
    asked: &mut Asked<'_>,
) -> Option<(Breach, usize)> {
    let u = &call.utterances[k];
    let known = |j: usize| call.utterances[j].record() < u.record();
    // Said at most a minute before the say (or without a time to tell).
    // Utterances are in time order: before a line that is not, none is.
    let recent = |j: &usize| match (call.utterances[*j].ts(), u.ts()) {
        (Some(a), Some(b)) => b.saturating_sub(a) <= WINDOW_MS,
        _ => true,
    };
    // Known to the recorder, and recent.
    let live = |j: usize| known(j) && recent(&j);
    if let Some(h) = st.human {
        if !known(h) {
            // Said before the human's line reached the recorder.
            return None;
        }
    }
    if st.me || st.woken.is_some_and(|r| r < u.record()) {
        return None;
    }
    let human = st.human.filter(|&h| live(h));
    if let (true, Some(h)) = (st.delta, human) {
        return Some((Breach::OverDelta, h));
    }
    let question = st
        .lines_to_human
        .iter()
        .rev()
        .take(LOOK_BACK)
        .take_while(|j| recent(j))
        .copied()
        .find(|&q| asked.get(call, q));
    if let Some(q) = question.filter(|&q| live(q)) {
        return Some((Breach::HumanQuestion, q));
    }
    if let (true, Some(h)) = (st.others, human) {
        return Some((Breach::ForAddressed, h));
    }
    // Answering an agent: by name, to an agent that spoke to the human in
    // this turn ...
    let latest = st
        .to_human
        .iter()
        .rev()
        .filter(|&&j| j != GONE)
        .take(LOOK_BACK)
        .take_while(|j| recent(j));
    // A new question put to an agent whose line answered the human's own
    // question is no answer to that agent: the human has had the answer, and
    // the say opens an exchange of its own.
    let human_asked = st.human.is_some_and(|h| asked.get(call, h));
    for &j in latest.clone() {
        let other = &call.utterances[j];
        if live(j) && u.addressed_to.iter().any(|n| same_name(n, other.speaker)) {
            if human_asked && asked.get(call, k) {
                return None;
            }
            return Some((Breach::AnsweredAgent, j));
        }
    }
    // ... or with "yes", "agreed", "genau" right after its line, unless the
    // human's own line was a question that the "yes" may answer.
    let j = prev?;
    let other = &call.utterances[j];
    if other.who == Who::Agent
        && latest.clone().any(|&l| l == j)
        && live(j)
        && answer_marker(lex, u.text)
        && !human_asked
    {
        return Some((Breach::AnsweredAgent, j));
    }
    None
}

/// Who a name addressed stands for: the recorder, the human, the voicebot.
#[derive(Clone, Copy)]
struct Role {
    me: bool,
    human: bool,
    voicebot: bool,
}

/// [`Role`]s of the names lines address, each name worked out once.
struct Roles<'c, 'a> {
    call: &'c Call<'a>,
    /// Keyed by where a name is held, not by its text: the names of a log
    /// are shared, so that most lines' names hash as two numbers. Two
    /// copies of one name are worked out once each, alike.
    memo: HashMap<(usize, usize), Role>,
}

impl<'c> Roles<'c, '_> {
    fn of(&mut self, name: &'c str) -> Role {
        let call = self.call;
        let at = (name.as_ptr() as usize, name.len());
        *self.memo.entry(at).or_insert_with(|| Role {
            me: is_me(call, name),
            human: is_human(call, name),
            voicebot: call.is_voicebot(name),
        })
    }

    /// As [`names_me`].
    fn names_me(&mut self, u: &'c Utterance<'_>) -> bool {
        u.addressed_to_you == Some(true)
            || u.via == Via::OperatorEvent
            || u.addressed_to.iter().any(|n| self.of(n).me)
    }

    /// As [`speaks_to_human`].
    fn speaks_to_human(&mut self, u: &'c Utterance<'_>) -> bool {
        u.addressed_to.iter().any(|n| self.of(n).human)
            || match u.to_human {
                Some(t) => t,
                None => u.addressed_to.is_empty(),
            }
    }
}

/// Whether lines ask something, each worked out at most once.
struct Asked<'l> {
    questions: Questions<'l>,
    memo: Vec<Option<bool>>,
}

impl Asked<'_> {
    fn get(&mut self, call: &Call<'_>, k: usize) -> bool {
        if let Some(b) = self.memo[k] {
            return b;
        }
        let b = self.questions.ask(call.utterances[k].text);
        self.memo[k] = Some(b);
        b
    }
}

/// Records of the recorder's says that the room heard: accepted by the
/// server, not dropped, not revised, and not the greeting right after a
/// join.
pub fn heard_says(call: &Call<'_>) -> HashSet<usize> {
    let mut revised: HashSet<&str> = HashSet::default();
    for r in call.records {
        if let Some(ev) = next_event(r) {
            if let EventKind::Revise(rev) = &ev.kind {
                if let Some(id) = rev.say_id.as_deref() {
                    revised.insert(id);
                }
            }
        }
    }
    let greetings = greeting_says(call);
    let mut out = HashSet::default();
    for (i, r) in call.records.iter().enumerate() {
        let Body::Fn(f) = &r.body else { continue };
        let Op::Say(s) = &f.op else { continue };
        let dropped = s.say_status.as_deref() == Some("dropped")
            || s.say_id.as_deref().is_some_and(|id| revised.contains(id));
        if f.ok() && !dropped && !greetings.contains(&i) {
            out.insert(i);
        }
    }
    out
}

/// Records of says that greet on joining: the first `say` after a
/// successful `join`, with no `next` in between, and the recorder's first
/// say of the call when it is a greeting naming itself (a log that does not
/// show the moment of joining, such as a transcript's, still shows that).
pub fn greeting_says(call: &Call<'_>) -> HashSet<usize> {
    let greetings = Lexicon::get().list("turns.greetings");
    let mut out = HashSet::default();
    let mut fresh = false;
    let mut first = true;
    for (i, r) in call.records.iter().enumerate() {
        let Body::Fn(f) = &r.body else { continue };
        match &f.op {
            Op::Join(j) if f.ok() && j.joined() => fresh = true,
            Op::Next(_) => fresh = false,
            Op::Say(s) => {
                let greets = first
                    && call.recorder.is_some_and(|me| {
                        s.text
                            .as_ref()
                            .is_some_and(|t| greets(greetings, me, t.as_str()))
                    });
                if fresh || greets {
                    out.insert(i);
                }
                fresh = false;
                first = false;
            }
            _ => {}
        }
    }
    out
}

/// Names compared without case, separators or emoji: `🧩 opencode`,
/// `OpenCode` and `open-code` are the same name.
pub fn same_name(a: &str, b: &str) -> bool {
    // Compared as folded character streams: no allocation, as this runs for
    // every name of every line.
    if a.is_ascii() && b.is_ascii() {
        // The same folding, byte by byte: for ASCII, `is_alphanumeric` and
        // `to_lowercase` are their ASCII forms.
        if ascii_folded(a).next().is_none() || ascii_folded(b).next().is_none() {
            return a.trim() == b.trim();
        }
        return ascii_folded(a).eq(ascii_folded(b));
    }
    if folded(a).next().is_none() || folded(b).next().is_none() {
        return a.trim() == b.trim();
    }
    folded(a).eq(folded(b))
}

/// A key of `s` for maps of names: two names have the same key exactly
/// when [`same_name`] holds for them.
pub fn name_key(s: &str) -> String {
    let key = folded_text(s);
    if key.is_empty() {
        // Nothing to fold: compared as written, apart from the folded ones.
        format!("\u{0}{}", s.trim())
    } else {
        key
    }
}

fn ascii_folded(s: &str) -> impl Iterator<Item = u8> + '_ {
    s.bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
}

fn folded(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
}

fn is_me(call: &Call<'_>, name: &str) -> bool {
    call.recorder.is_some_and(|me| same_name(me, name))
}

fn is_human(call: &Call<'_>, name: &str) -> bool {
    call.human.is_some_and(|h| same_name(h, name))
}

/// The line addresses the recorder.
pub fn names_me(call: &Call<'_>, u: &Utterance<'_>) -> bool {
    u.addressed_to_you == Some(true)
        || u.via == Via::OperatorEvent
        || u.addressed_to.iter().any(|n| is_me(call, n))
}

/// Another agent's line goes to the human: it names the human, or the
/// server says so, or (not recorded) it names nobody.
pub fn speaks_to_human(call: &Call<'_>, u: &Utterance<'_>) -> bool {
    u.addressed_to.iter().any(|n| is_human(call, n))
        || match u.to_human {
            Some(t) => t,
            None => u.addressed_to.is_empty(),
        }
}

/// An agent's greeting: it opens with a greeting word and names its own
/// speaker ("Hi, this is Claude, I'm in and listening. What's up?"). Its
/// question is a formula, not one for the human to decide.
pub fn is_greeting(lex: &Lexicon, u: &Utterance<'_>) -> bool {
    greets(lex.list("turns.greetings"), u.speaker, u.text)
}

/// `text` opens with one of `greetings` (the lexicon's `turns.greetings`)
/// and names `speaker`.
fn greets(greetings: &[String], speaker: &str, text: &str) -> bool {
    let text = text.trim_start();
    let opens = if text.is_ascii() {
        // Lower case of ASCII is ASCII, byte for byte: compare in place,
        // the first byte on its own first, which turns most greetings away.
        let t = text.as_bytes();
        greetings.iter().any(|g| {
            let g = g.as_bytes();
            t.len() >= g.len()
                && g.first().is_none_or(|b| b.eq_ignore_ascii_case(&t[0]))
                && t[..g.len()].eq_ignore_ascii_case(g)
                && !t.get(g.len()).is_some_and(u8::is_ascii_alphanumeric)
        })
    } else {
        let low = text.to_lowercase();
        greetings.iter().any(|g| {
            low.strip_prefix(g.as_str())
                .is_some_and(|rest| !rest.starts_with(char::is_alphanumeric))
        })
    };
    if !opens {
        return false;
    }
    let me = folded_text(speaker);
    !me.is_empty() && folded_text(text).contains(&me)
}

/// `s`'s letters and digits, lower-cased: an ASCII text byte by byte.
fn folded_text(s: &str) -> String {
    if s.is_ascii() {
        ascii_folded(s).map(char::from).collect()
    } else {
        folded(s).collect()
    }
}

/// A token with the punctuation around it stripped and lower-cased (into
/// `buf`, as the range it takes there), and whether punctuation followed it.
fn token(buf: &mut String, t: &str) -> (std::ops::Range<usize>, bool) {
    let core = t.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’');
    let core = core.trim_matches(['\'', '’']);
    let punct = t
        .chars()
        .last()
        .is_some_and(|c| !c.is_alphanumeric() && c != '\'' && c != '’');
    let start = buf.len();
    push_lower(buf, core);
    (start..buf.len(), punct)
}

/// The text asks something: it holds a `?`, or a sentence opens (after
/// names and greetings) like a question without one, as speech recognition
/// writes it: a yes/no opener followed by its subject ("do you want ...",
/// "soll ich ..."), or a question word, a verb and a subject ("what do you
/// think", "wie soll ich ...").
pub fn is_question(lex: &Lexicon, text: &str, names: &HashSet<String>) -> bool {
    Questions::new(lex, names).ask(text)
}

/// [`is_question`] with its word lists looked up once and its buffer kept
/// from line to line.
pub struct Questions<'l> {
    yes_no: &'l Phrases,
    wh: &'l Phrases,
    subjects: &'l Phrases,
    names: NameList,
    buf: String,
}

impl<'l> Questions<'l> {
    pub fn new(lex: &'l Lexicon, names: &HashSet<String>) -> Questions<'l> {
        Questions {
            yes_no: lex.phrases("turns.yes-no-openers"),
            wh: lex.phrases("turns.wh-openers"),
            subjects: lex.phrases("turns.subject-pronouns"),
            names: NameList::new(names),
            buf: String::new(),
        }
    }

    pub fn ask(&mut self, text: &str) -> bool {
        if text.contains(['?', '？', '⁇', '⁈', '⁉']) {
            return true;
        }
        for range in sentences(text) {
            // Only the opening matters: up to four skipped words, then three.
            self.buf.clear();
            let mut spans: [(std::ops::Range<usize>, bool); 8] = Default::default();
            let mut len = 0;
            for t in text[range].split_whitespace().take(8) {
                spans[len] = token(&mut self.buf, t);
                len += 1;
            }
            let buf = self.buf.as_str();
            let toks = &spans[..len];
            let w = |k: usize| &buf[toks[k].0.clone()];
            let mut i = 0;
            while i < len
                && i < 4
                && (w(i).is_empty() || self.names.contains(w(i)) || skippable_greeting(w(i)))
            {
                i += 1;
            }
            if i >= len || toks[i].1 {
                continue;
            }
            let rest = len - i - 1;
            if self.yes_no.has(w(i)) {
                // "Is it green", "Soll ich taggen": a subject and more after it.
                if rest >= 2 && !toks[i + 1].1 && self.subjects.has(w(i + 1)) {
                    return true;
                }
            }
            if self.wh.has(w(i)) && rest >= 2 {
                let (w1, p1) = (w(i + 1), toks[i + 1].1);
                if !p1 && !self.subjects.has(w1) && self.subjects.has(w(i + 2)) {
                    return true;
                }
            }
        }
        false
    }
}

/// The sentence asks someone ("you") to do or answer something: it opens
/// (after up to three greetings or fillers) with a request ("could you",
/// "please", "kannst du"), ends with "please", or is a question with "you"
/// in it; sentences meant for the whole room ("Can everyone ...?") and uses
/// of "you" that ask nothing ("thank you") do not count.
pub fn is_request(lex: &Lexicon, sentence: &str) -> bool {
    is_request_in(lex, sentence, &words(sentence))
}

/// [`is_request`] of a sentence already split into its [`words`].
fn is_request_in(lex: &Lexicon, sentence: &str, w: &Words) -> bool {
    if w.is_empty() {
        return false;
    }
    let has = |key: &str| lex.phrases(key).find_gapped(w).is_some();
    if has("reading.room-words") {
        return false;
    }
    let not_asking = lex.phrases("reading.not-asking");
    // An opening such as "Could you", after up to three greetings or
    // fillers ("Okay, so, can you ...").
    let mut p = 0;
    for _ in 0..=3 {
        if phrase_at(w, p, not_asking).is_some() {
            return false;
        }
        if phrase_at(w, p, lex.phrases("reading.request-starts")).is_some() {
            return true;
        }
        if p < w.len() && is_greeting_word(&w[p]) {
            p += 1;
        } else {
            break;
        }
    }
    // "Check the logs, please."
    if matches!(w.last(), Some("please" | "bitte")) {
        return true;
    }
    // "What do you think?": a question with "you" in it, unless the "you"
    // is part of a phrase that asks nothing ("..., you know?").
    if !sentence.trim_end().ends_with(['?', '？']) {
        return false;
    }
    let second = lex.list("reading.second-person");
    let mut i = 0;
    while i < w.len() {
        if let Some(n) = phrase_at(w, i, not_asking) {
            i += n;
            continue;
        }
        if second.iter().any(|s| *s == w[i]) {
            return true;
        }
        i += 1;
    }
    false
}

/// A one-word greeting other than "please" and "bitte".
fn is_greeting_word(word: &str) -> bool {
    !word.contains(' ') && skippable_greeting(word)
}

/// The sentence is a request for work ([`is_request`] that opens with
/// "can you", "please", "kannst du" or ends with "please"), not a question
/// back: no verb in it asks for an answer ("Can you confirm the URL?", "Do
/// you mean staging?" are questions back; "Can you look at the queue?" is
/// work).
pub fn is_work_request(lex: &Lexicon, sentence: &str) -> bool {
    let w = words(sentence);
    if !is_request_in(lex, sentence, &w) {
        return false;
    }
    if lex
        .phrases("reading.answer-verbs")
        .find_gapped(&w)
        .is_some()
    {
        return false;
    }
    if matches!(w.last(), Some("please" | "bitte")) {
        return true;
    }
    let starts = lex.phrases("reading.work-request-starts");
    let mut p = 0;
    while p < w.len() && p <= 3 {
        if phrase_at(&w, p, starts).is_some() {
            return true;
        }
        if !is_greeting_word(&w[p]) {
            break;
        }
        p += 1;
    }
    false
}

/// The text asks its listener for something: a question, a request
/// ([`is_request`]), or a sentence that opens (after names and greetings)
/// with an order, a verb of the board's tasks ("Restart the relay", "Prüf
/// die Logs"). "Tarn, the port is 8443." asks nothing.
pub fn asks(lex: &Lexicon, text: &str, names: &HashSet<String>) -> bool {
    if is_question(lex, text, names) {
        return true;
    }
    let orders = lex.phrases("board.action-verbs");
    sentences(text).any(|r| {
        let sentence = &text[r];
        if is_request(lex, sentence) {
            return true;
        }
        let w = words(sentence);
        let first = w
            .iter()
            .position(|x| !names.contains(x) && !is_greeting_word(x));
        first.is_some_and(|i| orders.has(&w[i]))
    })
}

/// A greeting or interjection that may open a sentence before its question
/// ("Okay, so, should we ..."); "please" is left in place, since "please do
/// it" is a request, not a question.
fn skippable_greeting(w: &str) -> bool {
    !matches!(w, "please" | "bitte") && GREETINGS.contains(&w)
}

/// The text opens with an answer to someone: "Yes, ...", "Agreed.",
/// "Genau, ...", "I agree ...". A single word counts only when punctuation
/// follows it, so "No one answered" and "Right now ..." are no answers.
pub fn answer_marker(lex: &Lexicon, text: &str) -> bool {
    let low = text
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
        .replace('’', "'");
    lex.list("turns.answer-markers").iter().any(|m| {
        let Some(rest) = low.strip_prefix(m.as_str()) else {
            return false;
        };
        match rest.chars().next() {
            None => true,
            Some(c) if c.is_alphanumeric() => false,
            Some(c) if c.is_whitespace() => m.contains(' '),
            Some(_) => true,
        }
    })
}

/// How the text addressed the voicebot when speech recognition heard
/// another name ("Data"), if it did.
pub fn voicebot_heard_as<'t>(roster: &Roster, text: &'t str) -> Option<&'t str> {
    let ex = roster.explain(text);
    ex.hits
        .iter()
        .find(|h| h.kind == Kind::Voicebot)
        .filter(|h| h.variant)
        .map(|h| &text[h.span.clone()])
}

/// Names joined for a message: "Promo", "Promo and Juno", "A, B and C".
pub fn join_names(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [a] => (*a).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The names a human line addressed, other than the recorder's.
pub fn addressed_others<'u>(call: &Call<'_>, u: &'u Utterance<'_>) -> Vec<&'u str> {
    u.addressed_to
        .iter()
        .map(|n| &**n)
        .filter(|n| !is_me(call, n) && !is_human(call, n))
        .collect()
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        /// The byte-by-byte fold of an ASCII text is its fold char by char.
        #[test]
        fn ascii_fold_is_the_char_fold(s in "[ -~\t\n]{0,80}") {
            let chars: String = super::folded(&s).collect();
            proptest::prop_assert_eq!(super::folded_text(&s), chars);
        }
    }

    #[test]
    fn name_keys_are_equal_exactly_for_the_same_names() {
        let names = [
            "🧩 opencode",
            "OpenCode",
            "open-code",
            "Ann",
            "ann ",
            "Änne",
            "ÄNNE",
            "anne",
            "🧩",
            " 🧩",
            "🙂",
            "",
            " ",
            "A1",
            "a-1",
            "Bo",
            "Straße",
            "STRASSE",
        ];
        for a in names {
            for b in names {
                assert_eq!(
                    name_key(a) == name_key(b),
                    same_name(a, b),
                    "{a:?} and {b:?}"
                );
            }
        }
    }
    use super::*;

    fn q(text: &str) -> bool {
        let names: HashSet<String> = ["oliver", "promo", "claude", "delta"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        is_question(Lexicon::get(), text, &names)
    }

    #[test]
    fn questions_with_and_without_a_question_mark() {
        for t in [
            "Oliver, should I tag 2.5 today?",
            "Oliver, do you want the short changelog",
            "Hi Oliver, can we ship it now",
            "What do you think, Oliver",
            "Is the build green",
            "Oliver, wie soll ich das nennen",
            "Soll ich den Release taggen",
            "Oliver, gibt es noch offene Punkte",
            "How about we skip the beta",
        ] {
            assert!(q(t), "{t}");
        }
        for t in [
            "Oliver, the build is green.",
            "Do not merge yet.",
            "Will do, one moment.",
            "When you get a chance, review the PR.",
            "What we need is a green build.",
            "Was ich sagen wollte: der Build ist grün.",
            "Wie gesagt, der Build ist grün.",
            "Okay, das ist erledigt.",
            "Have a look at the logs.",
            "Did it, the tag is set.",
            "Please do it now.",
            "",
        ] {
            assert!(!q(t), "{t}");
        }
    }

    #[test]
    fn answer_markers_need_punctuation_after_one_word() {
        let lex = Lexicon::get();
        for t in [
            "Yes, I also saw it.",
            "Agreed, the beta adds nothing.",
            "No.",
            "Yes to both.",
            "I agree with Promo.",
            "Genau, so machen wir das.",
            "Ja!",
            "— Yes, right.",
        ] {
            assert!(answer_marker(lex, t), "{t}");
        }
        for t in [
            "No one answered its question.",
            "Yesterday the build was red.",
            "Right now the build runs.",
            "Oliver, yes is the answer.",
            "Jaguar is the code name.",
            "",
        ] {
            assert!(!answer_marker(lex, t), "{t}");
        }
    }

    #[test]
    fn names_compare_without_case_and_separators() {
        assert!(same_name("🧩 opencode", "OpenCode"));
        assert!(same_name("docs-bot", "Docs Bot"));
        assert!(!same_name("Promo", "Claude"));
        assert!(same_name("🧩", "🧩"));
        assert!(!same_name("🧩", "Promo"));
    }

    #[test]
    fn names_for_messages() {
        assert_eq!(join_names(&["Promo"]), "Promo");
        assert_eq!(join_names(&["Promo", "Juno"]), "Promo and Juno");
        assert_eq!(join_names(&["A", "B", "C"]), "A, B and C");
    }
}

/// Small native logs for the unit tests of the turn-taking rules.
#[cfg(test)]
pub(crate) mod testlog {
    /// A timestamp `ms` milliseconds after 10:00:00.
    pub fn ts(ms: u64) -> String {
        let (s, ms) = (ms / 1000, ms % 1000);
        format!("2026-10-10T10:{:02}:{:02}.{ms:03}Z", s / 60, s % 60)
    }

    fn list(names: &[&str]) -> String {
        let v: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
        format!("[{}]", v.join(","))
    }

    /// The log of `me`, in an English call with Oliver: a meta line, a join
    /// (with status) and then `records`.
    pub fn log(me: &str, records: &[String]) -> String {
        let mut s = String::from(r#"{"meta":{"format":1,"human":"Oliver","voicebot":"Delta"}}"#);
        s.push('\n');
        s.push_str(&format!(
            r#"{{"ts":"{}","agent":"{me}","fn":"join","args":{{"call_id":"c-1","label":"{me}","greet":true}},"result":{{"status":"joined","context":{{"lang":"en"}}}}}}"#,
            ts(0)
        ));
        s.push('\n');
        for r in records {
            s.push_str(r);
            s.push('\n');
        }
        s
    }

    /// Oliver's line; `to` is `addressed_to`, or `None` to leave it out.
    pub fn user(ms: u64, text: &str, to: Option<&[&str]>) -> String {
        let to = to.map_or(String::new(), |t| format!(r#","addressed_to":{}"#, list(t)));
        format!(
            r#"{{"ts":"{}","fn":"next","result":{{"type":"user","speaker":"Oliver","text":{text:?}{to}}}}}"#,
            ts(ms)
        )
    }

    /// Another agent's line in a timeout event, said 500 ms before.
    pub fn heard(ms: u64, speaker: &str, text: &str, to: &[&str], to_human: bool) -> String {
        format!(
            r#"{{"ts":"{}","fn":"next","result":{{"type":"timeout","operators_said":[{{"speaker":"{speaker}","text":{text:?},"ts":"{}","addressed_to":{},"addressed_to_you":false,"to_human":{to_human}}}]}}}}"#,
            ts(ms),
            ts(ms - 500),
            list(to)
        )
    }

    /// Another agent addressed the recorder (an `operator` event).
    pub fn operator(ms: u64, speaker: &str, me: &str, text: &str) -> String {
        format!(
            r#"{{"ts":"{}","fn":"next","result":{{"type":"operator","op":"op-9","speaker":"{speaker}","text":{text:?},"addressed_to":["{me}"],"addressed_to_you":true}}}}"#,
            ts(ms)
        )
    }

    /// Delta's line.
    pub fn delta(ms: u64, text: &str) -> String {
        format!(
            r#"{{"ts":"{}","fn":"next","result":{{"type":"timeout","agent_said":[{{"speaker":"Delta","text":{text:?},"ts":"{}","addressed_to":[],"to_human":true}}]}}}}"#,
            ts(ms),
            ts(ms - 500)
        )
    }

    /// The recorder's say.
    pub fn say(ms: u64, id: &str, text: &str) -> String {
        say_with(ms, id, text, "queued")
    }

    pub fn say_with(ms: u64, id: &str, text: &str, status: &str) -> String {
        format!(
            r#"{{"ts":"{}","fn":"say","args":{{"text":{text:?}}},"result":{{"say_id":"{id}","say_status":"{status}"}}}}"#,
            ts(ms)
        )
    }

    /// The server revised (dropped) the recorder's say.
    pub fn revise(ms: u64, id: &str) -> String {
        format!(
            r#"{{"ts":"{}","fn":"next","result":{{"type":"revise","say_id":"{id}","reason":"addressed_other"}}}}"#,
            ts(ms)
        )
    }

    /// A status call, so that a say is not the greeting right after join.
    pub fn status(ms: u64) -> String {
        format!(
            r#"{{"ts":"{}","fn":"status","args":{{"emoji":"👂","doing":"Listening"}},"result":{{}}}}"#,
            ts(ms)
        )
    }

    /// A `next` that returned nothing new.
    pub fn idle(ms: u64) -> String {
        format!(
            r#"{{"ts":"{}","fn":"next","result":{{"type":"timeout"}}}}"#,
            ts(ms)
        )
    }

    pub(crate) use crate::lint::engine::fired;

    /// Every turn-taking rule that fires, with its lines.
    pub fn all(log: &str) -> Vec<(usize, &'static str)> {
        let mut out = Vec::new();
        for rule in [
            "spoke-for-addressed",
            "spoke-over-delta",
            "answered-human-question",
            "answered-agent",
            "asked-delta",
        ] {
            for line in fired(rule, log) {
                out.push((line, rule));
            }
        }
        out.sort();
        out
    }
}
