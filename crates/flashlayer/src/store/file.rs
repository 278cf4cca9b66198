//! A store backed by a real file: page `p` lives at byte offset
//! `p × page_size`, or, for a store built for a known set of pages
//! ([`FileStoreBuilder::pages`]), at its rank among them × `page_size`, so
//! sparse page numbers (a PostgreSQL trace's `relfilenode << 34 | block`)
//! need a file of only as many pages as there are, and pages with
//! neighbouring numbers stay neighbours in the file. Reads and writes are
//! positioned (`pread`/`pwrite`);
//! `flush` calls `fsync`. With `O_DIRECT` the page cache is bypassed and I/O
//! goes through an aligned bounce buffer. A batch of writes (a policy's
//! write cluster, ACE's write-back) and the pages read ahead of requests
//! (ACE's prefetching variant) are issued as many at once as the device
//! model's concurrency `k` says.
//!
//! Every read and write is timed with the monotonic clock, so policies that
//! learn the device's read/write asymmetry from real latencies (CASA §5.3)
//! can be told them ([`PageStore::measured_latency`]).

use super::{check_len, Meter, PageStore, SharedIo};
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::types::{PageCost, PageId};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// Alignment `O_DIRECT` needs for buffers, offsets and lengths on Linux.
const DIRECT_ALIGN: usize = 4096;

/// Builds a [`FileStore`].
#[derive(Clone, Debug)]
pub struct FileStoreBuilder {
    path: PathBuf,
    page_size: usize,
    direct: bool,
    device: DeviceModel,
    pages: Option<Box<[PageId]>>,
}

impl FileStoreBuilder {
    crate::setters! {
        /// Page size in bytes. Default: 4096.
        page_size: usize;

        /// Open with `O_DIRECT` (bypass the OS page cache). Default: off. The
        /// page size must then be a multiple of 4096.
        direct: bool;

        /// Device model that prices the I/O. Default: `ratio:1:1` (read = write = 1).
        /// Its concurrency `k` is also how many writes of a batch the store
        /// issues at once.
        device: DeviceModel;
    }

    /// The pages this store holds: each lives at its rank among them (in
    /// order of number) × the page size, and any other page is an error.
    /// The placement follows from the set, so a store reopened with the
    /// same set finds its pages. Default: every page at its own number ×
    /// the page size.
    pub fn pages(mut self, pages: impl IntoIterator<Item = PageId>) -> Self {
        let mut v: Vec<PageId> = pages.into_iter().collect();
        v.sort_unstable();
        v.dedup();
        self.pages = Some(v.into_boxed_slice());
        self
    }

    /// Opens (creating if needed) the file. Existing contents are kept, so a
    /// reopened store returns what was flushed before.
    pub fn open(self) -> Result<FileStore> {
        if self.page_size == 0 {
            return Err(Error::invalid("page size must be at least 1 byte"));
        }
        if self.direct && !self.page_size.is_multiple_of(DIRECT_ALIGN) {
            return Err(Error::invalid(format!(
                "O_DIRECT needs a page size that is a multiple of {DIRECT_ALIGN}, got {}",
                self.page_size
            )));
        }
        let mut opts = OpenOptions::new();
        opts.read(true).write(true).create(true).truncate(false);
        if self.direct {
            opts.custom_flags(libc::O_DIRECT);
        }
        let file = opts
            .open(&self.path)
            .map_err(|e| Error::io(&self.path, e))?;
        Ok(FileStore {
            io: Arc::new(FileIo {
                file,
                path: self.path,
                page_size: self.page_size,
                direct: self.direct,
                pages: self.pages,
                bounces: Mutex::default(),
                cost: Meter::new(self.device.clone()).page_cost(),
                concurrency: self.device.concurrency.max(1) as usize,
                meter: Mutex::new(Meter::new(self.device)),
                last_us: AtomicU64::new(0f64.to_bits()),
                total_ns: AtomicU64::new(0),
            }),
        })
    }

    /// Opens the file with `O_DIRECT` where the file system allows it (not
    /// tmpfs, say), else through the page cache. Returns the store and
    /// whether it bypasses the page cache.
    pub fn open_preferring_direct(self) -> Result<(FileStore, bool)> {
        match self.clone().direct(true).open() {
            Ok(store) => Ok((store, true)),
            Err(_) => Ok((self.direct(false).open()?, false)),
        }
    }
}

