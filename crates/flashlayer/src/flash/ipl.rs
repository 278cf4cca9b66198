//! In-page logging (Lee & Moon, SIGMOD 2007), as the PDL paper runs it
//! (§3, §5.1 and footnote 14).
//!
//! Each erase unit (a block) holds data pages followed by a log area of
//! `log_bytes` (`ipl:18k` is 9 log pages of 2 KiB in a 64-page block, 14.1%
//! of the chip as PDL §5.2 says; `ipl:64k` is 32, 50%). Logical page `p`
//! lives in unit `p / data_pages`, at data slot `p % data_pages`. An update
//! is a list of update logs, `<page, offset, length, bytes>` records; they
//! are collected into the page's in-memory log sector of `page_size / 16`
//! bytes (128 for 2 KiB pages; its last 20 bytes are the sector's
//! trailer), and each full sector, and the last one of a write, is
//! programmed into the next free sector of the unit's log area by a partial
//! program, as Lee & Moon write sectors. So a write of `b` bytes of logs
//! costs ⌈b / 108⌉ programs (the stepwise cost of PDL Fig. 9). On a chip
//! that allows fewer partial programs a page than it has sectors
//! (`data_programs`, 1 on PDL's MLC chip), a log page holds that many
//! sectors and the log area fills sooner. Reading a page reads its data
//! page and every programmed log page of its unit and applies the page's
//! records in order. When a write's sectors do not fit in the unit's free
//! log sectors, the unit is merged: every data page with its logs (and the
//! write being made) is programmed into a fresh block, and the old block is
//! erased.
//!
//! Where the update logs come from: [`crate::store::PageStore::write_changed`]
//! hands over the byte ranges the caller changed (the buffer pool's and
//! the simulator's byte ranges), one record per range, in the order made:
//! the layers stay one-way, the store is told and never asks. A plain
//! `write` carries no ranges; IPL then finds the changed bytes by reading
//! the page's current version and comparing, and those reads are counted.
//!
//! Crash safety, choices where Lee & Moon are silent: each log sector's
//! trailer carries its unit, the unit's merge generation, the write's time
//! stamp with a flag on the write's last sector, and a CRC-32; a write's
//! records apply only if its last sector is on the chip, so a cut between
//! sectors leaves the previous version. A merge writes the new block's
//! data pages under generation + 1 before erasing the old block; recovery
//! (one scan, writing nothing) takes for each unit the complete block of
//! the highest generation: a merged block with every data page intact, or
//! an unmerged one whose data pages are still erased. Every other
//! programmed block is erased before it is used again. `flush()` has
//! nothing to do: a write is on the chip when it returns.

use super::spare::{self, Header, IPL_DATA};
use super::FlashStats;
use crate::error::{Error, Result};
use crate::nand::{Chip, Geometry};

const NIL: u32 = u32::MAX;
/// A record's header: page, offset, length.
const RECORD_HEAD: usize = 8;
/// A log sector's trailer: unit, generation, time stamp, CRC-32.
const SECTOR_TAIL: usize = 20;
/// Set in a sector's time stamp on the last sector of a write.
const LAST: u64 = 1 << 63;

/// In-page logging.
#[derive(Debug)]
pub struct Ipl {
    pub(crate) logical: u32,
    pub(crate) stats: FlashStats,
    geo: Geometry,
    data_pages: u32,
    sector: usize,
    unit_block: Vec<u32>,
    generation: Vec<u32>,
    free: Vec<u32>,
    /// Programmed blocks no unit uses: erased before reuse.
    stale: Vec<u32>,
    clock: u64,
    page: Vec<u8>,
    spare: Vec<u8>,
    /// A unit's log pages, read once for a merge.
    logs: Vec<u8>,
    /// Of the loaded log sectors, those whole and of the unit's current
    /// generation: where each starts in `logs`, and its stamp.
    sealed: Vec<(usize, u64)>,
    /// Records of a write, packed into sectors: (start, end) per sector.
    records: Vec<u8>,
    sectors: Vec<(usize, usize)>,
    ranges: Vec<(u32, u32)>,
    runs: Vec<crate::types::ByteRange>,
    current: Vec<u8>,
}

