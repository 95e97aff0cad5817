//! `--format junit`: a JUnit XML report, the test report CI services show.
//!
//! One test suite per file; in it one test case per rule with findings in
//! that file (named after the rule, its class the file), failed, with every
//! finding as a line of the failure's text; a file without findings is one
//! passing test case named `callint`. Like [`json`](super::json), a batch
//! renders in two steps: [`cases`] per file, then [`document`].

use std::fmt::Write;

use super::escape::is_unsafe;
use super::{resolve, LineIndex};
use crate::core::diagnostic::Severity;
use crate::lint::engine::FileResult;

/// The test cases of one file.
pub struct Suite {
    file: String,
    cases: Vec<Case>,
}

struct Case {
    rule: &'static str,
    worst: Severity,
    lines: Vec<String>,
}

/// The test cases of one file.
pub fn cases(f: &FileResult) -> Suite {
    let index = LineIndex::new(&f.source);
    let mut cases: Vec<Case> = Vec::new();
    for d in &f.diagnostics {
        let at = resolve(&f.source, &index, &d.primary.at);
        let mut line = format!(
            "{}:{}:{}: {}[{}] {}",
            f.path, at.line, at.column, d.severity, d.rule, d.message
        );
        // What the finding is about, for whoever keys reports by it.
        let about: Vec<String> = [
            d.call.as_ref().map(|c| format!("call {c}")),
            d.ts.and_then(crate::input::ts::rfc3339)
                .map(|t| format!("at {t}")),
            d.fingerprint.as_ref().map(|p| format!("fingerprint {p}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !about.is_empty() {
            line.push_str(&format!(" ({})", about.join(", ")));
        }
        match cases.iter_mut().find(|c| c.rule == d.rule) {
            Some(c) => {
                c.worst = c.worst.max(d.severity);
                c.lines.push(line);
            }
            None => cases.push(Case {
                rule: d.rule,
                worst: d.severity,
                lines: vec![line],
            }),
        }
    }
    cases.sort_by_key(|c| c.rule);
    Suite {
        file: f.path.clone(),
        cases,
    }
}

/// The report over the suites of every file, in order.
pub fn document(suites: &[Suite]) -> String {
    let tests: usize = suites.iter().map(|s| s.cases.len().max(1)).sum();
    let failures: usize = suites.iter().map(|s| s.cases.len()).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"callint\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" time=\"0\">"
    );
    for s in suites {
        let file = xml(&s.file);
        let _ = writeln!(
            out,
            "  <testsuite name=\"{file}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"0\">",
            s.cases.len().max(1),
            s.cases.len()
        );
        if s.cases.is_empty() {
            let _ = writeln!(
                out,
                "    <testcase name=\"callint\" classname=\"{file}\" time=\"0\"/>"
            );
        }
        for c in &s.cases {
            let n = c.lines.len();
            let _ = writeln!(
                out,
                "    <testcase name=\"{}\" classname=\"{file}\" time=\"0\">",
                c.rule
            );
            let _ = writeln!(
                out,
                "      <failure type=\"{}\" message=\"{n} finding{} of {}\">{}</failure>",
                c.worst,
                if n == 1 { "" } else { "s" },
                c.rule,
                xml(&c.lines.join("\n"))
            );
            let _ = writeln!(out, "    </testcase>");
        }
        let _ = writeln!(out, "  </testsuite>");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Text for an XML attribute or element: markup characters as entities,
/// characters XML 1.0 does not allow as `\u{..}` text, and those a terminal
/// would act on (DEL, C1 controls, direction overrides) as character
/// references, so that the raw character never appears in the report.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c if is_unsafe(c) => {
                let _ = write!(out, "&#x{:x};", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_xml_and_terminals() {
        assert_eq!(
            xml("a<b>&\"'\u{1b}[31m\u{202e}\u{7f}"),
            "a&lt;b&gt;&amp;&quot;&apos;\\u{1b}[31m&#x202e;&#x7f;"
        );
    }
}
