//! Runs that drive the engine's layers with a workload and measure them,
//! apart from the workloads themselves ([`crate::workload`] generates
//! requests and transactions only):
//!
//! - [`hybrid_sequence`]: Koltsidas & Viglas §6's sequences of query sets on
//!   a B+-tree over a hybrid store (Figs. 11–13).
//! - [`run_on`]: a database workload loaded and run on any page store
//!   through a buffer pool (PDL Fig. 14 on each flash store).
//! - [`run_threads`]: a database workload's terminals on threads over one
//!   pool, checked afterwards (`flashlayer bench oltp`).
//! - [`pool_load`]: threads fixing pages of one shared pool (`flashlayer
//!   bench pool`, the divan `pool` bench).

mod koltsidas;
pub mod pool_load;
mod store_run;
mod terminals;

pub use koltsidas::{hybrid_sequence, SequenceParams, SequenceResult, SequenceRun};
pub use store_run::{run_on, StoreRun, Warmup};
pub use terminals::{run_threads, ThreadedRun, PAGES_PER_TERMINAL};
