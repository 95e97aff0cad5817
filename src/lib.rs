//! callint: a rule linter and transcript analyzer for multi-agent voice calls.

pub mod addressing;
pub mod language;
