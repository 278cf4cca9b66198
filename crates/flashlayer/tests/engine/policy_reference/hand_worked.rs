//! Hand-worked examples from the papers and textbooks: reference strings
//! with known miss counts, FD-Buffer's Table 1, and the exhaustive optimum.

use super::*;

/// Minimum misses over every eviction choice (demand paging), by exhaustive
/// search over resident sets.
pub(crate) fn exhaustive_min_misses(cap: usize, t: &[(u32, Op)]) -> usize {
    use std::collections::HashMap;
    fn go(
        cap: usize,
        t: &[(u32, Op)],
        i: usize,
        set: u64,
        memo: &mut HashMap<(usize, u64), usize>,
    ) -> usize {
        if i == t.len() {
            return 0;
        }
        if let Some(&v) = memo.get(&(i, set)) {
            return v;
        }
        let p = t[i].0;
        let bit = 1u64 << p;
        let v = if set & bit != 0 {
            go(cap, t, i + 1, set, memo)
        } else if (set.count_ones() as usize) < cap {
            1 + go(cap, t, i + 1, set | bit, memo)
        } else {
            (0..64)
                .filter(|q| set & (1 << q) != 0)
                .map(|q| 1 + go(cap, t, i + 1, (set & !(1 << q)) | bit, memo))
                .min()
                .expect("full set is not empty")
        };
        memo.insert((i, set), v);
        v
    }
    go(cap, t, 0, 0, &mut HashMap::new())
}

pub(crate) fn ops(s: &str) -> Vec<(u32, Op)> {
    s.split_whitespace()
        .map(|tok| {
            let (op, p) = tok.split_at(1);
            (
                p.parse().unwrap(),
                if op == "w" { Op::Write } else { Op::Read },
            )
        })
        .collect()
}

pub(crate) fn misses<P: Policy>(mut p: P, t: &[(u32, Op)]) -> usize {
    drive(&mut p, t, &|_, _| false)
        .iter()
        .filter(|e| matches!(e, Event::Miss(_)))
        .count()
}

#[test]
fn hand_worked_reference_string_gives_textbook_miss_counts() {
    // The classic string 7 0 1 2 0 3 0 4 2 3 0 3 2 1 2 0 1 7 0 1 with three
    // frames: 15 faults FIFO, 12 LRU, 9 OPT (Silberschatz, "Operating System
    // Concepts", ch. 10).
    let t = ops("r7 r0 r1 r2 r0 r3 r0 r4 r2 r3 r0 r3 r2 r1 r2 r0 r1 r7 r0 r1");
    let words: Vec<u32> = t.iter().map(|&(p, op)| pack(p, op)).collect();
    assert_eq!(misses(Fifo::new(3), &t), 15);
    assert_eq!(misses(Lru::new(3), &t), 12);
    assert_eq!(misses(Belady::new(3, &words).unwrap(), &t), 9);
}

#[test]
fn fifo_shows_beladys_anomaly_and_lru_does_not() {
    // 1 2 3 4 1 2 5 1 2 3 4 5: FIFO faults 9 with 3 frames, 10 with 4.
    let t = ops("r1 r2 r3 r4 r1 r2 r5 r1 r2 r3 r4 r5");
    assert_eq!(misses(Fifo::new(3), &t), 9);
    assert_eq!(misses(Fifo::new(4), &t), 10);
    assert_eq!(misses(Lru::new(3), &t), 10);
    assert_eq!(misses(Lru::new(4), &t), 8);
}

#[test]
fn clock_gives_second_chance_to_referenced_pages() {
    // Frames [1,2,3] all referenced; 4 sweeps and clears every bit, evicts 1.
    // Then 2 is hit (bit set again); 5 skips 2, evicts 3.
    let t = ops("r1 r2 r3 r4 r2 r5");
    let mut c = Clock::new(3);
    let ev = drive(&mut c, &t, &|_, _| false);
    assert_eq!(
        ev[3],
        Event::Miss(Some(Victim {
            page: 1,
            dirty: false
        }))
    );
    assert_eq!(ev[4], Event::Hit);
    assert_eq!(
        ev[5],
        Event::Miss(Some(Victim {
            page: 3,
            dirty: false
        }))
    );
}

#[test]
fn belady_evicts_a_clean_page_first_among_never_reused() {
    // Buffer 2: w1 r2 then r3 needs a victim; neither 1 nor 2 is used again,
    // so the clean page 2 goes and no write-back happens.
    let t = ops("w1 r2 r3");
    let words: Vec<u32> = t.iter().map(|&(p, op)| pack(p, op)).collect();
    let ev = drive(&mut Belady::new(2, &words).unwrap(), &t, &|_, _| false);
    assert_eq!(
        ev[2],
        Event::Miss(Some(Victim {
            page: 2,
            dirty: false
        }))
    );
}

#[test]
fn scan_resistance_of_2q_and_arc_beats_lru_on_hot_set_plus_scan() {
    // A hot set of 4 pages, each referenced twice to establish it, then
    // rounds of the hot set between one-time scan pages. With 5 frames LRU
    // cycles through 6 pages a round and, after the first round, misses every
    // request (4 + 2 + 49 × 6 = 300); 2Q and ARC
    // keep the hot set (ARC in T2) and miss only the scan pages.
    let mut s = String::from("r0 r0 r1 r1 r2 r2 r3 r3 ");
    for round in 0..50 {
        for h in 0..4 {
            s.push_str(&format!("r{h} "));
        }
        s.push_str(&format!("r{} r{} ", 100 + 2 * round, 101 + 2 * round));
    }
    let t = ops(&s);
    assert_eq!(misses(Lru::new(5), &t), 300);
    assert_eq!(misses(Arc::new(5), &t), 4 + 100);
    assert!(misses(TwoQ::new(5), &t) < 300);
}

