//! A heap file: rows in slotted pages, addressed by record id (page, slot).
//!
//! Pages form a chain (link = next page); inserts go to the last page and a
//! new page is chained when it is full. Slot numbers never move, so a record
//! id stays valid until the row is deleted; a deleted slot has offset 0 and
//! is not reused (record ids are never recycled). Updates happen in place:
//! a row may shrink or grow while its page has room.

use super::page::{self, KIND_HEAP, NONE};
use super::space::{ObjKind, Space};
use crate::error::{Error, Result};
use crate::policy::Policy;
use crate::store::PageStore;
use crate::types::PageId;

/// Cell: u16 length, then the row.
fn cell_size(b: &[u8], off: usize) -> usize {
    2 + usize::from(u16::from_le_bytes([b[off], b[off + 1]]))
}

fn row(b: &[u8], slot: usize) -> Option<std::ops::Range<usize>> {
    if slot >= page::n(b) {
        return None;
    }
    let off = page::slot(b, slot);
    (off != 0).then(|| off + 2..off + cell_size(b, off))
}

/// A record id: page number and slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rid {
    /// Page number in the space.
    pub page: u32,
    /// Slot in the page.
    pub slot: u16,
}

impl Rid {
    /// 6-byte big-endian encoding (sorts like the rid), for index values.
    pub fn to_bytes(self) -> [u8; 6] {
        let mut b = [0u8; 6];
        b[..4].copy_from_slice(&self.page.to_be_bytes());
        b[4..].copy_from_slice(&self.slot.to_be_bytes());
        b
    }

    /// Inverse of [`Rid::to_bytes`].
    pub fn from_bytes(b: &[u8]) -> Option<Rid> {
        let b: &[u8; 6] = b.try_into().ok()?;
        Some(Rid {
            page: u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
            slot: u16::from_be_bytes([b[4], b[5]]),
        })
    }
}

/// A heap file in a [`Space`].
#[derive(Debug, Clone)]
pub struct HeapFile {
    id: usize,
    max_row: usize,
}

impl HeapFile {
    /// Creates an empty heap file named `name`.
    pub fn create<P: Policy, S: PageStore>(sp: &Space<P, S>, name: &str) -> Result<Self> {
        // A new heap's last page is its first.
        let id = sp.create_object(name, ObjKind::Heap, KIND_HEAP, |first| first)?;
        Ok(Self::handle(sp, id))
    }

    /// Opens the heap file named `name`.
    pub fn open<P: Policy, S: PageStore>(sp: &Space<P, S>, name: &str) -> Result<Self> {
        let id = sp.find(name, ObjKind::Heap)?;
        Ok(Self::handle(sp, id))
    }

    fn handle<P: Policy, S: PageStore>(sp: &Space<P, S>, id: usize) -> Self {
        HeapFile {
            id,
            max_row: sp.page_size() - page::HDR - 4,
        }
    }

    /// Largest row this heap accepts (a page less its header and one slot).
    pub fn max_row(&self) -> usize {
        self.max_row
    }

    /// Appends a row; returns its record id.
    pub fn insert<P: Policy, S: PageStore>(&self, sp: &Space<P, S>, data: &[u8]) -> Result<Rid> {
        if data.len() > self.max_row {
            return Err(Error::invalid(format!(
                "row of {} bytes exceeds the heap's limit of {} bytes",
                data.len(),
                self.max_row
            )));
        }
        loop {
            let last = sp.cat().objects[self.id].b;
            let mut g = sp.pool().fix_write(PageId::from(last))?;
            if let Some((slot, off)) = page::alloc_last(&mut g, 2 + data.len()) {
                write_row(&mut g, off, data);
                return Ok(Rid {
                    page: last,
                    slot: slot as u16,
                });
            }
            if page::link(&g) != NONE {
                // Another thread chained a page since the catalog was read.
                continue;
            }
            // The new page is chained and made last while the old last page
            // is latched, so inserters that find it full then find the new
            // one in the catalog.
            let new = sp.alloc()?;
            // The only step that can fail comes before any change.
            let mut n = match sp.pool().fix_write(PageId::from(new)) {
                Ok(n) => n,
                Err(e) => {
                    sp.release(new);
                    return Err(e);
                }
            };
            page::init(&mut n, KIND_HEAP, 0);
            let (slot, off) =
                page::alloc_last(&mut n, 2 + data.len()).expect("an empty page takes a row");
            write_row(&mut n, off, data);
            page::set_link(&mut g, new);
            sp.cat().objects[self.id].b = new;
            drop(n);
            return Ok(Rid {
                page: new,
                slot: slot as u16,
            });
        }
    }

