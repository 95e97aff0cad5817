//! Honest coverage: a file from which no record could be read is said to
//! be so, once, naming what the file looks like when that can be told
//! (an application log, a CSV table, a web page, a voice platform's call
//! report), instead of one problem for each of its lines, or none at all.

use serde_json::Value;

use super::native::Dropped;
use super::{Format, Parsed, Problem};
use crate::model::{Anchor, Span};

/// How much of a file is looked at to tell what it is.
const LOOK: usize = 64 * 1024;

/// Lines looked at to tell a text file's shape.
const LINES: usize = 40;

/// Make `parsed` say once that nothing could be read, when the file was
/// read as a format that holds records (a log, a trace, a transcript, a
/// board) and gave none: one problem instead of one per line, naming the
/// shape the file has when it is recognised. Prompts and helper code are
/// read for what they hold, and may hold nothing. `head` is the start of
/// the file (at least its first 64 KiB when it is that long); `dropped`,
/// the problems the reader counted beyond those it kept, which the one
/// problem then stands for too (they are cleared).
pub fn settle(format: Format, head: &[u8], parsed: &mut Parsed, dropped: &mut Dropped) {
    let holds_records = matches!(
        format,
        Format::Native
            | Format::Mcp
            | Format::Transcript
            | Format::Vtt
            | Format::Srt
            | Format::Board
            | Format::Unknown
    );
    if !holds_records || parsed.logs.iter().any(|l| !l.records.is_empty()) {
        no_call(parsed, dropped);
        return;
    }
    if matches!(format, Format::Transcript | Format::Vtt | Format::Srt) {
        if parsed.read > 0 {
            // Heard speech read, whoever spoke it: judged by what could
            // be read.
            no_call(parsed, dropped);
            return;
        }
        if !parsed.problems.is_empty() {
            // Nothing read: the one problem below says so, and nothing
            // more is said of the roles of no one.
            parsed.unknown_roles = None;
        }
    }
    if let Some(what) = neighbour(head) {
        // A file of another agent client's, which callint does not read:
        // said once, for information.
        parsed.problems = vec![Problem::note(
            Anchor::bytes(first_line_of(head)),
            format!("callint does not read this file: it is {what}"),
            Some("callint reads voicehook call logs, MCP traces, transcripts and captions, boards, prompts and helper code, and the session files of Claude Code, Codex and opencode; this file holds none of them, so nothing in it was checked".into()),
        )];
        parsed.unknown_roles = None;
        *dropped = Dropped::default();
        return;
    }
    let shape = recognise(head);
    let n = parsed.problems.len() + dropped.count;
    if shape.is_none() && n <= 1 {
        // Nothing to read (a blank file), or one problem that already
        // points at what is wrong.
        return;
    }
    let first_line = first_line_of(head);
    let read_as = match format {
        Format::Unknown => String::new(),
        f => format!(" (read as {})", f.name()),
    };
    let problem = match shape {
        Some(shape) => Problem::new(
            Anchor::bytes(first_line),
            format!("this looks like {shape}: callint does not read it{read_as}"),
            Some(format!(
                "callint reads voicehook call logs, MCP traces, transcripts (.txt, .vtt, .srt), boards, prompts and helper code; no record was read from this file, so none of its lines was checked{}. If it is one of them, name its format with --input-format {}",
                if n > 1 {
                    format!(" ({n} lines could not be read)")
                } else {
                    String::new()
                },
                Format::NAMES.join("|")
            )),
        ),
        None => {
            let first = &parsed.problems[0];
            Problem::new(
                first.at,
                format!(
                    "no record could be read from this file{read_as}: {n} lines were not, the first of them here: {}",
                    first.message
                ),
                Some(format!(
                    "nothing in this file was checked; if it is another format, name it with --input-format {}",
                    Format::NAMES.join("|")
                )),
            )
        }
    };
    parsed.problems = vec![problem];
    *dropped = Dropped::default();
}

