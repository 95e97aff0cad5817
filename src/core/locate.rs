//! Finds the bytes of the value at a [`Path`] inside JSON text.
//!
//! Records are parsed with serde_json, which keeps no positions. Findings
//! are rare, so instead of tracking a span for every value while parsing,
//! the value a finding points at is found again here, by scanning only the
//! record it is in. The scanner is iterative (no recursion, so any nesting
//! depth is safe) and gives up quietly on text that is not JSON.

use crate::core::span::{Path, Seg, Span};

/// The span of the value at `path` in `text`, relative to `text`; for a
/// path that is not there, the span of its deepest ancestor that is. A
/// [`Seg::Json`] step goes into the JSON text a string holds: the value
/// found there is mapped back onto the escaped bytes of the string (a text
/// value without its quotes, so the underline covers the words).
pub fn locate(text: &[u8], path: &Path) -> Span {
    locate_segs(text, &path.segs())
}

fn locate_segs(text: &[u8], segs: &[Seg]) -> Span {
    let start = skip_ws(text, 0);
    let whole = || value_span(text, start).unwrap_or(Span::new(0, text.len()));
    // A member or element is looked for from the value's start, whose end
    // bounds nothing the search does not stop at: the whole value is
    // scanned for its end only when it is the answer.
    let root = Span::new(start, text.len());
    let mut cur = match segs.first() {
        Some(Seg::Key(_) | Seg::Index(_)) if matches!(text.get(start), Some(b'{' | b'[')) => root,
        _ => match value_span(text, start) {
            Some(s) => s,
            None => return Span::new(0, text.len()),
        },
    };
    for (k, seg) in segs.iter().enumerate() {
        let next = match seg {
            Seg::Key(k) => member(text, cur, k.as_bytes()),
            Seg::Index(i) => element(text, cur, *i as usize),
            Seg::Json => return into_string(text, cur, &segs[k + 1..]).unwrap_or(cur),
        };
        match next {
            Some(s) => cur = s,
            None => break,
        }
    }
    if cur == root {
        whole()
    } else {
        cur
    }
}

/// The bytes of `text` the value at `rest` inside the JSON text held by
/// the string literal at `lit` comes from. `None` when `lit` is no string.
fn into_string(text: &[u8], lit: Span, rest: &[Seg]) -> Option<Span> {
    if text.get(lit.start) != Some(&b'"') || lit.len() < 2 {
        return None;
    }
    let raw = Span::new(lit.start + 1, lit.end - 1);
    let (inner, map) = unescape(&text[raw.start..raw.end]);
    if rest.is_empty() {
        return Some(raw);
    }
    // A string that holds no JSON object or list: point at the string.
    if !matches!(inner.get(skip_ws(&inner, 0)), Some(b'{' | b'[')) {
        return None;
    }
    let mut at = locate_segs(&inner, rest);
    // A text value is shown without its (escaped) quotes.
    let deepest = !rest.contains(&Seg::Json);
    if deepest && at.len() >= 2 && inner[at.start] == b'"' && inner[at.end - 1] == b'"' {
        at = Span::new(at.start + 1, at.end - 1);
    }
    let start = *map.get(at.start)?;
    let end = *map.get(at.end)?;
    Some(Span::new(raw.start + start, raw.start + end.max(start)))
}

