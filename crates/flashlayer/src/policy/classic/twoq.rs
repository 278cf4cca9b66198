//! 2Q (Johnson & Shasha, VLDB 1994), the full version: a FIFO `A1in` for
//! pages seen once, a ghost FIFO `A1out` remembering pages recently evicted
//! from `A1in`, and an LRU `Am` for pages re-referenced after leaving `A1in`.
//!
//! Defaults follow the 2Q paper's recommendation: `Kin` = 25% and `Kout` = 50%
//! of the buffer (at least one page each). When the preferred queue has no
//! evictable (unpinned) page, the victim comes from the other one.
//!
//! A miss on a page `A1out` remembers sends it to `Am`, decided when the
//! miss is seen, before the eviction it causes: that eviction's push into
//! `A1out` cannot forget it first (the paper's order, and libCacheSim's).
//! Unlike libCacheSim 0.3.5, `Am` has no bound of its own (`B − Kin`
//! there, which makes a ghost hit into a full `Am` evict a second page):
//! the paper bounds only `A1in` and `A1out`.

use crate::policy::list::{Lists, NIL};
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

const A1IN: u8 = 1;
const AM: u8 = 2;
const A1OUT: u8 = 3;

/// 2Q replacement.
#[derive(Clone, Debug)]
pub struct TwoQ {
    cap: usize,
    kin_share: f64,
    kout_share: f64,
    kin: usize,
    kout: usize,
    l: Lists<3>,
    /// What the last eviction did, for [`Policy::reinstate`]: the list the
    /// victim came from, its neighbour towards that list's tail, and the
    /// ghost it pushed out of `A1out` with that ghost's neighbour.
    undo: (u8, u32, u32, u32),
    /// The page of the last miss if `A1out` remembers it: already on its
    /// way to `Am`, so no eviction forgets it.
    pending: u32,
}

impl TwoQ {
    /// 2Q with the default `Kin = 0.25` and `Kout = 0.5` of `capacity`.
    pub fn new(capacity: usize) -> Self {
        Self::with_params(capacity, 0.25, 0.5)
    }

    /// 2Q with `Kin = kin × capacity` and `Kout = kout × capacity`, each
    /// rounded down and at least 1.
    pub fn with_params(capacity: usize, kin: f64, kout: f64) -> Self {
        TwoQ {
            cap: capacity,
            kin_share: kin,
            kout_share: kout,
            kin: ((capacity as f64 * kin) as usize).max(1),
            kout: ((capacity as f64 * kout) as usize).max(1),
            l: Lists::new(),
            undo: (0, NIL, NIL, NIL),
            pending: NIL,
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        self
    }

    #[inline]
    fn resident(&self, page: DenseId) -> bool {
        matches!(self.l.list_of(page), A1IN | AM)
    }

    fn take(&mut self, list: u8, evictable: &mut impl FnMut(DenseId) -> bool) -> Option<Victim> {
        let page = self.l.find_from_back(list, &mut *evictable)?;
        self.undo = (list, self.l.next_of(page), NIL, NIL);
        let dirty = self.l.remove(page);
        if list == A1IN {
            self.l.push_front(A1OUT, page);
            if self.l.ghosts_without(A1OUT, self.pending) > self.kout {
                let old = self.l.oldest_without(A1OUT, self.pending);
                self.undo.2 = old;
                self.undo.3 = self.l.next_of(old);
                self.l.unlink(old);
            }
        }
        Some(Victim { page, dirty })
    }
}

impl Policy for TwoQ {
    crate::policy::list::list_policy_basics!("2Q", resident);
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
        self.kin = ((capacity as f64 * self.kin_share) as usize).max(1);
        self.kout = ((capacity as f64 * self.kout_share) as usize).max(1);
        while self.l.len(A1OUT) > self.kout {
            let old = self.l.back(A1OUT).expect("A1out is not empty");
            self.l.unlink(old);
        }
    }

    fn adopt(&mut self, page: DenseId, dirty: bool, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        if self.l.list_of(page) == A1OUT {
            self.l.unlink(page);
        }
        self.l.push_front(A1IN, page);
        self.l.set_dirty(page, dirty);
    }
    fn len(&self) -> usize {
        self.l.len(A1IN) + self.l.len(AM)
    }

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        match self.l.list_of(page) {
            AM => self.l.move_front(AM, page),
            A1IN => {}
            A1OUT => {
                self.pending = page;
                return false;
            }
            _ => {
                self.pending = NIL;
                return false;
            }
        }
        self.pending = NIL;
        self.l.dirty_if_write(page, op);
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.pending = NIL;
        if self.l.list_of(page) == A1OUT {
            self.l.unlink(page);
            self.l.push_front(AM, page);
        } else {
            self.l.push_front(A1IN, page);
        }
        self.l.set_dirty(page, op.is_write());
    }

    #[inline]
    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let (first, second) = if self.l.len(A1IN) > self.kin || self.l.len(AM) == 0 {
            (A1IN, AM)
        } else {
            (AM, A1IN)
        };
        match self.take(first, &mut evictable) {
            Some(v) => Some(v),
            None => self.take(second, &mut evictable),
        }
    }

    fn reinstate(&mut self, v: Victim) {
        let (list, next, dropped, dropped_next) = self.undo;
        if list == A1IN {
            self.l.unlink(v.page);
            if dropped != NIL {
                self.l.insert_before(A1OUT, dropped, dropped_next);
            }
        }
        self.l.insert_before(list, v.page, next);
        self.l.set_dirty(v.page, v.dirty);
    }

    crate::policy::list::dirty_marks!();
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.resident(page).then(|| self.l.remove(page))
    }
}

named!(
    TwoQ,
    "2q",
    "2Q, Johnson & Shasha 1994 (Kin 25%, Kout 50%)",
    Serves::POOL
);