/// The first line of `head` (at most 200 bytes of it, whole characters).
fn first_line_of(head: &[u8]) -> Span {
    let h = &head[..head.len().min(LOOK)];
    let end = h.iter().position(|&b| b == b'\n').unwrap_or(h.len());
    let end = end.min(200);
    let end = (0..=end)
        .rev()
        .find(|&k| std::str::from_utf8(&h[..k]).is_ok())
        .unwrap_or(0);
    let end = if end > 0 && h[end - 1] == b'\r' {
        end - 1
    } else {
        end
    };
    Span::new(0, end)
}

/// What a JSON file of another agent client's is, which callint does not
/// read: a record shaped like a Gemini CLI session (`sessionId`,
/// `messages`) without the `projectHash` every session has (one with it is
/// read, [`super::gemini`]), a Claude Code subagent's metadata
/// (`agent-*.meta.json`: `agentType`).
pub fn neighbour(head: &[u8]) -> Option<&'static str> {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let first = head.iter().find(|b| !b.is_ascii_whitespace())?;
    if *first != b'{' {
        return None;
    }
    // The whole object, or (cut off at the look limit) its first keys.
    let o: serde_json::Map<String, Value> = match serde_json::from_slice(head) {
        Ok(Value::Object(o)) => o,
        _ => leading_members(head),
    };
    let text = |k: &str| o.get(k).is_some_and(Value::is_string);
    if text("sessionId")
        && o.get("messages")
            .is_some_and(|m| m.is_array() || m.is_null())
        && !o.contains_key("info")
        && !text("projectHash")
    {
        return Some("a Gemini CLI session record without its `projectHash`");
    }
    if text("agentType")
        && !["emoji", "doing", "open", "done", "fn"]
            .iter()
            .any(|k| o.contains_key(*k))
    {
        return Some("a Claude Code subagent's metadata (`agent-*.meta.json`; its session is the `.jsonl` beside it)");
    }
    None
}

/// The members of the JSON object `bytes` starts with, up to where it is
/// cut off or broken (none when it is no object).
pub(crate) fn leading_members(bytes: &[u8]) -> serde_json::Map<String, Value> {
    let mut o = serde_json::Map::new();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let _ = serde::Deserializer::deserialize_map(&mut de, KeysOf(&mut o));
    o
}

/// The members of a JSON object up to where it is cut off: scalars with
/// their value, the rest as `null` (their kind told by the first byte).
struct KeysOf<'a>(&'a mut serde_json::Map<String, Value>);

impl<'de> serde::de::Visitor<'de> for KeysOf<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(k) = map.next_key::<String>()? {
            let v: Value = map.next_value()?;
            self.0.insert(k, v);
        }
        Ok(())
    }
}

/// Heard speech that shows no sign of a call: its one note
/// (`unknown-roles`, at info) stands for the parts that could not be read
/// too, as nobody's lines are judged there.
fn no_call(parsed: &mut Parsed, dropped: &mut Dropped) {
    let Some(u) = parsed.unknown_roles.as_mut().filter(|u| !u.voicehook) else {
        return;
    };
    if parsed.problems.is_empty() {
        return;
    }
    u.unread = parsed.problems.len() + dropped.count;
    if u.at.span.is_empty() {
        u.at = parsed.problems[0].at;
    }
    // Notes (an encoding guessed) are said all the same.
    parsed.problems.retain(|p| p.note);
    *dropped = Dropped::default();
}

