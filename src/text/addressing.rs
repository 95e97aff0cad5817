//! The voicehook server's addressing rule, re-implemented.
//!
//! Given one utterance and the names present in the call (the human, the
//! voicebot, the agents' labels), [`Roster::addressees`] says who is addressed,
//! the way the server fills `addressed_to` (seed, "How addressing is
//! detected"):
//!
//! * **Sentence start**: a name at the start of a sentence, directly followed
//!   (spaces allowed) by `,` or `:` — `"Promo, is the build green?"`,
//!   `"Oliver: two questions"`.
//! * **After a greeting**: the same, after up to three greetings or
//!   interjections from [`GREETINGS`] (English and German), each optionally
//!   followed by `,` or a dash — `"Hi opencode, welcome."`,
//!   `"Okay, so, Promo: ..."`, `"Guten Morgen, Oliver, ..."`.
//! * **End of sentence**: `..., name` — the name right after the last comma of
//!   the sentence and followed by nothing but `.`, `!`, `?`, `…`, closing
//!   quotes or brackets — `"Thanks, Promo."`, `"Is it green, Promo?"`.
//!
//! Everything else addresses nobody: a name in mid-sentence
//! (`"I asked Promo yesterday"`), a name without the comma
//! (`"Thanks Promo."`, `"Promo?"`), two names joined by "and"
//! (`"Promo and opencode, ..."`). Matching is case-insensitive
//! ([`char::to_lowercase`]), on word boundaries, and tolerant of separators
//! inside a name (whitespace, `-`, `_`, `.` may appear or not): the label
//! `docs-bot` matches `"docs bot,"` and `"Docs_Bot,"`, `Claude Code` matches
//! `"claude  code:"`, `opencode` matches `"Open code,"`. A leading emoji of a
//! label is not part of its name (`🧩 opencode` is addressed as `opencode`).
//!
//! **The voicebot** (default [`DEFAULT_VOICEBOT`], "Delta") is also addressed
//! as its possessive (`"Delta's, ..."`, with `'` or `’`), and, when it is
//! called Delta, as the speech-recognition variants in [`DELTA_ASR_VARIANTS`]
//! ("Data", "Della", "Delter") — only in the three positions above, so
//! `"the data, as I said"` addresses nobody, and only in a call that has a
//! voicebot ([`Roster::with_variants`]: a meeting's transcript that shows
//! none reads "Data, ..." as a word). The possessive counts for the
//! voicebot only: `"Promo's, ..."` addresses nobody.
//!
//! **Sentences** end at `.`, `!`, `?`, `…` (and their full-width forms) when
//! followed by whitespace or the end of the text (closing quotes/brackets may
//! come in between), and at line breaks; so `3.5`, `example.com/x` and
//! `v1.2-beta` never split a sentence.
//!
//! **Never guess.** When a name found resolves to a participant whose label is
//! equal or similar (see [`similar_labels`]) to another participant's name,
//! or equal to one of the voicebot's variants, the hit is ambiguous and the
//! *whole* utterance addresses nobody: `addressees` is empty, and
//! [`Roster::explain`] shows which labels collided.
//!
//! Cost: [`Roster::new`] folds every name once; [`Roster::addressees`] makes
//! one pass over the text, allocates nothing but its result, and compiles no
//! regex.

use std::ops::Range;
use std::sync::OnceLock;

/// The voicebot's name when none is given.
pub const DEFAULT_VOICEBOT: &str = "Delta";

/// What speech recognition makes of "Delta"; they address the voicebot when
/// it is called Delta (in addition to its possessive "Delta's").
pub const DELTA_ASR_VARIANTS: &[&str] = &["Data", "Della", "Delter"];

/// Greetings and interjections that may precede a name at the start of a
/// sentence (lowercase; a space matches one or more whitespace characters).
/// Deliberately no conjunctions ("and", "but", "und"): `"And data, ..."` would
/// otherwise address Delta.
pub const GREETINGS: &[&str] = &[
    // multi-word first
    "good morning",
    "good afternoon",
    "good evening",
    "thanks a lot",
    "thank you",
    "excuse me",
    "all right",
    "guten morgen",
    "guten tag",
    "guten abend",
    "vielen dank",
    "danke schön",
    "alles klar",
    // English
    "hi",
    "hey",
    "hello",
    "hiya",
    "yo",
    "ok",
    "okay",
    "alright",
    "so",
    "thanks",
    "cheers",
    "please",
    "sorry",
    "yes",
    "yeah",
    "yep",
    "no",
    "sure",
    "oh",
    "ah",
    "um",
    "uh",
    "hm",
    "hmm",
    // German
    "hallo",
    "moin",
    "servus",
    "na",
    "also",
    "gut",
    "danke",
    "dankeschön",
    "ja",
    "jo",
    "nein",
    "nee",
    "bitte",
    "genau",
    "super",
    "prima",
    "perfekt",
    "entschuldigung",
    "äh",
    "ähm",
];

/// How many greetings may be chained before a name ("Okay, so, hi Promo, ...").
const MAX_GREETINGS: usize = 3;

/// Who a participant is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Human,
    Voicebot,
    Agent,
}

/// Which position rule a hit matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Position {
    /// `"Promo, is the build green?"`
    SentenceStart,
    /// `"Hi opencode, welcome."`
    AfterGreeting,
    /// `"Thanks, Promo."`
    EndOfSentence,
}

impl Position {
    /// A short human-readable description, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Position::SentenceStart => "name at the start of a sentence, before `,` or `:`",
            Position::AfterGreeting => "name after a greeting, before `,` or `:`",
            Position::EndOfSentence => "name after the last comma, at the end of a sentence",
        }
    }
}

/// One name found in an utterance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit<'r> {
    /// Byte range of the name in the text (without the following `,`/`:`).
    pub span: Range<usize>,
    /// Which position rule matched.
    pub position: Position,
    /// Canonical name of the participant the text names (as given to
    /// [`Roster::new`]).
    pub name: &'r str,
    pub kind: Kind,
    /// Matched through a variant (Data, Della, Delter) or the possessive
    /// (Delta's), not the name itself.
    pub variant: bool,
    /// The other participants whose names are equal or similar; non-empty
    /// means the hit is ambiguous and the utterance addresses nobody.
    pub collides_with: Vec<&'r str>,
}

impl Hit<'_> {
    pub fn is_ambiguous(&self) -> bool {
        !self.collides_with.is_empty()
    }
}

/// Every name found in an utterance, in order of appearance, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Explanation<'r> {
    pub hits: Vec<Hit<'r>>,
}

impl<'r> Explanation<'r> {
    /// True when some hit is ambiguous (so nobody is addressed).
    pub fn is_ambiguous(&self) -> bool {
        self.hits.iter().any(Hit::is_ambiguous)
    }

    /// The addressees, exactly as [`Roster::addressees`] returns them.
    pub fn addressees(&self) -> Vec<&'r str> {
        if self.is_ambiguous() {
            return Vec::new();
        }
        let mut out: Vec<&'r str> = Vec::new();
        for hit in &self.hits {
            if !out.contains(&hit.name) {
                out.push(hit.name);
            }
        }
        out
    }
}

/// A label reduced to what is compared: folded characters without
/// separators (`key`) and its folded words.
#[derive(Debug, Clone)]
struct LabelKey {
    key: Box<[char]>,
    words: Vec<Box<[char]>>,
}

#[derive(Debug, Clone)]
struct Participant {
    /// Shared, so that the names found can be handed out without copies.
    name: crate::core::name::Name,
    kind: Kind,
    label: LabelKey,
    /// Indexes of the participants this one is equal or similar to.
    collides: Vec<usize>,
}

/// One matchable name: a participant's key, or one of the voicebot's variants.
#[derive(Debug, Clone)]
struct Pattern {
    key: Box<[char]>,
    who: usize,
    variant: bool,
}

#[derive(Debug, Clone, Copy)]
struct RawHit {
    start: usize,
    end: usize,
    position: Position,
    pattern: usize,
}

