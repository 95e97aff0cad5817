//! Call-language identification for short spoken utterances.
//!
//! [`identify`] tells which language (English or German; more can be added)
//! a line of a voice call is in, or answers [`Verdict::Unsure`] when the line
//! is too short, carries no language, or mixes languages.
//!
//! # What is discounted
//!
//! Before judging, everything that carries no language is dropped: the names
//! and labels passed in by the caller (case-insensitive, whole words,
//! possessives such as `Oliver's` included), the voicebot "Delta" and what
//! speech recognition makes of it ("Data", "Della", "Delter"), URLs, e-mail
//! addresses and `@mentions`, file names and paths, code identifiers
//! (`snake_case`, `camelCase`, `` `backticked` ``), anything with a digit in
//! it and the unit after a number (`120 ms`, `40 MB`), acronyms (`API`, `CI`),
//! emoji and punctuation. Words that a software team uses alike in both
//! languages ("Build", "Release", "Deployment", "okay", ...) are neutral
//! (`rules/lexicon/lang-neutral.txt`).
//!
//! # The model
//!
//! A naive-Bayes word model: each remaining word scores
//! `ln P(word | language)` for every language. The word table holds each
//! language's 50,000 most frequent words, and for each of them its
//! frequency in every language whose full list has it: a loanword or a
//! name one language borrows from the other ("Support", "Compiler",
//! "Pennsylvania" in German text) scores by how often that language really
//! uses it, not by how foreign it looks, and so gives little evidence
//! either way. A language whose list lacks the word, and every word on no
//! list at all, falls back on the language's leftover probability mass
//! times a character 4-gram model of the word (Witten-Bell interpolation),
//! so inflected loanwords ("gepusht", "gemergt") and rare compounds are
//! judged by their spelling. Spelling is weaker evidence than usage: a word
//! on no list gives half its lead ([`Options::spelling_weight`]), so such a
//! word alone (a rare name, a brand) needs a lead of twice the margin. The
//! tables are derived from the word-frequency lists of wordfreq 3.1.1 by
//! `scripts/lang-build.py`: `lang-words.txt` (every listed word's
//! log-probability in every language, precomputed) and `lang-<code>.txt`
//! (each language's character n-gram counts, for words on no list). None of
//! it comes from test data.
//!
//! Every word's evidence is capped ([`Options::word_cap`]), so one German
//! name or word in an English sentence (or an English loanword in a German
//! one) cannot tip it. The verdict is the language with the highest total
//! when it leads by at least [`Options::min_margin`] nats and the runner-up's
//! own evidence is less than [`Options::mixed_ratio`] of the winner's;
//! otherwise [`Verdict::Unsure`].
//!
//! Measured with `cargo run --release --example langeval` (lingua's public
//! English and German test data and callint's own call utterances): no
//! false alarm on sentences, 100% of them identified, about 97% of word
//! pairs, and on single words at most 0.5% taken for the other language
//! with about 82% identified (the rest abstained), at a few microseconds
//! per utterance.
//!
//! Cost: `build.rs` turns the tables into hash tables at compile time,
//! which the binary reads in place (nothing to load at start-up);
//! [`identify`] makes one pass over the text, allocates nothing, and never
//! panics.
//!
//! [`claimed_language`] is a separate, rule-based helper: it finds lines that
//! state which language is spoken in the call ("German is spoken here",
//! "Hier wird Deutsch gesprochen").

use std::sync::OnceLock;

use crate::text::langmodel::{lowercase_into, Grams, Tables, MAX_WORD_BYTES, N};
pub use crate::text::others::Other;
use crate::text::others::{foreign_script, Evidence as OtherEvidence};

/// A language the identifier knows.
///
/// Adding one: a variant here and its arms in [`Lang::code`],
/// [`Lang::name`], [`Lang::ALL`], `N` and `CODES` in `src/langmodel.rs`,
/// its table in `build.rs`, then
/// `python3 scripts/lang-build.py en de <code>` for the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// English.
    En,
    /// German.
    De,
}

impl Lang {
    /// Every language, in the order of the score arrays.
    pub const ALL: [Lang; N] = [Lang::En, Lang::De];

    /// ISO 639-1 code: `"en"`, `"de"`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
        }
    }

    /// The language for an ISO 639-1 code (case-insensitive, region
    /// suffixes like `en-US` or `de_AT` allowed).
    pub fn from_code(s: &str) -> Option<Lang> {
        let s = s.trim();
        let base = s.split(['-', '_']).next().unwrap_or(s);
        Lang::ALL
            .into_iter()
            .find(|l| base.eq_ignore_ascii_case(l.code()))
    }

    /// English name: `"English"`, `"German"`.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::De => "German",
        }
    }
}

/// What [`identify`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// The text is in `lang`. `confidence` is in `(0.5, 1]`: the
    /// winner's share after softening the model's margin (see
    /// [`Analysis::confidence`]).
    Lang { lang: Lang, confidence: f32 },
    /// Too short, no language in it, or mixed.
    Unsure,
}

impl Verdict {
    /// The language, if one was found.
    pub fn lang(self) -> Option<Lang> {
        match self {
            Verdict::Lang { lang, .. } => Some(lang),
            Verdict::Unsure => None,
        }
    }
}

/// Tuning knobs of [`identify_with`]; [`Options::default`] is what
/// [`identify`] uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Least lead (in nats, natural-log probability) of the best language
    /// over the runner-up for a verdict.
    pub min_margin: f32,
    /// Share of its evidence that a word on no word list gives, judged by
    /// its spelling alone: the character model multiplies many overlapping
    /// n-gram odds and overstates how sure it is, and a word no list knows
    /// is often a rare name or a brand, spelled alike in both languages.
    /// With the default, one such word alone needs a lead of twice
    /// [`Options::min_margin`].
    pub spelling_weight: f32,
    /// Most evidence (nats) a single word can give; caps names and
    /// loanwords.
    pub word_cap: f32,
    /// Unsure when the runner-up's own evidence reaches this share of the
    /// winner's (mixed text). `1.0` or more turns the check off.
    pub mixed_ratio: f32,
    /// The mixed check only applies when the runner-up's evidence is at
    /// least this many nats.
    pub mixed_min: f32,
    /// Treat the words of `lang-neutral.txt` as carrying no language.
    pub neutral_words: bool,
    /// Discount URLs, paths, identifiers, numbers, units and acronyms.
    pub discount_code: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            min_margin: 2.5,
            spelling_weight: 0.5,
            word_cap: 8.0,
            mixed_ratio: 0.6,
            mixed_min: 3.0,
            neutral_words: true,
            discount_code: true,
        }
    }
}

/// The details behind a verdict, for tests, tuning and explanations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Analysis {
    /// The verdict under the options used.
    pub verdict: Verdict,
    /// Words that were scored (not discounted, not neutral).
    pub words: usize,
    /// Total log-probability per language ([`Lang::ALL`] order), after the
    /// per-word cap.
    pub scores: [f32; N],
    /// Per language, the evidence of the words it won (sum of each word's
    /// lead over its runner-up).
    pub support: [f32; N],
    /// Best language by score (None without scored words).
    pub best: Option<Lang>,
    /// Lead of the best language over the runner-up, in nats.
    pub margin: f32,
}

impl Analysis {
    /// The margin softened into a share in `[0.5, 1]`:
    /// `1 / (1 + exp(-margin / 2))`. Naive Bayes over-counts correlated
    /// words; the halving keeps a two-word line from claiming near
    /// certainty.
    pub fn confidence(&self) -> f32 {
        1.0 / (1.0 + (-self.margin / 2.0).exp())
    }
}

/// Which language is `text` in? `names`: names and labels to discount
/// (case-insensitive, whole words; a label's emoji or punctuation does not
/// matter), as a list or a call's [`NameIndex`].
pub fn identify<'a>(text: &str, names: impl Into<Names<'a>>) -> Verdict {
    analyze(text, names, &Options::default()).verdict
}

/// [`identify`] with other [`Options`].
pub fn identify_with<'a>(text: &str, names: impl Into<Names<'a>>, options: &Options) -> Verdict {
    analyze(text, names, options).verdict
}

/// The model's tables as `build.rs` encoded them from the text tables.
static TABLES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/lang.bin"));

/// The model, read in place from the embedded tables.
fn model() -> &'static Tables<'static> {
    static MODEL: OnceLock<Tables<'static>> = OnceLock::new();
    MODEL.get_or_init(|| {
        // The bytes are the build's own output, checked by a test; should
        // they ever not read back, every text is judged unsure instead.
        Tables::new(TABLES).unwrap_or_else(|| {
            let empty = crate::text::langmodel::Model::empty().encode();
            Tables::new(Box::leak(empty.into_boxed_slice())).expect("an empty model encodes")
        })
    })
}

/// Load the language tables now instead of on first use (they take a few
/// tens of milliseconds).
pub fn warm_up() {
    let _ = model();
    crate::text::others::warm_up();
}

