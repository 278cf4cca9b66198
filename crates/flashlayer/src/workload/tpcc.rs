//! TPC-C (TPC-C standard 5.11) on the flashlayer B+-tree and heap file.
//!
//! Tables: warehouse, district, customer, history (heap), new_order, orders,
//! order_line, item, stock, each a B+-tree clustered on its primary key,
//! plus the two secondary indexes the transactions need: customer by
//! (w, d, last, first, id) and orders by (w, d, customer, order). Rows have
//! the spec's sizes (customer 655 B, stock 306 B, ...), filled with random
//! text; updates change the fields the spec changes, in place.
//!
//! Population (§4.3): 100,000 items; per warehouse 100,000 stock rows, 10
//! districts, 3,000 customers per district with one history row each, 3,000
//! orders per district with 5–15 lines, the last 900 of them new orders.
//!
//! Transactions (§2.4–2.8) in the standard mix 45/43/4/4/4 (configurable):
//! New-Order, Payment, Order-Status, Delivery, Stock-Level, with NURand for
//! customer ids (A = 1023), item ids (A = 8191) and last names (A = 255),
//! 60% of Payment/Order-Status customers chosen by last name, 15% of
//! payments and 1% of order lines remote when there are several
//! warehouses.
//!
//! Simplifications, chosen where the spec is about correctness rather than
//! page access: the 1% of New-Orders with an unused item read what they
//! would read up to the bad item and write nothing (the spec rolls them
//! back); there is no think time; Delivery runs inline, not deferred.
//!
//! Terminals may run on threads ([`super::run_threads`]). There are no
//! transactions, only the B+-trees' latches, so each change is atomic on its
//! own and a transaction's changes are not: a New-Order's order becomes a
//! new order (visible to Delivery) only after all its lines are in, and a
//! Delivery claims an order by deleting its new-order row (a terminal that
//! finds it gone moves on). [`Workload::check`] checks the spec's consistency
//! conditions 1 to 4 (§3.3.2) once the terminals have stopped.

use super::db::{Db, Workload};
use super::spec::{PAGE_8192, TRANSACTIONS};
use super::util::{
    check_min, fill_text, get_i64, key, key_part, nurand, pick, put_i64, put_u32, u32_at, uniform,
    Counts, WRng,
};
use crate::btree::{BTree, HeapFile};
use crate::error::{Error, Result};
use crate::spec::{Entry, FromSpec, Param, Ty};
use rand::Rng;
use std::ops::Bound;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

const DISTRICTS: u32 = 10;
const CUSTOMERS: u32 = 3000;
const ITEMS: u32 = 100_000;
const ORDERS: u32 = 3000;
const FIRST_NEW_ORDER: u32 = 2101;
/// NURand run-time constants: C_LAST for the load and for the run differ by
/// 66, inside the range §2.1.6.1 allows; C_ID and OL_I_ID are free.
const C_LAST_LOAD: u64 = 157;
const C_LAST_RUN: u64 = 223;
const C_ID: u64 = 259;
const C_OL_I_ID: u64 = 7911;

const WAREHOUSE_ROW: usize = 89;
const DISTRICT_ROW: usize = 95;
const CUSTOMER_ROW: usize = 655;
const HISTORY_ROW: usize = 46;
const ORDER_ROW: usize = 24;
const ORDER_LINE_ROW: usize = 54;
const ITEM_ROW: usize = 82;
const STOCK_ROW: usize = 306;

const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

/// The spec's last name for a number in 0..=999, padded to 16 bytes.
fn last_name(n: u64) -> [u8; 16] {
    let mut out = [b' '; 16];
    let s = format!(
        "{}{}{}",
        SYLLABLES[(n / 100) as usize],
        SYLLABLES[((n / 10) % 10) as usize],
        SYLLABLES[(n % 10) as usize]
    );
    out[..s.len()].copy_from_slice(s.as_bytes());
    out
}

/// Parameters of [`TpcC`].
#[derive(Clone, Debug)]
pub struct TpcCParams {
    /// Scale: number of warehouses (≥ 1).
    pub warehouses: u32,
    /// Transactions to run (≥ 1).
    pub transactions: u64,
    /// Percentages of New-Order, Payment, Order-Status, Delivery and
    /// Stock-Level; they must sum to 100. Default 45/43/4/4/4.
    pub mix: [u32; 5],
    /// Page size in bytes. Default 8192 (PostgreSQL's).
    pub page_size: usize,
}

