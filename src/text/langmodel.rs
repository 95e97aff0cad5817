//! The language tables behind [`crate::text::language`]: word log-probabilities
//! and character n-gram statistics per language.
//!
//! The tables are text files under `rules/lexicon/` (see
//! `scripts/lang-build.py`). Reading them takes tens of milliseconds, so the
//! build script builds the model from them once ([`Model::build`]) and
//! encodes it as hash tables ([`Model::encode`]) that the binary embeds and
//! reads in place ([`Tables`]): nothing is decoded at start-up. This file is
//! shared with `build.rs` and so uses only `std`.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Number of languages known; the length of per-language score arrays.
pub const N: usize = 2;

/// The languages' ISO 639-1 codes, in the order of the score arrays.
pub const CODES: [&str; N] = ["en", "de"];

/// Longest word (in bytes, lower-cased) that is scored; longer ones are
/// discounted (hashes, base64, glued garbage).
pub const MAX_WORD_BYTES: usize = 64;

/// Case-folds `word` into `buf` the way the word lists are folded
/// (lower case, `ß` as `ss`, typographic apostrophe as `'`); None if it
/// does not fit.
pub fn lowercase_into<'b>(word: &str, buf: &'b mut [u8; MAX_WORD_BYTES]) -> Option<&'b str> {
    // Lower case of ASCII is ASCII, byte for byte.
    if word.is_ascii() {
        let out = buf.get_mut(..word.len())?;
        out.copy_from_slice(word.as_bytes());
        out.make_ascii_lowercase();
        return std::str::from_utf8(out).ok();
    }
    lowercase_chars_into(word, buf)
}

/// [`lowercase_into`] character by character, for any text.
pub(crate) fn lowercase_chars_into<'b>(
    word: &str,
    buf: &'b mut [u8; MAX_WORD_BYTES],
) -> Option<&'b str> {
    let mut len = 0;
    for c in word.chars() {
        let c = if c == '’' { '\'' } else { c };
        for l in c.to_lowercase() {
            if l == 'ß' {
                if len + 2 > buf.len() {
                    return None;
                }
                buf[len..len + 2].copy_from_slice(b"ss");
                len += 2;
                continue;
            }
            let n = l.len_utf8();
            if len + n > buf.len() {
                return None;
            }
            l.encode_utf8(&mut buf[len..len + n]);
            len += n;
        }
    }
    std::str::from_utf8(&buf[..len]).ok()
}

/// A word's log-probability in every language.
#[derive(Debug, Clone, Copy)]
pub struct WordEntry {
    pub logp: [f32; N],
    /// In at least one language's word list (else only neutral).
    pub known: bool,
    pub neutral: bool,
}

/// Character n-gram statistics, per language: the n-gram's count, and as a
/// context (its continuations): their total count and number of types.
#[derive(Debug, Clone, Copy, Default)]
pub struct NgramEntry {
    count: [f32; N],
    ctx_total: [f32; N],
    ctx_types: [f32; N],
}

pub type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

pub struct Model {
    pub words: FxMap<Box<str>, WordEntry>,
    ngrams: FxMap<u64, NgramEntry>,
    /// Character ids for n-gram keys; ASCII by table, the rest by map.
    ascii_ids: [u8; 128],
    other_ids: FxMap<char, u8>,
    order: usize,
    /// Unigram totals per language (word-start marker excluded).
    unigram_total: [f32; N],
    /// ln of the probability mass outside each language's word list.
    ln_oov_mass: [f32; N],
}

/// Id of a character the model has not seen.
pub const UNKNOWN_ID: u8 = 255;
const START_ID: u8 = 1;
const END_ID: u8 = 2;
/// Add-k smoothing of the character unigrams: k and the assumed alphabet.
const UNIGRAM_K: f32 = 0.5;
const UNIGRAM_ALPHABET: f32 = 60.0;

