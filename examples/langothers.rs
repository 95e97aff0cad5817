//! A say in a language other than the call's: how often `wrong-language`
//! reports it, and names the language rightly.
//!
//! ```text
//! scripts/lang-others-eval.sh        # fetches the test data, then runs this
//! cargo run --release --example langothers
//! ```
//!
//! Test sets: lingua's public test data (the `testdata/` folders of its
//! language-model crates, 1,000 sentences, word pairs and single words per
//! language) for English, German and ten other languages. Each item is said
//! in an English call and in a German call and judged as the rule judges a
//! say: [`identify_in_call`]. For comparison, the call-language model alone
//! ([`identify`], English against German, what the rule used before).
//!
//! Printed per language and set: reported % (any verdict but the call
//! language) and, of those, named rightly % (the language, or one of the two
//! a say is said to be in when a close relative fits its words as well; the
//! summary gives the share named rightly by one name alone too); for English and German in
//! their own call that share is the false alarms. Then the mean time per
//! item of both methods, timed in this run (the fastest of three passes).
//! `--errors LANGUAGE` (lingua's name: `german`) lists that language's
//! false alarms, misses and wrong names.

use std::path::PathBuf;
use std::time::Instant;

use callint::text::language::{identify, identify_in_call, Heard, Lang, Verdict};

#[path = "support/lingua_data.rs"]
mod lingua_data;

/// lingua's crate name part, and the codes a right answer may carry.
const LANGS: &[(&str, &[&str])] = &[
    ("english", &["en"]),
    ("german", &["de"]),
    ("french", &["fr"]),
    ("spanish", &["es"]),
    ("italian", &["it"]),
    ("dutch", &["nl"]),
    ("portuguese", &["pt"]),
    ("polish", &["pl"]),
    ("russian", &["ru"]),
    ("turkish", &["tr"]),
    ("swedish", &["sv"]),
    // Han characters alone are named "Chinese or Japanese".
    ("japanese", &["jpn", "Han"]),
];
const KINDS: &[&str] = &["sentences", "word-pairs", "single-words"];
const PASSES: usize = 3;

