//! Text transcripts: the room as heard (docs/formats.md).
//!
//! ```text
//! # lang: en
//! # human: Oliver
//! # voicebot: Delta
//! # agents: opencode, Promo, Claude
//! # owner: Promo
//! [10:02:30] Oliver: opencode joined, but no one answered its question.
//! [10:02:32] Promo: opencode, your question did not reach me, could you repeat it?
//! ```
//!
//! One utterance a line, the time optional (`hh:mm:ss`, `hh:mm:ss.fff`,
//! `mm:ss` or an RFC 3339 time). Header lines name the call language (a
//! later `# lang:` switches it from there on), the human, the voicebot, the
//! agents and the owner of the call (`# owner:`, optional: it makes the
//! other agents participants). Other `#` lines are comments.
//!
//! A transcript is linted from every agent's side: each agent gets a log of
//! its own, in which its lines are its `say`s and everyone else's lines are
//! what `next` would have handed it: the human's as `user` events, the
//! voicebot's in `agent_said`, another agent's as an `operator` event when
//! it addressed this agent (at most one every 5 s, as the server does) and
//! in `operators_said` of a `timeout` event otherwise. Addressing is
//! computed with the server's rule.
//!
//! A transcript does not show when an agent joined. An agent the
//! `# agents:` header names is in the call from the transcript's first
//! line on; any other is taken to hear the room from its own first line on
//! (agents greet right after joining), or from the start when it never
//! speaks. Lines that share a time keep the file's order. Its log opens there
//! with a `join` carrying its label and the `context.lang` in force; as the
//! moment of joining is unknown, that join is marked as not yet in the call
//! (`waiting_for_human`), which keeps the rules about the moments after a
//! join (`no-greeting`, `join-sequence`) silent.

use super::json::{lines, RawLine};
use super::{ts, Options, Parsed, Problem, UnknownRoles};
use crate::model::turns::same_name;
use crate::model::*;
use crate::text::addressing::Roster;

/// The server wakes an agent with an `operator` event at most this often.
const OPERATOR_EVERY_MS: Ms = 5_000;

/// A transcript is linted from the side of at most this many agents.
const MAX_AGENTS: usize = 64;

/// A speaker name longer than this is taken for prose, not a name.
const MAX_SPEAKER: usize = 64;

#[derive(Debug)]
pub(crate) struct Utt {
    pub(crate) line: u32,
    pub(crate) span: Span,
    pub(crate) ts: Option<Ms>,
    pub(crate) speaker: String,
    pub(crate) speaker_span: Span,
    pub(crate) text: String,
    pub(crate) text_span: Span,
}

#[derive(Debug)]
pub(crate) enum Entry {
    Utt(Utt),
    Lang {
        line: u32,
        span: Span,
        value: String,
        value_span: Span,
    },
}

/// A name given in a header, with where it was given.
#[derive(Clone, Debug)]
pub(crate) struct Named {
    pub(crate) name: String,
    pub(crate) span: Span,
    pub(crate) line: u32,
    pub(crate) line_span: Span,
}

#[derive(Default)]
pub(crate) struct Headers {
    pub(crate) human: Option<Named>,
    pub(crate) voicebot: Option<Named>,
    pub(crate) agents: Vec<Named>,
    pub(crate) owner: Option<Named>,
}

/// Read a transcript into one log per agent; who is the human and who the
/// voicebot comes from its headers, else from `opts`.
pub fn parse(bytes: &[u8], opts: &Options) -> Parsed {
    let mut problems = Vec::new();
    let mut entries = Vec::new();
    let mut headers = Headers::default();
    let mut clock = Clock::default();
    let mut read = 0;
    for l in lines(bytes) {
        read += usize::from(read_line(
            bytes,
            l,
            &mut clock,
            &mut headers,
            &mut entries,
            &mut problems,
        ));
    }
    let mut parsed = views(headers, entries, problems, opts, "transcript");
    parsed.read = read;
    parsed
}

