//! Trace replays over a hybrid flash + magnetic store (Koltsidas & Viglas
//! 2008): every policy runs unchanged over a
//! [`crate::hybrid::HybridStore`] of two cost-only stores, which places
//! pages by the chosen algorithm and counts each disk's I/O, migrations
//! included.
//!
//! `optimal` takes two passes: the first records each page's physical
//! events with every page left on the magnetic disk, the offline optimum is
//! solved per page ([`crate::hybrid::PlacementSchedule`]), and the second replays
//! the trace following it, so its cost is a real run's.
//!
//! A trace refers to a database that already exists: pages are on the
//! magnetic disk at the start with their accounting started
//! ([`crate::hybrid::HybridStoreBuilder::preloaded`]).

use super::{capacity, with_policy, Simulator, WithPolicy};
use crate::device::DeviceModel;
use crate::error::Result;
use crate::hybrid::{Costs, HybridStore, Placement};
use crate::policy::{Policy, PolicySpec};
use crate::store::CostStore;
use crate::trace::Flt;
use crate::types::{DeviceId, Metrics};

/// Options of a [`run_hybrid`].
#[derive(Clone, Debug)]
pub(crate) struct HybridRunOptions {
    /// Buffer size in pages (≥ 1).
    pub buffer_pages: usize,
    /// The flash disk. Default in the CLI: `koltsidas08-flash`.
    pub flash: DeviceModel,
    /// The magnetic disk. Default in the CLI: `koltsidas08-magnetic`.
    pub magnetic: DeviceModel,
    /// `conservative`, `optimistic`, `hybrid`, `optimal`, `m-only` or
    /// `f-only`.
    pub placement: String,
    /// At most this many pages on flash. Default: no limit.
    pub flash_capacity: Option<u64>,
    /// Deferred migrations in batches of this many pages (0, the default:
    /// move at eviction).
    pub defer: usize,
    /// Time-series interval in requests (0: none).
    pub series_every: u64,
    /// Write the dirty pages left at the end. Default in the CLI: off.
    pub flush_at_end: bool,
}

/// What a [`run_hybrid`] did.
#[derive(Clone, Debug)]
pub(crate) struct HybridRun {
    /// The run's metrics; `devices` is `[flash, magnetic]`, `migrations`
    /// and the virtual time include the moves.
    pub metrics: Metrics,
    /// Pages on flash at the end.
    pub pages_on_flash: u64,
    /// For `optimal`: the dynamic program's cost of the recorded events.
    pub optimum: Option<f64>,
}

/// Replays `trace` with the named policy over a hybrid store. `progress`
/// as in [`super::run`] (for `optimal`, over both passes).
pub(crate) fn run_hybrid(
    trace: &Flt,
    spec: &PolicySpec,
    opts: &HybridRunOptions,
    progress: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<HybridRun> {
    let cap = capacity(opts.buffer_pages, trace)?;
    let mut pass = |placement: Placement, record: bool| {
        let replay = HybridReplay {
            trace,
            opts,
            placement,
            record,
            progress: &mut *progress,
        };
        with_policy(spec, cap, trace, None, replay)
    };
    let placement = Placement::by_name(&opts.placement, || {
        let first = pass(Placement::Fixed(DeviceId::MAGNETIC), true)?;
        Ok(first.recording.expect("the first pass records"))
    })?;
    let optimum = placement.optimum();
    let out = pass(placement, false)?;
    Ok(HybridRun {
        metrics: out.metrics,
        pages_on_flash: out.pages_on_flash,
        optimum,
    })
}

struct Pass {
    metrics: Metrics,
    pages_on_flash: u64,
    recording: Option<(crate::hybrid::Recording, Costs)>,
}

struct HybridReplay<'a, 'b> {
    trace: &'a Flt,
    opts: &'a HybridRunOptions,
    placement: Placement,
    record: bool,
    progress: &'b mut dyn FnMut(u64) -> Result<()>,
}

impl WithPolicy for HybridReplay<'_, '_> {
    type Out = Pass;
    fn visit<P: Policy>(self, policy: P) -> Result<Pass> {
        let HybridReplay {
            trace,
            opts,
            placement,
            record,
            progress,
        } = self;
        let mut b = HybridStore::builder(
            CostStore::new(opts.flash.clone()),
            CostStore::new(opts.magnetic.clone()),
        )
        .placement(placement)
        .buffer_pages(opts.buffer_pages as u64)
        .file_pages(trace.pages() as u64)
        .preloaded(true)
        .record(record)
        .defer(opts.defer);
        if let Some(c) = opts.flash_capacity {
            b = b.flash_capacity(c);
        }
        let store = b.open()?;
        let mut sim = Simulator::with_numbers(policy, store, trace)?.with_series(opts.series_every);
        sim.run_flt(trace, progress)?;
        let metrics = if opts.flush_at_end {
            sim.flush_metrics(trace.pages())?
        } else {
            sim.metrics()
        };
        let (_, mut store) = sim.into_parts();
        let costs = store.costs();
        Ok(Pass {
            metrics,
            pages_on_flash: store.pages_on_flash(),
            recording: store.take_recording().map(|r| (r, costs)),
        })
    }
}
