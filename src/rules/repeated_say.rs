//! `repeated-say`: saying what someone else has just said (rulebook rule
//! 10 and the checklist).

use crate::core::hash::HashSet;

use crate::core::diagnostic::{Finding, Severity};
use crate::core::escape::quote;
use crate::core::meta::{Evidence, OptValue, OptionMeta, RuleMeta, Scope, When};
use crate::model::{Via, Who};
use crate::rules::{Cx, Rule};
use crate::text::lexicon::Lexicon;
use crate::text::words::{NameList, Phrases, Words};

pub struct Check;

static META: RuleMeta = RuleMeta {
    name: "repeated-say",
    rulebook: "10, checklist",
    scope: Scope::Room,
    when: When::Before,
    needs: Evidence::SPEECH.and(Evidence::ROLES),
    instruction: Some("repeating aloud what others said, or the agent's own doing over and over"),
    default_severity: Severity::Warning,
    summary: "a `say` that repeats what another participant said just before",
    options: &[
        OptionMeta {
            name: "window-ms",
            default: OptValue::Int(30_000),
            help: "how far back, in milliseconds, another line counts as just said",
        },
        OptionMeta {
            name: "min-overlap",
            default: OptValue::Float(0.75),
            help: "share of the say's content words that must appear in the earlier line",
        },
    ],
};

/// At most this many earlier lines are compared with one say.
const LOOK_BACK: usize = 12;

impl Rule for Check {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn instruction(
        &self,
        i: &crate::text::instructions::Instruction,
    ) -> Option<crate::core::diagnostic::Finding> {
        use crate::rules::at_instruction;
        use crate::text::instructions::concept::*;
        // said again in the call: what another participant said, or the
        // agent's own doing over and over
        // a summary of the agent's own doing, over and over, repeats too
        let own_doing = i.has(PERIODIC) && i.has(DOING);
        let repeats = i.tells_any(REPEAT) || own_doing && i.tells_any(RECAP);
        if !repeats || i.if_any(REPEAT) || i.has(LINK) {
            return None;
        }
        // asked to repeat, or asking someone to ("ask them to repeat")
        if i.has(&["ask*", "bitte*", "frag*"]) {
            return None;
        }
        let spoken = i.has(&[
            "aloud",
            "out loud",
            "laut",
            "in the call",
            "im call",
            "say*",
            "sag*",
        ]) || !i.has(&["board", "activity", "aktivität*", "log", "notes", "notiz*"]);
        let others = i.has(OTHER_AGENT)
            || i.has(DELTA)
            || i.has(&["someone else", "others", "jemand anderes", "andere"]);
        if !spoken || !(others || own_doing) {
            return None;
        }
        Some(at_instruction(i, "this instruction has the agent say again what the call has already heard", "say to add only what is missing, or nothing, and to keep the board fresh instead of repeating it aloud"))
    }

    fn check(&self, cx: &mut Cx<'_, '_>) {
        let window = cx.int("window-ms");
        let min_overlap = cx.float("min-overlap");
        let call = cx.call;
        let lex = Lexicon::get();
        let names = call.name_words();
        // Each line's content words, worked out once however many says
        // look back at it: kept for the lines a say can still reach, in a
        // ring with a slot per line of the look-back.
        let content = Content::new(lex, &names);
        // The lines looked back at, by index: each is looked back at by up
        // to LOOK_BACK says, and its text read once.
        let mut seen: [Seen; LOOK_BACK + 1] = std::array::from_fn(|_| Seen::default());
        let mut mine = Words::default();
        let mut out = Vec::new();
        for (k, u) in call.utterances.iter().enumerate() {
            if u.who != Who::Me || u.via != Via::Say || !cx.judges(u.record()) {
                continue;
            }
            // A greeting or an acknowledgement says nothing to repeat
            // (whether an acknowledgement was called for is
            // `ack-not-addressed`'s to judge).
            if crate::model::turns::is_greeting(lex, u)
                || super::ack_not_addressed::bare_ack(lex, u.text, &names)
            {
                continue;
            }
            content.fill(&mut mine, u.text);
            if mine.len() < 2 {
                continue;
            }
            let from = k.saturating_sub(LOOK_BACK);
            for j in (from..k).rev() {
                let p = &call.utterances[j];
                if let (Some(a), Some(b)) = (u.ts(), p.ts()) {
                    if a - b > window {
                        break;
                    }
                }
                if !matches!(p.who, Who::Agent | Who::Voicebot) {
                    continue;
                }
                let slot = &mut seen[j % (LOOK_BACK + 1)];
                if slot.line != j {
                    slot.look(j, p.text);
                }
                if slot.question {
                    continue;
                }
                let enough =
                    |shared: usize| shared >= 2 && shared as f64 >= min_overlap * mine.len() as f64;
                if slot.words.is_none() && slot.ascii {
                    // A shared word is a word of the line, or the stem of
                    // one, so it appears in the line's lower-cased text:
                    // when too few do, the line's words need no splitting.
                    let low = slot.low.as_str();
                    if !enough(mine.iter().filter(|m| low.contains(m)).count()) {
                        continue;
                    }
                }
                let theirs = slot.words.get_or_insert_with(|| {
                    let mut c = Words::default();
                    content.fill(&mut c, p.text);
                    c
                });
                if enough(mine.common(theirs)) {
                    let ago = match (u.ts(), p.ts()) {
                        (Some(a), Some(b)) => {
                            format!(" {:.0} s before", (a - b).max(0) as f64 / 1000.0)
                        }
                        _ => String::new(),
                    };
                    out.push(
                        Finding::new(u.anchor(), format!("this say repeats what {} just said", p.speaker))
                            .here("adds nothing the room has not heard")
                            .label(p.anchor(), format!("{} said it here{ago}: {}", p.speaker, quote(p.text, 50)))
                            .help("when someone has already said it, add only what is missing, or nothing"),
                    );
                    break;
                }
            }
        }
        for f in out {
            cx.report(f);
        }
    }
}

