//! One run over many inputs, as every front end makes it: the files below
//! the paths given (and bytes handed over whole), each linted with the
//! configuration in force for it, in parallel, the native logs of one call
//! joined in the room pass, and a summary of it all.
//!
//! The command line, the Python module and batch jobs all call this; they
//! differ only in what they make of each file's findings, which they say
//! with a [`Render`].
//!
//! ```no_run
//! use callint::app::batch::{Batch, Settings};
//! use callint::lint::engine::FileResult;
//!
//! // Keep each file's findings as they are.
//! struct Keep;
//! impl callint::app::batch::Render for Keep {
//!     type Piece = usize;
//!     fn render(&self, r: &mut FileResult, _: &std::path::Path) -> Result<usize, String> {
//!         Ok(r.diagnostics.len())
//!     }
//! }
//!
//! let mut batch = Batch::new(Settings::default());
//! batch.add(std::path::Path::new("corpus/")).unwrap();
//! let run = batch.run(&Keep).unwrap();
//! println!("{}", run.summary.line());
//! ```

use crate::core::diagnostic::Diagnostic;
use crate::core::hash::HashMap;
use crate::core::span::Span;
use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::core::escape::{file_name, one_line};
use crate::input::{self, Format, Recorder};
use crate::lint::config::Config;
use crate::lint::engine::{CallSeen, FileResult, Linter};
use crate::report::Summary;

/// Which configuration file is in force.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ConfigChoice {
    /// The nearest `callint.toml` above each file.
    #[default]
    Nearest,
    /// This file, for every input.
    File(PathBuf),
    /// None: the defaults.
    Defaults,
}

impl ConfigChoice {
    /// What `--no-config` and `--config FILE` say (the first wins).
    pub fn from_flags(no_config: bool, file: Option<&Path>) -> ConfigChoice {
        match file {
            _ if no_config => ConfigChoice::Defaults,
            Some(f) => ConfigChoice::File(f.to_path_buf()),
            None => ConfigChoice::Nearest,
        }
    }
}

/// What a run is told besides its inputs.
#[derive(Clone, Debug)]
pub struct Settings {
    pub config: ConfigChoice,
    /// Only these rules (replaces `select` of the configuration file).
    pub select: Option<Vec<String>>,
    /// Also skip these rules (adds to `ignore` of the configuration file).
    pub ignore: Vec<String>,
    /// Findings of one rule listed per file before the rest are summed up.
    pub max_repeats: Option<usize>,
    /// Read every input as this format instead of telling it by content.
    pub input_format: Option<Format>,
    /// Join the native logs of one call into the room timeline.
    pub merge: bool,
    /// Also read hidden and ignored files below folders.
    pub no_ignore: bool,
    /// Files linted at once (none: every core).
    pub jobs: Option<usize>,
    /// Where to keep unchanged files' findings (none: no cache).
    pub cache_dir: Option<PathBuf>,
    /// The name standard input (`-`) is filed under, and its configuration
    /// is found by.
    pub stdin_name: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            config: ConfigChoice::Nearest,
            select: None,
            ignore: Vec::new(),
            max_repeats: None,
            input_format: None,
            merge: true,
            no_ignore: false,
            jobs: None,
            cache_dir: None,
            stdin_name: None,
        }
    }
}

impl Settings {
    /// The configuration file for `path` (a file or a folder), found once
    /// per folder through `seen`.
    fn config_for(&self, seen: &mut Nearest, path: &Path) -> Option<PathBuf> {
        match &self.config {
            ConfigChoice::Defaults => None,
            ConfigChoice::File(c) => Some(c.clone()),
            ConfigChoice::Nearest => {
                let folder = if path.is_dir() {
                    path
                } else {
                    path.parent().unwrap_or(Path::new(""))
                };
                seen.of_folder(folder, || crate::lint::config::canonical_folder(folder))
            }
        }
    }

    /// [`Settings::config_for`] of a file found by walking the folder
    /// `root`, whose canonical form is `canonical_root`: its folder is
    /// resolved without asking the system again.
    fn config_for_walked(
        &self,
        seen: &mut Nearest,
        file: &Path,
        root: &Path,
        canonical_root: &Path,
    ) -> Option<PathBuf> {
        match &self.config {
            ConfigChoice::Nearest => {
                let folder = file.parent().unwrap_or(Path::new(""));
                seen.of_folder(folder, || match folder.strip_prefix(root) {
                    Ok(below) => canonical_root.join(below),
                    Err(_) => crate::lint::config::canonical_folder(folder),
                })
            }
            _ => self.config_for(seen, file),
        }
    }

    /// The configuration file in force for `path`, if any.
    pub fn config_path(&self, path: &Path) -> Option<PathBuf> {
        self.config_for(&mut Nearest::default(), path)
    }

    /// The configuration of `config_path` (the defaults for none), with
    /// these settings' changes.
    pub fn load(&self, config_path: Option<&Path>) -> Result<Config, String> {
        let mut config = match config_path {
            Some(p) => Config::load(p).map_err(|e| e.to_string())?,
            None => Config::default(),
        };
        if self.max_repeats.is_some() {
            config.max_repeats = self.max_repeats;
        }
        Ok(config)
    }

    /// The linter for a file at `path` (or in the folder `path`): with the
    /// configuration in force there.
    pub fn linter_for(&self, path: &Path) -> Result<Linter, String> {
        self.linter(self.config_path(path).as_deref())
    }

    /// The linter for `config_path`.
    pub fn linter(&self, config_path: Option<&Path>) -> Result<Linter, String> {
        let config = self.load(config_path)?;
        Linter::new(&config, self.select.as_deref(), &self.ignore).map_err(|e| e.to_string())
    }

    /// Everything besides a file's bytes and name that changes what
    /// linting it finds, as the cache keys its entries by: the resolved
    /// configuration, the rule choices and the input format.
    fn describe(&self, config_path: Option<&Path>) -> String {
        let config = self
            .load(config_path)
            .map(|c| format!("{c:?}"))
            .unwrap_or_default();
        format!(
            "{config}|select={:?}|ignore={:?}|input={:?}",
            self.select, self.ignore, self.input_format
        )
    }
}

