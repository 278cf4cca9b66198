//! Page stores (`DESIGN.md` §2): where misses are read from and dirty pages
//! written to. Every store prices its physical I/O with a
//! [`DeviceModel`] through a [`Meter`]; some also keep the bytes.
//!
//! - [`CostStore`] keeps no data: the simulator's store.
//! - [`MemStore`] keeps pages in memory: tests and small pools.
//! - [`FileStore`] keeps pages in a real file with `pread`/`pwrite`, optional
//!   `O_DIRECT`, and `fsync` on [`PageStore::flush`].
//!
//! Later layers add the hybrid flash+HDD store, the SSD cache tier and the
//! NAND flash stores behind the same trait.

mod cost;
mod file;
mod mem;

pub use cost::CostStore;
pub use file::{FileStore, FileStoreBuilder};
pub use mem::MemStore;

use crate::device::DeviceModel;
use crate::error::Result;
use crate::types::{PageCost, PageId};

/// Physical I/O a store performed, and its price.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IoStats {
    /// Page reads (random and sequential).
    pub reads: u64,
    /// Page writes (random and sequential).
    pub writes: u64,
    /// Of `reads`, those priced as sequential.
    pub seq_reads: u64,
    /// Of `writes`, those priced as sequential.
    pub seq_writes: u64,
    /// Block erases.
    pub erases: u64,
    /// Σ operations × their costs, in the device model's unit.
    pub virtual_time: f64,
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
    /// the previous page of the batch is priced as a sequential write.
    fn write_batch(&mut self, batch: &[(PageId, &[u8])]) -> Result<()>;

    /// Makes every write so far durable.
    fn flush(&mut self) -> Result<()>;

    /// What reading and writing `page` costs on the device it lives on.
    fn cost_of(&self, page: PageId) -> PageCost;

    /// I/O performed so far.
    fn stats(&self) -> IoStats;

    /// Whether single-page `read`, `write` and `cost_of` depend on which
    /// page they are given. A store that answers alike for every page (a
    /// cost-only store over one device) says `false`, and callers may then
    /// pass any id instead of looking the page number up, which on a
    /// simulated miss is one random memory access saved. Batches always
    /// carry real page numbers (adjacent numbers are priced sequentially).
    /// Default: `true`.
    fn page_sensitive(&self) -> bool {
        true
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
        let c = if sequential {
            self.device.seq_read
        } else {
            self.device.read
        };
        self.stats.reads += 1;
        self.stats.seq_reads += u64::from(sequential);
        self.stats.virtual_time += c;
        c
    }

    /// Counts one write; returns its cost.
    #[inline]
    pub fn write(&mut self, sequential: bool) -> f64 {
        let c = if sequential {
            self.device.seq_write
        } else {
            self.device.write
        };
        self.stats.writes += 1;
        self.stats.seq_writes += u64::from(sequential);
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

    /// The per-page cost on this device (random I/O).
    #[inline]
    pub fn page_cost(&self) -> PageCost {
        PageCost {
            read: self.device.read,
            write: self.device.write,
        }
    }

    /// Counts so far.
    pub fn stats(&self) -> IoStats {
        self.stats
    }

    /// Prices each page of a write batch: sequential when it follows the
    /// previous page of the batch.
    pub fn write_batch(&mut self, pages: impl IntoIterator<Item = PageId>) {
        let mut prev: Option<PageId> = None;
        for p in pages {
            self.write(prev.is_some_and(|q| q.checked_add(1) == Some(p)));
            prev = Some(p);
        }
    }
}

fn check_len(page_size: usize, len: usize) -> Result<()> {
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
    fn flush(&mut self) -> Result<()> {
        (**self).flush()
    }
    fn cost_of(&self, page: PageId) -> PageCost {
        (**self).cost_of(page)
    }
    fn stats(&self) -> IoStats {
        (**self).stats()
    }
    fn page_sensitive(&self) -> bool {
        (**self).page_sensitive()
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
}
