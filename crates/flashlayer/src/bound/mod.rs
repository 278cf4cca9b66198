//! How good can a policy be? A lower bound on the cost of every policy for
//! a trace, a buffer size and a device (`costopt-lb`), and an offline
//! schedule that comes close to it (`costopt-ub`, replayed by
//! [`crate::policy::CostOpt`]).
//!
//! # The problem
//!
//! Writeback-aware caching (Beckmann, Gibbons, Haeupler & McGuffey, APOCS
//! 2020): serve a trace with a buffer of `k` pages that loads every
//! requested page (demand paging, as every policy here does), paying `r` per
//! miss and `w` per dirty page written back (and, with a flush at the end,
//! per page still dirty then). It is NP-complete; Belady's MIN minimises
//! misses only and can lose to a schedule that misses more but writes less
//! (FD-Buffer's Table 1).
//!
//! # The relaxation
//!
//! Describe any schedule page by page. Between two consecutive requests of
//! a page (an *interval*) the page either stays in the buffer throughout
//! (the interval is *kept*) or not, in which case the second request
//! misses. After its last request (its *tail*, to the end of the trace) a
//! page either stays to the end or leaves. A page's requests split at the
//! intervals not kept into *residencies*; a residency containing a write
//! costs one write-back when it ends by eviction, and at the end of the
//! trace only if it is flushed. So a schedule's cost is exactly
//!
//! `Σ_pages [ r·(1 + cut intervals) + w·(dirty residencies that end charged) ]`,
//!
//! a function of each page's own keep/cut choices. The pages interact only
//! through the buffer: at request `t`, the requested page and every page
//! with a kept interval or tail spanning `t` are resident, so
//! `occ_t = #{kept intervals and tails strictly spanning t} ≤ k − 1`.
//! Every schedule satisfies these constraints, and conversely any choices
//! that satisfy them are a schedule (evict each page right after a request
//! whose interval it does not keep) of the same cost: the integer problem
//! *is* writeback-aware caching. (Leaving the tails out loses exactly
//! that: a page would leave after its last request unpriced and unwritten,
//! and the bound falls 21% below the optimum on small traces.)
//!
//! # The bound: Lagrangian duality
//!
//! For any prices `μ_t ≥ 0`,
//!
//! `L(μ) = Σ_pages min_choices [ cost_p + Σ_{kept (s,n)} Σ_{s<t<n} μ_t ] − (k−1)·Σ_t μ_t`
//!
//! (a kept tail is an interval ending at the end of the trace)
//!
//! is at most the cost of every schedule (weak duality): for the schedule's
//! own choices the added term is `Σ_t μ_t·(occ_t − (k−1)) ≤ 0`, and the
//! minimum over choices is no larger. Each page's minimum is a two-state
//! dynamic program over its requests (state: whether the current residency
//! holds a write), so `L(μ)` takes one pass over the trace. Sound for every
//! `μ`: no iteration can make the bound wrong, only looser.
//!
//! How tight: on 200 random traces small enough for an exhaustive search
//! the bound is on average 0.8% below the optimum (`tests/engine/bound.rs`); on
//! traces of 400 and 2,000 requests solved exactly as integer programs
//! (HiGHS, `scripts/measure-bound-gap`) it is 0.2–0.8% (write cost 8) and
//! 1.4–2.0% (write cost 64) below, costopt-ub 0–0.9% and 0.2% above.
//!
//! We maximise `L` by projected subgradient ascent (the subgradient is
//! `occ_t − (k−1)` under the page programs' choices) with Polyak's step
//! towards the best upper bound, halving the step factor after 5
//! iterations without progress. The prices start at a constant: the rent
//! `r/G` at which intervals no longer than `G` requests fill the buffer on
//! average. The bound is `max(L)` over the iterations, never below the
//! compulsory cost (every page read once, written once if flushed), which
//! is `L(0)`.
//!
//! Writes are charged at `min(write, seq_write)`, the cheapest a device
//! writes a page, so the bound holds for policies that write in sequential
//! batches too (CFDC, FD-Buffer with clustering). The value is lowered by a
//! relative 1e-9 against rounding in the sums.
//!
//! # The schedule
//!
//! The prices also say which page to evict: [`crate::policy::CostOpt`]
//! evicts the page whose rent until its next use exceeds what evicting it
//! loses. The planner replays it with the prices of every `replay_every`-th
//! iteration, with three constant prices (½, 1 and 2 times the starting
//! one), and with a price that makes it Belady's MIN; the cheapest replay
//! is the upper bound, and its prices are what `--policy costopt-ub` runs.
//! Each replay is a real schedule, so `lower ≤ optimum ≤ upper`, and
//! `upper ≤` Belady's cost.

