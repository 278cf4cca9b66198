//! `Cache`: a policy over a store, fed one request at a time
//! (`flashlayer::sim::Live`), its row the same as `replay`'s.

use crate::pypolicy::guarded;
use crate::{err, thread_tag};
use flashlayer::policy::PolicySpec;
use flashlayer::sim::{Live, StoreSpec};
use flashlayer::types::Op;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A buffer of `capacity` pages (or `"P%"` of `pages`) managed by
/// `policy` over `store` (default `cost`), served one request at a time.
/// Threads may share it: each call holds the cache whole, waiting for it
/// with the GIL released, so calls are served one after another.
#[pyclass(module = "flashlayer._native")]
pub(crate) struct Cache {
    served: Mutex<Served>,
    /// The thread inside a call ([`thread_tag`]), 0 for none: a policy's
    /// callback that calls its own cache is refused instead of waiting
    /// for itself.
    inside: AtomicUsize,
    policy: PolicySpec,
    store: StoreSpec,
}

/// The run, and the time spent serving it (the row's `seconds`).
struct Served {
    live: Live,
    busy: Duration,
}

fn op(write: bool) -> Op {
    if write {
        Op::Write
    } else {
        Op::Read
    }
}

/// Clears [`Cache::inside`] when a call ends, however it ends.
struct Leave<'a>(&'a AtomicUsize);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.store(0, Ordering::SeqCst);
    }
}

impl Cache {
    /// Runs `work` on the run with the GIL released, once no other call is
    /// inside; a Python policy's exception is raised.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        work: impl Send + FnOnce(&mut Served) -> flashlayer::Result<T>,
    ) -> PyResult<T> {
        let me = thread_tag();
        if self.inside.load(Ordering::SeqCst) == me {
            return Err(crate::FlashlayerError::new_err(
                "a policy's callback called the cache it serves; a cache serves one call at a time",
            ));
        }
        guarded(|| {
            py.detach(|| {
                let mut served = self.served.lock().unwrap_or_else(PoisonError::into_inner);
                self.inside.store(me, Ordering::SeqCst);
                let _leave = Leave(&self.inside);
                work(&mut served)
            })
            .map_err(err)
        })
    }
}

#[pymethods]
impl Cache {
    #[new]
    #[pyo3(signature = (policy, capacity, store=None, pages=None))]
    fn new(
        policy: &str,
        capacity: &Bound<'_, PyAny>,
        store: Option<&str>,
        pages: Option<usize>,
    ) -> PyResult<Self> {
        let spec = PolicySpec::parse(policy).map_err(err)?;
        let buffer = crate::replay::size(capacity)?;
        let store = StoreSpec::parse(store.unwrap_or("cost")).map_err(err)?;
        let live = guarded(|| Live::new(&spec, buffer, &store, pages).map_err(err))?;
        Ok(Cache {
            served: Mutex::new(Served {
                live,
                busy: Duration::ZERO,
            }),
            inside: AtomicUsize::new(0),
            policy: spec,
            store,
        })
    }

    /// Serves a request for `page`; returns whether it hit.
    #[pyo3(signature = (page, write=false))]
    fn request(&self, py: Python<'_>, page: u64, write: bool) -> PyResult<bool> {
        self.with(py, |s| {
            let start = Instant::now();
            let hit = s.live.request(page, op(write));
            s.busy += start.elapsed();
            hit
        })
    }

    /// Serves the requests of `pages` (little-endian `u64`s) and `writes`
    /// (one byte each, 0 or 1); returns one byte per request, 1 for a hit.
    /// Stops at the first request that fails, whose error it raises: the
    /// requests before it are served, it and those after are not.
    fn serve<'py>(
        &self,
        py: Python<'py>,
        pages: &[u8],
        writes: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let requests = crate::packed_requests(pages, writes)?;
        let hits = self.with(py, |s| {
            let start = Instant::now();
            let hits = requests
                .map(|(page, op)| s.live.request(page, op).map(u8::from))
                .collect::<flashlayer::Result<Vec<u8>>>();
            s.busy += start.elapsed();
            hits
        })?;
        Ok(PyBytes::new(py, &hits))
    }

    /// Distinct pages: declared, or met so far.
    #[getter]
    fn pages(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |s| Ok(s.live.pages()))
    }

    /// The row `simulate` gives for the requests served so far.
    /// `flush_at_end` writes the dirty pages first (they stay buffered,
    /// clean); default off.
    #[pyo3(signature = (flush_at_end=None))]
    fn result<'py>(
        &self,
        py: Python<'py>,
        flush_at_end: Option<bool>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (r, busy) = self.with(py, |s| Ok((s.live.result(flush_at_end)?, s.busy)))?;
        crate::replay::row(
            py,
            "<requests>",
            &self.policy,
            &self.store,
            r,
            busy.as_secs_f64(),
        )
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let (buffer, pages, declared) = self.with(py, |s| {
            Ok((s.live.buffer_pages(), s.live.pages(), s.live.declared()))
        })?;
        let pages = if declared {
            format!(", pages={pages}")
        } else {
            String::new()
        };
        Ok(format!(
            "Cache('{}', {buffer}, store='{}'{pages})",
            self.policy,
            self.store.short(),
        ))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Cache>()
}
