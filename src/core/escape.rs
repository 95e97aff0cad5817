//! Text from logs is untrusted: it may hold terminal escape sequences,
//! control characters or bidirectional overrides that would rewrite the
//! user's terminal or hide text. Everything from a log passes through here
//! before it is printed.

use std::borrow::Cow;
use std::fmt::Write;

/// True for characters that must not reach a terminal or page raw:
/// controls (C0 and C1, NEL among them) but tab and line feed, the
/// Unicode line and paragraph separators (which some terminals and
/// editors take for line breaks), and the bidirectional marks, embeddings,
/// overrides and isolates, which reorder the text around them.
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// The visible form of an unsafe character: `\e`, `\u{7}`, ...
pub fn escaped(c: char, out: &mut String) {
    match c {
        '\u{1b}' => out.push_str("\\e"),
        '\r' => out.push_str("\\r"),
        '\0' => out.push_str("\\0"),
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `s` with every unsafe character escaped (tabs and newlines kept).
pub fn terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            escaped(c, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` on one line: also newlines and tabs escaped.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe(c) => escaped(c, &mut out),
            c => out.push(c),
        }
    }
    out
}

/// A file name on one line, as [`one_line`] shows text, and a backslash
/// doubled, so that a name holding a backslash and an `n` and one holding
/// a line break are told apart. (On Windows a backslash separates folders
/// and a name holds no control character: there it stays as it is.)
pub fn file_name(s: &str) -> String {
    if cfg!(windows) || !s.contains('\\') {
        return one_line(s);
    }
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe(c) => escaped(c, &mut out),
            c => out.push(c),
        }
    }
    out
}

/// `s` cut to at most `max` characters, the last of them an ellipsis
/// when anything was left out (for a column of a table).
pub fn elide(s: &str, max: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max.saturating_sub(1)) {
        Some((at, _)) if s[at..].chars().nth(1).is_some() => Cow::Owned(format!("{}…", &s[..at])),
        _ => Cow::Borrowed(s),
    }
}

/// A log text for a message: quoted, on one line, cut after `max`
/// characters with an ellipsis. Escaping happens at output, not here, so a
/// JSON report keeps the text as it was.
pub fn quote(s: &str, max: usize) -> String {
    let mut out = String::from("\"");
    for (n, c) in s.chars().enumerate() {
        if n == max {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The most characters a finding's message, label or help keeps
/// ([`window`]): far more than any rule writes of its own, so only a text
/// that quotes a huge name or line from a log is ever cut.
pub const MAX_TEXT: usize = 480;

/// The most characters a finding keeps of a name it carries on its own
/// (its agent, its call id).
pub const MAX_NAME: usize = 120;

/// `s` cut to at most `max` characters: its start and its end, an
/// ellipsis between them, when it is longer (a message that quotes a
/// name of megabytes keeps what it says before and after the name). The
/// work is linear in `max`, not in the text, until the cut is made.
pub fn window(s: &mut String, max: usize) {
    let max = max.max(3);
    // Where the (max + 1)th character starts, if there is one.
    let Some((_, _)) = s.char_indices().nth(max) else {
        return;
    };
    let tail_chars = (max - 1) / 3;
    let head_chars = max - 1 - tail_chars;
    let head_end = s.char_indices().nth(head_chars).map_or(s.len(), |(i, _)| i);
    let tail_start = if tail_chars == 0 {
        s.len()
    } else {
        s.char_indices()
            .rev()
            .nth(tail_chars - 1)
            .map_or(head_end, |(i, _)| i.max(head_end))
    };
    let mut out = String::with_capacity(head_end + 3 + (s.len() - tail_start));
    out.push_str(&s[..head_end]);
    out.push('…');
    out.push_str(&s[tail_start..]);
    *s = out;
}

/// HTML-escape text (and escape unsafe characters visibly).
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if is_unsafe(c) => escaped(c, &mut out),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_terminal_controls() {
        assert_eq!(terminal("a\x1b]0;pwned\x07b"), "a\\e]0;pwned\\u{7}b");
        assert_eq!(terminal("ok\ttab\nnl"), "ok\ttab\nnl");
        assert_eq!(terminal("\u{202e}evil"), "\\u{202e}evil");
        assert!(matches!(terminal("plain"), Cow::Borrowed(_)));
        assert_eq!(one_line("a\nb\u{9b}"), "a\\nb\\u{9b}");
    }

    #[test]
    fn line_breaks_and_reordering_marks_are_escaped() {
        for c in [
            '\u{2028}', '\u{2029}', '\u{85}', '\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}',
            '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}',
            '\u{2069}',
        ] {
            let s = format!("a{c}b");
            let want = format!("a\\u{{{:x}}}b", c as u32);
            assert_eq!(terminal(&s), want);
            assert_eq!(one_line(&s), want);
            assert!(!html(&s).contains(c));
        }
        // Letters of right-to-left scripts are text, not controls.
        assert_eq!(terminal("שלום مرحبا"), "שלום مرحبا");
    }

    #[test]
    fn file_names_tell_a_backslash_from_a_line_break() {
        if cfg!(windows) {
            return;
        }
        let typed = file_name("a\\nb.jsonl");
        let real = file_name("a\nb.jsonl");
        assert_eq!(typed, "a\\\\nb.jsonl");
        assert_eq!(real, "a\\nb.jsonl");
        assert_ne!(typed, real);
        assert_eq!(file_name("logs/a b.jsonl"), "logs/a b.jsonl");
        assert_eq!(file_name("x\\\x1b"), "x\\\\\\e");
    }

    #[test]
    fn elides_to_a_width() {
        assert_eq!(elide("opencode", 8), "opencode");
        assert_eq!(elide("opencode", 9), "opencode");
        assert_eq!(elide("opencode", 5), "open…");
        assert_eq!(elide("äöüäöü", 3), "äö…");
        assert_eq!(elide(&"x".repeat(70_000), 32).chars().count(), 32);
        assert_eq!(elide("", 0), "");
    }

    #[test]
    fn quotes_and_cuts() {
        assert_eq!(quote("héllo", 3), "\"hél…\"");
        assert_eq!(quote("say \"hi\"", 20), "\"say \\\"hi\\\"\"");
    }

    #[test]
    fn windows_keep_both_ends() {
        let mut s = "short".to_string();
        window(&mut s, 10);
        assert_eq!(s, "short");
        let mut s = "0123456789".to_string();
        window(&mut s, 10);
        assert_eq!(s, "0123456789");
        let mut s = "0123456789A".to_string();
        window(&mut s, 10);
        assert_eq!(s, "012345…89A");
        let mut s = format!("repeats what {} just said", "ш".repeat(5_000_000));
        window(&mut s, MAX_TEXT);
        assert_eq!(s.chars().count(), MAX_TEXT);
        assert!(s.starts_with("repeats what шш"), "{s}");
        assert!(s.ends_with("шш just said"), "{s}");
        assert_eq!(s.matches('…').count(), 1);
    }

    #[test]
    fn html_text() {
        assert_eq!(
            html("<script>&'\"\x1b"),
            "&lt;script&gt;&amp;&#39;&quot;\\e"
        );
    }
}
