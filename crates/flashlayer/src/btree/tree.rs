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
//! Concurrency: a page guard of the pool is the page's latch (shared for
//! reading, exclusive for writing), and any number of threads may use one
//! tree. Every descent couples latches (a child is latched before its parent
//! is released) and latches go top-down, then left to right along the
//! leaves, so no two threads wait for each other in a circle. Reads and
//! scans latch for reading. A change latches the leaf alone for writing
//! after a read-latched descent (Bayer & Schkolnick's optimistic descent);
//! if the leaf must split, the change starts again from the root latching
//! for writing and keeps only the latches of nodes that may split with the
//! leaf: those above a node with room for one more cell of the tree's
//! largest size are released as soon as that node is latched. A root split
//! changes the catalog while the old root is latched, and a descent checks
//! the catalog again once it holds the root, so it never starts below a new
//! root. [`BTree::check`] walks a tree and verifies its invariants.
//!
//! Failures: a split keeps every node it changes latched, with a copy of
//! its bytes from before, until its last step; if taking a new page fails
//! (an I/O error, a pool whose frames are all pinned) it puts them back and
//! returns its new pages to the space, so the insert fails with the tree
//! as it was. Taking every new page first instead would pin twice the
//! tree's height in frames at once.

use super::page::{self, KIND_INTERNAL, KIND_LEAF, NONE};
use super::space::{ObjKind, Space};
use crate::buffer::{PageMut, PageRef};
use crate::error::{Error, Result};
use crate::policy::Policy;
use crate::store::PageStore;
use crate::types::PageId;
use std::ops::{Bound, DerefMut};

/// Cell: u16 key length, u16 value length, key, value.
pub(super) const CELL_HDR: usize = 4;

pub(super) fn cell_size(b: &[u8], off: usize) -> usize {
    let k = usize::from(u16::from_le_bytes([b[off], b[off + 1]]));
    let v = usize::from(u16::from_le_bytes([b[off + 2], b[off + 3]]));
    CELL_HDR + k + v
}

pub(super) fn key(b: &[u8], i: usize) -> &[u8] {
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

pub(super) fn val(b: &[u8], i: usize) -> &[u8] {
    &b[val_range(b, i)]
}

pub(super) fn child(b: &[u8], i: usize) -> u32 {
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

pub(super) fn read<P: Policy, S: PageStore>(
    sp: &Space<P, S>,
    pg: u32,
) -> Result<PageRef<'_, P, S>> {
    sp.pool().fix_read(PageId::from(pg))
}

fn write<P: Policy, S: PageStore>(sp: &Space<P, S>, pg: u32) -> Result<PageMut<'_, P, S>> {
    sp.pool().fix_write(PageId::from(pg))
}

/// `b`, checked to be an internal node (page `pg`).
fn internal(b: &[u8], pg: u32) -> Result<&[u8]> {
    if page::kind(b) != KIND_INTERNAL {
        return Err(Error::Store(format!(
            "page {pg} should be an internal node"
        )));
    }
    Ok(b)
}

/// Pages latched for writing, top first, with their numbers.
type Latched<'a, P, S> = Vec<(u32, PageMut<'a, P, S>)>;

/// A split under way: the nodes it changed, each with its bytes from
/// before, and the new pages it took. Until [`Split::complete`], dropping
/// it (an I/O error or a full pool while taking a new page, or a panic)
/// puts every changed node back as it was and gives the new pages back to
/// the space, so a split either completes or leaves the tree as it was.
/// The changed nodes stay latched until then: nobody sees a half-split
/// tree, and new pages are reachable only through them.
struct Split<'a, P: Policy, S: PageStore> {
    sp: &'a Space<P, S>,
    changed: Vec<(PageMut<'a, P, S>, Vec<u8>)>,
    taken: Vec<u32>,
}

impl<'a, P: Policy, S: PageStore> Split<'a, P, S> {
    fn new(sp: &'a Space<P, S>) -> Self {
        Split {
            sp,
            changed: Vec::new(),
            taken: Vec::new(),
        }
    }

