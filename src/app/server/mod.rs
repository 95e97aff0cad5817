//! `callint server`: a language server over standard input and output
//! (LSP 3.17).
//!
//! Every open document is linted as `check` lints its file
//! ([`lint::Job`]): pushed to the client after a change (after a short
//! pause in typing; a newer change makes the result of a run still going
//! stale, and it is dropped), or pulled by `textDocument/diagnostic`. A
//! hover on a finding shows its rule's page; the code actions silence a
//! finding in place or add it to the baseline. A call log open in the
//! editor that grows on disk (a watched file changed) is read on from
//! where it stopped, its new complete lines added to what was read.
//!
//! The main loop only keeps the documents and answers at once; linting
//! and the code actions' trial lints run on threads of their own.

mod actions;
mod growing;
mod lint;
mod position;
mod transport;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Command, DocumentDiagnosticReport,
    DocumentDiagnosticReportResult, FullDocumentDiagnosticReport, Hover, HoverContents,
    MarkupContent, MarkupKind, Position, PublishDiagnosticsParams,
    RelatedFullDocumentDiagnosticReport, RelatedUnchangedDocumentDiagnosticReport,
    UnchangedDocumentDiagnosticReport, Uri, WorkspaceEdit,
};

use crate::app::batch::Settings;
use crate::lint::engine::Linter;
use transport::Out;

pub use lint::{Found, Job, Linted};
pub use position::Places;

/// The command of the add-to-baseline action.
const ADD_TO_BASELINE: &str = "callint.addToBaseline";

/// The baseline read when the client names none, in the workspace's root.
const BASELINE: &str = "callint-baseline.json";

/// The pause after a change before linting, unless the client says
/// otherwise (`debounceMs`).
const DEBOUNCE: Duration = Duration::ZERO;

/// Run the server on standard input and output until `exit`. Returns the
/// process's exit status: 0 after `shutdown`, 1 otherwise (as the
/// protocol asks).
pub fn run() -> u8 {
    let input = std::io::BufReader::new(std::io::stdin());
    let (out, messages, threads) = transport::start(input, std::io::stdout());
    let code = serve(&out, &messages);
    drop(out);
    threads.join();
    code
}

/// What the client said at `initialize`.
struct Setup {
    root: Option<PathBuf>,
    /// The client pulls diagnostics: none are pushed.
    pull: bool,
    /// The client can be asked to pull again.
    refresh: bool,
    /// The client registers watched files when asked.
    watch: bool,
    debounce: Duration,
    baseline: Option<PathBuf>,
    rule_url: Option<String>,
    settings: Settings,
}

fn serve(out: &Sender<Out>, messages: &Receiver<Message>) -> u8 {
    // Before `initialize`: requests are refused, notifications dropped.
    let setup = loop {
        let Ok(m) = messages.recv() else { return 1 };
        match m {
            Message::Request(r) if r.method == "initialize" => {
                let setup = setup(&r.params);
                let result = serde_json::json!({
                    "capabilities": capabilities(),
                    "serverInfo": {"name": "callint", "version": env!("CARGO_PKG_VERSION")},
                });
                let _ = out.send(Out::Message(Message::Response(Response::new_ok(
                    r.id, result,
                ))));
                break setup;
            }
            Message::Request(r) => {
                let _ = out.send(transport::error(
                    r.id,
                    ErrorCode::ServerNotInitialized,
                    "the server is not initialized",
                ));
            }
            Message::Notification(n) if n.method == "exit" => return 1,
            _ => {}
        }
    };
    let (done_tx, done_rx) = crossbeam_channel::unbounded();
    let mut s = Server {
        out: out.clone(),
        setup,
        docs: BTreeMap::new(),
        done: done_tx,
        pulls: Vec::new(),
        shutdown: false,
        next_id: 0,
        workers: Workers::start(cores()),
    };
    loop {
        let wait = s
            .next_due()
            .map(|t| t.saturating_duration_since(Instant::now()));
        let event = crossbeam_channel::select! {
            recv(messages) -> m => match m {
                Ok(m) => Some(Ok(m)),
                Err(_) => return 1,
            },
            recv(done_rx) -> d => d.ok().map(Err),
            default(wait.unwrap_or(Duration::from_secs(3600))) => None,
        };
        match event {
            Some(Ok(Message::Notification(n))) if n.method == "exit" => {
                return if s.shutdown { 0 } else { 1 };
            }
            Some(Ok(Message::Request(r))) => s.request(r),
            Some(Ok(Message::Notification(n))) => s.notification(n),
            Some(Ok(Message::Response(_))) => {}
            Some(Err(done)) => s.finished(done),
            None => {}
        }
        s.stop_stale();
        s.start_due();
    }
}

