//! Every policy against a slow, obviously-correct reference model, request by
//! request: same hit/miss, same victim, same dirty flag. Random traces with
//! random "pinned" pages exercise the evictable filter too.

mod classic;
mod hand_worked;
mod write_aware;

use flashlayer::policy::{
    boxed_online_policy, Arc, Belady, BoxedPolicy, Casa, CcfLru, Cfdc, Cflru, Clock, CostSource,
    FdBuffer, Fifo, Koltsidas, Lambda, Lru, LruWsr, Mc, Policy, PolicySpec, TwoQ, Victim,
    WbLandlord,
};
use flashlayer::types::{pack, Op, PageCost};
use proptest::prelude::*;
use std::collections::VecDeque;

use classic::*;
use hand_worked::exhaustive_min_misses;
use write_aware::*;

const COST: PageCost = PageCost::new(1.0, 1.0);

#[derive(Debug, PartialEq, Clone, Copy)]
enum Event {
    Hit,
    Miss(Option<Victim>),
}

/// Drives a policy the way the simulator does; `pinned(i, page)` says whether
/// `page` is pinned at request `i`.
fn drive<P: Policy>(
    p: &mut P,
    trace: &[(u32, Op)],
    pinned: &dyn Fn(usize, u32) -> bool,
) -> Vec<Event> {
    drive_admitting(p, trace, pinned, |_, _| COST)
}

/// [`drive`] with `admit(p, page)` called as each page is admitted, just
/// before its insert: it tells the policy what else it learns of the page
/// and gives the page's cost.
fn drive_admitting<P: Policy>(
    p: &mut P,
    trace: &[(u32, Op)],
    pinned: &dyn Fn(usize, u32) -> bool,
    mut admit: impl FnMut(&mut P, u32) -> PageCost,
) -> Vec<Event> {
    let mut out = Vec::new();
    for (i, &(page, op)) in trace.iter().enumerate() {
        if p.access(page, op) {
            out.push(Event::Hit);
            continue;
        }
        let mut victim = None;
        if p.len() >= p.capacity() {
            victim = p.evict(|q| !pinned(i, q));
            if victim.is_none() {
                out.push(Event::Miss(None));
                continue;
            }
        }
        let cost = admit(p, page);
        p.insert(page, op, cost);
        out.push(Event::Miss(victim));
    }
    out
}

trait Model {
    fn step(&mut self, page: u32, op: Op, evictable: &dyn Fn(u32) -> bool) -> Event;
}

fn run_model(
    m: &mut dyn Model,
    trace: &[(u32, Op)],
    pinned: &dyn Fn(usize, u32) -> bool,
) -> Vec<Event> {
    trace
        .iter()
        .enumerate()
        .map(|(i, &(p, op))| m.step(p, op, &|q| !pinned(i, q)))
        .collect()
}

fn trace_strategy(max_pages: u32, max_len: usize) -> impl Strategy<Value = Vec<(u32, Op)>> {
    prop::collection::vec(
        (0..max_pages, prop::bool::weighted(0.3))
            .prop_map(|(p, w)| (p, if w { Op::Write } else { Op::Read })),
        0..max_len,
    )
}

