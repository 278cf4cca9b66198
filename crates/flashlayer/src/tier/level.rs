//! An SSD level ordered by a replacement [`Policy`] (HyPro and lazy
//! cleaning): the policy decides which page leaves, [`Slots`] says where
//! each page's bytes are.
//!
//! The level drives its policy by the calling protocol of
//! [`crate::policy`] itself, not through `drive::Driver`: it moves no bytes
//! (its scheme does, through a [`super::Io`]) and pins nothing. A page the
//! scheme puts on the level is announced (`access`, a miss) and then
//! admitted (`insert`, at the SSD's cost); a request served on the level
//! is an `access` that hits; a full level gives up a victim by `evict`
//! (every page evictable) before the scheme admits the next; `remove`
//! takes a page off when the scheme moves it up to DRAM; `mark_dirty` and
//! `mark_clean` follow whether the disk's copy is older. When the I/O that
//! follows fails, the scheme undoes the step: a victim whose copy to the
//! disk failed is put back ([`PolicyLevel::reinstate`], the protocol's
//! `reinstate`), and a page admitted whose write to the SSD failed is
//! taken off again, so the level never lists a page its slot does not
//! hold.

use super::{Io, Slots, NIL};
use crate::error::Result;
use crate::policy::{boxed_online_policy, BoxedPolicy, Policy, PolicySpec, Victim};
use crate::types::{DenseId, Op, PageCost};

/// An SSD level of `capacity` pages ordered by any online policy, chosen by
/// name (behind one pointer: the level is touched on DRAM misses only).
///
/// The level has one slot more than pages, the spare: an update of a page
/// on the level ([`PolicyLevel::relocate`]) is written to the spare, and
/// the page's old slot becomes the spare, so a crash in the middle of the
/// write leaves the old version whole. The spare then holds an old version
/// of that page, which must be invalidated if the page leaves the level
/// ([`PolicyLevel::evict`] says so).
#[derive(Debug)]
pub struct PolicyLevel {
    policy: BoxedPolicy,
    slots: Slots,
    cost: PageCost,
    spare: u32,
    spare_holds: DenseId,
}

impl PolicyLevel {
    /// A level of `capacity` pages ordered by the online policy `policy`,
    /// pre-sized for dense ids `0..pages`; `cost` is the SSD's page cost
    /// (what a cost-aware policy weighs).
    pub fn new(policy: &PolicySpec, capacity: usize, pages: usize, cost: PageCost) -> Result<Self> {
        let mut slots = Slots::new(capacity + 1, pages);
        let spare = slots.take_free();
        Ok(PolicyLevel {
            policy: boxed_online_policy(policy, capacity, pages)?,
            slots,
            cost,
            spare,
            spare_holds: NIL,
        })
    }

    /// The policy, for its name and hints.
    pub fn policy(&self) -> &BoxedPolicy {
        &self.policy
    }

    /// Starts loading what the level keeps about `page`, and about the
    /// page its next eviction would take.
    #[inline]
    pub fn prefetch(&self, page: DenseId) {
        self.slots.prefetch(page);
        self.policy.prefetch(page);
        if let Some(v) = self.policy.victim_ahead(0) {
            self.slots.prefetch(v);
            self.policy.prefetch(v);
        }
    }

    /// Whether `page` is on the level.
    #[inline]
    pub fn contains(&self, page: DenseId) -> bool {
        self.slots.get(page) != NIL
    }

    /// Whether `page` is on the level and newer than the disk's copy.
    #[inline]
    pub fn is_dirty(&self, page: DenseId) -> bool {
        self.policy.is_dirty(page)
    }

    /// The slot of a page on the level.
    #[inline]
    pub fn slot(&self, page: DenseId) -> u32 {
        self.slots.get(page)
    }

