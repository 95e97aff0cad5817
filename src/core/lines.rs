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

/// The lines of a file that some spans touch, each kept whole, and every
/// other line cut down to its bare line end: the same lines, numbered
/// alike, in a fraction of the bytes. What shows the findings of a log
/// that was read a block at a time, without reading it whole again
/// ([`Excerpt::read`], [`Excerpt::rebase`]).
#[derive(Debug, Default)]
pub struct Excerpt {
    /// The kept lines and the bare line ends.
    pub bytes: Vec<u8>,
    /// Each kept line: where it starts in the file, where in `bytes`, and
    /// its length.
    kept: Vec<(usize, usize, usize)>,
    /// The file's length.
    len: usize,
    /// The excerpt's length (`bytes` may be taken away).
    cut: usize,
}

impl Excerpt {
    /// Read a file's lines, keeping those that any of `spans` touches (a
    /// span ending where a line starts touches that line too).
    pub fn read(
        mut file: impl std::io::BufRead,
        spans: impl IntoIterator<Item = Span>,
    ) -> std::io::Result<Excerpt> {
        // The spans as disjoint ranges of offsets, in order, ends included.
        let mut ranges: Vec<(usize, usize)> = spans
            .into_iter()
            .map(|s| (s.start, s.end.max(s.start)))
            .collect();
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        let mut out = Excerpt::default();
        let mut next = 0;
        // Keep or cut the line of the file's bytes `start..end`: `carried`
        // and then `tail` (a line read in two or more blocks).
        let mut take = |out: &mut Excerpt, start: usize, carried: &[u8], tail: &[u8]| {
            let end = start + carried.len() + tail.len();
            let ended = tail.last().or(carried.last()) == Some(&b'\n');
            while merged.get(next).is_some_and(|&(_, b)| b < start) {
                next += 1;
            }
            // A last line without its line end holds every offset past it
            // (an offset past the file's end is read as its end).
            let touched = merged.get(next).is_some_and(|&(a, _)| a < end || !ended);
            if touched {
                out.kept.push((start, out.bytes.len(), end - start));
                out.bytes.extend_from_slice(carried);
                out.bytes.extend_from_slice(tail);
            } else if ended {
                out.bytes.push(b'\n');
            }
            end
        };
        // Where the line being read starts, and its bytes of the blocks
        // before (only a line that runs past a block is copied).
        let mut start = 0;
        let mut carried = Vec::new();
        loop {
            let block = match file.fill_buf() {
                Ok([]) => break,
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let mut from = 0;
            for k in memchr::memchr_iter(b'\n', block) {
                start = take(&mut out, start, &carried, &block[from..=k]);
                carried.clear();
                from = k + 1;
            }
            carried.extend_from_slice(&block[from..]);
            let n = block.len();
            file.consume(n);
        }
        if !carried.is_empty() {
            start = take(&mut out, start, &carried, &[]);
        }
        out.len = start;
        out.cut = out.bytes.len();
        Ok(out)
    }

    /// Where offset `at` of the file is in [`Excerpt::bytes`]: exact in a
    /// kept line and at the file's end, else the start of the next kept
    /// line (no line a span touches is cut).
    pub fn rebase(&self, at: usize) -> usize {
        if at >= self.len {
            return self.cut + (at - self.len);
        }
        let k = self.kept.partition_point(|&(start, _, _)| start <= at);
        if let Some(&(start, new, len)) = k.checked_sub(1).map(|k| &self.kept[k]) {
            if at - start <= len {
                return new + (at - start);
            }
        }
        self.kept.get(k).map_or(self.cut, |&(_, new, _)| new)
    }

    /// `span` of the file, in [`Excerpt::bytes`].
    pub fn rebase_span(&self, span: Span) -> Span {
        let start = self.rebase(span.start);
        Span::new(start, self.rebase(span.end).max(start))
    }

    /// Where offset `at` of [`Excerpt::bytes`] is in the file: the inverse
    /// of [`Excerpt::rebase`] in a kept line and past the end (elsewhere,
    /// the start of the next kept line).
    pub fn origin(&self, at: usize) -> usize {
        if at >= self.cut {
            return self.len + (at - self.cut);
        }
        let k = self.kept.partition_point(|&(_, new, _)| new <= at);
        match k.checked_sub(1).map(|k| self.kept[k]) {
            Some((start, new, len)) if at - new <= len => start + (at - new),
            _ => self.kept.get(k).map_or(self.len, |&(start, _, _)| start),
        }
    }

    /// A span of [`Excerpt::bytes`], in the file.
    pub fn origin_span(&self, span: Span) -> Span {
        let start = self.origin(span.start);
        Span::new(start, self.origin(span.end).max(start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::span::Path;

    proptest::proptest! {
        /// An excerpt of the lines some spans touch places each span at
        /// the lines and columns of the whole file, and keeps the lines
        /// it covers as they are.
        #[test]
        fn an_excerpt_locates_spans_as_the_whole_file_does(
            picks in proptest::collection::vec(0usize..7, 0..120),
            cuts in proptest::collection::vec((0usize..130, 0usize..12), 1..6),
        ) {
            const PARTS: [&str; 7] = ["a", "é", "\n", "\r\n", "{\"k\":1}", " ", "\u{1F600}"];
            let src: Vec<u8> = picks.iter().flat_map(|&p| PARTS[p].bytes()).collect();
            let spans: Vec<Span> = cuts
                .iter()
                .map(|&(at, len)| {
                    let mut start = at.min(src.len() + 1);
                    while start < src.len() && (src[start] & 0xC0) == 0x80 {
                        start += 1;
                    }
                    let mut end = (start + len).min(src.len());
                    while end < src.len() && (src[end] & 0xC0) == 0x80 {
                        end += 1;
                    }
                    Span::new(start, end.max(start))
                })
                .collect();
            let ex = Excerpt::read(&src[..], spans.iter().copied()).unwrap();
            // Read a few bytes at a time, lines run across blocks.
            let small = Excerpt::read(std::io::BufReader::with_capacity(3, &src[..]), spans.iter().copied()).unwrap();
            proptest::prop_assert_eq!(&small.bytes, &ex.bytes);
            proptest::prop_assert_eq!(&small.kept, &ex.kept);
            proptest::prop_assert!(ex.bytes.len() <= src.len());
            let (whole, part) = (LineIndex::new(&src), LineIndex::new(&ex.bytes));
            proptest::prop_assert_eq!(whole.lines(), part.lines());
            for &span in &spans {
                let a = resolve(&src, &whole, &Anchor::bytes(span));
                let b = resolve(&ex.bytes, &part, &Anchor::bytes(ex.rebase_span(span)));
                proptest::prop_assert_eq!(ex.origin_span(ex.rebase_span(span)), span);
                proptest::prop_assert_eq!(
                    (a.line, a.column, a.end_line, a.end_column),
                    (b.line, b.column, b.end_line, b.end_column)
                );
                for line in a.line..=a.end_line {
                    let (w, p) = (whole.line_span(&src, line), part.line_span(&ex.bytes, line));
                    proptest::prop_assert_eq!(&src[w.start..w.end], &ex.bytes[p.start..p.end]);
                }
            }
        }
    }

    #[test]
    fn an_excerpt_finds_a_value_in_its_line() {
        let second = r#"{"fn":"say","args":{"text":"hé"}}"#;
        let text = format!("{{\"a\":1}}\n{second}\n{{\"b\":2}}\n");
        let src = text.as_bytes();
        let line = Span::new(8, 8 + second.len());
        let at = Anchor {
            span: line,
            path: Path::ROOT.key("args").key("text"),
        };
        let ex = Excerpt::read(src, [line]).unwrap();
        assert_eq!(ex.bytes, format!("\n{second}\n\n").as_bytes());
        let a = resolve(src, &LineIndex::new(src), &at);
        let rebased = Anchor {
            span: ex.rebase_span(line),
            path: at.path,
        };
        let b = resolve(&ex.bytes, &LineIndex::new(&ex.bytes), &rebased);
        assert_eq!((a.line, a.column, a.end_line, a.end_column), (2, 28, 2, 32));
        assert_eq!(
            (a.line, a.column, a.end_line, a.end_column),
            (b.line, b.column, b.end_line, b.end_column)
        );
        // Past the end of a last line without its line end.
        let src = b"x\n{\"k\":1}";
        let past = Span::new(40, 40);
        let ex = Excerpt::read(&src[..], [past]).unwrap();
        assert_eq!(ex.bytes, b"\n{\"k\":1}");
        let b = resolve(
            &ex.bytes,
            &LineIndex::new(&ex.bytes),
            &Anchor::bytes(ex.rebase_span(past)),
        );
        assert_eq!((b.line, b.column), (2, 8));
    }

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
