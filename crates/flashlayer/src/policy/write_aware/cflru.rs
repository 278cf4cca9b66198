//! CFLRU, clean-first LRU (Park, Jung, Kang, Kim, Lee, CASES 2006), as
//! CASA §3 describes it: an LRU list whose last `w·B` pages form the
//! clean-first region; the victim is the least recently used clean page of
//! that region, or, when it has none, the least recently used page.
//!
//! Layout for O(1) operations: the working region is one LRU list; the
//! clean-first region is split into its clean and its dirty pages, two LRU
//! lists, so its least recently used clean page is a list tail. The region
//! always holds the `min(len, round(w·B))` least recently used pages: when it
//! loses one (a hit moves a page to the working region, an eviction), the
//! working region's LRU page moves in. A per-page access stamp orders the
//! two halves of the region, needed only when a page in it changes between
//! clean and dirty without an access (write-back of a page that stays, or
//! a modification the buffer pool reports at unfix), which is rare.
//!
//! Choices where the papers are silent, each tested:
//! - The window is `round(w·B)` pages, counted over every page in the list,
//!   pinned or not; pinned pages are passed over when choosing the victim.
//! - "The LRU page" when the region has no evictable clean page is the least
//!   recently used evictable page of the whole list.

use crate::policy::list::{Lists, Saved, NIL};
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

const WORKING: u8 = 1;
const CLEAN: u8 = 2;
const DIRTY: u8 = 3;

/// Clean-first LRU with window `w`.
#[derive(Clone, Debug)]
pub struct Cflru {
    cap: usize,
    w: f64,
    window: usize,
    l: Lists<3>,
    stamp: Vec<u64>,
    clock: u64,
    undo: Option<Saved>,
}

impl Cflru {
    /// A buffer of `capacity` pages whose last `w` (a fraction in `[0, 1]`)
    /// form the clean-first region.
    pub fn new(capacity: usize, w: f64) -> Self {
        let w = w.clamp(0.0, 1.0);
        Cflru {
            cap: capacity,
            w,
            window: (w * capacity as f64).round() as usize,
            l: Lists::new(),
            stamp: Vec::new(),
            clock: 0,
            undo: None,
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        if pages > self.stamp.len() {
            self.stamp.resize(pages, 0);
        }
        self
    }

    /// The clean-first region's size in pages, `round(w·B)`.
    pub fn window(&self) -> usize {
        self.window
    }

    /// Resident pages from MRU to LRU, with whether each is in the
    /// clean-first region.
    pub fn order(&self) -> Vec<(DenseId, bool)> {
        let mut region: Vec<DenseId> = self.l.iter(CLEAN).chain(self.l.iter(DIRTY)).collect();
        region.sort_by_key(|&p| std::cmp::Reverse(self.stamp[p as usize]));
        self.l
            .iter(WORKING)
            .map(|p| (p, false))
            .chain(region.into_iter().map(|p| (p, true)))
            .collect()
    }

    #[inline]
    fn touch(&mut self, page: DenseId) {
        self.clock += 1;
        let i = page as usize;
        if i >= self.stamp.len() {
            self.stamp.resize((i + 1).max(self.stamp.len() * 2), 0);
        }
        self.stamp[i] = self.clock;
    }

    fn region_len(&self) -> usize {
        self.l.len(CLEAN) + self.l.len(DIRTY)
    }

    /// Moves working-region LRU pages into the clean-first region until it
    /// holds `window` pages or the working region is empty.
    #[inline]
    fn refill(&mut self) {
        while self.region_len() < self.window {
            let t = self.l.tail(WORKING);
            if t == NIL {
                break;
            }
            self.l.unlink(t);
            let half = if self.l.is_dirty(t) { DIRTY } else { CLEAN };
            self.l.push_front(half, t);
            // The next refill takes the new tail (in cache: unlinking `t`
            // just wrote it) and writes the node before it: start loading
            // that one now, so the next miss does not wait for it.
            let next = self.l.tail(WORKING);
            if next != NIL {
                self.l.prefetch(self.l.prev_of(next));
            }
        }
    }

    /// Moves a region page to the other half, keeping recency order.
    fn switch_half(&mut self, page: DenseId, to: u8) {
        self.l.unlink(page);
        let s = self.stamp[page as usize];
        let mut cur = self.l.head(to);
        while cur != NIL && self.stamp[cur as usize] > s {
            cur = self.l.next_of(cur);
        }
        self.l.insert_before(to, page, cur);
    }
}

impl Policy for Cflru {
    // The region's dirty pages, then the working region's, each from its
    // least recently used end. A window counts the pages passed so: after
    // a dirty victim, the region holds no clean page that may leave, so
    // they are the least recently used pages, as in ACE's simulator.
    crate::policy::list::dirty_ahead_from_tails!(DIRTY, WORKING);