fn capabilities() -> serde_json::Value {
    serde_json::json!({
        "positionEncoding": "utf-16",
        "textDocumentSync": {
            "openClose": true,
            "change": 2,
            "save": {"includeText": false},
        },
        "hoverProvider": true,
        "codeActionProvider": {"codeActionKinds": ["quickfix"]},
        "executeCommandProvider": {"commands": [ADD_TO_BASELINE]},
        "diagnosticProvider": {
            "identifier": "callint",
            "interFileDependencies": false,
            "workspaceDiagnostics": false,
        },
    })
}

fn setup(params: &serde_json::Value) -> Setup {
    let root = params
        .pointer("/workspaceFolders/0/uri")
        .or_else(|| params.get("rootUri"))
        .and_then(|u| u.as_str())
        .and_then(path_of_uri)
        .or_else(|| {
            params
                .get("rootPath")
                .and_then(|p| p.as_str())
                .map(PathBuf::from)
        });
    let caps = params.get("capabilities");
    let has = |p: &str| {
        caps.and_then(|c| c.pointer(p))
            .is_some_and(|v| !v.is_null())
    };
    let flag = |p: &str| {
        caps.and_then(|c| c.pointer(p))
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false)
    };
    let opts = params.get("initializationOptions");
    let opt = |k: &str| opts.and_then(|o| o.get(k));
    let baseline = match opt("baseline").and_then(|b| b.as_str()) {
        Some(b) => Some(match &root {
            Some(r) => r.join(b),
            None => PathBuf::from(b),
        }),
        None => root.as_ref().map(|r| r.join(BASELINE)),
    };
    let mut settings = Settings::default();
    if let Some(c) = opt("config").and_then(|c| c.as_str()) {
        let c = match &root {
            Some(r) => r.join(c),
            None => PathBuf::from(c),
        };
        settings.config = crate::app::batch::ConfigChoice::File(c);
    }
    let names = |k: &str| {
        opt(k).and_then(|v| v.as_array()).map(|a| {
            a.iter()
                .filter_map(|n| n.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        })
    };
    settings.select = names("select");
    settings.ignore = names("ignore").unwrap_or_default();
    Setup {
        root,
        pull: has("/textDocument/diagnostic"),
        refresh: flag("/workspace/diagnostics/refreshSupport"),
        watch: flag("/workspace/didChangeWatchedFiles/dynamicRegistration"),
        debounce: opt("debounceMs")
            .and_then(serde_json::Value::as_u64)
            .map_or(DEBOUNCE, Duration::from_millis),
        baseline,
        rule_url: opt("ruleUrl")
            .and_then(|u| u.as_str())
            .map(str::to_string)
            .or_else(rule_pages),
        settings,
    }
}

/// One open document.
struct Doc {
    uri: Uri,
    path: PathBuf,
    text: String,
    version: Option<i32>,
    /// Counts the changes; a lint's result is current when it was of the
    /// latest.
    generation: u64,
    /// When to lint the latest change.
    due: Option<Instant>,
    /// A lint is running (of some generation).
    running: bool,
    /// The last current result, with its generation.
    last: Option<(u64, Arc<Linted>)>,
    /// A log read from disk: the bytes of it read so far (complete lines),
    /// while the editor's text is what was read.
    disk: Option<u64>,
    /// A log followed on disk and linted as it grows; its bytes are there,
    /// not in `text`.
    follow: Follow,
    /// The linter of the document's configuration, made at its first lint
    /// and kept while that configuration file stays as it was.
    linter: Option<(Made, Arc<Linter>)>,
    /// The generation of the lint running.
    started: u64,
    /// Set when the lint running is stale: it stops early.
    stop: Arc<AtomicBool>,
}

/// What a kept linter was made from: the configuration file in force, as
/// it was then.
#[derive(PartialEq)]
struct Made {
    config: Option<PathBuf>,
    modified: Option<std::time::SystemTime>,
}

/// Whether a document is a log followed as it grows.
enum Follow {
    No,
    Here(Box<growing::Growing>),
    /// With the lint running; what happened meanwhile waits for it.
    Lent {
        /// The file changed on disk.
        grew: bool,
        /// The editor changed the text: it is not followed any more.
        edits: Vec<lsp_types::DidChangeTextDocumentParams>,
    },
}

/// A lint that finished.
struct Done {
    uri: String,
    generation: u64,
    linted: Linted,
    /// A followed log's state, back from the lint.
    follow: Option<Box<growing::Growing>>,
}

struct Server {
    out: Sender<Out>,
    setup: Setup,
    docs: BTreeMap<String, Doc>,
    done: Sender<Done>,
    /// Pull requests waiting for the lint of a change.
    pulls: Vec<(RequestId, String, Option<String>)>,
    shutdown: bool,
    next_id: i32,
    workers: Workers,
}

