//! The inputs other than native logs: MCP traces, transcripts, boards,
//! prompts and helper code.
//!
//! - the seed incident as native logs, as MCP traces and as a transcript
//!   gives the same findings, for every rule each format can show;
//! - the corpus cases of these formats match their `expected.tsv` (listed
//!   here by every file of the case, as `tests/corpus.rs` lists only logs);
//! - findings point at the right bytes of a markdown prompt, a transcript
//!   line and an MCP request;
//! - no input, however broken, makes a reader panic.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use callint::config::Config;
use callint::engine::{FileResult, Linter};
use callint::input::{self, CodeLang, Format};
use callint::report::{resolve, LineIndex};

fn case_files(case: &str) -> Vec<PathBuf> {
    let dir = common::root().join("corpus").join(case);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && !p.ends_with("expected.tsv"))
        .collect();
    v.sort();
    v
}

fn lint(path: &Path) -> FileResult {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    common::lint(&name, &std::fs::read(path).unwrap(), &[])
}

fn lint_as(name: &str, bytes: &[u8], format: Format) -> FileResult {
    let linter = Linter::new(&Config::default(), None, &[]).unwrap();
    linter.lint_as(name, bytes.to_vec(), format)
}

/// The text a finding points at: a JSON string decoded, a record-level
/// anchor (an object) as nothing.
fn subject(f: &FileResult, d: &callint::diagnostic::Diagnostic) -> String {
    let idx = LineIndex::new(&f.source);
    let at = resolve(&f.source, &idx, &d.primary.at);
    let raw = String::from_utf8_lossy(&f.source[at.span.start..at.span.end]).to_string();
    if raw.starts_with('"') {
        serde_json::from_str::<String>(&raw).unwrap_or(raw)
    } else if raw.starts_with('{') || raw.starts_with('[') {
        String::new()
    } else {
        raw
    }
}

/// A finding as the same mistake shows in any format: the agent, the rule,
/// the message and the text it points at.
type Same = (String, String, String, String);

fn findings(case: &str) -> BTreeSet<Same> {
    let mut out = BTreeSet::new();
    for p in case_files(case) {
        let f = lint(&p);
        for d in &f.diagnostics {
            out.insert((
                d.agent.clone().unwrap_or_default(),
                d.rule.to_string(),
                d.message.clone(),
                subject(&f, d),
            ));
        }
    }
    out
}

#[test]
fn the_seed_incident_agrees_in_all_three_shapes() {
    let native = findings("seed-incident");
    assert!(native.len() >= 20, "{native:#?}");
    let mut table: BTreeMap<String, [usize; 3]> = BTreeMap::new();
    for n in &native {
        table.entry(n.1.clone()).or_default()[0] += 1;
    }
    for (k, (case, format)) in [
        ("seed-incident-mcp", Format::Mcp),
        ("seed-incident-transcript", Format::Transcript),
    ]
    .into_iter()
    .enumerate()
    {
        let got = findings(case);
        for g in &got {
            table.entry(g.1.clone()).or_default()[k + 1] += 1;
            assert!(
                format.shows(&g.1),
                "{case}: {} is listed as a rule {} cannot show, yet it fired",
                g.1,
                format.name()
            );
        }
        let want: BTreeSet<Same> = native
            .iter()
            .filter(|n| format.shows(&n.1))
            .cloned()
            .collect();
        let missed: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        assert!(
            missed.is_empty() && extra.is_empty(),
            "{case} disagrees with the native logs:\nmissed: {missed:#?}\nextra: {extra:#?}"
        );
        // Every rule the native logs show is shown, or said not to be.
        let shown: BTreeSet<&str> = native.iter().map(|n| n.1.as_str()).collect();
        let not: Vec<&&str> = shown.iter().filter(|r| !format.shows(r)).collect();
        println!("{case}: not shown by {}: {not:?}", format.name());
    }
    println!(
        "{:<28} {:>7} {:>5} {:>11}",
        "rule", "native", "mcp", "transcript"
    );
    for (rule, [a, b, c]) in &table {
        println!("{rule:<28} {a:>7} {b:>5} {c:>11}");
    }
}

