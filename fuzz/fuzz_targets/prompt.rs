//! The prompt and helper-code reader on any bytes: the first byte picks
//! markdown (prompt, skill) or one language of helper code; the rest is
//! read and linted as that, every renderer's invariants included
//! (`callint::app::harness`).
#![no_main]

use std::sync::OnceLock;

use callint::lint::engine::Linter;
use callint::app::harness;
use callint::input::{CodeLang, Format};
use libfuzzer_sys::fuzz_target;

static LINTER: OnceLock<Linter> = OnceLock::new();

const FORMATS: [Format; 4] = [
    Format::Prompt,
    Format::Code(CodeLang::Python),
    Format::Code(CodeLang::JavaScript),
    Format::Code(CodeLang::Shell),
];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    // Most inputs as markdown: a skill's fences hold every other shape.
    let format = match sel % 8 {
        k @ 1..=3 => FORMATS[usize::from(k)],
        _ => Format::Prompt,
    };
    let linter = LINTER.get_or_init(harness::linter);
    if let Err(e) = harness::lint(linter, "input", bytes, Some(format)) {
        panic!("{e}");
    }
});
