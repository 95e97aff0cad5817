//! `no-greeting`: after joining, the agent neither greets with `join` nor
//! says anything within a few seconds (hard rule).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::meta::{Evidence, OptValue, OptionMeta, RuleMeta, Scope, When};
use crate::model::{Greet, Join, Op, Path, Record};
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "no-greeting",
    rulebook: "hard",
    scope: Scope::Own,
    when: When::After,
    needs: Evidence::JOIN_FLOW,
    instruction: Some("keeping silent after joining instead of greeting"),
    default_severity: Severity::Warning,
    summary: "after joining: no `greet` on the join and no `say` within 3 seconds",
    options: &[
        OptionMeta {
            name: "within-ms",
            default: OptValue::Int(3000),
            help: "how soon after the join the greeting `say` must come, in milliseconds",
        },
        OptionMeta {
            name: "greet-default",
            default: OptValue::Bool(true),
            help: "whether a join without a `greet` key greets (MCP `join` greets by default)",
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
        // the greeting itself made optional is about joining too
        let greeting_dropped = i.has(&["greeting", "begrüßung"])
            && i.has(&[
                "optional",
                "not needed",
                "unnecessary",
                "not necessary",
                "no greeting",
                "keine begrüßung",
                "nicht nötig",
                "überflüssig",
            ]);
        // skipping the greeting is about joining, unless a condition says
        // it was already spoken ("skip it when `greet: true` spoke it")
        let greeting_dropped = greeting_dropped
            || i.tells_of(OMIT, GREET)
                && !i.if_any(GREET)
                && !i.has(&["already", "schon", "bereits"]);
        // "don't sit silent": told to speak, not to keep quiet
        if !i.has(JOIN) && !greeting_dropped || i.forbids_any(SILENT) {
            return None;
        }
        let silent = greeting_dropped
            || i.tells_any(SILENT)
            || i.forbids_any(GREET)
            || i.forbids_any(SPEAK_ANY)
            || i.tells_of(OMIT, GREET);
        let greets = i
            .clauses
            .iter()
            .any(|c| !c.negated && c.has(GREET) && !c.has(OMIT));
        // waiting before the join ("wait for the user to open the link,
        // then call join") is no silence after it
        let join_at = i.clauses.iter().position(|c| c.has(JOIN));
        let quiet_at = i.clauses.iter().position(|c| {
            !c.condition && (c.has(SILENT) || c.negated && (c.has(GREET) || c.has(SPEAK_ANY)))
        });
        let before_join = matches!((quiet_at, join_at), (Some(q), Some(j)) if q < j)
            && !i.clauses[join_at.unwrap_or(0)].condition;
        if !silent || greets || before_join {
            return None;
        }
        Some(at_instruction(i, "this instruction keeps the agent silent after it joins; it should greet at once and lead", "say to greet right after joining (`greet: true`, or one short say in the call language), then keep quiet unless addressed"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let within = cx.int("within-ms");
        let greet_default = cx.flag("greet-default");
        let records = cx.call.records;
        for i in entering_joins(records) {
            let r = &records[i];
            let Some(j) = join_of(r) else { continue };
            let greets = match &j.greet {
                Some(Greet::Flag(b)) => *b,
                Some(Greet::Text(t)) => !t.value.trim().is_empty(),
                None => greet_default,
            };
            if greets {
                continue;
            }
            let first_say = first_say_after(records, i);
            if first_say.is_none() && !super::window_passed(records, i, within) {
                continue; // the log ends before the greeting was due
            }
            let in_time = first_say.is_some_and(|(k, seen_next)| match (r.ts, records[k].ts) {
                (Some(a), Some(b)) => b - a <= within,
                _ => !seen_next,
            });
            if in_time {
                continue;
            }
            let at = if j.greet.is_some() {
                r.at(Path::ROOT.key("args").key("greet"))
            } else {
                r.head()
            };
            let secs = within as f64 / 1000.0;
            let mut f = Finding::new(
                at,
                format!("joined without `greet` and said nothing within {secs} s"),
            )
            .here("no greeting from the join")
            .help("set `greet: true` on join, or `say` one short greeting in the call language right after it: who you are and that you are listening");
            if let Some((k, _)) = first_say {
                let s = &records[k];
                let late = match (r.ts, s.ts) {
                    (Some(a), Some(b)) => format!(
                        "first `say`, {:.1} s after joining",
                        (b - a) as f64 / 1000.0
                    ),
                    _ => "first `say`, only after listening".to_string(),
                };
                f = f.label(s.head(), late);
            }
            cx.report(f);
        }
    }
}

pub(crate) fn join_of(r: &Record) -> Option<&Join> {
    match &r.as_fn()?.op {
        Op::Join(j) => Some(j),
        _ => None,
    }
}

/// Record indices of the joins that bring the agent into the call: accepted
/// (no error), not answered with `waiting_for_human`, and not a repeat
/// while already in (a `leave` ends being in).
pub(crate) fn entering_joins(records: &[Record]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut inside = false;
    for (i, r) in records.iter().enumerate() {
        let Some(f) = r.as_fn() else { continue };
        match &f.op {
            Op::Join(j) if f.ok() && j.joined() => {
                if !inside {
                    out.push(i);
                }
                inside = true;
            }
            Op::Leave => inside = false,
            _ => {}
        }
    }
    out
}

/// The first accepted `say` after the join at `i` (before a `leave`), and
/// whether a `next` came before it.
fn first_say_after(records: &[Record], i: usize) -> Option<(usize, bool)> {
    let mut seen_next = false;
    for (k, r) in records.iter().enumerate().skip(i + 1) {
        let Some(f) = r.as_fn() else { continue };
        match &f.op {
            Op::Say(_) if f.ok() => return Some((k, seen_next)),
            Op::Next(_) => seen_next = true,
            Op::Leave => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::lint::engine::fired;

    const JOIN_NO_GREET: &str = r#"{"ts":"2026-10-10T09:00:01.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":false},"result":{"status":"joined","context":{"lang":"en"}}}"#;

    #[test]
    fn say_in_time_or_greet_is_fine() {
        let say = format!(
            "{JOIN_NO_GREET}\n{}\n",
            r#"{"ts":"2026-10-10T09:00:02.500Z","fn":"say","args":{"text":"Hi, this is Kit, I'm in and listening."},"result":{"say_id":"s1","say_status":"queued"}}"#
        );
        assert!(fired("no-greeting", &say).is_empty());
        let greet = r#"{"ts":"2026-10-10T09:00:01.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":true,"quiet":true},"result":{"status":"joined"}}
"#;
        assert!(fired("no-greeting", greet).is_empty());
        let text = r#"{"ts":"2026-10-10T09:00:01.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":"Hi, Kit here."},"result":{"status":"joined"}}
"#;
        assert!(fired("no-greeting", text).is_empty());
        let absent = r#"{"ts":"2026-10-10T09:00:01.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit"},"result":{"status":"joined"}}
"#;
        assert!(fired("no-greeting", absent).is_empty());
    }

    #[test]
    fn late_or_missing_say_fires_at_greet() {
        let late = format!(
            "{JOIN_NO_GREET}\n{}\n",
            r#"{"ts":"2026-10-10T09:00:09.000Z","fn":"say","args":{"text":"Hi, Kit here."},"result":{"say_id":"s1","say_status":"queued"}}"#
        );
        assert_eq!(fired("no-greeting", &late), [1]);
        let quiet = r#"{"ts":"2026-10-10T09:00:01.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":false,"quiet":true},"result":{"status":"joined"}}
{"ts":"2026-10-10T09:00:01.500Z","fn":"status","args":{"emoji":"🛠️","doing":"Listening"},"result":{}}
{"ts":"2026-10-10T09:00:08.000Z","fn":"next","result":{"type":"timeout"}}
"#;
        assert_eq!(fired("no-greeting", quiet), [1]);
        // A log that ends before the greeting was due shows nothing missing.
        let cut: String = quiet.lines().take(2).map(|l| format!("{l}\n")).collect();
        assert!(fired("no-greeting", &cut).is_empty());
    }

    #[test]
    fn refused_and_waiting_joins_do_not_start_the_clock() {
        let log = r#"{"ts":"2026-10-10T09:00:01.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit-with-a-label-far-too-long","greet":false},"error":{"status":422,"message":"label longer than 22 characters"}}
{"ts":"2026-10-10T09:00:51.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":false},"result":{"status":"waiting_for_human"}}
{"ts":"2026-10-10T09:01:10.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":false},"result":{"status":"joined"}}
{"ts":"2026-10-10T09:01:11.000Z","fn":"say","args":{"text":"Hi, Kit here, I'm listening."},"result":{"say_id":"s1","say_status":"queued"}}
{"ts":"2026-10-10T09:01:30.000Z","fn":"join","args":{"call_id":"c-1","label":"Kit","greet":false},"result":{"status":"joined"}}
"#;
        assert!(fired("no-greeting", log).is_empty());
    }

    #[test]
    fn without_times_the_say_must_come_before_listening() {
        let log = r#"{"fn":"join","args":{"call_id":"c-1","label":"Kit","greet":false},"result":{"status":"joined"}}
{"fn":"next","result":{"type":"timeout"}}
{"fn":"say","args":{"text":"Hi, Kit here."},"result":{"say_id":"s1"}}
"#;
        assert_eq!(fired("no-greeting", log), [1]);
    }
}
