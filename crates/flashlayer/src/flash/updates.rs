//! The update operations of PDL §5.1, run on a [`FlashStore`], counting what
//! each phase costs on the chip.
//!
//! An *update operation* reads a page (the reading step), applies
//! `N_updates_till_write` updates to it in memory, each changing
//! `%ChangedByOneU_Op` of its bytes, and writes it back (the writing step),
//! telling the store the changed ranges so that IPL logs them. A
//! *read-only operation* reads a page. Pages are chosen uniformly. Garbage
//! collection and merging run inside the writing step, so their cost is
//! amortised into it as in the paper.
//!
//! Which bytes an update changes: the paper says "the portion of data to be
//! changed is randomly selected" (§5.1), so by default every update's run
//! of changed bytes starts at an offset drawn uniformly
//! ([`RunOffset::Random`]). Runs then overlap more and more as a page
//! accumulates changes: the union approaches the whole page only slowly, a
//! PDL(2KB) differential averages about 84% of the page, the live data of
//! PDL(2KB) fills a chip twice the database's size (the paper's 1 GB on
//! 2 GB), and collection moves about 60 pages per erase. The paper's
//! analysis (§5.2, footnote 17) instead takes a differential to grow from 0
//! to `Max_Differential_Size` as updates repeat, half that size on average;
//! [`RunOffset::Following`] is that reading: a page's first run at a random
//! offset, each later run right after the previous one on that page
//! (wrapping at the page's end), so the changed bytes are new differences
//! until the page is rewritten whole. IPU, OPU and IPL pay the same for
//! either choice: they write whole pages or log every run.
//!
//! Before measuring, every logical page is written once (the database is
//! loaded) and update operations run, in windows of twice as many operations
//! as there are pages (at least 1,000), until each block has been erased
//! `warmup_erases_per_block` times on average (the paper: "at least ten
//! times") and two consecutive windows cost the same chip time within 5%,
//! so that collection is in its steady state; the report gives the
//! operations and erases per block reached. Counts, not times, are reported per phase, so a
//! caller can price them with any read, program and erase times (PDL
//! Fig. 12) without running again: collection does not depend on timing.

use super::{ChipAccess, FlashStore};
use crate::error::{Error, Result};
use crate::nand::ChipStats;
use crate::store::PageStore;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Consecutive warm-up windows whose chip time differs by at most this
/// share (of their mean) are taken as the steady state.
const STABLE: f64 = 0.05;

/// The experiment's parameters (PDL Table 2); every default is stated.
#[derive(Clone, Debug)]
pub struct UpdateParams {
    /// Measured operations. Default: 20,000.
    pub operations: u64,
    /// %UpdateOps as a fraction. Default: 1.0.
    pub update_share: f64,
    /// N_updates_till_write. Default: 1.
    pub updates_till_write: u32,
    /// %ChangedByOneU_Op as a fraction. Default: 0.02.
    pub changed_share: f64,
    /// Average erases per block before measuring. Default: 10 (PDL §5.1).
    pub warmup_erases_per_block: f64,
    /// Upper bound on warm-up operations, so a method that rarely erases
    /// (IPL with a large log area under light updates) still finishes;
    /// the report says how far warm-up got. Default: 2,000,000.
    pub max_warmup_operations: u64,
    /// Where an update's run of changed bytes starts. Default:
    /// [`RunOffset::Random`] (PDL §5.1: "randomly selected").
    pub placement: RunOffset,
    /// Seed of page choice and changed bytes. Default: 0.
    pub seed: u64,
}

/// Where each update's run of changed bytes starts on its page (the paper:
/// "the portion of data to be changed is randomly selected").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RunOffset {
    /// Right after the previous update's run on that page (the page's first
    /// run at a random offset): a differential grows linearly until it
    /// covers the page, as the paper's analysis (footnote 17) assumes.
    Following,
    /// At an offset drawn uniformly for every update (§5.1's words).
    #[default]
    Random,
}

