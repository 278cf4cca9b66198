//! Fixing a page: the lock-free hit, the fix through the pool lock, the
//! latches a fix takes, and the fixes an engine uses besides `fix_read` and
//! `fix_write` (a try that never waits, a fix that waits for a frame). The
//! protocol is stated in the module docs of [`super`].

use super::latch::{ReadLatch, WriteLatch};
use super::{BufferPool, PageMut, PageRef, Undo, LOADING, NIL};
use crate::error::{Error, Result};
use crate::policy::Policy;
use crate::store::PageStore;
use crate::types::{DenseId, Op, PageId};
use std::marker::PhantomData;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

impl<P: Policy, S: PageStore> BufferPool<P, S> {
    /// Pins `page` for reading.
    // Inlined into the caller, as the guard's drop is: a call out of line
    // from another crate costs one thread's all-hit fixes about 40% of
    // their rate (13–15M/s against 24M/s).
    #[inline]
    pub fn fix_read(&self, page: PageId) -> Result<PageRef<'_, P, S>> {
        let (frame, dense, installed, counted) = self.fix(page, Op::Read, None)?;
        // A hit counted as a reader holds the latch already.
        let guard = if counted {
            None
        } else {
            Some(
                self.read_latch(frame, None)
                    .expect("a wait without a deadline ends with the latch"),
            )
        };
        Ok(PageRef {
            pool: self,
            frame,
            page,
            dense,
            installed,
            guard,
            _thread: PhantomData,
        })
    }

    /// [`BufferPool::fix_read`] with every wait bounded by `deadline`: past
    /// it, [`Error::TimedOut`], holding nothing. (`fix_read` is written out
    /// apart: through this function, one thread's all-hit fixes lose 5%.)
    fn fix_read_by(&self, page: PageId, deadline: Option<Instant>) -> Result<PageRef<'_, P, S>> {
        let (frame, dense, installed, counted) = self.fix(page, Op::Read, deadline)?;
        // A hit counted as a reader holds the latch already.
        let guard = if counted {
            None
        } else {
            match self.read_latch(frame, deadline) {
                Some(latch) => Some(latch),
                None => {
                    self.unpin(frame);
                    return Err(Error::TimedOut);
                }
            }
        };
        Ok(PageRef {
            pool: self,
            frame,
            page,
            dense,
            installed,
            guard,
            _thread: PhantomData,
        })
    }

    /// Frame `f`'s latch, shared through its word, once no writer holds it,
    /// or `None` past `deadline`. Out of line: inlined, its wait makes
    /// `fix_read` too large to inline well, which costs one thread's
    /// all-hit fixes about 40% of their rate (12M/s against 21M/s).
    #[cold]
    #[inline(never)]
    pub(super) fn read_latch(&self, f: u32, deadline: Option<Instant>) -> Option<ReadLatch<'_>> {
        let latch = &self.frames[f as usize].latch;
        if !self.parking.wait_until_by(|| latch.try_read(), deadline) {
            return None;
        }
        Some(ReadLatch {
            latch,
            parking: &self.parking,
        })
    }

    /// Pins `page` for writing. The page becomes dirty only if the guard is
    /// dereferenced mutably.
    pub fn fix_write(&self, page: PageId) -> Result<PageMut<'_, P, S>> {
        self.fix_write_by(page, None)
    }

    /// [`BufferPool::fix_write`] with every wait bounded by `deadline`, as
    /// [`BufferPool::fix_read_by`] does.
    fn fix_write_by(&self, page: PageId, deadline: Option<Instant>) -> Result<PageMut<'_, P, S>> {
        let (frame, dense, installed, bytes) = self.fix(page, Op::Write, deadline)?;
        match self.write_latch_by(frame, true, deadline) {
            Some(guard) => Ok(self.page_mut(frame, page, dense, installed, bytes, guard)),
            None => {
                self.unpin(frame);
                Err(Error::TimedOut)
            }
        }
    }

    /// The guard of a frame latched for writing.
    pub(super) fn page_mut<'a>(
        &'a self,
        frame: u32,
        page: PageId,
        dense: DenseId,
        installed: Option<u64>,
        bytes: bool,
        guard: WriteLatch<'a>,
    ) -> PageMut<'a, P, S> {
        // SAFETY: the frame's latch is held exclusively (`guard`) while
        // the bytes are read here.
        let page_bytes = unsafe { self.slab.page(frame) };
        let before = bytes.then(|| page_bytes.to_vec());
        PageMut {
            pool: self,
            frame,
            page,
            dense,
            installed,
            modified: false,
            before,
            guard: Some(guard),
        }
    }

    /// [`BufferPool::fix_read`], but when every frame is pinned it sleeps
    /// until a guard is dropped and tries again, for up to `timeout`, then
    /// fails with [`Error::AllPinned`]. Every other wait of the fix is
    /// bounded by the same deadline: for the pool lock, for the page's load
    /// by another fix, for a write that frees a frame, for the page's
    /// latch; past it the fix fails with [`Error::TimedOut`], holding
    /// nothing. A caller that holds pages while it waits may wait for
    /// itself; the timeout bounds that.
    pub fn fix_read_timeout(&self, page: PageId, timeout: Duration) -> Result<PageRef<'_, P, S>> {
        let deadline = Self::deadline(timeout);
        self.waiting(deadline, || self.fix_read_by(page, Some(deadline)))
    }

    /// [`BufferPool::fix_write`], waiting as [`BufferPool::fix_read_timeout`]
    /// does.
    pub fn fix_write_timeout(&self, page: PageId, timeout: Duration) -> Result<PageMut<'_, P, S>> {
        let deadline = Self::deadline(timeout);
        self.waiting(deadline, || self.fix_write_by(page, Some(deadline)))
    }

    /// The instant `timeout` from now; a timeout past the clock's range
    /// waits as long as it takes.
    fn deadline(timeout: Duration) -> Instant {
        let now = Instant::now();
        now.checked_add(timeout)
            .unwrap_or_else(|| now + Duration::from_secs(u32::MAX.into()))
    }

    pub(super) fn waiting<T>(
        &self,
        deadline: Instant,
        mut fix: impl FnMut() -> Result<T>,
    ) -> Result<T> {
        loop {
            // Counted as a sleeper before the try: a guard dropped after
            // the try's failure wakes the sleep below.
            let seen = self.parking.enter();
            // Counted out again however the try ends, a panic included: a
            // sleeper left counted would make every release wake all.
            let counted = Undo(Some(|| self.parking.leave()));
            let r = fix();
            let again = matches!(r, Err(Error::AllPinned(_))) && self.parking.sleep(seen, deadline);
            counted.now();
            if !again {
                return r;
            }
        }
    }

    /// `page`, pinned for reading, if it is resident and no writer holds
    /// it; `None` otherwise. Never reads, evicts or sleeps (PostgreSQL's
    /// `ConditionalLockBuffer` on a page in the pool). The policy hears of
    /// the fix as a hit at unfix, as of any.
    pub fn try_fix_read(&self, page: PageId) -> Option<PageRef<'_, P, S>> {
        let guard = |frame, dense, guard| PageRef {
            pool: self,
            frame,
            page,
            dense,
            installed: None,
            guard,
            _thread: PhantomData,
        };
        if !self.slow.load(Ordering::Relaxed) {
            if let Some(f) = self.table.get(page) {
                if let Some(d) = self.count_reader(f, page) {
                    return Some(guard(f, d, None));
                }
            }
        }
        let st = self.lock();
        let &d = st.ids.get(&page)?;
        let f = st.frame_of[d as usize];
        let latch = &self.frames.get(f as usize)?.latch;
        if !latch.try_read() {
            return None;
        }
        // Pinned under the pool lock, where frames are claimed.
        self.pin(f);
        drop(st);
        Some(guard(
            f,
            d,
            Some(ReadLatch {
                latch,
                parking: &self.parking,
            }),
        ))
    }

    /// `page`, pinned for writing, if it is resident and no guard holds it;
    /// `None` otherwise. Never reads, evicts or sleeps.
    pub fn try_fix_write(&self, page: PageId) -> Option<PageMut<'_, P, S>> {
        // A busy pool lock may be held across I/O (a listening store's miss).
        let st = self.try_lock()?;
        let &d = st.ids.get(&page)?;
        let f = st.frame_of[d as usize];
        if f as usize >= self.frames.len() {
            return None;
        }
        let bytes = self.track || st.recording.as_ref().is_some_and(|r| r.bytes);
        let latch = self.try_write_latch(f)?;
        // Pinned under the pool lock, where frames are claimed.
        self.pin(f);
        drop(st);
        Some(self.page_mut(f, page, d, None, bytes, latch))
    }

    /// Pins the page, loading it on a miss, which is announced with `op`.
    /// Returns (frame, dense id, for a miss the frame's modification count
    /// when the page was installed, and for a write whether byte ranges
    /// are being recorded, for a read whether it is a hit counted in
    /// [`Readers`]).
    /// `deadline` bounds every wait of the fix but the latch's
    /// ([`Error::TimedOut`]); none: no limit.
    pub(super) fn fix(
        &self,
        page: PageId,
        op: Op,
        deadline: Option<Instant>,
    ) -> Result<(u32, DenseId, Option<u64>, bool)> {
        // A hit: found and pinned without a lock. The read hit is taken
        // here rather than in `fix_read`: there, with its own guard built
        // apart, it halves one thread's all-hit rate.
        if !self.slow.load(Ordering::Relaxed) {
            if let Some(f) = self.table.get(page) {
                if !op.is_write() {
                    if let Some(d) = self.count_reader(f, page) {
                        return Ok((f, d, None, true));
                    }
                } else if let Some(d) = self.frames[f as usize].pin_if_holding(page, &self.parking)
                {
                    return Ok((f, d, None, self.track));
                }
            }
        }
        self.fix_locked(page, op, deadline)
    }

    /// [`BufferPool::fix`] under the pool lock: a page that no hit found.
    #[inline(never)]
    fn fix_locked(
        &self,
        page: PageId,
        op: Op,
        deadline: Option<Instant>,
    ) -> Result<(u32, DenseId, Option<u64>, bool)> {
        let mut st = self.lock_by(deadline)?;
        let bytes = self.track || st.recording.as_ref().is_some_and(|r| r.bytes);
        let d = loop {
            let d = st.dense(page)?;
            match st.frame_of[d as usize] {
                NIL => break d,
                LOADING => {
                    let in_time;
                    (st, in_time) = self.wait_by(st, deadline);
                    if !in_time {
                        return Err(Error::TimedOut);
                    }
                }
                f => {
                    self.pin(f);
                    return Ok((f, d, None, bytes && op.is_write()));
                }
            }
        };
        let (f, installed) = if st.driver.listening() {
            self.drain(&mut st);
            let f = self.miss_whole(&mut st, page, d, op)?;
            (f, st.versions[f as usize])
        } else {
            self.miss(st, page, d, op, deadline)?
        };
        Ok((f, d, Some(installed), bytes && op.is_write()))
    }

    /// A read hit on `page` in frame `f`: counts a reader of the frame in
    /// this thread's stripe, then checks that the frame holds the page and
    /// no writer holds its latch. Returns the page's dense id; else takes
    /// the count back.
    #[inline]
    pub(super) fn count_reader(&self, f: u32, page: PageId) -> Option<DenseId> {
        self.readers.enter(f);
        let frame = &self.frames[f as usize];
        if frame.page.load(Ordering::SeqCst) == page && !frame.latch.written() {
            return Some(frame.dense.load(Ordering::Relaxed));
        }
        self.leave(f);
        None
    }

    /// Takes back this thread's count of a reader of frame `f`, waking a
    /// writer that waits for the frame's readers to leave.
    #[inline]
    pub(super) fn leave(&self, f: u32) {
        self.readers.leave(f);
        // A writer may wait for this reader, a waiting fix for a frame.
        self.parking.wake();
    }

    /// Frame `f`'s latch, exclusively: its word (once no reader holds it
    /// through the word), then, with `shadow`, a copy of the page for
    /// write-backs ([`BufferPool::flush`]), then the wait until no counted
    /// reader is left. A reader counted after the writer bit sees it and
    /// waits for the word instead. The shadow is copied before the wait:
    /// a write-back that meets this writer reads the shadow at once rather
    /// than waiting for readers that may wait for the write-back.
    pub(super) fn write_latch(&self, f: u32, shadow: bool) -> WriteLatch<'_> {
        self.write_latch_by(f, shadow, None)
            .expect("a wait without a deadline ends with the latch")
    }

    /// [`BufferPool::write_latch`] until `deadline` at the latest: `None`
    /// past it, the latch released and the shadow gone again.
    pub(super) fn write_latch_by(
        &self,
        f: u32,
        shadow: bool,
        deadline: Option<Instant>,
    ) -> Option<WriteLatch<'_>> {
        let frame = &self.frames[f as usize];
        if !self
            .parking
            .wait_until_by(|| frame.latch.try_write(), deadline)
        {
            return None;
        }
        let latch = WriteLatch {
            latch: &frame.latch,
            parking: &self.parking,
        };
        if shadow {
            self.copy_shadow(f);
        }
        if self.readers.any(f)
            && !self
                .parking
                .wait_until_by(|| !self.readers.any(f), deadline)
        {
            if shadow {
                self.shadow(f).live = false;
            }
            return None;
        }
        Some(latch)
    }

    /// Frame `f`'s latch exclusively if nobody holds it, counted readers
    /// included, with the shadow copied; else `None`, having waited for
    /// nothing.
    pub(super) fn try_write_latch(&self, f: u32) -> Option<WriteLatch<'_>> {
        let frame = &self.frames[f as usize];
        if !frame.latch.try_write() {
            return None;
        }
        let latch = WriteLatch {
            latch: &frame.latch,
            parking: &self.parking,
        };
        if self.readers.any(f) {
            // Dropped: the latch goes, and a reader that backed off wakes.
            return None;
        }
        self.copy_shadow(f);
        Some(latch)
    }

    /// Copies frame `f`, whose latch the caller holds exclusively, into its
    /// shadow for write-backs, and wakes a write-back waiting for it.
    fn copy_shadow(&self, f: u32) {
        // SAFETY: the latch is held exclusively; counted readers may still
        // read the bytes, as this copy does.
        let bytes = unsafe { self.slab.page(f) };
        let mut copy = self.shadow(f);
        copy.bytes.clear();
        copy.bytes.extend_from_slice(bytes);
        copy.live = true;
        drop(copy);
        self.parking.wake();
    }

    /// Unpins frame `f`: a counted reader's count, or its pin count.
    #[inline]
    pub(super) fn release(&self, f: u32, counted: bool) {
        if counted {
            self.leave(f);
        } else {
            self.unpin(f);
        }
    }

    #[inline]
    pub(super) fn pin(&self, f: u32) {
        self.frames[f as usize].pins.fetch_add(1, Ordering::Acquire);
    }

    #[inline]
    pub(super) fn unpin(&self, f: u32) {
        self.frames[f as usize].pins.fetch_sub(1, Ordering::SeqCst);
        // A waiting fix may wait for a frame.
        self.parking.wake();
    }
}

