//! `Cache`: a policy over a store, fed one request at a time
//! (`flashlayer::sim::Live`), its row the same as `replay`'s.

use crate::err;
use flashlayer::policy::PolicySpec;
use flashlayer::sim::{Live, StoreSpec};
use flashlayer::types::Op;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A buffer of `capacity` pages (or `"P%"` of `pages`) managed by
/// `policy` over `store` (default `cost`), served one request at a time.
#[pyclass(module = "flashlayer._native")]
pub(crate) struct Cache {
    /// Behind a lock only because a Python object must be shareable
    /// between threads; `&mut self` already makes each call exclusive.
    live: Mutex<Live>,
    policy: PolicySpec,
    store: StoreSpec,
    /// Time spent serving requests, for the row's `seconds`.
    busy: Duration,
}

fn op(write: bool) -> Op {
    if write {
        Op::Write
    } else {
        Op::Read
    }
}

impl Cache {
    fn live(&mut self) -> &mut Live {
        self.live
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
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
        let live = Live::new(&spec, buffer, &store, pages).map_err(err)?;
        Ok(Cache {
            live: Mutex::new(live),
            policy: spec,
            store,
            busy: Duration::ZERO,
        })
    }

    /// Serves a request for `page`; returns whether it hit.
    #[pyo3(signature = (page, write=false))]
    fn request(&mut self, page: u64, write: bool) -> PyResult<bool> {
        let start = Instant::now();
        let hit = self.live().request(page, op(write)).map_err(err);
        self.busy += start.elapsed();
        crate::pypolicy::checked(hit)
    }

    /// Serves the requests of `pages` (little-endian `u64`s) and `writes`
    /// (one byte each, 0 or 1) with the GIL released; returns one byte per
    /// request, 1 for a hit. Stops at the first error, which it raises.
    fn serve<'py>(
        &mut self,
        py: Python<'py>,
        pages: &[u8],
        writes: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let requests = crate::packed_requests(pages, writes)?;
        let live = self
            .live
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let start = Instant::now();
        let hits = py.detach(|| {
            requests
                .map(|(page, op)| live.request(page, op).map(u8::from))
                .collect::<flashlayer::Result<Vec<u8>>>()
        });
        self.busy += start.elapsed();
        let hits = crate::pypolicy::checked(hits.map_err(err))?;
        Ok(PyBytes::new(py, &hits))
    }

    /// Distinct pages: declared, or met so far.
    #[getter]
    fn pages(&self) -> usize {
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pages()
    }

    /// The row `simulate` gives for the requests served so far.
    /// `flush_at_end` writes the dirty pages first (they stay buffered,
    /// clean); default off.
    #[pyo3(signature = (flush_at_end=None))]
    fn result<'py>(
        &mut self,
        py: Python<'py>,
        flush_at_end: Option<bool>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let r = self.live().result(flush_at_end).map_err(err)?;
        crate::replay::row(
            py,
            "<requests>",
            &self.policy,
            &self.store,
            r,
            self.busy.as_secs_f64(),
        )
    }

    fn __repr__(&self) -> String {
        let live = self
            .live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        format!(
            "Cache({:?}, {}, store={:?}, pages={})",
            self.policy.to_string(),
            live.buffer_pages(),
            self.store.short(),
            live.pages()
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Cache>()
}