/// Scores and verdict for `text`.
pub fn analyze<'a>(text: &str, names: impl Into<Names<'a>>, options: &Options) -> Analysis {
    analyze_into(text, names.into(), options, None)
}

impl Heard {
    /// The language's name as a message gives it: `"German"`, `"French"`,
    /// `"Spanish or Portuguese"`; None for the call language or unsure.
    pub fn names(&self) -> Option<String> {
        match self {
            Heard::CallOrUnsure => None,
            Heard::Lang { lang, or: None } => Some(lang.name().to_string()),
            Heard::Lang {
                lang,
                or: Some((name, _)),
            } => Some(format!("{} or {name}", lang.name())),
            Heard::Other(other) => Some(other.names()),
        }
    }

    /// Is the language heard (or the one named with it) `code`?
    pub fn is(&self, code: &str) -> bool {
        match self {
            Heard::CallOrUnsure => false,
            Heard::Lang { lang, or } => lang.code() == code || or.is_some_and(|(_, c)| c == code),
            Heard::Other(other) => other.is(code),
        }
    }

    /// Named by one language alone?
    pub fn alone(&self) -> bool {
        match self {
            Heard::CallOrUnsure => false,
            Heard::Lang { or, .. } => or.is_none(),
            Heard::Other(other) => other.or.is_none(),
        }
    }
}

/// What [`identify_in_call`] heard.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Heard {
    /// The call language, or nothing sure.
    CallOrUnsure,
    /// The other call language; `or`, another language that fits the words
    /// as well (name and code), to be named with it.
    Lang {
        lang: Lang,
        or: Option<(&'static str, &'static str)>,
    },
    /// A language that is not a call language.
    Other(Other),
}

/// Which language is `text` in, as said in a call whose language is
/// `call`: [`identify`] for English against German, and
/// [`crate::text::others`] for every other language, in one pass.
pub fn identify_in_call<'a>(text: &str, names: impl Into<Names<'a>>, call: Lang) -> Heard {
    let mut others = OtherEvidence::default();
    let analysis = analyze_into(text, names.into(), &Options::default(), Some(&mut others));
    let index = Lang::ALL.iter().position(|l| *l == call).unwrap_or(0);
    if let Some(other) = others.verdict(index, analysis.words) {
        return Heard::Other(other);
    }
    match analysis.verdict {
        Verdict::Lang { lang, .. } if lang != call => {
            let index = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
            match others.instead_of(index) {
                Some(other) => Heard::Other(other),
                None => Heard::Lang {
                    lang,
                    or: others.rival_of(index),
                },
            }
        }
        _ => Heard::CallOrUnsure,
    }
}

/// Does the word at `word` (a slice of `text`) start a sentence?
fn starts_sentence(text: &str, word: &str) -> bool {
    let offset = (word.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    let Some(before) = text.get(..offset) else {
        return true;
    };
    let before = before.trim_end_matches(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '"' | '\''
                    | '('
                    | '['
                    | '„'
                    | '“'
                    | '”'
                    | '«'
                    | '»'
                    | '‚'
                    | '‘'
                    | '’'
                    | '-'
                    | '–'
                    | '—'
                    | '*'
            )
    });
    before
        .chars()
        .next_back()
        .is_none_or(|c| matches!(c, '.' | '!' | '?' | ':' | ';' | '…' | '¡' | '¿'))
}

/// The names a text's words are checked against, and left out of the
/// scoring where one is found. Either form gives the same answer; the
/// index costs a text its words rather than its words times the names, for
/// calls with many names and many texts.
#[derive(Clone, Copy)]
pub enum Names<'a> {
    /// Every name, tried at every word.
    List(&'a [&'a str]),
    /// Only the names that start with the word (or its possessive).
    Index(&'a NameIndex<'a>),
}

impl<'a, 'n: 'a> From<&'a [&'n str]> for Names<'a> {
    fn from(names: &'a [&'n str]) -> Self {
        Names::List(names)
    }
}

impl<'a, 'n: 'a, const N: usize> From<&'a [&'n str; N]> for Names<'a> {
    fn from(names: &'a [&'n str; N]) -> Self {
        Names::List(names)
    }
}

impl<'a, 'n: 'a> From<&'a Vec<&'n str>> for Names<'a> {
    fn from(names: &'a Vec<&'n str>) -> Self {
        Names::List(names)
    }
}

impl<'a, 'n: 'a> From<&'a NameIndex<'n>> for Names<'a> {
    fn from(index: &'a NameIndex<'n>) -> Self {
        Names::Index(index)
    }
}

impl Names<'_> {
    /// The tokens after a name (one of these, or the voicebot's) that
    /// starts at `tok`, if one does. `scratch`: buffers kept between words.
    fn skip_name<'t>(
        self,
        tokens: &Tokens<'t>,
        tok: &str,
        scratch: &mut (String, Vec<usize>),
    ) -> Option<Tokens<'t>> {
        let initial = first_lower(tok);
        // A name whose first letter (`first`) the word does not start with
        // is not matched.
        let try_name = |first: Option<char>, name: &str| {
            (first == initial).then(|| match_name(tokens, tok, name))?
        };
        let found = match self {
            Names::List(names) => names
                .iter()
                .find_map(|name| try_name(first_lower(name), name)),
            Names::Index(index) => index
                .starting(tok, scratch)
                .iter()
                .find_map(|&i| try_name(first_lower(index.names[i]), index.names[i])),
        };
        // The voicebot's initials are worked out once: every word of every
        // line is tried against its names.
        found.or_else(|| {
            VOICEBOT_NAMES
                .iter()
                .zip(VOICEBOT_INITIALS.iter())
                .find_map(|(name, &first)| try_name(first, name))
        })
    }
}

fn analyze_into(
    text: &str,
    ignore: Names<'_>,
    options: &Options,
    mut others: Option<&mut OtherEvidence>,
) -> Analysis {
    let model = model();
    let mut scores = [0.0f32; N];
    let mut support = [0.0f32; N];
    let mut words = 0usize;
    let mut buf = [0u8; MAX_WORD_BYTES];
    let mut scratch = (String::new(), Vec::new());
    let mut tokens = Tokens::new(text);
    while let Some(tok) = tokens.next() {
        // Names and labels: the caller's, and the voicebot's.
        if let Some(rest) = ignore.skip_name(&tokens, tok.word, &mut scratch) {
            tokens = rest;
            continue;
        }
        // Another script carries nothing for English against German.
        if foreign_script(tok.word) {
            if let Some(others) = others.as_deref_mut() {
                others.script_word(tok.word, lowercase_into(tok.word, &mut buf));
            }
            continue;
        }
        if options.discount_code && tok.code {
            continue;
        }
        let lower = lowercase_into(tok.word, &mut buf);
        let entry = lower.and_then(|l| model.word(l));
        if entry.is_some_and(|e| e.neutral) && options.neutral_words {
            continue;
        }
        let known = entry.is_some_and(|e| e.known);
        let lp = match entry {
            Some(entry) if entry.known => Some(entry.logp),
            _ => lower.and_then(|l| model.oov_logp(l)).map(|mut lp| {
                let best = lp.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                for v in lp.iter_mut() {
                    *v = best - options.spelling_weight * (best - *v);
                }
                lp
            }),
        };
        if let Some(others) = others.as_deref_mut() {
            others.word(tok.word, lower, !starts_sentence(text, tok.word), lp, known);
        }
        let Some(mut lp) = lp else {
            continue;
        };
        let best = lp.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        for v in lp.iter_mut() {
            *v = v.max(best - options.word_cap);
        }
        let (first, second) = top_two(&lp);
        support[first] += lp[first] - lp[second];
        for (s, v) in scores.iter_mut().zip(lp) {
            *s += v;
        }
        words += 1;
    }
    let (first, second) = top_two(&scores);
    let margin = if words == 0 {
        0.0
    } else {
        scores[first] - scores[second]
    };
    let best = (words > 0).then_some(Lang::ALL[first]);
    let mut analysis = Analysis {
        verdict: Verdict::Unsure,
        words,
        scores,
        support,
        best,
        margin,
    };
    let mixed = support[second] >= options.mixed_min
        && support[second] >= options.mixed_ratio * support[first];
    if words > 0 && margin >= options.min_margin && !mixed {
        analysis.verdict = Verdict::Lang {
            lang: Lang::ALL[first],
            confidence: analysis.confidence(),
        };
    }
    analysis
}

fn top_two(v: &[f32; N]) -> (usize, usize) {
    let mut first = 0;
    for i in 1..N {
        if v[i] > v[first] {
            first = i;
        }
    }
    let mut second = if first == 0 { 1 } else { 0 };
    for i in 0..N {
        if i != first && v[i] > v[second] {
            second = i;
        }
    }
    (first, second)
}

// ---------------------------------------------------------------------------
// Claims about the call language.

