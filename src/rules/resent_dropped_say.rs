//! `resent-dropped-say`: a `say` the server dropped because the human
//! addressed someone else (`addressed_other`) is sent again while this agent
//! still has not been addressed (the server's "the addressed one goes
//! first").

use crate::core::hash::{HashMap, HashSet};

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, OptValue, OptionMeta, RuleMeta, Scope, When};
use crate::model::{next_event, Anchor, Call, EventKind, Ms, Op, Path, Record, Revise, Via, Who};
use crate::rules::{Cx, Rule};
use crate::text::phrases::lower_words;

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "resent-dropped-say",
    rulebook: "server",
    scope: Scope::Own,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::SAY_OUTCOMES).and(Evidence::ROLES),
    instruction: None,
    default_severity: Severity::Warning,
    summary: "a `say` dropped for `addressed_other` sent again while still not addressed",
    options: &[OptionMeta {
        name: "window-s",
        default: OptValue::Int(120),
        help: "seconds after the drop within which the same text counts as sent again; later it is a new contribution",
    }],
};

/// The reason the server gives when it drops a say for someone else's turn.
const ADDRESSED_OTHER: &str = "addressed_other";

/// One of the recorder's says.
struct Said<'a> {
    record: usize,
    text: &'a str,
    anchor: Anchor,
    say_id: Option<&'a str>,
}

/// A dropped say and the record from which the agent knew it.
struct Drop {
    say: usize,
    known_at: usize,
    /// The `revise` event, when the drop came as one.
    revise: Option<Anchor>,
}

impl Rule for Check {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let call = cx.call;
        let Some(me) = call.recorder else { return };
        let window: Ms = cx.int("window-s").max(0).saturating_mul(1000);
        let says = says(call);
        let drops = drops(call, &says);
        let addressed = addressed_prefix(call, me);
        let mut reported: HashSet<usize> = HashSet::default();
        let mut out = Vec::new();
        for d in &drops {
            let dropped = &says[d.say];
            let since = call.records[d.known_at].ts;
            for (k, s) in says.iter().enumerate().skip(d.say + 1) {
                if s.record <= d.known_at {
                    continue;
                }
                if let (Some(a), Some(b)) = (since, call.records[s.record].ts) {
                    if b - a > window {
                        break;
                    }
                }
                if addressed[s.record] > addressed[d.known_at + 1] {
                    break;
                }
                if !near_same(dropped.text, s.text) || !reported.insert(k) {
                    continue;
                }
                out.push(finding(call, me, dropped, s, d));
            }
        }
        for f in out {
            cx.report(f);
        }
    }
}

fn says<'a>(call: &Call<'a>) -> Vec<Said<'a>> {
    call.records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| match r.as_fn().map(|f| &f.op) {
            Some(Op::Say(s)) => s.text.as_ref().map(|t| Said {
                record: i,
                text: t.as_str(),
                anchor: r.text(t),
                say_id: s.say_id.as_deref(),
            }),
            _ => None,
        })
        .collect()
}

