//! `--format sarif`: SARIF 2.1.0, the format code-scanning services read.
//!
//! One run; `tool.driver` lists every rule of the catalogue with its summary,
//! the "What it checks" part of its page, the whole page as help, and its
//! default level. Each finding is a result with its rule, level, message and
//! location (a URI relative to the working folder, lines and columns from 1,
//! columns in Unicode code points); secondary labels are related locations.
//!
//! Like [`json`](super::json), a batch renders in two steps: [`results`] per
//! file, then [`document`].

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::{resolve, to_json, LineIndex, Located};
use crate::core::diagnostic::Severity;
use crate::core::meta::RuleMeta;
use crate::lint::engine::FileResult;
use crate::rules;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool,
    column_kind: &'static str,
    results: &'a [SarifResult],
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
struct Driver {
    name: &'static str,
    version: &'static str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: &'static str,
    name: &'static str,
    short_description: Text,
    full_description: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<String>,
    help: Help,
    default_configuration: Configuration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Help {
    text: &'static str,
    markdown: &'static str,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties {
    /// The rule of the rulebook it enforces.
    rulebook: &'static str,
}

/// One finding.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult {
    rule_id: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: &'static str,
    message: Text,
    locations: [Location; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    partial_fingerprints: BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "ResultProperties::is_empty")]
    properties: ResultProperties,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
struct ArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

#[derive(Serialize)]
struct ResultProperties {
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    call: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<String>,
}

impl ResultProperties {
    fn is_empty(&self) -> bool {
        self.agent.is_none()
            && self.help.is_none()
            && self.call.is_none()
            && self.timestamp.is_none()
    }
}

/// The key of callint's fingerprints in `partialFingerprints` (versioned,
/// as SARIF asks: a new way of computing them gets a new key).
pub const FINGERPRINT_KEY: &str = "callint/v1";

/// SARIF's name for a severity.
pub fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The findings of one file.
pub fn results(f: &FileResult) -> Vec<SarifResult> {
    results_at(f, Path::new(&f.path))
}

/// The findings of one file read from `path`: the URI is made of the
/// path's own bytes, so that a name that is not UTF-8 still leads to the
/// file (the result's `path` is only its readable form).
pub fn results_at(f: &FileResult, path: &Path) -> Vec<SarifResult> {
    if f.diagnostics.is_empty() {
        return Vec::new();
    }
    let catalogue = rules::catalogue();
    let index = LineIndex::new(&f.source);
    let uri = artifact_uri_of(path);
    let location = |at: Located, id: Option<usize>, text: Option<&String>| Location {
        id,
        physical_location: PhysicalLocation {
            artifact_location: ArtifactLocation { uri: uri.clone() },
            region: Region {
                start_line: at.line,
                start_column: at.column,
                end_line: at.end_line,
                end_column: at.end_column,
            },
        },
        message: text.map(|t| Text { text: t.clone() }),
    };
    f.diagnostics
        .iter()
        .map(|d| {
            let at = resolve(&f.source, &index, &d.primary.at);
            SarifResult {
                rule_id: d.rule,
                rule_index: catalogue.iter().position(|m| m.name == d.rule),
                level: level(d.severity),
                message: Text {
                    text: d.message.clone(),
                },
                locations: [location(at, None, d.primary.text.as_ref())],
                related_locations: d
                    .labels
                    .iter()
                    .enumerate()
                    .map(|(k, l)| {
                        let at = resolve(&f.source, &index, &l.at);
                        location(at, Some(k + 1), l.text.as_ref())
                    })
                    .collect(),
                partial_fingerprints: d
                    .fingerprint
                    .iter()
                    .map(|f| (FINGERPRINT_KEY, f.clone()))
                    .collect(),
                properties: ResultProperties {
                    agent: d.agent.clone(),
                    help: d.help.clone(),
                    call: d.call.clone(),
                    timestamp: d.ts.and_then(crate::input::ts::rfc3339),
                },
            }
        })
        .collect()
}

/// The SARIF log over the findings of every file, in order.
pub fn document(results: &[SarifResult]) -> String {
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "callint",
                    version: env!("CARGO_PKG_VERSION"),
                    rules: rules::catalogue().into_iter().map(rule).collect(),
                },
            },
            column_kind: "unicodeCodePoints",
            results,
        }],
    };
    to_json(&log)
}

pub fn render(files: &[FileResult]) -> String {
    let all: Vec<SarifResult> = files.iter().flat_map(results).collect();
    document(&all)
}

fn rule(m: &'static RuleMeta) -> Rule {
    let page = rules::page(m.name).unwrap_or(m.summary);
    Rule {
        id: m.name,
        name: m.name,
        short_description: Text {
            text: m.summary.to_string(),
        },
        full_description: Text {
            text: section(page, "What it checks").unwrap_or_else(|| m.summary.to_string()),
        },
        help_uri: help_uri(option_env!("CARGO_PKG_REPOSITORY").unwrap_or(""), m.name),
        help: Help {
            text: page,
            markdown: page,
        },
        default_configuration: Configuration {
            level: level(m.default_severity),
        },
        properties: RuleProperties {
            rulebook: m.rulebook,
        },
    }
}

