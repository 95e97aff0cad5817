//! Writes a native call log with knobs, for benchmarks on logs unlike the
//! one `genlog` writes (`benches/support/benchgen.rs`).
//!
//! ```text
//! cargo run --release --example benchgen -- [--agents N] [--others PCT] [--says N]
//!     [--boards PCT] [--decisions PCT] [--lang en|de|mix] [--spaced] [--calls N]
//!     [--echo PCT] [--to-me PCT] [--timeouts PCT] [--lines N] [--distinct]
//!     [--seed N] TURNS OUT.jsonl
//! ```
//!
//! `--agents`: agents besides the recording one (2 to 19, default 4);
//! `--others`: percent of turns after which other agents' lines arrive
//! (default 80); `--says`: most says per answer (default 2); `--boards`:
//! percent of answers with a board update (default 60); `--decisions`:
//! percent of turns with a decision (default 5); `--spaced`: JSON with a
//! space after `:` and `,`; `--calls`: calls of TURNS turns each, one
//! after the other (default 1); `--echo`: percent of the recording agent's
//! says the server echoes back among the others' lines (default 0);
//! `--to-me`: percent of human turns addressed to the recording agent
//! (default a sixth); `--timeouts`: percent of turns ending in a `timeout`
//! event, the only ones with other agents' lines (default all);
//! `--lines`: most other agents' lines in one event (default 3);
//! `--distinct`: each say of the recording agent a text of its own;
//! `--seed`: another log of the same shape.

use std::io::BufWriter;

#[path = "../benches/support/benchgen.rs"]
mod benchgen;

fn main() {
    let mut knobs = benchgen::Knobs::default();
    let mut free = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |name: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| fail(&format!("{name} takes a number")))
        };
        match a.as_str() {
            "--agents" => knobs.agents = num("--agents") as usize,
            "--others" => knobs.others = num("--others"),
            "--says" => knobs.says = num("--says"),
            "--boards" => knobs.boards = num("--boards"),
            "--decisions" => knobs.decisions = num("--decisions"),
            "--calls" => knobs.calls = num("--calls"),
            "--echo" => knobs.echo = num("--echo"),
            "--to-me" => knobs.to_me = Some(num("--to-me")),
            "--timeouts" => knobs.timeouts = Some(num("--timeouts")),
            "--lines" => knobs.lines = num("--lines"),
            "--seed" => knobs.seed = num("--seed"),
            "--distinct" => knobs.distinct = true,
            "--lang" => {
                knobs.lang = args
                    .next()
                    .filter(|l| matches!(l.as_str(), "en" | "de" | "mix"))
                    .unwrap_or_else(|| fail("--lang takes en, de or mix"))
            }
            "--spaced" => knobs.spaced = true,
            _ if a.starts_with("--") => fail(&format!("unknown option {a}")),
            _ => free.push(a),
        }
    }
    let [turns, out] = free.as_slice() else {
        fail("usage: benchgen [OPTIONS] TURNS OUT.jsonl");
    };
    knobs.turns = turns.parse().unwrap_or_else(|_| fail("TURNS is a number"));
    let file = std::fs::File::create(out).unwrap_or_else(|e| fail(&format!("{out}: {e}")));
    if let Err(e) = benchgen::write(&knobs, &mut BufWriter::new(file)) {
        fail(&format!("{out}: {e}"));
    }
}

fn fail(message: &str) -> ! {
    eprintln!("benchgen: {message}");
    std::process::exit(2);
}