impl FromSpec for TpcCParams {
    const ENTRY: Entry = Entry {
        name: "tpcc",
        description:
            "TPC-C: nine tables on B+-trees and a heap, five transactions, NURand (TPC-C 5.11)",
        params: &[
            Param {
                key: "warehouses",
                ty: Ty::Int(1, u32::MAX as u64),
                default: "1",
                help: "scale in warehouses",
            },
            TRANSACTIONS,
            Param {
                key: "mix",
                ty: Ty::Mix(5, 100.0, true),
                default: "45/43/4/4/4",
                help: "percent New-Order/Payment/Order-Status/Delivery/Stock-Level",
            },
            PAGE_8192,
        ],
    };

    spec_fields!(warehouses, transactions, mix, page_size);
}

struct Tables {
    warehouse: BTree,
    district: BTree,
    customer: BTree,
    customer_name: BTree,
    history: HeapFile,
    new_order: BTree,
    orders: BTree,
    orders_customer: BTree,
    order_line: BTree,
    item: BTree,
    stock: BTree,
}

/// The TPC-C driver.
pub struct TpcC {
    p: TpcCParams,
    t: Option<Tables>,
    clock: AtomicI64,
    counts: Counts<5>,
    rollbacks: AtomicU64,
}

debug_params_counts!(TpcC);

const NAMES: [&str; 5] = [
    "new_order",
    "payment",
    "order_status",
    "delivery",
    "stock_level",
];

impl TpcC {
    /// Validates the parameters.
    pub fn new(p: TpcCParams) -> Result<Self> {
        check_min("warehouses", u64::from(p.warehouses), 1)?;
        check_min("transactions", p.transactions, 1)?;
        if p.warehouses > 10_000 {
            return Err(Error::invalid("warehouses must be at most 10,000"));
        }
        if p.mix.iter().sum::<u32>() != 100 {
            return Err(Error::invalid(format!(
                "the TPC-C mix must sum to 100%, got {}% ({:?})",
                p.mix.iter().sum::<u32>(),
                p.mix
            )));
        }
        crate::btree::check_page_size(p.page_size)?;
        if p.page_size < 2048 {
            return Err(Error::invalid(
                "TPC-C needs pages of at least 2048 bytes (a customer row is 655 bytes)",
            ));
        }
        Ok(TpcC {
            p,
            t: None,
            clock: AtomicI64::new(0),
            counts: Counts::default(),
            rollbacks: AtomicU64::new(0),
        })
    }

