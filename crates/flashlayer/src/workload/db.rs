//! The database a workload runs on, and trace generation around it.

use super::util::WRng;
use crate::btree::Space;
use crate::buffer::BufferPool;
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::policy::{BoxedPolicy, Lru};
use crate::store::{DynStore, MemStore};
use crate::trace::{self, Format};
use crate::types::{ByteRange, Op, PageId};
use rand::SeedableRng;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// Requests recorded since the last drain.
#[derive(Debug, Default)]
struct Log {
    reqs: Vec<(PageId, Op, u32, u32)>,
    ranges: Vec<ByteRange>,
}

impl Log {
    fn push(&mut self, page: PageId, op: Op, changed: &[ByteRange]) {
        let start = self.ranges.len() as u32;
        self.ranges.extend_from_slice(changed);
        self.reqs.push((page, op, start, self.ranges.len() as u32));
    }
}

/// A workload's database: a [`Space`] over a store, with a buffer pool whose
/// fixes are recorded while a run is on.
pub struct Db {
    sp: Space<BoxedPolicy, DynStore>,
    log: Arc<Mutex<Log>>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("pages", &self.sp.pages())
            .finish_non_exhaustive()
    }
}

impl Db {
    /// A fresh database of `page_size`-byte pages in memory, with a pool
    /// of `frames`.
    pub fn new(page_size: usize, frames: usize) -> Result<Self> {
        Db::on(
            Box::new(MemStore::new(page_size, DeviceModel::unit())),
            frames,
        )
    }

    /// A fresh database on `store` (a flash store, say), with an LRU pool
    /// of `frames`; its pages are numbered from 0 as the tables grow.
    pub fn on(store: DynStore, frames: usize) -> Result<Self> {
        Db::with_policy(store, BoxedPolicy::new(Lru::new(frames)))
    }

    /// A fresh database on `store` whose pool has as many frames as
    /// `policy` has capacity, and replaces pages as it decides.
    pub fn with_policy(store: DynStore, policy: BoxedPolicy) -> Result<Self> {
        let pool = BufferPool::new(policy, store)?;
        Ok(Db {
            sp: Space::create(pool)?,
            log: Arc::default(),
        })
    }

    /// The space holding the tables.
    pub fn space(&self) -> &Space<BoxedPolicy, DynStore> {
        &self.sp
    }

    /// Records a request directly, for workloads defined as page references
    /// rather than transactions (PDL's synthetic updates).
    pub fn emit(&self, page: PageId, op: Op, changed: &[ByteRange]) {
        self.log().push(page, op, changed);
    }

    fn log(&self) -> MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn start_recording(&self, bytes: bool) -> Result<()> {
        let log = self.log.clone();
        self.sp.pool().set_recorder(
            Box::new(move |p: PageId, op: Op, r: &[ByteRange]| {
                log.lock().unwrap_or_else(|e| e.into_inner()).push(p, op, r)
            }),
            bytes,
        )
    }
}

/// A workload: builds its tables, then runs numbered steps (transactions or
/// queries). Steps may run on several threads at once (`experiment::run_threads`),
/// each with its own random generator, so a step takes `&self` and keeps
/// any count it updates in atomics.
pub trait Workload: Send + Sync {
    /// Short name (`tpcc`, `tatp`, ...).
    fn name(&self) -> &'static str;
    /// Page size the workload's tables use.
    fn page_size(&self) -> usize;
    /// Builds the tables; not recorded.
    fn load(&mut self, db: &Db, rng: &mut WRng) -> Result<()>;
    /// Number of steps a run takes.
    fn steps(&self) -> u64;
    /// Runs step `i`; its page fixes are recorded.
    fn step(&self, db: &Db, rng: &mut WRng, i: u64) -> Result<()>;
    /// Whether steps fix the database's pages. A workload defined as a page
    /// reference string ([`Db::emit`]) does not, and has nothing to run on
    /// threads.
    fn on_pages(&self) -> bool {
        true
    }
    /// Pages of the database after a run: its space's, or for a page
    /// reference string the pages it draws from.
    fn pages(&self, db: &Db) -> u64 {
        u64::from(db.space().pages())
    }
    /// Checks the workload's own consistency conditions once no step runs,
    /// and says what held (`None` for a workload without conditions); a
    /// condition that fails is an [`Error::Store`] saying which and where.
    fn check(&self, _db: &Db) -> Result<Option<String>> {
        Ok(None)
    }
    /// What the steps were, for the report (e.g. transaction counts by type).
    fn summary(&self) -> Vec<(String, u64)> {
        Vec::new()
    }
}

/// Options of [`generate`].
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// Seed of every random choice (load and run).
    pub seed: u64,
    /// Record the byte ranges each write changed.
    pub with_bytes: bool,
    /// Buffer frames of the generating pool. It only bounds memory: the
    /// trace holds logical fixes, which do not depend on it.
    pub frames: usize,
}

impl Default for GenOptions {
    /// Seed 0, no byte ranges, 16,384 frames (128 MiB of 8-KiB pages).
    fn default() -> Self {
        GenOptions {
            seed: 0,
            with_bytes: false,
            frames: 16_384,
        }
    }
}

/// What [`generate`] did.
#[derive(Clone, Debug)]
pub struct GenReport {
    /// Requests written.
    pub requests: u64,
    /// Steps (transactions or queries) run.
    pub steps: u64,
    /// Pages in the database after the run ([`Workload::pages`]).
    pub db_pages: u64,
    /// Seconds spent loading.
    pub load_seconds: f64,
    /// Seconds spent running and writing the trace.
    pub run_seconds: f64,
    /// Per-kind step counts.
    pub summary: Vec<(String, u64)>,
}

/// Loads `driver`'s tables, runs its steps while recording, and writes the
/// trace to `out` (`.flt`, `.csv`, `.csv.gz`). `progress(done, total)` is
/// called every 1,000 steps and at the end; an error from it (e.g.
/// [`Error::Cancelled`]) stops the run and is returned.
pub fn generate(
    driver: &mut dyn Workload,
    opts: &GenOptions,
    out: &Path,
    progress: &mut dyn FnMut(u64, u64) -> Result<()>,
) -> Result<GenReport> {
    if opts.frames < 8 {
        return Err(Error::invalid(
            "the generating pool needs at least 8 frames",
        ));
    }
    let format = trace::output_format(out, None)?;
    if !matches!(format, Format::Flt | Format::Csv) {
        return Err(Error::invalid("workload traces are written as flt or csv"));
    }
    let db = Db::new(driver.page_size(), opts.frames)?;
    let mut rng = WRng::seed_from_u64(opts.seed);
    let t0 = Instant::now();
    driver.load(&db, &mut rng)?;
    let load_seconds = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    db.start_recording(opts.with_bytes)?;
    let total = driver.steps();
    let requests = trace::write_all(out, format, opts.with_bytes, |sink| {
        for i in 0..total {
            driver.step(&db, &mut rng, i)?;
            let mut log = db.log();
            for &(p, op, a, b) in &log.reqs {
                sink(p, op, &log.ranges[a as usize..b as usize])?;
            }
            log.reqs.clear();
            log.ranges.clear();
            drop(log);
            if (i + 1) % 1000 == 0 {
                progress(i + 1, total)?;
            }
        }
        Ok(())
    })?;
    progress(total, total)?;
    Ok(GenReport {
        requests,
        steps: total,
        db_pages: driver.pages(&db),
        load_seconds,
        run_seconds: t1.elapsed().as_secs_f64(),
        summary: driver.summary(),
    })
}
