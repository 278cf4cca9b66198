//! Every frame's bytes in one allocation. A hit reads its page's bytes, and
//! with thousands of frames allocated one by one nearly every such read also
//! misses the TLB; in one block, huge pages can back them
//! ([`crate::alloc::HugePages`] advises blocks of 4 MiB and more), as
//! PostgreSQL's shared buffers are one region. Measured with 10,000 frames
//! of 4 KiB (`flashlayer bench --pool`, all hits, one thread): the numbers
//! are in the README's performance section.
//!
//! Frame `f` is bytes `f × page_size .. (f + 1) × page_size`. The slab hands
//! out a frame's bytes only to a caller that holds that frame's latch
//! (`super::Frame::latch`): shared for reading, exclusive for writing.

use std::ptr::NonNull;

/// The bytes of every frame (module docs).
#[derive(Debug)]
pub(super) struct Slab {
    start: NonNull<u8>,
    frames: usize,
    page_size: usize,
}

// SAFETY: the slab owns its bytes, which are plain `u8`s. Frames do not
// overlap, and every access to a frame's bytes happens under that frame's
// latch (the callers' contract on `page` and `page_mut`), which orders the
// accesses of different threads.
unsafe impl Send for Slab {}
// SAFETY: as for `Send`: shared access hands out bytes only under latches.
unsafe impl Sync for Slab {}

impl Slab {
    /// `frames` zeroed frames of `page_size` bytes, or `None` if the memory
    /// cannot be had.
    pub(super) fn new(frames: usize, page_size: usize) -> Option<Self> {
        let len = frames.checked_mul(page_size)?;
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(len).ok()?;
        bytes.resize(len, 0u8);
        let raw = Box::into_raw(bytes.into_boxed_slice());
        Some(Slab {
            start: NonNull::new(raw.cast::<u8>())?,
            frames,
            page_size,
        })
    }

    /// Frame `f`'s bytes.
    ///
    /// # Safety
    /// The caller holds frame `f`'s latch, shared or exclusive, for as long
    /// as the slice lives, and makes no `page_mut` of `f` meanwhile.
    #[inline]
    pub(super) unsafe fn page(&self, f: u32) -> &[u8] {
        let f = f as usize;
        assert!(f < self.frames, "frame {f} of {}", self.frames);
        // SAFETY: the range lies inside the allocation (checked above);
        // the caller's latch keeps every writer away while the slice lives.
        unsafe {
            std::slice::from_raw_parts(self.start.as_ptr().add(f * self.page_size), self.page_size)
        }
    }

    /// Frame `f`'s bytes, to change.
    ///
    /// # Safety
    /// The caller holds frame `f`'s latch exclusively for as long as the
    /// slice lives, and makes no other slice of `f` meanwhile.
    #[inline]
    #[expect(
        clippy::mut_from_ref,
        reason = "the frame's exclusive latch is the borrow"
    )]
    pub(super) unsafe fn page_mut(&self, f: u32) -> &mut [u8] {
        let f = f as usize;
        assert!(f < self.frames, "frame {f} of {}", self.frames);
        // SAFETY: the range lies inside the allocation (checked above) and
        // overlaps no other frame; the caller's exclusive latch keeps every
        // other reader and writer of this frame away while the slice lives.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.start.as_ptr().add(f * self.page_size),
                self.page_size,
            )
        }
    }
}

impl Drop for Slab {
    fn drop(&mut self) {
        let len = self.frames * self.page_size;
        // SAFETY: `start` and `len` are the boxed slice `new` leaked, and
        // nothing borrows it once the slab is dropped.
        drop(unsafe {
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.start.as_ptr(), len))
        });
    }
}
