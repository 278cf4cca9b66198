//! The one replay for Python: any policy spec on any store spec
//! (`flashlayer::sim::replay`), returning the row of `flashlayer sim
//! --json`: the fields of every store, and those of its kind.

use crate::{err, timed, Trace};
use flashlayer::policy::PolicySpec;
use flashlayer::sim::{self, ReplayOptions, Replayed, StoreSpec};
use flashlayer::spec::Size;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A buffer or SSD size from Python: pages (an int) or `"P%"` (or `"N"`).
pub(crate) fn size(value: &Bound<'_, PyAny>) -> PyResult<Size> {
    if let Ok(n) = value.extract::<i64>() {
        if value.is_instance_of::<pyo3::types::PyBool>() || n < 1 {
            return Err(crate::FlashlayerError::new_err(format!(
                "a size must be at least 1 page, got {n}"
            )));
        }
        return Ok(Size::Pages(n as u64));
    }
    let text: String = value
        .extract()
        .map_err(|_| crate::FlashlayerError::new_err(format!("expected {}", Size::ALLOWED)))?;
    Size::parse(&text).map_err(err)
}

/// Replays `trace` with `policy` and a buffer of `buffer` (pages or
/// `"P%"`) over the store `store` (a store spec; default `cost`, a cost
/// model of `ratio:1:1`). `series_every` records a time series every N
/// requests; `flush_at_end` writes the dirty pages left (`None`: the
/// store's default). `progress`, if given, is called with the requests
/// served after every million; an exception it raises (or Ctrl-C) stops
/// the run and propagates.
#[pyfunction]
#[pyo3(signature = (trace, policy, buffer, store=None, series_every=None, flush_at_end=None, progress=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "one argument per option of the run"
)]
pub fn replay<'py>(
    py: Python<'py>,
    trace: &Trace,
    policy: &str,
    buffer: &Bound<'py, PyAny>,
    store: Option<&str>,
    series_every: Option<u64>,
    flush_at_end: Option<bool>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let spec = PolicySpec::parse(policy).map_err(err)?;
    let buffer = size(buffer)?;
    let store = StoreSpec::parse(store.unwrap_or("cost")).map_err(err)?;
    let opts = ReplayOptions {
        series_every: series_every.unwrap_or(0),
        flush_at_end,
        probe: false,
    };
    let (r, seconds) = timed(py, progress, |cb| {
        sim::replay(&trace.flt, &spec, buffer, &store, &opts, cb)
    })?;
    row(
        py,
        &trace.source.display().to_string(),
        &spec,
        &store,
        r,
        seconds,
    )
}

/// Whether a replay of `policy` over `store` on `trace` would start: the
/// store opened and the policy built as the run would, no request served
/// (`sim::check`). Raises the error the run would raise.
#[pyfunction]
#[pyo3(signature = (trace, policy, buffer, store=None, flush_at_end=None))]
pub fn check(
    py: Python<'_>,
    trace: &Trace,
    policy: &str,
    buffer: &Bound<'_, PyAny>,
    store: Option<&str>,
    flush_at_end: Option<bool>,
) -> PyResult<()> {
    let spec = PolicySpec::parse(policy).map_err(err)?;
    let buffer = size(buffer)?;
    let store = StoreSpec::parse(store.unwrap_or("cost")).map_err(err)?;
    let opts = ReplayOptions {
        flush_at_end,
        ..ReplayOptions::default()
    };
    crate::pypolicy::guarded(|| {
        py.detach(|| sim::check(&trace.flt, &spec, buffer, &store, &opts))
            .map_err(err)
    })
}

/// The row of a run: the metrics of every store, the kind's fields, and
/// what ran on what.
pub(crate) fn row<'py>(
    py: Python<'py>,
    trace: &str,
    policy: &PolicySpec,
    store: &StoreSpec,
    r: Replayed,
    seconds: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    crate::put_fields(&d, &r.row(trace, policy, store, seconds))?;
    crate::put_series(&d, &r.metrics)?;
    Ok(d)
}

/// Pages of a size (pages, or `"P%"` of `distinct` pages), by the
/// engine's rule.
#[pyfunction]
pub fn size_pages(size: &Bound<'_, PyAny>, distinct: usize) -> PyResult<usize> {
    Ok(self::size(size)?.pages(distinct))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::add_functions!(m, [replay, check, size_pages]);
    Ok(())
}
