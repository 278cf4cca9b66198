//! Byte-addressed disks under page stores that manage their own layout (the
//! hybrid store's slots and placement journal): a real file
//! ([`FileDisk`]), and a crash-injecting emulation ([`CrashDisk`]) that
//! keeps what was synced apart from what was only written, so a test can
//! cut the power at any write or sync and see exactly what a real disk may
//! keep.
//!
//! The crash model: a write that was not followed by a `sync` of its disk
//! may reach the durable image whole, in part (any subset of its 512-byte
//! sectors: a torn write), or not at all, chosen by a seeded random
//! generator; a synced write is durable. Writes to different disks, or to
//! one disk between syncs, may therefore land in any order. This is the
//! contract `fsync` gives on Linux file systems, and the one a store must
//! be correct under.

use crate::error::{Error, Result};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// The unit a crash tears writes at.
pub const SECTOR: usize = 512;

/// A byte-addressed disk.
pub trait Disk {
    /// Reads `buf.len()` bytes at `offset`; bytes never written read as 0.
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<()>;
    /// Writes `buf` at `offset`, durable only after [`Disk::sync`].
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<()>;
    /// Makes every write so far durable.
    fn sync(&mut self) -> Result<()>;
    /// Bytes up to the end of the last byte written.
    fn len(&self) -> Result<u64>;
    /// `true` when nothing was ever written.
    fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }
}

/// A real file, created if missing; `sync` is `fsync`.
#[derive(Debug)]
pub struct FileDisk {
    file: File,
    path: PathBuf,
}

impl FileDisk {
    /// Opens (or creates) the file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        Ok(FileDisk { file, path })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Disk for FileDisk {
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<()> {
        super::read_at_or_zeros(&self.file, &self.path, buf, offset)
    }
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<()> {
        self.file
            .write_all_at(buf, offset)
            .map_err(|e| Error::io(&self.path, e))
    }
    fn sync(&mut self) -> Result<()> {
        self.file.sync_data().map_err(|e| Error::io(&self.path, e))
    }
    fn len(&self) -> Result<u64> {
        Ok(self
            .file
            .metadata()
            .map_err(|e| Error::io(&self.path, e))?
            .len())
    }
}

#[derive(Debug, Default)]
struct Image {
    durable: Vec<u8>,
    live: Vec<u8>,
    /// Writes since the last sync, as `(offset, len)`.
    unsynced: Vec<(u64, usize)>,
}

#[derive(Debug)]
struct Lab {
    disks: Vec<Image>,
    /// Writes and syncs left before the power goes; `None`: never.
    budget: Option<u64>,
    off: bool,
    steps: u64,
    rng: Pcg64,
}

/// The power switch and the durable images of a set of [`CrashDisk`]s.
/// Clones share the same lab.
#[derive(Clone, Debug)]
pub struct CrashLab {
    lab: Arc<Mutex<Lab>>,
}

