//! The pool's hit path without its lock: a page table split into shards,
//! each under its own reader-writer lock, and read hits gathered per thread
//! in stripes that the pool lock drains in batches (Caffeine's buffers;
//! PostgreSQL's partitioned mapping table). The protocol is stated in the
//! module docs of [`super`].

use crate::sync::{Mutex, MutexGuard, RwLock};
use crate::types::{DenseId, PageId};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Shards of the page table: enough that two threads rarely meet in one.
const SHARDS: usize = 64;
/// Stripes of read hits: one per thread, up to this many threads.
const STRIPES: usize = 16;
/// Read hits a stripe gathers before its thread offers to drain them.
pub(super) const BATCH: usize = 64;
/// Read hits past which a thread waits for the pool lock to drain.
pub(super) const MAX_GATHERED: usize = 16 * BATCH;

/// One shard of the page table: page number to `(dense id, frame)`.
type Shard = FxHashMap<PageId, (DenseId, u32)>;

/// A lock on cache lines of its own (two, for the line the CPU prefetches
/// beside it), so that threads using neighbouring shards or stripes do not
/// share lines.
#[derive(Debug, Default)]
#[repr(align(128))]
struct Padded<T>(T);

/// Resident pages by number. Pages being loaded are not in it; a hit that
/// misses here takes the pool lock.
#[derive(Debug)]
pub(super) struct Table {
    shards: Box<[Padded<RwLock<Shard>>]>,
}

impl Table {
    pub(super) fn new() -> Self {
        Table {
            shards: (0..SHARDS).map(|_| Padded::default()).collect(),
        }
    }

    fn shard(&self, page: PageId) -> &RwLock<Shard> {
        // Fibonacci hashing: neighbouring pages land in different shards.
        let h = page.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58;
        &self.shards[h as usize % SHARDS].0
    }

    /// Runs `f` on `page`'s entry under its shard's read lock (a hit pins
    /// its frame there, so that a claim cannot pass it).
    #[inline]
    pub(super) fn with<R>(&self, page: PageId, f: impl FnOnce(Option<(DenseId, u32)>) -> R) -> R {
        let shard = self.shard(page).read().unwrap_or_else(|e| e.into_inner());
        f(shard.get(&page).copied())
    }

    /// Runs `f` on `page`'s shard under its write lock.
    pub(super) fn edit<R>(&self, page: PageId, f: impl FnOnce(&mut Shard) -> R) -> R {
        let mut shard = self.shard(page).write().unwrap_or_else(|e| e.into_inner());
        f(&mut shard)
    }
}

/// A read hit waiting for the policy: the page's dense id and its frame.
pub(super) type Hit = (DenseId, u32);

/// Read hits not yet told to the policy, gathered per thread.
#[derive(Debug)]
pub(super) struct Stripes {
    stripes: Box<[Padded<Mutex<Vec<Hit>>>]>,
}

/// Threads get stripes in turn.
static NEXT_STRIPE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static STRIPE: usize = NEXT_STRIPE.fetch_add(1, Ordering::Relaxed) % STRIPES;
}

impl Stripes {
    pub(super) fn new() -> Self {
        Stripes {
            stripes: (0..STRIPES)
                .map(|_| Padded(Mutex::new(Vec::with_capacity(MAX_GATHERED))))
                .collect(),
        }
    }

    /// Adds a read hit to this thread's stripe; returns how many it holds.
    #[inline]
    pub(super) fn push(&self, hit: Hit) -> usize {
        let mut s = self.mine();
        s.push(hit);
        s.len()
    }

    fn mine(&self) -> MutexGuard<'_, Vec<Hit>> {
        let i = STRIPE.with(|&i| i);
        self.stripes[i].0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Moves every gathered hit, stripe by stripe, into `out` (emptied
    /// first), keeping each stripe's order.
    pub(super) fn take(&self, out: &mut Vec<Hit>) {
        out.clear();
        for s in self.stripes.iter() {
            let mut s = s.0.lock().unwrap_or_else(|e| e.into_inner());
            out.extend_from_slice(&s);
            s.clear();
        }
    }
}
