//! `unaddressed-request`: a request or question in the second person that
//! names no one, in a call where several could take it (seed rule 5).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::{Call, Utterance, Via, Who};
use crate::rules::{Cx, Rule};
use crate::text::lexicon::Lexicon;
use crate::text::phrases::words;

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "unaddressed-request",
    rulebook: "5",
    scope: Scope::Room,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("asking the room without naming whom"),
    default_severity: Severity::Warning,
    summary: "a request or question in the second person, addressed to no one, with two or more possible addressees",
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
        // a request told (a "without" in it is no "don't"), or a question
        // told to be said as quoted ("just say \"Can you ...?\"")
        let asks = i
            .clauses
            .iter()
            .any(|c| !c.condition && !c.about_other && c.has(ASK) && !c.has(PLAIN_NEG))
            || i.said.iter().any(|q| q.trim_end().ends_with('?'))
                && i.tells()
                    .any(|c| c.has(&["say", "sag", "sage", "ask", "frag*"]));
        // to no one: "ask into the room", "no need to name anyone"; a plain
        // negation beside it ("never ask into the room", "never ask without
        // naming someone") says the opposite
        let unnamed = i
            .clauses
            .iter()
            .any(|c| !c.condition && (c.has(UNNAMED_NO) || c.has(UNNAMED) && !c.has(PLAIN_NEG)));
        let forbidden = i
            .clauses
            .iter()
            .any(|c| c.has(PLAIN_NEG) && c.has(ASK) && !c.has(UNNAMED_NO));
        if !asks || !unnamed || forbidden {
            return None;
        }
        Some(at_instruction(i, "this instruction has the agent ask the room without naming whom it asks; with several agents, nobody knows who is meant", "say to start a request with the label of the agent (or the name of the human) it is for"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let Some(me) = call.recorder else { return };
        let lex = Lexicon::get();
        let roster = &call.roster;
        // One pass: the other agents heard so far, and whether someone
        // addressed this agent in the current human turn.
        let mut heard: Vec<&str> = vec![call.human.unwrap_or("the human")];
        // Keyed by names from the log: a hasher seeded anew in each process (`core::hash`).
        let mut known: crate::core::hash::HashSet<&str> = heard.iter().copied().collect();
        let mut turn = None;
        // The human addressed this agent in the current turn; another agent
        // woke it since.
        let mut asked = false;
        let mut woken = false;
        let mut out = Vec::new();
        for u in &call.utterances {
            if u.turn != turn {
                turn = u.turn;
                asked = false;
                woken = false;
            }
            if u.who != Who::Me {
                if addresses_me(me, u) {
                    if u.who == Who::Human {
                        asked = true;
                    } else {
                        woken = true;
                    }
                }
                if u.who == Who::Agent && known.insert(u.speaker) {
                    heard.push(u.speaker);
                }
                continue;
            }
            if u.via != Via::Say
                || !u.addressed_to.is_empty()
                || woken
                || heard.len() < 2
                || !cx.judges(u.record())
            {
                continue;
            }
            // Asked by the human, "you" in the reply is the human: answering
            // and asking back are fine, a new request for work that any
            // agent in the room could take is not.
            let Some(sentence) = (if asked {
                work_request(lex, u.text)
            } else {
                request(lex, u.text)
            }) else {
                continue;
            };
            // A name was said but collides with another label: that is
            // `ambiguous-labels`, not a missing name. (Read after the
            // request: most says ask nothing, and need no reading for
            // names.)
            if !roster.explain(u.text).hits.is_empty() || introduces(me, u.text) {
                continue;
            }
            out.push(finding(call, me, u, sentence, &heard));
        }
        for f in out {
            cx.report(f);
        }
    }
}

/// The first sentence of `text` that asks someone ("you") to do or answer
/// something.
fn request<'t>(lex: &Lexicon, text: &'t str) -> Option<&'t str> {
    crate::text::addressing::sentences(text)
        .map(|r| text[r].trim())
        .find(|s| crate::model::turns::is_request(lex, s))
}

/// The first sentence of `text` that asks for work.
fn work_request<'t>(lex: &Lexicon, text: &'t str) -> Option<&'t str> {
    crate::text::addressing::sentences(text)
        .map(|r| text[r].trim())
        .find(|s| crate::model::turns::is_work_request(lex, s))
}

/// The say introduces the agent itself ("Hi, this is Pico, ... How can I
/// help you?"): a greeting, not a request.
fn introduces(me: &str, text: &str) -> bool {
    let label = words(me);
    let w = words(text);
    let n = label.len();
    if n == 0 {
        return false;
    }
    (0..w.len().saturating_sub(n - 1)).any(|p| {
        if !w.has_at(p, &label) {
            return false;
        }
        let before = |k: usize| p.checked_sub(k).map(|q| &w[q]);
        let after = w.get(p + n);
        matches!(
            (before(2), before(1)),
            (Some("this"), Some("is")) | (Some("hier"), Some("ist")) | (_, Some("i'm"))
        ) || (before(2) == Some("i") && before(1) == Some("am"))
            || matches!(after, Some("here" | "hier"))
    })
}

