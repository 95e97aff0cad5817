//! The live engine's answer is `check`'s answer in every shape a client
//! writes a session in, however its JSON is written.
//!
//! Every corpus call kept as native logs is written as the Claude Code
//! session, the Codex rollout, the Gemini CLI session, the opencode
//! session and the MCP trace its
//! agent's client would have written (`common::convert`), each compact,
//! with a space after every `:` and `,`, and with every object's keys in
//! reverse order. At every voicehook call of each, the call is judged as
//! the client's hook (or the proxy) hands it over, from the session as it
//! was just before the call: read fresh, and from the state kept since the
//! call before (the guard's cache for Claude Code, Codex and Gemini CLI, the proxy's
//! session; opencode's plugin hands over the whole session, so its is the
//! fresh read). The rules found on the pending
//! call must be exactly those `check` finds on that line of the file as it
//! was while the call was pending (the call written, its answer not yet),
//! among the rules that can judge a pending call.
//!
//! `check` on the whole file may know more about a call than anyone could
//! while it was pending: the server's answer to it (a `join`'s peers) or a
//! later event (the say was dropped, so nothing was heard). Those calls
//! are counted and printed (`-- --nocapture`), not compared.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};

use callint::app::guard::client::{self, Client};
use callint::app::guard::{Keep, Verdict};
use callint::app::proxy::Judge;
use callint::lint::config::Config;
use callint::lint::engine::Linter;

use crate::common::{self, convert, scratch};
use crate::guard_agrees::write;

/// A case's files: name and bytes.
type Files = Vec<(String, Vec<u8>)>;

/// A conversion of a case's native logs into another shape.
type Convert = fn(&[(String, Vec<u8>)]) -> convert::Converted;

/// The serialisations: (spaced, reversed, name).
const SERIALISATIONS: [(bool, bool, &str); 3] = [
    (false, false, "compact"),
    (true, false, "spaced"),
    (false, true, "reversed"),
];

fn written(v: &Value, spaced: bool, reversed: bool) -> String {
    let mut s = String::new();
    write(v, spaced, reversed, &mut s);
    s
}

/// The rules `check` finds per line of a file, among those that can judge
/// a pending call.
fn check_findings(linter: &Linter, name: &str, bytes: &[u8]) -> BTreeMap<usize, BTreeSet<String>> {
    let f = linter.lint(name, bytes.to_vec());
    let index = callint::core::lines::LineIndex::new(&f.source);
    let mut m: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    for d in &f.diagnostics {
        if callint::rules::judges_pending(d.rule) {
            let line = callint::core::lines::resolve(&f.source, &index, &d.primary.at).line;
            m.entry(line).or_default().insert(d.rule.to_string());
        }
    }
    m
}

fn rules_of(v: &Verdict) -> BTreeSet<String> {
    match v {
        Verdict::Allow(_) | Verdict::Unread(_) => BTreeSet::new(),
        Verdict::Judged(found) => found.iter().map(|d| d.rule.to_string()).collect(),
    }
}

fn ms(ts: &Value) -> i64 {
    ts.as_str()
        .and_then(callint::input::ts::parse_rfc3339)
        .unwrap_or(0)
}

/// What one shape's run found: calls judged, denied, and the differences.
#[derive(Default)]
struct Tally {
    judged: usize,
    denied: usize,
    wrong: Vec<String>,
    /// Calls on which `check` of the whole file finds otherwise.
    later: Vec<String>,
}

impl Tally {
    /// `got`, the live answer, against `want` (check while the call was
    /// pending) and `whole` (check on the whole file), at one call.
    fn compare(
        &mut self,
        what: String,
        got: BTreeSet<String>,
        want: Option<&BTreeSet<String>>,
        whole: Option<&BTreeSet<String>>,
    ) {
        let want = want.cloned().unwrap_or_default();
        let whole = whole.cloned().unwrap_or_default();
        self.judged += 1;
        self.denied += usize::from(!got.is_empty());
        if got != want {
            self.wrong
                .push(format!("{what}: live {got:?}, check {want:?}"));
        }
        if whole != want {
            self.later
                .push(format!("{what}: pending {want:?}, whole file {whole:?}"));
        }
    }
}

