//! `link-not-last`: after `create_call`, the next assistant turn must end
//! with `share_text`, verbatim, as its last line, and nothing may follow it
//! in that turn (hard rule on handing over the call link).
//!
//! The helpers below (created calls, assistant turns, "does this message end
//! with the link") are shared with `foreground-wait-before-link` and
//! `link-missing-until-joined`.

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::{Anchor, Body, Op, Record, Text};
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "link-not-last",
    rulebook: "hard",
    scope: Scope::Own,
    when: When::After,
    needs: Evidence::CHAT,
    instruction: Some("going on after the call's link: a summary, further steps or tool calls after share_text"),
    default_severity: Severity::Error,
    summary: "the turn after `create_call` does not end with `share_text` verbatim as its last line, or something follows the link",
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
        let link = i.find(LINK)?;
        // waiting before the link is another rule's case
        if i.tells_any(WAIT)
            && i.find(WAIT).is_some_and(|w| w < link)
            && !i.has(&["background", "hintergrund*"])
        {
            return None;
        }
        let trails = i.tells().any(|c| {
            c.has(TRAILER)
                || c.has(&[
                    "keep working",
                    "continue working",
                    "weiterarbeit*",
                    "mach weiter",
                ])
        });
        let after = i.find(THEN).is_some_and(|t| t > link)
            || i.if_any(LINK)
                && i.conditions()
                    .any(|c| c.has(&["after", "once", "nachdem", "sobald"]));
        let last = i.has(&[
            "last",
            "final",
            "finally",
            "end your turn",
            "end the turn",
            "nothing after",
            "zuletzt",
            "als letztes",
            "am ende",
            "beende",
        ]) && i
            .find(&[
                "last",
                "final",
                "finally",
                "end your turn",
                "end the turn",
                "zuletzt",
                "als letztes",
                "am ende",
                "beende",
            ])
            .is_some_and(|l| l > link);
        if !(trails && after)
            || last
            || i.find(TRAILER).is_some_and(|t| t < link) && !i.if_any(LINK)
        {
            return None;
        }
        Some(at_instruction(i, "this instruction puts more after the call's link; a user who sees only the last message loses the link", "make share_text the very last thing of the turn: whatever else there is to say comes before it"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let records = cx.call.records;
        if !records_chat(records) {
            return;
        }
        let created = created_calls(records);
        for (k, c) in created.iter().enumerate() {
            let until = created.get(k + 1).map_or(records.len(), |n| n.record);
            let turns = assistant_turns(records, c.record + 1, until);
            let share_label = (c.share_anchor, "the share_text `create_call` returned");
            let Some(t) = turns.first() else {
                // No message to the user at all, but work went on in the
                // main thread: the link was never handed over.
                if let Some(i) = (c.record + 1..until).find(|&i| is_main_work(&records[i])) {
                    let r = &records[i];
                    cx.report(
                        Finding::new(
                            r.head(),
                            format!(
                                "the link was never given to the user: {} ran in the main thread instead",
                                what(r)
                            ),
                        )
                        .here("the turn goes on here without the link")
                        .label(share_label.0, share_label.1)
                        .help(HELP),
                    );
                }
                continue;
            };
            check_turn(cx, records, c, t, share_label);
        }
    }
}

const HELP: &str = "give share_text word for word as the last line of your final message and end the turn there; run join and next in the background, or call join when the user says they opened the link";

