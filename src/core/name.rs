//! Names read from a log (speakers, addressees, functions, agents, call
//! ids), shared as a log repeats the same few on every line.

/// A name read from a log (a speaker, an addressee, a function, an agent,
/// a call id): shared, as a log repeats the same few names on every line.
pub type Name = std::sync::Arc<str>;

/// Keeps one copy of each name read from a log. Keyed with a hasher
/// seeded anew in each process ([`crate::core::hash`]): the names come
/// from the log.
#[derive(Debug, Default)]
pub struct Interner {
    names: crate::core::hash::HashSet<Name>,
}

impl Interner {
    /// The shared copy of `s`.
    pub fn name(&mut self, s: &str) -> Name {
        if let Some(n) = self.names.get(s) {
            return n.clone();
        }
        let n: Name = s.into();
        self.names.insert(n.clone());
        n
    }
}