/// A page-aligned heap buffer for `O_DIRECT`.
#[derive(Debug)]
struct AlignedBuf {
    storage: Vec<u8>,
    offset: usize,
    len: usize,
}

impl AlignedBuf {
    fn new(len: usize) -> Self {
        let storage = vec![0u8; len + DIRECT_ALIGN];
        let offset = storage.as_ptr().align_offset(DIRECT_ALIGN);
        AlignedBuf {
            storage,
            offset,
            len,
        }
    }
    fn as_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.offset..self.offset + self.len]
    }
}

/// Pages in a real file. Several threads may read and write it at once
/// ([`PageStore::shared_io`]): I/O is positional, and each `O_DIRECT`
/// transfer takes a bounce buffer of its own.
#[derive(Debug)]
pub struct FileStore {
    io: Arc<FileIo>,
}

#[derive(Debug)]
struct FileIo {
    file: File,
    path: PathBuf,
    page_size: usize,
    direct: bool,
    /// The pages held, sorted, when the store was built for a set
    /// ([`FileStoreBuilder::pages`]). Fixed and read by every thread, so a
    /// binary search, not a table with a remembered last answer.
    pages: Option<Box<[PageId]>>,
    /// Aligned buffers for `O_DIRECT`, one per transfer in flight.
    bounces: Mutex<Vec<AlignedBuf>>,
    meter: Mutex<Meter>,
    /// The device's price of a page, fixed with the device.
    cost: PageCost,
    /// Writes of a batch issued at once: the device's concurrency `k`.
    concurrency: usize,
    /// Latency of the last read, or per page of the last write or batch,
    /// µs (`f64` bits): a policy learning from latencies hears each I/O's.
    last_us: AtomicU64,
    /// Every read, write, batch and flush so far, end to end, ns.
    total_ns: AtomicU64,
}

/// A lock over counts or spare buffers: a panic elsewhere cannot leave them
/// half-changed.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl std::os::fd::AsRawFd for FileStore {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.io.file.as_raw_fd()
    }
}

impl FileStore {
    /// A builder for a store at `path` (4096-byte pages, no `O_DIRECT`,
    /// device `ratio:1:1`).
    pub fn builder(path: impl AsRef<Path>) -> FileStoreBuilder {
        FileStoreBuilder {
            path: path.as_ref().to_path_buf(),
            page_size: 4096,
            direct: false,
            device: DeviceModel::unit(),
            pages: None,
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.io.path
    }

    /// The time every read, write and flush so far took, as measured end
    /// to end, in seconds.
    pub fn measured_io_seconds(&self) -> f64 {
        self.io.total_ns.load(Ordering::Relaxed) as f64 / 1e9
    }
}

impl FileIo {
    fn offset(&self, page: PageId) -> Result<u64> {
        let slot = match &self.pages {
            None => page,
            Some(pages) => pages.binary_search(&page).map_err(|_| {
                Error::invalid(format!(
                    "{}: page {page} is not one of the {} pages this store holds",
                    self.path.display(),
                    pages.len()
                ))
            })? as u64,
        };
        slot.checked_mul(self.page_size as u64).ok_or_else(|| {
            Error::invalid(format!(
                "{}: page {page} is beyond the largest file offset",
                self.path.display()
            ))
        })
    }

    /// Reads at `off` into `buf`, zero-filling past the end of the file.
    fn read_at(&self, buf: &mut [u8], off: u64) -> Result<()> {
        super::read_at_or_zeros(&self.file, &self.path, buf, off)
    }

    /// Runs `f` with an aligned buffer of one page, kept for the next
    /// transfer.
    fn with_bounce<R>(&self, f: impl FnOnce(&mut [u8]) -> R) -> R {
        let mut b = lock(&self.bounces)
            .pop()
            .unwrap_or_else(|| AlignedBuf::new(self.page_size));
        let r = f(b.as_mut());
        lock(&self.bounces).push(b);
        r
    }

    /// Reads `page` into `buf`, unmetered.
    fn get(&self, page: PageId, buf: &mut [u8]) -> Result<()> {
        let off = self.offset(page)?;
        if self.direct {
            self.with_bounce(|b| {
                self.read_at(b, off)?;
                buf.copy_from_slice(b);
                Ok::<_, Error>(())
            })
        } else {
            self.read_at(buf, off)
        }
    }