/// `file, line, rule` of every finding of a case.
fn actual(case: &str) -> BTreeSet<(String, usize, String)> {
    let mut out = BTreeSet::new();
    for p in case_files(case) {
        let f = lint(&p);
        let file = p.file_name().unwrap().to_string_lossy().to_string();
        for (line, rule) in common::lines_and_rules(&f) {
            out.insert((file.clone(), line, rule));
        }
    }
    out
}

#[test]
fn the_new_cases_match_their_annotations() {
    for case in ["seed-incident-mcp", "seed-incident-transcript", "prompts"] {
        let want: BTreeSet<(String, usize, String)> =
            common::expected(&common::root().join("corpus").join(case))
                .into_iter()
                .collect();
        let got = actual(case);
        let missed: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        assert!(
            missed.is_empty() && extra.is_empty(),
            "{case}: missed {missed:#?}\nfalse alarms {extra:#?}"
        );
    }
}

#[test]
fn every_file_is_read_in_the_format_it_is() {
    let want = [
        ("seed-incident-mcp", Format::Mcp),
        ("seed-incident-transcript", Format::Transcript),
    ];
    for (case, format) in want {
        for p in case_files(case) {
            let bytes = std::fs::read(&p).unwrap();
            assert_eq!(
                input::detect(&p.to_string_lossy(), &bytes),
                format,
                "{}",
                p.display()
            );
            // from standard input, by content alone
            assert_eq!(
                input::detect("-", &bytes),
                format,
                "{} from stdin",
                p.display()
            );
        }
    }
    let prompts = common::root().join("corpus/prompts");
    let formats: Vec<(&str, Format)> = vec![
        ("bad-prompt.md", Format::Prompt),
        ("good-prompt.md", Format::Prompt),
        ("poll_bad.py", Format::Code(CodeLang::Python)),
        ("poll_bad.sh", Format::Code(CodeLang::Shell)),
        ("poll_good.ts", Format::Code(CodeLang::JavaScript)),
        ("release-boards.json", Format::Board),
    ];
    for (name, format) in formats {
        let bytes = std::fs::read(prompts.join(name)).unwrap();
        assert_eq!(input::detect(name, &bytes), format, "{name}");
    }
    for p in case_files("seed-incident") {
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(input::detect("-", &bytes), Format::Native);
    }
    // by content, the extension notwithstanding
    let trace = std::fs::read(common::root().join("corpus/seed-incident-mcp/promo.jsonl")).unwrap();
    assert_eq!(input::detect("trace.log", &trace), Format::Mcp);
    assert_eq!(input::detect("trace.json", &trace), Format::Mcp);
    let tr = std::fs::read(common::root().join("corpus/seed-incident-transcript/transcript.txt"))
        .unwrap();
    assert_eq!(input::detect("call.log", &tr), Format::Transcript);
}

