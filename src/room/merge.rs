//! The merge of several views of one call into one timeline.
//!
//! Two copies can only be one line when they have the same speaker and the
//! same text, so the copies are first sorted into groups of one speaker's
//! one text, and each group is merged on its own, on every core. Within a
//! group, copies are taken own lines first (their times anchor the merge),
//! then by time, then in the order they were gathered: the order one pass
//! over all copies would take them in, so the timeline does not depend on
//! how the groups were shared out.

use std::hash::{Hash, Hasher};

use rayon::prelude::*;

use crate::model::digest::{Digest, Heard};
use crate::model::{Ms, Name, Who};
use crate::text::words::{FastHasher, FastMap, FastSet};

/// Copies of one line in different logs are merged when their times are at
/// most this far apart.
pub const MERGE_MS: Ms = 3_000;

/// The participants' lanes a merge sorts lines into: one for the human, one
/// for the voicebot, one per agent. An agent's lane must not change once
/// given: the same name always finds the same lane.
pub trait Lanes {
    fn human(&self) -> usize;
    fn voicebot(&self) -> usize;
    /// An agent's lane, made on first use.
    fn agent(&mut self, name: &str) -> usize;
}

/// Where a log holds a copy of a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCopy {
    /// Index of the view (log) in the slice given to [`merge`].
    pub view: usize,
    /// Index of the record in that view's call.
    pub record: usize,
    /// Index into that view's lines ([`Digest::lines`]).
    pub utterance: usize,
}

/// A line of the merged room timeline.
#[derive(Clone, Debug)]
pub struct Line {
    pub lane: usize,
    pub text: String,
    pub ts: Ms,
    /// From the speaker's own log.
    pub own: bool,
    /// A say of the speaker's own log that was never heard (refused,
    /// dropped, or revised by the server).
    pub dropped: bool,
    pub addressed: Vec<Name>,
    /// `addressed` as a log recorded it, not computed.
    pub addressed_recorded: bool,
    /// Every copy, the first one first.
    pub copies: Vec<LineCopy>,
}

/// A copy of a line, as gathered from the views. Texts stay borrowed from
/// the views until a line is made of them: a room of many logs holds every
/// line many times over.
struct Piece<'v> {
    /// A hash of the lane and the text: pieces are sorted by it, so that
    /// the texts are compared only between pieces of one group.
    key: u64,
    lane: u32,
    text: &'v str,
    /// Not from the speaker's own log: own lines sort first.
    heard: bool,
    ts: Ms,
    /// The gathering order: view by view, line by line.
    n: u32,
    view: u32,
    utterance: u32,
    /// Its record in its view, and whether the view recorded whom it
    /// addressed: what merging a copy needs of it, kept here so that the
    /// views are read in order only.
    record: u32,
    recorded: bool,
}

impl Piece<'_> {
    /// The order copies are taken in within their group.
    fn order(&self) -> (bool, Ms, u32) {
        (self.heard, self.ts, self.n)
    }
}