/// Which language does this line claim is spoken in the call?
///
/// `"German is spoken here"`, `"Hier wird Deutsch gesprochen"`,
/// `"we're speaking English"`, `"Der Call ist auf Englisch"` ->
/// `Some(..)`; questions (`"Is German spoken here?"`), negations
/// (`"We are not speaking German"`) and anything else -> `None`.
pub fn claimed_language(text: &str) -> Option<Lang> {
    // Every claim names a language: most texts are out after this cheap
    // search for the names alone.
    let named = if text.is_ascii() {
        // In ASCII text, matching without case is ASCII matching without case.
        let has = |name: &[u8]| {
            text.as_bytes()
                .windows(name.len())
                .any(|w| w.eq_ignore_ascii_case(name))
        };
        has(b"engl") || has(b"german") || has(b"deutsch")
    } else {
        static NAMES: OnceLock<regex::Regex> = OnceLock::new();
        NAMES
            .get_or_init(|| regex::Regex::new(r"(?i)engl|german|deutsch").expect("valid regex"))
            .is_match(text)
    };
    if !named {
        return None;
    }
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        let lang = r"(?:english|englisch|german|deutsch)";
        let patterns = [
            // English.
            format!(r"\b{lang}\s+is\s+(?:being\s+)?spoken\b"),
            format!(
                r"\b(?:we|we're|we've|we’re|everyone|everybody|all\s+of\s+us)\s+(?:are\s+|is\s+|have\s+been\s+|were\s+|'re\s+)?(?:all\s+)?(?:speaking|talking(?:\s+in)?|speak|talk(?:\s+in)?|using)\s+{lang}\b"
            ),
            format!(
                r"\b(?:this|the|our)\s+(?:call|meeting|conversation|session)\s+(?:is|was|runs|happens|takes\s+place)\s+(?:held\s+|being\s+held\s+)?in\s+{lang}\b"
            ),
            format!(
                r"\b(?:the\s+)?(?:call|call's|meeting|conversation)\s+language\s+(?:here\s+)?is\s+{lang}\b"
            ),
            format!(
                r"\b(?:the\s+)?language\s+(?:of|in|for)\s+(?:this|the|our)\s+(?:call|meeting|conversation)\s+is\s+{lang}\b"
            ),
            format!(r"\bit's\s+{lang}\s+(?:here|in\s+this\s+call)\b"),
            // A setting: "this call is set to German", "the language is
            // configured as English".
            format!(
                r"\b(?:this|the|our)\s+(?:call|meeting|conversation|session)(?:'s)?(?:\s+language)?\s+is\s+(?:set|configured|switched)\s+(?:to|for|as)\s+{lang}\b"
            ),
            format!(
                r"\b(?:the\s+)?language\s+(?:here\s+)?is\s+(?:set|configured|switched)\s+(?:to|for|as)\s+{lang}\b"
            ),
            // German.
            format!(
                r"\b(?:hier|jetzt|heute|im\s+call|in\s+(?:diesem|dem)\s+(?:call|meeting|gespräch)|es)\s+wird\s+(?:hier\s+|jetzt\s+|gerade\s+|nur\s+)?{lang}\s+gesprochen\b"
            ),
            format!(r"\bwird\s+hier\s+{lang}\s+gesprochen\b"),
            format!(
                r"\bwir\s+(?:sprechen|reden|unterhalten\s+uns)\s+(?:hier\s+|jetzt\s+|gerade\s+|heute\s+)?(?:auf\s+|in\s+)?{lang}\b"
            ),
            format!(
                r"\b(?:der|dieser|unser|das|dieses)\s+(?:call|meeting|gespräch|anruf)\s+(?:ist|läuft|findet)\s+(?:hier\s+)?(?:auf|in)\s+{lang}\b"
            ),
            format!(
                r"\b(?:die\s+)?(?:call-?sprache|sprache\s+(?:des|im|in\s+diesem)\s+(?:calls?|meetings?|gespräch))\s+ist\s+{lang}\b"
            ),
            format!(r"\b(?:die\s+)?sprache\s+(?:hier\s+)?ist\s+{lang}\b"),
        ];
        regex::Regex::new(&format!("(?i)(?:{})", patterns.join("|"))).expect("valid regex")
    });
    for whole in re.find_iter(text) {
        let english = whole.as_str().to_lowercase().contains("engl");
        // The sentence around the match: a question or a negation claims
        // nothing.
        let start = text[..whole.start()]
            .rfind(['.', '!', '?', '\n'])
            .map_or(0, |i| i + 1);
        let end = text[whole.end()..]
            .find(['.', '!', '?', '\n'])
            .map_or(text.len(), |i| whole.end() + i);
        let sentence = &text[start..end];
        let question = text[end..].starts_with('?');
        if question || is_negated(sentence) {
            continue;
        }
        return Some(if english { Lang::En } else { Lang::De });
    }
    german_claim(text)
}

/// A German claim in any of the word orders German allows, with modal
/// particles and adverbs between its parts: "Wir sprechen doch Deutsch",
/// "Deutsch sprechen wir ja", "Die Sprache ist ja jetzt Deutsch", "Auf
/// Englisch läuft der Call".
///
/// Each clause (a sentence's part between commas, colons, semicolons or
/// dashes) is read as a list of parts: the language (`Deutsch`, `auf
/// Englisch`), a subject (`wir`, `man`), the noun of the call or of its
/// language (`der Call`, `die Sprache`, `die Call-Sprache`), a finite verb
/// (`sprechen`, `wird`, `ist`, `läuft`), a participle (`gesprochen`), and
/// particles and adverbs that say nothing about the claim (`doch`, `ja`,
/// `hier`, `jetzt`). A clause is a claim when it is made of exactly the
/// parts of one of five statements (we speak X; X is spoken; the language
/// is X; the call is in X; the language is set to X) and nothing else, with the finite verb second,
/// as in a German statement: a verb first is a question or a proposal
/// ("Sprechen wir Deutsch"), and a modal verb, a conjunction or any other
/// word makes the clause something else ("Wir sollten Deutsch sprechen",
/// "wenn wir Deutsch sprechen"). Questions and negated sentences claim
/// nothing.
fn german_claim(text: &str) -> Option<Lang> {
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest.find(['.', '!', '?', '\n']).unwrap_or(rest.len());
        let sentence = &rest[..end];
        let question = rest[end..].starts_with('?');
        rest = rest.get(end + 1..).unwrap_or("");
        if question || is_negated(sentence) {
            continue;
        }
        for clause in sentence.split([',', ';', ':', '\u{2013}', '\u{2014}']) {
            if let Some(lang) = german_clause(clause) {
                return Some(lang);
            }
        }
    }
    None
}

/// The parts of a German clause about the call language.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// The language, with whether a preposition led it (`auf Deutsch`).
    Lang(Lang, bool),
    /// `wir`, `man`, `alle`.
    Subject,
    /// `die Sprache`, `die Call-Sprache`.
    LangNoun,
    /// `der Call`, `das Meeting`.
    CallNoun,
    /// Finite verbs: of speaking, the passive's `wird`, the copula, `läuft`.
    Speak,
    Passive,
    Copula,
    Runs,
    /// `gesprochen`.
    Participle,
    /// `eingestellt`, `gesetzt`: the language as a setting.
    Set,
    /// `statt` of "findet ... statt", `uns` of "unterhalten uns".
    Particle,
    /// Particles and adverbs that may stand anywhere.
    Adverb,
}

