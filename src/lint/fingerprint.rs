//! Stable keys for findings: what a finding is about, never where it is.
//!
//! A fingerprint hashes the call id (or, for an input that names no call,
//! the file's name), the rule, the agent and the offending content with its
//! white space collapsed, and the number of earlier findings of the file
//! with that same key. Line numbers and byte offsets are left out, so a log
//! exported again with its lines moved keeps the fingerprints of its
//! findings; two identical findings of one call still get distinct ones.

use crate::core::hash::HashMap;

use crate::core::diagnostic::Diagnostic;
use crate::core::lines::{resolve, LineIndex};
use crate::lint::engine::FileResult;

/// Give every finding of `f` its fingerprint. Needs the file's bytes (the
/// findings of a file whose source is not at hand keep the content out).
pub fn assign(f: &mut FileResult) {
    if f.diagnostics.is_empty() {
        return;
    }
    let index = LineIndex::new(&f.source);
    let mut seen: HashMap<u128, usize> = HashMap::default();
    let file = file_key(&f.path);
    for d in &mut f.diagnostics {
        let content = content(&f.source, &index, d);
        let key = key(d, &file, &content);
        let n = seen.entry(key).or_default();
        d.fingerprint = Some(of(key, *n));
        *n += 1;
    }
}

/// A file's name as part of a key: `/` between folders, no leading `./`.
pub fn file_key(path: &str) -> String {
    let p = path.replace('\\', "/");
    let mut p = p.as_str();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.to_string()
}

/// The lines a finding points into, white space collapsed: the record or
/// passage at fault, whatever part of it the finding underlines.
fn content(src: &[u8], index: &LineIndex, d: &Diagnostic) -> String {
    let at = resolve(src, index, &d.primary.at);
    let start = index.line_span(src, at.line).start;
    let end = index.line_span(src, at.end_line.max(at.line)).end;
    let bytes = src.get(start..end.max(start)).unwrap_or_default();
    String::from_utf8_lossy(bytes)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn key(d: &Diagnostic, file: &str, content: &str) -> u128 {
    let mut h = Fnv::new();
    match &d.call {
        Some(c) => {
            h.part(b"call");
            h.part(c.as_bytes());
        }
        None => {
            h.part(b"file");
            h.part(file.as_bytes());
        }
    }
    h.part(d.rule.as_bytes());
    h.part(d.agent.as_deref().unwrap_or("").as_bytes());
    h.part(content.as_bytes());
    h.0
}

fn of(key: u128, occurrence: usize) -> String {
    let mut h = Fnv(key);
    h.part(&(occurrence as u64).to_le_bytes());
    format!("{:032x}", h.0)
}

/// A hash of `parts` as 32 hex digits.
pub fn hash_hex(parts: &[&[u8]]) -> String {
    let mut h = Fnv::new();
    for p in parts {
        h.part(p);
    }
    format!("{:032x}", h.0)
}

/// FNV-1a, 128 bits: small, fixed by its published constants, the same on
/// every platform and in every version.
struct Fnv(u128);

impl Fnv {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

    fn new() -> Fnv {
        Fnv(Self::OFFSET)
    }

    /// One field, its length first so that fields cannot run together.
    fn part(&mut self, bytes: &[u8]) {
        for b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            self.0 ^= u128::from(*b);
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::config::Config;
    use crate::lint::engine::Linter;

    fn prints(name: &str, log: &str) -> Vec<(&'static str, String)> {
        let linter = Linter::new(&Config::default(), None, &[]).unwrap();
        let mut f = linter.lint(name, log.as_bytes().to_vec());
        assign(&mut f);
        f.diagnostics
            .iter()
            .map(|d| (d.rule, d.fingerprint.clone().unwrap()))
            .collect()
    }

    #[test]
    fn the_published_fnv_vectors() {
        let mut h = Fnv::new();
        for b in b"a" {
            h.0 ^= u128::from(*b);
            h.0 = h.0.wrapping_mul(Fnv::PRIME);
        }
        assert_eq!(h.0, 0xd228cb696f1a8caf78912b704e4a8964);
    }

    #[test]
    fn moved_lines_keep_their_fingerprints_and_twins_differ() {
        let say = r#"{"ts":"2026-10-10T09:00:05.000Z","call":"c1","agent":"A","fn":"say","args":{"text":"Hallo zusammen, ich bin hier."},"result":{"say_id":"s1"}}"#;
        let join = r#"{"ts":"2026-10-10T09:00:01.000Z","call":"c1","agent":"A","fn":"join","args":{"call_id":"c1","label":"A","context":{"lang":"en"}},"result":{"status":"joined"}}"#;
        // The log goes on past the minute after the join (its steps are due).
        let later = r#"{"ts":"2026-10-10T09:02:00.000Z","call":"c1","agent":"A","fn":"next","result":{"type":"timeout"}}"#;
        let a = prints("a.jsonl", &format!("{join}\n{say}\n{say}\n{later}\n"));
        let b = prints(
            "elsewhere/b.jsonl",
            &format!("\n\n{join}\n\n{say}\n{say}\n{later}\n"),
        );
        assert!(!a.is_empty());
        assert_eq!(a, b);
        let mut all: Vec<&String> = a.iter().map(|(_, f)| f).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), a.len(), "{a:?}");
    }

    #[test]
    fn without_a_call_the_file_name_is_the_key() {
        let broken = "not json\n";
        assert_eq!(prints("./x.jsonl", broken), prints("x.jsonl", broken));
        assert_ne!(prints("x.jsonl", broken), prints("y.jsonl", broken));
    }
}
