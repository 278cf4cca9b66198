//! The DRAM / SSD / disk hierarchy: every read returns the newest version
//! under every scheme, HyPro keeps DRAM and SSD exclusive and is
//! reproducible by seed, its tuning moves the right way, and each
//! competitor keeps its own promise (TAC never dirties the SSD, lazy
//! cleaning stays under its threshold, FaCE writes invalid versions
//! nowhere).

use flashlayer::device::DeviceModel;
use flashlayer::policy::{Lru, Policy};
use flashlayer::sim::Simulator;
use flashlayer::tier::{AnyScheme, Counting, Io, IoCounts, Scheme, SchemeSpec, SsdTier, TierStats};
use flashlayer::types::{DenseId, Op, PageCost};
use flashlayer::Result;
use proptest::prelude::*;

fn devices() -> (DeviceModel, DeviceModel) {
    (
        DeviceModel::preset("hypro-ssd").unwrap(),
        DeviceModel::preset("hypro-hdd").unwrap(),
    )
}

fn scheme(spec: &str, ssd_pages: usize, pages: usize) -> AnyScheme {
    let (s, h) = devices();
    SchemeSpec::parse(spec)
        .unwrap()
        .build(ssd_pages, pages, |d| d as u64, &s, &h)
        .unwrap()
}

/// LRU in DRAM over the SSD tier of a scheme, driven by the simulator
/// (pages named by their dense ids).
struct Tier<I: Io> {
    sim: Simulator<Lru, SsdTier<AnyScheme, I>>,
}

impl<I: Io> Tier<I> {
    fn new(spec: &str, dram: usize, ssd: usize, pages: usize, io: I) -> Self {
        let (s, h) = devices();
        let store = SsdTier::new(scheme(spec, ssd, pages), io, &s, &h).numbered(0..pages as u64);
        Tier {
            sim: Simulator::new(Lru::new(dram), store).unwrap(),
        }
    }
    fn request(&mut self, page: DenseId, op: Op) -> Result<()> {
        self.sim.request(page, op).map(|_| ())
    }
    fn io(&self) -> &I {
        self.sim.store().io()
    }
    fn io_mut(&mut self) -> &mut I {
        self.sim.store_mut().io_mut()
    }
    fn dram(&self) -> &Lru {
        self.sim.policy()
    }
    fn scheme(&self) -> &AnyScheme {
        self.sim.store().scheme()
    }
    fn stats(&self) -> TierStats {
        TierStats::of(&self.sim.metrics(), self.sim.store().counts())
    }
}

fn tier(spec: &str, dram: usize, ssd: usize, pages: usize) -> Tier<Counting> {
    Tier::new(spec, dram, ssd, pages, Counting::default())
}

/// An [`Io`] that carries version numbers instead of bytes and checks that
/// every page read into DRAM, or read on the SSD, is the newest version.
#[derive(Default)]
struct Versions {
    latest: Vec<u64>,
    dram: Vec<u64>,
    hdd: Vec<u64>,
    ssd: Vec<(DenseId, u64)>,
    failures: Vec<String>,
    /// Every this many-th operation fails before it changes anything (0:
    /// none fails).
    fail_every: u64,
    ops: u64,
}

impl Versions {
    fn new(pages: usize, slots: usize) -> Self {
        Versions {
            latest: vec![0; pages],
            dram: vec![0; pages],
            hdd: vec![0; pages],
            ssd: vec![(u32::MAX, 0); slots],
            failures: Vec::new(),
            fail_every: 0,
            ops: 0,
        }
    }
    /// Counts an operation; fails it if its turn has come.
    fn turn(&mut self) -> Result<()> {
        self.ops += 1;
        if self.fail_every > 0 && self.ops.is_multiple_of(self.fail_every) {
            return Err(flashlayer::Error::invalid("injected I/O failure"));
        }
        Ok(())
    }
    fn check(&mut self, what: &str, page: DenseId, version: u64) {
        if version != self.latest[page as usize] {
            self.failures.push(format!(
                "{what} of page {page} found version {version}, newest is {}",
                self.latest[page as usize]
            ));
        }
    }
    fn slot(&mut self, page: DenseId, slot: u32) -> u64 {
        let (p, v) = self.ssd[slot as usize];
        if p != page {
            self.failures
                .push(format!("slot {slot} holds page {p}, not {page}"));
        }
        v
    }
}

