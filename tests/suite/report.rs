//! `callint report`: the post-mortem of one call. The terminal summary of
//! the corpus's incident call, its numbers recomputed here from the raw
//! logs; the merge of several logs into one timeline; and the HTML page:
//! log text stays text, and nothing is loaded from anywhere.

use crate::common::{self, callint, root, scratch, stdout};

use std::collections::BTreeMap;

use serde_json::Value;

const INCIDENT: [&str; 3] = [
    "corpus/seed-incident/claude.jsonl",
    "corpus/seed-incident/opencode.jsonl",
    "corpus/seed-incident/promo.jsonl",
];

fn report(files: &[&str]) -> String {
    let mut args = vec!["report"];
    args.extend_from_slice(files);
    let o = callint(&args);
    // 1 when a finding is an error, as `check` exits
    // (`report_exits_as_check_does`).
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}{}",
        stdout(&o),
        String::from_utf8_lossy(&o.stderr)
    );
    stdout(&o)
}

fn report_html(files: &[&str]) -> (String, String) {
    let out_dir = scratch();
    let out = out_dir.join("report.html");
    let mut args = vec!["report"];
    args.extend_from_slice(files);
    args.extend(["--html", out.to_str().unwrap()]);
    let o = callint(&args);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stdout(&o));
    (stdout(&o), std::fs::read_to_string(&out).expect("the page"))
}

/// The row of one agent in the summary's table, split at white space.
fn row<'a>(summary: &'a str, agent: &str) -> Vec<&'a str> {
    summary
        .lines()
        .find(|l| l.split_whitespace().next() == Some(agent))
        .unwrap_or_else(|| panic!("no row for {agent} in\n{summary}"))
        .split_whitespace()
        .collect()
}

// ---------------------------------------------------------------------------
// The numbers, recomputed from the raw logs without callint's model.
// ---------------------------------------------------------------------------

fn records(file: &str) -> Vec<Value> {
    std::fs::read_to_string(root().join(file))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Milliseconds of the day of `2026-10-10T10:03:05.550Z`.
fn ms(ts: &str) -> i64 {
    let n = |r: std::ops::Range<usize>| ts[r].parse::<i64>().unwrap();
    ((n(11..13) * 60 + n(14..16)) * 60 + n(17..19)) * 1000 + n(20..23)
}

/// Each time the human addressed `me` in its own log: the milliseconds to
/// its first `say` after that, or `None` when the human spoke again first.
fn acks(file: &str, me: &str) -> Vec<Option<i64>> {
    let recs = records(file);
    let mut out = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let ev = &r["result"];
        if r["fn"] != "next" || ev["type"] != "user" {
            continue;
        }
        let text = ev["text"].as_str().unwrap();
        let named = match ev["addressed_to"].as_array() {
            Some(a) => a.iter().any(|n| n.as_str() == Some(me)),
            // Not recorded: the server's rule, a name first before a comma.
            None => text.starts_with(&format!("{me},")),
        };
        if !named && ev["addressed_to_you"] != true {
            continue;
        }
        let t0 = ms(r["ts"].as_str().unwrap());
        let mut ack = None;
        for later in &recs[i + 1..] {
            if later["fn"] == "say" {
                ack = Some(ms(later["ts"].as_str().unwrap()) - t0);
                break;
            }
            if later["fn"] == "next" && later["result"]["type"] == "user" {
                break;
            }
        }
        out.push(ack);
    }
    out
}

fn secs(ms: i64) -> String {
    let cs = (ms + 5) / 10;
    format!("{}.{:02}", cs / 100, cs % 100)
}

/// Lines the room heard from `me`: its own says that the server did not
/// drop or revise, and the lines other logs heard from it that it never
/// sent as a say (the server's greeting for `greet: true`).
fn heard_says(file: &str, me: &str) -> usize {
    let recs = records(file);
    let revised: Vec<&Value> = recs
        .iter()
        .filter(|r| r["result"]["type"] == "revise")
        .map(|r| &r["result"]["say_id"])
        .collect();
    let own: Vec<&str> = recs
        .iter()
        .filter(|r| r["fn"] == "say" && r["result"]["say_status"] != "dropped")
        .filter(|r| !revised.contains(&&r["result"]["say_id"]))
        .map(|r| r["args"]["text"].as_str().unwrap())
        .collect();
    let mut others: Vec<String> = Vec::new();
    for other in INCIDENT.iter().filter(|f| **f != file) {
        for r in records(other) {
            let ev = &r["result"];
            let mut lines: Vec<&Value> = ev["operators_said"]
                .as_array()
                .map(|a| a.iter().collect())
                .unwrap_or_default();
            if ev["type"] == "operator" {
                lines.push(ev);
            }
            for l in lines {
                let t = l["text"].as_str().unwrap();
                if l["speaker"] == me && !own.contains(&t) && !others.iter().any(|o| o == t) {
                    others.push(t.to_string());
                }
            }
        }
    }
    own.len() + others.len()
}