fn check_turn(
    cx: &mut Cx<'_, '_>,
    records: &[Record],
    c: &Created<'_>,
    t: &AssistantTurn,
    share_label: (Anchor, &'static str),
) {
    let final_idx = t.last();
    let final_rec = &records[final_idx];
    let final_text = chat_text(final_rec).unwrap_or("");
    if ends_with_line(final_text, c.share) {
        // Only possible when the recorder marks no turn end: work in the
        // main thread after the final message is still part of the turn.
        if let Some(i) = (final_idx + 1..t.end).find(|&i| is_main_work(&records[i])) {
            let r = &records[i];
            cx.report(
                Finding::new(
                    r.head(),
                    format!(
                        "{} runs in the main thread after the link, in the same turn",
                        what(r)
                    ),
                )
                .here("comes after the link")
                .label(final_rec.head(), "the link was given here")
                .label(share_label.0, share_label.1)
                .help(HELP),
            );
        }
        return;
    }
    // The last message of the turn that carries the link in some form.
    let link_msg = t
        .msgs
        .iter()
        .rev()
        .copied()
        .find(|&i| chat_text(&records[i]).is_some_and(|s| c.carried_by(s)));
    if let Some(li) = link_msg.filter(|&li| li != final_idx) {
        let Some(i) =
            (li + 1..t.end).find(|&i| is_main_work(&records[i]) || is_assistant_msg(&records[i]))
        else {
            return;
        };
        let r = &records[i];
        let at = chat_anchor(r).unwrap_or_else(|| r.head());
        let thing = if is_assistant_msg(r) {
            "another message".to_string()
        } else {
            format!("{} in the main thread", what(r))
        };
        cx.report(
            Finding::new(
                at,
                format!("the link is not the last thing in the turn after `create_call`: {thing} follows it"),
            )
            .here("comes after the link")
            .label(records[li].head(), "the link was given here")
            .label(share_label.0, share_label.1)
            .help(HELP),
        );
        return;
    }
    let at = chat_anchor(final_rec).unwrap_or_else(|| final_rec.head());
    let share = c.share.trim();
    let (msg, here) = if final_text.contains(share) {
        (
            "the final message goes on after the link; share_text must be its last line"
                .to_string(),
            "text follows the link",
        )
    } else if c.url.is_some_and(|u| final_text.contains(u)) {
        (
            format!(
                "the final message gives the link, but not share_text word for word ({})",
                quote(share, 60)
            ),
            "the link in other words",
        )
    } else {
        (
            "the turn after `create_call` ends without the link".to_string(),
            "the final message, without share_text",
        )
    };
    cx.report(
        Finding::new(at, msg)
            .here(here)
            .label(share_label.0, share_label.1)
            .help(HELP),
    );
}

/// A successful `create_call` with its `share_text`.
pub(crate) struct Created<'a> {
    /// Index of its record.
    pub record: usize,
    pub share: &'a str,
    pub share_anchor: Anchor,
    /// The bare link: `result.link`, else the URL inside share_text.
    pub url: Option<&'a str>,
}

impl Created<'_> {
    /// True if `text` hands over the link: share_text word for word or the
    /// bare URL, anywhere in it.
    pub fn carried_by(&self, text: &str) -> bool {
        let share = self.share.trim();
        (!share.is_empty() && text.contains(share)) || self.url.is_some_and(|u| text.contains(u))
    }

    /// True if the last line of `text` is share_text or holds the URL.
    pub fn ends_message(&self, text: &str) -> bool {
        ends_with_line(text, self.share)
            || self.url.is_some_and(|u| {
                text.trim_end()
                    .rsplit('\n')
                    .next()
                    .is_some_and(|l| l.contains(u))
            })
    }
}

/// Every `create_call` that returned a share_text, in log order.
pub(crate) fn created_calls(records: &[Record]) -> Vec<Created<'_>> {
    let mut out = Vec::new();
    for (i, r) in records.iter().enumerate() {
        let Some(f) = r.as_fn() else { continue };
        let Op::CreateCall(c) = &f.op else { continue };
        if !f.ok() {
            continue;
        }
        let Some(share) = c.share_text.as_ref().filter(|s| !s.value.trim().is_empty()) else {
            continue;
        };
        let url = c
            .link
            .as_deref()
            .filter(|l| !l.trim().is_empty())
            .or_else(|| url_in(&share.value));
        out.push(Created {
            record: i,
            share: share.as_str(),
            share_anchor: r.text(share),
            url,
        });
    }
    out
}

fn url_in(s: &str) -> Option<&str> {
    let start = s.find("https://").or_else(|| s.find("http://"))?;
    let rest = &s[start..];
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let url = rest[..end].trim_end_matches(['.', ',', ')', '>', '"', '\'', '”', '“']);
    (url.len() > "https://".len()).then_some(url)
}

/// True if the last line of `text` is `share` (both trimmed); `share` may
/// itself span lines, in which case it must start a line.
pub(crate) fn ends_with_line(text: &str, share: &str) -> bool {
    let share = share.trim();
    if share.is_empty() {
        return false;
    }
    match text.trim_end().strip_suffix(share) {
        Some(before) => {
            let before = before.trim_end_matches([' ', '\t']);
            before.is_empty() || before.ends_with('\n')
        }
        None => false,
    }
}

/// One assistant turn: the main-thread assistant messages up to the one
/// marked `turn_end` (or, when the recorder marks none, up to the user's
/// next message or the end of the log).
#[derive(Debug)]
pub(crate) struct AssistantTurn {
    /// Record indices of its messages, in order (never empty).
    pub msgs: Vec<usize>,
    /// One past the last record of the turn: after the `turn_end` message,
    /// or the index of the user's next message, or the end of the range.
    pub end: usize,
}

