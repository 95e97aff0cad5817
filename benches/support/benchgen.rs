//! Native call logs with knobs, for measuring callint on logs unlike the
//! one `genlog` writes: more agents, other agents' lines on most turns,
//! several says per turn, board updates, decisions, German, English or
//! both, compact JSON or JSON with spaces, one call or many.
//! `examples/benchgen.rs` writes them; `scripts/bench-floor.sh --matrix`
//! measures a matrix of them. Deterministic for given knobs.

use std::io::Write;

use serde_json::{json, Value};

#[path = "common.rs"]
mod common;
use common::{ts, Rng};

/// What the generated log looks like.
#[derive(Clone, Debug)]
pub struct Knobs {
    /// Human turns per call.
    pub turns: u64,
    /// Agents in the call besides the recording one (2 to 19).
    pub agents: usize,
    /// Percent of turns after which other agents' lines arrive.
    pub others: u64,
    /// Most says of the recording agent when it is addressed (1 or more).
    pub says: u64,
    /// Percent of its answers followed by a board update.
    pub boards: u64,
    /// Percent of turns with a decision put to the human.
    pub decisions: u64,
    /// `en`, `de`, or `mix` (the call switches language now and then).
    pub lang: String,
    /// JSON with a space after `:` and `,`, as many exporters write it.
    pub spaced: bool,
    /// Calls, one after the other in the same file.
    pub calls: u64,
    /// Percent of the recording agent's says the server echoes back among
    /// the other agents' lines of the next event, under its own name.
    pub echo: u64,
    /// Percent of human turns addressed to the recording agent; `None`
    /// keeps the default mix (a sixth to it, a sixth to Delta, a sixth to
    /// no one, the rest to the other agents).
    pub to_me: Option<u64>,
    /// Percent of turns that end in a `timeout` event, which then carries
    /// the other agents' lines; `None`: every turn ends in one.
    pub timeouts: Option<u64>,
    /// Most other agents' lines in one event (default 3).
    pub lines: u64,
    /// Each say of the recording agent its own text, as a talkative agent
    /// speaks, instead of one of a few answers.
    pub distinct: bool,
    /// Mixed into the random source, for another log of the same shape.
    pub seed: u64,
}

impl Default for Knobs {
    fn default() -> Self {
        Knobs {
            turns: 10_000,
            agents: 4,
            others: 80,
            says: 2,
            boards: 60,
            decisions: 5,
            lang: "en".into(),
            spaced: false,
            calls: 1,
            echo: 0,
            to_me: None,
            timeouts: None,
            lines: 3,
            distinct: false,
            seed: 0,
        }
    }
}

const NAMES: &[&str] = &[
    "Promo", "Claude", "Builder", "Scout", "Quill", "Nova", "Ferris", "Lumen", "Mara-Bot", "Pico",
    "Atlas", "Lotse", "Kestrel", "Orbit", "Juniper", "Vega", "Tally", "Rook", "Wren",
];
const ME: &str = "opencode";

struct Words {
    asks: &'static [&'static str],
    answers: &'static [&'static str],
    lines: &'static [&'static str],
    short: &'static [&'static str],
    decide: &'static str,
    moving_on: &'static str,
}

const EN: Words = Words {
    asks: &[
        "can you look at the failing deploy?",
        "what is the state of the release?",
        "please check the staging latency.",
        "is the build green?",
        "could you summarise the open tickets?",
    ],
    answers: &[
        "The deploy failed on a missing secret; I am adding it now.",
        "Yes, the build is green on main and on the release branch.",
        "Two tickets are open, both are on my board.",
        "Staging latency is at one hundred and eighty milliseconds.",
        "The release waits for one review, I will ping the reviewer.",
    ],
    lines: &[
        "The build on main is green and the canary is at ten percent.",
        "I pushed the fix for the login redirect in auth.rs.",
        "Staging latency is back under two hundred milliseconds.",
        "The docs job waits for a review from Mara.",
        "I am checking the relay logs for dropped lines now.",
        "Release notes for 2.4 are drafted on my board.",
        "The flaky payment test passed five times in a row.",
    ],
    short: &["Done.", "Green.", "Checking.", "Still running.", "Merged."],
    decide: "Ship 2.4 today or wait for the review?",
    moving_on: "Let's move on to the next item.",
};

