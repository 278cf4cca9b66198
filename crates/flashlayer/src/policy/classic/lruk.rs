//! LRU-K (O'Neil, O'Neil & Weikum, "The LRU-K page replacement algorithm
//! for database disk buffering", SIGMOD 1993): evict the page whose K-th
//! most recent reference is oldest (the largest backward K-distance).
//!
//! As libCacheSim 0.3.5 (`LRU_K.cpp`): K = 2 by default; a page with fewer
//! than K references since it entered (infinite K-distance) waits in a FIFO
//! queue and such pages go first, oldest arrival first; the others are
//! ordered by the time of their K-th most recent reference. A page's
//! history is forgotten when it leaves (the paper's retained information
//! period is zero) and references are not grouped into correlated periods
//! (the paper's correlated reference period is zero). Time is the request
//! count. Pages the caller cannot evict (pinned) are passed over.

use crate::policy::heap::KeyHeap;
use crate::policy::list::{Lists, Saved};
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

/// The largest K.
pub const MAX_K: usize = 8;
/// Default K (libCacheSim's, the paper's LRU-2).
pub const DEFAULT_K: usize = 2;

const FIFO: u8 = 1;
const OUT: u8 = 0;
const IN_FIFO: u8 = 1;
const IN_HEAP: u8 = 2;

/// What LRU-K knows of a page besides its references.
#[derive(Clone, Copy, Debug)]
struct Meta {
    /// `OUT`, `IN_FIFO` or `IN_HEAP`.
    state: u8,
    dirty: bool,
    /// References in the history (at most K).
    count: u8,
}

const NEW: Meta = Meta {
    state: OUT,
    dirty: false,
    count: 0,
};

/// LRU-K replacement.
#[derive(Clone, Debug)]
pub struct LruK {
    cap: usize,
    k: usize,
    /// Requests seen (the clock of the references).
    now: u64,
    /// Per page: where it is, its dirty bit and how many references its
    /// history holds (together: one load a page); and the last K
    /// references, oldest first.
    meta: Vec<Meta>,
    times: Vec<u64>,
    fifo: Lists<1>,
    heap: KeyHeap,
    len: usize,
    dirty_count: usize,
    /// Pinned pages lifted off the heap while looking for a victim.
    lifted: Vec<(crate::policy::heap::Key, DenseId)>,
    /// The last victim's place in the FIFO, for [`Policy::reinstate`].
    undo: Option<Saved>,
}

impl LruK {
    /// LRU-2.
    pub fn new(capacity: usize) -> Self {
        Self::with_k(capacity, DEFAULT_K)
    }

    /// LRU-K for K from 1 (LRU) to `MAX_K` (8).
    pub fn with_k(capacity: usize, k: usize) -> Self {
        assert!((1..=MAX_K).contains(&k), "K from 1 to {MAX_K}");
        LruK {
            cap: capacity,
            k,
            now: 0,
            meta: Vec::new(),
            times: Vec::new(),
            fifo: Lists::new(),
            heap: KeyHeap::default(),
            len: 0,
            dirty_count: 0,
            lifted: Vec::new(),
            undo: None,
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.grow(pages);
        self.fifo.reserve_pages(pages);
        self.heap = KeyHeap::with_pages(pages);
        self
    }

    fn grow(&mut self, pages: usize) {
        if pages > self.meta.len() {
            self.meta.resize(pages, NEW);
            self.times.resize(pages * self.k, 0);
        }
    }

    #[inline]
    fn where_is(&self, page: DenseId) -> u8 {
        self.meta.get(page as usize).map_or(OUT, |m| m.state)
    }

    fn set_dirty(&mut self, page: DenseId, dirty: bool) {
        let d = &mut self.meta[page as usize].dirty;
        if *d != dirty {
            *d = dirty;
            if dirty {
                self.dirty_count += 1;
            } else {
                self.dirty_count -= 1;
            }
        }
    }

    /// Adds a reference at `now` to `page`'s history; returns whether it
    /// now holds K references.
    fn reference(&mut self, page: DenseId) -> bool {
        let k = self.k;
        let h = &mut self.times[page as usize * k..(page as usize + 1) * k];
        let c = usize::from(self.meta[page as usize].count);
        if c == k {
            // K is small: a loop, where `copy_within` would call memmove.
            for i in 1..k {
                h[i - 1] = h[i];
            }
            h[k - 1] = self.now;
        } else {
            h[c] = self.now;
            self.meta[page as usize].count += 1;
        }
        usize::from(self.meta[page as usize].count) == k
    }

    /// A page in the FIFO reached its K-th reference: it moves to the heap.
    /// Out of line, so that the common hit stays small in the caller's loop.
    #[inline(never)]
    fn promote_to_heap(&mut self, page: DenseId) {
        self.fifo.remove(page);
        self.meta[page as usize].state = IN_HEAP;
        self.heap.set(page, self.kth(page));
    }

    /// The K-th most recent reference of a page with K of them.
    #[inline]
    fn kth(&self, page: DenseId) -> crate::policy::heap::Key {
        (self.times[page as usize * self.k] as f64, 0)
    }

    fn take(&mut self, page: DenseId) -> bool {
        let dirty = self.meta[page as usize].dirty;
        self.set_dirty(page, false);
        self.meta[page as usize].state = OUT;
        self.len -= 1;
        dirty
    }
}

impl Policy for LruK {
    fn name(&self) -> String {
        format!("LRU-{}", self.k)
    }
    crate::policy::list::counted_capacity!();
    fn contains(&self, page: DenseId) -> bool {
        self.where_is(page) != OUT
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.contains(page) && self.meta[page as usize].dirty
    }
    fn dirty_count(&self) -> usize {
        self.dirty_count
    }

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        self.now += 1;
        let at = self.where_is(page);
        if at == OUT {
            return false;
        }
        let full = self.reference(page);
        if at == IN_FIFO && full {
            self.promote_to_heap(page);
        } else if at == IN_HEAP {
            self.heap.set(page, self.kth(page));
        }
        if op.is_write() {
            self.set_dirty(page, true);
        }
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len < self.cap && !self.contains(page));
        if page as usize >= self.meta.len() {
            self.grow((page as usize + 1).max(2 * self.meta.len()));
        }
        self.meta[page as usize].count = 0;
        if self.reference(page) {
            self.meta[page as usize].state = IN_HEAP;
            self.heap.set(page, self.kth(page));
        } else {
            self.meta[page as usize].state = IN_FIFO;
            self.fifo.push_front(FIFO, page);
        }
        self.len += 1;
        self.set_dirty(page, op.is_write());
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        if let Some(page) = self.fifo.find_from_back(FIFO, &mut evictable) {
            self.undo = Some(self.fifo.save(page));
            self.fifo.remove(page);
            let dirty = self.take(page);
            return Some(Victim { page, dirty });
        }
        self.undo = None;
        let mut victim = None;
        while let Some((key, page)) = self.heap.top() {
            self.heap.remove(page);
            if evictable(page) {
                victim = Some(page);
                break;
            }
            self.lifted.push((key, page));
        }
        while let Some((key, page)) = self.lifted.pop() {
            self.heap.set(page, key);
        }
        let page = victim?;
        let dirty = self.take(page);
        Some(Victim { page, dirty })
    }

    fn reinstate(&mut self, v: Victim) {
        match self.undo.take() {
            Some(saved) => {
                self.fifo.restore(saved);
                self.meta[v.page as usize].state = IN_FIFO;
            }
            None => {
                self.meta[v.page as usize].state = IN_HEAP;
                self.heap.set(v.page, self.kth(v.page));
            }
        }
        self.len += 1;
        self.set_dirty(v.page, v.dirty);
    }

    crate::policy::list::dirty_marks!(set_dirty);
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        match self.where_is(page) {
            IN_FIFO => {
                self.fifo.remove(page);
            }
            IN_HEAP => {
                self.heap.remove(page);
            }
            _ => return None,
        }
        Some(self.take(page))
    }
}

