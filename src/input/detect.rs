//! Telling the format of a file from its content, and from its name where
//! the content leaves a choice (a `.txt` is a transcript or a prompt, a
//! `.jsonl` a native log or an MCP trace).

use serde_json::Value;

use super::{Client, CodeLang, Format, Recorder};

/// How much of a file is looked at to tell its format.
const SNIFF: usize = 64 * 1024;

/// The format of a file, from its name and its first bytes. `-` (standard
/// input) and names without a known ending are told by content alone; what
/// is none of the formats is [`Format::Unknown`], which reads as one
/// problem explaining that.
pub fn detect(name: &str, bytes: &[u8]) -> Format {
    let blank = || Some(bytes.iter().all(u8::is_ascii_whitespace));
    decide(name, bytes, blank).unwrap_or(Format::Unknown)
}

/// How many first bytes of a file [`detect_head`] needs.
pub const HEAD: usize = SNIFF;

/// The format of a file told from its first [`HEAD`] bytes alone, when
/// they decide it: the same answer [`detect`] gives for the whole file.
/// `None` when the rest of the file could change it.
pub fn detect_head(name: &str, head: &[u8]) -> Option<Format> {
    decide(name, head, || None)
}

/// Whether a `.json` file whose first [`HEAD`] bytes are `head` holds one
/// of callint's inputs (a board, a log, a trace, a session), so that a
/// folder walk reads it; other JSON (a `package.json`, a configuration)
/// is left alone.
pub fn is_input_json(head: &[u8]) -> bool {
    matches!(
        by_content(head),
        Some(
            Format::Native
                | Format::Mcp
                | Format::Board
                | Format::Session(_)
                | Format::Recording(_)
        )
    )
}

/// [`detect`], with `blank` telling whether the whole file is white space
/// (asked only for a name and content that say nothing; `None`: unknown).
fn decide(name: &str, bytes: &[u8], blank: impl FnOnce() -> Option<bool>) -> Option<Format> {
    // The rule files of editors' agents, named without an extension.
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    if matches!(base, ".cursorrules" | ".windsurfrules" | ".clinerules") {
        return Some(Format::Prompt);
    }
    let ext = if name == "-" {
        String::new()
    } else {
        // A compressed file is told as the file inside: `x.jsonl.gz` as
        // `x.jsonl`.
        std::path::Path::new(super::packed::inner_name(name))
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase()
    };
    let content = by_content(bytes);
    if let Some(f @ (Format::Native | Format::Mcp | Format::Session(_) | Format::Recording(_))) =
        content
    {
        // JSON lines of a log, a trace or a session, or a recording of
        // one, whatever the file is called.
        return Some(f);
    }
    Some(match ext.as_str() {
        "jsonl" | "ndjson" | "log" => match content {
            Some(f @ (Format::Mcp | Format::Transcript)) => f,
            // A log that starts broken is still read as a log, so every
            // bad line gets its diagnostic.
            _ => Format::Native,
        },
        "json" => match content {
            Some(f @ (Format::Native | Format::Mcp | Format::Board)) => f,
            _ => Format::Board,
        },
        "txt" | "text" => match content {
            Some(Format::Transcript) => Format::Transcript,
            _ => Format::Prompt,
        },
        "md" | "markdown" | "mdx" | "mdc" => Format::Prompt,
        // Captions by their name, so a broken one is read as captions and
        // every bad cue is said.
        "vtt" | "webvtt" => Format::Vtt,
        "srt" => Format::Srt,
        _ => {
            if let Some(lang) = CodeLang::from_tag(&ext).filter(|_| ext != "console") {
                return Some(Format::Code(lang));
            }
            match content {
                Some(f) => f,
                // Nothing to lint is no error.
                None if blank()? => Format::Native,
                None => Format::Unknown,
            }
        }
    })
}

