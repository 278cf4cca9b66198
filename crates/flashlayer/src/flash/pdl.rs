//! Page-differential logging (Kim, Whang & Song, SIGMOD 2010, §4), and the
//! out-of-place engine it is built on, which with differentials off is OPU
//! ([`super::opu`]).
//!
//! A logical page is a base page plus at most one differential: the bytes
//! in which the page differs from its base (§4.1). Writing a page (Fig. 4)
//! reads its base page, computes the differential, and puts it in a
//! one-page differential write buffer, replacing an older one of the same
//! page: case 1 it fits; case 2 it does not, so the buffer is programmed
//! as a differential page first; case 3 it is larger than
//! `Max_Differential_Size`, so the page itself becomes a new base page.
//! Reading (Fig. 6) merges the base page with its differential, from the
//! buffer or from its differential page. The valid differential count
//! table counts each differential page's live differentials; at 0 the page
//! is obsolete (§4.2).
//!
//! Layout and choices where the paper is silent:
//! - A differential's encoding and the buffers that collect them are in
//!   `flash/differential.rs`.
//! - Every base page, differential and differential page has a creation
//!   time stamp from one counter, persisted in the headers.
//! - Space: pages append to four open blocks (`STREAMS`): new writes apart
//!   from collection's copies, as §4.2 reserves a block for collection,
//!   and base pages apart from differential pages. When writing would
//!   leave `RESERVE` blocks' worth of erased pages or fewer, garbage
//!   collection reclaims the
//!   block whose valid pages cost least to move (greedy; the paper cites
//!   Woodhouse's JFFS, whose collector prefers blocks with the most
//!   obsolete space, and says no more), moving its valid base
//!   pages and compacting its valid differentials into new differential
//!   pages written directly, never through the volatile write buffer, each
//!   keeping its time stamp.
//! - Obsolete marks are programmed into the spare area (the paper's
//!   default) or kept in memory only (footnote 9). Either way the page's
//!   validity is also kept in memory, which is what collection reads.
//! - Recovery (§4.5, Fig. 7) reads every programmed page once, ignores
//!   pages that are torn (checksum) or marked obsolete, keeps per logical
//!   page the base page and the differential of the highest time stamp,
//!   and drops a differential not newer than its base page. It writes
//!   nothing, so a cut during recovery changes nothing. Appending resumes
//!   in the partly programmed blocks with the most room, one per stream,
//!   so cuts never leave more partly programmed blocks than streams.
//! - `flush()` programs the write buffer if it holds a differential (§4.5).

use super::differential::{apply, encode_diff, entries, parse_entry, DiffBuf, ENTRY_HEAD};
use super::spare::{self, Header, BASE, DIFF};
use super::FlashStats;
use crate::error::{Error, Result};
use crate::nand::{Chip, Geometry, Ppn};

const NIL: u32 = u32::MAX;
/// Blocks' worth of erased pages writes leave to garbage collection: one
/// to copy a victim into, and one so that pages torn by repeated cuts
/// during collection never leave it without room.
const RESERVE: usize = 2;

/// Pages append to one open block per stream: new writes apart from
/// collection's copies (§4.2: valid pages move "into a new block, which is
/// reserved for the garbage collection process"), and base pages apart
/// from differential pages. What survives a collection tends to survive
/// the next, and a base page outlives many differentials, so blocks fill
/// with pages of like lifetimes and collection finds them mostly obsolete:
/// at 256 blocks, PDL(2KB) costs 2,798 µs an update against 3,250 µs with
/// only the first split (`reproduce pdl`'s scale, N_updates_till_write 1).
const STREAMS: usize = 4;

/// The stream of a page written by collection or not, a differential page
/// or a base page.
fn stream(gc: bool, diff: bool) -> usize {
    usize::from(gc) * 2 + usize::from(diff)
}

