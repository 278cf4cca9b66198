//! Zipf-distributed page references, the synthetic workload of the
//! simulator benchmark.

use crate::error::{Error, Result};
use crate::types::{Op, PageId};
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Zipf};
use rand_pcg::Pcg64Mcg;

/// Parameters of [`zipf`].
#[derive(Clone, Debug)]
pub struct ZipfParams {
    /// Number of requests.
    pub requests: u64,
    /// Size of the page universe the ranks are drawn from.
    pub pages: u64,
    /// Zipf exponent (> 0; 0.99 in YCSB).
    pub alpha: f64,
    /// Probability that a request is a write, in `[0, 1]`.
    pub write_ratio: f64,
    /// Seed.
    pub seed: u64,
}

impl Default for ZipfParams {
    /// 1,000,000 requests over 100,000 pages at YCSB's exponent 0.99, a
    /// fifth of them writes, seed 0.
    fn default() -> Self {
        ZipfParams {
            requests: 1_000_000,
            pages: 100_000,
            alpha: 0.99,
            write_ratio: 0.2,
            seed: 0,
        }
    }
}

/// Zipf-distributed page references: rank `k` has probability ∝ `1/k^alpha`.
/// Ranks are scattered over page ids by a fixed odd multiplier modulo the
/// next power of two (a bijection), skipping values ≥ `pages`, so hot pages
/// are not neighbours.
pub fn zipf(p: &ZipfParams) -> Result<impl Iterator<Item = (PageId, Op)>> {
    if p.pages == 0 {
        return Err(Error::invalid("zipf: --pages must be at least 1"));
    }
    if p.requests == 0 {
        // A trace without requests is refused wherever it is read.
        return Err(Error::invalid("zipf: --requests must be at least 1"));
    }
    if !(p.alpha.is_finite() && p.alpha > 0.0) {
        return Err(Error::invalid(format!(
            "zipf: --alpha must be > 0, got {}",
            p.alpha
        )));
    }
    if !(0.0..=1.0).contains(&p.write_ratio) {
        return Err(Error::invalid(format!(
            "zipf: --write-ratio must be in [0, 1], got {}",
            p.write_ratio
        )));
    }
    let dist =
        Zipf::new(p.pages as f64, p.alpha).map_err(|e| Error::invalid(format!("zipf: {e}")))?;
    let mut rng = Pcg64Mcg::seed_from_u64(p.seed);
    let pages = p.pages;
    let mask = pages.next_power_of_two() - 1;
    let write_ratio = p.write_ratio;
    Ok((0..p.requests).map(move |_| {
        let rank = dist.sample(&mut rng) as u64 - 1;
        let op = if rng.random_bool(write_ratio) {
            Op::Write
        } else {
            Op::Read
        };
        (scatter(rank, mask, pages), op)
    }))
}

/// A bijection of `0..pages`: multiply by an odd constant modulo the power
/// of two above `pages` (a permutation of that range), repeated until the
/// value falls inside `0..pages` (cycle walking).
fn scatter(rank: u64, mask: u64, pages: u64) -> PageId {
    const ODD: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut x = rank;
    loop {
        x = x.wrapping_mul(ODD) & mask;
        x ^= x >> 7 & mask;
        if x < pages {
            return x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn scatter_is_a_permutation() {
        for pages in [1u64, 2, 3, 100, 1000, 1024, 1025] {
            let mask = pages.next_power_of_two() - 1;
            let seen: HashSet<u64> = (0..pages).map(|r| scatter(r, mask, pages)).collect();
            assert_eq!(seen.len() as u64, pages);
            assert!(seen.iter().all(|&x| x < pages));
        }
    }

    #[test]
    fn zipf_is_deterministic_and_respects_the_write_ratio() {
        let p = ZipfParams {
            requests: 20_000,
            pages: 500,
            alpha: 0.9,
            write_ratio: 0.2,
            seed: 7,
        };
        let a: Vec<_> = zipf(&p).unwrap().collect();
        let b: Vec<_> = zipf(&p).unwrap().collect();
        assert_eq!(a, b);
        let writes = a.iter().filter(|r| r.1.is_write()).count() as f64 / a.len() as f64;
        assert!((writes - 0.2).abs() < 0.02, "{writes}");
        assert!(a.iter().all(|r| r.0 < 500));
    }

    /// The k-th most requested page gets a share close to
    /// `k^-alpha / H(pages, alpha)`; a uniform or mis-ranked generator fails.
    #[test]
    fn page_frequencies_follow_the_zipf_law() {
        for alpha in [0.6, 1.0, 1.4] {
            let p = ZipfParams {
                requests: 400_000,
                pages: 1000,
                alpha,
                write_ratio: 0.0,
                seed: 3,
            };
            let mut counts = vec![0u64; 1000];
            for (page, _) in zipf(&p).unwrap() {
                counts[page as usize] += 1;
            }
            counts.sort_unstable_by(|a, b| b.cmp(a));
            let h: f64 = (1..=1000).map(|k| (k as f64).powf(-alpha)).sum();
            for k in [1usize, 2, 5, 10, 50] {
                let want = (k as f64).powf(-alpha) / h;
                let got = counts[k - 1] as f64 / p.requests as f64;
                assert!(
                    (got - want).abs() < 0.1 * want + 0.0005,
                    "alpha {alpha}, rank {k}: share {got:.5}, Zipf says {want:.5}"
                );
            }
        }
    }

    #[test]
    fn zipf_rejects_nonsense() {
        let mut p = ZipfParams {
            requests: 1,
            pages: 0,
            alpha: 1.0,
            write_ratio: 0.0,
            seed: 0,
        };
        assert!(zipf(&p).is_err());
        p.pages = 10;
        p.write_ratio = 1.5;
        assert!(zipf(&p).is_err());
        p.write_ratio = 0.5;
        p.alpha = -1.0;
        assert!(zipf(&p).is_err());
    }
}