impl AssistantTurn {
    /// Index of the final message.
    pub fn last(&self) -> usize {
        *self.msgs.last().expect("a turn has a message")
    }
}

/// The assistant turns among `records[from..to]`.
pub(crate) fn assistant_turns(records: &[Record], from: usize, to: usize) -> Vec<AssistantTurn> {
    let mut out = Vec::new();
    let mut msgs: Vec<usize> = Vec::new();
    for (i, r) in records.iter().enumerate().take(to).skip(from) {
        let Body::Chat(c) = &r.body else { continue };
        if c.is_assistant() {
            if !r.is_main() {
                continue;
            }
            // A message without text shows nothing, but may still end the turn.
            if c.text.as_ref().is_some_and(|t| !t.value.trim().is_empty()) {
                msgs.push(i);
            }
            if c.turn_end && !msgs.is_empty() {
                out.push(AssistantTurn {
                    msgs: std::mem::take(&mut msgs),
                    end: i + 1,
                });
            }
        } else if c.role == "user" && !msgs.is_empty() {
            out.push(AssistantTurn {
                msgs: std::mem::take(&mut msgs),
                end: i,
            });
        }
    }
    if !msgs.is_empty() {
        out.push(AssistantTurn { msgs, end: to });
    }
    out
}

/// True if the log records chat messages at all; a recorder that does not
/// (an MCP trace, say) cannot show whether the link reached the user.
pub(crate) fn records_chat(records: &[Record]) -> bool {
    records.iter().any(|r| matches!(r.body, Body::Chat(_)))
}

/// A main-thread assistant message with something in it.
fn is_assistant_msg(r: &Record) -> bool {
    r.is_main()
        && matches!(&r.body, Body::Chat(c) if c.is_assistant()
            && c.text.as_ref().is_some_and(|t| !t.value.trim().is_empty()))
}

/// A function call or tool run in the main thread.
fn is_main_work(r: &Record) -> bool {
    r.is_main() && matches!(r.body, Body::Fn(_) | Body::Tool(_))
}

pub(crate) fn chat_text(r: &Record) -> Option<&str> {
    match &r.body {
        Body::Chat(c) => c.text.as_ref().map(Text::as_str),
        _ => None,
    }
}

pub(crate) fn chat_anchor(r: &Record) -> Option<Anchor> {
    match &r.body {
        Body::Chat(c) => c.text.as_ref().map(|t| r.text(t)),
        _ => None,
    }
}

