//! What an engine expects of the buffer pool beyond fix and unfix: a fix
//! that never waits (`try_fix_*`), a fix that waits for a frame instead of
//! failing at once (`fix_*_timeout`), and a write-ahead log's hold on
//! write-backs (`with_write_ahead`, the WAL rule).

use crate::hooked;

use flashlayer::buffer::{BufferPool, WriteAhead};
use flashlayer::device::DeviceModel;
use flashlayer::policy::{Ace, Lru};
use flashlayer::store::{MemStore, PageStore};
use flashlayer::types::PageId;
use flashlayer::{Error, Result};
use hooked::Hooked;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

const PS: usize = 64;

fn pool(frames: usize) -> BufferPool<Lru, MemStore> {
    BufferPool::new(Lru::new(frames), MemStore::new(PS, DeviceModel::unit())).unwrap()
}

#[test]
fn try_fix_takes_only_a_resident_page_whose_latch_is_free() {
    let pool = pool(4);
    assert!(pool.try_fix_read(1).is_none(), "not resident: no read");
    assert!(pool.try_fix_write(1).is_none());
    assert!(!pool.is_resident(1), "a try never loads");
    pool.fix_write(1).unwrap()[0] = 5;
    assert_eq!(pool.try_fix_read(1).unwrap()[0], 5);
    {
        let reader = pool.fix_read(1).unwrap();
        assert!(pool.try_fix_write(1).is_none(), "a reader holds it");
        assert_eq!(pool.try_fix_read(1).unwrap()[0], reader[0], "readers share");
    }
    pool.try_fix_write(1).unwrap()[0] = 6;
    assert!(pool.is_dirty(1));
    // A writer on another thread: no try gets the page meanwhile.
    let ((held, holding), (release, released)) = (mpsc::channel(), mpsc::channel::<()>());
    std::thread::scope(|s| {
        let pool = &pool;
        s.spawn(move || {
            let mut g = pool.fix_write(1).unwrap();
            g[0] = 7;
            held.send(()).unwrap();
            released.recv().unwrap();
        });
        holding.recv().unwrap();
        assert!(pool.try_fix_read(1).is_none(), "a writer holds it");
        assert!(pool.try_fix_write(1).is_none());
        release.send(()).unwrap();
    });
    assert_eq!(pool.try_fix_read(1).unwrap()[0], 7);
    let m = pool.metrics();
    assert_eq!(
        m.misses, 1,
        "tries that took nothing told the policy nothing"
    );
}

#[test]
fn a_waiting_fix_sleeps_until_a_frame_is_free_and_gives_up_at_its_timeout() {
    let pool = pool(1);
    let held = pool.fix_write(1).unwrap();
    assert!(matches!(pool.fix_read(2), Err(Error::AllPinned(1))));
    assert!(matches!(
        pool.fix_read_timeout(2, Duration::ZERO),
        Err(Error::AllPinned(1))
    ));
    let ((start, started), (finish, finished)) = (mpsc::channel(), mpsc::channel());
    std::thread::scope(|s| {
        let pool = &pool;
        s.spawn(move || {
            start.send(()).unwrap();
            let g = pool.fix_write_timeout(2, Duration::from_secs(600)).unwrap();
            finish.send(g[0]).unwrap();
        });
        started.recv().unwrap();
        // The waiter sleeps, or has not tried yet: either way it gets the
        // frame once this guard goes.
        drop(held);
        assert_eq!(finished.recv().unwrap(), 0);
    });
    assert!(pool.is_resident(2));
}

/// A log whose durable end moves only when asked; pages carry the LSN of
/// their last change in their first 8 bytes.
#[derive(Debug, Default)]
struct Log {
    appended: AtomicU64,
    durable: AtomicU64,
    flushes: AtomicU64,
}

impl Log {
    fn append(&self) -> u64 {
        self.appended.fetch_add(1, Ordering::SeqCst) + 1
    }
}

impl WriteAhead for Log {
    fn before_write(&self, _page: PageId, bytes: &[u8]) -> Result<()> {
        let lsn = lsn(bytes);
        if self.durable.load(Ordering::SeqCst) < lsn {
            self.flushes.fetch_add(1, Ordering::SeqCst);
            self.durable.fetch_max(lsn, Ordering::SeqCst);
        }
        Ok(())
    }
}

/// The LSN a page carries in its first 8 bytes.
fn lsn(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..8].try_into().unwrap())
}