#[test]
fn a_file_that_is_none_of_them_gets_one_clear_diagnostic() {
    for (name, bytes) in [
        ("-", &b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"[..]),
        ("notes", b"some words without any structure"),
        ("image.png", b"\xff\xd8\xff\xe0"),
    ] {
        let f = common::lint(name, bytes, &[]);
        assert_eq!(f.diagnostics.len(), 1, "{name}: {:#?}", f.diagnostics);
        let d = &f.diagnostics[0];
        assert_eq!(d.rule, "invalid-record");
        assert!(d.message.contains("callint"), "{}", d.message);
        assert!(d.help.as_deref().unwrap().contains("--input-format"));
    }
}

#[test]
fn a_forced_format_is_used_whatever_the_name() {
    let tr = std::fs::read(common::root().join("corpus/seed-incident-transcript/transcript.txt"))
        .unwrap();
    let f = lint_as("-", &tr, Format::from_name("transcript").unwrap());
    assert!(f.diagnostics.iter().any(|d| d.rule == "spoke-over-delta"));
    // read as a native log, every line of a transcript is broken
    let f = lint_as("-", &tr, Format::from_name("native").unwrap());
    assert!(f.diagnostics.iter().all(|d| d.rule == "invalid-record"));
    assert!(f.diagnostics.len() > 40);
}

#[test]
fn prompt_findings_underline_the_value_in_the_markdown() {
    let f = lint(&common::root().join("corpus/prompts/bad-prompt.md"));
    let idx = LineIndex::new(&f.source);
    let src = String::from_utf8(f.source.clone()).unwrap();
    let at = |rule: &str| {
        let d = f.diagnostics.iter().find(|d| d.rule == rule).unwrap();
        let l = resolve(&f.source, &idx, &d.primary.at);
        (&src[l.span.start..l.span.end], l.line, l.column)
    };
    assert_eq!(
        at("label-too-long"),
        ("\"release-agent-for-oliver-v2\"", 8, 12)
    );
    assert_eq!(
        at("board-bundle"),
        ("\"Fix login, update docs and tag release\"", 19, 5)
    );
    assert_eq!(
        at("decision-not-yes-no"),
        ("\"What should the release notes say?\"", 29, 14)
    );
    assert_eq!(
        at("timeout-events-dropped"),
        ("if ev[\"type\"] == \"timeout\":", 46, 5)
    );
}

#[test]
fn an_example_log_in_a_skill_is_checked_as_a_log() {
    let md = "# Creating a call\n\n```jsonl\n{\"fn\":\"create_call\",\"args\":{\"lang\":\"en\"},\"result\":{\"call_id\":\"c-1\",\"link\":\"https://voicehook.ai/c/abc\",\"share_text\":\"Join the call: https://voicehook.ai/c/abc\"}}\n{\"chat\":\"assistant\",\"text\":\"Join the call: https://voicehook.ai/c/abc\\nI will join it now.\",\"turn_end\":true}\n```\n\nThe helper it runs:\n\n```jsonl\n{\"tool\":\"shell\",\"args\":{\"command\":\"voicehook next --json | jq 'select(.type != \\\"timeout\\\")'\"}}\n```\n";
    let f = common::lint("SKILL.md", md.as_bytes(), &[]);
    let got: Vec<(usize, String)> = common::lines_and_rules(&f);
    assert_eq!(
        got,
        [
            (5, "link-not-last".to_string()),
            (11, "timeout-events-dropped".to_string())
        ],
        "{:#?}",
        f.diagnostics
    );
}

#[test]
fn transcript_and_mcp_findings_point_at_their_lines() {
    let f = lint(&common::root().join("corpus/seed-incident-transcript/transcript.txt"));
    let idx = LineIndex::new(&f.source);
    let d = f
        .diagnostics
        .iter()
        .find(|d| d.rule == "spoke-over-delta")
        .unwrap();
    let l = resolve(&f.source, &idx, &d.primary.at);
    let src = String::from_utf8_lossy(&f.source);
    assert!(src[l.span.start..l.span.end].starts_with("Sure, here is the status"));
    assert_eq!((l.line, l.column), (45, 22));
    // the line it was said against, as a second label: Oliver's "Data, ..."
    let o = resolve(&f.source, &idx, &d.labels[0].at);
    assert_eq!(
        &src[o.span.start..o.span.end],
        "Data, please keep me posted from board and activity."
    );

    let f = lint(&common::root().join("corpus/seed-incident-mcp/promo.jsonl"));
    let idx = LineIndex::new(&f.source);
    let d = f
        .diagnostics
        .iter()
        .find(|d| d.rule == "missed-line")
        .unwrap();
    let l = resolve(&f.source, &idx, &d.primary.at);
    let src = String::from_utf8_lossy(&f.source);
    assert_eq!(
        &src[l.span.start..l.span.end],
        "\"opencode, your question did not reach me, could you repeat it?\""
    );
    // the lines it had received are on the response lines of `next` calls
    for label in &d.labels {
        let o = resolve(&f.source, &idx, &label.at);
        let line = src.lines().nth(o.line - 1).unwrap();
        assert!(line.contains("\"recv\""), "{line}");
    }
}

#[test]
fn every_agent_of_a_transcript_is_checked() {
    let t = "# lang: en\n# human: Oliver\n# agents: Kit, Bolt\n[10:00:00] Kit: Hi, this is Kit, I'm in and listening.\n[10:00:01] Bolt: Hi, this is Bolt, I'm in and listening.\n[10:00:05] Oliver: Kit, is the build green?\n[10:00:06] Kit: On it, one moment.\n[10:00:07] Bolt: Yes, the build is green.\n[10:00:20] Oliver: Delta, what is on the boards?\n[10:00:21] Kit: Kit is checking the build.\n";
    let f = common::lint("call.txt", t.as_bytes(), &[]);
    let got: BTreeSet<(String, &str)> = f
        .diagnostics
        .iter()
        .map(|d| (d.agent.clone().unwrap_or_default(), d.rule))
        .collect();
    assert!(
        got.contains(&("Bolt".to_string(), "spoke-for-addressed")),
        "{got:?}"
    );
    assert!(
        got.contains(&("Kit".to_string(), "spoke-over-delta")),
        "{got:?}"
    );
    // addressed by name, Kit's acknowledgement is right
    assert!(!got
        .iter()
        .any(|(a, r)| a == "Kit" && *r == "ack-not-addressed"));
}

#[test]
fn a_later_lang_header_switches_the_call_language() {
    let t = "# lang: en\n# human: Oliver\n# agents: Kit\n[10:00:00] Kit: Hi, this is Kit, I'm in and listening.\n# lang: de\n[10:01:00] Oliver: Kit, wie ist der Stand beim Build?\n[10:01:02] Kit: Der Build ist grün, alles bereit.\n[10:01:10] Kit: The release is ready to be tagged now.\n";
    let f = common::lint("call.txt", t.as_bytes(), &["wrong-language"]);
    let lines: Vec<usize> = common::lines_and_rules(&f)
        .into_iter()
        .map(|(l, _)| l)
        .collect();
    assert_eq!(lines, [8], "{:#?}", f.diagnostics);
}

#[test]
fn the_rule_page_examples_in_helper_files_hold() {
    let page = callint::rules::page("timeout-events-dropped").unwrap();
    let mut checked = 0;
    let mut lines = page.lines();
    let mut kind: Option<bool> = None;
    while let Some(l) = lines.next() {
        if l.starts_with("Bad, ") {
            kind = Some(false);
        } else if l.starts_with("Good, ") {
            kind = Some(true);
        } else if let (Some(tag), Some(good)) = (l.strip_prefix("```"), kind) {
            let lang = CodeLang::from_tag(tag.trim()).expect("a code block");
            let body: String = lines
                .by_ref()
                .take_while(|l| !l.starts_with("```"))
                .map(|l| format!("{l}\n"))
                .collect();
            let f = lint_as("example", body.as_bytes(), Format::Code(lang));
            let fired = f
                .diagnostics
                .iter()
                .any(|d| d.rule == "timeout-events-dropped");
            assert_eq!(
                fired,
                !good,
                "{}:\n{body}\n{:#?}",
                if good { "Good" } else { "Bad" },
                f.diagnostics
            );
            assert!(good || f.diagnostics.len() == 1);
            kind = None;
            checked += 1;
        }
    }
    assert_eq!(checked, 6);
}

#[test]
fn the_formats_name_only_real_rules() {
    let names: BTreeSet<&str> = callint::rules::catalogue().iter().map(|m| m.name).collect();
    for n in Format::NAMES {
        let f = Format::from_name(n).unwrap();
        for r in f.cannot_show() {
            assert!(names.contains(r), "{n}: {r}");
        }
        assert!(f.shows("invalid-record"));
    }
}

/// Inputs no reader may panic on, in every format.
fn hostile() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"\n\r\n\n".to_vec(),
        b"\xff\xfe\xfd".to_vec(),
        b"\0\0\0\0".to_vec(),
        b"{".to_vec(),
        b"}".to_vec(),
        b"[".to_vec(),
        b"```".to_vec(),
        b"```json\n".to_vec(),
        b"# lang: \n# agents: ,\n[::] : \n".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"text\":\"{\"}]}}".to_vec(),
        "[10:00:00] 🧩 opencode: \u{1b}[31mred\u{1b}[0m \u{202e}rtl"
            .as_bytes()
            .to_vec(),
        b"\"timeout\" == type: continue\n".to_vec(),
    ];
    v.push("[".repeat(200_000).into_bytes());
    v.push("{\"a\":".repeat(50_000).into_bytes());
    v.push(format!("```json\n{}\n```\n", "[".repeat(100_000)).into_bytes());
    v.push(format!("{{\"message\":{}}}", "[".repeat(100_000)).into_bytes());
    v.push(format!("[10:00:00] A: {}\n", "x".repeat(2_000_000)).into_bytes());
    v.push(
        format!(
            "```python\n{}\n```\n",
            "if ev['type'] == 'timeout': continue\n".repeat(5_000)
        )
        .into_bytes(),
    );
    v.push(
        (0..3000)
            .map(|i| format!("S{i}: hi S{}\n", i + 1))
            .collect::<String>()
            .into_bytes(),
    );
    // the corpus files, cut at every 997th byte
    for case in ["seed-incident-mcp", "seed-incident-transcript", "prompts"] {
        for p in case_files(case) {
            let b = std::fs::read(p).unwrap();
            for cut in (0..b.len()).step_by(997) {
                v.push(b[..cut].to_vec());
            }
        }
    }
    v
}

