//! The buffer pool's failure paths lose nothing: a write-back that fails or
//! panics keeps what it was to write (its byte ranges included), a failure
//! after a victim is claimed leaves the victim in the policy and its frame
//! its own, a panic inside a timed fix leaves no sleeper counted, timed fixes bound every wait, try
//! fixes wait for nothing, and a close that fails gives the pool back.

use flashlayer::buffer::{BufferPool, WriteAhead};
use flashlayer::device::DeviceModel;
use flashlayer::policy::{Lru, Policy};
use flashlayer::store::{IoStats, Listens, MemStore, PageStore};
use flashlayer::types::{DenseId, Op, PageCost, PageId};
use flashlayer::{Error, Result};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

const PS: usize = 16;

/// What a [`Faulty`] store does next: fail or panic at the n-th call of a
/// kind (1: the next), counted down.
#[derive(Default)]
struct Faults {
    write_err: AtomicU32,
    write_panic: AtomicU32,
    admitted_err: AtomicU32,
}

fn strike(left: &AtomicU32) -> bool {
    left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok_and(|n| n == 1)
}

/// A memory store that can fail or panic on writes and admissions; it may
/// listen for evictions (a placing store, whose misses run whole under the
/// pool lock) and keep only the byte ranges a write says changed (as IPL
/// writes only its log sectors).
struct Faulty {
    inner: MemStore,
    faults: Arc<Faults>,
    listening: bool,
    ranged: bool,
    /// Called before each read with the page: a test can block it there.
    on_read: Option<Box<dyn Fn(PageId) + Send>>,
}

impl std::fmt::Debug for Faulty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Faulty")
    }
}

impl Faulty {
    fn new(listening: bool, ranged: bool) -> (Self, Arc<Faults>) {
        let faults = Arc::new(Faults::default());
        let store = Faulty {
            inner: MemStore::new(PS, DeviceModel::unit()),
            faults: Arc::clone(&faults),
            listening,
            ranged,
            on_read: None,
        };
        (store, faults)
    }

    fn check_write(&self, page: PageId) -> Result<()> {
        if strike(&self.faults.write_panic) {
            panic!("injected panic in a store write of page {page}");
        }
        if strike(&self.faults.write_err) {
            return Err(Error::Store(format!(
                "injected failure writing page {page}"
            )));
        }
        Ok(())
    }
}

impl PageStore for Faulty {
    fn page_size(&self) -> usize {
        PS
    }
    fn read(&mut self, page: PageId, buf: &mut [u8]) -> Result<()> {
        if let Some(f) = &self.on_read {
            f(page);
        }
        self.inner.read(page, buf)
    }
    fn write(&mut self, page: PageId, buf: &[u8]) -> Result<()> {
        self.check_write(page)?;
        self.inner.write(page, buf)
    }
    fn write_changed(&mut self, page: PageId, buf: &[u8], changed: &[(u32, u32)]) -> Result<()> {
        if !self.ranged {
            return self.write(page, buf);
        }
        self.check_write(page)?;
        // Only the ranges reach the store, over what it held.
        let mut held = vec![0u8; PS];
        self.inner.read(page, &mut held)?;
        for &(at, len) in changed {
            let (a, b) = (at as usize, (at + len) as usize);
            held[a..b].copy_from_slice(&buf[a..b]);
        }
        self.inner.write(page, &held)
    }
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    fn cost_of(&self, page: PageId) -> PageCost {
        self.inner.cost_of(page)
    }
    fn stats(&self) -> IoStats {
        self.inner.stats()
    }
    fn listens(&self) -> Listens {
        Listens {
            evictions: self.listening,
            ..Listens::default()
        }
    }
    fn admitted(&mut self, page: PageId, _op: Op) -> Result<()> {
        if strike(&self.faults.admitted_err) {
            return Err(Error::Store(format!(
                "injected failure admitting page {page}"
            )));
        }
        Ok(())
    }
    fn wants_changes(&self) -> bool {
        self.ranged
    }
}

fn quietly<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    catch_unwind(AssertUnwindSafe(f))
}

fn stored(store: &mut impl PageStore, page: PageId) -> Vec<u8> {
    let mut buf = vec![0u8; PS];
    store.read(page, &mut buf).unwrap();
    buf
}

fn write(pool: &BufferPool<impl Policy, Faulty>, page: PageId, at: usize, bytes: &[u8]) {
    pool.fix_write(page).unwrap()[at..at + bytes.len()].copy_from_slice(bytes);
}

/// A one-frame LRU pool over a [`Faulty`] store (`listening`, `ranged`)
/// whose page 1 is dirty, `bytes` written at its start.
fn one_dirty_page(
    listening: bool,
    ranged: bool,
    bytes: &[u8],
) -> (BufferPool<Lru, Faulty>, Arc<Faults>) {
    let (store, faults) = Faulty::new(listening, ranged);
    let pool = BufferPool::new(Lru::new(1), store).unwrap();
    write(&pool, 1, 0, bytes);
    (pool, faults)
}

