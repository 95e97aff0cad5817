//! Agent prompts, skills and helper code (docs/formats.md).
//!
//! In a prompt or skill (markdown or plain text), the fenced blocks are
//! read: a JSON block's records and payloads of `join`, `say`, `status` and
//! `decide` become function records with their spans in the file (a
//! payload without `fn` is told by its keys: `label` a join, `text` a say,
//! `doing`/`open`/`done`/`emoji` a board, `question`/`options` a decide;
//! MCP `tools/call` parameters `{name, arguments}` are read too), and a
//! code block (Python, JavaScript or TypeScript, shell) becomes a piece of
//! helper code for `timeout-events-dropped`. A helper file is one piece of
//! code, whole.
//!
//! Each block is linted as a log of its own. Examples are not a call:
//! their joins are marked as not yet in a call (`waiting_for_human`), so
//! the rules about what follows a join stay silent; a `say` is checked when
//! its block names the agent with a join, as in a native log.

use serde_json::{Map, Value};

use super::json::{self, lines, LineStarts, Place, Places, Read};
use super::{native, CodeLang, Parsed, Problem};
use crate::model::*;

/// The name of the tool records that carry a piece of helper code:
/// `args.lang` (`python`, `javascript`, `shell`) and `args.code`, the exact
/// bytes of the record's span.
pub const CODE_TOOL: &str = "callint:code";

/// Read a prompt or skill: the instructions of its prose
/// ([`crate::text::instructions`]) and its fenced blocks, those of its
/// example sections left out.
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut out = Parsed::default();
    let doc = crate::text::instructions::read(&as_text(bytes));
    let ls = lines(bytes);
    let starts = LineStarts::new(bytes);
    let text_of = |k: usize| std::str::from_utf8(&bytes[ls[k].span.start..ls[k].span.end]).ok();
    for l in &ls {
        let raw = &bytes[l.span.start..l.span.end];
        if let Err(e) = std::str::from_utf8(raw) {
            let at = l.span.start + e.valid_up_to();
            out.problems.push(Problem::new(
                Anchor::bytes(Span::new(at, at + e.error_len().unwrap_or(1))),
                format!(
                    "this line is not valid UTF-8 (byte 0x{:02x})",
                    raw[e.valid_up_to()]
                ),
                Some("a prompt is UTF-8 text; the block holding this line was skipped".into()),
            ));
        }
    }
    let mut i = 0;
    while i < ls.len() {
        let Some((ch, len, info)) = text_of(i).and_then(opening_fence) else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < ls.len() && !text_of(j).is_some_and(|t| closing_fence(t, ch, len)) {
            j += 1;
        }
        if j > i + 1 && !doc.in_example(ls[i].span.start) {
            let span = Span::new(ls[i + 1].span.start, ls[j - 1].span.end);
            let first = ls[i + 1].no;
            block(bytes, &info, span, first, &starts, &mut out);
        }
        i = j + 1;
    }
    out.instructions = doc.instructions;
    out
}

/// The document as text, each byte that is not UTF-8 read as `?` so that
/// every offset stays that of the file (the bad line is reported once).
fn as_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.into(),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len());
            let mut rest = bytes;
            while !rest.is_empty() {
                match std::str::from_utf8(rest) {
                    Ok(s) => {
                        out.push_str(s);
                        break;
                    }
                    Err(e) => {
                        let ok = e.valid_up_to();
                        out.push_str(std::str::from_utf8(&rest[..ok]).unwrap_or_default());
                        let bad = e.error_len().unwrap_or(rest.len() - ok);
                        out.extend(std::iter::repeat_n('?', bad));
                        rest = &rest[ok + bad..];
                    }
                }
            }
            out.into()
        }
    }
}