/// One clause, read as [`Part`]s; `None` when a word is none of them or the
/// parts make no claim.
fn german_clause(clause: &str) -> Option<Lang> {
    const ADVERBS: &[&str] = &[
        "doch",
        "ja",
        "eben",
        "halt",
        "mal",
        "wohl",
        "schon",
        "denn",
        "nun",
        "eigentlich",
        "übrigens",
        "nämlich",
        "ohnehin",
        "sowieso",
        "bekanntlich",
        "natürlich",
        "offenbar",
        "offensichtlich",
        "klar",
        "hier",
        "jetzt",
        "heute",
        "gerade",
        "momentan",
        "aktuell",
        "derzeit",
        "inzwischen",
        "mittlerweile",
        "noch",
        "immer",
        "nur",
        "ausschließlich",
        "miteinander",
        "es",
        "drin",
        "eh",
    ];
    // Words before the clause proper ("Also wir sprechen ...", "Und hier ...").
    const OPENERS: &[&str] = &["also", "ok", "okay", "gut", "na", "ach", "so", "und"];
    const CALL_NOUNS: &[&str] = &["call", "meeting", "gespräch", "anruf", "telefonat"];
    const LANG_NOUNS: &[&str] = &[
        "sprache",
        "callsprache",
        "meetingsprache",
        "gesprächssprache",
        "anrufsprache",
    ];
    let words: Vec<String> = clause
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(|w| w.replace('-', "").to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    // A claim is a handful of words.
    if words.len() > 12 {
        return None;
    }
    let opened = words
        .iter()
        .take_while(|w| OPENERS.contains(&w.as_str()))
        .count();
    let words = &words[opened..];
    let det = |w: &str| {
        matches!(
            w,
            "der"
                | "die"
                | "das"
                | "dieser"
                | "diese"
                | "dieses"
                | "unser"
                | "unsere"
                | "euer"
                | "eure"
        )
    };
    let lang_of = |x: &str| match x {
        "deutsch" | "german" => Some(Lang::De),
        "englisch" | "english" => Some(Lang::En),
        _ => None,
    };
    // Words a phrase of the call's place takes ("im Call", "in diesem
    // Meeting", "des Calls"), or 0.
    let place = |w: &[String]| -> usize {
        let noun = |x: &str| CALL_NOUNS.contains(&x);
        let genitive = |x: &str| {
            CALL_NOUNS
                .iter()
                .any(|n| x.strip_prefix(n).is_some_and(|e| e == "s" || e == "es"))
        };
        match w {
            [a, b, ..] if a == "im" && noun(b) => 2,
            [a, b, c, ..]
                if matches!(a.as_str(), "in" | "bei")
                    && matches!(b.as_str(), "dem" | "diesem" | "unserem")
                    && noun(c) =>
            {
                3
            }
            [a, b, ..] if matches!(a.as_str(), "des" | "dieses" | "unseres") && genitive(b) => 2,
            _ => 0,
        }
    };
    let mut parts: Vec<Part> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        let n = place(&words[i..]);
        if n > 0 {
            // After the noun of the language, it belongs to it ("die
            // Sprache des Calls"); elsewhere, it is an adverb.
            if parts.last() != Some(&Part::LangNoun) {
                parts.push(Part::Adverb);
            }
            i += n;
            continue;
        }
        if let Some(l) = lang_of(w) {
            parts.push(Part::Lang(l, false));
            i += 1;
            continue;
        }
        if matches!(w, "auf" | "in") {
            let l = words.get(i + 1).and_then(|x| lang_of(x))?;
            parts.push(Part::Lang(l, true));
            i += 2;
            continue;
        }
        if det(w) {
            let noun = words.get(i + 1).map(String::as_str)?;
            if LANG_NOUNS.contains(&noun) {
                parts.push(Part::LangNoun);
            } else if CALL_NOUNS.contains(&noun) {
                parts.push(Part::CallNoun);
            } else {
                return None;
            }
            i += 2;
            continue;
        }
        let part = match w {
            _ if LANG_NOUNS.contains(&w) => Part::LangNoun,
            "wir" | "man" => Part::Subject,
            // "Alle sprechen Deutsch"; beside "wir", an adverb.
            "alle" if !words.iter().any(|x| x == "wir" || x == "man") => Part::Subject,
            "alle" => Part::Adverb,
            "sprechen" | "reden" | "spricht" | "redet" | "unterhalten" => Part::Speak,
            "wird" => Part::Passive,
            "ist" | "bleibt" => Part::Copula,
            "läuft" | "findet" => Part::Runs,
            "gesprochen" | "geredet" => Part::Participle,
            "eingestellt" | "gesetzt" | "konfiguriert" | "festgelegt" | "umgestellt" => Part::Set,
            "statt" | "uns" => Part::Particle,
            _ if ADVERBS.contains(&w) => Part::Adverb,
            _ => return None,
        };
        parts.push(part);
        i += 1;
    }
    let count = |p: Part| parts.iter().filter(|&&x| x == p).count();
    let mut langs = parts.iter().filter_map(|p| match p {
        Part::Lang(l, led) => Some((*l, *led)),
        _ => None,
    });
    let (lang, led) = langs.next()?;
    if langs.next().is_some() {
        return None;
    }
    let finite: Vec<usize> = (0..parts.len())
        .filter(|&k| {
            matches!(
                parts[k],
                Part::Speak | Part::Passive | Part::Copula | Part::Runs
            )
        })
        .collect();
    // One finite verb, second: after exactly one part, or after adverbs
    // that make one ("Hier im Call sprechen wir ...").
    let [v] = finite[..] else { return None };
    if v == 0 || (v > 1 && !parts[..v].iter().all(|&p| p == Part::Adverb)) {
        return None;
    }
    let parts = &parts[v - 1..];
    // Nothing but the language, adverbs and `allowed`.
    let only = |allowed: &[Part]| {
        parts
            .iter()
            .all(|p| matches!(p, Part::Lang(..) | Part::Adverb) || allowed.contains(p))
    };
    let has = |w: &str| words.iter().any(|x| x == w);
    let claim = match parts[1] {
        // "Wir sprechen doch Deutsch", "Deutsch spricht man hier", "Wir
        // unterhalten uns auf Englisch".
        Part::Speak => {
            count(Part::Subject) == 1
                && only(&[Part::Subject, Part::Speak, Part::Particle])
                && count(Part::Particle) == usize::from(has("unterhalten"))
        }
        // "Hier wird ja Deutsch gesprochen", "Gesprochen wird Deutsch".
        Part::Passive => {
            count(Part::Participle) == 1
                && (parts[0] == Part::Participle || parts.last() == Some(&Part::Participle))
                && only(&[Part::Passive, Part::Participle])
        }
        // "Eingestellt ist ja Deutsch", "Die Sprache ist auf Deutsch
        // eingestellt", "Der Call ist auf Englisch gesetzt".
        Part::Copula if count(Part::Set) == 1 => {
            count(Part::LangNoun) + count(Part::CallNoun) <= 1
                && only(&[Part::LangNoun, Part::CallNoun, Part::Copula, Part::Set])
        }
        // "Die Sprache ist ja jetzt Deutsch", "Deutsch ist die Sprache".
        Part::Copula if count(Part::LangNoun) == 1 => !led && only(&[Part::LangNoun, Part::Copula]),
        // "Der Call ist ja auf Englisch", "Auf Deutsch läuft der Call",
        // "Der Call findet auf Deutsch statt".
        Part::Copula | Part::Runs => {
            let takes_place = has("findet");
            led && count(Part::CallNoun) == 1
                && only(&[Part::CallNoun, Part::Copula, Part::Runs, Part::Particle])
                && count(Part::Particle) == usize::from(takes_place)
                && (!takes_place || parts.last() == Some(&Part::Particle))
        }
        _ => false,
    };
    claim.then_some(lang)
}

fn is_negated(sentence: &str) -> bool {
    const NEGATIONS: &[&str] = &[
        "not", "never", "nobody", "nicht", "kein", "keine", "nie", "niemand",
    ];
    let lower = sentence.to_lowercase();
    let mut words = lower.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'));
    let mut prev = "";
    words.any(|w| {
        let negated = NEGATIONS.contains(&w)
            || w.ends_with("n't")
            || w.ends_with("n’t")
            || (prev == "no" && w == "longer");
        if !w.is_empty() {
            prev = w;
        }
        negated
    })
}

// ---------------------------------------------------------------------------
// Tokens.

/// Names of the voicebot as speech recognition hears them; never language.
const VOICEBOT_NAMES: &[&str] = &["Delta", "Data", "Della", "Delter"];

/// The first letter of each of [`VOICEBOT_NAMES`], lower-cased.
static VOICEBOT_INITIALS: std::sync::LazyLock<Vec<Option<char>>> =
    std::sync::LazyLock::new(|| VOICEBOT_NAMES.iter().map(|n| first_lower(n)).collect());

/// Units that follow a number (`120 ms`, `40 MB`); dropped after a number.
const UNITS: &[&str] = &[
    "ms", "s", "sec", "secs", "sek", "min", "mins", "h", "hrs", "std", "us", "µs", "ns", "b", "kb",
    "mb", "gb", "tb", "kib", "mib", "gib", "tib", "px", "pt", "em", "rem", "k", "m", "x", "km",
    "kg", "g", "hz", "khz", "mhz", "ghz", "rps", "qps", "rpm", "am", "pm", "uhr", "eur", "usd",
    "ct",
];

/// One word of the text: letters, with inner apostrophes.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    word: &'a str,
    /// Part of a chunk that is code, a URL, a path, a number, a unit after a
    /// number, or an acronym.
    code: bool,
}

/// Splits text into words, remembering whether each belongs to a chunk that
/// carries no language. A chunk is a run between whitespace; `` `...` ``
/// spans are dropped whole.
#[derive(Debug, Clone)]
struct Tokens<'a> {
    text: &'a str,
    /// Byte position of the next chunk to read.
    pos: usize,
    /// The current chunk and how far into it we are.
    chunk: &'a str,
    chunk_pos: usize,
    chunk_code: bool,
    /// The previous chunk was a number (so a unit may follow).
    after_number: bool,
    /// The text is ASCII: chunks and words are found byte by byte, where
    /// a letter, a digit and white space are what their ASCII tests say.
    ascii: bool,
}

