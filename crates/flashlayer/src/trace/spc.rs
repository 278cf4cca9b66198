//! UMass / SPC block traces: csv lines `ASU,LBA,Size,Opcode,Timestamp`, LBA
//! in 512-byte sectors, size in bytes, opcode `r`/`R` or `w`/`W`. The ASU is
//! the device number.

use super::block::{BlockMapper, Refs};
use super::input::{fields, uint, Lines};
use crate::error::Result;
use crate::types::Op;
use std::path::Path;

const SECTOR: u64 = 512;

pub(crate) fn read(path: &Path, map: &mut BlockMapper, f: &mut impl Refs) -> Result<()> {
    let mut lines = Lines::open(path)?;
    while let Some((no, line)) = lines.next_line()? {
        let parsed = (|| {
            let [asu, lba, size, opcode, _ts] = fields::<5>(line, "ASU,LBA,Size,Opcode,Timestamp")?;
            let op = match opcode {
                "r" | "R" => Op::Read,
                "w" | "W" => Op::Write,
                other => return Err(format!("expected Opcode r or w, found '{other}'")),
            };
            let lba = uint(lba, "LBA")?;
            let offset = lba
                .checked_mul(SECTOR)
                .ok_or_else(|| format!("LBA {lba} overflows a byte offset"))?;
            Ok((uint(asu, "ASU")?, offset, uint(size, "Size")?, op))
        })();
        let (asu, offset, size, op) = parsed.map_err(|m| lines.error(no, m))?;
        map.emit(asu, offset, size, op, f, |m| lines.error(no, m))?;
    }
    Ok(())
}
