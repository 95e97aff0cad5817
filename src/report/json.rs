//! `--format json`: one document with every finding and a summary.

use serde::Serialize;

use super::{resolve, LineIndex, Summary};
use crate::engine::FileResult;

#[derive(Serialize)]
struct Doc<'a> {
    version: u32,
    diagnostics: Vec<Item<'a>>,
    summary: SummaryOut<'a>,
}

#[derive(Serialize)]
struct Item<'a> {
    rule: &'a str,
    severity: &'a str,
    file: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: &'a str,
    agent: Option<&'a str>,
    help: Option<&'a str>,
    labels: Vec<LabelOut<'a>>,
}

#[derive(Serialize)]
struct LabelOut<'a> {
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: Option<&'a str>,
}

#[derive(Serialize)]
struct SummaryOut<'a> {
    files: usize,
    records: usize,
    diagnostics: usize,
    by_rule: &'a std::collections::BTreeMap<&'static str, usize>,
    by_severity: &'a std::collections::BTreeMap<&'static str, usize>,
    by_agent: &'a std::collections::BTreeMap<String, usize>,
}

pub fn render(files: &[FileResult], summary: &Summary) -> String {
    let mut diagnostics = Vec::new();
    for f in files {
        if f.diagnostics.is_empty() {
            continue;
        }
        let index = LineIndex::new(&f.source);
        for d in &f.diagnostics {
            let at = resolve(&f.source, &index, &d.primary.at);
            diagnostics.push(Item {
                rule: d.rule,
                severity: d.severity.name(),
                file: &f.path,
                line: at.line,
                column: at.column,
                end_line: at.end_line,
                end_column: at.end_column,
                message: &d.message,
                agent: d.agent.as_deref(),
                help: d.help.as_deref(),
                labels: d
                    .labels
                    .iter()
                    .map(|l| {
                        let at = resolve(&f.source, &index, &l.at);
                        LabelOut {
                            line: at.line,
                            column: at.column,
                            end_line: at.end_line,
                            end_column: at.end_column,
                            message: l.text.as_deref(),
                        }
                    })
                    .collect(),
            });
        }
    }
    let doc = Doc {
        version: 1,
        diagnostics,
        summary: SummaryOut {
            files: summary.files,
            records: summary.records,
            diagnostics: summary.diagnostics,
            by_rule: &summary.by_rule,
            by_severity: &summary.by_severity,
            by_agent: &summary.by_agent,
        },
    };
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}
