//! Exact LRU cost curves in one pass: the misses **and the dirty
//! write-backs** of LRU at every buffer size from 1 to the number of
//! distinct pages, from one pass over the trace, so the virtual time at
//! every size on every device follows without another pass (Mattson et
//! al.'s stack algorithm, extended to write-backs). [`shards`] samples the
//! trace spatially for huge traces (Waldspurger et al., FAST 2015).
//!
//! # Misses
//!
//! LRU is a stack algorithm: a buffer of `C` pages holds the `C` most
//! recently used pages. A request whose page was last requested with `d − 1`
//! other distinct pages in between (its *stack distance* `d`) hits exactly
//! when `d ≤ C`; a first request misses at every size. Distances come from
//! a Fenwick tree over request times holding a 1 at each page's last
//! request: `d` = 1 + the ones after the page's own, O(log n) a request.
//! The tree spans a window of at most twice the distinct pages seen; when
//! time reaches its end, the last-request times are renumbered in order
//! and the tree rebuilt, so memory stays proportional to the pages, not
//! the requests.
//!
//! # Write-backs: the counting rule
//!
//! Take one page and one size `C`. Its requests split into *residencies*:
//! a residency starts with a miss and lasts while the gaps between the
//! page's consecutive requests have distance `≤ C`. The page is dirty in a
//! residency iff one of the residency's requests is a write, and a dirty
//! residency costs one write-back iff it ends by eviction: at the next
//! request's miss (a gap `d > C`), or before the trace ends, which happens
//! iff at least `C` other distinct pages are requested after the page's
//! last request (its *end distance* `e ≥ C`). (A page still resident at the
//! end is `dirty_at_end`, not written, as in the simulator.)
//!
//! For every size at once: at a gap of distance `d` after request `j − 1`,
//! let `w` be the page's last write at or before `j − 1` and `M` the
//! largest gap distance between `w` and `j − 1` (0 if `w = j − 1`). The
//! residency ending at `j − 1` is evicted iff `C < d`, and contains `w` iff
//! every gap since `w` is `≤ C`, i.e. `C ≥ M` (an earlier write lies in
//! the residency only if `w` does). So the gap writes back at exactly the
//! sizes `C ∈ [max(M, 1), d − 1]`, and the end of the trace at
//! `C ∈ [max(M, 1), e]`. Each range is two entries of a difference array;
//! a prefix sum gives the write-backs at every size. Per page the pass
//! keeps its last request time and `M` (or "no write yet"): O(1) a
//! request besides the tree.
//!
//! The tests replay random traces through the simulator's LRU at every
//! size and require equal counts.

pub mod shards;

use crate::types::{DenseId, Op};

const NONE: u32 = u32::MAX;

/// Misses and write-backs of LRU at every size `0..=pages` (index = size;
/// size 0 misses every request and writes back nothing it did not
/// buffer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Curve {
    /// Requests in the pass.
    pub requests: u64,
    /// Distinct pages (the largest size that matters).
    pub pages: u64,
    /// First requests of a page: misses at every size.
    pub cold: u64,
    /// `misses[c]`: misses of LRU with `c` pages.
    pub misses: Vec<u64>,
    /// `writebacks[c]`: dirty evictions of LRU with `c` pages.
    pub writebacks: Vec<u64>,
}

impl Curve {
    /// Misses at `size` pages (beyond the distinct pages: the cold misses).
    pub fn misses_at(&self, size: u64) -> u64 {
        self.misses.get(size as usize).copied().unwrap_or(self.cold)
    }

    /// Write-backs at `size` pages.
    pub fn writebacks_at(&self, size: u64) -> u64 {
        self.writebacks.get(size as usize).copied().unwrap_or(0)
    }
}

/// A Fenwick tree of 0/1 markers over a window of request times.
#[derive(Debug)]
struct Fenwick {
    tree: Vec<u32>,
    ones: u32,
}

impl Fenwick {
    fn new(len: usize) -> Self {
        Fenwick {
            tree: vec![0; len + 1],
            ones: 0,
        }
    }

    fn len(&self) -> usize {
        self.tree.len() - 1
    }

