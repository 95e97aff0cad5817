//! Writes a large, realistic native call log for benchmarks: one agent's
//! view of a long call with a human, Delta and three other agents.
//!
//! `cargo run --release --example genlog -- TURNS OUT.jsonl`
//!
//! The output is deterministic for a given number of turns. The generator
//! lives in `benches/support/genlog.rs`, shared with the benchmarks.

use std::io::BufWriter;

#[path = "../benches/support/genlog.rs"]
#[allow(dead_code)]
mod genlog;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let turns: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let out = args.get(2).map(String::as_str).unwrap_or("call.jsonl");
    let mut w = BufWriter::new(std::fs::File::create(out)?);
    genlog::write(turns, &mut w)
}
