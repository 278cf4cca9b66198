//! A NAND flash chip emulator (PDL §2 and Table 1): blocks of pages, each
//! page a data area and a spare area, with the chip's own rules and none of
//! any update method's.
//!
//! - Erase sets every bit of a block to 1; a program only turns bits from 1
//!   to 0. Asking a program to turn a 0 into a 1 is an error, never done.
//! - The pages of a block are programmed in order (a program may skip pages,
//!   never go back to one below the highest programmed page).
//! - A page's data area is programmed once per erase, or, on a chip that
//!   allows partial programs (`data_programs` > 1, the NOP of SLC
//!   datasheets), in up to that many pieces, each a byte range not
//!   programmed before (IPL's sector writes, Lee & Moon §3). Its spare area
//!   may be programmed again, up to `spare_programs` times in all (PDL
//!   footnote 9: at least two on the chips it used; 1 for chips that forbid
//!   it). That second program is how a page is marked obsolete.
//! - Counters: page reads, spare-only reads, programs, spare re-programs,
//!   erases, erases per block (wear), and virtual time: each operation adds
//!   its time from the timing preset. A spare-only read costs a page read
//!   (the chip loads the whole page into its register either way) and a
//!   spare re-program costs a program (PDL §5 counts setting an obsolete
//!   bit as a write).
//! - The image is in memory or in a file laid out exactly as the chip: page
//!   after page, each its data then its spare. A file image survives the
//!   process; reopening it derives each block's programmed pages from its
//!   contents.
//!
//! **Power cuts.** [`Chip::power_cut_after`]`(n)` stops the chip at its
//! n-th operation from then on. That operation fails with
//! [`Error::PowerCut`]; if it was a program it may be torn, a prefix of its
//! bit changes applied (bytes in address order, data then spare, the last
//! byte partly); if it was an erase, a prefix of the block's bytes may be
//! back to 1s. How much is applied is drawn from the chip's seeded random
//! generator, so a cut is reproducible. Every later operation fails with
//! [`Error::PowerCut`] until [`Chip::power_on`].

mod bench;
mod builder;
mod image;
mod owner;
pub use bench::bench;
pub use builder::ChipBuilder;
use image::Image;

use crate::device::DeviceModel;
use crate::error::{Error, Result};
use rand::Rng;
use rand_pcg::Pcg64;
use std::path::Path;

/// The preset a chip takes its timing from unless told otherwise.
pub const DEFAULT_PRESET: &str = "pdl10-mlc-nand";

/// A physical page address: `block * pages_per_block + page`.
pub type Ppn = u32;

/// The shape of a chip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Erase blocks.
    pub blocks: u32,
    /// Pages per block.
    pub pages_per_block: u32,
    /// Bytes in a page's data area.
    pub page_size: usize,
    /// Bytes in a page's spare area.
    pub spare_size: usize,
}

impl Geometry {
    /// Pages on the chip.
    pub fn pages(&self) -> u32 {
        self.blocks * self.pages_per_block
    }
    /// Bytes a page takes in the image (data and spare).
    pub fn stride(&self) -> usize {
        self.page_size + self.spare_size
    }
    /// The block holding `ppn`.
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        ppn / self.pages_per_block
    }
    /// The first page of `block`.
    pub fn first_page(&self, block: u32) -> Ppn {
        block * self.pages_per_block
    }
}

/// Operation times in µs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Reading a page (or its spare area).
    pub read_us: f64,
    /// Programming a page (or re-programming its spare area).
    pub program_us: f64,
    /// Erasing a block.
    pub erase_us: f64,
}

impl Timing {
    /// The timing of a device preset: its random read, random write and
    /// erase. A preset without erases is not a NAND chip.
    pub fn from_preset(name: &str) -> Result<Timing> {
        let d = DeviceModel::parse(name)?.one_at_a_time("a NAND chip")?;
        let erase = d.erase.ok_or_else(|| {
            Error::invalid(format!(
                "device '{name}' has no erase time; a NAND chip needs one (try '{DEFAULT_PRESET}')"
            ))
        })?;
        Ok(Timing {
            read_us: d.read,
            program_us: d.write,
            erase_us: erase,
        })
    }
}

