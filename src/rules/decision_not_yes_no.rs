//! `decision-not-yes-no`: an open-ended `decide` question (seed rule 9).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::rules::{Cx, Rule};
use crate::text::lexicon::Lexicon;
use crate::text::phrases::{lower_words, starts_with_any};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "decision-not-yes-no",
    rulebook: "9",
    scope: Scope::Own,
    when: When::Record,
    needs: Evidence::DECISIONS,
    instruction: Some("asking decisions as open questions rather than yes/no"),
    default_severity: Severity::Info,
    summary: "an open-ended `decide` question with no options where a yes/no question would do",
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
        use crate::text::instructions::mentions;
        if !i.has(&["decide", "decision*", "entscheid*", "entscheidung*"]) {
            return None;
        }
        // yes/no named as what to ask, not as what to avoid
        let yes_no_told = i.told().any(|(_, c)| {
            c.find(YES_NO)
                .is_some_and(|at| !mentions(&c.words[..at], CONTRAST))
        });
        // yes/no forbidden, or open questions told instead of it
        let avoids = i.told().any(|(_, c)| c.has(OPEN_ENDED))
            || i.clauses.iter().any(|c| {
                !c.condition
                    && c.find(YES_NO)
                        .is_some_and(|at| mentions(&c.words[..at], CONTRAST))
            });
        if !avoids || yes_no_told {
            return None;
        }
        Some(at_instruction(i, "this instruction has the agent put open-ended decisions to the human where a yes/no question would do", "say to try a yes/no question first (with options where there are several); the human can still answer freely"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let lex = Lexicon::get();
        for (r, d) in cx.call.decides() {
            let Some(q) = &d.question else { continue };
            if d.options.as_ref().is_some_and(|o| !o.is_empty()) {
                continue;
            }
            if !open_ended(lex, &q.value, cx.call.human) {
                continue;
            }
            cx.report(
                Finding::new(
                    r.text(q),
                    format!("open-ended decision with no options: {}", quote(&q.value, 60)),
                )
                .here("asks for an answer in words, offers no choice")
                .help("ask a yes/no question first (\"Ship the short release note?\") or give `options`; the human can still answer freely by voice"),
            );
        }
    }
}

/// A wh-question that is not a choice between named alternatives.
pub(crate) fn open_ended(lex: &Lexicon, q: &str, human: Option<&str>) -> bool {
    let mut w = lower_words(q);
    // "Oliver, what ..." — skip a leading name.
    if let (Some(h), Some(first)) = (human, w.first()) {
        if first == &h.to_lowercase() {
            w.remove(0);
        }
    }
    if starts_with_any(&w, lex.list("questions.wh-words")).is_none() {
        return false;
    }
    !w.iter().any(|x| x == "or" || x == "oder")
}

/// A yes/no question.
const YES_NO: &[&str] = &[
    "yes/no",
    "yes or no",
    "yes-no",
    "yes-or-no",
    "ja/nein",
    "ja oder nein",
    "ja-nein",
    "closed question*",
    "geschlossene frage*",
];
/// Asked open-ended.
const OPEN_ENDED: &[&str] = &[
    "as open question*",
    "as an open question",
    "as open-ended",
    "open-ended",
    "open ended",
    "as free question*",
    "als offene frage*",
    "offen formulier*",
    "offene fragen statt",
    "freie frage*",
];
/// Rather than.
const CONTRAST: &[&str] = &[
    "rather than",
    "instead of",
    "not as",
    "not with",
    "avoid*",
    "statt",
    "anstatt",
    "nicht als",
    "vermeide*",
    "never",
    "nie",
    "not",
    "nicht",
    "kein*",
];
