//! B+-tree query sets of Koltsidas & Viglas 2008, §6.
//!
//! A B+-tree of `records` records (1,000,000 at full scale) with 16-byte
//! keys and 80-byte payloads, loaded in random key order so that leaves end
//! about 69% full (the paper's tree: 1M records in 140 MB of 4 KB pages).
//! Queries are lookups and range queries (reads), and inserts and updates
//! (writes), on records chosen uniformly.
//!
//! Each record belongs to a class by its key position — so leaf pages, which
//! hold contiguous keys, get the class's workload, as in §6.1 and §6.3:
//!
//! | keys | read probability |
//! |---|---|
//! | first `read_only` share | 1 |
//! | next `update_only` share | 0 |
//! | next `interesting` share | `interesting_read_prob` |
//! | the rest | `read_prob` (default 0.5) |
//!
//! §6.1's mixed set is `read_only 0.4, update_only 0.4` (rest 50/50); the
//! 70/30 set is `read_only 0.7, update_only 0.3`; §6.3's interesting set is
//! `interesting F, interesting_read_prob P`; §6.4's query set B makes the
//! first 10% of keys read-only and hot (`hot_keys 0.1, hot_queries 0.9`).
//! A read is a range query with
//! probability `range_share` (default 0.2, "80% lookups and 20% range
//! queries"), else a lookup; a write is an insert with probability
//! `insert_share` (default 0.3, "30% insertions, 70% updates"), else an
//! in-place update of the payload. The query set is drawn once and run
//! `repeat` times, as the paper re-executes its query sets.

use super::db::{Db, Workload};
use super::spec::{PAGE_SIZE, PAGE_TY, SHARE};
use super::util::{check_min, check_share, fill_text, Counts, WRng};
use crate::btree::{BTree, Space};
use crate::error::{Error, Result};
use crate::policy::Policy;
use crate::spec::{Entry, FromSpec, Param, Ty, NO_MAX};
use crate::store::PageStore;
use rand::Rng;
use std::ops::Bound;

const PAYLOAD: usize = 80;

/// Parameters of [`BTreeSets`].
#[derive(Clone, Debug)]
pub struct BTreeSetsParams {
    /// Records in the tree (≥ 1). Default 1,000,000.
    pub records: u64,
    /// Queries in the query set (≥ 1). Default 100,000.
    pub queries: u64,
    /// Times the query set runs (≥ 1). Default 1.
    pub repeat: u64,
    /// Share of keys that are only read. Default 0.
    pub read_only: f64,
    /// Share of keys that are only written. Default 0.
    pub update_only: f64,
    /// Share of keys in the "interesting set" (§6.3). Default 0.
    pub interesting: f64,
    /// Read probability of interesting keys. Default 0.5.
    pub interesting_read_prob: f64,
    /// Read probability of the remaining keys. Default 0.5.
    pub read_prob: f64,
    /// Share of reads that are range queries. Default 0.2.
    pub range_share: f64,
    /// Records a range query returns (≥ 1). Default 100.
    pub range_len: u64,
    /// Share of writes that are inserts. Default 0.3.
    pub insert_share: f64,
    /// Share of keys, from the first, that are hot. Default 0 (every
    /// record equally likely).
    pub hot_keys: f64,
    /// Share of queries that pick a hot record (uniformly among them); the
    /// others pick uniformly among the rest. Default 0.
    pub hot_queries: f64,
    /// Page size. Default 4096 (the paper's).
    pub page_size: usize,
}

