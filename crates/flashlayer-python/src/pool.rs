//! `BufferPool`: the engine's buffer pool (`flashlayer::buffer`) from
//! Python, over a memory or a file store, for teaching and tests. A page is
//! fixed by `read(page)` or `write(page)`, used as a context manager, and
//! unfixed when the block ends, as the pool's protocol says.
//!
//! A pool object and its fixes stay on the thread that made them; since
//! that thread holds every fix the object has, a fix that would wait on
//! one of its own (the same page written twice, every frame fixed) is
//! refused with a message instead of blocking forever.

use crate::err;
use flashlayer::buffer::{BufferPool as Engine, PageMut, PageRef};
use flashlayer::device::DeviceModel;
use flashlayer::policy::{boxed_online_policy, BoxedPolicy, PolicySpec};
use flashlayer::store::{DynStore, FileStore, MemStore};
use flashlayer::types::PageId;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

type Pool = Engine<BoxedPolicy, DynStore>;

/// What this object holds fixed: per page, its readers, or -1 for a writer.
type Held = Rc<RefCell<HashMap<PageId, i32>>>;

/// A buffer pool of `frames` frames managed by `policy` over a store in
/// memory, or in a new file at `path`.
#[pyclass(module = "flashlayer._native", unsendable)]
pub(crate) struct BufferPool {
    pool: Arc<Pool>,
    held: Held,
}

enum Guard {
    Read(PageRef<'static, BoxedPolicy, DynStore>),
    Write(PageMut<'static, BoxedPolicy, DynStore>),
}

/// A fixed page: `data` reads it; a page fixed for writing takes
/// `page[offset:offset+len(data)] = data` through `write_at`. Unfixed by
/// `unfix()` or at the end of its `with` block.
#[pyclass(module = "flashlayer._native", unsendable)]
pub(crate) struct Fixed {
    // Dropped before `_pool`, whose frames it borrows.
    guard: Option<Guard>,
    page: PageId,
    held: Held,
    _pool: Arc<Pool>,
}

fn refused(msg: String) -> PyErr {
    crate::FlashlayerError::new_err(msg)
}

#[pymethods]
impl BufferPool {
    #[new]
    #[pyo3(signature = (policy, frames, path=None, page_size=4096, device=None, replace=false))]
    fn new(
        policy: &str,
        frames: usize,
        path: Option<PathBuf>,
        page_size: usize,
        device: Option<&str>,
        replace: bool,
    ) -> PyResult<Self> {
        if frames == 0 {
            return Err(refused("a pool needs at least 1 frame".into()));
        }
        let spec = PolicySpec::parse(policy).map_err(err)?;
        if spec.is_offline() {
            return Err(refused(format!(
                "{} reads a trace's future; a pool has none",
                spec.name()
            )));
        }
        let device = DeviceModel::parse(device.unwrap_or("ratio:1:1")).map_err(err)?;
        let store: DynStore = match path {
            None => Box::new(MemStore::new(page_size, device)),
            Some(p) => {
                if p.exists() && !replace {
                    return Err(refused(format!(
                        "{} exists: a pool writes only a file it creates (replace=True to write over it)",
                        p.display()
                    )));
                }
                Box::new(
                    FileStore::builder(&p)
                        .page_size(page_size)
                        .device(device)
                        .open()
                        .map_err(err)?,
                )
            }
        };
        let policy = boxed_online_policy(&spec, frames, 0).map_err(err)?;
        let pool = Engine::new(policy, store).map_err(err)?;
        Ok(BufferPool {
            pool: Arc::new(pool),
            held: Rc::default(),
        })
    }

    /// Fixes `page` for reading.
    fn read(&self, page: PageId) -> PyResult<Fixed> {
        self.may_fix(page, false)?;
        let g = self.pool.fix_read(page).map_err(err)?;
        // SAFETY: the guard borrows the pool behind the `Arc` that `Fixed`
        // keeps, and is dropped before it (field order); the pool never moves.
        let g: PageRef<'static, _, _> = unsafe { std::mem::transmute(g) };
        Ok(self.fixed(page, Guard::Read(g), 1))
    }

    /// Fixes `page` for writing.
    fn write(&self, page: PageId) -> PyResult<Fixed> {
        self.may_fix(page, true)?;
        let g = self.pool.fix_write(page).map_err(err)?;
        // SAFETY: as in `read`.
        let g: PageMut<'static, _, _> = unsafe { std::mem::transmute(g) };
        Ok(self.fixed(page, Guard::Write(g), -1))
    }

    /// Writes every dirty page to the store and syncs it.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        let pool = Arc::clone(&self.pool);
        py.detach(move || pool.flush()).map_err(err)
    }

    /// Whether `page` is in the pool, and whether it is dirty.
    fn state(&self, page: PageId) -> (bool, bool) {
        (self.pool.is_resident(page), self.pool.is_dirty(page))
    }

    /// Hits, misses and the store's I/O so far, as `simulate` names them.
    fn metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let m = self.pool.metrics();
        crate::fields_dict(
            py,
            &flashlayer::fields!(
                m,
                [
                    requests,
                    reads,
                    writes,
                    hits,
                    misses,
                    physical_reads,
                    physical_writes,
                    dirty_evictions
                ]
            ),
        )
    }
}