/// The native cases of the corpus: each case's files, when all of them are
/// native logs.
fn native_cases() -> Vec<(String, Files)> {
    let mut out = Vec::new();
    for case in common::corpus_cases() {
        let logs: Vec<(String, Vec<u8>)> = common::case_logs(&case)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .map(|p| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).unwrap(),
                )
            })
            .collect();
        let native = !logs.is_empty()
            && logs.iter().all(|(_, b)| {
                b.split(|&c| c == b'\n')
                    .find(|l| !l.iter().all(u8::is_ascii_whitespace))
                    .and_then(|l| serde_json::from_slice::<Value>(l).ok())
                    .is_some_and(|v| {
                        ["fn", "chat", "tool", "meta"]
                            .iter()
                            .any(|k| v.get(k).is_some())
                    })
            });
        if native {
            out.push((
                case.file_name().unwrap().to_string_lossy().into_owned(),
                logs,
            ));
        }
    }
    assert!(out.len() >= 15, "{} native cases", out.len());
    out
}

/// The lines of a JSON-lines file, each written again.
fn rewrite_lines(bytes: &[u8], spaced: bool, reversed: bool) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| written(&serde_json::from_str(l).unwrap(), spaced, reversed))
        .collect()
}

fn linter() -> Linter {
    Linter::new(&Config::default(), None, &[]).unwrap()
}