/// The nearest configuration file of each folder asked about.
#[derive(Default)]
struct Nearest {
    /// By folder, as named.
    by_name: HashMap<PathBuf, Option<PathBuf>>,
    /// By canonical folder: every folder looked in on the way up.
    by_folder: HashMap<PathBuf, Option<PathBuf>>,
}

impl Nearest {
    /// The nearest configuration file of `folder`, whose canonical form
    /// `canonical` gives when the folder is new.
    fn of_folder(&mut self, folder: &Path, canonical: impl FnOnce() -> PathBuf) -> Option<PathBuf> {
        if let Some(found) = self.by_name.get(folder) {
            return found.clone();
        }
        let found = self.above(&canonical());
        self.by_name.insert(folder.to_path_buf(), found.clone());
        found
    }

    /// The nearest configuration file in the canonical folder `dir` or
    /// above it. Each folder is looked in once: the folders of a tree
    /// share their ancestors.
    fn above(&mut self, dir: &Path) -> Option<PathBuf> {
        let mut on_the_way = Vec::new();
        let mut at = Some(dir);
        let found = loop {
            let Some(d) = at else { break None };
            if let Some(found) = self.by_folder.get(d) {
                break found.clone();
            }
            on_the_way.push(d.to_path_buf());
            if let Some(file) = crate::lint::config::in_folder(d) {
                break Some(file);
            }
            at = d.parent();
        };
        for d in on_the_way {
            self.by_folder.insert(d, found.clone());
        }
        found
    }
}

/// Something said about the inputs before linting: a path that cannot be
/// read, a folder with nothing to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub message: String,
    /// The run cannot be a pass (a path given was not checked); otherwise
    /// a warning.
    pub fatal: bool,
}

/// What of a file's bytes a [`Render`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// None: a file that was not kept whole is not read again.
    Nothing,
    /// The lines its findings point into, numbered as in the file: a file
    /// that was not kept whole is read again a block at a time, keeping
    /// those lines only ([`crate::core::lines::Excerpt`]); every other
    /// line is its bare line end.
    Lines,
    /// Every byte (to show a finding with the lines around it).
    Whole,
}

/// What a front end makes of each linted file, on the worker that linted
/// it, once its findings are final (after the room pass). The file's bytes
/// are dropped afterwards.
pub trait Render: Sync {
    type Piece: Send + Sync;
    /// What of the file's bytes [`Render::render`] reads to show where
    /// findings are.
    fn needs(&self) -> Needs {
        Needs::Whole
    }
    /// One file with its final findings; `r.source` holds its bytes when
    /// it has findings and [`Render::needs`] says so.
    fn render(&self, r: &mut FileResult, file: &Path) -> Result<Self::Piece, String>;
    /// One more file linted (for a progress bar).
    fn tick(&self) {}
}

/// One input of the run.
struct Entry {
    path: PathBuf,
    /// The linter's index in [`Batch::linters`].
    slot: usize,
    /// Bytes handed over whole, filed under `path` (taken when linted).
    data: Option<std::sync::Mutex<Option<Vec<u8>>>>,
}

impl Entry {
    /// Whether the input's bytes are kept whole by its result, since they
    /// cannot be read again: standard input and bytes handed over.
    fn kept(&self) -> bool {
        self.data.is_some() || is_stdin(&self.path)
    }
}

/// A run being put together: add paths and bytes, then [`Batch::run`].
pub struct Batch {
    settings: Settings,
    linters: Vec<(Option<PathBuf>, Linter)>,
    todo: Vec<Entry>,
    nearest: Nearest,
    problems: Vec<Problem>,
}

/// One input's result and piece, or why it could not be linted.
pub type Outcome<P> = Result<(FileResult, P), String>;

/// What a run gives back.
pub struct Run<P> {
    /// Every input, in the order added (folders in walk order), with its
    /// result and piece, or why it could not be linted.
    pub files: Vec<(PathBuf, Outcome<P>)>,
    /// What was said about the inputs while adding them.
    pub problems: Vec<Problem>,
    /// Counts over every file linted.
    pub summary: Summary,
}

impl<P> Run<P> {
    /// True when every input given was read and linted.
    pub fn complete(&self) -> bool {
        !self.problems.iter().any(|p| p.fatal) && self.files.iter().all(|(_, r)| r.is_ok())
    }
}

impl Batch {
    pub fn new(settings: Settings) -> Batch {
        Batch {
            settings,
            linters: Vec::new(),
            todo: Vec::new(),
            nearest: Nearest::default(),
            problems: Vec::new(),
        }
    }

    /// The index in `linters` of the linter for `config_path`, made on
    /// first use.
    fn slot(&mut self, config_path: Option<PathBuf>) -> Result<usize, String> {
        if let Some(k) = self.linters.iter().position(|(p, _)| *p == config_path) {
            return Ok(k);
        }
        let linter = self.settings.linter(config_path.as_deref())?;
        self.linters.push((config_path, linter));
        Ok(self.linters.len() - 1)
    }

    /// Add a file, a folder (every file below it that callint reads), or
    /// `-` (standard input, read when the run starts). An error is a
    /// configuration that cannot be used, which stops the run; paths that
    /// cannot be read are [`Problem`]s.
    pub fn add(&mut self, path: &Path) -> Result<(), String> {
        let stdin = path.as_os_str() == "-";
        let named = match (&self.settings.stdin_name, stdin) {
            (Some(n), true) => n.clone(),
            _ => path.to_path_buf(),
        };
        let config = self.settings.config_for(&mut self.nearest, &named);
        let slot = self.slot(config)?;
        if stdin {
            self.todo.push(Entry {
                path: path.to_path_buf(),
                slot,
                data: None,
            });
            return Ok(());
        }
        let walk = crate::app::walk::Walk {
            no_ignore: self.settings.no_ignore,
            threads: self.settings.jobs.unwrap_or(0),
        };
        let mut files = Vec::new();
        let mut errors = Vec::new();
        walk.files(path, &mut files, &mut errors);
        for e in errors {
            let shown = file_name(&e.path.to_string_lossy());
            self.problems.push(if e.fatal {
                Problem {
                    message: format!("cannot read {shown}: {}", e.error),
                    fatal: true,
                }
            } else {
                Problem {
                    message: one_line(&e.error.to_string()),
                    fatal: false,
                }
            });
        }
        let folder = path.is_dir();
        let canonical_root = if folder {
            crate::lint::config::canonical_folder(path)
        } else {
            PathBuf::new()
        };
        if files.is_empty() && folder {
            self.problems.push(Problem {
                message: nothing_below(path, self.settings.no_ignore),
                fatal: true,
            });
        }
        for f in files {
            let slot = if folder {
                let c =
                    self.settings
                        .config_for_walked(&mut self.nearest, &f, path, &canonical_root);
                self.slot(c)?
            } else {
                slot
            };
            self.todo.push(Entry {
                path: f,
                slot,
                data: None,
            });
        }
        Ok(())
    }

