//! The hash maps and sets of callint: std's, with foldhash's hasher in
//! place of SipHash. Most keys hashed in a lint are short (names, ids,
//! words), for which SipHash cost several percent of a whole run; foldhash
//! is several times faster on them and, seeded anew in every process, still
//! leaves no fixed set of keys that collide for a crafted log to use.
//!
//! The names are std's, so that a file switches by its `use` line alone;
//! build one with `default()` (or `collect()`), as `new()` is std's hasher's.

/// [`std::collections::HashMap`] with foldhash's hasher.
pub type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// [`std::collections::HashSet`] with foldhash's hasher.
pub type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;