// The policy's spec (`policy/named.rs`).

const K: crate::spec::Param = crate::spec::Param {
    key: "k",
    ty: crate::spec::Ty::Int(1, MAX_K as u64),
    default: "2",
    help: "K: pages are ordered by the time of their K-th most recent reference (1 is LRU)",
};

named!(
    LruK,
    "lruk",
    "LRU-K, O'Neil et al. 1993: the oldest K-th most recent reference leaves; pages with fewer first", Serves::POOL,
    [K],
    usize,
    |g| Ok(g.int("k") as usize),
    |p, capacity| LruK::with_k(capacity, p)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::agrees_with_model;

    const C: PageCost = PageCost::new(1.0, 1.0);

    /// LRU-K by its definition over a list of resident pages with their
    /// reference times: pages with fewer than K references first, oldest
    /// arrival first; else the oldest K-th most recent reference.
    struct Model {
        k: usize,
        now: u64,
        pages: Vec<(DenseId, Vec<u64>, u64)>,
    }

    impl Model {
        fn request(&mut self, page: DenseId, cap: usize) -> (bool, Option<DenseId>) {
            self.now += 1;
            if let Some(e) = self.pages.iter_mut().find(|e| e.0 == page) {
                e.1.push(self.now);
                return (true, None);
            }
            let mut victim = None;
            if self.pages.len() == cap {
                let k = self.k;
                let i = (0..self.pages.len())
                    .min_by_key(|&i| {
                        let h = &self.pages[i].1;
                        if h.len() < k {
                            (0, self.pages[i].2)
                        } else {
                            (1, h[h.len() - k])
                        }
                    })
                    .unwrap();
                victim = Some(self.pages.remove(i).0);
            }
            self.pages.push((page, vec![self.now], self.now));
            (false, victim)
        }
    }

    #[test]
    fn lruk_evicts_the_oldest_kth_reference_victim_by_victim() {
        for (cap, k) in [(1usize, 2usize), (4, 2), (10, 2), (10, 3), (7, 1)] {
            let mut m = Model {
                k,
                now: 0,
                pages: Vec::new(),
            };
            let model = |p| m.request(p, cap);
            agrees_with_model(
                &mut LruK::with_k(cap, k),
                model,
                40,
                5_000,
                0xa4093822299f31d0,
            );
        }
    }

    #[test]
    fn lruk_reinstate_undoes_the_eviction_and_pinned_pages_are_passed() {
        let mut p = LruK::new(3);
        for page in 0..3 {
            p.access(page, Op::Read);
            p.insert(page, Op::Write, C);
        }
        for page in 0..3 {
            p.access(page, Op::Read);
        }
        // All have two references; 0's second-to-last is oldest.
        let v = p.evict(|_| true).unwrap();
        assert_eq!(
            v,
            Victim {
                page: 0,
                dirty: true
            }
        );
        p.reinstate(v);
        assert_eq!((p.len(), p.dirty_count()), (3, 3));
        assert_eq!(p.evict(|x| x != 0).unwrap().page, 1);
        assert_eq!(p.evict(|_| false), None);
        assert_eq!(p.len(), 2);
    }
}