    /// Add bytes to lint as the file `name` (which tells their format when
    /// the content does not, and finds their configuration).
    pub fn add_bytes(&mut self, name: &Path, bytes: Vec<u8>) -> Result<(), String> {
        let config = self.settings.config_for(&mut self.nearest, name);
        let slot = self.slot(config)?;
        self.todo.push(Entry {
            path: name.to_path_buf(),
            slot,
            data: Some(std::sync::Mutex::new(Some(bytes))),
        });
        Ok(())
    }

    /// The inputs added so far.
    pub fn len(&self) -> usize {
        self.todo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.todo.is_empty()
    }

    /// Lint every input in parallel, join the calls' rooms, render each
    /// file with `render`, and sum up. The error is a pool of threads that
    /// cannot be started.
    pub fn run<R: Render>(self, render: &R) -> Result<Run<R::Piece>, String> {
        let Batch {
            settings,
            linters,
            todo,
            problems,
            ..
        } = self;
        let threads = settings.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("callint-{i}"))
            .build()
            .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
        let cache = settings
            .cache_dir
            .as_deref()
            .and_then(crate::app::cache::Cache::open);
        let described: Vec<String> = linters
            .iter()
            .map(|(p, _)| settings.describe(p.as_deref()))
            .collect();
        let stdin_name = settings
            .stdin_name
            .as_ref()
            .map_or_else(|| "-".to_string(), |p| p.to_string_lossy().into_owned());
        // The two halves of each `tee` capture are linted together, by the
        // task of the input half.
        let mut partner: Vec<Option<(usize, bool)>> = vec![None; todo.len()];
        for (i, o) in tee_pairs(&todo, settings.input_format) {
            partner[i] = Some((o, true));
            partner[o] = Some((i, false));
        }
        // The files of one opencode session in its storage folder are
        // linted together, by the task of the first.
        let mut group: Vec<Option<Vec<usize>>> = vec![None; todo.len()];
        for g in stored_sessions(&todo, settings.input_format, &partner) {
            for &k in &g[1..] {
                group[k] = Some(Vec::new());
            }
            let lead = g[0];
            group[lead] = Some(g);
        }
        let looks = pool.install(|| first_looks(&todo, settings.input_format, settings.merge));
        // The allocator keeps freed memory longer for many small files
        // than for one, or for a large one.
        crate::app::alloc::for_inputs(todo.len(), largest(&looks));
        let keep = likely_rooms(&todo, &looks);
        let how = OneFile {
            keep: false,
            input_format: settings.input_format,
            merge: settings.merge,
            stdin_name: &stdin_name,
            cache: None,
        };
        let slots: Vec<Slot<R::Piece>> = pool.install(|| {
            use rayon::prelude::*;
            // One task per file: logs differ a lot in size, and whichever
            // worker is free takes the next one.
            todo.par_iter()
                .enumerate()
                .with_max_len(1)
                .map(|(i, e)| {
                    let linter = &linters[e.slot].1;
                    let r = match (&group[i], partner[i]) {
                        (Some(g), _) if g.is_empty() => Slot::Partner,
                        (Some(g), _) => {
                            let files: Vec<&Entry> = g.iter().map(|&k| &todo[k]).collect();
                            Slot::Group(lint_stored(linter, &files, render))
                        }
                        (None, p) => match p {
                            Some((_, false)) => Slot::Partner,
                            Some((o, true)) => {
                                let (a, b) = lint_pair(linter, e, &todo[o], render);
                                Slot::Pair(a, b)
                            }
                            None => {
                                let how = OneFile {
                                    cache: cache.as_ref().map(|c| (c, described[e.slot].as_str())),
                                    keep: keep[i],
                                    ..how
                                };
                                Slot::One(lint_one(linter, e, &how, render))
                            }
                        },
                    };
                    render.tick();
                    r
                })
                .collect()
        });
        let mut done: Vec<Linted<R::Piece>> = Vec::with_capacity(todo.len());
        let mut seconds = Vec::new();
        for (i, s) in slots.into_iter().enumerate() {
            match s {
                Slot::One(r) => done.push(r),
                Slot::Pair(a, b) => {
                    done.push(a);
                    if let Some((o, _)) = partner[i] {
                        seconds.push((o, b));
                    }
                }
                Slot::Partner => done.push(Err(String::new())),
                Slot::Group(all) => {
                    let mut all = all.into_iter();
                    done.push(all.next().unwrap_or_else(|| Err(String::new())));
                    if let Some(g) = &group[i] {
                        for (&o, r) in g[1..].iter().zip(all) {
                            seconds.push((o, r));
                        }
                    }
                }
            }
        }
        for (o, b) in seconds {
            done[o] = b;
        }
        if settings.merge {
            rooms(&pool, &linters, &todo, &mut done);
            pool.install(|| {
                use rayon::prelude::*;
                done.par_iter_mut()
                    .zip(todo.par_iter())
                    .with_max_len(1)
                    .for_each(|(d, e)| {
                        if let Ok((r, piece @ Piece::Later)) = d {
                            match render_file(r, e, render) {
                                Ok(p) => *piece = Piece::Done(p),
                                Err(msg) => *d = Err(msg),
                            }
                        }
                    });
            });
        }
        let mut summary = Summary::default();
        let mut files = Vec::with_capacity(done.len());
        for (d, e) in done.into_iter().zip(&todo) {
            let d = match d {
                Ok((r, Piece::Done(p))) => {
                    summary.add(&r);
                    Ok((r, p))
                }
                // Every later piece was rendered above.
                Ok((_, Piece::Later)) => Err(format!(
                    "{} was not rendered",
                    file_name(&e.path.to_string_lossy())
                )),
                Err(msg) => Err(msg),
            };
            files.push((e.path.clone(), d));
        }
        if let Some(c) = cache {
            let linted: Vec<String> = todo
                .iter()
                .map(|e| e.path.to_string_lossy().into_owned())
                .collect();
            c.save(&linted);
        }
        Ok(Run {
            files,
            problems,
            summary,
        })
    }
}

