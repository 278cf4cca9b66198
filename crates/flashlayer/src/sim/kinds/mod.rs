//! What a replay runs on: a store spec ([`StoreSpec`], the stores' table
//! [`STORES`] of the one grammar, [`crate::spec`]) and the one replay
//! ([`replay`]) that runs any policy spec over any store spec through the
//! one calling protocol ([`crate::drive::Driver`]).
//!
//! A kind of store is one file of this folder: a type that is the kind's
//! parameters, with its table entry and reading ([`Kind`]), what a run
//! opens and how it is driven ([`Opens`]), and the fields it reports
//! beside the metrics. One line of [`stores!`] adds it to the table, the
//! parser and the replay. Every kind is driven by the one generic run:
//! the simulator for stores without data, a real buffer pool for stores
//! with bytes ([`Via`]). A combination that cannot work is refused once,
//! where the kind opens its store, with one line.

mod claim;
mod cost;
pub mod fields;
mod file;
mod flash;
mod ftl;
mod hybrid;
mod live;
mod tier;

pub use claim::{is_database_file, MARK as DATABASE_MARK};
pub use cost::CostKind;
pub use fields::{Field, FieldType, ROW};
pub use file::FileKind;
pub use flash::{FlashKind, FLASH_PAGE};
pub use ftl::FtlKind;
pub use hybrid::HybridKind;
pub use live::{Live, Stepper};
pub use tier::TierKind;

use super::simulator::{capacity, with_policy, Simulator, CHUNK};
use crate::buffer::BufferPool;
use crate::device::{CostUnit, DeviceModel};
use crate::error::{Error, Result};
use crate::policy::{Policy, PolicySpec, ScheduleCosts, WithPolicy};
use crate::spec::{self, Entry, Given, Param, Size, Table, Ty};
use crate::store::PageStore;
use crate::trace::Flt;
use crate::types::{DenseId, Fields, Metrics, PageId, Value};
use std::fmt;

/// A device key of a store's entry: a device spec ([`crate::device::DEVICES`]),
/// whose `key=value` pieces continue it.
const fn device_key(key: &'static str, default: &'static str, help: &'static str) -> Param {
    let ty = Ty::Spec(&crate::device::DEVICES);
    Param::new(key, ty, default, help)
}

/// The device of `key`, serving one I/O at a time: a store that prices
/// each write on its own cannot honour a concurrency.
fn device(g: &Given, key: &str) -> Result<DeviceModel> {
    batched_device(g, key)?
        .one_at_a_time("this store")
        .map_err(|e| g.error(format!("{key}: {e}")))
}

/// The device of `key`, its concurrency honoured: the store writes batches
/// through [`crate::store::Meter::write_batch`].
fn batched_device(g: &Given, key: &str) -> Result<DeviceModel> {
    DeviceModel::parse(&g.value(key)).map_err(|e| g.error(format!("{key}: {e}")))
}

/// A kind of store as the grammar knows it: its entry of [`STORES`], its
/// parameters read from a parsed spec, and what it reports. Its canonical
/// spec is the grammar's ([`Given::canonical`]), written once for every
/// kind by [`StoreSpec`].
pub trait Kind: Opens + Clone + fmt::Debug + PartialEq + Send + 'static {
    /// Its entry of [`STORES`]: name, description, keys with defaults.
    const ENTRY: Entry;
    /// The fields a row of this kind holds after the common ones
    /// ([`fields::ROW`]), in order: what [`Kind::report`] gives, and the
    /// API's own. A kind declares them once, with `fields::kind_row!`,
    /// whose struct its `report` fills.
    const FIELDS: &'static [Field];

    /// Its parameters from a spec of its entry.
    fn read(g: &Given) -> Result<Self>;

    /// The device a row names and the unit of the run's virtual time.
    fn priced(&self) -> (String, CostUnit);

    /// Runs a replay over this kind: the one generic run ([`Run::on`]); a
    /// kind with something to set up around the run wraps it.
    fn replay(&self, run: &mut Run<'_>) -> Result<(Metrics, Fields)> {
        run.on(self)
    }

    /// What the store did beyond the metrics, as a row shows it; the kind
    /// may also set the metrics its store knows better than the buffer
    /// (the chip's time, the devices' I/O).
    fn report(&self, _run: &Run<'_>, _store: &mut Self::Store, _m: &mut Metrics) -> Result<Fields> {
        Ok(Fields::new())
    }
}

