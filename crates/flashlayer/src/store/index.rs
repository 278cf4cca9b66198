//! Page numbers to dense indexes (the hybrid store's per-page state, the
//! tiered store's dense ids): a dense table while the numbers are small (a
//! converted trace, a database file: numbers from 0), a hash map for the
//! ones beyond, and the last answer remembered (a miss asks for the same
//! page three times: its access, its read, its cost).

use crate::types::PageId;
use rustc_hash::FxHashMap;
use std::cell::Cell;

const NIL: u32 = u32::MAX;
/// The dense table always may cover numbers below this.
const MIN_DENSE: u64 = 1 << 20;

#[derive(Debug, Default)]
pub(crate) struct PageIndex {
    dense: Vec<u32>,
    sparse: FxHashMap<PageId, u32>,
    len: usize,
    last: Cell<(PageId, u32)>,
}

impl PageIndex {
    pub(crate) fn new() -> Self {
        PageIndex {
            last: Cell::new((PageId::MAX, NIL)),
            ..PageIndex::default()
        }
    }

    #[inline]
    pub(crate) fn get(&self, page: PageId) -> Option<u32> {
        let (p, i) = self.last.get();
        if p == page {
            return Some(i);
        }
        let i = match self.dense.get(page as usize) {
            Some(&i) if i != NIL => i,
            Some(_) => return None,
            None => *self.sparse.get(&page)?,
        };
        self.last.set((page, i));
        Some(i)
    }

    /// Starts loading the table entry of `page` (nothing for a page in the
    /// map: hashing is the cost there).
    #[inline]
    pub(crate) fn prefetch(&self, page: PageId) {
        if let Some(e) = self.dense.get(page as usize) {
            crate::types::prefetch(e);
        }
    }

    /// [`PageIndex::get`] without remembering the answer (for hints).
    #[inline]
    pub(crate) fn peek(&self, page: PageId) -> Option<u32> {
        match self.dense.get(page as usize) {
            Some(&i) if i != NIL => Some(i),
            Some(_) => None,
            None => self.sparse.get(&page).copied(),
        }
    }

    /// Records a page not seen before.
    pub(crate) fn insert(&mut self, page: PageId, i: u32) {
        self.len += 1;
        // The table may grow to 4 entries a page known: 16 bytes a page.
        let bound = MIN_DENSE.max(4 * self.len as u64);
        if page < bound {
            if page as usize >= self.dense.len() {
                let n = (page as usize + 1)
                    .max(2 * self.dense.len())
                    .min(bound as usize);
                self.dense.resize(n, NIL);
                // Pages that went to the map before the table reached them.
                let moved: Vec<PageId> = self
                    .sparse
                    .keys()
                    .copied()
                    .filter(|&q| (q as usize) < n)
                    .collect();
                for q in moved {
                    let j = self.sparse.remove(&q).expect("listed");
                    self.dense[q as usize] = j;
                }
            }
            self.dense[page as usize] = i;
        } else {
            self.sparse.insert(page, i);
        }
        self.last.set((page, i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_large_numbers_are_found_alike() {
        let mut x = PageIndex::new();
        let pages = [0u64, 5, 1 << 40, 3_000_000, 7, u64::MAX - 1];
        for (i, &p) in pages.iter().enumerate() {
            assert_eq!(x.get(p), None);
            x.insert(p, i as u32);
        }
        for (i, &p) in pages.iter().enumerate() {
            assert_eq!(x.get(p), Some(i as u32), "page {p}");
        }
        // A number first kept in the map moves to the table as it grows.
        for p in 100..2_000_000u64 {
            x.insert(p, p as u32);
        }
        assert_eq!(x.get(3_000_000), Some(3));
        assert_eq!(x.get(1_999_999), Some(1_999_999));
        assert_eq!(x.get(2_000_000), None);
    }
}