/// The threads that lint, kept for the server's life: what linting builds
/// once per thread (the compiled word lists of the instruction analysis)
/// is built once, not for every change.
struct Workers {
    tasks: Sender<Box<dyn FnOnce() + Send>>,
}

impl Workers {
    fn start(n: usize) -> Workers {
        let (tasks, todo) = crossbeam_channel::unbounded::<Box<dyn FnOnce() + Send>>();
        for k in 0..n {
            let todo = todo.clone();
            // A thread that cannot start leaves the others the work; with
            // none, tasks are refused.
            let _ = std::thread::Builder::new()
                .name(format!("callint-lsp-{k}"))
                .spawn(move || {
                    for task in todo {
                        // A task that fails takes no thread with it.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
                    }
                });
        }
        Workers { tasks }
    }

    /// Run `task` on the next thread free; false when no thread takes it.
    fn run(&self, task: impl FnOnce() + Send + 'static) -> bool {
        self.tasks.send(Box::new(task)).is_ok()
    }
}

impl Server {
    fn send(&self, m: Message) {
        let _ = self.out.send(Out::Message(m));
    }

    fn reply(&self, id: RequestId, result: impl serde::Serialize) {
        self.send(Message::Response(Response::new_ok(id, result)));
    }

    fn refuse(&self, id: RequestId, code: ErrorCode, why: impl Into<String>) {
        let _ = self.out.send(transport::error(id, code, why));
    }

    fn notify(&self, method: &str, params: impl serde::Serialize) {
        self.send(Message::Notification(Notification::new(
            method.to_string(),
            params,
        )));
    }

    fn ask(&mut self, method: &str, params: serde_json::Value) {
        self.next_id += 1;
        let id = RequestId::from(format!("callint-{}", self.next_id));
        self.send(Message::Request(Request::new(id, method.into(), params)));
    }