impl CrashLab {
    /// A lab whose crashes are drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        CrashLab {
            lab: Arc::new(Mutex::new(Lab {
                disks: Vec::new(),
                budget: None,
                off: false,
                steps: 0,
                rng: Pcg64::seed_from_u64(seed),
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Lab> {
        self.lab.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new, empty disk in this lab.
    pub fn disk(&self) -> CrashDisk {
        let mut lab = self.lock();
        lab.disks.push(Image::default());
        CrashDisk {
            lab: self.clone(),
            index: lab.disks.len() - 1,
        }
    }

    /// The same disk again (after a crash, a store reopens its disks).
    pub fn reopen(&self, disk: &CrashDisk) -> CrashDisk {
        CrashDisk {
            lab: self.clone(),
            index: disk.index,
        }
    }

    /// Cuts the power at the `n`-th write or sync from now (counting from
    /// 1): that operation and every later one fail with
    /// [`Error::PowerCut`], and the cut operation does not happen.
    pub fn power_cut_after(&self, n: u64) {
        self.lock().budget = Some(n);
    }

    /// Writes and syncs done so far (for choosing cut points).
    pub fn steps(&self) -> u64 {
        self.lock().steps
    }

    /// The crash: each disk keeps its durable image plus, for every write
    /// not yet synced, a random subset of its sectors (all, some or none).
    /// Power comes back on and no cut is armed.
    pub fn crash(&self) {
        let mut lab = self.lock();
        let lab = &mut *lab;
        for d in &mut lab.disks {
            for &(off, len) in &d.unsynced {
                let (off, end) = (off as usize, off as usize + len);
                let mut s = off;
                while s < end {
                    let e = end.min((s / SECTOR + 1) * SECTOR);
                    if lab.rng.random_bool(0.5) {
                        if d.durable.len() < e {
                            d.durable.resize(e, 0);
                        }
                        d.durable[s..e].copy_from_slice(&d.live[s..e]);
                    }
                    s = e;
                }
            }
            d.unsynced.clear();
            d.live = d.durable.clone();
        }
        lab.budget = None;
        lab.off = false;
    }

    /// Counts one write or sync; fails if the power is (or goes) off.
    fn step(lab: &mut Lab) -> Result<()> {
        if lab.off {
            return Err(Error::PowerCut);
        }
        if let Some(b) = lab.budget.as_mut() {
            *b = b.saturating_sub(1);
            if *b == 0 {
                lab.off = true;
                return Err(Error::PowerCut);
            }
        }
        lab.steps += 1;
        Ok(())
    }
}

/// One disk of a [`CrashLab`], in memory.
#[derive(Debug)]
pub struct CrashDisk {
    lab: CrashLab,
    index: usize,
}

impl Disk for CrashDisk {
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> Result<()> {
        let lab = self.lab.lock();
        if lab.off {
            return Err(Error::PowerCut);
        }
        let live = &lab.disks[self.index].live;
        let off = offset as usize;
        for (i, b) in buf.iter_mut().enumerate() {
            *b = live.get(off + i).copied().unwrap_or(0);
        }
        Ok(())
    }
    fn write_at(&mut self, buf: &[u8], offset: u64) -> Result<()> {
        let mut lab = self.lab.lock();
        CrashLab::step(&mut lab)?;
        let d = &mut lab.disks[self.index];
        let (off, end) = (offset as usize, offset as usize + buf.len());
        if d.live.len() < end {
            d.live.resize(end, 0);
        }
        d.live[off..end].copy_from_slice(buf);
        d.unsynced.push((offset, buf.len()));
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        let mut lab = self.lab.lock();
        CrashLab::step(&mut lab)?;
        let d = &mut lab.disks[self.index];
        d.durable.clone_from(&d.live);
        d.unsynced.clear();
        Ok(())
    }
    fn len(&self) -> Result<u64> {
        Ok(self.lab.lock().disks[self.index].live.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synced_writes_survive_a_crash_and_unsynced_ones_may_tear() {
        let lab = CrashLab::new(7);
        let mut d = lab.disk();
        d.write_at(&[1u8; 2048], 0).unwrap();
        d.sync().unwrap();
        d.write_at(&[2u8; 2048], 0).unwrap();
        lab.crash();
        let mut buf = [0u8; 2048];
        d.read_at(&mut buf, 0).unwrap();
        // Each sector is wholly old or wholly new.
        for s in buf.chunks(SECTOR) {
            assert!(s.iter().all(|&b| b == s[0]) && (s[0] == 1 || s[0] == 2));
        }
    }

    #[test]
    fn a_power_cut_stops_every_disk_until_the_crash() {
        let lab = CrashLab::new(1);
        let (mut a, mut b) = (lab.disk(), lab.disk());
        lab.power_cut_after(2);
        a.write_at(&[1], 0).unwrap();
        assert!(matches!(b.write_at(&[1], 0), Err(Error::PowerCut)));
        assert!(matches!(a.sync(), Err(Error::PowerCut)));
        lab.crash();
        b.write_at(&[3], 0).unwrap();
        let mut x = [9u8];
        a.read_at(&mut x, 0).unwrap();
        assert!(x[0] == 0 || x[0] == 1);
    }
}

/// A page store on a [`Disk`]: page `p` at byte `p × page_size`, priced by
/// a device model like every store; `flush` syncs the disk. With a
/// [`CrashDisk`] it is the crash-injecting file store the hybrid store's
/// crash tests run on.
#[derive(Debug)]
pub struct DiskStore<D> {
    disk: D,
    page_size: usize,
    meter: super::Meter,
}

impl<D: Disk> DiskStore<D> {
    /// A store of `page_size`-byte pages on `disk`, priced by `device`.
    pub fn new(disk: D, page_size: usize, device: crate::device::DeviceModel) -> Result<Self> {
        if page_size == 0 {
            return Err(Error::invalid("page size must be at least 1 byte"));
        }
        Ok(DiskStore {
            disk,
            page_size,
            meter: super::Meter::new(device),
        })
    }

    fn offset(&self, page: crate::types::PageId) -> Result<u64> {
        page.checked_mul(self.page_size as u64)
            .ok_or_else(|| Error::invalid(format!("page {page} is beyond the largest offset")))
    }
}

impl<D: Disk> super::PageStore for DiskStore<D> {
    fn page_size(&self) -> usize {
        self.page_size
    }
    fn read(&mut self, page: crate::types::PageId, buf: &mut [u8]) -> Result<()> {
        super::check_len(self.page_size, buf.len())?;
        let off = self.offset(page)?;
        self.disk.read_at(buf, off)?;
        self.meter.read(false);
        Ok(())
    }
    fn write(&mut self, page: crate::types::PageId, buf: &[u8]) -> Result<()> {
        super::check_len(self.page_size, buf.len())?;
        let off = self.offset(page)?;
        self.disk.write_at(buf, off)?;
        self.meter.write(false);
        Ok(())
    }
    fn write_batch(&mut self, batch: &[(crate::types::PageId, &[u8])]) -> Result<()> {
        for &(page, buf) in batch {
            super::check_len(self.page_size, buf.len())?;
            let off = self.offset(page)?;
            self.disk.write_at(buf, off)?;
        }
        self.meter.write_batch(batch.iter().map(|b| b.0));
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        self.disk.sync()
    }
    fn cost_of(&self, _page: crate::types::PageId) -> crate::types::PageCost {
        self.meter.page_cost()
    }
    fn stats(&self) -> super::IoStats {
        self.meter.stats()
    }
    fn device_stats(&self, out: &mut Vec<super::DeviceStats>) {
        out.push(self.meter.device_stats());
    }
}
