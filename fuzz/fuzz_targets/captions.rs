//! The WebVTT and SRT readers on any bytes (the first byte chooses which),
//! then the whole lint of the input as that format: records, problems and
//! findings inside the input, and every renderer's invariants
//! (`callint::app::harness`).
#![no_main]

use std::sync::OnceLock;

use callint::lint::engine::Linter;
use callint::app::harness;
use callint::input::Format;
use libfuzzer_sys::fuzz_target;

static LINTER: OnceLock<Linter> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    let format = if which % 2 == 0 { Format::Vtt } else { Format::Srt };
    let linter = LINTER.get_or_init(harness::linter);
    if let Err(e) = harness::lint(linter, "input", bytes, Some(format)) {
        panic!("{e}");
    }
});
