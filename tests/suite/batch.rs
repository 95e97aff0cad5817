//! Batch audits: folder walks that respect `.gitignore`, parallel linting
//! with output independent of scheduling, statistics with rates per 100
//! says, SARIF checked against the official schema, GitHub annotations.

use crate::common::{callint, callint_in, root, scratch, stdout};

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("one JSON document ({e}): {}", text(&o.stderr)))
}

/// Every log of the corpus, sorted.
fn corpus_logs() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for case in std::fs::read_dir(root().join("corpus")).unwrap().flatten() {
        if case.path().is_dir() {
            for f in std::fs::read_dir(case.path()).unwrap().flatten() {
                if callint::app::walk::is_log(&f.path()) {
                    v.push(f.path());
                }
            }
        }
    }
    v.sort();
    v
}

/// `copies` copies of the corpus below `dir/logs`, in folders of different
/// depths, so a batch has many files of different sizes.
fn batch(dir: &Path, copies: usize) -> usize {
    let mut n = 0;
    for k in 0..copies {
        for log in corpus_logs() {
            let case = log.parent().unwrap().file_name().unwrap();
            let sub = if k % 2 == 0 {
                dir.join("logs").join(format!("batch-{k}")).join(case)
            } else {
                dir.join("logs").join(case).join(format!("copy-{k}"))
            };
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::copy(&log, sub.join(log.file_name().unwrap())).unwrap();
            n += 1;
        }
    }
    n
}

const BUNDLE: &str = r#"{"ts":"2026-10-10T10:00:00.000Z","agent":"Promo","fn":"status","args":{"emoji":"🛠️","open":["Fix login, update docs and tag release"]}}"#;
const LONG_LABEL: &str = r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{"call_id":"c1","label":"opencode-session-2026-10-10"},"error":{"status":422,"message":"label longer than 22 characters"}}"#;

#[test]
fn parallel_output_is_byte_identical_to_one_job() {
    let dir = scratch();
    let files = batch(&dir, 3);
    assert!(files > 60);
    let runs: &[&[&str]] = &[
        &["--format", "concise"],
        &["--format", "pretty", "--color", "never"],
        &["--format", "json"],
        &["--format", "sarif"],
        &["--format", "github"],
        &["--statistics"],
    ];
    for args in runs {
        let run = |jobs: &str| {
            let mut a = vec!["check", "logs", "--jobs", jobs];
            a.extend_from_slice(args);
            callint_in(&dir, &a)
        };
        let one = run("1");
        assert_eq!(
            one.status.code(),
            Some(1),
            "{args:?}: {}",
            text(&one.stderr)
        );
        assert!(one.stdout.len() > 1000, "{args:?}");
        // More threads than cores, so the scheduling interleaves.
        for jobs in ["2", "5", "16"] {
            let many = run(jobs);
            assert_eq!(
                many.status.code(),
                one.status.code(),
                "{args:?} --jobs {jobs}"
            );
            assert!(
                many.stdout == one.stdout,
                "{args:?}: --jobs {jobs} printed something else than --jobs 1"
            );
            assert!(many.stderr.is_empty(), "{}", text(&many.stderr));
        }
    }
    // Files come in path order (folder by folder), and every one of them
    // counts.
    let v = json(&callint_in(&dir, &["check", "logs", "--format", "json"]));
    assert_eq!(v["summary"]["files"].as_u64().unwrap() as usize, files);
    let seen: Vec<&Path> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| Path::new(d["file"].as_str().unwrap()))
        .collect();
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(seen, sorted);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn jobs_must_be_a_positive_number() {
    for bad in ["0", "-1", "many"] {
        let o = callint(&["check", "corpus", "--jobs", bad]);
        assert_eq!(o.status.code(), Some(2), "--jobs {bad}");
    }
}

