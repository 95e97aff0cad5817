//! JSON with comments in a client's settings (Gemini CLI reads its
//! `settings.json` with `//` and `/* */` comments), read and edited so
//! that the comments stay.
//!
//! The text is read with its comments made blanks ([`blank`]: each byte of
//! a comment a space, its line breaks kept), so that every value is where
//! it was. An edit then writes again only the objects and lists it
//! changes, member by member: a member it keeps is copied as it was
//! written, with the comments and blank lines before it, and only a new
//! member or value is written afresh ([`rewrite`]).

use crate::core::locate::{skip_ws, value_span};
use crate::model::Span;

use super::install::Json;

/// `text` with each of its comments made spaces (line breaks kept), when
/// it has any; `None` for plain JSON. Offsets stay those of `text`.
pub fn blank(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut found = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                found = true;
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                found = true;
                let end = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len(), |k| i + 2 + k + 2);
                for c in &mut out[i..end] {
                    if !matches!(*c, b'\n' | b'\r') {
                        *c = b' ';
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes of comments were touched, each made a space, and
    // every byte of a comment was: the text is still UTF-8.
    found.then(|| String::from_utf8(out).unwrap_or_default())
}

/// `text` (whose comments are blanks in `blanked`, [`blank`]) with its
/// value `old` made `new`: only the objects and lists that change are
/// written again, keeping what is between their members.
pub fn rewrite(text: &str, blanked: &str, old: &Json, new: &Json) -> String {
    let t = blanked.as_bytes();
    let start = skip_ws(t, crate::input::bom_len(t));
    let Some(at) = value_span(t, start) else {
        let mut s = String::new();
        new.write(&mut s, 0);
        return s;
    };
    let mut out = String::with_capacity(text.len() + 256);
    out.push_str(&text[..at.start]);
    out.push_str(&value(text, t, at, old, new));
    out.push_str(&text[at.end..]);
    out
}

/// The text of the value at `at` (which was `old`) as `new`.
fn value(text: &str, t: &[u8], at: Span, old: &Json, new: &Json) -> String {
    if old == new {
        return text[at.start..at.end].to_string();
    }
    match (old, new) {
        (Json::Obj(a), Json::Obj(b)) => {
            let parts = members(t, at);
            if parts.len() == a.len() {
                // Members kept in order, those taken out passed over, new
                // ones where they come in `b`.
                let mut i = 0;
                let mut plan: Vec<Piece<'_>> = Vec::new();
                for (k, v) in b {
                    match (i..a.len()).find(|&p| a[p].0 == *k) {
                        Some(p) => {
                            plan.push(Piece::Kept(p, &a[p].1, v));
                            i = p + 1;
                        }
                        None => plan.push(Piece::New(Some(k), v)),
                    }
                }
                return container(text, t, at, &parts, &plan);
            }
        }
        (Json::Arr(a), Json::Arr(b)) => {
            let parts = elements(t, at);
            if parts.len() == a.len() {
                let mut plan: Vec<Piece<'_>> = Vec::new();
                let mut i = 0;
                let spare = a.len().saturating_sub(b.len());
                for v in b {
                    // The same element further on (others were taken out
                    // before it), else the next one, changed.
                    let same = (i..a.len().min(i + spare + 1)).find(|&p| a[p] == *v);
                    match same.or((i < a.len()).then_some(i)) {
                        Some(p) => {
                            plan.push(Piece::Kept(p, &a[p], v));
                            i = p + 1;
                        }
                        None => plan.push(Piece::New(None, v)),
                    }
                }
                return container(text, t, at, &parts, &plan);
            }
        }
        _ => {}
    }
    let mut s = String::new();
    new.write(&mut s, level(text, at.start));
    s
}

/// A member (or element) of a container written again.
enum Piece<'a> {
    /// Member `p` of the old container, which was the first value and is
    /// now the second.
    Kept(usize, &'a Json, &'a Json),
    /// A new member (with its key) or element.
    New(Option<&'a String>, &'a Json),
}

/// A member of an object or list as written: where its text starts (after
/// the comma before it, so with the comments and blank lines before it),
/// where its key (or value) starts, and its value.
#[derive(Clone, Copy)]
struct Part {
    from: usize,
    key: usize,
    value: Span,
}

