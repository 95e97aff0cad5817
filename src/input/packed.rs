//! Compressed inputs: a gzip (`.gz`) or zstd (`.zst`) file is read as the
//! file inside it, told by its name without the compression ending
//! (`call.jsonl.gz` as `call.jsonl`) and by the unpacked content.
//!
//! Whether a file is compressed is told by its first bytes, whatever its
//! name: a `.gz` that holds plain text is read as it is. Gzip files of
//! several members (`cat a.gz b.gz`) and zstd files of several frames
//! are read whole.
//!
//! Unpacking stops past [`MAX_UNPACKED`] bytes: a small file can unpack to
//! gigabytes (a decompression bomb), and callint then reports that file
//! with one problem instead of reading on. A file that is cut off or
//! damaged is read as far as it unpacks, with one problem at the point
//! where it stops.

use std::io::Read;

use super::Problem;
use crate::model::{Anchor, Span};

/// How many bytes a compressed file may unpack to: far beyond any call's
/// log (a day-long call logs a few megabytes), far below what would take a
/// machine down.
pub const MAX_UNPACKED: usize = 1 << 30;

/// Unpacked bytes are read in pieces of this size.
const CHUNK: usize = 64 * 1024;

/// The compressions callint reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    Gzip,
    Zstd,
}

impl Packing {
    /// The compression `head` (a file's first bytes) shows, if any.
    pub fn of(head: &[u8]) -> Option<Packing> {
        match head {
            [0x1f, 0x8b, ..] => Some(Packing::Gzip),
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Some(Packing::Zstd),
            // A zstd skippable frame (0x184D2A50 to 0x184D2A5F) first.
            [b, 0x2a, 0x4d, 0x18, ..] if b & 0xf0 == 0x50 => Some(Packing::Zstd),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Packing::Gzip => "gzip",
            Packing::Zstd => "zstd",
        }
    }
}

/// `name` without its compression ending (`.gz`, `.gzip`, `.zst`,
/// `.zstd`, any case): the name of the file inside.
pub fn inner_name(name: &str) -> &str {
    for end in [".gz", ".gzip", ".zst", ".zstd"] {
        let cut = name.len().saturating_sub(end.len());
        if name.len() > end.len()
            && name.is_char_boundary(cut)
            && name[cut..].eq_ignore_ascii_case(end)
        {
            return &name[..cut];
        }
    }
    name
}

/// What unpacking gave.
#[derive(Debug)]
pub struct Unpacked {
    /// The unpacked bytes (the input itself when it was not compressed). A
    /// file that unpacks past the limit keeps only its first line, for the
    /// problem to point at.
    pub bytes: Vec<u8>,
    /// Why the bytes are not the whole content, if they are not.
    pub problem: Option<Problem>,
    /// True when the file unpacks past the limit: nothing of it is to be
    /// linted.
    pub too_large: bool,
}

/// `bytes` unpacked when they are compressed, up to [`MAX_UNPACKED`].
pub fn unpack(bytes: Vec<u8>) -> Unpacked {
    unpack_within(bytes, MAX_UNPACKED)
}

/// `bytes` unpacked when they are compressed, up to `limit` bytes.
pub fn unpack_within(bytes: Vec<u8>, limit: usize) -> Unpacked {
    let Some(packing) = Packing::of(&bytes) else {
        return Unpacked {
            bytes,
            problem: None,
            too_large: false,
        };
    };
    let mut out = Vec::new();
    let result = match packing {
        Packing::Gzip => gunzip(&bytes, &mut out, limit),
        Packing::Zstd => unzstd(&bytes, &mut out, limit),
    };
    let what = packing.name();
    match result {
        Ok(()) => Unpacked {
            bytes: out,
            problem: None,
            too_large: false,
        },
        Err(Stop::TooLarge) => {
            // Only the first line is kept, to show what the file holds.
            let end = out
                .iter()
                .take(200)
                .position(|&b| b == b'\n')
                .unwrap_or(out.len().min(200));
            let end = (0..=end)
                .rev()
                .find(|&k| std::str::from_utf8(&out[..k]).is_ok())
                .unwrap_or(0);
            out.truncate(end);
            out.shrink_to_fit();
            Unpacked {
                problem: Some(Problem::new(
                    Anchor::bytes(Span::new(0, end)),
                    format!(
                        "this {what} file unpacks to more than {}: callint stopped reading it",
                        size(limit)
                    ),
                    Some("a call's log is far smaller; a file that unpacks this far is not a log, or is a decompression bomb. Unpack it yourself and lint the parts that are logs".into()),
                )),
                bytes: out,
                too_large: true,
            }
        }
        Err(Stop::Broken(why)) => {
            // Point at the last line read, where the content stops.
            let end = out.len();
            let start = out[..end.saturating_sub(1)]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |k| k + 1);
            let start = if end > 0 && out[end - 1] == b'\n' {
                end
            } else {
                start
            };
            Unpacked {
                problem: Some(Problem::new(
                    Anchor::bytes(Span::new(start, end)),
                    format!(
                        "this {what} file {why} after {} unpacked bytes: what follows could not be read",
                        end
                    ),
                    Some("the file was cut off (a copy or a recorder that stopped) or is damaged; the part before was linted".into()),
                )),
                bytes: out,
                too_large: false,
            }
        }
    }
}

