//! [`BTree::check`]: a walk of a whole B+-tree that verifies every
//! invariant its operations rely on (`tree.rs` gives the layout).

use super::page::{self, KIND_INTERNAL, KIND_LEAF, NONE};
use super::space::Space;
use super::tree::{cell_size, child, key, read, val, BTree, CELL_HDR};
use crate::error::{Error, Result};
use crate::policy::Policy;
use crate::store::PageStore;

/// What [`BTree::check`] found in a tree whose invariants hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeShape {
    /// Levels (1 when the root is a leaf).
    pub height: u32,
    /// Internal nodes.
    pub internal: u64,
    /// Leaves.
    pub leaves: u64,
    /// Entries in the leaves.
    pub entries: u64,
}

/// A node to visit: page, level it must have, and the keys it may hold,
/// `[lo, hi)` (unbounded where `None`).
type Visit = (u32, u8, Option<Vec<u8>>, Option<Vec<u8>>);

impl BTree {
    /// Walks the whole tree and verifies what every operation relies on:
    /// each node is well formed (slots and cells inside the page), of the
    /// kind and level its place needs, with keys strictly increasing inside
    /// the range its parent gives it; every leaf is at the same depth, the
    /// catalog's height; the leaves' links chain them in key order and the
    /// last ends the chain; no page is reached twice. Reads each page once
    /// under a read latch; run it while no thread changes the tree (after
    /// a stress run, say). Returns the tree's shape, or a
    /// [`Error::Store`] naming the tree, the page and what is wrong.
    pub fn check<P: Policy, S: PageStore>(&self, sp: &Space<P, S>) -> Result<TreeShape> {
        let name = sp.cat().objects[self.id].name.clone();
        let bad =
            |pg: u32, what: String| Error::Store(format!("B+-tree '{name}', page {pg}: {what}"));
        let (root, height) = self.root(sp);
        if height == 0 || height > 64 {
            return Err(bad(root, format!("the catalog gives height {height}")));
        }
        let mut shape = TreeShape {
            height,
            ..TreeShape::default()
        };
        let mut seen = rustc_hash::FxHashSet::default();
        let mut leaves = Vec::new();
        let mut stack: Vec<Visit> = vec![(root, (height - 1) as u8, None, None)];
        while let Some((pg, level, lo, hi)) = stack.pop() {
            if !seen.insert(pg) {
                return Err(bad(pg, "reached twice".into()));
            }
            let g = read(sp, pg)?;
            let want = if level == 0 { KIND_LEAF } else { KIND_INTERNAL };
            if page::kind(&g) != want || page::level(&g) != level {
                return Err(bad(
                    pg,
                    format!(
                        "kind {} at level {}, where kind {want} at level {level} belongs",
                        page::kind(&g),
                        page::level(&g)
                    ),
                ));
            }
            well_formed(&g).map_err(|what| bad(pg, what))?;
            let n = page::n(&g);
            for i in 0..n {
                let k = key(&g, i);
                if i > 0 && key(&g, i - 1) >= k {
                    return Err(bad(pg, format!("keys {} and {} out of order", i - 1, i)));
                }
                if lo.as_deref().is_some_and(|lo| k < lo) || hi.as_deref().is_some_and(|hi| k >= hi)
                {
                    return Err(bad(
                        pg,
                        format!("key {i} outside the range its parent gives"),
                    ));
                }
            }
            if level == 0 {
                shape.leaves += 1;
                shape.entries += n as u64;
                leaves.push((pg, page::link(&g)));
                continue;
            }
            shape.internal += 1;
            // Children go on the stack right to left, so leaves come off it
            // in key order.
            for i in (0..=n).rev() {
                let child = match i {
                    0 => page::link(&g),
                    i => {
                        if val(&g, i - 1).len() != 4 {
                            return Err(bad(pg, format!("cell {} holds no child number", i - 1)));
                        }
                        child(&g, i - 1)
                    }
                };
                let clo = if i == 0 {
                    lo.clone()
                } else {
                    Some(key(&g, i - 1).to_vec())
                };
                let chi = if i == n {
                    hi.clone()
                } else {
                    Some(key(&g, i).to_vec())
                };
                stack.push((child, level - 1, clo, chi));
            }
        }
        for (i, &(pg, link)) in leaves.iter().enumerate() {
            let next = leaves.get(i + 1).map_or(NONE, |&(p, _)| p);
            if link != next {
                return Err(bad(
                    pg,
                    format!("links to {link}, where the next leaf is {next}"),
                ));
            }
        }
        Ok(shape)
    }
}

/// Whether the slots and cells of node `b` lie inside it.
fn well_formed(b: &[u8]) -> std::result::Result<(), String> {
    let n = page::n(b);
    let slots_end = page::HDR + 2 * n;
    if slots_end > b.len() || page::free_space_checked(b).is_none() {
        return Err(format!("{n} slots do not fit the page"));
    }
    for i in 0..n {
        let off = page::slot(b, i);
        if off < slots_end || off + CELL_HDR > b.len() || off + cell_size(b, off) > b.len() {
            return Err(format!("cell {i} at offset {off} lies outside the page"));
        }
    }
    Ok(())
}
