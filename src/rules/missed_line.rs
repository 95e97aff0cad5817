//! `missed-line`: the agent says a line never reached it, though its own
//! events had delivered that line (seed rule 1).
//!
//! A claim is found per sentence of the agent's own `say`, with the phrase
//! lists of the lexicon's `[reading]` section. Whose line it means comes from
//! the sentence: a name right after the claim ("... from Promo"), a group
//! word ("the other agents", "each other"), a name before it ("opencode,
//! your question did not reach me"), "you"/"your" (the one the say
//! addresses), or, failing all of those, the line just before the say when
//! another agent spoke it. Lines of the human are never checked: they arrive
//! as `user` events, and "I didn't get that" after the human's speech is
//! about understanding, not delivery.

use crate::core::hash::HashMap;

use crate::core::diagnostic::{Finding, Severity};
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::{Call, Utterance, Via, Who};
use crate::rules::{Cx, Rule};
use crate::text::lexicon::Lexicon;
use crate::text::phrases::words;
use crate::text::words::Phrases;
use crate::text::words::Words;

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "missed-line",
    rulebook: "1",
    scope: Scope::Own,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("skipping other agents' lines (`operators_said`, `agent_said`)"),
    default_severity: Severity::Warning,
    summary: "the agent claims a line did not reach it that its own events delivered (often inside a `timeout` event)",
    options: &[],
};

/// How many words after a claim may hold the name it is about
/// ("no messages from the Promo agent").
const AFTER: usize = 6;

impl Rule for Check {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn instruction(
        &self,
        i: &crate::text::instructions::Instruction,
    ) -> Option<crate::core::diagnostic::Finding> {
        use crate::rules::at_instruction;
        use crate::text::instructions::concept::*;
        // dropping `timeout` events is `timeout-events-dropped`'s case;
        // ignoring lines not meant for the agent is not answering them
        if i.has(NOT_FOR_ME) {
            return None;
        }
        let skip = |c: &crate::text::instructions::Clause| {
            (c.has(SKIP) || c.has(&["unread", "ungelesen"])) && !c.has(&["timeout*"])
        };
        let skips = i.told().any(|(k, c)| skip(c) && i.names(k, OTHERS_LINES));
        // "read only the human's text"
        let only_human = i.tells().any(|c| {
            c.has(&["only", "nur", "just", "ausschließlich"])
                && c.has(READ)
                && c.has(HUMAN)
                && c.has(&["text", "line*", "speech", "words", "says", "zeile*", "sagt"])
        }) && !i.tells().any(|c| c.has(OTHERS_LINES) && !skip(c))
            && !i.has(&["timeout*"]);
        if !skips && !only_human {
            return None;
        }
        Some(at_instruction(i, "this instruction has the agent skip what the others say; their lines come in every event", "say to read `operators_said` and `agent_said` in every `next` event, whatever its type"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let Some(me) = call.recorder else { return };
        let lex = Lexicon::get();
        let names = Names::of(call);
        // One pass in record order: what had been delivered before each say.
        let mut order: Vec<usize> = (0..call.utterances.len()).collect();
        order.sort_by_key(|&k| (call.utterances[k].record(), k));
        let mut seen = Seen::default();
        let mut out = Vec::new();
        for k in order {
            let u = &call.utterances[k];
            if u.who != Who::Me {
                seen.add(k, u);
                continue;
            }
            if u.via != Via::Say || !cx.judges(u.record()) {
                continue;
            }
            for claim in claims(lex, u.text) {
                let Some(target) = resolve(lex, call, &names, u, &claim, seen.recent) else {
                    continue;
                };
                let Some((line, n)) = seen.delivered(call, &target, claim.question) else {
                    continue;
                };
                out.push(finding(
                    me,
                    u,
                    &target,
                    (
                        &call.utterances[line],
                        call.event_of(&call.utterances[line]),
                    ),
                    n,
                    claim.question,
                ));
                break;
            }
        }
        for f in out {
            cx.report(f);
        }
    }
}

/// The latest line of a kind seen so far, and how many there were; the same
/// for questions (lines with a `?`).
#[derive(Clone, Copy, Default)]
struct Tally {
    last: Option<usize>,
    n: usize,
    last_q: Option<usize>,
    n_q: usize,
}

impl Tally {
    fn add(&mut self, k: usize, question: bool) {
        self.last = Some(k);
        self.n += 1;
        if question {
            self.last_q = Some(k);
            self.n_q += 1;
        }
    }
    fn get(&self, question: bool) -> Option<(usize, usize)> {
        if question {
            self.last_q.map(|k| (k, self.n_q))
        } else {
            self.last.map(|k| (k, self.n))
        }
    }
}

/// What others said, as delivered so far.
#[derive(Default)]
struct Seen<'a> {
    /// Per other agent (lower-cased speaker).
    agents: HashMap<String, Tally>,
    /// The lower-cased name of each speaker as written, worked out once.
    lowered: HashMap<&'a str, String>,
    any_agent: Tally,
    voicebot: Tally,
    /// The latest line not spoken by the recorder.
    recent: Option<usize>,
}

impl<'a> Seen<'a> {
    fn add(&mut self, k: usize, u: &Utterance<'a>) {
        let q = u.text.contains('?');
        match u.who {
            Who::Agent => {
                let low = self
                    .lowered
                    .entry(u.speaker)
                    .or_insert_with(|| u.speaker.to_lowercase());
                match self.agents.get_mut(low.as_str()) {
                    Some(t) => t.add(k, q),
                    None => {
                        let mut t = Tally::default();
                        t.add(k, q);
                        self.agents.insert(low.clone(), t);
                    }
                }
                self.any_agent.add(k, q);
            }
            Who::Voicebot => self.voicebot.add(k, q),
            _ => {}
        }
        self.recent = Some(k);
    }

