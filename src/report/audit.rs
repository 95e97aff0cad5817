//! The audit of a folder of calls: the numbers of one `check` run, kept by
//! rule, agent, severity and the day each call took place, the calls to
//! open first, and (with a baseline) what is new and what was fixed.
//!
//! [`Audit`] is the document `callint audit --format json` prints; it is
//! additive, so the audits of parts of a folder checked apart (a cluster's
//! partitions, each holding whole calls) [`Audit::merge`] into the audit
//! of the whole. The page (`audit_page`) draws it as one
//! self-contained HTML page.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::core::diagnostic::Severity;
use crate::core::escape::{window, MAX_NAME, MAX_TEXT};
use crate::lint::engine::FileResult;
use crate::model::Ms;

/// The version of the document's shape.
pub const VERSION: u32 = 1;

/// The key of the calls whose time is not known (no dated record).
pub const UNDATED: &str = "undated";

/// How many of a rule's (and an agent's) calls with most findings of it
/// are listed beside the calls with most findings overall, so that a
/// filter by rule or agent always has calls to show.
pub const EACH: usize = 3;

/// Everything the audit shows.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Audit {
    pub version: u32,
    /// Files linted.
    pub files: usize,
    pub records: usize,
    /// Calls: the call ids the native logs name, and each other file.
    pub calls: usize,
    /// Findings reported (after the baseline).
    pub diagnostics: usize,
    /// Findings the baseline accepted.
    pub baselined: usize,
    pub by_rule: BTreeMap<String, usize>,
    pub by_severity: BTreeMap<String, usize>,
    pub by_agent: BTreeMap<String, usize>,
    /// Every agent's own `say`s.
    pub says: BTreeMap<String, usize>,
    /// Rates per 100 says, as `check --statistics` shows them.
    pub statistics: Statistics,
    /// By the day each call started (`YYYY-MM-DD`, UTC), or [`UNDATED`].
    pub days: BTreeMap<String, Day>,
    /// The calls to open first: most errors, then most findings; and each
    /// rule's and agent's [`EACH`] calls with most findings of it.
    pub top: Vec<CallRow>,
    /// With a baseline: what it accepted and which of its entries matched
    /// nothing in the files read (fixed).
    pub baseline: Option<Since>,
    /// Every call's key and day, so that a call whose inputs were audited
    /// in two parts counts once when they are merged.
    #[serde(default)]
    pub call_days: BTreeMap<String, String>,
}

/// Findings per 100 says, by rule and by agent.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Statistics {
    pub rules: BTreeMap<String, RuleStat>,
    pub agents: BTreeMap<String, AgentStat>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RuleStat {
    pub diagnostics: usize,
    /// Findings per 100 says of all agents.
    pub per_100_says: Option<f64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct AgentStat {
    pub says: usize,
    pub diagnostics: usize,
    /// The agent's findings per 100 of its own says.
    pub per_100_says: Option<f64>,
}

/// One day's calls.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Day {
    pub calls: usize,
    /// Says per agent in the files of the calls of the day.
    pub says: BTreeMap<String, usize>,
    /// Findings by rule, agent and severity.
    pub findings: Vec<Cell>,
}

/// A count of findings of one rule, agent and severity.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cell {
    pub rule: String,
    pub agent: Option<String>,
    pub severity: String,
    pub n: usize,
}

/// One call to open.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CallRow {
    /// The call id, or the file's name for an input that names no call.
    pub key: String,
    pub call: Option<String>,
    /// The files that hold it.
    pub files: Vec<String>,
    /// The day it started, or [`UNDATED`].
    pub day: String,
    /// When it started (RFC 3339).
    pub start: Option<String>,
    pub findings: usize,
    pub errors: usize,
    pub cells: Vec<Cell>,
    /// Its post-mortem page, relative to the audit's page.
    pub page: Option<String>,
}

/// What a baseline says of the run.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Since {
    /// Findings it accepted (not counted as new).
    pub accepted: usize,
    /// Its entries about the files read that matched no finding.
    pub fixed: Vec<Fixed>,
}

/// A baseline entry that matched nothing.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Fixed {
    pub file: String,
    pub rule: String,
    pub agent: Option<String>,
    pub call: Option<String>,
    pub message: String,
}