const DE: Words = Words {
    asks: &[
        "kannst du dir das fehlgeschlagene Deployment ansehen?",
        "wie ist der Stand beim Release?",
        "prüf bitte die Latenz auf Staging.",
        "ist der Build grün?",
        "fass bitte die offenen Tickets zusammen.",
    ],
    answers: &[
        "Das Deployment scheitert an einem fehlenden Secret, ich trage es gerade ein.",
        "Ja, der Build ist auf main und auf dem Release-Branch grün.",
        "Zwei Tickets sind offen, beide stehen auf meinem Board.",
        "Die Latenz auf Staging liegt bei hundertachtzig Millisekunden.",
        "Das Release wartet auf ein Review, ich frage beim Reviewer nach.",
    ],
    lines: &[
        "Der Build auf main ist grün und der Canary steht bei zehn Prozent.",
        "Ich habe den Fix für die Login-Weiterleitung gepusht.",
        "Die Latenz auf Staging ist wieder unter zweihundert Millisekunden.",
        "Der Docs-Job wartet auf ein Review von Mara.",
        "Ich schaue gerade die Relay-Logs nach verlorenen Zeilen durch.",
        "Die Release Notes für 2.4 stehen als Entwurf auf meinem Board.",
    ],
    short: &[
        "Erledigt.",
        "Grün.",
        "Ich schaue.",
        "Läuft noch.",
        "Gemergt.",
    ],
    decide: "2.4 heute ausliefern oder auf das Review warten?",
    moving_on: "Weiter zum nächsten Punkt.",
};

/// JSON with a space after every `:` and `,`.
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }
    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
}

struct Out<'w, W: Write> {
    w: &'w mut W,
    spaced: bool,
    buf: Vec<u8>,
}

impl<W: Write> Out<'_, W> {
    fn line(&mut self, v: &Value) -> std::io::Result<()> {
        self.buf.clear();
        if self.spaced {
            let mut ser = serde_json::Serializer::with_formatter(&mut self.buf, Spaced);
            serde::Serialize::serialize(v, &mut ser).map_err(std::io::Error::other)?;
        } else {
            serde_json::to_writer(&mut self.buf, v).map_err(std::io::Error::other)?;
        }
        self.buf.push(b'\n');
        self.w.write_all(&self.buf)
    }
}

fn context(lang: &str) -> Value {
    json!({"lang": lang, "mode": "normal"})
}

