//! A pending call of Codex judged from the session's rollout file: the
//! lines the rules that judge a pending call read ([`calls_only`]) are read
//! through the rollout reader ([`crate::input::codex`]), with the pending
//! call appended as Codex writes a tool call (a `response_item`
//! `function_call`), and the live engine judges that record
//! ([`crate::lint::live::Live::judge`]).
//!
//! As a Claude Code transcript is (`read_session`), the rollout is read
//! from the line of the call's last `join` or `create_call` on (with the
//! `session_meta` lines before it, which say whose thread it is), and what
//! was read is kept between runs, so that a pending call costs the lines
//! written since the last one.
//!
//! Every line the guard looks at itself is read as JSON, whatever its
//! spacing or key order: the start of the call, the `session_meta` lines,
//! the time of the last entry, and the pending call when Codex wrote it
//! before running the hook (its `call_id` is the hook's `tool_use_id`),
//! which is taken out so that the call is judged once.

use crate::core::hash::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::app::guard::{gather, Hook, Lines, Shape};
use crate::input::server::function_name;
use crate::input::{codex, ts};
use crate::model::Ms;

/// The `call_id` the pending call is given.
const PENDING_ID: &str = "callint-pending";

/// A Codex rollout file.
pub(crate) struct Rollout;

impl Shape for Rollout {
    type Reader = codex::Reader;
    const NAME: &'static str = "codex";
    const FILE: &'static str = "rollout file";

    fn starts_call(line: &[u8], server: &str) -> bool {
        starts_call(line, server)
    }

    fn drop_pending(bytes: &mut Vec<u8>, id: &str) -> Option<usize> {
        drop_call(bytes, id)
    }

    fn calls_only(part: &[u8], server: &str, all: bool, ids: &mut HashSet<Vec<u8>>) -> Lines {
        calls_only(part, server, all, ids)
    }

    fn pending_entry(hook: &Hook, when: Ms) -> String {
        json!({
            "timestamp": ts::format_rfc3339(when),
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": hook.tool_name,
                "arguments": Value::Object(hook.tool_input.clone()).to_string(),
                "call_id": PENDING_ID,
            },
        })
        .to_string()
    }

    fn done_entry(hook: &Hook, answer: &crate::app::guard::feedback::Answer, when: Ms) -> String {
        // The answer of an MCP call, as Codex records it: an `event_msg`
        // `mcp_tool_call_end` whose `result` is `{"Ok": CallToolResult}`.
        let (server, tool) = crate::input::server::split_mcp_name(&hook.tool_name)
            .unwrap_or(("", hook.tool_name.as_str()));
        let end = json!({
            "timestamp": ts::format_rfc3339(when),
            "type": "event_msg",
            "payload": {
                "type": "mcp_tool_call_end",
                "call_id": PENDING_ID,
                "invocation": {
                    "server": server,
                    "tool": tool,
                    "arguments": Value::Object(hook.tool_input.clone()),
                },
                "result": {"Ok": {
                    "content": [{"type": "text", "text": answer.text}],
                    "isError": answer.error,
                }},
            },
        });
        format!("{}\n{end}", Self::pending_entry(hook, when))
    }

    fn drop_done(bytes: &mut Vec<u8>, id: &str) -> Option<usize> {
        drop_lines(bytes, id, true)
    }

    fn before_call(file: &mut File, tail: u64) -> io::Result<Vec<(u64, Vec<u8>)>> {
        session_metas(file, tail, BLOCK)
    }
}

/// A JSON object's keys, their values left unread. Of a key given twice
/// the last counts, as for the rollout reader.
type Fields<'a> = HashMap<String, &'a RawValue>;

fn fields(json: &[u8]) -> Option<Fields<'_>> {
    serde_json::from_slice(json).ok()
}

/// The string at `key`, if it is one.
fn text(f: &Fields<'_>, key: &str) -> Option<String> {
    serde_json::from_str(f.get(key)?.get()).ok()
}

