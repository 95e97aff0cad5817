//! The invariants every input must keep, in one place: the fuzz targets
//! (`fuzz/`) and the test suite (`tests/suite/properties.rs`,
//! `tests/suite/regressions.rs`) call these functions, so a crash or a broken
//! promise found by one is checked the same way by the other.
//!
//! For any bytes, read in any format:
//!
//! - nothing panics (the callers run the code; a panic is the failure);
//! - every record, problem and finding points inside the input, and every
//!   line and column a renderer prints exists there (a column may be one
//!   past the line's last character: the end of a span, or an empty line);
//! - the pretty output (without colour) holds no raw control character:
//!   no ESC, BEL or other C0 control but the newline, no DEL, no C1
//!   control, no bidirectional override; the concise output none either,
//!   the GitHub output none but tabs (which end no workflow command), and
//!   both are one line per finding;
//! - the JSON and SARIF outputs parse as JSON, and their positions are the
//!   ones the other renderers print.
//!
//! Each check returns the first broken promise as an `Err` with a short
//! description, so a property test can report it and a fuzz target can
//! panic with it.

use crate::input::{self, Client, CodeLang, Format, Parsed, Recorder};
use crate::lint::config::Config;
use crate::lint::engine::{FileResult, Linter};
use crate::model::Span;
use crate::report::{self, pretty::Style, resolve, LineIndex, Located, Summary};

/// Every input format, [`Format::Unknown`] included.
pub const FORMATS: &[Format] = &[
    Format::Native,
    Format::Mcp,
    Format::Transcript,
    Format::Vtt,
    Format::Srt,
    Format::Board,
    Format::Prompt,
    Format::Code(CodeLang::Python),
    Format::Code(CodeLang::JavaScript),
    Format::Code(CodeLang::Shell),
    Format::Session(Client::ClaudeCode),
    Format::Session(Client::Codex),
    Format::Session(Client::Opencode),
    Format::Unknown,
    Format::Recording(Recorder::ClaudeDesktop),
    Format::Recording(Recorder::McpDebug),
    Format::Recording(Recorder::Inspector),
    Format::Recording(Recorder::Tee),
    Format::Session(Client::Gemini),
];

/// File names that steer format detection each way (`-` is standard
/// input, told by content alone).
pub const NAMES: &[&str] = &[
    "call.jsonl",
    "trace.ndjson",
    "call.log",
    "room.txt",
    "room.vtt",
    "room.srt",
    "call.jsonl.gz",
    "room.vtt.zst",
    "board.json",
    "SKILL.md",
    "poll.py",
    "poll.ts",
    "poll.sh",
    "-",
    "noext",
    "mcp.log",
    "history.json",
];

/// Width of the pretty output's terminal.
pub const WIDTH: usize = 100;

/// A linter with every rule at its default severity.
pub fn linter() -> Linter {
    Linter::new(&Config::default(), None, &[]).expect("the default configuration is valid")
}

/// The shape of the input's lines: how many there are and how many
/// characters each has (columns count characters; an invalid UTF-8 byte
/// counts as one, a line end is no character of its line).
struct Lines {
    chars: Vec<usize>,
}

impl Lines {
    fn new(src: &[u8]) -> Lines {
        let chars = src
            .split(|&b| b == b'\n')
            .map(|l| l.iter().filter(|&&b| (b & 0xC0) != 0x80).count())
            .collect();
        Lines { chars }
    }

    /// Line and column `(line, column)` exist: the column may be one past
    /// the last character.
    fn check(&self, what: &str, line: usize, column: usize) -> Result<(), String> {
        let Some(&n) = line.checked_sub(1).and_then(|i| self.chars.get(i)) else {
            return Err(format!(
                "{what}: line {line} does not exist (the input has {} lines)",
                self.chars.len()
            ));
        };
        if column == 0 || column > n + 1 {
            return Err(format!(
                "{what}: column {column} does not exist on line {line} ({n} characters)"
            ));
        }
        Ok(())
    }

