//! `spoke-for-addressed`: the human addressed another agent, and the
//! recorder spoke in that turn (seed rule 2).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::turns;
use crate::model::Breach;
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "spoke-for-addressed",
    rulebook: "2",
    scope: Scope::Room,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("answering every line or question, those meant for someone else included"),
    default_severity: Severity::Warning,
    summary: "the human addressed another agent by name, and this agent spoke in that turn",
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
        let all = i.tells().any(|c| {
            c.has(ANSWER)
                && c.has(EVERY)
                && c.has(&[
                    "question*",
                    "line*",
                    "request*",
                    "frage*",
                    "anfrage*",
                    "everything",
                    "alles",
                    "anything",
                ])
        });
        // the human speaking to another agent: `HUMAN ... OTHER_AGENT`
        let human_to_other = i
            .conditions()
            .any(|c| matches!((c.find(HUMAN), c.find(OTHER_AGENT)), (Some(h), Some(o)) if h < o));
        // "when the human asks X, answer too"
        let answers_too = i.tells().any(|c| c.has(ANSWER) && c.has(TOO))
            && i.conditions().any(|c| c.has(HUMAN) && c.has(ADDRESSED));
        // a line meant for another agent
        let meant_for_other = i.has(OTHER_AGENT)
            && i.has(&[
                "meant for",
                "addressed to",
                "directed at",
                "directed to",
                "intended for",
                "gerichtet",
                "an andere*",
                "an einen anderen",
                "für andere*",
                "name another",
                "names another",
                "name someone else",
                "for another agent",
                "to another agent",
            ]);
        // "answer for Kiwi" when the human asked Kiwi, or "in its place"
        // when the agent that was asked is slow; not when another agent
        // asked the human (the human's own answer is another rule's case)
        let asked_another = i.conditions().any(|c| {
            let human_asks = c.has(HUMAN)
                && c.has(ADDRESSED)
                && !matches!((c.find(OTHER_AGENT), c.find(HUMAN)), (Some(o), Some(h)) if o < h);
            let another_asked = c.has(OTHER_AGENT)
                && c.has(&[
                    "gefragt",
                    "angesprochen",
                    "is asked",
                    "gets asked",
                    "was asked",
                    "is addressed",
                    // its turn still pending
                    "slow",
                    "takes long",
                    "takes too long",
                    "braucht lange",
                    "zu lange",
                ])
                || c.has(&[
                    "the agent that was asked",
                    "the agent who was asked",
                    "the one asked",
                    "the asked agent",
                    "the addressed agent",
                    "der gefragte agent",
                    "der angesprochene agent",
                ]);
            human_asks || another_asked
        });
        let answers_for = (i.tells_of(ANSWER, &["for"])
            || i.tells_any(&[
                "on behalf",
                "in place of",
                "in its place",
                "in their place",
                "in his place",
                "in her place",
                "instead of it",
                "instead of them",
                "für ihn",
                "für sie",
                "an seiner stelle",
                "an ihrer stelle",
            ]))
            && asked_another;
        let others = answers_for
            || i.tells_any(ANSWER)
                && (i.has(OTHERS) && !i.has(OTHER_AGENT)
                    || human_to_other
                    || meant_for_other
                    || asked_another && i.if_any(OTHER_AGENT))
            || answers_too;
        // a short acknowledgement said to every line is the other rule's
        let acks = i
            .said
            .iter()
            .any(|q| (1..=4).contains(&q.split_whitespace().count()));
        if !others && (!all || acks)
            || i.has(ADDRESSED_ME)
            || i.conditions().any(|c| {
                c.has(&["addressed", "angesprochen"]) && !c.has(OTHERS) && !c.has(OTHER_AGENT)
            })
            || i.has(DELTA)
        {
            return None;
        }
        Some(at_instruction(i, "this instruction has the agent answer lines meant for others; only the one addressed answers", "say to answer only when addressed by label (`addressed_to_you`), and to stay silent when someone else is"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let human = call.human.unwrap_or("the human");
        let me = call.recorder.unwrap_or("this agent");
        for v in turns::breaches(call, Breach::ForAddressed) {
            let say = &call.utterances[v.say];
            let line = &call.utterances[v.against];
            let names = turns::join_names(&turns::addressed_others(call, line));
            let f = Finding::new(
                say.anchor(),
                format!(
                    "{me} spoke while {human} was addressing {names}: {}",
                    quote(say.text, 60)
                ),
            )
            .here(format!("spoken in the turn {human} gave to {names}"))
            .label(line.anchor(), format!("{human} addressed {names} here"))
            .help(format!(
                "when {human} names another agent, only that agent answers: stay silent until {human} speaks again, and put what you have on your board"
            ));
            cx.report(v.with_repeats(call, f, "and spoke again in that turn here"));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::turns::testlog::*;

    const RULE: &str = "spoke-for-addressed";

    #[test]
    fn speaking_in_another_agents_turn_fires_once_per_turn() {
        let log = log(
            "Claude",
            &[
                user(10_000, "Promo, is the build green?", Some(&["Promo"])),
                heard(12_000, "Promo", "Yes, the build is green.", &[], true),
                say(13_000, "s1", "I saw the canary is at ten percent."),
                say(15_000, "s2", "And the docs are done."),
            ],
        );
        assert_eq!(fired(RULE, &log), [5]);
        assert_eq!(all(&log), [(5, RULE)]);
    }

    #[test]
    fn addressing_is_computed_when_left_out() {
        let log = log(
            "Claude",
            &[
                heard(
                    5_000,
                    "Promo",
                    "Hi, this is Promo, I'm in and listening.",
                    &[],
                    true,
                ),
                user(10_000, "Promo, is the build green?", None),
                say(13_000, "s1", "It is green."),
            ],
        );
        assert_eq!(fired(RULE, &log), [5]);
    }

    #[test]
    fn the_addressed_agent_and_an_open_turn_are_fine() {
        let me = log(
            "Claude",
            &[
                user(10_000, "Claude, is the build green?", Some(&["Claude"])),
                say(11_000, "s1", "Yes, it is green."),
                user(20_000, "Good, thanks.", Some(&[])),
                say(22_000, "s2", "Oliver, the docs are done."),
            ],
        );
        assert!(all(&me).is_empty());
        let both = log(
            "Claude",
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
                    "Promo, check the tag. Claude, check the docs.",
                    None,
                ),
                say(11_000, "s1", "On it, one moment."),
            ],
        );
        assert!(all(&both).is_empty());
    }

    #[test]
    fn answering_an_agent_that_woke_it_is_fine() {
        let log = log(
            "Claude",
            &[
                user(10_000, "Promo, collect the error rates.", Some(&["Promo"])),
                operator(
                    12_000,
                    "Promo",
                    "Claude",
                    "Claude, what does your dashboard show?",
                ),
                say(13_000, "s1", "Promo, it shows 0.2 percent."),
            ],
        );
        assert!(all(&log).is_empty());
    }

    #[test]
    fn a_say_queued_before_the_human_spoke_or_dropped_is_fine() {
        let queued = log(
            "Claude",
            &[
                status(1_000),
                say(9_800, "s1", "Oliver, the notes are ready."),
                user(10_000, "Promo, is the build green?", Some(&["Promo"])),
                revise(10_300, "s1"),
            ],
        );
        assert!(all(&queued).is_empty());
        let dropped = log(
            "Claude",
            &[
                user(10_000, "Promo, is the build green?", Some(&["Promo"])),
                say_with(11_000, "s1", "Oliver, the notes are ready.", "dropped"),
            ],
        );
        assert!(all(&dropped).is_empty());
        // Said after the human's line was spoken, but before the event
        // carrying it arrived: the agent could not know.
        let unseen = log(
            "Claude",
            &[
                status(1_000),
                r#"{"ts":"2026-10-10T10:00:10.200Z","fn":"say","args":{"text":"Oliver, the notes are ready."},"result":{"say_id":"s1","say_status":"spoken"}}"#.to_string(),
                r#"{"ts":"2026-10-10T10:00:10.500Z","fn":"next","result":{"type":"user","speaker":"Oliver","text":"Promo, is the build green?","ts":"2026-10-10T10:00:10.000Z","addressed_to":["Promo"]}}"#.to_string(),
            ],
        );
        assert!(all(&unseen).is_empty());
    }

    #[test]
    fn a_minute_after_the_human_spoke_the_turn_is_handed_back() {
        let late = log(
            "Claude",
            &[
                user(
                    10_000,
                    "Promo, please run the full test suite.",
                    Some(&["Promo"]),
                ),
                heard(12_000, "Promo", "On it, one moment.", &[], true),
                status(30_000),
                say(75_000, "s1", "Oliver, the release notes are ready."),
            ],
        );
        assert!(all(&late).is_empty());
        let within = log(
            "Claude",
            &[
                user(
                    10_000,
                    "Promo, please run the full test suite.",
                    Some(&["Promo"]),
                ),
                heard(12_000, "Promo", "On it, one moment.", &[], true),
                status(30_000),
                say(65_000, "s1", "Oliver, the release notes are ready."),
            ],
        );
        assert_eq!(fired(RULE, &within), [6]);
    }

    #[test]
    fn the_greeting_right_after_a_join_is_fine() {
        let log = log(
            "Claude",
            &[
                user(10_000, "Promo, is the build green?", Some(&["Promo"])),
                r#"{"ts":"2026-10-10T10:00:11.000Z","fn":"join","args":{"call_id":"c-1","label":"Claude","greet":false},"result":{"status":"joined"}}"#.to_string(),
                say(11_500, "s1", "Hi, this is Claude, I'm in and listening."),
            ],
        );
        assert!(all(&log).is_empty());
    }
}
