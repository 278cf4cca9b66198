//! A policy defined outside the engine, added by one `register` call, runs
//! wherever a built-in one does: `sim::replay`, the buffer pool, and as a
//! pool of FD-Buffer — and decides the same way on each.

use flashlayer::buffer::BufferPool;
use flashlayer::device::DeviceModel;
use flashlayer::policy::{
    boxed_online_policy, register, serving, BoxedPolicy, Policy, PolicySpec, Registration, Role,
    Serves, Victim,
};
use flashlayer::sim::{self, ReplayOptions, StoreSpec};
use flashlayer::spec::{Entry, Param, Size, Ty, NO_MAX};
use flashlayer::store::MemStore;
use flashlayer::trace::{Flt, FltWriter};
use flashlayer::types::{DenseId, Op, PageCost};

/// MRU with a skip: evicts the `k`-th most recently used evictable page
/// (0: the most recent). A list in recency order, most recent last; small
/// and obvious, as a user's first policy would be.
#[derive(Clone, Debug)]
struct Mru {
    capacity: usize,
    k: usize,
    /// `(page, dirty)`, least recent first.
    order: Vec<(DenseId, bool)>,
}

impl Mru {
    fn at(&self, page: DenseId) -> Option<usize> {
        self.order.iter().position(|&(p, _)| p == page)
    }
}

impl Policy for Mru {
    fn name(&self) -> String {
        format!("mru:k={}", self.k)
    }
    fn capacity(&self) -> usize {
        self.capacity
    }
    fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity;
    }
    fn len(&self) -> usize {
        self.order.len()
    }
    fn contains(&self, page: DenseId) -> bool {
        self.at(page).is_some()
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.at(page).is_some_and(|i| self.order[i].1)
    }
    fn dirty_count(&self) -> usize {
        self.order.iter().filter(|&&(_, d)| d).count()
    }
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        let Some(i) = self.at(page) else {
            return false;
        };
        let (p, dirty) = self.order.remove(i);
        self.order.push((p, dirty || op == Op::Write));
        true
    }
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        self.order.push((page, op == Op::Write));
    }
    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let i = (0..self.order.len())
            .rev()
            .filter(|&i| evictable(self.order[i].0))
            .nth(self.k)
            .or_else(|| {
                (0..self.order.len())
                    .rev()
                    .find(|&i| evictable(self.order[i].0))
            })?;
        let (page, dirty) = self.order.remove(i);
        Some(Victim { page, dirty })
    }
    fn reinstate(&mut self, victim: Victim) {
        self.order.push((victim.page, victim.dirty));
    }
    fn mark_dirty(&mut self, page: DenseId) {
        if let Some(i) = self.at(page) {
            self.order[i].1 = true;
        }
    }
    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        if let Some(i) = self.at(page) {
            self.order[i].1 = false;
        }
    }
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.at(page).map(|i| self.order.remove(i).1)
    }
}

static MRU: Registration = Registration {
    entry: Entry {
        name: "mru",
        description: "most recently used first (a policy the test crate defines)",
        params: &[Param {
            key: "k",
            ty: Ty::Int(0, NO_MAX),
            default: "0",
            help: "evict the k-th most recently used page (0: the most recent)",
        }],
    },
    serves: Serves::POOL,
    build: |given, capacity, _pages| {
        Ok(BoxedPolicy::new(Mru {
            capacity,
            k: given.int("k") as usize,
            order: Vec::new(),
        }))
    },
};

/// The one registration line.
fn registered() {
    register(&MRU).unwrap();
}

/// A cycle over `pages` pages, `rounds` times, all reads.
fn cycle(dir: &tempfile::TempDir, pages: u64, rounds: u64) -> Flt {
    let path = dir.path().join("cycle.flt");
    let mut w = FltWriter::create(&path).unwrap();
    for i in 0..pages * rounds {
        w.push((i % pages) * 4096, Op::Read).unwrap();
    }
    w.finish().unwrap();
    Flt::open(&path).unwrap()
}

/// Hits of MRU (`k` = 0) with `frames` frames on a cycle over `pages`
/// pages, worked out by hand: the model the runs are held against.
fn mru_hits(frames: usize, pages: u64, rounds: u64) -> u64 {
    let mut held: Vec<u64> = Vec::new();
    let mut hits = 0;
    for i in 0..pages * rounds {
        let p = i % pages;
        if let Some(at) = held.iter().position(|&q| q == p) {
            hits += 1;
            held.remove(at);
        } else if held.len() == frames {
            held.pop();
        }
        held.push(p);
    }
    hits
}

fn sim_hits(t: &Flt, policy: &str, frames: u64) -> u64 {
    sim::replay(
        t,
        &PolicySpec::parse(policy).unwrap(),
        Size::Pages(frames),
        &StoreSpec::parse("cost:device=ratio:1:8").unwrap(),
        &ReplayOptions::default(),
        &mut |_| Ok(()),
    )
    .unwrap()
    .metrics
    .hits
}

/// A buffer pool of 40 frames of 512 bytes whose policy is `spec`.
fn pool_of(spec: &str) -> BufferPool<BoxedPolicy, MemStore> {
    let spec = PolicySpec::parse(spec).unwrap();
    BufferPool::new(
        boxed_online_policy(&spec, 40, 0).unwrap(),
        MemStore::new(512, DeviceModel::unit()),
    )
    .unwrap()
}