/// The first `n` unpacked bytes of `bytes` (fewer when it unpacks to
/// fewer, or stops early): enough to tell a file's format.
pub fn unpack_head(bytes: &[u8], n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = match Packing::of(bytes) {
        Some(Packing::Gzip) => gunzip(bytes, &mut out, n),
        Some(Packing::Zstd) => unzstd(bytes, &mut out, n),
        None => {
            out.extend_from_slice(&bytes[..bytes.len().min(n)]);
            Ok(())
        }
    };
    out.truncate(n);
    out
}

/// Read the file at `path`, unpacked when it is compressed (what a
/// renderer shows findings against).
pub fn read(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    let bytes = unpack(std::fs::read(path)?).bytes;
    // As its readers read it ([`super::text`]).
    Ok(super::text::decode_owned(bytes).0)
}

/// The lines of the file at `path` that `spans` touch, unpacked when it is
/// compressed ([`crate::core::lines::Excerpt`]): a file that is not is
/// read a block at a time and never held whole.
pub fn read_lines(
    path: &std::path::Path,
    spans: impl IntoIterator<Item = crate::core::span::Span>,
) -> std::io::Result<crate::core::lines::Excerpt> {
    use std::io::BufRead;
    let mut file = std::io::BufReader::with_capacity(CHUNK, std::fs::File::open(path)?);
    let head = file.fill_buf()?;
    // Only JSON without a byte order mark of UTF-16 or UTF-32 is read as
    // it is written ([`super::text`]): other text is read whole.
    let json = {
        let h = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
        matches!(
            h.iter().find(|b| !b.is_ascii_whitespace()),
            Some(b'{' | b'[')
        )
    };
    if Packing::of(head).is_some() || !json {
        drop(file);
        return crate::core::lines::Excerpt::read(&read(path)?[..], spans);
    }
    crate::core::lines::Excerpt::read(file, spans)
}

/// Why unpacking stopped early.
enum Stop {
    TooLarge,
    /// The file ends early or is damaged: `why` completes "this file ...".
    Broken(&'static str),
}

fn size(n: usize) -> String {
    if n >= 1 << 30 && n.is_multiple_of(1 << 30) {
        format!("{} GiB", n >> 30)
    } else if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{n} bytes")
    }
}

/// Append what `r` yields to `out`, stopping past `limit` bytes.
fn drain(mut r: impl Read, out: &mut Vec<u8>, limit: usize) -> Result<(), Stop> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Err(Stop::Broken("ends early"))
            }
            Err(_) => return Err(Stop::Broken("is damaged")),
        };
        if out.len() + n > limit {
            out.extend_from_slice(&buf[..n.min(limit - out.len())]);
            return Err(Stop::TooLarge);
        }
        out.extend_from_slice(&buf[..n]);
    }
}

