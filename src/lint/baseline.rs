//! Baselines: findings a team has accepted for now, so that a run reports
//! only new ones.
//!
//! A baseline file lists findings by their fingerprint
//! ([`crate::lint::fingerprint`]), with the call, rule, agent, file and message
//! beside it for the people who read it. A finding whose fingerprint is in
//! the baseline is left out of the report and counted as baselined; an
//! entry no finding matched any more is listed, and can be pruned.

use crate::core::hash::HashMap;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::lint::engine::FileResult;
use crate::lint::fingerprint::file_key;

/// The version of the file's layout.
pub const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Doc {
    version: u32,
    findings: Vec<Entry>,
}

/// One accepted finding.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Entry {
    pub file: String,
    pub rule: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    pub fingerprint: String,
    #[serde(default)]
    pub message: String,
}

/// A baseline read from its file.
#[derive(Debug, Default)]
pub struct Baseline {
    entries: Vec<Entry>,
    by_print: HashMap<String, Vec<usize>>,
    used: Vec<AtomicBool>,
}

impl Baseline {
    pub fn new(entries: Vec<Entry>) -> Baseline {
        let mut by_print: HashMap<String, Vec<usize>> = HashMap::default();
        for (i, e) in entries.iter().enumerate() {
            by_print.entry(e.fingerprint.clone()).or_default().push(i);
        }
        let used = entries.iter().map(|_| AtomicBool::new(false)).collect();
        Baseline {
            entries,
            by_print,
            used,
        }
    }

    /// Read a baseline file; a file that does not exist is an empty
    /// baseline when `missing_ok`.
    pub fn load(path: &Path, missing_ok: bool) -> Result<Baseline, String> {
        let shown = path.display();
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if missing_ok && e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Baseline::default())
            }
            Err(e) => return Err(format!("cannot read the baseline {shown}: {e}")),
        };
        let doc: Doc = serde_json::from_slice(&bytes)
            .map_err(|e| format!("{shown} is not a callint baseline: {e}"))?;
        if doc.version != VERSION {
            return Err(format!(
                "{shown} is a baseline of version {}; this callint reads version {VERSION}",
                doc.version
            ));
        }
        Ok(Baseline::new(doc.findings))
    }

    /// Drop the findings of `f` the baseline accepts (their fingerprints
    /// must be assigned), count them in `f.baselined`, and note the entries
    /// that matched.
    pub fn filter(&self, f: &mut FileResult) {
        let before = f.diagnostics.len();
        f.diagnostics.retain(|d| {
            let Some(hits) = d.fingerprint.as_ref().and_then(|p| self.by_print.get(p)) else {
                return true;
            };
            for &i in hits {
                self.used[i].store(true, Ordering::Relaxed);
            }
            false
        });
        f.baselined += before - f.diagnostics.len();
    }

    /// Entries no finding matched, in the file's order.
    pub fn unmatched(&self) -> Vec<&Entry> {
        self.entries
            .iter()
            .zip(&self.used)
            .filter(|(_, u)| !u.load(Ordering::Relaxed))
            .map(|(e, _)| e)
            .collect()
    }

    /// Entries some finding matched.
    pub fn matched(&self) -> Vec<Entry> {
        self.entries
            .iter()
            .zip(&self.used)
            .filter(|(_, u)| u.load(Ordering::Relaxed))
            .map(|(e, _)| e.clone())
            .collect()
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }
}

/// The entries of a file's findings (fingerprints assigned).
pub fn entries_of(f: &FileResult) -> Vec<Entry> {
    f.diagnostics
        .iter()
        .filter_map(|d| {
            Some(Entry {
                file: file_key(&f.path),
                rule: d.rule.to_string(),
                call: d.call.clone(),
                agent: d.agent.clone(),
                fingerprint: d.fingerprint.clone()?,
                message: d.message.clone(),
            })
        })
        .collect()
}

/// Entries gathered from the files of a run, whichever worker lints them.
#[derive(Default)]
pub struct Collector(Mutex<Vec<Entry>>);

impl Collector {
    pub fn add(&self, f: &FileResult) {
        let new = entries_of(f);
        if new.is_empty() {
            return;
        }
        if let Ok(mut v) = self.0.lock() {
            v.extend(new);
        }
    }

    pub fn into_entries(self) -> Vec<Entry> {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// Write `entries` as a baseline file, sorted by file, rule and
/// fingerprint (a diff of two baselines shows what changed).
pub fn write(path: &Path, mut entries: Vec<Entry>) -> Result<usize, String> {
    entries.sort_by(|a, b| {
        (&a.file, &a.rule, &a.fingerprint).cmp(&(&b.file, &b.rule, &b.fingerprint))
    });
    entries.dedup_by(|a, b| a.fingerprint == b.fingerprint && a.file == b.file);
    let n = entries.len();
    let doc = Doc {
        version: VERSION,
        findings: entries,
    };
    let text = crate::core::json::to_json(&doc);
    std::fs::write(path, text)
        .map_err(|e| format!("cannot write the baseline {}: {e}", path.display()))?;
    Ok(n)
}

/// What `--write-baseline` writes: the entries of this run, and those of
/// the old baseline for files this run did not read.
pub fn update(old: &[Entry], linted: &[String], new: Vec<Entry>) -> Vec<Entry> {
    let linted: BTreeMap<String, ()> = linted.iter().map(|p| (file_key(p), ())).collect();
    old.iter()
        .filter(|e| !linted.contains_key(&e.file))
        .cloned()
        .chain(new)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::config::Config;
    use crate::lint::engine::Linter;

    fn lint(name: &str, src: &str) -> FileResult {
        let linter = Linter::new(&Config::default(), None, &[]).unwrap();
        let mut f = linter.lint(name, src.as_bytes().to_vec());
        crate::lint::fingerprint::assign(&mut f);
        f
    }

    const TWO_BAD: &str = "{\"fn\":\"leave\"}\nnot json\n{\"fn\":\"x\"\n";

    #[test]
    fn a_baseline_accepts_what_it_lists_and_names_the_rest() {
        let f = lint("a.jsonl", TWO_BAD);
        assert_eq!(f.diagnostics.len(), 3, "{:?}", f.diagnostics);
        let mut entries = entries_of(&f);
        entries.push(Entry {
            fingerprint: "gone".into(),
            ..entries[0].clone()
        });
        entries.remove(1);
        let b = Baseline::new(entries);
        let mut g = lint("a.jsonl", TWO_BAD);
        b.filter(&mut g);
        assert_eq!((g.diagnostics.len(), g.baselined), (1, 2));
        assert_eq!(g.diagnostics[0].fingerprint, f.diagnostics[1].fingerprint);
        let gone: Vec<&str> = b
            .unmatched()
            .iter()
            .map(|e| e.fingerprint.as_str())
            .collect();
        assert_eq!(gone, ["gone"]);
    }

    #[test]
    fn an_update_keeps_the_files_not_linted() {
        let e = |file: &str, p: &str| Entry {
            file: file.into(),
            rule: "r".into(),
            call: None,
            agent: None,
            fingerprint: p.into(),
            message: String::new(),
        };
        let old = [e("a", "1"), e("b", "2")];
        let new = update(&old, &["./a".to_string()], vec![e("a", "3")]);
        assert_eq!(new, [e("b", "2"), e("a", "3")]);
    }
}
