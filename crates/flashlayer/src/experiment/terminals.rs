//! Terminals on threads: a database workload's steps run by several threads
//! at once over one buffer pool (`flashlayer bench --oltp`).
//!
//! The tables are loaded by one thread and flushed; then `threads`
//! terminals take step numbers from one counter until every step has run,
//! each drawing from its own random generator. The B+-trees' latches keep
//! the tables consistent ([`crate::btree`]); there are no transactions, so
//! each page change is atomic and a step's changes are not. Once the
//! terminals stop, the pool is flushed, every B+-tree and heap file is
//! walked by its checker ([`Space::check`](crate::btree::Space::check)), and
//! the workload checks its own consistency conditions
//! ([`Workload::check`]); a run whose checks fail is an error.

use crate::btree::Checked;
use crate::error::{Error, Result};
use crate::policy::{BoxedPolicy, Policy};
use crate::store::{DynStore, IoStats};
use crate::workload::util::WRng;
use crate::workload::{Db, Workload};
use rand::SeedableRng;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Pages one terminal may hold latched at once: a B+-tree split latches
/// every node it may change plus the new page (its height + 1), which this
/// covers for trees of up to 7 levels.
pub const PAGES_PER_TERMINAL: usize = 8;

/// What [`run_threads`] measured and checked.
#[derive(Clone, Debug)]
pub struct ThreadedRun {
    /// Terminals (threads).
    pub threads: usize,
    /// Steps run.
    pub steps: u64,
    /// Wall time from the terminals' start until the last one stopped.
    pub seconds: f64,
    /// Wall time of the flush after the steps.
    pub flush_seconds: f64,
    /// Pages in the database after the run.
    pub db_pages: u64,
    /// The store's I/O while loading (the load's dirty pages flushed).
    pub load: IoStats,
    /// The store's I/O while the terminals ran, the final flush included.
    pub run: IoStats,
    /// Per-kind step counts.
    pub summary: Vec<(String, u64)>,
    /// Every object of the space as its checker found it.
    pub checked: Vec<Checked>,
    /// What the workload's own consistency check found to hold, if it has
    /// one.
    pub consistency: Option<String>,
}

impl ThreadedRun {
    /// Steps (transactions) per second of wall time.
    pub fn steps_per_second(&self) -> f64 {
        self.steps as f64 / self.seconds.max(1e-9)
    }
}

/// Loads `driver`'s tables on `store` through a pool that replaces pages
/// as `policy` decides (its capacity is the pool's frames), runs its steps
/// on `threads` terminals, flushes, and checks the database. The load draws
/// from `seed`, terminal `t` from `seed + 1 + t`. `progress(done, total)`
/// is called about ten times a second from the calling thread; an error
/// from it (e.g. [`Error::Cancelled`]) stops the terminals and is returned.
pub fn run_threads(
    driver: &mut dyn Workload,
    store: DynStore,
    policy: BoxedPolicy,
    threads: usize,
    seed: u64,
    progress: &mut dyn FnMut(u64, u64) -> Result<()>,
) -> Result<ThreadedRun> {
    if threads == 0 {
        return Err(Error::invalid("a run needs at least one terminal"));
    }
    if !driver.on_pages() {
        return Err(Error::invalid(format!(
            "{} is a page reference string, not transactions on tables: it has nothing to run \
             on terminals",
            driver.name()
        )));
    }
    if store.page_size() != driver.page_size() {
        return Err(Error::invalid(format!(
            "the store has {}-byte pages, the workload {}-byte ones",
            store.page_size(),
            driver.page_size()
        )));
    }
    let frames = policy.capacity();
    if frames < threads * PAGES_PER_TERMINAL {
        return Err(Error::invalid(format!(
            "a pool of {frames} frames is too small for {threads} terminals: each may hold up to \
             {PAGES_PER_TERMINAL} pages latched at once, so give at least {}",
            threads * PAGES_PER_TERMINAL
        )));
    }
    let db = Db::with_policy(store, policy)?;
    let pool = db.space().pool();
    let start = pool.store_stats();
    driver.load(&db, &mut WRng::seed_from_u64(seed))?;
    db.space().flush()?;
    let loaded = pool.store_stats();
    let driver: &dyn Workload = driver;
    let total = driver.steps();
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    // The run lasts from here to the moment its last terminal finishes:
    // each terminal notes when it finished and wakes this thread, which
    // otherwise reports progress about ten times a second.
    let main = std::thread::current();
    let t0 = Instant::now();
    let (outcome, seconds) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads as u64)
            .map(|t| {
                let (db, next, done, stop, main) = (&db, &next, &done, &stop, &main);
                s.spawn(move || -> Result<Instant> {
                    let mut rng = WRng::seed_from_u64(seed.wrapping_add(1 + t));
                    let run = loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= total || stop.load(Ordering::Relaxed) {
                            break Ok(());
                        }
                        if let Err(e) = driver.step(db, &mut rng, i) {
                            stop.store(true, Ordering::Relaxed);
                            break Err(e);
                        }
                        done.fetch_add(1, Ordering::Relaxed);
                    };
                    let finished = Instant::now();
                    main.unpark();
                    run.map(|()| finished)
                })
            })
            .collect();
        let mut outcome = Ok(());
        // A terminal that panics wakes no one: the timeout still ends the
        // wait for it.
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::park_timeout(Duration::from_millis(100));
            if outcome.is_ok() {
                outcome = progress(done.load(Ordering::Relaxed), total);
                if outcome.is_err() {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
        let mut last = t0;
        for h in handles {
            match h.join() {
                Ok(Ok(finished)) => last = last.max(finished),
                Ok(Err(e)) => outcome = outcome.and(Err(e)),
                Err(_) => {
                    outcome = outcome.and_then(|()| Err(Error::invalid("a terminal panicked")))
                }
            }
        }
        (outcome, last.duration_since(t0).as_secs_f64())
    });
    outcome?;
    let t1 = Instant::now();
    db.space().flush()?;
    let flush_seconds = t1.elapsed().as_secs_f64();
    progress(total, total)?;
    let end = pool.store_stats();
    let checked = db.space().check()?;
    let consistency = driver.check(&db)?;
    Ok(ThreadedRun {
        threads,
        steps: total,
        seconds,
        flush_seconds,
        db_pages: u64::from(db.space().pages()),
        load: loaded.minus(start),
        run: end.minus(loaded),
        summary: driver.summary(),
        checked,
        consistency,
    })
}
