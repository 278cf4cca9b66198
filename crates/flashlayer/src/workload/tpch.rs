//! A TPC-H-like decision-support workload: read-only scans and index
//! lookups over `lineitem` and `orders`.
//!
//! Tables at scale factor SF: `orders` (1,500,000 × SF rows of 104 bytes, a
//! B+-tree on o_orderkey), `lineitem` (1–7 lines per order, ~6,000,000 × SF
//! rows of 112 bytes, a heap file in order-key order as TPC-H's dbgen writes
//! it) and `lineitem_orderkey`, a B+-tree index (orderkey, line) → record id.
//!
//! Queries (read-only, mix configurable):
//! - `scan` (default 20%): a full scan of lineitem, the access pattern of
//!   Q1 and Q6;
//! - `range` (default 40%): a range of orders (0.1% of order keys, from a
//!   random start) and each order's lines through the index, like Q3/Q10;
//! - `lookup` (default 40%): one random order and its lines, like an
//!   order-status probe.
//!
//! This is not the TPC-H query set; it reproduces its page access patterns
//! (large sequential scans mixed with index probes) on flashlayer's access
//! methods, as the DSS half of CASA's CONCAT needs.

use super::db::{Db, Workload};
use super::spec::PAGE_8192;
use super::util::{
    check_min, check_share, fill_text, key, put_i64, put_u32, uniform, Counts, WRng,
};
use crate::btree::{BTree, HeapFile, Rid};
use crate::error::{Error, Result};
use crate::spec::{Entry, FromSpec, Param, Ty, NO_MAX};
use rand::Rng;
use std::ops::Bound;

/// Parameters of [`TpcH`].
#[derive(Clone, Debug)]
pub struct TpcHParams {
    /// Scale factor (> 0; 1.0 = 1.5M orders).
    pub scale_factor: f64,
    /// Queries to run (≥ 1).
    pub queries: u64,
    /// Shares of scan, range and lookup queries; they must sum to 1.
    pub mix: [f64; 3],
    /// Page size in bytes. Default 8192.
    pub page_size: usize,
}

impl FromSpec for TpcHParams {
    const ENTRY: Entry = Entry {
        name: "tpch",
        description: "TPC-H-like DSS: lineitem scans, order ranges and order lookups through an index (read-only)",
        params: &[
            Param {
                key: "scale_factor",
                ty: Ty::Positive(100.0),
                default: "0.01",
                help: "TPC-H scale factor (1.0 = 1.5M orders, ~6M lineitems)",
            },
            Param {
                key: "queries",
                ty: Ty::Int(1, NO_MAX),
                default: "100",
                help: "queries to run",
            },
            Param {
                key: "mix",
                ty: Ty::Mix(3, 1.0, false),
                default: "0.2/0.4/0.4",
                help: "shares of scan/range/lookup queries",
            },
            PAGE_8192,
        ],
    };

    spec_fields!(scale_factor, queries, mix, page_size);
}

/// The TPC-H-like driver.
pub struct TpcH {
    p: TpcHParams,
    orders_n: u32,
    t: Option<(BTree, HeapFile, BTree)>,
    counts: Counts<3>,
}

debug_params_counts!(TpcH);

impl TpcH {
    /// Validates the parameters.
    pub fn new(p: TpcHParams) -> Result<Self> {
        if !(p.scale_factor.is_finite() && p.scale_factor > 0.0 && p.scale_factor <= 100.0) {
            return Err(Error::invalid(format!(
                "scale factor must be in (0, 100], got {}",
                p.scale_factor
            )));
        }
        check_min("queries", p.queries, 1)?;
        for (name, v) in ["scan share", "range share", "lookup share"]
            .iter()
            .zip(p.mix)
        {
            check_share(name, v)?;
        }
        if (p.mix.iter().sum::<f64>() - 1.0).abs() > 1e-9 {
            return Err(Error::invalid(format!(
                "the query mix must sum to 1, got {:?}",
                p.mix
            )));
        }
        crate::btree::check_page_size(p.page_size)?;
        let orders_n = ((1_500_000.0 * p.scale_factor).round() as u32).max(1);
        Ok(TpcH {
            p,
            orders_n,
            t: None,
            counts: Counts::default(),
        })
    }

