//! Speed of linting a large skill: about 300 KB of markdown, the corpus's
//! skills (bad and good, English and German) between sections of
//! unrelated prose, read as instructions with every rule active.
//!
//! `cargo bench --bench skills`.

use std::hint::black_box;
use std::time::Duration;

use callint::lint::config::Config;
use callint::lint::engine::Linter;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// The skill: the corpus's skills, each after a section of other prose,
/// repeated up to `size` bytes.
fn skill(size: usize) -> Vec<u8> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/skills");
    let mut parts: Vec<String> = [
        "bad-skill.md",
        "good-skill.md",
        "bad-skill-de.md",
        "good-skill-de.md",
    ]
    .iter()
    .map(|f| std::fs::read_to_string(format!("{dir}/{f}")).expect("a corpus skill"))
    .collect();
    // front matter only at the top
    for p in &mut parts {
        if let Some(rest) = p.strip_prefix("---\n") {
            if let Some(k) = rest.find("\n---\n") {
                *p = rest[k + 5..].to_string();
            }
        }
    }
    let other = "## Coding conventions\n\nRun the formatter before every commit. Keep functions short and name them for what they do. Write a test for each bug you fix, and make sure it fails before the fix.\n\n| step | command |\n|---|---|\n| build | `cargo build` |\n| test | `cargo test` |\n\n```sh\ncargo test --locked\n```\n\n";
    let mut out = String::from("# Agent instructions\n\n");
    let mut k = 0;
    while out.len() < size {
        out.push_str(other);
        out.push_str(&parts[k % parts.len()].replace("# ", "## "));
        out.push('\n');
        k += 1;
    }
    out.into_bytes()
}

fn bench(c: &mut Criterion) {
    let linter = Linter::new(&Config::default(), None, &[]).expect("a linter");
    let bytes = skill(300 * 1024);
    let found = linter.lint("SKILL.md", bytes.clone()).diagnostics.len();
    assert!(found > 100, "the skill's instructions are judged: {found}");
    let mut g = c.benchmark_group("skills");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(20)
        .throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("lint-300k-skill", |b| {
        b.iter(|| black_box(linter.lint("SKILL.md", black_box(bytes.clone()))))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