#[test]
fn incident_summary_facts() {
    let out = report(&INCIDENT);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0], "Call c-7f3k2q \"Multi-agent rules test\"",
        "{out}"
    );
    assert!(
        out.contains("  participants  Oliver (human), Delta (voicebot), Promo (owner), opencode (participant), Claude (participant)\n"),
        "{out}"
    );
    assert!(out.contains("  language      en\n"), "{out}");
    // From Promo's join (09:59:52.118) to Claude's leave (10:11:16.200).
    assert!(
        out.contains("  duration      11:24, from 2026-10-10 09:59:52 UTC\n"),
        "{out}"
    );
    for f in INCIDENT {
        assert!(out.contains(f), "{f} missing in\n{out}");
    }
    // Oliver's 19 lines are heard by all three logs and counted once.
    assert!(
        out.contains("heard: Oliver 19, Delta 1, Promo 7, opencode 12, Claude 5"),
        "{out}"
    );

    for (file, me, role, out_of_turn) in [
        ("corpus/seed-incident/promo.jsonl", "Promo", "owner", "0"),
        // "Yes to both." (Promo's question to Oliver) and "Sure, here is
        // the status" (Oliver had addressed Delta).
        (
            "corpus/seed-incident/opencode.jsonl",
            "opencode",
            "participant",
            "2",
        ),
        // "Yes, I also saw the build is green." (Oliver had asked Promo).
        (
            "corpus/seed-incident/claude.jsonl",
            "Claude",
            "participant",
            "1",
        ),
    ] {
        let r = row(&out, me);
        // agent role says words addressed median "s" worst "s" no-ack out findings
        assert_eq!(r.len(), 12, "{r:?}");
        assert_eq!(r[1], role, "{r:?}");
        assert_eq!(r[2], heard_says(file, me).to_string(), "says of {me}");
        let acks = acks(file, me);
        assert_eq!(r[4], acks.len().to_string(), "times {me} was addressed");
        let mut done: Vec<i64> = acks.iter().flatten().copied().collect();
        done.sort_unstable();
        let n = done.len();
        assert!(n > 0, "{me} acknowledged nothing");
        let median = if n % 2 == 1 {
            done[n / 2]
        } else {
            (done[n / 2 - 1] + done[n / 2]) / 2
        };
        assert_eq!(r[5], secs(median), "median ack of {me}");
        assert_eq!(r[7], secs(done[n - 1]), "worst ack of {me}");
        assert_eq!(r[9], (acks.len() - n).to_string(), "no ack of {me}");
        assert_eq!(r[10], out_of_turn, "out of turn of {me}");
    }
    // The numbers themselves, as read off the logs by hand: Promo answered
    // Oliver after 1.45 s, 1.65 s and 1.55 s; opencode after 1.55 s, 1.45 s
    // and 1.45 s; Claude once, after 1.85 s.
    assert_eq!(
        &row(&out, "Promo")[2..11],
        ["7", "64", "3", "1.55", "s", "1.65", "s", "0", "0"]
    );
    assert_eq!(
        &row(&out, "opencode")[2..11],
        ["12", "120", "3", "1.45", "s", "1.55", "s", "0", "2"]
    );
    assert_eq!(
        &row(&out, "Claude")[2..11],
        ["5", "64", "1", "1.85", "s", "1.85", "s", "0", "1"]
    );
}

