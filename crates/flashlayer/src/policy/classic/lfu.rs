//! LFU: evict the page with the fewest hits since it entered the buffer.
//!
//! As libCacheSim 0.3.5 (`LFU.c`): a page enters with frequency 1 and each
//! hit adds one; a page's count is forgotten when it leaves (no history of
//! evicted pages). Among pages of the least frequency the victim is the one
//! that reached that frequency first, so ties fall to the least recently
//! promoted page. Pages of equal frequency form one list, oldest first, and
//! the least frequency is tracked as pages move, so every request is O(1):
//! a hit moves its page from its frequency's list to the next one's; the
//! least frequency can only grow by one at a hit, and an admission resets
//! it to 1.
//!
//! Pages the caller cannot evict (pinned) are passed over, the next page of
//! the same frequency and then of higher ones taken instead.

use crate::policy::list::NIL;
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

/// A page's place: its frequency list and neighbours. `freq == 0`: not
/// resident.
#[derive(Clone, Copy, Debug)]
struct Node {
    prev: u32,
    next: u32,
    freq: u32,
    dirty: bool,
}

const EMPTY: Node = Node {
    prev: NIL,
    next: NIL,
    freq: 0,
    dirty: false,
};

/// Where [`Lfu::ends`] keeps a list's oldest and newest page.
const FIRST: usize = 0;
const LAST: usize = 1;

/// LFU replacement.
#[derive(Clone, Debug)]
pub struct Lfu {
    cap: usize,
    len: usize,
    dirty_count: usize,
    nodes: Vec<Node>,
    /// Oldest and newest page of each frequency's list (index =
    /// frequency), side by side: a hit reads both ends of two neighbouring
    /// frequencies, one cache line.
    ends: Vec<[u32; 2]>,
    /// The least frequency of a resident page (1 when empty).
    min: u32,
    /// The last victim's frequency, its neighbour towards the newest end,
    /// and the least frequency before it left, for [`Policy::reinstate`].
    undo: (u32, u32, u32),
}

impl Lfu {
    /// An LFU buffer of `capacity` pages.
    pub fn new(capacity: usize) -> Self {
        Lfu {
            cap: capacity,
            len: 0,
            dirty_count: 0,
            nodes: Vec::new(),
            ends: vec![[NIL; 2]; 2],
            min: 1,
            undo: (0, NIL, 1),
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        if pages > self.nodes.len() {
            self.nodes.resize(pages, EMPTY);
        }
        self
    }

    #[inline]
    fn node(&self, page: DenseId) -> Node {
        self.nodes.get(page as usize).copied().unwrap_or(EMPTY)
    }

    /// Links `page` into the list of `freq` before `next` (`NIL`: newest).
    #[inline(always)]
    fn link(&mut self, page: DenseId, freq: u32, next: u32) {
        let f = freq as usize;
        if f >= self.ends.len() {
            self.ends.resize(f + 1, [NIL; 2]);
        }
        let prev = if next == NIL {
            self.ends[f][LAST]
        } else {
            self.nodes[next as usize].prev
        };
        self.nodes[page as usize].freq = freq;
        self.join(f, prev, page);
        self.join(f, page, next);
    }

    /// Makes `b` follow `a` in the list of frequency `f` (`a` = `NIL`: `b`
    /// is first; `b` = `NIL`: `a` is last).
    #[inline(always)]
    fn join(&mut self, f: usize, a: u32, b: u32) {
        if a == NIL {
            self.ends[f][FIRST] = b;
        } else {
            self.nodes[a as usize].next = b;
        }
        if b == NIL {
            self.ends[f][LAST] = a;
        } else {
            self.nodes[b as usize].prev = a;
        }
    }

    #[inline]
    fn unlink(&mut self, page: DenseId) {
        let Node {
            prev, next, freq, ..
        } = self.nodes[page as usize];
        self.join(freq as usize, prev, next);
    }

    fn set_dirty(&mut self, page: DenseId, dirty: bool) {
        let n = &mut self.nodes[page as usize];
        if n.dirty != dirty {
            n.dirty = dirty;
            if dirty {
                self.dirty_count += 1;
            } else {
                self.dirty_count -= 1;
            }
        }
    }

    /// Takes `page` out of the buffer; returns its dirty flag.
    fn take(&mut self, page: DenseId) -> bool {
        let dirty = self.node(page).dirty;
        self.set_dirty(page, false);
        self.unlink(page);
        self.nodes[page as usize] = EMPTY;
        self.len -= 1;
        self.settle_min();
        dirty
    }

    /// Moves `min` up to the least frequency with a page, if its list
    /// emptied.
    fn settle_min(&mut self) {
        if self.len == 0 {
            self.min = 1;
            return;
        }
        while self.ends[self.min as usize][FIRST] == NIL {
            self.min += 1;
        }
    }
}

impl Policy for Lfu {
    fn name(&self) -> String {
        "LFU".into()
    }
    crate::policy::list::counted_capacity!();
    fn contains(&self, page: DenseId) -> bool {
        self.node(page).freq != 0
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.node(page).dirty
    }
    fn dirty_count(&self) -> usize {
        self.dirty_count
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        if let Some(n) = self.nodes.get(page as usize) {
            crate::types::prefetch(n);
        }
    }

