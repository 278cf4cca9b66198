//! `NandChip`, `FlashStore` and the crash test: the `nand` and `flash`
//! layers for Python.
//!
//! A `NandChip` and the `FlashStore`s opened on it share one chip, so a
//! script can arm a power cut on the chip and watch a store's operation
//! fail with `PowerCut`, then recover a new store from the same chip.

use crate::{err, with_progress, workload_spec};
use flashlayer::flash::crash::{self, CrashConfig};
use flashlayer::flash::updates::{self, OpCounts, UpdateParams};
use flashlayer::flash::{FlashStore as Store, FlashStoreBuilder, Method};
use flashlayer::nand::{Chip, ChipBuilder};
use flashlayer::store::PageStore;
use pyo3::create_exception;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

create_exception!(
    _native,
    PowerCut,
    PyOSError,
    "The emulated NAND chip lost power during the operation (NandChip.power_cut_after)."
);

fn flash_err(e: flashlayer::Error) -> PyErr {
    match e {
        flashlayer::Error::PowerCut => PowerCut::new_err(e.to_string()),
        e => err(e),
    }
}

type SharedChip = Arc<Mutex<Chip>>;

/// A chip's shape as Python gives it: what is not given stays at the
/// engine's default ([`ChipBuilder`]'s; the flash experiments' partial
/// programs, [`flashlayer::flash::DATA_PROGRAMS`], where the caller says so).
struct Shape {
    pages_per_block: Option<u32>,
    page_size: Option<usize>,
    spare_size: Option<usize>,
    data_programs: Option<u8>,
}

impl Shape {
    fn builder(&self, blocks: u32) -> ChipBuilder {
        let mut b = ChipBuilder::new(blocks);
        if let Some(n) = self.pages_per_block {
            b = b.pages_per_block(n);
        }
        if let Some(n) = self.page_size {
            b = b.page_size(n);
        }
        if let Some(n) = self.spare_size {
            b = b.spare_size(n);
        }
        if let Some(n) = self.data_programs {
            b = b.data_programs(n);
        }
        b
    }

    /// For the flash experiments: partial programs as IPL needs them unless
    /// given.
    fn for_flash(mut self) -> Self {
        self.data_programs = self
            .data_programs
            .or(Some(flashlayer::flash::DATA_PROGRAMS));
        self
    }
}

fn lock(chip: &SharedChip) -> MutexGuard<'_, Chip> {
    chip.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An emulated NAND flash chip, in memory or in an image file.
#[pyclass(module = "flashlayer._native")]
#[derive(Debug)]
pub struct NandChip {
    chip: SharedChip,
}

