//! `wrong-language`: speaking another language than the call's (rulebook
//! rule 6).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, OptValue, OptionMeta, RuleMeta, Scope, When};
use crate::model::{Via, Who};
use crate::rules::{Cx, Rule};
use crate::text::language::{identify, identify_in_call, Lang, NameIndex, Verdict};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "wrong-language",
    rulebook: "6",
    scope: Scope::Room,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("a fixed language for the call, or the language of the agent's own user instead of `context.lang`"),
    default_severity: Severity::Warning,
    summary: "a `say` or greeting not in the call language (which `context` events may change)",
    options: &[OptionMeta {
        name: "other-languages",
        default: OptValue::Bool(true),
        help: "judge a say against every other language too, not only the other call language",
    }],
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
        // The call's language decides where a clause names it, unless as
        // a concession ("whatever the call language is").
        // A concession may stand alone before the clause it governs
        // ("ganz gleich, was in `context.lang` steht").
        let conceded = |k: usize| {
            k > 0 && {
                let c = &i.clauses[k - 1];
                c.has(CONCESSIVE) && c.words.split_whitespace().count() <= 3
            }
        };
        let follows_call =
            i.clauses.iter().enumerate().any(|(k, c)| {
                c.has(CALL_LANGUAGE) && !c.has(CONCESSIVE) && !c.negated && !conceded(k)
            });
        // "if the call is in English, greet in English": the language
        // follows the call's
        let conditional = i
            .conditions()
            .any(|c| (c.has(LANGUAGE) || c.has(CALL_LANGUAGE)) && !c.has(CONCESSIVE));
        if (follows_call || conditional) && !i.has(USER_LANGUAGE) {
            return None;
        }
        // A language named as the way of speaking ("in German", "speak
        // English", "stick to English"); the speaking may be named in a
        // condition ("stick to English when you speak").
        let fixed = i.tells().any(|c| {
            c.has(LANGUAGE)
                && (c.has(SPEAK)
                    || i.conditions().any(|k| k.has(SPEAK))
                    // under a topic: "Language: always German"
                    || c.has(&["language :", "sprache :", "languages :"]))
                && (spoken_as(c)
                    || c.has(&[
                        "in",
                        "auf",
                        "only",
                        "nur",
                        "always",
                        "immer",
                        "grundsätzlich",
                        "stets",
                        "ausschließlich",
                        "exclusively",
                        "for all",
                        "for every",
                        "every call",
                        "each call",
                        "all calls",
                        "on every",
                        "in every",
                        "für alle",
                        "für jede*",
                        "in jedem",
                        "stick to",
                        "default to",
                        "bleib bei",
                    ]))
        });
        // "the language your user writes in", "your user's preferred language"
        let users = i.tells().any(|c| {
            c.has(USER_LANGUAGE)
                || c.has(&["language", "sprache"])
                    && c.has(&[
                        "your user*",
                        "user's",
                        "the user",
                        "deines nutzers",
                        "dein nutzer",
                        "invoked you",
                        "started you",
                        "launched you",
                        "your owner",
                        "dich gestartet",
                        "dich aufgerufen",
                    ])
        }) && i.has(IN_CALL);
        if !users && (!fixed || follows_call) {
            return None;
        }
        Some(at_instruction(i, if users { "this instruction takes the call's language from the agent's own user, not from the call" } else { "this instruction fixes the language the agent speaks, whatever the call's language" }, "say to speak the call's language as `context.lang` gives it at join (and as `context` events change it)"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let others = cx.flag("other-languages");
        let call = cx.call;
        // Names carry no language: everyone's label, the human, the voicebot.
        let mut ignore: Vec<&str> = call.agents.iter().map(|a| a.label.as_str()).collect();
        ignore.extend(call.human);
        ignore.push(call.voicebot);
        let names = NameIndex::new(&ignore);
        let mut out = Vec::new();
        // A call language callint does not know is said once, where it was set.
        let mut notes: Vec<Finding> = Vec::new();
        for u in &call.utterances {
            if u.who != Who::Me || !matches!(u.via, Via::Say | Via::Greet) || !cx.judges(u.record())
            {
                continue;
            }
            let Some(setting) = call.lang_at(u.record()) else {
                continue;
            };
            let Some(expected) = Lang::from_code(setting.lang) else {
                if !notes.iter().any(|n| n.primary.at == setting.anchor) {
                    notes.push(
                        Finding::new(
                            setting.anchor,
                            format!(
                                "the call language {} is not one callint can judge; its lines are not checked",
                                quote(setting.lang, 16)
                            ),
                        )
                        .about("unknown-language")
                        .here("set here")
                        .help("callint judges English (`en`) and German (`de`) calls, the languages the voicehook server offers"),
                    );
                }
                continue;
            };
            let heard = if others {
                identify_in_call(u.text, &names, expected).names()
            } else {
                match identify(u.text, &names) {
                    Verdict::Lang { lang, .. } if lang != expected => Some(lang.name().to_string()),
                    _ => None,
                }
            };
            let Some(heard) = heard else {
                continue;
            };
            let what = if u.via == Via::Greet {
                "greeting"
            } else {
                "say"
            };
            let mut f = Finding::new(
                u.anchor(),
                format!(
                    "this {what} is in {heard}; the call language is {}",
                    expected.name()
                ),
            )
            .here(format!("{heard} here"))
            .label(
                setting.anchor,
                format!(
                    "the call language was set to {} here",
                    quote(setting.lang, 8)
                ),
            );
            f = if u.via == Via::Greet {
                f.help(format!(
                    "greet in {}: the server speaks a `greet` text only when it matches the call language, so this greeting is dropped",
                    expected.name()
                ))
            } else {
                f.help(format!(
                    "speak {} for the whole call, whatever language your own user chats in; switch only when a `context` event changes `lang`",
                    expected.name()
                ))
            };
            out.push(f);
        }
        for f in notes {
            cx.note(f);
        }
        for f in out {
            cx.report(f);
        }
    }
}

/// A language named right after a verb of speaking or using ("speak
/// English", "use German", "sprich Deutsch"), past "only" or "always".
fn spoken_as(c: &crate::text::instructions::Clause) -> bool {
    use crate::text::instructions::{concept::LANGUAGE, mentions};
    const VERBS: &[&str] = &[
        "speak*",
        "talk*",
        "use",
        "using",
        "sprich",
        "sprechen",
        "rede",
        "reden",
        "verwende*",
        "nutze",
        "benutze",
    ];
    let words: Vec<&str> = c.words.split_whitespace().collect();
    words.iter().enumerate().any(|(k, w)| {
        mentions(&format!(" {w} "), VERBS)
            && words[k + 1..]
                .iter()
                .find(|n| !matches!(**n, "only" | "always" | "nur" | "immer" | "just"))
                .is_some_and(|n| mentions(&format!(" {n} "), LANGUAGE))
    })
}
