//! FD-Buffer (On, Li, Luo, Lee, Ng, Hong: "FD-Buffer: a buffer manager for
//! databases on flash disks", CIKM 2010), §4: the buffer is split into a
//! clean pool C and a dirty pool D, each managed by its own replacement
//! policy (any of LRU, FIFO, CLOCK, 2Q, ARC: the existing policy values),
//! and frames move between the pools exactly as Algorithms 1 and 2 say:
//!
//! - a read hit in either pool, or a write hit in D, is that pool's hit; a
//!   write hit in C moves the page, with its frame, from C to D (`Remove`,
//!   `Add`: admitted to D as a page moving in, not a demand miss);
//! - a read miss calls FindVictimForClean: if |D| > M_d = M − M_c the victim
//!   is D's (written back) and its frame moves to C, else C's;
//! - a write miss calls FindVictimForDirty: if |C| > M_c the victim is C's
//!   and its frame moves to D, else D's (written back);
//! - the missing page enters C on a read, D on a write.
//!
//! Each pool is a [`Policy`] whose capacity is the number of frames it owns
//! ([`Policy::set_capacity`] follows every frame that moves), so targets that
//! depend on capacity (ARC's, 2Q's) follow the pool's real size.
//!
//! Choices where the paper is silent, each tested:
//! - Frames of an empty buffer start in C (the paper's example starts with
//!   D empty); a miss while frames are free takes a free frame of its own
//!   pool, else one from the other pool.
//! - When the pool Algorithm 2 names has no page the caller may evict (all
//!   pinned), the victim comes from the other pool, and the frame moves to
//!   the pool of the incoming page.
//! - A page written back while it stays resident (a checkpoint) moves, with
//!   its frame, to C; a page of C modified without a new access moves to D.
//! - A base policy with ghosts is told of a miss only when the page will be
//!   admitted to it (a read miss is announced to C, a write miss to D), so a
//!   ghost hit is counted in the pool the page returns to.
//!
//! ## Write clustering (`cluster=N`)
//!
//! When a dirty page is written back, up to N more dirty pages of the dirty
//! pool whose page numbers continue the victim's without a gap (first
//! downwards, then upwards; pages in use end the run) go in the same batch,
//! which the store prices as sequential writes. They stay resident, now
//! clean, and move with their frames to the clean pool. `cluster=0` (the
//! default) writes the victim alone.
//!
//! ## Adapting M_c (`mc=auto`)
//!
//! The paper defers its cost estimation to a technical report; this is ours.
//! By Eq. (1)–(2), after warm-up the cost per request is
//! `P_total · (1 + E_dirty · R)` in units of a read, `R = C_write / C_read`.
//! Split the references by the pool their page belongs to: a miss of a
//! clean-pool page costs one read; a miss of a dirty-pool page means the page
//! was evicted dirty (one write, `R`) and is read again (one read). With
//! `Miss_C(x)` and `Miss_D(y)` the misses of each pool at `x` and `y` frames,
//!
//! ```text
//! Cost(M_c) ≈ Miss_C(M_c) + (1 + R) · Miss_D(M − M_c)
//! ```
//!
//! and the best M_c minimises it. Each pool's miss-ratio curve is estimated
//! online around the current split from stack distances: a shadow LRU stack
//! per pool (resident pages and ghosts, pages of that pool only) is cut at
//! its boundary `b` (M_c, resp. M − M_c) into the positions `(b − Δ, b]`
//! and `(b, b + Δ]`, `Δ = max(1, round(M/32))`; a reference landing in the
//! first would miss if the pool shrank by Δ (`loss`), one landing in the
//! second would hit if it grew by Δ (`gain`). Every `epoch` requests
//! (default 100,000) the split moves by Δ frames towards the pool whose
//! cost-weighted gain beats the other's cost-weighted loss:
//!
//! ```text
//! grow C if gain_C − (1 + R) · loss_D > max(0, (1 + R) · gain_D − loss_C)
//! grow D if (1 + R) · gain_D − loss_C > 0 (and it is the larger)
//! ```
//!
//! a hill climb on Cost(M_c) with the slope measured at the current point;
//! the counts are halved after each decision, so older epochs weigh less.
//! A page joins the dirty pool's stack when written and the clean pool's when
//! written back and kept; a page in neither stack is a cold miss. R comes from
//! the `PageCost` of admitted pages (`cost=model`) or measured latencies
//! (`cost=measured`). `mc=auto` starts at `M_c = M/2`.
//!
//! The shadow stacks follow a spatial sample of the pages (SHARDS,
//! Waldspurger et al. FAST 2015): a page is tracked when a multiplicative
//! hash of its id falls in the first 1/S of the range, with S the power of
//! two nearest below M/512 (between 1 and 64), and every boundary and Δ is
//! scaled by 1/S, so about 512 sampled pages sit around each boundary. Both
//! pools are sampled alike, so their counts compare directly. Unsampled
//! requests cost one multiplication; sampled ones a few list moves.

