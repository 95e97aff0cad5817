//! Where the output goes: a reader that closes the pipe early, a disk that
//! is full, and runs that must not end in a quiet "All checks passed".

use crate::common::{root, scratch, stdout};

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_callint"));
    c.current_dir(root()).env_remove("NO_COLOR");
    c
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Run `args` with standard output a pipe whose reading end is closed
/// before callint writes anything.
fn with_closed_pipe(args: &[&str]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run callint");
    drop(child.stdout.take());
    child.wait_with_output().expect("wait for callint")
}

#[test]
fn a_closed_pipe_stops_the_output_quietly_with_the_findings_status() {
    for (args, code) in [
        (&["rules"][..], 0),
        (&["rules", "--format", "json"][..], 0),
        (&["explain", "board-bundle"][..], 0),
        (
            &["addressing", "Promo, is it green?", "--labels", "Promo"][..],
            0,
        ),
        (&["check", "corpus/clean-en"][..], 0),
        // The seeded incident holds errors: a reader that stopped early
        // does not turn that into a pass.
        (&["check", "corpus/seed-incident"][..], 1),
        (
            &["check", "corpus/seed-incident", "--format", "json"][..],
            1,
        ),
        (&["report", "corpus/seed-incident/claude.jsonl"][..], 0),
    ] {
        // Several runs: whether the first write or a later one meets the
        // closed pipe depends on timing.
        for _ in 0..3 {
            let o = with_closed_pipe(args);
            assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
            assert!(stderr(&o).is_empty(), "{args:?}: {}", stderr(&o));
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_an_error_with_status_2() {
    for args in [
        &["rules"][..],
        &["explain", "board-bundle"][..],
        &["addressing", "Promo, is it green?", "--labels", "Promo"][..],
        &["check", "corpus/clean-en"][..],
        &["check", "corpus/seed-incident"][..],
        &["check", "corpus/seed-incident", "--format", "sarif"][..],
        &["report", "corpus/seed-incident/claude.jsonl"][..],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let o = bin()
            .args(args)
            .stdin(Stdio::null())
            .stdout(full)
            .output()
            .expect("run callint");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("cannot write the output"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_path_that_does_not_exist_is_no_pass() {
    let o = bin().args(["check", "no/such/folder"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read no/such/folder"));
    assert!(!stdout(&o).contains("All checks passed"), "{}", stdout(&o));

    // Beside a readable clean folder, still no pass.
    let o = bin()
        .args(["check", "corpus/clean-en", "no/such/file.jsonl"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(!stdout(&o).contains("All checks passed"), "{}", stdout(&o));
}

#[test]
fn a_folder_with_nothing_to_read_is_no_pass() {
    let empty = scratch();
    let o = bin().arg("check").arg(&empty).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("nothing to check below"), "{err}");
    // It says what it looked for, every ending a walk picks up.
    for ext in callint::app::walk::LOG_EXTENSIONS {
        assert!(err.contains(&format!(".{ext}")), "{ext}: {err}");
    }
    assert!(!stdout(&o).contains("All checks passed"));

    // Files, but none callint reads.
    std::fs::write(empty.join("notes.csv"), "a,b\n").unwrap();
    std::fs::write(empty.join("board.json"), "{}").unwrap();
    let o = bin().arg("check").arg(&empty).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));

    // Only ignored logs: the message says why and what reads them.
    let ignored = scratch();
    std::fs::write(ignored.join(".gitignore"), "*.jsonl\n").unwrap();
    std::fs::write(ignored.join("a.jsonl"), "{}\n").unwrap();
    let o = bin().arg("check").arg(&ignored).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--no-ignore"), "{}", stderr(&o));

    // No path at all, in an empty folder: the current folder is checked,
    // and it holds nothing.
    let here = scratch();
    let o = bin()
        .arg("check")
        .current_dir(&here)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nothing to check below ."));
    assert!(!stderr(&o).contains("standard input"), "{}", stderr(&o));
}

#[test]
fn piped_input_without_a_dash_is_pointed_out() {
    let dir = scratch();
    let mut child = bin()
        .arg("check")
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let log = std::fs::read(root().join("corpus/seed-incident/claude.jsonl")).unwrap();
    // callint may exit before reading any of it.
    let _ = child.stdin.take().unwrap().write_all(&log);
    let o = child.wait_with_output().unwrap();
    assert!(
        stderr(&o).contains("standard input is not read without `-`"),
        "{}",
        stderr(&o)
    );

    // With `-` it is read.
    let mut child = bin()
        .args(["check", "-", "--format", "concise"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&log).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(!stderr(&o).contains("standard input"), "{}", stderr(&o));
    assert!(stdout(&o).contains("-:"), "{}", stdout(&o));
}

/// Characters that break a line or reorder text where they are printed.
const BREAKERS: [char; 15] = [
    '\u{2028}', '\u{2029}', '\u{85}', '\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}',
    '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
];

#[test]
fn line_breaks_and_bidi_controls_from_a_log_are_escaped_everywhere() {
    let dir = scratch();
    let odd: String = BREAKERS.iter().collect();
    let label = format!("Promo{odd}agent-with-a-long-label");
    let lines = [
        serde_json::json!({"ts":"2026-10-10T10:00:00.000Z","agent":label,"call":"c1","fn":"join",
            "args":{"call_id":"c1","label":label},
            "error":{"status":422,"message":"label longer than 22 characters"}}),
        serde_json::json!({"ts":"2026-10-10T10:00:01.000Z","agent":label,"call":"c1","fn":"status",
            "args":{"emoji":"🛠️","open":[format!("Fix login{odd}, update docs and tag release")]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    // JSON would escape the characters: write them raw into the log.
    let raw = text
        .replace("\\u2028", "\u{2028}")
        .replace("\\u2029", "\u{2029}");
    let file = dir.join("odd.jsonl");
    std::fs::write(&file, raw).unwrap();
    let f = file.to_str().unwrap();
    for args in [
        &["check", f, "--format", "pretty", "--color", "never"][..],
        &["check", f, "--format", "concise"][..],
        &["check", f, "--format", "github"][..],
        &["report", f][..],
    ] {
        let o = bin().args(args).output().unwrap();
        let out = stdout(&o);
        assert!(out.contains("label-too-long"), "{args:?}: {out}");
        for c in BREAKERS {
            assert!(
                !out.contains(c),
                "{args:?}: U+{:04X} raw in {out}",
                c as u32
            );
        }
        assert!(out.contains("\\u{2028}"), "{args:?}: {out}");
    }
}

#[cfg(unix)]
#[test]
fn file_names_are_shown_unmistakably_and_sarif_keeps_their_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch();
    let bad = r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{"call_id":"c1","label":"opencode-session-2026-10-10"},"error":{"status":422,"message":"label longer than 22 characters"}}"#;
    let typed = dir.join("a\\nb.jsonl");
    let real = dir.join("a\nb.jsonl");
    std::fs::write(&typed, bad).unwrap();
    std::fs::write(&real, bad).unwrap();
    let shown = |p: &std::path::Path| {
        let o = bin()
            .arg("check")
            .arg(p)
            .args(["--format", "concise"])
            .output()
            .unwrap();
        let out = stdout(&o);
        out.lines().next().unwrap_or_default().to_string()
    };
    let (t, r) = (shown(&typed), shown(&real));
    assert!(t.contains("a\\\\nb.jsonl:"), "{t}");
    assert!(r.contains("a\\nb.jsonl:"), "{r}");
    assert_ne!(t, r);

    // A name that is not UTF-8: the SARIF URI percent-encodes its bytes.
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.jsonl");
    std::fs::write(dir.join(name), bad).unwrap();
    let o = bin()
        .current_dir(&dir)
        .arg("check")
        .arg(name)
        .args(["--format", "sarif"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let uri = v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(uri, "caf%E9.jsonl");
}

/// `check --format pretty` of `files` on a terminal `width` columns wide.
fn pretty_at(width: usize, files: &[&str]) -> String {
    let o = bin()
        .args(["check", "--format", "pretty", "--color", "never"])
        .args(files)
        .env("COLUMNS", width.to_string())
        .output()
        .unwrap();
    stdout(&o)
}

#[test]
fn pretty_output_stays_within_the_terminal() {
    // A board over several lines, two labels on one long line, long label
    // texts, notes far from the main line.
    let files = [
        "corpus/prompts/release-boards.json",
        "corpus/seed-incident/opencode.jsonl",
        "corpus/board-mistakes/release-notes.jsonl",
    ];
    for width in [80, 140] {
        let out = pretty_at(width, &files);
        for line in out.lines() {
            // A word longer than the room is never broken: allow for the
            // few that are (file paths in headers).
            if line.contains("╭─[") {
                continue;
            }
            assert!(
                line.chars().count() <= width,
                "wider than {width}: {line}\n{out}"
            );
        }
        // The lines inside the board's span are shown, not left blank.
        assert!(out.contains("\"doing\": \"Waiting for Oliver\","), "{out}");
        insta::assert_snapshot!(format!("pretty-{width}-columns"), out);
    }
}

#[test]
fn repeated_findings_are_capped_per_rule_and_file() {
    let dir = scratch();
    let file = dir.join("broken.jsonl");
    // One record, so the file is a log with broken lines (a file of broken
    // lines only gets one finding for the whole file).
    let record = "{\"ts\":\"2026-10-10T10:00:00Z\",\"fn\":\"leave\"}\n";
    std::fs::write(&file, format!("{record}{}", "{\n".repeat(300))).unwrap();
    let concise = |extra: &[&str]| -> Vec<String> {
        let o = bin()
            .arg("check")
            .arg(&file)
            .args(["--format", "concise", "--quiet"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
        stdout(&o).lines().map(str::to_string).collect()
    };
    let lines = concise(&[]);
    assert_eq!(lines.len(), 101);
    assert!(
        lines[100].contains(":102:1: error[invalid-record] ... and 200 more like this"),
        "{}",
        lines[100]
    );
    let lines = concise(&["--max-repeats", "5"]);
    assert_eq!(lines.len(), 6);
    assert!(
        lines[5].contains(":7:1:") && lines[5].contains("and 295 more"),
        "{}",
        lines[5]
    );
    assert_eq!(concise(&["--max-repeats", "0"]).len(), 300);
    // From callint.toml too.
    std::fs::write(dir.join("callint.toml"), "max-repeats = 10\n").unwrap();
    let lines = concise(&[]);
    assert_eq!(lines.len(), 11);
    assert!(lines[10].contains("and 290 more"), "{}", lines[10]);
}
