//! Panics inside the buffer pool's work — a store read, a store write, a
//! recorder, a caller's code while it holds a page — leave the pool usable:
//! nothing a panicking thread set while it worked (a page being loaded, a
//! page being written, a pin, a latch) outlives it, other threads waiting
//! for that page go on, and no modification is lost.

use crate::hooked;

use flashlayer::buffer::BufferPool;
use flashlayer::device::DeviceModel;
use flashlayer::policy::{Ace, Lru};
use flashlayer::store::{MemStore, PageStore};
use flashlayer::types::{ByteRange, Op, PageId};
use hooked::Hooked;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Barrier};

const PS: usize = 16;

/// Panics if `left` is not yet 0, counting it down.
fn strike(left: &AtomicU32, what: &str, page: PageId) {
    if left
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
    {
        panic!("injected panic in a store {what} of page {page}");
    }
}

type Pool = BufferPool<Lru, Hooked<MemStore>>;

/// The first byte of page 1 in the store, once `pool` is closed.
fn first_byte_of_one(pool: Pool) -> u8 {
    let mut buf = [0u8; PS];
    pool.close().unwrap().read(1, &mut buf).unwrap();
    buf[0]
}

/// A memory store whose next `reads` reads and `writes` writes panic.
fn pool(frames: usize) -> (Pool, Arc<AtomicU32>, Arc<AtomicU32>) {
    let (reads, writes) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
    let (r, w) = (Arc::clone(&reads), Arc::clone(&writes));
    let store = Hooked {
        inner: MemStore::new(PS, DeviceModel::unit()),
        hook: Box::new(move |page, write| {
            match write {
                None => strike(&r, "read", page),
                Some(_) => strike(&w, "write", page),
            }
            Ok(())
        }),
    };
    (
        BufferPool::new(Lru::new(frames), store).unwrap(),
        reads,
        writes,
    )
}

fn set(pool: &Pool, page: PageId, byte: u8) {
    pool.fix_write(page).unwrap()[0] = byte;
}

fn quietly<R>(f: impl FnOnce() -> R) -> std::thread::Result<R> {
    catch_unwind(AssertUnwindSafe(f))
}

#[test]
fn a_store_read_that_panics_leaves_the_page_loadable_for_every_waiter() {
    let (pool, reads, _) = pool(4);
    set(&pool, 5, 9);
    pool.empty().unwrap();
    reads.store(1, Ordering::SeqCst);
    // Eight threads fix page 5 at once; the first read panics, and every
    // thread that waited for it goes on (retrying once if its own panicked).
    let start = Barrier::new(8);
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                start.wait();
                let seen = match quietly(|| pool.fix_read(5).unwrap()[0]) {
                    Ok(b) => b,
                    Err(_) => pool.fix_read(5).unwrap()[0],
                };
                assert_eq!(seen, 9);
            });
        }
    });
    assert_eq!(reads.load(Ordering::SeqCst), 0, "the panic was injected");
    assert!(pool.is_resident(5));
}

#[test]
fn a_write_back_that_panics_leaves_the_page_dirty_and_the_next_flush_writes_it() {
    let (pool, _, writes) = pool(4);
    set(&pool, 1, 7);
    writes.store(1, Ordering::SeqCst);
    assert!(quietly(|| pool.flush()).is_err(), "the write panicked");
    assert!(pool.is_dirty(1), "a page whose write panicked stays dirty");
    pool.flush().unwrap();
    assert!(!pool.is_dirty(1));
    assert_eq!(first_byte_of_one(pool), 7);
}

#[test]
fn a_victim_write_that_panics_leaves_the_victim_dirty_and_resident() {
    let (pool, _, writes) = pool(1);
    set(&pool, 1, 7);
    writes.store(1, Ordering::SeqCst);
    assert!(
        quietly(|| drop(pool.fix_read(2))).is_err(),
        "the victim's write panicked"
    );
    assert!(pool.is_dirty(1), "the victim stays, dirty");
    drop(pool.fix_read(2).unwrap());
    assert!(!pool.is_resident(1));
    assert_eq!(
        first_byte_of_one(pool),
        7,
        "the victim reached the store on the retry"
    );
}

