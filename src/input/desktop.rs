//! Claude Desktop's MCP logs: `mcp-server-<name>.log`, one server's, and
//! `mcp.log`, where every server's lines are mixed.
//!
//! A line is `<RFC 3339 time> [<server>] [<level>] <text>` (older builds
//! put the level first: `[<level>] [<server>]`); the lines that count are
//! `Message from client: <JSON>` and `Message from server: <JSON>`, the
//! JSON-RPC messages between the app and a server, sometimes followed by
//! the logger's own `{ metadata: ... }`. Everything else (start-up and
//! shut-down lines, the server's standard error, the continuation lines
//! of a multi-line entry) is passed over without a finding.
//!
//! The messages of each server are paired as in an MCP trace
//! ([`super::mcp`]): a `tools/call` and its response by id become one
//! function record at the request, timed by the response's line. Only the
//! voicehook server's calls are kept ([`super::server`]: by its name, by
//! `callint.toml`'s `servers`, or by the shape of its calls). Findings
//! point into the JSON part of a line.
//!
//! Some builds write `Message from client: method=tools/call id=3`, with
//! no payload: such a log says which calls were made but not what they
//! sent or got, so it is said once for the file, not for every line.

use serde_json::Value;

use super::exchange::{self, id_of, Pairing, PerServer, Reply, Site};
use super::json::{self, lines};
use super::{ts, Options, Parsed, Problem};
use crate::core::locate::{skip_ws, value_span};
use crate::model::*;

/// The levels the app's logger writes.
const LEVELS: &[&str] = &[
    "info", "error", "warn", "warning", "debug", "trace", "verbose",
];

/// The parts of one prefixed line, as offsets into the line.
struct Prefixed<'l> {
    ts: Option<Ms>,
    server: &'l str,
    /// The text after the prefix.
    rest: usize,
}

/// `<time> [a] [b] rest`: the time, the server (the bracket that is no
/// level) and where the rest starts; `None` for a line without the prefix.
fn prefix(line: &[u8]) -> Option<Prefixed<'_>> {
    let sp = line.iter().position(|&b| b == b' ')?;
    let stamp = std::str::from_utf8(&line[..sp]).ok()?;
    // A time's first character is a digit; anything else is not a prefix.
    if !stamp.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let ts = ts::parse_rfc3339(stamp);
    ts?;
    let mut i = sp + 1;
    let mut server = "";
    let mut level = false;
    for _ in 0..2 {
        if line.get(i) != Some(&b'[') {
            break;
        }
        let close = line[i..].iter().position(|&b| b == b']')? + i;
        let inner = std::str::from_utf8(&line[i + 1..close]).ok()?;
        if !level && LEVELS.contains(&inner.to_ascii_lowercase().as_str()) {
            level = true;
        } else {
            server = inner;
        }
        i = close + 1;
        if line.get(i) == Some(&b' ') {
            i += 1;
        }
    }
    level.then_some(Prefixed {
        ts,
        server,
        rest: i,
    })
}

/// True when the text looks like a Claude Desktop MCP log: among its first
/// lines, most prefixed ones carry a level, and one says it is the app's
/// (a message, or a server starting).
pub(crate) fn looks_like(text: &str) -> bool {
    let mut prefixed = 0;
    let mut mcp = false;
    let mut first = true;
    for l in text.lines().filter(|l| !l.trim().is_empty()).take(40) {
        let p = prefix(l.as_bytes());
        if first && p.is_none() {
            return false;
        }
        first = false;
        if let Some(p) = p {
            prefixed += 1;
            let rest = &l[p.rest.min(l.len())..];
            mcp |= rest.starts_with("Message from client:")
                || rest.starts_with("Message from server:")
                || rest.starts_with("Initializing server")
                || rest.starts_with("Server started and connected")
                || rest.starts_with("Using MCP server command");
        }
    }
    prefixed > 0 && mcp
}