/// Read a helper file: one piece of code.
pub fn parse_code(bytes: &[u8], lang: CodeLang) -> Parsed {
    let mut out = Parsed::default();
    match std::str::from_utf8(bytes) {
        Ok(code) => {
            if let Some(log) = code_log(code, Span::new(0, bytes.len()), 1, lang) {
                out.logs.push(log);
            }
        }
        Err(e) => {
            let at = e.valid_up_to();
            out.problems.push(Problem::new(
                Anchor::bytes(Span::new(at, at + e.error_len().unwrap_or(1))),
                format!("this file is not valid UTF-8 (byte 0x{:02x})", bytes[at]),
                Some("helper code is UTF-8 text; the file was not checked".into()),
            ));
        }
    }
    out
}

/// A fence opening a block: its character, its length and its info word.
fn opening_fence(l: &str) -> Option<(char, usize, String)> {
    let t = l.trim_start();
    let ch = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = t.chars().take_while(|c| *c == ch).count();
    if len < 3 {
        return None;
    }
    let info = t[len..].trim();
    if ch == '`' && info.contains('`') {
        return None; // inline code, not a fence
    }
    let word = info
        .trim_start_matches(['{', '.'])
        .split(|c: char| c.is_whitespace() || c == ',' || c == '}')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    Some((ch, len, word))
}

fn closing_fence(l: &str, ch: char, len: usize) -> bool {
    let t = l.trim();
    t.chars().take_while(|c| *c == ch).count() >= len && t.chars().all(|c| c == ch)
}

fn block(
    bytes: &[u8],
    info: &str,
    span: Span,
    first_line: u32,
    starts: &LineStarts,
    out: &mut Parsed,
) {
    let content = &bytes[span.start..span.end];
    let Ok(text) = std::str::from_utf8(content) else {
        return; // its bad line is reported already
    };
    match info {
        "json" | "jsonl" | "ndjson" | "json-lines" | "jsonlines" => {
            let reads = if info == "json" {
                json::values(bytes, span)
            } else {
                lines(content)
                    .into_iter()
                    .filter(|l| {
                        !content[l.span.start..l.span.end]
                            .iter()
                            .all(u8::is_ascii_whitespace)
                    })
                    .flat_map(|l| {
                        json::values(
                            bytes,
                            Span::new(span.start + l.span.start, span.start + l.span.end),
                        )
                    })
                    .collect()
            };
            // Pseudo-JSON of other tools is none of callint's business; a
            // broken block is reported when it holds voicehook keys.
            let ours = [
                "\"fn\"",
                "\"args\"",
                "\"label\"",
                "\"text\"",
                "\"doing\"",
                "\"open\"",
                "\"done\"",
                "\"emoji\"",
                "\"question\"",
                "\"options\"",
            ]
            .iter()
            .any(|k| text.contains(k));
            payloads(reads, bytes, starts, out, ours);
        }
        "" => {
            let t = text.trim_start();
            if t.starts_with('{') || t.starts_with('[') {
                let reads = json::values(bytes, span);
                if reads.iter().all(|r| matches!(r, Read::Value(..))) {
                    payloads(reads, bytes, starts, out, false);
                }
            }
        }
        tag => {
            if let Some(lang) = CodeLang::from_tag(tag) {
                if let Some(log) = code_log(text, span, first_line, lang) {
                    out.logs.push(log);
                }
            }
        }
    }
}

/// The records of one JSON block, as one log.
fn payloads(reads: Vec<Read>, bytes: &[u8], starts: &LineStarts, out: &mut Parsed, strict: bool) {
    let mut records = Vec::new();
    for r in reads {
        match r {
            Read::Broken(mut p) => {
                if strict {
                    p.help = Some("a fenced json block of a prompt is read as voicehook payloads; fix the JSON, or tag a block holding placeholders `jsonc` or `text` so that callint passes over it".into());
                    out.problems.push(p);
                }
            }
            Read::Value(span, Value::Array(items)) => {
                for (item, s) in items.iter().zip(json::elements(bytes, span)) {
                    if let Value::Object(o) = item {
                        records.extend(record(
                            o,
                            bytes,
                            s,
                            starts.line(s.start),
                            &mut out.problems,
                        ));
                    }
                }
            }
            Read::Value(span, Value::Object(o)) => {
                records.extend(record(
                    &o,
                    bytes,
                    span,
                    starts.line(span.start),
                    &mut out.problems,
                ));
            }
            Read::Value(..) => {}
        }
    }
    if !records.is_empty() {
        out.logs.push(Log {
            meta: None,
            records,
        });
    }
}