    /// The latest line of the target delivered so far, with how many there
    /// were.
    fn delivered(
        &self,
        call: &Call<'_>,
        target: &Target,
        question: bool,
    ) -> Option<(usize, usize)> {
        match target {
            Target::One(_, Who::Voicebot) => self.voicebot.get(question),
            Target::One(name, _) => self.agents.get(&name.to_lowercase())?.get(question),
            Target::Others => self.any_agent.get(question),
            Target::Recent(k) => {
                (!question || call.utterances[*k].text.contains('?')).then_some((*k, 1))
            }
        }
    }
}

/// Position and length of the first phrase of `list` in `w`.
fn find_any(w: &[String], list: &Phrases) -> Option<(usize, usize)> {
    list.find_gapped(w)
}

fn contains_any(w: &[String], list: &Phrases) -> bool {
    find_any(w, list).is_some()
}

/// A claim found in one sentence of a say.
#[derive(Debug)]
pub(crate) struct Claim {
    /// The words of the sentence.
    words: Vec<String>,
    /// Where the claim phrase starts and ends, in words.
    start: usize,
    end: usize,
    /// The claim is about a question ("your question did not reach me").
    question: bool,
}

/// Every claim that a particular line did not arrive, one per sentence at
/// most. A sentence that claims lines do not come through in general is a
/// claim about the call, `contradicted-claim`'s (see [`crate::text::claims`]).
pub(crate) fn claims(lex: &Lexicon, text: &str) -> Vec<Claim> {
    let missed = lex.phrases("reading.missed-claims");
    let mut out = Vec::new();
    let mut w = Words::default();
    for range in crate::text::addressing::sentences(text) {
        let sentence = &text[range];
        w.fill_lexical(sentence);
        // A listed phrase, else a claim read by its parts ("none of your
        // questions got to me"); its words are then those without hedges.
        let (start, n, hedged) = match missed.find_gapped(&w) {
            Some((start, n)) => (start, n, false),
            None => match crate::text::claims::arrival(lex, &w) {
                Some(a) if !a.general => (a.at.0, a.at.1, true),
                _ => continue,
            },
        };
        // A claim about the call as a whole is `contradicted-claim`'s.
        // Asked only of a sentence that claims something: most claim
        // nothing, and this reading of them was the most of the rule.
        if crate::text::claims::about_call(lex, &w).is_some() {
            continue;
        }
        let words = if hedged {
            crate::text::claims::without_hedges(lex, &w)
        } else {
            w.to_vec()
        };
        // "If your question did not reach me, ..." is no claim.
        if lex
            .phrases("reading.conditionals")
            .find_gapped(&words[..start])
            .is_some()
        {
            continue;
        }
        let question = lex
            .phrases("reading.question-words")
            .find_gapped(&w)
            .is_some();
        out.push(Claim {
            words,
            start,
            end: start + n,
            question,
        });
    }
    out
}

/// The participants a sentence may name, longest names first.
struct Names {
    list: Vec<(Vec<String>, String, Who)>,
}

impl Names {
    fn of(call: &Call<'_>) -> Names {
        let mut list: Vec<(Vec<String>, String, Who)> = Vec::new();
        let mut push = |name: &str, who: Who| {
            let w = words(name).to_vec();
            if !w.is_empty() {
                list.push((w, name.to_string(), who));
            }
        };
        if let Some(h) = call.human {
            push(h, Who::Human);
        }
        push(call.voicebot, Who::Voicebot);
        for a in &call.agents {
            let who = if Some(a.label.as_str()) == call.recorder {
                Who::Me
            } else {
                Who::Agent
            };
            push(&a.label, who);
        }
        list.sort_by_key(|(w, _, _)| std::cmp::Reverse(w.len()));
        Names { list }
    }

