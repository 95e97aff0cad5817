//! Renderers: findings out, in the format the user asked for. No renderer
//! knows a rule; every text from a log is escaped on the way out.

pub mod concise;
pub mod escape;
pub mod json;
pub mod pretty;

use std::collections::BTreeMap;

use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::FileResult;
use crate::input::locate::locate;
use crate::model::{Anchor, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Pretty,
    Concise,
    Json,
}

/// Byte offsets of line starts, to turn offsets into lines and columns.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(src: &[u8]) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            src.iter()
                .enumerate()
                .filter(|(_, &b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { starts }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn position(&self, src: &[u8], offset: usize) -> (usize, usize) {
        let offset = offset.min(src.len());
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
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
        let start = self.starts[line - 1];
        let mut end = self.starts.get(line).map(|&s| s - 1).unwrap_or(src.len());
        if end > start && src.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        Span::new(start, end)
    }

    pub fn lines(&self) -> usize {
        self.starts.len()
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
}

impl Summary {
    pub fn add(&mut self, f: &FileResult) {
        self.files += 1;
        self.records += f.records;
        for d in &f.diagnostics {
            self.count(d);
        }
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
