//! Traces: opening one for replay ([`Trace`], iterable), converting
//! between formats, concatenating, and the formats' table.

use crate::err;
use flashlayer::trace::{Flt, Format, ReadOptions, FORMATS};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

/// Read options from a format spec (`csv:page=id,op=type,...`, the one
/// grammar's `FORMAT_SPECS`) and a page size.
fn read_options(format: Option<&str>, page_size: Option<u64>) -> PyResult<ReadOptions> {
    let parsed = format
        .map(flashlayer::trace::parse_format)
        .transpose()
        .map_err(err)?;
    Ok(ReadOptions {
        format: parsed.map(|p| p.0),
        page_size,
        csv: parsed.and_then(|p| p.1),
    })
}

/// A trace opened for replay (an `flt` file mapped, or another format
/// converted once to a temporary `flt`).
#[pyclass(module = "flashlayer._native", frozen)]
pub(crate) struct Trace {
    pub(crate) flt: Flt,
    pub(crate) source: PathBuf,
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
        let flt = py
            .detach(|| flashlayer::trace::load(&path, opts))
            .map_err(err)?;
        Ok(Trace { flt, source: path })
    }

    /// A trace from the bytes of an `flt` file (validated as `open`
    /// validates a file); `name` is the path it goes by in rows and errors.
    #[staticmethod]
    fn from_flt(py: Python<'_>, data: Vec<u8>, name: PathBuf) -> PyResult<Self> {
        let flt = py.detach(|| Flt::from_bytes(data, &name)).map_err(err)?;
        Ok(Trace { flt, source: name })
    }

    /// A trace of the requests `pages` (little-endian `u64`s) with
    /// `writes` (one byte each, non-zero for a write), built in memory;
    /// `name` is what it goes by in rows and errors. The Python side's
    /// `flashlayer.trace_of` makes these from arrays, pairs or frames.
    #[staticmethod]
    fn from_words(py: Python<'_>, pages: &[u8], writes: &[u8], name: PathBuf) -> PyResult<Self> {
        let requests = crate::packed_requests(pages, writes)?;
        let flt = py
            .detach(|| {
                let mut w =
                    flashlayer::trace::FltWriter::new(std::io::Cursor::new(Vec::new()), &name)?;
                let mut n = 0u64;
                for (page, op) in requests {
                    w.push(page, op)?;
                    n += 1;
                }
                if n == 0 {
                    return Err(flashlayer::trace::no_requests(&name, "in-memory"));
                }
                Flt::from_bytes(w.finish()?.into_inner(), &name)
            })
            .map_err(err)?;
        Ok(Trace { flt, source: name })
    }

    /// A trace of requests in memory: an array of pages with `writes`
    /// (bools, 0/1 or `"R"`/`"W"`), a list of `(page, op)` pairs, or a
    /// pandas or pyarrow frame (`flashlayer.arrays.trace_of`).
    #[staticmethod]
    #[pyo3(signature = (pages, writes=None, name="<arrays>"))]
    fn from_arrays<'py>(
        py: Python<'py>,
        pages: &Bound<'py, PyAny>,
        writes: Option<&Bound<'py, PyAny>>,
        name: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let kw = PyDict::new(py);
        kw.set_item("name", name)?;
        py.import("flashlayer.arrays")?
            .getattr("trace_of")?
            .call((pages, writes), Some(&kw))
    }

    /// The requests to a spatial sample of the pages
    /// (`flashlayer::curve::sample`): pages whose hash falls below `rate`,
    /// or the `size` pages of smallest hash. Returns the sampled trace and
    /// the share of the pages it holds.
    #[pyo3(signature = (rate=None, size=None))]
    fn sample(
        &self,
        py: Python<'_>,
        rate: Option<f64>,
        size: Option<usize>,
    ) -> PyResult<(Trace, f64)> {
        use flashlayer::curve::shards::Sampling;
        let sampling = match (rate, size) {
            (Some(r), None) => Sampling::Rate(r),
            (None, Some(s)) => Sampling::Size(s),
            _ => {
                return Err(crate::FlashlayerError::new_err(
                    "give a sampling rate or a sample size (one of them)",
                ))
            }
        };
        let s = py
            .detach(|| flashlayer::curve::sample::sample(&self.flt, sampling))
            .map_err(err)?;
        Ok((
            Trace {
                flt: s.trace,
                source: self.source.clone(),
            },
            s.rate,
        ))
    }

    /// The requests as packed little-endian `u32` words (bit 31 set for a
    /// write, bits 0..=30 the dense page id), for numpy.
    fn words<'py>(&self, py: Python<'py>) -> Bound<'py, pyo3::types::PyBytes> {
        pyo3::types::PyBytes::new(py, self.flt.request_bytes())
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
        let s = py.detach(|| flashlayer::trace::stats(&self.flt));
        crate::fields_dict(
            py,
            &flashlayer::fields!(
                s,
                [
                    requests,
                    reads,
                    writes,
                    distinct_pages,
                    pages_written,
                    write_share,
                    hot20_share
                ]
            ),
        )
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

/// The object sizes of an oracleGeneral trace (`records`, `min`, `max`,
/// `mean`, in bytes), or `None` for a trace of another format (`format`,
/// or detected as `Trace.open` detects it). A page cache ignores them.
#[pyfunction]
#[pyo3(signature = (path, format=None))]
fn object_sizes<'py>(
    py: Python<'py>,
    path: PathBuf,
    format: Option<&str>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let format = match format {
        Some(f) => flashlayer::trace::parse_format(f).map_err(err)?.0,
        None => match Format::detect(&path) {
            Ok(f) => f,
            Err(_) => return Ok(None),
        },
    };
    if format != Format::Oracle {
        return Ok(None);
    }
    let s = py
        .detach(|| flashlayer::trace::object_sizes(&path))
        .map_err(err)?;
    Ok(Some(crate::fields_dict(
        py,
        &flashlayer::fields!(s, [records, min, max, mean]),
    )?))
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
    py.detach(|| flashlayer::trace::convert(&input, opts, &output, to))
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
        flashlayer::trace::concat(&list, disjoint, &output)
    })
    .map_err(err)
}

/// `[(name, description)]` of every trace format.
#[pyfunction]
fn formats() -> Vec<(&'static str, &'static str)> {
    FORMATS.iter().map(|f| (f.0, f.2)).collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Trace>()?;
    crate::add_functions!(m, [convert, concat, formats, object_sizes]);
    Ok(())
}