/// The type of a rollout line and its item, as the rollout reader takes
/// them: the line's `type` and its `payload` (an object), or, in the
/// older layout, `response_item` and the line itself.
fn item(line: &[u8]) -> Option<(String, Fields<'_>)> {
    let top = fields(line)?;
    match top.get("payload") {
        Some(p) if p.get().starts_with('{') => {
            let p = fields(p.get().as_bytes())?;
            Some((text(&top, "type").unwrap_or_default(), p))
        }
        Some(_) => None,
        None if top.contains_key("type") && !top.contains_key("record_type") => {
            Some(("response_item".into(), top))
        }
        None => None,
    }
}

/// True when `line` is a `function_call` of `server`'s `join` or
/// `create_call` that the rollout reader reads as a call (it has a
/// `call_id`).
fn starts_call(line: &[u8], server: &str) -> bool {
    let Some((ty, p)) = item(line) else {
        return false;
    };
    let has_id = p.get("call_id").is_some_and(|r| {
        serde_json::from_str::<String>(r.get()).is_ok()
            || serde_json::from_str::<serde_json::Number>(r.get()).is_ok()
    });
    if ty != "response_item" || text(&p, "type").as_deref() != Some("function_call") || !has_id {
        return false;
    }
    let name = text(&p, "name").unwrap_or_default();
    let namespace = text(&p, "namespace");
    codex::split_name(&name, namespace.as_deref())
        .is_some_and(|(s, t)| s == server && matches!(function_name(t), "join" | "create_call"))
}

/// True when `line` is a `session_meta` line (which says whose thread the
/// rollout is).
fn is_session_meta(line: &[u8]) -> bool {
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    item(line).is_some_and(|(ty, _)| ty == "session_meta")
}

/// The size of the blocks [`session_metas`] reads.
const BLOCK: u64 = 1 << 20;

