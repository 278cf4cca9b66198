//! `BufferPool`: the engine's buffer pool (`flashlayer::buffer`) from
//! Python, over a memory or a file store. A page is fixed by `read(page)`
//! or `write(page)`, used as a context manager, and unfixed when the block
//! ends, as the pool's protocol says.
//!
//! A pool is shared by threads as the engine's is: a fix waits with the GIL
//! released, so threads fix pages concurrently. Each thread's own fixes are
//! counted, so a fix that would wait on one of the caller's own (the same
//! page written twice, every frame fixed by it) is refused with a message
//! instead of blocking forever. The pool's guards are movable
//! ([`Engine::with_movable_guards`]): a page object may be unfixed, or
//! collected, on any thread.
//!
//! `close()` (or the end of a `with` block) writes every dirty page and
//! syncs; a pool dropped with dirty pages warns (`ResourceWarning`).

use crate::pypolicy::guarded;
use crate::{err, thread_tag};
use flashlayer::buffer::{BufferPool as Engine, PageMut, PageRef};
use flashlayer::device::DeviceModel;
use flashlayer::policy::{boxed_online_policy, BoxedPolicy, PolicySpec};
use flashlayer::store::{DynStore, FileStore, MemStore};
use flashlayer::types::PageId;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

type Pool = Engine<BoxedPolicy, DynStore>;

/// What each thread holds fixed: per (thread, page), its readers, or -1
/// for a writer.
type Held = Arc<Mutex<HashMap<(usize, PageId), i32>>>;

fn held(h: &Held) -> MutexGuard<'_, HashMap<(usize, PageId), i32>> {
    h.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A buffer pool of `frames` frames managed by `policy` over a store in
/// memory, or in a new file at `path`.
#[pyclass(module = "flashlayer._native")]
pub(crate) struct BufferPool {
    /// `None` once closed.
    pool: Mutex<Option<Arc<Pool>>>,
    held: Held,
}

enum Guard {
    Read(PageRef<'static, BoxedPolicy, DynStore>),
    Write(PageMut<'static, BoxedPolicy, DynStore>),
}

/// A guard of a pool with movable guards holds no count in its thread's
/// stripe ([`Engine::with_movable_guards`]), so it may be dropped, and its
/// latch released, on any thread.
struct Movable(Guard);

// SAFETY: every pool of this module is built with movable guards, whose
// release takes no thread-local state (the pool lock, the frame's atomics).
unsafe impl Send for Movable {}
// SAFETY: `Fixed` reaches the guard only under its own lock.
unsafe impl Sync for Movable {}

/// A fixed page: `data` reads it; a page fixed for writing takes
/// `page[offset:offset+len(data)] = data` through `write_at`. Unfixed by
/// `unfix()` or at the end of its `with` block.
#[pyclass(module = "flashlayer._native")]
pub(crate) struct Fixed {
    // Dropped before `_pool`, whose frames it borrows.
    guard: Mutex<Option<Movable>>,
    page: PageId,
    thread: usize,
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
                        "{} exists: a pool writes only a file it creates (replace=True to start it anew)",
                        p.display()
                    )));
                }
                if replace && p.exists() {
                    // Asked for: the pool starts from an empty file.
                    std::fs::File::create(&p)
                        .map_err(|e| refused(format!("{}: {e}", p.display())))?;
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
        let policy = guarded(|| boxed_online_policy(&spec, frames, 0).map_err(err))?;
        let pool = Engine::new(policy, store)
            .map_err(err)?
            .with_movable_guards();
        Ok(BufferPool {
            pool: Mutex::new(Some(Arc::new(pool))),
            held: Arc::default(),
        })
    }

    /// Fixes `page` for reading.
    fn read(&self, py: Python<'_>, page: PageId) -> PyResult<Fixed> {
        self.fix(py, page, false)
    }

    /// Fixes `page` for writing.
    fn write(&self, py: Python<'_>, page: PageId) -> PyResult<Fixed> {
        self.fix(py, page, true)
    }

    /// Writes every dirty page to the store and syncs it.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        let pool = self.open()?;
        guarded(|| py.detach(|| pool.flush()).map_err(err))
    }

    /// Writes every dirty page, syncs, and closes the pool: every later
    /// call is refused. Refused while a page is fixed; if the write fails
    /// the pool stays open with its dirty pages, and the error names them.
    /// A second call does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let mut slot = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(pool) = slot.as_ref() else {
            return Ok(());
        };
        let fixed = held(&self.held).len();
        if fixed > 0 {
            return Err(refused(format!(
                "{fixed} pages are fixed: unfix them before closing the pool"
            )));
        }
        let pool = Arc::clone(pool);
        guarded(|| py.detach(|| pool.flush()).map_err(err)).map_err(|e| {
            refused(format!(
                "the pool stays open: its {} dirty pages could not be written ({e})",
                pool.dirty_count()
            ))
        })?;
        *slot = None;
        Ok(())
    }

    /// Whether `page` is in the pool, and whether it is dirty.
    fn state(&self, page: PageId) -> PyResult<(bool, bool)> {
        let pool = self.open()?;
        Ok((pool.is_resident(page), pool.is_dirty(page)))
    }

    /// Hits, misses and the store's I/O so far, as `simulate` names them.
    fn metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let m = self.open()?.metrics();
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

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Closes the pool (writing its dirty pages), also when the block
    /// raised.
    fn __exit__(
        &self,
        py: Python<'_>,
        _t: Option<Bound<'_, PyAny>>,
        _v: Option<Bound<'_, PyAny>>,
        _tb: Option<Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }
}