/// The characters of a JSON string's escaped bytes (between its quotes),
/// with, for each byte of the result and one past its end, the offset in
/// `raw` of the escape or byte it came from. Never fails: a broken escape
/// is kept as it is written.
fn unescape(raw: &[u8]) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::with_capacity(raw.len());
    let mut map = Vec::with_capacity(raw.len() + 1);
    let mut i = 0;
    let hex = |at: usize| -> Option<u32> {
        let h = raw.get(at..at + 4)?;
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    while i < raw.len() {
        let (bytes, len): (Vec<u8>, usize) = if raw[i] != b'\\' {
            (vec![raw[i]], 1)
        } else {
            match raw.get(i + 1) {
                Some(b'n') => (vec![b'\n'], 2),
                Some(b't') => (vec![b'\t'], 2),
                Some(b'r') => (vec![b'\r'], 2),
                Some(b'b') => (vec![8], 2),
                Some(b'f') => (vec![12], 2),
                Some(b'u') => match hex(i + 2) {
                    Some(hi @ 0xD800..=0xDBFF) => {
                        let lo = (raw.get(i + 6..i + 8) == Some(b"\\u"))
                            .then(|| hex(i + 8))
                            .flatten()
                            .filter(|lo| (0xDC00..=0xDFFF).contains(lo));
                        match lo {
                            Some(lo) => {
                                let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                                (utf8(c), 12)
                            }
                            None => (utf8(0xFFFD), 6),
                        }
                    }
                    Some(c) => (utf8(c), 6),
                    None => (vec![b'\\'], 1),
                },
                Some(&c) => (vec![c], 2),
                None => (vec![b'\\'], 1),
            }
        };
        for b in bytes {
            out.push(b);
            map.push(i);
        }
        i += len;
    }
    map.push(raw.len());
    (out, map)
}

/// The UTF-8 bytes of a code point (U+FFFD for one that is no character).
fn utf8(c: u32) -> Vec<u8> {
    let c = char::from_u32(c).unwrap_or('\u{FFFD}');
    c.to_string().into_bytes()
}