/// Logs pack to about a tenth of their size: a compressed file counts as
/// this many times its size.
const PACKED_RATIO: u64 = 10;

/// What one look at an input before linting tells.
struct Look {
    /// Its size as the allocator's choice counts it: bytes handed over, or
    /// a file's size (standard input, whose size is not known, counts as
    /// large, and a compressed file as what it likely unpacks to).
    size: u64,
    /// For a native log, when rooms are merged: the first call id its
    /// first bytes name, and its size.
    call: Option<(String, u64)>,
}

/// One look at each input, on every core: its size, and with `merge` the
/// call id its first bytes name.
fn first_looks(todo: &[Entry], input_format: Option<Format>, merge: bool) -> Vec<Look> {
    use rayon::prelude::*;
    todo.par_iter()
        .map(|e| {
            if let Some(data) = &e.data {
                let data = data.lock().unwrap_or_else(|e| e.into_inner());
                let size = data.as_ref().map_or(0, |d| d.len() as u64);
                return Look { size, call: None };
            }
            if is_stdin(&e.path) {
                return Look {
                    size: u64::MAX,
                    call: None,
                };
            }
            let Ok(meta) = std::fs::metadata(&e.path) else {
                return Look {
                    size: 0,
                    call: None,
                };
            };
            let name = e.path.to_string_lossy();
            let packed = input::packed::inner_name(&name).len() < name.len();
            Look {
                size: meta
                    .len()
                    .saturating_mul(if packed { PACKED_RATIO } else { 1 }),
                call: merge
                    .then(|| call_id_in_head(&e.path, &meta, input_format))
                    .flatten(),
            }
        })
        .collect()
}

/// The size of the largest input, as the allocator's choice counts it.
fn largest(looks: &[Look]) -> u64 {
    looks.iter().map(|l| l.size).max().unwrap_or(0)
}

/// The most bytes of files whose calls' digests are kept from the per-file
/// pass for the room pass at once; past it, members are read again in the
/// room.
const KEEP_BYTES: u64 = 1 << 30;

/// Which files are likely members of a room: native logs whose first call
/// id, as their first bytes show it, another file under the same
/// configuration shares. The per-file pass keeps a digest of their calls
/// ([`crate::model::digest`]), so that the room pass does not read and parse them
/// again. Only a guess, and one that never changes a finding: a member
/// without digests is read again, and a digest made in vain was only held
/// a little longer.
fn likely_rooms(todo: &[Entry], looks: &[Look]) -> Vec<bool> {
    let ids: Vec<Option<(usize, &str, u64)>> = todo
        .iter()
        .zip(looks)
        .map(|(e, l)| l.call.as_ref().map(|(id, len)| (e.slot, id.as_str(), *len)))
        .collect();
    let mut count: HashMap<(usize, &str), usize> = HashMap::default();
    for (slot, id, _) in ids.iter().flatten() {
        *count.entry((*slot, id)).or_default() += 1;
    }
    let mut budget = KEEP_BYTES;
    ids.iter()
        .map(|x| match x {
            Some((slot, id, len)) if count[&(*slot, *id)] > 1 && *len <= budget => {
                budget -= len;
                true
            }
            _ => false,
        })
        .collect()
}

/// `files` cut into groups that can be checked apart and give together
/// what one run over all of them gives: the native logs whose first bytes
/// name the same call id are in one group, since the room pass joins them;
/// every other file is grouped with the others of its folder. Groups and
/// their files keep the order of `files`.
pub fn partitions(files: &[PathBuf], input_format: Option<Format>) -> Vec<Vec<PathBuf>> {
    let mut at: HashMap<(bool, String), usize> = HashMap::default();
    let mut groups: Vec<Vec<PathBuf>> = Vec::new();
    for f in files {
        let key = match head_call_id(f, input_format) {
            Some((id, _)) => (true, id),
            None => {
                let folder = f.parent().unwrap_or(Path::new(""));
                (false, folder.to_string_lossy().into_owned())
            }
        };
        let g = *at.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(f.clone());
    }
    groups
}

/// The first bytes of a file, as many as tell its format.
fn read_head(path: &Path) -> Option<Vec<u8>> {
    let mut b = Vec::with_capacity(input::HEAD);
    std::fs::File::open(path)
        .ok()?
        .take(input::HEAD as u64)
        .read_to_end(&mut b)
        .ok()?;
    Some(b)
}

/// The first call id a native log's first bytes name (a `call` or
/// `call_id` key), and the file's size.
fn head_call_id(path: &Path, input_format: Option<Format>) -> Option<(String, u64)> {
    call_id_in_head(path, &std::fs::metadata(path).ok()?, input_format)
}

/// [`head_call_id`] of a file whose metadata is at hand.
fn call_id_in_head(
    path: &Path,
    meta: &std::fs::Metadata,
    input_format: Option<Format>,
) -> Option<(String, u64)> {
    // A pipe (as `<(cmd)` gives) can be read only once: by the linter.
    if !meta.is_file() {
        return None;
    }
    let len = meta.len();
    let head = read_head(path)?;
    let native = match input_format {
        Some(fmt) => fmt == Format::Native,
        None => input::detect_head(&path.to_string_lossy(), &head) == Some(Format::Native),
    };
    if !native || input::packed::Packing::of(&head).is_some() {
        return None;
    }
    [&b"\"call\""[..], &b"\"call_id\""[..]]
        .iter()
        .filter_map(|key| {
            let at = memchr::memmem::find(&head, key)?;
            let rest = &head[at + key.len()..];
            let rest = rest
                .trim_ascii_start()
                .strip_prefix(b":")?
                .trim_ascii_start();
            let rest = rest.strip_prefix(b"\"")?;
            let end = memchr::memchr(b'"', rest)?;
            Some((at, String::from_utf8_lossy(&rest[..end]).into_owned()))
        })
        .min_by_key(|(at, _)| *at)
        .map(|(_, id)| (id, len))
}

