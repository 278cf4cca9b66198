//! The DRAM / SSD / disk hierarchy for Python: trace replays through HyPro,
//! TAC, FaCE or lazy cleaning (`run_tier`).

use crate::{err, replay_args, timed, Trace};
use flashlayer::device::DeviceModel;
use flashlayer::sim::{self, TierRunOptions};
use flashlayer::tier::SchemeSpec;
use pyo3::prelude::*;
use pyo3::types::PyDict;

const SSD: &str = "hypro-ssd";
const HDD: &str = "hypro-hdd";

/// Every hierarchy scheme with its parameters and their defaults.
#[pyfunction]
pub fn tier_schemes() -> Vec<(&'static str, &'static str)> {
    flashlayer::tier::SCHEMES.to_vec()
}

/// The canonical spec of a hierarchy scheme (every parameter written out),
/// or an error naming what is wrong.
#[pyfunction]
pub fn tier_scheme(spec: &str) -> PyResult<String> {
    Ok(SchemeSpec::parse(spec).map_err(err)?.to_string())
}

/// Replays `trace` through DRAM (`policy`, `dram_pages` pages) over an SSD
/// cache of `ssd_pages` pages managed by `scheme` over a disk. Devices
/// default to HyPro's Table 4 (`hypro-ssd`, `hypro-hdd`). Returns the row
/// of `flashlayer sim --tier --json`.
#[pyfunction]
#[pyo3(signature = (trace, scheme, policy, dram_pages, ssd_pages, ssd=None, hdd=None, series_every=0, progress=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "mirrors the CLI's flags one to one"
)]
pub fn run_tier<'py>(
    py: Python<'py>,
    trace: &Trace,
    scheme: &str,
    policy: &str,
    dram_pages: i64,
    ssd_pages: i64,
    ssd: Option<&str>,
    hdd: Option<&str>,
    series_every: u64,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (dram, dram_pages, _) = replay_args(policy, dram_pages, None)?;
    let spec = SchemeSpec::parse(scheme).map_err(err)?;
    if ssd_pages < 1 {
        return Err(crate::FlashlayerError::new_err(format!(
            "the SSD must hold at least 1 page, got {ssd_pages}"
        )));
    }
    let ssd = DeviceModel::parse(ssd.unwrap_or(SSD)).map_err(err)?;
    let hdd = DeviceModel::parse(hdd.unwrap_or(HDD)).map_err(err)?;
    if ssd.unit != hdd.unit {
        return Err(crate::FlashlayerError::new_err(format!(
            "the SSD '{}' prices in {} and the disk '{}' in {}: both must use one unit",
            ssd.name,
            ssd.unit.as_str(),
            hdd.name,
            hdd.unit.as_str()
        )));
    }
    let opts = TierRunOptions {
        dram_pages,
        ssd_pages: ssd_pages as usize,
        ssd,
        hdd,
        series_every,
    };
    let (r, seconds) = timed(py, progress, |cb| {
        sim::run_tier(&trace.flt, &dram, &spec, &opts, cb)
    })?;
    let (s, io) = (&r.stats, &r.io);
    let d = PyDict::new(py);
    d.set_item("scheme", spec.to_string())?;
    d.set_item("scheme_name", spec.name())?;
    d.set_item("scheme_label", &r.scheme)?;
    d.set_item("policy", dram.to_string())?;
    d.set_item(
        "buffer_pages",
        opts.dram_pages.min(trace.flt.pages().max(1)),
    )?;
    d.set_item("ssd_pages", opts.ssd_pages)?;
    d.set_item("ssd_device", &opts.ssd.name)?;
    d.set_item("hdd_device", &opts.hdd.name)?;
    d.set_item("device", format!("{}+{}", opts.ssd.name, opts.hdd.name))?;
    d.set_item("cost_unit", opts.ssd.unit.as_str())?;
    d.set_item("requests", s.requests)?;
    d.set_item("reads", s.requests - s.writes)?;
    d.set_item("writes", s.writes)?;
    d.set_item("hits", s.dram_hits)?;
    d.set_item("ssd_hits", s.ssd_hits)?;
    d.set_item("hdd_misses", s.hdd_misses)?;
    let misses = s.ssd_hits + s.hdd_misses;
    d.set_item("misses", misses)?;
    let ratio = if s.requests > 0 {
        misses as f64 / s.requests as f64
    } else {
        0.0
    };
    d.set_item("miss_ratio", ratio)?;
    d.set_item("ssd_reads", io.ssd_reads)?;
    d.set_item("ssd_writes", io.ssd_writes)?;
    d.set_item("ssd_seq_writes", io.ssd_seq_writes)?;
    d.set_item("hdd_reads", io.hdd_reads)?;
    d.set_item("hdd_writes", io.hdd_writes)?;
    d.set_item("physical_reads", io.ssd_reads + io.hdd_reads)?;
    d.set_item("physical_writes", io.ssd_writes + io.hdd_writes)?;
    d.set_item("cleanings", io.cleanings)?;
    d.set_item("elevations", s.elevations)?;
    d.set_item("sinks", s.sinks)?;
    d.set_item("ssd_time", r.ssd_time)?;
    d.set_item("hdd_time", r.hdd_time)?;
    d.set_item("io_time", r.io_time())?;
    d.set_item("virtual_time", r.io_time())?;
    d.set_item("ssd_used", r.ssd_pages_used.0)?;
    d.set_item("ssd_dirty", r.ssd_pages_used.1)?;
    d.set_item("dirty_at_end", r.dram_dirty_at_end)?;
    d.set_item("dirty_evictions", s.dirty_evictions)?;
    d.set_item("p_sink", r.probabilities.map(|p| p.0))?;
    d.set_item("p_elevate", r.probabilities.map(|p| p.1))?;
    d.set_item("c_sinkf", r.sink_costs.map(|c| c.0))?;
    d.set_item("c_sinkd", r.sink_costs.map(|c| c.1))?;
    d.set_item("seconds", seconds)?;
    let rps = if seconds > 0.0 {
        s.requests as f64 / seconds
    } else {
        0.0
    };
    d.set_item("requests_per_second", rps)?;
    if !r.series.is_empty() {
        let ser = PyDict::new(py);
        ser.set_item(
            "requests",
            r.series.iter().map(|p| p.requests).collect::<Vec<_>>(),
        )?;
        ser.set_item(
            "io_time",
            r.series.iter().map(|p| p.io_time).collect::<Vec<_>>(),
        )?;
        let state = PyDict::new(py);
        for (j, &(name, _)) in r.series[0].state.iter().enumerate() {
            let values: Vec<f64> = r.series.iter().map(|p| p.state[j].1).collect();
            state.set_item(name, values)?;
        }
        ser.set_item("state", state)?;
        d.set_item("tier_series", ser)?;
    }
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(tier_scheme, m)?)?;
    m.add_function(wrap_pyfunction!(tier_schemes, m)?)?;
    m.add_function(wrap_pyfunction!(run_tier, m)?)?;
    Ok(())
}
