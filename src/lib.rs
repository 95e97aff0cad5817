//! callint: a rule linter and transcript analyzer for multi-agent voice calls.
//!
//! The data flows one way: bytes -> [`input`] -> [`model`] -> [`engine`]
//! (every rule in [`rules`]) -> [`diagnostic::Diagnostic`]s -> [`report`].
//! [`room`] joins what the engine found in several logs of one call,
//! from a [`digest`] of each call's lines that the engine makes on the way;
//! [`batch`] runs all of it over many inputs, for the command line
//! ([`cli`]) and the Python module alike. The readers know nothing of the
//! rules: a format says which evidence it carries
//! ([`input::Format::evidence`]), and [`rules::cannot_show`] names the
//! rules that cannot fire on it. Text escaping ([`escape`]) is shared by
//! the readers' messages and the reports.

pub mod addressing;
pub mod alloc;
pub mod baseline;
pub mod batch;
pub mod cache;
pub mod claims;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub mod digest;
pub mod engine;
pub mod escape;
pub mod fingerprint;
pub mod follow;
pub mod guard;
#[doc(hidden)]
pub mod harness;
pub mod input;
pub mod language;
// Building and encoding the tables run in build.rs (and in the test that
// checks the embedded copy); the library itself only reads them.
#[cfg_attr(not(test), allow(dead_code))]
mod langmodel;
pub mod lexicon;
pub mod model;
pub mod proxy;
pub mod report;
pub mod room;
pub mod rules;
pub mod suppress;
pub mod text;
pub mod turns;
pub mod walk;
pub mod words;