/// What a file that is none of callint's inputs looks like, as a phrase
/// ("a CSV table"), when its first bytes tell.
pub fn recognise(head: &[u8]) -> Option<&'static str> {
    let head = &head[..head.len().min(LOOK)];
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    if let Some(b) = binary(head) {
        return Some(b);
    }
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    let t = text.trim_start();
    let low: String = t.chars().take(64).collect::<String>().to_ascii_lowercase();
    if low.starts_with("<!doctype html") || low.starts_with("<html") {
        return Some("an HTML page");
    }
    if low.starts_with("<?xml") || low.starts_with("<svg") {
        return Some("an XML document");
    }
    if t.starts_with('{') || t.starts_with('[') {
        if let Some(j) = json(t) {
            return Some(j);
        }
        // JSON lines are never a table, however evenly their commas
        // fall: an application's log, or (told by the problems reading
        // them gave) JSON of no tool callint knows.
        if let Some(j) = json_lines(t) {
            return j;
        }
    }
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .take(LINES)
        .collect();
    if lines.is_empty() {
        return None;
    }
    // An application's log, its lines led by a time and naming their
    // level (Python's `logging` writes a comma before the milliseconds,
    // which would make its lines look like a table's rows).
    let leveled = lines
        .iter()
        .filter(|l| log_line(l) && names_level(l))
        .count();
    if leveled * 2 > lines.len() {
        return Some("a plain application log (lines of text with times and levels)");
    }
    if table(&lines, ',') {
        return Some("a CSV table");
    }
    if table(&lines, '\t') {
        return Some("a tab-separated table");
    }
    let stamped = lines.iter().filter(|l| log_line(l)).count();
    if stamped * 2 > lines.len() {
        return Some("a plain application log (lines of text with times and levels)");
    }
    if yaml(&lines) {
        return Some("a YAML document");
    }
    None
}

/// Binary files by their signature.
pub(crate) fn recognise_binary(h: &[u8]) -> Option<&'static str> {
    binary(h)
}

fn binary(h: &[u8]) -> Option<&'static str> {
    let sigs: &[(&[u8], &str)] = &[
        (b"\x89PNG", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"%PDF", "a PDF document"),
        (b"PK\x03\x04", "a ZIP archive"),
        (b"SQLite format 3\0", "an SQLite database"),
        (b"\x7fELF", "a program (ELF)"),
        (b"RIFF", "a RIFF file (audio or video)"),
        (b"ID3", "an MP3 recording"),
        (b"OggS", "an Ogg recording"),
        (b"fLaC", "a FLAC recording"),
    ];
    sigs.iter()
        .find(|(s, _)| h.starts_with(s))
        .map(|(_, name)| *name)
}

/// JSON documents of other tools (JSON that is of no tool callint knows
/// is told by the problems reading it gave).
fn json(t: &str) -> Option<&'static str> {
    let v: Value = match serde_json::from_str(t) {
        Ok(v) => v,
        // Cut off at the look limit, or JSON lines: judge the first line.
        Err(_) => serde_json::from_str(t.lines().next()?).ok()?,
    };
    let o = match &v {
        Value::Object(o) => o,
        Value::Array(a) => match a.first() {
            Some(Value::Object(o)) => o,
            _ => return None,
        },
        _ => return None,
    };
    let typ = |o: &serde_json::Map<String, Value>| {
        o.get("type").and_then(Value::as_str).map(str::to_string)
    };
    let inner = o.get("message").and_then(Value::as_object);
    if typ(o).as_deref() == Some("end-of-call-report")
        || inner.and_then(typ).as_deref() == Some("end-of-call-report")
    {
        return Some("a Vapi end-of-call report");
    }
    if o.contains_key("call_id")
        && (o.contains_key("transcript_object") || o.contains_key("call_analysis"))
        || o.get("call")
            .and_then(Value::as_object)
            .is_some_and(|c| c.contains_key("transcript_object"))
    {
        return Some("a Retell call record");
    }
    if o.contains_key("name")
        && ["version", "dependencies", "devDependencies", "scripts"]
            .iter()
            .any(|k| o.contains_key(*k))
    {
        return Some("a package manifest (package.json)");
    }
    if o.contains_key("compilerOptions") {
        return Some("a TypeScript configuration (tsconfig.json)");
    }
    if o.contains_key("openapi") || o.contains_key("swagger") {
        return Some("an OpenAPI description");
    }
    if o.contains_key("$schema") && (o.contains_key("properties") || o.contains_key("$defs")) {
        return Some("a JSON Schema");
    }
    if o.contains_key("mcpServers") {
        return Some("an MCP client configuration (mcpServers)");
    }
    None
}