mod tuner;

use crate::policy::costs::CostSource;
use tuner::Tuner;

use crate::error::Result;
use crate::policy::build::WithPolicy;
use crate::policy::named::Named;
use crate::policy::named::Role;
use crate::policy::nested::{allowed, boxed_at_defaults, serving_as};
use crate::policy::Serves;
use crate::policy::{BoxedPolicy, Lru, Neighbours, Policy, Victim};
use crate::spec::{Amount, Entry, Given, Param, Ty, NO_MAX};
use crate::types::{DenseId, IoKind, Op, PageCost};

/// Which pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pool {
    Clean = 0,
    Dirty = 1,
}

/// Per page, which pool holds it (two bits a page: 32 KiB per 131,072
/// pages, small enough to stay in cache where the pools' own records would
/// not). A request reads it first and then touches only the pool that holds
/// its page (or, on a miss, the pool that will), so FD-Buffer costs one
/// pool record per request, as a single policy does; clustering asks it of
/// a victim's numeric neighbours, nearly always to hear "not dirty".
#[derive(Clone, Debug, Default)]
struct Residence(Vec<u64>);

impl Residence {
    #[inline]
    fn get(&self, page: DenseId) -> Option<Pool> {
        let w = self.0.get(page as usize / 32).copied().unwrap_or(0);
        match w >> (2 * (page % 32)) & 3 {
            1 => Some(Pool::Clean),
            2 => Some(Pool::Dirty),
            _ => None,
        }
    }

    #[inline]
    fn set(&mut self, page: DenseId, pool: Option<Pool>) {
        let i = page as usize / 32;
        if i >= self.0.len() {
            if pool.is_none() {
                return;
            }
            self.0.resize((i + 1).max(2 * self.0.len()), 0);
        }
        let bits = match pool {
            None => 0,
            Some(Pool::Clean) => 1,
            Some(Pool::Dirty) => 2,
        };
        let shift = 2 * (page % 32);
        self.0[i] = self.0[i] & !(3 << shift) | bits << shift;
    }
}

/// Default requests between two decisions of `mc=auto`.
pub const DEFAULT_EPOCH: u64 = 100_000;

/// How M_c is set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mc {
    /// Fixed at this many pages.
    Pages(usize),
    /// Fixed at this fraction of the buffer (rounded).
    Share(f64),
    /// Adapted online (module docs), re-decided every `epoch` requests.
    Auto {
        /// Requests between two decisions.
        epoch: u64,
    },
}

/// FD-Buffer over two pools, each managed by a `B`: [`BoxedPolicy`], any
/// policy that serves as a pool ([`crate::policy::Serves`]), or one policy type
/// named directly, whose calls then need no dispatch (the builder makes
/// two pools of one policy `FdBuffer<ThatPolicy>`).
#[derive(Clone, Debug)]
pub struct FdBuffer<B = BoxedPolicy> {
    m: usize,
    mc: usize,
    clean: B,
    dirty: B,
    /// The op of the miss announced last, for Algorithm 2.
    incoming: Op,
    /// The pool of the last victim, for [`Policy::reinstate`]. Its frame
    /// moves to the incoming page's pool only at `insert`, so undoing an
    /// eviction never has to undo a resize.
    undo: Option<Pool>,
    /// The cost of the page admitted last: what a page moving between pools
    /// is priced at (one device).
    cost: PageCost,
    /// `mc=auto`'s estimator, if adapting.
    tuner: Option<Box<Tuner>>,
    /// Write clustering: up to this many more pages per write-back.
    cluster: usize,
    /// Per page, the pool that holds it.
    pool_of: Residence,
    /// Pages in both pools.
    resident: usize,
}

