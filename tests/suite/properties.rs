//! Property tests: whatever the bytes, read in every input format and by
//! format detection, linted with every rule and written by every renderer,
//! the invariants of `callint::app::harness` hold (no panic, positions inside
//! the input, no raw control character in the pretty output, JSON and
//! SARIF that parse).
//!
//! Three generators: any bytes; JSON-ish lines built from the field names
//! of the log format, with wrong types, cut lines, escapes, NUL bytes,
//! invalid UTF-8 and deep nesting; and the same records in the shapes of
//! the other inputs (MCP envelopes, transcript lines, fenced blocks).

use callint::app::harness;
use callint::input::Format;
use callint::lint::engine::Linter;
use proptest::prelude::*;
use proptest::test_runner::Config as PropConfig;

/// Names under which detection runs for every generated input.
const DETECT_AS: &[&str] = &["call.jsonl", "room.txt", "board.json", "-"];

fn linter() -> &'static Linter {
    static L: std::sync::OnceLock<Linter> = std::sync::OnceLock::new();
    L.get_or_init(harness::linter)
}

/// Every format and detection under a few names; the first broken
/// invariant as the error.
fn holds_everywhere(bytes: &[u8], formats: &[Format]) -> Result<(), String> {
    for &f in formats {
        harness::lint(linter(), "input", bytes, Some(f)).map_err(|e| format!("{f:?}: {e}"))?;
    }
    for name in DETECT_AS {
        harness::lint(linter(), name, bytes, None).map_err(|e| format!("as {name}: {e}"))?;
    }
    Ok(())
}

/// Keys of the call log (docs/formats.md): record keys, arguments, results, events, lines,
/// MCP and board keys.
const KEYS: &[&str] = &[
    "ts",
    "agent",
    "call",
    "thread",
    "fn",
    "args",
    "result",
    "error",
    "chat",
    "text",
    "turn_end",
    "tool",
    "meta",
    "format",
    "recorder",
    "client",
    "human",
    "voicebot",
    "lang",
    "title",
    "call_id",
    "link",
    "share_text",
    "label",
    "emoji",
    "greet",
    "quiet",
    "status",
    "instructions",
    "context",
    "role",
    "say_id",
    "say_status",
    "reason",
    "doing",
    "open",
    "done",
    "peers",
    "operators",
    "board",
    "question",
    "options",
    "decision_id",
    "panel",
    "url",
    "mode",
    "functions",
    "rules",
    "skill_url",
    "type",
    "operators_said",
    "agent_said",
    "speaker",
    "op",
    "model",
    "addressed_to",
    "addressed_to_you",
    "to_human",
    "answer",
    "message",
    "jsonrpc",
    "id",
    "method",
    "params",
    "name",
    "arguments",
    "content",
    "structuredContent",
    "isError",
    "dir",
    "path",
    "command",
];

/// Values those keys take, and some they should not.
const WORDS: &[&str] = &[
    "create_call",
    "join",
    "next",
    "say",
    "status",
    "activity",
    "decide",
    "show",
    "share",
    "notice",
    "leave",
    "user",
    "timeout",
    "operator",
    "revise",
    "context",
    "decision",
    "status_request",
    "waiting_for_human",
    "assistant",
    "main",
    "subagent",
    "fork",
    "background",
    "owner",
    "participant",
    "joined",
    "queued",
    "spoken",
    "dropped",
    "addressed_other",
    "en",
    "de",
    "Delta",
    "Oliver",
    "opencode",
    "Promo",
    "tools/call",
    "2.0",
    "send",
    "recv",
    "board",
    "edit_file",
    "teleport",
    "",
];

/// Timestamps: dates, dates going backwards, and things that are not dates.
const STAMPS: &[&str] = &[
    "2026-10-10T09:00:00.000Z",
    "2026-10-10T09:00:05Z",
    "2026-10-10T08:59:59+02:00",
    "2026-10-10T09:00:01.5-01:30",
    "1970-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999999999Z",
    "2026-02-30T25:61:61Z",
    "yesterday",
    "",
    "-1",
    "2026-10-10",
    "T",
];

