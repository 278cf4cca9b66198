//! Trace-driven simulation (`DESIGN.md` §1): requests in, a policy decides
//! hits and victims, a store prices misses and write-backs, metrics out.
//!
//! [`Simulator`] is generic over the policy and the store, so each
//! combination is monomorphised: the per-request path has no dynamic dispatch,
//! no hashing (pages are dense ids) and no allocation. [`replay`] is the
//! one entry: any policy spec over any store spec ([`StoreSpec`]: a cost
//! model, a file, a flash store, a hybrid or a tier store) on an `flt`
//! trace, its store seeing the trace's original page numbers.

mod hybrid;
mod store;
mod tier;

pub use store::{
    replay, FlashOut, HybridOut, ReplayOptions, Replayed, StoreKind, StoreSpec, STORES,
};
pub use tier::TierOut;

use crate::bound::BoundOptions;
use crate::device::DeviceModel;
use crate::drive::{DenseNumbers, Driver, NoFrames, PageNumbers};
use crate::error::{Error, Result};
pub use crate::policy::{with_online_policy, WithPolicy};
use crate::policy::{Belady, CostOpt, Future, Policy, PolicyKind, PolicySpec, ScheduleCosts};
use crate::store::{CostStore, Naming, PageStore};
use crate::trace::Flt;
use crate::types::{unpack, DenseId, Metrics, Op};

/// How many requests ahead [`Simulator::run_bytes`] prefetches: far enough
/// to hide a load from the last-level cache or memory behind the requests
/// in between, near enough that the line is still there when needed.
const PREFETCH_DISTANCE: usize = 16;
/// Requests between the steps of hinting a store that places pages.
const STORE_STEP: usize = 8;

/// Replays requests against a policy over a store, through the calling
/// protocol of [`crate::drive`]. Stores see page numbers from `N` (the
/// trace's original numbers in [`replay`]; dense ids by default).
#[derive(Debug)]
pub struct Simulator<P: Policy, S: PageStore, N: PageNumbers = DenseNumbers> {
    d: Driver<P, S>,
    frames: NoFrames<N>,
    series_every: u64,
}

impl<P: Policy, S: PageStore> Simulator<P, S> {
    /// A simulator with an empty buffer and no time series, whose store sees
    /// dense ids as page numbers. Fails as [`Driver::new`] does.
    pub fn new(policy: P, store: S) -> Result<Self> {
        Self::with_numbers(policy, store, DenseNumbers)
    }
}

impl<P: Policy, S: PageStore, N: PageNumbers> Simulator<P, S, N> {
    /// A simulator whose store sees the page numbers `numbers` gives.
    pub fn with_numbers(policy: P, store: S, numbers: N) -> Result<Self> {
        Ok(Simulator {
            d: Driver::new(policy, store)?,
            frames: NoFrames::new(numbers),
            series_every: 0,
        })
    }

    /// Records a [`crate::types::SeriesPoint`] every `n` requests (0, the
    /// default: never).
    pub fn with_series(mut self, n: u64) -> Self {
        self.series_every = n;
        self
    }

    /// The policy.
    pub fn policy(&self) -> &P {
        self.d.policy()
    }

    /// The store.
    pub fn store(&self) -> &S {
        self.d.store()
    }

    /// The store, to change (administration between requests, such as a
    /// test's view of the bytes; pages move through the protocol only).
    pub fn store_mut(&mut self) -> &mut S {
        self.d.store_mut()
    }

    /// Metrics so far.
    pub fn metrics(&self) -> Metrics {
        self.d.metrics()
    }

    /// Serves one request; returns whether it hit.
    #[inline]
    pub fn request(&mut self, page: DenseId, op: Op) -> Result<bool> {
        self.d
            .request(page, op, &mut self.frames, self.series_every)
    }

