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
//! re-decided at the end of every window. The paper accumulates "on all the
//! evicted pages in a certain window": a window is `window` evictions from
//! DRAM (default 1,000), so that every decision weighs as many evicted
//! pages whatever the miss rate. Sinking breaks even when a share
//! `C_fw / (C_dr − C_fr)` of the evicted pages come back (6% at Table 4's
//! prices, 16% with the low-end SSD), so a window of 1,000 evictions
//! expects 60 to 160 returns at break-even, whose counting noise (about
//! √n) is an eighth of them or less. `C_fr`, `C_fw`, `C_dr`, `C_dw` are
//! the SSD's and disk's read and write prices.
//!
//! **p_sink**, §4 Eqs. 1–2. The paper defines `R_mevict`, `W_mevict` as
//! the requests on a page evicted from DRAM (`P_mevict`) and `R_fevict`,
//! `W_fevict` as those on the page a sink pushes off the full SSD
//! (`P_fevict`), "accumulated on all the evicted pages in a certain
//! window". Our reading, in which both equations price the same requests
//! over the same span: a sink is worth what the sunk page is requested
//! while it stays on the SSD, so every page DRAM evicts on a draw (a miss)
//! is followed for the SSD's *residency* `D` — how long a page sunk now
//! lasts on the SSD if it is not hit (below). Its first request
//! within `D` of its eviction counts in `R_m` or `W_m` by its kind — the
//! request the SSD serves if the page sank and the disk serves if it did
//! not (which brings it back into DRAM; later requests depend on
//! `p_elevate`, not on the sink). Pages pushed off the SSD are followed
//! the same way, for the same `D`, into `R_f`, `W_f`. A request counts in the window in
//! which it comes, so the decision at the end of a window sums Eqs. 1–2
//! over that window's `E` evictions and the returns it saw, which in a
//! steady state are `E` times the share of evicted pages that return
//! within `D`. A span shorter than `D` misses the returns that come while a
//! sunk page is still on the SSD, and `p_sink` then stays low where
//! sinking nearly every page pays (the kernel build at 10% and 20% SSD):
//!
//! ```text
//! C_sinkf = E·C_fw + R_m·C_fr + W_m·C_fw + s·(R_f·C_dr + W_f·C_dw)
//! C_sinkd =          R_m·C_dr + W_m·C_dw + s·(R_f·C_fr + W_f·C_fw)
//! ```
//!
//! where `s` is the evictions made while the SSD was full over the pages
//! actually pushed off (so the pages pushed off stand for every eviction
//! that would push one off; Eq. 1's "if flash is full"). If
//! `C_sinkf < C_sinkd`, sinking pays and `p_sink` grows, else it shrinks
//! (the step below). Counting the requests on DRAM's evict position
//! instead (Definition 1) sees almost none on an LRU end, so every sink
//! looks like a wasted SSD write and `p_sink` falls to its floor whatever
//! the trace; counting every request while the page is out of DRAM charges
//! the not-sunk page with SSD hits it would have had in DRAM, and `p_sink`
//! climbs to its ceiling.
//!
//! **The residency** is unbounded until a sink first pushes a page off the
//! full SSD; from then on it is Little's law over the last window: the
//! SSD's pages times the window's requests over the pages that passed a
//! page sunk now (each admission, and each hit the SSD serves, moves it
//! one place nearer the end of an LRU SSD). It follows the `p_sink` just
//! set. The ages of the pages pushed off, the other measure at hand, tell
//! of the `p_sink` of one residency before, so a low `p_sink` keeps
//! looking too low long after it has lengthened the residency.
//!
//! **p_elevate** (the paper omits it: "in a similar way"). Elevating a page
//! `P` hit on the SSD swaps it with a page `M` that DRAM evicts. The read
//! of `P` happens either way. Elevating costs the SSD write of `M`, and
//! `M`'s next request is then served by the SSD rather than DRAM;
//! `M` is priced as the window's evicted pages were (`R_m/E`, `W_m/E` per
//! eviction). Not elevating leaves `P`'s later requests on the SSD: the SSD
//! hits on pages already hit on the SSD earlier in the same window (`R_rep`, `W_rep`). Over the window's `H`
//! SSD hits:
//!
//! ```text
//! C_elev = H·C_fw + H·(R_m·C_fr + W_m·C_fw)/E
//! C_stay = R_rep·C_fr + W_rep·C_fw
//! ```
//!
//! If `C_elev < C_stay`, `p_elevate` grows, else it shrinks.
//!
//! **The step.** The paper says only which way a probability moves.
//! `p_sink` is multiplied by `C_sinkd / C_sinkf` and `p_elevate` by
//! `C_stay / C_elev`, each ratio held within [1/2, 2] while the SSD fills
//! and within [1/1.2, 1.2] once it is full. While it fills, a sink displaces
//! nothing and the residency is unbounded, so a window's answer does not
//! depend on the probabilities it set, and a few windows reach a clear
//! answer. Once it is full, each decision changes the residency the next
//! window is judged by: moves of up to 2 overshoot, and moves of exactly
//! 1.2 whatever the ratio let windows near balance pull `p_sink` as far as
//! clear ones. Both bounds were chosen by measuring the kernel build at 10%
//! and 20% SSD and the recorded TATP at 20% (paper scale); the report
//! judges `auto` on those three points apart from the settings it was not
//! chosen on (`flashlayer reproduce hypro`: table `hypro/auto-vs-grid`,
//! figure `hypro/auto-held-out`).
//! `p_sink` stays in [0.01, 0.99], `p_elevate` in [0.001, 0.5]. A window
//! without a decision of a kind leaves that probability alone. Any SSD
//! level policy works with `auto`.
//!
//! Run totals of `C_sinkf` and `C_sinkd` are kept with fixed probabilities
//! too, for §5.2's Figure 5(a).

