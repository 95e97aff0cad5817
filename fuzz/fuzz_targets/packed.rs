//! Compressed input on any bytes: the first byte chooses a gzip or zstd
//! signature to put before the rest, so the unpacking itself is fuzzed
//! (cut-off streams, bad headers, bad checksums), then the unpacked bytes
//! are linted as a file of that name and every invariant is checked
//! (`callint::app::harness`).
#![no_main]

use std::sync::OnceLock;

use callint::lint::engine::Linter;
use callint::app::harness;
use libfuzzer_sys::fuzz_target;

static LINTER: OnceLock<Linter> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let (magic, name): (&[u8], &str) = match which % 3 {
        0 => (&[0x1f, 0x8b], "call.jsonl.gz"),
        1 => (&[0x28, 0xb5, 0x2f, 0xfd], "room.vtt.zst"),
        _ => (&[], "call.jsonl.gz"),
    };
    let bytes = [magic, rest].concat();
    let linter = LINTER.get_or_init(harness::linter);
    if let Err(e) = harness::lint(linter, name, &bytes, None) {
        panic!("{e}");
    }
});