#[test]
fn no_input_makes_a_reader_panic() {
    let formats: Vec<Format> = Format::NAMES
        .iter()
        .map(|n| Format::from_name(n).unwrap())
        .chain([Format::Unknown])
        .collect();
    let linter = Linter::new(&Config::default(), None, &[]).unwrap();
    for bytes in hostile() {
        for f in &formats {
            let t = std::time::Instant::now();
            let r = linter.lint_as("x", bytes.clone(), *f);
            let took = t.elapsed();
            if took.as_secs() >= 2 {
                eprintln!("slow: {f:?} {} bytes {took:?}", bytes.len());
            }
            // every finding points inside the file
            for d in &r.diagnostics {
                assert!(d.primary.at.span.end <= bytes.len(), "{f:?}: {d:?}");
            }
        }
        let _ = linter.lint("-", bytes.clone());
    }
}

/// What `check --format json` finds in `file`: rule, line, column (lines
/// after the first; the mark is a character of the first) and message.
fn findings_of(file: &std::path::Path) -> Vec<(String, u64, u64, String)> {
    let o = crate::common::callint(&["check", "--format", "json", file.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let line = d["line"].as_u64().unwrap();
            let col = if line == 1 {
                0
            } else {
                d["column"].as_u64().unwrap()
            };
            (
                d["rule"].as_str().unwrap().to_string(),
                line,
                col,
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_byte_order_mark_loses_nothing_in_any_reader() {
    let dir = crate::common::scratch();
    let big = {
        // Larger than the part that tells the format: read a block at a time.
        let mut b =
            std::fs::read(crate::common::root().join("corpus/seed-incident/claude.jsonl")).unwrap();
        b.extend(std::iter::repeat_n(b'\n', 100_000));
        b
    };
    let cases: Vec<(&str, Vec<u8>)> = [
        "corpus/seed-incident/claude.jsonl",
        "corpus/seed-incident-mcp/claude.jsonl",
        "corpus/seed-incident-transcript/transcript.txt",
        "corpus/prompts/release-boards.json",
        "corpus/prompts/bad-prompt.md",
    ]
    .iter()
    .map(|f| {
        let name = std::path::Path::new(f)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        (name, std::fs::read(crate::common::root().join(f)).unwrap())
    })
    .chain([("big.jsonl", big)])
    .collect();
    for (name, bytes) in cases {
        let plain = dir.join(format!("plain-{name}"));
        let marked = dir.join(format!("bom-{name}"));
        std::fs::write(&plain, &bytes).unwrap();
        let mut with = b"\xef\xbb\xbf".to_vec();
        with.extend_from_slice(&bytes);
        std::fs::write(&marked, with).unwrap();
        let expected = findings_of(&plain);
        assert!(!expected.is_empty(), "{name}: the case shows no finding");
        assert_eq!(findings_of(&marked), expected, "{name}");
    }
}