/// The names present in a call, folded once, ready for matching. The
/// default holds no names.
#[derive(Debug, Clone, Default)]
pub struct Roster {
    participants: Vec<Participant>,
    patterns: Vec<Pattern>,
    pairs: Vec<(usize, usize)>,
    /// The patterns' keys as a trie, so that a name is looked up at a
    /// place of a text in the time of the name, however many there are.
    trie: Trie,
}

/// The longest key, in characters, a name is looked for by: longer names
/// (a label or speaker of kilobytes, from a broken or hostile log) are not
/// matched in what is said.
const MAX_SPOKEN_KEY: usize = 200;

/// The keys of the patterns, character by character: node 0 is the root.
#[derive(Debug, Clone, Default)]
struct Trie {
    /// The child of a node for a folded character. Keyed by characters of
    /// names from the log: a hasher seeded anew in each process.
    next: crate::core::hash::HashMap<(u32, char), u32>,
    /// Per node, the patterns whose key ends there, in pattern order.
    ends: Vec<Vec<usize>>,
}

impl Trie {
    fn new(patterns: &[Pattern]) -> Trie {
        let mut t = Trie {
            next: crate::core::hash::HashMap::default(),
            ends: vec![Vec::new()],
        };
        for (i, pat) in patterns.iter().enumerate() {
            // A name longer than anyone says as an address is no key: it
            // would cost a node per character and never match.
            if pat.key.len() > MAX_SPOKEN_KEY {
                continue;
            }
            let mut node = 0u32;
            for &c in pat.key.iter() {
                let fresh = t.ends.len() as u32;
                node = *t.next.entry((node, c)).or_insert(fresh);
                if node == fresh {
                    t.ends.push(Vec::new());
                }
            }
            t.ends[node as usize].push(i);
        }
        t
    }
}

impl Roster {
    /// `human`: the human's name if known; `voicebot`: its name (e.g.
    /// "Delta"; empty means [`DEFAULT_VOICEBOT`]); `agents`: agent labels (at
    /// most 22 characters, may contain spaces, digits, `-`, `_`, `.`, emoji;
    /// matched on the label text without a leading emoji).
    ///
    /// Names whose text is empty (after dropping a leading emoji and
    /// separators) are ignored. Do not pass the human or the voicebot again in
    /// `agents`: a label equal to another participant's name makes both
    /// unaddressable, as on the server.
    pub fn new(human: Option<&str>, voicebot: &str, agents: &[&str]) -> Roster {
        Roster::with_variants(human, voicebot, agents, true)
    }

    /// [`Roster::new`], with the speech-recognition variants of the
    /// voicebot's name ([`DELTA_ASR_VARIANTS`]) only when `variants`: where
    /// nothing says there is a voicebot (a transcript of a meeting without
    /// one), "Data, ..." addresses nobody.
    pub fn with_variants(
        human: Option<&str>,
        voicebot: &str,
        agents: &[&str],
        variants: bool,
    ) -> Roster {
        let mut participants: Vec<Participant> = Vec::with_capacity(agents.len() + 2);
        let mut push = |name: &str, kind: Kind| {
            // Past its head a name is too long to be said: its key stays
            // longer than any key looked for, at a bounded cost.
            let label = label_key(crate::text::phrases::name_head(name));
            if !label.key.is_empty() {
                participants.push(Participant {
                    name: name.into(),
                    kind,
                    label,
                    collides: Vec::new(),
                });
            }
        };
        if let Some(h) = human {
            push(h, Kind::Human);
        }
        let voicebot = if voicebot.trim().is_empty() {
            DEFAULT_VOICEBOT
        } else {
            voicebot
        };
        push(voicebot, Kind::Voicebot);
        for a in agents {
            push(a, Kind::Agent);
        }

        let mut patterns: Vec<Pattern> = Vec::with_capacity(participants.len() + 4);
        for (who, p) in participants.iter().enumerate() {
            patterns.push(Pattern {
                key: p.label.key.clone(),
                who,
                variant: false,
            });
            if p.kind == Kind::Voicebot {
                let mut possessive = p.label.key.to_vec();
                possessive.extend(['\'', 's']);
                patterns.push(Pattern {
                    key: possessive.into(),
                    who,
                    variant: true,
                });
                if variants && p.label.key.iter().copied().eq("delta".chars()) {
                    for v in DELTA_ASR_VARIANTS {
                        patterns.push(Pattern {
                            key: label_key(v).key,
                            who,
                            variant: true,
                        });
                    }
                }
            }
        }

        // Which participants collide: similar labels, or a label equal to
        // one of the voicebot's variants (few: only the voicebot has them).
        let variants: Vec<&Pattern> = patterns.iter().filter(|p| p.variant).collect();
        let mut pairs = Vec::new();
        for j in 0..participants.len() {
            let mut found = 0;
            for i in compared_with(j) {
                let variant_equal = variants.iter().any(|pat| {
                    (pat.who == i && *pat.key == *participants[j].label.key)
                        || (pat.who == j && *pat.key == *participants[i].label.key)
                });
                if variant_equal || similar_keys(&participants[i].label, &participants[j].label) {
                    pairs.push((i, j));
                    // One is enough to make a name ambiguous; a few are
                    // kept to name them.
                    found += 1;
                    if found == MAX_COLLISIONS {
                        break;
                    }
                }
            }
        }
        pairs.sort_unstable();
        for &(i, j) in &pairs {
            participants[i].collides.push(j);
            participants[j].collides.push(i);
        }
        let trie = Trie::new(&patterns);
        Roster {
            participants,
            patterns,
            pairs,
            trie,
        }
    }

    /// Canonical names addressed in `text` (the human's name, the voicebot's
    /// name, or agent labels, as given to [`Roster::new`]), in order of
    /// appearance, no duplicates. Empty when nobody is addressed, or when any
    /// name found matches several equal or similar labels.
    pub fn addressees(&self, text: &str) -> Vec<&str> {
        self.addressed(text)
            .into_iter()
            .map(|p| &*self.participants[p].name)
            .collect()
    }

    /// [`Roster::addressees`], as the shared names themselves.
    pub fn addressee_names(&self, text: &str) -> Box<[crate::core::name::Name]> {
        self.addressed(text)
            .into_iter()
            .map(|p| self.participants[p].name.clone())
            .collect()
    }

