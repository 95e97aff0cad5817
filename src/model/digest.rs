//! A call's lines, owned and compact: what merging several logs of one
//! call into a room needs of each ([`crate::room`]), and nothing else.
//!
//! A [`Call`] borrows its parsed records, which hold every event, argument
//! and result of the log. A digest keeps, for each line, who spoke it, its
//! text, its time, whom it addressed and where it is in the file, plus the
//! call's language settings and cast. The linter makes one of each call
//! with an id while it has the call built ([`crate::lint::engine::Linter::lint_keeping`]),
//! so a room of many logs neither holds their records nor builds their
//! calls a second time.

use crate::core::hash::{HashMap, HashSet};

use crate::model::{next_event, Anchor, Call, EventKind, Ms, Name, Op, Role, Span, Who};

/// One call of one log, as a room merges it.
#[derive(Clone, Debug, Default)]
pub struct Digest {
    /// The call id ([`crate::model::call_id`]), when the log names one.
    pub call_id: Option<String>,
    pub recorder: Option<String>,
    pub recorder_role: Option<Role>,
    pub human: Option<String>,
    pub voicebot: String,
    /// Some record of the call carries a time.
    pub timed: bool,
    /// Every line, in the call's order (index for index the call's
    /// utterances).
    pub lines: Vec<Heard>,
    /// The language settings, in the call's order.
    pub langs: Vec<LangSeen>,
    /// The lines' texts, one after another ([`Heard::text`] is a range).
    texts: String,
}

/// A line of a digest.
#[derive(Clone, Debug)]
pub struct Heard {
    /// Index of the record it came from, in its call.
    pub record: usize,
    pub who: Who,
    pub speaker: Name,
    text: (u32, u32),
    /// The line's own time, else its record's.
    pub ts: Option<Ms>,
    pub addressed: Box<[Name]>,
    /// `addressed` as the log recorded it, not computed.
    pub recorded: bool,
    pub to_human: Option<bool>,
    /// Where the text is.
    pub anchor: Anchor,
    /// The line number and bytes of its record.
    pub line: u32,
    pub span: Span,
    /// The recorder's own say that was never heard (refused, dropped, or
    /// revised by the server).
    pub dropped: bool,
}

/// A language setting of a digest.
#[derive(Clone, Debug)]
pub struct LangSeen {
    /// Its record's time.
    pub ts: Option<Ms>,
    /// A join reported it.
    pub join: bool,
    pub lang: String,
    pub anchor: Anchor,
}

impl Digest {
    /// The digest of a built call.
    pub fn of(call: &Call<'_>) -> Digest {
        let dropped = dropped_says(call);
        // Speakers are few: one shared name each.
        let mut names: HashMap<&str, Name> = HashMap::default();
        let mut texts = String::with_capacity(call.utterances.iter().map(|u| u.text.len()).sum());
        let lines = call
            .utterances
            .iter()
            .map(|u| {
                let r = &call.records[u.record()];
                let start = texts.len();
                texts.push_str(u.text);
                let speaker = names
                    .entry(u.speaker)
                    .or_insert_with(|| Name::from(u.speaker))
                    .clone();
                Heard {
                    record: u.record(),
                    who: u.who,
                    speaker,
                    text: (offset(start), offset(texts.len())),
                    ts: u.ts().or(r.ts),
                    addressed: u.addressed_to.to_vec().into_boxed_slice(),
                    recorded: !u.addressed_to.computed(),
                    to_human: u.to_human,
                    anchor: u.anchor(),
                    line: r.line,
                    span: r.span,
                    dropped: u.who == Who::Me && dropped.contains(&u.record()),
                }
            })
            .collect();
        let langs = call
            .langs
            .iter()
            .map(|l| {
                let r = &call.records[l.record];
                LangSeen {
                    ts: r.ts,
                    join: matches!(r.as_fn().map(|f| &f.op), Some(Op::Join(_))),
                    lang: l.lang.to_string(),
                    anchor: l.anchor,
                }
            })
            .collect();
        Digest {
            call_id: call.call_id.map(str::to_string),
            recorder: call.recorder.map(str::to_string),
            recorder_role: call.recorder_role,
            human: call.human.map(str::to_string),
            voicebot: call.voicebot.to_string(),
            timed: call.records.iter().any(|r| r.ts.is_some()),
            lines,
            langs,
            texts,
        }
    }