/// The address of a rule's page in the repository `repo` (the package's
/// `repository`), if there is one.
pub fn help_uri(repo: &str, rule: &str) -> Option<String> {
    let repo = repo.trim_end_matches('/');
    (repo.starts_with("https://") || repo.starts_with("http://"))
        .then(|| format!("{repo}/blob/HEAD/rules/{rule}.md"))
}

/// The text of a page's `## {title}` section, blank lines kept.
fn section(page: &str, title: &str) -> Option<String> {
    let head = format!("## {title}");
    let mut lines = page.lines().skip_while(|l| l.trim_end() != head).skip(1);
    let body: Vec<&str> = lines
        .by_ref()
        .take_while(|l| !l.starts_with("## "))
        .collect();
    let text = body.join("\n").trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// A path as a URI reference: relative paths as they are (with `/`), a path
/// below the working folder relative to it, any other as a `file://` URI;
/// every byte but letters, digits, `-._~` and `/` percent-encoded.
pub fn artifact_uri(path: &str) -> String {
    artifact_uri_of(Path::new(path))
}

/// [`artifact_uri`] of a path as the system gives it: on Unix its bytes
/// are encoded as they are, whether or not they are UTF-8.
pub fn artifact_uri_of(p: &Path) -> String {
    let rel = if p.is_absolute() {
        std::env::current_dir()
            .ok()
            .and_then(|cwd| p.strip_prefix(cwd).ok().map(Path::to_path_buf))
    } else {
        Some(p.to_path_buf())
    };
    let (prefix, p) = match &rel {
        Some(r) => ("", r.as_path()),
        None => ("file://", p),
    };
    let mut parts: Vec<String> = Vec::new();
    for c in p.components() {
        use std::path::Component;
        match c {
            Component::CurDir => {}
            Component::RootDir => parts.push(String::new()),
            Component::ParentDir => parts.push("..".into()),
            Component::Normal(s) => parts.push(encode(s)),
            Component::Prefix(s) => parts.push(encode(s.as_os_str())),
        }
    }
    let joined = parts.join("/");
    // `/` alone joins to an empty string.
    let joined = if parts == [String::new()] {
        "/".to_string()
    } else {
        joined
    };
    format!("{prefix}{joined}")
}

/// The bytes of a path's part, percent-encoded but for the unreserved.
fn encode(s: &std::ffi::OsStr) -> String {
    #[cfg(unix)]
    let bytes: std::borrow::Cow<'_, [u8]> = {
        use std::os::unix::ffi::OsStrExt;
        std::borrow::Cow::Borrowed(s.as_bytes())
    };
    #[cfg(not(unix))]
    let bytes: std::borrow::Cow<'_, [u8]> = match s.to_string_lossy() {
        std::borrow::Cow::Borrowed(t) => std::borrow::Cow::Borrowed(t.as_bytes()),
        std::borrow::Cow::Owned(t) => std::borrow::Cow::Owned(t.into_bytes()),
    };
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes.iter() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn a_name_that_is_not_utf8_keeps_its_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let p = Path::new(std::ffi::OsStr::from_bytes(b"logs/caf\xe9.jsonl"));
        assert_eq!(artifact_uri_of(p), "logs/caf%E9.jsonl");
    }

    #[test]
    fn uris_are_relative_and_encoded() {
        assert_eq!(artifact_uri("corpus/a b.jsonl"), "corpus/a%20b.jsonl");
        assert_eq!(artifact_uri("./x:y#z.jsonl"), "x%3Ay%23z.jsonl");
        assert_eq!(artifact_uri("../logs/ü.log"), "../logs/%C3%BC.log");
        assert_eq!(
            artifact_uri("/nowhere-like-this/call.jsonl"),
            "file:///nowhere-like-this/call.jsonl"
        );
        let cwd = std::env::current_dir().unwrap();
        let inside = cwd.join("logs/call.jsonl");
        assert_eq!(artifact_uri(&inside.to_string_lossy()), "logs/call.jsonl");
    }

    #[test]
    fn rule_descriptions_come_from_the_pages() {
        let r = rule(rules::meta("board-bundle").unwrap());
        assert!(r.full_description.text.starts_with("Every item of a board"));
        assert!(!r.full_description.text.contains("## Why"));
        assert!(r.help.markdown.starts_with("# board-bundle"));
        assert_eq!(r.default_configuration.level, "warning");
        assert_eq!(level(Severity::Info), "note");
        assert_eq!(
            help_uri("https://example.org/x/callint/", "long-say").as_deref(),
            Some("https://example.org/x/callint/blob/HEAD/rules/long-say.md")
        );
        assert_eq!(help_uri("", "long-say"), None);
    }
}
