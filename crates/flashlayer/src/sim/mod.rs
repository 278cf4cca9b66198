//! Trace-driven simulation (`DESIGN.md` §1): requests in, a policy decides
//! hits and victims, a store prices misses and write-backs, metrics out.
//!
//! [`Simulator`] is generic over the policy and the store, so each
//! combination is monomorphised: the per-request path has no dynamic dispatch,
//! no hashing (pages are dense ids) and no allocation. [`run`] builds a
//! policy by name and replays an `flt` trace.

use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::policy::{Arc, Belady, Clock, Fifo, Lru, Policy, PolicyKind, PolicySpec, TwoQ};
use crate::store::{CostStore, PageStore};
use crate::trace::Flt;
use crate::types::{unpack, DenseId, IoKind, Metrics, Op, PageId, SeriesPoint};

/// How many requests ahead [`Simulator::run_bytes`] prefetches: far enough
/// to hide a load from the last-level cache or memory behind the requests
/// in between, near enough that the line is still there when needed.
const PREFETCH_DISTANCE: usize = 16;

/// Replays requests against a policy over a store.
#[derive(Debug)]
pub struct Simulator<P: Policy, S: PageStore> {
    policy: P,
    store: S,
    m: Metrics,
    series_every: u64,
    cluster: Vec<DenseId>,
    batch: Vec<PageId>,
}

impl<P: Policy, S: PageStore> Simulator<P, S> {
    /// A simulator with an empty buffer and no time series.
    pub fn new(policy: P, store: S) -> Self {
        Simulator {
            policy,
            store,
            m: Metrics::default(),
            series_every: 0,
            cluster: Vec::new(),
            batch: Vec::new(),
        }
    }

    /// Records a [`SeriesPoint`] every `n` requests (0, the default: never).
    pub fn with_series(mut self, n: u64) -> Self {
        self.series_every = n;
        self
    }

    /// The policy.
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Metrics so far (virtual time and end-of-run fields are filled by
    /// [`Simulator::finish`]).
    pub fn metrics(&self) -> &Metrics {
        &self.m
    }

    /// Serves one request; returns whether it hit. The store sees dense ids.
    #[inline]
    pub fn request(&mut self, page: DenseId, op: Op) -> Result<bool> {
        self.m.requests += 1;
        self.m.writes += u64::from(op.is_write());
        let hit = self.policy.access(page, op);
        if hit {
            self.m.hits += 1;
        } else {
            self.miss(page, op)?;
        }
        if self.series_every != 0 && self.m.requests % self.series_every == 0 {
            self.point();
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
                self.policy.prefetch(unpack(word(i + PREFETCH_DISTANCE)).0);
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

    fn miss(&mut self, page: DenseId, op: Op) -> Result<()> {
        self.m.misses += 1;
        if self.policy.len() >= self.policy.capacity() {
            let v = self.policy.evict(|_| true).ok_or_else(|| {
                Error::invalid(format!(
                    "{} found no victim in a full buffer",
                    self.policy.name()
                ))
            })?;
            if v.dirty {
                self.m.dirty_evictions += 1;
                self.write_back(v.page)?;
            }
        }
        self.store.read(PageId::from(page), &mut [])?;
        self.m.physical_reads += 1;
        let cost = self.store.cost_of(PageId::from(page));
        self.policy.observe_io(IoKind::Read, cost.read);
        self.policy.insert(page, op, cost);
        Ok(())
    }

    fn write_back(&mut self, victim: DenseId) -> Result<()> {
        self.cluster.clear();
        self.policy.cluster(victim, &mut self.cluster);
        if self.cluster.is_empty() {
            self.store.write(PageId::from(victim), &[])?;
            self.m.physical_writes += 1;
            let c = self.store.cost_of(PageId::from(victim)).write;
            self.policy.observe_io(IoKind::Write, c);
            return Ok(());
        }
        self.batch.clear();
        self.batch.push(PageId::from(victim));
        self.batch
            .extend(self.cluster.iter().map(|&p| PageId::from(p)));
        self.batch.sort_unstable();
        let pairs: Vec<(PageId, &[u8])> = self.batch.iter().map(|&p| (p, &[][..])).collect();
        self.store.write_batch(&pairs)?;
        self.m.physical_writes += pairs.len() as u64;
        for i in 0..self.cluster.len() {
            let p = self.cluster[i];
            let cost = self.store.cost_of(PageId::from(p));
            self.policy.mark_clean(p, cost);
        }
        Ok(())
    }

    fn point(&mut self) {
        self.m.series.push(SeriesPoint {
            requests: self.m.requests,
            hits: self.m.hits,
            physical_reads: self.m.physical_reads,
            physical_writes: self.m.physical_writes,
            virtual_time: self.store.stats().virtual_time,
        });
    }

    /// Ends the run. Dirty pages still buffered are not written; they are
    /// counted in `dirty_at_end`.
    pub fn finish(mut self) -> Metrics {
        let io = self.store.stats();
        self.m.reads = self.m.requests - self.m.writes;
        self.m.dirty_at_end = self.policy.dirty_count() as u64;
        self.m.virtual_time = io.virtual_time;
        self.m.erases = io.erases;
        self.m
    }

    /// Ends the run after writing every dirty page still buffered, each a
    /// single-page write in page order. They are counted in `dirty_at_end`
    /// and included in `physical_writes` and the virtual time. Dense ids in
    /// use are below `pages`.
    pub fn finish_flushed(mut self, pages: usize) -> Result<Metrics> {
        let dirty = self.policy.dirty_count();
        let mut left = dirty;
        for d in 0..pages as DenseId {
            if left == 0 {
                break;
            }
            if self.policy.is_dirty(d) {
                self.store.write(PageId::from(d), &[])?;
                self.m.physical_writes += 1;
                let cost = self.store.cost_of(PageId::from(d));
                self.policy.mark_clean(d, cost);
                left -= 1;
            }
        }
        let mut m = self.finish();
        m.dirty_at_end = dirty as u64;
        Ok(m)
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
    let store = CostStore::new(opts.device.clone());
    match spec.kind {
        PolicyKind::Lru => replay(
            Lru::new(cap).with_pages(pages),
            store,
            trace,
            opts,
            progress,
        ),
        PolicyKind::Fifo => replay(
            Fifo::new(cap).with_pages(pages),
            store,
            trace,
            opts,
            progress,
        ),
        PolicyKind::Clock => replay(
            Clock::new(cap).with_pages(pages),
            store,
            trace,
            opts,
            progress,
        ),
        PolicyKind::TwoQ => replay(
            TwoQ::new(cap).with_pages(pages),
            store,
            trace,
            opts,
            progress,
        ),
        PolicyKind::Arc => replay(
            Arc::new(cap).with_pages(pages),
            store,
            trace,
            opts,
            progress,
        ),
        PolicyKind::Belady => {
            let policy = Belady::from_bytes(cap, trace.request_bytes(), pages)?;
            replay(policy, store, trace, opts, progress)
        }
    }
}

fn replay<P: Policy, S: PageStore>(
    policy: P,
    store: S,
    trace: &Flt,
    opts: &RunOptions,
    progress: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<Metrics> {
    let mut sim = Simulator::new(policy, store).with_series(opts.series_every);
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
