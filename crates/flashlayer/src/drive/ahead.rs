//! Reading pages ahead of requests ([`Policy::read_ahead`], ACE's
//! prefetching variant): after a dirty victim the driver evicts more of the
//! policy's next clean victims and reads the pages numbered after the
//! requested one into their frames, counting which of them are requested
//! while still buffered.

use super::{Driver, Frames, Gate};
use crate::error::Result;
use crate::policy::Policy;
use crate::store::PageStore;
use crate::types::{DenseId, IoKind, PageId};

/// What reading ahead keeps between misses.
#[derive(Debug, Default)]
pub(super) struct ReadAhead {
    /// The pages a miss reads ahead, and their numbers.
    pages: Vec<DenseId>,
    numbers: Vec<PageId>,
    /// A page's bytes the reads go to (the caller keeps none).
    buf: Vec<u8>,
    /// Per dense id: read ahead and not requested since.
    unused: Vec<bool>,
}

impl ReadAhead {
    /// Reads of pages of `page_size` bytes (0: none are read ahead).
    pub(super) fn new(page_size: usize) -> Self {
        ReadAhead {
            buf: vec![0; page_size],
            ..ReadAhead::default()
        }
    }

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

    /// Reads ahead of requests ([`Policy::read_ahead`]) the pages numbered
    /// 1 to `n` after the requested `page` (numbered `number`) that the
    /// caller knows and the buffer does not hold, while it has room, in one
    /// batch ([`PageStore::read_ahead`]), and admits each where the next
    /// eviction reaches first ([`Policy::insert_cold`]).
    pub(super) fn read_ahead<F: Frames>(
        &mut self,
        page: DenseId,
        number: PageId,
        n: usize,
        frames: &F,
    ) -> Result<()> {
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
        if self.ahead.pages.is_empty() {
            return Ok(());
        }
        self.store
            .read_ahead(number, &self.ahead.numbers, &mut self.ahead.buf)?;
        for i in 0..self.ahead.pages.len() {
            let (q, name) = (self.ahead.pages[i], self.ahead.numbers[i]);
            if q >= self.taught {
                self.teach(frames, q);
            }
            let cost = self.store.cost_of(name);
            self.observe(IoKind::Read, cost.read);
            self.policy.insert_cold(q, cost);
            self.ahead.unused(q);
        }
        let n = self.ahead.pages.len() as u64;
        self.m.physical_reads += n;
        self.m.read_ahead += n;
        Ok(())
    }
}
