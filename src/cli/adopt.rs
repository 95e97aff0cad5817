//! What `check` does to a file's findings between linting and rendering
//! when a team adopts callint on a backlog: fingerprints, the baseline,
//! and the findings gathered for `--write-baseline`.

use std::path::{Path, PathBuf};

use crate::core::escape::{file_name, one_line};
use crate::lint::baseline::{self, Baseline, Collector};
use crate::lint::engine::FileResult;

/// Why the run fails by `--fail-on` and `--max-warnings`, if it does.
pub fn fails(
    summary: &crate::report::Summary,
    fail_on: crate::core::diagnostic::Severity,
    max_warnings: Option<usize>,
) -> Option<String> {
    use crate::core::diagnostic::Severity;
    let count = |s: Severity| summary.by_severity.get(s.name()).copied().unwrap_or(0);
    let at_or_above: usize = [Severity::Info, Severity::Warning, Severity::Error]
        .into_iter()
        .filter(|&s| s >= fail_on)
        .map(count)
        .sum();
    let warnings = count(Severity::Warning);
    match max_warnings {
        Some(max) if warnings > max => Some(format!(
            "{warnings} warnings, more than --max-warnings {max} allows"
        )),
        _ if at_or_above > 0 && fail_on != Severity::Error => Some(format!(
            "{at_or_above} finding{} at {fail_on} level or above (--fail-on {fail_on})",
            if at_or_above == 1 { "" } else { "s" }
        )),
        // Errors fail a run as they always have, without a note.
        _ if at_or_above > 0 => Some(String::new()),
        _ => None,
    }
}

/// The paths a `--files-from` list names, one a line (blank lines and
/// line ends left out); `-` reads the list from standard input.
pub fn files_from(list: &Path) -> Result<Vec<PathBuf>, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let read = if list.as_os_str() == "-" {
        std::io::stdin().lock().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(list).and_then(|mut f| f.read_to_end(&mut bytes).map(|_| ()))
    };
    read.map_err(|e| {
        format!(
            "cannot read the list {}: {e}",
            file_name(&list.to_string_lossy())
        )
    })?;
    Ok(bytes
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .map(path_of)
        .collect())
}

#[cfg(unix)]
fn path_of(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_of(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

/// The baseline options of one run.
#[derive(Default)]
pub struct Post {
    baseline: Option<(PathBuf, Baseline)>,
    prune: bool,
    write: Option<(PathBuf, Collector)>,
}

impl Post {
    pub fn new(baseline: Option<&Path>, write: Option<&Path>, prune: bool) -> Result<Post, String> {
        let baseline = match baseline {
            Some(p) => Some((p.to_path_buf(), Baseline::load(p, false)?)),
            None => None,
        };
        Ok(Post {
            baseline,
            prune,
            write: write.map(|p| (p.to_path_buf(), Collector::default())),
        })
    }

    /// Whether a file's findings need their fingerprints even when no
    /// output shows them.
    pub fn active(&self) -> bool {
        self.baseline.is_some() || self.write.is_some()
    }

    /// A file's findings are final: fingerprint them, note them for the
    /// baseline to write (which accepts them all), or leave out those the
    /// baseline accepts.
    pub fn apply(&self, r: &mut FileResult) {
        if r.diagnostics.is_empty() {
            return;
        }
        crate::lint::fingerprint::assign(r);
        if let Some((_, c)) = &self.write {
            c.add(r);
            r.baselined += r.diagnostics.len();
            r.diagnostics.clear();
        } else if let Some((_, b)) = &self.baseline {
            b.filter(r);
        }
    }

    /// After the run: write the baseline asked for, list the entries that
    /// matched nothing, and prune them when asked. `linted` are the names
    /// of the files read; `complete` is false when some could not be.
    /// Returns false when a file could not be written.
    pub fn finish(self, linted: &[String], complete: bool, quiet: bool) -> Result<(), String> {
        let say = |msg: std::fmt::Arguments<'_>| {
            use std::io::Write;
            let _ = writeln!(std::io::stderr().lock(), "callint: {msg}");
        };
        if let Some((path, collected)) = self.write {
            let old = match &self.baseline {
                Some((p, b)) if p == &path => b.entries().to_vec(),
                _ => Baseline::load(&path, true)?.entries().to_vec(),
            };
            let all = baseline::update(&old, linted, collected.into_entries());
            let n = baseline::write(&path, all)?;
            if !quiet {
                say(format_args!(
                    "wrote {n} finding{} to the baseline {}",
                    if n == 1 { "" } else { "s" },
                    file_name(&path.to_string_lossy())
                ));
            }
            return Ok(());
        }
        let Some((path, b)) = self.baseline else {
            return Ok(());
        };
        let gone = b.unmatched();
        if gone.is_empty() {
            return Ok(());
        }
        let shown = file_name(&path.to_string_lossy());
        if self.prune {
            if !complete {
                return Err(format!(
                    "not pruning {shown}: not every file could be read, and its entries would be lost"
                ));
            }
            let n = gone.len();
            baseline::write(&path, b.matched())?;
            if !quiet {
                say(format_args!(
                    "pruned {n} entr{} that matched nothing from {shown}",
                    if n == 1 { "y" } else { "ies" }
                ));
            }
            return Ok(());
        }
        if !quiet {
            say(format_args!(
                "{} entr{} of the baseline {shown} matched nothing (fixed, or its file was not checked); --prune-baseline drops {}:",
                gone.len(),
                if gone.len() == 1 { "y" } else { "ies" },
                if gone.len() == 1 { "it" } else { "them" },
            ));
            for e in gone {
                let mut line = format!("  {}: {}", file_name(&e.file), e.rule);
                if let Some(a) = &e.agent {
                    line.push_str(&format!(" ({})", one_line(a)));
                }
                if let Some(c) = &e.call {
                    line.push_str(&format!(" in call {}", one_line(c)));
                }
                line.push_str(&format!(": {}", one_line(&e.message)));
                say(format_args!("{line}"));
            }
        }
        Ok(())
    }
}
