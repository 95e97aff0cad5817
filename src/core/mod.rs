//! The bottom layer: source positions, findings, rule metadata and the
//! escaping of untrusted text. It knows nothing of calls or formats.

pub mod bytes;
pub mod diagnostic;
pub mod escape;
pub mod hash;
pub mod json;
pub mod lines;
pub mod locate;
pub mod meta;
pub mod name;
pub mod span;
