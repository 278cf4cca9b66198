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
//! at its last reset plus its credit, kept in an indexed min-heap, so a
//! request costs O(log B). Equal priorities leave in the order they were
//! set (the least recently reset first).
//!
//! Our reading, where the paper's text was not available to us: the
//! abstract fixes the model (miss cost plus write-back cost, per item) and
//! the Landlord family; the three rules above are the direct Landlord
//! rules for that cost. A page written back without leaving (clustering,
//! a flush) loses the write part of its credit, not below `L`.

use super::heap::KeyHeap;
use super::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

/// Writeback-Aware Landlord over `capacity` pages.
#[derive(Clone, Debug)]
pub struct WbLandlord {
    cap: usize,
    heap: KeyHeap,
    /// Per page: read and write cost of the device it is on.
    cost: Vec<(f64, f64)>,
    dirty: Vec<bool>,
    dirty_count: usize,
    /// Landlord's level: every credit is measured above it.
    level: f64,
    /// Orders equal priorities by when they were set.
    seq: u64,
    /// The level before the last eviction, for [`Policy::reinstate`].
    undo: (f64, (f64, u64)),
}

impl WbLandlord {
    /// An empty buffer of `capacity` pages.
    pub fn new(capacity: usize) -> Self {
        WbLandlord {
            cap: capacity,
            heap: KeyHeap::default(),
            cost: Vec::new(),
            dirty: Vec::new(),
            dirty_count: 0,
            level: 0.0,
            seq: 0,
            undo: (0.0, (0.0, 0)),
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.heap = KeyHeap::with_pages(pages);
        self.cost = vec![(0.0, 0.0); pages];
        self.dirty = vec![false; pages];
        self
    }

    fn full_cost(&self, page: DenseId) -> f64 {
        let (r, w) = self.cost[page as usize];
        r + if self.dirty[page as usize] { w } else { 0.0 }
    }

    /// Sets `page`'s credit to its full cost.
    fn reset(&mut self, page: DenseId) {
        self.seq += 1;
        let key = (self.level + self.full_cost(page), self.seq);
        self.heap.set(page, key);
    }

    fn set_dirty(&mut self, page: DenseId, dirty: bool) {
        let was = std::mem::replace(&mut self.dirty[page as usize], dirty);
        self.dirty_count = self.dirty_count + usize::from(dirty) - usize::from(was);
    }
}

impl Policy for WbLandlord {
    fn name(&self) -> String {
        "WB-Landlord".into()
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
    }
    fn len(&self) -> usize {
        self.heap.len()
    }
    fn contains(&self, page: DenseId) -> bool {
        self.heap.contains(page)
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.contains(page) && self.dirty[page as usize]
    }
    fn dirty_count(&self) -> usize {
        self.dirty_count
    }

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
        debug_assert!(self.len() < self.cap);
        if page as usize >= self.cost.len() {
            let n = (page as usize + 1).max(self.cost.len() * 2);
            self.cost.resize(n, (0.0, 0.0));
            self.dirty.resize(n, false);
        }
        self.cost[page as usize] = (cost.read, cost.write);
        self.set_dirty(page, op.is_write());
        self.reset(page);
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let (key, page) = match self.heap.top() {
            Some((key, page)) if evictable(page) => (key, page),
            Some(_) => self
                .heap
                .entries()
                .iter()
                .copied()
                .filter(|&(_, p)| evictable(p))
                .min_by(|a, b| a.0.partial_cmp(&b.0).expect("priorities are numbers"))?,
            None => return None,
        };
        self.undo = (self.level, key);
        // Every credit falls by the victim's: the level rises to its
        // priority (never falls, if a pinned page made it evict above).
        self.level = self.level.max(key.0);
        self.heap.remove(page);
        let dirty = self.dirty[page as usize];
        self.set_dirty(page, false);
        Some(Victim { page, dirty })
    }

    fn reinstate(&mut self, v: Victim) {
        let (level, key) = self.undo;
        self.level = level;
        self.set_dirty(v.page, v.dirty);
        self.heap.set(v.page, key);
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.contains(page) && !self.dirty[page as usize] {
            self.set_dirty(page, true);
            let (p, seq) = self.heap.key(page);
            self.heap.set(page, (p + self.cost[page as usize].1, seq));
        }
    }

    fn mark_clean(&mut self, page: DenseId, cost: PageCost) {
        if self.contains(page) {
            self.cost[page as usize] = (cost.read, cost.write);
            if self.dirty[page as usize] {
                self.set_dirty(page, false);
                let (p, seq) = self.heap.key(page);
                self.heap.set(page, ((p - cost.write).max(self.level), seq));
            }
        }
    }

    fn reprice(&mut self, page: DenseId, cost: PageCost) {
        if self.contains(page) {
            self.cost[page as usize] = (cost.read, cost.write);
            // A credit never exceeds the page's full cost on its new device.
            let (p, seq) = self.heap.key(page);
            let cap = self.level + self.full_cost(page);
            if p > cap {
                self.heap.set(page, (cap, seq));
            }
        }
    }

    fn remove(&mut self, page: DenseId) -> Option<bool> {
        if !self.heap.remove(page) {
            return None;
        }
        let dirty = self.dirty[page as usize];
        self.set_dirty(page, false);
        Some(dirty)
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("level", self.level));
    }
}