    /// Serves the packed request words of `bytes` (little-endian `u32`s, as
    /// in an `flt` file), telling the policy a few requests ahead which
    /// pages come next ([`Policy::prefetch`]).
    pub fn run_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let (words, _) = bytes.as_chunks::<4>();
        let decode = |w: &[u8; 4]| unpack(u32::from_le_bytes(*w));
        let ahead = |i: usize| words.get(i).map(|w| decode(w).0);
        let placing = self.d.placing();
        let dense = self.d.naming() == Naming::Dense;
        for (i, w) in words.iter().enumerate() {
            if let Some(d) = ahead(i + PREFETCH_DISTANCE) {
                self.d.prefetch(d);
            }
            if placing && dense {
                // A store named by dense ids finds a page's state in one
                // step: hint it with the policy, and the next victim.
                if let Some(d) = ahead(i + PREFETCH_DISTANCE) {
                    self.d.prefetch_store(&self.frames, d, true);
                }
                if let Some(v) = self.d.victim_ahead(1) {
                    self.d.prefetch_store(&self.frames, v, true);
                }
            } else if placing {
                // A store that places pages looks each one up in three
                // dependent steps (its number, where the store keeps it,
                // its state): start each a few requests before the next.
                if let Some(d) = ahead(i + 3 * STORE_STEP) {
                    crate::drive::Frames::prefetch_number(&self.frames, d);
                }
                for (k, second) in [(2, false), (1, true)] {
                    if let Some(d) = ahead(i + k * STORE_STEP) {
                        self.d.prefetch_store(&self.frames, d, second);
                    }
                }
                // The coming victims too, the same three steps, one
                // eviction apart (the store hears of each eviction).
                if let Some(v) = self.d.victim_ahead(2) {
                    crate::drive::Frames::prefetch_number(&self.frames, v);
                }
                for (k, second) in [(1, false), (0, true)] {
                    if let Some(v) = self.d.victim_ahead(k) {
                        self.d.prefetch_store(&self.frames, v, second);
                    }
                }
            }
            let (p, op) = decode(w);
            self.request(p, op)?;
        }
        Ok(())
    }

    /// Serves every request of `trace` with [`Simulator::run_bytes`],
    /// calling `progress` with the requests served after each chunk of about
    /// a million; an error from it stops the run. A policy that groups pages
    /// by number learns every page's number first
    /// ([`Driver::learn_numbers`]).
    pub fn run_flt(
        &mut self,
        trace: &Flt,
        progress: &mut dyn FnMut(u64) -> Result<()>,
    ) -> Result<()> {
        self.d.learn_numbers(&self.frames, trace.pages());
        let mut done = 0u64;
        for chunk in trace.request_bytes().chunks(4 * CHUNK) {
            self.run_bytes(chunk)?;
            done += (chunk.len() / 4) as u64;
            progress(done)?;
        }
        Ok(())
    }

    /// Serves packed request words ([`crate::types::pack`]).
    pub fn run_words(&mut self, words: impl IntoIterator<Item = u32>) -> Result<()> {
        for w in words {
            let (p, op) = unpack(w);
            self.request(p, op)?;
        }
        Ok(())
    }

    /// Ends the run. Dirty pages still buffered are not written; they are
    /// counted in `dirty_at_end`.
    pub fn finish(self) -> Metrics {
        self.d.metrics()
    }

    /// A checkpoint: writes every dirty page buffered now in one batch in
    /// page-number order (neighbouring pages are priced as sequential
    /// writes); the pages stay buffered, clean. Dense ids in use are below
    /// `pages`. Returns how many pages were written.
    pub fn checkpoint(&mut self, pages: usize) -> Result<usize> {
        let dirty = self.d.policy().dirty_count();
        let mut list = Vec::with_capacity(dirty);
        for p in 0..pages as DenseId {
            if list.len() == dirty {
                break;
            }
            if self.d.policy().is_dirty(p) {
                list.push(p);
            }
        }
        self.d.write_dirty(&list, &mut self.frames)?;
        Ok(list.len())
    }

    /// Ends the run with a [`Simulator::checkpoint`]: the dirty pages left
    /// are written and counted in `dirty_at_end`, and included in
    /// `physical_writes` and the virtual time.
    pub fn finish_flushed(mut self, pages: usize) -> Result<Metrics> {
        self.flush_metrics(pages)
    }

    /// [`Simulator::finish_flushed`] keeping the simulator (to take its
    /// store back after).
    pub fn flush_metrics(&mut self, pages: usize) -> Result<Metrics> {
        let dirty = self.checkpoint(pages)?;
        let mut m = self.d.metrics();
        m.dirty_at_end = dirty as u64;
        Ok(m)
    }

    /// The policy and the store back.
    pub fn into_parts(self) -> (P, S) {
        self.d.into_parts()
    }
}

