//! The policy calling protocol, implemented once (`DESIGN.md` §1 rule 1):
//! announce a request, read a missing page, evict, write back (with write
//! clustering), tell the policy what the I/O cost, admit, and write dirty
//! pages at a checkpoint. The trace simulator ([`crate::sim::Simulator`])
//! and the buffer pool ([`crate::buffer::BufferPool`]) both drive their
//! policy and store through a [`Driver`], so a policy decides the same in
//! either, request by request and victim by victim.
//!
//! A caller that serves a request whole — the simulator, the tier's data
//! path, the cost-optimal bound's planner — makes one call,
//! [`Driver::request`]. The buffer pool serves a request in phases, since a
//! page stays fixed between them and its I/O runs outside the pool's lock:
//! a hit told later ([`Driver::hit_served`]), a miss ([`Driver::miss`], or
//! [`Driver::place`] when the I/O ran outside the lock), and the end of the
//! fix ([`Driver::unfixed`]); each phase takes its steps in the protocol's
//! order here.
//!
//! What differs between callers is only how page bytes move ([`Frames`]):
//! the simulator moves none, the pool copies frames; and which pages may be
//! evicted (the pool passes "not pinned").
//!
//! Stores always see page numbers as the trace or the user named them
//! ([`Frames::number`]), so a batch of neighbouring pages is priced
//! sequentially; policies see dense ids.

use crate::error::{Error, Result};
use crate::policy::{Policy, Victim};
use crate::store::{Loaded, Naming, PageStore};
use crate::types::{DenseId, IoKind, Metrics, Op, PageId, SeriesPoint};
use std::panic::{self, AssertUnwindSafe};

mod admit;
mod ahead;
mod checkpoint;
mod frames;
mod numbers;
mod tally;

use ahead::ReadAhead;

use frames::Scope;
pub use frames::{Frames, Gate, NoFrames};
pub use numbers::{DenseNumbers, PageNumbers};
pub use tally::Tally;

/// The outcome of [`Driver::place`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placed {
    /// The page is admitted, into the frame of this victim if there is one.
    Admitted(Option<DenseId>),
    /// The policy's victim must be written before it leaves: it is back in
    /// the policy as it was ([`Policy::reinstate`]), and the pages to write
    /// with it are in the caller's list.
    WriteFirst(Victim),
}

/// Pages a caller wrote for [`Placed::WriteFirst`] before calling
/// [`Driver::place`] again.
#[derive(Debug)]
pub struct Written<'a> {
    /// The victim that was written.
    pub victim: DenseId,
    /// The pages clustered with it, in the policy's order.
    pub cluster: &'a [DenseId],
    /// The whole write, `(name, page)` sorted by name as the store saw it.
    pub batch: &'a [(PageId, DenseId)],
    /// Per page of `batch`: nobody modified it since it was copied for the
    /// write, so the store holds it as it is now.
    pub unchanged: &'a [bool],
}

impl Written<'_> {
    fn unchanged(&self, page: DenseId) -> bool {
        self.batch
            .iter()
            .position(|&(_, p)| p == page)
            .is_some_and(|i| self.unchanged[i])
    }
}

/// How a buffer pool's fix ends ([`Driver::unfixed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unfix {
    /// The fix found the page in its frame: the policy hears the request
    /// now.
    Hit,
    /// The fix loaded the page announced as written, and the page was
    /// modified (a flush while it was held may have cleaned it).
    Modified,
    /// The fix loaded the page announced as written, and nobody modified
    /// it: it is clean after all.
    Unmodified,
    /// The fix loaded the page; the policy heard all there is at the miss.
    Admitted,
}