    /// The participants (by position) [`Roster::addressees`] names.
    fn addressed(&self, text: &str) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        let mut ambiguous = false;
        self.scan(text, |hit| {
            let who = self.patterns[hit.pattern].who;
            if !self.participants[who].collides.is_empty() {
                ambiguous = true;
                return false;
            }
            if !out.contains(&who) {
                out.push(who);
            }
            true
        });
        if ambiguous {
            out.clear();
        }
        out
    }

    /// Every name found in `text`, with its byte range, the position rule
    /// that matched and, for ambiguous hits, the labels that collided.
    pub fn explain(&self, text: &str) -> Explanation<'_> {
        let mut hits = Vec::new();
        self.scan(text, |raw| {
            let pat = &self.patterns[raw.pattern];
            let who = &self.participants[pat.who];
            hits.push(Hit {
                span: raw.start..raw.end,
                position: raw.position,
                name: &who.name,
                kind: who.kind,
                variant: pat.variant,
                collides_with: who
                    .collides
                    .iter()
                    .map(|&i| &*self.participants[i].name)
                    .collect(),
            });
            true
        });
        Explanation { hits }
    }

    /// Pairs of names that are equal or similar (see [`similar_labels`]), or
    /// where a label equals one of the voicebot's variants; a name in such a
    /// pair resolves to nobody. In roster order (human, voicebot, agents).
    pub fn ambiguous_pairs(&self) -> Vec<(&str, &str)> {
        self.pairs
            .iter()
            .map(|&(i, j)| (&*self.participants[i].name, &*self.participants[j].name))
            .collect()
    }

    /// The participants (names as given, ignoring empty ones) with their kind.
    pub fn participants(&self) -> impl Iterator<Item = (&str, Kind)> + '_ {
        self.participants.iter().map(|p| (&*p.name, p.kind))
    }

    /// The voicebot's canonical name.
    pub fn voicebot(&self) -> &str {
        self.participants
            .iter()
            .find(|p| p.kind == Kind::Voicebot)
            .map_or(DEFAULT_VOICEBOT, |p| &p.name)
    }

    /// The kind of a participant, by its canonical name (exact).
    pub fn kind_of(&self, name: &str) -> Option<Kind> {
        self.participants
            .iter()
            .find(|p| &*p.name == name)
            .map(|p| p.kind)
    }

    /// Calls `f` for each hit in order; stops when `f` returns false.
    fn scan(&self, text: &str, mut f: impl FnMut(RawHit) -> bool) {
        for range in sentences(text) {
            if !self.scan_sentence(text, range.start, range.end, &mut f) {
                return;
            }
        }
    }

    fn scan_sentence(
        &self,
        text: &str,
        s: usize,
        e: usize,
        f: &mut impl FnMut(RawHit) -> bool,
    ) -> bool {
        let colon_or_comma = |end: usize| followed_by_comma_or_colon(text, end, e);

        // Sentence start: at the first non-blank character, then after any
        // leading quotes, dashes or emoji.
        let p0 = skip(text, s, e, char::is_whitespace);
        let p1 = skip(text, p0, e, |c| !c.is_alphanumeric());
        let mut start_hit = None;
        for p in [p0, p1] {
            if let Some((pattern, end)) = self.match_name(text, p, e, colon_or_comma) {
                start_hit = Some(RawHit {
                    start: p,
                    end,
                    position: Position::SentenceStart,
                    pattern,
                });
                break;
            }
            if p1 == p0 {
                break;
            }
        }
        // After greetings.
        if start_hit.is_none() {
            let mut p = p1;
            for _ in 0..MAX_GREETINGS {
                let Some(q) = match_greeting(text, p, e) else {
                    break;
                };
                p = skip(text, q, e, |c| c.is_whitespace() || c == ',' || is_dash(c));
                if let Some((pattern, end)) = self.match_name(text, p, e, colon_or_comma) {
                    start_hit = Some(RawHit {
                        start: p,
                        end,
                        position: Position::AfterGreeting,
                        pattern,
                    });
                    break;
                }
            }
        }
        if let Some(hit) = start_hit {
            if !f(hit) {
                return false;
            }
        }

        // End of sentence: names hold no comma, so only the last one counts.
        if let Some(c) = text[s..e].rfind([',', '，']) {
            let after_comma = s + c + text[s + c..].chars().next().map_or(1, char::len_utf8);
            let p = skip(text, after_comma, e, char::is_whitespace);
            let only_trailers = |end: usize| {
                text[end..e]
                    .chars()
                    .all(|c| c.is_whitespace() || is_terminator(c) || is_closer(c))
            };
            if let Some((pattern, end)) = self.match_name(text, p, e, only_trailers) {
                let dup = start_hit.is_some_and(|h| h.start == p);
                if !dup
                    && !f(RawHit {
                        start: p,
                        end,
                        position: Position::EndOfSentence,
                        pattern,
                    })
                {
                    return false;
                }
            }
        }
        true
    }

    /// The first pattern matching at `p` whose end satisfies `ok`.
    fn match_name(
        &self,
        text: &str,
        p: usize,
        e: usize,
        ok: impl Fn(usize) -> bool,
    ) -> Option<(usize, usize)> {
        // The first pattern, in pattern order, whose key the text spells
        // at `p` (separators may stand between its characters) and that
        // ends at a word boundary accepted by `ok`.
        let mut best: Option<(usize, usize)> = None;
        let mut node = 0u32;
        for (i, c) in text[p..e].char_indices() {
            if node != 0 && is_separator(c) {
                continue;
            }
            for l in fold(c) {
                match self.trie.next.get(&(node, l)) {
                    Some(&n) => node = n,
                    None => return best,
                }
            }
            let end = p + i + c.len_utf8();
            let ends = &self.trie.ends[node as usize];
            if ends.is_empty()
                || best.is_some_and(|(b, _)| b < ends[0])
                || text[end..e]
                    .chars()
                    .next()
                    .is_some_and(char::is_alphanumeric)
                || !ok(end)
            {
                continue;
            }
            best = Some((ends[0], end));
        }
        best
    }
}

/// Whether two labels are **similar**, so that addressing either resolves to
/// nobody.
///
/// Both labels are first normalised: a leading emoji (any leading run of
/// non-ASCII symbols, keycaps, joiners and variation selectors) and the
/// spaces after it are dropped, and the rest is lowercased with Unicode
/// `to_lowercase` (`’` counts as `'`). The *key* of a label is that text
/// without whitespace, `-`, `_`, `.` and Unicode hyphens/dashes; its *words*
/// are the pieces between those separators. Two labels are similar when any
/// of these holds:
///
/// 1. **Equal key**: `opencode` / `OpenCode`, `docs-bot` / `docs bot` /
///    `Docs_Bot`, `🧩 Promo` / `promo`.
/// 2. **Prefix words**: the words of one are the first words of the other:
///    `Claude` / `Claude Code`, `docs` / `docs-bot`.
/// 3. **Trailing number**: the keys are equal once trailing digits are
///    removed (and something is left): `Builder` / `Builder2`, `Claude` /
///    `Claude 2`, `Agent 1` / `Agent 2`. Speech recognition writes numbers as
///    digits or words and hears "two" as "to"; people shorten "Builder 2" to
///    "Builder".
/// 4. **Near spelling**: the edit distance between the keys (insertions,
///    deletions, substitutions and swaps of two neighbouring characters) is at
///    most 1 when the shorter key has 4 to 7 characters, at most 2 when it
///    has 8 or more: `Della` / `Delta`, `Codex` / `Coder`, `Reviewer` /
///    `Reviewed`. Keys under 4 characters must be equal (`Bob` / `Rob` are not
///    similar).
///
/// Not similar: `Promo` / `Claude`, `Reviewer` / `Builder`, `Claude Code` /
/// `Claude Desktop`, `Claude` / `Claudia`. A label with an empty key (empty,
/// or only separators) is similar to nothing; a label that is only emoji is
/// compared by its emoji.
pub fn similar_labels(a: &str, b: &str) -> bool {
    similar_keys(&label_key(a), &label_key(b))
}

/// How many names before it each name of a list is compared with, beside
/// the first [`ALWAYS_COMPARED`]. No call has that many participants; a log
/// naming thousands of speakers must not cost the square of their number.
pub const COMPARE_WINDOW: usize = 256;

/// At most this many earlier names a name is noted to collide with.
const MAX_COLLISIONS: usize = 8;

/// The first names of a list, compared with every later one: the human,
/// the voicebot and the recording agent come first.
pub const ALWAYS_COMPARED: usize = 4;

/// The indices before `j` that the name at `j` is compared with, in order.
pub fn compared_with(j: usize) -> impl Iterator<Item = usize> {
    let first = j.min(ALWAYS_COMPARED);
    (0..first).chain(j.saturating_sub(COMPARE_WINDOW).max(first)..j)
}

/// Names compared for similarity ([`similar_labels`]) with each one folded
/// once.
pub struct LabelKeys(Vec<LabelKey>);

impl LabelKeys {
    pub fn new<'n>(names: impl IntoIterator<Item = &'n str>) -> LabelKeys {
        LabelKeys(names.into_iter().map(label_key).collect())
    }
    /// [`similar_labels`] of the names at `i` and `j`.
    pub fn similar(&self, i: usize, j: usize) -> bool {
        similar_keys(&self.0[i], &self.0[j])
    }
}

