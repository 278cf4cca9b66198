//! Workload generators: a Zipf trace, ACE's synthetic workload, and the database workloads
//! (`workload::Workload`) recorded on a buffer pool, named by workload
//! specs of the one grammar.

use crate::{err, with_progress};
use flashlayer::types::{Op, PageId};
use flashlayer::workload::{AceWorkload, GenOptions, WorkloadSpec, ZipfParams};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::path::PathBuf;

/// A generator's parameters: each one given (`Some`), else the engine's
/// default.
macro_rules! given_or_default {
    ($ty:ident { $($f:ident),* $(,)? }) => {{
        let d = $ty::default();
        $ty { $($f: $f.unwrap_or(d.$f)),* }
    }};
}

/// Writes a Zipf trace to `output` (`.flt` or `.csv[.gz]`); returns requests.
/// A parameter not given takes the engine's default
/// ([`generator_defaults`]).
#[pyfunction]
#[pyo3(signature = (output, requests=None, pages=None, alpha=None, write_ratio=None, seed=None))]
fn gen_zipf(
    py: Python<'_>,
    output: PathBuf,
    requests: Option<u64>,
    pages: Option<u64>,
    alpha: Option<f64>,
    write_ratio: Option<f64>,
    seed: Option<u64>,
) -> PyResult<u64> {
    let params = given_or_default!(ZipfParams {
        requests,
        pages,
        alpha,
        write_ratio,
        seed
    });
    py.detach(|| write_requests(&output, flashlayer::workload::zipf(&params)?))
        .map_err(err)
}

/// Writes generated requests to `output` (`.flt` or `.csv[.gz]`); returns
/// their number.
fn write_requests(
    output: &std::path::Path,
    requests: impl Iterator<Item = (PageId, Op)>,
) -> flashlayer::Result<u64> {
    let to = flashlayer::trace::output_format(output, None)?;
    flashlayer::trace::write_all(output, to, false, |emit| {
        for (p, op) in requests {
            emit(p, op, &[])?;
        }
        Ok(())
    })
}

/// Writes ACE's synthetic workload (`flashlayer::workload::ace`) to
/// `output`; returns requests. A parameter not given takes the engine's
/// default ([`generator_defaults`]).
#[pyfunction]
#[pyo3(signature = (output, operations=None, pages=None, reads=None, skew=None, hot=None))]
fn gen_ace(
    py: Python<'_>,
    output: PathBuf,
    operations: Option<u64>,
    pages: Option<u32>,
    reads: Option<f32>,
    skew: Option<f32>,
    hot: Option<f32>,
) -> PyResult<u64> {
    let params = given_or_default!(AceWorkload {
        operations,
        pages,
        reads,
        skew,
        hot
    });
    py.detach(|| write_requests(&output, flashlayer::workload::ace(&params)?))
        .map_err(err)
}

/// The engine's defaults of a generator by parameter: `"zipf"`
/// (`ZipfParams::default`), `"ace"` (`AceWorkload::default`) or
/// `"workload"`, the generating pool's `frames` (`GenOptions::default`).
#[pyfunction]
fn generator_defaults<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let fields = match name {
        "zipf" => flashlayer::fields!(
            ZipfParams::default(),
            [requests, pages, alpha, write_ratio, seed]
        ),
        "ace" => flashlayer::fields!(
            AceWorkload::default(),
            [operations, pages, reads, skew, hot]
        ),
        "workload" => flashlayer::fields!(GenOptions::default(), [frames]),
        _ => {
            return Err(err(flashlayer::Error::invalid(format!(
                "no generator '{name}': zipf, ace or workload"
            ))))
        }
    };
    crate::put_fields(&out, &fields)?;
    Ok(out)
}

/// The workload spec `kind` (a name, or a spec of the workloads' grammar,
/// `flashlayer list workloads`) with the keys of `params` added (a list
/// value is a mix, written `a/b/c`): one parser for both.
pub(crate) fn workload_spec(
    kind: &str,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<WorkloadSpec> {
    let mut text = kind.trim().to_owned();
    for (k, v) in params.into_iter().flat_map(|d| d.iter()) {
        if v.is_none() {
            continue;
        }
        let k: String = k.extract()?;
        let v = if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
            v.try_iter()?
                .map(|x| Ok(x?.str()?.to_string()))
                .collect::<PyResult<Vec<String>>>()?
                .join("/")
        } else {
            v.str()?.to_string()
        };
        text.push(if text.contains(':') { ',' } else { ':' });
        text.push_str(&format!("{k}={v}"));
    }
    WorkloadSpec::parse(&text).map_err(err)
}