    fn request(&mut self, r: Request) {
        if self.shutdown {
            return self.refuse(r.id, ErrorCode::InvalidRequest, "the server is shut down");
        }
        let id = r.id.clone();
        let outcome = match r.method.as_str() {
            "shutdown" => {
                self.shutdown = true;
                self.reply(id, serde_json::Value::Null);
                Ok(())
            }
            "textDocument/hover" => parse(r.params).map(|p| self.hover(id, &p)),
            "textDocument/codeAction" => parse(r.params).map(|p| self.code_action(id, &p)),
            "textDocument/diagnostic" => parse(r.params).map(|p| self.pull(id, &p)),
            "workspace/executeCommand" => parse(r.params).map(|p| self.command(id, &p)),
            _ => {
                let why = format!("no method {}", r.method);
                return self.refuse(id, ErrorCode::MethodNotFound, why);
            }
        };
        if let Err(why) = outcome {
            self.refuse(r.id, ErrorCode::InvalidParams, why);
        }
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            "initialized" => self.register_watchers(),
            "textDocument/didOpen" => {
                if let Ok(p) = parse::<lsp_types::DidOpenTextDocumentParams>(n.params) {
                    self.open(p.text_document);
                }
            }
            "textDocument/didChange" => {
                if let Ok(p) = parse::<lsp_types::DidChangeTextDocumentParams>(n.params) {
                    self.change(p);
                }
            }
            "textDocument/didClose" => {
                if let Ok(p) = parse::<lsp_types::DidCloseTextDocumentParams>(n.params) {
                    let key = p.text_document.uri.as_str().to_string();
                    let closed = self.docs.remove(&key);
                    if let Some(doc) = &closed {
                        // Its lint's result is not wanted any more.
                        doc.stop.store(true, Ordering::Relaxed);
                    }
                    if closed.is_some() && !self.setup.pull {
                        self.notify(
                            "textDocument/publishDiagnostics",
                            PublishDiagnosticsParams::new(p.text_document.uri, Vec::new(), None),
                        );
                    }
                    self.answer_pulls();
                }
            }
            "workspace/didChangeWatchedFiles" => {
                if let Ok(p) = parse::<lsp_types::DidChangeWatchedFilesParams>(n.params) {
                    self.watched(&p);
                }
            }
            "$/cancelRequest" => {
                if let Ok(p) = parse::<lsp_types::CancelParams>(n.params) {
                    let id = match p.id {
                        lsp_types::NumberOrString::Number(k) => RequestId::from(k),
                        lsp_types::NumberOrString::String(s) => RequestId::from(s),
                    };
                    if let Some(k) = self.pulls.iter().position(|(i, _, _)| *i == id) {
                        self.pulls.remove(k);
                        self.refuse(id, ErrorCode::RequestCanceled, "cancelled");
                    }
                }
            }
            _ => {}
        }
    }

    /// Ask the client to tell of changes to logs, configurations and the
    /// baseline on disk.
    fn register_watchers(&mut self) {
        if !self.setup.watch {
            return;
        }
        let globs = [
            "**/*.{jsonl,ndjson,log,txt,vtt,srt,json}",
            "**/callint.toml",
        ];
        let watchers: Vec<serde_json::Value> = globs
            .iter()
            .map(|g| serde_json::json!({"globPattern": g}))
            .collect();
        self.ask(
            "client/registerCapability",
            serde_json::json!({"registrations": [{
                "id": "callint-watch",
                "method": "workspace/didChangeWatchedFiles",
                "registerOptions": {"watchers": watchers},
            }]}),
        );
    }

    fn open(&mut self, d: lsp_types::TextDocumentItem) {
        let Some(path) = path_of_uri(d.uri.as_str()) else {
            return;
        };
        // A log open as it is on disk is followed as it grows: a native
        // log from the records read before, any other re-read whole.
        let mut text = d.text;
        let (mut disk, mut follow) = (None, Follow::No);
        if same_as_file(&path, text.as_bytes()) {
            if growing::is_native(&path, text.as_bytes()) {
                // Its records are kept, not its text: the file has it.
                let to = memchr::memrchr(b'\n', text.as_bytes()).map_or(0, |k| k + 1) as u64;
                text = String::new();
                follow = Follow::Here(Box::new(growing::Growing::start(&path, to)));
            } else {
                disk = Some(memchr::memrchr(b'\n', text.as_bytes()).map_or(0, |k| k + 1) as u64);
            }
        }
        let key = d.uri.as_str().to_string();
        self.docs.insert(
            key,
            Doc {
                uri: d.uri,
                path,
                text,
                version: Some(d.version),
                generation: 1,
                due: Some(Instant::now()),
                running: false,
                last: None,
                disk,
                follow,
                linter: None,
                started: 0,
                stop: Arc::new(AtomicBool::new(false)),
            },
        );
    }

    fn change(&mut self, p: lsp_types::DidChangeTextDocumentParams) {
        let debounce = self.setup.debounce;
        let Some(doc) = self.docs.get_mut(p.text_document.uri.as_str()) else {
            return;
        };
        match &mut doc.follow {
            Follow::No => {}
            Follow::Lent { edits, .. } => {
                // Applied when the text is back.
                edits.push(p);
                doc.generation += 1;
                return;
            }
            Follow::Here(g) => {
                doc.text = text_of(g.text(&doc.path));
                doc.follow = Follow::No;
            }
        }
        edit(doc, p, debounce);
    }

    /// Files changed on disk: a configuration or the baseline lints every
    /// document again; a followed log is read on.
    fn watched(&mut self, p: &lsp_types::DidChangeWatchedFilesParams) {
        let mut all = false;
        for c in &p.changes {
            let Some(path) = path_of_uri(c.uri.as_str()) else {
                continue;
            };
            if path.file_name().is_some_and(|n| n == "callint.toml")
                || self.setup.baseline.as_deref() == Some(path.as_path())
            {
                all = true;
                continue;
            }
            if let Some(doc) = self.docs.get_mut(c.uri.as_str()) {
                if read_on(doc) {
                    doc.generation += 1;
                    // Not typing: nothing to wait for.
                    doc.due = Some(Instant::now());
                }
            }
        }
        if all {
            self.lint_all();
        }
    }

    fn lint_all(&mut self) {
        let now = Instant::now();
        for doc in self.docs.values_mut() {
            doc.linter = None;
            doc.generation += 1;
            doc.due = Some(now);
        }
    }
}

/// The linter of an open document's configuration: kept from before, or
/// made now, stopped by the document's flag (none when it cannot be made:
/// the lint then says why).
fn linter_of(settings: &Settings, doc: &mut Doc) -> Option<Arc<Linter>> {
    let config = settings.config_path(&doc.path);
    let made = Made {
        modified: config
            .as_deref()
            .and_then(|c| std::fs::metadata(c).ok()?.modified().ok()),
        config,
    };
    if let Some((m, l)) = &doc.linter {
        if *m == made {
            return Some(Arc::clone(l));
        }
    }
    let mut l = settings.linter(made.config.as_deref()).ok()?;
    l.stop_with(Arc::clone(&doc.stop));
    let l = Arc::new(l);
    doc.linter = Some((made, Arc::clone(&l)));
    Some(l)
}

