//! `unanswered-agent`: another agent addressed this agent by name (an
//! `operator` event) and got no `say` back (seed rule 1, and the server's
//! wake-up on address).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, OptValue, OptionMeta, RuleMeta, Scope, When};
use crate::model::{next_event, Call, EventKind, Line, Ms, Op, Record};
use crate::rules::{Cx, Rule};
use crate::text::lexicon::Lexicon;
use crate::text::phrases::{phrase_at, words};
use crate::text::words::Words;

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "unanswered-agent",
    rulebook: "1, server",
    scope: Scope::Room,
    when: When::After,
    needs: Evidence::SPEECH.and(Evidence::TIMES).and(Evidence::ROLES),
    instruction: None,
    default_severity: Severity::Warning,
    summary: "an `operator` event (another agent addressed this agent by name) that got no `say`",
    options: &[OptionMeta {
        name: "window-s",
        default: OptValue::Int(30),
        help: "seconds after the operator event within which a say counts as the answer",
    }],
};

impl Rule for Check {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let Some(me) = call.recorder else { return };
        let window: Ms = cx.int("window-s").max(0).saturating_mul(1000);
        let lex = Lexicon::get();
        let marks = Marks::of(call);
        let names = names(call);
        let name_words = call.name_words();
        let mut out = Vec::new();
        for (i, r) in call.records.iter().enumerate() {
            let Some(ev) = next_event(r) else { continue };
            let EventKind::Operator(line) = &ev.kind else {
                continue;
            };
            if line.addressed_to_you == Some(false) {
                continue;
            }
            let text = line.text.as_ref().map(|t| t.as_str()).unwrap_or("");
            // Thanks, or a line that asks nothing (an answer to this
            // agent's own question: "Tarn, the port is 8443.").
            if needs_no_reply(lex, &names, text)
                || !crate::model::turns::asks(lex, text, &name_words)
            {
                continue;
            }
            let Some(end) = marks.unanswered(call, i, window) else {
                continue;
            };
            out.push(finding(call, me, r, line, end, window));
        }
        for f in out {
            cx.report(f);
        }
    }
}

/// How the wait for an answer ended without one.
#[derive(Debug, PartialEq)]
enum End {
    /// The agent's next say came only after the window: its record.
    LateSay(usize),
    /// The human spoke twice (the next turn ended) first: the second line.
    HumanMoved(usize),
    /// The agent left the call.
    Left(usize),
    /// The log ends.
    LogEnds,
}

/// Where the agent's says, the human's lines and its `leave` are, by
/// record, so each operator event is judged without rescanning the log.
struct Marks {
    says: Vec<usize>,
    human: Vec<usize>,
    leaves: Vec<usize>,
}

impl Marks {
    fn of(call: &Call<'_>) -> Marks {
        let mut m = Marks {
            says: Vec::new(),
            human: Vec::new(),
            leaves: Vec::new(),
        };
        for (j, r) in call.records.iter().enumerate() {
            let Some(f) = r.as_fn() else { continue };
            match &f.op {
                Op::Say(s) if s.text.is_some() => m.says.push(j),
                Op::Leave => m.leaves.push(j),
                Op::Next(Some(ev)) if matches!(ev.kind, EventKind::User(_)) => m.human.push(j),
                _ => {}
            }
        }
        m
    }

    /// `None` when the agent said something within the window after the
    /// operator event at record `i`, before the human turn after it ended.
    fn unanswered(&self, call: &Call<'_>, i: usize, window: Ms) -> Option<End> {
        let after =
            |v: &[usize], skip: usize| v.get(v.partition_point(|&j| j <= i) + skip).copied();
        let say = after(&self.says, 0);
        // The human turn after the event ends at the human's second line.
        let moved = after(&self.human, 1);
        let left = after(&self.leaves, 0);
        let first = [say, moved, left].into_iter().flatten().min();
        match first {
            // The recording stopped: an answer was still due only if the
            // window had passed before it did.
            None => {
                let deadline = call.records[i].ts.map(|t| t.saturating_add(window));
                let last = call.records.iter().rev().find_map(|r| r.ts);
                matches!((last, deadline), (Some(l), Some(d)) if l > d).then_some(End::LogEnds)
            }
            Some(j) if Some(j) == say => {
                let deadline = call.records[i].ts.map(|t| t.saturating_add(window));
                let late = matches!((call.records[j].ts, deadline), (Some(t), Some(d)) if t > d);
                late.then_some(End::LateSay(j))
            }
            Some(j) if Some(j) == moved => Some(End::HumanMoved(j)),
            Some(j) => Some(End::Left(j)),
        }
    }
}

