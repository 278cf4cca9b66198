//! A replay fed one request at a time ([`Live`]): the same policy over the
//! same store as [`super::replay`], driven by the same simulator, for a
//! caller that has no trace file but requests as they come (Python's
//! `flashlayer.Cache`).
//!
//! Its trace is a *universe* of pages with no requests. Declared
//! (`pages = Some(n)`), it holds pages `0..n`, each page its own dense id
//! and number, so a run over requests numbered `0..n` in order of first
//! appearance equals [`super::replay`] of those requests row for row, for
//! every online policy and every store without data. Undeclared, pages get
//! dense ids as they first arrive, and only a `cost` store, which is not
//! sized by the trace, can be opened; a policy that groups pages by number
//! (write clustering, CFDC) then finds a page's neighbours among the pages
//! met so far.

use super::{capacity, Kind, Run, StoreSpec};
use crate::error::{Error, Result};
use crate::policy::{boxed_online_policy, BoxedPolicy, Policy, PolicySpec};
use crate::sim::Simulator;
use crate::spec::Size;
use crate::store::PageStore;
use crate::trace::{Flt, FltWriter};
use crate::types::{DenseId, Fields, IoStats, Metrics, Op, PageId};
use rustc_hash::FxHashMap;
use std::io::Cursor;
use std::panic::{self, AssertUnwindSafe};

/// One kind's run under way, its policy boxed: what [`Live`] steps.
pub trait Stepper: Send {
    /// Serves one request of dense id `page`; returns whether it hit.
    fn request(&mut self, page: DenseId, op: Op) -> Result<bool>;
    /// Names the next new page `number` (an undeclared universe).
    fn name_next(&mut self, number: PageId);
    /// Takes back the name [`Stepper::name_next`] gave last (its request
    /// failed).
    fn unname_last(&mut self);
    /// The metrics, after writing the dirty pages if `run` says so (they
    /// stay buffered, clean), and the kind's fields.
    fn report(&mut self, run: &Run<'_>) -> Result<(Metrics, Fields)>;
}

struct Stepping<K: Kind> {
    sim: Simulator<BoxedPolicy, K::Store, Vec<PageId>>,
    kind: K,
    /// The policy may fail ([`crate::policy::Policy::may_fail`]).
    may_fail: bool,
    /// The store's I/O for requests that failed, per device: theirs, not
    /// the run's.
    uncounted: Vec<IoStats>,
}

/// Each device's counts of `store`.
fn device_io<S: PageStore>(store: &S) -> Vec<IoStats> {
    let mut devices = Vec::new();
    store.device_stats(&mut devices);
    devices.into_iter().map(|d| d.io).collect()
}

impl<K: Kind> Stepper for Stepping<K> {
    fn request(&mut self, page: DenseId, op: Op) -> Result<bool> {
        if !self.may_fail {
            return self.sim.request(page, op);
        }
        // A failed request moves no counter of the run: the driver puts
        // its own back, and the I/O the store did for it is set aside.
        let before = device_io(self.sim.store());
        let served = panic::catch_unwind(AssertUnwindSafe(|| self.sim.request(page, op)));
        if !matches!(served, Ok(Ok(_))) {
            let after = device_io(self.sim.store());
            self.uncounted.resize(after.len(), IoStats::default());
            for ((u, a), b) in self.uncounted.iter_mut().zip(after).zip(before) {
                *u = u.plus(a.minus(b));
            }
        }
        served.unwrap_or_else(|p| panic::resume_unwind(p))
    }

    fn name_next(&mut self, number: PageId) {
        self.sim.numbers_mut().push(number);
    }

    fn unname_last(&mut self) {
        self.sim.numbers_mut().pop();
    }

    fn report(&mut self, run: &Run<'_>) -> Result<(Metrics, Fields)> {
        let pages = self.sim.numbers_mut().len();
        let mut m = if run.flush_at_end {
            self.sim.flush_metrics(pages)?
        } else {
            self.sim.metrics()
        };
        for (d, u) in m.devices.iter_mut().zip(&self.uncounted) {
            d.io = d.io.minus(*u);
            m.virtual_time -= u.virtual_time;
            m.erases -= u.erases;
            m.migrations -= u.migrations;
        }
        let fields = self.kind.report(run, self.sim.store_mut(), &mut m)?;
        Ok((m, fields))
    }
}

/// Opens `kind`'s store for `run` and steps the policy over it through
/// the simulator, as [`super::Simulated`] drives a whole trace.
pub(super) fn stepping<K: Kind>(
    kind: &K,
    run: &mut Run<'_>,
    capacity: usize,
) -> Result<Box<dyn Stepper>> {
    let store = kind.open(run)?;
    let pages = run.trace.pages();
    let policy = boxed_online_policy(run.policy, capacity, pages)?;
    let numbers: Vec<PageId> = (0..pages as PageId).collect();
    let may_fail = policy.may_fail();
    let mut sim = Simulator::with_numbers(policy, store, numbers)?;
    sim.learn_numbers(pages);
    Ok(Box::new(Stepping {
        sim,
        kind: kind.clone(),
        may_fail,
        uncounted: Vec::new(),
    }))
}

/// A replay fed one request at a time.
pub struct Live {
    universe: Flt,
    policy: PolicySpec,
    store: StoreSpec,
    buffer_pages: usize,
    /// Undeclared: the dense id of each page met so far.
    met: Option<FxHashMap<PageId, DenseId>>,
    stepper: Box<dyn Stepper>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("policy", &self.policy.to_string())
            .field("store", &self.store.to_string())
            .field("buffer_pages", &self.buffer_pages)
            .finish_non_exhaustive()
    }
}

