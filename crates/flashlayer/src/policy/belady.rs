//! Belady's MIN (1966): the offline, miss-optimal policy. It evicts the
//! resident page whose next use lies furthest in the future.
//!
//! Tie rule (issue #2): among pages never used again, a clean one is evicted
//! before a dirty one, which saves write-backs without costing a miss.
//!
//! Belady must see the whole trace first: [`Belady::new`] computes the next
//! use of every request in one backward pass, O(requests) memory (4 bytes per
//! request plus 4 per page). It must then be driven by exactly that trace, in
//! order; each `access` hit and each `insert` consumes one request. Resident
//! pages sit in an indexed max-heap keyed by next use, O(log capacity) a
//! request.

use super::list::NIL;
use super::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost, MAX_DENSE};

const NEVER: u32 = u32::MAX;

/// Belady's offline MIN policy.
#[derive(Clone, Debug)]
pub struct Belady {
    cap: usize,
    next_use: Vec<u32>,
    t: usize,
    /// Max-heap of (key, page); keys inline so sifting touches one array.
    heap: Vec<(u64, u32)>,
    pos: Vec<u32>,
    dirty: Vec<bool>,
    dirty_count: usize,
    scratch: Vec<(u64, u32)>,
    /// Heap key of the last victim, for [`Policy::reinstate`].
    undo_key: u64,
}

impl Belady {
    /// Belady for `capacity` pages over `trace`, a sequence of packed request
    /// words (see [`crate::types::pack`]). Fails if the trace has `u32::MAX`
    /// requests or more.
    pub fn new(capacity: usize, trace: &[u32]) -> crate::Result<Self> {
        Self::from_words(capacity, trace.len(), trace.iter().rev().copied())
    }

    /// Like [`Belady::new`], from the trace's `len` words given back to
    /// front (so a mapped `flt` file needs no copy).
    pub fn from_words(
        capacity: usize,
        len: usize,
        rev_words: impl Iterator<Item = u32>,
    ) -> crate::Result<Self> {
        if len >= NEVER as usize {
            return Err(crate::Error::invalid(
                "Belady supports fewer than 2^32 - 1 requests",
            ));
        }
        let mut last: Vec<u32> = Vec::new();
        let mut next_use = vec![NEVER; len];
        let mut i = len;
        for w in rev_words.take(len) {
            i -= 1;
            let p = (w & MAX_DENSE) as usize;
            if p >= last.len() {
                last.resize((p + 1).max(last.len() * 2), NEVER);
            }
            next_use[i] = last[p];
            last[p] = i as u32;
        }
        let pages = last.len();
        Ok(Belady {
            cap: capacity,
            next_use,
            t: 0,
            heap: Vec::with_capacity(capacity),
            pos: vec![NIL; pages],
            dirty: vec![false; pages],
            dirty_count: 0,
            scratch: Vec::new(),
            undo_key: 0,
        })
    }

    #[inline]
    fn key_for(next: u32, dirty: bool) -> u64 {
        if next == NEVER {
            u64::MAX - u64::from(dirty)
        } else {
            u64::from(next)
        }
    }

    #[inline]
    fn resident(&self, page: DenseId) -> bool {
        self.pos.get(page as usize).is_some_and(|&p| p != NIL)
    }

    fn set_dirty(&mut self, page: DenseId, dirty: bool) {
        let d = &mut self.dirty[page as usize];
        if *d != dirty {
            *d = dirty;
            if dirty {
                self.dirty_count += 1;
            } else {
                self.dirty_count -= 1;
            }
        }
    }

    #[inline]
    fn place(&mut self, i: usize, e: (u64, u32)) {
        self.heap[i] = e;
        self.pos[e.1 as usize] = i as u32;
    }

    /// Moves the entry at `i` up while it beats its parent (hole method).
    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let e = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            let p = self.heap[parent];
            if p.0 >= e.0 {
                break;
            }
            self.place(i, p);
            i = parent;
        }
        self.place(i, e);
    }

    /// Moves the entry at `i` down while a child beats it (hole method).
    #[inline]
    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        let e = self.heap[i];
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let big = if r < n && self.heap[r].0 > self.heap[l].0 {
                r
            } else {
                l
            };
            let c = self.heap[big];
            if c.0 <= e.0 {
                break;
            }
            self.place(i, c);
            i = big;
        }
        self.place(i, e);
    }

    fn key_of(&self, page: DenseId) -> u64 {
        self.heap[self.pos[page as usize] as usize].0
    }

    fn rekey(&mut self, page: DenseId, key: u64) {
        let i = self.pos[page as usize] as usize;
        let old = self.heap[i].0;
        self.heap[i].0 = key;
        if key > old {
            self.sift_up(i);
        } else if key < old {
            self.sift_down(i);
        }
    }

    fn push(&mut self, page: DenseId, key: u64) {
        self.heap.push((key, page));
        let i = self.heap.len() - 1;
        self.sift_up(i);
    }

    fn pop_at(&mut self, i: usize) -> (u64, DenseId) {
        let last = self.heap.pop().expect("heap is not empty");
        let removed = if i < self.heap.len() {
            let removed = self.heap[i];
            self.place(i, last);
            self.sift_down(i);
            self.sift_up(self.pos[last.1 as usize] as usize);
            removed
        } else {
            last
        };
        self.pos[removed.1 as usize] = NIL;
        removed
    }

    fn consume(&mut self) -> u32 {
        let next = self.next_use[self.t];
        self.t += 1;
        next
    }
}

impl Policy for Belady {
    fn name(&self) -> String {
        "Belady".into()
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn len(&self) -> usize {
        self.heap.len()
    }
    fn contains(&self, page: DenseId) -> bool {
        self.resident(page)
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.resident(page) && self.dirty[page as usize]
    }
    fn dirty_count(&self) -> usize {
        self.dirty_count
    }

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        if !self.resident(page) {
            return false;
        }
        if op.is_write() {
            self.set_dirty(page, true);
        }
        let next = self.consume();
        let key = Self::key_for(next, self.dirty[page as usize]);
        self.rekey(page, key);
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.set_dirty(page, op.is_write());
        let next = self.consume();
        self.push(page, Self::key_for(next, op.is_write()));
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let mut found = None;
        while !self.heap.is_empty() {
            let (key, page) = self.pop_at(0);
            if evictable(page) {
                found = Some(page);
                self.undo_key = key;
                break;
            }
            self.scratch.push((key, page));
        }
        while let Some((k, p)) = self.scratch.pop() {
            self.push(p, k);
        }
        let page = found?;
        let dirty = self.dirty[page as usize];
        self.set_dirty(page, false);
        Some(Victim { page, dirty })
    }

    fn reinstate(&mut self, v: Victim) {
        self.set_dirty(v.page, v.dirty);
        self.push(v.page, self.undo_key);
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.resident(page) && !self.dirty[page as usize] {
            self.set_dirty(page, true);
            if self.key_of(page) == u64::MAX {
                self.rekey(page, u64::MAX - 1);
            }
        }
    }
    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        if self.resident(page) && self.dirty[page as usize] {
            self.set_dirty(page, false);
            if self.key_of(page) == u64::MAX - 1 {
                self.rekey(page, u64::MAX);
            }
        }
    }
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        if !self.resident(page) {
            return None;
        }
        let i = self.pos[page as usize] as usize;
        self.pop_at(i);
        let dirty = self.dirty[page as usize];
        self.set_dirty(page, false);
        Some(dirty)
    }
}
