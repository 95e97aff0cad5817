//! The other input shapes callint reads, written from a case's native logs:
//! the MCP trace each agent's client would have recorded, the Claude Code
//! session it would have written, and the room's transcript. Each conversion also says where every native line went, so
//! a case's annotations can be checked in every shape.

use std::collections::{BTreeSet, HashMap};

use serde_json::{json, Value};

/// A native line: file name and 1-based line.
pub type At = (String, usize);

/// Files of one shape, and the line of each native line in them.
pub struct Converted {
    pub files: Vec<(String, Vec<u8>)>,
    pub lines: HashMap<At, At>,
    /// Further lines that stand for the same native line (an MCP
    /// response, for findings on what the server answered), with the line
    /// they stand beside.
    pub alias: HashMap<At, At>,
}

fn records(bytes: &[u8]) -> Vec<(usize, Value)> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter_map(|(i, l)| {
            serde_json::from_slice::<Value>(l)
                .ok()
                .filter(Value::is_object)
                .map(|v| (i + 1, v))
        })
        .collect()
}

/// Every log as an MCP trace: each function record becomes a `tools/call`
/// request and its response (the result as `structuredContent`, an error as
/// a JSON-RPC error), in `{ts, dir, message}` envelopes with the record's
/// time. A finding on a function record lands on its request line. Chat
/// and tool records are not in a trace.
pub fn mcp(logs: &[(String, Vec<u8>)]) -> Converted {
    let mut files = Vec::new();
    let mut lines = HashMap::new();
    let mut alias = HashMap::new();
    for (name, bytes) in logs {
        let mut out = Vec::new();
        let mut n = 0;
        let mut id = 0u64;
        for (line, r) in records(bytes) {
            let Some(fname) = r.get("fn") else { continue };
            id += 1;
            let ts = r.get("ts").cloned().unwrap_or(Value::Null);
            let request = json!({"ts": ts, "dir": "send", "message": {"jsonrpc": "2.0", "id": id,
                "method": "tools/call", "params": {"name": fname,
                "arguments": r.get("args").cloned().unwrap_or(json!({}))}}});
            let message = match r.get("error") {
                Some(e) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000,
                    "message": e.get("message").cloned().unwrap_or(Value::Null), "data": e}}),
                None => json!({"jsonrpc": "2.0", "id": id, "result": {"content": [],
                    "structuredContent": r.get("result").cloned().unwrap_or(json!({}))}}),
            };
            let response = json!({"ts": ts, "dir": "recv", "message": message});
            lines.insert((name.clone(), line), (name.clone(), n + 1));
            alias.insert((name.clone(), n + 2), (name.clone(), n + 1));
            for m in [request, response] {
                out.extend(serde_json::to_vec(&m).expect("JSON"));
                out.push(b'\n');
                n += 1;
            }
        }
        files.push((name.clone(), out));
    }
    Converted {
        files,
        lines,
        alias,
    }
}

