//! Words and phrase lists for the rules' hot loops.
//!
//! [`Words`] holds the lower-cased words of a text in one buffer (the same
//! words as [`crate::text::phrases::lower_words`], without a `String` per word), so a
//! rule can reuse it from line to line. [`Phrases`] is a phrase list of the
//! lexicon compiled once: its phrases indexed by their first word, so that
//! matching at a word costs one hash lookup instead of a walk over the list.

use std::hash::BuildHasherDefault;

use unicode_segmentation::UnicodeSegmentation;

// The Fx hash of the language tables, for short keys (words, indices)
// that an attacker cannot choose: the lexicon's phrases. Maps keyed by
// names from a log use `core::hash`'s, seeded anew in each process.
pub(crate) use crate::text::langmodel::FxHasher as FastHasher;

pub type FastMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FastHasher>>;
pub type FastSet<K> = std::collections::HashSet<K, BuildHasherDefault<FastHasher>>;

/// Appends `w` lower-cased exactly as `str::to_lowercase` would.
pub fn push_lower(buf: &mut String, w: &str) {
    if w.is_ascii() {
        let start = buf.len();
        buf.push_str(w);
        buf[start..].make_ascii_lowercase();
    } else if w.contains('Σ') {
        // The one letter whose lower case depends on its neighbours.
        buf.push_str(&w.to_lowercase());
    } else {
        for c in w.chars() {
            buf.extend(c.to_lowercase());
        }
    }
}

/// The words of an ASCII text exactly as `unicode_words` finds them, without
/// its general machinery. For ASCII, the word-boundary rules of Unicode
/// (UAX #29) come down to: letters, digits and `_` stick together; `:`, `.`
/// and `'` join two letters; `,`, `;`, `.` and `'` join two digits;
/// anything else splits. Segments without a letter or digit are no words.
pub fn ascii_words(s: &str) -> impl Iterator<Item = &str> + '_ {
    ascii_word_ranges(s.as_bytes()).map(move |(a, b)| &s[a..b])
}

// The classes of an ASCII byte in [`CLASS`].
const LETTER: u8 = 1;
const DIGIT: u8 = 2;
/// `_`: sticks to a word, but is no word alone.
const LINK: u8 = 4;
/// Letters, digits and `_`: the bytes a word is made of.
const CORE: u8 = LETTER | DIGIT | LINK;
/// `:` and `'` (and `.`) join two letters; `,`, `;`, `'` and `.` two digits.
const JOINS_LETTERS: u8 = 8;
const JOINS_DIGITS: u8 = 16;

/// What each byte is to [`ascii_word_ranges`], by table: one load per byte
/// instead of a chain of range tests.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = if b.is_ascii_alphabetic() {
            LETTER
        } else if b.is_ascii_digit() {
            DIGIT
        } else {
            match b {
                b'_' => LINK,
                b':' => JOINS_LETTERS,
                b'.' | b'\'' => JOINS_LETTERS | JOINS_DIGITS,
                b',' | b';' => JOINS_DIGITS,
                _ => 0,
            }
        };
        c += 1;
    }
    t
};

