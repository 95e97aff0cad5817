//! The readers of MCP clients' logs and recording tools on any bytes: the
//! first byte picks Claude Desktop's log, an mcp-debug recording, the
//! Inspector's history or a `tee` half; the rest is read and linted as
//! that, every renderer's invariants included (`callint::app::harness`).
#![no_main]

use std::sync::OnceLock;

use callint::lint::engine::Linter;
use callint::app::harness;
use callint::input::{Format, Recorder};
use libfuzzer_sys::fuzz_target;

static LINTER: OnceLock<Linter> = OnceLock::new();

const FORMATS: [Format; 4] = [
    Format::Recording(Recorder::ClaudeDesktop),
    Format::Recording(Recorder::McpDebug),
    Format::Recording(Recorder::Inspector),
    Format::Recording(Recorder::Tee),
];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let format = FORMATS[usize::from(sel) % FORMATS.len()];
    let linter = LINTER.get_or_init(harness::linter);
    if let Err(e) = harness::lint(linter, "input", bytes, Some(format)) {
        panic!("{e}");
    }
});
