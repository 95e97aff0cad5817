//! `--format pretty`: miette's graphical reports, the offending value
//! underlined on its line.
//!
//! miette prints source lines as they are, so it never sees the file
//! itself: it sees a *display copy* in which every unsafe character is
//! escaped, invalid UTF-8 is shown as `\xNN`, lines no span touches are
//! left empty (line numbers stay right) and very long lines are cut to
//! windows around what is pointed at, all of them together as wide as the
//! terminal. Spans are mapped from the file onto the copy. Label texts are
//! wrapped at spaces to the room right of their mark, so that labels
//! stacked under one line stay within the width.

use std::collections::BTreeMap;
use std::fmt;

use miette::{
    Diagnostic as MietteDiagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan,
    MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use super::escape::{escaped, file_name, is_unsafe, terminal};
use super::{resolve, LineIndex};
use crate::core::diagnostic::Severity;
use crate::lint::engine::FileResult;
use crate::model::Span;

/// How to draw.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    /// Terminal width in columns.
    pub width: usize,
}

/// A piece of the display copy: bytes `orig` of the file became `new_len`
/// bytes at `new_start` of the copy, either copied as they were or replaced.
#[derive(Clone, Copy, Debug)]
struct Piece {
    orig: Span,
    new_start: usize,
    new_len: usize,
    copied: bool,
}

/// The display copy of a file and the map from file offsets onto it.
pub struct DisplayCopy {
    pub text: String,
    pieces: Vec<Piece>,
    /// Line ends in `text`.
    newlines: usize,
    /// For each line kept, its line in the copy and in the file (from 0):
    /// a long run of lines no one points at is left out but for a few, so
    /// the copy's line numbers are not the file's.
    lines: Vec<(usize, usize)>,
}

impl DisplayCopy {
    /// Build the copy, keeping every line that one of `spans` (byte
    /// ranges of `src`) touches and cutting lines wider than `width`
    /// characters to windows around the places pointed at: a span's start
    /// and end, and the start of each line inside it.
    pub fn build(src: &[u8], index: &LineIndex, spans: &[Span], width: usize) -> DisplayCopy {
        let mut by_line: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for s in spans {
            let (first, _) = index.position(src, s.start);
            by_line.entry(first).or_default().push(s.start);
            if s.end > s.start {
                let (last, _) = index.position(src, s.end);
                // The lines inside a span are shown (a board's items), up
                // to a bound that keeps a span over a whole file printable.
                for line in first + 1..last.min(first + MAX_SPAN_LINES) {
                    let start = index.line_span(src, line).start;
                    by_line.entry(line).or_default().push(start);
                }
                if last > first {
                    by_line.entry(last).or_default().push(s.end);
                }
            }
        }
        let mut c = DisplayCopy {
            text: String::new(),
            pieces: Vec::new(),
            newlines: 0,
            lines: Vec::new(),
        };
        let mut pos = 0;
        for (&line, pts) in &by_line {
            let ls = index.line_span(src, line);
            // Lines before: emptied, a few of their line ends kept.
            c.blank_lines(src, pos, ls.start);
            c.lines.push((c.newlines, line - 1));
            c.window_line(src, ls, pts, width.max(40));
            pos = ls.end;
        }
        c.blank_lines(src, pos, src.len());
        c
    }

    fn push(&mut self, orig: Span, text: &str, copied: bool) {
        if orig.is_empty() && text.is_empty() {
            return;
        }
        if copied {
            if let Some(last) = self.pieces.last_mut() {
                if last.copied && last.orig.end == orig.start {
                    last.orig.end = orig.end;
                    last.new_len += text.len();
                    self.text.push_str(text);
                    return;
                }
            }
        }
        self.pieces.push(Piece {
            orig,
            new_start: self.text.len(),
            new_len: text.len(),
            copied,
        });
        self.text.push_str(text);
        self.newlines += memchr::memchr_iter(b'\n', text.as_bytes()).count();
    }