/// JSON lines: each line one object (the last may be cut off at the look
/// limit). `Some(Some(..))` for an application's log (most lines carry a
/// level, or a time and a message), `Some(None)` for other JSON lines.
fn json_lines(t: &str) -> Option<Option<&'static str>> {
    let lines: Vec<&str> = t
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(LINES)
        .collect();
    let objects: Vec<serde_json::Map<String, Value>> = lines
        .iter()
        .filter_map(|l| match serde_json::from_str::<Value>(l) {
            Ok(Value::Object(o)) => Some(o),
            _ => None,
        })
        .collect();
    if objects.len() < 2 || objects.len() + 1 < lines.len() {
        return None;
    }
    let has =
        |o: &serde_json::Map<String, Value>, keys: &[&str]| keys.iter().any(|k| o.contains_key(*k));
    let logged = objects
        .iter()
        .filter(|o| {
            has(o, &["level", "severity", "lvl", "loglevel"])
                || has(o, &["message", "msg"])
                    && has(o, &["timestamp", "time", "ts", "@timestamp", "date"])
        })
        .count();
    Some(
        (logged * 2 > objects.len())
            .then_some("a JSON-lines application log (a time, a level and a message on each line)"),
    )
}

/// Rows with the same number (at least two) of `sep`-separated fields.
fn table(lines: &[&str], sep: char) -> bool {
    if lines.len() < 2 {
        return false;
    }
    let count = |l: &str| l.matches(sep).count();
    let n = count(lines[0]);
    n >= 1 && lines.iter().all(|l| count(l) == n)
}

/// A line of an application log: a date or time, or a level, among its
/// first words.
fn log_line(l: &str) -> bool {
    let words: Vec<&str> = l
        .split(|c: char| c.is_whitespace() || c == '|')
        .filter(|w| !w.is_empty())
        .take(4)
        .collect();
    let level = |w: &str| {
        let w = w.trim_matches(|c: char| !c.is_ascii_alphabetic());
        matches!(
            w.to_ascii_uppercase().as_str(),
            "TRACE" | "DEBUG" | "INFO" | "WARN" | "WARNING" | "ERROR" | "FATAL" | "CRITICAL"
        )
    };
    // A date (a time alone starts a transcript line too), or a month
    // name as syslog writes it.
    let date = |w: &str| {
        let w = w.trim_matches(|c: char| matches!(c, '[' | ']' | '(' | ')'));
        let digits = w.bytes().filter(u8::is_ascii_digit).count();
        digits >= 6
            && w.bytes()
                .all(|b| b.is_ascii_digit() || b":-.,TZ+/".contains(&b))
            && (w.matches('-').count() >= 2 || w.matches('/').count() == 2)
    };
    let month = |w: &str| {
        [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ]
        .contains(&w)
    };
    words.iter().any(|w| level(w))
        || words
            .first()
            .is_some_and(|w| level(w.split(':').next().unwrap_or("")) && w.contains(':'))
        || words.first().is_some_and(|w| date(w))
        || words.first().is_some_and(|w| month(w)) && words.get(2).is_some_and(|w| w.contains(':'))
}

/// Whether a log line names its level as a word of its own, or opens with
/// it as Python's default `LEVEL:logger:message` does.
fn names_level(l: &str) -> bool {
    let level = |w: &str| {
        matches!(
            w.trim_matches(|c: char| matches!(c, '[' | ']' | '(' | ')' | ':' | '-'))
                .to_ascii_uppercase()
                .as_str(),
            "TRACE" | "DEBUG" | "INFO" | "WARN" | "WARNING" | "ERROR" | "FATAL" | "CRITICAL"
        )
    };
    l.split(|c: char| c.is_whitespace() || c == '|').any(level)
        || l.split(':').next().is_some_and(level)
}

