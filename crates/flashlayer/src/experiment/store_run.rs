//! A database workload loaded and run on any page store through a buffer
//! pool, the store's I/O counted per phase (PDL Fig. 14 runs TPC-C this
//! way on each flash store).

use crate::error::{Error, Result};
use crate::store::{DynStore, IoStats};
use crate::workload::util::WRng;
use crate::workload::{Db, Workload};
use rand::SeedableRng;

/// What [`run_on`] measured.
#[derive(Clone, Debug)]
pub struct StoreRun {
    /// Steps run.
    pub steps: u64,
    /// Pages in the database after the run.
    pub db_pages: u64,
    /// The store's I/O while loading (the load's dirty pages flushed).
    pub load: IoStats,
    /// Warm-up steps run after loading and not measured.
    pub warmup_steps: u64,
    /// Erases during the warm-up.
    pub warmup_erases: u64,
    /// The store's I/O while running, the final flush of the pages the run
    /// dirtied included.
    pub run: IoStats,
    /// Per-kind step counts.
    pub summary: Vec<(String, u64)>,
}

/// How long [`run_on`] warms up before it measures: steps run until the
/// store has erased `erases` blocks, or `max_steps` of them. The default
/// (0 erases) measures right after loading.
#[derive(Clone, Copy, Debug, Default)]
pub struct Warmup {
    /// Erases to reach (a flash store's collection in its steady state).
    pub erases: u64,
    /// At most this many warm-up steps.
    pub max_steps: u64,
}

/// Loads `driver`'s tables, warms up as `warmup` says, and runs its steps
/// on `store` through an LRU buffer pool of `frames` (the DBMS buffer), and
/// returns the store's I/O in each phase. `progress(done, total)` as in
/// [`crate::workload::generate`], over the measured steps.
pub fn run_on(
    driver: &mut dyn Workload,
    store: DynStore,
    frames: usize,
    seed: u64,
    warmup: Warmup,
    progress: &mut dyn FnMut(u64, u64) -> Result<()>,
) -> Result<StoreRun> {
    if store.page_size() != driver.page_size() {
        return Err(Error::invalid(format!(
            "the store has {}-byte pages, the workload {}-byte ones",
            store.page_size(),
            driver.page_size()
        )));
    }
    let db = Db::on(store, frames)?;
    let mut rng = WRng::seed_from_u64(seed);
    let pool = db.space().pool();
    let start = pool.store_stats();
    driver.load(&db, &mut rng)?;
    pool.flush()?;
    let after_load = pool.store_stats();
    let mut warmup_steps = 0;
    while warmup_steps < warmup.max_steps
        && pool.store_stats().erases - after_load.erases < warmup.erases
    {
        driver.step(&db, &mut rng, warmup_steps)?;
        warmup_steps += 1;
    }
    pool.flush()?;
    let loaded = pool.store_stats();
    let total = driver.steps();
    for i in 0..total {
        driver.step(&db, &mut rng, i)?;
        if (i + 1) % 1000 == 0 {
            progress(i + 1, total)?;
        }
    }
    pool.flush()?;
    progress(total, total)?;
    let end = pool.store_stats();
    Ok(StoreRun {
        steps: total,
        db_pages: u64::from(db.space().pages()),
        load: after_load.minus(start),
        warmup_steps,
        warmup_erases: loaded.erases - after_load.erases,
        run: end.minus(loaded),
        summary: driver.summary(),
    })
}