impl BufferPool {
    /// Refuses a fix this thread's own fixes would block forever.
    fn may_fix(&self, page: PageId, write: bool) -> PyResult<()> {
        let held = self.held.borrow();
        match held.get(&page) {
            Some(&n) if n < 0 || write => {
                return Err(refused(format!(
                    "page {page} is fixed {} already: unfix it first",
                    if n < 0 { "for writing" } else { "for reading" }
                )))
            }
            Some(_) => return Ok(()),
            None => {}
        }
        if held.len() >= self.pool.frames() {
            return Err(refused(format!(
                "all {} frames are fixed: unfix a page first",
                self.pool.frames()
            )));
        }
        Ok(())
    }

    fn fixed(&self, page: PageId, guard: Guard, n: i32) -> Fixed {
        *self.held.borrow_mut().entry(page).or_insert(0) += n;
        Fixed {
            guard: Some(guard),
            page,
            held: Rc::clone(&self.held),
            _pool: Arc::clone(&self.pool),
        }
    }
}

#[pymethods]
impl Fixed {
    /// The page's bytes.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        match &self.guard {
            Some(Guard::Read(g)) => Ok(PyBytes::new(py, g)),
            Some(Guard::Write(g)) => Ok(PyBytes::new(py, g)),
            None => Err(refused(format!("page {} is unfixed", self.page))),
        }
    }

    /// Writes `data` into the page at `offset`.
    #[pyo3(signature = (data, offset=0))]
    fn write_at(&mut self, data: &[u8], offset: usize) -> PyResult<()> {
        let page = self.page;
        match &mut self.guard {
            Some(Guard::Write(g)) => {
                let end = offset
                    .checked_add(data.len())
                    .filter(|&e| e <= g.len())
                    .ok_or_else(|| {
                        refused(format!(
                            "{} bytes at {offset} do not fit a page of {} bytes",
                            data.len(),
                            g.len()
                        ))
                    })?;
                g[offset..end].copy_from_slice(data);
                Ok(())
            }
            Some(Guard::Read(_)) => Err(refused(format!("page {page} is fixed for reading"))),
            None => Err(refused(format!("page {page} is unfixed"))),
        }
    }

    /// Unfixes the page (a second call does nothing).
    fn unfix(&mut self) {
        if let Some(g) = self.guard.take() {
            let mut held = self.held.borrow_mut();
            let n = held.entry(self.page).or_insert(0);
            *n = if matches!(g, Guard::Write(_)) {
                0
            } else {
                *n - 1
            };
            if *n == 0 {
                held.remove(&self.page);
            }
            drop(g);
        }
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __exit__(
        &mut self,
        _t: Option<Bound<'_, PyAny>>,
        _v: Option<Bound<'_, PyAny>>,
        _tb: Option<Bound<'_, PyAny>>,
    ) -> bool {
        self.unfix();
        false
    }
}

impl Drop for Fixed {
    fn drop(&mut self) {
        self.unfix();
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<BufferPool>()?;
    m.add_class::<Fixed>()
}
