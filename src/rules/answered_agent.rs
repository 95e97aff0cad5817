//! `answered-agent`: another agent spoke to the human, and the recorder
//! answered that agent (seed rule 2).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::turns;
use crate::model::Breach;
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "answered-agent",
    rulebook: "2",
    scope: Scope::Room,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("replying to what another agent says to the human"),
    default_severity: Severity::Warning,
    summary: "another agent spoke to the human, and this agent answered that agent",
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
        // "tell that agent", "sag es dem Agenten": a reply aimed at it
        let tells_agent = i.tells().any(|c| {
            c.has(&["tell", "sag", "sage"])
                && c.has(&[
                    "that agent",
                    "the agent",
                    "them",
                    "it",
                    "diesem agenten",
                    "dem agenten",
                ])
        });
        // thanking an agent for its report is a reply to it too
        let thanks = i.tells_any(&["thank*", "danke*", "bedanke*"]);
        let answers = i
            .tells()
            .any(|c| c.has(ANSWER) && (!c.has(HUMAN) || c.has(OTHER_AGENT)));
        if !(answers || tells_agent || thanks)
            || !i.has(OTHER_AGENT)
            || i.has(QUESTION)
            || i.has(DELTA)
            || i.has(ADDRESSED_ME)
        {
            return None;
        }
        if !i.has(&[
            "tell*",
            "says",
            "speaks",
            "sagt",
            "spricht",
            "erzählt",
            "statement*",
            "update*",
            "announce*",
            "line*",
            "report*",
            "berichtet",
            "meldet",
            "plan*",
            "explain*",
            "erklärt",
            "propos*",
            "vorschläg*",
            "says something",
            "sagen",
            "erzählen",
            "berichten",
            "sagt etwas",
            "beitr*",
            "contribution*",
            "message*",
            "nachricht*",
            "speak*",
        ]) || !(i.has(HUMAN)
            || i.has(IN_CALL)
            || i.tells().any(|c| c.has(ANSWER) && c.has(OTHER_AGENT)))
        {
            return None;
        }
        Some(at_instruction(i, "this instruction has the agent reply to another agent's line to the human", "say to leave other agents' lines to the human alone, unless the agent is addressed by label"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let human = call.human.unwrap_or("the human");
        let me = call.recorder.unwrap_or("this agent");
        for v in turns::breaches(call, Breach::AnsweredAgent) {
            let say = &call.utterances[v.say];
            let line = &call.utterances[v.against];
            let other = line.speaker;
            let by_name = say.addressed_to.iter().any(|n| turns::same_name(n, other));
            let here = if by_name {
                format!("addresses {other}, who was talking to {human}")
            } else {
                format!("replies to {other}'s line")
            };
            let f = Finding::new(
                say.anchor(),
                format!(
                    "{me} answered {other}, who was speaking to {human}: {}",
                    quote(say.text, 60)
                ),
            )
            .here(here)
            .label(line.anchor(), format!("{other} spoke to {human} here"))
            .help(format!(
                "when another agent speaks to {human}, let {human} react; if {other} needs you, it will address you by name"
            ));
            cx.report(v.with_repeats(call, f, "and answered it again here"));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::turns::testlog::*;

    const RULE: &str = "answered-agent";

    #[test]
    fn addressing_the_agent_by_name_fires() {
        let log = log(
            "Juno",
            &[
                user(10_000, "Yes, go to fifty percent.", Some(&[])),
                heard(
                    20_000,
                    "Promo",
                    "Oliver, the release job for 2.5 is green.",
                    &["Oliver"],
                    true,
                ),
                say(
                    22_000,
                    "s1",
                    "Promo, did the smoke tests run on the canary too?",
                ),
            ],
        );
        assert_eq!(all(&log), [(5, RULE)]);
    }

    #[test]
    fn an_answer_marker_right_after_its_line_fires() {
        for text in [
            "Agreed, the beta adds nothing.",
            "Yes, I saw that too.",
            "Genau, so ist es.",
        ] {
            let log = log(
                "Claude",
                &[
                    user(10_000, "Good. Let's talk about the beta.", Some(&[])),
                    heard(
                        20_000,
                        "Promo",
                        "Oliver, I think we can skip the beta.",
                        &["Oliver"],
                        true,
                    ),
                    say(22_000, "s1", text),
                ],
            );
            assert_eq!(all(&log), [(5, RULE)], "{text}");
        }
    }

    #[test]
    fn look_alikes_stay_silent() {
        // The human spoke in between.
        let between = log(
            "Claude",
            &[
                heard(
                    5_000,
                    "Promo",
                    "Oliver, I think we can skip the beta.",
                    &["Oliver"],
                    true,
                ),
                user(10_000, "Fine, no beta.", Some(&[])),
                say(12_000, "s1", "Yes, the notes say so now."),
            ],
        );
        assert!(all(&between).is_empty());
        // No marker, no name: a line of its own to the human.
        let own = log(
            "Claude",
            &[
                user(10_000, "Fine, no beta.", Some(&[])),
                heard(
                    20_000,
                    "Promo",
                    "Oliver, the tag is set.",
                    &["Oliver"],
                    true,
                ),
                say(22_000, "s1", "Oliver, the notes say there is no beta."),
            ],
        );
        assert!(all(&own).is_empty());
        // "No one" is no answer.
        let no_one = log(
            "Claude",
            &[
                user(10_000, "Fine, no beta.", Some(&[])),
                heard(
                    20_000,
                    "Promo",
                    "Oliver, the tag is set.",
                    &["Oliver"],
                    true,
                ),
                say(22_000, "s1", "No one has touched the docs yet."),
            ],
        );
        assert!(all(&no_one).is_empty());
        // The human asked an open question; the "yes" may answer it.
        let open = log(
            "Claude",
            &[
                user(10_000, "Is everything ready for the tag?", Some(&[])),
                heard(
                    20_000,
                    "Promo",
                    "Oliver, the build is green.",
                    &["Oliver"],
                    true,
                ),
                say(22_000, "s1", "Yes, the notes are ready too."),
            ],
        );
        assert!(all(&open).is_empty());
        // Promo addressed this agent: a conversation, not an interruption.
        let woken = log(
            "Claude",
            &[
                user(10_000, "Fine.", Some(&[])),
                heard(
                    20_000,
                    "Promo",
                    "Oliver, the build is green.",
                    &["Oliver"],
                    true,
                ),
                operator(21_000, "Promo", "Claude", "Claude, are the notes ready?"),
                say(22_000, "s1", "Promo, yes, they are."),
            ],
        );
        assert!(all(&woken).is_empty());
        // A line between two agents is not a line to the human.
        let between_agents = log(
            "Claude",
            &[
                user(10_000, "Fine.", Some(&[])),
                heard(
                    20_000,
                    "Promo",
                    "Juno, is the canary clean?",
                    &["Juno"],
                    false,
                ),
                say(22_000, "s1", "Yes, I checked it an hour ago."),
            ],
        );
        assert!(all(&between_agents).is_empty());
    }

    #[test]
    fn a_new_question_to_an_agent_that_answered_the_human_is_no_answer() {
        let asked = |text: &str| {
            log(
                "Claude",
                &[
                    user(10_000, "Is the canary healthy?", Some(&[])),
                    heard(
                        14_000,
                        "Promo",
                        "Oliver, yes, the canary is healthy.",
                        &["Oliver"],
                        true,
                    ),
                    say(16_000, "s1", text),
                ],
            )
        };
        assert!(all(&asked("Promo, which build is the canary running?")).is_empty());
        assert!(all(&asked("Promo, can you send me the canary dashboard")).is_empty());
        // Words for that agent that ask nothing still answer it.
        assert_eq!(
            all(&asked("Promo, I saw the same on the dashboard.")),
            [(5, RULE)]
        );
    }

    #[test]
    fn welcoming_a_greeting_is_not_answering() {
        let log = log(
            "Claude",
            &[
                idle(5_000),
                heard(
                    20_000,
                    "Juno",
                    "Hi, this is Juno, I'm in and listening.",
                    &[],
                    true,
                ),
                say(22_000, "s1", "Hi Juno, welcome."),
            ],
        );
        assert!(all(&log).is_empty());
    }
}
