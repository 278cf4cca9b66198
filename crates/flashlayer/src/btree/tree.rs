//! A B+-tree with variable-length keys and values on slotted pages.
//!
//! Leaves hold `(key, value)` cells in key order and link to their right
//! sibling; internal nodes hold `(separator, child)` cells plus a leftmost
//! child in the header's link field: child `i` covers keys in
//! `[sep_i, sep_{i+1})`. Keys compare as byte strings (encode numbers big
//! endian). Inserts split full nodes by bytes, half and half; a root split
//! adds a level. Deletes remove the cell and never merge nodes (like
//! PostgreSQL's B-tree without VACUUM); empty leaves stay linked and are
//! reused by later inserts into their key range.
//!
//! Every page access is one fix of the buffer pool, so a recorder on the pool
//! sees the tree's real page reference string: internal nodes are fixed for
//! reading, the leaf for writing when an operation may change it.
//!
//! A tree is a handle into a [`Space`]; it is not safe to modify one tree
//! from several threads at once (there is no latch coupling).

use super::page::{self, KIND_INTERNAL, KIND_LEAF, NONE};
use super::space::{ObjKind, Object, Space};
use crate::error::{Error, Result};
use crate::policy::Policy;
use crate::store::PageStore;
use crate::types::PageId;
use std::ops::Bound;

/// Cell: u16 key length, u16 value length, key, value.
const CELL_HDR: usize = 4;

fn cell_size(b: &[u8], off: usize) -> usize {
    let k = usize::from(u16::from_le_bytes([b[off], b[off + 1]]));
    let v = usize::from(u16::from_le_bytes([b[off + 2], b[off + 3]]));
    CELL_HDR + k + v
}

fn key(b: &[u8], i: usize) -> &[u8] {
    let off = page::slot(b, i);
    let k = usize::from(u16::from_le_bytes([b[off], b[off + 1]]));
    &b[off + CELL_HDR..off + CELL_HDR + k]
}

fn val_range(b: &[u8], i: usize) -> std::ops::Range<usize> {
    let off = page::slot(b, i);
    let k = usize::from(u16::from_le_bytes([b[off], b[off + 1]]));
    let v = usize::from(u16::from_le_bytes([b[off + 2], b[off + 3]]));
    off + CELL_HDR + k..off + CELL_HDR + k + v
}

fn val(b: &[u8], i: usize) -> &[u8] {
    &b[val_range(b, i)]
}

fn child(b: &[u8], i: usize) -> u32 {
    page::u32_at(val(b, i), 0)
}

/// Binary search: `Ok(i)` if `key(i) == k`, else `Err(insertion point)`.
fn search(b: &[u8], k: &[u8]) -> std::result::Result<usize, usize> {
    let (mut lo, mut hi) = (0, page::n(b));
    while lo < hi {
        let mid = (lo + hi) / 2;
        match key(b, mid).cmp(k) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Ok(mid),
        }
    }
    Err(lo)
}

/// The child to follow for `k` in an internal node and its position
/// (`None` for the leftmost child).
fn route(b: &[u8], k: &[u8]) -> (u32, Option<usize>) {
    match search(b, k) {
        Ok(i) => (child(b, i), Some(i)),
        Err(0) => (page::link(b), None),
        Err(i) => (child(b, i - 1), Some(i - 1)),
    }
}

fn write_cell(b: &mut [u8], off: usize, k: &[u8], v: &[u8]) {
    b[off..off + 2].copy_from_slice(&(k.len() as u16).to_le_bytes());
    b[off + 2..off + 4].copy_from_slice(&(v.len() as u16).to_le_bytes());
    b[off + CELL_HDR..off + CELL_HDR + k.len()].copy_from_slice(k);
    b[off + CELL_HDR + k.len()..off + CELL_HDR + k.len() + v.len()].copy_from_slice(v);
}

