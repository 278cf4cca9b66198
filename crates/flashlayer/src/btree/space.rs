//! A space: one page store holding many access methods, with a catalog.
//!
//! Page 0 is the catalog: magic, page size, the next free page, and one
//! entry per named object (B+-tree or heap file) with its root or first and
//! last pages. Pages are allocated sequentially and never freed (deletes
//! leave free space inside pages, as PostgreSQL does until VACUUM). The
//! catalog lives in memory and is written back by [`Space::flush`], so
//! allocations do not add a request for page 0 each time.

use super::page::{check_page_size, put_u32, u32_at};
use crate::buffer::BufferPool;
use crate::error::{Error, Result};
use crate::policy::Policy;
use crate::store::PageStore;
use crate::types::PageId;
use std::sync::{Mutex, MutexGuard};

const MAGIC: &[u8; 8] = b"FLSPACE1";
const ENTRY: usize = 48;
const NAME: usize = 32;
const HEAD: usize = 20;

/// Kind of a catalog object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ObjKind {
    BTree = 1,
    Heap = 2,
}

#[derive(Clone, Debug)]
pub(crate) struct Object {
    pub(crate) name: String,
    pub(crate) kind: ObjKind,
    /// B+-tree: root page; heap: first page.
    pub(crate) a: u32,
    /// B+-tree: height (1 = root is a leaf); heap: last page.
    pub(crate) b: u32,
}

#[derive(Debug)]
pub(crate) struct Catalog {
    pub(crate) next_free: u32,
    pub(crate) objects: Vec<Object>,
}

/// One object of a space as [`Space::check`] found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The object's name.
    pub name: String,
    /// Pages it holds.
    pub pages: u64,
    /// Entries (B+-tree) or live rows (heap file).
    pub entries: u64,
    /// Levels of a B+-tree; 0 for a heap file.
    pub height: u32,
}

/// A buffer pool plus a catalog of named B+-trees and heap files.
#[derive(Debug)]
pub struct Space<P: Policy, S: PageStore> {
    pool: BufferPool<P, S>,
    cat: Mutex<Catalog>,
}

impl<P: Policy, S: PageStore> Space<P, S> {
    /// Formats a new, empty space on `pool`'s store (page size 512 B–32 KiB).
    pub fn create(pool: BufferPool<P, S>) -> Result<Self> {
        check_page_size(pool.page_size())?;
        let sp = Space {
            pool,
            cat: Mutex::new(Catalog {
                next_free: 1,
                objects: Vec::new(),
            }),
        };
        sp.write_catalog()?;
        Ok(sp)
    }

    /// Opens a space formatted before (reads the catalog from page 0).
    pub fn open(pool: BufferPool<P, S>) -> Result<Self> {
        check_page_size(pool.page_size())?;
        let cat = {
            let g = pool.fix_read(0)?;
            if &g[..8] != MAGIC {
                return Err(Error::Store(
                    "not a flashlayer space (page 0 has no catalog)".into(),
                ));
            }
            let ps = u32_at(&g, 8) as usize;
            if ps != pool.page_size() {
                return Err(Error::Store(format!(
                    "space was created with {ps}-byte pages, opened with {}",
                    pool.page_size()
                )));
            }
            let count = u32_at(&g, 16) as usize;
            let mut objects = Vec::with_capacity(count);
            for i in 0..count {
                let e = &g[HEAD + i * ENTRY..HEAD + (i + 1) * ENTRY];
                let len = e[..NAME].iter().position(|&c| c == 0).unwrap_or(NAME);
                let kind = match e[NAME] {
                    1 => ObjKind::BTree,
                    2 => ObjKind::Heap,
                    k => {
                        return Err(Error::Store(format!(
                            "catalog entry {i} has unknown kind {k}"
                        )))
                    }
                };
                objects.push(Object {
                    name: String::from_utf8_lossy(&e[..len]).into_owned(),
                    kind,
                    a: u32_at(e, NAME + 4),
                    b: u32_at(e, NAME + 8),
                });
            }
            Catalog {
                next_free: u32_at(&g, 12),
                objects,
            }
        };
        Ok(Space {
            pool,
            cat: Mutex::new(cat),
        })
    }

    /// The buffer pool.
    pub fn pool(&self) -> &BufferPool<P, S> {
        &self.pool
    }

    /// Bytes per page.
    pub fn page_size(&self) -> usize {
        self.pool.page_size()
    }

    /// Pages allocated so far (including the catalog page).
    pub fn pages(&self) -> u32 {
        self.cat().next_free
    }