/// Texts with what terminals and JSON parsers trip over.
fn hostile_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "Promo, is the build green?",
        "On it",
        "Delta, what time is it?",
        "Mach ich sofort",
        "\u{1b}[2J",
        "\u{1b}]0;title\u{7}",
        "\u{1b}]8;;https://x\u{1b}\\",
        "\u{7}",
        "\u{9b}31m",
        "\u{85}",
        "\u{202e}",
        "\u{2066}",
        "\0",
        "\r",
        "\t",
        "\u{7f}",
        "\u{feff}",
        "😀",
        "ü",
        "https://voicehook.ai/c/abc",
        "6 decisions",
        "A, B and C",
        " ",
    ]);
    prop::collection::vec(pieces, 0..6).prop_map(|v| v.concat())
}

/// A JSON value from the log format's vocabulary, of any type.
fn value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(WORDS).prop_map(Value::from),
        prop::sample::select(STAMPS).prop_map(Value::from),
        hostile_text().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..5).prop_map(|kv| {
                serde_json::Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

/// One native record: a known kind with fields of the right shape or of
/// any type.
fn record() -> impl Strategy<Value = serde_json::Value> {
    (
        prop::sample::select(&["fn", "chat", "tool", "meta", "none"][..]),
        prop::sample::select(WORDS),
        prop::option::of(prop::sample::select(STAMPS)),
        prop::collection::vec((prop::sample::select(KEYS), value()), 0..4),
        value(),
        value(),
    )
        .prop_map(|(kind, word, ts, extra, args, result)| {
            let mut o = serde_json::Map::new();
            if let Some(ts) = ts {
                o.insert("ts".into(), ts.into());
            }
            if kind != "none" {
                o.insert(kind.into(), word.into());
            }
            o.insert("args".into(), args);
            o.insert("result".into(), result);
            for (k, v) in extra {
                o.insert(k.to_string(), v);
            }
            serde_json::Value::Object(o)
        })
}

/// What is done to a line after it is written.
#[derive(Clone, Debug)]
enum Damage {
    None,
    /// Cut at this fraction of its length (in bytes, maybe inside a
    /// character).
    Cut(u8),
    /// These bytes put in at this fraction.
    Insert(u8, Vec<u8>),
    /// Wrapped in this many brackets.
    Nest(usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        4 => Just(Damage::None),
        1 => any::<u8>().prop_map(Damage::Cut),
        1 => (
            any::<u8>(),
            prop::sample::select(vec![
                b"\0".to_vec(),
                b"\xff".to_vec(),
                b"\xc3".to_vec(),
                b"\xed\xa0\x80".to_vec(),
                b"\x1b[31m".to_vec(),
                b"\n".to_vec(),
                b"\"".to_vec(),
                b"\\u0000".to_vec(),
                b"\\ud800".to_vec(),
            ])
        )
            .prop_map(|(at, b)| Damage::Insert(at, b)),
        1 => (1usize..3000).prop_map(Damage::Nest),
    ]
}

fn apply(line: Vec<u8>, d: &Damage) -> Vec<u8> {
    let at = |f: u8| line.len() * usize::from(f) / 255;
    match d {
        Damage::None => line,
        Damage::Cut(f) => line[..at(*f)].to_vec(),
        Damage::Insert(f, b) => {
            let k = at(*f);
            [&line[..k], b.as_slice(), &line[k..]].concat()
        }
        Damage::Nest(n) => [b"[".repeat(*n), line, b"]".repeat(*n)].concat(),
    }
}

/// The shape a generated record is written in.
#[derive(Clone, Copy, Debug)]
enum Shape {
    Native,
    /// A JSON-RPC `tools/call` request and its response, maybe enveloped.
    Mcp,
    /// `[hh:mm:ss] Speaker: text`.
    Transcript,
    /// Inside a fenced block of a markdown prompt.
    Fenced,
}

fn write(shape: Shape, i: usize, rec: &serde_json::Value) -> Vec<u8> {
    let s = |v: &serde_json::Value| serde_json::to_string(v).unwrap_or_default();
    match shape {
        Shape::Native => s(rec).into_bytes(),
        Shape::Mcp => {
            let name = rec.get("fn").cloned().unwrap_or_default();
            let req = serde_json::json!({"jsonrpc": "2.0", "id": i % 3, "method": "tools/call",
                "params": {"name": name, "arguments": rec.get("args")}});
            let res = serde_json::json!({"jsonrpc": "2.0", "id": i % 3,
                "result": {"content": [{"type": "text", "text": s(rec.get("result").unwrap_or(&serde_json::Value::Null))}],
                           "structuredContent": rec.get("result"), "isError": i.is_multiple_of(2)}});
            let (req, res) = if i.is_multiple_of(2) {
                (
                    serde_json::json!({"ts": rec.get("ts"), "dir": "send", "message": req}),
                    serde_json::json!({"ts": rec.get("ts"), "dir": "recv", "message": res}),
                )
            } else {
                (req, res)
            };
            format!("{}\n{}", s(&req), s(&res)).into_bytes()
        }
        Shape::Transcript => {
            let text = rec
                .get("args")
                .and_then(|a| a.get("text"))
                .and_then(|t| t.as_str())
                .map_or_else(|| s(rec), str::to_string);
            let speaker = rec.get("fn").and_then(|v| v.as_str()).unwrap_or("Oliver");
            let header = match i % 7 {
                0 => "# lang: de\n",
                3 => "# agents: opencode, Promo\n",
                5 => "# human: Oliver\n",
                _ => "",
            };
            let h = (i * 37) % 30;
            format!("{header}[10:{h:02}:{:02}] {speaker}: {text}", (i * 13) % 60).into_bytes()
        }
        Shape::Fenced => {
            let tag = ["json", "jsonl", "", "python", "sh", "ts"][i % 6];
            format!("Example {i}:\n```{tag}\n{}\n```", s(rec)).into_bytes()
        }
    }
}

fn file() -> impl Strategy<Value = (Shape, Vec<u8>)> {
    (
        prop::sample::select(vec![
            Shape::Native,
            Shape::Mcp,
            Shape::Transcript,
            Shape::Fenced,
        ]),
        prop::collection::vec((record(), damage()), 1..8),
        any::<bool>(),
    )
        .prop_map(|(shape, recs, crlf)| {
            let end: &[u8] = if crlf { b"\r\n" } else { b"\n" };
            let mut out = Vec::new();
            for (i, (rec, d)) in recs.iter().enumerate() {
                out.extend(apply(write(shape, i, rec), d));
                out.extend_from_slice(end);
            }
            (shape, out)
        })
}

proptest! {
    #![proptest_config(PropConfig { cases: 256, ..PropConfig::default() })]

    #[test]
    fn any_bytes_in_any_format(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let r = holds_everywhere(&bytes, harness::FORMATS);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }

    #[test]
    fn any_text_in_any_format(text in "[\\[\\]{}\":,#`0-9a-zA-Z \n\u{1b}\u{7}\u{9b}\u{202e}ü-]{0,400}") {
        let r = holds_everywhere(text.as_bytes(), harness::FORMATS);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}

proptest! {
    #![proptest_config(PropConfig { cases: 128, ..PropConfig::default() })]

    #[test]
    fn log_shaped_lines_in_every_shape((shape, bytes) in file()) {
        // The shape's own format first, then every other one.
        let own = match shape {
            Shape::Native => Format::Native,
            Shape::Mcp => Format::Mcp,
            Shape::Transcript => Format::Transcript,
            Shape::Fenced => Format::Prompt,
        };
        let mut formats = vec![own];
        formats.extend(harness::FORMATS.iter().copied().filter(|f| *f != own));
        let r = holds_everywhere(&bytes, &formats);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}

proptest! {
    #![proptest_config(PropConfig { cases: 512, ..PropConfig::default() })]

    /// Any text after an `&` in a cue (where a character reference may
    /// start), read as SRT, WebVTT and a text transcript: every invariant
    /// holds, whatever characters fall where the reference's window ends.
    #[test]
    fn any_text_after_an_ampersand_in_a_cue(
        before in "\\PC{0,4}",
        after in "\\PC{0,24}",
        semi in any::<bool>(),
    ) {
        let cue = format!("{before}&{after}{}", if semi { ";" } else { "" });
        let srt = format!("1\n00:00:01,000 --> 00:00:02,000\n{cue}\n");
        let vtt = format!("WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n<v Ann>{cue}\nBo: {cue}\n");
        let txt = format!("[00:00:01] Ann: {cue}\n");
        for (bytes, f) in [(srt, Format::Srt), (vtt, Format::Vtt), (txt, Format::Transcript)] {
            let r = harness::lint(linter(), "input", bytes.as_bytes(), Some(f));
            prop_assert!(r.is_ok(), "{f:?} {bytes:?}: {}", r.unwrap_err());
        }
    }
}