/// The room as heard (`entries`, with the `headers` that name who is who)
/// as one log per agent. Shared by every reader of heard speech;
/// `recorder` names the input in each log's meta.
pub(crate) fn views(
    headers: Headers,
    mut entries: Vec<Entry>,
    mut problems: Vec<Problem>,
    opts: &Options,
    recorder: &str,
) -> Parsed {
    let cast = Cast::resolve(&headers, opts, &mut entries);
    if cast.agents.len() > MAX_AGENTS && cast.unknown.is_none() {
        problems.push(Problem::new(
            Anchor::bytes(cast.agents[MAX_AGENTS].label_at.span),
            format!(
                "this transcript names {} agents; it is linted from the side of the first {MAX_AGENTS} only",
                cast.agents.len()
            ),
            Some("a voicehook call holds a handful of agents; check that the speaker names are right".into()),
        ));
    }
    let linted = &cast.agents[..cast.agents.len().min(MAX_AGENTS)];
    if cast.agents.len() > MAX_AGENTS {
        // The lines of the agents beyond are left out too: every agent's
        // view would hold all of them.
        entries.retain(|e| match e {
            Entry::Utt(u) => {
                cast.human.as_deref() == Some(u.speaker.as_str())
                    || cast.is_voicebot(&u.speaker)
                    || linted.iter().any(|a| a.name == u.speaker)
            }
            Entry::Lang { .. } => true,
        });
    }
    let labels: Vec<&str> = linted.iter().map(|a| a.name.as_str()).collect();
    let roster = Roster::with_variants(
        cast.human.as_deref(),
        &cast.voicebot,
        &labels,
        cast.voicebot_known,
    );
    let logs = linted
        .iter()
        .map(|a| log_of(a, &cast, &roster, &entries, recorder))
        .collect();
    Parsed {
        logs,
        problems,
        unknown_roles: cast.unknown,
        read: 0,
        ..Parsed::default()
    }
}

fn read_line(
    bytes: &[u8],
    l: RawLine,
    clock: &mut Clock,
    headers: &mut Headers,
    entries: &mut Vec<Entry>,
    problems: &mut Vec<Problem>,
) -> bool {
    let raw = &bytes[l.span.start..l.span.end];
    let text = match std::str::from_utf8(raw) {
        Ok(t) => t,
        Err(e) => {
            let at = l.span.start + e.valid_up_to();
            problems.push(Problem::new(
                Anchor::bytes(Span::new(at, at + e.error_len().unwrap_or(1))),
                format!(
                    "this line is not valid UTF-8 (byte 0x{:02x})",
                    raw[e.valid_up_to()]
                ),
                Some("a transcript is UTF-8 text; this line was skipped".into()),
            ));
            return false;
        }
    };
    let lead = text.len() - text.trim_start().len();
    let t = text.trim();
    if t.is_empty() {
        return false;
    }
    let at = |off: usize, len: usize| Span::new(l.span.start + off, l.span.start + off + len);
    if let Some(rest) = t.strip_prefix('#') {
        if let Some((key, value)) = rest.split_once(':') {
            let value_at = l.span.start + lead + 1 + key.len() + 1;
            let line = (l.no, l.span);
            // Other keys: a comment that happens to hold a colon.
            return header(headers, entries, line, key, value, value_at);
        }
        return false; // a comment
    }
    match utterance(t) {
        Some(u) => {
            let ts = match u.stamp {
                None => None,
                Some((s, off)) => match clock.read(s) {
                    Some(ms) => Some(ms),
                    None => {
                        problems.push(Problem::new(
                            Anchor::bytes(at(lead + off, s.len())),
                            format!(
                                "`{}` is not a time",
                                crate::core::escape::one_line(s)
                            ),
                            Some("write times as hh:mm:ss (or an RFC 3339 time); rules that need the time skip this line".into()),
                        ));
                        None
                    }
                },
            };
            if u.text.0.is_empty() {
                return true;
            }
            entries.push(Entry::Utt(Utt {
                line: l.no,
                span: l.span,
                ts,
                speaker: u.speaker.0.to_string(),
                speaker_span: at(lead + u.speaker.1, u.speaker.0.len()),
                text: u.text.0.to_string(),
                text_span: at(lead + u.text.1, u.text.0.len()),
            }));
            true
        }
        None => {
            problems.push(Problem::new(
                Anchor::bytes(l.span),
                "this line is neither an utterance nor a header".into(),
                Some("a transcript line is `[hh:mm:ss] Speaker: text` (the time may be left out) or a header such as `# lang: en`; this line was skipped".into()),
            ));
            false
        }
    }
}