    /// Keep only the line ends of `src[from..to]`, and of a long run of
    /// lines only the first few: a snippet never reaches farther across
    /// lines no one points at, and a file of a million lines is not copied
    /// as a million empty ones.
    fn blank_lines(&mut self, src: &[u8], from: usize, to: usize) {
        let mut start = from;
        for nl in memchr::memchr_iter(b'\n', &src[from..to])
            .map(|i| from + i)
            .take(NEAR_LINES + 1)
        {
            self.push(Span::new(start, nl), "", false);
            self.push(Span::new(nl, nl + 1), "\n", true);
            start = nl + 1;
        }
        self.push(Span::new(start, to), "", false);
    }

    /// Copy `src[a..b]` with unsafe characters escaped.
    fn copy_safe(&mut self, src: &[u8], a: usize, b: usize) {
        let mut at = a;
        for chunk in src[a..b].utf8_chunks() {
            let valid = chunk.valid();
            let mut run = at;
            for (i, ch) in valid.char_indices() {
                if is_unsafe(ch) {
                    let here = at + i;
                    self.push(Span::new(run, here), &valid[run - at..i], true);
                    let mut e = String::new();
                    escaped(ch, &mut e);
                    self.push(Span::new(here, here + ch.len_utf8()), &e, false);
                    run = here + ch.len_utf8();
                }
            }
            let vend = at + valid.len();
            self.push(Span::new(run, vend), &valid[run - at..], true);
            for (k, byte) in chunk.invalid().iter().enumerate() {
                let p = vend + k;
                self.push(Span::new(p, p + 1), &format!("\\x{byte:02x}"), false);
            }
            at = vend + chunk.invalid().len();
        }
    }

    /// Copy one line, cut to windows around `pts` if it is too wide: the
    /// windows (and the ellipses between them) are `width` characters
    /// together, so that several places on one line do not widen it.
    fn window_line(&mut self, src: &[u8], ls: Span, pts: &[usize], width: usize) {
        let line = &src[ls.start..ls.end];
        let chars = line.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
        if chars <= width {
            self.copy_safe(src, ls.start, ls.end);
            return;
        }
        let mut sorted = pts.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        // One window for all the places when they fit in one, else one
        // window each; a quarter of a window before its place.
        let first_to_last = src[sorted[0]..sorted[sorted.len() - 1]]
            .iter()
            .filter(|&&b| (b & 0xC0) != 0x80)
            .count();
        let (places, each) = if first_to_last + width / 4 + 8 <= width {
            (vec![sorted[0]], width)
        } else {
            let n = sorted.len();
            (sorted, (width.saturating_sub(n + 1) / n).max(12))
        };
        let mut windows: Vec<(usize, usize)> = Vec::new();
        for p in places {
            let s = back_chars(src, ls.start, p, each / 4);
            let e = fwd_chars(src, ls.end, s, each);
            match windows.last_mut() {
                Some(w) if s <= w.1 => w.1 = w.1.max(e),
                _ => windows.push((s, e)),
            }
        }
        let mut pos = ls.start;
        for (s, e) in windows {
            if s > pos {
                self.push(Span::new(pos, s), "…", false);
            }
            self.copy_safe(src, s.max(pos), e);
            pos = e;
        }
        if pos < ls.end {
            self.push(Span::new(pos, ls.end), "…", false);
        }
    }

    /// Where file offset `o` lands in the copy; `end` maps an offset that
    /// closes a span (so a replaced piece is covered whole).
    pub fn map(&self, o: usize, end: bool) -> usize {
        let k = self.pieces.partition_point(|p| p.orig.start <= o);
        if k == 0 {
            return 0;
        }
        let p = &self.pieces[k - 1];
        if o >= p.orig.end {
            return p.new_start + p.new_len;
        }
        if p.copied {
            p.new_start + (o - p.orig.start)
        } else if end && o > p.orig.start {
            p.new_start + p.new_len
        } else {
            p.new_start
        }
    }

