//! Exact and sampled LRU cost curves for Python (`lru_curve`).

use crate::{timed, Trace};
use flashlayer::curve::{self, shards::Sampling};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The LRU curve of `trace`: misses and write-backs at every size (entry
/// `i` is `i × width` pages). Exact unless `sample` (a rate in (0, 1]) or
/// `sample_size` (pages kept by fixed-size SHARDS) is given; a sampled
/// curve keeps at most `bins` size bins (default 65,536).
#[pyfunction]
#[pyo3(signature = (trace, sample=None, sample_size=None, bins=None, progress=None))]
pub fn lru_curve<'py>(
    py: Python<'py>,
    trace: &Trace,
    sample: Option<f64>,
    sample_size: Option<i64>,
    bins: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let sampling = match (sample, sample_size) {
        (Some(_), Some(_)) => {
            return Err(crate::FlashlayerError::new_err(
                "give a sampling rate or a sample size, not both",
            ))
        }
        (Some(r), None) => Some(Sampling::Rate(r)),
        (None, Some(s)) if s >= 1 => Some(Sampling::Size(s as usize)),
        (None, Some(s)) => {
            return Err(crate::FlashlayerError::new_err(format!(
                "a sample must hold at least 1 page, got {s}"
            )))
        }
        (None, None) => None,
    };
    let bins = bins.unwrap_or(curve::shards::DEFAULT_BINS);
    if bins < 2 {
        return Err(crate::FlashlayerError::new_err(format!(
            "a curve needs at least 2 bins, got {bins}"
        )));
    }
    let (c, seconds) = timed(py, progress, |cb| {
        curve::trace_curve(&trace.flt, sampling, bins, cb)
    })?;
    let d = PyDict::new(py);
    d.set_item("requests", c.requests)?;
    d.set_item("sampled", c.sampled)?;
    d.set_item("pages", c.pages)?;
    d.set_item("width", c.width)?;
    d.set_item("cold", c.cold)?;
    d.set_item("misses", c.misses)?;
    d.set_item("writebacks", c.writebacks)?;
    d.set_item("seconds", seconds)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(lru_curve, m)?)?;
    Ok(())
}