impl Io for Versions {
    fn hdd_read(&mut self, page: DenseId) -> Result<()> {
        self.turn()?;
        let v = self.hdd[page as usize];
        self.check("disk read", page, v);
        self.dram[page as usize] = v;
        Ok(())
    }
    fn hdd_write(&mut self, page: DenseId) -> Result<()> {
        self.turn()?;
        self.hdd[page as usize] = self.dram[page as usize];
        Ok(())
    }
    fn ssd_read(&mut self, page: DenseId, slot: u32) -> Result<()> {
        self.turn()?;
        let v = self.slot(page, slot);
        self.check("SSD read", page, v);
        self.dram[page as usize] = v;
        Ok(())
    }
    fn ssd_write(&mut self, page: DenseId, slot: u32, _: bool, _: bool) -> Result<()> {
        self.turn()?;
        self.ssd[slot as usize] = (page, self.dram[page as usize]);
        Ok(())
    }
    fn ssd_serve(&mut self, page: DenseId, slot: u32, op: Op) -> Result<()> {
        self.turn()?;
        match op {
            Op::Read => {
                let v = self.slot(page, slot);
                self.check("read on the SSD", page, v);
            }
            Op::Write => self.ssd[slot as usize] = (page, self.latest[page as usize]),
        }
        Ok(())
    }
    fn ssd_to_hdd(&mut self, page: DenseId, slot: u32) -> Result<()> {
        self.turn()?;
        let v = self.slot(page, slot);
        self.hdd[page as usize] = v;
        Ok(())
    }
    fn ssd_move(&mut self, page: DenseId, from: u32, to: u32) -> Result<()> {
        self.turn()?;
        let v = self.slot(page, from);
        self.ssd[to as usize] = (page, v);
        Ok(())
    }
    /// Versions are checked, not counted.
    fn counts(&self) -> IoCounts {
        IoCounts::default()
    }
}

/// Replays `trace` and then reads every page once; returns the failures.
/// With `fail_every`, every that many-th I/O fails and its request is
/// retried, as a caller would.
fn replay_versions(
    spec: &str,
    dram: usize,
    ssd: usize,
    pages: usize,
    trace: &[(u32, bool)],
    fail_every: u64,
) -> Vec<String> {
    // A policy-ordered level has a spare slot.
    let mut io = Versions::new(pages, ssd + 1);
    io.fail_every = fail_every;
    let mut t = Tier::new(spec, dram, ssd, pages, io);
    let reads = (0..pages as u32).map(|p| (p, false));
    for (page, write) in trace.iter().copied().chain(reads) {
        let op = if write { Op::Write } else { Op::Read };
        if write {
            t.io_mut().latest[page as usize] += 1;
        }
        let mut tries = 0;
        while let Err(e) = t.request(page, op) {
            tries += 1;
            assert!(fail_every > 0 && tries < 100, "{spec}: {e}");
        }
        if t.dram().contains(page) {
            let io = t.io_mut();
            if write {
                io.dram[page as usize] = io.latest[page as usize];
            } else {
                let v = io.dram[page as usize];
                io.check("DRAM read", page, v);
            }
        }
        if t.dram().contains(page) && t.scheme().on_ssd(page) && spec.starts_with("hypro") {
            t.io_mut()
                .failures
                .push(format!("page {page} is in DRAM and on the SSD"));
        }
    }
    std::mem::take(&mut t.io_mut().failures)
}