impl<B: Policy> FdBuffer<B> {
    /// FD-Buffer of `capacity` pages with a fixed clean-pool threshold `mc`
    /// (clamped to `capacity`) over the pools `clean` and `dirty` (their
    /// capacities are reset: every frame starts in the clean pool).
    pub fn new(capacity: usize, mc: usize, clean: B, dirty: B) -> Self {
        Self::with_mc(capacity, Mc::Pages(mc), CostSource::Model, clean, dirty)
    }

    /// FD-Buffer of `capacity` pages with M_c set by `mc`; `cost` is where
    /// `mc=auto` takes the asymmetry from.
    pub fn with_mc(capacity: usize, mc: Mc, cost: CostSource, mut clean: B, mut dirty: B) -> Self {
        clean.set_capacity(capacity);
        dirty.set_capacity(0);
        let (mc, tuner) = match mc {
            Mc::Pages(k) => (k.min(capacity), None),
            Mc::Share(f) => (((f * capacity as f64).round() as usize).min(capacity), None),
            Mc::Auto { epoch } => (
                capacity / 2,
                Some(Box::new(Tuner::new(capacity, epoch, cost))),
            ),
        };
        FdBuffer {
            m: capacity,
            mc,
            clean,
            dirty,
            incoming: Op::Read,
            undo: None,
            cost: PageCost::new(1.0, 1.0),
            tuner,
            cluster: 0,
            pool_of: Residence::default(),
            resident: 0,
        }
    }

    /// Writes back up to `n` dirty neighbours with each dirty victim (module
    /// docs). Default: 0, none.
    pub fn with_cluster(mut self, n: usize) -> Self {
        self.cluster = n;
        self
    }

    fn bounds(&self) -> [usize; 2] {
        [self.mc, self.m - self.mc]
    }

    /// M_c, the clean pool's size threshold.
    pub fn mc(&self) -> usize {
        self.mc
    }

    /// (|C|, |D|): pages in each pool.
    pub fn pool_sizes(&self) -> (usize, usize) {
        (self.clean.len(), self.dirty.len())
    }

    /// (frames of C, frames of D).
    pub fn pool_frames(&self) -> (usize, usize) {
        (self.clean.capacity(), self.dirty.capacity())
    }

    fn pool(&mut self, p: Pool) -> &mut B {
        match p {
            Pool::Clean => &mut self.clean,
            Pool::Dirty => &mut self.dirty,
        }
    }

    /// Moves one frame from pool `from` to the other.
    fn move_frame(&mut self, from: Pool) {
        let (a, b) = match from {
            Pool::Clean => (&mut self.clean, &mut self.dirty),
            Pool::Dirty => (&mut self.dirty, &mut self.clean),
        };
        a.set_capacity(a.capacity() - 1);
        b.set_capacity(b.capacity() + 1);
    }

    fn other(p: Pool) -> Pool {
        match p {
            Pool::Clean => Pool::Dirty,
            Pool::Dirty => Pool::Clean,
        }
    }

    /// Makes sure pool `to` has a free frame, taking a free one from the
    /// other pool if it has none. The buffer is not full.
    fn free_frame_for(&mut self, to: Pool) {
        let p = self.pool(to);
        if p.len() < p.capacity() {
            return;
        }
        self.move_frame(Self::other(to));
    }
}