/// What a chip has done.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChipStats {
    /// Page reads (data and spare).
    pub reads: u64,
    /// Reads of a spare area alone.
    pub spare_reads: u64,
    /// Page programs.
    pub programs: u64,
    /// Re-programs of a spare area (obsolete marks).
    pub spare_programs: u64,
    /// Block erases.
    pub erases: u64,
    /// Virtual time of all operations, µs.
    pub time_us: f64,
    /// The most erases any block has had.
    pub max_erase_count: u32,
    /// Power cuts that stopped an operation.
    pub power_cuts: u64,
}

impl ChipStats {
    /// Page operations of any kind.
    pub fn operations(&self) -> u64 {
        self.reads + self.spare_reads + self.programs + self.spare_programs + self.erases
    }

    /// The counts a result row shows (power cuts are the crash tests').
    pub fn fields(&self) -> crate::types::Fields {
        crate::fields!(
            self,
            [
                reads,
                spare_reads,
                programs,
                spare_programs,
                erases,
                time_us,
                max_erase_count
            ]
        )
    }
}

/// A NAND flash chip (module docs).
#[derive(Debug)]
pub struct Chip {
    geometry: Geometry,
    timing: Timing,
    spare_limit: u8,
    data_limit: u8,
    image: Image,
    /// Per block: one past its highest programmed page.
    next: Vec<u16>,
    /// Per page: programs its spare and data areas have taken since the
    /// erase.
    spare_count: Vec<u8>,
    data_count: Vec<u8>,
    wear: Vec<u32>,
    stats: ChipStats,
    /// Operations left before the armed cut (1: the next one is cut).
    cut_in: Option<u64>,
    /// The page update method whose store was opened on the chip, by name.
    format: Option<String>,
    /// Counts the stores opened on the chip: only the newest may use it.
    epoch: u64,
    off: bool,
    rng: Pcg64,
}

/// Whether `new` only turns bits of `old` from 1 to 0.
#[inline]
fn only_clears(old: &[u8], new: &[u8]) -> bool {
    let (oc, nc) = (old.chunks_exact(8), new.chunks_exact(8));
    let tail = oc
        .remainder()
        .iter()
        .zip(nc.remainder())
        .all(|(o, n)| n & !o == 0);
    let word = |b: &[u8]| u64::from_ne_bytes(b.try_into().expect("8 bytes"));
    tail && oc.zip(nc).all(|(o, n)| word(n) & !word(o) == 0)
}

impl Chip {
    /// A builder for a chip of `blocks` blocks.
    pub fn builder(blocks: u32) -> ChipBuilder {
        ChipBuilder::new(blocks)
    }

    /// The chip's shape.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// The chip's timing.
    pub fn timing(&self) -> Timing {
        self.timing
    }

    /// Programs a spare area may take between erases.
    pub fn spare_programs(&self) -> u8 {
        self.spare_limit
    }

    /// Programs a data area may take between erases.
    pub fn data_programs(&self) -> u8 {
        self.data_limit
    }

    /// Programs page `ppn`'s data area has taken since its block's erase
    /// (at least 1 for a programmed page of a reopened image).
    pub fn data_program_count(&self, ppn: Ppn) -> u8 {
        self.data_count.get(ppn as usize).copied().unwrap_or(0)
    }

    /// Counters so far.
    pub fn stats(&self) -> ChipStats {
        self.stats.clone()
    }

    /// Starts the counts of operations and time afresh (after a store is
    /// loaded, say); the wear, and the most erases of a block, stay.
    pub fn reset_stats(&mut self) {
        self.stats = ChipStats {
            max_erase_count: self.stats.max_erase_count,
            power_cuts: self.stats.power_cuts,
            ..ChipStats::default()
        };
    }

    /// Erases each block has had.
    pub fn erase_counts(&self) -> &[u32] {
        &self.wear
    }

    /// The image file, if the chip has one.
    pub fn path(&self) -> Option<&Path> {
        match &self.image {
            Image::Mem(_) => None,
            Image::File { path, .. } => Some(path),
        }
    }

