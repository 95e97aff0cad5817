//! Languages other than the call languages: is a say in French, Polish or
//! Russian rather than in English or German?
//!
//! [`crate::text::language`] tells English from German with a model of the
//! two. This module adds what that model cannot see, in the same pass over
//! the words of a text ([`Evidence`]):
//!
//! - **Other scripts.** Letters of a script no call language is written in
//!   (Cyrillic, Greek, Arabic, Hebrew, Han, kana, Hangul, Devanagari, Thai,
//!   ...) are decisive on their own once they outnumber the Latin letters;
//!   `whatlang` names the language within that script. Han characters
//!   without kana are named "Chinese or Japanese": the characters alone do
//!   not tell.
//! - **Other Latin-script languages.** A word-frequency table of 25 of them
//!   (the 20,000 most frequent words of each, from wordfreq;
//!   `rules/lexicon/lang-others.txt`, built by
//!   `scripts/lang-others-build.py`). Each word scores `ln P(word)` in every
//!   language: its frequency where that language's list has it, else the
//!   language's floor (the frequency of its last listed word) less a
//!   penalty; English and German score as the call-language model scores
//!   them. Words on no list at all carry nothing. The line is in another
//!   language when that language leads the call language by
//!   [`MIN_MARGIN`] nats, leads the other call language too, and at least
//!   the line has two words or more that the call-language model scored,
//!   one of them listed in that language.
//!
//! What stays silent, by design: a single word (a loanword, a greeting, a
//! name), capitalised words inside a sentence (names, which a call is full
//! of; the call-language model still reads German nouns), and whatever the
//! call-language model discounts (names the caller passes, code, URLs,
//! numbers, acronyms).
//!
//! Cost: the table is an FST that `build.rs` builds once and the binary
//! reads in place; a word costs one lookup and a sum over the languages.

use std::sync::OnceLock;

mod table {
    include!(concat!(env!("OUT_DIR"), "/others.rs"));
}

/// Number of other Latin-script languages in the table.
pub const M: usize = table::CODES.len();

/// Least lead (nats) of another language over the call language.
pub const MIN_MARGIN: f32 = 3.0;
/// A line is mixed, and not judged, when the words the call language wins
/// lead by at least this share of what the other language's words lead by
/// (and by at least [`MIXED_MIN`] nats): a name or a quoted phrase in
/// another language inside a call-language line.
const MIXED_RATIO: f32 = 0.6;
const MIXED_MIN: f32 = 3.0;
/// A second language within this many nats of the best is named with it.
const RIVAL: f32 = 1.5;
/// Most evidence (nats) one word can give, as in the call-language model.
const WORD_CAP: f32 = 8.0;
/// A word a language does not list scores its floor less this.
const UNLISTED: f32 = 1.0;
/// What a word scores in a language whose list lacks it: the floor less
/// [`UNLISTED`].
const UNLISTED_SCORES: [f32; M] = {
    let mut out = [0.0; M];
    let mut i = 0;
    while i < M {
        out[i] = table::FLOORS[i] - UNLISTED;
        i += 1;
    }
    out
};
/// The least of [`UNLISTED_SCORES`]: what a call language scores for a
/// word its model cannot spell.
const LEAST_UNLISTED: f32 = {
    let mut least = 0.0f32;
    let mut i = 0;
    while i < M {
        if UNLISTED_SCORES[i] < least {
            least = UNLISTED_SCORES[i];
        }
        i += 1;
    }
    least
};
/// Bytes of other-script text kept for naming its language.
const SCRIPT_SAMPLE: usize = 256;

static FST: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/others.fst"));
static ENTRIES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/others.bin"));

/// English names, by code; a test keeps them in step with the table.
const NAMES: [(&str, &str); M] = [
    ("ca", "Catalan"),
    ("cs", "Czech"),
    ("da", "Danish"),
    ("es", "Spanish"),
    ("fi", "Finnish"),
    ("fil", "Filipino"),
    ("fr", "French"),
    ("hu", "Hungarian"),
    ("id", "Indonesian"),
    ("is", "Icelandic"),
    ("it", "Italian"),
    ("lt", "Lithuanian"),
    ("lv", "Latvian"),
    ("ms", "Malay"),
    ("nb", "Norwegian"),
    ("nl", "Dutch"),
    ("pl", "Polish"),
    ("pt", "Portuguese"),
    ("ro", "Romanian"),
    ("sh", "Serbo-Croatian"),
    ("sk", "Slovak"),
    ("sl", "Slovenian"),
    ("sv", "Swedish"),
    ("tr", "Turkish"),
    ("vi", "Vietnamese"),
    ("ru", "Russian"),
    ("uk", "Ukrainian"),
    ("bg", "Bulgarian"),
    ("mk", "Macedonian"),
    ("ar", "Arabic"),
    ("fa", "Persian"),
    ("ur", "Urdu"),
];