use super::{Io, Leaving, PolicyLevel, Reason, Scheme, Serve};
use crate::device::DeviceModel;
use crate::error::Result;
use crate::policy::Policy;
use crate::types::{DenseId, Op};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// `p_sink` where §5.2 starts (and `auto`'s first value).
pub const DEFAULT_P_SINK: f64 = 0.2;
/// `p_elevate` where §5.2 starts (and `auto`'s first value).
pub const DEFAULT_P_ELEVATE: f64 = 0.02;

const MOST: f64 = 2.0;
const LEFT_DRAM: usize = 0;
const LEFT_SSD: usize = 1;
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

/// One window's decisions and the returns it saw (module docs).
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    /// Evictions from DRAM that drew for sinking, and of them those made
    /// while the SSD was full.
    evictions: u64,
    full: u64,
    /// First requests on pages DRAM evicted on a draw within the SSD's
    /// residency before, by kind.
    r_m: u64,
    w_m: u64,
    /// Pages sinking pushed off the full SSD, and first requests on pages
    /// pushed off within the residency before.
    displaced: u64,
    r_f: u64,
    w_f: u64,
    /// SSD hits that drew for elevation, and of them those on a page hit
    /// on the SSD earlier in the same window.
    ssd_hits: u64,
    r_rep: u64,
    w_rep: u64,
    /// Pages the SSD admitted or served a hit on: each moves a page
    /// sunk now one place nearer the end of an LRU SSD.
    passed: u64,
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
    /// Windows finished.
    windows: u64,
    /// Requests seen.
    now: u64,
    /// `now` when the current window began.
    began: u64,
    /// `Tally::passed` over the run.
    passed: u64,
    /// The current window's tally.
    tally: Tally,
    /// The SSD's residency `D` (requests); infinite until the SSD first
    /// fills.
    residency: f64,
    /// Per page: the request number (from 1) at which it left DRAM on a
    /// draw, or was pushed off the SSD by a sink; 0 once it is requested
    /// again.
    /// `[LEFT_DRAM]`, `[LEFT_SSD]`: both are read on every request, so
    /// they share a line.
    left: Vec<[u64; 2]>,
    /// Per page: the window (from 1) of its last SSD hit.
    hit_in: Vec<u64>,
    // C_fr, C_fw, C_dr, C_dw
    prices: [f64; 4],
    c_sinkf: f64,
    c_sinkd: f64,
}

