//! `question-on-board`: a question for the human on the board instead of
//! on the Decision Board (seed rule 9).

use crate::core::hash::HashMap;

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::rules::Once;
use crate::rules::{Cx, Rule};
use crate::text::lexicon::Lexicon;
use crate::text::phrases::{lower_words, strip_bullet};
use crate::text::words::WordList;

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "question-on-board",
    rulebook: "9",
    scope: Scope::Own,
    when: When::Record,
    needs: Evidence::BOARDS,
    instruction: Some("putting questions for the human on the board instead of `decide`"),
    default_severity: Severity::Warning,
    summary: "a question only the human can decide, put on the board instead of into `decide`",
    options: &[],
};

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
        const ASKS: &[&str] = &[
            "question*",
            "frage*",
            "decision*",
            "entscheidung*",
            "to decide",
            "must decide",
            "has to decide",
            "needs to decide",
            "zu entscheiden",
            "entscheiden muss",
        ];
        // the question named in the clause, or referred back to ("when you
        // need a decision, add it to your open items")
        // `decide` named as the tool, not the human's deciding ("what the
        // human must decide")
        let names_decide = |c: &crate::text::instructions::Clause| {
            c.has(&[
                "decision board",
                "decision-board",
                "entscheidungsboard",
                "`decide`",
            ]) || c.has(DECIDE)
                && !c.has(&["must decide", "to decide", "should decide", "can decide"])
        };
        let puts = i.told().any(|(k, c)| {
            c.has(PUT)
                    && i.names(k, ASKS)
                    && c.has(OPEN_LIST)
                    // "open-ended" names how a question is asked, not a list
                    && (!c.has(&["open-ended", "open ended"]) || c.has(&["status", "board"]))
                    && !names_decide(c)
        });
        // a decision is the human's to make, whoever the sentence names
        let for_human = i.has(HUMAN)
            || i.has(&[
                "decision question*",
                "entscheidungsfrage*",
                "questions to decide",
            ])
            || i.has(&[
                "to decide",
                "must decide",
                "zu entscheiden",
                "entscheiden muss",
            ]);
        let also = i.has(DECIDE)
            && i.tells().any(|c| {
                c.has(&[
                    "also",
                    "as well",
                    "auch",
                    "zusätzlich",
                    "both",
                    "sowohl",
                    "in two places",
                    "an beiden",
                ]) && c.has(OPEN_LIST)
            });
        // `decide` told to be left out is not where the question goes
        let parked = puts && for_human && !i.tells().any(|c| names_decide(c) && !c.has(OMIT));
        if !parked && !also {
            return None;
        }
        Some(at_instruction(i, "this instruction puts questions for the human on the board; they belong on the Decision Board", "say to ask the human with `decide` (a yes/no question first), and to keep such questions out of `open`"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let lex = Lexicon::get();
        let human = cx.call.human;
        let decides: Vec<_> = cx
            .call
            .decides()
            .filter_map(|(r, d)| d.question.as_ref().map(|q| (r, q, normal(&q.value))))
            .collect();
        // Each item normalised once, only when there is a decision to match.
        let items: Vec<String> = if decides.is_empty() {
            Vec::new()
        } else {
            cx.call
                .boards()
                .flat_map(|(_, b)| b.open.iter().chain(b.doing.as_ref()))
                .map(|item| normal(&item.value))
                .collect()
        };
        let questions: Vec<&str> = decides.iter().map(|(_, _, q)| q.as_str()).collect();
        let twins = twins(&questions, &items);
        let mut once = Once::new();
        let mut k = 0;
        for (r, b) in cx.call.boards() {
            for item in b.open.iter().chain(b.doing.as_ref()) {
                let twin = items
                    .get(k)
                    .and_then(|n| twins.get(n.as_str()))
                    .map(|&i| &decides[i]);
                k += 1;
                let reason = match twin {
                    Some(_) => Some("also asked with `decide`"),
                    None => for_human(lex, &item.value, human),
                };
                let Some(reason) = reason else { continue };
                if !once.first(&item.value) {
                    continue;
                }
                let who = human.unwrap_or("the human");
                let mut f = Finding::new(
                    r.text(item),
                    format!("a question for {who} on the board: {}", quote(&item.value, 60)),
                )
                .here(reason)
                .help(format!(
                    "ask it once with `decide` (the Decision Board), yes/no if you can, and keep it off `open`; {who} answers there and you get the `decision` event"
                ));
                if let Some((dr, q, _)) = twin {
                    f = f.label(dr.text(q), "the same question, asked with `decide`");
                }
                cx.report(f);
            }
        }
    }
}