/// Every log as the Claude Code session its agent's client would have
/// written: chat as user and assistant entries (`stop_reason: "end_turn"`
/// where the native record ends the turn), each function call as an
/// assistant `tool_use` of the `voicehook` MCP server followed by the user
/// entry with its `tool_result` (the answer as JSON text, a refusal with
/// `is_error`), other tools as `tool_use`s of their own name. Records of
/// another thread are sidechain entries of an agent, started by a `Task`
/// (in the background for the `background` thread). A finding on a record
/// lands on its `tool_use` or chat entry.
pub fn claude(logs: &[(String, Vec<u8>)]) -> Converted {
    let mut files = Vec::new();
    let mut lines = HashMap::new();
    let mut alias = HashMap::new();
    for (name, bytes) in logs {
        let mut out: Vec<Value> = Vec::new();
        let mut agents: HashMap<String, String> = HashMap::new();
        let mut id = 0u64;
        for (line, r) in records(bytes) {
            let ts = r.get("ts").cloned().unwrap_or(Value::Null);
            let thread = r.get("thread").and_then(Value::as_str).unwrap_or("main");
            let mut side: Option<String> = None;
            if thread != "main" {
                if !agents.contains_key(thread) {
                    id += 1;
                    let agent = format!("a{id}");
                    let tid = format!("toolu_task{id}");
                    let input = json!({"description": "Voice call", "prompt": "Open the call",
                        "run_in_background": thread == "background"});
                    out.push(
                        json!({"type": "assistant", "timestamp": ts, "isSidechain": false,
                        "message": {"role": "assistant", "content": [{"type": "tool_use",
                        "id": tid, "name": "Task", "input": input}]}}),
                    );
                    out.push(
                        json!({"type": "user", "timestamp": ts, "isSidechain": false,
                        "toolUseResult": {"status": "async_launched", "agentId": agent},
                        "message": {"role": "user", "content": [{"type": "tool_result",
                        "tool_use_id": tid, "content": "launched"}]}}),
                    );
                    agents.insert(thread.to_string(), agent);
                }
                side = agents.get(thread).cloned();
            }
            let entry = |kind: &str, message: Value| {
                let mut e = json!({"type": kind, "timestamp": ts,
                    "isSidechain": side.is_some(), "message": message});
                if let Some(a) = &side {
                    e["agentId"] = json!(a);
                }
                e
            };
            if let Some(role) = r.get("chat").and_then(Value::as_str) {
                let text = r.get("text").cloned().unwrap_or(json!(""));
                let e = if role == "user" {
                    entry("user", json!({"role": "user", "content": text}))
                } else {
                    let end = r.get("turn_end").and_then(Value::as_bool) == Some(true);
                    entry(
                        "assistant",
                        json!({"role": "assistant", "content":
                        [{"type": "text", "text": text}], "stop_reason": if end { json!("end_turn") } else { Value::Null }}),
                    )
                };
                out.push(e);
                lines.insert((name.clone(), line), (name.clone(), out.len()));
                continue;
            }
            let (tool, args) = match (r.get("fn"), r.get("tool")) {
                (Some(f), _) => (
                    format!("mcp__voicehook__{}", f.as_str().unwrap_or("")),
                    r.get("args"),
                ),
                (_, Some(t)) => (t.as_str().unwrap_or("").to_string(), r.get("args")),
                _ => continue,
            };
            id += 1;
            let tid = format!("toolu_{id}");
            out.push(entry(
                "assistant",
                json!({"role": "assistant", "content": [{"type": "tool_use",
                "id": tid, "name": tool, "input": args.cloned().unwrap_or(json!({}))}],
                "stop_reason": "tool_use"}),
            ));
            lines.insert((name.clone(), line), (name.clone(), out.len()));
            let (text, is_error) = match r.get("error") {
                Some(e) => (e.to_string(), true),
                None => (
                    r.get("result").cloned().unwrap_or(json!({})).to_string(),
                    false,
                ),
            };
            out.push(entry(
                "user",
                json!({"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": tid, "content": [{"type": "text", "text": text}],
                "is_error": is_error}]}),
            ));
            // Findings on what the server answered land on the result.
            alias.insert((name.clone(), out.len()), (name.clone(), out.len() - 1));
        }
        let mut file = Vec::new();
        for (k, mut e) in out.into_iter().enumerate() {
            e["uuid"] = json!(format!("00000000-0000-4000-8000-{k:012}"));
            e["sessionId"] = json!("00000000-0000-4000-8000-aaaaaaaaaaaa");
            file.extend(serde_json::to_vec(&e).expect("JSON"));
            file.push(b'\n');
        }
        files.push((name.clone(), file));
    }
    Converted {
        files,
        lines,
        alias,
    }
}

/// One line of the room.
struct Heard {
    ts: String,
    speaker: String,
    text: String,
    /// Native lines that carried it.
    from: Vec<At>,
}