/// A language that is not a call language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Other {
    /// English name: `"French"`, `"Russian"`, `"Chinese or Japanese"`.
    pub name: &'static str,
    /// ISO 639-1 code where there is one (`"fr"`), else ISO 639-3 (`"fil"`)
    /// or the script's name (`"Han"`).
    pub code: &'static str,
    /// A close relative that the words fit almost as well (Portuguese for
    /// a line of Spanish words both use), named beside it: name and code.
    pub or: Option<(&'static str, &'static str)>,
}

impl Other {
    /// `"Spanish"`, or `"Spanish or Portuguese"` when a relative fits too.
    pub fn names(&self) -> String {
        match self.or {
            Some((name, _)) => format!("{} or {name}", self.name),
            None => self.name.to_string(),
        }
    }

    /// Is `code` the language, or the relative named with it?
    pub fn is(&self, code: &str) -> bool {
        self.code == code || self.or.is_some_and(|(_, c)| c == code)
    }
}

fn table() -> Option<&'static fst::Map<&'static [u8]>> {
    static MAP: OnceLock<Option<fst::Map<&'static [u8]>>> = OnceLock::new();
    MAP.get_or_init(|| fst::Map::new(FST).ok()).as_ref()
}

/// Load the table now instead of on first use.
pub fn warm_up() {
    let _ = table();
}

/// How many words [`listed_at`] remembers per thread before it starts
/// afresh.
const REMEMBERED: usize = 4096;

/// Where the entries of `word` (lower-cased) start, if a language lists it.
///
/// A lookup walks the FST a byte at a time through a table of several
/// megabytes, which costs more than scoring the word does. The words of a
/// call repeat (a few hundred of them make up most of any conversation),
/// so each thread remembers the answers for the last words it looked up:
/// the same answers, found once. Only words as long as the language model
/// looks up are remembered, which bounds what a thread keeps (4096 words of
/// at most 64 bytes) whatever the text.
fn listed_at(word: &str) -> Option<u64> {
    use std::cell::RefCell;
    thread_local! {
        static SEEN: RefCell<crate::core::hash::HashMap<Box<str>, Option<u64>>> =
            RefCell::new(crate::core::hash::HashMap::default());
    }
    if word.len() > crate::text::langmodel::MAX_WORD_BYTES {
        return table()?.get(word);
    }
    SEEN.with_borrow_mut(|seen| {
        if let Some(&at) = seen.get(word) {
            return at;
        }
        let at = table()?.get(word);
        if seen.len() >= REMEMBERED {
            seen.clear();
        }
        seen.insert(word.into(), at);
        at
    })
}

/// The scores of `word` (lower-cased) in every other language, or None if
/// none of them lists it.
fn scores(word: &str) -> Option<[f32; M]> {
    let start = usize::try_from(listed_at(word)?).ok()?;
    let mut out = UNLISTED_SCORES;
    for entry in ENTRIES.get(start * 3..)?.chunks_exact(3) {
        if let Some(slot) = out.get_mut(usize::from(entry[0] & 0x7f)) {
            *slot = -f32::from(u16::from_le_bytes([entry[1], entry[2]])) / 100.0;
        }
        if entry[0] & 0x80 != 0 {
            break;
        }
    }
    Some(out)
}

/// The largest of `v` (none of which is NaN): eight running maxima side by
/// side, which the compiler keeps in vector registers, where one running
/// maximum is a chain of dependent steps. The maximum of numbers does not
/// depend on the order they are taken in.
fn max_of(v: &[f32; M]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 8];
    let mut chunks = v.chunks_exact(8);
    for chunk in &mut chunks {
        for (l, x) in lanes.iter_mut().zip(chunk) {
            *l = l.max(*x);
        }
    }
    let rest = chunks.remainder().iter().copied();
    lanes
        .into_iter()
        .chain(rest)
        .fold(f32::NEG_INFINITY, f32::max)
}

/// Counts, per language, a word its list holds (it scores above what an
/// unlisted word scores).
fn count_listed(listed: &mut [u16; M], scores: &[f32; M]) {
    for ((n, v), unlisted) in listed.iter_mut().zip(scores).zip(UNLISTED_SCORES) {
        if *v > unlisted {
            *n += 1;
        }
    }
}

