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

/// Whether [`no_huge_pages`] turned huge pages off in this process.
static HUGE_PAGES_OFF: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Ask the kernel to back this process's later memory with no transparent
/// huge pages. mimalloc asks for them on the memory it reserves, and the
/// kernel then zeroes two megabytes at the first touch of each. A run that
/// lives a few milliseconds and holds a few megabytes (the guard, once per
/// tool call, going on from its kept state) never wins that back in fewer
/// TLB misses: the zeroing was a sixth of its time. The switch is
/// process-wide and read by the kernel at each page fault, so it holds for
/// memory mimalloc reserved before `main` too, from the next fault on. For
/// the binary only: a library does not change how its host's memory is
/// served. mimalloc's own `MIMALLOC_ALLOW_THP`, when set, decides instead.
pub fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() && set_thp_disable(true) {
        HUGE_PAGES_OFF.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Undo [`no_huge_pages`], if it was done, for a run that turns out long:
/// one that reads tens of megabytes (the guard reading a whole session
/// afresh) is a few percent faster with huge pages. Does nothing in a
/// process that did not turn them off.
pub fn huge_pages_again() {
    #[cfg(target_os = "linux")]
    if HUGE_PAGES_OFF.swap(false, std::sync::atomic::Ordering::Relaxed) {
        set_thp_disable(false);
    }
}

/// PR_SET_THP_DISABLE; true when the kernel took it.
#[cfg(target_os = "linux")]
fn set_thp_disable(disable: bool) -> bool {
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and changes only how
    // this process's later page faults are served; a kernel that does not
    // know it returns an error, which changes nothing.
    unsafe {
        libc::prctl(
            libc::PR_SET_THP_DISABLE,
            libc::c_ulong::from(disable),
            0,
            0,
            0,
        ) == 0
    }
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

    /// The guard's switch reaches the kernel, and is undone only where it
    /// was made.
    #[cfg(target_os = "linux")]
    #[test]
    fn huge_pages_go_off_and_on_again_only_when_turned_off() {
        if std::env::var_os("MIMALLOC_ALLOW_THP").is_some() {
            return;
        }
        // SAFETY: reads a process flag; no pointers involved.
        let off = || unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        let before = off();
        huge_pages_again();
        assert_eq!(off(), before, "not turned off here: left alone");
        no_huge_pages();
        assert_eq!(off(), 1);
        huge_pages_again();
        assert_eq!(off(), 0);
    }

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
