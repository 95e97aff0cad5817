//! `--format json`: one document with every finding and a summary.
//!
//! A batch renders in two steps: [`items`] per file (in a worker, while the
//! file's bytes are at hand), then [`document`] over all of them.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{resolve, to_json, LineIndex, Summary};
use crate::engine::FileResult;

#[derive(Serialize)]
struct Doc<'a> {
    version: u32,
    diagnostics: &'a [Item],
    summary: SummaryOut<'a>,
}

/// One finding, located.
#[derive(Serialize)]
pub struct Item {
    rule: &'static str,
    severity: &'static str,
    file: String,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: String,
    agent: Option<String>,
    help: Option<String>,
    labels: Vec<LabelOut>,
    /// The call the finding is about, when the input names it.
    call: Option<String>,
    /// The time of the record it points at (RFC 3339), when dated.
    timestamp: Option<String>,
    /// What the finding is about, as a stable key.
    fingerprint: Option<String>,
}

#[derive(Serialize)]
struct LabelOut {
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: Option<String>,
}

#[derive(Serialize)]
struct SummaryOut<'a> {
    files: usize,
    records: usize,
    diagnostics: usize,
    baselined: usize,
    says: usize,
    by_rule: &'a BTreeMap<&'static str, usize>,
    by_severity: &'a BTreeMap<&'static str, usize>,
    by_agent: &'a BTreeMap<String, usize>,
    statistics: Statistics<'a>,
}

/// What `--statistics` shows, by name.
#[derive(Serialize)]
struct Statistics<'a> {
    rules: BTreeMap<&'static str, RuleStat>,
    agents: BTreeMap<&'a str, AgentStat>,
}

#[derive(Serialize)]
struct RuleStat {
    diagnostics: usize,
    /// Findings per 100 says of all agents.
    per_100_says: Option<f64>,
}

#[derive(Serialize)]
struct AgentStat {
    says: usize,
    diagnostics: usize,
    /// The agent's findings per 100 of its own says.
    per_100_says: Option<f64>,
}

/// The findings of one file.
pub fn items(f: &FileResult) -> Vec<Item> {
    if f.diagnostics.is_empty() {
        return Vec::new();
    }
    let index = LineIndex::new(&f.source);
    f.diagnostics
        .iter()
        .map(|d| {
            let at = resolve(&f.source, &index, &d.primary.at);
            Item {
                rule: d.rule,
                severity: d.severity.name(),
                file: f.path.clone(),
                line: at.line,
                column: at.column,
                end_line: at.end_line,
                end_column: at.end_column,
                message: d.message.clone(),
                agent: d.agent.clone(),
                help: d.help.clone(),
                call: d.call.clone(),
                timestamp: d.ts.and_then(crate::input::ts::rfc3339),
                fingerprint: d.fingerprint.clone(),
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
                            message: l.text.clone(),
                        }
                    })
                    .collect(),
            }
        })
        .collect()
}

/// `--format jsonl`: the findings of one file, one JSON object a line,
/// each as an item of `--format json`.
pub fn lines(f: &FileResult) -> String {
    items(f).iter().map(super::to_json_line).collect()
}

/// The document over the findings of every file, in order.
pub fn document(items: &[Item], summary: &Summary) -> String {
    let doc = Doc {
        version: 1,
        diagnostics: items,
        summary: SummaryOut {
            files: summary.files,
            records: summary.records,
            diagnostics: summary.diagnostics,
            baselined: summary.baselined,
            says: summary.total_says(),
            by_rule: &summary.by_rule,
            by_severity: &summary.by_severity,
            by_agent: &summary.by_agent,
            statistics: Statistics {
                rules: summary
                    .rule_rows()
                    .into_iter()
                    .map(|(r, n, rate)| {
                        (
                            r,
                            RuleStat {
                                diagnostics: n,
                                per_100_says: rate,
                            },
                        )
                    })
                    .collect(),
                agents: summary
                    .agent_rows()
                    .into_iter()
                    .map(|(a, says, n, rate)| {
                        (
                            a,
                            AgentStat {
                                says,
                                diagnostics: n,
                                per_100_says: rate,
                            },
                        )
                    })
                    .collect(),
            },
        },
    };
    to_json(&doc)
}

pub fn render(files: &[FileResult], summary: &Summary) -> String {
    let all: Vec<Item> = files.iter().flat_map(items).collect();
    document(&all, summary)
}
