//! `link-missing-until-joined`: until the human has joined, every turn to the
//! user ends with the call link (hard rule). The first turn after
//! `create_call` is `link-not-last`'s; this rule looks at the turns after it.

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::{EventKind, Op, Record};
use crate::rules::link_not_last::{
    assistant_turns, chat_anchor, chat_text, created_calls, records_chat,
};
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "link-missing-until-joined",
    rulebook: "hard",
    scope: Scope::Own,
    when: When::After,
    needs: Evidence::CHAT,
    instruction: Some("giving the call link once and leaving it out of later messages"),
    default_severity: Severity::Warning,
    summary:
        "a turn to the user that ends without the call link while the human has not joined yet",
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
        use crate::text::instructions::mentions;
        let link = i.find(LINK)?;
        // after the human joined, the link may go: only a concession
        // ("even if they have not opened it yet") keeps it about before
        let joined = i.has(JOIN) || i.has(&["opened", "geöffnet", "is in the call", "im call ist"]);
        let before = i.has(&[
            "not yet",
            "noch nicht",
            "hasn't",
            "has not",
            "haven't",
            "have not",
            "even if",
            "even when",
            "auch wenn",
            "selbst wenn",
        ]);
        if joined && !before {
            return None;
        }
        // "give share_text once", "nur einmal", right after the link
        let once = i.has(&[
            "only once",
            "just once",
            "a single time",
            "nur einmal",
            "nur ein einziges mal",
            "einmalig",
        ]) || {
            let rest = &i.words[link..];
            let near: String = rest
                .split(' ')
                .skip(1)
                .take(4)
                .collect::<Vec<_>>()
                .join(" ");
            mentions(&near, &["once", "einmal"])
                && !mentions(
                    &near,
                    &[
                        "once you",
                        "once the",
                        "once they",
                        "once it",
                        "noch einmal",
                    ],
                )
        };
        // leaving it out of later messages
        let later = i.clauses.iter().any(|c| {
            c.has(LATER)
                && !c.condition
                && (c.negated || c.has(OMIT) || c.has(&["leave*"]) && c.has(&["out"]))
        });
        if !once && !later {
            return None;
        }
        Some(at_instruction(i, "this instruction drops the call link from the agent's messages before the human has joined", "say to end every message to the user with share_text until the human has joined"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let records = cx.call.records;
        if !records_chat(records) {
            return;
        }
        let human = cx.call.human.unwrap_or("the human");
        let created = created_calls(records);
        for (k, c) in created.iter().enumerate() {
            let until = created.get(k + 1).map_or(records.len(), |n| n.record);
            let joined = (c.record + 1..until)
                .find(|&i| shows_human_in(&records[i]))
                .unwrap_or(until);
            for t in assistant_turns(records, c.record + 1, until).iter().skip(1) {
                let last = t.last();
                if last > joined {
                    break;
                }
                let r = &records[last];
                let text = chat_text(r).unwrap_or("");
                if c.ends_message(text) {
                    continue;
                }
                cx.report(
                    Finding::new(
                        chat_anchor(r).unwrap_or_else(|| r.head()),
                        format!("this turn ends without the call link, and {human} has not joined yet"),
                    )
                    .here("no link on the last line")
                    .label(c.share_anchor, "the link to repeat")
                    .help(format!(
                        "until {human} is in the call, end every message with share_text ({}), so the link is always at hand",
                        quote(c.share.trim(), 50)
                    )),
                );
            }
        }
    }
}

/// True if a record shows the human in the call: a `join` that is no
/// longer waiting, or a `next` that returned anything but
/// `waiting_for_human` (a `user` event first of all).
pub(crate) fn shows_human_in(r: &Record) -> bool {
    let Some(f) = r.as_fn() else { return false };
    if !f.ok() {
        return false;
    }
    match &f.op {
        Op::Join(j) => j.joined(),
        Op::Next(Some(ev)) => !matches!(ev.kind, EventKind::WaitingForHuman),
        _ => false,
    }
}

/// Messages after the first.
const LATER: &[&str] = &[
    "later",
    "subsequent",
    "again",
    "any more",
    "anymore",
    "every message",
    "each message",
    "späteren",
    "später*",
    "erneut",
    "wieder*",
    "weiteren",
    "nicht mehr",
];

#[cfg(test)]
mod tests {
    use crate::lint::engine::fired;

    const HEAD: &str = r#"{"ts":"2026-10-10T09:00:00.000Z","chat":"user","text":"Open a call."}
{"ts":"2026-10-10T09:00:01.000Z","fn":"create_call","args":{"lang":"en"},"result":{"call_id":"c-1","link":"https://voicehook.ai/c/abc","share_text":"Join the call: https://voicehook.ai/c/abc"}}
{"ts":"2026-10-10T09:00:02.000Z","thread":"background","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"waiting_for_human"}}
{"ts":"2026-10-10T09:00:03.000Z","chat":"assistant","text":"Join the call: https://voicehook.ai/c/abc","turn_end":true}
{"ts":"2026-10-10T09:00:20.000Z","chat":"user","text":"What is the call about?"}
"#;

    #[test]
    fn a_later_turn_without_the_link_fires_until_joined() {
        let log = format!(
            "{HEAD}{}\n{}\n{}\n{}\n",
            r#"{"ts":"2026-10-10T09:00:22.000Z","chat":"assistant","text":"The 2.4 release.","turn_end":true}"#,
            r#"{"ts":"2026-10-10T09:00:52.000Z","thread":"background","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"joined"}}"#,
            r#"{"ts":"2026-10-10T09:01:20.000Z","chat":"user","text":"Thanks."}"#,
            r#"{"ts":"2026-10-10T09:01:22.000Z","chat":"assistant","text":"You're welcome.","turn_end":true}"#,
        );
        assert_eq!(fired("link-missing-until-joined", &log), [6]);
    }

    #[test]
    fn a_turn_ending_with_the_link_is_fine() {
        let log = format!(
            "{HEAD}{}\n",
            r#"{"ts":"2026-10-10T09:00:22.000Z","chat":"assistant","text":"The 2.4 release.\nJoin the call: https://voicehook.ai/c/abc","turn_end":true}"#,
        );
        assert!(fired("link-missing-until-joined", &log).is_empty());
        let url_only = format!(
            "{HEAD}{}\n",
            r#"{"ts":"2026-10-10T09:00:22.000Z","chat":"assistant","text":"The 2.4 release. The link again: https://voicehook.ai/c/abc","turn_end":true}"#,
        );
        assert!(fired("link-missing-until-joined", &url_only).is_empty());
    }

    #[test]
    fn a_user_event_counts_as_joined() {
        let log = format!(
            "{HEAD}{}\n{}\n",
            r#"{"ts":"2026-10-10T09:00:21.000Z","thread":"background","fn":"next","result":{"type":"user","speaker":"Mara","text":"Hello?"}}"#,
            r#"{"ts":"2026-10-10T09:00:22.000Z","chat":"assistant","text":"The 2.4 release.","turn_end":true}"#,
        );
        assert!(fired("link-missing-until-joined", &log).is_empty());
    }
}