#[test]
fn incident_findings_by_rule_match_check() {
    let out = report(&INCIDENT);
    let mut args = vec!["check", "--format", "json"];
    args.extend_from_slice(&INCIDENT);
    let check: Value = serde_json::from_slice(&callint(&args).stdout).expect("check json");
    let want: BTreeMap<String, u64> = check["summary"]["by_rule"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    let section = out
        .split("\nfindings by rule\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no findings section in\n{out}"));
    let mut got: BTreeMap<String, u64> = BTreeMap::new();
    for l in section.lines().take_while(|l| l.starts_with("  ")) {
        let mut w = l.split_whitespace();
        let rule = w.next().unwrap().to_string();
        got.insert(rule, w.next().unwrap().parse().unwrap());
    }
    assert_eq!(got, want, "{out}");
    // Each rule's findings are put on the agents at fault.
    assert!(
        out.contains("  wrong-language                 4  opencode 4\n"),
        "{out}"
    );
    assert!(
        out.contains("  board-bundle                   2  Promo 1, Claude 1\n"),
        "{out}"
    );
    assert!(
        out.contains("  spoke-for-addressed            1  Claude 1\n"),
        "{out}"
    );
    // Every finding the corpus annotates is counted on its agent's row.
    let total: u64 = want.values().sum();
    let on_rows: u64 = ["Promo", "opencode", "Claude"]
        .iter()
        .map(|a| row(&out, a)[11].parse::<u64>().unwrap())
        .sum();
    assert_eq!(on_rows, total);
    assert!(out.contains(&format!("Found {total} problems")), "{out}");
}

#[test]
fn one_log_alone_still_shows_the_room() {
    // Promo's log alone: the others' lines as Promo heard them.
    let out = report(&["corpus/seed-incident/promo.jsonl"]);
    assert!(
        out.contains(
            "Oliver (human), Delta (voicebot), Promo (owner), opencode (agent), Claude (agent)"
        ),
        "{out}"
    );
    assert!(out.contains("heard: Oliver 19,"), "{out}");
    // Without their own logs, opencode's and Claude's out-of-turn counts
    // are unknown, and their acks come from the timeline.
    let r = row(&out, "opencode");
    assert_eq!(r[10], "-", "{r:?}");
    assert_eq!(row(&out, "Promo")[10], "0");
}

#[test]
fn logs_merge_into_one_timeline() {
    let (_, merged) = report_html(&INCIDENT);
    let lane_marks = |html: &str, lane: &str| {
        html.split("<g class=\"mark")
            .skip(1)
            .filter(|m| !m.starts_with("s\""))
            .map(|m| &m[..m.find("</g>").unwrap()])
            .filter(|m| m.contains(&format!("data-lane=\"{lane}\"")))
            .count()
    };
    // Each line once, whatever number of logs heard it.
    assert_eq!(lane_marks(&merged, "Oliver"), 19);
    assert_eq!(lane_marks(&merged, "Delta"), 1);
    assert_eq!(lane_marks(&merged, "Promo"), 7);
    // opencode's 12 heard says and its one dropped say (drawn hollow).
    assert_eq!(lane_marks(&merged, "opencode"), 13);
    assert_eq!(merged.matches("<g class=\"mark dropped\"").count(), 1);
    assert_eq!(lane_marks(&merged, "Claude"), 5);
    // A lane per participant, in this order.
    let lanes: Vec<&str> = merged
        .split("<g class=\"lane lane-")
        .skip(1)
        .map(|s| {
            let s = &s[s.find("data-lane=\"").unwrap() + 11..];
            &s[..s.find('"').unwrap()]
        })
        .collect();
    assert_eq!(lanes, ["Oliver", "Delta", "Promo", "opencode", "Claude"]);
    // Every finding has a row, with its file and line.
    assert_eq!(merged.matches("<tr class=\"finding ").count(), 23);
    assert!(merged.contains("data-file=\"corpus/seed-incident/opencode.jsonl\" data-line=\"4\""));
    // Claude's echo of Promo's answer carries both of its findings, in red.
    let echo = merged
        .split("<g class=\"mark")
        .find(|m| m.contains("Yes, I also saw the build is green."))
        .unwrap();
    assert!(echo.starts_with(" has-finding"), "{echo}");
    assert!(
        echo.contains("data-rules=\"repeated-say spoke-for-addressed\"")
            || echo.contains("data-rules=\"spoke-for-addressed repeated-say\""),
        "{echo}"
    );
}

