//! Buffer replacement policies and the [`Policy`] contract
//! (`docs/design/policy.md`).
//!
//! The policies live by family, a file each: `classic/` (blind to what a
//! write costs), `offline/` (they see the whole trace), `write_aware/`
//! (the flash papers' and their successors'). A policy declares itself by
//! [`Named`] (`named.rs`) and is built by [`with_online_policy`] or behind a [`BoxedPolicy`];
//! `table/` lists every policy, `parts/` holds what they are built from.
//!
//! One policy value serves every caller: the trace simulator
//! ([`crate::sim::Simulator`]), the real [`crate::buffer::BufferPool`], and
//! the DRAM and SSD levels of [`crate::tier`]. Policies work on dense page ids
//! ([`DenseId`]) and keep their per-page state in plain vectors indexed by
//! them, so the per-request path neither hashes nor allocates. Vectors grow on
//! the first [`Policy::insert`] of a larger id, so a pool whose universe of
//! pages grows over time works too.
//!
//! The protocol a caller follows for one request `(page, op)`:
//!
//! The protocol is implemented once, in [`crate::drive::Driver`], which the
//! simulator and the buffer pool both use; a new caller should use it too.
//!
//! 1. `access(page, op)`: if the page is resident the policy records the hit
//!    (a write dirties it) and returns `true`. Otherwise it returns `false`;
//!    a miss is always announced this way before the page is admitted, so
//!    policies with ghost lists (2Q, ARC) can look the page up once.
//! 2. On a miss with `len() == capacity()`, `evict(evictable)` chooses and
//!    removes a victim among resident pages for which `evictable` says yes
//!    (the buffer pool passes "not pinned"); the caller writes it back if the
//!    returned [`Victim`] is dirty. `cluster` may add more dirty pages to write
//!    in the same batch (write clustering); the caller then calls
//!    `mark_clean` for each of them, and `remove` for the first `leaving()`
//!    of them still clean (ACE's evicting variant), freeing their frames.
//! 3. `insert(page, op, cost)` admits the page.
//!
//! 4. If the caller cannot complete the request after all (the victim's
//!    write-back failed), it calls `reinstate(victim)` right after `evict`
//!    to undo the eviction, and does not call `insert`; a caller that fails
//!    before evicting (the page could not be read) just does not call
//!    `insert`. `access` on a miss must therefore leave
//!    no lasting trace until `insert` confirms the admission (ARC adapts `p`
//!    at `insert`, Belady consumes its trace slot there), so a failed and
//!    retried request decides exactly as one that succeeded the first time.
//!    The buffer pool relies on this to write a dirty victim outside its
//!    lock: `evict` and `reinstate`, the write, then `evict` again — which
//!    chooses the same victim — and `insert`. A policy that counts every
//!    announcement even of a miss (W-TinyLFU's sketch, FD-Buffer's tuner)
//!    is safe there because the pool announces the miss again only if other
//!    requests reached the policy during the write (several threads).
//!
//! Dirty state lives in the policy, so clean-first policies (CFLRU, CASA,
//! FD-Buffer) and the caller agree on it. `mark_dirty` records a modification
//! that came without a new access (the buffer pool's update flag, CASA §4.3).

#[macro_use]
mod parts;
#[macro_use]
mod named;
mod boxed;
mod build;
mod classic;
mod nested;
mod offline;
mod table;
mod write_aware;

// The parts every policy file reaches as `crate::policy::NAME`.
use parts::{costs, heap, list, queue};
use table::{registry, spec};

pub use boxed::BoxedPolicy;
pub use build::{boxed_online_policy, with_online_policy, WithPolicy};
pub use classic::{
    Arc, Clock, ClockPro, Fifo, Lfu, Lirs, Lru, LruK, S3Fifo, Sieve, Slru, TwoQ, WTinyLfu,
};
pub use named::{Named, Role, Serves};
pub use nested::{allowed, serving};
pub use offline::{Belady, CostOpt, Future, Schedule, ScheduleCosts, DEFAULT_ITERATIONS};
pub use table::{
    register, CostSource, FdParams, PolicyKind, PolicySpec, Registered, Registration, POLICIES,
    SERVING,
};
pub use write_aware::{
    Ace, AceParams, Casa, CcfLru, Cfdc, Cflru, FdBuffer, Koltsidas, Lambda, LruWsr, Mc, Watt,
    WattParams, WbLandlord, DEFAULT_EPOCH, DEFAULT_LAMBDA_EPOCH, TABLE_1_FLASH, TABLE_1_MAGNETIC,
};

use crate::types::{DenseId, IoKind, Op, PageCost};

