//! `board-bundle`: a board item that bundles several things (seed rule 9).

use std::sync::OnceLock;

use regex::Regex;

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::rules::Once;
use crate::rules::{Cx, Rule};
use crate::text::lexicon::Lexicon;
use crate::text::phrases::strip_bullet;
use crate::text::words::{Phrases, Slice, WordList, Words};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "board-bundle",
    rulebook: "9",
    scope: Scope::Own,
    when: When::Record,
    needs: Evidence::BOARDS,
    instruction: Some("bundling several things into one board item"),
    default_severity: Severity::Warning,
    summary:
        "a board `open`/`done` item that bundles several things (\"6 decisions\", \"A, B and C\")",
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
        // or a board item written as a count: "3 open points"
        // (the count may stand anywhere in it: "cleaned up 12 files")
        let count = i.quoted.iter().any(|q| {
            let w: Vec<&str> = q.split_whitespace().collect();
            w.len() <= 8
                && w.windows(2).any(|p| {
                    p[0].parse::<u32>().is_ok_and(|n| n > 1)
                        && p[1].chars().next().is_some_and(char::is_alphabetic)
                })
        });
        let bundles = (i.tells().any(|c| c.has(BUNDLE) && c.has(THINGS))
            || count && i.tells().next().is_some())
            && i.has(BOARD);
        if !bundles
            || i.has(&[
                "per",
                "pro",
                "each",
                "jede*",
                "separate*",
                "einzeln",
                "one item per",
                "ein eintrag pro",
            ])
        {
            return None;
        }
        Some(at_instruction(i, "this instruction bundles several things into one board item; nobody can tell from it what they are", "say to write one item per thing, each with the thing and the place"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let mut once = Once::new();
        for (r, b) in cx.call.boards() {
            for item in b.open.iter().chain(&b.done) {
                let Some(why) = bundle(&item.value) else {
                    continue;
                };
                if !once.first(&item.value) {
                    continue;
                }
                cx.report(
                    Finding::new(
                        r.text(item),
                        format!("board item {}: {}", why.summary(), quote(&item.value, 60)),
                    )
                    .here(why.label())
                    .help(why.help()),
                );
            }
        }
    }
}

/// Why an item is a bundle.
#[derive(Debug, PartialEq)]
pub enum Bundle {
    /// "6 Entscheidungen", "4 decisions pending": a count of things.
    Count { count: String, noun: String },
    /// "Diverses für Mara": a grab bag.
    GrabBag(String),
    /// "Fix login, update docs and tag release": several tasks.
    Tasks(Vec<String>),
    /// "Login, docs and release": a list of things.
    List(usize),
    /// "1) … 2) …": a numbered list.
    Numbered(usize),
}

impl Bundle {
    fn summary(&self) -> String {
        match self {
            Bundle::Count { count, noun } => format!("hides {count} {noun} behind a count"),
            Bundle::GrabBag(w) => format!("is a grab bag ({})", quote(w, 20)),
            Bundle::Tasks(t) => format!("bundles {} tasks", t.len()),
            Bundle::List(n) => format!("lists {n} things in one"),
            Bundle::Numbered(n) => format!("is a numbered list of {n}"),
        }
    }
    fn label(&self) -> String {
        match self {
            Bundle::Count { .. } => "which ones? nobody can tell from the board".into(),
            Bundle::GrabBag(_) => "what is in it? nobody can tell from the board".into(),
            Bundle::Tasks(t) => format!("{} tasks: {}", t.len(), t.join(" · ")),
            Bundle::List(n) | Bundle::Numbered(n) => format!("{n} items in one"),
        }
    }
    fn help(&self) -> &'static str {
        match self {
            Bundle::Count { .. } | Bundle::GrabBag(_) =>
                "write one item per thing, each with the thing and the place; decisions for the human go to `decide`, one per question",
            _ => "split it: one item per thing, so each can be read, answered and ticked off on its own",
        }
    }
}

fn numbered_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?:^|\s)(?:\(\d{1,2}\)|\d{1,2}[.)])\s+\S").unwrap())
}

