//! The engine: the `Rule` trait, rule selection and options, and running
//! every active rule over every call of a file.

use std::collections::BTreeMap;

use crate::core::diagnostic::{dedup, sort, Diagnostic, Label, Severity};
use crate::core::meta::{Evidence, OptValue, RuleMeta, Scope};
use crate::input::{self, Problem};
use crate::lint::config::{Config, ConfigError};
use crate::model::{Call, Cast, Record, Via, Who};
use crate::rules::{self, Cx, Rule};

/// An active rule with its resolved severity and options.
struct Active {
    rule: &'static dyn Rule,
    severity: Severity,
    options: BTreeMap<&'static str, OptValue>,
}

impl Active {
    /// Run the rule over one call, its findings going to `out`.
    fn check(&self, call: &Call<'_>, judged: Option<usize>, out: &mut Vec<Diagnostic>) {
        let mut cx = Cx {
            call,
            meta: self.rule.meta(),
            severity: self.severity,
            options: &self.options,
            out,
            judged,
        };
        self.rule.check(&mut cx);
    }
}

/// Calls of at least this many records have their rules run side by side
/// ([`Linter::run`]); below it, the threads cost more than they save.
const PARALLEL_RECORDS: usize = 4096;

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
    /// (docs/formats.md: several logs of one call): what `callint check` groups the files of one call
    /// by, to merge them into one room ([`crate::room`]). Empty for other
    /// inputs.
    pub calls: Vec<CallSeen>,
    /// Findings left out because a baseline accepts them.
    pub baselined: usize,
    /// The length of the bytes linted (unpacked), which findings point
    /// into; the source may have been let go.
    pub len: usize,
    /// The digests of the native logs' calls with an id, made only when
    /// asked for ([`Linter::lint_keeping`]): the room pass then merges
    /// them instead of reading the file again. Empty otherwise.
    pub digests: Vec<crate::model::digest::Digest>,
}

/// One call of a native log, as far as the room pass needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSeen {
    /// The call id ([`crate::model::call_id`]).
    pub id: String,
    /// The recording agent.
    pub recorder: Option<String>,
    /// Every agent the log shows: the recorder and everyone it heard.
    pub agents: Vec<String>,
    /// The time of the call's first dated record (epoch milliseconds).
    pub start: Option<crate::model::Ms>,
}

/// Where [`Linter::lint_log`] notes a native log's calls with an id, and
/// their digests when asked for.
struct Seen<'a> {
    calls: &'a mut Vec<CallSeen>,
    digests: Option<&'a mut Vec<crate::model::digest::Digest>>,
}

