//! Writeback-Aware Landlord (Beckmann, Gibbons, Haeupler & McGuffey,
//! "Writeback-Aware Caching", APOCS 2020): Landlord (Young 2002), the
//! credit scheme behind GreedyDual, whose credits count what evicting a page
//! really costs when write-backs are priced.
//!
//! Every resident page holds a credit. Evicting a clean page costs its read
//! cost the next time it is needed; evicting a dirty one costs that plus
//! the write-back now. So a page's full cost is `r + w·dirty` (the read and
//! write cost of the device it is on, from its [`PageCost`]). Landlord's
//! rules with that cost:
//!
//! - on admission and on every hit the credit is set to the full cost (the
//!   "reset to the maximum" choice of Landlord, which makes it LRU-like
//!   among equal costs);
//! - a write to a clean resident page raises its credit by `w`: it now
//!   owes a write-back, and the credit must pay for it;
//! - to make room, every credit is lowered by the smallest one, and the
//!   page whose credit reached zero leaves.
//!
//! Lowering every credit at once is done, as in GreedyDual, with a global
//! level `L` that rises to the victim's priority: a page's priority is `L`
//! at its last reset plus its credit. Equal priorities leave in the order
//! they were set (the least recently reset first).
//!
//! Our reading, where the paper's text was not available to us: the
//! abstract fixes the model (miss cost plus write-back cost, per item) and
//! the Landlord family; the three rules above are the direct Landlord
//! rules for that cost. A page written back without leaving (clustering,
//! a flush) loses the write part of its credit, not below `L`.
//!
//! # O(1) a request
//!
//! Every priority has the form `L' + c`, with `c` the page's full cost and
//! `L'` a level at or below the current one. Pages of the same full cost
//! (a cost *class*: clean and dirty, per device) are therefore ordered by
//! `L'`, and a reset gives the largest `L'` there is: each class is a list
//! in priority order, a hit moves its page to the tail of its class, and
//! the victim is the least of the class heads (a device has two classes,
//! the hybrid store four). Only a change of credit without a reset
//! (`mark_dirty`, `mark_clean`, `reprice`) inserts by a walk from the tail.

use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

const NIL: u32 = u32::MAX;
const NO_CLASS: u16 = u16::MAX;

/// A list of the resident pages of one full cost, in priority order.
#[derive(Clone, Copy, Debug)]
struct Class {
    cost: f64,
    head: u32,
    tail: u32,
}

#[derive(Clone, Copy, Debug)]
struct Page {
    priority: f64,
    seq: u64,
    read: f64,
    write: f64,
    prev: u32,
    next: u32,
    class: u16,
    dirty: bool,
}

const EMPTY: Page = Page {
    priority: 0.0,
    seq: 0,
    read: 0.0,
    write: 0.0,
    prev: NIL,
    next: NIL,
    class: NO_CLASS,
    dirty: false,
};

/// Writeback-Aware Landlord over `capacity` pages.
#[derive(Clone, Debug)]
pub struct WbLandlord {
    cap: usize,
    len: usize,
    pages: Vec<Page>,
    classes: Vec<Class>,
    dirty_count: usize,
    /// Landlord's level: every credit is measured above it.
    level: f64,
    /// Orders equal priorities by when they were set.
    seq: u64,
    /// The level before the last eviction and the victim's successor in
    /// its class, for [`Policy::reinstate`].
    undo: (f64, u32),
}

