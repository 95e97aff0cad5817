//! `callint audit`: its numbers are `check --statistics`'s on the same
//! inputs, a baseline splits findings into new and fixed as `check
//! --baseline` does, and text from logs stays text on every page it writes.
//! The page in a browser is in `browser.rs`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{callint, callint_in, root, scratch, stdout};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &std::process::Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            stderr(o)
        )
    })
}

/// A row of `check --statistics` by rule: findings, rate, rule.
type RuleRow = (usize, String, String);
/// A row by agent: findings, rate, says, agent.
type AgentRow = (usize, String, usize, String);

/// The rows of `check --statistics`' text tables: by rule (findings, rate,
/// rule) and by agent (findings, rate, says, agent).
fn statistics_tables(text: &str) -> (Vec<RuleRow>, Vec<AgentRow>) {
    let mut rules = Vec::new();
    let mut agents = Vec::new();
    let mut in_agents = false;
    for line in text.lines() {
        if line.starts_with("by agent:") {
            in_agents = true;
            continue;
        }
        let mut f = line.split_whitespace();
        let Some(n) = f.next().and_then(|n| n.parse::<usize>().ok()) else {
            continue;
        };
        let rate = f.next().unwrap().to_string();
        if in_agents {
            let says: usize = f.next().unwrap().parse().unwrap();
            // The agent's name is the rest of the line, spaces and all.
            let mut rest = line.trim_start();
            for _ in 0..3 {
                rest = rest.split_once(char::is_whitespace).unwrap().1.trim_start();
            }
            agents.push((n, rate, says, rest.to_string()));
        } else {
            rules.push((n, rate, f.next().unwrap().to_string()));
        }
    }
    (rules, agents)
}

fn rate(v: &Value) -> String {
    v.as_f64()
        .map_or_else(|| "-".to_string(), |r| format!("{r:.2}"))
}

