//! TPC-B as pgbench runs it ("TPC-B (sort of)"): branches, tellers (10 per
//! branch), accounts (100,000 per branch) as B+-trees on their ids, and an
//! insert-only history heap. Rows have pgbench's sizes (accounts 97 bytes
//! with their filler). One transaction: update an account's balance, read
//! it, update a teller and a branch, insert a history row; account, teller
//! and branch are uniform random, as in pgbench.

use super::db::{Db, Workload};
use super::spec::{PAGE_8192, TRANSACTIONS};
use super::util::{check_min, fill_text, get_i64, key, put_i64, put_u32, uniform, WRng};
use crate::btree::{BTree, HeapFile};
use crate::error::{Error, Result};
use crate::spec::{Entry, FromSpec, Param, Ty};
use std::ops::Bound;
use std::sync::atomic::{AtomicI64, Ordering};

const TELLERS: u32 = 10;
const ACCOUNTS: u32 = 100_000;

/// Parameters of [`TpcB`].
#[derive(Clone, Debug)]
pub struct TpcBParams {
    /// Scale: number of branches (pgbench's `-s`, ≥ 1).
    pub branches: u32,
    /// Transactions to run (≥ 1).
    pub transactions: u64,
    /// Page size in bytes. Default 8192.
    pub page_size: usize,
}

impl FromSpec for TpcBParams {
    const ENTRY: Entry = Entry {
        name: "tpcb",
        description: "TPC-B as pgbench runs it: accounts, tellers, branches, history",
        params: &[
            Param {
                key: "branches",
                ty: Ty::Int(1, u32::MAX as u64),
                default: "1",
                help: "scale in branches (pgbench -s)",
            },
            TRANSACTIONS,
            PAGE_8192,
        ],
    };

    spec_fields!(branches, transactions, page_size);
}

/// The TPC-B driver.
#[derive(Debug)]
pub struct TpcB {
    p: TpcBParams,
    t: Option<(BTree, BTree, BTree, HeapFile)>,
    clock: AtomicI64,
}

impl TpcB {
    /// Validates the parameters.
    pub fn new(p: TpcBParams) -> Result<Self> {
        check_min("branches", u64::from(p.branches), 1)?;
        check_min("transactions", p.transactions, 1)?;
        if p.branches > 10_000 {
            return Err(Error::invalid("branches must be at most 10,000"));
        }
        crate::btree::check_page_size(p.page_size)?;
        Ok(TpcB {
            p,
            t: None,
            clock: AtomicI64::new(0),
        })
    }
}

impl TpcB {
    /// The sum of the balances (the first 8 bytes of a row) of a table.
    fn balance(db: &Db, tree: &BTree) -> Result<i64> {
        let mut sum = 0;
        tree.scan(db.space(), Bound::Unbounded, Bound::Unbounded, |_, v| {
            sum += get_i64(v, 0);
            true
        })?;
        Ok(sum)
    }
}

impl Workload for TpcB {
    workload_basics!("tpcb");

    fn load(&mut self, db: &Db, rng: &mut WRng) -> Result<()> {
        let sp = db.space();
        let branches = BTree::create(sp, "branches")?;
        let tellers = BTree::create(sp, "tellers")?;
        let accounts = BTree::create(sp, "accounts")?;
        let history = HeapFile::create(sp, "history")?;
        let mut row = |len: usize| {
            let mut r = vec![0u8; len];
            fill_text(rng, &mut r[12..]);
            r
        };
        for b in 1..=self.p.branches {
            branches.insert(sp, &key(&[b]), &row(89))?;
            for t in 1..=TELLERS {
                let mut r = row(93);
                put_u32(&mut r, 8, b);
                tellers.insert(sp, &key(&[(b - 1) * TELLERS + t]), &r)?;
            }
        }
        for a in 1..=self.p.branches * ACCOUNTS {
            let mut r = row(97);
            put_u32(&mut r, 8, (a - 1) / ACCOUNTS + 1);
            accounts.insert(sp, &key(&[a]), &r)?;
        }
        self.t = Some((branches, tellers, accounts, history));
        Ok(())
    }

    fn steps(&self) -> u64 {
        self.p.transactions
    }

    fn step(&self, db: &Db, rng: &mut WRng, _i: u64) -> Result<()> {
        let sp = db.space();
        let aid = uniform(rng, 1, u64::from(self.p.branches * ACCOUNTS)) as u32;
        let tid = uniform(rng, 1, u64::from(self.p.branches * TELLERS)) as u32;
        let bid = uniform(rng, 1, u64::from(self.p.branches)) as u32;
        let delta = uniform(rng, 0, 10_000) as i64 - 5000;
        let now = self.clock.fetch_add(1, Ordering::Relaxed) + 1;
        let (branches, tellers, accounts, history) = self.t.as_ref().expect("loaded");
        accounts.update_in_place(sp, &key(&[aid]), |r| put_i64(r, 0, get_i64(r, 0) + delta))?;
        accounts.get_with(sp, &key(&[aid]), |r| get_i64(r, 0))?;
        tellers.update_in_place(sp, &key(&[tid]), |r| put_i64(r, 0, get_i64(r, 0) + delta))?;
        branches.update_in_place(sp, &key(&[bid]), |r| put_i64(r, 0, get_i64(r, 0) + delta))?;
        let mut h = [0u8; 50];
        put_u32(&mut h, 0, tid);
        put_u32(&mut h, 4, bid);
        put_u32(&mut h, 8, aid);
        put_i64(&mut h, 12, delta);
        put_i64(&mut h, 20, now);
        history.insert(sp, &h)?;
        Ok(())
    }

    /// Every transaction adds its delta to one account, one teller and one
    /// branch and records it in the history: the four sums agree (TPC-B
    /// §2.3's consistency conditions, summed over the whole database).
    fn check(&self, db: &Db) -> Result<Option<String>> {
        let (branches, tellers, accounts, history) = self.t.as_ref().expect("loaded");
        let mut deltas = 0;
        history.scan(db.space(), |_, r| {
            deltas += get_i64(r, 12);
            true
        })?;
        let sums = [
            Self::balance(db, branches)?,
            Self::balance(db, tellers)?,
            Self::balance(db, accounts)?,
        ];
        if sums.iter().any(|&s| s != deltas) {
            return Err(Error::Store(format!(
                "TPC-B consistency: balances of branches {}, tellers {}, accounts {} and \
                 the history's deltas {deltas} differ",
                sums[0], sums[1], sums[2]
            )));
        }
        Ok(Some(format!(
            "branch, teller and account balances and the history's deltas all sum to {deltas}"
        )))
    }
}
