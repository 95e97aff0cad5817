//! Every output of `check` and `report`, byte for byte, against the copy
//! kept in `tests/golden/`: on the corpus, on a long generated call, on a
//! room of several copies of it and on a batch of many small calls.
//!
//! A change that means to alter what callint prints (a new finding, a
//! reworded message) rewrites the copies with `CALLINT_BLESS=1 cargo test
//! --test suite golden::` and shows the difference in its diff; a change
//! that means to alter nothing (a restructuring, a faster path) must leave
//! them as they are.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{root, scratch};

use crate::genlog::generator;

/// Every renderer `check` has, with the flags that make it deterministic.
const FORMATS: &[(&str, &[&str])] = &[
    ("pretty", &["--format", "pretty", "--color", "never"]),
    ("concise", &["--format", "concise"]),
    ("json", &["--format", "json"]),
    ("jsonl", &["--format", "jsonl"]),
    ("sarif", &["--format", "sarif"]),
    ("github", &["--format", "github"]),
    ("junit", &["--format", "junit"]),
    ("gitlab", &["--format", "gitlab"]),
    ("statistics", &["--statistics"]),
];

fn run(dir: &Path, args: &[&str]) -> Vec<u8> {
    let o = Command::new(env!("CARGO_BIN_EXE_callint"))
        .args(args)
        .current_dir(dir)
        .env("COLUMNS", "120")
        .env("NO_COLOR", "1")
        .env(
            "XDG_CACHE_HOME",
            std::env::temp_dir().join("callint-test-cache"),
        )
        .output()
        .expect("run callint");
    let mut out = o.stdout;
    out.extend_from_slice(format!("-- exit {:?}\n", o.status.code()).as_bytes());
    if o.status.code() != Some(0) && o.status.code() != Some(1) {
        out.extend_from_slice(&o.stderr);
    }
    out
}

fn golden_dir() -> PathBuf {
    root().join("tests/golden")
}

/// Compare `got` with the kept copy `name` (or keep it, when blessing).
/// `whole` keeps the output itself; otherwise its length and hash, for
/// outputs too large to keep in the repository.
fn compare(name: &str, got: &[u8], whole: bool, wrong: &mut Vec<String>) {
    let kept = if whole {
        got.to_vec()
    } else {
        format!(
            "{} bytes, xxh3 {:016x}\n",
            got.len(),
            xxhash_rust::xxh3::xxh3_64(got)
        )
        .into_bytes()
    };
    let path = golden_dir().join(name);
    if std::env::var_os("CALLINT_BLESS").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, &kept).unwrap();
        return;
    }
    match std::fs::read(&path) {
        Ok(old) if old == kept => {}
        Ok(old) => {
            let first = old
                .split(|&b| b == b'\n')
                .zip(kept.split(|&b| b == b'\n'))
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            wrong.push(format!("{name}: differs from line {}", first + 1));
        }
        Err(_) => wrong.push(format!("{name}: no kept copy")),
    }
}

fn check_all(dir: &Path, paths: &[&str], label: &str, whole: bool, wrong: &mut Vec<String>) {
    for (format, flags) in FORMATS {
        let mut args = vec!["check", "--no-cache"];
        args.extend_from_slice(flags);
        args.extend_from_slice(paths);
        compare(&format!("{label}.{format}"), &run(dir, &args), whole, wrong);
    }
}

fn done(wrong: Vec<String>) {
    assert!(
        wrong.is_empty(),
        "outputs differ from tests/golden (rewrite them with CALLINT_BLESS=1 only if the change means to):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_corpus_prints_what_it_printed() {
    let mut wrong = Vec::new();
    check_all(&root(), &["corpus"], "corpus", true, &mut wrong);
    // The post-mortem of each case of several logs, as text and as a page.
    let mut cases: Vec<_> = std::fs::read_dir(root().join("corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    for case in cases {
        let mut logs: Vec<String> = std::fs::read_dir(&case)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .map(|p| {
                p.strip_prefix(root())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        if logs.len() < 2 {
            continue;
        }
        logs.sort();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let mut args = vec!["report"];
        args.extend(logs.iter().map(String::as_str));
        compare(
            &format!("report-{name}.txt"),
            &run(&root(), &args),
            true,
            &mut wrong,
        );
        let html_dir = scratch();
        let html = html_dir.join("report.html");
        let html_arg = html.to_string_lossy().into_owned();
        args.extend(["--html", &html_arg]);
        // A page shows one call: where the logs hold several, the refusal
        // is what is kept.
        let said = run(&root(), &args);
        let page = std::fs::read(&html).unwrap_or(said);
        compare(&format!("report-{name}.html"), &page, true, &mut wrong);
    }
    done(wrong);
}

#[test]
fn long_calls_rooms_and_batches_print_what_they_printed() {
    let dir = scratch();
    let mut log = Vec::new();
    generator::write(3_000, &mut log).unwrap();
    std::fs::write(dir.join("long.jsonl"), &log).unwrap();
    // A room: copies of the call, one call id.
    std::fs::create_dir_all(dir.join("room")).unwrap();
    for k in 0..4 {
        std::fs::write(dir.join(format!("room/{k}.jsonl")), &log).unwrap();
    }
    // A batch: many short calls in folders.
    for k in 0..60u64 {
        let sub = dir.join(format!("batch/{}", k % 6));
        std::fs::create_dir_all(&sub).unwrap();
        let mut small = Vec::new();
        generator::write(5 + k % 17, &mut small).unwrap();
        std::fs::write(sub.join(format!("{k}.jsonl")), &small).unwrap();
    }
    let mut wrong = Vec::new();
    check_all(&dir, &["long.jsonl"], "generated-long", false, &mut wrong);
    check_all(&dir, &["room"], "generated-room", false, &mut wrong);
    check_all(&dir, &["batch"], "generated-batch", false, &mut wrong);
    let html = dir.join("room.html");
    let html_arg = html.to_string_lossy().into_owned();
    let report = run(&dir, &["report", "room/0.jsonl", "room/1.jsonl"]);
    compare("generated-room-report.txt", &report, false, &mut wrong);
    run(
        &dir,
        &[
            "report",
            "room/0.jsonl",
            "room/1.jsonl",
            "--html",
            &html_arg,
        ],
    );
    compare(
        "generated-room-report.html",
        &std::fs::read(&html).unwrap(),
        false,
        &mut wrong,
    );
    done(wrong);
}