/// A policy and a store, driven through the calling protocol, with the
/// counts of what happened.
#[derive(Debug)]
pub struct Driver<P: Policy, S: PageStore> {
    policy: P,
    store: S,
    m: Metrics,
    cluster: Vec<DenseId>,
    batch: Vec<(PageId, DenseId)>,
    moved: Vec<PageId>,
    /// Pages that left with the last miss's victim ([`Driver::left`]).
    left: Vec<DenseId>,
    /// What reading pages ahead of requests keeps ([`Policy::read_ahead`]).
    ahead: ReadAhead,
    /// The store hears of every request ([`crate::store::Listens::accesses`]).
    accesses: bool,
    /// ... and whether it is for the policy's next victim.
    next_victim: bool,
    /// The store hears of evictions and admissions
    /// ([`crate::store::Listens::evictions`]).
    placing: bool,
    /// Pages `0..taught` were offered to the policy's
    /// [`Policy::learn_number`] already ([`Driver::learn_numbers`]): a miss
    /// on one need not ask [`Policy::wants_number`] again.
    taught: DenseId,
}

impl<P: Policy, S: PageStore> Driver<P, S> {
    /// Drives `policy` over `store`. Fails if the policy learns its costs
    /// from measured latencies and the store measures none.
    pub fn new(policy: P, store: S) -> Result<Self> {
        if policy.needs_measured_io() && !store.measures_latency() {
            return Err(Error::invalid(format!(
                "{} learns its costs from measured I/O latencies (cost=measured), but this \
                 store measures none (a simulation only prices I/O); use cost=model, or a \
                 file store",
                policy.name()
            )));
        }
        let listens = store.listens();
        if policy.read_ahead() > 0 && (listens.evictions || listens.accesses) {
            return Err(Error::invalid(format!(
                "{} reads pages ahead of requests, but this store hears of each request and \
                 eviction itself; use pf=off",
                policy.name()
            )));
        }
        if policy.leaving() > 0 && listens.evictions {
            return Err(Error::invalid(format!(
                "{} evicts written pages beside its victim, but this store places each evicted \
                 page itself and hears of one eviction per miss; use ne=1",
                policy.name()
            )));
        }
        Ok(Driver {
            m: Metrics::default(),
            cluster: Vec::new(),
            batch: Vec::new(),
            moved: Vec::new(),
            left: Vec::new(),
            ahead: ReadAhead::default(),
            accesses: listens.accesses,
            next_victim: listens.next_victim,
            placing: listens.evictions,
            taught: 0,
            policy,
            store,
        })
    }

    /// The policy.
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The store, to change (administration between runs, such as a
    /// hybrid store's accounting; pages move through the protocol only).
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    /// One request in the protocol's order, for a caller that serves it
    /// whole (the simulator, the tier's data path): counted, announced to
    /// the policy ([`Driver::access`]), on a miss read with its victim
    /// evicted and written back ([`Driver::miss`], every resident page
    /// evictable), then a point of the time series if one is due every
    /// `series_every` requests (0: never). `true` on a hit. The buffer pool
    /// takes the same steps apart, since its hits reach the policy without
    /// its lock ([`crate::buffer`]).
    ///
    /// A request whose policy fails ([`Policy::may_fail`]: it unwinds, or
    /// the store fails it) moves no counter; other policies' checks cost
    /// nothing here, the test being a constant for a policy known at
    /// compile time.
    #[inline]
    pub fn request<F: Frames>(
        &mut self,
        page: DenseId,
        op: Op,
        frames: &mut F,
        series_every: u64,
    ) -> Result<bool> {
        if self.policy.may_fail() {
            return self.undoing(|d| d.serve(page, op, frames, series_every));
        }
        self.serve(page, op, frames, series_every)
    }

    /// [`Driver::request`]'s steps.
    #[inline]
    fn serve<F: Frames>(
        &mut self,
        page: DenseId,
        op: Op,
        frames: &mut F,
        series_every: u64,
    ) -> Result<bool> {
        self.count(op);
        let hit = {
            let frames = &*frames;
            self.access(page, op, || frames.number(page))
        };
        if !hit {
            self.miss(page, op, frames, |_| true)?;
        }
        self.sample_every(series_every);
        Ok(hit)
    }

    /// Runs `step` on the driver, putting its counters back if the step
    /// fails or unwinds ([`Driver::request`] for a policy that may fail).
    #[inline(never)]
    fn undoing<T>(&mut self, step: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let before = self.tally();
        match panic::catch_unwind(AssertUnwindSafe(|| step(&mut *self))) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => {
                self.restore(before);
                Err(e)
            }
            Err(p) => {
                self.restore(before);
                panic::resume_unwind(p)
            }
        }
    }

