//! A store that keeps pages in memory.

use super::{check_len, Meter, PageStore};
use crate::device::DeviceModel;
use crate::error::Result;
use crate::types::PageId;
use rustc_hash::FxHashMap;
use std::time::Duration;

/// Pages in a hash map, priced by a device model. Nothing survives the
/// process; `flush` is a no-op. It may also take time like a device
/// ([`MemStore::with_latency`]), to measure how a caller overlaps I/O.
#[derive(Clone, Debug)]
pub struct MemStore {
    page_size: usize,
    pages: FxHashMap<PageId, Box<[u8]>>,
    meter: Meter,
    read_latency: Duration,
    write_latency: Duration,
}

impl MemStore {
    /// An empty store of `page_size`-byte pages priced as `device`.
    pub fn new(page_size: usize, device: DeviceModel) -> Self {
        MemStore {
            page_size,
            pages: FxHashMap::default(),
            meter: Meter::new(device),
            read_latency: Duration::ZERO,
            write_latency: Duration::ZERO,
        }
    }

    /// Makes every page read and every page written wait this long (the
    /// calling thread sleeps, so at least this long: the OS timer's slack
    /// adds tens of µs). Default: no wait.
    pub fn with_latency(mut self, read: Duration, write: Duration) -> Self {
        self.read_latency = read;
        self.write_latency = write;
        self
    }

    fn wait(d: Duration) {
        if !d.is_zero() {
            std::thread::sleep(d);
        }
    }

    /// Number of pages ever written.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// `true` if no page was written.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    fn put(&mut self, page: PageId, buf: &[u8]) -> Result<()> {
        check_len(self.page_size, buf.len())?;
        match self.pages.get_mut(&page) {
            Some(p) => p.copy_from_slice(buf),
            None => {
                self.pages.insert(page, buf.into());
            }
        }
        Ok(())
    }
}

impl PageStore for MemStore {
    fn page_size(&self) -> usize {
        self.page_size
    }
    fn read(&mut self, page: PageId, buf: &mut [u8]) -> Result<()> {
        check_len(self.page_size, buf.len())?;
        Self::wait(self.read_latency);
        match self.pages.get(&page) {
            Some(p) => buf.copy_from_slice(p),
            None => buf.fill(0),
        }
        self.meter.read(false);
        Ok(())
    }
    fn write(&mut self, page: PageId, buf: &[u8]) -> Result<()> {
        Self::wait(self.write_latency);
        self.put(page, buf)?;
        self.meter.write(false);
        Ok(())
    }
    fn write_batch(&mut self, batch: &[(PageId, &[u8])]) -> Result<()> {
        for (page, buf) in batch {
            Self::wait(self.write_latency);
            self.put(*page, buf)?;
        }
        self.meter.write_batch(batch.iter().map(|b| b.0));
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    metered!();
}