/// A line looked back at: what the says after it ask of it, worked out
/// once.
struct Seen {
    /// Its index in the call's utterances (`usize::MAX`: none yet).
    line: usize,
    /// It asks something: a say like it answers it, it does not repeat it.
    question: bool,
    /// Its text is ASCII, and `low` its lower case.
    ascii: bool,
    low: String,
    /// Its content words, once a say shares enough of them by `low`.
    words: Option<Words>,
}

impl Default for Seen {
    fn default() -> Seen {
        Seen {
            line: usize::MAX,
            question: false,
            ascii: false,
            low: String::new(),
            words: None,
        }
    }
}

impl Seen {
    /// Look at line `line`, of text `text`, keeping the buffers.
    fn look(&mut self, line: usize, text: &str) {
        self.line = line;
        self.question = text.trim_end().ends_with('?');
        self.ascii = text.is_ascii();
        self.low.clear();
        if self.ascii && !self.question {
            self.low.push_str(text);
            self.low.make_ascii_lowercase();
        }
        self.words = None;
    }
}

/// The words of a line that carry its content: no stop words, no names,
/// plural `s` dropped.
/// Saying again.
const REPEAT: &[&str] = &[
    "repeat*",
    "restate*",
    "echo*",
    "say it again",
    "say them again",
    "wiederhol*",
    "noch einmal",
    "nochmal",
];
/// Summing up.
const RECAP: &[&str] = &[
    "recap*",
    "summar*",
    "zusammenfass*",
    "fass* zusammen",
    "update the human",
    "tell the human",
];
/// Over and over.
const PERIODIC: &[&str] = &[
    "after each",
    "after every",
    "each time",
    "every time",
    "nach jedem",
    "nach jeder",
    "jedes mal",
    "every few minutes",
    "every minute",
    "every couple of minutes",
    "periodically",
    "regularly",
    "from time to time",
    "at intervals",
    "alle paar minuten",
    "jede minute",
    "regelmäßig",
    "immer wieder",
    "zwischendurch",
];
/// What the agent is doing.
const DOING: &[&str] = &[
    "what you are*",
    "what you're*",
    "your progress",
    "your status",
    "your current",
    "progress",
    "was du gerade",
    "was du tust",
    "woran du",
    "deinen stand",
    "deinen fortschritt",
    "fortschritt",
];

#[cfg(test)]
fn content(lex: &Lexicon, text: &str, names: &HashSet<String>) -> HashSet<String> {
    let mut out = Words::default();
    Content::new(lex, names).fill(&mut out, text);
    out.iter().map(str::to_string).collect()
}

/// What [`content`] leaves out, looked up once per call.
struct Content<'l> {
    stop: &'l Phrases,
    names: NameList,
}

impl<'l> Content<'l> {
    fn new(lex: &'l Lexicon, names: &HashSet<String>) -> Content<'l> {
        Content {
            stop: lex.phrases("speech.stopwords"),
            names: NameList::new(names),
        }
    }

    /// The content words of `text` into `out`, as a set for
    /// [`Words::common`].
    fn fill(&self, out: &mut Words, text: &str) {
        out.fill_kept(text, |w| {
            if self.names.contains(w) || self.stop.has(w) {
                return None;
            }
            Some(match w.strip_suffix('s') {
                Some(stem) if stem.chars().count() > 3 => stem.len(),
                _ => w.len(),
            })
        });
        out.sort_unique();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_words() {
        let lex = Lexicon::get();
        let names: HashSet<String> = ["promo".to_string()].into_iter().collect();
        let a = content(lex, "Yes, I also saw the build is green.", &names);
        let b = content(
            lex,
            "Yes, Promo: the build is green, the release is ready.",
            &names,
        );
        assert_eq!(
            a,
            ["build", "green"].map(String::from).into_iter().collect()
        );
        assert_eq!(a.intersection(&b).count(), 2);
        let c = content(lex, "Der Build ist grün, das Release kann raus.", &names);
        assert!(c.contains("build") && c.contains("grün") && !c.contains("der"));
    }
}