const EVIL: &str = concat!(
    r#"{"meta":{"format":1,"human":"Oliver <marquee>","voicebot":"Delta"}}"#,
    "\n",
    r#"{"ts":"2026-10-10T10:00:00.000Z","call":"c-x","fn":"join","args":{"call_id":"c-x","label":"Evil\"><img src=x>","greet":false},"result":{"status":"joined","role":"participant","context":{"lang":"en"}}}"#,
    "\n",
    r#"{"ts":"2026-10-10T10:00:01.000Z","call":"c-x","fn":"say","args":{"text":"<script>alert(1)</script> & \"quotes\" 'single' \u001b[2J"},"result":{"say_id":"s1","say_status":"queued"}}"#,
    "\n",
    r#"{"ts":"2026-10-10T10:00:05.000Z","call":"c-x","fn":"next","result":{"type":"user","speaker":"Oliver <marquee>","text":"</title><script>alert(2)</script>","addressed_to":[]}}"#,
    "\n",
);

#[test]
fn log_text_stays_text() {
    let dir = scratch();
    let log = dir.join("evil.jsonl");
    std::fs::write(&log, EVIL).unwrap();
    let (out, html) = report_html(&[log.to_str().unwrap()]);
    // The terminal gets no raw escape sequence.
    assert!(!out.contains('\u{1b}'), "{out:?}");
    // The page: the say is shown as text, in the SVG title and nowhere raw.
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; &#39;single&#39; \\e[2J"),
        "{html}"
    );
    assert!(html.contains("&lt;/title&gt;&lt;script&gt;alert(2)&lt;/script&gt;"));
    assert!(!html.contains("<script>alert"));
    assert!(!html.contains("<img"));
    assert!(!html.contains("<marquee"));
    assert!(!html.contains('\u{1b}'));
    // Attribute values too.
    assert!(
        html.contains("data-lane=\"Evil&quot;&gt;&lt;img src=x&gt;\""),
        "{html}"
    );
    assert!(html.contains("data-lane=\"Oliver &lt;marquee&gt;\""));
    // Only the page's own two scripts.
    assert_eq!(html.matches("<script").count(), 2);
}

#[test]
fn page_loads_nothing() {
    let (_, html) = report_html(&INCIDENT);
    let low = html.to_lowercase();
    // A policy that forbids every load, and nothing that would try one.
    assert!(
        low.contains("<meta http-equiv=\"content-security-policy\" content=\"default-src 'none';")
    );
    for bad in [
        "<script src",
        "<link",
        "@import",
        "@font-face",
        "url(http",
        "url(//",
        "url(\"http",
        "url('http",
        "<iframe",
        "<img",
        "<object",
        "<embed",
        "<base",
    ] {
        assert!(!low.contains(bad), "the page holds {bad}");
    }
    // No attribute names a URL: every src/href/action is absent or local.
    for attr in ["src=", "href=", "action=", "xlink:href=", "poster="] {
        for (i, _) in low.match_indices(attr) {
            let before = low[..i].chars().last().unwrap_or(' ');
            if before.is_alphanumeric() || before == '-' || before == '_' {
                continue; // data-src= and the like
            }
            let value = low[i + attr.len()..].trim_start_matches(['"', '\'']);
            assert!(
                !(value.starts_with("http")
                    || value.starts_with("//")
                    || value.starts_with("data:")),
                "the page loads {}",
                &value[..value.len().min(60)]
            );
        }
    }
    // Links in the logs' text are text only.
    for (i, _) in html.match_indices("https://") {
        let before = &html.as_bytes()[..i];
        assert!(
            !before.ends_with(b"\"") && !before.ends_with(b"'") && !before.ends_with(b"url("),
            "a URL in an attribute or style at byte {i}"
        );
    }
}

#[test]
fn unreadable_file_fails_with_2() {
    let o = callint(&["report", "corpus/no-such-call.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read"));
    let o = callint(&["report"]);
    assert_eq!(o.status.code(), Some(2), "FILES are required");
}

#[test]
fn the_room_findings_of_check_are_in_the_report() {
    // Osprey has no log here; the room pass of `check` judges it, and the
    // report shows the same findings, on Osprey's row.
    let files = [
        "corpus/several-logs/marlin.jsonl",
        "corpus/several-logs/wren.jsonl",
    ];
    let out = report(&files);
    let mut args = vec!["check", "--format", "json"];
    args.extend_from_slice(&files);
    let check: Value = serde_json::from_slice(&callint(&args).stdout).expect("check json");
    let total = check["summary"]["diagnostics"].as_u64().unwrap();
    assert_eq!(total, 3);
    assert!(out.contains(&format!("Found {total} problems")), "{out}");
    assert_eq!(row(&out, "Osprey")[11], "2", "{out}");
    assert!(
        out.contains("  spoke-over-delta               1  Osprey 1\n"),
        "{out}"
    );
}