/// A `key: value` header of line `line` (its number and bytes), the value
/// starting at byte `value_at` of the input: the call language, the human,
/// the voicebot, the agents or the owner. False for any other key.
pub(crate) fn header(
    headers: &mut Headers,
    entries: &mut Vec<Entry>,
    line: (u32, Span),
    key: &str,
    value: &str,
    value_at: usize,
) -> bool {
    let (no, line_span) = line;
    let key = key.trim().to_ascii_lowercase();
    let v_lead = value.len() - value.trim_start().len();
    let value_t = value.trim();
    let value_span = Span::new(value_at + v_lead, value_at + v_lead + value_t.len());
    let named = |name: &str, span: Span| Named {
        name: name.to_string(),
        span,
        line: no,
        line_span,
    };
    match key.as_str() {
        "lang" | "language" => entries.push(Entry::Lang {
            line: no,
            span: line_span,
            value: value_t.to_string(),
            value_span,
        }),
        "human" if !value_t.is_empty() => headers.human = Some(named(value_t, value_span)),
        "voicebot" if !value_t.is_empty() => headers.voicebot = Some(named(value_t, value_span)),
        "owner" if !value_t.is_empty() => headers.owner = Some(named(value_t, value_span)),
        "agents" => {
            let mut off = value_at;
            for part in value.split(',') {
                let p_lead = part.len() - part.trim_start().len();
                let name = part.trim();
                if !name.is_empty()
                    && headers.agents.len() < MAX_AGENTS * 4
                    && !headers.agents.iter().any(|a| a.name == name)
                {
                    let at = Span::new(off + p_lead, off + p_lead + name.len());
                    headers.agents.push(named(name, at));
                }
                off += part.len() + 1;
            }
        }
        "human" | "voicebot" | "owner" => {}
        _ => return false,
    }
    true
}

