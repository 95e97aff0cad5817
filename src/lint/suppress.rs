//! Inline suppressions in the inputs people edit: prompts and skills in
//! Markdown, and helper code.
//!
//! ```text
//! <!-- callint: ignore[board-bundle] the example shows the mistake -->
//! # callint: ignore[timeout-events-dropped] events are read by the caller
//! // callint: ignore[timeout-events-dropped] events are read by the caller
//! ```
//!
//! A comment alone on its line covers the next line that is neither blank
//! nor another suppression; when that line opens a fenced block, the whole
//! block up to its closing fence. A comment after code on a line covers
//! that line. Each names one or more rules, comma-separated, then why. A
//! named rule that suppressed nothing in a run where it was active is
//! reported as `unused-suppression`.

use crate::core::diagnostic::{Diagnostic, Label, Severity};
use crate::core::lines::{resolve, LineIndex};
use crate::input::{CodeLang, Format};
use crate::model::{Anchor, Span};

const MARK: &str = "callint:";

/// One `callint: ignore[...]` comment.
#[derive(Clone, Debug, PartialEq)]
pub struct Directive {
    /// Each named rule with the bytes of its name.
    pub rules: Named,
    /// The lines it covers (1-based, inclusive).
    pub first: usize,
    pub last: usize,
}

/// The comment openers a format's suppressions are written in.
fn openers(format: Format) -> &'static [&'static str] {
    match format {
        // A prompt's fenced blocks hold code of every kind.
        Format::Prompt => &["<!--", "#", "//"],
        Format::Code(CodeLang::JavaScript) => &["//"],
        Format::Code(CodeLang::Python | CodeLang::Shell) => &["#"],
        _ => &[],
    }
}

/// Whether suppressions are read in inputs of `format`.
pub fn reads(format: Format) -> bool {
    !openers(format).is_empty()
}

/// The rules a comment names, each with the bytes of its name.
type Named = Vec<(String, Span)>;

struct Line<'a> {
    start: usize,
    text: &'a str,
}

/// The directives of a file read as `format`.
pub fn directives(src: &[u8], format: Format) -> Vec<Directive> {
    let openers = openers(format);
    if openers.is_empty() || memchr::memmem::find(src, MARK.as_bytes()).is_none() {
        return Vec::new();
    }
    let mut lines = Vec::new();
    let mut start = 0;
    for piece in src.split(|&b| b == b'\n') {
        lines.push(Line {
            start,
            text: std::str::from_utf8(piece).unwrap_or(""),
        });
        start += piece.len() + 1;
    }
    let mut parsed: Vec<Option<(Named, bool)>> =
        lines.iter().map(|l| parse_line(l, openers)).collect();
    if format == Format::Prompt {
        // A comment shown as text is no directive: one inside inline code,
        // or in a fenced block of markdown (an example of a document).
        let mut open: Option<(u8, usize, bool)> = None;
        for (k, l) in lines.iter().enumerate() {
            let t = l.text.trim();
            if let Some((ch, n, md)) = open {
                if t.len() >= n && t.bytes().all(|b| b == ch) {
                    open = None;
                } else if md {
                    parsed[k] = None;
                }
                continue;
            }
            if t.starts_with("```") || t.starts_with("~~~") {
                let ch = t.as_bytes()[0];
                let n = t.bytes().take_while(|&b| b == ch).count();
                let tag = t[n..].trim().to_ascii_lowercase();
                open = Some((ch, n, matches!(tag.as_str(), "markdown" | "md")));
                continue;
            }
            if let Some(at) = l.text.find(MARK) {
                if l.text[..at].bytes().filter(|&b| b == b'`').count() % 2 == 1 {
                    parsed[k] = None;
                }
            }
        }
    }
    let fence = |t: &str| {
        let t = t.trim_start();
        (t.starts_with("```") || t.starts_with("~~~")).then(|| {
            let ch = t.as_bytes()[0];
            t.bytes().take_while(|&b| b == ch).count()
        })
    };
    let mut out = Vec::new();
    for (k, p) in parsed.iter().enumerate() {
        let Some((rules, alone)) = p else { continue };
        if !alone {
            out.push(Directive {
                rules: rules.clone(),
                first: k + 1,
                last: k + 1,
            });
            continue;
        }
        // The next line that is neither blank nor a suppression itself.
        let Some(next) = (k + 1..lines.len())
            .find(|&j| !lines[j].text.trim().is_empty() && !matches!(parsed[j], Some((_, true))))
        else {
            out.push(Directive {
                rules: rules.clone(),
                first: k + 1,
                last: k + 1,
            });
            continue;
        };
        let mut last = next;
        if format == Format::Prompt {
            if let Some(n) = fence(lines[next].text) {
                let ch = lines[next].text.trim_start().as_bytes()[0];
                last = (next + 1..lines.len())
                    .find(|&j| {
                        let t = lines[j].text.trim();
                        t.len() >= n && t.bytes().all(|b| b == ch)
                    })
                    .unwrap_or(lines.len() - 1);
            }
        }
        out.push(Directive {
            rules: rules.clone(),
            first: next + 1,
            last: last + 1,
        });
    }
    out
}

