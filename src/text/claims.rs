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
//!
//! Besides what reaches it, an agent states facts about the others in the
//! call that its own data can settle: that someone has said nothing, that
//! nobody else is in the call, that nobody has addressed it
//! ([`about_participants`]). Such a sentence is read by its parts, whatever
//! their order and whatever hedges and particles stand around them
//! ("honestly", "ehrlich gesagt", "gar", "überhaupt"): a subject, a word
//! that denies, and what is denied (speech, presence, being addressed).

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
        })
        .or_else(|| arrival(lex, w).filter(|a| a.general).map(|a| a.at))?;
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

/// A sentence that says something did not arrive, read by its parts in any
/// order: a verb of arriving ("got to", "came through", "angekommen"), the
/// speaker as receiver ("me", "bei mir") and a denial before the verb
/// ("none of your questions got to me", "bei mir ist von Juno gar nichts
/// angekommen"). Where the verb is, and whether the claim is general (it
/// denies that anything arrived, naming no line) or about particular lines
/// (a line's noun or "that": "your question never got to me").
///
/// What arrives must be lines: a sentence that names neither lines nor
/// "nothing" ("the package didn't reach me") claims nothing here.
pub fn arrival(lex: &Lexicon, w: &Words) -> Option<Arrival> {
    let verbs = lex.phrases("conduct.arrival-verbs");
    verbs.first_at(w)?;
    if lex.phrases("conduct.checking").occurs(w) || lex.phrases("reading.conditionals").occurs(w) {
        return None;
    }
    let w = without_hedges(lex, w);
    let w = &w[..];
    let (v, n) = find_from(w, 0, verbs)?;
    if !has_in(w, 0, w.len(), lex.phrases("conduct.receivers")) || !denied_in(lex, w, 0, v) {
        return None;
    }
    let nothing = w[..v]
        .iter()
        .any(|x| matches!(x.as_str(), "nothing" | "nichts"));
    let lines = has_in(w, 0, w.len(), lex.phrases("reading.line-nouns"));
    // "that never came through", "das ist nicht angekommen"; not "that
    // package", "das Paket", where the word is an article.
    let pronoun = (0..v).any(|i| {
        lex.phrases("reading.line-pronouns").has(&w[i])
            && w.get(i + 1).is_some_and(|x| {
                is_negation(x)
                    || matches!(
                        x.as_str(),
                        "has"
                            | "have"
                            | "had"
                            | "did"
                            | "was"
                            | "is"
                            | "ist"
                            | "hat"
                            | "war"
                            | "wurde"
                            | "kam"
                    )
            })
    });
    let general = nothing && !lines;
    if !general && !lines && !pronoun {
        return None;
    }
    Some(Arrival {
        at: (v, n),
        general,
    })
}

/// A claim that something did not arrive ([`arrival`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// Where its verb is and how long, in the words without hedges.
    pub at: (usize, usize),
    /// It denies that anything arrived, naming no line: a claim about the
    /// call.
    pub general: bool,
}

/// What a statement about the other participants is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum About {
    /// The participant `names[i]` has said nothing; with `None`, nobody
    /// else has ("the others have been quiet").
    Silence(Option<usize>),
    /// Nobody but the speaker and the one it speaks to is in the call
    /// ("it's just the two of us here", "außer uns beiden ist niemand da").
    Alone,
    /// Nobody has addressed the speaker ("nobody has asked me anything",
    /// "mich hat keiner was gefragt").
    NotAddressed,
}

/// The words of a sentence without its hedges and particles, which change
/// nothing a claim states ("honestly", "ehrlich gesagt", "gar").
pub fn without_hedges(lex: &Lexicon, w: &Words) -> Vec<String> {
    let hedges = lex.phrases("conduct.hedges");
    let mut out = Vec::with_capacity(w.len());
    let mut i = 0;
    while i < w.len() {
        match hedges.len_at(w, i) {
            Some(n) if n > 0 => i += n,
            _ => {
                out.push(w.word(i).to_string());
                i += 1;
            }
        }
    }
    out
}

/// Where a phrase of `list` starts in `w[from..]`, and its length.
fn find_from(
    w: &[String],
    from: usize,
    list: &crate::text::words::Phrases,
) -> Option<(usize, usize)> {
    (from..w.len()).find_map(|i| list.len_at(w, i).filter(|&n| n > 0).map(|n| (i, n)))
}