/// White space as `char::is_whitespace` sees it, for an ASCII byte.
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t'..=b'\r')
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Self {
        Tokens {
            text,
            pos: 0,
            chunk: "",
            chunk_pos: 0,
            chunk_code: false,
            after_number: false,
            ascii: text.is_ascii(),
        }
    }

    /// [`Tokens::new`] taking every text by the general path, as a test's
    /// measure of the ASCII one.
    #[cfg(test)]
    fn general(text: &'a str) -> Self {
        Tokens {
            ascii: false,
            ..Tokens::new(text)
        }
    }

    /// Where the next chunk starts at or after `from`, skipping white
    /// space.
    fn skip_space(&self, from: usize) -> usize {
        if self.ascii {
            let rest = &self.text.as_bytes()[from..];
            from + rest.iter().take_while(|&&b| is_ascii_space(b)).count()
        } else {
            let rest = &self.text[from..];
            from + rest.len() - rest.trim_start().len()
        }
    }

    /// Where the chunk that starts at `from` ends: at white space, a
    /// backtick or the end of the text.
    fn chunk_end(&self, from: usize) -> usize {
        let found = if self.ascii {
            self.text.as_bytes()[from..]
                .iter()
                .position(|&b| is_ascii_space(b) || b == b'`')
        } else {
            self.text[from..].find(|c: char| c.is_whitespace() || c == '`')
        };
        found.map_or(self.text.len(), |i| from + i)
    }

    /// `raw` without what is neither a letter nor a digit at its ends.
    fn trim_to_alphanumeric(&self, raw: &'a str) -> &'a str {
        if self.ascii {
            let b = raw.as_bytes();
            let start = b
                .iter()
                .position(u8::is_ascii_alphanumeric)
                .unwrap_or(b.len());
            let end = b
                .iter()
                .rposition(u8::is_ascii_alphanumeric)
                .map_or(start, |e| e + 1);
            &raw[start..end]
        } else {
            raw.trim_matches(|c: char| !c.is_alphanumeric())
        }
    }

    /// The next word in `rest` (a part of the chunk): its start and end in
    /// `rest`. A word is a run of letters, with an apostrophe between two
    /// letters kept inside it.
    fn word_in(&self, rest: &str) -> Option<(usize, usize)> {
        if self.ascii {
            let b = rest.as_bytes();
            let start = b.iter().position(u8::is_ascii_alphabetic)?;
            let mut i = start;
            loop {
                if i < b.len() && b[i].is_ascii_alphabetic() {
                    i += 1;
                } else if i + 1 < b.len() && b[i] == b'\'' && b[i + 1].is_ascii_alphabetic() {
                    i += 2;
                } else {
                    return Some((start, i));
                }
            }
        }
        let start = rest.find(char::is_alphabetic)?;
        let mut end = start;
        let mut chars = rest[start..].char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c.is_alphabetic() {
                end = start + i + c.len_utf8();
            } else if (c == '\'' || c == '’')
                && chars.peek().is_some_and(|&(_, n)| n.is_alphabetic())
            {
                continue;
            } else {
                break;
            }
        }
        Some((start, end))
    }

    /// An acronym: two characters or more, none of them lower case.
    fn is_acronym(&self, word: &str) -> bool {
        if self.ascii {
            word.len() >= 2 && !word.bytes().any(|b| b.is_ascii_lowercase())
        } else {
            word.chars().count() >= 2 && !word.chars().any(char::is_lowercase)
        }
    }

    /// Moves to the next chunk; false at the end of the text.
    fn next_chunk(&mut self) -> bool {
        let bytes = self.text.as_bytes();
        loop {
            self.pos = self.skip_space(self.pos);
            if self.pos >= bytes.len() {
                return false;
            }
            if bytes[self.pos] == b'`' {
                // A backticked span: drop it whole when it closes.
                if let Some(close) = self.text[self.pos + 1..].find('`') {
                    self.pos += close + 2;
                    self.after_number = false;
                    continue;
                }
                self.pos += 1;
                continue;
            }
            let end = self.chunk_end(self.pos);
            let raw = &self.text[self.pos..end];
            self.pos = end;
            let chunk = self.trim_to_alphanumeric(raw);
            let (code, number) = classify(chunk);
            let code = code || code_prefix(raw);
            let unit = self.after_number && is_unit(chunk);
            self.after_number = number;
            self.chunk = chunk;
            self.chunk_pos = 0;
            self.chunk_code = code || unit;
            return true;
        }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        loop {
            let rest = &self.chunk[self.chunk_pos..];
            if let Some((start, end)) = self.word_in(rest) {
                let word = &rest[start..end];
                self.chunk_pos += end;
                return Some(Token {
                    word,
                    code: self.chunk_code || self.is_acronym(word),
                });
            }
            if !self.next_chunk() {
                return None;
            }
        }
    }
}

/// Characters that make a chunk code: paths, identifiers, markup.
const CODE_BYTES: &[u8] = b"/\\_@#=<>{}|~$^[]()*+";

/// [`CODE_BYTES`] as a table of every byte.
static IS_CODE_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < CODE_BYTES.len() {
        t[CODE_BYTES[i] as usize] = true;
        i += 1;
    }
    t
};

/// (carries no language, is a number) for a chunk trimmed of punctuation.
fn classify(chunk: &str) -> (bool, bool) {
    if chunk.is_empty() {
        return (false, false);
    }
    let bytes = chunk.as_bytes();
    // An ASCII character is numeric when it is a digit.
    let numeric = if chunk.is_ascii() {
        bytes.iter().any(u8::is_ascii_digit)
    } else {
        chunk.chars().any(char::is_numeric)
    };
    if numeric {
        return (true, true);
    }
    if chunk.contains("://") || bytes.iter().any(|&b| IS_CODE_BYTE[usize::from(b)]) {
        return (true, false);
    }
    // An inner dot or colon between letters: file.ext, example.com, a::b.
    let mut prev: Option<char> = None;
    let mut chars = chunk.chars().peekable();
    while let Some(c) = chars.next() {
        if (c == '.' || c == ':')
            && prev.is_some_and(char::is_alphanumeric)
            && chars
                .peek()
                .is_some_and(|n| n.is_alphanumeric() || *n == ':')
        {
            return (true, false);
        }
        // camelCase, PascalCase with an inner capital: handleTimeoutEvent.
        if c.is_uppercase() && prev.is_some_and(char::is_lowercase) {
            return (true, false);
        }
        prev = Some(c);
    }
    (false, false)
}

/// A chunk that starts like a mention, tag, path, variable or flag:
/// `@opencode`, `#1234`, `/etc`, `~/x`, `./run`, `$HOME`, `--all`.
fn code_prefix(raw: &str) -> bool {
    let lead = raw.trim_start_matches(['(', '[', '{', '"', '\'', '„', '“', '«', '‚', '‘', '»']);
    lead.starts_with(['@', '#', '/', '\\', '~', '$'])
        || lead.starts_with("--")
        || (lead.starts_with('.') && !lead.starts_with(".."))
}

fn is_unit(chunk: &str) -> bool {
    chunk.len() <= 4
        && UNITS
            .iter()
            .any(|u| u.eq_ignore_ascii_case(chunk) || *u == chunk)
}

/// If the words at `first` (already taken from `tokens`) and after match
/// all words of `name`, the token stream after the match.
fn match_name<'a>(tokens: &Tokens<'a>, first: &str, name: &str) -> Option<Tokens<'a>> {
    let mut name_words = Tokens::new(name);
    let head = name_words.next()?;
    if !word_matches(first, head.word) {
        return None;
    }
    let mut rest = tokens.clone();
    for part in name_words {
        let tok = rest.next()?;
        if !word_matches(tok.word, part.word) {
            return None;
        }
    }
    Some(rest)
}

/// Names to leave out of texts, indexed by their first word: a text is
/// searched only for the names whose first word it holds, so a call of
/// thousands of names costs the words of each text, not the names.
pub struct NameIndex<'n> {
    /// Lower-cased first word -> the names (by position) it starts.
    by_head: crate::core::hash::HashMap<String, Vec<usize>>,
    /// The first letters of those words: most words of a text start with
    /// none of them and are passed over without a lookup.
    firsts: Vec<char>,
    names: Vec<&'n str>,
}

impl<'n> NameIndex<'n> {
    pub fn new(names: &[&'n str]) -> NameIndex<'n> {
        // Keyed by names from the log: a hasher seeded anew in each process (`core::hash`).
        let mut by_head: crate::core::hash::HashMap<String, Vec<usize>> =
            crate::core::hash::HashMap::default();
        let mut firsts = Vec::new();
        for (i, name) in names.iter().enumerate() {
            if let Some(head) = Tokens::new(name).next() {
                let head = lower(head.word);
                if let Some(c) = head.chars().next() {
                    if !firsts.contains(&c) {
                        firsts.push(c);
                    }
                }
                by_head.entry(head).or_default().push(i);
            }
        }
        NameIndex {
            by_head,
            firsts,
            names: names.to_vec(),
        }
    }

    /// The names (by position, in the order given) whose first word is
    /// `word` or the word of its possessive (`name's`, `names`): the only
    /// names that can start at it. `scratch` keeps its buffers.
    fn starting<'s>(&self, word: &str, scratch: &'s mut (String, Vec<usize>)) -> &'s [usize] {
        let (w, found) = scratch;
        found.clear();
        let first = word.chars().next().and_then(|c| c.to_lowercase().next());
        if !first.is_some_and(|c| self.firsts.contains(&c)) {
            return found;
        }
        w.clear();
        w.extend(word.chars().flat_map(char::to_lowercase));
        let stems = [
            Some(w.as_str()),
            w.strip_suffix("'s"),
            w.strip_suffix("’s"),
            w.strip_suffix('s'),
        ];
        for s in stems.into_iter().flatten() {
            if let Some(ix) = self.by_head.get(s) {
                found.extend(ix);
            }
        }
        if found.len() > 1 {
            found.sort_unstable();
            found.dedup();
        }
        found
    }