/// The parts of an utterance line, each with its byte offset in the line.
struct Parts<'a> {
    stamp: Option<(&'a str, usize)>,
    speaker: (&'a str, usize),
    text: (&'a str, usize),
}

fn utterance(l: &str) -> Option<Parts<'_>> {
    let mut pos = 0;
    let mut stamp = None;
    if let Some(rest) = l.strip_prefix('[') {
        let close = rest.find(']')?;
        let inner = &rest[..close];
        let lead = inner.len() - inner.trim_start().len();
        stamp = Some((inner.trim(), 1 + lead));
        pos = 1 + close + 1;
        pos += l[pos..].len() - l[pos..].trim_start().len();
    }
    let rest = &l[pos..];
    let colon = rest.find(':')?;
    let after = &rest[colon + 1..];
    if !(after.is_empty() || after.starts_with(char::is_whitespace)) {
        return None;
    }
    let speaker = rest[..colon].trim_end();
    if speaker.is_empty()
        || speaker.chars().count() > MAX_SPEAKER
        || speaker.contains(['[', ']', '"', '{', '}'])
    {
        return None;
    }
    let text = after.trim();
    let text_off = pos + colon + 1 + (after.len() - after.trim_start().len());
    Some(Parts {
        stamp,
        speaker: (speaker, pos),
        text: (text, text_off),
    })
}

/// Clock times to milliseconds: the day is the first day of the epoch, and
/// a time more than twelve hours before the previous one passed midnight.
#[derive(Default)]
struct Clock {
    day: Ms,
    last: Option<Ms>,
}

impl Clock {
    fn read(&mut self, s: &str) -> Option<Ms> {
        if s.len() >= 20 {
            return ts::parse_rfc3339(s);
        }
        let (main, frac) = match s.split_once(['.', ',']) {
            Some((m, f)) => (m, Some(f)),
            None => (s, None),
        };
        let parts: Vec<&str> = main.split(':').collect();
        let num = |p: &str| -> Option<i64> {
            (!p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse().ok())
                .flatten()
        };
        let (h, m, sec) = match parts.as_slice() {
            [h, m, s] => (num(h)?, num(m)?, num(s)?),
            [m, s] => (0, num(m)?, num(s)?),
            _ => return None,
        };
        if h > 23 || m > 59 || sec > 60 {
            return None;
        }
        let mut ms = 0i64;
        if let Some(f) = frac {
            if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let digits: String = f.chars().chain("000".chars()).take(3).collect();
            ms = digits.parse().ok()?;
        }
        let of_day = ((h * 60 + m) * 60 + sec) * 1000 + ms;
        let mut t = self.day + of_day;
        if let Some(last) = self.last {
            if t + 12 * 3_600_000 < last {
                self.day += 86_400_000;
                t += 86_400_000;
            }
        }
        self.last = Some(t);
        Some(t)
    }
}

/// Who is who in the transcript.
struct Cast {
    human: Option<String>,
    voicebot: String,
    /// Whether anything says there is a voicebot: a header, the
    /// configuration, or a line it spoke.
    voicebot_known: bool,
    /// Every agent: from `# agents:`, then every other speaker.
    agents: Vec<Agent>,
    owner: Option<String>,
    /// Set when nothing says who the human is (and so which speakers are
    /// agents).
    unknown: Option<UnknownRoles>,
}

struct Agent {
    name: String,
    /// Where its label is written: in `# agents:`, else its first line.
    label_at: Named,
    /// Named in `# agents:`: in the call from the transcript's start.
    listed: bool,
}

impl Cast {
    fn resolve(h: &Headers, opts: &Options, entries: &mut [Entry]) -> Cast {
        // The file's own headers first, then the configuration.
        let given = |o: &Option<String>| {
            o.as_deref()
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_string)
        };
        let named = h
            .voicebot
            .as_ref()
            .map(|v| v.name.clone())
            .or_else(|| given(&opts.voicebot));
        let voicebot_named = named.is_some();
        let voicebot = named.unwrap_or_else(|| "Delta".to_string());
        let is_bot = |s: &str| is_voicebot(&voicebot, s) || same_name(s, &voicebot);
        let voicebot_known = voicebot_named
            || entries
                .iter()
                .any(|e| matches!(e, Entry::Utt(u) if is_bot(&u.speaker)));
        // The agents the headers name, else those of the configuration,
        // each written where it first speaks (or at the first line).
        let first_utt = entries.iter().find_map(|e| match e {
            Entry::Utt(u) => Some(u),
            _ => None,
        });
        let configured: Vec<Named> = if h.agents.is_empty() {
            opts.agents
                .iter()
                .map(|a| a.trim())
                .filter(|a| !a.is_empty())
                .filter_map(|a| {
                    let u = entries
                        .iter()
                        .find_map(|e| match e {
                            Entry::Utt(u) if same_name(&u.speaker, a) => Some(u),
                            _ => None,
                        })
                        .or(first_utt)?;
                    Some(Named {
                        name: a.to_string(),
                        span: u.speaker_span,
                        line: u.line,
                        line_span: u.span,
                    })
                })
                .collect()
        } else {
            h.agents.clone()
        };
        let listed_agents = &configured;
        let mut agents: Vec<Agent> = listed_agents
            .iter()
            .map(|a| Agent {
                name: a.name.clone(),
                label_at: a.clone(),
                listed: true,
            })
            .collect();
        let mut human = h
            .human
            .as_ref()
            .map(|n| n.name.clone())
            .or_else(|| given(&opts.human));
        // No voicebot, no agent and no human named or heard: nothing shows
        // a voicehook call (a meeting's or a lecture's captions). The file
        // is read, and nobody's lines are judged.
        let sign = voicebot_known || !listed_agents.is_empty() || human.is_some();
        let mut unknown = (!sign).then(|| UnknownRoles {
            at: Anchor::bytes(first_utt.map(|u| u.speaker_span).unwrap_or_default()),
            voicehook: false,
            unread: 0,
        });
        if human.is_none() && sign {
            // Without `# human:`, the one speaker who is neither the
            // voicebot nor a listed agent.
            let listed: crate::core::hash::HashSet<String> =
                listed_agents.iter().map(|a| fold(&a.name)).collect();
            let mut seen: crate::core::hash::HashSet<String> =
                crate::core::hash::HashSet::default();
            let mut others: Vec<&str> = Vec::new();
            for e in entries.iter() {
                if let Entry::Utt(u) = e {
                    let key = fold(&u.speaker);
                    if !is_bot(&u.speaker) && !listed.contains(&key) && seen.insert(key) {
                        others.push(&u.speaker);
                    }
                }
            }
            match others.as_slice() {
                [one] if !listed_agents.is_empty() => human = Some(one.to_string()),
                [] => {}
                _ => {
                    // Nobody can be told to be an agent: the rules that
                    // need the roles are not run on guesses.
                    unknown = Some(UnknownRoles {
                        at: Anchor::bytes(first_utt.map(|u| u.speaker_span).unwrap_or_default()),
                        voicehook: voicebot_known || !listed_agents.is_empty(),
                        unread: 0,
                    });
                }
            }
        }
        // Spell every speaker as the header does, and list new agents.
        let mut index: crate::core::hash::HashMap<String, usize> = agents
            .iter()
            .enumerate()
            .map(|(i, a)| (fold(&a.name), i))
            .collect();
        for e in entries.iter_mut() {
            let Entry::Utt(u) = e else { continue };
            if is_bot(&u.speaker) {
                continue;
            }
            if let Some(hm) = &human {
                if same_name(hm, &u.speaker) {
                    u.speaker = hm.clone();
                    continue;
                }
            }
            let key = fold(&u.speaker);
            match index.get(&key) {
                Some(&i) => u.speaker = agents[i].name.clone(),
                None => {
                    index.insert(key, agents.len());
                    agents.push(Agent {
                        name: u.speaker.clone(),
                        label_at: Named {
                            name: u.speaker.clone(),
                            span: u.speaker_span,
                            line: u.line,
                            line_span: u.span,
                        },
                        listed: false,
                    })
                }
            }
        }
        let owner = h.owner.as_ref().map(|o| {
            agents
                .iter()
                .find(|a| same_name(&a.name, &o.name))
                .map_or(o.name.clone(), |a| a.name.clone())
        });
        Cast {
            human,
            voicebot,
            voicebot_known,
            agents,
            owner,
            unknown,
        }
    }

    fn is_voicebot(&self, s: &str) -> bool {
        is_voicebot(&self.voicebot, s) || same_name(s, &self.voicebot)
    }
}

