//! Renderers: findings out, in the format the user asked for. No renderer
//! knows a rule; every text from a log is escaped on the way out.

pub mod audit;
pub mod audit_page;
pub mod concise;
/// Escaping of untrusted text, shared with the readers' messages.
pub use crate::core::escape;
pub mod github;
pub mod gitlab;
pub mod html;
pub mod json;
pub mod junit;
pub mod pretty;
pub mod sarif;

use std::collections::BTreeMap;

use crate::core::diagnostic::{Diagnostic, Severity};
use crate::lint::engine::FileResult;

/// Every renderer places findings and writes JSON the one way the core does.
pub use crate::core::json::{to_json, to_json_line};
pub use crate::core::lines::{resolve, LineIndex, Located};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Pretty,
    Concise,
    Json,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
    /// GitHub Actions workflow annotations.
    Github,
    /// One JSON object per finding and line.
    Jsonl,
    /// A JUnit XML report: a test case per file and rule.
    Junit,
    /// A GitLab Code Quality report.
    Gitlab,
}

impl Format {
    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Pretty => "pretty",
            Format::Concise => "concise",
            Format::Json => "json",
            Format::Sarif => "sarif",
            Format::Github => "github",
            Format::Jsonl => "jsonl",
            Format::Junit => "junit",
            Format::Gitlab => "gitlab",
        }
    }

    pub const ALL: [Format; 8] = [
        Format::Pretty,
        Format::Concise,
        Format::Json,
        Format::Jsonl,
        Format::Sarif,
        Format::Github,
        Format::Junit,
        Format::Gitlab,
    ];

    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// Counts over everything linted.
#[derive(Debug, Default)]
pub struct Summary {
    pub files: usize,
    pub records: usize,
    pub diagnostics: usize,
    pub by_rule: BTreeMap<&'static str, usize>,
    pub by_severity: BTreeMap<&'static str, usize>,
    pub by_agent: BTreeMap<String, usize>,
    /// `say`s per agent (each agent's own, from its own log).
    pub says: BTreeMap<String, usize>,
    /// Findings a baseline accepted, left out of the counts above.
    pub baselined: usize,
}

impl Summary {
    pub fn add(&mut self, f: &FileResult) {
        self.files += 1;
        self.records += f.records;
        self.baselined += f.baselined;
        for (agent, n) in &f.says {
            *self.says.entry(agent.clone()).or_default() += n;
        }
        for d in &f.diagnostics {
            self.count(d);
        }
    }

    /// Every `say` of every agent.
    pub fn total_says(&self) -> usize {
        self.says.values().sum()
    }

    /// Rows per rule: name, findings, findings per 100 says of all agents;
    /// most findings first.
    pub fn rule_rows(&self) -> Vec<(&'static str, usize, Option<f64>)> {
        let says = self.total_says();
        let mut rows: Vec<_> = self
            .by_rule
            .iter()
            .map(|(r, &n)| (*r, n, per_100(n, says)))
            .collect();
        rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        rows
    }

    /// Rows per agent (every agent with a finding or a say): name, says,
    /// findings, findings per 100 of its says; most findings first.
    pub fn agent_rows(&self) -> Vec<(&str, usize, usize, Option<f64>)> {
        let mut names: Vec<&str> = self.by_agent.keys().map(String::as_str).collect();
        names.extend(self.says.keys().map(String::as_str));
        names.sort_unstable();
        names.dedup();
        let mut rows: Vec<_> = names
            .into_iter()
            .map(|a| {
                let says = self.says.get(a).copied().unwrap_or(0);
                let n = self.by_agent.get(a).copied().unwrap_or(0);
                (a, says, n, per_100(n, says))
            })
            .collect();
        rows.sort_by(|a, b| b.2.cmp(&a.2).then(b.1.cmp(&a.1)).then(a.0.cmp(b.0)));
        rows
    }
    fn count(&mut self, d: &Diagnostic) {
        self.diagnostics += 1;
        *self.by_rule.entry(d.rule).or_default() += 1;
        *self.by_severity.entry(d.severity.name()).or_default() += 1;
        if let Some(a) = &d.agent {
            *self.by_agent.entry(a.clone()).or_default() += 1;
        }
    }
    pub fn errors(&self) -> usize {
        self.by_severity
            .get(Severity::Error.name())
            .copied()
            .unwrap_or(0)
    }

    /// One closing line for people: "Found 3 problems (1 error, 2 warnings) in 2 of 5 files."
    pub fn line(&self) -> String {
        let mut line = self.counts_line();
        if self.baselined > 0 {
            line.pop();
            line.push_str(&format!("; {} more in the baseline.", self.baselined));
        }
        line
    }

    fn counts_line(&self) -> String {
        if self.diagnostics == 0 {
            return format!(
                "All checks passed: {} file{}, {} record{}.",
                self.files,
                plural(self.files),
                self.records,
                plural(self.records)
            );
        }
        let parts: Vec<String> = [Severity::Error, Severity::Warning, Severity::Info]
            .iter()
            .filter_map(|s| {
                let n = self.by_severity.get(s.name()).copied().unwrap_or(0);
                (n > 0).then(|| match s {
                    Severity::Info => format!("{n} info"),
                    s => format!("{n} {}{}", s.name(), plural(n)),
                })
            })
            .collect();
        format!(
            "Found {} problem{} ({}) in {} file{}, {} record{}.",
            self.diagnostics,
            plural(self.diagnostics),
            parts.join(", "),
            self.files,
            plural(self.files),
            self.records,
            plural(self.records)
        )
    }
}

/// `n` per 100 of `says`, to two decimals; none without says.
pub fn per_100(n: usize, says: usize) -> Option<f64> {
    (says > 0).then(|| (n as f64 * 10_000.0 / says as f64).round() / 100.0)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
