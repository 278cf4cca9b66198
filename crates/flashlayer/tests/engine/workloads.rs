//! Workload drivers: deterministic for a seed, transactions keep the
//! databases consistent, parameters mean what they say, nonsense is refused.

use flashlayer::btree::{BTree, HeapFile};
use flashlayer::experiment::run_threads;
use flashlayer::trace::{self, ReadOptions};
use flashlayer::types::{ByteRange, Op, PageId};
use flashlayer::workload::*;
use rand::SeedableRng;
use std::ops::Bound;
use std::path::Path;

fn gen(driver: &mut dyn Workload, seed: u64, bytes: bool, out: &Path) -> GenReport {
    generate(
        driver,
        &GenOptions {
            seed,
            with_bytes: bytes,
            frames: 4096,
        },
        out,
        &mut |_, _| Ok(()),
    )
    .unwrap()
}

fn small_tpcc(transactions: u64) -> TpcC {
    TpcC::new(TpcCParams {
        warehouses: 1,
        transactions,
        ..TpcCParams::default()
    })
    .unwrap()
}

fn read(path: &Path) -> Vec<(PageId, Op, Vec<ByteRange>)> {
    let mut v = Vec::new();
    trace::for_each_with_bytes(path, ReadOptions::default(), |p, op, r| {
        v.push((p, op, r.to_vec()));
        Ok(())
    })
    .unwrap();
    v
}

#[test]
fn generation_is_deterministic_for_a_seed() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a.flt"),
        dir.path().join("b.flt"),
        dir.path().join("c.flt"),
    );
    let mk = || {
        Tatp::new(TatpParams {
            scale: 1,
            transactions: 2000,
            page_size: 4096,
        })
        .unwrap()
    };
    gen(&mut mk(), 9, true, &a);
    gen(&mut mk(), 9, true, &b);
    gen(&mut mk(), 10, true, &c);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&c).unwrap());
}

fn count(
    t: &BTree,
    sp: &flashlayer::btree::Space<flashlayer::policy::BoxedPolicy, flashlayer::store::DynStore>,
) -> u64 {
    t.scan(sp, Bound::Unbounded, Bound::Unbounded, |_, _| true)
        .unwrap()
}

#[test]
fn tpcc_transactions_keep_the_database_consistent() {
    let db = Db::new(8192, 4096).unwrap();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
    let mut d = small_tpcc(3000);
    d.load(&db, &mut rng).unwrap();
    for i in 0..d.steps() {
        d.step(&db, &mut rng, i).unwrap();
    }
    let held = d.check(&db).unwrap().unwrap();
    assert!(held.contains("all 10 districts"), "{held}");
    let s: std::collections::HashMap<String, u64> = d.summary().into_iter().collect();
    let committed = s["new_order"] - s["new_order_rollbacks"];
    let sp = db.space();
    let t = |name| BTree::open(sp, name).unwrap();
    // d_next_o_id advanced once per committed New-Order.
    let mut next_sum = 0u64;
    t("district")
        .scan(sp, Bound::Unbounded, Bound::Unbounded, |_, v| {
            next_sum += u64::from(u32::from_le_bytes(v[0..4].try_into().unwrap()));
            true
        })
        .unwrap();
    assert_eq!(next_sum - 10 * 3001, committed);
    assert_eq!(count(&t("orders"), sp), 30_000 + committed);
    assert_eq!(count(&t("orders_customer"), sp), 30_000 + committed);
    // Each Delivery removes one new order from each of the 10 districts
    // (every district keeps hundreds of undelivered orders here).
    assert_eq!(
        count(&t("new_order"), sp),
        9_000 + committed - 10 * s["delivery"]
    );
    let history = HeapFile::open(sp, "history").unwrap();
    assert_eq!(
        history.scan(sp, |_, _| true).unwrap(),
        30_000 + s["payment"]
    );
    // Every order has as many lines as its o_ol_cnt says.
    let mut want_lines = 0u64;
    t("orders")
        .scan(sp, Bound::Unbounded, Bound::Unbounded, |_, v| {
            want_lines += u64::from(u32::from_le_bytes(v[16..20].try_into().unwrap()));
            true
        })
        .unwrap();
    assert_eq!(count(&t("order_line"), sp), want_lines);
    // The mix is close to 45/43/4/4/4.
    let share = |k: &str| s[k] as f64 / 3000.0;
    assert!((share("new_order") - 0.45).abs() < 0.04 && (share("payment") - 0.43).abs() < 0.04);
}