use crate::device::{CostUnit, DeviceModel};
use crate::drive::{Driver, NoFrames, PageNumbers};
use crate::error::Result;
use crate::policy::{CostOpt, Future, Policy, Schedule, ScheduleCosts};
use crate::store::CostStore;

pub use crate::policy::DEFAULT_ITERATIONS;
/// Default: replay the schedule of every this many iterations.
pub const DEFAULT_REPLAY_EVERY: usize = 5;

const NONE: u32 = u32::MAX;

/// How hard [`plan`] tries.
#[derive(Clone, Copy, Debug)]
pub struct BoundOptions {
    /// Subgradient iterations (default [`DEFAULT_ITERATIONS`]); 0 leaves the
    /// lower bound at the compulsory cost.
    pub iterations: usize,
    /// Replay the schedule of every this many iterations (default
    /// [`DEFAULT_REPLAY_EVERY`]).
    pub replay_every: usize,
    /// Search schedules for the upper bound (default on). Off, only
    /// Belady's is replayed (the upper bound is then Belady's cost): the
    /// lower bound in a fraction of the time.
    pub search: bool,
}

impl Default for BoundOptions {
    fn default() -> Self {
        BoundOptions {
            iterations: DEFAULT_ITERATIONS,
            replay_every: DEFAULT_REPLAY_EVERY,
            search: true,
        }
    }
}

/// The bounds on one trace, buffer and device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// No policy costs less (`costopt-lb`).
    pub lower: f64,
    /// What the best replayed schedule costs (`costopt-ub`).
    pub upper: f64,
    /// What Belady's MIN costs (replayed the same way).
    pub belady: f64,
    /// Every page read once (and written once if flushed and ever written).
    pub compulsory: f64,
    /// Subgradient iterations run.
    pub iterations: usize,
}

/// The bounds and the prices of the best schedule.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The bounds.
    pub bounds: Bounds,
    /// The best schedule's prices and plan, what [`CostOpt`] replays.
    pub schedule: Schedule,
}

/// Reusable state of one evaluation of `L(μ)`.
struct Dual {
    prefix: Vec<f64>,
    /// Per request, per state after it (2 bits each): where the best
    /// choice came from (bit 0: the state before) and whether the interval
    /// ending here was kept (bit 1).
    choice: Vec<u8>,
    value: Vec<[f64; 2]>,
    last: Vec<u32>,
    need: Vec<u8>,
    keep_end: Vec<u32>,
    /// After [`Dual::evaluate`]: kept intervals spanning each request.
    occ: Vec<i32>,
    /// After [`Dual::evaluate`], one bit per request: the page programs
    /// keep the interval that starts there.
    kept: Vec<u64>,
}

impl Dual {
    fn new(requests: usize, pages: usize) -> Self {
        Dual {
            prefix: vec![0.0; requests + 1],
            choice: vec![0; requests],
            value: vec![[0.0; 2]; pages],
            last: vec![NONE; pages],
            need: vec![0; pages],
            keep_end: vec![NONE; pages],
            occ: vec![0; requests + 1],
            kept: vec![0; requests.div_ceil(64)],
        }
    }

