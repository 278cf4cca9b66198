//! Page stores (`docs/design/stores.md`): where misses are read from and dirty pages
//! written to. Every store prices its physical I/O with a
//! [`DeviceModel`] through a [`Meter`]; some also keep the bytes.
//!
//! - [`CostStore`] keeps no data: the simulator's store.
//! - [`MemStore`] keeps pages in memory: tests and small pools.
//! - [`FileStore`] keeps pages in a real file with `pread`/`pwrite`, optional
//!   `O_DIRECT`, and `fsync` on [`PageStore::flush`].
//! - [`LockedStore`] puts any store behind its own lock, for callers on
//!   several threads; a store that does I/O from many threads at once hands
//!   out a [`SharedIo`] ([`PageStore::shared_io`]) that needs none.
//!
//! The hybrid flash+HDD store ([`crate::hybrid`]), the SSD cache tier
//! ([`crate::tier`]), the FTL SSD ([`crate::ftl`]) and the NAND flash stores
//! ([`crate::flash`]) implement the same trait.

/// The `cost_of`, `stats` and `device_stats` of a [`PageStore`] priced by
/// one [`Meter`] in its field `meter` (one device, every page alike).
macro_rules! metered {
    () => {
        #[inline]
        fn cost_of(&self, _page: $crate::types::PageId) -> $crate::types::PageCost {
            self.meter.page_cost()
        }
        fn stats(&self) -> $crate::types::IoStats {
            self.meter.stats()
        }
        fn device_stats(&self, out: &mut Vec<$crate::types::DeviceStats>) {
            out.push(self.meter.device_stats());
        }
    };
}

/// The page I/O, pricing, counts and [`PageStore::shared_io`] of a
/// [`PageStore`] whose state is its [`SharedIo`] in the field `io`, with
/// fields `page_size`, `cost` (the device's price of a page) and `meter`
/// (under a lock).
macro_rules! shares_io {
    () => {
        fn page_size(&self) -> usize {
            self.io.page_size
        }
        fn read(
            &mut self,
            page: $crate::types::PageId,
            buf: &mut [u8],
        ) -> $crate::error::Result<()> {
            $crate::store::SharedIo::read(&*self.io, page, buf)
        }
        fn write(&mut self, page: $crate::types::PageId, buf: &[u8]) -> $crate::error::Result<()> {
            $crate::store::SharedIo::write(&*self.io, page, buf)
        }
        fn write_batch(
            &mut self,
            batch: &[($crate::types::PageId, &[u8])],
        ) -> $crate::error::Result<()> {
            $crate::store::SharedIo::write_batch(&*self.io, batch)
        }
        fn read_ahead(
            &mut self,
            after: $crate::types::PageId,
            pages: &[$crate::types::PageId],
            buf: &mut [u8],
        ) -> $crate::error::Result<()> {
            $crate::store::SharedIo::read_ahead(&*self.io, after, pages, buf)
        }
        #[inline]
        fn cost_of(&self, _page: $crate::types::PageId) -> $crate::types::PageCost {
            self.io.cost
        }
        fn stats(&self) -> $crate::types::IoStats {
            lock(&self.io.meter).stats()
        }
        fn device_stats(&self, out: &mut Vec<$crate::types::DeviceStats>) {
            out.push(lock(&self.io.meter).device_stats());
        }
        fn shared_io(&self) -> Option<std::sync::Arc<dyn $crate::store::SharedIo>> {
            Some(self.io.clone())
        }
    };
}

mod cost;
mod disk;
mod file;
pub(crate) mod index;
mod locked;
mod mem;

pub use cost::CostStore;
pub use disk::{CrashDisk, CrashLab, Disk, DiskStore, FileDisk, SECTOR};
pub use file::{FileStore, FileStoreBuilder};
pub use locked::LockedStore;
pub use mem::MemStore;

use crate::device::DeviceModel;
use crate::error::Result;
pub use crate::types::{DeviceStats, IoStats};
use crate::types::{IoKind, Op, PageCost, PageId};

/// How a store wants the pages of its calls named
/// ([`PageStore::naming`]). A caller that names pages by dense ids looks a
/// page's number up only where the store needs it, which on a simulated
/// miss is a random memory access saved, and the store its own lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// By page number in every call: a store that keeps data or places
    /// pages by number.
    Numbers,
    /// By page number in batches (adjacent numbers are priced as sequential
    /// writes); single-page calls may carry any id: a store that answers
    /// them alike for every page (a cost model of one device).
    Batches,
    /// By the caller's dense id in every call: a store that keeps its
    /// per-page state by the caller's dense ids and needs no numbers (a
    /// simulated SSD tier under a trace replay).
    Dense,
}

