//! Flash and magnetic disk side by side (Koltsidas & Viglas 2008): a page
//! store made of two page stores at the same level of the hierarchy, each
//! page on exactly one, placed by the page's own workload (§4).
//!
//! [`HybridStore`] wraps a flash store and a magnetic store (any
//! [`PageStore`]: [`crate::store::FileStore`] for real files,
//! [`crate::store::CostStore`] for simulation), priced by their device
//! models (default Table 1: `koltsidas08-flash`, `koltsidas08-magnetic`).
//! New pages go to the magnetic disk. [`PageStore::cost_of`] answers for
//! the device a page is on now, with the device's identity
//! ([`DeviceId::FLASH`], [`DeviceId::MAGNETIC`]), so every policy sees
//! the right costs.
//!
//! Placement ([`Placement`], `placement.rs`) is decided when a page leaves
//! the buffer ([`PageStore::evicting`]); the store hears every logical
//! request ([`PageStore::accessed`]) for the algorithms that count them. A
//! move at eviction writes the page, which is in memory, to the other disk
//! (a clean page too: the paper sets its dirty bit).
//!
//! **Layout and crash safety.** Each disk holds pages in slots; a page's
//! slot is in its record. A move writes the new copy to a free slot of the
//! other disk and makes it durable (`flush` of that disk) before the
//! record that points at it is appended to the journal (`journal.rs`); the
//! old slot is reused only after the journal has been synced past that
//! record. So after a crash a page's durable record points at a durable
//! copy, and every page whose last write was followed by a completed
//! [`PageStore::flush`] reads back with those contents. A page written
//! since its last flush reads back as its flushed version, a later one, or
//! (written in place and torn, as with any file) a mix of the two, as a
//! file store's page would; a database covers that case with its log.
//!
//! **Beyond the paper.**
//! - `flash_capacity`: at most that many pages on flash. When a page should
//!   move to a full flash disk, the flash page with the lowest estimated
//!   saving (magnetic cost − flash cost of its operations, by the
//!   placement's own counters, accumulated since it was placed on flash
//!   and starting from the estimate that placed it there; updated at each
//!   of its evictions) is moved to the magnetic disk if the newcomer's
//!   estimate is higher; otherwise the newcomer stays where it is.
//! - `defer`: §7's deferred migrations. A page found on the wrong disk at
//!   eviction is marked; once `defer` pages are marked (or at `flush`), they
//!   are moved together: each is read from its disk, and the batch is
//!   written to consecutive fresh slots of its destination, priced as one
//!   sequential run by the destination's device model.
//!
//! Pages the store moves on its own (demotions from a full flash disk,
//! deferred batches) may be resident in the buffer: the caller collects
//! them with [`PageStore::take_moved`] and re-prices them in its policy.
//!
//! **Per-page state** lives in a vector found from the page number through
//! a dense table while numbers are small and a hash map beyond
//! (`index.rs`); only optimistic and hybrid, which count logical
//! operations, look a page up on every request. The placement counters are
//! persisted in the journal at `flush`, so a reopened store knows where
//! every page is and what it has counted as of its last flush.

mod builder;
mod costs;
mod journal;
mod moves;
pub mod optimal;
mod pagestore;
mod placement;

pub use builder::HybridStoreBuilder;
pub use costs::{other, Costs};
pub use journal::{BoxDisk, Record, RECORD};
pub use optimal::{Event, EventLog, PlacementSchedule};
pub use placement::{Counters, Placement, PLACEMENTS};

use crate::error::{Error, Result};
use crate::store::index::PageIndex;
use crate::store::{DeviceStats, IoStats, Listens, PageStore};
use crate::types::{DeviceId, Op, PageCost, PageId};
use journal::Journal;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

const WRITTEN: u8 = 1;
const ACCOUNTING: u8 = 2;
const RESIDENT: u8 = 4;
/// Moves to the other disk at its next write (decided at eviction).
const MOVE: u8 = 8;
/// Marked for a deferred move.
const MARKED: u8 = 16;
/// Its record changed since it was last appended to the journal.
const CHANGED: u8 = 32;