/// Why a folder gave nothing to read: a mistaken path more often than a
/// clean one, so never passed silently. Logs are often git-ignored: say so
/// when that is why.
fn nothing_below(path: &Path, no_ignore: bool) -> String {
    let mut all = Vec::new();
    if !no_ignore {
        let walk = crate::app::walk::Walk {
            no_ignore: true,
            threads: 0,
        };
        walk.files(path, &mut all, &mut Vec::new());
    }
    let shown = file_name(&path.to_string_lossy());
    let looked_for = crate::app::walk::LOG_EXTENSIONS
        .iter()
        .map(|e| format!(".{e}"))
        .collect::<Vec<_>>()
        .join(" ");
    if all.is_empty() {
        format!(
            "nothing to check below {shown}: folders are searched for files ending in {looked_for}"
        )
    } else {
        format!(
            "nothing to check below {shown}: the {} file(s) there ending in {looked_for} are hidden or ignored (.gitignore, .ignore); --no-ignore reads them",
            all.len()
        )
    }
}

/// What a worker hands back for one file besides its findings.
enum Piece<P> {
    Done(P),
    /// Not rendered yet: the file is a native log of a call that other
    /// files may share; it is rendered after the room pass.
    Later,
}

/// One file linted and rendered, or why it could not be.
type Linted<P> = Result<(FileResult, Piece<P>), String>;

/// What a worker hands back for one entry of the files to read.
enum Slot<P> {
    One(Linted<P>),
    /// The two halves of a `tee` capture: the input's, the output's.
    Pair(Linted<P>, Linted<P>),
    /// The output half of a capture, linted with its input half, or a
    /// file of a stored opencode session, linted with the first of them.
    Partner,
    /// The files of one opencode session in its storage folder.
    Group(Vec<Linted<P>>),
}

/// The files of each opencode session kept in opencode's storage folder
/// (`storage/session/..`, `storage/message/..`, `storage/part/..`) among
/// the files to read, by the session their content names: index lists of
/// at least two files under one configuration, the session's info first,
/// then in path order. Files already paired as a capture are left alone.
fn stored_sessions(
    todo: &[Entry],
    input_format: Option<Format>,
    paired: &[Option<(usize, bool)>],
) -> Vec<Vec<usize>> {
    if !matches!(
        input_format,
        None | Some(Format::Session(input::Client::Opencode))
    ) {
        return Vec::new();
    }
    let mut by_session: std::collections::BTreeMap<(usize, String), Vec<(bool, usize)>> =
        std::collections::BTreeMap::new();
    for (i, e) in todo.iter().enumerate() {
        if e.data.is_some() || is_stdin(&e.path) || paired[i].is_some() {
            continue;
        }
        let json = e
            .path
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("json"));
        if !json {
            continue;
        }
        let Some(head) = read_head(&e.path) else {
            continue;
        };
        if let Some((session, kind)) = input::opencode::stored_session(&head) {
            let info = kind == input::opencode::Stored::Session;
            by_session
                .entry((e.slot, session))
                .or_default()
                .push((!info, i));
        }
    }
    by_session
        .into_values()
        .filter(|g| g.len() >= 2)
        .map(|mut g| {
            g.sort();
            g.into_iter().map(|(_, i)| i).collect()
        })
        .collect()
}

/// Read, lint and render the files of one stored opencode session.
fn lint_stored<R: Render>(linter: &Linter, files: &[&Entry], render: &R) -> Vec<Linted<R::Piece>> {
    let mut read = Vec::with_capacity(files.len());
    for e in files {
        match std::fs::read(&e.path) {
            Ok(b) => read.push((e.path.to_string_lossy().into_owned(), b)),
            Err(err) => {
                let why = cannot_read(&e.path, &err);
                return files.iter().map(|_| Err(why.clone())).collect();
            }
        }
    }
    linter
        .lint_stored(read)
        .into_iter()
        .zip(files)
        .map(|(mut r, e)| render_file(&mut r, e, render).map(|p| (r, Piece::Done(p))))
        .collect()
}

/// The halves of `tee` captures among the files to read: `(input,
/// output)` indices of files under the same configuration. Halves pair by
/// their names (`x.in.jsonl` and `x.out.jsonl`, `stdin` and `stdout` in
/// one folder) when both hold JSON-RPC lines; with `--input-format tee`,
/// the files named pair two by two, in the order given, each pair's
/// halves told apart by content.
fn tee_pairs(todo: &[Entry], input_format: Option<Format>) -> Vec<(usize, usize)> {
    let forced = match input_format {
        None => false,
        Some(Format::Recording(Recorder::Tee)) => true,
        Some(_) => return Vec::new(),
    };
    let files: Vec<(usize, &Path, usize)> = todo
        .iter()
        .enumerate()
        .filter(|(_, e)| e.data.is_none() && !is_stdin(&e.path))
        .map(|(i, e)| (i, e.path.as_path(), e.slot))
        .collect();
    if forced {
        return files
            .chunks_exact(2)
            .filter(|c| c[0].2 == c[1].2)
            .map(|c| {
                let requests = |p: &Path| {
                    let h = read_head(p).unwrap_or_default();
                    h.windows(12).filter(|w| w == b"\"tools/call\"").count()
                };
                if requests(c[1].1) > requests(c[0].1) {
                    (c[1].0, c[0].0)
                } else {
                    (c[0].0, c[1].0)
                }
            })
            .collect();
    }
    let names: Vec<String> = files
        .iter()
        .map(|(_, p, _)| p.to_string_lossy().to_string())
        .collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let is_trace = |p: &Path| {
        read_head(p)
            .is_some_and(|h| input::detect_head(&p.to_string_lossy(), &h) == Some(Format::Mcp))
    };
    input::tee::pairs(&refs)
        .into_iter()
        .map(|(a, b)| (files[a], files[b]))
        .filter(|(a, b)| a.2 == b.2 && is_trace(a.1) && is_trace(b.1))
        .map(|(a, b)| (a.0, b.0))
        .collect()
}

