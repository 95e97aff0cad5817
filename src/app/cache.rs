//! A cache of the findings of unchanged files, so that a nightly audit of
//! an archive lints only the logs that are new or changed.
//!
//! An entry is keyed by a hash of the file's bytes, its name, the format it
//! is read as, the resolved settings and the binary that wrote it (its
//! version, size and time); it holds what linting the file gave: counts,
//! findings, and the calls the room pass groups files by. The file's bytes
//! are not kept: a file with findings is read again to show them.
//!
//! The entries are one file, read when the run starts and written when it
//! ends: the entries this run used or made, and those of files it did not
//! check that still exist (a file checked again with new bytes or settings
//! leaves its old entry behind).

use crate::core::hash::HashMap;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::core::diagnostic::{Diagnostic, Label, Severity};
use crate::lint::engine::{CallSeen, FileResult};
use crate::model::{Anchor, Path as JsonPath, Span};

/// The folder a cache lives in, below the folder callint runs in.
pub const DIR: &str = ".callint_cache";

/// An open cache.
pub struct Cache {
    file: PathBuf,
    binary: String,
    old: HashMap<String, Entry>,
    now: Mutex<HashMap<String, Entry>>,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    binary: String,
    entries: HashMap<String, Entry>,
}

impl Cache {
    /// The cache below `root`, made when missing (with a `.gitignore` that
    /// keeps it out of version control and a `CACHEDIR.TAG` that keeps it
    /// out of backups). `None` when it cannot be made.
    pub fn open(root: &Path) -> Option<Cache> {
        let binary = binary_id();
        let dir = root.join(format!("v{}", env!("CARGO_PKG_VERSION")));
        if !dir.is_dir() {
            std::fs::create_dir_all(&dir).ok()?;
            let _ = std::fs::write(root.join(".gitignore"), "# made by callint\n*\n");
            let _ = std::fs::write(
                root.join("CACHEDIR.TAG"),
                "Signature: 8a477f597d28d172789f06886806bc55\n# callint's cache of linted files\n",
            );
        }
        let file = dir.join("files.json");
        let old = std::fs::read(&file)
            .ok()
            .and_then(|b| serde_json::from_slice::<Stored>(&b).ok())
            .filter(|s| s.binary == binary)
            .map(|s| s.entries)
            .unwrap_or_default();
        Some(Cache {
            file,
            binary,
            old,
            now: Mutex::new(HashMap::default()),
        })
    }

    /// The key of `file`'s entry: its bytes (read through once), its
    /// name, `settings` (a description of everything that changes what
    /// linting finds) and this binary.
    pub fn key(&self, file: &Path, settings: &str) -> std::io::Result<String> {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        for part in [
            self.binary.as_bytes(),
            settings.as_bytes(),
            file.as_os_str().as_encoded_bytes(),
        ] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
        let mut f = std::fs::File::open(file)?;
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = match f.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            h.update(&buf[..n]);
        }
        Ok(format!("{:032x}", h.digest128()))
    }

    /// The result stored under `key`, as the file `path` (its bytes left
    /// out); `None` when there is none.
    pub fn get(&self, key: &str, path: &str) -> Option<FileResult> {
        let e = self.old.get(key)?;
        let r = e.result(path)?;
        if let Ok(mut now) = self.now.lock() {
            now.insert(key.to_string(), e.clone());
        }
        Some(r)
    }

    /// Store `r` under `key`.
    pub fn put(&self, key: &str, r: &FileResult) {
        if let Ok(mut now) = self.now.lock() {
            now.insert(key.to_string(), Entry::of(r));
        }
    }

    /// Write the entries of this run, and the old entries of files it did
    /// not check (`checked`, as named) that still exist. A cache that
    /// cannot be written is no error: the next run lints the files again.
    pub fn save(self, checked: &[String]) {
        let checked: crate::core::hash::HashSet<&str> =
            checked.iter().map(String::as_str).collect();
        let mut entries = self.now.into_inner().unwrap_or_else(|e| e.into_inner());
        for (k, e) in self.old {
            if !checked.contains(e.file.as_str())
                && !entries.contains_key(&k)
                && Path::new(&e.file).is_file()
            {
                entries.insert(k, e);
            }
        }
        let stored = Stored {
            binary: self.binary,
            entries,
        };
        let Ok(text) = serde_json::to_vec(&stored) else {
            return;
        };
        write_whole(&self.file, &text);
    }
}

/// Write `bytes` as the file `path`, whole or not at all: written aside
/// and renamed, so that a reader (another run) never sees half a file.
/// False when it could not be written; what was written aside is removed.
pub(crate) fn write_whole(path: &Path, bytes: &[u8]) -> bool {
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    if std::fs::write(&tmp, bytes).is_err() || std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return false;
    }
    true
}

/// This binary: its version, and the size and time of its file, so that
/// a rebuilt binary never reads what another one wrote.
pub(crate) fn binary_id() -> String {
    let exe = std::env::current_exe()
        .and_then(|p| p.metadata())
        .map(|m| {
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{}-{t}", m.len())
        })
        .unwrap_or_default();
    format!("{}-{exe}", env!("CARGO_PKG_VERSION"))
}