// 1. A failed ranged write-back forgets no range.

#[test]
fn a_failed_ranged_flush_keeps_its_ranges_for_the_next_write() {
    for panics in [false, true] {
        let (store, faults) = Faulty::new(false, true);
        let pool = BufferPool::new(Lru::new(4), store).unwrap();
        write(&pool, 1, 0, &[1, 1, 1, 1]);
        let fault = if panics {
            &faults.write_panic
        } else {
            &faults.write_err
        };
        fault.store(1, Ordering::SeqCst);
        assert!(quietly(|| pool.flush()).map_or(true, |r| r.is_err()));
        assert!(pool.is_dirty(1));
        write(&pool, 1, 8, &[2, 2, 2, 2]);
        pool.flush().unwrap();
        let mut store = pool.close().unwrap();
        assert_eq!(
            stored(&mut store, 1),
            [1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 0, 0],
            "the first change reached the store (panics: {panics})"
        );
    }
}

#[test]
fn a_failed_ranged_victim_write_keeps_its_ranges_for_the_next_write() {
    let (pool, faults) = one_dirty_page(false, true, &[1, 1, 1, 1]);
    faults.write_err.store(1, Ordering::SeqCst);
    assert!(pool.fix_read(2).is_err(), "the victim's write failed");
    write(&pool, 1, 8, &[2, 2, 2, 2]);
    drop(pool.fix_read(2).unwrap());
    let mut store = pool.close().unwrap();
    assert_eq!(
        &stored(&mut store, 1)[..12],
        &[1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2]
    );
}

// 2. A failure after a victim is claimed leaves the pool whole.

/// LRU that panics in its next `insert` when told to.
struct Brittle {
    inner: Lru,
    panic_next_insert: Arc<AtomicBool>,
}

impl Policy for Brittle {
    fn name(&self) -> String {
        "brittle-lru".into()
    }
    fn insert(&mut self, page: DenseId, op: Op, cost: PageCost) {
        if self.panic_next_insert.swap(false, Ordering::SeqCst) {
            panic!("injected panic in the policy's insert of page {page}");
        }
        self.inner.insert(page, op, cost)
    }
    pass_policy_through!();
}

/// After a failure, the pool goes on: every page can be fixed, the dirty
/// victim stays dirty until written, and close writes it.
fn goes_on<P: Policy>(pool: BufferPool<P, Faulty>, victim: PageId, byte: u8) {
    assert!(pool.is_resident(victim), "the victim keeps its frame");
    assert!(pool.is_dirty(victim), "the victim stays dirty");
    for page in 2..10 {
        drop(pool.fix_read(page).unwrap());
    }
    let mut store = pool.close().unwrap();
    assert_eq!(
        stored(&mut store, victim)[0],
        byte,
        "the victim's change is durable"
    );
}

#[test]
fn a_store_write_that_panics_in_a_listening_stores_miss_keeps_the_victim() {
    let (pool, faults) = one_dirty_page(true, false, &[11]);
    faults.write_panic.store(1, Ordering::SeqCst);
    assert!(
        quietly(|| drop(pool.fix_read(2))).is_err(),
        "the write panicked"
    );
    goes_on(pool, 1, 11);
}

#[test]
fn a_placing_stores_failed_admission_keeps_the_victim() {
    let (pool, faults) = one_dirty_page(true, false, &[12]);
    faults.admitted_err.store(1, Ordering::SeqCst);
    assert!(pool.fix_read(2).is_err(), "the admission failed");
    assert!(!pool.is_resident(2));
    goes_on(pool, 1, 12);
}

#[test]
fn a_policy_that_panics_in_insert_leaves_the_victim_in_its_frame() {
    for listening in [false, true] {
        let flag = Arc::new(AtomicBool::new(false));
        let policy = Brittle {
            inner: Lru::new(1),
            panic_next_insert: Arc::clone(&flag),
        };
        let (store, _) = Faulty::new(listening, false);
        let pool = BufferPool::new(policy, store).unwrap();
        write(&pool, 1, 0, &[13]);
        flag.store(true, Ordering::SeqCst);
        assert!(
            quietly(|| drop(pool.fix_read(2))).is_err(),
            "insert panicked"
        );
        goes_on(pool, 1, 13);
    }
}

/// A write-ahead log whose next `before_write` panics when armed.
#[derive(Debug, Default)]
struct PanickyLog {
    armed: AtomicBool,
}

impl WriteAhead for PanickyLog {
    fn before_write(&self, _page: PageId, _bytes: &[u8]) -> Result<()> {
        if self.armed.swap(false, Ordering::SeqCst) {
            panic!("injected panic before a write");
        }
        Ok(())
    }
}

