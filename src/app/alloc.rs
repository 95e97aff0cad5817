//! The allocator callint is tuned for: mimalloc, set as the global
//! allocator by the binary and by the Python module (each in its own
//! crate root), its options set here at start ([`tune`]) and for each
//! batch by the size of its inputs ([`for_inputs`]).

/// mimalloc's `purge_delay` option (its number in mimalloc 3's list).
pub(crate) const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long freed memory is kept before it goes back to the system, in
/// milliseconds. mimalloc's default, a second, kept the pages of the
/// model's freed temporaries resident beside the ones allocated next (on an
/// 80 MB log, a tenth of the peak); none at all gave back, and faulted in
/// again, the pages that each line's parse frees and the next one reuses
/// (seven times the page faults on a 320 MB log, and a second of the
/// kernel's time). A few milliseconds keep the one and lose the other.
const PURGE_DELAY_MS: std::ffi::c_long = 2;

/// The delay for runs over small inputs only: mimalloc's own default. A
/// batch of many small files frees each file's memory and takes it again
/// for the next one; given back after a few milliseconds, it was faulted in
/// again file after file, and the kernel's page work (and the other cores'
/// cache flushes it forces) cost a batch of 6,600 logs a tenth of its time
/// on two cores, more than on one.
const SMALL_INPUTS_PURGE_DELAY_MS: std::ffi::c_long = 1000;

/// Inputs up to this size are small: a run of several inputs whose largest
/// is no larger keeps freed memory for a second, mimalloc's default.
pub const SMALL_INPUT: u64 = 32 << 20;

/// Set mimalloc's options for callint's work, before anything is
/// allocated in earnest. A delay set in mimalloc's own environment
/// variable is left alone.
pub fn tune() {
    set_purge_delay(PURGE_DELAY_MS);
}

/// Set the purge delay for a run of `count` inputs whose largest is
/// `largest` bytes: the one for many small files when there are several
/// and none is large, else the short one of [`tune`] (a single input has
/// no next file to keep memory for, and keeps its peak low). The module
/// of a long-lived process sets it for each run.
pub fn for_inputs(count: usize, largest: u64) {
    set_purge_delay(if count > 1 && largest <= SMALL_INPUT {
        SMALL_INPUTS_PURGE_DELAY_MS
    } else {
        PURGE_DELAY_MS
    });
}

/// Let the kernel back this process's later memory with transparent huge
/// pages, or not. mimalloc asks for them on the memory it reserves, and the
/// kernel then zeroes two megabytes at the first touch of each. A run that
/// lives a few milliseconds and holds a few megabytes (the guard, once per
/// tool call, going on from its kept state) never wins that back in fewer
/// TLB misses: the zeroing was a sixth of its time. A run that reads tens
/// of megabytes (the guard reading a whole session afresh) is a few
/// percent faster with them. The switch is process-wide and read by the
/// kernel at each page fault, so it holds for memory mimalloc reserved
/// before `main` too, from the next fault on. mimalloc's own
/// `MIMALLOC_ALLOW_THP`, when set, decides instead.
pub fn huge_pages(allow: bool) {
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: PR_SET_THP_DISABLE takes plain integers and changes only
        // how this process's later page faults are served; a kernel that
        // does not know it returns an error, which changes nothing.
        unsafe {
            libc::prctl(
                libc::PR_SET_THP_DISABLE,
                libc::c_ulong::from(!allow),
                0,
                0,
                0,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = allow;
}

fn set_purge_delay(ms: std::ffi::c_long) {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's documented options; no pointer is
        // passed, and an unknown option number is ignored by mimalloc.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, ms) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number `tune` sets is mimalloc's purge delay: its
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
