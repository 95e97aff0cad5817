//! `callint report FILES... [--html OUT]`: the post-mortem of one call.
//!
//! Each file is one agent's log of the same call. Every file is linted with
//! the normal [`Linter`] (all rules, the nearest `callint.toml`) and the
//! room pass of `check` ([`crate::room::pass`]), and the files are merged
//! into one room timeline with [`crate::room::merge`], the merge `check`
//! uses too: each agent's own says come from its own log, and a line that
//! several logs saw (the same speaker and text within
//! [`crate::room::MERGE_MS`]) is kept once. The summary goes to the
//! terminal; with `--html` the same view is written as one self-contained
//! page ([`crate::report::html`]).

use crate::core::hash::HashMap;
use std::path::PathBuf;

use crate::core::escape::{elide, file_name, one_line};
use crate::input;
use crate::lint::engine::{FileResult, Linter};
use crate::model::digest::Digest;
use crate::model::turns::{self, same_name};
use crate::model::{next_event, Body, Call, Cast, EventKind, Log, Ms, Op, Who};
use crate::report::html::{
    self, clock, seconds, AgentRow, FileInfo, FindingRow, Lane, LaneKind, Mark, Page,
};
use crate::report::{resolve, LineIndex, Summary};
use crate::room::{self, Lanes as _, Line};

#[derive(clap::Args)]
pub struct ReportArgs {
    /// The logs of one call: one file per agent (or a single agent's log),
    /// folders of them, or `-` for standard input. Logs of several calls are
    /// reported call by call.
    #[arg(required = true, value_name = "FILES")]
    files: Vec<PathBuf>,
    /// Report only the call with this id (when the logs hold several).
    #[arg(long, value_name = "ID")]
    call: Option<String>,
    /// Also write the report as one self-contained HTML page (timeline, per-agent table, findings).
    #[arg(long, value_name = "OUT")]
    html: Option<PathBuf>,
    /// Use this configuration file instead of the nearest callint.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    config: Option<PathBuf>,
    /// Ignore every callint.toml.
    #[arg(long)]
    no_config: bool,
}

use super::{emit, fail, warn};

/// One file given: its findings and its logs.
struct Source {
    path: String,
    result: FileResult,
    logs: Vec<Log>,
}

/// One log's view of the call.
struct View<'a> {
    file: usize,
    call: Call<'a>,
}