    /// The names that may appear in `text` (each starts with a word of it,
    /// or that word's possessive), in the order they were given: what the
    /// rule searched for before the index answered word by word, kept to
    /// prove both readings equal.
    #[cfg(test)]
    fn in_text(&self, text: &str) -> Vec<&'n str> {
        let mut found: Vec<usize> = Vec::new();
        let mut scratch = (String::new(), Vec::new());
        for tok in Tokens::new(text) {
            found.extend_from_slice(self.starting(tok.word, &mut scratch));
        }
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|i| self.names[i]).collect()
    }
}

/// `s` lower-cased character by character, as [`word_matches`] compares.
fn lower(s: &str) -> String {
    s.chars().flat_map(char::to_lowercase).collect()
}

/// The first letter of `s`, lower-cased (a cheap pre-check for names).
fn first_lower(s: &str) -> Option<char> {
    // Up to the first letter or the first byte past ASCII, byte by byte:
    // an ASCII character is a letter when it is one of A-Z and a-z.
    let ascii = s
        .bytes()
        .position(|b| !b.is_ascii() || b.is_ascii_alphabetic());
    let from = match ascii {
        Some(i) if s.as_bytes()[i].is_ascii() => {
            return Some(char::from(s.as_bytes()[i].to_ascii_lowercase()));
        }
        Some(i) => i,
        None => return None,
    };
    first_lower_chars(&s[from..])
}

/// [`first_lower`] character by character, for any text.
fn first_lower_chars(s: &str) -> Option<char> {
    s.chars()
        .find(|c| c.is_alphabetic())
        .and_then(|c| c.to_lowercase().next())
}

