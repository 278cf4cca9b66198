//! [`ChipBuilder`]: a chip's geometry, timing, program limits, image and
//! seed, each default stated on its setter.

use super::{Chip, ChipStats, Geometry, Image, Timing, DEFAULT_PRESET};
use crate::error::{Error, Result};
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::path::{Path, PathBuf};

/// Builds a [`Chip`]. Every default is stated on its setter.
#[derive(Clone, Debug)]
pub struct ChipBuilder {
    geometry: Geometry,
    preset: String,
    timing: Option<Timing>,
    spare_programs: u8,
    data_programs: u8,
    path: Option<PathBuf>,
    seed: u64,
}

impl ChipBuilder {
    /// A chip of `blocks` erase blocks; 64 pages of 2,048 + 64 bytes each
    /// (PDL Table 1) unless set otherwise.
    pub fn new(blocks: u32) -> Self {
        ChipBuilder {
            geometry: Geometry {
                blocks,
                pages_per_block: 64,
                page_size: 2048,
                spare_size: 64,
            },
            preset: DEFAULT_PRESET.to_string(),
            timing: None,
            spare_programs: 2,
            data_programs: 1,
            path: None,
            seed: 0,
        }
    }
    /// Pages per block. Default: 64.
    pub fn pages_per_block(mut self, n: u32) -> Self {
        self.geometry.pages_per_block = n;
        self
    }
    /// Bytes in a page's data area. Default: 2,048.
    pub fn page_size(mut self, n: usize) -> Self {
        self.geometry.page_size = n;
        self
    }
    /// Bytes in a page's spare area. Default: 64.
    pub fn spare_size(mut self, n: usize) -> Self {
        self.geometry.spare_size = n;
        self
    }
    /// The device preset timing comes from. Default: `pdl10-mlc-nand`
    /// (read 110 µs, program 1,010 µs, erase 1,500 µs).
    pub fn preset(mut self, name: &str) -> Self {
        self.preset = name.to_string();
        self
    }
    crate::setters! {
        /// Explicit timing, overriding the preset's. Default: the preset's.
        timing: Some(Timing);

        /// Programs a spare area may take between erases, the first included.
        /// Default: 2 (PDL footnote 9); 1 for chips that forbid re-programming.
        spare_programs: u8;

        /// Programs a page's data area may take between erases (partial
        /// programs). Default: 1, as on the MLC chip of PDL Table 1; IPL's
        /// sector writes need `page_size / 128`.
        data_programs: u8;
    }
    /// Keeps the image in this file: opened if it exists (its size must
    /// match the geometry), else created erased. Default: in memory.
    pub fn path(mut self, p: impl AsRef<Path>) -> Self {
        self.path = Some(p.as_ref().to_path_buf());
        self
    }
    /// Seed of the generator that decides how much of a cut operation is
    /// applied. Default: 0.
    pub fn seed(mut self, s: u64) -> Self {
        self.seed = s;
        self
    }

    /// The chip.
    pub fn build(self) -> Result<Chip> {
        let g = self.geometry;
        if g.blocks == 0 || g.pages_per_block == 0 || g.page_size == 0 {
            return Err(Error::invalid(format!(
                "a NAND chip needs at least one block, one page per block and one data byte \
                 (got {} blocks of {} pages of {} bytes)",
                g.blocks, g.pages_per_block, g.page_size
            )));
        }
        if g.pages_per_block > u32::from(u16::MAX) {
            return Err(Error::invalid(format!(
                "{} pages per block; at most {}",
                g.pages_per_block,
                u16::MAX
            )));
        }
        if self.spare_programs == 0 || self.data_programs == 0 {
            return Err(Error::invalid(
                "spare_programs and data_programs must be at least 1 (the page's own program)",
            ));
        }
        let bytes = (g.blocks as u64)
            .checked_mul(u64::from(g.pages_per_block))
            .and_then(|p| p.checked_mul(g.stride() as u64))
            .and_then(|b| usize::try_from(b).ok())
            .ok_or_else(|| Error::invalid("chip image too large for this machine"))?;
        let timing = match self.timing {
            Some(t) => t,
            None => Timing::from_preset(&self.preset)?,
        };
        let image = match &self.path {
            None => {
                let mut image = Vec::new();
                image.try_reserve_exact(bytes).map_err(|_| {
                    Error::invalid(format!(
                        "cannot allocate a chip of {} blocks ({bytes} bytes) in memory",
                        g.blocks
                    ))
                })?;
                image.resize(bytes, 0xFF);
                Image::Mem(image)
            }
            Some(p) => Image::open(p, bytes)?,
        };
        let mut chip = Chip {
            geometry: g,
            timing,
            spare_limit: self.spare_programs,
            data_limit: self.data_programs,
            image,
            next: vec![0; g.blocks as usize],
            spare_count: vec![0; g.pages() as usize],
            data_count: vec![0; g.pages() as usize],
            wear: vec![0; g.blocks as usize],
            stats: ChipStats::default(),
            cut_in: None,
            format: None,
            epoch: 0,
            off: false,
            rng: Pcg64::seed_from_u64(self.seed),
        };
        // A new image in memory is all 1s; a file's says what was programmed.
        if matches!(chip.image, Image::File { .. }) {
            for b in 0..g.blocks {
                chip.rescan_block(b);
            }
        }
        Ok(chip)
    }
}