    /// A new page, latched for writing.
    fn take(&mut self) -> Result<(u32, PageMut<'a, P, S>)> {
        let pg = self.sp.alloc()?;
        match write(self.sp, pg) {
            Ok(g) => {
                self.taken.push(pg);
                Ok((pg, g))
            }
            Err(e) => {
                self.sp.release(pg);
                Err(e)
            }
        }
    }

    /// Node `g`, kept latched with a copy of its bytes, to be changed.
    fn change(&mut self, g: PageMut<'a, P, S>) -> &mut PageMut<'a, P, S> {
        let before = g.to_vec();
        self.changed.push((g, before));
        &mut self.changed.last_mut().expect("just pushed").0
    }

    /// The node changed last.
    fn last(&mut self) -> &mut PageMut<'a, P, S> {
        &mut self.changed.last_mut().expect("a node was changed").0
    }

    /// Every step done: the changes stay, the latches go.
    fn complete(mut self) {
        self.changed.clear();
        self.taken.clear();
    }
}

impl<P: Policy, S: PageStore> Drop for Split<'_, P, S> {
    fn drop(&mut self) {
        for (g, before) in self.changed.iter_mut().rev() {
            g.copy_from_slice(before);
        }
        self.changed.clear();
        for &pg in self.taken.iter().rev() {
            self.sp.release(pg);
        }
    }
}

/// What [`put_leaf`] did.
enum Leaf {
    /// The cell is in the leaf (or the key was there and may not be
    /// replaced); whether the key existed.
    Done(bool),
    /// The leaf must split; it is unmodified. Where the cell goes, and
    /// whether it replaces the cell there.
    Full { pos: usize, replaced: bool },
}

/// Puts `(k, v)` into leaf `g` if it fits without a split, replacing an
/// existing value of `k` only if `replace`. The guard is dereferenced
/// mutably only to change the page, so a full leaf stays clean.
fn put_leaf<G: DerefMut<Target = [u8]>>(
    g: &mut G,
    k: &[u8],
    v: &[u8],
    replace: bool,
    scratch: &mut Vec<u8>,
) -> Leaf {
    let size = CELL_HDR + k.len() + v.len();
    let room = page::reclaimable(g, cell_size);
    let (pos, existed) = match search(g, k) {
        Ok(_) if !replace => return Leaf::Done(true),
        Ok(i) => {
            let r = val_range(g, i);
            if r.len() == v.len() {
                if g[r.clone()] != *v {
                    g[r].copy_from_slice(v);
                }
                return Leaf::Done(true);
            }
            // The old cell and its slot make room too.
            if room + cell_size(g, page::slot(g, i)) + 2 < size + 2 {
                return Leaf::Full {
                    pos: i,
                    replaced: true,
                };
            }
            page::remove_slot(g, i);
            (i, true)
        }
        Err(i) if room < size + 2 => {
            return Leaf::Full {
                pos: i,
                replaced: false,
            }
        }
        Err(i) => (i, false),
    };
    assert!(
        try_insert(g, pos, k, v, scratch),
        "a cell that fits after compaction is inserted"
    );
    Leaf::Done(existed)
}

/// A B+-tree in a [`Space`].
#[derive(Debug, Clone)]
pub struct BTree {
    pub(super) id: usize,
    max_cell: usize,
}