    fn lines_of(&self, db: &Db, o: u32) -> Result<()> {
        let (_, lineitem, index) = self.t.as_ref().expect("loaded");
        let sp = db.space();
        let lo = key(&[o]);
        let hi = key(&[o + 1]);
        let mut rids = Vec::new();
        index.scan(sp, Bound::Included(&lo), Bound::Excluded(&hi), |_, v| {
            rids.extend(Rid::from_bytes(v));
            true
        })?;
        for rid in rids {
            lineitem.get_with(sp, rid, |r| r[0])?;
        }
        Ok(())
    }
}

impl Workload for TpcH {
    workload_basics!("tpch");

    fn load(&mut self, db: &Db, rng: &mut WRng) -> Result<()> {
        let sp = db.space();
        let orders = BTree::create(sp, "orders")?;
        let lineitem = HeapFile::create(sp, "lineitem")?;
        let index = BTree::create(sp, "lineitem_orderkey")?;
        for o in 1..=self.orders_n {
            let mut r = vec![0u8; 104];
            put_u32(&mut r, 0, uniform(rng, 1, 150_000) as u32);
            put_i64(&mut r, 4, uniform(rng, 0, 2400) as i64);
            fill_text(rng, &mut r[12..]);
            orders.insert(sp, &key(&[o]), &r)?;
            for l in 1..=uniform(rng, 1, 7) as u32 {
                let mut row = vec![0u8; 112];
                put_u32(&mut row, 0, o);
                put_u32(&mut row, 4, l);
                put_i64(&mut row, 8, uniform(rng, 1, 50) as i64);
                fill_text(rng, &mut row[16..]);
                let rid = lineitem.insert(sp, &row)?;
                index.insert(sp, &key(&[o, l]), &rid.to_bytes())?;
            }
        }
        self.t = Some((orders, lineitem, index));
        Ok(())
    }

    fn steps(&self) -> u64 {
        self.p.queries
    }

    fn step(&self, db: &Db, rng: &mut WRng, _i: u64) -> Result<()> {
        let sp = db.space();
        let x: f64 = rng.random();
        let kind = if x < self.p.mix[0] {
            0
        } else if x < self.p.mix[0] + self.p.mix[1] {
            1
        } else {
            2
        };
        self.counts.add(kind);
        match kind {
            0 => {
                let (_, lineitem, _) = self.t.as_ref().expect("loaded");
                lineitem.scan(sp, |_, _| true)?;
            }
            1 => {
                let span = (self.orders_n / 1000).max(1);
                let start = uniform(rng, 1, u64::from(self.orders_n)) as u32;
                let lo = key(&[start]);
                let hi = key(&[start.saturating_add(span)]);
                let mut ids = Vec::new();
                let (orders, _, _) = self.t.as_ref().expect("loaded");
                orders.scan(sp, Bound::Included(&lo), Bound::Excluded(&hi), |k, _| {
                    ids.push(u32::from_be_bytes(k.try_into().expect("4-byte key")));
                    true
                })?;
                for o in ids {
                    self.lines_of(db, o)?;
                }
            }
            _ => {
                let o = uniform(rng, 1, u64::from(self.orders_n)) as u32;
                let (orders, _, _) = self.t.as_ref().expect("loaded");
                orders.get_with(sp, &key(&[o]), |r| r[0])?;
                self.lines_of(db, o)?;
            }
        }
        Ok(())
    }

    fn summary(&self) -> Vec<(String, u64)> {
        self.counts.named(&["scan", "range", "lookup"])
    }
}
