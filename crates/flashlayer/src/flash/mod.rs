//! Page update methods on raw NAND (PDL §3 and §4): how a database page
//! that changed in memory reaches a [`nand::Chip`](crate::nand::Chip).
//!
//! - [`Method::Ipu`], in-place update (PDL §3): a logical page lives at a
//!   fixed physical page; an update reads the rest of the block, erases it
//!   and programs it all back ([`ipu`]).
//! - [`Method::Opu`], out-of-place update with a page-level mapping,
//!   obsolete marks and greedy garbage collection (PDL §3, §5.1) ([`opu`]).
//! - [`Method::Ipl`], in-page logging (Lee & Moon, SIGMOD 2007): each erase
//!   unit holds data pages and a log area; updates are logged into the
//!   unit's log pages and merged when the log area is full ([`ipl`]).
//! - [`Method::Pdl`], page-differential logging (PDL §4): a base page plus
//!   at most one differential page per logical page, differentials
//!   collected in a one-page write buffer ([`pdl`]).
//!
//! [`FlashStore`] is a [`PageStore`]: the buffer pool, the B+-tree and the
//! workload drivers run on it unchanged, and a dirty page's write-back is
//! the method's page update. `flush()` makes every write so far durable;
//! after a power cut, [`FlashStoreBuilder::recover`] rebuilds the in-memory
//! tables by one scan of the chip. Every page the methods program carries
//! a header in its spare area (`spare.rs`) with a checksum, so a page torn
//! by a cut is recognised and ignored.

pub mod crash;
mod differential;
pub mod ipl;
pub mod ipu;
mod method;
pub mod opu;
pub mod pdl;
pub(crate) mod spare;
pub mod updates;

/// Partial programs a page's data area takes on the chips the flash
/// experiments and the crash test emulate: IPL writes its 128-byte log
/// sectors that way (Lee & Moon's sector writes), 16 to a 2 KB page; the
/// other methods program whole pages.
pub const DATA_PROGRAMS: u8 = 16;

pub use method::{Method, METHODS};

use crate::error::{Error, Result};
use crate::nand::{Chip, Geometry};
use crate::store::{IoStats, PageStore};
use crate::types::{PageCost, PageId};
use std::fmt;
use std::ops::DerefMut;
use std::sync::{Arc, Mutex, MutexGuard};

/// How a store reaches its chip: owned, or shared with whoever arms power
/// cuts on it (the Python `NandChip`).
pub trait ChipAccess {
    /// A borrow of the chip for one operation.
    type Guard<'a>: DerefMut<Target = Chip>
    where
        Self: 'a;
    /// The chip.
    fn chip(&mut self) -> Self::Guard<'_>;
    /// The chip's counters, through a shared borrow.
    fn chip_stats(&self) -> crate::nand::ChipStats;
}

impl ChipAccess for Chip {
    type Guard<'a> = &'a mut Chip;
    fn chip(&mut self) -> &mut Chip {
        self
    }
    fn chip_stats(&self) -> crate::nand::ChipStats {
        self.stats()
    }
}

impl ChipAccess for &mut Chip {
    type Guard<'a>
        = &'a mut Chip
    where
        Self: 'a;
    fn chip(&mut self) -> &mut Chip {
        self
    }
    fn chip_stats(&self) -> crate::nand::ChipStats {
        self.stats()
    }
}

impl ChipAccess for Arc<Mutex<Chip>> {
    type Guard<'a> = MutexGuard<'a, Chip>;
    fn chip(&mut self) -> MutexGuard<'_, Chip> {
        // A panic elsewhere while holding the chip leaves it as consistent
        // as a power cut would; the stores recover from either.
        self.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
    fn chip_stats(&self) -> crate::nand::ChipStats {
        self.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .stats()
    }
}

/// What a method counts beyond the chip's counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlashStats {
    /// Logical page reads served.
    pub page_reads: u64,
    /// Logical page writes (updates) served.
    pub page_writes: u64,
    /// Flushes.
    pub flushes: u64,
    /// Garbage collections (OPU, PDL) or merges (IPL): blocks reclaimed.
    pub gc_runs: u64,
    /// Chip time spent in garbage collection or merging, µs.
    pub gc_time_us: f64,
    /// PDL: differentials written (cases 1 and 2) and new base pages
    /// written in place of a differential (case 3).
    pub differentials: u64,
    /// PDL case 3 writes (and every OPU write).
    pub new_base_pages: u64,
    /// PDL: differentials folded into new base pages because collection
    /// found no block worth reclaiming (space pressure).
    pub folds: u64,
}