fn gunzip(packed: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<(), Stop> {
    drain(flate2::read::MultiGzDecoder::new(packed), out, limit)
}

fn unzstd(packed: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<(), Stop> {
    use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
    use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
    let mut input = packed;
    let mut dec = FrameDecoder::new();
    while !input.is_empty() {
        match dec.init(&mut input) {
            Ok(()) => {}
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                length,
                ..
            })) => {
                input = input
                    .get(length as usize..)
                    .ok_or(Stop::Broken("ends early"))?;
                continue;
            }
            Err(_) => return Err(Stop::Broken("is damaged")),
        }
        loop {
            let ended = match dec.decode_blocks(&mut input, BlockDecodingStrategy::UptoBytes(CHUNK))
            {
                Ok(ended) => ended,
                Err(_) if input.is_empty() => return Err(Stop::Broken("ends early")),
                Err(_) => return Err(Stop::Broken("is damaged")),
            };
            let before = out.len();
            if dec.collect_to_writer(&mut *out).is_err() {
                return Err(Stop::Broken("is damaged"));
            }
            if out.len() > limit {
                out.truncate(limit.max(before));
                return Err(Stop::TooLarge);
            }
            if ended && dec.can_collect() == 0 {
                break;
            }
        }
        if let (Some(want), Some(got)) =
            (dec.get_checksum_from_data(), dec.get_calculated_checksum())
        {
            if want != got {
                return Err(Stop::Broken("is damaged (its checksum does not match)"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn zst(data: &[u8]) -> Vec<u8> {
        ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
    }

    #[test]
    fn names_and_magic() {
        assert_eq!(inner_name("a/call.jsonl.gz"), "a/call.jsonl");
        assert_eq!(inner_name("call.VTT.ZST"), "call.VTT");
        assert_eq!(inner_name("x.zstd"), "x");
        assert_eq!(inner_name(".gz"), ".gz");
        assert_eq!(inner_name("call.jsonl"), "call.jsonl");
        assert_eq!(inner_name("ä.gz"), "ä");
        assert_eq!(Packing::of(&gz(b"x")), Some(Packing::Gzip));
        assert_eq!(Packing::of(&zst(b"x")), Some(Packing::Zstd));
        assert_eq!(Packing::of(b"{\"fn\":1}"), None);
        assert_eq!(Packing::of(b""), None);
    }

    #[test]
    fn round_trips_and_plain_bytes_pass() {
        let text = b"{\"fn\":\"leave\"}\n".repeat(10_000);
        for packed in [gz(&text), zst(&text)] {
            let u = unpack(packed);
            assert!(u.problem.is_none());
            assert_eq!(u.bytes, text);
        }
        let u = unpack(text.clone());
        assert_eq!(u.bytes, text);
        // members and frames one after the other are read as one
        let two = [gz(b"a\n"), gz(b"b\n")].concat();
        assert_eq!(unpack(two).bytes, b"a\nb\n");
        let two = [zst(b"a\n"), zst(b"b\n")].concat();
        assert_eq!(unpack(two).bytes, b"a\nb\n");
    }

    #[test]
    fn a_bomb_stops_at_the_limit() {
        let zeros = vec![b'x'; 1 << 20];
        for packed in [gz(&zeros), zst(&zeros)] {
            let u = unpack_within(packed, 1 << 16);
            assert!(u.too_large);
            let p = u.problem.unwrap();
            assert!(p.message.contains("more than 65536 bytes"), "{}", p.message);
            assert!(u.bytes.len() <= 200);
        }
    }

    #[test]
    fn a_cut_off_file_keeps_what_unpacked() {
        let text: Vec<u8> = (0..20_000)
            .flat_map(|i| format!("{{\"fn\":\"say\",\"n\":{i}}}\n").into_bytes())
            .collect();
        for packed in [gz(&text), zst(&text)] {
            let cut = &packed[..packed.len() * 2 / 3];
            let u = unpack(cut.to_vec());
            let p = u.problem.expect("a problem");
            assert!(!u.too_large);
            assert!(p.message.contains("ends early"), "{}", p.message);
            assert!(!u.bytes.is_empty() && u.bytes.len() < text.len());
            assert!(text.starts_with(&u.bytes));
            assert!(p.at.span.end == u.bytes.len());
        }
        // damaged, not cut: a bad byte in the middle
        let mut bad = gz(&text);
        let mid = bad.len() / 2;
        bad[mid] ^= 0xff;
        let u = unpack(bad);
        assert!(u.problem.is_some());
    }

    #[test]
    fn hostile_headers_never_panic() {
        for b in [
            &[0x1f, 0x8b][..],
            &[0x1f, 0x8b, 8, 0xff, 0, 0, 0, 0, 0, 0],
            &[0x28, 0xb5, 0x2f, 0xfd],
            &[0x28, 0xb5, 0x2f, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff],
            &[0x50, 0x2a, 0x4d, 0x18, 0xff, 0xff, 0xff, 0x7f],
            &[0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0],
        ] {
            let u = unpack(b.to_vec());
            assert!(u.bytes.len() <= b.len() * 1000);
        }
    }
}
