//! What an engine expects of the buffer pool beyond fix and unfix: a fix
//! that never waits (`try_fix_*`), a fix that waits for a frame instead of
//! failing at once (`fix_*_timeout`), and a write-ahead log's hold on
//! write-backs (`with_write_ahead`, the WAL rule).

mod hooked;

use flashlayer::buffer::{BufferPool, WriteAhead};
use flashlayer::device::DeviceModel;
use flashlayer::policy::Lru;
use flashlayer::store::MemStore;
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

/// ACE's prefetching variant reads pages nobody fixed; the pool reads each
/// missing page for the fix that asked for it, so it refuses the policy in
/// one line, naming what to use instead.
#[test]
fn a_policy_that_reads_ahead_is_refused_by_the_pool() {
    use flashlayer::policy::Ace;
    let ace = Ace::with_read_ahead(Lru::new(4), 4, 4, 0, true).unwrap();
    let e = BufferPool::new(ace, MemStore::new(64, DeviceModel::unit()))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("pf=off") && !e.contains('\n'), "{e}");
}
