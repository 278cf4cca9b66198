//! A DRAM buffer over an SSD cache over a magnetic disk (HyPro, Lv et al.;
//! TAC, Canim et al. 2010; FaCE, Kang, Lee & Moon 2012; lazy cleaning, Do
//! et al. 2011).
//!
//! # One mechanism, four sets of decisions
//!
//! DRAM is the buffer, driven by any [`crate::policy::Policy`] through the one calling
//! protocol ([`crate::drive::Driver`]) as over every store. The levels
//! below it are one page store, [`SsdTier`], the mechanism: it hears every
//! request (HyPro serves a flash hit from flash without bringing the page
//! into DRAM, Algorithm 1 line 9, which the store answers as
//! [`crate::store::Loaded::Served`]), moves pages between the SSD and the
//! disk through an [`Io`], and counts. A [`Scheme`] owns the SSD level and
//! makes every decision the papers disagree on; the mechanism asks it at
//! three points only:
//!
//! 1. **A DRAM miss on a page the SSD holds** ([`Scheme::ssd_hit`]): serve
//!    the request on the SSD (HyPro without elevation) or bring the page
//!    into DRAM, keeping the SSD copy (TAC, FaCE, LC: inclusive) or taking
//!    it (HyPro: exclusive).
//! 2. **A page read from the disk into DRAM** ([`Scheme::hdd_loaded`]):
//!    TAC admits it to the SSD if its extent is warm enough.
//! 3. **A page leaving DRAM** ([`Scheme::dram_evicted`], with the
//!    [`Reason`]): HyPro sinks it with `p_sink` (always on elevation, the
//!    swap of Algorithm 1 line 6), TAC writes a dirty page through, FaCE
//!    appends a version to its log, LC writes it back to the SSD and runs
//!    its cleaner (the SSD's dirty count rises only here).
//!
//! The SSD level of HyPro and LC drives a [`crate::policy::Policy`] ([`PolicyLevel`], any
//! online policy: the scheme's `level` key); TAC's is ordered by extent
//! temperature and FaCE's is its multi-version FIFO log, since those orders
//! are what the two papers propose. Every SSD copy has a slot, so the same
//! decisions drive real devices (the slot is where the bytes go).
//!
//! # Request model
//!
//! As in HyPro's Algorithm 1 (lines 7, 9 and 14), a write request carries
//! the whole page: a write that misses DRAM reads nothing ("just write to
//! main memory"), and a write served on the SSD costs one SSD write. A
//! read miss reads the page from the SSD if it is there, else from the
//! disk. Pages leave DRAM only by eviction; dirty pages left at the end of
//! a run are counted, not written (`dirty_at_end`).
//!
//! # Counting
//!
//! [`TierStats`] counts requests per level (DRAM hits, SSD hits, disk
//! misses) and page movements (`elevations`: pages brought from the SSD
//! into DRAM; `sinks`: pages written from DRAM to the SSD); [`Counting`]
//! counts each device's reads and writes and the `cleanings` (dirty SSD
//! pages copied to the disk). The total I/O time prices each device's operations by
//! its [`DeviceModel`]; DRAM costs nothing.

mod data;
mod face;
mod hypro;
mod lc;
mod level;
mod spec;
mod store;
mod tac;

pub use data::{TieredStore, SLOT_HEADER};
pub use face::Face;
pub use hypro::{Hypro, Prob, DEFAULT_P_ELEVATE, DEFAULT_P_SINK};
pub use lc::Lc;
pub use level::PolicyLevel;
pub use spec::{AnyScheme, SchemeKind, SchemeSpec, SCHEMES};
pub use store::{LevelCounts, SsdTier};
pub use tac::Tac;

use crate::device::DeviceModel;
use crate::error::Result;
use crate::types::{DenseId, Op};

/// The policy DRAM runs over a tier when a caller names none: LRU, as in
/// HyPro's experiments (§3: "LRU is adopted in our experiments for main
/// memory"), and the one [`TieredStore`] runs.
pub const DEFAULT_DRAM_POLICY: &str = "lru";

/// No slot, no page.
pub(crate) const NIL: u32 = u32::MAX;

