//! libCacheSim `oracleGeneral` traces: 24-byte little-endian records
//! `clock_time: u32, obj_id: u64, obj_size: u32, next_access_vtime: i64`.
//! They carry no operation, so every request is a read; the object id is the
//! page id. Object sizes are not used: flashlayer buffers whole pages.

use super::input::records;
use crate::error::Result;
use crate::types::{Op, PageId};
use std::path::Path;

pub(crate) fn read(path: &Path, f: &mut impl FnMut(PageId, Op) -> Result<()>) -> Result<()> {
    records::<24>(path, |_, r| {
        let id = u64::from_le_bytes(r[4..12].try_into().expect("8 bytes"));
        f(id, Op::Read)
    })
}
