//! Recordings of the mcp-debug proxy (`mcp-debug --proxy --record FILE`):
//! `#` comment lines, a header object (`start_time`, `server_info`,
//! written over several lines), then one message a line:
//!
//! ```json
//! {"timestamp":"2026-10-10T10:00:04.1+02:00","direction":"request","message_type":"tool_call","tool_name":"voicehook_say","server_name":"voicehook","message":{"method":"tools/call","params":{"name":"voicehook_say","arguments":{"text":"Hi"}}}}
//! {"timestamp":"2026-10-10T10:00:04.3+02:00","direction":"response","message_type":"tool_call","tool_name":"voicehook_say","server_name":"voicehook","message":{"content":[{"type":"text","text":"{\"say_id\":\"s1\"}"}]}}
//! ```
//!
//! A request keeps the tool call without its JSON-RPC id, and a response
//! is the tool's result itself, so calls are paired in order: an answer
//! goes to the oldest waiting call of the same tool (an id, where a
//! recorder keeps one, pairs by id). The proxy prefixes each tool with its
//! server (`voicehook_say`); only the voicehook server's calls are kept
//! ([`super::server`]). Findings point into the message of a line.

use serde_json::Value;

use super::exchange::{self, id_of, PerServer, Reply, Site};
use super::json::{self, lines};
use super::{ts, Options, Parsed, Problem};
use crate::core::locate::value_span;
use crate::model::*;

/// True when `o` is a recording's header (`start_time`, `server_info`).
pub(crate) fn is_header(o: &serde_json::Map<String, Value>) -> bool {
    o.contains_key("start_time") && o.contains_key("server_info") && !o.contains_key("direction")
}

/// True when `o` is one message line of a recording.
pub(crate) fn is_message(o: &serde_json::Map<String, Value>) -> bool {
    o.contains_key("direction")
        && o.contains_key("message")
        && (o.contains_key("message_type") || o.contains_key("tool_name"))
}

/// Read an mcp-debug recording.
pub fn parse(bytes: &[u8], opts: &Options) -> Parsed {
    let mut servers = PerServer::default();
    let mut problems = Vec::new();
    let mut skip_to = 0usize;
    let mut seen_content = false;
    for (order, l) in lines(bytes).into_iter().enumerate() {
        if l.span.start < skip_to {
            continue;
        }
        let raw = &bytes[l.span.start..l.span.end];
        let text = raw.trim_ascii();
        if text.is_empty() || text.starts_with(b"#") {
            continue;
        }
        let first = !seen_content;
        seen_content = true;
        if first && text.starts_with(b"{") {
            // The header, pretty-printed over several lines.
            let start = l.span.start + (raw.len() - raw.trim_ascii_start().len());
            if let Some(s) = value_span(bytes, start) {
                if let Ok(Value::Object(o)) =
                    serde_json::from_slice::<Value>(&bytes[s.start..s.end])
                {
                    if is_header(&o) {
                        skip_to = s.end;
                        continue;
                    }
                }
            }
        }
        let Some(value) = json::line_value(raw, l.span.start, &mut problems) else {
            continue;
        };
        let Value::Object(o) = value else {
            problems.push(not_a_message(l.span));
            continue;
        };
        if is_header(&o) {
            continue;
        }
        let Some(Value::Object(m)) = o.get("message") else {
            problems.push(not_a_message(l.span));
            continue;
        };
        let ts = match o.get("timestamp").or_else(|| o.get("ts")) {
            Some(Value::String(s)) => ts::parse_rfc3339(s),
            _ => None,
        };
        let site = Site {
            line: l.no,
            span: l.span,
            at: Path::ROOT.key("message"),
            ts,
        };
        let tool = o.get("tool_name").and_then(Value::as_str);
        let server = o
            .get("server_name")
            .and_then(Value::as_str)
            .or_else(|| tool.and_then(|t| t.split_once('_')).map(|(s, _)| s))
            .unwrap_or("");
        // The proxy prefixes each tool with its server's name.
        let tool = tool.map(|t| {
            t.strip_prefix(server)
                .and_then(|t| t.strip_prefix('_'))
                .filter(|t| !t.is_empty())
                .unwrap_or(t)
        });
        let kind = o.get("message_type").and_then(Value::as_str);
        let is_call = kind == Some("tool_call")
            || m.get("method").and_then(Value::as_str) == Some("tools/call");
        let pairing = servers.get(server);
        match o.get("direction").and_then(Value::as_str) {
            Some("request") => {
                if !is_call {
                    pairing.asked(id_of(m));
                    continue;
                }
                if let Some(call) = exchange::call(m, site, tool, order, &mut pairing.problems) {
                    pairing.request(id_of(m), call);
                }
            }
            Some("response") => {
                if !is_call && kind.is_some() {
                    continue;
                }
                let rpc = m.contains_key("jsonrpc")
                    || m.contains_key("error")
                    || (m.contains_key("result") && m.contains_key("id"));
                let reply = if rpc { Reply::Rpc(m) } else { Reply::Result(m) };
                let id = id_of(m);
                pairing.response(id.as_deref(), tool, reply, site, order);
            }
            other => {
                let what = match other {
                    Some(d) => format!(
                        "unknown direction {}: a recording's messages go `request` or `response`",
                        crate::core::escape::quote(d, 30)
                    ),
                    None => "this message says no `direction` (`request` or `response`)".into(),
                };
                problems.push(Problem::new(
                    Anchor {
                        span: l.span,
                        path: Path::ROOT.key("direction"),
                    },
                    what,
                    Some("without it a message cannot be paired; it was passed over".into()),
                ));
            }
        }
    }
    let kept = servers.finish(opts);
    problems.extend(kept.problems);
    Parsed {
        logs: vec![Log {
            meta: None,
            records: kept.records,
        }],
        problems,
        ..Parsed::default()
    }
}