/// Options of a [`run`].
#[derive(Clone, Debug)]
pub(crate) struct RunOptions {
    /// Buffer size in pages (≥ 1).
    pub buffer_pages: usize,
    /// Device that prices I/O. Default in the CLI: `ratio:1:1`.
    pub device: DeviceModel,
    /// Time-series interval in requests (0: none).
    pub series_every: u64,
    /// Write the dirty pages left at the end ([`Simulator::finish_flushed`]).
    /// Default in the CLI: off.
    pub flush_at_end: bool,
}

/// Chunk of requests between progress callbacks.
const CHUNK: usize = 1 << 20;

/// Builds the policy `spec` names with `capacity` pages for `trace` (its
/// dense ids pre-sized; the offline policies read its future from it) and
/// calls `w`. `costs` are the one device's costs when the run has a single
/// device (costopt-ub plans its schedule for them; it is refused without).
pub fn with_policy<W: WithPolicy>(
    spec: &PolicySpec,
    capacity: usize,
    trace: &Flt,
    costs: Option<ScheduleCosts>,
    w: W,
) -> Result<W::Out> {
    match spec.kind {
        PolicyKind::Belady(()) => w.visit(Belady::from_bytes(
            capacity,
            trace.request_bytes(),
            trace.pages(),
        )?),
        PolicyKind::CostOptUb(iterations) => {
            let costs = costs.ok_or_else(|| {
                Error::invalid(
                    "costopt-ub plans its schedule for the read and write costs of one device, so \
                     it runs only in plain trace simulation (not on a file, on flash, on a hybrid \
                     store or in a tier)",
                )
            })?;
            let future = Future::from_bytes(trace.request_bytes(), trace.pages())?;
            let opts = BoundOptions {
                iterations,
                ..BoundOptions::default()
            };
            let plan = crate::bound::plan(&future, capacity, costs, &opts, &mut |_| Ok(()))?;
            w.visit(CostOpt::new(capacity, &future, &plan.schedule, costs)?)
        }
        _ => with_online_policy(spec, capacity, trace.pages(), w),
    }
}

/// The buffer size a run uses: a buffer that holds every page of the trace
/// never evicts, so any larger one decides exactly the same; policies that
/// allocate by capacity are sized by what the trace can use.
fn capacity(buffer_pages: usize, trace: &Flt) -> Result<usize> {
    if buffer_pages == 0 {
        return Err(Error::invalid("buffer size must be at least 1 page"));
    }
    Ok(buffer_pages.min(trace.pages().max(1)))
}