/// A record from a full record (read as a native log line), MCP call
/// parameters or a payload.
fn record(
    o: &Map<String, Value>,
    bytes: &[u8],
    span: Span,
    line: u32,
    problems: &mut Vec<Problem>,
) -> Option<Record> {
    if ["fn", "chat", "tool", "meta"]
        .iter()
        .any(|k| o.contains_key(*k))
    {
        return native_record(bytes, span, line, problems).map(not_entered);
    }
    let moved = |name: &str, args: &Value, at: Path| {
        let mut m = Map::new();
        m.insert("args".into(), args.clone());
        let place = Place::at(at);
        (
            name.to_string(),
            m,
            Some(Places {
                args: place,
                result: place,
                error: place,
            }),
        )
    };
    let tool_call = |p: &Map<String, Value>| -> Option<(String, Value)> {
        let name = super::mcp::function_name(p.get("name")?.as_str()?);
        json::FUNCTIONS.contains(&name).then(|| {
            let args = match p.get("arguments") {
                // a function call's arguments as JSON text, as model APIs
                // and some clients' logs keep them
                Some(Value::String(s)) => serde_json::from_str::<Value>(s)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| Value::String(s.clone())),
                Some(v) => v.clone(),
                None => Value::Object(Map::new()),
            };
            (name.to_string(), args)
        })
    };
    let (name, obj, places) =
        if let Some(Value::Object(params)) = o.get("params").filter(|_| o.contains_key("method")) {
            let (n, a) = tool_call(params)?;
            moved(&n, &a, Path::ROOT.key("params").key("arguments"))
        } else if o.contains_key("arguments") {
            let (n, a) = tool_call(o)?;
            moved(&n, &a, Path::ROOT.key("arguments"))
        } else {
            let f = json::payload_fn(o)?;
            moved(f, &Value::Object(o.clone()), Path::ROOT)
        };
    let mut found = Vec::new();
    let mut f = native::read_fn_call(&name, obj, span, &mut found);
    if let Some(p) = places {
        p.relocate(&mut f.op);
        p.relocate_problems(span, &mut found);
    }
    problems.extend(found);
    Some(not_entered(Record::new(line, span, Body::Fn(f))))
}

/// A join of an example is not an entry into a call: nothing follows it.
fn not_entered(mut r: Record) -> Record {
    if let Body::Fn(FnCall {
        op: Op::Join(j), ..
    }) = &mut r.body
    {
        j.status = Some("waiting_for_human".into());
    }
    r
}

/// A full record at `span`, read as one line of a native log (its line
/// ends become spaces, so the offsets stay).
fn native_record(
    bytes: &[u8],
    span: Span,
    line: u32,
    problems: &mut Vec<Problem>,
) -> Option<Record> {
    let flat: Vec<u8> = bytes[span.start..span.end]
        .iter()
        .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
        .collect();
    let (log, found) = native::parse(&flat);
    let shift = |s: Span| Span::new(s.start + span.start, s.end + span.start);
    for mut p in found {
        p.at.span = shift(p.at.span);
        problems.push(p);
    }
    let mut r = log.records.into_iter().next()?;
    r.span = shift(r.span);
    r.line = line;
    Some(r)
}

