//! A small fake of the voicehook MCP server, for the proxy's tests and
//! bench: not the real service. A hidden command of the binary:
//!
//! ```text
//! callint fake-mcp [--replay TRACE] [--http ADDR [--sse]] [--die-after N]
//!          [--garbage-after N] [--silent]
//! ```
//!
//! On standard input and output (one JSON-RPC message a line), or as a
//! streamable-HTTP server on ADDR (127.0.0.1 only; it prints `port N`
//! first). It answers `initialize`, `tools/list`, `ping` and `tools/call`
//! of the voicehook functions with plausible results (`join` joins an
//! English call, `say` queues, `next` brings a line of the human's), or,
//! with `--replay`, with the responses of a recorded MCP trace, by request
//! id, their times in `result._meta["callint/ts"]`. Tools for the tests:
//! `echo` (its arguments back), `flood` (`n` notifications, then the
//! result), `seen` (the `seq` of every `notifications/test` received, in
//! order), `headers` (a checksum of the request's `authorization` header,
//! and its `mcp-*` headers; HTTP only).
//! `--die-after N` exits after the Nth message without answering it,
//! `--garbage-after N` answers the Nth with a line that is not JSON,
//! `--silent` never answers a `tools/call`. `--sessions` keeps sessions as a
//! server of the 2025 protocols only does: a POST without `Mcp-Session-Id`
//! other than `initialize` is refused with 400 (and a session id of no
//! session), one with an id it did not give with 404.

use crate::core::hash::HashMap;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

#[derive(Default)]
struct Opts {
    replay: Option<String>,
    http: Option<String>,
    sse: bool,
    die_after: Option<usize>,
    garbage_after: Option<usize>,
    silent: bool,
    sessions: bool,
}

#[derive(Default)]
struct State {
    /// Recorded responses by request id (JSON text), with their times.
    recorded: HashMap<String, VecDeque<(Value, Option<String>)>>,
    received: usize,
    seen: Vec<Value>,
    says: usize,
}

/// What one received message does.
enum Act {
    Send(Vec<Value>),
    Die,
    Garbage,
}

fn load(path: &str, st: &mut State) {
    let Ok(src) = std::fs::read_to_string(path) else {
        eprintln!("fake-mcp: cannot read {path}");
        return;
    };
    for l in src.lines() {
        let Ok(v) = serde_json::from_str::<Value>(l) else {
            continue;
        };
        let (m, ts) = match v.get("message") {
            Some(m) => (
                m.clone(),
                v.get("ts").and_then(Value::as_str).map(String::from),
            ),
            None => (v, None),
        };
        if m.get("method").is_none() && m.get("id").is_some() {
            st.recorded
                .entry(m["id"].to_string())
                .or_default()
                .push_back((m, ts));
        }
    }
}

fn result(id: &Value, r: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": r})
}

fn tool_result(v: Value) -> Value {
    json!({"content": [{"type": "text", "text": v.to_string()}], "structuredContent": v})
}