#[cfg(all(test, not(any(feature = "shuttle", feature = "loom"))))]
mod tests {
    use super::super::hits::NO_PAGE;
    use super::*;
    use crate::device::DeviceModel;
    use crate::policy::Lru;
    use crate::store::MemStore;

    /// A write hit that pins a frame whose page is being claimed (the
    /// page table still names it there) takes its pin back: a fix that
    /// meanwhile found every frame pinned sleeps, and must be woken by
    /// that release, as by any other (the wake-up rule, `docs/DESIGN.md`).
    #[test]
    fn a_write_hit_that_takes_back_a_stale_pin_wakes_the_sleepers() {
        let pool = BufferPool::new(Lru::new(1), MemStore::new(8, DeviceModel::unit())).unwrap();
        pool.fix_write(1).unwrap()[0] = 1;
        let f = pool.table.get(1).expect("page 1 is resident");
        // A sleeper, as a timed fix that saw every frame pinned.
        let before = pool.parking.enter();
        // The claim of an eviction has unnamed the frame.
        pool.frames[f as usize]
            .page
            .store(NO_PAGE, Ordering::SeqCst);
        // A write hit finds page 1 in the page table: the pin is taken back.
        let hit = pool.frames[f as usize].pin_if_holding(1, &pool.parking);
        assert!(hit.is_none(), "the frame no longer names page 1");
        assert_eq!(pool.frames[f as usize].pins.load(Ordering::SeqCst), 0);
        let after = pool.parking.enter();
        pool.parking.leave();
        pool.parking.leave();
        assert!(after > before, "the sleeper was woken");
        pool.frames[f as usize].page.store(1, Ordering::SeqCst);
    }
}