#[pymethods]
impl NandChip {
    #[new]
    #[pyo3(signature = (blocks, pages_per_block=None, page_size=None, spare_size=None, path=None, preset=None, spare_programs=None, data_programs=None, seed=None))]
    #[expect(
        clippy::too_many_arguments,
        reason = "one argument per keyword of the Python function"
    )]
    fn new(
        blocks: u32,
        pages_per_block: Option<u32>,
        page_size: Option<usize>,
        spare_size: Option<usize>,
        path: Option<PathBuf>,
        preset: Option<&str>,
        spare_programs: Option<u8>,
        data_programs: Option<u8>,
        seed: Option<u64>,
    ) -> PyResult<Self> {
        let mut b = Shape {
            pages_per_block,
            page_size,
            spare_size,
            data_programs,
        }
        .builder(blocks);
        if let Some(p) = preset {
            b = b.preset(p);
        }
        if let Some(n) = spare_programs {
            b = b.spare_programs(n);
        }
        if let Some(n) = seed {
            b = b.seed(n);
        }
        if let Some(p) = path {
            b = b.path(p);
        }
        Ok(NandChip {
            chip: Arc::new(Mutex::new(b.build().map_err(err)?)),
        })
    }

    /// Stops the chip at its `n`-th operation from now (`n >= 1`).
    fn power_cut_after(&self, n: &Bound<'_, PyAny>) -> PyResult<()> {
        let n = crate::whole("n", n, 1)?;
        lock(&self.chip).power_cut_after(n).map_err(err)
    }

    /// Restores power after a cut.
    fn power_on(&self) {
        lock(&self.chip).power_on();
    }

    /// Whether the chip has power.
    #[getter]
    fn is_on(&self) -> bool {
        lock(&self.chip).is_on()
    }

    /// Counters: reads, spare_reads, programs, spare_programs, erases,
    /// time_us, max_erase_count, power_cuts, and the geometry.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = lock(&self.chip);
        let (s, g) = (c.stats(), c.geometry());
        let d = PyDict::new(py);
        crate::put_fields(&d, &s.fields())?;
        d.set_item("power_cuts", s.power_cuts)?;
        crate::put_fields(
            &d,
            &flashlayer::fields!(g, [blocks, pages_per_block, page_size, spare_size]),
        )?;
        Ok(d)
    }

    /// Erases each block has had.
    fn erase_counts(&self) -> Vec<u32> {
        lock(&self.chip).erase_counts().to_vec()
    }

    /// Writes a file image's changes to the file (a no-op in memory).
    fn sync(&self) -> PyResult<()> {
        lock(&self.chip).sync().map_err(err)
    }

    fn __repr__(&self) -> String {
        let c = lock(&self.chip);
        let g = c.geometry();
        format!(
            "NandChip(blocks={}, pages_per_block={}, page_size={}, spare_size={})",
            g.blocks, g.pages_per_block, g.page_size, g.spare_size
        )
    }
}

fn builder(
    method: &str,
    logical_pages: Option<u32>,
    obsolete_in_memory: bool,
) -> PyResult<FlashStoreBuilder> {
    let mut b = FlashStoreBuilder::new(Method::parse(method).map_err(err)?)
        .obsolete_in_memory(obsolete_in_memory);
    if let Some(n) = logical_pages {
        b = b.logical_pages(n);
    }
    Ok(b)
}

/// Logical pages on a `NandChip` through a page update method.
#[pyclass(module = "flashlayer._native")]
#[derive(Debug)]
pub struct FlashStore {
    store: Store<SharedChip>,
}

#[pymethods]
impl FlashStore {
    /// A new store on an erased chip.
    #[new]
    #[pyo3(signature = (chip, method="pdl:256", logical_pages=None, obsolete_in_memory=false))]
    fn new(
        chip: &NandChip,
        method: &str,
        logical_pages: Option<u32>,
        obsolete_in_memory: bool,
    ) -> PyResult<Self> {
        let b = builder(method, logical_pages, obsolete_in_memory)?;
        Ok(FlashStore {
            store: b.create(chip.chip.clone()).map_err(flash_err)?,
        })
    }

    /// The store a chip holds, rebuilt by one scan of the chip.
    #[staticmethod]
    #[pyo3(signature = (chip, method="pdl:256", logical_pages=None, obsolete_in_memory=false))]
    fn recover(
        py: Python<'_>,
        chip: &NandChip,
        method: &str,
        logical_pages: Option<u32>,
        obsolete_in_memory: bool,
    ) -> PyResult<Self> {
        let b = builder(method, logical_pages, obsolete_in_memory)?;
        let shared = chip.chip.clone();
        let store = py.detach(|| b.recover(shared)).map_err(flash_err)?;
        Ok(FlashStore { store })
    }

    /// The method, as parsed (`pdl:256`).
    #[getter]
    fn method(&self) -> String {
        self.store.method().to_string()
    }

    /// Logical pages (page ids `0..logical_pages`).
    #[getter]
    fn logical_pages(&self) -> u32 {
        self.store.logical_pages()
    }

    /// Bytes per page.
    #[getter]
    fn page_size(&self) -> usize {
        self.store.page_size()
    }