/// The `session_meta` lines before offset `end` (where the call starts),
/// each with its offset and its line break: a rollout starts with one,
/// and the reader reads the thread from them. The bytes before `end` are
/// read once, a block at a time; only lines that hold `session_meta`, or
/// a `\u` escape that could spell it, are read as JSON.
fn session_metas(file: &mut File, end: u64, block: u64) -> io::Result<Vec<(u64, Vec<u8>)>> {
    use memchr::memmem::Finder;
    let needles = [Finder::new(b"session_meta"), Finder::new(b"\\u")];
    let mut out = Vec::new();
    file.seek(SeekFrom::Start(0))?;
    // The bytes read and not yet searched: the start of a line cut by the
    // block's end, at offset `at`.
    let mut buf: Vec<u8> = Vec::new();
    let mut at = 0u64;
    let mut read = 0u64;
    while read < end {
        let n = block.max(1).min(end - read);
        let before = buf.len();
        file.by_ref().take(n).read_to_end(&mut buf)?;
        if (buf.len() - before) as u64 != n {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        read += n;
        let last = read == end;
        let mut start = 0;
        while start < buf.len() {
            let stop = match memchr::memchr(b'\n', &buf[start..]) {
                Some(k) => start + k + 1,
                None if last => buf.len(),
                None => break,
            };
            let line = &buf[start..stop];
            if needles.iter().any(|f| f.find(line).is_some()) && is_session_meta(line) {
                out.push((at + start as u64, line.to_vec()));
            }
            start = stop;
        }
        buf.drain(..start);
        at += start as u64;
    }
    Ok(out)
}

/// The lines of `part` that can matter to a rule judging a pending call
/// of `server`, which reads neither the chat with the agent's user nor the
/// agent's other tools (unless `all`, [`crate::app::guard::only_calls_read`]):
/// the session's `session_meta` (the thread), the server's calls, and the
/// lines that answer them (by `call_id`), with `room` bytes to spare. A
/// rollout's other lines (shell output, file reads, the model's messages)
/// are most of its bytes.
///
/// A line is left out only when it surely is none of those: it holds
/// neither the server's tool prefix, nor `session_meta`, nor an MCP call's
/// event, nor `\u` (which could spell any of them another way), and the
/// `call_id` it carries, read from its JSON, is none of the server's. So
/// the choice does not depend on how the JSON is spaced or ordered.
///
/// `ids` holds the `call_id`s of the lines kept before `part`, and gets
/// those of the lines of `part` kept: reading a rollout in parts keeps
/// the same lines as reading it whole, and a call whose line was read is
/// known to have been read.
fn calls_only(part: &[u8], server: &str, all: bool, ids: &mut HashSet<Vec<u8>>) -> Lines {
    use memchr::memmem::Finder;
    let prefix = format!("mcp__{server}__");
    let always = [
        Finder::new(prefix.as_bytes()),
        Finder::new(b"session_meta"),
        Finder::new(b"mcp_tool_call"),
        Finder::new(b"\\u"),
    ];
    let has_id = Finder::new(b"call_id");
    let mut out = Lines::new();
    // What a line says is read on its own (side by side, for many), and
    // whether it is kept then decided in order.
    let lines: Vec<(usize, &[u8])> = crate::core::lines::with_starts(part).collect();
    crate::input::session::in_blocks(
        &lines,
        |&(start, line), _| {
            let sure = always.iter().any(|f| f.find(line).is_some());
            let carries = sure || has_id.find(line).is_some();
            let id = carries.then(|| line_call_id(line)).flatten();
            ((start, start + line.len()), sure, carries, id)
        },
        |(span, sure, carries, id)| {
            let keep =
                all || sure || (carries && id.as_ref().is_none_or(|i| ids.contains(i.as_bytes())));
            if keep {
                if let Some(id) = id {
                    ids.insert(id.into_bytes());
                }
                out.push(span);
            }
        },
    );
    out
}

/// The `call_id` of a rollout line's payload, read from its JSON.
fn line_call_id(line: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Line {
        #[serde(default)]
        payload: Option<Payload>,
    }
    #[derive(serde::Deserialize)]
    struct Payload {
        #[serde(default)]
        call_id: Option<Value>,
    }
    match serde_json::from_slice::<Line>(line)
        .ok()?
        .payload?
        .call_id?
    {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Take out the lines that carry the call `id` as Codex writes it before
/// running the hook (a `function_call`, and the `mcp_tool_call_begin`
/// event), so that it is judged once, as the pending call. Returns where
/// the first line taken out was, when one was.
fn drop_call(bytes: &mut Vec<u8>, id: &str) -> Option<usize> {
    drop_lines(bytes, id, false)
}

/// [`drop_call`], and with `answered` the lines that answer the call too
/// (its `function_call_output` and `mcp_tool_call_end`).
fn drop_lines(bytes: &mut Vec<u8>, id: &str, answered: bool) -> Option<usize> {
    let finder = memchr::memmem::Finder::new(id.as_bytes());
    let mut kept = Lines::new();
    let (mut first, mut len) = (None, 0);
    for (start, line) in crate::core::lines::with_starts(bytes) {
        let span = (start, start + line.len());
        // Only a line holding the id's characters can hold it (a line
        // escaping them, `\u0063`, is read and kept as it is).
        let carries = finder.find(line).is_some()
            && serde_json::from_slice::<Value>(line).is_ok_and(|v| {
                let p = &v["payload"];
                p["call_id"].as_str() == Some(id)
                    && (matches!(
                        (v["type"].as_str(), p["type"].as_str()),
                        (Some("response_item"), Some("function_call"))
                            | (Some("event_msg"), Some("mcp_tool_call_begin"))
                    ) || answered
                        && matches!(
                            (v["type"].as_str(), p["type"].as_str()),
                            (Some("response_item"), Some("function_call_output"))
                                | (Some("event_msg"), Some("mcp_tool_call_end"))
                        ))
            });
        if carries {
            first.get_or_insert(len);
        } else {
            len += line.len();
            kept.push(span);
        }
    }
    if first.is_some() {
        let end = gather(bytes, 0, &kept, 0);
        bytes.truncate(end);
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pending_call_is_found_and_taken_out_in_any_spacing() {
        let compact = "{\"timestamp\":\"2026-10-10T10:00:01.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"mcp__vh__say\",\"arguments\":\"{}\",\"call_id\":\"c7\"}}\n";
        let spaced = "{ \"payload\" : { \"call_id\" : \"c7\", \"type\" : \"function_call\" }, \"type\" : \"response_item\", \"timestamp\" : \"2026-10-10T10:00:02.000Z\" }\n";
        let other = "{\"timestamp\":\"2026-10-10T10:00:03.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_message\",\"message\":\"c7\"}}\n";
        for line in [compact, spaced] {
            let mut b = format!("{other}{line}{other}").into_bytes();
            assert_eq!(drop_call(&mut b, "c7"), Some(other.len()));
            assert_eq!(b, format!("{other}{other}").as_bytes());
            assert_eq!(drop_call(&mut b, "c7"), None);
        }
    }

    #[test]
    fn a_call_starts_at_its_join_however_it_is_written() {
        let join = |name: &str, extra: &str| {
            format!(
                r#"{{"timestamp":"2026-10-10T10:00:01.000Z","type":"response_item","payload":{{"type":"function_call","name":"{name}","arguments":"{{}}","call_id":"j"{extra}}}}}"#
            )
        };
        for yes in [
            join("mcp__vh__join", ""),
            join("vh__create_call", ""),
            join("join", r#","namespace":"mcp__vh__""#),
            // spaced, keys reordered, the name escaped
            r#"{ "payload" : { "call_id" : 7 , "name" : "mcp__vh__\u006aoin" , "type" : "function_call" } , "type" : "response_item" }"#.into(),
            // the older layout: the item is the line
            r#"{"type":"function_call","name":"mcp__vh__join","arguments":"{}","call_id":"j"}"#.into(),
        ] {
            assert!(starts_call(yes.as_bytes(), "vh"), "{yes}");
        }
        for no in [
            join("mcp__vh__say", ""),
            join("mcp__other__join", ""),
            join("mcp__vh__join", "").replace(r#","call_id":"j""#, ""),
            join("mcp__vh__join", "").replace("response_item", "event_msg"),
            r#"{"type":"response_item","payload":"{\"type\":\"function_call\"}"}"#.into(),
            r#"{"type":"function_call","name":"mcp__vh__join","call_id":"j","record_type":null}"#.into(),
            r#"{"type":"event_msg","payload":{"type":"agent_message","message":"mcp__vh__join\""}}"#.into(),
            r#"["mcp__vh__join"]"#.into(),
            "{\"type\":\"response_item\",".into(),
        ] {
            assert!(!starts_call(no.as_bytes(), "vh"), "{no}");
        }
    }

    #[test]
    fn the_session_meta_lines_before_the_call_are_found() {
        let dir = crate::app::harness::scratch("rollout-meta");
        let path = dir.join("r.jsonl");
        let meta = "\u{feff}{\"timestamp\":\"2026-10-10T10:00:00.000Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"1\",\"source\":{\"subagent\":\"review\"}}}\n";
        let spaced = "{ \"payload\" : { \"id\" : \"2\" } , \"type\" : \"session_\\u006deta\" }\n";
        let filler = "{\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_message\",\"message\":\"the session_meta line\"}}\n";
        let mut src = String::from(meta);
        let mut want = vec![(0u64, meta.to_string())];
        for k in 0..300 {
            if k == 200 {
                want.push((src.len() as u64, spaced.to_string()));
                src.push_str(spaced);
            }
            src.push_str(filler);
        }
        std::fs::write(&path, &src).unwrap();
        for block in [1, 7, 100, 4096, 1 << 20] {
            let mut file = File::open(&path).unwrap();
            let got = session_metas(&mut file, src.len() as u64, block).unwrap();
            let got: Vec<(u64, String)> = got
                .into_iter()
                .map(|(at, l)| (at, String::from_utf8(l).unwrap()))
                .collect();
            assert_eq!(got, want, "{block}");
            // only those before the call's start
            let got = session_metas(&mut file, want[1].0, block).unwrap();
            assert_eq!(got.len(), 1, "{block}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