    /// Arms a power cut at the `n`-th operation from now (`n >= 1`).
    pub fn power_cut_after(&mut self, n: u64) -> Result<()> {
        if n == 0 {
            return Err(Error::invalid(
                "power_cut_after(n) needs n >= 1 (the n-th operation from now is cut)",
            ));
        }
        self.cut_in = Some(n);
        Ok(())
    }

    /// Cancels an armed cut that has not happened.
    pub fn disarm(&mut self) {
        self.cut_in = None;
    }

    /// Whether the chip is powered.
    pub fn is_on(&self) -> bool {
        !self.off
    }

    /// Restores power after a cut. Nothing else changes: the image is as
    /// the cut left it.
    pub fn power_on(&mut self) {
        self.off = false;
    }

    /// One past the highest programmed page of `block` (0 if erased).
    pub fn programmed_pages(&self, block: u32) -> u32 {
        u32::from(self.next[block as usize])
    }

    /// Writes a file image's changes to the file (a no-op in memory). The
    /// image already survives the process; this survives the machine.
    pub fn sync(&mut self) -> Result<()> {
        if let Image::File { map, path } = &mut self.image {
            map.flush().map_err(|e| Error::io(path.as_path(), e))?;
        }
        Ok(())
    }

    /// Counts an operation against an armed cut: `Ok(false)` to go on,
    /// `Ok(true)` if this operation is the one cut, `Err` if the chip is off.
    fn start(&mut self) -> Result<bool> {
        if self.off {
            return Err(Error::PowerCut);
        }
        match self.cut_in {
            Some(1) => {
                self.cut_in = None;
                self.off = true;
                self.stats.power_cuts += 1;
                Ok(true)
            }
            Some(n) => {
                self.cut_in = Some(n - 1);
                Ok(false)
            }
            None => Ok(false),
        }
    }

    fn check_ppn(&self, ppn: Ppn) -> Result<()> {
        if ppn >= self.geometry.pages() {
            return Err(Error::invalid(format!(
                "page {ppn} is beyond the chip's {} pages",
                self.geometry.pages()
            )));
        }
        Ok(())
    }

    fn range(&self, ppn: Ppn) -> std::ops::Range<usize> {
        let s = ppn as usize * self.geometry.stride();
        s..s + self.geometry.stride()
    }

    /// Reads page `ppn`'s data and spare areas.
    pub fn read(&mut self, ppn: Ppn, data: &mut [u8], spare: &mut [u8]) -> Result<()> {
        self.check_ppn(ppn)?;
        self.check_lens(data.len(), spare.len())?;
        if self.start()? {
            return Err(Error::PowerCut);
        }
        let ps = self.geometry.page_size;
        let r = self.range(ppn);
        let page = &self.image.bytes()[r];
        data.copy_from_slice(&page[..ps]);
        spare.copy_from_slice(&page[ps..]);
        self.stats.reads += 1;
        self.stats.time_us += self.timing.read_us;
        Ok(())
    }

    /// Reads page `ppn`'s spare area alone.
    pub fn read_spare(&mut self, ppn: Ppn, spare: &mut [u8]) -> Result<()> {
        self.check_ppn(ppn)?;
        self.check_lens(self.geometry.page_size, spare.len())?;
        if self.start()? {
            return Err(Error::PowerCut);
        }
        let ps = self.geometry.page_size;
        let r = self.range(ppn);
        spare.copy_from_slice(&self.image.bytes()[r][ps..]);
        self.stats.spare_reads += 1;
        self.stats.time_us += self.timing.read_us;
        Ok(())
    }

    fn check_lens(&self, data: usize, spare: usize) -> Result<()> {
        let g = self.geometry;
        if data != g.page_size || spare != g.spare_size {
            return Err(Error::invalid(format!(
                "buffers of {data}+{spare} bytes for a chip of {}+{}-byte pages",
                g.page_size, g.spare_size
            )));
        }
        Ok(())
    }

