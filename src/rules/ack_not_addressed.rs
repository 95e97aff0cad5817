//! `ack-not-addressed`: a bare acknowledgement nobody asked for (the hard
//! rule on acknowledging, and rulebook rule 10).

use crate::core::hash::HashSet;

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::{Call, Utterance, Via, Who};
use crate::rules::{Cx, Rule};
use crate::text::lexicon::Lexicon;
use crate::text::words::{Phrases, Words};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "ack-not-addressed",
    rulebook: "hard, 10",
    scope: Scope::Room,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("acknowledging every line, whoever it was for"),
    default_severity: Severity::Warning,
    summary:
        "a bare acknowledgement or filler (\"On it\", \"Got it\", \"Mach ich\") while not addressed",
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
        let every = i.tells().any(|c| {
            c.has(ACK)
                || c.has(&[
                    "say",
                    "sag",
                    "sage",
                    "respond*",
                    "antworte*",
                    "reply",
                    "answer",
                ]) && i
                    .said
                    .iter()
                    .any(|q| (1..=4).contains(&q.split_whitespace().count()))
        }) && (i.has(EVERY) || i.has(&["always", "immer", "each time", "jedes mal"]))
            && i.has(LINES);
        // "only when addressed" keeps it to the agent's own turns; "even
        // when it was meant for someone else" does not
        if !every
            || i.has(ADDRESSED_ME)
            || i.conditions()
                .any(|c| c.has(&["addressed", "angesprochen"]) && !c.has(OTHERS))
        {
            return None;
        }
        Some(at_instruction(i, "this instruction has the agent acknowledge every line; only the addressed one acknowledges", "say to acknowledge only when addressed, with one short line, and otherwise to stay silent"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let Some(me) = call.recorder else { return };
        let lex = Lexicon::get();
        let names = call.name_words();
        let mut out = Vec::new();
        for (k, u) in call.utterances.iter().enumerate() {
            if u.who != Who::Me
                || u.via != Via::Say
                || !cx.judges(u.record())
                || !bare_ack(lex, u.text, &names)
            {
                continue;
            }
            if addressed_before(call, me, k) {
                continue;
            }
            let turn = u
                .turn
                .map(|t| &call.utterances[call.turns[t as usize].start]);
            let human = call.human.unwrap_or("the human");
            let mut f = Finding::new(
                u.anchor(),
                format!(
                    "bare acknowledgement {} while nobody asked {me} anything",
                    quote(u.text, 40)
                ),
            )
            .here("says nothing new");
            if let Some(h) = turn {
                let whom = if h.addressed_to.is_empty() {
                    "nobody in particular".to_string()
                } else {
                    h.addressed_to.join(", ")
                };
                f = f.label(h.anchor(), format!("{human} addressed {whom} here"));
            }
            out.push(f.help(
                "acknowledge only when you are addressed (then one short line, then work); otherwise stay silent and show progress on the board and in the activity feed",
            ));
        }
        for f in out {
            cx.report(f);
        }
    }
}

/// The text is nothing but acknowledgement phrases (and names).
pub(crate) fn bare_ack(lex: &Lexicon, text: &str, names: &HashSet<String>) -> bool {
    let list = lex.phrases("speech.acknowledgements");
    // Most says open with a word that is neither a name nor the start of an
    // acknowledgement: the rest of them need not be split into words.
    if text.is_ascii() {
        let Some(first) = crate::text::words::first_ascii_word(text) else {
            return false;
        };
        let first = first.to_ascii_lowercase();
        if !names.contains(&first) && !list.starts_any(&first) {
            return false;
        }
    }
    only_acks(&crate::text::phrases::words(text), list, names)
}

/// The words are acknowledgement phrases of `list` and names, at least
/// one phrase.
fn only_acks(w: &Words, list: &Phrases, names: &HashSet<String>) -> bool {
    let mut i = 0;
    let mut phrases = 0;
    while let Some(first) = w.get(i) {
        if names.contains(first) {
            i += 1;
        } else if let Some(n) = list.len_at(w, i) {
            i += n;
            phrases += 1;
        } else {
            return false;
        }
    }
    phrases > 0
}

/// The recorder had been addressed when it spoke utterance `k`: by the
/// human in the current turn, or by another agent since its last say.
fn addressed_before(call: &Call<'_>, me: &str, k: usize) -> bool {
    let names_me = |u: &Utterance<'_>| {
        u.addressed_to_you == Some(true)
            || u.addressed_to.iter().any(|a| a.eq_ignore_ascii_case(me))
    };
    let u = &call.utterances[k];
    if let Some(t) = u.turn {
        if names_me(&call.utterances[call.turns[t as usize].start]) {
            return true;
        }
    }
    call.utterances[..k]
        .iter()
        .rev()
        .take_while(|p| p.who != Who::Me && p.who != Who::Human)
        .any(|p| p.who == Who::Agent && names_me(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_acknowledgements() {
        let lex = Lexicon::get();
        let names: HashSet<String> = ["oliver".to_string(), "promo".to_string()]
            .into_iter()
            .collect();
        for t in [
            "Got it.",
            "On it, one moment.",
            "Okay, Oliver!",
            "Mach ich, Moment.",
            "Alles klar.",
            "Got it, thanks.",
            "I\u{2019}m on it.",
        ] {
            assert!(bare_ack(lex, t, &names), "{t}");
        }
        for t in [
            "Got it, the build is green.",
            "Yes, I'm here.",
            "Hi, this is Promo.",
            "",
            "Okay, I will restart the relay.",
        ] {
            assert!(!bare_ack(lex, t, &names), "{t}");
        }
    }

    /// The look at the first word alone answers as splitting the whole
    /// text does.
    #[test]
    fn first_word_shortcut_agrees_with_the_whole_split() {
        let lex = Lexicon::get();
        let list = lex.phrases("speech.acknowledgements");
        let names: HashSet<String> = ["oliver".to_string(), "promo".to_string()]
            .into_iter()
            .collect();
        let whole = |text: &str| only_acks(&crate::text::phrases::words(text), list, &names);
        let parts = [
            "",
            " ",
            "Got it",
            "got",
            "OK",
            "ok_",
            "_ok",
            "Okay",
            "Promo",
            "PROMO,",
            "oliver:",
            "thanks",
            "on it",
            "the build",
            "...",
            "1.5",
            "it's",
            "Mach ich",
            "alles klar",
            "?",
        ];
        let mut n = 0;
        for a in parts {
            for b in parts {
                for c in parts {
                    for t in [format!("{a} {b}. {c}"), format!("{a}{b}, {c}!")] {
                        assert_eq!(bare_ack(lex, &t, &names), whole(&t), "{t:?}");
                        n += usize::from(whole(&t));
                    }
                }
            }
        }
        assert!(n > 100, "too few acknowledgements among the texts: {n}");
    }
}
