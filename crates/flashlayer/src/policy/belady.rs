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
    heap: Vec<u32>,
    pos: Vec<u32>,
    key: Vec<u64>,
    dirty: Vec<bool>,
    dirty_count: usize,
    scratch: Vec<u32>,
}

impl Belady {
    /// Belady for `capacity` pages over `trace`, a sequence of packed request
    /// words (see [`crate::types::pack`]). Fails if the trace has `u32::MAX`
    /// requests or more.
    pub fn new(capacity: usize, trace: &[u32]) -> crate::Result<Self> {
        if trace.len() >= NEVER as usize {
            return Err(crate::Error::invalid("Belady supports fewer than 2^32 - 1 requests"));
        }
        let pages = trace.iter().map(|w| (w & MAX_DENSE) as usize + 1).max().unwrap_or(0);
        let mut last = vec![NEVER; pages];
        let mut next_use = vec![NEVER; trace.len()];
        for (i, w) in trace.iter().enumerate().rev() {
            let p = (w & MAX_DENSE) as usize;
            next_use[i] = last[p];
            last[p] = i as u32;
        }
        Ok(Belady {
            cap: capacity,
            next_use,
            t: 0,
            heap: Vec::with_capacity(capacity),
            pos: vec![NIL; pages],
            key: vec![0; pages],
            dirty: vec![false; pages],
            dirty_count: 0,
            scratch: Vec::new(),
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
    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a] as usize] = a as u32;
        self.pos[self.heap[b] as usize] = b as u32;
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.key[self.heap[parent] as usize] >= self.key[self.heap[i] as usize] {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    #[inline]
    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let mut big = l;
            if r < n && self.key[self.heap[r] as usize] > self.key[self.heap[l] as usize] {
                big = r;
            }
            if self.key[self.heap[big] as usize] <= self.key[self.heap[i] as usize] {
                break;
            }
            self.swap(i, big);
            i = big;
        }
    }

    fn rekey(&mut self, page: DenseId, key: u64) {
        let old = self.key[page as usize];
        self.key[page as usize] = key;
        let i = self.pos[page as usize] as usize;
        if key > old {
            self.sift_up(i);
        } else if key < old {
            self.sift_down(i);
        }
    }

    fn push(&mut self, page: DenseId, key: u64) {
        self.key[page as usize] = key;
        self.heap.push(page);
        let i = self.heap.len() - 1;
        self.pos[page as usize] = i as u32;
        self.sift_up(i);
    }

    fn pop_at(&mut self, i: usize) -> DenseId {
        let last = self.heap.len() - 1;
        self.swap(i, last);
        let page = self.heap.pop().expect("heap is not empty");
        self.pos[page as usize] = NIL;
        if i < self.heap.len() {
            self.sift_down(i);
            self.sift_up(i);
        }
        page
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
            let page = self.pop_at(0);
            if evictable(page) {
                found = Some(page);
                break;
            }
            self.scratch.push(page);
        }
        while let Some(p) = self.scratch.pop() {
            let k = self.key[p as usize];
            self.push(p, k);
        }
        let page = found?;
        let dirty = self.dirty[page as usize];
        self.set_dirty(page, false);
        Some(Victim { page, dirty })
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.resident(page) && !self.dirty[page as usize] {
            self.set_dirty(page, true);
            if self.key[page as usize] == u64::MAX {
                self.rekey(page, u64::MAX - 1);
            }
        }
    }
    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        if self.resident(page) && self.dirty[page as usize] {
            self.set_dirty(page, false);
            if self.key[page as usize] == u64::MAX - 1 {
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
