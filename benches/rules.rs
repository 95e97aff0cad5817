//! Speed of the rules on a realistic call (the native log of
//! `examples/genlog.rs`), family by family, all of them, the whole lint
//! (parse, model, rules), and the renderers on the findings.
//!
//! `cargo bench --bench rules`. Each rule family runs with `Linter::new`
//! selecting only its rules, over the call already read and modelled, so
//! the times are the rules' own.

use std::hint::black_box;
use std::time::Duration;

use callint::input::{self, Format};
use callint::lint::config::Config;
use callint::lint::engine::{FileResult, Linter};
use callint::model::{Call, Cast};
use callint::report::{self, pretty::Style, Summary};
use criterion::{criterion_group, criterion_main, Criterion};

#[path = "support/genlog.rs"]
#[allow(dead_code)]
mod genlog;

/// Turns of the human in the generated call (about 1,500 records).
const TURNS: u64 = 400;

/// The rule families of the catalogue (the README's table, grouped).
const FAMILIES: &[(&str, &[&str])] = &[
    (
        "board-and-labels",
        &[
            "board-bundle",
            "board-missing-emoji",
            "question-on-board",
            "decision-not-yes-no",
            "label-too-long",
            "ambiguous-labels",
        ],
    ),
    (
        "turns-and-addressing",
        &[
            "answered-agent",
            "spoke-for-addressed",
            "answered-human-question",
            "asked-delta",
            "spoke-over-delta",
            "unaddressed-request",
            "unanswered-agent",
            "missed-line",
            "slow-ack",
            "ack-not-addressed",
        ],
    ),
    ("language", &["wrong-language"]),
    (
        "link-and-join",
        &[
            "create-call-delegated",
            "foreground-wait-before-link",
            "join-sequence",
            "link-missing-until-joined",
            "link-not-last",
            "no-greeting",
        ],
    ),
    (
        "speech-and-claims",
        &[
            "long-say",
            "repeated-say",
            "resent-dropped-say",
            "contradicted-claim",
        ],
    ),
    (
        "conduct",
        &[
            "participant-acted",
            "participant-offered-action",
            "timeout-events-dropped",
        ],
    ),
];

fn linter(select: Option<&[&str]>) -> Linter {
    let select: Option<Vec<String>> = select.map(|s| s.iter().map(|r| r.to_string()).collect());
    Linter::new(&Config::default(), select.as_deref(), &[]).expect("known rules")
}

fn bench(c: &mut Criterion) {
    let native = genlog::native(TURNS);
    let parsed = input::parse(Format::Native, &native);
    let log = &parsed.logs[0];
    let cast = Cast::default();
    let call = Call::build(log.meta.as_ref(), &log.records, &cast);

    let mut g = c.benchmark_group("rules");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(20);
    let mut every: Vec<&str> = Vec::new();
    for (family, rules) in FAMILIES {
        every.extend(*rules);
        let l = linter(Some(rules));
        assert_eq!(l.active_rules().count(), rules.len(), "{family}");
        g.bench_function(*family, |b| {
            b.iter(|| {
                let mut out = Vec::new();
                l.run(black_box(&call), &mut out);
                out
            })
        });
    }
    let all = linter(None);
    // The families cover the catalogue.
    assert_eq!(all.active_rules().count(), every.len());
    g.bench_function("all-rules", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            all.run(black_box(&call), &mut out);
            out
        })
    });
    g.bench_function("lint", |b| {
        b.iter(|| all.lint("call.jsonl", black_box(native.clone())))
    });
    g.finish();

    let result: FileResult = all.lint("call.jsonl", native.clone());
    assert!(
        !result.diagnostics.is_empty(),
        "the renderers need findings to write"
    );
    let mut summary = Summary::default();
    summary.add(&result);
    let files = std::slice::from_ref(&result);
    let mut g = c.benchmark_group("render");
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(20);
    g.bench_function("json", |b| {
        b.iter(|| report::json::render(black_box(files), &summary))
    });
    g.bench_function("pretty", |b| {
        b.iter(|| {
            let mut out = String::new();
            let style = Style {
                color: false,
                width: 100,
            };
            report::pretty::render(black_box(&result), style, &mut out);
            out
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