/// Write the log `knobs` describe to `w`.
pub fn write(knobs: &Knobs, w: &mut impl Write) -> std::io::Result<()> {
    let mut rng =
        Rng(0x9E37_79B9_7F4A_7C15 ^ knobs.turns ^ (knobs.agents as u64) << 32 ^ knobs.seed << 48);
    let agents = &NAMES[..knobs.agents.clamp(2, NAMES.len())];
    let mut out = Out {
        w,
        spaced: knobs.spaced,
        buf: Vec::new(),
    };
    out.line(&json!({"meta": {"format": 1, "recorder": "benchgen", "human": "Oliver", "voicebot": "Delta"}}))?;
    let mut t: u64 = 9 * 3600 * 1000;
    let mut say_id = 0u64;
    for call in 0..knobs.calls.max(1) {
        let call_id = format!("c-bench-{call}");
        let mut lang = if knobs.lang == "de" { "de" } else { "en" };
        t += 60_000;
        out.line(&json!({"ts": ts(t), "call": call_id, "fn": "join",
            "args": {"call_id": call_id, "label": ME, "emoji": "🧩", "greet": false},
            "result": {"status": "joined", "role": "participant", "context": context(lang)}}))?;
        for turn in 0..knobs.turns {
            if knobs.lang == "mix" && turn > 0 && turn % 500 == 0 {
                lang = if lang == "en" { "de" } else { "en" };
                t += 1000;
                out.line(&json!({"ts": ts(t), "call": call_id, "fn": "next",
                    "result": {"type": "context", "context": context(lang)}}))?;
            }
            let words = if lang == "de" { &DE } else { &EN };
            t += 2500 + rng.below(4000);
            let to = match knobs.to_me {
                // The knobs' draws only when they are asked for: the
                // other knobs' logs stay as they were.
                Some(pct) if rng.chance(pct) => Some(ME),
                Some(_) => match rng.below(4) {
                    0 => Some("Delta"),
                    1 => None,
                    _ => Some(rng.pick(agents)),
                },
                None => match rng.below(6) {
                    0 => Some(ME),
                    1 => Some("Delta"),
                    2 => None,
                    _ => Some(rng.pick(agents)),
                },
            };
            let text = match to {
                Some(name) => format!("{name}, {}", rng.pick(words.asks)),
                None => words.moving_on.to_string(),
            };
            out.line(&json!({"ts": ts(t), "call": call_id, "fn": "next",
                "result": {"type": "user", "speaker": "Oliver", "text": text,
                    "addressed_to": to.map_or(vec![], |n| vec![n]), "addressed_to_you": to == Some(ME)}}))?;
            let mut mine = Vec::new();
            if to == Some(ME) {
                for _ in 0..1 + rng.below(knobs.says.max(1)) {
                    t += 600 + rng.below(900);
                    say_id += 1;
                    // With echoes on, each say is its own (real says
                    // seldom repeat word for word; echoes of a few alike
                    // ones would hide what a log of distinct ones costs).
                    // Asked only then: the other knobs' logs stay as they
                    // were.
                    let mut text = rng.pick(words.answers).to_string();
                    if knobs.distinct {
                        let detail = rng.pick(words.lines);
                        text = format!("{text} Item {turn}: {}", detail.to_lowercase());
                    }
                    if knobs.echo > 0 {
                        text = format!("{text} Ref {say_id}.");
                        if rng.chance(knobs.echo) {
                            mine.push((text.clone(), t));
                        }
                    }
                    out.line(&json!({"ts": ts(t), "call": call_id, "fn": "say",
                        "args": {"text": text},
                        "result": {"say_id": format!("s{say_id}"), "say_status": "queued"}}))?;
                }
                if rng.chance(knobs.boards) {
                    t += 400;
                    out.line(&json!({"ts": ts(t), "call": call_id, "fn": "status",
                        "args": {"emoji": "🛠️", "doing": format!("Item {turn}"),
                            "open": [format!("Follow up item {turn} in deploy.yml")], "done": [format!("Item {}", turn.saturating_sub(1))]},
                        "result": {}}))?;
                    out.line(
                        &json!({"ts": ts(t + 100), "call": call_id, "fn": "activity",
                        "args": {"text": format!("Working on item {turn}")}, "result": {}}),
                    )?;
                }
            }
            if rng.chance(knobs.decisions) {
                t += 500;
                out.line(&json!({"ts": ts(t), "call": call_id, "fn": "decide",
                    "args": {"question": words.decide, "options": ["yes", "no"]},
                    "result": {"decision_id": format!("d{turn}")}}))?;
            }
            t += 2000 + rng.below(3000);
            let mut said = Vec::new();
            let event = knobs.timeouts.is_none_or(|pct| rng.chance(pct));
            if event && (rng.chance(knobs.others) || to.is_some_and(|n| agents.contains(&n))) {
                // up to three lines 300 ms apart, more closer together,
                // all before the event
                let gap = 900 / knobs.lines.max(3);
                for k in 0..1 + rng.below(knobs.lines.max(1)) {
                    let who = match to {
                        Some(n) if k == 0 && agents.contains(&n) => n,
                        _ => rng.pick(agents),
                    };
                    let text = if rng.chance(40) {
                        rng.pick(words.short)
                    } else {
                        rng.pick(words.lines)
                    };
                    said.push(json!({"speaker": who, "op": format!("op-{who}"), "model": "m", "text": text,
                        "ts": ts(t - 1500 + k * gap), "addressed_to": ["Oliver"],
                        "addressed_to_you": false, "to_human": true}));
                }
            }
            for (text, at) in mine {
                said.push(
                    json!({"speaker": ME, "op": format!("op-{ME}"), "model": "m", "text": text,
                    "ts": ts(at + 200), "addressed_to": ["Oliver"],
                    "addressed_to_you": false, "to_human": true}),
                );
            }
            if !event {
                continue;
            }
            let mut result = json!({"type": "timeout", "operators_said": said});
            if to == Some("Delta") {
                result["agent_said"] = json!([{"speaker": "Delta",
                    "text": format!("Here is the board: item {turn} is in progress."), "ts": ts(t - 800)}]);
            }
            out.line(&json!({"ts": ts(t), "call": call_id, "fn": "next", "result": result}))?;
        }
        t += 1000;
        out.line(&json!({"ts": ts(t), "call": call_id, "fn": "leave", "result": {}}))?;
    }
    out.w.flush()
}