/// Every name a line may carry, as words.
fn names(call: &Call<'_>) -> Vec<Words> {
    call.agents
        .iter()
        .map(|a| words(&a.label))
        .chain(call.human.map(words))
        .filter(|w| !w.is_empty())
        .collect()
}

/// A line made only of thanks and the like (and names) asks for nothing.
fn needs_no_reply(lex: &Lexicon, names: &[Words], text: &str) -> bool {
    let w = words(text);
    if w.is_empty() {
        return true;
    }
    let list = lex.phrases("reading.no-reply-needed");
    let mut i = 0;
    while i < w.len() {
        if let Some(n) = names.iter().find(|n| w.has_at(i, n)).map(Words::len) {
            i += n;
        } else if let Some(n) = phrase_at(&w, i, list) {
            i += n;
        } else {
            return false;
        }
    }
    true
}

fn finding(call: &Call<'_>, me: &str, r: &Record, line: &Line, end: End, window: Ms) -> Finding {
    let speaker = line.speaker.as_deref().unwrap_or("another agent");
    let at = match &line.text {
        Some(t) => r.text(t),
        None => r.head(),
    };
    let text = line.text.as_ref().map(|t| quote(t.as_str(), 60));
    let mut f = Finding::new(
        at,
        match text {
            Some(t) => format!("{speaker} addressed {me} by name and got no answer: {t}"),
            None => format!("{speaker} addressed {me} by name and got no answer"),
        },
    );
    let secs = window / 1000;
    let human = call.human.unwrap_or("the human");
    let record = |j: usize| &call.records[j];
    f = match end {
        End::LateSay(j) => {
            let later = match (r.ts, record(j).ts) {
                (Some(a), Some(b)) => format!(", {} s later", (b - a) / 1000),
                _ => String::new(),
            };
            f.here(format!("no say from {me} within {secs} s")).label(
                say_anchor(record(j)),
                format!("{me} spoke again only here{later}"),
            )
        }
        End::HumanMoved(j) => f
            .here(format!("no say from {me} before {human}'s next turn ended"))
            .label(
                user_anchor(record(j)),
                format!("{human} moved on here; still no answer from {me}"),
            ),
        End::Left(j) => f.here(format!("no say from {me} before it left")).label(
            record(j).head(),
            format!("{me} left without answering {speaker}"),
        ),
        End::LogEnds => f.here(format!("no say from {me} before the log ends")),
    };
    f.help(format!(
        "when another agent names you, answer it with one short `say` (even \"later, I'm busy\"); it waits for you, and {human} hears the silence"
    ))
}

fn say_anchor(r: &Record) -> crate::model::Anchor {
    match r.as_fn().map(|f| &f.op) {
        Some(Op::Say(s)) => s.text.as_ref().map_or(r.head(), |t| r.text(t)),
        _ => r.head(),
    }
}

fn user_anchor(r: &Record) -> crate::model::Anchor {
    match next_event(r).map(|e| &e.kind) {
        Some(EventKind::User(l)) => l.text.as_ref().map_or(r.head(), |t| r.text(t)),
        _ => r.head(),
    }
}

#[cfg(test)]
mod tests {
    use crate::lint::engine::Linter;

    fn run(log: &str) -> Vec<(String, usize)> {
        let linter = Linter::new(
            &crate::lint::config::Config::default(),
            Some(&["unanswered-agent".to_string()]),
            &[],
        )
        .unwrap();
        let f = linter.lint("t.jsonl", log.as_bytes().to_vec());
        f.diagnostics
            .iter()
            .map(|d| (d.message.clone(), d.primary.at.span.start))
            .collect()
    }

