//! A store that several threads hold at once: each call takes the store's
//! own lock, so a store written for one thread serves many, and a caller
//! that shares it (the buffer pool) needs no lock of its own around I/O.

use super::{Listens, Loaded, Naming, PageStore};
use crate::error::Result;
use crate::sync::{Mutex, MutexGuard};
use crate::types::{DeviceStats, IoStats, Op, PageCost, PageId};
use std::sync::Arc;

/// `S` behind its own lock, shared by every [`LockedStore::share`] of it.
/// What never changes about the store (its page size, naming and what it
/// listens for) is read once, so asking takes no lock.
#[derive(Debug)]
pub struct LockedStore<S> {
    inner: Arc<Mutex<S>>,
    page_size: usize,
    naming: Naming,
    listens: Listens,
    wants_changes: bool,
    measures_latency: bool,
    serves_in_place: bool,
}

impl<S: PageStore> LockedStore<S> {
    /// Puts `store` behind its lock.
    pub fn new(store: S) -> Self {
        LockedStore {
            page_size: store.page_size(),
            naming: store.naming(),
            listens: store.listens(),
            wants_changes: store.wants_changes(),
            measures_latency: store.measures_latency(),
            serves_in_place: store.serves_in_place(),
            inner: Arc::new(Mutex::new(store)),
        }
    }

    /// Another handle on the same store.
    pub fn share(&self) -> Self {
        LockedStore {
            inner: Arc::clone(&self.inner),
            ..*self
        }
    }

    /// The store, locked. A panic while it was locked leaves what a store
    /// leaves after a failed call, which every store tolerates.
    pub fn lock(&self) -> MutexGuard<'_, S> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The store back, if this is its last handle.
    pub fn into_inner(self) -> Option<S> {
        Arc::try_unwrap(self.inner)
            .ok()
            .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
    }
}

impl<S: PageStore> PageStore for LockedStore<S> {
    fn page_size(&self) -> usize {
        self.page_size
    }
    fn read(&mut self, page: PageId, buf: &mut [u8]) -> Result<()> {
        self.lock().read(page, buf)
    }
    fn write(&mut self, page: PageId, buf: &[u8]) -> Result<()> {
        self.lock().write(page, buf)
    }
    fn write_changed(&mut self, page: PageId, buf: &[u8], changed: &[(u32, u32)]) -> Result<()> {
        self.lock().write_changed(page, buf, changed)
    }
    fn write_batch(&mut self, batch: &[(PageId, &[u8])]) -> Result<()> {
        self.lock().write_batch(batch)
    }
    fn read_ahead(&mut self, after: PageId, pages: &[PageId], buf: &mut [u8]) -> Result<()> {
        self.lock().read_ahead(after, pages, buf)
    }
    fn flush(&mut self) -> Result<()> {
        self.lock().flush()
    }
    fn cost_of(&self, page: PageId) -> PageCost {
        self.lock().cost_of(page)
    }
    fn stats(&self) -> IoStats {
        self.lock().stats()
    }
    fn device_stats(&self, out: &mut Vec<DeviceStats>) {
        self.lock().device_stats(out);
    }
    fn listens(&self) -> Listens {
        self.listens
    }
    fn accessed(&mut self, page: PageId, op: Op, at_victim: bool) {
        self.lock().accessed(page, op, at_victim);
    }
    fn load(&mut self, page: PageId, op: Op, buf: &mut [u8]) -> Result<Loaded> {
        self.lock().load(page, op, buf)
    }
    fn serves_in_place(&self) -> bool {
        self.serves_in_place
    }
    fn admitted(&mut self, page: PageId, op: Op) -> Result<()> {
        self.lock().admitted(page, op)
    }
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        self.lock().state(out);
    }
    fn evicting(&mut self, page: PageId, dirty: bool) -> Result<bool> {
        self.lock().evicting(page, dirty)
    }
    fn take_moved(&mut self, out: &mut Vec<PageId>) {
        self.lock().take_moved(out);
    }
    fn naming(&self) -> Naming {
        self.naming
    }
    fn wants_changes(&self) -> bool {
        self.wants_changes
    }
    fn measures_latency(&self) -> bool {
        self.measures_latency
    }
    fn measured_latency(&self) -> Option<f64> {
        self.lock().measured_latency()
    }
    fn shared_io(&self) -> Option<Arc<dyn super::SharedIo>> {
        self.lock().shared_io()
    }
}
