//! The crash test: random workloads on a [`super::FlashStore`] against a model,
//! power cuts at random chip operations (torn programs, part-erased
//! blocks), recovery that is itself cut at random, and a check of every
//! logical page after each recovery.
//!
//! The promise checked (`flash` module docs): a page whose last write was
//! followed by a completed `flush()` reads back byte for byte; a page
//! written since reads back as its flushed version or one of the versions
//! written since, the one interrupted included. A page that reads back as
//! an older version counts as a *flushed page lost*; anything never written
//! to it (a mix of versions, garbage, an unreadable page) as a *version
//! never written*. IPU's documented exception, the pages of the block an
//! update was rewriting when power went, is counted apart.

use super::{FlashStoreBuilder, Method};
use crate::error::{Error, Result};
use crate::nand::Chip;
use crate::store::PageStore;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use rustc_hash::{FxHashSet, FxHasher};
use std::hash::Hasher;

/// What to run; every default is stated on [`CrashConfig::new`].
#[derive(Clone, Debug)]
pub struct CrashConfig {
    /// The method under test.
    pub method: Method,
    /// Power cuts to inject during the workload.
    pub cuts: u64,
    /// Seed of the workload, the cut points and the tears.
    pub seed: u64,
    /// Chip geometry.
    pub blocks: u32,
    /// Pages per block.
    pub pages_per_block: u32,
    /// Data bytes per page.
    pub page_size: usize,
    /// Spare bytes per page.
    pub spare_size: usize,
    /// Partial programs a page's data area takes (IPL's sector writes).
    pub data_programs: u8,
    /// Logical pages (`None`: the store's default, half the chip).
    pub logical_pages: Option<u32>,
    /// Obsolete marks in memory (OPU and PDL).
    pub obsolete_in_memory: bool,
    /// A cut falls within this many chip operations of the last one.
    pub max_ops_between_cuts: u64,
    /// Chance that a recovery is cut too (repeatedly, until one finishes).
    pub recovery_cut_chance: f64,
}

impl CrashConfig {
    /// Defaults: 1,000 cuts, seed 0, a chip of 16 blocks of 64 pages of
    /// 2,048 + 64 bytes (PDL Table 1's geometry, small) taking 16 partial
    /// programs a page (IPL writes 128-byte log sectors; the other methods
    /// program whole pages), the store's
    /// default logical pages, obsolete marks in the spare area, a cut within
    /// 300 chip operations of the last, and a 30% chance that a recovery is
    /// cut.
    pub fn new(method: Method) -> Self {
        CrashConfig {
            method,
            cuts: 1000,
            seed: 0,
            blocks: 16,
            pages_per_block: 64,
            page_size: 2048,
            spare_size: 64,
            data_programs: super::DATA_PROGRAMS,
            logical_pages: None,
            obsolete_in_memory: false,
            max_ops_between_cuts: 300,
            recovery_cut_chance: 0.3,
        }
    }
}

/// What a crash test found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CrashReport {
    /// Cuts during the workload.
    pub cuts: u64,
    /// Recoveries that finished.
    pub recoveries: u64,
    /// Cuts during recovery.
    pub recovery_cuts: u64,
    /// Pages read back as a version older than the flushed one.
    pub flushed_lost: u64,
    /// Pages read back as something never written to them.
    pub never_written: u64,
    /// IPU only: pages of the block being rewritten at a cut that were lost
    /// (its documented exception).
    pub ipu_block_losses: u64,
    /// Page writes, reads and flushes the workload completed.
    pub writes: u64,
    /// Reads during the workload (each checked against the model).
    pub reads: u64,
    /// Completed flushes.
    pub flushes: u64,
    /// Pages checked after recoveries.
    pub pages_checked: u64,
    /// Chip erases, a sign that collection or merging ran.
    pub erases: u64,
}

impl CrashReport {
    /// Whether the promise held at every cut.
    pub fn holds(&self) -> bool {
        self.flushed_lost == 0 && self.never_written == 0
    }
}

fn hash(bytes: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(bytes);
    h.finish()
}