    fn located(&self, what: &str, l: &Located) -> Result<(), String> {
        self.check(what, l.line, l.column)?;
        self.check(what, l.end_line, l.end_column)?;
        if (l.end_line, l.end_column) < (l.line, l.column) {
            return Err(format!(
                "{what}: ends at {}:{} before it starts at {}:{}",
                l.end_line, l.end_column, l.line, l.column
            ));
        }
        Ok(())
    }
}

fn span_inside(what: &str, s: Span, len: usize) -> Result<(), String> {
    if s.start > s.end || s.end > len {
        return Err(format!(
            "{what}: span {}..{} is not inside the {len} bytes of the input",
            s.start, s.end
        ));
    }
    Ok(())
}

/// Read `bytes` as `format` and check that every record and problem
/// points inside them.
pub fn parse(format: Format, bytes: &[u8]) -> Result<Parsed, String> {
    let parsed = input::parse(format, bytes);
    check_parsed(bytes, &parsed)?;
    Ok(parsed)
}

/// Every record, text and problem of `parsed` points inside `bytes`, and
/// every record's line exists.
pub fn check_parsed(bytes: &[u8], parsed: &Parsed) -> Result<(), String> {
    let lines = Lines::new(bytes);
    for p in &parsed.problems {
        span_inside("problem", p.at.span, bytes.len())?;
    }
    for log in &parsed.logs {
        for r in &log.records {
            span_inside("record", r.span, bytes.len())?;
            lines.check("record", r.line as usize, 1)?;
        }
    }
    Ok(())
}

/// A native log read a few bytes at a time, as a large file is read, gives
/// exactly what reading it whole gives.
pub fn check_streamed(bytes: &[u8], whole: &Parsed) -> Result<(), String> {
    struct Pieces<'b>(&'b [u8], usize);
    impl std::io::Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.1 = self.1 % 13 + 1;
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let input::native::Streamed {
        log,
        problems,
        bytes: n,
        ..
    } = input::native::parse_reader(Pieces(bytes, 0), 0, usize::MAX)
        .map_err(|e| format!("reading block by block failed: {e}"))?;
    if n != bytes.len() {
        return Err(format!("read {n} of {} bytes", bytes.len()));
    }
    let streamed = format!("{:?}", (&[log][..], &problems));
    if streamed != format!("{:?}", (&whole.logs[..], &whole.problems)) {
        return Err("reading block by block differs from reading whole".into());
    }
    Ok(())
}

/// A Claude Code session or a Codex rollout read in parts, as the guard
/// reads one between its runs, gives exactly what reading it whole gives:
/// cut at each of `cuts` (offsets just after a line break, before the last
/// line that is not blank; others are passed over), with the reader's state
/// written as the guard keeps it (MessagePack) and read back between each two parts.
pub fn check_parts(format: Format, bytes: &[u8], cuts: &[usize]) -> Result<(), String> {
    use crate::input::session::{LineReader, Partial};
    fn in_parts<R>(bytes: &[u8], cuts: &[usize]) -> Result<Parsed, String>
    where
        R: LineReader + serde::Serialize + serde::de::DeserializeOwned,
    {
        let mut p = Partial::<R>::new(&input::Options::default());
        let mut from = 0;
        for &cut in cuts {
            p.read(&bytes[from..cut], false);
            let kept = crate::app::guard::kept::encode(&p).ok_or("not kept")?;
            p = crate::app::guard::kept::decode(&kept).ok_or("not read back")?;
            if p.bytes() != cut {
                return Err(format!(
                    "read {} bytes of the {cut} before the cut",
                    p.bytes()
                ));
            }
            from = cut;
        }
        p.read(&bytes[from..], true);
        Ok(p.finish())
    }
    let lines = input::json::lines(bytes);
    let last = lines
        .iter()
        .rev()
        .find(|l| {
            !bytes[l.span.start..l.span.end]
                .iter()
                .all(u8::is_ascii_whitespace)
        })
        .map_or(0, |l| l.span.start);
    let mut cuts: Vec<usize> = cuts
        .iter()
        .copied()
        .filter(|&c| c > 0 && c <= last && bytes[c - 1] == b'\n')
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let parts = match format {
        Format::Session(Client::ClaudeCode) => in_parts::<input::claude::Reader>(bytes, &cuts)?,
        Format::Session(Client::Codex) => in_parts::<input::codex::Reader>(bytes, &cuts)?,
        Format::Session(Client::Gemini) if bytes_are_lines(bytes) => {
            in_parts::<input::gemini::Reader>(bytes, &cuts)?
        }
        _ => return Ok(()),
    };
    let whole = input::parse(format, bytes);
    if format!("{:?}", (&parts.logs, &parts.problems))
        != format!("{:?}", (&whole.logs, &whole.problems))
    {
        return Err(format!(
            "reading in parts (cut at {cuts:?}) differs from reading whole"
        ));
    }
    Ok(())
}

