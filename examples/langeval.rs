//! Accuracy and speed of call-language identification, English vs German.
//!
//! ```text
//! cargo run --release --example langeval [-- --errors METHOD] [--only PREFIX] [--single]
//! ```
//!
//! `--only "callint identify"` measures that method alone; `--single` only
//! lingua's single words, with both languages' figures together (the
//! figure for `wrong-language` on one-word says).
//!
//! Test sets: lingua's public test data (the `testdata/` folders of the
//! `lingua-english-language-model` and `lingua-german-language-model`
//! crates, found with `cargo metadata` or under `$CARGO_HOME/registry/src`:
//! 1,000 single words, word pairs and sentences per language) and callint's
//! own call-style utterances in `tests/data/utterances/` (`en.txt`,
//! `de.txt`, and `unsure.txt`, where abstaining is right).
//!
//! Methods: whatlang and lingua restricted to English and German, and
//! callint's [`identify`] with variants. For every method and set it prints
//! per language: correct %, false alarms (a confident answer naming the
//! other language) and abstentions % (`Unsure`, or no answer), and the mean
//! µs per item, timed in this run (the fastest of three passes over the set,
//! since other processes on the machine only ever add time). With `--errors METHOD` it also lists that
//! method's wrong and abstained items.

use std::path::{Path, PathBuf};
use std::time::Instant;

use callint::text::language::{self, analyze, Lang, Options, Verdict};

#[path = "support/lingua_data.rs"]
mod lingua_data;

/// Timed passes per method and set; the fastest one's mean is printed.
const PASSES: usize = 3;

/// One test item: text, names to discount, expected language (None: the
/// right answer is to abstain).
struct Item {
    text: String,
    expect: Option<Lang>,
}

struct Set {
    name: String,
    ignore: Vec<String>,
    items: Vec<Item>,
}

trait Method {
    fn name(&self) -> String;
    /// None: abstains.
    fn detect(&self, text: &str, ignore: &[&str]) -> Option<Lang>;
}

struct Whatlang {
    detector: whatlang::Detector,
    reliable_only: bool,
}

impl Method for Whatlang {
    fn name(&self) -> String {
        if self.reliable_only {
            "whatlang (reliable only)".into()
        } else {
            "whatlang".into()
        }
    }
    fn detect(&self, text: &str, _ignore: &[&str]) -> Option<Lang> {
        let info = self.detector.detect(text)?;
        if self.reliable_only && !info.is_reliable() {
            return None;
        }
        match info.lang() {
            whatlang::Lang::Eng => Some(Lang::En),
            whatlang::Lang::Deu => Some(Lang::De),
            _ => None,
        }
    }
}

struct Lingua {
    detector: lingua::LanguageDetector,
    name: &'static str,
}