/// The audit's numbers are `check`'s: the summary of `--format json` and
/// the tables `--statistics` prints, row for row.
fn agrees_with_check(dir: &Path, paths: &[&str], extra: &[&str]) -> Value {
    let mut args = vec!["audit", "--format", "json", "--no-cache"];
    args.extend(paths);
    args.extend(extra);
    let audit = callint_in(dir, &args);
    assert!(
        matches!(audit.status.code(), Some(0 | 1)),
        "{}",
        stderr(&audit)
    );
    let a = json(&audit);

    let mut args = vec!["check", "--format", "json", "--no-cache"];
    args.extend(paths);
    args.extend(extra);
    let check = callint_in(dir, &args);
    assert_eq!(
        check.status.code(),
        audit.status.code(),
        "{}",
        stderr(&check)
    );
    let s = &json(&check)["summary"];
    for key in [
        "files",
        "records",
        "diagnostics",
        "by_rule",
        "by_severity",
        "by_agent",
    ] {
        assert_eq!(a[key], s[key], "{key}");
    }
    assert_eq!(a["statistics"], s["statistics"]);
    let says: u64 = a["says"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(Some(says), s["says"].as_u64());

    let mut args = vec!["check", "--statistics", "--no-cache"];
    args.extend(paths);
    args.extend(extra);
    let text = stdout(&callint_in(dir, &args));
    let (rules, agents) = statistics_tables(&text);
    assert_eq!(
        rules.len(),
        a["by_rule"].as_object().unwrap().len(),
        "{text}"
    );
    for (n, r, rule) in &rules {
        let st = &a["statistics"]["rules"][rule];
        assert_eq!(st["diagnostics"].as_u64(), Some(*n as u64), "{rule}");
        assert_eq!(&rate(&st["per_100_says"]), r, "{rule}");
    }
    assert_eq!(
        agents.len(),
        a["statistics"]["agents"].as_object().unwrap().len()
    );
    for (n, r, says, agent) in &agents {
        let st = &a["statistics"]["agents"][agent];
        assert_eq!(st["diagnostics"].as_u64(), Some(*n as u64), "{agent}");
        assert_eq!(st["says"].as_u64(), Some(*says as u64), "{agent}");
        assert_eq!(&rate(&st["per_100_says"]), r, "{agent}");
    }
    // The days hold every finding, every say and every call once.
    let days = a["days"].as_object().unwrap();
    let cells: u64 = days
        .values()
        .flat_map(|d| d["findings"].as_array().unwrap())
        .map(|c| c["n"].as_u64().unwrap())
        .sum();
    assert_eq!(Some(cells), s["diagnostics"].as_u64());
    let day_says: u64 = days
        .values()
        .flat_map(|d| d["says"].as_object().unwrap().values())
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(day_says, says);
    let calls: u64 = days.values().map(|d| d["calls"].as_u64().unwrap()).sum();
    assert_eq!(Some(calls), a["calls"].as_u64());
    a
}

#[test]
fn the_audits_counts_are_check_statistics() {
    let a = agrees_with_check(&root(), &["corpus"], &[]);
    assert!(a["diagnostics"].as_u64().unwrap() > 100);
    assert!(a["statistics"]["agents"].as_object().unwrap().len() > 10);
    // Some calls carry a date; the corpus's transcripts and prompts do not.
    let days = a["days"].as_object().unwrap();
    assert!(days.keys().any(|k| k.starts_with("2026-")));
    assert!(days.contains_key("undated"));
    // The calls to open first: errors first, then findings.
    let top = a["top"].as_array().unwrap();
    let first: Vec<(u64, u64)> = top
        .iter()
        .take(10)
        .map(|r| {
            (
                r["errors"].as_u64().unwrap(),
                r["findings"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut sorted = first.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(first, sorted);
    // Every rule that found something has a call listed for it.
    for rule in a["by_rule"].as_object().unwrap().keys() {
        assert!(
            top.iter().any(|r| r["cells"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| &c["rule"] == rule)),
            "{rule}"
        );
    }
}

#[test]
fn the_audit_counts_what_check_counts_with_the_same_flags() {
    agrees_with_check(
        &root(),
        &["corpus/seed-incident", "corpus/board-mistakes"],
        &["--select", "board-bundle,wrong-language,label-too-long"],
    );
    agrees_with_check(&root(), &["corpus/seed-incident"], &["--no-merge"]);
}

/// The corpus's incident, its three logs written where `dir` says.
fn incident(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for f in ["claude", "opencode", "promo"] {
        std::fs::copy(
            root().join(format!("corpus/seed-incident/{f}.jsonl")),
            dir.join(format!("{f}.jsonl")),
        )
        .unwrap();
    }
}

#[test]
fn a_baseline_splits_new_from_fixed_as_check_does() {
    let d = scratch();
    incident(&d.join("logs/incident"));
    std::fs::create_dir_all(d.join("logs/boards")).unwrap();
    let w = callint_in(
        &d,
        &[
            "check",
            "logs",
            "--no-cache",
            "--write-baseline",
            "base.json",
        ],
    );
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    let base: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("base.json")).unwrap()).unwrap();
    let promo_entries = base["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["file"].as_str().unwrap().ends_with("promo.jsonl"))
        .count();
    assert!(promo_entries > 0);

    // Promo's log loses every line Promo said (fixed); a log of another
    // call comes in (new).
    let promo = d.join("logs/incident/promo.jsonl");
    let text = std::fs::read_to_string(&promo).unwrap();
    let kept: String = text
        .lines()
        .filter(|l| !l.contains("\"fn\":\"say\"") && !l.contains("\"fn\":\"board"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&promo, kept).unwrap();
    std::fs::copy(
        root().join("corpus/board-mistakes/kiwi.jsonl"),
        d.join("logs/boards/kiwi.jsonl"),
    )
    .unwrap();

    let a = agrees_with_check(&d, &["logs"], &["--baseline", "base.json"]);
    let since = &a["baseline"];
    let fixed = since["fixed"].as_array().unwrap();
    assert!(!fixed.is_empty());
    assert!(fixed
        .iter()
        .all(|f| f["file"].as_str().unwrap().ends_with("promo.jsonl")));
    // What `check --baseline` lists as matching nothing is what is fixed.
    let c = callint_in(
        &d,
        &["check", "logs", "--no-cache", "--baseline", "base.json"],
    );
    assert!(
        stderr(&c).contains(&format!("{} entr", fixed.len())),
        "{}",
        stderr(&c)
    );
    assert!(since["accepted"].as_u64().unwrap() > 0);
    assert_eq!(since["accepted"], a["baselined"]);
    // Kiwi's board call is new.
    assert!(a["top"]
        .as_array()
        .unwrap()
        .iter()
        .any(|row| row["call"] == "c-b0ard5"));

    // The page says so.
    let o = callint_in(
        &d,
        &[
            "audit",
            "logs",
            "--no-cache",
            "--baseline",
            "base.json",
            "--html",
            "out",
        ],
    );
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let page = std::fs::read_to_string(d.join("out/index.html")).unwrap();
    let data = data_block(&page);
    assert_eq!(
        data["since"]["fixed"].as_array().unwrap().len(),
        fixed.len()
    );
    assert_eq!(data["since"]["accepted"], since["accepted"]);
}

/// The page's numbers, read back from its data block.
pub fn data_block(page: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"audit-data\">";
    let from = page.find(open).expect("a data block") + open.len();
    let len = page[from..].find("</script>").unwrap();
    serde_json::from_str(&page[from..from + len]).expect("JSON")
}

#[test]
fn the_folder_holds_the_overview_and_a_post_mortem_per_listed_call() {
    let d = scratch();
    let o = callint(&[
        "audit",
        "corpus",
        "--no-cache",
        "--calls",
        "5",
        "--html",
        d.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let a = json(&o);
    let page = std::fs::read_to_string(d.join("index.html")).unwrap();
    let data = data_block(&page);
    let top = a["top"].as_array().unwrap();
    // Five first, and each rule's and agent's calls beside them.
    assert!(top.len() > 5);
    assert_eq!(data["top"].as_array().unwrap().len(), top.len());
    let mut pages = 0;
    for (row, shown) in top.iter().zip(data["top"].as_array().unwrap()) {
        let Some(p) = row["page"].as_str() else {
            continue;
        };
        pages += 1;
        assert_eq!(shown[2].as_str(), Some(p));
        let post = std::fs::read_to_string(d.join(p)).unwrap();
        assert!(post.contains("<title>Post-mortem: "), "{p}");
        if let Some(call) = row["call"].as_str() {
            let shown = call
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;");
            assert!(
                post.contains(&shown),
                "{p} is not the post-mortem of {call}"
            );
        }
    }
    assert!(
        pages * 10 >= top.len() * 9,
        "{pages} pages for {} calls",
        top.len()
    );
    // Nothing outside the folder: no link, script or style from elsewhere.
    for f in std::fs::read_dir(d.join("calls")).unwrap().flatten() {
        let text = std::fs::read_to_string(f.path()).unwrap();
        assert!(!text.contains("src=\"http") && !text.contains("href=\"http"));
    }
    assert!(!page.contains(" src=") && !page.contains("<link") && !page.contains("url("));
    assert!(!page.contains("https://"));
    assert_eq!(
        page.matches("http://").count(),
        page.matches("'http://www.w3.org/2000/svg'").count()
    );
    // The data block adds up to the audit's counts.
    let cells: u64 = data["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[4].as_u64().unwrap())
        .sum();
    assert_eq!(Some(cells), a["diagnostics"].as_u64());

    // The document builds the same page again, without linting.
    let doc = d.join("audit.json");
    std::fs::write(&doc, &o.stdout).unwrap();
    let again = scratch();
    let o = callint(&[
        "audit",
        "--from-json",
        doc.to_str().unwrap(),
        "--calls",
        "5",
        "--html",
        again.to_str().unwrap(),
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let rebuilt = data_block(&std::fs::read_to_string(again.join("index.html")).unwrap());
    assert_eq!(rebuilt["cells"], data["cells"]);
    assert_eq!(rebuilt["says"], data["says"]);
    assert_eq!(rebuilt["top"].as_array().unwrap().len(), top.len());
}

#[test]
fn audit_refuses_what_it_cannot_do() {
    let o = callint(&["audit", "corpus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--html"));
    let o = callint(&["audit", "-", "--format", "json"]);
    assert_eq!(o.status.code(), Some(2));
    let d = scratch();
    let bad = d.join("bad.json");
    std::fs::write(&bad, r#"{"version":1,"diagnostics":5}"#).unwrap();
    let o = callint(&[
        "audit",
        "--from-json",
        bad.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
}

const HOSTILE_LABEL: &str = "Evil\"><script>alert(1)</script>\u{202e}";
const HOSTILE_CALL: &str = "c-</script><img src=x onerror=alert(2)>";

/// A log whose label, call id and says try to become markup.
pub fn hostile_log(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let rec = |v: Value| format!("{v}\n");
    let mut log = String::new();
    log += &rec(
        serde_json::json!({"ts": "2026-10-10T10:00:00.000Z", "call": HOSTILE_CALL, "fn": "join",
        "args": {"call_id": HOSTILE_CALL, "label": HOSTILE_LABEL},
        "result": {"status": "joined", "context": {"lang": "en"}}}),
    );
    log += &rec(
        serde_json::json!({"ts": "2026-10-10T10:00:01.000Z", "call": HOSTILE_CALL, "fn": "say",
        "args": {"text": "<script>document.body.setAttribute('data-pwned','1')</script> and this is a very long line that goes on and on and on, far longer than any say should be, so that a rule finds it too long to be spoken in one go by anybody at all, really"},
        "result": {"say_id": "s1", "say_status": "queued"}}),
    );
    std::fs::write(dir.join("hostile.jsonl"), log).unwrap();
}

#[test]
fn text_from_logs_stays_text_in_the_audit() {
    let d = scratch();
    hostile_log(&d.join("logs"));
    let o = callint_in(
        &d,
        &[
            "audit",
            "logs",
            "--no-cache",
            "--html",
            "out",
            "--format",
            "json",
        ],
    );
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let a = json(&o);
    assert!(a["diagnostics"].as_u64().unwrap() > 0, "{a}");
    let page = std::fs::read_to_string(d.join("out/index.html")).unwrap();
    // The page's own markup: two scripts and the data block, no more.
    assert_eq!(page.matches("<script").count(), 3);
    assert!(!page.contains("<img"));
    assert!(!page.contains('\u{202e}'));
    let data = data_block(&page);
    // The names are there, as text with their unsafe characters shown.
    let agents: Vec<&str> = data["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        agents.contains(&"Evil\"><script>alert(1)</script>\\u{202e}"),
        "{agents:?}"
    );
    let top = data["top"].as_array().unwrap();
    assert_eq!(top[0][0], HOSTILE_CALL);
    // Its post-mortem: a file of plain name, the text escaped.
    let link = top[0][2].as_str().unwrap();
    assert!(
        link.starts_with("calls/0001-") && link.ends_with(".html"),
        "{link}"
    );
    assert!(link
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/-_.".contains(&b)));
    let post = std::fs::read_to_string(d.join("out").join(link)).unwrap();
    assert!(!post.contains("<img"));
    assert!(!post.contains("<script>document.body"));
    assert!(post.contains("&lt;script&gt;document.body"));

    // A document edited to link elsewhere draws no such link.
    let doc = String::from_utf8(o.stdout.clone()).unwrap();
    let evil = doc.replace(
        &format!("\"page\": \"{link}\""),
        "\"page\": \"javascript:alert(3)\"",
    );
    assert_ne!(evil, doc);
    std::fs::write(d.join("evil.json"), evil).unwrap();
    let o = callint_in(
        &d,
        &["audit", "--from-json", "evil.json", "--html", "again"],
    );
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let again = std::fs::read_to_string(d.join("again/index.html")).unwrap();
    assert!(!again.contains("javascript:alert(3)"));
}

#[test]
fn the_trend_keeps_each_calls_own_day() {
    let d = scratch();
    // One call on each of three days, the middle one without findings.
    let mut days = BTreeMap::new();
    for (day, file) in [
        ("2026-10-03", "corpus/board-mistakes/kiwi.jsonl"),
        ("2026-10-04", "corpus/clean-en/builder.jsonl"),
        ("2026-10-05", "corpus/board-wrong-types/heron.jsonl"),
    ] {
        let text = std::fs::read_to_string(root().join(file))
            .unwrap()
            .replace("2026-10-10T", &format!("{day}T"))
            .replace("2026-11-07T", &format!("{day}T"));
        std::fs::write(d.join(format!("{day}.jsonl")), text).unwrap();
        days.insert(day, file);
    }
    let o = callint_in(&d, &["audit", ".", "--no-cache", "--format", "json"]);
    let a = json(&o);
    let got: Vec<&String> = a["days"].as_object().unwrap().keys().collect();
    assert_eq!(got, ["2026-10-03", "2026-10-04", "2026-10-05"]);
    for day in days.keys() {
        assert_eq!(a["days"][day]["calls"], 1, "{day}");
    }
    assert!(a["days"]["2026-10-04"]["findings"]
        .as_array()
        .unwrap()
        .is_empty());
    assert!(!a["days"]["2026-10-03"]["findings"]
        .as_array()
        .unwrap()
        .is_empty());
}