    /// `L(μ)`, filling `occ` with the page programs' occupancy.
    fn evaluate(&mut self, f: &Future<'_>, mu: &[f64], k: usize, c: &ScheduleCosts) -> f64 {
        let n = f.len();
        let (r, w) = (c.read, c.write);
        for (t, &m) in mu.iter().enumerate() {
            self.prefix[t + 1] = self.prefix[t] + m;
        }
        self.last.fill(NONE);
        const INF: f64 = f64::INFINITY;
        for t in 0..n {
            let (p, op) = f.request(t);
            let p = p as usize;
            let s = self.last[p];
            self.last[p] = t as u32;
            if s == NONE {
                self.value[p] = if op.is_write() { [INF, r] } else { [r, INF] };
                self.choice[t] = 0;
                continue;
            }
            let rent = self.prefix[t] - self.prefix[s as usize + 1];
            let [v0, v1] = self.value[p];
            // (cost, state before, kept)
            let cut = if v0 + r <= v1 + r + w {
                (v0 + r, 0u8, false)
            } else {
                (v1 + r + w, 1, false)
            };
            let better = |a: (f64, u8, bool), b: (f64, u8, bool)| if b.0 < a.0 { b } else { a };
            let code = |x: (f64, u8, bool)| x.1 | u8::from(x.2) << 1;
            if op.is_write() {
                let best = better(better(cut, (v0 + rent, 0, true)), (v1 + rent, 1, true));
                self.value[p] = [INF, best.0];
                self.choice[t] = code(best) << 2;
            } else {
                let b0 = better(cut, (v0 + rent, 0, true));
                let b1 = (v1 + rent, 1, true);
                self.value[p] = [b0.0, b1.0];
                self.choice[t] = code(b0) | code(b1) << 2;
            }
        }
        // After its last request a page either stays to the end, holding a
        // frame all the way, or leaves, written back if dirty. Flushed at
        // the end, staying costs the same write and the frame besides.
        let mut total = 0.0;
        self.keep_end.fill(NONE);
        for p in 0..self.last.len() {
            let last = self.last[p];
            if last == NONE {
                continue;
            }
            let tail = self.prefix[n] - self.prefix[last as usize + 1];
            let [v0, v1] = self.value[p];
            let leave1 = v1 + w;
            let stay1 = if c.flush_at_end { INF } else { v1 + tail };
            let (v, d, stays) = if v0 <= leave1.min(stay1) {
                (v0, 0, false)
            } else if leave1 <= stay1 {
                (leave1, 1, false)
            } else {
                (stay1, 1, true)
            };
            total += v;
            self.need[p] = d;
            if stays {
                self.keep_end[p] = n as u32;
            }
        }
        // Walk each page's choices back from its last request.
        self.occ.fill(0);
        self.kept.fill(0);
        for t in (0..n).rev() {
            let p = f.request(t).0 as usize;
            let end = self.keep_end[p];
            if end != NONE {
                self.occ[t + 1] += 1;
                self.occ[end as usize] -= 1;
                self.kept[t >> 6] |= 1 << (t & 63);
            }
            let code = self.choice[t] >> (2 * self.need[p]) & 3;
            self.need[p] = code & 1;
            self.keep_end[p] = if code & 2 != 0 { t as u32 } else { NONE };
        }
        for t in 1..=n {
            self.occ[t] += self.occ[t - 1];
        }
        total - (k as f64 - 1.0) * self.prefix[n]
    }
}

/// The cost of replaying [`CostOpt`] with `schedule`: its virtual time
/// driven through the calling protocol over a cost store of `costs`, the
/// store seeing page numbers from `numbers`, which is what `sim --policy
/// costopt-ub` gives.
pub fn replay<N: PageNumbers>(
    future: &Future<'_>,
    capacity: usize,
    schedule: &Schedule,
    costs: ScheduleCosts,
    numbers: N,
) -> Result<f64> {
    run(
        CostOpt::new(capacity, future, schedule, costs)?,
        future,
        costs,
        numbers,
    )
}

/// The virtual time of `policy` over the trace of `future`, driven through
/// the calling protocol ([`Driver`]) over a cost store of `costs`, the store
/// seeing page numbers from `numbers`: what `sim` gives for it (a flush at
/// the end prices neighbouring pages as sequential writes, as every
/// checkpoint does).
fn run<P: Policy, N: PageNumbers>(
    policy: P,
    future: &Future<'_>,
    costs: ScheduleCosts,
    numbers: N,
) -> Result<f64> {
    let device = DeviceModel {
        name: "schedule".to_owned(),
        read: costs.read,
        write: costs.write,
        seq_read: costs.read,
        seq_write: costs.seq_write,
        erase: None,
        unit: CostUnit::Units,
        concurrency: 1,
    };
    let mut d = Driver::new(policy, CostStore::new(device))?;
    let mut frames = NoFrames::new(numbers);
    for t in 0..future.len() {
        let (p, op) = future.request(t);
        d.request(p, op, &mut frames, 0)?;
    }
    if costs.flush_at_end {
        d.checkpoint(future.pages(), &mut frames)?;
    }
    Ok(d.metrics().virtual_time)
}