    /// A hit the buffer pool served without its lock, told to the policy
    /// later in the order of the hits: counted and announced as a read.
    #[inline]
    pub fn hit_served(&mut self, page: DenseId, number: PageId) {
        self.count(Op::Read);
        self.access(page, Op::Read, || number);
    }

    /// The end of a buffer pool's fix (its unfix), in the protocol's order:
    /// the request counted, what the policy must hear of it by `how`, then
    /// a point of the time series if one is due every `series_every`
    /// requests (0: never).
    #[inline]
    pub fn unfixed(
        &mut self,
        page: DenseId,
        number: PageId,
        op: Op,
        how: Unfix,
        series_every: u64,
    ) {
        let told = panic::catch_unwind(AssertUnwindSafe(|| match how {
            Unfix::Hit => {
                self.access(page, op, || number);
            }
            Unfix::Modified => self.mark_dirty(page),
            Unfix::Unmodified => self.unmodified(page, number),
            Unfix::Admitted => {}
        }));
        if let Err(p) = told {
            // A policy that unwound on a modifying hit forgot nothing but
            // the hit: the page was modified, so it is dirty all the same
            // (a second failure of the policy's changes nothing more).
            if how == Unfix::Hit && op.is_write() {
                let _ = panic::catch_unwind(AssertUnwindSafe(|| self.mark_dirty(page)));
            }
            panic::resume_unwind(p);
        }
        self.count(op);
        self.sample_every(series_every);
    }

    /// A point of the time series if one is due every `series_every`
    /// requests (0: never).
    #[inline]
    fn sample_every(&mut self, series_every: u64) {
        if series_every != 0 && self.requests().is_multiple_of(series_every) {
            self.sample();
        }
    }

    /// Counts one logical request (the simulator per request, the buffer
    /// pool per unfix).
    #[inline]
    pub fn count(&mut self, op: Op) {
        self.m.requests += 1;
        self.m.writes += u64::from(op.is_write());
    }

    /// Step 1: announces a request to the policy; `true` on a hit. A store
    /// that listens for accesses hears of it too, with the page's number
    /// (asked of `number` only then) and, if it asks, whether the page is
    /// the policy's next victim (asked before the policy hears the request).
    #[inline]
    pub fn access(&mut self, page: DenseId, op: Op, number: impl FnOnce() -> PageId) -> bool {
        let at_victim = self.next_victim && self.policy.victim_ahead(0) == Some(page);
        let hit = self.policy.access(page, op);
        self.m.hits += u64::from(hit);
        self.m.read_ahead_used += u64::from(self.ahead.requested(page, hit));
        if self.accesses {
            let number = match self.store.naming() {
                Naming::Dense => PageId::from(page),
                _ => number(),
            };
            self.store.accessed(number, op, at_victim);
        }
        hit
    }

    /// A hint that `page` comes soon ([`Policy::prefetch`]).
    #[inline]
    pub fn prefetch(&self, page: DenseId) {
        self.policy.prefetch(page);
    }

    /// Whether the store hears of evictions
    /// ([`crate::store::Listens::evictions`]), keeping per-page state that
    /// callers who know requests ahead hint it to load.
    #[inline]
    pub fn placing(&self) -> bool {
        self.placing
    }

    /// How the store names pages ([`PageStore::naming`]).
    #[inline]
    pub fn naming(&self) -> Naming {
        self.store.naming()
    }

    /// The page the `k`-th eviction from now would take, if the policy
    /// knows ([`Policy::victim_ahead`]).
    #[inline]
    pub fn victim_ahead(&self, k: usize) -> Option<DenseId> {
        self.policy.victim_ahead(k)
    }

    /// Hints the store, a step of two ([`PageStore::prefetch_index`], then
    /// [`PageStore::prefetch_state`]), that `page` comes soon.
    #[inline(always)]
    pub fn prefetch_store<F: Frames>(&self, frames: &F, page: DenseId, second: bool) {
        let number = self.number(frames, page);
        if second {
            self.store.prefetch_state(number);
        } else {
            self.store.prefetch_index(number);
        }
    }