#[derive(Clone, Serialize, Deserialize)]
struct Entry {
    file: String,
    records: usize,
    /// The length of the bytes linted.
    #[serde(default)]
    len: usize,
    says: BTreeMap<String, usize>,
    diagnostics: Vec<Found>,
    calls: Vec<Call>,
}

#[derive(Clone, Serialize, Deserialize)]
struct Found {
    rule: String,
    severity: String,
    message: String,
    agent: Option<String>,
    primary: Place,
    labels: Vec<Place>,
    help: Option<String>,
    call: Option<String>,
    ts: Option<i64>,
}

#[derive(Clone, Serialize, Deserialize)]
struct Place {
    start: usize,
    end: usize,
    path: Vec<String>,
    text: Option<String>,
}

#[derive(Clone, Serialize, Deserialize)]
struct Call {
    id: String,
    recorder: Option<String>,
    agents: Vec<String>,
    #[serde(default)]
    start: Option<i64>,
}

impl Place {
    fn of(l: &Label) -> Place {
        Place {
            start: l.at.span.start,
            end: l.at.span.end,
            path: l.at.path.to_steps(),
            text: l.text.clone(),
        }
    }
    fn label(self) -> Label {
        Label {
            at: Anchor {
                span: Span::new(self.start, self.end),
                path: JsonPath::from_steps(&self.path),
            },
            text: self.text,
        }
    }
}

impl Entry {
    fn of(r: &FileResult) -> Entry {
        Entry {
            file: r.path.clone(),
            records: r.records,
            len: r.len,
            says: r.says.clone(),
            diagnostics: r
                .diagnostics
                .iter()
                .map(|d| Found {
                    rule: d.rule.to_string(),
                    severity: d.severity.name().to_string(),
                    message: d.message.clone(),
                    agent: d.agent.clone(),
                    primary: Place::of(&d.primary),
                    labels: d.labels.iter().map(Place::of).collect(),
                    help: d.help.clone(),
                    call: d.call.clone(),
                    ts: d.ts,
                })
                .collect(),
            calls: r
                .calls
                .iter()
                .map(|c| Call {
                    id: c.id.clone(),
                    recorder: c.recorder.clone(),
                    agents: c.agents.clone(),
                    start: c.start,
                })
                .collect(),
        }
    }

    fn result(&self, path: &str) -> Option<FileResult> {
        let mut diagnostics = Vec::with_capacity(self.diagnostics.len());
        for d in self.diagnostics.iter().cloned() {
            diagnostics.push(Diagnostic {
                rule: crate::rules::meta(&d.rule)?.name,
                severity: Severity::parse(&d.severity)?,
                message: d.message,
                agent: d.agent,
                primary: d.primary.label(),
                labels: d.labels.into_iter().map(Place::label).collect(),
                help: d.help,
                call: d.call,
                ts: d.ts,
                fingerprint: None,
                about: None,
            });
        }
        Some(FileResult {
            len: self.len,
            digests: Vec::new(),
            path: path.to_string(),
            source: Vec::new(),
            records: self.records,
            says: self.says.clone(),
            diagnostics,
            calls: self
                .calls
                .iter()
                .cloned()
                .map(|c| CallSeen {
                    id: c.id,
                    recorder: c.recorder,
                    agents: c.agents,
                    start: c.start,
                })
                .collect(),
            baselined: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::config::Config;
    use crate::lint::engine::Linter;

    #[test]
    fn an_entry_gives_back_the_result_it_stored() {
        let dir = crate::app::harness::scratch("cache-unit");
        let cache = Cache::open(&dir).unwrap();
        let log = dir.join("call.jsonl");
        let text = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/corpus/seed-incident/opencode.jsonl"
        ))
        .unwrap();
        std::fs::write(&log, &text).unwrap();
        let linter = Linter::new(&Config::default(), None, &[]).unwrap();
        let r = linter.lint("call.jsonl", text.clone());
        assert!(!r.diagnostics.is_empty() && !r.calls.is_empty());
        let key = cache.key(&log, "defaults").unwrap();
        assert!(cache.get(&key, "call.jsonl").is_none());
        cache.put(&key, &r);
        cache.save(&[]);
        let cache = Cache::open(&dir).unwrap();
        let back = cache.get(&key, "call.jsonl").unwrap();
        assert_eq!(back.diagnostics, r.diagnostics);
        assert_eq!(back.calls, r.calls);
        assert_eq!((back.records, &back.says), (r.records, &r.says));
        // Other settings, or other bytes, are another entry.
        assert_ne!(cache.key(&log, "other").unwrap(), key);
        std::fs::write(&log, [&text[..], b"\n"].concat()).unwrap();
        assert_ne!(cache.key(&log, "defaults").unwrap(), key);
        assert!(dir.join(".gitignore").is_file());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
