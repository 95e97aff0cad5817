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
