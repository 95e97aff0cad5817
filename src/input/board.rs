//! Boards (`.json`): one `status` payload (`label?`, `emoji`, `doing`,
//! `open`, `done`) or a list of them (docs/formats.md), for
//! pre-commit checks of board templates. A full `status` record (`fn`,
//! `args`) is read too. Each board is linted on its own, as a `status` call
//! of the agent its `label` names.

use serde_json::{Map, Value};

use super::json::{self, LineStarts, Place, Places, Read};
use super::{native, Parsed, Problem};
use crate::model::*;

/// Read a board file: one log per board.
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut problems = Vec::new();
    let mut logs = Vec::new();
    if let Err(e) = std::str::from_utf8(bytes) {
        let at = e.valid_up_to();
        problems.push(Problem::new(
            Anchor::bytes(Span::new(at, at + e.error_len().unwrap_or(1))),
            format!("this file is not valid UTF-8 (byte 0x{:02x})", bytes[at]),
            Some("a board is a JSON file, which is UTF-8 text".into()),
        ));
        return Parsed {
            logs,
            problems,
            ..Parsed::default()
        };
    }
    let starts = LineStarts::new(bytes);
    let reads = json::values(bytes, Span::new(super::bom_len(bytes), bytes.len()));
    if let Some(Read::Value(span, _)) = reads.get(1) {
        // `[][]`, `{}{}`: no JSON document, and so no board file.
        problems.push(Problem::new(
            Anchor::bytes(Span::new(span.start, span.start + 1)),
            "a second JSON value starts here: a JSON file holds one value".into(),
            Some("a board file holds one `status` payload or a list of them: put the boards in one list `[{...}, {...}]`; nothing in this file was checked".into()),
        ));
        return Parsed {
            logs,
            problems,
            ..Parsed::default()
        };
    }
    for read in reads {
        match read {
            Read::Broken(p) => problems.push(p),
            Read::Value(span, Value::Array(items)) => {
                let spans = json::elements(bytes, span);
                for (item, s) in items.iter().zip(spans) {
                    one(item, s, &starts, &mut logs, &mut problems);
                }
            }
            Read::Value(span, v) => one(&v, span, &starts, &mut logs, &mut problems),
        }
    }
    Parsed {
        logs,
        problems,
        ..Parsed::default()
    }
}

fn one(
    v: &Value,
    span: Span,
    starts: &LineStarts,
    logs: &mut Vec<Log>,
    problems: &mut Vec<Problem>,
) {
    let Value::Object(o) = v else {
        problems.push(not_a_board(span));
        return;
    };
    let Some(rec) = status_record(o, span, starts.line(span.start), problems) else {
        problems.push(not_a_board(span));
        return;
    };
    logs.push(Log {
        meta: None,
        records: vec![rec],
    });
}

fn not_a_board(span: Span) -> Problem {
    Problem::new(
        Anchor::bytes(span),
        "this is not a board: a board is an object with `emoji`, `doing`, `open` and `done`".into(),
        Some("a board file holds one `status` payload or a list of them".into()),
    )
}

/// A `status` record from a board payload or a full `status` record at
/// `span`; `None` when the object is neither.
pub(crate) fn status_record(
    o: &Map<String, Value>,
    span: Span,
    line: u32,
    problems: &mut Vec<Problem>,
) -> Option<Record> {
    let is_record = o.get("fn").and_then(Value::as_str) == Some("status");
    let args_only = !o.contains_key("fn")
        && o.get("args")
            .and_then(Value::as_object)
            .is_some_and(|a| json::payload_fn(a) == Some("status"));
    let (obj, places) = if is_record || args_only {
        (o.clone(), None)
    } else if json::payload_fn(o) == Some("status") {
        let mut m = Map::new();
        m.insert("args".into(), Value::Object(o.clone()));
        let root = Place::at(Path::ROOT);
        (
            m,
            Some(Places {
                args: root,
                result: root,
                error: root,
            }),
        )
    } else {
        return None;
    };
    let mut found = Vec::new();
    let mut f = native::read_fn_call("status", obj, span, &mut found);
    if let Some(p) = places {
        p.relocate(&mut f.op);
        p.relocate_problems(span, &mut found);
    }
    problems.extend(found);
    let agent = match &f.op {
        Op::Status(b) => b.label.as_ref().map(|l| Name::from(&*l.value)),
        _ => None,
    };
    Some(Record::new(line, span, Body::Fn(f)).from(agent, None, Thread::Main))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(r: &Record) -> &Board {
        match &r.as_fn().unwrap().op {
            Op::Status(b) => b,
            _ => panic!(),
        }
    }

    #[test]
    fn one_board_or_a_list() {
        let src = "[\n  {\"label\":\"Kiwi\",\"emoji\":\"🥝\",\"doing\":\"x\",\"open\":[\"a\",\"b\"],\"done\":[]},\n  {\"doing\":\"y\",\"open\":[\"6 Entscheidungen\"]},\n  {\"fn\":\"status\",\"args\":{\"emoji\":\"✅\"}},\n  5\n]";
        let p = parse(src.as_bytes());
        assert_eq!(p.logs.len(), 3);
        assert_eq!(p.problems.len(), 1);
        let r = &p.logs[1].records[0];
        assert_eq!(r.line, 3);
        let item = &board(r).open[0];
        assert_eq!(item.path.to_string(), "open[0]");
        let s = crate::core::locate::locate(&src.as_bytes()[r.span.start..r.span.end], &item.path);
        assert_eq!(
            &src[r.span.start + s.start..r.span.start + s.end],
            "\"6 Entscheidungen\""
        );
        assert_eq!(p.logs[0].records[0].agent(), Some("Kiwi"));
        assert_eq!(
            board(&p.logs[2].records[0])
                .emoji
                .as_ref()
                .unwrap()
                .path
                .to_string(),
            "args.emoji"
        );
    }

    #[test]
    fn bad_input() {
        for src in [
            &b""[..],
            b"{",
            b"[{\"open\":5}]",
            b"{\"open\":[1,{}]}",
            b"\xff",
            b"{\"a\":1}",
            b"null",
        ] {
            let _ = parse(src);
        }
        let p = parse(b"{\"open\":[1]}");
        assert_eq!(p.problems[0].at.path.to_string(), "open[0]");
        let deep = "[".repeat(10_000);
        assert_eq!(parse(deep.as_bytes()).problems.len(), 1);
    }
}
