//! Byte classes tested eight bytes at a time: scans over texts that stop
//! at the first byte of a class (a quote, a control character, the end of
//! a sentence). Each test sets the high bit of the bytes of a word in its
//! class. [`below`] and [`non_ascii`] set exactly those, so they combine
//! with `&` too; the cheaper `first_` tests may also set bytes after the
//! first one of their class (a borrow out of it can flag the byte above),
//! so they combine only with `|`, whose first set bit is still the first
//! byte of any of the classes.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The ASCII bytes of `w` below `n` (at most 0x80). No carry crosses a
/// byte: a byte's low seven bits plus `0x80 - n` reach its high bit just
/// when they are `n` or more, and stay within it.
pub fn below(w: u64, n: u8) -> u64 {
    !(((w & !HIGH) + ONES * u64::from(0x80 - n.min(0x80))) | w) & HIGH
}

/// The first byte of `w` equal to `b`, and maybe some after it.
pub fn first_equal(w: u64, b: u8) -> u64 {
    first_zero(w ^ (ONES * u64::from(b)))
}

/// The first byte of `w` below `n` (at most 0x80), and maybe some after it.
pub fn first_below(w: u64, n: u8) -> u64 {
    w.wrapping_sub(ONES * u64::from(n.min(0x80))) & !w & HIGH
}

fn first_zero(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGH
}

/// The bytes of `w` that are not ASCII.
pub fn non_ascii(w: u64) -> u64 {
    w & HIGH
}

/// How many bytes from the start of `bytes` come before the first that
/// `stop` holds for. `flags` tests eight of them (a little-endian word) at
/// once and must flag exactly the bytes `stop` holds for; `stop` tests the
/// last few, fewer than eight.
pub fn run_until(bytes: &[u8], flags: impl Fn(u64) -> u64, stop: impl Fn(u8) -> bool) -> usize {
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let found = flags(w);
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    let rest = chunks.remainder();
    at + rest.iter().position(|&b| stop(b)).unwrap_or(rest.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each test flags the bytes it names (a `first_` test the first of
    /// them), at every place of a word and whatever the bytes beside it
    /// are.
    #[test]
    fn each_test_flags_exactly_its_bytes() {
        for b in 0..=255u8 {
            for fill in [0u8, 0x09, 0x20, 0x41, 0x7f, 0x80, 0xff] {
                for at in 0..8 {
                    let mut bytes = [fill; 8];
                    bytes[at] = b;
                    let w = u64::from_le_bytes(bytes);
                    let expect = |test: &dyn Fn(u8) -> bool| {
                        bytes
                            .iter()
                            .enumerate()
                            .fold(0u64, |m, (i, &x)| m | (u64::from(test(x)) << (8 * i + 7)))
                    };
                    assert_eq!(below(w, 0x20), expect(&|x| x < 0x20), "{bytes:?}");
                    assert_eq!(below(w, 0x0A), expect(&|x| x < 0x0A), "{bytes:?}");
                    assert_eq!(non_ascii(w), expect(&|x| x >= 0x80), "{bytes:?}");
                    // The first byte of the class exactly, none before it.
                    let first = |m: u64| m.trailing_zeros();
                    let quote = expect(&|x| x == b'"');
                    assert_eq!(first(first_equal(w, b'"')), first(quote), "{bytes:?}");
                    let control = expect(&|x| x < 0x20);
                    assert_eq!(first(first_below(w, 0x20)), first(control), "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn a_run_ends_at_the_first_byte_that_stops_it() {
        let quote = |w| first_equal(w, b'"');
        let is_quote = |b| b == b'"';
        for (text, want) in [
            ("", 0),
            ("abcdefgh", 8),
            ("abcdefghij\"", 10),
            ("ab\"cdefghij\"", 2),
            ("       \"\"", 7),
        ] {
            assert_eq!(
                run_until(text.as_bytes(), quote, is_quote),
                want,
                "{text:?}"
            );
        }
    }
}
