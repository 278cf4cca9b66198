//! The levels below DRAM as one page store: an SSD cache whose decisions
//! are a [`Scheme`]'s, over a disk, moving pages through an [`Io`].
//!
//! DRAM is the buffer above the store, driven by any policy through the
//! one calling protocol ([`crate::drive::Driver`]), so a policy decides
//! the same on a tier as on every other store: it clusters write-backs,
//! learns page numbers, is told each I/O's cost. The store answers the
//! protocol's calls with the scheme's three decisions (module docs of
//! [`super`]):
//!
//! - [`PageStore::load`], a DRAM miss: a page the SSD holds goes to
//!   [`Scheme::ssd_hit`] (HyPro may serve the request on the SSD,
//!   [`Loaded::Served`], or elevate a dirty page, which enters DRAM dirty);
//!   another page is read from the disk (a write miss reads nothing: the
//!   request carries the whole page, HyPro Algorithm 1 lines 7, 9, 14).
//! - [`PageStore::evicting`] and the write-back that follows: a page
//!   leaving DRAM goes to [`Scheme::dram_evicted`] with the [`Reason`] of
//!   the miss that evicts it; a clean one is handed over at once, a dirty
//!   one when the driver writes it. Pages written in the same batch that
//!   stay in DRAM (write clustering, a checkpoint) go down as a flush
//!   ([`Reason::Flush`]: stay in DRAM, clean; the copy goes where an
//!   eviction would send it).
//! - [`PageStore::admitted`], a page read from the disk now in DRAM:
//!   [`Scheme::hdd_loaded`] (TAC's admission), after DRAM made room, as
//!   the papers order it.
//!
//! Pages are named by their numbers above the store and by dense ids in the
//! schemes' per-page vectors: [`SsdTier::numbered`] gives a trace's dense
//! ids up front (the schemes are sized for them), other pages get the next
//! id when first seen.

use super::{Counting, Io, Leaving, Reason, Scheme, Serve, NIL};
use crate::device::DeviceModel;
use crate::error::Result;
use crate::store::index::PageIndex;
use crate::store::{DeviceStats, IoStats, Listens, Loaded, Naming, PageStore};
use crate::types::{DenseId, Op, PageCost, PageId};

/// What an [`SsdTier`] counted, beyond its devices' operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelCounts {
    /// DRAM misses that found the page on the SSD.
    pub ssd_hits: u64,
    /// DRAM misses that went to the disk.
    pub hdd_misses: u64,
    /// Pages brought from the SSD into DRAM.
    pub elevations: u64,
    /// Pages written from DRAM to the SSD.
    pub sinks: u64,
}

/// An SSD cache managed by scheme `S` over a disk, below a DRAM buffer,
/// moving pages through `I` ([`Counting`] in simulation). See the module
/// docs.
pub struct SsdTier<S: Scheme, I: Io = Counting> {
    scheme: S,
    io: I,
    index: PageIndex,
    pages: DenseId,
    /// Pages are named by the caller's dense ids ([`SsdTier::dense_ids`]).
    dense_ids: bool,
    ssd: DeviceModel,
    hdd: DeviceModel,
    cost: PageCost,
    counts: LevelCounts,
    /// Why the coming eviction happens: set by the miss's load.
    why: Reason,
    /// A dirty page leaving DRAM, handed over at its write-back.
    leaving: DenseId,
    /// A page read from the disk, told to the scheme once admitted.
    loading: DenseId,
    watches: bool,
}

impl<S: Scheme, I: Io> std::fmt::Debug for SsdTier<S, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsdTier")
            .field("scheme", &self.scheme.name())
            .field("counts", &self.counts)
            .finish()
    }
}

