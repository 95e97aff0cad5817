//! A direct reader of a well-formed JSON text into a [`J`] tree, for the
//! lines of a log: one pass over the bytes, no visitor in between. It takes
//! only what it is sure `serde_json` reads the same way and gives up
//! (`None`) on anything else: any error, numbers `serde_json` could find out
//! of range, lone surrogates, nesting deeper than [`MAX_DEPTH`], a tree
//! larger than [`super::tree_limit`]. The caller
//! then reads the text with `serde_json`, which says what is wrong and
//! where, so the two agree on every text by construction (a property test
//! compares them).

use bumpalo::collections::{String as BumpString, Vec as BumpVec};
use bumpalo::Bump;

use super::{tree_limit, J};

/// Nesting beyond this is left to `serde_json`, whose limit (128) is
/// higher: it says where the limit was passed.
const MAX_DEPTH: u32 = 100;

/// `text` read as one JSON value with only whitespace around it, when it is
/// well-formed and plain enough to read here.
pub(super) fn parse<'a>(text: &'a str, arena: &'a Bump) -> Option<J<'a>> {
    let mut s = Scan {
        text,
        at: 0,
        arena,
        depth: 0,
        limit: tree_limit(text.len()),
    };
    s.space();
    let value = s.value()?;
    s.space();
    (s.at == text.len()).then_some(value)
}

struct Scan<'a> {
    text: &'a str,
    /// The next byte to read.
    at: usize,
    arena: &'a Bump,
    depth: u32,
    /// The most bytes the arena may hold.
    limit: usize,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn space(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn value(&mut self) -> Option<J<'a>> {
        match self.peek()? {
            b'"' => {
                self.at += 1;
                self.string().map(J::Str)
            }
            b'{' => self.object(),
            b'[' => self.array(),
            b't' => self.word("true", J::Bool(true)),
            b'f' => self.word("false", J::Bool(false)),
            b'n' => self.word("null", J::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn word(&mut self, word: &str, value: J<'a>) -> Option<J<'a>> {
        let rest = self.text.as_bytes().get(self.at..)?;
        rest.starts_with(word.as_bytes()).then(|| {
            self.at += word.len();
            value
        })
    }

    fn nest(&mut self) -> Option<()> {
        self.at += 1;
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// Has the tree outgrown its limit? Asked as each container closes and
    /// at every 1,024th item of a long one, so no line of any length grows
    /// its tree far past the limit.
    fn over(&self) -> bool {
        self.arena.allocated_bytes() > self.limit
    }

    fn object(&mut self) -> Option<J<'a>> {
        let pairs = self.items(b'}', 8, |s| {
            if s.peek()? != b'"' {
                return None;
            }
            s.at += 1;
            let key = s.string()?;
            s.space();
            if s.peek()? != b':' {
                return None;
            }
            s.at += 1;
            s.space();
            Some((key, s.value()?))
        })?;
        Some(J::Obj(pairs))
    }

    fn array(&mut self) -> Option<J<'a>> {
        Some(J::Arr(self.items(b']', 4, Scan::value)?))
    }

    /// The items of the object or array whose opening byte is the next,
    /// each read by `item`, up to its closing byte `close`.
    fn items<T>(
        &mut self,
        close: u8,
        capacity: usize,
        mut item: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<&'a [T]> {
        self.nest()?;
        let mut items = BumpVec::with_capacity_in(capacity, self.arena);
        self.space();
        if self.peek() == Some(close) {
            self.at += 1;
        } else {
            loop {
                items.push(item(self)?);
                if items.len().is_multiple_of(1024) && self.over() {
                    return None;
                }
                self.space();
                match self.peek()? {
                    b',' => {
                        self.at += 1;
                        self.space();
                    }
                    c if c == close => {
                        self.at += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.depth -= 1;
        if self.over() {
            return None;
        }
        Some(items.into_bump_slice())
    }

    /// The string whose opening quote was just read: borrowed from the text
    /// when it has no escapes, else unescaped into the arena.
    fn string(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        let end = start + plain_run(bytes.get(start..)?);
        match bytes.get(end)? {
            b'"' => {
                self.at = end + 1;
                // The quote and backslash are ASCII: a run between them
                // never splits a character.
                self.text.get(start..end)
            }
            b'\\' => self.escaped(start, end),
            _ => None,
        }
    }

    /// The rest of a string from `at`, its first backslash; its plain start
    /// began at `start`.
    fn escaped(&mut self, start: usize, mut at: usize) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let mut out = BumpString::with_capacity_in(at - start + 16, self.arena);
        out.push_str(self.text.get(start..at)?);
        loop {
            match *bytes.get(at)? {
                b'"' => {
                    self.at = at + 1;
                    return Some(out.into_bump_str());
                }
                b'\\' => {
                    let c = match *bytes.get(at + 1)? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let (c, next) = unicode(bytes, at + 2)?;
                            out.push(c);
                            at = next;
                            continue;
                        }
                        _ => return None,
                    };
                    out.push(c);
                    at += 2;
                }
                0..=0x1f => return None,
                _ => {
                    let run = plain_run(&bytes[at..]);
                    out.push_str(self.text.get(at..at + run)?);
                    at += run;
                }
            }
        }
    }

    /// A number: whole numbers that fit an `i64` keep their value, as
    /// `serde_json` reads them (`-0` is not whole there); others only need
    /// to be well-formed and far from the range `serde_json` refuses.
    fn number(&mut self) -> Option<J<'a>> {
        let bytes = self.text.as_bytes();
        let digits = |mut at: usize| {
            while let Some(b'0'..=b'9') = bytes.get(at) {
                at += 1;
            }
            at
        };
        let negative = bytes[self.at] == b'-';
        let first = self.at + usize::from(negative);
        let mut at = match bytes.get(first)? {
            b'0' => first + 1,
            b'1'..=b'9' => digits(first + 1),
            _ => return None,
        };
        let whole_digits = at - first;
        let mut whole = true;
        if bytes.get(at) == Some(&b'.') {
            let end = digits(at + 1);
            if end == at + 1 || end - at > 200 {
                return None;
            }
            (at, whole) = (end, false);
        }
        let mut exponent = 0i64;
        if let Some(b'e' | b'E') = bytes.get(at) {
            at += 1;
            let sign = match bytes.get(at) {
                Some(b'-') => -1,
                Some(b'+') => 1,
                _ => 0,
            };
            let from = at + usize::from(sign != 0);
            let end = digits(from);
            if end == from || end - from > 4 {
                return None;
            }
            let value: i64 = self.text.get(from..end)?.parse().ok()?;
            (at, whole, exponent) = (end, false, if sign < 0 { -value } else { value });
        }
        if whole {
            // Up to 19 digits fit a u64; longer ones are left to serde_json.
            if whole_digits > 19 {
                return None;
            }
            let magnitude: u64 = self.text.get(first..at)?.parse().ok()?;
            self.at = at;
            let int = if negative {
                // serde_json reads `-0` and what is below i64::MIN as floats.
                Some((magnitude as i64).wrapping_neg()).filter(|n| *n < 0)
            } else {
                i64::try_from(magnitude).ok()
            };
            return Some(J::Num { int });
        }
        // Far inside the range of an f64 either way.
        let scale = whole_digits as i64 + exponent;
        if !(-300..=300).contains(&scale) {
            return None;
        }
        self.at = at;
        Some(J::Num { int: None })
    }
}

/// The character of the `\u` escape whose hex digits start at `at` (with
/// the low half that must follow a high surrogate), and where the escape
/// ends; `None` for a lone or reversed surrogate or bad digits.
fn unicode(bytes: &[u8], at: usize) -> Option<(char, usize)> {
    let high = hex4(bytes.get(at..at + 4)?)?;
    match high {
        0xD800..=0xDBFF => {
            if bytes.get(at + 4..at + 6)? != b"\\u" {
                return None;
            }
            let low = hex4(bytes.get(at + 6..at + 10)?)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return None;
            }
            let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
            Some((char::from_u32(c)?, at + 10))
        }
        0xDC00..=0xDFFF => None,
        _ => Some((char::from_u32(high)?, at + 4)),
    }
}

fn hex4(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |n, &d| {
        let v = (d as char).to_digit(16)?;
        Some(n * 16 + v)
    })
}

