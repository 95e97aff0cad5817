//! Byte offsets as the protocol's positions: a 0-based line, and a column
//! in UTF-16 code units (what the protocol counts unless the client asks
//! otherwise). A character outside the Basic Multilingual Plane (most
//! emoji) is two units; a byte that is no UTF-8 counts one, as the
//! replacement character an editor shows for it.

use lsp_types::{Position, Range};

use crate::core::lines::LineIndex;
use crate::core::span::Span;

/// A document's lines, to place offsets in it.
pub struct Places<'a> {
    src: &'a [u8],
    index: LineIndex,
}

impl<'a> Places<'a> {
    pub fn new(src: &'a [u8]) -> Places<'a> {
        Places {
            src,
            index: LineIndex::new(src),
        }
    }

    /// The position of byte `offset` (past the end: the end).
    pub fn position(&self, offset: usize) -> Position {
        let offset = offset.min(self.src.len());
        let (line, _) = self.index.position(self.src, offset);
        let start = self.index.line_span(self.src, line).start.min(offset);
        Position {
            line: u32::try_from(line - 1).unwrap_or(u32::MAX),
            character: u32::try_from(utf16_len(&self.src[start..offset])).unwrap_or(u32::MAX),
        }
    }

    pub fn range(&self, span: Span) -> Range {
        Range {
            start: self.position(span.start),
            end: self.position(span.end.max(span.start)),
        }
    }

    /// The byte offset of a position; a column past its line's end is the
    /// line's end, a line past the last is the end of the document.
    pub fn offset(&self, at: Position) -> usize {
        let line = at.line as usize + 1;
        if line > self.index.lines() {
            return self.src.len();
        }
        let span = self.index.line_span(self.src, line);
        let mut units = 0usize;
        let mut k = span.start;
        while k < span.end && units < at.character as usize {
            let (len, u) = char_at(&self.src[k..span.end]);
            units += u;
            k += len;
        }
        k
    }

    pub fn index(&self) -> &LineIndex {
        &self.index
    }

    /// The number of lines (a document ending in a line end has an empty
    /// last one).
    pub fn lines(&self) -> usize {
        self.index.lines()
    }

    /// The bytes of line `line` (0-based), without its line end.
    pub fn line_text(&self, line: usize) -> &'a [u8] {
        if line >= self.index.lines() {
            return &[];
        }
        let s = self.index.line_span(self.src, line + 1);
        &self.src[s.start..s.end]
    }

    /// The offset line `line` (0-based) starts at.
    pub fn line_start(&self, line: usize) -> usize {
        if line >= self.index.lines() {
            return self.src.len();
        }
        self.index.line_span(self.src, line + 1).start
    }
}

/// The length of the character starting `bytes` (one for a byte that is
/// no UTF-8), and its UTF-16 units.
fn char_at(bytes: &[u8]) -> (usize, usize) {
    let b = bytes[0];
    let want = match b {
        0x00..=0x7F => return (1, 1),
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return (1, 1),
    };
    match bytes.get(..want).map(std::str::from_utf8) {
        Some(Ok(s)) => (want, s.chars().map(char::len_utf16).sum()),
        _ => (1, 1),
    }
}

/// UTF-16 units of `bytes`.
pub fn utf16_len(bytes: &[u8]) -> usize {
    if bytes.is_ascii() {
        return bytes.len();
    }
    let mut k = 0;
    let mut units = 0;
    while k < bytes.len() {
        let (len, u) = char_at(&bytes[k..]);
        k += len;
        units += u;
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_utf16_units() {
        let src = "ab\n\u{e4}x \u{1F600}y\r\nz".as_bytes();
        let p = Places::new(src);
        let at = |s: &str| {
            src.windows(s.len())
                .position(|w| w == s.as_bytes())
                .unwrap()
        };
        assert_eq!(p.position(0), Position::new(0, 0));
        assert_eq!(p.position(at("x")), Position::new(1, 1));
        assert_eq!(p.position(at("y")), Position::new(1, 5));
        assert_eq!(p.position(at("z")), Position::new(2, 0));
        assert_eq!(p.position(src.len() + 9), Position::new(2, 1));
        for s in ["x", "y", "z", "\u{1F600}"] {
            assert_eq!(p.offset(p.position(at(s))), at(s), "{s}");
        }
        // A column past the line's end is its end, before the line end.
        assert_eq!(p.offset(Position::new(1, 99)), at("\r\n"));
        assert_eq!(p.offset(Position::new(9, 0)), src.len());
    }

    #[test]
    fn bytes_that_are_no_utf8_count_one_each() {
        assert_eq!(utf16_len(b"a\xffb\xe2\x82"), 5);
        assert_eq!(utf16_len("\u{20ac}\u{10348}".as_bytes()), 3);
    }
}