/// The format the content shows, if it shows one clearly.
fn by_content(bytes: &[u8]) -> Option<Format> {
    let head = &bytes[..bytes.len().min(SNIFF)];
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    // Text cut off inside a character at the end of the sniffed part is
    // still text.
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
        Err(e) => {
            // A native log or trace may hold one bad line; judge by the
            // text before it when there is some.
            let ok = std::str::from_utf8(&head[..e.valid_up_to()]).ok()?;
            if !ok.contains('\n') {
                return None;
            }
            ok
        }
    };
    if let Some(r) = recording(text) {
        return Some(Format::Recording(r));
    }
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next()?;
    if let Some(f) = captions(first, lines.next()) {
        return Some(f);
    }
    if first.starts_with('{') {
        if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(first) {
            if let Some(f) = object_format(&o) {
                return Some(f);
            }
        }
    }
    if let Some(f) = cut_session(text, first) {
        return Some(f);
    }
    if (first.starts_with('{') || first.starts_with('[')) && opencode(head) {
        return Some(Format::Session(Client::Opencode));
    }
    if !first.starts_with('{') && looks_like_transcript(text) {
        return Some(Format::Transcript);
    }
    if first.starts_with('{') || first.starts_with('[') {
        // One JSON document over several lines: a board (or a list).
        if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
            return match v {
                v if super::inspector::is_history(&v) => {
                    Some(Format::Recording(Recorder::Inspector))
                }
                Value::Object(o) if is_board(&o) => Some(Format::Board),
                // A Gemini CLI session of the older layout, one object.
                Value::Object(o) if super::gemini::is_start(&o) => {
                    Some(Format::Session(Client::Gemini))
                }
                Value::Array(items)
                    if !items.is_empty()
                        && items.iter().all(|i| {
                            i.as_object()
                                .is_some_and(|o| is_board(o) || o.contains_key("fn"))
                        }) =>
                {
                    Some(Format::Board)
                }
                _ => None,
            };
        }
    }
    if let Some(lang) = first.strip_prefix("#!").and_then(shebang) {
        return Some(Format::Code(lang));
    }
    if text.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with("```") || t.starts_with("~~~")
    }) {
        return Some(Format::Prompt);
    }
    code_by_look(text).map(Format::Code)
}

/// The recording a text is, told by its first lines: a Claude Desktop MCP
/// log, or an mcp-debug recording (its comment lines, header or first
/// message).
fn recording(text: &str) -> Option<Recorder> {
    if super::desktop::looks_like(text) {
        return Some(Recorder::ClaudeDesktop);
    }
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut first = lines.next()?;
    let commented = first.starts_with('#');
    while first.starts_with('#') {
        first = lines.next()?;
    }
    if first.starts_with('{') {
        match serde_json::from_str::<Value>(first) {
            Ok(Value::Object(o)) => {
                return (super::mcpdebug::is_header(&o) || super::mcpdebug::is_message(&o))
                    .then_some(Recorder::McpDebug);
            }
            // A header written over several lines.
            _ if commented || first == "{" => {
                let rest = text.trim_start_matches(|c: char| c != '{');
                let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
                if let Some(Ok(Value::Object(o))) = stream.next() {
                    return super::mcpdebug::is_header(&o).then_some(Recorder::McpDebug);
                }
            }
            _ => {}
        }
    }
    None
}

/// Captions, by their first two lines: WebVTT's `WEBVTT` signature, or an
/// SRT cue (a number, then `00:00:01,000 --> 00:00:03,000`).
fn captions(first: &str, second: Option<&str>) -> Option<Format> {
    if first == "WEBVTT" || first.starts_with("WEBVTT ") || first.starts_with("WEBVTT\t") {
        return Some(Format::Vtt);
    }
    let srt_timing = |l: &str| {
        let Some((a, b)) = l.split_once("-->") else {
            return false;
        };
        let stamp = |t: &str| {
            let t = t.trim();
            let t = t.split_whitespace().next().unwrap_or("");
            t.len() >= 9
                && t.contains(',')
                && t.contains(':')
                && t.bytes()
                    .all(|c| c.is_ascii_digit() || c == b':' || c == b',')
        };
        stamp(a) && stamp(b)
    };
    let numbered =
        !first.is_empty() && first.len() <= 9 && first.bytes().all(|b| b.is_ascii_digit());
    (numbered && second.is_some_and(srt_timing)).then_some(Format::Srt)
}

