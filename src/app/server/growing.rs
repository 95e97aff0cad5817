//! A call log open in the editor as it is on disk, followed as it grows:
//! each line is read and parsed once, when it is written, and every lint
//! runs over the records kept from before and the new ones, with the
//! findings `check` gives for the file as it then is.
//!
//! The file's bytes are not kept: its records are, and the lines the
//! findings point into are read again from disk to place them (as `check`
//! shows the findings of a log it read a block at a time). Only whole
//! lines are read (a line still being written waits for the next change).
//! A file that shrank, was replaced, or whose bytes before the end of what
//! was read changed is read from its start again. A file that is not a
//! native log as `check` reads it (or stops looking like one) is read and
//! linted whole: the parsed records are kept only where they are exactly
//! what `check` reads.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::app::follow::identity;
use crate::input::native;
use crate::lint::engine::{FileResult, Linter};

/// Bytes before the end of what was read that are read again on each
/// change, to tell a file rewritten from one appended to.
const CHECKED: usize = 4096;

/// How much of the file is read at a time to parse it.
const BLOCK: usize = 1 << 20;

/// One followed log.
pub struct Growing {
    /// The file's whole lines end here, as last looked at.
    to: u64,
    /// Its records and problems, parsed up to `parsed` (at a line's
    /// start), with how many problems the reader keeps (the linter's cap):
    /// made by the first lint that reads the file as a native log.
    read: Option<(usize, native::Growing)>,
    parsed: u64,
    /// The first bytes of what was parsed (up to [`crate::input::HEAD`]):
    /// what tells the file's format, and its shape when no record can be
    /// read.
    head: Vec<u8>,
    /// The last bytes of what was parsed (up to [`CHECKED`]).
    tail: Vec<u8>,
    /// The file's identity when it was read from its start.
    id: Option<(u64, u64)>,
    /// When it was last changed, as last looked at.
    modified: Option<std::time::SystemTime>,
}

/// What reading on found.
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// New whole lines were written (or the file was rewritten).
    Grew,
    /// Nothing new.
    Same,
    /// The file cannot be read now.
    Gone,
}

impl Growing {
    /// Follow the file at `path`, whose whole lines end at `to` (as the
    /// editor's text of it shows). Nothing is read before the first lint.
    pub fn start(path: &Path, to: u64) -> Growing {
        let meta = std::fs::metadata(path).ok();
        Growing {
            to,
            read: None,
            parsed: 0,
            head: Vec::new(),
            tail: Vec::new(),
            id: meta.as_ref().and_then(identity),
            modified: meta.and_then(|m| m.modified().ok()),
        }
    }

    /// Follow the file at `path` from its start, as it now is on disk.
    pub fn start_on_disk(path: &Path) -> Growing {
        let to = std::fs::File::open(path)
            .ok()
            .and_then(|mut f| {
                let len = f.metadata().ok()?.len();
                whole_lines_end(&mut f, 0, len).ok()
            })
            .unwrap_or(0);
        Growing::start(path, to)
    }

    /// Look at the file again: new whole lines past those seen are read by
    /// the next lint. A file rewritten since is read again from its start.
    pub fn read_on(&mut self, path: &Path) -> Change {
        let Ok(mut file) = std::fs::File::open(path) else {
            return Change::Gone;
        };
        let Ok(meta) = file.metadata() else {
            return Change::Gone;
        };
        let id = identity(&meta);
        let modified = meta.modified().ok();
        let len = meta.len();
        // Changed and no longer: rewritten in place; grown: what was read
        // must still end it.
        let rewritten = len < self.to
            || (id.is_some() && id != self.id)
            || (len == self.to && modified != self.modified)
            || !self.same_tail(&mut file);
        self.modified = modified;
        if rewritten {
            let Ok(to) = whole_lines_end(&mut file, 0, len) else {
                return Change::Gone;
            };
            *self = Growing::start(path, to);
            self.id = id;
            self.modified = modified;
            return Change::Grew;
        }
        match whole_lines_end(&mut file, self.to, len) {
            Ok(to) if to > self.to => {
                self.to = to;
                Change::Grew
            }
            Ok(_) => Change::Same,
            Err(_) => Change::Gone,
        }
    }

    /// Whether the file still holds the last bytes parsed where they were.
    fn same_tail(&self, file: &mut std::fs::File) -> bool {
        let from = self.parsed - self.tail.len() as u64;
        let mut tail = vec![0u8; self.tail.len()];
        file.seek(SeekFrom::Start(from)).is_ok()
            && file.read_exact(&mut tail).is_ok()
            && tail == self.tail
    }

    /// The whole lines of the file as far as they were seen, read from
    /// disk (what the editor shows of it).
    pub fn text(&self, path: &Path) -> Vec<u8> {
        let mut bytes = Vec::new();
        if let Ok(f) = std::fs::File::open(path) {
            let _ = f.take(self.to).read_to_end(&mut bytes);
        }
        let end = memchr::memrchr(b'\n', &bytes).map_or(0, |k| k + 1);
        bytes.truncate(end);
        bytes
    }

