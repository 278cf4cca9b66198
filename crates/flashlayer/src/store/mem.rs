//! A store that keeps pages in memory.

use super::{check_len, Meter, PageStore, SharedIo};
use crate::device::DeviceModel;
use crate::error::Result;
use crate::sync::{Mutex, MutexGuard};
use crate::types::{PageCost, PageId};
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::time::Duration;

/// Pages in a hash map, priced by a device model. Nothing survives the
/// process; `flush` is a no-op. It may also take time like a device
/// ([`MemStore::with_latency`]), to measure how a caller overlaps I/O.
/// Several threads may read and write it at once ([`PageStore::shared_io`]):
/// a wait runs outside every lock, and the map is locked only to copy.
#[derive(Debug)]
pub struct MemStore {
    io: Arc<MemIo>,
}

#[derive(Debug)]
struct MemIo {
    page_size: usize,
    pages: Mutex<FxHashMap<PageId, Box<[u8]>>>,
    meter: Mutex<Meter>,
    /// The device's price of a page, fixed with the device.
    cost: PageCost,
    read_latency: Duration,
    write_latency: Duration,
}

/// A poisoned lock here only means a panic elsewhere mid-copy of a page
/// that nobody acknowledged; the map itself stays whole.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Clone for MemStore {
    /// An independent copy of the pages and counts.
    fn clone(&self) -> Self {
        let io = &self.io;
        MemStore {
            io: Arc::new(MemIo {
                page_size: io.page_size,
                pages: Mutex::new(lock(&io.pages).clone()),
                meter: Mutex::new(lock(&io.meter).clone()),
                cost: io.cost,
                read_latency: io.read_latency,
                write_latency: io.write_latency,
            }),
        }
    }
}

impl MemStore {
    /// An empty store of `page_size`-byte pages priced as `device`.
    pub fn new(page_size: usize, device: DeviceModel) -> Self {
        MemStore {
            io: Arc::new(MemIo {
                page_size,
                pages: Mutex::default(),
                cost: Meter::new(device.clone()).page_cost(),
                meter: Mutex::new(Meter::new(device)),
                read_latency: Duration::ZERO,
                write_latency: Duration::ZERO,
            }),
        }
    }

    /// Makes every page read and every page written wait this long (the
    /// calling thread sleeps, so at least this long: the OS timer's slack
    /// adds tens of µs). Default: no wait.
    pub fn with_latency(mut self, read: Duration, write: Duration) -> Self {
        if Arc::get_mut(&mut self.io).is_none() {
            // Handed out already: the copy keeps the pages.
            self = self.clone();
        }
        let io = Arc::get_mut(&mut self.io).expect("a fresh copy has one owner");
        io.read_latency = read;
        io.write_latency = write;
        self
    }

    /// Number of pages ever written.
    pub fn len(&self) -> usize {
        lock(&self.io.pages).len()
    }

    /// `true` if no page was written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl MemIo {
    fn wait(d: Duration) {
        if !d.is_zero() {
            std::thread::sleep(d);
        }
    }

    /// Reads `page` into `buf` (zeros if never written) after the read
    /// latency, unmetered.
    fn get(&self, page: PageId, buf: &mut [u8]) {
        Self::wait(self.read_latency);
        match lock(&self.pages).get(&page) {
            Some(p) => buf.copy_from_slice(p),
            None => buf.fill(0),
        }
    }

    fn put(&self, page: PageId, buf: &[u8]) -> Result<()> {
        check_len(self.page_size, buf.len())?;
        let mut pages = lock(&self.pages);
        match pages.get_mut(&page) {
            Some(p) => p.copy_from_slice(buf),
            None => {
                pages.insert(page, buf.into());
            }
        }
        Ok(())
    }
}

impl SharedIo for MemIo {
    fn read(&self, page: PageId, buf: &mut [u8]) -> Result<()> {
        check_len(self.page_size, buf.len())?;
        self.get(page, buf);
        lock(&self.meter).read(false);
        Ok(())
    }
    fn write(&self, page: PageId, buf: &[u8]) -> Result<()> {
        Self::wait(self.write_latency);
        self.put(page, buf)?;
        lock(&self.meter).write(false);
        Ok(())
    }
    fn write_batch(&self, batch: &[(PageId, &[u8])]) -> Result<()> {
        for (page, buf) in batch {
            Self::wait(self.write_latency);
            self.put(*page, buf)?;
        }
        lock(&self.meter).write_batch(batch.iter().map(|b| b.0));
        Ok(())
    }
    fn read_ahead(&self, after: PageId, pages: &[PageId], buf: &mut [u8]) -> Result<()> {
        super::read_each(pages, buf, self.page_size, |page, b| {
            self.get(page, b);
            Ok(())
        })?;
        lock(&self.meter).read_batch(after, pages.iter().copied());
        Ok(())
    }
}

impl PageStore for MemStore {
    shares_io!();
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
}