    /// Steps 2–4 for a miss that [`Driver::access`] announced: loads the
    /// page into [`Frames::incoming`] ([`PageStore::load`]), evicts if the
    /// buffer is full (writing a dirty victim back with the pages the policy
    /// clusters with it), and admits the page. Returns the victim, whose
    /// frame the caller reuses. A request the store served itself
    /// ([`Loaded::Served`]) is a miss that admits nothing and evicts nothing.
    ///
    /// A failed read changes nothing; a failed write-back reinstates the
    /// victim ([`Policy::reinstate`]), so a retry decides as if the failure
    /// never happened, and a page the store gave up to the buffer (it
    /// entered dirty) is written back to it. Pages written with the victim
    /// that leave with it ([`Policy::leaving`]) are in [`Driver::left`]
    /// until the next miss; a caller with frames frees theirs, as they do
    /// those of the pages evicted to make room for reading ahead.
    ///
    /// A dirty victim's miss reads pages ahead ([`Policy::read_ahead`]).
    /// If that read fails, nothing read ahead is admitted and the miss
    /// succeeds: no request asked for those pages, and a request for one
    /// reads it itself and gets the store's error, as with an operating
    /// system's read-ahead.
    #[inline]
    pub fn miss<F: Frames>(
        &mut self,
        page: DenseId,
        op: Op,
        frames: &mut F,
        mut gate: impl Gate,
    ) -> Result<Option<DenseId>> {
        self.left.clear();
        let number = self.number(frames, page);
        let loaded = self.store.load(number, op, frames.incoming())?;
        self.m.physical_reads += 1;
        let cost = self.store.cost_of(number);
        self.observe(IoKind::Read, cost.read);
        let dirty = match loaded {
            Loaded::Page { dirty } => dirty,
            Loaded::Served => {
                self.m.misses += 1;
                return Ok(None);
            }
        };
        let victim = if self.policy.len() >= self.policy.capacity() {
            Some(loop {
                let v = self.choose(&mut gate)?;
                if gate.claim(v.page) {
                    break v;
                }
                self.policy.reinstate(v);
            })
        } else {
            None
        };
        // Whatever fails or panics from here on, the claimed victim goes
        // back into the policy as it was (dirty if it was, though written)
        // and its frame stays its own: a retry decides as if the failure
        // never happened.
        let done = panic::catch_unwind(AssertUnwindSafe(|| {
            self.evict_and_admit(page, op, number, dirty, cost, victim, frames, &mut gate)
        }));
        let failed = match done {
            Ok(Ok(())) => return Ok(victim.map(|v| v.page)),
            Ok(Err(e)) => Ok(e),
            Err(p) => Err(p),
        };
        if let Some(v) = victim {
            self.policy.reinstate(v);
            gate.release(v.page);
        }
        // A page that entered dirty was given up by the store (HyPro moves
        // a dirty page up from its SSD): not admitted, it goes back down
        // as a flush writes a page, or the write's own failure is the one
        // returned.
        let handed_back = if dirty {
            self.store.write(number, frames.incoming())
        } else {
            Ok(())
        };
        match (failed, handed_back) {
            (Err(p), _) => panic::resume_unwind(p),
            (Ok(_), Err(lost)) => Err(lost),
            (Ok(e), Ok(())) => Err(e),
        }
    }

    /// Whether the store hears of requests, evictions or admissions
    /// ([`PageStore::listens`]): its decisions then follow the order of
    /// misses, so a caller runs each miss whole ([`Driver::miss`]).
    pub fn listening(&self) -> bool {
        self.accesses || self.placing
    }

    /// Step 2 for a caller that read a missing page itself, outside its
    /// lock ([`Driver::place`]): counts the read and tells the policy its
    /// cost. Called once per miss, after [`Driver::access`] announced it.
    pub fn loaded<F: Frames>(&mut self, frames: &F, page: DenseId) {
        self.m.physical_reads += 1;
        let cost = self.store.cost_of(self.number(frames, page));
        self.observe(IoKind::Read, cost.read);
    }

