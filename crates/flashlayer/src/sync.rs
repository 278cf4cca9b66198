//! The locks of the parts that threads share (the buffer pool, the locked
//! and memory stores): the standard library's, or with the `shuttle`
//! feature the model checker's, so that model-checked tests run the very
//! code users run (`tests/pool_model.rs`).

#[cfg(not(feature = "shuttle"))]
pub(crate) use std::sync::{Condvar, Mutex, MutexGuard};

#[cfg(feature = "shuttle")]
pub(crate) use shuttle::sync::{Condvar, Mutex, MutexGuard};

#[cfg(not(feature = "shuttle"))]
pub(crate) use std::thread::yield_now;

#[cfg(feature = "shuttle")]
pub(crate) use shuttle::thread::yield_now;

#[cfg(not(any(feature = "shuttle", feature = "loom")))]
pub(crate) use std::sync::atomic::{AtomicU32, AtomicU64};

#[cfg(feature = "shuttle")]
pub(crate) use shuttle::sync::atomic::{AtomicU32, AtomicU64};

// loom models every ordering of these atomics (not only interleavings, as
// shuttle does); its tests drive the hit path's parts alone.
#[cfg(all(feature = "loom", not(feature = "shuttle")))]
pub(crate) use loom::sync::atomic::{AtomicU32, AtomicU64};
