//! A B+-tree over a small buffer pool whose store fails reads and writes
//! and whose frames run out: an insert or delete that fails leaves the tree
//! exactly as it was (a split either completes or never starts), so after
//! every failed operation the checker passes and the tree holds exactly the
//! operations that were acknowledged.

use crate::common;

use common::{Faults, Faulty};
use flashlayer::btree::{BTree, Space};
use flashlayer::buffer::BufferPool;
use flashlayer::device::DeviceModel;
use flashlayer::policy::Lru;
use flashlayer::store::MemStore;
use flashlayer::Error;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// What one seed's run saw: operations that failed, and the tree's height.
struct Run {
    failed: u64,
    all_pinned: u64,
    height: u32,
}

/// 3,000 random inserts (values of random length, so leaves split by
/// bytes) and deletes over `frames` frames of 512 bytes, one store
/// operation in `every` failing.
fn run(seed: u64, every: u64, frames: usize) -> Run {
    let faults = Faults::new(every, Duration::ZERO, seed);
    faults.on.store(false, Ordering::Relaxed);
    let store = Faulty {
        inner: MemStore::new(512, DeviceModel::unit()),
        faults: faults.clone(),
    };
    let sp = Space::create(BufferPool::new(Lru::new(frames), store).unwrap()).unwrap();
    let tree = BTree::create(&sp, "t").unwrap();
    faults.on.store(every > 0, Ordering::Relaxed);
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let mut model: BTreeMap<[u8; 4], Vec<u8>> = BTreeMap::new();
    let (mut failed, mut all_pinned) = (0, 0);
    for op in 0..3_000 {
        let k = rng.random_range(0u32..1_500).to_be_bytes();
        let outcome = if rng.random_range(0..100) < 75 {
            let v: Vec<u8> = (0..rng.random_range(1..60)).map(|_| op as u8).collect();
            tree.insert(&sp, &k, &v).map(|_| {
                model.insert(k, v);
            })
        } else {
            tree.delete(&sp, &k).map(|_| {
                model.remove(&k);
            })
        };
        match outcome {
            Ok(()) => {}
            Err(e) => {
                match e {
                    Error::AllPinned(_) => all_pinned += 1,
                    Error::Store(m) if m.starts_with("injected") => {}
                    e => panic!("seed {seed}, operation {op}: {e}"),
                }
                failed += 1;
                faults.on.store(false, Ordering::Relaxed);
                if let Err(e) = tree.check(&sp) {
                    panic!("seed {seed}: the tree is torn after failed operation {op}: {e}");
                }
                faults.on.store(every > 0, Ordering::Relaxed);
            }
        }
    }
    faults.on.store(false, Ordering::Relaxed);
    let shape = tree.check(&sp).unwrap();
    let mut found = BTreeMap::new();
    tree.scan(&sp, Bound::Unbounded, Bound::Unbounded, |k, v| {
        found.insert(<[u8; 4]>::try_from(k).unwrap(), v.to_vec());
        true
    })
    .unwrap();
    assert!(
        found == model,
        "seed {seed}: the tree differs from the acknowledged operations"
    );
    Run {
        failed,
        all_pinned,
        height: shape.height,
    }
}

#[test]
fn a_split_that_meets_an_io_error_leaves_the_tree_as_it_was() {
    for every in [100, 20] {
        let mut failed = 0;
        for seed in 0..20 {
            let r = run(seed, every, 8);
            assert!(r.height >= 3, "splits reach internal nodes");
            failed += r.failed;
        }
        eprintln!("1 store operation in {every} failing: {failed} operations failed over 20 seeds");
        assert!(failed > 100, "failures were injected: {failed}");
    }
}

#[test]
fn a_split_that_runs_out_of_frames_leaves_the_tree_as_it_was() {
    // Three frames: a split that holds its path and its leaf latched finds
    // every frame pinned when it takes a new page above the leaf, after it
    // changed the leaf.
    let mut all_pinned = 0;
    for seed in 0..20 {
        all_pinned += run(seed, 0, 3).all_pinned;
    }
    eprintln!("3 frames: {all_pinned} operations found every frame pinned over 20 seeds");
    assert!(all_pinned > 0, "some splits ran out of frames");
}
