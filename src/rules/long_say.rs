//! `long-say`: speech that is too long (rulebook rule 10).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::meta::{Evidence, OptValue, OptionMeta, RuleMeta, Scope, When};
use crate::model::{Via, Who};
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "long-say",
    rulebook: "10",
    scope: Scope::Room,
    when: When::Record,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("narrating every step at length"),
    default_severity: Severity::Warning,
    summary: "a `say` over 30 words or 2 sentences",
    options: &[
        OptionMeta {
            name: "max-words",
            default: OptValue::Int(30),
            help: "the most words one say may have",
        },
        OptionMeta {
            name: "max-sentences",
            default: OptValue::Int(2),
            help: "the most sentences one say may have",
        },
    ],
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
        // "read the whole summary out loud" narrates too
        let reads_aloud = i.tells().any(|c| {
            c.has(&["read*", "lies", "vorles*"])
                && c.has(&["aloud", "out loud", "laut", "vor", "out to", "out"])
        });
        // in the call, said in a clause that is not negated ("the report
        // goes in the pull request, not in the call" speaks of no call)
        // read aloud is spoken wherever it is read
        let spoken = reads_aloud
            || i.clauses.iter().any(|c| {
                !c.negated
                    && (c.has(IN_CALL)
                        || c.has(&[
                            "out loud", "aloud", "laut", "human", "mensch*", "user", "nutzer*",
                        ]))
            });
        let narrates = i
            .tells()
            .any(|c| c.has(NARRATE) && !c.has(&["board", "activity", "aktivität*"]));
        if !((narrates || reads_aloud) && i.has(AT_LENGTH)) || !spoken {
            return None;
        }
        Some(at_instruction(i, "this instruction has the agent speak at length; every sentence is one the human must listen to", "say to keep says to one short thought, and to show the steps on the board and in the activity feed"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let max_words = cx.int("max-words") as usize;
        let max_sentences = cx.int("max-sentences") as usize;
        let mut out = Vec::new();
        for u in &cx.call.utterances {
            if u.who != Who::Me || !matches!(u.via, Via::Say | Via::Greet) {
                continue;
            }
            let (words, sentences) = measure(u.text);
            let what = if words > max_words {
                format!("{words} words (at most {max_words})")
            } else if sentences > max_sentences {
                format!("{sentences} sentences (at most {max_sentences})")
            } else {
                continue;
            };
            out.push(
                Finding::new(u.anchor(), format!("this say runs {what}"))
                    .here(format!("{words} words, {sentences} sentence{}", if sentences == 1 { "" } else { "s" }))
                    .help("say one short thought; details go on the board or in the activity feed, where people read them when they want to"),
            );
        }
        for f in out {
            cx.report(f);
        }
    }
}

/// Words and sentences of a spoken text. A URL or file name is one word; a
/// sentence needs at least one word. Sentences are split the way addressing
/// splits them, so `3.5` or a URL never ends one.
pub fn measure(text: &str) -> (usize, usize) {
    let words = text
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count();
    let sentences = crate::text::addressing::sentences(text)
        .filter(|r| text[r.clone()].chars().any(char::is_alphanumeric))
        .count();
    (words, sentences)
}

#[cfg(test)]
mod tests {
    use super::measure;

    #[test]
    fn counts_words_and_sentences() {
        assert_eq!(measure("Hi, this is opencode. What can I do?"), (8, 2));
        assert_eq!(
            measure("Version 3.5 is out: see https://example.com/a.b for notes."),
            (8, 1)
        );
        assert_eq!(measure("Ja. Nein. Vielleicht."), (3, 3));
        assert_eq!(measure("— ✅ —"), (0, 0));
        assert_eq!(measure(""), (0, 0));
    }
}
