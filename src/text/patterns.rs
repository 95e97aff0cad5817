//! Word lists matched against instruction text: "does this clause name
//! any of these words?", asked by many rules about the same few sentences.
//!
//! A list is a `&'static [&'static str]` of patterns: a word or a run of
//! words, matched at word boundaries in text that is lower case with single
//! spaces; a pattern ending in `*` matches any word that starts with it
//! (`greet*`: greet, greets, greeting), one starting with `*` any word that
//! ends with it. A `*` after the first word of a run lets that word go on
//! (`talk* about`: talks about, talking about).
//!
//! Two ways to answer, with the same result:
//!
//! - [`find`] searches one text for one list, with an automaton compiled
//!   once per list;
//! - [`Memo::find`] answers for a text that is asked about many lists (a
//!   clause, a sentence): the first time it is asked, one automaton that
//!   holds every list seen so far finds all of them in one pass, and the
//!   answers are kept with the text. A list first seen after that pass is
//!   answered by [`find`] until enough such misses make rebuilding the
//!   shared automaton worth its cost.
//!
//! The registry of lists is per thread (a list is known by its address,
//! which a `'static` list keeps for the whole run), and a memo filled on
//! one thread is not trusted on another.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::OnceLock;

use crate::core::hash::HashMap;

/// A list's key: its address and length.
fn key(pats: &'static [&'static str]) -> usize {
    pats.as_ptr() as usize ^ (pats.len() << 48)
}

/// True when `words` holds one of `pats` ([`find`]).
pub fn mentions(words: &str, pats: &'static [&'static str]) -> bool {
    find(words, pats).is_some()
}

/// Where in `words` the first match of any of `pats` starts.
///
/// The patterns are searched for all at once: each list is compiled once
/// per thread into one automaton.
pub fn find(words: &str, pats: &'static [&'static str]) -> Option<usize> {
    thread_local! {
        static COMPILED: RefCell<HashMap<usize, Rc<Compiled>>> =
            RefCell::new(HashMap::default());
    }
    let c = COMPILED.with(|m| {
        Rc::clone(
            m.borrow_mut()
                .entry(key(pats))
                .or_insert_with(|| Rc::new(Compiled::new(&[pats]))),
        )
    });
    c.first_one(words)
}

/// One pattern as compiled: the lists it belongs to, and whether it may
/// end inside a word (`greet*`) or start inside one (`*agent`).
#[derive(Clone)]
struct Entry {
    list: u32,
    prefix: bool,
    suffix: bool,
    /// For `stem* rest`: what must follow the word that starts with the
    /// stem (` rest`, and then the end of a word or any word's end for a
    /// final `*`).
    tail: Option<(Box<str>, bool)>,
}

/// Lists of patterns compiled into one automaton.
struct Compiled {
    ac: Option<aho_corasick::AhoCorasick>,
    /// Per distinct pattern string, its entries.
    entries: Vec<Vec<Entry>>,
}