impl WbLandlord {
    /// An empty buffer of `capacity` pages.
    pub fn new(capacity: usize) -> Self {
        WbLandlord {
            cap: capacity,
            len: 0,
            pages: Vec::new(),
            classes: Vec::new(),
            dirty_count: 0,
            level: 0.0,
            seq: 0,
            undo: (0.0, NIL),
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.pages = vec![EMPTY; pages];
        self
    }

    fn full_cost(p: &Page) -> f64 {
        p.read + if p.dirty { p.write } else { 0.0 }
    }

    /// The class of full cost `cost`, made on first use.
    fn class_of(&mut self, cost: f64) -> u16 {
        if let Some(i) = self.classes.iter().position(|c| c.cost == cost) {
            return i as u16;
        }
        self.classes.push(Class {
            cost,
            head: NIL,
            tail: NIL,
        });
        (self.classes.len() - 1) as u16
    }

    fn unlink(&mut self, page: DenseId) {
        let Page {
            prev, next, class, ..
        } = self.pages[page as usize];
        self.join(class, prev, next);
        self.pages[page as usize].class = NO_CLASS;
    }

    /// Makes `b` follow `a` in class `class` (`a` = `NIL`: `b` is its
    /// head; `b` = `NIL`: `a` is its tail).
    fn join(&mut self, class: u16, a: u32, b: u32) {
        if a == NIL {
            self.classes[class as usize].head = b;
        } else {
            self.pages[a as usize].next = b;
        }
        if b == NIL {
            self.classes[class as usize].tail = a;
        } else {
            self.pages[b as usize].prev = a;
        }
    }

    /// Links `page` into class `class` before `before` (`NIL`: at the tail).
    fn link_before(&mut self, page: DenseId, class: u16, before: u32) {
        let prev = if before == NIL {
            self.classes[class as usize].tail
        } else {
            self.pages[before as usize].prev
        };
        self.pages[page as usize].class = class;
        self.join(class, prev, page);
        self.join(class, page, before);
    }

    /// Files `page` in the class of its full cost at its priority: from the
    /// tail backwards past the pages that come after it.
    fn file(&mut self, page: DenseId) {
        let class = self.class_of(Self::full_cost(&self.pages[page as usize]));
        let key = |p: &Page| (p.priority, p.seq);
        let mine = key(&self.pages[page as usize]);
        let mut before = NIL;
        let mut at = self.classes[class as usize].tail;
        while at != NIL && key(&self.pages[at as usize]) > mine {
            before = at;
            at = self.pages[at as usize].prev;
        }
        self.link_before(page, class, before);
    }

    /// Sets `page`'s credit to its full cost: the largest priority there
    /// is, so the tail of its class.
    fn reset(&mut self, page: DenseId) {
        self.seq += 1;
        let p = &mut self.pages[page as usize];
        p.priority = self.level + Self::full_cost(p);
        p.seq = self.seq;
        if p.class != NO_CLASS {
            self.unlink(page);
        }
        let class = self.class_of(Self::full_cost(&self.pages[page as usize]));
        self.link_before(page, class, NIL);
    }

    /// Changes `page`'s credit without a reset, keeping the order.
    fn recredit(&mut self, page: DenseId, priority: f64) {
        self.unlink(page);
        self.pages[page as usize].priority = priority;
        self.file(page);
    }

    fn set_dirty(&mut self, page: DenseId, dirty: bool) {
        let was = std::mem::replace(&mut self.pages[page as usize].dirty, dirty);
        self.dirty_count = self.dirty_count + usize::from(dirty) - usize::from(was);
    }
}

impl Policy for WbLandlord {
    fn name(&self) -> String {
        "WB-Landlord".into()
    }
    crate::policy::list::counted_capacity!();
    fn contains(&self, page: DenseId) -> bool {
        self.pages
            .get(page as usize)
            .is_some_and(|p| p.class != NO_CLASS)
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.contains(page) && self.pages[page as usize].dirty
    }
    fn dirty_count(&self) -> usize {
        self.dirty_count
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        if let Some(p) = self.pages.get(page as usize) {
            crate::policy::list::prefetch(p);
        }
    }

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        if !self.contains(page) {
            return false;
        }
        if op.is_write() {
            self.set_dirty(page, true);
        }
        self.reset(page);
        true
    }

    fn insert(&mut self, page: DenseId, op: Op, cost: PageCost) {
        debug_assert!(self.len < self.cap);
        if page as usize >= self.pages.len() {
            let n = (page as usize + 1).max(self.pages.len() * 2);
            self.pages.resize(n, EMPTY);
        }
        let p = &mut self.pages[page as usize];
        (p.read, p.write) = (cost.read, cost.write);
        p.class = NO_CLASS;
        self.set_dirty(page, op.is_write());
        self.len += 1;
        self.reset(page);
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let mut best: Option<(f64, u64, DenseId)> = None;
        for c in 0..self.classes.len() {
            let mut at = self.classes[c].head;
            while at != NIL && !evictable(at) {
                at = self.pages[at as usize].next;
            }
            if at != NIL {
                let p = &self.pages[at as usize];
                if best.is_none_or(|(pr, s, _)| (p.priority, p.seq) < (pr, s)) {
                    best = Some((p.priority, p.seq, at));
                }
            }
        }
        let (priority, _, page) = best?;
        self.undo = (self.level, self.pages[page as usize].next);
        // Every credit falls by the victim's: the level rises to its
        // priority (never falls, if a pinned page made it evict above).
        self.level = self.level.max(priority);
        self.unlink(page);
        self.len -= 1;
        let dirty = self.pages[page as usize].dirty;
        self.set_dirty(page, false);
        Some(Victim { page, dirty })
    }

    fn reinstate(&mut self, v: Victim) {
        let (level, next) = self.undo;
        self.level = level;
        self.set_dirty(v.page, v.dirty);
        self.len += 1;
        let class = self.class_of(Self::full_cost(&self.pages[v.page as usize]));
        self.link_before(v.page, class, next);
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.contains(page) && !self.pages[page as usize].dirty {
            // Its class changes with its full cost.
            self.unlink(page);
            self.set_dirty(page, true);
            let p = &mut self.pages[page as usize];
            p.priority += p.write;
            self.file(page);
        }
    }

    fn mark_clean(&mut self, page: DenseId, cost: PageCost) {
        if self.contains(page) {
            self.unlink(page);
            let level = self.level;
            let p = &mut self.pages[page as usize];
            (p.read, p.write) = (cost.read, cost.write);
            if p.dirty {
                p.priority = (p.priority - cost.write).max(level);
            }
            self.set_dirty(page, false);
            self.file(page);
        }
    }

    fn reprice(&mut self, page: DenseId, cost: PageCost) {
        if self.contains(page) {
            let level = self.level;
            let p = &mut self.pages[page as usize];
            (p.read, p.write) = (cost.read, cost.write);
            // A credit never exceeds the page's full cost on its new device.
            let priority = p.priority.min(level + Self::full_cost(p));
            self.recredit(page, priority);
        }
    }

    fn remove(&mut self, page: DenseId) -> Option<bool> {
        if !self.contains(page) {
            return None;
        }
        self.unlink(page);
        self.len -= 1;
        let dirty = self.pages[page as usize].dirty;
        self.set_dirty(page, false);
        Some(dirty)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("level", self.level));
    }
}

named!(
    WbLandlord,
    "wblandlord",
    "Writeback-Aware Landlord, Beckmann et al. 2020: credits of read cost plus pending write-back",
    Serves::ONLINE
);
