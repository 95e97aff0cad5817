//! Adopting callint on a backlog: baselines, inline suppressions, and the
//! outputs pipelines read, end to end through the binary.

use std::path::Path;

use crate::common::{callint, callint_in, scratch, stdout};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The logs of the seed incident, copied into `dir`; with `moved`, every
/// record moves down (blank lines before each) as a new export would.
fn seed_logs(dir: &Path, moved: bool) {
    std::fs::create_dir_all(dir).unwrap();
    for name in ["claude.jsonl", "opencode.jsonl", "promo.jsonl"] {
        let src = std::fs::read_to_string(Path::new("corpus/seed-incident").join(name)).unwrap();
        let out = if moved {
            src.lines()
                .map(|l| format!("\n  {l}\n"))
                .collect::<String>()
        } else {
            src
        };
        std::fs::write(dir.join(name), out).unwrap();
    }
}

fn baseline_entries(path: &Path) -> Vec<serde_json::Value> {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(v["version"], 1);
    v["findings"].as_array().unwrap().clone()
}

#[test]
fn a_baseline_survives_a_re_export_and_reports_only_new_findings() {
    let d = scratch();
    seed_logs(&d.join("logs"), false);
    let before = callint_in(&d, &["check", "logs", "--format", "json"]);
    assert_eq!(before.status.code(), Some(1));
    let found: serde_json::Value = serde_json::from_slice(&before.stdout).unwrap();
    let n = found["diagnostics"].as_array().unwrap().len();
    assert!(n > 5);

    let w = callint_in(&d, &["check", "logs", "--write-baseline", "base.json"]);
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    let entries = baseline_entries(&d.join("base.json"));
    assert_eq!(entries.len(), n);
    assert!(
        entries.iter().all(|e| e["call"] == "c-7f3k2q"),
        "{entries:?}"
    );

    // The same call exported again: every line moved, files elsewhere.
    seed_logs(&d.join("export"), true);
    let o = callint_in(&d, &["check", "export", "--baseline", "base.json"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains(&format!("{n} more in the baseline")),
        "{}",
        stdout(&o)
    );
    assert!(!stderr(&o).contains("matched nothing"), "{}", stderr(&o));

    // One new finding is reported alone; one fixed line leaves its entry
    // unmatched, listed, and pruned on request.
    let claude = d.join("export/claude.jsonl");
    let text = std::fs::read_to_string(&claude).unwrap();
    let kept: String = text
        .lines()
        .filter(|l| !l.contains(r#""args":{"text":"Got it."}"#))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(kept.len() < text.len());
    std::fs::write(&claude, kept).unwrap();
    let log = d.join("export/opencode.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(
        &log,
        format!(
            "{text}{}\n",
            r#"{"ts":"2026-10-10T10:09:00.000Z","call":"c-7f3k2q","agent":"opencode","fn":"status","args":{"emoji":"🛠️","open":["Fix login, update docs and tag release"]}}"#
        ),
    )
    .unwrap();
    let o = callint_in(
        &d,
        &[
            "check",
            "export",
            "--baseline",
            "base.json",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let new = v["diagnostics"].as_array().unwrap();
    assert_eq!(new.len(), 1, "{new:?}");
    assert_eq!(new[0]["rule"], "board-bundle");
    assert!(stderr(&o).contains("ack-not-addressed"), "{}", stderr(&o));
    assert!(stderr(&o).contains("--prune-baseline"));

    let p = callint_in(
        &d,
        &[
            "check",
            "export",
            "--baseline",
            "base.json",
            "--prune-baseline",
        ],
    );
    assert!(stderr(&p).contains("pruned"), "{}", stderr(&p));
    let acks = |v: &[serde_json::Value]| {
        v.iter()
            .filter(|e| e["rule"] == "ack-not-addressed" && e["agent"] == "Claude")
            .count()
    };
    let left = baseline_entries(&d.join("base.json"));
    assert_eq!(left.len(), n - 1);
    assert_eq!(acks(&left) + 1, acks(&entries));
}

#[test]
fn a_baseline_that_is_not_one_is_an_error() {
    let d = scratch();
    std::fs::write(d.join("b.json"), "[1, 2]").unwrap();
    let o = callint(&[
        "check",
        "corpus/clean-en",
        "--baseline",
        d.join("b.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not a callint baseline"),
        "{}",
        stderr(&o)
    );
}

/// `lines` with `insert` put before the 1-based line `at` (later first).
fn with_lines(src: &str, mut inserts: Vec<(usize, &str)>) -> String {
    let mut lines: Vec<&str> = src.lines().collect();
    inserts.sort_by_key(|i| std::cmp::Reverse(i.0));
    for (at, text) in inserts {
        lines.insert(at - 1, text);
    }
    lines.join("\n") + "\n"
}

fn rules_found(o: &std::process::Output) -> Vec<(String, usize)> {
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

#[test]
fn inline_suppressions_in_prompts_and_helpers() {
    let d = scratch();
    let prompt = std::fs::read_to_string("corpus/prompts/bad-prompt.md").unwrap();
    let prompt = with_lines(
        &prompt,
        vec![
            (
                15,
                "<!-- callint: ignore[board-bundle, question-on-board] the template shows both on purpose -->",
            ),
            (28, "<!-- callint: ignore[long-say] written for an older block -->"),
            (34, "<!-- callint: ignore[long-says] misspelt -->"),
        ],
    );
    std::fs::write(d.join("prompt.md"), &prompt).unwrap();
    let o = callint_in(&d, &["check", "prompt.md", "--format", "json"]);
    let found = rules_found(&o);
    let rules: Vec<&str> = found.iter().map(|(r, _)| r.as_str()).collect();
    assert!(!rules.contains(&"board-bundle"), "{found:?}");
    assert!(!rules.contains(&"question-on-board"), "{found:?}");
    assert!(rules.contains(&"board-missing-emoji"), "{found:?}");
    assert!(rules.contains(&"long-say"), "{found:?}");
    let unused: Vec<usize> = found
        .iter()
        .filter(|(r, _)| r == "unused-suppression")
        .map(|(_, l)| *l)
        .collect();
    assert_eq!(unused, [29, 36], "{found:?}");

    // A rule switched off for the run does not make its suppressions
    // unused; a name that is no rule still is.
    let o = callint_in(
        &d,
        &[
            "check",
            "prompt.md",
            "--format",
            "json",
            "--ignore",
            "long-say",
        ],
    );
    let unused: Vec<usize> = rules_found(&o)
        .into_iter()
        .filter(|(r, _)| r == "unused-suppression")
        .map(|(_, l)| l)
        .collect();
    assert_eq!(unused, [36]);

    let helper = std::fs::read_to_string("corpus/prompts/poll_bad.py").unwrap();
    std::fs::write(d.join("poll.py"), &helper).unwrap();
    assert_eq!(callint_in(&d, &["check", "poll.py"]).status.code(), Some(1));
    let helper = with_lines(
        &helper,
        vec![(
            17,
            "        # callint: ignore[timeout-events-dropped] the caller reads timeouts itself",
        )],
    );
    std::fs::write(d.join("poll.py"), &helper).unwrap();
    let o = callint_in(&d, &["check", "poll.py"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn findings_carry_their_call_time_and_fingerprint() {
    let o = callint(&["check", "corpus/seed-incident", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let diags = v["diagnostics"].as_array().unwrap();
    assert!(diags.len() > 10);
    let mut prints = std::collections::BTreeSet::new();
    for d in diags {
        assert_eq!(d["call"], "c-7f3k2q", "{d}");
        // The time is the record's own, as its line writes it.
        let file = std::fs::read_to_string(d["file"].as_str().unwrap()).unwrap();
        let line = file.lines().nth(d["line"].as_u64().unwrap() as usize - 1);
        let ts = d["timestamp"].as_str().expect("a timestamp");
        assert!(line.unwrap().contains(&format!("\"ts\":\"{ts}\"")), "{d}");
        let fp = d["fingerprint"].as_str().unwrap();
        assert_eq!(fp.len(), 32);
        assert!(prints.insert(fp.to_string()), "twice: {fp}");
    }

    // The same fingerprints in SARIF; the call id of an MCP trace comes
    // from the join that entered it.
    let o = callint(&["check", "corpus/seed-incident", "--format", "sarif"]);
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let results = s["runs"][0]["results"].as_array().unwrap();
    let sarif: std::collections::BTreeSet<String> = results
        .iter()
        .map(|r| {
            assert_eq!(r["properties"]["call"], "c-7f3k2q");
            r["partialFingerprints"]["callint/v1"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(sarif, prints);
    let o = callint(&[
        "check",
        "corpus/seed-incident-mcp/claude.jsonl",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["call"] == "c-7f3k2q"));
}

/// Validate a JUnit report against the vendored JUnit schema with
/// `xmllint` (Debian's libxml2-utils). Without it the check is skipped,
/// except in CI, which installs it.
fn validate_junit(xml: &Path) {
    let schema = crate::common::root().join("tests/data/schemas/junit-10.xsd");
    let run = std::process::Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(&schema)
        .arg(xml)
        .output();
    match run {
        Ok(o) => assert!(
            o.status.success(),
            "{} does not validate: {}",
            xml.display(),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "xmllint is needed to validate JUnit reports: {e}"
            );
            eprintln!("xmllint not found ({e}): JUnit schema check skipped");
        }
    }
}

#[test]
fn several_outputs_in_one_run_each_valid() {
    let d = scratch();
    seed_logs(&d.join("logs"), false);
    let o = callint_in(
        &d,
        &[
            "check",
            "logs",
            "--format",
            "json:out/findings.json",
            "--format",
            "github",
            "--format",
            "jsonl:findings.jsonl",
            "--format",
            "junit:report.xml",
            "--format",
            "gitlab:quality.json",
        ],
    );
    // A folder that does not exist is no place to write.
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("out/findings.json"), "{}", stderr(&o));
    std::fs::create_dir(d.join("out")).unwrap();
    let o = callint_in(
        &d,
        &[
            "check",
            "logs",
            "--format",
            "json:out/findings.json",
            "--format",
            "github",
            "--format",
            "jsonl:findings.jsonl",
            "--format",
            "junit:report.xml",
            "--format",
            "gitlab:quality.json",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let read = |p: &str| std::fs::read_to_string(d.join(p)).unwrap();
    let json: serde_json::Value = serde_json::from_str(&read("out/findings.json")).unwrap();
    let items = json["diagnostics"].as_array().unwrap();
    assert!(items.len() > 10);
    // Standard output has the annotations, one per finding.
    assert_eq!(
        stdout(&o).lines().filter(|l| l.starts_with("::")).count(),
        items.len()
    );

    // JSON Lines: the same findings, one object a line.
    let lines: Vec<serde_json::Value> = read("findings.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(&lines, items);

    // JUnit: valid against the schema; a test case per file and rule.
    validate_junit(&d.join("report.xml"));
    let xml = read("report.xml");
    let pairs: std::collections::BTreeSet<(String, String)> = items
        .iter()
        .map(|i| (i["file"].to_string(), i["rule"].to_string()))
        .collect();
    assert_eq!(xml.matches("<testcase ").count(), pairs.len());
    assert_eq!(xml.matches("<failure ").count(), pairs.len());
    assert!(xml.contains(&format!("failures=\"{}\"", pairs.len())));
    for item in items {
        let fp = item["fingerprint"].as_str().unwrap();
        assert!(
            xml.contains(&format!(
                "call c-7f3k2q, at {}, fingerprint {fp}",
                item["timestamp"].as_str().unwrap()
            )),
            "{item}"
        );
    }

    // GitLab Code Quality: the fields its documentation requires, and
    // fingerprints unique within the report.
    let issues: Vec<serde_json::Value> = serde_json::from_str(&read("quality.json")).unwrap();
    assert_eq!(issues.len(), items.len());
    let mut prints = std::collections::BTreeSet::new();
    for (i, item) in issues.iter().zip(items) {
        for field in ["description", "check_name", "fingerprint", "severity"] {
            assert!(
                i[field].as_str().is_some_and(|s| !s.is_empty()),
                "{field}: {i}"
            );
        }
        assert!(["info", "minor", "major", "critical", "blocker"]
            .contains(&i["severity"].as_str().unwrap()));
        assert_eq!(i["location"]["path"], item["file"]);
        assert!(!i["location"]["path"].as_str().unwrap().starts_with('/'));
        assert_eq!(i["location"]["lines"]["begin"], item["line"]);
        assert_eq!(i["check_name"], item["rule"]);
        assert_eq!(i["callint"]["call"], item["call"]);
        assert_eq!(i["callint"]["fingerprint"], item["fingerprint"]);
        assert_eq!(i["callint"]["timestamp"], item["timestamp"]);
        assert!(prints.insert(i["fingerprint"].as_str().unwrap().to_string()));
    }
}

#[test]
fn output_file_and_where_outputs_go() {
    let d = scratch();
    seed_logs(&d.join("logs"), false);
    let o = callint_in(
        &d,
        &[
            "check",
            "logs",
            "--format",
            "concise",
            "--output-file",
            "out.txt",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let text = std::fs::read_to_string(d.join("out.txt")).unwrap();
    assert!(text.contains("error[label-too-long]"), "{text}");
    assert!(text.contains("Found "), "{text}");

    let two = callint_in(
        &d,
        &["check", "logs", "--format", "json", "--format", "github"],
    );
    assert_eq!(two.status.code(), Some(2));
    assert!(stderr(&two).contains("only one --format"));
    let bad = callint_in(&d, &["check", "logs", "--format", "xml"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("junit"), "{}", stderr(&bad));

    // A clean file is one passing test case; text from a log never
    // reaches the XML raw.
    let log = concat!(
        r#"{"ts":"2026-10-10T10:00:00.000Z","agent":"Promo","fn":"status","args":{"emoji":"🛠️","open":["Fix \u001b[31mlogin, <b>update</b> docs & tag release"]}}"#,
        "\n"
    );
    std::fs::write(d.join("hostile.jsonl"), log).unwrap();
    let o = callint_in(
        &d,
        &[
            "check",
            "corpus-clean.jsonl",
            "hostile.jsonl",
            "--format",
            "junit",
            "--no-merge",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "the first file does not exist");
    std::fs::copy(
        crate::common::root().join("corpus/clean-en").join(
            std::fs::read_dir(crate::common::root().join("corpus/clean-en"))
                .unwrap()
                .flatten()
                .map(|e| e.file_name())
                .find(|n| n.to_string_lossy().ends_with(".jsonl"))
                .unwrap(),
        ),
        d.join("corpus-clean.jsonl"),
    )
    .unwrap();
    let o = callint_in(
        &d,
        &[
            "check",
            "corpus-clean.jsonl",
            "hostile.jsonl",
            "--format",
            "junit",
        ],
    );
    let xml = stdout(&o);
    assert!(!xml.contains('\u{1b}'));
    assert!(
        xml.contains("<testcase name=\"callint\" classname=\"corpus-clean.jsonl\""),
        "{xml}"
    );
    assert!(xml.contains("&lt;b&gt;"), "{xml}");
    std::fs::write(d.join("report.xml"), xml).unwrap();
    validate_junit(&d.join("report.xml"));
}

#[test]
fn exit_codes_under_each_fail_level() {
    let code = |args: &[&str]| {
        let mut all = vec![
            "check",
            "corpus/seed-incident",
            "--ignore",
            "label-too-long",
        ];
        all.extend_from_slice(args);
        callint(&all).status.code()
    };
    // Warnings alone: a pass by default, a failure from --fail-on warning.
    assert_eq!(code(&[]), Some(0));
    assert_eq!(code(&["--fail-on", "error"]), Some(0));
    assert_eq!(code(&["--fail-on", "warning"]), Some(1));
    assert_eq!(code(&["--fail-on", "info"]), Some(1));
    assert_eq!(code(&["--fail-on", "warning", "--exit-zero"]), Some(0));
    let json = callint(&[
        "check",
        "corpus/seed-incident",
        "--ignore",
        "label-too-long",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let warnings = v["summary"]["by_severity"]["warning"].as_u64().unwrap() as usize;
    assert!(warnings > 2);
    assert_eq!(code(&["--max-warnings", &warnings.to_string()]), Some(0));
    let over = callint(&[
        "check",
        "corpus/seed-incident",
        "--ignore",
        "label-too-long",
        "--max-warnings",
        &(warnings - 1).to_string(),
    ]);
    assert_eq!(over.status.code(), Some(1));
    assert!(
        stderr(&over).contains("--max-warnings"),
        "{}",
        stderr(&over)
    );
    // Errors fail whatever --max-warnings allows.
    let errors = callint(&["check", "corpus/seed-incident", "--max-warnings", "1000"]);
    assert_eq!(errors.status.code(), Some(1));

    // Info findings only: a failure only from --fail-on info.
    let d = scratch();
    std::fs::write(
        d.join("untimed.jsonl"),
        concat!(
            r#"{"fn":"join","args":{"label":"Kit","greet":true},"result":{"status":"joined"}}"#,
            "\n",
            r#"{"fn":"say","args":{"text":"The build is green."},"result":{"say_id":"s1","say_status":"queued"}}"#,
            "\n"
        ),
    )
    .unwrap();
    let info = |level: &str| {
        callint_in(
            &d,
            &[
                "check",
                "untimed.jsonl",
                "--select",
                "no-times",
                "--fail-on",
                level,
            ],
        )
        .status
        .code()
    };
    assert_eq!(info("error"), Some(0));
    assert_eq!(info("warning"), Some(0));
    assert_eq!(info("info"), Some(1));
}

#[test]
fn paths_from_a_list_and_a_name_for_standard_input() {
    let d = scratch();
    seed_logs(&d.join("logs"), false);
    std::fs::write(
        d.join("list.txt"),
        "logs/claude.jsonl\n\nlogs/promo.jsonl\r\n",
    )
    .unwrap();
    let o = callint_in(
        &d,
        &["check", "--files-from", "list.txt", "--format", "json"],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["summary"]["files"], 2);
    let files: std::collections::BTreeSet<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        ["logs/claude.jsonl", "logs/promo.jsonl"]
    );
    let missing = callint_in(&d, &["check", "--files-from", "nope.txt"]);
    assert_eq!(missing.status.code(), Some(2));
    let both = callint_in(&d, &["check", "-", "--files-from", "-"]);
    assert_eq!(both.status.code(), Some(2));
    assert!(
        stderr(&both).contains("standard input"),
        "{}",
        stderr(&both)
    );

    // The list from standard input.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_callint"))
        .args(["check", "--files-from", "-", "--format", "concise"])
        .current_dir(&d)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"logs/opencode.jsonl\n").unwrap();
    }
    let o = child.wait_with_output().unwrap();
    assert!(
        stdout(&o).contains("logs/opencode.jsonl:"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("in 1 file"), "{}", stdout(&o));

    // A prompt on standard input, filed and read as the name given.
    let prompt = std::fs::read("corpus/prompts/bad-prompt.md").unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_callint"))
        .args([
            "check",
            "-",
            "--stdin-filename",
            "skills/release.md",
            "--format",
            "sarif",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&prompt).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let results = s["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["ruleId"] == "board-bundle"));
    assert!(results.iter().all(
        |r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "skills/release.md"
    ));
}

#[test]
fn each_file_is_checked_with_its_nearest_configuration() {
    let d = scratch();
    seed_logs(&d.join("logs"), false);
    seed_logs(&d.join("logs/sub"), false);
    std::fs::write(
        d.join("logs/callint.toml"),
        "ignore = [\"long-say\"]\n\n[per-file-ignores]\n\"claude.jsonl\" = [\"board-bundle\"]\n",
    )
    .unwrap();
    std::fs::write(
        d.join("logs/sub/callint.toml"),
        "[rules.label-too-long]\nseverity = \"off\"\n",
    )
    .unwrap();
    let o = callint_in(&d, &["check", "logs", "--format", "json", "--no-merge"]);
    let found = |file: &str, rule: &str| {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["file"] == file && d["rule"] == rule)
    };
    assert!(found("logs/opencode.jsonl", "label-too-long"));
    assert!(!found("logs/claude.jsonl", "long-say"));
    assert!(!found("logs/claude.jsonl", "board-bundle"));
    assert!(found("logs/promo.jsonl", "board-bundle"));
    assert!(!found("logs/sub/opencode.jsonl", "label-too-long"));
    assert!(found("logs/sub/claude.jsonl", "long-say"));
    assert!(found("logs/sub/claude.jsonl", "board-bundle"));

    // What one file is checked with, and where each setting comes from.
    let s = callint_in(
        &d,
        &[
            "check",
            "--show-settings",
            "logs/claude.jsonl",
            "--ignore",
            "slow-ack",
        ],
    );
    assert_eq!(s.status.code(), Some(0), "{}", stderr(&s));
    let text = stdout(&s);
    let row = |rule: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{rule} ")))
            .unwrap_or_else(|| panic!("no row {rule}: {text}"))
            .to_string()
    };
    assert!(text.contains("logs/callint.toml"), "{text}");
    assert!(row("long-say").contains("off"), "{text}");
    assert!(row("long-say").contains("logs/callint.toml"));
    assert!(row("board-bundle").contains("off"));
    assert!(row("slow-ack").contains("command line"));
    assert!(
        row("label-too-long").contains("error") && row("label-too-long").ends_with("# default")
    );
    assert!(text.contains("per-file-ignores: board-bundle"), "{text}");
    let sub = stdout(&callint_in(
        &d,
        &["check", "--show-settings", "logs/sub/claude.jsonl"],
    ));
    assert!(sub.contains("logs/sub/callint.toml"), "{sub}");
    assert!(!sub.contains("per-file-ignores"), "{sub}");

    // An unknown rule in a nested file names that file.
    std::fs::write(
        d.join("logs/sub/callint.toml"),
        "ignore = [\"long-says\"]\n",
    )
    .unwrap();
    let bad = callint_in(&d, &["check", "logs"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("sub/callint.toml"),
        "{}",
        stderr(&bad)
    );
    assert!(stderr(&bad).contains("long-say"), "{}", stderr(&bad));
}

#[test]
fn unchanged_files_come_from_the_cache() {
    let d = scratch();
    seed_logs(&d.join("logs"), false);
    let run = |extra: &[&str]| {
        let mut args = vec!["check", "logs", "--format", "json"];
        args.extend_from_slice(extra);
        let o = callint_in(&d, &args);
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let cold = run(&["--no-cache"]);
    assert!(!d.join(".callint_cache").exists(), "--no-cache writes none");
    let first = run(&[]);
    assert_eq!(first, cold);
    let entries = |dir: &Path| -> usize {
        let stored = walk(dir)
            .into_iter()
            .find(|p| p.file_name().is_some_and(|n| n == "files.json"))
            .expect("the cache's file");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(stored).unwrap()).unwrap();
        v["entries"].as_object().unwrap().len()
    };
    assert_eq!(entries(&d.join(".callint_cache")), 3);
    assert!(std::fs::read_to_string(d.join(".callint_cache/.gitignore"))
        .unwrap()
        .contains('*'));
    // The warm run gives the same document, room pass included.
    assert_eq!(run(&[]), cold);

    // A changed file is linted again; the others stay in the cache.
    let claude = d.join("logs/claude.jsonl");
    let text = std::fs::read_to_string(&claude).unwrap();
    std::fs::write(&claude, text.replace("\"Got it.\"", "\"Understood.\"")).unwrap();
    let changed = run(&[]);
    assert_eq!(changed, run(&["--no-cache"]));
    assert_ne!(changed, cold);
    // The changed file's old entry is gone; a file not checked keeps its.
    assert_eq!(entries(&d.join(".callint_cache")), 3);
    callint_in(&d, &["check", "logs/claude.jsonl"]);
    assert_eq!(entries(&d.join(".callint_cache")), 3);

    // New settings are a new key.
    std::fs::write(d.join("logs/callint.toml"), "ignore = [\"board-bundle\"]\n").unwrap();
    let v = run(&[]);
    assert!(v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["rule"] != "board-bundle"));
    assert_eq!(v, run(&["--no-cache"]));
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
#[cfg(unix)]
fn a_pipe_named_on_the_command_line_is_read_once() {
    let d = scratch();
    let log = std::fs::read_to_string("corpus/seed-incident/opencode.jsonl").unwrap();
    std::fs::write(d.join("log.jsonl"), &log).unwrap();
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "{} check <(cat log.jsonl) --format json",
            env!("CARGO_BIN_EXE_callint")
        ))
        .current_dir(&d)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["summary"]["records"].as_u64().unwrap() > 10, "{v}");
}