impl<B: Policy> Policy for FdBuffer<B> {
    fn name(&self) -> String {
        format!(
            "FD-Buffer(mc={}, clean={}, dirty={}, cluster={})",
            self.mc,
            self.clean.name(),
            self.dirty.name(),
            self.cluster
        )
    }
    fn capacity(&self) -> usize {
        self.m
    }
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        // A new M changes the tuner's Δ only at construction; its stacks
        // follow the new boundaries at the next request.
        // Frames come and go through the clean pool's free ones first.
        if capacity >= self.m {
            self.clean
                .set_capacity(self.clean.capacity() + capacity - self.m);
        } else {
            let mut drop = self.m - capacity;
            for pool in [Pool::Clean, Pool::Dirty] {
                let p = self.pool(pool);
                let free = (p.capacity() - p.len()).min(drop);
                p.set_capacity(p.capacity() - free);
                drop -= free;
            }
        }
        self.m = capacity;
        self.mc = self.mc.min(capacity);
    }
    fn len(&self) -> usize {
        debug_assert_eq!(self.resident, self.clean.len() + self.dirty.len());
        self.resident
    }
    fn contains(&self, page: DenseId) -> bool {
        self.pool_of.get(page).is_some()
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.dirty.is_dirty(page)
    }
    fn dirty_count(&self) -> usize {
        self.dirty.dirty_count()
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        // Both pools: which one holds the page is itself a load, which a
        // hint must not wait for (choosing by it costs 6-11%), and a
        // miss's pool depends on the op.
        self.clean.prefetch(page);
        self.dirty.prefetch(page);
        if let Some(t) = self.tuner.as_ref().filter(|t| t.sampled(page)) {
            t.l.prefetch(page);
        }
    }

    fn access(&mut self, page: DenseId, op: Op) -> bool {
        if let Some(t) = self.tuner.as_mut() {
            let bounds = [self.mc, self.m - self.mc];
            t.touch(page, op, bounds);
            self.mc = t.decide(self.mc, self.m);
        }
        debug_assert_eq!(
            self.pool_of.get(page),
            if self.clean.contains(page) {
                Some(Pool::Clean)
            } else {
                self.dirty.contains(page).then_some(Pool::Dirty)
            },
            "page {page}"
        );
        match self.pool_of.get(page) {
            Some(Pool::Clean) if op.is_write() => {
                // Algorithm 1, Write lines 1–4: the page and its frame move.
                let dirty = self.clean.remove(page);
                debug_assert_eq!(dirty, Some(false));
                self.move_frame(Pool::Clean);
                self.dirty.adopt(page, true, self.cost);
                self.pool_of.set(page, Some(Pool::Dirty));
                return true;
            }
            Some(Pool::Clean) => return self.clean.access(page, op),
            Some(Pool::Dirty) => return self.dirty.access(page, op),
            None => {}
        }
        // A miss: announced to the pool that will admit the page only.
        self.incoming = op;
        let hit = match op {
            Op::Read => self.clean.access(page, op),
            Op::Write => self.dirty.access(page, op),
        };
        debug_assert!(!hit);
        false
    }

    fn insert(&mut self, page: DenseId, op: Op, cost: PageCost) {
        debug_assert!(self.len() < self.m);
        let to = if op.is_write() {
            Pool::Dirty
        } else {
            Pool::Clean
        };
        // The victim's frame (if any) now moves to `to`, or a free one does.
        self.free_frame_for(to);
        self.pool(to).insert(page, op, cost);
        self.pool_of.set(page, Some(to));
        self.resident += 1;
        self.undo = None;
        self.cost = cost;
        if let Some(t) = self.tuner.as_mut() {
            t.costs.admitted(cost);
        }
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let to = if self.incoming.is_write() {
            Pool::Dirty
        } else {
            Pool::Clean
        };
        // Algorithm 2.
        let first = match to {
            Pool::Clean if self.dirty.len() > self.m - self.mc => Pool::Dirty,
            Pool::Clean => Pool::Clean,
            Pool::Dirty if self.clean.len() > self.mc => Pool::Clean,
            Pool::Dirty => Pool::Dirty,
        };
        let (from, v) = match self.pool(first).evict(&mut evictable) {
            Some(v) => (first, v),
            None => {
                let second = Self::other(first);
                (second, self.pool(second).evict(&mut evictable)?)
            }
        };
        self.undo = Some(from);
        self.pool_of.set(v.page, None);
        self.resident -= 1;
        Some(v)
    }

    fn reinstate(&mut self, victim: Victim) {
        if let Some(from) = self.undo.take() {
            self.pool(from).reinstate(victim);
            self.pool_of.set(victim.page, Some(from));
            self.resident += 1;
        }
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.clean.contains(page) {
            self.clean.remove(page);
            self.move_frame(Pool::Clean);
            self.dirty.adopt(page, true, self.cost);
            self.pool_of.set(page, Some(Pool::Dirty));
        }
    }

    fn mark_clean(&mut self, page: DenseId, cost: PageCost) {
        let bounds = self.bounds();
        if let Some(t) = self.tuner.as_mut() {
            t.cleaned(page, bounds);
        }
        if self.dirty.contains(page) {
            self.dirty.remove(page);
            self.move_frame(Pool::Dirty);
            self.clean.adopt(page, false, cost);
            self.pool_of.set(page, Some(Pool::Clean));
        }
    }

    fn reprice(&mut self, page: DenseId, cost: PageCost) {
        if self.clean.contains(page) {
            self.clean.reprice(page, cost);
        } else {
            self.dirty.reprice(page, cost);
        }
    }

    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.pool_of.set(page, None);
        let dirty = self.clean.remove(page).or_else(|| self.dirty.remove(page));
        self.resident -= usize::from(dirty.is_some());
        dirty
    }

    fn observe_io(&mut self, kind: IoKind, cost: f64) {
        self.clean.observe_io(kind, cost);
        self.dirty.observe_io(kind, cost);
        if let Some(t) = self.tuner.as_mut() {
            t.costs.observed(kind, cost);
        }
    }

    fn needs_measured_io(&self) -> bool {
        self.tuner.as_ref().is_some_and(|t| t.costs.is_measured())
    }

    fn may_fail(&self) -> bool {
        self.clean.may_fail() || self.dirty.may_fail()
    }

    fn cluster(&mut self, victim: DenseId, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) {
        // Both first neighbours are looked up before either is tested, so
        // their loads overlap: most victims have no dirty neighbour, and
        // these two lookups are all clustering costs them.
        if out.len() >= self.cluster {
            return;
        }
        let first = [pages.neighbour(victim, -1), pages.neighbour(victim, 1)];
        for (step, first) in [-1i64, 1].into_iter().zip(first) {
            let mut next = first;
            while out.len() < self.cluster {
                let Some(p) = next else {
                    break;
                };
                let dirty = self.pool_of.get(p) == Some(Pool::Dirty);
                debug_assert_eq!(dirty, self.dirty.contains(p), "page {p}");
                if !(dirty && pages.evictable(p)) {
                    break;
                }
                out.push(p);
                next = pages.neighbour(p, step);
            }
        }
        // The dirty pool's next victims will be looked up the same way:
        // their links start loading now, two write-backs ahead (the next
        // one's were asked for a write-back ago).
        if let Some(n) = self.dirty.victim_ahead(1) {
            pages.prefetch(n);
        }
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("mc", self.mc as f64));
        out.push(("clean", self.clean.len() as f64));
        out.push(("dirty", self.dirty.len() as f64));
    }
}

