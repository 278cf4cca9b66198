//! PyO3 bindings of the flashlayer engine: `flashlayer._native`.
//!
//! Thin by design (`DESIGN.md` §1 rule 5): every function converts arguments,
//! releases the GIL for the engine call, and converts results to plain
//! Python values. Engine errors become `flashlayer.FlashlayerError`, which the
//! CLI prints as one line with exit code 2.

use flashlayer::device::{DeviceModel, PRESETS};
use flashlayer::policy::{PolicySpec, POLICIES};
use flashlayer::trace::{self, Flt, Format, ReadOptions, FORMATS};
use flashlayer::types::Metrics;
use flashlayer::workload::{
    self, BTreeSets, BTreeSetsParams, Driver, GenOptions, PdlUpdates, PdlUpdatesParams, Tatp,
    TatpParams, TpcB, TpcBParams, TpcC, TpcCParams, TpcH, TpcHParams, ZipfParams,
};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use std::time::Instant;

mod bound;
mod curve;
mod flash;
mod hybrid;
mod replay;

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

pub(crate) fn err(e: flashlayer::Error) -> PyErr {
    FlashlayerError::new_err(e.to_string())
}

fn read_options(format: Option<&str>, page_size: Option<u64>) -> PyResult<ReadOptions> {
    Ok(ReadOptions {
        format: format.map(Format::parse).transpose().map_err(err)?,
        page_size,
    })
}

/// A trace opened for replay (an `flt` file mapped, or another format
/// converted once to a temporary `flt`).
#[pyclass(module = "flashlayer._native", frozen)]
pub(crate) struct Trace {
    pub(crate) flt: Flt,
    source: PathBuf,
}

#[pymethods]
impl Trace {
    /// Opens `path`; `format` is detected when omitted; `page_size` applies to
    /// block traces only (default 4096).
    #[staticmethod]
    #[pyo3(signature = (path, format=None, page_size=None))]
    fn open(
        py: Python<'_>,
        path: PathBuf,
        format: Option<&str>,
        page_size: Option<u64>,
    ) -> PyResult<Self> {
        let opts = read_options(format, page_size)?;
        let flt = py.detach(|| trace::load(&path, opts)).map_err(err)?;
        Ok(Trace { flt, source: path })
    }

    /// The path the trace was opened from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.source.clone()
    }

    /// Number of distinct pages.
    #[getter]
    fn pages(&self) -> usize {
        self.flt.pages()
    }

    fn __len__(&self) -> usize {
        self.flt.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Trace({:?}, requests={}, pages={})",
            self.source.display().to_string(),
            self.flt.len(),
            self.flt.pages()
        )
    }

    /// Summary statistics: requests, reads, writes, distinct_pages,
    /// pages_written, write_share, hot20_share.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = py.detach(|| trace::stats(&self.flt));
        let d = PyDict::new(py);
        d.set_item("requests", s.requests)?;
        d.set_item("reads", s.reads)?;
        d.set_item("writes", s.writes)?;
        d.set_item("distinct_pages", s.distinct_pages)?;
        d.set_item("pages_written", s.pages_written)?;
        d.set_item("write_share", s.write_share)?;
        d.set_item("hot20_share", s.hot20_share)?;
        Ok(d)
    }

    fn __iter__(slf: Py<Self>) -> TraceIter {
        TraceIter { trace: slf, pos: 0 }
    }
}

/// Iterates `(page_id, "R" | "W")` with original page ids.
#[pyclass(module = "flashlayer._native")]
struct TraceIter {
    trace: Py<Trace>,
    pos: usize,
}

#[pymethods]
impl TraceIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    fn __next__(&mut self, py: Python<'_>) -> Option<(u64, &'static str)> {
        let t = self.trace.bind(py).get();
        let b = t.flt.request_bytes();
        let o = 4 * self.pos;
        if o >= b.len() {
            return None;
        }
        self.pos += 1;
        let w = u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
        let (d, op) = flashlayer::types::unpack(w);
        Some((t.flt.original(d), if op.is_write() { "W" } else { "R" }))
    }
}

