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
//!
//! The segments lie in one chain, the top segment first, each from its most
//! to its least recently used page: a segment's LRU page is then already
//! next to the segment below, and handing it down is a change of its
//! segment number and of two segments' ends, with no page moved. The victim
//! is the chain's tail, and passing over pinned pages walks the chain.

use crate::policy::list::{Lists, Saved, NIL};
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

/// The most segments a buffer may have.
pub const MAX_SEGMENTS: usize = 8;
/// Default number of segments (libCacheSim's).
pub const DEFAULT_SEGMENTS: usize = 4;

/// The one list: every resident page, each node carrying its segment.
const CHAIN: u8 = 1;

/// Segmented LRU replacement.
#[derive(Clone, Debug)]
pub struct Slru {
    cap: usize,
    n: usize,
    /// Pages each segment holds at most.
    max: [usize; MAX_SEGMENTS],
    l: Lists<1, u8>,
    /// Pages each segment holds.
    held: [usize; MAX_SEGMENTS],
    /// Each segment's least recently used page (`NIL` when empty).
    last: [u32; MAX_SEGMENTS],
    /// The last victim's place and whether it was its segment's LRU page,
    /// for [`Policy::reinstate`] (its node keeps its segment).
    undo: Option<(Saved, bool)>,
}

impl Slru {
    /// Segmented LRU with libCacheSim's four segments.
    pub fn new(capacity: usize) -> Self {
        Self::with_segments(capacity, DEFAULT_SEGMENTS)
    }

    /// Segmented LRU with `segments` segments (1 to `MAX_SEGMENTS`, 8).
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
            held: [0; MAX_SEGMENTS],
            last: [NIL; MAX_SEGMENTS],
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

    /// The page that a page entering segment `s` at its front goes after:
    /// the last of the nearest segment above that holds pages (`NIL`: the
    /// chain's head). Known without reading a node.
    #[inline]
    fn behind(&self, s: usize) -> u32 {
        for t in s + 1..self.n {
            if self.last[t] != NIL {
                return self.last[t];
            }
        }
        NIL
    }

    /// Puts a page in no segment at the front of segment `s`.
    #[inline(always)]
    fn enter(&mut self, s: usize, page: DenseId) {
        let prev = self.behind(s);
        self.l.insert_after(CHAIN, page, prev);
        *self.l.extra_mut(page) = s as u8;
        if self.last[s] == NIL {
            self.last[s] = page;
        }
        self.held[s] += 1;
    }

    /// Takes `page` out of its segment's count and ends (not out of the
    /// chain); returns whether it was the segment's LRU page.
    #[inline]
    fn leave(&mut self, page: DenseId) -> bool {
        let s = usize::from(*self.l.extra(page));
        let was_last = self.last[s] == page;
        if was_last {
            self.last[s] = if self.held[s] > 1 {
                // The new LRU page's node is read at this segment's next
                // hand-down and written when a page enters the segment below.
                let prev = self.l.prev_of(page);
                self.l.prefetch(prev);
                prev
            } else {
                NIL
            };
        }
        self.held[s] -= 1;
        was_last
    }

    /// A hit below the top segment: `page` moves from segment `s` to the
    /// front of the one above. Out of line, so that the common hit, in the
    /// top segment, stays as small as LRU's.
    #[inline(never)]
    fn promote(&mut self, page: DenseId, s: usize) {
        self.leave(page);
        self.l.unlink(page);
        self.enter(s + 1, page);
        // Each segment over its size hands its LRU page down, which lies
        // at the front of the segment below already; the one the page came
        // from has room for it.
        let mut t = s + 1;
        while t >= 1 && self.held[t] > self.max[t] {
            let x = self.last[t];
            self.leave(x);
            *self.l.extra_mut(x) = (t - 1) as u8;
            if self.last[t - 1] == NIL {
                self.last[t - 1] = x;
            }
            self.held[t - 1] += 1;
            t -= 1;
        }
    }
}

impl Policy for Slru {
    fn name(&self) -> String {
        format!("SLRU({})", self.n)
    }
    crate::policy::list::list_policy_basics!(lists);
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
        self.size_segments();
    }
    fn len(&self) -> usize {
        self.l.len(CHAIN)
    }

    // Always inlined into the caller's loop: a top-segment hit is then
    // as small as LRU's (promotions stay out of line).
    #[inline(always)]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        if self.l.list_of(page) == 0 {
            return false;
        }
        let top = self.n - 1;
        let s = usize::from(*self.l.extra(page));
        if s == top {
            if self.last[top] == page && self.held[top] > 1 {
                self.last[top] = self.l.prev_of(page);
            }
            self.l.move_front(CHAIN, page);
        } else {
            self.promote(page, s);
        }
        self.l.dirty_if_write(page, op);
        true
    }

    #[inline(always)]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        let segment = (0..self.n)
            .find(|&s| self.held[s] < self.max[s])
            .unwrap_or(0);
        self.enter(segment, page);
        self.l.set_dirty(page, op.is_write());
    }

    // Inlined into the replay loop: out of line, SLRU takes 2-4% longer
    // on libCacheSim's Twitter trace.
    #[inline]
    fn evict<F: FnMut(DenseId) -> bool>(&mut self, evictable: F) -> Option<Victim> {
        let page = self.l.find_from_back(CHAIN, evictable)?;
        let saved = self.l.save(page);
        let was_last = self.leave(page);
        self.undo = Some((saved, was_last));
        let dirty = self.l.remove(page);
        Some(Victim { page, dirty })
    }

    fn reinstate(&mut self, v: Victim) {
        let (saved, was_last) = self.undo.take().expect("reinstate follows an eviction");
        debug_assert_eq!(saved.page(), v.page);
        self.l.restore(saved);
        let s = usize::from(*self.l.extra(v.page));
        self.held[s] += 1;
        if was_last {
            self.last[s] = v.page;
        }
    }

    crate::policy::list::dirty_marks!();
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        if !self.contains(page) {
            return None;
        }
        self.leave(page);
        Some(self.l.remove(page))
    }

    #[inline]
    fn victim_ahead(&self, k: usize) -> Option<DenseId> {
        let mut p = self.l.tail(CHAIN);
        for _ in 0..k {
            if p == NIL {
                return None;
            }
            p = self.l.prev_of(p);
        }
        (p != NIL).then_some(p)
    }
}

// The policy's spec (`policy/named.rs`).

const SEGMENTS: crate::spec::Param = crate::spec::Param {
    key: "segments",
    ty: crate::spec::Ty::Int(1, MAX_SEGMENTS as u64),
    default: "4",
    help: "LRU segments, each a share of the buffer; a hit moves a page one segment up (libCacheSim's 4; the paper's 2)",
};

named!(
    Slru,
    "slru",
    "segmented LRU, Karedla et al. 1994: a hit moves a page one segment up, overflow moves down",
    Serves::POOL,
    [SEGMENTS],
    usize,
    |g| Ok(g.int("segments") as usize),
    |p, capacity| Slru::with_segments(capacity, p)
);

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