impl Ipl {
    /// The most logical pages a chip of geometry `g` holds with `log_bytes`
    /// of log pages per unit: all units but one kept for merging.
    pub(crate) fn most_logical(g: Geometry, log_bytes: usize) -> u32 {
        let log_pages = (log_bytes / g.page_size.max(1)) as u32;
        g.blocks.saturating_sub(1) * g.pages_per_block.saturating_sub(log_pages)
    }

    pub(crate) fn open(
        chip: &mut Chip,
        logical: u32,
        log_bytes: usize,
        recover: bool,
    ) -> Result<Ipl> {
        let g = chip.geometry();
        let log_pages = log_bytes / g.page_size;
        if !log_bytes.is_multiple_of(g.page_size)
            || log_pages == 0
            || log_pages >= g.pages_per_block as usize
        {
            return Err(Error::invalid(format!(
                "IPL log area of {log_bytes} bytes: it must be a whole number of the chip's \
                 {}-byte pages, at least one and fewer than the {} pages of a block",
                g.page_size, g.pages_per_block
            )));
        }
        if g.page_size < 512 {
            return Err(Error::invalid(format!(
                "IPL needs pages of at least 512 bytes for its 16 log sectors a page (got {})",
                g.page_size
            )));
        }
        let data_pages = g.pages_per_block - log_pages as u32;
        let units = logical.div_ceil(data_pages);
        if units + 1 > g.blocks {
            return Err(Error::invalid(format!(
                "a chip of {} blocks is too small for {logical} logical pages under IPL with \
                 {log_bytes} log bytes per unit: it needs {} blocks ({units} units of \
                 {data_pages} data pages, and one for merging)",
                g.blocks,
                units + 1
            )));
        }
        let mut e = Ipl {
            logical,
            stats: FlashStats::default(),
            geo: g,
            data_pages,
            sector: g.page_size / 16,
            unit_block: vec![NIL; units as usize],
            generation: vec![0; units as usize],
            // Every block, until a recovery finds which hold data.
            free: (0..g.blocks).rev().collect(),
            stale: Vec::new(),
            clock: 0,
            page: vec![0; g.page_size],
            spare: vec![0; g.spare_size],
            logs: vec![0; log_pages * g.page_size],
            sealed: Vec::new(),
            records: Vec::with_capacity(g.page_size * 2),
            sectors: Vec::new(),
            ranges: Vec::new(),
            runs: Vec::new(),
            current: vec![0; g.page_size],
        };
        if recover {
            e.recover(chip)?;
        }
        Ok(e)
    }

    fn recover(&mut self, chip: &mut Chip) -> Result<()> {
        let g = self.geo;
        let dp = self.data_pages;
        self.free.clear();
        let units = self.unit_block.len() as u32;
        // Per unit: the best complete block and its generation.
        let mut best: Vec<Option<(u32, u32)>> = vec![None; units as usize];
        for b in 0..g.blocks {
            let n = chip.programmed_pages(b);
            if n == 0 {
                self.free.push(b);
                continue;
            }
            let mut unit_gen: Option<(u32, u32)> = None;
            let mut intact = 0;
            let mut erased = 0;
            for i in 0..n {
                chip.read(g.first_page(b) + i, &mut self.page, &mut self.spare)?;
                let decoded = spare::decode(&self.page, &self.spare);
                if i < dp {
                    if decoded.is_some_and(|(h, _)| h.kind == IPL_DATA) {
                        intact += 1;
                    } else if self.page.iter().chain(&self.spare).all(|&x| x == 0xFF) {
                        erased += 1;
                    }
                }
                if i >= dp {
                    for sector in self.page.chunks_exact(self.sector) {
                        if let Some((u, generation, stamp)) = unseal(sector) {
                            self.clock = self.clock.max(stamp & !LAST);
                            unit_gen.get_or_insert((u, generation));
                        }
                    }
                    continue;
                }
                if let Some((h, _)) = decoded {
                    if h.kind != IPL_DATA {
                        return Err(spare::foreign(g.first_page(b) + i, h.kind));
                    }
                    self.clock = self.clock.max(h.ts & !LAST);
                    unit_gen.get_or_insert((h.id, h.aux));
                }
            }
            let complete = match unit_gen {
                Some((u, generation)) if u < units => {
                    let data_state = if generation == 0 {
                        erased + (dp.saturating_sub(n)) == dp
                    } else {
                        intact == dp
                    };
                    data_state.then_some((u, generation))
                }
                Some((u, _)) => {
                    return Err(Error::invalid(format!(
                        "the chip holds IPL unit {u}, beyond the {units} of {} logical pages; \
                         recover with the logical_pages the store was created with",
                        self.logical
                    )))
                }
                None => None,
            };
            match complete {
                Some((u, generation)) => {
                    let slot = &mut best[u as usize];
                    match *slot {
                        Some((_, og)) if og >= generation => self.stale.push(b),
                        Some((old, _)) => {
                            self.stale.push(old);
                            *slot = Some((b, generation));
                        }
                        None => *slot = Some((b, generation)),
                    }
                }
                None => self.stale.push(b),
            }
        }
        for (u, s) in best.iter().enumerate() {
            if let Some((b, generation)) = *s {
                self.unit_block[u] = b;
                self.generation[u] = generation;
            }
        }
        self.free.reverse();
        Ok(())
    }