impl FlashStats {
    /// The counts a result row shows.
    pub fn fields(&self) -> crate::types::Fields {
        crate::fields!(
            self,
            [
                page_reads,
                page_writes,
                flushes,
                gc_runs,
                gc_time_us,
                differentials,
                new_base_pages,
                folds
            ]
        )
    }
}

/// The state of one method on a chip.
#[derive(Debug)]
pub(crate) enum Engine {
    Ipu(Box<ipu::Ipu>),
    Log(Box<pdl::Pdl>),
    Ipl(Box<ipl::Ipl>),
}

impl Engine {
    fn read(&mut self, chip: &mut Chip, lpn: u32, out: &mut [u8]) -> Result<()> {
        match self {
            Engine::Ipu(e) => e.read(chip, lpn, out),
            Engine::Log(e) => e.read(chip, lpn, out),
            Engine::Ipl(e) => e.read(chip, lpn, out),
        }
    }
    fn write(&mut self, chip: &mut Chip, lpn: u32, data: &[u8]) -> Result<()> {
        match self {
            Engine::Ipu(e) => e.write(chip, lpn, data),
            Engine::Log(e) => e.write(chip, lpn, data),
            Engine::Ipl(e) => e.write(chip, lpn, data),
        }
    }
    fn write_changed(
        &mut self,
        chip: &mut Chip,
        lpn: u32,
        data: &[u8],
        changed: &[(u32, u32)],
    ) -> Result<()> {
        match self {
            Engine::Ipl(e) => e.write_changed(chip, lpn, data, changed),
            // IPU and OPU write whole pages; PDL computes its differential
            // against its base page itself, as the paper does (§4.1).
            _ => self.write(chip, lpn, data),
        }
    }
    fn flush(&mut self, chip: &mut Chip) -> Result<()> {
        match self {
            Engine::Ipu(_) => Ok(()),
            Engine::Log(e) => e.flush(chip),
            Engine::Ipl(e) => e.flush(chip),
        }
    }
    fn stats(&self) -> &FlashStats {
        match self {
            Engine::Ipu(e) => &e.stats,
            Engine::Log(e) => &e.stats,
            Engine::Ipl(e) => &e.stats,
        }
    }

    fn stats_mut(&mut self) -> &mut FlashStats {
        match self {
            Engine::Ipu(e) => &mut e.stats,
            Engine::Log(e) => &mut e.stats,
            Engine::Ipl(e) => &mut e.stats,
        }
    }
}

/// Options of a [`FlashStore`]; each default is stated on its setter.
#[derive(Clone, Debug)]
pub struct FlashStoreBuilder {
    method: Method,
    logical_pages: Option<u32>,
    obsolete_in_memory: bool,
}

impl FlashStoreBuilder {
    /// A store using `method`.
    pub fn new(method: Method) -> Self {
        FlashStoreBuilder {
            method,
            logical_pages: None,
            obsolete_in_memory: false,
        }
    }