const SCHEMES: &[&str] = &[
    "hypro:p_sink=0.5,p_elevate=0.3,seed=3",
    "hypro:p_sink=1,p_elevate=1",
    "hypro:seed=7,window=16",
    "hypro:p_sink=0.4,p_elevate=0.2,level=2q",
    "hypro:p_sink=0.3,p_elevate=0.1,level=cflru:w=0.25",
    "tac:extent=4,age=10",
    "face:group=1",
    "face:group=3,second_chance=off",
    "lc:dirty=0.5",
    "lc:dirty=0,level=arc",
    "lc:dirty=1,level=clock",
    "lc:dirty=0.3,level=fdbuffer:mc=0.5,clean=arc",
    "lc:level=casa",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_scheme_returns_the_newest_version_of_every_page(
        trace in prop::collection::vec((0u32..24, prop::bool::weighted(0.35)), 1..400),
        dram in 1usize..5,
        ssd in 1usize..9,
    ) {
        for spec in SCHEMES {
            // A group of 3 needs an SSD of at least 3 slots (a larger one
            // is refused).
            if spec.starts_with("face:group=3") && ssd < 3 {
                continue;
            }
            let failures = replay_versions(spec, dram, ssd, 24, &trace, 0);
            prop_assert!(failures.is_empty(), "{spec}: {}", failures[..failures.len().min(3)].join("; "));
        }
    }

    #[test]
    fn every_scheme_keeps_every_write_when_its_io_fails(
        trace in prop::collection::vec((0u32..24, prop::bool::weighted(0.35)), 1..400),
        dram in 1usize..5,
        ssd in 1usize..9,
        fail_every in 5u64..12,
    ) {
        for spec in SCHEMES {
            if spec.starts_with("face:group=3") && ssd < 3 {
                continue;
            }
            let failures = replay_versions(spec, dram, ssd, 24, &trace, fail_every);
            prop_assert!(failures.is_empty(), "{spec}: {}", failures[..failures.len().min(3)].join("; "));
        }
    }

    #[test]
    fn every_request_is_served_by_exactly_one_level(
        trace in prop::collection::vec((0u32..50, prop::bool::weighted(0.3)), 1..500),
    ) {
        for spec in SCHEMES {
            let mut t = tier(spec, 3, 6, 50);
            for &(p, w) in &trace {
                t.request(p, if w { Op::Write } else { Op::Read }).unwrap();
            }
            let s = t.stats();
            prop_assert_eq!(s.dram_hits + s.ssd_hits + s.hdd_misses, s.requests, "{}", spec);
            let (used, dirty) = t.scheme().ssd_pages();
            prop_assert!(used <= 6 && dirty <= used, "{}: {} pages, {} dirty", spec, used, dirty);
        }
    }
}

fn random_trace(seed: u64, n: usize, pages: u32, write_ratio: f64) -> Vec<(u32, bool)> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            // A skewed pick: small numbers are hot.
            let x: f64 = rng.random();
            (
                (x * x * x * pages as f64) as u32,
                rng.random::<f64>() < write_ratio,
            )
        })
        .collect()
}

fn run(spec: &str, dram: usize, ssd: usize, pages: usize, trace: &[(u32, bool)]) -> Tier<Counting> {
    let mut t = tier(spec, dram, ssd, pages);
    for &(p, w) in trace {
        t.request(p, if w { Op::Write } else { Op::Read }).unwrap();
    }
    t
}

#[test]
fn hypro_without_sinking_or_elevation_is_lru_over_the_disk() {
    let trace = random_trace(1, 20_000, 2_000, 0.3);
    let t = run("hypro:p_sink=0,p_elevate=0", 50, 100, 2_000, &trace);
    let io = t.io().0;
    assert_eq!((io.ssd_reads, io.ssd_writes), (0, 0));
    // The same trace through the simulator's LRU: misses that read are the
    // disk reads (a write miss carries its page), dirty evictions the writes.
    let mut lru = Lru::new(50);
    let (mut reads, mut writes) = (0, 0);
    for &(p, w) in &trace {
        let op = if w { Op::Write } else { Op::Read };
        if !lru.access(p, op) {
            if lru.len() == 50 {
                writes += u64::from(lru.evict(|_| true).unwrap().dirty);
            }
            reads += u64::from(!w);
            lru.insert(p, op, PageCost::new(1.0, 1.0));
        }
    }
    assert_eq!((io.hdd_reads, io.hdd_writes), (reads, writes));
}