/// One language's test data: its name, the codes a right answer may carry,
/// and its items per kind (in [`KINDS`] order).
type Set = (&'static str, &'static [&'static str], [Vec<String>; 3]);

fn main() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let args: Vec<String> = std::env::args().collect();
    let errors_of = args
        .iter()
        .position(|a| a == "--errors")
        .and_then(|i| args.get(i + 1).cloned());
    let mut sets: Vec<Set> = Vec::new();
    for (name, codes) in LANGS {
        let krate = format!("lingua-{name}-language-model");
        let Some(dir) = lingua_data::testdata(&manifest, &krate) else {
            eprintln!("no test data for {name} ({krate}): run scripts/lang-others-eval.sh");
            std::process::exit(2);
        };
        let read = |kind: &str| -> Vec<String> {
            let path = dir.join(format!("{kind}.txt"));
            std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect()
        };
        sets.push((
            name,
            codes,
            [read(KINDS[0]), read(KINDS[1]), read(KINDS[2])],
        ));
    }
    let _ = identify("warm up", &[]);
    println!(
        "{:<12} {:>26} {:>26} {:>26}",
        "language", "sentences", "word pairs", "single words"
    );
    println!(
        "{:<12} {:>26} {:>26} {:>26}",
        "",
        "@en rep/named @de rep/named",
        "@en rep/named @de rep/named",
        "@en rep/named @de rep/named"
    );
    // Per kind and call: (reported, named rightly, items) over the other
    // languages; and the false alarms of English and German in their own
    // call, for both methods.
    let mut totals = [[(0usize, 0usize, 0usize); 2]; 3];
    let mut before = [[(0usize, 0usize, 0usize); 2]; 3];
    let mut own = [[(0usize, 0usize); 2]; 3];
    for (name, codes, kinds) in &sets {
        let mut row = format!("{name:<12}");
        for (k, items) in kinds.iter().enumerate() {
            for (c, call) in [Lang::En, Lang::De].into_iter().enumerate() {
                let own_call = codes.contains(&call.code());
                let (mut reported, mut named, mut named_alone) = (0, 0, 0);
                let mut old = 0;
                for text in items {
                    let heard = identify_in_call(text, &[], call);
                    let got = heard != Heard::CallOrUnsure;
                    let right = codes.iter().any(|c| heard.is(c));
                    let alone = heard.alone();
                    reported += usize::from(got);
                    named += usize::from(right);
                    named_alone += usize::from(right && alone);
                    let wrong = if own_call { got } else { !right };
                    if wrong && errors_of.as_deref() == Some(*name) {
                        println!(
                            "  {} in a {} call: {text:?} -> {heard:?}",
                            KINDS[k],
                            call.name()
                        );
                    }
                    if let Verdict::Lang { lang, .. } = identify(text, &[]) {
                        old += usize::from(lang != call);
                    }
                }
                if own_call {
                    own[k][c] = (reported, old);
                    row += &format!(" {:>12}", format!("FA {:.2}", pct(reported, items.len())));
                    continue;
                }
                row += &format!(
                    " {:>5.1}/{:>5.1}",
                    pct(reported, items.len()),
                    pct(named, reported)
                );
                if !matches!(*name, "english" | "german") {
                    let t = &mut totals[k][c];
                    *t = (t.0 + reported, t.1 + named, t.2 + items.len());
                    let b = &mut before[k][c];
                    *b = (b.0 + old, b.1 + named_alone, b.2 + items.len());
                }
            }
            row += " ";
        }
        println!("{row}");
    }
    println!();
    println!("the ten other languages, said in an English call / a German call:");
    for (k, kind) in KINDS.iter().enumerate() {
        let [en, de] = totals[k];
        let [ben, bde] = before[k];
        println!(
            "  {kind:<13} reported {:5.1} % / {:5.1} %  named rightly {:5.1} % / {:5.1} % (by one name alone {:5.1} % / {:5.1} %)  (before: reported {:5.1} % / {:5.1} %, never named)",
            pct(en.0, en.2),
            pct(de.0, de.2),
            pct(en.1, en.0),
            pct(de.1, de.0),
            pct(ben.1, en.0),
            pct(bde.1, de.0),
            pct(ben.0, ben.2),
            pct(bde.0, bde.2),
        );
    }
    println!("English in an English call, German in a German call: false alarms (now / before):");
    for (k, kind) in KINDS.iter().enumerate() {
        let n = |lang: usize| sets[lang].2[k].len();
        println!(
            "  {kind:<13} English {:.2} % / {:.2} %   German {:.2} % / {:.2} %",
            pct(own[k][0].0, n(0)),
            pct(own[k][0].1, n(0)),
            pct(own[k][1].0, n(1)),
            pct(own[k][1].1, n(1)),
        );
    }
    let all: Vec<&str> = sets
        .iter()
        .flat_map(|(_, _, kinds)| kinds.iter().flatten().map(String::as_str))
        .collect();
    let time = |f: &dyn Fn(&str)| -> f64 {
        (0..PASSES)
            .map(|_| {
                let start = Instant::now();
                for text in &all {
                    f(text);
                }
                start.elapsed().as_secs_f64() * 1e6 / all.len() as f64
            })
            .fold(f64::INFINITY, f64::min)
    };
    let old = time(&|t| {
        std::hint::black_box(identify(t, &[]));
    });
    let new = time(&|t| {
        std::hint::black_box(identify_in_call(t, &[], Lang::En));
    });
    println!(
        "time per item, {} items: identify {old:.2} µs, identify_in_call {new:.2} µs ({:.2}x)",
        all.len(),
        new / old
    );
}

fn pct(a: usize, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        100.0 * a as f64 / n as f64
    }
}
