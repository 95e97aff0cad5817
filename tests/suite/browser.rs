//! The HTML post-mortem in a real browser: headless Chromium loads the
//! report of the corpus's incident call, the test reads the DOM after the
//! page's script ran (lanes, marks, findings, no script error, nothing
//! loaded), and a screenshot is saved as `report-seed-incident.png` in the
//! build's target folder (`CARGO_TARGET_DIR` when set), never in the
//! source tree.
//!
//! Chromium is Debian's `chromium` package (`.ci/run` installs it). Without
//! it the test fails when `CI=true` and is skipped with a notice elsewhere.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const INCIDENT: [&str; 3] = [
    "corpus/seed-incident/claude.jsonl",
    "corpus/seed-incident/opencode.jsonl",
    "corpus/seed-incident/promo.jsonl",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Chromium binary, or `None` (after failing under CI) when missing.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(
            !ci,
            "chromium is not installed, but CI=true: the browser test must run in CI \
             (.ci/run installs Debian's `chromium` package: apt-get install -y --no-install-recommends chromium)"
        );
        eprintln!(
            "NOTICE: skipping the browser test: chromium is not installed \
             (apt-get install -y --no-install-recommends chromium)"
        );
    }
    found
}

fn scratch(what: &str) -> crate::common::Scratch {
    crate::common::scratch_named(&format!("browser-{what}"))
}

/// Write the report of `files` as a page.
fn page(files: &[&str], out: &Path) {
    let mut args = vec!["report".to_string()];
    args.extend(files.iter().map(|f| f.to_string()));
    args.extend(["--html".to_string(), out.to_string_lossy().into_owned()]);
    let o = Command::new(env!("CARGO_BIN_EXE_callint"))
        .args(&args)
        .current_dir(root())
        .output()
        .expect("run callint");
    // `report` exits as `check` does: 1 when a finding is an error.
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.is_file(), "no page written");
}

/// Run headless Chromium on `page` with `extra` arguments, in a fresh
/// profile, with every background network feature off; its stdout.
fn run_chromium(bin: &Path, page: &Path, extra: &[String]) -> String {
    chromium_output(bin, &format!("file://{}", page.display()), extra).0
}

/// [`run_chromium`] on a URL; its stdout and stderr.
fn chromium_output(bin: &Path, url: &str, extra: &[String]) -> (String, String) {
    let profile = scratch("profile");
    let mut cmd = Command::new(bin);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(extra)
    .arg(url)
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start chromium");
    // Read stdout on a thread so a large DOM cannot fill the pipe.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).ok();
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).ok();
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for chromium") {
            break s;
        }
        if start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = reader.join().unwrap();
    let stderr = err_reader.join().unwrap();
    drop(profile);
    assert!(status.success(), "chromium failed: {status}\n{stderr}");
    (stdout, stderr)
}

/// The value of `attr` on the first element whose start tag begins with
/// `tag` in the dumped DOM.
fn attr<'a>(dom: &'a str, tag: &str, attr: &str) -> Option<&'a str> {
    let start = dom.find(tag)?;
    let end = start + dom[start..].find('>')?;
    let open = &dom[start..end];
    let key = format!(" {attr}=\"");
    let v = &open[open.find(&key)? + key.len()..];
    Some(&v[..v.find('"')?])
}

