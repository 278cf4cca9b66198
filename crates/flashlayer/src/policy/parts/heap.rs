//! An indexed binary min-heap over dense page ids with `f64` keys: the
//! resident pages of a policy that evicts by a per-page priority that does
//! not follow the order of requests (costopt-ub's rent). Each page knows its slot, so a
//! key changes or a page leaves in O(log n) without a search, and nothing
//! is allocated once the vectors have grown to the buffer and the page ids.

use crate::types::DenseId;

const NIL: u32 = u32::MAX;

/// A priority and a tie-breaker: keys compare by the priority, then by the
/// tie-breaker (callers pass a sequence number, so equal priorities leave in
/// the order a rule of theirs fixes, never by accident of the heap's shape).
pub(crate) type Key = (f64, u64);

/// Resident pages ordered by key, smallest on top.
#[derive(Clone, Debug, Default)]
pub(crate) struct KeyHeap {
    /// `(key, page)` in heap order.
    items: Vec<(Key, DenseId)>,
    /// Per page: its index in `items`, or `NIL`.
    pos: Vec<u32>,
}

impl KeyHeap {
    pub(crate) fn with_pages(pages: usize) -> Self {
        KeyHeap {
            items: Vec::new(),
            pos: vec![NIL; pages],
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// The page on top and its key.
    pub(crate) fn top(&self) -> Option<(Key, DenseId)> {
        self.items.first().copied()
    }

    /// Adds `page` with `key`, or moves it to `key` if it is in already.
    pub(crate) fn set(&mut self, page: DenseId, key: Key) {
        if page as usize >= self.pos.len() {
            self.pos
                .resize((page as usize + 1).max(self.pos.len() * 2), NIL);
        }
        let at = self.pos[page as usize];
        if at == NIL {
            self.items.push((key, page));
            let i = self.items.len() - 1;
            self.pos[page as usize] = i as u32;
            self.up(i);
        } else {
            let i = at as usize;
            let old = self.items[i].0;
            self.items[i].0 = key;
            if key < old {
                self.up(i);
            } else {
                self.down(i);
            }
        }
    }

    /// Takes `page` out; returns whether it was in.
    pub(crate) fn remove(&mut self, page: DenseId) -> bool {
        let Some(&at) = self.pos.get(page as usize) else {
            return false;
        };
        if at == NIL {
            return false;
        }
        let i = at as usize;
        let last = self.items.len() - 1;
        self.swap(i, last);
        self.items.pop();
        self.pos[page as usize] = NIL;
        if i < self.items.len() {
            self.down(i);
            self.up(i);
        }
        true
    }

    /// The entries in heap order (the top first, the rest in no useful
    /// order): for a victim search that must skip pages it may not evict.
    pub(crate) fn entries(&self) -> &[(Key, DenseId)] {
        &self.items
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.items.swap(a, b);
        self.pos[self.items[a].1 as usize] = a as u32;
        self.pos[self.items[b].1 as usize] = b as u32;
    }

    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.items[i].0 >= self.items[parent].0 {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn down(&mut self, mut i: usize) {
        let n = self.items.len();
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && self.items[l].0 < self.items[m].0 {
                m = l;
            }
            if r < n && self.items[r].0 < self.items[m].0 {
                m = r;
            }
            if m == i {
                return;
            }
            self.swap(i, m);
            i = m;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_pops_in_key_order_after_updates_and_removals() {
        let mut h = KeyHeap::with_pages(4);
        for (p, k) in [(0, 5.0), (1, 3.0), (2, 8.0), (3, 1.0), (7, 4.0), (5, 5.0)] {
            h.set(p, (k, u64::from(p)));
        }
        h.set(2, (0.5, 2));
        h.set(3, (9.0, 3));
        assert!(h.remove(1));
        assert!(!h.remove(1));
        let mut order = Vec::new();
        while let Some((_, p)) = h.top() {
            order.push(p);
            h.remove(p);
        }
        assert_eq!(order, vec![2, 7, 0, 5, 3]);
        assert_eq!(h.len(), 0);
    }
}
