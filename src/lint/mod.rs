//! Linting one file: the engine that runs the rules, configuration and
//! rule selection, inline suppressions, fingerprints and baselines.

pub mod baseline;
pub mod config;
pub mod engine;
pub mod fingerprint;
pub mod live;
pub mod suppress;
