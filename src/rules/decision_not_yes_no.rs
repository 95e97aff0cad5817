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
    instruction: None,
    default_severity: Severity::Info,
    summary: "an open-ended `decide` question with no options where a yes/no question would do",
    options: &[],
};

impl Rule for Check {
    fn meta(&self) -> &'static RuleMeta {
        &META
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