impl Method for Lingua {
    fn name(&self) -> String {
        self.name.into()
    }
    fn detect(&self, text: &str, _ignore: &[&str]) -> Option<Lang> {
        match self.detector.detect_language_of(text)? {
            lingua::Language::English => Some(Lang::En),
            lingua::Language::German => Some(Lang::De),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

struct Callint {
    name: &'static str,
    options: Options,
}

impl Method for Callint {
    fn name(&self) -> String {
        self.name.into()
    }
    fn detect(&self, text: &str, ignore: &[&str]) -> Option<Lang> {
        match language::identify_with(text, ignore, &self.options) {
            Verdict::Lang { lang, .. } => Some(lang),
            Verdict::Unsure => None,
        }
    }
}

#[derive(Default, Clone, Copy)]
struct Tally {
    n: usize,
    ok: usize,
    wrong: usize,
    unsure: usize,
}

fn pct(a: usize, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        100.0 * a as f64 / n as f64
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let errors_for = args
        .iter()
        .position(|a| a == "--errors")
        .and_then(|i| args.get(i + 1).cloned());
    // `--only PREFIX`: the methods whose name starts with it; `--single`:
    // lingua's single words alone.
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    let single_only = args.iter().any(|a| a == "--single");

    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut sets = Vec::new();
    match lingua_testdata(&manifest) {
        Some((en, de)) => {
            for (file, label) in [
                ("single-words.txt", "lingua single words"),
                ("word-pairs.txt", "lingua word pairs"),
                ("sentences.txt", "lingua sentences"),
            ] {
                let mut items = Vec::new();
                for (dir, lang) in [(&en, Lang::En), (&de, Lang::De)] {
                    let text = std::fs::read_to_string(dir.join(file))
                        .unwrap_or_else(|e| panic!("{}: {e}", dir.join(file).display()));
                    items.extend(text.lines().filter(|l| !l.trim().is_empty()).map(|l| Item {
                        text: l.to_string(),
                        expect: Some(lang),
                    }));
                }
                sets.push(Set {
                    name: label.into(),
                    ignore: Vec::new(),
                    items,
                });
            }
        }
        None => eprintln!("lingua's test data not found; run `cargo fetch` first"),
    }
    let utterances = manifest.join("tests/data/utterances");
    let mut call_items = Vec::new();
    let mut call_ignore = Vec::new();
    for (file, expect) in [("en.txt", Some(Lang::En)), ("de.txt", Some(Lang::De))] {
        let (ignore, items) = load_utterances(&utterances.join(file), expect);
        call_ignore.extend(ignore);
        call_items.extend(items);
    }
    call_ignore.sort();
    call_ignore.dedup();
    sets.push(Set {
        name: "call utterances".into(),
        ignore: call_ignore,
        items: call_items,
    });
    let mut held_items = Vec::new();
    let mut held_ignore = Vec::new();
    for (file, expect) in [
        ("holdout-en.txt", Some(Lang::En)),
        ("holdout-de.txt", Some(Lang::De)),
    ] {
        let (ignore, items) = load_utterances(&utterances.join(file), expect);
        held_ignore.extend(ignore);
        held_items.extend(items);
    }
    held_ignore.sort();
    held_ignore.dedup();
    sets.push(Set {
        name: "call held-out".into(),
        ignore: held_ignore,
        items: held_items,
    });
    let (ignore, items) = load_utterances(&utterances.join("unsure.txt"), None);
    sets.push(Set {
        name: "call: no/mixed lang".into(),
        ignore,
        items,
    });

    let en_de = [lingua::Language::English, lingua::Language::German];
    let defaults = Options::default();
    let mut methods: Vec<Box<dyn Method>> = vec![
        Box::new(Whatlang {
            detector: whatlang::Detector::with_allowlist(vec![
                whatlang::Lang::Eng,
                whatlang::Lang::Deu,
            ]),
            reliable_only: false,
        }),
        Box::new(Whatlang {
            detector: whatlang::Detector::with_allowlist(vec![
                whatlang::Lang::Eng,
                whatlang::Lang::Deu,
            ]),
            reliable_only: true,
        }),
        Box::new(Lingua {
            detector: lingua::LanguageDetectorBuilder::from_languages(&en_de)
                .with_preloaded_language_models()
                .build(),
            name: "lingua high accuracy",
        }),
        Box::new(Lingua {
            detector: lingua::LanguageDetectorBuilder::from_languages(&en_de)
                .with_preloaded_language_models()
                .with_low_accuracy_mode()
                .build(),
            name: "lingua low accuracy",
        }),
        Box::new(Callint {
            name: "callint identify",
            options: defaults,
        }),
        Box::new(Callint {
            name: "callint, never abstain",
            options: Options {
                min_margin: 0.0,
                mixed_ratio: f32::INFINITY,
                ..defaults
            },
        }),
        Box::new(Callint {
            name: "callint, full spelling weight",
            options: Options {
                spelling_weight: 1.0,
                ..defaults
            },
        }),
        Box::new(Callint {
            name: "callint, no word cap",
            options: Options {
                word_cap: f32::INFINITY,
                ..defaults
            },
        }),
        Box::new(Callint {
            name: "callint, no mixed check",
            options: Options {
                mixed_ratio: f32::INFINITY,
                ..defaults
            },
        }),
        Box::new(Callint {
            name: "callint, mixed 0.5",
            options: Options {
                mixed_ratio: 0.5,
                ..defaults
            },
        }),
        Box::new(Callint {
            name: "callint, cap 6",
            options: Options {
                word_cap: 6.0,
                ..defaults
            },
        }),
        Box::new(Callint {
            name: "callint, margin 3",
            options: Options {
                min_margin: 3.0,
                ..defaults
            },
        }),
        Box::new(Callint {
            name: "callint, no neutral words",
            options: Options {
                neutral_words: false,
                ..defaults
            },
        }),
        Box::new(Callint {
            name: "callint, no discounting",
            options: Options {
                discount_code: false,
                ..defaults
            },
        }),
    ];
    if let Some(only) = &only {
        methods.retain(|m| m.name().starts_with(only.as_str()));
    }
    if single_only {
        sets.retain(|s| s.name == "lingua single words");
    }
    let start = Instant::now();
    language::warm_up();
    println!(
        "callint tables loaded in {:.1} ms",
        start.elapsed().as_secs_f64() * 1e3
    );

    println!(
        "{:<20} {:<26} | {:>6} {:>4} {:>6} | {:>6} {:>4} {:>6} | {:>7}",
        "set", "method", "en ok%", "FA", "uns%", "de ok%", "FA", "uns%", "µs/item"
    );
    println!("{}", "-".repeat(100));
    for set in &sets {
        let ignore: Vec<&str> = set.ignore.iter().map(String::as_str).collect();
        for method in &methods {
            // Warm-up (untimed), then timed passes over the whole set; the
            // fastest pass's mean counts (other processes only add time).
            for item in set.items.iter().take(50) {
                std::hint::black_box(method.detect(&item.text, &ignore));
            }
            let mut answers = Vec::with_capacity(set.items.len());
            let mut micros = f64::INFINITY;
            for _ in 0..PASSES {
                answers.clear();
                let start = Instant::now();
                for item in &set.items {
                    answers.push(method.detect(std::hint::black_box(&item.text), &ignore));
                }
                let mean = start.elapsed().as_secs_f64() * 1e6 / set.items.len().max(1) as f64;
                micros = micros.min(mean);
            }
            let mut by_lang = [Tally::default(); 2];
            let mut none = Tally::default();
            let show_errors = errors_for.as_deref() == Some(method.name().as_str());
            for (item, answer) in set.items.iter().zip(&answers) {
                let t = match item.expect {
                    Some(Lang::En) => &mut by_lang[0],
                    Some(Lang::De) => &mut by_lang[1],
                    None => &mut none,
                };
                t.n += 1;
                let correct = *answer == item.expect;
                match answer {
                    _ if correct => t.ok += 1,
                    None => t.unsure += 1,
                    Some(_) => t.wrong += 1,
                }
                if show_errors && !correct {
                    let a = analyze(&item.text, &ignore, &Options::default());
                    println!(
                        "    {:>7} -> {:<7} margin {:>6.1} words {:>2}  {}",
                        item.expect.map_or("unsure", Lang::code),
                        answer.map_or("unsure", Lang::code),
                        a.margin,
                        a.words,
                        item.text
                    );
                }
            }
            if none.n > 0 {
                println!(
                    "{:<20} {:<26} | abstained {:>5.1}% of {:>4}, answered {:>4}    | {:>7.2}",
                    set.name,
                    method.name(),
                    pct(none.ok, none.n),
                    none.n,
                    none.wrong,
                    micros
                );
            } else {
                let [en, de] = by_lang;
                println!(
                    "{:<20} {:<26} | {:>6.2} {:>4} {:>6.2} | {:>6.2} {:>4} {:>6.2} | {:>7.2}",
                    set.name,
                    method.name(),
                    pct(en.ok, en.n),
                    en.wrong,
                    pct(en.unsure, en.n),
                    pct(de.ok, de.n),
                    de.wrong,
                    pct(de.unsure, de.n),
                    micros
                );
                if single_only {
                    // The figure wrong-language answers to: every word,
                    // whichever language it is in.
                    let n = en.n + de.n;
                    println!(
                        "{:<20} {:<26} | both languages: {:.2}% identified, {} false alarms ({:.2}%)",
                        "",
                        "",
                        pct(en.ok + de.ok, n),
                        en.wrong + de.wrong,
                        pct(en.wrong + de.wrong, n)
                    );
                }
            }
        }
        println!("{}", "-".repeat(100));
    }
    println!(
        "ok% = correct; FA = false alarms (a confident answer naming the other language); \
         uns% = abstained (Unsure / no answer); µs/item = mean of the fastest of {PASSES} passes."
    );
}

/// Reads an utterance file: `#` comments, a `# ignore: a, b` line.
fn load_utterances(path: &Path, expect: Option<Lang>) -> (Vec<String>, Vec<Item>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut ignore = Vec::new();
    let mut items = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(names) = line.strip_prefix("# ignore:") {
            ignore.extend(
                names
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from),
            );
        } else if !line.is_empty() && !line.starts_with('#') {
            items.push(Item {
                text: line.to_string(),
                expect,
            });
        }
    }
    (ignore, items)
}

/// The `testdata/` folders of lingua's English and German model crates.
fn lingua_testdata(manifest: &Path) -> Option<(PathBuf, PathBuf)> {
    Some((
        lingua_data::testdata(manifest, "lingua-english-language-model")?,
        lingua_data::testdata(manifest, "lingua-german-language-model")?,
    ))
}