/// `(section, key, value)` for every `key<TAB>value` line of a model file;
/// `#` lines are comments, `[name]` lines start a section. A `[name]<TAB>..`
/// line is a record of the section before it (`[langs]` in the word table).
fn records(text: &str) -> impl Iterator<Item = (&str, &str, &str)> {
    let mut section = "[words]";
    text.lines().filter_map(move |line| {
        let line = line.trim_end_matches(['\r', ' ']);
        if line.is_empty() || line.starts_with('#') {
            return None;
        }
        if line.starts_with('[') && !line.contains('\t') {
            section = line;
            return None;
        }
        let (key, value) = line.split_once('\t')?;
        Some((section, key, value))
    })
}

impl Model {
    /// A model that knows no word and no n-gram: every text is unsure.
    pub fn empty() -> Model {
        let mut model = Model {
            words: FxMap::default(),
            ngrams: FxMap::default(),
            ascii_ids: [UNKNOWN_ID; 128],
            other_ids: FxMap::default(),
            order: 1,
            unigram_total: [0.0; N],
            ln_oov_mass: [0.0; N],
        };
        model.ascii_ids[b'^' as usize] = START_ID;
        model.ascii_ids[b'$' as usize] = END_ID;
        model
    }

    /// Build the model from its text tables: each language's n-gram table
    /// (in [`CODES`] order), the word table and the neutral word list.
    pub fn build(lang_texts: [&str; N], words: &str, neutral: &str) -> Model {
        let mut model = Model::empty();
        let mut next_id = END_ID + 1;
        model.ngrams.reserve(140_000);
        for (li, text) in lang_texts.iter().enumerate() {
            let mut oov_mass = 0.05f32;
            for (section, key, value) in records(text) {
                match section {
                    "[info]" if key == "oov_mass" => {
                        if let Ok(v) = value.parse::<f32>() {
                            oov_mass = v;
                        }
                    }
                    "[ngrams]" => {
                        let Ok(count) = value.parse::<u32>() else {
                            continue;
                        };
                        let mut k = 0u64;
                        let mut n = 0;
                        for c in key.chars() {
                            let id = match model.id_of(c) {
                                UNKNOWN_ID if next_id < UNKNOWN_ID => {
                                    let id = next_id;
                                    next_id += 1;
                                    if c.is_ascii() {
                                        model.ascii_ids[c as usize] = id;
                                    } else {
                                        model.other_ids.insert(c, id);
                                    }
                                    id
                                }
                                id => id,
                            };
                            k |= u64::from(id) << (8 * n);
                            n += 1;
                            if n == 8 {
                                break;
                            }
                        }
                        if n == 0 {
                            continue;
                        }
                        model.order = model.order.max(n);
                        model.ngrams.entry(k).or_default().count[li] += count as f32;
                        if n == 1 && key != "^" {
                            model.unigram_total[li] += count as f32;
                        }
                    }
                    _ => {}
                }
            }
            model.ln_oov_mass[li] = oov_mass.clamp(1e-6, 1.0).ln();
        }
        // Context statistics: every n-gram (n >= 2) is a continuation of its
        // prefix.
        let keys: Vec<(u64, [f32; N])> = model
            .ngrams
            .iter()
            .filter(|(k, _)| key_len(**k) >= 2)
            .map(|(k, e)| (*k, e.count))
            .collect();
        for (key, count) in keys {
            let prefix = key & !(0xffu64 << (8 * (key_len(key) - 1)));
            let ctx = model.ngrams.entry(prefix).or_default();
            for (li, c) in count.into_iter().enumerate() {
                if c > 0.0 {
                    ctx.ctx_total[li] += c;
                    ctx.ctx_types[li] += 1.0;
                }
            }
        }
        // The word table: ln P(word) per language, precomputed by
        // lang-build.py; a language without a column gets the character
        // model here.
        let mut columns: Vec<Option<usize>> = Vec::new();
        model.words.reserve(100_000);
        for (section, key, value) in records(words) {
            if section != "[words]" {
                continue;
            }
            if key == "[langs]" {
                columns = value
                    .split('\t')
                    .map(|c| CODES.iter().position(|x| *x == c.trim()))
                    .collect();
                continue;
            }
            let mut logp = [f32::NAN; N];
            for (col, v) in columns.iter().zip(value.split('\t')) {
                if let (Some(li), Ok(v)) = (col, v.trim().parse::<i32>()) {
                    logp[*li] = v as f32 / 100.0;
                }
            }
            if logp.iter().any(|v| v.is_nan()) {
                let Some(oov) = model.oov_logp(key) else {
                    continue;
                };
                for (v, o) in logp.iter_mut().zip(oov) {
                    if v.is_nan() {
                        *v = o;
                    }
                }
            }
            model.words.insert(
                key.into(),
                WordEntry {
                    logp,
                    known: true,
                    neutral: false,
                },
            );
        }
        for line in neutral.lines() {
            let word = line.split('#').next().unwrap_or("").trim();
            if word.is_empty() {
                continue;
            }
            let mut buf = [0u8; MAX_WORD_BYTES];
            let Some(lower) = lowercase_into(word, &mut buf) else {
                continue;
            };
            model
                .words
                .entry(lower.into())
                .or_insert(WordEntry {
                    logp: [0.0; N],
                    known: false,
                    neutral: true,
                })
                .neutral = true;
        }
        model
    }
}

