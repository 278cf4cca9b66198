//! Segmented LRU (Karedla, Love & Wherry, "Caching strategies to improve
//! disk system performance", IEEE Computer 1994), with `n` segments of LRU
//! order: a hit moves a page to the head of the segment above its own (in
//! the top segment, to its head); a segment over its size hands its LRU page
//! to the head of the segment below; the victim is the LRU page of the
//! lowest segment that holds pages.
//!
//! As libCacheSim 0.3.5 (`SLRU.c`): `n` = 4 segments by default (the paper's
//! two are `slru:segments=2`), each of ⌊B/n⌋ pages, and a new page enters
//! the lowest segment with room (so while the buffer fills, pages enter
//! higher segments once the lower ones are full). Where B is not a multiple
//! of n the lowest segment takes the remaining pages, so the segments hold
//! exactly B (libCacheSim leaves them short and lets its lowest segment
//! overflow, which can make a hit evict a page). Pages the caller cannot
//! evict (pinned) are passed over, from the lowest segment up.

use super::list::{Lists, Saved};
use super::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

/// The most segments a buffer may have.
pub const MAX_SEGMENTS: usize = 8;
/// Default number of segments (libCacheSim's).
pub const DEFAULT_SEGMENTS: usize = 4;

/// Segmented LRU replacement.
#[derive(Clone, Debug)]
pub struct Slru {
    cap: usize,
    n: usize,
    /// Pages each segment holds at most; segment `s` is list `s + 1`.
    max: [usize; MAX_SEGMENTS],
    l: Lists<MAX_SEGMENTS>,
    /// Resident pages: the segments' lengths summed, kept because every
    /// miss asks.
    len: usize,
    /// The last victim's place, for [`Policy::reinstate`].
    undo: Option<Saved>,
}

impl Slru {
    /// Segmented LRU with libCacheSim's four segments.
    pub fn new(capacity: usize) -> Self {
        Self::with_segments(capacity, DEFAULT_SEGMENTS)
    }

    /// Segmented LRU with `segments` segments (1 to [`MAX_SEGMENTS`]).
    pub fn with_segments(capacity: usize, segments: usize) -> Self {
        assert!(
            (1..=MAX_SEGMENTS).contains(&segments),
            "1 to {MAX_SEGMENTS} segments"
        );
        let mut s = Slru {
            cap: capacity,
            n: segments,
            max: [0; MAX_SEGMENTS],
            l: Lists::new(),
            len: 0,
            undo: None,
        };
        s.size_segments();
        s
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        self
    }

    fn size_segments(&mut self) {
        let each = self.cap / self.n;
        self.max = [0; MAX_SEGMENTS];
        self.max[..self.n].fill(each);
        self.max[0] = self.cap - each * (self.n - 1);
    }

    #[inline]
    fn list(segment: usize) -> u8 {
        segment as u8 + 1
    }
}