/// The format one JSON line shows.
fn object_format(o: &serde_json::Map<String, Value>) -> Option<Format> {
    if o.contains_key("jsonrpc") {
        return Some(Format::Mcp);
    }
    if let Some(Value::Object(m)) = o.get("message") {
        if m.contains_key("jsonrpc") || m.contains_key("method") {
            return Some(Format::Mcp);
        }
    }
    // A Codex CLI rollout line: `{"timestamp", "type", "payload"}`.
    if o.get("payload").is_some_and(Value::is_object)
        && o.get("type").and_then(Value::as_str).is_some_and(|t| {
            [
                "session_meta",
                "response_item",
                "event_msg",
                "turn_context",
                "compacted",
            ]
            .contains(&t)
        })
    {
        return Some(Format::Session(Client::Codex));
    }
    // The first line of a rollout in the older layout (bare response
    // items follow, no `payload` around them): `{id, timestamp,
    // instructions, git}`; or one of its `{"record_type": ..}` lines.
    let text = |k: &str| o.get(k).is_some_and(Value::is_string);
    if (text("id")
        && text("timestamp")
        && !o.contains_key("type")
        && (o.contains_key("instructions") || o.contains_key("git")))
        || (o.len() == 1 && text("record_type"))
    {
        return Some(Format::Session(Client::Codex));
    }
    // Gemini CLI's session recording starts with its metadata.
    if super::gemini::is_start(o) {
        return Some(Format::Session(Client::Gemini));
    }
    // A part of a session in opencode's storage holds a `tool` too.
    if super::opencode::stored(o).is_some() {
        return Some(Format::Session(Client::Opencode));
    }
    if ["fn", "chat", "tool", "meta"]
        .iter()
        .any(|k| o.contains_key(*k))
    {
        return Some(Format::Native);
    }
    if o.contains_key("method") && (o.contains_key("params") || o.contains_key("id")) {
        return Some(Format::Mcp);
    }
    if super::claude::is_entry(o) {
        return Some(Format::Session(Client::ClaudeCode));
    }
    is_board(o).then_some(Format::Board)
}

/// A session file of one entry a line whose first line is cut: at its
/// end (its only line cut off, or one longer than the part looked at),
/// told by the members before the cut; or at its start (the file begins
/// inside an entry), told by the next line.
fn cut_session(text: &str, first: &str) -> Option<Format> {
    let session = |o: &serde_json::Map<String, Value>| match object_format(o) {
        Some(f @ Format::Session(_)) => Some(f),
        _ => None,
    };
    if first.starts_with('{') {
        return session(&super::coverage::leading_members(first.as_bytes()));
    }
    if !(first.ends_with('}') && first.contains("\":")) {
        return None;
    }
    let next = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .nth(1)?;
    match serde_json::from_str::<Value>(next) {
        Ok(Value::Object(o)) => session(&o),
        _ => None,
    }
}

/// An opencode session: the start of `opencode export`'s JSON, of a list
/// of its messages, or one file of its storage folder.
fn opencode(t: &[u8]) -> bool {
    opencode_export(t) || opencode_messages(t) || super::opencode::stored_session(t).is_some()
}

/// The start of a list of opencode messages: `[{"info": {"role": ..},
/// "parts": [` (the first message's info may come after its parts).
fn opencode_messages(t: &[u8]) -> bool {
    use crate::core::locate::{skip_ws, value_span};
    let i = skip_ws(t, 0);
    if t.get(i) != Some(&b'[') {
        return false;
    }
    let i = skip_ws(t, i + 1);
    if t.get(i) != Some(&b'{') {
        return false;
    }
    // The first message whole, or its first members when it is cut off.
    let (mut info, mut parts) = (false, false);
    let mut k = skip_ws(t, i + 1);
    for _ in 0..2 {
        let Some(key) = value_span(t, k).filter(|s| t.get(s.start) == Some(&b'"')) else {
            return false;
        };
        let name = &t[key.start + 1..key.end - 1];
        let j = skip_ws(t, key.end);
        if t.get(j) != Some(&b':') {
            return false;
        }
        let j = skip_ws(t, j + 1);
        match name {
            b"parts" => {
                if t.get(j) != Some(&b'[') {
                    return false;
                }
                parts = true;
                if info {
                    break;
                }
            }
            b"info" => {
                let Some(v) = value_span(t, j) else {
                    return false;
                };
                let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(&t[v.start..v.end])
                else {
                    return false;
                };
                if !o.get("role").is_some_and(Value::is_string) {
                    return false;
                }
                info = true;
                if parts {
                    break;
                }
            }
            _ => return false,
        }
        let Some(v) = value_span(t, j) else {
            // The parts are cut off by the sniffed part.
            return info && parts;
        };
        k = skip_ws(t, v.end);
        if t.get(k) != Some(&b',') {
            break;
        }
        k = skip_ws(t, k + 1);
    }
    info && parts
}

