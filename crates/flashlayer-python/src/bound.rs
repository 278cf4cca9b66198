//! The cost-optimal bound for Python (`bound`).

use crate::{err, timed, Trace};
use flashlayer::bound::{plan, BoundOptions, DEFAULT_ITERATIONS};
use flashlayer::device::DeviceModel;
use flashlayer::policy::{Future, ScheduleCosts};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Lower bound on every policy's cost (`lower`, costopt-lb), the cost of
/// the best schedule found (`upper`, costopt-ub) and Belady's (`belady`)
/// for `trace` with a buffer of `buffer_pages` on `device` (default
/// `ratio:1:1`); `flush_at_end` charges the pages still dirty at the end
/// (default off, as in `simulate`). `iterations` of the planner (default
/// 100). `search=False` replays only Belady's schedule (the upper bound is
/// then Belady's cost): the lower bound in a fraction of the time.
/// `progress` is called with each iteration's number.
#[pyfunction]
#[expect(
    clippy::too_many_arguments,
    reason = "one argument per keyword of the Python function"
)]
#[pyo3(signature = (trace, buffer_pages, device=None, flush_at_end=false, iterations=None, search=true, progress=None))]
pub fn bound<'py>(
    py: Python<'py>,
    trace: &Trace,
    buffer_pages: i64,
    device: Option<&str>,
    flush_at_end: bool,
    iterations: Option<usize>,
    search: bool,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    if buffer_pages < 1 {
        return Err(crate::FlashlayerError::new_err(format!(
            "buffer size must be at least 1 page, got {buffer_pages}"
        )));
    }
    let pages = usize::try_from(buffer_pages).unwrap_or(usize::MAX);
    let device = match device {
        Some(s) => DeviceModel::parse(s)
            .and_then(|m| m.one_at_a_time("a cost bound"))
            .map_err(err)?,
        None => DeviceModel::unit(),
    };
    let costs = ScheduleCosts::of(&device, flush_at_end);
    let opts = BoundOptions {
        iterations: iterations.unwrap_or(DEFAULT_ITERATIONS),
        search,
        ..BoundOptions::default()
    };
    let flt = &trace.flt;
    let (found, seconds) = timed(py, progress, |cb| {
        let future = Future::from_bytes(flt.request_bytes(), flt.pages())?;
        plan(&future, flt, pages, costs, &opts, &mut |i| cb(i as u64))
    })?;
    let b = found.bounds;
    let d = PyDict::new(py);
    d.set_item("buffer_pages", pages.min(flt.pages().max(1)))?;
    d.set_item("device", device.name.clone())?;
    crate::put_fields(
        &d,
        &flashlayer::fields!(b, [lower, upper, belady, compulsory, iterations]),
    )?;
    d.set_item("seconds", seconds)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bound, m)?)?;
    Ok(())
}