/// The constant price at which intervals of up to `G` requests fill the
/// buffer on average: `r/G` (0 if every interval fits).
fn starting_price(future: &Future<'_>, k: usize, read: f64) -> f64 {
    let n = future.len();
    let mut gaps: Vec<u32> = (0..n)
        .filter_map(|t| future.next_use(t).map(|u| (u - t - 1) as u32))
        .collect();
    gaps.sort_unstable();
    let room = (k as f64 - 1.0) * n as f64;
    let mut held = 0.0;
    for &g in &gaps {
        held += f64::from(g);
        if held > room {
            return read / f64::from(g.max(1));
        }
    }
    0.0
}

/// The schedule of a constant price and no plan.
fn constant(price: f64, n: usize) -> Schedule {
    Schedule {
        rent: (0..=n).map(|i| price * i as f64).collect(),
        keep: Vec::new(),
    }
}

/// Computes the bounds for a buffer of `capacity` pages and the prices of
/// the best schedule, each schedule priced by [`replay`] with the page
/// numbers `numbers` gives. `progress` is told each iteration's number; an
/// error from it stops the search.
pub fn plan<N: PageNumbers + Copy>(
    future: &Future<'_>,
    numbers: N,
    capacity: usize,
    costs: ScheduleCosts,
    opts: &BoundOptions,
    progress: &mut dyn FnMut(usize) -> Result<()>,
) -> Result<Plan> {
    if capacity == 0 {
        return Err(crate::Error::invalid("buffer size must be at least 1 page"));
    }
    let n = future.len();
    let k = capacity.min(future.pages());
    let lb_costs = ScheduleCosts {
        write: costs.write.min(costs.seq_write),
        ..costs
    };
    let mut dual = Dual::new(n, future.pages());
    // One price vector serves first at 0 (the compulsory cost), then as
    // the iterations' prices: a trace's worth of f64s allocated once.
    let mut mu = vec![0.0; n];
    let compulsory = dual.evaluate(future, &mu, k, &lb_costs);

    let belady_schedule = constant(2.0 * (costs.read + costs.write), n);
    let belady = run(future.belady(k)?, future, costs, numbers)?;
    let from_belady = replay(future, k, &belady_schedule, costs, numbers)?;
    let (mut upper, mut schedule) = (from_belady, belady_schedule);
    let mu0 = starting_price(future, k, costs.read);
    let scales: &[f64] = if opts.search { &[0.5, 1.0, 2.0] } else { &[] };
    for &scale in scales {
        let candidate = constant(mu0 * scale, n);
        let cost = replay(future, k, &candidate, costs, numbers)?;
        if cost < upper {
            (upper, schedule) = (cost, candidate);
        }
    }

    mu.fill(mu0);
    let mut lower = compulsory;
    let (mut factor, mut stall) = (2.0, 0);
    let mut iterations = 0;
    let capacity_left = k as f64 - 1.0;
    for it in 0..opts.iterations {
        progress(it)?;
        iterations = it + 1;
        let value = dual.evaluate(future, &mu, k, &lb_costs);
        if value > lower * (1.0 + 1e-12) {
            lower = value;
            stall = 0;
        } else {
            stall += 1;
            if stall >= 5 {
                factor /= 2.0;
                stall = 0;
            }
        }
        if opts.search && opts.replay_every > 0 && (it + 1) % opts.replay_every == 0 {
            let candidate = Schedule {
                rent: dual.prefix.clone(),
                keep: dual.kept.clone(),
            };
            let cost = replay(future, k, &candidate, costs, numbers)?;
            if cost < upper {
                (upper, schedule) = (cost, candidate);
            }
        }
        if upper - lower <= 1e-9 * upper {
            break;
        }
        let mut norm = 0.0;
        for (&m, &occ) in mu.iter().zip(&dual.occ) {
            let g = f64::from(occ) - capacity_left;
            if m > 0.0 || g > 0.0 {
                norm += g * g;
            }
        }
        if norm == 0.0 {
            break;
        }
        let step = factor * (upper - value) / norm;
        for (m, &occ) in mu.iter_mut().zip(&dual.occ) {
            let g = f64::from(occ) - capacity_left;
            *m = (*m + step * g).max(0.0);
        }
    }
    let lower = (lower - lower.abs() * 1e-9).max(compulsory);
    Ok(Plan {
        bounds: Bounds {
            lower,
            upper,
            belady,
            compulsory,
            iterations,
        },
        schedule,
    })
}