    /// Programs page `ppn`: its data and spare areas, once per erase, in
    /// page order within the block.
    pub fn program(&mut self, ppn: Ppn, data: &[u8], spare: &[u8]) -> Result<()> {
        self.check_ppn(ppn)?;
        self.check_lens(data.len(), spare.len())?;
        let g = self.geometry;
        let (block, index) = (g.block_of(ppn), ppn % g.pages_per_block);
        let next = u32::from(self.next[block as usize]);
        if index < next {
            return Err(Error::invalid(format!(
                "program of page {index} of block {block}: pages are programmed in order, \
                 and page {} is already programmed",
                next - 1
            )));
        }
        let ps = g.page_size;
        let r = self.range(ppn);
        {
            let old = &self.image.bytes()[r.clone()];
            if !(only_clears(&old[..ps], data) && only_clears(&old[ps..], spare)) {
                return Err(Error::invalid(format!(
                    "program of page {index} of block {block} would turn a 0 bit into a 1; \
                     only an erase does that"
                )));
            }
        }
        let cut = self.start()?;
        self.stats.programs += 1;
        self.stats.time_us += self.timing.program_us;
        let page = &mut self.image.bytes()[r];
        if cut {
            let k = self.rng.random_range(0..=page.len());
            let mask: u8 = self.rng.random();
            let mut src = data.iter().chain(spare.iter());
            for (i, (b, &n)) in page.iter_mut().zip(&mut src).enumerate() {
                if i < k {
                    *b &= n;
                } else {
                    // The boundary byte: some of its bit changes landed.
                    *b &= n | mask;
                    break;
                }
            }
            self.rescan_block(block);
            return Err(Error::PowerCut);
        }
        for (b, &n) in page[..ps].iter_mut().zip(data) {
            *b &= n;
        }
        for (b, &n) in page[ps..].iter_mut().zip(spare) {
            *b &= n;
        }
        self.next[block as usize] = (index + 1) as u16;
        self.spare_count[ppn as usize] = 1;
        self.data_count[ppn as usize] = 1;
        Ok(())
    }

    /// Programs `bytes` into page `ppn`'s data area from `offset`, leaving
    /// the rest of the page as it is (a partial program): at most
    /// `data_programs` programs of the data area since the erase, each only
    /// clearing bits, on the block's last programmed page or a later one.
    pub fn program_partial(&mut self, ppn: Ppn, offset: usize, bytes: &[u8]) -> Result<()> {
        self.check_ppn(ppn)?;
        let g = self.geometry;
        if offset + bytes.len() > g.page_size {
            return Err(Error::invalid(format!(
                "partial program of {} bytes at {offset} beyond the {}-byte data area",
                bytes.len(),
                g.page_size
            )));
        }
        let (block, index) = (g.block_of(ppn), ppn % g.pages_per_block);
        let next = u32::from(self.next[block as usize]);
        if index + 1 < next {
            return Err(Error::invalid(format!(
                "partial program of page {index} of block {block}: pages are programmed in \
                 order, and page {} is already programmed",
                next - 1
            )));
        }
        if self.data_count[ppn as usize] >= self.data_limit {
            return Err(Error::invalid(format!(
                "data area of page {index} of block {block} already programmed {} time(s), \
                 the chip's limit between erases",
                self.data_limit
            )));
        }
        let at = self.range(ppn).start + offset;
        if !only_clears(&self.image.bytes()[at..at + bytes.len()], bytes) {
            return Err(Error::invalid(format!(
                "partial program of page {index} of block {block} would turn a 0 bit into a 1"
            )));
        }
        let cut = self.start()?;
        self.stats.programs += 1;
        self.stats.time_us += self.timing.program_us;
        self.data_count[ppn as usize] += 1;
        self.spare_count[ppn as usize] = self.spare_count[ppn as usize].max(1);
        self.next[block as usize] = (index + 1) as u16;
        let area = &mut self.image.bytes()[at..at + bytes.len()];
        if cut {
            let k = self.rng.random_range(0..=area.len());
            area[..k].copy_from_slice(&bytes[..k]);
            self.rescan_block(block);
            return Err(Error::PowerCut);
        }
        area.copy_from_slice(bytes);
        Ok(())
    }