/// Merge the lines of every view into one timeline, in spoken order.
pub fn merge(views: &[&Digest], lanes: &mut impl Lanes) -> Vec<Line> {
    let mut pieces = gather(views, lanes);
    pieces.par_iter_mut().with_min_len(1024).for_each(|p| {
        let mut h = FastHasher::default();
        (p.lane, p.text).hash(&mut h);
        p.key = h.finish();
    });
    // Groups of one lane's one text, each in the order it is merged in.
    pieces.par_sort_unstable_by_key(|p| (p.key, p.heard, p.ts, p.n));
    // Texts whose hashes collide are told apart.
    let mut groups: Vec<&[Piece<'_>]> = Vec::new();
    for run in pieces.chunk_by_mut(|a, b| a.key == b.key) {
        let same = |p: &Piece<'_>| p.lane == run[0].lane && p.text == run[0].text;
        if run.iter().all(same) {
            groups.push(run);
        } else {
            run.sort_unstable_by(|a, b| {
                (a.lane, a.text, a.order()).cmp(&(b.lane, b.text, b.order()))
            });
            groups.extend(run.chunk_by(|a, b| a.lane == b.lane && a.text == b.text));
        }
    }
    let mut lines: Vec<(Line, (bool, Ms, u32))> = groups
        .par_iter()
        .flat_map_iter(|g| merge_group(views, g))
        .collect();
    // Spoken order; at the same time, the order of the lines' first copies
    // (the human's line before what answers it at the same ms).
    lines.par_sort_unstable_by_key(|(l, first)| (l.ts, *first));
    lines.into_iter().map(|(l, _)| l).collect()
}

/// The lines of view `v` that have a time, with their index and time,
/// in order. When no view has any time (`untimed`), the lines keep their
/// record order, a second apart; a line without a time of its own takes
/// the one before it, and the lines before the first time are left out.
fn timed(v: &Digest, untimed: bool) -> impl Iterator<Item = (usize, &Heard, Ms)> {
    let mut last: Option<Ms> = None;
    v.lines.iter().enumerate().filter_map(move |(k, h)| {
        let ts = if untimed {
            h.record as Ms * 1000
        } else {
            h.ts.or(last)?
        };
        last = Some(ts);
        Some((k, h, ts))
    })
}

/// Every timed line of every view ([`timed`]) as a piece, with its lane.
fn gather<'v>(views: &[&'v Digest], lanes: &mut impl Lanes) -> Vec<Piece<'v>> {
    let untimed = views.iter().all(|v| !v.timed);
    let mut pieces = Vec::with_capacity(views.iter().map(|v| v.lines.len()).sum());
    let mut n = 0u32;
    for (vi, v) in views.iter().enumerate() {
        // A view shares one name among a speaker's lines: its lane is
        // looked up once, by the name's address.
        let mut seen: FastMap<usize, usize> = FastMap::default();
        for (k, h, ts) in timed(v, untimed) {
            let lane = match h.who {
                Who::Human => lanes.human(),
                Who::Voicebot => lanes.voicebot(),
                Who::Me | Who::Agent => *seen
                    .entry(Name::as_ptr(&h.speaker).cast::<u8>() as usize)
                    .or_insert_with(|| lanes.agent(&h.speaker)),
            };
            pieces.push(Piece {
                key: 0,
                lane: lane as u32,
                text: v.text(h),
                heard: h.who != Who::Me,
                ts,
                n,
                view: vi as u32,
                utterance: k as u32,
                record: u32::try_from(h.record).unwrap_or(u32::MAX),
                recorded: h.recorded,
            });
            n = n.wrapping_add(1);
        }
    }
    pieces
}

