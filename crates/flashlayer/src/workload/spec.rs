//! Workload specs (`tpcc:warehouses=2,transactions=50000`): the workloads'
//! table of the one grammar ([`crate::spec`]), where every workload's
//! parameters and defaults are written once, and the driver built from a
//! spec. A mix is written with `/` between its shares
//! (`tpcc:mix=45/43/4/4/4`), since `,` separates keys.

use super::{
    BTreeSets, BTreeSetsParams, PdlUpdates, PdlUpdatesParams, Tatp, TatpParams, TpcB, TpcBParams,
    TpcC, TpcCParams, TpcH, TpcHParams, Workload,
};
use crate::error::Result;
use crate::spec::{self, Entry, Given, Param, Table, Ty, NO_MAX};

const PAGE_SIZE: &str = "page size in bytes";
/// The page sizes the B+-tree and heap pages take.
const PAGE_TY: Ty = Ty::Int(crate::btree::MIN_PAGE as u64, crate::btree::MAX_PAGE as u64);
const TRANSACTIONS: Param = Param {
    key: "transactions",
    ty: Ty::Int(1, NO_MAX),
    default: "100000",
    help: "transactions to run",
};
const SHARE: Ty = Ty::Fraction;
const PAGE_8192: Param = Param {
    key: "page_size",
    ty: PAGE_TY,
    default: "8192",
    help: PAGE_SIZE,
};

/// Every workload generator: the workloads' table of the one grammar.
pub static WORKLOADS: Table = Table {
    what: "workload",
    entries: &[
        Entry {
            name: "tpcc",
            description: "TPC-C: nine tables on B+-trees and a heap, five transactions, NURand (TPC-C 5.11)",
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
        },
        Entry {
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
        },
        Entry {
            name: "tatp",
            description: "TATP (TM1): four tables, seven transactions in the standard mix, NURand subscriber ids",
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
        },
        Entry {
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
        },
        Entry {
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
        },
        Entry {
            name: "pdl-updates",
            description: "Kim, Whang & Song 2010 section 5.1: synthetic update operations on a relation",
            params: &[
                Param { key: "pages", ty: Ty::Int(1, NO_MAX), default: "51200", help: "pages in the relation" },
                Param { key: "operations", ty: Ty::Int(1, NO_MAX), default: "100000", help: "operations" },
                Param { key: "update_share", ty: SHARE, default: "1", help: "%UpdateOps as a fraction" },
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
                Param { key: "page_size", ty: PAGE_TY, default: "2048", help: PAGE_SIZE },
            ],
        },
    ],
    more: None,
    lead: false,
    unnamed: None,
};

/// A workload with its parameters, parsed from a spec.
#[derive(Clone, Debug)]
pub enum WorkloadSpec {
    /// TPC-C.
    TpcC(TpcCParams),
    /// TPC-B.
    TpcB(TpcBParams),
    /// TATP.
    Tatp(TatpParams),
    /// TPC-H-like.
    TpcH(TpcHParams),
    /// Koltsidas's B+-tree query sets.
    BTree(BTreeSetsParams),
    /// PDL's synthetic updates.
    PdlUpdates(PdlUpdatesParams),
}

fn page_size(g: &Given) -> usize {
    g.int("page_size") as usize
}

impl WorkloadSpec {
    /// Parses `name[:key=value,...]` by the one grammar; a key left out
    /// takes the table's default.
    pub fn parse(text: &str) -> Result<Self> {
        let g = spec::parse(&WORKLOADS, text)?;
        Ok(match g.name() {
            "tpcc" => {
                let m = g.mix("mix");
                let mix: [u32; 5] = std::array::from_fn(|i| m[i] as u32);
                WorkloadSpec::TpcC(TpcCParams {
                    warehouses: g.int("warehouses") as u32,
                    transactions: g.int("transactions"),
                    mix,
                    page_size: page_size(&g),
                })
            }
            "tpcb" => WorkloadSpec::TpcB(TpcBParams {
                branches: g.int("branches") as u32,
                transactions: g.int("transactions"),
                page_size: page_size(&g),
            }),
            "tatp" => WorkloadSpec::Tatp(TatpParams {
                scale: g.int("scale") as u32,
                transactions: g.int("transactions"),
                page_size: page_size(&g),
            }),
            "tpch" => {
                let m = g.mix("mix");
                let mix: [f64; 3] = std::array::from_fn(|i| m[i]);
                WorkloadSpec::TpcH(TpcHParams {
                    scale_factor: g.number("scale_factor"),
                    queries: g.int("queries"),
                    mix,
                    page_size: page_size(&g),
                })
            }
            "btree" => WorkloadSpec::BTree(BTreeSetsParams {
                records: g.int("records"),
                queries: g.int("queries"),
                repeat: g.int("repeat"),
                read_only: g.fraction("read_only"),
                update_only: g.fraction("update_only"),
                interesting: g.fraction("interesting"),
                interesting_read_prob: g.fraction("interesting_read_prob"),
                read_prob: g.fraction("read_prob"),
                range_share: g.fraction("range_share"),
                range_len: g.int("range_len"),
                insert_share: g.fraction("insert_share"),
                hot_keys: g.fraction("hot_keys"),
                hot_queries: g.fraction("hot_queries"),
                page_size: page_size(&g),
            }),
            _ => WorkloadSpec::PdlUpdates(PdlUpdatesParams {
                pages: g.int("pages"),
                operations: g.int("operations"),
                update_share: g.fraction("update_share"),
                updates_till_write: g.int("updates_till_write"),
                changed_share: g.number("changed_share"),
                page_size: page_size(&g),
            }),
        })
    }

