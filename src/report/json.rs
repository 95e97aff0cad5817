//! `--format json`: one document with every finding and a summary.
//!
//! A batch renders in two steps: [`fragment`] per file (in a worker, while
//! the file's bytes are at hand: the findings located and written out),
//! then [`assemble`], which only puts the fragments into one document.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{resolve, to_json, LineIndex, Summary};
use crate::lint::engine::FileResult;

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
    to_json(&doc(items, summary))
}

/// How an item sits in the document's list of findings: indented twice.
const ITEM_INDENT: &str = "    ";

/// The findings of one file written as they stand in the document's list,
/// each indented and all but the last followed by a comma; empty for none.
pub fn fragment(items: &[Item]) -> String {
    let mut out = String::new();
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            out.push_str(",\n");
        }
        // A JSON text holds no raw line break inside a string: every line
        // break is the layout's.
        let text = to_json(item);
        for (n, line) in text.trim_end_matches('\n').split('\n').enumerate() {
            if n > 0 {
                out.push('\n');
            }
            out.push_str(ITEM_INDENT);
            out.push_str(line);
        }
    }
    out
}

/// The document of the files' [`fragment`]s, in order: the very bytes of
/// [`document`] over all their items, written into one buffer of the
/// document's size.
pub fn assemble<'f>(fragments: impl IntoIterator<Item = &'f str>, summary: &Summary) -> String {
    let fragments: Vec<&str> = fragments.into_iter().filter(|f| !f.is_empty()).collect();
    let skeleton = to_json(&doc(&[], summary));
    const EMPTY: &str = "\"diagnostics\": []";
    // The empty list comes first in the skeleton, before the summary.
    let (Some(at), false) = (skeleton.find(EMPTY), fragments.is_empty()) else {
        return skeleton;
    };
    let (before, after) = (&skeleton[..at], &skeleton[at + EMPTY.len()..]);
    let size = fragments.iter().map(|f| f.len() + 2).sum::<usize>() + skeleton.len() + 8;
    let mut out = String::with_capacity(size);
    out.push_str(before);
    out.push_str("\"diagnostics\": [\n");
    for (k, f) in fragments.iter().enumerate() {
        if k > 0 {
            out.push_str(",\n");
        }
        out.push_str(f);
    }
    out.push_str("\n  ]");
    out.push_str(after);
    out
}

fn doc<'a>(items: &'a [Item], summary: &'a Summary) -> Doc<'a> {
    Doc {
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
    }
}

pub fn render(files: &[FileResult], summary: &Summary) -> String {
    let all: Vec<Item> = files.iter().flat_map(items).collect();
    document(&all, summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::config::Config;
    use crate::lint::engine::Linter;

    /// Findings with labels, help, a call and times (a log of the corpus),
    /// broken records, and a file with none.
    fn files() -> Vec<FileResult> {
        let linter = Linter::new(&Config::default(), None, &[]).unwrap();
        let log = include_str!("../../corpus/turn-taking/claude.jsonl");
        let mut files = vec![
            linter.lint("a.jsonl", log.as_bytes().to_vec()),
            linter.lint("clean.jsonl", Vec::new()),
            linter.lint(
                "b \"q\".jsonl",
                b"{\"fn\":\"leave\"}\nnot json\n{\"fn\"".to_vec(),
            ),
        ];
        for f in &mut files {
            crate::lint::fingerprint::assign(f);
        }
        files
    }

    #[test]
    fn fragments_assemble_into_the_document_of_all_items() {
        let files = files();
        let mut summary = Summary::default();
        for f in &files {
            summary.add(f);
        }
        assert!(files[0].diagnostics.iter().any(|d| !d.labels.is_empty()));
        assert!(!files[2].diagnostics.is_empty() && files[1].diagnostics.is_empty());
        let all: Vec<Item> = files.iter().flat_map(items).collect();
        let fragments: Vec<String> = files.iter().map(|f| fragment(&items(f))).collect();
        let whole = document(&all, &summary);
        assert_eq!(
            assemble(fragments.iter().map(String::as_str), &summary),
            whole
        );
        // No findings at all: the empty list.
        let none = Summary::default();
        assert_eq!(assemble([""], &none), document(&[], &none));
        assert!(assemble([], &none).contains("\"diagnostics\": [],"));
    }
}