/// What the character model needs of a table: the builder's maps at
/// build time, the embedded [`Tables`] at run time.
pub trait Grams {
    /// Longest n-gram kept.
    fn order(&self) -> usize;
    /// Statistics of the n-gram `key` (ids, first character in the lowest
    /// byte).
    fn gram(&self, key: u64) -> Option<NgramEntry>;
    /// The id of a character, [`UNKNOWN_ID`] if never seen.
    fn id_of(&self, c: char) -> u8;
    fn unigram_total(&self) -> [f32; N];
    fn ln_oov_mass(&self) -> [f32; N];

    /// Log-probability of a word outside the word lists, per language: the
    /// leftover mass times the character model. None for words too long to
    /// score.
    fn oov_logp(&self, word: &str) -> Option<[f32; N]> {
        const MAX_CHARS: usize = 48;
        let mut ids = [0u8; MAX_CHARS + 2];
        ids[0] = START_ID;
        let mut len = 1;
        for c in word.chars() {
            if len > MAX_CHARS {
                return None;
            }
            ids[len] = self.id_of(c);
            len += 1;
        }
        ids[len] = END_ID;
        len += 1;
        let mut lp = self.char_logp(&ids[..len]);
        for (v, m) in lp.iter_mut().zip(self.ln_oov_mass()) {
            *v += m;
        }
        Some(lp)
    }