/// What [`Policy::dirty_ahead`] is asked for: up to `n` dirty pages among
/// the next `window` resident pages the policy's evictions would reach
/// (`usize::MAX`: as far as it takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ahead {
    /// Dirty pages wanted at most.
    pub n: usize,
    /// Resident pages, clean or dirty, the search may pass.
    pub window: usize,
}

/// A page's number, with the dense ids of the pages numbered one below and
/// one above it if the caller knows them ([`Policy::learn_number`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Numbered {
    /// The page's number.
    pub number: crate::types::PageId,
    /// The page numbered one below, if known.
    pub below: Option<DenseId>,
    /// The page numbered one above, if known.
    pub above: Option<DenseId>,
}

/// What a clustering policy may ask the caller about pages
/// ([`Policy::cluster`]).
pub trait Neighbours {
    /// The dense id of the page numbered `delta` away from `page`'s number,
    /// if the caller knows that page.
    fn neighbour(&self, page: DenseId, delta: i64) -> Option<DenseId>;
    /// Whether the caller may write `page` now (it is not in use).
    fn evictable(&mut self, page: DenseId) -> bool;
    /// Starts loading what [`Neighbours::neighbour`] will read for `page`,
    /// so that a lookup for the next victim finds it in the cache.
    /// Default: nothing.
    fn prefetch(&self, page: DenseId) {
        let _ = page;
    }
}

/// A page chosen for eviction, already removed from the policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Victim {
    /// The evicted page.
    pub page: DenseId,
    /// Whether it must be written back before its frame is reused.
    pub dirty: bool,
}

/// A buffer replacement policy over dense page ids. See the module docs for
/// the calling protocol.
pub trait Policy {
    /// Display name, with parameters (`"CFLRU(0.5)"`).
    fn name(&self) -> String;

    /// Number of pages the buffer holds.
    fn capacity(&self) -> usize;

    /// Changes the number of pages the policy holds, at run time (a pool of
    /// FD-Buffer gains or loses a frame). Requires `capacity ≥ len()` (a
    /// pool may own no frame at all): a caller shrinking a policy evicts
    /// first. Targets
    /// derived from the capacity follow it (ARC's `c` and `p`, 2Q's `Kin`
    /// and `Kout`, CFLRU's window, CASA's bound on τ); ghost entries beyond
    /// the new bounds are forgotten.
    fn set_capacity(&mut self, capacity: usize);

    /// Number of resident pages.
    fn len(&self) -> usize;

    /// `true` when no page is resident.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `page` is resident.
    fn contains(&self, page: DenseId) -> bool;

    /// Whether `page` is resident and dirty.
    fn is_dirty(&self, page: DenseId) -> bool;

    /// Number of resident dirty pages.
    fn dirty_count(&self) -> usize;

    /// Records a request. Returns `true` on a hit; on a miss returns `false`
    /// and leaves the resident set unchanged.
    fn access(&mut self, page: DenseId, op: Op) -> bool;

    /// Admits `page` after a miss. Requires `len() < capacity()` and that the
    /// page is not resident. `cost` prices I/O on the page's current device.
    fn insert(&mut self, page: DenseId, op: Op, cost: PageCost);

    /// Admits a page that is not a demand miss: it moves in from another
    /// pool of the same buffer (FD-Buffer moves a page from its clean pool
    /// to its dirty pool when it is written). It enters as a page seen for
    /// the first time, with `dirty`; a ghost entry it may have is forgotten,
    /// not counted as a ghost hit, and no adaptation happens. No `access`
    /// announces it. Requires `len() < capacity()`. Default: `insert` with
    /// the op that gives `dirty`, right for policies without ghosts.
    fn adopt(&mut self, page: DenseId, dirty: bool, cost: PageCost) {
        let op = if dirty { Op::Write } else { Op::Read };
        self.insert(page, op, cost);
    }

    /// Chooses a victim among resident pages for which `evictable(page)` is
    /// true, removes it and returns it; `None` if there is none.
    fn evict<F: FnMut(DenseId) -> bool>(&mut self, evictable: F) -> Option<Victim>;

    /// Undoes the [`Policy::evict`] that just returned `victim` (no other
    /// call may come in between): the page is resident again with its dirty
    /// state, in the place it was taken from, and the ghost and bookkeeping
    /// state the eviction changed is as it was before.
    fn reinstate(&mut self, victim: Victim);

    /// Records that a resident page was modified without a new access.
    fn mark_dirty(&mut self, page: DenseId);

    /// Records that a resident dirty page was written back and stays resident
    /// (write clustering, checkpoints); `cost` prices its device from now on.
    fn mark_clean(&mut self, page: DenseId, cost: PageCost);