#[test]
fn incident_report_in_chromium() {
    let Some(bin) = chromium() else { return };
    let dir = scratch("page");
    let html = dir.join("report-seed-incident.html");
    page(&INCIDENT, &html);

    let dom = run_chromium(&bin, &html, &["--dump-dom".to_string()]);
    assert!(
        dom.contains("<svg id=\"timeline\""),
        "no timeline in\n{dom}"
    );
    // The page's script ran to its end and raised nothing.
    assert_eq!(
        attr(&dom, "<html", "data-errors"),
        Some("0"),
        "script errors: {:?}",
        attr(&dom, "<html", "data-error")
    );
    assert_eq!(
        attr(&dom, "<body", "data-ready"),
        Some("1"),
        "script did not finish"
    );
    // Nothing was fetched: not a font, not a script, not an image.
    assert_eq!(attr(&dom, "<body", "data-resources"), Some("0"));

    // A lane per participant, in order.
    let lanes: Vec<&str> = dom
        .split("<g class=\"lane lane-")
        .skip(1)
        .map(|s| {
            let s = &s[s.find("data-lane=\"").unwrap() + 11..];
            &s[..s.find('"').unwrap()]
        })
        .collect();
    assert_eq!(lanes, ["Oliver", "Delta", "Promo", "opencode", "Claude"]);

    // Marks: what the script counted is what the DOM holds, one per line
    // heard (44) plus opencode's dropped say.
    let marks = dom
        .split("<g class=\"mark")
        .skip(1)
        .filter(|m| m.starts_with(' ') || m.starts_with('"'))
        .count();
    assert_eq!(marks, 45);
    assert_eq!(attr(&dom, "<body", "data-marks"), Some("45"));
    let red = dom.matches("<g class=\"mark has-finding").count();
    assert!(red >= 10, "{red} red marks");
    // Every mark has its hover title.
    assert_eq!(
        dom.matches("</title></g>").count(),
        marks + dom.matches("<g class=\"flag\"").count()
    );
    // Findings: one row each, each linked to its mark or flag on the
    // timeline, with its rule.
    // As many as `check` finds in the same logs (every rule, the room too).
    let checked = Command::new(env!("CARGO_BIN_EXE_callint"))
        .args(["check", "--no-config", "--no-cache", "--format", "json"])
        .args(INCIDENT)
        .current_dir(root())
        .output()
        .expect("run callint check");
    let doc: serde_json::Value = serde_json::from_slice(&checked.stdout).expect("JSON");
    let findings = doc["summary"]["diagnostics"].as_u64().expect("a count") as usize;
    assert!(findings >= 20, "{doc}");
    let shown = findings.to_string();
    assert_eq!(attr(&dom, "<body", "data-findings"), Some(shown.as_str()));
    assert_eq!(dom.matches("<tr class=\"finding ").count(), findings);
    for row in dom.split("<tr class=\"finding ").skip(1) {
        let tag = format!("<tr {row}");
        let target = attr(&tag, "<tr", "data-mark").unwrap();
        assert!(!target.is_empty(), "a finding off the timeline: {row}");
        assert!(
            dom.contains(&format!("id=\"{target}\"")),
            "no element {target}"
        );
    }
    for rule in [
        "wrong-language",
        "spoke-over-delta",
        "board-bundle",
        "label-too-long",
    ] {
        assert!(
            dom.contains(&format!("data-rule=\"{rule}\"")),
            "{rule} not on the page"
        );
    }
    // The per-agent table.
    for agent in ["Promo", "opencode", "Claude"] {
        assert!(dom.contains(&format!("<tr class=\"agent\" data-agent=\"{agent}\"")));
    }

    // The screenshot, for people.
    let target = target_dir();
    std::fs::create_dir_all(&target).unwrap();
    let shot = target.join("report-seed-incident.png");
    let _ = std::fs::remove_file(&shot);
    run_chromium(
        &bin,
        &html,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1400,1000".to_string(),
        ],
    );
    let png = std::fs::read(&shot).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(
        png.len() > 20_000,
        "a blank screenshot? {} bytes",
        png.len()
    );
    let _ = std::fs::copy(&html, target.join("report-seed-incident.html"));
}

/// The build's target folder, wherever `CARGO_TARGET_DIR` put it: the one
/// this test binary was built into (`<target>/<profile>/deps/`).
fn target_dir() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.to_path_buf()))
        .unwrap_or_else(|| root().join("target"))
}

#[test]
fn the_screenshot_goes_to_the_target_folder() {
    let target = target_dir();
    assert!(target.join("debug").is_dir() || target.join("release").is_dir());
    if let Some(set) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        let set = std::fs::canonicalize(root().join(set)).unwrap();
        assert_eq!(std::fs::canonicalize(&target).unwrap(), set);
    }
}