pub(crate) fn metrics_dict<'py>(
    py: Python<'py>,
    policy: &str,
    buffer: usize,
    device: &DeviceModel,
    m: &Metrics,
    seconds: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("policy", policy)?;
    d.set_item("buffer_pages", buffer)?;
    d.set_item("device", &device.name)?;
    d.set_item("cost_unit", device.unit.as_str())?;
    d.set_item("requests", m.requests)?;
    d.set_item("reads", m.reads)?;
    d.set_item("writes", m.writes)?;
    d.set_item("hits", m.hits)?;
    d.set_item("misses", m.misses)?;
    d.set_item("miss_ratio", m.miss_ratio())?;
    d.set_item("physical_reads", m.physical_reads)?;
    d.set_item("physical_writes", m.physical_writes)?;
    d.set_item("dirty_evictions", m.dirty_evictions)?;
    d.set_item("dirty_at_end", m.dirty_at_end)?;
    d.set_item("virtual_time", m.virtual_time)?;
    d.set_item("seconds", seconds)?;
    let rps = if seconds > 0.0 {
        m.requests as f64 / seconds
    } else {
        0.0
    };
    d.set_item("requests_per_second", rps)?;
    if !m.series.is_empty() {
        let s = PyDict::new(py);
        s.set_item(
            "requests",
            m.series.iter().map(|p| p.requests).collect::<Vec<_>>(),
        )?;
        s.set_item("hits", m.series.iter().map(|p| p.hits).collect::<Vec<_>>())?;
        s.set_item(
            "physical_reads",
            m.series
                .iter()
                .map(|p| p.physical_reads)
                .collect::<Vec<_>>(),
        )?;
        s.set_item(
            "physical_writes",
            m.series
                .iter()
                .map(|p| p.physical_writes)
                .collect::<Vec<_>>(),
        )?;
        s.set_item(
            "virtual_time",
            m.series.iter().map(|p| p.virtual_time).collect::<Vec<_>>(),
        )?;
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
    Ok(d)
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

/// What every replay takes: the policy spec, the buffer size (≥ 1 page)
/// and the device (default `ratio:1:1`).
pub(crate) fn replay_args(
    policy: &str,
    buffer_pages: i64,
    device: Option<&str>,
) -> PyResult<(PolicySpec, usize, DeviceModel)> {
    let spec = PolicySpec::parse(policy).map_err(err)?;
    if buffer_pages < 1 {
        return Err(FlashlayerError::new_err(format!(
            "buffer size must be at least 1 page, got {buffer_pages}"
        )));
    }
    let device = match device {
        Some(s) => DeviceModel::parse(s).map_err(err)?,
        None => DeviceModel::unit(),
    };
    Ok((
        spec,
        usize::try_from(buffer_pages).unwrap_or(usize::MAX),
        device,
    ))
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
    let result = py.detach(|| {
        let mut cb = |n: u64| {
            call_back(&mut failure, |py| match &progress {
                Some(p) => p.call1(py, (n,)).map(drop),
                None => Ok(()),
            })
        };
        replay(&mut cb)
    });
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
    let r = py.detach(|| {
        let mut cb = |done: u64, total: u64| {
            call_back(&mut failure, |py| match &progress {
                Some(f) => f.call1(py, (done, total)).map(drop),
                None => Ok(()),
            })
        };
        work(&mut cb)
    });
    finish(r, failure)
}

/// Converts a trace; returns the number of requests written.
#[pyfunction]
#[pyo3(signature = (input, output, from_format=None, to_format=None, page_size=None))]
fn convert(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    from_format: Option<&str>,
    to_format: Option<&str>,
    page_size: Option<u64>,
) -> PyResult<u64> {
    let opts = read_options(from_format, page_size)?;
    let to = to_format.map(Format::parse).transpose().map_err(err)?;
    py.detach(|| trace::convert(&input, opts, &output, to))
        .map_err(err)
}

/// Joins traces into `output` (CASA's CONCAT); see the engine's `concat`.
#[pyfunction]
#[pyo3(signature = (inputs, output, disjoint=false, format=None, page_size=None))]
fn concat(
    py: Python<'_>,
    inputs: Vec<PathBuf>,
    output: PathBuf,
    disjoint: bool,
    format: Option<&str>,
    page_size: Option<u64>,
) -> PyResult<u64> {
    let opts = read_options(format, page_size)?;
    py.detach(|| {
        let list: Vec<(&std::path::Path, ReadOptions)> =
            inputs.iter().map(|p| (p.as_path(), opts)).collect();
        trace::concat(&list, disjoint, &output)
    })
    .map_err(err)
}

/// Writes a Zipf trace to `output` (`.flt` or `.csv[.gz]`); returns requests.
#[pyfunction]
#[pyo3(signature = (output, requests, pages, alpha, write_ratio, seed))]
fn gen_zipf(
    py: Python<'_>,
    output: PathBuf,
    requests: u64,
    pages: u64,
    alpha: f64,
    write_ratio: f64,
    seed: u64,
) -> PyResult<u64> {
    let params = ZipfParams {
        requests,
        pages,
        alpha,
        write_ratio,
        seed,
    };
    py.detach(|| {
        let to = trace::output_format(&output, None)?;
        let gen = workload::zipf(&params)?;
        trace::write_all(&output, to, false, |emit| {
            for (p, op) in gen {
                emit(p, op, &[])?;
            }
            Ok(())
        })
    })
    .map_err(err)
}

/// Pulls typed values out of the parameter dict, rejecting unknown keys.
pub(crate) struct Params<'py> {
    d: Bound<'py, PyDict>,
    used: Vec<String>,
}