/// Read a Claude Desktop MCP log.
pub fn parse(bytes: &[u8], opts: &Options) -> Parsed {
    let mut servers = PerServer::default();
    // The first line of each server naming a message without its payload.
    let mut bare: Vec<(String, Span)> = Vec::new();
    for (order, l) in lines(bytes).into_iter().enumerate() {
        let line = &bytes[l.span.start..l.span.end];
        let Some(p) = prefix(line) else { continue };
        let rest = &line[p.rest.min(line.len())..];
        let from_client = rest.starts_with(b"Message from client:");
        if !from_client && !rest.starts_with(b"Message from server:") {
            continue;
        }
        let server = servers.get(p.server);
        let colon = p.rest + "Message from client:".len();
        let start = skip_ws(line, colon);
        if !matches!(line.get(start), Some(b'{' | b'[')) {
            // `method=tools/call id=3`: the message without its content.
            if !bare.iter().any(|(s, _)| s == p.server) {
                let span = Span::new(l.span.start + p.rest, l.span.start + line.len());
                bare.push((p.server.to_string(), span));
            }
            continue;
        }
        // The JSON text, without what the logger wrote after it.
        let end = value_span(line, start).map_or(line.len(), |s| s.end);
        let json_at = Span::new(l.span.start + start, l.span.start + end);
        let raw = &line[start..end];
        let value: Value = match serde_json::from_slice(raw) {
            Ok(v) => v,
            Err(e) => {
                server.problems.push(json::broken(raw, json_at.start, &e));
                continue;
            }
        };
        let site = |at: Path| Site {
            line: l.no,
            span: json_at,
            at,
            ts: p.ts,
        };
        for (m, at) in super::mcp::batch(&value, Path::ROOT) {
            let Value::Object(m) = m else {
                server.problems.push(not_a_message(json_at, at));
                continue;
            };
            message(server, m, site(at), order);
        }
    }
    finish(servers, bare, opts)
}

/// One JSON-RPC message of a server.
fn message(pairing: &mut Pairing, m: &exchange::Obj, site: Site, order: usize) {
    let id = id_of(m);
    if let Some(method) = m.get("method") {
        if method.as_str() != Some("tools/call") {
            pairing.asked(id);
            return;
        }
        if let Some(call) = exchange::call(m, site, None, order, &mut pairing.problems) {
            pairing.request(id, call);
        }
    } else if m.contains_key("result") || m.contains_key("error") {
        // A response without an id answers nothing that can be found.
        if let Some(id) = id {
            pairing.response(Some(&id), None, Reply::Rpc(m), site, order);
        }
    } else {
        pairing.problems.push(not_a_message(site.span, site.at));
    }
}

fn not_a_message(span: Span, path: Path) -> Problem {
    Problem::new(
        Anchor { span, path },
        "this is not a JSON-RPC message: it has neither `method` nor `result` or `error`".into(),
        Some("the line was passed over; the rest of the log was still linted".into()),
    )
}