    /// The participant named at word `i`, with the length of the name.
    fn at(&self, w: &[String], i: usize) -> Option<(usize, &str, Who)> {
        self.list.iter().find_map(|(name, canon, who)| {
            let n = name.len();
            if i + n > w.len() {
                return None;
            }
            let head = w[i..i + n - 1] == name[..n - 1];
            let last = &w[i + n - 1];
            let tail =
                *last == name[n - 1] || last.strip_suffix("'s").is_some_and(|x| x == name[n - 1]);
            (head && tail).then_some((n, canon.as_str(), *who))
        })
    }

    /// Named participants in `w[from..to]`, in order, the recorder left out.
    fn in_range(&self, w: &[String], from: usize, to: usize) -> Vec<(usize, &str, Who)> {
        let mut out = Vec::new();
        let mut i = from;
        while i < to.min(w.len()) {
            match self.at(w, i) {
                Some((n, name, who)) => {
                    if who != Who::Me {
                        out.push((i, name, who));
                    }
                    i += n;
                }
                None => i += 1,
            }
        }
        out
    }
}

/// Whose line a claim is about.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Target {
    /// One participant (another agent, or the voicebot).
    One(String, Who),
    /// Any other agent ("the other agents", "each other", "nothing").
    Others,
    /// The line just before the say (index into the utterances).
    Recent(usize),
}

fn resolve(
    lex: &Lexicon,
    call: &Call<'_>,
    names: &Names,
    u: &Utterance<'_>,
    c: &Claim,
    recent: Option<usize>,
) -> Option<Target> {
    let w = &c.words;
    let one = |name: &str, who: Who| match who {
        // The human's lines are not what this rule is about.
        Who::Human => None,
        _ => Some(Target::One(name.to_string(), who)),
    };
    // A name right after (or inside) the claim.
    if let Some(&(_, name, who)) = names.in_range(w, c.start, c.end + AFTER).first() {
        return one(name, who);
    }
    // "... from Ferris" where Ferris never spoke in this log, or "from the
    // logs": still a sender, and none of its lines can have arrived.
    let after = &w[c.start..(c.end + AFTER).min(w.len())];
    if let Some(name) = unknown_sender(lex, after) {
        return Some(Target::One(name, Who::Agent));
    }
    // A group word there.
    if contains_any(after, lex.phrases("reading.groups")) {
        return Some(Target::Others);
    }
    // The nearest name before it.
    if let Some(&(_, name, who)) = names.in_range(w, 0, c.start).last() {
        return one(name, who);
    }
    // "your question": the one the say addresses.
    if contains_any(w, lex.phrases("reading.second-person")) {
        if let Some(a) = u.addressed_to.first() {
            let who = if Some(&**a) == call.human {
                Who::Human
            } else if call.is_voicebot(a) {
                Who::Voicebot
            } else {
                Who::Agent
            };
            return one(a, who);
        }
    }
    if contains_any(w, lex.phrases("reading.groups")) {
        return Some(Target::Others);
    }
    // "I didn't get that": the line just before, if another agent spoke it.
    let prev = recent?;
    (call.utterances[prev].who == Who::Agent).then_some(Target::Recent(prev))
}

/// The word after "from"/"von" (past an article) in a claim, when it is no
/// group word: the name of someone the log never heard.
fn unknown_sender(lex: &Lexicon, w: &[String]) -> Option<String> {
    const ARTICLES: &[&str] = &["the", "der", "die", "dem", "den", "agent"];
    let from = w.iter().position(|x| x == "from" || x == "von")?;
    let name = w[from + 1..]
        .iter()
        .find(|x| !ARTICLES.contains(&x.as_str()))?;
    let groups = lex.list("reading.groups");
    let is_group = groups.iter().any(|g| g.split(' ').any(|p| p == name));
    (!is_group).then(|| name.clone())
}