impl Drop for BufferPool {
    /// A pool dropped open with dirty pages loses them: it says so.
    fn drop(&mut self) {
        let slot = self.pool.get_mut().unwrap_or_else(PoisonError::into_inner);
        let Some(pool) = slot.as_ref() else { return };
        let dirty = pool.dirty_count();
        if dirty > 0 {
            Python::attach(|py| {
                let warning = py.get_type::<pyo3::exceptions::PyResourceWarning>();
                let msg = std::ffi::CString::new(format!(
                    "BufferPool dropped with {dirty} dirty pages unwritten: close() it, or use it in a with block"
                ))
                .unwrap_or_default();
                if let Err(e) = PyErr::warn(py, &warning, &msg, 1) {
                    e.write_unraisable(py, None);
                }
            });
        }
    }
}

impl BufferPool {
    /// The pool, unless it is closed.
    fn open(&self) -> PyResult<Arc<Pool>> {
        self.pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(|| refused("the pool is closed".into()))
    }

    /// Refuses a fix this thread's own fixes would block forever.
    fn may_fix(&self, pool: &Pool, page: PageId, write: bool) -> PyResult<()> {
        let me = thread_tag();
        let held = held(&self.held);
        match held.get(&(me, page)) {
            Some(&n) if n < 0 || write => {
                return Err(refused(format!(
                    "page {page} is fixed {} already: unfix it first",
                    if n < 0 { "for writing" } else { "for reading" }
                )))
            }
            Some(_) => return Ok(()),
            None => {}
        }
        let mine = held.keys().filter(|(t, _)| *t == me).count();
        if mine >= pool.frames() {
            return Err(refused(format!(
                "all {} frames are fixed: unfix a page first",
                pool.frames()
            )));
        }
        Ok(())
    }

    /// Fixes `page`, waiting with the GIL released.
    fn fix(&self, py: Python<'_>, page: PageId, write: bool) -> PyResult<Fixed> {
        let pool = self.open()?;
        self.may_fix(&pool, page, write)?;
        let g = guarded(|| {
            py.detach(|| {
                // SAFETY (both transmutes): the guard borrows the pool behind
                // the `Arc` that `Fixed` keeps, and is dropped before it
                // (field order); the pool never moves.
                if write {
                    pool.fix_write(page).map(|g| {
                        let g: PageMut<'static, _, _> = unsafe { std::mem::transmute(g) };
                        Movable(Guard::Write(g))
                    })
                } else {
                    pool.fix_read(page).map(|g| {
                        let g: PageRef<'static, _, _> = unsafe { std::mem::transmute(g) };
                        Movable(Guard::Read(g))
                    })
                }
            })
            .map_err(err)
        })?;
        let thread = thread_tag();
        *held(&self.held).entry((thread, page)).or_insert(0) += if write { -1 } else { 1 };
        Ok(Fixed {
            guard: Mutex::new(Some(g)),
            page,
            thread,
            held: Arc::clone(&self.held),
            _pool: pool,
        })
    }
}

#[pymethods]
impl Fixed {
    /// The page's bytes.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        match &*self.guard() {
            Some(Movable(Guard::Read(g))) => Ok(PyBytes::new(py, g)),
            Some(Movable(Guard::Write(g))) => Ok(PyBytes::new(py, g)),
            None => Err(refused(format!("page {} is unfixed", self.page))),
        }
    }

    /// Writes `data` into the page at `offset`.
    #[pyo3(signature = (data, offset=0))]
    fn write_at(&self, data: &[u8], offset: usize) -> PyResult<()> {
        let page = self.page;
        match &mut *self.guard() {
            Some(Movable(Guard::Write(g))) => {
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
            Some(Movable(Guard::Read(_))) => {
                Err(refused(format!("page {page} is fixed for reading")))
            }
            None => Err(refused(format!("page {page} is unfixed"))),
        }
    }

    /// Unfixes the page (a second call does nothing). The pool's policy
    /// hears of the request here: if a Python policy raises, its exception
    /// is raised, the page is unfixed all the same and the request is not
    /// counted (a page written stays dirty).
    fn unfix(&self, py: Python<'_>) -> PyResult<()> {
        self.release(py)
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        _t: Option<Bound<'_, PyAny>>,
        _v: Option<Bound<'_, PyAny>>,
        _tb: Option<Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.unfix(py)?;
        Ok(false)
    }
}

impl Fixed {
    fn guard(&self) -> MutexGuard<'_, Option<Movable>> {
        self.guard.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Unfixes the page if it is fixed: out of its thread's count, then
    /// the guard dropped with the GIL released (the policy hears of the
    /// request there, and a Python policy's exception is returned).
    fn release(&self, py: Python<'_>) -> PyResult<()> {
        let Some(g) = self.guard().take() else {
            return Ok(());
        };
        {
            let mut held = held(&self.held);
            let key = (self.thread, self.page);
            let n = held.entry(key).or_insert(0);
            *n = if matches!(g.0, Guard::Write(_)) {
                0
            } else {
                *n - 1
            };
            if *n == 0 {
                held.remove(&key);
            }
        }
        guarded(|| {
            py.detach(move || drop(g));
            Ok(())
        })
    }
}

impl Drop for Fixed {
    /// A page object collected while fixed is unfixed; a Python policy's
    /// exception there has no caller to reach, so it is reported as
    /// unraisable.
    fn drop(&mut self) {
        Python::attach(|py| {
            if let Err(e) = self.release(py) {
                e.write_unraisable(py, None);
            }
        });
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<BufferPool>()?;
    m.add_class::<Fixed>()
}
