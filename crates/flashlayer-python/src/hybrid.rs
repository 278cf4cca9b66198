//! The hybrid flash + magnetic layer for Python: trace replays over a
//! hybrid store (`run_hybrid`) and Koltsidas & Viglas' §6 sequences of
//! query sets on a B+-tree (`hybrid_sequence`).

use crate::{err, with_progress, workload_spec};
use flashlayer::device::DeviceModel;
use flashlayer::experiment::{self, SequenceParams};
use flashlayer::policy::PolicySpec;
use flashlayer::store::IoStats;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

const FLASH: &str = "koltsidas08-flash";
const MAGNETIC: &str = "koltsidas08-magnetic";

fn devices(flash: Option<&str>, magnetic: Option<&str>) -> PyResult<(DeviceModel, DeviceModel)> {
    let f = DeviceModel::parse(flash.unwrap_or(FLASH)).map_err(err)?;
    let m = DeviceModel::parse(magnetic.unwrap_or(MAGNETIC)).map_err(err)?;
    f.check_same_unit(&m, ("flash disk", "magnetic disk"))
        .map_err(err)?;
    Ok((f, m))
}

fn capacity(flash_capacity: Option<i64>) -> PyResult<Option<u64>> {
    match flash_capacity {
        None => Ok(None),
        Some(c) if c >= 1 => Ok(Some(c as u64)),
        Some(c) => Err(crate::FlashlayerError::new_err(format!(
            "flash capacity must be at least 1 page (leave it unset for no limit), got {c}"
        ))),
    }
}

fn io<'py>(py: Python<'py>, s: &IoStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("reads", s.reads)?;
    d.set_item("writes", s.writes)?;
    d.set_item("seq_writes", s.seq_writes)?;
    d.set_item("migrations", s.migrations)?;
    d.set_item("virtual_time", s.virtual_time)?;
    Ok(d)
}

/// Replays `trace` with `policy` and a buffer of `buffer_pages` pages over
/// a hybrid store of a flash and a magnetic disk (defaults: Koltsidas
/// Table 1) placing pages by `placement`. The result is `run`'s, with the
/// device named `FLASH+MAGNETIC` and the fields `placement`, `flash_reads`,
/// `flash_writes`, `magnetic_reads`, `magnetic_writes`, `migrations`,
/// `pages_on_flash`, `flash_capacity`, `defer` and, for `optimal`,
/// `optimum` (the dynamic program's cost).
#[pyfunction]
#[pyo3(signature = (sets, sequence, placement="hybrid", records=1_000_000, buffer_pages=5120, page_size=4096, policy="lru", flash=None, magnetic=None, flash_capacity=None, seed=0, progress=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "one keyword per parameter of the experiment"
)]
pub fn hybrid_sequence<'py>(
    py: Python<'py>,
    sets: Vec<Bound<'py, PyDict>>,
    sequence: Vec<usize>,
    placement: &str,
    records: u64,
    buffer_pages: usize,
    page_size: usize,
    policy: &str,
    flash: Option<&str>,
    magnetic: Option<&str>,
    flash_capacity: Option<i64>,
    seed: u64,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (flash, magnetic) = devices(flash, magnetic)?;
    let mut parsed = Vec::with_capacity(sets.len());
    for s in sets {
        match workload_spec("btree", Some(&s))? {
            flashlayer::workload::WorkloadSpec::BTree(p) => parsed.push(p),
            _ => unreachable!("a btree spec"),
        }
    }
    let params = SequenceParams {
        records,
        page_size,
        buffer_pages,
        sets: parsed,
        sequence,
        placement: placement.to_ascii_lowercase(),
        policy: PolicySpec::parse(policy).map_err(err)?,
        flash,
        magnetic,
        flash_capacity: capacity(flash_capacity)?,
        seed,
    };
    let r = with_progress(py, progress, |cb| experiment::hybrid_sequence(&params, cb))?;
    let d = PyDict::new(py);
    d.set_item("tree_pages", r.tree_pages)?;
    d.set_item("load_time", r.load_time)?;
    d.set_item("optimum", r.optimum)?;
    let runs = PyList::empty(py);
    for run in &r.runs {
        let x = PyDict::new(py);
        x.set_item("set", run.set)?;
        x.set_item("virtual_time", run.virtual_time)?;
        x.set_item("hits", run.hits)?;
        x.set_item("misses", run.misses)?;
        x.set_item("flash", io(py, &run.flash)?)?;
        x.set_item("magnetic", io(py, &run.magnetic)?)?;
        x.set_item("migrations", run.migrations)?;
        x.set_item("pages_on_flash", run.pages_on_flash)?;
        let st = PyDict::new(py);
        for (k, v) in &run.state {
            st.set_item(*k, *v)?;
        }
        x.set_item("state", st)?;
        runs.append(x)?;
    }
    d.set_item("runs", runs)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hybrid_sequence, m)?)?;
    Ok(())
}
