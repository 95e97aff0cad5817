//! `spoke-over-delta`: the human addressed the voicebot, and the recorder
//! spoke in that turn (seed rule 4).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::turns;
use crate::model::Breach;
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "spoke-over-delta",
    rulebook: "4",
    scope: Scope::Room,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("speaking when the human has asked Delta"),
    default_severity: Severity::Warning,
    summary:
        "the human addressed Delta (or Data, Della, Delter), and this agent spoke in that turn",
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
        let asked_delta = i.conditions().any(|c| c.has(DELTA) && c.has(ADDRESSED))
            || i.has(&[
                "for delta",
                "instead of delta",
                "in delta's place",
                "statt delta",
                "für delta",
            ]);
        let speaks = i.tells().any(|c| {
            c.has(ANSWER)
                || c.has(&[
                    "give*",
                    "provide*",
                    "tell*",
                    "summar*",
                    "say",
                    "read out",
                    "report*",
                    "gib",
                    "gibst",
                    "read*",
                    "help out",
                    "aushelfen",
                    "hilf aus",
                    "hilf*",
                    "übernimm*",
                    "gebe",
                    "summary",
                    "zusammenfassung",
                    "sag*",
                    "fasse",
                    "berichte*",
                    "nenne*",
                    "lies",
                ])
        });
        if !asked_delta
            || !speaks
            || i.tells_any(SILENT)
            || i.tells_any(&["let delta", "lass delta", "leave it to delta", "überlass*"])
        {
            return None;
        }
        Some(at_instruction(i, "this instruction has the agent speak when the human asked Delta", "say to stay silent when Delta is addressed and to keep the board fresh, which is what Delta reads from"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let human = call.human.unwrap_or("the human");
        let me = call.recorder.unwrap_or("this agent");
        let bot = call.voicebot;
        for v in turns::breaches(call, Breach::OverDelta) {
            let say = &call.utterances[v.say];
            let line = &call.utterances[v.against];
            let addressed = match turns::voicebot_heard_as(&call.roster, line.text) {
                Some(heard) => format!(
                    "{human} addressed {bot} here (heard as {})",
                    quote(heard, 20)
                ),
                None => format!("{human} addressed {bot} here"),
            };
            let f = Finding::new(
                say.anchor(),
                format!(
                    "{me} spoke in a turn {human} gave to {bot}: {}",
                    quote(say.text, 60)
                ),
            )
            .here(format!("spoken over {bot}"))
            .label(line.anchor(), addressed)
            .help(format!(
                "when {human} asks {bot}, every agent stays silent and lets {bot} answer; keep your board and activity current, that is what {bot} reads from"
            ));
            cx.report(v.with_repeats(call, f, "and spoke again in that turn here"));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::turns::testlog::*;

    const RULE: &str = "spoke-over-delta";

    #[test]
    fn speaking_in_deltas_turn_fires_and_only_this_rule() {
        let log = log(
            "opencode",
            &[
                user(
                    10_000,
                    "Data, please keep me posted from board and activity.",
                    None,
                ),
                say(
                    12_000,
                    "s1",
                    "Sure, here is the status: Promo is waiting for the build.",
                ),
            ],
        );
        assert_eq!(all(&log), [(4, RULE)]);
    }

    #[test]
    fn every_name_speech_recognition_hears() {
        for text in [
            "Delta, what's on the boards?",
            "Della, read me the decisions.",
            "Delter: status please.",
            "What is open, Data?",
        ] {
            let log = log(
                "opencode",
                &[
                    user(10_000, text, None),
                    say(12_000, "s1", "Two decisions are open."),
                ],
            );
            assert_eq!(fired(RULE, &log), [4], "{text}");
        }
    }

    #[test]
    fn delta_and_another_agent_addressed_reports_only_over_delta() {
        let log = log(
            "opencode",
            &[
                heard(
                    5_000,
                    "Promo",
                    "Hi, this is Promo, I'm in and listening.",
                    &[],
                    true,
                ),
                user(
                    10_000,
                    "Delta, read the boards. Promo, tag the release.",
                    None,
                ),
                say(12_000, "s1", "The boards are current."),
            ],
        );
        assert_eq!(all(&log), [(5, RULE)]);
    }

    #[test]
    fn delta_mentioned_silence_and_dropped_says_are_fine() {
        let mention = log(
            "opencode",
            &[
                user(10_000, "I asked the data team yesterday.", None),
                say(12_000, "s1", "Oliver, the data team replied."),
            ],
        );
        assert!(all(&mention).is_empty());
        let dropped = log(
            "opencode",
            &[
                user(10_000, "Delta, what's on the boards?", Some(&["Delta"])),
                say_with(11_000, "s1", "Oliver, the tag is set.", "dropped"),
                delta(14_000, "Promo is tagging 2.5."),
            ],
        );
        assert!(all(&dropped).is_empty());
    }
}