/// Whether `w[from..to]` holds a phrase of `list`.
fn has_in(w: &[String], from: usize, to: usize, list: &crate::text::words::Phrases) -> bool {
    find_from(&w[..to.min(w.len())], from, list).is_some()
}

/// Whether `w[from..to]` holds a word that denies ("not", "nothing",
/// "hasn't", "nichts", "kein").
fn denied_in(lex: &Lexicon, w: &[String], from: usize, to: usize) -> bool {
    let to = to.min(w.len());
    from < to
        && (w[from..to].iter().any(|x| is_negation(x))
            || has_in(w, from, to, lex.phrases("conduct.none-words")))
}

/// What a sentence (its words) states about the other participants, when
/// it is a statement the call's data can settle: see [`About`]. `names`
/// are the participants' names (each as lower-case words) the sentence may
/// name, the speaker's own left out.
///
/// A question, a condition ("if nobody has asked me, ...") or a sentence
/// that says it is being checked states nothing. A statement of silence
/// about a topic ("Tarn hasn't said anything about the cache") is left
/// alone: the log cannot settle what a line was about.
pub fn about_participants(lex: &Lexicon, w: &Words, names: &[Vec<String>]) -> Option<About> {
    // Each claim needs a word of being alone, of addressing or of speech
    // to start a phrase; leaving the hedges out takes words away and adds
    // none. Most sentences hold none of them, and are not copied.
    let (sole, addressing, speech) = (
        lex.phrases("conduct.sole-words"),
        lex.phrases("conduct.addressing-verbs"),
        lex.phrases("conduct.speech-words"),
    );
    if !w
        .iter()
        .any(|x| sole.starts_any(x) || addressing.starts_any(x) || speech.starts_any(x))
    {
        return None;
    }
    if lex.phrases("conduct.checking").occurs(w) || lex.phrases("reading.conditionals").occurs(w) {
        return None;
    }
    let w = without_hedges(lex, w);
    let w = &w[..];
    // Nobody else is here: a word of being the only ones, of company, of
    // place, and no "not" in front ("not just the two of us").
    if let Some((s, _)) = find_from(w, 0, lex.phrases("conduct.sole-words")) {
        let negated = s > 0 && is_negation(&w[s - 1]);
        if !negated
            && has_in(w, 0, w.len(), lex.phrases("conduct.company-words"))
            && has_in(w, 0, w.len(), lex.phrases("conduct.place-words"))
        {
            return Some(About::Alone);
        }
    }
    // Nobody addressed me: an addressing verb with "me" as its object (or
    // "I" as the subject of a passive), denied by its subject ("nobody")
    // or, in the passive, by a "not".
    if let Some((v, n)) = find_from(w, 0, lex.phrases("conduct.addressing-verbs")) {
        let topic = w[v + n..]
            .iter()
            .any(|x| lex.phrases("conduct.topic-words").has(x));
        let me = lex.phrases("conduct.me-words");
        let object = w
            .iter()
            .any(|x| matches!(x.as_str(), "me" | "mich" | "mir"));
        let nobody = has_in(w, 0, w.len(), lex.phrases("conduct.nobody-words"));
        let passive = w.iter().any(|x| me.has(x))
            && has_in(w, 0, v, lex.phrases("conduct.passive-words"))
            && denied_in(lex, w, 0, v);
        if !topic && ((object && nobody) || passive) {
            return Some(About::NotAddressed);
        }
    }
    // Someone has said nothing: a subject (a name, or everyone else), then
    // a word of speech, denied between them, or a word of silence with no
    // denial at all ("Delta has been quiet").
    let speech = lex.phrases("conduct.speech-words");
    let (s, n) = find_from(w, 0, speech)?;
    let quiet = matches!(w[s].as_str(), "quiet" | "silent" | "stumm");
    let topics = lex.phrases("conduct.topic-words");
    // The subject nearest the word of speech: a name in front of it may be
    // the one spoken to ("Ines, Delta hasn't said anything").
    let subject = |from: usize, to: usize, back: bool| -> Option<(usize, Option<usize>)> {
        let at = |i: usize| {
            if let Some(k) = names.iter().position(|name| {
                !name.is_empty() && w.len() >= i + name.len() && w[i..i + name.len()] == name[..]
            }) {
                return Some((i, Some(k)));
            }
            lex.phrases("conduct.silent-groups")
                .len_at(w, i)
                .filter(|&n| n > 0)
                .map(|_| (i, None))
        };
        if back {
            (from..to).rev().find_map(at)
        } else {
            (from..to).find_map(at)
        }
    };
    // The subject before the word of speech, or, in German, anywhere in the
    // clause ("Gesagt hat Delta nichts").
    let (at, who) = subject(0, s, true).or_else(|| subject(s + n, w.len(), false))?;
    let (from, to) = (at.min(s), at.max(s) + n);
    // After the word of speech, only what says how much or how long
    // ("a single thing since I joined"): anything else is what was or was
    // not said ("Tarn never said that", "Delta said the build is not
    // green"), which the log cannot settle.
    let tails = lex.phrases("conduct.silence-tails");
    if w[to..]
        .iter()
        .any(|x| !tails.has(x) && !speech.has(x) && !names.iter().any(|m| m.contains(x)))
    {
        return None;
    }
    let denied = denied_in(lex, w, from, w.len());
    if quiet == denied {
        return None;
    }
    if w[at..].iter().any(|x| topics.has(x)) {
        return None;
    }
    Some(About::Silence(who))
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

    fn participants(text: &str) -> Option<About> {
        let names: Vec<Vec<String>> = ["Mara", "Delta", "Tarn", "Juno"]
            .iter()
            .map(|n| crate::text::phrases::lower_words(n))
            .collect();
        about_participants(Lexicon::get(), &crate::text::phrases::words(text), &names)
    }

    #[test]
    fn statements_about_the_others_in_both_languages() {
        for (t, want) in [
            (
                "Honestly, Tarn hasn't said a single thing since I joined.",
                About::Silence(Some(2)),
            ),
            ("Tarn has said nothing at all.", About::Silence(Some(2))),
            (
                "Mara, Delta hasn't said anything so far.",
                About::Silence(Some(1)),
            ),
            (
                "Delta has been quiet the whole time.",
                About::Silence(Some(1)),
            ),
            ("Nobody else has said anything yet.", About::Silence(None)),
            (
                "Nein, Delta hat bisher überhaupt nichts gesagt.",
                About::Silence(Some(1)),
            ),
            (
                "Juno hat ehrlich gesagt noch kein Wort gesagt.",
                About::Silence(Some(3)),
            ),
            ("It's really just the two of us here.", About::Alone),
            ("No one else has joined yet.", About::Alone),
            ("Außer uns beiden ist eigentlich niemand da.", About::Alone),
            (
                "To be fair, nobody has asked me anything yet.",
                About::NotAddressed,
            ),
            ("I haven't been asked anything so far.", About::NotAddressed),
            (
                "Mich hat ehrlich gesagt bisher keiner was gefragt.",
                About::NotAddressed,
            ),
        ] {
            assert_eq!(participants(t), Some(want), "{t}");
        }
    }

    #[test]
    fn other_sentences_state_nothing_about_the_others() {
        for t in [
            "Tarn hasn't said anything about the cache.",
            "Tarn never said that.",
            "Delta said the build is not green.",
            "Tarn said he would not deploy today.",
            "Delta is not quiet at all.",
            "If nobody has asked me anything, I'll stay quiet.",
            "Only I can deploy here.",
            "It's not just the two of us here.",
            "I haven't asked anyone yet.",
            "Nobody asked me to deploy.",
            "Juno hat zum Cache nichts gesagt.",
            "Nur wir beide kennen das Passwort.",
            "I'm checking whether Tarn has said anything.",
            "The build is green.",
        ] {
            assert_eq!(participants(t), None, "{t}");
        }
    }

    #[test]
    fn arrival_claims_by_their_parts() {
        let arrival = |t: &str| arrival(Lexicon::get(), &crate::text::phrases::words(t));
        for (t, general) in [
            ("Kiwi, none of your questions got to me, sorry.", false),
            ("Honestly, that never came through to me.", false),
            ("Deine Frage ist bei mir gar nicht angekommen.", false),
            ("Das ist bei mir nicht angekommen.", false),
            ("Bei mir ist von Juno gar nichts angekommen.", true),
            ("Nothing from Kiwi has made it to me.", true),
        ] {
            assert_eq!(arrival(t).map(|a| a.general), Some(general), "{t}");
        }
        for t in [
            "The package didn't reach me.",
            "Your question reached me, the answer is yes.",
            "If nothing reached me, I'll ask again.",
            "Das Paket ist bei mir nicht angekommen.",
            "That package never reached me.",
        ] {
            assert_eq!(arrival(t), None, "{t}");
        }
        assert!(call_claim("Bei mir ist von Juno gar nichts angekommen."));
        assert!(!call_claim("Kiwi, none of your questions got to me."));
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
