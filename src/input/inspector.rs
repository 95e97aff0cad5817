//! The MCP Inspector's request history, as copied out of its History
//! pane: a JSON array of `{"request": "...", "response": "..."}`, where
//! each side is itself a JSON text in a string (the JSON-RPC request, and
//! the response or the bare result).
//!
//! Each `tools/call` with its response becomes one function record, as in
//! an MCP trace ([`super::mcp`]); a request without a response is kept
//! without a result. The history keeps no times. Findings point at the
//! request's string, and the texts of an answer at the response's string:
//! the values inside a string have no bytes of their own in the file.

use serde_json::Value;

use super::exchange::{self, Reply, Site};
use super::json::{elements, LineStarts};
use super::{Parsed, Problem};
use crate::core::locate::{locate, skip_ws, value_span};
use crate::model::*;

/// True when `v` looks like an Inspector history: a list of objects with
/// a `request` or a `response`, some `request` a string.
pub(crate) fn is_history(v: &Value) -> bool {
    let Value::Array(items) = v else { return false };
    items.iter().all(|i| {
        i.as_object()
            .is_some_and(|o| o.contains_key("request") || o.contains_key("response"))
    }) && items
        .iter()
        .any(|i| i.get("request").is_some_and(Value::is_string))
}

/// Read an Inspector history.
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut out = Parsed::default();
    let whole: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            out.problems.push(super::json::broken(bytes, 0, &e));
            out.logs.push(Log::default());
            return out;
        }
    };
    let lines = LineStarts::new(bytes);
    let start = skip_ws(bytes, 0);
    let (Value::Array(items), Some(arr)) = (&whole, value_span(bytes, start)) else {
        out.problems.push(Problem::new(
            Anchor::bytes(Span::new(start, (start + 1).min(bytes.len()))),
            "an Inspector history is a JSON list of `{\"request\", \"response\"}` entries".into(),
            Some("copy the whole history from the Inspector's History pane".into()),
        ));
        out.logs.push(Log::default());
        return out;
    };
    let spans = elements(bytes, arr);
    let mut records = Vec::new();
    for (k, (item, span)) in items.iter().zip(spans).enumerate() {
        if let Some(r) = entry(bytes, &lines, item, span, k, &mut out.problems) {
            records.push(r);
        }
    }
    out.logs.push(Log {
        meta: None,
        records,
    });
    out
}

/// The span of the string `key` of the object at `span`, if it is one.
fn string_at(bytes: &[u8], span: Span, key: &'static str) -> Option<Span> {
    let inner = locate(&bytes[span.start..span.end], &Path::ROOT.key(key));
    let s = Span::new(span.start + inner.start, span.start + inner.end);
    (bytes.get(s.start) == Some(&b'"') && s != span).then_some(s)
}

/// The JSON text in a string, or a problem at the string.
fn inner(text: &str, at: Span, side: &str, problems: &mut Vec<Problem>) -> Option<exchange::Obj> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) => Some(o),
        Ok(_) => {
            problems.push(Problem::new(
                Anchor::bytes(at),
                format!("this {side} is JSON but not a message object"),
                Some("the entry was passed over".into()),
            ));
            None
        }
        Err(e) => {
            let what = e.to_string();
            let what = what
                .rsplit_once(" at line ")
                .map_or(what.as_str(), |(a, _)| a);
            problems.push(Problem::new(
                Anchor::bytes(at),
                format!("this {side} is not a JSON message: {what}"),
                Some("each side of a history entry is a JSON text in a string; the entry was passed over".into()),
            ));
            None
        }
    }
}

/// One history entry as a record, when it is a tool call.
fn entry(
    bytes: &[u8],
    lines: &LineStarts,
    item: &Value,
    span: Span,
    order: usize,
    problems: &mut Vec<Problem>,
) -> Option<Record> {
    let o = item.as_object()?;
    let Some(Value::String(req)) = o.get("request") else {
        problems.push(Problem::new(
            Anchor::bytes(span),
            "this history entry has no `request` string".into(),
            Some("the entry was passed over".into()),
        ));
        return None;
    };
    let req_at = string_at(bytes, span, "request").unwrap_or(span);
    let m = inner(req, req_at, "request", problems)?;
    if m.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    // The message is the JSON text inside the string: paths step into it.
    let site = |at: Span| Site {
        line: lines.line(at.start),
        span: at,
        at: Path::ROOT.json(),
        ts: None,
    };
    let call = exchange::call(&m, site(req_at), None, order, problems)?;
    let answer = match o.get("response") {
        Some(Value::String(res)) => {
            let res_at = string_at(bytes, span, "response").unwrap_or(span);
            inner(res, res_at, "response", problems).map(|r| (r, res_at))
        }
        _ => None,
    };
    Some(match answer {
        Some((r, at)) => {
            let rpc =
                r.contains_key("jsonrpc") || r.contains_key("error") || r.contains_key("result");
            let reply = if rpc {
                Reply::Rpc(&r)
            } else {
                Reply::Result(&r)
            };
            exchange::answered(call, reply, site(at), problems)
        }
        None => exchange::unanswered(call, problems),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_each_entry_and_points_at_its_strings() {
        let src = r#"[
  {"request": "{\"method\":\"initialize\",\"params\":{}}", "response": "{\"protocolVersion\":\"2025-06-18\"}"},
  {"request": "{\"method\":\"tools/call\",\"params\":{\"name\":\"join\",\"arguments\":{\"call_id\":\"c1\",\"label\":\"Kit\"}}}",
   "response": "{\"content\":[],\"structuredContent\":{\"status\":\"joined\",\"context\":{\"lang\":\"en\"}}}"},
  {"request": "{\"method\":\"tools/call\",\"params\":{\"name\":\"say\",\"arguments\":{\"text\":\"Hi\"}}}"},
  {"request": "not json"}
]"#;
        let p = parse(src.as_bytes());
        let recs = &p.logs[0].records;
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].line, 3);
        let at = &src[recs[0].span.start..recs[0].span.end];
        assert!(at.starts_with("\"{\\\"method\\\":\\\"tools/call"), "{at}");
        let Op::Join(j) = &recs[0].as_fn().unwrap().op else {
            panic!()
        };
        let lang = j.context.as_ref().unwrap().lang.as_ref().unwrap();
        let within = lang.within().unwrap();
        assert!(src[within.start..within.end].starts_with("\"{\\\"content"));
        // the path steps into the response's JSON text, down to the value
        let inner =
            crate::core::locate::locate(&src.as_bytes()[within.start..within.end], &lang.path);
        assert_eq!(
            &src[within.start + inner.start..within.start + inner.end],
            "en"
        );
        assert!(recs[1].as_fn().unwrap().ok());
        assert_eq!(p.problems.len(), 1, "{:?}", p.problems);
        assert!(p.problems[0].message.contains("not a JSON message"));
    }

    #[test]
    fn hostile_histories_never_panic() {
        for src in [
            &b""[..],
            b"[",
            b"{}",
            b"[1]",
            b"[{\"request\":5}]",
            b"[{\"request\":\"{\\\"method\\\":\\\"tools/call\\\"}\",\"response\":\"[]\"}]",
            b"[{\"request\":\"{\\\"method\\\":\\\"tools/call\\\",\\\"params\\\":{\\\"name\\\":\\\"next\\\"}}\",\"response\":\"{\\\"result\\\":7}\"}]",
        ] {
            let _ = parse(src);
        }
    }
}
