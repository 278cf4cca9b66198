//! A page-mapped flash translation layer: how an SSD turns page writes into
//! programs, relocations and erases (MQSim's page-level mapping, Tavakkol
//! et al., FAST 2018).
//!
//! Every logical page maps to one physical page. A write programs the next
//! page of the open block and invalidates the page's old copy. When fewer
//! than [`MIN_FREE`] blocks are free after a write, the collector reclaims
//! a full block: its valid pages are relocated (a read and a program each)
//! and it is erased. Two collectors choose that block:
//!
//! - [`Collector::Greedy`]: the block with the fewest valid pages.
//! - [`Collector::CostBenefit`]: the block with the largest
//!   `(1 − u) · age / 2u` (Kawaguchi et al., USENIX 1995, after Rosenblum &
//!   Ousterhout's LFS cleaner), `u` its share of valid pages and `age` the
//!   writes since its last page was programmed. A block without a valid
//!   page is taken first.
//!
//! Over-provisioning `ρ` is the physical pages beyond the logical ones, as
//! a share of the logical ones: `ρ = (P − L) / L`. Write amplification,
//! programs per host write, of greedy collection under uniform random
//! writes approaches [`greedy_write_amplification`] (Xiang & Kurkoski,
//! arXiv 1110.4245).

mod store;

pub use store::FtlStore;

use crate::error::{Error, Result};

/// Free blocks the layer keeps after every write: one to write into, one
/// for a collection's relocations.
pub const MIN_FREE: usize = 2;

const NONE: u32 = u32::MAX;

/// How the collector picks the block to reclaim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collector {
    /// The fewest valid pages.
    Greedy,
    /// The largest `(1 − u) · age / 2u`.
    CostBenefit,
}

/// What the layer did, counted in pages and blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FtlStats {
    /// Pages the host wrote.
    pub host_writes: u64,
    /// Pages the host read.
    pub host_reads: u64,
    /// Valid pages a collection moved: each one read and one program.
    pub relocations: u64,
    /// Blocks erased.
    pub erases: u64,
}

impl FtlStats {
    /// Programs per host write: `(host writes + relocations) / host writes`
    /// (1 before any write).
    pub fn write_amplification(&self) -> f64 {
        if self.host_writes == 0 {
            1.0
        } else {
            (self.host_writes + self.relocations) as f64 / self.host_writes as f64
        }
    }

    /// Pages programmed: the host's and the relocations'.
    pub fn programs(&self) -> u64 {
        self.host_writes + self.relocations
    }

    /// Pages read: the host's and the relocations'.
    pub fn reads(&self) -> u64 {
        self.host_reads + self.relocations
    }
}

/// A page-mapped FTL over `blocks` blocks of `pages_per_block` pages,
/// holding `logical` pages (ids `0..logical`).
#[derive(Clone, Debug)]
pub struct Ftl {
    ppb: u32,
    collector: Collector,
    /// Per logical page: its physical page, or `NONE` before its first
    /// write.
    map: Vec<u32>,
    /// Per physical page: the logical page it holds, or `NONE`.
    owner: Vec<u32>,
    /// Per block: its valid pages.
    valid: Vec<u32>,
    /// Per block: the write clock when its last page was programmed.
    written: Vec<u64>,
    /// Per block: whether it is full and not yet reclaimed (a candidate).
    full: Vec<bool>,
    free: Vec<u32>,
    open: u32,
    next: u32,
    clock: u64,
    stats: FtlStats,
}

impl Ftl {
    /// An empty layer for `logical` pages with over-provisioning `op`
    /// (`ρ > 0`): `⌈L(1 + ρ) / pages_per_block⌉` blocks. Fails unless the
    /// spare pages hold [`MIN_FREE`] blocks and one more, so that a full
    /// block with an invalid page always exists when a collection starts.
    pub fn new(logical: u32, op: f64, pages_per_block: u32, collector: Collector) -> Result<Self> {
        if !(op.is_finite() && op > 0.0) {
            return Err(Error::invalid(format!(
                "over-provisioning must be a number above 0, got {op}"
            )));
        }
        if pages_per_block < 2 || logical == 0 {
            return Err(Error::invalid(
                "an FTL needs at least 1 logical page and 2 pages per block",
            ));
        }
        let physical = (f64::from(logical) * (1.0 + op)).ceil();
        let blocks = (physical / f64::from(pages_per_block)).ceil() as u64;
        let needed = u64::from(logical).div_ceil(u64::from(pages_per_block)) + MIN_FREE as u64 + 1;
        if blocks < needed || blocks * u64::from(pages_per_block) >= u64::from(NONE) {
            return Err(Error::invalid(format!(
                "{logical} logical pages with over-provisioning {op} make {blocks} blocks of \
                 {pages_per_block} pages; the FTL needs from {needed} blocks up (more spare pages, \
                 or smaller blocks), and fewer than 2^32 pages"
            )));
        }
        let blocks = blocks as u32;
        let mut free: Vec<u32> = (0..blocks).rev().collect();
        let open = free.pop().expect("blocks");
        Ok(Ftl {
            ppb: pages_per_block,
            collector,
            map: vec![NONE; logical as usize],
            owner: vec![NONE; (blocks * pages_per_block) as usize],
            valid: vec![0; blocks as usize],
            written: vec![0; blocks as usize],
            full: vec![false; blocks as usize],
            free,
            open,
            next: 0,
            clock: 0,
            stats: FtlStats::default(),
        })
    }

    /// Logical pages.
    pub fn logical(&self) -> u32 {
        self.map.len() as u32
    }

    /// Blocks.
    pub fn blocks(&self) -> u32 {
        self.valid.len() as u32
    }

