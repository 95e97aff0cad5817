//! `join-sequence`: right after joining, the agent sets its board
//! (`status`), posts one `activity` line and opens a panel with `show`, in
//! that order (hard rule).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::meta::{Evidence, OptValue, OptionMeta, RuleMeta, Scope, When};
use crate::model::{Board, Op};
use crate::rules::no_greeting::entering_joins;
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "join-sequence",
    rulebook: "hard",
    scope: Scope::Own,
    when: When::After,
    needs: Evidence::JOIN_FLOW,
    instruction: Some("putting off the board and activity after joining"),
    default_severity: Severity::Warning,
    summary:
        "after joining: `status` (doing/open/done), `activity` and `show` missing or out of order",
    options: &[OptionMeta {
        name: "window-ms",
        default: OptValue::Int(60_000),
        help: "how long after the join the steps may take, in milliseconds ",
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
        // the steps after joining, named in one clause that puts them off
        let steps = |c: &crate::text::instructions::Clause| {
            [STATUS, ACTIVITY, SHOW].iter().filter(|s| c.has(s)).count()
        };
        let joining = i.has(JOIN) || i.has(GREET);
        let to_end = i.has(TO_END);
        let deferred = i.tells().any(|c| {
            let n = steps(c);
            // "only after the greeting" keeps the order, not the board back
            n > 0
                && (n >= 2 || joining)
                && !c.has(JOIN)
                && !c.has(GREET)
                && (c.has(DEFER) || c.has(&["erst", "only"]) && i.conditions().next().is_some())
        });
        // skipped: after joining, or all the steps named at once
        let skipped = i.told().any(|(k, c)| {
            c.has(OMIT)
                && i.names(k, &["status", "activity", "board", "aktivität*"])
                && (joining || steps(c) >= 2)
        });
        if !(deferred && (joining || to_end)) && !skipped {
            return None;
        }
        Some(at_instruction(i, "this instruction puts off the board after joining; the human should see it at once", "say to set `status`, one `activity` line and `show` the board right after the greeting"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let window = cx.int("window-ms");
        let call = cx.call;
        let records = call.records;
        for i in entering_joins(records) {
            let join = &records[i];
            let mut steps = Steps::default();
            let mut ended = Ended::Window;
            for (k, r) in records.iter().enumerate().skip(i + 1) {
                if let (Some(a), Some(b)) = (join.ts, r.ts) {
                    if b - a > window {
                        break;
                    }
                }
                let Some(f) = r.as_fn() else { continue };
                if !f.ok() {
                    continue;
                }
                match &f.op {
                    Op::Status(b) if has_content(b) => {
                        steps.status.get_or_insert(k);
                    }
                    Op::Status(_) => {
                        steps.bare_status.get_or_insert(k);
                    }
                    Op::Activity(_) => {
                        steps.activity.get_or_insert(k);
                    }
                    Op::Show(_) => {
                        steps.show.get_or_insert(k);
                    }
                    Op::Leave => {
                        ended = Ended::Left;
                        break;
                    }
                    _ => {}
                }
            }
            let mut problems: Vec<String> = Vec::new();
            let mut labels: Vec<(usize, String)> = Vec::new();
            // A step is missing only when the window has passed in the log
            // or the agent left; a log that ends sooner has not shown it yet.
            let over = ended == Ended::Left || super::window_passed(records, i, window);
            match (steps.status, steps.bare_status) {
                (None, Some(b)) => {
                    problems.push("`status` without doing, open or done".into());
                    labels.push((b, "a `status` with nothing on the board".into()));
                }
                (None, None) if over => problems.push("no `status`".into()),
                _ => {}
            }
            if steps.activity.is_none() && over {
                problems.push("no `activity`".into());
            }
            if steps.show.is_none() && over {
                problems.push("no `show`".into());
            }
            let order = [
                (steps.activity, steps.status, "`activity`", "`status`"),
                (steps.show, steps.status, "`show`", "`status`"),
                (steps.show, steps.activity, "`show`", "`activity`"),
            ];
            for (early, late, a, b) in order {
                if let (Some(e), Some(l)) = (early, late) {
                    if e < l {
                        problems.push(format!("{a} before {b}"));
                        labels.push((e, format!("{a} here, before {b}")));
                    }
                }
            }
            if problems.is_empty() {
                continue;
            }
            let within = match ended {
                Ended::Left => "before it left the call".to_string(),
                Ended::Window => format!("within {} s", window as f64 / 1000.0),
            };
            let mut f = Finding::new(
                join.head(),
                format!("after joining: {} ({within})", problems.join(", ")),
            )
            .here("joined here")
            .help("right after join (and the greeting): `status` with doing, open and done, one `activity` line, open questions to `decide`, then `show` with panel board, log or decisions");
            labels.sort();
            labels.dedup_by_key(|l| l.0);
            for (k, text) in labels {
                f = f.label(records[k].head(), text);
            }
            cx.report(f);
        }
    }
}

/// What closed the window after a join.
#[derive(PartialEq)]
enum Ended {
    Window,
    Left,
}

#[derive(Default)]
struct Steps {
    status: Option<usize>,
    bare_status: Option<usize>,
    activity: Option<usize>,
    show: Option<usize>,
}

/// A board that says something: a `doing`, or items in `open` or `done`.
fn has_content(b: &Board) -> bool {
    b.doing.as_ref().is_some_and(|d| !d.value.trim().is_empty())
        || !b.open.is_empty()
        || !b.done.is_empty()
}

/// The board's status.
const STATUS: &[&str] = &["status", "board"];
/// The activity feed.
const ACTIVITY: &[&str] = &["activity", "aktivität*", "activity feed"];
/// Showing the board.
const SHOW: &[&str] = &["show", "panel", "zeig*"];
/// Put off.
const DEFER: &[&str] = &[
    "later",
    "at the end",
    "not until",
    "only when",
    "only once",
    "only if",
    "only after",
    "when asked",
    "when someone asks",
    "if someone asks",
    "if asked",
    "erst am ende",
    "erst später",
    "erst wenn",
    "erst nachdem",
    "erst sobald",
    "am ende",
    "später",
    "wenn jemand",
    "auf nachfrage",
];
/// To the end of the call.
const TO_END: &[&str] = &[
    "at the end",
    "end of the call",
    "am ende",
    "ende des calls",
    "when asked",
    "when someone asks",
    "if someone asks",
    "wenn jemand",
    "auf nachfrage",
    "danach fragt",
];

#[cfg(test)]
mod tests {
    use crate::lint::engine::fired;

    const JOIN: &str = r#"{"ts":"2026-10-10T09:00:01.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true},"result":{"status":"joined","context":{"lang":"en"}}}"#;
    const STATUS: &str = r#"{"ts":"2026-10-10T09:00:02.000Z","fn":"status","args":{"emoji":"🛠️","doing":"Reading the diff","open":["Review auth.rs"],"done":[]},"result":{}}"#;
    const ACTIVITY: &str = r#"{"ts":"2026-10-10T09:00:03.000Z","fn":"activity","args":{"text":"Reading the diff"},"result":{}}"#;
    const DECIDE: &str = r#"{"ts":"2026-10-10T09:00:03.500Z","fn":"decide","args":{"question":"Ship today?","options":["Yes","No"]},"result":{"decision_id":"d-1"}}"#;
    const SHOW: &str =
        r#"{"ts":"2026-10-10T09:00:04.000Z","fn":"show","args":{"panel":"board"},"result":{}}"#;

    fn log(lines: &[&str]) -> String {
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    #[test]
    fn the_full_sequence_is_fine() {
        assert!(fired(
            "join-sequence",
            &log(&[JOIN, STATUS, ACTIVITY, DECIDE, SHOW])
        )
        .is_empty());
        assert!(fired("join-sequence", &log(&[JOIN, STATUS, ACTIVITY, SHOW])).is_empty());
    }

    #[test]
    fn missing_or_out_of_order_fires_once_at_the_join() {
        // The log goes on past the window, and no `show` came.
        const LATER: &str =
            r#"{"ts":"2026-10-10T09:01:30.000Z","fn":"next","result":{"type":"timeout"}}"#;
        assert_eq!(
            fired("join-sequence", &log(&[JOIN, STATUS, ACTIVITY, LATER])),
            [1]
        );
        // A log that ends inside the window has not shown the steps yet.
        assert!(fired("join-sequence", &log(&[JOIN, STATUS, ACTIVITY])).is_empty());
        let swapped = log(&[
            JOIN,
            r#"{"ts":"2026-10-10T09:00:02.000Z","fn":"activity","args":{"text":"Reading the diff"},"result":{}}"#,
            r#"{"ts":"2026-10-10T09:00:03.000Z","fn":"status","args":{"emoji":"🛠️","doing":"Reading the diff"},"result":{}}"#,
            SHOW,
        ]);
        assert_eq!(fired("join-sequence", &swapped), [1]);
    }

    #[test]
    fn a_whole_minute_without_the_steps_fires() {
        // Joined without `greet`, greeted with a say, then only listened:
        // the log runs a whole minute past the join, and no step came.
        let quiet = log(&[
            r#"{"ts":"2026-10-10T09:00:00.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":false},"result":{"status":"joined","context":{"lang":"en"}}}"#,
            r#"{"ts":"2026-10-10T09:00:01.000Z","fn":"say","args":{"text":"Hi, this is Kit, I'm in and listening."},"result":{"say_id":"s1","say_status":"queued"}}"#,
            r#"{"ts":"2026-10-10T09:00:51.000Z","fn":"next","result":{"type":"timeout"}}"#,
            r#"{"ts":"2026-10-10T09:01:00.000Z","fn":"next","result":{"type":"timeout"}}"#,
        ]);
        assert_eq!(fired("join-sequence", &quiet), [1]);
        // A step at the minute's end still counts as within it.
        let in_time = log(&[
            JOIN,
            r#"{"ts":"2026-10-10T09:00:30.000Z","fn":"status","args":{"emoji":"🛠️","doing":"Reading the diff"},"result":{}}"#,
            r#"{"ts":"2026-10-10T09:00:45.000Z","fn":"activity","args":{"text":"Reading the diff"},"result":{}}"#,
            r#"{"ts":"2026-10-10T09:01:01.000Z","fn":"show","args":{"panel":"board"},"result":{}}"#,
        ]);
        assert!(fired("join-sequence", &in_time).is_empty());
    }

    #[test]
    fn an_empty_board_is_not_the_status_step() {
        let empty = log(&[
            JOIN,
            r#"{"ts":"2026-10-10T09:00:02.000Z","fn":"status","args":{"emoji":"🛠️"},"result":{}}"#,
            ACTIVITY,
            SHOW,
        ]);
        assert_eq!(fired("join-sequence", &empty), [1]);
        let with_empty_done = log(&[
            JOIN,
            r#"{"ts":"2026-10-10T09:00:02.000Z","fn":"status","args":{"emoji":"🛠️","doing":"Listening","open":[],"done":[]},"result":{}}"#,
            ACTIVITY,
            SHOW,
        ]);
        assert!(fired("join-sequence", &with_empty_done).is_empty());
    }

    #[test]
    fn steps_after_the_window_do_not_count() {
        let late = log(&[
            JOIN,
            STATUS,
            ACTIVITY,
            r#"{"ts":"2026-10-10T09:02:04.000Z","fn":"show","args":{"panel":"board"},"result":{}}"#,
        ]);
        assert_eq!(fired("join-sequence", &late), [1]);
        let addressed = log(&[
            JOIN,
            STATUS,
            ACTIVITY,
            r#"{"ts":"2026-10-10T09:00:03.500Z","fn":"next","result":{"type":"user","speaker":"Mara","text":"Kit, are you there?","addressed_to":["Kit"],"addressed_to_you":true}}"#,
            SHOW,
        ]);
        // Being addressed right away does not excuse the steps, nor does it
        // cut them short: acknowledging first and then setting the board is right.
        assert!(fired("join-sequence", &addressed).is_empty());
        let other = log(&[
            JOIN,
            STATUS,
            ACTIVITY,
            r#"{"ts":"2026-10-10T09:00:03.500Z","fn":"next","result":{"type":"user","speaker":"Mara","text":"Delta, what's up?","addressed_to":["Delta"],"addressed_to_you":false}}"#,
            SHOW,
        ]);
        assert!(fired("join-sequence", &other).is_empty());
    }
}