    /// Writes `data` (exactly `page_size` bytes) as page `page_id`;
    /// `changed`, a list of (offset, length), tells which bytes changed
    /// (IPL logs just those).
    #[pyo3(signature = (page_id, data, changed=None))]
    fn write(
        &mut self,
        page_id: &Bound<'_, PyAny>,
        data: &[u8],
        changed: Option<Vec<(u32, u32)>>,
    ) -> PyResult<()> {
        let page_id = crate::whole("page_id", page_id, 0)?;
        match changed {
            Some(c) => self.store.write_changed(page_id, data, &c),
            None => self.store.write(page_id, data),
        }
        .map_err(flash_err)
    }

    /// Page `page_id`'s contents (zeros if never written).
    fn read<'py>(
        &mut self,
        py: Python<'py>,
        page_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let page_id = crate::whole("page_id", page_id, 0)?;
        let mut buf = vec![0u8; self.store.page_size()];
        self.store.read(page_id, &mut buf).map_err(flash_err)?;
        Ok(PyBytes::new(py, &buf))
    }

    /// Makes every write so far durable.
    fn flush(&mut self) -> PyResult<()> {
        self.store.flush().map_err(flash_err)
    }

    /// The method's counters (page_reads, page_writes, flushes, gc_runs,
    /// gc_time_us, differentials, new_base_pages) and the chip's (reads,
    /// programs, erases, time_us, ...).
    fn stats<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let f = self.store.flash_stats();
        let d = PyDict::new(py);
        d.set_item("method", self.store.method().to_string())?;
        crate::put_fields(&d, &f.fields())?;
        crate::put_fields(&d, &self.store.chip().stats().fields())?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "FlashStore(method={:?}, logical_pages={})",
            self.store.method().to_string(),
            self.store.logical_pages()
        )
    }
}

/// Runs the crash test (`flash::crash`); `progress(cuts_done)` is called
/// with the GIL about every 1% of the cuts.
#[pyfunction]
#[pyo3(signature = (method, cuts=None, seed=None, blocks=None, pages_per_block=None, page_size=None, spare_size=None, data_programs=None, logical_pages=None, obsolete_in_memory=false, progress=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "one argument per keyword of the Python function"
)]
pub fn crash_test<'py>(
    py: Python<'py>,
    method: &str,
    cuts: Option<u64>,
    seed: Option<u64>,
    blocks: Option<u32>,
    pages_per_block: Option<u32>,
    page_size: Option<usize>,
    spare_size: Option<usize>,
    data_programs: Option<u8>,
    logical_pages: Option<u32>,
    obsolete_in_memory: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    // What is not given stays at CrashConfig's defaults.
    let mut cfg = CrashConfig::new(Method::parse(method).map_err(err)?);
    cfg.cuts = cuts.unwrap_or(cfg.cuts);
    cfg.seed = seed.unwrap_or(cfg.seed);
    cfg.blocks = blocks.unwrap_or(cfg.blocks);
    cfg.pages_per_block = pages_per_block.unwrap_or(cfg.pages_per_block);
    cfg.page_size = page_size.unwrap_or(cfg.page_size);
    cfg.spare_size = spare_size.unwrap_or(cfg.spare_size);
    cfg.data_programs = data_programs.unwrap_or(cfg.data_programs);
    cfg.logical_pages = logical_pages;
    cfg.obsolete_in_memory = obsolete_in_memory;
    let cuts = cfg.cuts;
    let step = (cuts / 100).max(1);
    let r = py
        .detach(|| {
            crash::run(&cfg, |done| {
                if done % step == 0 {
                    if let Some(cb) = &progress {
                        Python::attach(|py| {
                            // A failing callback must not stop the test.
                            let _ = cb.call1(py, (done,));
                        });
                    }
                }
            })
        })
        .map_err(err)?;
    let d = PyDict::new(py);
    d.set_item("method", cfg.method.to_string())?;
    crate::put_fields(
        &d,
        &flashlayer::fields!(
            r,
            [
                cuts,
                recoveries,
                recovery_cuts,
                flushed_lost,
                never_written,
                ipu_block_losses,
                writes,
                reads,
                flushes,
                pages_checked,
                erases
            ]
        ),
    )?;
    d.set_item("holds", r.holds())?;
    Ok(d)
}