    /// Steps 3–4 of a miss, for a caller that writes a dirty victim outside
    /// its lock (the buffer pool): the page was read ([`Driver::loaded`])
    /// and enters with `op` (`W` if the store said it enters dirty). If the
    /// buffer is full the policy evicts;
    /// a victim that must be written first is reinstated and returned as
    /// [`Placed::WriteFirst`], with `out` holding it and the pages it
    /// clusters, victim first. The caller writes them, announces the
    /// request again ([`Driver::access`]) and calls again with what it
    /// wrote: the policy, as it was, evicts the same victim (the contract's
    /// retry guarantee), now written, and the page is admitted — the same
    /// decisions as [`Driver::miss`] makes. If other requests reached the
    /// policy meanwhile it may evict another page; the written pages that
    /// nobody modified since are then marked clean. After a dirty victim,
    /// a policy that reads ahead ([`Policy::read_ahead`]) has more clean
    /// victims evicted (in [`Driver::left`]) and the pages to read ahead
    /// planned ([`Driver::planned`]), as [`Driver::miss`] does; the caller
    /// reads them and admits each that still has room
    /// ([`Driver::admit_ahead`]). For stores that do not listen
    /// ([`Driver::listening`]).
    pub fn place<F: Frames>(
        &mut self,
        page: DenseId,
        op: Op,
        frames: &mut F,
        mut gate: impl Gate,
        written: Option<Written<'_>>,
        out: &mut Vec<DenseId>,
    ) -> Result<Placed> {
        debug_assert!(!self.listening(), "a listening store runs whole misses");
        self.left.clear();
        let mut ahead = 0;
        let mut accounted = false;
        if self.policy.len() >= self.policy.capacity() {
            let v = loop {
                let v = self.choose(&mut gate)?;
                let done = written
                    .as_ref()
                    .is_some_and(|w| w.victim == v.page && w.unchanged(v.page));
                if v.dirty && !done {
                    self.cluster.clear();
                    let mut scope = Scope {
                        frames: &*frames,
                        evictable: &mut gate,
                    };
                    self.policy.cluster(v.page, &mut scope, &mut self.cluster);
                    self.policy.reinstate(v);
                    // Only after the undo: it must follow the eviction.
                    if let Some(w) = written.as_ref().filter(|_| !accounted) {
                        self.account(frames, w, DenseId::MAX);
                    }
                    out.clear();
                    out.push(v.page);
                    out.extend_from_slice(&self.cluster);
                    return Ok(Placed::WriteFirst(v));
                }
                if gate.claim(v.page) {
                    break v;
                }
                self.policy.reinstate(v);
                if let Some(w) = written.as_ref().filter(|_| !accounted) {
                    // The written pages are clean whichever page leaves.
                    self.account(frames, w, DenseId::MAX);
                    accounted = true;
                }
            };
            // As in `miss`: a panic from here on (the policy's, say) puts
            // the claimed victim back as it was, its frame its own.
            let done = panic::catch_unwind(AssertUnwindSafe(|| {
                if let Some(w) = written.as_ref().filter(|_| !accounted) {
                    self.account(frames, w, v.page);
                    if w.victim == v.page {
                        self.leave(w.cluster, &mut gate);
                    }
                }
                self.m.dirty_evictions += u64::from(v.dirty);
                if v.dirty {
                    ahead = self.policy.read_ahead();
                    self.make_room(ahead, &mut gate);
                }
                self.admit(page, op, ahead, frames);
            }));
            if let Err(p) = done {
                self.policy.reinstate(v);
                gate.release(v.page);
                panic::resume_unwind(p);
            }
            return Ok(Placed::Admitted(Some(v.page)));
        } else if let Some(w) = &written {
            self.account(frames, w, DenseId::MAX);
        }
        self.admit(page, op, ahead, frames);
        Ok(Placed::Admitted(None))
    }