    /// An erased block, erasing a stale one if none is left.
    fn take_block(&mut self, chip: &mut Chip) -> Result<u32> {
        if let Some(b) = self.free.pop() {
            return Ok(b);
        }
        let b = self
            .stale
            .pop()
            .ok_or_else(|| Error::Store("IPL: no block left to merge into".into()))?;
        if let Err(e) = chip.erase(b) {
            self.stale.push(b);
            return Err(e);
        }
        Ok(b)
    }

    /// Reads the programmed log pages of `unit`'s block into `logs`, and
    /// lists its sectors that are whole and of the unit's generation.
    fn load_logs(&mut self, chip: &mut Chip, unit: u32) -> Result<()> {
        let g = self.geo;
        let dp = self.data_pages;
        let block = self.unit_block[unit as usize];
        let gen = self.generation[unit as usize];
        let n = chip.programmed_pages(block);
        self.sealed.clear();
        for i in dp..n {
            let k = (i - dp) as usize;
            let page = &mut self.logs[k * g.page_size..(k + 1) * g.page_size];
            chip.read(g.first_page(block) + i, page, &mut self.spare)?;
            for (j, sector) in page.chunks_exact(self.sector).enumerate() {
                if let Some((u, sg, stamp)) = unseal(sector) {
                    if u == unit && sg == gen {
                        self.sealed.push((k * g.page_size + j * self.sector, stamp));
                    }
                }
            }
        }
        Ok(())
    }

    /// Applies `lpn`'s records in the loaded sectors to `out`, a write's
    /// records only if its last sector is there.
    fn apply_logs(&self, lpn: u32, out: &mut [u8]) {
        let mut first = 0;
        while first < self.sealed.len() {
            // A write is the run of sectors of one stamp up to the one marked
            // last; a run cut short by another stamp or the end is void.
            let ts = self.sealed[first].1 & !LAST;
            let mut end = first;
            let mut whole = false;
            while end < self.sealed.len() && self.sealed[end].1 & !LAST == ts {
                end += 1;
                if self.sealed[end - 1].1 & LAST != 0 {
                    whole = true;
                    break;
                }
            }
            if whole {
                for &(at, _) in &self.sealed[first..end] {
                    apply_records(&self.logs[at..at + self.sector - SECTOR_TAIL], lpn, out);
                }
            }
            first = end;
        }
    }

    pub(crate) fn read(&mut self, chip: &mut Chip, lpn: u32, out: &mut [u8]) -> Result<()> {
        self.stats.page_reads += 1;
        self.current_version(chip, lpn, out)
    }

    fn current_version(&mut self, chip: &mut Chip, lpn: u32, out: &mut [u8]) -> Result<()> {
        let unit = lpn / self.data_pages;
        let block = self.unit_block[unit as usize];
        out.fill(0);
        if block == NIL {
            return Ok(());
        }
        let slot = lpn % self.data_pages;
        if self.generation[unit as usize] > 0 {
            chip.read(self.geo.first_page(block) + slot, out, &mut self.spare)?;
            if spare::decode(out, &self.spare).is_none() {
                return Err(Error::Store(format!(
                    "data page of logical page {lpn} fails its checksum"
                )));
            }
        }
        self.load_logs(chip, unit)?;
        self.apply_logs(lpn, out);
        Ok(())
    }

