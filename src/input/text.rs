//! The text of a file, settled once for every reader: its encoding and its
//! line ends.
//!
//! - A byte order mark of UTF-16 or UTF-32 (little or big endian) says
//!   how the file is written: it is decoded to UTF-8.
//! - UTF-8 (with or without its byte order mark) is read as it is.
//! - Text that is not UTF-8 (and is no JSON, which is UTF-8 by its
//!   standard, and no binary file) is in a legacy encoding: which one is
//!   guessed from its bytes (`chardetng`, as Firefox guesses a page
//!   without a label) and it is decoded from it (`encoding_rs`); the
//!   reader says once which encoding it read the file as. A UTF-8 file
//!   with a few broken bytes among its UTF-8 characters stays UTF-8: its
//!   readers say where the broken bytes are.
//! - A bare carriage return ends a line, as a line feed and CR LF do: it
//!   becomes a line feed, a byte for a byte, so that every reader splits
//!   lines alike and every offset into UTF-8 text stays an offset into
//!   the file as written.
//!
//! The result is a pure function of the bytes: whoever shows findings
//! decodes a file again the same way ([`super::packed::read`]).

use std::borrow::Cow;

/// A file's text as its readers see it.
pub struct Decoded<'a> {
    /// UTF-8 text (or the bytes as given, when they are neither text in
    /// an encoding told nor in one guessed).
    pub bytes: Cow<'a, [u8]>,
    /// The legacy encoding the text was guessed to be in and decoded from
    /// (`windows-1252`, `Shift_JIS`, ...).
    pub guessed: Option<&'static str>,
    /// The encoding the text was decoded from, when it was not UTF-8: the
    /// one its byte order mark names, or the one guessed.
    pub from: Option<&'static str>,
}

/// How much of a file is looked at to tell binary from text.
const LOOK: usize = 8 * 1024;

/// The text of `bytes` (module documentation).
pub fn decode(bytes: &[u8]) -> Decoded<'_> {
    if let Some((from, text)) = by_bom(bytes) {
        return Decoded {
            bytes: Cow::Owned(bare_cr_to_lf(text.into_bytes())),
            guessed: None,
            from: Some(from),
        };
    }
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    if matches!(first, Some(b'{' | b'[')) {
        // JSON and JSON lines: UTF-8 by their standard; a broken byte is
        // its line's problem.
        return Decoded {
            bytes: Cow::Borrowed(bytes),
            guessed: None,
            from: None,
        };
    }
    let text = match is_utf8(bytes) {
        true => Cow::Borrowed(bytes),
        false if binary(bytes) || mostly_utf8(bytes) => Cow::Borrowed(bytes),
        false => {
            let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
            det.feed(bytes, true);
            let enc = det.guess(None, chardetng::Utf8Detection::Deny);
            let (text, _) = enc.decode_without_bom_handling(bytes);
            return Decoded {
                bytes: Cow::Owned(bare_cr_to_lf(text.into_owned().into_bytes())),
                guessed: Some(enc.name()),
                from: Some(enc.name()),
            };
        }
    };
    let bytes = if memchr::memchr(b'\r', &text).is_some() && has_bare_cr(&text) {
        Cow::Owned(bare_cr_to_lf(text.into_owned()))
    } else {
        text
    };
    Decoded {
        bytes,
        guessed: None,
        from: None,
    }
}

/// [`decode`] of bytes owned: the text, and the legacy encoding it was
/// guessed to be in, if it was.
pub fn decode_owned(bytes: Vec<u8>) -> (Vec<u8>, Option<&'static str>) {
    let d = decode(&bytes);
    match d.bytes {
        Cow::Borrowed(_) => (bytes, None),
        Cow::Owned(b) => (b, d.guessed),
    }
}

/// Whether `bytes` are UTF-8.
fn is_utf8(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok()
}

/// UTF-16 and UTF-32 told by their byte order mark, decoded (without it).
fn by_bom(b: &[u8]) -> Option<(&'static str, String)> {
    // UTF-32LE's mark begins with UTF-16LE's: it is looked for first.
    if let Some(rest) = b.strip_prefix(b"\xff\xfe\x00\x00") {
        return Some(("UTF-32LE", utf32(rest, u32::from_le_bytes)));
    }
    if let Some(rest) = b.strip_prefix(b"\x00\x00\xfe\xff") {
        return Some(("UTF-32BE", utf32(rest, u32::from_be_bytes)));
    }
    if let Some(rest) = b.strip_prefix(b"\xff\xfe") {
        let (t, _) = encoding_rs::UTF_16LE.decode_without_bom_handling(rest);
        return Some(("UTF-16LE", t.into_owned()));
    }
    if let Some(rest) = b.strip_prefix(b"\xfe\xff") {
        let (t, _) = encoding_rs::UTF_16BE.decode_without_bom_handling(rest);
        return Some(("UTF-16BE", t.into_owned()));
    }
    None
}

