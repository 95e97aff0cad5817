//! `--format github`: GitHub Actions workflow commands, one annotation per
//! finding:
//! `::warning file=F,line=L,col=C,endLine=L2,endColumn=C2,title=RULE::message`.
//!
//! A workflow command is one line of the job's log, so everything from a
//! log is escaped the workflow-command way (`%`, CR and LF as `%25`, `%0D`,
//! `%0A`; in properties also `:` and `,`) after control characters and
//! escape sequences were made visible: a log line cannot end the command
//! and start one of its own.

use std::fmt::Write;

use super::escape::terminal;
use super::{resolve, LineIndex};
use crate::core::diagnostic::Severity;
use crate::lint::engine::FileResult;

pub fn render(f: &FileResult, out: &mut String) {
    if f.diagnostics.is_empty() {
        return;
    }
    let index = LineIndex::new(&f.source);
    let file = property(&f.path);
    for d in &f.diagnostics {
        let at = resolve(&f.source, &index, &d.primary.at);
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        let _ = writeln!(
            out,
            "::{level} file={file},line={},col={},endLine={},endColumn={},title={}::{}",
            at.line,
            at.column,
            at.end_line,
            at.end_column,
            property(d.rule),
            data(&message)
        );
    }
}

/// A command's message.
pub fn data(s: &str) -> String {
    escape(s, false)
}

/// A command's property value.
pub fn property(s: &str) -> String {
    escape(s, true)
}

fn escape(s: &str, property: bool) -> String {
    let visible = terminal(s);
    let mut out = String::with_capacity(visible.len());
    for c in visible.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_the_workflow_command_way() {
        assert_eq!(data("50% done\r\nnext"), "50%25 done\\r%0Anext");
        assert_eq!(
            data("a\n::error::injected\x1b[2J"),
            "a%0A::error::injected\\e[2J"
        );
        assert_eq!(property("a:b,c%d"), "a%3Ab%2Cc%25d");
        assert_eq!(data("a:b,c"), "a:b,c");
        assert_eq!(data("tab\there\u{202e}"), "tab\there\\u{202e}");
    }
}