/// Apply an editor's change to a document's text (not a followed log's).
fn edit(doc: &mut Doc, p: lsp_types::DidChangeTextDocumentParams, debounce: Duration) {
    {
        for c in p.content_changes {
            match c.range {
                Some(range) => {
                    let places = Places::new(doc.text.as_bytes());
                    let (a, b) = (places.offset(range.start), places.offset(range.end));
                    let (a, b) = (a.min(b), a.max(b));
                    if doc.text.is_char_boundary(a) && doc.text.is_char_boundary(b) {
                        doc.text.replace_range(a..b, &c.text);
                    }
                }
                None => doc.text = c.text,
            }
        }
        doc.version = Some(p.text_document.version);
        doc.generation += 1;
        doc.disk = None;
        doc.due = Some(Instant::now() + debounce);
    }
}

impl Server {
    /// When the next lint is due; none while as many run as can (the
    /// next to finish wakes the loop).
    fn next_due(&self) -> Option<Instant> {
        if self.docs.values().filter(|d| d.running).count() >= cores() {
            return None;
        }
        self.docs
            .values()
            .filter(|d| !d.running)
            .filter_map(|d| d.due)
            .min()
    }

    /// Start the lints that are due, one at a time per document and no
    /// more at once than there are cores (each lints on every core).
    fn start_due(&mut self) {
        let now = Instant::now();
        let cores = cores();
        let busy = self.docs.values().filter(|d| d.running).count();
        let keys: Vec<String> = self
            .docs
            .iter()
            .filter(|(_, d)| !d.running && d.due.is_some_and(|t| t <= now))
            .map(|(k, _)| k.clone())
            .take(cores.saturating_sub(busy))
            .collect();
        for key in keys {
            let Some(doc) = self.docs.get_mut(&key) else {
                continue;
            };
            doc.due = None;
            doc.running = true;
            doc.started = doc.generation;
            doc.stop.store(false, Ordering::Relaxed);
            let mut job = job_for(&self.setup, &doc.uri, &doc.path);
            job.linter = linter_of(&self.setup.settings, doc);
            let what = match std::mem::replace(&mut doc.follow, Follow::No) {
                Follow::Here(g) => {
                    doc.follow = Follow::Lent {
                        grew: false,
                        edits: Vec::new(),
                    };
                    Err(g)
                }
                other => {
                    doc.follow = other;
                    Ok(doc.text.clone().into_bytes())
                }
            };
            let generation = doc.generation;
            let done = self.done.clone();
            let started = self.workers.run(move || {
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match what {
                    Ok(bytes) => (job.run(bytes), None),
                    Err(mut g) => (job.run_growing(&mut g), Some(g)),
                }));
                let (linted, follow) = run.unwrap_or_else(|_| {
                    let failed = Linted {
                        found: Vec::new(),
                        failed: Some("callint could not lint this document".into()),
                    };
                    (failed, None)
                });
                let _ = done.send(Done {
                    uri: key,
                    generation,
                    linted,
                    follow,
                });
            });
            if !started {
                // No thread takes it: what it took is gone, and the log is
                // read again from its start.
                doc.running = false;
                doc.due = Some(now + Duration::from_millis(100));
                if let Follow::Lent { .. } = doc.follow {
                    doc.follow = Follow::Here(Box::new(growing::Growing::start_on_disk(&doc.path)));
                }
            }
        }
    }

    /// Tell the lints that are stale (their document changed since they
    /// started) to stop.
    fn stop_stale(&self) {
        for d in self.docs.values() {
            if d.running && d.started != d.generation {
                d.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    fn finished(&mut self, d: Done) {
        let pull = self.setup.pull;
        let debounce = self.setup.debounce;
        let Some(doc) = self.docs.get_mut(&d.uri) else {
            return;
        };
        doc.running = false;
        if let (None, Follow::Lent { .. }) = (&d.follow, &doc.follow) {
            // Lost with a lint that failed: read again from the start.
            doc.follow = Follow::Here(Box::new(growing::Growing::start_on_disk(&doc.path)));
        }
        if let Some(mut g) = d.follow {
            match std::mem::replace(&mut doc.follow, Follow::No) {
                Follow::Lent { grew, edits } if edits.is_empty() => {
                    if grew && g.read_on(&doc.path) == growing::Change::Grew {
                        doc.generation += 1;
                        doc.due = Some(Instant::now());
                    }
                    doc.follow = Follow::Here(g);
                }
                Follow::Lent { edits, .. } => {
                    // Edited in the editor meanwhile: its text from now on.
                    doc.text = text_of(g.text(&doc.path));
                    for p in edits {
                        edit(doc, p, debounce);
                    }
                }
                other => doc.follow = other,
            }
        }
        // A stale result (the document changed meanwhile) is dropped.
        if d.generation != doc.generation {
            if doc.due.is_none() {
                doc.due = Some(Instant::now());
            }
            return;
        }
        let linted = Arc::new(d.linted);
        doc.last = Some((d.generation, Arc::clone(&linted)));
        if !pull {
            let params =
                PublishDiagnosticsParams::new(doc.uri.clone(), linted.diagnostics(), doc.version);
            self.notify("textDocument/publishDiagnostics", params);
        } else if self.setup.refresh && !self.pulls.iter().any(|(_, k, _)| *k == d.uri) {
            self.ask("workspace/diagnostic/refresh", serde_json::Value::Null);
        }
        self.answer_pulls();
    }

    /// The current result of an open document, if its latest change is
    /// linted.
    fn current(&self, key: &str) -> Option<(u64, Arc<Linted>)> {
        let doc = self.docs.get(key)?;
        match &doc.last {
            Some((g, l)) if *g == doc.generation => Some((*g, Arc::clone(l))),
            _ => None,
        }
    }

    fn pull(&mut self, id: RequestId, p: &lsp_types::DocumentDiagnosticParams) {
        let key = p.text_document.uri.as_str().to_string();
        if self.docs.contains_key(&key) {
            self.pulls.push((id, key, p.previous_result_id.clone()));
            self.answer_pulls();
            return;
        }
        // A document that is not open: its file as it is on disk.
        let Some(path) = path_of_uri(&key) else {
            return self.refuse(id, ErrorCode::InvalidParams, "not a file: URI");
        };
        let job = job_for(&self.setup, &p.text_document.uri, &path);
        let out = self.out.clone();
        self.workers.run(move || {
            let bytes = std::fs::read(&path).unwrap_or_default();
            let linted = job.run(bytes);
            let report = full_report(None, &linted);
            let _ = out.send(Out::Message(Message::Response(Response::new_ok(
                id, report,
            ))));
        });
    }

    /// Answer the pull requests whose document's latest change is linted
    /// (or that is closed).
    fn answer_pulls(&mut self) {
        let pulls = std::mem::take(&mut self.pulls);
        for (id, key, previous) in pulls {
            if !self.docs.contains_key(&key) {
                self.reply(id, full_report(None, &Linted::default()));
                continue;
            }
            let Some((generation, linted)) = self.current(&key) else {
                self.pulls.push((id, key, previous));
                continue;
            };
            let result_id = generation.to_string();
            if previous.as_deref() == Some(result_id.as_str()) {
                let report = DocumentDiagnosticReportResult::Report(
                    DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
                        related_documents: None,
                        unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                            result_id,
                        },
                    }),
                );
                self.reply(id, report);
            } else {
                self.reply(id, full_report(Some(result_id), &linted));
            }
        }
    }

    fn hover(&mut self, id: RequestId, p: &lsp_types::HoverParams) {
        let key = p.text_document_position_params.text_document.uri.as_str();
        let at = p.text_document_position_params.position;
        let found = self.last_of(key);
        let mut here: Vec<&Found> = found
            .iter()
            .flat_map(|l| &l.found)
            .filter(|f| covers(f.range, at))
            .collect();
        // The narrowest finding first: the one most about this place.
        here.sort_by_key(|f| {
            (
                f.range.end.line.saturating_sub(f.range.start.line),
                f.range.end.character,
            )
        });
        let mut pages: Vec<&str> = Vec::new();
        let mut rules: Vec<&str> = Vec::new();
        for f in &here {
            if rules.contains(&f.rule) {
                continue;
            }
            rules.push(f.rule);
            if let Some(page) = crate::rules::page(f.rule) {
                pages.push(page);
            }
        }
        if pages.is_empty() {
            return self.reply(id, serde_json::Value::Null);
        }
        let hover = Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: pages.join("\n---\n\n"),
            }),
            range: here.first().map(|f| f.range),
        };
        self.reply(id, hover);
    }

    /// The last result of a document, current or not (a hover or an action
    /// while a change is being linted uses what was shown).
    fn last_of(&self, key: &str) -> Option<Arc<Linted>> {
        self.docs
            .get(key)?
            .last
            .as_ref()
            .map(|(_, l)| Arc::clone(l))
    }

    fn code_action(&mut self, id: RequestId, p: &lsp_types::CodeActionParams) {
        let key = p.text_document.uri.as_str().to_string();
        let (Some(doc), Some(linted)) = (self.docs.get(&key), self.last_of(&key)) else {
            return self.reply(id, Vec::<CodeActionOrCommand>::new());
        };
        let here: Vec<Found> = linted
            .found
            .iter()
            .filter(|f| overlaps(f.range, p.range))
            .cloned()
            .collect();
        if here.is_empty() {
            return self.reply(id, Vec::<CodeActionOrCommand>::new());
        }
        let uri = doc.uri.clone();
        let version = doc.version;
        let text = match &doc.follow {
            Follow::Here(g) => text_of(g.text(&doc.path)),
            _ => doc.text.clone(),
        };
        let path = doc.path.clone();
        let settings = self.setup.settings.clone();
        let baseline = self.setup.baseline.is_some();
        let out = self.out.clone();
        // The trial lints of the suppressions run off the main loop.
        self.workers.run(move || {
            let linter = settings.linter_for(&path).ok();
            let name = path.to_string_lossy().into_owned();
            let mut list = Vec::new();
            for f in &here {
                let edit = linter
                    .as_ref()
                    .and_then(|l| actions::suppression(l, &name, &text, f));
                if let Some(edit) = edit {
                    // For the version of the text it was tried on: a
                    // client does not apply it to another.
                    let changes =
                        lsp_types::DocumentChanges::Edits(vec![lsp_types::TextDocumentEdit {
                            text_document: lsp_types::OptionalVersionedTextDocumentIdentifier {
                                uri: uri.clone(),
                                version,
                            },
                            edits: vec![lsp_types::OneOf::Left(edit)],
                        }]);
                    list.push(CodeActionOrCommand::CodeAction(CodeAction {
                        title: format!("Silence {} on this line (callint)", f.rule),
                        kind: Some(CodeActionKind::QUICKFIX),
                        diagnostics: Some(vec![f.diagnostic.clone()]),
                        edit: Some(WorkspaceEdit {
                            document_changes: Some(changes),
                            ..WorkspaceEdit::default()
                        }),
                        ..CodeAction::default()
                    }));
                }
                // A plain command: some clients read any action that
                // carries one as a command.
                if let (true, Some(e)) = (baseline, &f.entry) {
                    list.push(CodeActionOrCommand::Command(Command {
                        title: format!("Add this {} finding to the baseline (callint)", f.rule),
                        command: ADD_TO_BASELINE.into(),
                        arguments: Some(vec![serde_json::json!({
                            "uri": uri.as_str(),
                            "fingerprint": e.fingerprint,
                        })]),
                    }));
                }
            }
            let _ = out.send(Out::Message(Message::Response(Response::new_ok(id, list))));
        });
    }

    fn command(&mut self, id: RequestId, p: &lsp_types::ExecuteCommandParams) {
        if p.command != ADD_TO_BASELINE {
            return self.refuse(
                id,
                ErrorCode::InvalidParams,
                format!("no command {}", p.command),
            );
        }
        let arg = p.arguments.first();
        let uri = arg.and_then(|a| a.get("uri")).and_then(|u| u.as_str());
        let print = arg
            .and_then(|a| a.get("fingerprint"))
            .and_then(|u| u.as_str());
        let (Some(uri), Some(print), Some(path)) = (uri, print, self.setup.baseline.clone()) else {
            return self.refuse(id, ErrorCode::InvalidParams, "wants {uri, fingerprint}");
        };
        let entry = self.last_of(uri).and_then(|l| {
            l.found
                .iter()
                .find_map(|f| f.entry.clone().filter(|e| e.fingerprint == print))
        });
        let Some(entry) = entry else {
            return self.refuse(id, ErrorCode::InvalidParams, "no such finding");
        };
        let written = crate::lint::baseline::Baseline::load(&path, true).and_then(|b| {
            let mut all = b.entries().to_vec();
            all.push(entry);
            crate::lint::baseline::write(&path, all)
        });
        match written {
            Ok(_) => {
                self.reply(id, serde_json::Value::Null);
                self.lint_all();
            }
            Err(why) => self.refuse(id, ErrorCode::InternalError, why),
        }
    }
}