/// Rules chosen and configured, ready to lint files.
pub struct Linter {
    active: Vec<Active>,
    /// Findings of one rule a file shows; 0: all.
    max_repeats: usize,
    /// Severity of `invalid-record`, if selected.
    invalid: Option<Severity>,
    /// Severity of `no-times`, if selected.
    untimed: Option<Severity>,
    /// Severity of `unused-suppression`, if selected.
    unused: Option<Severity>,
    /// Severity of `unknown-roles`, if selected.
    unroled: Option<Severity>,
    cast: Cast,
    read: input::Options,
    /// `per-file-ignores`: a matcher per pattern, and the rules it skips.
    per_file: Vec<(ignore::gitignore::Gitignore, Vec<String>)>,
    /// Once set, runs end early ([`Linter::stop_with`]).
    stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
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
        let untimed = if wanted(rules::NO_TIMES.name) {
            config.rule(&rules::NO_TIMES)?.severity
        } else {
            None
        };
        let unroled = if wanted(rules::UNKNOWN_ROLES.name) {
            config.rule(&rules::UNKNOWN_ROLES)?.severity
        } else {
            None
        };
        let unused = if wanted(rules::UNUSED_SUPPRESSION.name) {
            config.rule(&rules::UNUSED_SUPPRESSION)?.severity
        } else {
            None
        };
        let base = config
            .path
            .as_deref()
            .and_then(std::path::Path::parent)
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default();
        let base = std::fs::canonicalize(&base).unwrap_or(base);
        let mut per_file = Vec::new();
        for (glob, rules) in &config.per_file_ignores {
            let mut b = ignore::gitignore::GitignoreBuilder::new(&base);
            let built = b
                .add_line(None, glob)
                .and_then(|b| b.build())
                .map_err(|e| ConfigError {
                    message: format!(
                        "{}: per-file-ignores: the pattern {glob:?} is not valid: {e}",
                        config.path.as_deref().map_or_else(
                            || crate::lint::config::FILE_NAME.into(),
                            |p| p.display().to_string()
                        )
                    ),
                })?;
            per_file.push((built, rules.clone()));
        }
        Ok(Linter {
            per_file,
            unused,
            unroled,
            active,
            max_repeats: config.max_repeats.unwrap_or(MAX_REPEATS),
            invalid,
            untimed,
            cast: Cast {
                human: config.human.clone(),
                voicebot: config.voicebot.clone(),
            },
            read: config.read_options(),
            stop: None,
        })
    }

    /// Let `flag` stop this linter's runs: once it is set, a run skips the
    /// calls and rules it has not begun, and what it gives is incomplete,
    /// for a caller that drops it (the language server's lint of a
    /// document that changed meanwhile). A run in which the flag is never
    /// set gives what a linter without one gives.
    pub fn stop_with(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.stop = Some(flag);
    }

    /// Whether the run going on was told to stop.
    fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
    }

    pub fn active_rules(&self) -> impl Iterator<Item = &'static RuleMeta> + '_ {
        self.active.iter().map(|a| a.rule.meta())
    }

    /// The rules `per-file-ignores` skips in the file at `path`, with the
    /// pattern that says so.
    pub fn ignored_in(&self, path: &str) -> Vec<(&str, &str)> {
        if self.per_file.is_empty() || path == "-" {
            return Vec::new();
        }
        let p = std::path::Path::new(path);
        let full = std::fs::canonicalize(p)
            .or_else(|_| std::path::absolute(p))
            .unwrap_or_else(|_| p.to_path_buf());
        let mut out = Vec::new();
        for (m, rules) in &self.per_file {
            let hit = m.matched_path_or_any_parents(&full, false);
            if hit.is_ignore() {
                let glob = hit.inner().map_or("", |g| g.original());
                out.extend(rules.iter().map(|r| (r.as_str(), glob)));
            }
        }
        out
    }

    /// Leave out the findings of rules `per-file-ignores` skips in `path`.
    pub fn drop_ignored(&self, path: &str, found: &mut Vec<Diagnostic>) {
        if self.per_file.is_empty() || found.is_empty() {
            return;
        }
        let skip = self.ignored_in(path);
        if !skip.is_empty() {
            found.retain(|d| !skip.iter().any(|(r, _)| *r == d.rule || *r == "all"));
        }
    }

    /// Whether the rule `name` runs (the engine's own findings included).
    pub fn is_active(&self, name: &str) -> bool {
        match name {
            n if n == rules::INVALID_RECORD.name => self.invalid.is_some(),
            n if n == rules::NO_TIMES.name => self.untimed.is_some(),
            n if n == rules::UNKNOWN_ROLES.name => self.unroled.is_some(),
            n if n == rules::UNUSED_SUPPRESSION.name => self.unused.is_some(),
            n => self.active_rules().any(|m| m.name == n),
        }
    }

    /// Lint one file, its format told by its name and content. A
    /// compressed file (gzip, zstd) is unpacked first and told by the name
    /// without its compression ending.
    pub fn lint(&self, path: &str, source: Vec<u8>) -> FileResult {
        self.lint_source(path, source, None, false)
    }

    /// Lint one file read as `format` (unpacked first when compressed).
    pub fn lint_as(&self, path: &str, source: Vec<u8>, format: input::Format) -> FileResult {
        self.lint_source(path, source, Some(format), false)
    }

    /// [`Linter::lint`] or [`Linter::lint_as`], keeping a digest of each
    /// native call with an id in the result's `digests`, for a room pass
    /// that will merge them.
    pub fn lint_keeping(
        &self,
        path: &str,
        source: Vec<u8>,
        format: Option<input::Format>,
    ) -> FileResult {
        self.lint_source(path, source, format, true)
    }

    fn lint_source(
        &self,
        path: &str,
        source: Vec<u8>,
        format: Option<input::Format>,
        keep: bool,
    ) -> FileResult {
        let input::packed::Unpacked {
            bytes: source,
            problem,
            too_large,
        } = input::packed::unpack(source);
        if too_large {
            let parsed = input::Parsed {
                logs: Vec::new(),
                problems: problem.into_iter().collect(),
                ..input::Parsed::default()
            };
            let none = input::native::Dropped::default();
            let mut r = self.lint_parsed(path, parsed, input::Format::Unknown, none, None, false);
            r.len = source.len();
            r.source = source;
            return r;
        }
        // The text every reader reads: its encoding and line ends settled.
        let (source, read_as) = input::text::decode_owned(source);
        let format = format.unwrap_or_else(|| input::detect(path, &source));
        let (mut parsed, mut dropped) = if format == input::Format::Native {
            // A log of many broken lines keeps the first few problems.
            let (log, problems, dropped) = input::native::parse_capped(&source, self.keep());
            (
                input::Parsed {
                    logs: vec![log],
                    problems,
                    ..input::Parsed::default()
                },
                dropped,
            )
        } else {
            let parsed = input::parse_with(format, &source, &self.read);
            (parsed, input::native::Dropped::default())
        };
        input::coverage::settle(format, &source, &mut parsed, &mut dropped);
        parsed.problems.extend(problem);
        parsed
            .problems
            .extend(read_as.map(|e| input::read_as(&source, e)));
        let suppressions = crate::lint::suppress::reads(format).then_some(source.as_slice());
        let mut r = self.lint_parsed(path, parsed, format, dropped, suppressions, keep);
        r.len = source.len();
        r.source = source;
        r
    }

    /// Lint the two halves of a `tee` capture as one trace
    /// ([`input::tee`]): a result for each file, each with the findings
    /// that point into it. The calls and their findings are the input
    /// half's (a call is its request); findings on the texts of an answer
    /// are the output half's. A finding's secondary labels that point into
    /// the other file are left out.
    pub fn lint_pair(
        &self,
        input: (&str, Vec<u8>),
        output: (&str, Vec<u8>),
    ) -> (FileResult, FileResult) {
        let n = input.1.len();
        let m = output.1.len();
        let parsed = input::tee::parse_pair(&input.1, &output.1, &self.read);
        let whole = self.lint_parsed(
            input.0,
            parsed,
            input::Format::Recording(input::Recorder::Tee),
            input::native::Dropped::default(),
            None,
            false,
        );
        let shift = |a: &mut crate::model::Anchor| {
            a.span.start -= n;
            a.span.end -= n;
        };
        let mut ins = Vec::new();
        let mut outs = Vec::new();
        for mut d in whole.diagnostics {
            let theirs = d.primary.at.span.start >= n && !output.1.is_empty();
            d.labels.retain(|l| (l.at.span.start >= n) == theirs);
            if theirs {
                shift(&mut d.primary.at);
                for l in &mut d.labels {
                    shift(&mut l.at);
                }
                outs.push(d);
            } else {
                ins.push(d);
            }
        }
        let first = FileResult {
            path: input.0.to_string(),
            source: input.1,
            records: whole.records,
            says: whole.says,
            diagnostics: ins,
            calls: Vec::new(),
            baselined: 0,
            len: n,
            digests: Vec::new(),
        };
        let second = FileResult {
            path: output.0.to_string(),
            source: output.1,
            records: 0,
            says: BTreeMap::new(),
            diagnostics: outs,
            calls: Vec::new(),
            baselined: 0,
            len: m,
            digests: Vec::new(),
        };
        (first, second)
    }

    /// Lint the files of one opencode session kept in opencode's storage
    /// folder (its info, its messages, their parts) as one session: they
    /// are read as one text, in the order given, and each finding is
    /// handed back to the file it points into. The session's counts go
    /// to the first file.
    pub fn lint_stored(&self, files: Vec<(String, Vec<u8>)>) -> Vec<FileResult> {
        let mut whole = Vec::new();
        let mut pieces = Vec::with_capacity(files.len());
        for (_, b) in &files {
            let start = whole.len();
            whole.extend_from_slice(b);
            pieces.push(crate::model::Span::new(start, whole.len()));
        }
        let parsed = input::opencode::parse_storage(&whole, &pieces, &self.read);
        drop(whole);
        let first = files.first().map_or("", |f| f.0.as_str()).to_string();
        let mut all = self.lint_parsed(
            &first,
            parsed,
            input::Format::Session(input::Client::Opencode),
            input::native::Dropped::default(),
            None,
            false,
        );
        let starts: Vec<usize> = pieces.iter().map(|p| p.start).collect();
        let piece_of = |at: usize| starts.partition_point(|&s| s <= at).saturating_sub(1);
        let mut mine: Vec<Vec<Diagnostic>> = files.iter().map(|_| Vec::new()).collect();
        for mut d in std::mem::take(&mut all.diagnostics) {
            let k = piece_of(d.primary.at.span.start);
            let Some(p) = pieces.get(k) else {
                continue;
            };
            let shift = |a: &mut crate::model::Anchor| {
                a.span.start -= p.start;
                a.span.end = a.span.end.min(p.end) - p.start;
            };
            d.labels.retain(|l| piece_of(l.at.span.start) == k);
            shift(&mut d.primary.at);
            for l in &mut d.labels {
                shift(&mut l.at);
            }
            mine[k].push(d);
        }
        files
            .into_iter()
            .zip(mine)
            .enumerate()
            .map(|(k, ((path, source), diagnostics))| FileResult {
                path,
                len: source.len(),
                source,
                records: if k == 0 { all.records } else { 0 },
                says: if k == 0 {
                    std::mem::take(&mut all.says)
                } else {
                    BTreeMap::new()
                },
                diagnostics,
                calls: Vec::new(),
                baselined: 0,
                digests: Vec::new(),
            })
            .collect()
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
        self.lint_native_stream(path, reader, lines, false)
    }

    /// [`Linter::lint_native_reader`], keeping the digests of its calls
    /// in the result's `digests` ([`Linter::lint_keeping`]).
    pub fn lint_native_reader_keeping(
        &self,
        path: &str,
        reader: impl std::io::Read,
        lines: usize,
    ) -> std::io::Result<FileResult> {
        self.lint_native_stream(path, reader, lines, true)
    }

    fn lint_native_stream(
        &self,
        path: &str,
        reader: impl std::io::Read,
        lines: usize,
        keep: bool,
    ) -> std::io::Result<FileResult> {
        // The first bytes are kept on their way through, to tell what the
        // file is should no record be read from it.
        let mut head = Head {
            inner: reader,
            head: Vec::new(),
            read: 0,
        };
        let read = input::native::parse_reader(&mut head, lines, self.keep())?;
        let mut parsed = input::Parsed {
            logs: vec![read.log],
            problems: read.problems,
            ..input::Parsed::default()
        };
        let mut dropped = read.dropped;
        input::coverage::settle(input::Format::Native, &head.head, &mut parsed, &mut dropped);
        let mut r = self.lint_parsed(path, parsed, input::Format::Native, dropped, None, keep);
        r.len = head.read;
        Ok(r)
    }

    /// How many problems a reader keeps: as many as are shown.
    pub fn keep(&self) -> usize {
        match self.max_repeats {
            0 => usize::MAX,
            n => n,
        }
    }

    /// Lint what a reader made of a file read as `format` (a native log's
    /// calls are noted for the room), with the inline suppressions of
    /// `suppressions`, its bytes, when it may hold them; with `keep`, a
    /// native log's records are kept in the result. The result's `source`
    /// is empty.
    fn lint_parsed(
        &self,
        path: &str,
        parsed: input::Parsed,
        format: input::Format,
        dropped: input::native::Dropped,
        suppressions: Option<&[u8]>,
        keep: bool,
    ) -> FileResult {
        let (r, logs) = self.lint_parsed_logs(path, parsed, format, dropped, suppressions, keep);
        if LEAVE_TO_EXIT.load(std::sync::atomic::Ordering::Relaxed) {
            std::mem::forget(logs);
        }
        r
    }

    /// Lint a native log that a reader goes on reading as its file grows
    /// (the language server's followed logs): `log` and `problems` are what
    /// it read of the file's whole lines so far, `head` the file's first
    /// bytes (what tells the file when no record could be read). The
    /// findings are those [`Linter::lint`] gives for the same bytes; the
    /// log is lent, and handed back as it was. The result's `source` is
    /// empty.
    pub fn lint_native_read(
        &self,
        path: &str,
        head: &[u8],
        log: &mut crate::model::Log,
        problems: Vec<Problem>,
        mut dropped: input::native::Dropped,
    ) -> FileResult {
        let mut parsed = input::Parsed {
            logs: vec![std::mem::take(log)],
            problems,
            ..input::Parsed::default()
        };
        let format = input::Format::Native;
        input::coverage::settle(format, head, &mut parsed, &mut dropped);
        let (r, logs) = self.lint_parsed_logs(path, parsed, format, dropped, None, false);
        if let Some(l) = logs.into_iter().next() {
            *log = l;
        }
        r
    }

    /// [`Linter::lint_parsed`], handing back the logs linted.
    fn lint_parsed_logs(
        &self,
        path: &str,
        parsed: input::Parsed,
        format: input::Format,
        dropped: input::native::Dropped,
        suppressions: Option<&[u8]>,
        keep: bool,
    ) -> (FileResult, Vec<crate::model::Log>) {
        let native = format == input::Format::Native;
        let input::Parsed {
            logs,
            problems,
            unknown_roles,
            instructions,
            read: _,
        } = parsed;
        let mut diagnostics = Vec::new();
        self.problems(problems, &mut diagnostics);
        self.instructions(&instructions, &mut diagnostics);
        // What this file fails to show beyond what its format cannot: the
        // rules that need it are not run on it.
        let lacking = if unknown_roles.is_some() {
            Evidence::ROLES
        } else {
            Evidence::NONE
        };
        if let Some(u) = &unknown_roles {
            self.unroled(format, u, &mut diagnostics);
        }
        self.untimed(format, &logs, lacking, &mut diagnostics);
        let mut records = 0;
        let mut says = BTreeMap::new();
        let mut calls = Vec::new();
        let mut digests = Vec::new();
        for log in &logs {
            records += log.records.len();
            let seen = if native {
                Some(Seen {
                    calls: &mut calls,
                    digests: keep.then_some(&mut digests),
                })
            } else {
                None
            };
            self.lint_log(log, lacking, &mut diagnostics, &mut says, seen);
        }
        sort(&mut diagnostics);
        dedup(&mut diagnostics);
        self.drop_ignored(path, &mut diagnostics);
        if let Some(src) = suppressions {
            let active = |name: &str| self.is_active(name);
            crate::lint::suppress::apply(src, format, &mut diagnostics, self.unused, &active);
        }
        let dropped = match (self.invalid, dropped.first) {
            (Some(severity), Some(at)) => Some(Repeats {
                rule: rules::INVALID_RECORD.name,
                severity,
                count: dropped.count,
                at,
            }),
            _ => None,
        };
        cap_repeats(&mut diagnostics, self.max_repeats, dropped);
        let r = FileResult {
            path: path.to_string(),
            source: Vec::new(),
            records,
            says,
            len: 0,
            digests,
            diagnostics,
            calls,
            baselined: 0,
        };
        (r, logs)
    }

    /// Lint every call of one log; with `seen`, note each call with an id.
    fn lint_log(
        &self,
        log: &crate::model::Log,
        lacking: Evidence,
        diagnostics: &mut Vec<Diagnostic>,
        says: &mut BTreeMap<String, usize>,
        mut seen: Option<Seen<'_>>,
    ) {
        for_each_call(&log.records, |recs| {
            if self.stopped() {
                return;
            }
            let call = Call::build(log.meta.as_ref(), recs, &self.cast);
            if let (Some(seen), Some(id)) = (seen.as_mut(), crate::model::call_id(recs.iter())) {
                seen.calls.push(CallSeen {
                    id: id.to_string(),
                    recorder: call.recorder.map(str::to_string),
                    agents: call.agents.iter().map(|a| a.label.clone()).collect(),
                    start: recs.iter().find_map(|r| r.ts),
                });
                if let Some(digests) = seen.digests.as_deref_mut() {
                    let mut d = crate::model::digest::Digest::of(&call);
                    d.call_id = Some(id.to_string());
                    digests.push(d);
                }
            }
            for u in &call.utterances {
                if u.who == Who::Me && u.via == Via::Say {
                    // Keyed as findings name agents: cut as they are.
                    let mut who = u.speaker.to_string();
                    crate::core::escape::window(&mut who, crate::core::escape::MAX_NAME);
                    *says.entry(who).or_default() += 1;
                }
            }
            self.run_lacking(&call, lacking, diagnostics);
        });
    }

    /// One `unknown-roles` finding, at the first speaker, for heard
    /// speech that does not say who is who: the rules that need the roles
    /// were not run on it.
    fn unroled(&self, format: input::Format, u: &input::UnknownRoles, out: &mut Vec<Diagnostic>) {
        let Some(severity) = self.unroled else { return };
        let unjudged: Vec<&str> = rules::needing(Evidence::ROLES)
            .filter(|r| rules::shows(format, r) && self.is_active(r))
            .collect();
        let what = match format {
            input::Format::Vtt | input::Format::Srt => "these captions do",
            _ => "this transcript does",
        };
        let message = if u.voicehook {
            format!(
                "{what} not say who the human is, so no speaker can be told to be an agent: {} could not judge it",
                if unjudged.is_empty() { "no rule".to_string() } else { unjudged.join(", ") }
            )
        } else {
            format!(
                "{what} not show a voicehook call: no voicebot, no agent and no human is named, so nobody's lines were judged{}",
                match u.unread {
                    0 => String::new(),
                    1 => " (nor the one part that could not be read)".to_string(),
                    n => format!(" (nor the {n} parts that could not be read)"),
                }
            )
        };
        let mut d = Diagnostic {
            rule: rules::UNKNOWN_ROLES.name,
            severity,
            message,
            agent: None,
            primary: Label { at: u.at, text: None },
            labels: Vec::new(),
            call: None,
            ts: None,
            fingerprint: None,
            about: None,
            help: Some("say who is who in the file's headers (`# human: Name`, `# agents: A, B`, `# voicebot: Delta`; in captions `NOTE human: Name` ...) or in callint.toml (`human = \"Name\"`, `agents = [\"A\", \"B\"]`, `voicebot = \"Delta\"`)".into()),
        };
        d.bound();
        out.push(d);
    }

    /// What the instructions of a prompt or skill would make an agent
    /// break: every active rule with an instruction form judges each
    /// instruction sentence.
    fn instructions(
        &self,
        instructions: &[crate::text::instructions::Instruction],
        out: &mut Vec<Diagnostic>,
    ) {
        if instructions.is_empty() {
            return;
        }
        // One instruction at a time, every rule on it: the word lists the
        // rules ask about are met early, and the answers kept with an
        // instruction's words serve every rule (`text::patterns`).
        let judging: Vec<_> = self
            .active
            .iter()
            .filter(|a| a.rule.meta().instruction.is_some())
            .collect();
        let mut found: Vec<Vec<Diagnostic>> = vec![Vec::new(); judging.len()];
        for ins in instructions {
            if self.stopped() {
                break;
            }
            for (a, found) in judging.iter().zip(&mut found) {
                if let Some(f) = a.rule.instruction(ins) {
                    found.push(rules::instruction_diagnostic(a.rule.meta(), a.severity, f));
                }
            }
        }
        // in the order of the rules, as before
        out.extend(found.into_iter().flatten());
    }

    /// One `no-times` finding, at the first record, when a log, trace or
    /// transcript holds calls but no record carries a time: the rules
    /// that measure time ([`rules::NEEDS_TIMES`]) could not judge it.
    fn untimed(
        &self,
        format: input::Format,
        logs: &[crate::model::Log],
        lacking: Evidence,
        out: &mut Vec<Diagnostic>,
    ) {
        use input::Format as F;
        let Some(severity) = self.untimed else { return };
        let timed_format = matches!(
            format,
            F::Native | F::Mcp | F::Recording(_) | F::Transcript | F::Vtt | F::Srt | F::Session(_)
        );
        let records = || logs.iter().flat_map(|l| l.records.iter());
        if !timed_format
            || records().any(|r| r.ts.is_some())
            || !records().any(|r| r.as_fn().is_some())
        {
            return;
        }
        // Rules that did not run for want of the roles are told of by
        // `unknown-roles`.
        let unjudged: Vec<&str> = rules::needing(Evidence::TIMES)
            .filter(|r| rules::shows(format, r))
            .filter(|r| rules::meta(r).is_none_or(|m| !m.needs.intersects(lacking)))
            .collect();
        let Some(first) = records().map(|r| r.span).min_by_key(|s| s.start) else {
            return;
        };
        if unjudged.is_empty() {
            return;
        }
        out.push(Diagnostic {
            rule: rules::NO_TIMES.name,
            severity,
            message: format!(
                "no record of this {} carries a time: {} could not judge it",
                match format {
                    F::Mcp => "trace",
                    F::Transcript | F::Vtt | F::Srt => "transcript",
                    _ => "log",
                },
                unjudged.join(" and ")
            ),
            agent: None,
            primary: Label {
                at: crate::model::Anchor::bytes(first),
                text: None,
            },
            labels: Vec::new(),
            call: None,
            ts: None,
            fingerprint: None,
            about: None,
            help: Some("record a time on every line (`ts`, or the MCP envelope's `ts`/`timestamp`; `[hh:mm:ss]` in a transcript) to have them judged".into()),
        });
    }

    /// Parse problems become `invalid-record` findings.
    fn problems(&self, problems: Vec<Problem>, out: &mut Vec<Diagnostic>) {
        let Some(severity) = self.invalid else { return };
        out.extend(problems.into_iter().map(|p| {
            let mut d = Diagnostic {
                rule: rules::INVALID_RECORD.name,
                severity: if p.note { Severity::Info } else { severity },
                message: p.message,
                agent: None,
                primary: Label {
                    at: p.at,
                    text: None,
                },
                labels: Vec::new(),
                help: p.help,
                call: None,
                ts: None,
                fingerprint: None,
                about: None,
            };
            d.bound();
            d
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
            if meta.scope != Scope::Room {
                continue;
            }
            a.check(call, None, out);
        }
    }

    /// What the active rules that can judge a pending record need, all
    /// together: a live reader may leave out what none of them reads.
    pub fn pending_needs(&self) -> Evidence {
        self.active
            .iter()
            .map(|a| a.rule.meta())
            .filter(|m| m.judges_pending())
            .fold(Evidence::NONE, |e, m| e.and(m.needs))
    }

    /// Run the active rules that can judge a record before anything
    /// follows it ([`rules::judges_pending`]) over one call.
    /// Every rule that can judge a pending record. `pending`: in a live
    /// judgment, the index of the judged record in the call's records (the
    /// rules may skip judging the others, [`Cx::judges`]).
    pub fn run_pending(&self, call: &Call<'_>, pending: Option<usize>, out: &mut Vec<Diagnostic>) {
        for a in &self.active {
            if a.rule.meta().judges_pending() {
                a.check(call, pending, out);
            }
        }
    }

    /// Run every active rule over one call.
    pub fn run(&self, call: &Call<'_>, out: &mut Vec<Diagnostic>) {
        self.run_lacking(call, Evidence::NONE, out);
    }

    /// [`Linter::run`], of the rules that need none of what the file
    /// `lacking` shows.
    fn run_lacking(&self, call: &Call<'_>, lacking: Evidence, out: &mut Vec<Diagnostic>) {
        let runs = |a: &&Active| !a.rule.meta().needs.intersects(lacking);
        if call.records.len() < PARALLEL_RECORDS {
            for a in self.active.iter().filter(runs) {
                if self.stopped() {
                    return;
                }
                a.check(call, None, out);
            }
            return;
        }
        // A long call's rules run side by side, on the threads of the pool
        // in use (`--jobs`); their findings are put together in rule order,
        // as one after the other gives them.
        use rayon::prelude::*;
        let found: Vec<Vec<Diagnostic>> = self
            .active
            .par_iter()
            .with_max_len(1)
            .map(|a| {
                let mut v = Vec::new();
                if runs(&a) && !self.stopped() {
                    a.check(call, None, &mut v);
                }
                v
            })
            .collect();
        for v in found {
            out.extend(v);
        }
    }
}

/// Whether the records a file was read into are left to the process's
/// exit instead of freed one by one ([`leave_records_to_exit`]).
static LEAVE_TO_EXIT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Leave the records of the files linted from now on to the process's
/// exit: for a process that ends when its one file is done (`callint
/// check` of a single file). Freeing a large log's records one by one, a
/// few allocations each, took 2 to 3% of its run, for memory the system
/// takes back at exit anyway. Never for a process that goes on, nor for
/// several files, whose memory each next one reuses.
pub fn leave_records_to_exit() {
    LEAVE_TO_EXIT.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// A reader that keeps the first [`input::HEAD`] bytes read through it.
struct Head<R> {
    inner: R,
    head: Vec<u8>,
    /// Bytes read in all.
    read: usize,
}

impl<R: std::io::Read> std::io::Read for Head<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read = self.read.saturating_add(n);
        let room = input::HEAD.saturating_sub(self.head.len());
        self.head.extend_from_slice(&buf[..n.min(room)]);
        Ok(n)
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
    let index = crate::core::lines::LineIndex::new(&f.source);
    f.diagnostics
        .iter()
        .map(|d| crate::core::lines::resolve(&f.source, &index, &d.primary.at).line)
        .collect()
}

/// How many findings of one rule a file shows by default before the
/// rest are summed up in one.
pub const MAX_REPEATS: usize = 100;

/// Findings of one rule left out of a file's list: how many, and where
/// the first of them is.
#[derive(Clone, Debug)]
pub struct Repeats {
    pub rule: &'static str,
    pub severity: Severity,
    pub count: usize,
    pub at: crate::model::Anchor,
}

/// Keep the first `max` findings of each rule in `d` (sorted, in file
/// order) and sum up the rest in one finding at the first of them, the
/// way compilers stop repeating one error; `more` are findings of a rule
/// that a reader left out already (after all of `d`'s). `max` 0 keeps all.
pub fn cap_repeats(d: &mut Vec<Diagnostic>, max: usize, more: Option<Repeats>) {
    let mut extra: Vec<Repeats> = Vec::new();
    if max > 0 {
        let mut seen: crate::core::hash::HashMap<&'static str, usize> =
            crate::core::hash::HashMap::default();
        d.retain(|x| {
            let n = seen.entry(x.rule).or_default();
            *n += 1;
            if *n <= max {
                return true;
            }
            match extra.iter_mut().find(|r| r.rule == x.rule) {
                Some(r) => r.count += 1,
                None => extra.push(Repeats {
                    rule: x.rule,
                    severity: x.severity,
                    count: 1,
                    at: x.primary.at,
                }),
            }
            false
        });
    }
    if let Some(m) = more {
        match extra.iter_mut().find(|r| r.rule == m.rule) {
            Some(r) => r.count += m.count,
            None => extra.push(m),
        }
    }
    if extra.is_empty() {
        return;
    }
    for r in extra {
        d.push(Diagnostic {
            rule: r.rule,
            severity: r.severity,
            message: format!(
                "... and {} more like this in this file, from here on",
                thousands(r.count)
            ),
            agent: None,
            primary: Label { at: r.at, text: None },
            labels: Vec::new(),
            help: Some(format!(
                "a file lists the first {max} findings of each rule; `--max-repeats N` (or `max-repeats` in callint.toml) lists more, 0 lists all"
            )),
            call: None,
            ts: None,
            fingerprint: None,
            about: None,
        });
    }
    sort(d);
}

/// `n` with a comma between groups of three digits: 1,048,476.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub(crate) enum Group {
    /// Records next to each other: the whole file when it is one call.
    Run(std::ops::Range<usize>),
    /// Records with another call's between them.
    Scattered(Vec<usize>),
}