/// Does `word` hold a letter of a script no call language is written in?
pub fn foreign_script(word: &str) -> bool {
    !word.is_ascii()
        && word
            .chars()
            .any(|c| c.is_alphabetic() && script(c) != Script::Latin)
}

/// Language `best`, with the runner-up among the languages that list a word
/// of the line when it scores within [`RIVAL`] of it.
fn named(best: usize, scores: &[f32; M], listed: &[u16; M]) -> Other {
    let rival = (0..M)
        .filter(|&i| i != best && listed[i] > 0 && scores[i] >= scores[best] - RIVAL)
        .max_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    Other {
        name: NAMES[best].1,
        code: NAMES[best].0,
        or: rival.map(|i| (NAMES[i].1, NAMES[i].0)),
    }
}

/// The script of a letter, as far as telling languages goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Han,
    Kana,
    /// Any other script: none of the call languages is written in it.
    Other,
}

fn script(c: char) -> Script {
    match c as u32 {
        0..=0x024F | 0x1E00..=0x1EFF | 0x2C60..=0x2C7F | 0xA720..=0xA7FF | 0xFF21..=0xFF5A => {
            Script::Latin
        }
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Script::Kana,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F => Script::Han,
        _ => Script::Other,
    }
}

/// What the words of one text say about other languages, gathered word by
/// word as the call-language model reads them.
#[derive(Debug, Clone)]
pub struct Evidence {
    /// Per other language, then English and German: the summed score.
    scores: [f32; M],
    call: [f32; 2],
    /// Per other language: how many judged words its list holds.
    listed: [u16; M],
    /// Per call language, then other language: the summed lead of the
    /// words the other language wins over the call language, and of those
    /// it loses. Laid out call language first, so that a word's update is
    /// one pass over each row (which the compiler does several lanes at a
    /// time).
    pro: [[f32; M]; 2],
    con: [[f32; M]; 2],
    latin_letters: usize,
    other_letters: usize,
    kana: bool,
    /// The first words in another script, for naming its language.
    sample: String,
    /// The words in another script, scored by the languages of those
    /// scripts in the table.
    script_scores: [f32; M],
    script_listed: [u16; M],
}

impl Default for Evidence {
    fn default() -> Self {
        Evidence {
            scores: [0.0; M],
            call: [0.0; 2],
            listed: [0; M],
            pro: [[0.0; M]; 2],
            con: [[0.0; M]; 2],
            latin_letters: 0,
            other_letters: 0,
            kana: false,
            sample: String::new(),
            script_scores: [0.0; M],
            script_listed: [0; M],
        }
    }
}

impl Evidence {
    /// A word with letters of a script no call language is written in, as
    /// written and lower-cased.
    pub fn script_word(&mut self, word: &str, lower: Option<&str>) {
        for c in word.chars().filter(|c| c.is_alphabetic()) {
            match script(c) {
                Script::Latin => {}
                Script::Kana => {
                    self.kana = true;
                    self.other_letters += 1;
                }
                Script::Han | Script::Other => self.other_letters += 1,
            }
        }
        if self.sample.len() + word.len() < SCRIPT_SAMPLE {
            self.sample.push_str(word);
            self.sample.push(' ');
        }
        if let Some(v) = lower.and_then(scores) {
            count_listed(&mut self.script_listed, &v);
            let best = max_of(&v);
            for (s, v) in self.script_scores.iter_mut().zip(v) {
                *s += v.max(best - WORD_CAP);
            }
        }
    }

