//! The trace simulator: a policy over a store through the calling protocol,
//! request by request, with the next requests' pages hinted ahead; and the
//! build of a policy from its spec for a trace (the offline ones read its
//! future).

use crate::bound::BoundOptions;
use crate::drive::{DenseNumbers, Driver, NoFrames, PageNumbers};
use crate::error::{Error, Result};
use crate::policy::{with_online_policy, WithPolicy};
use crate::policy::{Belady, CostOpt, Future, Policy, PolicyKind, PolicySpec, ScheduleCosts};
use crate::store::{Naming, PageStore};
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
/// trace's original numbers in [`super::replay`]; dense ids by default).
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

    /// The page numbers, to extend as new pages arrive (a replay fed one
    /// request at a time, [`super::Live`]).
    pub fn numbers_mut(&mut self) -> &mut N {
        self.frames.numbers_mut()
    }

    /// Tells a policy that groups pages by number the numbers of dense ids
    /// `0..pages` ([`Simulator::run_flt`] does this first).
    pub fn learn_numbers(&mut self, pages: usize) {
        self.d.learn_numbers(&self.frames, pages);
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
        self.learn_numbers(trace.pages());
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
        self.d.checkpoint(pages, &mut self.frames)
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

/// Chunk of requests between progress callbacks.
pub(super) const CHUNK: usize = 1 << 20;

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
                    "costopt-ub plans its schedule for the read and write costs of one device that \
                     writes one page at a time, so it runs only in plain trace simulation on such a \
                     device (not with k > 1, on a file, on flash, on a hybrid store or in a tier)",
                )
            })?;
            let future = Future::from_bytes(trace.request_bytes(), trace.pages())?;
            let opts = BoundOptions {
                iterations,
                ..BoundOptions::default()
            };
            let plan = crate::bound::plan(&future, trace, capacity, costs, &opts, &mut |_| Ok(()))?;
            w.visit(CostOpt::new(capacity, &future, &plan.schedule, costs)?)
        }
        _ => with_online_policy(spec, capacity, trace.pages(), w),
    }
}

/// The buffer size a run uses: a buffer that holds every page of the trace
/// never evicts, so any larger one decides exactly the same; policies that
/// allocate by capacity are sized by what the trace can use.
pub(super) fn capacity(buffer_pages: usize, trace: &Flt) -> Result<usize> {
    if buffer_pages == 0 {
        return Err(Error::invalid("buffer size must be at least 1 page"));
    }
    Ok(buffer_pages.min(trace.pages().max(1)))
}
