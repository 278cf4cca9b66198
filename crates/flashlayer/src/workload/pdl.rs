//! The synthetic update operations of Kim, Whang & Song 2010, §5.1.
//!
//! A relation of `pages` pages; each operation picks a page uniformly. With
//! probability `update_share` (%UpdateOps) it is an update operation, else a
//! read-only one (one `R`). An update operation applies
//! `updates_till_write` (N_updates_till_write) updates to the page while it
//! is in memory: that many consecutive `W` requests on the page, each
//! changing `changed_share` (%ChangedByOneU_Op) of the page's bytes — one
//! contiguous run at a random offset, since the paper says only that "the
//! portion of data to be changed is randomly selected". A consumer that
//! buffers one page reads it once and writes it back once per operation, as
//! the paper's experiments do. These are page references, not transactions
//! on tables, so no access method is involved.

use super::db::{Db, Workload};
use super::spec::{PAGE_SIZE, PAGE_TY, SHARE};
use super::util::{check_min, check_share, uniform, Counts, WRng};
use crate::error::Result;
use crate::spec::{Entry, FromSpec, Param, Ty, NO_MAX};
use crate::types::{ByteRange, Op};
use rand::Rng;

/// Parameters of [`PdlUpdates`].
#[derive(Clone, Debug)]
pub struct PdlUpdatesParams {
    /// Pages in the relation (≥ 1). Default 51,200 (100 MiB of 2 KiB pages).
    pub pages: u64,
    /// Operations (≥ 1). Default 100,000.
    pub operations: u64,
    /// %UpdateOps as a fraction. Default 1.0 (all updates, Exp. 1–3).
    pub update_share: f64,
    /// N_updates_till_write (≥ 1). Default 1.
    pub updates_till_write: u64,
    /// %ChangedByOneU_Op as a fraction (> 0). Default 0.02.
    pub changed_share: f64,
    /// Page size (512–32768). Default 2048 (the paper's logical page).
    pub page_size: usize,
}

impl FromSpec for PdlUpdatesParams {
    const ENTRY: Entry = Entry {
        name: "pdl-updates",
        description:
            "Kim, Whang & Song 2010 section 5.1: synthetic update operations on a relation",
        params: &[
            Param {
                key: "pages",
                ty: Ty::Int(1, NO_MAX),
                default: "51200",
                help: "pages in the relation",
            },
            Param {
                key: "operations",
                ty: Ty::Int(1, NO_MAX),
                default: "100000",
                help: "operations",
            },
            Param {
                key: "update_share",
                ty: SHARE,
                default: "1",
                help: "%UpdateOps as a fraction",
            },
            Param {
                key: "updates_till_write",
                ty: Ty::Int(1, NO_MAX),
                default: "1",
                help: "N_updates_till_write: updates applied in memory per operation",
            },
            Param {
                key: "changed_share",
                ty: Ty::Positive(1.0),
                default: "0.02",
                help: "%ChangedByOneU_Op as a fraction of the page",
            },
            Param {
                key: "page_size",
                ty: PAGE_TY,
                default: "2048",
                help: PAGE_SIZE,
            },
        ],
    };

    spec_fields!(
        pages,
        operations,
        update_share,
        updates_till_write,
        changed_share,
        page_size,
    );
}

/// The PDL synthetic update driver.
#[derive(Debug)]
pub struct PdlUpdates {
    p: PdlUpdatesParams,
    changed: u16,
    counts: Counts<2>,
}

impl PdlUpdates {
    /// Validates the parameters.
    pub fn new(p: PdlUpdatesParams) -> Result<Self> {
        check_min("pages", p.pages, 1)?;
        check_min("operations", p.operations, 1)?;
        check_min("updates till write", p.updates_till_write, 1)?;
        check_share("update share", p.update_share)?;
        check_share("changed share", p.changed_share)?;
        if p.changed_share == 0.0 {
            return Err(crate::Error::invalid("changed share must be > 0"));
        }
        crate::btree::check_page_size(p.page_size)?;
        let changed = ((p.changed_share * p.page_size as f64).round() as u16).max(1);
        Ok(PdlUpdates {
            p,
            changed,
            counts: Counts::default(),
        })
    }
}

impl Workload for PdlUpdates {
    workload_basics!("pdl-updates");
    fn load(&mut self, _db: &Db, _rng: &mut WRng) -> Result<()> {
        Ok(())
    }
    fn steps(&self) -> u64 {
        self.p.operations
    }
    fn on_pages(&self) -> bool {
        false
    }
    /// The relation's pages, every one of which a run may update.
    fn pages(&self, _db: &Db) -> u64 {
        self.p.pages
    }

    fn step(&self, db: &Db, rng: &mut WRng, _i: u64) -> Result<()> {
        let page = uniform(rng, 0, self.p.pages - 1);
        if !rng.random_bool(self.p.update_share) {
            self.counts.add(0);
            db.emit(page, Op::Read, &[]);
            return Ok(());
        }
        self.counts.add(1);
        let span = self.p.page_size as u64 - u64::from(self.changed);
        for _ in 0..self.p.updates_till_write {
            let offset = uniform(rng, 0, span) as u16;
            db.emit(
                page,
                Op::Write,
                &[ByteRange {
                    offset,
                    len: self.changed,
                }],
            );
        }
        Ok(())
    }

    fn summary(&self) -> Vec<(String, u64)> {
        self.counts.named(&["read_only", "update"])
    }
}