    pub(crate) fn write(&mut self, chip: &mut Chip, lpn: u32, data: &[u8]) -> Result<()> {
        let mut current = std::mem::take(&mut self.current);
        let r = self.current_version(chip, lpn, &mut current);
        self.ranges.clear();
        if r.is_ok() {
            self.runs.clear();
            crate::types::diff_ranges(&current, data, &mut self.runs);
            self.ranges.extend(
                self.runs
                    .iter()
                    .map(|r| (u32::from(r.offset), u32::from(r.len))),
            );
        }
        self.current = current;
        r?;
        let ranges = std::mem::take(&mut self.ranges);
        let r = self.write_changed(chip, lpn, data, &ranges);
        self.ranges = ranges;
        r
    }

    pub(crate) fn write_changed(
        &mut self,
        chip: &mut Chip,
        lpn: u32,
        data: &[u8],
        changed: &[(u32, u32)],
    ) -> Result<()> {
        self.stats.page_writes += 1;
        self.pack(lpn, data, changed);
        if self.sectors.is_empty() {
            return Ok(());
        }
        let unit = lpn / self.data_pages;
        if self.unit_block[unit as usize] == NIL {
            let b = self.take_block(chip)?;
            self.unit_block[unit as usize] = b;
            self.generation[unit as usize] = 0;
        }
        let block = self.unit_block[unit as usize];
        if self.sectors.len() > self.free_sectors(chip, block) {
            return self.merge(chip, unit, Some((lpn, data)));
        }
        self.clock += 1;
        let ts = self.clock;
        let count = self.sectors.len();
        let gen = self.generation[unit as usize];
        let mut buf = std::mem::take(&mut self.page);
        let r = (|| -> Result<()> {
            for k in 0..count {
                let (s, e) = self.sectors[k];
                let sector = &mut buf[..self.sector];
                sector.fill(0xFF);
                sector[..e - s].copy_from_slice(&self.records[s..e]);
                let stamp = if k + 1 == count { ts | LAST } else { ts };
                seal(sector, unit, gen, stamp);
                let (ppn, slot) = self.next_sector(chip, block);
                chip.program_partial(ppn, slot * self.sector, &buf[..self.sector])?;
            }
            Ok(())
        })();
        self.page = buf;
        r
    }

    /// Sectors a log page holds: as many of `sector` bytes as fit, or as
    /// many partial programs as the chip allows if fewer.
    fn sectors_per_page(&self, chip: &Chip) -> usize {
        (self.geo.page_size / self.sector).min(usize::from(chip.data_programs()))
    }

    /// Free log sectors of `block`: the rest of its last log page and its
    /// erased log pages.
    fn free_sectors(&self, chip: &Chip, block: u32) -> usize {
        let spp = self.sectors_per_page(chip);
        let next = chip.programmed_pages(block);
        let whole = (self.geo.pages_per_block - next.max(self.data_pages)) as usize * spp;
        let tail = if next > self.data_pages {
            spp.saturating_sub(self.used_in_last(chip, block))
        } else {
            0
        };
        whole + tail
    }

    /// Sectors programmed in `block`'s last programmed page, by the chip's
    /// count of partial programs of its data area.
    fn used_in_last(&self, chip: &Chip, block: u32) -> usize {
        let next = chip.programmed_pages(block);
        usize::from(chip.data_program_count(self.geo.first_page(block) + next - 1))
    }

    /// Where the next log sector of `block` goes: page and sector slot.
    fn next_sector(&self, chip: &Chip, block: u32) -> (u32, usize) {
        let g = self.geo;
        let next = chip.programmed_pages(block);
        if next > self.data_pages {
            let used = self.used_in_last(chip, block);
            if used < self.sectors_per_page(chip) {
                return (g.first_page(block) + next - 1, used);
            }
        }
        (g.first_page(block) + next.max(self.data_pages), 0)
    }

    /// Packs the records of a write into sectors.
    fn pack(&mut self, lpn: u32, data: &[u8], changed: &[(u32, u32)]) {
        self.records.clear();
        self.sectors.clear();
        let body = self.sector - SECTOR_TAIL;
        let max = body - RECORD_HEAD;
        let mut start = 0;
        for &(off, len) in changed {
            let (mut off, end) = (off as usize, (off as usize + len as usize).min(data.len()));
            while off < end {
                let n = (end - off).min(max);
                if self.records.len() - start + RECORD_HEAD + n > body {
                    self.sectors.push((start, self.records.len()));
                    start = self.records.len();
                }
                self.records.extend_from_slice(&lpn.to_le_bytes());
                self.records.extend_from_slice(&(off as u16).to_le_bytes());
                self.records.extend_from_slice(&(n as u16).to_le_bytes());
                self.records.extend_from_slice(&data[off..off + n]);
                off += n;
            }
        }
        if self.records.len() > start {
            self.sectors.push((start, self.records.len()));
        }
    }