fn finding(
    me: &str,
    u: &Utterance<'_>,
    target: &Target,
    (line, event): (&Utterance<'_>, Option<&str>),
    n: usize,
    question: bool,
) -> Finding {
    let who = match target {
        Target::Others => "the other agents".to_string(),
        _ => line.speaker.to_string(),
    };
    let what = if question { "question" } else { "line" };
    let many = if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    };
    let event = event.unwrap_or("next");
    let place = match line.via {
        Via::OperatorEvent => "in an `operator` event".to_string(),
        Via::AgentSaid => format!("in `agent_said` of a `{event}` event"),
        _ if event == "timeout" => "in a `timeout` event".to_string(),
        _ => format!("in `operators_said` of a `{event}` event"),
    };
    let latest = if n > 1 { " (the latest)" } else { "" };
    Finding::new(
        u.anchor(),
        format!(
            "{me} claims a {what} from {who} did not reach it, but its own events had delivered {many} from {who}"
        ),
    )
    .here("claims the line never arrived")
    .label(
        line.anchor(),
        format!("{}'s {what} arrived here{latest}, {place}", line.speaker),
    )
    .help("read `operators_said` and `agent_said` of every `next` event, `timeout` events included, before saying a line is missing; if you truly find nothing, say that you are checking")
}

