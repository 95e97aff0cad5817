//! What the guard keeps of a session between two of its runs, so that the
//! next pending call costs only the lines the client wrote since.
//!
//! Each run of the guard is its own process (the client starts one per
//! tool call), and the call it judges is most of a session: read and
//! parsed whole, a long call costs tens of milliseconds every time. So the
//! guard writes down, per session, where the call starts in the
//! transcript, how far it read it, and the session reader's state at that
//! point ([`Partial`]: the records of the call so far, the calls still
//! waiting for their results); the next run checks that the transcript is
//! still the one it read, reads the bytes appended since, and goes on from
//! that state. The same holds for any client's session file read a line at
//! a time (a Claude Code transcript, a Codex rollout).
//!
//! The state is written as MessagePack (`rmp-serde`) with each struct as an
//! array of its fields in order, not a map by field name ([`encode`]): the
//! records of a long call are most of it, and reading them back is most of
//! a warm run. From JSON that took more than half of a run, and with the
//! field names written out, two thirds of the decoding went to reading and
//! matching the names. Without names the layout is this build's own: a
//! state another build wrote either fails to decode or is turned down by
//! its `binary` id, and is only ever ignored.
//!
//! It is never trusted blindly: a file from another binary, another
//! configuration or another transcript, a transcript that is shorter than
//! what was read or whose bytes at the start of the call, at the end of
//! what was read or in the lines before the call that were read too (a
//! rollout's `session_meta`) differ (it was rewritten), a new `join` of the
//! call, or a file that cannot be read: the transcript is then read afresh,
//! as with no cache at all. Nothing the cache holds can deny a call the fresh read
//! would let through, or the other way round.

use crate::app::follow::identity;
use crate::core::hash::HashSet;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::input::session::{LineReader, Partial};
use crate::input::Options;
use crate::model::Ms;

/// How many bytes at the start of the call and at the end of what was read
/// are compared with the transcript before the state is used.
const PROBE: u64 = 4096;

/// The cache files not used for this long are removed when a new one is
/// written.
const MAX_AGE: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// The folder the guard keeps its state in by default: `callint/guard`
/// under `$XDG_CACHE_HOME`, else under `~/.cache`.
pub fn default_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("callint").join("guard"))
}

/// The state of one session's call as read up to a point of its
/// transcript, by the session reader `R`.
pub(crate) struct Kept<R> {
    /// The offset of the line that starts the call (its `join` or
    /// `create_call`), and of the end of what was read (after a line
    /// break).
    pub tail: u64,
    pub end: u64,
    /// The times of the last entries read ([`super::times`]): the latest
    /// first.
    pub times: Vec<Option<Ms>>,
    /// The ids of the server's calls read ([`super::calls_only`]).
    pub ids: HashSet<Vec<u8>>,
    /// The session reader, as far as it read.
    pub reader: Partial<R>,
    /// The lines before `tail` the reader read first (offset and length
    /// of each), and the hash of their bytes.
    before: Vec<(u64, u64)>,
    before_hash: u64,
    /// The bytes of the call's first [`PROBE`] bytes and of those before
    /// `end`, as checked.
    head: Vec<u8>,
    last: Vec<u8>,
}

impl<R: LineReader> Kept<R> {
    /// The state before reading the call that starts at `tail`, with the
    /// lines `before` it that the reader must read too (each with its
    /// offset; whole lines, in file order) read.
    pub fn fresh(opts: &Options, tail: u64, before: Vec<(u64, Vec<u8>)>) -> Kept<R> {
        let mut reader = Partial::new(opts);
        let mut bytes = Vec::new();
        let mut spans = Vec::with_capacity(before.len());
        for (at, line) in before {
            spans.push((at, line.len() as u64));
            bytes.extend_from_slice(&line);
        }
        let before_hash = hash(&bytes);
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        reader.read(&bytes, false);
        Kept {
            tail,
            end: tail,
            times: Vec::new(),
            ids: HashSet::default(),
            reader,
            before: spans,
            before_hash,
            head: Vec::new(),
            last: Vec::new(),
        }
    }
}

impl<R> Kept<R> {
    /// Note that the next `read` bytes of the transcript (whole lines) were
    /// read, with the times found in them (latest first).
    pub fn advance(&mut self, read: &[u8], mut times: Vec<Option<Ms>>) {
        self.end += read.len() as u64;
        let room = (PROBE as usize).saturating_sub(self.head.len());
        self.head.extend_from_slice(&read[..room.min(read.len())]);
        self.last.extend_from_slice(read);
        let over = self.last.len().saturating_sub(PROBE as usize);
        self.last.drain(..over);
        times.append(&mut self.times);
        times.truncate(super::TIME_TRIES);
        self.times = times;
    }
}

/// Where one session's state is kept, and what it must match.
pub(crate) struct Slot {
    file: PathBuf,
    /// Everything the state depends on besides the transcript's bytes.
    key: String,
}

/// A state as written. Its fields are written by position: [`Slot::serialize`]
/// writes the same fields in the same order.
#[derive(Serialize, Deserialize)]
struct Stored<R> {
    key: String,
    binary: String,
    identity: Option<(u64, u64)>,
    tail: u64,
    end: u64,
    head: u64,
    last: u64,
    before: Vec<(u64, u64)>,
    before_hash: u64,
    times: Vec<Option<Ms>>,
    ids: Vec<String>,
    reader: Partial<R>,
}

/// `value` as the state is written: MessagePack, each struct an array of
/// its fields in order. `None` when it cannot be written.
pub(crate) fn encode<T: Serialize + ?Sized>(value: &T) -> Option<Vec<u8>> {
    rmp_serde::to_vec(value).ok()
}

