//! `--format gitlab`: a GitLab Code Quality report, one JSON array of
//! issues with the fields GitLab reads: `description`, `check_name`,
//! `fingerprint`, `severity` and `location` (`path`, `lines.begin`).
//!
//! GitLab tells issues apart by their fingerprint within one report: it is
//! the finding's own fingerprint ([`crate::lint::fingerprint`]) hashed with the
//! file's path, since the same finding may stand in two copies of one log.

use serde::Serialize;

use super::{resolve, to_json, LineIndex};
use crate::core::diagnostic::Severity;
use crate::lint::engine::FileResult;
use crate::lint::fingerprint::{file_key, hash_hex};

/// One finding.
#[derive(Serialize)]
pub struct Issue {
    #[serde(rename = "type")]
    kind: &'static str,
    description: String,
    check_name: &'static str,
    fingerprint: String,
    severity: &'static str,
    categories: [&'static str; 1],
    location: Location,
    /// The call, record time and callint's own fingerprint of the finding
    /// (fields GitLab does not read, kept for tools that do).
    callint: About,
}

#[derive(Serialize)]
struct About {
    #[serde(skip_serializing_if = "Option::is_none")]
    call: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fingerprint: Option<String>,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: usize,
    end: usize,
}

/// GitLab's name for a severity.
pub fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Info => "info",
        Severity::Warning => "minor",
        Severity::Error => "major",
    }
}

/// The findings of one file.
pub fn issues(f: &FileResult) -> Vec<Issue> {
    if f.diagnostics.is_empty() {
        return Vec::new();
    }
    let index = LineIndex::new(&f.source);
    let path = relative(&f.path);
    f.diagnostics
        .iter()
        .enumerate()
        .map(|(k, d)| {
            let at = resolve(&f.source, &index, &d.primary.at);
            let own = match &d.fingerprint {
                Some(p) => p.clone(),
                None => format!("{}:{}:{k}", d.rule, at.line),
            };
            Issue {
                kind: "issue",
                description: d.message.clone(),
                check_name: d.rule,
                fingerprint: hash_hex(&[path.as_bytes(), own.as_bytes()]),
                severity: severity(d.severity),
                categories: ["Style"],
                callint: About {
                    call: d.call.clone(),
                    timestamp: d.ts.and_then(crate::input::ts::rfc3339),
                    fingerprint: d.fingerprint.clone(),
                },
                location: Location {
                    path: path.clone(),
                    lines: Lines {
                        begin: at.line,
                        end: at.end_line.max(at.line),
                    },
                },
            }
        })
        .collect()
}

/// A path as GitLab places it: relative to the folder callint ran in (the
/// project's checkout) when it is below it, with `/` between folders.
fn relative(path: &str) -> String {
    let p = std::path::Path::new(path);
    let below = p
        .is_absolute()
        .then(|| std::env::current_dir().ok())
        .flatten()
        .and_then(|cwd| {
            p.strip_prefix(cwd)
                .ok()
                .map(|r| r.to_string_lossy().into_owned())
        });
    file_key(&below.unwrap_or_else(|| path.to_string()))
}

/// The report over the findings of every file, in order.
pub fn document(issues: &[Issue]) -> String {
    to_json(&issues)
}
