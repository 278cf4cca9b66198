//! WATT's tests: by hand, against its definition over every page, and
//! undone evictions.

use super::*;
use crate::policy::testing::{AllWritable, Xorshift};

/// The `n` dirty pages WATT writes back beside its victim, from anywhere
/// in the buffer.
fn dirty_ahead(w: &Watt, n: usize) -> Vec<DenseId> {
    let mut ahead = Vec::new();
    let want = Ahead {
        n,
        window: usize::MAX,
    };
    assert!(w.dirty_ahead(want, &mut AllWritable, &mut ahead));
    ahead
}

fn params() -> WattParams {
    WattParams {
        sample: 0,
        ..WattParams::default()
    }
}

/// With every page considered, a page written often outlives one read
/// as often: the write frequency adds to its value.
#[test]
fn writes_weigh_towards_keeping_a_page() {
    let mut w = Watt::with_params(
        4,
        WattParams {
            epochs: 4,
            ..params()
        },
    );
    let c = PageCost::new(1.0, 1.0);
    for p in 0..4 {
        w.insert(p, if p == 0 { Op::Write } else { Op::Read }, c);
    }
    // Pages 0 and 1 are both accessed again in later epochs, 0 by
    // writes; 2 and 3 are not.
    for _ in 0..3 {
        w.access(0, Op::Write);
        w.access(1, Op::Read);
    }
    let v = w.evict(|_| true).unwrap();
    assert!(v.page == 2 || v.page == 3, "{v:?}");
    w.insert(9, Op::Read, c);
    let v2 = w.evict(|p| p != 9).unwrap();
    assert!(v2.page == 2 || v2.page == 3, "{v2:?}");
    assert!(w.contains(0) && w.contains(1));
}

#[test]
fn an_undone_eviction_restores_the_page_and_the_sampling() {
    let mut w = Watt::with_params(
        16,
        WattParams {
            sample: 4,
            ..params()
        },
    );
    let c = PageCost::new(1.0, 1.0);
    for p in 0..16 {
        w.insert(p, if p % 3 == 0 { Op::Write } else { Op::Read }, c);
    }
    let mut again = w.clone();
    let v = w.evict(|_| true).unwrap();
    w.reinstate(v);
    assert_eq!(w.evict(|_| true), again.evict(|_| true));
    assert_eq!(w.dirty_count(), again.dirty_count());
}

/// WATT by its definition over every resident page (sample=0): the
/// pages in slot order (a leaving page's slot taken by the last page),
/// each with its newest-first epochs; the victim is the least value,
/// the highest slot of equal ones.
#[test]
fn every_page_considered_it_evicts_as_the_definition() {
    evicts_as_the_definition(0);
}

/// With the histories of evicted pages kept (`z`), a returning page
/// resumes its history and its admission does not advance the epoch.
#[test]
fn histories_kept_it_evicts_as_the_definition() {
    evicts_as_the_definition(1);
    evicts_as_the_definition(3);
}

/// An eviction undone with histories kept restores the kept ones too:
/// the undone and the untouched policy decide alike from then on.
#[test]
fn an_undone_eviction_restores_the_kept_histories() {
    let mut w = Watt::with_params(
        4,
        WattParams {
            sample: 0,
            z: 1,
            ..params()
        },
    );
    let c = PageCost::new(1.0, 1.0);
    let mut rng = Xorshift(0x2545_f491_4f6c_dd1d);
    for step in 0..5_000 {
        let (page, op) = rng.request(13, 5);
        if w.access(page, op) {
            continue;
        }
        if w.len() == 4 {
            let mut again = w.clone();
            let v = w.evict(|_| true).unwrap();
            w.reinstate(v);
            assert_eq!(w.evict(|_| true), again.evict(|_| true), "step {step}");
        }
        w.insert(page, op, c);
    }
}