/// The out-of-place engine; PDL with `max_diff`, OPU without.
#[derive(Debug)]
pub struct Pdl {
    pub(crate) logical: u32,
    pub(crate) stats: FlashStats,
    geo: Geometry,
    max_diff: Option<usize>,
    obsolete_in_memory: bool,
    /// Physical page mapping table (§4.2): per logical page its base page
    /// and differential page, with their time stamps.
    base: Vec<Ppn>,
    base_ts: Vec<u64>,
    diff: Vec<Ppn>,
    diff_ts: Vec<u64>,
    /// Valid differential count table, per physical page.
    vdct: Vec<u16>,
    /// Per physical page: bytes of its valid differentials; per logical
    /// page: the size of its differential on flash.
    vbytes: Vec<u32>,
    dsize: Vec<u32>,
    /// Per block: bytes collection would have to move (a page per valid
    /// base page, the valid differentials' bytes), which picks the victim.
    load: Vec<u64>,
    bases: Vec<u32>,
    /// Per physical page: holds a valid base page or live differentials.
    live: Vec<bool>,
    /// Per block: its valid pages; whether it is erased and unused.
    valid: Vec<u32>,
    erased: Vec<bool>,
    free: Vec<u32>,
    /// The open blocks pages append to, one per [`stream`]; `NIL` where
    /// none is open.
    open: [u32; STREAMS],
    clock: u64,
    dwb: DiffBuf,
    /// Pages whose differential is in the write buffer.
    pending: Vec<bool>,
    gcbuf: DiffBuf,
    in_gc: bool,
    page: Vec<u8>,
    other: Vec<u8>,
    fold_buf: Vec<u8>,
    spare: Vec<u8>,
    scratch: Vec<u8>,
}

impl Pdl {
    /// The most logical pages a chip of geometry `g` holds out of place:
    /// all but the open blocks and the collection reserve.
    pub(crate) fn most_logical(g: Geometry) -> u32 {
        g.blocks.saturating_sub((STREAMS + RESERVE) as u32) * g.pages_per_block
    }

    pub(crate) fn open(
        chip: &mut Chip,
        logical: u32,
        max_diff: Option<usize>,
        obsolete_in_memory: bool,
        recover: bool,
    ) -> Result<Pdl> {
        let g = chip.geometry();
        if let Some(x) = max_diff {
            if x > g.page_size {
                return Err(Error::invalid(format!(
                    "Max_Differential_Size {x} is larger than the chip's {}-byte pages",
                    g.page_size
                )));
            }
        }
        let need =
            u64::from(logical).div_ceil(u64::from(g.pages_per_block)) + (STREAMS + RESERVE) as u64;
        if u64::from(g.blocks) < need {
            return Err(Error::invalid(format!(
                "a chip of {} blocks is too small for {logical} logical pages out of place: \
                 it needs at least {need} blocks of {} pages (the pages, {STREAMS} open \
                 blocks and a reserve for garbage collection)",
                g.blocks, g.pages_per_block
            )));
        }
        if !obsolete_in_memory && chip.spare_programs() < 2 {
            return Err(Error::invalid(
                "this chip forbids re-programming a spare area, so obsolete marks cannot be \
                 programmed; keep them in memory instead",
            ));
        }
        let pages = g.pages() as usize;
        let mut e = Pdl {
            logical,
            stats: FlashStats::default(),
            geo: g,
            max_diff,
            obsolete_in_memory,
            base: vec![NIL; logical as usize],
            base_ts: vec![0; logical as usize],
            diff: vec![NIL; logical as usize],
            diff_ts: vec![0; logical as usize],
            vdct: vec![0; pages],
            vbytes: vec![0; pages],
            dsize: vec![0; logical as usize],
            load: vec![0; g.blocks as usize],
            bases: vec![0; g.blocks as usize],
            live: vec![false; pages],
            valid: vec![0; g.blocks as usize],
            erased: vec![true; g.blocks as usize],
            // Every block, until a recovery finds which hold data.
            free: (0..g.blocks).rev().collect(),
            open: [NIL; STREAMS],
            clock: 0,
            dwb: DiffBuf::new(g.page_size),
            pending: vec![false; logical as usize],
            gcbuf: DiffBuf::new(g.page_size),
            in_gc: false,
            page: vec![0; g.page_size],
            other: vec![0; g.page_size],
            fold_buf: vec![0; g.page_size],
            spare: vec![0; g.spare_size],
            scratch: Vec::with_capacity(g.page_size * 2 + ENTRY_HEAD),
        };
        if recover {
            e.recover(chip)?;
        }
        Ok(e)
    }