/// What a store asks its caller to tell it ([`PageStore::listens`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Listens {
    /// Every logical request ([`PageStore::accessed`]).
    pub accesses: bool,
    /// With each request, whether it is for the page the policy would
    /// evict next (HyPro's tuning counts these; `accessed`'s `at_victim`).
    pub next_victim: bool,
    /// Every page leaving the buffer ([`PageStore::evicting`]), every missing
    /// page admitted ([`PageStore::admitted`]), and the pages the store
    /// moved on its own ([`PageStore::take_moved`]): a store that places
    /// pages (the hybrid store) or keeps a cache below the buffer (the SSD
    /// tier).
    pub evictions: bool,
}

/// How a missing page came to the buffer ([`PageStore::load`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loaded {
    /// The page is in the read buffer; `dirty`: it is newer than every copy
    /// the store keeps (HyPro took a dirty page off its SSD), so it enters
    /// the buffer dirty.
    Page {
        /// Whether the page enters the buffer dirty.
        dirty: bool,
    },
    /// The store served the request itself; the page does not enter the
    /// buffer.
    Served,
}

/// A device that holds pages.
pub trait PageStore {
    /// Bytes per page, or 0 if the store keeps no data (it then accepts
    /// buffers of any length and leaves read buffers untouched).
    fn page_size(&self) -> usize;

    /// Reads `page` into `buf`. A page never written reads as zeros.
    fn read(&mut self, page: PageId, buf: &mut [u8]) -> Result<()>;

    /// Writes `buf` as the new contents of `page`. Durable only after
    /// [`PageStore::flush`].
    fn write(&mut self, page: PageId, buf: &[u8]) -> Result<()>;

    /// Writes `buf` as `page`'s new contents, told which byte ranges
    /// changed since the page was read: `(offset, length)` pairs in the
    /// order the changes were made (they may overlap). A store that logs
    /// changes (IPL, `flash::ipl`) writes just those; every other store
    /// writes the page. Default: [`PageStore::write`].
    fn write_changed(&mut self, page: PageId, buf: &[u8], changed: &[(u32, u32)]) -> Result<()> {
        let _ = changed;
        self.write(page, buf)
    }

    /// Writes a batch together (write clustering). A page whose id follows
    /// the previous page of the batch is priced as a sequential write by a
    /// store that prices I/O. Default: [`PageStore::write`] of each, in
    /// order, stopping at the first error (for a store whose every write
    /// costs the same, or that passes each page to a device of its own).
    fn write_batch(&mut self, batch: &[(PageId, &[u8])]) -> Result<()> {
        batch
            .iter()
            .try_for_each(|&(page, buf)| self.write(page, buf))
    }

    /// Reads `pages`, issued together right after a read of `after`, for a
    /// caller that reads pages ahead of requests
    /// ([`crate::policy::Policy::read_ahead`]): page `i`'s bytes go to
    /// `buf[i * page_size..]`, so `buf` holds `pages.len()` pages (none for
    /// a store that keeps no data). Default: [`PageStore::read`] of each.
    fn read_ahead(&mut self, after: PageId, pages: &[PageId], buf: &mut [u8]) -> Result<()> {
        let _ = after;
        read_each(pages, buf, self.page_size(), |p, b| self.read(p, b))
    }

    /// Makes every write so far durable.
    fn flush(&mut self) -> Result<()>;

    /// What reading and writing `page` costs on the device it lives on.
    fn cost_of(&self, page: PageId) -> PageCost;

    /// I/O performed so far, over all the store's devices.
    fn stats(&self) -> IoStats;

    /// Appends each device's I/O, in [`crate::types::DeviceId`] order. Every
    /// store counts its own I/O, including what it does without being asked
    /// (migrations), so callers never count physical I/O for it. Default:
    /// one device named `"store"` with [`PageStore::stats`].
    fn device_stats(&self, out: &mut Vec<DeviceStats>) {
        out.push(DeviceStats {
            name: "store".to_owned(),
            io: self.stats(),
            pages: None,
        });
    }

    /// What the store asks its caller to tell it beyond reads and writes
    /// ([`Listens`]). Default: nothing, and the calls it names are never
    /// made.
    fn listens(&self) -> Listens {
        Listens::default()
    }

    /// A logical request for `page` (a hit or a miss; a miss also reaches
    /// the store as a [`PageStore::load`]), in request order; `at_victim`:
    /// the page is the one the buffer's policy would evict next (told only
    /// to a store that listens for it, else `false`). Default: nothing.
    fn accessed(&mut self, page: PageId, op: Op, at_victim: bool) {
        let _ = (page, op, at_victim);
    }

