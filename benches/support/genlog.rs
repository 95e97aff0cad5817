//! A large, realistic native call log: one agent's view of a long call
//! with a human, Delta and three other agents. Deterministic for a given
//! number of turns. Used by `examples/genlog.rs` (which writes it to a
//! file) and by the benchmarks (`benches/parse.rs`, `benches/rules.rs`),
//! which also turn it into an MCP trace and a transcript
//! ([`mcp_trace`], [`transcript`]).

use std::io::Write;

#[path = "common.rs"]
mod common;
use common::{ts, Rng};

const AGENTS: &[&str] = &["Promo", "Claude", "Builder"];
const ME: &str = "opencode";
const LINES: &[&str] = &[
    "The build on main is green and the canary is at ten percent.",
    "I pushed the fix for the login redirect in auth.rs.",
    "Staging latency is back under two hundred milliseconds.",
    "The docs job waits for a review from Mara.",
    "I am checking the relay logs for dropped lines now.",
    "Release notes for 2.4 are drafted on my board.",
    "The flaky payment test passed five times in a row.",
];
const ASKS: &[&str] = &[
    "can you look at the failing deploy?",
    "what is the state of the release?",
    "please check the staging latency.",
    "is the build green?",
    "could you summarise the open tickets?",
];
const ANSWERS: &[&str] = &[
    "On it, one moment.",
    "The deploy failed on a missing secret; I am adding it now.",
    "Yes, the build is green.",
    "Two tickets are open, both on my board.",
];

/// Write the log of a call of `turns` turns of the human to `w`.
pub fn write(turns: u64, w: &mut impl Write) -> std::io::Result<()> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ turns);
    let mut t: u64 = 9 * 3600 * 1000;
    let q = |s: &str| serde_json::to_string(s).unwrap();
    writeln!(
        w,
        r#"{{"meta":{{"format":1,"recorder":"genlog","human":"Oliver","voicebot":"Delta"}}}}"#
    )?;
    writeln!(
        w,
        r#"{{"ts":"{}","fn":"join","args":{{"call_id":"c-bench","label":"{ME}","emoji":"🧩","greet":true}},"result":{{"status":"joined","role":"participant","context":{{"lang":"en","mode":"normal"}}}}}}"#,
        ts(t)
    )?;
    let mut say_id = 0;
    for turn in 0..turns {
        t += 2500 + rng.next() % 4000;
        let to = match rng.next() % 6 {
            0 => Some(ME),
            1 => Some("Delta"),
            2 => None,
            _ => Some(rng.pick(AGENTS)),
        };
        let ask = rng.pick(ASKS);
        let text = match to {
            Some(name) => format!("{name}, {ask}"),
            None => format!("Let's move on to item {turn}."),
        };
        let addressed: Vec<String> = to.iter().map(|n| q(n)).collect();
        writeln!(
            w,
            r#"{{"ts":"{}","fn":"next","result":{{"type":"user","speaker":"Oliver","text":{},"addressed_to":[{}],"addressed_to_you":{}}}}}"#,
            ts(t),
            q(&text),
            addressed.join(","),
            to == Some(ME)
        )?;
        if to == Some(ME) {
            t += 600 + rng.next() % 900;
            say_id += 1;
            writeln!(
                w,
                r#"{{"ts":"{}","fn":"say","args":{{"text":{}}},"result":{{"say_id":"s{say_id}","say_status":"queued"}}}}"#,
                ts(t),
                q(rng.pick(ANSWERS))
            )?;
            t += 400;
            writeln!(
                w,
                r#"{{"ts":"{}","fn":"status","args":{{"emoji":"🛠️","doing":"Item {turn}","open":["Follow up item {turn} in deploy.yml"],"done":[]}},"result":{{}}}}"#,
                ts(t)
            )?;
            writeln!(
                w,
                r#"{{"ts":"{}","fn":"activity","args":{{"text":"Working on item {turn}"}},"result":{{}}}}"#,
                ts(t + 100)
            )?;
        }
        // Others speak while the human is silent.
        t += 2000 + rng.next() % 3000;
        let mut lines = Vec::new();
        for k in 0..(1 + rng.next() % 3) {
            let who = if to.is_some_and(|n| AGENTS.contains(&n)) && k == 0 {
                to.unwrap()
            } else {
                rng.pick(AGENTS)
            };
            lines.push(format!(
                r#"{{"speaker":"{who}","op":"op-{who}","model":"m","text":{},"ts":"{}","addressed_to":["Oliver"],"addressed_to_you":false,"to_human":true}}"#,
                q(rng.pick(LINES)),
                ts(t - 1500 + k * 300)
            ));
        }
        let delta = if to == Some("Delta") {
            format!(
                r#","agent_said":[{{"speaker":"Delta","text":"Here is the board: item {turn} is in progress.","ts":"{}"}}]"#,
                ts(t - 800)
            )
        } else {
            String::new()
        };
        writeln!(
            w,
            r#"{{"ts":"{}","fn":"next","result":{{"type":"timeout","operators_said":[{}]{delta}}}}}"#,
            ts(t),
            lines.join(",")
        )?;
        if rng.chance(3) {
            t += 1000;
            let who = rng.pick(AGENTS);
            writeln!(
                w,
                r#"{{"ts":"{}","fn":"next","result":{{"type":"operator","op":"op-{who}","speaker":"{who}","text":"{ME}, can you check the relay logs?","addressed_to":["{ME}"],"addressed_to_you":true}}}}"#,
                ts(t)
            )?;
            t += 900;
            say_id += 1;
            writeln!(
                w,
                r#"{{"ts":"{}","fn":"say","args":{{"text":"{who}, the relay logs show no dropped lines."}},"result":{{"say_id":"s{say_id}","say_status":"queued"}}}}"#,
                ts(t)
            )?;
        }
    }
    writeln!(
        w,
        r#"{{"ts":"{}","fn":"leave","result":{{}}}}"#,
        ts(t + 1000)
    )?;
    w.flush()
}