fn not_a_message(span: Span) -> Problem {
    Problem::new(
        Anchor::bytes(span),
        "this is not a recorded message: it should be an object with `direction` and a `message` object".into(),
        Some("the line was passed over; the rest of the recording was still linted".into()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const REC: &str = r##"# MCP Recording Session
# Started: 2026-10-10T12:00:00+02:00
{
  "start_time": "2026-10-10T12:00:00.000000001+02:00",
  "server_info": "Dynamic MCP Proxy v1.0.0",
  "messages": []
}
{"timestamp":"2026-10-10T12:00:01.5+02:00","direction":"request","message_type":"tool_call","tool_name":"voicehook_join","server_name":"voicehook","message":{"method":"tools/call","params":{"name":"voicehook_join","arguments":{"call_id":"c1","label":"Kit"}}}}
{"timestamp":"2026-10-10T12:00:01.6+02:00","direction":"request","message_type":"tool_call","tool_name":"voicehook_say","server_name":"voicehook","message":{"method":"tools/call","params":{"name":"voicehook_say","arguments":{"text":"Hi, this is Kit."}}}}
{"timestamp":"2026-10-10T12:00:02+02:00","direction":"response","message_type":"tool_call","tool_name":"voicehook_say","server_name":"voicehook","message":{"content":[{"type":"text","text":"{\"say_id\":\"s1\",\"say_status\":\"queued\"}"}]}}
{"timestamp":"2026-10-10T12:00:03+02:00","direction":"response","message_type":"tool_call","tool_name":"voicehook_join","server_name":"voicehook","message":{"content":[{"type":"text","text":"label taken"}],"isError":true}}
"##;

    #[test]
    fn pairs_calls_in_order_of_their_tool() {
        let p = parse(REC.as_bytes(), &Options::default());
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        let recs = &p.logs[0].records;
        let names: Vec<&str> = recs
            .iter()
            .map(|r| r.as_fn().unwrap().name.as_ref())
            .collect();
        assert_eq!(names, ["say", "join"]);
        assert_eq!(recs[0].line, 9);
        assert_eq!(recs[0].ts, ts::parse_rfc3339("2026-10-10T10:00:02Z"));
        let Op::Say(s) = &recs[0].as_fn().unwrap().op else {
            panic!()
        };
        assert_eq!(s.say_status.as_deref(), Some("queued"));
        assert_eq!(
            s.text.as_ref().unwrap().path.to_string(),
            "message.params.arguments.text"
        );
        let err = recs[1].as_fn().unwrap().error.as_ref().unwrap();
        assert_eq!(err.message.as_deref(), Some("label taken"));
    }

    #[test]
    fn bad_lines_are_said_and_skipped() {
        let src = format!(
            "{REC}{}\n{}\n[]\n{}",
            r#"{"timestamp":"x","direction":"sideways","message_type":"tool_call","tool_name":"voicehook_say","message":{}}"#,
            r#"{"timestamp":"x","direction":"response","message_type":"tool_call","tool_name":"voicehook_next","message":{"content":[]}}"#,
            r#"{"timestamp":"2026-10-10T12:00:09+02:00","direction":"request","#
        );
        let p = parse(src.as_bytes(), &Options::default());
        assert_eq!(p.logs[0].records.len(), 2);
        let msgs: Vec<&str> = p.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(msgs.len(), 4, "{msgs:#?}");
        assert!(msgs[0].contains("unknown direction"));
        assert!(msgs[1].contains("not a recorded message"));
        assert!(msgs[2].contains("ends before"));
        assert!(msgs[3].contains("no request"));
    }
}