/// The lines of one group (one lane's one text, in merge order), each with
/// the order of its first copy. A copy joins the nearest line in time that
/// is at most [`MERGE_MS`] away and has no copy from its view yet (the
/// first made on a tie); else it starts a line.
///
/// A line keeps the time of the copy that made it: own copies come first
/// and an own line's time is its speaker's; the others come in time order,
/// so a later copy is never earlier. The lines made of own copies are thus
/// in time order, and so are the lines after them: the lines near a copy's
/// time are found by bisection in each.
fn merge_group(views: &[&Digest], group: &[Piece<'_>]) -> Vec<(Line, (bool, Ms, u32))> {
    let mut lines: Vec<(Line, (bool, Ms, u32))> = Vec::new();
    // The views each line has a copy from: a view gives a line one copy.
    let mut taken = Taken::new(views.len());
    // The lines made of own copies, all before the others.
    let mut own_lines = 0;
    for c in group {
        let at = LineCopy {
            view: c.view as usize,
            record: c.record as usize,
            utterance: c.utterance as usize,
        };
        let h = || &views[c.view as usize].lines[c.utterance as usize];
        let near = |from: usize, to: usize| {
            let part = &lines[from..to];
            let lo = part.partition_point(|l| l.0.ts < c.ts.saturating_sub(MERGE_MS));
            let hi = part.partition_point(|l| l.0.ts <= c.ts.saturating_add(MERGE_MS));
            from + lo..from + hi
        };
        let same = near(0, own_lines)
            .chain(near(own_lines, lines.len()))
            .filter(|&k| !taken.has(k, c.view))
            .min_by_key(|&k| (lines[k].0.ts - c.ts).abs());
        match same {
            Some(k) => {
                taken.take(k, c.view);
                let l = &mut lines[k].0;
                l.copies.push(at);
                if !l.own {
                    l.ts = l.ts.min(c.ts);
                }
                if !l.addressed_recorded && c.recorded {
                    l.addressed = h().addressed.to_vec();
                    l.addressed_recorded = true;
                }
            }
            None => {
                if !c.heard {
                    own_lines += 1;
                }
                taken.take(lines.len(), c.view);
                lines.push((
                    Line {
                        lane: c.lane as usize,
                        text: c.text.to_string(),
                        ts: c.ts,
                        own: !c.heard,
                        dropped: h().dropped,
                        addressed: h().addressed.to_vec(),
                        addressed_recorded: c.recorded,
                        copies: vec![at],
                    },
                    c.order(),
                ));
            }
        }
    }
    lines
}

/// Which views a group's lines have copies from: a bit per view and line
/// for a room of a few hundred logs at most, else a set of (line, view)
/// pairs, whose size follows the copies rather than lines times views.
enum Taken {
    Bits { words: usize, bits: Vec<u64> },
    Pairs(FastSet<(usize, u32)>),
}

impl Taken {
    /// Views up to which a line's views are kept as bits.
    const MAX_BIT_VIEWS: usize = 256;

    fn new(views: usize) -> Taken {
        if views <= Taken::MAX_BIT_VIEWS {
            Taken::Bits {
                words: views.div_ceil(64),
                bits: Vec::new(),
            }
        } else {
            Taken::Pairs(FastSet::default())
        }
    }

    fn has(&self, line: usize, view: u32) -> bool {
        match self {
            Taken::Bits { words, bits } => bits
                .get(line * words + view as usize / 64)
                .is_some_and(|w| w & (1 << (view % 64)) != 0),
            Taken::Pairs(set) => set.contains(&(line, view)),
        }
    }

    fn take(&mut self, line: usize, view: u32) {
        match self {
            Taken::Bits { words, bits } => {
                let at = line * *words + view as usize / 64;
                if bits.len() <= at {
                    bits.resize((line + 1) * *words, 0);
                }
                bits[at] |= 1 << (view % 64);
            }
            Taken::Pairs(set) => {
                set.insert((line, view));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::hash::HashMap;

    struct ByName(Vec<String>);

    /// A line as the test compares it: lane, text, time, and its copies
    /// as (view, line of the view).
    type Merged = (usize, String, Ms, Vec<(usize, usize)>);

    impl Lanes for ByName {
        fn human(&self) -> usize {
            0
        }
        fn voicebot(&self) -> usize {
            1
        }
        fn agent(&mut self, name: &str) -> usize {
            match self.0.iter().position(|n| n == name) {
                Some(k) => k + 2,
                None => {
                    self.0.push(name.to_string());
                    self.0.len() + 1
                }
            }
        }
    }

    /// The merge as one pass over every copy, own copies first, then by
    /// time, then in gathering order, each joining the nearest line of its
    /// lane and text within [`MERGE_MS`] that its view has no copy in yet.
    fn one_pass(views: &[&Digest]) -> Vec<Merged> {
        let untimed = views.iter().all(|v| !v.timed);
        let mut lanes = ByName(Vec::new());
        let mut all = Vec::new();
        for (vi, v) in views.iter().enumerate() {
            for (k, h, ts) in timed(v, untimed) {
                let lane = match h.who {
                    Who::Human => 0,
                    Who::Voicebot => 1,
                    _ => lanes.agent(&h.speaker),
                };
                all.push((
                    h.who != Who::Me,
                    ts,
                    all.len(),
                    lane,
                    v.text(h).to_string(),
                    vi,
                    k,
                ));
            }
        }
        all.sort();
        // Each line, and whether it was made of a copy heard.
        let mut lines: Vec<(Merged, bool)> = Vec::new();
        let mut index: HashMap<(usize, String), Vec<usize>> = HashMap::default();
        for (heard, ts, _, lane, text, vi, k) in all {
            let same = index.get(&(lane, text.clone())).and_then(|ks| {
                ks.iter()
                    .copied()
                    .filter(|&i| {
                        let (line, _) = &lines[i];
                        (line.2 - ts).abs() <= MERGE_MS && !line.3.iter().any(|c| c.0 == vi)
                    })
                    .min_by_key(|&i| (lines[i].0 .2 - ts).abs())
            });
            match same {
                Some(i) => {
                    let (line, made_heard) = &mut lines[i];
                    line.3.push((vi, k));
                    if *made_heard {
                        line.2 = line.2.min(ts);
                    }
                }
                None => {
                    index
                        .entry((lane, text.clone()))
                        .or_default()
                        .push(lines.len());
                    lines.push(((lane, text, ts, vec![(vi, k)]), heard));
                }
            }
        }
        lines.sort_by_key(|l| l.0 .2);
        lines.into_iter().map(|(l, _)| l).collect()
    }

    /// Views of one call with few texts said again and again, at times a
    /// little apart in each view, some lines untimed: merged in groups, on
    /// every core, the timeline is the one of a single pass.
    #[test]
    fn the_merge_in_groups_is_the_merge_in_one_pass() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let speakers = ["Ann", "Bo", "Cy"];
        let texts = [
            "Okay.",
            "On it.",
            "Done, the tag is set.",
            "Delta, the board?",
        ];
        // The last round is a room of more logs than a line keeps as bits.
        for round in 0..41 {
            let (n, long) = if round == 40 {
                (300, 5)
            } else {
                (2 + next(5), 30)
            };
            let views: Vec<Digest> = (0..n as usize)
                .map(|v| {
                    let mut ts: Ms = 0;
                    let lines: Vec<(Who, &str, &str, Option<Ms>)> = (0..long + next(long + 10))
                        .map(|_| {
                            ts += next(4_000) as Ms;
                            let who = match next(6) {
                                0 => Who::Human,
                                1 => Who::Voicebot,
                                2 if v < speakers.len() => Who::Me,
                                _ => Who::Agent,
                            };
                            let speaker = match who {
                                Who::Me => speakers[v],
                                _ => speakers[next(3) as usize],
                            };
                            let text = texts[next(texts.len() as u64) as usize];
                            let at = (round % 7 != 0 && next(9) != 0).then_some(ts);
                            (who, speaker, text, at)
                        })
                        .collect();
                    Digest::of_lines(&lines)
                })
                .collect();
            let refs: Vec<&Digest> = views.iter().collect();
            let got: Vec<Merged> = merge(&refs, &mut ByName(Vec::new()))
                .into_iter()
                .map(|l| {
                    let copies = l.copies.iter().map(|c| (c.view, c.utterance)).collect();
                    (l.lane, l.text, l.ts, copies)
                })
                .collect();
            assert_eq!(got, one_pass(&refs), "round {round}");
        }
    }

    /// Both ways of keeping a line's views say the same.
    #[test]
    fn taken_views_are_the_same_as_bits_and_as_pairs() {
        for views in [3, 70, 300] {
            let mut t = Taken::new(views);
            assert_eq!(matches!(t, Taken::Bits { .. }), views <= 256);
            for (line, view) in [(0, 0), (4, 1), (4, views as u32 - 1), (9, views as u32 / 2)] {
                assert!(!t.has(line, view));
                t.take(line, view);
                assert!(t.has(line, view));
            }
            assert!(!t.has(4, 0) && !t.has(8, 0) && !t.has(100, 0));
        }
    }
}