/// "`join`", "tool `shell`".
fn what(r: &Record) -> String {
    match &r.body {
        Body::Fn(f) => format!("`{}`", f.name),
        Body::Tool(t) => format!("tool `{}`", t.name),
        Body::Chat(_) => "a message".into(),
        Body::Meta(_) => "a meta record".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::engine::fired;

    const CREATE: &str = r#"{"ts":"2026-10-10T09:00:01.000Z","fn":"create_call","args":{"lang":"en"},"result":{"call_id":"c-1","link":"https://voicehook.ai/c/abc","share_text":"Join the call: https://voicehook.ai/c/abc"}}"#;

    fn log(lines: &[&str]) -> String {
        let mut s = String::from(
            r#"{"ts":"2026-10-10T09:00:00.000Z","chat":"user","text":"Open a call."}"#,
        );
        s.push('\n');
        s.push_str(CREATE);
        s.push('\n');
        for l in lines {
            s.push_str(l);
            s.push('\n');
        }
        s
    }

    #[test]
    fn last_line_helper() {
        let share = "Join the call: https://voicehook.ai/c/abc";
        assert!(ends_with_line(share, share));
        assert!(ends_with_line(&format!("Here it is:\n{share}\n"), share));
        assert!(ends_with_line(&format!("Here it is:\n\n  {share}"), share));
        assert!(!ends_with_line(&format!("Here it is: {share}"), share));
        assert!(!ends_with_line(&format!("{share}\nI'll wait."), share));
        assert!(!ends_with_line(&format!("**{share}**"), share));
        assert!(!ends_with_line("", share));
    }

    #[test]
    fn the_link_alone_or_after_an_intro_is_fine() {
        let ok = log(&[
            r#"{"ts":"2026-10-10T09:00:02.000Z","chat":"assistant","text":"Join the call: https://voicehook.ai/c/abc","turn_end":true}"#,
        ]);
        assert!(fired("link-not-last", &ok).is_empty());
        let intro = log(&[
            r#"{"ts":"2026-10-10T09:00:02.000Z","chat":"assistant","text":"The call is open.\nJoin the call: https://voicehook.ai/c/abc","turn_end":true}"#,
        ]);
        assert!(fired("link-not-last", &intro).is_empty());
    }

    #[test]
    fn background_work_after_the_link_is_fine() {
        let ok = log(&[
            r#"{"ts":"2026-10-10T09:00:02.000Z","thread":"background","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"waiting_for_human"}}"#,
            r#"{"ts":"2026-10-10T09:00:03.000Z","chat":"assistant","text":"Join the call: https://voicehook.ai/c/abc","turn_end":true}"#,
            r#"{"ts":"2026-10-10T09:00:30.000Z","thread":"background","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"joined"}}"#,
        ]);
        assert!(fired("link-not-last", &ok).is_empty());
    }

    #[test]
    fn text_after_the_link_fires() {
        let bad = log(&[
            r#"{"ts":"2026-10-10T09:00:02.000Z","chat":"assistant","text":"Join the call: https://voicehook.ai/c/abc\nI'll wait for you there.","turn_end":true}"#,
        ]);
        assert_eq!(fired("link-not-last", &bad), [3]);
    }

    #[test]
    fn a_later_message_or_main_work_fires_at_it() {
        let bad = log(&[
            r#"{"ts":"2026-10-10T09:00:02.000Z","chat":"assistant","text":"Join the call: https://voicehook.ai/c/abc"}"#,
            r#"{"ts":"2026-10-10T09:00:03.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"waiting_for_human"}}"#,
            r#"{"ts":"2026-10-10T09:00:50.000Z","chat":"assistant","text":"Still waiting for you.","turn_end":true}"#,
        ]);
        assert_eq!(fired("link-not-last", &bad), [4]);
        let summary = log(&[
            r#"{"ts":"2026-10-10T09:00:02.000Z","chat":"assistant","text":"Join the call: https://voicehook.ai/c/abc"}"#,
            r#"{"ts":"2026-10-10T09:00:03.000Z","chat":"assistant","text":"I created it in English.","turn_end":true}"#,
        ]);
        assert_eq!(fired("link-not-last", &summary), [4]);
    }

    #[test]
    fn paraphrase_or_missing_link_fires() {
        let para = log(&[
            r#"{"ts":"2026-10-10T09:00:02.000Z","chat":"assistant","text":"Your call is ready at https://voicehook.ai/c/abc","turn_end":true}"#,
        ]);
        assert_eq!(fired("link-not-last", &para), [3]);
        let none = log(&[
            r#"{"ts":"2026-10-10T09:00:02.000Z","chat":"assistant","text":"The call is open, I am joining now.","turn_end":true}"#,
        ]);
        assert_eq!(fired("link-not-last", &none), [3]);
    }

    #[test]
    fn silent_without_chat_records_or_create_call() {
        let trace = format!(
            "{CREATE}\n{}\n",
            r#"{"ts":"2026-10-10T09:00:03.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"joined"}}"#
        );
        assert!(fired("link-not-last", &trace).is_empty());
        let participant = r#"{"ts":"2026-10-10T09:00:00.000Z","chat":"user","text":"Join https://voicehook.ai/c/abc"}
{"ts":"2026-10-10T09:00:03.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"joined","role":"participant"}}
{"ts":"2026-10-10T09:00:04.000Z","chat":"assistant","text":"I'm in.","turn_end":true}
"#;
        assert!(fired("link-not-last", participant).is_empty());
    }

    #[test]
    fn an_empty_closing_message_does_not_hide_the_link() {
        let ok = log(&[
            r#"{"ts":"2026-10-10T09:00:02.000Z","chat":"assistant","text":"Join the call: https://voicehook.ai/c/abc"}"#,
            r#"{"ts":"2026-10-10T09:00:02.100Z","chat":"assistant","text":"","turn_end":true}"#,
        ]);
        assert!(fired("link-not-last", &ok).is_empty());
    }

    #[test]
    fn no_message_but_main_work_fires() {
        let bad = log(&[
            r#"{"ts":"2026-10-10T09:00:03.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"waiting_for_human"}}"#,
            r#"{"ts":"2026-10-10T09:00:04.000Z","chat":"user","text":"Hello?"}"#,
        ]);
        assert_eq!(fired("link-not-last", &bad), [3]);
    }
}
