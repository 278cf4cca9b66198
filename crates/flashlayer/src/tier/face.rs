//! FaCE, flash as cache extension (Kang, Lee & Moon, VLDB 2012), as HyPro's
//! §5 compares with it.
//!
//! - **Multi-version FIFO**: the SSD is a circular log of slots. Every page
//!   leaving DRAM is appended at the log's rear, unless it is clean and the
//!   log already holds its current version: a dirty page is appended as a
//!   new version even when an older one is in the log, and the older one
//!   becomes invalid where it stands (no write in place). Appends are
//!   sequential writes.
//! - **Dirty pages live on the SSD** until their version leaves the log's
//!   front: only then is a dirty version written to the disk (invalid
//!   versions leave without a write).
//! - **Group replacement**: when the log is full, the `group` slots at its
//!   front are replaced at once, at most the whole log. By default 64, or
//!   1/16 of the log (at least 1) where that is fewer, so that a small
//!   cache is not emptied in one go ([`Face::default_group`]).
//! - **Group second chance**: a valid version in that group whose page was
//!   hit on the SSD since it was appended (its reference bit) is given a
//!   second chance: moved to the rear with its bit cleared. Where the rear
//!   has reached the very slot the page is in (every page before it in the
//!   group was kept too), the page stays where it is without a copy; else
//!   the move is a read and a sequential write. If a whole log was kept,
//!   the next group is replaced; bits are cleared, so this ends.
//! - An SSD hit reads the page into DRAM and keeps the version in the log
//!   (inclusive); the DRAM copy is clean with respect to it.
//!
//! A version's slot and a page's current slot are all the metadata, and
//! both are rebuilt from the log after a crash by the data backend (the
//! newest version of each page wins): that is FaCE's recovery.

use super::{Found, Io, Leaving, Scheme, Serve, NIL};

/// Slots replaced at once by default (where the log allows).
pub const DEFAULT_GROUP: usize = 64;
use crate::error::Result;
use crate::types::{DenseId, Op};

const DIRTY: u8 = 1;
const REFERENCED: u8 = 2;

/// FaCE's decisions and its log.
#[derive(Clone, Debug)]
pub struct Face {
    log: Vec<u32>,
    head: usize,
    used: usize,
    slot_of: Vec<u32>,
    flags: Vec<u8>,
    group: usize,
    second_chance: bool,
    valid: u64,
    dirty: u64,
}

impl Face {
    /// The slots a log of `capacity` slots replaces at once unless told:
    /// 64, or 1/16 of the log (at least 1) where that is fewer.
    pub fn default_group(capacity: usize) -> usize {
        DEFAULT_GROUP.min(capacity / 16).max(1)
    }

    /// A log of `capacity` slots (≥ 1) for dense ids `0..pages`, replaced
    /// `group` slots at a time (1 to `capacity`; `None`:
    /// [`Face::default_group`]), with or without the group second chance.
    pub fn new(capacity: usize, pages: usize, group: Option<usize>, second_chance: bool) -> Self {
        let cap = capacity.max(1);
        Face {
            log: vec![NIL; cap],
            head: 0,
            used: 0,
            slot_of: vec![NIL; pages],
            flags: vec![0; pages],
            group: group
                .unwrap_or_else(|| Self::default_group(cap))
                .clamp(1, cap),
            second_chance,
            valid: 0,
            dirty: 0,
        }
    }

    /// Slots replaced at a time.
    pub fn group(&self) -> usize {
        self.group
    }

    fn grow(&mut self, page: DenseId) {
        let i = page as usize;
        if i >= self.slot_of.len() {
            self.slot_of.resize(i + 1, NIL);
            self.flags.resize(i + 1, 0);
        }
    }

    #[inline]
    fn rear(&self) -> usize {
        (self.head + self.used) % self.log.len()
    }

    /// Appends the page's new version to the log. The version is written
    /// before the log points at it, so a failed write leaves the page's
    /// older version (or none) the current one.
    fn append(&mut self, page: DenseId, dirty: bool, io: &mut impl Io) -> Result<()> {
        if self.used == self.log.len() {
            self.replace_group(io)?;
        }
        let slot = self.rear();
        io.ssd_write(page, slot as u32, dirty, true)?;
        self.grow(page);
        let i = page as usize;
        if self.slot_of[i] == NIL {
            self.valid += 1;
        } else if self.flags[i] & DIRTY != 0 {
            self.dirty -= 1;
        }
        self.log[slot] = page;
        self.slot_of[i] = slot as u32;
        self.flags[i] = if dirty { DIRTY } else { 0 };
        self.dirty += u64::from(dirty);
        self.used += 1;
        Ok(())
    }

