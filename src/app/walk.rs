//! Which files a `check` of some paths reads.
//!
//! A folder is walked with the `ignore` crate, the way ripgrep walks one:
//! entries named in `.gitignore` (also outside a git repository), `.ignore`
//! and the repository's exclude files are skipped, and so are hidden files
//! and folders, except the places where agent clients keep their
//! instructions ([`AGENT_PLACES`]). [`Walk::no_ignore`] turns all of that off. A path given
//! explicitly is always read, whatever its name.

use std::path::{Path, PathBuf};

/// Endings of the files a folder walk picks up: logs and traces,
/// transcripts and captions, prompts and skills, helper code; each also
/// compressed (`.gz`, `.zst`). A `.json` file is picked up only when its
/// content is one of callint's inputs (a board, a log or a trace), so a
/// `package.json` is left alone; named on the command line, any file is
/// read.
pub const LOG_EXTENSIONS: &[&str] = &[
    "jsonl", "ndjson", "log", "txt", "vtt", "srt", "md", "markdown", "mdx", "mdc", "py", "js",
    "mjs", "ts", "sh",
];

/// Hidden folders and files that agent clients read their instructions
/// from (`.cursor/rules/*.mdc`, `.claude/agents/*.md`,
/// `.github/copilot-instructions.md`, `.cursorrules`, ...): a walk reads
/// them although it skips other hidden entries.
pub const AGENT_PLACES: &[&str] = &[
    ".claude",
    ".clinerules",
    ".codex",
    ".continue",
    ".cursor",
    ".cursorrules",
    ".gemini",
    ".github",
    ".opencode",
    ".windsurf",
    ".windsurfrules",
];

/// A path that could not be read, or an ignore file that could not be
/// understood.
#[derive(Debug)]
pub struct WalkError {
    pub path: PathBuf,
    pub error: std::io::Error,
    /// False for a problem that does not stop the walk from being complete:
    /// a bad pattern in a `.gitignore` (the other patterns still apply).
    pub fatal: bool,
}

/// How to walk folders.
#[derive(Clone, Copy, Debug, Default)]
pub struct Walk {
    /// Read hidden and ignored files too.
    pub no_ignore: bool,
    /// Threads to walk with; 0: as many as there are cores.
    pub threads: usize,
}

/// Files under `path` with the default walk (ignore files respected).
pub fn files(path: &Path, out: &mut Vec<PathBuf>, errors: &mut Vec<WalkError>) {
    Walk::default().files(path, out, errors)
}

impl Walk {
    /// Files under `path`: the file itself when it is one (whatever its
    /// ending), else every log below it, in a stable (sorted) order.
    pub fn files(&self, path: &Path, out: &mut Vec<PathBuf>, errors: &mut Vec<WalkError>) {
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(error) => {
                errors.push(WalkError {
                    path: path.to_path_buf(),
                    error,
                    fatal: true,
                });
                return;
            }
        };
        if !meta.is_dir() {
            out.push(path.to_path_buf());
            return;
        }
        let mut builder = ignore::WalkBuilder::new(path);
        builder
            .standard_filters(!self.no_ignore)
            // A plain `.gitignore` counts outside a git repository too.
            .require_git(false)
            .follow_links(false)
            .threads(self.threads);
        if !self.no_ignore {
            builder.hidden(false).filter_entry(|e| {
                let name = e.file_name().to_str().unwrap_or("");
                e.depth() == 0 || !name.starts_with('.') || AGENT_PLACES.contains(&name)
            });
        }
        // Folders are read side by side, each thread keeping what it
        // found; the files and problems are then put in path order, the
        // order whatever the threads did.
        let found = std::sync::Mutex::new((Vec::new(), Vec::new()));
        builder.build_parallel().run(|| {
            let mut mine = Kept {
                found: Vec::new(),
                errors: Vec::new(),
                into: &found,
            };
            Box::new(move |entry| {
                match entry {
                    Ok(e) => {
                        let p = e.path();
                        let file = match e.file_type() {
                            Some(t) if t.is_file() => true,
                            // A link to a file is read; links to folders
                            // are not followed.
                            Some(t) if t.is_symlink() => p.is_file(),
                            _ => false,
                        };
                        if file && e.depth() > 0 && is_log(p) {
                            mine.found.push(e.into_path());
                        }
                    }
                    Err(err) => mine.errors.push(walk_error(path, err)),
                }
                ignore::WalkState::Continue
            })
        });
        let (mut found, mut errs) = found.into_inner().unwrap_or_else(|e| e.into_inner());
        found.sort();
        errs.sort_by(|a: &WalkError, b: &WalkError| a.path.cmp(&b.path));
        out.extend(found);
        errors.extend(errs);
    }
}

/// What one thread of a walk found, handed over when it is done.
struct Kept<'a> {
    found: Vec<PathBuf>,
    errors: Vec<WalkError>,
    into: &'a std::sync::Mutex<(Vec<PathBuf>, Vec<WalkError>)>,
}

impl Drop for Kept<'_> {
    fn drop(&mut self) {
        let mut all = self.into.lock().unwrap_or_else(|e| e.into_inner());
        all.0.append(&mut self.found);
        all.1.append(&mut self.errors);
    }
}

/// The path and the I/O error inside an `ignore` error.
fn walk_error(root: &Path, err: ignore::Error) -> WalkError {
    fn path_of(e: &ignore::Error) -> Option<&Path> {
        match e {
            ignore::Error::WithPath { path, .. } => Some(path),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                path_of(err)
            }
            ignore::Error::Partial(errs) => errs.iter().find_map(path_of),
            _ => None,
        }
    }
    let path = path_of(&err).unwrap_or(root).to_path_buf();
    let text = err.to_string();
    match err.into_io_error() {
        Some(error) => WalkError {
            path,
            error,
            fatal: true,
        },
        None => WalkError {
            path,
            error: std::io::Error::other(text),
            fatal: false,
        },
    }
}

/// Whether a walk reads the file at `p`: by its ending (without a
/// compression ending), and for `.json` by what its first bytes hold.
pub fn is_log(p: &Path) -> bool {
    let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let inner = crate::input::packed::inner_name(name);
    let ext = Path::new(inner)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if LOG_EXTENSIONS.contains(&ext.as_str())
        || is_capture_half(inner)
        || AGENT_PLACES.contains(&inner)
    {
        return true;
    }
    ext == "json" && read_head(p).is_some_and(|h| crate::input::is_input_json(&h))
}

/// A half of a `tee` capture saved without an ending callint walks:
/// `stdin`, `stdout`, `x.stdin`, `x.stdout`.
fn is_capture_half(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["stdin", "stdout"]
        .iter()
        .any(|h| name == *h || name.ends_with(&format!(".{h}")))
}

/// The first [`crate::input::HEAD`] bytes of a file, unpacked when it is
/// compressed.
fn read_head(p: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let n = crate::input::HEAD;
    let mut head = Vec::with_capacity(n);
    std::fs::File::open(p)
        .ok()?
        .take(n as u64)
        .read_to_end(&mut head)
        .ok()?;
    if crate::input::packed::Packing::of(&head).is_some() {
        let mut all = Vec::new();
        std::fs::File::open(p).ok()?.read_to_end(&mut all).ok()?;
        return Some(crate::input::packed::unpack_head(&all, n));
    }
    Some(head)
}