    /// Brings a missing `page` to the buffer for a request `op`: reads it
    /// into `buf` and says how it came ([`Loaded`]). A store may serve the
    /// request itself instead ([`Loaded::Served`]: the page does not enter
    /// the buffer; HyPro answers on its SSD), or say the page enters dirty
    /// (newer than every copy the store keeps). Default: [`PageStore::read`],
    /// a clean page.
    fn load(&mut self, page: PageId, op: Op, buf: &mut [u8]) -> Result<Loaded> {
        let _ = op;
        self.read(page, buf)?;
        Ok(Loaded::Page { dirty: false })
    }

    /// Whether [`PageStore::load`] may answer [`Loaded::Served`]. A caller
    /// that needs every missing page in a frame (the buffer pool) refuses
    /// such a store. Default: `false`.
    fn serves_in_place(&self) -> bool {
        false
    }

    /// The missing `page` that [`PageStore::load`] brought is admitted to
    /// the buffer, after the buffer made room for it (told to a store that
    /// listens for evictions). Default: nothing.
    fn admitted(&mut self, page: PageId, op: Op) -> Result<()> {
        let _ = (page, op);
        Ok(())
    }

    /// State variables for the time series (HyPro's probabilities), after
    /// the policy's. Default: none.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let _ = out;
    }

    /// `page` leaves the buffer, `dirty` or not; called before its
    /// write-back. Returns whether the caller must write the page now:
    /// `dirty`, or a clean page the store decided to move to another device
    /// (the write carries it there; Koltsidas & Viglas §4 set the dirty bit).
    /// Default: `dirty`.
    fn evicting(&mut self, page: PageId, dirty: bool) -> Result<bool> {
        let _ = page;
        Ok(dirty)
    }

    /// Hints that `page` is asked for soon, for a store that places pages
    /// and finds a page's state in two dependent steps: start loading where
    /// it finds `page`. The simulator calls it some requests ahead, then
    /// [`PageStore::prefetch_state`] a few requests later. Must not change
    /// anything. Default: nothing.
    #[inline]
    fn prefetch_index(&self, page: PageId) {
        let _ = page;
    }

    /// The second step of [`PageStore::prefetch_index`]: start loading
    /// `page`'s state. Default: nothing.
    #[inline]
    fn prefetch_state(&self, page: PageId) {
        let _ = page;
    }

    /// Appends the pages the store moved to another device on its own since
    /// the last call (a full flash disk demoting a page, a deferred batch of
    /// migrations), so that the caller re-prices those still resident
    /// ([`crate::policy::Policy::reprice`]). Default: none.
    fn take_moved(&mut self, out: &mut Vec<PageId>) {
        let _ = out;
    }

    /// How the store wants pages named in the calls it receives
    /// ([`Naming`]). Default: [`Naming::Numbers`].
    fn naming(&self) -> Naming {
        Naming::Numbers
    }

    /// Whether the store uses the byte ranges of
    /// [`PageStore::write_changed`], so that a caller should track them
    /// (the buffer pool then keeps a copy of each page a writer fixes).
    /// Default: `false`.
    fn wants_changes(&self) -> bool {
        false
    }

    /// Whether the store measures the real latency of its I/O. Default:
    /// `false` (the store only prices I/O with its device model).
    fn measures_latency(&self) -> bool {
        false
    }

    /// The measured latency, in µs, of the last `read`, or per page of the
    /// last `write` or `write_batch`; `None` from a store that does not
    /// measure. Default: `None`.
    fn measured_latency(&self) -> Option<f64> {
        None
    }

    /// A handle through which several threads read and write pages at once
    /// ([`SharedIo`]), for a store whose reads and writes change nothing but
    /// the pages and their counts (a file read and written positionally, a
    /// memory store). The buffer pool does its I/O through it outside every
    /// lock; a store without one is used by one thread at a time. Default:
    /// `None`.
    fn shared_io(&self) -> Option<std::sync::Arc<dyn SharedIo>> {
        None
    }
}

/// Page I/O that many threads may do at once, counted in the statistics of
/// the store that handed it out ([`PageStore::shared_io`]).
pub trait SharedIo: Send + Sync + std::fmt::Debug {
    /// [`PageStore::read`].
    fn read(&self, page: PageId, buf: &mut [u8]) -> Result<()>;
    /// [`PageStore::write`].
    fn write(&self, page: PageId, buf: &[u8]) -> Result<()>;
    /// [`PageStore::write_batch`].
    fn write_batch(&self, batch: &[(PageId, &[u8])]) -> Result<()>;
    /// [`PageStore::read_ahead`].
    fn read_ahead(&self, after: PageId, pages: &[PageId], buf: &mut [u8]) -> Result<()>;
}

