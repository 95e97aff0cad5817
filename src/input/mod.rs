//! Inputs: bytes in, a [`Log`](crate::model::Log) and the problems found
//! reading it out. One module per input format.

pub mod locate;
pub mod native;
pub mod ts;

use crate::model::{Anchor, Log};

/// The input formats callint reads (LOG-FORMAT.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// One JSON record per line, as an agent's client records it.
    Native,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Native => "native",
        }
    }
}

/// What an input yields: one log per point of view (a native log has one,
/// a transcript one per agent in it), and the problems found reading it.
#[derive(Debug, Default)]
pub struct Parsed {
    pub logs: Vec<Log>,
    pub problems: Vec<Problem>,
}

/// The format of a file, from its name and its first bytes.
pub fn detect(_name: &str, _bytes: &[u8]) -> Format {
    Format::Native
}

/// Read `bytes` as `format`.
pub fn parse(format: Format, bytes: &[u8]) -> Parsed {
    match format {
        Format::Native => {
            let (log, problems) = native::parse(bytes);
            Parsed {
                logs: vec![log],
                problems,
            }
        }
    }
}

/// Something in the input that breaks the log format. Reported as
/// `invalid-record`.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub at: Anchor,
    pub message: String,
    pub help: Option<String>,
}

impl Problem {
    pub fn new(at: Anchor, message: String, help: Option<String>) -> Problem {
        Problem { at, message, help }
    }
}
