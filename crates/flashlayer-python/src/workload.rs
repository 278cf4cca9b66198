//! Workload generators: a Zipf trace, and the database workloads
//! (`workload::Workload`) recorded on a buffer pool, with their parameters
//! from a Python dict.

use crate::{err, with_progress, FlashlayerError};
use flashlayer::workload::{
    BTreeSets, BTreeSetsParams, GenOptions, PdlUpdates, PdlUpdatesParams, Tatp, TatpParams, TpcB,
    TpcBParams, TpcC, TpcCParams, TpcH, TpcHParams, Workload, ZipfParams,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

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
        let to = flashlayer::trace::output_format(&output, None)?;
        let gen = flashlayer::workload::zipf(&params)?;
        flashlayer::trace::write_all(&output, to, false, |emit| {
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

pub(crate) fn driver(kind: &str, p: &mut Params<'_>) -> PyResult<Box<dyn Workload + Send>> {
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
        flashlayer::workload::generate(drv.as_mut(), &opts, &output, cb)
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gen_zipf, m)?)?;
    m.add_function(wrap_pyfunction!(gen_workload, m)?)?;
    Ok(())
}