#[test]
fn hypro_with_certain_moves_is_an_exclusive_two_level_lru() {
    // DRAM 1 page, SSD 1 page, p_sink = p_elevate = 1: every DRAM victim
    // sinks, every SSD hit swaps. Reads of A B A B: A from disk; B from
    // disk, A sinks; A hit on the SSD swaps with B; B hit on the SSD swaps.
    let mut t = tier("hypro:p_sink=1,p_elevate=1", 1, 1, 2);
    for p in [0, 1, 0, 1] {
        t.request(p, Op::Read).unwrap();
    }
    let s = t.stats();
    let io = t.io().0;
    assert_eq!(
        (s.hdd_misses, s.ssd_hits, s.elevations, s.sinks),
        (2, 2, 2, 3)
    );
    assert_eq!(
        (io.hdd_reads, io.ssd_reads, io.ssd_writes, io.hdd_writes),
        (2, 2, 3, 0)
    );
    assert!(t.dram().contains(1) && t.scheme().on_ssd(0));
}

#[test]
fn hypro_serves_a_flash_hit_on_flash_without_elevation() {
    // p_elevate = 0: the SSD page is read and written where it is.
    let mut t = tier("hypro:p_sink=1,p_elevate=0", 1, 2, 3);
    for (p, op) in [(0, Op::Read), (1, Op::Read), (0, Op::Read), (0, Op::Write)] {
        t.request(p, op).unwrap();
    }
    let io = t.io().0;
    assert_eq!((io.hdd_reads, io.ssd_writes, io.ssd_reads), (2, 2, 1));
    assert!(!t.dram().contains(0) && t.scheme().on_ssd(0));
    // Page 0 is dirty on the SSD only: evicting it from the SSD writes it.
    // 2 sinks page 1 (the SSD is full), 1 is read on the SSD, 3 sinks 2 and
    // pushes out the SSD's least recent page, 0.
    for p in [2, 1, 3] {
        t.request(p, Op::Read).unwrap();
    }
    assert_eq!(t.io().0.cleanings, 1);
}

#[test]
fn hypro_runs_are_reproducible_by_seed() {
    let trace = random_trace(2, 30_000, 3_000, 0.2);
    let a = run(
        "hypro:p_sink=0.3,p_elevate=0.05,seed=11",
        30,
        200,
        3_000,
        &trace,
    );
    let b = run(
        "hypro:p_sink=0.3,p_elevate=0.05,seed=11",
        30,
        200,
        3_000,
        &trace,
    );
    let c = run(
        "hypro:p_sink=0.3,p_elevate=0.05,seed=12",
        30,
        200,
        3_000,
        &trace,
    );
    assert_eq!((a.stats(), a.io().0), (b.stats(), b.io().0));
    assert_ne!(a.io().0, c.io().0);
}

fn pages_of(trace: &[(u32, bool)]) -> usize {
    trace
        .iter()
        .map(|&(p, _)| p as usize + 1)
        .max()
        .unwrap_or(0)
}

fn p_sink_after(spec: &str, trace: &[(u32, bool)], dram: usize, pages: usize) -> f64 {
    let t = run(spec, dram, 400, pages, trace);
    match t.scheme() {
        AnyScheme::Hypro(h) => h.probabilities().0,
        _ => unreachable!(),
    }
}

#[test]
fn hypro_auto_sinks_more_when_evicted_pages_come_back_while_they_would_be_on_the_ssd() {
    // Uniform requests over 200 pages through a DRAM of 20: a page DRAM
    // evicts is requested again about 200 requests later, and the SSD (400
    // pages) never fills: each sink saves a disk read (12.7 ms) for an SSD
    // write (0.8 ms) (Eqs. 1-2 with R_m = E, R_f = 0), so p_sink climbs to
    // its ceiling.
    let uniform = random_trace(3, 40_000, 200, 0.0);
    let p = p_sink_after("hypro:p_elevate=0.05,window=50", &uniform, 20, 200);
    assert_eq!(p, 0.99);
    // A scan of pages never seen again: no evicted page is requested, and
    // a sink is a wasted SSD write.
    let scan: Vec<(u32, bool)> = (0..60_000).map(|i| (i as u32, false)).collect();
    let p = p_sink_after("hypro:p_elevate=0,window=500", &scan, 20, pages_of(&scan));
    assert_eq!(p, 0.01);
    // A page requested twice in a row and never again leaves DRAM
    // unrequested: nothing to gain by sinking it.
    let twice: Vec<(u32, bool)> = (0..40_000).map(|i| ((i / 2) as u32, false)).collect();
    let p = p_sink_after("hypro:p_elevate=0,window=500", &twice, 1, pages_of(&twice));
    assert_eq!(p, 0.01);
}