/// The start of `opencode export`'s JSON: `{"info": {"id": .., ..},
/// "messages": [` (the session's info first, then its messages).
fn opencode_export(t: &[u8]) -> bool {
    use crate::core::locate::{skip_ws, value_span};
    let key = |i: usize, want: &[u8]| -> Option<usize> {
        let k = value_span(t, i)?;
        (t.get(k.start) == Some(&b'"') && &t[k.start + 1..k.end - 1] == want).then_some(())?;
        let i = skip_ws(t, k.end);
        (t.get(i) == Some(&b':')).then(|| skip_ws(t, i + 1))
    };
    let check = || -> Option<bool> {
        let i = skip_ws(t, skip_ws(t, 0) + 1);
        let i = key(i, b"info")?;
        let info = value_span(t, i)?;
        let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(&t[info.start..info.end]) else {
            return Some(false);
        };
        if !o.get("id").is_some_and(Value::is_string) {
            return Some(false);
        }
        let i = skip_ws(t, info.end);
        (t.get(i) == Some(&b',')).then_some(())?;
        let i = key(skip_ws(t, i + 1), b"messages")?;
        Some(t.get(i) == Some(&b'['))
    };
    check().unwrap_or(false)
}

fn is_board(o: &serde_json::Map<String, Value>) -> bool {
    ["doing", "open", "done", "emoji"]
        .iter()
        .any(|k| o.contains_key(*k))
        || o.get("args")
            .and_then(Value::as_object)
            .is_some_and(|a| ["doing", "open", "done"].iter().any(|k| a.contains_key(*k)))
}

/// Transcript lines and headers, and no markdown fences, among the first
/// lines: timed utterances, or headers with `Speaker: text` lines.
fn looks_like_transcript(text: &str) -> bool {
    let (mut timed, mut untimed, mut headers) = (0, 0, 0);
    for l in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(60)
    {
        if l.starts_with("```") || l.starts_with("~~~") {
            return false;
        }
        if transcript_line(l) {
            timed += 1;
        } else if header_line(l) {
            headers += 1;
        } else if speaker_line(l) {
            untimed += 1;
        }
    }
    timed > 0 || (headers > 0 && untimed > 0)
}

/// `Speaker: text` without a time.
fn speaker_line(l: &str) -> bool {
    let Some((speaker, rest)) = l.split_once(':') else {
        return false;
    };
    !speaker.is_empty()
        && speaker.chars().count() <= 64
        && !speaker.starts_with(['#', '-', '*', '>', '[', '{', '"'])
        && rest.starts_with(' ')
}

/// `[hh:mm:ss] Speaker: text` (the time optional only when the rest of the
/// file shows times; here it is required, so prose is not mistaken).
pub(crate) fn transcript_line(l: &str) -> bool {
    let Some(rest) = l.strip_prefix('[') else {
        return false;
    };
    let Some((stamp, after)) = rest.split_once(']') else {
        return false;
    };
    let stamp_ok = stamp.len() <= 40
        && stamp.contains(':')
        && stamp.chars().all(|c| {
            c.is_ascii_digit() || matches!(c, ':' | '.' | ',' | '-' | '+' | 'T' | 'Z' | ' ')
        });
    let Some((speaker, _)) = after.trim_start().split_once(':') else {
        return false;
    };
    stamp_ok && !speaker.trim().is_empty() && speaker.chars().count() <= 64
}

/// `# lang: en`, `# human: Oliver`, `# voicebot: Delta`, `# agents: ...`.
pub(crate) fn header_line(l: &str) -> bool {
    let Some(rest) = l.strip_prefix('#') else {
        return false;
    };
    let Some((key, _)) = rest.split_once(':') else {
        return false;
    };
    matches!(
        key.trim().to_ascii_lowercase().as_str(),
        "lang" | "language" | "human" | "voicebot" | "agents" | "owner"
    )
}

