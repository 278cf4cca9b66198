//! Threads sharing one B+-tree and one heap file through a small buffer pool
//! over a real file that fails one read or write in 40, with a flusher
//! thread (a checkpointer) beside them: the latches keep the tree
//! consistent, and a failed operation changes nothing. Every thread changes
//! only its own keys (interleaved with the others', so threads meet in the
//! same leaves and splits), checks every read of them against its own model
//! of its acknowledged operations while the others run, and sees scans in
//! key order. Afterwards the checker walks the tree, the tree holds exactly
//! the union of the models, and so does the file after close and reopen.
//! And the checker itself finds each kind of corruption planted in a tree.

use crate::common;

use common::{Faults, Faulty};
use flashlayer::btree::{BTree, HeapFile, Space};
use flashlayer::buffer::BufferPool;
use flashlayer::policy::{boxed_online_policy, BoxedPolicy, PolicySpec};
use flashlayer::store::FileStore;
use flashlayer::Error;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const THREADS: u32 = 8;
/// One store operation in this many fails while the threads run.
const FAIL_EVERY: u64 = 40;
type Sp = Space<BoxedPolicy, Faulty<FileStore>>;

fn open(path: &Path, policy: &str, frames: usize, create: bool, faults: &Arc<Faults>) -> Sp {
    let store = FileStore::builder(path).page_size(512).open().unwrap();
    let store = Faulty {
        inner: store,
        faults: Arc::clone(faults),
    };
    let spec = PolicySpec::parse(policy).unwrap();
    let pool = BufferPool::new(boxed_online_policy(&spec, frames, 0).unwrap(), store).unwrap();
    if create {
        Space::create(pool).unwrap()
    } else {
        Space::open(pool).unwrap()
    }
}

/// No failures.
fn sound() -> Arc<Faults> {
    Faults::new(0, Duration::ZERO, 0)
}

/// Key `i` of thread `t`: neighbouring keys belong to different threads.
fn key_of(t: u32, i: u32) -> [u8; 4] {
    (i * THREADS + t).to_be_bytes()
}

/// Whether an operation's error is one the test caused (an injected store
/// failure, or every frame pinned); any other fails the test.
fn expected(r: Result<(), Error>, failed: &AtomicU64) {
    match r {
        Ok(()) => {}
        Err(Error::Store(m)) if m.starts_with("injected") => {
            failed.fetch_add(1, Ordering::Relaxed);
        }
        Err(Error::AllPinned(_)) => {
            failed.fetch_add(1, Ordering::Relaxed);
        }
        Err(e) => panic!("{e}"),
    }
}

/// One thread's run: random inserts (values of random length, so leaves
/// split by bytes), deletes, in-place updates, gets and scans over its
/// 600 keys; returns its model of the acknowledged operations and how many
/// rows it added to the heap.
fn terminal(
    sp: &Sp,
    tree: &BTree,
    heap: &HeapFile,
    t: u32,
    ops: u32,
    failed: &AtomicU64,
) -> (BTreeMap<[u8; 4], Vec<u8>>, u64) {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(u64::from(t) + 7);
    let mut model = BTreeMap::new();
    let mut rows = 0;
    for _ in 0..ops {
        let k = key_of(t, rng.random_range(0..600));
        let outcome = match rng.random_range(0..100) {
            0..45 => {
                let v: Vec<u8> = (0..rng.random_range(1..40)).map(|_| t as u8).collect();
                let r = tree.insert(sp, &k, &v).map(|replaced| {
                    assert_eq!(replaced, model.insert(k, v).is_some());
                });
                expected(heap.insert(sp, &k).map(|_| rows += 1), failed);
                r
            }
            45..60 => tree
                .delete(sp, &k)
                .map(|found| assert_eq!(found, model.remove(&k).is_some())),
            60..70 => tree
                .update_in_place(sp, &k, |v| v.iter_mut().for_each(|b| *b ^= 0x80))
                .map(|found| {
                    if let Some(v) = model.get_mut(&k) {
                        v.iter_mut().for_each(|b| *b ^= 0x80);
                    }
                    assert_eq!(found, model.contains_key(&k));
                }),
            70..95 => tree
                .get(sp, &k)
                .map(|v| assert_eq!(v, model.get(&k).cloned())),
            _ => {
                // A scan sees keys in order, and this thread's as it left them.
                let mut last: Option<Vec<u8>> = None;
                let mut mine = Vec::new();
                tree.scan(sp, Bound::Included(&k[..]), Bound::Unbounded, |kk, v| {
                    assert!(last.as_deref().is_none_or(|l| l < kk), "scan out of order");
                    last = Some(kk.to_vec());
                    if u32::from_be_bytes(kk.try_into().unwrap()) % THREADS == t {
                        mine.push((kk.to_vec(), v.to_vec()));
                    }
                    mine.len() < 20
                })
                .map(|_| {
                    let want: Vec<_> = model
                        .range(k..)
                        .take(mine.len())
                        .map(|(k, v)| (k.to_vec(), v.clone()))
                        .collect();
                    assert_eq!(mine, want);
                })
            }
        };
        expected(outcome, failed);
    }
    (model, rows)
}