#[test]
fn a_registered_policy_parses_by_the_one_grammar() {
    registered();
    registered();
    let spec = PolicySpec::parse("mru").unwrap();
    assert_eq!(spec.to_string(), "mru:k=0");
    assert_eq!(spec.short(), "mru");
    assert_eq!(spec.name(), "mru");
    assert_eq!(PolicySpec::parse("MRU:k=3").unwrap().to_string(), "mru:k=3");
    let list = PolicySpec::parse_list("lru,mru,k=2,cflru").unwrap();
    assert_eq!(list[1].to_string(), "mru:k=2");
    let err = PolicySpec::parse("mru:j=1").unwrap_err().to_string();
    assert!(err.contains("has no parameter 'j'"), "{err}");
    let err = PolicySpec::parse("mru:k=x").unwrap_err().to_string();
    assert!(err.contains("bad value 'x' for 'k'"), "{err}");
    let err = PolicySpec::parse("nosuch").unwrap_err().to_string();
    assert!(
        err.contains("mru"),
        "the valid names list the registered one: {err}"
    );
    assert_eq!(
        PolicySpec::parse("fdbuffer:clean=mru").unwrap().to_string(),
        "fdbuffer:mc=auto,clean=mru,dirty=lru,cluster=0,epoch=100000,cost=model"
    );
}

#[test]
fn a_registered_name_that_is_taken_or_malformed_is_refused() {
    static TAKEN: Registration = Registration {
        entry: Entry {
            name: "lru",
            description: "",
            params: &[],
        },
        serves: Serves::ONLINE,
        build: |_, _, _| unreachable!(),
    };
    static MALFORMED: Registration = Registration {
        entry: Entry {
            name: "a:b",
            description: "",
            params: &[],
        },
        serves: Serves::ONLINE,
        build: |_, _, _| unreachable!(),
    };
    assert!(register(&TAKEN).unwrap_err().to_string().contains("exists"));
    assert!(register(&MALFORMED).is_err());
}

#[test]
fn a_registered_policy_replays_in_the_simulator_as_its_model_says() {
    registered();
    let dir = tempfile::tempdir().unwrap();
    let t = cycle(&dir, 50, 20);
    let want = mru_hits(40, 50, 20);
    assert!(want > 0);
    assert_eq!(sim_hits(&t, "mru", 40), want);
    // LRU on the same cycle never hits: the decisions are MRU's.
    assert_eq!(sim_hits(&t, "lru", 40), 0);
    assert_ne!(sim_hits(&t, "mru:k=5", 40), want, "k reaches the policy");
}

#[test]
fn a_registered_policy_manages_the_buffer_pool() {
    registered();
    let pool = pool_of("mru");
    for p in 0..50u64 {
        pool.fix_write(p).unwrap()[0] = p as u8 + 1;
    }
    pool.flush().unwrap();
    pool.empty().unwrap();
    let before = pool.metrics();
    for i in 0..1_000u64 {
        let p = i % 50;
        assert_eq!(pool.fix_read(p).unwrap()[0], p as u8 + 1);
    }
    let hits = pool.metrics().hits - before.hits;
    assert_eq!(hits, mru_hits(40, 50, 20));
}

#[test]
fn a_registered_policy_runs_as_a_pool_of_fdbuffer() {
    registered();
    let dir = tempfile::tempdir().unwrap();
    let t = cycle(&dir, 50, 20);
    // All reads: every page is clean, so the clean pool holds all 40 frames
    // and decides alone.
    let fd = |clean: &str| sim_hits(&t, &format!("fdbuffer:mc=40,clean={clean}"), 40);
    assert_eq!(fd("mru"), mru_hits(40, 50, 20));
    assert_eq!(fd("lru"), 0);
    // And in the pool.
    let pool = pool_of("fdbuffer:mc=40,clean=mru,dirty=mru");
    for i in 0..1_000u64 {
        drop(pool.fix_read(i % 50).unwrap());
    }
    assert_eq!(pool.metrics().hits, mru_hits(40, 50, 20));
}

/// MRU declared as serving on its own only.
static LONE_MRU: Registration = Registration {
    entry: Entry {
        name: "lone-mru",
        description: "MRU that serves as nothing but its own buffer",
        params: &[],
    },
    serves: Serves::ONLINE,
    build: |_, capacity, _| {
        Ok(BoxedPolicy::new(Mru {
            capacity,
            k: 0,
            order: Vec::new(),
        }))
    },
};

#[test]
fn a_registered_policy_serves_where_its_declaration_says() {
    registered();
    register(&LONE_MRU).unwrap();
    assert!(serving(Role::Pool).contains(&"mru"));
    assert!(!serving(Role::AceBase).contains(&"mru"));
    assert!(!serving(Role::Pool).contains(&"lone-mru"));
    assert!(PolicySpec::parse("fdbuffer:dirty=mru").is_ok());
    for spec in [
        "fdbuffer:clean=lone-mru",
        "ace:base=mru",
        "ace:base=lone-mru",
    ] {
        let err = PolicySpec::parse(spec).unwrap_err().to_string();
        assert!(err.contains("bad value"), "{spec}: {err}");
        assert!(
            err.contains("or one registered at run time"),
            "{spec}: {err}"
        );
    }
    // The built-in declarations: the offline ones serve nowhere else.
    assert!(PolicySpec::parse("belady").unwrap().is_offline());
    assert!(!PolicySpec::parse("mru").unwrap().is_offline());
    let err = PolicySpec::parse("fdbuffer:clean=belady")
        .unwrap_err()
        .to_string();
    assert!(err.contains("bad value 'belady' for 'clean'"), "{err}");
    static FUTURE: Registration = Registration {
        entry: Entry {
            name: "seer",
            description: "",
            params: &[],
        },
        serves: Serves::OFFLINE,
        build: |_, _, _| unreachable!(),
    };
    let err = register(&FUTURE).unwrap_err().to_string();
    assert!(err.contains("a registered policy is online"), "{err}");
}