    /// Character model: sum over positions of ln P(c | up to order-1
    /// previous characters), Witten-Bell interpolated.
    fn char_logp(&self, ids: &[u8]) -> [f32; N] {
        const MAX_ORDER: usize = 8;
        let order = self.order().min(MAX_ORDER);
        let unigram_total = self.unigram_total();
        let mut lp = [0.0f32; N];
        // prev[n-1]: entry of the n-gram of length n ending at the previous
        // position (the context of order n+1 here).
        let mut prev: [Option<NgramEntry>; MAX_ORDER] = [None; MAX_ORDER];
        let mut cur: [Option<NgramEntry>; MAX_ORDER] = [None; MAX_ORDER];
        for i in 0..ids.len() {
            let mut key = 0u64;
            for n in 1..=order.min(i + 1) {
                key = (key << 8) | u64::from(ids[i + 1 - n]);
                // First character in the lowest byte, as stored.
                cur[n - 1] = self.gram(key);
            }
            for slot in cur.iter_mut().skip(order.min(i + 1)) {
                *slot = None;
            }
            if i > 0 {
                for (li, out) in lp.iter_mut().enumerate() {
                    let c1 = cur[0].map_or(0.0, |e| e.count[li]);
                    let mut p =
                        (c1 + UNIGRAM_K) / (unigram_total[li] + UNIGRAM_K * UNIGRAM_ALPHABET);
                    for n in 2..=order.min(i + 1) {
                        let Some(ctx) = prev[n - 2] else { break };
                        let total = ctx.ctx_total[li];
                        if total <= 0.0 {
                            break;
                        }
                        let types = ctx.ctx_types[li];
                        let c = cur[n - 1].map_or(0.0, |e| e.count[li]);
                        p = (c + types * p) / (total + types);
                    }
                    *out += p.ln();
                }
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        lp
    }
}

impl Model {
    /// Every n-gram key, for tests of the encoded tables.
    pub fn gram_keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.ngrams.keys().copied()
    }
}

impl Grams for Model {
    fn order(&self) -> usize {
        self.order
    }
    fn gram(&self, key: u64) -> Option<NgramEntry> {
        self.ngrams.get(&key).copied()
    }
    fn id_of(&self, c: char) -> u8 {
        if c.is_ascii() {
            self.ascii_ids[c as usize]
        } else {
            self.other_ids.get(&c).copied().unwrap_or(UNKNOWN_ID)
        }
    }
    fn unigram_total(&self) -> [f32; N] {
        self.unigram_total
    }
    fn ln_oov_mass(&self) -> [f32; N] {
        self.ln_oov_mass
    }
}

/// Number of characters in an n-gram key (ids are never 0).
fn key_len(key: u64) -> usize {
    (64 - key.leading_zeros() as usize).div_ceil(8)
}

/// The Fx hash (as in rustc): fast, fine for short keys, not DoS-resistant,
/// which the fixed tables do not need.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, v: u64) {
        self.hash = (self.hash.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        let mut tail = 0u64;
        for (i, b) in chunks.remainder().iter().enumerate() {
            tail |= u64::from(*b) << (8 * i);
        }
        self.add(tail);
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

// ---------------------------------------------------------------------------
// The encoded form: open-addressing hash tables that are read in place, so
// start-up costs nothing. Little-endian throughout; every read is
// bounds-checked, and a table that does not read back is not used.
//
//   "CLM2", order u32, unigram_total N x f32, ln_oov_mass N x f32,
//   ascii_ids 128 x u8,
//   other chars: count u32, then (char u32, id u32) sorted by char,
//   n-grams: slot bits u32, 2^bits x u32 slots (0 empty, else 1 + entry),
//            count u32, then (key u64, count, ctx_total, ctx_types: N x f32 each),
//   words:   slot bits u32, 2^bits x u32 slots,
//            count u32, then (pool offset u32, length u32, flags u32, logp N x f32),
//            pool length u32, pool bytes.

const MAGIC: &[u8; 4] = b"CLM2";
const GRAM_BYTES: usize = 8 + 3 * N * 4;
const WORD_BYTES: usize = 12 + N * 4;

fn hash_u64(k: u64) -> u64 {
    k.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

fn hash_str(s: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(s.as_bytes());
    hash_u64(h.finish())
}

/// Slot of a hash in a table of 2^bits slots: its high bits.
fn slot_of(h: u64, bits: u32) -> usize {
    (h >> (64 - bits)) as usize
}

/// Slots for `hashes` (in entry order), with linear probing.
fn slots(hashes: &[u64]) -> (u32, Vec<u32>) {
    let bits = (hashes.len() * 2)
        .next_power_of_two()
        .max(2)
        .trailing_zeros();
    let mask = (1usize << bits) - 1;
    let mut slots = vec![0u32; 1 << bits];
    for (i, &h) in hashes.iter().enumerate() {
        let mut at = slot_of(h, bits);
        while slots[at] != 0 {
            at = (at + 1) & mask;
        }
        slots[at] = i as u32 + 1;
    }
    (bits, slots)
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_f32s(out: &mut Vec<u8>, v: &[f32]) {
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

impl Model {
    /// The model in the layout [`Tables`] reads; entries sorted, so the
    /// bytes are the same on every build.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(8 << 20);
        out.extend_from_slice(MAGIC);
        put_u32(&mut out, self.order as u32);
        put_f32s(&mut out, &self.unigram_total);
        put_f32s(&mut out, &self.ln_oov_mass);
        out.extend_from_slice(&self.ascii_ids);
        let mut other: Vec<(char, u8)> = self.other_ids.iter().map(|(c, i)| (*c, *i)).collect();
        other.sort_unstable();
        put_u32(&mut out, other.len() as u32);
        for (c, id) in other {
            put_u32(&mut out, c as u32);
            put_u32(&mut out, u32::from(id));
        }

        let mut grams: Vec<(u64, NgramEntry)> = self.ngrams.iter().map(|(k, e)| (*k, *e)).collect();
        grams.sort_unstable_by_key(|(k, _)| *k);
        let (bits, table) = slots(&grams.iter().map(|(k, _)| hash_u64(*k)).collect::<Vec<_>>());
        put_u32(&mut out, bits);
        table.iter().for_each(|s| put_u32(&mut out, *s));
        put_u32(&mut out, grams.len() as u32);
        for (k, e) in &grams {
            out.extend_from_slice(&k.to_le_bytes());
            put_f32s(&mut out, &e.count);
            put_f32s(&mut out, &e.ctx_total);
            put_f32s(&mut out, &e.ctx_types);
        }

        // Words longer than MAX_WORD_BYTES are never looked up.
        let mut words: Vec<(&str, WordEntry)> = self
            .words
            .iter()
            .filter(|(w, _)| w.len() <= MAX_WORD_BYTES)
            .map(|(w, e)| (&**w, *e))
            .collect();
        words.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let (bits, table) = slots(&words.iter().map(|(w, _)| hash_str(w)).collect::<Vec<_>>());
        put_u32(&mut out, bits);
        table.iter().for_each(|s| put_u32(&mut out, *s));
        put_u32(&mut out, words.len() as u32);
        let mut pool = Vec::new();
        for (w, e) in &words {
            put_u32(&mut out, pool.len() as u32);
            put_u32(&mut out, w.len() as u32);
            put_u32(&mut out, u32::from(e.known) | (u32::from(e.neutral) << 1));
            put_f32s(&mut out, &e.logp);
            pool.extend_from_slice(w.as_bytes());
        }
        put_u32(&mut out, pool.len() as u32);
        out.extend_from_slice(&pool);
        out
    }
}

/// The tables read in place from their encoded bytes.
#[derive(Clone, Copy, Debug)]
pub struct Tables<'a> {
    order: usize,
    unigram_total: [f32; N],
    ln_oov_mass: [f32; N],
    ascii_ids: &'a [u8],
    other: &'a [u8],
    gram_bits: u32,
    gram_slots: &'a [u8],
    grams: &'a [u8],
    word_bits: u32,
    word_slots: &'a [u8],
    words: &'a [u8],
    pool: &'a [u8],
}

/// A reader over the encoded bytes; every read checks the length.
struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32_at(b, 0))
    }
    fn f32s(&mut self) -> Option<[f32; N]> {
        let b = self.take(4 * N)?;
        Some(std::array::from_fn(|i| f32_at(b, 4 * i)))
    }
    /// `count` items of `size` bytes, the count read first.
    fn items(&mut self, size: usize) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n.checked_mul(size)?)
    }
    /// A slot table: its bits, then its slots.
    fn slots(&mut self) -> Option<(u32, &'a [u8])> {
        let bits = self.u32()?;
        if !(1..32).contains(&bits) {
            return None;
        }
        Some((bits, self.take(4usize.checked_shl(bits)?)?))
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .map_or(0, |x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_bits(u32_at(b, at))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from(u32_at(b, at)) | (u64::from(u32_at(b, at + 4)) << 32)
}

impl<'a> Tables<'a> {
    /// Read the layout [`Model::encode`] writes; None if the bytes are not
    /// one.
    pub fn new(bytes: &'a [u8]) -> Option<Tables<'a>> {
        let mut r = Bytes(bytes);
        if r.take(4)? != MAGIC {
            return None;
        }
        let order = r.u32()? as usize;
        let unigram_total = r.f32s()?;
        let ln_oov_mass = r.f32s()?;
        let ascii_ids = r.take(128)?;
        let other = r.items(8)?;
        let (gram_bits, gram_slots) = r.slots()?;
        let grams = r.items(GRAM_BYTES)?;
        let (word_bits, word_slots) = r.slots()?;
        let words = r.items(WORD_BYTES)?;
        let pool = r.items(1)?;
        if !r.0.is_empty() {
            return None;
        }
        Some(Tables {
            order,
            unigram_total,
            ln_oov_mass,
            ascii_ids,
            other,
            gram_bits,
            gram_slots,
            grams,
            word_bits,
            word_slots,
            words,
            pool,
        })
    }

    /// Entries whose hash is `h`, in probing order, as byte offsets of
    /// their records, until an empty slot.
    fn probe(
        slots: &'a [u8],
        bits: u32,
        records: &'a [u8],
        size: usize,
        h: u64,
    ) -> impl Iterator<Item = &'a [u8]> + 'a {
        let n = slots.len() / 4;
        let mut at = slot_of(h, bits);
        let mut left = n;
        std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            left -= 1;
            let s = u32_at(slots, 4 * at) as usize;
            at = (at + 1) % n.max(1);
            let i = s.checked_sub(1)?;
            records.get(i * size..(i + 1) * size)
        })
    }

    /// A word's entry (the word lower-cased as the lists are).
    pub fn word(&self, w: &str) -> Option<WordEntry> {
        let rec = Self::probe(
            self.word_slots,
            self.word_bits,
            self.words,
            WORD_BYTES,
            hash_str(w),
        )
        .find(|rec| {
            let (off, len) = (u32_at(rec, 0) as usize, u32_at(rec, 4) as usize);
            self.pool.get(off..off + len) == Some(w.as_bytes())
        })?;
        let flags = u32_at(rec, 8);
        Some(WordEntry {
            logp: std::array::from_fn(|i| f32_at(rec, 12 + 4 * i)),
            known: flags & 1 != 0,
            neutral: flags & 2 != 0,
        })
    }
}