pub(crate) fn skip_ws(t: &[u8], mut i: usize) -> usize {
    while i < t.len() && matches!(t[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// End of the string starting at `i` (which holds `"`), one past the quote.
fn string_end(t: &[u8], i: usize) -> Option<usize> {
    // Long texts are most of a log's bytes: skip to the next quote or
    // backslash a word at a time.
    let mut j = i + 1;
    loop {
        let k = j + memchr::memchr2(b'"', b'\\', t.get(j..)?)?;
        if t[k] == b'"' {
            return Some(k + 1);
        }
        j = k + 2;
    }
}

/// The span of the value starting at `i`.
pub(crate) fn value_span(t: &[u8], i: usize) -> Option<Span> {
    let c = *t.get(i)?;
    match c {
        b'"' => Some(Span::new(i, string_end(t, i)?)),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < t.len() {
                match t[j] {
                    b'"' => {
                        j = string_end(t, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(Span::new(i, j + 1));
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < t.len() && !matches!(t[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            (j > i).then_some(Span::new(i, j))
        }
    }
}

/// Compare a raw JSON key (between its quotes) with `want`.
fn key_eq(raw: &[u8], want: &[u8]) -> bool {
    if !raw.contains(&b'\\') {
        return raw == want;
    }
    let quoted = [b"\"", raw, b"\""].concat();
    serde_json::from_slice::<String>(&quoted).is_ok_and(|s| s.as_bytes() == want)
}

/// The value of member `key` of the object at `obj`; the last one wins, as
/// in serde_json.
fn member(t: &[u8], obj: Span, key: &[u8]) -> Option<Span> {
    if t.get(obj.start) != Some(&b'{') {
        return None;
    }
    let mut found = None;
    let mut i = skip_ws(t, obj.start + 1);
    while i < obj.end && t[i] == b'"' {
        let kend = string_end(t, i)?;
        let raw = &t[i + 1..kend - 1];
        i = skip_ws(t, kend);
        if t.get(i) != Some(&b':') {
            return found;
        }
        i = skip_ws(t, i + 1);
        let v = value_span(t, i)?;
        if key_eq(raw, key) {
            found = Some(v);
        }
        i = skip_ws(t, v.end);
        if t.get(i) == Some(&b',') {
            i = skip_ws(t, i + 1);
        } else {
            break;
        }
    }
    found
}

/// Element `n` of the array at `arr`.
fn element(t: &[u8], arr: Span, n: usize) -> Option<Span> {
    if t.get(arr.start) != Some(&b'[') {
        return None;
    }
    let mut i = skip_ws(t, arr.start + 1);
    let mut k = 0;
    while i < arr.end && t[i] != b']' {
        let v = value_span(t, i)?;
        if k == n {
            return Some(v);
        }
        k += 1;
        i = skip_ws(t, v.end);
        if t.get(i) == Some(&b',') {
            i = skip_ws(t, i + 1);
        } else {
            break;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: &str, p: Path) -> &str {
        let s = locate(t.as_bytes(), &p);
        &t[s.start..s.end]
    }

    #[test]
    fn finds_nested_values() {
        let t = r#"{"fn":"status","args":{"open":["a, b", "6 Entscheidungen"],"emoji":""}}"#;
        let args = Path::ROOT.key("args");
        assert_eq!(at(t, args.key("open").index(1)), "\"6 Entscheidungen\"");
        assert_eq!(at(t, args.key("emoji")), "\"\"");
        assert_eq!(at(t, Path::ROOT.key("fn")), "\"status\"");
    }

    #[test]
    fn falls_back_to_the_deepest_ancestor() {
        let t = r#"{"args":{"text":"x"}}"#;
        assert_eq!(
            at(t, Path::ROOT.key("args").key("label")),
            r#"{"text":"x"}"#
        );
        assert_eq!(at(t, Path::ROOT.key("nope")), t);
    }

    #[test]
    fn escapes_whitespace_and_duplicate_keys() {
        let t = "{ \"a\\\"b\" : [ 1 , {\"t\":\"q\\\"}\"} ] , \"k\":1, \"k\" : 2 }";
        assert_eq!(at(t, Path::ROOT.key("k")), "2");
        let s = locate(t.as_bytes(), &Path::ROOT.key("a\"b").index(1).key("t"));
        assert_eq!(&t[s.start..s.end], "\"q\\\"}\"");
    }

    #[test]
    fn a_missing_member_points_at_the_value_not_what_follows_it() {
        let long = "x\\\"y".repeat(50);
        let t = format!(" {{\"a\":\"{long}\",\"b\":[1, 2]}}\n  ");
        assert_eq!(at(&t, Path::ROOT.key("nope")), t.trim());
        assert_eq!(at(&t, Path::ROOT.key("b").index(5)), "[1, 2]");
        assert_eq!(at(&t, Path::ROOT.key("b").index(1)), "2");
        assert_eq!(at(&t, Path::ROOT.index(0)), t.trim());
        // A string cut off before its quote: no end, so the whole text.
        let cut = "{\"a\":\"abc\\\"";
        assert_eq!(at(cut, Path::ROOT.key("a")), cut);
    }

    #[test]
    fn goes_into_json_held_by_a_string() {
        // a call's arguments as a JSON string, an answer encoded twice
        let t = r#"{"arguments":"{\"text\":\"Gr\u00fc\u00df dich, \\\"Oliver\\\"\"}","n":1}"#;
        let p = Path::ROOT.key("arguments").json().key("text");
        assert_eq!(at(t, p), r#"Gr\u00fc\u00df dich, \\\"Oliver\\\""#);
        let t = r#"{"output":"[{\"type\":\"text\",\"text\":\"{\\\"say_id\\\":\\\"s1\\\"}\"}]"}"#;
        let p = Path::ROOT
            .key("output")
            .json()
            .index(0)
            .key("text")
            .json()
            .key("say_id");
        assert_eq!(at(t, p), "s1");
        // a string that holds no JSON, or a number, is the place itself
        let t = r#"{"output":"not json","n":5}"#;
        assert_eq!(
            at(t, Path::ROOT.key("output").json().key("x")),
            "\"not json\""
        );
        assert_eq!(at(t, Path::ROOT.key("n").json().key("x")), "5");
        assert_eq!(at(t, Path::ROOT.key("output").json()), "not json");
        for bad in [
            r#"{"a":"\u12"}"#,
            r#"{"a":"\ud800\u"}"#,
            r#"{"a":"\"}"#,
            r#"{"a":""}"#,
        ] {
            let _ = locate(bad.as_bytes(), &Path::ROOT.key("a").json().key("b"));
        }
    }

    #[test]
    fn survives_garbage() {
        for t in ["", "{", "[[[[", "{\"a\":", "\"unterminated", "{\"a\" 1}"] {
            let _ = locate(t.as_bytes(), &Path::ROOT.key("a").index(3));
        }
    }
}
