//! CCF-LRU, cold-clean-first LRU (Li, Jin, Su, Cui, Yue, IEEE Trans.
//! Consumer Electronics 2009), as CASA §3 summarises it: pages are
//! cold-clean, cold-dirty, hot-clean or hot-dirty, evicted in that order,
//! with hot and cold told apart by second chances.
//!
//! Two LRU lists: the cold-clean list (clean pages referenced once) and the
//! mixed list (every other page), with a cold mark on pages of the mixed
//! list. The victim search:
//! 1. the LRU page of the cold-clean list;
//! 2. else a walk of the mixed list from its LRU end over the pages it held
//!    when the search began: a cold page is the victim (cold-dirty); a hot
//!    clean page is marked cold and moved to the MRU end of the cold-clean
//!    list; a hot dirty page is marked cold and moved to the MRU end of the
//!    mixed list (second chance);
//! 3. else the LRU page of the cold-clean list, now holding the hot-clean
//!    pages step 2 demoted;
//! 4. else the LRU page of the mixed list, now all cold (hot-dirty).
//!
//! Choices where the papers are silent, each tested:
//! - A read miss enters the cold-clean list; a write miss enters the mixed
//!   list marked cold (one reference, dirty). Any hit moves the page to the
//!   MRU end of the mixed list and clears its mark.
//! - A clean page modified without a new access goes to the MRU end of the
//!   mixed list, cold. A dirty page written back and staying resident keeps
//!   its place and mark (a cold one is then taken in step 2).
//! - Pinned pages are passed over unchanged.
//!
//! O(1) amortised per request: every demotion follows a hit.

use crate::policy::list::{Journal, Lists, NIL};
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

const COLD_CLEAN: u8 = 1;
const MIXED: u8 = 2;

/// Cold-clean-first LRU.
#[derive(Clone, Debug)]
pub struct CcfLru {
    cap: usize,
    l: Lists<2>,
    undo: Journal,
}

impl CcfLru {
    /// A buffer of `capacity` pages.
    pub fn new(capacity: usize) -> Self {
        CcfLru {
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

    /// (cold-clean list, mixed list with cold marks), each MRU first.
    pub fn lists(&self) -> (Vec<DenseId>, Vec<(DenseId, bool)>) {
        (
            self.l.iter(COLD_CLEAN).collect(),
            self.l.iter(MIXED).map(|p| (p, self.l.marked(p))).collect(),
        )
    }

    fn take(&mut self, page: DenseId) -> Victim {
        self.undo.save(&self.l, page);
        let dirty = self.l.remove(page);
        Victim { page, dirty }
    }
}

impl Policy for CcfLru {
    crate::policy::list::list_policy_basics!("CCF-LRU", lists);
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
    }
    fn len(&self) -> usize {
        self.l.len(COLD_CLEAN) + self.l.len(MIXED)
    }

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        match self.l.list_of(page) {
            0 => return false,
            MIXED => self.l.move_front(MIXED, page),
            _ => {
                self.l.unlink(page);
                self.l.push_front(MIXED, page);
            }
        }
        self.l.set_mark(page, false);
        self.l.dirty_if_write(page, op);
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        let list = if op.is_write() { MIXED } else { COLD_CLEAN };
        self.l.push_front(list, page);
        self.l.set_mark(page, true);
        self.l.set_dirty(page, op.is_write());
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        self.undo.clear();
        if let Some(p) = self.l.find_from_back(COLD_CLEAN, &mut evictable) {
            return Some(self.take(p));
        }
        let mut cur = self.l.tail(MIXED);
        let mut first_moved = NIL;
        while cur != NIL && cur != first_moved {
            let before = self.l.prev_of(cur);
            if evictable(cur) {
                if self.l.marked(cur) {
                    return Some(self.take(cur));
                }
                self.undo.save(&self.l, cur);
                self.l.set_mark(cur, true);
                if self.l.is_dirty(cur) {
                    self.l.move_front(MIXED, cur);
                    if first_moved == NIL {
                        first_moved = cur;
                    }
                } else {
                    self.l.unlink(cur);
                    self.l.push_front(COLD_CLEAN, cur);
                }
            }
            cur = before;
        }
        if let Some(p) = self.l.find_from_back(COLD_CLEAN, &mut evictable) {
            return Some(self.take(p));
        }
        if let Some(p) = self.l.find_from_back(MIXED, &mut evictable) {
            return Some(self.take(p));
        }
        self.undo.undo(&mut self.l);
        None
    }

    fn reinstate(&mut self, _victim: Victim) {
        self.undo.undo(&mut self.l);
    }

    fn mark_dirty(&mut self, page: DenseId) {
        match self.l.list_of(page) {
            0 => {}
            COLD_CLEAN => {
                self.l.unlink(page);
                self.l.push_front(MIXED, page);
                self.l.set_dirty(page, true);
            }
            _ => self.l.set_dirty(page, true),
        }
    }
    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        if self.contains(page) {
            self.l.set_dirty(page, false);
        }
    }
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.contains(page).then(|| self.l.remove(page))
    }
}

named!(
    CcfLru,
    "ccflru",
    "cold-clean-first LRU, Li et al. 2009: cold-clean, cold-dirty, hot-clean, hot-dirty",
    Serves::ONLINE
);