impl Default for UpdateParams {
    fn default() -> Self {
        UpdateParams {
            operations: 20_000,
            update_share: 1.0,
            updates_till_write: 1,
            changed_share: 0.02,
            warmup_erases_per_block: 10.0,
            max_warmup_operations: 2_000_000,
            placement: RunOffset::Random,
            seed: 0,
        }
    }
}

/// Chip operations of one phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OpCounts {
    /// Page and spare reads.
    pub reads: u64,
    /// Page programs and spare re-programs.
    pub programs: u64,
    /// Block erases.
    pub erases: u64,
    /// Their time at the chip's timing, µs.
    pub time_us: f64,
}

impl OpCounts {
    fn between(a: &ChipStats, b: &ChipStats) -> OpCounts {
        OpCounts {
            reads: (b.reads + b.spare_reads) - (a.reads + a.spare_reads),
            programs: (b.programs + b.spare_programs) - (a.programs + a.spare_programs),
            erases: b.erases - a.erases,
            time_us: b.time_us - a.time_us,
        }
    }
    fn add(&mut self, o: OpCounts) {
        self.reads += o.reads;
        self.programs += o.programs;
        self.erases += o.erases;
        self.time_us += o.time_us;
    }
    /// The time of these operations at other timings.
    pub fn priced(&self, read_us: f64, program_us: f64, erase_us: f64) -> f64 {
        self.reads as f64 * read_us
            + self.programs as f64 * program_us
            + self.erases as f64 * erase_us
    }
}

/// What the measured operations cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateReport {
    /// Measured operations, and of them updates.
    pub operations: u64,
    /// Update operations among them.
    pub updates: u64,
    /// Reading steps (of updates and read-only operations).
    pub read: OpCounts,
    /// Writing steps, collection and merging included.
    pub write: OpCounts,
    /// The writing steps of the first and second half of the measured
    /// operations: close when collection is in its steady state.
    pub write_halves: [OpCounts; 2],
    /// Chip time of collection or merging within the writing steps, µs.
    pub gc_time_us: f64,
    /// Warm-up operations run, and the erases per block they reached.
    pub warmup_operations: u64,
    /// Average erases per block at the end of warm-up.
    pub warmup_erases_per_block: f64,
    /// Wall-clock seconds of the measured operations (for benchmarks).
    pub seconds: f64,
}