fn handle(m: &Value, st: &mut State, opts: &Opts, hdrs: Option<&HashMap<String, String>>) -> Act {
    st.received += 1;
    if opts.die_after == Some(st.received) {
        return Act::Die;
    }
    if opts.garbage_after == Some(st.received) {
        return Act::Garbage;
    }
    if let Value::Array(items) = m {
        let mut out = Vec::new();
        for i in items {
            if let Act::Send(v) = handle(i, st, opts, hdrs) {
                out.extend(v);
            }
        }
        return Act::Send(if out.is_empty() {
            out
        } else {
            vec![Value::Array(out)]
        });
    }
    let id = m.get("id").cloned().unwrap_or(Value::Null);
    let method = m.get("method").and_then(Value::as_str).unwrap_or("");
    if method == "notifications/test" {
        st.seen.push(m["params"]["seq"].clone());
    }
    if id.is_null() || method.is_empty() {
        return Act::Send(Vec::new()); // a notification, or a response
    }
    let reply = match method {
        "initialize" => result(
            &id,
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                "serverInfo": {"name": "voicehook", "version": "0.0-fake"}}),
        ),
        "ping" => result(&id, json!({})),
        "tools/list" => {
            let mut tools: Vec<Value> = crate::input::server::FUNCTIONS
                .iter()
                .map(|f| json!({"name": f, "inputSchema": {"type": "object"}}))
                .collect();
            for t in ["echo", "flood", "seen", "headers"] {
                tools.push(json!({"name": t, "inputSchema": {"type": "object"}}));
            }
            result(&id, json!({"tools": tools}))
        }
        "tools/call" => {
            if opts.silent {
                return Act::Send(Vec::new());
            }
            let name = m["params"]["name"].as_str().unwrap_or("");
            let args = m["params"]["arguments"].clone();
            if let Some(q) = st.recorded.get_mut(&id.to_string()) {
                if let Some((mut r, ts)) = q.pop_front() {
                    if let (Some(ts), Some(Value::Object(res))) = (ts, r.get_mut("result")) {
                        res.insert("_meta".into(), json!({"callint/ts": ts}));
                    }
                    return Act::Send(vec![r]);
                }
            }
            match name {
                "echo" => result(&id, tool_result(json!({"echo": args}))),
                "seen" => result(&id, tool_result(json!({"seen": st.seen}))),
                "headers" => {
                    let h = |k: &str| hdrs.and_then(|h| h.get(k)).cloned();
                    result(
                        &id,
                        tool_result(json!({
                            "authorization": h("authorization").as_deref().map(checksum),
                            "mcp-protocol-version": h("mcp-protocol-version"),
                            "mcp-method": h("mcp-method"),
                            "mcp-name": h("mcp-name"),
                            "mcp-session-id": h("mcp-session-id"),
                        })),
                    )
                }
                "flood" => {
                    let n = args["n"].as_u64().unwrap_or(0);
                    let mut out: Vec<Value> = (0..n)
                        .map(|k| {
                            json!({"jsonrpc": "2.0", "method": "notifications/message",
                            "params": {"level": "info", "data": {"seq": k}}})
                        })
                        .collect();
                    out.push(result(&id, tool_result(json!({"sent": n}))));
                    return Act::Send(out);
                }
                "join" => result(
                    &id,
                    tool_result(json!({"status": "joined", "role": "participant",
                        "context": {"lang": "en", "mode": "normal"}, "peers": []})),
                ),
                "say" => {
                    st.says += 1;
                    result(
                        &id,
                        tool_result(
                            json!({"say_id": format!("s-{}", st.says), "say_status": "queued"}),
                        ),
                    )
                }
                "next" => result(
                    &id,
                    tool_result(json!({"type": "user", "speaker": "Oliver",
                        "text": "Thanks, that is all for now.", "addressed_to": []})),
                ),
                n if crate::input::server::FUNCTIONS.contains(&n) => {
                    result(&id, tool_result(json!({"ok": true})))
                }
                _ => json!({"jsonrpc": "2.0", "id": id, "result": {"isError": true,
                    "content": [{"type": "text", "text": format!("unknown tool {name}")}]}}),
            }
        }
        _ => json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32601, "message": "method not found"}}),
    };
    Act::Send(vec![reply])
}

/// A checksum of a header's value: the value itself is not sent back.
pub fn checksum(s: &str) -> u64 {
    s.bytes()
        .fold(17u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
}

fn stdio(opts: &Opts, st: &mut State) {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in stdin.lock().split(b'\n') {
        let Ok(line) = line else { break };
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(m) = serde_json::from_slice::<Value>(&line) else {
            let e = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}});
            let _ = writeln!(out, "{e}");
            let _ = out.flush();
            continue;
        };
        match handle(&m, st, opts, None) {
            Act::Die => std::process::exit(1),
            Act::Garbage => {
                let _ = writeln!(out, "<html>this is not JSON</html>");
            }
            Act::Send(msgs) => {
                for v in msgs {
                    let _ = writeln!(out, "{v}");
                }
            }
        }
        let _ = out.flush();
    }
}

/// One HTTP/1.1 request: method, headers (lower-case names), body.
fn read_request(
    r: &mut BufReader<TcpStream>,
) -> Option<(String, HashMap<String, String>, Vec<u8>)> {
    let mut first = String::new();
    if r.read_line(&mut first).ok()? == 0 {
        return None;
    }
    let method = first.split_whitespace().next()?.to_string();
    let mut headers = HashMap::default();
    loop {
        let mut l = String::new();
        r.read_line(&mut l).ok()?;
        let l = l.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':')?;
        headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
    }
    let n: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; n];
    r.read_exact(&mut body).ok()?;
    Some((method, headers, body))
}

fn respond(s: &mut TcpStream, status: &str, headers: &[(&str, String)], body: &[u8]) {
    let mut head = format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body);
    let _ = s.flush();
}

