//! Renderers: findings out, in the format the user asked for. No renderer
//! knows a rule; every text from a log is escaped on the way out.

pub mod concise;
/// Escaping of untrusted text, shared with the readers' messages.
pub use crate::escape;
pub mod github;
pub mod gitlab;
pub mod html;
pub mod json;
pub mod junit;
pub mod pretty;
pub mod sarif;

use std::collections::BTreeMap;

use serde_json::ser::{Formatter, PrettyFormatter};

use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::FileResult;
use crate::input::locate::locate;
use crate::model::{Anchor, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Pretty,
    Concise,
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
    /// GitHub Actions workflow annotations.
    Github,
    /// One JSON object per finding and line.
    Jsonl,
    /// A JUnit XML report: a test case per file and rule.
    Junit,
    /// A GitLab Code Quality report.
    Gitlab,
}

impl Format {
    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Pretty => "pretty",
            Format::Concise => "concise",
            Format::Json => "json",
            Format::Sarif => "sarif",
            Format::Github => "github",
            Format::Jsonl => "jsonl",
            Format::Junit => "junit",
            Format::Gitlab => "gitlab",
        }
    }

    pub const ALL: [Format; 8] = [
        Format::Pretty,
        Format::Concise,
        Format::Json,
        Format::Jsonl,
        Format::Sarif,
        Format::Github,
        Format::Junit,
        Format::Gitlab,
    ];

    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// Byte offsets of line starts, to turn offsets into lines and columns.
/// Four bytes a line for a file under 4 GiB (a file of short lines is not
/// indexed at four times its size), eight beyond.
pub struct LineIndex {
    starts: Starts,
}

enum Starts {
    Small(Vec<u32>),
    Large(Vec<usize>),
}

impl LineIndex {
    pub fn new(src: &[u8]) -> LineIndex {
        let n = memchr::memchr_iter(b'\n', src).count() + 1;
        let ends = memchr::memchr_iter(b'\n', src).map(|i| i + 1);
        let starts = if u32::try_from(src.len()).is_ok() {
            let mut v = Vec::with_capacity(n);
            v.push(0);
            // Every offset is at most `src.len()`, which fits.
            v.extend(ends.map(|i| i as u32));
            Starts::Small(v)
        } else {
            let mut v = Vec::with_capacity(n);
            v.push(0);
            v.extend(ends);
            Starts::Large(v)
        };
        LineIndex { starts }
    }

    /// Where line `k` (0-based) starts, if there is one.
    fn start(&self, k: usize) -> Option<usize> {
        match &self.starts {
            Starts::Small(v) => v.get(k).map(|&s| s as usize),
            Starts::Large(v) => v.get(k).copied(),
        }
    }

    /// The 0-based line holding `offset`.
    fn line_of(&self, offset: usize) -> usize {
        let after = match &self.starts {
            Starts::Small(v) => v.partition_point(|&s| s as usize <= offset),
            Starts::Large(v) => v.partition_point(|&s| s <= offset),
        };
        after.saturating_sub(1)
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn position(&self, src: &[u8], offset: usize) -> (usize, usize) {
        let offset = offset.min(src.len());
        let line = self.line_of(offset);
        let start = self.start(line).unwrap_or(0);
        // Count characters: every byte that does not continue a UTF-8
        // sequence starts one (invalid bytes count one each).
        let col = src[start..offset]
            .iter()
            .filter(|&&b| (b & 0xC0) != 0x80)
            .count();
        (line + 1, col + 1)
    }

    /// The byte range of line `line` (1-based), without its line end.
    pub fn line_span(&self, src: &[u8], line: usize) -> Span {
        let start = self.start(line - 1).unwrap_or(src.len());
        let mut end = self.start(line).map(|s| s - 1).unwrap_or(src.len());
        if end > start && src.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        Span::new(start, end)
    }

    pub fn lines(&self) -> usize {
        match &self.starts {
            Starts::Small(v) => v.len(),
            Starts::Large(v) => v.len(),
        }
    }
}

/// Where a finding lands in its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Located {
    pub span: Span,
    pub line: usize,
    pub column: usize,
    /// Line and column just past the end (exclusive).
    pub end_line: usize,
    pub end_column: usize,
}