/// Runs a database workload and writes its page reference trace to
/// `output` (`.flt`, `.csv`, `.csv.gz`). `params` holds the workload's
/// parameters by name (unknown names are errors). `progress(done, total)` is
/// called every 1,000 steps. Returns a report dict.
#[pyfunction]
#[pyo3(signature = (kind, output, seed, params=None, with_bytes=false, frames=None, progress=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "mirrors the CLI's flags one to one"
)]
fn gen_workload<'py>(
    py: Python<'py>,
    kind: &str,
    output: PathBuf,
    seed: u64,
    params: Option<Bound<'py, PyDict>>,
    with_bytes: bool,
    frames: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let spec = workload_spec(kind, params.as_ref())?;
    let mut drv = spec.build().map_err(err)?;
    let opts = GenOptions {
        seed,
        with_bytes,
        frames: frames.unwrap_or_else(|| GenOptions::default().frames),
    };
    let report = with_progress(py, progress, |cb| {
        flashlayer::workload::generate(drv.as_mut(), &opts, &output, cb)
    })?;
    let d = PyDict::new(py);
    d.set_item("workload", spec.name())?;
    d.set_item("spec", spec.to_string())?;
    crate::put_fields(
        &d,
        &flashlayer::fields!(
            report,
            [requests, steps, db_pages, load_seconds, run_seconds]
        ),
    )?;
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

/// A trace fitted to published statistics (`flashlayer::workload::fit`):
/// returns the trace (in memory, named `name`; also written to `output`
/// when given) and a dict of the fitted model, the rounds and every target
/// beside what the trace achieves.
#[pyfunction]
#[pyo3(signature = (pages, requests, seed, write_share=None, skew=None, lru_misses=None, lru_writes=None, output=None, name="<fit>".into(), progress=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "mirrors the CLI's flags one to one"
)]
fn fit_trace<'py>(
    py: Python<'py>,
    pages: u64,
    requests: u64,
    seed: u64,
    write_share: Option<f64>,
    skew: Option<(f64, f64)>,
    lru_misses: Option<Vec<(u64, u64)>>,
    lru_writes: Option<Vec<(u64, u64)>>,
    output: Option<PathBuf>,
    name: PathBuf,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<(crate::trace::Trace, Bound<'py, PyDict>)> {
    let targets = flashlayer::workload::fit::FitTargets {
        pages,
        requests,
        write_share,
        skew,
        lru_misses: lru_misses.unwrap_or_default(),
        lru_writes: lru_writes.unwrap_or_default(),
        seed,
    };
    let fitted = with_progress(py, progress, |cb| {
        flashlayer::workload::fit::fit(&targets, cb)
    })?;
    let flt = py
        .detach(|| {
            let words = || fitted.requests.iter().map(|&(p, op)| (PageId::from(p), op));
            if let Some(out) = &output {
                write_requests(out, words())?;
            }
            let mut w = flashlayer::trace::FltWriter::new(std::io::Cursor::new(Vec::new()), &name)?;
            for (p, op) in words() {
                w.push(p, op)?;
            }
            flashlayer::trace::Flt::from_bytes(w.finish()?.into_inner(), &name)
        })
        .map_err(err)?;
    let d = PyDict::new(py);
    let model = PyDict::new(py);
    model.set_item("rho", fitted.pages.rho)?;
    model.set_item("alpha", fitted.pages.alpha)?;
    model.set_item("q", fitted.pages.q)?;
    model.set_item("knots", fitted.pages.knots.clone())?;
    model.set_item("spirn", fitted.pages.spirn)?;
    model.set_item("beta", fitted.writes.beta)?;
    model.set_item("gamma", fitted.writes.gamma)?;
    model.set_item("c", fitted.writes.c)?;
    d.set_item("model", model)?;
    d.set_item("rounds", fitted.rounds)?;
    d.set_item("tolerance", flashlayer::workload::fit::TOLERANCE)?;
    let rows = PyList::empty(py);
    for a in &fitted.achieved {
        let r = PyDict::new(py);
        r.set_item("target", a.target)?;
        r.set_item("at", a.at)?;
        r.set_item("wanted", a.wanted)?;
        r.set_item("got", a.got)?;
        r.set_item("error", a.error())?;
        rows.append(r)?;
    }
    d.set_item("targets", rows)?;
    d.set_item("reached", fitted.reached())?;
    Ok((crate::trace::Trace { flt, source: name }, d))
}