/// Run `callint report`; the exit code.
pub fn run(args: ReportArgs) -> u8 {
    let settings = crate::app::batch::Settings {
        config: crate::app::batch::ConfigChoice::from_flags(args.no_config, args.config.as_deref()),
        ..crate::app::batch::Settings::default()
    };
    let config = match settings.load(settings.config_path(&args.files[0]).as_deref()) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let linter = match Linter::new(&config, None, &[]) {
        Ok(l) => l,
        Err(e) => return fail(e),
    };
    let mut paths = Vec::new();
    for f in &args.files {
        if f.as_os_str() == "-" {
            paths.push(f.clone());
            continue;
        }
        let mut found = Vec::new();
        let mut errors = Vec::new();
        crate::app::walk::files(f, &mut found, &mut errors);
        if let Some(e) = errors.iter().find(|e| e.fatal) {
            return fail(format_args!(
                "cannot read {}: {}",
                file_name(&e.path.to_string_lossy()),
                e.error
            ));
        }
        if found.is_empty() {
            return fail(format_args!(
                "no log below {}",
                file_name(&f.to_string_lossy())
            ));
        }
        paths.extend(found);
    }
    let (mut results, logs) = match lint_files(&linter, &paths) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    // What the room of the call shows beyond each log, as `check` finds it.
    room::pass(&linter, &mut results);
    let sources: Vec<Source> = results
        .into_iter()
        .zip(logs)
        .map(|(result, logs)| Source {
            path: result.path.clone(),
            result,
            logs,
        })
        .collect();
    let mut calls = by_call(sources);
    if let Some(id) = &args.call {
        calls.retain(|(c, _)| c.as_deref() == Some(id.as_str()));
        if calls.is_empty() {
            return fail(format_args!(
                "no log of call {} among the files",
                one_line(id)
            ));
        }
    }
    if calls.len() > 1 && args.html.is_some() {
        let ids: Vec<String> = calls
            .iter()
            .map(|(c, _)| c.as_deref().map_or("(no call id)".to_string(), one_line))
            .collect();
        return fail(format_args!(
            "the logs hold {} calls ({}); a page shows one: pick it with --call ID",
            calls.len(),
            ids.join(", ")
        ));
    }
    let cast = Cast {
        human: config.human.clone(),
        voicebot: config.voicebot.clone(),
    };
    let mut out = String::new();
    if calls.len() > 1 {
        out.push_str(&format!(
            "The logs hold {} calls, reported one after another (--call ID picks one).\n\n",
            calls.len()
        ));
    }
    // Every call's findings, for the exit code: 1 when one is an error, as
    // `check` exits by default.
    let mut all = Summary::default();
    for (k, (_, sources)) in calls.iter().enumerate() {
        if k > 0 {
            out.push_str("\n\n");
        }
        let mut page = build(sources, &cast);
        crate::report::html::bound(&mut page);
        let mut summary = Summary::default();
        for s in sources {
            summary.add(&s.result);
            all.add(&s.result);
        }
        out.push_str(&terminal(&page, &summary));
        if let Some(path) = &args.html {
            if let Err(e) = std::fs::write(path, html::render(&page)) {
                return fail(format!(
                    "cannot write {}: {e}",
                    file_name(&path.to_string_lossy())
                ));
            }
            out.push_str(&format!(
                "HTML report written to {}\n",
                file_name(&path.to_string_lossy())
            ));
        }
    }
    let code = match super::adopt::fails(&all, crate::core::diagnostic::Severity::Error, None) {
        Some(_) => 1,
        None => 0,
    };
    emit(out.as_bytes(), code)
}

/// Read and lint each of `paths` (`-`: standard input, once), keeping the
/// logs each holds.
fn lint_files(
    linter: &Linter,
    paths: &[PathBuf],
) -> Result<(Vec<FileResult>, Vec<Vec<Log>>), String> {
    let mut results = Vec::new();
    let mut logs = Vec::new();
    let mut stdin_read = false;
    for f in paths {
        let bytes = if f.as_os_str() == "-" {
            if std::mem::replace(&mut stdin_read, true) {
                continue;
            }
            match crate::app::batch::read_stdin() {
                Ok(b) => b,
                Err(e) => return Err(format!("cannot read standard input: {e}")),
            }
        } else {
            match std::fs::read(f) {
                Ok(b) => b,
                Err(e) => {
                    return Err(format!(
                        "cannot read {}: {e}",
                        file_name(&f.to_string_lossy())
                    ))
                }
            }
        };
        let path = f.to_string_lossy().into_owned();
        let (bytes, _) = input::text::decode_owned(input::packed::unpack(bytes).bytes);
        let parsed = input::parse_with(input::detect(&path, &bytes), &bytes, linter.read_options());
        results.push(linter.lint(&path, bytes));
        logs.push(parsed.logs);
    }
    Ok((results, logs))
}

