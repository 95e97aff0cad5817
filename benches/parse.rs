//! Speed of the input readers on a realistic call: the native log that
//! `examples/genlog.rs` writes (a long call seen by one agent, with a
//! human, Delta and three other agents), and the same call as an MCP trace
//! and as a transcript.
//!
//! `cargo bench --bench parse`. Criterion reports the time per input and
//! the throughput in bytes per second.

use std::hint::black_box;
use std::time::Duration;

use callint::input::{self, Format};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

#[path = "support/genlog.rs"]
#[allow(dead_code)]
mod genlog;

/// Turns of the human in the generated call (about 1,500 records).
const TURNS: u64 = 400;

fn bench(c: &mut Criterion) {
    let native = genlog::native(TURNS);
    let inputs = [
        ("native", Format::Native, native.clone()),
        ("mcp", Format::Mcp, genlog::mcp_trace(&native)),
        (
            "transcript",
            Format::Transcript,
            genlog::transcript(&native),
        ),
    ];
    let mut g = c.benchmark_group("parse");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(20);
    for (name, format, bytes) in &inputs {
        let parsed = input::parse(*format, bytes);
        assert!(
            parsed.problems.is_empty() && parsed.logs.iter().any(|l| !l.records.is_empty()),
            "{name}: the generated input reads cleanly"
        );
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(*name, |b| {
            b.iter(|| input::parse(*format, black_box(bytes)))
        });
    }
    // Telling the format from the content.
    g.throughput(Throughput::Bytes(native.len() as u64));
    g.bench_function("detect", |b| {
        b.iter(|| input::detect(black_box("call.jsonl"), black_box(&native)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
