//! The hierarchy on real devices ([`TieredStore`]): pages with bytes in
//! DRAM frames under any policy (LRU unless one is given), over an SSD of
//! self-describing slots, over a disk, for the schemes whose dirty pages
//! live on the SSD (FaCE and lazy cleaning).
//!
//! # Slots
//!
//! SSD slot `s` starts at byte `s × slot_bytes` (the header and a page,
//! rounded up to whole 512-byte sectors). Its header ([`SLOT_HEADER`]
//! bytes): a magic number, a flags word (bit 0: the version is newer than
//! the disk's), the page number, a sequence number given to every version
//! written, and a CRC-32 over the header and the page. A slot whose CRC
//! fails (never written, torn by a crash, invalidated) holds nothing.
//!
//! # Recovery (FaCE's, §4 of its paper)
//!
//! [`TieredStore::open`] reads every slot; for each page the valid version
//! with the highest sequence number is current, and the scheme rebuilds its
//! SSD level from those, oldest first ([`super::Scheme::restore`]). Nothing
//! is written.
//!
//! # What makes it safe
//!
//! A page flushed ([`TieredStore::flush`]: every dirty DRAM page written
//! where its eviction would send it, then both devices synced) is found
//! after any crash with its flushed bytes, or with a version written after
//! the flush. The schemes keep three rules, each where it matters:
//!
//! 1. A version is copied to the disk only once it is durable on the SSD
//!    (a torn disk write then has the SSD copy to fall back on), and a
//!    dirty version leaves the SSD only after the disk has it and is
//!    synced ([`super::Io::ssd_to_hdd`] syncs before and after).
//! 2. A slot holding a superseded version is overwritten only after its
//!    successor is durable ([`super::Io::barrier`]: FaCE before reusing a
//!    group, lazy cleaning before writing its spare slot).
//! 3. No update overwrites the slot of the version it replaces (FaCE
//!    appends; lazy cleaning writes to a spare slot), and an old version
//!    left behind by a page that leaves the SSD is invalidated first
//!    ([`super::Io::ssd_invalidate`]), so a stale version is never taken
//!    for current.
//!
//! These syncs and invalidations exist only here: the simulation prices
//! page reads and writes, not syncs.

use super::{
    AnyScheme, Counting, Found, Io, IoCounts, Scheme, SchemeKind, SchemeSpec, SsdTier, TierStats,
};
use crate::device::DeviceModel;
use crate::drive::{Driver, NoFrames};
use crate::error::{Error, Result};
use crate::policy::{Lru, Policy};
use crate::store::{Disk, PageStore, SECTOR};
use crate::types::{DenseId, Op, PageId};
use rustc_hash::FxHashMap;

/// Bytes of a slot's header.
pub const SLOT_HEADER: usize = 32;
const MAGIC: u32 = 0x464C_5443; // "FLTC"
const DIRTY: u32 = 1;

/// The [`Io`] that moves bytes: DRAM frames, SSD slots, disk pages.
#[derive(Debug)]
pub struct DataIo<D: Disk, H: PageStore> {
    ssd: D,
    hdd: H,
    page_size: usize,
    slot_bytes: u64,
    frames: Vec<Option<Box<[u8]>>>,
    numbers: Vec<PageId>,
    seq: u64,
    request: Vec<u8>,
    slot: Vec<u8>,
    unsynced: bool,
    counts: Counting,
}

struct Header {
    dirty: bool,
    page: PageId,
    seq: u64,
}

impl<D: Disk, H: PageStore> DataIo<D, H> {
    fn offset(&self, slot: u32) -> u64 {
        u64::from(slot) * self.slot_bytes
    }

    fn frame(&self, page: DenseId) -> Result<&[u8]> {
        self.frames
            .get(page as usize)
            .and_then(|f| f.as_deref())
            .ok_or_else(|| {
                Error::invalid(format!(
                    "page {} has no DRAM frame",
                    self.numbers[page as usize]
                ))
            })
    }

    fn put_frame(&mut self, page: DenseId, bytes: &[u8]) {
        let i = page as usize;
        if i >= self.frames.len() {
            self.frames.resize_with(i + 1, || None);
        }
        match &mut self.frames[i] {
            Some(f) => f.copy_from_slice(bytes),
            f => *f = Some(bytes.into()),
        }
    }

    /// Reads slot `slot` into `self.slot`; its header if valid.
    fn read_slot(&mut self, slot: u32) -> Result<Option<Header>> {
        let off = self.offset(slot);
        self.ssd.read_at(&mut self.slot, off)?;
        Ok(decode(&self.slot, self.page_size))
    }