/// Turn an anchor into bytes, lines and columns.
pub fn resolve(src: &[u8], index: &LineIndex, a: &Anchor) -> Located {
    let start = a.span.start.min(src.len());
    let end = a.span.end.clamp(start, src.len());
    let span = if a.path.is_root() {
        Span::new(start, end)
    } else {
        let inner = locate(&src[start..end], &a.path);
        Span::new(start + inner.start, start + inner.end)
    };
    let (line, column) = index.position(src, span.start);
    let (end_line, end_column) = index.position(src, span.end);
    Located {
        span,
        line,
        column,
        end_line,
        end_column,
    }
}

/// Counts over everything linted.
#[derive(Debug, Default)]
pub struct Summary {
    pub files: usize,
    pub records: usize,
    pub diagnostics: usize,
    pub by_rule: BTreeMap<&'static str, usize>,
    pub by_severity: BTreeMap<&'static str, usize>,
    pub by_agent: BTreeMap<String, usize>,
    /// `say`s per agent (each agent's own, from its own log).
    pub says: BTreeMap<String, usize>,
    /// Findings a baseline accepted, left out of the counts above.
    pub baselined: usize,
}

impl Summary {
    pub fn add(&mut self, f: &FileResult) {
        self.files += 1;
        self.records += f.records;
        self.baselined += f.baselined;
        for (agent, n) in &f.says {
            *self.says.entry(agent.clone()).or_default() += n;
        }
        for d in &f.diagnostics {
            self.count(d);
        }
    }

    /// Every `say` of every agent.
    pub fn total_says(&self) -> usize {
        self.says.values().sum()
    }

    /// Rows per rule: name, findings, findings per 100 says of all agents;
    /// most findings first.
    pub fn rule_rows(&self) -> Vec<(&'static str, usize, Option<f64>)> {
        let says = self.total_says();
        let mut rows: Vec<_> = self
            .by_rule
            .iter()
            .map(|(r, &n)| (*r, n, per_100(n, says)))
            .collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        rows
    }

    /// Rows per agent (every agent with a finding or a say): name, says,
    /// findings, findings per 100 of its says; most findings first.
    pub fn agent_rows(&self) -> Vec<(&str, usize, usize, Option<f64>)> {
        let mut names: Vec<&str> = self.by_agent.keys().map(String::as_str).collect();
        names.extend(self.says.keys().map(String::as_str));
        names.sort_unstable();
        names.dedup();
        let mut rows: Vec<_> = names
            .into_iter()
            .map(|a| {
                let says = self.says.get(a).copied().unwrap_or(0);
                let n = self.by_agent.get(a).copied().unwrap_or(0);
                (a, says, n, per_100(n, says))
            })
            .collect();
        rows.sort_by(|a, b| b.2.cmp(&a.2).then(b.1.cmp(&a.1)).then(a.0.cmp(b.0)));
        rows
    }
    fn count(&mut self, d: &Diagnostic) {
        self.diagnostics += 1;
        *self.by_rule.entry(d.rule).or_default() += 1;
        *self.by_severity.entry(d.severity.name()).or_default() += 1;
        if let Some(a) = &d.agent {
            *self.by_agent.entry(a.clone()).or_default() += 1;
        }
    }
    pub fn errors(&self) -> usize {
        self.by_severity
            .get(Severity::Error.name())
            .copied()
            .unwrap_or(0)
    }

    /// One closing line for people: "Found 3 problems (1 error, 2 warnings) in 2 of 5 files."
    pub fn line(&self) -> String {
        let mut line = self.counts_line();
        if self.baselined > 0 {
            line.pop();
            line.push_str(&format!("; {} more in the baseline.", self.baselined));
        }
        line
    }