#[test]
fn tpcc_trace_has_oltp_write_share_skew_and_byte_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.flt");
    let r = gen(&mut small_tpcc(2000), 1, true, &out);
    let t = trace::load(&out, ReadOptions::default()).unwrap();
    let s = trace::stats(&t);
    assert_eq!(s.requests, r.requests);
    assert!(
        s.write_share > 0.10 && s.write_share < 0.25,
        "{}",
        s.write_share
    );
    assert!(s.hot20_share > 0.75, "{}", s.hot20_share);
    let reqs = read(&out);
    let writes: Vec<_> = reqs.iter().filter(|r| r.1 == Op::Write).collect();
    assert!(writes.iter().filter(|r| !r.2.is_empty()).count() * 10 > writes.len() * 9);
    // In-place updates are small: most writes change under 10% of a page.
    let small = writes
        .iter()
        .filter(|r| r.2.iter().map(|x| u64::from(x.len)).sum::<u64>() < 819)
        .count();
    assert!(small * 10 > writes.len() * 8, "{small} of {}", writes.len());
}

#[test]
fn btree_sets_classes_decide_reads_and_writes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b.csv");
    let base = BTreeSetsParams {
        records: 5000,
        queries: 2000,
        ..BTreeSetsParams::default()
    };
    let mut ro = BTreeSets::new(BTreeSetsParams {
        read_only: 1.0,
        ..base.clone()
    })
    .unwrap();
    gen(&mut ro, 1, false, &out);
    assert!(read(&out).iter().all(|r| r.1 == Op::Read));
    let s: Vec<_> = ro.summary();
    assert_eq!(s[2].1 + s[3].1, 0, "{s:?}");
    assert!(
        (s[1].1 as f64 / 2000.0 - 0.2).abs() < 0.04,
        "range share {s:?}"
    );

    let mut uo = BTreeSets::new(BTreeSetsParams {
        update_only: 1.0,
        repeat: 2,
        ..base.clone()
    })
    .unwrap();
    gen(&mut uo, 1, false, &out);
    let s = uo.summary();
    assert_eq!(s[0].1 + s[1].1, 0, "{s:?}");
    assert_eq!(s[2].1 + s[3].1, 4000);
    assert!(
        (s[2].1 as f64 / 4000.0 - 0.3).abs() < 0.04,
        "insert share {s:?}"
    );
    // Repeating the set runs the same queries: the second half of the trace
    // touches the same leaves as the first.
    let reqs = read(&out);
    assert!(reqs.iter().filter(|r| r.1 == Op::Write).count() >= 4000);
}

#[test]
fn pdl_updates_write_groups_of_the_configured_size() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.flt");
    let mut d = PdlUpdates::new(PdlUpdatesParams {
        pages: 100,
        operations: 500,
        update_share: 0.6,
        updates_till_write: 3,
        changed_share: 0.02,
        page_size: 2048,
    })
    .unwrap();
    gen(&mut d, 5, true, &out);
    let reqs = read(&out);
    let s = d.summary();
    assert_eq!(reqs.len() as u64, s[0].1 + 3 * s[1].1);
    let mut i = 0;
    while i < reqs.len() {
        if reqs[i].1 == Op::Read {
            assert!(reqs[i].2.is_empty());
            i += 1;
            continue;
        }
        for j in 0..3 {
            let r = &reqs[i + j];
            assert_eq!((r.0, r.1), (reqs[i].0, Op::Write));
            assert_eq!(r.2.len(), 1);
            assert_eq!(r.2[0].len, 41, "2% of 2048 bytes");
            assert!(usize::from(r.2[0].offset) + 41 <= 2048);
        }
        i += 3;
    }
}