    /// Lint the file at `path` as `check` lints it holding its whole lines
    /// so far, filed under `name`: its new lines read and parsed, added to
    /// the records kept. The result's `source` holds the lines its
    /// findings point into, every other line its bare line end (or the
    /// whole text, for a file linted whole).
    pub fn lint(
        &mut self,
        linter: &Linter,
        path: &Path,
        name: &str,
    ) -> std::io::Result<FileResult> {
        let mut file = std::fs::File::open(path)?;
        if (self.head.len() as u64) < self.to.min(crate::input::HEAD as u64) {
            // What tells the format: read again while the file is short.
            let mut head = Vec::with_capacity(crate::input::HEAD);
            file.seek(SeekFrom::Start(0))?;
            (&mut file)
                .take(self.to.min(crate::input::HEAD as u64))
                .read_to_end(&mut head)?;
            self.head = head;
        }
        let whole = self.head.len() as u64 == self.to;
        if !reads_as_read(name, &self.head, whole) {
            // Not a native log as `check` would read it: linted whole.
            self.read = None;
            self.parsed = 0;
            self.tail.clear();
            let mut bytes = Vec::new();
            file.seek(SeekFrom::Start(0))?;
            (&mut file).take(self.to).read_to_end(&mut bytes)?;
            let end = memchr::memrchr(b'\n', &bytes).map_or(0, |k| k + 1);
            bytes.truncate(end);
            return Ok(linter.lint(name, bytes));
        }
        let keep = linter.keep();
        if self.read.as_ref().is_none_or(|(k, _)| *k != keep) {
            self.read = None;
            self.parsed = 0;
            self.tail.clear();
        }
        let read = &mut self
            .read
            .get_or_insert_with(|| (keep, native::Growing::new(keep)))
            .1;
        // The new whole lines, a block at a time.
        file.seek(SeekFrom::Start(self.parsed))?;
        let mut left = self.to.saturating_sub(self.parsed);
        let mut block: Vec<u8> = Vec::new();
        while left > 0 {
            let start = block.len();
            let want = (BLOCK as u64).min(left) as usize;
            block.resize(start + want, 0);
            let got = read_some(&mut file, &mut block[start..])?;
            block.truncate(start + got);
            left -= got as u64;
            let ended = got == 0;
            let Some(end) = memchr::memrchr(b'\n', &block).map(|k| k + 1) else {
                if ended {
                    break;
                }
                continue;
            };
            read.feed(&block[..end], self.parsed as usize);
            self.parsed += end as u64;
            self.tail
                .extend_from_slice(&block[end.saturating_sub(CHECKED)..end]);
            let over = self.tail.len().saturating_sub(CHECKED);
            self.tail.drain(..over);
            block.drain(..end);
            if ended {
                break;
            }
        }
        // A file cut short meanwhile: its whole lines are what was read.
        self.to = self.parsed;
        let (problems, dropped) = read.problems();
        let mut r = linter.lint_native_read(name, &self.head, read.log_mut(), problems, dropped);
        r.len = self.parsed as usize;
        if !r.diagnostics.is_empty() {
            let spans: Vec<crate::core::span::Span> = r
                .diagnostics
                .iter()
                .flat_map(crate::core::diagnostic::Diagnostic::places)
                .map(|l| l.at.span)
                .collect();
            file.seek(SeekFrom::Start(0))?;
            let reader = std::io::BufReader::with_capacity(BLOCK, (&mut file).take(self.parsed));
            let mut ex = crate::core::lines::Excerpt::read(reader, spans)?;
            for l in r
                .diagnostics
                .iter_mut()
                .flat_map(crate::core::diagnostic::Diagnostic::places_mut)
            {
                l.at.span = ex.rebase_span(l.at.span);
            }
            r.source = std::mem::take(&mut ex.bytes);
        }
        Ok(r)
    }
}

/// Read what there is, up to `buf`'s length, retrying interrupted reads.
fn read_some(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut at = 0;
    while at < buf.len() {
        match file.read(&mut buf[at..]) {
            Ok(0) => break,
            Ok(n) => at += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(at)
}

/// Where the file's whole lines end, looking only at its bytes from
/// `from` (the end of lines seen before) to `len`, from the end backwards:
/// `from` when no line end came since.
fn whole_lines_end(file: &mut std::fs::File, from: u64, len: u64) -> std::io::Result<u64> {
    let mut end = len;
    let mut block = vec![0u8; CHECKED.max(1 << 16)];
    while end > from {
        let start = end.saturating_sub(block.len() as u64).max(from);
        let n = (end - start) as usize;
        file.seek(SeekFrom::Start(start))?;
        let got = read_some(file, &mut block[..n])?;
        if let Some(k) = memchr::memrchr(b'\n', &block[..got]) {
            return Ok(start + k as u64 + 1);
        }
        end = start;
    }
    Ok(from)
}

/// Whether `check` reads a file named `name` that starts with `head` as
/// a native log with the bytes as they are (no encoding or line ends
/// changed on the way), so that what was parsed line by line is what it
/// parses. `whole`: `head` is all of the file; else the file is longer,
/// and is read so when its first bytes tell it (as `check` reads a large
/// log a block at a time).
fn reads_as_read(name: &str, head: &[u8], whole: bool) -> bool {
    let body = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let json = match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b) => matches!(b, b'{' | b'['),
        // Blank: nothing to misread, unless a bare carriage return would
        // be made a line end.
        None => memchr::memchr(b'\r', head).is_none(),
    };
    if !json {
        return false;
    }
    if whole {
        crate::input::detect(name, head) == crate::input::Format::Native
    } else {
        crate::input::detect_head(name, head) == Some(crate::input::Format::Native)
    }
}

/// Whether the file at `path` holding `bytes` is followed from its
/// records: a native log, read as it is.
pub fn is_native(path: &Path, bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(crate::input::HEAD)];
    reads_as_read(&path.to_string_lossy(), head, head.len() == bytes.len())
}