fn similar_keys(a: &LabelKey, b: &LabelKey) -> bool {
    if a.key.is_empty() || b.key.is_empty() {
        return false;
    }
    if a.key == b.key {
        return true;
    }
    let (short, long) = if a.words.len() <= b.words.len() {
        (a, b)
    } else {
        (b, a)
    };
    if short.words.len() < long.words.len() && long.words.starts_with(&short.words) {
        return true;
    }
    let (sa, sb) = (trim_trailing_number(&a.key), trim_trailing_number(&b.key));
    if !sa.is_empty() && sa == sb {
        return true;
    }
    // Names of several words, one of which is another word in the other
    // name ("Rohit Raj", "Rohit Das"), are two names, however few letters
    // tell them apart.
    if a.words.len() > 1
        && a.words.len() == b.words.len()
        && a.words.iter().zip(&b.words).any(|(x, y)| {
            let max = typo_budget(x.len().min(y.len()));
            !within_distance(x, y, max)
        })
    {
        return false;
    }
    let max = typo_budget(a.key.len().min(b.key.len()));
    max > 0 && within_distance(&a.key, &b.key, max)
}

/// How many edits a name of `n` characters may be off by and still be
/// taken for the same name misheard or mistyped.
fn typo_budget(n: usize) -> usize {
    match n {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    }
}

fn trim_trailing_number(key: &[char]) -> &[char] {
    let keep = key.len() - key.iter().rev().take_while(|c| c.is_numeric()).count();
    &key[..keep]
}

/// Optimal-string-alignment distance between `a` and `b` is at most `k`.
/// Exponential in `k` only (k ≤ 2 here), linear in the length.
fn within_distance(a: &[char], b: &[char], k: usize) -> bool {
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[common..], &b[common..]);
    if a.is_empty() || b.is_empty() {
        return a.len().max(b.len()) <= k;
    }
    if k == 0 || a.len().abs_diff(b.len()) > k {
        return false;
    }
    within_distance(&a[1..], &b[1..], k - 1)
        || within_distance(&a[1..], b, k - 1)
        || within_distance(a, &b[1..], k - 1)
        || (a.len() >= 2
            && b.len() >= 2
            && a[0] == b[1]
            && a[1] == b[0]
            && within_distance(&a[2..], &b[2..], k - 1))
}

/// Byte ranges of the sentences of `text` (see the module docs): split after
/// `.`, `!`, `?`, `…` (runs of them, plus closing quotes or brackets) when
/// whitespace or the end follows, and at line breaks. Ranges include their
/// terminator and may be empty or blank.
pub fn sentences(text: &str) -> Sentences<'_> {
    Sentences { text, pos: 0 }
}

/// Iterator returned by [`sentences`].
#[derive(Debug, Clone)]
pub struct Sentences<'t> {
    text: &'t str,
    pos: usize,
}

impl Iterator for Sentences<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let t = self.text;
        let start = self.pos;
        if start >= t.len() {
            return None;
        }
        let mut i = start;
        let bytes = t.as_bytes();
        loop {
            // Skip plain ASCII that neither ends a sentence nor breaks a line.
            i += plain_ascii(&bytes[i..]);
            let Some(c) = t[i..].chars().next() else {
                break;
            };
            let n = i + c.len_utf8();
            if is_line_break(c) {
                self.pos = n;
                return Some(start..i);
            }
            if is_terminator(c) {
                let j = skip(t, n, t.len(), |d| is_terminator(d) || is_closer(d));
                let at_boundary = match t[j..].chars().next() {
                    None => true,
                    Some(d) => d.is_whitespace(),
                };
                if at_boundary {
                    self.pos = j;
                    return Some(start..j);
                }
                i = j;
                continue;
            }
            i = n;
        }
        self.pos = t.len();
        Some(start..t.len())
    }
}

/// How many bytes from the start of `bytes` are ASCII that neither ends a
/// sentence (`.`, `!`, `?`) nor breaks a line (0x0A to 0x0D).
fn plain_ascii(bytes: &[u8]) -> usize {
    use crate::core::bytes::{below, first_equal, non_ascii, run_until};
    run_until(
        bytes,
        |w| {
            non_ascii(w)
                | first_equal(w, b'.')
                | first_equal(w, b'!')
                | first_equal(w, b'?')
                | (below(w, 0x0E) & !below(w, 0x0A))
        },
        |b| !b.is_ascii() || matches!(b, 0x0A..=0x0D | b'.' | b'!' | b'?'),
    )
}

fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

fn is_terminator(c: char) -> bool {
    matches!(
        c,
        '.' | '!' | '?' | '…' | '。' | '！' | '？' | '‼' | '⁇' | '⁈' | '⁉'
    )
}

fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '’'
            | '‘'
            | '”'
            | '“'
            | '»'
            | '«'
            | '›'
            | '‹'
            | ')'
            | ']'
            | '}'
            | '」'
            | '』'
            | '*'
    )
}

fn is_dash(c: char) -> bool {
    matches!(c, '-' | '\u{2010}'..='\u{2015}')
}

/// Separators inside a label: not part of its key.
fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == '_' || c == '.' || is_dash(c)
}

/// Characters a leading emoji is made of.
fn is_emoji_like(c: char) -> bool {
    !c.is_ascii() && !c.is_alphanumeric() && !c.is_whitespace()
}

/// Case folding used everywhere: apostrophe variants become `'`, then
/// `char::to_lowercase`, with final sigma folded to sigma (so that the fold
/// of a character never depends on its neighbours).
fn fold(c: char) -> impl Iterator<Item = char> {
    let c = match c {
        '\u{2019}' | '\u{2018}' | '\u{02BC}' | '`' | '\u{00B4}' => '\'',
        c => c,
    };
    c.to_lowercase().map(|l| if l == 'ς' { 'σ' } else { l })
}

/// First position at or after `p` (up to `e`) whose character fails `pred`.
fn skip(text: &str, p: usize, e: usize, pred: impl Fn(char) -> bool) -> usize {
    text[p..e]
        .char_indices()
        .find(|&(_, c)| !pred(c))
        .map_or(e, |(i, _)| p + i)
}

fn followed_by_comma_or_colon(text: &str, end: usize, e: usize) -> bool {
    text[end..e]
        .chars()
        .find(|c| !c.is_whitespace())
        .is_some_and(|c| matches!(c, ',' | ':' | '，' | '：'))
}

fn strip_leading_emoji(label: &str) -> &str {
    let trimmed = label.trim_start();
    let mut rest = trimmed;
    loop {
        let mut cs = rest.chars();
        let Some(c) = cs.next() else { break };
        let keycap = (c.is_ascii_digit() || c == '#' || c == '*')
            && matches!(cs.next(), Some('\u{FE0F}' | '\u{20E3}'));
        if is_emoji_like(c) || keycap {
            rest = &rest[c.len_utf8()..];
        } else {
            break;
        }
    }
    let rest = rest.trim_start();
    if rest.len() != trimmed.len() && rest.chars().any(|c| !is_separator(c)) {
        rest
    } else {
        trimmed
    }
}

fn label_key(label: &str) -> LabelKey {
    let text = strip_leading_emoji(label);
    let mut key = Vec::with_capacity(text.len());
    let mut words = Vec::new();
    let mut word = Vec::new();
    for c in text.chars() {
        if is_separator(c) {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word).into_boxed_slice());
            }
        } else {
            for l in fold(c) {
                key.push(l);
                word.push(l);
            }
        }
    }
    if !word.is_empty() {
        words.push(word.into_boxed_slice());
    }
    LabelKey {
        key: key.into_boxed_slice(),
        words,
    }
}

