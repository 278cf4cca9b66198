//! The B+-tree and the heap file against `BTreeMap`/`HashMap` models under
//! long random operation sequences, including closing and reopening a file
//! store; and the pool's recorder reporting the bytes each write changed.

use flashlayer::btree::{BTree, HeapFile, Rid, Space};
use flashlayer::buffer::BufferPool;
use flashlayer::device::DeviceModel;
use flashlayer::policy::Lru;
use flashlayer::store::{FileStore, MemStore};
use flashlayer::types::{ByteRange, Op, PageId};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::path::Path;
use std::sync::{Arc, Mutex};

type Sp = Space<Lru, FileStore>;
type Log = Arc<Mutex<Vec<(PageId, Op, Vec<ByteRange>)>>>;

/// Starts recording `pool` with byte ranges into a shared log.
fn record(pool: &BufferPool<Lru, MemStore>) -> Log {
    let log: Log = Arc::default();
    let sink = log.clone();
    pool.set_recorder(
        Box::new(move |p: PageId, op: Op, r: &[ByteRange]| {
            sink.lock().unwrap().push((p, op, r.to_vec()))
        }),
        true,
    )
    .unwrap();
    log
}

fn open_space(path: &Path, page: usize, frames: usize, create: bool) -> Sp {
    let store = FileStore::builder(path).page_size(page).open().unwrap();
    let pool = BufferPool::new(Lru::new(frames), store).unwrap();
    if create {
        Space::create(pool).unwrap()
    } else {
        Space::open(pool).unwrap()
    }
}

#[derive(Debug, Clone)]
enum TreeOp {
    Insert(Vec<u8>, Vec<u8>),
    Delete(Vec<u8>),
    Get(Vec<u8>),
    Update(Vec<u8>, u8),
    Scan(Vec<u8>, Vec<u8>),
    Reopen,
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    // Small alphabet so keys collide, are prefixes of each other, and repeat.
    prop::collection::vec(0u8..4, 0..12)
}

