//! Writes a large, realistic native call log for benchmarks: one agent's
//! view of a long call with a human, Delta and three other agents.
//!
//! `cargo run --release --example genlog -- TURNS OUT.jsonl`, or
//! `-- --speakers N OUT.jsonl` for a room of N speakers alike.
//!
//! The output is deterministic for a given number of turns. The generator
//! lives in `benches/support/genlog.rs`, shared with the benchmarks.

use std::io::BufWriter;

#[path = "../benches/support/genlog.rs"]
#[allow(dead_code)]
mod genlog;

fn main() -> std::io::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    // `--speakers N OUT`: a room of N speakers alike instead of a call.
    let speakers = args.first().is_some_and(|a| a == "--speakers");
    if speakers {
        args.remove(0);
    }
    let n: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let out = args.get(1).map(String::as_str).unwrap_or("call.jsonl");
    let mut w = BufWriter::new(std::fs::File::create(out)?);
    if speakers {
        genlog::write_speakers(n, &mut w)
    } else {
        genlog::write(n, &mut w)
    }
}
