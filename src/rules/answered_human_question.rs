//! `answered-human-question`: another agent asked the human something, and
//! the recorder spoke before the human could answer (seed rule 3).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::turns;
use crate::model::Breach;
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "answered-human-question",
    rulebook: "3",
    scope: Scope::Room,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("answering questions another agent put to the human"),
    default_severity: Severity::Warning,
    summary: "another agent asked the human a question, and this agent spoke before the human did",
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
        // a question that goes to the human ("questions to the human",
        // "a question for Oliver"), not one from the human
        use crate::text::instructions::mentions;
        let for_human = i.clauses.iter().any(|c| {
            matches!((c.find(QUESTION), c.find(HUMAN)), (Some(q), Some(h)) if q < h && {
                let between = &c.words[q..h];
                mentions(between, &["to", "for", "goes", "an", "für", "geht"])
                    && !mentions(between, &["from", "by", "von", "you", "dich", "dir"])
            })
        });
        // the answer given in the human's place ("answer in her place"):
        // a question put to the human, answered by the agent for them
        let in_place = i.tells().any(|c| {
            c.has(ANSWER)
                && c.has(&[
                    "in their place",
                    "in her place",
                    "in his place",
                    "on their behalf",
                    "on her behalf",
                    "on his behalf",
                    "an ihrer stelle",
                    "an seiner stelle",
                ])
        }) && i.has(HUMAN)
            && i.has(QUESTION)
            && !i.has(DELTA)
            && !i.has(ADDRESSED_ME);
        if in_place {
            return Some(at_instruction(
                i,
                "this instruction has the agent answer a question another agent asked the human",
                "say to leave another agent's question to the human, even when the answer is known",
            ));
        }
        // the agent's own questions for the human are not another's
        let own = i.has(&["your question*", "deine frage*", "my question*"]);
        if !i.tells().any(|c| c.main().has(ANSWER))
            || !(i.has(OTHER_AGENT) || for_human && !own)
            || !i.has(QUESTION)
            || i.has(DELTA)
        {
            return None;
        }
        // the human asking another agent is another rule's case
        if i.find(HUMAN) < i.find(OTHER_AGENT) {
            return None;
        }
        if !(i.has(HUMAN) || i.has(&["know the answer", "die antwort weißt", "die antwort kennst"]))
            || i.has(ADDRESSED_ME)
        {
            return None;
        }
        Some(at_instruction(
            i,
            "this instruction has the agent answer a question another agent asked the human",
            "say to leave another agent's question to the human, even when the answer is known",
        ))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let human = call.human.unwrap_or("the human");
        let me = call.recorder.unwrap_or("this agent");
        for v in turns::breaches(call, Breach::HumanQuestion) {
            let say = &call.utterances[v.say];
            let q = &call.utterances[v.against];
            let asker = q.speaker;
            let f = Finding::new(
                say.anchor(),
                format!(
                    "{me} answered a question {asker} asked {human}: {}",
                    quote(q.text, 60)
                ),
            )
            .here(format!("spoken before {human} could answer"))
            .label(q.anchor(), format!("{asker} asked {human} here"))
            .help(format!(
                "a question to {human} is {human}'s to answer, however sure you are of the answer: stay silent and let {human} decide"
            ));
            cx.report(v.with_repeats(call, f, "and spoke again before the answer here"));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::turns::testlog::*;

    const RULE: &str = "answered-human-question";

    #[test]
    fn answering_a_question_to_the_human_fires_and_only_this_rule() {
        let log = log(
            "opencode",
            &[
                user(10_000, "Good, thanks.", Some(&[])),
                heard(
                    20_000,
                    "Promo",
                    "Oliver, two quick checks: does Delta answer only you, and does an agent wake another only when named?",
                    &["Oliver"],
                    true,
                ),
                say(21_000, "s1", "Yes to both."),
                user(28_000, "Yes, both are right.", Some(&[])),
            ],
        );
        assert_eq!(all(&log), [(5, RULE)]);
    }

    #[test]
    fn a_question_without_a_question_mark() {
        let log = log(
            "Juno",
            &[
                user(10_000, "Okay.", Some(&[])),
                heard(
                    20_000,
                    "Promo",
                    "Oliver, do you want the canary at fifty percent",
                    &["Oliver"],
                    true,
                ),
                say(22_000, "s1", "The canary can go to fifty percent now."),
            ],
        );
        assert_eq!(all(&log), [(5, RULE)]);
    }

    #[test]
    fn after_the_human_answered_it_is_fine() {
        let log = log(
            "opencode",
            &[
                heard(
                    5_000,
                    "Promo",
                    "Oliver, should I tag 2.5 today?",
                    &["Oliver"],
                    true,
                ),
                user(10_000, "Yes, tag it.", Some(&[])),
                say(12_000, "s1", "Oliver, the notes mention the tag."),
            ],
        );
        assert!(all(&log).is_empty());
    }

    #[test]
    fn addressed_by_the_human_or_woken_by_an_agent_is_fine() {
        let addressed = log(
            "Claude",
            &[
                user(10_000, "Claude, what do you think?", Some(&["Claude"])),
                heard(
                    12_000,
                    "Promo",
                    "Oliver, should I tag it now?",
                    &["Oliver"],
                    true,
                ),
                say(13_000, "s1", "Oliver, I would wait for the docs."),
            ],
        );
        assert!(all(&addressed).is_empty());
        let woken = log(
            "Claude",
            &[
                user(10_000, "Okay.", Some(&[])),
                heard(
                    12_000,
                    "Promo",
                    "Oliver, should I tag it now?",
                    &["Oliver"],
                    true,
                ),
                operator(14_000, "Promo", "Claude", "Claude, are the notes done?"),
                say(15_000, "s1", "Promo, yes, they are done."),
            ],
        );
        assert!(all(&woken).is_empty());
    }

    #[test]
    fn a_greeting_or_a_statement_to_the_human_is_no_question() {
        let log = log(
            "Claude",
            &[
                user(10_000, "Okay.", Some(&[])),
                heard(
                    12_000,
                    "Promo",
                    "Hi, this is Promo, I'm in and listening. What's up?",
                    &[],
                    true,
                ),
                heard(14_000, "Juno", "Oliver, the tag is set.", &["Oliver"], true),
                status(15_000),
                say(16_000, "s1", "Oliver, the release notes are ready."),
            ],
        );
        assert!(all(&log).is_empty());
    }

    #[test]
    fn a_question_left_hanging_for_a_minute_no_longer_holds() {
        let log = log(
            "Claude",
            &[
                user(10_000, "Okay.", Some(&[])),
                heard(
                    12_000,
                    "Promo",
                    "Oliver, should I tag it now?",
                    &["Oliver"],
                    true,
                ),
                status(30_000),
                say(80_000, "s1", "Oliver, the release notes are ready."),
            ],
        );
        assert!(all(&log).is_empty());
    }

    #[test]
    fn a_say_before_the_question_arrived_is_fine() {
        let log = log(
            "Claude",
            &[
                user(10_000, "Okay.", Some(&[])),
                status(11_000),
                say(12_100, "s1", "Oliver, the release notes are ready."),
                heard(
                    12_400,
                    "Promo",
                    "Oliver, should I tag it now?",
                    &["Oliver"],
                    true,
                ),
            ],
        );
        assert!(all(&log).is_empty());
    }
}
