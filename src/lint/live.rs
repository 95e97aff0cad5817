//! The live engine: one call's state while its log is still being written,
//! and the judge of the record an agent is about to send.
//!
//! Whatever reads the log — the guard from a client's session file, the
//! MCP proxy from the messages that pass through it, `check --follow` from
//! a growing file — feeds the records it has read to a [`Live`], in log
//! order, as they come ([`Live::push`], [`Live::insert`]); nothing is read
//! twice. [`Live::judge`] then answers for a pending record with exactly
//! the findings `check` reports at that record on a log that holds the
//! records fed so far and the pending one after them: the same split of the
//! log into calls, the same call model ([`Call::build`]) and the same rules,
//! those that can judge a record before anything follows it
//! ([`rules::judges_pending`](crate::rules)).
//!
//! Some readers settle a record later than the place it holds in the log
//! (an MCP request is a record when its answer comes, and one still
//! waiting for it stands where it was sent): each record is fed with its
//! place ([`Live::insert`]), and records still waiting are handed to the
//! judge with theirs ([`Live::judge_with`]).
//!
//! A log may hold several calls; `check` lints each apart, keyed by the
//! call id its records carry (a record without one belongs to the call of
//! the record before it). [`Live`] keeps the records by call the same way,
//! so the pending record is judged against its own call only, whichever
//! call came last.

use crate::core::diagnostic::{dedup, sort, Diagnostic};
use crate::lint::engine::Linter;
use crate::model::{Call, Meta, Record, Span};

/// The records of a log read so far, split into its calls as `check`
/// splits them.
#[derive(Debug, Default)]
pub struct Live {
    meta: Option<Meta>,
    /// The calls, in order of first appearance.
    calls: Vec<Calls>,
    /// The call the next record without a call id belongs to.
    current: usize,
    /// The place the next record pushed takes.
    next: u64,
}

/// The records of one call.
#[derive(Debug, Default)]
struct Calls {
    /// Its id; the first call has none until a record names one.
    id: Option<String>,
    /// Its records, by place.
    records: Vec<Record>,
    /// The place of each record in the log.
    places: Vec<u64>,
}

impl Calls {
    /// Put `record` at `place` among the records (after those at the same
    /// place).
    fn put(&mut self, place: u64, record: Record) {
        let k = match self.places.last() {
            Some(&last) if last > place => self.places.partition_point(|&p| p <= place),
            _ => self.places.len(),
        };
        self.places.insert(k, place);
        self.records.insert(k, record);
    }

    /// Take out the last record put at `place`.
    fn take(&mut self, place: u64) {
        if let Some(i) = self.places.iter().rposition(|&p| p == place) {
            self.places.remove(i);
            self.records.remove(i);
        }
    }
}

impl Live {
    /// A log with nothing read yet, whose `meta` line (if any) says this.
    pub fn new(meta: Option<Meta>) -> Live {
        Live {
            meta,
            ..Live::default()
        }
    }

    /// The call `record` belongs to, made if it is the first of a new id,
    /// and what was changed to make it (for [`Live::judge_with`] to undo).
    fn slot(&mut self, record: &Record) -> (usize, Made) {
        let mut made = Made::Nothing;
        if self.calls.is_empty() {
            self.calls.push(Calls::default());
            made = Made::First;
        }
        let Some(id) = record.call() else {
            return (self.current, made);
        };
        if let Some(k) = self.calls.iter().position(|c| c.id.as_deref() == Some(id)) {
            return (k, made);
        }
        // The records before the first id are that call's.
        if self.calls.len() == 1 && self.calls[0].id.is_none() {
            self.calls[0].id = Some(id.to_string());
            return (0, made.or(Made::Named));
        }
        self.calls.push(Calls {
            id: Some(id.to_string()),
            ..Calls::default()
        });
        (self.calls.len() - 1, made.or(Made::Call))
    }

    /// Undo what [`Live::slot`] made.
    fn unmake(&mut self, made: Made) {
        match made {
            Made::Nothing => {}
            Made::First => self.calls.clear(),
            Made::Named => self.calls[0].id = None,
            Made::Call => {
                self.calls.pop();
            }
        }
    }

    /// Add the next record of the log.
    pub fn push(&mut self, record: Record) {
        let place = self.next;
        self.insert(place, record);
    }

    /// Add the next records of the log, in order.
    pub fn extend(&mut self, records: impl IntoIterator<Item = Record>) {
        for r in records {
            self.push(r);
        }
    }