    /// Whether the level has no free slot.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.policy.len() >= self.policy.capacity()
    }

    /// A request served on the level (a write dirties the page).
    #[inline]
    pub fn touch(&mut self, page: DenseId, op: Op) {
        let hit = self.policy.access(page, op);
        debug_assert!(hit, "page {page} is on the level");
    }

    /// Takes `page` off the level; returns its dirty flag and its slot.
    #[inline]
    pub fn remove(&mut self, page: DenseId) -> (bool, u32) {
        let dirty = self.policy.remove(page).expect("the page is on the level");
        (dirty, self.slots.release(page))
    }

    /// Chooses the page to leave a full level and removes it; its slot is
    /// free for the page coming in. The third value is the spare slot when
    /// it holds an old version of the victim, which the caller must
    /// invalidate before the victim's slot is overwritten.
    #[inline]
    pub fn evict(&mut self) -> (Victim, u32, Option<u32>) {
        let v = self
            .policy
            .evict(|_| true)
            .expect("a full level has a victim");
        let stale = (self.spare_holds == v.page).then(|| {
            self.spare_holds = NIL;
            self.spare
        });
        (v, self.slots.release(v.page), stale)
    }

    /// Makes room on a full level: the victim leaves, a dirty one copied
    /// to the disk first and the spare's old version of it invalidated; a
    /// failed step puts the victim back (clean once it reached the disk).
    pub fn evict_to_disk(&mut self, io: &mut impl Io) -> Result<Victim> {
        let (v, slot, stale) = self.evict();
        if v.dirty {
            if let Err(e) = io.ssd_to_hdd(v.page, slot) {
                self.reinstate(v, stale);
                return Err(e);
            }
        }
        if let Some(spare) = stale {
            if let Err(e) = io.ssd_invalidate(spare) {
                self.reinstate(v, stale);
                if v.dirty {
                    self.mark_clean(v.page);
                }
                return Err(e);
            }
        }
        Ok(v)
    }

    /// Puts `page` on the level (it must have room) and writes it to its
    /// slot; a failed write takes it off again, so the level never lists a
    /// page its slot does not hold.
    pub fn admit_written(&mut self, page: DenseId, dirty: bool, io: &mut impl Io) -> Result<()> {
        let slot = self.admit(page, dirty);
        if let Err(e) = io.ssd_write(page, slot, dirty, false) {
            self.remove(page);
            return Err(e);
        }
        Ok(())
    }

    /// Undoes the [`PolicyLevel::evict`] just made, whose I/O failed: the
    /// victim is back on the level, in its slot, where its policy had it,
    /// and the spare again holds its old version if it did.
    pub fn reinstate(&mut self, victim: Victim, stale: Option<u32>) {
        // The slot just released is the first free one again.
        self.slots.take(victim.page);
        self.policy.reinstate(victim);
        if stale.is_some() {
            self.spare_holds = victim.page;
        }
    }

    /// The spare slot: where the next [`PolicyLevel::relocate`] puts its
    /// page.
    pub fn spare(&self) -> u32 {
        self.spare
    }

    /// Moves a page on the level to the spare slot for an update: returns
    /// the slot to write; the page's old slot becomes the spare.
    #[inline]
    pub fn relocate(&mut self, page: DenseId) -> u32 {
        let new = self.spare;
        self.spare = self.slots.set(page, new);
        self.spare_holds = page;
        new
    }

    /// Puts `page` on the level (it must have room): returns its slot.
    #[inline]
    pub fn admit(&mut self, page: DenseId, dirty: bool) -> u32 {
        self.admit_policy(page, dirty);
        self.slots.take(page)
    }

    /// Rebuilds the level from the pages found on the SSD (the level must
    /// be empty): each admitted in the given order, in its slot.
    pub fn restore(&mut self, found: &[super::Found], slots: &[(DenseId, u32)]) {
        debug_assert_eq!(self.policy.len(), 0);
        for f in found {
            self.admit_policy(f.page, f.dirty);
        }
        self.slots.restore(slots);
        self.spare = self.slots.take_free();
        self.spare_holds = NIL;
    }

    fn admit_policy(&mut self, page: DenseId, dirty: bool) {
        let op = if dirty { Op::Write } else { Op::Read };
        // Announced first, as the protocol requires: ghost-keeping policies
        // (2Q, ARC) learn from a page coming back to the level.
        let hit = self.policy.access(page, op);
        debug_assert!(!hit);
        self.policy.insert(page, op, self.cost);
    }

    /// Records that the page on the level is newer than the disk's copy.
    #[inline]
    pub fn mark_dirty(&mut self, page: DenseId) {
        self.policy.mark_dirty(page);
    }

    /// Records that the page on the level was written to the disk.
    #[inline]
    pub fn mark_clean(&mut self, page: DenseId) {
        self.policy.mark_clean(page, self.cost);
    }

    /// Pages on the level and dirty pages among them.
    pub fn pages(&self) -> (u64, u64) {
        (self.policy.len() as u64, self.policy.dirty_count() as u64)
    }

    /// Pages the level holds at most.
    pub fn capacity(&self) -> usize {
        self.policy.capacity()
    }
}