/// One cache line a page: a hint loads all of it.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct PageState {
    number: PageId,
    device: DeviceId,
    flags: u8,
    slot: u32,
    evictions: u32,
    counters: Counters,
    /// The saving estimate that ranks a flash page (`flash_capacity`):
    /// `base` plus what its counters have saved since it moved.
    merit: f64,
    /// The saving estimate that moved the page to flash.
    base: f64,
}

impl PageState {
    fn record(&self) -> Record {
        Record {
            page: self.number,
            device: self.device,
            written: self.flags & WRITTEN != 0,
            accounting: self.flags & ACCOUNTING != 0,
            slot: self.slot,
            evictions: self.evictions,
            counters: self.counters,
        }
    }
}

/// A page table with room for the file's `pages` when they are known: one
/// allocation made before it is touched (so huge pages can back it), not
/// one grown by copies. A size the allocator refuses starts it empty.
fn sized_for(pages: Option<u64>) -> Vec<PageState> {
    let mut v = Vec::new();
    if let Some(n) = pages.and_then(|n| usize::try_from(n).ok()) {
        let _ = v.try_reserve_exact(n);
    }
    v
}

/// A total order on saving estimates, for the flash ranking.
#[derive(Clone, Copy, Debug)]
struct Merit(f64);
impl PartialEq for Merit {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o).is_eq()
    }
}
impl Eq for Merit {}
impl PartialOrd for Merit {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Merit {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// A flash store and a magnetic store at the same level, each page on
/// exactly one (module docs).
pub struct HybridStore<F, M> {
    flash: F,
    magnetic: M,
    placement: Placement,
    costs: Costs,
    pages: Vec<PageState>,
    index: PageIndex,
    free: [Vec<u32>; 2],
    high: [u32; 2],
    /// Slots a move left, reusable once the journal is synced.
    pending_free: [Vec<u32>; 2],
    journal: Option<Journal>,
    changed: Vec<u32>,
    buffer_pages: u64,
    file_pages: Option<u64>,
    flash_capacity: Option<u64>,
    ranking: BTreeSet<(Merit, u32)>,
    on_flash: u64,
    defer: usize,
    marked: Vec<u32>,
    moved: Vec<PageId>,
    preloaded: bool,
    recording: Option<EventLog>,
    migrations: [u64; 2],
    scratch: Vec<u8>,
}

impl<F, M> std::fmt::Debug for HybridStore<F, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HybridStore")
            .field("placement", &self.placement.label())
            .field("pages", &self.pages.len())
            .field("on_flash", &self.on_flash)
            .finish()
    }
}

impl<F: PageStore, M: PageStore> HybridStore<F, M> {
    /// A builder over `flash` and `magnetic`.
    pub fn builder(flash: F, magnetic: M) -> HybridStoreBuilder<F, M> {
        HybridStoreBuilder {
            flash,
            magnetic,
            placement: Placement::Hybrid,
            buffer_pages: 0,
            file_pages: None,
            flash_capacity: None,
            defer: 0,
            preloaded: false,
            record: false,
            journal: None,
        }
    }

    /// The placement algorithm.
    pub fn placement(&self) -> &Placement {
        &self.placement
    }

    /// Both disks' costs.
    pub fn costs(&self) -> Costs {
        self.costs
    }

    /// Pages on flash now.
    pub fn pages_on_flash(&self) -> u64 {
        self.on_flash
    }

    /// Pages the store knows.
    pub fn pages(&self) -> u64 {
        self.pages.len() as u64
    }

    /// The disk `page` is on (the magnetic disk for a page never seen).
    pub fn device_of(&self, page: PageId) -> DeviceId {
        self.index
            .get(page)
            .map_or(DeviceId::MAGNETIC, |i| self.pages[i as usize].device)
    }

    /// The counters `page`'s placement has kept.
    pub fn counters_of(&self, page: PageId) -> Option<Counters> {
        self.index
            .get(page)
            .map(|i| self.pages[i as usize].counters)
    }