impl<S: Scheme, I: Io> SsdTier<S, I> {
    /// The SSD level of `scheme` on device `ssd` over the disk `hdd`, moving
    /// pages through `io`. DRAM's policy prices every page at the disk's
    /// read and write (what a miss and a write-back cost where no SSD
    /// helps).
    pub fn new(scheme: S, io: I, ssd: &DeviceModel, hdd: &DeviceModel) -> Self {
        SsdTier {
            watches: scheme.watches_dram(),
            scheme,
            io,
            index: PageIndex::new(),
            pages: 0,
            dense_ids: false,
            ssd: ssd.clone(),
            hdd: hdd.clone(),
            cost: PageCost::new(hdd.read, hdd.write),
            counts: LevelCounts::default(),
            why: Reason::Miss,
            leaving: NIL,
            loading: NIL,
        }
    }

    /// Gives the pages `numbers` names, in order, dense ids from the next
    /// one (a trace's dense ids, for which the scheme was sized).
    pub fn numbered(mut self, numbers: impl IntoIterator<Item = PageId>) -> Self {
        for n in numbers {
            self.dense(n);
        }
        self
    }

    /// Pages are named by the caller's dense ids `0..pages` (a trace
    /// replay's, for which the scheme was sized), not by numbers: the
    /// store asks its caller for no numbers ([`Naming::Dense`]) and looks
    /// none up.
    pub fn dense_ids(mut self, pages: DenseId) -> Self {
        self.dense_ids = true;
        self.pages = pages;
        self
    }

    /// The dense id of page `number`, given the next one if new.
    #[inline]
    pub fn dense(&mut self, number: PageId) -> DenseId {
        if self.dense_ids {
            return number as DenseId;
        }
        if let Some(d) = self.index.get(number) {
            return d;
        }
        let d = self.pages;
        self.pages += 1;
        self.index.insert(number, d);
        self.io.named(d, number);
        d
    }

    /// The scheme (and its SSD level).
    pub fn scheme(&self) -> &S {
        &self.scheme
    }

    /// The scheme, for a caller restoring its SSD level after a crash.
    pub fn scheme_mut(&mut self) -> &mut S {
        &mut self.scheme
    }

    /// The I/O backend.
    pub fn io(&self) -> &I {
        &self.io
    }

    /// The I/O backend, for a caller that moves bytes.
    pub fn io_mut(&mut self) -> &mut I {
        &mut self.io
    }

    /// The I/O backend back.
    pub fn into_io(self) -> I {
        self.io
    }

    /// Requests per level and page movements so far.
    pub fn counts(&self) -> LevelCounts {
        self.counts
    }

    /// SSD and disk time so far: each device's operations × its prices.
    pub fn times(&self) -> (f64, f64) {
        self.io.counts().time(&self.ssd, &self.hdd)
    }

    /// A page leaves DRAM (`dirty`: newer than every copy below).
    #[inline]
    fn leave(&mut self, page: DenseId, dirty: bool, why: Reason) -> Result<()> {
        let sunk = self
            .scheme
            .dram_evicted(Leaving { page, dirty, why }, &mut self.io)?;
        self.counts.sinks += u64::from(sunk);
        if why != Reason::Flush {
            self.io.dram_dropped(page);
        }
        Ok(())
    }

    /// A dirty page written down: the victim leaves, any other page of the
    /// batch stays in DRAM, clean.
    #[inline]
    fn written(&mut self, number: PageId) -> Result<()> {
        let d = self.dense(number);
        if d == self.leaving {
            self.leaving = NIL;
            let why = std::mem::replace(&mut self.why, Reason::Miss);
            self.leave(d, true, why)
        } else {
            self.leave(d, true, Reason::Flush)
        }
    }
}

impl<S: Scheme, I: Io> PageStore for SsdTier<S, I> {
    /// 0: the bytes move through the [`Io`].
    fn page_size(&self) -> usize {
        0
    }

    fn read(&mut self, page: PageId, buf: &mut [u8]) -> Result<()> {
        self.load(page, Op::Read, buf).map(|_| ())
    }