    pub fn map_span(&self, s: Span) -> SourceSpan {
        let a = self.map(s.start, false);
        let b = self.map(s.end, true).max(a);
        SourceSpan::new(a.into(), b - a)
    }
}

fn back_chars(src: &[u8], floor: usize, mut p: usize, n: usize) -> usize {
    let mut k = 0;
    while p > floor && k < n {
        p -= 1;
        if (src[p] & 0xC0) != 0x80 {
            k += 1;
        }
    }
    p
}

fn fwd_chars(src: &[u8], ceil: usize, mut p: usize, n: usize) -> usize {
    let mut k = 0;
    while p < ceil && k < n {
        p += 1;
        while p < ceil && (src[p] & 0xC0) == 0x80 {
            p += 1;
        }
        k += 1;
    }
    p
}

/// The file's line (from 0) of the copy's line `k`, by the kept lines'
/// places in both (see [`DisplayCopy`]).
fn file_line(lines: &[(usize, usize)], k: usize) -> usize {
    match lines.partition_point(|&(copy, _)| copy <= k) {
        0 => k,
        i => {
            let (copy, file) = lines[i - 1];
            file + (k - copy)
        }
    }
}

/// The display copy as miette reads it: always whole lines, and the
/// header's column taken from the file, not from the (possibly cut) copy.
struct CopySource {
    name: String,
    text: String,
    /// The copy's lines and the file's, as [`file_line`] reads them.
    lines: Vec<(usize, usize)>,
    /// Copy offset of a label's start -> (line, column) in the file.
    columns: crate::core::hash::HashMap<usize, (usize, usize)>,
}

impl SourceCode for CopySource {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let t = self.text.as_bytes();
        let start = span.offset().min(t.len());
        let end = (span.offset() + span.len()).clamp(start, t.len());
        let mut ls = t[..start]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |k| k + 1);
        for _ in 0..before {
            if ls == 0 {
                break;
            }
            ls = t[..ls - 1]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |k| k + 1);
        }
        let mut le = t[end..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(t.len(), |k| end + k);
        for _ in 0..after {
            if le >= t.len() {
                break;
            }
            le = t[le + 1..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(t.len(), |k| le + 1 + k);
        }
        let copy_line = memchr::memchr_iter(b'\n', &t[..ls]).count();
        let line = file_line(&self.lines, copy_line);
        let count = t[ls..le].iter().filter(|&&b| b == b'\n').count() + 1;
        let (line, column) = match self.columns.get(&start) {
            Some(&(l, c)) if before == 0 => (l - 1, c - 1),
            _ => (line, 0),
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            &t[ls..le],
            SourceSpan::new(ls.into(), le - ls),
            line,
            column,
            count,
        )))
    }
}

/// One finding, in the shape miette draws.
struct Shown<'a> {
    code: Option<&'static str>,
    severity: miette::Severity,
    message: String,
    help: Option<String>,
    labels: Vec<LabeledSpan>,
    source: &'a CopySource,
    /// Places far from the main one, drawn after it as notes so that the
    /// report opens at the offending line.
    notes: Vec<Shown<'a>>,
}

impl fmt::Debug for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Shown<'_> {}

impl MietteDiagnostic for Shown<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.code.map(|c| Box::new(c) as Box<dyn fmt::Display>)
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn MietteDiagnostic> + 'b>> {
        if self.notes.is_empty() {
            return None;
        }
        Some(Box::new(
            self.notes.iter().map(|n| n as &dyn MietteDiagnostic),
        ))
    }
    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
}

/// Text for miette: unsafe characters escaped, and tabs too (a tab from a
/// log would reach the terminal raw and break miette's wrapping).
fn visible(s: &str) -> String {
    terminal(s).replace('\t', "\\t")
}