    /// One word in Latin letters, as written (`word`) and lower-cased
    /// (`lower`). `inside`: the word does not start a sentence. `call`: its
    /// English and German scores from the call-language model, if it has
    /// any; `known`: one of their word lists holds it.
    pub fn word(
        &mut self,
        word: &str,
        lower: Option<&str>,
        inside: bool,
        call: Option<[f32; 2]>,
        known: bool,
    ) {
        let latin = if word.is_ascii() {
            word.bytes().filter(u8::is_ascii_alphabetic).count()
        } else {
            word.chars().filter(|c| c.is_alphabetic()).count()
        };
        self.latin_letters += latin;
        // A capitalised word inside a sentence is most often a name; a
        // single letter is a word in too many languages.
        if latin < 2 || (inside && word.chars().next().is_some_and(char::is_uppercase)) {
            return;
        }
        let listed = lower.and_then(scores);
        let (mut others, mut call) = match (listed, call) {
            (Some(o), Some(c)) => (o, c),
            // A word the call-language model cannot spell: each call
            // language gets the least floor.
            (Some(o), None) => (o, [LEAST_UNLISTED; 2]),
            // On no other list: a word of the call languages' lists scores
            // the other languages' floors; a word on no list carries nothing.
            (None, Some(c)) if known => (UNLISTED_SCORES, c),
            _ => return,
        };
        if let Some(o) = &listed {
            count_listed(&mut self.listed, o);
        }
        let best = max_of(&others).max(call[0]).max(call[1]);
        for v in others.iter_mut().chain(call.iter_mut()) {
            *v = v.max(best - WORD_CAP);
        }
        for (s, v) in self.scores.iter_mut().zip(&others) {
            *s += v;
        }
        for (c, cv) in call.iter().enumerate() {
            let (pro, con) = (&mut self.pro[c], &mut self.con[c]);
            for ((p, n), v) in pro.iter_mut().zip(con.iter_mut()).zip(&others) {
                // Each difference goes to one side; the other gets a zero,
                // which leaves it as it is (both start at zero and only
                // grow), so that the loop needs no branch.
                let d = v - cv;
                let up = d > 0.0;
                *p += if up { d } else { 0.0 };
                *n -= if up { 0.0 } else { d };
            }
        }
        self.call[0] += call[0];
        self.call[1] += call[1];
    }

    /// The other language the text is in, if it is in one. `call`: the call
    /// language's index in the call-language model (0 English, 1 German);
    /// `words`: how many words that model scored.
    pub fn verdict(&self, call: usize, words: usize) -> Option<Other> {
        if self.other_letters >= 2 && self.other_letters > self.latin_letters {
            return Some(self.script_language());
        }
        if words < 2 {
            return None;
        }
        let c = call.min(1);
        self.best_over(c)
            .filter(|&best| self.scores[best] > self.call[1 - c])
            .map(|best| named(best, &self.scores, &self.listed))
    }

    /// The other language that the call-language model's verdict `lang`
    /// (0 English, 1 German; not the call language) should be named instead:
    /// one that leads it as surely as [`Evidence::verdict`] asks.
    pub fn instead_of(&self, lang: usize) -> Option<Other> {
        self.best_over(lang.min(1))
            .map(|best| named(best, &self.scores, &self.listed))
    }

    /// The other language that fits the line within [`RIVAL`] of the
    /// call-language model's verdict `lang` (0 English, 1 German), to be
    /// named with it: name and code.
    pub fn rival_of(&self, lang: usize) -> Option<(&'static str, &'static str)> {
        let own = self.call[lang.min(1)];
        (0..M)
            .filter(|&i| self.listed[i] > 0 && self.scores[i] >= own - RIVAL)
            .max_by(|&a, &b| self.scores[a].total_cmp(&self.scores[b]))
            .map(|i| (NAMES[i].1, NAMES[i].0))
    }

    /// The best other language, when it leads the call-language-model
    /// language `c` surely and the line is not mixed.
    fn best_over(&self, c: usize) -> Option<usize> {
        // Of the languages whose lists hold a word of the line.
        let (best, score) = self
            .scores
            .iter()
            .copied()
            .enumerate()
            .filter(|&(i, _)| self.listed[i] > 0)
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        let lead = score - self.call[c];
        let (pro, con) = (self.pro[c][best], self.con[c][best]);
        let mixed = con >= MIXED_MIN && con >= MIXED_RATIO * pro;
        // One word of the line in the language's list: a loanword or a
        // name as often as not, so it must lead by twice as much.
        let margin = if self.listed[best] < 2 {
            2.0 * MIN_MARGIN
        } else {
            MIN_MARGIN
        };
        (lead >= margin && !mixed).then_some(best)
    }