impl Compiled {
    /// `lists[k]` is list number `k` of the answers.
    fn new(lists: &[&'static [&'static str]]) -> Compiled {
        let mut index: HashMap<String, usize> = HashMap::default();
        let mut bare: Vec<String> = Vec::new();
        let mut entries: Vec<Vec<Entry>> = Vec::new();
        let mut add = |p: String, e: Entry| {
            let k = *index.entry(p.clone()).or_insert_with(|| {
                bare.push(p);
                entries.push(Vec::new());
                entries.len() - 1
            });
            entries[k].push(e);
        };
        for (list, pats) in lists.iter().enumerate() {
            for p in pats.iter() {
                let (suffix, p) = p.strip_prefix('*').map_or((false, *p), |r| (true, r));
                let (prefix, p) = p.strip_suffix('*').map_or((false, p), |r| (true, r));
                if p.is_empty() {
                    continue;
                }
                let list = list as u32;
                // `talk* about`: the stem is searched for, the rest
                // checked after the word it starts
                if let Some((stem, rest)) = p.split_once("* ") {
                    if !stem.is_empty() && !rest.is_empty() && !rest.contains('*') {
                        add(
                            stem.to_string(),
                            Entry {
                                list,
                                prefix: true,
                                suffix,
                                tail: Some((format!(" {rest}").into(), prefix)),
                            },
                        );
                    }
                    continue;
                }
                add(
                    p.to_string(),
                    Entry {
                        list,
                        prefix,
                        suffix,
                        tail: None,
                    },
                );
                // a stem that ends in a silent `e` also finds its -ing
                // form (`acknowledge*` finds "acknowledging")
                if prefix && p.len() > 3 && p.ends_with('e') && !p.ends_with("ee") {
                    add(
                        format!("{}ing", &p[..p.len() - 1]),
                        Entry {
                            list,
                            prefix: true,
                            suffix,
                            tail: None,
                        },
                    );
                }
            }
        }
        // The texts are a sentence or a clause, so a prefilter only costs
        // time. A contiguous NFA builds many times faster than a DFA, and
        // the lists are built while linting: a short document asks few
        // questions of each.
        let kind = if lists.len() == 1 {
            aho_corasick::AhoCorasickKind::ContiguousNFA
        } else {
            aho_corasick::AhoCorasickKind::DFA
        };
        Compiled {
            ac: aho_corasick::AhoCorasick::builder()
                .kind(Some(kind))
                .prefilter(false)
                .build(&bare)
                .ok(),
            entries,
        }
    }

    /// Calls `each` with the list and start of every match in `words`, in
    /// the order the automaton finds them, until it returns false.
    fn scan(&self, words: &str, mut each: impl FnMut(u32, u32) -> bool) {
        let Some(ac) = self.ac.as_ref() else {
            return;
        };
        let b = words.as_bytes();
        for m in ac.find_overlapping_iter(words) {
            let (at, end) = (m.start(), m.end());
            let starts = at == 0 || !is_word_byte(b[at - 1]);
            let ends = end == b.len() || !is_word_byte(b[end]);
            for e in &self.entries[m.pattern().as_usize()] {
                let whole = match &e.tail {
                    None => ends || e.prefix,
                    Some((rest, open)) => follows(b, end, rest.as_bytes(), *open),
                };
                if (starts || e.suffix) && whole {
                    // a match inside a word (`*agent` in "subagent") starts
                    // where its word does
                    let mut from = at;
                    while from > 0 && is_word_byte(b[from - 1]) {
                        from -= 1;
                    }
                    if !each(e.list, from as u32) {
                        return;
                    }
                }
            }
        }
    }

    /// Where the first match of the (only) list starts.
    fn first_one(&self, words: &str) -> Option<usize> {
        let mut best: Option<u32> = None;
        self.scan(words, |_, at| {
            best = Some(best.map_or(at, |b| b.min(at)));
            at > 0
        });
        best.map(|at| at as usize)
    }

    /// Each list that `words` match, with where its first match starts,
    /// sorted by list.
    fn first(&self, words: &str) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = Vec::with_capacity(64);
        self.scan(words, |list, at| {
            out.push((list, at));
            true
        });
        // the first match of each list
        out.sort_unstable();
        out.dedup_by_key(|(list, _)| *list);
        out
    }
}

/// True when the word that runs on at `end` of `b` is followed by `rest`,
/// which ends a word there unless `open`.
fn follows(b: &[u8], end: usize, rest: &[u8], open: bool) -> bool {
    let mut k = end;
    while k < b.len() && is_word_byte(b[k]) {
        k += 1;
    }
    let after = k + rest.len();
    b.get(k..after) == Some(rest) && (open || after == b.len() || !is_word_byte(b[after]))
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The lists this thread has been asked about, and the automaton that
/// holds the first `covered` of them.
struct Registry {
    /// Tells this thread's registry from another's.
    stamp: u64,
    ids: HashMap<usize, u32>,
    lists: Vec<&'static [&'static str]>,
    union: Option<Rc<Compiled>>,
    covered: u32,
    /// Questions answered one list at a time since the last build, and how
    /// many make a rebuild worth it.
    misses: usize,
    threshold: usize,
}

/// Misses that pay for the first build of the shared automaton: a short
/// document never builds it.
const FIRST_BUILD: usize = 2_000;

impl Registry {
    fn new() -> Registry {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Registry {
            stamp: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            ids: HashMap::default(),
            lists: Vec::new(),
            union: None,
            covered: 0,
            misses: 0,
            threshold: FIRST_BUILD,
        }
    }

    fn id(&mut self, pats: &'static [&'static str]) -> u32 {
        let lists = &mut self.lists;
        *self.ids.entry(key(pats)).or_insert_with(|| {
            lists.push(pats);
            (lists.len() - 1) as u32
        })
    }

    /// The shared automaton, rebuilt first when lists it lacks have been
    /// asked about often enough.
    fn union(&mut self) -> Option<(Rc<Compiled>, u32)> {
        if self.misses >= self.threshold && self.lists.len() > self.covered as usize {
            self.union = Some(Rc::new(Compiled::new(&self.lists)));
            self.covered = self.lists.len() as u32;
            self.misses = 0;
            self.threshold = self.threshold.saturating_mul(2);
        }
        Some((Rc::clone(self.union.as_ref()?), self.covered))
    }
}