/// Lower-case words joined by single spaces, for comparing texts.
fn normal(s: &str) -> String {
    lower_words(s).join(" ")
}

/// For each board item (normalised), the first question asked with
/// `decide` (by its place in `questions`) that contains it or that it
/// contains, if one does: both ways at once through two automata, so that
/// a call of many boards and many decisions costs their length, not their
/// product.
fn twins<'q>(questions: &[&str], items: &'q [String]) -> HashMap<&'q str, usize> {
    use aho_corasick::AhoCorasick;
    let mut distinct: Vec<&'q str> = items
        .iter()
        .map(String::as_str)
        .filter(|n| !n.is_empty())
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    let mut out: HashMap<&'q str, usize> = HashMap::default();
    if questions.is_empty() || distinct.is_empty() {
        return out;
    }
    let mut best = |item: &'q str, q: usize| {
        out.entry(item)
            .and_modify(|b| *b = (*b).min(q))
            .or_insert(q);
    };
    // An empty question is in every item.
    if let Some(q) = questions.iter().position(|q| q.is_empty()) {
        for &n in &distinct {
            best(n, q);
        }
    }
    // Each distinct question once, by its first place: a call may ask the
    // same question thousands of times, and only the first can be the
    // twin. An automaton of every copy would cost their number squared.
    let mut first: HashMap<&str, usize> = HashMap::default();
    for (q, text) in questions.iter().enumerate() {
        first.entry(text).or_insert(q);
    }
    // Questions inside items.
    let mut ids: Vec<usize> = first
        .iter()
        .filter(|(text, _)| !text.is_empty())
        .map(|(_, &q)| q)
        .collect();
    ids.sort_unstable();
    if let Ok(ac) = AhoCorasick::new(ids.iter().map(|&i| questions[i])) {
        for &n in &distinct {
            if let Some(q) = ac
                .find_overlapping_iter(n)
                .map(|m| ids[m.pattern().as_usize()])
                .min()
            {
                best(n, q);
            }
        }
    }
    // Items inside questions: the first question that holds each. Calls
    // ask few distinct questions, so each one's pieces are looked up among
    // the items when that is little work; else (and the same answer) an
    // automaton of the items, which costs memory by their number.
    let longest = distinct.iter().map(|n| n.len()).max().unwrap_or(0);
    let work: usize = first.keys().map(|q| q.len() * q.len().min(longest)).sum();
    if work <= PIECES_WORK {
        let set: crate::core::hash::HashSet<&str> = distinct.iter().copied().collect();
        for (text, &q) in &first {
            for (start, _) in text.char_indices() {
                let rest = &text[start..];
                for (end, c) in rest.char_indices() {
                    let end = end + c.len_utf8();
                    if end > longest {
                        break;
                    }
                    if let Some(&n) = set.get(&rest[..end]) {
                        best(n, q);
                    }
                }
            }
        }
    } else if let Ok(ac) = AhoCorasick::new(&distinct) {
        for (text, &q) in &first {
            for m in ac.find_overlapping_iter(text) {
                best(distinct[m.pattern().as_usize()], q);
            }
        }
    }
    out
}

/// Most substring lookups (bytes of the distinct questions times the
/// longest item) made instead of building an automaton of the items.
const PIECES_WORK: usize = 4_000_000;