/// What a replay opens, and how the policy drives it.
pub trait Opens {
    /// The page store.
    type Store: PageStore + Send + 'static;
    /// The simulator, or a real buffer pool.
    type Via: Via;
    /// A pool numbers the store's pages by dense id rather than by the
    /// trace's own page numbers.
    const DENSE: bool = false;

    /// Opens the store for `run`; refuses a combination that cannot work.
    fn open(&self, run: &mut Run<'_>) -> Result<Self::Store>;

    /// The read and write costs an offline cost-optimal schedule is planned
    /// for: the one device's, or `None` (costopt-ub is refused).
    fn schedule_costs(&self, _flush_at_end: bool) -> Option<ScheduleCosts> {
        None
    }

    /// Through a pool: what each write does to its page (`page` is `None`
    /// for a read, so this sees every request in order). By default a
    /// write changes the page's first byte.
    fn writes<'a>(&'a self, _trace: &'a Flt) -> Writes<'a> {
        Box::new(|_, page| {
            if let Some(g) = page {
                g[0] = g[0].wrapping_add(1);
            }
            Ok(())
        })
    }
}

/// What each request of a pooled run does to its page.
pub type Writes<'a> = Box<dyn FnMut(usize, Option<&mut [u8]>) -> Result<()> + 'a>;

/// How a replay drives its store: [`Simulated`] or [`Pooled`].
pub trait Via {
    /// A real buffer pool, whose run ends with a flush.
    const POOLED: bool;

    /// Drives `policy` over the store through the run's trace; returns
    /// the metrics and the store.
    fn drive<P: Policy, K: Opens>(d: OpenRun<'_, '_, K>, policy: P) -> Result<(Metrics, K::Store)>;

    /// Opens `kind`'s store for requests fed one at a time ([`Live`]) with
    /// the run's policy at `capacity` pages.
    fn live<K: Kind>(kind: &K, run: &mut Run<'_>, capacity: usize) -> Result<Box<dyn Stepper>>;
}

/// The trace simulator ([`Simulator`]): a store without data, the trace's
/// page numbers, a flush at the end if asked.
#[derive(Debug)]
pub enum Simulated {}

impl Via for Simulated {
    const POOLED: bool = false;

    fn drive<P: Policy, K: Opens>(d: OpenRun<'_, '_, K>, policy: P) -> Result<(Metrics, K::Store)> {
        let OpenRun { run, store, .. } = d;
        let trace = run.trace;
        let mut sim = Simulator::with_numbers(policy, store, trace)?.with_series(run.series_every);
        if run.probe {
            return Ok((sim.metrics(), sim.into_parts().1));
        }
        sim.run_flt(trace, run.progress)?;
        let m = if run.flush_at_end {
            sim.flush_metrics(trace.pages())?
        } else {
            sim.metrics()
        };
        Ok((m, sim.into_parts().1))
    }

    fn live<K: Kind>(kind: &K, run: &mut Run<'_>, capacity: usize) -> Result<Box<dyn Stepper>> {
        live::stepping(kind, run, capacity)
    }
}

/// A real [`BufferPool`]: each `R` is a `fix_read`, each `W` a `fix_write`
/// whose page the kind changes ([`Opens::writes`]); the run ends with a
/// flush.
#[derive(Debug)]
pub enum Pooled {}

impl Via for Pooled {
    const POOLED: bool = true;