    /// The next value of the transactions' clock (order entry and
    /// delivery dates, payment times).
    fn tick(&self) -> i64 {
        self.clock.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn tables(&self) -> &Tables {
        self.t.as_ref().expect("load runs before steps")
    }

    fn row(rng: &mut WRng, len: usize) -> Vec<u8> {
        let mut r = vec![0u8; len];
        fill_text(rng, &mut r);
        r
    }

    fn pick_customer(&self, db: &Db, rng: &mut WRng, w: u32, d: u32) -> Result<u32> {
        if rng.random_range(0..100) < 60 {
            let name = last_name(nurand(rng, 255, 0, 999, C_LAST_RUN));
            let mut prefix = key(&[w, d]);
            prefix.extend_from_slice(&name);
            let mut ids = Vec::new();
            self.tables().customer_name.scan(
                db.space(),
                Bound::Included(&prefix),
                Bound::Unbounded,
                |k, _| {
                    if !k.starts_with(&prefix) {
                        return false;
                    }
                    ids.push(u32::from_be_bytes(
                        k[k.len() - 4..].try_into().expect("4 bytes"),
                    ));
                    true
                },
            )?;
            if let Some(&id) = ids.get(ids.len().div_ceil(2).saturating_sub(1)) {
                return Ok(id);
            }
        }
        Ok(nurand(rng, 1023, 1, u64::from(CUSTOMERS), C_ID) as u32)
    }

    fn new_order(&self, db: &Db, rng: &mut WRng) -> Result<()> {
        let sp = db.space();
        let w = uniform(rng, 1, u64::from(self.p.warehouses)) as u32;
        let d = uniform(rng, 1, u64::from(DISTRICTS)) as u32;
        let c = nurand(rng, 1023, 1, u64::from(CUSTOMERS), C_ID) as u32;
        let lines = uniform(rng, 5, 15) as u32;
        let rollback = rng.random_range(0..100) == 0;
        let mut items = Vec::with_capacity(lines as usize);
        for l in 0..lines {
            let i = if rollback && l == lines - 1 {
                ITEMS + 1
            } else {
                nurand(rng, 8191, 1, u64::from(ITEMS), C_OL_I_ID) as u32
            };
            let remote = self.p.warehouses > 1 && rng.random_range(0..100) == 0;
            let supply = if remote {
                let mut s = uniform(rng, 1, u64::from(self.p.warehouses) - 1) as u32;
                if s >= w {
                    s += 1;
                }
                s
            } else {
                w
            };
            items.push((i, supply, uniform(rng, 1, 10) as u32));
        }
        let t = self.t.as_ref().expect("loaded");
        t.warehouse.get_with(sp, &key(&[w]), |r| u32_at(r, 8))?;
        t.customer
            .get_with(sp, &key(&[w, d, c]), |r| u32_at(r, 58))?;
        if rollback {
            // Read what the transaction reads up to the unused item, write nothing.
            t.district.get_with(sp, &key(&[w, d]), |r| u32_at(r, 0))?;
            for &(i, _, _) in &items {
                if t.item
                    .get_with(sp, &key(&[i]), |r| get_i64(r, 4))?
                    .is_none()
                {
                    break;
                }
            }
            self.rollbacks.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        let mut o = 0;
        t.district.update_in_place(sp, &key(&[w, d]), |r| {
            o = u32_at(r, 0);
            put_u32(r, 0, o + 1);
        })?;
        let now = self.tick();
        let all_local = items.iter().all(|x| x.1 == w);
        let mut orow = [0u8; ORDER_ROW];
        put_u32(&mut orow, 0, c);
        put_i64(&mut orow, 4, now);
        put_u32(&mut orow, 12, 0);
        put_u32(&mut orow, 16, lines);
        put_u32(&mut orow, 20, u32::from(all_local));
        t.orders.insert(sp, &key(&[w, d, o]), &orow)?;
        t.orders_customer.insert(sp, &key(&[w, d, c, o]), &[])?;
        for (n, &(i, supply, qty)) in items.iter().enumerate() {
            let price = t
                .item
                .get_with(sp, &key(&[i]), |r| get_i64(r, 4))?
                .unwrap_or(0);
            let mut dist = [0u8; 24];
            t.stock.update_in_place(sp, &key(&[supply, i]), |r| {
                let q = u32_at(r, 0);
                put_u32(r, 0, if q >= qty + 10 { q - qty } else { q + 91 - qty });
                put_u32(r, 4, u32_at(r, 4) + qty);
                put_u32(r, 8, u32_at(r, 8) + 1);
                if supply != w {
                    put_u32(r, 12, u32_at(r, 12) + 1);
                }
                let o = 16 + 24 * (d as usize - 1);
                dist.copy_from_slice(&r[o..o + 24]);
            })?;
            let mut ol = [0u8; ORDER_LINE_ROW];
            put_u32(&mut ol, 0, i);
            put_u32(&mut ol, 4, supply);
            put_u32(&mut ol, 16, qty);
            put_i64(&mut ol, 20, price * i64::from(qty));
            ol[28..52].copy_from_slice(&dist);
            t.order_line
                .insert(sp, &key(&[w, d, o, n as u32 + 1]), &ol)?;
        }
        // The order becomes a new order for Delivery once all its lines
        // are in.
        t.new_order.insert(sp, &key(&[w, d, o]), &[])?;
        Ok(())
    }

    fn payment(&self, db: &Db, rng: &mut WRng) -> Result<()> {
        let sp = db.space();
        let w = uniform(rng, 1, u64::from(self.p.warehouses)) as u32;
        let d = uniform(rng, 1, u64::from(DISTRICTS)) as u32;
        let (cw, cd) = if self.p.warehouses > 1 && rng.random_range(0..100) < 15 {
            let mut x = uniform(rng, 1, u64::from(self.p.warehouses) - 1) as u32;
            if x >= w {
                x += 1;
            }
            (x, uniform(rng, 1, u64::from(DISTRICTS)) as u32)
        } else {
            (w, d)
        };
        let c = self.pick_customer(db, rng, cw, cd)?;
        let amount = uniform(rng, 100, 500_000) as i64;
        let t = self.tables();
        t.warehouse
            .update_in_place(sp, &key(&[w]), |r| put_i64(r, 0, get_i64(r, 0) + amount))?;
        t.district
            .update_in_place(sp, &key(&[w, d]), |r| put_i64(r, 4, get_i64(r, 4) + amount))?;
        let mut extra = [0u8; 24];
        fill_text(rng, &mut extra);
        t.customer.update_in_place(sp, &key(&[cw, cd, c]), |r| {
            put_i64(r, 0, get_i64(r, 0) - amount);
            put_i64(r, 8, get_i64(r, 8) + amount);
            put_u32(r, 16, u32_at(r, 16) + 1);
            if &r[56..58] == b"BC" {
                // Bad credit: prepend the payment to c_data (§2.5.2.2).
                r.copy_within(155..655 - 24, 155 + 24);
                r[155..179].copy_from_slice(&extra);
            }
        })?;
        let now = self.tick();
        let mut h = [0u8; HISTORY_ROW];
        put_u32(&mut h, 0, c);
        put_u32(&mut h, 4, cd);
        put_u32(&mut h, 8, cw);
        put_u32(&mut h, 12, d);
        put_u32(&mut h, 16, w);
        put_i64(&mut h, 20, now);
        put_i64(&mut h, 28, amount);
        self.tables().history.insert(sp, &h)?;
        Ok(())
    }

    fn order_status(&self, db: &Db, rng: &mut WRng) -> Result<()> {
        let sp = db.space();
        let w = uniform(rng, 1, u64::from(self.p.warehouses)) as u32;
        let d = uniform(rng, 1, u64::from(DISTRICTS)) as u32;
        let c = self.pick_customer(db, rng, w, d)?;
        let t = self.tables();
        t.customer
            .get_with(sp, &key(&[w, d, c]), |r| get_i64(r, 0))?;
        let prefix = key(&[w, d, c]);
        let mut last = None;
        t.orders_customer
            .scan(sp, Bound::Included(&prefix), Bound::Unbounded, |k, _| {
                if !k.starts_with(&prefix) {
                    return false;
                }
                last = Some(u32::from_be_bytes(k[12..16].try_into().expect("4 bytes")));
                true
            })?;
        if let Some(o) = last {
            t.orders.get_with(sp, &key(&[w, d, o]), |r| u32_at(r, 12))?;
            let lo = key(&[w, d, o]);
            let hi = key(&[w, d, o + 1]);
            t.order_line
                .scan(sp, Bound::Included(&lo), Bound::Excluded(&hi), |_, _| true)?;
        }
        Ok(())
    }

    fn delivery(&self, db: &Db, rng: &mut WRng) -> Result<()> {
        let sp = db.space();
        let w = uniform(rng, 1, u64::from(self.p.warehouses)) as u32;
        let carrier = uniform(rng, 1, 10) as u32;
        let now = self.tick();
        let t = self.tables();
        for d in 1..=DISTRICTS {
            let lo = key(&[w, d]);
            let hi = key(&[w, d + 1]);
            let mut oldest = None;
            t.new_order
                .scan(sp, Bound::Included(&lo), Bound::Excluded(&hi), |k, _| {
                    oldest = Some(u32::from_be_bytes(k[8..12].try_into().expect("4 bytes")));
                    false
                })?;
            let Some(o) = oldest else {
                continue;
            };
            if !t.new_order.delete(sp, &key(&[w, d, o]))? {
                // Another terminal's Delivery took this order first.
                continue;
            }
            let mut c = 0;
            t.orders.update_in_place(sp, &key(&[w, d, o]), |r| {
                c = u32_at(r, 0);
                put_u32(r, 12, carrier);
            })?;
            let lo = key(&[w, d, o]);
            let hi = key(&[w, d, o + 1]);
            let mut lines = Vec::new();
            t.order_line
                .scan(sp, Bound::Included(&lo), Bound::Excluded(&hi), |k, v| {
                    lines.push((k.to_vec(), get_i64(v, 20)));
                    true
                })?;
            let mut total = 0;
            for (k, amount) in lines {
                total += amount;
                t.order_line
                    .update_in_place(sp, &k, |r| put_i64(r, 8, now))?;
            }
            t.customer.update_in_place(sp, &key(&[w, d, c]), |r| {
                put_i64(r, 0, get_i64(r, 0) + total);
                put_u32(r, 20, u32_at(r, 20) + 1);
            })?;
        }
        Ok(())
    }

    fn stock_level(&self, db: &Db, rng: &mut WRng) -> Result<()> {
        let sp = db.space();
        let w = uniform(rng, 1, u64::from(self.p.warehouses)) as u32;
        let d = uniform(rng, 1, u64::from(DISTRICTS)) as u32;
        let threshold = uniform(rng, 10, 20) as u32;
        let t = self.tables();
        let next = t
            .district
            .get_with(sp, &key(&[w, d]), |r| u32_at(r, 0))?
            .unwrap_or(1);
        let lo = key(&[w, d, next.saturating_sub(20)]);
        let hi = key(&[w, d, next]);
        let mut items = Vec::new();
        t.order_line
            .scan(sp, Bound::Included(&lo), Bound::Excluded(&hi), |_, v| {
                items.push(u32_at(v, 0));
                true
            })?;
        items.sort_unstable();
        items.dedup();
        // Count the items below the threshold: one stock read each.
        for i in items {
            t.stock
                .get_with(sp, &key(&[w, i]), |r| u32_at(r, 0) < threshold)?;
        }
        Ok(())
    }
}

/// Per district, what the consistency check gathers: next order id, year to
/// date, highest order id, order lines the orders announce, order lines
/// found, and the lowest and highest new-order ids and their count.
#[derive(Default)]
struct District {
    next: u32,
    ytd: i64,
    max_o: u32,
    ol_cnt: u64,
    lines: u64,
    no: Option<(u32, u32, u64)>,
}

/// The district of row key `k` (which starts with w, d); a row of no
/// district is noted in `stray`.
fn district<'a>(
    ds: &'a mut std::collections::BTreeMap<(u32, u32), District>,
    stray: &mut Option<(u32, u32)>,
    k: &[u8],
) -> Option<&'a mut District> {
    let wd = (key_part(k, 0), key_part(k, 1));
    let d = ds.get_mut(&wd);
    if d.is_none() {
        *stray = Some(wd);
    }
    d
}

