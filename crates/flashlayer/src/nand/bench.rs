//! The emulator's own speed: page operations per second of an in-memory
//! chip (`flashlayer bench --flash`).

use super::Chip;
use crate::error::Result;

/// Programs, reads and erases every block of an in-memory chip of
/// `blocks` blocks `rounds` times (PDL Table 1's geometry); returns the page
/// operations done and the wall-clock seconds they took (`flashlayer bench
/// --flash`).
pub fn bench(blocks: u32, rounds: u32) -> Result<(u64, f64)> {
    let mut chip = Chip::builder(blocks).build()?;
    let g = chip.geometry();
    let data: Vec<u8> = (0..g.page_size).map(|i| (i * 7) as u8).collect();
    let spare = vec![0xA5u8; g.spare_size];
    let (mut rd, mut rs) = (vec![0u8; g.page_size], vec![0u8; g.spare_size]);
    let started = std::time::Instant::now();
    for _ in 0..rounds {
        for b in 0..g.blocks {
            for p in g.first_page(b)..g.first_page(b) + g.pages_per_block {
                chip.program(p, &data, &spare)?;
            }
            for p in g.first_page(b)..g.first_page(b) + g.pages_per_block {
                chip.read(p, &mut rd, &mut rs)?;
            }
            chip.erase(b)?;
        }
    }
    Ok((chip.stats().operations(), started.elapsed().as_secs_f64()))
}
