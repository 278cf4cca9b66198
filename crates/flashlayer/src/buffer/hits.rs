//! The pool's hit path without its lock: a page table that hits read
//! without any lock, read guards counted per thread stripe (so a read hit
//! writes no line that another thread's hits write), and read hits
//! gathered per thread in stripes that the pool lock drains in batches
//! (Caffeine's buffers). The protocol is stated in the module docs of
//! [`super`].

use crate::sync::{AtomicU32, AtomicU64};
use crate::types::{DenseId, PageId};
use std::sync::atomic::Ordering;

/// Stripes of read hits: one per thread, up to this many threads (two
/// under the model checker, so that its few threads both use several
/// stripes and share one).
#[cfg(not(feature = "shuttle"))]
const STRIPES: usize = 16;
#[cfg(feature = "shuttle")]
const STRIPES: usize = 2;
/// Read hits a stripe gathers before its thread offers to drain them (two
/// under the model checker, whose small schedules then reach batch drains).
/// Each drain reads lines of rings that other cores write: draining every
/// 64 costs two threads of all-hit fixes 5–10% of their rate (38–40M/s
/// against 41–43M/s).
#[cfg(not(any(feature = "shuttle", feature = "loom")))]
pub(super) const BATCH: usize = 256;
#[cfg(feature = "shuttle")]
pub(super) const BATCH: usize = 2;
/// One under loom, whose models then wrap the ring (of four slots).
#[cfg(all(feature = "loom", not(feature = "shuttle")))]
pub(super) const BATCH: usize = 1;
/// Read hits past which a thread waits for the pool lock to drain.
pub(super) const MAX_GATHERED: usize = 4 * BATCH;
/// How many gathered hits ahead a drain fetches the policy's state.
pub(super) const DRAIN_PREFETCH: usize = 16;

/// A key of no page. Page `u64::MAX` is never entered, so hits on it take
/// the pool lock.
pub(super) const NO_PAGE: PageId = PageId::MAX;

/// A value on cache lines of its own (two, for the line the CPU prefetches
/// beside it): a lock that threads write, kept off the lines of whatever
/// lies beside it, which other threads read.
#[derive(Debug, Default)]
#[repr(align(128))]
pub(super) struct Padded<T>(pub(super) T);

/// One entry: a page number and the frame it was entered with.
#[derive(Debug)]
struct Slot {
    page: AtomicU64,
    frame: AtomicU32,
}

/// Resident pages by number: open addressing with linear probing, at most
/// half full. One writer at a time changes it (under the pool lock) while
/// hits read it with no lock at all: a hit writes nothing here, so threads
/// share its lines for reading only. An entry is only a hint: a hit pins
/// the frame it names and then checks that the frame holds the page (the
/// pool's frames say which page they hold), so a stale or torn entry costs
/// a trip to the pool lock, never a wrong page. A removal shifts the
/// entries after it back (no tombstones, so lookups stay short however
/// many pages come and go); a lookup racing the shift may miss an entry
/// and take the pool lock.
#[derive(Debug)]
pub(super) struct Table {
    slots: Box<[Slot]>,
    /// log2 of the number of slots.
    bits: u32,
}

impl Table {
    /// A table for up to `frames` resident pages.
    pub(super) fn new(frames: usize) -> Self {
        let slots = (2 * frames).next_power_of_two().max(8);
        Table {
            slots: (0..slots)
                .map(|_| Slot {
                    page: AtomicU64::new(NO_PAGE),
                    frame: AtomicU32::new(0),
                })
                .collect(),
            bits: slots.trailing_zeros(),
        }
    }