fn http(addr: &str, opts: Arc<Opts>, st: Arc<Mutex<State>>) {
    let listener = match TcpListener::bind(addr) {
        Ok(l) if l.local_addr().is_ok_and(|a| a.ip().is_loopback()) => l,
        _ => {
            eprintln!("fake-mcp: cannot listen on {addr} (loopback only)");
            return;
        }
    };
    println!("port {}", listener.local_addr().map_or(0, |a| a.port()));
    let _ = std::io::stdout().flush();
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        let opts = opts.clone();
        let st = st.clone();
        std::thread::spawn(move || {
            let Ok(read) = conn.try_clone() else { return };
            let mut r = BufReader::new(read);
            let mut s = conn;
            let Some((method, headers, body)) = read_request(&mut r) else {
                return;
            };
            match method.as_str() {
                "GET" => {
                    let n = json!({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": "hello from the GET stream"}});
                    let body = format!("event: message\ndata: {n}\n\n");
                    respond(
                        &mut s,
                        "200 OK",
                        &[("Content-Type", "text/event-stream".into())],
                        body.as_bytes(),
                    );
                }
                "DELETE" => respond(&mut s, "200 OK", &[], b""),
                "POST" => {
                    let Ok(m) = serde_json::from_slice::<Value>(&body) else {
                        respond(&mut s, "400 Bad Request", &[], b"not JSON");
                        return;
                    };
                    let initialize = m.get("method").and_then(Value::as_str) == Some("initialize");
                    if opts.sessions && !initialize {
                        match headers.get("mcp-session-id").map(String::as_str) {
                            None => {
                                respond(
                                    &mut s,
                                    "400 Bad Request",
                                    &[("Mcp-Session-Id", "fake-session-0".into())],
                                    b"Bad Request: No valid session ID provided",
                                );
                                return;
                            }
                            Some("fake-session-1") => {}
                            Some(_) => {
                                respond(&mut s, "404 Not Found", &[], b"Session not found");
                                return;
                            }
                        }
                    }
                    let act = {
                        let mut st = st.lock().unwrap_or_else(|e| e.into_inner());
                        handle(&m, &mut st, &opts, Some(&headers))
                    };
                    let msgs = match act {
                        Act::Die => std::process::exit(1),
                        Act::Garbage => {
                            respond(
                                &mut s,
                                "200 OK",
                                &[("Content-Type", "application/json".into())],
                                b"<html>not JSON</html>",
                            );
                            return;
                        }
                        Act::Send(m) => m,
                    };
                    let mut h = vec![];
                    if m.get("method").and_then(Value::as_str) == Some("initialize") {
                        h.push(("Mcp-Session-Id", "fake-session-1".to_string()));
                    }
                    if msgs.is_empty() {
                        respond(&mut s, "202 Accepted", &h, b"");
                    } else if opts.sse {
                        h.push(("Content-Type", "text/event-stream".into()));
                        let mut body = String::new();
                        for v in msgs {
                            body.push_str(&format!("event: message\ndata: {v}\n\n"));
                        }
                        respond(&mut s, "200 OK", &h, body.as_bytes());
                    } else {
                        h.push(("Content-Type", "application/json".into()));
                        // Notifications before a JSON answer cannot be sent: only the last.
                        let last = msgs.last().map(Value::to_string).unwrap_or_default();
                        respond(&mut s, "200 OK", &h, last.as_bytes());
                    }
                }
                _ => respond(&mut s, "405 Method Not Allowed", &[], b""),
            }
        });
    }
}

/// Run the fake server with `args` (after `fake-mcp`).
pub fn main(args: Vec<String>) -> u8 {
    let mut opts = Opts::default();
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--replay" => opts.replay = args.next(),
            "--http" => opts.http = args.next(),
            "--sse" => opts.sse = true,
            "--die-after" => opts.die_after = args.next().and_then(|n| n.parse().ok()),
            "--garbage-after" => opts.garbage_after = args.next().and_then(|n| n.parse().ok()),
            "--silent" => opts.silent = true,
            "--sessions" => opts.sessions = true,
            other => {
                eprintln!("fake-mcp: unknown argument {other}");
                return 2;
            }
        }
    }
    let mut st = State::default();
    if let Some(p) = &opts.replay {
        load(p, &mut st);
    }
    match opts.http.clone() {
        Some(addr) => http(&addr, Arc::new(opts), Arc::new(Mutex::new(st))),
        None => stdio(&opts, &mut st),
    }
    0
}
