//! The Gemini CLI session reader on any bytes, then the whole lint of the input as
//! this format: records, problems and findings inside the input, and
//! every renderer's invariants (`callint::app::harness`).
#![no_main]

use std::sync::OnceLock;

use callint::lint::engine::Linter;
use callint::app::harness;
use callint::input::{Client, Format};
use libfuzzer_sys::fuzz_target;

static LINTER: OnceLock<Linter> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let linter = LINTER.get_or_init(harness::linter);
    if let Err(e) = harness::lint(linter, "input", data, Some(Format::Session(Client::Gemini))) {
        panic!("{e}");
    }
});