// The policy's spec (`policy/named.rs`).

const MC: Param = Param {
    key: "mc",
    ty: Ty::CountShareOrAuto,
    default: "auto",
    help: "size threshold M_c of the clean pool: pages (0 to B), a share of the buffer, or auto, adapted from both pools' miss-ratio curves",
};
const CLEAN: Param = Param {
    key: "clean",
    ty: Ty::Listed(pool_allowed),
    default: "lru",
    help: "replacement policy of the clean pool",
};
const DIRTY: Param = Param {
    key: "dirty",
    ty: Ty::Listed(pool_allowed),
    default: "lru",
    help: "replacement policy of the dirty pool",
};
const EPOCH: Param = Param {
    key: "epoch",
    ty: Ty::Int(1, NO_MAX),
    default: "100000",
    help: "with mc=auto: requests between two decisions of M_c",
};
const COST: Param = Param {
    key: "cost",
    ty: Ty::Choice(&["model", "measured"]),
    default: "model",
    help: "with mc=auto: the asymmetry R from the device model, or from the store's measured latencies",
};
const CLUSTER: Param = Param {
    key: "cluster",
    ty: Ty::Int(0, NO_MAX),
    default: "0",
    help: "write clustering: up to this many dirty pages with neighbouring page numbers go with each write-back (0: none)",
};

/// What a pool's policy may be, in words.
fn pool_allowed() -> String {
    allowed(Role::Pool)
}

