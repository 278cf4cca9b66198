//! The pool lock and its waits: taken plainly, tried (a try fix never
//! waits), or within a timed fix's deadline; the wait for a load or a
//! write outside the lock. The lock and wait order is in `docs/DESIGN.md`.

use super::{BufferPool, State};
use crate::error::{Error, Result};
use crate::policy::Policy;
use crate::store::PageStore;
use crate::sync::MutexGuard;
use std::time::Instant;

impl<P: Policy, S: PageStore> BufferPool<P, S> {
    pub(super) fn lock(&self) -> MutexGuard<'_, State<P, S>> {
        // A panic while holding the mutex leaves consistent metadata (no
        // step of this module panics half-way), so poisoning is not fatal.
        self.state.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The pool lock, if no one holds it now.
    pub(super) fn try_lock(&self) -> Option<MutexGuard<'_, State<P, S>>> {
        match self.state.0.try_lock() {
            Ok(g) => Some(g),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// The pool lock, waiting until `deadline` at the latest (none: as long
    /// as it takes): a listening store's miss holds it across its I/O, so a
    /// timed fix tries it again every 50 µs rather than block past its
    /// deadline.
    pub(super) fn lock_by(&self, deadline: Option<Instant>) -> Result<MutexGuard<'_, State<P, S>>> {
        let Some(deadline) = deadline else {
            return Ok(self.lock());
        };
        loop {
            if let Some(g) = self.try_lock() {
                return Ok(g);
            }
            if Instant::now() >= deadline {
                return Err(Error::TimedOut);
            }
            crate::sync::backoff();
        }
    }

    /// Waits until a load or a write outside the lock ends, or `deadline`
    /// passes (none: no limit); with the lock, whether it was in time.
    pub(super) fn wait_by<'a>(
        &'a self,
        st: MutexGuard<'a, State<P, S>>,
        deadline: Option<Instant>,
    ) -> (MutexGuard<'a, State<P, S>>, bool) {
        let Some(deadline) = deadline else {
            return (self.wait(st), true);
        };
        let Some(left) = deadline.checked_duration_since(Instant::now()) else {
            return (st, false);
        };
        let st = self
            .done
            .wait_timeout(st, left)
            .unwrap_or_else(|e| e.into_inner())
            .0;
        (st, true)
    }

    /// Whether a frame is being written outside the lock: a miss that
    /// finds every other frame pinned waits for it.
    pub(super) fn writes_in_flight(st: &State<P, S>) -> bool {
        st.writing.contains(&true)
    }

    /// Waits until a load or a write outside the lock ends.
    pub(super) fn wait<'a>(
        &'a self,
        st: MutexGuard<'a, State<P, S>>,
    ) -> MutexGuard<'a, State<P, S>> {
        self.done.wait(st).unwrap_or_else(|e| e.into_inner())
    }
}