    /// PDL Fig. 7, computed to its fixed point (module docs).
    fn recover(&mut self, chip: &mut Chip) -> Result<()> {
        let g = self.geo;
        // Partly programmed blocks, by room: the roomiest are reopened.
        let mut partial: Vec<(u32, u32)> = Vec::new();
        // Ties between copies collection left behind: a base page's copy
        // counts its moves; a compacted differential's page is newer.
        let mut base_moves = vec![0u32; self.logical as usize];
        let mut diff_page_ts = vec![0u64; self.logical as usize];
        for b in 0..g.blocks {
            let n = chip.programmed_pages(b);
            if n == 0 {
                continue;
            }
            self.erased[b as usize] = false;
            if n < g.pages_per_block {
                partial.push((g.pages_per_block - n, b));
            }
            for i in 0..n {
                let ppn = g.first_page(b) + i;
                chip.read(ppn, &mut self.page, &mut self.spare)?;
                let Some((h, obsolete)) = spare::decode(&self.page, &self.spare) else {
                    continue;
                };
                if obsolete {
                    continue;
                }
                self.clock = self.clock.max(h.ts);
                match h.kind {
                    BASE => {
                        let l = self.check_lpn(h.id)?;
                        if self.base[l] == NIL || (h.ts, h.aux) > (self.base_ts[l], base_moves[l]) {
                            self.base[l] = ppn;
                            self.base_ts[l] = h.ts;
                            base_moves[l] = h.aux;
                        }
                    }
                    DIFF => {
                        for (lpn, ts, r) in entries(&self.page) {
                            let l = self.check_lpn(lpn)?;
                            self.clock = self.clock.max(ts);
                            if self.diff[l] == NIL
                                || (ts, h.ts) > (self.diff_ts[l], diff_page_ts[l])
                            {
                                self.diff[l] = ppn;
                                self.diff_ts[l] = ts;
                                diff_page_ts[l] = h.ts;
                                self.dsize[l] = r.len() as u32;
                            }
                        }
                    }
                    _ => return Err(spare::foreign(ppn, h.kind)),
                }
            }
        }
        for l in 0..self.logical as usize {
            if self.diff[l] != NIL && (self.base[l] == NIL || self.diff_ts[l] <= self.base_ts[l]) {
                self.diff[l] = NIL;
            }
            if self.base[l] != NIL {
                self.set_base_live(self.base[l]);
            }
            if self.diff[l] != NIL {
                self.add_diff(self.diff[l], l as u32, self.dsize[l]);
            }
        }
        self.free = (0..g.blocks)
            .rev()
            .filter(|&b| self.erased[b as usize])
            .collect();
        partial.sort_unstable_by(|a, b| b.cmp(a));
        for (open, &(_, b)) in self.open.iter_mut().zip(&partial) {
            *open = b;
        }
        Ok(())
    }

    fn check_lpn(&self, lpn: u32) -> Result<usize> {
        if lpn >= self.logical {
            return Err(Error::invalid(format!(
                "the chip holds logical page {lpn}, beyond the {} given; recover with the \
                 logical_pages the store was created with",
                self.logical
            )));
        }
        Ok(lpn as usize)
    }

    fn set_live(&mut self, ppn: Ppn) {
        self.live[ppn as usize] = true;
        self.valid[self.geo.block_of(ppn) as usize] += 1;
    }

    fn set_base_live(&mut self, ppn: Ppn) {
        self.set_live(ppn);
        let b = self.geo.block_of(ppn) as usize;
        self.load[b] += self.geo.page_size as u64;
        self.bases[b] += 1;
    }

    fn kill_base(&mut self, chip: &mut Chip, ppn: Ppn, erasing: u32) -> Result<()> {
        let b = self.geo.block_of(ppn) as usize;
        self.load[b] -= self.geo.page_size as u64;
        self.bases[b] -= 1;
        self.invalidate(chip, ppn, erasing)
    }