thread_local! {
    static REGISTRY: RefCell<Registry> = RefCell::new(Registry::new());
}

/// The answers kept with one text ([`Memo::find`]). A copy starts empty:
/// the copy's text may be changed ([`Memo::same`] keeps them).
#[derive(Debug, Default)]
pub struct Memo {
    hits: OnceLock<Hits>,
    /// Whether the text has been asked about before: the shared automaton
    /// is run for a text asked twice, as a text asked once is answered
    /// faster by the one list's own.
    asked: std::sync::atomic::AtomicBool,
}

impl Clone for Memo {
    fn clone(&self) -> Memo {
        Memo::default()
    }
}

#[derive(Clone, Debug)]
struct Hits {
    stamp: u64,
    /// Lists numbered below this were searched for.
    covered: u32,
    /// The lists found, with where each first matched, sorted by list.
    found: Vec<(u32, u32)>,
}

impl Memo {
    /// A copy for the same text, with the answers found so far.
    pub fn same(&self) -> Memo {
        let m = Memo::default();
        if let Some(h) = self.hits.get() {
            let _ = m.hits.set(h.clone());
        }
        m
    }

    /// [`find`] of `pats` in `words`, the text this memo belongs to.
    pub fn find(&self, words: &str, pats: &'static [&'static str]) -> Option<usize> {
        let answer = REGISTRY.with(|r| {
            let mut r = r.borrow_mut();
            let id = r.id(pats);
            let again = self.asked.swap(true, std::sync::atomic::Ordering::Relaxed);
            let hits = match self.hits.get() {
                Some(h) => Some(h),
                None if !again => None,
                None => r.union().map(|(union, covered)| {
                    self.hits.get_or_init(|| Hits {
                        stamp: r.stamp,
                        covered,
                        found: union.first(words),
                    })
                }),
            };
            match hits {
                Some(h) if h.stamp == r.stamp && id < h.covered => Some(
                    h.found
                        .binary_search_by_key(&id, |(list, _)| *list)
                        .ok()
                        .map(|k| h.found[k].1 as usize),
                ),
                _ => {
                    r.misses += 1;
                    None
                }
            }
        });
        answer.unwrap_or_else(|| find(words, pats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GREET: &[&str] = &["greet*", "hello", "say hi"];
    const AGENT: &[&str] = &["*agent", "acknowledge*", "e-mail"];
    const NONE: &[&str] = &[];

    #[test]
    fn patterns_match_at_word_boundaries() {
        assert_eq!(find("then greeting them", GREET), Some(5));
        assert_eq!(find("no regreet here", GREET), None);
        assert_eq!(find("say hi to the subagent", GREET), Some(0));
        assert_eq!(find("the subagent is here", AGENT), Some(4));
        assert_eq!(find("acknowledging it", AGENT), Some(0));
        assert_eq!(find("send an e-mail", AGENT), Some(8));
        assert_eq!(find("anything", NONE), None);
        const PARTS: &[&str] = &["talk* about", "setz* um*"];
        assert_eq!(find("we are talking about it", PARTS), Some(7));
        assert_eq!(find("talk about", PARTS), Some(0));
        assert_eq!(find("talk to them about", PARTS), None);
        assert_eq!(find("talk aboutness", PARTS), None);
        assert_eq!(find("setze das um", PARTS), None);
        assert_eq!(find("setzt um", PARTS), Some(0));
        assert_eq!(find("setzt umgehend", PARTS), Some(0));
    }

    /// The shared automaton answers as each list's own does, before and
    /// after it is built, for lists it holds and for those it does not.
    #[test]
    fn a_memo_answers_as_the_list_alone() {
        let texts = [
            "greet the human , then say hi",
            "acknowledging every agent",
            "send an e-mail to the subagent",
            "nothing here",
            "hello",
        ];
        let lists: [&'static [&'static str]; 3] = [GREET, AGENT, NONE];
        // enough questions to build the shared automaton, then fresh memos
        for round in 0..(FIRST_BUILD / 10 + 2) {
            let memos: Vec<Memo> = texts.iter().map(|_| Memo::default()).collect();
            for (t, m) in texts.iter().zip(&memos) {
                for l in lists {
                    assert_eq!(m.find(t, l), find(t, l), "round {round}: {t:?}");
                }
            }
        }
        let built = REGISTRY.with(|r| r.borrow().covered);
        assert!(built >= 3, "the shared automaton was built: {built}");
    }
}
