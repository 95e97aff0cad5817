//! The whole `check` path on any bytes: the first byte picks a forced
//! format or a file name to detect the format under; then parse, every
//! rule, and every renderer (pretty without colour, concise, json, sarif,
//! github), with the invariants of `callint::app::harness`.
#![no_main]

use std::sync::OnceLock;

use callint::lint::engine::Linter;
use callint::app::harness;
use libfuzzer_sys::fuzz_target;

static LINTER: OnceLock<Linter> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let linter = LINTER.get_or_init(harness::linter);
    if let Err(e) = harness::fuzz_check(linter, data) {
        panic!("{e}");
    }
});