fn threads_share_a_tree(policy: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tree.db");
    let faults = Faults::new(FAIL_EVERY, Duration::ZERO, 3);
    faults.on.store(false, Ordering::Relaxed);
    let sp = open(&path, policy, 64, true, &faults);
    let tree = BTree::create(&sp, "t").unwrap();
    let heap = HeapFile::create(&sp, "h").unwrap();
    faults.on.store(true, Ordering::Relaxed);
    let failed = AtomicU64::new(0);
    let (done, flushes) = (AtomicBool::new(false), AtomicU64::new(0));
    let runs: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (sp, tree, heap, failed) = (&sp, &tree, &heap, &failed);
                s.spawn(move || terminal(sp, tree, heap, t, 3_000, failed))
            })
            .collect();
        // A checkpointer: flushes while the terminals latch their way down.
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                expected(sp.pool().flush(), &failed);
                flushes.fetch_add(1, Ordering::Relaxed);
            }
        });
        let runs = handles.into_iter().map(|h| h.join().unwrap()).collect();
        done.store(true, Ordering::Relaxed);
        runs
    });
    faults.on.store(false, Ordering::Relaxed);
    let rows: u64 = runs.iter().map(|r| r.1).sum();
    let want: BTreeMap<_, _> = runs.into_iter().flat_map(|r| r.0).collect();
    let inserts = {
        let mut n = 0;
        heap.scan(&sp, |_, _| {
            n += 1;
            true
        })
        .unwrap();
        n
    };
    assert_eq!(
        inserts, rows,
        "the heap holds every acknowledged row, and only those"
    );
    let shape = tree.check(&sp).unwrap();
    assert!(shape.height >= 3, "splits reached the root: {shape:?}");
    assert_eq!(shape.entries, want.len() as u64);
    let checked = sp.check().unwrap();
    assert_eq!(checked[1].entries, inserts, "{checked:?}");
    let all = |sp: &Sp, tree: &BTree| {
        let mut all = BTreeMap::new();
        tree.scan(sp, Bound::Unbounded, Bound::Unbounded, |k, v| {
            all.insert(<[u8; 4]>::try_from(k).unwrap(), v.to_vec());
            true
        })
        .unwrap();
        all
    };
    assert_eq!(all(&sp, &tree), want);
    sp.close().unwrap();
    let sp = open(&path, policy, 64, false, &sound());
    let tree = BTree::open(&sp, "t").unwrap();
    assert_eq!(tree.check(&sp).unwrap(), shape);
    assert_eq!(sp.check().unwrap(), checked);
    assert_eq!(all(&sp, &tree), want);
    let failed = failed.load(Ordering::Relaxed);
    assert!(failed > 0, "failures were injected");
    eprintln!(
        "{policy}: {THREADS} threads x 3,000 operations and a flusher ({} flushes), {} store \
         failures injected, {failed} operations failed, {} keys and {rows} rows verified after reopen",
        flushes.load(Ordering::Relaxed),
        faults.injected.load(Ordering::Relaxed),
        want.len(),
    );
}

#[test]
fn latched_tree_stays_consistent_under_eight_threads_with_lru() {
    threads_share_a_tree("lru");
}

#[test]
fn latched_tree_stays_consistent_under_eight_threads_with_fdbuffer() {
    threads_share_a_tree("fdbuffer:cluster=4");
}

#[test]
fn latched_tree_stays_consistent_under_eight_threads_with_casa() {
    threads_share_a_tree("casa");
}

/// One of two neighbouring leaves of a planted tree.
enum Leaf {
    First,
    Next,
}

/// What the checker says of a tree of a few hundred keys once `damage`
/// changed the bytes of one of its leaves.
fn checker_error(leaf: Leaf, damage: impl FnOnce(&mut [u8])) -> String {
    let dir = tempfile::tempdir().unwrap();
    let sp = open(&dir.path().join("t.db"), "lru", 32, true, &sound());
    let tree = BTree::create(&sp, "t").unwrap();
    for i in 0..300u32 {
        tree.insert(&sp, &i.to_be_bytes(), &[1; 20]).unwrap();
    }
    assert_eq!(tree.check(&sp).unwrap().entries, 300);
    // Page 1 is the first leaf (the root before the first split); its link
    // names the next leaf.
    let page = match leaf {
        Leaf::First => 1,
        Leaf::Next => {
            let g = sp.pool().fix_read(1).unwrap();
            u32::from_le_bytes(g[8..12].try_into().unwrap())
        }
    };
    damage(&mut sp.pool().fix_write(u64::from(page)).unwrap());
    tree.check(&sp).unwrap_err().to_string()
}

#[test]
fn checker_finds_keys_out_of_order() {
    // Swap the first two slots of the leaf.
    let e = checker_error(Leaf::First, |g| {
        let (a, b) = ([g[16], g[17]], [g[18], g[19]]);
        g[16..18].copy_from_slice(&b);
        g[18..20].copy_from_slice(&a);
    });
    assert!(e.contains("out of order") && e.contains("page 1"), "{e}");
}

#[test]
fn checker_finds_a_broken_leaf_chain() {
    let e = checker_error(Leaf::First, |g| {
        g[8..12].copy_from_slice(&u32::MAX.to_le_bytes())
    });
    assert!(e.contains("where the next leaf is"), "{e}");
}

#[test]
fn checker_finds_a_key_outside_its_parents_range() {
    // The second leaf's first key becomes 0, which belongs to the first.
    let e = checker_error(Leaf::Next, |g| {
        let off = usize::from(u16::from_le_bytes([g[16], g[17]]));
        g[off + 4..off + 8].copy_from_slice(&0u32.to_be_bytes());
    });
    assert!(e.contains("outside the range"), "{e}");
}

#[test]
fn checker_finds_a_cell_outside_its_page() {
    let e = checker_error(Leaf::First, |g| {
        g[16..18].copy_from_slice(&600u16.to_le_bytes())
    });
    assert!(e.contains("outside the page"), "{e}");
}

#[test]
fn checker_finds_a_node_at_the_wrong_level() {
    let e = checker_error(Leaf::Next, |g| g[1] = 3);
    assert!(e.contains("at level 3"), "{e}");
}
