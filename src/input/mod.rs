//! Inputs: bytes in, a [`Log`](crate::model::Log) and the problems found
//! reading it out. One module per input format.

pub mod locate;
pub mod native;
pub mod ts;

use crate::model::Anchor;

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
