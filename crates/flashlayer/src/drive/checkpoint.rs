//! The driver's checkpoints: dirty pages written in one batch in page-number
//! order (neighbours priced as sequential writes) and marked clean, and
//! pages evicted whole.

use super::{Driver, Frames};
use crate::error::Result;
use crate::policy::Policy;
use crate::store::PageStore;
use crate::types::{DenseId, IoKind, PageId};

impl<P: Policy, S: PageStore> Driver<P, S> {
    /// A checkpoint of every dirty page buffered now ([`Driver::write_dirty`]);
    /// dense ids in use are below `pages`. Returns how many were written.
    pub fn checkpoint<F: Frames>(&mut self, pages: usize, frames: &mut F) -> Result<usize> {
        let dirty = self.policy.dirty_count();
        let mut list = Vec::with_capacity(dirty);
        for p in 0..pages as DenseId {
            if list.len() == dirty {
                break;
            }
            if self.policy.is_dirty(p) {
                list.push(p);
            }
        }
        self.write_dirty(&list, frames)?;
        Ok(list.len())
    }

    /// A checkpoint: writes the given resident dirty pages in one batch in
    /// page-number order (neighbours are priced as sequential writes) and
    /// marks them clean. They stay resident.
    pub fn write_dirty<F: Frames>(&mut self, pages: &[DenseId], frames: &mut F) -> Result<()> {
        if pages.is_empty() {
            return Ok(());
        }
        let mut batch = std::mem::take(&mut self.batch);
        self.dirty_batch(pages, frames, &mut batch);
        let written = match batch[..] {
            [(number, page)] => frames.write(&mut self.store, number, page),
            _ => frames.write_batch(&mut self.store, &batch),
        };
        if written.is_ok() {
            self.wrote_dirty(pages, frames, &batch, |_| true);
        }
        self.batch = batch;
        written
    }

    /// The write of a checkpoint of `pages` ([`Driver::write_dirty`]):
    /// `(name, page)` pairs sorted by the name the store sees.
    pub fn dirty_batch<F: Frames>(
        &self,
        pages: &[DenseId],
        frames: &F,
        out: &mut Vec<(PageId, DenseId)>,
    ) {
        out.clear();
        out.extend(pages.iter().map(|&d| (self.batch_number(frames, d), d)));
        out.sort_unstable();
    }

    /// Counts a checkpoint's write of `batch` ([`Driver::dirty_batch`]) and
    /// marks clean, in the order of `pages`, those for which `unchanged`
    /// says nobody modified them since they were copied for the write (a
    /// caller that writes outside its lock; every page, otherwise).
    pub fn wrote_dirty<F: Frames>(
        &mut self,
        pages: &[DenseId],
        frames: &F,
        batch: &[(PageId, DenseId)],
        unchanged: impl Fn(DenseId) -> bool,
    ) {
        self.m.physical_writes += batch.len() as u64;
        for &(name, _) in batch {
            let model = self.store.cost_of(name).write;
            self.observe(IoKind::Write, model);
        }
        for &d in pages {
            if unchanged(d) {
                let cost = self.store.cost_of(self.number(frames, d));
                self.policy.mark_clean(d, cost);
            }
        }
        if self.placing {
            self.reprice_moved(frames);
        }
    }

    /// The name a store sees for `page` in a call of its own
    /// ([`PageStore::naming`]).
    pub fn store_name<F: Frames>(&self, frames: &F, page: DenseId) -> PageId {
        self.number(frames, page)
    }

    /// Empties the buffer of `pages` (resident, none in use): each leaves as
    /// an eviction does — removed from the policy, announced to a store that
    /// places pages, and written if dirty or if the store moves it — in the
    /// given order. A page whose write fails stays resident (and dirty).
    pub fn evict_all<F: Frames>(&mut self, pages: &[DenseId], frames: &mut F) -> Result<()> {
        for &page in pages {
            if !self.policy.contains(page) {
                continue;
            }
            let dirty = self.policy.is_dirty(page);
            let number = self.number(frames, page);
            let write = if self.placing {
                self.store.evicting(number, dirty)?
            } else {
                dirty
            };
            if write {
                self.write_one(frames, number, page)?;
            }
            self.policy.remove(page);
            self.m.dirty_evictions += u64::from(dirty);
        }
        if self.placing {
            self.reprice_moved(frames);
        }
        Ok(())
    }
}
