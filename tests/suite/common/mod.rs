//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod convert;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use callint::lint::config::Config;
use callint::lint::engine::{FileResult, Linter};

/// Run the `callint` binary in `dir` (colour left to its own choice).
pub fn callint_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_callint"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .expect("run callint")
}

/// Run the `callint` binary in the crate's folder.
pub fn callint(args: &[&str]) -> Output {
    callint_in(&root(), args)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Run `callint guard ARGS` in `dir` with `input` on standard input. What
/// the guard keeps between runs goes to a test cache folder, out of the
/// user's, unless the arguments name one.
pub fn guard_in(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_callint"))
        .arg("guard")
        .args(args)
        .current_dir(dir)
        .env(
            "XDG_CACHE_HOME",
            std::env::temp_dir().join("callint-test-cache"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run callint guard");
    // A guard that stops reading early is no failure of the test's.
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

/// Run `callint guard ARGS` in `dir` with `input` on standard input, what
/// it keeps going to `dir/cache`; a run still going after `secs` seconds
/// is killed and fails the test.
pub fn guard_within(dir: &Path, args: &[&str], input: &[u8], secs: u64) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_callint"))
        .arg("guard")
        .args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run callint guard");
    let _ = child.stdin.take().unwrap().write_all(input);
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > std::time::Duration::from_secs(secs) {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!(
                "callint guard {args:?} still ran after {secs} s: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A fresh scratch folder under the system's temp dir, removed with what
/// it holds when the test is done with it (passed or failed).
pub fn scratch() -> Scratch {
    scratch_named("test")
}

/// [`scratch`], its name starting `callint-{what}-`.
pub fn scratch_named(what: &str) -> Scratch {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "callint-{what}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

/// A folder [`scratch`] made: a path, removed when dropped.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

/// Written as its path (in a hook input's `cwd`).
impl serde::Serialize for Scratch {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Lint `bytes` as a native log with only `select` active (all rules when
/// empty).
pub fn lint(name: &str, bytes: &[u8], select: &[&str]) -> FileResult {
    let select: Vec<String> = select.iter().map(|s| s.to_string()).collect();
    let linter = Linter::new(
        &Config::default(),
        (!select.is_empty()).then_some(select.as_slice()),
        &[],
    )
    .expect("valid selection");
    linter.lint(name, bytes.to_vec())
}

/// Lint several files together, the way `callint check` does: each on its
/// own, then the native logs of one call merged into one room (all rules).
pub fn lint_together(files: &[(String, Vec<u8>)]) -> Vec<FileResult> {
    let linter = Linter::new(&Config::default(), None, &[]).expect("valid selection");
    // The halves of a `tee` capture are linted together, as `callint
    // check` pairs them by name.
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let pairs = callint::input::tee::pairs(&names);
    let mut results: Vec<Option<FileResult>> = files.iter().map(|_| None).collect();
    for &(i, o) in &pairs {
        let (a, b) = linter.lint_pair(
            (&files[i].0, files[i].1.clone()),
            (&files[o].0, files[o].1.clone()),
        );
        results[i] = Some(a);
        results[o] = Some(b);
    }
    let mut results: Vec<FileResult> = results
        .into_iter()
        .zip(files)
        .map(|(r, (name, bytes))| r.unwrap_or_else(|| linter.lint(name, bytes.clone())))
        .collect();
    callint::room::pass(&linter, &mut results);
    results
}

/// Findings as `(line, rule)` pairs.
pub fn lines_and_rules(f: &FileResult) -> Vec<(usize, String)> {
    let index = callint::core::lines::LineIndex::new(&f.source);
    f.diagnostics
        .iter()
        .map(|d| {
            let at = callint::core::lines::resolve(&f.source, &index, &d.primary.at);
            (at.line, d.rule.to_string())
        })
        .collect()
}

/// A fenced example of a rule page.
#[derive(Debug)]
pub struct Example {
    pub good: bool,
    pub lang: String,
    pub body: String,
    /// 1-based line of the fence in the page.
    pub line: usize,
}

/// The fenced blocks of a page that follow a **Bad** or **Good** marker.
pub fn examples(page: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut kind: Option<bool> = None;
    let mut lines = page.lines().enumerate();
    while let Some((i, l)) = lines.next() {
        let t = l.trim_start();
        if t.starts_with("**Bad**") || t.starts_with("### Bad") {
            kind = Some(false);
        } else if t.starts_with("**Good**") || t.starts_with("### Good") {
            kind = Some(true);
        } else if t.starts_with("```") {
            // A fence of N backticks ends at a line of N of them, so that
            // an example can hold fenced blocks of its own.
            let n = t.bytes().take_while(|&b| b == b'`').count();
            let lang = t[n..].trim().to_string();
            let mut body = String::new();
            for (_, l) in lines.by_ref() {
                let e = l.trim();
                if e.len() == n && e.bytes().all(|b| b == b'`') {
                    break;
                }
                body.push_str(l);
                body.push('\n');
            }
            if let Some(good) = kind.take() {
                out.push(Example {
                    good,
                    lang,
                    body,
                    line: i + 1,
                });
            }
        } else if t.starts_with('#') {
            kind = None;
        }
    }
    out
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Corpus cases: folders of `corpus/` with an `expected.tsv`.
pub fn corpus_cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("corpus"))
        .expect("corpus/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("expected.tsv").is_file())
        .collect();
    v.sort();
    v
}

/// An expected finding: file name, line, rule.
pub type Expected = (String, usize, String);

pub fn expected(case: &Path) -> Vec<Expected> {
    let text = std::fs::read_to_string(case.join("expected.tsv")).expect("expected.tsv");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut f = l.split('\t');
            let file = f.next().unwrap().to_string();
            let line = f.next().and_then(|n| n.parse().ok()).expect("line number");
            let rule = f.next().expect("rule").to_string();
            (file, line, rule)
        })
        .collect()
}

/// Inputs of a case (every file but its annotations), sorted.
pub fn case_logs(case: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(case)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && !p.ends_with("expected.tsv"))
        .collect();
    v.sort();
    v
}

/// A `callint.toml` under which the two rules of severity info deny too,
/// so that every finding a live judge can see shows as a denial.
pub const INFO_DENIES: &str = "[rules.decision-not-yes-no]\nseverity = \"warning\"\n[rules.participant-offered-action]\nseverity = \"warning\"\n";

/// A corpus case's annotated findings (`CASE/expected.tsv`, `case` relative
/// to the crate): the rules per (file, line).
pub fn expected_findings(case: &str) -> BTreeMap<(String, usize), BTreeSet<String>> {
    let tsv = std::fs::read_to_string(root().join(case).join("expected.tsv")).unwrap();
    let mut m: BTreeMap<(String, usize), BTreeSet<String>> = BTreeMap::new();
    for l in tsv.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = l.split('\t').collect();
        m.entry((f[0].to_string(), f[1].parse().unwrap()))
            .or_default()
            .insert(f[2].to_string());
    }
    m
}