/// `word` is `name`, case-insensitively, or its possessive (`name's`,
/// `names`).
fn word_matches(word: &str, name: &str) -> bool {
    let mut w = word.chars().flat_map(char::to_lowercase);
    for n in name.chars().flat_map(char::to_lowercase) {
        if w.next() != Some(n) {
            return false;
        }
    }
    let rest: [Option<char>; 3] = [w.next(), w.next(), w.next()];
    matches!(
        rest,
        [None, None, None]
            | [Some('s'), None, None]
            | [Some('\''), Some('s'), None]
            | [Some('’'), Some('s'), None]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_searched_only_for_the_names_it_may_hold() {
        let names = ["Claude Code", "Promo", "Claude", "Delta"];
        let index = NameIndex::new(&names);
        assert_eq!(
            index.in_text("Ask claude's helper"),
            ["Claude Code", "Claude"]
        );
        assert_eq!(index.in_text("PROMOS are fine, Delta."), ["Promo", "Delta"]);
        assert!(index.in_text("Nothing here").is_empty());
        // The same verdict as with every name.
        for text in [
            "Claude Code, bitte prüf das.",
            "Promo's build is green now.",
        ] {
            assert_eq!(identify(text, &names), identify(text, &index.in_text(text)));
        }
    }

    proptest::proptest! {
        /// The byte-by-byte paths for ASCII give what the character by
        /// character ones give, on any text.
        #[test]
        fn ascii_lower_cases_are_the_general_ones(
            picks in proptest::collection::vec(0usize..12, 0..40),
        ) {
            const PARTS: [&str; 12] = ["a", "Z", "1", " ", "-", "É", "ß", "’", "Ωm", "x", "İ", "'"];
            let word: String = picks.iter().map(|&p| PARTS[p]).collect();
            proptest::prop_assert_eq!(first_lower(&word), first_lower_chars(&word));
            use crate::text::langmodel::{lowercase_chars_into, lowercase_into, MAX_WORD_BYTES};
            let (mut a, mut b) = ([0u8; MAX_WORD_BYTES], [0u8; MAX_WORD_BYTES]);
            proptest::prop_assert_eq!(lowercase_into(&word, &mut a), lowercase_chars_into(&word, &mut b));
        }

        /// Leaving names out through the index hears what leaving out every
        /// name hears, and what leaving out the names found first heard.
        #[test]
        fn the_index_hears_what_every_name_hears(
            picks in proptest::collection::vec(0usize..26, 0..14),
            lang in 0usize..2,
        ) {
            const PARTS: [&str; 26] = [
                "Claude", "claude's", "CLAUDES", "Code", "code", "Promo", "promo’s", "Codex",
                "Delta", "della", "Dr.", "Müller", "müllers", "Ωmega", "ωmegas", "bitte",
                "prüf", "das", "the", "build", "is", "green", "now.", "`Promo`", "@claude",
                "und",
            ];
            let names = ["Claude Code", "Promo", "Claude", "Dr. Müller", "Ωmega", "ok go"];
            let index = NameIndex::new(&names);
            let text: String = picks.iter().map(|&i| PARTS[i]).collect::<Vec<_>>().join(" ");
            let call = Lang::ALL[lang];
            let found = index.in_text(&text);
            let every = identify_in_call(&text, &names, call);
            proptest::prop_assert_eq!(identify_in_call(&text, &index, call), every);
            proptest::prop_assert_eq!(identify_in_call(&text, &found, call), every);
            proptest::prop_assert_eq!(identify(&text, &index), identify(&text, &names));
        }

        /// On ASCII text, the byte-wise path finds the chunks and words
        /// the general one finds, and marks the same ones as code. The
        /// bytes are drawn from those the rules of both paths tell apart:
        /// every kind of white space, backticks, apostrophes, joiners,
        /// digits, code characters, upper and lower case.
        #[test]
        fn ascii_tokens_are_the_general_tokens(
            text in "[ \t\n\x0b\x0c\r\x1c`'.:/@#_0-9aAzZeE(),;!?-]{0,40}",
        ) {
            let base = text.as_ptr() as usize;
            let at = |t: Token<'_>| (t.word.as_ptr() as usize - base, t.word.to_string(), t.code);
            let fast: Vec<_> = Tokens::new(&text).map(at).collect();
            let general: Vec<_> = Tokens::general(&text).map(at).collect();
            proptest::prop_assert_eq!(fast, general);
        }
    }

    #[test]
    fn embedded_tables_are_the_text_tables() {
        use crate::text::langmodel::Model;
        let built = Model::build(
            [
                include_str!("../../rules/lexicon/lang-en.txt"),
                include_str!("../../rules/lexicon/lang-de.txt"),
            ],
            include_str!("../../rules/lexicon/lang-words.txt"),
            include_str!("../../rules/lexicon/lang-neutral.txt"),
        );
        assert!(built.encode() == TABLES, "build.rs output is stale");
        let tables = Tables::new(TABLES).expect("the embedded tables read back");
        // Every word and n-gram reads back as built, and absent ones are absent.
        for (w, e) in &built.words {
            let t = tables.word(w).unwrap_or_else(|| panic!("{w} missing"));
            assert_eq!(
                (t.logp, t.known, t.neutral),
                (e.logp, e.known, e.neutral),
                "{w}"
            );
        }
        assert!(tables.word("zzzqxv").is_none());
        for key in built.gram_keys() {
            assert_eq!(
                format!("{:?}", tables.gram(key)),
                format!("{:?}", built.gram(key))
            );
        }
        assert!(tables.gram(u64::MAX).is_none());
        for c in "aäößéз€x1 ".chars() {
            assert_eq!(tables.id_of(c), built.id_of(c), "{c}");
        }
        for w in ["gepusht", "deployment", "zzzqxv", "straße"] {
            assert_eq!(tables.oov_logp(w), built.oov_logp(w), "{w}");
        }
        assert_eq!(
            Lang::ALL.map(Lang::code),
            crate::text::langmodel::CODES,
            "Lang::ALL and the tables' language order differ"
        );
        assert!(Tables::new(&TABLES[..TABLES.len() - 1]).is_none());
        assert!(Tables::new(b"CLM2").is_none());
        assert!(Tables::new(&Model::empty().encode()).is_some());
    }

    fn lang(text: &str, ignore: &[&str]) -> Option<Lang> {
        identify(text, ignore).lang()
    }

    #[test]
    fn codes_and_names() {
        assert_eq!(Lang::En.code(), "en");
        assert_eq!(Lang::De.code(), "de");
        assert_eq!(Lang::En.name(), "English");
        assert_eq!(Lang::De.name(), "German");
        assert_eq!(Lang::from_code("en"), Some(Lang::En));
        assert_eq!(Lang::from_code("DE"), Some(Lang::De));
        assert_eq!(Lang::from_code("de-AT"), Some(Lang::De));
        assert_eq!(Lang::from_code("en_US"), Some(Lang::En));
        assert_eq!(Lang::from_code("fr"), None);
        assert_eq!(Lang::from_code(""), None);
        for l in Lang::ALL {
            assert_eq!(Lang::from_code(l.code()), Some(l));
        }
    }

    #[test]
    fn plain_sentences() {
        assert_eq!(
            lang("Hi, this is opencode. What can I do?", &[]),
            Some(Lang::En)
        );
        assert_eq!(
            lang("Hallo, hier ist opencode. Ich bin jetzt mit im Call.", &[]),
            Some(Lang::De)
        );
        assert_eq!(lang("On it, one moment.", &[]), Some(Lang::En));
        assert_eq!(lang("Mach ich, Moment.", &[]), Some(Lang::De));
        assert_eq!(lang("Danke!", &[]), Some(Lang::De));
        assert_eq!(lang("Thank you!", &[]), Some(Lang::En));
    }

    #[test]
    fn loanword_heavy_german_stays_german() {
        for text in [
            "Der Build ist grün, das Release kann raus.",
            "Ich habe den Fix gepusht.",
            "Der Pull Request ist gemergt.",
            "Das Deployment ist durchgelaufen.",
            "Kannst du meinen Pull Request reviewen?",
            "Der Hotfix ist released.",
            "Die Pipeline hängt beim Lint-Step.",
            "Das Feature Flag ist in Production ausgeschaltet.",
            "Ich habe den Branch rebased und force-gepusht.",
            "Das Backend ist down, das Frontend zeigt nur einen Spinner.",
            "Build ist grün.",
            "Ist gemergt.",
        ] {
            assert_eq!(lang(text, &[]), Some(Lang::De), "{text}");
        }
    }

    #[test]
    fn english_with_german_names_or_words_stays_english() {
        for text in [
            "Thanks Jürgen, I pushed the fix to the main branch.",
            "I talked to Jürgen Müller and he says the deployment is kaputt.",
            "Schneider's patch is already in the release.",
            "The office in München is closed on Friday.",
            "Gesundheit! Anyway, the build is green.",
            "We met the team in Düsseldorf last year.",
        ] {
            assert_eq!(lang(text, &[]), Some(Lang::En), "{text}");
        }
        // With the name passed in, even a short line.
        assert_eq!(lang("Thanks, Jürgen.", &["Jürgen"]), Some(Lang::En));
        assert_eq!(lang("Danke, Oliver.", &["Oliver"]), Some(Lang::De));
    }

    #[test]
    fn too_short_or_mixed_is_unsure() {
        for text in [
            "",
            "   ",
            "ok",
            "Okay.",
            "Hm.",
            "Super.",
            "Cool, cool.",
            "Build.",
            "Yes, ja.",
            "Okay, mach ich, I'll do it.",
            "Let's go, los geht's.",
        ] {
            assert_eq!(identify(text, &[]), Verdict::Unsure, "{text}");
        }
    }

    /// A say of one word that both languages use (a loanword, a brand, a
    /// name) is no evidence of either; a word only one language uses still
    /// is. None of these words is in lingua's test data.
    #[test]
    fn one_word_says_of_shared_words_stay_unsure() {
        // English words and names German text uses about as often as
        // English text would lead one to expect: said alone in a German
        // call, they are not English.
        for word in [
            "Camping",
            "Sketch",
            "Workout",
            "Tutorial",
            "Template",
            "Briefing",
            "Reset",
            "Preview",
            "Bundle",
            "Header",
            "Proxy",
            "Admin",
            "Analytics",
            "Multiplayer",
            "Bradley",
            "Henderson",
            "Sullivan",
            "Glasgow",
            "Pittsburgh",
            "Brisbane",
        ] {
            for text in [word.to_string(), format!("{word}?"), format!("{word}.")] {
                assert_eq!(identify(&text, &[]), Verdict::Unsure, "{text}");
            }
        }
        // German words and names English text uses: not German in an
        // English call.
        for word in [
            "Rolf",
            "Gregor",
            "Sabine",
            "Neumann",
            "Lehmann",
            "Schumacher",
            "Humboldt",
            "Krause",
            "Oktoberfest",
            "Sauna",
            "Kiosk",
            "Handball",
            "Bauhaus",
            "Zeitgeist",
            "Hinterland",
        ] {
            assert_eq!(identify(word, &[]), Verdict::Unsure, "{word}");
        }
    }

    #[test]
    fn one_word_says_in_one_language_are_identified() {
        for word in [
            "Vielleicht",
            "Verstanden",
            "Erledigt",
            "Tschüss",
            "Zusammen",
            "Überprüft",
            "Fertig",
            "Mittwoch",
        ] {
            assert_eq!(lang(word, &[]), Some(Lang::De), "{word}");
            assert_eq!(lang(&format!("{word}!"), &[]), Some(Lang::De), "{word}");
        }
        for word in [
            "Understood",
            "Definitely",
            "Whatever",
            "Thursday",
            "Wednesday",
        ] {
            assert_eq!(lang(word, &[]), Some(Lang::En), "{word}");
            assert_eq!(lang(&format!("{word}."), &[]), Some(Lang::En), "{word}");
        }
    }

    /// A word on no list is judged by its spelling alone, at half weight:
    /// alone it needs twice the margin, in a sentence it still counts.
    #[test]
    fn words_on_no_list_are_judged_by_spelling_at_half_weight() {
        let uncapped = Options {
            word_cap: f32::INFINITY,
            ..Options::default()
        };
        let full = Options {
            spelling_weight: 1.0,
            ..uncapped
        };
        let word = "Grundbuchauszugsprüfung";
        let half = analyze(word, &[], &uncapped);
        let whole = analyze(word, &[], &full);
        assert_eq!(half.words, 1);
        assert!(whole.margin > 2.0 * Options::default().min_margin);
        assert!(
            (half.margin - whole.margin / 2.0).abs() < 1e-3,
            "{} vs {}",
            half.margin,
            whole.margin
        );
        assert_eq!(lang(word, &[]), Some(Lang::De));
        // Rare names with an English look: spelling at full weight would
        // call them English, at half weight they are left alone.
        for name in ["Whitcombe", "Stronghew", "Cheswick"] {
            assert_eq!(identify(name, &[]), Verdict::Unsure, "{name}");
            assert_eq!(
                identify_with(
                    name,
                    &[],
                    &Options {
                        spelling_weight: 1.0,
                        ..Options::default()
                    }
                )
                .lang(),
                Some(Lang::En),
                "{name}"
            );
        }
    }

    #[test]
    fn names_labels_and_voicebot_are_discounted() {
        let ignore = ["Oliver", "🧩 opencode", "Claude Code", "Jürgen"];
        for text in [
            "Oliver",
            "Oliver?",
            "opencode!",
            "Claude Code, Oliver.",
            "Olivers",
            "Oliver's",
            "JÜRGEN",
            "Delta?",
            "Data, Della, Delter.",
            "Delta's",
        ] {
            let a = analyze(text, &ignore, &Options::default());
            assert_eq!(a.words, 0, "{text}");
            assert_eq!(a.verdict, Verdict::Unsure, "{text}");
        }
        // Only whole words: "Claude" alone is not the label "Claude Code".
        assert_eq!(analyze("Claude", &ignore, &Options::default()).words, 1);
        assert_eq!(
            analyze("Hallo Jürgen", &ignore, &Options::default()).words,
            1
        );
        // Hostile ignore entries are harmless.
        let odd = ["", " ", "🧩", "'", "`", "ß"];
        assert_eq!(lang("Der Build ist grün.", &odd), Some(Lang::De));
    }

    #[test]
    fn urls_identifiers_numbers_and_emoji_are_discounted() {
        for text in [
            "https://example.com/docs?lang=de",
            "www.example.com",
            "src/engine.rs",
            "config.toml",
            "parse_record",
            "handleTimeoutEvent",
            "`cargo clippy --all-targets -- -D warnings`",
            "C:\\Users\\oliver\\log.txt",
            "120 ms, 40 MB, 3,5 s",
            "v1.2.3 #1234 @opencode",
            "API CI DNS",
            "👍 🎉 ✅",
            "...?!",
        ] {
            let a = analyze(text, &[], &Options::default());
            assert_eq!(a.words, 0, "{text}");
            assert_eq!(a.verdict, Verdict::Unsure, "{text}");
        }
        // And they do not change the verdict of the words around them.
        assert_eq!(
            lang(
                "Die Funktion parse_record in src/engine.rs gibt einen Fehler zurück.",
                &[]
            ),
            Some(Lang::De)
        );
        assert_eq!(
            lang(
                "The crash happens in handleTimeoutEvent, see https://example.com/die/der/das.",
                &[]
            ),
            Some(Lang::En)
        );
        assert_eq!(lang("Latenz liegt bei 120 ms 👍", &[]), Some(Lang::De));
    }

    #[test]
    fn verdict_fields() {
        match identify("Der Build ist grün, das Release kann raus.", &[]) {
            Verdict::Lang { lang, confidence } => {
                assert_eq!(lang, Lang::De);
                assert!(confidence > 0.5 && confidence <= 1.0);
            }
            Verdict::Unsure => panic!("unsure"),
        }
        let a = analyze("The build is green.", &[], &Options::default());
        assert_eq!(a.best, Some(Lang::En));
        assert!(a.margin >= Options::default().min_margin);
        assert_eq!(a.words, 3, "build is neutral");
        // Deterministic.
        assert_eq!(a, analyze("The build is green.", &[], &Options::default()));
    }

    #[test]
    fn claims_about_the_call_language() {
        for (text, want) in [
            ("German is spoken here.", Some(Lang::De)),
            ("Hier wird Deutsch gesprochen.", Some(Lang::De)),
            ("we're speaking English", Some(Lang::En)),
            ("We are speaking English in this call.", Some(Lang::En)),
            ("OK, so English is spoken in this call.", Some(Lang::En)),
            ("This call is in German.", Some(Lang::De)),
            ("The call language is English.", Some(Lang::En)),
            ("I believe this call is set to German.", Some(Lang::De)),
            (
                "Honestly, the language is configured as English.",
                Some(Lang::En),
            ),
            ("Is this call set to German?", None),
            ("The call is not set to German.", None),
            ("Wir sprechen hier Deutsch.", Some(Lang::De)),
            ("Der Call ist auf Englisch.", Some(Lang::En)),
            ("Im Call wird Englisch gesprochen.", Some(Lang::En)),
            ("Die Sprache des Calls ist Deutsch.", Some(Lang::De)),
            ("Wir reden auf Englisch, oder.", Some(Lang::En)),
            ("Is German spoken here?", None),
            ("Wird hier Deutsch gesprochen?", None),
            ("Hier wird Deutsch gesprochen, oder?", None),
            ("We are not speaking German.", None),
            ("Hier wird kein Deutsch gesprochen.", None),
            ("The German translation is missing two strings.", None),
            ("I speak German and English.", None),
            ("Der Build ist grün.", None),
            ("", None),
        ] {
            assert_eq!(claimed_language(text), want, "{text}");
        }
    }

    #[test]
    fn german_claims_with_particles_and_in_any_word_order() {
        for (text, want) in [
            ("Wir sprechen doch Deutsch.", Lang::De),
            ("Deutsch sprechen wir ja.", Lang::De),
            ("Die Sprache ist ja jetzt Deutsch.", Lang::De),
            ("Wir sprechen hier ja eh nur Deutsch.", Lang::De),
            ("Also, Englisch sprechen wir hier eigentlich.", Lang::En),
            ("Hier wird ja Deutsch gesprochen.", Lang::De),
            ("Deutsch wird hier doch gesprochen.", Lang::De),
            ("Gesprochen wird hier Deutsch.", Lang::De),
            ("Es wird doch Englisch gesprochen.", Lang::En),
            ("Deutsch ist hier die Sprache.", Lang::De),
            ("Die Call-Sprache ist doch Englisch.", Lang::En),
            ("Die Sprache des Calls ist ja Deutsch.", Lang::De),
            ("Der Call ist ja auf Englisch.", Lang::En),
            ("Auf Deutsch läuft der Call doch.", Lang::De),
            ("Das Meeting findet ja auf Deutsch statt.", Lang::De),
            ("Hier im Call sprechen wir ja Deutsch.", Lang::De),
            ("Man spricht hier doch Englisch.", Lang::En),
            ("Wir unterhalten uns ja auf Deutsch.", Lang::De),
            ("Alles klar. Wir reden ja eh Englisch, oder.", Lang::En),
            ("Ja, Deutsch sprechen wir schon.", Lang::De),
            ("Eingestellt ist ja Deutsch.", Lang::De),
            ("Die Sprache ist doch auf Englisch eingestellt.", Lang::En),
            ("Der Call ist auf Deutsch gesetzt.", Lang::De),
        ] {
            assert_eq!(claimed_language(text), Some(want), "{text}");
        }
        // Questions, proposals, conditions, negations, abilities, other
        // tenses and other topics claim nothing.
        for text in [
            "Sprechen wir doch Deutsch.",
            "Sprechen wir Deutsch?",
            "Deutsch sprechen wir ja, oder?",
            "Wird hier eigentlich Deutsch gesprochen.",
            "Wir sollten Deutsch sprechen.",
            "Lass uns Deutsch sprechen.",
            "Wenn wir Deutsch sprechen, geht es schneller.",
            "Wir sprechen doch nicht Deutsch.",
            "Deutsch sprechen wir hier nie.",
            "Wir sprechen auch Deutsch.",
            "Der Call lief ab der Hälfte auf Englisch.",
            "Wir sprechen gleich über Deutsch und Englisch.",
            "Die Sprache der Doku ist Deutsch.",
            "Die Doku ist auf Deutsch.",
            "Deutsch ist schwer.",
            "Ich spreche Deutsch und Englisch.",
            "Die deutsche Version ist fertig.",
            "Mach bitte einen Call auf Deutsch auf.",
            "Ist Deutsch eingestellt?",
            "Eingestellt ist nicht Deutsch.",
            "Die Doku ist auf Deutsch eingestellt.",
            "Ich habe Deutsch eingestellt.",
        ] {
            assert_eq!(claimed_language(text), None, "{text}");
        }
    }

    /// callint's own call utterances (`tests/data/utterances/`): no line
    /// is judged the other language, and few abstain.
    #[test]
    fn call_utterances_never_false_alarm() {
        let files = [
            (include_str!("../../tests/data/utterances/en.txt"), Lang::En),
            (include_str!("../../tests/data/utterances/de.txt"), Lang::De),
            (
                include_str!("../../tests/data/utterances/holdout-en.txt"),
                Lang::En,
            ),
            (
                include_str!("../../tests/data/utterances/holdout-de.txt"),
                Lang::De,
            ),
        ];
        for (text, want) in files {
            let ignore: Vec<&str> = text
                .lines()
                .filter_map(|l| l.strip_prefix("# ignore:"))
                .flat_map(|names| names.split(',').map(str::trim))
                .collect();
            let lines: Vec<&str> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .collect();
            let mut unsure = 0;
            for line in &lines {
                match identify(line, &ignore) {
                    Verdict::Lang { lang, .. } => assert_eq!(lang, want, "{line}"),
                    Verdict::Unsure => unsure += 1,
                }
            }
            assert!(
                unsure * 50 <= lines.len(),
                "{unsure} of {} unsure",
                lines.len()
            );
        }
        let unsure = include_str!("../../tests/data/utterances/unsure.txt");
        let ignore: Vec<&str> = unsure
            .lines()
            .filter_map(|l| l.strip_prefix("# ignore:"))
            .flat_map(|names| names.split(',').map(str::trim))
            .collect();
        let lines: Vec<&str> = unsure
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        let decided = lines
            .iter()
            .filter(|l| identify(l, &ignore) != Verdict::Unsure)
            .count();
        assert!(
            decided * 10 <= lines.len(),
            "{decided} of {} decided",
            lines.len()
        );
    }

    /// A deterministic stream of awkward characters.
    fn hostile(len: usize) -> String {
        const CHARS: &[char] = &[
            'a',
            'Z',
            'ß',
            'ẞ',
            'İ',
            'ǅ',
            '\u{301}',
            '\u{200b}',
            '\u{202e}',
            '\0',
            '\u{1}',
            '\u{7f}',
            '\u{85}',
            '\t',
            '\n',
            ' ',
            '\u{3000}',
            '`',
            '\'',
            '’',
            '-',
            '_',
            '/',
            '.',
            ':',
            '@',
            '#',
            '0',
            '٣',
            '👍',
            '🧩',
            '\u{fe0f}',
            'ж',
            '中',
            'ا',
            '\u{ffff}',
            '\u{10ffff}',
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut s = String::with_capacity(len);
        while s.len() < len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.push(CHARS[(x % CHARS.len() as u64) as usize]);
        }
        s
    }

    #[test]
    fn no_panic_on_hostile_input() {
        let long_word = "a".repeat(10_000);
        let long_umlaut = "ä".repeat(100);
        let big = hostile(1 << 20);
        let big_german = "Der Build ist grün, das Release kann raus. ".repeat(25_000);
        let inputs: Vec<&str> = vec![
            "",
            "\0",
            "\u{1}\u{2}\u{1b}[31m",
            "`",
            "``",
            "`unclosed code span and more",
            "'''",
            "a'",
            "'a",
            "’",
            "ß",
            "ẞẞẞ",
            "İ",
            "\u{301}a\u{301}",
            "🧩",
            "👍🏽‍",
            &long_word,
            &long_umlaut,
            &big,
            &big_german,
        ];
        let ignore = ["", "`", "ß", "🧩 opencode", "a a a"];
        for text in inputs {
            let _ = identify(text, &[]);
            let _ = identify(text, &ignore);
            let _ = claimed_language(text);
            let _ = Lang::from_code(text);
        }
        assert_eq!(lang(&big_german, &[]), Some(Lang::De));
        assert_eq!(identify(&long_word, &[]), Verdict::Unsure);
    }
}