#[test]
fn gitignored_and_hidden_logs_are_skipped_unless_no_ignore() {
    let dir = scratch();
    for sub in ["logs", "logs/.hidden", "logs/old", "logs/.git-like"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let log = format!("{BUNDLE}\n");
    for f in [
        "logs/a.jsonl",
        "logs/ignored.jsonl",
        "logs/.hidden/h.jsonl",
        "logs/.dot.jsonl",
        "logs/old/o.jsonl",
        "logs/.git-like/g.jsonl",
    ] {
        std::fs::write(dir.join(f), &log).unwrap();
    }
    // A .json file is walked when it holds a log, never when it is
    // another tool's JSON.
    std::fs::write(dir.join("logs/notes.json"), &log).unwrap();
    std::fs::write(
        dir.join("logs/package.json"),
        "{\n  \"name\": \"x\",\n  \"version\": \"1.0.0\"\n}\n",
    )
    .unwrap();
    // A plain .gitignore, no git repository around it.
    std::fs::write(dir.join(".gitignore"), "ignored.jsonl\nold/\n").unwrap();
    assert!(!dir.join(".git").exists());

    let files = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["check", "--format", "json"];
        a.extend_from_slice(args);
        let o = callint_in(&dir, &a);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let v = json(&o);
        let mut f: Vec<String> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["file"].as_str().unwrap().to_string())
            .collect();
        f.dedup();
        assert_eq!(v["summary"]["files"].as_u64().unwrap() as usize, f.len());
        f
    };
    assert_eq!(files(&["logs"]), ["logs/a.jsonl", "logs/notes.json"]);
    assert_eq!(files(&["."]), ["./logs/a.jsonl", "./logs/notes.json"]);
    assert_eq!(
        files(&["logs", "--no-ignore"]),
        [
            "logs/.dot.jsonl",
            "logs/.git-like/g.jsonl",
            "logs/.hidden/h.jsonl",
            "logs/a.jsonl",
            "logs/ignored.jsonl",
            "logs/notes.json",
            "logs/old/o.jsonl",
        ]
    );
    // Files named on the command line are read whatever their name.
    assert_eq!(
        files(&[
            "logs/ignored.jsonl",
            "logs/.hidden/h.jsonl",
            "logs/notes.json",
            "logs/old"
        ]),
        [
            "logs/ignored.jsonl",
            "logs/.hidden/h.jsonl",
            "logs/notes.json",
            "logs/old/o.jsonl",
        ]
    );
    // A folder whose logs are all ignored is no pass, and says why.
    std::fs::create_dir_all(dir.join("quiet")).unwrap();
    std::fs::write(dir.join("quiet/.gitignore"), "*.jsonl\n").unwrap();
    std::fs::write(dir.join("quiet/q.jsonl"), &log).unwrap();
    let o = callint_in(&dir, &["check", "quiet", "--format", "json"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(json(&o)["summary"]["files"], 0);
    let err = text(&o.stderr);
    assert!(
        err.contains("nothing to check below quiet") && err.contains("the 1 file(s) there"),
        "{err}"
    );
    assert!(err.contains("--no-ignore"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Agent clients keep their instructions in hidden places
/// (`.cursor/rules`, `.claude/agents`, `.github`, `.cursorrules`): a walk
/// of a repository reads them, and still skips other hidden folders.
#[test]
fn a_walk_reads_the_hidden_places_of_agent_instructions() {
    let dir = scratch();
    let skill = "# Voice calls\n\nRules for voicehook calls.\n\n- Always greet in German.\n";
    let places = [
        ".cursor/rules/voice.mdc",
        ".cursorrules",
        ".github/copilot-instructions.md",
        ".claude/agents/caller.md",
        "docs/voice.mdx",
    ];
    for f in places
        .iter()
        .chain(&[".venv/lib/notes.md", ".git/notes.md", ".idea/voice.md"])
    {
        let p = dir.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, skill).unwrap();
    }
    let o = callint_in(&dir, &["check", ".", "--format", "json", "--no-cache"]);
    // warnings alone leave the exit code at 0
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let mut files: Vec<String> = json(&o)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "wrong-language")
        .map(|d| {
            d["file"]
                .as_str()
                .unwrap()
                .trim_start_matches("./")
                .to_string()
        })
        .collect();
    files.sort();
    let mut want: Vec<String> = places.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(files, want);
}

#[test]
fn statistics_give_rates_per_100_says() {
    let dir = scratch();
    // Promo says four lines, one of them far too long: one long-say in four
    // says, and one board-bundle.
    let join = r#"{"ts":"2026-10-10T10:00:00.000Z","call":"c1","fn":"join","args":{"call_id":"c1","label":"Promo","greet":true},"result":{"status":"joined","role":"participant","context":{"lang":"en"}}}"#;
    let say = |t: u32, text: &str| {
        format!(
            r#"{{"ts":"2026-10-10T10:00:{t:02}.000Z","call":"c1","fn":"say","args":{{"text":"{text}"}},"result":{{"say_id":"s{t}","say_status":"queued"}}}}"#
        )
    };
    let long = "The build on main is green again after the fix to the login redirect, the docs are updated, the release notes are drafted, and I am now tagging the release and uploading the artifacts to the store";
    let body = [
        join.to_string(),
        say(10, "The build is green."),
        say(20, "The docs are updated."),
        say(30, long),
        say(40, "The tag is pushed."),
        BUNDLE
            .replace("10:00:00", "10:00:50")
            .replace(r#""agent":"Promo","#, r#""call":"c1","#),
    ]
    .join("\n");
    std::fs::write(dir.join("promo.jsonl"), body + "\n").unwrap();

    let o = callint_in(&dir, &["check", ".", "--format", "json"]);
    let v = json(&o);
    let s = &v["summary"];
    assert_eq!(s["says"], 4, "{s}");
    let promo = &s["statistics"]["agents"]["Promo"];
    assert_eq!(promo["says"], 4, "{s}");
    let n = promo["diagnostics"].as_u64().unwrap();
    assert!(n >= 2, "{s}");
    assert_eq!(promo["per_100_says"].as_f64().unwrap(), n as f64 * 25.0);
    assert_eq!(s["by_agent"]["Promo"].as_u64().unwrap(), n);
    assert_eq!(s["statistics"]["rules"]["long-say"]["diagnostics"], 1);
    assert_eq!(s["statistics"]["rules"]["long-say"]["per_100_says"], 25.0);

    let o = callint_in(&dir, &["check", ".", "--statistics"]);
    let out = text(&o.stdout);
    let row = out.lines().find(|l| l.contains("long-say")).unwrap();
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>(),
        ["1", "25.00", "long-say", "warning"],
        "{out}"
    );
    let agent = out.lines().find(|l| l.ends_with("  Promo")).unwrap();
    assert_eq!(
        agent.split_whitespace().collect::<Vec<_>>(),
        [
            n.to_string(),
            format!("{:.2}", n as f64 * 25.0),
            "4".into(),
            "Promo".into()
        ],
        "{out}"
    );
    assert!(out.contains("4 says by 1 agents"), "{out}");

    // Over the corpus, every rate is findings * 100 / says, in the table and
    // in the JSON summary alike.
    let v = json(&callint(&["check", "corpus", "--format", "json"]));
    let table = text(&callint(&["check", "corpus", "--statistics"]).stdout);
    let agents = v["summary"]["statistics"]["agents"].as_object().unwrap();
    assert!(agents.len() > 5);
    for (name, a) in agents {
        let (says, n) = (
            a["says"].as_u64().unwrap(),
            a["diagnostics"].as_u64().unwrap(),
        );
        let rate = if says == 0 {
            assert!(a["per_100_says"].is_null());
            "-".to_string()
        } else {
            let r = a["per_100_says"].as_f64().unwrap();
            assert!(
                (r - n as f64 * 100.0 / says as f64).abs() < 0.006,
                "{name}: {a}"
            );
            format!("{r:.2}")
        };
        let line = format!("{n:>8}  {rate:>12}  {says:>6}  {name}");
        assert!(table.lines().any(|l| l == line), "{line:?} not in\n{table}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn sarif_validator() -> jsonschema::Validator {
    let path = root().join("tests/data/schemas/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("the SARIF schema at {}: {e}", path.display())),
    )
    .unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

fn assert_valid(validator: &jsonschema::Validator, doc: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "invalid SARIF:\n{}", errors.join("\n"));
}

#[test]
fn sarif_output_is_valid_sarif_2_1_0() {
    let validator = sarif_validator();
    // The validator does reject what is not SARIF.
    assert!(!validator.is_valid(&serde_json::json!({"version": "2.1.0", "runs": [{}]})));

    let o = callint(&["check", "corpus", "--format", "sarif"]);
    assert_eq!(o.status.code(), Some(1));
    let doc = json(&o);
    assert_valid(&validator, &doc);
    assert_eq!(doc["version"], "2.1.0");
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "callint");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), callint::rules::catalogue().len());
    for r in rules {
        let m = callint::rules::meta(r["id"].as_str().unwrap()).unwrap();
        assert_eq!(r["shortDescription"]["text"], m.summary);
        assert!(!r["fullDescription"]["text"].as_str().unwrap().is_empty());
        assert_eq!(r["help"]["markdown"], callint::rules::page(m.name).unwrap());
        let level = match m.default_severity.name() {
            "info" => "note",
            s => s,
        };
        assert_eq!(r["defaultConfiguration"]["level"], level);
    }

    // The same findings as --format json, at the same places.
    let j = json(&callint(&["check", "corpus", "--format", "json"]));
    let diags = j["diagnostics"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), diags.len());
    let mut related = 0;
    for (r, d) in results.iter().zip(diags) {
        assert_eq!(r["ruleId"], d["rule"]);
        let k = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[k]["id"], d["rule"]);
        let level = match d["severity"].as_str().unwrap() {
            "info" => "note",
            s => s,
        };
        assert_eq!(r["level"], level);
        assert_eq!(r["message"]["text"], d["message"]);
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], d["file"]);
        assert!(!d["file"].as_str().unwrap().starts_with('/'));
        let region = &loc["region"];
        assert_eq!(region["startLine"], d["line"]);
        assert_eq!(region["startColumn"], d["column"]);
        assert_eq!(region["endLine"], d["end_line"]);
        assert_eq!(region["endColumn"], d["end_column"]);
        let labels = d["labels"].as_array().unwrap();
        let rel = r["relatedLocations"].as_array().map_or(0, Vec::len);
        assert_eq!(rel, labels.len());
        related += rel;
    }
    assert!(related > 0, "secondary labels become related locations");

    // A clean batch is valid SARIF with no results; so is hostile input.
    let clean = json(&callint(&["check", "corpus/clean-en", "--format", "sarif"]));
    assert_valid(&validator, &clean);
    assert_eq!(clean["runs"][0]["results"].as_array().unwrap().len(), 0);

    let dir = scratch();
    let decoded = r#"{"fn":"status","args":{"emoji":"🛠️","open":["6 decisions \u001b]0;pwned\u0007\u001b[2J\u009b\u202e"]}}"#;
    let raw = "{\"fn\":\"say\",\"args\":{\"text\":\"\x1b[2Jred\x1b]8;;x\x07\u{202e}\"}}";
    std::fs::create_dir_all(dir.join("odd name, #1")).unwrap();
    std::fs::write(
        dir.join("odd name, #1/esc:ü.jsonl"),
        format!("{decoded}\n{raw}\n{LONG_LABEL}\n"),
    )
    .unwrap();
    for format in ["sarif", "json"] {
        let o = callint_in(&dir, &["check", ".", "--format", format]);
        assert_eq!(o.status.code(), Some(1));
        for bad in ["\u{1b}", "\u{7}", "\u{9b}", "\u{202e}"] {
            assert!(!text(&o.stdout).contains(bad), "{format}: raw {bad:?}");
        }
        let doc = json(&o);
        if format == "sarif" {
            assert_valid(&validator, &doc);
            let r = &doc["runs"][0]["results"][0];
            assert_eq!(
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                "odd%20name%2C%20%231/esc%3A%C3%BC.jsonl"
            );
        }
        // Escaped on the way out, the text itself is unchanged.
        let all = doc.to_string();
        assert!(all.contains("\\u001b]0;pwned") && all.contains('\u{9b}'));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn github_annotations() {
    let o = callint(&["check", "corpus/seed-incident", "--format", "github"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    let j = json(&callint(&[
        "check",
        "corpus/seed-incident",
        "--format",
        "json",
    ]));
    let diags = j["diagnostics"].as_array().unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), diags.len(), "one line per finding:\n{out}");
    for (l, d) in lines.iter().zip(diags) {
        let level = match d["severity"].as_str().unwrap() {
            "info" => "notice",
            s => s,
        };
        let head = format!(
            "::{level} file={},line={},col={},endLine={},endColumn={},title={}::",
            d["file"].as_str().unwrap(),
            d["line"],
            d["column"],
            d["end_line"],
            d["end_column"],
            d["rule"].as_str().unwrap()
        );
        assert!(l.starts_with(&head), "{l}\n{head}");
        assert!(l.contains("%0Ahelp: "), "{l}");
    }

    // Log text and file names cannot end the command or start another.
    let dir = scratch();
    let item = r#"6 decisions: 50% done\r\n::error file=x::pwned\u001b[2J"#;
    let log = format!(
        r#"{{"fn":"status","args":{{"emoji":"🛠️","open":["{item}"]}}}}
{LONG_LABEL}
"#
    );
    std::fs::write(dir.join("a,b:c%.jsonl"), log).unwrap();
    let o = callint_in(&dir, &["check", ".", "--format", "github"]);
    let out = text(&o.stdout);
    assert_eq!(out.lines().count(), 2, "{out}");
    for l in out.lines() {
        assert!(l.starts_with("::"), "{l}");
        assert!(l.contains("file=./a%2Cb%3Ac%25.jsonl,line="), "{l}");
        assert!(!l.contains('\u{1b}') && !l.contains('\r'), "{l:?}");
    }
    let bundle = out.lines().find(|l| l.contains("board-bundle")).unwrap();
    assert!(bundle.contains("50%25 done"), "{bundle}");
    assert!(bundle.contains("\\e[2J"), "{bundle}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_progress_bar_when_standard_error_is_not_a_terminal() {
    let dir = scratch();
    batch(&dir, 2);
    let o = callint_in(&dir, &["check", "logs", "--format", "concise"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn statistics_do_not_go_with_sarif_or_github() {
    for format in ["sarif", "github"] {
        let o = callint(&["check", "corpus", "--statistics", "--format", format]);
        assert_eq!(o.status.code(), Some(2), "{format}");
        assert!(o.stdout.is_empty());
    }
}

/// The library's `check_document` (what the Python module calls) gives the
/// command line's document byte for byte, on the whole corpus, with bytes
/// handed over as well as files.
#[test]
fn the_library_run_is_the_command_lines() {
    use callint::app::batch::Settings;
    use callint::report::Format::{Concise, Json};
    let cli = callint(&["check", "corpus", "--format", "json", "--no-cache"]);
    assert_eq!(cli.status.code(), Some(1));
    let lib =
        callint::cli::check_document(Settings::default(), &["corpus".into()], Vec::new(), Json)
            .unwrap();
    assert!(lib.errors.is_empty(), "{:?}", lib.errors);
    assert_eq!(lib.document, stdout(&cli));

    let name = "corpus/seed-incident/opencode.jsonl";
    let bytes = std::fs::read(name).unwrap();
    let cli = callint(&["check", name, "--format", "json", "--no-cache"]);
    let lib =
        callint::cli::check_document(Settings::default(), &[], vec![(name.into(), bytes)], Json)
            .unwrap();
    assert_eq!(lib.document, stdout(&cli));
    let doc: serde_json::Value = serde_json::from_str(&lib.document).unwrap();
    assert!(doc["summary"]["diagnostics"].as_u64().unwrap() > 5, "{doc}");
    assert_eq!(
        Some(lib.findings as u64),
        doc["summary"]["diagnostics"].as_u64()
    );
    let cli = callint(&[
        "check",
        "corpus/board-mistakes",
        "--format",
        "concise",
        "--no-cache",
    ]);
    let lib = callint::cli::check_document(
        Settings::default(),
        &["corpus/board-mistakes".into()],
        Vec::new(),
        Concise,
    )
    .unwrap();
    assert_eq!(lib.document, stdout(&cli));

    let missing = callint::cli::check_document(
        Settings::default(),
        &["no/such.jsonl".into()],
        Vec::new(),
        Json,
    )
    .unwrap();
    assert_eq!(missing.errors.len(), 1, "{:?}", missing.errors);
    assert!(
        missing.errors[0].contains("no/such.jsonl"),
        "{:?}",
        missing.errors
    );
}