/// The log of a call of `turns` turns, in memory.
pub fn native(turns: u64) -> Vec<u8> {
    let mut out = Vec::new();
    write(turns, &mut out).expect("writing to memory does not fail");
    out
}

/// The same call as an MCP trace: each function record becomes a
/// `tools/call` request and its response (the result as
/// `structuredContent`, an error as a JSON-RPC error), in envelopes with
/// the record's time; chat and tool records are not in a trace.
pub fn mcp_trace(native: &[u8]) -> Vec<u8> {
    use serde_json::{json, Value};
    let mut out = Vec::new();
    let mut id = 0u64;
    for line in native.split(|&b| b == b'\n') {
        let Ok(Value::Object(r)) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let Some(name) = r.get("fn") else { continue };
        id += 1;
        let ts = r.get("ts").cloned().unwrap_or(Value::Null);
        let request = json!({"ts": ts, "dir": "send", "message": {"jsonrpc": "2.0", "id": id,
            "method": "tools/call", "params": {"name": name,
            "arguments": r.get("args").cloned().unwrap_or(json!({}))}}});
        let message = match r.get("error") {
            Some(e) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000,
                "message": e.get("message").cloned().unwrap_or(Value::Null), "data": e}}),
            None => json!({"jsonrpc": "2.0", "id": id, "result": {"content": [],
                "structuredContent": r.get("result").cloned().unwrap_or(json!({}))}}),
        };
        let response = json!({"ts": ts, "dir": "recv", "message": message});
        for m in [request, response] {
            out.extend(serde_json::to_vec(&m).expect("JSON"));
            out.push(b'\n');
        }
    }
    out
}

/// The same call as the room heard it: the human's lines, the agent's own
/// says, and what the others and Delta said, `[hh:mm:ss] Speaker: text`.
pub fn transcript(native: &[u8]) -> Vec<u8> {
    use serde_json::Value;
    let mut out = String::from(
        "# lang: en\n# human: Oliver\n# voicebot: Delta\n# agents: opencode, Promo, Claude, Builder\n\n",
    );
    let clock = |ts: Option<&Value>| {
        let ts = ts.and_then(Value::as_str).unwrap_or("");
        ts.get(11..19).unwrap_or("00:00:00").to_string()
    };
    let mut push = |ts: Option<&Value>, who: &str, text: &str| {
        out.push_str(&format!("[{}] {who}: {text}\n", clock(ts)));
    };
    for line in native.split(|&b| b == b'\n') {
        let Ok(r) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        match r["fn"].as_str() {
            Some("say") => push(r.get("ts"), ME, r["args"]["text"].as_str().unwrap_or("")),
            Some("next") => {
                let e = &r["result"];
                for key in ["operators_said", "agent_said"] {
                    for l in e[key].as_array().into_iter().flatten() {
                        let who = l["speaker"].as_str().unwrap_or("Delta");
                        push(l.get("ts"), who, l["text"].as_str().unwrap_or(""));
                    }
                }
                if matches!(e["type"].as_str(), Some("user" | "operator")) {
                    let who = e["speaker"].as_str().unwrap_or("Oliver");
                    push(r.get("ts"), who, e["text"].as_str().unwrap_or(""));
                }
            }
            _ => {}
        }
    }
    out.into_bytes()
}

/// Write a log whose room names `n` speakers, all alike ("Agent 1",
/// "Agent 2", ...), one line each, ten a second: the input that makes any
/// work over pairs of participants show.
pub fn write_speakers(n: u64, w: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        w,
        r#"{{"ts":"{}","fn":"join","args":{{"call_id":"c-many","label":"Kit"}},"result":{{"status":"joined","context":{{"lang":"en"}}}}}}"#,
        ts(0)
    )?;
    for i in 0..n {
        writeln!(
            w,
            r#"{{"ts":"{}","fn":"next","result":{{"type":"timeout","operators_said":[{{"speaker":"Agent {i}","text":"The build on main is green."}}]}}}}"#,
            ts(1000 + i * 100)
        )?;
        if i % 100 == 99 {
            writeln!(
                w,
                r#"{{"ts":"{}","fn":"say","args":{{"text":"Can you check the logs?"}}}}"#,
                ts(1050 + i * 100)
            )?;
        }
    }
    Ok(())
}
