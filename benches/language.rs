//! Speed of call-language identification on a mix of call utterances.
//!
//! `cargo bench --bench language`. The mix is callint's own test utterances
//! (`tests/data/utterances/`: English, German with loanwords, and lines with
//! no or mixed language), the way a log's `say`s look. Baselines on the same
//! mix in the same run: whatlang's `detect` over all its languages, and
//! whatlang restricted to English and German. Criterion reports the time for
//! the whole mix; divide by the item count printed first (or read the
//! throughput in elements per second).

use std::hint::black_box;

use callint::text::language::{identify, identify_in_call, warm_up, Lang};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const FILES: [&str; 3] = [
    include_str!("../tests/data/utterances/en.txt"),
    include_str!("../tests/data/utterances/de.txt"),
    include_str!("../tests/data/utterances/unsure.txt"),
];

/// The utterances and the names to discount (the files' `# ignore:` lines).
fn mix() -> (Vec<&'static str>, Vec<&'static str>) {
    let mut items = Vec::new();
    let mut ignore = Vec::new();
    for file in FILES {
        for line in file.lines().map(str::trim) {
            if let Some(names) = line.strip_prefix("# ignore:") {
                ignore.extend(names.split(',').map(str::trim).filter(|s| !s.is_empty()));
            } else if !line.is_empty() && !line.starts_with('#') {
                items.push(line);
            }
        }
    }
    ignore.sort_unstable();
    ignore.dedup();
    (items, ignore)
}

fn bench(c: &mut Criterion) {
    warm_up();
    let (items, ignore) = mix();
    eprintln!("language bench: {} utterances per iteration", items.len());
    let mut group = c.benchmark_group("language");
    group.throughput(Throughput::Elements(items.len() as u64));
    group.bench_function("callint identify", |b| {
        b.iter(|| {
            for text in &items {
                black_box(identify(black_box(text), &ignore));
            }
        })
    });
    group.bench_function("callint identify_in_call (every language)", |b| {
        b.iter(|| {
            for text in &items {
                black_box(identify_in_call(black_box(text), &ignore, Lang::En));
            }
        })
    });
    group.bench_function("callint identify, no names", |b| {
        b.iter(|| {
            for text in &items {
                black_box(identify(black_box(text), &[]));
            }
        })
    });
    group.bench_function("whatlang detect", |b| {
        b.iter(|| {
            for text in &items {
                black_box(whatlang::detect(black_box(text)));
            }
        })
    });
    let en_de = whatlang::Detector::with_allowlist(vec![whatlang::Lang::Eng, whatlang::Lang::Deu]);
    group.bench_function("whatlang detect, en/de only", |b| {
        b.iter(|| {
            for text in &items {
                black_box(en_de.detect(black_box(text)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
