//! `sim::replay` as users call it: buffers larger than the trace, dirty
//! pages written at the end, cancellation from the progress callback, and
//! every policy on every store.

use flashlayer::policy::{PolicySpec, POLICIES};
use flashlayer::sim::{self, ReplayOptions, StoreSpec};
use flashlayer::spec::Size;
use flashlayer::trace::{Flt, FltWriter};
use flashlayer::types::Op;
use flashlayer::Error;
use rand::{Rng, SeedableRng};

fn random_trace(dir: &tempfile::TempDir, n: usize, pages: u64) -> Flt {
    let path = dir.path().join("t.flt");
    let mut w = FltWriter::create(&path).unwrap();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    for _ in 0..n {
        let op = if rng.random_bool(0.3) {
            Op::Write
        } else {
            Op::Read
        };
        w.push(rng.random_range(0..pages) * 1000, op).unwrap();
    }
    w.finish().unwrap();
    Flt::open(&path).unwrap()
}

/// A run's buffer, store and options.
struct O {
    buffer: u64,
    store: String,
    flush_at_end: bool,
    series_every: u64,
}

/// A buffer of `buffer_pages` over a cost store of `ratio:1:8`.
fn opts(buffer_pages: u64, flush_at_end: bool) -> O {
    O {
        buffer: buffer_pages,
        store: "cost:device=ratio:1:8".into(),
        flush_at_end,
        series_every: 0,
    }
}

/// A buffer of 64 pages over a cost store where a sequential write costs 2
/// and a random one 10.
fn seq_opts(flush_at_end: bool) -> O {
    O {
        store: "cost:device=read=1,write=10,seq_write=2".into(),
        ..opts(64, flush_at_end)
    }
}

fn run(t: &Flt, policy: &str, o: &O) -> flashlayer::Result<flashlayer::types::Metrics> {
    replay_with(t, policy, o, &mut |_| Ok(()))
}

fn replay(
    t: &Flt,
    policy: &str,
    buffer: u64,
    store: &str,
    flush_at_end: bool,
    progress: &mut dyn FnMut(u64) -> flashlayer::Result<()>,
) -> flashlayer::Result<flashlayer::types::Metrics> {
    let o = O {
        store: store.into(),
        ..opts(buffer, flush_at_end)
    };
    replay_with(t, policy, &o, progress)
}

fn replay_with(
    t: &Flt,
    policy: &str,
    o: &O,
    progress: &mut dyn FnMut(u64) -> flashlayer::Result<()>,
) -> flashlayer::Result<flashlayer::types::Metrics> {
    let (buffer_pages, store) = (o.buffer, o.store.as_str());
    let opts = ReplayOptions {
        series_every: o.series_every,
        flush_at_end: Some(o.flush_at_end).filter(|&f| f),
        ..ReplayOptions::default()
    };
    sim::replay(
        t,
        &PolicySpec::parse(policy)?,
        Size::Pages(buffer_pages),
        &StoreSpec::parse(store)?,
        &opts,
        progress,
    )
    .map(|r| r.metrics)
}

/// A buffer of a trillion pages does not allocate a trillion of anything: it
/// decides exactly like a buffer that holds every page of the trace.
#[test]
fn a_buffer_larger_than_the_trace_runs_like_one_that_holds_it_all() {
    let dir = tempfile::tempdir().unwrap();
    let t = random_trace(&dir, 5_000, 300);
    for name in POLICIES.entries.iter().map(|p| p.name) {
        let exact = run(&t, name, &opts(t.pages() as u64, false)).unwrap();
        let huge = run(&t, name, &opts(1_000_000_000_000, false)).unwrap();
        assert_eq!(exact, huge, "{name}");
        assert_eq!(huge.misses as usize, t.pages(), "{name}: only cold misses");
    }
}