/// Claude Code sessions and Codex rollouts: at each voicehook call, the
/// hook input names the file as it was before the call.
fn transcript_shape(client: Client, dir: &Path, tally: &mut Tally) {
    let linter = linter();
    let cache = dir.join("cache");
    let (convert, suffix): (Convert, _) = match client {
        Client::ClaudeCode => (convert::claude, "claude"),
        Client::Gemini => (convert::gemini, "gemini"),
        _ => (convert::codex, "codex"),
    };
    for (case, logs) in native_cases() {
        for (file, bytes) in convert(&logs).files {
            for (spaced, reversed, ser) in SERIALISATIONS {
                let lines = rewrite_lines(&bytes, spaced, reversed);
                let name = format!("{ser}-{case}-{file}-{suffix}.jsonl");
                let whole = lines.join("\n") + "\n";
                let found = check_findings(&linter, &name, whole.as_bytes());
                let growing = dir.join(format!("grow-{name}"));
                let mut grow = std::fs::File::create(&growing).unwrap();
                let mut written_to = 0;
                for (i, l) in lines.iter().enumerate() {
                    let e: Value = serde_json::from_str(l).unwrap();
                    let calls: Vec<(String, Value, Value)> = match client {
                        Client::ClaudeCode if e["type"] == "assistant" => e["message"]["content"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter(|b| {
                                b["type"] == "tool_use"
                                    && b["name"].as_str().is_some_and(|n| n.starts_with("mcp__"))
                            })
                            .map(|b| {
                                (
                                    b["name"].as_str().unwrap().to_string(),
                                    b["input"].clone(),
                                    e["timestamp"].clone(),
                                )
                            })
                            .collect(),
                        Client::Codex
                            if e["type"] == "response_item"
                                && e["payload"]["type"] == "function_call"
                                && e["payload"]["name"]
                                    .as_str()
                                    .is_some_and(|n| n.starts_with("mcp__")) =>
                        {
                            let args: Value =
                                serde_json::from_str(e["payload"]["arguments"].as_str().unwrap())
                                    .unwrap();
                            vec![(
                                e["payload"]["name"].as_str().unwrap().to_string(),
                                args,
                                e["timestamp"].clone(),
                            )]
                        }
                        // Gemini CLI records a call once it completed: the
                        // hook sees the session without it.
                        Client::Gemini if e["type"] == "gemini" => e["toolCalls"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter(|c| c["name"].as_str().is_some_and(|n| n.starts_with("mcp_")))
                            .map(|c| {
                                (
                                    c["name"].as_str().unwrap().to_string(),
                                    c["args"].clone(),
                                    c["timestamp"].clone(),
                                )
                            })
                            .collect(),
                        _ => Vec::new(),
                    };
                    if calls.is_empty() {
                        continue;
                    }
                    let cut = dir.join(format!("cut-{name}"));
                    std::fs::write(&cut, lines[..i].join("\n") + "\n").unwrap();
                    // The file while the call was pending: for Gemini CLI,
                    // its message with the call not yet answered.
                    let pending_line = match client {
                        Client::Gemini => {
                            let mut m = e.clone();
                            for c in m["toolCalls"].as_array_mut().unwrap() {
                                let c = c.as_object_mut().unwrap();
                                c.remove("result");
                                c.remove("resultDisplay");
                                c.insert("status".into(), json!("executing"));
                            }
                            written(&m, spaced, reversed)
                        }
                        _ => l.clone(),
                    };
                    let pending_file = lines[..i].join("\n") + "\n" + &pending_line + "\n";
                    let at_pending = check_findings(&linter, &name, pending_file.as_bytes());
                    for l in &lines[written_to..i] {
                        writeln!(grow, "{l}").unwrap();
                    }
                    grow.flush().unwrap();
                    written_to = i;
                    for (tool, input, ts) in calls {
                        let mut hook = json!({"hook_event_name": "PreToolUse", "tool_name": tool,
                            "tool_input": input, "cwd": dir});
                        if client == Client::Gemini {
                            // packages/core/src/hooks/types.ts: BeforeToolInput
                            let own = tool.strip_prefix("mcp_voicehook_").unwrap_or(&tool);
                            hook["hook_event_name"] = json!("BeforeTool");
                            hook["mcp_context"] =
                                json!({"server_name": "voicehook", "tool_name": own});
                            hook["timestamp"] = ts.clone();
                        }
                        if e["isSidechain"] == true {
                            hook["agent_id"] = e["agentId"].clone();
                        }
                        for keep in [false, true] {
                            hook["transcript_path"] = json!(if keep { &growing } else { &cut });
                            hook["session_id"] = json!(format!("{name}-{keep}"));
                            let pending = client.read(hook.to_string().as_bytes()).unwrap();
                            let k = Keep {
                                dir: &cache,
                                rewrite_after: 0,
                            };
                            let (v, _) =
                                client::judge(&linter, &pending, ms(&ts), keep.then_some(k));
                            tally.compare(
                                format!(
                                    "{ser} {case}/{file} ({suffix}):{} {}",
                                    i + 1,
                                    if keep { "kept" } else { "fresh" }
                                ),
                                rules_of(&v),
                                at_pending.get(&(i + 1)),
                                found.get(&(i + 1)),
                            );
                        }
                    }
                }
            }
        }
    }
}

fn assert_agrees(shape: &str, tally: &Tally) {
    println!(
        "{shape}: {} calls judged, {} denied, {} differ from check while pending; on {} check of the whole file knows more:\n  {}",
        tally.judged,
        tally.denied,
        tally.wrong.len(),
        tally.later.len(),
        tally.later.join("\n  ")
    );
    assert!(
        tally.wrong.is_empty(),
        "{shape}: {} of {} differ:\n{}",
        tally.wrong.len(),
        tally.judged,
        tally.wrong.join("\n")
    );
    assert!(
        tally.judged > 1000 && tally.denied > 100,
        "{shape}: {} judged, {} denied",
        tally.judged,
        tally.denied
    );
}

/// What the guard keeps between runs is the session reader's state: every
/// corpus call as a Claude Code session and as a Codex rollout, in every
/// serialisation, read a line at a time (the state written as MessagePack
/// and read back after every line), reads as read whole.
#[test]
fn sessions_read_in_parts_read_as_read_whole() {
    use callint::input::{Client as Shape, Format};
    let mut cuts = 0;
    for (case, logs) in native_cases() {
        for (format, convert) in [
            (
                Format::Session(Shape::ClaudeCode),
                convert::claude as Convert,
            ),
            (Format::Session(Shape::Codex), convert::codex),
            (Format::Session(Shape::Gemini), convert::gemini),
        ] {
            for (file, bytes) in convert(&logs).files {
                for (spaced, reversed, ser) in SERIALISATIONS {
                    let whole = rewrite_lines(&bytes, spaced, reversed).join("\n") + "\n";
                    let whole = whole.as_bytes();
                    let breaks: Vec<usize> = whole
                        .iter()
                        .enumerate()
                        .filter(|(_, &b)| b == b'\n')
                        .map(|(k, _)| k + 1)
                        .collect();
                    callint::app::harness::check_parts(format, whole, &breaks)
                        .unwrap_or_else(|e| panic!("{ser} {case}/{file} ({format:?}): {e}"));
                    cuts += breaks.len();
                }
            }
        }
    }
    assert!(cuts > 5000, "{cuts}");
}

#[test]
fn claude_code_sessions_agree_with_check() {
    let mut t = Tally::default();
    transcript_shape(Client::ClaudeCode, &scratch(), &mut t);
    assert_agrees("claude-code", &t);
}

#[test]
fn codex_rollouts_agree_with_check() {
    let mut t = Tally::default();
    transcript_shape(Client::Codex, &scratch(), &mut t);
    assert_agrees("codex", &t);
}

#[test]
fn gemini_sessions_agree_with_check() {
    let mut t = Tally::default();
    transcript_shape(Client::Gemini, &scratch(), &mut t);
    assert_agrees("gemini", &t);
}

#[test]
fn opencode_sessions_agree_with_check() {
    let linter = linter();
    let mut t = Tally::default();
    for (case, logs) in native_cases() {
        for (file, bytes) in convert::opencode(&logs).files {
            let doc: Value = serde_json::from_slice(&bytes).unwrap();
            let messages = doc["messages"].as_array().unwrap();
            for (spaced, reversed, ser) in SERIALISATIONS {
                let body: Vec<String> = messages
                    .iter()
                    .map(|m| written(m, spaced, reversed))
                    .collect();
                let whole = format!(
                    "{{\"info\":{},\"messages\":[\n{}\n]}}\n",
                    written(&doc["info"], spaced, reversed),
                    body.join(",\n")
                );
                let name = format!("{ser}-{case}-{file}.json");
                let found = check_findings(&linter, &name, whole.as_bytes());
                for (k, m) in messages.iter().enumerate() {
                    let Some(part) = m["parts"].as_array().and_then(|p| p.first()) else {
                        continue;
                    };
                    let tool = part["tool"].as_str().unwrap_or("");
                    if part["type"] != "tool" || !tool.starts_with("voicehook_") {
                        continue;
                    }
                    // As opencode's client lists them, from JSON written
                    // this way.
                    let before: Vec<Value> = body[..k]
                        .iter()
                        .map(|s| serde_json::from_str(s).unwrap())
                        .collect();
                    let hook = json!({"hook_event_name": "tool.execute.before", "tool": tool,
                        "session_id": "ses_1", "call_id": part["callID"],
                        "tool_input": part["state"]["input"], "messages": before});
                    let pending = Client::Opencode.read(hook.to_string().as_bytes()).unwrap();
                    let now = m["info"]["time"]["created"].as_i64().unwrap_or(0);
                    let (v, _) = client::judge(&linter, &pending, now, None);
                    // The session while the call was pending: the tool
                    // running, its answer not yet there.
                    let mut running = m.clone();
                    running["parts"][0]["state"] = json!({"status": "running",
                        "input": part["state"]["input"], "time": {"start": now}});
                    let mut body_then: Vec<String> = body[..k].to_vec();
                    body_then.push(written(&running, spaced, reversed));
                    let then = format!(
                        "{{\"info\":{},\"messages\":[\n{}\n]}}\n",
                        written(&doc["info"], spaced, reversed),
                        body_then.join(",\n")
                    );
                    let at_pending = check_findings(&linter, &name, then.as_bytes());
                    t.compare(
                        format!("{ser} {case}/{file} (opencode):{}", k + 2),
                        rules_of(&v),
                        at_pending.get(&(k + 2)),
                        found.get(&(k + 2)),
                    );
                }
            }
        }
    }
    assert_agrees("opencode", &t);
}

#[test]
fn mcp_traces_through_the_proxy_agree_with_check() {
    let linter = Arc::new(linter());
    let mut t = Tally::default();
    for (case, logs) in native_cases() {
        for (file, bytes) in convert::mcp(&logs).files {
            for (spaced, reversed, ser) in SERIALISATIONS {
                let lines = rewrite_lines(&bytes, spaced, reversed);
                let name = format!("{ser}-{case}-{file}-mcp.jsonl");
                let found = check_findings(&linter, &name, (lines.join("\n") + "\n").as_bytes());
                // One proxy session that saw every message so far, and a
                // new one per call that is handed the trace before it.
                let mut kept = Judge::new(linter.clone());
                for (i, l) in lines.iter().enumerate() {
                    let e: Value = serde_json::from_str(l).unwrap();
                    let line = format!("{l}\n");
                    if e["message"]["method"] == "tools/call" {
                        let mut fresh = Judge::new(linter.clone());
                        for before in &lines[..i] {
                            let v: Value = serde_json::from_str(before).unwrap();
                            fresh.note(&v["message"], format!("{before}\n").as_bytes());
                        }
                        let at_pending = check_findings(
                            &linter,
                            &name,
                            (lines[..=i].join("\n") + "\n").as_bytes(),
                        );
                        for (judge, how) in [(&mut kept, "kept"), (&mut fresh, "fresh")] {
                            let got: BTreeSet<String> = judge
                                .pending(line.as_bytes())
                                .iter()
                                .map(|d| d.rule.to_string())
                                .collect();
                            t.compare(
                                format!("{ser} {case}/{file} (mcp):{} {how}", i + 1),
                                got,
                                at_pending.get(&(i + 1)),
                                found.get(&(i + 1)),
                            );
                        }
                    }
                    kept.note(&e["message"], line.as_bytes());
                }
            }
        }
    }
    assert_agrees("mcp", &t);
}

/// What a client hands its hook after one voicehook call of a session
/// line: the tool's name, arguments, id, the answer as the hook input
/// holds it (`tool_response`), and the call's time.
struct DoneCall {
    tool: String,
    input: Value,
    id: String,
    response: Value,
    ts: Value,
}

/// The voicehook calls of line `i` of a session of `client`, each with its
/// answer (looked for in the lines after it), as the post-tool hook gets
/// them: Claude Code's and Codex's `PostToolUse` hand the MCP
/// `CallToolResult` (`content`, `isError`), Gemini CLI's `AfterTool`
/// `{llmContent, returnDisplay, error}` (packages/core/src/hooks/types.ts).
fn done_calls(client: Client, lines: &[String], i: usize) -> Vec<DoneCall> {
    let e: Value = serde_json::from_str(&lines[i]).unwrap();
    let later = || {
        lines[i + 1..]
            .iter()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
    };
    let result = |text: String, error: bool| json!({"content": [{"type": "text", "text": text}], "isError": error});
    match client {
        Client::ClaudeCode if e["type"] == "assistant" => e["message"]["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| {
                b["type"] == "tool_use"
                    && b["name"]
                        .as_str()
                        .is_some_and(|n| n.starts_with("mcp__voicehook__"))
            })
            .map(|b| {
                let id = b["id"].as_str().unwrap().to_string();
                let answer = later()
                    .flat_map(|l| l["message"]["content"].as_array().cloned().unwrap_or_default())
                    .find(|r| r["type"] == "tool_result" && r["tool_use_id"] == id.as_str())
                    .unwrap_or(Value::Null);
                let text = answer["content"][0]["text"].as_str().unwrap_or("").to_string();
                DoneCall {
                    tool: b["name"].as_str().unwrap().to_string(),
                    input: b["input"].clone(),
                    response: result(text, answer["is_error"] == true),
                    id,
                    ts: e["timestamp"].clone(),
                }
            })
            .collect(),
        Client::Codex
            if e["type"] == "response_item"
                && e["payload"]["type"] == "function_call"
                && e["payload"]["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("mcp__voicehook__")) =>
        {
            let id = e["payload"]["call_id"].as_str().unwrap().to_string();
            let end = later()
                .find(|l| {
                    l["payload"]["type"] == "mcp_tool_call_end"
                        && l["payload"]["call_id"] == id.as_str()
                })
                .unwrap_or(Value::Null);
            let ok = &end["payload"]["result"]["Ok"];
            let text = ok["content"][0]["text"].as_str().unwrap_or("").to_string();
            vec![DoneCall {
                tool: e["payload"]["name"].as_str().unwrap().to_string(),
                input: serde_json::from_str(e["payload"]["arguments"].as_str().unwrap()).unwrap(),
                response: result(text, ok["isError"] == true),
                id,
                ts: e["timestamp"].clone(),
            }]
        }
        Client::Gemini if e["type"] == "gemini" => e["toolCalls"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| {
                c["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("mcp_voicehook_"))
            })
            .map(|c| {
                let output = c["result"][0]["functionResponse"]["response"]["output"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
                let error = c["status"] == "error";
                DoneCall {
                    tool: c["name"].as_str().unwrap().to_string(),
                    input: c["args"].clone(),
                    response: json!({"llmContent": [{"text": output}], "returnDisplay": c["resultDisplay"],
                        "error": if error { json!({"message": output}) } else { Value::Null }}),
                    id: c["id"].as_str().unwrap_or("").to_string(),
                    ts: c["timestamp"].clone(),
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A finding as told and as `check` makes it: its rule and the time of
/// the record it is about (its words may grow with what follows: a name
/// learnt later, a window that closed).
type Key = (String, Option<i64>);

/// The findings `check` makes of the rules that judge a line only once
/// what follows it is known, counted.
fn after_findings(linter: &Linter, name: &str, bytes: &[u8]) -> BTreeMap<Key, usize> {
    let f = linter.lint(name, bytes.to_vec());
    let mut m = BTreeMap::new();
    for d in &f.diagnostics {
        if callint::rules::looks_ahead(d.rule)
            && d.severity > callint::core::diagnostic::Severity::Info
        {
            *m.entry((d.rule.to_string(), d.ts)).or_insert(0) += 1;
        }
    }
    m
}

/// What the feedback after calls told over sessions of one shape, against
/// `check`.
#[derive(Default)]
struct Told {
    sessions: usize,
    calls: usize,
    told: usize,
    wrong: Vec<String>,
}

/// The feedback after each voicehook call of every corpus session in the
/// shape `client` writes, compact and spaced, read fresh and from the kept
/// state: each finding is told once (as the guard's notes do), and what is
/// told over the session is exactly what `check` finds, of the rules that
/// look ahead, on the session as it was once the last voicehook call was
/// answered; each told is among `check`'s findings on the whole file too.
fn feedback_shape(client: Client, dir: &Path) -> Told {
    use callint::app::guard::feedback;
    let linter = linter();
    let (convert, suffix): (Convert, _) = match client {
        Client::ClaudeCode => (convert::claude, "claude"),
        Client::Gemini => (convert::gemini, "gemini"),
        _ => (convert::codex, "codex"),
    };
    let (after, _) = feedback::events(client).unwrap();
    let mut t = Told::default();
    for (case, logs) in native_cases() {
        for (file, bytes) in convert(&logs).files {
            for (spaced, reversed, ser) in &SERIALISATIONS[..2] {
                let lines = rewrite_lines(&bytes, *spaced, *reversed);
                let name = format!("{ser}-{case}-{file}-{suffix}.jsonl");
                for keep in [false, true] {
                    let cache = dir.join(format!("fb-cache-{keep}"));
                    let mut keys = std::collections::HashSet::new();
                    let mut got: BTreeMap<Key, usize> = BTreeMap::new();
                    let mut last_answer = None;
                    let cut = dir.join(format!("fb-{keep}-{name}"));
                    for i in 0..lines.len() {
                        for call in done_calls(client, &lines, i) {
                            // What the file holds when the hook runs: the
                            // call written (Gemini CLI records it only
                            // later), its answer not yet.
                            let upto = if client == Client::Gemini { i } else { i + 1 };
                            std::fs::write(&cut, lines[..upto].join("\n") + "\n").unwrap();
                            let mut hook = json!({"hook_event_name": after, "session_id": format!("{name}-{keep}"),
                                "transcript_path": cut, "cwd": dir, "tool_name": call.tool,
                                "tool_input": call.input, "tool_use_id": call.id,
                                "tool_response": call.response});
                            if client == Client::Gemini {
                                let own = call
                                    .tool
                                    .strip_prefix("mcp_voicehook_")
                                    .unwrap()
                                    .to_string();
                                hook["mcp_context"] =
                                    json!({"server_name": "voicehook", "tool_name": own});
                                hook.as_object_mut().unwrap().remove("tool_use_id");
                            }
                            let e: Value = serde_json::from_str(&lines[i]).unwrap();
                            if e["isSidechain"] == true {
                                hook["agent_id"] = e["agentId"].clone();
                            }
                            let done = feedback::read(client, hook.to_string().as_bytes()).unwrap();
                            let k = Keep {
                                dir: &cache,
                                rewrite_after: 0,
                            };
                            t.calls += 1;
                            match feedback::judge(
                                &linter,
                                &done,
                                &[],
                                ms(&call.ts),
                                keep.then_some(k),
                            ) {
                                feedback::Feedback::Found(found) => {
                                    for f in found {
                                        if keys.insert(f.key.clone()) {
                                            t.told += 1;
                                            *got.entry((
                                                f.finding.rule.to_string(),
                                                f.finding.ts,
                                            ))
                                            .or_insert(0) += 1;
                                        }
                                    }
                                }
                                feedback::Feedback::Unjudged(why) => t
                                    .wrong
                                    .push(format!("{name}:{} {keep}: not judged: {why:?}", i + 1)),
                            }
                            last_answer = Some(i);
                        }
                    }
                    let Some(last) = last_answer else { continue };
                    t.sessions += 1;
                    // The session once the last call was answered: up to
                    // the line that answers it.
                    let e: Value = serde_json::from_str(&lines[last]).unwrap();
                    let end = match client {
                        Client::Gemini => last + 1,
                        _ => {
                            let ids: Vec<String> = done_calls(client, &lines, last)
                                .into_iter()
                                .map(|c| c.id)
                                .collect();
                            let _ = e;
                            lines[last + 1..]
                                .iter()
                                .position(|l| ids.iter().any(|id| l.contains(&format!("\"{id}\""))))
                                .map_or(last + 1, |k| last + 2 + k)
                        }
                    };
                    let want =
                        after_findings(&linter, &name, (lines[..end].join("\n") + "\n").as_bytes());
                    if got != want {
                        t.wrong.push(format!(
                            "{name} ({}): told {got:?}, check after the last call {want:?}",
                            if keep { "kept" } else { "fresh" }
                        ));
                    }
                    let whole =
                        after_findings(&linter, &name, (lines.join("\n") + "\n").as_bytes());
                    for (k, n) in &got {
                        if whole.get(k).copied().unwrap_or(0) < *n {
                            t.wrong.push(format!(
                                "{name}: told {k:?}, which check of the whole file does not find"
                            ));
                        }
                    }
                }
            }
        }
    }
    t
}

fn assert_told(shape: &str, t: &Told) {
    println!(
        "{shape}: {} sessions, {} calls, {} findings told, {} differ",
        t.sessions,
        t.calls,
        t.told,
        t.wrong.len()
    );
    assert!(
        t.wrong.is_empty(),
        "{shape}: {} differ:\n{}",
        t.wrong.len(),
        t.wrong.join("\n")
    );
    assert!(
        t.calls > 500 && t.told > 20,
        "{shape}: {} calls, {} told",
        t.calls,
        t.told
    );
}

#[test]
fn feedback_after_calls_agrees_with_check_claude_code() {
    let t = feedback_shape(Client::ClaudeCode, &scratch());
    assert_told("claude-code", &t);
}

#[test]
fn feedback_after_calls_agrees_with_check_codex() {
    let t = feedback_shape(Client::Codex, &scratch());
    assert_told("codex", &t);
}

#[test]
fn feedback_after_calls_agrees_with_check_gemini() {
    let t = feedback_shape(Client::Gemini, &scratch());
    assert_told("gemini", &t);
}