    fn put(&self, page: PageId, buf: &[u8]) -> Result<()> {
        check_len(self.page_size, buf.len())?;
        let off = self.offset(page)?;
        let res = if self.direct {
            self.with_bounce(|b| {
                b.copy_from_slice(buf);
                self.file.write_all_at(b, off)
            })
        } else {
            self.file.write_all_at(buf, off)
        };
        res.map_err(|e| Error::io(&self.path, e))
    }

    /// Notes an I/O (or batch of `n`) that began at `start`: the latency
    /// per page a policy hears, and the time it took.
    fn measured(&self, start: Instant, n: usize) {
        let took = start.elapsed();
        let us = took.as_secs_f64() * 1e6 / n.max(1) as f64;
        self.last_us.store(us.to_bits(), Ordering::Relaxed);
        self.total_ns
            .fetch_add(took.as_nanos() as u64, Ordering::Relaxed);
    }
}

impl SharedIo for FileIo {
    fn read(&self, page: PageId, buf: &mut [u8]) -> Result<()> {
        check_len(self.page_size, buf.len())?;
        let start = Instant::now();
        self.get(page, buf)?;
        self.measured(start, 1);
        lock(&self.meter).read(false);
        Ok(())
    }
    fn write(&self, page: PageId, buf: &[u8]) -> Result<()> {
        let start = Instant::now();
        self.put(page, buf)?;
        self.measured(start, 1);
        lock(&self.meter).write(false);
        Ok(())
    }
    /// A batch's writes are issued `k` at a time, `k` the device's
    /// concurrency ([`in_runs`]), so a device that serves several I/Os at
    /// once gets them at once.
    fn write_batch(&self, batch: &[(PageId, &[u8])]) -> Result<()> {
        let start = Instant::now();
        let runs = batch.chunks(run_len(batch.len(), self.concurrency));
        in_runs(runs, |run| {
            run.iter().try_for_each(|(page, buf)| self.put(*page, buf))
        })?;
        self.measured(start, batch.len());
        lock(&self.meter).write_batch(batch.iter().map(|b| b.0));
        Ok(())
    }
    /// Pages read ahead are issued `k` at a time, as a batch's writes are.
    fn read_ahead(&self, after: PageId, pages: &[PageId], buf: &mut [u8]) -> Result<()> {
        super::check_pages_len(pages, buf, self.page_size)?;
        let start = Instant::now();
        let n = run_len(pages.len(), self.concurrency);
        let runs = pages.chunks(n).zip(buf.chunks_mut(n * self.page_size));
        in_runs(runs, |(pages, buf)| {
            pages
                .iter()
                .zip(buf.chunks_exact_mut(self.page_size))
                .try_for_each(|(page, b)| self.get(*page, b))
        })?;
        self.measured(start, pages.len());
        lock(&self.meter).read_batch(after, pages.iter().copied());
        Ok(())
    }
}

/// Items per run when `n` items are cut into `k` runs (at least one).
fn run_len(n: usize, k: usize) -> usize {
    n.div_ceil(k).max(1)
}

/// Runs `each` on every run of `runs`, each on a thread of its own (the
/// first on the caller's). The first failure is returned, once every run
/// has ended; a run that panicked re-raises its panic here.
fn in_runs<R: Send>(
    mut runs: impl ExactSizeIterator<Item = R>,
    each: impl Fn(R) -> Result<()> + Sync,
) -> Result<()> {
    let Some(first) = runs.next() else {
        return Ok(());
    };
    if runs.len() == 0 {
        // One run (k = 1, or one item): no thread to start.
        return each(first);
    }
    let each = &each;
    std::thread::scope(|scope| {
        let others: Vec<_> = runs.map(|r| scope.spawn(move || each(r))).collect();
        let first = each(first);
        others.into_iter().fold(first, |done, t| {
            let theirs = t.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            done.and(theirs)
        })
    })
}

impl PageStore for FileStore {
    shares_io!();
    fn measures_latency(&self) -> bool {
        true
    }
    fn measured_latency(&self) -> Option<f64> {
        Some(f64::from_bits(self.io.last_us.load(Ordering::Relaxed)))
    }
    fn flush(&mut self) -> Result<()> {
        let start = Instant::now();
        self.io
            .file
            .sync_data()
            .map_err(|e| Error::io(&self.io.path, e))?;
        let took = start.elapsed().as_nanos() as u64;
        self.io.total_ns.fetch_add(took, Ordering::Relaxed);
        Ok(())
    }
}
