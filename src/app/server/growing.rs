//! A call log open in the editor as it is on disk, followed as it grows:
//! each line is read and parsed once, when it is written, and every lint
//! runs over the records kept from before and the new ones, with the
//! findings `check` gives for the file as it then is.
//!
//! Only whole lines are read (a line still being written waits for the
//! next change). A file that shrank, was replaced, or whose bytes before
//! the end of what was read changed is read from its start again. A file
//! that is not a native log (or stops looking like one) is linted whole,
//! as before: the parsed records are kept only where they are exactly
//! what `check` reads.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::input::native;
use crate::lint::engine::{FileResult, Linter};

/// Bytes before the end of what was read that are read again on each
/// change, to tell a file rewritten from one appended to.
const CHECKED: u64 = 4096;

/// One followed log.
pub struct Growing {
    /// The file's whole lines read so far.
    pub text: Vec<u8>,
    /// Its records and problems, parsed up to `parsed`, with how many
    /// problems the reader keeps (the linter's cap): made by the first
    /// lint that reads the file as a native log.
    read: Option<(usize, native::Growing)>,
    parsed: usize,
    /// The bytes are lent to a lint's result.
    lent: bool,
    /// The file's identity when it was read from its start.
    id: Option<(u64, u64)>,
    /// When it was last changed, as last read.
    modified: Option<std::time::SystemTime>,
}

/// What reading on found.
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// New whole lines were read.
    Grew,
    /// Nothing new.
    Same,
    /// The file cannot be read now.
    Gone,
}

impl Growing {
    /// Follow the file at `path`, whose bytes are `bytes` (all of them:
    /// the whole lines are kept). Nothing is parsed before the first lint.
    pub fn start(path: &Path, mut bytes: Vec<u8>) -> Growing {
        let end = memchr::memrchr(b'\n', &bytes).map_or(0, |k| k + 1);
        bytes.truncate(end);
        let meta = std::fs::metadata(path).ok();
        Growing {
            text: bytes,
            read: None,
            parsed: 0,
            lent: false,
            id: meta.as_ref().and_then(identity),
            modified: meta.and_then(|m| m.modified().ok()),
        }
    }

    /// Read on from where the last read stopped. A file rewritten since is
    /// read again from its start.
    pub fn read_on(&mut self, path: &Path) -> Change {
        let Ok(mut file) = std::fs::File::open(path) else {
            return Change::Gone;
        };
        let Ok(meta) = file.metadata() else {
            return Change::Gone;
        };
        let read = self.text.len() as u64;
        let id = identity(&meta);
        let modified = meta.modified().ok();
        // Changed and no longer: rewritten in place; grown: what was read
        // must still end it.
        let rewritten = meta.len() < read
            || (id.is_some() && id != self.id)
            || (meta.len() == read && modified != self.modified)
            || !self.same_tail(&mut file);
        self.modified = modified;
        if rewritten {
            let mut all = Vec::new();
            if file.seek(SeekFrom::Start(0)).is_err() || file.read_to_end(&mut all).is_err() {
                return Change::Gone;
            }
            *self = Growing::start(path, all);
            return Change::Grew;
        }
        let mut grown = Vec::new();
        if file.seek(SeekFrom::Start(read)).is_err() || file.read_to_end(&mut grown).is_err() {
            return Change::Gone;
        }
        let Some(end) = memchr::memrchr(b'\n', &grown) else {
            return Change::Same;
        };
        grown.truncate(end + 1);
        self.text.extend_from_slice(&grown);
        Change::Grew
    }

    /// Whether the file still holds the last bytes read where they were.
    fn same_tail(&self, file: &mut std::fs::File) -> bool {
        let read = self.text.len() as u64;
        let from = read.saturating_sub(CHECKED);
        let mut tail = vec![0u8; (read - from) as usize];
        file.seek(SeekFrom::Start(from)).is_ok()
            && file.read_exact(&mut tail).is_ok()
            && tail == self.text[from as usize..]
    }

    /// Lint what was read, as `check` lints the file at `name` holding
    /// these bytes. The result's `source` holds the bytes, lent: give them
    /// back with [`Growing::give_back`].
    pub fn lint(&mut self, linter: &Linter, name: &str) -> FileResult {
        if !reads_as_read(name, &self.text) {
            // Not a native log as `check` would read it: linted whole.
            self.read = None;
            return linter.lint(name, self.text.clone());
        }
        let keep = linter.keep();
        if self.read.as_ref().is_none_or(|(k, _)| *k != keep) {
            self.read = None;
            self.parsed = 0;
        }
        let read = &mut self
            .read
            .get_or_insert_with(|| (keep, native::Growing::new(keep)))
            .1;
        read.feed(&self.text[self.parsed..], self.parsed);
        self.parsed = self.text.len();
        let (problems, dropped) = read.problems();
        let text = std::mem::take(&mut self.text);
        let mut r = linter.lint_native_read(name, &text, read.log_mut(), problems, dropped);
        r.len = text.len();
        r.source = text;
        self.lent = true;
        r
    }

    /// Take back the bytes lent to a lint's result.
    pub fn give_back(&mut self, r: &mut FileResult) {
        if std::mem::take(&mut self.lent) {
            self.text = std::mem::take(&mut r.source);
        }
    }
}

/// Whether `check` reads `bytes`, a file named `name`, as a native log
/// with the bytes as they are (no encoding or line ends changed on the
/// way), so that what was parsed line by line is what it parses.
fn reads_as_read(name: &str, bytes: &[u8]) -> bool {
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let json = match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b) => matches!(b, b'{' | b'['),
        // Blank: nothing to misread, unless a bare carriage return would
        // be made a line end.
        None => memchr::memchr(b'\r', bytes).is_none(),
    };
    json && crate::input::detect(name, bytes) == crate::input::Format::Native
}

/// The identity of a file (device and inode), where the system has one.
fn identity(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        None
    }
}

/// Whether the file at `path` holding `bytes` is followed from its
/// records: a native log, read as it is.
pub fn is_native(path: &Path, bytes: &[u8]) -> bool {
    reads_as_read(&path.to_string_lossy(), bytes)
}
