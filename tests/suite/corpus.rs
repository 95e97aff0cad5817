//! The corpus: every case is linted, its findings compared with the
//! annotations in its `expected.tsv` (for the rules callint has), and its
//! output kept as a snapshot.
//!
//! `cargo test --test corpus -- --nocapture` prints found/expected and false
//! alarms per rule.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use callint::report::{self, Summary};

#[derive(Default)]
struct Tally {
    expected: usize,
    found: usize,
    false_alarms: usize,
}

#[test]
fn corpus_matches_its_annotations() {
    let implemented: BTreeSet<&str> = callint::rules::catalogue().iter().map(|m| m.name).collect();
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    let mut problems = Vec::new();
    for case in common::corpus_cases() {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let expected: BTreeSet<common::Expected> = common::expected(&case)
            .into_iter()
            .filter(|(_, _, r)| implemented.contains(r.as_str()))
            .collect();
        let mut actual: BTreeSet<common::Expected> = BTreeSet::new();
        // The case's files together, as `callint check corpus/` lints them:
        // the logs of one call are also merged into one room.
        let files: Vec<(String, Vec<u8>)> = common::case_logs(&case)
            .iter()
            .map(|log| {
                let file = log.file_name().unwrap().to_string_lossy().to_string();
                (file, std::fs::read(log).unwrap())
            })
            .collect();
        for f in common::lint_together(&files) {
            for (line, rule) in common::lines_and_rules(&f) {
                actual.insert((f.path.clone(), line, rule));
            }
        }
        for e in &expected {
            let t = tally.entry(e.2.clone()).or_default();
            t.expected += 1;
            if actual.contains(e) {
                t.found += 1;
            } else {
                problems.push(format!("{name}: missed {}:{} {}", e.0, e.1, e.2));
            }
        }
        for a in actual.difference(&expected) {
            tally.entry(a.2.clone()).or_default().false_alarms += 1;
            problems.push(format!("{name}: false alarm {}:{} {}", a.0, a.1, a.2));
        }
    }
    println!(
        "{:<24} {:>8} {:>8} {:>12}",
        "rule", "found", "expected", "false alarms"
    );
    for (rule, t) in &tally {
        println!(
            "{rule:<24} {:>8} {:>8} {:>12}",
            t.found, t.expected, t.false_alarms
        );
    }
    assert!(
        problems.is_empty(),
        "corpus disagrees with expected.tsv:\n{}",
        problems.join("\n")
    );
}

#[test]
fn clean_calls_give_nothing() {
    for case in common::corpus_cases() {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("clean-") {
            continue;
        }
        assert!(
            common::expected(&case).is_empty(),
            "{name} is meant to be clean"
        );
        let files: Vec<(String, Vec<u8>)> = common::case_logs(&case)
            .iter()
            .map(|log| {
                (
                    log.to_string_lossy().to_string(),
                    std::fs::read(log).unwrap(),
                )
            })
            .collect();
        for f in common::lint_together(&files) {
            assert!(f.diagnostics.is_empty(), "{}: {:#?}", f.path, f.diagnostics);
            assert!(f.records > 10, "{} should be a real call", f.path);
            assert!(!f.calls.is_empty(), "{} should name its call", f.path);
        }
        // Every log of a clean case is of one call, so the room pass ran.
        assert!(
            files.len() > 1,
            "{name}: a clean call of several logs checks the room too"
        );
    }
}

/// Lint every log of a case and render it as `callint check` would.
fn render(case: &std::path::Path, pretty: bool) -> String {
    let mut out = String::new();
    let mut summary = Summary::default();
    let files: Vec<(String, Vec<u8>)> = common::case_logs(case)
        .iter()
        .map(|log| {
            let rel = log.strip_prefix(common::root()).unwrap();
            (
                rel.to_string_lossy().to_string(),
                std::fs::read(log).unwrap(),
            )
        })
        .collect();
    for f in common::lint_together(&files) {
        summary.add(&f);
        if pretty {
            let style = report::pretty::Style {
                color: false,
                width: 100,
            };
            report::pretty::render(&f, style, &mut out);
        } else {
            report::concise::render(&f, &mut out);
        }
    }
    out.push_str(&summary.line());
    out
}