    /// Frees the oldest `group` slots of a full log, a slot at a time: each
    /// slot's I/O (a kept page's move, a dirty page's copy to the disk)
    /// comes before the log forgets it, so a failed one leaves that slot,
    /// and every slot after it, as it was.
    fn replace_group(&mut self, io: &mut impl Io) -> Result<()> {
        let cap = self.log.len();
        while self.used == cap {
            for _ in 0..self.group {
                self.replace_oldest(io)?;
            }
        }
        // The appends that follow overwrite the group's slots: the versions
        // that superseded its invalid ones, and the copies moves made, must
        // be durable first.
        io.barrier()
    }

    /// Frees the log's oldest slot: its page moves to the rear if it was
    /// referenced (the group second chance), goes to the disk if dirty, or
    /// leaves; an invalid version leaves without a write.
    fn replace_oldest(&mut self, io: &mut impl Io) -> Result<()> {
        let cap = self.log.len();
        let s = self.head;
        let page = self.log[s];
        let valid = page != NIL && self.slot_of[page as usize] == s as u32;
        let i = page as usize;
        if valid && self.second_chance && self.flags[i] & REFERENCED != 0 {
            // Where the rear is once this slot is freed.
            let t = (s + self.used) % cap;
            if t != s {
                // Slot t may be where a page moved earlier in this group
                // came from: its new copy must be safe first.
                io.barrier()?;
                io.ssd_move(page, s as u32, t as u32)?;
            }
            self.flags[i] &= !REFERENCED;
            self.log[s] = NIL;
            self.log[t] = page;
            self.slot_of[i] = t as u32;
        } else {
            if valid {
                if self.flags[i] & DIRTY != 0 {
                    io.ssd_to_hdd(page, s as u32)?;
                    self.dirty -= 1;
                }
                self.flags[i] = 0;
                self.slot_of[i] = NIL;
                self.valid -= 1;
            }
            self.log[s] = NIL;
            self.used -= 1;
        }
        self.head = (s + 1) % cap;
        Ok(())
    }
}

impl Scheme for Face {
    fn name(&self) -> String {
        format!(
            "FaCE(group={}, second_chance={})",
            self.group,
            if self.second_chance { "on" } else { "off" }
        )
    }

    #[inline]
    fn on_ssd(&self, page: DenseId) -> bool {
        self.slot_of.get(page as usize).is_some_and(|&s| s != NIL)
    }

    fn ssd_hit(&mut self, page: DenseId, op: Op, io: &mut impl Io) -> Result<Serve> {
        let i = page as usize;
        self.flags[i] |= REFERENCED;
        super::load_keeping_copy(io, page, self.slot_of[i], op)
    }

    fn dram_evicted(&mut self, left: Leaving, io: &mut impl Io) -> Result<bool> {
        let Leaving { page, dirty, .. } = left;
        if !dirty && self.on_ssd(page) {
            return Ok(false);
        }
        self.append(page, dirty, io)?;
        Ok(true)
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        if let Some(s) = self.slot_of.get(page as usize) {
            crate::types::prefetch(s);
        }
        if let Some(f) = self.flags.get(page as usize) {
            crate::types::prefetch(f);
        }
    }

    fn ssd_pages(&self) -> (u64, u64) {
        (self.valid, self.dirty)
    }

    /// The log after a crash: the current versions stay in their slots, the
    /// newest one is the rear, and every other slot counts as an invalid
    /// version (replaced for free). The order of the log is the order of
    /// the slots from the rear on, which is the append order except where
    /// a second chance kept a page in place.
    fn restore(&mut self, found: &[Found]) -> Result<()> {
        self.log.fill(NIL);
        self.slot_of.fill(NIL);
        self.flags.fill(0);
        (self.valid, self.dirty) = (0, 0);
        for f in found {
            self.grow(f.page);
            self.log[f.slot as usize] = f.page;
            self.slot_of[f.page as usize] = f.slot;
            self.flags[f.page as usize] = if f.dirty { DIRTY } else { 0 };
            self.valid += 1;
            self.dirty += u64::from(f.dirty);
        }
        let cap = self.log.len();
        (self.head, self.used) = match found.last() {
            Some(newest) => ((newest.slot as usize + 1) % cap, cap),
            None => (0, 0),
        };
        Ok(())
    }
}