#[test]
fn a_folder_and_standard_input_are_read_like_files() {
    let by_files = report(&INCIDENT);
    let by_folder = report(&["corpus/seed-incident"]);
    // The same call, the same numbers; only the list of logs may differ in
    // how the paths are spelt.
    let body = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| !l.trim_start().starts_with("corpus/") && !l.contains("logs "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(body(&by_files), body(&by_folder));
    assert!(by_folder.contains("Call c-7f3k2q"), "{by_folder}");

    let log = std::fs::read(root().join(INCIDENT[0])).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_callint"))
        .args(["report", "-"])
        .current_dir(root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), &log).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let from_stdin = stdout(&o);
    assert_eq!(
        from_stdin.replace("logs          - (", "logs          X ("),
        report(&[INCIDENT[0]]).replace(
            &format!("logs          {} (", INCIDENT[0]),
            "logs          X ("
        )
    );
}

#[test]
fn logs_of_two_calls_are_two_reports() {
    let both = report(&["corpus/seed-incident", "corpus/clean-en"]);
    assert_eq!(
        both.matches("\nCall ").count() + both.starts_with("Call ") as usize,
        2,
        "{both}"
    );
    let incident = report(&["corpus/seed-incident"]);
    let clean = report(&["corpus/clean-en"]);
    // Each call's part is its report alone: no 1-hour call made of two.
    assert!(both.contains(&incident), "{both}");
    assert!(both.contains(&clean), "{both}");

    // One picked by its id.
    let picked = report(&[
        "corpus/seed-incident",
        "corpus/clean-en",
        "--call",
        "c-c1ean3",
    ]);
    assert_eq!(picked, clean);

    // A page shows one call: with two, the user is asked to pick.
    let page_dir = scratch();
    let page = page_dir.join("two.html");
    let o = callint(&[
        "report",
        "corpus/seed-incident",
        "corpus/clean-en",
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--call"));
    assert!(!page.exists());
}

#[test]
fn a_huge_agent_name_is_elided_in_the_table() {
    let name = "N".repeat(70_000);
    let log = format!(
        "{}\n{}\n",
        serde_json::json!({"ts":"2026-10-10T10:00:00.000Z","agent":name,"call":"c1","fn":"join","args":{"call_id":"c1","label":"Kiwi"},"result":{"status":"joined"}}),
        serde_json::json!({"ts":"2026-10-10T10:00:01.000Z","agent":name,"call":"c1","fn":"say","args":{"text":"Hello, Kiwi here."},"result":{"say_id":"s1","say_status":"spoken"}}),
    );
    let file_dir = scratch();
    let file = file_dir.join("huge-name.jsonl");
    std::fs::write(&file, log).unwrap();
    let out = report(&[file.to_str().unwrap()]);
    let row = out
        .lines()
        .find(|l| l.starts_with("NNNN") && l.contains('…'))
        .unwrap_or_else(|| panic!("no table row: {}", &out[..out.len().min(2000)]));
    assert!(row.chars().count() < 200, "{row}");
}

/// `report` exits as `check` does on the same file: 1 when a finding is an
/// error (here a label the server refuses), 0 when none is.
#[test]
fn report_exits_as_check_does() {
    let dir = common::scratch();
    let bad = r#"{"ts":"2026-10-10T10:00:00.000Z","call":"c1","fn":"join","args":{"call_id":"c1","label":"a-label-far-longer-than-the-server-takes"},"result":{"status":"joined","context":{"lang":"en"}}}
{"ts":"2026-10-10T10:00:01.000Z","call":"c1","fn":"say","args":{"text":"Hi, this is Kit, I am in and listening."}}
"#;
    std::fs::write(dir.join("bad.jsonl"), bad).unwrap();
    let check = common::callint_in(&dir, &["check", "--no-config", "--no-cache", "bad.jsonl"]);
    let report = common::callint_in(&dir, &["report", "--no-config", "bad.jsonl"]);
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(report.status.code(), Some(1), "{}", common::stdout(&report));
    let clean = common::root().join("corpus/clean-en");
    let clean = clean.to_str().unwrap();
    let report = common::callint_in(&dir, &["report", "--no-config", clean]);
    assert_eq!(report.status.code(), Some(0), "{}", common::stdout(&report));
    let _ = std::fs::remove_dir_all(&dir);
}
