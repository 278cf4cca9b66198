//! TATP (Telecom Application Transaction Processing, formerly TM1), v1.0.
//!
//! Tables (B+-trees on their primary keys): subscriber (s_id; plus an index
//! on sub_nbr), access_info (s_id, ai_type), special_facility (s_id,
//! sf_type), call_forwarding (s_id, sf_type, start_time). Population: `N =
//! 100,000 × scale` subscribers; 1–4 access_info and 1–4 special_facility
//! rows each (85% active); 0–3 call_forwarding rows per facility with start
//! times from {0, 8, 16}.
//!
//! Transactions in the standard mix: GET_SUBSCRIBER_DATA 35%,
//! GET_NEW_DESTINATION 10%, GET_ACCESS_DATA 35%, UPDATE_SUBSCRIBER_DATA 2%,
//! UPDATE_LOCATION 14%, INSERT_CALL_FORWARDING 2%, DELETE_CALL_FORWARDING 2%;
//! subscriber ids are non-uniform, `NURand(A, 1, N)` with A = 65,535 for
//! N ≤ 1,000,000 and 1,048,575 above (spec §4.1).

use super::db::{Db, Workload};
use super::spec::{PAGE_8192, TRANSACTIONS};
use super::util::{check_min, fill_text, key, nurand, pick, put_u32, uniform, Counts, WRng};
use crate::btree::BTree;
use crate::error::{Error, Result};
use crate::spec::{Entry, FromSpec, Param, Ty};
use rand::Rng;
use std::ops::Bound;

/// Parameters of [`Tatp`].
#[derive(Clone, Debug)]
pub struct TatpParams {
    /// Scale: subscribers in units of 100,000 (≥ 1).
    pub scale: u32,
    /// Transactions to run (≥ 1).
    pub transactions: u64,
    /// Page size in bytes. Default 8192.
    pub page_size: usize,
}

impl FromSpec for TatpParams {
    const ENTRY: Entry = Entry {
        name: "tatp",
        description:
            "TATP (TM1): four tables, seven transactions in the standard mix, NURand subscriber ids",
        params: &[
            Param {
                key: "scale",
                ty: Ty::Int(1, u32::MAX as u64),
                default: "1",
                help: "subscribers in units of 100,000",
            },
            TRANSACTIONS,
            PAGE_8192,
        ],
    };

    spec_fields!(scale, transactions, page_size);
}

const NAMES: [&str; 7] = [
    "get_subscriber_data",
    "get_new_destination",
    "get_access_data",
    "update_subscriber_data",
    "update_location",
    "insert_call_forwarding",
    "delete_call_forwarding",
];
const MIX: [u32; 7] = [35, 10, 35, 2, 14, 2, 2];

struct Tables {
    subscriber: BTree,
    sub_nbr: BTree,
    access_info: BTree,
    special_facility: BTree,
    call_forwarding: BTree,
}

/// The TATP driver.
pub struct Tatp {
    p: TatpParams,
    n: u64,
    t: Option<Tables>,
    counts: Counts<7>,
}

debug_params_counts!(Tatp);

fn sub_nbr(s: u64) -> Vec<u8> {
    format!("{s:015}").into_bytes()
}

impl Tatp {
    /// Validates the parameters.
    pub fn new(p: TatpParams) -> Result<Self> {
        check_min("scale", u64::from(p.scale), 1)?;
        check_min("transactions", p.transactions, 1)?;
        if p.scale > 1000 {
            return Err(Error::invalid(
                "scale must be at most 1,000 (100M subscribers)",
            ));
        }
        crate::btree::check_page_size(p.page_size)?;
        let n = 100_000 * u64::from(p.scale);
        Ok(Tatp {
            p,
            n,
            t: None,
            counts: Counts::default(),
        })
    }

    fn s_id(&self, rng: &mut WRng) -> u32 {
        let a = if self.n <= 1_000_000 {
            65_535
        } else {
            1_048_575
        };
        nurand(rng, a, 1, self.n, 0) as u32
    }
}

impl Workload for Tatp {
    workload_basics!("tatp");