/// True when a Gemini CLI session is of one record a line (the older
/// layout, one object over many lines, is never read in parts).
fn bytes_are_lines(bytes: &[u8]) -> bool {
    let start = input::bom_len(bytes);
    bytes[start..]
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .is_none_or(|l| serde_json::from_slice::<serde_json::Value>(l).is_ok())
}

/// Lint `bytes` named `name`, in `format` or the format detection tells,
/// and check every invariant of the result and of every renderer.
pub fn lint(
    linter: &Linter,
    name: &str,
    bytes: &[u8],
    format: Option<Format>,
) -> Result<FileResult, String> {
    let format = format.unwrap_or_else(|| input::detect(name, bytes));
    let parsed = input::parse(format, bytes);
    check_parsed(bytes, &parsed)?;
    if format == Format::Native {
        check_streamed(bytes, &parsed)?;
    }
    if let Format::Session(Client::ClaudeCode | Client::Codex | Client::Gemini) = format {
        // Cut at some of its line breaks, spread over the file.
        let breaks: Vec<usize> = memchr::memchr_iter(b'\n', bytes).map(|k| k + 1).collect();
        let step = (breaks.len() / 16).max(1);
        let cuts: Vec<usize> = breaks.into_iter().step_by(step).collect();
        check_parts(format, bytes, &cuts)?;
    }
    let f = linter.lint_as(name, bytes.to_vec(), format);
    check_result(&f)?;
    Ok(f)
}

/// Every finding of `f` points inside its source, at lines and columns
/// that exist there, and every renderer keeps its promises.
pub fn check_result(f: &FileResult) -> Result<(), String> {
    let lines = Lines::new(&f.source);
    let index = LineIndex::new(&f.source);
    let mut positions = Vec::new();
    for d in &f.diagnostics {
        for (k, l) in d.places().enumerate() {
            let what = format!("{} finding, label {k}", d.rule);
            span_inside(&what, l.at.span, f.source.len())?;
            let at = resolve(&f.source, &index, &l.at);
            span_inside(&what, at.span, f.source.len())?;
            lines.located(&what, &at)?;
            positions.push(at);
        }
    }
    check_pretty(f)?;
    check_concise(f, &positions)?;
    check_github(f)?;
    check_json(f, &positions)?;
    check_sarif(f, &positions)?;
    Ok(())
}

/// The first raw control character (C0 but newline, DEL, C1) or
/// bidirectional override in `out`, if any.
pub fn raw_control(out: &str) -> Option<char> {
    out.chars().find(|&c| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })
}

fn no_raw_control(renderer: &str, out: &str) -> Result<(), String> {
    let found = match renderer {
        "github" => raw_control(&out.replace('\t', " ")),
        _ => raw_control(out),
    };
    match found {
        Some(c) => Err(format!(
            "{renderer} output holds the raw control character U+{:04X}: {out:?}",
            c as u32
        )),
        None => Ok(()),
    }
}

/// The pretty output, without colour.
pub fn pretty(f: &FileResult) -> String {
    let mut out = String::new();
    report::pretty::render(
        f,
        Style {
            color: false,
            width: WIDTH,
        },
        &mut out,
    );
    out
}

fn check_pretty(f: &FileResult) -> Result<(), String> {
    no_raw_control("pretty", &pretty(f))
}

fn check_concise(f: &FileResult, positions: &[Located]) -> Result<(), String> {
    let mut out = String::new();
    report::concise::render(f, &mut out);
    no_raw_control("concise", &out)?;
    let primaries = primaries(f, positions);
    if out.lines().count() != primaries.len() {
        return Err(format!(
            "concise: {} lines for {} findings",
            out.lines().count(),
            primaries.len()
        ));
    }
    Ok(())
}