fn trailing_count_re() -> &'static Regex {
    // "Decisions (6)", "Open questions: 3"
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(?P<noun>[\p{L}\- ]+?)\s*(?:\((?P<a>\d+)\)|:\s*(?P<b>\d+))\s*$").unwrap()
    })
}

/// Parts of an item split at commas, semicolons, sentence ends and
/// joining words: the item's lower-case words, and each part as a range of
/// them, with whether a joining word (not a comma) set it off from the part
/// before.
fn parts(item: &str) -> (Words, Vec<bool>, Vec<(usize, usize, bool)>) {
    const JOINERS: &[&str] = &["and", "und", "then", "dann", "sowie", "plus", "&", "+", "/"];
    let mut words = Words::default();
    // Whether each word was written with a capital: German nouns are, its
    // verbs are not.
    let mut capital = Vec::new();
    let mut out = Vec::new();
    for chunk in item.split([',', ';']).flat_map(|c| c.split(". ")) {
        let mut start = words.len();
        let mut joined = false;
        for tok in chunk.split_whitespace() {
            let joiner = if tok.is_ascii() {
                JOINERS.iter().any(|j| tok.eq_ignore_ascii_case(j))
            } else {
                JOINERS.contains(&tok.to_lowercase().as_str())
            };
            if joiner {
                if words.len() > start {
                    out.push((start, words.len(), joined));
                    start = words.len();
                }
                joined = true;
                continue;
            }
            let before = words.len();
            words.extend(tok);
            let upper = tok
                .chars()
                .find(|c| c.is_alphabetic())
                .is_some_and(char::is_uppercase);
            capital.resize(words.len().max(before), upper);
        }
        if words.len() > start {
            out.push((start, words.len(), joined));
        }
    }
    (words, capital, out)
}

const PRONOUNS: &[&str] = &[
    "it", "them", "this", "that", "these", "those", "es", "sie", "das", "dies", "diese", "ihn",
];

/// The list's words of a part, joined by spaces.
fn joined(p: &Slice<'_>) -> String {
    (0..p.count())
        .map(|i| p.word(i))
        .collect::<Vec<_>>()
        .join(" ")
}

/// How a part of an item can be told to be a task when its verb is on no
/// list: an English or German imperative is followed by the start of its
/// object ("rotate the keys", "tell the partners", "rotiere die
/// Schlüssel"), a German infinitive closes the part, written small after a
/// noun written with a capital ("SDK anheben", "die Partner
/// benachrichtigen").
struct Shape<'a> {
    object_starts: &'a Phrases,
    not_verbs: &'a Phrases,
    /// Whether each of the item's words was written with a capital.
    capital: &'a [bool],
}

impl Shape<'_> {
    /// The first word of part `p` (starting at word `at` of the item) is a
    /// verb by its place: an object starts right after it.
    fn led(&self, p: &Slice<'_>) -> bool {
        p.count() >= 3
            && self.object_starts.has(p.word(1))
            && !self.object_starts.has(p.word(0))
            && !self.not_verbs.has(p.word(0))
            && !PRONOUNS.contains(&p.word(0))
            && p.word(0).chars().all(char::is_alphabetic)
    }

    /// The last word of part `p` (starting at word `at`) is a German
    /// infinitive by its form and case.
    fn closed(&self, p: &Slice<'_>, at: usize) -> bool {
        let n = p.count();
        let last = p.word(n - 1);
        n >= 2
            && last.chars().count() >= 7
            && last.ends_with("en")
            && last.chars().all(char::is_alphabetic)
            && !self.capital.get(at + n - 1).copied().unwrap_or(true)
            && (0..n - 1).any(|i| self.capital.get(at + i).copied().unwrap_or(false))
    }
}