/// Why an item reads as a decision only the human can make; `None` when it
/// may well be the agent's own open question.
pub(crate) fn for_human(lex: &Lexicon, item: &str, human: Option<&str>) -> Option<&'static str> {
    let item = strip_bullet(item);
    let w = crate::text::phrases::words(item);
    let question = item.contains('?');
    let human = human.map(str::to_lowercase);
    let names_human = human.as_deref().is_some_and(|h| w.iter().any(|x| x == h));
    let marker = lex.phrases("questions.decision-markers").first_at(&w);
    // Skip a leading "Oliver:" before looking at how the question opens.
    let body = match (&human, w.get(0)) {
        (Some(h), Some(f)) if f == h => w.slice(1, w.len()),
        _ => w.slice(0, w.len()),
    };
    let asks_leave = lex
        .phrases("board.decision-starts")
        .len_at(&body, 0)
        .is_some();
    if question && names_human {
        return Some("asks the human");
    }
    if question && (0..body.count()).any(|k| matches!(body.word(k), "or" | "oder")) {
        return Some("a choice only the human can make");
    }
    if question && asks_leave {
        return Some("asks for the human's go-ahead");
    }
    match marker {
        Some(_) if question || names_human => Some("a decision for the human"),
        Some(0) if !german_task(item) => Some("a decision for the human"),
        _ => None,
    }
}

/// A German board item written as a task, ending in a verb in the
/// infinitive: "Freigabe melden", "Abnahme vorbereiten". German writes its
/// nouns with a capital, so a last word in lower case ending in `-en`,
/// `-ern` or `-eln` is a verb; such an item is the agent's own work about a
/// decision, not the decision.
fn german_task(item: &str) -> bool {
    let Some(last) = item
        .split_whitespace()
        .next_back()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
    else {
        return false;
    };
    last.chars().count() > 3
        && last.chars().all(|c| c.is_alphabetic() && c.is_lowercase())
        && (last.ends_with("en") || last.ends_with("rn") || last.ends_with("ln"))
        && item.split_whitespace().count() >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(item: &str) -> bool {
        for_human(Lexicon::get(), item, Some("Oliver")).is_some()
    }

    /// The automata find, for every item, the question the plain search
    /// over all pairs finds.
    #[test]
    fn twins_are_the_first_question_either_way() {
        let questions = ["ship 2 4 today", "", "release notes", "notes", "ship"];
        let items: Vec<String> = [
            "ship",
            "release notes for 2 4",
            "notes",
            "today",
            "x",
            "",
            "ship 2 4 today or not",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let long: Vec<String> = (0..3000)
            .map(|i| format!("{i} ship 2 4 today or not {}", "x".repeat(40)))
            .collect();
        let long: Vec<&str> = long.iter().map(String::as_str).collect();
        // The same question asked over and over, another after it.
        let again: Vec<&str> = ["notes"; 2000]
            .into_iter()
            .chain(["ship", "", "notes"])
            .collect();
        for qs in [
            &questions[..],
            &questions[2..],
            &questions[..1],
            &[][..],
            &long[..],
            &again[..],
        ] {
            let got = twins(qs, &items);
            for n in items.iter().filter(|n| !n.is_empty()) {
                let plain = qs
                    .iter()
                    .position(|q| q.contains(n.as_str()) || n.contains(q));
                assert_eq!(got.get(n.as_str()).copied(), plain, "{n:?} in {qs:?}");
            }
        }
    }

    #[test]
    fn questions_for_the_human() {
        for item in [
            "Oliver: ship the iOS note short or long?",
            "iOS-Hinweis kurz oder lang? (Empf.: kurz)",
            "Should we ship on Friday?",
            "Soll ich den Release heute taggen?",
            "Decision: Friday or Monday release",
            "Entscheidung: Release-Termin",
            "Freigabe: Release 3.1",
            "Ask Oliver whether the beta goes out?",
        ] {
            assert!(q(item), "{item}");
        }
    }

    #[test]
    fn the_agents_own_questions_stay() {
        for item in [
            "Why does CI fail on arm64?",
            "Is the relay one-way? (checking logs)",
            "Write up the decision log",
            "Compare staging and production latency",
            "Check whether the build is green",
            "Wie lange dauert der Build?",
            // a task about a decision is the agent's own work
            "Freigabe melden",
            "Abnahme für 3.1 vorbereiten",
            // a count of decisions is a bundle (board-bundle), not a question
            "6 Entscheidungen von Oliver",
        ] {
            assert!(!q(item), "{item}");
        }
    }
}