    fn name(&self) -> String {
        format!("CFLRU({})", self.w)
    }
    crate::policy::list::list_policy_basics!(lists, own prefetch);
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
        self.window = (self.w * capacity as f64).round() as usize;
        // A smaller window gives its most recent pages back to the working
        // region's LRU end; a larger one takes more from there.
        while self.region_len() > self.window {
            let (c, d) = (self.l.head(CLEAN), self.l.head(DIRTY));
            let newest = match (c, d) {
                (NIL, x) | (x, NIL) => x,
                (c, d) if self.stamp[c as usize] > self.stamp[d as usize] => c,
                (_, d) => d,
            };
            self.l.unlink(newest);
            self.l.push_back(WORKING, newest);
        }
        self.refill();
    }
    fn len(&self) -> usize {
        self.l.len(WORKING) + self.region_len()
    }
    #[inline]
    fn prefetch(&self, page: DenseId) {
        self.l.prefetch(page);
        if let Some(s) = self.stamp.get(page as usize) {
            crate::policy::list::prefetch(s);
        }
    }

    // Always inlined into the caller's loop (cachegrind: 5% fewer
    // instructions on the benchmark trace).
    #[inline(always)]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        let list = self.l.list_of(page);
        if list == 0 {
            return false;
        }
        // Dirty before any move: a refill files the page by its dirty bit.
        self.l.dirty_if_write(page, op);
        self.touch(page);
        if list == WORKING {
            self.l.move_front(WORKING, page);
        } else {
            self.l.unlink(page);
            self.l.push_front(WORKING, page);
            self.refill();
        }
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.touch(page);
        self.l.admit(WORKING, page, op);
        self.refill();
    }

    #[inline]
    fn evict<F: FnMut(DenseId) -> bool>(&mut self, evictable: F) -> Option<Victim> {
        let page = self
            .l
            .find_from_backs(&[CLEAN, DIRTY, WORKING], evictable)?;
        // The region is refilled by the next insert, so that undoing this
        // eviction only has to put the victim back.
        Some(self.l.remove_saving(page, &mut self.undo))
    }

    fn reinstate(&mut self, _victim: Victim) {
        self.l.restore_saved(&mut self.undo);
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.l.list_of(page) == CLEAN {
            self.switch_half(page, DIRTY);
        }
        if self.contains(page) {
            self.l.set_dirty(page, true);
        }
    }
    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        if self.l.list_of(page) == DIRTY {
            self.switch_half(page, CLEAN);
        }
        if self.contains(page) {
            self.l.set_dirty(page, false);
        }
    }
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        if !self.contains(page) {
            return None;
        }
        let dirty = self.l.remove(page);
        self.refill();
        Some(dirty)
    }

    /// The clean-first region's clean tail, which the next eviction takes
    /// first (the working region's tail without a region).
    fn has_cold_end(&self) -> bool {
        true
    }
    fn insert_cold(&mut self, page: DenseId, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        // Older than every access (stamps start at 1): the least recently
        // used page; pages read ahead together tie, which only orders them
        // among themselves when one changes halves.
        let i = page as usize;
        if i >= self.stamp.len() {
            self.stamp.resize((i + 1).max(self.stamp.len() * 2), 0);
        }
        self.stamp[i] = 0;
        if self.window == 0 {
            self.l.push_back(WORKING, page);
            self.l.set_dirty(page, false);
            return;
        }
        self.l.push_back(CLEAN, page);
        self.l.set_dirty(page, false);
        // The region holds the `window` least recently used pages: its most
        // recent one goes back to the working region's LRU end.
        if self.region_len() > self.window {
            let (c, d) = (self.l.head(CLEAN), self.l.head(DIRTY));
            let newest = match (c, d) {
                (c, NIL) => c,
                (NIL, d) => d,
                (c, d) if self.stamp[d as usize] > self.stamp[c as usize] => d,
                (c, _) => c,
            };
            self.l.unlink(newest);
            self.l.push_back(WORKING, newest);
        }
    }
}

