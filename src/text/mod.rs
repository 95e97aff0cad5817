//! Words and what they say: tokens, phrase lists, lexicons, language
//! identification, addressing and claims. Knows no record or format.

pub mod addressing;
pub mod claims;
pub mod instructions;
// Building and encoding the tables run in build.rs (and in the test that
// checks the embedded copy); the library itself only reads them.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) mod langmodel;
pub mod language;
pub mod lexicon;
pub mod others;
pub mod patterns;
pub mod phrases;
pub mod words;
