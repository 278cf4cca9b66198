//! A store for concurrency tests: any store with shared I/O, with injected
//! failures and latency.
//!
//! Uses the `wrapped` macros: the binary that includes it declares
//! `#[macro_use] mod wrapped;` first.

use flashlayer::store::{PageStore, SharedIo};
use flashlayer::types::PageId;
use flashlayer::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What [`Faulty`] injects, shared with the test that steers it.
#[derive(Debug)]
pub struct Faults {
    /// Fail one read or write in `every` (0: none).
    pub every: u64,
    /// Whether failures are injected now.
    pub on: AtomicBool,
    /// Operations so far; failures fall on a hash of this count.
    ops: AtomicU64,
    /// Failures injected so far.
    pub injected: AtomicU64,
    /// Wait before each read and write.
    pub latency: Duration,
    seed: u64,
}

impl Faults {
    pub fn new(every: u64, latency: Duration, seed: u64) -> Arc<Self> {
        Arc::new(Faults {
            every,
            on: AtomicBool::new(every > 0),
            ops: AtomicU64::new(0),
            injected: AtomicU64::new(0),
            latency,
            seed,
        })
    }

    /// Whether this operation fails (and waits the latency first).
    fn strike(&self, what: &str, page: PageId) -> Result<()> {
        if !self.latency.is_zero() {
            std::thread::sleep(self.latency);
        }
        if !self.on.load(Ordering::Relaxed) {
            return Ok(());
        }
        let n = self.ops.fetch_add(1, Ordering::Relaxed);
        // SplitMix64 of the count: failures spread evenly, same per seed.
        let mut z = n
            .wrapping_add(self.seed)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        if z.is_multiple_of(self.every) {
            self.injected.fetch_add(1, Ordering::Relaxed);
            return Err(Error::Store(format!(
                "injected {what} failure of page {page}"
            )));
        }
        Ok(())
    }
}

/// `S` with failures and latency injected into every read and write,
/// through the store and through its shared I/O alike.
#[derive(Debug)]
pub struct Faulty<S> {
    pub inner: S,
    pub faults: Arc<Faults>,
}

#[derive(Debug)]
struct FaultyIo {
    inner: Arc<dyn SharedIo>,
    faults: Arc<Faults>,
}

impl SharedIo for FaultyIo {
    fn read(&self, page: PageId, buf: &mut [u8]) -> Result<()> {
        self.faults.strike("read", page)?;
        self.inner.read(page, buf)
    }
    fn write(&self, page: PageId, buf: &[u8]) -> Result<()> {
        self.faults.strike("write", page)?;
        self.inner.write(page, buf)
    }
    fn write_batch(&self, batch: &[(PageId, &[u8])]) -> Result<()> {
        for (page, _) in batch {
            self.faults.strike("write", *page)?;
        }
        self.inner.write_batch(batch)
    }
    fn read_ahead(&self, after: PageId, pages: &[PageId], buf: &mut [u8]) -> Result<()> {
        for page in pages {
            self.faults.strike("read", *page)?;
        }
        self.inner.read_ahead(after, pages, buf)
    }
}

impl<S: PageStore> PageStore for Faulty<S> {
    fn page_size(&self) -> usize {
        self.inner.page_size()
    }
    fn read(&mut self, page: PageId, buf: &mut [u8]) -> Result<()> {
        self.faults.strike("read", page)?;
        self.inner.read(page, buf)
    }
    fn write(&mut self, page: PageId, buf: &[u8]) -> Result<()> {
        self.faults.strike("write", page)?;
        self.inner.write(page, buf)
    }
    fn write_batch(&mut self, batch: &[(PageId, &[u8])]) -> Result<()> {
        for (page, _) in batch {
            self.faults.strike("write", *page)?;
        }
        self.inner.write_batch(batch)
    }
    pass_through!();
    fn shared_io(&self) -> Option<Arc<dyn SharedIo>> {
        let inner = self.inner.shared_io()?;
        Some(Arc::new(FaultyIo {
            inner,
            faults: Arc::clone(&self.faults),
        }))
    }
}