    /// The policy's victim among the pages `gate` lets go; a full buffer
    /// whose every page is held is [`Error::AllPinned`].
    #[inline]
    fn choose(&mut self, gate: &mut impl Gate) -> Result<Victim> {
        self.policy
            .evict(|p| gate.evictable(p))
            .ok_or_else(|| Error::AllPinned(self.policy.capacity()))
    }

    /// Counts a write the caller did for [`Placed::WriteFirst`], as
    /// [`Driver::miss`] counts its write-back, and marks clean the written
    /// pages other than `evicted` that are resident and unchanged (in the
    /// policy's cluster order; the victim last, if it stayed).
    fn account<F: Frames>(&mut self, frames: &F, w: &Written<'_>, evicted: DenseId) {
        self.m.physical_writes += w.batch.len() as u64;
        if let [(_, page)] = w.batch {
            let model = self.store.cost_of(self.number(frames, *page)).write;
            self.observe(IoKind::Write, model);
        } else {
            for &(name, _) in w.batch {
                let model = self.store.cost_of(name).write;
                self.observe(IoKind::Write, model);
            }
        }
        let pages = w.cluster.iter().chain(std::iter::once(&w.victim));
        for &p in pages {
            if p != evicted && self.policy.contains(p) && w.unchanged(p) {
                let cost = self.store.cost_of(self.number(frames, p));
                self.policy.mark_clean(p, cost);
            }
        }
    }

    /// Tells the policy the new costs of resident pages the store moved to
    /// another device on its own.
    fn reprice_moved<F: Frames>(&mut self, frames: &F) {
        self.moved.clear();
        self.store.take_moved(&mut self.moved);
        for i in 0..self.moved.len() {
            let number = self.moved[i];
            let dense = match self.store.naming() {
                Naming::Dense => DenseId::try_from(number).ok(),
                _ => frames.dense_of(number),
            };
            if let Some(d) = dense {
                if self.policy.contains(d) {
                    self.policy.reprice(d, self.store.cost_of(number));
                }
            }
        }
    }

    fn write_back<F: Frames>(
        &mut self,
        v: crate::policy::Victim,
        frames: &mut F,
        evictable: &mut impl Gate,
    ) -> Result<()> {
        let victim = v.page;
        self.cluster.clear();
        // Only a dirty victim gathers a cluster; a clean one is written
        // because its store moves it.
        if v.dirty {
            let mut scope = Scope {
                frames: &*frames,
                evictable: &mut *evictable,
            };
            self.policy.cluster(victim, &mut scope, &mut self.cluster);
        }
        if self.cluster.is_empty() {
            // The common case, one page: no batch to build.
            let number = self.number(frames, victim);
            return self.write_one(frames, number, victim);
        }
        self.batch.clear();
        self.batch.push((self.batch_number(frames, victim), victim));
        for &p in &self.cluster {
            self.batch.push((self.batch_number(frames, p), p));
        }
        self.batch.sort_unstable();
        self.write_batch(frames)?;
        for i in 0..self.cluster.len() {
            let p = self.cluster[i];
            let cost = self.store.cost_of(self.number(frames, p));
            self.policy.mark_clean(p, cost);
        }
        let cluster = std::mem::take(&mut self.cluster);
        self.leave(&cluster, evictable);
        self.cluster = cluster;
        Ok(())
    }

    /// The first [`Policy::leaving`] pages of `cluster`, written with the
    /// victim, leave with it: each that is resident, clean (nobody modified
    /// it since it was written) and that the gate lets go. They are then in
    /// [`Driver::left`].
    fn leave(&mut self, cluster: &[DenseId], gate: &mut impl Gate) {
        for &page in &cluster[..self.policy.leaving().min(cluster.len())] {
            if self.policy.contains(page) && !self.policy.is_dirty(page) && gate.claim(page) {
                self.policy.remove(page);
                self.left.push(page);
            }
        }
    }

    /// The pages written with the last miss's victim that left with it
    /// ([`Policy::leaving`]), for a caller with frames to free theirs.
    #[inline]
    pub fn left(&self) -> &[DenseId] {
        &self.left
    }

