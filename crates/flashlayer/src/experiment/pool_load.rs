//! Threads fixing pages of one shared [`BufferPool`]: how the pool scales
//! with threads (`flashlayer bench --pool`, the `pool` divan bench).
//!
//! Each thread replays its own Zipf reference string (its own seed) through
//! the pool: a read fixes the page for reading and reads a byte; a write
//! fixes it for writing and changes a byte. The strings are drawn before
//! the clock starts; the time is the wall time from the threads' start
//! until the last one is done. Three workloads:
//!
//! - [`PoolWorkload::Hits`]: every page fits and is loaded before the
//!   clock starts, and only reads are timed: the hit path alone.
//! - [`PoolWorkload::Latency`]: a memory store that sleeps on every page
//!   read and written ([`MemStore::with_latency`]): whether I/O overlaps.
//! - [`PoolWorkload::File`]: a real file ([`FileStore`]), with `O_DIRECT`
//!   where the file system allows it, written in full before the clock
//!   starts.
//! - [`PoolWorkload::Hybrid`]: the hybrid store (Koltsidas & Viglas's
//!   placement) over two such memory stores, flash and magnetic: a store
//!   that listens to the order of requests, whose misses the pool runs
//!   whole under its lock.

use crate::buffer::BufferPool;
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::hybrid::HybridStore;
use crate::policy::Lru;
use crate::store::{FileStore, MemStore, PageStore};
use crate::types::{Op, PageId};
use crate::workload::{zipf, ZipfParams};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What the pool's store is, and which requests are timed.
#[derive(Clone, Debug)]
pub enum PoolWorkload {
    /// All hits, reads only.
    Hits,
    /// A memory store that waits this long per page read and written.
    Latency {
        /// Wait per page read.
        read: Duration,
        /// Wait per page written.
        write: Duration,
    },
    /// A file at this path (created, and removed after the run).
    File {
        /// The file.
        path: PathBuf,
    },
    /// The hybrid store over two memory stores that each wait this long
    /// per page read and written.
    Hybrid {
        /// Wait per page read.
        read: Duration,
        /// Wait per page written.
        write: Duration,
    },
}

/// Sizes of one run of [`run`].
#[derive(Clone, Debug)]
pub struct PoolLoad {
    /// Threads sharing the pool.
    pub threads: usize,
    /// Fixes in all (each thread does its share).
    pub fixes: u64,
    /// Frames of the pool (LRU).
    pub frames: usize,
    /// Pages the references are drawn from (ignored by `Hits`, which
    /// draws from the frames' worth of pages).
    pub pages: u64,
    /// Zipf exponent.
    pub alpha: f64,
    /// Share of writes (ignored by `Hits`: reads only).
    pub write_ratio: f64,
    /// Bytes per page.
    pub page_size: usize,
    /// Seed of the first thread's string (thread `i` uses `seed + i`).
    pub seed: u64,
}

/// What [`run`] measured.
#[derive(Clone, Debug)]
pub struct PoolLoadResult {
    /// Fixes done in all.
    pub fixes: u64,
    /// Wall time of the timed part.
    pub seconds: f64,
    /// Misses (pages read from the store).
    pub misses: u64,
    /// Whether the file was opened with `O_DIRECT` (`File` only).
    pub direct: bool,
}

impl PoolLoadResult {
    /// Fixes per second of wall time.
    pub fn fixes_per_second(&self) -> f64 {
        self.fixes as f64 / self.seconds.max(1e-9)
    }
}

