//! `callint check --follow`: lint logs while they are being written, and
//! show each finding once, when it first appears.
//!
//! Each poll looks at every file's identity and size. A file that grew is
//! linted again up to its last complete line (a line still being written
//! is left for the next poll, so that it is not reported as broken), and
//! the findings not shown before are returned. A file that shrank was
//! truncated, and one whose identity changed was replaced (rotated): it is
//! read from its start again, and its findings are shown anew. A file that
//! is missing is waited for.
//!
//! A grown file is linted whole, so a poll costs the file's length: what a
//! finding on a line depends on (a later answer, a turn that ended) is
//! judged as a full lint judges it.
//!
//! A rule that judges a record by what follows it (no greeting after a
//! join, no answer to a line, the end of a turn: those that cannot judge a
//! pending record, [`crate::rules::judges_pending`]) would find fault with
//! the last records of a log only because the rest is not written yet. Its
//! findings are held back until the log has gone on for [`SETTLE_LINES`]
//! lines past them, or has not grown for [`SETTLE_QUIET`], or following
//! ends ([`Follow::flush`]); a finding that the lines written meanwhile
//! settle (the greeting came) is never shown.

use crate::core::hash::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::core::diagnostic::Severity;
use crate::core::escape::{file_name, one_line};
use crate::lint::engine::{FileResult, Linter};
use crate::report::{resolve, to_json_line, LineIndex};

/// Lines a log goes on past a finding of a rule that judges what follows,
/// before that finding is shown.
pub const SETTLE_LINES: usize = 50;

/// How long a log stays unchanged before the findings held back on it are
/// shown.
pub const SETTLE_QUIET: Duration = Duration::from_secs(10);

/// How findings are written: one line each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `file:line:col: severity[rule] message`.
    Concise,
    /// One JSON object a line, with the fields of `--format json`'s
    /// findings.
    Jsonl,
}

/// What a poll found.
#[derive(Debug, Default)]
pub struct News {
    /// New findings, rendered, in file order.
    pub findings: Vec<(Severity, String)>,
    /// What happened to the files (truncated, replaced, missing).
    pub notes: Vec<String>,
}

struct File {
    path: PathBuf,
    shown: String,
    /// Identity and size when last read.
    id: Option<(u64, u64)>,
    len: u64,
    missing: bool,
    /// Read since it was last (re)started.
    read: bool,
    /// When it last grew.
    changed: Instant,
    /// Complete lines when last read.
    lines: usize,
    seen: HashSet<String>,
    /// Findings held back, as of the last read.
    held: Vec<Found>,
}

/// One rendered finding.
struct Found {
    severity: Severity,
    /// Judged by what follows its record.
    later: bool,
    line: usize,
    text: String,
}

/// The files followed, with what has been shown of each.
pub struct Follow {
    files: Vec<File>,
    style: Style,
    /// Findings shown so far, by severity.
    pub counts: [usize; 3],
}

impl Follow {
    pub fn new(paths: &[PathBuf], style: Style) -> Follow {
        Follow {
            files: paths
                .iter()
                .map(|p| File {
                    path: p.clone(),
                    shown: p.to_string_lossy().into_owned(),
                    id: None,
                    len: 0,
                    missing: false,
                    read: false,
                    changed: Instant::now(),
                    lines: 0,
                    seen: HashSet::default(),
                    held: Vec::new(),
                })
                .collect(),
            style,
            counts: [0; 3],
        }
    }

    /// Look at every file once.
    pub fn poll(&mut self, linter: &Linter) -> News {
        let mut news = News::default();
        for f in &mut self.files {
            poll_file(f, linter, self.style, &mut news);
        }
        self.count(&news);
        news
    }

    /// Following ends: the findings held back are shown.
    pub fn flush(&mut self) -> News {
        let mut news = News::default();
        for f in &mut self.files {
            for h in std::mem::take(&mut f.held) {
                if f.seen.insert(h.text.clone()) {
                    news.findings.push((h.severity, h.text));
                }
            }
        }
        self.count(&news);
        news
    }

    fn count(&mut self, news: &News) {
        for (s, _) in &news.findings {
            self.counts[*s as usize] += 1;
        }
    }

    pub fn files(&self) -> usize {
        self.files.len()
    }
}

fn poll_file(f: &mut File, linter: &Linter, style: Style, news: &mut News) {
    let name = file_name(&f.shown);
    let meta = match std::fs::metadata(&f.path) {
        Ok(m) if m.is_file() => m,
        Ok(_) | Err(_) => {
            if !f.missing {
                f.missing = true;
                news.notes
                    .push(format!("{name}: no such file (yet); waiting for it"));
            }
            return;
        }
    };
    f.missing = false;
    let id = identity(&meta);
    let len = meta.len();
    if f.id.is_some() && id != f.id {
        news.notes
            .push(format!("{name}: replaced; reading it from the start"));
        f.seen.clear();
        f.held.clear();
        f.read = false;
    } else if len < f.len {
        news.notes
            .push(format!("{name}: truncated; reading it from the start"));
        f.seen.clear();
        f.held.clear();
        f.read = false;
    }
    f.id = id;
    if f.read && len == f.len {
        // Quiet: what was held back is settled.
        if !f.held.is_empty() && f.changed.elapsed() >= SETTLE_QUIET {
            for h in std::mem::take(&mut f.held) {
                if f.seen.insert(h.text.clone()) {
                    news.findings.push((h.severity, h.text));
                }
            }
        }
        return;
    }
    f.changed = Instant::now();
    let Ok(mut bytes) = std::fs::read(&f.path) else {
        return;
    };
    f.len = bytes.len() as u64;
    f.read = true;
    // Only complete lines: the last one may still be being written.
    match memchr::memrchr(b'\n', &bytes) {
        Some(k) => bytes.truncate(k + 1),
        None => return,
    }
    f.lines = memchr::memchr_iter(b'\n', &bytes).count();
    let r = linter.lint(&f.shown, bytes);
    f.held.clear();
    for found in render(&r, style) {
        if f.seen.contains(&found.text) {
            continue;
        }
        if found.later && found.line + SETTLE_LINES > f.lines {
            f.held.push(found);
            continue;
        }
        f.seen.insert(found.text.clone());
        news.findings.push((found.severity, found.text));
    }
}

/// True when `rule` judges a record by what follows it in the log.
fn judges_later(rule: &str) -> bool {
    crate::rules::looks_ahead(rule)
}

/// The identity of a file (device and inode), where the system has one.
pub(crate) fn identity(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        None
    }
}

fn render(r: &FileResult, style: Style) -> Vec<Found> {
    let index = LineIndex::new(&r.source);
    let items = match style {
        Style::Jsonl => crate::report::json::items(r),
        Style::Concise => Vec::new(),
    };
    r.diagnostics
        .iter()
        .enumerate()
        .map(|(k, d)| {
            let at = resolve(&r.source, &index, &d.primary.at);
            let text = match items.get(k) {
                Some(item) => to_json_line(item).trim_end().to_string(),
                None => format!(
                    "{}:{}:{}: {}[{}] {}",
                    file_name(&r.path),
                    at.line,
                    at.column,
                    d.severity,
                    d.rule,
                    one_line(&d.message)
                ),
            };
            Found {
                severity: d.severity,
                later: judges_later(d.rule),
                line: at.line,
                text,
            }
        })
        .collect()
}

/// True when `path` names a file that can be followed (or none yet).
pub fn followable(path: &Path) -> bool {
    !path.is_dir() && path.as_os_str() != "-"
}
