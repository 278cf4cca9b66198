//! ARC (Megiddo & Modha, FAST 2003): two resident lists, `T1` (seen once
//! recently) and `T2` (seen at least twice), two ghost lists `B1`, `B2` of
//! equal total size, and a target `p` for `|T1|` adapted on ghost hits.
//!
//! Mapping onto the [`Policy`] protocol: `access` on a miss computes the
//! adaptation of `p` (cases II and III of the paper's Fig. 4) and remembers
//! the incoming page; `evict` performs `REPLACE(x, p)` with the adapted `p`
//! (or, in case IV-A with `B1` empty, discards the LRU page of `T1` without
//! a ghost); `insert` commits the new `p`, does the ghost-directory trimming
//! of case IV and admits the page. A miss that is never admitted (the caller
//! failed and reinstated the victim) leaves `p` as it was. The result is
//! request-for-request the paper's algorithm (tested against a reference).
//! `p` is real-valued as in the paper. Pinned pages are skipped; when the
//! list `REPLACE` chooses has no evictable page the other one is used.

use crate::policy::list::{Lists, NIL};
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

const T1: u8 = 1;
const T2: u8 = 2;
const B1: u8 = 3;
const B2: u8 = 4;

/// Adaptive Replacement Cache.
#[derive(Clone, Debug)]
pub struct Arc {
    cap: usize,
    p: f64,
    l: Lists<4>,
    incoming: u32,
    /// `p` as adapted by the pending miss; committed by `insert`.
    p_next: f64,
    /// Where the last victim came from, its neighbour towards that list's
    /// tail, and the ghost list it went to (0 for none), for
    /// [`Policy::reinstate`].
    undo: (u8, u32, u8),
}

impl Arc {
    /// An ARC buffer of `capacity` pages, `p = 0`.
    pub fn new(capacity: usize) -> Self {
        Arc {
            cap: capacity,
            p: 0.0,
            l: Lists::new(),
            incoming: NIL,
            p_next: 0.0,
            undo: (0, NIL, 0),
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        self
    }

    /// The current target size of `T1`.
    pub fn p(&self) -> f64 {
        self.p
    }

    #[inline]
    fn resident(&self, page: DenseId) -> bool {
        matches!(self.l.list_of(page), T1 | T2)
    }

    fn take(
        &mut self,
        list: u8,
        ghost: Option<u8>,
        evictable: &mut impl FnMut(DenseId) -> bool,
    ) -> Option<Victim> {
        let page = self.l.find_from_back(list, &mut *evictable)?;
        self.undo = (list, self.l.next_of(page), ghost.unwrap_or(0));
        let dirty = self.l.remove(page);
        if let Some(g) = ghost {
            self.l.push_front(g, page);
        }
        Some(Victim { page, dirty })
    }
}

impl Policy for Arc {
    crate::policy::list::list_policy_basics!("ARC", resident);
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
        self.p = self.p.min(capacity as f64);
        self.p_next = self.p_next.min(capacity as f64);
        // Restore |T1| + |B1| <= c and the directory's 2c bound by
        // forgetting the oldest ghosts.
        while self.l.len(T1) + self.l.len(B1) > capacity {
            let Some(old) = self.l.back(B1) else { break };
            self.l.unlink(old);
        }
        while self.l.len(T1) + self.l.len(T2) + self.l.len(B1) + self.l.len(B2) > 2 * capacity {
            let Some(old) = self.l.back(B2).or_else(|| self.l.back(B1)) else {
                break;
            };
            self.l.unlink(old);
        }
    }

    fn adopt(&mut self, page: DenseId, dirty: bool, cost: PageCost) {
        // Not a ghost hit: forget the ghost, then enter as a new page (the
        // directory trimming of case IV) without touching p.
        if matches!(self.l.list_of(page), B1 | B2) {
            self.l.unlink(page);
        }
        let incoming = std::mem::replace(&mut self.incoming, NIL);
        let op = if dirty { Op::Write } else { Op::Read };
        self.insert(page, op, cost);
        self.incoming = incoming;
    }
    fn len(&self) -> usize {
        self.l.len(T1) + self.l.len(T2)
    }

    /// The target size of T1 (`p`), and T1's size: how ARC splits the
    /// buffer between pages seen once and pages seen again.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("p", self.p));
        out.push(("t1", self.l.len(T1) as f64));
    }

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        let (b1, b2) = (self.l.len(B1) as f64, self.l.len(B2) as f64);
        match self.l.list_of(page) {
            T1 | T2 => {
                self.l.move_front(T2, page);
                self.l.dirty_if_write(page, op);
                return true;
            }
            B1 => {
                let delta = if b1 >= b2 { 1.0 } else { b2 / b1 };
                self.p_next = (self.p + delta).min(self.cap as f64);
            }
            B2 => {
                let delta = if b2 >= b1 { 1.0 } else { b1 / b2 };
                self.p_next = (self.p - delta).max(0.0);
            }
            _ => self.p_next = self.p,
        }
        self.incoming = page;
        false
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        if self.incoming == page {
            self.p = self.p_next;
        }
        match self.l.list_of(page) {
            B1 | B2 => {
                self.l.unlink(page);
                self.l.push_front(T2, page);
            }
            _ => {
                let (t1, t2) = (self.l.len(T1), self.l.len(T2));
                let (b1, b2) = (self.l.len(B1), self.l.len(B2));
                if t1 + b1 >= self.cap {
                    if let Some(old) = self.l.back(B1) {
                        self.l.unlink(old);
                    }
                } else if t1 + t2 + b1 + b2 >= 2 * self.cap {
                    if let Some(old) = self.l.back(B2) {
                        self.l.unlink(old);
                    }
                }
                self.l.push_front(T1, page);
            }
        }
        self.incoming = NIL;
        self.l.set_dirty(page, op.is_write());
    }

    #[inline]
    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let x = self.incoming;
        let x_list = if x == NIL { 0 } else { self.l.list_of(x) };
        let t1 = self.l.len(T1);
        if x_list != B1 && x_list != B2 && t1 + self.l.len(B1) >= self.cap && t1 >= self.cap {
            // Case IV-A, |T1| = c: the LRU page of T1 leaves without a ghost.
            if let Some(v) = self.take(T1, None, &mut evictable) {
                return Some(v);
            }
            return self.take(T2, Some(B2), &mut evictable);
        }
        let t1f = t1 as f64;
        let p = if x == NIL { self.p } else { self.p_next };
        let from_t1 = t1 >= 1 && ((x_list == B2 && t1f == p) || t1f > p);
        let (first, second) = if from_t1 {
            ((T1, B1), (T2, B2))
        } else {
            ((T2, B2), (T1, B1))
        };
        match self.take(first.0, Some(first.1), &mut evictable) {
            Some(v) => Some(v),
            None => self.take(second.0, Some(second.1), &mut evictable),
        }
    }

    fn reinstate(&mut self, v: Victim) {
        let (list, next, ghost) = self.undo;
        if ghost != 0 {
            self.l.unlink(v.page);
        }
        self.l.insert_before(list, v.page, next);
        self.l.set_dirty(v.page, v.dirty);
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.resident(page) {
            self.l.set_dirty(page, true);
        }
    }
    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        if self.resident(page) {
            self.l.set_dirty(page, false);
        }
    }
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.resident(page).then(|| self.l.remove(page))
    }
}

named!(Arc, "arc", "ARC, Megiddo & Modha 2003", Serves::POOL);
