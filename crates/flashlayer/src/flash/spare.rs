//! The header every method writes into a page's spare area.
//!
//! | bytes | field |
//! |---|---|
//! | 0 | kind (`0xFF`: never programmed) |
//! | 1..5 | id: the logical page (base, IPU and IPL pages) or erase unit |
//! | 5..13 | creation time stamp (PDL §4.2, §4.5) |
//! | 13..17 | a method's own field (IPL: the page's slot in its unit) |
//! | 17..21 | CRC-32 of the data area and bytes 0..17 |
//! | last | obsolete mark: `0xFF` live, anything else obsolete |
//!
//! The obsolete mark is the spare area's last byte so that an erase cut
//! part-way through a page (erases go in address order) either leaves the
//! mark as it was or has already erased the header before it, which the
//! checksum then rejects.

use crate::error::{Error, Result};
use crate::nand::Chip;

const CRC_AT: usize = 17;
/// Spare bytes the header needs, the obsolete mark included.
pub(crate) const MIN_SPARE: usize = 22;

pub(crate) const BASE: u8 = 0xB0;
pub(crate) const DIFF: u8 = 0xD0;
pub(crate) const IPU: u8 = 0xA0;
pub(crate) const IPL_DATA: u8 = 0xE0;

/// A page's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub kind: u8,
    pub id: u32,
    pub ts: u64,
    pub aux: u32,
}

fn crc(data: &[u8], head: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(data);
    h.update(head);
    h.finalize()
}

/// Fills `spare` with `h` and the checksum of `data`; the rest stays 1s.
pub(crate) fn encode(h: Header, data: &[u8], spare: &mut [u8]) {
    spare.fill(0xFF);
    spare[0] = h.kind;
    spare[1..5].copy_from_slice(&h.id.to_le_bytes());
    spare[5..13].copy_from_slice(&h.ts.to_le_bytes());
    spare[13..17].copy_from_slice(&h.aux.to_le_bytes());
    let c = crc(data, &spare[..CRC_AT]);
    spare[CRC_AT..CRC_AT + 4].copy_from_slice(&c.to_le_bytes());
}

/// The header of a programmed, untorn page, and whether it is marked
/// obsolete; `None` for a page never programmed or one whose checksum
/// fails (torn by a cut, or partly erased).
pub(crate) fn decode(data: &[u8], spare: &[u8]) -> Option<(Header, bool)> {
    if spare[0] == 0xFF {
        return None;
    }
    let word = |r: std::ops::Range<usize>| u32::from_le_bytes(spare[r].try_into().expect("4"));
    if crc(data, &spare[..CRC_AT]) != word(CRC_AT..CRC_AT + 4) {
        return None;
    }
    let h = Header {
        kind: spare[0],
        id: word(1..5),
        ts: u64::from_le_bytes(spare[5..13].try_into().expect("8")),
        aux: word(13..17),
    };
    Some((h, spare[spare.len() - 1] != 0xFF))
}

/// Where the obsolete mark is in a spare area of `spare_size` bytes, and
/// the byte that marks it.
pub(crate) fn mark_at(spare_size: usize) -> (usize, [u8; 1]) {
    (spare_size - 1, [0])
}

/// The error for a page of kind `kind` at `ppn` that another method wrote.
pub(crate) fn foreign(ppn: u32, kind: u8) -> Error {
    Error::invalid(format!(
        "page {ppn} of the chip was written by another method (kind {kind:#x}); open the chip \
         with the method that wrote it"
    ))
}

/// Whether the chip's pages can carry the header and the methods' offsets.
pub(crate) fn check_geometry(chip: &Chip) -> Result<()> {
    let g = chip.geometry();
    if g.spare_size < MIN_SPARE {
        return Err(Error::invalid(format!(
            "the flash methods need a spare area of at least {MIN_SPARE} bytes (got {})",
            g.spare_size
        )));
    }
    if g.page_size > usize::from(u16::MAX) || g.page_size < 64 {
        return Err(Error::invalid(format!(
            "the flash methods need pages of 64 to {} data bytes (got {})",
            u16::MAX,
            g.page_size
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_round_trips_and_any_flipped_bit_is_rejected() {
        let data = vec![0x5Au8; 64];
        let mut spare = vec![0u8; 32];
        let h = Header {
            kind: BASE,
            id: 7,
            ts: 99,
            aux: 3,
        };
        encode(h, &data, &mut spare);
        assert_eq!(decode(&data, &spare), Some((h, false)));
        for bit in 0..(CRC_AT + 4) * 8 {
            let mut s = spare.clone();
            s[bit / 8] ^= 1 << (bit % 8);
            if s[0] != 0xFF {
                assert_eq!(decode(&data, &s), None, "bit {bit}");
            }
        }
        let mut d = data.clone();
        d[10] ^= 4;
        assert_eq!(decode(&d, &spare), None);
        let (at, m) = mark_at(32);
        spare[at] = m[0];
        assert_eq!(decode(&data, &spare), Some((h, true)));
    }
}