impl Fixed {
    /// Every text cut to a bounded window.
    pub fn bounded(mut self) -> Fixed {
        for s in [&mut self.file, &mut self.message] {
            window(s, MAX_TEXT);
        }
        for s in [&mut self.agent, &mut self.call].into_iter().flatten() {
            window(s, MAX_NAME);
        }
        self
    }
}

/// `YYYY-MM-DD` of an epoch time; none for a time of day without a date
/// (day 0) or a year past 9999.
pub fn day_of(ms: Ms) -> Option<String> {
    let days = ms.div_euclid(86_400_000);
    let (y, m, d) = crate::input::ts::civil_from_days(days);
    (days != 0 && (0..=9999).contains(&y)).then(|| format!("{y:04}-{m:02}-{d:02}"))
}

/// A day's key: `YYYY-MM-DD` of a day that exists, or [`UNDATED`].
fn is_day(k: &str) -> bool {
    if k == UNDATED {
        return true;
    }
    let b = k.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() != 10
        || b[4] != b'-'
        || b[7] != b'-'
        || !digits(0..4)
        || !digits(5..7)
        || !digits(8..10)
    {
        return false;
    }
    let n = |r: std::ops::Range<usize>| k[r].parse::<i64>().unwrap_or(0);
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    let days = crate::input::ts::days_from_civil(y, m, d);
    crate::input::ts::civil_from_days(days) == (y, m, d) && days != 0
}