    /// Checks the layout: every page on exactly one disk in a slot no other
    /// page holds and no free list offers; the flash count right. An error
    /// names the first fault (for tests and after recovery).
    pub fn check_layout(&self) -> Result<()> {
        let mut seen: FxHashMap<(DeviceId, u32), PageId> = FxHashMap::default();
        let mut flash = 0;
        for p in &self.pages {
            if let Some(q) = seen.insert((p.device, p.slot), p.number) {
                return Err(Error::Store(format!(
                    "pages {q} and {} share slot {} of disk {}",
                    p.number, p.slot, p.device.0
                )));
            }
            flash += u64::from(p.device == DeviceId::FLASH);
        }
        for d in [DeviceId::FLASH, DeviceId::MAGNETIC] {
            for &s in self.free[d.index()]
                .iter()
                .chain(&self.pending_free[d.index()])
            {
                if let Some(q) = seen.get(&(d, s)) {
                    return Err(Error::Store(format!(
                        "slot {s} of disk {} is free but holds page {q}",
                        d.0
                    )));
                }
            }
        }
        if flash != self.on_flash {
            return Err(Error::Store(format!(
                "{flash} pages on flash, counted {}",
                self.on_flash
            )));
        }
        Ok(())
    }

    /// Switches the placement algorithm (an experiment loads its database
    /// with every page on the magnetic disk, then starts placing). Pages
    /// stay where they are. Fails for `optimal` with a flash capacity.
    pub fn set_placement(&mut self, p: Placement) -> Result<()> {
        if self.flash_capacity.is_some() && matches!(p, Placement::Optimal(_)) {
            return Err(Error::invalid(
                "a flash capacity applies to the online placements, not to optimal",
            ));
        }
        self.placement = p;
        Ok(())
    }

    /// Forgets what the placement has counted so far and the events
    /// recorded: every page keeps its disk, its counters start from zero
    /// with accounting on for the pages written, its eviction count (the
    /// optimal schedule's clock) restarts. For an experiment that starts on
    /// a loaded database: building a B+-tree through a small pool writes
    /// each page many times, which says nothing of the workload to come.
    pub fn reset_accounting(&mut self) {
        for i in 0..self.pages.len() {
            let p = &mut self.pages[i];
            p.counters = Counters::default();
            p.evictions = 0;
            if p.flags & WRITTEN != 0 {
                p.flags |= ACCOUNTING;
            }
            self.changed(i as u32);
        }
        if let Some(r) = self.recording.as_mut() {
            *r = EventLog::default();
        }
    }

    /// The recorded physical events, if recording ([`HybridStoreBuilder::record`]).
    pub fn take_recording(&mut self) -> Option<EventLog> {
        self.recording.take()
    }

    /// The flash store and the magnetic store back.
    pub fn into_parts(self) -> (F, M) {
        (self.flash, self.magnetic)
    }

    fn q(&self) -> f64 {
        let n = self
            .file_pages
            .unwrap_or(self.pages.len() as u64)
            .max(self.buffer_pages)
            .max(1);
        1.0 - self.buffer_pages as f64 / n as f64
    }

    fn alloc(&mut self, d: DeviceId) -> u32 {
        self.free[d.index()].pop().unwrap_or_else(|| {
            let s = self.high[d.index()];
            self.high[d.index()] += 1;
            s
        })
    }

    /// The index of `page`'s state, created on first sight: on the magnetic
    /// disk (the flash disk for `f-only`), in a fresh slot.
    fn state(&mut self, page: PageId) -> u32 {
        if let Some(i) = self.index.get(page) {
            return i;
        }
        let device = match self.placement {
            Placement::Fixed(d) => d,
            _ => DeviceId::MAGNETIC,
        };
        let slot = self.alloc(device);
        if device == DeviceId::FLASH {
            self.on_flash += 1;
        }
        let i = self.pages.len() as u32;
        self.pages.push(PageState {
            number: page,
            device,
            flags: if self.preloaded {
                ACCOUNTING | WRITTEN
            } else {
                0
            },
            slot,
            evictions: 0,
            counters: Counters::default(),
            merit: 0.0,
            base: 0.0,
        });
        self.index.insert(page, i);
        i
    }

