//! The hybrid flash+HDD store (Koltsidas & Viglas 2008): placement against
//! the offline optimum, crash safety of migrations, persistence, the flash
//! capacity limit, deferred migrations, and one protocol for the simulator
//! and the buffer pool.

use flashlayer::buffer::BufferPool;
use flashlayer::device::DeviceModel;
use flashlayer::hybrid::{
    optimal, Costs, Counters, Event, HybridStore, HybridStoreBuilder, Placement, PlacementSchedule,
};
use flashlayer::policy::{Cflru, Lru, Policy};
use flashlayer::sim::Simulator;
use flashlayer::store::{CostStore, CrashDisk, CrashLab, DiskStore, MemStore, PageStore, SECTOR};
use flashlayer::types::{DeviceId, Op};
use flashlayer::Error;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::collections::{BTreeMap, HashMap};

const K: Costs = Costs::TABLE_1;

fn flash() -> DeviceModel {
    DeviceModel::preset("koltsidas08-flash").unwrap()
}

fn magnetic() -> DeviceModel {
    DeviceModel::preset("koltsidas08-magnetic").unwrap()
}

/// Table 1's disks as cost stores, every page preloaded, under `p`.
fn cost_stores(p: Placement) -> HybridStoreBuilder<CostStore, CostStore> {
    HybridStore::builder(CostStore::new(flash()), CostStore::new(magnetic()))
        .placement(p)
        .preloaded(true)
}

fn sim_store(p: Placement) -> HybridStore<CostStore, CostStore> {
    cost_stores(p).open().unwrap()
}

/// Conservative (Figure 3) on one page's events, with the Appendix's
/// accounting: its cost.
fn conservative_cost(events: &[Event]) -> f64 {
    let mut c = Counters::default();
    let mut on = DeviceId::MAGNETIC;
    let mut cost = 0.0;
    for e in events {
        match *e {
            Event::Read => {
                cost += K.of(on).0;
                c.physical_read(on, &K);
            }
            Event::Write => cost += K.of(on).1,
            Event::Evict { dirty } => {
                if dirty {
                    c.physical_write(on, &K);
                }
                if c.decide(&Placement::Conservative, on, &K, 1.0) {
                    c = Counters::default();
                    on = flashlayer::hybrid::other(on);
                    cost += K.of(on).1;
                } else if dirty {
                    cost += K.of(on).1;
                }
            }
        }
    }
    cost
}

fn configure<F: PageStore, M: PageStore>(
    b: HybridStoreBuilder<F, M>,
    which: usize,
    cap: usize,
) -> HybridStoreBuilder<F, M> {
    let placement = match which {
        0 => Placement::Conservative,
        1 => Placement::Optimistic,
        _ => Placement::Hybrid,
    };
    let b = b
        .placement(placement)
        .buffer_pages(cap as u64)
        .preloaded(true);
    match which {
        3 => b.flash_capacity(3),
        4 => b.defer(4),
        _ => b,
    }
}