/// UTF-32 code units as text; a unit that is no character (and a last
/// one cut off) becomes U+FFFD, as `encoding_rs` does for UTF-16.
fn utf32(b: &[u8], unit: fn([u8; 4]) -> u32) -> String {
    let mut out = String::with_capacity(b.len() / 4);
    let mut chunks = b.chunks_exact(4);
    for c in &mut chunks {
        let u = unit([c[0], c[1], c[2], c[3]]);
        out.push(char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER));
    }
    if !chunks.remainder().is_empty() {
        out.push(char::REPLACEMENT_CHARACTER);
    }
    out
}

/// A binary file: a NUL byte among its first bytes, or a signature.
fn binary(b: &[u8]) -> bool {
    let head = &b[..b.len().min(LOOK)];
    memchr::memchr(0, head).is_some() || super::coverage::recognise_binary(head).is_some()
}

/// UTF-8 with a few broken bytes: more well-formed characters beyond
/// ASCII than broken sequences.
fn mostly_utf8(mut b: &[u8]) -> bool {
    let (mut good, mut bad) = (0usize, 0usize);
    loop {
        match std::str::from_utf8(b) {
            Ok(t) => {
                good += t.bytes().filter(|&c| c >= 0xc0).count();
                break;
            }
            Err(e) => {
                let ok = e.valid_up_to();
                good += b[..ok].iter().filter(|&&c| c >= 0xc0).count();
                bad += 1;
                let skip = e.error_len().unwrap_or(b.len() - ok);
                b = &b[ok + skip..];
            }
        }
    }
    good > bad
}

/// Whether a carriage return in `b` ends a line by itself (is not
/// followed by a line feed).
fn has_bare_cr(b: &[u8]) -> bool {
    memchr::memchr_iter(b'\r', b).any(|i| b.get(i + 1) != Some(&b'\n'))
}

/// Every carriage return not followed by a line feed made a line feed.
fn bare_cr_to_lf(mut b: Vec<u8>) -> Vec<u8> {
    for i in memchr::memchr_iter(b'\r', &b).collect::<Vec<_>>() {
        if b.get(i + 1) != Some(&b'\n') {
            b[i] = b'\n';
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(b: &[u8]) -> (String, Option<&'static str>) {
        let d = decode(b);
        (String::from_utf8(d.bytes.into_owned()).unwrap(), d.from)
    }

    #[test]
    fn line_ends() {
        let (t, from) = text(b"a\rb\r\nc\nd\r");
        assert_eq!(t, "a\nb\r\nc\nd\n");
        assert_eq!(from, None);
        // untouched when nothing is to be done
        assert!(matches!(decode(b"a\r\nb\n").bytes, Cow::Borrowed(_)));
    }

    #[test]
    fn byte_order_marks() {
        let s = "WEBVTT\r\rÄ: grün ✓\n";
        let le: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain(s.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xfe, 0xff]
            .into_iter()
            .chain(s.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        let le32: Vec<u8> = [0xff, 0xfe, 0, 0]
            .into_iter()
            .chain(s.chars().flat_map(|c| (c as u32).to_le_bytes()))
            .collect();
        let be32: Vec<u8> = [0, 0, 0xfe, 0xff]
            .into_iter()
            .chain(s.chars().flat_map(|c| (c as u32).to_be_bytes()))
            .collect();
        let want = "WEBVTT\n\nÄ: grün ✓\n";
        for (b, name) in [
            (le, "UTF-16LE"),
            (be, "UTF-16BE"),
            (le32, "UTF-32LE"),
            (be32, "UTF-32BE"),
        ] {
            assert_eq!(text(&b), (want.to_string(), Some(name)));
        }
        // a cut-off last unit is a replacement character, no panic
        assert_eq!(text(b"\xff\xfe\x00\x00A\x00\x00\x00B").0, "A\u{fffd}");
    }

    #[test]
    fn legacy_encodings_are_guessed() {
        let cp1252 = b"1\r\n00:00:01,000 --> 00:00:02,000\r\nRen\xe9e: \xc7a va tr\xe8s bien, merci.\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nZo\xeb: Tr\xe8s bien, \xe0 demain.\r\n";
        let d = decode(cp1252);
        assert_eq!(d.guessed, Some("windows-1252"));
        let t = String::from_utf8(d.bytes.into_owned()).unwrap();
        assert!(t.contains("Renée: Ça va très bien"), "{t}");
        // UTF-8 with one broken byte stays UTF-8
        let mut utf8 = "Zoë: schön grün \u{2713}\n".as_bytes().to_vec();
        utf8.push(0xff);
        let d = decode(&utf8);
        assert_eq!(d.guessed, None);
        assert_eq!(&d.bytes[..], &utf8[..]);
        // JSON and binary files are left alone
        assert!(decode(b"{\"a\":\"\xe9\"}").from.is_none());
        assert!(decode(b"\x89PNG\r\n\x1a\n\xe9\xe9").from.is_none());
        assert!(decode(b"ab\0\xe9\xe9").from.is_none());
    }
}