    /// Counts `lpn`'s differential of `len` bytes in differential page `q`.
    fn add_diff(&mut self, q: Ppn, lpn: u32, len: u32) {
        if self.vdct[q as usize] == 0 {
            self.set_live(q);
        }
        self.vdct[q as usize] += 1;
        self.vbytes[q as usize] += len;
        self.load[self.geo.block_of(q) as usize] += u64::from(len);
        self.dsize[lpn as usize] = len;
    }

    /// The page is no longer valid: counted out, and marked obsolete on the
    /// chip unless marks are kept in memory or its block is being erased.
    fn invalidate(&mut self, chip: &mut Chip, ppn: Ppn, erasing: u32) -> Result<()> {
        debug_assert!(self.live[ppn as usize]);
        self.live[ppn as usize] = false;
        let b = self.geo.block_of(ppn);
        self.valid[b as usize] -= 1;
        if !self.obsolete_in_memory && b != erasing {
            let (at, mark) = spare::mark_at(self.geo.spare_size);
            chip.program_spare(ppn, at, &mark)?;
        }
        Ok(())
    }

    /// decreaseValidDifferentialCount (Fig. 5), for `lpn`'s differential.
    fn release_diff(&mut self, chip: &mut Chip, dp: Ppn, len: u32, erasing: u32) -> Result<()> {
        self.vbytes[dp as usize] -= len;
        self.load[self.geo.block_of(dp) as usize] -= u64::from(len);
        self.vdct[dp as usize] -= 1;
        if self.vdct[dp as usize] == 0 {
            self.invalidate(chip, dp, erasing)?;
        }
        Ok(())
    }

