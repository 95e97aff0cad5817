//! `asked-delta`: the recorder addressed the voicebot, which answers only
//! the human (seed rule 4).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::turns;
use crate::model::{Via, Who};
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "asked-delta",
    rulebook: "4",
    scope: Scope::Room,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("asking Delta something"),
    default_severity: Severity::Warning,
    summary: "this agent addressed Delta, which answers only the human",
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
        let ask = i.tells().any(|c| {
            let verb = c.find(&[
                "ask", "query", "request", "frag", "frage", "tell", "have", "get", "bitte",
                "befrag*",
            ]);
            let delta = c.find(DELTA);
            matches!((verb, delta), (Some(v), Some(d)) if v < d)
        });
        if !ask {
            return None;
        }
        Some(at_instruction(
            i,
            "this instruction has the agent ask Delta; Delta does not answer agents",
            "say to read the board and the call's data itself, and to leave Delta to the human",
        ))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let me = call.recorder.unwrap_or("this agent");
        let bot = call.voicebot;
        let human = call.human.unwrap_or("the human");
        let greetings = turns::greeting_says(call);
        for u in &call.utterances {
            if u.who != Who::Me || u.via != Via::Say || greetings.contains(&u.record()) {
                continue;
            }
            let accepted = call.records[u.record()].as_fn().is_some_and(|f| f.ok());
            if !accepted || !u.addressed_to.iter().any(|n| call.is_voicebot(n)) {
                continue;
            }
            let here = match turns::voicebot_heard_as(&call.roster, u.text) {
                Some(as_) => format!("{bot} addressed here (as {})", quote(as_, 20)),
                None => format!("{bot} addressed here"),
            };
            cx.report(
                Finding::new(
                    u.anchor(),
                    format!(
                        "{me} addressed {bot}, which answers only {human}: {}",
                        quote(u.text, 60)
                    ),
                )
                .here(here)
                .help(format!(
                    "never ask {bot} yourself: read what you need from `status` (peers, operators, board), or ask {human} or the agent by its label"
                )),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::turns::testlog::*;

    const RULE: &str = "asked-delta";

    #[test]
    fn addressing_delta_fires() {
        for text in [
            "Delta, what is on Promo's board now?",
            "What is on the boards, Delta?",
            "Hi Delta, is the tag set?",
            "Data, read me the boards.",
        ] {
            let log = log(
                "Juno",
                &[
                    user(10_000, "Juno, how is the canary?", Some(&["Juno"])),
                    say(12_000, "s1", text),
                ],
            );
            assert_eq!(fired(RULE, &log), [4], "{text}");
        }
    }

    #[test]
    fn mentioning_delta_is_fine() {
        for text in [
            "As Delta said, the tag is set.",
            "Yes, and they match Delta's summary of the boards.",
            "The data, as I said, is stale.",
            "Delta reads the boards for Oliver.",
        ] {
            let log = log(
                "Juno",
                &[
                    user(10_000, "Juno, how is the canary?", Some(&["Juno"])),
                    say(12_000, "s1", text),
                ],
            );
            assert!(fired(RULE, &log).is_empty(), "{text}");
        }
    }

    #[test]
    fn a_refused_say_is_fine() {
        let log = log(
            "Juno",
            &[
                idle(5_000),
                r#"{"ts":"2026-10-10T10:00:06.000Z","fn":"say","args":{"text":"Delta, status?"},"error":{"status":429,"message":"too many says"}}"#.to_string(),
            ],
        );
        assert!(fired(RULE, &log).is_empty());
    }
}
