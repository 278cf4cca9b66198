//! The engine's integration tests, a module per file, built and linked as
//! one binary: each file as a binary of its own instantiated and linked
//! the engine again. Two stay apart: `registered_policy.rs` adds a policy to
//! the process-wide table every other test lists, and `pool_model.rs` runs
//! under the `shuttle` feature.

// The test stores' and policies' pass-through macros, then the shared
// stores that use them: declared first, so every module below sees them.
#[macro_use]
#[path = "../wrapped/mod.rs"]
mod wrapped;
#[macro_use]
#[path = "../wrapped/policy.rs"]
mod wrapped_policy;
#[path = "../common/mod.rs"]
mod common;
#[path = "../hooked/mod.rs"]
mod hooked;

mod access_methods;
mod bound;
mod btree_faults;
mod btree_latching;
mod buffer_pool;
mod curve;
mod flash_crash;
mod flash_methods;
mod ftl;
mod hybrid;
mod policy_reference;
mod pool_api;
mod pool_failures;
mod pool_flaky;
mod pool_panics;
mod pool_stress;
mod row_fields;
mod sim_runs;
mod spec_grammar;
mod store_io;
mod tier;
mod tier_crash;
mod trace_formats;
mod user_files;
mod workloads;
