//! The two halves of a `tee` capture: what an MCP client wrote to a
//! server's standard input and what the server wrote to its standard
//! output, saved as two files of JSON-RPC lines
//! (`command | tee x.in.jsonl | server | tee x.out.jsonl`).
//!
//! The halves are read as one trace: every message of either file, a
//! request or a response as its shape says, paired by id as in an MCP
//! trace ([`super::mcp`]). A capture has no times, so the records are in
//! the order their answers came out of the server (calls still waiting
//! when the capture ended come last).
//!
//! The two files are read as one text, the input half first: [`parse_pair`]
//! gives spans in that text, and [`crate::lint::engine::Linter::lint_pair`]
//! hands each finding back to the file it points into. A call is its
//! request, in the input half; the texts of its answer point into the
//! output half.
//!
//! Halves pair by their names: `x.in.jsonl` with `x.out.jsonl`,
//! `x.stdin` with `x.stdout`, `stdin` with `stdout` in one folder
//! ([`pairs`]).

use serde_json::Value;

use super::exchange::{self, id_of, Pairing, Reply, Site};
use super::json::{self, lines};
use super::{Options, Parsed, Problem};
use crate::model::*;

/// Which half of a capture a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Half {
    /// What the client sent: the server's standard input.
    In,
    /// What the server answered: its standard output.
    Out,
}

/// The half a file's name says it is, and the name with that word taken
/// out (two files with the same rest are the halves of one capture).
pub fn half(path: &str) -> Option<(String, Half)> {
    let (dir, name) = match path.rfind(['/', '\\']) {
        Some(k) => (&path[..=k], &path[k + 1..]),
        None => ("", path),
    };
    let lower = name.to_ascii_lowercase();
    let mut found = None;
    let mut start = 0;
    for (i, c) in lower
        .char_indices()
        .chain(std::iter::once((lower.len(), '.')))
    {
        if matches!(c, '.' | '-' | '_') {
            let word = &lower[start..i];
            let h = match word {
                "in" | "stdin" => Some(Half::In),
                "out" | "stdout" => Some(Half::Out),
                _ => None,
            };
            if let Some(h) = h {
                found = Some((start, i, h));
            }
            start = i + 1;
        }
    }
    let (a, b, h) = found?;
    let word = &lower[a..b];
    let style = if word.starts_with("std") { "std" } else { "" };
    Some((
        format!("{dir}{}\u{0}{style}\u{0}{}", &name[..a], &name[b..]),
        h,
    ))
}

/// The halves among `paths` that pair by name: `(input, output)` indices.
/// A name pairs with at most one other.
pub fn pairs(paths: &[&str]) -> Vec<(usize, usize)> {
    let mut ins: crate::core::hash::HashMap<String, usize> = crate::core::hash::HashMap::default();
    let mut outs: crate::core::hash::HashMap<String, usize> = crate::core::hash::HashMap::default();
    for (i, p) in paths.iter().enumerate() {
        match half(p) {
            Some((k, Half::In)) => {
                ins.entry(k).or_insert(i);
            }
            Some((k, Half::Out)) => {
                outs.entry(k).or_insert(i);
            }
            None => {}
        }
    }
    let mut out: Vec<(usize, usize)> = ins
        .into_iter()
        .filter_map(|(k, i)| Some((i, *outs.get(&k)?)))
        .collect();
    out.sort();
    out
}

/// Read a capture's two halves as one trace. Spans are in the text of
/// `input` followed by `output`.
pub fn parse_pair(input: &[u8], output: &[u8], _opts: &Options) -> Parsed {
    let mut pairing = Pairing::default();
    let mut problems = Vec::new();
    // Calls never answered come after every answer.
    let late = output.len() + 1;
    for (half, bytes, offset) in [(Half::In, input, 0), (Half::Out, output, input.len())] {
        for (k, l) in lines(bytes).into_iter().enumerate() {
            let span = Span::new(l.span.start + offset, l.span.end + offset);
            let raw = &bytes[l.span.start..l.span.end];
            if raw.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let Some(value) = json::line_value(raw, span.start, &mut problems) else {
                continue;
            };
            let order = match half {
                Half::In => late + k,
                Half::Out => k,
            };
            for (m, at) in super::mcp::batch(&value, Path::ROOT) {
                let site = Site {
                    line: l.no,
                    span,
                    at,
                    ts: None,
                };
                let Value::Object(m) = m else {
                    problems.push(not_a_message(span, at));
                    continue;
                };
                let id = id_of(m);
                if let Some(method) = m.get("method") {
                    if method.as_str() != Some("tools/call") {
                        pairing.asked(id);
                    } else if let Some(call) =
                        exchange::call(m, site, None, order, &mut pairing.problems)
                    {
                        pairing.request(id, call);
                    }
                } else if m.contains_key("result") || m.contains_key("error") {
                    if let Some(id) = id {
                        pairing.response(Some(&id), None, Reply::Rpc(m), site, order);
                    }
                } else {
                    problems.push(not_a_message(span, at));
                }
            }
        }
    }
    let (records, found, _) = pairing.finish();
    problems.extend(found);
    Parsed {
        logs: vec![Log {
            meta: None,
            records,
        }],
        problems,
        ..Parsed::default()
    }
}

/// One half read alone (`--input-format tee` on a single file): its
/// messages as a trace without times.
pub fn parse(bytes: &[u8], opts: &Options) -> Parsed {
    parse_pair(bytes, b"", opts)
}

fn not_a_message(span: Span, path: Path) -> Problem {
    Problem::new(
        Anchor { span, path },
        "this is not a JSON-RPC message: it has neither `method` nor `result` or `error`".into(),
        Some("a capture of a server's input or output holds one JSON-RPC message a line; this line was passed over".into()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_pair() {
        let names = [
            "cap/x.in.jsonl",
            "cap/x.out.jsonl",
            "cap/stdin",
            "cap/stdout",
            "cap/y.stdin.log",
            "cap/y.out.log",
            "other/stdout",
            "cap/check-in.jsonl",
            "cap/z_stdout.jsonl",
            "cap/z_stdin.jsonl",
        ];
        let got = pairs(&names);
        assert_eq!(got, [(0, 1), (2, 3), (9, 8)]);
        assert_eq!(half("a/B.STDIN").map(|h| h.1), Some(Half::In));
        assert_eq!(half("a/notes.txt"), None);
    }

    #[test]
    fn halves_read_as_one_trace() {
        let input = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"next","arguments":{}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"say","arguments":{"text":"Hi"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"leave"}}
"#;
        let output = br#"{"jsonrpc":"2.0","id":0,"result":{}}
{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"say_id":"s1","say_status":"queued"}}}
{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"type":"timeout"}}}
{"jsonrpc":"2.0","id":9,"result":{"content":[]}}
not json
"#;
        let p = parse_pair(input, output, &Options::default());
        let recs = &p.logs[0].records;
        let names: Vec<&str> = recs
            .iter()
            .map(|r| r.as_fn().unwrap().name.as_ref())
            .collect();
        assert_eq!(names, ["say", "next", "leave"]);
        assert_eq!(recs[0].line, 3);
        assert!(recs[0].span.end <= input.len());
        assert!(recs.iter().all(|r| r.ts.is_none()));
        // the orphan answer and the broken line, in the output half
        assert_eq!(p.problems.len(), 2, "{:?}", p.problems);
        assert!(p.problems.iter().all(|q| q.at.span.start >= input.len()));
    }
}
