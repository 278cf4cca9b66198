//! Exact and sampled LRU cost curves for Python (`lru_curve`).

use crate::{err, timed, Trace};
use flashlayer::curve::{self, shards::Sampling};
use flashlayer::device::DeviceModel;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The LRU curve of `trace` at `sizes` (pages or `"P%"` of the trace's
/// distinct pages; default: `points` sizes log-spaced from 1 page to the
/// curve's pages, 50 by default): misses, write-backs and each device's
/// virtual time (`devices`, default `ratio:1:1`). Exact unless `sample` (a
/// rate in (0, 1]) or `sample_size` (pages kept by fixed-size SHARDS) is
/// given; a sampled curve keeps at most `bins` size bins (default 65,536)
/// and its counts are estimates.
#[pyfunction]
#[pyo3(signature = (trace, sizes=None, points=None, devices=None, sample=None, sample_size=None, bins=None, progress=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "one argument per option of the curve"
)]
pub fn lru_curve<'py>(
    py: Python<'py>,
    trace: &Trace,
    sizes: Option<Vec<Bound<'py, PyAny>>>,
    points: Option<usize>,
    devices: Option<Vec<String>>,
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
    if sizes.is_some() && points.is_some() {
        return Err(crate::FlashlayerError::new_err(
            "give sizes or points, not both",
        ));
    }
    let bins = bins.unwrap_or(curve::shards::DEFAULT_BINS);
    if bins < 2 {
        return Err(crate::FlashlayerError::new_err(format!(
            "a curve needs at least 2 bins, got {bins}"
        )));
    }
    let specs = devices.unwrap_or_else(|| vec![DeviceModel::unit().name]);
    let models = specs
        .iter()
        .map(|d| DeviceModel::parse(d)?.one_at_a_time("a cost curve"))
        .collect::<flashlayer::Result<Vec<_>>>()
        .map_err(err)?;
    if models.is_empty() {
        return Err(crate::FlashlayerError::new_err(
            "expected at least one device",
        ));
    }
    let chosen: Option<Vec<u64>> = sizes
        .map(|v| {
            v.iter()
                .map(|s| Ok(crate::replay::size(s)?.pages(trace.flt.pages()) as u64))
                .collect::<PyResult<Vec<u64>>>()
        })
        .transpose()?;
    let (c, seconds) = timed(py, progress, |cb| {
        curve::trace_curve(&trace.flt, sampling, bins, cb)
    })?;
    let chosen = match chosen {
        Some(s) => s,
        None => curve::log_sizes(
            c.pages.round().max(1.0) as u64,
            points.unwrap_or(curve::DEFAULT_POINTS),
        )
        .map_err(err)?,
    };
    let exact = sampling.is_none();
    let counts = |f: &dyn Fn(u64) -> f64| -> Vec<f64> { chosen.iter().map(|&s| f(s)).collect() };
    let d = PyDict::new(py);
    d.set_item("sizes", &chosen)?;
    let misses = counts(&|s| c.misses_at(s));
    let writebacks = counts(&|s| c.writebacks_at(s));
    if exact {
        let whole = |v: &[f64]| v.iter().map(|&x| x as u64).collect::<Vec<u64>>();
        d.set_item("misses", whole(&misses))?;
        d.set_item("writebacks", whole(&writebacks))?;
    } else {
        d.set_item("misses", &misses)?;
        d.set_item("writebacks", &writebacks)?;
    }
    let requests = c.requests.max(1) as f64;
    let ratio: Vec<f64> = if c.requests == 0 {
        vec![0.0; misses.len()]
    } else {
        misses.iter().map(|m| m / requests).collect()
    };
    d.set_item("miss_ratio", ratio)?;
    let vt = PyDict::new(py);
    for (spec, m) in specs.iter().zip(&models) {
        vt.set_item(spec, counts(&|s| c.virtual_time_at(s, m)))?;
    }
    d.set_item("virtual_time", vt)?;
    let units: std::collections::BTreeSet<&str> = models.iter().map(|m| m.unit.as_str()).collect();
    d.set_item(
        "cost_unit",
        if units.len() == 1 {
            units.into_iter().next().unwrap_or("units")
        } else {
            "mixed"
        },
    )?;
    crate::put_fields(&d, &flashlayer::fields!(c, [requests, pages, sampled]))?;
    d.set_item("exact", exact)?;
    d.set_item("seconds", seconds)?;
    Ok(d)
}

/// About `points` sizes (at least 2) log-spaced from 1 page to `pages`:
/// the sizes a curve is drawn at by default.
#[pyfunction]
pub fn log_sizes(pages: u64, points: usize) -> PyResult<Vec<u64>> {
    curve::log_sizes(pages, points).map_err(err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::add_functions!(m, [lru_curve, log_sizes]);
    m.add("CURVE_POINTS", curve::DEFAULT_POINTS)?;
    Ok(())
}