/// A name as `same_name` compares it.
fn fold(s: &str) -> String {
    let f: String = s
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    if f.is_empty() {
        s.trim().to_string()
    } else {
        f
    }
}

fn line(name: &str, u: &Utt) -> Line {
    Line {
        speaker: Some(name.into()),
        text: Some(Text::at_bytes(u.text.clone(), u.text_span)),
        ts: u.ts,
        ..Line::default()
    }
}

/// The log of one agent: its join, then every line as it reached it.
fn log_of(me: &Agent, cast: &Cast, roster: &Roster, entries: &[Entry], recorder: &str) -> Log {
    let mut records = Vec::with_capacity(entries.len() + 1);
    // Every record is the agent's: one origin for them all.
    let origin = Origins::default().of(Some(me.name.as_str().into()), None, Thread::Main);
    let record = |line: u32, span: Span, ts: Option<Ms>, name: &str, op: Op| {
        Record {
            ts,
            ..Record::new(line, span, Body::Fn(FnCall::new(name, op)))
        }
        .from_origin(origin.clone())
    };
    // A transcript does not show when an agent joined. One the header
    // names is in the call from the first line on; any other hears the
    // room from its own first line on (agents greet right after joining),
    // or from the start when it never speaks.
    let start = || entries.iter().position(|e| matches!(e, Entry::Utt(_)));
    let first_utt = if me.listed {
        start()
    } else {
        entries
            .iter()
            .position(|e| matches!(e, Entry::Utt(u) if u.speaker == me.name))
            .or_else(start)
    }
    .unwrap_or(entries.len());
    // The language in force then.
    let lang = entries[..first_utt].iter().rev().find_map(|e| match e {
        Entry::Lang {
            value, value_span, ..
        } => Some(Text::at_bytes(value.clone(), *value_span)),
        _ => None,
    });
    let role = cast.owner.as_ref().map(|o| {
        if *o == me.name {
            Role::Owner
        } else {
            Role::Participant
        }
    });
    let at = &me.label_at;
    records.push(record(
        at.line,
        at.line_span,
        None,
        "join",
        Op::Join(Box::new(Join {
            label: Some(Text::at_bytes(me.name.clone(), at.span)),
            status: Some("waiting_for_human".into()),
            context: Some(Context { lang, mode: None }),
            role,
            ..Join::default()
        })),
    ));
    let mut last_wake: Option<Ms> = None;
    let mut woken_without_time = false;
    for e in &entries[first_utt..] {
        match e {
            Entry::Lang {
                line,
                span,
                value,
                value_span,
            } => records.push(record(
                *line,
                *span,
                None,
                "next",
                Op::next(Event::new(EventKind::Context(Box::new(Context {
                    lang: Some(Text::at_bytes(value.clone(), *value_span)),
                    mode: None,
                })))),
            )),
            Entry::Utt(u) => {
                let op = if u.speaker == me.name {
                    Op::Say(Box::new(Say {
                        text: Some(Text::at_bytes(u.text.clone(), u.text_span)),
                        ..Say::default()
                    }))
                } else if cast.human.as_deref() == Some(u.speaker.as_str()) {
                    Op::next(Event::new(EventKind::User(Box::new(line(&u.speaker, u)))))
                } else if cast.is_voicebot(&u.speaker) {
                    let mut ev = Event::new(EventKind::Timeout);
                    ev.agent_said = Box::new([line(&u.speaker, u)]);
                    Op::next(ev)
                } else {
                    let to_me = roster
                        .addressees(&u.text)
                        .iter()
                        .any(|n| same_name(n, &me.name));
                    let may_wake = match (u.ts, last_wake) {
                        (Some(t), Some(w)) => t - w >= OPERATOR_EVERY_MS,
                        (Some(_), None) => true,
                        (None, _) => !woken_without_time,
                    };
                    if to_me && may_wake {
                        match u.ts {
                            Some(t) => last_wake = Some(t),
                            None => woken_without_time = true,
                        }
                        let mut l = line(&u.speaker, u);
                        l.addressed_to_you = Some(true);
                        Op::next(Event::new(EventKind::Operator(Box::new(l))))
                    } else {
                        woken_without_time = false;
                        let mut ev = Event::new(EventKind::Timeout);
                        ev.operators_said = Box::new([line(&u.speaker, u)]);
                        Op::next(ev)
                    }
                };
                let name = if matches!(op, Op::Say(_)) {
                    "say"
                } else {
                    "next"
                };
                records.push(record(u.line, u.span, u.ts, name, op));
            }
        }
    }
    Log {
        meta: Some(Meta {
            format: None,
            recorder: Some(recorder.into()),
            client: None,
            human: cast.human.clone(),
            // Only when there is one: a call without it reads the name's
            // variants as words ([`crate::model::HEARD`]).
            voicebot: cast.voicebot_known.then(|| cast.voicebot.clone()),
        }),
        records,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "# lang: en\n# human: Oliver\n# agents: opencode, Promo\n\n[09:59:58] opencode: Hi, this is opencode.\n[09:59:59] Promo: Hi, this is Promo.\n[10:00:01] Oliver: Promo, is the build green?\n[10:00:03] Promo: Yes, the build is green.\n[10:00:04] opencode: Promo, can you check the logs?\n[10:00:06] Delta: Sure.\n# lang: de\n[10:00:09] opencode: Alles klar.\n";

    fn say_texts(log: &Log) -> Vec<&str> {
        log.records
            .iter()
            .filter_map(|r| match &r.as_fn()?.op {
                Op::Say(s) => Some(s.text.as_ref()?.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn one_log_per_agent_with_everyone_else_as_events() {
        let p = parse(T.as_bytes(), &Options::default());
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(p.logs.len(), 2);
        let (op, promo) = (&p.logs[0], &p.logs[1]);
        assert_eq!(
            say_texts(op),
            [
                "Hi, this is opencode.",
                "Promo, can you check the logs?",
                "Alles klar."
            ]
        );
        // Promo, named in the header, hears the room from the first line on
        assert_eq!(
            say_texts(promo),
            ["Hi, this is Promo.", "Yes, the build is green."]
        );
        // Promo was addressed by opencode: an operator event
        let kinds: Vec<&str> = promo
            .records
            .iter()
            .filter_map(|r| next_event(r).map(|e| e.kind.name()))
            .collect();
        assert_eq!(
            kinds,
            ["timeout", "user", "operator", "timeout", "context", "timeout"]
        );
        // the texts point at their bytes
        let r = &op.records[3];
        let ev = next_event(r).unwrap();
        let EventKind::User(l) = &ev.kind else {
            panic!()
        };
        let t = l.text.as_ref().unwrap();
        let s = t.within().unwrap();
        assert_eq!(&T[s.start..s.end], "Promo, is the build green?");
        assert_eq!(r.ts, Some(36_001_000));
        // the join carries the label and the language
        let Op::Join(j) = &op.records[0].as_fn().unwrap().op else {
            panic!()
        };
        let lang = j.context.as_ref().unwrap().lang.as_ref().unwrap();
        let s = lang.within().unwrap();
        assert_eq!(&T[s.start..s.end], "en");
        assert!(!j.joined());
        let s = j.label.as_ref().unwrap().within().unwrap();
        assert_eq!(&T[s.start..s.end], "opencode");
    }

    #[test]
    fn the_call_sees_the_room() {
        let p = parse(T.as_bytes(), &Options::default());
        let cast = crate::model::Cast::default();
        let log = &p.logs[0];
        let call = Call::build(log.meta.as_ref(), &log.records, &cast);
        assert_eq!(call.recorder, Some("opencode"));
        assert_eq!(call.human, Some("Oliver"));
        assert_eq!(call.utterances.len(), 7);
        assert_eq!(call.utterances[0].who, Who::Me);
        assert_eq!(call.utterances[2].who, Who::Human);
        assert_eq!(call.utterances[2].addressed_to, ["Promo"]);
        assert_eq!(call.utterances[5].who, Who::Voicebot);
        assert_eq!(call.lang_at(1).unwrap().lang, "en");
        assert_eq!(call.lang_at(99).unwrap().lang, "de");
    }

    #[test]
    fn human_is_inferred_and_times_are_optional() {
        let src = "# agents: A\nOliver: A, hi.\n[x] A: Hello.\nnot an utterance\n[23:59:59] Oliver: late\n[00:00:01] A: early\n";
        let p = parse(src.as_bytes(), &Options::default());
        assert_eq!(p.problems.len(), 2, "{:?}", p.problems);
        assert!(p.problems[0].message.contains("not a time"));
        assert!(p.problems[1].message.contains("neither"));
        let log = &p.logs[0];
        assert_eq!(log.meta.as_ref().unwrap().human.as_deref(), Some("Oliver"));
        let times: Vec<Option<Ms>> = log.records.iter().map(|r| r.ts).collect();
        // A, named in the header, hears from the first line on; the clock
        // passed midnight
        assert_eq!(
            times,
            [None, None, None, Some(86_399_000), Some(86_401_000)]
        );
    }

    /// Kinds of the events of one agent's log, in order.
    fn kinds(log: &Log) -> Vec<&str> {
        log.records
            .iter()
            .filter_map(|r| next_event(r).map(|e| e.kind.name()))
            .collect()
    }

    #[test]
    fn agents_in_the_header_are_in_the_call_from_the_start() {
        // Tarn is listed, Wren is not: Tarn hears Ines's first line, Wren
        // only joins with its own first line.
        let src = "# human: Ines\n# agents: Pico, Tarn\n[00:01:05] Ines: Pico, restart the worker.\n[00:01:05] Pico: On it.\n[00:01:06] Wren: Hi, this is Wren.\n[00:01:07] Tarn: Hi, this is Tarn.\n";
        let p = parse(src.as_bytes(), &Options::default());
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        let [pico, tarn, wren] = &p.logs[..] else {
            panic!("{} logs", p.logs.len())
        };
        // Pico heard the request before its answer of the same second.
        assert_eq!(kinds(pico), ["user", "timeout", "timeout"]);
        assert!(matches!(
            pico.records[2].as_fn().map(|f| &f.op),
            Some(Op::Say(_))
        ));
        assert_eq!(kinds(tarn), ["user", "timeout", "timeout"]);
        assert_eq!(kinds(wren), ["timeout"]);
    }

    #[test]
    fn same_second_lines_keep_the_files_order() {
        let src = "# human: Ines\n# agents: Pico, Tarn\n[00:01:05] Ines: Pico, restart the worker.\n[00:01:05] Pico: On it.\n[00:01:05] Tarn: Pico, the worker is on host two.\n";
        let p = parse(src.as_bytes(), &Options::default());
        let log = &p.logs[0];
        let cast = crate::model::Cast::default();
        let call = Call::build(log.meta.as_ref(), &log.records, &cast);
        let order: Vec<Who> = call.utterances.iter().map(|u| u.who).collect();
        assert_eq!(order, [Who::Human, Who::Me, Who::Agent]);
        assert!(crate::lint::engine::fired_in("ack-not-addressed", "t.txt", src).is_empty());
    }

    #[test]
    fn no_human_header_with_several_speakers_leaves_the_roles_unknown() {
        // no sign of a voicehook call
        let p = parse(b"A: hi\nB: hello\n", &Options::default());
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert!(p.unknown_roles.as_ref().is_some_and(|u| !u.voicehook));
        assert_eq!(p.logs.len(), 2);
        // Delta speaks: a voicehook call whose human is not named
        let p = parse(b"Delta: hi\nA: hi\nB: hello\n", &Options::default());
        assert!(p.unknown_roles.as_ref().is_some_and(|u| u.voicehook));
        // the agents from the configuration leave one human
        let opts = Options {
            agents: vec!["B".into()],
            ..Options::default()
        };
        let p = parse(b"A: hi\nB: hello\n", &opts);
        assert!(p.unknown_roles.is_none());
        assert_eq!(p.logs.len(), 1);
        assert_eq!(p.logs[0].meta.as_ref().unwrap().human.as_deref(), Some("A"));
    }

    #[test]
    fn hostile_input_never_panics() {
        for src in [
            &b""[..],
            b"\n\n",
            b"#",
            b"# agents: ,,,",
            b"# lang:",
            b"[",
            b"[]",
            b"[]:",
            b"[1:2:3:4] a: b",
            b"[99] a: b",
            b"\xff\xfe: x",
            b"a:",
            b": x",
            b"[10:00:00]",
            b"[10:00:00.] A: x",
            b"[10:00:00.\xc3] A: x",
            "[٣:٣:٣] A: x".as_bytes(),
        ] {
            let _ = parse(src, &Options::default());
        }
        let long = format!(
            "# agents: {}\n{}",
            "x,".repeat(10_000),
            "A: b\n".repeat(1000)
        );
        let _ = parse(long.as_bytes(), &Options::default());
    }
}