    /// Records that resident `page` now lives on another device of the
    /// store (the hybrid store moved it on its own), so `cost` prices it
    /// from now on; its dirty state and place are unchanged. Default:
    /// nothing, right for a policy that keeps no cost per page.
    fn reprice(&mut self, page: DenseId, cost: PageCost) {
        let _ = (page, cost);
    }

    /// Drops a resident page without eviction; returns its dirty flag, or
    /// `None` if it was not resident.
    fn remove(&mut self, page: DenseId) -> Option<bool>;

    /// Write clustering: after `victim` was chosen dirty, pushes more resident
    /// dirty pages that should be written back in the same batch; `pages`
    /// finds pages by neighbouring page number and says which the caller may
    /// write now (not in use). They stay resident; the caller calls
    /// `mark_clean` for each once the batch is written. The default clusters
    /// nothing.
    fn cluster(&mut self, victim: DenseId, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) {
        let _ = (victim, pages, out);
    }

    /// Appends to `out` up to `want.n` resident dirty pages that `pages`
    /// lets be written now, in the order the policy's evictions would
    /// reach them (for a wrapper that writes them with a dirty victim,
    /// ACE), among the next `want.window` resident pages, clean or dirty,
    /// in that order (`usize::MAX`: as far as it takes); returns `false`,
    /// appending nothing, if the policy does not know that order without
    /// evicting (or, for a bounded window, where its clean pages fall in
    /// it). Default: `false`.
    fn dirty_ahead(&self, want: Ahead, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) -> bool {
        let _ = (want, pages, out);
        false
    }

    /// How many of the pages a dirty victim's write clustered with it
    /// ([`Policy::cluster`]) leave the buffer with the victim: the first
    /// ones in the cluster's order, once written (ACE's evicting variant,
    /// its `ne − 1`). The caller removes them ([`Policy::remove`]) and
    /// frees their frames. Default: none; they stay, clean.
    fn leaving(&self) -> usize {
        0
    }

    /// How many pages a miss whose victim was dirty reads ahead (ACE's
    /// prefetching variant, its `ne − 1`): once the victim's batch is
    /// written the caller evicts up to as many more pages, each the
    /// policy's next victim while that is clean, and reads into the frames
    /// freed the pages numbered after the requested one, in order, that
    /// are not resident, admitting each with [`Policy::insert_cold`].
    /// Default: none.
    fn read_ahead(&self) -> usize {
        0
    }

    /// Whether the policy has a place where a clean page is the first clean
    /// page its evictions take (LRU's tail, CFLRU's clean-first region's
    /// clean tail, CASA's clean list's tail), where [`Policy::insert_cold`]
    /// puts a page. Default: `false`.
    fn has_cold_end(&self) -> bool {
        false
    }

    /// Admits a page read ahead, which nobody requested, clean, where it is
    /// the first clean page its evictions take; only called on a policy whose
    /// [`Policy::has_cold_end`] is `true`. Default: [`Policy::insert`], a
    /// read.
    fn insert_cold(&mut self, page: DenseId, cost: PageCost) {
        self.insert(page, Op::Read, cost);
    }

    /// A hint that `page` will be requested soon: a policy may start loading
    /// its per-page state into the cache, so that the request does not wait
    /// for memory. Must not change anything. Default: nothing.
    #[inline]
    fn prefetch(&self, page: DenseId) {
        let _ = page;
    }

    /// The page the `k`-th eviction from now (0: the next) would take if
    /// every page were evictable and nothing else happened, when the policy
    /// knows it without searching (a queue's LRU end): a hint for loading
    /// what the caller's store keeps about that page, never a promise.
    /// Default: `None`.
    #[inline]
    fn victim_ahead(&self, k: usize) -> Option<DenseId> {
        let _ = k;
        None
    }

    /// Observes the cost of one physical I/O the caller made: the latency
    /// the store measured (µs) if it measures, else the device model's
    /// cost. For policies that learn the device's asymmetry (CASA §5.3).
    /// Default: ignored.
    fn observe_io(&mut self, kind: IoKind, cost: f64) {
        let _ = (kind, cost);
    }

    /// Whether the policy learns its costs only from measured latencies, so
    /// that a caller over a store that measures nothing must refuse it.
    /// Default: `false`.
    fn needs_measured_io(&self) -> bool {
        false
    }

    /// Whether a call may unwind with the failure of code the policy runs
    /// (a policy written in Python raising an exception). Such a policy
    /// leaves its own state as it was before the call that failed; the
    /// caller fails the request as a store failure fails it (the failure
    /// rule, `docs/design/pool.md`), moving no counter, and the buffer pool
    /// tells it each hit at the hit's own unfix rather than gathered, so
    /// that the failure reaches the caller whose request it was. Default:
    /// `false`.
    fn may_fail(&self) -> bool {
        false
    }

