//! PyO3 bindings of the flashlayer engine: `flashlayer._native`.
//!
//! Thin by design (`DESIGN.md` §1 rule 6): every function converts arguments,
//! releases the GIL for the engine call, and converts results to plain
//! Python values. Engine errors become `flashlayer.FlashlayerError`, which the
//! CLI prints as one line with exit code 2.

use flashlayer::types::{Fields, Metrics, Value};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::time::Instant;

/// Adds the `#[pyfunction]`s listed to module `m`.
macro_rules! add_functions {
    ($m:expr, [$($f:ident),* $(,)?]) => {
        $($m.add_function(wrap_pyfunction!($f, $m)?)?;)*
    };
}
pub(crate) use add_functions;

mod bound;
mod cache;
mod curve;
mod flash;
mod hybrid;
mod pool;
mod pypolicy;
mod replay;
mod spec;
mod trace;
mod workload;

pub(crate) use workload::workload_spec;

pub(crate) use trace::Trace;

/// Per-page tables on huge pages (`flashlayer::alloc`): replays run 7–17%
/// faster.
#[global_allocator]
static ALLOC: flashlayer::alloc::HugePages = flashlayer::alloc::HugePages;

create_exception!(
    _native,
    FlashlayerError,
    PyValueError,
    "A user-facing error from the engine: bad trace, unknown name, impossible size."
);

/// A tag of the calling thread, unique among live threads (never 0).
pub(crate) fn thread_tag() -> usize {
    thread_local!(static TAG: u8 = const { 0 });
    TAG.with(|t| std::ptr::from_ref(t) as usize)
}

pub(crate) fn err(e: flashlayer::Error) -> PyErr {
    FlashlayerError::new_err(e.to_string())
}

/// The requests of `pages` (little-endian `u64`s) and `writes` (one byte
/// each, non-zero for a write), as the Python side packs arrays.
pub(crate) fn packed_requests<'a>(
    pages: &'a [u8],
    writes: &'a [u8],
) -> PyResult<impl Iterator<Item = (u64, flashlayer::types::Op)> + Send + 'a> {
    if pages.len() != 8 * writes.len() {
        return Err(FlashlayerError::new_err(format!(
            "{} pages but {} write flags",
            pages.len() / 8,
            writes.len()
        )));
    }
    let (words, _) = pages.as_chunks::<8>();
    Ok(words.iter().zip(writes).map(|(w, &wr)| {
        let op = if wr != 0 {
            flashlayer::types::Op::Write
        } else {
            flashlayer::types::Op::Read
        };
        (u64::from_le_bytes(*w), op)
    }))
}

/// The argument `name` as a whole number of at least `lo`: a negative
/// number, a bool or a non-number is a `FlashlayerError` naming it, not
/// the bare `OverflowError` or `TypeError` of PyO3's conversion.
pub(crate) fn whole(name: &str, value: &Bound<'_, PyAny>, lo: u64) -> PyResult<u64> {
    let bad = || {
        FlashlayerError::new_err(format!(
            "{name} must be a whole number of at least {lo}, got {}",
            value
                .repr()
                .map(|r| r.to_string())
                .unwrap_or_else(|_| "?".into())
        ))
    };
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(bad());
    }
    match value.extract::<u64>() {
        Ok(v) if v >= lo => Ok(v),
        _ => Err(bad()),
    }
}

/// A report's fields into `d`, a group as a dict of its own, an absent
/// value as `None`.
/// A new dict of `fields` ([`put_fields`]).
pub(crate) fn fields_dict<'py>(py: Python<'py>, fields: &Fields) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    put_fields(&d, fields)?;
    Ok(d)
}

pub(crate) fn put_fields(d: &Bound<'_, PyDict>, fields: &Fields) -> PyResult<()> {
    for (key, value) in fields {
        match value {
            Value::Int(n) => d.set_item(key, n)?,
            Value::Float(x) => d.set_item(key, x)?,
            Value::Text(t) => d.set_item(key, t)?,
            Value::Switch(b) => d.set_item(key, b)?,
            Value::Absent => d.set_item(key, d.py().None())?,
        }
    }
    Ok(())
}

/// A store's I/O counts as a dict: reads, writes, erases and the device
/// time in µs (`IoStats`).
pub(crate) fn io_dict<'py>(
    py: Python<'py>,
    s: &flashlayer::store::IoStats,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    put_fields(&d, &flashlayer::fields!(s, [reads, writes, erases]))?;
    d.set_item("time_us", s.virtual_time)?;
    Ok(d)
}