fn counts<'py>(py: Python<'py>, c: &OpCounts) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    crate::put_fields(
        &d,
        &flashlayer::fields!(c, [reads, programs, erases, time_us]),
    )?;
    Ok(d)
}

/// Runs PDL §5.1's update operations on a fresh chip and store
/// (`flash::updates`): loads every logical page, warms up to
/// `warmup_erases_per_block`, then measures `operations`. Returns the chip
/// operations of the reading and writing steps.
#[pyfunction]
#[pyo3(signature = (method, blocks, pages_per_block=None, page_size=None, spare_size=None, preset=None, data_programs=None, logical_pages=None, obsolete_in_memory=false, operations=None, update_share=None, updates_till_write=None, changed_share=None, warmup_erases_per_block=None, max_warmup_operations=None, seed=None, placement=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "one argument per keyword of the Python function"
)]
pub fn flash_updates<'py>(
    py: Python<'py>,
    method: &str,
    blocks: u32,
    pages_per_block: Option<u32>,
    page_size: Option<usize>,
    spare_size: Option<usize>,
    preset: Option<&str>,
    data_programs: Option<u8>,
    logical_pages: Option<u32>,
    obsolete_in_memory: bool,
    operations: Option<u64>,
    update_share: Option<f64>,
    updates_till_write: Option<u32>,
    changed_share: Option<f64>,
    warmup_erases_per_block: Option<f64>,
    max_warmup_operations: Option<u64>,
    seed: Option<u64>,
    placement: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let placement = match placement {
        None => UpdateParams::default().placement,
        Some("following") => updates::RunOffset::Following,
        Some("random") => updates::RunOffset::Random,
        Some(other) => {
            return Err(err(flashlayer::Error::invalid(format!(
                "placement '{other}': expected following or random"
            ))))
        }
    };
    let mut chip = Shape {
        pages_per_block,
        page_size,
        spare_size,
        data_programs,
    }
    .for_flash()
    .builder(blocks);
    if let Some(p) = preset {
        chip = chip.preset(p);
    }
    let chip = chip.build().map_err(err)?;
    let b = builder(method, logical_pages, obsolete_in_memory)?;
    // What is not given stays at UpdateParams's defaults.
    let d = UpdateParams::default();
    let p = UpdateParams {
        operations: operations.unwrap_or(d.operations),
        update_share: update_share.unwrap_or(d.update_share),
        updates_till_write: updates_till_write.unwrap_or(d.updates_till_write),
        changed_share: changed_share.unwrap_or(d.changed_share),
        warmup_erases_per_block: warmup_erases_per_block.unwrap_or(d.warmup_erases_per_block),
        max_warmup_operations: max_warmup_operations.unwrap_or(d.max_warmup_operations),
        placement,
        seed: seed.unwrap_or(d.seed),
    };
    let (r, logical, timing, fs) = py
        .detach(|| -> flashlayer::Result<_> {
            let mut store = b.create(chip)?;
            let r = updates::run(&mut store, &p)?;
            let timing = store.chip().timing();
            Ok((r, store.logical_pages(), timing, store.flash_stats()))
        })
        .map_err(err)?;
    let d = PyDict::new(py);
    d.set_item("method", b.method().to_string())?;
    d.set_item("label", b.method().label())?;
    d.set_item("logical_pages", logical)?;
    d.set_item("operations", r.operations)?;
    d.set_item("updates", r.updates)?;
    d.set_item("read", counts(py, &r.read)?)?;
    d.set_item("write", counts(py, &r.write)?)?;
    d.set_item(
        "write_halves",
        [
            counts(py, &r.write_halves[0])?,
            counts(py, &r.write_halves[1])?,
        ],
    )?;
    crate::put_fields(
        &d,
        &flashlayer::fields!(r, [gc_time_us, warmup_operations, seconds]),
    )?;
    // Whole-run counts (load and warm-up included), beside the measured
    // phase's above.
    crate::put_fields(
        &d,
        &flashlayer::fields!(fs, [folds, gc_runs, differentials, new_base_pages]),
    )?;
    d.set_item("warmup_erases_per_block", r.warmup_erases_per_block)?;
    crate::put_fields(
        &d,
        &flashlayer::fields!(timing, [read_us, program_us, erase_us]),
    )?;
    Ok(d)
}