#[test]
fn every_workload_generates_a_valid_trace() {
    let dir = tempfile::tempdir().unwrap();
    let drivers: Vec<Box<dyn Workload>> = vec![
        Box::new(
            TpcB::new(TpcBParams {
                branches: 1,
                transactions: 500,
                page_size: 4096,
            })
            .unwrap(),
        ),
        Box::new(
            TpcH::new(TpcHParams {
                scale_factor: 0.001,
                queries: 20,
                ..TpcHParams::default()
            })
            .unwrap(),
        ),
    ];
    for mut d in drivers {
        let out = dir.path().join(format!("{}.csv.gz", d.name()));
        let r = gen(d.as_mut(), 2, false, &out);
        assert!(r.requests > 0);
        let s = trace::stats(&trace::load(&out, ReadOptions::default()).unwrap());
        assert_eq!(s.requests, r.requests);
        if d.name() == "tpch" {
            assert_eq!(s.writes, 0, "TPC-H-like queries are read-only");
        } else {
            // Every TPC-B transaction writes an account, a teller, a branch
            // and the history heap.
            assert!(s.writes >= 4 * 500);
        }
    }
}

#[test]
fn nonsense_parameters_are_clear_errors() {
    let e = |r: flashlayer::Result<()>| r.unwrap_err().to_string();
    let cases = [
        (
            e(TpcC::new(TpcCParams {
                warehouses: 0,
                ..TpcCParams::default()
            })
            .map(|_| ())),
            "warehouses must be at least 1",
        ),
        (
            e(TpcC::new(TpcCParams {
                mix: [50, 50, 4, 4, 4],
                ..TpcCParams::default()
            })
            .map(|_| ())),
            "must sum to 100%",
        ),
        (
            e(TpcC::new(TpcCParams {
                page_size: 1024,
                ..TpcCParams::default()
            })
            .map(|_| ())),
            "at least 2048",
        ),
        (
            e(TpcB::new(TpcBParams {
                branches: 0,
                ..TpcBParams::default()
            })
            .map(|_| ())),
            "branches must be at least 1",
        ),
        (
            e(Tatp::new(TatpParams {
                transactions: 0,
                ..TatpParams::default()
            })
            .map(|_| ())),
            "transactions must be at least 1",
        ),
        (
            e(TpcH::new(TpcHParams {
                scale_factor: -1.0,
                ..TpcHParams::default()
            })
            .map(|_| ())),
            "scale factor must be in (0, 100]",
        ),
        (
            e(TpcH::new(TpcHParams {
                mix: [0.5, 0.5, 0.5],
                ..TpcHParams::default()
            })
            .map(|_| ())),
            "must sum to 1",
        ),
        (
            e(BTreeSets::new(BTreeSetsParams {
                read_prob: -0.1,
                ..BTreeSetsParams::default()
            })
            .map(|_| ())),
            "read probability must be in [0, 1]",
        ),
        (
            e(BTreeSets::new(BTreeSetsParams {
                read_only: 0.7,
                update_only: 0.7,
                ..BTreeSetsParams::default()
            })
            .map(|_| ())),
            "exceed 1",
        ),
        (
            e(PdlUpdates::new(PdlUpdatesParams {
                changed_share: 1.5,
                ..PdlUpdatesParams::default()
            })
            .map(|_| ())),
            "changed share must be in [0, 1]",
        ),
        (
            e(PdlUpdates::new(PdlUpdatesParams {
                updates_till_write: 0,
                ..PdlUpdatesParams::default()
            })
            .map(|_| ())),
            "at least 1",
        ),
    ];
    for (msg, needle) in cases {
        assert!(msg.contains(needle), "{msg} should contain {needle}");
    }
}

/// A file store in `dir` and a pool of `frames` under `policy`.
fn file_db(dir: &Path, page_size: usize) -> flashlayer::store::DynStore {
    Box::new(
        flashlayer::store::FileStore::builder(dir.join("db"))
            .page_size(page_size)
            .open()
            .unwrap(),
    )
}

fn policy(spec: &str, frames: usize) -> flashlayer::policy::BoxedPolicy {
    let spec = flashlayer::policy::PolicySpec::parse(spec).unwrap();
    flashlayer::policy::boxed_online_policy(&spec, frames, 0).unwrap()
}

