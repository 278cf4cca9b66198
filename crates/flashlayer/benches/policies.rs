//! Simulator throughput per policy, without Python or file I/O:
//! `cargo bench -p flashlayer --bench policies`.
//!
//! The workload is a 2M-request Zipf trace (alpha 0.8 over 220,000 pages,
//! 20% writes) with a 9,000-page buffer: `flashlayer bench`'s workload scaled down
//! 5x so a run takes seconds. `flashlayer bench` measures the full-size
//! workload end to end.

use flashlayer::bound::{plan, BoundOptions};
use flashlayer::curve::lru_curve;
use flashlayer::curve::shards::{sampled_curve, Sampling};
use flashlayer::device::DeviceModel;
use flashlayer::drive::DenseNumbers;
use flashlayer::hybrid::{HybridStore, Placement};
use flashlayer::policy::{
    with_online_policy, Belady, Future, Lru, Policy, PolicyKind, PolicySpec, ScheduleCosts,
    WithPolicy, SERVING,
};
use flashlayer::sim::Simulator;
use flashlayer::store::CostStore;
use flashlayer::trace::Remapper;
use flashlayer::types::pack;
use flashlayer::workload::{zipf, ZipfParams};
use std::sync::OnceLock;

/// As the Python extension does: per-page tables on huge pages.
#[global_allocator]
static ALLOC: flashlayer::alloc::HugePages = flashlayer::alloc::HugePages;

const BUFFER: usize = 9_000;

fn trace() -> &'static (Vec<u32>, usize) {
    static T: OnceLock<(Vec<u32>, usize)> = OnceLock::new();
    T.get_or_init(|| {
        let params = ZipfParams {
            requests: 2_000_000,
            pages: 220_000,
            alpha: 0.8,
            write_ratio: 0.2,
            seed: 42,
        };
        let mut remap = Remapper::default();
        let words: Vec<u32> = zipf(&params)
            .expect("valid parameters")
            .map(|(p, op)| pack(remap.dense(p).expect("fits"), op))
            .collect();
        (words, remap.ids().len())
    })
}

/// The trace as `flt` request words in bytes, for `Simulator::run_bytes`.
fn bytes() -> &'static [u8] {
    static B: OnceLock<Vec<u8>> = OnceLock::new();
    B.get_or_init(|| trace().0.iter().flat_map(|w| w.to_le_bytes()).collect())
}

fn replay<P: Policy>(policy: P) -> u64 {
    let (words, _) = trace();
    let device = DeviceModel::parse("ratio:1:8").expect("valid device");
    let mut sim = Simulator::new(policy, CostStore::new(device)).expect("a model-priced policy");
    sim.run_words(words.iter().copied())
        .expect("cost store never fails");
    sim.finish().misses
}

fn main() {
    divan::main();
}

/// The policy a spec names, built as `sim` builds it.
struct Replay;

impl WithPolicy for Replay {
    type Out = u64;
    fn visit<P: Policy>(self, policy: P) -> flashlayer::Result<u64> {
        Ok(replay(policy))
    }
}

/// Every built-in policy of the table at its defaults but costopt-ub (its
/// planner's iterations dwarf any per-request cost), and two variants, as
/// `flashlayer bench policies` runs them.
fn specs() -> Vec<&'static str> {
    let table = SERVING.iter().map(|(name, _)| *name);
    let all = table.filter(|name| *name != "costopt-ub");
    all.chain(["fdbuffer:cluster=64", "koltsidas:lambda=0.5"])
        .collect()
}

#[divan::bench(args = specs())]
fn policy(bencher: divan::Bencher<'_, '_>, spec: &str) {
    let (words, pages) = trace();
    let spec = PolicySpec::parse(spec).expect("a policy spec");
    bencher
        .counter(divan::counter::ItemsCount::new(words.len()))
        .bench(|| match spec.kind {
            // Offline: its future is the trace's words, not a file's bytes.
            PolicyKind::Belady(()) => replay(Belady::new(BUFFER, words).expect("small trace")),
            _ => with_online_policy(&spec, BUFFER, *pages, Replay).expect("an online policy"),
        });
}

