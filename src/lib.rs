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

pub mod app;
pub mod cli;
pub mod core;
pub mod input;
pub mod lint;
pub mod model;
pub mod report;
pub mod room;
pub mod rules;
pub mod text;