/// A run's counters sampled along it (`series`, with `--series-every`),
/// one list per counter; nothing without samples.
pub(crate) fn put_series(d: &Bound<'_, PyDict>, m: &Metrics) -> PyResult<()> {
    let py = d.py();
    if !m.series.is_empty() {
        let s = PyDict::new(py);
        // One list per counter, in the order of the points.
        macro_rules! column {
            ($($f:ident),*) => {
                $(s.set_item(stringify!($f), m.series.iter().map(|p| p.$f).collect::<Vec<_>>())?;)*
            };
        }
        column!(
            requests,
            hits,
            physical_reads,
            physical_writes,
            virtual_time
        );
        // Policy state variables (CASA: tau, clean), one list each; a value
        // not known yet is None, not NaN (JSON has no NaN).
        let state = PyDict::new(py);
        for (j, &(name, _)) in m.series[0].state.iter().enumerate() {
            let values: Vec<Option<f64>> = m
                .series
                .iter()
                .map(|p| p.state.get(j).map(|v| v.1).filter(|v| !v.is_nan()))
                .collect();
            state.set_item(name, values)?;
        }
        s.set_item("state", state)?;
        d.set_item("series", s)?;
    }
    Ok(())
}

/// Calls `f` (if any) with the GIL held, after giving pending signals (Ctrl-C)
/// their chance. A Python exception, from the callback or a signal handler,
/// is kept in `failure` and stops the engine with `Cancelled`.
pub(crate) fn call_back(
    failure: &mut Option<PyErr>,
    f: impl FnOnce(Python<'_>) -> PyResult<()>,
) -> flashlayer::Result<()> {
    Python::attach(|py| {
        let r = py.check_signals().and_then(|()| f(py));
        r.map_err(|e| {
            *failure = Some(e);
            flashlayer::Error::Cancelled
        })
    })
}

/// Turns an engine result into a Python one, raising the callback's own
/// exception when it was the cause.
pub(crate) fn finish<T>(r: flashlayer::Result<T>, failure: Option<PyErr>) -> PyResult<T> {
    match (r, failure) {
        (Err(_), Some(e)) => Err(e),
        (r, _) => r.map_err(err),
    }
}

/// Runs `replay` with the GIL released, handing it a progress callback that
/// calls `progress` (if any) and stops the run on its exception or Ctrl-C;
/// returns the metrics and the seconds the replay took.
pub(crate) fn timed<T: Send>(
    py: Python<'_>,
    progress: Option<Bound<'_, PyAny>>,
    replay: impl Send + FnOnce(&mut dyn FnMut(u64) -> flashlayer::Result<()>) -> flashlayer::Result<T>,
) -> PyResult<(T, f64)> {
    let progress = progress.map(Bound::unbind);
    let start = Instant::now();
    let mut failure = None;
    let result = pypolicy::guarded(|| {
        Ok(py.detach(|| {
            let mut cb = |n: u64| {
                call_back(&mut failure, |py| match &progress {
                    Some(p) => p.call1(py, (n,)).map(drop),
                    None => Ok(()),
                })
            };
            replay(&mut cb)
        }))
    })?;
    let seconds = start.elapsed().as_secs_f64();
    Ok((finish(result, failure)?, seconds))
}

/// Runs `work` with the GIL released, handing it a `(done, total)`
/// progress callback that calls `progress` (if any) and stops the work on
/// its exception or Ctrl-C.
pub(crate) fn with_progress<T: Send>(
    py: Python<'_>,
    progress: Option<Bound<'_, PyAny>>,
    work: impl Send
        + FnOnce(&mut dyn FnMut(u64, u64) -> flashlayer::Result<()>) -> flashlayer::Result<T>,
) -> PyResult<T> {
    let progress = progress.map(Bound::unbind);
    let mut failure = None;
    let r = pypolicy::guarded(|| {
        Ok(py.detach(|| {
            let mut cb = |done: u64, total: u64| {
                call_back(&mut failure, |py| match &progress {
                    Some(f) => f.call1(py, (done, total)).map(drop),
                    None => Ok(()),
                })
            };
            work(&mut cb)
        }))
    })?;
    finish(r, failure)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FlashlayerError", m.py().get_type::<FlashlayerError>())?;
    m.add("TIER_DRAM_POLICY", flashlayer::tier::DEFAULT_DRAM_POLICY)?;
    trace::register(m)?;
    cache::register(m)?;
    pypolicy::register_module(m)?;
    pool::register(m)?;
    workload::register(m)?;
    spec::register(m)?;
    flash::register(m)?;
    bound::register(m)?;
    curve::register(m)?;
    hybrid::register(m)?;
    replay::register(m)?;
    Ok(())
}
