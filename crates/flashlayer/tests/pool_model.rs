//! Model-checked tests of the buffer pool's protocol — pins, pages being
//! loaded, victims written outside the lock, flushes — with shuttle: the
//! pool's own locks become shuttle's (`src/sync.rs`), and each test runs
//! its threads under many schedules chosen by shuttle's random and PCT
//! schedulers. A deadlock (every thread blocked) fails a test, as does any
//! lost or misread modification.
//!
//! `CARGO_PROFILE_TEST_OPT_LEVEL=0 cargo test --features shuttle --test
//! pool_model`, as `scripts/test` runs it (unoptimised, it builds five times
//! faster than at the test profile's level 1).
#![cfg(feature = "shuttle")]

#[macro_use]
#[path = "wrapped/mod.rs"]
mod wrapped;
mod common;

use common::{Faults, Faulty};
use flashlayer::buffer::BufferPool;
use flashlayer::device::DeviceModel;
use flashlayer::policy::{boxed_online_policy, Arc as ArcPolicy, Lru, Policy, PolicySpec};
use flashlayer::store::{MemStore, PageStore};
use flashlayer::Error;
use shuttle::thread;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const PS: usize = 8;
/// Schedules per test and scheduler: `FLASHLAYER_SCHEDULES`, default 4,000
/// (the test suite's share of time; longer runs take the variable).
fn schedules() -> usize {
    std::env::var("FLASHLAYER_SCHEDULES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4_000)
}

/// Runs `f` under [`schedules`] schedules of shuttle's random scheduler and
/// as many of its PCT scheduler (depth 3), failing a schedule that blocks
/// every thread or runs 20,000 steps (a livelock). Prints the count.
fn explore(name: &str, f: impl Fn() + Send + Sync + 'static) {
    let f = Arc::new(f);
    let config = || {
        let mut c = shuttle::Config::new();
        c.max_steps = shuttle::MaxSteps::FailAfter(20_000);
        c
    };
    let g = Arc::clone(&f);
    let random = shuttle::Runner::new(
        shuttle::scheduler::RandomScheduler::new(schedules()),
        config(),
    )
    .run(move || g());
    let pct = shuttle::Runner::new(
        shuttle::scheduler::PctScheduler::new(3, schedules()),
        config(),
    )
    .run(move || f());
    eprintln!("{name}: {random} random and {pct} PCT schedules explored");
}

/// An LRU pool of `frames` frames over a memory store, for threads to share.
fn shared_pool(frames: usize) -> Arc<BufferPool<Lru, MemStore>> {
    Arc::new(BufferPool::new(Lru::new(frames), MemStore::new(PS, DeviceModel::unit())).unwrap())
}

/// Spawns a thread that runs `f` on its own handle to `pool`.
fn spawn_on<P, S, T>(
    pool: &Arc<BufferPool<P, S>>,
    f: impl FnOnce(&BufferPool<P, S>) -> T + Send + 'static,
) -> thread::JoinHandle<T>
where
    P: Policy + Send + 'static,
    S: PageStore + Send + 'static,
    T: Send + 'static,
{
    let pool = Arc::clone(pool);
    thread::spawn(move || f(&pool))
}

/// Page 1 as the store holds it once `pool`, its threads done, is closed.
fn page_one_after_close(pool: Arc<BufferPool<Lru, MemStore>>) -> [u8; PS] {
    let pool = Arc::try_unwrap(pool).expect("threads are done");
    let mut buf = [0u8; PS];
    pool.close().unwrap().read(1, &mut buf).unwrap();
    buf
}

/// Fixes `page` for writing and adds 1 to byte `t`, retrying failures the
/// test injected and waits for a frame; returns the byte it found.
fn bump<P: Policy, S: PageStore>(pool: &BufferPool<P, S>, page: u64, t: usize) -> u8 {
    loop {
        match pool.fix_write(page) {
            Ok(mut g) => {
                let seen = g[t];
                g[t] += 1;
                return seen;
            }
            Err(Error::AllPinned(_)) => thread::yield_now(),
            Err(Error::Store(m)) if m.starts_with("injected") => thread::yield_now(),
            Err(e) => panic!("{e}"),
        }
    }
}

/// The pages each of [`writers`]' and [`hooked`]'s three threads adds to,
/// in order: overlapping, so that each fix of a two-frame pool evicts.
const PLANS: [&[u64]; 3] = [&[1, 2, 1, 3], &[2, 1, 3], &[3, 3, 1, 2]];

/// Runs [`PLANS`]' three threads over `pool`: thread `t` adds 1 to its
/// byte of each page of its plan through `add(pool, page, t)`, which
/// returns the byte as it was, and checks that it sees its own earlier
/// additions; thread 0 calls `flush(pool)` after its second page.
fn run_plans<P, S>(
    pool: &Arc<BufferPool<P, S>>,
    add: impl Fn(&BufferPool<P, S>, u64, usize) -> u8 + Send + Sync + 'static,
    flush: impl Fn(&BufferPool<P, S>) + Send + Sync + 'static,
) where
    P: Policy + Send + 'static,
    S: PageStore + Send + 'static,
{
    let (add, flush) = (Arc::new(add), Arc::new(flush));
    let handles: Vec<_> = PLANS
        .iter()
        .enumerate()
        .map(|(t, plan)| {
            let (add, flush) = (Arc::clone(&add), Arc::clone(&flush));
            spawn_on(pool, move |pool| {
                let mut mine = [0u8; 4];
                for (i, &p) in plan.iter().enumerate() {
                    assert_eq!(add(pool, p, t), mine[p as usize], "thread {t} page {p}");
                    mine[p as usize] += 1;
                    if t == 0 && i == 1 {
                        flush(pool);
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

/// Checks that `store` holds every addition of [`PLANS`]' threads.
fn holds_every_addition(store: &mut impl PageStore) {
    let mut buf = [0u8; PS];
    for p in 1..=3u64 {
        store.read(p, &mut buf).unwrap();
        for (t, plan) in PLANS.iter().enumerate() {
            let want = plan.iter().filter(|&&q| q == p).count() as u8;
            assert_eq!(buf[t], want, "page {p} thread {t}");
        }
    }
}

/// Pages read ahead by [`writers`], over every schedule run so far.
static READ_AHEAD: AtomicU64 = AtomicU64::new(0);

/// Three threads add to their own byte of overlapping pages through a pool
/// of two frames (so every fix evicts, most victims dirty), one of them
/// flushing midway; every thread sees its own earlier additions, and at
/// the end the store holds all of them.
fn writers<P: Policy + Send + std::fmt::Debug + 'static>(policy: impl Fn() -> P, faults: u64) {
    let faults = Faults::new(faults, Duration::ZERO, 5);
    let store = Faulty {
        inner: MemStore::new(PS, DeviceModel::unit()),
        faults: faults.clone(),
    };
    let pool = Arc::new(BufferPool::new(policy(), store).unwrap());
    run_plans(&pool, bump, |pool| {
        while let Err(e) = pool.flush() {
            assert!(matches!(e, Error::Store(_)), "{e}");
            thread::yield_now();
        }
    });
    faults.on.store(false, Ordering::Relaxed);
    READ_AHEAD.fetch_add(pool.metrics().read_ahead, Ordering::Relaxed);
    let pool = Arc::try_unwrap(pool).expect("threads are done");
    holds_every_addition(&mut pool.close().unwrap());
}

/// Two threads fix the same missing page at once while a third evicts
/// around them: one loads it, the other waits for that load alone, and
/// both see the one copy (the second sees the first's addition).
fn loaders() {
    let pool = shared_pool(2);
    let same: Vec<_> = (0..2)
        .map(|t| {
            spawn_on(&pool, move |pool| {
                bump(pool, 7, 0);
                t
            })
        })
        .collect();
    let other = spawn_on(&pool, move |pool| {
        bump(pool, 8, 1);
        bump(pool, 9, 1);
    });
    for h in same {
        h.join().unwrap();
    }
    other.join().unwrap();
    let page = pool.fix_read(7).unwrap();
    assert_eq!(page[0], 2, "both additions to page 7, on one copy");
}

/// One thread fixes page 1 for writing and changes nothing while another
/// adds to it, and a third fixes other pages: the page is admitted dirty at
/// the first fix's miss and marked clean at that fix's unfix, which must not
/// clean the other thread's addition, whichever unfix comes first. The
/// store ends with the addition.
fn idle_writers() {
    let pool = shared_pool(2);
    let handles: Vec<_> = (0..3)
        .map(|t| {
            spawn_on(&pool, move |pool| match t {
                0 => drop(pool.fix_write(1).unwrap()),
                1 => {
                    bump(pool, 1, 0);
                }
                _ => {
                    drop(pool.fix_read(2).unwrap());
                    drop(pool.fix_read(3).unwrap());
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    drop(pool.fix_read(4).unwrap());
    drop(pool.fix_read(5).unwrap());
    let buf = page_one_after_close(pool);
    assert_eq!(buf[0], 1, "the addition to page 1 is in the store");
}

/// A writer adds to page 1 while a reader reads it between reads of page 3
/// through a pool of two frames: the reader's hits pin page 1 without the
/// pool lock, racing the writer's misses that evict it, and are told to
/// the policy in batches. The reader never sees a count go back or a wrong
/// page, and the store ends with every addition.
fn readers() {
    let pool = shared_pool(2);
    let writer = spawn_on(&pool, move |pool| {
        for _ in 0..3 {
            bump(pool, 1, 0);
            bump(pool, 2, 0);
        }
    });
    let reader = spawn_on(&pool, move |pool| {
        let mut last = 0;
        for _ in 0..3 {
            for p in [1u64, 1, 3] {
                let page = loop {
                    match pool.fix_read(p) {
                        Ok(g) => break g,
                        Err(Error::AllPinned(_)) => thread::yield_now(),
                        Err(e) => panic!("{e}"),
                    }
                };
                if p == 1 {
                    assert!(
                        page[0] >= last,
                        "page 1 went back from {last} to {}",
                        page[0]
                    );
                    last = page[0];
                    // A read guard, counted without the pool lock or
                    // not, keeps every writer out while it is held.
                    thread::yield_now();
                    assert_eq!(page[0], last, "page 1 changed under a read guard");
                } else {
                    assert_eq!(page[0], 0, "page {p} holds another page's bytes");
                }
            }
        }
    });
    writer.join().unwrap();
    reader.join().unwrap();
    let buf = page_one_after_close(pool);
    assert_eq!(buf[0], 3);
}

/// Latch coupling beside a flusher (a checkpointer beside B+-tree
/// descents): through a pool of two frames whose pages are both dirty, a
/// reader holds page 1 while it fixes page 3 (a miss that needs a frame),
/// a writer waits to latch page 1, and a third thread flushes. The flush's
/// write-back of page 1 must not wait for the writer while holding frames
/// the reader waits for: every thread finishes, and the store ends with the
/// writer's addition.
fn coupled_flush() {
    let pool = shared_pool(2);
    bump(&pool, 1, 0);
    bump(&pool, 2, 0);
    let reader = spawn_on(&pool, move |pool| {
        let parent = pool.fix_read(1).unwrap();
        let child = match pool.fix_read(3) {
            Ok(g) => Some(g),
            // Both frames pinned (page 1 by this thread, page 2 by the
            // writer's miss): the descent gives up, as an engine
            // restarts it.
            Err(Error::AllPinned(_)) => None,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(parent[0], 1, "page 1 changed under a read guard");
        drop(child);
    });
    let writer = spawn_on(&pool, move |pool| {
        bump(pool, 1, 1);
    });
    let flusher = spawn_on(&pool, move |pool| pool.flush().unwrap());
    reader.join().unwrap();
    writer.join().unwrap();
    flusher.join().unwrap();
    let buf = page_one_after_close(pool);
    assert_eq!(buf[..2], [1, 1], "page 1 holds both additions");
}

#[test]
fn a_flush_beside_latch_coupling_never_deadlocks() {
    explore("coupled flush", coupled_flush);
}

/// Three threads read two resident pages over and over while one of them
/// also misses: the model gives two stripes, so two threads gather their
/// read hits in one stripe while the third's misses drain it under the
/// pool lock. No hit is told twice (a hit on a page evicted before the
/// drain is dropped, as the pool's protocol says), and the rings' counts
/// never go wrong.
fn shared_stripes() {
    let pool = shared_pool(3);
    drop(pool.fix_read(1).unwrap());
    drop(pool.fix_read(2).unwrap());
    let handles: Vec<_> = (0..3u64)
        .map(|t| {
            spawn_on(&pool, move |pool| {
                for i in 0..6u64 {
                    let page = if t == 2 && i % 2 == 1 {
                        3 + i
                    } else {
                        1 + i % 2
                    };
                    loop {
                        match pool.fix_read(page) {
                            Ok(g) => break assert_eq!(g[0], 0),
                            Err(Error::AllPinned(_)) => thread::yield_now(),
                            Err(e) => panic!("{e}"),
                        }
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let m = pool.metrics();
    assert!(
        m.hits + m.misses <= 2 + 18,
        "no fix told to the policy twice: {m:?}"
    );
    assert!(m.misses >= 2 + 3, "every miss is told: {m:?}");
}

#[test]
fn read_hits_gathered_in_shared_stripes_are_each_told_once() {
    explore("shared stripes", shared_stripes);
}

#[test]
fn read_hits_without_the_pool_lock_race_evictions_safely() {
    explore("readers", readers);
}

#[test]
fn writers_lose_nothing_under_every_explored_schedule_with_lru() {
    explore("writers, LRU", || writers(|| Lru::new(2), 0));
}

#[test]
fn writers_lose_nothing_when_reads_and_write_backs_fail() {
    explore("writers, LRU, failures", || writers(|| Lru::new(2), 3));
}

#[test]
fn writers_lose_nothing_with_a_policy_that_keeps_ghosts() {
    explore("writers, ARC, failures", || {
        writers(|| ArcPolicy::new(2), 4)
    });
}

#[test]
fn writers_lose_nothing_with_policies_that_write_clusters() {
    // ACE's evicting variant frees the frame of the page written with
    // the victim as well.
    for spec in [
        "fdbuffer:cluster=2",
        "cfdc:cluster=2",
        "ace:nw=2,ne=2",
        "ace:base=watt,nw=2,ne=2",
    ] {
        explore(spec, move || {
            writers(
                || boxed_online_policy(&PolicySpec::parse(spec).unwrap(), 2, 0).unwrap(),
                3,
            )
        });
    }
}

/// ACE's prefetching variant: a dirty victim's miss evicts the next clean
/// victim and reads the page numbered after the requested one into its
/// frame, while other threads fix that page (they wait for the read) or
/// evict around it, and reads and writes fail at random.
#[test]
fn writers_lose_nothing_while_pages_are_read_ahead() {
    let spec = "ace:nw=2,ne=2,pf=on";
    explore(spec, move || {
        writers(
            || boxed_online_policy(&PolicySpec::parse(spec).unwrap(), 2, 0).unwrap(),
            3,
        )
    });
    assert!(
        READ_AHEAD.load(Ordering::Relaxed) > 0,
        "some schedules read pages ahead"
    );
}

#[test]
fn a_writer_that_changes_nothing_never_cleans_another_writers_change() {
    explore("idle writers", idle_writers);
}

#[test]
fn fixers_of_a_page_being_loaded_wait_for_that_load_and_share_it() {
    explore("loaders", loaders);
}

/// A memory store without shared I/O (every call under the store's lock)
/// whose writes and admissions fail or panic now and then: it may listen
/// for evictions (a placing store: each miss runs whole under the pool
/// lock) and keep only the byte ranges a write says changed (as IPL does).
#[derive(Debug)]
struct Hooks {
    inner: MemStore,
    listening: bool,
    ranged: bool,
    /// One write and one admission in `every` fails, every other one of
    /// those by a panic (0: none).
    every: u64,
    calls: Arc<AtomicU64>,
}

impl Hooks {
    fn strike(&self, what: &str, page: u64) -> flashlayer::Result<()> {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        if self.every == 0 || !n.is_multiple_of(self.every) {
            return Ok(());
        }
        if (n / self.every).is_multiple_of(2) {
            panic!("injected panic in a store {what} of page {page}");
        }
        Err(Error::Store(format!(
            "injected {what} failure of page {page}"
        )))
    }
}

impl PageStore for Hooks {
    fn page_size(&self) -> usize {
        PS
    }
    fn read(&mut self, page: u64, buf: &mut [u8]) -> flashlayer::Result<()> {
        self.inner.read(page, buf)
    }
    fn write(&mut self, page: u64, buf: &[u8]) -> flashlayer::Result<()> {
        self.strike("write", page)?;
        self.inner.write(page, buf)
    }
    fn write_changed(
        &mut self,
        page: u64,
        buf: &[u8],
        changed: &[(u32, u32)],
    ) -> flashlayer::Result<()> {
        if !self.ranged {
            return self.write(page, buf);
        }
        self.strike("write", page)?;
        let mut held = [0u8; PS];
        self.inner.read(page, &mut held)?;
        for &(at, len) in changed {
            let (a, b) = (at as usize, (at + len) as usize);
            held[a..b].copy_from_slice(&buf[a..b]);
        }
        self.inner.write(page, &held)
    }
    fn write_batch(&mut self, batch: &[(u64, &[u8])]) -> flashlayer::Result<()> {
        batch
            .iter()
            .try_for_each(|&(page, buf)| self.write(page, buf))
    }
    fn flush(&mut self) -> flashlayer::Result<()> {
        Ok(())
    }
    fn cost_of(&self, page: u64) -> flashlayer::types::PageCost {
        self.inner.cost_of(page)
    }
    fn stats(&self) -> flashlayer::store::IoStats {
        self.inner.stats()
    }
    fn listens(&self) -> flashlayer::store::Listens {
        flashlayer::store::Listens {
            evictions: self.listening,
            ..Default::default()
        }
    }
    fn admitted(&mut self, page: u64, _op: flashlayer::types::Op) -> flashlayer::Result<()> {
        self.strike("admission", page)
    }
    fn wants_changes(&self) -> bool {
        self.ranged
    }
}

/// How a thread of [`hooked`] fixes a page.
#[derive(Clone, Copy, Debug)]
enum Fix {
    Plain,
    /// `fix_write_timeout` with a timeout no schedule reaches: a fix that
    /// misses a wake-up sleeps for ever, which shuttle reports.
    Timed,
    /// `try_fix_write`, and a timed fix when the page is not resident.
    Try,
}

/// Adds 1 to byte `t` of `page`, retrying what the test injected (errors
/// and panics) and waits for a frame; returns the byte found. A panic
/// after the addition (in the unfix) counts as done.
fn add<P: Policy, S: PageStore>(pool: &BufferPool<P, S>, page: u64, t: usize, how: Fix) -> u8 {
    let long = Duration::from_secs(3600);
    loop {
        let mut seen = None;
        let tried = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let fixed = match how {
                Fix::Plain => pool.fix_write(page),
                Fix::Timed => pool.fix_write_timeout(page, long),
                Fix::Try => match pool.try_fix_write(page) {
                    Some(g) => Ok(g),
                    None => pool.fix_write_timeout(page, long),
                },
            };
            fixed.map(|mut g| {
                seen = Some(g[t]);
                g[t] += 1;
            })
        }));
        match (tried, seen) {
            (_, Some(s)) => return s,
            (Ok(Err(Error::AllPinned(_))), None) => thread::yield_now(),
            (Ok(Err(Error::Store(m))), None) if m.starts_with("injected") => thread::yield_now(),
            (Ok(Err(e)), None) => panic!("{e}"),
            (Err(_), None) => thread::yield_now(),
            (Ok(Ok(())), None) => unreachable!("a fix that succeeded saw the byte"),
        }
    }
}

/// Three threads add to their own byte of overlapping pages through a pool
/// of two frames over a [`Hooks`] store, each fixing its way (`how`), one
/// of them flushing midway, while writes and admissions fail or panic one
/// in `every` and a recorder panics at one unfix in `recorder_every`:
/// every thread sees its own earlier additions, and at the end the store
/// holds all of them.
fn hooked(listening: bool, ranged: bool, every: u64, recorder_every: u64, how: [Fix; 3]) {
    let calls = Arc::new(AtomicU64::new(0));
    let store = Hooks {
        inner: MemStore::new(PS, DeviceModel::unit()),
        listening,
        ranged,
        every,
        calls: Arc::clone(&calls),
    };
    let pool = Arc::new(BufferPool::new(Lru::new(2), store).unwrap());
    if recorder_every > 0 {
        let n = AtomicU64::new(0);
        pool.set_recorder(
            Box::new(
                move |_: u64, _: flashlayer::types::Op, _: &[flashlayer::types::ByteRange]| {
                    if n.fetch_add(1, Ordering::Relaxed) % recorder_every == recorder_every - 1 {
                        panic!("injected panic in the recorder");
                    }
                },
            ),
            false,
        )
        .unwrap();
    }
    run_plans(
        &pool,
        move |pool, p, t| add(pool, p, t, how[t]),
        |pool| loop {
            let flushed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.flush()));
            match flushed {
                Ok(Ok(())) => break,
                Ok(Err(e)) => assert!(matches!(e, Error::Store(_)), "{e}"),
                Err(_) => {}
            }
            thread::yield_now();
        },
    );
    assert_eq!(pool.sleepers(), 0, "no sleeper outlived its fix");
    let pool = Arc::try_unwrap(pool).expect("threads are done");
    // Failures stop: the store takes every write from here on.
    pool.with_store(|s| s.every = 0);
    holds_every_addition(&mut pool.close().unwrap());
}

/// One test per case of [`hooked`]: its name, what the model check says
/// it explores, and `hooked`'s arguments.
macro_rules! hooked_cases {
    ($($test:ident: $what:literal, $args:tt;)*) => {
        $(
            #[test]
            fn $test() {
                explore($what, || hooked $args);
            }
        )*
    };
}

hooked_cases! {
    timed_and_try_fixes_lose_nothing_and_leave_no_sleeper:
        "timed and try fixes", (false, false, 0, 0, [Fix::Timed, Fix::Try, Fix::Timed]);
    a_listening_store_whose_writes_and_admissions_fail_or_panic_loses_nothing:
        "listening store, injected failures and panics", (true, false, 3, 0, [Fix::Plain, Fix::Timed, Fix::Try]);
    a_ranged_store_whose_write_backs_fail_or_panic_loses_no_range:
        "ranged store, injected failures and panics", (false, true, 3, 0, [Fix::Plain, Fix::Timed, Fix::Plain]);
    a_recorder_that_panics_loses_no_modification:
        "recorder panics", (false, false, 0, 4, [Fix::Plain, Fix::Try, Fix::Timed]);
}
