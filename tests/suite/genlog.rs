//! The generator of the benchmarks' long calls (`benches/support/genlog.rs`):
//! its clock, which a long call relies on to stay in time order.

#[allow(dead_code)]
#[path = "../../benches/support/genlog.rs"]
pub(crate) mod generator;

/// A long call's rules run side by side; what they find, and in which
/// order, is what one after the other finds (a pool of one thread runs
/// them one after the other).
#[test]
fn a_long_calls_rules_side_by_side_find_what_one_after_the_other_finds() {
    let mut log = Vec::new();
    generator::write(2_500, &mut log).unwrap();
    let linter =
        callint::lint::engine::Linter::new(&callint::lint::config::Config::default(), None, &[])
            .unwrap();
    let lint = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| linter.lint("long.jsonl", log.clone()))
    };
    let one = lint(1);
    let two = lint(2);
    assert!(
        one.records >= 4_096,
        "{} records: too few to run side by side",
        one.records
    );
    assert!(one.diagnostics.len() > 10, "{:?}", one.diagnostics.len());
    assert_eq!(
        format!("{:?}", one.diagnostics),
        format!("{:?}", two.diagnostics)
    );
}

// Each generator is a file of its own for the examples that write it, and
// both take their clock from `common.rs`, so the tests hold it twice.
#[allow(clippy::duplicate_mod)]
#[path = "../../benches/support/benchgen.rs"]
mod benchgen;

/// The matrix's logs are call logs as callint reads them: no record is
/// invalid, every call is found, and the same log with spaces in its JSON
/// gives the same findings at the same lines.
#[test]
fn the_bench_generator_writes_valid_logs_alike_in_either_serialisation() {
    for (agents, lang, calls, echo) in [
        (5, "en", 1, 0),
        (12, "de", 1, 0),
        (5, "mix", 3, 0),
        (5, "en", 1, 100),
    ] {
        let mut findings = Vec::new();
        for spaced in [false, true] {
            let knobs = benchgen::Knobs {
                turns: 600,
                agents,
                lang: lang.into(),
                calls,
                spaced,
                echo,
                ..benchgen::Knobs::default()
            };
            let mut log = Vec::new();
            benchgen::write(&knobs, &mut log).unwrap();
            let f = crate::common::lint("bench.jsonl", &log, &[]);
            assert_eq!(f.calls.len(), calls as usize, "{knobs:?}");
            assert!(f.records > 600 * calls as usize, "{knobs:?}: {}", f.records);
            let index = callint::core::lines::LineIndex::new(&f.source);
            let got: Vec<(usize, &str)> = f
                .diagnostics
                .iter()
                .map(|d| {
                    (
                        callint::core::lines::resolve(&f.source, &index, &d.primary.at).line,
                        d.rule,
                    )
                })
                .collect();
            assert!(
                !got.iter().any(|(_, r)| *r == "invalid-record"),
                "{knobs:?}: {got:?}"
            );
            // The recorder's says echoed back are its own, not another
            // agent's under its label.
            assert!(
                !got.iter().any(|(_, r)| *r == "ambiguous-labels"),
                "{knobs:?}: {got:?}"
            );
            findings.push(format!("{got:?}"));
        }
        assert_eq!(findings[0], findings[1], "{agents} agents, {lang}");
    }
}
