//! A store backed by a real file: page `p` lives at byte offset
//! `p × page_size`. Reads and writes are positioned (`pread`/`pwrite`);
//! `flush` calls `fsync`. With `O_DIRECT` the page cache is bypassed and I/O
//! goes through an aligned bounce buffer.
//!
//! Every read and write is timed with the monotonic clock, so policies that
//! learn the device's read/write asymmetry from real latencies (CASA §5.3)
//! can be told them ([`PageStore::measured_latency`]).

use super::{check_len, Meter, PageStore};
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::types::PageId;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
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
}

impl FileStoreBuilder {
    /// Page size in bytes. Default: 4096.
    pub fn page_size(mut self, bytes: usize) -> Self {
        self.page_size = bytes;
        self
    }

    /// Open with `O_DIRECT` (bypass the OS page cache). Default: off. The
    /// page size must then be a multiple of 4096.
    pub fn direct(mut self, on: bool) -> Self {
        self.direct = on;
        self
    }

    /// Device model that prices the I/O. Default: `ratio:1:1` (read = write = 1).
    pub fn device(mut self, device: DeviceModel) -> Self {
        self.device = device;
        self
    }

    /// Opens (creating if needed) the file. Existing contents are kept, so a
    /// reopened store returns what was flushed before.
    pub fn open(self) -> Result<FileStore> {
        if self.page_size == 0 {
            return Err(Error::invalid("page size must be at least 1 byte"));
        }
        if self.direct && self.page_size % DIRECT_ALIGN != 0 {
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
        let bounce = if self.direct {
            AlignedBuf::new(self.page_size)
        } else {
            AlignedBuf::new(0)
        };
        Ok(FileStore {
            file,
            path: self.path,
            page_size: self.page_size,
            direct: self.direct,
            bounce,
            meter: Meter::new(self.device),
            last_us: 0.0,
        })
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

/// Pages in a real file.
#[derive(Debug)]
pub struct FileStore {
    file: File,
    path: PathBuf,
    page_size: usize,
    direct: bool,
    bounce: AlignedBuf,
    meter: Meter,
    /// Latency of the last read, or per page of the last write or batch, µs.
    last_us: f64,
}

impl std::os::fd::AsRawFd for FileStore {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.file.as_raw_fd()
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
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn offset(&self, page: PageId) -> Result<u64> {
        page.checked_mul(self.page_size as u64)
            .ok_or_else(|| Error::invalid(format!("page {page} is beyond the largest file offset")))
    }

    /// Reads at `off` into `buf`, zero-filling past the end of the file.
    fn read_at(file: &File, path: &Path, buf: &mut [u8], off: u64) -> Result<()> {
        let mut done = 0;
        while done < buf.len() {
            match file.read_at(&mut buf[done..], off + done as u64) {
                Ok(0) => {
                    buf[done..].fill(0);
                    break;
                }
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(path, e)),
            }
        }
        Ok(())
    }

    fn put(&mut self, page: PageId, buf: &[u8]) -> Result<()> {
        check_len(self.page_size, buf.len())?;
        let off = self.offset(page)?;
        let res = if self.direct {
            let b = self.bounce.as_mut();
            b.copy_from_slice(buf);
            self.file.write_all_at(b, off)
        } else {
            self.file.write_all_at(buf, off)
        };
        res.map_err(|e| Error::io(&self.path, e))
    }
}

impl PageStore for FileStore {
    fn page_size(&self) -> usize {
        self.page_size
    }
    fn read(&mut self, page: PageId, buf: &mut [u8]) -> Result<()> {
        check_len(self.page_size, buf.len())?;
        let off = self.offset(page)?;
        let start = Instant::now();
        if self.direct {
            let b = self.bounce.as_mut();
            Self::read_at(&self.file, &self.path, b, off)?;
            buf.copy_from_slice(b);
        } else {
            Self::read_at(&self.file, &self.path, buf, off)?;
        }
        self.last_us = micros(start);
        self.meter.read(false);
        Ok(())
    }
    fn write(&mut self, page: PageId, buf: &[u8]) -> Result<()> {
        let start = Instant::now();
        self.put(page, buf)?;
        self.last_us = micros(start);
        self.meter.write(false);
        Ok(())
    }
    fn write_batch(&mut self, batch: &[(PageId, &[u8])]) -> Result<()> {
        let start = Instant::now();
        for (page, buf) in batch {
            self.put(*page, buf)?;
        }
        self.last_us = micros(start) / batch.len().max(1) as f64;
        self.meter.write_batch(batch.iter().map(|b| b.0));
        Ok(())
    }
    fn measures_latency(&self) -> bool {
        true
    }
    fn measured_latency(&self) -> Option<f64> {
        Some(self.last_us)
    }
    fn flush(&mut self) -> Result<()> {
        self.file.sync_data().map_err(|e| Error::io(&self.path, e))
    }
    metered!();
}

fn micros(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e6
}