    fn drive<P: Policy, K: Opens>(d: OpenRun<'_, '_, K>, policy: P) -> Result<(Metrics, K::Store)> {
        let OpenRun { run, kind, store } = d;
        let trace = run.trace;
        let pool = BufferPool::new(policy, store)?.with_series(run.series_every);
        let page = |d: DenseId| -> PageId {
            if K::DENSE {
                PageId::from(d)
            } else {
                trace.original(d)
            }
        };
        // Every page of the trace, in its dense order, as the simulator
        // knows them.
        pool.know((0..trace.pages() as DenseId).map(page))?;
        if run.probe {
            return Ok((pool.metrics(), pool.close()?));
        }
        let mut change = kind.writes(trace);
        for (i, (d, op)) in trace.requests().enumerate() {
            let page = page(d);
            if op.is_write() {
                let mut g = pool.fix_write(page)?;
                change(i, Some(&mut g[..]))?;
            } else {
                drop(pool.fix_read(page)?);
                change(i, None)?;
            }
            if (i + 1) % CHUNK == 0 {
                (run.progress)(i as u64 + 1)?;
            }
        }
        (run.progress)(trace.len() as u64)?;
        pool.flush()?;
        let m = pool.metrics();
        Ok((m, pool.close()?))
    }

    /// Refused before: [`Live::new`] opens only stores without data.
    fn live<K: Kind>(_: &K, _: &mut Run<'_>, _: usize) -> Result<Box<dyn Stepper>> {
        Err(Error::invalid(format!(
            "a {} store runs through a buffer pool, not one request at a time",
            K::ENTRY.name
        )))
    }
}

/// One replay under way: the trace, the policy, the buffer and the options
/// every store takes.
pub struct Run<'a> {
    /// The trace.
    pub trace: &'a Flt,
    /// The policy (the DRAM level's on a tier).
    pub policy: &'a PolicySpec,
    /// The buffer's pages as asked (the policy gets at most the trace's
    /// pages).
    pub buffer_pages: usize,
    series_every: u64,
    flush_at_end: bool,
    /// Only open the store and build the policy, serving no request
    /// ([`check`]): every refusal of a combination happens there.
    probe: bool,
    progress: &'a mut dyn FnMut(u64) -> Result<()>,
}

impl fmt::Debug for Run<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Run")
            .field("buffer_pages", &self.buffer_pages)
            .finish_non_exhaustive()
    }
}

impl Run<'_> {
    /// Opens `kind`'s store, builds the policy and drives it over the
    /// store ([`Opens::Via`]); returns the metrics and the store.
    pub fn drive<K: Opens>(&mut self, kind: &K) -> Result<(Metrics, K::Store)> {
        let cap = capacity(self.buffer_pages, self.trace)?;
        let store = kind.open(self)?;
        let costs = kind.schedule_costs(self.flush_at_end);
        let (policy, trace) = (self.policy, self.trace);
        with_policy(
            policy,
            cap,
            trace,
            costs,
            OpenRun {
                run: self,
                kind,
                store,
            },
        )
    }

    /// [`Run::drive`], then the kind's report.
    pub fn on<K: Kind>(&mut self, kind: &K) -> Result<(Metrics, Fields)> {
        let (mut m, mut store) = self.drive(kind)?;
        if self.probe {
            return Ok((m, Fields::new()));
        }
        let fields = kind.report(self, &mut store, &mut m)?;
        Ok((m, fields))
    }
}

/// A run with its store open, waiting for its policy.
#[derive(Debug)]
pub struct OpenRun<'r, 'a, K: Opens> {
    run: &'r mut Run<'a>,
    kind: &'r K,
    store: K::Store,
}

impl<K: Opens> WithPolicy for OpenRun<'_, '_, K> {
    type Out = (Metrics, K::Store);
    fn visit<P: Policy>(self, policy: P) -> Result<Self::Out> {
        K::Via::drive(self, policy)
    }
}