    /// Programs `bytes` into page `ppn`'s spare area again, from `offset`
    /// (a partial program: an obsolete mark): at most `spare_programs`
    /// programs of the spare since the erase, only on a programmed page.
    pub fn program_spare(&mut self, ppn: Ppn, offset: usize, bytes: &[u8]) -> Result<()> {
        self.check_ppn(ppn)?;
        let g = self.geometry;
        if offset + bytes.len() > g.spare_size {
            return Err(Error::invalid(format!(
                "spare program of {} bytes at {offset} beyond the {}-byte spare area",
                bytes.len(),
                g.spare_size
            )));
        }
        let (block, index) = (g.block_of(ppn), ppn % g.pages_per_block);
        if index >= u32::from(self.next[block as usize]) {
            return Err(Error::invalid(format!(
                "spare program of page {index} of block {block}, which is not programmed"
            )));
        }
        if self.spare_count[ppn as usize] >= self.spare_limit {
            return Err(Error::invalid(format!(
                "spare area of page {index} of block {block} already programmed {} time(s), \
                 the chip's limit between erases",
                self.spare_limit
            )));
        }
        let at = self.range(ppn).start + g.page_size + offset;
        if !only_clears(&self.image.bytes()[at..at + bytes.len()], bytes) {
            return Err(Error::invalid(format!(
                "spare program of page {index} of block {block} would turn a 0 bit into a 1"
            )));
        }
        let cut = self.start()?;
        self.stats.spare_programs += 1;
        self.stats.time_us += self.timing.program_us;
        self.spare_count[ppn as usize] += 1;
        let area = &mut self.image.bytes()[at..at + bytes.len()];
        if cut {
            let k = self.rng.random_range(0..=area.len());
            area[..k].copy_from_slice(&bytes[..k]);
            return Err(Error::PowerCut);
        }
        area.copy_from_slice(bytes);
        Ok(())
    }

    /// Erases `block`: every bit back to 1.
    pub fn erase(&mut self, block: u32) -> Result<()> {
        if block >= self.geometry.blocks {
            return Err(Error::invalid(format!(
                "block {block} is beyond the chip's {} blocks",
                self.geometry.blocks
            )));
        }
        let cut = self.start()?;
        self.stats.erases += 1;
        self.stats.time_us += self.timing.erase_us;
        self.wear[block as usize] += 1;
        self.stats.max_erase_count = self.stats.max_erase_count.max(self.wear[block as usize]);
        let g = self.geometry;
        let start = g.first_page(block) as usize * g.stride();
        let len = g.pages_per_block as usize * g.stride();
        let k = if cut {
            self.rng.random_range(0..=len)
        } else {
            len
        };
        self.image.bytes()[start..start + k].fill(0xFF);
        let first = g.first_page(block) as usize;
        self.spare_count[first..first + g.pages_per_block as usize].fill(0);
        self.data_count[first..first + g.pages_per_block as usize].fill(0);
        if cut {
            // Only part of the block is back to 1s: its bytes say which
            // pages still count as programmed.
            self.rescan_block(block);
            return Err(Error::PowerCut);
        }
        self.next[block as usize] = 0;
        Ok(())
    }