    /// Reads the version of `page` in `slot`, checked.
    fn read_version(&mut self, page: DenseId, slot: u32) -> Result<bool> {
        let number = self.numbers[page as usize];
        match self.read_slot(slot)? {
            Some(h) if h.page == number => Ok(h.dirty),
            _ => Err(Error::Corrupt {
                path: "SSD".into(),
                msg: format!("slot {slot} does not hold a valid version of page {number}"),
            }),
        }
    }

    /// Writes the page in the slot buffer to `slot` as a new version.
    fn write_slot(&mut self, slot: u32, page: PageId, dirty: bool) -> Result<()> {
        self.seq += 1;
        let h = Header {
            dirty,
            page,
            seq: self.seq,
        };
        encode(&mut self.slot, &h, self.page_size);
        let off = self.offset(slot);
        self.ssd.write_at(&self.slot, off)?;
        self.unsynced = true;
        Ok(())
    }

    fn fill_slot(&mut self, bytes_of: Source) -> Result<()> {
        let ps = self.page_size;
        let body = &mut self.slot[SLOT_HEADER..];
        match bytes_of {
            Source::Frame(page) => {
                let f = self
                    .frames
                    .get(page as usize)
                    .and_then(|f| f.as_deref())
                    .ok_or_else(|| Error::invalid("a page written to the SSD has no DRAM frame"))?;
                body[..ps].copy_from_slice(f);
            }
            Source::Request => body[..ps].copy_from_slice(&self.request),
            Source::Slot => {}
        }
        Ok(())
    }
}

enum Source {
    Frame(DenseId),
    Request,
    Slot,
}

fn encode(buf: &mut [u8], h: &Header, page_size: usize) {
    buf[0..4].copy_from_slice(&MAGIC.to_le_bytes());
    buf[4..8].copy_from_slice(&(if h.dirty { DIRTY } else { 0 }).to_le_bytes());
    buf[8..16].copy_from_slice(&h.page.to_le_bytes());
    buf[16..24].copy_from_slice(&h.seq.to_le_bytes());
    buf[28..SLOT_HEADER].fill(0);
    let crc = checksum(buf, page_size);
    buf[24..28].copy_from_slice(&crc.to_le_bytes());
}

fn checksum(buf: &[u8], page_size: usize) -> u32 {
    let mut c = crc32fast::Hasher::new();
    c.update(&buf[0..24]);
    c.update(&buf[SLOT_HEADER..SLOT_HEADER + page_size]);
    c.finalize()
}

fn decode(buf: &[u8], page_size: usize) -> Option<Header> {
    let word = |r: std::ops::Range<usize>| u32::from_le_bytes(buf[r].try_into().expect("4 bytes"));
    let long = |r: std::ops::Range<usize>| u64::from_le_bytes(buf[r].try_into().expect("8 bytes"));
    if word(0..4) != MAGIC || word(24..28) != checksum(buf, page_size) {
        return None;
    }
    Some(Header {
        dirty: word(4..8) & DIRTY != 0,
        page: long(8..16),
        seq: long(16..24),
    })
}