/// Declares the kinds of store, one line each: `Variant => Type`, in the
/// order `flashlayer list stores` shows them.
macro_rules! stores {
    ($($variant:ident => $ty:ty),* $(,)?) => {
        /// Every kind of store: the stores' table of the one grammar.
        pub static STORES: Table = Table::of("store", &[$(<$ty as Kind>::ENTRY),*]);

        /// A kind of store with its parameters.
        #[derive(Clone, Debug, PartialEq)]
        pub enum StoreKind {
            $(
                #[doc = concat!("A [`", stringify!($ty), "`] store.")]
                $variant($ty),
            )*
        }

        impl StoreKind {
            fn read(g: &Given) -> Result<Self> {
                $(if g.name() == <$ty as Kind>::ENTRY.name {
                    return Ok(StoreKind::$variant(<$ty as Kind>::read(g)?));
                })*
                unreachable!("store '{}' is listed but not built", g.name())
            }

            fn name(&self) -> &'static str {
                match self { $(StoreKind::$variant(_) => <$ty as Kind>::ENTRY.name,)* }
            }

            fn pooled(&self) -> bool {
                match self { $(StoreKind::$variant(_) => <<$ty as Opens>::Via as Via>::POOLED,)* }
            }

            fn priced(&self) -> (String, CostUnit) {
                match self { $(StoreKind::$variant(k) => k.priced(),)* }
            }

            fn replay(&self, run: &mut Run<'_>) -> Result<(Metrics, Fields)> {
                match self { $(StoreKind::$variant(k) => k.replay(run),)* }
            }

            fn live(&self, run: &mut Run<'_>, capacity: usize) -> Result<Box<dyn Stepper>> {
                match self {
                    $(StoreKind::$variant(k) => <<$ty as Opens>::Via as Via>::live(k, run, capacity),)*
                }
            }
        }

        /// Each kind's name and the fields its rows hold after the common
        /// ones, in the table's order.
        pub static KIND_FIELDS: &[(&str, &[Field])] = &[$((<$ty as Kind>::ENTRY.name, <$ty as Kind>::FIELDS)),*];

    };
}

stores! {
    Cost => CostKind,
    File => FileKind,
    Flash => FlashKind,
    Ftl => FtlKind,
    Hybrid => HybridKind,
    Tier => TierKind,
}

/// A parsed store spec.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreSpec {
    /// What to replay onto.
    pub kind: StoreKind,
    /// The canonical spec, every parameter written out, by the grammar's
    /// one printer ([`Given::canonical`]).
    canonical: String,
}

/// A nested spec's canonical form: a device by its model's name, a method
/// or scheme as its own kind writes it (the only specs a store nests).
fn nested_canonical(table: &'static Table, text: &str) -> Result<String> {
    if std::ptr::eq(table, &crate::device::DEVICES) {
        return Ok(DeviceModel::parse(text)?.name);
    }
    if std::ptr::eq(table, &crate::flash::METHODS) {
        return Ok(crate::flash::Method::parse(text)?.to_string());
    }
    if std::ptr::eq(table, &crate::tier::SCHEMES) {
        return Ok(crate::tier::SchemeSpec::parse(text)?.to_string());
    }
    unreachable!("a store nests no {} spec", table.what)
}

impl StoreSpec {
    /// Parses `name[:key=value,...]` by the one grammar.
    pub fn parse(text: &str) -> Result<Self> {
        let g = spec::parse(&STORES, text)?;
        Ok(StoreSpec {
            kind: StoreKind::read(&g)?,
            canonical: g.canonical(&nested_canonical)?,
        })
    }

    /// Parses a comma-separated list by the one continuation rule
    /// ([`crate::spec::split_list`]).
    pub fn parse_list(list: &str) -> Result<Vec<Self>> {
        spec::split_list(&STORES, list, Self::parse)
    }

    /// The kind's name (`cost`, `file`, `flash`, `ftl`, `hybrid`, `tier`).
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// The spec with its parameters at their defaults left out.
    pub fn short(&self) -> String {
        spec::short(&STORES, &self.canonical)
    }
}

impl fmt::Display for StoreSpec {
    /// The canonical spec, every parameter written out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical)
    }
}

/// Options of a [`replay`] that every store takes.
#[derive(Clone, Debug, Default)]
pub struct ReplayOptions {
    /// Time-series interval in requests (0, the default: none).
    pub series_every: u64,
    /// Write the dirty pages left at the end. `None`, the default: the
    /// store's own (off for `cost`, `hybrid` and `tier`, whose dirty pages
    /// left are counted in `dirty_at_end`; on for `file` and `flash`, a
    /// buffer pool whose run ends with a flush, which cannot be turned off).
    pub flush_at_end: Option<bool>,
    /// Open the store and build the policy, then stop before the first
    /// request: a run refused would be refused here ([`check`]). Default:
    /// off.
    pub probe: bool,
}

