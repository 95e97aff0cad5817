//! The integration tests, as one test binary: every module below links
//! against the library once, instead of once per file.

mod batch;
mod browser;
mod cli;
mod common;
mod corpus;
mod formats;
mod genlog;
mod hostile;
mod inputs;
mod properties;
mod regressions;
mod report;
mod room;
mod rule_pages;
