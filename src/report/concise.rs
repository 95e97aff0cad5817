//! One line per finding: `file:line:col: severity[rule] message`.

use std::fmt::Write;

use super::escape::{file_name, one_line};
use super::{resolve, LineIndex};
use crate::lint::engine::FileResult;

pub fn render(f: &FileResult, out: &mut String) {
    if f.diagnostics.is_empty() {
        return;
    }
    let index = LineIndex::new(&f.source);
    for d in &f.diagnostics {
        let at = resolve(&f.source, &index, &d.primary.at);
        let _ = writeln!(
            out,
            "{}:{}:{}: {}[{}] {}",
            file_name(&f.path),
            at.line,
            at.column,
            d.severity,
            d.rule,
            one_line(&d.message)
        );
    }
}
