//! Codex CLI rollout files.

use super::{Options, Parsed};

/// Read a Codex CLI rollout file.
pub fn parse(bytes: &[u8], opts: &Options) -> Parsed {
    let _ = (bytes, opts);
    Parsed::default()
}