#[test]
fn hostile_log_stays_text_in_chromium() {
    let Some(bin) = chromium() else { return };
    let dir = scratch("hostile");
    let log = dir.join("hostile.jsonl");
    std::fs::write(
        &log,
        concat!(
            r#"{"ts":"2026-10-10T10:00:00.000Z","fn":"join","args":{"call_id":"c","label":"Evil\"><script>document.title='pwned'</script>"},"result":{"status":"joined","context":{"lang":"en"}}}"#,
            "\n",
            r#"{"ts":"2026-10-10T10:00:01.000Z","fn":"say","args":{"text":"<script>document.body.setAttribute('data-pwned','1')</script><img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">"},"result":{"say_id":"s1","say_status":"queued"}}"#,
            "\n",
        ),
    )
    .unwrap();
    let html = dir.join("hostile.html");
    page(&[log.to_str().unwrap()], &html);
    let dom = run_chromium(&bin, &html, &["--dump-dom".to_string()]);
    assert_eq!(attr(&dom, "<body", "data-ready"), Some("1"));
    assert_eq!(attr(&dom, "<html", "data-errors"), Some("0"));
    assert!(!dom.contains(" data-pwned=\""), "log text ran as code");
    assert!(!dom.contains("<img"));
    assert!(!dom.contains("<title>pwned"));
    // The say is on the page, as text.
    assert!(dom.contains("&lt;script&gt;document.body.setAttribute"));
}

/// The rows of the table `id` in a dumped DOM: each row's `data-KEY`
/// and the text of its cells.
fn rows(dom: &str, id: &str, key: &str) -> Vec<(String, Vec<String>)> {
    let start = dom
        .find(&format!("<table id=\"{id}\""))
        .unwrap_or_else(|| panic!("no table {id}"));
    let table = &dom[start..start + dom[start..].find("</table>").unwrap()];
    let body = &table[table.find("<tbody>").unwrap()..];
    body.split("<tr ")
        .skip(1)
        .map(|row| {
            let tag = format!("<tr {row}");
            let k = attr(&tag, "<tr", key).unwrap_or("").to_string();
            let cells = row
                .split("<td")
                .skip(1)
                .map(|c| {
                    let text = &c[c.find('>').unwrap() + 1..];
                    let text = &text[..text.find("</td>").unwrap()];
                    // The text of the cell, without the markup in it.
                    let mut out = String::new();
                    let mut in_tag = false;
                    for ch in text.chars() {
                        match ch {
                            '<' => in_tag = true,
                            '>' => in_tag = false,
                            c if !in_tag => out.push(c),
                            _ => {}
                        }
                    }
                    out.replace("&amp;", "&")
                })
                .collect();
            (k, cells)
        })
        .collect()
}

