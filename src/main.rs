//! The `callint` command line: [`callint::cli`], with the allocator it is
//! tuned for.

use std::process::ExitCode;

/// A log becomes hundreds of thousands of small allocations (records, lines,
/// texts) that live until the file is linted; mimalloc serves them with less
/// bookkeeping than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    callint::app::alloc::tune();
    ExitCode::from(callint::cli::run(std::env::args_os()))
}