/// The container at `at` written again from `plan`.
fn container(text: &str, t: &[u8], at: Span, parts: &[Part], plan: &[Piece<'_>]) -> String {
    let (open, close) = (&text[at.start..=at.start], &text[at.end - 1..at.end]);
    let inner_end = at.end - 1;
    // The indentation of a new member: that of the members there, else
    // one level in from the container's line.
    let indent = match parts.last() {
        Some(p) => line_indent(text, p.key),
        None => format!("{}  ", line_indent(text, at.start)),
    };
    let level = indent.len() / 2;
    // What follows the last member (blank lines, comments) up to the close.
    let tail_from = parts.last().map_or(at.start + 1, |p| p.value.end);
    let mut tail = &text[tail_from..inner_end];
    // A comma that followed the old last member (never in JSON proper).
    if let Some(rest) = tail.trim_start().strip_prefix(',') {
        tail = rest;
    }
    // A comment on the old last member's line stays on it when members
    // follow it now (after the comma they need).
    let last_old = parts.len().checked_sub(1);
    let mut same_line = "";
    let mut out = String::from(open);
    for (n, piece) in plan.iter().enumerate() {
        if n > 0 {
            out.push(',');
            out.push_str(same_line);
            same_line = "";
        }
        if let (Piece::Kept(p, ..), Some(k)) = (piece, tail.find('\n')) {
            if Some(*p) == last_old && n + 1 < plan.len() && !tail[..k].trim().is_empty() {
                same_line = &tail[..k];
                tail = &tail[k..];
            }
        }
        // The comment on this member's line, after its comma, when the
        // member after it is taken out: it stays with this one.
        if let Piece::Kept(p, ..) = piece {
            let kept_next = plan
                .iter()
                .any(|q| matches!(q, Piece::Kept(r, ..) if *r == p + 1));
            if let Some(next) = parts.get(p + 1).filter(|_| !kept_next) {
                let lead = &text[next.from..next.key];
                let line = lead.find('\n').map_or("", |k| &lead[..k]);
                if !line.trim().is_empty() {
                    same_line = line;
                }
            }
        }
        match piece {
            Piece::Kept(p, was, now) => {
                let part = parts[*p];
                out.push_str(&text[part.from..part.value.start]);
                out.push_str(&value(text, t, part.value, was, now));
            }
            Piece::New(key, v) => {
                out.push('\n');
                out.push_str(&indent);
                if let Some(k) = key {
                    out.push_str(&serde_json::to_string(k).unwrap_or_default());
                    out.push_str(": ");
                }
                v.write(&mut out, level);
            }
        }
    }
    out.push_str(same_line);
    let new_last = matches!(plan.last(), Some(Piece::New(..)));
    if (new_last || parts.is_empty()) && !plan.is_empty() && !tail.contains('\n') {
        out.push_str(tail);
        out.push('\n');
        out.push_str(&line_indent(text, at.start));
    } else {
        out.push_str(tail);
    }
    out.push_str(close);
    out
}

/// The members of the object at `at` in `t` (comments blanked).
fn members(t: &[u8], at: Span) -> Vec<Part> {
    let mut out = Vec::new();
    let mut from = at.start + 1;
    loop {
        let i = skip_ws(t, from);
        if t.get(i) != Some(&b'"') {
            return out;
        }
        let Some(key) = value_span(t, i) else {
            return out;
        };
        let c = skip_ws(t, key.end);
        if t.get(c) != Some(&b':') {
            return out;
        }
        let Some(value) = value_span(t, skip_ws(t, c + 1)) else {
            return out;
        };
        out.push(Part {
            from,
            key: i,
            value,
        });
        let next = skip_ws(t, value.end);
        if t.get(next) != Some(&b',') || next >= at.end {
            return out;
        }
        from = next + 1;
    }
}

/// The elements of the list at `at` in `t` (comments blanked).
fn elements(t: &[u8], at: Span) -> Vec<Part> {
    let mut out = Vec::new();
    let mut from = at.start + 1;
    loop {
        let i = skip_ws(t, from);
        if i >= at.end - 1 {
            return out;
        }
        let Some(value) = value_span(t, i) else {
            return out;
        };
        out.push(Part {
            from,
            key: i,
            value,
        });
        let next = skip_ws(t, value.end);
        if t.get(next) != Some(&b',') || next >= at.end {
            return out;
        }
        from = next + 1;
    }
}

/// The blanks that start the line `at` is on.
fn line_indent(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |k| k + 1);
    text[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// The nesting level of a value written afresh at `at`: two spaces a
/// level, from its line's indentation.
fn level(text: &str, at: usize) -> usize {
    line_indent(text, at).len() / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_blanked_where_they_are() {
        let t = "{\n  // a note, with \"quotes\"\n  \"a\": \"//not/*a comment*/\", /* x\n y */ \"b\": 1\n}";
        let b = blank(t).unwrap();
        assert_eq!(b.len(), t.len());
        let v: serde_json::Value = serde_json::from_str(&b).unwrap();
        assert_eq!(v["a"], "//not/*a comment*/");
        assert_eq!(v["b"], 1);
        assert_eq!(b.matches('\n').count(), t.matches('\n').count());
        assert!(blank("{\"a\": \"// no\"}").is_none());
    }
}
