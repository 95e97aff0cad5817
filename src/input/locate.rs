//! Finds the bytes of the value at a [`Path`] inside JSON text.
//!
//! Records are parsed with serde_json, which keeps no positions. Findings
//! are rare, so instead of tracking a span for every value while parsing,
//! the value a finding points at is found again here, by scanning only the
//! record it is in. The scanner is iterative (no recursion, so any nesting
//! depth is safe) and gives up quietly on text that is not JSON.

use crate::model::{Path, Seg, Span};

/// The span of the value at `path` in `text`, relative to `text`; for a
/// path that is not there, the span of its deepest ancestor that is.
pub fn locate(text: &[u8], path: &Path) -> Span {
    let mut cur = match value_span(text, skip_ws(text, 0)) {
        Some(s) => s,
        None => return Span::new(0, text.len()),
    };
    for seg in path.segs().iter() {
        let next = match seg {
            Seg::Key(k) => member(text, cur, k.as_bytes()),
            Seg::Index(i) => element(text, cur, *i as usize),
        };
        match next {
            Some(s) => cur = s,
            None => break,
        }
    }
    cur
}

pub(crate) fn skip_ws(t: &[u8], mut i: usize) -> usize {
    while i < t.len() && matches!(t[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// End of the string starting at `i` (which holds `"`), one past the quote.
fn string_end(t: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < t.len() {
        match t[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
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
    fn survives_garbage() {
        for t in ["", "{", "[[[[", "{\"a\":", "\"unterminated", "{\"a\" 1}"] {
            let _ = locate(t.as_bytes(), &Path::ROOT.key("a").index(3));
        }
    }
}