/// Matches a folded phrase at `p` (a space in the phrase matches one or more
/// whitespace characters), word boundary after it. Returns the end.
fn match_phrase(text: &str, p: usize, e: usize, phrase: &[char]) -> Option<usize> {
    let mut chars = text[p..e].char_indices().peekable();
    let mut k = 0;
    let mut end = p;
    while k < phrase.len() {
        if phrase[k] == ' ' {
            let mut any = false;
            while let Some(&(i, c)) = chars.peek() {
                if !c.is_whitespace() {
                    break;
                }
                any = true;
                end = p + i + c.len_utf8();
                chars.next();
            }
            if !any {
                return None;
            }
            k += 1;
            continue;
        }
        let (i, c) = chars.next()?;
        for l in fold(c) {
            if phrase.get(k) == Some(&l) {
                k += 1;
            } else {
                return None;
            }
        }
        end = p + i + c.len_utf8();
    }
    if text[end..e]
        .chars()
        .next()
        .is_some_and(char::is_alphanumeric)
    {
        return None;
    }
    Some(end)
}

fn greetings() -> &'static [Box<[char]>] {
    static FOLDED: OnceLock<Vec<Box<[char]>>> = OnceLock::new();
    FOLDED.get_or_init(|| {
        GREETINGS
            .iter()
            .map(|g| g.chars().flat_map(fold).collect())
            .collect()
    })
}