    /// The slot `page`'s probe starts at. Fibonacci hashing: neighbouring
    /// pages land far apart.
    #[inline]
    fn home(&self, page: PageId) -> usize {
        (page.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }

    #[inline]
    fn next(&self, i: usize) -> usize {
        (i + 1) & (self.slots.len() - 1)
    }

    /// The frame `page` was entered with, if its entry is found.
    #[inline]
    pub(super) fn get(&self, page: PageId) -> Option<u32> {
        if page == NO_PAGE {
            return None;
        }
        let mut i = self.home(page);
        // Bounded: a lookup racing a shift may see no empty slot for a while.
        for _ in 0..self.slots.len() {
            let slot = &self.slots[i];
            match slot.page.load(Ordering::Acquire) {
                p if p == page => return Some(slot.frame.load(Ordering::Relaxed)),
                NO_PAGE => return None,
                _ => i = self.next(i),
            }
        }
        None
    }

    /// Enters `page` in `frame`. Only under the pool lock.
    pub(super) fn insert(&self, page: PageId, frame: u32) {
        if page == NO_PAGE {
            return;
        }
        let mut i = self.home(page);
        loop {
            let slot = &self.slots[i];
            let p = slot.page.load(Ordering::Relaxed);
            if p == page || p == NO_PAGE {
                // The frame before the page: a hit that sees the page sees
                // this frame or a later one, which it checks anyway.
                slot.frame.store(frame, Ordering::Relaxed);
                slot.page.store(page, Ordering::Release);
                return;
            }
            // Never full: at most one entry per frame, in twice the slots.
            i = self.next(i);
        }
    }

    /// Removes `page`'s entry, if any. Only under the pool lock.
    pub(super) fn remove(&self, page: PageId) {
        if page == NO_PAGE {
            return;
        }
        let mut hole = self.home(page);
        loop {
            match self.slots[hole].page.load(Ordering::Relaxed) {
                p if p == page => break,
                NO_PAGE => return,
                _ => hole = self.next(hole),
            }
        }
        // Backward shift: an entry after the hole moves into it unless its
        // probe starts after the hole (then it would not be found there).
        let mask = self.slots.len() - 1;
        let mut j = self.next(hole);
        loop {
            let p = self.slots[j].page.load(Ordering::Relaxed);
            if p == NO_PAGE {
                break;
            }
            let probe = j.wrapping_sub(self.home(p)) & mask;
            if probe >= (j.wrapping_sub(hole) & mask) {
                let f = self.slots[j].frame.load(Ordering::Relaxed);
                self.slots[hole].frame.store(f, Ordering::Relaxed);
                self.slots[hole].page.store(p, Ordering::Release);
                hole = j;
            }
            j = self.next(j);
        }
        self.slots[hole].page.store(NO_PAGE, Ordering::Release);
    }
}

/// Read guards taken without the pool lock, counted per stripe and frame:
/// a count pins its frame and holds its latch shared (BRAVO's visible
/// readers, Dice & Kogan, USENIX ATC 2019, with one slot per stripe and
/// frame instead of a hashed table). A thread's counts are its own lines,
/// so read hits of different threads on one page write no common line;
/// whoever must know that a frame has no such reader (a claim, a writer)
/// reads every stripe that ever counted in this pool.
#[derive(Debug)]
pub(super) struct Readers {
    /// Stripe-major: stripe `s`'s count for frame `f` is at
    /// `s × frames + f`.
    counts: Box<[AtomicU32]>,
    frames: usize,
    /// Bit `s` is set once stripe `s` has counted a reader.
    used: Padded<AtomicU32>,
}

impl Readers {
    pub(super) fn new(frames: usize) -> Self {
        Readers {
            counts: (0..STRIPES * frames).map(|_| AtomicU32::new(0)).collect(),
            frames,
            used: Padded(AtomicU32::new(0)),
        }
    }

    /// Stripe `s`'s count of readers of frame `f`.
    #[inline]
    fn count(&self, s: usize, f: u32) -> &AtomicU32 {
        &self.counts[s * self.frames + f as usize]
    }

    /// Counts a reader of frame `f` in this thread's stripe. Sequentially
    /// consistent, as is every check of a frame after it: of this count
    /// and a claim or writer that checks the counts after changing the
    /// frame, one sees the other.
    #[inline]
    pub(super) fn enter(&self, f: u32) {
        self.enter_in(stripe(), f);
    }

    /// [`Readers::enter`] in stripe `s`.
    #[inline]
    fn enter_in(&self, s: usize, f: u32) {
        let bit = 1 << s;
        // Acquire: a bit another thread of this stripe set comes before
        // this count in the order that every check of `used` follows.
        if self.used.0.load(Ordering::Acquire) & bit == 0 {
            self.used.0.fetch_or(bit, Ordering::SeqCst);
        }
        self.count(s, f).fetch_add(1, Ordering::SeqCst);
    }

