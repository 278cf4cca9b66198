//! Block requests (device, byte offset, byte size) to page references.

use crate::error::{Error, Result};
use crate::types::{Op, PageId};

/// Bits of a page id that hold the device number.
const DEVICE_SHIFT: u32 = 48;

/// Where a block trace reader sends each page reference it reads.
pub trait Refs: FnMut(PageId, Op) -> Result<()> {}
impl<F: FnMut(PageId, Op) -> Result<()>> Refs for F {}

/// Maps block requests to page ids `(device << 48) | unit`, where the unit is
/// the page number (page size > 0) or the start byte (page size 0).
#[derive(Clone, Debug)]
pub struct BlockMapper {
    page_size: u64,
    /// Device names in order of first appearance (MSR host+disk pairs).
    names: Vec<String>,
}

impl BlockMapper {
    /// A mapper for `page_size`-byte pages (0: one reference per request).
    pub fn new(page_size: u64) -> Self {
        BlockMapper {
            page_size,
            names: Vec::new(),
        }
    }

    /// The device number of a named device, assigned in order of appearance.
    pub fn device(&mut self, name: &str) -> u64 {
        match self.names.iter().position(|n| n == name) {
            Some(i) => i as u64,
            None => {
                self.names.push(name.to_string());
                self.names.len() as u64 - 1
            }
        }
    }

    /// Emits the page references of one request; `bad` turns a message into
    /// an error located at the caller's line or record.
    pub fn emit(
        &self,
        device: u64,
        offset: u64,
        size: u64,
        op: Op,
        f: &mut impl Refs,
        bad: impl Fn(String) -> Error,
    ) -> Result<()> {
        if device >> (64 - DEVICE_SHIFT) != 0 {
            return Err(bad(format!(
                "device number {device} does not fit in 16 bits"
            )));
        }
        let limit = 1u64 << DEVICE_SHIFT;
        let tag = device << DEVICE_SHIFT;
        if self.page_size == 0 {
            if offset >= limit {
                return Err(bad(format!("offset {offset} is beyond 2^48 bytes")));
            }
            return f(tag | offset, op);
        }
        let first = offset / self.page_size;
        let Some(end) = offset.checked_add(size.max(1) - 1) else {
            return Err(bad(format!("offset {offset} + size {size} overflows")));
        };
        let last = end / self.page_size;
        if last >= limit {
            return Err(bad(format!("page {last} is beyond 2^48 pages")));
        }
        for p in first..=last {
            f(tag | p, op)?;
        }
        Ok(())
    }
}