/// A log holding one piece of helper code.
fn code_log(code: &str, span: Span, line: u32, lang: CodeLang) -> Option<Log> {
    if code.trim().is_empty() {
        return None;
    }
    let mut args = Map::new();
    args.insert("lang".into(), Value::String(lang.name().into()));
    args.insert("code".into(), Value::String(code.to_string()));
    Some(Log {
        meta: None,
        records: vec![Record::new(
            line,
            span,
            Body::Tool(Box::new(Tool {
                name: CODE_TOOL.into(),
                args: Some(Value::Object(args)),
                at: None,
            })),
        )],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD: &str = "# Skill\n\nJoin like this:\n\n```json\n{\n  \"label\": \"opencode-session-2026-10-10\",\n  \"greet\": true\n}\n```\n\n- Board:\n  ```json\n  {\"emoji\": \"\", \"doing\": \"x\", \"open\": [\"a, b and c\"]}\n  ```\n\n```python\nwhile True:\n    ev = next()\n    if ev[\"type\"] == \"timeout\":\n        continue\n```\n\n```\n{\"text\": \"Hi\"}\n```\n\n```json\n{\"mcpServers\": {}}\n```\n\n```jsonl\n{\"fn\":\"say\",\"args\":{\"text\":\"x\"}}\nnot json\n```\n";

    #[test]
    fn fenced_payloads_and_code() {
        let p = parse(MD.as_bytes());
        assert_eq!(p.problems.len(), 1, "{:?}", p.problems);
        assert!(p.problems[0].message.contains("not valid JSON"));
        assert_eq!(p.logs.len(), 5);
        let join = &p.logs[0].records[0];
        assert_eq!(join.line, 6);
        let Op::Join(j) = &join.as_fn().unwrap().op else {
            panic!()
        };
        let label = j.label.as_ref().unwrap();
        assert_eq!(label.path.to_string(), "label");
        let s = crate::core::locate::locate(
            &MD.as_bytes()[join.span.start..join.span.end],
            &label.path,
        );
        assert_eq!(
            &MD[join.span.start + s.start..join.span.start + s.end],
            "\"opencode-session-2026-10-10\""
        );
        assert!(!j.joined());
        let board = &p.logs[1].records[0];
        assert_eq!(board.line, 14);
        let Body::Tool(t) = &p.logs[2].records[0].body else {
            panic!()
        };
        assert_eq!(t.name, CODE_TOOL);
        let code = p.logs[2].records[0].span;
        assert!(MD[code.start..code.end].starts_with("while True:"));
        assert!(MD[code.start..code.end].ends_with("continue"));
        // the untagged say payload, then the jsonl record before the bad line
        assert_eq!(p.logs[3].records[0].as_fn().unwrap().name.as_ref(), "say");
        assert_eq!(p.logs[4].records[0].as_fn().unwrap().name.as_ref(), "say");
    }

    #[test]
    fn mcp_parameters_and_lists() {
        let src = "```json\n[{\"name\":\"decide\",\"arguments\":{\"question\":\"Which one?\"}}, {\"question\":\"x?\",\"options\":[\"a\",\"b\"]}]\n```\n";
        let p = parse(src.as_bytes());
        assert!(p.problems.is_empty());
        let recs = &p.logs[0].records;
        assert_eq!(recs.len(), 2);
        let Op::Decide(d) = &recs[0].as_fn().unwrap().op else {
            panic!()
        };
        assert_eq!(
            d.question.as_ref().unwrap().path.to_string(),
            "arguments.question"
        );
    }

    #[test]
    fn hostile_input_never_panics() {
        for src in [
            &b""[..],
            b"```",
            b"```json",
            b"```json\n{",
            b"```json\n\xff\n```",
            b"````\n```\n",
            b"```python\n\xc3\n```",
            b"~~~json\n[[[[\n~~~",
            b"```json\n[1,2,{\"open\":5}]\n```",
        ] {
            let _ = parse(src);
            let _ = parse_code(src, CodeLang::Shell);
        }
        // too deep for a payload: one problem, when it holds voicehook keys
        let deep = format!("```json\n{{\"text\": {}\n```\n", "[".repeat(100_000));
        assert_eq!(parse(deep.as_bytes()).problems.len(), 1);
        let other = format!("```json\n{}\n```\n", "[".repeat(100_000));
        assert!(parse(other.as_bytes()).problems.is_empty());
    }
}