/// Runs the test; `progress(done_cuts)` after each cut.
pub fn run(cfg: &CrashConfig, mut progress: impl FnMut(u64)) -> Result<CrashReport> {
    let mut chip = Chip::builder(cfg.blocks)
        .pages_per_block(cfg.pages_per_block)
        .page_size(cfg.page_size)
        .spare_size(cfg.spare_size)
        .data_programs(cfg.data_programs)
        .seed(cfg.seed)
        .build()?;
    let mut builder = FlashStoreBuilder::new(cfg.method).obsolete_in_memory(cfg.obsolete_in_memory);
    if let Some(n) = cfg.logical_pages {
        builder = builder.logical_pages(n);
    }
    let logical = builder.logical(&chip);
    let mut rng = Pcg64::seed_from_u64(cfg.seed ^ 0x9e37_79b9_7f4a_7c15);
    let ps = cfg.page_size;
    let zero = vec![0u8; ps];
    let mut latest: Vec<Vec<u8>> = vec![zero.clone(); logical as usize];
    let mut accept: Vec<Vec<u64>> = vec![vec![hash(&zero)]; logical as usize];
    let mut history: Vec<FxHashSet<u64>> =
        vec![FxHashSet::from_iter([hash(&zero)]); logical as usize];
    let mut report = CrashReport::default();
    let mut page = vec![0u8; ps];
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    let ppb = cfg.pages_per_block;
    let mut fresh = true;
    // IPU: the block an update was rewriting when the last cut fell.
    let mut cut_block = None;

    while report.cuts < cfg.cuts {
        // Recover (or, the first time, create), cutting recovery at random.
        let mut store = loop {
            if fresh {
                break builder.create(&mut chip)?;
            }
            if rng.random_bool(cfg.recovery_cut_chance) {
                let pages = u64::from(cfg.blocks * ppb);
                chip.power_cut_after(rng.random_range(1..=pages))?;
            }
            match builder.recover(&mut chip) {
                Ok(s) => break s,
                Err(Error::PowerCut) => {
                    report.recovery_cuts += 1;
                    chip.power_on();
                    continue;
                }
                Err(e) => return Err(e),
            }
        };
        store.chip().disarm();
        if !fresh {
            report.recoveries += 1;
        }
        fresh = false;
        // Check every page against the model and restart the model from it.
        for l in 0..logical {
            report.pages_checked += 1;
            let r = store.read(u64::from(l), &mut page);
            let ok = r.is_ok() && accept[l as usize].contains(&hash(&page));
            if !ok {
                let ipu_excused = matches!(cfg.method, Method::Ipu) && cut_block == Some(l / ppb);
                if ipu_excused {
                    report.ipu_block_losses += 1;
                } else if r.is_ok() && history[l as usize].contains(&hash(&page)) {
                    report.flushed_lost += 1;
                } else {
                    report.never_written += 1;
                }
                if r.is_err() {
                    // Unreadable: start the page again from zeros.
                    page.fill(0);
                    store.write(u64::from(l), &page)?;
                    history[l as usize].insert(hash(&page));
                }
            }
            latest[l as usize].copy_from_slice(&page);
            accept[l as usize] = vec![hash(&page)];
        }
        // Run the workload until the next cut.
        store
            .chip()
            .power_cut_after(rng.random_range(1..=cfg.max_ops_between_cuts))?;
        let mut writing_block: Option<u32>;
        let stopped: Error = loop {
            let roll: f64 = rng.random();
            let l = rng.random_range(0..logical);
            let r = if roll < 0.6 {
                page.copy_from_slice(&latest[l as usize]);
                ranges.clear();
                if rng.random_bool(0.1) {
                    rng.fill(&mut page[..]);
                    ranges.push((0, ps as u32));
                } else {
                    for _ in 0..rng.random_range(1..=3) {
                        let len = rng.random_range(1..=ps / 16);
                        let off = rng.random_range(0..=ps - len);
                        rng.fill(&mut page[off..off + len]);
                        ranges.push((off as u32, len as u32));
                    }
                }
                let h = hash(&page);
                accept[l as usize].push(h);
                history[l as usize].insert(h);
                latest[l as usize].copy_from_slice(&page);
                writing_block = Some(l / ppb);
                let r = if rng.random_bool(0.8) {
                    store.write_changed(u64::from(l), &page, &ranges)
                } else {
                    store.write(u64::from(l), &page)
                };
                report.writes += u64::from(r.is_ok());
                r
            } else if roll < 0.85 {
                writing_block = None;
                let r = store.read(u64::from(l), &mut page);
                if r.is_ok() {
                    report.reads += 1;
                    if page != latest[l as usize] {
                        return Err(Error::Store(format!(
                            "{}: logical page {l} read back other than last written, \
                             with no power cut in between (seed {})",
                            cfg.method, cfg.seed
                        )));
                    }
                }
                r
            } else {
                writing_block = None;
                let r = store.flush();
                if r.is_ok() {
                    report.flushes += 1;
                    for (l, v) in latest.iter().enumerate() {
                        accept[l].clear();
                        accept[l].push(hash(v));
                    }
                }
                r
            };
            if let Err(e) = r {
                break e;
            }
        };
        if !matches!(stopped, Error::PowerCut) {
            return Err(stopped);
        }
        cut_block = writing_block;
        drop(store);
        report.cuts += 1;
        chip.power_on();
        progress(report.cuts);
    }
    report.erases = chip.stats().erases;
    Ok(report)
}