    pub(crate) fn cat(&self) -> MutexGuard<'_, Catalog> {
        self.cat.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Allocates a fresh page number.
    pub(crate) fn alloc(&self) -> Result<u32> {
        let mut c = self.cat();
        let p = c.next_free;
        if p == u32::MAX - 1 {
            return Err(Error::Store("space is full (2^32 pages)".into()));
        }
        c.next_free += 1;
        Ok(p)
    }

    /// Gives back page `p` of [`Space::alloc`], never used: the space ends
    /// before it again if it is the last page allocated, else it stays
    /// unused (as a page PostgreSQL extends a relation by and then fails
    /// to use).
    pub(crate) fn release(&self, p: u32) {
        let mut c = self.cat();
        if c.next_free == p + 1 {
            c.next_free = p;
        }
    }

    fn register(&self, obj: Object) -> Result<usize> {
        let mut c = self.cat();
        if obj.name.len() > NAME || obj.name.is_empty() {
            return Err(Error::invalid(format!(
                "object name '{}' must be 1 to {NAME} bytes",
                obj.name
            )));
        }
        if c.objects.iter().any(|o| o.name == obj.name) {
            return Err(Error::invalid(format!(
                "an object named '{}' exists already",
                obj.name
            )));
        }
        if HEAD + (c.objects.len() + 1) * ENTRY > self.page_size() {
            return Err(Error::invalid("the catalog page is full"));
        }
        c.objects.push(obj);
        Ok(c.objects.len() - 1)
    }

    /// Creates an object named `name`: its first page, formatted as a page
    /// of `page_kind`, is `a`; `b` is what `b_of` makes of that page's
    /// number. Returns the object's index in the catalog.
    pub(crate) fn create_object(
        &self,
        name: &str,
        kind: ObjKind,
        page_kind: u8,
        b_of: impl FnOnce(u32) -> u32,
    ) -> Result<usize> {
        let first = self.alloc()?;
        {
            let mut g = self.pool().fix_write(PageId::from(first))?;
            super::page::init(&mut g, page_kind, 0);
        }
        self.register(Object {
            name: name.to_string(),
            kind,
            a: first,
            b: b_of(first),
        })
    }

    pub(crate) fn find(&self, name: &str, kind: ObjKind) -> Result<usize> {
        let c = self.cat();
        match c.objects.iter().position(|o| o.name == name) {
            Some(i) if c.objects[i].kind == kind => Ok(i),
            Some(_) => Err(Error::invalid(format!("'{name}' is not a {kind:?}"))),
            None => Err(Error::invalid(format!(
                "no object named '{name}' in this space"
            ))),
        }
    }

    fn write_catalog(&self) -> Result<()> {
        let c = self.cat();
        let mut g = self.pool.fix_write(0)?;
        g[..8].copy_from_slice(MAGIC);
        put_u32(&mut g, 8, self.pool.page_size() as u32);
        put_u32(&mut g, 12, c.next_free);
        put_u32(&mut g, 16, c.objects.len() as u32);
        for (i, o) in c.objects.iter().enumerate() {
            let e = &mut g[HEAD + i * ENTRY..HEAD + (i + 1) * ENTRY];
            e.fill(0);
            e[..o.name.len()].copy_from_slice(o.name.as_bytes());
            e[NAME] = o.kind as u8;
            put_u32(e, NAME + 4, o.a);
            put_u32(e, NAME + 8, o.b);
        }
        Ok(())
    }

    /// Checks every object in the catalog ([`super::BTree::check`],
    /// [`super::HeapFile::check`]) and returns what each holds, in catalog
    /// order. Run it while no thread changes the space.
    pub fn check(&self) -> Result<Vec<Checked>> {
        let objects: Vec<(String, ObjKind)> = self
            .cat()
            .objects
            .iter()
            .map(|o| (o.name.clone(), o.kind))
            .collect();
        objects
            .into_iter()
            .map(|(name, kind)| {
                Ok(match kind {
                    ObjKind::BTree => {
                        let s = super::BTree::open(self, &name)?.check(self)?;
                        Checked {
                            pages: s.internal + s.leaves,
                            entries: s.entries,
                            height: s.height,
                            name,
                        }
                    }
                    ObjKind::Heap => {
                        let (pages, entries) = super::HeapFile::open(self, &name)?.check(self)?;
                        Checked {
                            name,
                            pages,
                            entries,
                            height: 0,
                        }
                    }
                })
            })
            .collect()
    }

    /// Writes the catalog and flushes the pool: everything so far is durable.
    pub fn flush(&self) -> Result<()> {
        self.write_catalog()?;
        self.pool.flush()
    }

    /// Flushes and returns the store.
    pub fn close(self) -> Result<S> {
        self.write_catalog()?;
        Ok(self.pool.close()?)
    }
}