/// Threads fixing pages of one shared buffer pool
/// (`flashlayer::experiment::pool_load`): `workload` is `hits`, `latency`
/// (a memory store that waits `latency_us` per page read and written) or
/// `file` (a file at `path`, `O_DIRECT` where allowed). Returns the fixes,
/// seconds, fixes per second, misses and whether `O_DIRECT` was used.
#[pyfunction]
#[pyo3(signature = (workload, threads, fixes, frames, pages, alpha, write_ratio, page_size, seed, latency_us, path=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "one call carries a whole run's sizes"
)]
fn pool_load<'py>(
    py: Python<'py>,
    workload: &str,
    threads: usize,
    fixes: u64,
    frames: usize,
    pages: u64,
    alpha: f64,
    write_ratio: f64,
    page_size: usize,
    seed: u64,
    latency_us: f64,
    path: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    use flashlayer::experiment::pool_load::{run, PoolLoad, PoolWorkload};
    let latency = std::time::Duration::from_secs_f64(latency_us.max(0.0) / 1e6);
    let w = match (workload, path) {
        ("hits", _) => PoolWorkload::Hits,
        ("latency", _) => PoolWorkload::Latency {
            read: latency,
            write: latency,
        },
        ("hybrid", _) => PoolWorkload::Hybrid {
            read: latency,
            write: latency,
        },
        ("file", Some(path)) => PoolWorkload::File { path },
        ("file", None) => {
            return Err(err(flashlayer::Error::invalid(
                "the file workload needs a path",
            )))
        }
        (other, _) => {
            return Err(err(flashlayer::Error::invalid(format!(
                "unknown pool workload '{other}'; expected hits, latency, file or hybrid"
            ))))
        }
    };
    let load = PoolLoad {
        threads,
        fixes,
        frames,
        pages,
        alpha,
        write_ratio,
        page_size,
        seed,
    };
    let r = py.detach(|| run(&load, &w)).map_err(err)?;
    let d = PyDict::new(py);
    d.set_item("workload", workload)?;
    d.set_item("threads", threads)?;
    d.set_item("fixes", r.fixes)?;
    d.set_item("seconds", r.seconds)?;
    d.set_item("fixes_per_second", r.fixes_per_second())?;
    d.set_item("misses", r.misses)?;
    d.set_item("direct", r.direct)?;
    Ok(d)
}

/// Runs a database workload (`kind` and `params` as for `gen_workload`)
/// on `threads` terminals over a buffer pool of `frames` under `policy` (a
/// policy spec) and a file at `path` (created; `O_DIRECT` where the file
/// system allows it), then checks the database
/// (`flashlayer::experiment::run_threads`). Returns a report dict: steps,
/// seconds, steps per second, the store's I/O in each phase, every
/// object's check and the workload's consistency check.
#[pyfunction]
#[pyo3(signature = (kind, policy, frames, threads, path, seed=0, params=None, progress=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "one call carries a whole run's sizes"
)]
fn run_terminals<'py>(
    py: Python<'py>,
    kind: &str,
    policy: &str,
    frames: usize,
    threads: usize,
    path: PathBuf,
    seed: u64,
    params: Option<Bound<'py, PyDict>>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    use flashlayer::policy::{boxed_online_policy, PolicySpec};
    let spec = workload_spec(kind, params.as_ref())?;
    let mut drv = spec.build().map_err(err)?;
    let policy_spec = PolicySpec::parse(policy).map_err(err)?;
    let boxed =
        crate::pypolicy::guarded(|| boxed_online_policy(&policy_spec, frames, 0).map_err(err))?;
    let (store, direct) = flashlayer::store::FileStore::builder(&path)
        .page_size(drv.page_size())
        .open_preferring_direct()
        .map_err(err)?;
    let r = with_progress(py, progress, |cb| {
        flashlayer::experiment::run_threads(drv.as_mut(), Box::new(store), boxed, threads, seed, cb)
    })?;
    let d = PyDict::new(py);
    d.set_item("workload", spec.name())?;
    d.set_item("spec", spec.to_string())?;
    d.set_item("policy", policy_spec.to_string())?;
    d.set_item("frames", frames)?;
    crate::put_fields(&d, &flashlayer::fields!(r, [threads, steps, seconds]))?;
    d.set_item("steps_per_second", r.steps_per_second())?;
    d.set_item("flush_seconds", r.flush_seconds)?;
    d.set_item("db_pages", r.db_pages)?;
    d.set_item("direct", direct)?;
    d.set_item("load", crate::io_dict(py, &r.load)?)?;
    d.set_item("run", crate::io_dict(py, &r.run)?)?;
    let s = PyDict::new(py);
    for (k, v) in &r.summary {
        s.set_item(k, v)?;
    }
    d.set_item("summary", s)?;
    let checked = PyList::empty(py);
    for c in &r.checked {
        let o = PyDict::new(py);
        o.set_item("name", &c.name)?;
        crate::put_fields(&o, &flashlayer::fields!(c, [pages, entries, height]))?;
        checked.append(o)?;
    }
    d.set_item("checked", checked)?;
    d.set_item("consistency", r.consistency)?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::add_functions!(
        m,
        [
            pool_load,
            run_terminals,
            gen_zipf,
            gen_ace,
            generator_defaults,
            gen_workload,
            fit_trace
        ]
    );
    Ok(())
}