/// Four threads change pages of a 4-frame pool (so victims are written
/// back) and flush now and then; returns the write-backs that broke the
/// WAL rule.
fn changes(hold_back: bool) -> (u64, Arc<Log>) {
    let log = Arc::new(Log::default());
    let broken = Arc::new(AtomicU64::new(0));
    // The store counts writes of pages whose LSN the log has not made
    // durable: the WAL rule broken.
    let (l, b) = (Arc::clone(&log), Arc::clone(&broken));
    let store = Hooked {
        inner: MemStore::new(PS, DeviceModel::unit()),
        hook: Box::new(move |_, write| {
            if let Some(bytes) = write {
                if lsn(bytes) > l.durable.load(Ordering::SeqCst) {
                    b.fetch_add(1, Ordering::SeqCst);
                }
            }
            Ok(())
        }),
    };
    let mut pool = BufferPool::new(Lru::new(4), store).unwrap();
    if hold_back {
        pool = pool.with_write_ahead(Arc::clone(&log) as Arc<dyn WriteAhead>);
    }
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let (pool, log) = (&pool, &log);
            s.spawn(move || {
                for i in 0..500u64 {
                    let page = (t * 7 + i * 3) % 16;
                    match pool.fix_write_timeout(page, Duration::from_secs(600)) {
                        Ok(mut g) => {
                            // Log first, then change the page with its LSN.
                            let lsn = log.append();
                            g[..8].copy_from_slice(&lsn.to_le_bytes());
                        }
                        Err(e) => panic!("{e}"),
                    }
                    if i % 50 == 0 {
                        pool.flush().unwrap();
                    }
                }
            });
        }
    });
    pool.close().unwrap();
    (broken.load(Ordering::SeqCst), log)
}

#[test]
fn a_write_ahead_log_sees_every_write_back_before_the_store_does() {
    let (broken, log) = changes(true);
    assert_eq!(broken, 0, "no page reached the store ahead of its log");
    assert!(log.flushes.load(Ordering::SeqCst) > 0);
    // Without the hook the same run writes pages ahead of the log: the
    // check above can fail.
    let (broken, _) = changes(false);
    assert!(broken > 0);
}

/// A pool of 4 frames under ACE over LRU reading ahead (nw = ne = 3)
/// over a store holding pages 1 to 8, each filled with its number, once
/// the pool has met them all (`read_ahead` reads only pages it knows):
/// resident 5 (dirty), 6, 7, 8 from the LRU end.
fn reading_ahead(store: impl PageStore) -> BufferPool<Ace<Lru>, impl PageStore> {
    let pool = BufferPool::new(
        Ace::with_read_ahead(Lru::new(4), 3, 3, 0, true).unwrap(),
        store,
    )
    .unwrap();
    for p in 1..=8 {
        drop(pool.fix_read(p).unwrap());
    }
    pool.fix_write(5).unwrap()[1] = 1;
    for p in 6..=8 {
        drop(pool.fix_read(p).unwrap());
    }
    assert_eq!(pool.metrics().read_ahead, 0, "no dirty victim yet");
    pool
}

fn numbered_pages() -> MemStore {
    let mut store = MemStore::new(PS, DeviceModel::unit());
    for p in 1..=8u8 {
        store.write(p.into(), &[p; PS]).unwrap();
    }
    store
}

/// ACE's prefetching variant in the pool, the step its authors draw: a
/// miss whose victim (5) is dirty writes it, evicts the next two clean
/// victims (6, 7) and reads the two pages numbered after the requested
/// one (3, 4) into their frames, unpinned, holding the store's bytes;
/// fixing one of them is a hit on a page read ahead.
#[test]
fn a_dirty_victims_miss_reads_the_next_pages_into_the_frames_it_frees() {
    let pool = reading_ahead(numbered_pages());
    assert_eq!(pool.fix_read(2).unwrap()[0], 2);
    let m = pool.metrics();
    assert_eq!((m.dirty_evictions, m.read_ahead, m.misses), (1, 2, 9));
    let before = pool.metrics();
    assert_eq!(pool.fix_read(3).unwrap()[0], 3);
    assert_eq!(pool.fix_read(4).unwrap()[0], 4);
    assert_eq!(pool.fix_read(8).unwrap()[0], 8);
    let m = pool.metrics();
    assert_eq!((m.hits - before.hits, m.read_ahead_used), (3, 2));
    // Nothing is left pinned: every page can leave.
    pool.empty().unwrap();
}

/// A read ahead that fails admits none of its pages and fails no fix: the
/// fix that caused it gets its page, and a later fix of a page it could
/// not read reads that page itself, meeting the store's error then.
#[test]
fn a_failed_read_ahead_admits_nothing_and_the_fix_succeeds() {
    let broken = Arc::new(AtomicU64::new(0));
    let b = Arc::clone(&broken);
    let store = Hooked {
        inner: numbered_pages(),
        hook: Box::new(move |page, write| {
            if write.is_none() && page == b.load(Ordering::SeqCst) {
                return Err(Error::Store(format!("injected read error on page {page}")));
            }
            Ok(())
        }),
    };
    let pool = reading_ahead(store);
    broken.store(4, Ordering::SeqCst);
    assert_eq!(pool.fix_read(2).unwrap()[0], 2);
    assert_eq!(pool.metrics().read_ahead, 0);
    let misses = pool.metrics().misses;
    assert_eq!(pool.fix_read(3).unwrap()[0], 3);
    assert_eq!(pool.metrics().misses, misses + 1, "page 3 was not admitted");
    assert!(matches!(pool.fix_read(4), Err(Error::Store(_))));
    broken.store(0, Ordering::SeqCst);
    assert_eq!(pool.fix_read(4).unwrap()[0], 4);
}
