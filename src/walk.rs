//! Which files a `check` of some paths reads.

use std::path::{Path, PathBuf};

/// Endings of the files a folder walk picks up.
pub const LOG_EXTENSIONS: &[&str] = &["jsonl", "ndjson", "log"];

/// A path that could not be read.
#[derive(Debug)]
pub struct WalkError {
    pub path: PathBuf,
    pub error: std::io::Error,
}

/// Files under `path`: the file itself when it is one (whatever its
/// ending), else every log below it, skipping hidden entries, in a stable
/// order.
pub fn files(path: &Path, out: &mut Vec<PathBuf>, errors: &mut Vec<WalkError>) {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(error) => {
            errors.push(WalkError {
                path: path.to_path_buf(),
                error,
            });
            return;
        }
    };
    if !meta.is_dir() {
        out.push(path.to_path_buf());
        return;
    }
    let mut stack = vec![path.to_path_buf()];
    let mut found = Vec::new();
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(error) => {
                errors.push(WalkError { path: dir, error });
                continue;
            }
        };
        for entry in entries.flatten() {
            let p = entry.path();
            let hidden = p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'));
            if hidden {
                continue;
            }
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(_) if is_log(&p) => found.push(p),
                _ => {}
            }
        }
    }
    found.sort();
    out.extend(found);
}

pub fn is_log(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| LOG_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}
