//! `ambiguous-labels`: two participants whose names are equal or similar,
//! so the server resolves addressing to either of them to no one (seed
//! rule 5, and the server's addressing).

use crate::core::hash::{HashMap, HashSet};

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, RuleMeta, Scope, When};
use crate::model::turns::name_key;
use crate::model::{is_voicebot, next_event, Anchor, Call, EventKind, Greet, Line, Op};
use crate::rules::{Cx, Rule};
use crate::text::addressing::{compared_with, LabelKeys};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "ambiguous-labels",
    rulebook: "5, server",
    scope: Scope::Own,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: None,
    default_severity: Severity::Warning,
    summary: "two participants' labels are equal or similar, so addressing resolves to no one",
    options: &[],
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Human,
    Voicebot,
    Me,
    Agent,
}

/// A participant with the first place its name shows up in the log
/// (`None`: known from the meta line or configuration, present from the
/// start).
#[derive(Debug)]
struct Part<'a> {
    name: &'a str,
    kind: Kind,
    first: Option<(usize, Anchor)>,
}

/// Everyone seen so far, each once per role.
#[derive(Default)]
struct Cast<'a> {
    parts: Vec<Part<'a>>,
    // Keyed by names from the log: a hasher seeded anew in each process
    // (`core::hash`).
    index: HashMap<(&'a str, Kind), usize>,
}

impl<'a> Cast<'a> {
    /// `name` seen in `kind`; where it shows up first is worked out only
    /// while not known (a long call names its few participants on every
    /// line).
    fn see(&mut self, name: &'a str, kind: Kind, first: impl FnOnce() -> Option<(usize, Anchor)>) {
        match self.index.get(&(name, kind)) {
            Some(&k) => {
                if self.parts[k].first.is_none() {
                    self.parts[k].first = first();
                }
            }
            None => {
                self.index.insert((name, kind), self.parts.len());
                self.parts.push(Part {
                    name,
                    kind,
                    first: first(),
                });
            }
        }
    }
}

impl Rule for Check {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let parts = participants(cx.call);
        let voicebot = cx.call.voicebot;
        let keys = LabelKeys::new(parts.iter().map(|p| p.name));
        let mut out = Vec::new();
        for j in 0..parts.len() {
            // A name like many others is reported beside the first few.
            let mut found = 0;
            for i in compared_with(j) {
                if !collide(voicebot, &keys, &parts, i, j) {
                    continue;
                }
                let (a, b) = (&parts[i], &parts[j]);
                // Report where the later of the two shows up.
                let (first, second) = match (a.first, b.first) {
                    (_, None) if a.first.is_some() => (b, a),
                    (Some((x, _)), Some((y, _))) if x > y => (b, a),
                    _ => (a, b),
                };
                let Some((k, at)) = second.first else {
                    continue;
                };
                // At the record where it shows up, in every shape of the
                // log: a session keeps a call's answer apart from the call.
                let here = cx.call.records[k].on_record(at);
                let mut f = finding(first, second, here);
                if here != at {
                    f = f.label(at, format!("{} is named here", quote(second.name, 30)));
                }
                out.push(f);
                found += 1;
                if found == MAX_PER_NAME {
                    break;
                }
            }
        }
        for f in out {
            cx.report(f);
        }
    }
}

/// At most this many findings name the same participant as the later one.
const MAX_PER_NAME: usize = 3;