/// Read on a followed log: the complete lines it grew by since the last
/// read, added to the document; a log that shrank is read again whole.
/// Returns whether the document changed.
fn read_on(doc: &mut Doc) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    match &mut doc.follow {
        Follow::Here(g) => return g.read_on(&doc.path) == growing::Change::Grew,
        Follow::Lent { grew, .. } => {
            *grew = true;
            return false;
        }
        Follow::No => {}
    }
    let Some(read) = doc.disk else { return false };
    let Ok(mut file) = std::fs::File::open(&doc.path) else {
        return false;
    };
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return false;
    };
    let from = if len < read {
        doc.text.clear();
        0
    } else {
        read
    };
    if file.seek(SeekFrom::Start(from)).is_err() {
        return false;
    }
    let mut grown = Vec::new();
    if file.read_to_end(&mut grown).is_err() {
        return false;
    }
    let Some(end) = memchr::memrchr(b'\n', &grown) else {
        return from == 0;
    };
    grown.truncate(end + 1);
    doc.text.push_str(&String::from_utf8_lossy(&grown));
    doc.disk = Some(from + grown.len() as u64);
    true
}

/// Bytes as a document's text (any that are no UTF-8 replaced).
fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Whether the file at `path` holds `text`, read a block at a time.
fn same_as_file(path: &Path, text: &[u8]) -> bool {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    if file.metadata().map(|m| m.len()).ok() != Some(text.len() as u64) {
        return false;
    }
    let mut block = vec![0u8; 1 << 16];
    let mut at = 0;
    loop {
        match file.read(&mut block) {
            Ok(0) => return at == text.len(),
            Ok(n) if text.get(at..at + n) == Some(&block[..n]) => at += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            _ => return false,
        }
    }
}

