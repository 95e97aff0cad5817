//! Every rule page's examples run: each Bad example fires its rule, each
//! Good example does not (and reads cleanly as a log).

use crate::common;

use callint::rules;

#[test]
fn every_page_has_bad_and_good_examples_that_hold() {
    let mut checked = 0;
    for meta in rules::catalogue() {
        let page = rules::page(meta.name).expect("page");
        let ex = common::examples(page);
        assert!(
            ex.iter().any(|e| !e.good) && ex.iter().any(|e| e.good),
            "rules/{}.md needs at least one Bad and one Good example",
            meta.name
        );
        for e in ex {
            // A log, or a prompt linted with every rule (a suppression
            // is judged against the rule it names).
            let f = match e.lang.as_str() {
                "jsonl" => common::lint(
                    "example.jsonl",
                    e.body.as_bytes(),
                    &[meta.name, "invalid-record"],
                ),
                "markdown" => common::lint("example.md", e.body.as_bytes(), &[]),
                // A transcript.
                "text" => common::lint(
                    "example.txt",
                    e.body.as_bytes(),
                    &[meta.name, "invalid-record"],
                ),
                other => panic!(
                    "rules/{}.md:{}: example language {other}",
                    meta.name, e.line
                ),
            };
            let own: Vec<_> = f
                .diagnostics
                .iter()
                .filter(|d| d.rule == meta.name)
                .collect();
            if e.good {
                assert!(
                    f.diagnostics.is_empty(),
                    "rules/{}.md:{}: the Good example gives findings: {:#?}",
                    meta.name,
                    e.line,
                    f.diagnostics
                );
            } else {
                assert!(
                    !own.is_empty(),
                    "rules/{}.md:{}: the Bad example does not fire the rule",
                    meta.name,
                    e.line
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} examples found");
}

#[test]
fn pages_have_the_sections_users_look_for() {
    for meta in rules::catalogue() {
        let page = rules::page(meta.name).unwrap();
        for section in ["## What it checks", "## Why", "## Example"] {
            assert!(
                page.contains(section),
                "rules/{}.md lacks {section}",
                meta.name
            );
        }
        let sev = format!("default severity: {}", meta.default_severity.name());
        assert!(
            page.contains(&sev),
            "rules/{}.md should say `{sev}`",
            meta.name
        );
        // The scope is on the page, and a rule of the room says what it
        // does with several logs of one call.
        let scope = rules::scope(meta.name);
        let line = format!("scope: {}", scope.name());
        assert!(
            page.lines().nth(2).is_some_and(|l| l.ends_with(&line)),
            "rules/{}.md should say `{line}` on its third line",
            meta.name
        );
        if scope == callint::core::meta::Scope::Room {
            assert!(
                page.contains("With several logs of one call"),
                "rules/{}.md should say what the room adds",
                meta.name
            );
        }
    }
}

/// The project's own documents describe mistakes; they tell no agent to
/// make one. Read as instructions (and their fenced payloads as before),
/// they give nothing, while each page's examples still fire on their own
/// (above).
#[test]
fn the_projects_own_docs_instruct_nothing() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_callint"))
        .current_dir(root)
        .args([
            "check",
            "--no-cache",
            "--no-config",
            "--format",
            "concise",
            "README.md",
            "ARCHITECTURE.md",
            "docs",
            "rules",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("All checks passed"), "{text}");
}
