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
//! markers over request times holding a 1 at each page's last request
//! (a bitmap with a Fenwick tree over its 512-bit blocks): `d` = 1 + the
//! ones after the page's own, O(log n) a request.
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

pub mod sample;
pub mod shards;

use crate::types::{DenseId, Op};
pub(crate) use markers::Markers;

mod markers;

const NONE: u32 = u32::MAX;

/// Misses and write-backs of LRU against buffer size. Entry `i` is the
/// size `i × width` pages: `width` is 1 for an exact curve (every size),
/// a power of two when a sampled curve keeps a bounded number of bins.
/// Counts are `f64` so a sampled curve can scale them; an exact curve's are
/// whole numbers (exact in `f64` up to 2^53).
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// Requests of the trace.
    pub requests: u64,
    /// Requests that went into the curve (all of them unless sampled).
    pub sampled: u64,
    /// Distinct pages (estimated when sampled): the largest size that
    /// matters.
    pub pages: f64,
    /// Pages per entry.
    pub width: u64,
    /// First requests of a page: misses at every size.
    pub cold: f64,
    /// `misses[i]`: misses of LRU with `i × width` pages.
    pub misses: Vec<f64>,
    /// `writebacks[i]`: dirty evictions of LRU with `i × width` pages.
    pub writebacks: Vec<f64>,
}

impl Curve {
    fn entry(&self, size: u64) -> Option<usize> {
        let i = (size / self.width) as usize;
        (i < self.misses.len()).then_some(i)
    }

    /// Misses at `size` pages (beyond the distinct pages: the cold misses).
    pub fn misses_at(&self, size: u64) -> f64 {
        self.entry(size).map_or(self.cold, |i| self.misses[i])
    }

    /// Write-backs at `size` pages.
    pub fn writebacks_at(&self, size: u64) -> f64 {
        self.entry(size).map_or(0.0, |i| self.writebacks[i])
    }

    /// LRU's virtual time at `size` pages on `device`, priced as the
    /// simulator prices a cost store: a miss is a random read, a write-back
    /// a random write (dirty pages left at the end are not written).
    pub fn virtual_time_at(&self, size: u64, device: &crate::device::DeviceModel) -> f64 {
        self.misses_at(size) * device.read + self.writebacks_at(size) * device.write
    }
}

/// Sizes a curve is drawn at by default.
pub const DEFAULT_POINTS: usize = 50;

