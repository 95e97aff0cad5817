//! The `callint` binary as users and scripts meet it: exit codes, output
//! contracts, configuration, and bad input of every kind.

use crate::common::{callint, callint_in, scratch, stdout};

use std::path::PathBuf;
use std::process::Output;

const BUNDLE: &str = r#"{"ts":"2026-10-10T10:00:00.000Z","agent":"Promo","fn":"status","args":{"emoji":"🛠️","open":["Fix login, update docs and tag release"]}}"#;
const CLEAN: &str = r#"{"ts":"2026-10-10T10:00:01.000Z","agent":"Promo","fn":"status","args":{"emoji":"🛠️","open":["Fix login redirect"]}}"#;
const LONG_LABEL: &str = r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{"call_id":"c1","label":"opencode-session-2026-10-10"},"error":{"status":422,"message":"label longer than 22 characters"}}"#;

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).expect("one JSON document")
}

#[test]
fn exit_codes() {
    let clean = callint(&["check", "corpus/clean-en", "corpus/clean-de"]);
    assert_eq!(clean.status.code(), Some(0), "{}", stdout(&clean));
    assert!(stdout(&clean).contains("All checks passed"));

    let errors = callint(&["check", "corpus/seed-incident"]);
    assert_eq!(errors.status.code(), Some(1));

    let warnings_only = callint(&[
        "check",
        "corpus/seed-incident",
        "--ignore",
        "label-too-long",
    ]);
    assert_eq!(
        warnings_only.status.code(),
        Some(0),
        "warnings alone do not fail"
    );

    let exit_zero = callint(&["check", "corpus/seed-incident", "--exit-zero"]);
    assert_eq!(exit_zero.status.code(), Some(0));

    let missing = callint(&["check", "no/such/path.jsonl"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no/such/path.jsonl"));

    let bad_flag = callint(&["check", "--no-such-flag"]);
    assert_eq!(bad_flag.status.code(), Some(2));

    let typo = callint(&["check", "corpus", "--select", "board-bundles"]);
    assert_eq!(typo.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&typo.stderr).contains("did you mean `board-bundle`"));
}

#[test]
fn json_output_follows_the_contract() {
    let o = callint(&["check", "corpus", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&o);
    assert_eq!(v["version"], 1);
    let diags = v["diagnostics"].as_array().unwrap();
    assert!(!diags.is_empty());
    for d in diags {
        for key in [
            "rule",
            "severity",
            "file",
            "line",
            "column",
            "end_line",
            "end_column",
            "message",
            "agent",
            "help",
        ] {
            assert!(d.get(key).is_some(), "missing {key} in {d}");
        }
        assert!(d["line"].as_u64().unwrap() >= 1);
        assert!(d["column"].as_u64().unwrap() >= 1);
        let (l, c) = (d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap());
        let (el, ec) = (
            d["end_line"].as_u64().unwrap(),
            d["end_column"].as_u64().unwrap(),
        );
        assert!((el, ec) > (l, c), "empty range in {d}");
    }
    // The label-too-long finding underlines the label value itself.
    let label = diags
        .iter()
        .find(|d| {
            d["rule"] == "label-too-long" && d["file"].as_str().unwrap().ends_with("opencode.jsonl")
        })
        .unwrap();
    let text = std::fs::read_to_string("corpus/seed-incident/opencode.jsonl").unwrap();
    let line = text
        .lines()
        .nth(label["line"].as_u64().unwrap() as usize - 1)
        .unwrap();
    let chars: Vec<char> = line.chars().collect();
    let (c, ec) = (
        label["column"].as_u64().unwrap() as usize,
        label["end_column"].as_u64().unwrap() as usize,
    );
    let under: String = chars[c - 1..ec - 1].iter().collect();
    assert_eq!(under, "\"opencode-session-2026-10-10\"");
    assert_eq!(label["agent"], "opencode");

    let files = walk_count("corpus");
    let s = &v["summary"];
    assert_eq!(s["files"].as_u64().unwrap() as usize, files);
    assert_eq!(s["diagnostics"].as_u64().unwrap() as usize, diags.len());
    let by_rule: u64 = s["by_rule"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(by_rule as usize, diags.len());
    assert!(s["records"].as_u64().unwrap() > 100);
}

fn walk_count(dir: &str) -> usize {
    let mut n = 0;
    let mut stack = vec![PathBuf::from(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if callint::app::walk::is_log(&p) {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn a_broken_line_in_the_middle_keeps_the_rest() {
    let dir = scratch();
    let body = format!(
        "{BUNDLE}\n{{\"fn\":\"say\",\"args\":{{\"text\":\"cut\n{BUNDLE}\n{CLEAN}\n{LONG_LABEL}\n"
    );
    std::fs::write(dir.join("call.jsonl"), body).unwrap();
    let o = callint_in(&dir, &["check", "call.jsonl", "--format", "concise"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("call.jsonl:2:"), "{out}");
    assert!(
        out.contains("error[invalid-record] this record is cut off"),
        "{out}"
    );
    assert!(
        out.contains("call.jsonl:1:") && out.contains("warning[board-bundle]"),
        "{out}"
    );
    assert!(
        out.contains("call.jsonl:5:") && out.contains("error[label-too-long]"),
        "{out}"
    );
    // The same bundle on line 3 is the same item: reported once.
    assert!(!out.contains("call.jsonl:3:"), "{out}");
}

#[test]
fn hostile_input_never_breaks_the_linter() {
    let dir = scratch();
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty.jsonl", Vec::new()),
        ("nul.jsonl", b"\0\0\0\n{\"fn\":\"leave\"}\n\0".to_vec()),
        ("utf8.jsonl", [b"{\"fn\":\"say\",\"args\":{\"text\":\"\xff\xfe\"}}\n".as_slice(), LONG_LABEL.as_bytes()].concat()),
        ("deep.jsonl", [b"[".repeat(200_000), b"\n".to_vec(), LONG_LABEL.as_bytes().to_vec()].concat()),
        ("deepobj.jsonl", "{\"a\":".repeat(100_000).into_bytes()),
        ("types.jsonl", b"{\"fn\":7}\n{\"chat\":[]}\n{\"fn\":\"status\",\"args\":{\"open\":{\"a\":1},\"emoji\":5}}\n{\"fn\":\"next\",\"result\":{\"type\":\"user\",\"operators_said\":[1,\"x\",{\"text\":3}]}}\n[1,2]\n\"str\"\n{\"ts\":\"yesterday\",\"fn\":\"leave\"}\n{}\n".to_vec()),
        ("random.jsonl", (0..20_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect()),
        ("crlf.jsonl", format!("{BUNDLE}\r\n{CLEAN}\r\n").into_bytes()),
    ];
    let huge_text = "x".repeat(30 * 1024 * 1024);
    cases.push((
        "huge.jsonl",
        format!("{{\"fn\":\"say\",\"args\":{{\"text\":\"{huge_text}\"}}}}\n{BUNDLE}\n")
            .into_bytes(),
    ));
    for (name, bytes) in &cases {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    for (name, _) in &cases {
        for format in ["pretty", "concise", "json"] {
            let o = callint_in(
                &dir,
                &["check", name, "--format", format, "--color", "never"],
            );
            let code = o.status.code();
            assert!(
                code == Some(0) || code == Some(1),
                "{name} --format {format}: exit {code:?}\n{}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(
                o.stderr.is_empty(),
                "{name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            if format == "json" {
                json(&o);
            }
        }
    }
    // The line after the broken one is still linted.
    for name in ["utf8.jsonl", "deep.jsonl"] {
        let o = callint_in(&dir, &["check", name, "--format", "concise"]);
        let out = stdout(&o);
        assert!(
            out.contains(":1:") && out.contains("invalid-record"),
            "{name}: {out}"
        );
        assert!(
            out.contains(":2:") && out.contains("label-too-long"),
            "{name}: {out}"
        );
    }
    let o = callint_in(
        &dir,
        &[
            "check",
            "huge.jsonl",
            "--format",
            "pretty",
            "--color",
            "never",
        ],
    );
    let out = stdout(&o);
    assert!(
        out.contains("board-bundle"),
        "{}",
        &out[..out.len().min(2000)]
    );
    assert!(out.len() < 20_000, "a 30 MB line is not printed whole");
    let o = callint_in(&dir, &["check", "types.jsonl", "--format", "json"]);
    let v = json(&o);
    let lines: Vec<u64> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["line"].as_u64().unwrap())
        .collect();
    for l in 1..=8 {
        assert!(
            lines.contains(&l),
            "no finding on line {l} of types.jsonl: {lines:?}"
        );
    }
}

#[test]
fn escape_sequences_from_logs_never_reach_the_terminal() {
    let dir = scratch();
    // An escape inside a JSON string (decoded into the message) and a raw one
    // (which makes the line invalid JSON and is shown in the source line).
    let decoded = r#"{"fn":"status","args":{"emoji":"🛠️","open":["6 decisions \u001b]0;pwned\u0007\u001b[2J\u009b"]}}"#;
    let raw = "{\"fn\":\"say\",\"args\":{\"text\":\"\x1b[2Jred\x1b]8;;x\x07\u{202e}\"}}";
    std::fs::write(dir.join("esc.jsonl"), format!("{decoded}\n{raw}\n")).unwrap();
    for format in ["pretty", "concise"] {
        for color in ["never", "always"] {
            let o = callint_in(
                &dir,
                &["check", "esc.jsonl", "--format", format, "--color", color],
            );
            let out = stdout(&o);
            assert!(
                out.contains("board-bundle") && out.contains("invalid-record"),
                "{out}"
            );
            assert!(
                !out.contains('\u{7}') && !out.contains('\u{9b}') && !out.contains('\u{202e}'),
                "{out:?}"
            );
            assert!(
                !out.contains("\u{1b}]") && !out.contains("\u{1b}[2J"),
                "{out:?}"
            );
            assert!(out.contains("\\e]0;pwned"), "escaped form shown: {out}");
            if color == "never" {
                assert!(!out.contains('\u{1b}'), "{out:?}");
            }
        }
    }
}

#[test]
fn pretty_output_underlines_the_value() {
    let o = callint(&[
        "check",
        "corpus/board-mistakes/release-notes.jsonl",
        "--format",
        "pretty",
        "--color",
        "never",
    ]);
    let out = stdout(&o);
    assert!(out.contains("release-notes.jsonl:2:"), "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with(" 2 │"))
        .expect("source line shown");
    let under = out.lines().skip_while(|l| *l != line).nth(1).unwrap();
    let col = line.find("\"release-notes-assistant\"").unwrap();
    let start = under.find('─').unwrap();
    assert_eq!(
        line[..col].chars().count(),
        under[..start].chars().count(),
        "\n{line}\n{under}"
    );
    assert!(out.contains("help:"));
    let colored = callint(&[
        "check",
        "corpus/board-mistakes/release-notes.jsonl",
        "--format",
        "pretty",
        "--color",
        "always",
    ]);
    assert!(stdout(&colored).contains('\u{1b}'), "colour when asked for");
}

#[test]
fn configuration_is_found_walking_up() {
    let dir = scratch();
    std::fs::create_dir_all(dir.join("logs/deep")).unwrap();
    std::fs::write(
        dir.join("logs/deep/call.jsonl"),
        format!("{BUNDLE}\n{LONG_LABEL}\n"),
    )
    .unwrap();
    let run = |args: &[&str]| {
        let mut a = vec!["check", "logs/deep/call.jsonl", "--format", "concise"];
        a.extend_from_slice(args);
        stdout(&callint_in(&dir, &a))
    };
    assert!(run(&[]).contains("board-bundle"));

    std::fs::write(dir.join("callint.toml"), "[rules.board-bundle]\nseverity = \"off\"\n[rules.label-too-long]\nseverity = \"warning\"\nmax-chars = 30\n").unwrap();
    let out = run(&[]);
    assert!(!out.contains("board-bundle"), "{out}");
    // 27 characters are within 30, but the server refused it: still reported, as a warning.
    assert!(out.contains("warning[label-too-long]"), "{out}");
    assert!(run(&["--no-config"]).contains("board-bundle"));

    std::fs::write(
        dir.join("logs/callint.toml"),
        "ignore = [\"label-too-long\"]\n",
    )
    .unwrap();
    let out = run(&[]);
    assert!(
        out.contains("board-bundle") && !out.contains("label-too-long"),
        "nearest file wins: {out}"
    );
    assert!(run(&["--select", "label-too-long"]).contains("All checks passed"));
    // A bare file name, from its own folder: the folders above count too.
    let out = stdout(&callint_in(
        &dir.join("logs/deep"),
        &["check", "call.jsonl", "--format", "concise"],
    ));
    assert!(
        out.contains("board-bundle") && !out.contains("label-too-long"),
        "from the file's folder: {out}"
    );

    for (bad, says) in [
        ("[rules.board-bundel]\n", "did you mean `board-bundle`"),
        (
            "[rules.label-too-long]\nmax-char = 3\n",
            "has no option `max-char`",
        ),
        (
            "[rules.label-too-long]\nmax-chars = \"x\"\n",
            "must be a whole number",
        ),
        ("[rules.long-label]\nseverity = \"loud\"\n", "unknown rule"),
        ("selekt = []\n", "unknown field"),
        (
            "[rules.board-bundle]\nseverity = \"loud\"\n",
            "severity must be",
        ),
    ] {
        std::fs::write(dir.join("logs/callint.toml"), bad).unwrap();
        let o = callint_in(&dir, &["check", "logs/deep/call.jsonl"]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{bad}: {err}");
    }
}

#[test]
fn rules_and_explain() {
    let o = callint(&["rules"]);
    let out = stdout(&o);
    for name in [
        "board-bundle",
        "board-missing-emoji",
        "question-on-board",
        "decision-not-yes-no",
        "label-too-long",
        "invalid-record",
    ] {
        assert!(out.contains(name), "{name} listed");
    }
    let v: serde_json::Value =
        serde_json::from_slice(&callint(&["rules", "--format", "json"]).stdout).unwrap();
    let ltl = v
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "label-too-long")
        .unwrap();
    assert_eq!(ltl["default_severity"], "error");
    assert_eq!(ltl["options"][0]["name"], "max-chars");
    assert_eq!(ltl["scope"], "own");
    let sod = v
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "spoke-over-delta")
        .unwrap();
    assert_eq!(sod["scope"], "room");
    assert!(out
        .lines()
        .any(|l| l.starts_with("spoke-over-delta") && l.contains(" room ")));

    let page = stdout(&callint(&["explain", "board-bundle"]));
    assert!(page.starts_with("# board-bundle") && page.contains("**Bad**"));
    let o = callint(&["explain", "board-bundel"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("board-bundle"));
}

#[test]
fn statistics_count_per_rule_and_agent() {
    let out = stdout(&callint(&["check", "corpus", "--statistics"]));
    let v = json(&callint(&["check", "corpus", "--format", "json"]));
    let expected = v["summary"]["by_rule"]["board-bundle"].as_u64().unwrap();
    assert!(expected >= 6);
    let bundle = out.lines().find(|l| l.contains("board-bundle")).unwrap();
    assert_eq!(
        bundle.split_whitespace().next(),
        Some(expected.to_string().as_str()),
        "{out}"
    );
    assert!(
        out.contains("by agent:") && out.contains("opencode"),
        "{out}"
    );
}

#[test]
fn addressing_command() {
    let who = |text: &str| {
        stdout(&callint(&[
            "addressing",
            text,
            "--labels",
            "opencode,Promo,Claude",
            "--human",
            "Oliver",
        ]))
    };
    assert_eq!(who("Promo, is the build green?"), "Promo\n");
    assert_eq!(who("Data, please keep me posted."), "Delta\n");
    assert_eq!(who("Can you check the logs?"), "nobody\n");
}

/// The halves of a `tee` capture: paired by name in a folder, or as named
/// with `--input-format tee`; unpaired, the output half alone shows
/// nothing of the calls.
#[test]
fn tee_halves_are_paired() {
    let dir = scratch();
    let case = crate::common::root().join("corpus/seed-incident-tee");
    std::fs::copy(case.join("promo.in.jsonl"), dir.join("stdin")).unwrap();
    std::fs::copy(case.join("promo.out.jsonl"), dir.join("stdout")).unwrap();
    std::fs::copy(case.join("claude.out.jsonl"), dir.join("a.jsonl")).unwrap();
    std::fs::copy(case.join("claude.in.jsonl"), dir.join("b.jsonl")).unwrap();
    let rules = |o: &Output| -> Vec<(String, String)> {
        json(o)["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let file = d["file"].as_str().unwrap();
                let name = file.rsplit(['/', '\\']).next().unwrap().to_string();
                (name, d["rule"].as_str().unwrap().to_string())
            })
            .collect()
    };
    let o = crate::common::callint_in(
        &dir,
        &[
            "check",
            "--no-config",
            "--format",
            "json",
            "stdin",
            "stdout",
        ],
    );
    let found = rules(&o);
    assert!(
        found.contains(&("stdin".into(), "missed-line".into())),
        "{found:?}"
    );
    assert!(
        found.contains(&("stdin".into(), "board-bundle".into())),
        "{found:?}"
    );
    assert!(!found.iter().any(|f| f.1 == "invalid-record"), "{found:?}");
    let walked =
        crate::common::callint_in(&dir, &["check", "--no-config", "--format", "json", "."]);
    assert_eq!(json(&walked)["summary"]["files"], 4);
    assert!(rules(&walked).contains(&("stdin".into(), "missed-line".into())));
    // named together, halves told apart by content (the output first here)
    let args = ["check", "--no-config", "--format", "json"];
    let paired = crate::common::callint_in(
        &dir,
        &[&args[..], &["--input-format", "tee", "a.jsonl", "b.jsonl"]].concat(),
    );
    let alone = crate::common::callint_in(&dir, &[&args[..], &["a.jsonl", "b.jsonl"]].concat());
    let (p, a) = (rules(&paired), rules(&alone));
    assert!(
        p.contains(&("b.jsonl".into(), "spoke-for-addressed".into())),
        "{p:?}"
    );
    assert!(p.len() > a.len(), "paired {p:?}, alone {a:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_docs_say_what_the_tool_does() {
    let root = crate::common::root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    // README and the reference in docs/, as one text.
    let mut docs = readme.clone();
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            docs.push_str(&std::fs::read_to_string(p).unwrap());
        }
    }
    // The catalogue page is what the rules declare, as `callint rules`
    // writes it.
    let o = callint(&["rules", "--format", "json"]);
    let rules: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rules.len(), callint::rules::catalogue().len());
    let page = std::fs::read_to_string(root.join("docs/rules.md")).unwrap();
    assert_eq!(
        page,
        stdout(&callint(&["rules", "--format", "markdown"])),
        "docs/rules.md is not what `callint rules --format markdown` writes"
    );
    for r in &rules {
        let name = r["name"].as_str().unwrap();
        let row = format!("| `{name}` | {} |", r["seed"].as_str().unwrap());
        assert!(page.contains(&row), "no row {row} in docs/rules.md");
    }
    // Every ending a folder walk reads is named in the README and in
    // `check --help`.
    let help = stdout(&callint(&["check", "--help"]));
    for ext in callint::app::walk::LOG_EXTENSIONS {
        let e = format!("`.{ext}`");
        assert!(docs.contains(&e), "the docs do not name {e}");
        assert!(
            help.contains(&format!(".{ext}")),
            "check --help does not name .{ext}"
        );
    }
    assert!(readme.contains("cargo install --path . --locked"));
    assert!(!readme.contains("rev: <tag>"));
    // The rules table lines up and says what its SEED column is.
    let table = stdout(&callint(&["rules"]));
    let at = |line: &str| {
        line.find("warning")
            .or_else(|| line.find("error"))
            .or_else(|| line.find("info"))
    };
    let columns: Vec<usize> = table
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(at)
        .collect();
    assert_eq!(columns.len(), rules.len());
    assert!(columns.windows(2).all(|w| w[0] == w[1]), "{table}");
    assert!(table.contains("\nseed: "), "{table}");
}