    fn load(&mut self, db: &Db, rng: &mut WRng) -> Result<()> {
        let sp = db.space();
        let t = Tables {
            subscriber: BTree::create(sp, "subscriber")?,
            sub_nbr: BTree::create(sp, "subscriber_sub_nbr")?,
            access_info: BTree::create(sp, "access_info")?,
            special_facility: BTree::create(sp, "special_facility")?,
            call_forwarding: BTree::create(sp, "call_forwarding")?,
        };
        for s in 1..=self.n as u32 {
            // sub_nbr(15) bits(2) hex(5) byte2(10) msc_location(4) vlr_location(4)
            let mut r = vec![0u8; 40];
            r[..15].copy_from_slice(&sub_nbr(u64::from(s)));
            fill_text(rng, &mut r[15..32]);
            put_u32(&mut r, 32, rng.random());
            put_u32(&mut r, 36, rng.random());
            t.subscriber.insert(sp, &key(&[s]), &r)?;
            t.sub_nbr
                .insert(sp, &sub_nbr(u64::from(s)), &s.to_be_bytes())?;
            for ai in sample_types(rng) {
                let mut r = vec![0u8; 14];
                fill_text(rng, &mut r);
                t.access_info.insert(sp, &key(&[s, ai]), &r)?;
            }
            for sf in sample_types(rng) {
                let mut r = vec![0u8; 8];
                r[0] = u8::from(rng.random_range(0..100) < 85);
                fill_text(rng, &mut r[1..]);
                t.special_facility.insert(sp, &key(&[s, sf]), &r)?;
                let starts = [0u32, 8, 16];
                let n = uniform(rng, 0, 3) as usize;
                for &st in starts.iter().take(n) {
                    let mut r = vec![0u8; 16];
                    put_u32(&mut r, 0, st + uniform(rng, 1, 8) as u32);
                    fill_text(rng, &mut r[4..]);
                    t.call_forwarding.insert(sp, &key(&[s, sf, st]), &r)?;
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
        let sp = db.space();
        let kind = pick(rng, &MIX);
        self.counts.add(kind);
        let s = self.s_id(rng);
        let t = self.t.as_ref().expect("loaded");
        match kind {
            0 => {
                t.subscriber.get_with(sp, &key(&[s]), |r| r[0])?;
            }
            1 => {
                let sf = uniform(rng, 1, 4) as u32;
                let start = [0u32, 8, 16][uniform(rng, 0, 2) as usize];
                // The end_time > t filter applies to rows already read, so it
                // adds no page access and needs no value here.
                let active = t
                    .special_facility
                    .get_with(sp, &key(&[s, sf]), |r| r[0] == 1)?;
                if active == Some(true) {
                    let lo = key(&[s, sf]);
                    let hi = key(&[s, sf, start + 1]);
                    t.call_forwarding.scan(
                        sp,
                        Bound::Included(&lo),
                        Bound::Excluded(&hi),
                        |_, _| true,
                    )?;
                }
            }
            2 => {
                let ai = uniform(rng, 1, 4) as u32;
                t.access_info.get_with(sp, &key(&[s, ai]), |r| r[0])?;
            }
            3 => {
                let bit: u8 = rng.random_range(0..2);
                let data: u8 = rng.random();
                let sf = uniform(rng, 1, 4) as u32;
                t.subscriber
                    .update_in_place(sp, &key(&[s]), |r| r[15] = bit)?;
                t.special_facility
                    .update_in_place(sp, &key(&[s, sf]), |r| r[2] = data)?;
            }
            4 => {
                let loc: u32 = rng.random();
                if let Some(Some(id)) = t.sub_nbr.get_with(sp, &sub_nbr(u64::from(s)), |v| {
                    v.try_into().ok().map(u32::from_be_bytes)
                })? {
                    t.subscriber
                        .update_in_place(sp, &key(&[id]), |r| put_u32(r, 36, loc))?;
                }
            }
            5 => {
                let sf = uniform(rng, 1, 4) as u32;
                let start = [0u32, 8, 16][uniform(rng, 0, 2) as usize];
                let end = start + uniform(rng, 1, 8) as u32;
                if let Some(Some(id)) = t.sub_nbr.get_with(sp, &sub_nbr(u64::from(s)), |v| {
                    v.try_into().ok().map(u32::from_be_bytes)
                })? {
                    let lo = key(&[id]);
                    let hi = key(&[id + 1]);
                    let mut types = Vec::new();
                    t.special_facility.scan(
                        sp,
                        Bound::Included(&lo),
                        Bound::Excluded(&hi),
                        |k, _| {
                            types.push(u32::from_be_bytes(k[4..8].try_into().expect("4 bytes")));
                            true
                        },
                    )?;
                    if types.contains(&sf) {
                        // A duplicate key is the spec's expected failure.
                        let mut r = vec![0u8; 16];
                        put_u32(&mut r, 0, end);
                        fill_text(rng, &mut r[4..]);
                        t.call_forwarding
                            .insert_if_absent(sp, &key(&[id, sf, start]), &r)?;
                    }
                }
            }
            _ => {
                let sf = uniform(rng, 1, 4) as u32;
                let start = [0u32, 8, 16][uniform(rng, 0, 2) as usize];
                if let Some(Some(id)) = t.sub_nbr.get_with(sp, &sub_nbr(u64::from(s)), |v| {
                    v.try_into().ok().map(u32::from_be_bytes)
                })? {
                    t.call_forwarding.delete(sp, &key(&[id, sf, start]))?;
                }
            }
        }
        Ok(())
    }

    fn summary(&self) -> Vec<(String, u64)> {
        self.counts.named(&NAMES)
    }
}

/// 1 to 4 distinct types out of {1, 2, 3, 4}, uniformly many.
fn sample_types(rng: &mut WRng) -> Vec<u32> {
    let n = uniform(rng, 1, 4) as usize;
    let mut all = [1u32, 2, 3, 4];
    for i in (1..4).rev() {
        all.swap(i, rng.random_range(0..=i));
    }
    let mut v = all[..n].to_vec();
    v.sort_unstable();
    v
}