impl Grams for Tables<'_> {
    fn order(&self) -> usize {
        self.order
    }
    fn gram(&self, key: u64) -> Option<NgramEntry> {
        let rec = Self::probe(
            self.gram_slots,
            self.gram_bits,
            self.grams,
            GRAM_BYTES,
            hash_u64(key),
        )
        .find(|rec| u64_at(rec, 0) == key)?;
        let f = |at: usize| std::array::from_fn(|i| f32_at(rec, at + 4 * i));
        Some(NgramEntry {
            count: f(8),
            ctx_total: f(8 + 4 * N),
            ctx_types: f(8 + 8 * N),
        })
    }
    fn id_of(&self, c: char) -> u8 {
        if c.is_ascii() {
            return self
                .ascii_ids
                .get(c as usize)
                .copied()
                .unwrap_or(UNKNOWN_ID);
        }
        // Sorted (char, id) pairs: binary search.
        let n = self.other.len() / 8;
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match u32_at(self.other, 8 * mid).cmp(&(c as u32)) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return u8::try_from(u32_at(self.other, 8 * mid + 4)).unwrap_or(UNKNOWN_ID)
                }
            }
        }
        UNKNOWN_ID
    }
    fn unigram_total(&self) -> [f32; N] {
        self.unigram_total
    }
    fn ln_oov_mass(&self) -> [f32; N] {
        self.ln_oov_mass
    }
}