/// Where the mechanism's page movements go. Every call names the page and,
/// for the SSD, its slot. [`Counting`] only counts (simulation); a data
/// backend moves the bytes as well.
pub trait Io {
    /// The page is read from the disk into DRAM.
    fn hdd_read(&mut self, page: DenseId) -> Result<()>;
    /// The page is written from DRAM to the disk.
    fn hdd_write(&mut self, page: DenseId) -> Result<()>;
    /// The page is read from SSD `slot` into DRAM.
    fn ssd_read(&mut self, page: DenseId, slot: u32) -> Result<()>;
    /// The page is written from DRAM to SSD `slot`; `dirty`: newer than the
    /// disk's copy; `sequential`: the next slot of a log (priced at the
    /// SSD's sequential write cost).
    fn ssd_write(&mut self, page: DenseId, slot: u32, dirty: bool, sequential: bool) -> Result<()>;
    /// A request served on the SSD itself (HyPro without elevation): a read
    /// or a write of the page in `slot`.
    fn ssd_serve(&mut self, page: DenseId, slot: u32, op: Op) -> Result<()>;
    /// The page in SSD `slot` is copied to the disk (cleaning, or a dirty
    /// page leaving the SSD).
    fn ssd_to_hdd(&mut self, page: DenseId, slot: u32) -> Result<()>;
    /// The page in SSD slot `from` is copied to slot `to` (FaCE's second
    /// chance), appended to a log.
    fn ssd_move(&mut self, page: DenseId, from: u32, to: u32) -> Result<()>;
    /// Everything written to the SSD so far must be durable before a slot
    /// freed from now on is overwritten (a slot holding a superseded
    /// version may be reused only once its successor is safe). Default:
    /// nothing (simulation: no crash to survive).
    #[inline]
    fn barrier(&mut self) -> Result<()> {
        Ok(())
    }
    /// SSD `slot` holds an old version of a page that has left the SSD:
    /// it must never be taken for current. Default: nothing (simulation;
    /// a data backend overwrites the slot's header).
    #[inline]
    fn ssd_invalidate(&mut self, slot: u32) -> Result<()> {
        let _ = slot;
        Ok(())
    }
    /// The page left DRAM and its scheme has done with it: its frame is
    /// free. Default: nothing (no bytes to drop).
    #[inline]
    fn dram_dropped(&mut self, page: DenseId) {
        let _ = page;
    }
    /// Dense id `page` names page `number` (told once, when the store first
    /// meets the page). Default: nothing (simulation names no bytes).
    fn named(&mut self, page: DenseId, number: crate::types::PageId) {
        let _ = (page, number);
    }
    /// Makes everything written so far durable on both devices. Default:
    /// nothing (simulation).
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    /// Each device's operations so far.
    fn counts(&self) -> IoCounts;
}

/// Each device's operations, as [`Counting`] counts them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IoCounts {
    /// SSD page reads.
    pub ssd_reads: u64,
    /// SSD page writes (sequential ones included).
    pub ssd_writes: u64,
    /// Of `ssd_writes`, appends to a log, priced as sequential.
    pub ssd_seq_writes: u64,
    /// Disk page reads.
    pub hdd_reads: u64,
    /// Disk page writes.
    pub hdd_writes: u64,
    /// Dirty SSD pages copied to the disk (a cleaner, or a dirty page
    /// leaving the SSD); each is one SSD read and one disk write above.
    pub cleanings: u64,
}

impl IoCounts {
    /// Σ operations × their prices: `(ssd, hdd)` time.
    pub fn time(&self, ssd: &DeviceModel, hdd: &DeviceModel) -> (f64, f64) {
        let random = self.ssd_writes - self.ssd_seq_writes;
        let s = self.ssd_reads as f64 * ssd.read
            + random as f64 * ssd.write
            + self.ssd_seq_writes as f64 * ssd.seq_write;
        let h = self.hdd_reads as f64 * hdd.read + self.hdd_writes as f64 * hdd.write;
        (s, h)
    }
}

/// The simulation [`Io`]: counts each device's operations, moves nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counting(pub IoCounts);

