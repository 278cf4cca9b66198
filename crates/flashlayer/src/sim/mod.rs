//! Trace-driven simulation (`DESIGN.md` §1): requests in, a policy decides
//! hits and victims, a store prices misses and write-backs, metrics out.
//!
//! [`Simulator`] is generic over the policy and the store, so each
//! combination is monomorphised: the per-request path has no dynamic dispatch,
//! no hashing (pages are dense ids) and no allocation. [`replay`] is the
//! one entry: any policy spec over any store spec ([`StoreSpec`]: a cost
//! model, a file, a flash store, a hybrid or a tier store) on an `flt`
//! trace, its store seeing the trace's original page numbers.

mod simulator;
mod store;

pub use crate::policy::{with_online_policy, WithPolicy};
pub use simulator::{with_policy, Simulator};
pub use store::{
    check, is_database_file, replay, Cost, Drive, File, Flash, Ftl, Hybrid, Kind, Live, Opens,
    Pooled, ReplayOptions, Replayed, Run, Simulated, Stepper, StoreKind, StoreSpec, Tier, Via,
    Writes, DATABASE_MARK, FLASH_PAGE, STORES,
};
