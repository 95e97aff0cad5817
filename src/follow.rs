//! `callint check --follow`: lint logs that are still being written and
//! print each new finding as it appears.
//!
//! Every file is looked at a few times a second. When it has grown, it is
//! linted again up to its last complete line (a line the recorder is still
//! writing is left for the next look), and the findings not printed before
//! are printed, in the chosen format: `concise`, `pretty` or `github` lines,
//! or one JSON object a line with `--format json`. A file that shrinks
//! (truncated) or is replaced by another (rotated: a new file under the same
//! name) is read again from its start, and its findings count as new. On
//! Ctrl-C (or SIGTERM) the summary of everything found is printed and the
//! exit status is the one `check` gives for those findings.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use callint::engine::{FileResult, Linter};
use callint::report::{self, Format, Summary};

/// How often the files are looked at.
const POLL: Duration = Duration::from_millis(250);

/// What is known of one followed file.
#[derive(Default)]
struct Seen {
    /// The length and identity of the file when it was last linted.
    len: u64,
    id: Option<(u64, u64)>,
    /// The findings already printed, by what they say and where.
    printed: HashSet<(&'static str, usize, usize, String)>,
    /// The summary of the last lint.
    last: Option<FileResult>,
}

pub struct Options<'a> {
    pub format: Format,
    pub style: report::pretty::Style,
    pub input_format: Option<callint::input::Format>,
    pub quiet: bool,
    pub exit_zero: bool,
    pub linters: &'a [(Option<PathBuf>, Linter)],
}

/// Follow `files` (each with the index of its linter) until interrupted.
pub fn run(files: &[(PathBuf, usize)], opts: &Options<'_>) -> u8 {
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        if let Err(e) = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst)) {
            crate::warn(format_args!(
                "warning: Ctrl-C will not print a summary: {e}"
            ));
        }
    }
    let mut seen: HashMap<&Path, Seen> = HashMap::new();
    loop {
        let mut out = String::new();
        for (file, slot) in files {
            let state = seen.entry(file.as_path()).or_default();
            look(file, &opts.linters[*slot].1, state, opts, &mut out);
        }
        if !out.is_empty() && !write(&out) {
            break;
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
        std::thread::sleep(POLL);
    }
    let mut summary = Summary::default();
    for s in seen.values() {
        if let Some(r) = &s.last {
            summary.add(r);
        }
    }
    if !opts.quiet && matches!(opts.format, Format::Pretty | Format::Concise) {
        let _ = write(&format!("{}\n", crate::closing(&summary, false)));
    }
    if summary.errors() > 0 && !opts.exit_zero {
        1
    } else {
        0
    }
}

/// Write to standard output; false once the reader is gone.
fn write(s: &str) -> bool {
    let mut lock = std::io::stdout().lock();
    lock.write_all(s.as_bytes())
        .and_then(|()| lock.flush())
        .is_ok()
}

/// Look at one file: lint it again when it changed, and render the
/// findings not printed before into `out`.
fn look(file: &Path, linter: &Linter, state: &mut Seen, opts: &Options<'_>, out: &mut String) {
    let Ok(meta) = std::fs::metadata(file) else {
        return; // not there (yet, or between rotations)
    };
    let id = identity(&meta);
    let len = meta.len();
    let replaced = state.id.is_some() && id != state.id;
    if replaced || len < state.len {
        // Truncated or rotated: a new log under the same name.
        state.printed.clear();
        state.len = 0;
        state.last = None;
    }
    state.id = id;
    if len == state.len && state.last.is_some() {
        return;
    }
    let Ok(mut bytes) = std::fs::read(file) else {
        return;
    };
    // Only complete lines: the recorder may be writing the last one.
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
    if whole == 0 {
        return;
    }
    bytes.truncate(whole);
    state.len = whole as u64;
    let name = file.to_string_lossy();
    let mut r = match opts.input_format {
        Some(f) => linter.lint_as(&name, bytes, f),
        None => linter.lint(&name, bytes),
    };
    let fresh: Vec<_> = r
        .diagnostics
        .iter()
        .filter(|d| {
            let at = (
                d.rule,
                d.primary.at.span.start,
                d.primary.at.span.end,
                d.message.clone(),
            );
            state.printed.insert(at)
        })
        .cloned()
        .collect();
    if !fresh.is_empty() {
        let all = std::mem::replace(&mut r.diagnostics, fresh);
        render(&r, opts, out);
        r.diagnostics = all;
    }
    r.source = Vec::new();
    state.last = Some(r);
}

/// The findings of `r` in the chosen format; JSON as one object a line.
fn render(r: &FileResult, opts: &Options<'_>, out: &mut String) {
    match opts.format {
        Format::Pretty => report::pretty::render(r, opts.style, out),
        Format::Github => report::github::render(r, out),
        Format::Json | Format::Sarif => {
            for item in report::json::items(r) {
                if let Ok(line) = serde_json::to_string(&item) {
                    out.push_str(&line);
                    out.push('\n');
                }
            }
        }
        Format::Concise => report::concise::render(r, out),
    }
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}