/// A deterministic "pinned" pattern: page q is pinned at request i when a
/// hash of (seed, i, q) falls under `share`.
fn pins(seed: u64, share: u8) -> impl Fn(usize, u32) -> bool {
    move |i, q| {
        if share == 0 {
            return false;
        }
        let mut h = seed
            ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ u64::from(q).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 32;
        (h % 100) < u64::from(share)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn lru_matches_reference(cap in 1usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut Lru::new(cap), &t, &pin);
        let want = run_model(&mut QueueModel { cap, promote: true, r: Resident::default() }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn fifo_matches_reference(cap in 1usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut Fifo::new(cap), &t, &pin);
        let want = run_model(&mut QueueModel { cap, promote: false, r: Resident::default() }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn clock_matches_reference(cap in 1usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut Clock::new(cap), &t, &pin);
        let want = run_model(&mut ClockModel { frames: vec![None; cap], hand: 0 }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn twoq_matches_reference(cap in 1usize..16, t in trace_strategy(40, 500), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut TwoQ::new(cap), &t, &pin);
        let kin = (cap / 4).max(1);
        let kout = (cap / 2).max(1);
        let mut m = TwoQModel { cap, kin, kout, a1in: VecDeque::new(), am: VecDeque::new(), a1out: VecDeque::new() };
        let want = run_model(&mut m, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn cflru_matches_reference(cap in 1usize..12, w in 0.0f64..=1.0, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut Cflru::new(cap, w), &t, &pin);
        let want = run_model(&mut CflruModel { cap, w, list: Vec::new() }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn wblandlord_matches_landlord_with_writeback_costs(cap in 1usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40, write in 1u8..8) {
        let pin = pins(seed, share);
        let cost = PageCost::new(1.0, f64::from(write));
        let got = drive_admitting(&mut WbLandlord::new(cap), &t, &pin, |_, _| cost);
        let want = run_model(&mut WbLandlordModel { cap, cost, resident: Vec::new(), clock: 0 }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn koltsidas_matches_section_5(cap in 1usize..12, lambda in 0.0f64..=1.0, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive_admitting(&mut Koltsidas::new(cap, Lambda::Fixed(lambda)), &t, &pin, |_, page| koltsidas_cost(page));
        let want = run_model(&mut KoltsidasModel { cap, lambda, list: Vec::new() }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn lruwsr_matches_reference(cap in 1usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut LruWsr::new(cap), &t, &pin);
        let want = run_model(&mut LruWsrModel { cap, list: Vec::new() }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn ccflru_matches_reference(cap in 1usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut CcfLru::new(cap), &t, &pin);
        let want = run_model(&mut CcfLruModel { cap, cold_clean: Vec::new(), mixed: Vec::new() }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn casa_matches_algorithm_1(cap in 1usize..12, ratio in 1u32..130, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let cost = PageCost::new(1.0, f64::from(ratio));
        let mut casa = Casa::new(cap, CostSource::Model);
        let got = drive_admitting(&mut casa, &t, &pin, |_, _| cost);
        let total = 1.0 + f64::from(ratio);
        let mut m = CasaModel { b: cap, tau: 0.0, c_r: 1.0 / total, c_w: f64::from(ratio) / total, pools: Pools::default() };
        let want = run_model(&mut m, &t, &pin);
        prop_assert_eq!(got, want);
        prop_assert!((casa.tau() - m.tau).abs() < 1e-9, "tau {} vs {}", casa.tau(), m.tau);
        prop_assert_eq!(casa.clean_len(), m.pools.c.len());
    }

    #[test]
    fn fdbuffer_matches_algorithms_1_and_2(m in 1usize..12, mc_share in 0.0f64..=1.0, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let mc = (mc_share * m as f64).round() as usize;
        let mut fd = FdBuffer::new(m, mc, BoxedPolicy::new(Lru::new(m)), BoxedPolicy::new(Lru::new(m)));
        let got = drive(&mut fd, &t, &pin);
        let want = run_model(&mut FdBufferModel { m, mc, pools: Pools::default() }, &t, &pin);
        prop_assert_eq!(&got, &want);
        // Pools named as LRU itself (the builder's default) decide alike.
        let mut direct = FdBuffer::new(m, mc, Lru::new(m), Lru::new(m));
        prop_assert_eq!(drive(&mut direct, &t, &pin), want);
        let (c, d) = fd.pool_sizes();
        let (fc, fdr) = fd.pool_frames();
        prop_assert!(c <= fc && d <= fdr && fc + fdr == m);
    }

    #[test]
    fn fdbuffer_keeps_its_frames_with_any_base_policies(m in 1usize..12, mc in 0usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        for (c, d) in [("arc", "2q"), ("clock", "fifo"), ("2q", "arc"), ("lru", "clock")] {
            let pool = |name| boxed_online_policy(&PolicySpec::parse(name).unwrap(), m, 0).unwrap();
            let mut fd = FdBuffer::new(m, mc, pool(c), pool(d));
            for (i, e) in drive(&mut fd, &t, &pin).into_iter().enumerate() {
                if let Event::Miss(Some(v)) = e {
                    prop_assert!(!pin(i, v.page));
                }
                let (pc, pd) = fd.pool_sizes();
                let (fc, fdr) = fd.pool_frames();
                prop_assert!(pc <= fc && pd <= fdr && fc + fdr == m, "{} {}: {:?} {:?}", c, d, (pc, pd), (fc, fdr));
                prop_assert_eq!(fd.dirty_count(), pd);
            }
        }
    }

    #[test]
    fn arc_matches_reference(cap in 1usize..16, t in trace_strategy(40, 500)) {
        let none = |_: usize, _: u32| false;
        let got = drive(&mut Arc::new(cap), &t, &none);
        let mut m = ArcModel { c: cap, p: 0.0, t1: VecDeque::new(), t2: VecDeque::new(), b1: VecDeque::new(), b2: VecDeque::new() };
        let want = run_model(&mut m, &t, &none);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn arc_with_pins_keeps_pinned_pages_and_its_invariants(cap in 1usize..16, t in trace_strategy(40, 500), seed: u64, share in 1u8..40) {
        let pin = pins(seed, share);
        let mut a = Arc::new(cap);
        for (i, e) in drive(&mut a, &t, &pin).into_iter().enumerate() {
            if let Event::Miss(Some(v)) = e {
                prop_assert!(!pin(i, v.page));
            }
            prop_assert!(a.len() <= cap);
            prop_assert!(a.p() >= 0.0 && a.p() <= cap as f64);
        }
    }

    #[test]
    fn belady_matches_reference_miss_and_dirty_eviction_counts(cap in 1usize..10, t in trace_strategy(25, 300)) {
        let words: Vec<u32> = t.iter().map(|&(p, op)| pack(p, op)).collect();
        let mut b = Belady::new(cap, &words).unwrap();
        let ev = drive(&mut b, &t, &|_, _| false);
        let misses = ev.iter().filter(|e| matches!(e, Event::Miss(_))).count() as u64;
        let dirty = ev.iter().filter(|e| matches!(e, Event::Miss(Some(Victim { dirty: true, .. })))).count() as u64;
        prop_assert_eq!((misses, dirty), belady_model_misses(cap, &t));
    }

    #[test]
    fn no_online_policy_beats_belady_in_misses(cap in 1usize..10, t in trace_strategy(25, 300)) {
        let words: Vec<u32> = t.iter().map(|&(p, op)| pack(p, op)).collect();
        let none = |_: usize, _: u32| false;
        let count = |ev: Vec<Event>| ev.iter().filter(|e| matches!(e, Event::Miss(_))).count();
        let opt = count(drive(&mut Belady::new(cap, &words).unwrap(), &t, &none));
        prop_assert!(opt <= count(drive(&mut Lru::new(cap), &t, &none)));
        prop_assert!(opt <= count(drive(&mut Fifo::new(cap), &t, &none)));
        prop_assert!(opt <= count(drive(&mut Clock::new(cap), &t, &none)));
        prop_assert!(opt <= count(drive(&mut TwoQ::new(cap), &t, &none)));
        prop_assert!(opt <= count(drive(&mut Arc::new(cap), &t, &none)));
    }

    #[test]
    fn belady_equals_exhaustive_optimum_on_tiny_traces(cap in 1usize..4, t in trace_strategy(6, 14)) {
        let words: Vec<u32> = t.iter().map(|&(p, op)| pack(p, op)).collect();
        let got = drive(&mut Belady::new(cap, &words).unwrap(), &t, &|_, _| false)
            .iter().filter(|e| matches!(e, Event::Miss(_))).count();
        prop_assert_eq!(got, exhaustive_min_misses(cap, &t));
    }

    #[test]
    fn dirty_count_matches_is_dirty(cap in 1usize..12, t in trace_strategy(30, 300)) {
        fn check<P: Policy>(mut p: P, t: &[(u32, Op)]) -> Result<(), TestCaseError> {
            drive(&mut p, t, &|_, _| false);
            let n = (0..30).filter(|&q| p.is_dirty(q)).count();
            prop_assert_eq!(n, p.dirty_count());
            Ok(())
        }
        check(Lru::new(cap), &t)?;
        check(Fifo::new(cap), &t)?;
        check(Clock::new(cap), &t)?;
        check(TwoQ::new(cap), &t)?;
        check(Arc::new(cap), &t)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn cfdc_matches_its_slow_restatement(cap in 1usize..12, w in 0.0f64..=1.0, max in 0usize..6, t in trace_strategy(24, 400), seed: u64, share in 0u8..30) {
        let pin = pins(seed, share);
        // Page numbers are the dense ids; each admission learns its neighbours.
        let got = drive_admitting(&mut Cfdc::new(cap, w, max), &t, &pin, |c, page| {
            c.learn_number(page, flashlayer::policy::Numbered { number: u64::from(page), below: page.checked_sub(1), above: Some(page + 1) });
            COST
        });
        let mut m = CfdcModel {
            cap,
            window: (w * cap as f64).round() as usize,
            max: max.max(1),
            list: Vec::new(),
            region: Vec::new(),
            clusters: Vec::new(),
            clock: 0,
            growths: 0,
        };
        let want = run_model(&mut m, &t, &pin);
        prop_assert_eq!(got, want);
    }
}
