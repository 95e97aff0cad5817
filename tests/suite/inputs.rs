//! The inputs other than native logs: MCP traces, transcripts, agent
//! clients' session files, boards, prompts and helper code.
//!
//! - the seed incident as native logs, as MCP traces, as a transcript, as
//!   Codex CLI rollouts and as opencode exports gives the same findings,
//!   for every rule each format can show;
//! - the corpus cases of these formats match their `expected.tsv` (listed
//!   here by every file of the case, as `tests/corpus.rs` lists only logs);
//! - findings point at the right bytes of a markdown prompt, a transcript
//!   line and an MCP request;
//! - no input, however broken, makes a reader panic.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use callint::input::{self, Client, CodeLang, Format, Recorder};
use callint::lint::config::Config;
use callint::lint::engine::{FileResult, Linter};
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
fn subject(f: &FileResult, d: &callint::core::diagnostic::Diagnostic) -> String {
    let idx = LineIndex::new(&f.source);
    let at = resolve(&f.source, &idx, &d.primary.at);
    let raw = String::from_utf8_lossy(&f.source[at.span.start..at.span.end]).to_string();
    let text = if raw.starts_with('"') {
        serde_json::from_str::<String>(&raw).unwrap_or(raw)
    } else {
        raw
    };
    // An object or a list, also as the JSON text a string holds (a whole
    // message the Inspector keeps in a string): no text of its own.
    if text.starts_with('{') || text.starts_with('[') {
        String::new()
    } else {
        text
    }
}

/// A finding as the same mistake shows in any format: the agent, the rule,
/// the message and the text it points at.
type Same = (String, String, String, String);

/// Every file of a case linted on its own, but the two halves of a `tee`
/// capture, linted together.
fn lint_case(case: &str) -> Vec<FileResult> {
    let files: Vec<(String, Vec<u8>)> = case_files(case)
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name, std::fs::read(p).unwrap())
        })
        .collect();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let pairs = input::tee::pairs(&names);
    let linter = Linter::new(&Config::default(), None, &[]).unwrap();
    let mut out = Vec::new();
    for (k, (name, bytes)) in files.iter().enumerate() {
        if let Some(&(i, o)) = pairs.iter().find(|&&(i, _)| i == k) {
            let (a, b) = linter.lint_pair(
                (&files[i].0, files[i].1.clone()),
                (&files[o].0, files[o].1.clone()),
            );
            out.push(a);
            out.push(b);
        } else if !pairs.iter().any(|&(_, o)| o == k) {
            out.push(common::lint(name, bytes, &[]));
        }
    }
    out
}

fn findings(case: &str) -> BTreeSet<Same> {
    let mut out = BTreeSet::new();
    for f in lint_case(case) {
        for d in &f.diagnostics {
            let (mut message, mut subject) = (d.message.clone(), subject(&f, d));
            // Each client names its own tools (the native recorder's
            // `edit_file` is Codex's `apply_patch` and opencode's `edit`):
            // the same act, under the client's name.
            if d.rule == "participant-acted" {
                let tool = message.split('`').nth(1).unwrap_or_default().to_string();
                assert_eq!(subject, tool, "{case}: {message}");
                message = message.replace(&format!("`{tool}`"), "`<tool>`");
                subject = "<tool>".into();
            }
            out.insert((
                d.agent.clone().unwrap_or_default(),
                d.rule.to_string(),
                message,
                subject,
            ));
        }
    }
    out
}