/// A part that is a task of its own: led by an action verb (or, in German,
/// closed by an infinitive) and with an object that is not a pronoun.
fn is_task(verbs: &Phrases, finals: &Phrases, shape: &Shape<'_>, p: &Slice<'_>, at: usize) -> bool {
    let n = p.count();
    if n < 2 {
        return false;
    }
    let led = verbs.has(p.word(0)) || shape.led(p);
    let closed = !led && (finals.has(p.word(n - 1)) || shape.closed(p, at));
    if !(led || closed) {
        return false;
    }
    let object = if led { 1..n } else { 0..n - 1 };
    !object.into_iter().all(|i| PRONOUNS.contains(&p.word(i)))
}

fn count_word(lex: &Lexicon, w: &Words) -> Option<(String, usize)> {
    let first = w.get(0)?;
    if let Ok(n) = first.parse::<u32>() {
        return (n >= 2).then(|| (first.to_string(), 1));
    }
    let n = lex.phrases("board.counts").len_at(w, 0)?;
    Some((w.iter().take(n).collect::<Vec<_>>().join(" "), n))
}

/// The reason `item` bundles several things, if it does.
pub fn bundle(item: &str) -> Option<Bundle> {
    let lex = Lexicon::get();
    let item = strip_bullet(item);
    let words = Words::of(item);
    if words.is_empty() {
        return None;
    }
    // "1) … 2) …": each match holds a digit and its own `.` or `)`.
    let marks = item.bytes().filter(|b| matches!(b, b'.' | b')')).count();
    if marks >= 2 && item.chars().any(char::is_numeric) {
        let numbered = numbered_re().find_iter(item).count();
        if numbered >= 2 {
            return Some(Bundle::Numbered(numbered));
        }
    }
    let nouns = lex.phrases("board.bundle-nouns");
    // "6 Entscheidungen von Oliver", "4 decisions pending", "3 open questions"
    if let Some((count, n)) = count_word(lex, &words) {
        let mut k = n;
        if words
            .get(k)
            .is_some_and(|w| lex.phrases("board.bundle-adjectives").has(w))
        {
            k += 1;
        }
        if let Some(noun) = words.get(k).filter(|w| nouns.has(w)) {
            let original = item
                .split_whitespace()
                .find(|t| t.to_lowercase().starts_with(noun))
                .unwrap_or(noun);
            return Some(Bundle::Count {
                count,
                noun: original
                    .trim_matches(|c: char| !c.is_alphanumeric())
                    .to_string(),
            });
        }
    }
    // "Decisions (6)", "Offene Fragen: 3": the item ends in `)` or a digit.
    let counted = item
        .trim_end()
        .chars()
        .next_back()
        .is_some_and(|c| c == ')' || c.is_numeric());
    if let Some(c) = counted
        .then(|| trailing_count_re().captures(item))
        .flatten()
    {
        let n: u32 = c
            .name("a")
            .or(c.name("b"))
            .and_then(|m| m.as_str().parse().ok())
            .unwrap_or(0);
        let noun_words = Words::of(&c["noun"]);
        if n >= 2 && noun_words.iter().next_back().is_some_and(|w| nouns.has(w)) {
            return Some(Bundle::Count {
                count: n.to_string(),
                noun: c["noun"].trim().to_string(),
            });
        }
    }
    // "Diverses für Mara", "Misc", "Login, docs etc."
    if let Some(n) = lex.phrases("board.grab-bag").len_at(&words, 0) {
        let first: Vec<&str> = item.split_whitespace().take(n).collect();
        return Some(Bundle::GrabBag(
            first.join(" ").trim_end_matches([':', ',']).to_string(),
        ));
    }
    if let Some(last @ ("etc" | "usw")) = words.iter().next_back() {
        return Some(Bundle::GrabBag(last.to_string()));
    }
    let (pw, capital, ranges) = parts(item);
    if ranges.len() < 2 {
        return None;
    }
    let parts: Vec<Slice<'_>> = ranges.iter().map(|&(a, b, _)| pw.slice(a, b)).collect();
    let verbs = lex.phrases("board.action-verbs");
    let finals = lex.phrases("board.action-verbs-final");
    // "Fix login, update docs and tag release"; but in "Fix the build and
    // test job", "Check read and write permissions on the bucket" or
    // "Document install and upgrade for macOS", "and" joins two words that
    // look like verbs and are not: modifiers of one noun, or the objects of
    // the verb before. A part led by such a word, joined by "and" to a part
    // that ends in one, is read with the part before as one thing, unless a
    // new noun phrase of its own follows the word ("Fix the build and test
    // the release").
    let object_starts = lex.phrases("board.object-starts");
    let modifier = |k: usize| {
        let p = &parts[k];
        k > 0
            && ranges[k].2
            && p.count() >= 2
            && verbs.has(p.word(0))
            && verbs.has(parts[k - 1].word(parts[k - 1].count() - 1))
            && !object_starts.has(p.word(1))
            && !PRONOUNS.contains(&p.word(1))
    };
    let shape = Shape {
        object_starts,
        not_verbs: lex.phrases("board.not-verbs"),
        capital: &capital,
    };
    let tasks: Vec<String> = parts
        .iter()
        .enumerate()
        .filter(|&(k, p)| is_task(verbs, finals, &shape, p, ranges[k].0) && !modifier(k))
        .map(|(_, p)| joined(p))
        .collect();
    if tasks.len() >= 2 {
        return Some(Bundle::Tasks(tasks));
    }
    // "Login, docs and release notes": three or more short noun parts, no verb.
    let any_verb = parts
        .iter()
        .any(|p| verbs.has(p.word(0)) || finals.has(p.word(p.count() - 1)));
    if parts.len() >= 3 && !any_verb && parts.iter().all(|p| p.count() <= 2) && item.contains(',') {
        return Some(Bundle::List(parts.len()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_bundles_in_both_languages() {
        for item in [
            "6 Entscheidungen von Oliver",
            "4 decisions pending",
            "Fix login, update docs and tag release",
            "Diverses für Mara",
            "3 offene Fragen",
            "Login fixen, Doku aktualisieren und Release taggen",
            "several fixes for the parser",
            "Decisions (6)",
            "Offene Fragen: 3",
            "Misc",
            "1) login 2) docs",
            "Ask Oliver and update the docs",
            "Set up CI, then deploy staging",
            "Login, docs and changelog",
            "Fix login, docs etc.",
            "- [ ] 🛠️ Fix login; update docs",
            "Fix the build and test the release",
            "Fix the build, test job",
            "Read the RFC and update the docs",
            "Review pros and cons, then update the cache docs",
            "Fix login and update docs",
            "Check the logs and test the release on staging",
            "Check read access and update the docs",
            "Rotate the API keys, bump the SDK and tell the partners",
            "Schlüssel rotieren, SDK anheben und die Partner benachrichtigen",
            "Rotiere die Schlüssel und informiere die Partner",
        ] {
            assert!(bundle(item).is_some(), "{item}");
        }
    }

    #[test]
    fn leaves_single_tasks_alone() {
        for item in [
            "Compare staging and production latency",
            "Staging und Produktion vergleichen",
            "Review and merge PR 12",
            "Find out why the deploy fails and fix it",
            "Test on iOS and Android",
            "Fix login and logout",
            "Latency of staging, QA and prod",
            "Rest API docs: add auth section",
            "Write up the decision log",
            "Release 2.4 notes",
            "Update 1 item in the changelog",
            "Compare staging, QA and production latency",
            "iOS-Hinweis kurz oder lang? (Empf.: kurz)",
            "Fix flaky test in auth_test.rs",
            "Compare pros and cons of the two caches",
            "Fix the build and test job",
            "Check read and write latency",
            "Check read and write permissions on the bucket",
            "Check read, write and delete permissions for the bot",
            "Check read, write, and delete permissions for the bot",
            "Document install and upgrade for macOS",
            "Compare build and deploy times of staging",
            "Review merge and release notes for 2.4",
            "Build- und Testjob fixen",
            "Vor- und Nachteile der zwei Caches vergleichen",
            "Notes for the partners, keys of the SDK",
            "After the release, before the demo",
            "Partner-Doku zum SDK übersetzen",
            "",
        ] {
            assert_eq!(bundle(item), None, "{item}");
        }
    }
}
