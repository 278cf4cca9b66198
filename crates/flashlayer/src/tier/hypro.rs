//! HyPro (Lv et al., §3–4): DRAM and SSD exclusive, pages moved between
//! them with probabilities.
//!
//! - **Elevation** (Algorithm 1, lines 3–10): a request that misses DRAM
//!   and finds its page on the SSD brings it into DRAM with probability
//!   `p_elevate`; the page DRAM evicts for it is written to the SSD in its
//!   place (line 6: always, whatever `p_sink`). Otherwise the request is
//!   served on the SSD (a read or a write of the SSD page) and DRAM does
//!   not change.
//! - **Sinking** (Algorithm 2): a page DRAM evicts to make room for a page
//!   read from the disk goes to the SSD with probability `p_sink`, evicting
//!   the SSD level's victim (written to the disk if dirty); otherwise it is
//!   dropped, or written to the disk if dirty. The text ("otherwise, it
//!   will be discarded directly or written back to disk if it is dirty")
//!   and Eq. 1 (no disk write for the sunk page) say the disk write is the
//!   alternative to sinking, which we follow; the pseudocode's line 7 could
//!   be read as writing a sunk dirty page to the disk as well.
//! - The draws come from a PCG generator seeded by `seed` (default 0), one
//!   draw per decision, so a run is reproducible.
//!
//! # Tuning (`p_sink=auto`, `p_elevate=auto`, the defaults)
//!
//! Both start where §5.2 found the best fixed values (0.2 and 0.02) and are
//! re-decided every `window` requests (the `window` key, default 10,000) from
//! what the window saw. `R_m`, `W_m` are the read and write requests on the
//! page at DRAM's evict position (the page its policy would evict next:
//! Definition 1), `R_f`, `W_f` the same at the SSD's evict position, `E`
//! the evictions from DRAM that drew for sinking, `C_fr`, `C_fw`, `C_dr`,
//! `C_dw` the SSD's and disk's read and write prices.
//!
//! **p_sink**, §4 Eqs. 1–2 summed over the window's evictions: each
//! eviction adds, with the requests on the evict positions seen since the
//! previous eviction,
//!
//! ```text
//! C_sinkf += C_fw + R_m·C_fr + W_m·C_fw + R_f·C_dr + W_f·C_dw
//! C_sinkd +=        R_m·C_dr + W_m·C_dw + R_f·C_fr + W_f·C_fw
//! ```
//!
//! where the `R_f`, `W_f` terms count only while the SSD is full (Eq. 1's
//! "if flash is full": a sink into free space displaces nothing, and the
//! SSD page's requests then cost the same either way). If
//! `C_sinkf < C_sinkd` sinking pays and `p_sink` grows, else it shrinks.
//! The rule judges a page by the requests on DRAM's evict position, so it
//! sinks when pages about to leave DRAM are still being used; reuse at a
//! distance longer than DRAM's queue (a loop over a set larger than DRAM)
//! is invisible to it, as it is to the paper's equations.
//!
//! **p_elevate** (the paper omits it; derived the same way). Elevating a
//! page `P` hit on the SSD swaps it with DRAM's evict-position page `M`.
//! The read of `P` happens either way. Elevating costs the SSD write of
//! `M`, and from then on `M`'s requests are served by the SSD instead of
//! DRAM; not elevating leaves `P`'s later requests on the SSD. `M`'s later
//! requests are estimated, as for sinking, by the requests on DRAM's evict
//! position (`R_m`, `W_m`); `P`'s by the SSD hits on pages already hit on
//! the SSD earlier in the same window (`R_rep`, `W_rep`: exactly the
//! requests elevation at the earlier hit would have served from DRAM).
//! Over the window's `H` SSD hits that drew for elevation:
//!
//! ```text
//! C_elev = H·C_fw + R_m·C_fr + W_m·C_fw
//! C_stay = R_rep·C_fr + W_rep·C_fw
//! ```
//!
//! If `C_elev < C_stay`, `p_elevate` grows, else it shrinks. A step
//! multiplies or divides by 1.2 (scale-free: `p_elevate` lives near 0.01,
//! `p_sink` near 0.2); `p_sink` stays in [0.01, 0.99], `p_elevate` in
//! [0.001, 0.5]. A window without a decision of a kind leaves that
//! probability alone. Both need to know the evict position, so `auto`
//! needs level policies that name their next victim (`lru`, `fifo`).
//!
//! Run totals of `C_sinkf` and `C_sinkd` are kept with fixed probabilities
//! too, for §5.2's Figure 5(a).

use super::{Io, PolicyLevel, Reason, Scheme, Serve};
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::policy::Policy;
use crate::types::{DenseId, Op};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// `p_sink` where §5.2 starts (and `auto`'s first value).
pub const DEFAULT_P_SINK: f64 = 0.2;
/// `p_elevate` where §5.2 starts (and `auto`'s first value).
pub const DEFAULT_P_ELEVATE: f64 = 0.02;

