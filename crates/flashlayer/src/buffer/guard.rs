//! The guards a fix returns: a page pinned and latched for reading or for
//! writing, unfixed when dropped (the protocol in the module docs of
//! [`super`]).

use super::latch::{ReadLatch, WriteLatch};
use super::BufferPool;
use crate::policy::Policy;
use crate::store::PageStore;
use crate::types::{diff_ranges, DenseId, PageId};
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

/// A page pinned for reading; unpinned on drop. It stays on the thread
/// that fixed it:
///
/// ```compile_fail
/// use flashlayer::buffer::PageRef;
/// use flashlayer::policy::Lru;
/// use flashlayer::store::MemStore;
/// fn send<T: Send>() {}
/// send::<PageRef<'static, Lru, MemStore>>();
/// ```
#[derive(Debug)]
pub struct PageRef<'a, P: Policy, S: PageStore> {
    pub(super) pool: &'a BufferPool<P, S>,
    pub(super) frame: u32,
    pub(super) page: PageId,
    pub(super) dense: DenseId,
    /// For a miss, the frame's modification count when it was installed.
    pub(super) installed: Option<u64>,
    /// The frame's latch, held shared until drop; `None` for a hit
    /// counted in [`Readers`], whose count holds the latch.
    pub(super) guard: Option<ReadLatch<'a>>,
    /// Not `Send`: a counted hit is taken back in the stripe of the thread
    /// that counted it, found again at drop.
    pub(super) _thread: PhantomData<*const ()>,
}

impl<P: Policy, S: PageStore> Deref for PageRef<'_, P, S> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: this guard holds the frame's latch shared (its lock, or
        // its count as a reader), and the slice's borrow of the guard ends
        // before the latch is released.
        unsafe { self.pool.slab.page(self.frame) }
    }
}

impl<P: Policy, S: PageStore> Drop for PageRef<'_, P, S> {
    #[inline]
    fn drop(&mut self) {
        let counted = self.guard.take().is_none();
        self.pool.unfix(
            self.frame,
            self.page,
            self.dense,
            self.installed,
            counted,
            false,
            false,
            &[],
        );
    }
}

/// A page pinned for writing; unpinned on drop. Any mutable access marks it
/// modified, which makes the page dirty at unfix.
#[derive(Debug)]
pub struct PageMut<'a, P: Policy, S: PageStore> {
    pub(super) pool: &'a BufferPool<P, S>,
    pub(super) frame: u32,
    pub(super) page: PageId,
    pub(super) dense: DenseId,
    /// For a miss, the frame's modification count when it was installed.
    pub(super) installed: Option<u64>,
    pub(super) modified: bool,
    /// Copy of the page at fix time, when byte ranges are recorded.
    pub(super) before: Option<Vec<u8>>,
    /// The frame's latch, held exclusively until drop.
    pub(super) guard: Option<WriteLatch<'a>>,
}

impl<P: Policy, S: PageStore> Deref for PageMut<'_, P, S> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        debug_assert!(self.guard.is_some(), "the latch is held until drop");
        // SAFETY: this guard holds the frame's latch exclusively; a shared
        // borrow of the guard excludes its mutable slices meanwhile.
        unsafe { self.pool.slab.page(self.frame) }
    }
}

impl<P: Policy, S: PageStore> DerefMut for PageMut<'_, P, S> {
    fn deref_mut(&mut self) -> &mut [u8] {
        debug_assert!(self.guard.is_some(), "the latch is held until drop");
        self.modified = true;
        // SAFETY: this guard holds the frame's latch exclusively, and the
        // mutable borrow of the guard makes this the frame's only slice.
        unsafe { self.pool.slab.page_mut(self.frame) }
    }
}

impl<P: Policy, S: PageStore> Drop for PageMut<'_, P, S> {
    fn drop(&mut self) {
        let mut changed = Vec::new();
        if let (Some(before), true) = (&self.before, self.modified) {
            diff_ranges(before, self, &mut changed);
        }
        // The shadow goes while this writer still holds the frame, so it
        // never outlives its own writer.
        self.pool.shadow(self.frame).live = false;
        drop(self.guard.take());
        self.pool.unfix(
            self.frame,
            self.page,
            self.dense,
            self.installed,
            false,
            true,
            self.modified,
            &changed,
        );
    }
}