/// Read, lint and render the two halves of a `tee` capture.
fn lint_pair<R: Render>(
    linter: &Linter,
    input_half: &Entry,
    output_half: &Entry,
    render: &R,
) -> (Linted<R::Piece>, Linted<R::Piece>) {
    let (input, output) = (input_half.path.as_path(), output_half.path.as_path());
    let read = |p: &Path| std::fs::read(p).map_err(|e| cannot_read(p, &e));
    let (a, b) = match (read(input), read(output)) {
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            let why = |r: Result<Vec<u8>, String>, p: &Path| match r {
                Err(e) => Err(e),
                Ok(_) => Err(format!(
                    "{} was not linted: the other half of its capture could not be read",
                    one_line(&p.display().to_string())
                )),
            };
            return (why(a, input), why(b, output));
        }
    };
    let (mut r, mut s) = linter.lint_pair(
        (&input.to_string_lossy(), a),
        (&output.to_string_lossy(), b),
    );
    let first = render_file(&mut r, input_half, render).map(|p| (r, Piece::Done(p)));
    let second = render_file(&mut s, output_half, render).map(|p| (s, Piece::Done(p)));
    (first, second)
}

/// How [`lint_one`] reads and lints a file.
#[derive(Clone, Copy)]
struct OneFile<'a> {
    /// Keep the logs read for the room pass.
    keep: bool,
    input_format: Option<Format>,
    merge: bool,
    /// What standard input is filed under.
    stdin_name: &'a str,
    /// The cache, and the settings its entries are keyed by.
    cache: Option<(&'a crate::app::cache::Cache, &'a str)>,
}

/// Read, lint and render one input. The file's bytes are dropped before
/// returning; the findings are kept for the summary. With `merge`, a
/// native log with a call id is rendered later, after the room pass.
fn lint_one<R: Render>(
    linter: &Linter,
    entry: &Entry,
    how: &OneFile<'_>,
    render: &R,
) -> Linted<R::Piece> {
    let OneFile {
        keep,
        input_format,
        merge,
        stdin_name,
        cache,
    } = *how;
    let file = entry.path.as_path();
    let mut r = if let Some(data) = &entry.data {
        let b = data
            .lock()
            .map_or_else(|_| Vec::new(), |mut d| d.take().unwrap_or_default());
        lint_bytes(linter, &file.to_string_lossy(), b, input_format)
    } else if is_stdin(file) {
        let b = read_stdin().map_err(|e| format!("cannot read standard input: {e}"))?;
        lint_bytes(linter, stdin_name, b, input_format)
    } else if let (Some((c, settings)), true) = (cache, is_regular(file)) {
        let key = c.key(file, settings).map_err(|e| cannot_read(file, &e))?;
        match c.get(&key, &file.to_string_lossy()) {
            Some(r) => r,
            None => {
                let r = lint_file(linter, file, input_format, keep)
                    .map_err(|e| cannot_read(file, &e))?;
                c.put(&key, &r);
                r
            }
        }
    } else {
        lint_file(linter, file, input_format, keep).map_err(|e| cannot_read(file, &e))?
    };
    if merge && !r.calls.is_empty() {
        // Read again when needed; bytes handed over cannot be.
        if !entry.kept() {
            r.source = Vec::new();
        }
        return Ok((r, Piece::Later));
    }
    let piece = render_file(&mut r, entry, render)?;
    Ok((r, Piece::Done(piece)))
}

/// Lint a file from disk. A native log larger than the part that tells
/// its format is read a block at a time and never held whole: its
/// records are all that is kept, and the result's source is left empty
/// (the file is read again to show findings). With `keep`, the logs read
/// are kept in the result for the room pass.
fn lint_file(
    linter: &Linter,
    file: &Path,
    input_format: Option<Format>,
    keep: bool,
) -> std::io::Result<FileResult> {
    let name = file.to_string_lossy();
    let mut f = std::fs::File::open(file)?;
    let mut head = Vec::with_capacity(input::HEAD);
    (&mut f).take(input::HEAD as u64).read_to_end(&mut head)?;
    // A compressed file is read whole and unpacked by the linter.
    let packed = input::packed::Packing::of(&head).is_some();
    let native = match input_format {
        Some(fmt) => fmt == Format::Native,
        None => input::detect_head(&name, &head) == Some(Format::Native),
    };
    if native && !packed && head.len() == input::HEAD {
        let lines = input::native::count_lines(std::fs::File::open(file)?)?;
        let stream = std::io::Cursor::new(head).chain(f);
        return if keep {
            linter.lint_native_reader_keeping(&name, stream, lines + 1)
        } else {
            linter.lint_native_reader(&name, stream, lines + 1)
        };
    }
    let mut bytes = head;
    f.read_to_end(&mut bytes)?;
    Ok(if keep {
        linter.lint_keeping(&name, bytes, input_format)
    } else {
        lint_bytes(linter, &name, bytes, input_format)
    })
}

/// Lint bytes read whole, as `input_format` or the format they show.
fn lint_bytes(
    linter: &Linter,
    name: &str,
    bytes: Vec<u8>,
    input_format: Option<Format>,
) -> FileResult {
    match input_format {
        Some(fmt) => linter.lint_as(name, bytes, fmt),
        None => linter.lint(name, bytes),
    }
}