    fn restore(&mut self, r: Record) {
        let i = match self.index.get(r.page) {
            Some(i) => i,
            None => {
                let i = self.pages.len() as u32;
                self.pages.push(PageState {
                    number: r.page,
                    device: r.device,
                    flags: 0,
                    slot: 0,
                    evictions: 0,
                    counters: Counters::default(),
                    merit: 0.0,
                    base: 0.0,
                });
                self.index.insert(r.page, i);
                i
            }
        };
        let p = &mut self.pages[i as usize];
        p.device = r.device;
        p.slot = r.slot;
        p.evictions = r.evictions;
        p.counters = r.counters;
        p.flags = (u8::from(r.written) * WRITTEN) | (u8::from(r.accounting) * ACCOUNTING);
    }

    /// After a replay: slots no record holds are free; flash occupancy and
    /// ranking follow the records.
    fn rebuild_free(&mut self) {
        let mut used: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        for (i, p) in self.pages.iter_mut().enumerate() {
            used[p.device.index()].push(p.slot);
            if p.device == DeviceId::FLASH && self.flash_capacity.is_some() {
                // The estimate that placed it is not persisted: its
                // counters since rank it.
                let merit = p
                    .counters
                    .flash_saving(&self.placement, p.device, &self.costs, 1.0);
                p.merit = merit;
                p.base = 0.0;
                self.ranking.insert((Merit(merit), i as u32));
            }
            if p.device == DeviceId::FLASH {
                self.on_flash += 1;
            }
        }
        for (d, used) in used.iter_mut().enumerate() {
            used.sort_unstable();
            self.high[d] = used.last().map_or(0, |&s| s + 1);
            let mut next = 0;
            for &u in used.iter() {
                self.free[d].extend(next..u);
                next = u + 1;
            }
        }
    }

    fn counting(&self, p: &PageState) -> bool {
        p.flags & ACCOUNTING != 0 || matches!(self.placement, Placement::Conservative)
    }

    fn dev_read(&mut self, d: DeviceId, slot: u32, buf: &mut [u8]) -> Result<()> {
        if d == DeviceId::FLASH {
            self.flash.read(PageId::from(slot), buf)
        } else {
            self.magnetic.read(PageId::from(slot), buf)
        }
    }

    fn dev_write(&mut self, d: DeviceId, slot: u32, buf: &[u8]) -> Result<()> {
        if d == DeviceId::FLASH {
            self.flash.write(PageId::from(slot), buf)
        } else {
            self.magnetic.write(PageId::from(slot), buf)
        }
    }

    fn dev_flush(&mut self, d: DeviceId) -> Result<()> {
        if d == DeviceId::FLASH {
            self.flash.flush()
        } else {
            self.magnetic.flush()
        }
    }

    fn changed(&mut self, i: u32) {
        let p = &mut self.pages[i as usize];
        if p.flags & CHANGED == 0 && self.journal.is_some() {
            p.flags |= CHANGED;
            self.changed.push(i);
        }
    }

    fn record_event(&mut self, i: u32, e: Event) {
        if let Some(r) = self.recording.as_mut() {
            r.push(self.pages[i as usize].number, e);
        }
    }

    /// Writes page `i`'s new contents: to its disk, or, if it was decided
    /// to move, to a fresh slot of the other disk (made durable before the
    /// journal points at it).
    fn put(&mut self, i: u32, buf: &[u8]) -> Result<()> {
        let p = self.pages[i as usize];
        if p.flags & MOVE != 0 {
            let to = other(p.device);
            let slot = self.alloc(to);
            self.dev_write(to, slot, buf)?;
            self.dev_flush(to)?;
            self.relocate(i, to, slot)?;
        } else {
            self.dev_write(p.device, p.slot, buf)?;
            self.pages[i as usize].flags |= WRITTEN | ACCOUNTING;
        }
        self.changed(i);
        Ok(())
    }

    fn page_cost(&self, d: DeviceId) -> PageCost {
        let mut c = if d == DeviceId::FLASH {
            self.flash.cost_of(0)
        } else {
            self.magnetic.cost_of(0)
        };
        c.device = d;
        c
    }
}