impl FromSpec for BTreeSetsParams {
    const ENTRY: Entry = Entry {
        name: "btree",
        description: "Koltsidas & Viglas 2008 section 6: B+-tree of 16-byte keys and 80-byte payloads, query sets by page class",
        params: &[
            Param { key: "records", ty: Ty::Int(1, NO_MAX), default: "1000000", help: "records in the tree" },
            Param { key: "queries", ty: Ty::Int(1, NO_MAX), default: "100000", help: "queries in the query set" },
            Param { key: "repeat", ty: Ty::Int(1, NO_MAX), default: "1", help: "times the query set runs" },
            Param { key: "read_only", ty: SHARE, default: "0", help: "share of keys only read (first in key order)" },
            Param { key: "update_only", ty: SHARE, default: "0", help: "share of keys only written (next)" },
            Param { key: "interesting", ty: SHARE, default: "0", help: "share of keys in the interesting set (next)" },
            Param { key: "interesting_read_prob", ty: SHARE, default: "0.5", help: "read probability of interesting keys" },
            Param { key: "read_prob", ty: SHARE, default: "0.5", help: "read probability of the remaining keys" },
            Param { key: "range_share", ty: SHARE, default: "0.2", help: "share of reads that are range queries" },
            Param { key: "range_len", ty: Ty::Int(1, NO_MAX), default: "100", help: "records per range query" },
            Param { key: "insert_share", ty: SHARE, default: "0.3", help: "share of writes that are inserts" },
            Param { key: "hot_keys", ty: SHARE, default: "0", help: "share of keys, from the first, that are hot" },
            Param { key: "hot_queries", ty: SHARE, default: "0", help: "share of queries that pick a hot key (0: every key equally likely)" },
            Param { key: "page_size", ty: PAGE_TY, default: "4096", help: PAGE_SIZE },
        ],
    };

    spec_fields!(
        records,
        queries,
        repeat,
        read_only,
        update_only,
        interesting,
        interesting_read_prob,
        read_prob,
        range_share,
        range_len,
        insert_share,
        hot_keys,
        hot_queries,
        page_size,
    );
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Query {
    Lookup(u32),
    Range(u32),
    Insert(u32, u32),
    Update(u32),
}

/// The Koltsidas §6 query-set driver.
pub struct BTreeSets {
    p: BTreeSetsParams,
    tree: Option<BTree>,
    set: Vec<Query>,
    counts: Counts<4>,
}

debug_params_counts!(BTreeSets);

/// Record `i`'s key: 8 bytes of `2i` then 8 zero bytes; inserts use odd
/// values and a counter so they land between existing records.
fn record_key(i: u64, suffix: u64) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&i.to_be_bytes());
    k[8..].copy_from_slice(&suffix.to_be_bytes());
    k
}

impl BTreeSets {
    /// Validates the parameters.
    pub fn new(p: BTreeSetsParams) -> Result<Self> {
        check_min("records", p.records, 1)?;
        check_min("queries", p.queries, 1)?;
        check_min("repeat", p.repeat, 1)?;
        check_min("range length", p.range_len, 1)?;
        if p.records > u64::from(u32::MAX / 2) {
            return Err(Error::invalid("records must be below 2^31"));
        }
        for (n, v) in [
            ("read-only share", p.read_only),
            ("update-only share", p.update_only),
            ("interesting share", p.interesting),
            ("interesting read probability", p.interesting_read_prob),
            ("read probability", p.read_prob),
            ("range share", p.range_share),
            ("insert share", p.insert_share),
            ("hot key share", p.hot_keys),
            ("hot query share", p.hot_queries),
        ] {
            check_share(n, v)?;
        }
        if p.read_only + p.update_only + p.interesting > 1.0 + 1e-9 {
            return Err(Error::invalid(format!(
                "read-only + update-only + interesting shares exceed 1 ({} + {} + {})",
                p.read_only, p.update_only, p.interesting
            )));
        }
        if p.hot_queries > 0.0 && (p.hot_keys <= 0.0 || p.hot_keys >= 1.0) {
            return Err(Error::invalid(
                "hot queries need a hot key share above 0 and below 1",
            ));
        }
        crate::btree::check_page_size(p.page_size)?;
        Ok(BTreeSets {
            p,
            tree: None,
            set: Vec::new(),
            counts: Counts::default(),
        })
    }

    /// The parameters.
    pub fn params(&self) -> &BTreeSetsParams {
        &self.p
    }
}

fn read_prob(p: &BTreeSetsParams, rec: u64) -> f64 {
    let f = rec as f64 / p.records as f64;
    let (ro, uo, int) = (p.read_only, p.update_only, p.interesting);
    if f < ro {
        1.0
    } else if f < ro + uo {
        0.0
    } else if f < ro + uo + int {
        p.interesting_read_prob
    } else {
        p.read_prob
    }
}

