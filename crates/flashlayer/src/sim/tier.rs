//! Trace replays through DRAM over an SSD cache over a disk: the DRAM level
//! runs any online policy through the one calling protocol, over an
//! [`SsdTier`] whose SSD level is the scheme's (HyPro, TAC, FaCE, lazy
//! cleaning); each device's operations are counted and priced.

use super::{capacity, Simulator, WithPolicy};
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::policy::{Policy, PolicySpec};
use crate::tier::{AnyScheme, Counting, Io, IoCounts, Scheme, SchemeSpec, SsdTier, TierStats};
use crate::trace::Flt;
use crate::types::{DenseId, Metrics};

/// What a tier did beyond the metrics (whose devices are the SSD and the
/// disk, and whose virtual time is their I/O time).
#[derive(Clone, Debug)]
pub struct TierOut {
    /// The scheme with its parameters, as its paper names it.
    pub scheme_label: String,
    /// SSD pages.
    pub ssd_pages: usize,
    /// Requests per level and page movements.
    pub stats: TierStats,
    /// Each device's operations.
    pub io: IoCounts,
    /// SSD time.
    pub ssd_time: f64,
    /// Disk time.
    pub hdd_time: f64,
    /// Pages on the SSD at the end, and dirty ones among them.
    pub ssd_pages_used: (u64, u64),
    /// HyPro: the run totals of C_sinkf and C_sinkd (§4, Eqs. 1–2).
    pub sink_costs: Option<(f64, f64)>,
    /// HyPro: the probabilities at the end.
    pub probabilities: Option<(f64, f64)>,
}

/// Options of a [`run_tier`].
#[derive(Clone, Debug)]
pub(crate) struct TierRunOptions {
    /// DRAM pages (≥ 1; at most the trace's distinct pages are used).
    pub dram_pages: usize,
    /// SSD pages (≥ 1).
    pub ssd_pages: usize,
    /// The SSD.
    pub ssd: DeviceModel,
    /// The disk.
    pub hdd: DeviceModel,
    /// Time-series interval in requests (0: none).
    pub series_every: u64,
    /// Write the dirty DRAM pages left at the end, each where its eviction
    /// would send it.
    pub flush_at_end: bool,
}

/// Replays `trace` through the hierarchy of `scheme` with the named DRAM
/// policy. `progress` as in [`super::replay`].
pub(crate) fn run_tier(
    trace: &Flt,
    dram: &PolicySpec,
    scheme: &SchemeSpec,
    opts: &TierRunOptions,
    progress: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<(Metrics, TierOut)> {
    let cap = capacity(opts.dram_pages, trace)?;
    let built = scheme.build(
        opts.ssd_pages,
        trace.pages(),
        |d| trace.original(d),
        &opts.ssd,
        &opts.hdd,
    )?;
    // An offline policy reads DRAM's future from the trace: true unless the
    // scheme serves requests on the SSD, which then never reach DRAM.
    if dram.is_offline() && built.serves_on_ssd() {
        return Err(Error::invalid(format!(
            "{} is offline, and {} serves requests on the SSD that then never reach DRAM, so DRAM's \
             future is not the trace's; use an online policy, or a scheme that serves every request \
             from DRAM (hypro:p_elevate=1, tac, face, lc)",
            dram.name(),
            built.name()
        )));
    }
    let replay = Replay {
        trace,
        scheme: built,
        opts,
        progress,
    };
    super::with_policy(dram, cap, trace, None, replay)
}

struct Replay<'a, 'b> {
    trace: &'a Flt,
    scheme: AnyScheme,
    opts: &'a TierRunOptions,
    progress: &'b mut dyn FnMut(u64) -> Result<()>,
}

impl WithPolicy for Replay<'_, '_> {
    type Out = (Metrics, TierOut);
    fn visit<P: Policy>(self, policy: P) -> Result<Self::Out> {
        let Replay {
            trace,
            scheme,
            opts,
            progress,
        } = self;
        let store = SsdTier::new(scheme, Counting::default(), &opts.ssd, &opts.hdd)
            .dense_ids(trace.pages() as DenseId);
        let mut sim = Simulator::with_numbers(policy, store, trace)?.with_series(opts.series_every);
        sim.run_flt(trace, progress)?;
        let m = if opts.flush_at_end {
            sim.flush_metrics(trace.pages())?
        } else {
            sim.metrics()
        };
        let tier = sim.store();
        let (ssd_time, hdd_time) = tier.times();
        let scheme = tier.scheme();
        let (sink_costs, probabilities) = match scheme {
            AnyScheme::Hypro(h) => (Some(h.sink_costs()), Some(h.probabilities())),
            _ => (None, None),
        };
        let out = TierOut {
            scheme_label: scheme.name(),
            ssd_pages: opts.ssd_pages,
            stats: TierStats::of(&m, tier.counts()),
            io: tier.io().counts(),
            ssd_time,
            hdd_time,
            ssd_pages_used: scheme.ssd_pages(),
            sink_costs,
            probabilities,
        };
        Ok((m, out))
    }
}
