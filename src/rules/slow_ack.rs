//! `slow-ack`: addressed by the human, the agent does not acknowledge at
//! once (the hard rule on acknowledging within 3 seconds).

use crate::core::diagnostic::{Finding, Severity};
use crate::core::meta::{Evidence, OptValue, OptionMeta, RuleMeta, Scope, When};
use crate::model::{next_event, Body, EventKind, Op, Record, Utterance, Who};
use crate::rules::{Cx, Rule};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "slow-ack",
    rulebook: "hard",
    scope: Scope::Own,
    when: When::After,
    needs: Evidence::SPEECH.and(Evidence::TIMES).and(Evidence::ROLES),
    instruction: Some("holding back the acknowledgement until the work is done"),
    default_severity: Severity::Warning,
    summary: "addressed by the human, the first `say` comes later than 3 s, or other work comes before it",
    options: &[OptionMeta {
        name: "within-ms",
        default: OptValue::Int(3000),
        help: "how soon, in milliseconds, the first say must follow the human's line",
    }],
};

/// How many records after being addressed are looked at.
const HORIZON: usize = 200;

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
        // the agent addressed or asked by name: the turn this rule is about
        let addressed = i
            .clauses
            .iter()
            .any(|c| !c.negated && (c.has(ADDRESSED_ME) || c.has(ASKED_ME)));
        if !addressed || i.tells_any(ACK_WORDS) {
            return None;
        }
        // the reply held back until the work is done ("only speak once you
        // have the answer", "meldest du dich erst, wenn ...")
        let held = i
            .find(SPEAK_LATE)
            .is_some_and(|at| crate::text::instructions::mentions(&i.words[at..], RESULT))
            // "start the work and speak once you have something to report"
            || i.tells().any(|c| c.has(&["start*", "begin*", "fang*", "beginn*"]) && c.has(&["speak*", "say", "answer*", "reply", "report*", "melde*", "sag*", "antworte*"]))
                && i.conditions().any(|c| c.has(&["once you have", "when you have", "wenn du", "sobald du"]) && c.has(RESULT_ANY));
        // no word before the result ("no interim messages")
        let no_interim = i.forbids().any(|c| c.has(INTERIM));
        if !held && !no_interim {
            return None;
        }
        Some(at_instruction(i, "this instruction keeps an addressed agent silent while it works; the human hears nothing for seconds", "say to acknowledge at once in one short say (\"On it, one moment.\") when addressed, and then to work"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let within = cx.int("within-ms");
        let call = cx.call;
        let Some(me) = call.recorder else { return };
        let human = call.human.unwrap_or("the human");
        let recs = call.records;
        let mut out = Vec::new();
        for u in &call.utterances {
            if u.who != Who::Human || !names(u, me) {
                continue;
            }
            let (i, asked) = (u.record(), u.anchor());
            let r = &recs[i];
            for later in recs.iter().skip(i + 1).take(HORIZON) {
                if !later.is_main() {
                    continue;
                }
                match &later.body {
                    Body::Fn(f) => match &f.op {
                        Op::Say(_) => {
                            if let (Some(a), Some(b)) = (r.ts, later.ts) {
                                if b - a > within {
                                    let secs = (b - a) as f64 / 1000.0;
                                    out.push(
                                        Finding::new(
                                            later.head(),
                                            format!("first say {secs:.1} s after {human} addressed {me}"),
                                        )
                                        .here(format!("{secs:.1} s later"))
                                        .label(asked, format!("{human} addressed {me} here")),
                                    );
                                }
                            }
                            break;
                        }
                        Op::Next(_) => {
                            if next_event(later)
                                .is_some_and(|e| matches!(e.kind, EventKind::User(_)))
                            {
                                // At the record that brought the human's
                                // line, in every shape of the log.
                                let at = r.on_record(asked);
                                let mut f = Finding::new(at, format!("{me} was addressed here and said nothing before {human} spoke again"))
                                    .here("no acknowledgement");
                                if at != asked {
                                    f = f.label(asked, format!("{human} addressed {me} here"));
                                }
                                out.push(f);
                                break;
                            }
                        }
                        _ => {
                            out.push(work_first(later, &f.name, asked, human, me));
                            break;
                        }
                    },
                    Body::Tool(t) => {
                        out.push(work_first(later, &t.name, asked, human, me));
                        break;
                    }
                    _ => {}
                }
            }
        }
        for f in out {
            cx.report(f.help("when the human addresses you, first say one short line (\"On it, one moment.\"), then work; progress goes to `status` and `activity`"));
        }
    }
}

fn work_first(
    r: &Record,
    what: &str,
    asked: crate::model::Anchor,
    human: &str,
    me: &str,
) -> Finding {
    Finding::new(
        r.head(),
        format!(
            "{me} ran `{}` before acknowledging {human}",
            crate::core::escape::one_line(what)
        ),
    )
    .here("work before the acknowledgement")
    .label(asked, format!("{human} addressed {me} here"))
}

/// The line names `me`: as the recorder or the server says, or as the
/// addressing rule computes.
fn names(u: &Utterance<'_>, me: &str) -> bool {
    u.addressed_to_you == Some(true) || u.addressed_to.iter().any(|n| n.eq_ignore_ascii_case(me))
}

/// Being asked or called by the human, in words other than "addressed".
const ASKED_ME: &[&str] = &[
    "calls you",
    "call you",
    "asks you",
    "ask you",
    "ruft dich",
    "fragt dich",
    "dich anspricht",
    "spricht dich an",
    "dich an",
];
/// An acknowledgement told.
const ACK_WORDS: &[&str] = &[
    "on it",
    "one moment",
    "moment",
    "mach ich",
    "acknowledge*",
    "bestätig*",
    "quittier*",
];
/// Speaking only later.
const SPEAK_LATE: &[&str] = &[
    "only speak",
    "only answer",
    "only reply",
    "only respond",
    "only say",
    "speak only",
    "answer only",
    "reply only",
    "respond only",
    "say nothing until",
    "stay silent until",
    "stay quiet until",
    "keep quiet until",
    "don't speak until",
    "do not speak until",
    "wait until you have",
    "wait until you know",
    "meldest du dich erst",
    "meldest dich erst",
    "melde dich erst",
    "antworte erst",
    "antwortest du erst",
    "antwortest erst",
    "sprich erst",
    "sprichst du erst",
    "sag erst",
    "sagst du erst",
    "erst antworten",
    "erst melden",
    "erst sprechen",
];
/// The work's result.
const RESULT: &[&str] = &[
    "the answer",
    "an answer",
    "your answer",
    "complete answer",
    "full answer",
    "die antwort",
    "eine antwort",
    "result*",
    "ergebnis*",
    "done",
    "finished",
    "fertig",
    "complete",
    "vollständig*",
    "the full",
    "everything",
    "alles",
];
/// Something to tell.
const RESULT_ANY: &[&str] = &[
    "something to report",
    "something to say",
    "result*",
    "ergebnis*",
    "answer",
    "antwort",
    "etwas zu melden",
    "etwas zu sagen",
];
/// A word before the result.
const INTERIM: &[&str] = &[
    "interim*",
    "zwischenmeldung*",
    "zwischenstand*",
    "holding",
    "placeholder*",
    "filler*",
    "acknowledg*",
    "bestätigung*",
];