/// FD-Buffer's parameters (the `fdbuffer` spec).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FdParams {
    /// How M_c is set.
    pub mc: Mc,
    /// The clean pool's policy.
    pub clean: &'static str,
    /// The dirty pool's policy.
    pub dirty: &'static str,
    /// Where `mc=auto` takes the asymmetry from.
    pub cost: CostSource,
    /// Write clustering: dirty neighbours written with each victim.
    pub cluster: usize,
}

/// `mc=`: `auto`, a whole number of pages, or a share written with a point.
fn mc_of(g: &Given) -> Option<Mc> {
    match g.amount("mc") {
        Amount::Auto => None,
        Amount::Count(k) => Some(Mc::Pages(usize::try_from(k).unwrap_or(usize::MAX))),
        Amount::Share(f) => Some(Mc::Share(f)),
    }
}

impl Named for FdBuffer {
    const SERVES: crate::policy::Serves = Serves::ONLINE;
    const ENTRY: Entry = Entry {
        name: "fdbuffer",
        description: "FD-Buffer, On et al. 2010: clean and dirty pools, each with its own policy, split at M_c",
        params: &[MC, CLEAN, DIRTY, CLUSTER, EPOCH, COST, crate::policy::costs::N],
    };
    type Params = FdParams;

    fn params(g: &Given) -> Result<FdParams> {
        let base = |key| serving_as(g, key, Role::Pool);
        let mc = mc_of(g);
        if mc.is_some() && ["epoch", "cost", "n"].iter().any(|k| g.has(k)) {
            return Err(g.error("'epoch', 'cost' and 'n' apply only with mc=auto"));
        }
        Ok(FdParams {
            mc: mc.unwrap_or_else(|| Mc::Auto {
                epoch: g.int("epoch"),
            }),
            clean: base("clean")?,
            dirty: base("dirty")?,
            cost: crate::policy::costs::cost_source(g)?,
            cluster: g.int("cluster") as usize,
        })
    }

    fn canonical(g: &Given) -> String {
        let Ok(p) = Self::params(g) else {
            return g.name().to_owned();
        };
        let mut s = match p.mc {
            Mc::Pages(k) => format!("fdbuffer:mc={k}"),
            // With its point, so that it reads back as a share.
            Mc::Share(x) => format!("fdbuffer:mc={x:?}"),
            Mc::Auto { .. } => "fdbuffer:mc=auto".to_owned(),
        };
        let (clean, dirty) = (p.clean, p.dirty);
        s += &format!(",clean={clean},dirty={dirty},cluster={}", p.cluster);
        if let Mc::Auto { epoch } = p.mc {
            s += &format!(",epoch={epoch}");
            match p.cost {
                CostSource::Model => s += ",cost=model",
                CostSource::Measured { n } => s += &format!(",cost=measured,n={n}"),
            }
        }
        s
    }

    fn build(p: FdParams, capacity: usize, pages: usize) -> Result<Self> {
        let base = |name| boxed_at_defaults(name, capacity, pages);
        assemble(&p, capacity, base(p.clean)?, base(p.dirty)?)
    }

    fn visit<W: WithPolicy>(p: FdParams, capacity: usize, pages: usize, w: W) -> Result<W::Out> {
        if p.clean == Lru::ENTRY.name && p.dirty == Lru::ENTRY.name {
            // The default pools, built as LRU itself: their calls inline
            // where a boxed pool goes through a pointer on every one.
            let lru = || Lru::new(capacity).with_pages(pages);
            w.visit(assemble(&p, capacity, lru(), lru())?)
        } else {
            w.visit(Self::build(p, capacity, pages)?)
        }
    }
}

/// FD-Buffer of `capacity` pages over the pools `clean` and `dirty`, as
/// `p` says; refused if `mc` is more pages than the buffer has.
fn assemble<B: Policy>(p: &FdParams, capacity: usize, clean: B, dirty: B) -> Result<FdBuffer<B>> {
    if let Mc::Pages(k) = p.mc {
        if k > capacity {
            return Err(crate::Error::invalid(format!(
                "policy 'fdbuffer': mc={k} is more pages than the buffer's {capacity}; give 0 to \
                 {capacity} pages, or a share of the buffer such as 0.5"
            )));
        }
    }
    Ok(FdBuffer::with_mc(capacity, p.mc, p.cost, clean, dirty).with_cluster(p.cluster))
}
