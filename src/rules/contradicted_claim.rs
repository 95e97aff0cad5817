//! `contradicted-claim`: a claim about the call or the agent itself that
//! the agent's own data contradicts (rulebook rule 8).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::{Call, Utterance, Via, Who};
use crate::rules::{Cx, Rule};
use crate::text::addressing::sentences;
use crate::text::language::{claimed_language, Lang};
use crate::text::lexicon::Lexicon;
use crate::text::phrases::{find_phrase, lower_words};
use crate::text::words::Words;

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "contradicted-claim",
    rulebook: "8",
    scope: Scope::Own,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("announcing a fault of the call as fact, before checking the data"),
    default_severity: Severity::Warning,
    summary: "a claim about the call or itself that its own data contradicts",
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
        // a fault claimed at once, or from nothing seen or heard alone
        let unchecked = i.has(AT_ONCE) || i.conditions().any(|c| c.negated && c.has(HEARS));
        if !i.tells_any(ANNOUNCE) || !i.has(CALL_FAULT) || !unchecked {
            return None;
        }
        if i.tells_any(CHECK_FIRST) || i.if_any(CHECK_FIRST) {
            return None;
        }
        Some(at_instruction(i, "this instruction has the agent state a fault of the call before it looked at its data", "say to check `operators_said`, `status` and `lang` first, and until then to say only that it will check"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let Some(me) = call.recorder else { return };
        let lex = Lexicon::get();
        let checking = lex.phrases("conduct.checking");
        let people = People::new(call, me);
        let mut w = Words::default();
        let mut out = Vec::new();
        for (k, u) in call.utterances.iter().enumerate() {
            if u.who != Who::Me || u.via != Via::Say || !cx.judges(u.record()) {
                continue;
            }
            for r in sentences(u.text) {
                let sentence = &u.text[r];
                w.fill_lexical(sentence);
                if checking.occurs(&w) {
                    continue;
                }
                if let Some(f) = language_claim(call, u, sentence) {
                    out.push(f);
                    break;
                }
                if let Some((speaker, at)) = reception_claim(lex, call, me, k, &w) {
                    out.push(
                        Finding::new(u.anchor(), format!("{me} claims lines from {speaker} do not reach it, but its own events carry them"))
                            .here("contradicted by the log")
                            .label(call.utterances[at].anchor(), format!("{speaker}'s line reached {me} here"))
                            .help("look at `operators_said` of your recent events (of every type, `timeout` included) before saying what you receive; if you have not checked, say that you will"),
                    );
                    break;
                }
                if sentence.trim_end().ends_with('?') {
                    continue;
                }
                if let Some(f) = participants_claim(lex, call, me, k, &w, &people) {
                    out.push(f);
                    break;
                }
            }
        }
        for f in out {
            cx.report(f);
        }
    }
}

/// "German is spoken here" while the call language is English.
fn language_claim(call: &Call<'_>, u: &Utterance<'_>, sentence: &str) -> Option<Finding> {
    let claimed = claimed_language(sentence)?;
    let setting = call.lang_at(u.record())?;
    let actual = Lang::from_code(setting.lang)?;
    if claimed == actual {
        return None;
    }
    Some(
        Finding::new(u.anchor(), format!("claims the call is in {} but the call language is {}", claimed.name(), actual.name()))
            .here(format!("says {} is spoken", claimed.name()))
            .label(setting.anchor, format!("the call language was set to {} here", quote(setting.lang, 8)))
            .help("take the call language from `context.lang` of the join answer and of `context` events, never from your own user's chat"),
    )
}

/// Everyone but the recorder, as a claim about the others names them: the
/// human, the voicebot, the other agents, and the lower-cased words of
/// each name. The same for every say of the call.
struct People<'c> {
    people: Vec<&'c str>,
    names: Vec<Vec<String>>,
}

impl<'c> People<'c> {
    fn new(call: &'c Call<'c>, me: &str) -> People<'c> {
        let mut people: Vec<&str> = Vec::new();
        people.extend(call.human);
        people.push(call.voicebot);
        people.extend(
            call.agents
                .iter()
                .map(|a| a.label.as_str())
                .filter(|l| !l.eq_ignore_ascii_case(me)),
        );
        let names = people.iter().map(|p| lower_words(p)).collect();
        People { people, names }
    }
}

