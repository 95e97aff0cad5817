//! Which rule owns a sentence that says something did not arrive.
//!
//! Two rules read such sentences, and each sentence belongs to one of them:
//!
//! - a claim about the call: that someone's lines do not come through in
//!   general, that the relay works one way, that the agents cannot hear each
//!   other ("I hear nothing from Tarn", "bei mir kommt von Juno nichts an").
//!   That is a statement about the call made as fact, rulebook rule 8:
//!   `contradicted-claim`;
//! - a claim that one particular line did not arrive ("your question did not
//!   reach me, could you repeat it?", "I didn't catch that"). That is a line
//!   the agent missed, rulebook rule 1: `missed-line`.
//!
//! [`about_call`] decides: a sentence it accepts is the first kind, and
//! `missed-line` leaves it alone. The phrases are the lexicon's, in both
//! call languages.

use crate::text::lexicon::Lexicon;
use crate::text::words::{WordList, Words};

/// Where a sentence (its words) claims that lines of others do not reach
/// the speaker in general: start and length of the claim, in words.
///
/// Either a phrase of `conduct.no-reception-claims`, or a phrase of
/// `reading.missed-none-from` ("but no messages from Promo") in a sentence
/// with a first-person word and a verb of receiving ("I receive your
/// speech, but no messages from Promo"); a none-from phrase that starts with
/// "any" needs a negation before it ("I don't see anything from Promo").
/// A sentence that says it is being checked, or that is a condition ("if
/// nothing from Promo reaches me, ..."), claims nothing.
pub fn about_call(lex: &Lexicon, w: &Words) -> Option<(usize, usize)> {
    let found = lex
        .phrases("conduct.no-reception-claims")
        .find_gapped(w)
        .or_else(|| {
            let (i, n) = lex.phrases("reading.missed-none-from").find_gapped(w)?;
            let first_person = lex.phrases("reading.first-person").find_gapped(w).is_some();
            let receiving = lex
                .phrases("reading.receive-verbs")
                .find_gapped(w)
                .is_some();
            let denied = !w.word(i).starts_with("any") || w.iter().take(i).any(is_negation);
            (first_person && receiving && denied).then_some((i, n))
        })?;
    if lex.phrases("conduct.checking").occurs(w)
        || lex
            .phrases("reading.conditionals")
            .find_gapped(&w.slice(0, found.0))
            .is_some()
    {
        return None;
    }
    Some(found)
}

/// A word that negates ("not", "never", "didn't", "nicht").
pub fn is_negation(w: &str) -> bool {
    matches!(w, "not" | "never" | "no" | "nicht" | "nie") || w.ends_with("n't")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call_claim(text: &str) -> bool {
        about_call(Lexicon::get(), &crate::text::phrases::words(text)).is_some()
    }

    #[test]
    fn claims_about_the_call_in_both_languages() {
        for t in [
            "I hear nothing from Tarn.",
            "I receive your speech, but no messages from the Promo agent.",
            "Probably the agents can't hear each other.",
            "The agents cannot hear each other.",
            "The relay only works one way.",
            "I can't hear the other agents.",
            "I don't see anything from Promo.",
            "I receive no messages from Promo.",
            "Nothing from Lumen reaches me.",
            "Bei mir kommt von Juno nichts an.",
            "Ich höre nichts von Juno.",
            "Ich bekomme keine Nachrichten von Juno.",
            "Die Agenten können sich nicht hören.",
            "Das Relay geht nur in eine Richtung.",
        ] {
            assert!(call_claim(t), "{t}");
        }
    }

    #[test]
    fn missed_lines_and_other_sentences_are_not_claims_about_the_call() {
        for t in [
            "Your question did not reach me, could you repeat it?",
            "Sorry, I didn't catch that.",
            "Deine Frage ist nicht angekommen.",
            "I get no errors locally.",
            "Nothing from the release checklist is open.",
            "I see no lines from Ferris yet; I'm checking.",
            "If nothing from Promo reaches me, I will ask again.",
            "I got anything from Promo I needed.",
            "Ich bekomme keine Fehler.",
        ] {
            assert!(!call_claim(t), "{t}");
        }
    }
}