/// Byte ranges of [`ascii_words`] (in any ASCII text: case does not change
/// where words end).
fn ascii_word_ranges(b: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let class = |i: usize| CLASS[usize::from(b[i])];
    let mut i = 0;
    std::iter::from_fn(move || loop {
        while i < b.len() && class(i) & CORE == 0 {
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        let start = i;
        loop {
            while i < b.len() && class(i) & CORE != 0 {
                i += 1;
            }
            // A joiner between two letters or two digits continues the word.
            if i + 1 < b.len() {
                let (x, m, y) = (class(i - 1), class(i), class(i + 1));
                let letters = x & y & LETTER != 0 && m & JOINS_LETTERS != 0;
                let digits = x & y & DIGIT != 0 && m & JOINS_DIGITS != 0;
                if letters || digits {
                    i += 1;
                    continue;
                }
            }
            break;
        }
        // A run of `_` alone is no word.
        if b[start..i].iter().any(|&c| c != b'_') {
            return Some((start, i));
        }
    })
}

/// Anything with numbered, lower-cased words.
pub trait WordList {
    fn count(&self) -> usize;
    fn word(&self, i: usize) -> &str;
}

impl WordList for [String] {
    fn count(&self) -> usize {
        self.len()
    }
    fn word(&self, i: usize) -> &str {
        &self[i]
    }
}

impl WordList for Vec<String> {
    fn count(&self) -> usize {
        self.len()
    }
    fn word(&self, i: usize) -> &str {
        &self[i]
    }
}

/// The first word of the ASCII text `s`, as written (not lower-cased),
/// where [`Words::fill_lexical`] would find it; None when `s` has no word.
/// For a check that most texts fail at their first word, without
/// splitting the rest.
pub fn first_ascii_word(s: &str) -> Option<&str> {
    debug_assert!(s.is_ascii());
    ascii_word_ranges(s.as_bytes())
        .next()
        .map(|(a, b)| &s[a..b])
}

/// The lower-cased words of a text, in one buffer.
#[derive(Clone, Debug, Default)]
pub struct Words {
    buf: String,
    spans: Vec<(u32, u32)>,
}

impl Words {
    /// The words of `s`, as [`crate::text::phrases::lower_words`] splits them.
    pub fn of(s: &str) -> Words {
        let mut w = Words::default();
        w.fill(s);
        w
    }

    /// Replace the words with those of `s`, keeping the buffers.
    pub fn fill(&mut self, s: &str) {
        self.buf.clear();
        self.spans.clear();
        self.extend(s);
    }

    /// Replace the words with those of `s` as the lexicon spells words:
    /// lower case, typographic apostrophes made straight.
    pub fn fill_lexical(&mut self, s: &str) {
        const CURLY: [char; 2] = ['\u{2019}', '\u{2018}'];
        self.clear();
        if s.is_ascii() || !s.contains(CURLY) {
            self.extend(s);
        } else {
            self.extend(&s.replace(CURLY, "'"));
        }
    }

    /// Append the words of `s`.
    pub fn extend(&mut self, s: &str) {
        self.extend_kept(s, |w| Some(w.len()));
    }

    /// Replace the words with those of `s` that `keep` keeps: it sees each
    /// word lower-cased and answers `None` to drop it or `Some(n)` to keep
    /// its first `n` bytes.
    pub fn fill_kept(&mut self, s: &str, keep: impl FnMut(&str) -> Option<usize>) {
        self.buf.clear();
        self.spans.clear();
        self.extend_kept(s, keep);
    }

    fn extend_kept(&mut self, s: &str, mut keep: impl FnMut(&str) -> Option<usize>) {
        if s.is_ascii() {
            // Lower-case the whole text once; the words are ranges of it.
            let base = self.buf.len();
            self.buf.push_str(s);
            self.buf[base..].make_ascii_lowercase();
            for (a, b) in ascii_word_ranges(s.as_bytes()) {
                let (a, b) = (base + a, base + b);
                if let Some(n) = keep(&self.buf[a..b]) {
                    self.spans.push((a as u32, (a + n) as u32));
                }
            }
            return;
        }
        for w in s.unicode_words() {
            let start = self.buf.len();
            push_lower(&mut self.buf, w);
            match keep(&self.buf[start..]) {
                Some(n) => {
                    self.buf.truncate(start + n);
                    self.spans.push((start as u32, self.buf.len() as u32));
                }
                None => self.buf.truncate(start),
            }
        }
    }

    /// Append one word, lower-cased.
    pub fn push(&mut self, w: &str) {
        let start = self.buf.len();
        push_lower(&mut self.buf, w);
        self.spans.push((start as u32, self.buf.len() as u32));
    }

    /// Append one word that is already lower case.
    pub fn push_lowered(&mut self, w: &str) {
        let start = self.buf.len();
        self.buf.push_str(w);
        self.spans.push((start as u32, self.buf.len() as u32));
    }

    pub fn clear(&mut self) {
        self.buf.clear();
        self.spans.clear();
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn last(&self) -> Option<&str> {
        self.iter().next_back()
    }

    /// These words hold `other`'s, in order, from word `at` on.
    pub fn has_at(&self, at: usize, other: &Words) -> bool {
        at + other.len() <= self.len()
            && other
                .iter()
                .enumerate()
                .all(|(k, o)| self.word(at + k) == o)
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        self.spans
            .get(i)
            .map(|&(a, b)| &self.buf[a as usize..b as usize])
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator + '_ {
        self.spans
            .iter()
            .map(|&(a, b)| &self.buf[a as usize..b as usize])
    }

    /// Words `from..to` of these.
    pub fn slice(&self, from: usize, to: usize) -> Slice<'_> {
        Slice {
            words: self,
            from,
            to: to.max(from),
        }
    }

    /// Sort the words and drop repeats, making them a set for
    /// [`Words::common`].
    pub fn sort_unique(&mut self) {
        let buf = &self.buf;
        let at = |&(a, b): &(u32, u32)| &buf[a as usize..b as usize];
        self.spans.sort_unstable_by(|x, y| at(x).cmp(at(y)));
        self.spans.dedup_by(|x, y| at(x) == at(y));
    }

    /// How many words two sets (see [`Words::sort_unique`]) share.
    pub fn common(&self, other: &Words) -> usize {
        let (mut a, mut b) = (self.iter().peekable(), other.iter().peekable());
        let mut n = 0;
        while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
            match x.cmp(y) {
                std::cmp::Ordering::Less => {
                    a.next();
                }
                std::cmp::Ordering::Greater => {
                    b.next();
                }
                std::cmp::Ordering::Equal => {
                    n += 1;
                    a.next();
                    b.next();
                }
            }
        }
        n
    }

    /// The words as owned strings (for results that keep them).
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }
}

