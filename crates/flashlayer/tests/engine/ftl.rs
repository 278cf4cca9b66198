//! The flash translation layer against what is known of it: greedy
//! collection's write amplification under uniform random writes is Xiang &
//! Kurkoski's closed form; the map and the pages agree after any writes;
//! cost-benefit collection is no worse than greedy where data has hot and
//! cold parts.

use flashlayer::ftl::{greedy_write_amplification, Collector, Ftl, FtlStats};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

/// Write amplification over `measure` uniform random writes, after a
/// sequential fill and `warm` random writes (the steady state).
fn steady_wa(
    ftl: &mut Ftl,
    warm: u64,
    measure: u64,
    seed: u64,
    pick: impl Fn(&mut rand_pcg::Pcg64) -> u32,
) -> f64 {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    for p in 0..ftl.logical() {
        ftl.write(p).unwrap();
    }
    for _ in 0..warm {
        ftl.write(pick(&mut rng)).unwrap();
    }
    let before: FtlStats = ftl.stats();
    for _ in 0..measure {
        ftl.write(pick(&mut rng)).unwrap();
    }
    let after = ftl.stats();
    let host = after.host_writes - before.host_writes;
    (host + after.relocations - before.relocations) as f64 / host as f64
}

#[test]
fn greedy_write_amplification_is_the_closed_form_at_three_over_provisionings() {
    let logical = 65_536u32;
    for op in [0.15, 0.3, 0.6] {
        let mut ftl = Ftl::new(logical, op, 256, Collector::Greedy).unwrap();
        let n = u64::from(logical);
        let wa = steady_wa(&mut ftl, 4 * n, 4 * n, 7, |r| r.random_range(0..logical));
        let closed = greedy_write_amplification(op);
        let gap = (wa - closed).abs() / closed;
        assert!(
            gap <= 0.05,
            "over-provisioning {op}: measured {wa:.3}, closed form {closed:.3} ({:.1}% apart)",
            gap * 100.0
        );
        ftl.check_consistency().unwrap();
    }
}

/// Hot and cold data: 90% of writes to 10% of the pages. Cost-benefit
/// waits for cold blocks to age and takes hot blocks once nearly empty;
/// greedy reclaims whatever holds least now, and keeps moving cold pages.
#[test]
fn cost_benefit_relocates_less_than_greedy_when_writes_are_skewed() {
    let logical = 32_768u32;
    let hot = logical / 10;
    let pick = |r: &mut rand_pcg::Pcg64| {
        if r.random_bool(0.9) {
            r.random_range(0..hot)
        } else {
            r.random_range(hot..logical)
        }
    };
    let n = u64::from(logical);
    let wa = |collector| {
        let mut ftl = Ftl::new(logical, 0.2, 64, collector).unwrap();
        let wa = steady_wa(&mut ftl, 6 * n, 6 * n, 11, pick);
        ftl.check_consistency().unwrap();
        wa
    };
    let (greedy, cost_benefit) = (wa(Collector::Greedy), wa(Collector::CostBenefit));
    assert!(
        cost_benefit < greedy,
        "cost-benefit {cost_benefit:.3} against greedy {greedy:.3}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any writes and reads leave the map and the pages in agreement, and
    /// the counts add up: every program is a host write or a relocation,
    /// every erase reclaimed a block whose pages were all moved or stale.
    #[test]
    fn the_map_and_the_pages_agree_after_any_writes(
        ops in prop::collection::vec((0u32..200, any::<bool>()), 1..4000),
        op in prop::sample::select(vec![0.1, 0.25, 1.0]),
        cost_benefit in any::<bool>(),
    ) {
        let collector = if cost_benefit { Collector::CostBenefit } else { Collector::Greedy };
        let mut ftl = Ftl::new(200, op, 8, collector).unwrap();
        let (mut writes, mut reads) = (0, 0);
        for &(page, write) in &ops {
            if write {
                ftl.write(page).unwrap();
                writes += 1;
            } else {
                ftl.read(page).unwrap();
                reads += 1;
            }
        }
        ftl.check_consistency().unwrap();
        let s = ftl.stats();
        prop_assert_eq!((s.host_writes, s.host_reads), (writes, reads));
        // Each erase freed a whole block, so pages programmed fit in the
        // blocks ever written: the erased ones and those still in use.
        prop_assert!(s.programs() <= (s.erases + u64::from(ftl.blocks())) * 8);
        prop_assert!(ftl.write(200).is_err(), "a page beyond the logical ones is refused");
    }
}

#[test]
fn too_little_spare_room_is_refused_with_what_is_needed() {
    let e = Ftl::new(1000, 0.01, 64, Collector::Greedy)
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs from") && e.contains("blocks up"), "{e}");
    assert!(Ftl::new(1000, 0.0, 64, Collector::Greedy).is_err());
    assert!(Ftl::new(1000, f64::NAN, 64, Collector::Greedy).is_err());
}

/// Through `sim::replay` on the `ftl` store, a buffer of one page turns
/// uniform random writes into uniform random write-backs: the run reports
/// the layer's write amplification, near the closed form once the
/// sequentially filled device has settled, and its time is every read,
/// program and erase at the device's price.
#[test]
fn an_ftl_store_run_reports_its_write_amplification_and_pays_for_it() {
    use flashlayer::policy::PolicySpec;
    use flashlayer::sim::{self, ReplayOptions, StoreSpec};
    use flashlayer::spec::Size;
    use flashlayer::trace::{Flt, FltWriter};
    use flashlayer::types::Op;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u.flt");
    let pages = 16_384u64;
    let mut w = FltWriter::create(&path).unwrap();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(11);
    for p in 0..pages {
        w.push(p, Op::Write).unwrap();
    }
    for _ in 0..24 * pages {
        w.push(rng.random_range(0..pages), Op::Write).unwrap();
    }
    w.finish().unwrap();
    let t = Flt::open(&path).unwrap();
    let run = |store: &str| {
        sim::replay(
            &t,
            &PolicySpec::parse("lru").unwrap(),
            Size::Pages(1),
            &StoreSpec::parse(store).unwrap(),
            &ReplayOptions::default(),
            &mut |_| Ok(()),
        )
        .unwrap()
    };
    let r = run("ftl:device=read=1,write=10,erase=100,op=0.3,block=128");
    let get = |k: &str| r.field(k).and_then(|v| v.int()).unwrap();
    let (host, relocations, erases) = (
        get("ftl_host_writes"),
        get("ftl_relocations"),
        get("ftl_erases"),
    );
    assert_eq!(
        host, r.metrics.physical_writes,
        "every write-back is a host write"
    );
    let wa = (host + relocations) as f64 / host as f64;
    let closed = greedy_write_amplification(0.3);
    assert!(
        (wa / closed - 1.0).abs() < 0.05,
        "write amplification {wa:.3}, closed form {closed:.3}"
    );
    // A write miss reads its page first.
    let reads = get("ftl_host_reads") + relocations;
    let priced = reads as f64 + 10.0 * (host + relocations) as f64 + 100.0 * erases as f64;
    assert!(
        (r.metrics.virtual_time - priced).abs() < 1e-6 * priced,
        "{} against {priced}",
        r.metrics.virtual_time
    );
    // More spare room, less amplification.
    let roomy = run("ftl:device=read=1,write=10,erase=100,op=0.6,block=128");
    let wa6 = roomy
        .field("ftl_write_amplification")
        .and_then(|v| v.float())
        .unwrap();
    assert!(wa6 < wa, "{wa6} at 0.6 against {wa} at 0.3");
}