/// A call being gathered.
#[derive(Default)]
struct Gathered {
    call: Option<String>,
    files: Vec<String>,
    start: Option<Ms>,
    /// The time of its first dated finding: its time when its records
    /// give none (an input without a call id, or a call seen in this part
    /// only through inputs that are not native logs).
    found: Option<Ms>,
    cells: BTreeMap<(String, Option<String>, &'static str), usize>,
}

/// The audit being gathered, file by file.
#[derive(Default)]
pub struct Collector {
    files: usize,
    records: usize,
    baselined: usize,
    calls: crate::core::hash::HashMap<String, Gathered>,
    /// Each file's says, with the call they are counted under.
    says: Vec<(String, BTreeMap<String, usize>)>,
}

impl Collector {
    /// One file's final findings (after the room pass and the baseline).
    pub fn add(&mut self, f: &FileResult) {
        self.files += 1;
        self.records += f.records;
        self.baselined += f.baselined;
        let first = f.calls.first().map(|c| c.id.clone());
        for c in &f.calls {
            let g = self.call(&c.id, Some(&c.id), &f.path);
            g.start = match (g.start, c.start) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        let own = first.clone().unwrap_or_else(|| f.path.clone());
        if first.is_none() {
            self.call(&own, None, &f.path);
        }
        for d in &f.diagnostics {
            let key = d.call.clone().unwrap_or_else(|| own.clone());
            let named = d.call.clone();
            let g = self.call(&key, named.as_deref(), &f.path);
            g.found = match (g.found, d.ts) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            *g.cells
                .entry((d.rule.to_string(), d.agent.clone(), d.severity.name()))
                .or_default() += 1;
        }
        if !f.says.is_empty() {
            self.says.push((own, f.says.clone()));
        }
    }

    fn call(&mut self, key: &str, id: Option<&str>, file: &str) -> &mut Gathered {
        let g = self.calls.entry(key.to_string()).or_default();
        if g.call.is_none() {
            g.call = id.map(str::to_string);
        }
        if !g.files.iter().any(|f| f == file) {
            g.files.push(file.to_string());
        }
        g
    }

    /// The audit, with `pick` calls to open first (and each rule's and
    /// agent's [`EACH`]).
    pub fn finish(self, pick: usize, baseline: Option<Since>) -> Audit {
        let mut a = Audit {
            version: VERSION,
            files: self.files,
            records: self.records,
            calls: self.calls.len(),
            baselined: self.baselined,
            baseline,
            ..Audit::default()
        };
        let day = |g: &Gathered| {
            g.start
                .or(g.found)
                .and_then(day_of)
                .unwrap_or_else(|| UNDATED.into())
        };
        for (key, says) in &self.says {
            let d = self.calls.get(key).map_or_else(|| UNDATED.into(), day);
            let entry = a.days.entry(d).or_default();
            for (agent, n) in says {
                *entry.says.entry(agent.clone()).or_default() += n;
                *a.says.entry(agent.clone()).or_default() += n;
            }
        }
        let mut rows = Vec::with_capacity(self.calls.len());
        for (key, g) in self.calls {
            let d = day(&g);
            a.call_days.insert(key.clone(), d.clone());
            let entry = a.days.entry(d.clone()).or_default();
            entry.calls += 1;
            let cells: Vec<Cell> = g
                .cells
                .into_iter()
                .map(|((rule, agent, severity), n)| Cell {
                    rule,
                    agent,
                    severity: severity.to_string(),
                    n,
                })
                .collect();
            for c in &cells {
                add_cell(&mut entry.findings, c);
            }
            if !cells.is_empty() {
                rows.push(CallRow {
                    key,
                    call: g.call,
                    files: g.files,
                    day: d,
                    start: g.start.or(g.found).and_then(crate::input::ts::rfc3339),
                    findings: cells.iter().map(|c| c.n).sum(),
                    errors: cells
                        .iter()
                        .filter(|c| c.severity == Severity::Error.name())
                        .map(|c| c.n)
                        .sum(),
                    cells,
                    page: None,
                });
            }
        }
        for d in a.days.values_mut() {
            d.findings.sort();
        }
        a.top = pick_calls(rows, pick);
        a.count();
        a
    }
}

/// Add `c` to `cells`, summing with the cell of the same rule, agent and
/// severity.
fn add_cell(cells: &mut Vec<Cell>, c: &Cell) {
    match cells
        .iter_mut()
        .find(|x| x.rule == c.rule && x.agent == c.agent && x.severity == c.severity)
    {
        Some(x) => x.n += c.n,
        None => cells.push(c.clone()),
    }
}

/// The rows of one call from several parts as one: cells summed, files
/// joined, the earlier day and start.
fn join_rows(rows: Vec<CallRow>) -> Vec<CallRow> {
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    let mut out: Vec<CallRow> = Vec::with_capacity(rows.len());
    for r in rows {
        let Some(&k) = at.get(&r.key) else {
            at.insert(r.key.clone(), out.len());
            out.push(r);
            continue;
        };
        let o = &mut out[k];
        for c in &r.cells {
            add_cell(&mut o.cells, c);
        }
        o.cells.sort();
        o.findings += r.findings;
        o.errors += r.errors;
        for f in r.files {
            if !o.files.contains(&f) {
                o.files.push(f);
            }
        }
        if r.day < o.day {
            o.day = r.day;
        }
        o.start = match (o.start.take(), r.start) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if o.call.is_none() {
            o.call = r.call;
        }
    }
    out
}

/// The calls to open first, in that order: the `pick` with most errors,
/// then most findings; then for each rule and each agent its [`EACH`] calls
/// with most findings of it not already listed.
fn pick_calls(mut rows: Vec<CallRow>, pick: usize) -> Vec<CallRow> {
    let rank = |a: &CallRow, b: &CallRow| {
        b.errors
            .cmp(&a.errors)
            .then(b.findings.cmp(&a.findings))
            .then(a.key.cmp(&b.key))
    };
    rows.sort_by(rank);
    let mut chosen = vec![false; rows.len()];
    for c in chosen.iter_mut().take(pick) {
        *c = true;
    }
    if pick > 0 {
        let mut rules: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
        let mut agents: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
        for (k, r) in rows.iter().enumerate() {
            let mut by_rule: BTreeMap<&str, usize> = BTreeMap::new();
            let mut by_agent: BTreeMap<&str, usize> = BTreeMap::new();
            for c in &r.cells {
                *by_rule.entry(&c.rule).or_default() += c.n;
                if let Some(a) = &c.agent {
                    *by_agent.entry(a).or_default() += c.n;
                }
            }
            for (rule, n) in by_rule {
                rules.entry(rule).or_default().push((n, k));
            }
            for (agent, n) in by_agent {
                agents.entry(agent).or_default().push((n, k));
            }
        }
        for list in rules.values_mut().chain(agents.values_mut()) {
            // Most findings of it first; among equals, the call ranked first.
            list.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            for &(_, k) in list.iter().take(EACH) {
                chosen[k] = true;
            }
        }
    }
    rows.into_iter()
        .zip(chosen)
        .filter_map(|(r, c)| c.then_some(r))
        .collect()
}

impl Audit {
    /// The totals by rule, agent and severity, and the rates, from the
    /// days' findings.
    fn count(&mut self) {
        self.by_rule.clear();
        self.by_agent.clear();
        self.by_severity.clear();
        self.diagnostics = 0;
        for d in self.days.values() {
            for c in &d.findings {
                self.diagnostics += c.n;
                *self.by_rule.entry(c.rule.clone()).or_default() += c.n;
                *self.by_severity.entry(c.severity.clone()).or_default() += c.n;
                if let Some(a) = &c.agent {
                    *self.by_agent.entry(a.clone()).or_default() += c.n;
                }
            }
        }
        let all: usize = self.says.values().sum();
        self.statistics.rules = self
            .by_rule
            .iter()
            .map(|(r, &n)| {
                (
                    r.clone(),
                    RuleStat {
                        diagnostics: n,
                        per_100_says: super::per_100(n, all),
                    },
                )
            })
            .collect();
        let mut agents: Vec<&String> = self.by_agent.keys().chain(self.says.keys()).collect();
        agents.sort_unstable();
        agents.dedup();
        self.statistics.agents = agents
            .into_iter()
            .map(|a| {
                let says = self.says.get(a).copied().unwrap_or(0);
                let n = self.by_agent.get(a).copied().unwrap_or(0);
                (
                    a.clone(),
                    AgentStat {
                        says,
                        diagnostics: n,
                        per_100_says: super::per_100(n, says),
                    },
                )
            })
            .collect();
    }

