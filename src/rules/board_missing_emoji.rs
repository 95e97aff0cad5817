//! `board-missing-emoji`: a board without an emoji (seed rule 9).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::Path;
use crate::rules::{Cx, Rule};
use crate::text::phrases::has_emoji;

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "board-missing-emoji",
    rulebook: "9",
    scope: Scope::Own,
    when: When::Record,
    needs: Evidence::BOARDS,
    instruction: Some("leaving the board's emoji out"),
    default_severity: Severity::Warning,
    summary: "a board set without an `emoji` that shows the agent's current state",
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
        if !i.has(EMOJI) {
            return None;
        }
        // an emoji forbidden in what is spoken is not the board's
        let spoken = &[
            "spoken",
            "say*",
            "speech",
            "aloud",
            "out loud",
            "gesprochen*",
            "sag*",
        ];
        let leaves = i.forbids().any(|c| {
            c.has(&["no emoji*", "keine emoji*", "without emoji*", "ohne emoji*"])
                && c.has(&["status*", "board*"])
                && !c.has(spoken)
        }) || i.forbids().any(|c| {
            c.has(EMOJI)
                && (c.has(SET) || c.has(&["avoid*", "refrain", "vermeide*"]))
                && !c.has(spoken)
        }) || i.tells_of(OMIT, EMOJI)
            // "leave the emoji out of your status"
            || i.tells().any(|c| c.has(EMOJI) && c.has(&["leave*"]) && c.has(&["out", "off", "away"]))
            // "don't bother with the emoji": a negated way of dropping it
            // "an emoji you don't need"
            || i.forbids().any(|c| c.has(EMOJI) && c.has(&["need*", "brauch*", "nötig", "necessary"]) && !c.has(spoken))
            || i.forbids().any(|c| {
                c.has(EMOJI) && c.has(&["bother*", "worry about", "care about", "kümmer*"]) && !c.has(spoken)
            });
        if !leaves
            || i.tells()
                .any(|c| c.has(EMOJI) && c.has(SET) && !c.has(OMIT))
        {
            return None;
        }
        Some(at_instruction(i, "this instruction leaves the board's emoji out; it shows the human the agent's state at a glance", "say to set an `emoji` on every `status` that shows the current state"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        // Whether the board on screen has an emoji: a `status` without the
        // key keeps the one set before.
        let mut shown = false;
        // A stretch of updates without an emoji is one finding: the first
        // update, and how many followed.
        let mut pending: Option<(Finding, usize)> = None;
        let mut out = Vec::new();
        for (r, b) in cx.call.boards() {
            match &b.emoji {
                Some(e) if has_emoji(&e.value) => {
                    shown = true;
                    out.extend(pending.take().map(finish));
                }
                Some(e) => {
                    shown = false;
                    out.extend(pending.take().map(finish));
                    let what = if e.value.trim().is_empty() {
                        "is empty".to_string()
                    } else {
                        format!("holds no emoji: {}", quote(&e.value, 30))
                    };
                    out.push(
                        Finding::new(r.text(e), format!("the board's `emoji` {what}"))
                            .here("no emoji here")
                            .help(HELP),
                    );
                }
                None if !shown => match &mut pending {
                    Some((_, later)) => *later += 1,
                    None => {
                        pending = Some((
                            Finding::new(
                                r.at(Path::ROOT.key("args")),
                                "board set without an `emoji`",
                            )
                            .here("no `emoji` in this status")
                            .help(HELP),
                            0,
                        ))
                    }
                },
                None => {}
            }
        }
        out.extend(pending.take().map(finish));
        for f in out {
            cx.report(f);
        }
    }
}

const HELP: &str = "add an `emoji` to `status` that shows where you are (🔍 looking, 🛠️ working, ⏳ waiting, ✅ done); the human and Delta read it at a glance";

fn finish((mut f, later): (Finding, usize)) -> Finding {
    if later > 0 {
        f.message = format!(
            "{} (and in the {later} update{} after it)",
            f.message,
            if later == 1 { "" } else { "s" }
        );
    }
    f
}