/// `flush_at_end` writes exactly the dirty pages left, prices them, and
/// leaves everything else as the plain run counted it. costopt-ub plans its
/// schedule knowing whether the end is flushed, so its decisions may differ
/// between the two runs; it is left out.
#[test]
fn flush_at_end_writes_and_counts_the_dirty_pages_left() {
    let dir = tempfile::tempdir().unwrap();
    let t = random_trace(&dir, 20_000, 2_000);
    for name in POLICIES
        .entries
        .iter()
        .map(|p| p.name)
        .filter(|&n| n != "costopt-ub")
    {
        let plain = run(&t, name, &opts(200, false)).unwrap();
        let flushed = run(&t, name, &opts(200, true)).unwrap();
        assert!(plain.dirty_at_end > 0, "{name}");
        assert_eq!(flushed.dirty_at_end, plain.dirty_at_end, "{name}");
        assert_eq!(
            flushed.physical_writes,
            plain.physical_writes + plain.dirty_at_end,
            "{name}"
        );
        let extra = flushed.virtual_time - plain.virtual_time;
        assert!(
            (extra - 8.0 * plain.dirty_at_end as f64).abs() < 1e-6,
            "{name}: {extra}"
        );
        assert_eq!(
            (flushed.hits, flushed.misses),
            (plain.hits, plain.misses),
            "{name}"
        );
    }
}

#[test]
fn an_error_from_the_progress_callback_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let t = random_trace(&dir, (1 << 20) + 10, 50);
    let mut calls = 0;
    let r = replay(&t, "lru", 10, "cost", false, &mut |_| {
        calls += 1;
        Err(Error::Cancelled)
    });
    assert!(matches!(r, Err(Error::Cancelled)));
    assert_eq!(calls, 1, "the run stopped at the first callback");
}