/// What [`encode`] wrote, read back; `None` when `bytes` are not such a
/// value (another build's layout, a file cut short).
pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    rmp_serde::from_slice(bytes).ok()
}

fn hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

impl Slot {
    /// The slot of the session `session` (else of the transcript alone),
    /// whose transcript, in the client's shape `shape`, is `transcript`,
    /// for the calls of `server`, read with the reader options described
    /// by `options`.
    pub fn new(
        dir: &Path,
        shape: &str,
        session: Option<&str>,
        transcript: &Path,
        server: &str,
        options: &str,
    ) -> Slot {
        let place = format!(
            "{shape}\n{}\n{}\n{server}",
            session.unwrap_or(""),
            transcript.to_string_lossy()
        );
        let file = dir
            .join(format!("v{}", env!("CARGO_PKG_VERSION")))
            .join(format!("{:016x}.msgpack", hash(place.as_bytes())));
        Slot {
            file,
            key: format!("{place}\n{options}"),
        }
    }

    /// The kept state, if there is one that still holds for the
    /// transcript open as `file`, and the bytes appended to it since (to
    /// its end). `None` whenever anything does not match or cannot be
    /// read.
    pub fn load<R: DeserializeOwned>(&self, file: &mut File) -> Option<(Kept<R>, Vec<u8>)> {
        let text = std::fs::read(&self.file).ok()?;
        let s: Stored<R> = decode(&text)?;
        if s.key != self.key || s.binary != crate::app::cache::binary_id() {
            return None;
        }
        let meta = file.metadata().ok()?;
        if s.identity != identity(&meta)
            || meta.len() < s.end
            || s.end < s.tail
            || meta.len() - s.tail > super::MAX_CALL_BYTES
        {
            return None;
        }
        let head = read_at(file, s.tail, PROBE.min(s.end - s.tail))?;
        let from = s.end.saturating_sub(PROBE).max(s.tail);
        let last = read_at(file, from, s.end - from)?;
        if hash(&head) != s.head || hash(&last) != s.last {
            return None;
        }
        let mut before = Vec::new();
        for &(at, len) in &s.before {
            if at.checked_add(len)? > s.tail {
                return None;
            }
            before.extend_from_slice(&read_at(file, at, len)?);
        }
        if hash(&before) != s.before_hash {
            return None;
        }
        let new = read_at(file, s.end, meta.len() - s.end)?;
        let ids = s.ids.into_iter().map(String::into_bytes).collect();
        Some((
            Kept {
                tail: s.tail,
                end: s.end,
                times: s.times,
                ids,
                reader: s.reader,
                before: s.before,
                before_hash: s.before_hash,
                head,
                last,
            },
            new,
        ))
    }

    /// The state `kept`, serialized for [`Slot::write`]; `None` when it
    /// cannot be (an id that is no UTF-8).
    pub fn serialize<R: Serialize>(
        &self,
        kept: &Kept<R>,
        meta: &std::fs::Metadata,
    ) -> Option<Vec<u8>> {
        /// [`Stored`], borrowed: the same fields in the same order.
        #[derive(Serialize)]
        struct StoredRef<'a, R> {
            key: &'a str,
            binary: String,
            identity: Option<(u64, u64)>,
            tail: u64,
            end: u64,
            head: u64,
            last: u64,
            before: &'a [(u64, u64)],
            before_hash: u64,
            times: &'a [Option<Ms>],
            ids: Vec<&'a str>,
            reader: &'a Partial<R>,
        }
        let ids = kept
            .ids
            .iter()
            .map(|i| std::str::from_utf8(i).ok())
            .collect::<Option<Vec<&str>>>()?;
        encode(&StoredRef {
            key: &self.key,
            binary: crate::app::cache::binary_id(),
            identity: identity(meta),
            tail: kept.tail,
            end: kept.end,
            head: hash(&kept.head),
            last: hash(&kept.last),
            before: &kept.before,
            before_hash: kept.before_hash,
            times: &kept.times,
            ids,
            reader: &kept.reader,
        })
    }

    /// Write a serialized state in place of the slot's, whole or not at all
    /// (another run of the guard may be reading it). Failing to is no
    /// error: the next run reads the transcript afresh.
    pub fn write(&self, bytes: &[u8]) {
        let Some(dir) = self.file.parent() else {
            return;
        };
        let new = !self.file.exists();
        if new && std::fs::create_dir_all(dir).is_err() {
            return;
        }
        if !crate::app::cache::write_whole(&self.file, bytes) {
            return;
        }
        if new {
            prune(dir);
        }
    }
}

/// Remove the states of sessions not judged for a week.
fn prune(dir: &Path) {
    let now = std::time::SystemTime::now();
    let old = |p: &Path| {
        p.metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > MAX_AGE)
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        // `.json`: what earlier builds of this version wrote.
        if p.extension().is_some_and(|x| x == "msgpack" || x == "json") && old(&p) {
            let _ = std::fs::remove_file(&p);
        }
    }
}

/// `len` bytes of `file` from `at`, all of them or `None`.
fn read_at(file: &mut File, at: u64, len: u64) -> Option<Vec<u8>> {
    file.seek(SeekFrom::Start(at)).ok()?;
    let mut buf = Vec::with_capacity(usize::try_from(len).ok()?);
    file.by_ref().take(len).read_to_end(&mut buf).ok()?;
    (buf.len() as u64 == len).then_some(buf)
}