/// Runs a database workload (`kind` and `params` as for `gen_workload`) on
/// an LRU buffer pool of `frames` over a flash store on a fresh chip, and
/// returns the store's I/O while loading and while running
/// (`experiment::run_on`).
#[pyfunction]
#[pyo3(signature = (kind, params, method, blocks, frames, seed=0, pages_per_block=None, page_size=None, spare_size=None, data_programs=None, logical_pages=None, obsolete_in_memory=false, warmup_erases=0, max_warmup_steps=0, progress=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "one argument per keyword of the Python function"
)]
pub fn workload_on_flash<'py>(
    py: Python<'py>,
    kind: &str,
    params: Bound<'py, PyDict>,
    method: &str,
    blocks: u32,
    frames: usize,
    seed: u64,
    pages_per_block: Option<u32>,
    page_size: Option<usize>,
    spare_size: Option<usize>,
    data_programs: Option<u8>,
    logical_pages: Option<u32>,
    obsolete_in_memory: bool,
    warmup_erases: u64,
    max_warmup_steps: u64,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut drv = workload_spec(kind, Some(&params))?.build().map_err(err)?;
    let warmup = flashlayer::experiment::Warmup {
        erases: warmup_erases,
        max_steps: max_warmup_steps,
    };
    let chip = Shape {
        pages_per_block,
        page_size,
        spare_size,
        data_programs,
    }
    .for_flash()
    .builder(blocks)
    .build()
    .map_err(err)?;
    let b = builder(method, logical_pages, obsolete_in_memory)?;
    let store = b.create(chip).map_err(err)?;
    let r = with_progress(py, progress, |cb| {
        flashlayer::experiment::run_on(drv.as_mut(), Box::new(store), frames, seed, warmup, cb)
    })?;
    let d = PyDict::new(py);
    d.set_item("method", b.method().to_string())?;
    d.set_item("label", b.method().label())?;
    d.set_item("steps", r.steps)?;
    d.set_item("warmup_steps", r.warmup_steps)?;
    d.set_item("warmup_erases", r.warmup_erases)?;
    d.set_item("db_pages", r.db_pages)?;
    d.set_item("load", crate::io_dict(py, &r.load)?)?;
    d.set_item("run", crate::io_dict(py, &r.run)?)?;
    Ok(d)
}

/// Page operations of an in-memory chip per second: programs, reads and
/// erases of every block (`nand::bench`). Returns (operations, seconds).
#[pyfunction]
#[pyo3(signature = (blocks=256, rounds=4))]
pub fn chip_bench(py: Python<'_>, blocks: u32, rounds: u32) -> PyResult<(u64, f64)> {
    py.detach(|| flashlayer::nand::bench(blocks, rounds))
        .map_err(err)
}

/// The canonical spelling of a flash method (`pdl:256`, `ipl:18k`); a
/// `FlashlayerError` for a bad one.
#[pyfunction]
pub fn flash_method(spec: &str) -> PyResult<String> {
    Ok(Method::parse(spec).map_err(err)?.to_string())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::add_functions!(
        m,
        [flash_method, chip_bench, workload_on_flash, flash_updates]
    );
    m.add("PowerCut", m.py().get_type::<PowerCut>())?;
    m.add_class::<NandChip>()?;
    m.add_class::<FlashStore>()?;
    m.add_function(wrap_pyfunction!(crash_test, m)?)?;
    Ok(())
}