    /// Takes back a count of [`Readers::enter`], on the thread that
    /// counted it (read guards are not `Send`).
    #[inline]
    pub(super) fn leave(&self, f: u32) {
        self.count(stripe(), f).fetch_sub(1, Ordering::SeqCst);
    }

    /// Whether any stripe counts a reader of frame `f`.
    pub(super) fn any(&self, f: u32) -> bool {
        let mut used = self.used.0.load(Ordering::SeqCst);
        while used != 0 {
            let s = used.trailing_zeros() as usize;
            if self.count(s, f).load(Ordering::SeqCst) != 0 {
                return true;
            }
            used &= used - 1;
        }
        false
    }
}

/// A read hit waiting for the policy: the page's dense id and its frame.
pub(super) type Hit = (DenseId, u32);

/// Read hits not yet told to the policy, gathered per thread.
#[derive(Debug)]
pub(super) struct Stripes {
    stripes: Box<[Padded<Stripe>]>,
    /// The stripe whose thread drains every stripe when its own fills a
    /// batch ([`NO_DRAINER`] before any): one thread does the policy's
    /// work, whose lines then stay in its cache, instead of every thread
    /// in turn pulling them to its own.
    drainer: Padded<AtomicU32>,
}

/// One stripe: a ring of [`MAX_GATHERED`] read hits that its threads fill
/// (one compare-and-swap each, on the stripe's own line, where a lock
/// took two) and the pool lock's holder empties.
#[derive(Debug)]
struct Stripe {
    /// Hits pushed so far: the next slot to fill, modulo the ring.
    tail: AtomicU64,
    /// Hits taken so far; only the pool lock's holder changes it.
    head: AtomicU64,
    /// Packed hits ([`pack`]); [`EMPTY`] for a slot taken, or reserved by
    /// a push that has not yet filled it.
    slots: Box<[AtomicU64]>,
}

/// A slot holding no hit. A hit's frame is never `u32::MAX`, so no packed
/// hit is this value.
const EMPTY: u64 = u64::MAX;

fn pack((dense, frame): Hit) -> u64 {
    (u64::from(dense) << 32) | u64::from(frame)
}

fn unpack(v: u64) -> Hit {
    ((v >> 32) as DenseId, v as u32)
}

/// No thread drains yet: the first whose batch fills becomes the drainer.
const NO_DRAINER: u32 = u32::MAX;

#[cfg(not(feature = "shuttle"))]
fn stripe() -> usize {
    STRIPE.with(|&i| i)
}

/// The model's thread, not the OS thread: the model checker runs every
/// thread of a test on one OS thread, whose one stripe would hide the
/// paths where threads count and gather in different stripes.
#[cfg(feature = "shuttle")]
fn stripe() -> usize {
    usize::from(shuttle::thread::current().id()) % STRIPES
}

/// Threads get stripes in turn.
#[cfg(not(feature = "shuttle"))]
static NEXT_STRIPE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[cfg(not(feature = "shuttle"))]
thread_local! {
    static STRIPE: usize = NEXT_STRIPE.fetch_add(1, Ordering::Relaxed) % STRIPES;
}

impl Stripes {
    pub(super) fn new() -> Self {
        Stripes {
            stripes: (0..STRIPES)
                .map(|_| {
                    Padded(Stripe {
                        tail: AtomicU64::new(0),
                        head: AtomicU64::new(0),
                        slots: (0..MAX_GATHERED).map(|_| AtomicU64::new(EMPTY)).collect(),
                    })
                })
                .collect(),
            drainer: Padded(AtomicU32::new(NO_DRAINER)),
        }
    }

