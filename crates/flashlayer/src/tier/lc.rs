//! Lazy cleaning (Do et al., "Turbocharging DBMS Buffer Pool Using SSDs",
//! SIGMOD 2011), as HyPro's §5 compares with it.
//!
//! - **Write-back SSD cache**: every page leaving DRAM goes to the SSD,
//!   unless it is clean and the SSD already holds it. A dirty page the SSD
//!   holds is rewritten there (one SSD write; on real devices into the
//!   level's spare slot, so a crash mid-write keeps the old version: see
//!   [`PolicyLevel`]); a page the SSD lacks is admitted,
//!   evicting the SSD level's victim (written to the disk first if dirty).
//!   The SSD level drives a replacement policy (`ssd=`, default `lru`; the
//!   paper used LRU-2, which flashlayer does not have).
//! - **The cleaner**: whenever more than `dirty` × the SSD's pages are dirty
//!   (default 0.5; 1 never cleans, 0 cleans every dirty page right away),
//!   dirty SSD pages are copied to the disk (an SSD read and a disk write
//!   each) until the fraction is back at the threshold. The paper's cleaner
//!   is a background thread; here it runs after the request that crossed
//!   the threshold, and its I/O counts like any other. It cleans the page
//!   that became dirty on the SSD longest ago first (a queue in the order
//!   pages became dirty there).
//! - An SSD hit reads the page into DRAM and keeps the copy (inclusive).

use super::{Found, Io, Leaving, PolicyLevel, Reason, Scheme, Serve};
use crate::error::Result;
use crate::policy::Policy;
use crate::types::{DenseId, Op};
use std::collections::VecDeque;

/// Lazy cleaning's decisions and its SSD level.
#[derive(Debug)]
pub struct Lc {
    ssd: PolicyLevel,
    dirty: f64,
    limit: u64,
    queue: VecDeque<DenseId>,
    queued: Vec<bool>,
}

impl Lc {
    /// Lazy cleaning over `ssd` with the dirty threshold in [0, 1].
    pub fn new(ssd: PolicyLevel, dirty: f64) -> Self {
        let limit = (dirty * ssd.capacity() as f64).floor() as u64;
        Lc {
            ssd,
            dirty,
            limit,
            queue: VecDeque::new(),
            queued: Vec::new(),
        }
    }

    /// The SSD level.
    pub fn level(&self) -> &PolicyLevel {
        &self.ssd
    }

    fn dirtied(&mut self, page: DenseId) {
        let i = page as usize;
        if i >= self.queued.len() {
            self.queued.resize(i + 1, false);
        }
        if !self.queued[i] {
            self.queued[i] = true;
            self.queue.push_back(page);
        }
    }
}

impl Scheme for Lc {
    fn name(&self) -> String {
        format!(
            "LC(dirty={}, level={})",
            self.dirty,
            self.ssd.policy().name()
        )
    }

    #[inline]
    fn on_ssd(&self, page: DenseId) -> bool {
        self.ssd.contains(page)
    }

    fn ssd_hit(&mut self, page: DenseId, op: Op, io: &mut impl Io) -> Result<Serve> {
        // A hit refreshes the page's place on the SSD; the SSD copy's dirty
        // state is its own (a write lands in DRAM).
        self.ssd.touch(page, Op::Read);
        super::load_keeping_copy(io, page, self.ssd.slot(page), op)
    }

    fn dram_evicted(&mut self, left: Leaving, io: &mut impl Io) -> Result<bool> {
        let Leaving { page, dirty, why } = left;
        let wrote = self.write_down(page, dirty, io)?;
        // A flush writes pages down without a request: the cleaner waits
        // for the next eviction, as a background cleaner would.
        if why != Reason::Flush {
            self.clean(io)?;
        }
        Ok(wrote)
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        self.ssd.prefetch(page);
    }

    fn ssd_pages(&self) -> (u64, u64) {
        self.ssd.pages()
    }

    /// The level after a crash: every page found is admitted in its slot,
    /// oldest first (so the replacement order starts as the order the
    /// versions were written), dirty ones queued for the cleaner. A page
    /// cleaned before the crash whose slot still says dirty is cleaned
    /// again: one disk write more, never a lost one.
    fn restore(&mut self, found: &[Found]) -> Result<()> {
        let pairs: Vec<(DenseId, u32)> = found.iter().map(|f| (f.page, f.slot)).collect();
        self.ssd.restore(found, &pairs);
        self.queue.clear();
        self.queued.fill(false);
        for f in found.iter().filter(|f| f.dirty) {
            self.dirtied(f.page);
        }
        Ok(())
    }
}

impl Lc {
    /// Writes a page leaving DRAM to the SSD (see the module docs);
    /// returns whether it wrote.
    fn write_down(&mut self, page: DenseId, dirty: bool, io: &mut impl Io) -> Result<bool> {
        if self.ssd.contains(page) {
            if !dirty {
                return Ok(false);
            }
            // The update goes to the spare slot (see PolicyLevel), which may
            // hold a version superseded by a write not yet durable.
            io.barrier()?;
            // Written to the spare before the level points the page at it,
            // so a failed write leaves the page where it was.
            io.ssd_write(page, self.ssd.spare(), true, false)?;
            self.ssd.relocate(page);
            self.ssd.mark_dirty(page);
            self.dirtied(page);
            return Ok(true);
        }
        if self.ssd.is_full() {
            self.ssd.evict_to_disk(io)?;
        }
        self.ssd.admit_written(page, dirty, io)?;
        if dirty {
            self.dirtied(page);
        }
        Ok(true)
    }

    /// The cleaner: copies the longest-dirty SSD pages to the disk until
    /// the dirty pages are back at the threshold. The dirty count rises
    /// only when a page leaves DRAM, so that is when it runs.
    fn clean(&mut self, io: &mut impl Io) -> Result<()> {
        while self.ssd.pages().1 > self.limit {
            let page = self
                .queue
                .pop_front()
                .expect("every dirty SSD page is queued");
            self.queued[page as usize] = false;
            if self.ssd.contains(page) && self.ssd.is_dirty(page) {
                io.ssd_to_hdd(page, self.ssd.slot(page))?;
                self.ssd.mark_clean(page);
            }
        }
        Ok(())
    }
}