impl<D: Disk, H: PageStore> Io for DataIo<D, H> {
    fn hdd_read(&mut self, page: DenseId) -> Result<()> {
        self.counts.hdd_read(page)?;
        let mut buf = vec![0u8; self.page_size];
        self.hdd.read(self.numbers[page as usize], &mut buf)?;
        self.put_frame(page, &buf);
        Ok(())
    }
    fn hdd_write(&mut self, page: DenseId) -> Result<()> {
        self.counts.hdd_write(page)?;
        let number = self.numbers[page as usize];
        let frame = self.frame(page)?.to_vec();
        self.hdd.write(number, &frame)
    }
    fn ssd_read(&mut self, page: DenseId, slot: u32) -> Result<()> {
        self.counts.ssd_read(page, slot)?;
        self.read_version(page, slot)?;
        let data = self.slot[SLOT_HEADER..SLOT_HEADER + self.page_size].to_vec();
        self.put_frame(page, &data);
        Ok(())
    }
    fn ssd_write(&mut self, page: DenseId, slot: u32, dirty: bool, sequential: bool) -> Result<()> {
        self.counts.ssd_write(page, slot, dirty, sequential)?;
        self.fill_slot(Source::Frame(page))?;
        self.write_slot(slot, self.numbers[page as usize], dirty)
    }
    fn ssd_serve(&mut self, page: DenseId, slot: u32, op: Op) -> Result<()> {
        self.counts.ssd_serve(page, slot, op)?;
        match op {
            Op::Read => {
                self.read_version(page, slot)?;
                self.request
                    .copy_from_slice(&self.slot[SLOT_HEADER..SLOT_HEADER + self.page_size]);
                Ok(())
            }
            Op::Write => {
                self.fill_slot(Source::Request)?;
                self.write_slot(slot, self.numbers[page as usize], true)
            }
        }
    }
    fn ssd_to_hdd(&mut self, page: DenseId, slot: u32) -> Result<()> {
        self.counts.ssd_to_hdd(page, slot)?;
        // The disk write replaces the disk's copy and may tear: the SSD's
        // copy must be durable first, to be found instead.
        self.barrier()?;
        self.read_version(page, slot)?;
        let data = self.slot[SLOT_HEADER..SLOT_HEADER + self.page_size].to_vec();
        self.hdd.write(self.numbers[page as usize], &data)?;
        self.hdd.flush()
    }
    fn ssd_move(&mut self, page: DenseId, from: u32, to: u32) -> Result<()> {
        self.counts.ssd_move(page, from, to)?;
        let dirty = self.read_version(page, from)?;
        self.fill_slot(Source::Slot)?;
        self.write_slot(to, self.numbers[page as usize], dirty)
    }
    fn barrier(&mut self) -> Result<()> {
        if self.unsynced {
            self.ssd.sync()?;
            self.unsynced = false;
        }
        Ok(())
    }
    fn ssd_invalidate(&mut self, slot: u32) -> Result<()> {
        // The header lies in the slot's first sector, which a crash keeps
        // or drops whole.
        let zero = [0u8; SECTOR];
        let off = self.offset(slot);
        self.ssd.write_at(&zero, off)?;
        self.ssd.sync()?;
        self.unsynced = false;
        Ok(())
    }
    fn dram_dropped(&mut self, page: DenseId) {
        if let Some(f) = self.frames.get_mut(page as usize) {
            *f = None;
        }
    }
    fn named(&mut self, page: DenseId, number: PageId) {
        debug_assert_eq!(page as usize, self.numbers.len());
        self.numbers.push(number);
    }
    fn sync(&mut self) -> Result<()> {
        self.ssd.sync()?;
        self.unsynced = false;
        self.hdd.flush()
    }
    fn counts(&self) -> IoCounts {
        self.counts.0
    }
}

/// DRAM (LRU) over an SSD cache managed by FaCE or lazy cleaning over a
/// disk, with bytes: the store a database would use. See the module docs.
/// DRAM is driven through the one calling protocol ([`Driver`]) over an
/// [`SsdTier`] whose [`Io`] moves the bytes.
///
/// After an error (a power cut, a failed device) the store refuses further
/// work: reopen it from its devices with [`TieredStore::open`].
#[derive(Debug)]
pub struct TieredStore<D: Disk, H: PageStore, P: Policy = Lru> {
    d: Driver<P, SsdTier<AnyScheme, DataIo<D, H>>>,
    frames: NoFrames<Vec<PageId>>,
    failed: bool,
}

impl<D: Disk, H: PageStore, P: Policy> TieredStore<D, H, P> {
    /// Opens the hierarchy: DRAM frames under `dram` (as many as its
    /// capacity, ≥ 1; `Lru::new(n)` for the schemes' papers' DRAM, or any
    /// policy, `boxed_online_policy` for one chosen by spec) over an SSD
    /// cache of `ssd_pages` slots (≥ 1) on `ssd` managed by `scheme` (FaCE
    /// or lazy cleaning) over `hdd`, whose page size is the store's.
    /// Whatever a previous run left on the SSD is recovered (module docs);
    /// `ssd_model` prices the scheme's bookkeeping as in the simulation.
    pub fn open(
        scheme: &SchemeSpec,
        dram: P,
        ssd_pages: usize,
        ssd: D,
        hdd: H,
        ssd_model: &DeviceModel,
        hdd_model: &DeviceModel,
    ) -> Result<Self> {
        if !matches!(scheme.kind, SchemeKind::Face { .. } | SchemeKind::Lc { .. }) {
            return Err(Error::invalid(format!(
                "a tiered store on real devices runs face or lc (the schemes whose dirty pages live on \
                 the SSD, rebuilt from it after a crash); '{}' is simulation only",
                scheme.text
            )));
        }
        if dram.capacity() == 0 {
            return Err(Error::invalid("DRAM must hold at least 1 page"));
        }
        let page_size = hdd.page_size();
        let slot_bytes = (SLOT_HEADER + page_size).div_ceil(SECTOR) * SECTOR;
        let built = scheme.build(ssd_pages, 0, |_| 0, ssd_model, hdd_model)?;
        let mut io = DataIo {
            ssd,
            hdd,
            page_size,
            slot_bytes: slot_bytes as u64,
            frames: Vec::new(),
            numbers: Vec::new(),
            seq: 0,
            request: vec![0; page_size],
            slot: vec![0; slot_bytes],
            unsynced: false,
            counts: Counting::default(),
        };
        let slots = io.ssd.len()? / slot_bytes as u64;
        // page number -> (seq, slot, dirty) of its newest valid version
        let mut newest: FxHashMap<PageId, (u64, u32, bool)> = FxHashMap::default();
        for slot in 0..slots.min(u64::from(u32::MAX)) as u32 {
            if let Some(h) = io.read_slot(slot)? {
                io.seq = io.seq.max(h.seq);
                let e = newest.entry(h.page).or_insert((h.seq, slot, h.dirty));
                if h.seq > e.0 {
                    *e = (h.seq, slot, h.dirty);
                }
            }
        }
        let mut found: Vec<(u64, PageId, u32, bool)> = newest
            .into_iter()
            .map(|(p, (q, s, d))| (q, p, s, d))
            .collect();
        found.sort_unstable();
        // FaCE's log has a slot a page; lazy cleaning's level one spare more.
        let physical = ssd_pages + usize::from(matches!(scheme.kind, SchemeKind::Lc { .. }));
        if let Some(&(_, _, slot, _)) = found.iter().find(|f| f.2 as usize >= physical) {
            return Err(Error::invalid(format!(
                "the SSD holds a page in slot {slot}, beyond an SSD cache of {ssd_pages} pages: open it \
                 with the size it was written with"
            )));
        }
        let mut tier = SsdTier::new(built, io, ssd_model, hdd_model);
        let mut numbers = Vec::with_capacity(found.len());
        let found: Vec<Found> = found
            .into_iter()
            .map(|(_, number, slot, dirty)| {
                numbers.push(number);
                Found {
                    page: tier.dense(number),
                    slot,
                    dirty,
                }
            })
            .collect();
        tier.scheme_mut().restore(&found)?;
        Ok(TieredStore {
            d: Driver::new(dram, tier)?,
            frames: NoFrames::new(numbers),
            failed: false,
        })
    }