/// The positions of the findings' primary labels (`positions` holds every
/// label of every finding, in order).
fn primaries<'p>(f: &FileResult, positions: &'p [Located]) -> Vec<&'p Located> {
    let mut out = Vec::new();
    let mut k = 0;
    for d in &f.diagnostics {
        out.push(&positions[k]);
        k += 1 + d.labels.len();
    }
    out
}

fn check_github(f: &FileResult) -> Result<(), String> {
    let mut out = String::new();
    report::github::render(f, &mut out);
    no_raw_control("github", &out)?;
    if out.lines().count() != f.diagnostics.len() || out.lines().any(|l| !l.starts_with("::")) {
        return Err(format!("github: not one command per finding: {out:?}"));
    }
    Ok(())
}

fn check_json(f: &FileResult, positions: &[Located]) -> Result<(), String> {
    let mut summary = Summary::default();
    summary.add(f);
    let out = report::json::render(std::slice::from_ref(f), &summary);
    let v: serde_json::Value =
        serde_json::from_str(&out).map_err(|e| format!("json output does not parse: {e}"))?;
    let items = v["diagnostics"]
        .as_array()
        .ok_or("json output has no diagnostics list")?;
    if items.len() != f.diagnostics.len() {
        return Err(format!(
            "json: {} items for {} findings",
            items.len(),
            f.diagnostics.len()
        ));
    }
    for (item, at) in items.iter().zip(primaries(f, positions)) {
        let got = ["line", "column", "end_line", "end_column"].map(|k| item[k].as_u64());
        let want = [at.line, at.column, at.end_line, at.end_column].map(|n| Some(n as u64));
        if got != want {
            return Err(format!("json: position {got:?}, located at {want:?}"));
        }
    }
    Ok(())
}

fn check_sarif(f: &FileResult, positions: &[Located]) -> Result<(), String> {
    // The results alone: the rest of the document is the rule catalogue,
    // the same for every input (tests/suite/report.rs validates it against the
    // SARIF schema), and by far the slowest part to write.
    let out = report::to_json(&report::sarif::results(f));
    let v: serde_json::Value =
        serde_json::from_str(&out).map_err(|e| format!("sarif output does not parse: {e}"))?;
    let results = v.as_array().ok_or("sarif results are no list")?;
    if results.len() != f.diagnostics.len() {
        return Err(format!(
            "sarif: {} results for {} findings",
            results.len(),
            f.diagnostics.len()
        ));
    }
    for (r, at) in results.iter().zip(primaries(f, positions)) {
        let region = &r["locations"][0]["physicalLocation"]["region"];
        let got = ["startLine", "startColumn", "endLine", "endColumn"].map(|k| region[k].as_u64());
        let want = [at.line, at.column, at.end_line, at.end_column].map(|n| Some(n as u64));
        if got != want {
            return Err(format!("sarif: region {got:?}, located at {want:?}"));
        }
    }
    Ok(())
}

/// The fuzz targets' entry: the first byte of `data` chooses how the rest
/// is read: a forced format from [`FORMATS`] or, past them, detection
/// under one of [`NAMES`].
pub fn fuzz_check(linter: &Linter, data: &[u8]) -> Result<(), String> {
    let Some((&sel, bytes)) = data.split_first() else {
        return Ok(());
    };
    let sel = usize::from(sel) % (FORMATS.len() + NAMES.len());
    let (name, format) = match FORMATS.get(sel) {
        Some(&f) => ("input", Some(f)),
        None => (NAMES[sel - FORMATS.len()], None),
    };
    lint(linter, name, bytes, format).map(drop)
}

/// An empty folder for one unit test, named for it and for this process,
/// under the system's temp folder; removed with what it holds when the
/// test is done with it.
#[cfg(test)]
pub(crate) fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("callint-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("make a scratch folder");
    Scratch(dir)
}

/// A folder [`scratch`] made, removed when dropped.
#[cfg(test)]
pub(crate) struct Scratch(std::path::PathBuf);

#[cfg(test)]
impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

#[cfg(test)]
impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

#[cfg(test)]
impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