#[test]
fn tpcc_on_eight_terminals_keeps_the_database_consistent() {
    for spec in ["lru", "casa"] {
        let dir = tempfile::tempdir().unwrap();
        let mut d = small_tpcc(4000);
        let r = run_threads(
            &mut d,
            file_db(dir.path(), 8192),
            policy(spec, 600),
            8,
            5,
            &mut |_, _| Ok(()),
        )
        .unwrap();
        assert_eq!(r.steps, 4000);
        let s: std::collections::HashMap<String, u64> = r.summary.into_iter().collect();
        assert_eq!(s.values().sum::<u64>() - s["new_order_rollbacks"], 4000);
        assert!(r.consistency.unwrap().contains("all 10 districts"));
        // Every B+-tree and the history heap passed their checkers.
        assert_eq!(r.checked.len(), 11, "{:?}", r.checked);
        let history = r.checked.iter().find(|c| c.name == "history").unwrap();
        assert_eq!(history.entries, 30_000 + s["payment"]);
        assert!(
            r.run.reads > 0 && r.run.writes > 0,
            "{spec}: the pool is smaller than the database"
        );
    }
}

#[test]
fn tpcb_on_eight_terminals_keeps_every_balance() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = TpcB::new(TpcBParams {
        branches: 1,
        transactions: 20_000,
        page_size: 4096,
    })
    .unwrap();
    let r = run_threads(
        &mut d,
        file_db(dir.path(), 4096),
        policy("fdbuffer:cluster=4", 200),
        8,
        6,
        &mut |_, _| Ok(()),
    )
    .unwrap();
    let held = r.consistency.unwrap();
    assert!(held.contains("all sum to"), "{held}");
    let accounts = r.checked.iter().find(|c| c.name == "accounts").unwrap();
    assert_eq!(accounts.entries, 100_000);
    assert!(accounts.height >= 2);
}

#[test]
fn consistency_checks_find_a_broken_invariant() {
    let db = Db::new(8192, 4096).unwrap();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
    let mut d = small_tpcc(200);
    d.load(&db, &mut rng).unwrap();
    for i in 0..d.steps() {
        d.step(&db, &mut rng, i).unwrap();
    }
    let sp = db.space();
    // One district's year-to-date gains what its warehouse never saw.
    BTree::open(sp, "district")
        .unwrap()
        .update_in_place(sp, &[0, 0, 0, 1, 0, 0, 0, 4], |r| r[4] ^= 1)
        .unwrap();
    let e = d.check(&db).unwrap_err().to_string();
    assert!(
        e.contains("condition 1") && e.contains("warehouse 1"),
        "{e}"
    );

    let db = Db::new(4096, 512).unwrap();
    let mut b = TpcB::new(TpcBParams {
        branches: 1,
        transactions: 100,
        page_size: 4096,
    })
    .unwrap();
    b.load(&db, &mut rng).unwrap();
    for i in 0..b.steps() {
        b.step(&db, &mut rng, i).unwrap();
    }
    assert!(b.check(&db).unwrap().is_some());
    let sp = db.space();
    BTree::open(sp, "tellers")
        .unwrap()
        .update_in_place(sp, &[0, 0, 0, 3], |r| r[0] ^= 1)
        .unwrap();
    let e = b.check(&db).unwrap_err().to_string();
    assert!(e.contains("TPC-B consistency"), "{e}");
}

#[test]
fn terminals_refuse_what_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = small_tpcc(10);
    let e = run_threads(
        &mut d,
        file_db(dir.path(), 8192),
        policy("lru", 63),
        8,
        1,
        &mut |_, _| Ok(()),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("too small for 8 terminals") && e.contains("at least 64"),
        "{e}"
    );
    let e = run_threads(
        &mut d,
        file_db(dir.path(), 4096),
        policy("lru", 64),
        1,
        1,
        &mut |_, _| Ok(()),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("4096-byte pages"), "{e}");
    let mut p = PdlUpdates::new(PdlUpdatesParams::default()).unwrap();
    let e = run_threads(
        &mut p,
        file_db(dir.path(), 2048),
        policy("lru", 64),
        1,
        1,
        &mut |_, _| Ok(()),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("nothing to run on terminals"), "{e}");
}