    /// Add a record whose place in the log is `place` (increasing along
    /// the log; a record may be settled after records that come later in
    /// the log). A record without a call id joins the call of the record
    /// read before it.
    pub fn insert(&mut self, place: u64, record: Record) {
        let (k, _) = self.slot(&record);
        self.current = k;
        self.calls[k].put(place, record);
        self.next = self.next.max(place.saturating_add(1));
    }

    /// The findings on `pending`, the record an agent is about to send, as
    /// the next record of the log: those of the active rules that can judge
    /// a record before anything follows it, on the call it belongs to, in
    /// file order. `pending` carries its own span (after those of the
    /// records read), by which its findings are told.
    ///
    /// The state is left as it was: the pending record is not kept (push it
    /// when the log shows it was sent).
    pub fn judge(&mut self, linter: &Linter, pending: Record) -> Vec<Diagnostic> {
        self.judge_with(linter, Vec::new(), pending)
    }

    /// [`Live::judge`], with `waiting`: records read that are not settled
    /// yet (an MCP request still waiting for its answer), each at its
    /// place, as the log up to the pending record holds them.
    pub fn judge_with(
        &mut self,
        linter: &Linter,
        waiting: Vec<(u64, Record)>,
        pending: Record,
    ) -> Vec<Diagnostic> {
        let at = pending.span;
        let (current, next) = (self.current, self.next);
        // What is put in for this judgment, to be taken out after it, the
        // last put in first.
        let mut put: Vec<(usize, u64, Made)> = Vec::new();
        for (place, r) in waiting {
            let (k, made) = self.slot(&r);
            self.current = k;
            self.calls[k].put(place, r);
            put.push((k, place, made));
        }
        let (k, made) = self.slot(&pending);
        let place = self
            .next
            .max(put.iter().map(|p| p.1 + 1).max().unwrap_or(0));
        self.calls[k].put(place, pending);
        put.push((k, place, made));
        let mut out = Vec::new();
        {
            let records = &self.calls[k].records;
            let call = Call::build(self.meta.as_ref(), records, linter.cast());
            let judged = call.records.iter().rposition(|r| r.span == at);
            linter.run_pending(&call, judged, &mut out);
        }
        for (k, place, made) in put.into_iter().rev() {
            self.calls[k].take(place);
            self.unmake(made);
        }
        self.current = current;
        self.next = next;
        // As `check` keeps them: of the findings about the same thing in
        // the call, the first, wherever it is.
        sort(&mut out);
        dedup(&mut out);
        let on_pending = |s: Span| s.start >= at.start && s.start <= at.end;
        out.retain(|d| on_pending(d.primary.at.span));
        out
    }
}

/// Judge `pending`, a record an agent is about to send, as the next record
/// after `records` (its log so far, in order, with the log's `meta`): what
/// [`Live::judge`] finds on it, for a reader that has the records at hand.
pub fn judge_pending(
    linter: &Linter,
    meta: Option<&Meta>,
    records: Vec<Record>,
    pending: Record,
) -> Vec<Diagnostic> {
    let mut live = Live::new(meta.cloned());
    live.extend(records);
    live.judge(linter, pending)
}

/// The findings `check` reports on the call the last of `records` (a log
/// so far, in order, with the log's `meta`) belongs to, of the rules that
/// judge a record only once what follows it is known
/// ([`When::After`](crate::core::meta::When)), in file order: what the log,
/// as far as it is written, shows of them (a rule of these holds back what
/// the rest of the log could still change).
pub fn settled(linter: &Linter, meta: Option<&Meta>, records: Vec<Record>) -> Vec<Diagnostic> {
    let mut live = Live::new(meta.cloned());
    live.extend(records);
    let Some(c) = live.calls.get(live.current) else {
        return Vec::new();
    };
    let call = Call::build(live.meta.as_ref(), &c.records, linter.cast());
    let mut out = Vec::new();
    linter.run(&call, &mut out);
    out.retain(|d| crate::rules::looks_ahead(d.rule));
    sort(&mut out);
    dedup(&mut out);
    out
}

/// What finding the call of a record changed in [`Live`].
#[derive(Clone, Copy, PartialEq, Debug)]
enum Made {
    Nothing,
    /// The first call's entry (none was there).
    First,
    /// The first call's id (it had none).
    Named,
    /// A new call's entry.
    Call,
}

impl Made {
    /// `self`, unless it is [`Made::Nothing`].
    fn or(self, other: Made) -> Made {
        if self == Made::Nothing {
            other
        } else {
            self
        }
    }
}