#[test]
fn hypro_auto_counts_returns_long_after_the_window_they_left_in() {
    // A cycle over 2,000 pages through a DRAM of 20 and an SSD of 2,500: a
    // page comes back 2,000 requests after DRAM evicted it, twenty windows
    // of 100 evictions later. The first pass sees no return and p_sink
    // falls; the returns that follow are counted and p_sink climbs to its
    // ceiling, where the SSD holds the whole cycle.
    let cycle: Vec<(u32, bool)> = (0..40_000).map(|i| ((i % 2_000) as u32, false)).collect();
    let t = run("hypro:p_elevate=0,window=100", 20, 2_500, 2_000, &cycle);
    let AnyScheme::Hypro(h) = t.scheme() else {
        unreachable!()
    };
    assert_eq!(h.probabilities().0, 0.99);
    assert_eq!(h.residency(), None, "the SSD never filled");
    assert_eq!(h.level().pages().0, 2_000 - 20);
}

#[test]
fn hypro_auto_stops_sinking_when_a_sink_pushes_off_a_page_about_to_return() {
    // A cycle over 3,000 pages through a DRAM of 20 and an SSD of 2,500.
    // A page the SSD keeps is hit once a cycle, so the one a sink pushes
    // off is the one hit longest ago, about to be requested again: the
    // residency is the cycle (every SSD page is passed once a cycle), the
    // sunk page would be pushed off before it returns, and sinking only
    // trades a hit for an SSD write. Once the SSD is full, each window moves
    // p_sink by a factor of at most 1.2: the decisions feed back through the
    // residency.
    let mut t = tier("hypro:p_elevate=0,window=500", 20, 2_500, 3_000);
    let p_sink = |t: &Tier<Counting>| match t.scheme() {
        AnyScheme::Hypro(h) => (h.probabilities().0, h.residency()),
        _ => unreachable!(),
    };
    let mut last = p_sink(&t).0;
    for i in 0..300_000u32 {
        t.request(i % 3_000, Op::Read).unwrap();
        let (p, full) = p_sink(&t);
        if full.is_some() && p != last {
            let r = p / last;
            assert!(
                (1.0 / 1.2 - 1e-9..=1.2 + 1e-9).contains(&r) || p == 0.01,
                "{last} -> {p}"
            );
        }
        last = p;
    }
    let (p, d) = p_sink(&t);
    let d = d.expect("the SSD filled");
    assert!((2_900..3_100).contains(&d), "residency {d}");
    assert_eq!(p, 0.01);
}

#[test]
fn hypro_auto_tunes_over_any_ssd_level_policy() {
    let uniform = random_trace(3, 40_000, 200, 0.0);
    let p = p_sink_after("hypro:level=clock,window=50", &uniform, 20, 200);
    assert_eq!(p, 0.99);
}

#[test]
fn hypro_auto_moves_a_probability_by_at_most_a_factor_two_a_window() {
    // One window of 500 evictions of a scan: C_sinkd = 0, so the ratio is
    // held at 1/2 and p_sink halves once, from 0.2 to 0.1.
    let scan: Vec<(u32, bool)> = (0..521).map(|i| (i as u32, false)).collect();
    let p = p_sink_after("hypro:p_elevate=0,window=500", &scan, 20, pages_of(&scan));
    assert_eq!(p, 0.1);
}

