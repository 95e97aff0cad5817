//! The code actions: silence a finding where it is, in the input's own
//! inline-suppression form (`lint::suppress`), and add it to the baseline.
//!
//! A suppression is offered only when it is certain to work: the comment
//! is tried on a copy of the document, which is linted again, and offered
//! only when that lint finds exactly what it found before, less this one
//! finding (no `unused-suppression`, no comment that broke a board's JSON).

use lsp_types::{Position, Range, TextEdit};

use crate::input::{CodeLang, Format};
use crate::lint::engine::Linter;

use super::lint::Found;
use super::position::Places;

/// The comment forms a format's suppressions are written in, as a line of
/// their own: opener and closer.
fn forms(format: Format) -> &'static [(&'static str, &'static str)] {
    match format {
        Format::Prompt => &[("<!-- ", " -->"), ("# ", ""), ("// ", "")],
        Format::Code(CodeLang::JavaScript) => &[("// ", "")],
        Format::Code(CodeLang::Python | CodeLang::Shell) => &[("# ", "")],
        _ => &[],
    }
}

/// The edit that silences `f` in `text` (linted by `linter` as the file
/// `name`), if one is certain to.
pub fn suppression(linter: &Linter, name: &str, text: &str, f: &Found) -> Option<TextEdit> {
    let format = crate::input::detect(name, text.as_bytes());
    let forms = forms(format);
    if forms.is_empty() || !crate::lint::suppress::reads(format) {
        return None;
    }
    let places = Places::new(text.as_bytes());
    let line = f.range.start.line as usize;
    // Above the finding's line, or above the fence of the block it is in
    // (a comment inside a block of JSON would break it).
    let mut lines = vec![line];
    if let Some(fence) = opening_fence(&places, line) {
        lines.push(fence);
    }
    let before = summary(linter, name, text.as_bytes());
    let mut want = before.clone();
    let k = want
        .iter()
        .position(|(r, m)| *r == f.rule && *m == f.message)?;
    want.remove(k);
    for &at in &lines {
        let own = String::from_utf8_lossy(places.line_text(at)).into_owned();
        let indent: String = own.chars().take_while(|c| c.is_whitespace()).collect();
        for (open, close) in forms {
            let comment = format!("{indent}{open}callint: ignore[{}]{close}\n", f.rule);
            let offset = places.line_start(at);
            let mut edited = String::with_capacity(text.len() + comment.len());
            edited.push_str(&text[..offset]);
            edited.push_str(&comment);
            edited.push_str(&text[offset..]);
            if summary(linter, name, edited.as_bytes()) == want {
                let pos = Position::new(u32::try_from(at).ok()?, 0);
                return Some(TextEdit {
                    range: Range::new(pos, pos),
                    new_text: comment,
                });
            }
        }
    }
    None
}

/// The findings of a lint, by rule and message, in order.
fn summary(linter: &Linter, name: &str, bytes: &[u8]) -> Vec<(&'static str, String)> {
    linter
        .lint(name, bytes.to_vec())
        .diagnostics
        .into_iter()
        .map(|d| (d.rule, d.message))
        .collect()
}

/// The line that opens the fenced block holding line `line`, if any.
fn opening_fence(places: &Places<'_>, line: usize) -> Option<usize> {
    let mut open: Option<(u8, usize, usize)> = None;
    for k in 0..line {
        let t = String::from_utf8_lossy(places.line_text(k));
        let t = t.trim();
        match open {
            Some((ch, n, _)) if t.len() >= n && t.bytes().all(|b| b == ch) => open = None,
            Some(_) => {}
            None if t.starts_with("```") || t.starts_with("~~~") => {
                let ch = t.as_bytes()[0];
                open = Some((ch, t.bytes().take_while(|&b| b == ch).count(), k));
            }
            None => {}
        }
    }
    open.map(|(_, _, k)| k)
}
