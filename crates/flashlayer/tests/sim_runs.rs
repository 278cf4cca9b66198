//! `sim::run` as users call it: buffers larger than the trace, dirty pages
//! written at the end, and cancellation from the progress callback.

use flashlayer::device::DeviceModel;
use flashlayer::policy::{PolicySpec, POLICIES};
use flashlayer::sim::{self, RunOptions};
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

fn opts(buffer_pages: usize, flush_at_end: bool) -> RunOptions {
    RunOptions {
        buffer_pages,
        device: DeviceModel::parse("ratio:1:8").unwrap(),
        series_every: 0,
        flush_at_end,
    }
}

fn run(t: &Flt, policy: &str, o: &RunOptions) -> flashlayer::Result<flashlayer::types::Metrics> {
    sim::run(t, &PolicySpec::parse(policy).unwrap(), o, &mut |_| Ok(()))
}

/// A buffer of a trillion pages does not allocate a trillion of anything: it
/// decides exactly like a buffer that holds every page of the trace.
#[test]
fn a_buffer_larger_than_the_trace_runs_like_one_that_holds_it_all() {
    let dir = tempfile::tempdir().unwrap();
    let t = random_trace(&dir, 5_000, 300);
    for name in POLICIES.iter().map(|p| p.name) {
        let exact = run(&t, name, &opts(t.pages(), false)).unwrap();
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
    let r = sim::run(
        &t,
        &PolicySpec::parse("lru").unwrap(),
        &opts(10, false),
        &mut |_| {
            calls += 1;
            Err(Error::Cancelled)
        },
    );
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
                let pinned = |q: u32| (q as usize * 7 + i) % 3 == 0;
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
        let fd = || FdBuffer::new(cap, cap / 2, Base::Arc(Arc::new(cap)), Base::TwoQ(TwoQ::new(cap)));
        proptest::prop_assert_eq!(victims(fd(), &t, true), victims(fd(), &t, false));
        let auto = || FdBuffer::with_mc(cap, Mc::Auto { epoch: 7 }, CostSource::Model, Base::Lru(Lru::new(cap)), Base::Arc(Arc::new(cap)));
        proptest::prop_assert_eq!(victims(auto(), &t, true), victims(auto(), &t, false));
        let cfdc = || {
            let mut c = Cfdc::new(cap, 0.5, 4);
            // Distinct numbers, some neighbours, some gaps.
            let number = |p: u32| u64::from(p) * 3 / 2;
            for p in 0..20u32 {
                let find = |n: u64| (0..20u32).find(|&q| number(q) == n);
                c.learn_number(p, number(p), number(p).checked_sub(1).and_then(find), find(number(p) + 1));
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
    let device = DeviceModel::parse("read=1,write=10,seq_write=2").unwrap();
    let o = RunOptions {
        buffer_pages: 64,
        device,
        series_every: 0,
        flush_at_end: true,
    };
    let near = trace_of(&dir, "near.flt", 1000..1064);
    let far = trace_of(&dir, "far.flt", (0..64).map(|i| 1000 + i * 1_000_003));
    let m = run(&near, "lru", &o).unwrap();
    assert_eq!(m.physical_writes, 64);
    // 64 reads, one random write, 63 sequential ones.
    assert_eq!(m.virtual_time, 64.0 + 10.0 + 63.0 * 2.0);
    let m = run(&far, "lru", &o).unwrap();
    assert_eq!(m.virtual_time, 64.0 + 64.0 * 10.0);
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
        assert_eq!(names, ["tau", "clean"]);
        let (tau, clean) = (p.state[0].1, p.state[1].1);
        assert!((0.0..=50.0).contains(&tau) && (0.0..=50.0).contains(&clean));
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
        let resize = |i: usize| (i > 0 && i % every == 0).then(|| sizes[(i / every) % sizes.len()]);
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
        resized(FdBuffer::new(cap, cap / 2, Base::Arc(Arc::new(cap)), Base::Clock(Clock::new(cap))), &t, &resize);
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
    let o = RunOptions {
        buffer_pages: 64,
        device: DeviceModel::parse("read=1,write=10,seq_write=2").unwrap(),
        series_every: 0,
        flush_at_end: false,
    };
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
        let device = DeviceModel::parse("ratio:1:8").unwrap();
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
