//! Trace replays through a DRAM / SSD / disk hierarchy
//! ([`crate::tier::SsdTier`] under the simulator): the DRAM level runs any
//! online policy by name through the one calling protocol,
//! the SSD level is the scheme's (HyPro, TAC, FaCE, lazy cleaning), and
//! each device's operations are counted and priced.

use super::{capacity, Simulator, WithPolicy};
use crate::device::DeviceModel;
use crate::error::Result;
use crate::policy::{with_online_policy, Policy, PolicySpec};
use crate::tier::{AnyScheme, Counting, Io, IoCounts, Scheme, SchemeSpec, SsdTier, TierStats};
use crate::trace::Flt;
use crate::types::DenseId;

/// Options of a [`run_tier`].
#[derive(Clone, Debug)]
pub struct TierRunOptions {
    /// DRAM pages (≥ 1; at most the trace's distinct pages are used).
    pub dram_pages: usize,
    /// SSD pages (≥ 1).
    pub ssd_pages: usize,
    /// The SSD. Default in the CLI: `hypro-ssd`.
    pub ssd: DeviceModel,
    /// The disk. Default in the CLI: `hypro-hdd`.
    pub hdd: DeviceModel,
    /// Time-series interval in requests (0: none).
    pub series_every: u64,
}

/// One point of a [`TierRun`]'s time series.
#[derive(Clone, Debug, PartialEq)]
pub struct TierPoint {
    /// Requests served so far.
    pub requests: u64,
    /// Total I/O time so far.
    pub io_time: f64,
    /// The scheme's state variables (HyPro: `p_sink`, `p_elevate`).
    pub state: Vec<(&'static str, f64)>,
}

/// What a [`run_tier`] did.
#[derive(Clone, Debug)]
pub struct TierRun {
    /// The scheme with its parameters.
    pub scheme: String,
    /// The DRAM policy's name.
    pub dram_policy: String,
    /// Requests per level and page movements.
    pub stats: TierStats,
    /// Each device's operations.
    pub io: IoCounts,
    /// SSD time (its operations × its prices).
    pub ssd_time: f64,
    /// Disk time.
    pub hdd_time: f64,
    /// Pages on the SSD at the end, and dirty ones among them.
    pub ssd_pages_used: (u64, u64),
    /// Dirty pages left in DRAM at the end (not written).
    pub dram_dirty_at_end: u64,
    /// HyPro: the run totals of C_sinkf and C_sinkd (§4, Eqs. 1–2).
    pub sink_costs: Option<(f64, f64)>,
    /// HyPro: the probabilities at the end.
    pub probabilities: Option<(f64, f64)>,
    /// The time series (empty without `series_every`).
    pub series: Vec<TierPoint>,
}

impl TierRun {
    /// Total I/O time: SSD and disk.
    pub fn io_time(&self) -> f64 {
        self.ssd_time + self.hdd_time
    }
}

/// Replays `trace` through the hierarchy of `scheme` with the named DRAM
/// policy. `progress` is called with the requests served after every chunk
/// of about a million; an error from it stops the run.
pub fn run_tier(
    trace: &Flt,
    dram: &PolicySpec,
    scheme: &SchemeSpec,
    opts: &TierRunOptions,
    progress: &mut dyn FnMut(u64) -> Result<()>,
) -> Result<TierRun> {
    let cap = capacity(opts.dram_pages, trace)?;
    let built = scheme.build(
        opts.ssd_pages,
        trace.pages(),
        |d| trace.original(d),
        &opts.ssd,
        &opts.hdd,
    )?;
    with_online_policy(
        dram,
        cap,
        trace.pages(),
        Replay {
            trace,
            scheme: built,
            opts,
            progress,
        },
    )
}

struct Replay<'a, 'b> {
    trace: &'a Flt,
    scheme: AnyScheme,
    opts: &'a TierRunOptions,
    progress: &'b mut dyn FnMut(u64) -> Result<()>,
}

impl WithPolicy for Replay<'_, '_> {
    type Out = TierRun;
    fn visit<P: Policy>(self, policy: P) -> Result<TierRun> {
        let Replay {
            trace,
            scheme,
            opts,
            progress,
        } = self;
        let dram_policy = policy.name();
        let store = SsdTier::new(scheme, Counting::default(), &opts.ssd, &opts.hdd)
            .numbered((0..trace.pages() as DenseId).map(|d| trace.original(d)));
        let mut sim = Simulator::with_numbers(policy, store, trace)?.with_series(opts.series_every);
        sim.run_flt(trace, progress)?;
        let m = sim.metrics();
        let (_, tier) = sim.into_parts();
        let (ssd_time, hdd_time) = tier.times();
        let scheme = tier.scheme();
        let (sink_costs, probabilities) = match scheme {
            AnyScheme::Hypro(h) => (Some(h.sink_costs()), Some(h.probabilities())),
            _ => (None, None),
        };
        Ok(TierRun {
            scheme: scheme.name(),
            dram_policy,
            stats: TierStats::of(&m, tier.counts()),
            io: tier.io().counts(),
            ssd_time,
            hdd_time,
            ssd_pages_used: scheme.ssd_pages(),
            dram_dirty_at_end: m.dirty_at_end,
            sink_costs,
            probabilities,
            series: m
                .series
                .into_iter()
                .map(|p| TierPoint {
                    requests: p.requests,
                    io_time: p.virtual_time,
                    state: p.state,
                })
                .collect(),
        })
    }
}