impl TpcC {
    /// Checks the spec's consistency conditions 1 to 4 (§3.3.2) on the
    /// whole database: per warehouse, W_YTD = Σ D_YTD; per district,
    /// D_NEXT_O_ID − 1 = max(O_ID) = max(NO_O_ID), max(NO_O_ID) −
    /// min(NO_O_ID) + 1 = the new-order rows, and Σ O_OL_CNT = the order
    /// lines. Run it while no terminal runs. Condition 3 holds as long as
    /// Delivery never reaches a New-Order still running on another terminal,
    /// which the standard mix (45% New-Order, 4% Delivery) never lets
    /// happen. Returns the districts checked.
    fn consistency(&self, db: &Db) -> Result<u64> {
        let sp = db.space();
        let t = self.tables();
        let all = (Bound::Unbounded, Bound::Unbounded);
        let mut wh: std::collections::BTreeMap<u32, i64> = Default::default();
        t.warehouse.scan(sp, all.0, all.1, |k, v| {
            wh.insert(key_part(k, 0), get_i64(v, 0));
            true
        })?;
        let mut ds: std::collections::BTreeMap<(u32, u32), District> = Default::default();
        t.district.scan(sp, all.0, all.1, |k, v| {
            let d = ds.entry((key_part(k, 0), key_part(k, 1))).or_default();
            (d.next, d.ytd) = (u32_at(v, 0), get_i64(v, 4));
            true
        })?;
        let mut stray = None;
        t.orders.scan(sp, all.0, all.1, |k, v| {
            if let Some(d) = district(&mut ds, &mut stray, k) {
                d.max_o = d.max_o.max(key_part(k, 2));
                d.ol_cnt += u64::from(u32_at(v, 16));
            }
            true
        })?;
        t.new_order.scan(sp, all.0, all.1, |k, _| {
            if let Some(d) = district(&mut ds, &mut stray, k) {
                let o = key_part(k, 2);
                let (lo, hi, n) = d.no.unwrap_or((o, o, 0));
                d.no = Some((lo.min(o), hi.max(o), n + 1));
            }
            true
        })?;
        t.order_line.scan(sp, all.0, all.1, |k, _| {
            if let Some(d) = district(&mut ds, &mut stray, k) {
                d.lines += 1;
            }
            true
        })?;
        let bad = |what: String| Err(Error::Store(format!("TPC-C consistency: {what}")));
        if let Some((w, d)) = stray {
            return bad(format!("rows of district ({w}, {d}), which does not exist"));
        }
        for (&w, &ytd) in &wh {
            let sum: i64 = ds.range((w, 0)..(w + 1, 0)).map(|(_, d)| d.ytd).sum();
            if sum != ytd {
                return bad(format!(
                    "condition 1: warehouse {w} has W_YTD {ytd}, its districts {sum}"
                ));
            }
        }
        for (&(w, di), d) in &ds {
            if d.next - 1 != d.max_o || d.no.is_some_and(|no| no.1 != d.max_o) {
                return bad(format!(
                    "condition 2: district ({w}, {di}) has D_NEXT_O_ID {}, highest order {}, \
                     highest new order {:?}",
                    d.next,
                    d.max_o,
                    d.no.map(|no| no.1)
                ));
            }
            if let Some((lo, hi, n)) = d.no {
                if u64::from(hi - lo + 1) != n {
                    return bad(format!(
                        "condition 3: district ({w}, {di}) has new orders {lo} to {hi} but {n} rows"
                    ));
                }
            }
            if d.ol_cnt != d.lines {
                return bad(format!(
                    "condition 4: district ({w}, {di}) announces {} order lines, holds {}",
                    d.ol_cnt, d.lines
                ));
            }
        }
        Ok(ds.len() as u64)
    }
}