fn evicts_as_the_definition(z: usize) {
    let p = WattParams {
        kr: 3,
        kw: 2,
        epochs: 2,
        z,
        ..params()
    };
    let cap = 12;
    let mut w = Watt::with_params(cap, p);
    let mut model: Vec<(DenseId, Vec<u32>, Vec<u32>)> = Vec::new();
    // Evicted pages' histories, newest first.
    let mut kept: Vec<(DenseId, Vec<u32>, Vec<u32>)> = Vec::new();
    let (mut epoch, mut admitted) = (0u32, 0usize);
    let log = |h: &mut Vec<u32>, k: usize, e: u32| {
        if h.first() != Some(&e) {
            h.insert(0, e);
            h.truncate(k);
        }
    };
    let freq = |h: &[u32], now: u32| {
        h.iter().enumerate().fold(0f32, |b, (i, &t)| {
            let c = if i == 0 { 0.1f32 } else { (i + 1) as f32 };
            b.max((c / (now - t + 1) as f32).min(1.0))
        })
    };
    let mut dirty = std::collections::HashSet::new();
    let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
    for step in 0..20_000 {
        let x = rng.next();
        let page = ((x % 40) * (x % 40) / 40) as DenseId;
        let op = if x % 7 < 2 { Op::Write } else { Op::Read };
        let hit = model.iter().position(|e| e.0 == page);
        assert_eq!(w.access(page, op), hit.is_some(), "step {step}");
        let at = match hit {
            Some(at) => at,
            None => {
                if model.len() == cap {
                    let values: Vec<f32> = model
                        .iter()
                        .map(|e| freq(&e.1, epoch) + freq(&e.2, epoch))
                        .collect();
                    // The dirty pages ACE would write ahead are those of
                    // least value, in order.
                    let ahead = dirty_ahead(&w, 3);
                    let value_of =
                        |p: DenseId| values[model.iter().position(|e| e.0 == p).unwrap()];
                    let mut least: Vec<f32> = model
                        .iter()
                        .filter(|e| dirty.contains(&e.0))
                        .map(|e| value_of(e.0))
                        .collect();
                    least.sort_by(f32::total_cmp);
                    least.truncate(3);
                    let got: Vec<f32> = ahead.iter().map(|&p| value_of(p)).collect();
                    assert_eq!(got, least, "step {step}");
                    assert!(ahead.iter().all(|p| dirty.contains(p)), "step {step}");
                    let v = (0..cap)
                        .min_by(|&a, &b| values[a].total_cmp(&values[b]).then(b.cmp(&a)))
                        .unwrap();
                    let victim = model.swap_remove(v);
                    dirty.remove(&victim.0);
                    assert_eq!(
                        w.evict(|_| true).map(|x| x.page),
                        Some(victim.0),
                        "step {step}"
                    );
                    kept.insert(0, victim);
                    kept.truncate(z * cap);
                }
                w.insert(page, op, PageCost::new(1.0, 1.0));
                match kept.iter().position(|e| e.0 == page) {
                    Some(i) => model.push(kept.remove(i)),
                    None => {
                        model.push((page, Vec::new(), Vec::new()));
                        admitted += 1;
                    }
                }
                model.len() - 1
            }
        };
        if op.is_write() {
            dirty.insert(page);
        }
        let e = &mut model[at];
        log(&mut e.1, p.kr, epoch);
        if op.is_write() {
            log(&mut e.2, p.kw, epoch);
        }
        if admitted >= cap / p.epochs {
            epoch += 1;
            admitted = 0;
        }
    }
}

/// A sample drawn eight candidates at once is the sample of the
/// definition: the first `want` distinct candidates the generator's
/// outputs name (two an output, low half first), in order, from at most
/// `4 × want` of them. Small buffers make duplicates common, so both ways
/// of drawing are checked.
#[test]
fn a_sample_is_the_first_distinct_candidates() {
    for (len, want) in [
        (2, 1),
        (3, 2),
        (10, 4),
        (16, 8),
        (9, 8),
        (20, 8),
        (45_000, 8),
    ] {
        let mut w = Watt::with_params(len, WattParams::default());
        for seed in 0..50 {
            w.rng = Pcg64Mcg::seed_from_u64(seed);
            let mut reference = w.rng.clone();
            let mut expected = Vec::new();
            let mut tried = 0;
            'draw: while tried < 4 * want {
                let x = reference.next_u64();
                for half in [x & 0xffff_ffff, x >> 32] {
                    if tried == 4 * want {
                        break 'draw;
                    }
                    tried += 1;
                    let s = ((half * len as u64) >> 32) as u32;
                    if !expected.contains(&s) {
                        expected.push(s);
                        if expected.len() == want {
                            break 'draw;
                        }
                    }
                }
            }
            w.draw(0, len, want);
            let sample = &w.samples[0];
            assert_eq!(
                &sample.slots[..sample.n],
                &expected[..],
                "len {len}, want {want}, seed {seed}"
            );
            // The generator is where the definition leaves it.
            assert_eq!(w.rng, reference, "len {len}, want {want}, seed {seed}");
        }
    }
}

/// Sampling, the dirty pages ACE would write ahead are dirty candidates of
/// WATT's next evictions, each once, least value first; a bounded window
/// is refused, and so is ACE over WATT with one.
#[test]
fn the_dirty_pages_ahead_are_the_next_samples_dirty_candidates() {
    let p = WattParams {
        sample: 8,
        ..WattParams::default()
    };
    let cap = 64;
    let mut w = Watt::with_params(cap, p);
    let c = PageCost::new(1.0, 1.0);
    let mut rng = Xorshift(7);
    let mut checked = 0;
    for step in 0..5_000 {
        let (page, op) = rng.request(200, 3);
        if w.access(page, op) {
            continue;
        }
        if w.len() == cap {
            w.evict(|_| true).unwrap();
            let ahead = dirty_ahead(&w, 100);
            let drawn: Vec<u32> = (0..AHEAD)
                .flat_map(|k| {
                    let s = &w.samples[(w.head + k) % RING];
                    s.slots[..s.n].to_vec()
                })
                .filter(|&s| (s as usize) < w.len())
                .collect();
            let mut expected: Vec<u64> = drawn
                .iter()
                .filter(|&&s| w.dirty_at(s as usize))
                .map(|&s| w.key_at(s as usize))
                .collect();
            expected.sort_unstable();
            expected.dedup();
            let got: Vec<u64> = ahead
                .iter()
                .map(|&pg| w.key_at(w.slot(pg).unwrap()))
                .collect();
            assert_eq!(got, expected, "step {step}");
            checked += usize::from(!got.is_empty());
        }
        w.insert(page, op, c);
    }
    assert!(checked > 100, "{checked}");
    assert!(!w.dirty_ahead(Ahead { n: 3, window: 8 }, &mut AllWritable, &mut Vec::new()));
    let e = crate::policy::Ace::new(Watt::new(8), 4, 1, 4).unwrap_err();
    assert!(e.to_string().contains("among the next 4 pages"), "{e}");
    assert!(crate::policy::Ace::new(Watt::new(8), 4, 1, 0).is_ok());
}