    fn counts_line(&self) -> String {
        if self.diagnostics == 0 {
            return format!(
                "All checks passed: {} file{}, {} record{}.",
                self.files,
                plural(self.files),
                self.records,
                plural(self.records)
            );
        }
        let parts: Vec<String> = [Severity::Error, Severity::Warning, Severity::Info]
            .iter()
            .filter_map(|s| {
                let n = self.by_severity.get(s.name()).copied().unwrap_or(0);
                (n > 0).then(|| match s {
                    Severity::Info => format!("{n} info"),
                    s => format!("{n} {}{}", s.name(), plural(n)),
                })
            })
            .collect();
        format!(
            "Found {} problem{} ({}) in {} file{}, {} record{}.",
            self.diagnostics,
            plural(self.diagnostics),
            parts.join(", "),
            self.files,
            plural(self.files),
            self.records,
            plural(self.records)
        )
    }
}

/// `n` per 100 of `says`, to two decimals; none without says.
pub fn per_100(n: usize, says: usize) -> Option<f64> {
    (says > 0).then(|| (n as f64 * 10_000.0 / says as f64).round() / 100.0)
}

/// `value` as pretty-printed JSON in which no character that
/// [`escape::is_unsafe`] flags appears raw: serde_json escapes C0 controls
/// itself; DEL, C1 controls and bidirectional overrides are written as
/// `\uXXXX` escapes too. The decoded strings are unchanged.
pub fn to_json<T: serde::Serialize>(value: &T) -> String {
    safe_json(value, PrettyFormatter::new())
}

/// As [`to_json`], on one line (JSON Lines).
pub fn to_json_line<T: serde::Serialize>(value: &T) -> String {
    safe_json(value, serde_json::ser::CompactFormatter)
}

fn safe_json<T: serde::Serialize, F: Formatter>(value: &T, formatter: F) -> String {
    let mut buf = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, SafeFormatter(formatter));
    if value.serialize(&mut ser).is_err() {
        return "{}\n".into();
    }
    buf.push(b'\n');
    // The serializer writes UTF-8 only.
    String::from_utf8(buf).unwrap_or_default()
}

struct SafeFormatter<F>(F);

macro_rules! delegate {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $name<W: ?Sized + std::io::Write>(&mut self, w: &mut W $(, $arg: $ty)*) -> std::io::Result<()> {
            self.0.$name(w $(, $arg)*)
        }
    )*};
}

impl<F: Formatter> Formatter for SafeFormatter<F> {
    delegate! {
        begin_array();
        end_array();
        begin_array_value(first: bool);
        end_array_value();
        begin_object();
        end_object();
        begin_object_key(first: bool);
        end_object_key();
        begin_object_value();
        end_object_value();
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if escape::is_unsafe(c) {
                w.write_all(&fragment.as_bytes()[start..i])?;
                // Every unsafe character is in the Basic Multilingual Plane.
                write!(w, "\\u{:04x}", c as u32)?;
                start = i + c.len_utf8();
            }
        }
        w.write_all(&fragment.as_bytes()[start..])
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Path;

    #[test]
    fn positions_count_characters() {
        let src = "ab\nü{\"x\":\"é\"}\n".as_bytes();
        let idx = LineIndex::new(src);
        assert_eq!(idx.position(src, 0), (1, 1));
        assert_eq!(idx.position(src, 3), (2, 1));
        let a = Anchor {
            span: Span::new(5, src.len() - 1),
            path: Path::ROOT.key("x"),
        };
        let l = resolve(src, &idx, &a);
        assert_eq!((l.line, l.column, l.end_line, l.end_column), (2, 7, 2, 10));
        assert_eq!(&src[l.span.start..l.span.end], "\"é\"".as_bytes());
        assert_eq!(idx.line_span(src, 2), Span::new(3, src.len() - 1));
    }
}