/// "Tarn hasn't said a word", "it's just the two of us here", "nobody has
/// asked me anything": a statement about the others that the lines and
/// boards the agent had before its say contradict.
fn participants_claim(
    lex: &Lexicon,
    call: &Call<'_>,
    me: &str,
    k: usize,
    w: &Words,
    people: &People<'_>,
) -> Option<Finding> {
    use crate::text::claims::{about_participants, About};
    let People { people, names } = people;
    let about = about_participants(lex, w, names)?;
    let u = &call.utterances[k];
    let before = &call.utterances[..k];
    let heard = |p: &Utterance<'_>| p.who != Who::Me && p.record() < u.record();
    let f = match about {
        About::Silence(who) => {
            let at = before.iter().rposition(|p| {
                heard(p)
                    && match who {
                        Some(i) => {
                            crate::model::turns::same_name(p.speaker, people[i])
                                || (i == 1 && p.who == Who::Voicebot)
                        }
                        None => true,
                    }
            })?;
            let whom = who.map_or("nobody else", |i| people[i]);
            let line = &call.utterances[at];
            Finding::new(
                u.anchor(),
                format!(
                    "{me} says {whom} has said nothing, but its own events carry {}'s line",
                    line.speaker
                ),
            )
            .here("contradicted by the log")
            .label(
                line.anchor(),
                format!("{}'s line reached {me} here", line.speaker),
            )
        }
        About::Alone => {
            // Another agent's line, or a board answer that listed another
            // agent, before the say.
            let line = before
                .iter()
                .rposition(|p| heard(p) && p.who == Who::Agent)
                .map(|at| {
                    (
                        call.utterances[at].record(),
                        call.utterances[at].anchor(),
                        call.utterances[at].speaker,
                    )
                });
            let listed = call.records[..u.record()].iter().rev().find_map(|r| {
                let f = r.as_fn()?;
                let crate::model::Op::Status(b) = &f.op else {
                    return None;
                };
                let t = b.listed.iter().find(|t| {
                    let n = t.as_str();
                    !n.eq_ignore_ascii_case(me) && Some(n) != call.human && !call.is_voicebot(n)
                })?;
                Some((0, r.text(t), t.as_str()))
            });
            let (_, anchor, other) = line.or(listed)?;
            Finding::new(
                u.anchor(),
                format!(
                    "{me} says nobody else is in the call, but its own data shows {other} there"
                ),
            )
            .here("contradicted by the log")
            .label(anchor, format!("{other} is in the call"))
        }
        About::NotAddressed => {
            let at = before.iter().rposition(|p| {
                heard(p)
                    && (p.addressed_to_you == Some(true)
                        || p.addressed_to
                            .iter()
                            .any(|n| crate::model::turns::same_name(n, me)))
            })?;
            let line = &call.utterances[at];
            Finding::new(
                u.anchor(),
                format!(
                    "{me} says nobody has addressed it, but {} addressed it",
                    line.speaker
                ),
            )
            .here("contradicted by the log")
            .label(
                line.anchor(),
                format!("{} addressed {me} here", line.speaker),
            )
        }
    };
    Some(f.help("before stating who spoke, who is in the call or who asked you, look at `operators_said`, `agent_said`, `addressed_to_you` of your events and the `peers` of your `status` answers; if you have not checked, say that you will"))
}