    /// A digest of the given lines (who, speaker, text, time), each its
    /// own record, for tests of what reads digests.
    #[cfg(test)]
    pub(crate) fn of_lines(lines: &[(Who, &str, &str, Option<Ms>)]) -> Digest {
        let mut d = Digest {
            voicebot: "Delta".to_string(),
            timed: lines.iter().any(|l| l.3.is_some()),
            ..Digest::default()
        };
        for (record, &(who, speaker, text, ts)) in lines.iter().enumerate() {
            let start = d.texts.len();
            d.texts.push_str(text);
            d.lines.push(Heard {
                record,
                who,
                speaker: Name::from(speaker),
                text: (offset(start), offset(d.texts.len())),
                ts,
                addressed: Box::new([]),
                recorded: false,
                to_human: None,
                anchor: Anchor::bytes(Span::new(record, record + 1)),
                line: record as u32 + 1,
                span: Span::new(record, record + 1),
                dropped: false,
            });
        }
        d
    }

    /// The text of one of its lines.
    pub fn text(&self, h: &Heard) -> &str {
        self.texts
            .get(h.text.0 as usize..h.text.1 as usize)
            .unwrap_or_default()
    }
}

/// A position in a digest's texts. Texts past 4 GiB in one call are cut
/// short rather than wrapped (no log that large is read whole).
fn offset(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Records of the recorder's says that were never heard: refused, dropped,
/// or revised by the server.
pub fn dropped_says(call: &Call<'_>) -> HashSet<usize> {
    let revised: HashSet<&str> = call
        .records
        .iter()
        .filter_map(next_event)
        .filter_map(|ev| match &ev.kind {
            EventKind::Revise(r) => r.say_id.as_deref(),
            _ => None,
        })
        .collect();
    call.records
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            let Some(f) = r.as_fn() else { return false };
            let Op::Say(s) = &f.op else { return false };
            !f.ok()
                || s.say_status.as_deref() == Some("dropped")
                || s.say_id.as_deref().is_some_and(|id| revised.contains(id))
        })
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::native::parse;
    use crate::model::Cast;

    const LOG: &str = r#"{"meta":{"format":1,"human":"Oliver"}}
{"ts":"2026-10-10T10:00:00.000Z","call":"c-1","fn":"join","args":{"call_id":"c-1","label":"Ann","greet":true},"result":{"status":"joined","role":"owner","context":{"lang":"en"}}}
{"ts":"2026-10-10T10:00:20.000Z","call":"c-1","fn":"next","result":{"type":"user","speaker":"Oliver","text":"Ann, what's on the boards?","addressed_to":["Ann"],"addressed_to_you":true}}
{"ts":"2026-10-10T10:00:22.000Z","call":"c-1","fn":"say","args":{"text":"Two tasks are open."},"result":{"say_status":"dropped"}}
{"ts":"2026-10-10T10:00:23.000Z","call":"c-1","fn":"say","args":{"text":"Two tasks are open, Oliver."}}
"#;

    #[test]
    fn a_digest_keeps_each_line_with_its_place_and_fate() {
        let (log, _) = parse(LOG.as_bytes());
        let cast = Cast::default();
        let call = Call::build(log.meta.as_ref(), &log.records, &cast);
        let d = Digest::of(&call);
        assert_eq!(d.call_id.as_deref(), Some("c-1"));
        assert_eq!(d.recorder.as_deref(), Some("Ann"));
        assert_eq!(d.recorder_role, Some(Role::Owner));
        assert_eq!(d.human.as_deref(), Some("Oliver"));
        assert!(d.timed);
        assert_eq!(d.lines.len(), call.utterances.len());
        let texts: Vec<(&str, Who, bool)> = d
            .lines
            .iter()
            .map(|h| (d.text(h), h.who, h.dropped))
            .collect();
        assert_eq!(
            texts,
            [
                ("Ann, what's on the boards?", Who::Human, false),
                ("Two tasks are open.", Who::Me, true),
                ("Two tasks are open, Oliver.", Who::Me, false),
            ]
        );
        let asked = &d.lines[0];
        assert!(asked.recorded);
        assert_eq!(&*asked.addressed[0], "Ann");
        assert_eq!(asked.line, 3);
        let u = &call.utterances[0];
        assert_eq!(asked.anchor, u.anchor());
        assert_eq!(asked.span, log.records[u.record()].span);
        // The text's anchor points at its bytes in the log.
        let index = crate::core::lines::LineIndex::new(LOG.as_bytes());
        let at = crate::core::lines::resolve(LOG.as_bytes(), &index, &asked.anchor).span;
        assert_eq!(&LOG[at.start..at.end], "\"Ann, what's on the boards?\"");
        assert_eq!(d.langs.len(), 1);
        assert!(d.langs[0].join);
        assert_eq!(d.langs[0].lang, "en");
    }
}