impl<'py> Params<'py> {
    pub(crate) fn new(d: Bound<'py, PyDict>) -> Self {
        Params {
            d,
            used: Vec::new(),
        }
    }

    fn get<T: for<'a> pyo3::FromPyObject<'a, 'py>>(
        &mut self,
        name: &str,
        default: T,
    ) -> PyResult<T> {
        self.used.push(name.to_string());
        match self.d.get_item(name)? {
            Some(v) if !v.is_none() => v.extract::<T>().map_err(|_| {
                FlashlayerError::new_err(format!("parameter '{name}' has the wrong type"))
            }),
            _ => Ok(default),
        }
    }

    pub(crate) fn finish(self, workload: &str) -> PyResult<()> {
        for k in self.d.keys() {
            let k: String = k.extract()?;
            if !self.used.contains(&k) {
                return Err(FlashlayerError::new_err(format!(
                    "unknown parameter '{k}' for {workload}; known: {}",
                    self.used.join(", ")
                )));
            }
        }
        Ok(())
    }
}

/// The `btree` query-set parameters from `p` (defaults as
/// [`BTreeSetsParams::default`]).
pub(crate) fn btree_params(p: &mut Params<'_>) -> PyResult<BTreeSetsParams> {
    let d = BTreeSetsParams::default();
    Ok(BTreeSetsParams {
        records: p.get("records", d.records)?,
        queries: p.get("queries", d.queries)?,
        repeat: p.get("repeat", d.repeat)?,
        read_only: p.get("read_only", d.read_only)?,
        update_only: p.get("update_only", d.update_only)?,
        interesting: p.get("interesting", d.interesting)?,
        interesting_read_prob: p.get("interesting_read_prob", d.interesting_read_prob)?,
        read_prob: p.get("read_prob", d.read_prob)?,
        range_share: p.get("range_share", d.range_share)?,
        range_len: p.get("range_len", d.range_len)?,
        insert_share: p.get("insert_share", d.insert_share)?,
        hot_keys: p.get("hot_keys", d.hot_keys)?,
        hot_queries: p.get("hot_queries", d.hot_queries)?,
        page_size: p.get("page_size", d.page_size)?,
    })
}

