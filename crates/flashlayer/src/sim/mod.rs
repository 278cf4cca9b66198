//! Trace-driven simulation (`DESIGN.md` §1): requests in, a policy decides
//! hits and victims, a store prices misses and write-backs, metrics out.
//!
//! [`Simulator`] is generic over the policy and the store, so each
//! combination is monomorphised: the per-request path has no dynamic dispatch,
//! no hashing (pages are dense ids) and no allocation. [`run`] builds a
//! policy by name and replays an `flt` trace; its store sees the trace's
//! original page numbers.

use crate::device::DeviceModel;
use crate::drive::{DenseNumbers, Driver, NoFrames, PageNumbers};
use crate::error::{Error, Result};
use crate::policy::{
    Arc, Belady, Casa, CcfLru, Cflru, Clock, Fifo, Lru, LruWsr, Policy, PolicyKind, PolicySpec,
    TwoQ,
};
use crate::store::{CostStore, PageStore};
use crate::trace::Flt;
use crate::types::{unpack, DenseId, Metrics, Op};

/// How many requests ahead [`Simulator::run_bytes`] prefetches: far enough
/// to hide a load from the last-level cache or memory behind the requests
/// in between, near enough that the line is still there when needed.
const PREFETCH_DISTANCE: usize = 16;

/// Replays requests against a policy over a store, through the calling
/// protocol of [`crate::drive`]. Stores see page numbers from `N` (the
/// trace's original numbers in [`run`]; dense ids by default).
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

    /// Metrics so far.
    pub fn metrics(&self) -> Metrics {
        self.d.metrics()
    }

    /// Serves one request; returns whether it hit.
    #[inline]
    pub fn request(&mut self, page: DenseId, op: Op) -> Result<bool> {
        self.d.count(op);
        let hit = self.d.access(page, op);
        if !hit {
            self.d.miss(page, op, &mut self.frames, |_| true)?;
        }
        if self.series_every != 0 && self.d.requests() % self.series_every == 0 {
            self.d.sample();
        }
        Ok(hit)
    }

    /// Serves the packed request words of `bytes` (little-endian `u32`s, as
    /// in an `flt` file), telling the policy a few requests ahead which
    /// pages come next ([`Policy::prefetch`]).
    pub fn run_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let words = bytes.len() / 4;
        let word = |i: usize| {
            let b = &bytes[4 * i..4 * i + 4];
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        };
        for i in 0..words {
            if i + PREFETCH_DISTANCE < words {
                self.d.prefetch(unpack(word(i + PREFETCH_DISTANCE)).0);
            }
            let (p, op) = unpack(word(i));
            self.request(p, op)?;
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
pub struct RunOptions {
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

/// Replays `trace` with the named policy over a [`CostStore`]. `progress` is
/// called with the number of requests served after every chunk of about a
/// million requests; an error from it (e.g. [`Error::Cancelled`]) stops the
/// run and is returned.
pub fn run(
    trace: &Flt,
    spec: &PolicySpec,
    opts: &RunOptions,
    progress: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<Metrics> {
    if opts.buffer_pages == 0 {
        return Err(Error::invalid("buffer size must be at least 1 page"));
    }
    let pages = trace.pages();
    // A buffer that holds every page of the trace never evicts, so any
    // larger one decides exactly the same; policies that allocate by
    // capacity are sized by what the trace can use.
    let cap = opts.buffer_pages.min(pages.max(1));
    match spec.kind {
        PolicyKind::Lru => replay(Lru::new(cap).with_pages(pages), trace, opts, progress),
        PolicyKind::Fifo => replay(Fifo::new(cap).with_pages(pages), trace, opts, progress),
        PolicyKind::Clock => replay(Clock::new(cap).with_pages(pages), trace, opts, progress),
        PolicyKind::TwoQ => replay(TwoQ::new(cap).with_pages(pages), trace, opts, progress),
        PolicyKind::Arc => replay(Arc::new(cap).with_pages(pages), trace, opts, progress),
        PolicyKind::Belady => {
            let policy = Belady::from_bytes(cap, trace.request_bytes(), pages)?;
            replay(policy, trace, opts, progress)
        }
        PolicyKind::Cflru { w } => {
            replay(Cflru::new(cap, w).with_pages(pages), trace, opts, progress)
        }
        PolicyKind::LruWsr => replay(LruWsr::new(cap).with_pages(pages), trace, opts, progress),
        PolicyKind::CcfLru => replay(CcfLru::new(cap).with_pages(pages), trace, opts, progress),
        PolicyKind::Casa { cost } => replay(
            Casa::new(cap, cost).with_pages(pages),
            trace,
            opts,
            progress,
        ),
    }
}

fn replay<P: Policy>(
    policy: P,
    trace: &Flt,
    opts: &RunOptions,
    progress: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<Metrics> {
    let store = CostStore::new(opts.device.clone());
    let mut sim = Simulator::with_numbers(policy, store, trace)?.with_series(opts.series_every);
    let mut done = 0u64;
    for chunk in trace.request_bytes().chunks(4 * CHUNK) {
        sim.run_bytes(chunk)?;
        done += (chunk.len() / 4) as u64;
        progress(done)?;
    }
    if opts.flush_at_end {
        sim.finish_flushed(trace.pages())
    } else {
        Ok(sim.finish())
    }
}