/// The participants at `i` and `j` are named alike, or one is the voicebot
/// and the other has one of its names.
fn collide(voicebot: &str, keys: &LabelKeys, parts: &[Part<'_>], i: usize, j: usize) -> bool {
    let variant =
        |x: &Part<'_>, y: &Part<'_>| x.kind == Kind::Voicebot && is_voicebot(voicebot, y.name);
    let (a, b) = (&parts[i], &parts[j]);
    keys.similar(i, j) || variant(a, b) || variant(b, a)
}

/// Everyone in the call, each once per role, in order of appearance.
fn participants<'a>(call: &Call<'a>) -> Vec<Part<'a>> {
    let mut cast = Cast::default();
    if let Some(h) = call.human {
        cast.see(h, Kind::Human, || None);
    }
    cast.see(call.voicebot, Kind::Voicebot, || None);
    let me = call.recorder;
    // The recorder's own lines, to tell an echo of them from another agent
    // that took the same label.
    let mine: HashSet<&str> = call
        .fn_calls()
        .filter_map(|(_, f)| match &f.op {
            Op::Say(s) => s.text.as_ref().map(|t| t.as_str()),
            Op::Join(j) => match &j.greet {
                Some(Greet::Text(t)) => Some(t.as_str()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    for (i, r) in call.records.iter().enumerate() {
        if let Some(f) = r.as_fn() {
            if let Op::Join(j) = &f.op {
                if let (true, Some(l)) = (f.ok(), &j.label) {
                    if Some(l.as_str()) == me {
                        cast.see(l.as_str(), Kind::Me, || Some((i, r.text(l))));
                    }
                }
            }
        }
        // The names the server lists in a `status` answer (`peers`,
        // `operators`): the recorder, the human and the voicebot under
        // their own names are known already.
        if let Some(f) = r.as_fn() {
            if let Op::Status(b) = &f.op {
                for t in &b.listed {
                    let n = t.as_str();
                    if Some(n) != me && Some(n) != call.human && !is_voicebot(call.voicebot, n) {
                        cast.see(n, Kind::Agent, || Some((i, r.text(t))));
                    }
                }
            }
        }
        let Some(ev) = next_event(r) else { continue };
        // The speaker beside the line's text; the record when it has none.
        let speaker_at = |l: &Line| match &l.text {
            Some(t) => Anchor {
                path: t.path.parent().key("speaker"),
                ..r.text(t)
            },
            None => r.head(),
        };
        for l in &ev.agent_said {
            if let Some(s) = l.speaker.as_deref() {
                cast.see(s, Kind::Voicebot, || Some((i, speaker_at(l))));
            }
        }
        let op_line = match &ev.kind {
            EventKind::Operator(l) => Some(&**l),
            _ => None,
        };
        for l in ev.operators_said.iter().chain(op_line) {
            let Some(s) = l.speaker.as_deref() else {
                continue;
            };
            let echo = Some(s) == me && l.text.as_ref().is_some_and(|t| mine.contains(&t.as_str()));
            if !echo {
                cast.see(s, Kind::Agent, || Some((i, speaker_at(l))));
            }
        }
        if let EventKind::User(l) = &ev.kind {
            if let Some(s) = l.speaker.as_deref() {
                cast.see(s, Kind::Human, || Some((i, speaker_at(l))));
            }
        }
    }
    // The voicebot under its own name and the names speech recognition
    // gives it is one participant.
    let vb = call.voicebot;
    let mut seen_vb = false;
    let mut parts = cast.parts;
    parts.retain(|p| {
        if p.kind != Kind::Voicebot || !is_voicebot(vb, p.name) {
            return true;
        }
        let keep = !seen_vb;
        seen_vb = true;
        keep
    });
    parts
}

fn role(p: &Part<'_>) -> &'static str {
    match p.kind {
        Kind::Human => "the human",
        Kind::Voicebot => "the voicebot",
        Kind::Me => "this agent",
        Kind::Agent => "an agent",
    }
}

fn finding(first: &Part<'_>, second: &Part<'_>, at: Anchor) -> Finding {
    let how = if first.name == second.name {
        "the same name"
    } else {
        "names too much alike"
    };
    let mut f = Finding::new(
        at,
        format!(
            "{} ({}) and {} ({}) have {how}: addressing either resolves to no one",
            quote(first.name, 30),
            role(first),
            quote(second.name, 30),
            role(second)
        ),
    )
    .here(format!("{} shows up here", quote(second.name, 30)))
    .help("give each agent a label no other participant's name resembles (not equal, not a prefix, not the same with another number, not one letter apart); until then, nobody can be addressed by either name");
    if let Some((_, a)) = first.first {
        f = f.label(a, format!("{} was here first", quote(first.name, 30)));
    }
    if matches!(second.kind, Kind::Agent) {
        f = f.agent(second.name);
    }
    // One finding per pair of names, whatever roles the names are seen in
    // and whichever agent's log of the call shows them.
    let mut pair = [name_key(first.name), name_key(second.name)];
    pair.sort();
    f.about(pair.join("\u{0}"))
}

#[cfg(test)]
mod tests {
    use crate::lint::engine::Linter;

    fn run(log: &str) -> Vec<String> {
        let linter = Linter::new(
            &crate::lint::config::Config::default(),
            Some(&["ambiguous-labels".to_string()]),
            &[],
        )
        .unwrap();
        let f = linter.lint("t.jsonl", log.as_bytes().to_vec());
        f.diagnostics.iter().map(|d| d.message.clone()).collect()
    }

    const JOIN: &str = r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{"label":"Pico","greet":true},"result":{"status":"joined","context":{"lang":"en"}}}"#;

    fn said(speaker: &str, text: &str) -> String {
        format!(
            r#"{{"ts":"2026-10-10T10:01:00.000Z","fn":"next","result":{{"type":"timeout","operators_said":[{{"speaker":"{speaker}","text":"{text}"}}]}}}}"#
        )
    }

    fn status(result: &str) -> String {
        format!(
            r#"{{"ts":"2026-10-10T10:01:05.000Z","fn":"status","args":{{"emoji":"🔎","doing":"Reading","open":[],"done":[]}},"result":{result}}}"#
        )
    }

    #[test]
    fn names_the_server_lists_are_participants_too() {
        for result in [
            r#"{"peers":["Juno","juno"]}"#,
            r#"{"peers":["Juno"],"operators":[{"label":"JUNO","emoji":"🦉"}]}"#,
            r#"{"operators":[{"label":"Juno"},{"label":"ju-no"}]}"#,
            r#"{"peers":["Pico","pico"]}"#,
        ] {
            let log = [JOIN.to_string(), status(result)].join("\n");
            assert_eq!(run(&log).len(), 1, "{result}");
        }
        // The same names again, the recorder itself, and lists of other
        // shapes are no collision.
        for result in [
            r#"{"peers":["Juno","Pico"],"operators":[{"label":"Juno"},{"label":"Pico"}]}"#,
            r#"{"peers":[3,null,{"id":1}],"operators":[]}"#,
        ] {
            let log = [JOIN.to_string(), said("Juno", "Hi."), status(result)].join("\n");
            assert!(run(&log).is_empty(), "{result}: {:?}", run(&log));
        }
    }

    #[test]
    fn similar_labels_fire_once() {
        let log = [
            JOIN.to_string(),
            said("Pico 2", "Hi, this is Pico 2."),
            said("Pico 2", "I'm listening."),
        ]
        .join("\n");
        assert_eq!(run(&log).len(), 1);
    }

    #[test]
    fn same_label_as_the_recorder_fires() {
        let log = [
            JOIN.to_string(),
            said("Pico", "Hi, this is the other Pico."),
        ]
        .join("\n");
        assert_eq!(run(&log).len(), 1);
    }

    #[test]
    fn a_label_the_voicebot_is_heard_as_fires() {
        let log = [JOIN.to_string(), said("Data", "Hi, Data here.")].join("\n");
        assert_eq!(run(&log).len(), 1);
    }

    #[test]
    fn distinct_labels_are_fine() {
        let log = [
            JOIN.to_string(),
            said("Orca", "Hi, this is Orca."),
            said("Lumen", "Hi, this is Lumen."),
            said("Claudia", "Hi."),
            said("Claude Code", "Hi."),
        ]
        .join("\n");
        assert!(run(&log).is_empty());
    }

    #[test]
    fn the_voicebot_under_a_heard_name_is_one_participant() {
        let log = [
            JOIN.to_string(),
            r#"{"ts":"2026-10-10T10:01:00.000Z","fn":"next","result":{"type":"timeout","agent_said":[{"speaker":"Delta","text":"Hi."},{"speaker":"Data","text":"Hi again."}]}}"#.to_string(),
        ]
        .join("\n");
        assert!(run(&log).is_empty());
    }
}