/// How many bytes from the start of `bytes` need no attention inside a
/// string: up to the first quote, backslash or control character.
fn plain_run(bytes: &[u8]) -> usize {
    use crate::core::bytes::{first_below, first_equal, run_until};
    run_until(
        bytes,
        |w| first_equal(w, b'"') | first_equal(w, b'\\') | first_below(w, 0x20),
        |b| matches!(b, b'"' | b'\\' | 0..=0x1f),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the serde_json reader makes of `text`, as the direct reader
    /// must (or give it up).
    fn reference<'a>(text: &'a str, arena: &'a Bump) -> Option<J<'a>> {
        J::parse_with_serde(text, arena).ok()
    }

    fn agrees(text: &str) -> Option<bool> {
        let (a, b) = (Bump::new(), Bump::new());
        let fast = parse(text, &a);
        let slow = reference(text, &b);
        match (fast, slow) {
            (Some(f), Some(s)) => Some(f == s),
            (Some(_), None) => Some(false),
            (None, _) => None,
        }
    }

    #[test]
    fn reads_what_serde_json_reads() {
        for text in [
            r#"{"fn":"say","args":{"text":"Hi \"there\" \u00e9 \ud83d\ude00 \/ \b\f\n\r\t"}}"#,
            r#" { "a" : [ 1 , -2 , 3.5 , -0 , 0 , 1e5 , 2E-3 , -0.0e+7 ] , "a" : null } "#,
            r#"[true,false,null,"",{},[],[{}],"ünïcödé ✓",9223372036854775807,-9223372036854775808]"#,
            r#"[9223372036854775808,-9223372036854775809,1234567890123456789]"#,
            "\"\\u0000\"",
            "0",
            "\"plain string longer than eight bytes with ✓ inside it\"",
        ] {
            assert_eq!(agrees(text), Some(true), "{text}");
        }
    }

    #[test]
    fn gives_up_on_whatever_serde_json_refuses_or_might() {
        for text in [
            "",
            " ",
            "{",
            "}",
            "[1,]",
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{a:1}"#,
            "01",
            "-",
            "1.",
            ".5",
            "1e",
            "1e+",
            "+1",
            "tru",
            "truex",
            "nul",
            "[1 2]",
            "\"abc",
            "\"a\tb\"",
            "\"\\x\"",
            "\"\\ud800\"",
            "\"\\udc00\\ud800\"",
            "\"\\ud800\\u0041\"",
            "\"\\u12\"",
            "1e400",
            "123456789012345678901234567890",
            "1 2",
            "{}x",
            "[\"a\"]]",
        ] {
            let arena = Bump::new();
            assert!(parse(text, &arena).is_none(), "{text:?}");
        }
        // Nesting deeper than the direct reader goes is left to serde_json.
        let deep = format!("{}{}", "[".repeat(101), "]".repeat(101));
        assert!(parse(&deep, &Bump::new()).is_none());
        let fine = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert_eq!(agrees(&fine), Some(true));
    }

    #[test]
    fn a_plain_run_stops_at_the_first_byte_that_needs_attention() {
        for (text, want) in [
            ("", 0),
            ("abcdefgh", 8),
            ("abcdefghij\"", 10),
            ("ab\\cdefghij\"", 2),
            ("abcdefg\u{1}", 7),
            ("\u{7f}\u{80}ü✓ abc\"", 12),
            ("       \"\"", 7),
        ] {
            assert_eq!(plain_run(text.as_bytes()), want, "{text:?}");
        }
    }

    /// JSON texts with the pieces the readers could disagree on.
    fn json() -> impl Strategy<Value = String> {
        let atom = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            Just("false".to_string()),
            "-?(0|[1-9][0-9]{0,21})(\\.[0-9]{1,5})?([eE][+-]?[0-9]{1,3})?",
            // Strings with escapes, controls and characters of any width.
            "\"([a-z ✓ü/]|\\\\[\"\\\\/bfnrtx]|\\\\u[0-9a-fA-F]{4}|\\\\ud83d\\\\ude00|\\\\ud800|\u{1}){0,12}\"",
        ];
        atom.prop_recursive(6, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec(("\"[a-c\\\\]{0,3}\"", inner), 0..5).prop_map(|v| {
                    let pairs: Vec<String> = v.iter().map(|(k, v)| format!("{k}:{v}")).collect();
                    format!("{{{}}}", pairs.join(","))
                }),
            ]
        })
    }

    /// Does `text` hold what the direct reader leaves to serde_json even
    /// when well-formed (or what looks like it: this errs on the safe side)?
    fn left_to_serde(text: &str) -> bool {
        let b = text.as_bytes();
        let digits_from = |i: usize| b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        text.contains("\\ud8")
            || (0..b.len()).any(|i| {
                digits_from(i) >= 19
                    || (matches!(b[i], b'e' | b'E')
                        && digits_from(
                            i + 1 + usize::from(matches!(b.get(i + 1), Some(b'+' | b'-'))),
                        ) >= 3)
            })
    }

    proptest! {
        #[test]
        fn never_reads_a_text_otherwise_than_serde_json(
            text in json(),
            spaced in any::<bool>(),
            cut in any::<prop::sample::Index>(),
            noise in any::<u8>(),
        ) {
            // As written, spaced out, cut short, or with a byte changed.
            let spaced_text = if spaced { text.replace(',', " ,\n ").replace(':', "\t: ") } else { text.clone() };
            let mut bytes = spaced_text.clone().into_bytes();
            let at = cut.index(bytes.len().max(1));
            if let Some(b) = bytes.get_mut(at) {
                *b = noise & 0x7f;
            }
            let changed = String::from_utf8(bytes).unwrap_or_default();
            let short = spaced_text.get(..at).unwrap_or_default();
            for t in [spaced_text.as_str(), changed.as_str(), short] {
                prop_assert_ne!(agrees(t), Some(false), "{:?}", t);
            }
            // Well-formed texts are read directly, but for those left to
            // serde_json on purpose: surrogates, long numbers, large
            // exponents.
            let arena = Bump::new();
            if reference(&spaced_text, &arena).is_some() && !left_to_serde(&spaced_text) {
                prop_assert!(parse(&spaced_text, &Bump::new()).is_some(), "{:?}", spaced_text);
            }
        }
    }
}