#[test]
fn tac_admits_only_pages_warmer_than_the_coldest_cached_extent() {
    // Extents of 1 page, SSD of 1 page, DRAM of 1 page. Page 0 is read
    // three times from below (hot), page 1 once: 1 never displaces 0.
    let mut t = tier("tac:extent=1,age=1000", 1, 1, 3);
    for p in [0, 2, 0, 2, 0, 1, 2, 1] {
        t.request(p, Op::Read).unwrap();
    }
    assert!(t.scheme().on_ssd(0));
    assert!(!t.scheme().on_ssd(1));
}

#[test]
fn lazy_cleaning_keeps_dirty_ssd_pages_under_its_threshold() {
    let trace = random_trace(4, 30_000, 2_000, 0.4);
    for (dirty, ssd) in [(0.5, 200usize), (0.1, 100), (0.0, 50)] {
        let mut t = tier(&format!("lc:dirty={dirty}"), 20, ssd, 2_000);
        let limit = (dirty * ssd as f64).floor() as u64;
        for &(p, w) in &trace {
            t.request(p, if w { Op::Write } else { Op::Read }).unwrap();
            assert!(t.scheme().ssd_pages().1 <= limit);
        }
        assert!(t.io().0.cleanings > 0);
    }
    // dirty=1 never runs the cleaner: the disk sees only SSD evictions.
    let t = run("lc:dirty=1", 20, 2_000, 2_000, &trace);
    assert_eq!(
        t.io().0.hdd_writes,
        0,
        "an SSD as large as the data never writes the disk"
    );
}

#[test]
fn face_writes_an_invalidated_version_nowhere() {
    // DRAM 1, log of 16 slots with groups of 1: page 0 written and evicted
    // twice leaves two versions; when the first reaches the front it is
    // dropped without a disk write; the newest is written once.
    let mut t = tier("face:group=1,second_chance=off", 1, 16, 40);
    let mut reqs = vec![(0, Op::Write), (1, Op::Read), (0, Op::Write), (1, Op::Read)];
    reqs.extend((2..30).map(|p| (p, Op::Read)));
    for (p, op) in reqs {
        t.request(p, op).unwrap();
    }
    // Page 0 was read back from the SSD once (its first version was hit).
    let io = t.io().0;
    assert_eq!(
        io.hdd_writes, 1,
        "only the newest version of page 0 reaches the disk"
    );
    assert_eq!(
        io.ssd_seq_writes, io.ssd_writes,
        "every FaCE write is a log append"
    );
}

#[test]
fn face_gives_referenced_pages_a_second_chance() {
    // Log of 16 slots, group 1: page 0 is hit on the SSD, so when it reaches
    // the front it goes to the rear instead of leaving.
    let run_face = |spec: &str| {
        let mut t = tier(spec, 1, 16, 60);
        for p in [0, 1, 0, 1] {
            t.request(p, Op::Read).unwrap();
        }
        for p in 2..20 {
            t.request(p, Op::Read).unwrap();
        }
        t.scheme().on_ssd(0)
    };
    assert!(run_face("face:group=1"));
    assert!(!run_face("face:group=1,second_chance=off"));
}

#[test]
fn bad_scheme_specs_are_refused_with_the_reason() {
    for (spec, needle) in [
        ("hypro:p_sink=1.5", "bad value '1.5' for 'p_sink'"),
        ("hypro:p_elevate=-1", "bad value '-1' for 'p_elevate'"),
        ("lc:dirty=2", "bad value '2' for 'dirty'"),
        ("face:group=0", "bad value '0' for 'group'"),
        ("tac:extents=3", "has no parameter 'extents'"),
        ("lru", "unknown scheme"),
        ("hypro:level=belady", "level must be an online policy"),
        ("lc:level=nosuch", "level: unknown policy"),
        ("lc:dirty", "expected key=value"),
    ] {
        let err = SchemeSpec::parse(spec).unwrap_err().to_string();
        assert!(err.contains(needle), "{spec}: {err}");
    }
    let (s, h) = devices();
    let err = SchemeSpec::parse("lc")
        .unwrap()
        .build(0, 10, |d| d as u64, &s, &h)
        .unwrap_err();
    assert!(err.to_string().contains("at least 1 page"), "{err}");
}