/// Native cases recorded in other shapes: (native case, the same calls in
/// another shape, that shape).
const SHAPES: &[(&str, &str, Format)] = &[
    ("seed-incident", "seed-incident-mcp", Format::Mcp),
    (
        "seed-incident",
        "seed-incident-transcript",
        Format::Transcript,
    ),
    (
        "seed-incident",
        "seed-incident-claude",
        Format::Session(Client::ClaudeCode),
    ),
    (
        "link-and-join",
        "link-and-join-claude",
        Format::Session(Client::ClaudeCode),
    ),
    ("seed-incident", "seed-incident-proxy", Format::Mcp),
    (
        "seed-incident",
        "seed-incident-desktop",
        Format::Recording(Recorder::ClaudeDesktop),
    ),
    (
        "seed-incident",
        "seed-incident-mcp-debug",
        Format::Recording(Recorder::McpDebug),
    ),
    (
        "seed-incident",
        "seed-incident-inspector",
        Format::Recording(Recorder::Inspector),
    ),
    (
        "seed-incident",
        "seed-incident-tee",
        Format::Recording(Recorder::Tee),
    ),
    (
        "seed-incident",
        "seed-incident-codex",
        Format::Session(Client::Codex),
    ),
    (
        "seed-incident",
        "seed-incident-opencode",
        Format::Session(Client::Opencode),
    ),
    (
        "seed-incident",
        "seed-incident-gemini",
        Format::Session(Client::Gemini),
    ),
    ("seed-incident", "seed-incident-vtt", Format::Vtt),
    ("seed-incident", "seed-incident-srt", Format::Srt),
];

/// A native finding as a shape shows it. A Claude Code session keeps a
/// call as the client's `tool_use` block, and a finding about the whole
/// call points at that block (the call's `fn` is its `name`,
/// `mcp__vh__join`; its thread is a key of the entry, not of the block):
/// where the session's finding points at the block, the native one is
/// compared without the value it points at. Which record it points at is
/// checked by the case's `expected.tsv`.
fn as_shown(n: &Same, format: Format, got: &BTreeSet<Same>) -> Same {
    let whole = (n.0.clone(), n.1.clone(), n.2.clone(), String::new());
    match format {
        Format::Session(Client::ClaudeCode) if !got.contains(n) && got.contains(&whole) => whole,
        _ => n.clone(),
    }
}

#[test]
fn every_shape_agrees_with_the_native_logs() {
    let mut table: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let columns = SHAPES.len() + 1;
    for n in &findings("seed-incident") {
        table.entry(n.1.clone()).or_insert_with(|| vec![0; columns])[0] += 1;
    }
    for (k, &(origin, case, format)) in SHAPES.iter().enumerate() {
        let native = findings(origin);
        assert!(native.len() >= 5, "{origin}: {native:#?}");
        // What a shape says about itself (a trace without times) is no
        // finding about the call.
        let got: BTreeSet<Same> = findings(case)
            .into_iter()
            .filter(|g| g.1 != "no-times")
            .collect();
        for g in &got {
            if origin == "seed-incident" {
                table.entry(g.1.clone()).or_insert_with(|| vec![0; columns])[k + 1] += 1;
            }
            assert!(
                callint::rules::shows(format, &g.1),
                "{case}: {} is listed as a rule {} cannot show, yet it fired",
                g.1,
                format.name()
            );
        }
        let want: BTreeSet<Same> = native
            .iter()
            .filter(|n| callint::rules::shows(format, &n.1))
            .map(|n| as_shown(n, format, &got))
            .collect();
        let missed: Vec<_> = want.difference(&got).collect();
        let extra: Vec<_> = got.difference(&want).collect();
        assert!(
            missed.is_empty() && extra.is_empty(),
            "{case} disagrees with {origin}:\nmissed: {missed:#?}\nextra: {extra:#?}"
        );
        // Every rule the native logs show is shown, or said not to be.
        let shown: BTreeSet<&str> = native.iter().map(|n| n.1.as_str()).collect();
        let not: Vec<&&str> = shown
            .iter()
            .filter(|r| !callint::rules::shows(format, r))
            .collect();
        println!("{case}: not shown by {}: {not:?}", format.name());
    }
    // The seed incident's findings per rule in each of its shapes.
    let seed: Vec<(usize, &str)> = SHAPES
        .iter()
        .enumerate()
        .filter(|(_, s)| s.0 == "seed-incident")
        .map(|(k, s)| (k + 1, s.1.trim_start_matches("seed-incident-")))
        .collect();
    print!("{:<28} {:>7}", "rule", "native");
    for (_, name) in &seed {
        print!(" {name:>11}");
    }
    println!();
    for (rule, counts) in &table {
        print!("{rule:<28} {:>7}", counts[0]);
        for (k, _) in &seed {
            print!(" {:>11}", counts[*k]);
        }
        println!();
    }
}