    crate::setters! {
        /// Logical pages the store holds (page ids `0..n`). Default: half the
        /// chip's pages (the rest is room for logs, differentials and garbage
        /// collection), or fewer if the method cannot hold half: IPL with a log
        /// area of half a block or more, and any method on a chip of a few
        /// blocks. IPU may be given every page.
        logical_pages: Some(u32);

        /// Keep obsolete marks in memory instead of programming them into the
        /// spare area (PDL §4.5, footnote 9), for OPU and PDL; recovery rebuilds
        /// them from creation time stamps. Default: `false` (marks in the spare
        /// area, the paper's experiments). Required on a chip that forbids
        /// spare re-programs.
        obsolete_in_memory: bool;
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The most logical pages the method can hold on a chip of `g`.
    pub fn most_logical(&self, g: Geometry) -> u32 {
        match self.method {
            Method::Ipu => g.pages(),
            Method::Opu | Method::Pdl { .. } => pdl::Pdl::most_logical(g),
            Method::Ipl { log_bytes } => ipl::Ipl::most_logical(g, log_bytes),
        }
    }

    fn logical(&self, chip: &Chip) -> u32 {
        let g = chip.geometry();
        self.logical_pages
            .unwrap_or_else(|| (g.pages() / 2).min(self.most_logical(g)))
    }

    fn engine(&self, chip: &mut Chip, recover: bool) -> Result<Engine> {
        if !chip.is_on() {
            return Err(Error::PowerCut);
        }
        let logical = self.logical(chip);
        if logical == 0 {
            return Err(Error::invalid(match self.logical_pages {
                Some(_) => "a flash store needs at least one logical page".to_string(),
                None => format!(
                    "a chip of {} blocks is too small for {}: it leaves no room for a logical page",
                    chip.geometry().blocks,
                    self.method.label()
                ),
            }));
        }
        spare::check_geometry(chip)?;
        if self.obsolete_in_memory && matches!(self.method, Method::Ipu | Method::Ipl { .. }) {
            return Err(Error::invalid(format!(
                "obsolete marks kept in memory apply to OPU and PDL; {} keeps no obsolete marks",
                self.method.label()
            )));
        }
        Ok(match self.method {
            Method::Ipu => Engine::Ipu(Box::new(ipu::Ipu::open(chip, logical, recover)?)),
            Method::Opu => Engine::Log(Box::new(pdl::Pdl::open(
                chip,
                logical,
                None,
                self.obsolete_in_memory,
                recover,
            )?)),
            Method::Pdl { max_diff } => Engine::Log(Box::new(pdl::Pdl::open(
                chip,
                logical,
                Some(max_diff),
                self.obsolete_in_memory,
                recover,
            )?)),
            Method::Ipl { log_bytes } => {
                Engine::Ipl(Box::new(ipl::Ipl::open(chip, logical, log_bytes, recover)?))
            }
        })
    }

    /// A new store on `chip`, which must be erased (a fresh chip). Use
    /// [`FlashStoreBuilder::recover`] for a chip that holds a store.
    pub fn create<C: ChipAccess>(&self, mut chip: C) -> Result<FlashStore<C>> {
        let (engine, epoch) = {
            let mut c = chip.chip();
            let g = c.geometry();
            if (0..g.blocks).any(|b| c.programmed_pages(b) > 0) {
                return Err(Error::invalid(
                    "the chip is not erased; open the store on it with recover()",
                ));
            }
            c.open_store(&self.method.to_string(), true)?;
            let engine = self.engine(&mut c, false)?;
            (engine, c.epoch())
        };
        Ok(FlashStore::new(chip, engine, self.method, epoch))
    }

    /// The store `chip` holds, its tables rebuilt by one scan of the chip
    /// (PDL Fig. 7 for PDL and OPU). Also opens a fresh chip. A cut during
    /// recovery leaves the chip as recoverable as before.
    pub fn recover<C: ChipAccess>(&self, mut chip: C) -> Result<FlashStore<C>> {
        let (engine, epoch) = {
            let mut c = chip.chip();
            c.open_store(&self.method.to_string(), false)?;
            (self.engine(&mut c, true)?, c.epoch())
        };
        Ok(FlashStore::new(chip, engine, self.method, epoch))
    }
}

/// Logical pages on a NAND chip through a page update method (module docs).
pub struct FlashStore<C: ChipAccess = Chip> {
    chip: C,
    engine: Engine,
    method: Method,
    broken: bool,
    /// The chip's epoch when this store opened: a store opened on the chip
    /// since supersedes this one ([`Chip::open_store`]).
    epoch: u64,
    /// The chip's, copied once: they never change.
    page_size: usize,
    timing: crate::nand::Timing,
}

impl<C: ChipAccess> fmt::Debug for FlashStore<C> {
    // The tables hold a few words a page: name the store, not its state.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlashStore")
            .field("method", &self.method.to_string())
            .field("logical_pages", &self.logical_pages())
            .field("broken", &self.broken)
            .finish_non_exhaustive()
    }
}

impl<C: ChipAccess> FlashStore<C> {
    fn new(mut chip: C, engine: Engine, method: Method, epoch: u64) -> Self {
        let (page_size, timing) = {
            let c = chip.chip();
            (c.geometry().page_size, c.timing())
        };
        FlashStore {
            chip,
            engine,
            method,
            broken: false,
            epoch,
            page_size,
            timing,
        }
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// Logical pages the store holds.
    pub fn logical_pages(&self) -> u32 {
        match &self.engine {
            Engine::Ipu(e) => e.logical,
            Engine::Log(e) => e.logical,
            Engine::Ipl(e) => e.logical,
        }
    }

    /// The chip.
    pub fn chip(&mut self) -> C::Guard<'_> {
        self.chip.chip()
    }