    /// What the layer did so far.
    pub fn stats(&self) -> FtlStats {
        self.stats
    }

    /// The host reads `page`.
    pub fn read(&mut self, page: u32) -> Result<()> {
        self.check(page)?;
        self.stats.host_reads += 1;
        Ok(())
    }

    /// The host writes `page`: programmed out of place, then blocks
    /// reclaimed until [`MIN_FREE`] are free.
    pub fn write(&mut self, page: u32) -> Result<()> {
        self.check(page)?;
        self.stats.host_writes += 1;
        self.program(page);
        while self.free.len() < MIN_FREE {
            self.collect();
        }
        Ok(())
    }

    fn check(&self, page: u32) -> Result<()> {
        if page as usize >= self.map.len() {
            return Err(Error::invalid(format!(
                "page {page} is beyond the FTL's {} logical pages",
                self.map.len()
            )));
        }
        Ok(())
    }

    /// Writes `page` at the frontier and invalidates its old copy.
    fn program(&mut self, page: u32) {
        let old = self.map[page as usize];
        if old != NONE {
            self.owner[old as usize] = NONE;
            self.valid[(old / self.ppb) as usize] -= 1;
        }
        if self.next == self.ppb {
            self.full[self.open as usize] = true;
            self.open = self
                .free
                .pop()
                .expect("a free block is kept for every write");
            self.next = 0;
        }
        let at = self.open * self.ppb + self.next;
        self.next += 1;
        self.owner[at as usize] = page;
        self.map[page as usize] = at;
        self.valid[self.open as usize] += 1;
        self.clock += 1;
        self.written[self.open as usize] = self.clock;
    }

    /// Reclaims one full block: relocates its valid pages, erases it.
    fn collect(&mut self) {
        let victim = self.victim();
        self.full[victim as usize] = false;
        for at in victim * self.ppb..(victim + 1) * self.ppb {
            let page = self.owner[at as usize];
            if page != NONE {
                self.stats.relocations += 1;
                self.program(page);
            }
        }
        debug_assert_eq!(self.valid[victim as usize], 0);
        self.stats.erases += 1;
        self.free.push(victim);
    }

    /// The full block the collector reclaims next.
    fn victim(&self) -> u32 {
        let candidates = (0..self.blocks()).filter(|&b| self.full[b as usize]);
        let chosen = match self.collector {
            Collector::Greedy => candidates.min_by_key(|&b| self.valid[b as usize]),
            Collector::CostBenefit => candidates
                .map(|b| (self.benefit(b), b))
                .max_by(|x, y| x.0.total_cmp(&y.0))
                .map(|(_, b)| b),
        };
        chosen.expect("a full block exists when free blocks run low")
    }

    /// `(1 − u) · age / 2u`, infinite for a block without a valid page.
    fn benefit(&self, block: u32) -> f64 {
        let u = f64::from(self.valid[block as usize]) / f64::from(self.ppb);
        if u == 0.0 {
            return f64::INFINITY;
        }
        let age = (self.clock - self.written[block as usize]) as f64;
        (1.0 - u) * age / (2.0 * u)
    }

    /// Checks that the map and the pages agree: every written logical page
    /// owns its physical page, and each block's count of valid pages is
    /// the pages it holds.
    pub fn check_consistency(&self) -> Result<()> {
        let mut valid = vec![0u32; self.valid.len()];
        for (page, &at) in self.map.iter().enumerate() {
            if at == NONE {
                continue;
            }
            if self.owner[at as usize] != page as u32 {
                return Err(Error::Store(format!(
                    "logical page {page} maps to physical page {at}, which holds {}",
                    self.owner[at as usize]
                )));
            }
            valid[(at / self.ppb) as usize] += 1;
        }
        if valid != self.valid {
            return Err(Error::Store(
                "a block's count of valid pages is off".to_owned(),
            ));
        }
        Ok(())
    }
}

/// The write amplification of greedy collection under uniform random
/// writes with over-provisioning `op` (`ρ > 0`), for large blocks (Xiang &
/// Kurkoski, arXiv 1110.4245): `(1 + ρ) / (1 + ρ + W₀(−(1 + ρ) e^{−(1 + ρ)}))`,
/// `W₀` the principal branch of Lambert's W. At `ρ = 0.3`: 2.36.
pub fn greedy_write_amplification(op: f64) -> f64 {
    let x = 1.0 + op;
    x / (x + lambert_w0(-x * (-x).exp()))
}

/// The principal branch of Lambert's W on `[−1/e, 0)`: the `w ≥ −1` with
/// `w e^w = z`, by Halley's iteration.
fn lambert_w0(z: f64) -> f64 {
    debug_assert!((-1.0 / std::f64::consts::E..0.0).contains(&z));
    // Near the branch point W ≈ −1 + p − p²/3, p = √(2(ez + 1)).
    let p = (2.0 * (std::f64::consts::E * z + 1.0)).max(0.0).sqrt();
    let mut w = -1.0 + p - p * p / 3.0;
    for _ in 0..50 {
        let e = w.exp();
        let f = w * e - z;
        let step = f / (e * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0));
        if !step.is_finite() {
            break;
        }
        w -= step;
        if step.abs() < 1e-15 {
            break;
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closed_form_gives_xiang_and_kurkoskis_value() {
        // Their abstract: 2.36 at over-provisioning 0.3.
        assert!((greedy_write_amplification(0.3) - 2.36).abs() < 0.005);
        // Less spare room, more relocation; and it falls towards 1.
        assert!(greedy_write_amplification(0.1) > greedy_write_amplification(0.3));
        assert!(greedy_write_amplification(3.0) < 1.2);
        let w = lambert_w0(-0.2);
        assert!((w * w.exp() + 0.2).abs() < 1e-12);
    }
}
