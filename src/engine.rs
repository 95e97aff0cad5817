//! The engine: the `Rule` trait, rule selection and options, and running
//! every active rule over every call of a file.

use std::collections::BTreeMap;

use crate::config::{Config, ConfigError, OptValue};
use crate::diagnostic::{Diagnostic, Finding, Label, Severity};
use crate::input::{self, Problem};
use crate::model::{Call, Cast, Record, Via, Who};
use crate::rules;

/// A rule's description, as `callint rules` lists it.
#[derive(Debug)]
pub struct RuleMeta {
    /// The public id, e.g. `board-bundle`.
    pub name: &'static str,
    /// Which rule of the rulebook it enforces: a number, `hard` for the hard
    /// rules, `server` for what the server itself enforces.
    pub seed: &'static str,
    pub default_severity: Severity,
    /// One line, imperative-free: what the rule finds.
    pub summary: &'static str,
    /// Options settable in `callint.toml` under `[rules.<name>]`.
    pub options: &'static [OptionMeta],
}

/// One option of a rule, with its default.
#[derive(Debug)]
pub struct OptionMeta {
    pub name: &'static str,
    pub default: OptValue,
    pub help: &'static str,
}

pub trait Rule: Sync {
    fn meta(&self) -> &'static RuleMeta;
    /// Look at the call and report findings through `cx`. Never prints.
    fn check(&self, cx: &mut Cx<'_, '_>);
}

/// What a rule sees while it checks one call.
pub struct Cx<'c, 'a> {
    pub call: &'c Call<'a>,
    meta: &'static RuleMeta,
    severity: Severity,
    options: &'c BTreeMap<&'static str, OptValue>,
    out: &'c mut Vec<Diagnostic>,
}

impl Cx<'_, '_> {
    pub fn report(&mut self, f: Finding) {
        let agent = f.agent.or_else(|| self.call.recorder.map(str::to_string));
        self.out.push(Diagnostic {
            rule: self.meta.name,
            severity: self.severity,
            message: f.message,
            agent,
            primary: f.primary,
            labels: f.labels,
            help: f.help,
        });
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

/// An active rule with its resolved severity and options.
struct Active {
    rule: &'static dyn Rule,
    severity: Severity,
    options: BTreeMap<&'static str, OptValue>,
}

/// The result of linting one file.
#[derive(Debug)]
pub struct FileResult {
    pub path: String,
    pub source: Vec<u8>,
    pub records: usize,
    /// `say`s per agent: each recorder's own spoken lines, the base of the
    /// rates per 100 says in `--statistics`.
    pub says: BTreeMap<String, usize>,
    pub diagnostics: Vec<Diagnostic>,
    /// The native logs' calls in this file that have a call id
    /// (LOG-FORMAT.md §3): what `callint check` groups the files of one call
    /// by, to merge them into one room ([`crate::room`]). Empty for other
    /// inputs.
    pub calls: Vec<CallSeen>,
}

/// One call of a native log, as far as the room pass needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSeen {
    /// The call id ([`crate::room::call_id`]).
    pub id: String,
    /// The recording agent.
    pub recorder: Option<String>,
    /// Every agent the log shows: the recorder and everyone it heard.
    pub agents: Vec<String>,
}

/// Rules chosen and configured, ready to lint files.
pub struct Linter {
    active: Vec<Active>,
    /// Severity of `invalid-record`, if selected.
    invalid: Option<Severity>,
    cast: Cast,
    read: input::Options,
}

impl Linter {
    /// Choose rules: the config's `select` (or every rule), minus `ignore`
    /// and rules set to `off`; `select`/`ignore` given on the command line
    /// replace the config's select and add to its ignore list.
    pub fn new(
        config: &Config,
        select: Option<&[String]>,
        ignore: &[String],
    ) -> Result<Linter, ConfigError> {
        let select: Option<Vec<String>> = select
            .map(<[String]>::to_vec)
            .or_else(|| config.select.clone());
        let mut ignored: Vec<String> = config.ignore.clone();
        ignored.extend(ignore.iter().cloned());
        for name in select.iter().flatten().chain(ignored.iter()) {
            if name != "all" && rules::meta(name).is_none() {
                return Err(ConfigError::unknown_rule(name));
            }
        }
        let wanted = |name: &str| -> bool {
            let sel = match &select {
                None => true,
                Some(s) => s.iter().any(|x| x == name || x == "all"),
            };
            sel && !ignored.iter().any(|x| x == name)
        };
        let mut active = Vec::new();
        for rule in rules::all() {
            let meta = rule.meta();
            if !wanted(meta.name) {
                continue;
            }
            let rc = config.rule(meta)?;
            let Some(severity) = rc.severity else {
                continue;
            };
            active.push(Active {
                rule: *rule,
                severity,
                options: rc.options,
            });
        }
        let invalid = if wanted(rules::INVALID_RECORD.name) {
            config.rule(&rules::INVALID_RECORD)?.severity
        } else {
            None
        };
        Ok(Linter {
            active,
            invalid,
            cast: Cast {
                human: config.human.clone(),
                voicebot: config.voicebot.clone(),
            },
            read: input::Options::from_config(config),
        })
    }

