//! SIEVE (Zhang et al., "SIEVE is Simpler than LRU", NSDI 2024): one FIFO
//! queue, a visited bit per page, and a hand that moves from the oldest
//! page towards the newest. A hit only sets the bit; the hand clears set
//! bits as it passes and evicts the first page whose bit is clear, then
//! rests on the page after it (towards the newest). New pages enter at the
//! newest end unvisited, so they meet the hand only after every page it has
//! yet to pass, and a page that survives the hand keeps its place.
//!
//! As libCacheSim 0.3.5 (`Sieve.c`): the hand starts at the oldest page and
//! wraps to it after passing the newest; a page the hand rests on that
//! leaves by [`Policy::remove`] moves the hand to its newer neighbour.
//! Pages the caller cannot evict (pinned) are passed without clearing
//! their bit; with none evictable the eviction changes nothing.

use crate::policy::list::{Lists, NIL};
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

const Q: u8 = 1;

/// SIEVE replacement.
#[derive(Clone, Debug)]
pub struct Sieve {
    cap: usize,
    /// The queue, newest at the head; the node's mark is the visited bit.
    l: Lists<1>,
    /// The page the hand rests on, `NIL` for the oldest.
    hand: u32,
    /// What the last eviction changed, for [`Policy::reinstate`]: the hand
    /// before it, the victim's neighbour towards the oldest end, and the
    /// pages whose bit it cleared.
    undo_hand: u32,
    undo_next: u32,
    undo_cleared: Vec<DenseId>,
}

impl Sieve {
    /// A SIEVE buffer of `capacity` pages.
    pub fn new(capacity: usize) -> Self {
        Sieve {
            cap: capacity,
            l: Lists::new(),
            hand: NIL,
            undo_hand: NIL,
            undo_next: NIL,
            undo_cleared: Vec::new(),
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        self
    }

    /// The page after `page` in the hand's direction, wrapping to the oldest.
    #[inline]
    fn step(&self, page: DenseId) -> DenseId {
        match self.l.prev_of(page) {
            NIL => self.l.tail(Q),
            p => p,
        }
    }

    /// Gives back the bits the last scan cleared.
    fn restore_bits(&mut self) {
        for &p in &self.undo_cleared {
            self.l.set_mark(p, true);
        }
    }
}

impl Policy for Sieve {
    crate::policy::list::list_policy_basics!("SIEVE", one list Q);

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        if self.l.list_of(page) != Q {
            return false;
        }
        self.l.set_mark(page, true);
        self.l.dirty_if_write(page, op);
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.l.push_front(Q, page);
        self.l.set_mark(page, false);
        self.l.set_dirty(page, op.is_write());
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let n = self.len();
        if n == 0 {
            return None;
        }
        self.undo_hand = self.hand;
        self.undo_cleared.clear();
        let mut cur = if self.hand == NIL {
            self.l.tail(Q)
        } else {
            self.hand
        };
        // One round clears every bit it passes; a second finds a clear,
        // evictable page if there is one.
        for _ in 0..2 * n + 1 {
            if self.l.marked(cur) {
                self.l.set_mark(cur, false);
                self.undo_cleared.push(cur);
            } else if evictable(cur) {
                self.hand = self.l.prev_of(cur);
                self.undo_next = self.l.next_of(cur);
                let dirty = self.l.remove(cur);
                return Some(Victim { page: cur, dirty });
            }
            cur = self.step(cur);
        }
        self.restore_bits();
        self.hand = self.undo_hand;
        None
    }

    fn reinstate(&mut self, v: Victim) {
        self.l.insert_before(Q, v.page, self.undo_next);
        self.l.set_dirty(v.page, v.dirty);
        self.restore_bits();
        self.hand = self.undo_hand;
    }

    crate::policy::list::dirty_marks!();
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        if !self.contains(page) {
            return None;
        }
        if self.hand == page {
            self.hand = self.l.prev_of(page);
        }
        Some(self.l.remove(page))
    }
}

named!(
    Sieve,
    "sieve",
    "SIEVE, Zhang et al. 2024: a FIFO queue and a hand that spares visited pages once",
    Serves::POOL
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::agrees_with_model;

    const C: PageCost = PageCost::new(1.0, 1.0);

    /// SIEVE as the paper's Figure 2 pseudo-code states it, over a vector
    /// (oldest first), a visited set and a hand index.
    struct Model {
        cap: usize,
        q: Vec<(DenseId, bool)>,
        hand: Option<usize>,
    }

    impl Model {
        fn request(&mut self, page: DenseId) -> (bool, Option<DenseId>) {
            if let Some(e) = self.q.iter_mut().find(|e| e.0 == page) {
                e.1 = true;
                return (true, None);
            }
            let mut victim = None;
            if self.q.len() == self.cap {
                let mut i = self.hand.unwrap_or(0);
                while self.q[i].1 {
                    self.q[i].1 = false;
                    i = (i + 1) % self.q.len();
                }
                victim = Some(self.q.remove(i).0);
                // The hand rests on the next newer page; past the newest it
                // starts again at the oldest.
                self.hand = (i < self.q.len()).then_some(i);
            }
            self.q.push((page, false));
            (false, victim)
        }
    }

    #[test]
    fn sieve_evicts_as_the_papers_pseudo_code_victim_by_victim() {
        for cap in [1usize, 2, 3, 7, 16] {
            let mut m = Model {
                cap,
                q: Vec::new(),
                hand: None,
            };
            let model = |p| m.request(p);
            agrees_with_model(&mut Sieve::new(cap), model, 40, 5_000, 0x2545f4914f6cdd1d);
        }
    }

    #[test]
    fn sieve_keeps_a_visited_page_and_evicts_the_first_unvisited_one() {
        let mut s = Sieve::new(3);
        for p in 0..3 {
            s.insert(p, Op::Read, C);
        }
        assert!(s.access(0, Op::Read));
        // The hand clears 0's bit and takes 1.
        assert_eq!(s.evict(|_| true).unwrap().page, 1);
        s.insert(3, Op::Read, C);
        // It rests on 2, which goes next; 0 is passed over once more only
        // if visited again.
        assert_eq!(s.evict(|_| true).unwrap().page, 2);
    }

    #[test]
    fn sieve_reinstate_undoes_the_eviction_exactly() {
        let mut s = Sieve::new(4);
        for p in 0..4 {
            s.insert(p, if p == 2 { Op::Write } else { Op::Read }, C);
        }
        s.access(0, Op::Read);
        s.access(1, Op::Read);
        let before = s.clone();
        let v = s.evict(|_| true).unwrap();
        assert_eq!(
            v,
            Victim {
                page: 2,
                dirty: true
            }
        );
        s.reinstate(v);
        let (mut a, mut b) = (before, s);
        for _ in 0..4 {
            let (x, y) = (a.evict(|_| true), b.evict(|_| true));
            assert_eq!(x, y);
        }
    }

    #[test]
    fn sieve_passes_pinned_pages_and_refuses_when_none_is_evictable() {
        let mut s = Sieve::new(3);
        for p in 0..3 {
            s.insert(p, Op::Read, C);
        }
        s.access(2, Op::Read);
        assert_eq!(
            s.evict(|p| p == 2),
            Some(Victim {
                page: 2,
                dirty: false
            })
        );
        assert_eq!(s.evict(|_| false), None);
        assert_eq!(s.len(), 2);
    }
}