impl WordList for Words {
    fn count(&self) -> usize {
        self.len()
    }
    fn word(&self, i: usize) -> &str {
        let (a, b) = self.spans[i];
        &self.buf[a as usize..b as usize]
    }
}

impl std::ops::Index<usize> for Words {
    type Output = str;
    fn index(&self, i: usize) -> &str {
        self.word(i)
    }
}

/// A range of [`Words`].
#[derive(Clone, Copy)]
pub struct Slice<'w> {
    words: &'w Words,
    from: usize,
    to: usize,
}

impl WordList for Slice<'_> {
    fn count(&self) -> usize {
        self.to - self.from
    }
    fn word(&self, i: usize) -> &str {
        self.words.word(self.from + i)
    }
}

/// A phrase list compiled for matching: each phrase split at single spaces,
/// indexed by its first word.
#[derive(Debug, Default)]
pub struct Phrases {
    toks: Vec<Vec<Box<str>>>,
    /// The phrase holds a `*` (see [`Phrases::gapped_at`]).
    gapped: Vec<bool>,
    /// Phrases by first word: packed when it is short (see [`packed`]).
    by_first: FastMap<u64, Vec<u32>>,
    by_first_long: FastMap<Box<str>, Vec<u32>>,
    /// Phrases whose text begins with `*`.
    star_first: Vec<u32>,
    /// The first bytes of the phrases, as a set of 256 bits: most words
    /// begin with a byte no phrase begins with, and are turned away
    /// before they are hashed.
    leads: [u64; 4],
    /// Every phrase, whole: up to seven bytes packed (see [`packed`]), the
    /// longer ones as text.
    short: FastSet<u64>,
    long: FastSet<Box<str>>,
}

/// A text of up to seven bytes as one number: its bytes and its length.
#[inline]
fn packed(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() > 7 {
        return None;
    }
    let mut k = [0u8; 8];
    k[..b.len()].copy_from_slice(b);
    k[7] = b.len() as u8;
    Some(u64::from_le_bytes(k))
}

/// A set of names: a few are compared one by one, which for a handful is
/// cheaper than hashing; a room of many is hashed, so that a lookup does
/// not grow with the room.
#[derive(Clone, Debug)]
pub enum NameList {
    Few(Vec<Box<str>>),
    Many(std::collections::HashSet<Box<str>>),
}

impl Default for NameList {
    fn default() -> NameList {
        NameList::Few(Vec::new())
    }
}

impl NameList {
    /// Up to this many names are compared one by one.
    const FEW: usize = 16;

    pub fn new<'a>(names: impl IntoIterator<Item = &'a String>) -> NameList {
        let names: Vec<Box<str>> = names.into_iter().map(|n| Box::from(n.as_str())).collect();
        if names.len() <= Self::FEW {
            NameList::Few(names)
        } else {
            NameList::Many(names.into_iter().collect())
        }
    }

    pub fn contains(&self, w: &str) -> bool {
        match self {
            NameList::Few(names) => names.iter().any(|n| **n == *w),
            NameList::Many(names) => names.contains(w),
        }
    }
}

/// How many words a `*` in a phrase stands for, at most.
pub const GAP: usize = 3;