/// `key: value` lines, list items and nesting: YAML, not speech (no
/// line is a sentence after a name).
fn yaml(lines: &[&str]) -> bool {
    if lines[0].trim() == "---" {
        return true;
    }
    let keyed = lines
        .iter()
        .filter(|l| {
            let t = l.trim_start();
            t.starts_with("- ")
                || t.split_once(':').is_some_and(|(k, v)| {
                    !k.is_empty()
                        && k.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
                        && (v.is_empty() || v.starts_with(' '))
                })
        })
        .count();
    let nested = lines.iter().any(|l| l.starts_with("  "));
    nested && keyed == lines.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let cases: &[(&str, &str)] = &[
            (
                "{\"message\":{\"type\":\"end-of-call-report\",\"artifact\":{}}}",
                "Vapi",
            ),
            (
                "{\n  \"name\": \"x\",\n  \"version\": \"1.0.0\"\n}",
                "package.json",
            ),
            ("<!DOCTYPE html>\n<html></html>", "HTML"),
            ("id,name,score\n1,a,3\n2,b,4\n", "CSV"),
            (
                "2026-10-10 10:00:01 INFO server started\n2026-10-10 10:00:02 WARN slow\n",
                "application log",
            ),
            (
                "[2026-10-10T10:00:01Z] starting\n[2026-10-10T10:00:02Z] ready\n",
                "application log",
            ),
            (
                "INFO  [main] started\nDEBUG [db] pool ready\n",
                "application log",
            ),
            ("---\nname: x\n", "YAML"),
            ("name: x\nsteps:\n  - run: y\n", "YAML"),
            (
                "{\"message\":{\"type\":\"end-of-call-report\"}}\n{\"b\":2}\n",
                "Vapi",
            ),
        ];
        for (src, want) in cases {
            let got = recognise(src.as_bytes()).unwrap_or("nothing");
            assert!(got.contains(want), "{src:?}: {got}");
        }
        assert_eq!(recognise(b"Oliver: hi\nPromo: hello\n"), None);
        assert_eq!(
            recognise(b"[10:00:01] Oliver: hi\n[10:00:02] Promo: hello\n"),
            None
        );
        assert_eq!(recognise(b"You are an agent. Be brief.\n"), None);
        assert_eq!(recognise(b""), None);
        assert_eq!(recognise(b"{\"a\":1}\n{\"b\":2}\n"), None);
        // JSON lines with as many commas on each line are no table
        assert_eq!(recognise(b"{\"a\":1,\"c\":2}\n{\"b\":2,\"d\":3}\n"), None);
        let app = concat!(
            r#"{"timestamp":"2026-10-10T10:00:01Z","source":"api","category":"http","level":"info","message":"GET /","data":{"ms":3}}"#,
            "\n",
            r#"{"timestamp":"2026-10-10T10:00:02Z","source":"api","category":"db","level":"warn","message":"slow","data":{}}"#,
            "\n"
        );
        let got = recognise(app.as_bytes()).unwrap_or("nothing");
        assert!(got.contains("JSON-lines application log"), "{got}");
    }

    #[test]
    fn many_bad_lines_become_one_problem() {
        let log = "2026-10-10 10:00:01 INFO started\n".repeat(3000);
        let mut p = super::super::parse(Format::Native, log.as_bytes());
        assert_eq!(p.problems.len(), 3000);
        settle(
            Format::Native,
            log.as_bytes(),
            &mut p,
            &mut Dropped::default(),
        );
        assert_eq!(p.problems.len(), 1);
        assert!(
            p.problems[0].message.contains("application log"),
            "{}",
            p.problems[0].message
        );
        // a log with one record left keeps its line problems
        let mixed = format!("{log}{{\"fn\":\"leave\"}}\n");
        let mut p = super::super::parse(Format::Native, mixed.as_bytes());
        settle(
            Format::Native,
            mixed.as_bytes(),
            &mut p,
            &mut Dropped::default(),
        );
        assert_eq!(p.problems.len(), 3000);
        // nothing recognised: the first problem, with the count
        let junk = "{\"fn\":\n".repeat(5);
        let mut p = super::super::parse(Format::Native, junk.as_bytes());
        settle(
            Format::Native,
            junk.as_bytes(),
            &mut p,
            &mut Dropped::default(),
        );
        assert_eq!(p.problems.len(), 1);
        assert!(
            p.problems[0].message.contains("5 lines"),
            "{}",
            p.problems[0].message
        );
    }
}