/// The post-mortem page of one call, as `callint report FILES --call ID
/// --html` writes it: `files` are the logs that hold the call, linted with
/// the configuration `settings` finds for the first of them. `call` picks
/// the call when the logs hold several.
pub(super) fn call_page(
    settings: &crate::app::batch::Settings,
    files: &[PathBuf],
    call: Option<&str>,
) -> Result<String, String> {
    let first = files.first().ok_or("no log of the call")?;
    let config_path = settings.config_path(first);
    let config = settings.load(config_path.as_deref())?;
    let linter = settings.linter(config_path.as_deref())?;
    let (mut results, logs) = lint_files(&linter, files)?;
    room::pass(&linter, &mut results);
    let sources: Vec<Source> = results
        .into_iter()
        .zip(logs)
        .map(|(result, logs)| Source {
            path: result.path.clone(),
            result,
            logs,
        })
        .collect();
    let mut calls = by_call(sources);
    let pos = match call {
        Some(id) => calls.iter().position(|(c, _)| c.as_deref() == Some(id)),
        None if calls.len() == 1 => Some(0),
        None => None,
    };
    let (_, sources) = calls
        .drain(..)
        .nth(pos.ok_or("the logs do not hold that call first")?)
        .ok_or("no such call")?;
    let cast = Cast {
        human: config.human.clone(),
        voicebot: config.voicebot.clone(),
    };
    let mut page = build(&sources, &cast);
    crate::report::html::bound(&mut page);
    Ok(html::render(&page))
}

/// The files grouped by the call their logs record, in the order the
/// files came. A file's call is the first call id its logs hold; files
/// without one go with the only call there is, or else form a group of
/// their own.
fn by_call(sources: Vec<Source>) -> Vec<(Option<String>, Vec<Source>)> {
    let mut groups: Vec<(Option<String>, Vec<Source>)> = Vec::new();
    let mut loose = Vec::new();
    for s in sources {
        let id = s
            .logs
            .iter()
            .find_map(|l| crate::model::call_id(l.records.iter()))
            .map(str::to_string);
        match id {
            None => loose.push(s),
            Some(id) => match groups.iter_mut().find(|g| g.0.as_deref() == Some(&id)) {
                Some(g) => g.1.push(s),
                None => groups.push((Some(id), vec![s])),
            },
        }
    }
    if !loose.is_empty() {
        match groups.as_mut_slice() {
            [only] => only.1.extend(loose),
            _ => groups.push((None, loose)),
        }
    }
    groups
}

