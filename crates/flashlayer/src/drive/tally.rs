//! The counters a request moves, kept so that a request that fails moves
//! none (the failure rule, `docs/design/pool.md`): a caller takes a
//! [`Tally`] before the request and puts it back, or takes back only its
//! own moves when it released its lock meanwhile.

use super::Driver;
use crate::policy::Policy;
use crate::store::PageStore;

/// The counters of [`Metrics`] a request moves, in [`Tally`]'s order: read
/// as an array, or assigned to from one.
macro_rules! tallied {
    ($m:expr) => {
        [
            $m.requests,
            $m.writes,
            $m.hits,
            $m.misses,
            $m.physical_reads,
            $m.physical_writes,
            $m.dirty_evictions,
            $m.read_ahead,
            $m.read_ahead_used,
        ]
    };
}

/// The counters a request moves ([`Driver::tally`]), kept to undo a
/// request that failed.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally([u64; 9]);

impl Tally {
    /// What the counters moved since `earlier`.
    pub fn since(self, earlier: Tally) -> Tally {
        Tally(std::array::from_fn(|i| self.0[i] - earlier.0[i]))
    }

    /// The moves of `self` and `other` together.
    pub fn plus(self, other: Tally) -> Tally {
        Tally(std::array::from_fn(|i| self.0[i] + other.0[i]))
    }
}

impl<P: Policy, S: PageStore> Driver<P, S> {
    /// The counters a request moves, as they are now: what
    /// [`Driver::restore`] puts back when the request fails.
    pub fn tally(&self) -> Tally {
        Tally(tallied!(self.m))
    }

    /// Puts back the counters of [`Driver::tally`]: the request that
    /// failed since moved none.
    pub fn restore(&mut self, t: Tally) {
        tallied!(self.m) = t.0;
    }

    /// Takes back the moves `t` of a request that failed, for a caller
    /// that released its lock meanwhile (other requests counted since).
    pub fn take_back(&mut self, t: Tally) {
        let now = self.tally();
        self.restore(now.since(t));
    }
}