/// Checks that `buf` holds `pages` pages of `page_size` bytes
/// ([`PageStore::read_ahead`]'s layout).
pub(crate) fn check_pages_len(pages: &[PageId], buf: &[u8], page_size: usize) -> Result<()> {
    if buf.len() != pages.len() * page_size {
        return Err(crate::Error::invalid(format!(
            "buffer of {} bytes for {} pages of {page_size} bytes",
            buf.len(),
            pages.len()
        )));
    }
    Ok(())
}

/// Reads `pages` one by one with `read`, page `i` into
/// `buf[i * page_size..]` ([`PageStore::read_ahead`]'s layout).
pub(crate) fn read_each(
    pages: &[PageId],
    buf: &mut [u8],
    page_size: usize,
    mut read: impl FnMut(PageId, &mut [u8]) -> Result<()>,
) -> Result<()> {
    check_pages_len(pages, buf, page_size)?;
    if page_size == 0 {
        return pages.iter().try_for_each(|&p| read(p, &mut []));
    }
    pages
        .iter()
        .zip(buf.chunks_exact_mut(page_size))
        .try_for_each(|(&p, b)| read(p, b))
}

/// Prices physical operations with a [`DeviceModel`] and counts them; the
/// accounting every store shares.
#[derive(Clone, Debug)]
pub struct Meter {
    device: DeviceModel,
    stats: IoStats,
}

impl Meter {
    /// A meter for `device` with zero counts.
    pub fn new(device: DeviceModel) -> Self {
        Meter {
            device,
            stats: IoStats::default(),
        }
    }

    /// The device model.
    pub fn device(&self) -> &DeviceModel {
        &self.device
    }

    /// Counts one read; returns its cost.
    #[inline]
    pub fn read(&mut self, sequential: bool) -> f64 {
        self.stats.reads += 1;
        self.stats.seq_reads += u64::from(sequential);
        self.charge(sequential, self.device.seq_read, self.device.read)
    }

    /// Counts one write; returns its cost.
    #[inline]
    pub fn write(&mut self, sequential: bool) -> f64 {
        self.stats.writes += 1;
        self.stats.seq_writes += u64::from(sequential);
        self.charge(sequential, self.device.seq_write, self.device.write)
    }

    /// Adds an I/O's cost, `seq` or `random`, to the virtual time; returns it.
    #[inline]
    fn charge(&mut self, sequential: bool, seq: f64, random: f64) -> f64 {
        let c = if sequential { seq } else { random };
        self.stats.virtual_time += c;
        c
    }

    /// Counts one erase; returns its cost (0 for a device without erases).
    pub fn erase(&mut self) -> f64 {
        let c = self.device.erase.unwrap_or(0.0);
        self.stats.erases += 1;
        self.stats.virtual_time += c;
        c
    }

    /// The per-page cost on this device, as device 0.
    #[inline]
    pub fn page_cost(&self) -> PageCost {
        PageCost {
            read: self.device.read,
            write: self.device.write,
            seq_write: self.device.seq_write,
            device: crate::types::DeviceId::ONLY,
        }
    }

    /// Counts one page moved onto this device (its write is counted by
    /// [`Meter::write`]).
    pub fn migration(&mut self) {
        self.stats.migrations += 1;
    }

    /// This device's entry for [`PageStore::device_stats`].
    pub fn device_stats(&self) -> DeviceStats {
        DeviceStats {
            name: self.device.name.clone(),
            io: self.stats,
            pages: None,
        }
    }

    /// Counts so far.
    pub fn stats(&self) -> IoStats {
        self.stats
    }

    /// Prices reads issued together right after a read of `after`: on a
    /// device that serves `k > 1` I/Os at once, `⌈n / k⌉` random reads for
    /// its `n` pages; else each page, sequential when it follows the page
    /// read before it.
    pub fn read_batch(&mut self, after: PageId, pages: impl ExactSizeIterator<Item = PageId>) {
        self.batch(IoKind::Read, Some(after), pages);
    }

    /// Prices a write batch: on a device that serves `k > 1` writes at
    /// once, `⌈n / k⌉` random writes for its `n` pages
    /// ([`DeviceModel::concurrent_batch`]); else each page, sequential
    /// when it follows the previous page of the batch.
    pub fn write_batch(&mut self, pages: impl ExactSizeIterator<Item = PageId>) {
        self.batch(IoKind::Write, None, pages);
    }

