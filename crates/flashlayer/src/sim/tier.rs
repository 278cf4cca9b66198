//! Trace replays through a DRAM / SSD / disk hierarchy
//! ([`crate::tier::Tier`]): the DRAM level runs any online policy by name,
//! the SSD level is the scheme's (HyPro, TAC, FaCE, lazy cleaning), and
//! each device's operations are counted and priced.

use super::{capacity, WithPolicy, CHUNK, PREFETCH_DISTANCE};
use crate::device::DeviceModel;
use crate::error::Result;
use crate::policy::{with_online_policy, Policy, PolicySpec};
use crate::tier::{AnyScheme, Counting, IoCounts, Scheme, SchemeSpec, Tier, TierStats};
use crate::trace::Flt;
use crate::types::{unpack, PageCost};

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
        let cost = PageCost::new(opts.hdd.read, opts.hdd.write);
        let mut tier = Tier::new(policy, scheme, Counting::default(), cost);
        let mut series = Vec::new();
        let every = opts.series_every;
        let mut done = 0u64;
        let mut state = Vec::new();
        for chunk in trace.request_bytes().chunks(4 * CHUNK) {
            let words = chunk.len() / 4;
            let word = |i: usize| {
                let b = &chunk[4 * i..4 * i + 4];
                u32::from_le_bytes([b[0], b[1], b[2], b[3]])
            };
            for i in 0..words {
                if i + PREFETCH_DISTANCE < words {
                    tier.prefetch(unpack(word(i + PREFETCH_DISTANCE)).0);
                }
                let (page, op) = unpack(word(i));
                tier.request(page, op)?;
                if every > 0 && (done + i as u64 + 1) % every == 0 {
                    state.clear();
                    tier.scheme().state(&mut state);
                    let (s, h) = tier.io().0.time(&opts.ssd, &opts.hdd);
                    series.push(TierPoint {
                        requests: done + i as u64 + 1,
                        io_time: s + h,
                        state: state.clone(),
                    });
                }
            }
            done += words as u64;
            progress(done)?;
        }
        let stats = tier.stats();
        let (dram, scheme, io) = tier.into_parts();
        let stats_io = io.0;
        let (ssd_time, hdd_time) = stats_io.time(&opts.ssd, &opts.hdd);
        let (sink_costs, probabilities) = match &scheme {
            AnyScheme::Hypro(h) => (Some(h.sink_costs()), Some(h.probabilities())),
            _ => (None, None),
        };
        Ok(TierRun {
            scheme: scheme.name(),
            dram_policy,
            stats,
            io: stats_io,
            ssd_time,
            hdd_time,
            ssd_pages_used: scheme.ssd_pages(),
            dram_dirty_at_end: dram.dirty_count() as u64,
            sink_costs,
            probabilities,
            series,
        })
    }
}