    #[inline]
    fn load(&mut self, page: PageId, op: Op, _buf: &mut [u8]) -> Result<Loaded> {
        let d = self.dense(page);
        if self.scheme.on_ssd(d) {
            self.counts.ssd_hits += 1;
            return Ok(match self.scheme.ssd_hit(d, op, &mut self.io)? {
                Serve::OnSsd => Loaded::Served,
                Serve::Load { dirty } => {
                    self.counts.elevations += 1;
                    self.why = Reason::Elevation;
                    Loaded::Page { dirty }
                }
            });
        }
        self.counts.hdd_misses += 1;
        self.why = Reason::Miss;
        if op == Op::Read {
            self.io.hdd_read(d)?;
        }
        self.loading = d;
        Ok(Loaded::Page { dirty: false })
    }

    fn serves_in_place(&self) -> bool {
        self.scheme.serves_on_ssd()
    }

    #[inline]
    fn admitted(&mut self, _page: PageId, op: Op) -> Result<()> {
        let d = std::mem::replace(&mut self.loading, NIL);
        if d != NIL {
            self.scheme.hdd_loaded(d, op, &mut self.io)?;
        }
        Ok(())
    }

    #[inline]
    fn write(&mut self, page: PageId, _buf: &[u8]) -> Result<()> {
        self.written(page)
    }

    fn write_batch(&mut self, batch: &[(PageId, &[u8])]) -> Result<()> {
        for &(page, _) in batch {
            self.written(page)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.io.sync()
    }

    #[inline]
    fn cost_of(&self, _page: PageId) -> PageCost {
        self.cost
    }

    fn stats(&self) -> IoStats {
        let c = self.io.counts();
        let (s, h) = self.times();
        IoStats {
            reads: c.ssd_reads + c.hdd_reads,
            writes: c.ssd_writes + c.hdd_writes,
            seq_reads: 0,
            seq_writes: c.ssd_seq_writes,
            erases: 0,
            migrations: 0,
            virtual_time: s + h,
        }
    }

    /// The SSD, then the disk.
    fn device_stats(&self, out: &mut Vec<DeviceStats>) {
        let c = self.io.counts();
        let (s, h) = self.times();
        out.push(DeviceStats {
            name: self.ssd.name.clone(),
            io: IoStats {
                reads: c.ssd_reads,
                writes: c.ssd_writes,
                seq_writes: c.ssd_seq_writes,
                virtual_time: s,
                ..IoStats::default()
            },
            pages: Some(self.scheme.ssd_pages().0),
        });
        out.push(DeviceStats {
            name: self.hdd.name.clone(),
            io: IoStats {
                reads: c.hdd_reads,
                writes: c.hdd_writes,
                virtual_time: h,
                ..IoStats::default()
            },
            pages: None,
        });
    }

    fn listens(&self) -> Listens {
        Listens {
            accesses: self.watches,
            next_victim: false,
            evictions: true,
        }
    }

    #[inline]
    fn accessed(&mut self, page: PageId, op: Op, _at_victim: bool) {
        let d = self.dense(page);
        self.scheme.dram_request(d, op);
    }

    #[inline]
    fn evicting(&mut self, page: PageId, dirty: bool) -> Result<bool> {
        let d = self.dense(page);
        if dirty {
            self.leaving = d;
            return Ok(true);
        }
        let why = std::mem::replace(&mut self.why, Reason::Miss);
        self.leave(d, false, why)?;
        Ok(false)
    }

    #[inline]
    fn prefetch_index(&self, page: PageId) {
        if !self.dense_ids {
            self.index.prefetch(page);
        }
    }

    #[inline(always)]
    fn prefetch_state(&self, page: PageId) {
        let d = if self.dense_ids {
            Some(page as DenseId)
        } else {
            self.index.peek(page)
        };
        if let Some(d) = d {
            self.scheme.prefetch(d);
        }
    }

    #[inline]
    fn naming(&self) -> Naming {
        if self.dense_ids {
            Naming::Dense
        } else {
            Naming::Numbers
        }
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        self.scheme.state(out);
    }
}