/// Run `f` over the records of each call in `records`. They are copied
/// only for a call whose records lie between another call's: one call, the
/// usual case, and calls one after another are handed over in place.
pub(crate) fn for_each_call(records: &[Record], mut f: impl FnMut(&[Record])) {
    for group in split_calls(records) {
        match group {
            Group::Run(run) => f(&records[run]),
            Group::Scattered(idx) => {
                let owned: Vec<Record> = idx.iter().map(|&i| records[i].clone()).collect();
                f(&owned);
            }
        }
    }
}

/// Records of different calls in one file are linted as separate calls. A
/// record without a call id belongs to the call of the record before it.
pub(crate) fn split_calls(records: &[Record]) -> Vec<Group> {
    // Each call's number, in order of first appearance; keyed by ids from
    // the log: a hasher seeded anew in each process.
    let mut ids: crate::core::hash::HashMap<&str, usize> = crate::core::hash::HashMap::default();
    for r in records {
        if let Some(c) = r.call() {
            let n = ids.len();
            ids.entry(c).or_insert(n);
        }
    }
    if ids.len() <= 1 {
        return vec![Group::Run(0..records.len())];
    }
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); ids.len()];
    let mut current = 0;
    for (i, r) in records.iter().enumerate() {
        if let Some(c) = r.call() {
            current = ids.get(c).copied().unwrap_or(0);
        }
        groups[current].push(i);
    }
    groups
        .into_iter()
        .map(|idx| match (idx.first(), idx.last()) {
            (Some(&a), Some(&b)) if b - a + 1 == idx.len() => Group::Run(a..b + 1),
            _ => Group::Scattered(idx),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seconds of the records each call is handed, and whether they
    /// are the file's own records (in place) or copies.
    fn calls_of(seconds: &[(&str, i64)]) -> Vec<(Vec<i64>, bool)> {
        let log: String = seconds
            .iter()
            .map(|(call, s)| {
                format!(
                    r#"{{"ts":"2026-10-10T10:00:{s:02}.000Z","call":"{call}","fn":"say","args":{{"text":"hi"}},"result":{{"say_id":"s{s}","say_status":"queued"}}}}"#
                ) + "\n"
            })
            .collect();
        let (log, _) = input::native::parse(log.as_bytes());
        let all = log.records.as_ptr_range();
        let first = log.records.first().and_then(|r| r.ts).unwrap_or(0);
        let mut out = Vec::new();
        for_each_call(&log.records, |recs| {
            let secs = recs
                .iter()
                .filter_map(|r| r.ts)
                .map(|t| (t - first) / 1000 + 1)
                .collect();
            out.push((secs, all.contains(&recs.as_ptr())));
        });
        out
    }

    #[test]
    fn calls_one_after_another_are_handed_over_in_place() {
        let calls = calls_of(&[("c1", 1), ("c1", 2), ("c2", 3), ("c2", 4)]);
        assert_eq!(calls, [(vec![1, 2], true), (vec![3, 4], true)]);
    }

    #[test]
    fn interleaved_calls_get_their_own_records() {
        let calls = calls_of(&[("c1", 1), ("c2", 2), ("c1", 3), ("c2", 4)]);
        assert_eq!(calls, [(vec![1, 3], false), (vec![2, 4], false)]);
    }

    /// A linter told to stop gives nothing more of its rules, and one
    /// whose flag stays unset gives what any linter gives: for a log and
    /// for a prompt's instructions.
    #[test]
    fn a_stopped_run_ends_and_an_unstopped_one_is_unchanged() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let log = std::fs::read(root.join("corpus/board-mistakes/kiwi.jsonl")).unwrap();
        let prompt = std::fs::read(root.join("corpus/prompts/bad-prompt.md")).unwrap();
        for (name, bytes) in [("kiwi.jsonl", log), ("bad-prompt.md", prompt)] {
            let plain = Linter::new(&Config::default(), None, &[]).unwrap();
            let want = plain.lint(name, bytes.clone()).diagnostics;
            assert!(!want.is_empty(), "{name}");
            let flag = std::sync::Arc::new(AtomicBool::new(false));
            let mut l = Linter::new(&Config::default(), None, &[]).unwrap();
            l.stop_with(std::sync::Arc::clone(&flag));
            let got = l.lint(name, bytes.clone()).diagnostics;
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{name}");
            flag.store(true, Ordering::Relaxed);
            let stopped = l.lint(name, bytes).diagnostics;
            assert!(
                stopped
                    .iter()
                    .all(|d| !rules::all().iter().any(|r| r.meta().name == d.rule)),
                "{name}: {stopped:?}"
            );
        }
    }
}