    /// Prices I/Os of `kind` issued together, the first following `after`.
    fn batch(
        &mut self,
        kind: IoKind,
        after: Option<PageId>,
        pages: impl ExactSizeIterator<Item = PageId>,
    ) {
        let n = pages.len();
        let together = match kind {
            IoKind::Read => self.device.concurrent_reads(n),
            IoKind::Write => self.device.concurrent_batch(n),
        };
        if let Some(c) = together {
            match kind {
                IoKind::Read => self.stats.reads += n as u64,
                IoKind::Write => self.stats.writes += n as u64,
            }
            self.stats.virtual_time += c;
            return;
        }
        let mut prev = after;
        for p in pages {
            let sequential = prev.is_some_and(|q| q.checked_add(1) == Some(p));
            match kind {
                IoKind::Read => self.read(sequential),
                IoKind::Write => self.write(sequential),
            };
            prev = Some(p);
        }
    }
}

/// Reads `file` (at `path`, for errors) at `offset` into `buf`, filling
/// what lies past the end of the file with zeros: a page never written
/// reads as zeros.
pub(crate) fn read_at_or_zeros(
    file: &std::fs::File,
    path: &std::path::Path,
    buf: &mut [u8],
    offset: u64,
) -> Result<()> {
    use std::os::unix::fs::FileExt;
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => {
                buf[done..].fill(0);
                break;
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(crate::Error::io(path, e)),
        }
    }
    Ok(())
}

pub(crate) fn check_len(page_size: usize, len: usize) -> Result<()> {
    if len != page_size {
        return Err(crate::Error::invalid(format!(
            "buffer of {len} bytes for a store of {page_size}-byte pages"
        )));
    }
    Ok(())
}

/// A store behind a pointer: what a caller that picks the store at run time
/// (the workload database over a memory or flash store) holds.
pub type DynStore = Box<dyn PageStore + Send>;

impl PageStore for DynStore {
    fn page_size(&self) -> usize {
        (**self).page_size()
    }
    fn read(&mut self, page: PageId, buf: &mut [u8]) -> Result<()> {
        (**self).read(page, buf)
    }
    fn write(&mut self, page: PageId, buf: &[u8]) -> Result<()> {
        (**self).write(page, buf)
    }
    fn write_changed(&mut self, page: PageId, buf: &[u8], changed: &[(u32, u32)]) -> Result<()> {
        (**self).write_changed(page, buf, changed)
    }
    fn write_batch(&mut self, batch: &[(PageId, &[u8])]) -> Result<()> {
        (**self).write_batch(batch)
    }
    fn read_ahead(&mut self, after: PageId, pages: &[PageId], buf: &mut [u8]) -> Result<()> {
        (**self).read_ahead(after, pages, buf)
    }
    fn flush(&mut self) -> Result<()> {
        (**self).flush()
    }
    fn cost_of(&self, page: PageId) -> PageCost {
        (**self).cost_of(page)
    }
    fn stats(&self) -> IoStats {
        (**self).stats()
    }
    fn device_stats(&self, out: &mut Vec<DeviceStats>) {
        (**self).device_stats(out);
    }
    fn listens(&self) -> Listens {
        (**self).listens()
    }
    fn accessed(&mut self, page: PageId, op: Op, at_victim: bool) {
        (**self).accessed(page, op, at_victim);
    }
    fn load(&mut self, page: PageId, op: Op, buf: &mut [u8]) -> Result<Loaded> {
        (**self).load(page, op, buf)
    }
    fn serves_in_place(&self) -> bool {
        (**self).serves_in_place()
    }
    fn admitted(&mut self, page: PageId, op: Op) -> Result<()> {
        (**self).admitted(page, op)
    }
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        (**self).state(out);
    }
    fn evicting(&mut self, page: PageId, dirty: bool) -> Result<bool> {
        (**self).evicting(page, dirty)
    }
    fn take_moved(&mut self, out: &mut Vec<PageId>) {
        (**self).take_moved(out);
    }
    fn prefetch_index(&self, page: PageId) {
        (**self).prefetch_index(page);
    }
    fn prefetch_state(&self, page: PageId) {
        (**self).prefetch_state(page);
    }
    fn naming(&self) -> Naming {
        (**self).naming()
    }
    fn wants_changes(&self) -> bool {
        (**self).wants_changes()
    }
    fn measures_latency(&self) -> bool {
        (**self).measures_latency()
    }
    fn measured_latency(&self) -> Option<f64> {
        (**self).measured_latency()
    }
    fn shared_io(&self) -> Option<std::sync::Arc<dyn SharedIo>> {
        (**self).shared_io()
    }
}