    /// The dense id of `page`, named if new.
    fn dense(&mut self, page: PageId) -> DenseId {
        let d = self.d.store_mut().dense(page);
        let numbers = self.frames.numbers_mut();
        if d as usize == numbers.len() {
            numbers.push(page);
        }
        d
    }

    fn check(&self) -> Result<()> {
        if self.failed {
            return Err(Error::invalid(
                "the tiered store failed earlier (a power cut or a device error): reopen it",
            ));
        }
        Ok(())
    }

    fn guarded<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.check()?;
        let r = f(self);
        self.failed |= r.is_err();
        r
    }

    /// One request through the protocol.
    fn request(&mut self, d: DenseId, op: Op) -> Result<()> {
        self.d.request(d, op, &mut self.frames, 0).map(drop)
    }

    /// Page size in bytes.
    pub fn page_size(&self) -> usize {
        self.d.store().io().page_size
    }

    /// Reads `page` into `out` (a page never written reads as zeros).
    pub fn read(&mut self, page: PageId, out: &mut [u8]) -> Result<()> {
        crate::store::check_len(self.page_size(), out.len())?;
        self.guarded(|s| {
            let d = s.dense(page);
            s.request(d, Op::Read)?;
            let io = s.d.store().io();
            match io.frames.get(d as usize).and_then(|f| f.as_deref()) {
                Some(f) if s.d.policy().contains(d) => out.copy_from_slice(f),
                _ => out.copy_from_slice(&io.request),
            }
            Ok(())
        })
    }

    /// Writes the whole of `page`.
    pub fn write(&mut self, page: PageId, data: &[u8]) -> Result<()> {
        crate::store::check_len(self.page_size(), data.len())?;
        self.guarded(|s| {
            let d = s.dense(page);
            s.d.store_mut().io_mut().request.copy_from_slice(data);
            s.request(d, Op::Write)?;
            if s.d.policy().contains(d) {
                s.d.store_mut().io_mut().put_frame(d, data);
            }
            Ok(())
        })
    }

    /// Makes every write so far durable: dirty DRAM pages go down as their
    /// eviction would send them, then the SSD and the disk are synced.
    pub fn flush(&mut self) -> Result<()> {
        self.guarded(|s| {
            let n = s.frames.numbers_mut().len() as DenseId;
            let dirty: Vec<DenseId> = (0..n).filter(|&d| s.d.policy().is_dirty(d)).collect();
            s.d.write_dirty(&dirty, &mut s.frames)?;
            s.d.flush_store(&s.frames)
        })
    }

    /// Requests per level and page movements so far.
    pub fn stats(&self) -> TierStats {
        TierStats::of(&self.d.metrics(), self.d.store().counts())
    }

    /// Pages on the SSD, and dirty ones among them.
    pub fn ssd_pages(&self) -> (u64, u64) {
        self.d.store().scheme().ssd_pages()
    }
}