pub(crate) fn driver(kind: &str, p: &mut Params<'_>) -> PyResult<Box<dyn Driver + Send>> {
    let e = err;
    Ok(match kind {
        "tpcc" => {
            let d = TpcCParams::default();
            Box::new(
                TpcC::new(TpcCParams {
                    warehouses: p.get("warehouses", d.warehouses)?,
                    transactions: p.get("transactions", d.transactions)?,
                    mix: p.get("mix", d.mix)?,
                    page_size: p.get("page_size", d.page_size)?,
                })
                .map_err(e)?,
            )
        }
        "tpcb" => {
            let d = TpcBParams::default();
            Box::new(
                TpcB::new(TpcBParams {
                    branches: p.get("branches", d.branches)?,
                    transactions: p.get("transactions", d.transactions)?,
                    page_size: p.get("page_size", d.page_size)?,
                })
                .map_err(e)?,
            )
        }
        "tatp" => {
            let d = TatpParams::default();
            Box::new(
                Tatp::new(TatpParams {
                    scale: p.get("scale", d.scale)?,
                    transactions: p.get("transactions", d.transactions)?,
                    page_size: p.get("page_size", d.page_size)?,
                })
                .map_err(e)?,
            )
        }
        "tpch" => {
            let d = TpcHParams::default();
            Box::new(
                TpcH::new(TpcHParams {
                    scale_factor: p.get("scale_factor", d.scale_factor)?,
                    queries: p.get("queries", d.queries)?,
                    mix: p.get("mix", d.mix)?,
                    page_size: p.get("page_size", d.page_size)?,
                })
                .map_err(e)?,
            )
        }
        "btree" => Box::new(BTreeSets::new(btree_params(p)?).map_err(e)?),
        "pdl-updates" => {
            let d = PdlUpdatesParams::default();
            Box::new(
                PdlUpdates::new(PdlUpdatesParams {
                    pages: p.get("pages", d.pages)?,
                    operations: p.get("operations", d.operations)?,
                    update_share: p.get("update_share", d.update_share)?,
                    updates_till_write: p.get("updates_till_write", d.updates_till_write)?,
                    changed_share: p.get("changed_share", d.changed_share)?,
                    page_size: p.get("page_size", d.page_size)?,
                })
                .map_err(e)?,
            )
        }
        other => {
            return Err(FlashlayerError::new_err(format!(
                "unknown workload '{other}'; workloads: tpcc, tpcb, tatp, tpch, btree, pdl-updates"
            )))
        }
    })
}

/// Runs a database workload and writes its page reference trace to
/// `output` (`.flt`, `.csv`, `.csv.gz`). `params` holds the workload's
/// parameters by name (unknown names are errors). `progress(done, total)` is
/// called every 1,000 steps. Returns a report dict.
#[pyfunction]
#[pyo3(signature = (kind, output, seed, params, with_bytes=false, frames=16384, progress=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "mirrors the CLI's flags one to one"
)]
fn gen_workload<'py>(
    py: Python<'py>,
    kind: &str,
    output: PathBuf,
    seed: u64,
    params: Bound<'py, PyDict>,
    with_bytes: bool,
    frames: usize,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut p = Params {
        d: params,
        used: Vec::new(),
    };
    let mut drv = driver(kind, &mut p)?;
    p.finish(kind)?;
    let opts = GenOptions {
        seed,
        with_bytes,
        frames,
    };
    let report = with_progress(py, progress, |cb| {
        workload::generate(drv.as_mut(), &opts, &output, cb)
    })?;
    let d = PyDict::new(py);
    d.set_item("workload", kind)?;
    d.set_item("requests", report.requests)?;
    d.set_item("steps", report.steps)?;
    d.set_item("db_pages", report.db_pages)?;
    d.set_item("load_seconds", report.load_seconds)?;
    d.set_item("run_seconds", report.run_seconds)?;
    d.set_item(
        "steps_per_second",
        report.steps as f64 / report.run_seconds.max(1e-9),
    )?;
    let s = PyDict::new(py);
    for (k, v) in &report.summary {
        s.set_item(k, v)?;
    }
    d.set_item("summary", s)?;
    Ok(d)
}

/// Validates a device spec and returns its costs.
#[pyfunction]
fn device<'py>(py: Python<'py>, spec: &str) -> PyResult<Bound<'py, PyDict>> {
    let m = DeviceModel::parse(spec).map_err(err)?;
    let d = PyDict::new(py);
    d.set_item("name", &m.name)?;
    d.set_item("read", m.read)?;
    d.set_item("write", m.write)?;
    d.set_item("seq_read", m.seq_read)?;
    d.set_item("seq_write", m.seq_write)?;
    d.set_item("erase", m.erase)?;
    d.set_item("unit", m.unit.as_str())?;
    Ok(d)
}

