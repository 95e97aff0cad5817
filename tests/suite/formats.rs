//! Precision and recall of every rule in every input shape: each annotated
//! corpus call of native logs is also linted as the MCP traces its agents'
//! clients would have recorded and as the room's transcript (written by
//! `common::convert`), and its annotations, carried to the lines they land
//! on, are checked in each. A call kept in another shape (an MCP trace, a
//! transcript) is checked in its own.
//!
//! `cargo test --test suite formats:: -- --nocapture` prints the table.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::common::{self, convert};

/// A case's files: name and bytes.
type Files = [(String, Vec<u8>)];

/// An input shape a corpus call can be linted in.
struct Format {
    name: &'static str,
    /// The files of that shape written from a case's native logs.
    from_native: fn(&Files) -> convert::Converted,
    /// Rules whose findings this shape cannot show, and why.
    unshown: &'static [(&'static str, &'static str)],
    /// The files of one call are merged into one room, which judges the
    /// agents whose own log is missing (native logs; a transcript is the
    /// room already). Without it, findings about those agents cannot show.
    room: bool,
}

/// Single findings a shape cannot reproduce, by case, shape, line in that
/// shape and rule, with the reason. Each is a limit of what the shape
/// records, not of a rule; they are printed with the table.
const KNOWN: &[(&str, &str, usize, &str, &str)] = &[
    ("reading-and-addressing", "transcript", 27, "unaddressed-request",
     "the transcript's addressing knows every agent from the start, so Mara's 'Pico, ...' collides with Pico 2, who joined later"),
    ("reading-and-addressing", "transcript", 45, "answered-human-question",
     "the same: Ferris's 'Pico, ...' collides with Pico 2 and reads as a question to Mara"),
    ("reading-and-addressing", "transcript", 33, "spoke-for-addressed",
     "Lumen queued its say before Mara's line reached it; a transcript does not show what had reached whom"),
    ("conduct", "transcript", 14, "participant-offered-action",
     "Lark's log says it is a participant but names no owner, and a transcript states roles only through `# owner:`"),
    ("offers-german", "transcript", 9, "participant-offered-action",
     "Juno's log says it is a participant but names no owner, and a transcript states roles only through `# owner:`"),
    ("offers-german", "transcript", 11, "participant-offered-action",
     "the same: Juno's role does not show in a transcript"),
    ("claims-participants-de", "transcript", 11, "contradicted-claim",
     "only Wega's `status` answer listed Juno before Wega said nobody else was there, and a transcript holds no boards"),
];

const NO_CHAT_OR_TOOLS: &str =
    "a trace holds only the voicehook calls, no chat with the agent's user and no other tools";
const NOT_SPEECH: &str = "a transcript holds what was said, no boards, decisions, calls or tools";
const NO_JOIN: &str = "a transcript does not show when an agent joined or what the server answered";

static FORMATS: &[Format] = &[
    Format {
        name: "native",
        from_native: native,
        unshown: &[],
        room: true,
    },
    Format {
        name: "mcp",
        from_native: convert::mcp,
        unshown: &[
            ("participant-acted", NO_CHAT_OR_TOOLS),
            ("link-not-last", NO_CHAT_OR_TOOLS),
            ("link-missing-until-joined", NO_CHAT_OR_TOOLS),
            ("foreground-wait-before-link", NO_CHAT_OR_TOOLS),
            ("create-call-delegated", "a trace does not say which thread of the client called"),
            ("slow-ack", "a trace holds no tool runs: work before the acknowledgement shows only as a late say, on another line"),
        ],
        room: false,
    },
    Format {
        name: "claude",
        from_native: convert::claude,
        unshown: &[],
        // Session files are linted each on its own, not merged into a room.
        room: false,
    },
    Format {
        name: "transcript",
        from_native: convert::transcript,
        unshown: &[
            ("board-bundle", NOT_SPEECH),
            ("board-missing-emoji", NOT_SPEECH),
            ("question-on-board", NOT_SPEECH),
            ("decision-not-yes-no", NOT_SPEECH),
            ("participant-acted", NOT_SPEECH),
            ("link-not-last", NOT_SPEECH),
            ("link-missing-until-joined", NOT_SPEECH),
            ("foreground-wait-before-link", NOT_SPEECH),
            ("create-call-delegated", NOT_SPEECH),
            ("label-too-long", NO_JOIN),
            ("no-greeting", NO_JOIN),
            ("join-sequence", NO_JOIN),
            ("slow-ack", NO_JOIN),
            ("resent-dropped-say", "a transcript holds only what the room heard, no dropped says"),
            ("unanswered-agent", "a transcript does not show which lines woke an agent"),
        ],
        room: true,
    },
];

