//! LRU: evict the least recently used page. The baseline every flash-aware
//! paper compares against (CASA §5, FD-Buffer §5, Koltsidas §6).
//!
//! LRU and FIFO are one list that differs only in whether a hit moves the
//! page to the head, so both are [`Queue`]; FIFO lives in `fifo.rs`.

use crate::policy::list::Lists;
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

const L: u8 = 1;

/// A single recency (`PROMOTE = true`, LRU) or arrival (`PROMOTE = false`,
/// FIFO) list; the victim is its tail.
#[derive(Clone, Debug)]
pub struct Queue<const PROMOTE: bool> {
    cap: usize,
    l: Lists<1>,
    /// The last victim's neighbour towards the tail, for `reinstate`.
    undo_next: u32,
}

/// Least-recently-used replacement.
pub type Lru = Queue<true>;

impl<const PROMOTE: bool> Queue<PROMOTE> {
    /// A buffer of `capacity` pages.
    pub fn new(capacity: usize) -> Self {
        Queue {
            cap: capacity,
            l: Lists::new(),
            undo_next: crate::policy::list::NIL,
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        self
    }

    /// Resident pages from head (most recent) to tail (next victim).
    /// The page the next eviction takes if nothing is pinned.
    pub(crate) fn oldest(&self) -> Option<DenseId> {
        self.l.back(1)
    }

    pub fn order(&self) -> Vec<DenseId> {
        self.l.iter(L).collect()
    }
}

impl<const PROMOTE: bool> Policy for Queue<PROMOTE> {
    crate::policy::list::dirty_ahead_from_tails!(L);

    #[inline]
    fn victim_ahead(&self, k: usize) -> Option<DenseId> {
        let mut p = self.oldest()?;
        for _ in 0..k {
            p = self.l.prev_of(p);
            if p == crate::policy::list::NIL {
                return None;
            }
        }
        // The walk reads the nodes at the LRU end; load the next one.
        let before = self.l.prev_of(p);
        if before != crate::policy::list::NIL {
            self.l.prefetch(before);
        }
        Some(p)
    }

    fn name(&self) -> String {
        if PROMOTE { "LRU" } else { "FIFO" }.into()
    }
    crate::policy::list::list_policy_basics!(one list L);

    // LRU's request path is always inlined: with LRU also inside
    // FD-Buffer's pools, the compiler otherwise leaves it out of line in
    // LRU's own replay (cachegrind: 1,500M against 1,405M instructions on
    // the benchmark trace).
    #[inline(always)]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        if self.l.list_of(page) != L {
            return false;
        }
        if PROMOTE {
            self.l.move_front(L, page);
        }
        self.l.dirty_if_write(page, op);
        true
    }

    #[inline(always)]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.l.admit(L, page, op);
    }

    #[inline(always)]
    fn evict<F: FnMut(DenseId) -> bool>(&mut self, evictable: F) -> Option<Victim> {
        let page = self.l.find_from_back(L, evictable)?;
        self.undo_next = self.l.next_of(page);
        let dirty = self.l.remove(page);
        Some(Victim { page, dirty })
    }

    fn reinstate(&mut self, v: Victim) {
        self.l.insert_before(L, v.page, self.undo_next);
        self.l.set_dirty(v.page, v.dirty);
    }

    crate::policy::list::dirty_marks!();
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.contains(page).then(|| self.l.remove(page))
    }

    /// The tail, the page the next eviction takes first.
    fn has_cold_end(&self) -> bool {
        true
    }
    fn insert_cold(&mut self, page: DenseId, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.l.push_back(L, page);
        self.l.set_dirty(page, false);
    }
}

named!(Lru, "lru", "least recently used", Serves::POOL_AND_ACE_BASE);