/// Loads every logical page, warms up, then measures `p.operations`.
pub fn run<C: ChipAccess>(store: &mut FlashStore<C>, p: &UpdateParams) -> Result<UpdateReport> {
    if !(0.0..=1.0).contains(&p.update_share) {
        return Err(Error::invalid(format!(
            "update share {} is not a fraction in [0, 1]",
            p.update_share
        )));
    }
    if !(p.changed_share > 0.0 && p.changed_share <= 1.0) {
        return Err(Error::invalid(format!(
            "changed share {} is not a fraction in (0, 1]",
            p.changed_share
        )));
    }
    if p.updates_till_write == 0 {
        return Err(Error::invalid("N_updates_till_write must be at least 1"));
    }
    let ps = store.page_size();
    let logical = u64::from(store.logical_pages());
    let blocks = f64::from(store.chip().geometry().blocks);
    let changed = ((p.changed_share * ps as f64).round() as usize).clamp(1, ps);
    let mut rng = Pcg64::seed_from_u64(p.seed);
    let mut page = vec![0u8; ps];
    let mut ranges: Vec<(u32, u32)> = Vec::with_capacity(2 * p.updates_till_write as usize);
    // Per logical page, where its next update's run starts.
    let mut cursor: Vec<u32> = (0..logical)
        .map(|_| rng.random_range(0..ps) as u32)
        .collect();
    for l in 0..logical {
        rng.fill(&mut page[..]);
        store.write(l, &page)?;
    }
    // Each page then takes one write changing a run of uniformly random
    // length after its start: a page's differential is at a random point
    // of its cycle, as in the steady state, instead of every page starting
    // its cycle together (which no feasible warm-up spreads out: a cycle
    // of PDL(2KB) at 2% per update is 50 write-backs of every page).
    for l in 0..logical {
        store.read(l, &mut page)?;
        let len = rng.random_range(0..ps);
        ranges.clear();
        change_run(
            &mut rng,
            &mut page,
            &mut cursor[l as usize],
            len,
            &mut ranges,
        );
        store.write_changed(l, &page, &ranges)?;
    }
    store.flush()?;
    let mut report = UpdateReport::default();
    let start_erases = store.chip().stats().erases;
    let half = p.operations / 2;
    let mut op = |store: &mut FlashStore<C>, report: &mut UpdateReport, measure: bool| {
        // Warm-up updates every page it touches: a read-only mix is then
        // measured on updated pages (the paper's special case at 0%).
        let share = if measure { p.update_share } else { 1.0 };
        let l = rng.random_range(0..logical);
        let s0 = store.chip().stats();
        store.read(l, &mut page)?;
        let s1 = store.chip().stats();
        if measure {
            report.operations += 1;
            report.read.add(OpCounts::between(&s0, &s1));
        }
        if !rng.random_bool(share) {
            return Ok::<(), Error>(());
        }
        ranges.clear();
        for _ in 0..p.updates_till_write {
            if p.placement == RunOffset::Random {
                cursor[l as usize] = rng.random_range(0..ps) as u32;
            }
            change_run(
                &mut rng,
                &mut page,
                &mut cursor[l as usize],
                changed,
                &mut ranges,
            );
        }
        let gc0 = store.flash_stats().gc_time_us;
        store.write_changed(l, &page, &ranges)?;
        let s2 = store.chip().stats();
        if measure {
            let w = OpCounts::between(&s1, &s2);
            report.write_halves[usize::from(report.operations > half)].add(w);
            report.updates += 1;
            report.write.add(w);
            report.gc_time_us += store.flash_stats().gc_time_us - gc0;
        }
        Ok(())
    };
    // Warm up in windows of operations until the erases per block reach
    // the target and the chip time of the last two windows agrees within
    // `STABLE`: a method whose differentials or logs keep growing (PDL(2KB)
    // filling its pages) is not yet in its steady state when erases first
    // reach the target.
    let target = p.warmup_erases_per_block * blocks;
    // A window updates every page about twice: a differential that grows
    // by a few bytes an update raises the chip time from one window to the
    // next by far more than `STABLE`, where half a page's worth of
    // operations hid the trend in the noise of collection.
    let window = (2 * logical).max(1000);
    let mut last: Option<f64> = None;
    while report.warmup_operations < p.max_warmup_operations {
        let t0 = store.chip().stats().time_us;
        for _ in 0..window {
            op(store, &mut report, false)?;
        }
        report.warmup_operations += window;
        let t = store.chip().stats().time_us - t0;
        let erased = (store.chip().stats().erases - start_erases) as f64;
        let stable = last.is_some_and(|l| (t - l).abs() <= STABLE * (t + l) / 2.0);
        if erased >= target && stable {
            break;
        }
        last = Some(t);
    }
    report.warmup_erases_per_block = (store.chip().stats().erases - start_erases) as f64 / blocks;
    let started = std::time::Instant::now();
    for _ in 0..p.operations {
        op(store, &mut report, true)?;
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Changes the `len` bytes of `page` from `at` on (wrapping at the page's
/// end, so in one or two runs), records the runs, and moves `at` past them.
fn change_run(
    rng: &mut Pcg64,
    page: &mut [u8],
    at: &mut u32,
    len: usize,
    ranges: &mut Vec<(u32, u32)>,
) {
    let ps = page.len();
    let off = *at as usize;
    let first = len.min(ps - off);
    for (o, n) in [(off, first), (0, len - first)] {
        if n > 0 {
            rng.fill(&mut page[o..o + n]);
            ranges.push((o as u32, n as u32));
        }
    }
    *at = ((off + len) % ps) as u32;
}