fn native(logs: &[(String, Vec<u8>)]) -> convert::Converted {
    let mut lines = HashMap::new();
    for (name, bytes) in logs {
        for i in 1..=bytes.split(|&b| b == b'\n').count() {
            lines.insert((name.clone(), i), (name.clone(), i));
        }
    }
    convert::Converted {
        files: logs.to_vec(),
        lines,
        alias: HashMap::new(),
    }
}

/// Every file of the case is a native log (its first record has `fn`,
/// `chat`, `tool` or `meta`).
fn is_native(logs: &[(String, Vec<u8>)]) -> bool {
    logs.iter().all(|(_, b)| {
        let first = b
            .split(|&c| c == b'\n')
            .find(|l| !l.iter().all(u8::is_ascii_whitespace));
        first
            .and_then(|l| serde_json::from_slice::<serde_json::Value>(l).ok())
            .is_some_and(|v| {
                ["fn", "chat", "tool", "meta"]
                    .iter()
                    .any(|k| v.get(k).is_some())
            })
    })
}

#[derive(Default)]
struct Tally {
    expected: usize,
    found: usize,
    false_alarms: usize,
}

type Finding = (String, usize, String);

#[test]
fn every_call_in_every_format() {
    let implemented: BTreeSet<&str> = callint::rules::catalogue().iter().map(|m| m.name).collect();
    // (rule, format) -> tally
    let mut table: BTreeMap<(String, &str), Tally> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut runs = 0;
    for case in common::corpus_cases() {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let logs: Vec<(String, Vec<u8>)> = common::case_logs(&case)
            .iter()
            .map(|p| {
                let file = p.file_name().unwrap().to_string_lossy().to_string();
                (file, std::fs::read(p).unwrap())
            })
            .collect();
        let expected: Vec<Finding> = common::expected(&case)
            .into_iter()
            .filter(|(_, _, r)| implemented.contains(r.as_str()))
            .collect();
        let native_logs = is_native(&logs);
        // Who the annotations judge, and whom each finding is about: the
        // case's own run names them.
        let own = common::lint_together(&logs);
        let recorders: BTreeSet<String> = own
            .iter()
            .flat_map(|f| f.calls.iter().filter_map(|c| c.recorder.clone()))
            .collect();
        let mut about: HashMap<Finding, String> = HashMap::new();
        for f in &own {
            for ((line, rule), d) in common::lines_and_rules(f).into_iter().zip(&f.diagnostics) {
                if let Some(a) = &d.agent {
                    about.insert((f.path.clone(), line, rule), a.clone());
                }
            }
        }
        let judged: BTreeSet<String> = recorders
            .iter()
            .cloned()
            .chain(about.values().cloned())
            .collect();
        for format in FORMATS {
            // A call kept in another shape is checked in its own only.
            if !native_logs && format.name != "native" {
                continue;
            }
            let label = if native_logs {
                format.name
            } else {
                "own shape"
            };
            let shown = |rule: &str| !format.unshown.iter().any(|(r, _)| *r == rule);
            let conv = (format.from_native)(&logs);
            // Without a room, the room's findings are only those about the
            // recording agents.
            let in_room = |e: &Finding| {
                format.room
                    || callint::rules::scope(&e.2) != callint::core::meta::Scope::Room
                    || about.get(e).is_none_or(|a| recorders.contains(a))
            };
            let known = |e: &Finding| {
                KNOWN
                    .iter()
                    .any(|k| k.0 == name && k.1 == label && k.2 == e.1 && k.3 == e.2)
            };
            let want: BTreeSet<Finding> = expected
                .iter()
                .filter(|e| shown(&e.2) && in_room(e))
                .filter_map(|(f, l, r)| {
                    let (f, l) = conv.lines.get(&(f.clone(), *l))?;
                    Some((f.clone(), *l, r.clone()))
                })
                .filter(|e| !known(e))
                .collect();
            let mut got: BTreeSet<Finding> = BTreeSet::new();
            for f in common::lint_together(&conv.files) {
                let index = callint::core::lines::LineIndex::new(&f.source);
                for d in &f.diagnostics {
                    if !shown(d.rule) || d.agent.as_ref().is_some_and(|a| !judged.contains(a)) {
                        continue;
                    }
                    let at = callint::core::lines::resolve(&f.source, &index, &d.primary.at);
                    let at = (f.path.clone(), at.line);
                    let (file, line) = conv.alias.get(&at).cloned().unwrap_or(at);
                    let found = (file, line, d.rule.to_string());
                    if !known(&found) {
                        got.insert(found);
                    }
                }
            }
            runs += 1;
            for e in &want {
                let t = table.entry((e.2.clone(), label)).or_default();
                t.expected += 1;
                if got.contains(e) {
                    t.found += 1;
                } else {
                    problems.push(format!("{name} as {label}: missed {}:{} {}", e.0, e.1, e.2));
                }
            }
            for a in got.difference(&want) {
                table.entry((a.2.clone(), label)).or_default().false_alarms += 1;
                problems.push(format!(
                    "{name} as {label}: false alarm {}:{} {}",
                    a.0, a.1, a.2
                ));
            }
        }
    }
    let formats: Vec<&str> = FORMATS
        .iter()
        .map(|f| f.name)
        .chain(["own shape"])
        .collect();
    println!(
        "{:<28} {:<10} {:>5} {:>5} {:>5} {:>9} {:>7}",
        "rule", "format", "found", "of", "FA", "precision", "recall"
    );
    let rules: BTreeSet<&String> = table.keys().map(|(r, _)| r).collect();
    for rule in rules {
        for f in &formats {
            let Some(t) = table.get(&(rule.clone(), f)) else {
                continue;
            };
            let pct = |a: usize, b: usize| {
                if b == 0 {
                    "-".to_string()
                } else {
                    format!("{:.0}%", 100.0 * a as f64 / b as f64)
                }
            };
            println!(
                "{rule:<28} {f:<10} {:>5} {:>5} {:>5} {:>9} {:>7}",
                t.found,
                t.expected,
                t.false_alarms,
                pct(t.found, t.found + t.false_alarms),
                pct(t.found, t.expected)
            );
        }
    }
    for f in FORMATS {
        for (rule, why) in f.unshown {
            println!("{:<28} {:<10} not shown: {why}", rule, f.name);
        }
        if !f.room {
            println!(
                "{:<28} {:<10} not shown: findings about agents with no log of their own (no room)",
                "(room)", f.name
            );
        }
    }
    for (case, format, line, rule, why) in KNOWN {
        println!("{case} as {format}, line {line}, {rule}: not reproduced: {why}");
    }
    assert!(runs >= 30, "only {runs} runs");
    assert!(
        problems.is_empty(),
        "the corpus disagrees with its annotations in some format:\n{}",
        problems.join("\n")
    );
}

/// Writes each case's converted files under `$CALLINT_DUMP` (for a look
/// at them by hand).
#[test]
fn dump_when_asked() {
    let Ok(dir) = std::env::var("CALLINT_DUMP") else {
        return;
    };
    for case in common::corpus_cases() {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let logs: Vec<(String, Vec<u8>)> = common::case_logs(&case)
            .iter()
            .map(|p| {
                (
                    p.file_name().unwrap().to_string_lossy().to_string(),
                    std::fs::read(p).unwrap(),
                )
            })
            .collect();
        if !is_native(&logs) {
            continue;
        }
        for f in FORMATS {
            let out = std::path::Path::new(&dir).join(&name).join(f.name);
            std::fs::create_dir_all(&out).unwrap();
            for (file, bytes) in (f.from_native)(&logs).files {
                std::fs::write(out.join(file), bytes).unwrap();
            }
        }
    }
}