/// FD-Buffer Table 1: a 2-page buffer, both pools LRU, M_c = 1, warmed with
/// clean pages (Y, then X, so that the buffer states match the table), then
/// W_A W_B R_C R_D R_C R_D R_C W_B R_A. After the warm-up Belady reads 6
/// pages and writes 2, FD-Buffer reads 8 and writes 1; `sim` counts the two
/// warm-up reads too.
#[test]
fn fdbuffer_table_1_exactly() {
    use flashlayer::device::DeviceModel;
    use flashlayer::sim::Simulator;
    use flashlayer::store::CostStore;
    let (x, y, a, b, c, d) = (0, 1, 2, 3, 4, 5);
    let (r, w) = (Op::Read, Op::Write);
    let t = [
        (y, r),
        (x, r),
        (a, w),
        (b, w),
        (c, r),
        (d, r),
        (c, r),
        (d, r),
        (c, r),
        (b, w),
        (a, r),
    ];
    let words: Vec<u32> = t.iter().map(|&(p, op)| pack(p, op)).collect();
    fn replay<P: Policy>(p: P, t: &[(u32, Op)]) -> flashlayer::types::Metrics {
        let mut sim = Simulator::new(p, CostStore::new(DeviceModel::unit())).unwrap();
        for &(page, op) in t {
            sim.request(page, op).unwrap();
        }
        sim.finish()
    }
    let fd = replay(
        FdBuffer::new(
            2,
            1,
            BoxedPolicy::new(Lru::new(2)),
            BoxedPolicy::new(Lru::new(2)),
        ),
        &t,
    );
    let opt = replay(Belady::new(2, &words).unwrap(), &t);
    assert_eq!((fd.physical_reads, fd.physical_writes, fd.hits), (10, 1, 1));
    assert_eq!(
        (opt.physical_reads, opt.physical_writes, opt.hits),
        (8, 2, 3)
    );
    // Every state of the table after the warm-up is [D, C]: one dirty page
    // and one clean page.
    let mut p = FdBuffer::new(
        2,
        1,
        BoxedPolicy::new(Lru::new(2)),
        BoxedPolicy::new(Lru::new(2)),
    );
    let mut states = Vec::new();
    for &(page, op) in &t {
        if !p.access(page, op) {
            if p.len() == 2 {
                p.evict(|_| true).unwrap();
            }
            p.insert(page, op, COST);
        }
        states.push(p.pool_sizes());
    }
    assert_eq!(states[..2], [(1, 0), (2, 0)], "warm-up: clean pages");
    assert_eq!(states[2..], [(1, 1); 9]);
}

/// A page adopted from another pool is not a ghost hit: ARC's target p does
/// not move, where the same page returning on a demand miss moves it.
#[test]
fn adopting_a_ghost_is_not_a_ghost_hit() {
    let setup = || {
        let mut a = Arc::new(2);
        for p in [1, 2] {
            assert!(!a.access(p, Op::Read));
            a.insert(p, Op::Read, COST);
        }
        assert!(a.access(2, Op::Read), "2 moves to T2");
        assert!(!a.access(3, Op::Read));
        assert_eq!(a.evict(|_| true).map(|v| v.page), Some(1), "1 goes to B1");
        a.insert(3, Op::Read, COST);
        a
    };
    let mut moved = setup();
    moved.evict(|_| true).unwrap();
    moved.adopt(1, true, COST);
    assert!(moved.contains(1) && moved.is_dirty(1));
    assert_eq!(moved.p(), 0.0);

    let mut demand = setup();
    assert!(!demand.access(1, Op::Write));
    demand.evict(|_| true).unwrap();
    demand.insert(1, Op::Write, COST);
    assert_eq!(demand.p(), 1.0, "a ghost hit in B1 raises p");
}

/// `mc=auto` moves M_c the right way: a write-heavy mix on an expensive
/// write grows the dirty pool; the same mix at asymmetry 1, where the read
/// set is the busier one, grows the clean pool. The larger buffer runs the
/// sampled estimator (1 page in 8).
#[test]
fn fdbuffer_auto_moves_mc_towards_the_cheaper_pool() {
    use flashlayer::device::DeviceModel;
    use flashlayer::sim::Simulator;
    use flashlayer::store::CostStore;
    use rand::{Rng, SeedableRng};
    for (m, set, n) in [(100usize, 80u32, 400_000usize), (4096, 3300, 3_000_000)] {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        // 70% reads over one set, 30% writes over another, each 80% of M.
        let trace: Vec<(u32, Op)> = (0..n)
            .map(|_| {
                if rng.random_bool(0.7) {
                    (rng.random_range(0..set), Op::Read)
                } else {
                    (set + rng.random_range(0..set), Op::Write)
                }
            })
            .collect();
        let mc_after = |device: &str| {
            let fd = FdBuffer::with_mc(
                m,
                Mc::Auto { epoch: 5_000 },
                CostSource::Model,
                BoxedPolicy::new(Lru::new(m)),
                BoxedPolicy::new(Lru::new(m)),
            );
            let store = CostStore::new(DeviceModel::parse(device).unwrap());
            let mut sim = Simulator::new(fd, store).unwrap();
            for &(p, op) in &trace {
                sim.request(p, op).unwrap();
            }
            sim.policy().mc()
        };
        let (symmetric, asymmetric) = (mc_after("ratio:1:1"), mc_after("ratio:1:64"));
        assert!(symmetric > m / 2, "M = {m}: M_c grew at 1:1: {symmetric}");
        assert!(
            asymmetric < m / 2,
            "M = {m}: M_c shrank at 1:64: {asymmetric}"
        );
    }
}