fn shebang(rest: &str) -> Option<CodeLang> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let prog = words.first()?.rsplit('/').next()?;
    let prog = if prog == "env" {
        words.iter().skip(1).find(|w| !w.starts_with('-'))?
    } else {
        prog
    };
    let prog = prog.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match prog {
        "python" => Some(CodeLang::Python),
        "node" | "deno" | "bun" | "ts-node" | "tsx" => Some(CodeLang::JavaScript),
        "sh" | "bash" | "zsh" | "dash" | "ksh" => Some(CodeLang::Shell),
        _ => None,
    }
}

/// Code without a shebang, by the statements it opens lines with.
fn code_by_look(text: &str) -> Option<CodeLang> {
    let mut py = 0;
    let mut js = 0;
    let mut sh = 0;
    for l in text.lines().take(200) {
        let t = l.trim_start();
        if t.starts_with("def ")
            || t.starts_with("import ") && !t.contains(" from ")
            || t.starts_with("from ") && t.contains(" import ")
            || t.starts_with("elif ")
            || (t.starts_with("while ") || t.starts_with("for ") || t.starts_with("if "))
                && t.ends_with(':')
        {
            py += 1;
        }
        if t.starts_with("const ")
            || t.starts_with("let ")
            || t.starts_with("function ")
            || t.starts_with("async function ")
            || t.starts_with("export ")
            || t.starts_with("import ") && t.contains(" from ")
            || t.contains("=> {")
        {
            js += 1;
        }
        if t.starts_with("done")
            || t.starts_with("fi")
            || t.ends_with("; do")
            || t.ends_with("; then")
            || t.starts_with("jq ")
            || t.contains("| jq ")
        {
            sh += 1;
        }
    }
    let best = py.max(js).max(sh);
    if best < 2 {
        return None;
    }
    Some(if best == py {
        CodeLang::Python
    } else if best == js {
        CodeLang::JavaScript
    } else {
        CodeLang::Shell
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_name_and_content() {
        let native = br#"{"fn":"leave"}"#;
        let mcp = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"leave"}}"#;
        let env = br#"{"ts":"2026-10-10T10:00:00Z","dir":"send","message":{"jsonrpc":"2.0","method":"initialize","id":0}}"#;
        let tr = b"# lang: en\n[10:00:01] Oliver: Hi all.\n";
        let board = b"{\n  \"emoji\": \"x\",\n  \"doing\": \"y\"\n}\n";
        let md = b"# Skill\n\nCall `say`:\n\n```json\n{\"text\":\"Hi\"}\n```\n";
        assert_eq!(detect("a.jsonl", native), Format::Native);
        assert_eq!(detect("a.jsonl", mcp), Format::Mcp);
        assert_eq!(detect("a.log", env), Format::Mcp);
        assert_eq!(detect("-", mcp), Format::Mcp);
        assert_eq!(detect("-", native), Format::Native);
        assert_eq!(detect("-", tr), Format::Transcript);
        assert_eq!(detect("call.txt", tr), Format::Transcript);
        assert_eq!(detect("prompt.txt", b"You are an agent."), Format::Prompt);
        assert_eq!(detect("board.json", board), Format::Board);
        assert_eq!(detect("-", board), Format::Board);
        assert_eq!(detect("-", b"[{\"open\":[\"a\"]}]"), Format::Board);
        assert_eq!(detect("SKILL.md", md), Format::Prompt);
        assert_eq!(detect("repo/.cursorrules", md), Format::Prompt);
        assert_eq!(detect("voice.mdc", md), Format::Prompt);
        assert_eq!(detect("-", md), Format::Prompt);
        assert_eq!(detect("x.ts", b"x"), Format::Code(CodeLang::JavaScript));
        assert_eq!(detect("x.py", b""), Format::Code(CodeLang::Python));
        assert_eq!(detect("x.sh", b""), Format::Code(CodeLang::Shell));
        assert_eq!(
            detect("-", b"#!/usr/bin/env python3\nprint(1)\n"),
            Format::Code(CodeLang::Python)
        );
        assert_eq!(
            detect("-", b"import json\ndef f():\n    pass\n"),
            Format::Code(CodeLang::Python)
        );
        assert_eq!(detect("-", b"\x00\x01\xff\xfe"), Format::Unknown);
        assert_eq!(
            detect("photo.png", b"\x89PNG\r\n\x1a\n\0\0"),
            Format::Unknown
        );
        assert_eq!(detect("-", b"just some words"), Format::Unknown);
        assert_eq!(detect("-", b""), Format::Native);
        // a native log with a broken first line is still a log by its name
        assert_eq!(
            detect("a.jsonl", b"{\"fn\":\n{\"fn\":\"leave\"}"),
            Format::Native
        );
        // content first: a log is a log whatever its name
        assert_eq!(detect("notes.txt", native), Format::Native);
        assert_eq!(detect("trace.md", mcp), Format::Mcp);
    }

    #[test]
    fn session_files_by_content() {
        let codex = br#"{"timestamp":"2026-10-10T10:00:00.000Z","type":"session_meta","payload":{"id":"1"}}"#;
        let codex_cut = br#"{"timestamp":"2026-10-10T10:00:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}
{"timestamp":"#;
        let oc = b"{\n  \"info\": {\n    \"id\": \"ses_1\",\n    \"title\": \"x\"\n  },\n  \"messages\": [\n";
        for name in [
            "rollout-2026-10-10T10-00-00-1.jsonl",
            "-",
            "x.json",
            "x.log",
        ] {
            assert_eq!(
                detect(name, codex),
                Format::Session(Client::Codex),
                "{name}"
            );
            assert_eq!(
                detect(name, codex_cut),
                Format::Session(Client::Codex),
                "{name}"
            );
            assert_eq!(
                detect(name, oc),
                Format::Session(Client::Opencode),
                "{name}"
            );
        }
        assert_eq!(
            detect_head("s.json", oc),
            Some(Format::Session(Client::Opencode))
        );
        // a board or another JSON document is no export
        let other = b"{\n  \"info\": {\"name\": \"pkg\"},\n  \"messages\": []\n}";
        assert_eq!(detect("x.json", other), Format::Board);
        assert_eq!(
            detect("x.json", b"{\"info\": 5, \"messages\": ["),
            Format::Board
        );
    }

    #[test]
    fn older_codex_rollouts_and_opencode_storage_by_content() {
        let old = b"{\"id\":\"5b1f\",\"timestamp\":\"2026-10-10T10:00:00.000Z\",\"instructions\":null,\"git\":{\"branch\":\"main\"}}\n{\"record_type\":\"state\"}\n{\"type\":\"message\",\"role\":\"user\",\"content\":[]}\n";
        for name in ["rollout-1.jsonl", "-", "x.log"] {
            assert_eq!(detect(name, old), Format::Session(Client::Codex), "{name}");
        }
        let oc = Format::Session(Client::Opencode);
        let session = b"{\n  \"id\": \"ses_1\",\n  \"version\": \"0.15.8\",\n  \"projectID\": \"p\",\n  \"title\": \"x\",\n  \"time\": {\"created\": 1}\n}\n";
        let message =
            br#"{"id":"msg_1","sessionID":"ses_1","role":"assistant","time":{"created":1}}"#;
        let part = br#"{"id":"prt_1","sessionID":"ses_1","messageID":"msg_1","type":"tool","tool":"voicehook_say","state":{}}"#;
        let list =
            b"[\n  {\n    \"info\": {\"id\": \"msg_1\", \"role\": \"user\"},\n    \"parts\": [";
        for (what, b) in [
            ("session", &session[..]),
            ("message", &message[..]),
            ("part", &part[..]),
            ("list", &list[..]),
        ] {
            assert_eq!(detect("x.json", b), oc, "{what}");
            assert!(is_input_json(b), "{what}");
        }
        // a list of other objects is no session
        assert_ne!(detect("x.json", b"[{\"info\": 1, \"parts\": 2}]"), oc);
    }

    #[test]
    fn markdown_headings_are_not_transcript_headers() {
        let md = b"# human: a guide\n\n```python\nx = 1\n```\n";
        assert_eq!(detect("-", md), Format::Prompt);
    }
}
