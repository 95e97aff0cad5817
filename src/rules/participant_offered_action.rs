//! `participant-offered-action`: a participant offers to change, fix or
//! forward something nobody asked it for (rulebook rule 7).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::{Via, Who};
use crate::rules::{Cx, Rule};
use crate::text::addressing::sentences;
use crate::text::lexicon::Lexicon;
use crate::text::words::{Phrases, WordList, Words};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "participant-offered-action",
    rulebook: "7",
    scope: Scope::Room,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("offering to change, fix or forward things, unasked"),
    default_severity: Severity::Info,
    summary: "a participant offered to change, fix, edit or forward something, unasked",
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
        if !i.tells_any(OFFER)
            || !i.has(ACT) && !i.has(&["take over", "handle it", "übernehmen", "kümmern"])
            || i.has(ASKED_EXPLICITLY)
            || i.if_any(&["asked", "gefragt", "gebeten"])
        {
            return None;
        }
        Some(at_instruction(i, "this instruction has a participant offer work nobody asked it for", "say to note the idea on the board, and to offer nothing unless the human asks the agent by name"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let Some(me) = call.recorder else { return };
        if !call.recorder_is_participant() {
            return;
        }
        let lex = Lexicon::get();
        let human = call.human.unwrap_or("the human");
        let mut out = Vec::new();
        for u in &call.utterances {
            if u.who != Who::Me || u.via != Via::Say || !offers_action(lex, u.text) {
                continue;
            }
            let turn = u
                .turn
                .map(|t| &call.utterances[call.turns[t as usize].start]);
            if turn.is_some_and(|h| h.addressed_to.iter().any(|n| n.eq_ignore_ascii_case(me))) {
                continue;
            }
            let mut f = Finding::new(
                u.anchor(),
                format!("participant {me} offers to act, unasked"),
            )
            .here("an offer nobody asked for");
            if let Some(h) = turn {
                f = f.label(h.anchor(), format!("{human} did not ask {me} here"));
            }
            out.push(f.help(format!(
                "the work is already someone's: note the idea on your board under `open` and say nothing, or one sentence when {human} asks you directly"
            )));
        }
        for f in out {
            cx.report(f);
        }
    }
}

/// A sentence with an offer ("I can", "shall I", "soll ich") followed by an
/// action ("edit", "forward", "ändern").
pub(crate) fn offers_action(lex: &Lexicon, text: &str) -> bool {
    let offers = lex.phrases("conduct.offers");
    let actions = Actions::new(lex);
    let mut w = Words::default();
    sentences(text).any(|r| {
        w.fill_lexical(&text[r]);
        // An offer with an action anywhere after it: an action word at or
        // after the earliest end of an offer. Most sentences offer
        // nothing, and their words are not looked up as actions.
        let Some(end) = offers.each(&w).map(|(at, n)| at + n).min() else {
            return false;
        };
        (end..w.len()).any(|k| actions.has(w.word(k)))
    })
}

/// The lists that tell a word of acting, looked up once per text.
struct Actions<'l> {
    actions: &'l Phrases,
    bases: &'l Phrases,
    prefixes: &'l [String],
}

impl<'l> Actions<'l> {
    fn new(lex: &'l Lexicon) -> Actions<'l> {
        Actions {
            actions: lex.phrases("conduct.offer-actions"),
            bases: lex.phrases("conduct.offer-action-bases"),
            prefixes: lex.list("conduct.verb-prefixes"),
        }
    }

    /// A word of acting: on the list, or a German verb made of a separable
    /// prefix and a listed verb ("hochsetzen", "umbauen", "einbauen" of
    /// "setzen", "bauen"), as German forms new verbs at will.
    fn has(&self, word: &str) -> bool {
        if self.actions.has(word) {
            return true;
        }
        self.prefixes.iter().any(|p| {
            word.strip_prefix(p.as_str()).is_some_and(|base| {
                base.chars().count() >= 5 && (self.actions.has(base) || self.bases.has(base))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offers() {
        let lex = Lexicon::get();
        for t in [
            "I can add that line to the skill text.",
            "Shall I forward the rules to Promo?",
            "Soll ich den Skill anpassen?",
            "Ich kann das gern weiterleiten.",
            "Ich könnte übrigens den Timeout in der Konfiguration gleich hochsetzen.",
            "Soll ich die Retry-Logik umbauen?",
            "I\u{2019}ll forward the rules to Promo.",
        ] {
            assert!(offers_action(lex, t), "{t}");
        }
        for t in [
            "I can see Promo's lines in my events.",
            "The fix is deployed.",
            "Promo will update the skill.",
            "Ich könnte mir das später ansehen.",
            "Soll ich das kurz zusammenfassen?",
            "Soll ich Nora eine Frage stellen?",
            "I can't tell yet.",
            "",
        ] {
            assert!(!offers_action(lex, t), "{t}");
        }
    }
}
