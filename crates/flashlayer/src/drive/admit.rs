//! What follows a miss's claim of its victim ([`Driver::miss`],
//! [`Driver::place`]): the victim written back if it must be, room made for
//! reading ahead, the page admitted. The callers undo the claim whole if
//! any of it fails or panics (`docs/DESIGN.md`, the failure rule).

use super::{Driver, Frames, Gate};
use crate::error::Result;
use crate::policy::{Policy, Victim};
use crate::store::PageStore;
use crate::types::{DenseId, Op, PageCost, PageId};

impl<P: Policy, S: PageStore> Driver<P, S> {
    /// [`Driver::miss`] once its victim, if any, is claimed: the victim
    /// written back if it must be, room made for reading ahead, the page
    /// admitted.
    #[expect(
        clippy::too_many_arguments,
        reason = "the miss's state, handed on whole"
    )]
    pub(super) fn evict_and_admit<F: Frames>(
        &mut self,
        page: DenseId,
        op: Op,
        number: PageId,
        dirty: bool,
        cost: PageCost,
        victim: Option<Victim>,
        frames: &mut F,
        gate: &mut impl Gate,
    ) -> Result<()> {
        let mut ahead = 0;
        if let Some(v) = victim {
            // A store that places pages may move a clean victim: the write
            // carries it to its new device.
            let write = if self.placing {
                self.store.evicting(self.number(frames, v.page), v.dirty)?
            } else {
                v.dirty
            };
            if write {
                self.write_back(v, frames, gate)?;
            }
            let dirty_victim = v.dirty && write;
            self.m.dirty_evictions += u64::from(dirty_victim);
            if dirty_victim {
                ahead = self.policy.read_ahead();
                self.make_room(ahead, gate);
            }
        }
        self.m.misses += 1;
        if page >= self.taught {
            self.teach(frames, page);
        }
        if self.placing {
            self.store.admitted(number, op)?;
        }
        self.policy
            .insert(page, if dirty { Op::Write } else { op }, cost);
        if self.placing {
            self.reprice_moved(frames);
        }
        if ahead > 0 {
            self.plan_ahead(page, ahead, frames);
            self.read_planned(number, frames);
        }
        Ok(())
    }

    /// The end of [`Driver::place`]: the page admitted, reading ahead
    /// planned.
    pub(super) fn admit<F: Frames>(&mut self, page: DenseId, op: Op, ahead: usize, frames: &F) {
        self.m.misses += 1;
        if page >= self.taught {
            self.teach(frames, page);
        }
        let cost = self.store.cost_of(self.number(frames, page));
        self.policy.insert(page, op, cost);
        self.plan_ahead(page, ahead, frames);
    }
}