/// Inserts a cell at `pos`, compacting first if that makes it fit.
fn try_insert(b: &mut [u8], pos: usize, k: &[u8], v: &[u8], scratch: &mut Vec<u8>) -> bool {
    let size = CELL_HDR + k.len() + v.len();
    if page::free_space(b) < size + 2 {
        if page::reclaimable(b, cell_size) < size + 2 {
            return false;
        }
        page::compact(b, cell_size, scratch);
    }
    let off = page::alloc(b, pos, size).expect("space checked");
    write_cell(b, off, k, v);
    true
}

/// Rewrites a node with exactly `cells`.
fn fill(b: &mut [u8], kind: u8, level: u8, link: u32, cells: &[(Vec<u8>, Vec<u8>)]) {
    page::init(b, kind, level);
    page::set_link(b, link);
    for (i, (k, v)) in cells.iter().enumerate() {
        let off = page::alloc(b, i, CELL_HDR + k.len() + v.len()).expect("half a node fits");
        write_cell(b, off, k, v);
    }
}

fn cells_of(b: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..page::n(b))
        .map(|i| (key(b, i).to_vec(), val(b, i).to_vec()))
        .collect()
}

/// Index of the first cell of the right half, splitting by bytes.
fn split_point(cells: &[(Vec<u8>, Vec<u8>)]) -> usize {
    let total: usize = cells
        .iter()
        .map(|(k, v)| CELL_HDR + 2 + k.len() + v.len())
        .sum();
    let mut acc = 0;
    for (i, (k, v)) in cells.iter().enumerate() {
        acc += CELL_HDR + 2 + k.len() + v.len();
        if acc * 2 >= total {
            return (i + 1).clamp(1, cells.len() - 1);
        }
    }
    cells.len() / 2
}

/// A B+-tree in a [`Space`].
#[derive(Debug, Clone)]
pub struct BTree {
    id: usize,
    max_cell: usize,
}

impl BTree {
    /// Creates an empty tree named `name`.
    pub fn create<P: Policy, S: PageStore>(sp: &Space<P, S>, name: &str) -> Result<Self> {
        let root = sp.alloc()?;
        {
            let mut g = sp.pool().fix_write(PageId::from(root))?;
            page::init(&mut g, KIND_LEAF, 0);
        }
        let id = sp.register(Object {
            name: name.to_string(),
            kind: ObjKind::BTree,
            a: root,
            b: 1,
        })?;
        Ok(Self::handle(sp, id))
    }

    /// Opens the tree named `name`.
    pub fn open<P: Policy, S: PageStore>(sp: &Space<P, S>, name: &str) -> Result<Self> {
        let id = sp.find(name, ObjKind::BTree)?;
        Ok(Self::handle(sp, id))
    }

    fn handle<P: Policy, S: PageStore>(sp: &Space<P, S>, id: usize) -> Self {
        // Four cells must fit in a node so that a split leaves both halves
        // non-empty and a separator always fits in the parent.
        let max_cell = (sp.page_size() - page::HDR) / 4 - 2;
        BTree { id, max_cell }
    }

    /// Largest `key.len() + max(value.len(), 4)` this tree accepts: a
    /// quarter of a page less a few bytes of bookkeeping.
    pub fn max_entry(&self) -> usize {
        self.max_cell - CELL_HDR
    }

    fn root<P: Policy, S: PageStore>(&self, sp: &Space<P, S>) -> (u32, u32) {
        let c = sp.cat();
        (c.objects[self.id].a, c.objects[self.id].b)
    }

    /// Descends to the leaf for `k`; returns it and the internal pages on
    /// the way (root first).
    fn descend<P: Policy, S: PageStore>(
        &self,
        sp: &Space<P, S>,
        k: &[u8],
        path: Option<&mut Vec<u32>>,
    ) -> Result<u32> {
        let (mut pg, height) = self.root(sp);
        let mut path = path;
        for _ in 1..height {
            let g = sp.pool().fix_read(PageId::from(pg))?;
            if page::kind(&g) != KIND_INTERNAL {
                return Err(Error::Store(format!(
                    "page {pg} should be an internal node"
                )));
            }
            if let Some(p) = path.as_deref_mut() {
                p.push(pg);
            }
            pg = route(&g, k).0;
        }
        Ok(pg)
    }