    const JOIN: &str = r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{"label":"Lumen","greet":true},"result":{"status":"joined","context":{"lang":"en"}}}"#;

    fn op(ts: &str, text: &str) -> String {
        format!(
            r#"{{"ts":"{ts}","fn":"next","result":{{"type":"operator","op":"op-2","speaker":"Orca","text":"{text}","addressed_to":["Lumen"],"addressed_to_you":true}}}}"#
        )
    }
    fn say(ts: &str, text: &str) -> String {
        format!(
            r#"{{"ts":"{ts}","fn":"say","args":{{"text":"{text}"}},"result":{{"say_id":"s","say_status":"queued"}}}}"#
        )
    }
    fn user(ts: &str, text: &str) -> String {
        format!(
            r#"{{"ts":"{ts}","fn":"next","result":{{"type":"user","speaker":"Mara","text":"{text}","addressed_to":[],"addressed_to_you":false}}}}"#
        )
    }

    #[test]
    fn answered_in_time_is_fine() {
        let log = [
            JOIN.to_string(),
            op(
                "2026-10-10T10:01:00.000Z",
                "Lumen, which branch has the script?",
            ),
            say("2026-10-10T10:01:03.000Z", "Orca, it is on release/2.5."),
        ]
        .join("\n");
        assert!(run(&log).is_empty());
    }

    #[test]
    fn late_answer_fires() {
        let log = [
            JOIN.to_string(),
            op(
                "2026-10-10T10:01:00.000Z",
                "Lumen, which branch has the script?",
            ),
            say("2026-10-10T10:01:45.000Z", "Orca, it is on release/2.5."),
        ]
        .join("\n");
        assert_eq!(run(&log).len(), 1);
    }

    #[test]
    fn two_human_lines_end_the_wait() {
        let log = [
            JOIN.to_string(),
            op(
                "2026-10-10T10:01:00.000Z",
                "Lumen, which branch has the script?",
            ),
            user("2026-10-10T10:01:05.000Z", "Good."),
            user("2026-10-10T10:01:10.000Z", "Next topic."),
            say("2026-10-10T10:01:12.000Z", "Orca, it is on release/2.5."),
        ]
        .join("\n");
        assert_eq!(run(&log).len(), 1);
    }

    #[test]
    fn silence_until_the_log_ends_fires_once_the_window_passed() {
        let ask = op(
            "2026-10-10T10:01:00.000Z",
            "Lumen, which branch has the script?",
        );
        let later =
            |ts: &str| format!(r#"{{"ts":"{ts}","fn":"next","result":{{"type":"timeout"}}}}"#);
        let log = [
            JOIN.to_string(),
            ask.clone(),
            later("2026-10-10T10:01:40.000Z"),
        ]
        .join(
            "
",
        );
        assert_eq!(run(&log).len(), 1);
        // The recording stopped before anyone could have answered.
        for tail in [vec![], vec![later("2026-10-10T10:01:20.000Z")]] {
            let mut log = vec![JOIN.to_string(), ask.clone()];
            log.extend(tail);
            assert!(run(&log.join("\n")).is_empty());
        }
    }

    #[test]
    fn a_line_that_asks_nothing_needs_no_answer() {
        let after = |text: &str| {
            [
                JOIN.to_string(),
                say(
                    "2026-10-10T10:00:50.000Z",
                    "Orca, which port does staging use?",
                ),
                op("2026-10-10T10:01:00.000Z", text),
                r#"{"ts":"2026-10-10T10:02:00.000Z","fn":"next","result":{"type":"timeout"}}"#
                    .to_string(),
            ]
            .join("\n")
        };
        for text in [
            "Lumen, the port is 8443.",
            "Lumen, der Port ist 8443.",
            "Lumen, it is on release/2.5, the tag is v2.5.1.",
        ] {
            assert!(run(&after(text)).is_empty(), "{text}");
        }
        for text in [
            "Lumen, which branch has the script?",
            "Lumen, restart the relay.",
            "Lumen, prüf bitte die Logs.",
            "Lumen, could you tag the release",
            "Lumen, the port is 8443. Can you open it?",
        ] {
            assert_eq!(run(&after(text)).len(), 1, "{text}");
        }
    }

    #[test]
    fn thanks_need_no_answer() {
        for text in [
            "Thanks, Lumen.",
            "Lumen, thank you very much!",
            "Danke, Lumen.",
            "Great, thanks, Lumen.",
        ] {
            let log = [JOIN.to_string(), op("2026-10-10T10:01:00.000Z", text)].join("\n");
            assert!(run(&log).is_empty(), "{text}");
        }
        let log = [
            JOIN.to_string(),
            op("2026-10-10T10:01:00.000Z", "Thanks, Lumen. Which branch?"),
            r#"{"ts":"2026-10-10T10:01:40.000Z","fn":"next","result":{"type":"timeout"}}"#
                .to_string(),
        ]
        .join("\n");
        assert_eq!(run(&log).len(), 1);
    }
}