/// The rules' pages as files an editor opens from a finding's code: in
/// the cache folder (`$XDG_CACHE_HOME/callint/rules-VERSION`, else under
/// `~/.cache`), written once per version. None when they cannot be.
fn rule_pages() -> Option<String> {
    let guard = crate::app::guard::default_cache_dir()?;
    let dir = guard
        .parent()?
        .join(format!("rules-{}", env!("CARGO_PKG_VERSION")));
    std::fs::create_dir_all(&dir).ok()?;
    for m in crate::rules::catalogue() {
        let Some(page) = crate::rules::page(m.name) else {
            continue;
        };
        let file = dir.join(format!("{}.md", m.name));
        if std::fs::read(&file).ok().as_deref() != Some(page.as_bytes()) {
            std::fs::write(&file, page).ok()?;
        }
    }
    Some(format!("{}/{{rule}}.md", uri_of_path(&dir)?))
}

/// The `file:` URI of an absolute path, its bytes escaped as a URI's path
/// needs.
fn uri_of_path(path: &Path) -> Option<String> {
    let text = path.to_str()?;
    let text = text.replace('\\', "/");
    let mut out = String::from("file://");
    if !text.starts_with('/') {
        out.push('/');
    }
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~:".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Some(out)
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

fn job_for(setup: &Setup, uri: &Uri, path: &Path) -> Job {
    let name = setup
        .root
        .as_deref()
        .and_then(|r| path.strip_prefix(r).ok())
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned();
    Job {
        settings: setup.settings.clone(),
        path: path.to_path_buf(),
        name,
        uri: uri.clone(),
        baseline: setup.baseline.clone(),
        rule_url: setup.rule_url.clone(),
        linter: None,
    }
}

fn full_report(result_id: Option<String>, linted: &Linted) -> DocumentDiagnosticReportResult {
    DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(
        RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id,
                items: linted.diagnostics(),
            },
        },
    ))
}