    pub fn active_rules(&self) -> impl Iterator<Item = &'static RuleMeta> + '_ {
        self.active.iter().map(|a| a.rule.meta())
    }

    /// Lint one native log.
    /// Lint one file, its format told by its name and content.
    pub fn lint(&self, path: &str, source: Vec<u8>) -> FileResult {
        let format = input::detect(path, &source);
        self.lint_as(path, source, format)
    }

    /// Lint one file read as `format`.
    pub fn lint_as(&self, path: &str, source: Vec<u8>, format: input::Format) -> FileResult {
        let parsed = input::parse_with(format, &source, &self.read);
        let mut r = self.lint_parsed(path, parsed, format == input::Format::Native);
        r.source = source;
        r
    }

    /// Lint a native log read from `reader` a block at a time
    /// ([`input::native::parse_reader`]), so a large log is never whole in
    /// memory: the result's `source` is left empty, and whoever renders its
    /// findings reads the file again. `lines` sizes the record vector.
    pub fn lint_native_reader(
        &self,
        path: &str,
        reader: impl std::io::Read,
        lines: usize,
    ) -> std::io::Result<FileResult> {
        let (log, problems, _) = input::native::parse_reader(reader, lines)?;
        let parsed = input::Parsed {
            logs: vec![log],
            problems,
        };
        Ok(self.lint_parsed(path, parsed, true))
    }

    /// Lint what a reader made of a file (`native`: a native log, whose
    /// calls are noted for the room). The result's `source` is empty.
    fn lint_parsed(&self, path: &str, parsed: input::Parsed, native: bool) -> FileResult {
        let input::Parsed { logs, problems } = parsed;
        let mut diagnostics = Vec::new();
        self.problems(problems, &mut diagnostics);
        let mut records = 0;
        let mut says = BTreeMap::new();
        let mut calls = Vec::new();
        for log in &logs {
            records += log.records.len();
            let seen = if native { Some(&mut calls) } else { None };
            self.lint_log(log, &mut diagnostics, &mut says, seen);
        }
        sort(&mut diagnostics);
        // One input can yield several views of the same lines (a transcript
        // is linted from every agent's side): the same finding once.
        diagnostics.dedup_by(|a, b| a == b);
        FileResult {
            path: path.to_string(),
            source: Vec::new(),
            records,
            says,
            diagnostics,
            calls,
        }
    }

    /// Lint every call of one log; with `seen`, note each call with an id.
    fn lint_log(
        &self,
        log: &crate::model::Log,
        diagnostics: &mut Vec<Diagnostic>,
        says: &mut BTreeMap<String, usize>,
        mut seen: Option<&mut Vec<CallSeen>>,
    ) {
        for group in split_calls(&log.records) {
            let owned;
            let recs: &[Record] = match group {
                Group::All => &log.records,
                Group::Some(idx) => {
                    owned = idx
                        .iter()
                        .map(|&i| log.records[i].clone())
                        .collect::<Vec<_>>();
                    &owned
                }
            };
            let call = Call::build(log.meta.as_ref(), recs, &self.cast);
            if let (Some(seen), Some(id)) = (seen.as_deref_mut(), crate::room::call_id(recs.iter()))
            {
                seen.push(CallSeen {
                    id: id.to_string(),
                    recorder: call.recorder.map(str::to_string),
                    agents: call.agents.iter().map(|a| a.label.clone()).collect(),
                });
            }
            for u in &call.utterances {
                if u.who == Who::Me && u.via == Via::Say {
                    *says.entry(u.speaker.to_string()).or_default() += 1;
                }
            }
            self.run(&call, diagnostics);
        }
    }