/// Secondary places at most this many lines from the main one are drawn in
/// the same snippet; farther ones become notes after it.
const NEAR_LINES: usize = 2;

/// How many lines of one span are shown; the lines of a longer one after
/// these are left empty.
const MAX_SPAN_LINES: usize = 200;

/// The narrowest a label's text is wrapped to, however far right its mark.
const MIN_LABEL_WIDTH: usize = 24;

/// `text` with its spaces turned into line breaks where a line would grow
/// wider than `width` characters; a word is never broken.
fn wrap_words(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut col = 0;
    for word in text.split(' ') {
        let w = word.chars().count();
        if col > 0 && col + 1 + w > width {
            out.push('\n');
            col = 0;
        } else if col > 0 || out.ends_with(' ') {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += w;
    }
    out
}

/// The column of the copy's offset `o` in its line, in characters.
fn column_in(text: &str, o: usize) -> usize {
    let t = text.as_bytes();
    let o = o.min(t.len());
    let start = memchr::memrchr(b'\n', &t[..o]).map_or(0, |k| k + 1);
    t[start..o].iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// Render every finding of one file.
pub fn render(f: &FileResult, style: Style, out: &mut String) {
    if f.diagnostics.is_empty() {
        return;
    }
    let index = LineIndex::new(&f.source);
    let located: Vec<Vec<super::Located>> = f
        .diagnostics
        .iter()
        .map(|d| {
            d.places()
                .map(|l| resolve(&f.source, &index, &l.at))
                .collect()
        })
        .collect();
    let spans: Vec<Span> = located.iter().flatten().map(|l| l.span).collect();
    let width = style.width.saturating_sub(12);
    let copy = DisplayCopy::build(&f.source, &index, &spans, width);
    let columns = located
        .iter()
        .flatten()
        .map(|l| (copy.map(l.span.start, false), (l.line, l.column)))
        .collect();
    let source = CopySource {
        name: file_name(&f.path),
        text: copy.text.clone(),
        lines: copy.lines.clone(),
        columns,
    };
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_context_lines(0)
        .with_width(style.width)
        .with_links(false);
    for (d, spans) in f.diagnostics.iter().zip(&located) {
        let mut labels = Vec::new();
        let mut notes = Vec::new();
        let primary_line = spans[0].line;
        // What stands left of a label's text: the line numbers, the
        // gutter of spans over several lines, and the mark's column.
        let near = |s: &super::Located| s.line.abs_diff(primary_line) <= NEAR_LINES;
        let last_line = spans
            .iter()
            .filter(|s| near(s))
            .map(|s| s.end_line)
            .max()
            .unwrap_or(1);
        let gutter = if spans.iter().any(|s| near(s) && s.end_line > s.line) {
            3
        } else {
            0
        };
        let left = last_line.to_string().len() + 4 + gutter + 4;
        for (i, (l, s)) in d.places().zip(spans).enumerate() {
            let span = copy.map_span(s.span);
            let mark = if s.end_line > s.line {
                column_in(&copy.text, span.offset() + span.len())
            } else {
                let a = column_in(&copy.text, span.offset());
                let b = column_in(&copy.text, span.offset() + span.len());
                (a + b.max(a + 1)) / 2
            };
            let room = style.width.saturating_sub(left + mark).max(MIN_LABEL_WIDTH);
            let text = l.text.as_deref().map(|t| wrap_words(&visible(t), room));
            if i == 0 {
                labels.push(LabeledSpan::new_primary_with_span(text, span));
            } else if s.line.abs_diff(primary_line) <= NEAR_LINES {
                labels.push(LabeledSpan::new_with_span(text, span));
            } else {
                notes.push(Shown {
                    code: None,
                    severity: miette::Severity::Advice,
                    message: l.text.as_deref().map_or_else(|| "see here".into(), visible),
                    help: None,
                    labels: vec![LabeledSpan::new_with_span(None, span)],
                    source: &source,
                    notes: Vec::new(),
                });
            }
        }
        let shown = Shown {
            code: Some(d.rule),
            severity: match d.severity {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
                Severity::Info => miette::Severity::Advice,
            },
            message: visible(&d.message),
            help: d.help.as_deref().map(visible),
            labels,
            source: &source,
            notes,
        };
        let mut buf = String::new();
        if handler.render_report(&mut buf, &shown).is_err() {
            buf = format!(
                "{}: {}[{}] {}\n",
                file_name(&f.path),
                d.severity,
                d.rule,
                shown.message
            );
        }
        out.push_str(&buf);
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy_of(src: &str, pts: &[usize], width: usize) -> DisplayCopy {
        let idx = LineIndex::new(src.as_bytes());
        let spans: Vec<Span> = pts.iter().map(|&p| Span::new(p, p)).collect();
        DisplayCopy::build(src.as_bytes(), &idx, &spans, width)
    }

    #[test]
    fn keeps_line_numbers_and_escapes() {
        let src = "one\ntwo \x1b[31mred\nthree\n";
        let p = src.find("red").unwrap();
        let c = copy_of(src, &[p], 100);
        assert_eq!(c.text, "\ntwo \\e[31mred\n\n");
        let s = c.map_span(Span::new(p, p + 3));
        assert_eq!(&c.text[s.offset()..s.offset() + s.len()], "red");
    }

    #[test]
    fn cuts_long_lines_around_the_point() {
        let long = format!("{}TARGET{}", "a".repeat(500), "b".repeat(500));
        let p = long.find("TARGET").unwrap();
        let c = copy_of(&long, &[p], 60);
        assert!(c.text.starts_with('…') && c.text.ends_with('…'));
        assert!(c.text.chars().count() < 70, "{}", c.text.len());
        let s = c.map_span(Span::new(p, p + 6));
        assert_eq!(&c.text[s.offset()..s.offset() + s.len()], "TARGET");
    }

    #[test]
    fn lines_inside_a_span_are_kept() {
        let src = "before\n{\n  \"a\": 1,\n  \"b\": 2\n}\nafter\n";
        let s = Span::new(src.find('{').unwrap(), src.find('}').unwrap() + 1);
        let idx = LineIndex::new(src.as_bytes());
        let c = DisplayCopy::build(src.as_bytes(), &idx, &[s], 100);
        assert_eq!(c.text, "\n{\n  \"a\": 1,\n  \"b\": 2\n}\n\n");
    }

    #[test]
    fn places_far_apart_on_one_line_share_its_width() {
        let long = format!(
            "{}ONE{}TWO{}",
            "a".repeat(100),
            "b".repeat(300),
            "c".repeat(100)
        );
        let (one, two) = (long.find("ONE").unwrap(), long.find("TWO").unwrap());
        let c = copy_of(&long, &[one, two], 68);
        assert!(c.text.chars().count() <= 68, "{}", c.text);
        assert!(
            c.text.contains("ONE") && c.text.contains("TWO"),
            "{}",
            c.text
        );
    }

    #[test]
    fn label_texts_wrap_at_spaces() {
        assert_eq!(wrap_words("one two three four", 9), "one two\nthree\nfour");
        assert_eq!(wrap_words("a verylongword b", 4), "a\nverylongword\nb");
        assert_eq!(wrap_words("short", 40), "short");
    }

    #[test]
    fn invalid_utf8_is_shown_as_bytes() {
        let src = b"ok \xff\xfe here";
        let idx = LineIndex::new(src);
        let c = DisplayCopy::build(src, &idx, &[Span::new(3, 3)], 100);
        assert_eq!(c.text, "ok \\xff\\xfe here");
        let s = c.map_span(Span::new(3, 4));
        assert_eq!(&c.text[s.offset()..s.offset() + s.len()], "\\xff");
    }
}
