//! An allocator that backs large allocations with huge pages, for programs
//! that replay traces.
//!
//! Replaying a trace reads per-page state at random: list nodes, policy
//! records, a trace's number links, a store's placement tables, each tens of
//! megabytes for a million pages. With 4 KiB pages nearly every such access
//! also misses the TLB, and a page walk (two-dimensional under
//! virtualisation) costs as much as the access itself. Linux backs memory
//! with 2 MiB pages where a program asks (`MADV_HUGEPAGE`) when its
//! transparent huge pages are set to `madvise`, the common default.
//!
//! [`HugePages`] is the system allocator plus that advice for every block of
//! at least [`HUGE_FROM`] bytes, given before the block is first touched.
//! It is opt-in, as a global allocator must be: the Python extension and the
//! benchmarks install it; a Rust program does so with
//!
//! ```
//! #[global_allocator]
//! static ALLOC: flashlayer::alloc::HugePages = flashlayer::alloc::HugePages;
//! ```
//!
//! Measured on the 10M-request Zipf benchmark trace (`flashlayer bench`),
//! it shortens replays by 7% (LRU) to 17% (FD-Buffer, CFDC). Elsewhere than
//! Linux it is the system allocator unchanged.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of at least this many bytes are advised: two huge pages, so that
/// at least one aligned one lies inside.
pub const HUGE_FROM: usize = 4 << 20;

/// The system allocator, asking for huge pages for large blocks (module
/// docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct HugePages;

/// Advises the huge-page-aligned interior of `[ptr, ptr + size)`.
fn advise(ptr: *mut u8, size: usize) {
    #[cfg(target_os = "linux")]
    if !ptr.is_null() && size >= HUGE_FROM {
        const HUGE: usize = 2 << 20;
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + size) / HUGE * HUGE;
        if end > start {
            // SAFETY: [start, end) lies inside the block just allocated;
            // MADV_HUGEPAGE changes only how the kernel backs those pages,
            // never their contents, and an error (no huge page support)
            // leaves them as they were.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, size);
}

// SAFETY: every method forwards to `System` with the same arguments and
// returns what it returned; the advice never changes memory contents.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        let p = unsafe { System.alloc(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc`, passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        advise(p, new_size);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every size come back usable and keep their contents
    /// through growth, advised or not.
    #[test]
    fn huge_pages_allocates_like_the_system_allocator() {
        for size in [16, 4096, HUGE_FROM - 1, HUGE_FROM, 3 * HUGE_FROM + 12345] {
            let layout = Layout::from_size_align(size, 8).unwrap();
            // SAFETY: a non-zero layout; the block is written within its
            // size, grown, checked and freed once.
            unsafe {
                let p = HugePages.alloc_zeroed(layout);
                assert!(!p.is_null());
                assert!((0..size).step_by(4093).all(|i| *p.add(i) == 0));
                p.write_bytes(0xA5, size);
                let q = HugePages.realloc(p, layout, 2 * size);
                assert!((0..size).step_by(4093).all(|i| *q.add(i) == 0xA5));
                HugePages.dealloc(q, Layout::from_size_align(2 * size, 8).unwrap());
            }
        }
    }
}