/// `file, line, rule` of every finding of a case.
fn actual(case: &str) -> BTreeSet<(String, usize, String)> {
    let mut out = BTreeSet::new();
    for f in lint_case(case) {
        let file = f.path.clone();
        for (line, rule) in common::lines_and_rules(&f) {
            out.insert((file.clone(), line, rule));
        }
    }
    out
}

#[test]
fn the_new_cases_match_their_annotations() {
    let cases = SHAPES.iter().map(|s| s.1).chain(["prompts"]);
    for case in cases {
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
    for &(_, case, format) in SHAPES {
        // A half of a capture alone is a trace; the halves pair by name.
        let format = match format {
            Format::Recording(Recorder::Tee) => Format::Mcp,
            f => f,
        };
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
    // read as a native log, no line of a transcript is a record: one
    // finding says so, at the first line, with how many were not read
    let f = lint_as("-", &tr, Format::from_name("native").unwrap());
    assert_eq!(f.diagnostics.len(), 1, "{:#?}", f.diagnostics);
    let d = &f.diagnostics[0];
    assert_eq!(d.rule, "invalid-record");
    let lines = tr
        .split(|&b| b == b'\n')
        .filter(|l| !l.trim_ascii().is_empty())
        .count();
    assert!(
        d.message.starts_with(&format!(
            "no record could be read from this file (read as native): {lines} lines were not"
        )),
        "{}",
        d.message
    );
    assert_eq!(common::lines_and_rules(&f)[0].0, 1);
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
        for r in callint::rules::cannot_show(f) {
            assert!(names.contains(r), "{n}: {r}");
            assert!(!callint::rules::shows(f, r), "{n}: {r}");
        }
        // What a format cannot show is exactly the rules that need more
        // than it carries.
        for r in callint::rules::all() {
            let m = r.meta();
            assert_eq!(
                callint::rules::shows(f, m.name),
                f.evidence().covers(m.needs),
                "{n}: {}",
                m.name
            );
        }
        assert!(callint::rules::shows(f, "invalid-record"));
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
    for case in [
        "seed-incident-mcp",
        "seed-incident-transcript",
        "prompts",
        "seed-incident-proxy",
        "seed-incident-desktop",
        "seed-incident-mcp-debug",
        "seed-incident-inspector",
        "seed-incident-tee",
        "seed-incident-codex",
        "seed-incident-opencode",
        "seed-incident-gemini",
        "seed-incident-claude",
        "seed-incident-vtt",
        "seed-incident-srt",
    ] {
        // Of the session cases, one agent's file: they are large, and each
        // cut is read in every format.
        let files = case_files(case).into_iter().filter(|p| {
            !case.ends_with("codex")
                && !case.ends_with("opencode")
                && !case.ends_with("claude")
                && !case.ends_with("gemini")
                || p.file_stem().is_some_and(|s| s == "opencode")
        });
        for p in files {
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

/// The halves of a capture: the call's findings in the input half, what
/// is wrong in the output half there, each at its own file's lines.
#[test]
fn a_tee_capture_hands_each_finding_to_its_half() {
    let input = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"status","arguments":{"emoji":"\u2705","doing":"Fixing the login"}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{"emoji":"\u2705","open":["Fix login, update docs and tag release"]}}}
"#;
    let output = br#"{"jsonrpc":"2.0","id":0,"result":{}}
{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{}}}
{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{}"}]}}
{"jsonrpc":"2.0","id":1,"result":
"#;
    let linter = Linter::new(&Config::default(), None, &[]).unwrap();
    let (a, b) = linter.lint_pair(
        ("x.in.jsonl", input.to_vec()),
        ("x.out.jsonl", output.to_vec()),
    );
    let at = |f: &FileResult| -> Vec<(usize, String)> { common::lines_and_rules(f) };
    // a capture keeps no times: said once, at the first call
    assert_eq!(
        at(&a),
        [(2, "no-times".to_string()), (3, "board-bundle".to_string())],
        "{:#?}",
        a.diagnostics
    );
    let out = at(&b);
    assert_eq!(
        out,
        [
            (3, "invalid-record".to_string()),
            (4, "invalid-record".to_string())
        ],
        "{:#?}",
        b.diagnostics
    );
    assert!(b.diagnostics[0].message.contains("no request"));
    assert!(b.diagnostics[1].message.contains("ends before"));
    // the record is the input's, the call cut off in the output is kept
    assert_eq!((a.records, b.records), (2, 0));
}

/// Broken recordings: a diagnostic for what cannot be read, the rest
/// still linted, never a panic.
#[test]
fn broken_recordings_keep_the_rest() {
    let bundle = r#"{"emoji":"\u2705","open":["Fix login, update docs and tag release"]}"#;
    // Claude Desktop: a payload that is not JSON, a cut-off last line
    let desktop = format!(
        "2026-10-10T10:00:00.000Z [voicehook] [info] Message from client: {{\"method\":\"tools/call\",\"params\":{{\"name\":\"status\",\"arguments\":{bundle}}},\"jsonrpc\":\"2.0\",\"id\":1}}\n\
         2026-10-10T10:00:00.100Z [voicehook] [info] Message from server: {{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"structuredContent\":{{}}}}}}\n\
         2026-10-10T10:00:00.200Z [voicehook] [info] Message from server: {{not json}}\n\
         2026-10-10T10:00:00.300Z [voicehook] [info] Message from client: {{\"method\":\"tools/call\",\"par"
    );
    // mcp-debug: an unknown direction, a response without its request
    let debug = format!(
        "# MCP Recording Session\n\
         {{\"timestamp\":\"2026-10-10T12:00:00+02:00\",\"direction\":\"request\",\"message_type\":\"tool_call\",\"tool_name\":\"voicehook_status\",\"message\":{{\"method\":\"tools/call\",\"params\":{{\"name\":\"voicehook_status\",\"arguments\":{bundle}}}}}}}\n\
         {{\"timestamp\":\"2026-10-10T12:00:01+02:00\",\"direction\":\"upstream\",\"message_type\":\"tool_call\",\"tool_name\":\"voicehook_say\",\"message\":{{}}}}\n\
         {{\"timestamp\":\"2026-10-10T12:00:02+02:00\",\"direction\":\"response\",\"message_type\":\"tool_call\",\"tool_name\":\"voicehook_say\",\"message\":{{\"content\":[]}}}}\n"
    );
    // Inspector: a request that is not JSON, an entry without a request
    let inspector = format!(
        "[{{\"request\":{},\"response\":\"{{}}\"}},{{\"request\":\"{{oops\"}},{{\"response\":\"{{}}\"}}]",
        serde_json::to_string(&format!(
            "{{\"method\":\"tools/call\",\"params\":{{\"name\":\"status\",\"arguments\":{bundle}}}}}"
        ))
        .unwrap()
    );
    for (name, src, format, bad) in [
        ("mcp.log", desktop, Recorder::ClaudeDesktop, 2),
        ("rec.jsonl", debug, Recorder::McpDebug, 2),
        ("history.json", inspector, Recorder::Inspector, 2),
    ] {
        assert_eq!(
            input::detect(name, src.as_bytes()),
            Format::Recording(format),
            "{name}"
        );
        let f = callint::app::harness::lint(
            &callint::app::harness::linter(),
            name,
            src.as_bytes(),
            None,
        )
        .unwrap();
        let rules: Vec<&str> = f.diagnostics.iter().map(|d| d.rule).collect();
        assert!(rules.contains(&"board-bundle"), "{name}: {rules:?}");
        assert_eq!(
            rules.iter().filter(|r| **r == "invalid-record").count(),
            bad,
            "{name}: {:#?}",
            f.diagnostics
        );
    }
}

/// A Codex rollout line, `payload` given as JSON text.
fn rollout(ts: &str, ty: &str, payload: &str) -> String {
    format!(r#"{{"timestamp":"2026-10-10T10:{ts}Z","type":"{ty}","payload":{payload}}}"#)
}

#[test]
fn session_files_without_voicehook_are_quiet_and_calls_are_apart() {
    // an everyday coding session: a destructive shell command, chat, a
    // cut-off last line: nothing to say
    let quiet = [
        rollout("00:00.000", "session_meta", r#"{"id":"1","source":"cli"}"#),
        rollout("00:01.000", "event_msg", r#"{"type":"user_message","message":"clean up"}"#),
        rollout("00:02.000", "response_item", r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"rm -rf build\"]}","call_id":"a"}"#),
        rollout("00:03.000", "response_item", r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}"#),
        r#"{"timestamp":"2026-10-10T10:00:04.000Z","type":"resp"#.to_string(),
    ]
    .join("\n");
    let f = common::lint("rollout-1.jsonl", quiet.as_bytes(), &[]);
    assert!(f.diagnostics.is_empty(), "{:#?}", f.diagnostics);
    assert_eq!(f.records, 0);

    // two calls in one session: each judged on its own, in its language
    let join = |n: usize, id: &str, lang: &str| {
        [
            rollout(&format!("0{n}:00.000"), "response_item", &format!(r#"{{"type":"function_call","name":"voicehook__join","arguments":"{{\"call_id\":\"{id}\",\"label\":\"Kit\",\"greet\":true}}","call_id":"j{n}"}}"#)),
            rollout(&format!("0{n}:00.500"), "response_item", &format!(r#"{{"type":"function_call_output","call_id":"j{n}","output":"{{\"status\":\"joined\",\"context\":{{\"lang\":\"{lang}\"}}}}"}}"#)),
            rollout(&format!("0{n}:01.000"), "response_item", &format!(r#"{{"type":"function_call","name":"voicehook__say","arguments":"{{\"text\":\"Der Build ist jetzt grün und die Version ist fertig.\"}}","call_id":"s{n}"}}"#)),
            rollout(&format!("0{n}:01.200"), "response_item", &format!(r#"{{"type":"function_call_output","call_id":"s{n}","output":"{{\"say_id\":\"s{n}\",\"say_status\":\"queued\"}}"}}"#)),
        ]
        .join("\n")
    };
    let two = [
        rollout("00:00.000", "session_meta", r#"{"id":"2","source":"cli"}"#),
        join(1, "c-en", "en"),
        join(2, "c-de", "de"),
    ]
    .join("\n");
    let f = common::lint("rollout-2.jsonl", two.as_bytes(), &["wrong-language"]);
    let lines: Vec<usize> = common::lines_and_rules(&f)
        .into_iter()
        .map(|(l, _)| l)
        .collect();
    // the German say of the English call only, underlined in its arguments
    assert_eq!(lines, [4], "{:#?}", f.diagnostics);
    assert_eq!(
        subject(&f, &f.diagnostics[0]),
        "Der Build ist jetzt grün und die Version ist fertig."
    );
}

#[test]
fn a_file_with_no_record_gets_one_finding_that_names_its_shape() {
    let dir = common::scratch();
    let app: String = (0..3000)
        .map(|i| {
            format!(
                "2026-10-10 10:{:02}:{:02} INFO worker {i} done\n",
                i / 60 % 60,
                i % 60
            )
        })
        .collect();
    std::fs::write(dir.join("server.log"), &app).unwrap();
    let vapi = r#"{"message":{"type":"end-of-call-report","endedReason":"customer-ended-call","artifact":{"transcript":"AI: Hi\nUser: Hello"}}}"#;
    std::fs::write(dir.join("vapi.jsonl"), format!("{vapi}\n{vapi}\n")).unwrap();
    let o = common::callint_in(
        &dir,
        &[
            "check",
            "server.log",
            "vapi.jsonl",
            "--no-config",
            "--format",
            "concise",
        ],
    );
    let out = common::stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with(
            "server.log:1:1: error[invalid-record] this looks like a plain application log"
        ),
        "{out}"
    );
    assert!(
        lines[1].starts_with("vapi.jsonl:1:1: error[invalid-record] this looks like a Vapi end-of-call report: callint does not read it"),
        "{out}"
    );
    assert!(lines[2].starts_with("Found 2 problems"), "{out}");
    assert_eq!(o.status.code(), Some(1));
    // a package manifest named on the command line: one finding too
    let f = common::lint(
        "package.json",
        b"{\n  \"name\": \"x\",\n  \"version\": \"1.0.0\",\n  \"open\": true\n}\n",
        &[],
    );
    assert_eq!(f.diagnostics.len(), 1, "{:#?}", f.diagnostics);
    assert!(f.diagnostics[0].message.contains("package manifest"));
}

#[test]
fn a_log_without_times_says_once_what_was_not_judged() {
    let log = "{\"fn\":\"join\",\"args\":{\"label\":\"Kit\",\"greet\":true},\"result\":{\"status\":\"joined\"}}\n{\"fn\":\"say\",\"args\":{\"text\":\"The build is green.\"},\"result\":{\"say_id\":\"s1\",\"say_status\":\"queued\"}}\n";
    let f = common::lint("call.jsonl", log.as_bytes(), &[]);
    let notes: Vec<_> = f
        .diagnostics
        .iter()
        .filter(|d| d.rule == "no-times")
        .collect();
    assert_eq!(notes.len(), 1, "{:#?}", f.diagnostics);
    assert_eq!(notes[0].severity, callint::core::diagnostic::Severity::Info);
    assert!(
        notes[0].message.contains("slow-ack"),
        "{}",
        notes[0].message
    );
    // one timed record is enough to judge by
    let timed = log.replacen(
        "{\"fn\":\"join\"",
        "{\"ts\":\"2026-10-10T10:00:00Z\",\"fn\":\"join\"",
        1,
    );
    let f = common::lint("call.jsonl", timed.as_bytes(), &[]);
    assert!(f.diagnostics.iter().all(|d| d.rule != "no-times"));
    // a prompt's examples never carry times, and need none
    let md = format!("# Joining\n\n```jsonl\n{log}```\n");
    let f = common::lint("SKILL.md", md.as_bytes(), &[]);
    assert!(f.diagnostics.iter().all(|d| d.rule != "no-times"));
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

/// `check --format concise` of files named singly in a fresh folder,
/// without any configuration: the exit code and the output.
fn check_named(files: &[(&str, &[u8])]) -> (Option<i32>, String) {
    let dir = common::scratch();
    let mut args = vec!["check", "--no-config", "--no-cache", "--format", "concise"];
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
        args.push(name);
    }
    let o = common::callint_in(&dir, &args);
    (o.status.code(), common::stdout(&o))
}

/// Each file's findings in the output, as `line:column: severity[rule]
/// message`.
fn findings_in<'a>(out: &'a str, name: &str) -> Vec<&'a str> {
    let prefix = format!("{name}:");
    out.lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .collect()
}

/// A file of opencode's storage folder named alone (a session's info, a
/// message, a part) is told to be one, once, at `info`, and asked for the
/// folder; never taken for a board. Read with the
/// rest of its session, it gets no such note.
#[test]
fn an_opencode_storage_file_named_alone_is_told_as_one() {
    let info = b"{\n  \"id\": \"ses_abc\",\n  \"version\": \"0.15.8\",\n  \"projectID\": \"p1\",\n  \"title\": \"Release call\",\n  \"time\": {\"created\": 1791626476000, \"updated\": 1791626479000}\n}\n";
    // key order and spacing of their own
    let message = br#"{"time":{"created":1791626476000},"role":"assistant","sessionID":"ses_abc","id":"msg_1"}"#;
    let part = b"{ \"type\" : \"text\", \"messageID\" : \"msg_1\", \"sessionID\" : \"ses_abc\", \"id\" : \"prt_1\", \"text\" : \"Hi there.\" }";
    // a session's info without a version, as some writers leave it out
    let bare = br#"{"title":"Release call","id":"ses_abc","directory":"/w","projectID":"p1","time":{"updated":2,"created":1}}"#;
    for (name, bytes, what) in [
        // a session's info alone holds no call: said once (never "not a
        // board")
        ("ses_abc.json", &info[..], "a session's info"),
        ("ses_bare.json", &bare[..], "a session's info"),
        ("msg_1.json", &message[..], "one message of a session"),
        ("prt_1.json", &part[..], "one part of a message"),
    ] {
        let (code, out) = check_named(&[(name, bytes)]);
        let got = findings_in(&out, name);
        assert_eq!(got.len(), 1, "{out}");
        assert!(
            got[0].starts_with("1:1: info[invalid-record] this is "),
            "{out}"
        );
        assert!(
            got[0].contains(what) && got[0].contains("opencode's storage folder"),
            "{out}"
        );
        assert!(!out.contains("board"), "{out}");
        assert_eq!(code, Some(0), "{out}");
    }
    // named together, they are one session
    let (code, out) = check_named(&[
        ("ses_abc.json", info),
        ("msg_1.json", message),
        ("prt_1.json", part),
    ]);
    assert!(!out.contains("invalid-record"), "{out}");
    assert_eq!(code, Some(0), "{out}");
}

/// Other agent clients' files that callint does not read are named for
/// what they are, once, at `info`: never "not a board". A Gemini CLI
/// session of the older layout (one object) is read, and without a call of
/// voicehook it is quiet.
#[test]
fn other_clients_files_are_named_not_called_boards() {
    let gemini = br#"{
  "sessionId": "6f1c2d3e-aaaa-bbbb-cccc-1234567890ab",
  "projectHash": "abc123",
  "startTime": "2026-10-10T10:00:00.000Z",
  "lastUpdated": "2026-10-10T10:05:00.000Z",
  "messages": [
    {"id": "m1", "timestamp": "2026-10-10T10:00:01.000Z", "type": "user", "content": "hello"},
    {"id": "m2", "timestamp": "2026-10-10T10:00:02.000Z", "type": "gemini", "content": "hi there"}
  ]
}"#;
    let gemini_reordered =
        br#"{"messages":[],"startTime":"2026-10-10T10:00:00.000Z","sessionId":"6f1c"}"#;
    let meta = br#"{"agentType":"general-purpose","description":"Find the flaky test"}"#;
    let (code, out) = check_named(&[("session-2026-10-10T10-00-6f1c2d3e.json", &gemini[..])]);
    assert!(
        out.contains("All checks passed: 1 file, 0 records"),
        "{out}"
    );
    assert_eq!(code, Some(0), "{out}");
    for (name, bytes, what) in [
        (
            "session-2.json",
            &gemini_reordered[..],
            "a Gemini CLI session",
        ),
        (
            "agent-a1b2c3.meta.json",
            &meta[..],
            "a Claude Code subagent's metadata",
        ),
    ] {
        let (code, out) = check_named(&[(name, bytes)]);
        let got = findings_in(&out, name);
        assert_eq!(got.len(), 1, "{out}");
        assert!(
            got[0].starts_with("1:1: info[invalid-record] callint does not read this file: it is ")
                && got[0].contains(what),
            "{out}"
        );
        assert!(!out.contains("board"), "{out}");
        assert_eq!(code, Some(0), "{out}");
    }
}

/// A plain application log, Python's `logging` lines among them (a comma
/// before the milliseconds on every line), is called a log callint does
/// not read, once; never a CSV table.
#[test]
fn an_application_log_is_never_a_table() {
    let asctime = b"2026-10-10 10:00:01,123 - root - INFO - server started\n2026-10-10 10:00:02,456 - app.db - WARNING - slow query\n2026-10-10 10:00:03,789 - app - ERROR - failed\n";
    let basic = b"INFO:root:server started\nWARNING:app.db:slow query\nERROR:app:request failed\n";
    for (name, bytes) in [
        ("app.log", &asctime[..]),
        ("app", &asctime[..]),
        ("worker.log", &basic[..]),
        ("worker", &basic[..]),
    ] {
        let (_, out) = check_named(&[(name, bytes)]);
        let got = findings_in(&out, name);
        assert_eq!(got.len(), 1, "{out}");
        assert!(
            got[0].contains("this looks like a plain application log"),
            "{out}"
        );
        assert!(got[0].contains("callint does not read it"), "{out}");
        assert!(!out.contains("CSV"), "{out}");
    }
    // a table is still a table
    let (_, out) = check_named(&[("scores", b"id,name,score\n1,a,3\n2,b,4\n")]);
    assert!(out.contains("a CSV table"), "{out}");
}

/// Values one after another in a `.json` file are no JSON document: an
/// error at the second value, whatever the spacing.
#[test]
fn concatenated_json_values_are_an_error_at_the_second() {
    for (src, at) in [
        (&b"[][]"[..], "1:3:"),
        (b"{}{}", "1:3:"),
        (b"[ ]\n\n  [ ]", "3:3:"),
        (
            b"{\"emoji\":\"\xe2\x9c\x85\",\"doing\":\"x\"} {\"emoji\":\"\xe2\x9c\x85\"}",
            "1:27:",
        ),
    ] {
        let (code, out) = check_named(&[("board.json", src)]);
        let got = findings_in(&out, "board.json");
        let second: Vec<&&str> = got
            .iter()
            .filter(|l| l.contains("a second JSON value starts here"))
            .collect();
        assert_eq!(second.len(), 1, "{out}");
        assert!(
            second[0].starts_with(&format!("{at} error[invalid-record]")),
            "{out}"
        );
        assert_eq!(code, Some(1), "{out}");
    }
    let (code, out) = check_named(&[(
        "board.json",
        b"[{\"emoji\":\"\xe2\x9c\x85\",\"doing\":\"x\"}]",
    )]);
    assert!(!out.contains("invalid-record"), "{out}");
    assert_eq!(code, Some(0), "{out}");
}

/// The records a `check --format concise` output's summary counts.
fn records_in(out: &str) -> usize {
    let last = out.lines().last().unwrap_or("");
    let (before, _) = last.rsplit_once(" record").unwrap_or(("", ""));
    before
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// A Claude Code session whose lines were cut (the file starts inside an
/// entry, ends inside one, or its first line is longer than the part
/// looked at to tell the shape) is read as Claude Code whatever its name,
/// and the cut line is said as such: never a native log, a prompt, a
/// board or a file callint cannot tell.
#[test]
fn trimmed_claude_code_sessions_are_read_as_claude_code() {
    let user = r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-11-14T10:59:59.000Z","message":{"role":"user","content":"Join the release call, please."}}"#;
    let join = r#"{"type":"assistant","uuid":"u2","parentUuid":"u1","sessionId":"s1","timestamp":"2026-11-14T11:00:00.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"mcp__voicehook__join","input":{"call_id":"c-1","label":"Vela","emoji":"🧭"}}]}}"#;
    let joined = r#"{"type":"user","uuid":"u3","parentUuid":"u2","sessionId":"s1","timestamp":"2026-11-14T11:00:00.500Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"{\"status\": \"joined\", \"role\": \"participant\", \"context\": {\"lang\": \"en\"}}"}]}}"#;
    let say = r#"{"type":"assistant","uuid":"u4","parentUuid":"u3","sessionId":"s1","timestamp":"2026-11-14T11:00:01.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"mcp__voicehook__say","input":{"text":"Hi, Vela here, I'm listening."}}]}}"#;
    let rest = format!("{join}\n{joined}\n{say}\n");
    // the first line cut at its start
    let head_cut = format!("{}\n{rest}", &user[40..]);
    // the last line cut at its end
    let tail_cut = format!("{user}\n{join}\n{joined}\n{}", &say[..90]);
    // a first line longer than the part read to tell the shape
    let long = user.replace("Join the release", &"very long text ".repeat(5_000));
    assert!(long.len() > 70_000);
    let long_first = format!("{long}\n{rest}");
    let misnamed = [
        "native",
        "not valid JSON",
        "cannot tell",
        "board",
        "prompt",
        "no record could be read",
    ];
    for name in ["session.jsonl", "session.json", "session.txt", "session"] {
        let (_, out) = check_named(&[(name, head_cut.as_bytes())]);
        let got = findings_in(&out, name);
        assert!(
            got.first().is_some_and(|f| f.starts_with(
                "1:1: error[invalid-record] the first entry of the session is cut off"
            )),
            "{name}: {out}"
        );
        assert!(records_in(&out) >= 2, "{name}: {out}");
        for word in misnamed {
            assert!(!out.contains(word), "{name}: {word}: {out}");
        }

        let (_, out) = check_named(&[(name, tail_cut.as_bytes())]);
        let got = findings_in(&out, name);
        assert!(
            got.iter().any(|f| f.starts_with("4:")
                && f.contains("error[invalid-record] the last entry of the session is cut off")),
            "{name}: {out}"
        );
        assert!(records_in(&out) >= 2, "{name}: {out}");
        for word in misnamed {
            assert!(!out.contains(word), "{name}: {word}: {out}");
        }

        let (_, out) = check_named(&[(name, long_first.as_bytes())]);
        assert!(!out.contains("invalid-record"), "{name}: {out}");
        assert!(records_in(&out) >= 2, "{name}: {out}");
    }
}