/// The canonical form of one spec of `kind` (`policy`, `scheme`, `store`),
/// every parameter written out; an error naming what is wrong.
#[pyfunction]
fn canonical(kind: &str, text: &str) -> PyResult<String> {
    Ok(match kind {
        "policy" => PolicySpec::parse(text).map_err(err)?.to_string(),
        "scheme" => flashlayer::tier::SchemeSpec::parse(text)
            .map_err(err)?
            .to_string(),
        "store" => flashlayer::sim::StoreSpec::parse(text)
            .map_err(err)?
            .to_string(),
        _ => return spec_table(kind).map(|_| String::new()),
    })
}

/// Splits and validates a comma-separated list of specs of `kind` by the
/// one continuation rule (a `key=value` piece continues the spec before
/// it); returns canonical specs.
#[pyfunction]
fn canonical_list(kind: &str, list: &str) -> PyResult<Vec<String>> {
    let table = spec_table(kind)?;
    flashlayer::spec::split_list(table, list, |s| {
        canonical(kind, s).map_err(|e| flashlayer::Error::invalid(e.to_string()))
    })
    .map_err(err)
}

/// A parameter: (key, default, allowed values, help).
type ParamRow = (&'static str, &'static str, String, &'static str);

/// The table of one kind of spec (`policy`, `scheme`, `store`).
fn spec_table(kind: &str) -> PyResult<&'static flashlayer::spec::Table> {
    Ok(match kind {
        "policy" => &POLICIES,
        "scheme" => &flashlayer::tier::SCHEMES,
        "store" => &flashlayer::sim::STORES,
        other => {
            return Err(err(flashlayer::Error::invalid(format!(
                "unknown kind of spec '{other}': expected policy, scheme or store"
            ))))
        }
    })
}

/// `[(name, description, [(key, default, allowed, help)])]` of every spec
/// of one kind (`policy`, `scheme`, `store`): the engine's table.
#[pyfunction]
fn table(kind: &str) -> PyResult<Vec<(&'static str, &'static str, Vec<ParamRow>)>> {
    Ok(spec_table(kind)?
        .entries
        .iter()
        .map(|e| {
            let params = e
                .params
                .iter()
                .map(|q| (q.key, q.default, q.allowed(), q.help))
                .collect();
            (e.name, e.description, params)
        })
        .collect())
}

/// `text` with the keys at their defaults left out, for tables people read.
#[pyfunction]
fn short_spec(kind: &str, text: &str) -> PyResult<String> {
    Ok(flashlayer::spec::short(spec_table(kind)?, text))
}

/// `[(name, description)]` of every trace format.
#[pyfunction]
fn formats() -> Vec<(&'static str, &'static str)> {
    FORMATS.iter().map(|f| (f.0, f.2)).collect()
}

/// Every device preset with its costs and source.
#[pyfunction]
fn presets(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    for p in PRESETS {
        let d = PyDict::new(py);
        d.set_item("name", p.name)?;
        d.set_item("read", p.read)?;
        d.set_item("write", p.write)?;
        d.set_item("seq_read", p.seq_read)?;
        d.set_item("seq_write", p.seq_write)?;
        d.set_item("erase", p.erase)?;
        d.set_item("unit", p.unit.as_str())?;
        d.set_item("source", p.source)?;
        out.append(d)?;
    }
    Ok(out)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FlashlayerError", m.py().get_type::<FlashlayerError>())?;
    m.add_class::<Trace>()?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(concat, m)?)?;
    m.add_function(wrap_pyfunction!(gen_zipf, m)?)?;
    m.add_function(wrap_pyfunction!(gen_workload, m)?)?;
    m.add_function(wrap_pyfunction!(device, m)?)?;
    m.add_function(wrap_pyfunction!(canonical, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_list, m)?)?;
    m.add_function(wrap_pyfunction!(table, m)?)?;
    m.add_function(wrap_pyfunction!(short_spec, m)?)?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    flash::register(m)?;
    bound::register(m)?;
    curve::register(m)?;
    hybrid::register(m)?;
    replay::register(m)?;
    Ok(())
}