    /// The workload's name.
    pub fn name(&self) -> &'static str {
        match self {
            WorkloadSpec::TpcC(_) => "tpcc",
            WorkloadSpec::TpcB(_) => "tpcb",
            WorkloadSpec::Tatp(_) => "tatp",
            WorkloadSpec::TpcH(_) => "tpch",
            WorkloadSpec::BTree(_) => "btree",
            WorkloadSpec::PdlUpdates(_) => "pdl-updates",
        }
    }

    /// The driver, its parameters validated.
    pub fn build(&self) -> Result<Box<dyn Workload + Send>> {
        Ok(match self.clone() {
            WorkloadSpec::TpcC(p) => Box::new(TpcC::new(p)?),
            WorkloadSpec::TpcB(p) => Box::new(TpcB::new(p)?),
            WorkloadSpec::Tatp(p) => Box::new(Tatp::new(p)?),
            WorkloadSpec::TpcH(p) => Box::new(TpcH::new(p)?),
            WorkloadSpec::BTree(p) => Box::new(BTreeSets::new(p)?),
            WorkloadSpec::PdlUpdates(p) => Box::new(PdlUpdates::new(p)?),
        })
    }
}

/// Each workload's parameters default to its entry's defaults in
/// [`WORKLOADS`]: `Params => Variant, "name"`.
macro_rules! table_defaults {
    ($($params:ty => $variant:ident, $name:literal;)*) => {$(
        /// The defaults of the workloads' table ([`WORKLOADS`]).
        impl Default for $params {
            fn default() -> Self {
                match WorkloadSpec::parse($name) {
                    Ok(WorkloadSpec::$variant(p)) => p,
                    _ => unreachable!(concat!("the ", $name, " entry builds its parameters")),
                }
            }
        }
    )*};
}

table_defaults! {
    TpcCParams => TpcC, "tpcc";
    TpcBParams => TpcB, "tpcb";
    TatpParams => Tatp, "tatp";
    TpcHParams => TpcH, "tpch";
    BTreeSetsParams => BTree, "btree";
    PdlUpdatesParams => PdlUpdates, "pdl-updates";
}

/// A mix of shares as a spec writes it, `a/b/c` (`,` separates keys).
struct Mix<'a, T>(&'a [T]);

impl<T: std::fmt::Display> std::fmt::Display for Mix<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().map(T::to_string).collect();
        f.write_str(&parts.join("/"))
    }
}

/// Writes `name:key=value,...` with the listed fields of `p`, in order.
macro_rules! canonical {
    ($f:expr, $name:literal, $p:expr, [$($k:ident $(as $wrap:ident)?),*]) => {{
        let pairs = [$(format!("{}={}", stringify!($k), $($wrap)?(&$p.$k))),*];
        write!($f, "{}:{}", $name, pairs.join(","))
    }};
}

impl std::fmt::Display for WorkloadSpec {
    /// The canonical spec, every parameter written out.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkloadSpec::TpcC(p) => canonical!(
                f,
                "tpcc",
                p,
                [warehouses, transactions, mix as Mix, page_size]
            ),
            WorkloadSpec::TpcB(p) => {
                canonical!(f, "tpcb", p, [branches, transactions, page_size])
            }
            WorkloadSpec::Tatp(p) => canonical!(f, "tatp", p, [scale, transactions, page_size]),
            WorkloadSpec::TpcH(p) => {
                canonical!(f, "tpch", p, [scale_factor, queries, mix as Mix, page_size])
            }
            WorkloadSpec::BTree(p) => canonical!(
                f,
                "btree",
                p,
                [
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
                    page_size
                ]
            ),
            WorkloadSpec::PdlUpdates(p) => canonical!(
                f,
                "pdl-updates",
                p,
                [
                    pages,
                    operations,
                    update_share,
                    updates_till_write,
                    changed_share,
                    page_size
                ]
            ),
        }
    }
}