/// The rules a line's directive names, and whether the comment stands
/// alone on its line.
fn parse_line(l: &Line<'_>, openers: &[&str]) -> Option<(Named, bool)> {
    let at = l.text.find(MARK)?;
    let before = &l.text[..at];
    let (opener_at, _) = openers
        .iter()
        .filter_map(|o| {
            let i = before.rfind(o)?;
            before[i + o.len()..].trim().is_empty().then_some((i, o))
        })
        .max_by_key(|(i, _)| *i)?;
    let alone = before[..opener_at].trim().is_empty();
    let rest = l.text[at + MARK.len()..].trim_start();
    let list = rest.strip_prefix("ignore[")?;
    let close = list.find(']')?;
    let list_at = l.start + (l.text.len() - list.len());
    let mut rules = Vec::new();
    let mut offset = 0;
    for name in list[..close].split(',') {
        let lead = name.len() - name.trim_start().len();
        let n = name.trim();
        if !n.is_empty() {
            let s = list_at + offset + lead;
            rules.push((n.to_string(), Span::new(s, s + n.len())));
        }
        offset += name.len() + 1;
    }
    (!rules.is_empty()).then_some((rules, alone))
}

/// Leave out of `found` the findings the directives of `src` cover, and
/// add an `unused-suppression` finding (at `severity`, when it is on) for
/// each named rule that covered none while `active` says it ran.
pub fn apply(
    src: &[u8],
    format: Format,
    found: &mut Vec<Diagnostic>,
    severity: Option<Severity>,
    active: &dyn Fn(&str) -> bool,
) {
    let dirs = directives(src, format);
    if dirs.is_empty() {
        return;
    }
    let index = LineIndex::new(src);
    let mut used: Vec<Vec<bool>> = dirs.iter().map(|d| vec![false; d.rules.len()]).collect();
    found.retain(|d| {
        let line = resolve(src, &index, &d.primary.at).line;
        let mut keep = true;
        for (k, dir) in dirs.iter().enumerate() {
            if line < dir.first || line > dir.last {
                continue;
            }
            for (r, (name, _)) in dir.rules.iter().enumerate() {
                if name == d.rule {
                    used[k][r] = true;
                    keep = false;
                }
            }
        }
        keep
    });
    let Some(severity) = severity else { return };
    for (dir, used) in dirs.iter().zip(&used) {
        for ((name, span), used) in dir.rules.iter().zip(used) {
            let known = crate::rules::meta(name).is_some();
            if *used || (known && !active(name)) || name == crate::rules::UNUSED_SUPPRESSION.name {
                continue;
            }
            let (message, help) = if known {
                (
                    format!("`ignore[{name}]` suppresses nothing: no `{name}` finding here"),
                    "the finding it was written for is gone: remove the suppression, or move it to the line before the finding".to_string(),
                )
            } else {
                (
                    format!("`ignore[{name}]` names no rule callint knows"),
                    crate::lint::config::ConfigError::unknown_rule(name).to_string(),
                )
            };
            let mut d = Diagnostic {
                rule: crate::rules::UNUSED_SUPPRESSION.name,
                severity,
                message,
                agent: None,
                primary: Label {
                    at: Anchor::bytes(*span),
                    text: None,
                },
                labels: Vec::new(),
                help: Some(help),
                call: None,
                ts: None,
                fingerprint: None,
                about: None,
            };
            d.bound();
            found.push(d);
        }
    }
    crate::core::diagnostic::sort(found);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(src: &str, format: Format) -> Vec<(Vec<String>, usize, usize)> {
        directives(src.as_bytes(), format)
            .into_iter()
            .map(|d| {
                for (n, s) in &d.rules {
                    assert_eq!(&src[s.start..s.end], n);
                }
                (
                    d.rules.into_iter().map(|(n, _)| n).collect(),
                    d.first,
                    d.last,
                )
            })
            .collect()
    }

    #[test]
    fn markdown_covers_the_next_line_or_fenced_block() {
        let md = "# Skill\n<!-- callint: ignore[board-bundle, long-say] shown as a mistake -->\n\n```json\n{}\n{}\n```\ntext\n<!-- callint: ignore[long-say] -->\nsay this\n";
        assert_eq!(
            covered(md, Format::Prompt),
            [
                (vec!["board-bundle".into(), "long-say".into()], 4, 7),
                (vec!["long-say".into()], 10, 10),
            ]
        );
    }

    #[test]
    fn code_comments_cover_the_next_line_or_their_own() {
        let py = "x = 1\n# callint: ignore[timeout-events-dropped] handled by the caller\nwhile True: pass\ny = 2  # callint: ignore[long-say]\n";
        assert_eq!(
            covered(py, Format::Code(CodeLang::Python)),
            [
                (vec!["timeout-events-dropped".into()], 3, 3),
                (vec!["long-say".into()], 4, 4),
            ]
        );
        // `#` is no comment in JavaScript, and a string is no comment.
        let js = "# callint: ignore[long-say]\nlet s = \"callint: ignore[long-say]\";\n";
        assert!(covered(js, Format::Code(CodeLang::JavaScript)).is_empty());
        assert!(covered("callint: ignore[x]", Format::Native).is_empty());
    }
}