/// All of standard input. A file given as standard input is read into a
/// buffer of its size. A pipe's bytes go into a buffer that doubles when
/// full, and only once more bytes came: one that is full at the end is
/// not copied into one twice its size to learn that nothing follows.
pub fn read_stdin() -> std::io::Result<Vec<u8>> {
    let mut input = std::io::stdin().lock();
    let mut b = Vec::with_capacity(stdin_file_size().unwrap_or(0).max(1 << 16));
    let mut probe = [0u8; 1 << 12];
    loop {
        // Reads up to the capacity there is: no growth inside.
        let room = (b.capacity() - b.len()) as u64;
        if room > 0 && (&mut input).take(room).read_to_end(&mut b)? == 0 {
            return Ok(b);
        }
        if b.len() < b.capacity() {
            continue;
        }
        match input.read(&mut probe) {
            Ok(0) => return Ok(b),
            Ok(n) => b.extend_from_slice(&probe[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The size of standard input when it is a regular file.
#[cfg(unix)]
fn stdin_file_size() -> Option<usize> {
    use std::os::fd::AsFd;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let meta = std::fs::File::from(fd).metadata().ok()?;
    meta.is_file()
        .then(|| usize::try_from(meta.len()).ok())
        .flatten()
}

#[cfg(not(unix))]
fn stdin_file_size() -> Option<usize> {
    None
}

/// A regular file, which can be read twice (a pipe named on the command
/// line, as `<(cmd)` gives, cannot: it is never cached).
fn is_regular(file: &Path) -> bool {
    std::fs::metadata(file).is_ok_and(|m| m.is_file())
}

fn is_stdin(file: &Path) -> bool {
    file.as_os_str() == "-"
}

fn cannot_read(file: &Path, e: &std::io::Error) -> String {
    format!("cannot read {}: {e}", file_name(&file.to_string_lossy()))
}

/// The bytes of `r`'s file: those it kept, or else the file read again,
/// unpacked when compressed (inputs whose bytes cannot be read again are
/// always kept whole).
fn source_of<'r>(r: &'r FileResult, entry: &Entry) -> Result<Cow<'r, [u8]>, String> {
    if r.source.is_empty() && !entry.kept() {
        input::packed::read(&entry.path)
            .map(Cow::Owned)
            .map_err(|e| cannot_read(&entry.path, &e))
    } else {
        Ok(Cow::Borrowed(&r.source))
    }
}

/// Render one linted file, giving it its bytes first when it has findings
/// to show, and drop them afterwards.
fn render_file<R: Render>(
    r: &mut FileResult,
    entry: &Entry,
    render: &R,
) -> Result<R::Piece, String> {
    let needs = if r.diagnostics.is_empty() {
        Needs::Nothing
    } else {
        render.needs()
    };
    let piece = match needs {
        Needs::Lines if r.source.is_empty() && !entry.kept() => {
            let spans = r
                .diagnostics
                .iter()
                .flat_map(Diagnostic::places)
                .map(|l| l.at.span);
            let mut ex = input::packed::read_lines(&entry.path, spans)
                .map_err(|e| cannot_read(&entry.path, &e))?;
            // The findings point into the excerpt while it is shown (and
            // may be left out by then, as a baseline does).
            move_anchors(r, |s| ex.rebase_span(s));
            r.source = std::mem::take(&mut ex.bytes);
            let piece = render.render(r, &entry.path);
            move_anchors(r, |s| ex.origin_span(s));
            piece
        }
        Needs::Nothing => render.render(r, &entry.path),
        _ => {
            if let Cow::Owned(b) = source_of(r, entry)? {
                r.source = b;
            }
            render.render(r, &entry.path)
        }
    };
    r.source = Vec::new();
    r.digests = Vec::new();
    piece
}

/// Move every place a finding of `r` points at with `f`.
fn move_anchors(r: &mut FileResult, f: impl Fn(Span) -> Span) {
    for l in r.diagnostics.iter_mut().flat_map(Diagnostic::places_mut) {
        l.at.span = f(l.at.span);
    }
}

/// The room pass: the native logs of one call (same configuration, same
/// call id, at least two files) are merged, and what the room-scope rules
/// find there is added to the file each finding points into. Deterministic:
/// the groups and their files are in the order of `todo`, and every file's
/// findings are sorted again afterwards.
fn rooms<P: Send + Sync>(
    pool: &rayon::ThreadPool,
    linters: &[(Option<PathBuf>, Linter)],
    todo: &[Entry],
    done: &mut [Linted<P>],
) {
    let groups = crate::room::groups(done.iter().enumerate().flat_map(|(i, d)| {
        let calls: &[CallSeen] = match d {
            Ok((r, Piece::Later)) => &r.calls,
            _ => &[],
        };
        calls.iter().map(move |c| (i, todo[i].slot, c))
    }));
    if groups.is_empty() {
        return;
    }
    let found: Vec<Vec<Vec<crate::core::diagnostic::Diagnostic>>> = pool.install(|| {
        use rayon::prelude::*;
        groups
            .par_iter()
            .with_max_len(1)
            .map(|(slot, id, files)| {
                // A log linted without digests (one from the cache, or one
                // past what a batch keeps) is read again, for as long as its
                // room takes: a batch never holds the bytes of all its logs.
                // A log that cannot be read again adds nothing to the room;
                // rendering it reports why.
                let logs: Vec<(&FileResult, &Entry)> = files
                    .iter()
                    .filter_map(|&i| done[i].as_ref().ok().map(|(r, _)| (r, &todo[i])))
                    .collect();
                let Ok(sources) = logs
                    .iter()
                    .map(|&(r, entry)| {
                        if r.digests.is_empty() {
                            source_of(r, entry)
                        } else {
                            Ok(Cow::Borrowed(&r.source[..]))
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()
                else {
                    return vec![Vec::new(); files.len()];
                };
                let members: Vec<crate::room::Member<'_>> = logs
                    .iter()
                    .zip(&sources)
                    .map(|(&(r, _), source)| crate::room::Member {
                        source,
                        ..crate::room::Member::of(r)
                    })
                    .collect();
                crate::room::check(&linters[*slot].1, id, &members)
            })
            .collect()
    });
    let mut touched = Vec::new();
    for ((_, _, files), found) in groups.iter().zip(found) {
        for (&i, new) in files.iter().zip(found) {
            if let (Ok((r, _)), false) = (&mut done[i], new.is_empty()) {
                r.diagnostics.extend(new);
                touched.push(i);
            }
        }
    }
    for i in touched {
        if let Ok((r, _)) = &mut done[i] {
            crate::room::finish(&mut r.diagnostics);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each file's findings, as `rule@line` in order.
    struct Lines;
    impl Render for Lines {
        type Piece = Vec<String>;
        fn render(&self, r: &mut FileResult, _: &Path) -> Result<Vec<String>, String> {
            Ok(crate::report::json::items(r)
                .iter()
                .map(|i| serde_json::to_value(i).unwrap())
                .map(|v| format!("{}@{}", v["rule"], v["line"]))
                .collect())
        }
    }

    fn settings(merge: bool) -> Settings {
        Settings {
            config: ConfigChoice::Defaults,
            merge,
            jobs: Some(2),
            ..Settings::default()
        }
    }

    fn run(batch: Batch) -> Vec<(String, Vec<String>)> {
        let run = batch.run(&Lines).unwrap();
        assert!(run.complete(), "{:?}", run.problems);
        run.files
            .into_iter()
            .map(|(p, r)| (p.to_string_lossy().into_owned(), r.unwrap().1))
            .collect()
    }

    const SEED: &str = "corpus/seed-incident";
    /// Logs of one call whose room shows what no single log does.
    const ROOM: &str = "corpus/several-logs";

    #[test]
    fn bytes_and_files_give_the_same_findings_and_rooms_join_files() {
        let mut from_files = Batch::new(settings(true));
        from_files.add(Path::new(ROOM)).unwrap();
        let files = run(from_files);
        assert_eq!(files.len(), 2, "{files:?}");

        let mut from_bytes = Batch::new(settings(true));
        for (name, _) in &files {
            let bytes = std::fs::read(name).unwrap();
            from_bytes.add_bytes(Path::new(name), bytes).unwrap();
        }
        assert_eq!(run(from_bytes), files);

        // Without the room pass, the findings that need the other agents'
        // logs are missing, and nothing else changes.
        let mut alone = Batch::new(settings(false));
        alone.add(Path::new(ROOM)).unwrap();
        let alone = run(alone);
        let count = |v: &[(String, Vec<String>)]| v.iter().map(|(_, f)| f.len()).sum::<usize>();
        assert!(count(&alone) < count(&files), "{alone:?} vs {files:?}");
        for ((_, a), (_, f)) in alone.iter().zip(&files) {
            assert!(a.iter().all(|x| f.contains(x)), "{a:?} not within {f:?}");
        }
    }

    #[test]
    fn paths_that_give_nothing_are_fatal_problems_and_the_rest_is_linted() {
        let mut b = Batch::new(settings(true));
        b.add(Path::new("no/such/file.jsonl")).unwrap();
        b.add(Path::new("src/rules")).unwrap();
        b.add(Path::new(SEED)).unwrap();
        let r = b.run(&Lines).unwrap();
        assert!(!r.complete());
        assert_eq!(
            r.problems.iter().filter(|p| p.fatal).count(),
            2,
            "{:?}",
            r.problems
        );
        assert!(r.problems[1].message.contains("nothing to check below"));
        assert_eq!(r.files.len(), 3);
        assert!(r.summary.diagnostics > 0);
    }

    /// Each file of a walked tree gets the configuration of its nearest
    /// folder that has one, the same as when it is named on its own.
    #[test]
    fn walked_files_find_their_nearest_configuration() {
        let root = crate::app::harness::scratch("nearest");
        for d in ["a/b", "a/c/d", "e"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for c in ["callint.toml", "a/c/callint.toml"] {
            std::fs::write(root.join(c), "").unwrap();
        }
        let files = [
            "a/b/x.jsonl",
            "a/c/d/y.jsonl",
            "a/c/z.jsonl",
            "e/w.jsonl",
            "v.jsonl",
        ];
        for f in files {
            std::fs::write(root.join(f), "").unwrap();
        }
        let mut b = Batch::new(Settings {
            config: ConfigChoice::Nearest,
            ..settings(true)
        });
        b.add(&root).unwrap();
        let canonical = std::fs::canonicalize(&root).unwrap();
        let config_of = |e: &Entry| b.linters[e.slot].0.clone();
        let got: Vec<(PathBuf, Option<PathBuf>)> = b
            .todo
            .iter()
            .map(|e| (e.path.clone(), config_of(e)))
            .collect();
        let top = Some(canonical.join("callint.toml"));
        let lower = Some(canonical.join("a/c/callint.toml"));
        let want: Vec<(PathBuf, Option<PathBuf>)> = [
            ("a/b/x.jsonl", &top),
            ("a/c/d/y.jsonl", &lower),
            ("a/c/z.jsonl", &lower),
            ("e/w.jsonl", &top),
            ("v.jsonl", &top),
        ]
        .iter()
        .map(|(f, c)| (root.join(f), (*c).clone()))
        .collect();
        assert_eq!(got, want);
        // Named one by one, each file finds the same.
        for (f, c) in &want {
            assert_eq!(&crate::lint::config::Config::discover(f), c, "{f:?}");
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// The largest input decides how long freed memory is kept: bytes
    /// handed over count as they are, a compressed file as ten times its
    /// size, standard input as large.
    #[test]
    fn the_largest_input_counts_what_a_file_unpacks_to() {
        let dir = crate::app::harness::scratch("largest");
        std::fs::write(dir.join("a.jsonl"), vec![b' '; 300]).unwrap();
        std::fs::write(dir.join("b.jsonl.gz"), vec![0u8; 50]).unwrap();
        let mut b = Batch::new(settings(true));
        let largest_of = |b: &Batch| largest(&first_looks(&b.todo, None, true));
        b.add(&dir.join("a.jsonl")).unwrap();
        assert_eq!(largest_of(&b), 300);
        b.add(&dir.join("b.jsonl.gz")).unwrap();
        assert_eq!(largest_of(&b), 500);
        b.add_bytes(Path::new("c.jsonl"), vec![b' '; 900]).unwrap();
        assert_eq!(largest_of(&b), 900);
        b.add(Path::new("-")).unwrap();
        assert_eq!(largest_of(&b), u64::MAX);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