fn tree_op() -> impl Strategy<Value = TreeOp> {
    prop_oneof![
        10 => (key(), prop::collection::vec(any::<u8>(), 0..60)).prop_map(|(k, v)| TreeOp::Insert(k, v)),
        3 => key().prop_map(TreeOp::Delete),
        3 => key().prop_map(TreeOp::Get),
        2 => (key(), any::<u8>()).prop_map(|(k, x)| TreeOp::Update(k, x)),
        2 => (key(), key()).prop_map(|(a, b)| TreeOp::Scan(a, b)),
        1 => Just(TreeOp::Reopen),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn btree_matches_btreemap_across_reopens(ops in prop::collection::vec(tree_op(), 1..1500), frames in 7usize..16) {
        // A split keeps every node it may change latched (pinned): up to the
        // height plus the new page, so pools here hold at least 7 frames.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tree.db");
        let mut sp = open_space(&path, 512, frames, true);
        let mut t = BTree::create(&sp, "t").unwrap();
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        for op in ops {
            match op {
                TreeOp::Insert(k, v) => {
                    let replaced = t.insert(&sp, &k, &v).unwrap();
                    prop_assert_eq!(replaced, model.insert(k, v).is_some());
                }
                TreeOp::Delete(k) => prop_assert_eq!(t.delete(&sp, &k).unwrap(), model.remove(&k).is_some()),
                TreeOp::Get(k) => prop_assert_eq!(t.get(&sp, &k).unwrap(), model.get(&k).cloned()),
                TreeOp::Update(k, x) => {
                    let found = t.update_in_place(&sp, &k, |v| v.iter_mut().for_each(|b| *b ^= x)).unwrap();
                    let m = model.get_mut(&k);
                    prop_assert_eq!(found, m.is_some());
                    if let Some(v) = m {
                        v.iter_mut().for_each(|b| *b ^= x);
                    }
                }
                TreeOp::Scan(a, b) => {
                    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
                    let mut got = Vec::new();
                    t.scan(&sp, Bound::Included(&lo), Bound::Excluded(&hi), |k, v| { got.push((k.to_vec(), v.to_vec())); true }).unwrap();
                    let want: Vec<_> = model.range(lo.clone()..hi.clone()).map(|(k, v)| (k.clone(), v.clone())).collect();
                    prop_assert_eq!(got, want);
                }
                TreeOp::Reopen => {
                    sp.close().unwrap();
                    sp = open_space(&path, 512, frames, false);
                    t = BTree::open(&sp, "t").unwrap();
                }
            }
        }
        let mut all = Vec::new();
        t.scan(&sp, Bound::Unbounded, Bound::Unbounded, |k, v| { all.push((k.to_vec(), v.to_vec())); true }).unwrap();
        let want: Vec<_> = model.into_iter().collect();
        let shape = t.check(&sp).unwrap();
        prop_assert_eq!(shape.entries, want.len() as u64);
        prop_assert_eq!(all, want);
    }

    #[test]
    fn heap_matches_a_map_across_reopens(ops in prop::collection::vec((0u8..5, prop::collection::vec(any::<u8>(), 0..150), any::<prop::sample::Index>()), 1..600)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("heap.db");
        let mut sp = open_space(&path, 1024, 4, true);
        let mut h = HeapFile::create(&sp, "h").unwrap();
        let mut model: HashMap<Rid, Vec<u8>> = HashMap::new();
        let mut rids: Vec<Rid> = Vec::new();
        for (kind, data, pick) in ops {
            match kind {
                0 | 1 => {
                    let rid = h.insert(&sp, &data).unwrap();
                    prop_assert!(model.insert(rid, data).is_none(), "rid reused");
                    rids.push(rid);
                }
                2 if !rids.is_empty() => {
                    let rid = *pick.get(&rids);
                    prop_assert_eq!(h.delete(&sp, rid).unwrap(), model.remove(&rid).is_some());
                }
                3 if !rids.is_empty() => {
                    let rid = *pick.get(&rids);
                    match h.update(&sp, rid, &data) {
                        Ok(found) => {
                            prop_assert_eq!(found, model.contains_key(&rid));
                            if found { model.insert(rid, data); }
                        }
                        Err(e) => prop_assert!(e.to_string().contains("does not fit"), "{}", e),
                    }
                }
                4 => {
                    sp.close().unwrap();
                    sp = open_space(&path, 1024, 4, false);
                    h = HeapFile::open(&sp, "h").unwrap();
                }
                _ => {}
            }
        }
        for (rid, want) in &model {
            let got = h.get_with(&sp, *rid, <[u8]>::to_vec).unwrap();
            prop_assert_eq!(got.as_ref(), Some(want));
        }
        let mut n = 0;
        h.scan(&sp, |rid, row| { n += 1; assert_eq!(model.get(&rid).map(Vec::as_slice), Some(row)); true }).unwrap();
        prop_assert_eq!(n, model.len());
    }
}

#[test]
fn btree_grows_levels_and_keeps_order_with_large_entries() {
    let pool = BufferPool::new(Lru::new(8), MemStore::new(512, DeviceModel::unit())).unwrap();
    let sp = Space::create(pool).unwrap();
    let t = BTree::create(&sp, "big").unwrap();
    let max = t.max_entry();
    // Maximal keys make internal nodes as full as leaves, so both split.
    for i in 0u32..600 {
        let mut k = i.wrapping_mul(2_654_435_761).to_be_bytes().to_vec();
        k.resize(max - 4, b'.');
        t.insert(&sp, &k, &i.to_le_bytes()).unwrap();
    }
    assert!(t.height(&sp) >= 5, "height {}", t.height(&sp));
    let mut prev: Option<Vec<u8>> = None;
    let n = t
        .scan(&sp, Bound::Unbounded, Bound::Unbounded, |k, _| {
            assert!(prev.as_deref().is_none_or(|p| p < k));
            prev = Some(k.to_vec());
            true
        })
        .unwrap();
    assert_eq!(n, 600);
    let e = t.insert(&sp, b"k", &vec![0; max]).unwrap_err().to_string();
    assert!(e.contains("exceed this tree's limit"), "{e}");
}

#[test]
fn catalog_keeps_several_objects_and_rejects_mistakes() {
    let pool = BufferPool::new(Lru::new(8), MemStore::new(2048, DeviceModel::unit())).unwrap();
    let sp = Space::create(pool).unwrap();
    BTree::create(&sp, "a").unwrap();
    HeapFile::create(&sp, "b").unwrap();
    assert!(BTree::create(&sp, "a")
        .unwrap_err()
        .to_string()
        .contains("exists already"));
    assert!(BTree::open(&sp, "b")
        .unwrap_err()
        .to_string()
        .contains("is not a BTree"));
    assert!(HeapFile::open(&sp, "zzz")
        .unwrap_err()
        .to_string()
        .contains("no object named"));
    let small = BufferPool::new(Lru::new(8), MemStore::new(256, DeviceModel::unit())).unwrap();
    assert!(Space::create(small)
        .unwrap_err()
        .to_string()
        .contains("between 512 and 32768"));
}

#[test]
fn recorder_reports_each_fix_and_the_bytes_a_write_changed() {
    let pool = BufferPool::new(Lru::new(4), MemStore::new(512, DeviceModel::unit())).unwrap();
    let log = record(&pool);
    {
        let mut g = pool.fix_write(7).unwrap();
        g[10] = 1;
        g[11] = 2;
        g[100] = 3;
    }
    drop(pool.fix_read(7).unwrap());
    {
        // Mutable access that writes the same bytes: modified, no change.
        let mut g = pool.fix_write(7).unwrap();
        g[10] = 1;
    }
    drop(pool.fix_write(8).unwrap());
    let log = log.lock().unwrap();
    let r = |offset, len| ByteRange { offset, len };
    assert_eq!(
        *log,
        vec![
            (7, Op::Write, vec![r(10, 2), r(100, 1)]),
            (7, Op::Read, vec![]),
            (7, Op::Write, vec![]),
            (8, Op::Read, vec![]),
        ]
    );
}

#[test]
fn a_taken_recorder_hears_nothing_more_and_a_new_one_can_be_set() {
    let pool = BufferPool::new(Lru::new(4), MemStore::new(512, DeviceModel::unit())).unwrap();
    let log = record(&pool);
    drop(pool.fix_read(1).unwrap());
    assert!(pool.take_recorder().is_some());
    assert!(pool.take_recorder().is_none(), "taken once");
    drop(pool.fix_write(2).unwrap());
    assert_eq!(*log.lock().unwrap(), vec![(1, Op::Read, vec![])]);
    let again = record(&pool);
    drop(pool.fix_read(3).unwrap());
    assert_eq!(*again.lock().unwrap(), vec![(3, Op::Read, vec![])]);
    assert_eq!(log.lock().unwrap().len(), 1);
}

#[test]
fn btree_update_in_place_changes_only_the_value_bytes() {
    let pool = BufferPool::new(Lru::new(4), MemStore::new(1024, DeviceModel::unit())).unwrap();
    let sp = Space::create(pool).unwrap();
    let t = BTree::create(&sp, "t").unwrap();
    t.insert(&sp, b"key", &[0u8; 40]).unwrap();
    let log = record(sp.pool());
    t.update_in_place(&sp, b"key", |v| v[5..9].copy_from_slice(&[1, 2, 3, 4]))
        .unwrap();
    let log = log.lock().unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].1, Op::Write);
    assert_eq!(log[0].2.iter().map(|r| r.len).sum::<u16>(), 4);
}