/// LRU over a hybrid flash + magnetic store (Koltsidas Table 1), by
/// placement: the store's per-request and per-eviction work.
#[divan::bench(args = ["m-only", "conservative", "hybrid"])]
fn hybrid_store(bencher: divan::Bencher<'_, '_>, placement: &str) {
    let (words, pages) = trace();
    bencher
        .counter(divan::counter::ItemsCount::new(words.len()))
        .bench(|| {
            let store = HybridStore::builder(
                CostStore::new(DeviceModel::preset("koltsidas08-flash").expect("preset")),
                CostStore::new(DeviceModel::preset("koltsidas08-magnetic").expect("preset")),
            )
            .placement(Placement::parse(placement).expect("a placement"))
            .buffer_pages(BUFFER as u64)
            .preloaded(true)
            .open()
            .expect("valid store");
            let mut sim = Simulator::new(Lru::new(BUFFER).with_pages(*pages), store)
                .expect("a model-priced policy");
            // The replay users run: the store is hinted ahead of time.
            sim.run_bytes(bytes()).expect("cost store never fails");
            sim.finish().misses
        });
}

/// Each DRAM / SSD / disk scheme with LRU in DRAM (the buffer) and an SSD
/// five times as large (HyPro Table 4 devices): the mechanism's and the
/// scheme's per-request work, with the replay's hints.
#[divan::bench(args = ["hypro", "tac", "face", "lc"])]
fn tier(bencher: divan::Bencher<'_, '_>, scheme: &str) {
    use flashlayer::sim::Simulator;
    use flashlayer::tier::{Counting, SchemeSpec, SsdTier};
    let (words, pages) = trace();
    let ssd = DeviceModel::preset("hypro-ssd").expect("preset");
    let hdd = DeviceModel::preset("hypro-hdd").expect("preset");
    let spec = SchemeSpec::parse(scheme).expect("a scheme");
    bencher
        .counter(divan::counter::ItemsCount::new(words.len()))
        .bench(|| {
            let built = spec
                .build(5 * BUFFER, *pages, u64::from, &ssd, &hdd)
                .expect("valid scheme");
            let store =
                SsdTier::new(built, Counting::default(), &ssd, &hdd).dense_ids(*pages as u32);
            let mut sim = Simulator::new(Lru::new(BUFFER).with_pages(*pages), store)
                .expect("a counting tier");
            sim.run_bytes(bytes()).expect("counting never fails");
            sim.store().counts().hdd_misses
        });
}

/// LRU's misses and write-backs at every size in one pass: exact, and
/// SHARDS at 1%.
#[divan::bench(args = ["exact", "shards-1%"])]
fn curve(bencher: divan::Bencher<'_, '_>, how: &str) {
    let (words, pages) = trace();
    let requests = || words.iter().map(|&w| flashlayer::types::unpack(w));
    bencher
        .counter(divan::counter::ItemsCount::new(words.len()))
        .bench(|| match how {
            "exact" => lru_curve(requests(), *pages).misses.len(),
            "shards-1%" => sampled_curve(requests(), Sampling::Rate(0.01), 1 << 16)
                .expect("valid sampling")
                .misses
                .len(),
            other => unreachable!("unknown bench arg {other}"),
        });
}

/// One planner iteration of the cost-optimal bound (the Lagrangian and its
/// subgradient), and the Belady replay every plan starts with.
#[divan::bench(sample_count = 5)]
fn bound_lower(bencher: divan::Bencher<'_, '_>) {
    let (words, _) = trace();
    let future = Future::new(words).expect("small trace");
    let costs = ScheduleCosts {
        read: 1.0,
        write: 8.0,
        seq_write: 8.0,
        flush_at_end: false,
    };
    let opts = BoundOptions {
        iterations: 1,
        search: false,
        ..BoundOptions::default()
    };
    bencher
        .counter(divan::counter::ItemsCount::new(words.len()))
        .bench(|| {
            plan(&future, DenseNumbers, BUFFER, costs, &opts, &mut |_| Ok(()))
                .expect("plans")
                .bounds
                .lower
        });
}
