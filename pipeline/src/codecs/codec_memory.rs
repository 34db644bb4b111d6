//! How the C codecs' memory is kept between renders. libaom allocates ~10 MB of context and frame buffers
//! through glibc's `malloc` for every AVIF encode and frees them after. glibc serves blocks above its mmap
//! threshold with fresh `mmap`s and gives freed heap tops back above its trim threshold; its dynamic
//! thresholds do not settle for libaom's pattern, so every encode page-faults its buffers in again: ~3,700
//! faults and ~8% of an 800 px AVIF render (BENCHMARKS.md, "The C codecs' memory").
//!
//! `keep_codec_buffers` fixes both thresholds, once, at process start: blocks up to 32 MiB (glibc's
//! largest heap block) come from the arenas, and an arena keeps up to 64 MiB of freed top. Larger blocks
//! (a huge AVIF output) are still mapped and unmapped.
//!
//! It also gives glibc one arena. glibc's default is an arena per thread (up to eight per core), each warmed
//! by its own renders: a server's first AVIF render on each render thread faulted ~5,000 pages in again and
//! took 100–140 ms against a steady 85, for the first two to four renders after start (BENCHMARKS.md, "The
//! first renders after start"), and every arena could keep 64 MiB of freed top. With one, the first render
//! warms the buffers every later one reuses, whichever thread it runs on, and one arena's top is all that is
//! kept. What contends for its lock is small: Rust's allocations go to mimalloc, small C blocks to glibc's
//! per-thread cache, and a codec takes a few large blocks per render.
//!
//! The service, the worker, the benches and `render_file` all call it, so the pipeline is measured as it
//! runs.

/// glibc's `mallopt` parameter numbers (malloc.h).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_TRIM_THRESHOLD: libc::c_int = -1;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_MMAP_THRESHOLD: libc::c_int = -3;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_ARENA_MAX: libc::c_int = -8;

/// Blocks up to this size come from the arenas (glibc's `DEFAULT_MMAP_THRESHOLD_MAX` on 64-bit).
pub const MMAP_THRESHOLD: usize = 32 << 20;
/// Freed memory an arena keeps at its top before giving it back.
pub const TRIM_THRESHOLD: usize = 64 << 20;

/// Sets glibc's mmap and trim thresholds and its single arena for the codecs (see the module documentation). Does nothing when
/// the operator set glibc's malloc tunables (`GLIBC_TUNABLES` naming `glibc.malloc.`), or off glibc.
/// Returns whether it changed them. Call it first thing in `main`, before other threads allocate.
pub fn keep_codec_buffers() -> bool {
    let operator_decides = std::env::var("GLIBC_TUNABLES").is_ok_and(|tunables| tunables.contains("glibc.malloc."));
    !operator_decides && set_thresholds()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set_thresholds() -> bool {
    // SAFETY: mallopt only sets allocator parameters; every value is within glibc's accepted ranges.
    unsafe {
        libc::mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD as libc::c_int) == 1
            && libc::mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD as libc::c_int) == 1
            && libc::mallopt(M_ARENA_MAX, 1) == 1
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_thresholds() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn glibc_takes_every_setting() {
        // The largest mmap threshold glibc accepts is its own maximum; a larger one would make mallopt fail.
        assert!(set_thresholds());
    }
}