    fn next_stamp(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Erased pages left in open block `b` (none if `b` is `NIL`).
    fn room(&self, chip: &Chip, b: u32) -> usize {
        if b == NIL {
            0
        } else {
            (self.geo.pages_per_block - chip.programmed_pages(b)) as usize
        }
    }

    /// Erased pages left: the open blocks' room and the erased blocks.
    fn erased_pages(&self, chip: &Chip) -> usize {
        let open: usize = self.open.iter().map(|&b| self.room(chip, b)).sum();
        open + self.free.len() * self.geo.pages_per_block as usize
    }

    /// Whether block `b` is open with room left.
    fn is_open(&self, chip: &Chip, b: u32) -> bool {
        self.open.contains(&b) && self.room(chip, b) > 0
    }

    /// The next page to program. A write never takes one of the last
    /// `RESERVE` blocks' worth of erased pages: collection runs first, so
    /// it always has room to copy a block's valid pages, even when a cut
    /// left a reserve block partly written.
    fn alloc(&mut self, chip: &mut Chip, diff: bool) -> Result<Ppn> {
        let reserve = RESERVE * self.geo.pages_per_block as usize;
        if !self.in_gc && self.erased_pages(chip) <= reserve {
            self.collect(chip)?;
        }
        let s = stream(self.in_gc, diff);
        loop {
            let b = self.open[s];
            if b != NIL {
                let n = chip.programmed_pages(b);
                if n < self.geo.pages_per_block {
                    return Ok(self.geo.first_page(b) + n);
                }
                self.open[s] = NIL;
            }
            if self.free.is_empty() {
                // Out of erased blocks, collection copies into the other
                // stream's room rather than fail.
                if let Some(&b) = self.open.iter().find(|&&b| self.room(chip, b) > 0) {
                    return Ok(self.geo.first_page(b) + chip.programmed_pages(b));
                }
            }
            let b = self.free.pop().ok_or_else(|| {
                Error::Store("flash full: no erased block left to write into".into())
            })?;
            self.erased[b as usize] = false;
            self.open[s] = b;
        }
    }

    /// At most how many pages collecting block `b` programs: its valid base
    /// pages, and its valid differentials packed in order, which fills
    /// pages at least half on average (each is at most a page).
    fn pages_to_move(&self, b: u32) -> usize {
        let b = b as usize;
        let bases = self.bases[b] as usize;
        let diff_pages = self.valid[b] as usize - bases;
        let diff_bytes = self.load[b] as usize - bases * self.geo.page_size;
        let packed = if diff_bytes == 0 {
            0
        } else {
            (2 * diff_bytes).div_ceil(self.geo.page_size) + 1
        };
        bases + diff_pages.min(packed)
    }

    /// Greedy garbage collection until the reserve is back.
    fn collect(&mut self, chip: &mut Chip) -> Result<()> {
        self.in_gc = true;
        let before = chip.stats().time_us;
        let r = self.collect_inner(chip);
        self.in_gc = false;
        self.stats.gc_time_us += chip.stats().time_us - before;
        r
    }

    fn collect_inner(&mut self, chip: &mut Chip) -> Result<()> {
        let ppb = self.geo.pages_per_block;
        let reserve = RESERVE * ppb as usize;
        while self.erased_pages(chip) <= reserve {
            let full = || {
                Error::Store(
                    "flash full: no block can be reclaimed; give the store fewer logical pages \
                     or a larger chip"
                        .into(),
                )
            };
            let victim = (0..self.geo.blocks)
                .filter(|&b| !(self.erased[b as usize] || self.is_open(chip, b)))
                .min_by_key(|&b| self.pages_to_move(b))
                .ok_or_else(full)?;
            let need = self.pages_to_move(victim);
            if need >= ppb as usize || need > self.erased_pages(chip) {
                // Differentials that pack badly can leave no block worth
                // collecting: fold the victim's into new base pages.
                let most_diffs = (0..self.geo.blocks)
                    .filter(|&b| !self.erased[b as usize])
                    .max_by_key(|&b| self.valid[b as usize] - self.bases[b as usize])
                    .unwrap_or(victim);
                if self.max_diff.is_none() || self.fold(chip, most_diffs)? == 0 {
                    return Err(full());
                }
                continue;
            }
            // A full open block may be the victim (after a cut it may be
            // full of torn pages, with nothing valid to copy).
            for o in &mut self.open {
                if *o == victim {
                    *o = NIL;
                }
            }
            for i in 0..chip.programmed_pages(victim) {
                let ppn = self.geo.first_page(victim) + i;
                if !self.live[ppn as usize] {
                    continue;
                }
                chip.read(ppn, &mut self.page, &mut self.spare)?;
                let (h, _) = spare::decode(&self.page, &self.spare)
                    .ok_or_else(|| Error::Store(format!("live page {ppn} fails its checksum")))?;
                if h.kind == BASE {
                    // The copy counts its moves, so that recovery prefers it
                    // to an original a cut left behind.
                    let moved = Header {
                        aux: h.aux.wrapping_add(1),
                        ..h
                    };
                    spare::encode(moved, &self.page, &mut self.spare);
                    let q = self.alloc(chip, false)?;
                    chip.program(q, &self.page, &self.spare)?;
                    self.base[h.id as usize] = q;
                    self.live[ppn as usize] = false;
                    self.valid[victim as usize] -= 1;
                    self.load[victim as usize] -= self.geo.page_size as u64;
                    self.bases[victim as usize] -= 1;
                    self.set_base_live(q);
                } else {
                    self.other.copy_from_slice(&self.page);
                    let mut at = 0;
                    while let Some((lpn, ts, len)) = parse_entry(&self.other[at..]) {
                        if self.diff[lpn as usize] == ppn && self.diff_ts[lpn as usize] == ts {
                            if len > self.gcbuf.free() {
                                self.write_gcbuf(chip, victim)?;
                            }
                            self.gcbuf.push(lpn, ts, &self.other[at..at + len]);
                        }
                        at += len;
                    }
                }
            }
            if !self.gcbuf.is_empty() {
                self.write_gcbuf(chip, victim)?;
            }
            debug_assert_eq!(self.valid[victim as usize], 0);
            debug_assert_eq!(self.load[victim as usize], 0);
            chip.erase(victim)?;
            self.stats.gc_runs += 1;
            let first = self.geo.first_page(victim) as usize;
            self.live[first..first + ppb as usize].fill(false);
            self.vdct[first..first + ppb as usize].fill(0);
            self.vbytes[first..first + ppb as usize].fill(0);
            self.erased[victim as usize] = true;
            self.free.push(victim);
        }
        Ok(())
    }

    /// Space pressure: writes each page with a differential in `victim` as
    /// a new base page (its current version, a pending differential
    /// included), which retires the differential and the old base page.
    /// Returns how many pages were folded.
    fn fold(&mut self, chip: &mut Chip, victim: u32) -> Result<usize> {
        let mut folded = 0;
        let mut current = std::mem::take(&mut self.fold_buf);
        let r = (|| -> Result<()> {
            for i in 0..chip.programmed_pages(victim) {
                let ppn = self.geo.first_page(victim) + i;
                if !self.live[ppn as usize] || self.bases_at(ppn) {
                    continue;
                }
                chip.read(ppn, &mut self.other, &mut self.spare)?;
                let mut at = 0;
                while let Some((lpn, ts, len)) = parse_entry(&self.other[at..]) {
                    let l = lpn as usize;
                    if self.diff[l] == ppn && self.diff_ts[l] == ts {
                        if self.erased_pages(chip) == 0 {
                            return Ok(());
                        }
                        chip.read(self.base[l], &mut current, &mut self.spare)?;
                        match self.pending[l].then(|| self.dwb.find(lpn)).flatten() {
                            Some(e) => apply(e, &mut current),
                            None => apply(&self.other[at..at + len], &mut current),
                        }
                        // The victim page is read again for the next entry:
                        // `write_base` uses the shared buffers.
                        self.write_base(chip, lpn, &current)?;
                        self.stats.folds += 1;
                        folded += 1;
                        chip.read(ppn, &mut self.other, &mut self.spare)?;
                    }
                    at += len;
                }
            }
            Ok(())
        })();
        self.fold_buf = current;
        r.map(|()| folded)
    }

    /// Whether the live page `ppn` is a base page (else a differential page).
    fn bases_at(&self, ppn: Ppn) -> bool {
        self.vdct[ppn as usize] == 0
    }

    /// Programs `buf` as a differential page and points each of its
    /// differentials' pages at it, releasing the ones they replace
    /// (writingDifferentialWriteBuffer, Fig. 5). Collection passes its
    /// victim as `erasing`, so no obsolete mark goes there.
    fn program_diffs(&mut self, chip: &mut Chip, buf: &mut DiffBuf, erasing: u32) -> Result<()> {
        let q = self.alloc(chip, true)?;
        let ts = self.next_stamp();
        let head = Header {
            kind: DIFF,
            id: NIL,
            ts,
            aux: 0,
        };
        spare::encode(head, &buf.bytes, &mut self.spare);
        chip.program(q, &buf.bytes, &self.spare)?;
        for &(lpn, ts, _, len) in &buf.entries {
            let l = lpn as usize;
            let (old, old_len) = (self.diff[l], self.dsize[l]);
            self.diff[l] = q;
            self.diff_ts[l] = ts;
            // Counted in before the old one is released, so that the new
            // page is live before any mark is programmed.
            self.add_diff(q, lpn, len as u32);
            if old != NIL {
                self.release_diff(chip, old, old_len, erasing)?;
            }
        }
        buf.clear();
        Ok(())
    }

    /// Programs collection's compaction buffer; its differentials keep
    /// their time stamps.
    fn write_gcbuf(&mut self, chip: &mut Chip, victim: u32) -> Result<()> {
        let mut buf = std::mem::take(&mut self.gcbuf);
        let r = self.program_diffs(chip, &mut buf, victim);
        self.gcbuf = buf;
        r
    }

    /// Programs the differential write buffer.
    fn write_dwb(&mut self, chip: &mut Chip) -> Result<()> {
        let mut buf = std::mem::take(&mut self.dwb);
        for &(lpn, ..) in &buf.entries {
            self.pending[lpn as usize] = false;
        }
        let r = self.program_diffs(chip, &mut buf, NIL);
        self.dwb = buf;
        r
    }

    /// writingNewBasePage (Fig. 5); every OPU write.
    fn write_base(&mut self, chip: &mut Chip, lpn: u32, data: &[u8]) -> Result<()> {
        let l = lpn as usize;
        if self.pending[l] {
            self.dwb.remove(lpn);
            self.pending[l] = false;
        }
        let q = self.alloc(chip, false)?;
        let ts = self.next_stamp();
        spare::encode(
            Header {
                kind: BASE,
                id: lpn,
                ts,
                aux: 0,
            },
            data,
            &mut self.spare,
        );
        chip.program(q, data, &self.spare)?;
        // Collection may have moved the old base while allocating.
        let old = self.base[l];
        self.base[l] = q;
        self.base_ts[l] = ts;
        self.set_base_live(q);
        if old != NIL {
            self.kill_base(chip, old, NIL)?;
        }
        let dp = self.diff[l];
        if dp != NIL {
            self.diff[l] = NIL;
            self.release_diff(chip, dp, self.dsize[l], NIL)?;
        }
        Ok(())
    }

    pub(crate) fn write(&mut self, chip: &mut Chip, lpn: u32, data: &[u8]) -> Result<()> {
        self.stats.page_writes += 1;
        let l = lpn as usize;
        let Some(max) = self.max_diff else {
            self.stats.new_base_pages += 1;
            return self.write_base(chip, lpn, data);
        };
        if self.base[l] == NIL {
            self.stats.new_base_pages += 1;
            return self.write_base(chip, lpn, data);
        }
        chip.read(self.base[l], &mut self.page, &mut self.spare)?;
        let ts = self.clock + 1;
        encode_diff(lpn, ts, &self.page, data, &mut self.scratch);
        let size = self.scratch.len();
        if size > max {
            self.stats.new_base_pages += 1;
            return self.write_base(chip, lpn, data);
        }
        if self.pending[l] {
            self.dwb.remove(lpn);
            self.pending[l] = false;
        }
        let runs = u16::from_le_bytes([self.scratch[12], self.scratch[13]]);
        if runs == 0 && self.diff[l] == NIL {
            // The page equals its base page: nothing to record.
            return Ok(());
        }
        if size > self.dwb.free() {
            self.write_dwb(chip)?;
        }
        // Stamped now: collection while writing the buffer may have used
        // stamps, and a differential must be newer than everything before.
        let ts = self.next_stamp();
        self.scratch[4..12].copy_from_slice(&ts.to_le_bytes());
        self.dwb.push(lpn, ts, &self.scratch);
        self.pending[l] = true;
        self.stats.differentials += 1;
        Ok(())
    }

    pub(crate) fn read(&mut self, chip: &mut Chip, lpn: u32, out: &mut [u8]) -> Result<()> {
        self.stats.page_reads += 1;
        let l = lpn as usize;
        if self.base[l] == NIL {
            out.fill(0);
            return Ok(());
        }
        chip.read(self.base[l], out, &mut self.spare)?;
        if spare::decode(out, &self.spare).is_none() {
            return Err(Error::Store(format!(
                "base page of logical page {lpn} fails its checksum"
            )));
        }
        if self.pending[l] {
            if let Some(e) = self.dwb.find(lpn) {
                apply(e, out);
            }
            return Ok(());
        }
        let dp = self.diff[l];
        if dp != NIL {
            chip.read(dp, &mut self.other, &mut self.spare)?;
            let ts = self.diff_ts[l];
            let found = entries(&self.other).find(|&(p, t, _)| p == lpn && t == ts);
            match found {
                Some((_, _, r)) => apply(&self.other[r], out),
                None => {
                    return Err(Error::Store(format!(
                        "differential of logical page {lpn} missing from page {dp}"
                    )))
                }
            }
        }
        Ok(())
    }

    pub(crate) fn flush(&mut self, chip: &mut Chip) -> Result<()> {
        self.stats.flushes += 1;
        if !self.dwb.is_empty() {
            self.write_dwb(chip)?;
        }
        Ok(())
    }
}