impl Hypro {
    /// HyPro over `ssd`, with the two devices' prices, the probabilities,
    /// the seed and the tuning window (evictions from DRAM, ≥ 1).
    pub fn new(
        ssd: PolicyLevel,
        devices: (&DeviceModel, &DeviceModel),
        p_sink: Prob,
        p_elevate: Prob,
        seed: u64,
        window: u64,
    ) -> Self {
        let (s, d) = devices;
        let value = |p: Prob, default: f64| match p {
            Prob::Fixed(x) => x,
            Prob::Auto => default,
        };
        Hypro {
            ssd,
            p_sink: value(p_sink, DEFAULT_P_SINK),
            p_elevate: value(p_elevate, DEFAULT_P_ELEVATE),
            auto_sink: p_sink == Prob::Auto,
            auto_elevate: p_elevate == Prob::Auto,
            seed,
            rng: Pcg64::seed_from_u64(seed),
            window_len: window.max(1),
            windows: 0,
            now: 0,
            began: 0,
            passed: 0,
            tally: Tally::default(),
            residency: f64::INFINITY,
            left: Vec::new(),
            hit_in: Vec::new(),
            prices: [s.read, s.write, d.read, d.write],
            c_sinkf: 0.0,
            c_sinkd: 0.0,
        }
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

    /// The current window, from 1.
    fn window(&self) -> u64 {
        self.windows + 1
    }

    /// No sink has pushed a page off the SSD yet.
    fn filling(&self) -> bool {
        self.residency.is_infinite()
    }

    /// Little's law: how long a page takes to pass through the SSD when
    /// `passed` pages pass it in `requests`.
    fn passage(&self, requests: u64, passed: u64) -> f64 {
        self.ssd.capacity() as f64 * requests as f64 / passed as f64
    }

    /// Whether a page marked at request `at` is still followed.
    fn followed(&self, at: u64) -> bool {
        at != 0 && (self.now - at) as f64 <= self.residency
    }

    /// The SSD's residency: how long untouched pages lasted there.
    pub fn residency(&self) -> Option<u64> {
        self.residency.is_finite().then_some(self.residency as u64)
    }

    /// Eqs. 1–2 summed over window `t`'s evictions: `(C_sinkf, C_sinkd)`.
    /// A page pushed off the SSD stands for every eviction made while the
    /// SSD was full: its requests, averaged over the pages pushed off,
    /// count once per such eviction.
    fn sink_costs_of(&self, t: &Tally) -> (f64, f64) {
        let [fr, fw, dr, dw] = self.prices;
        let (rm, wm) = (t.r_m as f64, t.w_m as f64);
        let mut sinkf = t.evictions as f64 * fw + rm * fr + wm * fw;
        let mut sinkd = rm * dr + wm * dw;
        if t.displaced > 0 {
            let per = t.full as f64 / t.displaced as f64;
            let (rf, wf) = (t.r_f as f64 * per, t.w_f as f64 * per);
            sinkf += rf * dr + wf * dw;
            sinkd += rf * fr + wf * fw;
        }
        (sinkf, sinkd)
    }

    /// The window ends: decide from its evictions, returns and SSD hits.
    fn end_window(&mut self) {
        let [fr, fw, _, _] = self.prices;
        let done = self.tally;
        let (sinkf, sinkd) = self.sink_costs_of(&done);
        self.c_sinkf += sinkf;
        self.c_sinkd += sinkd;
        if self.auto_sink && done.evictions > 0 {
            self.p_sink = step(self.p_sink, sinkd, sinkf, SINK_RANGE, self.filling());
        }
        if self.auto_elevate && done.ssd_hits > 0 && done.evictions > 0 {
            // Each elevation demotes a page that DRAM evicts: it is expected
            // to be requested as often as this window's evicted pages.
            let per = done.ssd_hits as f64 / done.evictions as f64;
            let elev =
                done.ssd_hits as f64 * fw + per * (done.r_m as f64 * fr + done.w_m as f64 * fw);
            let stay = done.r_rep as f64 * fr + done.w_rep as f64 * fw;
            self.p_elevate = step(self.p_elevate, stay, elev, ELEVATE_RANGE, self.filling());
        }
        if !self.filling() && done.passed > 0 {
            self.residency = self.passage(self.now - self.began, done.passed);
        }
        self.tally = Tally::default();
        self.windows += 1;
        self.began = self.now;
    }

    /// `page` is followed no more: it was requested again.
    fn forget(&mut self, page: DenseId) {
        if let Some(m) = self.left.get_mut(page as usize) {
            *m = [0; 2];
        }
    }

    /// Sets mark `k` of `page` to `at`.
    fn mark(marks: &mut Vec<[u64; 2]>, page: DenseId, k: usize, at: u64) {
        let i = page as usize;
        if i >= marks.len() {
            marks.resize(i + 1, [0; 2]);
        }
        marks[i][k] = at;
    }

    #[inline]
    fn draw(&mut self) -> f64 {
        self.rng.random::<f64>()
    }
}

/// `p` moved up if not moving it costs more (`against`) than moving it
/// (`for_it`), else down: by their ratio, at most a factor `MOST` while the
/// SSD fills and `STEP` once it is full (module docs).
fn step(p: f64, against: f64, for_it: f64, (lo, hi): (f64, f64), filling: bool) -> f64 {
    let ratio = if for_it > 0.0 { against / for_it } else { MOST };
    let most = if filling { MOST } else { STEP };
    (p * ratio.clamp(1.0 / most, most)).clamp(lo, hi)
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
        let window = self.window();
        let t = &mut self.tally;
        t.ssd_hits += 1;
        let i = page as usize;
        if i >= self.hit_in.len() {
            self.hit_in.resize(i + 1, 0);
        }
        if self.hit_in[i] == window {
            match op {
                Op::Read => t.r_rep += 1,
                Op::Write => t.w_rep += 1,
            }
        }
        self.hit_in[i] = window;
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
        self.tally.passed += 1;
        self.passed += 1;
        io.ssd_serve(page, self.ssd.slot(page), op)?;
        Ok(Serve::OnSsd)
    }

