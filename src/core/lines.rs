//! Lines and columns: where a byte offset, or the value an anchor points
//! at, lies in its file.

use crate::core::locate::locate;
use crate::core::span::{Anchor, Span};

/// The lines of `bytes`, each with its `\n` (the last without one when the
/// bytes do not end in a line end): what `split_inclusive` on `\n` gives,
/// with the line ends found a word at a time (a long session is split
/// several times per guard run).
pub fn with_ends(bytes: &[u8]) -> WithEnds<'_> {
    WithEnds { rest: bytes }
}

/// [`with_ends`], each line with the offset it starts at.
pub fn with_starts(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    with_ends(bytes).scan(0, |at, line| {
        let start = *at;
        *at += line.len();
        Some((start, line))
    })
}

/// The iterator of [`with_ends`].
pub struct WithEnds<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for WithEnds<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.rest.is_empty() {
            return None;
        }
        let n = memchr::memchr(b'\n', self.rest).map_or(self.rest.len(), |k| k + 1);
        let (line, rest) = self.rest.split_at(n);
        self.rest = rest;
        Some(line)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::span::Path;

    #[test]
    fn lines_with_ends_are_split_inclusive() {
        let cases: [&[u8]; 8] = [
            b"",
            b"\n",
            b"\n\n",
            b"a",
            b"a\nb",
            b"a\nb\n",
            b"\r\n{\"k\": 1}\r\n\n x",
            &[b'x'; 100],
        ];
        for case in cases {
            let want: Vec<&[u8]> = case.split_inclusive(|&b| b == b'\n').collect();
            assert_eq!(with_ends(case).collect::<Vec<_>>(), want, "{case:?}");
        }
        // Line ends at every distance from each other, across the words
        // the search reads at a time.
        let long: Vec<u8> = (0..300u32)
            .flat_map(|k| std::iter::repeat_n(b'y', (k % 37) as usize).chain([b'\n']))
            .collect();
        let want: Vec<&[u8]> = long.split_inclusive(|&b| b == b'\n').collect();
        assert_eq!(with_ends(&long).collect::<Vec<_>>(), want);
    }

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