    /// Gives the chip back (to recover a store on it after a cut).
    pub fn into_chip(self) -> C {
        self.chip
    }

    /// The method's own counters.
    pub fn flash_stats(&self) -> FlashStats {
        self.engine.stats().clone()
    }

    /// Starts the method's and the chip's counts afresh: what the store
    /// did so far (loading it, say) is not counted.
    pub fn reset_stats(&mut self) {
        *self.engine.stats_mut() = FlashStats::default();
        self.chip.chip().reset_stats();
    }

    fn lpn(&self, page: PageId) -> Result<u32> {
        let n = self.logical_pages();
        match u32::try_from(page) {
            Ok(p) if p < n => Ok(p),
            _ => Err(Error::invalid(format!(
                "page {page} is beyond the store's {n} logical pages"
            ))),
        }
    }

    fn check_len(&self, len: usize) -> Result<()> {
        let ps = self.page_size;
        if len != ps {
            return Err(Error::invalid(format!(
                "{len} bytes for a store of {ps}-byte pages"
            )));
        }
        Ok(())
    }

    /// Runs one operation; a power cut (or any chip failure) leaves the
    /// in-memory tables unusable until recovery.
    fn guarded<T>(&mut self, op: impl FnOnce(&mut Engine, &mut Chip) -> Result<T>) -> Result<T> {
        if self.broken {
            return Err(Error::Store(
                "the store lost power during an operation; recover it from the chip".into(),
            ));
        }
        let mut chip = self.chip.chip();
        if chip.epoch() != self.epoch {
            return Err(Error::Store(
                "a store opened on this chip since supersedes this one; use that store".into(),
            ));
        }
        let r = op(&mut self.engine, &mut chip);
        if matches!(r, Err(Error::PowerCut)) {
            self.broken = true;
        }
        r
    }
}

impl<C: ChipAccess> PageStore for FlashStore<C> {
    fn page_size(&self) -> usize {
        self.page_size
    }
    fn read(&mut self, page: PageId, buf: &mut [u8]) -> Result<()> {
        let lpn = self.lpn(page)?;
        self.check_len(buf.len())?;
        self.guarded(|e, c| e.read(c, lpn, buf))
    }
    fn write(&mut self, page: PageId, buf: &[u8]) -> Result<()> {
        let lpn = self.lpn(page)?;
        self.check_len(buf.len())?;
        self.guarded(|e, c| e.write(c, lpn, buf))
    }
    fn write_changed(&mut self, page: PageId, buf: &[u8], changed: &[(u32, u32)]) -> Result<()> {
        let lpn = self.lpn(page)?;
        self.check_len(buf.len())?;
        if let Some(&(off, len)) = changed
            .iter()
            .find(|&&(off, len)| off as usize + len as usize > buf.len())
        {
            return Err(Error::invalid(format!(
                "changed range {off}+{len} is beyond the {}-byte page",
                buf.len()
            )));
        }
        self.guarded(|e, c| e.write_changed(c, lpn, buf, changed))
    }
    fn wants_changes(&self) -> bool {
        matches!(self.method, Method::Ipl { .. })
    }
    fn flush(&mut self) -> Result<()> {
        self.guarded(|e, c| e.flush(c))
    }
    fn cost_of(&self, _page: PageId) -> PageCost {
        PageCost::new(self.timing.read_us, self.timing.program_us)
    }
    fn stats(&self) -> IoStats {
        let s = self.chip.chip_stats();
        IoStats {
            reads: s.reads + s.spare_reads,
            writes: s.programs + s.spare_programs,
            seq_reads: 0,
            seq_writes: 0,
            erases: s.erases,
            migrations: 0,
            virtual_time: s.time_us,
        }
    }
    fn device_stats(&self, out: &mut Vec<crate::store::DeviceStats>) {
        out.push(crate::store::DeviceStats {
            name: format!("nand:{}", self.method),
            io: self.stats(),
            pages: None,
        });
    }
}