    /// Whether this thread drains when its batch fills: the drainer's
    /// does, and so does the first to ask while there is none.
    #[inline]
    pub(super) fn drains(&self) -> bool {
        let me = stripe() as u32;
        match self.drainer.0.load(Ordering::Relaxed) {
            d if d == me => true,
            NO_DRAINER => self
                .drainer
                .0
                .compare_exchange(NO_DRAINER, me, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok(),
            _ => false,
        }
    }

    /// Makes this thread the drainer: it gathered so many hits that it
    /// must drain, so the drainer, if any, has stopped fixing or lags.
    pub(super) fn take_over(&self) {
        self.drainer.0.store(stripe() as u32, Ordering::Relaxed);
    }

    /// Adds a read hit to this thread's stripe; returns how many it holds,
    /// or `None` if it is full (several threads share it and the pool lock
    /// must drain it first).
    #[inline]
    pub(super) fn push(&self, hit: Hit) -> Option<usize> {
        self.push_in(stripe(), hit)
    }

    /// [`Stripes::push`] into stripe `s`.
    #[inline]
    fn push_in(&self, s: usize, hit: Hit) -> Option<usize> {
        let s = &self.stripes[s].0;
        loop {
            // Head before tail: the taker stores a head it read no further
            // than a tail it loaded, so a tail loaded after this head's
            // acquire is never behind it (loaded the other way round, a
            // stale tail could lie behind a fresh head).
            let h = s.head.load(Ordering::Acquire);
            let t = s.tail.load(Ordering::Relaxed);
            if t - h >= MAX_GATHERED as u64 {
                return None;
            }
            // The slot was emptied before `head` passed it (its release).
            if s.tail
                .compare_exchange_weak(t, t + 1, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                s.slots[t as usize % MAX_GATHERED].store(pack(hit), Ordering::Release);
                return Some((t + 1 - h) as usize);
            }
        }
    }

    /// Moves every gathered hit, stripe by stripe, into `out` (emptied
    /// first), keeping each stripe's order. Only under the pool lock. A
    /// stripe is taken up to its first slot reserved but not yet filled.
    pub(super) fn take(&self, out: &mut Vec<Hit>) {
        out.clear();
        for s in self.stripes.iter() {
            let s = &s.0;
            let mut h = s.head.load(Ordering::Relaxed);
            let t = s.tail.load(Ordering::Acquire);
            while h < t {
                let slot = &s.slots[h as usize % MAX_GATHERED];
                let v = slot.load(Ordering::Acquire);
                if v == EMPTY {
                    break;
                }
                out.push(unpack(v));
                slot.store(EMPTY, Ordering::Relaxed);
                h += 1;
            }
            s.head.store(h, Ordering::Release);
        }
    }
}

/// The hit ring under loom, which runs every interleaving and every
/// outcome the C11 memory model allows for its acquire, release and
/// relaxed accesses (`cargo test -p flashlayer --features loom --lib
/// loom`). The handshake of a hit and a claim (count, then check the page;
/// unname the page, then check the counts) rests on sequentially
/// consistent accesses, which loom weakens to acquire-release and so
/// reports as broken when they are not (loom's README); shuttle checks it
/// with the pool's own code (`tests/pool_model.rs`), as it does the ring's
/// count when its loads come in the wrong order (a schedule of threads
/// sharing a stripe), which this model, bounded to three preemptions, does
/// not reach.
#[cfg(all(test, feature = "loom", not(feature = "shuttle")))]
mod loom_tests {
    use super::*;