    /// The audit of everything `parts` audited, each part holding whole
    /// calls (a cluster's partitions): counts summed, the calls to open
    /// first picked again among those the parts picked.
    pub fn merge(parts: Vec<Audit>, pick: usize) -> Audit {
        let mut a = Audit {
            version: VERSION,
            ..Audit::default()
        };
        let mut rows = Vec::new();
        let mut since: Option<Since> = None;
        for p in parts {
            a.files += p.files;
            a.records += p.records;
            a.calls += p.calls;
            a.baselined += p.baselined;
            for (agent, n) in p.says {
                *a.says.entry(agent).or_default() += n;
            }
            for (k, d) in p.days {
                let e = a.days.entry(k).or_default();
                e.calls += d.calls;
                for (agent, n) in d.says {
                    *e.says.entry(agent).or_default() += n;
                }
                for c in &d.findings {
                    add_cell(&mut e.findings, c);
                }
            }
            rows.extend(p.top);
            for (key, day) in p.call_days {
                match a.call_days.get_mut(&key) {
                    // Seen in another part too: one call, on its earlier day.
                    Some(d) => {
                        if day < *d {
                            *d = day;
                        }
                        a.calls -= 1;
                    }
                    None => {
                        a.call_days.insert(key, day);
                    }
                }
            }
            if let Some(s) = p.baseline {
                let all = since.get_or_insert_with(Since::default);
                all.accepted += s.accepted;
                all.fixed.extend(s.fixed);
            }
        }
        if !a.call_days.is_empty() {
            for d in a.days.values_mut() {
                d.calls = 0;
            }
            for day in a.call_days.values() {
                a.days.entry(day.clone()).or_default().calls += 1;
            }
        }
        for d in a.days.values_mut() {
            d.findings.sort();
        }
        a.top = pick_calls(join_rows(rows), pick);
        a.baseline = since;
        a.count();
        a
    }