    /// Derives `block`'s programmed pages from its bytes: one past the last
    /// page that is not all 1s. Pages below it whose spare was programmed
    /// are counted as programmed once.
    fn rescan_block(&mut self, block: u32) {
        let g = self.geometry;
        let stride = g.stride();
        let first = g.first_page(block);
        let bytes = self.image.bytes();
        let mut next = 0;
        for i in (0..g.pages_per_block).rev() {
            let s = (first + i) as usize * stride;
            if bytes[s..s + stride].iter().any(|&b| b != 0xFF) {
                next = i + 1;
                break;
            }
        }
        self.next[block as usize] = next as u16;
        for i in 0..g.pages_per_block {
            let k = (first + i) as usize;
            let programmed = i < next;
            let c = &mut self.spare_count[k];
            *c = if programmed { (*c).max(1) } else { 0 };
            let d = &mut self.data_count[k];
            *d = if programmed { (*d).max(1) } else { 0 };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Chip {
        Chip::builder(4)
            .pages_per_block(4)
            .page_size(16)
            .spare_size(8)
            .build()
            .unwrap()
    }

    #[test]
    fn erase_sets_ones_and_programs_only_clear_bits() {
        let mut c = small();
        let (mut d, mut s) = ([0u8; 16], [0u8; 8]);
        c.read(0, &mut d, &mut s).unwrap();
        assert_eq!((d, s), ([0xFF; 16], [0xFF; 8]));
        c.program(0, &[0x0F; 16], &[0xF0; 8]).unwrap();
        c.read(0, &mut d, &mut s).unwrap();
        assert_eq!((d, s), ([0x0F; 16], [0xF0; 8]));
        // A spare re-program may clear more bits, never set one.
        let err = c.program_spare(0, 0, &[0xFF; 8]).unwrap_err().to_string();
        assert!(err.contains("0 bit into a 1"), "{err}");
        c.program_spare(0, 6, &[0x00; 2]).unwrap();
        c.read_spare(0, &mut s).unwrap();
        assert_eq!(s, [0xF0, 0xF0, 0xF0, 0xF0, 0xF0, 0xF0, 0, 0]);
        let err = c.program_spare(0, 0, &[0x00]).unwrap_err().to_string();
        assert!(err.contains("already programmed 2"), "{err}");
        c.erase(0).unwrap();
        c.read(0, &mut d, &mut s).unwrap();
        assert_eq!((d, s), ([0xFF; 16], [0xFF; 8]));
        assert_eq!(c.erase_counts()[0], 1);
    }

    #[test]
    fn pages_are_programmed_in_order_and_once() {
        let mut c = small();
        c.program(1, &[0; 16], &[0; 8]).unwrap();
        let err = c.program(0, &[0; 16], &[0; 8]).unwrap_err().to_string();
        assert!(err.contains("in order"), "{err}");
        assert!(c.program(1, &[0; 16], &[0; 8]).is_err());
        c.program(3, &[0; 16], &[0; 8]).unwrap();
        assert_eq!(c.programmed_pages(0), 4);
    }

    #[test]
    fn partial_programs_fill_a_page_piece_by_piece_up_to_the_limit() {
        let mut c = Chip::builder(1)
            .pages_per_block(4)
            .page_size(16)
            .spare_size(8)
            .data_programs(3)
            .build()
            .unwrap();
        c.program_partial(1, 0, &[1; 4]).unwrap();
        c.program_partial(1, 4, &[2; 4]).unwrap();
        assert!(c.program_partial(0, 0, &[0; 4]).is_err(), "in order");
        let err = c.program_partial(1, 0, &[0xFF; 4]).unwrap_err().to_string();
        assert!(err.contains("0 bit into a 1"), "{err}");
        c.program_partial(1, 8, &[3; 8]).unwrap();
        let err = c.program_partial(1, 8, &[0; 1]).unwrap_err().to_string();
        assert!(err.contains("already programmed 3"), "{err}");
        let (mut d, mut s) = ([0u8; 16], [0u8; 8]);
        c.read(1, &mut d, &mut s).unwrap();
        assert_eq!(d, [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3]);
        assert_eq!(s, [0xFF; 8]);
        // A chip of one program per page refuses the second piece.
        let mut one = Chip::builder(1)
            .pages_per_block(2)
            .page_size(8)
            .spare_size(4)
            .build()
            .unwrap();
        one.program_partial(0, 0, &[0; 4]).unwrap();
        assert!(one.program_partial(0, 4, &[0; 4]).is_err());
    }

    #[test]
    fn a_spare_program_on_a_chip_that_forbids_it_fails() {
        let mut c = Chip::builder(1)
            .pages_per_block(2)
            .page_size(8)
            .spare_size(4)
            .spare_programs(1)
            .build()
            .unwrap();
        c.program(0, &[0; 8], &[0xFF; 4]).unwrap();
        assert!(c.program_spare(0, 3, &[0]).is_err());
    }

    #[test]
    fn a_power_cut_fails_the_operation_and_every_later_one_until_power_on() {
        let mut c = small();
        c.power_cut_after(2).unwrap();
        c.program(0, &[0; 16], &[0; 8]).unwrap();
        assert!(matches!(
            c.program(1, &[0; 16], &[0; 8]),
            Err(Error::PowerCut)
        ));
        let (mut d, mut s) = ([0u8; 16], [0u8; 8]);
        assert!(matches!(c.read(0, &mut d, &mut s), Err(Error::PowerCut)));
        c.power_on();
        c.read(0, &mut d, &mut s).unwrap();
        assert_eq!(d, [0; 16]);
        // The torn page holds a prefix of its changes and counts as used.
        c.read(1, &mut d, &mut s).unwrap();
        let torn: Vec<u8> = d.iter().chain(&s).copied().collect();
        let cleared = torn.iter().take_while(|&&b| b == 0).count();
        assert!(torn[cleared..].iter().skip(1).all(|&b| b == 0xFF));
        assert_eq!(c.stats().power_cuts, 1);
    }

    #[test]
    fn a_cut_erase_leaves_a_prefix_of_the_block_erased() {
        for seed in 0..20 {
            let mut c = Chip::builder(2)
                .pages_per_block(4)
                .page_size(16)
                .spare_size(8)
                .seed(seed)
                .build()
                .unwrap();
            for p in 0..4 {
                c.program(p, &[0; 16], &[0; 8]).unwrap();
            }
            c.power_cut_after(1).unwrap();
            assert!(matches!(c.erase(0), Err(Error::PowerCut)));
            c.power_on();
            let mut all = Vec::new();
            for p in 0..4 {
                let (mut d, mut s) = ([0u8; 16], [0u8; 8]);
                c.read(p, &mut d, &mut s).unwrap();
                all.extend(d);
                all.extend(s);
            }
            let erased = all.iter().take_while(|&&b| b == 0xFF).count();
            assert!(all[erased..].iter().all(|&b| b == 0), "seed {seed}");
        }
    }

    #[test]
    fn a_file_image_survives_the_chip_laid_out_as_the_chip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("chip.img");
        let build = || {
            Chip::builder(2)
                .pages_per_block(4)
                .page_size(16)
                .spare_size(8)
                .path(&path)
                .build()
        };
        {
            let mut c = build().unwrap();
            c.program(4, &[0x11; 16], &[0x22; 8]).unwrap();
            c.program(5, &[0x33; 16], &[0xFF; 8]).unwrap();
            c.sync().unwrap();
        }
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), 8 * 24);
        assert_eq!(&bytes[4 * 24..4 * 24 + 16], &[0x11; 16]);
        assert_eq!(&bytes[4 * 24 + 16..5 * 24], &[0x22; 8]);
        let mut c = build().unwrap();
        assert_eq!(c.programmed_pages(1), 2);
        assert!(c.program(5, &[0; 16], &[0; 8]).is_err());
        let (mut d, mut s) = ([0u8; 16], [0u8; 8]);
        c.read(5, &mut d, &mut s).unwrap();
        assert_eq!(d, [0x33; 16]);
        let wrong = Chip::builder(3)
            .pages_per_block(4)
            .page_size(16)
            .spare_size(8)
            .path(&path)
            .build();
        assert!(wrong.unwrap_err().to_string().contains("geometry"));
    }

    #[test]
    fn counters_and_virtual_time_follow_table_1() {
        let mut c = Chip::builder(2).build().unwrap();
        let (d, s) = (vec![0u8; 2048], vec![0xFFu8; 64]);
        c.program(0, &d, &s).unwrap();
        let (mut rd, mut rs) = (vec![0u8; 2048], vec![0u8; 64]);
        c.read(0, &mut rd, &mut rs).unwrap();
        c.erase(1).unwrap();
        let st = c.stats();
        assert_eq!((st.programs, st.reads, st.erases), (1, 1, 1));
        assert_eq!(st.time_us, 1010.0 + 110.0 + 1500.0);
        assert_eq!(st.max_erase_count, 1);
    }
}