    /// Calls `f` with the value of `k`, if present; returns its result.
    pub fn get_with<P: Policy, S: PageStore, R>(
        &self,
        sp: &Space<P, S>,
        k: &[u8],
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<Option<R>> {
        let leaf = self.descend(sp, k, None)?;
        let g = sp.pool().fix_read(PageId::from(leaf))?;
        Ok(search(&g, k).ok().map(|i| f(val(&g, i))))
    }

    /// The value of `k`, if present.
    pub fn get<P: Policy, S: PageStore>(
        &self,
        sp: &Space<P, S>,
        k: &[u8],
    ) -> Result<Option<Vec<u8>>> {
        self.get_with(sp, k, <[u8]>::to_vec)
    }

    /// Changes the value of `k` in place (same length) with `f`; returns
    /// whether the key was present. Only the bytes `f` changes are modified.
    pub fn update_in_place<P: Policy, S: PageStore>(
        &self,
        sp: &Space<P, S>,
        k: &[u8],
        f: impl FnOnce(&mut [u8]),
    ) -> Result<bool> {
        let leaf = self.descend(sp, k, None)?;
        let mut g = sp.pool().fix_write(PageId::from(leaf))?;
        let Ok(i) = search(&g, k) else {
            return Ok(false);
        };
        let r = val_range(&g, i);
        f(&mut g[r]);
        Ok(true)
    }

    /// Inserts or replaces `k`; returns whether it replaced a value.
    pub fn insert<P: Policy, S: PageStore>(
        &self,
        sp: &Space<P, S>,
        k: &[u8],
        v: &[u8],
    ) -> Result<bool> {
        self.put(sp, k, v, true)
    }

    /// Inserts `k` only if it is absent (a unique-key insert); returns
    /// whether it was inserted. An existing key leaves the leaf unmodified.
    pub fn insert_if_absent<P: Policy, S: PageStore>(
        &self,
        sp: &Space<P, S>,
        k: &[u8],
        v: &[u8],
    ) -> Result<bool> {
        Ok(!self.put(sp, k, v, false)?)
    }

    /// Returns whether `k` existed; replaces its value only if `replace`.
    fn put<P: Policy, S: PageStore>(
        &self,
        sp: &Space<P, S>,
        k: &[u8],
        v: &[u8],
        replace: bool,
    ) -> Result<bool> {
        // The key may also travel up as a separator with a 4-byte child.
        if CELL_HDR + k.len() + v.len().max(4) > self.max_cell {
            return Err(Error::invalid(format!(
                "key + value of {} bytes exceed this tree's limit of {} bytes",
                k.len() + v.len(),
                self.max_entry()
            )));
        }
        let mut path = Vec::new();
        let leaf = self.descend(sp, k, Some(&mut path))?;
        let mut scratch = Vec::new();
        let mut g = sp.pool().fix_write(PageId::from(leaf))?;
        let (pos, replaced) = match search(&g[..], k) {
            Ok(_) if !replace => return Ok(true),
            Ok(i) => {
                let r = val_range(&g, i);
                if r.len() == v.len() {
                    if g[r.clone()] != *v {
                        g[r].copy_from_slice(v);
                    }
                    return Ok(true);
                }
                page::remove_slot(&mut g, i);
                (i, true)
            }
            Err(i) => (i, false),
        };
        if try_insert(&mut g, pos, k, v, &mut scratch) {
            return Ok(replaced);
        }
        // Split the leaf: all cells plus the new one, halved by bytes.
        let mut cells = cells_of(&g);
        cells.insert(pos, (k.to_vec(), v.to_vec()));
        let m = split_point(&cells);
        let right = sp.alloc()?;
        {
            let mut r = sp.pool().fix_write(PageId::from(right))?;
            fill(&mut r, KIND_LEAF, 0, page::link(&g), &cells[m..]);
        }
        fill(&mut g, KIND_LEAF, 0, right, &cells[..m]);
        drop(g);
        let sep = cells.swap_remove(m).0;
        self.insert_up(sp, path, sep, right, &mut scratch)?;
        Ok(replaced)
    }

    /// Inserts separator `sep` with right child `right` into the parents on
    /// `path`, splitting upwards; grows a new root when the root splits.
    fn insert_up<P: Policy, S: PageStore>(
        &self,
        sp: &Space<P, S>,
        mut path: Vec<u32>,
        mut sep: Vec<u8>,
        mut right: u32,
        scratch: &mut Vec<u8>,
    ) -> Result<()> {
        while let Some(parent) = path.pop() {
            let mut g = sp.pool().fix_write(PageId::from(parent))?;
            let pos = match search(&g, &sep) {
                Ok(i) | Err(i) => i,
            };
            let child = right.to_le_bytes();
            if try_insert(&mut g, pos, &sep, &child, scratch) {
                return Ok(());
            }
            let mut cells = cells_of(&g);
            cells.insert(pos, (sep, child.to_vec()));
            let m = split_point(&cells);
            let level = page::level(&g);
            let new = sp.alloc()?;
            let (up_key, up_child) = cells[m].clone();
            {
                let mut r = sp.pool().fix_write(PageId::from(new))?;
                fill(
                    &mut r,
                    KIND_INTERNAL,
                    level,
                    page::u32_at(&up_child, 0),
                    &cells[m + 1..],
                );
            }
            let leftmost = page::link(&g);
            fill(&mut g, KIND_INTERNAL, level, leftmost, &cells[..m]);
            sep = up_key;
            right = new;
        }
        // The root split: a new root above the old one.
        let (old_root, height) = self.root(sp);
        let new_root = sp.alloc()?;
        {
            let mut g = sp.pool().fix_write(PageId::from(new_root))?;
            page::init(&mut g, KIND_INTERNAL, height as u8);
            page::set_link(&mut g, old_root);
            let child = right.to_le_bytes();
            assert!(
                try_insert(&mut g, 0, &sep, &child, scratch),
                "an empty root takes one cell"
            );
        }
        let mut c = sp.cat();
        c.objects[self.id].a = new_root;
        c.objects[self.id].b = height + 1;
        Ok(())
    }

    /// Removes `k`; returns whether it was present.
    pub fn delete<P: Policy, S: PageStore>(&self, sp: &Space<P, S>, k: &[u8]) -> Result<bool> {
        let leaf = self.descend(sp, k, None)?;
        let mut g = sp.pool().fix_write(PageId::from(leaf))?;
        // Look before writing: an absent key must not dirty the page.
        let Ok(i) = search(&g[..], k) else {
            return Ok(false);
        };
        page::remove_slot(&mut g, i);
        Ok(true)
    }

    /// Calls `f(key, value)` for keys in `(from, to)` in order, until `f`
    /// returns `false`. Returns the number of entries visited.
    pub fn scan<P: Policy, S: PageStore>(
        &self,
        sp: &Space<P, S>,
        from: Bound<&[u8]>,
        to: Bound<&[u8]>,
        mut f: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> Result<u64> {
        let start: &[u8] = match from {
            Bound::Included(k) | Bound::Excluded(k) => k,
            Bound::Unbounded => &[],
        };
        let mut pg = self.descend(sp, start, None)?;
        let mut seen = 0;
        loop {
            let g = sp.pool().fix_read(PageId::from(pg))?;
            let first = match from {
                Bound::Included(k) => search(&g, k).unwrap_or_else(|i| i),
                Bound::Excluded(k) => search(&g, k).map_or_else(|i| i, |i| i + 1),
                Bound::Unbounded => 0,
            };
            for i in first..page::n(&g) {
                let kk = key(&g, i);
                let past = match to {
                    Bound::Included(t) => kk > t,
                    Bound::Excluded(t) => kk >= t,
                    Bound::Unbounded => false,
                };
                if past {
                    return Ok(seen);
                }
                seen += 1;
                if !f(kk, val(&g, i)) {
                    return Ok(seen);
                }
            }
            let next = page::link(&g);
            if next == NONE {
                return Ok(seen);
            }
            pg = next;
        }
    }

    /// Height of the tree (1 when the root is a leaf).
    pub fn height<P: Policy, S: PageStore>(&self, sp: &Space<P, S>) -> u32 {
        self.root(sp).1
    }
}
