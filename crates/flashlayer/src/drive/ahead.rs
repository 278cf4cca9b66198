//! Reading pages ahead of requests ([`Policy::read_ahead`], ACE's
//! prefetching variant): after a dirty victim the driver evicts more of the
//! policy's next clean victims and reads the pages numbered after the
//! requested one into their frames, counting which of them are requested
//! while still buffered.

use super::{Driver, Frames, Gate};
use crate::policy::Policy;
use crate::store::PageStore;
use crate::types::{DenseId, IoKind, PageId};

/// What reading ahead keeps between misses.
#[derive(Debug, Default)]
pub(super) struct ReadAhead {
    /// The pages a miss reads ahead, and their numbers.
    pages: Vec<DenseId>,
    numbers: Vec<PageId>,
    /// The pages' bytes, for a caller that keeps none (the simulator).
    buf: Vec<u8>,
    /// Per dense id: read ahead and not requested since.
    unused: Vec<bool>,
}

impl ReadAhead {
    /// `page` is requested, a `hit` or not: whether it was read ahead and
    /// not requested since (it is not any more).
    #[inline]
    pub(super) fn requested(&mut self, page: DenseId, hit: bool) -> bool {
        match self.unused.get_mut(page as usize) {
            Some(unused) => std::mem::take(unused) && hit,
            None => false,
        }
    }

    /// `page` was read ahead.
    fn unused(&mut self, page: DenseId) {
        let i = page as usize;
        if self.unused.len() <= i {
            self.unused
                .resize((i + 1).max(2 * self.unused.len()), false);
        }
        self.unused[i] = true;
    }
}

impl<P: Policy, S: PageStore> Driver<P, S> {
    /// Evicts up to `n` more pages after a dirty victim, for the pages a
    /// miss reads ahead ([`Policy::read_ahead`]): each the policy's next
    /// victim while that is clean and the gate lets it go. They are then in
    /// [`Driver::left`].
    pub(super) fn make_room(&mut self, n: usize, gate: &mut impl Gate) {
        for _ in 0..n {
            match self.policy.evict(|p| gate.evictable(p)) {
                Some(v) if !v.dirty && gate.claim(v.page) => self.left.push(v.page),
                Some(v) => {
                    self.policy.reinstate(v);
                    break;
                }
                None => break,
            }
        }
    }

    /// Plans reading ahead of requests ([`Policy::read_ahead`]): the pages
    /// numbered 1 to `n` after the requested `page` that the caller knows
    /// and the buffer does not hold, while it has room for them
    /// ([`Driver::planned`]).
    pub(super) fn plan_ahead<F: Frames>(&mut self, page: DenseId, n: usize, frames: &F) {
        self.ahead.pages.clear();
        self.ahead.numbers.clear();
        for delta in 1..=n as i64 {
            if self.policy.len() + self.ahead.pages.len() >= self.policy.capacity() {
                break;
            }
            match frames.neighbour(page, delta) {
                Some(q) if !self.policy.contains(q) => {
                    let number = self.number(frames, q);
                    self.ahead.pages.push(q);
                    self.ahead.numbers.push(number);
                }
                _ => {}
            }
        }
    }

    /// The pages the last [`Driver::place`] planned to read ahead, and
    /// their names for the store; none unless its victim was dirty and the
    /// policy reads ahead.
    pub fn planned(&self) -> (&[DenseId], &[PageId]) {
        (&self.ahead.pages, &self.ahead.numbers)
    }

    /// Reads the planned pages in one batch ([`PageStore::read_ahead`],
    /// issued right after the read of the requested page, named `after`)
    /// and admits each ([`Driver::admit_ahead`]). A failed batch admits
    /// none of them ([`Driver::miss`] says why).
    pub(super) fn read_planned<F: Frames>(&mut self, after: PageId, frames: &F) {
        if self.ahead.pages.is_empty() {
            return;
        }
        let n = self.ahead.pages.len();
        self.ahead.buf.resize(n * self.store.page_size(), 0);
        if self
            .store
            .read_ahead(after, &self.ahead.numbers, &mut self.ahead.buf)
            .is_err()
        {
            return;
        }
        for i in 0..n {
            self.admit_ahead(frames, self.ahead.pages[i]);
        }
    }

    /// Admits `page`, read ahead of requests, where the next eviction
    /// reaches first ([`Policy::insert_cold`]), and counts its read.
    pub fn admit_ahead<F: Frames>(&mut self, frames: &F, page: DenseId) {
        if page >= self.taught {
            self.teach(frames, page);
        }
        let cost = self.store.cost_of(self.number(frames, page));
        self.observe(IoKind::Read, cost.read);
        self.policy.insert_cold(page, cost);
        self.ahead.unused(page);
        self.m.physical_reads += 1;
        self.m.read_ahead += 1;
    }

    /// A page read ahead that the caller could not admit (the room it was
    /// read for was taken meanwhile): its read is counted.
    pub fn read_unadmitted(&mut self) {
        self.m.physical_reads += 1;
    }
}
