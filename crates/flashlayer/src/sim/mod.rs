//! Trace-driven simulation (`DESIGN.md` §1): requests in, a policy decides
//! hits and victims, a store prices misses and write-backs, metrics out.
//!
//! [`Simulator`] is generic over the policy and the store, so each
//! combination is monomorphised: the per-request path has no dynamic dispatch,
//! no hashing (pages are dense ids) and no allocation. [`replay`] is the
//! one entry: any policy spec over any store spec ([`StoreSpec`]: a cost
//! model, a file, a flash store, a hybrid or a tier store) on an `flt`
//! trace, its store seeing the trace's original page numbers.

mod kinds;
mod simulator;

pub use crate::policy::{with_online_policy, WithPolicy};
pub use kinds::{
    check, is_database_file, replay, CostKind, Field, FieldType, FileKind, FlashKind, FtlKind,
    HybridKind, Kind, Live, OpenRun, Opens, Pooled, ReplayOptions, Replayed, Run, Simulated,
    Stepper, StoreKind, StoreSpec, TierKind, Via, Writes, DATABASE_MARK, FLASH_PAGE, KIND_FIELDS,
    ROW, STORES,
};
pub use simulator::{with_policy, Simulator};