/// What other agents and Delta say, as the events carry it.
const OTHERS_LINES: &[&str] = &[
    "operators_said",
    "agent_said",
    "other agents' lines",
    "lines of other agents",
    "lines from other agents",
    "what other agents say",
    "what the other agents say",
    "zeilen anderer agenten",
    "zeilen der anderen agenten",
    "was andere agenten sagen",
];
/// Reading.
const READ: &[&str] = &[
    "read*",
    "process*",
    "look at",
    "evaluat*",
    "consider*",
    "handle*",
    "lies",
    "liest",
    "werte*",
    "auswert*",
    "beachte*",
    "verarbeite*",
];
/// Lines not meant for the agent.
const NOT_FOR_ME: &[&str] = &[
    "not for you",
    "not meant for you",
    "not addressed to you",
    "addressed to others",
    "addressed to someone else",
    "meant for others",
    "meant for someone else",
    "nicht an dich",
    "nicht für dich",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn claim_words(text: &str) -> Vec<Vec<String>> {
        claims(Lexicon::get(), text)
            .into_iter()
            .map(|c| c.words[c.start..c.end].to_vec())
            .collect()
    }

    #[test]
    fn finds_claims_in_both_languages() {
        for text in [
            "opencode, your question did not reach me, could you repeat it?",
            "I didn't get that.",
            "Sorry, I didn’t catch that.",
            "Deine Frage ist nicht angekommen.",
            "I haven't received your question.",
            "Deine Nachricht kam bei mir nicht an.",
        ] {
            assert!(!claim_words(text).is_empty(), "{text}");
        }
    }

    /// Sentences that claim lines do not come through in general are claims
    /// about the call: `contradicted-claim`'s, never this rule's too.
    #[test]
    fn claims_about_the_call_belong_to_contradicted_claim() {
        for text in [
            "I receive your speech and Delta's answers, but no messages from the Promo agent.",
            "Probably the agents can't hear each other.",
            "I can't hear the other agents.",
            "I hear nothing from Tarn.",
            "The relay only works one way.",
            "I receive no messages from Promo.",
            "I don't see anything from Promo.",
            "Ich bekomme nichts von Promo.",
            "Bei mir kommt von Promo nichts an.",
            "I see no lines from Promo in my last events; I am checking.",
        ] {
            assert!(claim_words(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn leaves_other_sentences_alone() {
        for text in [
            "I get no errors locally.",
            "I haven't received the build artifacts yet.",
            "Sorry, I didn't get your point.",
            "I got anything from Promo I needed.",
            "Ich bekomme keine Fehler.",
            "Das Paket ist nicht angekommen.",
            "Die Datei habe ich nicht bekommen.",
            "Promo's lines are there, sorry for the noise.",
            "If your question did not reach me, please ask again.",
            "I got your question, the answer is on my board.",
            "There is no answer from the build server yet.",
            "Nothing from the release checklist is open.",
            "Mara, the bridge logs are clean, no lines were dropped.",
            "Ich habe deine Frage bekommen.",
            "Wenn deine Frage nicht angekommen ist, frag bitte noch einmal.",
        ] {
            assert!(claim_words(text).is_empty(), "{text}");
        }
    }

    fn run(lines: &[String]) -> usize {
        crate::lint::engine::fired("missed-line", &lines.join("\n")).len()
    }

    const JOIN: &str = r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{"label":"Orca","greet":true},"result":{"status":"joined","context":{"lang":"en"}}}"#;

    fn heard(sec: u32, speaker: &str, text: &str) -> String {
        format!(
            r#"{{"ts":"2026-10-10T10:01:{sec:02}.000Z","fn":"next","result":{{"type":"timeout","operators_said":[{{"speaker":"{speaker}","text":"{text}"}}]}}}}"#
        )
    }
    fn human(sec: u32, text: &str) -> String {
        format!(
            r#"{{"ts":"2026-10-10T10:01:{sec:02}.000Z","fn":"next","result":{{"type":"user","speaker":"Mara","text":"{text}"}}}}"#
        )
    }
    fn say(sec: u32, text: &str) -> String {
        format!(
            r#"{{"ts":"2026-10-10T10:01:{sec:02}.000Z","fn":"say","args":{{"text":"{text}"}}}}"#
        )
    }

    #[test]
    fn a_named_sender_counts_only_its_own_lines() {
        let claim = "I didn't receive your message from Lumen.";
        let lumen = heard(1, "Lumen", "Mara, the draft is ready.");
        let pico = heard(1, "Pico", "Hi, this is Pico.");
        assert_eq!(run(&[JOIN.into(), lumen, say(5, claim)]), 1);
        assert_eq!(run(&[JOIN.into(), pico, say(5, claim)]), 0);
        // A sender the log never heard at all.
        let ferris = "I didn't receive your message from Ferris.";
        assert_eq!(
            run(&[JOIN.into(), heard(1, "Pico", "Hi."), say(5, ferris)]),
            0
        );
        // A sender that is no participant at all.
        let logs = "I didn't receive your message from the logs.";
        assert_eq!(
            run(&[JOIN.into(), heard(1, "Pico", "Hi."), say(5, logs)]),
            0
        );
    }

    #[test]
    fn lines_after_the_claim_do_not_count() {
        let lumen = heard(9, "Lumen", "Mara, the draft is ready.");
        assert_eq!(
            run(&[
                JOIN.into(),
                say(5, "Lumen, your question did not reach me."),
                lumen
            ]),
            0
        );
    }

    #[test]
    fn an_unnamed_claim_is_about_the_line_just_before() {
        let lumen = heard(1, "Lumen", "Orca, which branch is it on?");
        assert_eq!(
            run(&[
                JOIN.into(),
                lumen.clone(),
                say(5, "Sorry, I didn't get that.")
            ]),
            1
        );
        let mara = human(3, "Orca, mumble, the thing?");
        assert_eq!(
            run(&[
                JOIN.into(),
                lumen,
                mara,
                say(5, "Sorry, I didn't get that.")
            ]),
            0
        );
    }

    #[test]
    fn a_question_claim_needs_a_delivered_question() {
        let claim = "Lumen, your question did not reach me, could you repeat it?";
        let statement = heard(1, "Lumen", "The draft is ready.");
        let question = heard(1, "Lumen", "Is the draft ready?");
        assert_eq!(run(&[JOIN.into(), statement, say(5, claim)]), 0);
        assert_eq!(run(&[JOIN.into(), question, say(5, claim)]), 1);
    }

    #[test]
    fn german_claims_and_claims_about_the_call() {
        let lumen = heard(1, "Lumen", "Orca, ist der Entwurf fertig?");
        assert_eq!(
            run(&[
                JOIN.into(),
                lumen.clone(),
                say(5, "Lumen, deine Frage ist nicht angekommen.")
            ]),
            1
        );
        // Claims about the call are contradicted-claim's alone.
        for claim in [
            "Probably the agents can't hear each other.",
            "Ich bekomme nichts von Lumen.",
            "Bei mir kommt von Lumen nichts an.",
        ] {
            assert_eq!(run(&[JOIN.into(), lumen.clone(), say(5, claim)]), 0);
        }
    }

    #[test]
    fn question_claims_are_marked() {
        let c = claims(Lexicon::get(), "Your question did not reach me.");
        assert!(c[0].question);
        let c = claims(Lexicon::get(), "I didn't get your message.");
        assert!(!c[0].question);
    }
}