    fn dram_evicted(&mut self, left: Leaving, io: &mut impl Io) -> Result<bool> {
        let Leaving { page, dirty, why } = left;
        if why == Reason::Flush {
            // DRAM and the SSD stay exclusive: a flushed page goes to the disk.
            if dirty {
                io.hdd_write(page)?;
            }
            return Ok(false);
        }
        let drew = why == Reason::Miss;
        if drew {
            let now = self.now;
            Self::mark(&mut self.left, page, LEFT_DRAM, now);
            self.tally.evictions += 1;
            self.tally.full += u64::from(self.ssd.is_full());
            if self.draw() >= self.p_sink {
                if dirty {
                    io.hdd_write(page)?;
                }
                return Ok(false);
            }
        }
        if self.ssd.is_full() {
            let v = self.ssd.evict_to_disk(io)?;
            if drew {
                let now = self.now;
                Self::mark(&mut self.left, v.page, LEFT_SSD, now);
                self.tally.displaced += 1;
                if self.filling() {
                    self.residency = self.passage(now, self.passed);
                }
            }
        }
        self.ssd.admit_written(page, dirty, io)?;
        self.tally.passed += 1;
        self.passed += 1;
        Ok(true)
    }

    #[inline]
    fn dram_request(&mut self, page: DenseId, op: Op) {
        if self.tally.evictions >= self.window_len {
            self.end_window();
        }
        self.now += 1;
        let i = page as usize;
        let [m, f] = self.left.get(i).copied().unwrap_or([0; 2]);
        let write = u64::from(op == Op::Write);
        if self.followed(m) {
            self.tally.r_m += 1 - write;
            self.tally.w_m += write;
        }
        if self.followed(f) {
            self.tally.r_f += 1 - write;
            self.tally.w_f += write;
        }
        // Only the first request counts: it is served by the SSD if the
        // page sank and by the disk if not, and brings it back into DRAM
        // in the second case; what follows depends on `p_elevate`. Every
        // request passes here first, so a page in DRAM or back on the SSD
        // never carries a mark.
        if m != 0 || f != 0 {
            self.forget(page);
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
        if let Some(h) = self.left.get(page as usize) {
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