impl Phrases {
    pub fn new(list: &[String]) -> Phrases {
        let mut p = Phrases::default();
        for (i, s) in list.iter().enumerate() {
            let toks: Vec<Box<str>> = s.split(' ').map(Box::from).collect();
            let i = i as u32;
            if let Some(&b) = s.as_bytes().first() {
                p.leads[usize::from(b >> 6)] |= 1 << (b & 63);
            }
            match packed(&toks[0]) {
                Some(k) => p.by_first.entry(k).or_default().push(i),
                None => p.by_first_long.entry(toks[0].clone()).or_default().push(i),
            }
            if s.starts_with('*') {
                p.star_first.push(i);
            }
            match packed(s) {
                Some(k) => p.short.insert(k),
                None => p.long.insert(Box::from(s.as_str())),
            };
            p.gapped.push(s.contains('*'));
            p.toks.push(toks);
        }
        p
    }

    /// Some phrase may begin with the first byte of `word` (every phrase
    /// may begin with what an empty word begins with).
    #[inline]
    fn may_lead(&self, word: &str) -> bool {
        word.as_bytes()
            .first()
            .is_none_or(|&b| self.leads[usize::from(b >> 6)] & (1 << (b & 63)) != 0)
    }

    /// The phrases whose first word is `word`.
    fn firsts(&self, word: &str) -> &[u32] {
        if !self.may_lead(word) {
            return &[];
        }
        let found = match packed(word) {
            Some(k) => self.by_first.get(&k),
            None => self.by_first_long.get(word),
        };
        found.map_or(&[], Vec::as_slice)
    }

    /// Some phrase begins with the word `word`.
    pub fn starts_any(&self, word: &str) -> bool {
        !self.firsts(word).is_empty()
    }

    /// True if `word` is one of the phrases, whole.
    pub fn has(&self, word: &str) -> bool {
        if !self.may_lead(word) {
            return false;
        }
        match packed(word) {
            Some(k) => self.short.contains(&k),
            None => self.long.contains(word),
        }
    }

    fn literal_at<W: WordList + ?Sized>(&self, w: &W, i: usize, p: u32) -> bool {
        let toks = &self.toks[p as usize];
        i + toks.len() <= w.count() && toks.iter().enumerate().all(|(k, t)| w.word(i + k) == &**t)
    }

    /// Token count of the longest phrase that matches word for word at
    /// word `i` (`text::starts_with_any` on `w[i..]`).
    pub fn len_at<W: WordList + ?Sized>(&self, w: &W, i: usize) -> Option<usize> {
        if i >= w.count() {
            return None;
        }
        let cands = self.firsts(w.word(i));
        if cands.is_empty() {
            return None;
        }
        cands
            .iter()
            .filter(|&&p| self.literal_at(w, i, p))
            .map(|&p| self.toks[p as usize].len())
            .max()
    }

    /// The first word at which some phrase matches word for word.
    pub fn first_at<W: WordList + ?Sized>(&self, w: &W) -> Option<usize> {
        (0..w.count()).find(|&i| self.len_at(w, i).is_some())
    }

    /// Some phrase occurs word for word (`text::find_phrase` of any).
    pub fn occurs<W: WordList + ?Sized>(&self, w: &W) -> bool {
        self.first_at(w).is_some()
    }

    /// Every match `(start, length)`, word for word, by start.
    pub fn each<'a, W: WordList + ?Sized>(
        &'a self,
        w: &'a W,
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        (0..w.count()).flat_map(move |i| {
            let cands = self.firsts(w.word(i));
            cands
                .iter()
                .filter(move |&&p| self.literal_at(w, i, p))
                .map(move |&p| (i, self.toks[p as usize].len()))
        })
    }

    /// Words covered by the longest phrase that starts at word `i`, where a
    /// `*` in a phrase stands for up to [`GAP`] words ("kommt * nichts an"
    /// matches "kommt von Promo nichts an").
    pub fn gapped_at<W: WordList + ?Sized>(&self, w: &W, i: usize) -> Option<usize> {
        if i >= w.count() {
            return None;
        }
        let firsts = self.firsts(w.word(i));
        firsts
            .iter()
            .chain(self.star_first.iter().filter(|&&p| {
                // Already among `firsts` when its first word is this word.
                *self.toks[p as usize][0] != *w.word(i)
            }))
            .filter_map(|&p| {
                let toks = &self.toks[p as usize];
                if !self.gapped[p as usize] {
                    return self.literal_at(w, i, p).then_some(toks.len());
                }
                match_gapped(w, i, toks).map(|end| end - i)
            })
            .max()
    }

    /// Position and length of the first gapped match.
    pub fn find_gapped<W: WordList + ?Sized>(&self, w: &W) -> Option<(usize, usize)> {
        (0..w.count()).find_map(|i| self.gapped_at(w, i).map(|n| (i, n)))
    }
}