fn match_greeting(text: &str, p: usize, e: usize) -> Option<usize> {
    let first = text[p..e].chars().next()?;
    let first = fold(first).next()?;
    greetings()
        .iter()
        .filter(|g| g.first() == Some(&first))
        .find_map(|g| match_phrase(text, p, e, g))
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::strategy::Just as J;

    proptest::proptest! {
        /// Eight bytes at a time, the run is the one byte by byte finds.
        #[test]
        fn a_plain_ascii_run_is_found_as_byte_by_byte(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    J(b'.'), J(b'!'), J(b'?'), 0x09u8..=0x0E, b'a'..=b'z', 0x20u8..=0x7F,
                    0x80u8..=0xFF, J(0x2F), J(0x3E), J(0x40),
                ],
                0..40,
            ),
            skip in 0usize..40,
        ) {
            let bytes = &bytes[skip.min(bytes.len())..];
            let slow = bytes
                .iter()
                .position(|&b| !b.is_ascii() || matches!(b, b'\n' | b'\r' | 0x0B | 0x0C | b'.' | b'!' | b'?'))
                .unwrap_or(bytes.len());
            proptest::prop_assert_eq!(plain_ascii(bytes), slow);
        }
    }

    /// The seed's call: Oliver, Delta, opencode, Promo, Claude.
    fn seed() -> Roster {
        Roster::new(Some("Oliver"), "Delta", &["opencode", "Promo", "Claude"])
    }

    fn check(r: &Roster, text: &str, expected: &[&str]) {
        assert_eq!(r.addressees(text), expected, "text: {text:?}");
        // explain agrees with addressees, and its spans are sane
        let ex = r.explain(text);
        assert_eq!(ex.addressees(), expected, "explain of {text:?}");
        for hit in &ex.hits {
            assert!(text.is_char_boundary(hit.span.start));
            assert!(text.is_char_boundary(hit.span.end));
            assert!(hit.span.start < hit.span.end);
        }
    }

    // ---- the seed's examples ----

    #[test]
    fn seed_data_addresses_delta() {
        check(
            &seed(),
            "Data, please keep me posted from board and activity.",
            &["Delta"],
        );
    }

    #[test]
    fn seed_promo_build_green() {
        check(&seed(), "Promo, is the build green?", &["Promo"]);
    }

    #[test]
    fn seed_oliver_two_questions() {
        check(
            &seed(),
            "Oliver, two quick questions: Delta only answers you, not other agents? \
             And an agent wakes another only when addressed by name? Yes to both?",
            &["Oliver"],
        );
    }

    #[test]
    fn seed_unaddressed_request() {
        check(&seed(), "Can you check the logs?", &[]);
    }

    #[test]
    fn seed_opencode_check_logs() {
        check(&seed(), "opencode, can you check the logs?", &["opencode"]);
    }

    #[test]
    fn seed_opencode_do_not_change_code() {
        check(
            &seed(),
            "opencode, please do not change the code. The Promo agent is taking care. \
             You are just a participant.",
            &["opencode"],
        );
    }

    #[test]
    fn greeting_then_name_then_comma_addresses() {
        // Decision: "Hi opencode, welcome." addresses opencode (the seed allows a
        // greeting before the name).
        let r = seed();
        check(&r, "Hi opencode, welcome.", &["opencode"]);
        let ex = r.explain("Hi opencode, welcome.");
        assert_eq!(ex.hits.len(), 1);
        assert_eq!(ex.hits[0].span, 3..11);
        assert_eq!(ex.hits[0].position, Position::AfterGreeting);
        assert_eq!(ex.hits[0].kind, Kind::Agent);
    }

    #[test]
    fn thanks_comma_name_at_end() {
        let r = seed();
        check(&r, "Thanks, Promo.", &["Promo"]);
        let ex = r.explain("Thanks, Promo.");
        assert_eq!(ex.hits[0].position, Position::EndOfSentence);
        assert_eq!(ex.hits[0].span, 8..13);
    }

    #[test]
    fn greeting_name_without_comma_addresses_nobody() {
        // Decision: strict to the seed. No `,`/`:` after the name and no comma
        // before it: nobody.
        let r = seed();
        check(&r, "Thanks Promo.", &[]);
        check(&r, "Hi opencode.", &[]);
        check(&r, "Promo?", &[]);
        check(&r, "Promo", &[]);
    }

    #[test]
    fn equal_labels_address_nobody() {
        let r = Roster::new(Some("Oliver"), "Delta", &["Promo", "promo"]);
        check(&r, "Promo, is the build green?", &[]);
        let ex = r.explain("Promo, is the build green?");
        assert_eq!(ex.hits.len(), 1);
        assert!(ex.is_ambiguous());
        assert_eq!(ex.hits[0].collides_with, ["promo"]);
        assert_eq!(r.ambiguous_pairs(), [("Promo", "promo")]);
        // others are still addressable
        check(&r, "Oliver, look.", &["Oliver"]);
    }

    #[test]
    fn identical_duplicate_labels_address_nobody() {
        let r = Roster::new(None, "Delta", &["Claude", "Claude"]);
        check(&r, "Claude, review this.", &[]);
        assert_eq!(r.ambiguous_pairs(), [("Claude", "Claude")]);
    }

    // ---- positions ----

    #[test]
    fn colon_after_name() {
        check(&seed(), "Promo: is the build green?", &["Promo"]);
        check(&seed(), "Promo : is the build green?", &["Promo"]);
        check(&seed(), "Promo，is it green?", &["Promo"]);
    }

    #[test]
    fn end_of_sentence_variants() {
        let r = seed();
        check(&r, "Is the build green, Promo?", &["Promo"]);
        check(&r, "Is the build green, Promo?!", &["Promo"]);
        check(&r, "Is the build green,Promo", &["Promo"]);
        check(&r, "\"Is the build green, Promo?\"", &["Promo"]);
        check(&r, "(Is the build green, Promo?)  ", &["Promo"]);
        check(&r, "Good work, Promo! Now rest.", &["Promo"]);
        check(&r, "Thanks, Promo…", &["Promo"]);
    }

    #[test]
    fn end_rule_needs_the_name_last() {
        let r = seed();
        check(&r, "Is the build green, Promo, or not?", &[]);
        check(&r, "Is it green, Promo's build?", &[]);
        check(&r, "Is it green, Promo please?", &[]);
    }

    #[test]
    fn mid_sentence_addresses_nobody() {
        let r = seed();
        check(&r, "I asked Promo yesterday.", &[]);
        check(&r, "I asked Promo, and he said yes.", &[]);
        check(&r, "Yesterday Promo said the build is green.", &[]);
        check(&r, "The data, as I said, is stale.", &[]);
        check(&r, "Promo and opencode, check the logs.", &[]);
    }

    #[test]
    fn data_inside_a_sentence_is_not_delta() {
        let r = seed();
        check(&r, "the data, as I said", &[]);
        check(&r, "Look at the data.", &[]);
        check(&r, "We need more data, Promo.", &["Promo"]);
        check(&r, "Check the board, data.", &["Delta"]); // end position counts
        check(&r, "Database, please.", &[]);
        check(&r, "Datadog, please.", &[]);
    }

    #[test]
    fn several_sentences_in_order() {
        let r = seed();
        check(
            &r,
            "Promo, is the build green? opencode: please check the logs. Thanks, Oliver.",
            &["Promo", "opencode", "Oliver"],
        );
        check(
            &r,
            "opencode, check. Promo, check. opencode, again.",
            &["opencode", "Promo"],
        );
        check(&r, "Promo, thanks, Promo.", &["Promo"]);
        let ex = r.explain("Promo, thanks, Promo.");
        assert_eq!(ex.hits.len(), 2);
        assert_eq!(ex.hits[0].position, Position::SentenceStart);
        assert_eq!(ex.hits[1].position, Position::EndOfSentence);
    }

    #[test]
    fn start_and_end_in_one_sentence() {
        check(&seed(), "Promo, ask him, Oliver.", &["Promo", "Oliver"]);
    }

    #[test]
    fn line_breaks_split_sentences() {
        check(
            &seed(),
            "Promo, check the build\nopencode, check the logs\r\nok",
            &["Promo", "opencode"],
        );
    }

    #[test]
    fn case_insensitive_and_word_boundary() {
        let r = seed();
        check(&r, "PROMO, status?", &["Promo"]);
        check(&r, "OpenCode: status?", &["opencode"]);
        check(&r, "Promotion, status?", &[]);
        check(&r, "xPromo, status?", &[]);
        check(&r, "Promo2, status?", &[]);
        check(&r, "Is that all, Promotion?", &[]);
    }

    // ---- greetings ----

    #[test]
    fn english_greetings() {
        let r = seed();
        for g in [
            "Hi",
            "Hey",
            "Hello",
            "Ok",
            "Okay",
            "So",
            "Thanks",
            "Good morning",
            "Yes",
            "Sorry",
            "Thank you",
            "Alright",
        ] {
            check(&r, &format!("{g} Promo, is it green?"), &["Promo"]);
            check(&r, &format!("{g}, Promo, is it green?"), &["Promo"]);
        }
        let ex = r.explain("Hey, Promo, is it green?");
        assert_eq!(ex.hits[0].position, Position::AfterGreeting);
    }

    #[test]
    fn german_greetings() {
        let r = Roster::new(Some("Oliver"), "Delta", &["Promo"]);
        for g in [
            "Hallo",
            "Hey",
            "Na",
            "Also",
            "Gut",
            "Danke",
            "Ja",
            "Nein",
            "Bitte",
            "Guten Morgen",
            "Guten   Morgen",
            "Moin",
            "Alles klar",
            "Ähm",
        ] {
            check(&r, &format!("{g} Promo, ist der Build grün?"), &["Promo"]);
            check(&r, &format!("{g}, Promo: ist der Build grün?"), &["Promo"]);
        }
        check(&r, "Danke, Delta.", &["Delta"]);
        check(&r, "Ja Della, was steht auf dem Board?", &["Delta"]);
    }

    #[test]
    fn chained_greetings() {
        let r = seed();
        check(&r, "Okay, so, Promo, is it green?", &["Promo"]);
        check(&r, "Okay so hi Promo: is it green?", &["Promo"]);
        check(&r, "Hi – Promo, is it green?", &["Promo"]);
        // no more than three greetings
        check(&r, "Okay so hi hey Promo, is it green?", &[]);
    }

    #[test]
    fn conjunctions_are_not_greetings() {
        let r = seed();
        check(&r, "And data, as I said, is stale.", &[]);
        check(&r, "But Promo, is it green?", &[]);
    }

    #[test]
    fn a_greeting_must_be_a_whole_word() {
        let r = seed();
        check(&r, "Hippo Promo, is it green?", &[]);
        check(&r, "Sofa Promo, is it green?", &[]);
    }

    #[test]
    fn a_label_that_is_also_a_greeting() {
        let r = Roster::new(None, "Delta", &["Hey"]);
        check(&r, "Hey, check the logs.", &["Hey"]);
        check(&r, "Hi Hey, check the logs.", &["Hey"]);
        check(&r, "Hey there.", &[]);
    }

    // ---- the voicebot ----

    #[test]
    fn delta_variants_at_start_and_end() {
        let r = seed();
        for v in [
            "Delta",
            "Data",
            "Della",
            "Delter",
            "Delta's",
            "Delta’s",
            "DATA",
            "delter",
        ] {
            check(&r, &format!("{v}, what is on the board?"), &["Delta"]);
            check(&r, &format!("What is on the board, {v}?"), &["Delta"]);
            check(&r, &format!("Hi {v}: what is on the board?"), &["Delta"]);
            check(&r, &format!("We talked to {v} about it."), &[]);
        }
        let ex = r.explain("Data, status.");
        assert!(ex.hits[0].variant);
        assert_eq!(ex.hits[0].kind, Kind::Voicebot);
        assert!(!r.explain("Delta, status.").hits[0].variant);
    }

    #[test]
    fn possessive_only_for_the_voicebot() {
        let r = seed();
        check(&r, "Promo's, is it green?", &[]);
        check(&r, "Is it green, Promo's?", &[]);
        check(&r, "Oliver's, look.", &[]);
        check(&r, "Delta's, look.", &["Delta"]);
    }

    #[test]
    fn delta_possessive_with_following_noun_is_not_addressing() {
        check(&seed(), "Delta's board, please.", &[]);
    }

    #[test]
    fn other_voicebot_name() {
        let r = Roster::new(Some("Oliver"), "Echo", &["Promo"]);
        check(&r, "Echo, status?", &["Echo"]);
        check(&r, "Echo's, status?", &["Echo"]);
        check(&r, "Data, status?", &[]);
        check(&r, "Delta, status?", &[]);
        assert_eq!(r.voicebot(), "Echo");
    }

    #[test]
    fn empty_voicebot_means_delta() {
        let r = Roster::new(None, "  ", &[]);
        check(&r, "Data, status?", &["Delta"]);
        assert_eq!(r.voicebot(), "Delta");
        assert_eq!(r.kind_of("Delta"), Some(Kind::Voicebot));
    }

    #[test]
    fn agent_named_like_a_delta_variant_collides() {
        let r = Roster::new(Some("Oliver"), "Delta", &["Data", "Promo"]);
        check(&r, "Data, status?", &[]);
        check(&r, "Delta, status?", &[]);
        check(&r, "Promo, status?", &["Promo"]);
        assert_eq!(r.ambiguous_pairs(), [("Delta", "Data")]);
        let ex = r.explain("Data, status?");
        assert_eq!(ex.hits[0].collides_with, ["Data"]);
    }

    #[test]
    fn agent_similar_to_delta_collides() {
        let r = Roster::new(None, "Delta", &["Delta Bot", "Bella"]);
        assert_eq!(r.ambiguous_pairs(), [("Delta", "Delta Bot")]);
        check(&r, "Delta, status?", &[]);
        check(&r, "Delta Bot, status?", &[]);
    }

    // ---- the human ----

    #[test]
    fn human_is_addressable_and_optional() {
        check(&seed(), "Oliver: yes or no?", &["Oliver"]);
        check(&seed(), "Yes or no, Oliver?", &["Oliver"]);
        let r = Roster::new(None, "Delta", &["Promo"]);
        check(&r, "Oliver, yes or no?", &[]);
        let r = Roster::new(Some(""), "Delta", &["Promo"]);
        assert_eq!(r.participants().count(), 2);
        assert_eq!(r.kind_of("Oliver"), None);
    }

    #[test]
    fn human_equal_to_an_agent_collides() {
        let r = Roster::new(Some("Max"), "Delta", &["max"]);
        check(&r, "Max, look.", &[]);
        assert_eq!(r.ambiguous_pairs(), [("Max", "max")]);
    }

    // ---- labels ----

    #[test]
    fn multi_word_labels() {
        let r = Roster::new(Some("Oliver"), "Delta", &["Claude Code", "Promo"]);
        check(&r, "Claude Code, please review.", &["Claude Code"]);
        check(&r, "claude   code: please review.", &["Claude Code"]);
        check(&r, "ClaudeCode, please review.", &["Claude Code"]);
        check(&r, "Please review, Claude Code.", &["Claude Code"]);
        check(&r, "Hi Claude Code, welcome.", &["Claude Code"]);
        check(&r, "Claude, please review.", &[]);
        check(&r, "Claude Codex, please review.", &[]);
    }

    #[test]
    fn prefix_labels_collide() {
        let r = Roster::new(None, "Delta", &["Claude", "Claude Code", "Promo"]);
        check(&r, "Claude Code, please review.", &[]);
        check(&r, "Claude, please review.", &[]);
        check(&r, "Promo, please review.", &["Promo"]);
        check(&r, "Promo, review. Claude, test.", &[]);
        assert_eq!(r.ambiguous_pairs(), [("Claude", "Claude Code")]);
    }

    #[test]
    fn separators_inside_names() {
        let r = Roster::new(None, "Delta", &["docs-bot", "ci_runner", "v1.2"]);
        check(&r, "docs bot, update the page.", &["docs-bot"]);
        check(&r, "Docs-Bot, update the page.", &["docs-bot"]);
        check(&r, "DOCS_BOT: update the page.", &["docs-bot"]);
        check(&r, "CI Runner, go.", &["ci_runner"]);
        check(&r, "v1.2, go.", &["v1.2"]);
        check(&r, "Go, v1.2.", &["v1.2"]);
        check(&r, "Go now, V12!", &["v1.2"]);
    }

    #[test]
    fn opencode_spoken_as_two_words() {
        check(&seed(), "Open code, can you check the logs?", &["opencode"]);
    }

    #[test]
    fn regex_metacharacters_in_labels() {
        let r = Roster::new(
            None,
            "Delta",
            &["a.b*c?", "[bot]+", "C++ (beta)", "$^|\\", "(x)"],
        );
        check(&r, "a.b*c?, do it.", &["a.b*c?"]);
        check(&r, "abc, do it.", &[]);
        check(&r, "[Bot]+, status?", &["[bot]+"]);
        check(&r, "bot, status?", &[]);
        check(&r, "c++ (BETA): status?", &["C++ (beta)"]);
        check(&r, "Status please, c++ (beta).", &["C++ (beta)"]);
        check(&r, "$^|\\, status?", &["$^|\\"]);
        check(&r, "(x), status?", &["(x)"]);
        check(&r, "x, status?", &[]);
    }

    #[test]
    fn emoji_labels() {
        let r = Roster::new(
            None,
            "Delta",
            &["🧩 opencode", "🤖🔧Builder", "1️⃣ First", "👨‍👩‍👧 Family"],
        );
        check(&r, "opencode, check the logs.", &["🧩 opencode"]);
        check(&r, "🧩 opencode, check the logs.", &["🧩 opencode"]);
        check(&r, "👋 opencode, check the logs.", &["🧩 opencode"]);
        check(&r, "Builder, build.", &["🤖🔧Builder"]);
        check(&r, "First, check.", &["1️⃣ First"]);
        check(&r, "Family, dinner!", &["👨‍👩‍👧 Family"]);
        check(&r, "🧩, check.", &[]);
    }

    #[test]
    fn emoji_only_label() {
        let r = Roster::new(None, "Delta", &["🧩"]);
        check(&r, "🧩, check.", &["🧩"]);
        check(&r, "Check, 🧩!", &["🧩"]);
        assert_eq!(r.participants().count(), 2);
    }

    #[test]
    fn empty_and_separator_labels_are_ignored() {
        let r = Roster::new(None, "Delta", &["", "   ", "-_.", "Promo"]);
        assert_eq!(r.participants().count(), 2);
        assert!(r.ambiguous_pairs().is_empty());
        check(&r, ", check.", &[]);
        check(&r, "Promo, check.", &["Promo"]);
    }

    #[test]
    fn label_of_22_chars() {
        let r = Roster::new(None, "Delta", &["opencode-session-2026"]);
        check(&r, "Opencode session 2026, hi.", &["opencode-session-2026"]);
    }

    #[test]
    fn unicode_names() {
        let r = Roster::new(Some("Jürgen"), "Delta", &["Πέτρος", "Ölf", "Straße"]);
        check(&r, "JÜRGEN, kommst du?", &["Jürgen"]);
        check(&r, "ΠΈΤΡΟΣ, status?", &["Πέτρος"]); // Σ and final ς fold alike
        check(&r, "Status, πέτροσ?", &["Πέτρος"]);
        check(&r, "ölf: status?", &["Ölf"]);
        check(&r, "Hallo Straße, status?", &["Straße"]);
        check(&r, "Jürgens, kommst du?", &[]);
    }

    #[test]
    fn names_in_other_scripts_need_a_boundary() {
        let r = Roster::new(None, "Delta", &["Ölf"]);
        check(&r, "Ölfä, status?", &[]);
        check(&r, "Ölf\u{301}, status?", &[]); // combining mark then comma: not a name followed by a comma
    }

    // ---- sentence splitting ----

    fn split(text: &str) -> Vec<&str> {
        sentences(text).map(|r| &text[r]).collect()
    }

    #[test]
    fn sentence_splitting() {
        assert_eq!(
            split("Version 3.5 is out. Promo, go! Really?! Yes…ok"),
            ["Version 3.5 is out.", " Promo, go!", " Really?!", " Yes…ok"]
        );
        assert_eq!(
            split("See https://example.com/a.b?c=1. Done"),
            ["See https://example.com/a.b?c=1.", " Done"]
        );
        assert_eq!(split("He said \"go.\" Then"), ["He said \"go.\"", " Then"]);
        assert_eq!(split("a\nb\r\nc"), ["a", "b", "", "c"]);
        assert_eq!(split("end."), ["end."]);
        assert!(split("").is_empty());
    }

    #[test]
    fn decimals_and_urls_do_not_start_sentences() {
        let r = Roster::new(None, "Delta", &["5 Promo", "com"]);
        check(&r, "It is 3.5 Promo, yes.", &[]);
        check(&r, "Open example.com, then wait.", &[]);
        check(&r, "Open example. com, then wait.", &["com"]);
    }

    #[test]
    fn ellipsis_starts_a_new_sentence() {
        check(&seed(), "Hmm... Promo, look at this.", &["Promo"]);
        check(&seed(), "Hmm… Promo, look at this.", &["Promo"]);
    }

    #[test]
    fn url_before_end_name() {
        check(
            &seed(),
            "Open https://example.com/docs?x=1, Promo.",
            &["Promo"],
        );
    }

    #[test]
    fn quoted_sentence_start() {
        check(&seed(), "\"Promo, is it green?\"", &["Promo"]);
        check(&seed(), "— Promo, is it green?", &["Promo"]);
        check(&seed(), "„Promo, ist er grün?“", &["Promo"]);
    }

    // ---- similarity ----

    #[test]
    fn similar_both_ways() {
        let yes = [
            ("opencode", "OpenCode"),
            ("Builder", "Builder2"),
            ("Builder", "builder 2"),
            ("docs-bot", "docs bot"),
            ("docs-bot", "Docs_Bot"),
            ("🧩 Promo", "promo"),
            ("Claude", "Claude 2"),
            ("Claude", "Claude Code"),
            ("docs", "docs-bot"),
            ("Agent 1", "Agent 2"),
            ("Della", "Delta"),
            ("Codex", "Coder"),
            ("Reviewer", "Reviewed"),
            ("Reviewer", "Reveiwer"), // swap
            ("opencode", "opencoder"),
            ("Promo", "Promo"),
            ("max", "MAX"),
            ("Reviewer Bot", "Reviewr Bot"),
        ];
        for (a, b) in yes {
            assert!(similar_labels(a, b), "{a:?} ~ {b:?}");
            assert!(similar_labels(b, a), "{b:?} ~ {a:?}");
        }
        let no = [
            ("Promo", "Claude"),
            ("Reviewer", "Builder"),
            ("Claude Code", "Claude Desktop"),
            ("Claude", "Claudia"),
            ("Bob", "Rob"),
            ("Data", "Delta"),
            ("Delter", "Delta"),
            ("Oliver", "Olivia"),
            ("opencode", "openhands"),
            ("Code", "Claude Code"),
            ("1", "2"),
            ("", ""),
            ("", "Promo"),
            ("-", "_"),
            ("Promo", "Promotion"),
            ("Rohit Raj", "Rohit Das"),
        ];
        for (a, b) in no {
            assert!(!similar_labels(a, b), "{a:?} !~ {b:?}");
            assert!(!similar_labels(b, a), "{b:?} !~ {a:?}");
        }
    }

    #[test]
    fn similar_labels_do_not_panic_on_long_input() {
        let a = "a".repeat(1_000_000);
        let mut b = a.clone();
        b.push('b');
        assert!(similar_labels(&a, &b));
        assert!(!similar_labels(&a, &"b".repeat(1_000_000)));
    }

    #[test]
    fn edit_distance_is_bounded() {
        let c = |s: &str| s.chars().collect::<Vec<_>>();
        assert!(within_distance(&c("kitten"), &c("sitten"), 1));
        assert!(!within_distance(&c("kitten"), &c("sitting"), 2));
        assert!(within_distance(&c("kitten"), &c("sitting"), 3));
        assert!(within_distance(&c("ab"), &c("ba"), 1));
        assert!(!within_distance(&c("ca"), &c("abc"), 2)); // OSA, not full Damerau
        assert!(within_distance(&c(""), &c("ab"), 2));
    }

    #[test]
    fn each_name_is_compared_with_the_first_and_the_latest_before_it() {
        assert_eq!(compared_with(0).count(), 0);
        assert_eq!(compared_with(3).collect::<Vec<_>>(), [0, 1, 2]);
        let far: Vec<usize> = compared_with(10_000).collect();
        assert_eq!(far.len(), ALWAYS_COMPARED + COMPARE_WINDOW);
        assert_eq!(&far[..5], [0, 1, 2, 3, 10_000 - COMPARE_WINDOW]);
        assert_eq!(far.last(), Some(&9_999));
        // Thousands of names like each other: every one collides, at a cost
        // of the window per name, not of all the names before it.
        let names: Vec<String> = (0..3_000).map(|i| format!("Agent {i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let r = Roster::new(Some("Oliver"), "Delta", &refs);
        assert!(r.addressees("Agent 7, are you there?").is_empty());
        assert!(r.ambiguous_pairs().len() <= refs.len() * (ALWAYS_COMPARED + COMPARE_WINDOW));
        let r = Roster::new(Some("Oliver"), "Delta", &["Promo", "Claude Code"]);
        assert_eq!(r.addressees("Claude Code, check it."), ["Claude Code"]);
        assert!(r.addressees("Claude, check it.").is_empty());
    }

    #[test]
    fn ambiguous_pairs_in_roster_order() {
        let r = Roster::new(
            Some("Oliver"),
            "Delta",
            &["Builder", "Promo", "Builder2", "docs bot", "docs-bot"],
        );
        assert_eq!(
            r.ambiguous_pairs(),
            [("Builder", "Builder2"), ("docs bot", "docs-bot")]
        );
        check(&r, "Builder, build.", &[]);
        check(&r, "Builder2, build.", &[]);
        check(&r, "Promo, promote.", &["Promo"]);
        let ex = r.explain("Promo, promote. Builder2, build.");
        assert_eq!(ex.hits.len(), 2);
        assert!(!ex.hits[0].is_ambiguous());
        assert_eq!(ex.hits[1].collides_with, ["Builder"]);
        assert!(ex.addressees().is_empty());
        assert!(r.addressees("Promo, promote. Builder2, build.").is_empty());
    }

    #[test]
    fn no_ambiguity_in_the_seed_call() {
        assert!(seed().ambiguous_pairs().is_empty());
        let r = seed();
        let kinds: Vec<_> = r.participants().collect();
        assert_eq!(
            kinds,
            [
                ("Oliver", Kind::Human),
                ("Delta", Kind::Voicebot),
                ("opencode", Kind::Agent),
                ("Promo", Kind::Agent),
                ("Claude", Kind::Agent),
            ]
        );
    }

    // ---- robustness ----

    #[test]
    fn odd_inputs_do_not_panic() {
        let r = seed();
        for text in [
            "",
            " ",
            ",",
            ":",
            ", ,",
            ".",
            "...",
            "?!?!",
            "\0\u{1}\u{7f}",
            "\u{301}",
            "\u{301}, Promo",
            "Promo\u{301}",
            "🧩",
            "👨‍👩‍👧,",
            "İ, Promo.",
            "\u{FEFF}Promo, go",
            "\r\n\r\n",
            "Promo,",
            ", Promo",
            "Data",
            "Delta'",
            "Delta's",
            "ﬀ, ß, ẞ",
            "\u{2028}Promo, go",
        ] {
            let _ = r.addressees(text);
            let ex = r.explain(text);
            for hit in ex.hits {
                assert!(
                    text.is_char_boundary(hit.span.start) && text.is_char_boundary(hit.span.end)
                );
            }
        }
        check(&r, "\u{FEFF}Promo, go", &["Promo"]);
        check(&r, "\u{2028}Promo, go", &["Promo"]);
        check(&r, "Promo,", &["Promo"]);
        check(&r, ", Promo", &["Promo"]);
    }

    #[test]
    fn multi_char_case_folding() {
        // 'İ' lowercases to two chars; labels built from it still match.
        let r = Roster::new(None, "Delta", &["İlker"]);
        check(&r, "İLKER, status?", &["İlker"]);
        check(&r, "Status, İlker.", &["İlker"]);
    }

    #[test]
    fn one_megabyte_of_text() {
        let r = seed();
        let mut text = String::with_capacity(1_100_000);
        while text.len() < 1_000_000 {
            text.push_str("the data, as I said, is stale and Promo is 3.5 times slower ");
        }
        assert!(r.addressees(&text).is_empty());
        text.push_str(". Promo, go.");
        assert_eq!(r.addressees(&text), ["Promo"]);

        let commas = ",".repeat(1_000_000);
        assert!(r.addressees(&commas).is_empty());
        let spaces = format!("o{}pencode, hi", " ".repeat(1_000_000));
        assert_eq!(r.addressees(&spaces), ["opencode"]);
        let dots = ". ".repeat(500_000);
        assert!(r.addressees(&dots).is_empty());
        let names = "Promo, ".repeat(150_000);
        assert_eq!(r.addressees(&names), ["Promo"]);
    }

    #[test]
    fn pseudo_random_text_does_not_panic() {
        let r = Roster::new(
            Some("Öliver"),
            "Delta",
            &["🧩 opencode", "Promo", "Claude Code", "a.b", "İx"],
        );
        let alphabet: Vec<char> = "aDdeltaPrmoÖİ ,.:!?'’\n\u{301}🧩‍️-_…x3".chars().collect();
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..3000 {
            let len = (state % 40) as usize;
            let mut s = String::new();
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                s.push(alphabet[(state % alphabet.len() as u64) as usize]);
            }
            let got = r.addressees(&s);
            let ex = r.explain(&s);
            assert_eq!(ex.addressees(), got, "{s:?}");
            for hit in &ex.hits {
                assert!(s.is_char_boundary(hit.span.start) && s.is_char_boundary(hit.span.end));
                assert!(hit.span.start < hit.span.end, "{s:?}");
            }
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        }
    }

    #[test]
    fn position_descriptions() {
        assert!(Position::EndOfSentence.describe().contains("comma"));
    }
}
