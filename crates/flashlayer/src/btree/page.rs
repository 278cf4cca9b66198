//! Slotted pages, the layout shared by B+-tree nodes and heap pages.
//!
//! ```text
//! 0      1      2        4          6        8        12       16
//! | kind | level| n_slots| free_end | unused | link   | unused | slot[0] slot[1] ... -> free <- ... cells |
//! ```
//!
//! Slots are u16 offsets of cells, in key order for tree nodes. Cells grow
//! down from the end of the page. Removing a cell leaves garbage that
//! [`compact`] reclaims when an insert would not fit otherwise. All offsets
//! are u16, so pages are at most 32 KiB.

use crate::error::{Error, Result};

pub(crate) const HDR: usize = 16;
pub(crate) const NONE: u32 = u32::MAX;

pub(crate) const KIND_LEAF: u8 = 1;
pub(crate) const KIND_INTERNAL: u8 = 2;
pub(crate) const KIND_HEAP: u8 = 3;

/// Smallest and largest supported page sizes.
pub const MIN_PAGE: usize = 512;
/// Largest page size (u16 offsets).
pub const MAX_PAGE: usize = 32 * 1024;

pub(crate) fn check_page_size(n: usize) -> Result<()> {
    if !(MIN_PAGE..=MAX_PAGE).contains(&n) {
        return Err(Error::invalid(format!(
            "page size must be between {MIN_PAGE} and {MAX_PAGE} bytes, got {n}"
        )));
    }
    Ok(())
}

#[inline]
fn u16_at(b: &[u8], o: usize) -> usize {
    usize::from(u16::from_le_bytes([b[o], b[o + 1]]))
}

#[inline]
fn put_u16(b: &mut [u8], o: usize, v: usize) {
    b[o..o + 2].copy_from_slice(&(v as u16).to_le_bytes());
}

/// Reads the little-endian u32 at `o`.
#[inline]
pub(crate) fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"))
}

/// Writes a little-endian u32 at `o`.
#[inline]
pub(crate) fn put_u32(b: &mut [u8], o: usize, v: u32) {
    b[o..o + 4].copy_from_slice(&v.to_le_bytes());
}

pub(crate) fn init(b: &mut [u8], kind: u8, level: u8) {
    b[..HDR].fill(0);
    b[0] = kind;
    b[1] = level;
    let len = b.len();
    set_free_end(b, len);
    set_link(b, NONE);
}

#[inline]
pub(crate) fn kind(b: &[u8]) -> u8 {
    b[0]
}
#[inline]
pub(crate) fn level(b: &[u8]) -> u8 {
    b[1]
}
#[inline]
pub(crate) fn n(b: &[u8]) -> usize {
    u16_at(b, 2)
}
#[inline]
fn set_n(b: &mut [u8], v: usize) {
    put_u16(b, 2, v);
}
#[inline]
fn free_end(b: &[u8]) -> usize {
    match u16_at(b, 4) {
        // A 32 KiB page stores its end as 0 (65536 does not fit, 32768 does,
        // but keep one rule for every size).
        0 => b.len(),
        v => v,
    }
}
#[inline]
fn set_free_end(b: &mut [u8], v: usize) {
    put_u16(b, 4, if v == b.len() { 0 } else { v });
}
#[inline]
pub(crate) fn link(b: &[u8]) -> u32 {
    u32_at(b, 8)
}
#[inline]
pub(crate) fn set_link(b: &mut [u8], v: u32) {
    put_u32(b, 8, v);
}
#[inline]
pub(crate) fn slot(b: &[u8], i: usize) -> usize {
    u16_at(b, HDR + 2 * i)
}
#[inline]
pub(crate) fn set_slot(b: &mut [u8], i: usize, off: usize) {
    put_u16(b, HDR + 2 * i, off);
}

/// Bytes between the slot array and the cells.
pub(crate) fn free_space(b: &[u8]) -> usize {
    free_end(b) - (HDR + 2 * n(b))
}

/// [`free_space`], or `None` if the slot array runs past the cells (a
/// corrupt page).
pub(crate) fn free_space_checked(b: &[u8]) -> Option<usize> {
    let end = free_end(b);
    if end > b.len() {
        return None;
    }
    end.checked_sub(HDR + 2 * n(b))
}

/// Reserves `size` bytes of cell space without a slot; returns its offset,
/// or `None` if it does not fit contiguously (a slot's 2 bytes included, so
/// that a following [`alloc`] of the same cell cannot fail).
pub(crate) fn reserve(b: &mut [u8], size: usize) -> Option<usize> {
    if free_space(b) < size + 2 {
        return None;
    }
    let off = free_end(b) - size;
    set_free_end(b, off);
    Some(off)
}

/// Reserves `size` bytes of cell space and a new slot at `pos` pointing to
/// it; returns the cell offset, or `None` if it does not fit contiguously.
pub(crate) fn alloc(b: &mut [u8], pos: usize, size: usize) -> Option<usize> {
    let off = reserve(b, size)?;
    let cnt = n(b);
    let start = HDR + 2 * pos;
    let end = HDR + 2 * cnt;
    b.copy_within(start..end, start + 2);
    set_n(b, cnt + 1);
    set_slot(b, pos, off);
    Some(off)
}

/// Appends a slot without moving others (heap pages keep slot numbers).
pub(crate) fn alloc_last(b: &mut [u8], size: usize) -> Option<(usize, usize)> {
    let pos = n(b);
    alloc(b, pos, size).map(|off| (pos, off))
}

/// Removes slot `pos`, shifting later slots down; the cell becomes garbage.
pub(crate) fn remove_slot(b: &mut [u8], pos: usize) {
    let cnt = n(b);
    let start = HDR + 2 * (pos + 1);
    let end = HDR + 2 * cnt;
    b.copy_within(start..end, start - 2);
    set_n(b, cnt - 1);
}

/// Packs live cells against the end of the page. `size(b, off)` is the size
/// of the cell at `off`; slots with offset 0 are empty (heap) and skipped.
pub(crate) fn compact(b: &mut [u8], size: impl Fn(&[u8], usize) -> usize, scratch: &mut Vec<u8>) {
    scratch.clear();
    scratch.extend_from_slice(b);
    let mut end = b.len();
    for i in 0..n(b) {
        let off = slot(scratch, i);
        if off == 0 {
            continue;
        }
        let sz = size(scratch, off);
        end -= sz;
        b[end..end + sz].copy_from_slice(&scratch[off..off + sz]);
        set_slot(b, i, end);
    }
    set_free_end(b, end);
}

/// Live cell bytes (without slots).
pub(crate) fn live_bytes(b: &[u8], size: impl Fn(&[u8], usize) -> usize) -> usize {
    (0..n(b))
        .map(|i| slot(b, i))
        .filter(|&o| o != 0)
        .map(|o| size(b, o))
        .sum()
}

/// Bytes an insert of `size` could use after compaction.
pub(crate) fn reclaimable(b: &[u8], size: impl Fn(&[u8], usize) -> usize) -> usize {
    b.len() - HDR - 2 * n(b) - live_bytes(b, size)
}
