//! One document linted as `check` lints the file: the same batch, the
//! configuration found from the document's path, the same selection,
//! severities and suppressions, then the baseline; its findings as the
//! protocol's diagnostics.

use std::path::{Path, PathBuf};

use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Range, Uri,
};

use std::sync::Arc;

use crate::app::batch::{Needs, Render, Settings};
use crate::core::diagnostic::Severity;
use crate::lint::baseline::{Baseline, Entry};
use crate::lint::engine::{FileResult, Linter};

use super::growing::Growing;
use super::position::Places;

/// One finding as the editor gets it, with what the actions need.
#[derive(Clone, Debug)]
pub struct Found {
    pub rule: &'static str,
    pub message: String,
    pub range: Range,
    /// Its baseline entry (none for a finding without a fingerprint).
    pub entry: Option<Entry>,
    pub diagnostic: lsp_types::Diagnostic,
}

/// What linting a document gave.
#[derive(Clone, Debug, Default)]
pub struct Linted {
    pub found: Vec<Found>,
    /// Why the document could not be linted (a configuration that cannot
    /// be used), shown as one diagnostic at its start.
    pub failed: Option<String>,
}

impl Linted {
    pub fn diagnostics(&self) -> Vec<lsp_types::Diagnostic> {
        let mut out: Vec<lsp_types::Diagnostic> =
            self.found.iter().map(|f| f.diagnostic.clone()).collect();
        if let Some(why) = &self.failed {
            out.push(lsp_types::Diagnostic {
                range: Range::default(),
                severity: Some(DiagnosticSeverity::ERROR),
                source: Some("callint".into()),
                message: why.clone(),
                ..lsp_types::Diagnostic::default()
            });
        }
        out
    }
}

/// What one lint of a document needs; sent to a worker.
#[derive(Clone)]
pub struct Job {
    pub settings: Settings,
    /// The document's file (which need not exist).
    pub path: PathBuf,
    /// Its name as `check` run in the workspace's root names it: what
    /// fingerprints, and so the baseline, key findings of an input that
    /// names no call by.
    pub name: String,
    pub uri: Uri,
    pub baseline: Option<PathBuf>,
    /// A link to a rule's page, `{rule}` standing for its name.
    pub rule_url: Option<String>,
    /// The linter of the configuration in force for the document, when
    /// one was made before (else it is made from `settings`).
    pub linter: Option<Arc<Linter>>,
}

impl Job {
    /// Lint `bytes` as the document's content.
    pub fn run(&self, bytes: Vec<u8>) -> Linted {
        match self.try_run(bytes) {
            Ok(l) => l,
            Err(why) => Linted {
                found: Vec::new(),
                failed: Some(why),
            },
        }
    }

    fn try_run(&self, bytes: Vec<u8>) -> Result<Linted, String> {
        let baseline = self.baseline()?;
        let linter = self.linter()?;
        // What `check` does with one file's bytes (a batch of one: no
        // pair, no room), without the batch's threads.
        let mut r = linter.lint(&self.path.to_string_lossy(), bytes);
        let render = ToLsp {
            job: self,
            baseline: baseline.as_ref(),
        };
        let found = render.render(&mut r, &self.path)?;
        Ok(Linted {
            found,
            failed: None,
        })
    }

    /// The linter for the document.
    pub fn linter(&self) -> Result<Arc<Linter>, String> {
        match &self.linter {
            Some(l) => Ok(Arc::clone(l)),
            None => self.settings.linter_for(&self.path).map(Arc::new),
        }
    }
}

impl Job {
    /// Lint a followed log from what was read of it: what [`Job::run`]
    /// gives for its bytes, without reading again what was read before.
    pub fn run_growing(&self, log: &mut Growing) -> Linted {
        let linted = self.baseline().and_then(|baseline| {
            let linter = self.linter()?;
            let mut r = log
                .lint(&linter, &self.path, &self.path.to_string_lossy())
                .map_err(|e| {
                    let shown = crate::core::escape::file_name(&self.path.to_string_lossy());
                    format!("cannot read {shown}: {e}")
                })?;
            let render = ToLsp {
                job: self,
                baseline: baseline.as_ref(),
            };
            render.render(&mut r, &self.path)
        });
        match linted {
            Ok(found) => Linted {
                found,
                failed: None,
            },
            Err(why) => Linted {
                found: Vec::new(),
                failed: Some(why),
            },
        }
    }

    fn baseline(&self) -> Result<Option<Baseline>, String> {
        match &self.baseline {
            Some(p) => Ok(Some(Baseline::load(p, true)?)),
            None => Ok(None),
        }
    }
}

struct ToLsp<'a> {
    job: &'a Job,
    baseline: Option<&'a Baseline>,
}

impl Render for ToLsp<'_> {
    type Piece = Vec<Found>;

    fn needs(&self) -> Needs {
        Needs::Whole
    }

    fn render(&self, r: &mut FileResult, _: &Path) -> Result<Vec<Found>, String> {
        // What `check --baseline` does to a file's findings, under the
        // name `check` gives the file.
        r.path.clone_from(&self.job.name);
        crate::lint::fingerprint::assign(r);
        if let Some(b) = self.baseline {
            b.filter(r);
        }
        let entries = crate::lint::baseline::entries_of(r);
        Ok(convert(r, &entries, self.job))
    }
}

fn convert(r: &FileResult, entries: &[Entry], job: &Job) -> Vec<Found> {
    if r.diagnostics.is_empty() {
        return Vec::new();
    }
    let places = Places::new(&r.source);
    let at = |a: &crate::core::span::Anchor| {
        places.range(crate::core::lines::resolve(&r.source, places.index(), a).span)
    };
    r.diagnostics
        .iter()
        .map(|d| {
            let range = at(&d.primary.at);
            let related: Vec<DiagnosticRelatedInformation> = d
                .labels
                .iter()
                .map(|l| DiagnosticRelatedInformation {
                    location: Location {
                        uri: job.uri.clone(),
                        range: at(&l.at),
                    },
                    message: l.text.clone().unwrap_or_else(|| "here".into()),
                })
                .collect();
            let mut message = d.message.clone();
            if let Some(t) = &d.primary.text {
                message.push_str(&format!(" ({t})"));
            }
            if let Some(h) = &d.help {
                message.push_str(&format!("\nhelp: {h}"));
            }
            let href = job
                .rule_url
                .as_ref()
                .and_then(|u| u.replace("{rule}", d.rule).parse::<Uri>().ok());
            let diagnostic = lsp_types::Diagnostic {
                range,
                severity: Some(match d.severity {
                    Severity::Error => DiagnosticSeverity::ERROR,
                    Severity::Warning => DiagnosticSeverity::WARNING,
                    Severity::Info => DiagnosticSeverity::INFORMATION,
                }),
                code: Some(NumberOrString::String(d.rule.to_string())),
                code_description: href.map(|href| CodeDescription { href }),
                source: Some("callint".into()),
                message,
                related_information: (!related.is_empty()).then_some(related),
                tags: None,
                data: d
                    .fingerprint
                    .as_ref()
                    .map(|p| serde_json::json!({ "fingerprint": p })),
            };
            Found {
                rule: d.rule,
                message: d.message.clone(),
                range,
                entry: d
                    .fingerprint
                    .as_ref()
                    .and_then(|p| entries.iter().find(|e| &e.fingerprint == p).cloned()),
                diagnostic,
            }
        })
        .collect()
}