/// The logs of one call as the room heard it: one transcript,
/// `[hh:mm:ss.mmm] Speaker: text`, with the call language, the human, the
/// voicebot, every recording agent (and the owner) in its header. A line
/// heard by several logs is written once (same speaker and text, within two
/// seconds); a finding on a `say` or on the event that brought a line lands
/// on that line.
pub fn transcript(logs: &[(String, Vec<u8>)]) -> Converted {
    let mut heard: Vec<Heard> = Vec::new();
    // When the language was set, to what, and where in the native logs.
    let mut lang: Vec<(String, String, At)> = Vec::new();
    let mut human: Option<String> = None;
    let mut agents: Vec<String> = Vec::new();
    let mut owner: Option<String> = None;
    let mut push = |ts: &str, speaker: &str, text: &str, at: At| {
        let close = |h: &Heard| {
            h.speaker == speaker && h.text == text && seconds(&h.ts).abs_diff(seconds(ts)) <= 2_000
        };
        match heard.iter_mut().rev().take(64).find(|h| close(h)) {
            Some(h) => h.from.push(at),
            None => heard.push(Heard {
                ts: ts.to_string(),
                speaker: speaker.to_string(),
                text: text.to_string(),
                from: vec![at],
            }),
        }
    };
    for (name, bytes) in logs {
        let mut me: Option<String> = None;
        for (line, r) in records(bytes) {
            let at = (name.clone(), line);
            let ts = r["ts"].as_str().unwrap_or("").to_string();
            if let Some(h) = r["meta"]["human"].as_str() {
                human.get_or_insert(h.to_string());
            }
            match r["fn"].as_str() {
                Some("join") => {
                    if let Some(l) = r["args"]["label"].as_str() {
                        if r.get("error").is_none() {
                            me = Some(l.to_string());
                            if !agents.contains(&me.clone().unwrap()) {
                                agents.push(l.to_string());
                            }
                            if r["result"]["role"] == "owner" {
                                owner = Some(l.to_string());
                            }
                        }
                    }
                    if let Some(l) = r["result"]["context"]["lang"].as_str() {
                        lang.push((ts.clone(), l.to_string(), at.clone()));
                    }
                }
                Some("create_call") => owner = me.clone().or(owner.take()),
                Some("say") => {
                    let dropped = r["result"]["say_status"] == "dropped";
                    if let (Some(me), Some(t), false) = (&me, r["args"]["text"].as_str(), dropped) {
                        push(&ts, me, t, at);
                    }
                }
                Some("next") => {
                    let e = &r["result"];
                    for (key, who) in [("agent_said", "Delta"), ("operators_said", "")] {
                        for l in e[key].as_array().into_iter().flatten() {
                            let who = l["speaker"].as_str().unwrap_or(who);
                            let t = l["ts"].as_str().unwrap_or(&ts);
                            push(t, who, l["text"].as_str().unwrap_or(""), at.clone());
                        }
                    }
                    match e["type"].as_str() {
                        Some("user") => {
                            let who = e["speaker"].as_str().unwrap_or("Human");
                            human.get_or_insert(who.to_string());
                            push(&ts, who, e["text"].as_str().unwrap_or(""), at);
                        }
                        Some("operator") => {
                            let who = e["speaker"].as_str().unwrap_or("");
                            push(&ts, who, e["text"].as_str().unwrap_or(""), at);
                        }
                        Some("context") => {
                            if let Some(l) = e["context"]["lang"].as_str() {
                                lang.push((ts.clone(), l.to_string(), at.clone()));
                            }
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
    }
    // Time order; lines of the same time keep the order they were met in.
    heard.retain(|h| !h.speaker.is_empty() && !h.text.is_empty());
    heard.sort_by_key(|h| seconds(&h.ts));
    lang.sort_by_key(|l| seconds(&l.0));
    let mut out = String::new();
    let mut n = 0;
    let mut line = |out: &mut String, s: String| {
        out.push_str(&s);
        out.push('\n');
        n += 1;
        n
    };
    let mut langs = lang.into_iter().peekable();
    // A `# lang:` header stands for the records that set the language.
    let mut set_at: Vec<(At, usize)> = Vec::new();
    if let Some((_, l, at)) = langs.next() {
        set_at.push((at, line(&mut out, format!("# lang: {l}"))));
    }
    if let Some(h) = &human {
        line(&mut out, format!("# human: {h}"));
    }
    line(&mut out, "# voicebot: Delta".to_string());
    line(&mut out, format!("# agents: {}", agents.join(", ")));
    if let Some(o) = &owner {
        line(&mut out, format!("# owner: {o}"));
    }
    let mut current: Option<String> = None;
    let mut lines = HashMap::new();
    let file = "transcript.txt".to_string();
    let mut said: BTreeSet<At> = BTreeSet::new();
    for h in &heard {
        while langs
            .peek()
            .is_some_and(|(t, _, _)| seconds(t) <= seconds(&h.ts))
        {
            let (_, l, at) = langs.next().unwrap();
            if current.as_deref() != Some(l.as_str()) {
                set_at.push((at, line(&mut out, format!("# lang: {l}"))));
                current = Some(l);
            }
        }
        let k = line(
            &mut out,
            format!("[{}] {}: {}", clock(&h.ts), h.speaker, h.text),
        );
        for at in &h.from {
            // A record that brought several lines stands for the first.
            if said.insert(at.clone()) {
                lines.insert(at.clone(), (file.clone(), k));
            }
        }
    }
    for (at, k) in set_at {
        lines.entry(at).or_insert((file.clone(), k));
    }
    Converted {
        files: vec![(file, out.into_bytes())],
        lines,
        alias: HashMap::new(),
    }
}

/// Milliseconds of the day of an RFC 3339 time (`0` when there is none).
fn seconds(ts: &str) -> u64 {
    let t = ts.get(11..).unwrap_or("");
    let num = |r: std::ops::Range<usize>| t.get(r).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
    let ms = t
        .get(9..12)
        .filter(|_| t.as_bytes().get(8) == Some(&b'.'))
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0);
    ((num(0..2) * 60 + num(3..5)) * 60 + num(6..8)) * 1000 + ms
}

/// `hh:mm:ss.mmm` of an RFC 3339 time.
fn clock(ts: &str) -> String {
    let ms = seconds(ts);
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

/// Every log as the rollout file Codex would have written for it: a
/// `session_meta` line, the user's messages as `user_message` events, the
/// agent's as assistant `message` items, each function call as a
/// `function_call` of the `voicehook` MCP server (its arguments as a JSON
/// string) followed by the `mcp_tool_call_end` event with its answer (a
/// refusal as `isError`), other tools as `function_call`s of their own
/// name with their `function_call_output`. A finding on a record lands on
/// its `function_call` or message line. Threads are not kept apart (a
/// rollout is one thread's).
pub fn codex(logs: &[(String, Vec<u8>)]) -> Converted {
    let mut files = Vec::new();
    let mut lines = HashMap::new();
    let mut alias = HashMap::new();
    for (name, bytes) in logs {
        let recs = records(bytes);
        let first_ts = recs
            .iter()
            .find_map(|(_, r)| r.get("ts").cloned())
            .unwrap_or(json!("2026-10-10T10:00:00.000Z"));
        let mut out: Vec<Value> = vec![json!({"timestamp": first_ts, "type": "session_meta",
            "payload": {"id": "0199a0b0-0000-7000-8000-000000000001", "timestamp": first_ts,
            "cwd": "/work/shop", "originator": "codex_cli_rs", "cli_version": "0.124.0",
            "source": "cli"}})];
        let mut id = 0u64;
        for (line, r) in recs {
            let ts = r.get("ts").cloned().unwrap_or(Value::Null);
            if let Some(role) = r.get("chat").and_then(Value::as_str) {
                let text = r.get("text").cloned().unwrap_or(json!(""));
                out.push(if role == "user" {
                    json!({"timestamp": ts, "type": "event_msg",
                        "payload": {"type": "user_message", "message": text}})
                } else {
                    json!({"timestamp": ts, "type": "response_item",
                        "payload": {"type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": text}]}})
                });
                lines.insert((name.clone(), line), (name.clone(), out.len()));
                continue;
            }
            let args = r.get("args").cloned().unwrap_or(json!({}));
            id += 1;
            let call_id = format!("call_{id}");
            if let Some(f) = r.get("fn").and_then(Value::as_str) {
                out.push(json!({"timestamp": ts, "type": "response_item",
                    "payload": {"type": "function_call", "name": format!("mcp__voicehook__{f}"),
                    "arguments": args.to_string(), "call_id": call_id}}));
                lines.insert((name.clone(), line), (name.clone(), out.len()));
                let result = match r.get("error") {
                    Some(e) => json!({"Ok": {"content": [{"type": "text", "text": e.to_string()}],
                        "isError": true}}),
                    None => {
                        let res = r.get("result").cloned().unwrap_or(json!({}));
                        json!({"Ok": {"content": [{"type": "text", "text": res.to_string()}]}})
                    }
                };
                out.push(json!({"timestamp": ts, "type": "event_msg",
                    "payload": {"type": "mcp_tool_call_end", "call_id": call_id,
                    "invocation": {"server": "voicehook", "tool": f, "arguments": args},
                    "result": result}}));
                alias.insert((name.clone(), out.len()), (name.clone(), out.len() - 1));
            } else if let Some(t) = r.get("tool").and_then(Value::as_str) {
                out.push(json!({"timestamp": ts, "type": "response_item",
                    "payload": {"type": "function_call", "name": t,
                    "arguments": args.to_string(), "call_id": call_id}}));
                lines.insert((name.clone(), line), (name.clone(), out.len()));
                out.push(json!({"timestamp": ts, "type": "response_item",
                    "payload": {"type": "function_call_output", "call_id": call_id,
                    "output": "ok"}}));
            }
        }
        let mut file = Vec::new();
        for e in out {
            file.extend(serde_json::to_vec(&e).expect("JSON"));
            file.push(b'\n');
        }
        files.push((name.clone(), file));
    }
    Converted {
        files,
        lines,
        alias,
    }
}

/// Milliseconds since the epoch of an RFC 3339 time.
fn epoch_ms(ts: &Value) -> Value {
    ts.as_str()
        .and_then(callint::input::ts::parse_rfc3339)
        .map_or(Value::Null, |ms| json!(ms))
}

/// Every log as the session `opencode export` would have written for it,
/// one message a line (`{"info": ..., "messages": [` on the first line,
/// `]}` on the last): the user's and the agent's chat as text parts of
/// user and assistant messages, each function call as an assistant
/// message with the `tool` part `voicehook_<function>` (its answer as the
/// JSON text `state.output`, a refusal as `state.error`), other tools as
/// tool parts of their own name. A finding on a record lands on its
/// message's line. Threads are not kept apart.
pub fn opencode(logs: &[(String, Vec<u8>)]) -> Converted {
    let mut files = Vec::new();
    let mut lines = HashMap::new();
    let mut alias = HashMap::new();
    for (name, bytes) in logs {
        let mut messages: Vec<Value> = Vec::new();
        let mut id = 0u64;
        for (line, r) in records(bytes) {
            let ts = r.get("ts").cloned().unwrap_or(Value::Null);
            let ms = epoch_ms(&ts);
            id += 1;
            let info = |role: &str| {
                json!({"id": format!("msg_{id:04}"), "sessionID": "ses_1", "role": role,
                    "time": {"created": ms}})
            };
            let message = if let Some(role) = r.get("chat").and_then(Value::as_str) {
                let text = r.get("text").cloned().unwrap_or(json!(""));
                json!({"info": info(if role == "user" { "user" } else { "assistant" }),
                    "parts": [{"id": format!("prt_{id:04}"), "type": "text", "text": text}]})
            } else {
                let (tool, server) = match (r.get("fn"), r.get("tool")) {
                    (Some(f), _) => (format!("voicehook_{}", f.as_str().unwrap_or("")), true),
                    (_, Some(t)) => (t.as_str().unwrap_or("tool").to_string(), false),
                    _ => continue,
                };
                let input = r.get("args").cloned().unwrap_or(json!({}));
                let time = json!({"start": ms, "end": ms});
                let state = match (r.get("error"), server) {
                    (Some(e), _) => json!({"status": "error", "input": input,
                        "error": e.get("message").cloned().unwrap_or_else(|| json!(e.to_string())),
                        "time": time}),
                    (None, true) => json!({"status": "completed", "input": input,
                        "output": r.get("result").cloned().unwrap_or(json!({})).to_string(),
                        "time": time}),
                    (None, false) => json!({"status": "completed", "input": input,
                        "output": "ok", "time": time}),
                };
                json!({"info": info("assistant"), "parts": [{"id": format!("prt_{id:04}"),
                    "type": "tool", "tool": tool, "callID": format!("call_{id}"),
                    "state": state}]})
            };
            messages.push(message);
            // Line 1 opens the document; message k is on line k + 1.
            lines.insert((name.clone(), line), (name.clone(), messages.len() + 1));
        }
        let _ = &mut alias;
        let head = json!({"id": "ses_1", "title": "Voice call", "version": "1.0.0"});
        let mut file = format!("{{\"info\":{head},\"messages\":[\n");
        for (k, m) in messages.iter().enumerate() {
            file.push_str(&m.to_string());
            file.push_str(if k + 1 < messages.len() { ",\n" } else { "\n" });
        }
        file.push_str("]}\n");
        files.push((name.clone(), file.into_bytes()));
    }
    Converted {
        files,
        lines,
        alias,
    }
}

/// Every log as the session Gemini CLI would have recorded for it
/// (`packages/core/src/services/chatRecordingService.ts` and
/// `chatRecordingTypes.ts` of google-gemini/gemini-cli): its metadata
/// line, then one message a line, each followed by the `$set` of
/// `lastUpdated` the client writes after a message. The user's chat is a
/// `user` message (its text as a part), the agent's a `gemini` message
/// (`content` its text), each function call a `gemini` message whose
/// `toolCalls` holds the call of `mcp_voicehook_<function>` with its
/// result as the client records it (the `functionResponse` whose `output`
/// holds the server's text inside `<untrusted_context>` markers; a refusal
/// as the `error` status with the client's "reported tool error" text),
/// other tools as tool calls of their own name. A finding on a record
/// lands on its message's line. Threads are not kept apart (a session
/// file is one thread's).
pub fn gemini(logs: &[(String, Vec<u8>)]) -> Converted {
    let mut files = Vec::new();
    let mut lines = HashMap::new();
    let alias = HashMap::new();
    for (name, bytes) in logs {
        let recs = records(bytes);
        let first_ts = recs
            .iter()
            .find_map(|(_, r)| r.get("ts").cloned())
            .unwrap_or(json!("2026-10-10T10:00:00.000Z"));
        let mut out: Vec<Value> = vec![json!({"sessionId": "5f0e7c1a-0000-4000-8000-000000000001",
            "projectHash": "9c4b2f0e1d3a5b7c9e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d",
            "startTime": first_ts, "lastUpdated": first_ts, "kind": "main"})];
        let mut id = 0u64;
        for (line, r) in recs {
            let ts = r.get("ts").cloned().unwrap_or(Value::Null);
            id += 1;
            let mid = format!("7b3e{id:04}-0000-4000-8000-000000000000");
            let message = if let Some(role) = r.get("chat").and_then(Value::as_str) {
                let text = r.get("text").cloned().unwrap_or(json!(""));
                if role == "user" {
                    json!({"id": mid, "timestamp": ts, "type": "user", "content": [{"text": text}]})
                } else {
                    json!({"id": mid, "timestamp": ts, "type": "gemini", "content": text,
                        "thoughts": [], "tokens": {"input": 812, "output": 9, "cached": 0,
                        "thoughts": 0, "tool": 0, "total": 821}, "model": "gemini-2.5-pro"})
                }
            } else {
                let (tool, server, f) = match (r.get("fn"), r.get("tool")) {
                    (Some(f), _) => {
                        let f = f.as_str().unwrap_or("");
                        (format!("mcp_voicehook_{f}"), true, f.to_string())
                    }
                    (_, Some(t)) => {
                        let t = t.as_str().unwrap_or("tool");
                        (t.to_string(), false, t.to_string())
                    }
                    _ => continue,
                };
                let args = r.get("args").cloned().unwrap_or(json!({}));
                let call_id = format!("{tool}-1791626400{id:03}-{id:x}");
                let (status, output, display) = match (r.get("error"), server) {
                    (Some(e), true) => {
                        let raw = json!([{"functionResponse": {"name": f, "response":
                            {"content": [{"type": "text", "text": e.to_string()}], "isError": true}}}]);
                        let call = json!({"name": f, "args": args});
                        (
                            "error",
                            format!("MCP tool '{f}' reported tool error for function call: {call} with response: {raw}"),
                            format!("Error: MCP tool '{f}' reported an error."),
                        )
                    }
                    (None, true) => {
                        let res = r.get("result").cloned().unwrap_or(json!({})).to_string();
                        (
                            "success",
                            format!("<untrusted_context>\n{res}\n</untrusted_context>"),
                            res,
                        )
                    }
                    (_, false) => ("success", "ok".to_string(), "ok".to_string()),
                };
                json!({"id": mid, "timestamp": ts, "type": "gemini", "content": "",
                    "toolCalls": [{"id": call_id, "name": tool, "args": args,
                    "result": [{"functionResponse": {"id": call_id, "name": tool,
                    "response": {"output": output}}}],
                    "status": status, "timestamp": ts,
                    "displayName": if server { format!("{f} (voicehook MCP Server)") } else { f.clone() },
                    "description": "", "resultDisplay": display, "renderOutputAsMarkdown": server}],
                    "thoughts": [], "model": "gemini-2.5-pro"})
            };
            out.push(message);
            lines.insert((name.clone(), line), (name.clone(), out.len()));
            out.push(json!({"$set": {"lastUpdated": ts}}));
        }
        let mut file = Vec::new();
        for e in out {
            file.extend(serde_json::to_vec(&e).expect("JSON"));
            file.push(b'\n');
        }
        files.push((name.clone(), file));
    }
    Converted {
        files,
        lines,
        alias,
    }
}