/// End of the shortest match of `toks` at word `i`.
fn match_gapped<W: WordList + ?Sized>(w: &W, i: usize, toks: &[Box<str>]) -> Option<usize> {
    let Some((first, rest)) = toks.split_first() else {
        return Some(i);
    };
    if &**first == "*" {
        return (0..=GAP)
            .take_while(|k| i + k <= w.count())
            .find_map(|k| match_gapped(w, i + k, rest));
    }
    (i < w.count() && w.word(i) == &**first)
        .then(|| match_gapped(w, i + 1, rest))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::phrases::{find_phrase, lower_words, starts_with_any};
    use unicode_segmentation::UnicodeSegmentation;

    fn list(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    /// The set of first bytes turns away only words no phrase begins with
    /// or is: every byte, the empty word and words of many bytes included.
    #[test]
    fn first_bytes_turn_away_only_what_no_phrase_holds() {
        let phrases = list(&[
            "got it",
            "on it",
            "ok",
            "über alles",
            "* nichts an",
            "kommt * an",
            "a",
            "z",
            "extraordinarily long first word",
            "\u{7f}x",
        ]);
        let p = Phrases::new(&phrases);
        let mut words: Vec<String> = (0..=255u8)
            .filter_map(|b| std::str::from_utf8(&[b]).ok().map(str::to_string))
            .collect();
        for w in [
            "",
            "got",
            "gotten",
            "on",
            "ok",
            "über",
            "*",
            "kommt",
            "extraordinarily",
            "got it",
            "ok ",
            "\u{7f}x",
        ] {
            words.push(w.to_string());
        }
        for w in &words {
            let starts = phrases
                .iter()
                .any(|s| s.split(' ').next() == Some(w.as_str()));
            assert_eq!(p.starts_any(w), starts, "{w:?}");
            assert_eq!(p.has(w), phrases.contains(w), "{w:?}");
        }
    }

    #[test]
    fn words_match_lower_words() {
        for t in [
            "Oliver, OK to ship the iOS-note?",
            "Straße ÄNDERN, ΟΔΟΣ Σ; don’t can't",
            "",
            "  🧩 opencode: İstanbul",
        ] {
            assert_eq!(Words::of(t).to_vec(), lower_words(t), "{t}");
        }
    }

    #[test]
    fn ascii_words_split_like_unicode_words() {
        // Every string of up to four characters from a set that covers each
        // rule, then longer pseudo-random ones.
        let alphabet: Vec<char> = "aZ0_ .,;:'-?\n\t\"!".chars().collect();
        let mut cases: Vec<String> = vec![String::new()];
        let mut last = cases.clone();
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|c| alphabet.iter().map(move |a| format!("{c}{a}")))
                .collect();
            cases.extend(last.iter().cloned());
        }
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..20000 {
            let mut s = String::new();
            for _ in 0..(x % 24) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            cases.push(s);
        }
        for t in cases
            .iter()
            .map(String::as_str)
            .chain(["deploy.yml, 2.4 and 1,000; it's 10:30 e.g. a.b.c __x_ x__ 3'4 a'1"])
        {
            let ours: Vec<&str> = ascii_words(t).collect();
            let theirs: Vec<&str> = t.unicode_words().collect();
            assert_eq!(ours, theirs, "{t:?}");
        }
    }

    #[test]
    fn phrases_match_like_the_text_helpers() {
        let l = list(&["ok to", "ok", "go ahead", "the ios note", "x "]);
        let p = Phrases::new(&l);
        for t in [
            "OK to ship the iOS note",
            "ok",
            "go",
            "please go ahead",
            "x",
            "",
        ] {
            let w = lower_words(t);
            let ww = Words::of(t);
            for i in 0..=w.len() {
                assert_eq!(p.len_at(&ww, i), starts_with_any(&w[i.min(w.len())..], &l));
            }
            let occurs = l.iter().any(|x| find_phrase(&w, x).is_some());
            assert_eq!(p.occurs(&ww), occurs, "{t}");
        }
        assert!(p.has("ok") && p.has("go ahead") && !p.has("go"));
    }

    #[test]
    fn gaps_stand_for_up_to_three_words() {
        let p = Phrases::new(&list(&["kommt * nichts an", "* nichts"]));
        let w = Words::of("bei mir kommt von Promo nichts an");
        assert_eq!(p.gapped_at(&w, 2), Some(5));
        assert_eq!(p.find_gapped(&w), Some((2, 5)));
        assert_eq!(p.gapped_at(&w, 7), None);
    }
}