/// Drives `p` over `trace` like the simulator; before every real eviction
/// of `p` a trial eviction (under a pseudo-random pin set when `trial`) is
/// undone with `reinstate`. Returns the victims.
fn victims<P: flashlayer::policy::Policy>(
    mut p: P,
    trace: &[(u32, Op)],
    trial: bool,
) -> Vec<flashlayer::policy::Victim> {
    let cost = flashlayer::types::PageCost::new(1.0, 1.0);
    let mut out = Vec::new();
    for (i, &(page, op)) in trace.iter().enumerate() {
        if p.access(page, op) {
            continue;
        }
        if p.len() == p.capacity() {
            if trial {
                let pinned = |q: u32| (q as usize * 7 + i).is_multiple_of(3);
                if let Some(v) = p.evict(|q| !pinned(q)) {
                    p.reinstate(v);
                }
            }
            out.push(p.evict(|_| true).expect("a full buffer has a victim"));
        }
        p.insert(page, op, cost);
    }
    out.push(flashlayer::policy::Victim {
        page: p.dirty_count() as u32,
        dirty: false,
    });
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// `reinstate` right after `evict` leaves every policy deciding exactly
    /// as if the eviction had never been tried.
    #[test]
    fn an_undone_eviction_changes_no_later_decision(
        cap in 1usize..8,
        raw in proptest::collection::vec((0u32..20, proptest::bool::ANY), 1..300),
    ) {
        use flashlayer::policy::*;
        let t: Vec<(u32, Op)> = raw.iter().map(|&(p, w)| (p, if w { Op::Write } else { Op::Read })).collect();
        let words: Vec<u32> = t.iter().map(|&(p, op)| flashlayer::types::pack(p, op)).collect();
        proptest::prop_assert_eq!(victims(Lru::new(cap), &t, true), victims(Lru::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(Fifo::new(cap), &t, true), victims(Fifo::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(Clock::new(cap), &t, true), victims(Clock::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(TwoQ::new(cap), &t, true), victims(TwoQ::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(Arc::new(cap), &t, true), victims(Arc::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(Cflru::new(cap, 0.5), &t, true), victims(Cflru::new(cap, 0.5), &t, false));
        proptest::prop_assert_eq!(victims(LruWsr::new(cap), &t, true), victims(LruWsr::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(CcfLru::new(cap), &t, true), victims(CcfLru::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(Sieve::new(cap), &t, true), victims(Sieve::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(S3Fifo::new(cap), &t, true), victims(S3Fifo::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(Lfu::new(cap), &t, true), victims(Lfu::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(Slru::new(cap), &t, true), victims(Slru::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(LruK::new(cap), &t, true), victims(LruK::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(Lirs::new(cap), &t, true), victims(Lirs::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(WTinyLfu::new(cap), &t, true), victims(WTinyLfu::new(cap), &t, false));
        proptest::prop_assert_eq!(victims(ClockPro::new(cap), &t, true), victims(ClockPro::new(cap), &t, false));
        let fd = || FdBuffer::new(cap, cap / 2, BoxedPolicy::new(Arc::new(cap)), BoxedPolicy::new(TwoQ::new(cap)));
        proptest::prop_assert_eq!(victims(fd(), &t, true), victims(fd(), &t, false));
        let fd_lirs = || FdBuffer::new(cap, cap / 2, BoxedPolicy::new(Lirs::new(cap)), BoxedPolicy::new(Lirs::new(cap)));
        proptest::prop_assert_eq!(victims(fd_lirs(), &t, true), victims(fd_lirs(), &t, false));
        let fd_clockpro = || FdBuffer::new(cap, cap / 2, BoxedPolicy::new(ClockPro::new(cap)), BoxedPolicy::new(ClockPro::new(cap)));
        proptest::prop_assert_eq!(victims(fd_clockpro(), &t, true), victims(fd_clockpro(), &t, false));
        let fd_tiny = || FdBuffer::new(cap, cap / 2, BoxedPolicy::new(WTinyLfu::new(cap)), BoxedPolicy::new(Lru::new(cap)));
        proptest::prop_assert_eq!(victims(fd_tiny(), &t, true), victims(fd_tiny(), &t, false));
        let auto = || FdBuffer::with_mc(cap, Mc::Auto { epoch: 7 }, CostSource::Model, BoxedPolicy::new(Lru::new(cap)), BoxedPolicy::new(Arc::new(cap)));
        proptest::prop_assert_eq!(victims(auto(), &t, true), victims(auto(), &t, false));
        let cfdc = || {
            let mut c = Cfdc::new(cap, 0.5, 4);
            // Distinct numbers, some neighbours, some gaps.
            let number = |p: u32| u64::from(p) * 3 / 2;
            for p in 0..20u32 {
                let find = |n: u64| (0..20u32).find(|&q| number(q) == n);
                c.learn_number(p, flashlayer::policy::Numbered { number: number(p), below: number(p).checked_sub(1).and_then(find), above: find(number(p) + 1) });
            }
            c
        };
        proptest::prop_assert_eq!(victims(cfdc(), &t, true), victims(cfdc(), &t, false));
        let casa = || Casa::new(cap, CostSource::Model);
        proptest::prop_assert_eq!(victims(casa(), &t, true), victims(casa(), &t, false));
        proptest::prop_assert_eq!(
            victims(Belady::new(cap, &words).unwrap(), &t, true),
            victims(Belady::new(cap, &words).unwrap(), &t, false)
        );
    }
}

fn trace_of(dir: &tempfile::TempDir, name: &str, pages: impl IntoIterator<Item = u64>) -> Flt {
    let path = dir.path().join(name);
    let mut w = FltWriter::create(&path).unwrap();
    for p in pages {
        w.push(p, Op::Write).unwrap();
    }
    w.finish().unwrap();
    Flt::open(&path).unwrap()
}

/// Stores see the trace's own page numbers: the checkpoint at the end
/// writes pages 1000–1063 as one batch priced sequentially, while the same
/// requests on pages far apart are priced as random writes.
#[test]
fn neighbouring_page_numbers_are_written_sequentially_far_ones_randomly() {
    let dir = tempfile::tempdir().unwrap();
    let o = seq_opts(true);
    let near = trace_of(&dir, "near.flt", 1000..1064);
    let far = trace_of(&dir, "far.flt", (0..64).map(|i| 1000 + i * 1_000_003));
    let m = run(&near, "lru", &o).unwrap();
    assert_eq!(m.physical_writes, 64);
    // 64 reads, one random write, 63 sequential ones.
    assert_eq!(m.virtual_time, 64.0 + 10.0 + 63.0 * 2.0);
    let m = run(&far, "lru", &o).unwrap();
    assert_eq!(m.virtual_time, 64.0 + 64.0 * 10.0);
}

/// A trace's page `delta` numbers away is the page of that number if the
/// trace has it, whether or not it has the numbers between: one step
/// stops at a gap, a longer one looks past it.
#[test]
fn a_pages_neighbour_is_the_page_of_that_number_across_gaps() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace_of(&dir, "gaps.flt", [10, 11, 13, 14, 20]);
    let d = |n: u64| t.dense_of(n).unwrap();
    assert_eq!(t.neighbour(d(10), 1), Some(d(11)));
    assert_eq!(t.neighbour(d(11), 1), None);
    assert_eq!(t.neighbour(d(10), 2), None);
    assert_eq!(t.neighbour(d(10), 3), Some(d(13)));
    assert_eq!(t.neighbour(d(10), 4), Some(d(14)));
    assert_eq!(t.neighbour(d(14), -3), Some(d(11)));
    assert_eq!(t.neighbour(d(20), -6), Some(d(14)));
    assert_eq!(t.neighbour(d(20), 1), None);
    assert_eq!(t.neighbour(d(10), -11), None);
}

/// CASA's τ and |C| are sampled into the time series.
#[test]
fn the_time_series_samples_casa_state() {
    let dir = tempfile::tempdir().unwrap();
    let t = random_trace(&dir, 5_000, 300);
    let mut o = opts(50, false);
    o.series_every = 1000;
    let m = run(&t, "casa", &o).unwrap();
    assert_eq!(m.series.len(), 5);
    for p in &m.series {
        let names: Vec<&str> = p.state.iter().map(|s| s.0).collect();
        assert_eq!(names, ["tau", "clean", "read_hits_c", "write_hits_d"]);
        let (tau, clean) = (p.state[0].1, p.state[1].1);
        assert!((0.0..=50.0).contains(&tau) && (0.0..=50.0).contains(&clean));
        assert!(
            p.state[2].1 + p.state[3].1 <= p.hits as f64,
            "both count hits"
        );
    }
    assert!(m.series.iter().any(|p| p.state[0].1 > 0.0), "τ moves");
    let lru = run(&t, "lru", &o).unwrap();
    assert!(lru.series.iter().all(|p| p.state.is_empty()));
}

/// A policy that learns costs from measured latencies cannot run over a
/// store that only prices I/O: a clear error, not a silent 1:1.
#[test]
fn measured_costs_over_a_simulated_store_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = random_trace(&dir, 100, 30);
    let e = run(&t, "casa:cost=measured", &opts(10, false))
        .unwrap_err()
        .to_string();
    assert!(e.contains("measures none"), "{e}");
}

/// Drives `p` over `trace`, resizing it to `resize(i)` (when some) before
/// request `i`: shrinking first evicts down to the new size. Returns every
/// victim, and checks `len() <= capacity()` throughout.
fn resized<P: flashlayer::policy::Policy>(
    mut p: P,
    trace: &[(u32, Op)],
    resize: &dyn Fn(usize) -> Option<usize>,
) -> Vec<u32> {
    let cost = flashlayer::types::PageCost::new(1.0, 1.0);
    let mut out = Vec::new();
    for (i, &(page, op)) in trace.iter().enumerate() {
        if let Some(n) = resize(i) {
            while p.len() > n {
                out.push(p.evict(|_| true).expect("a victim").page);
            }
            p.set_capacity(n);
            assert_eq!(p.capacity(), n);
        }
        if !p.access(page, op) {
            if p.len() >= p.capacity() {
                out.push(p.evict(|_| true).expect("a full buffer has a victim").page);
            }
            p.insert(page, op, cost);
        }
        assert!(p.len() <= p.capacity(), "{}", p.name());
    }
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Every policy can be resized at run time; LRU then decides exactly as
    /// an LRU list of the new size.
    #[test]
    fn policies_resize_at_run_time(
        cap in 1usize..8,
        raw in proptest::collection::vec((0u32..20, proptest::bool::ANY), 1..300),
        sizes in proptest::collection::vec(1usize..8, 1..6),
    ) {
        use flashlayer::policy::*;
        let t: Vec<(u32, Op)> = raw.iter().map(|&(p, w)| (p, if w { Op::Write } else { Op::Read })).collect();
        let every = (t.len() / sizes.len()).max(1);
        let resize = |i: usize| (i > 0 && i.is_multiple_of(every)).then(|| sizes[(i / every) % sizes.len()]);
        // The LRU model: a list whose size limit changes.
        let mut list: Vec<u32> = Vec::new();
        let mut limit = cap;
        let mut want = Vec::new();
        for (i, &(page, _)) in t.iter().enumerate() {
            if let Some(n) = resize(i) {
                limit = n;
                while list.len() > limit {
                    want.push(list.remove(0));
                }
            }
            if let Some(j) = list.iter().position(|&q| q == page) {
                list.remove(j);
            } else if list.len() == limit {
                want.push(list.remove(0));
            }
            list.push(page);
        }
        proptest::prop_assert_eq!(resized(Lru::new(cap), &t, &resize), want);
        resized(Fifo::new(cap), &t, &resize);
        resized(Clock::new(cap), &t, &resize);
        resized(TwoQ::new(cap), &t, &resize);
        resized(Arc::new(cap), &t, &resize);
        resized(Cflru::new(cap, 0.5), &t, &resize);
        resized(LruWsr::new(cap), &t, &resize);
        resized(CcfLru::new(cap), &t, &resize);
        resized(Casa::new(cap, CostSource::Model), &t, &resize);
        resized(Cfdc::new(cap, 0.5, 3), &t, &resize);
        resized(FdBuffer::new(cap, cap / 2, BoxedPolicy::new(Arc::new(cap)), BoxedPolicy::new(Clock::new(cap))), &t, &resize);
    }
}

/// Write clustering: 64 dirty pages with neighbouring numbers leave in one
/// batch priced sequentially (one random write, 63 sequential ones).
#[test]
fn fdbuffer_clusters_neighbouring_dirty_pages_into_one_sequential_batch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.flt");
    let mut w = FltWriter::create(&path).unwrap();
    for p in 1000..1064 {
        w.push(p, Op::Write).unwrap();
    }
    for p in 5000..5064 {
        w.push(p, Op::Read).unwrap();
    }
    w.finish().unwrap();
    let t = Flt::open(&path).unwrap();
    let o = seq_opts(false);
    let m = run(&t, "fdbuffer:mc=0.5,cluster=64", &o).unwrap();
    assert_eq!(
        (m.physical_reads, m.physical_writes, m.dirty_evictions),
        (128, 64, 1)
    );
    assert_eq!(m.virtual_time, 128.0 + 10.0 + 63.0 * 2.0);
    let plain = run(&t, "fdbuffer:mc=0.5", &o).unwrap();
    assert_eq!(
        plain.virtual_time,
        128.0 + 10.0 * plain.physical_writes as f64
    );
    assert!(
        plain.physical_writes >= 32,
        "one random write per dirty victim"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// A trace replay teaches CFDC every page's number before the first
    /// request; a caller that meets pages one by one teaches each at its
    /// first miss. Numbers and neighbours never change, so both decide
    /// alike: same hits, same write-backs, same batches.
    #[test]
    fn cfdc_decides_alike_learning_numbers_up_front_or_at_each_miss(
        cap in 1usize..10,
        raw in proptest::collection::vec((0u64..40, proptest::bool::ANY), 1..400),
    ) {
        use flashlayer::policy::Cfdc;
        use flashlayer::sim::Simulator;
        use flashlayer::store::CostStore;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.flt");
        let mut w = FltWriter::create(&path).unwrap();
        // Runs of neighbouring numbers with gaps between them.
        for &(p, write) in &raw {
            w.push(p * 5 / 4, if write { Op::Write } else { Op::Read }).unwrap();
        }
        w.finish().unwrap();
        let t = Flt::open(&path).unwrap();
        let device = flashlayer::device::DeviceModel::parse("ratio:1:8").unwrap();
        let sim = || Simulator::with_numbers(Cfdc::new(cap, 0.5, 3), CostStore::new(device.clone()), &t).unwrap();
        let mut up_front = sim();
        up_front.run_flt(&t, &mut |_| Ok(())).unwrap();
        let mut each_miss = sim();
        for chunk in t.request_bytes().chunks(4) {
            let word = u32::from_le_bytes(chunk.try_into().unwrap());
            let (page, op) = flashlayer::types::unpack(word);
            each_miss.request(page, op).unwrap();
        }
        let (a, b) = (up_front.finish(), each_miss.finish());
        proptest::prop_assert_eq!(
            (a.hits, a.physical_writes, a.dirty_evictions, a.virtual_time),
            (b.hits, b.physical_writes, b.dirty_evictions, b.virtual_time)
        );
    }
}

/// The refusal a combination of a policy and a store meets, if any: the
/// offline schedule of costopt-ub is planned for one device's costs; HyPro
/// serves requests on the SSD that never reach DRAM, so DRAM's future is
/// not the trace's (the other schemes serve every request from DRAM); a
/// policy that learns from measured latencies needs a store that measures
/// them (the file store).
fn refusal(policy: &str, store: &str) -> Option<&'static str> {
    let measured = policy.contains("cost=measured");
    if store.starts_with("tier:scheme=hypro")
        && (policy.starts_with("belady") || policy.starts_with("costopt"))
    {
        Some("is offline")
    } else if policy.starts_with("costopt-ub") && !store.starts_with("cost") {
        Some("costopt-ub plans its schedule")
    } else if measured && !store.starts_with("file") {
        Some("measures none")
    } else {
        None
    }
}

/// Every policy on every kind of store runs (serving every request) or is
/// refused, with one line naming why — never accepted and ignored.
#[test]
fn every_policy_runs_on_every_store_or_is_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let t = random_trace(&dir, 3_000, 200);
    let mut policies: Vec<String> = POLICIES
        .entries
        .iter()
        .map(|p| p.name.to_string())
        .collect();
    policies.extend(
        [
            "cfdc:cluster=4",
            "fdbuffer:cluster=4",
            "casa:cost=measured",
            "fdbuffer:cost=measured",
        ]
        .map(String::from),
    );
    let stores = [
        "cost",
        "file:page_size=512",
        "flash:method=opu,changed=16",
        "ftl:op=0.5,block=8",
        "hybrid",
        "hybrid:placement=optimal",
        "tier:scheme=hypro",
        "tier:scheme=tac",
        "tier:scheme=face",
        "tier:scheme=lc,ssd=5%",
    ];
    for store in stores {
        for policy in &policies {
            let r = replay(&t, policy, 40, store, false, &mut |_| Ok(()));
            match (r, refusal(policy, store)) {
                (Ok(m), None) => assert_eq!(m.requests as usize, t.len(), "{policy} on {store}"),
                (Err(e), Some(why)) => {
                    let e = e.to_string();
                    assert!(
                        e.contains(why) && !e.contains('\n'),
                        "{policy} on {store}: {e}"
                    );
                }
                (Ok(_), Some(why)) => panic!("{policy} on {store} ran; expected a refusal ({why})"),
                (Err(e), None) => panic!("{policy} on {store} was refused: {e}"),
            }
        }
    }
}

/// Write clustering reaches every store through the one protocol: on a tier
/// a clustered write-back is a batch of pages going down together.
#[test]
fn clustering_changes_what_a_tier_receives() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seq.flt");
    let mut w = FltWriter::create(&path).unwrap();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
    for _ in 0..20_000 {
        let base = rng.random_range(0..400u64) * 4;
        for k in 0..4 {
            w.push(
                base + k,
                if rng.random_bool(0.5) {
                    Op::Write
                } else {
                    Op::Read
                },
            )
            .unwrap();
        }
    }
    w.finish().unwrap();
    let t = Flt::open(&path).unwrap();
    for scheme in ["hypro", "tac", "face", "lc"] {
        let store = format!("tier:scheme={scheme},ssd=20%");
        let run = |p: &str| {
            let opts = ReplayOptions::default();
            let s = StoreSpec::parse(&store).unwrap();
            let r = sim::replay(
                &t,
                &PolicySpec::parse(p).unwrap(),
                Size::Pages(100),
                &s,
                &opts,
                &mut |_| Ok(()),
            )
            .unwrap();
            (r.metrics.virtual_time, r.fields)
        };
        for base in ["cfdc", "fdbuffer"] {
            let (a, b) = (
                run(&format!("{base}:cluster=0")),
                run(&format!("{base}:cluster=16")),
            );
            assert_ne!(a, b, "{base} clustering on {scheme}");
        }
    }
}

#[test]
fn store_specs_parse_by_the_one_grammar() {
    let canon = |s: &str| StoreSpec::parse(s).unwrap().to_string();
    assert_eq!(canon("cost"), "cost:device=ratio:1:1");
    assert_eq!(
        canon("ftl:gc=cost-benefit"),
        "ftl:device=mqsim-ssd,op=0.07,block=256,gc=cost-benefit"
    );
    assert_eq!(StoreSpec::parse("ftl:op=0.07").unwrap().short(), "ftl");
    assert_eq!(
        canon("cost:device=read=1,write=8"),
        "cost:device=read=1,write=8"
    );
    assert_eq!(
        canon("tier:scheme=hypro,p_sink=0.15,ssd=5%"),
        "tier:ssd=5%,ssd_device=hypro-ssd,hdd_device=hypro-hdd,scheme=hypro:p_sink=0.15,p_elevate=auto,seed=0,window=1000,level=lru"
    );
    assert_eq!(
        canon("tier:scheme=lc,dirty=0.3,level=fdbuffer:mc=0.5,dirty=arc"),
        "tier:ssd=10%,ssd_device=hypro-ssd,hdd_device=hypro-hdd,scheme=lc:dirty=0.3,level=fdbuffer:mc=0.5,clean=lru,dirty=arc,cluster=0"
    );
    assert_eq!(
        canon("hybrid:placement=optimistic"),
        "hybrid:placement=optimistic,flash=koltsidas08-flash,magnetic=koltsidas08-magnetic,defer=0"
    );
    for s in [
        "cost",
        "file",
        "flash",
        "hybrid:capacity=9",
        "tier:scheme=lc,level=cflru,w=0.25",
    ] {
        let c = canon(s);
        assert_eq!(canon(&c), c, "canonical form parses to itself");
    }
    assert_eq!(
        StoreSpec::parse("tier:scheme=hypro,p_sink=0.15,ssd=5%")
            .unwrap()
            .short(),
        "tier:ssd=5%,scheme=hypro:p_sink=0.15"
    );
    let err = |s: &str| StoreSpec::parse(s).unwrap_err().to_string();
    assert!(err("disk")
        .contains("unknown store 'disk'; valid stores: cost, file, flash, ftl, hybrid, tier"));
    assert!(err("hybrid:placement=best")
        .contains("bad value 'best' for 'placement'; expected conservative"));
    assert!(err("tier:ssd=0").contains("bad value '0' for 'ssd'; expected a whole number of pages"));
    assert!(err("tier:scheme=hypro,p_sink=2").contains("bad value '2' for 'p_sink'"));
    assert!(err("hybrid:flash=hypro-ssd").contains("both must use one unit"));
    assert!(err("cost:device=nosuch").contains("device"));
}

/// A run on a flash store takes its time from the chip (collection
/// included), the same number for every caller of `sim::replay`.
#[test]
fn a_flash_store_run_is_timed_by_its_chip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.flt");
    let mut w = FltWriter::create(&path).unwrap();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
    for _ in 0..20_000 {
        let op = if rng.random_bool(0.5) {
            Op::Write
        } else {
            Op::Read
        };
        w.push(rng.random_range(0..600u64), op).unwrap();
    }
    w.finish().unwrap();
    let t = Flt::open(&path).unwrap();
    let r = sim::replay(
        &t,
        &PolicySpec::parse("lru").unwrap(),
        Size::Pages(50),
        &StoreSpec::parse("flash:method=opu,changed=16").unwrap(),
        &ReplayOptions::default(),
        &mut |_| Ok(()),
    )
    .unwrap();
    let erases = r.field("chip_erases").and_then(|v| v.int()).unwrap();
    assert!(erases > 0, "the run collects");
    assert_eq!(
        r.field("chip_time_us"),
        Some(&flashlayer::types::Value::Float(r.metrics.virtual_time))
    );
}

/// ACE over LRU on a device that serves 4 writes at once: each dirty
/// victim goes out with up to 3 more dirty pages in one batch that costs
/// one write, so the run's time is its reads plus one write per batch; the
/// same policy at k = 1 pays every page.
#[test]
fn ace_batches_cost_one_write_each_on_a_concurrent_device() {
    let dir = tempfile::tempdir().unwrap();
    let t = random_trace(&dir, 20_000, 400);
    let run = |policy: &str, device: &str| {
        sim::replay(
            &t,
            &PolicySpec::parse(policy).unwrap(),
            Size::Pages(40),
            &StoreSpec::parse(&format!("cost:device={device}")).unwrap(),
            &ReplayOptions::default(),
            &mut |_| Ok(()),
        )
        .unwrap()
        .metrics
    };
    let lru = run("lru", "ratio:1:8,k=4");
    let ace = run("ace:nw=4", "ratio:1:8,k=4");
    let serial = run("ace:nw=4", "ratio:1:8");
    // LRU writes one page at a time: k changes nothing for it.
    assert_eq!(lru.virtual_time, run("lru", "ratio:1:8").virtual_time);
    assert_eq!(ace.hits, lru.hits, "ACE leaves LRU's choices alone");
    // Every batch holds the dirty victim: one write each.
    let batches = ace.dirty_evictions;
    assert!(
        ace.physical_writes > 2 * batches,
        "batches of several pages"
    );
    assert_eq!(
        ace.virtual_time,
        ace.physical_reads as f64 + 8.0 * batches as f64
    );
    assert!(ace.virtual_time < 0.7 * lru.virtual_time);
    assert_eq!(
        serial.virtual_time,
        serial.physical_reads as f64 + 8.0 * serial.physical_writes as f64
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// ACE reading ahead, over each base with a cold end, on random traces
    /// of runs of neighbouring page numbers: every read is a miss's or a
    /// page read ahead; pages read ahead are used at most once each; only
    /// dirty victims read ahead, so a run without dirty evictions reads
    /// nothing ahead.
    #[test]
    fn ace_reading_ahead_counts_every_page_it_reads_once(
        cap in 2u64..12,
        ne in 2usize..6,
        base in proptest::sample::select(vec!["lru", "cflru", "lruwsr", "casa"]),
        raw in proptest::collection::vec((0u64..60, proptest::bool::ANY), 1..400),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.flt");
        let mut w = FltWriter::create(&path).unwrap();
        for &(p, write) in &raw {
            w.push(p, if write { Op::Write } else { Op::Read }).unwrap();
        }
        w.finish().unwrap();
        let t = Flt::open(&path).unwrap();
        let spec = format!("ace:base={base},nw={ne},ne={ne},pf=on");
        for device in ["ratio:1:8", "ratio:1:8,k=4"] {
            let m = replay(&t, &spec, cap, &format!("cost:device={device}"), false, &mut |_| Ok(())).unwrap();
            proptest::prop_assert_eq!(m.physical_reads, m.misses + m.read_ahead);
            proptest::prop_assert!(m.read_ahead_used <= m.read_ahead);
            proptest::prop_assert!(m.read_ahead_used <= m.hits);
            if m.dirty_evictions == 0 {
                proptest::prop_assert_eq!(m.read_ahead, 0);
            }
        }
    }
}
