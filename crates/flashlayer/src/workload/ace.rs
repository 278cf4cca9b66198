//! ACE's synthetic workload (Papon & Athanassoulis, ICDE 2023; the
//! generator of their simulator, `BU-DiSC/ACE-codebase`, and of their
//! buffer manager, `BU-DiSC/parametric_io`): each operation is a read with
//! probability `reads`%, and falls on the first `hot`% of the pages with
//! probability `skew`%, uniformly within the region it falls on.
//!
//! The draws are glibc's `rand()` from its default seed, in the order the
//! authors' generator makes them (type, region, page), so that the same
//! parameters give the same operations as their `workload.txt`.

use crate::error::{Error, Result};
use crate::types::{Op, PageId};

/// Parameters of [`ace`], named as the authors' flags.
#[derive(Clone, Debug, PartialEq)]
pub struct AceWorkload {
    /// Operations (`-x`).
    pub operations: u64,
    /// Pages on the disk (`-n`).
    pub pages: u32,
    /// Percent of operations that read (`-e`).
    pub reads: f32,
    /// Percent of operations on the hot region (`-s`).
    pub skew: f32,
    /// Percent of the pages in the hot region (`-d`).
    pub hot: f32,
}

impl Default for AceWorkload {
    /// The authors' mixed skewed workload over the 344,066 pages of their
    /// figure 7: 2,000,000 operations, 50% reads, 90% of them on the first
    /// 10% of the pages.
    fn default() -> Self {
        AceWorkload {
            operations: 2_000_000,
            pages: 344_066,
            reads: 50.0,
            skew: 90.0,
            hot: 10.0,
        }
    }
}

/// glibc's `rand()` (its `TYPE_3` additive feedback generator), seeded as
/// `srand(seed)` seeds it.
#[derive(Clone, Debug)]
pub struct GlibcRand {
    r: [u32; 34],
    i: usize,
}

impl GlibcRand {
    /// The generator after `srand(seed)` (a program that never calls
    /// `srand` draws as after `srand(1)`).
    pub fn new(seed: u32) -> Self {
        let mut r = [0u32; 34];
        r[0] = if seed == 0 { 1 } else { seed };
        for i in 1..31 {
            // 16807 · r mod (2³¹ − 1), by Schrage's method, as glibc does.
            let prev = r[i - 1] as i32;
            let (hi, lo) = (prev / 127_773, prev % 127_773);
            let mut word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            r[i] = word as u32;
        }
        for i in 31..34 {
            r[i] = r[i - 31];
        }
        let mut g = GlibcRand { r, i: 0 };
        // glibc discards the first 310 outputs of the recurrence.
        for _ in 34..344 {
            g.step();
        }
        g
    }

    #[inline]
    fn step(&mut self) -> u32 {
        // The last 34 values in a ring: r[k] = r[k − 31] + r[k − 3].
        let k = self.i;
        let v = self.r[(k + 3) % 34].wrapping_add(self.r[(k + 31) % 34]);
        self.r[k] = v;
        self.i = (k + 1) % 34;
        v
    }

    /// The next `rand()`: 0 to 2³¹ − 1.
    #[inline]
    pub fn rand(&mut self) -> i32 {
        (self.step() >> 1) as i32
    }
}

/// ACE's workload as `(page, op)` requests, pages numbered from 0.
pub fn ace(p: &AceWorkload) -> Result<impl Iterator<Item = (PageId, Op)>> {
    for (what, v) in [("reads", p.reads), ("skew", p.skew), ("hot", p.hot)] {
        if !(0.0..=100.0).contains(&v) {
            return Err(Error::invalid(format!(
                "ace: {what} is a percent from 0 to 100, got {v}"
            )));
        }
    }
    if p.pages == 0 || p.pages > 1 << 24 {
        return Err(Error::invalid(format!(
            "ace: pages must be from 1 to 16,777,216 (the generator sizes its regions in single precision), got {}",
            p.pages
        )));
    }
    // As the authors compute it: in single precision, truncated.
    let end = (p.pages as f32 * (p.hot / 100.0)) as i32;
    let n = p.pages as i32;
    if p.skew > 0.0 && end == 0 {
        return Err(Error::invalid(format!(
            "ace: the hot region ({}% of {} pages) holds no page, but {}% of the operations fall on it",
            p.hot, p.pages, p.skew
        )));
    }
    if p.skew < 100.0 && end == n {
        return Err(Error::invalid(format!(
            "ace: the cold region (the pages past the hot {}%) holds no page, but {}% of the operations fall on it",
            p.hot,
            100.0 - p.skew
        )));
    }
    let mut g = GlibcRand::new(1);
    let (reads, skew) = (p.reads, p.skew);
    Ok((0..p.operations).map(move |_| {
        let kind = g.rand() % 100;
        let region = g.rand() % 100;
        let page = if (region as f32) < skew {
            g.rand() % end
        } else {
            g.rand() % (n - end) + end
        };
        let op = if (kind as f32) < reads {
            Op::Read
        } else {
            Op::Write
        };
        (page as PageId, op)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// glibc's first outputs after `srand(1)` (`rand()` in a C program).
    #[test]
    fn glibc_rand_draws_as_glibc() {
        let mut g = GlibcRand::new(1);
        let first: Vec<i32> = (0..5).map(|_| g.rand()).collect();
        assert_eq!(
            first,
            [
                1_804_289_383,
                846_930_886,
                1_681_692_777,
                1_714_636_915,
                1_957_747_793
            ]
        );
    }

    #[test]
    fn regions_without_pages_are_refused() {
        let p = AceWorkload {
            operations: 10,
            pages: 5,
            reads: 50.0,
            skew: 90.0,
            hot: 10.0,
        };
        assert!(ace(&p).is_err());
        assert!(ace(&AceWorkload {
            hot: 100.0,
            ..p.clone()
        })
        .is_err());
        assert!(ace(&AceWorkload {
            hot: 100.0,
            skew: 100.0,
            ..p
        })
        .is_ok());
    }
}
