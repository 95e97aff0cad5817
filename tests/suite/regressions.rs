//! Inputs that once broke an invariant of `callint::app::harness` (found by the
//! fuzz targets in `fuzz/`, or by hand), kept in `tests/regressions/`: each
//! file is linted in every format and under every name the harness knows,
//! and every invariant must hold. The corpus is checked the same way.

use crate::common;

use callint::app::harness;

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
        if p.is_file() && p.file_name().is_some_and(|n| n != "README.md") {
            check_all(&p.display().to_string(), &std::fs::read(&p).unwrap());
            n += 1;
        }
    }
    assert!(n > 0, "no inputs in {}", dir.display());
}

/// The harness itself catches what it promises to catch.
#[test]
fn the_harness_catches_broken_promises() {
    use callint::core::diagnostic::{Diagnostic, Label, Severity};
    use callint::model::{Anchor, Span};

    assert_eq!(harness::raw_control("ok\nfine"), None);
    for bad in [
        "\u{1b}[2J",
        "\u{7}",
        "\t",
        "\r",
        "\0",
        "\u{7f}",
        "\u{9b}",
        "\u{202e}",
    ] {
        assert!(
            harness::raw_control(&format!("a{bad}b")).is_some(),
            "{bad:?}"
        );
    }
    let linter = harness::linter();
    let mut f = linter.lint("call.jsonl", b"{\"fn\":\"leave\"}\nnot json\n".to_vec());
    assert!(harness::check_result(&f).is_ok());
    let finding = |span: Span| Diagnostic {
        rule: "invalid-record",
        severity: Severity::Error,
        message: "x".into(),
        agent: None,
        primary: Label {
            at: Anchor::bytes(span),
            text: None,
        },
        labels: Vec::new(),
        help: None,
        call: None,
        ts: None,
        fingerprint: None,
        about: None,
    };
    // Past the end of the input, and ending before it starts.
    for span in [Span::new(5, 500), Span::new(9, 3)] {
        f.diagnostics = vec![finding(span)];
        let e = harness::check_result(&f).expect_err("a finding outside the input");
        assert!(e.contains("not inside"), "{e}");
    }
    // A message with a raw escape never reaches the pretty output raw.
    f.diagnostics = vec![finding(Span::new(0, 4))];
    f.diagnostics[0].message = "\u{1b}]0;t\u{7}".into();
    assert!(harness::check_result(&f).is_ok());
    assert!(!harness::pretty(&f).contains('\u{1b}'));
}

/// The fuzz script names the check target's formats by their place in
/// `harness::FORMATS`; the two lists stay alike.
#[test]
fn the_fuzz_script_knows_the_formats_in_order() {
    let script = std::fs::read_to_string(common::root().join("scripts/fuzz.sh")).unwrap();
    let list = script
        .split_once("check_formats=(")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(l, _)| l)
        .expect("scripts/fuzz.sh lists check_formats");
    let script_names: Vec<&str> = list.split_whitespace().collect();
    let names: Vec<&str> = harness::FORMATS.iter().map(|f| f.name()).collect();
    assert_eq!(script_names, names);
}