    /// Merges `unit` into a fresh block: every data page with its logs
    /// applied, and `write` (a page and its new contents) in its place.
    fn merge(&mut self, chip: &mut Chip, unit: u32, write: Option<(u32, &[u8])>) -> Result<()> {
        let before = chip.stats().time_us;
        let g = self.geo;
        let dp = self.data_pages;
        let old = self.unit_block[unit as usize];
        let gen = self.generation[unit as usize];
        self.load_logs(chip, unit)?;
        let nb = self.take_block(chip)?;
        let mut page = std::mem::take(&mut self.current);
        let r = (|| -> Result<()> {
            for slot in 0..dp {
                let lpn = unit * dp + slot;
                match write {
                    Some((w, data)) if w == lpn => page.copy_from_slice(data),
                    _ => {
                        page.fill(0);
                        if gen > 0 {
                            chip.read(g.first_page(old) + slot, &mut page, &mut self.spare)?;
                            if spare::decode(&page, &self.spare).is_none() {
                                return Err(Error::Store(format!(
                                    "data page of logical page {lpn} fails its checksum"
                                )));
                            }
                        }
                        self.apply_logs(lpn, &mut page);
                    }
                }
                let head = Header {
                    kind: IPL_DATA,
                    id: unit,
                    ts: 0,
                    aux: gen + 1,
                };
                spare::encode(head, &page, &mut self.spare);
                chip.program(g.first_page(nb) + slot, &page, &self.spare)?;
            }
            Ok(())
        })();
        self.current = page;
        r?;
        self.unit_block[unit as usize] = nb;
        self.generation[unit as usize] = gen + 1;
        chip.erase(old)?;
        self.free.push(old);
        self.stats.gc_runs += 1;
        self.stats.gc_time_us += chip.stats().time_us - before;
        Ok(())
    }

    pub(crate) fn flush(&mut self, _chip: &mut Chip) -> Result<()> {
        self.stats.flushes += 1;
        Ok(())
    }
}

/// Applies `lpn`'s records in a log page's data area to `page`.
fn apply_records(log: &[u8], lpn: u32, page: &mut [u8]) {
    let mut at = 0;
    while at + RECORD_HEAD <= log.len() {
        let p = u32::from_le_bytes(log[at..at + 4].try_into().expect("4"));
        if p == NIL {
            break;
        }
        let off = usize::from(u16::from_le_bytes([log[at + 4], log[at + 5]]));
        let len = usize::from(u16::from_le_bytes([log[at + 6], log[at + 7]]));
        let body = at + RECORD_HEAD;
        if body + len > log.len() || off + len > page.len() {
            break;
        }
        if p == lpn {
            page[off..off + len].copy_from_slice(&log[body..body + len]);
        }
        at = body + len;
    }
}

/// Writes a sector's trailer: its unit, generation, stamp and checksum.
fn seal(sector: &mut [u8], unit: u32, gen: u32, stamp: u64) {
    let t = sector.len() - SECTOR_TAIL;
    sector[t..t + 4].copy_from_slice(&unit.to_le_bytes());
    sector[t + 4..t + 8].copy_from_slice(&gen.to_le_bytes());
    sector[t + 8..t + 16].copy_from_slice(&stamp.to_le_bytes());
    let crc = crc32fast::hash(&sector[..t + 16]);
    sector[t + 16..t + 20].copy_from_slice(&crc.to_le_bytes());
}

/// A sector's unit, generation and stamp, if it was written whole.
fn unseal(sector: &[u8]) -> Option<(u32, u32, u64)> {
    let t = sector.len() - SECTOR_TAIL;
    let word = |i: usize| u32::from_le_bytes(sector[i..i + 4].try_into().expect("4"));
    if sector.iter().all(|&b| b == 0xFF) || crc32fast::hash(&sector[..t + 16]) != word(t + 16) {
        return None;
    }
    let stamp = u64::from_le_bytes(sector[t + 8..t + 16].try_into().expect("8"));
    Some((word(t), word(t + 4), stamp))
}