    // Always inlined into the caller's loop: out of line, saving and
    // restoring registers was a tenth of LFU's instructions (cachegrind).
    #[inline(always)]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        let freq = self.node(page).freq;
        if freq == 0 {
            return false;
        }
        self.unlink(page);
        self.link(page, freq + 1, NIL);
        if freq == self.min && self.ends[freq as usize][FIRST] == NIL {
            self.min = freq + 1;
        }
        if op.is_write() {
            self.set_dirty(page, true);
        }
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len < self.cap && !self.contains(page));
        if page as usize >= self.nodes.len() {
            self.nodes
                .resize((page as usize + 1).max(2 * self.nodes.len()), EMPTY);
        }
        self.link(page, 1, NIL);
        self.min = 1;
        self.len += 1;
        self.set_dirty(page, op.is_write());
    }

    // Inlined into the replay loop: out of line, LFU takes 6% longer on
    // libCacheSim's Twitter trace.
    #[inline]
    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        if self.len == 0 {
            return None;
        }
        let min = self.min;
        for f in min as usize..self.ends.len() {
            let mut cur = self.ends[f][FIRST];
            while cur != NIL {
                if evictable(cur) {
                    self.undo = (f as u32, self.nodes[cur as usize].next, min);
                    let dirty = self.take(cur);
                    return Some(Victim { page: cur, dirty });
                }
                cur = self.nodes[cur as usize].next;
            }
        }
        None
    }

    fn reinstate(&mut self, v: Victim) {
        let (freq, next, min) = self.undo;
        self.link(v.page, freq, next);
        self.len += 1;
        self.min = min;
        self.set_dirty(v.page, v.dirty);
    }

    crate::policy::list::dirty_marks!(set_dirty);
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.contains(page).then(|| self.take(page))
    }

    #[inline]
    fn victim_ahead(&self, k: usize) -> Option<DenseId> {
        if self.len == 0 {
            return None;
        }
        // Within the least frequency's list only: beyond it the order
        // depends on the hits to come.
        let mut p = self.ends[self.min as usize][FIRST];
        for _ in 0..k {
            if p == NIL {
                return None;
            }
            p = self.nodes[p as usize].next;
        }
        (p != NIL).then_some(p)
    }
}

named!(
    Lfu,
    "lfu",
    "least frequently used since admission, ties to the least recently promoted",
    Serves::POOL
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::agrees_with_model;

    const C: PageCost = PageCost::new(1.0, 1.0);

    /// LFU by its definition: the resident page of least count, ties to the
    /// one whose count was set longest ago.
    #[derive(Default)]
    struct Model {
        pages: Vec<(DenseId, u32, u64)>,
        clock: u64,
    }

    impl Model {
        fn request(&mut self, page: DenseId, cap: usize) -> (bool, Option<DenseId>) {
            self.clock += 1;
            if let Some(e) = self.pages.iter_mut().find(|e| e.0 == page) {
                e.1 += 1;
                e.2 = self.clock;
                return (true, None);
            }
            let mut victim = None;
            if self.pages.len() == cap {
                let i = (0..self.pages.len())
                    .min_by_key(|&i| (self.pages[i].1, self.pages[i].2))
                    .unwrap();
                victim = Some(self.pages.remove(i).0);
            }
            self.pages.push((page, 1, self.clock));
            (false, victim)
        }
    }

    #[test]
    fn lfu_evicts_the_least_frequent_oldest_promoted_page_victim_by_victim() {
        for cap in [1usize, 2, 5, 16] {
            let mut m = Model::default();
            let model = |p| m.request(p, cap);
            agrees_with_model(&mut Lfu::new(cap), model, 64, 5_000, 0x9e3779b97f4a7c15);
        }
    }

    #[test]
    fn lfu_reinstate_undoes_the_eviction_and_pinned_pages_are_passed() {
        let mut l = Lfu::new(3);
        l.insert(0, Op::Write, C);
        l.insert(1, Op::Read, C);
        l.insert(2, Op::Read, C);
        l.access(1, Op::Read);
        l.access(2, Op::Read);
        let v = l.evict(|_| true).unwrap();
        assert_eq!(
            v,
            Victim {
                page: 0,
                dirty: true
            }
        );
        l.reinstate(v);
        assert_eq!((l.len(), l.dirty_count()), (3, 1));
        // 0 pinned: the next of least frequency is 1 (promoted before 2).
        assert_eq!(l.evict(|p| p != 0).unwrap().page, 1);
        assert_eq!(l.evict(|_| false), None);
    }
}
