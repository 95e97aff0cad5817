//! The integration tests, as one test binary: every module below links
//! against the library once, instead of once per file.

mod adoption;
mod architecture;
mod audit;
mod batch;
mod browser;
mod captions;
mod cli;
mod common;
mod compressed;
mod corpus;
mod follow;
mod formats;
mod genlog;
mod golden;
mod guard;
mod guard_agrees;
mod guard_cache;
mod guard_clients;
mod guard_feedback;
mod hostile;
mod inputs;
mod live_agrees;
mod output;
mod properties;
mod proxy;
mod real_files;
mod regressions;
mod report;
mod room;
mod rule_pages;
mod server;
mod sessions;