// The policy's spec (`policy/named.rs`).

const W: crate::spec::Param = crate::spec::Param {
    key: "w",
    ty: crate::spec::Ty::Fraction,
    default: "0.5",
    help: "size of the clean-first region at the LRU end, as a share of the buffer",
};

named!(
    Cflru,
    "cflru",
    "clean-first LRU, Park et al. 2006: the LRU clean page of the last w·B pages goes first",
    Serves::ACE_BASE,
    [W],
    f64,
    |g| Ok(g.fraction("w")),
    |w, capacity| Cflru::new(capacity, w)
);

#[cfg(test)]
mod tests {
    use super::*;

    const COST: PageCost = PageCost::new(1.0, 1.0);

    /// A page read ahead is the least recently used: the region's clean
    /// tail, the region keeping its `w·B` pages (its most recent one goes
    /// back to the working region), so evictions take it first, then the
    /// region's LRU page, dirty when it has no clean one.
    #[test]
    fn a_page_read_ahead_enters_as_the_least_recently_used() {
        for (first, order) in [(Op::Read, [9, 1, 2, 3]), (Op::Write, [9, 1, 2, 3])] {
            let mut c = Cflru::new(4, 0.5);
            c.insert(1, first, COST);
            c.insert(2, Op::Read, COST);
            c.insert(3, Op::Read, COST);
            c.insert_cold(9, COST);
            assert_eq!((c.len(), c.region_len()), (4, 2));
            assert!(!c.is_dirty(9));
            let got: Vec<DenseId> = (0..4).map(|_| c.evict(|_| true).unwrap().page).collect();
            assert_eq!(got, order, "first page {first:?}");
        }
    }

    /// A page of the clean-first region that is written back (or modified
    /// without an access) keeps its recency among the region's pages.
    #[test]
    fn a_region_page_changing_clean_state_keeps_its_place() {
        let mut c = Cflru::new(4, 1.0);
        for (p, op) in [(1, Op::Read), (2, Op::Write), (3, Op::Read), (4, Op::Write)] {
            c.insert(p, op, COST);
        }
        assert_eq!(c.order(), vec![(4, true), (3, true), (2, true), (1, true)]);
        c.mark_clean(4, COST);
        c.mark_dirty(1);
        assert_eq!(c.order(), vec![(4, true), (3, true), (2, true), (1, true)]);
        // Clean pages go first, least recent first: 3, then 4; then the
        // dirty ones, least recent first: 1, then 2.
        let victims: Vec<(u32, bool)> = (0..4)
            .map(|_| c.evict(|_| true).map(|v| (v.page, v.dirty)).unwrap())
            .collect();
        assert_eq!(victims, vec![(3, false), (4, false), (1, true), (2, true)]);
    }

    /// The window is round(w·B) pages: w = 0 is plain LRU.
    #[test]
    fn a_window_of_zero_is_lru() {
        let mut c = Cflru::new(3, 0.0);
        assert_eq!(c.window(), 0);
        for (p, op) in [(1, Op::Write), (2, Op::Read), (3, Op::Read)] {
            c.insert(p, op, COST);
        }
        assert_eq!(c.evict(|_| true).map(|v| v.page), Some(1));
        assert_eq!(Cflru::new(10, 0.25).window(), 3);
    }
}