impl Policy for Slru {
    fn name(&self) -> String {
        format!("SLRU({})", self.n)
    }
    super::list::list_policy_basics!();
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
        self.size_segments();
    }
    fn len(&self) -> usize {
        self.len
    }
    fn contains(&self, page: DenseId) -> bool {
        self.l.list_of(page) != 0
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        self.l.prefetch(page);
    }

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        let list = self.l.list_of(page);
        if list == 0 {
            return false;
        }
        let top = Self::list(self.n - 1);
        if list == top {
            self.l.move_front(top, page);
        } else {
            self.l.unlink(page);
            self.l.push_front(list + 1, page);
            // Each segment over its size hands its LRU page down; the one
            // the page came from has room for it.
            let mut s = usize::from(list);
            while s >= 1 && self.l.len(Self::list(s)) > self.max[s] {
                let tail = self.l.tail(Self::list(s));
                self.l.unlink(tail);
                self.l.push_front(Self::list(s - 1), tail);
                s -= 1;
            }
        }
        if op.is_write() {
            self.l.set_dirty(page, true);
        }
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        let segment = (0..self.n)
            .find(|&s| self.l.len(Self::list(s)) < self.max[s])
            .unwrap_or(0);
        self.l.push_front(Self::list(segment), page);
        self.l.set_dirty(page, op.is_write());
        self.len += 1;
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        for s in 0..self.n {
            if let Some(page) = self.l.find_from_back(Self::list(s), &mut evictable) {
                self.undo = Some(self.l.save(page));
                let dirty = self.l.remove(page);
                self.len -= 1;
                return Some(Victim { page, dirty });
            }
        }
        None
    }

    fn reinstate(&mut self, v: Victim) {
        let saved = self.undo.take().expect("reinstate follows an eviction");
        debug_assert_eq!(saved.page(), v.page);
        self.l.restore(saved);
        self.len += 1;
    }

    super::list::dirty_marks!();
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        let dirty = self.contains(page).then(|| self.l.remove(page))?;
        self.len -= 1;
        Some(dirty)
    }

    #[inline]
    fn victim_ahead(&self, k: usize) -> Option<DenseId> {
        let s = (0..self.n).find(|&s| self.l.len(Self::list(s)) > 0)?;
        let mut p = self.l.tail(Self::list(s));
        for _ in 0..k {
            p = self.l.prev_of(p);
            if p == super::list::NIL {
                return None;
            }
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::agrees_with_model;

    const C: PageCost = PageCost::new(1.0, 1.0);

    /// SLRU over `n` vectors, each in LRU order (front = MRU).
    struct Model {
        max: Vec<usize>,
        seg: Vec<Vec<DenseId>>,
    }

    impl Model {
        fn new(cap: usize, n: usize) -> Self {
            let mut max = vec![cap / n; n];
            max[0] = cap - (cap / n) * (n - 1);
            Model {
                max,
                seg: vec![Vec::new(); n],
            }
        }

        fn request(&mut self, page: DenseId) -> (bool, Option<DenseId>) {
            let n = self.seg.len();
            if let Some(s) = self.seg.iter().position(|v| v.contains(&page)) {
                self.seg[s].retain(|&p| p != page);
                let up = (s + 1).min(n - 1);
                self.seg[up].insert(0, page);
                let mut t = up;
                while t > 0 && self.seg[t].len() > self.max[t] {
                    let p = self.seg[t].pop().unwrap();
                    self.seg[t - 1].insert(0, p);
                    t -= 1;
                }
                return (true, None);
            }
            let mut victim = None;
            if self.seg.iter().map(Vec::len).sum::<usize>() == self.max.iter().sum::<usize>() {
                let s = self.seg.iter().position(|v| !v.is_empty()).unwrap();
                victim = self.seg[s].pop();
            }
            let s = (0..n)
                .find(|&s| self.seg[s].len() < self.max[s])
                .unwrap_or(0);
            self.seg[s].insert(0, page);
            (false, victim)
        }
    }

    #[test]
    fn slru_promotes_demotes_and_evicts_as_its_segments_say_victim_by_victim() {
        for (cap, n) in [(4usize, 4usize), (8, 4), (10, 4), (9, 2), (20, 3), (5, 1)] {
            let mut m = Model::new(cap, n);
            let model = |p| m.request(p);
            agrees_with_model(
                &mut Slru::with_segments(cap, n),
                model,
                50,
                5_000,
                0x13198a2e03707344,
            );
        }
    }

    #[test]
    fn slru_reinstate_puts_the_victim_back_and_pinned_pages_are_passed() {
        let mut s = Slru::with_segments(4, 2);
        for p in 0..4 {
            s.insert(p, if p == 0 { Op::Write } else { Op::Read }, C);
        }
        let v = s.evict(|_| true).unwrap();
        assert_eq!(
            v,
            Victim {
                page: 0,
                dirty: true
            }
        );
        s.reinstate(v);
        assert_eq!((s.len(), s.dirty_count()), (4, 1));
        assert_eq!(s.evict(|p| p != 0).unwrap().page, 1);
        assert_eq!(s.evict(|_| false), None);
    }
}