impl Io for Counting {
    fn counts(&self) -> IoCounts {
        self.0
    }
    #[inline]
    fn hdd_read(&mut self, _: DenseId) -> Result<()> {
        self.0.hdd_reads += 1;
        Ok(())
    }
    #[inline]
    fn hdd_write(&mut self, _: DenseId) -> Result<()> {
        self.0.hdd_writes += 1;
        Ok(())
    }
    #[inline]
    fn ssd_read(&mut self, _: DenseId, _: u32) -> Result<()> {
        self.0.ssd_reads += 1;
        Ok(())
    }
    #[inline]
    fn ssd_write(&mut self, _: DenseId, _: u32, _: bool, sequential: bool) -> Result<()> {
        self.0.ssd_writes += 1;
        self.0.ssd_seq_writes += u64::from(sequential);
        Ok(())
    }
    #[inline]
    fn ssd_serve(&mut self, _: DenseId, _: u32, op: Op) -> Result<()> {
        match op {
            Op::Read => self.0.ssd_reads += 1,
            Op::Write => self.0.ssd_writes += 1,
        }
        Ok(())
    }
    #[inline]
    fn ssd_to_hdd(&mut self, _: DenseId, _: u32) -> Result<()> {
        self.0.ssd_reads += 1;
        self.0.hdd_writes += 1;
        self.0.cleanings += 1;
        Ok(())
    }
    #[inline]
    fn ssd_move(&mut self, _: DenseId, _: u32, _: u32) -> Result<()> {
        self.0.ssd_reads += 1;
        self.0.ssd_writes += 1;
        self.0.ssd_seq_writes += 1;
        Ok(())
    }
}

/// Why a page leaves DRAM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// To make room for a page read from the disk (Algorithm 2).
    Miss,
    /// To make room for a page brought up from the SSD (Algorithm 1,
    /// line 5): HyPro puts it where the elevated page was.
    Elevation,
    /// A flush: the page stays in DRAM, clean, and its copy goes where its
    /// eviction would send it.
    Flush,
}

/// A page leaving DRAM, as a scheme hears of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leaving {
    /// The page.
    pub page: DenseId,
    /// Newer than every copy below it.
    pub dirty: bool,
    /// Why it leaves.
    pub why: Reason,
}

/// What a scheme does with a DRAM miss on a page the SSD holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Serve {
    /// The request was served on the SSD; DRAM is unchanged.
    OnSsd,
    /// The page comes into DRAM; `dirty`: the DRAM copy is newer than
    /// every copy below it (HyPro took a dirty page off the SSD).
    Load {
        /// Whether the page enters DRAM dirty.
        dirty: bool,
    },
}

/// The decisions of one hierarchy scheme, and its SSD level. See the module
/// docs for when the mechanism asks.
pub trait Scheme {
    /// Display name with parameters.
    fn name(&self) -> String;
    /// Whether the SSD holds a current copy of `page`.
    fn on_ssd(&self, page: DenseId) -> bool;
    /// A DRAM miss on a page the SSD holds. A scheme that loads the page
    /// reads it here (unless `op` is a write, which carries the page).
    fn ssd_hit(&mut self, page: DenseId, op: Op, io: &mut impl Io) -> Result<Serve>;
    /// `page` missed DRAM and the SSD and is now coming into DRAM: read
    /// from the disk for a read, carried by the request for a write.
    fn hdd_loaded(&mut self, page: DenseId, op: Op, io: &mut impl Io) -> Result<()> {
        let _ = (page, op, io);
        Ok(())
    }
    /// A page left DRAM. Returns whether it was written to the SSD.
    fn dram_evicted(&mut self, left: Leaving, io: &mut impl Io) -> Result<bool>;
    /// A request for `page` reached the DRAM level, before DRAM serves it
    /// (HyPro's tuning follows evicted pages by these). Called only when
    /// [`Scheme::watches_dram`].
    fn dram_request(&mut self, page: DenseId, op: Op) {
        let _ = (page, op);
    }
    /// Whether the scheme wants [`Scheme::dram_request`].
    fn watches_dram(&self) -> bool {
        false
    }
    /// Whether [`Scheme::ssd_hit`] may answer [`Serve::OnSsd`]. Default:
    /// `false`.
    fn serves_on_ssd(&self) -> bool {
        false
    }
    /// A hint that `page` will reach the scheme soon (a coming request, or
    /// DRAM's coming victim): start loading its per-page state. Must not
    /// change anything. Default: nothing.
    #[inline]
    fn prefetch(&self, page: DenseId) {
        let _ = page;
    }
    /// Pages on the SSD, and how many of them are dirty.
    fn ssd_pages(&self) -> (u64, u64);
    /// Rebuilds the SSD level after a crash from the current version of
    /// every page found on the SSD, oldest first. Default: refused, for a
    /// scheme whose SSD holds no page the disk lacks.
    fn restore(&mut self, found: &[Found]) -> Result<()> {
        let _ = found;
        Err(crate::Error::invalid(format!(
            "{}: its SSD level cannot be rebuilt after a crash (crash recovery is built for face and lc, \
             whose dirty pages live on the SSD)",
            self.name()
        )))
    }
    /// State variables for the time series (HyPro's probabilities).
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        let _ = out;
    }
}

