//! LRU-WSR, LRU with write sequence reordering (Jung, Shim, Park, Kang,
//! Kim, IEEE Trans. Consumer Electronics 2008), as CASA §3 summarises it:
//! one LRU list and a cold mark per page. The victim search starts at the
//! LRU end: a clean page is evicted at once, a dirty page marked cold is
//! evicted, and a dirty page not marked cold is marked cold, moved to the
//! MRU end (a second chance) and the search goes on.
//!
//! Choices where the papers are silent, each tested:
//! - A reference (hit or admission) clears the cold mark: a new page starts
//!   hot, as every referenced page does.
//! - Pages the caller may not evict (pinned) are passed over unchanged.
//! - A dirty page that is written back and stays resident keeps its place
//!   and its mark.
//!
//! O(1) amortised per request: a page gets at most one second chance per
//! reference.

use crate::policy::list::{Journal, Lists, NIL};
use crate::policy::Serves;
use crate::policy::{Ahead, Neighbours, Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

const L: u8 = 1;

/// LRU with cold marks and second chances for dirty pages.
#[derive(Clone, Debug)]
pub struct LruWsr {
    cap: usize,
    l: Lists<1>,
    undo: Journal,
}

impl LruWsr {
    /// A buffer of `capacity` pages.
    pub fn new(capacity: usize) -> Self {
        LruWsr {
            cap: capacity,
            l: Lists::new(),
            undo: Journal::default(),
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        self
    }

    /// Resident pages from MRU to LRU with their cold marks.
    pub fn order(&self) -> Vec<(DenseId, bool)> {
        self.l.iter(L).map(|p| (p, self.l.marked(p))).collect()
    }
}

impl Policy for LruWsr {
    /// From the LRU end, the dirty pages marked cold: those an eviction
    /// would take when it reaches them (a dirty page not marked cold gets
    /// its second chance instead; ACE's own simulator moves it to the MRU
    /// end as it walks, which this query does not).
    fn dirty_ahead(&self, want: Ahead, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) -> bool {
        self.l
            .dirty_from_tails(&[L], want, |p| self.l.marked(p), pages, out)
    }

    crate::policy::list::list_policy_basics!("LRU-WSR", one list L);

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        if self.l.list_of(page) != L {
            return false;
        }
        self.l.move_front(L, page);
        self.l.set_mark(page, false);
        self.l.dirty_if_write(page, op);
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.l.push_front(L, page);
        self.l.set_mark(page, false);
        self.l.set_dirty(page, op.is_write());
    }

    /// The LRU end: a clean page there is the next victim.
    fn has_cold_end(&self) -> bool {
        true
    }
    fn insert_cold(&mut self, page: DenseId, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.l.push_back(L, page);
        self.l.set_mark(page, false);
        self.l.set_dirty(page, false);
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        self.undo.clear();
        let mut cur = self.l.tail(L);
        while cur != NIL {
            let before = self.l.prev_of(cur);
            if evictable(cur) {
                self.undo.save(&self.l, cur);
                if !self.l.is_dirty(cur) || self.l.marked(cur) {
                    let dirty = self.l.remove(cur);
                    return Some(Victim { page: cur, dirty });
                }
                self.l.set_mark(cur, true);
                self.l.move_front(L, cur);
                if before == NIL {
                    // It was the MRU page: it is next again, now cold.
                    continue;
                }
            }
            // A page moved to the front is met again after the pages that
            // were ahead of it, now cold.
            cur = before;
        }
        // Everything evictable was moved and met again: nothing is evictable.
        self.undo.undo(&mut self.l);
        None
    }

    fn reinstate(&mut self, _victim: Victim) {
        self.undo.undo(&mut self.l);
    }

    crate::policy::list::dirty_marks!();
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.contains(page).then(|| self.l.remove(page))
    }
}

named!(
    LruWsr,
    "lruwsr",
    "LRU with write sequence reordering, Jung et al. 2008: dirty pages get a cold mark and a second chance", Serves::ACE_BASE
);

#[cfg(test)]
mod tests {
    use super::*;

    /// A page read ahead enters clean at the LRU end: the next victim; a
    /// dirty page it passes then gets its second chance as ever.
    #[test]
    fn a_page_read_ahead_is_the_next_victim() {
        let c = PageCost::new(1.0, 1.0);
        let mut w = LruWsr::new(3);
        w.insert(1, Op::Write, c);
        w.insert(2, Op::Read, c);
        w.insert_cold(9, c);
        assert!(!w.is_dirty(9));
        let got: Vec<DenseId> = (0..3).map(|_| w.evict(|_| true).unwrap().page).collect();
        assert_eq!(got, [9, 2, 1]);
    }
}