const STEP: f64 = 1.2;
const SINK_RANGE: (f64, f64) = (0.01, 0.99);
const ELEVATE_RANGE: (f64, f64) = (0.001, 0.5);

/// A probability: fixed, or tuned by §4.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Prob {
    /// Always this value, in [0, 1].
    Fixed(f64),
    /// Tuned every window, starting from the §5.2 value.
    Auto,
}

#[derive(Clone, Copy, Debug, Default)]
struct Window {
    requests: u64,
    // Requests on each level's evict position since the last eviction
    // from DRAM that drew for sinking.
    r_m: u64,
    w_m: u64,
    r_f: u64,
    w_f: u64,
    // The window's totals.
    sinkf: f64,
    sinkd: f64,
    evictions: u64,
    r_m_total: u64,
    w_m_total: u64,
    ssd_hits: u64,
    r_rep: u64,
    w_rep: u64,
}

/// HyPro's decisions and its SSD level.
#[derive(Debug)]
pub struct Hypro {
    ssd: PolicyLevel,
    p_sink: f64,
    p_elevate: f64,
    auto_sink: bool,
    auto_elevate: bool,
    seed: u64,
    rng: Pcg64,
    window_len: u64,
    window: Window,
    window_id: u32,
    hit_in: Vec<u32>,
    // C_fr, C_fw, C_dr, C_dw
    prices: [f64; 4],
    c_sinkf: f64,
    c_sinkd: f64,
}

impl Hypro {
    /// HyPro over `ssd`, with the two devices' prices, the probabilities,
    /// the seed and the tuning window (requests, ≥ 1).
    pub fn new(
        ssd: PolicyLevel,
        devices: (&DeviceModel, &DeviceModel),
        p_sink: Prob,
        p_elevate: Prob,
        seed: u64,
        window: u64,
    ) -> Result<Self> {
        let auto = matches!(p_sink, Prob::Auto) || matches!(p_elevate, Prob::Auto);
        if auto && !ssd.names_next_victim() {
            return Err(Error::invalid(format!(
                "hypro: p_sink=auto and p_elevate=auto count requests on the SSD's evict position, \
                 which {} does not name; use level=lru or level=fifo, or give both probabilities a value",
                ssd.policy().name()
            )));
        }
        let (s, d) = devices;
        let value = |p: Prob, default: f64| match p {
            Prob::Fixed(x) => x,
            Prob::Auto => default,
        };
        Ok(Hypro {
            hit_in: Vec::new(),
            ssd,
            p_sink: value(p_sink, DEFAULT_P_SINK),
            p_elevate: value(p_elevate, DEFAULT_P_ELEVATE),
            auto_sink: p_sink == Prob::Auto,
            auto_elevate: p_elevate == Prob::Auto,
            seed,
            rng: Pcg64::seed_from_u64(seed),
            window_len: window.max(1),
            window: Window::default(),
            window_id: 1,
            prices: [s.read, s.write, d.read, d.write],
            c_sinkf: 0.0,
            c_sinkd: 0.0,
        })
    }

    /// The current probabilities `(p_sink, p_elevate)`.
    pub fn probabilities(&self) -> (f64, f64) {
        (self.p_sink, self.p_elevate)
    }

    /// Run totals of Eqs. 1–2, `(C_sinkf, C_sinkd)`, over finished windows.
    pub fn sink_costs(&self) -> (f64, f64) {
        (self.c_sinkf, self.c_sinkd)
    }

    /// The SSD level.
    pub fn level(&self) -> &PolicyLevel {
        &self.ssd
    }

    /// Adds one eviction's share of Eqs. 1–2: the requests on the evict
    /// positions since the previous one. A sink displaces the SSD's evict
    /// position page only when the SSD is full; otherwise that page stays
    /// on the SSD either way and its requests cost the same in both cases.
    fn account_eviction(&mut self) {
        let [fr, fw, dr, dw] = self.prices;
        let w = &mut self.window;
        let (rm, wm) = (w.r_m as f64, w.w_m as f64);
        w.sinkf += fw + rm * fr + wm * fw;
        w.sinkd += rm * dr + wm * dw;
        if self.ssd.is_full() {
            let (rf, wf) = (w.r_f as f64, w.w_f as f64);
            w.sinkf += rf * dr + wf * dw;
            w.sinkd += rf * fr + wf * fw;
        }
        w.evictions += 1;
        w.r_m_total += w.r_m;
        w.w_m_total += w.w_m;
        (w.r_m, w.w_m, w.r_f, w.w_f) = (0, 0, 0, 0);
    }