#[test]
fn a_scheme_spec_takes_any_online_policy_for_its_ssd_with_its_parameters() {
    // After level=, FD-Buffer's own `dirty` continues the policy; lazy
    // cleaning's `dirty` comes before it.
    let s = SchemeSpec::parse("lc:dirty=0.3,level=fdbuffer:mc=0.5,clean=arc,dirty=2q").unwrap();
    assert_eq!(
        s.to_string(),
        "lc:dirty=0.3,level=fdbuffer:mc=0.5,clean=arc,dirty=2q,cluster=0"
    );
    let again = SchemeSpec::parse(&s.to_string()).unwrap();
    assert_eq!(
        again.kind, s.kind,
        "the canonical spec parses back to itself"
    );
    let t = run(
        "lc:level=cflru:w=0.25",
        20,
        100,
        2_000,
        &random_trace(9, 5_000, 2_000, 0.3),
    );
    assert!(t.scheme().name().contains("CFLRU"), "{}", t.scheme().name());
}

/// Every decision of a DRAM policy: per request, whether it hit, and the
/// victim its miss evicted.
struct Decide<'a, S> {
    store: S,
    trace: &'a [(u32, bool)],
}

impl<S: flashlayer::store::PageStore> flashlayer::policy::WithPolicy for Decide<'_, S> {
    type Out = Vec<(bool, Option<DenseId>)>;
    fn visit<P: Policy>(self, policy: P) -> Result<Self::Out> {
        use flashlayer::drive::{DenseNumbers, Driver, NoFrames};
        let mut d = Driver::new(policy, self.store)?;
        let mut frames = NoFrames::new(DenseNumbers);
        let mut out = Vec::with_capacity(self.trace.len());
        for &(p, w) in self.trace {
            let op = if w { Op::Write } else { Op::Read };
            d.count(op);
            let hit = d.access(p, op, || u64::from(p));
            let victim = if hit {
                None
            } else {
                d.miss(p, op, &mut frames, |_| true)?
            };
            out.push((hit, victim));
        }
        Ok(out)
    }
}

/// The online policies, each with its defaults, and the clustering ones
/// clustering (write-backs reach the tier as batches).
fn online_policies() -> Vec<flashlayer::policy::PolicySpec> {
    use flashlayer::policy::{PolicySpec, POLICIES};
    POLICIES
        .entries
        .iter()
        .map(|p| PolicySpec::parse(p.name).unwrap())
        .filter(|p| !p.is_offline())
        .chain(
            ["cfdc:cluster=4", "fdbuffer:cluster=4"]
                .iter()
                .map(|s| PolicySpec::parse(s).unwrap()),
        )
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The SSD level does not change what DRAM sees: over TAC, FaCE and
    /// lazy cleaning (inclusive: every DRAM miss loads the page) and over
    /// HyPro when it never sinks a page, every policy hits and evicts
    /// exactly as over a cost store priced as the disk, clustering
    /// included. (HyPro with sinking serves some misses on the SSD and
    /// elevates dirty pages, Algorithm 1 lines 5–9: DRAM then sees another
    /// trace by design.)
    #[test]
    fn a_dram_policy_decides_on_a_tier_as_over_a_cost_store(
        raw in proptest::collection::vec((0u32..30, proptest::bool::ANY), 1..300),
        dram in 1usize..8,
        ssd in 1usize..10,
    ) {
        use flashlayer::policy::with_online_policy;
        use flashlayer::store::CostStore;
        let (s, h) = devices();
        for policy in online_policies() {
            let alone = with_online_policy(&policy, dram, 30, Decide {
                store: CostStore::new(h.clone()),
                trace: &raw,
            }).unwrap();
            for spec in ["tac", "face:group=1", "lc", "lc:dirty=0", "hypro:p_sink=0,p_elevate=0"] {
                let store = SsdTier::new(scheme(spec, ssd, 30), Counting::default(), &s, &h)
                    .numbered(0..30);
                let tiered = with_online_policy(&policy, dram, 30, Decide { store, trace: &raw })
                    .unwrap();
                prop_assert_eq!(&tiered, &alone, "{} over {}", policy, spec);
            }
        }
    }
}
