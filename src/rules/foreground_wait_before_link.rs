//! `foreground-wait-before-link`: `join` or `next` in the main thread after
//! `create_call`, before the turn that hands the link over has ended (hard
//! rule).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::{Op, Record};
use crate::rules::link_not_last::{assistant_turns, chat_text, created_calls, records_chat};
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "foreground-wait-before-link",
    rulebook: "hard",
    scope: Scope::Own,
    when: When::After,
    needs: Evidence::CHAT,
    instruction: Some("waiting for the human (join, next) before the call's link is out"),
    default_severity: Severity::Error,
    summary:
        "`join` or `next` in the main thread after `create_call`, before the link reached the user",
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
        let found = || {
            Some(at_instruction(i, "this instruction has the agent wait in the foreground before the user has the call's link", "give the user share_text first and end the turn with it; join when the user says they opened the link, or in the background where the client can"))
        };
        // "hold the link back until join answers"
        let held = i.tells_any(&[
            "hold off",
            "hold back",
            "wait with",
            "warte mit",
            "delay*",
            "zögere",
        ]) && i.has(LINK)
            && i.has(&["until", "bis"])
            && i.has(JOIN);
        // "only once the human has joined, share the link": the link held
        // back until then (a link shared again after joining is fine)
        let after_join = i.tells_any(LINK)
            && i.has(&["only", "erst", "not until", "nur"])
            && i.conditions().any(|c| {
                c.has(JOIN)
                    || c.has(&[
                        "beigetreten",
                        "is in the call",
                        "im call ist",
                        "shows up",
                        "is there",
                        "da ist",
                    ])
            });
        if (held || after_join) && !i.has(&["background", "hintergrund*"]) {
            return found();
        }
        if !i.tells_any(WAIT) {
            return None;
        }
        let w = i.find(WAIT)?;
        let link = i.find(LINK)?;
        // the link given in a later clause: "..., and only afterwards tell
        // the user the link"
        let later = i.tells().any(|c| {
            c.has(LINK)
                && c.has(&[
                    "afterwards",
                    "then",
                    "only then",
                    "after that",
                    "dann",
                    "erst dann",
                    "danach",
                ])
        });
        let before = later
            || link > w
                && i.find(&[
                    "then",
                    "before",
                    "only then",
                    "afterwards",
                    "after that",
                    "dann",
                    "bevor",
                    "erst dann",
                    "danach",
                    "erst",
                ])
                .is_some_and(|t| t > w && t < link)
            || i.if_any(LINK) && i.conditions().any(|c| c.has(&["before", "bevor"]));
        if !before || i.has(&["background", "hintergrund*"]) || i.forbids_any(WAIT) {
            return None;
        }
        found()
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let records = cx.call.records;
        if !records_chat(records) {
            return;
        }
        let created = created_calls(records);
        for (k, c) in created.iter().enumerate() {
            let until = created.get(k + 1).map_or(records.len(), |n| n.record);
            // The link reaches the user when a turn whose final message
            // carries it ends.
            let delivered = assistant_turns(records, c.record + 1, until)
                .into_iter()
                .find(|t| chat_text(&records[t.last()]).is_some_and(|s| c.carried_by(s)));
            let end = delivered.as_ref().map_or(until, |t| t.end);
            let waits: Vec<usize> = (c.record + 1..end)
                .filter(|&i| is_foreground_wait(&records[i]))
                .collect();
            let Some(&first) = waits.first() else {
                continue;
            };
            let r = &records[first];
            let name = r.as_fn().map_or("join", |f| &*f.name);
            let more = match waits.len() - 1 {
                0 => String::new(),
                1 => " (and 1 more `join`/`next` after it)".to_string(),
                n => format!(" (and {n} more `join`/`next` after it)"),
            };
            let mut f = Finding::new(
                r.head(),
                format!("`{name}` waits in the main thread before the link reached the user{more}"),
            )
            .here("waiting in the foreground")
            .label(c.share_anchor, "the link `create_call` returned")
            .help("end the turn with share_text first; run join and next in the background, or call join once the user says they opened the link");
            if let Some(t) = &delivered {
                let m = &records[t.last()];
                f = f.label(m.head(), "the link only reached the user here");
            }
            cx.report(f);
        }
    }
}

fn is_foreground_wait(r: &Record) -> bool {
    r.is_main()
        && r.as_fn()
            .is_some_and(|f| matches!(f.op, Op::Join(_) | Op::Next(_)))
}

#[cfg(test)]
mod tests {
    use crate::lint::engine::fired;

    const HEAD: &str = r#"{"ts":"2026-10-10T09:00:00.000Z","chat":"user","text":"Open a call."}
{"ts":"2026-10-10T09:00:01.000Z","fn":"create_call","args":{"lang":"en"},"result":{"call_id":"c-1","link":"https://voicehook.ai/c/abc","share_text":"Join the call: https://voicehook.ai/c/abc"}}
"#;

    #[test]
    fn main_join_before_the_link_fires_once() {
        let log = format!(
            "{HEAD}{}\n{}\n{}\n",
            r#"{"ts":"2026-10-10T09:00:51.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"waiting_for_human"}}"#,
            r#"{"ts":"2026-10-10T09:01:41.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"waiting_for_human"}}"#,
            r#"{"ts":"2026-10-10T09:01:42.000Z","chat":"assistant","text":"Join the call: https://voicehook.ai/c/abc","turn_end":true}"#,
        );
        assert_eq!(fired("foreground-wait-before-link", &log), [3]);
    }

    #[test]
    fn background_waits_and_joins_after_the_link_are_fine() {
        let log = format!(
            "{HEAD}{}\n{}\n{}\n{}\n{}\n",
            r#"{"ts":"2026-10-10T09:00:02.000Z","thread":"background","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"waiting_for_human"}}"#,
            r#"{"ts":"2026-10-10T09:00:03.000Z","thread":"background","fn":"next","result":{"type":"waiting_for_human"}}"#,
            r#"{"ts":"2026-10-10T09:00:04.000Z","chat":"assistant","text":"Join the call: https://voicehook.ai/c/abc","turn_end":true}"#,
            r#"{"ts":"2026-10-10T09:00:30.000Z","chat":"user","text":"I'm in."}"#,
            r#"{"ts":"2026-10-10T09:00:31.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"joined"}}"#,
        );
        assert!(fired("foreground-wait-before-link", &log).is_empty());
    }

    #[test]
    fn a_link_message_without_turn_end_does_not_count_as_delivered() {
        let log = format!(
            "{HEAD}{}\n{}\n{}\n",
            r#"{"ts":"2026-10-10T09:00:02.000Z","chat":"assistant","text":"Join the call: https://voicehook.ai/c/abc"}"#,
            r#"{"ts":"2026-10-10T09:00:52.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"joined"}}"#,
            r#"{"ts":"2026-10-10T09:00:53.000Z","chat":"assistant","text":"You're in, I'm listening.","turn_end":true}"#,
        );
        assert_eq!(fired("foreground-wait-before-link", &log), [4]);
    }
}
