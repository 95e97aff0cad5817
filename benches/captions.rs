//! Speed of the caption reader on a large WebVTT file: a meeting of
//! 20,000 cues (about 1.6 MB), voice tags and `Name: ` cues mixed, with
//! the headers that name who is who.
//!
//! `cargo bench --bench captions`. Criterion reports the time per file
//! and the throughput in bytes per second.

use std::hint::black_box;
use std::time::Duration;

use callint::input::{self, Format};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// Cues in the generated file.
const CUES: usize = 20_000;

/// A WebVTT file of `n` cues.
fn vtt(n: usize) -> Vec<u8> {
    let mut out = String::from(
        "WEBVTT\nLanguage: en\n\nNOTE human: Oliver\nNOTE agents: Kit, Bolt\n\nSTYLE\n::cue { color: yellow }\n\n",
    );
    let lines = [
        "<v Oliver>Kit, can you check the build logs and tell me what failed?",
        "Kit: On it, one moment. The relay test failed on the second run.",
        "<v Bolt>I can take the docs while Kit looks at the relay &amp; the logs.",
        "<v.loud Oliver>Thanks. Bolt, please <i>also</i> update the release notes.",
        "Bolt: Will do.\nThe notes will be ready in ten minutes.",
    ];
    for k in 0..n {
        let (s, e) = (k * 2_000, k * 2_000 + 1_800);
        let t = |ms: usize| {
            format!(
                "{:02}:{:02}:{:02}.{:03}",
                ms / 3_600_000,
                ms / 60_000 % 60,
                ms / 1_000 % 60,
                ms % 1_000
            )
        };
        out.push_str(&format!(
            "{}\n{} --> {} align:start\n{}\n\n",
            k + 1,
            t(s),
            t(e),
            lines[k % lines.len()]
        ));
    }
    out.into_bytes()
}

fn bench(c: &mut Criterion) {
    let bytes = vtt(CUES);
    let parsed = input::parse(Format::Vtt, &bytes);
    assert!(
        parsed.problems.is_empty() && parsed.logs.len() == 2,
        "the generated captions read cleanly"
    );
    let mut g = c.benchmark_group("captions");
    g.measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(20);
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("vtt", |b| {
        b.iter(|| input::parse(Format::Vtt, black_box(&bytes)))
    });
    // With the text settled first, as `check` reads a file.
    g.bench_function("vtt-with-text", |b| {
        b.iter(|| {
            let text = input::text::decode(black_box(&bytes));
            input::parse(Format::Vtt, &text.bytes)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
