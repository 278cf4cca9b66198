//! VMware vscsi block traces, version 1: 32-byte little-endian records
//! `sn: u32, len: u32, nSG: u32, cmd: u16, ver: u16, lbn: u64, ts: u64`.
//! `lbn` counts 512-byte sectors and `len` bytes. `cmd` is a SCSI opcode:
//! READ(6/10/12/16) = 0x08/0x28/0xA8/0x88, WRITE(6/10/12/16) =
//! 0x0A/0x2A/0xAA/0x8A; any other opcode is an error.

use super::block::{BlockMapper, Refs};
use super::input::records;
use crate::error::Result;
use crate::types::Op;
use std::path::Path;

const SECTOR: u64 = 512;

pub(crate) fn read(path: &Path, map: &mut BlockMapper, f: &mut impl Refs) -> Result<()> {
    records::<32>(path, |at, r| {
        let len = u32::from_le_bytes(r[4..8].try_into().expect("4 bytes"));
        let cmd = u16::from_le_bytes(r[12..14].try_into().expect("2 bytes"));
        let lbn = u64::from_le_bytes(r[16..24].try_into().expect("8 bytes"));
        let op = match cmd {
            0x08 | 0x28 | 0xA8 | 0x88 => Op::Read,
            0x0A | 0x2A | 0xAA | 0x8A => Op::Write,
            other => {
                return Err(at.bad(format_args!(
                    "expected a SCSI READ or WRITE opcode, found {other:#04x} (is this a vscsi v1 trace?)"
                )))
            }
        };
        let Some(offset) = lbn.checked_mul(SECTOR) else {
            return Err(at.bad(format_args!("lbn {lbn} overflows a byte offset")));
        };
        map.emit(0, offset, u64::from(len), op, f, |m| at.bad(m))
    })
}