/// A line that addresses this agent: the human naming it, or another agent
/// waking it (an `operator` event). A say in the same turn answers that one.
fn addresses_me(me: &str, p: &Utterance<'_>) -> bool {
    p.addressed_to_you == Some(true)
        || p.via == Via::OperatorEvent
        || p.addressed_to.iter().any(|a| a.eq_ignore_ascii_case(me))
}

/// At most this many of those who could take a request are named.
const NAMED: usize = 5;

fn finding(
    call: &Call<'_>,
    me: &str,
    u: &Utterance<'_>,
    sentence: &str,
    could: &[&str],
) -> Finding {
    let list = match could {
        [a, b] => format!("{a} and {b}"),
        // A room of dozens is named by its first few.
        [first @ .., _] if first.len() > NAMED => {
            format!(
                "{}, and {} others",
                first[..NAMED].join(", "),
                could.len() - NAMED
            )
        }
        [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
        [] => String::new(),
    };
    let mut f = Finding::new(
        u.anchor(),
        format!("{me} asks {} of no one by name", quote(sentence, 60)),
    )
    .here(format!("who is \"you\"? {list} could each take it"));
    if let Some(t) = u.turn {
        let h = &call.utterances[call.turns[t as usize].start];
        let text = if h.addressed_to.is_empty() {
            format!("{} addressed no one in this turn", h.speaker)
        } else {
            format!(
                "{} addressed {} here, not {me}",
                h.speaker,
                h.addressed_to.join(", ")
            )
        };
        f = f.label(h.anchor(), text);
    }
    f.help("put the label of the one you mean first (\"opencode, can you check the logs?\"); a question only the human can decide goes to `decide`")
}

/// Asking for something.
const ASK: &[&str] = &[
    "ask",
    "ask for",
    "request",
    "call out",
    "put the question",
    "frag",
    "frage",
    "fragst",
    "stell die frage",
    "stelle die frage",
    "bitte um",
];
/// A plain negation.
const PLAIN_NEG: &[&str] = &[
    "never", "don't", "do not", "not", "no", "nie", "niemals", "nicht", "kein*",
];
/// Naming no one, said with a negation of its own.
const UNNAMED_NO: &[&str] = &[
    "no need to name",
    "no need to address",
    "no need to say who",
    "don't need to name",
    "needn't name",
    "naming no one",
    "naming nobody",
    "nicht dazusagen",
    "nicht zu nennen",
    "nicht nennen",
    "keinen namen",
];
/// To no one by name.
const UNNAMED: &[&str] = &[
    "into the room",
    "to the room",
    "the whole room",
    "in die runde",
    "in den raum",
    "without naming*",
    "without a name",
    "without any name",
    "without addressing*",
    "naming no one",
    "naming nobody",
    "no need to name",
    "no need to address",
    "ohne namen",
    "ohne einen namen",
    "ohne jemanden",
    "ohne anrede",
    "ohne adressat*",
    "whoever is free",
    "whoever has time",
    "whoever picks it up",
    "someone will pick",
    "someone will answer",
    "someone will respond",
    "wer gerade zeit hat",
    "wer gerade frei ist",
    "jemand wird",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn req(s: &str) -> bool {
        request(Lexicon::get(), s).is_some()
    }

    #[test]
    fn finds_requests() {
        for s in [
            "Can you check the logs?",
            "Could you paste the error from the deploy log?",
            "Okay, so could you look at it?",
            "Please restart the staging box.",
            "Check the bridge logs, please.",
            "What do you think?",
            "Where did you put the migration script?",
            "Kannst du die Logs prüfen?",
            "Bitte schau in die Logs.",
            "Wo hast du das Skript abgelegt?",
            "The build is green. Can you tag it?",
        ] {
            assert!(req(s), "{s}");
        }
    }

    #[test]
    fn leaves_statements_and_room_questions_alone() {
        for s in [
            "The build is green.",
            "Is there a task for me?",
            "Gibt es schon eine Aufgabe für mich?",
            "Hi, this is Reviewer, I'm in and listening. What's up?",
            "Worum geht's?",
            "Can everyone refresh their board?",
            "Does anyone know where the logs are?",
            "It was slow, you know?",
            "Thank you, that helps.",
            "Please note: the build is green.",
            "Shall I check the logs?",
            "Könnt ihr alle kurz auf eure Boards schauen?",
        ] {
            assert!(!req(s), "{s}");
        }
    }

    fn run(lines: &[String]) -> usize {
        crate::lint::engine::fired("unaddressed-request", &lines.join("\n")).len()
    }

    const JOIN: &str = r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{"label":"Pico","greet":true},"result":{"status":"joined","context":{"lang":"en"}}}"#;

    fn heard(sec: u32, speaker: &str, text: &str) -> String {
        format!(
            r#"{{"ts":"2026-10-10T10:01:{sec:02}.000Z","fn":"next","result":{{"type":"timeout","operators_said":[{{"speaker":"{speaker}","text":"{text}"}}]}}}}"#
        )
    }
    fn human(sec: u32, text: &str, to: &str) -> String {
        let you = to == "Pico";
        let to = if to.is_empty() {
            String::new()
        } else {
            format!("\"{to}\"")
        };
        format!(
            r#"{{"ts":"2026-10-10T10:01:{sec:02}.000Z","fn":"next","result":{{"type":"user","speaker":"Mara","text":"{text}","addressed_to":[{to}],"addressed_to_you":{you}}}}}"#
        )
    }
    fn op(sec: u32, speaker: &str, text: &str) -> String {
        format!(
            r#"{{"ts":"2026-10-10T10:01:{sec:02}.000Z","fn":"next","result":{{"type":"operator","speaker":"{speaker}","text":"{text}","addressed_to":["Pico"],"addressed_to_you":true}}}}"#
        )
    }
    fn say(sec: u32, text: &str) -> String {
        format!(
            r#"{{"ts":"2026-10-10T10:01:{sec:02}.000Z","fn":"say","args":{{"text":"{text}"}}}}"#
        )
    }

    #[test]
    fn the_turn_decides_who_you_are() {
        let orca = heard(1, "Orca", "Hi, this is Orca.");
        let ask = "Can you confirm the staging URL?";
        let open = human(3, "The deploy failed.", "");
        let to_me = human(3, "Pico, what do you need?", "Pico");
        let to_orca = human(3, "Orca, what do you need?", "Orca");
        assert_eq!(
            run(&[JOIN.into(), orca.clone(), open.clone(), say(5, ask)]),
            1
        );
        assert_eq!(
            run(&[JOIN.into(), orca.clone(), to_me.clone(), say(5, ask)]),
            0
        );
        assert_eq!(run(&[JOIN.into(), orca.clone(), to_orca, say(5, ask)]), 1);
        // The next turn is a new one.
        let later = human(7, "Okay.", "");
        assert_eq!(
            run(&[JOIN.into(), orca.clone(), to_me, later, say(9, ask)]),
            1
        );
        // Woken by another agent, the reply's "you" is that agent.
        let woken = op(4, "Orca", "Pico, which URL did you check?");
        assert_eq!(
            run(&[
                JOIN.into(),
                orca,
                open,
                woken,
                say(5, "Do you mean staging?")
            ]),
            0
        );
    }

    #[test]
    fn a_reply_may_ask_back_but_not_hand_out_work() {
        let orca = heard(1, "Orca", "Hi, this is Orca.");
        let to_me = human(3, "Pico, why is the mailer slow?", "Pico");
        let reply = |text: &str| run(&[JOIN.into(), orca.clone(), to_me.clone(), say(5, text)]);
        for text in [
            "Can you look at the mailer's queue?",
            "The queue is long. Could you restart the worker?",
            "Check the mailer's logs, please.",
            "Kannst du dir die Queue vom Mailer ansehen?",
        ] {
            assert_eq!(reply(text), 1, "{text}");
        }
        for text in [
            "Do you mean the outgoing mailer?",
            "Can you confirm which mailer you mean?",
            "What do you see on your side?",
            "Could you repeat the question?",
            "Meinst du den Mailer für Rechnungen?",
        ] {
            assert_eq!(reply(text), 0, "{text}");
        }
    }

    #[test]
    fn one_possible_addressee_is_no_ambiguity() {
        let open = human(3, "The deploy failed.", "");
        assert_eq!(
            run(&[JOIN.into(), open, say(5, "Can you paste the error?")]),
            0
        );
    }

    #[test]
    fn a_colliding_name_is_left_to_ambiguous_labels() {
        let two = heard(1, "Pico 2", "Hi, this is Pico 2.");
        let orca = heard(2, "Orca", "Hi, this is Orca.");
        let open = human(3, "The deploy failed.", "");
        let line = say(5, "Pico 2, can you paste the error?");
        assert_eq!(run(&[JOIN.into(), two, orca, open, line]), 0);
    }

    #[test]
    fn self_introductions() {
        assert!(introduces("Pico", "Hi, this is Pico. How can I help you?"));
        assert!(introduces(
            "docs-bot",
            "Hallo, docs-bot hier. Was kann ich für dich tun?"
        ));
        assert!(!introduces("Pico", "Can you check what Pico found?"));
    }
}
