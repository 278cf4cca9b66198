//! The locks of the parts that threads share (the buffer pool, the locked
//! and memory stores): the standard library's, or with the `shuttle`
//! feature the model checker's, so that model-checked tests run the very
//! code users run (`tests/pool_model.rs`).

#[cfg(not(feature = "shuttle"))]
pub(crate) use std::sync::{Condvar, Mutex, MutexGuard};

#[cfg(feature = "shuttle")]
pub(crate) use shuttle::sync::{Condvar, Mutex, MutexGuard};

/// The pause between two tries of a lock held elsewhere (a timed fix
/// waiting for the pool lock): a short sleep, not a spin; under shuttle, a
/// yield to the model checker's next thread.
#[cfg(not(feature = "shuttle"))]
pub(crate) fn backoff() {
    std::thread::sleep(std::time::Duration::from_micros(50));
}

/// The pause between two tries of a lock held elsewhere (a timed fix
/// waiting for the pool lock): a short sleep, not a spin; under shuttle, a
/// yield to the model checker's next thread.
#[cfg(feature = "shuttle")]
pub(crate) fn backoff() {
    shuttle::thread::yield_now();
}

#[cfg(not(any(feature = "shuttle", feature = "loom")))]
pub(crate) use std::sync::atomic::{AtomicU32, AtomicU64};

#[cfg(feature = "shuttle")]
pub(crate) use shuttle::sync::atomic::{AtomicU32, AtomicU64};

// loom models every ordering of these atomics (not only interleavings, as
// shuttle does); its tests drive the hit path's parts alone.
#[cfg(all(feature = "loom", not(feature = "shuttle")))]
pub(crate) use loom::sync::atomic::{AtomicU32, AtomicU64};