impl BTree {
    /// Creates an empty tree named `name`.
    pub fn create<P: Policy, S: PageStore>(sp: &Space<P, S>, name: &str) -> Result<Self> {
        // The root is a leaf: height 1.
        let id = sp.create_object(name, ObjKind::BTree, KIND_LEAF, |_| 1)?;
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

    pub(super) fn root<P: Policy, S: PageStore>(&self, sp: &Space<P, S>) -> (u32, u32) {
        let c = sp.cat();
        (c.objects[self.id].a, c.objects[self.id].b)
    }

    /// The root latched by `fix`, and the tree's height then. The catalog
    /// is read again once the latch is held: a root split changes the
    /// catalog under the old root's write latch, so a root still named
    /// there cannot split while it is held.
    fn latch_root<'a, P: Policy, S: PageStore, G>(
        &self,
        sp: &'a Space<P, S>,
        fix: impl Fn(&'a Space<P, S>, u32) -> Result<G>,
    ) -> Result<(u32, u32, G)> {
        loop {
            let (root, height) = self.root(sp);
            let g = fix(sp, root)?;
            if self.root(sp).0 == root {
                return Ok((root, height, g));
            }
        }
    }

    /// The leaf for `k`, latched for reading; internal nodes are latched for
    /// reading on the way, each released once its child is held.
    fn leaf_read<'a, P: Policy, S: PageStore>(
        &self,
        sp: &'a Space<P, S>,
        k: &[u8],
    ) -> Result<PageRef<'a, P, S>> {
        let (mut pg, height, mut g) = self.latch_root(sp, read)?;
        for _ in 1..height {
            pg = route(internal(&g, pg)?, k).0;
            g = read(sp, pg)?;
        }
        Ok(g)
    }

    /// The leaf for `k`, latched for writing; internal nodes are latched
    /// for reading on the way (the optimistic descent: an operation that
    /// turns out to need a split starts again with [`BTree::leaf_path`]).
    fn leaf_write<'a, P: Policy, S: PageStore>(
        &self,
        sp: &'a Space<P, S>,
        k: &[u8],
    ) -> Result<PageMut<'a, P, S>> {
        if self.root(sp).1 == 1 {
            let (_, height, g) = self.latch_root(sp, write)?;
            if height == 1 {
                return Ok(g);
            }
            // The root split meanwhile: descend from the new one.
        }
        // A tree never shrinks: from here on its root is internal.
        let (mut pg, height, mut g) = self.latch_root(sp, read)?;
        for _ in 2..height {
            pg = route(internal(&g, pg)?, k).0;
            g = read(sp, pg)?;
        }
        let leaf = route(internal(&g, pg)?, k).0;
        write(sp, leaf)
    }

    /// The pages an insert of `k` may change, latched for writing from the
    /// top (latch coupling): each node on the way to the leaf, keeping the
    /// latches of every node above that could split with it and
    /// releasing them at a node that has room for one more cell of this
    /// tree's largest size. Returns the path, top first, and whether its top
    /// is the root.
    fn leaf_path<'a, P: Policy, S: PageStore>(
        &self,
        sp: &'a Space<P, S>,
        k: &[u8],
    ) -> Result<(Latched<'a, P, S>, bool)> {
        let (root, height, g) = self.latch_root(sp, write)?;
        let mut path = vec![(root, g)];
        let mut from_root = true;
        for _ in 1..height {
            let (pg, g) = path.last().expect("the path holds its top");
            let child = route(internal(g, *pg)?, k).0;
            let c = write(sp, child)?;
            if page::reclaimable(&c, cell_size) >= self.max_cell + 2 {
                // Nothing above this node changes: its latches go.
                path.clear();
                from_root = false;
            }
            path.push((child, c));
        }
        Ok((path, from_root))
    }

    /// Calls `f` with the value of `k`, if present; returns its result.
    pub fn get_with<P: Policy, S: PageStore, R>(
        &self,
        sp: &Space<P, S>,
        k: &[u8],
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<Option<R>> {
        let g = self.leaf_read(sp, k)?;
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
        let mut g = self.leaf_write(sp, k)?;
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
    /// First under a write latch on the leaf alone; if the leaf must split,
    /// again from the root with [`BTree::leaf_path`].
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
        let mut scratch = Vec::new();
        {
            let mut g = self.leaf_write(sp, k)?;
            if let Leaf::Done(existed) = put_leaf(&mut g, k, v, replace, &mut scratch) {
                return Ok(existed);
            }
        }
        let (mut path, from_root) = self.leaf_path(sp, k)?;
        let (_, mut g) = path.pop().expect("the path ends at the leaf");
        let (pos, replaced) = match put_leaf(&mut g, k, v, replace, &mut scratch) {
            Leaf::Done(existed) => return Ok(existed),
            Leaf::Full { pos, replaced } => (pos, replaced),
        };
        // Split the leaf: all cells plus the new one, halved by bytes.
        let mut cells = cells_of(&g);
        if replaced {
            cells.remove(pos);
        }
        cells.insert(pos, (k.to_vec(), v.to_vec()));
        let m = split_point(&cells);
        let mut split = Split::new(sp);
        let (right, mut r) = split.take()?;
        fill(&mut r, KIND_LEAF, 0, page::link(&g), &cells[m..]);
        drop(r);
        let g = split.change(g);
        fill(g, KIND_LEAF, 0, right, &cells[..m]);
        let sep = cells.swap_remove(m).0;
        if path.is_empty() && from_root {
            // The leaf is the root: it stays latched until the new root
            // is in the catalog.
            self.grow(sp, sep, right, &mut split, &mut scratch)?;
        } else {
            self.insert_up(path, from_root, sep, right, &mut split, &mut scratch)?;
        }
        split.complete();
        Ok(replaced)
    }

    /// Inserts separator `sep` with right child `right` into the latched
    /// parents on `path`, splitting upwards as part of `split`; grows a new
    /// root when the root splits. Every node of `path` but its top is full;
    /// its top has room unless it is the root.
    fn insert_up<'a, P: Policy, S: PageStore>(
        &self,
        mut path: Latched<'a, P, S>,
        from_root: bool,
        mut sep: Vec<u8>,
        mut right: u32,
        split: &mut Split<'a, P, S>,
        scratch: &mut Vec<u8>,
    ) -> Result<()> {
        while let Some((_, g)) = path.pop() {
            let g = split.change(g);
            let pos = match search(g, &sep) {
                Ok(i) | Err(i) => i,
            };
            let child = right.to_le_bytes();
            if try_insert(g, pos, &sep, &child, scratch) {
                return Ok(());
            }
            assert!(
                !path.is_empty() || from_root,
                "a node with room for the largest cell took the separator"
            );
            let mut cells = cells_of(g);
            cells.insert(pos, (sep, child.to_vec()));
            let m = split_point(&cells);
            let level = page::level(g);
            let leftmost = page::link(g);
            let (new, mut r) = split.take()?;
            let (up_key, up_child) = cells[m].clone();
            fill(
                &mut r,
                KIND_INTERNAL,
                level,
                page::u32_at(&up_child, 0),
                &cells[m + 1..],
            );
            drop(r);
            fill(split.last(), KIND_INTERNAL, level, leftmost, &cells[..m]);
            sep = up_key;
            right = new;
            if path.is_empty() {
                // The root split; it stays latched until the new root is in
                // the catalog.
                return self.grow(split.sp, sep, right, split, scratch);
            }
        }
        unreachable!("the loop returns once the path is empty")
    }

    /// A new root above the old one, which the caller holds latched for
    /// writing, with separator `sep` and right child `right`: the last step
    /// of `split`.
    fn grow<'a, P: Policy, S: PageStore>(
        &self,
        sp: &'a Space<P, S>,
        sep: Vec<u8>,
        right: u32,
        split: &mut Split<'a, P, S>,
        scratch: &mut Vec<u8>,
    ) -> Result<()> {
        let (old_root, height) = self.root(sp);
        let (new_root, mut g) = split.take()?;
        page::init(&mut g, KIND_INTERNAL, height as u8);
        page::set_link(&mut g, old_root);
        let child = right.to_le_bytes();
        assert!(
            try_insert(&mut g, 0, &sep, &child, scratch),
            "an empty root takes one cell"
        );
        drop(g);
        let mut c = sp.cat();
        c.objects[self.id].a = new_root;
        c.objects[self.id].b = height + 1;
        Ok(())
    }

    /// Removes `k`; returns whether it was present.
    pub fn delete<P: Policy, S: PageStore>(&self, sp: &Space<P, S>, k: &[u8]) -> Result<bool> {
        let mut g = self.leaf_write(sp, k)?;
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
        let mut g = self.leaf_read(sp, start)?;
        let mut seen = 0;
        loop {
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
            // The next leaf is latched before this one is released.
            g = read(sp, next)?;
        }
    }

    /// Height of the tree (1 when the root is a leaf).
    pub fn height<P: Policy, S: PageStore>(&self, sp: &Space<P, S>) -> u32 {
        self.root(sp).1
    }
}