#[test]
fn corpus_snapshots() {
    for case in common::corpus_cases() {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        insta::assert_snapshot!(format!("concise-{name}"), render(&case, false));
    }
    let seed = common::root().join("corpus/seed-incident");
    insta::assert_snapshot!("pretty-seed-incident", render(&seed, true));
}

/// The room's precision, measured on the corpus: with one agent's log left
/// out of a case, the room judges that agent from the others' logs. What it
/// finds must be exactly that agent's annotated findings of the rules of
/// scope room (the same rules, as many), and nothing about anyone else.
#[test]
fn a_log_left_out_is_made_up_for_by_the_room() {
    let mut checked = 0;
    for case in common::corpus_cases() {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let logs: Vec<(String, Vec<u8>)> = common::case_logs(&case)
            .iter()
            .map(|log| {
                let file = log.file_name().unwrap().to_string_lossy().to_string();
                (file, std::fs::read(log).unwrap())
            })
            .collect();
        // The room needs two logs besides the one left out.
        if logs.len() < 3 {
            continue;
        }
        let expected = common::expected(&case);
        for (k, (file, bytes)) in logs.iter().enumerate() {
            let alone = common::lint(file, bytes, &[]);
            let Some(agent) = alone.calls.first().and_then(|c| c.recorder.clone()) else {
                continue;
            };
            let mut want: Vec<String> = expected
                .iter()
                .filter(|(f, _, r)| {
                    f == file && callint::rules::scope(r) == callint::core::meta::Scope::Room
                })
                .map(|e| e.2.clone())
                .collect();
            want.sort();
            let rest: Vec<(String, Vec<u8>)> = logs
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, l)| l.clone())
                .collect();
            let mut got: Vec<String> = Vec::new();
            for (r, (f, b)) in common::lint_together(&rest).iter().zip(&rest) {
                let apart = common::lint(f, b, &[]);
                let (about, others): (Vec<_>, Vec<_>) = r
                    .diagnostics
                    .iter()
                    .partition(|d| d.agent.as_deref() == Some(agent.as_str()));
                got.extend(about.iter().map(|d| d.rule.to_string()));
                let apart: Vec<_> = apart.diagnostics.iter().collect();
                assert_eq!(others, apart, "{name} without {file}: {f} changed");
            }
            got.sort();
            assert_eq!(
                got, want,
                "{name} without {file}: what the room finds on {agent}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} logs left out");
}

/// `other-languages = false` keeps `wrong-language` to English against
/// German: the corpus's says in French, Spanish and Russian go unreported,
/// while a German say in an English call still is.
#[test]
fn other_languages_can_be_turned_off() {
    let path = crate::common::root().join("corpus/third-language-en/pip.jsonl");
    let bytes = std::fs::read(&path).unwrap();
    let rules = |toml: &str| -> Vec<String> {
        let config = callint::lint::config::Config::parse(toml, None).unwrap();
        let select = vec!["wrong-language".to_string()];
        let linter = callint::lint::engine::Linter::new(&config, Some(&select), &[]).unwrap();
        let f = linter.lint("pip.jsonl", bytes.clone());
        f.diagnostics.iter().map(|d| d.message.clone()).collect()
    };
    let on = rules("");
    assert_eq!(on.len(), 3, "{on:?}");
    assert!(on.iter().any(|m| m.contains("Russian")), "{on:?}");
    let off = rules("[rules.wrong-language]\nother-languages = false\n");
    assert!(
        off.iter()
            .all(|m| !m.contains("French") && !m.contains("Spanish") && !m.contains("Russian")),
        "{off:?}"
    );
    let german = r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{"call_id":"c1","label":"Pip","greet":false},"result":{"status":"joined","role":"participant","context":{"lang":"en","mode":"normal"}}}
{"ts":"2026-10-10T10:00:01.000Z","fn":"say","args":{"text":"Der Build ist grün, ich habe den Fix gepusht."},"result":{"say_id":"s1","say_status":"queued"}}
"#;
    let config = callint::lint::config::Config::parse(
        "[rules.wrong-language]\nother-languages = false\n",
        None,
    )
    .unwrap();
    let select = vec!["wrong-language".to_string()];
    let linter = callint::lint::engine::Linter::new(&config, Some(&select), &[]).unwrap();
    let f = linter.lint("de.jsonl", german.as_bytes().to_vec());
    assert_eq!(f.diagnostics.len(), 1, "{:?}", f.diagnostics);
}