    /// The document, as `callint audit --format json` prints it.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// An audit from its document. Checks the counts add up, so that a
    /// page is never drawn from a document that contradicts itself.
    pub fn from_json(text: &str) -> Result<Audit, String> {
        let mut a: Audit =
            serde_json::from_str(text).map_err(|e| format!("not an audit document: {e}"))?;
        if a.version != VERSION {
            return Err(format!(
                "an audit document of version {}, not {VERSION}",
                a.version
            ));
        }
        for s in a.days.values().flat_map(|d| &d.findings) {
            if Severity::parse(&s.severity).is_none() {
                return Err(format!(
                    "an audit document with the severity {:?}",
                    crate::core::escape::one_line(&s.severity)
                ));
            }
        }
        if let Some(k) = a.days.keys().find(|k| !is_day(k)) {
            return Err(format!(
                "an audit document with the day {:?}",
                crate::core::escape::one_line(k)
            ));
        }
        let stated = (a.diagnostics, a.by_rule.clone(), a.statistics.clone());
        a.count();
        if stated != (a.diagnostics, a.by_rule.clone(), a.statistics.clone()) {
            return Err("the audit document's totals do not add up to its days".into());
        }
        Ok(a)
    }

    /// Every day, oldest first, the undated ones last.
    pub fn day_keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = self
            .days
            .keys()
            .map(String::as_str)
            .filter(|k| *k != UNDATED)
            .collect();
        if self.days.contains_key(UNDATED) {
            keys.push(UNDATED);
        }
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(rule: &str, agent: Option<&str>, severity: &str, n: usize) -> Cell {
        Cell {
            rule: rule.into(),
            agent: agent.map(str::to_string),
            severity: severity.into(),
            n,
        }
    }

    fn part(day: &str, key: &str, cells: Vec<Cell>, says: usize) -> Audit {
        let mut a = Audit {
            version: VERSION,
            files: 1,
            records: 10,
            calls: 1,
            ..Audit::default()
        };
        a.says.insert("Ann".into(), says);
        let d = a.days.entry(day.into()).or_default();
        d.calls = 1;
        d.says.insert("Ann".into(), says);
        d.findings = cells.clone();
        a.top.push(CallRow {
            key: key.into(),
            call: Some(key.into()),
            files: vec![format!("{key}.jsonl")],
            day: day.into(),
            findings: cells.iter().map(|c| c.n).sum(),
            errors: cells
                .iter()
                .filter(|c| c.severity == "error")
                .map(|c| c.n)
                .sum(),
            cells,
            ..CallRow::default()
        });
        a.count();
        a
    }

    #[test]
    fn merged_parts_sum_and_rates_come_from_the_sums() {
        let a = part(
            "2026-10-01",
            "c-1",
            vec![cell("long-say", Some("Ann"), "warning", 2)],
            10,
        );
        let b = part(
            "2026-10-01",
            "c-2",
            vec![
                cell("long-say", Some("Ann"), "warning", 1),
                cell("label-too-long", Some("Ann"), "error", 1),
            ],
            30,
        );
        let m = Audit::merge(vec![a, b], 1);
        assert_eq!(m.calls, 2);
        assert_eq!(m.diagnostics, 4);
        assert_eq!(m.by_rule["long-say"], 3);
        assert_eq!(m.statistics.rules["long-say"].per_100_says, Some(7.5));
        assert_eq!(m.statistics.agents["Ann"].per_100_says, Some(10.0));
        assert_eq!(m.days["2026-10-01"].findings.len(), 2);
        // The call with an error first; the other stays as long-say's.
        let keys: Vec<&str> = m.top.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["c-2", "c-1"]);
        // And its document reads back as itself.
        assert_eq!(Audit::from_json(&m.to_json()).unwrap(), m);
    }

    #[test]
    fn a_document_whose_totals_do_not_add_up_is_refused() {
        let a = part(
            "2026-10-01",
            "c-1",
            vec![cell("long-say", Some("Ann"), "warning", 2)],
            10,
        );
        let bad = a
            .to_json()
            .replace("\"diagnostics\": 2", "\"diagnostics\": 3");
        assert!(Audit::from_json(&bad).is_err());
        let odd = a.to_json().replace("\"warning\"", "\"<b>\"");
        assert!(Audit::from_json(&odd).is_err());
        assert!(Audit::from_json("[]").is_err());
    }

    #[test]
    fn days_without_a_date_are_undated() {
        assert_eq!(day_of(5_000), None);
        assert_eq!(day_of(1_791_618_000_000).as_deref(), Some("2026-10-10"));
        assert!(is_day("2026-10-10") && is_day(UNDATED));
        for bad in ["2026-02-30", "2026-1-10", "x", "1970-01-01", "2026-10-10T"] {
            assert!(!is_day(bad), "{bad}");
        }
    }
}
