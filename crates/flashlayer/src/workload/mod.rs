//! Workloads (`DESIGN.md` §1): synthetic reference strings and database
//! transactions run on real access methods.
//!
//! Every generator is deterministic for a seed: the same parameters and seed
//! give the same requests on every machine (PCG-64 from `rand_pcg`, whose
//! stream is fixed by its specification).
//!
//! Database workloads ([`Workload`]) build their tables on a [`Db`] without
//! recording (the load phase), then run transactions while the buffer pool
//! records every page fix as one request: `W` if the page was modified during
//! the fix, else `R`, optionally with the byte ranges the write changed.

/// `name` and `page_size` of a [`Workload`] whose parameters, in `self.p`,
/// carry its page size.
macro_rules! workload_basics {
    ($name:literal) => {
        fn name(&self) -> &'static str {
            $name
        }
        fn page_size(&self) -> usize {
            self.p.page_size
        }
    };
}

/// A driver's `Debug`: its parameters (`self.p`) and what its steps were
/// (`self.counts`).
macro_rules! debug_params_counts {
    ($ty:ident) => {
        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("p", &self.p)
                    .field("counts", &self.counts)
                    .finish_non_exhaustive()
            }
        }
    };
}

/// [`crate::spec::FromSpec`]'s reading and writing of a workload's
/// parameters: each listed field is read from the key of its name
/// ([`spec::Value`]) and written back under it, in order.
macro_rules! spec_fields {
    ($($field:ident),* $(,)?) => {
        fn from_spec(g: &crate::spec::Given) -> crate::error::Result<Self> {
            use super::spec::Value;
            Ok(Self {
                $($field: Value::read(g, stringify!($field)),)*
            })
        }

        fn pairs(&self) -> Vec<(&'static str, String)> {
            use super::spec::Value;
            vec![$((stringify!($field), self.$field.write())),*]
        }
    };
}

mod ace;
pub(crate) mod btree_sets;
mod db;
pub mod fit;
mod pdl;
mod spec;
mod tatp;
mod tpcb;
mod tpcc;
mod tpch;
pub(crate) mod util;
mod zipf;

pub use ace::{ace, AceWorkload, GlibcRand};
pub use btree_sets::{BTreeSets, BTreeSetsParams};
pub use db::{generate, Db, GenOptions, GenReport, Workload};
pub use pdl::{PdlUpdates, PdlUpdatesParams};
pub use spec::{WorkloadSpec, WORKLOADS};
pub use tatp::{Tatp, TatpParams};
pub use tpcb::{TpcB, TpcBParams};
pub use tpcc::{TpcC, TpcCParams};
pub use tpch::{TpcH, TpcHParams};
pub use zipf::{zipf, ZipfParams};
