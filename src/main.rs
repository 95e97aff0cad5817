//! The `callint` command line: [`callint::cli`], with the allocator it is
//! tuned for.

use std::process::ExitCode;

/// A log becomes hundreds of thousands of small allocations (records, lines,
/// texts) that live until the file is linted; mimalloc serves them with less
/// bookkeeping than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (its number in mimalloc 3's list).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long freed memory is kept before it goes back to the system, in
/// milliseconds. mimalloc's default, a second, kept the pages of the
/// model's freed temporaries resident beside the ones allocated next (on an
/// 80 MB log, a tenth of the peak); none at all gave back, and faulted in
/// again, the pages that each line's parse frees and the next one reuses
/// (seven times the page faults on a 320 MB log, and a second of the
/// kernel's time). A few milliseconds keep the one and lose the other.
const PURGE_DELAY_MS: std::ffi::c_long = 2;

fn main() -> ExitCode {
    // A delay set in mimalloc's own environment variable is left alone.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's documented options; no pointer is
        // passed, and an unknown option number is ignored by mimalloc.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    }
    ExitCode::from(callint::cli::run(std::env::args_os()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number `main` sets is mimalloc's purge delay: its
    /// default is 1000 ms, between two options whose defaults are 1 and 0.
    #[test]
    fn the_purge_delay_option_is_the_one_set() {
        // SAFETY: reads mimalloc options; no pointers involved.
        let around = unsafe {
            (
                libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY - 1),
                libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY),
                libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY + 1),
            )
        };
        assert_eq!(around, (1, 1000, 0));
    }
}