/// Builds the tree of `records` records, inserted in random key order.
pub(crate) fn load_tree<P: Policy, S: PageStore>(
    sp: &Space<P, S>,
    records: u64,
    rng: &mut WRng,
) -> Result<BTree> {
    let tree = BTree::create(sp, "records")?;
    let mut order: Vec<u32> = (0..records as u32).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    let mut payload = [0u8; PAYLOAD];
    for &r in &order {
        fill_text(rng, &mut payload);
        tree.insert(sp, &record_key(2 * u64::from(r), 0), &payload)?;
    }
    Ok(tree)
}

/// Draws a query set by `p`.
pub(crate) fn draw_set(p: &BTreeSetsParams, rng: &mut WRng) -> Vec<Query> {
    let mut inserts = 0u32;
    let hot = ((p.hot_keys * p.records as f64) as u64).clamp(1, p.records);
    (0..p.queries)
        .map(|_| {
            let rec = if p.hot_queries > 0.0 && hot < p.records {
                if rng.random_bool(p.hot_queries) {
                    rng.random_range(0..hot)
                } else {
                    rng.random_range(hot..p.records)
                }
            } else {
                rng.random_range(0..p.records)
            };
            let read = rng.random_bool(read_prob(p, rec));
            let r = rec as u32;
            if read {
                if rng.random_bool(p.range_share) {
                    Query::Range(r)
                } else {
                    Query::Lookup(r)
                }
            } else if rng.random_bool(p.insert_share) {
                inserts += 1;
                Query::Insert(r, inserts)
            } else {
                Query::Update(r)
            }
        })
        .collect()
}

/// Runs one query; `run` (which execution of its set this is) keeps the
/// keys of different runs' inserts apart. Returns the query's kind (0
/// lookup, 1 range, 2 insert, 3 update).
pub(crate) fn execute<P: Policy, S: PageStore>(
    tree: &BTree,
    sp: &Space<P, S>,
    rng: &mut WRng,
    q: Query,
    range_len: u64,
    run: u64,
) -> Result<usize> {
    Ok(match q {
        Query::Lookup(r) => {
            tree.get_with(sp, &record_key(2 * u64::from(r), 0), |v| v[0])?;
            0
        }
        Query::Range(r) => {
            let lo = record_key(2 * u64::from(r), 0);
            let mut left = range_len;
            tree.scan(sp, Bound::Included(&lo), Bound::Unbounded, |_, _| {
                left -= 1;
                left > 0
            })?;
            1
        }
        Query::Insert(r, n) => {
            let mut payload = [0u8; PAYLOAD];
            fill_text(rng, &mut payload);
            tree.insert(
                sp,
                &record_key(2 * u64::from(r) + 1, run << 32 | u64::from(n)),
                &payload,
            )?;
            2
        }
        Query::Update(r) => {
            let x: u8 = rng.random();
            tree.update_in_place(sp, &record_key(2 * u64::from(r), 0), |v| {
                v[..8].iter_mut().for_each(|b| *b ^= x | 1)
            })?;
            3
        }
    })
}

impl Workload for BTreeSets {
    workload_basics!("btree");

    fn load(&mut self, db: &Db, rng: &mut WRng) -> Result<()> {
        self.tree = Some(load_tree(db.space(), self.p.records, rng)?);
        self.set = draw_set(&self.p, rng);
        Ok(())
    }

    fn steps(&self) -> u64 {
        self.p.queries * self.p.repeat
    }

    fn step(&self, db: &Db, rng: &mut WRng, i: u64) -> Result<()> {
        let q = self.set[(i % self.p.queries) as usize];
        let tree = self.tree.as_ref().expect("loaded");
        // Each run of the set inserts distinct keys: the run number goes
        // into the suffix.
        let kind = execute(
            tree,
            db.space(),
            rng,
            q,
            self.p.range_len,
            i / self.p.queries,
        )?;
        self.counts.add(kind);
        Ok(())
    }

    fn summary(&self) -> Vec<(String, u64)> {
        self.counts.named(&["lookup", "range", "insert", "update"])
    }
}