fn parse<T: serde::de::DeserializeOwned>(params: serde_json::Value) -> Result<T, String> {
    serde_json::from_value(params).map_err(|e| format!("invalid parameters: {e}"))
}

/// Whether a finding's range holds a position (an empty range: its
/// place).
fn covers(r: lsp_types::Range, at: Position) -> bool {
    if r.start == r.end {
        return at == r.start;
    }
    r.start <= at && at < r.end
}

fn overlaps(a: lsp_types::Range, b: lsp_types::Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// The path of a `file:` URI, its escapes decoded.
pub fn path_of_uri(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // A host before the path (`file://host/…`) is not ours to read.
    let path = if rest.starts_with('/') {
        rest
    } else {
        rest.strip_prefix("localhost")?
    };
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[k], bytes.get(k + 1), bytes.get(k + 2)) {
            (b'%', Some(&a), Some(&b)) if hex(a).is_some() && hex(b).is_some() => {
                let v = hex(a).unwrap_or(0) * 16 + hex(b).unwrap_or(0);
                out.push(u8::try_from(v).unwrap_or(b'?'));
                k += 3;
            }
            (b, _, _) => {
                out.push(b);
                k += 1;
            }
        }
    }
    let s = String::from_utf8(out).ok()?;
    // Windows: `/C:/dir` is `C:/dir`.
    #[cfg(windows)]
    let s = match s.as_bytes() {
        [b'/', d, b':', ..] if d.is_ascii_alphabetic() => s[1..].to_string(),
        _ => s,
    };
    Some(PathBuf::from(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_make_uris_that_decode_to_them() {
        let p = Path::new("/tmp/a b/\u{e4}%.md");
        let uri = uri_of_path(p).unwrap();
        assert_eq!(uri, "file:///tmp/a%20b/%C3%A4%25.md");
        assert_eq!(path_of_uri(&uri).as_deref(), Some(p));
    }

    #[test]
    fn file_uris_are_decoded() {
        assert_eq!(
            path_of_uri("file:///tmp/a%20b/%C3%A4.md"),
            Some(PathBuf::from("/tmp/a b/\u{e4}.md"))
        );
        assert_eq!(path_of_uri("untitled:Untitled-1"), None);
        assert_eq!(path_of_uri("file://elsewhere/x"), None);
    }
}
