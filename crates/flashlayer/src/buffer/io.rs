//! The pool's I/O outside its lock: a miss's read and a dirty victim's
//! write ([`crate::drive::Driver::place`]), and a flush's writes. The
//! protocol is stated in the module docs of [`super`].

use super::{hold, BufferPool, State, Undo, LOADING, NIL};
use crate::drive::{Placed, Tally, Written};
use crate::error::{Error, Result};
use crate::policy::Policy;
use crate::store::{Loaded, PageStore};
use crate::sync::MutexGuard;
use crate::types::{DenseId, Op, PageId};
use std::panic::{self, AssertUnwindSafe};
use std::time::Instant;

type Guard<'a, P, S> = MutexGuard<'a, State<P, S>>;

/// Pages being written outside the lock: per page its name for the store,
/// dense id, frame, modification count when the write began and (for a store
/// that logs changes) the byte ranges changed since its last write; and
/// their numbers in the pool, for a write-ahead log.
#[derive(Debug, Default)]
pub(super) struct Outgoing {
    pages: Vec<(PageId, DenseId, u32, u64)>,
    ranges: Vec<Vec<(u32, u32)>>,
    numbers: Vec<PageId>,
}

impl<P: Policy, S: PageStore> BufferPool<P, S> {
    /// A miss of page `d` outside the lock: marks it loading, reads it,
    /// places it ([`BufferPool::place`]). Returns its frame, pinned, and the
    /// frame's modification count once installed. On failure the page is as
    /// before: not loading, not resident.
    pub(super) fn miss<'a>(
        &'a self,
        mut st: Guard<'a, P, S>,
        page: PageId,
        d: DenseId,
        op: Op,
        deadline: Option<Instant>,
    ) -> Result<(u32, u64)> {
        st.frame_of[d as usize] = LOADING;
        let name = {
            let (driver, frames, _) = self.split(&mut st);
            driver.store_name(&frames, d)
        };
        let mut buf = st
            .spare
            .pop()
            .unwrap_or_else(|| vec![0u8; self.page_size].into_boxed_slice());
        drop(st);
        // A read or placement that panics leaves the page missing, not
        // loading, and wakes its waiters, who load it themselves.
        let loading = Undo(Some(|| {
            let mut st = self.lock();
            if st.frame_of[d as usize] == LOADING {
                st.frame_of[d as usize] = NIL;
            }
            drop(st);
            self.done.notify_all();
        }));
        let read = self.read(name, op, &mut buf);
        let st = self.lock();
        let (mut st, placed) = match read {
            Ok(dirty) => self.place(st, page, d, op, dirty, &buf, deadline),
            Err(e) => (st, Err(e)),
        };
        loading.disarm();
        st.spare.push(buf);
        if placed.is_err() {
            st.frame_of[d as usize] = NIL;
        }
        let placed = placed.map(|f| (f, st.versions[f as usize]));
        if let Ok((f, _)) = placed {
            st = self.read_ahead(st, f, name);
        }
        drop(st);
        self.done.notify_all();
        placed
    }

    /// Reads the pages that the miss's placement planned to read ahead
    /// ([`crate::drive::Driver::planned`]), those no other fix is loading,
    /// with the lock released, in one batch issued right after the read of
    /// `after`. Each is admitted unpinned into a free frame
    /// ([`crate::drive::Driver::admit_ahead`]) while the buffer has room:
    /// other misses may have taken the room meanwhile. A failed read admits
    /// none of them, as in the simulator. Meanwhile the pages are loading,
    /// so their fixers wait for this read alone, and the miss's own frame
    /// `f` stays pinned; a read that panics leaves the pages missing,
    /// wakes their waiters and unpins `f`.
    fn read_ahead<'a>(&'a self, mut st: Guard<'a, P, S>, f: u32, after: PageId) -> Guard<'a, P, S> {
        let (pages, names): (Vec<DenseId>, Vec<PageId>) = {
            let (planned, names) = st.driver.planned();
            planned
                .iter()
                .copied()
                .zip(names.iter().copied())
                .filter(|&(d, _)| st.frame_of[d as usize] == NIL)
                .unzip()
        };
        if pages.is_empty() {
            return st;
        }
        for &d in &pages {
            st.frame_of[d as usize] = LOADING;
        }
        drop(st);
        let loading = Undo(Some(|| {
            let mut st = self.lock();
            for &d in &pages {
                if st.frame_of[d as usize] == LOADING {
                    st.frame_of[d as usize] = NIL;
                }
            }
            drop(st);
            self.unpin(f);
            self.done.notify_all();
        }));
        let mut bytes = vec![0u8; names.len() * self.page_size];
        let read = match &self.io {
            Some(io) => io.read_ahead(after, &names, &mut bytes),
            None => self.store.lock().read_ahead(after, &names, &mut bytes),
        };
        loading.disarm();
        let mut st = self.lock();
        // The policy hears the hits gathered meanwhile first.
        self.drain(&mut st);
        st.turns += 1;
        for (&d, page) in pages.iter().zip(bytes.chunks_exact(self.page_size)) {
            let policy = st.driver.policy();
            let room = policy.len() < policy.capacity() && !st.free.is_empty();
            if read.is_err() || !room {
                st.frame_of[d as usize] = NIL;
                if read.is_ok() {
                    st.driver.read_unadmitted();
                }
                continue;
            }
            let g = st.free.pop().expect("a frame is free");
            // A free frame: nobody holds it, so this never waits.
            self.fill(g, page);
            self.publish(&mut st, d, g);
            let (driver, frames, _) = self.split(&mut st);
            driver.admit_ahead(&frames, d);
        }
        st
    }

    /// Reads page `name` into `buf`: through the store's shared I/O if it
    /// has one, else under the store's lock. Returns whether it enters
    /// dirty ([`Loaded`]).
    fn read(&self, name: PageId, op: Op, buf: &mut [u8]) -> Result<bool> {
        if let Some(io) = &self.io {
            io.read(name, buf)?;
            return Ok(false);
        }
        match self.store.lock().load(name, op, buf)? {
            Loaded::Page { dirty } => Ok(dirty),
            Loaded::Served => Err(Error::invalid(
                "the store served a request in place, which a buffer pool refuses",
            )),
        }
    }

    /// Announces the read page to the policy and admits it, writing the
    /// victims the policy asks written first outside the lock. Returns the
    /// lock and the page's frame, pinned and holding `buf`.
    #[expect(
        clippy::too_many_arguments,
        reason = "a miss's page, as read, and its deadline"
    )]
    fn place<'a>(
        &'a self,
        mut st: Guard<'a, P, S>,
        page: PageId,
        d: DenseId,
        op: Op,
        dirty: bool,
        buf: &[u8],
        deadline: Option<Instant>,
    ) -> (Guard<'a, P, S>, Result<u32>) {
        // The policy hears the hits gathered before this miss first.
        self.drain(&mut st);
        // A miss whose policy fails moves no counter (its read included):
        // what it moved in each of its critical sections is summed in
        // `mine`, as other requests move the counters while the lock is
        // released.
        let before = st.driver.tally();
        st.turns += 1;
        let hit = st.driver.access(d, op, || page);
        debug_assert!(!hit, "policy holds page {page} that has no frame");
        {
            let (driver, frames, _) = self.split(&mut st);
            driver.loaded(&frames, d);
        }
        let mut mine = st.driver.tally().since(before);
        // The policy's calls when it last heard of this miss.
        let mut heard = st.turns;
        // The victim written last, its cluster, the write (sorted as the
        // store saw it), what tells whether its pages were modified since
        // they were copied, and which were not.
        let mut written: Option<DenseId> = None;
        let mut pages = Vec::new();
        let mut next = Vec::new();
        let mut batch = Vec::new();
        let mut out = Outgoing::default();
        let mut unchanged = Vec::new();
        loop {
            self.drain(&mut st);
            // Asked now, not when the write ended: a wait below releases
            // the lock, and a page modified meanwhile must stay dirty.
            self.unchanged(&st, &out, &mut unchanged);
            if st.turns != heard {
                // Other requests reached the policy since it heard of this
                // miss: it is announced again, as a retry is, so the policy
                // evicts for it and not for them.
                st.driver.access(d, op, || page);
            }
            st.turns += 1;
            heard = st.turns;
            let before = st.driver.tally();
            let placed = panic::catch_unwind(AssertUnwindSafe(|| {
                let (driver, mut frames, gate) = self.split(&mut st);
                let done = written.map(|victim| Written {
                    victim,
                    cluster: &pages[1..],
                    batch: &batch,
                    unchanged: &unchanged,
                });
                driver.place(
                    d,
                    if dirty { Op::Write } else { op },
                    &mut frames,
                    gate,
                    done,
                    &mut next,
                )
            }));
            mine = mine.plus(st.driver.tally().since(before));
            // The driver put a claimed victim back; pages it evicted to
            // make room for reading ahead are gone, and their frames free.
            let placed = match placed {
                Ok(placed) => placed,
                Err(p) => {
                    Self::free_left(&mut st);
                    Self::undo_counts(&mut st, mine);
                    panic::resume_unwind(p)
                }
            };
            match placed {
                Err(Error::AllPinned(_)) if Self::writes_in_flight(&st) => {
                    // Every other frame is pinned; a write will free one.
                    let in_time;
                    (st, in_time) = self.wait_by(st, deadline);
                    if !in_time {
                        Self::undo_counts(&mut st, mine);
                        return (st, Err(Error::TimedOut));
                    }
                }
                // Refused before any claim: nothing left with a victim.
                Err(e) => {
                    Self::undo_counts(&mut st, mine);
                    return (st, Err(e));
                }
                Ok(Placed::Admitted(victim)) => {
                    let f = self.take_frame(&mut st, victim);
                    // A free frame or a claimed victim's (pin count 0): this
                    // never waits.
                    self.fill(f, buf);
                    self.install(&mut st, d, f);
                    return (st, Ok(f));
                }
                Ok(Placed::WriteFirst(v)) => {
                    std::mem::swap(&mut pages, &mut next);
                    {
                        let (driver, frames, _) = self.split(&mut st);
                        driver.dirty_batch(&pages, &frames, &mut batch);
                        if let [one] = &mut batch[..] {
                            // Alone, the victim goes as a single write.
                            one.0 = driver.store_name(&frames, one.1);
                        }
                    }
                    let wrote;
                    (st, wrote, out) = self.write_outside(st, &batch);
                    if let Err(e) = wrote {
                        Self::undo_counts(&mut st, mine);
                        return (st, Err(e));
                    }
                    written = Some(v.page);
                }
            }
        }
    }

    /// Takes back the counts `mine` of a miss that failed, if its policy
    /// may fail ([`Driver::request`]'s rule; a store's failure keeps the
    /// counts of the I/O it did).
    fn undo_counts(st: &mut State<P, S>, mine: Tally) {
        if st.driver.policy().may_fail() {
            st.driver.take_back(mine);
        }
    }

    /// Writes the pages of `batch` with the pool lock released meanwhile.
    /// Returns the lock, the write's outcome and the pages as they were
    /// copied ([`BufferPool::unchanged`] tells which are unchanged since).
    fn write_outside<'a>(
        &'a self,
        mut st: Guard<'a, P, S>,
        batch: &[(PageId, DenseId)],
    ) -> (Guard<'a, P, S>, Result<()>, Outgoing) {
        let out = self.start_write(&mut st, batch);
        drop(st);
        // A write that panics ends as a failed one: its pages stay dirty
        // and can be written (and evicted) again.
        let writing = Undo(Some(|| {
            let mut st = self.lock();
            self.unpin_written(&mut st, &out, false);
            drop(st);
            self.done.notify_all();
        }));
        let wrote = self.write_out(&out);
        writing.disarm();
        let mut st = self.lock();
        self.unpin_written(&mut st, &out, wrote.is_ok());
        self.done.notify_all();
        (st, wrote, out)
    }

    /// Per page of `out`, into `unchanged`: whether it is still in the
    /// frame it was copied from and nobody modified it since, so that the
    /// store holds it as it is now. Only true while the caller holds the
    /// pool lock without a break since asking: a modification is counted
    /// at its unfix, under the lock.
    fn unchanged(&self, st: &State<P, S>, out: &Outgoing, unchanged: &mut Vec<bool>) {
        unchanged.clear();
        unchanged.extend(out.pages.iter().map(|&(_, d, f, version)| {
            st.frame_of[d as usize] == f && st.versions[f as usize] == version
        }));
    }

    /// Marks the pages of `batch` as being written outside the lock and
    /// notes what tells afterwards whether they changed meanwhile.
    fn start_write(&self, st: &mut State<P, S>, batch: &[(PageId, DenseId)]) -> Outgoing {
        let mut out = Outgoing::default();
        for &(name, d) in batch {
            let f = st.frame_of[d as usize];
            st.writing[f as usize] = true;
            out.pages.push((name, d, f, st.versions[f as usize]));
            out.numbers.push(st.originals[d as usize]);
            if self.track {
                out.ranges.push(st.changes[f as usize].clone());
            }
        }
        out
    }

    /// Copies the pages and writes them: through the store's shared
    /// I/O if it has one, else under the store's lock. No pool lock is held.
    fn write_out(&self, out: &Outgoing) -> Result<()> {
        let ps = self.page_size;
        let mut bytes = vec![0u8; ps * out.pages.len()];
        for (chunk, &(_, _, f, _)) in bytes.chunks_exact_mut(ps).zip(&out.pages) {
            chunk.copy_from_slice(&hold(
                &self.frames,
                &self.slab,
                &self.shadows,
                &self.parking,
                f as usize,
            ));
        }
        let pairs: Vec<(PageId, &[u8])> = out
            .pages
            .iter()
            .zip(bytes.chunks_exact(ps))
            .map(|(&(name, ..), b)| (name, b))
            .collect();
        if let Some(wal) = &self.wal {
            for (&number, &(_, b)) in out.numbers.iter().zip(&pairs) {
                wal.before_write(number, b)?;
            }
        }
        if !out.ranges.is_empty() {
            // A store that logs changes gets each page with its ranges.
            let mut store = self.store.lock();
            for (&(name, b), ranges) in pairs.iter().zip(&out.ranges) {
                store.write_changed(name, b, ranges)?;
            }
            return Ok(());
        }
        match (&self.io, &pairs[..]) {
            (Some(io), [(name, b)]) => io.write(*name, b),
            (Some(io), _) => io.write_batch(&pairs),
            (None, [(name, b)]) => self.store.lock().write(*name, b),
            (None, _) => self.store.lock().write_batch(&pairs),
        }
    }

    /// Ends the write of `out`. If it `succeeded`, the pages nobody
    /// modified while it was in flight have their changed ranges cleared
    /// (the store has them as they are); a write that failed or panicked
    /// forgets nothing, so the next write of a page still dirty carries
    /// every range changed since the store last had it.
    fn unpin_written(&self, st: &mut State<P, S>, out: &Outgoing, succeeded: bool) {
        for &(_, _, f, version) in &out.pages {
            st.writing[f as usize] = false;
            if succeeded && st.versions[f as usize] == version && !out.ranges.is_empty() {
                st.changes[f as usize].clear();
            }
        }
    }

    /// [`BufferPool::flush`] for a store that does not listen: the dirty
    /// pages are pinned and written outside the lock (after any write of
    /// them already in flight), marked clean if nobody modified them
    /// meanwhile, and the store is flushed under its own lock only.
    pub(super) fn flush_outside<'a>(&'a self, mut st: Guard<'a, P, S>) -> Result<()> {
        let dirty = loop {
            let dirty = st.dirty_pages();
            if !dirty
                .iter()
                .any(|&d| st.writing[st.frame_of[d as usize] as usize])
            {
                break dirty;
            }
            st = self.wait(st);
        };
        if !dirty.is_empty() {
            let mut batch = Vec::new();
            {
                let (driver, frames, _) = self.split(&mut st);
                driver.dirty_batch(&dirty, &frames, &mut batch);
            }
            let (wrote, out);
            (st, wrote, out) = self.write_outside(st, &batch);
            wrote?;
            let mut unchanged = Vec::new();
            self.unchanged(&st, &out, &mut unchanged);
            let mut changed: Vec<DenseId> = batch
                .iter()
                .zip(&unchanged)
                .filter(|(_, &same)| !same)
                .map(|(&(_, d), _)| d)
                .collect();
            changed.sort_unstable();
            let (driver, frames, _) = self.split(&mut st);
            driver.wrote_dirty(&dirty, &frames, &batch, |d| {
                changed.binary_search(&d).is_err()
            });
        }
        drop(st);
        self.store.lock().flush()
    }
}