    /// Whether the policy groups pages by page number (CFDC's clusters) and
    /// does not know `page`'s yet, so that the caller must tell it
    /// ([`Policy::learn_number`]) before admitting it. A page's number never
    /// changes, so a policy that remembers it asks once per page, and the
    /// caller's lookup of numeric neighbours stays off the common miss path.
    /// Default: `false`.
    fn wants_number(&self, page: DenseId) -> bool {
        let _ = page;
        false
    }

    /// The page number of `page` and its known neighbours by number, told
    /// right before it is admitted when [`Policy::wants_number`], so the
    /// policy finds numeric neighbours without a table of its own.
    /// Default: ignored.
    fn learn_number(&mut self, page: DenseId, number: Numbered) {
        let _ = (page, number);
    }

    /// Appends the policy's state variables worth plotting over time
    /// (CASA's τ and |C|), for the time series of a run. Called once per
    /// series point, never on the per-request path. Default: none.
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let _ = out;
    }
}

/// What the policies' unit tests share.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Neighbours, Policy};
    use crate::types::{DenseId, Op, PageCost};

    /// A caller that knows no page by number and lets every page be
    /// written: what a clustering test hands a policy.
    pub(crate) struct AllWritable;

    impl Neighbours for AllWritable {
        fn neighbour(&self, _: DenseId, _: i64) -> Option<DenseId> {
            None
        }
        fn evictable(&mut self, _: DenseId) -> bool {
            true
        }
    }

    /// Xorshift64 (Marsaglia 2003): the unit tests' seeded stream of
    /// requests. The state must not be 0.
    pub(crate) struct Xorshift(pub(crate) u64);

    impl Xorshift {
        /// The next state.
        pub(crate) fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        /// A request to one of pages `0..pages`, a write one time in
        /// `writes` (when the next state is a multiple of it).
        pub(crate) fn request(&mut self, pages: u64, writes: u64) -> (DenseId, Op) {
            let x = self.next();
            let op = if x.is_multiple_of(writes) {
                Op::Write
            } else {
                Op::Read
            };
            ((x % pages) as DenseId, op)
        }
    }

    /// The buffer sizes, and the pages the requests range over at each,
    /// at which [`agrees_at_sizes`] holds a policy to its model: from one
    /// page to hundreds, the pages a few times the buffer.
    pub(crate) const MODEL_SIZES: [(usize, u64); 7] = [
        (1, 4),
        (2, 6),
        (3, 10),
        (5, 12),
        (10, 40),
        (150, 400),
        (300, 900),
    ];

    /// [`agrees_with_model`] for 20,000 requests at each of `sizes` (of
    /// [`MODEL_SIZES`]), on the policy and model `new(capacity)` makes, the
    /// requests drawn from `seed` and the capacity.
    pub(crate) fn agrees_at_sizes<P: Policy, M: FnMut(DenseId) -> (bool, Option<DenseId>)>(
        sizes: &[(usize, u64)],
        seed: u64,
        new: impl Fn(usize) -> (P, M),
    ) {
        for &(cap, pages) in sizes {
            let (mut policy, model) = new(cap);
            agrees_with_model(&mut policy, model, pages, 20_000, seed ^ cap as u64);
        }
    }

    /// Replays `steps` requests over pages `0..pages` (skewed towards low
    /// ids, so that frequencies spread), drawn from `seed`, through `policy`
    /// and `model` (which returns whether the request hits and, on a miss
    /// of a full buffer, its victim), asserting they agree on every hit and
    /// victim.
    pub(crate) fn agrees_with_model(
        policy: &mut impl Policy,
        mut model: impl FnMut(DenseId) -> (bool, Option<DenseId>),
        pages: u64,
        steps: usize,
        seed: u64,
    ) {
        let mut rng = Xorshift(seed | 1);
        for step in 0..steps {
            let x = rng.next();
            let page = ((x % pages) * (x % pages) / pages) as DenseId;
            let (hit, victim) = model(page);
            assert_eq!(
                policy.access(page, Op::Read),
                hit,
                "step {step}, page {page}"
            );
            if !hit {
                let full = policy.len() == policy.capacity();
                let got = full.then(|| policy.evict(|_| true).expect("a victim").page);
                assert_eq!(got, victim, "step {step}, page {page}");
                policy.insert(page, Op::Read, PageCost::new(1.0, 1.0));
            }
        }
    }
}