impl Workload for TpcC {
    workload_basics!("tpcc");

    fn load(&mut self, db: &Db, rng: &mut WRng) -> Result<()> {
        let sp = db.space();
        let t = Tables {
            warehouse: BTree::create(sp, "warehouse")?,
            district: BTree::create(sp, "district")?,
            customer: BTree::create(sp, "customer")?,
            customer_name: BTree::create(sp, "customer_name")?,
            history: HeapFile::create(sp, "history")?,
            new_order: BTree::create(sp, "new_order")?,
            orders: BTree::create(sp, "orders")?,
            orders_customer: BTree::create(sp, "orders_customer")?,
            order_line: BTree::create(sp, "order_line")?,
            item: BTree::create(sp, "item")?,
            stock: BTree::create(sp, "stock")?,
        };
        for i in 1..=ITEMS {
            let mut r = Self::row(rng, ITEM_ROW);
            put_u32(&mut r, 0, uniform(rng, 1, 10_000) as u32);
            put_i64(&mut r, 4, uniform(rng, 100, 10_000) as i64);
            t.item.insert(sp, &key(&[i]), &r)?;
        }
        for w in 1..=self.p.warehouses {
            let mut r = Self::row(rng, WAREHOUSE_ROW);
            put_i64(&mut r, 0, 30_000_000);
            put_u32(&mut r, 8, uniform(rng, 0, 2000) as u32);
            t.warehouse.insert(sp, &key(&[w]), &r)?;
            for i in 1..=ITEMS {
                let mut r = Self::row(rng, STOCK_ROW);
                put_u32(&mut r, 0, uniform(rng, 10, 100) as u32);
                put_u32(&mut r, 4, 0);
                put_u32(&mut r, 8, 0);
                put_u32(&mut r, 12, 0);
                t.stock.insert(sp, &key(&[w, i]), &r)?;
            }
            for d in 1..=DISTRICTS {
                let mut r = Self::row(rng, DISTRICT_ROW);
                put_u32(&mut r, 0, ORDERS + 1);
                put_i64(&mut r, 4, 3_000_000);
                t.district.insert(sp, &key(&[w, d]), &r)?;
                for c in 1..=CUSTOMERS {
                    let mut r = Self::row(rng, CUSTOMER_ROW);
                    put_i64(&mut r, 0, -1000);
                    put_i64(&mut r, 8, 1000);
                    put_u32(&mut r, 16, 1);
                    put_u32(&mut r, 20, 0);
                    let last = if c <= 1000 {
                        last_name(u64::from(c) - 1)
                    } else {
                        last_name(nurand(rng, 255, 0, 999, C_LAST_LOAD))
                    };
                    r[24..40].copy_from_slice(&last);
                    r[56..58].copy_from_slice(if rng.random_range(0..10) == 0 {
                        b"BC"
                    } else {
                        b"GC"
                    });
                    t.customer.insert(sp, &key(&[w, d, c]), &r)?;
                    let mut nk = key(&[w, d]);
                    nk.extend_from_slice(&last);
                    nk.extend_from_slice(&r[40..56]);
                    nk.extend_from_slice(&c.to_be_bytes());
                    t.customer_name.insert(sp, &nk, &[])?;
                    let mut h = [0u8; HISTORY_ROW];
                    put_u32(&mut h, 0, c);
                    put_u32(&mut h, 4, d);
                    put_u32(&mut h, 8, w);
                    t.history.insert(sp, &h)?;
                }
                // Orders get a random permutation of customer ids (§4.3.3.1).
                let mut perm: Vec<u32> = (1..=CUSTOMERS).collect();
                for i in (1..perm.len()).rev() {
                    perm.swap(i, rng.random_range(0..=i));
                }
                for o in 1..=ORDERS {
                    let c = perm[o as usize - 1];
                    let lines = uniform(rng, 5, 15) as u32;
                    let mut orow = [0u8; ORDER_ROW];
                    put_u32(&mut orow, 0, c);
                    put_u32(
                        &mut orow,
                        12,
                        if o < FIRST_NEW_ORDER {
                            uniform(rng, 1, 10) as u32
                        } else {
                            0
                        },
                    );
                    put_u32(&mut orow, 16, lines);
                    put_u32(&mut orow, 20, 1);
                    t.orders.insert(sp, &key(&[w, d, o]), &orow)?;
                    t.orders_customer.insert(sp, &key(&[w, d, c, o]), &[])?;
                    if o >= FIRST_NEW_ORDER {
                        t.new_order.insert(sp, &key(&[w, d, o]), &[])?;
                    }
                    for l in 1..=lines {
                        let mut ol = Self::row(rng, ORDER_LINE_ROW);
                        put_u32(&mut ol, 0, uniform(rng, 1, u64::from(ITEMS)) as u32);
                        put_u32(&mut ol, 4, w);
                        put_i64(&mut ol, 8, if o < FIRST_NEW_ORDER { 1 } else { 0 });
                        put_u32(&mut ol, 16, 5);
                        put_i64(
                            &mut ol,
                            20,
                            if o < FIRST_NEW_ORDER {
                                0
                            } else {
                                uniform(rng, 1, 999_999) as i64
                            },
                        );
                        t.order_line.insert(sp, &key(&[w, d, o, l]), &ol)?;
                    }
                }
            }
        }
        self.t = Some(t);
        Ok(())
    }

    fn steps(&self) -> u64 {
        self.p.transactions
    }

    fn step(&self, db: &Db, rng: &mut WRng, _i: u64) -> Result<()> {
        let kind = pick(rng, &self.p.mix);
        self.counts.add(kind);
        match kind {
            0 => self.new_order(db, rng),
            1 => self.payment(db, rng),
            2 => self.order_status(db, rng),
            3 => self.delivery(db, rng),
            _ => self.stock_level(db, rng),
        }
    }

    fn check(&self, db: &Db) -> Result<Option<String>> {
        let districts = self.consistency(db)?;
        Ok(Some(format!(
            "consistency conditions 1 to 4 (TPC-C §3.3.2) hold in all {districts} districts"
        )))
    }

    fn summary(&self) -> Vec<(String, u64)> {
        let mut v = self.counts.named(&NAMES);
        v.push((
            "new_order_rollbacks".into(),
            self.rollbacks.load(Ordering::Relaxed),
        ));
        v
    }
}
