//! Inputs that once broke an invariant of `callint::harness` (found by the
//! fuzz targets in `fuzz/`, or by hand), kept in `tests/regressions/`: each
//! file is linted in every format and under every name the harness knows,
//! and every invariant must hold. The corpus is checked the same way.

mod common;

use callint::harness;

fn check_all(what: &str, bytes: &[u8]) {
    let linter = harness::linter();
    for &format in harness::FORMATS {
        if let Err(e) = harness::lint(&linter, "input", bytes, Some(format)) {
            panic!("{what} read as {}: {e}", format.name());
        }
    }
    for name in harness::NAMES {
        if let Err(e) = harness::lint(&linter, name, bytes, None) {
            panic!("{what} named {name}: {e}");
        }
    }
}

#[test]
fn every_corpus_file_keeps_the_invariants() {
    for case in common::corpus_cases() {
        for p in common::case_logs(&case) {
            check_all(&p.display().to_string(), &std::fs::read(&p).unwrap());
        }
    }
}

#[test]
fn every_regression_input_keeps_the_invariants() {
    let dir = common::root().join("tests/regressions");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path();
        if p.is_file() && p.extension().is_none_or(|x| x != "md") {
            check_all(&p.display().to_string(), &std::fs::read(&p).unwrap());
            n += 1;
        }
    }
    assert!(n > 0, "no inputs in {}", dir.display());
}