/// Every say dropped for `addressed_other`: by its own result, or by a
/// later `revise` event naming its `say_id` (or repeating its text).
fn drops(call: &Call<'_>, says: &[Said<'_>]) -> Vec<Drop> {
    let mut out: Vec<Drop> = Vec::new();
    // Each say is dropped once; the earliest notice counts.
    let mut by_say: HashMap<usize, usize> = HashMap::default();
    let mut add = |d: Drop| match by_say.get(&d.say) {
        Some(&o) => {
            if d.known_at < out[o].known_at {
                out[o] = d;
            }
        }
        None => {
            by_say.insert(d.say, out.len());
            out.push(d);
        }
    };
    // The latest say so far by id and by text, for `revise` events.
    let mut by_id: HashMap<&str, usize> = HashMap::default();
    let mut by_text: HashMap<&str, usize> = HashMap::default();
    let mut next_say = 0;
    for (i, r) in call.records.iter().enumerate() {
        while let Some(s) = says.get(next_say).filter(|s| s.record < i) {
            if let Some(id) = s.say_id {
                by_id.insert(id, next_say);
            }
            by_text.insert(s.text, next_say);
            next_say += 1;
        }
        if let Some(Op::Say(x)) = r.as_fn().map(|f| &f.op) {
            let dropped = x.say_status.as_deref() == Some("dropped")
                && x.reason.as_deref() == Some(ADDRESSED_OTHER);
            // Says before this record are consumed, so this one is next.
            let this = says.get(next_say).filter(|s| s.record == i);
            if let (true, Some(_)) = (dropped, this) {
                add(Drop {
                    say: next_say,
                    known_at: i,
                    revise: None,
                });
            }
            continue;
        }
        let Some(ev) = next_event(r) else { continue };
        let EventKind::Revise(rev) = &ev.kind else {
            continue;
        };
        let Revise {
            say_id,
            reason,
            text,
        } = &**rev;
        if reason.as_deref() != Some(ADDRESSED_OTHER) {
            continue;
        }
        let found = match (say_id.as_deref(), text) {
            (Some(id), _) => by_id.get(id),
            (None, Some(t)) => by_text.get(t.as_str()),
            (None, None) => None,
        };
        if let Some(&k) = found {
            add(Drop {
                say: k,
                known_at: i,
                revise: Some(revise_anchor(r)),
            });
        }
    }
    out.sort_by_key(|d| d.known_at);
    out
}

fn revise_anchor(r: &Record) -> Anchor {
    r.at(Path::ROOT.key("result").key("reason"))
}

/// `p[r]`: how many lines addressed to the recorder arrived in records
/// before `r`; lines in records strictly between `a` and `b` number
/// `p[b] - p[a + 1]`.
fn addressed_prefix(call: &Call<'_>, me: &str) -> Vec<u32> {
    let mut per = vec![0u32; call.records.len() + 1];
    for u in &call.utterances {
        let to_me = u.addressed_to_you == Some(true)
            || u.via == Via::OperatorEvent
            || u.addressed_to.iter().any(|a| a.eq_ignore_ascii_case(me));
        if u.who != Who::Me && to_me {
            per[u.record() + 1] += 1;
        }
    }
    for r in 1..per.len() {
        per[r] += per[r - 1];
    }
    per
}

/// The same text, or nearly: four in five words of the shorter text are in
/// the longer one, and they make at least three in five of the longer.
fn near_same(a: &str, b: &str) -> bool {
    let (a, b) = (lower_words(a), lower_words(b));
    if a == b {
        return !a.is_empty();
    }
    if a.len().min(b.len()) < 3 {
        return false;
    }
    let mut pool = b.clone();
    let mut common = 0;
    for w in &a {
        if let Some(p) = pool.iter().position(|x| x == w) {
            pool.swap_remove(p);
            common += 1;
        }
    }
    common * 5 >= a.len().min(b.len()) * 4 && common * 5 >= a.len().max(b.len()) * 3
}

