//! What a rule is to the engine: the [`Rule`] trait, and the context
//! [`Cx`] a rule checks one call through. A rule reads the call model and
//! reports findings; it never prints and never reads a file.

use std::collections::BTreeMap;

use crate::core::diagnostic::{Diagnostic, Finding, Severity};
use crate::core::meta::{OptValue, RuleMeta};
use crate::model::{record_at, Call};

pub trait Rule: Sync {
    fn meta(&self) -> &'static RuleMeta;
    /// Look at the call and report findings through `cx`. Never prints.
    fn check(&self, cx: &mut Cx<'_, '_>);
}

/// What a rule sees while it checks one call.
pub struct Cx<'c, 'a> {
    pub call: &'c Call<'a>,
    pub(crate) meta: &'static RuleMeta,
    pub(crate) severity: Severity,
    pub(crate) options: &'c BTreeMap<&'static str, OptValue>,
    pub(crate) out: &'c mut Vec<Diagnostic>,
}

impl Cx<'_, '_> {
    pub fn report(&mut self, f: Finding) {
        let agent = f.agent.or_else(|| self.call.recorder.map(str::to_string));
        let ts = record_at(self.call.records, f.primary.at.span.start).and_then(|r| r.ts);
        let mut d = Diagnostic {
            rule: self.meta.name,
            severity: self.severity,
            message: f.message,
            agent,
            primary: f.primary,
            labels: f.labels,
            help: f.help,
            call: self.call.call_id.map(str::to_string),
            ts,
            fingerprint: None,
        };
        d.bound();
        self.out.push(d);
    }

    fn opt(&self, name: &str) -> &OptValue {
        self.options
            .get(name)
            .or_else(|| {
                self.meta
                    .options
                    .iter()
                    .find(|o| o.name == name)
                    .map(|o| &o.default)
            })
            .unwrap_or_else(|| panic!("rule {} has no option {name}", self.meta.name))
    }

    /// A whole-number option (validated at configuration time).
    pub fn int(&self, name: &str) -> i64 {
        match self.opt(name) {
            OptValue::Int(i) => *i,
            OptValue::Float(f) => *f as i64,
            _ => 0,
        }
    }
    pub fn float(&self, name: &str) -> f64 {
        match self.opt(name) {
            OptValue::Int(i) => *i as f64,
            OptValue::Float(f) => *f,
            _ => 0.0,
        }
    }
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.opt(name), OptValue::Bool(true))
    }
}