/// The audit's page in Chromium: it loads without a script error or a
/// console message, draws its charts, shows `check`'s counts, a filter
/// (from the page's address, as a shared link sets it) changes its
/// tables, and a call's link opens that call's post-mortem.
#[test]
fn audit_page_in_chromium() {
    let Some(bin) = chromium() else { return };
    let dir = scratch("audit");
    let o = Command::new(env!("CARGO_BIN_EXE_callint"))
        .args(["audit", "corpus", "--no-cache", "--calls", "5", "--html"])
        .arg(&*dir)
        .current_dir(root())
        .output()
        .expect("run callint audit");
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let checked = Command::new(env!("CARGO_BIN_EXE_callint"))
        .args(["check", "corpus", "--no-cache", "--format", "json"])
        .current_dir(root())
        .output()
        .expect("run callint check");
    let doc: serde_json::Value = serde_json::from_slice(&checked.stdout).expect("JSON");
    let summary = &doc["summary"];
    let index = dir.join("index.html");
    let url = format!("file://{}", index.display());
    let logged = [
        "--dump-dom".to_string(),
        "--enable-logging=stderr".to_string(),
        "--v=0".to_string(),
    ];

    let (dom, log) = chromium_output(&bin, &url, &logged);
    assert_eq!(
        attr(&dom, "<html", "data-errors"),
        Some("0"),
        "{:?}",
        attr(&dom, "<html", "data-error")
    );
    assert_eq!(
        attr(&dom, "<body", "data-ready"),
        Some("1"),
        "script did not finish"
    );
    assert_eq!(attr(&dom, "<body", "data-resources"), Some("0"));
    for line in log.lines() {
        assert!(
            !line.contains("CONSOLE") && !line.contains("Refused to") && !line.contains("Uncaught"),
            "the console said: {line}"
        );
    }
    // The charts are drawn: a bar per rule (at most 15) and per agent, a
    // bar per severity, the calls' line and the rates' lines.
    let bars: usize = attr(&dom, "<body", "data-bars").unwrap().parse().unwrap();
    assert!(bars >= 15 + 3, "{bars} bars");
    assert_eq!(
        dom.matches("<rect class=\"bar\"").count() + dom.matches("<rect class=\"bar sev-").count(),
        bars
    );
    let lines: usize = attr(&dom, "<body", "data-lines").unwrap().parse().unwrap();
    assert!(lines >= 2, "{lines} lines");
    assert!(dom.contains("<path class=\"line\""));
    // The counts are check's.
    let diagnostics = summary["diagnostics"].as_u64().unwrap().to_string();
    assert_eq!(
        attr(&dom, "<body", "data-findings"),
        Some(diagnostics.as_str())
    );
    let by_rule = summary["by_rule"].as_object().unwrap();
    let says = summary["says"].as_u64().unwrap() as f64;
    let shown = rows(&dom, "rules", "data-rule");
    assert_eq!(shown.len(), by_rule.len());
    for (rule, cells) in &shown {
        let n = by_rule[rule].as_u64().unwrap();
        assert_eq!(cells[2], n.to_string(), "{rule}");
        let rate = (n as f64 * 10_000.0 / says).round() / 100.0;
        assert_eq!(cells[3], format!("{rate:.2}"), "{rule}");
    }
    let agents = rows(&dom, "agents", "data-agent");
    assert_eq!(
        agents.len(),
        summary["statistics"]["agents"].as_object().unwrap().len()
    );
    for (agent, cells) in &agents {
        let st = &summary["statistics"]["agents"][agent];
        assert_eq!(cells[1], st["says"].to_string(), "{agent}");
        assert_eq!(cells[2], st["diagnostics"].to_string(), "{agent}");
    }
    for (sev, n) in summary["by_severity"].as_object().unwrap() {
        let at = dom.find(&format!("data-severity=\"{sev}\"")).unwrap();
        let b = &dom[at..];
        let b = &b[b.find("<b class=\"n\">").unwrap() + 13..];
        assert_eq!(&b[..b.find('<').unwrap()], n.to_string(), "{sev}");
    }
    let calls = rows(&dom, "calls", "data-call");
    assert!(calls.len() > 5, "{} calls", calls.len());

    // A filter by rule: one rule left, its count, and only calls with it.
    let (filtered, _) = chromium_output(&bin, &format!("{url}#rule=board-bundle"), &logged);
    assert_eq!(attr(&filtered, "<html", "data-errors"), Some("0"));
    let only = rows(&filtered, "rules", "data-rule");
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].0, "board-bundle");
    let n = by_rule["board-bundle"].to_string();
    assert_eq!(attr(&filtered, "<body", "data-findings"), Some(n.as_str()));
    let some = rows(&filtered, "calls", "data-call");
    assert!(
        !some.is_empty() && some.len() < calls.len(),
        "{} of {}",
        some.len(),
        calls.len()
    );
    assert!(
        some.iter().all(|(_, c)| c[4].starts_with("board-bundle ")),
        "{some:?}"
    );

    // A filter by severity: only errors.
    let (errors, _) = chromium_output(&bin, &format!("{url}#severity=error"), &logged);
    let want = summary["by_severity"]["error"].to_string();
    assert_eq!(attr(&errors, "<body", "data-findings"), Some(want.as_str()));
    assert!(rows(&errors, "calls", "data-call")
        .iter()
        .all(|(_, c)| c[2] != "0"));

    // The first call's link opens its post-mortem.
    let first = &dom[dom.find("<tr class=\"call\"").unwrap()..];
    let key = attr(first, "<tr", "data-call").unwrap().to_string();
    let href = attr(first, "<a", "href").unwrap().to_string();
    assert!(href.starts_with("calls/"), "{href}");
    let post = dir.join(&href);
    let pm = run_chromium(&bin, &post, &["--dump-dom".to_string()]);
    assert_eq!(attr(&pm, "<body", "data-ready"), Some("1"));
    assert_eq!(attr(&pm, "<html", "data-errors"), Some("0"));
    assert!(pm.contains("<svg id=\"timeline\""));
    assert!(
        pm.contains(&format!("<code>{key}</code>")),
        "not the post-mortem of {key}"
    );

    // The screenshot, for people, beside the post-mortem's.
    let target = target_dir();
    std::fs::create_dir_all(&target).unwrap();
    let shot = target.join("audit-corpus.png");
    let _ = std::fs::remove_file(&shot);
    run_chromium(
        &bin,
        &index,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1400,1000".to_string(),
        ],
    );
    let png = std::fs::read(&shot).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(
        png.len() > 20_000,
        "a blank screenshot? {} bytes",
        png.len()
    );
}