    /// Writes one page and tells the policy the write's cost.
    #[inline]
    fn write_one<F: Frames>(
        &mut self,
        frames: &mut F,
        number: PageId,
        page: DenseId,
    ) -> Result<()> {
        frames.write(&mut self.store, number, page)?;
        self.m.physical_writes += 1;
        let model = self.store.cost_of(number).write;
        self.observe(IoKind::Write, model);
        Ok(())
    }

    /// Writes `self.batch` (one page alone, several as a batch) and tells
    /// the policy each write's cost.
    fn write_batch<F: Frames>(&mut self, frames: &mut F) -> Result<()> {
        match self.batch[..] {
            [(number, page)] => frames.write(&mut self.store, number, page)?,
            _ => frames.write_batch(&mut self.store, &self.batch)?,
        }
        self.m.physical_writes += self.batch.len() as u64;
        for i in 0..self.batch.len() {
            let model = self.store.cost_of(self.batch[i].0).write;
            self.observe(IoKind::Write, model);
        }
        Ok(())
    }

    /// The name of `page` in a single-page call to the store: its number,
    /// looked up only if the store wants it ([`PageStore::naming`]).
    #[inline]
    fn number<F: Frames>(&self, frames: &F, page: DenseId) -> PageId {
        match self.store.naming() {
            Naming::Numbers => frames.number(page),
            Naming::Batches | Naming::Dense => PageId::from(page),
        }
    }

    /// The name of `page` in a batch to the store.
    #[inline]
    fn batch_number<F: Frames>(&self, frames: &F, page: DenseId) -> PageId {
        match self.store.naming() {
            Naming::Numbers | Naming::Batches => frames.number(page),
            Naming::Dense => PageId::from(page),
        }
    }

    /// Tells the policy what an I/O cost: measured if the store measures,
    /// else the device model's price.
    #[inline]
    fn observe(&mut self, kind: IoKind, model: f64) {
        let cost = self.store.measured_latency().unwrap_or(model);
        self.policy.observe_io(kind, cost);
    }

    /// Records that a page announced as written at its miss was not modified
    /// after all (a buffer-pool fix for writing that changed nothing).
    pub fn unmodified(&mut self, page: DenseId, number: PageId) {
        let cost = self.store.cost_of(number);
        self.policy.mark_clean(page, cost);
    }

    /// Records that a resident page was modified without a new access.
    pub fn mark_dirty(&mut self, page: DenseId) {
        self.policy.mark_dirty(page);
    }

    /// Makes the store durable ([`PageStore::flush`]).
    pub fn flush_store<F: Frames>(&mut self, frames: &F) -> Result<()> {
        self.store.flush()?;
        if self.placing {
            self.reprice_moved(frames);
        }
        Ok(())
    }

    /// Appends a point to the time series: counts so far and the policy's
    /// state ([`Policy::state`]).
    pub fn sample(&mut self) {
        let mut state = Vec::new();
        self.policy.state(&mut state);
        self.store.state(&mut state);
        self.m.series.push(SeriesPoint {
            requests: self.m.requests,
            hits: self.m.hits,
            physical_reads: self.m.physical_reads,
            physical_writes: self.m.physical_writes,
            virtual_time: self.store.stats().virtual_time,
            state,
        });
    }

    /// Requests counted so far.
    #[inline]
    pub fn requests(&self) -> u64 {
        self.m.requests
    }

    /// The metrics so far, with the derived and end-of-run fields filled in:
    /// `reads`, `dirty_at_end` (dirty pages buffered now); virtual time,
    /// erases, migrations and each device's I/O from the store, which counts
    /// its own.
    pub fn metrics(&self) -> Metrics {
        let mut m = self.m.clone();
        m.reads = m.requests - m.writes;
        m.dirty_at_end = self.policy.dirty_count() as u64;
        let io = self.store.stats();
        m.virtual_time = io.virtual_time;
        m.erases = io.erases;
        m.migrations = io.migrations;
        self.store.device_stats(&mut m.devices);
        m
    }

    /// The policy and the store back.
    pub fn into_parts(self) -> (P, S) {
        (self.policy, self.store)
    }
}