/// "I receive nothing from Promo" / "the agents can't hear each other":
/// the speaker meant, and the latest line of theirs that had arrived.
///
/// Whose lines the claim is about: the agents it names; every other agent
/// when it speaks of the group or the relay; the agent the say addresses
/// when it says "you". Anything else is too vague to contradict.
fn reception_claim(
    lex: &Lexicon,
    call: &Call<'_>,
    me: &str,
    k: usize,
    w: &Words,
) -> Option<(String, usize)> {
    crate::text::claims::about_call(lex, w)?;
    // A claim: rare enough to look at its words one by one.
    let w = &w.to_vec();
    let u = &call.utterances[k];
    let mut named: Vec<&str> = call
        .agents
        .iter()
        .map(|a| a.label.as_str())
        .filter(|l| !l.eq_ignore_ascii_case(me))
        .filter(|l| {
            let lw = lower_words(l);
            !lw.is_empty() && find_phrase(w, &lw.join(" ")).is_some()
        })
        .collect();
    let everyone = named.is_empty()
        && (lex.phrases("conduct.all-agents").occurs(w) || lex.phrases("reading.groups").occurs(w));
    if named.is_empty() && !everyone && lex.phrases("reading.second-person").occurs(w) {
        // "I can't hear you": the agent the say addresses.
        named.extend(
            u.addressed_to
                .iter()
                .map(|n| &**n)
                .filter(|n| call.agents.iter().any(|a| a.label == *n) && *n != me),
        );
    }
    if named.is_empty() && !everyone {
        return None;
    }
    let at = call.utterances[..k].iter().rposition(|p| {
        p.who == Who::Agent
            && matches!(p.via, Via::OperatorsSaid | Via::OperatorEvent)
            && (everyone || named.iter().any(|n| n.eq_ignore_ascii_case(p.speaker)))
    })?;
    let speaker = if everyone {
        "the other agents".to_string()
    } else {
        named.join(", ")
    };
    Some((speaker, at))
}

#[cfg(test)]
mod tests {
    fn run(lang: &str, lines: &[String]) -> usize {
        let join = format!(
            r#"{{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{{"label":"Wega","greet":true}},"result":{{"status":"joined","context":{{"lang":"{lang}"}}}}}}"#
        );
        let mut log = vec![join];
        log.extend_from_slice(lines);
        crate::lint::engine::fired("contradicted-claim", &log.join("\n")).len()
    }

    fn heard(sec: u32, speaker: &str, text: &str) -> String {
        format!(
            r#"{{"ts":"2026-10-10T10:01:{sec:02}.000Z","fn":"next","result":{{"type":"timeout","operators_said":[{{"speaker":"{speaker}","text":"{text}"}}]}}}}"#
        )
    }
    fn say(sec: u32, text: &str) -> String {
        format!(
            r#"{{"ts":"2026-10-10T10:01:{sec:02}.000Z","fn":"say","args":{{"text":"{text}"}}}}"#
        )
    }

    #[test]
    fn reception_claims_in_both_languages() {
        let juno = heard(1, "Juno", "Der Build ist grün.");
        for (lang, claim) in [
            ("de", "Bei mir kommt von Juno nichts an."),
            ("de", "Ich höre nichts von Juno."),
            ("de", "Die Agenten können sich nicht hören."),
            ("de", "Das Relay geht nur in eine Richtung."),
            ("en", "I hear nothing from Juno."),
            ("en", "The relay only works one way."),
            ("en", "The agents cannot hear each other."),
            // typographic apostrophes, as speech-to-text and many models write
            ("en", "Probably the agents can\u{2019}t hear each other."),
        ] {
            assert_eq!(run(lang, &[juno.clone(), say(5, claim)]), 1, "{claim}");
            // Nothing had arrived: the claim is not contradicted.
            assert_eq!(run(lang, &[say(5, claim)]), 0, "{claim}");
        }
        // Checking first, or a missed line, is no claim about the call.
        for claim in [
            "Ich prüfe, ob von Juno nichts ankommt.",
            "I hear nothing from Juno yet, I'm checking.",
            "Juno, your question did not reach me.",
        ] {
            assert_eq!(run("en", &[juno.clone(), say(5, claim)]), 0, "{claim}");
        }
    }

    #[test]
    fn language_claims_in_both_languages() {
        for (lang, claim, fires) in [
            ("de", "Die Sprache hier ist Englisch.", 1),
            ("de", "Hier wird Englisch gesprochen.", 1),
            ("de", "Die Sprache hier ist Deutsch.", 0),
            ("en", "German is spoken here.", 1),
            ("en", "The call language is English.", 0),
            ("en", "Is German spoken here?", 0),
        ] {
            assert_eq!(run(lang, &[say(5, claim)]), fires, "{claim}");
        }
    }
}