    /// Parse problems become `invalid-record` findings.
    fn problems(&self, problems: Vec<Problem>, out: &mut Vec<Diagnostic>) {
        let Some(severity) = self.invalid else { return };
        out.extend(problems.into_iter().map(|p| Diagnostic {
            rule: rules::INVALID_RECORD.name,
            severity,
            message: p.message,
            agent: None,
            primary: Label {
                at: p.at,
                text: None,
            },
            labels: Vec::new(),
            help: p.help,
        }));
    }

    /// What the readers are told beyond the bytes, from the configuration.
    pub fn read_options(&self) -> &input::Options {
        &self.read
    }

    /// Who is who, as the configuration says.
    pub fn cast(&self) -> &Cast {
        &self.cast
    }

    /// Run the active rules of [`Scope::Room`](rules::Scope::Room) over one
    /// call: an agent's view of the merged room ([`crate::room`]).
    pub fn run_room(&self, call: &Call<'_>, out: &mut Vec<Diagnostic>) {
        for a in &self.active {
            let meta = a.rule.meta();
            if rules::scope(meta.name) != rules::Scope::Room {
                continue;
            }
            let mut cx = Cx {
                call,
                meta,
                severity: a.severity,
                options: &a.options,
                out,
            };
            a.rule.check(&mut cx);
        }
    }

    /// Run every active rule over one call.
    pub fn run(&self, call: &Call<'_>, out: &mut Vec<Diagnostic>) {
        for a in &self.active {
            let mut cx = Cx {
                call,
                meta: a.rule.meta(),
                severity: a.severity,
                options: &a.options,
                out,
            };
            a.rule.check(&mut cx);
        }
    }
}

/// Lines (1-based) of the findings `rule` alone gives on the native log
/// `log`: what the rules' unit tests assert on.
#[cfg(test)]
pub(crate) fn fired(rule: &str, log: &str) -> Vec<usize> {
    fired_in(rule, "t.jsonl", log)
}

/// As [`fired`], for a file of the given name (its format told as
/// `callint check` tells it).
#[cfg(test)]
pub(crate) fn fired_in(rule: &str, name: &str, log: &str) -> Vec<usize> {
    let linter = Linter::new(&Config::default(), Some(&[rule.to_string()]), &[]).unwrap();
    let f = linter.lint(name, log.as_bytes().to_vec());
    let index = crate::report::LineIndex::new(&f.source);
    f.diagnostics
        .iter()
        .map(|d| crate::report::resolve(&f.source, &index, &d.primary.at).line)
        .collect()
}

/// Findings in file order; ties by rule name.
pub fn sort(d: &mut [Diagnostic]) {
    d.sort_by(|a, b| {
        (a.primary.at.span.start, a.rule, &a.message).cmp(&(
            b.primary.at.span.start,
            b.rule,
            &b.message,
        ))
    });
}

pub(crate) enum Group {
    All,
    Some(Vec<usize>),
}

/// Records of different calls in one file are linted as separate calls. A
/// record without a call id belongs to the call of the record before it.
pub(crate) fn split_calls(records: &[Record]) -> Vec<Group> {
    // Each call's number, in order of first appearance; keyed by ids from
    // the log: the standard (flood-resistant) hasher.
    let mut ids: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for r in records {
        if let Some(c) = r.call() {
            let n = ids.len();
            ids.entry(c).or_insert(n);
        }
    }
    if ids.len() <= 1 {
        return vec![Group::All];
    }
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); ids.len()];
    let mut current = 0;
    for (i, r) in records.iter().enumerate() {
        if let Some(c) = r.call() {
            current = ids.get(c).copied().unwrap_or(0);
        }
        groups[current].push(i);
    }
    groups.into_iter().map(Group::Some).collect()
}