    #[inline]
    fn add(&mut self, at: u32, delta: i32) {
        let mut i = at as usize + 1;
        while i < self.tree.len() {
            self.tree[i] = self.tree[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
        self.ones = self.ones.wrapping_add_signed(delta);
    }

    /// Markers at times `≤ at`.
    #[inline]
    fn prefix(&self, at: u32) -> u32 {
        let mut i = at as usize + 1;
        let mut s = 0;
        while i > 0 {
            s += self.tree[i];
            i &= i - 1;
        }
        s
    }

    /// Rebuilds with markers at `0..ones` exactly (after renumbering).
    fn reset_to_prefix(&mut self, ones: u32) {
        self.tree.fill(0);
        for i in 1..self.tree.len() {
            if i <= ones as usize {
                self.tree[i] += 1;
            }
            let parent = i + (i & i.wrapping_neg());
            if parent < self.tree.len() {
                self.tree[parent] += self.tree[i];
            }
        }
        self.ones = ones;
    }
}

/// The one-pass state: feed requests with [`CurveBuilder::push`], then
/// [`CurveBuilder::finish`].
#[derive(Debug)]
pub struct CurveBuilder {
    last: Vec<u32>,
    gap_max: Vec<u32>,
    fenwick: Fenwick,
    now: u32,
    requests: u64,
    cold: u64,
    distances: Vec<u64>,
    wb_diff: Vec<i64>,
}

/// `gap_max` of a page never written.
const NO_WRITE: u32 = u32::MAX;

impl CurveBuilder {
    /// A builder for dense ids `0..pages` (more are taken as they come).
    pub fn new(pages: usize) -> Self {
        CurveBuilder {
            last: vec![NONE; pages],
            gap_max: vec![NO_WRITE; pages],
            fenwick: Fenwick::new(2 * pages.max(1024)),
            now: 0,
            requests: 0,
            cold: 0,
            distances: vec![0; pages + 2],
            wb_diff: vec![0; pages + 3],
        }
    }

    fn grow(&mut self, page: DenseId) {
        let n = page as usize + 1;
        if n > self.last.len() {
            let n = n.max(2 * self.last.len());
            self.last.resize(n, NONE);
            self.gap_max.resize(n, NO_WRITE);
            self.sizes(n);
        }
    }

    /// Makes the per-size arrays cover sizes up to `n`.
    fn sizes(&mut self, n: usize) {
        if n + 2 > self.distances.len() {
            let n = (n + 2).max(2 * self.distances.len());
            self.distances.resize(n, 0);
            self.wb_diff.resize(n + 1, 0);
        }
    }

    /// Renumbers the last-request times `0..k` in order and rebuilds the
    /// tree, when time reaches the end of its window.
    fn compact(&mut self) {
        let mut live: Vec<(u32, u32)> = self
            .last
            .iter()
            .enumerate()
            .filter(|(_, &t)| t != NONE)
            .map(|(p, &t)| (t, p as u32))
            .collect();
        live.sort_unstable();
        for (i, &(_, p)) in live.iter().enumerate() {
            self.last[p as usize] = i as u32;
        }
        let k = live.len() as u32;
        let want = (2 * live.len()).max(1024).max(self.last.len());
        if self.fenwick.len() < want {
            self.fenwick = Fenwick::new(want);
        }
        self.fenwick.reset_to_prefix(k);
        self.now = k;
    }

    #[inline]
    fn range(&mut self, lo: u64, hi: u64) {
        let lo = lo.max(1);
        if lo <= hi {
            self.wb_diff[lo as usize] += 1;
            self.wb_diff[hi as usize + 1] -= 1;
        }
    }

    /// One request.
    #[inline]
    pub fn push(&mut self, page: DenseId, op: Op) {
        self.push_scaled(page, op, 1);
    }

    /// One request whose distances count `scale` times (a spatially sampled
    /// request: SHARDS scales distances by 1/R). Counts are per sampled
    /// request; the caller scales them.
    #[inline]
    pub(crate) fn push_scaled(&mut self, page: DenseId, op: Op, scale: u64) {
        self.grow(page);
        if self.now as usize >= self.fenwick.len() {
            self.compact();
        }
        self.requests += 1;
        let p = page as usize;
        let prev = self.last[p];
        if prev == NONE {
            self.cold += 1;
        } else {
            let d = u64::from(self.fenwick.ones - self.fenwick.prefix(prev) + 1) * scale;
            self.sizes(d as usize);
            self.distances[d as usize] += 1;
            let m = self.gap_max[p];
            if m != NO_WRITE {
                self.range(u64::from(m), d - 1);
                self.gap_max[p] = m.max(d.min(u64::from(u32::MAX - 1)) as u32);
            }
            self.fenwick.add(prev, -1);
        }
        if op == Op::Write {
            self.gap_max[p] = 0;
        }
        self.fenwick.add(self.now, 1);
        self.last[p] = self.now;
        self.now += 1;
    }

    /// The curve; `scale` multiplies end distances (1 when exact).
    pub(crate) fn finish_scaled(mut self, scale: u64) -> Curve {
        // The end of the trace: a dirty page is written back at the sizes
        // its end distance reaches.
        for p in 0..self.last.len() {
            let t = self.last[p];
            let m = self.gap_max[p];
            if t != NONE && m != NO_WRITE {
                let e = u64::from(self.fenwick.ones - self.fenwick.prefix(t)) * scale;
                self.sizes(e as usize);
                self.range(u64::from(m), e);
            }
        }
        let pages = self.last.iter().filter(|&&t| t != NONE).count() as u64 * scale;
        self.sizes(pages as usize);
        let n = pages as usize + 1;
        // misses[c] = cold + requests at distance > c
        let mut misses = vec![0u64; n];
        let mut above: u64 = self.distances[n..].iter().sum();
        for c in (0..n).rev() {
            misses[c] = self.cold + above;
            above += self.distances[c];
        }
        let mut writebacks = vec![0u64; n];
        let mut run = 0i64;
        for (c, w) in writebacks.iter_mut().enumerate() {
            run += self.wb_diff[c];
            *w = run as u64;
        }
        Curve {
            requests: self.requests,
            pages,
            cold: self.cold,
            misses,
            writebacks,
        }
    }

    /// The curve of the requests pushed.
    pub fn finish(self) -> Curve {
        self.finish_scaled(1)
    }
}

/// The exact LRU curve of `requests` over dense ids `0..pages`.
pub fn lru_curve(requests: impl IntoIterator<Item = (DenseId, Op)>, pages: usize) -> Curve {
    let mut b = CurveBuilder::new(pages);
    for (p, op) in requests {
        b.push(p, op);
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worked_examples_of_the_counting_rule() {
        let w = |p| (p, Op::Write);
        let r = |p| (p, Op::Read);
        // W p, R q, R p: p leaves dirty at size 1 only.
        let c = lru_curve([w(0), r(1), r(0)], 2);
        assert_eq!(c.misses, vec![3, 3, 2]);
        assert_eq!(c.writebacks, vec![0, 1, 0]);
        // W p, R q: evicted before the end at size 1 only.
        let c = lru_curve([w(0), r(1)], 2);
        assert_eq!(c.writebacks, vec![0, 1, 0]);
        // W p, R q, R r, W p, R q: at size 1 p is written back twice (two
        // dirty residencies), at size 2 once (the gap of distance 3 ends
        // the first residency; the second stays to the end).
        let c = lru_curve([w(0), r(1), r(2), w(0), r(1)], 3);
        assert_eq!(c.writebacks, vec![0, 2, 1, 0]);
    }

    #[test]
    fn compaction_keeps_distances_exact() {
        // 3 pages in a loop for many rounds: the window (at least 1,024
        // times) is renumbered many times; every re-request has distance 3.
        let trace: Vec<(DenseId, Op)> = (0..10_000).map(|i| ((i % 3) as u32, Op::Read)).collect();
        let c = lru_curve(trace, 3);
        assert_eq!(c.misses, vec![10_000, 10_000, 10_000, 3]);
    }
}
