//! The one replay for Python: any policy spec on any store spec
//! (`flashlayer::sim::replay`), returning the row of `flashlayer sim
//! --json`: the fields of every store, and those of its kind.

use crate::{err, metrics_dict, timed, Trace};
use flashlayer::device::DeviceModel;
use flashlayer::policy::PolicySpec;
use flashlayer::sim::{self, ReplayOptions, Replayed, StoreKind, StoreSpec};
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
    };
    let (r, seconds) = timed(py, progress, |cb| {
        sim::replay(&trace.flt, &spec, buffer, &store, &opts, cb)
    })?;
    row(py, &spec, &store, r, seconds)
}

fn row<'py>(
    py: Python<'py>,
    policy: &PolicySpec,
    store: &StoreSpec,
    r: Replayed,
    seconds: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let m = r.metrics;
    let nand;
    let device: &DeviceModel = match &store.kind {
        StoreKind::Cost { device } | StoreKind::File { device, .. } => device,
        StoreKind::Flash { .. } => {
            nand = DeviceModel::preset(flashlayer::nand::DEFAULT_PRESET).expect("a preset");
            &nand
        }
        StoreKind::Hybrid { flash, .. } => flash,
        StoreKind::Tier { ssd_device, .. } => ssd_device,
    };
    let d = metrics_dict(py, &policy.to_string(), r.buffer_pages, device, &m, seconds)?;
    d.set_item("store", store.to_string())?;
    d.set_item("store_name", store.name())?;
    d.set_item("flush_at_end", r.flushed_at_end)?;
    if let Some(b) = r.file_bytes {
        d.set_item("file_bytes", b)?;
    }
    match &store.kind {
        StoreKind::Flash {
            method, changed, ..
        } => {
            let f = r.flash.as_ref().expect("a flash run");
            let out = PyDict::new(py);
            out.set_item("method", method.to_string())?;
            // None: each write changed the bytes of the trace's byte ranges.
            out.set_item("changed", changed)?;
            crate::flash::put_chip_stats(&out, &f.chip)?;
            crate::flash::put_flash_stats(&out, &f.flash)?;
            d.set_item("flash", out)?;
        }
        StoreKind::Hybrid {
            placement,
            flash,
            magnetic,
            capacity,
            defer,
        } => {
            let h = r.hybrid.as_ref().expect("a hybrid run");
            d.set_item("device", format!("{}+{}", flash.name, magnetic.name))?;
            d.set_item("placement", placement)?;
            let dev = |i: usize| m.devices.get(i).map(|d| d.io).unwrap_or_default();
            d.set_item("flash_reads", dev(0).reads)?;
            d.set_item("flash_writes", dev(0).writes)?;
            d.set_item("magnetic_reads", dev(1).reads)?;
            d.set_item("magnetic_writes", dev(1).writes)?;
            d.set_item("migrations", m.migrations)?;
            d.set_item("pages_on_flash", h.pages_on_flash)?;
            d.set_item("flash_capacity", capacity)?;
            d.set_item("defer", defer)?;
            d.set_item("optimum", h.optimum)?;
        }
        StoreKind::Tier {
            scheme,
            ssd_device,
            hdd_device,
            ..
        } => {
            let t = r.tier.as_ref().expect("a tier run");
            let (s, io) = (&t.stats, &t.io);
            d.set_item("scheme", scheme.to_string())?;
            d.set_item("scheme_name", scheme.name())?;
            d.set_item("scheme_label", &t.scheme_label)?;
            d.set_item("ssd_pages", t.ssd_pages)?;
            d.set_item("ssd_device", &ssd_device.name)?;
            d.set_item("hdd_device", &hdd_device.name)?;
            d.set_item("device", format!("{}+{}", ssd_device.name, hdd_device.name))?;
            d.set_item("ssd_hits", s.ssd_hits)?;
            d.set_item("hdd_misses", s.hdd_misses)?;
            d.set_item("ssd_reads", io.ssd_reads)?;
            d.set_item("ssd_writes", io.ssd_writes)?;
            d.set_item("ssd_seq_writes", io.ssd_seq_writes)?;
            d.set_item("hdd_reads", io.hdd_reads)?;
            d.set_item("hdd_writes", io.hdd_writes)?;
            // The devices' I/O: what the tier did, not what DRAM asked.
            d.set_item("physical_reads", io.ssd_reads + io.hdd_reads)?;
            d.set_item("physical_writes", io.ssd_writes + io.hdd_writes)?;
            d.set_item("cleanings", io.cleanings)?;
            d.set_item("elevations", s.elevations)?;
            d.set_item("sinks", s.sinks)?;
            d.set_item("ssd_time", t.ssd_time)?;
            d.set_item("hdd_time", t.hdd_time)?;
            d.set_item("io_time", t.ssd_time + t.hdd_time)?;
            d.set_item("ssd_used", t.ssd_pages_used.0)?;
            d.set_item("ssd_dirty", t.ssd_pages_used.1)?;
            d.set_item("p_sink", t.probabilities.map(|p| p.0))?;
            d.set_item("p_elevate", t.probabilities.map(|p| p.1))?;
            d.set_item("c_sinkf", t.sink_costs.map(|c| c.0))?;
            d.set_item("c_sinkd", t.sink_costs.map(|c| c.1))?;
        }
        StoreKind::Cost { .. } | StoreKind::File { .. } => {}
    }
    Ok(d)
}

/// Pages of a size (pages, or `"P%"` of `distinct` pages), by the
/// engine's rule.
#[pyfunction]
pub fn size_pages(size: &Bound<'_, PyAny>, distinct: usize) -> PyResult<usize> {
    Ok(self::size(size)?.pages(distinct))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(size_pages, m)?)?;
    Ok(())
}