/// The voicehook servers' records and problems, and one note for a log
/// whose messages carry no payload (said for a voicehook server's lines,
/// or for any server's when no server of the log could be told to be
/// voicehook: the missing payloads may be why).
fn finish(servers: PerServer, bare: Vec<(String, Span)>, opts: &Options) -> Parsed {
    let kept = servers.finish(opts);
    let mut problems = kept.problems;
    let first_bare = bare
        .iter()
        .filter(|(name, _)| !kept.any || kept.known.is_voicehook(name))
        .map(|(_, span)| *span)
        .min_by_key(|s| s.start);
    if let Some(span) = first_bare {
        problems.push(Problem::new(
            Anchor::bytes(span),
            "this log names the MCP messages without their content, so callint cannot see what the calls sent or got".into(),
            Some("every line of this kind in the file is passed over; record the traffic with its payloads (a build or setting that logs the messages, a recording proxy, or a `tee` of the server's input and output) to lint the call".into()),
        ));
    }
    Parsed {
        logs: vec![Log {
            meta: None,
            records: kept.records,
        }],
        problems,
        ..Parsed::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = r#"2026-10-10T10:00:00.000Z [voicehook] [info] Initializing server... { metadata: undefined }
2026-10-10T10:00:00.100Z [voicehook] [info] Server started and connected successfully { metadata: undefined }
voicehook MCP server 2.4.0 listening on stdio
2026-10-10T10:00:00.200Z [voicehook] [info] Message from client: {"method":"initialize","params":{},"jsonrpc":"2.0","id":0} { metadata: undefined }
2026-10-10T10:00:00.300Z [voicehook] [info] Message from server: {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}} { metadata: undefined }
2026-10-10T10:00:01.000Z [voicehook] [info] Message from client: {"method":"tools/call","params":{"name":"say","arguments":{"text":"Hi, this is Kit."}},"jsonrpc":"2.0","id":1} { metadata: undefined }
2026-10-10T10:00:01.400Z [voicehook] [info] Message from server: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"say_id\":\"s1\",\"say_status\":\"queued\"}"}]}} { metadata: undefined }
2026-10-10T10:00:02.000Z [voicehook] [error] something went wrong {
  metadata: { context: 'connection' }
}
"#;

    #[test]
    fn reads_messages_and_passes_over_the_rest() {
        let p = parse(LOG.as_bytes(), &Options::default());
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        let recs = &p.logs[0].records;
        assert_eq!(recs.len(), 1);
        let r = &recs[0];
        assert_eq!(r.line, 6);
        assert_eq!(r.ts, ts::parse_rfc3339("2026-10-10T10:00:01.400Z"));
        // the record is the JSON part of its line, without the metadata
        let json = &LOG.as_bytes()[r.span.start..r.span.end];
        assert!(json.starts_with(b"{\"method\"") && json.ends_with(b"\"id\":1}"));
        let Op::Say(s) = &r.as_fn().unwrap().op else {
            panic!()
        };
        assert_eq!(s.say_status.as_deref(), Some("queued"));
        assert!(looks_like(LOG));
    }

    #[test]
    fn only_the_voicehook_server_counts_in_mcp_log() {
        let log = r#"2026-10-10T10:00:00.000Z [info] [files] Message from client: {"method":"tools/call","params":{"name":"say","arguments":{"text":"ls"}},"jsonrpc":"2.0","id":1}
2026-10-10T10:00:00.100Z [info] [files] Message from server: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}
2026-10-10T10:00:00.200Z [info] [vh] Message from client: {"method":"tools/call","params":{"name":"join","arguments":{"call_id":"c1","label":"Kit"}},"jsonrpc":"2.0","id":1}
2026-10-10T10:00:00.300Z [info] [vh] Message from server: {"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"status":"joined"}}}
2026-10-10T10:00:00.400Z [info] [files] Message from server: {"jsonrpc":"2.0","id":1,"result":{"content":[
"#;
        let p = parse(log.as_bytes(), &Options::default());
        // the other server's broken line is not voicehook's business
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        let names: Vec<&str> = p.logs[0]
            .records
            .iter()
            .map(|r| r.as_fn().unwrap().name.as_ref())
            .collect();
        assert_eq!(names, ["join"]);
        // named in the configuration, a server counts whatever its calls
        let opts = Options {
            servers: vec!["files".into()],
            ..Options::default()
        };
        let p = parse(log.as_bytes(), &opts);
        assert_eq!(p.logs[0].records.len(), 2);
        assert_eq!(p.problems.len(), 1, "{:?}", p.problems);
        assert!(p.problems[0].message.contains("ends before"));
    }

    #[test]
    fn messages_without_payloads_are_said_once() {
        let log = "2026-10-10T10:00:00.000Z [voicehook] [info] Message from client: method=tools/call id=1\n\
                   2026-10-10T10:00:00.100Z [voicehook] [info] Message from server: id=1\n\
                   2026-10-10T10:00:01.000Z [voicehook] [info] Message from client: method=tools/call id=2\n";
        let p = parse(log.as_bytes(), &Options::default());
        assert_eq!(p.problems.len(), 1, "{:?}", p.problems);
        assert_eq!(p.problems[0].at.span.start, log.find("Message").unwrap());
        assert!(p.logs[0].records.is_empty());
    }

    #[test]
    fn hostile_lines_never_panic() {
        for src in [
            &b""[..],
            b"2026-10-10T10:00:00.000Z",
            b"2026-10-10T10:00:00.000Z [",
            b"2026-10-10T10:00:00.000Z [info] [",
            b"2026-10-10T10:00:00.000Z [info] [x] Message from client:",
            b"2026-10-10T10:00:00.000Z [info] [x] Message from client: {",
            b"2026-10-10T10:00:00.000Z [info] [x] Message from server: [1,{}]",
            b"2026-10-10T10:00:00.000Z [info] [\xff] Message from server: {\"id\":1,\"result\":5}",
            b"9999 [info] Message from client: {}",
        ] {
            let _ = parse(src, &Options::default());
        }
    }
}