/// Replays `trace` with the named policy over a [`CostStore`]. `progress` is
/// called with the number of requests served after every chunk of about a
/// million requests; an error from it (e.g. [`Error::Cancelled`]) stops the
/// run and is returned.
pub(crate) fn run(
    trace: &Flt,
    spec: &PolicySpec,
    opts: &RunOptions,
    progress: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<Metrics> {
    let costs = ScheduleCosts::of(&opts.device, opts.flush_at_end);
    Job::new(trace, opts, progress).run(spec, opts.buffer_pages, Some(costs))
}

/// A replay of `trace` with options `O`, waiting for its policy: each kind
/// of options implements [`WithPolicy`] for it.
pub(crate) struct Job<'a, 'b, O> {
    trace: &'a Flt,
    opts: &'a O,
    progress: &'b mut dyn FnMut(u64) -> Result<()>,
}

impl<'a, 'b, O> Job<'a, 'b, O> {
    pub(crate) fn new(
        trace: &'a Flt,
        opts: &'a O,
        progress: &'b mut dyn FnMut(u64) -> Result<()>,
    ) -> Self {
        Job {
            trace,
            opts,
            progress,
        }
    }

    /// Builds the policy of `spec` for a buffer of `buffer_pages` (offline
    /// ones planned for `costs`) and runs the job with it.
    pub(crate) fn run(
        self,
        spec: &PolicySpec,
        buffer_pages: usize,
        costs: Option<ScheduleCosts>,
    ) -> Result<<Self as WithPolicy>::Out>
    where
        Self: WithPolicy,
    {
        let cap = capacity(buffer_pages, self.trace)?;
        let trace = self.trace;
        with_policy(spec, cap, trace, costs, self)
    }
}

impl WithPolicy for Job<'_, '_, RunOptions> {
    type Out = Metrics;
    fn visit<P: Policy>(self, policy: P) -> Result<Metrics> {
        let Job {
            trace,
            opts,
            progress,
        } = self;
        let store = CostStore::new(opts.device.clone());
        let mut sim = Simulator::with_numbers(policy, store, trace)?.with_series(opts.series_every);
        sim.run_flt(trace, progress)?;
        if opts.flush_at_end {
            sim.finish_flushed(trace.pages())
        } else {
            Ok(sim.finish())
        }
    }
}

/// Options of a replay through a buffer pool over a file.
#[derive(Clone, Debug)]
pub(crate) struct FileRunOptions {
    /// The database file (created if missing; its contents are overwritten
    /// page by page): the trace's pages packed in order of number.
    pub path: std::path::PathBuf,
    /// Page size in bytes. Default in Python: 4096.
    pub page_size: usize,
    /// Open with `O_DIRECT`, bypassing the page cache. Default: off.
    pub direct: bool,
    /// Device model pricing the I/O in virtual time (the measured latencies
    /// are what `cost=measured` policies see). Default: `ratio:1:1`.
    pub device: DeviceModel,
    /// Time-series interval in requests (0: none).
    pub series_every: u64,
}

/// Replays `trace` through a real [`crate::buffer::BufferPool`] over a
/// [`crate::store::FileStore`]: each `R` is a `fix_read`, each `W` a
/// `fix_write` that changes the page. Physical I/O hits the file and is
/// timed, so policies with `cost=measured` learn this machine's costs
/// (CASA §5.3). Ends with a flush. `progress` as in [`run`].
impl WithPolicy for Job<'_, '_, FileRunOptions> {
    type Out = Metrics;
    fn visit<P: Policy>(self, policy: P) -> Result<Metrics> {
        let Job {
            trace,
            opts,
            progress,
        } = self;
        // The trace's pages packed into the file in order of number: its
        // page numbers may be sparse (PostgreSQL's relfilenode in the high
        // bits), and neighbours stay neighbours for write clustering.
        let store = crate::store::FileStore::builder(&opts.path)
            .page_size(opts.page_size)
            .direct(opts.direct)
            .device(opts.device.clone())
            .pages((0..trace.pages()).map(|d| trace.original(d as DenseId)))
            .open()?;
        let pool = crate::buffer::BufferPool::new(policy, store)?.with_series(opts.series_every);
        on_pool(
            &pool,
            trace,
            |d| trace.original(d),
            progress,
            |_, page| {
                if let Some(g) = page {
                    g[0] = g[0].wrapping_add(1);
                }
                Ok(())
            },
        )?;
        Ok(pool.metrics())
    }
}

/// Replays `trace` on `pool`, page numbers from `number`: each `R` is a
/// `fix_read`, each `W` a `fix_write` whose page `modify` changes
/// (`modify(i, Some(page))`; for a read, `modify(i, None)`, so it sees
/// every request in order). `progress` as in [`run`]. Ends with a flush.
fn on_pool<P: Policy, S: crate::store::PageStore>(
    pool: &crate::buffer::BufferPool<P, S>,
    trace: &Flt,
    number: impl Fn(DenseId) -> crate::types::PageId,
    progress: &mut dyn FnMut(u64) -> Result<()>,
    mut modify: impl FnMut(usize, Option<&mut [u8]>) -> Result<()>,
) -> Result<()> {
    for (i, (d, op)) in trace.requests().enumerate() {
        let page = number(d);
        if op.is_write() {
            let mut g = pool.fix_write(page)?;
            modify(i, Some(&mut g[..]))?;
        } else {
            drop(pool.fix_read(page)?);
            modify(i, None)?;
        }
        if (i + 1) % CHUNK == 0 {
            progress(i as u64 + 1)?;
        }
    }
    progress(trace.len() as u64)?;
    pool.flush()
}

/// Options of a replay through a buffer pool over a flash store.
#[derive(Clone, Debug)]
pub(crate) struct FlashRunOptions {
    /// The page update method (`flash::Method::parse("pdl:256")`).
    pub method: crate::flash::Method,
    /// Obsolete marks in memory (OPU, PDL). Default: off.
    pub obsolete_in_memory: bool,
    /// On a trace without byte ranges, the bytes at the start of the page
    /// each write changes ([`replay`](crate::sim::replay) requires it there).
    pub changed: usize,
    /// Time-series interval in requests (0: none).
    pub series_every: u64,
}

/// What a replay over a flash store did: the pool's metrics and the chip's.
#[derive(Clone, Debug)]
pub(crate) struct FlashRun {
    /// Hits, misses and the pool's physical I/O.
    pub metrics: Metrics,
    /// The chip's operations and virtual time.
    pub chip: crate::nand::ChipStats,
    /// The method's own counters.
    pub flash: crate::flash::FlashStats,
}

/// Bytes per page of the chip a flash store of [`replay`] is built on (PDL
/// Table 1).
pub const FLASH_PAGE: usize = 2048;

/// Replays `trace` through a real [`crate::buffer::BufferPool`] over a
/// [`crate::flash::FlashStore`] on an in-memory chip of PDL Table 1's
/// geometry (2,048 + 64-byte pages, 64 a block, 16 partial programs a page
/// for IPL's sectors) twice the trace's pages, with one logical page per
/// page of the trace. Each `R` is a `fix_read`; each `W` a `fix_write`
/// that changes the bytes the trace's byte-range section says it changed
/// (on a trace without one, the page's first `changed` bytes), so the pool
/// hands those ranges to the store at write-back and a differential or a
/// log holds just them. Ends with a flush.
impl WithPolicy for Job<'_, '_, FlashRunOptions> {
    type Out = FlashRun;
    fn visit<P: Policy>(self, policy: P) -> Result<FlashRun> {
        let Job {
            trace,
            opts,
            progress,
        } = self;
        let pages = u32::try_from(trace.pages())
            .map_err(|_| Error::invalid("too many pages for a flash chip"))?;
        // Twice the pages (the PDL paper's 1 GB relation on a 2 GB chip),
        // and a few blocks more so that small traces keep collection room.
        let blocks = (2 * pages).div_ceil(64) + 4;
        let chip = crate::nand::Chip::builder(blocks)
            .data_programs(16)
            .build()?;
        let store = crate::flash::FlashStoreBuilder::new(opts.method)
            .logical_pages(pages)
            .obsolete_in_memory(opts.obsolete_in_memory)
            .create(chip)?;
        let pool = crate::buffer::BufferPool::new(policy, store)?.with_series(opts.series_every);
        let section = trace.byte_section();
        let (mut pos, mut ranges) = (0usize, Vec::new());
        on_pool(&pool, trace, u64::from, progress, |i, page| {
            if let Some(sec) = section {
                pos = crate::trace::flt::decode_ranges(sec, pos, &mut ranges)
                    .expect("validated when opened");
            }
            let Some(g) = page else { return Ok(()) };
            // Every byte a write is said to change does change: one more
            // than it held.
            if section.is_none() {
                for b in &mut g[..opts.changed] {
                    *b = b.wrapping_add(1);
                }
            }
            for r in &ranges {
                let (at, len) = (usize::from(r.offset), usize::from(r.len));
                if at + len > FLASH_PAGE {
                    return Err(Error::invalid(format!(
                        "request {}: byte range {at}+{len} is beyond the flash chip's \
                         {FLASH_PAGE}-byte pages",
                        i + 1
                    )));
                }
                for b in &mut g[at..at + len] {
                    *b = b.wrapping_add(1);
                }
            }
            Ok(())
        })?;
        let mut metrics = pool.metrics();
        let mut store = pool.close()?;
        let chip = store.chip().stats();
        // The store's time is its chip's: every read, program and erase,
        // collection included, where the pool prices only its own I/O.
        metrics.virtual_time = chip.time_us;
        Ok(FlashRun {
            metrics,
            chip,
            flash: store.flash_stats(),
        })
    }
}
