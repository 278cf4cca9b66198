//! SHARDS (Waldspurger, Park, Garthwaite & Ahmad, FAST 2015): the LRU curve
//! of a huge trace from a spatial sample of its pages.
//!
//! A page is in the sample iff `hash(page) mod P < T` (`P` = 2^24; the
//! hash is a SplitMix64 finaliser of the page's dense id, so the decision
//! is per page, the same at every request). A sampled request's stack
//! distance among sampled pages `d_s` estimates its distance in the whole
//! trace as `1 + (d_s − 1)/R` (the page itself, and each other sampled
//! page standing for `1/R` pages, `R = T/P`); each sampled request counts
//! `1/R` requests. The write-back rule of [`super`] runs on the sample
//! unchanged. Sizes below about `1/R` pages are below the sample's
//! resolution (a re-request with fewer than `1/R` pages in between most
//! often has no sampled page in between): read the curve from there on.
//!
//! - **Fixed rate** ([`Sampling::Rate`]): `T = R·P` throughout. Memory
//!   grows with the sampled pages, about `R ×` the trace's distinct pages.
//! - **Fixed size** ([`Sampling::Size`]): `T` starts at `P` (every page) and
//!   whenever more than `s_max` pages are sampled, the page with the largest
//!   hash leaves the sample and `T` drops to its hash, so at most `s_max`
//!   pages are tracked whatever the trace. Each request counts `1/R` at the
//!   rate of its time (SHARDS rescales its histogram the same way).
//!
//! The weighted count of sampled requests differs from the trace's by
//! chance (with a skewed trace, one hot page in or out of the sample moves
//! it); the difference is added to the shortest distance (SHARDS_adj), and
//! a miss count is never estimated above the trace's requests.
//!
//! Memory is bounded in both by the sampled pages (per page: its last time
//! and write state, 8 bytes, a map entry, and twice that in the distance
//! tree) plus at most `bins` size bins (default [`DEFAULT_BINS`]; bins
//! double in width when distances outgrow them): for fixed size,
//! `O(s_max + bins)` whatever the trace's length or number of pages.
//!
//! Per request outside the sample: one hash and one comparison.

use super::{Curve, CurveBuilder};
use crate::error::{Error, Result};
use crate::types::{DenseId, Op};
use rustc_hash::FxHashMap;
use std::collections::BinaryHeap;

/// The hash modulus `P`.
pub const MODULUS: u64 = 1 << 24;
/// Default size bins of a sampled curve.
pub const DEFAULT_BINS: usize = 1 << 16;

/// How to sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sampling {
    /// A fixed rate in (0, 1].
    Rate(f64),
    /// At most this many pages (≥ 1), the rate adapting down.
    Size(usize),
}

/// A page's place in the sample: it is sampled at rate `T/P` iff its hash
/// is below `T` (a SplitMix64 finaliser of its dense id, modulo `P`).
#[inline]
pub fn hash(page: DenseId) -> u64 {
    let mut z = u64::from(page).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) & (MODULUS - 1)
}

/// The sampled LRU curve of `requests` (dense ids), with at most `bins`
/// size bins.
pub fn sampled_curve(
    requests: impl IntoIterator<Item = (DenseId, Op)>,
    sampling: Sampling,
    bins: usize,
) -> Result<Curve> {
    let mut s = Sampler::new(sampling, bins)?;
    for (page, op) in requests {
        s.push(page, op);
    }
    Ok(s.finish())
}

/// SHARDS one request at a time: [`Sampler::push`] is one hash and one
/// comparison for a request outside the sample.
#[derive(Debug)]
pub struct Sampler {
    threshold: u64,
    limit: usize,
    factor: f64,
    builder: CurveBuilder,
    ids: FxHashMap<DenseId, u32>,
    free: Vec<u32>,
    // The sampled pages by hash, largest first (fixed size only).
    heap: BinaryHeap<(u64, DenseId)>,
    requests: u64,
}

impl Sampler {
    /// A sampler keeping at most `bins` size bins.
    pub fn new(sampling: Sampling, bins: usize) -> Result<Self> {
        let threshold = match sampling {
            Sampling::Rate(r) if r > 0.0 && r <= 1.0 => {
                ((r * MODULUS as f64).round() as u64).max(1)
            }
            Sampling::Rate(r) => {
                return Err(Error::invalid(format!(
                    "a sampling rate must be in (0, 1], got {r}"
                )))
            }
            Sampling::Size(0) => return Err(Error::invalid("a sample must hold at least 1 page")),
            Sampling::Size(_) => MODULUS,
        };
        let limit = match sampling {
            Sampling::Size(s) => s,
            Sampling::Rate(_) => usize::MAX,
        };
        Ok(Sampler {
            threshold,
            limit,
            factor: MODULUS as f64 / threshold as f64,
            builder: CurveBuilder::binned(0, bins),
            ids: FxHashMap::default(),
            free: Vec::new(),
            heap: BinaryHeap::new(),
            requests: 0,
        })
    }

    /// One request.
    #[inline]
    pub fn push(&mut self, page: DenseId, op: Op) {
        self.requests += 1;
        let h = hash(page);
        if h < self.threshold {
            self.sampled(page, op, h);
        }
    }

    #[inline(never)]
    fn sampled(&mut self, page: DenseId, op: Op, h: u64) {
        let id = match self.ids.get(&page) {
            Some(&id) => id,
            None => {
                let id = self.free.pop().unwrap_or(self.ids.len() as u32);
                self.ids.insert(page, id);
                if self.limit != usize::MAX {
                    self.heap.push((h, page));
                    if self.ids.len() > self.limit {
                        let (top, out) = self.heap.pop().expect("the heap holds the sample");
                        self.threshold = top;
                        self.factor = MODULUS as f64 / top as f64;
                        let gone = self.ids.remove(&out).expect("sampled");
                        self.builder.forget(gone);
                        self.free.push(gone);
                        if out == page {
                            return;
                        }
                    }
                }
                id
            }
        };
        self.builder.push_weighted(id, op, self.factor, self.factor);
    }

    /// The curve of the requests pushed.
    pub fn finish(self) -> Curve {
        self.builder
            .finish_weighted(self.requests, self.factor, self.factor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_rate_sample_is_the_exact_curve() {
        let trace: Vec<(DenseId, Op)> = (0..5000u32)
            .map(|i| {
                (
                    (i * 7919) % 301,
                    if i % 5 == 0 { Op::Write } else { Op::Read },
                )
            })
            .collect();
        let exact = super::super::lru_curve(trace.iter().copied(), 301);
        let s = sampled_curve(trace.iter().copied(), Sampling::Rate(1.0), usize::MAX).unwrap();
        assert_eq!(s.misses, exact.misses);
        assert_eq!(s.writebacks, exact.writebacks);
    }

    #[test]
    fn a_fixed_size_sample_tracks_at_most_its_pages() {
        let trace = (0..200_000u32).map(|i| (i % 50_000, Op::Read));
        let s = sampled_curve(trace, Sampling::Size(500), 1024).unwrap();
        assert!(s.sampled < 200_000 / 20, "{}", s.sampled);
        // 50,000 pages in a loop: every request misses below 50,000 pages.
        let at = s.misses_at(25_000) / 200_000.0;
        assert!(at > 0.95, "{at}");
        assert!((s.pages - 50_000.0).abs() / 50_000.0 < 0.2, "{}", s.pages);
    }
}