fn event() -> impl Strategy<Value = Vec<Event>> {
    // A residency: a physical read, then an eviction, dirty or not.
    prop::collection::vec(
        (any::<bool>(), any::<bool>()).prop_map(|(read, dirty)| {
            if read {
                vec![Event::Read, Event::Evict { dirty }]
            } else {
                vec![Event::Evict { dirty }]
            }
        }),
        0..200,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The Appendix: conservative is 3-competitive against the offline
    /// optimum, up to an additive constant (two migrations' worth).
    #[test]
    fn conservative_costs_at_most_three_times_the_optimum_plus_a_constant(events in event()) {
        let (opt, _) = optimal::optimum(&events, &K, DeviceId::MAGNETIC);
        let cons = conservative_cost(&events);
        prop_assert!(opt <= cons + 1e-9, "optimum {} above conservative {}", opt, cons);
        prop_assert!(cons <= 3.0 * opt + 2.0 * (K.w_f + K.w_m) + 1e-9, "conservative {} vs optimum {}", cons, opt);
    }

    /// The simulator and the buffer pool drive a hybrid store alike: the
    /// same hits, and the same reads, writes and migrations on each disk.
    #[test]
    fn pool_and_simulator_place_pages_alike(cap in 1usize..8, trace in prop::collection::vec((0u32..20, any::<bool>()), 1..400), which in 0usize..5) {
        let build = |f, m| configure(HybridStore::builder(f, m), which, cap);
        let build_mem = |f, m| configure(HybridStore::builder(f, m), which, cap);
        let numbers: Vec<u64> = (0..20).map(|d| 100 + 2 * d).collect();
        let mut sim = Simulator::with_numbers(
            Cflru::new(cap, 0.5),
            build(CostStore::new(flash()), CostStore::new(magnetic())).open().unwrap(),
            numbers.clone(),
        ).unwrap();
        let pool = BufferPool::new(
            Cflru::new(cap, 0.5),
            build_mem(MemStore::new(8, flash()), MemStore::new(8, magnetic())).open().unwrap(),
        ).unwrap();
        // Dense ids in order of first appearance, as both callers assign them.
        let mut ids = HashMap::new();
        for &(p, w) in &trace {
            let n = ids.len() as u32;
            let d = *ids.entry(p).or_insert(n);
            let op = if w { Op::Write } else { Op::Read };
            let hit = sim.request(d, op).unwrap();
            let before = pool.metrics().hits;
            if w {
                pool.fix_write(numbers[d as usize]).unwrap()[0] ^= 1;
            } else {
                drop(pool.fix_read(numbers[d as usize]).unwrap());
            }
            prop_assert_eq!(hit, pool.metrics().hits > before);
        }
        let (a, b) = (sim.metrics(), pool.metrics());
        prop_assert_eq!(a.migrations, b.migrations);
        let io = |m: &flashlayer::types::Metrics| m.devices.iter().map(|d| (d.io.reads, d.io.writes, d.io.seq_writes, d.io.migrations)).collect::<Vec<_>>();
        prop_assert_eq!(io(&a), io(&b));
        prop_assert!((a.virtual_time - b.virtual_time).abs() < 1e-6);
        sim.store().check_layout().unwrap();
        prop_assert_eq!(a.devices.len(), 2);
        prop_assert_eq!(&a.devices[0].name, "koltsidas08-flash");
    }
}

#[test]
fn a_page_read_again_and_again_moves_to_flash_and_a_written_one_stays_on_magnetic() {
    // One frame: every request to another page evicts the last.
    let mut sim = Simulator::new(Lru::new(1), sim_store(Placement::Conservative)).unwrap();
    for _ in 0..10 {
        sim.request(0, Op::Read).unwrap();
        sim.request(1, Op::Write).unwrap();
    }
    let s = sim.store();
    assert_eq!(s.device_of(0), DeviceId::FLASH);
    assert_eq!(s.device_of(1), DeviceId::MAGNETIC);
    let m = sim.metrics();
    assert_eq!(m.migrations, 1);
    assert_eq!(m.devices[0].io.migrations, 1);
    // The move wrote the clean page to flash once; its later reads are
    // flash reads.
    assert_eq!(m.devices[0].io.writes, 1);
    assert!(m.devices[0].io.reads >= 3);
}

#[test]
fn the_optimal_replay_costs_what_the_dynamic_program_says() {
    let mut rng = Pcg64::seed_from_u64(3);
    let trace: Vec<(u32, Op)> = (0..5000)
        .map(|_| {
            let p = rng.random_range(0..50u32);
            // Low pages are read-mostly, high pages write-mostly.
            let w = rng.random_bool(if p < 25 { 0.05 } else { 0.7 });
            (p, if w { Op::Write } else { Op::Read })
        })
        .collect();
    let run = |p: Placement, record: bool| {
        let store = cost_stores(p).record(record).open().unwrap();
        let mut sim = Simulator::new(Lru::new(10), store).unwrap();
        for &(p, op) in &trace {
            sim.request(p, op).unwrap();
        }
        let m = sim.metrics();
        let (_, store) = sim.into_parts();
        (m, store)
    };
    let (m_only, mut rec) = run(Placement::Fixed(DeviceId::MAGNETIC), true);
    let schedule = PlacementSchedule::solve(&rec.take_recording().unwrap(), &K);
    let (opt, _) = run(
        Placement::Optimal(std::sync::Arc::new(schedule.clone())),
        false,
    );
    assert!(
        (opt.virtual_time - schedule.cost()).abs() < 1e-6,
        "{} vs {}",
        opt.virtual_time,
        schedule.cost()
    );
    assert!(opt.virtual_time < m_only.virtual_time);
    for p in [
        Placement::Conservative,
        Placement::Optimistic,
        Placement::Hybrid,
    ] {
        let label = p.label();
        let (m, _) = run(p, false);
        assert!(
            opt.virtual_time <= m.virtual_time + 1e-6,
            "{label} beat the optimum"
        );
    }
}

#[test]
fn a_full_flash_disk_keeps_the_pages_with_the_highest_saving() {
    let store = cost_stores(Placement::Conservative)
        .flash_capacity(2)
        .open()
        .unwrap();
    let mut sim = Simulator::new(Lru::new(1), store).unwrap();
    // Pages 0 and 1 earn a place on flash with six misses each; page 2 then
    // earns one with more reads while page 0 is idle, and page 0 (lowest
    // saving since) makes way.
    for _ in 0..7 {
        sim.request(0, Op::Read).unwrap();
        sim.request(1, Op::Read).unwrap();
    }
    for _ in 0..12 {
        sim.request(1, Op::Read).unwrap();
        sim.request(2, Op::Read).unwrap();
    }
    sim.request(3, Op::Read).unwrap();
    let s = sim.store();
    assert_eq!(s.pages_on_flash(), 2);
    assert_eq!(s.device_of(2), DeviceId::FLASH);
    assert_eq!(s.device_of(1), DeviceId::FLASH);
    assert_eq!(s.device_of(0), DeviceId::MAGNETIC);
    s.check_layout().unwrap();
}

#[test]
fn deferred_migrations_go_in_one_sequential_batch() {
    let store = cost_stores(Placement::Optimistic).defer(8).open().unwrap();
    let mut sim = Simulator::new(Lru::new(1), store).unwrap();
    // Eight read-only pages, each evicted once: optimistic marks each.
    for p in 0..9 {
        sim.request(p, Op::Read).unwrap();
    }
    let m = sim.metrics();
    assert_eq!(m.migrations, 8);
    let f = &m.devices[0].io;
    // Read from magnetic (8 misses + 8 batch reads), written to flash as
    // one run: the first page random, seven sequential.
    assert_eq!((f.writes, f.seq_writes), (8, 7));
    assert_eq!(m.devices[1].io.reads, 9 + 8);
}

/// A version of a page: every sector stamped with page, version and sector.
fn content(page: u64, version: u32, size: usize) -> Vec<u8> {
    let mut v = vec![0u8; size];
    for (s, sector) in v.chunks_mut(SECTOR).enumerate() {
        sector[0..8].copy_from_slice(&page.to_le_bytes());
        sector[8..12].copy_from_slice(&version.to_le_bytes());
        sector[12..16].copy_from_slice(&(s as u32).to_le_bytes());
    }
    v
}

type CrashStore = HybridStore<DiskStore<CrashDisk>, DiskStore<CrashDisk>>;

struct Rig {
    lab: CrashLab,
    disks: [CrashDisk; 4],
}

const PAGE: usize = 2 * SECTOR;

fn open(rig: &Rig, placement: &Placement, extra: usize) -> flashlayer::Result<CrashStore> {
    let d = |i: usize| rig.lab.reopen(&rig.disks[i]);
    let b = HybridStore::builder(
        DiskStore::new(d(0), PAGE, flash())?,
        DiskStore::new(d(1), PAGE, magnetic())?,
    )
    .placement(placement.clone())
    .journal(Box::new(d(2)), Box::new(d(3)));
    match extra {
        1 => b.flash_capacity(3),
        2 => b.defer(3),
        _ => b,
    }
    .open()
}

/// What must survive: each page's contents at its last completed flush,
/// and the versions written since (any of which may be found instead).
#[derive(Default, Clone)]
struct Model {
    durable: HashMap<u64, Vec<u8>>,
    since: HashMap<u64, Vec<Vec<u8>>>,
}

/// A random buffer-like workload on the store: fetches (logical access and
/// physical read), evictions (the store may ask for a write to move a
/// clean page), write-backs and flushes. Stops at the first error.
fn workload(
    store: &mut CrashStore,
    model: &mut Model,
    seed: u64,
    steps: usize,
) -> flashlayer::Result<()> {
    let mut rng = Pcg64::seed_from_u64(seed);
    // Ordered, so the random pick of a page to evict depends on the seed
    // only (a HashMap's order changes from process to process).
    let mut resident: BTreeMap<u64, (Vec<u8>, bool)> = BTreeMap::new();
    let mut version = 0u32;
    let mut buf = vec![0u8; PAGE];
    for _ in 0..steps {
        let roll = rng.random_range(0..100);
        if roll < 55 {
            let page = rng.random_range(0..10u64);
            let write = rng.random_bool(if page < 5 { 0.1 } else { 0.6 });
            let op = if write { Op::Write } else { Op::Read };
            store.accessed(page, op, false);
            if let std::collections::btree_map::Entry::Vacant(e) = resident.entry(page) {
                store.read(page, &mut buf)?;
                e.insert((buf.clone(), false));
            }
            if write {
                version += 1;
                resident.insert(page, (content(page, version, PAGE), true));
            }
        } else if roll < 93 {
            let Some(&page) = resident.keys().min_by_key(|_| rng.random::<u32>()) else {
                continue;
            };
            let (data, dirty) = resident.remove(&page).unwrap();
            if store.evicting(page, dirty)? {
                model.since.entry(page).or_default().push(data.clone());
                store.write(page, &data)?;
            }
        } else {
            let dirty: Vec<u64> = resident
                .iter()
                .filter(|(_, v)| v.1)
                .map(|(&p, _)| p)
                .collect();
            let batch: Vec<(u64, Vec<u8>)> =
                dirty.iter().map(|&p| (p, resident[&p].0.clone())).collect();
            for (p, d) in &batch {
                model.since.entry(*p).or_default().push(d.clone());
            }
            let refs: Vec<(u64, &[u8])> = batch.iter().map(|(p, d)| (*p, d.as_slice())).collect();
            store.write_batch(&refs)?;
            for p in dirty {
                resident.get_mut(&p).unwrap().1 = false;
            }
            store.flush()?;
            for (p, mut vs) in model.since.drain() {
                model.durable.insert(p, vs.pop().unwrap());
            }
        }
    }
    Ok(())
}

fn check_after_crash(store: &mut CrashStore, model: &Model) {
    store.check_layout().unwrap();
    let mut buf = vec![0u8; PAGE];
    for (&page, durable) in &model.durable {
        store.read(page, &mut buf).unwrap();
        let since = model.since.get(&page).map_or(&[][..], Vec::as_slice);
        if since.is_empty() {
            assert_eq!(&buf, durable, "page {page} lost its flushed contents");
        } else {
            for (s, got) in buf.chunks(SECTOR).enumerate() {
                let ok = std::iter::once(durable)
                    .chain(since)
                    .any(|v| &v[s * SECTOR..(s + 1) * SECTOR] == got);
                assert!(ok, "page {page} sector {s} holds no version written to it");
            }
        }
    }
}

#[test]
fn every_flushed_page_survives_a_crash_at_every_step_of_a_migration_heavy_workload() {
    let placements = [
        Placement::Optimistic,
        Placement::Conservative,
        Placement::Hybrid,
    ];
    for (n, placement) in placements.iter().enumerate() {
        for extra in 0..3 {
            let seed = 100 + n as u64 * 10 + extra as u64;
            // A run without a cut counts the steps and proves the workload
            // migrates.
            let lab = CrashLab::new(seed);
            let rig = Rig {
                disks: [lab.disk(), lab.disk(), lab.disk(), lab.disk()],
                lab,
            };
            let mut store = open(&rig, placement, extra).unwrap();
            let mut model = Model::default();
            workload(&mut store, &mut model, seed, 300).unwrap();
            assert!(
                store.stats().migrations > 0,
                "{} moved nothing",
                placement.label()
            );
            let steps = rig.lab.steps();
            for cut in 1..=steps {
                let lab = CrashLab::new(seed ^ cut);
                let rig = Rig {
                    disks: [lab.disk(), lab.disk(), lab.disk(), lab.disk()],
                    lab,
                };
                let mut model = Model::default();
                rig.lab.power_cut_after(cut);
                match open(&rig, placement, extra) {
                    Ok(mut store) => match workload(&mut store, &mut model, seed, 300) {
                        Err(Error::PowerCut) | Ok(()) => {}
                        Err(e) => panic!("cut {cut}: {e}"),
                    },
                    Err(Error::PowerCut) => {}
                    Err(e) => panic!("cut {cut}: open: {e}"),
                }
                rig.lab.crash();
                let mut store = open(&rig, placement, extra)
                    .unwrap_or_else(|e| panic!("{} cut {cut}: reopen: {e}", placement.label()));
                check_after_crash(&mut store, &model);
            }
        }
    }
}

#[test]
fn a_reopened_store_knows_where_every_page_is_and_what_it_counted() {
    let lab = CrashLab::new(9);
    let rig = Rig {
        disks: [lab.disk(), lab.disk(), lab.disk(), lab.disk()],
        lab,
    };
    let mut store = open(&rig, &Placement::Hybrid, 0).unwrap();
    let mut model = Model::default();
    workload(&mut store, &mut model, 9, 400).unwrap();
    store.flush().unwrap();
    let before: Vec<_> = (0..10u64)
        .map(|p| (store.device_of(p), store.counters_of(p)))
        .collect();
    assert!(before.iter().any(|b| b.0 == DeviceId::FLASH));
    drop(store);
    let store = open(&rig, &Placement::Hybrid, 0).unwrap();
    let after: Vec<_> = (0..10u64)
        .map(|p| (store.device_of(p), store.counters_of(p)))
        .collect();
    assert_eq!(before, after);
}

#[test]
fn bad_hybrid_settings_are_refused() {
    let e = HybridStore::builder(CostStore::new(flash()), CostStore::new(magnetic()))
        .flash_capacity(0)
        .open()
        .unwrap_err();
    assert!(e.to_string().contains("at least 1 page"), "{e}");
    let e = HybridStore::builder(MemStore::new(8, flash()), MemStore::new(16, magnetic()))
        .open()
        .unwrap_err();
    assert!(e.to_string().contains("8-byte pages"), "{e}");
    // A resident page's cost follows its disk.
    let s = sim_store(Placement::Hybrid);
    assert_eq!(s.cost_of(5).device, DeviceId::MAGNETIC);
    assert_eq!(s.cost_of(5).read, 23.0);
    let _ = Lru::new(1).capacity();
}

/// A policy that logs the re-pricing the caller sends it.
struct Logging {
    inner: Lru,
    repriced: Vec<(u32, DeviceId)>,
}

impl Policy for Logging {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn insert(&mut self, p: u32, op: Op, cost: flashlayer::types::PageCost) {
        self.inner.insert(p, op, cost);
    }
    fn reprice(&mut self, p: u32, cost: flashlayer::types::PageCost) {
        self.repriced.push((p, cost.device));
    }
    pass_policy_through!();
}

#[test]
fn a_resident_page_moved_by_a_deferred_batch_is_repriced_in_its_policy() {
    let store = cost_stores(Placement::Optimistic).defer(2).open().unwrap();
    let policy = Logging {
        inner: Lru::new(2),
        repriced: Vec::new(),
    };
    let mut sim = Simulator::new(policy, store).unwrap();
    // Page 0 leaves read-only and is marked for flash; it comes back (on
    // the magnetic disk still); page 1 leaves marked too, and the batch of
    // two moves both, page 0 while it is resident.
    for p in [0, 1, 2, 0, 3] {
        sim.request(p, Op::Read).unwrap();
    }
    assert_eq!(sim.store().device_of(0), DeviceId::FLASH);
    assert_eq!(sim.store().device_of(1), DeviceId::FLASH);
    assert_eq!(sim.policy().repriced, vec![(0, DeviceId::FLASH)]);
}

#[test]
fn emptying_the_pool_sends_every_page_out_through_the_placement() {
    let store = HybridStore::builder(MemStore::new(8, flash()), MemStore::new(8, magnetic()))
        .placement(Placement::Optimistic)
        .preloaded(true)
        .open()
        .unwrap();
    let pool = BufferPool::new(Lru::new(4), store).unwrap();
    drop(pool.fix_read(1).unwrap());
    pool.fix_write(2).unwrap()[0] = 9;
    pool.empty().unwrap();
    assert!(!pool.is_resident(1) && !pool.is_resident(2));
    let m = pool.metrics();
    // The read page moved to flash as it left (a write there), the written
    // one was written back on the magnetic disk.
    assert_eq!((m.devices[0].io.writes, m.devices[1].io.writes), (1, 1));
    assert_eq!(m.dirty_evictions, 1);
    assert_eq!(pool.fix_read(2).unwrap()[0], 9);
    let guard = pool.fix_read(1).unwrap();
    assert!(pool.empty().unwrap_err().to_string().contains("pinned"));
    drop(guard);
}