#[test]
fn a_panic_while_a_caller_holds_a_page_unlatches_and_keeps_its_change() {
    let (pool, _, _) = pool(4);
    assert!(quietly(|| {
        let mut g = pool.fix_write(3).unwrap();
        g[0] = 4;
        panic!("the caller's code fails while it holds page 3");
    })
    .is_err());
    let reader = pool.fix_read(3).unwrap();
    assert_eq!(reader[0], 4);
    drop(reader);
    std::thread::scope(|s| {
        s.spawn(|| set(&pool, 3, 5));
    });
    assert!(pool.is_dirty(3));
    assert_eq!(pool.fix_read(3).unwrap()[0], 5);
}

/// Records every unfix of `pool` with a recorder that panics at its first
/// call only.
fn panic_at_first_record(pool: &Pool) {
    let calls = AtomicU32::new(0);
    pool.set_recorder(
        Box::new(move |_: PageId, _: Op, _: &[ByteRange]| {
            if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                panic!("the recorder fails");
            }
        }),
        false,
    )
    .unwrap();
}

#[test]
fn a_recorder_that_panics_leaves_no_page_pinned() {
    let (pool, _, _) = pool(2);
    panic_at_first_record(&pool);
    assert!(quietly(|| drop(pool.fix_read(1).unwrap())).is_err());
    assert!(quietly(|| set(&pool, 2, 1)).is_ok());
    // No pin outlived the panic: the pool empties, and page 1 is writable.
    pool.empty().unwrap();
    set(&pool, 1, 3);
    assert_eq!(pool.fix_read(1).unwrap()[0], 3);
}

#[test]
fn a_recorder_that_panics_on_a_modifying_unfix_keeps_the_page_dirty() {
    let (pool, _, _) = pool(1);
    panic_at_first_record(&pool);
    assert!(quietly(|| set(&pool, 1, 15)).is_err());
    assert!(
        pool.is_dirty(1),
        "the modification is dirty though the recorder panicked"
    );
    drop(pool.fix_read(2).unwrap());
    assert_eq!(first_byte_of_one(pool), 15, "evicted, it was written");
}

/// ACE reading ahead (nw = ne = 3) over 4 frames: a miss whose victim is
/// dirty reads the two pages numbered after the requested one. When that
/// read panics, the fix that caused it panics, its own page stays resident
/// and unpinned, and the pages it was reading are missing, not loading:
/// their fixers read them.
#[test]
fn a_read_ahead_that_panics_leaves_its_pages_missing_and_no_frame_pinned() {
    let reads = Arc::new(AtomicU32::new(0));
    let r = Arc::clone(&reads);
    let store = Hooked {
        inner: MemStore::new(PS, DeviceModel::unit()),
        hook: Box::new(move |page, write| {
            if write.is_none() && page == 4 {
                strike(&r, "read", page);
            }
            Ok(())
        }),
    };
    let ace = Ace::with_read_ahead(Lru::new(4), 3, 3, 0, true).unwrap();
    let pool = BufferPool::new(ace, store).unwrap();
    for p in 1..=8 {
        pool.fix_write(p).unwrap()[0] = p as u8;
    }
    pool.flush().unwrap();
    // Resident 5 (dirty), 6, 7, 8 from the LRU end.
    pool.fix_write(5).unwrap()[1] = 1;
    for p in 6..=8 {
        drop(pool.fix_read(p).unwrap());
    }
    let ahead = pool.metrics().read_ahead;
    reads.store(1, Ordering::SeqCst);
    assert!(
        quietly(|| drop(pool.fix_read(2).unwrap())).is_err(),
        "the read ahead panicked"
    );
    assert_eq!(pool.metrics().read_ahead, ahead, "nothing was read ahead");
    assert!(pool.is_resident(2) && !pool.is_resident(3) && !pool.is_resident(4));
    std::thread::scope(|s| {
        s.spawn(|| assert_eq!(pool.fix_read(4).unwrap()[0], 4));
    });
    assert_eq!(pool.fix_read(3).unwrap()[0], 3);
    // No pin outlived the panic: every page can leave.
    pool.empty().unwrap();
    assert_eq!(
        pool.fix_read(5).unwrap()[1],
        1,
        "the dirty victim was written"
    );
}
