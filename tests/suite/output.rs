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
    for ext in callint::walk::LOG_EXTENSIONS {
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
    let o = bin()
        .arg("check")
        .current_dir(scratch())
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
