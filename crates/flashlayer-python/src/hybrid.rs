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
    crate::put_fields(
        &d,
        &flashlayer::fields!(s, [reads, writes, seq_writes, migrations, virtual_time]),
    )?;
    Ok(d)
}

/// Koltsidas & Viglas' §6 sequence: `sequence` runs the query sets `sets`
/// (B+-tree workload parameters) one after another on a tree over a
/// hybrid store placing pages by `placement`. A parameter left `None`
/// takes the engine's default (`SequenceParams::default`: §6's setting).
#[pyfunction]
#[pyo3(signature = (sets, sequence, placement=None, records=None, buffer_pages=None, page_size=None, policy=None, flash=None, magnetic=None, flash_capacity=None, seed=None, progress=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "one keyword per parameter of the experiment"
)]
pub fn hybrid_sequence<'py>(
    py: Python<'py>,
    sets: Vec<Bound<'py, PyDict>>,
    sequence: Vec<usize>,
    placement: Option<&str>,
    records: Option<u64>,
    buffer_pages: Option<usize>,
    page_size: Option<usize>,
    policy: Option<&str>,
    flash: Option<&str>,
    magnetic: Option<&str>,
    flash_capacity: Option<i64>,
    seed: Option<u64>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = SequenceParams::default();
    let device = |given: Option<&str>, default: DeviceModel| match given {
        Some(spec) => DeviceModel::parse(spec)
            .and_then(|m| m.one_at_a_time("a hybrid sequence"))
            .map_err(err),
        None => Ok(default),
    };
    let (flash, magnetic) = (device(flash, d.flash)?, device(magnetic, d.magnetic)?);
    flash
        .check_same_unit(&magnetic, ("flash disk", "magnetic disk"))
        .map_err(err)?;
    let mut parsed = Vec::with_capacity(sets.len());
    for s in sets {
        match workload_spec("btree", Some(&s))? {
            flashlayer::workload::WorkloadSpec::BTree(p) => parsed.push(p),
            _ => unreachable!("a btree spec"),
        }
    }
    let params = SequenceParams {
        records: records.unwrap_or(d.records),
        page_size: page_size.unwrap_or(d.page_size),
        buffer_pages: buffer_pages.unwrap_or(d.buffer_pages),
        sets: parsed,
        sequence,
        placement: placement.map_or(d.placement, str::to_ascii_lowercase),
        policy: match policy {
            Some(p) => PolicySpec::parse(p).map_err(err)?,
            None => d.policy,
        },
        flash,
        magnetic,
        flash_capacity: capacity(flash_capacity)?,
        seed: seed.unwrap_or(d.seed),
    };
    let r = with_progress(py, progress, |cb| experiment::hybrid_sequence(&params, cb))?;
    let d = PyDict::new(py);
    crate::put_fields(
        &d,
        &flashlayer::fields!(r, [tree_pages, load_time, optimum]),
    )?;
    let runs = PyList::empty(py);
    for run in &r.runs {
        let x = PyDict::new(py);
        crate::put_fields(
            &x,
            &flashlayer::fields!(run, [set, virtual_time, hits, misses]),
        )?;
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
