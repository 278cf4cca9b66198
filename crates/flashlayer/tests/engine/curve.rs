//! The one-pass LRU curve against the simulator's LRU replayed at every
//! size: misses and dirty write-backs must be equal, not close.

use flashlayer::curve::lru_curve;
use flashlayer::device::DeviceModel;
use flashlayer::policy::Lru;
use flashlayer::sim::Simulator;
use flashlayer::store::CostStore;
use flashlayer::types::Op;
use proptest::prelude::*;

fn simulate(trace: &[(u32, bool)], size: usize) -> (u64, u64) {
    let mut sim = Simulator::new(Lru::new(size), CostStore::new(DeviceModel::unit())).unwrap();
    for &(p, w) in trace {
        sim.request(p, if w { Op::Write } else { Op::Read })
            .unwrap();
    }
    let m = sim.finish();
    (m.misses, m.dirty_evictions)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_curve_equals_lru_replayed_at_every_size(
        trace in prop::collection::vec((0u32..40, prop::bool::weighted(0.3)), 1..600),
    ) {
        let pages = 40;
        let c = lru_curve(trace.iter().map(|&(p, w)| (p, if w { Op::Write } else { Op::Read })), pages);
        prop_assert_eq!(c.requests, trace.len() as u64);
        for size in 1..=pages + 2 {
            let (misses, writebacks) = simulate(&trace, size);
            prop_assert_eq!(c.misses_at(size as u64), misses as f64, "misses at size {}", size);
            prop_assert_eq!(c.writebacks_at(size as u64), writebacks as f64, "write-backs at size {}", size);
        }
    }
}

#[test]
fn a_long_trace_through_many_renumberings_still_matches() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    let trace: Vec<(u32, bool)> = (0..60_000)
        .map(|_| {
            let x: f64 = rng.random();
            ((x * x * 3000.0) as u32, rng.random_bool(0.25))
        })
        .collect();
    let c = lru_curve(
        trace
            .iter()
            .map(|&(p, w)| (p, if w { Op::Write } else { Op::Read })),
        3000,
    );
    for size in [1, 2, 7, 50, 300, 1000, 2999, 3000] {
        let (m, w) = simulate(&trace, size);
        assert_eq!(
            (c.misses_at(size as u64), c.writebacks_at(size as u64)),
            (m as f64, w as f64),
            "size {size}"
        );
    }
}