/// The view of the call that both the terminal and the page show.
fn build(sources: &[Source], cast: &Cast) -> Page {
    let mut views: Vec<View<'_>> = Vec::new();
    for (file, s) in sources.iter().enumerate() {
        for l in &s.logs {
            views.push(View {
                file,
                call: Call::build(l.meta.as_ref(), &l.records, cast),
            });
        }
    }
    let ids: Vec<&str> = {
        let mut v: Vec<&str> = views.iter().filter_map(|v| v.call.call_id).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    if ids.len() > 1 {
        warn(format_args!(
            "warning: the logs hold {} calls ({}); they are reported as one",
            ids.len(),
            one_line(&ids.join(", "))
        ));
    }

    let human = views.iter().find_map(|v| v.call.human).map(str::to_string);
    let voicebot = views
        .first()
        .map(|v| v.call.voicebot.to_string())
        .unwrap_or_else(|| "Delta".to_string());
    let mut lanes = Lanes::new(human.clone(), voicebot.clone());
    // Agents: each log's recorder (with its role), then everyone it heard.
    for v in &views {
        if let Some(me) = v.call.recorder {
            let role = v.call.recorder_role.map(|r| match r {
                crate::model::Role::Owner => "owner",
                crate::model::Role::Participant => "participant",
            });
            let k = lanes.agent(me);
            if lanes.lanes[k].role.is_none() {
                lanes.lanes[k].role = role;
            }
        }
    }
    for v in &views {
        for a in &v.call.agents {
            lanes.agent(&a.label);
        }
    }

    let digests: Vec<Digest> = views.iter().map(|v| Digest::of(&v.call)).collect();
    let refs: Vec<&Digest> = digests.iter().collect();
    let mut lines = room::merge(&refs, &mut lanes);
    order_agents(&views, &mut lanes, &mut lines);

    // The call runs from the first join (or line) to the last function call
    // (or line).
    let mut start: Option<Ms> = lines.iter().map(|l| l.ts).min();
    let mut end: Option<Ms> = lines.iter().map(|l| l.ts).max();
    for v in &views {
        for r in v.call.records {
            let Some(ts) = r.ts else { continue };
            if let Body::Fn(f) = &r.body {
                if let Op::Join(j) = &f.op {
                    if f.ok() && j.joined() {
                        start = Some(start.map_or(ts, |s| s.min(ts)));
                    }
                }
                end = Some(end.map_or(ts, |e| e.max(ts)));
            }
        }
    }
    if start.is_none() {
        start = views
            .iter()
            .flat_map(|v| v.call.records.iter().filter_map(|r| r.ts))
            .min();
    }
    let timed = views
        .iter()
        .any(|v| v.call.records.iter().any(|r| r.ts.is_some()));
    let start = start.unwrap_or(0);
    let end = end.unwrap_or(start).max(start);
    let rel = |ts: Ms| ts.saturating_sub(start).max(0);

    // Presence: from each successful join to the next leave, per own log.
    for v in &views {
        let Some(me) = v.call.recorder else { continue };
        let k = lanes.agent(me);
        let mut since: Option<Ms> = None;
        for r in v.call.records {
            let (Body::Fn(f), Some(ts)) = (&r.body, r.ts) else {
                continue;
            };
            match &f.op {
                Op::Join(j) if f.ok() && j.joined() && since.is_none() => since = Some(ts),
                Op::Leave => {
                    if let Some(s) = since.take() {
                        lanes.lanes[k].present.push((rel(s), rel(ts)));
                    }
                }
                _ => {}
            }
        }
        if let Some(s) = since {
            lanes.lanes[k].present.push((rel(s), rel(end)));
        }
    }

    // Language: the join contexts, context events and create_call.
    let mut langs: Vec<(Ms, String)> = Vec::new();
    let mut title: Option<String> = None;
    for v in &views {
        for l in &v.call.langs {
            // A setting without a time holds from the start.
            let ts = v.call.records[l.record].ts.unwrap_or(Ms::MIN);
            langs.push((ts, l.lang.to_string()));
        }
        for r in v.call.records {
            if let Some(f) = r.as_fn() {
                if let Op::CreateCall(c) = &f.op {
                    if title.is_none() {
                        title = c.title.clone();
                    }
                    if let Some(l) = &c.lang {
                        langs.push((r.ts.unwrap_or(Ms::MIN), l.clone()));
                    }
                }
            }
        }
    }
    if langs.is_empty() {
        // Nothing set the call's language (a meeting's transcript or
        // captions): the language most of what was said is in, told as
        // heard.
        if let Some(l) = heard_language(&views) {
            langs.push((Ms::MIN, format!("{} (as heard)", l.code())));
        }
    }
    langs.sort();
    let mut lang_changes: Vec<(Ms, String)> = Vec::new();
    for (ts, l) in langs {
        if lang_changes.last().map(|x| &x.1) != Some(&l) {
            lang_changes.push((rel(ts), l));
        }
    }

    // Marks.
    let mut marks: Vec<Mark> = lines
        .iter()
        .map(|l| Mark {
            lane: l.lane,
            at: rel(l.ts),
            text: l.text.clone(),
            addressed: {
                let mut a: Vec<usize> = l.addressed.iter().filter_map(|n| lanes.find(n)).collect();
                a.dedup();
                a
            },
            dropped: l.dropped,
            findings: Vec::new(),
        })
        .collect();
    let mut by_copy: HashMap<(usize, usize), Vec<usize>> = HashMap::default();
    for (k, l) in lines.iter().enumerate() {
        for c in &l.copies {
            by_copy.entry((c.view, c.record)).or_default().push(k);
        }
    }

    // Findings, each at its file, line and record time.
    let mut findings: Vec<FindingRow> = Vec::new();
    for (fi, s) in sources.iter().enumerate() {
        let src = &s.result.source;
        let index = LineIndex::new(src);
        let recorder = views
            .iter()
            .find(|v| v.file == fi && v.call.recorder.is_some())
            .and_then(|v| v.call.recorder);
        for d in &s.result.diagnostics {
            let at = resolve(src, &index, &d.primary.at);
            // The source line, the value the finding points at marked.
            let span = index.line_span(src, at.line);
            let (hs, he) = (
                at.span.start.clamp(span.start, span.end),
                at.span.end.clamp(span.start, span.end),
            );
            let before = String::from_utf8_lossy(&src[span.start..hs]);
            let hit = String::from_utf8_lossy(&src[hs..he.max(hs)]);
            let after = String::from_utf8_lossy(&src[he.max(hs)..span.end]);
            let hit_range = (before.len(), before.len() + hit.len());
            let source = format!("{before}{hit}{after}");
            // A finding on the file itself (it cannot be read, has no
            // times, does not say who is who) is no agent's.
            let of_file = crate::rules::meta(d.rule).is_some_and(|m| m.rulebook == "format");
            let agent = d
                .agent
                .clone()
                .or_else(|| recorder.filter(|_| !of_file).map(str::to_string));
            let lane = agent.as_deref().and_then(|a| lanes.find(a));
            // The record the finding points into, in any log of the file.
            let rec = views
                .iter()
                .enumerate()
                .filter(|(_, v)| v.file == fi)
                .find_map(|(vi, v)| {
                    crate::model::record_index(v.call.records, at.span.start).map(|r| (vi, r))
                });
            let time = rec.and_then(|(vi, r)| views[vi].call.records[r].ts);
            let mark = rec.and_then(|c| {
                by_copy
                    .get(&c)?
                    .iter()
                    .copied()
                    .find(|&m| Some(lines[m].lane) == lane)
            });
            findings.push(FindingRow {
                rule: d.rule,
                severity: d.severity,
                message: d.message.clone(),
                help: d.help.clone(),
                agent,
                lane,
                file: s.path.clone(),
                line: at.line,
                column: at.column,
                at: time.map(rel),
                source,
                hit: hit_range,
                mark,
            });
        }
    }
    findings.sort_by(|a, b| {
        (a.at.unwrap_or(Ms::MAX), &a.file, a.line, a.rule).cmp(&(
            b.at.unwrap_or(Ms::MAX),
            &b.file,
            b.line,
            b.rule,
        ))
    });
    for (k, f) in findings.iter().enumerate() {
        if let Some(m) = f.mark {
            marks[m].findings.push(k);
        }
    }

    let agents = agent_rows(&views, sources, &lanes, &lines, &findings);
    let files = sources
        .iter()
        .enumerate()
        .map(|(fi, s)| {
            // A transcript is seen from every agent's side: name them all.
            let mut who: Vec<&str> = Vec::new();
            for r in views
                .iter()
                .filter(|v| v.file == fi)
                .filter_map(|v| v.call.recorder)
            {
                if !who.contains(&r) {
                    who.push(r);
                }
            }
            FileInfo {
                path: s.path.clone(),
                agent: (!who.is_empty()).then(|| who.join(", ")),
                records: s.result.records,
            }
        })
        .collect();
    Page {
        title,
        call_id: ids.first().map(|s| s.to_string()),
        started: timed.then_some(start),
        duration: end - start,
        langs: lang_changes,
        files,
        lanes: lanes.lanes,
        marks,
        findings,
        agents,
    }
}

/// Agents' lanes: the owner first, then in the order they came into the
/// call (their join, or their first line).
fn order_agents(views: &[View<'_>], lanes: &mut Lanes, lines: &mut [Line]) {
    let n = lanes.lanes.len();
    let mut first: Vec<Ms> = vec![Ms::MAX; n];
    for l in lines.iter() {
        first[l.lane] = first[l.lane].min(l.ts);
    }
    for v in views {
        let Some(k) = v.call.recorder.and_then(|me| lanes.find(me)) else {
            continue;
        };
        for r in v.call.records {
            if let (Some(f), Some(ts)) = (r.as_fn(), r.ts) {
                if matches!(&f.op, Op::Join(j) if f.ok() && j.joined()) {
                    first[k] = first[k].min(ts);
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| {
        let l = &lanes.lanes[k];
        match l.kind {
            LaneKind::Human => (0, 0, 0),
            LaneKind::Voicebot => (1, 0, 0),
            LaneKind::Agent => (2, i64::from(l.role != Some("owner")), first[k]),
        }
    });
    let mut new_of = vec![0; n];
    for (new, &old) in order.iter().enumerate() {
        new_of[old] = new;
    }
    let mut old: Vec<Option<Lane>> = std::mem::take(&mut lanes.lanes)
        .into_iter()
        .map(Some)
        .collect();
    lanes.lanes = order.iter().filter_map(|&k| old[k].take()).collect();
    for l in lines.iter_mut() {
        l.lane = new_of[l.lane];
    }
}

/// The participants' lanes: the human, the voicebot, then the agents.
struct Lanes {
    lanes: Vec<Lane>,
    human: usize,
    voicebot: usize,
}

impl Lanes {
    /// The human's lane (named `human` when no log names the human) and
    /// the voicebot's.
    fn new(human: Option<String>, voicebot: String) -> Lanes {
        let lane = |name: String, kind: LaneKind| Lane {
            name,
            kind,
            role: None,
            present: Vec::new(),
        };
        Lanes {
            lanes: vec![
                lane(
                    human.unwrap_or_else(|| "human".to_string()),
                    LaneKind::Human,
                ),
                lane(voicebot, LaneKind::Voicebot),
            ],
            human: 0,
            voicebot: 1,
        }
    }

    /// The lane of a name: a participant's, or the voicebot's for the names
    /// speech recognition hears for it.
    fn find(&self, name: &str) -> Option<usize> {
        if crate::model::is_voicebot(&self.lanes[self.voicebot].name, name) {
            return Some(self.voicebot);
        }
        self.lanes.iter().position(|l| same_name(&l.name, name))
    }
}

impl room::Lanes for Lanes {
    fn human(&self) -> usize {
        self.human
    }
    fn voicebot(&self) -> usize {
        self.voicebot
    }
    /// An agent's lane, made on first use.
    fn agent(&mut self, name: &str) -> usize {
        if let Some(k) = self.find(name) {
            return k;
        }
        self.lanes.push(Lane {
            name: name.to_string(),
            kind: LaneKind::Agent,
            role: None,
            present: Vec::new(),
        });
        self.lanes.len() - 1
    }
}

fn agent_rows(
    views: &[View<'_>],
    sources: &[Source],
    lanes: &Lanes,
    lines: &[Line],
    findings: &[FindingRow],
) -> Vec<AgentRow> {
    let mut rows = Vec::new();
    for (k, lane) in lanes.lanes.iter().enumerate() {
        if lane.kind != LaneKind::Agent {
            continue;
        }
        let mut row = AgentRow {
            name: lane.name.clone(),
            role: lane.role,
            ..AgentRow::default()
        };
        for l in lines.iter().filter(|l| l.lane == k && !l.dropped) {
            row.says += 1;
            row.words += crate::text::phrases::lower_words(&l.text).len();
        }
        let own: Vec<&View<'_>> = views
            .iter()
            .filter(|v| v.call.recorder.is_some_and(|r| same_name(r, &lane.name)))
            .collect();
        for v in &own {
            let p = &sources[v.file].path;
            if !row.logs.contains(p) {
                row.logs.push(p.clone());
            }
        }
        if own.is_empty() {
            acks_on_timeline(k, lanes, lines, &mut row);
        } else {
            let mut out = 0;
            for v in &own {
                acks_in_log(&v.call, &lane.name, &mut row);
                out += turns::verdicts(&v.call).len();
            }
            row.out_of_turn = Some(out);
        }
        let mut by_rule: Vec<(&'static str, usize)> = Vec::new();
        for f in findings.iter().filter(|f| f.lane == Some(k)) {
            match by_rule.iter_mut().find(|r| r.0 == f.rule) {
                Some(r) => r.1 += 1,
                None => by_rule.push((f.rule, 1)),
            }
        }
        by_rule.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        row.by_rule = by_rule;
        rows.push(row);
    }
    // The owner first, then the others in lane order.
    rows.sort_by_key(|r| r.role != Some("owner"));
    rows
}

/// From each human line naming the agent to its first `say`, as its own
/// log records them (the line's time, the `say` record's time).
fn acks_in_log(call: &Call<'_>, me: &str, row: &mut AgentRow) {
    let recs = call.records;
    for u in &call.utterances {
        if u.who != Who::Human || !names(u.addressed_to_you, &u.addressed_to, me) {
            continue;
        }
        row.addressed += 1;
        let Some(t0) = u.ts().or(recs[u.record()].ts) else {
            continue;
        };
        let mut answered = false;
        for r in recs.iter().skip(u.record() + 1).filter(|r| r.is_main()) {
            let Body::Fn(f) = &r.body else { continue };
            match &f.op {
                Op::Say(_) => {
                    if let Some(t) = r.ts {
                        row.acks.push((t - t0).max(0));
                        answered = true;
                    }
                    break;
                }
                Op::Next(_)
                    if next_event(r).is_some_and(|e| matches!(e.kind, EventKind::User(_))) =>
                {
                    break
                }
                _ => {}
            }
        }
        if !answered {
            row.unanswered += 1;
        }
    }
}

/// The same from the merged timeline, for an agent without a log: from the
/// human's line to the agent's first line before the human speaks again.
fn acks_on_timeline(k: usize, lanes: &Lanes, lines: &[Line], row: &mut AgentRow) {
    let human = lanes.human;
    for (i, l) in lines.iter().enumerate() {
        if l.lane != human || !l.addressed.iter().any(|n| lanes.find(n) == Some(k)) {
            continue;
        }
        row.addressed += 1;
        let reply = lines[i + 1..]
            .iter()
            .take_while(|m| m.lane != human)
            .find(|m| m.lane == k && !m.dropped);
        match reply {
            Some(m) => row.acks.push(m.ts - l.ts),
            None => row.unanswered += 1,
        }
    }
}

fn names<S: AsRef<str>>(to_you: Option<bool>, to: &[S], me: &str) -> bool {
    to_you == Some(true) || to.iter().any(|n| same_name(n.as_ref(), me))
}

/// The widest the agent column of the table grows, in characters.
const NAME_COLUMN: usize = 32;

/// The summary for the terminal. Every name from a log is escaped.
fn terminal(p: &Page, summary: &Summary) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = write!(o, "Call");
    match &p.call_id {
        Some(id) => {
            let _ = write!(o, " {}", one_line(id));
        }
        None => o.push_str(" (no call id in the logs)"),
    }
    if let Some(t) = &p.title {
        let _ = write!(o, " \"{}\"", one_line(t));
    }
    o.push('\n');
    let who: Vec<String> = p
        .lanes
        .iter()
        .map(|l| format!("{} ({})", one_line(&l.name), l.what()))
        .collect();
    let _ = writeln!(o, "  participants  {}", who.join(", "));
    let _ = writeln!(o, "  language      {}", one_line(&html::lang_line(p)));
    let _ = write!(o, "  duration      {}", clock(p.duration));
    if let Some(s) = p.started {
        let _ = write!(o, ", from {}", html::date_time(s));
    }
    o.push('\n');
    for (k, f) in p.files.iter().enumerate() {
        let _ = write!(
            o,
            "  {}{}",
            if k == 0 {
                "logs          "
            } else {
                "              "
            },
            file_name(&f.path)
        );
        if let Some(a) = &f.agent {
            let _ = write!(o, " ({})", one_line(a));
        }
        o.push('\n');
    }
    let per_lane: Vec<String> = p
        .lanes
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let n = p.marks.iter().filter(|m| m.lane == k && !m.dropped).count();
            format!("{} {n}", one_line(&l.name))
        })
        .collect();
    let heard = p.marks.iter().filter(|m| !m.dropped).count();
    let _ = writeln!(o, "  lines         {heard} heard: {}", per_lane.join(", "));

    // Per agent.
    // A name from a log may be of any length: the table shows its start.
    let names: Vec<String> = p
        .agents
        .iter()
        .map(|a| elide(&one_line(&a.name), NAME_COLUMN).into_owned())
        .collect();
    let w = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    if p.agents.is_empty() {
        let _ = writeln!(o, "\nno agent in the logs");
    } else {
        let _ = writeln!(
            o,
            "\n{:<w$}  {:<11}  {:>4}  {:>5}  {:>9}  {:>10}  {:>9}  {:>6}  {:>11}  {:>8}",
            "agent",
            "role",
            "says",
            "words",
            "addressed",
            "ack median",
            "ack worst",
            "no ack",
            "out of turn",
            "findings"
        );
        for (a, name) in p.agents.iter().zip(&names) {
            let opt = |v: Option<Ms>| v.map(seconds).unwrap_or_else(|| "-".to_string());
            let pad = w.saturating_sub(name.chars().count());
            let _ = writeln!(
                o,
                "{name}{:pad$}  {:<11}  {:>4}  {:>5}  {:>9}  {:>10}  {:>9}  {:>6}  {:>11}  {:>8}",
                "",
                a.role.unwrap_or("-"),
                a.says,
                a.words,
                a.addressed,
                opt(a.median_ack()),
                opt(a.worst_ack()),
                a.unanswered,
                a.out_of_turn
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| "-".to_string()),
                a.findings()
            );
        }
        let _ = writeln!(
            o,
            "(ack: from the human's line naming the agent to its first say; out of turn: says over Delta, in another's turn, or answering for the human)"
        );
    }

    // Findings by rule, with the agents at fault.
    if !p.findings.is_empty() {
        let mut rules: Vec<(&str, Vec<(String, usize)>)> = Vec::new();
        for f in &p.findings {
            let who = f
                .lane
                .map(|l| one_line(&p.lanes[l].name))
                .or_else(|| f.agent.as_deref().map(one_line))
                .unwrap_or_else(|| "(no agent)".to_string());
            let slot = match rules.iter().position(|r| r.0 == f.rule) {
                Some(k) => k,
                None => {
                    rules.push((f.rule, Vec::new()));
                    rules.len() - 1
                }
            };
            match rules[slot].1.iter_mut().find(|x| x.0 == who) {
                Some(x) => x.1 += 1,
                None => rules[slot].1.push((who, 1)),
            }
        }
        let total = |r: &(&str, Vec<(String, usize)>)| r.1.iter().map(|x| x.1).sum::<usize>();
        rules.sort_by(|a, b| total(b).cmp(&total(a)).then(a.0.cmp(b.0)));
        let _ = writeln!(o, "\nfindings by rule");
        for r in &rules {
            let by: Vec<String> = r.1.iter().map(|(a, n)| format!("{a} {n}")).collect();
            let _ = writeln!(o, "  {:<28} {:>3}  {}", r.0, total(r), by.join(", "));
        }
    }
    let _ = writeln!(o, "\n{}", summary.line());
    o
}

/// The language of what was said in the call, by the first lines of its
/// first view (enough to tell, and bounded): `None` when they are too few
/// or mixed.
fn heard_language(views: &[View<'_>]) -> Option<crate::text::language::Lang> {
    const CHARS: usize = 16 * 1024;
    let mut text = String::new();
    for u in views.iter().flat_map(|v| v.call.utterances.iter()) {
        if text.len() >= CHARS {
            break;
        }
        text.push_str(u.text);
        text.push_str(".\n");
    }
    crate::text::language::identify(&text, &[]).lang()
}