    /// Calls `f` with the row at `rid`, if it exists.
    pub fn get_with<P: Policy, S: PageStore, R>(
        &self,
        sp: &Space<P, S>,
        rid: Rid,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<Option<R>> {
        let g = sp.pool().fix_read(PageId::from(rid.page))?;
        Ok(row(&g, usize::from(rid.slot)).map(|r| f(&g[r])))
    }

    /// Changes the row at `rid` in place (same length) with `f`; returns
    /// whether it exists.
    pub fn update_in_place<P: Policy, S: PageStore>(
        &self,
        sp: &Space<P, S>,
        rid: Rid,
        f: impl FnOnce(&mut [u8]),
    ) -> Result<bool> {
        let mut g = sp.pool().fix_write(PageId::from(rid.page))?;
        let Some(r) = row(&g, usize::from(rid.slot)) else {
            return Ok(false);
        };
        f(&mut g[r]);
        Ok(true)
    }

    /// Replaces the row at `rid` with `data` of any length that fits in its
    /// page. Returns `Ok(false)` if the row does not exist, an error if the
    /// page has no room.
    pub fn update<P: Policy, S: PageStore>(
        &self,
        sp: &Space<P, S>,
        rid: Rid,
        data: &[u8],
    ) -> Result<bool> {
        let mut g = sp.pool().fix_write(PageId::from(rid.page))?;
        let slot = usize::from(rid.slot);
        let Some(r) = row(&g[..], slot) else {
            return Ok(false);
        };
        if r.len() == data.len() {
            g[r].copy_from_slice(data);
            return Ok(true);
        }
        // Free the old cell, then place the new one under the same slot.
        page::set_slot(&mut g, slot, 0);
        let need = 2 + data.len();
        // reserve() keeps a slot's 2 bytes spare too.
        if page::free_space(&g) < need + 2 {
            if page::reclaimable(&g, cell_size) < need + 2 {
                // Put the old row back before failing.
                page::set_slot(&mut g, slot, r.start - 2);
                return Err(Error::invalid(format!(
                    "updated row of {} bytes does not fit in its page",
                    data.len()
                )));
            }
            let mut scratch = Vec::new();
            page::compact(&mut g, cell_size, &mut scratch);
        }
        let off = page::reserve(&mut g, need).expect("space checked");
        write_row(&mut g, off, data);
        page::set_slot(&mut g, slot, off);
        Ok(true)
    }

    /// Deletes the row at `rid`; returns whether it existed.
    pub fn delete<P: Policy, S: PageStore>(&self, sp: &Space<P, S>, rid: Rid) -> Result<bool> {
        let mut g = sp.pool().fix_write(PageId::from(rid.page))?;
        if row(&g[..], usize::from(rid.slot)).is_none() {
            return Ok(false);
        }
        page::set_slot(&mut g, usize::from(rid.slot), 0);
        Ok(true)
    }

    /// Calls `f(rid, row)` for every row in page and slot order until `f`
    /// returns `false`; returns the number of rows visited.
    pub fn scan<P: Policy, S: PageStore>(
        &self,
        sp: &Space<P, S>,
        mut f: impl FnMut(Rid, &[u8]) -> bool,
    ) -> Result<u64> {
        let mut pg = sp.cat().objects[self.id].a;
        let mut seen = 0;
        while pg != NONE {
            let g = sp.pool().fix_read(PageId::from(pg))?;
            for slot in 0..page::n(&g) {
                if let Some(r) = row(&g, slot) {
                    seen += 1;
                    if !f(
                        Rid {
                            page: pg,
                            slot: slot as u16,
                        },
                        &g[r],
                    ) {
                        return Ok(seen);
                    }
                }
            }
            pg = page::link(&g);
        }
        Ok(seen)
    }
}

fn write_row(b: &mut [u8], off: usize, data: &[u8]) {
    b[off..off + 2].copy_from_slice(&(data.len() as u16).to_le_bytes());
    b[off + 2..off + 2 + data.len()].copy_from_slice(data);
}

impl HeapFile {
    /// Walks the page chain and verifies it: every page a heap page with
    /// its slots and rows inside it, no page reached twice, and the chain
    /// ending at the page the catalog names last. Run it while no thread
    /// inserts. Returns the pages and live rows, or a [`Error::Store`]
    /// naming the heap, the page and what is wrong.
    pub fn check<P: Policy, S: PageStore>(&self, sp: &Space<P, S>) -> Result<(u64, u64)> {
        let (name, first, last) = {
            let c = sp.cat();
            let o = &c.objects[self.id];
            (o.name.clone(), o.a, o.b)
        };
        let bad = |pg: u32, what: String| Error::Store(format!("heap '{name}', page {pg}: {what}"));
        let mut seen = rustc_hash::FxHashSet::default();
        let (mut pages, mut rows) = (0, 0);
        let mut pg = first;
        loop {
            if !seen.insert(pg) {
                return Err(bad(pg, "reached twice".into()));
            }
            let g = sp.pool().fix_read(PageId::from(pg))?;
            if page::kind(&g) != KIND_HEAP {
                return Err(bad(
                    pg,
                    format!("kind {} is not a heap page", page::kind(&g)),
                ));
            }
            let n = page::n(&g);
            let Some(_) = page::free_space_checked(&g) else {
                return Err(bad(pg, format!("{n} slots do not fit the page")));
            };
            for slot in 0..n {
                let off = page::slot(&g, slot);
                if off == 0 {
                    continue;
                }
                if off < page::HDR + 2 * n
                    || off + 2 > g.len()
                    || off + cell_size(&g, off) > g.len()
                {
                    return Err(bad(
                        pg,
                        format!("row {slot} at offset {off} lies outside the page"),
                    ));
                }
                rows += 1;
            }
            pages += 1;
            match page::link(&g) {
                NONE if pg == last => return Ok((pages, rows)),
                NONE => {
                    return Err(bad(
                        pg,
                        format!("the chain ends here, the catalog says at {last}"),
                    ))
                }
                next => pg = next,
            }
        }
    }
}