#[test]
fn a_write_ahead_hook_that_panics_in_a_listening_stores_miss_keeps_the_victim() {
    let (store, _) = Faulty::new(true, false);
    let log = Arc::new(PanickyLog::default());
    let pool = BufferPool::new(Lru::new(1), store)
        .unwrap()
        .with_write_ahead(log.clone());
    write(&pool, 1, 0, &[14]);
    log.armed.store(true, Ordering::SeqCst);
    assert!(quietly(|| drop(pool.fix_read(2))).is_err());
    goes_on(pool, 1, 14);
}

// 3. A panic inside a waiting fix leaves no sleeper counted.

#[test]
fn a_panic_inside_a_timed_fix_leaves_no_sleeper_counted() {
    let (pool, faults) = one_dirty_page(false, false, &[1]);
    faults.write_panic.store(1, Ordering::SeqCst);
    assert!(quietly(|| drop(pool.fix_read_timeout(2, Duration::from_secs(5)))).is_err());
    assert_eq!(
        pool.sleepers(),
        0,
        "the panicking fix is no longer counted as a sleeper"
    );
    drop(pool.fix_read_timeout(2, Duration::from_secs(5)).unwrap());
    assert_eq!(pool.sleepers(), 0);
}

// 4. Timed fixes bound every wait; try fixes wait for nothing; a failed
// close gives the pool back.

#[test]
fn timed_fixes_in_a_latch_cycle_return() {
    let (store, _) = Faulty::new(false, false);
    let pool = BufferPool::new(Lru::new(4), store).unwrap();
    let both = std::sync::Barrier::new(2);
    // Each holds one page and asks for the other's: without a bound on the
    // latch's wait, neither would ever return. Once one gives up and lets
    // its page go, the other may get it.
    let outcomes: Vec<&str> = std::thread::scope(|s| {
        let run = |mine: PageId, theirs: PageId| {
            let pool = &pool;
            let both = &both;
            s.spawn(move || {
                let held = pool.fix_write(mine).unwrap();
                both.wait();
                let got = pool.fix_write_timeout(theirs, Duration::from_millis(50));
                drop(held);
                match got {
                    Ok(_) => "got it",
                    Err(Error::TimedOut) => "timed out",
                    Err(e) => panic!("{e}"),
                }
            })
        };
        let (a, b) = (run(1, 2), run(2, 1));
        vec![a.join().unwrap(), b.join().unwrap()]
    });
    assert!(outcomes.contains(&"timed out"), "{outcomes:?}");
    // They left nothing held.
    assert_eq!(pool.sleepers(), 0);
    drop(pool.fix_write(1).unwrap());
    drop(pool.fix_write(2).unwrap());
}

#[test]
fn try_fix_write_does_not_wait_behind_a_listening_stores_io() {
    let (mut store, _) = Faulty::new(true, false);
    let (reading, go) = (mpsc::channel::<()>(), mpsc::channel::<()>());
    let (tell, wait) = (Mutex::new(reading.0), Mutex::new(go.1));
    store.on_read = Some(Box::new(move |page| {
        if page == 9 {
            tell.lock().unwrap().send(()).unwrap();
            // Held here, under the pool lock, until the other thread is done.
            let _ = wait.lock().unwrap().recv_timeout(Duration::from_secs(30));
        }
    }));
    let pool = BufferPool::new(Lru::new(4), store).unwrap();
    write(&pool, 1, 0, &[1]);
    std::thread::scope(|s| {
        let missing = s.spawn(|| drop(pool.fix_read(9).unwrap()));
        reading.1.recv().unwrap();
        // The miss of page 9 holds the pool lock across its read.
        assert!(
            pool.try_fix_write(1).is_none(),
            "a busy pool is None, not a wait"
        );
        assert!(pool.try_fix_read(1).is_some(), "a read hit needs no lock");
        go.0.send(()).unwrap();
        missing.join().unwrap();
    });
    assert!(pool.try_fix_write(1).is_some());
}

#[test]
fn a_close_whose_flush_fails_gives_the_pool_back_with_its_dirty_pages() {
    let (store, faults) = Faulty::new(false, false);
    let pool = BufferPool::new(Lru::new(4), store).unwrap();
    write(&pool, 3, 0, &[33]);
    write(&pool, 1, 0, &[11]);
    faults.write_err.store(1, Ordering::SeqCst);
    let failed = pool.close().unwrap_err();
    assert!(failed.error.to_string().contains("injected failure"));
    let mut dirty = failed.dirty.clone();
    dirty.sort_unstable();
    assert_eq!(dirty, [1, 3]);
    let pool = failed.pool;
    assert!(pool.is_dirty(1) && pool.is_dirty(3), "nothing was dropped");
    let mut store = pool.close().unwrap();
    assert_eq!(
        (stored(&mut store, 1)[0], stored(&mut store, 3)[0]),
        (11, 33)
    );
}