impl Live {
    /// `policy` with a buffer of `buffer` over `store`, for pages `0..n`
    /// if `pages` is `Some(n)`, else for pages as they come. Refuses an
    /// offline policy (it reads a future there is none of), a store with
    /// data (it runs through a buffer pool), a store sized by the trace's
    /// pages or a buffer in percent without `pages`.
    pub fn new(
        policy: &PolicySpec,
        buffer: Size,
        store: &StoreSpec,
        pages: Option<usize>,
    ) -> Result<Live> {
        if policy.is_offline() {
            return Err(Error::invalid(format!(
                "{} reads the trace's future, and requests served one at a time have none: replay a trace \
                 instead",
                policy.name()
            )));
        }
        if store.kind.pooled() {
            return Err(Error::invalid(format!(
                "a {} store holds the pages' bytes and runs through a buffer pool; requests one at a time \
                 run on a store without data (cost, ftl, hybrid, tier)",
                store.name()
            )));
        }
        if pages.is_none() && store.name() != "cost" {
            return Err(Error::invalid(format!(
                "a {} store is sized by the trace's pages: declare them (pages=N, requests then name pages \
                 0..N)",
                store.name()
            )));
        }
        if pages.is_none() && matches!(buffer, Size::Percent(_)) {
            return Err(Error::invalid(
                "a buffer in percent of the trace's pages needs them declared (pages=N)",
            ));
        }
        let universe = universe(pages.unwrap_or(0))?;
        let buffer_pages = buffer.pages(universe.pages());
        let cap = if pages.is_some() {
            capacity(buffer_pages, &universe)?
        } else if buffer_pages == 0 {
            return Err(Error::invalid("buffer size must be at least 1 page"));
        } else {
            buffer_pages
        };
        let mut quiet = |_| Ok(());
        let stepper = store.kind.live(
            &mut run_of(&universe, policy, buffer_pages, false, &mut quiet),
            cap,
        )?;
        Ok(Live {
            universe,
            policy: policy.clone(),
            store: store.clone(),
            buffer_pages,
            met: pages.is_none().then(FxHashMap::default),
            stepper,
        })
    }

    /// Serves a request for `page`; returns whether it hit.
    pub fn request(&mut self, page: PageId, op: Op) -> Result<bool> {
        let mut new = false;
        let dense = match &mut self.met {
            Some(met) => {
                let next = met.len() as DenseId;
                match met.entry(page) {
                    std::collections::hash_map::Entry::Occupied(e) => *e.get(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        if next > crate::types::MAX_DENSE {
                            return Err(Error::invalid("more distinct pages than a run can name"));
                        }
                        e.insert(next);
                        self.stepper.name_next(page);
                        new = true;
                        next
                    }
                }
            }
            None => {
                if page >= self.universe.pages() as PageId {
                    return Err(Error::invalid(format!(
                        "page {page} is outside the declared pages 0..{}",
                        self.universe.pages()
                    )));
                }
                page as DenseId
            }
        };
        if !new {
            return self.stepper.request(dense, op);
        }
        let served = panic::catch_unwind(AssertUnwindSafe(|| self.stepper.request(dense, op)));
        if !matches!(served, Ok(Ok(_))) {
            // A page first met by a request that failed is not met: the
            // run is as if the request never came.
            if let Some(met) = &mut self.met {
                met.remove(&page);
            }
            self.stepper.unname_last();
        }
        served.unwrap_or_else(|p| panic::resume_unwind(p))
    }

    /// The buffer's size in pages, as asked.
    pub fn buffer_pages(&self) -> usize {
        self.buffer_pages
    }

    /// Whether the pages were declared (`pages = Some(n)`).
    pub fn declared(&self) -> bool {
        self.met.is_none()
    }

    /// Distinct pages: declared, or met so far.
    pub fn pages(&self) -> usize {
        self.met
            .as_ref()
            .map_or_else(|| self.universe.pages(), FxHashMap::len)
    }

    /// What [`super::replay`] returns for the requests served so far;
    /// `flush_at_end` writes the dirty pages (they stay buffered, clean;
    /// default off, as the replay's on a store without data).
    pub fn result(&mut self, flush_at_end: Option<bool>) -> Result<super::Replayed> {
        let flush = flush_at_end.unwrap_or(false);
        let mut quiet = |_| Ok(());
        let run = run_of(
            &self.universe,
            &self.policy,
            self.buffer_pages,
            flush,
            &mut quiet,
        );
        let (metrics, fields) = self.stepper.report(&run)?;
        let (device, cost_unit) = self.store.kind.priced();
        Ok(super::Replayed {
            buffer_pages: self.buffer_pages,
            metrics,
            flushed_at_end: flush,
            device,
            cost_unit,
            fields,
        })
    }
}

/// A trace of pages `0..pages` and no requests.
fn universe(pages: usize) -> Result<Flt> {
    let mut w = FltWriter::new(Cursor::new(Vec::new()), "<requests>")?;
    for p in 0..pages as PageId {
        w.declare(p)?;
    }
    Flt::from_bytes(w.finish()?.into_inner(), "<requests>")
}

/// The run a kind opens its store for and reports on; a run fed one
/// request at a time reports no progress (its caller knows it).
fn run_of<'a>(
    universe: &'a Flt,
    policy: &'a PolicySpec,
    buffer_pages: usize,
    flush: bool,
    quiet: &'a mut dyn FnMut(u64) -> Result<()>,
) -> Run<'a> {
    Run {
        trace: universe,
        policy,
        buffer_pages,
        series_every: 0,
        flush_at_end: flush,
        probe: false,
        progress: quiet,
    }
}
