//! Threads sharing one B+-tree and one heap file through a small buffer pool
//! over a real file: the latches keep the tree consistent. Every thread
//! changes only its own keys (interleaved with the others', so threads meet
//! in the same leaves and splits), checks every read of them against its own
//! model while the others run, and sees scans in key order. Afterwards the
//! checker walks the tree, the tree holds exactly the union of the models,
//! and so does the file after close and reopen. And the checker itself
//! finds each kind of corruption planted in a tree.

use flashlayer::btree::{BTree, HeapFile, Space};
use flashlayer::buffer::BufferPool;
use flashlayer::policy::{boxed_online_policy, BoxedPolicy, PolicySpec};
use flashlayer::store::FileStore;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::Path;

const THREADS: u32 = 8;
type Sp = Space<BoxedPolicy, FileStore>;

fn open(path: &Path, policy: &str, frames: usize, create: bool) -> Sp {
    let store = FileStore::builder(path).page_size(512).open().unwrap();
    let spec = PolicySpec::parse(policy).unwrap();
    let pool = BufferPool::new(boxed_online_policy(&spec, frames, 0).unwrap(), store).unwrap();
    if create {
        Space::create(pool).unwrap()
    } else {
        Space::open(pool).unwrap()
    }
}

/// Key `i` of thread `t`: neighbouring keys belong to different threads.
fn key_of(t: u32, i: u32) -> [u8; 4] {
    (i * THREADS + t).to_be_bytes()
}

/// One thread's run: random inserts (values of random length, so leaves
/// split by bytes), deletes, in-place updates, gets and scans over its
/// 600 keys; returns its model.
fn terminal(
    sp: &Sp,
    tree: &BTree,
    heap: &HeapFile,
    t: u32,
    ops: u32,
) -> BTreeMap<[u8; 4], Vec<u8>> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(u64::from(t) + 7);
    let mut model = BTreeMap::new();
    for _ in 0..ops {
        let k = key_of(t, rng.random_range(0..600));
        match rng.random_range(0..100) {
            0..45 => {
                let v: Vec<u8> = (0..rng.random_range(1..40)).map(|_| t as u8).collect();
                let replaced = tree.insert(sp, &k, &v).unwrap();
                assert_eq!(replaced, model.insert(k, v).is_some());
                heap.insert(sp, &k).unwrap();
            }
            45..60 => assert_eq!(tree.delete(sp, &k).unwrap(), model.remove(&k).is_some()),
            60..70 => {
                let found = tree
                    .update_in_place(sp, &k, |v| v.iter_mut().for_each(|b| *b ^= 0x80))
                    .unwrap();
                if let Some(v) = model.get_mut(&k) {
                    v.iter_mut().for_each(|b| *b ^= 0x80);
                }
                assert_eq!(found, model.contains_key(&k));
            }
            70..95 => assert_eq!(tree.get(sp, &k).unwrap(), model.get(&k).cloned()),
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
                .unwrap();
                let want: Vec<_> = model
                    .range(k..)
                    .take(mine.len())
                    .map(|(k, v)| (k.to_vec(), v.clone()))
                    .collect();
                assert_eq!(mine, want);
            }
        }
    }
    model
}

fn threads_share_a_tree(policy: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tree.db");
    let sp = open(&path, policy, 64, true);
    let tree = BTree::create(&sp, "t").unwrap();
    let heap = HeapFile::create(&sp, "h").unwrap();
    let models: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (sp, tree, heap) = (&sp, &tree, &heap);
                s.spawn(move || terminal(sp, tree, heap, t, 3_000))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let want: BTreeMap<_, _> = models.into_iter().flatten().collect();
    let inserts = {
        let mut n = 0;
        heap.scan(&sp, |_, _| {
            n += 1;
            true
        })
        .unwrap();
        n
    };
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
    let sp = open(&path, policy, 64, false);
    let tree = BTree::open(&sp, "t").unwrap();
    assert_eq!(tree.check(&sp).unwrap(), shape);
    assert_eq!(sp.check().unwrap(), checked);
    assert_eq!(all(&sp, &tree), want);
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

/// A tree of a few hundred keys, its space, and the page numbers of two
/// neighbouring leaves.
fn planted(dir: &Path) -> (Sp, BTree, u32, u32) {
    let sp = open(&dir.join("t.db"), "lru", 32, true);
    let tree = BTree::create(&sp, "t").unwrap();
    for i in 0..300u32 {
        tree.insert(&sp, &i.to_be_bytes(), &[1; 20]).unwrap();
    }
    assert_eq!(tree.check(&sp).unwrap().entries, 300);
    // Page 1 is the first leaf (the root before the first split); its link
    // names the next leaf.
    let next = {
        let g = sp.pool().fix_read(1).unwrap();
        u32::from_le_bytes(g[8..12].try_into().unwrap())
    };
    (sp, tree, 1, next)
}

fn check_error(sp: &Sp, tree: &BTree) -> String {
    tree.check(sp).unwrap_err().to_string()
}

#[test]
fn checker_finds_keys_out_of_order() {
    let dir = tempfile::tempdir().unwrap();
    let (sp, tree, leaf, _) = planted(dir.path());
    {
        // Swap the first two slots of the leaf.
        let mut g = sp.pool().fix_write(u64::from(leaf)).unwrap();
        let (a, b) = ([g[16], g[17]], [g[18], g[19]]);
        g[16..18].copy_from_slice(&b);
        g[18..20].copy_from_slice(&a);
    }
    let e = check_error(&sp, &tree);
    assert!(e.contains("out of order") && e.contains("page 1"), "{e}");
}

#[test]
fn checker_finds_a_broken_leaf_chain() {
    let dir = tempfile::tempdir().unwrap();
    let (sp, tree, leaf, _) = planted(dir.path());
    sp.pool().fix_write(u64::from(leaf)).unwrap()[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = check_error(&sp, &tree);
    assert!(e.contains("where the next leaf is"), "{e}");
}

#[test]
fn checker_finds_a_key_outside_its_parents_range() {
    let dir = tempfile::tempdir().unwrap();
    let (sp, tree, _, next) = planted(dir.path());
    {
        // The second leaf's first key becomes 0, which belongs to the first.
        let mut g = sp.pool().fix_write(u64::from(next)).unwrap();
        let off = usize::from(u16::from_le_bytes([g[16], g[17]]));
        g[off + 4..off + 8].copy_from_slice(&0u32.to_be_bytes());
    }
    let e = check_error(&sp, &tree);
    assert!(e.contains("outside the range"), "{e}");
}

#[test]
fn checker_finds_a_cell_outside_its_page() {
    let dir = tempfile::tempdir().unwrap();
    let (sp, tree, leaf, _) = planted(dir.path());
    sp.pool().fix_write(u64::from(leaf)).unwrap()[16..18].copy_from_slice(&600u16.to_le_bytes());
    let e = check_error(&sp, &tree);
    assert!(e.contains("outside the page"), "{e}");
}

#[test]
fn checker_finds_a_node_at_the_wrong_level() {
    let dir = tempfile::tempdir().unwrap();
    let (sp, tree, _, next) = planted(dir.path());
    sp.pool().fix_write(u64::from(next)).unwrap()[1] = 3;
    let e = check_error(&sp, &tree);
    assert!(e.contains("at level 3"), "{e}");
}