fn finding(call: &Call<'_>, me: &str, dropped: &Said<'_>, again: &Said<'_>, d: &Drop) -> Finding {
    let human = call.human.unwrap_or("the human");
    let mut f = Finding::new(
        again.anchor,
        format!(
            "{me} sends {} again after the server dropped it (`addressed_other`), though no one has addressed {me} since",
            quote(again.text, 50)
        ),
    )
    .here("sent again while still not addressed")
    .label(
        dropped.anchor,
        format!("dropped here: {human} had addressed someone else"),
    );
    if let Some(a) = d.revise {
        f = f.label(a, "the server's `revise`: reason `addressed_other`");
    }
    f.help(format!(
        "a say dropped for `addressed_other` belonged to someone else's turn; send it again only when {human} or an agent addresses you by name, or put it on your board"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(lines: &[&str]) -> usize {
        crate::lint::engine::fired("resent-dropped-say", &lines.join("\n")).len()
    }

    const JOIN: &str = r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{"label":"Lumen","greet":true},"result":{"status":"joined","context":{"lang":"en"}}}"#;
    const SAY: &str = r#"{"ts":"2026-10-10T10:01:00.000Z","fn":"say","args":{"text":"Mara, the changelog lists the old login page."},"result":{"say_id":"s-1","say_status":"queued"}}"#;
    const TO_FERRIS: &str = r#"{"ts":"2026-10-10T10:01:01.000Z","fn":"next","result":{"type":"user","speaker":"Mara","text":"Ferris, is it green?","addressed_to":["Ferris"],"addressed_to_you":false}}"#;
    const REVISE: &str = r#"{"ts":"2026-10-10T10:01:01.500Z","fn":"next","result":{"type":"revise","say_id":"s-1","reason":"addressed_other"}}"#;
    const OPEN: &str = r#"{"ts":"2026-10-10T10:01:10.000Z","fn":"next","result":{"type":"user","speaker":"Mara","text":"Good.","addressed_to":[],"addressed_to_you":false}}"#;
    const TO_ME: &str = r#"{"ts":"2026-10-10T10:01:10.000Z","fn":"next","result":{"type":"user","speaker":"Mara","text":"Lumen, go ahead.","addressed_to":["Lumen"],"addressed_to_you":true}}"#;
    const AGAIN: &str = r#"{"ts":"2026-10-10T10:01:12.000Z","fn":"say","args":{"text":"Mara, the changelog lists the old login page."},"result":{"say_id":"s-2","say_status":"queued"}}"#;
    const OTHER: &str = r#"{"ts":"2026-10-10T10:01:12.000Z","fn":"say","args":{"text":"Mara, staging is back."},"result":{"say_id":"s-2","say_status":"queued"}}"#;
    const MUCH_LATER: &str = r#"{"ts":"2026-10-10T10:09:12.000Z","fn":"say","args":{"text":"Mara, the changelog lists the old login page."},"result":{"say_id":"s-2","say_status":"queued"}}"#;

    #[test]
    fn resend_after_a_revise() {
        assert_eq!(run(&[JOIN, SAY, TO_FERRIS, REVISE, OPEN, AGAIN]), 1);
        assert_eq!(run(&[JOIN, SAY, TO_FERRIS, REVISE, TO_ME, AGAIN]), 0);
        assert_eq!(run(&[JOIN, SAY, TO_FERRIS, REVISE, OPEN, OTHER]), 0);
        assert_eq!(run(&[JOIN, SAY, TO_FERRIS, REVISE, OPEN, MUCH_LATER]), 0);
        // Sent again before the agent learned of the drop: not a resend.
        assert_eq!(run(&[JOIN, SAY, TO_FERRIS, AGAIN, REVISE]), 0);
    }

    #[test]
    fn resend_after_a_dropped_result() {
        let dropped = r#"{"ts":"2026-10-10T10:01:02.000Z","fn":"say","args":{"text":"Mara, the changelog lists the old login page."},"result":{"say_id":"s-1","say_status":"dropped","reason":"addressed_other"}}"#;
        assert_eq!(run(&[JOIN, TO_FERRIS, dropped, OPEN, AGAIN]), 1);
        assert_eq!(run(&[JOIN, TO_FERRIS, dropped, TO_ME, AGAIN]), 0);
    }

    #[test]
    fn near_same_texts() {
        assert!(near_same(
            "Mara, the changelog still lists the old login page.",
            "Mara, the changelog still lists the old login page!"
        ));
        assert!(near_same(
            "Mara, the changelog still lists the old login page.",
            "Mara, the changelog still lists the old login page, by the way."
        ));
        assert!(!near_same(
            "Mara, the changelog still lists the old login page.",
            "Mara, staging answers again after the restart."
        ));
        assert!(!near_same("Got it.", "On it."));
        assert!(near_same("Got it.", "got it"));
    }
}