/// A page's current version found on the SSD by a recovery scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// The page.
    pub page: DenseId,
    /// Its slot.
    pub slot: u32,
    /// Whether that version is newer than the disk's.
    pub dirty: bool,
}

/// The inclusive schemes' answer to an SSD hit (TAC, FaCE, LC): the page
/// is read into DRAM (unless the request writes it whole) and its SSD copy
/// stays.
#[inline]
pub(crate) fn load_keeping_copy(
    io: &mut impl Io,
    page: DenseId,
    slot: u32,
    op: Op,
) -> Result<Serve> {
    if op == Op::Read {
        io.ssd_read(page, slot)?;
    }
    Ok(Serve::Load { dirty: false })
}

/// What a DRAM buffer over an [`SsdTier`] counted: the driver's requests
/// and hits with the tier's levels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierStats {
    /// Requests served.
    pub requests: u64,
    /// Of them, writes.
    pub writes: u64,
    /// Requests that found their page in DRAM.
    pub dram_hits: u64,
    /// Requests that missed DRAM and found the page on the SSD.
    pub ssd_hits: u64,
    /// Requests that went to the disk.
    pub hdd_misses: u64,
    /// Pages brought from the SSD into DRAM.
    pub elevations: u64,
    /// Pages written from DRAM to the SSD.
    pub sinks: u64,
    /// DRAM victims that were dirty.
    pub dirty_evictions: u64,
}

impl TierStats {
    /// The counts of a run: `m` the DRAM buffer's metrics, `c` the tier's.
    pub fn of(m: &crate::types::Metrics, c: LevelCounts) -> Self {
        TierStats {
            requests: m.requests,
            writes: m.writes,
            dram_hits: m.hits,
            ssd_hits: c.ssd_hits,
            hdd_misses: c.hdd_misses,
            elevations: c.elevations,
            sinks: c.sinks,
            dirty_evictions: m.dirty_evictions,
        }
    }
}

/// Page → SSD slot, with the free slots. Slots are handed out lowest
/// first, and a slot freed by an eviction is taken by the page that caused
/// it, so no slot keeps a stale copy for long.
#[derive(Clone, Debug)]
pub(crate) struct Slots {
    of: Vec<u32>,
    free: Vec<u32>,
    capacity: usize,
}

impl Slots {
    pub(crate) fn new(capacity: usize, pages: usize) -> Self {
        Slots {
            of: vec![NIL; pages],
            free: (0..capacity as u32).rev().collect(),
            capacity,
        }
    }

    #[inline]
    pub(crate) fn prefetch(&self, page: DenseId) {
        if let Some(s) = self.of.get(page as usize) {
            crate::types::prefetch(s);
        }
    }

    #[inline]
    pub(crate) fn get(&self, page: DenseId) -> u32 {
        self.of.get(page as usize).copied().unwrap_or(NIL)
    }

    #[inline]
    pub(crate) fn take(&mut self, page: DenseId) -> u32 {
        let slot = self.free.pop().expect("a free SSD slot");
        let i = page as usize;
        if i >= self.of.len() {
            self.of.resize(i + 1, NIL);
        }
        self.of[i] = slot;
        slot
    }

    /// Takes a free slot for no page (a spare).
    pub(crate) fn take_free(&mut self) -> u32 {
        self.free.pop().expect("a free SSD slot")
    }

    /// Points `page` at `slot` (not from the free list); returns its old slot.
    #[inline]
    pub(crate) fn set(&mut self, page: DenseId, slot: u32) -> u32 {
        std::mem::replace(&mut self.of[page as usize], slot)
    }

    /// Rebuilds the map from `(page, slot)` pairs found on the SSD; every
    /// other slot is free.
    pub(crate) fn restore(&mut self, taken: &[(DenseId, u32)]) {
        let mut used = vec![false; self.capacity];
        self.of.fill(NIL);
        for &(page, slot) in taken {
            let i = page as usize;
            if i >= self.of.len() {
                self.of.resize(i + 1, NIL);
            }
            self.of[i] = slot;
            used[slot as usize] = true;
        }
        self.free = (0..self.capacity as u32)
            .rev()
            .filter(|&s| !used[s as usize])
            .collect();
    }

    #[inline]
    pub(crate) fn release(&mut self, page: DenseId) -> u32 {
        let slot = std::mem::replace(&mut self.of[page as usize], NIL);
        debug_assert_ne!(slot, NIL, "page {page} has no slot");
        self.free.push(slot);
        slot
    }
}