    fn script_language(&self) -> Other {
        // The table's languages of that script, when they know its words.
        let listed = (0..M).filter(|&i| self.script_listed[i] > 0);
        if let Some(best) =
            listed.max_by(|&a, &b| self.script_scores[a].total_cmp(&self.script_scores[b]))
        {
            return named(best, &self.script_scores, &self.script_listed);
        }
        if !self.kana && self.sample.chars().any(|c| script(c) == Script::Han) {
            return Other {
                name: "Chinese or Japanese",
                code: "Han",
                or: None,
            };
        }
        match whatlang::detect(&self.sample) {
            Some(info) => Other {
                name: info.lang().eng_name(),
                code: info.lang().code(),
                or: None,
            },
            None => Other {
                name: "another script",
                code: "und",
                or: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_follow_the_table() {
        let codes: Vec<&str> = NAMES.iter().map(|(c, _)| *c).collect();
        assert_eq!(codes, table::CODES);
    }

    use crate::text::language::{identify_in_call, Heard, Lang};

    fn heard(text: &str, call: Lang) -> Option<String> {
        identify_in_call(text, &[], call).names()
    }

    #[test]
    fn another_language_is_named_in_either_call() {
        for call in [Lang::En, Lang::De] {
            for (text, name) in [
                ("Oui, le build est vert depuis ce matin.", "French"),
                ("Sí, todas las pruebas pasaron sin errores.", "Spanish"),
                ("Tak, wszystkie testy przeszły pomyślnie.", "Polish"),
                (
                    "Ja, de build is groen en alle tests zijn geslaagd.",
                    "Dutch",
                ),
                ("Evet, bütün testler başarıyla geçti.", "Turkish"),
                (
                    "Они пишут, что после обновления всё снова работает.",
                    "Russian",
                ),
                ("はい、すべてのテストに合格しました。", "Japanese"),
                ("所有测试都通过了。", "Chinese or Japanese"),
            ] {
                let got = heard(text, call).unwrap_or_default();
                assert!(got.starts_with(name), "{text:?} in {call:?}: {got:?}");
            }
        }
    }

    #[test]
    fn the_call_languages_are_left_to_their_model() {
        assert_eq!(
            identify_in_call(
                "Der Build ist grün, ich habe den Fix gepusht.",
                &[],
                Lang::En
            ),
            Heard::Lang {
                lang: Lang::De,
                or: None
            }
        );
        for (text, call) in [
            ("Der Build ist grün, ich habe den Fix gepusht.", Lang::De),
            ("All checks passed, the release is tagged.", Lang::En),
        ] {
            assert_eq!(
                identify_in_call(text, &[], call),
                Heard::CallOrUnsure,
                "{text}"
            );
        }
    }

    #[test]
    fn names_loanwords_and_single_words_stay_silent() {
        for (text, call) in [
            ("Merci!", Lang::En),
            ("Gracias.", Lang::De),
            (
                "Jean-Pierre Dubois from São Paulo signed it off this morning.",
                Lang::En,
            ),
            (
                "Déjà vu: the flaky test failed again, and I re-ran it.",
                Lang::En,
            ),
            ("Bon appétit, I will report back after lunch.", Lang::En),
            (
                "Wir treffen uns danach im Café Central, Señora Gutiérrez kommt auch.",
                Lang::De,
            ),
            (
                "Sébastien Lefèvre aus Lyon hat ihn heute früh freigegeben.",
                Lang::De,
            ),
            (
                "The customer wrote \"merci beaucoup\" under the release notes.",
                Lang::En,
            ),
            (
                "It is on feature/ciao-mondo, and `por_favor()` returns early.",
                Lang::En,
            ),
            ("Ж", Lang::En),
        ] {
            assert_eq!(heard(text, call), None, "{text}");
        }
    }

    #[test]
    fn a_close_relative_is_named_beside_the_language() {
        let other = Other {
            name: "Spanish",
            code: "es",
            or: Some(("Portuguese", "pt")),
        };
        assert_eq!(other.names(), "Spanish or Portuguese");
        assert!(other.is("pt") && other.is("es") && !other.is("ca"));
    }

    #[test]
    fn remembered_lookups_answer_as_the_table_does() {
        let table = table().unwrap();
        let mut words: Vec<String> = ["depuis", "zzzqqqxx", "der", "the", "casa"]
            .iter()
            .map(|w| w.to_string())
            .collect();
        // More distinct words than are remembered, so that the memory
        // starts afresh on the way, and a word longer than any remembered.
        words.extend((0..REMEMBERED + 10).map(|i| format!("w{i}")));
        words.push("depuis".repeat(20));
        for _ in 0..2 {
            for w in &words {
                assert_eq!(listed_at(w), table.get(w), "{w}");
            }
        }
    }

    #[test]
    fn the_table_reads_back() {
        let fr = NAMES.iter().position(|(c, _)| *c == "fr").unwrap();
        let s = scores("depuis").expect("a French word is listed");
        assert!(s[fr] > -12.0, "{}", s[fr]);
        assert!(scores("zzzqqqxx").is_none());
    }
}