/// What a [`replay`] did: the metrics of every store, and the fields of
/// its kind.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// The buffer's size in pages (the DRAM level's on a tier).
    pub buffer_pages: usize,
    /// Hits, misses, physical I/O, each device's I/O, virtual time, series.
    pub metrics: Metrics,
    /// Whether the dirty pages left at the end were written.
    pub flushed_at_end: bool,
    /// The device as a row names it (`flash+magnetic` on a hybrid store).
    pub device: String,
    /// The unit of the virtual time.
    pub cost_unit: CostUnit,
    /// What the store did beyond the metrics, in the kind's order
    /// ([`Kind::report`]).
    pub fields: Fields,
}

impl Replayed {
    /// The store's field named `key`.
    pub fn field(&self, key: &str) -> Option<&Value> {
        crate::types::field(&self.fields, key)
    }

    /// The run's row: the fields of [`ROW`] the engine knows, in order,
    /// then the kind's ([`Kind::FIELDS`]); `trace` as the caller names it,
    /// `seconds` the replay's wall time.
    pub fn row(&self, trace: &str, policy: &PolicySpec, store: &StoreSpec, seconds: f64) -> Fields {
        let m = &self.metrics;
        let rps = if seconds > 0.0 {
            m.requests as f64 / seconds
        } else {
            0.0
        };
        let mut row: Fields = vec![
            ("policy", policy.to_string().into()),
            ("buffer_pages", self.buffer_pages.into()),
            ("device", self.device.as_str().into()),
            ("cost_unit", self.cost_unit.as_str().into()),
        ];
        row.extend(crate::fields!(m, [requests, reads, writes, hits, misses]));
        row.push(("miss_ratio", m.miss_ratio().into()));
        row.extend(crate::fields!(
            m,
            [
                physical_reads,
                physical_writes,
                dirty_evictions,
                dirty_at_end,
                read_ahead,
                read_ahead_used,
                virtual_time
            ]
        ));
        row.extend([
            ("seconds", seconds.into()),
            ("requests_per_second", rps.into()),
            ("trace", trace.into()),
            ("store", store.to_string().into()),
            ("store_name", store.name().into()),
            ("flush_at_end", self.flushed_at_end.into()),
        ]);
        row.extend(self.fields.iter().cloned());
        row
    }
}

/// Whether a [`replay`] of these would start: the store opened and the
/// policy built as the replay would (a file store on a temporary file,
/// after the checks of its own), no request served. A grid of runs is
/// checked this way before any of them runs.
pub fn check(
    trace: &Flt,
    policy: &PolicySpec,
    buffer: Size,
    store: &StoreSpec,
    opts: &ReplayOptions,
) -> Result<()> {
    let opts = ReplayOptions {
        probe: true,
        ..opts.clone()
    };
    replay(trace, policy, buffer, store, &opts, &mut |_| Ok(())).map(|_| ())
}

/// Replays `trace` with the policy `policy` and a buffer of `buffer` over
/// the store `store`: the one entry for every policy on every store. A
/// combination that cannot work is refused here with one line (and in the
/// driver: a policy that learns from measured latencies over a store that
/// measures none). `progress` is called with the requests served after
/// every chunk of about a million; an error from it stops the run.
pub fn replay(
    trace: &Flt,
    policy: &PolicySpec,
    buffer: Size,
    store: &StoreSpec,
    opts: &ReplayOptions,
    progress: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<Replayed> {
    let pooled = store.kind.pooled();
    if pooled && opts.flush_at_end == Some(false) {
        return Err(Error::invalid(format!(
            "a run on a {} store is a buffer pool that ends with a flush; flush_at_end cannot be off",
            store.name()
        )));
    }
    let mut run = Run {
        trace,
        policy,
        buffer_pages: buffer.pages(trace.pages()),
        series_every: opts.series_every,
        flush_at_end: opts.flush_at_end.unwrap_or(pooled),
        probe: opts.probe,
        progress,
    };
    let (metrics, fields) = store.kind.replay(&mut run)?;
    let (device, cost_unit) = store.kind.priced();
    Ok(Replayed {
        buffer_pages: run.buffer_pages,
        metrics,
        flushed_at_end: run.flush_at_end,
        device,
        cost_unit,
        fields,
    })
}