/// Runs `load` on `workload`.
pub fn run(load: &PoolLoad, workload: &PoolWorkload) -> Result<PoolLoadResult> {
    if load.threads == 0 || load.frames == 0 || load.fixes == 0 {
        return Err(Error::invalid(
            "a pool load needs at least one thread, one frame and one fix",
        ));
    }
    match workload {
        PoolWorkload::Hits => {
            let store = MemStore::new(load.page_size, DeviceModel::unit());
            let pool = BufferPool::new(Lru::new(load.frames), store)?;
            for p in 0..load.frames as PageId {
                drop(pool.fix_read(p)?);
            }
            let strings = strings(load, load.frames as u64, 0.0)?;
            timed(&pool, &strings, false)
        }
        PoolWorkload::Latency { read, write } => {
            let store =
                MemStore::new(load.page_size, DeviceModel::unit()).with_latency(*read, *write);
            let pool = BufferPool::new(Lru::new(load.frames), store)?;
            let strings = strings(load, load.pages, load.write_ratio)?;
            timed(&pool, &strings, false)
        }
        PoolWorkload::File { path } => {
            let result = on_file(load, path);
            let _ = std::fs::remove_file(path);
            result
        }
        PoolWorkload::Hybrid { read, write } => {
            let device = |name: &str| {
                DeviceModel::preset(name).ok_or_else(|| Error::invalid(format!("no preset {name}")))
            };
            let flash = MemStore::new(load.page_size, device("koltsidas08-flash")?)
                .with_latency(*read, *write);
            let magnetic = MemStore::new(load.page_size, device("koltsidas08-magnetic")?)
                .with_latency(*read, *write);
            let store = HybridStore::builder(flash, magnetic)
                .file_pages(load.pages)
                .buffer_pages(load.frames as u64)
                .open()?;
            let pool = BufferPool::new(Lru::new(load.frames), store)?;
            let strings = strings(load, load.pages, load.write_ratio)?;
            timed(&pool, &strings, false)
        }
    }
}

fn on_file(load: &PoolLoad, path: &PathBuf) -> Result<PoolLoadResult> {
    let (mut store, direct) = FileStore::builder(path)
        .page_size(load.page_size)
        .open_preferring_direct()?;
    let page = vec![0x5au8; load.page_size];
    for p in 0..load.pages {
        store.write(p, &page)?;
    }
    store.flush()?;
    let pool = BufferPool::new(Lru::new(load.frames), store)?;
    let strings = strings(load, load.pages, load.write_ratio)?;
    timed(&pool, &strings, direct)
}

/// Each thread's reference string.
fn strings(load: &PoolLoad, pages: u64, write_ratio: f64) -> Result<Vec<Vec<(PageId, Op)>>> {
    let per = load.fixes.div_ceil(load.threads as u64);
    (0..load.threads as u64)
        .map(|i| {
            let p = ZipfParams {
                requests: per.min(load.fixes - (per * i).min(load.fixes)),
                pages,
                alpha: load.alpha,
                write_ratio,
                seed: load.seed.wrapping_add(i),
            };
            Ok(zipf(&p)?.collect())
        })
        .collect()
}

fn timed<S: PageStore + Send>(
    pool: &BufferPool<Lru, S>,
    strings: &[Vec<(PageId, Op)>],
    direct: bool,
) -> Result<PoolLoadResult> {
    let before = pool.store_stats().reads;
    let start = Instant::now();
    let results: Vec<Result<u64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = strings
            .iter()
            .map(|string| scope.spawn(move || fix_all(pool, string)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::invalid("a fixing thread panicked")))
            })
            .collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    let mut fixes = 0;
    for r in results {
        fixes += r?;
    }
    Ok(PoolLoadResult {
        fixes,
        seconds,
        misses: pool.store_stats().reads - before,
        direct,
    })
}

fn fix_all<S: PageStore + Send>(pool: &BufferPool<Lru, S>, string: &[(PageId, Op)]) -> Result<u64> {
    let mut sum = 0u8;
    for &(page, op) in string {
        if op.is_write() {
            let mut g = pool.fix_write(page)?;
            g[0] = g[0].wrapping_add(1);
        } else {
            sum ^= pool.fix_read(page)?[0];
        }
    }
    std::hint::black_box(sum);
    Ok(string.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(threads: usize) -> PoolLoad {
        PoolLoad {
            threads,
            fixes: 2_000,
            frames: 50,
            pages: 400,
            alpha: 0.8,
            write_ratio: 0.2,
            page_size: 4096,
            seed: 1,
        }
    }

    #[test]
    fn pool_load_does_every_fix_and_hits_only_when_asked() {
        let hits = run(&load(3), &PoolWorkload::Hits).unwrap();
        assert_eq!((hits.fixes, hits.misses), (2_000, 0));
        let (read, write) = (Duration::from_micros(1), Duration::from_micros(1));
        for slow in [
            PoolWorkload::Latency { read, write },
            PoolWorkload::Hybrid { read, write },
        ] {
            let r = run(&load(4), &slow).unwrap();
            assert_eq!(r.fixes, 2_000);
            assert!(r.misses > 50, "{r:?}");
        }
    }

    #[test]
    fn pool_load_on_a_file_removes_it_after() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pool.db");
        let r = run(&load(2), &PoolWorkload::File { path: path.clone() }).unwrap();
        assert_eq!(r.fixes, 2_000);
        assert!(!path.exists());
    }
}
