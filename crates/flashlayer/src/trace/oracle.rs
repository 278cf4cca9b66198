//! libCacheSim `oracleGeneral` traces: 24-byte little-endian records
//! `clock_time: u32, obj_id: u64, obj_size: u32, next_access_vtime: i64`.
//! They carry no operation, so every request is a read; the object id is the
//! page id. Object sizes are not used: flashlayer buffers whole pages, one
//! object a page; [`object_sizes`] reports them.
//!
//! The records carry a check that lets a reader tell a real trace from bytes
//! that merely have the right length (a compressed file read raw, say):
//! `next_access_vtime` is the 0-based index of the object's next request, so
//! it is either later than the record itself or "never" (-1, or `i64::MAX`
//! in some traces). A record that breaks this is an error naming its offset.

use super::block::Refs;
use super::input::records;
use crate::error::Result;
use crate::types::Op;
use std::path::Path;

pub(crate) fn read(path: &Path, f: &mut impl Refs) -> Result<()> {
    records::<24>(path, |at, r| {
        let id = u64::from_le_bytes(r[4..12].try_into().expect("8 bytes"));
        let next = i64::from_le_bytes(r[16..24].try_into().expect("8 bytes"));
        let later = u64::try_from(next).is_ok_and(|n| n > at.index);
        if !(later || next == -1 || next == i64::MAX) {
            return Err(at.bad(format_args!(
                "next_access_vtime {next} is neither -1 nor after this record, so this is not an \
                 oracleGeneral trace (a compressed file is read by its magic bytes: gzip and zstd are \
                 supported)"
            )));
        }
        f(id, Op::Read)
    })
}

/// The object sizes an oracleGeneral trace gives, which a page cache does
/// not use.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ObjectSizes {
    /// Records read.
    pub records: u64,
    /// The smallest size, in bytes.
    pub min: u64,
    /// The largest size, in bytes.
    pub max: u64,
    /// The mean size, in bytes.
    pub mean: f64,
}

/// The object sizes of the oracleGeneral trace at `path`.
pub fn object_sizes(path: &Path) -> Result<ObjectSizes> {
    let mut s = ObjectSizes {
        min: u64::MAX,
        ..ObjectSizes::default()
    };
    let mut total = 0u128;
    super::input::spooled(path, |p| {
        records::<24>(p, |_, r| {
            let size = u64::from(u32::from_le_bytes(r[12..16].try_into().expect("4 bytes")));
            s.records += 1;
            s.min = s.min.min(size);
            s.max = s.max.max(size);
            total += u128::from(size);
            Ok(())
        })
    })?;
    if s.records == 0 {
        s.min = 0;
    } else {
        s.mean = total as f64 / s.records as f64;
    }
    Ok(s)
}