    fn end_window(&mut self) {
        let w = std::mem::take(&mut self.window);
        let [fr, fw, _, _] = self.prices;
        self.c_sinkf += w.sinkf;
        self.c_sinkd += w.sinkd;
        if self.auto_sink && w.evictions > 0 {
            self.p_sink = step(self.p_sink, w.sinkf < w.sinkd, SINK_RANGE);
        }
        if self.auto_elevate && w.ssd_hits > 0 {
            let (rm, wm) = (w.r_m_total + w.r_m, w.w_m_total + w.w_m);
            let elev = w.ssd_hits as f64 * fw + rm as f64 * fr + wm as f64 * fw;
            let stay = w.r_rep as f64 * fr + w.w_rep as f64 * fw;
            self.p_elevate = step(self.p_elevate, elev < stay, ELEVATE_RANGE);
        }
        // Requests since the last eviction carry over to the next one.
        self.window.r_m = w.r_m;
        self.window.w_m = w.w_m;
        self.window.r_f = w.r_f;
        self.window.w_f = w.w_f;
        self.window_id = self.window_id.wrapping_add(1).max(1);
    }

    #[inline]
    fn draw(&mut self) -> f64 {
        self.rng.random::<f64>()
    }
}

fn step(p: f64, up: bool, (lo, hi): (f64, f64)) -> f64 {
    let q = if up { p * STEP } else { p / STEP };
    q.clamp(lo, hi)
}

impl Scheme for Hypro {
    fn name(&self) -> String {
        let p = |auto: bool, x: f64| {
            if auto {
                "auto".to_string()
            } else {
                format!("{x}")
            }
        };
        format!(
            "HyPro(p_sink={}, p_elevate={}, seed={}, level={})",
            p(self.auto_sink, self.p_sink),
            p(self.auto_elevate, self.p_elevate),
            self.seed,
            self.ssd.policy().name()
        )
    }

    #[inline]
    fn on_ssd(&self, page: DenseId) -> bool {
        self.ssd.contains(page)
    }

    #[inline]
    fn ssd_hit(&mut self, page: DenseId, op: Op, io: &mut impl Io) -> Result<Serve> {
        let w = &mut self.window;
        w.ssd_hits += 1;
        if self.ssd.next_victim() == Some(page) {
            match op {
                Op::Read => w.r_f += 1,
                Op::Write => w.w_f += 1,
            }
        }
        let i = page as usize;
        if i >= self.hit_in.len() {
            self.hit_in.resize(i + 1, 0);
        }
        if self.hit_in[i] == self.window_id {
            match op {
                Op::Read => w.r_rep += 1,
                Op::Write => w.w_rep += 1,
            }
        }
        self.hit_in[i] = self.window_id;
        if self.draw() < self.p_elevate {
            let slot = self.ssd.slot(page);
            if op == Op::Read {
                io.ssd_read(page, slot)?;
            }
            // The slot goes back to the free list and is the next one
            // taken: DRAM's victim lands where the elevated page was.
            let (dirty, _) = self.ssd.remove(page);
            return Ok(Serve::Load { dirty });
        }
        self.ssd.touch(page, op);
        io.ssd_serve(page, self.ssd.slot(page), op)?;
        Ok(Serve::OnSsd)
    }

    fn dram_evicted(
        &mut self,
        page: DenseId,
        dirty: bool,
        why: Reason,
        io: &mut impl Io,
    ) -> Result<bool> {
        if why == Reason::Flush {
            // DRAM and the SSD stay exclusive: a flushed page goes to the disk.
            if dirty {
                io.hdd_write(page)?;
            }
            return Ok(false);
        }
        if why == Reason::Miss {
            self.account_eviction();
            if self.draw() >= self.p_sink {
                if dirty {
                    io.hdd_write(page)?;
                }
                return Ok(false);
            }
        }
        if self.ssd.is_full() {
            let (v, slot, stale) = self.ssd.evict();
            if v.dirty {
                io.ssd_to_hdd(v.page, slot)?;
            }
            debug_assert!(stale.is_none(), "HyPro never relocates");
        }
        let slot = self.ssd.admit(page, dirty);
        io.ssd_write(page, slot, dirty, false)?;
        Ok(true)
    }

    #[inline]
    fn dram_request(&mut self, at_victim: bool, op: Op) {
        if at_victim {
            match op {
                Op::Read => self.window.r_m += 1,
                Op::Write => self.window.w_m += 1,
            }
        }
        self.window.requests += 1;
        if self.window.requests >= self.window_len {
            self.end_window();
        }
    }

    fn watches_dram(&self) -> bool {
        true
    }

    /// Unless `p_elevate` is fixed at 1, a DRAM miss on an SSD page may be
    /// served on the SSD (Algorithm 1, line 9).
    fn serves_on_ssd(&self) -> bool {
        self.auto_elevate || self.p_elevate < 1.0
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        self.ssd.prefetch(page);
        if let Some(h) = self.hit_in.get(page as usize) {
            crate::types::prefetch(h);
        }
    }

    fn ssd_pages(&self) -> (u64, u64) {
        self.ssd.pages()
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("p_sink", self.p_sink));
        out.push(("p_elevate", self.p_elevate));
    }
}
