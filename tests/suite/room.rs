//! Several native logs of one call in one `check` run: each is linted on
//! its own, and the logs of one call are merged into one room, where the
//! agents without a log of their own are judged (src/room.rs).

use crate::common::{callint, callint_in, root, scratch, stdout};

use std::path::Path;
use std::process::Output;

const MARLIN: &str = "corpus/several-logs/marlin.jsonl";
const WREN: &str = "corpus/several-logs/wren.jsonl";

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

/// Findings as `(file, line, rule, agent)`, from `check --format json`.
fn findings(o: &Output) -> Vec<(String, u64, String, String)> {
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let file = Path::new(d["file"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .to_string();
            (
                file,
                d["line"].as_u64().unwrap(),
                d["rule"].as_str().unwrap().to_string(),
                d["agent"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn about(f: &[(String, u64, String, String)], agent: &str) -> usize {
    f.iter().filter(|x| x.3 == agent).count()
}

#[test]
fn the_room_judges_the_agent_without_a_log_once() {
    let both = findings(&callint(&["check", MARLIN, WREN, "--format", "json"]));
    // Osprey has no log: its two breaches are found in the room, each once,
    // although both logs hold its lines.
    let osprey: Vec<_> = both.iter().filter(|x| x.3 == "Osprey").collect();
    assert_eq!(osprey.len(), 2, "{both:?}");
    assert!(osprey
        .iter()
        .any(|x| x.2 == "spoke-over-delta" && x.0 == "marlin.jsonl" && x.1 == 28));
    assert!(osprey
        .iter()
        .any(|x| x.2 == "answered-human-question" && x.0 == "marlin.jsonl" && x.1 == 20));
    // Wren's own breach is in its own log only, not again through the copy
    // of its line in Marlin's log.
    assert_eq!(about(&both, "Wren"), 1, "{both:?}");
    assert_eq!(both.len(), 3);

    // The order of the files does not change what is found, nor where.
    let swapped = findings(&callint(&["check", WREN, MARLIN, "--format", "json"]));
    let mut a = both.clone();
    let mut b = swapped;
    a.sort();
    b.sort();
    assert_eq!(a, b);

    // A folder is the same as naming its files.
    let folder = findings(&callint(&[
        "check",
        "corpus/several-logs",
        "--format",
        "json",
    ]));
    assert_eq!(folder, both);
}

#[test]
fn a_log_alone_has_no_room() {
    for alone in [MARLIN, WREN] {
        let f = findings(&callint(&["check", alone, "--format", "json"]));
        assert_eq!(about(&f, "Osprey"), 0, "{alone}: {f:?}");
    }
}

#[test]
fn no_merge_lints_each_file_alone() {
    let merged = callint(&["check", MARLIN, WREN, "--format", "concise"]);
    let apart = callint(&["check", MARLIN, WREN, "--format", "concise", "--no-merge"]);
    assert_eq!(
        about(
            &findings(&callint(&[
                "check",
                MARLIN,
                WREN,
                "--format",
                "json",
                "--no-merge"
            ])),
            "Osprey"
        ),
        0
    );
    assert_ne!(stdout(&merged), stdout(&apart));
    // Each file alone, one after the other, gives the same lines.
    let mut each = String::new();
    for f in [MARLIN, WREN] {
        let o = callint(&["check", f, "--format", "concise", "--quiet"]);
        each.push_str(&stdout(&o));
    }
    let apart = stdout(&apart);
    let (body, summary) = apart.rsplit_once("Found").unwrap();
    assert_eq!(body, each);
    assert!(summary.contains("1 problem"), "{summary}");
    assert!(stdout(&merged).contains("Found 3 problems"));
    let help = stdout(&callint(&["check", "--help"]));
    assert!(help.contains("--no-merge"), "{help}");
}

#[test]
fn logs_of_different_calls_are_not_merged() {
    let dir = scratch();
    std::fs::write(dir.join("marlin.jsonl"), read(MARLIN)).unwrap();
    // Wren's log of another call with the same lines.
    std::fs::write(
        dir.join("wren.jsonl"),
        read(WREN).replace("c-r00m7", "c-0ther1"),
    )
    .unwrap();
    let f = findings(&callint_in(&dir, &["check", ".", "--format", "json"]));
    assert_eq!(about(&f, "Osprey"), 0, "{f:?}");
    assert_eq!(about(&f, "Wren"), 1, "{f:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_log_without_a_call_id_is_not_merged() {
    let dir = scratch();
    std::fs::write(dir.join("marlin.jsonl"), read(MARLIN)).unwrap();
    // Wren's log with no `call` key and a join that names no call.
    let bare = read(WREN)
        .replace(r#""call":"c-r00m7","#, "")
        .replace(r#""call_id":"c-r00m7","#, "");
    assert!(!bare.contains("c-r00m7"));
    std::fs::write(dir.join("wren.jsonl"), bare).unwrap();
    let f = findings(&callint_in(&dir, &["check", ".", "--format", "json"]));
    assert_eq!(about(&f, "Osprey"), 0, "{f:?}");
    assert_eq!(about(&f, "Wren"), 1, "{f:?}");

    // The call id of a log may come from its join alone: then it is merged.
    let joined = read(WREN).replace(r#""call":"c-r00m7","#, "");
    assert!(joined.contains(r#""call_id":"c-r00m7""#));
    std::fs::write(dir.join("wren.jsonl"), joined).unwrap();
    let f = findings(&callint_in(&dir, &["check", ".", "--format", "json"]));
    assert_eq!(about(&f, "Osprey"), 2, "{f:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_agent_without_a_log_is_found_like_its_own_log_would_show() {
    // corpus/turn-taking without Juno's log: Juno's breaches, which its own
    // log shows, are found in the room from Claude's and Promo's logs.
    let dir = scratch();
    for f in ["claude.jsonl", "promo.jsonl"] {
        std::fs::copy(root().join("corpus/turn-taking").join(f), dir.join(f)).unwrap();
    }
    let room = findings(&callint_in(&dir, &["check", ".", "--format", "json"]));
    let mut juno: Vec<&str> = room
        .iter()
        .filter(|x| x.3 == "Juno")
        .map(|x| x.2.as_str())
        .collect();
    juno.sort();
    let own = findings(&callint(&[
        "check",
        "corpus/turn-taking/juno.jsonl",
        "--format",
        "json",
    ]));
    let mut expected: Vec<&str> = own.iter().map(|x| x.2.as_str()).collect();
    expected.sort();
    assert_eq!(juno, expected);
    // Nothing is added about the agents whose logs are here.
    let apart = findings(&callint_in(
        &dir,
        &["check", ".", "--format", "json", "--no-merge"],
    ));
    let mut others: Vec<_> = room.into_iter().filter(|x| x.3 != "Juno").collect();
    let mut apart = apart;
    others.sort();
    apart.sort();
    assert_eq!(others, apart);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_job_and_many_give_the_same_bytes() {
    let args = ["check", "corpus/", "--format", "json"];
    let one = callint(&[&args[..], &["--jobs", "1"]].concat());
    for jobs in ["2", "7"] {
        let many = callint(&[&args[..], &["--jobs", jobs]].concat());
        assert!(many.stdout == one.stdout, "--jobs {jobs}");
    }
}

/// A log larger than the part that tells its format is read a block at a
/// time and read again only to show its findings, and then only the lines
/// they point into (the pretty output shows no lines around them). The same bytes give the
/// same report either way: with blank lines padding two logs of one call
/// past that size (a log ignores blank lines), every finding of each log's
/// own pass and of the room is still there, at the same lines and columns,
/// with the same fingerprints, in every output format; and so for the same
/// bytes from standard input.
#[test]
fn a_large_log_read_block_by_block_reports_what_a_small_one_does() {
    let small = scratch();
    let large = scratch();
    let pad = "\n".repeat(callint::input::HEAD + 1000);
    for name in ["marlin.jsonl", "wren.jsonl"] {
        let bytes = std::fs::read(root().join("corpus/several-logs").join(name)).unwrap();
        std::fs::write(small.join(name), &bytes).unwrap();
        let mut padded = bytes;
        padded.extend_from_slice(pad.as_bytes());
        std::fs::write(large.join(name), padded).unwrap();
    }
    for format in [
        "json", "jsonl", "concise", "sarif", "github", "junit", "gitlab", "pretty",
    ] {
        let args = ["check", ".", "--format", format, "--color", "never"];
        let a = callint_in(&small, &args);
        let b = callint_in(&large, &args);
        assert_eq!(a.status.code(), b.status.code(), "{format}");
        assert!(!a.stdout.is_empty());
        assert_eq!(stdout(&a), stdout(&b), "{format}");
    }
    // One log alone: the small one is shown from its bytes held whole, the
    // large one from the lines its findings point into.
    for format in [
        "json", "jsonl", "concise", "sarif", "github", "junit", "gitlab", "pretty",
    ] {
        let args = [
            "check",
            "wren.jsonl",
            "--no-merge",
            "--format",
            format,
            "--color",
            "never",
        ];
        let (a, b) = (callint_in(&small, &args), callint_in(&large, &args));
        assert!(stdout(&a).contains("spoke-for-addressed"), "{format}");
        assert_eq!(stdout(&a), stdout(&b), "{format}");
    }
    let room = stdout(&callint_in(&large, &["check", ".", "--format", "concise"]));
    assert!(room.contains("answered-human-question"), "{room}");
    // Standard input is read whole; the findings are the same.
    let file = stdout(&callint_in(
        &large,
        &["check", "wren.jsonl", "--format", "concise", "--no-merge"],
    ));
    let piped = {
        use std::io::Write;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_callint"))
            .args(["check", "-", "--format", "concise", "--no-merge"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let bytes = std::fs::read(large.join("wren.jsonl")).unwrap();
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
        String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
    };
    assert!(file.contains("wren.jsonl:"), "{file}");
    assert_eq!(file.replace("wren.jsonl:", "-:"), piped);
    let _ = std::fs::remove_dir_all(&small);
    let _ = std::fs::remove_dir_all(&large);
}