    /// Two threads push into one stripe (as threads past the stripe count
    /// do) while a third takes under a lock, as the pool lock's holder
    /// does: every hit a push accepted comes out once, each thread's in
    /// order, and no push miscounts (a count that underflows panics).
    #[test]
    fn loom_shared_stripe_ring_loses_and_reorders_nothing() {
        let mut model = loom::model::Builder::new();
        model.preemption_bound = Some(3);
        model.check(|| {
            let stripes = loom::sync::Arc::new(Stripes::new());
            let taken = loom::sync::Arc::new(loom::sync::Mutex::new(Vec::new()));
            let pushers: Vec<_> = (0..2u32)
                .map(|t| {
                    let stripes = stripes.clone();
                    loom::thread::spawn(move || {
                        let mut accepted = 0;
                        for i in 0..2 {
                            if let Some(n) = stripes.push_in(0, (t, i)) {
                                assert!(n <= MAX_GATHERED, "{n} gathered");
                                accepted += 1;
                            }
                        }
                        accepted
                    })
                })
                .collect();
            {
                let mut out = Vec::new();
                let mut all = taken.lock().unwrap();
                stripes.take(&mut out);
                all.extend(out);
            }
            let accepted: usize = pushers.into_iter().map(|p| p.join().unwrap()).sum();
            let mut out = Vec::new();
            stripes.take(&mut out);
            let mut all = taken.lock().unwrap();
            all.extend(out);
            assert_eq!(all.len(), accepted, "{all:?}");
            for t in 0..2u32 {
                let mine: Vec<u32> = all.iter().filter(|h| h.0 == t).map(|h| h.1).collect();
                assert!(mine.windows(2).all(|w| w[0] < w[1]), "{all:?}");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        /// Inserts and removals on a table of 8 slots (pages drawn from 24,
        /// so probes collide and wrap), checked against a map after every
        /// step: every entered page is found with its frame, no other is.
        #[test]
        fn table_finds_exactly_the_entered_pages_through_collisions_and_shifts(
            steps in prop::collection::vec((any::<bool>(), 0u64..24, 0u32..100), 1..400)
        ) {
            let table = Table::new(4);
            let mut model: HashMap<PageId, u32> = HashMap::new();
            for (insert, page, frame) in steps {
                if insert && (model.len() < 4 || model.contains_key(&page)) {
                    table.insert(page, frame);
                    model.insert(page, frame);
                } else {
                    table.remove(page);
                    model.remove(&page);
                }
                for p in 0..24 {
                    prop_assert_eq!(table.get(p), model.get(&p).copied(), "page {}", p);
                }
            }
        }
    }

    #[test]
    fn a_stripe_gives_its_hits_back_in_order_around_the_ring_and_says_when_full() {
        let stripes = Stripes::new();
        let mut out = Vec::new();
        let mut want = Vec::new();
        let mut next = 0u32;
        for round in 0..5 {
            for _ in 0..MAX_GATHERED - round {
                let hit = (next, next + 1);
                assert!(stripes.push(hit).is_some());
                want.push(hit);
                next += 1;
            }
            stripes.take(&mut out);
            assert_eq!(out, want, "round {round}");
            want.clear();
        }
        for i in 0..MAX_GATHERED {
            assert_eq!(stripes.push((1, 2)), Some(i + 1));
        }
        assert_eq!(stripes.push((1, 2)), None, "a full stripe takes no hit");
        stripes.take(&mut out);
        assert_eq!(out.len(), MAX_GATHERED);
        assert_eq!(stripes.push((3, 4)), Some(1));
    }

    /// More threads than stripes, so several push into one stripe at once,
    /// while another thread takes (under a lock, as the pool lock's holder
    /// does): every hit comes out once, each thread's in its order.
    #[test]
    fn threads_sharing_stripes_lose_no_hit_and_keep_their_order() {
        const THREADS: u32 = 2 * STRIPES as u32 + 3;
        const EACH: u32 = 3_000;
        let stripes = Stripes::new();
        let taker = std::sync::Mutex::new(Vec::new());
        let take = |all: &mut Vec<Hit>| {
            let mut out = Vec::new();
            stripes.take(&mut out);
            all.extend(out);
        };
        std::thread::scope(|scope| {
            for t in 0..THREADS {
                let (stripes, taker, take) = (&stripes, &taker, &take);
                scope.spawn(move || {
                    for i in 0..EACH {
                        while stripes.push((t, i)).is_none() {
                            take(&mut taker.lock().unwrap());
                        }
                    }
                });
            }
            scope.spawn(|| {
                for _ in 0..200 {
                    take(&mut taker.lock().unwrap());
                    std::thread::yield_now();
                }
            });
        });
        let mut all = taker.into_inner().unwrap();
        take(&mut all);
        let mut seen = vec![0u32; THREADS as usize];
        for (t, i) in all {
            assert_eq!(
                i, seen[t as usize],
                "thread {t}'s hits out of order or lost"
            );
            seen[t as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n == EACH), "every hit comes out once");
    }

    #[test]
    fn the_first_thread_to_ask_drains_until_another_takes_over() {
        let stripes = Stripes::new();
        assert!(stripes.drains(), "no drainer yet: the first to ask");
        assert!(stripes.drains(), "and it stays the drainer");
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    assert!(!stripes.drains(), "another thread's batches do not drain");
                    stripes.take_over();
                    assert!(stripes.drains(), "until it must drain, and takes over");
                })
                .join()
                .unwrap();
        });
        assert!(!stripes.drains(), "the first thread no longer drains");
    }

    #[test]
    fn the_page_that_marks_empty_slots_is_never_entered() {
        let table = Table::new(4);
        table.insert(NO_PAGE, 1);
        assert_eq!(table.get(NO_PAGE), None);
        table.insert(7, 2);
        table.remove(NO_PAGE);
        assert_eq!(table.get(7), Some(2));
    }
}
