//! `callint audit`'s run: the batch `check` runs (the same configuration,
//! selection, cache, room pass and cores), each file's findings taken
//! through the baseline as `check --baseline` takes them, and gathered
//! into the audit's numbers ([`crate::report::audit`]).

use std::path::Path;

use crate::core::hash::HashSet;
use crate::lint::baseline::Baseline;
use crate::lint::engine::FileResult;
use crate::report::audit::{Audit, Collector, Fixed, Since};

use super::batch::{Batch, Needs, Problem, Render};

/// What an audit run gives back.
pub struct Outcome {
    pub audit: Audit,
    /// What was said about the inputs while adding them.
    pub problems: Vec<Problem>,
    /// Inputs that could not be linted.
    pub errors: Vec<String>,
    /// The summary `check` prints for the same run.
    pub summary: crate::report::Summary,
}

struct Gather<'a> {
    baseline: Option<&'a Baseline>,
}

impl Render for Gather<'_> {
    type Piece = ();

    fn needs(&self) -> Needs {
        // Fingerprints read the lines of the findings.
        if self.baseline.is_some() {
            Needs::Lines
        } else {
            Needs::Nothing
        }
    }

    fn render(&self, r: &mut FileResult, _: &Path) -> Result<(), String> {
        if let Some(b) = self.baseline {
            if !r.diagnostics.is_empty() {
                crate::lint::fingerprint::assign(r);
                b.filter(r);
            }
        }
        Ok(())
    }
}

/// Lint everything `batch` holds and audit it: `pick` calls to open first;
/// with `baseline`, only the findings it does not list, and its entries
/// about the files read that matched nothing as fixed. The error is a
/// baseline that cannot be read or a pool of threads that cannot start.
pub fn run(batch: Batch, pick: usize, baseline: Option<&Path>) -> Result<Outcome, String> {
    let baseline = baseline.map(|p| Baseline::load(p, false)).transpose()?;
    let gather = Gather {
        baseline: baseline.as_ref(),
    };
    let run = batch.run(&gather)?;
    let mut collector = Collector::default();
    let mut errors = Vec::new();
    let mut linted: HashSet<String> = HashSet::default();
    for (path, d) in &run.files {
        match d {
            Ok((r, ())) => {
                collector.add(r);
                linted.insert(r.path.clone());
            }
            // A file read with its partner (a capture's other half, a
            // stored session's other files) has no message of its own.
            Err(msg) if msg.is_empty() => {}
            Err(msg) => errors.push(msg.clone()),
        }
        let _ = path;
    }
    let since = baseline.as_ref().map(|b| Since {
        accepted: run.summary.baselined,
        fixed: b
            .unmatched()
            .into_iter()
            .filter(|e| linted.contains(&e.file))
            .map(|e| {
                Fixed {
                    file: e.file.clone(),
                    rule: e.rule.clone(),
                    agent: e.agent.clone(),
                    call: e.call.clone(),
                    message: e.message.clone(),
                }
                .bounded()
            })
            .collect(),
    });
    Ok(Outcome {
        audit: collector.finish(pick, since),
        problems: run.problems,
        errors,
        summary: run.summary,
    })
}
