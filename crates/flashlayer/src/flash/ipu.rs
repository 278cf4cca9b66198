//! In-place update (PDL §3): logical page `p` lives at physical page `p`.
//! Updating a programmed page reads the other programmed pages of its
//! block, erases the block and programs every page back, the new one in
//! its place (the paper's four steps). A page still erased and beyond the
//! block's programmed pages is programmed directly, as the chip allows.
//!
//! **What IPU cannot promise.** A page has one copy, in place. Between the
//! erase and the last program of an update, the block's other pages exist
//! only in memory, and a program cut part-way leaves its page torn. A power
//! cut during an update therefore loses the pages of that block not yet
//! programmed back, the page being written included: each reads as never
//! written (zeros) or fails its checksum (an error naming the page),
//! whether or not it was flushed. A cut at any other moment loses nothing:
//! every completed write is on the chip, `flush()` has nothing to do, and
//! recovery has nothing to rebuild. The crash test checks exactly this:
//! every page outside the block being updated at the cut reads back
//! correctly.

use super::spare::{self, Header, IPU};
use super::FlashStats;
use crate::error::{Error, Result};
use crate::nand::{Chip, Geometry};

/// In-place update.
#[derive(Debug)]
pub struct Ipu {
    pub(crate) logical: u32,
    pub(crate) stats: FlashStats,
    geo: Geometry,
    clock: u64,
    /// The block being rewritten: data then spare of each page, and
    /// whether the page was programmed.
    block: Vec<u8>,
    held: Vec<bool>,
    spare: Vec<u8>,
}

impl Ipu {
    pub(crate) fn open(chip: &mut Chip, logical: u32, _recover: bool) -> Result<Ipu> {
        let g = chip.geometry();
        if logical > g.pages() {
            return Err(Error::invalid(format!(
                "a chip of {} pages is too small for {logical} logical pages in place",
                g.pages()
            )));
        }
        Ok(Ipu {
            logical,
            stats: FlashStats::default(),
            geo: g,
            clock: 0,
            block: vec![0xFF; g.stride() * g.pages_per_block as usize],
            held: vec![false; g.pages_per_block as usize],
            spare: vec![0xFF; g.spare_size],
        })
    }

    pub(crate) fn read(&mut self, chip: &mut Chip, lpn: u32, out: &mut [u8]) -> Result<()> {
        self.stats.page_reads += 1;
        let g = self.geo;
        if lpn % g.pages_per_block >= chip.programmed_pages(g.block_of(lpn)) {
            out.fill(0);
            return Ok(());
        }
        chip.read(lpn, out, &mut self.spare)?;
        if self.spare.iter().all(|&b| b == 0xFF) && out.iter().all(|&b| b == 0xFF) {
            // Skipped by in-order programming: never written.
            out.fill(0);
            return Ok(());
        }
        match spare::decode(out, &self.spare) {
            None => Err(Error::Store(format!(
                "page {lpn} fails its checksum: a power cut during an in-place update of \
                 its block lost it"
            ))),
            Some((h, _)) if h.kind != IPU || h.id != lpn => Err(spare::foreign(lpn, h.kind)),
            Some(_) => Ok(()),
        }
    }

    pub(crate) fn write(&mut self, chip: &mut Chip, lpn: u32, data: &[u8]) -> Result<()> {
        self.stats.page_writes += 1;
        let g = self.geo;
        let (b, idx) = (g.block_of(lpn), lpn % g.pages_per_block);
        self.clock += 1;
        let head = Header {
            kind: IPU,
            id: lpn,
            ts: self.clock,
            aux: 0,
        };
        let n = chip.programmed_pages(b);
        if idx >= n {
            spare::encode(head, data, &mut self.spare);
            return chip.program(lpn, data, &self.spare);
        }
        let before = chip.stats().time_us;
        let (ps, stride) = (g.page_size, g.stride());
        for i in 0..n {
            self.held[i as usize] = i != idx;
            if i != idx {
                let page = &mut self.block[i as usize * stride..(i as usize + 1) * stride];
                let (d, s) = page.split_at_mut(ps);
                chip.read(g.first_page(b) + i, d, s)?;
            }
        }
        chip.erase(b)?;
        for i in 0..n {
            let ppn = g.first_page(b) + i;
            if i == idx {
                spare::encode(head, data, &mut self.spare);
                chip.program(ppn, data, &self.spare)?;
            } else if self.held[i as usize] {
                let page = &self.block[i as usize * stride..(i as usize + 1) * stride];
                if page.iter().any(|&x| x != 0xFF) {
                    chip.program(ppn, &page[..ps], &page[ps..])?;
                }
            }
        }
        self.stats.gc_runs += 1;
        self.stats.gc_time_us += chip.stats().time_us - before;
        Ok(())
    }
}