/// About `points` sizes (at least 2) log-spaced from 1 page to `pages`,
/// whole and ascending.
pub fn log_sizes(pages: u64, points: usize) -> crate::error::Result<Vec<u64>> {
    if points < 2 {
        return Err(crate::error::Error::invalid(format!(
            "a curve needs at least 2 points, got {points}"
        )));
    }
    let top = pages.max(1) as f64;
    let mut out: Vec<u64> = (0..points)
        .map(|i| ((top.ln() * i as f64 / (points - 1) as f64).exp().round() as u64).max(1))
        .collect();
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// 0/1 markers over a window of request times: one bit per time, and a
/// The one-pass state: feed requests with [`CurveBuilder::push`], then
/// [`CurveBuilder::finish`].
#[derive(Debug)]
pub struct CurveBuilder {
    /// Per page: its last request time and `M` (one cache line holds both).
    state: Vec<PageState>,
    markers: Markers,
    now: u32,
    sampled: u64,
    cold: f64,
    width: u64,
    max_bins: usize,
    distances: Vec<f64>,
    wb_diff: Vec<f64>,
    /// Distance counts not yet added, each prefetched when recorded: the
    /// histogram is far larger than the cache, and adding a few requests
    /// later lets the load overlap the work in between.
    pending: [(u32, f64); PENDING],
    next_pending: usize,
    /// Write-back ranges not yet added (both ends prefetched), likewise.
    pending_wb: [(u32, u32, f64); PENDING],
    next_pending_wb: usize,
}

const PENDING: usize = 8;

#[derive(Clone, Copy, Debug)]
struct PageState {
    last: u32,
    gap_max: u32,
}

const UNSEEN: PageState = PageState {
    last: NONE,
    gap_max: NO_WRITE,
};

/// `gap_max` of a page never written.
const NO_WRITE: u32 = u32::MAX;

impl CurveBuilder {
    /// A builder for dense ids `0..pages` (more are taken as they come).
    pub fn new(pages: usize) -> Self {
        Self::binned(pages, usize::MAX)
    }

    /// A builder keeping at most `max_bins` size bins (≥ 2): when a
    /// distance falls beyond, the bins double in width and merge pairwise.
    pub(crate) fn binned(pages: usize, max_bins: usize) -> Self {
        let bins = (pages + 3).min(max_bins.max(2).saturating_add(1));
        CurveBuilder {
            state: vec![UNSEEN; pages],
            markers: Markers::new(2 * pages.max(1024)),
            now: 0,
            sampled: 0,
            cold: 0.0,
            width: 1,
            max_bins: max_bins.max(2),
            distances: vec![0.0; bins],
            wb_diff: vec![0.0; bins + 1],
            pending: [(0, 0.0); PENDING],
            next_pending: 0,
            pending_wb: [(0, 0, 0.0); PENDING],
            next_pending_wb: 0,
        }
    }

    /// Adds the pending distance counts (before bins merge, and at the end).
    fn settle(&mut self) {
        for (bin, w) in std::mem::replace(&mut self.pending, [(0, 0.0); PENDING]) {
            self.distances[bin as usize] += w;
        }
        for (lo, hi, w) in std::mem::replace(&mut self.pending_wb, [(0, 0, 0.0); PENDING]) {
            self.wb_diff[lo as usize] += w;
            self.wb_diff[hi as usize] -= w;
        }
    }

    #[inline]
    fn count_distance(&mut self, bin: usize, weight: f64) {
        crate::types::prefetch(&self.distances[bin]);
        let (old, w) =
            std::mem::replace(&mut self.pending[self.next_pending], (bin as u32, weight));
        self.distances[old as usize] += w;
        self.next_pending = (self.next_pending + 1) % PENDING;
    }

    /// Starts loading the last request time of `page` (a request coming
    /// soon).
    #[inline]
    pub fn prefetch(&self, page: DenseId) {
        if let Some(t) = self.state.get(page as usize) {
            crate::types::prefetch(t);
        }
    }

    /// Starts loading the marker word the distance of `page`'s coming
    /// request reads (its last request time should be cached by now).
    #[inline]
    pub fn prefetch_tree(&self, page: DenseId) {
        if let Some(st) = self.state.get(page as usize) {
            if let Some(word) = self.markers.word(st.last) {
                crate::types::prefetch(word);
            }
        }
    }

    fn grow(&mut self, page: DenseId) {
        let n = page as usize + 1;
        if n > self.state.len() {
            let n = n.max(2 * self.state.len());
            self.state.resize(n, UNSEEN);
            if self.max_bins == usize::MAX {
                self.sizes(n as u64);
            }
        }
    }

    /// Makes the bins cover sizes up to `n` pages: more bins while under
    /// the bound, else wider ones (pairs merged; a difference array's sums
    /// at even boundaries are kept).
    #[inline]
    fn sizes(&mut self, n: u64) {
        if (n / self.width) as usize + 2 > self.distances.len() {
            self.grow_sizes(n);
        }
    }

    #[cold]
    fn grow_sizes(&mut self, n: u64) {
        loop {
            let need = (n / self.width) as usize + 2;
            if need <= self.distances.len() {
                return;
            }
            if need <= self.max_bins {
                let len = need.max(2 * self.distances.len()).min(self.max_bins);
                self.distances.resize(len, 0.0);
                self.wb_diff.resize(len + 1, 0.0);
                continue;
            }
            let merge = |v: &mut Vec<f64>| {
                let half: Vec<f64> = v.chunks(2).map(|c| c.iter().sum()).collect();
                let len = v.len();
                *v = half;
                v.resize(len, 0.0);
            };
            self.settle();
            merge(&mut self.distances);
            merge(&mut self.wb_diff);
            self.width *= 2;
        }
    }

    /// Renumbers the last-request times `0..k` in order and rebuilds the
    /// markers, when time reaches the end of its window. A time's new number
    /// is its rank among the markers, read off the bitmap (no sort).
    fn compact(&mut self) {
        let bits = &self.markers.bits;
        let mut before = Vec::with_capacity(bits.len());
        let mut k = 0u32;
        for w in bits {
            before.push(k);
            k += w.count_ones();
        }
        for st in &mut self.state {
            if st.last != NONE {
                let t = st.last as usize;
                let below = bits[t >> 6] & ((1u64 << (t & 63)) - 1);
                st.last = before[t >> 6] + below.count_ones();
            }
        }
        let want = (2 * k as usize).max(1024).max(self.state.len());
        if self.markers.len() < want {
            self.markers = Markers::new(want);
        }
        self.markers.reset_to_prefix(k);
        self.now = k;
    }

    /// Write-backs at the sizes `[max(lo, 1), hi]`, each counting `weight`.
    #[inline]
    fn range(&mut self, lo: u64, hi: u64, weight: f64) {
        let lo = lo.max(1);
        if lo <= hi {
            self.sizes(hi);
            let (a, b) = ((lo / self.width) as usize, (hi / self.width) as usize + 1);
            crate::types::prefetch(&self.wb_diff[a]);
            crate::types::prefetch(&self.wb_diff[b]);
            let (x, y, w) = std::mem::replace(
                &mut self.pending_wb[self.next_pending_wb],
                (a as u32, b as u32, weight),
            );
            self.wb_diff[x as usize] += w;
            self.wb_diff[y as usize] -= w;
            self.next_pending_wb = (self.next_pending_wb + 1) % PENDING;
        }
    }

    /// One request.
    #[inline]
    pub fn push(&mut self, page: DenseId, op: Op) {
        self.push_weighted(page, op, 1.0, 1.0);
    }

    /// Drops a page from the state (a sample that no longer holds it).
    pub(crate) fn forget(&mut self, page: DenseId) {
        let p = page as usize;
        if let Some(&PageState { last: t, .. }) = self.state.get(p) {
            if t != NONE {
                self.markers.add(t, -1);
                self.state[p].last = NONE;
                self.state[p].gap_max = NO_WRITE;
            }
        }
    }

    /// One request whose distances count `factor` times and whose counts
    /// weigh `weight` (a spatially sampled request at rate R: both 1/R).
    #[inline]
    pub(crate) fn push_weighted(&mut self, page: DenseId, op: Op, factor: f64, weight: f64) {
        self.grow(page);
        if self.now as usize >= self.markers.len() {
            self.compact();
        }
        self.sampled += 1;
        let p = page as usize;
        let prev = self.state[p].last;
        if prev == NONE {
            self.cold += weight;
        } else {
            let raw = u64::from(self.markers.ones - self.markers.prefix(prev) + 1);
            // The page itself plus the other pages between, each sampled
            // one standing for 1/R.
            let d = if factor == 1.0 {
                raw
            } else {
                1 + ((raw - 1) as f64 * factor).round() as u64
            };
            self.sizes(d);
            self.count_distance((d / self.width) as usize, weight);
            let m = self.state[p].gap_max;
            if m != NO_WRITE {
                self.range(u64::from(m), d - 1, weight);
                self.state[p].gap_max = m.max(d.min(u64::from(u32::MAX - 1)) as u32);
            }
            self.markers.add(prev, -1);
        }
        if op == Op::Write {
            self.state[p].gap_max = 0;
        }
        self.markers.add(self.now, 1);
        self.state[p].last = self.now;
        self.now += 1;
    }

    /// The curve of `requests` trace requests, of which the pushed ones
    /// were sampled; `factor` and `weight` as for the last push (1 when
    /// exact). A sample's weighted count of requests differs from the
    /// trace's by chance, mostly because a hot page is in or out of the
    /// sample; its requests are re-requests at short distances, so the
    /// difference goes to the shortest distance (SHARDS_adj, Waldspurger
    /// et al. §4.3): hits at every size, the misses left as sampled.
    pub(crate) fn finish_weighted(mut self, requests: u64, factor: f64, weight: f64) -> Curve {
        self.settle();
        if factor != 1.0 {
            let counted = self.cold + self.distances.iter().sum::<f64>();
            self.sizes(1);
            self.distances[(1 / self.width) as usize] += requests as f64 - counted;
        }
        // The end of the trace: a dirty page is written back at the sizes
        // its end distance reaches.
        for p in 0..self.state.len() {
            let t = self.state[p].last;
            let m = self.state[p].gap_max;
            if t != NONE && m != NO_WRITE {
                let raw = u64::from(self.markers.ones - self.markers.prefix(t));
                let e = (raw as f64 * factor).round() as u64;
                self.range(u64::from(m), e, weight);
            }
        }
        self.settle();
        let live = self.state.iter().filter(|s| s.last != NONE).count() as f64;
        let pages = live * factor;
        self.sizes(pages.round() as u64);
        let n = (pages.round() as u64 / self.width) as usize + 1;
        // misses at bin i = cold + the requests at a distance beyond it
        let mut misses = vec![0.0; n];
        let mut above: f64 = self.distances[n..].iter().sum();
        for i in (0..n).rev() {
            // Never more misses than requests, whatever the sample.
            misses[i] = (self.cold + above).min(requests as f64);
            above += self.distances[i];
        }
        let mut writebacks = vec![0.0; n];
        let mut run = 0.0;
        for (i, w) in writebacks.iter_mut().enumerate() {
            run += self.wb_diff[i];
            *w = run.max(0.0);
        }
        Curve {
            requests,
            sampled: self.sampled,
            pages,
            width: self.width,
            cold: self.cold.min(requests as f64),
            misses,
            writebacks,
        }
    }

    /// The curve of the requests pushed.
    pub fn finish(self) -> Curve {
        let n = self.sampled;
        self.finish_weighted(n, 1.0, 1.0)
    }
}

/// The LRU curve of an `flt` trace: exact, or sampled by SHARDS with at
/// most `bins` size bins. `progress` is called with the requests read after
/// every chunk of about a million; an error from it stops the pass.
pub fn trace_curve(
    trace: &crate::trace::Flt,
    sampling: Option<shards::Sampling>,
    bins: usize,
    progress: &mut dyn FnMut(u64) -> crate::Result<()>,
) -> crate::Result<Curve> {
    const CHUNK: usize = 1 << 20;
    let mut done = 0u64;
    let curve = match sampling {
        None => {
            let mut b = CurveBuilder::new(trace.pages());
            // Requests wait 16 places: a page's last request time is loaded
            // when it arrives, its first tree node 8 places later.
            const LAG: usize = 16;
            let mut ring = [(0 as DenseId, Op::Read); LAG];
            let mut n = 0usize;
            for chunk in trace.request_bytes().chunks(4 * CHUNK) {
                progress(done)?;
                for w in chunk.chunks_exact(4) {
                    let (page, op) =
                        crate::types::unpack(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
                    b.prefetch(page);
                    if n >= LAG / 2 {
                        b.prefetch_tree(ring[(n - LAG / 2) % LAG].0);
                    }
                    let slot = &mut ring[n % LAG];
                    if n >= LAG {
                        b.push(slot.0, slot.1);
                    }
                    *slot = (page, op);
                    n += 1;
                }
                done += (chunk.len() / 4) as u64;
            }
            for k in n.saturating_sub(LAG)..n {
                let (page, op) = ring[k % LAG];
                b.push(page, op);
            }
            b.finish()
        }
        Some(s) => {
            let mut sampler = shards::Sampler::new(s, bins)?;
            for chunk in trace.request_bytes().chunks(4 * CHUNK) {
                progress(done)?;
                for w in chunk.chunks_exact(4) {
                    let (page, op) =
                        crate::types::unpack(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
                    sampler.push(page, op);
                }
                done += (chunk.len() / 4) as u64;
            }
            sampler.finish()
        }
    };
    progress(done)?;
    Ok(curve)
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
        assert_eq!(c.misses, vec![3.0, 3.0, 2.0]);
        assert_eq!(c.writebacks, vec![0.0, 1.0, 0.0]);
        // W p, R q: evicted before the end at size 1 only.
        let c = lru_curve([w(0), r(1)], 2);
        assert_eq!(c.writebacks, vec![0.0, 1.0, 0.0]);
        // W p, R q, R r, W p, R q: at size 1 p is written back twice (two
        // dirty residencies), at size 2 once (the gap of distance 3 ends
        // the first residency; the second stays to the end).
        let c = lru_curve([w(0), r(1), r(2), w(0), r(1)], 3);
        assert_eq!(c.writebacks, vec![0.0, 2.0, 1.0, 0.0]);
    }

    #[test]
    fn compaction_keeps_distances_exact() {
        // 3 pages in a loop for many rounds: the window (at least 1,024
        // times) is renumbered many times; every re-request has distance 3.
        let trace: Vec<(DenseId, Op)> = (0..10_000).map(|i| ((i % 3) as u32, Op::Read)).collect();
        let c = lru_curve(trace, 3);
        assert_eq!(c.misses, vec![10_000.0, 10_000.0, 10_000.0, 3.0]);
    }
}
