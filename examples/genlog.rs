//! Writes a large, realistic native call log for benchmarks: one agent's
//! view of a long call with a human, Delta and three other agents.
//!
//! `cargo run --release --example genlog -- TURNS OUT.jsonl`
//!
//! The output is deterministic for a given number of turns.

use std::io::{BufWriter, Write};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

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

fn ts(ms: u64) -> String {
    let s = ms / 1000;
    let (h, m, sec) = ((s / 3600) % 24, (s / 60) % 60, s % 60);
    let day = 10 + (s / 86_400) % 18;
    format!("2026-10-{day:02}T{h:02}:{m:02}:{sec:02}.{:03}Z", ms % 1000)
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let turns: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let out = args.get(2).map(String::as_str).unwrap_or("call.jsonl");
    let mut w = BufWriter::new(std::fs::File::create(out)?);
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
