//! CASA, cost-aware self-adaptive buffer management (Ou & Härder 2010),
//! exactly as its Algorithm 1: a clean list C and a dirty list D, each in
//! recency order, and a target size τ of C, `0 ≤ τ ≤ B`, starting at 0.
//!
//! - A read hit in C raises τ by `c_R·|D|/|C|` (capped at B); a write hit in
//!   D lowers it by `c_W·|C|/|D|` (floored at 0); no other request changes
//!   τ. A write hit in C moves the page to D; any hit moves the page to the
//!   MRU end of its (new) list.
//! - The victim is the LRU page of C if `|C| > τ`, else the LRU page of D.
//! - A read miss enters C, a write miss D.
//!
//! `c_R + c_W = 1` in the ratio of the device's read and write costs (§4.2):
//! with `cost=model` from the [`PageCost`] of the page last admitted (one
//! device, so one ratio); with `cost=measured` from an `n`-point moving
//! average of each kind of latency the store measured (§5.3), reported
//! through [`Policy::observe_io`]. Until both a read and a write have been
//! measured the ratio is taken as 1:1.
//!
//! Choices where the paper is silent, each tested:
//! - When the list Algorithm 1 chooses has no page the caller may evict
//!   (all pinned), the LRU evictable page of the other list is taken.
//! - A page modified without a new access (the buffer pool's update flag)
//!   moves to the MRU end of D, as a write hit in C does, without changing
//!   τ; a dirty page written back that stays resident moves to the MRU end
//!   of C (its recency is kept, as far as one list end allows).
//! - Traces captured from PostgreSQL carry an `R` and then a `W` for a fix
//!   that modifies its page; CASA sees them as a read hit followed by a
//!   write hit, so such a page in C first counts as a read hit (τ rises by
//!   `c_R·|D|/|C|`) and then moves to D. A buffer manager with the update
//!   flag of §4.3 would see one write request instead; generated traces
//!   have that form (one request per fix).
//!
//! The time series samples `tau` and `clean` (|C|), for CASA Fig. 3, the
//! running counts `read_hits_c` and `write_hits_d` of the two events that
//! move τ, and
//! with `cost=measured` the averages `read_cost` and `write_cost` (µs), for
//! Fig. 5.

use crate::policy::costs::Costs;
use crate::policy::list::{Lists, Saved};
use crate::policy::spec::CostSource;
use crate::policy::{Ahead, Neighbours, Serves};
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, IoKind, Op, PageCost};

const C: u8 = 1;
const D: u8 = 2;

/// Cost-aware self-adaptive replacement.
#[derive(Clone, Debug)]
pub struct Casa {
    cap: usize,
    l: Lists<2>,
    tau: f64,
    costs: Costs,
    undo: Option<Saved>,
    /// Read hits in C and write hits in D so far: the two events that move
    /// τ, sampled so a report can show which side drives it.
    raises: u64,
    lowers: u64,
}

impl Casa {
    /// A buffer of `capacity` pages taking its costs from `cost`.
    pub fn new(capacity: usize, cost: CostSource) -> Self {
        Casa {
            cap: capacity,
            l: Lists::new(),
            tau: 0.0,
            costs: Costs::new(cost),
            undo: None,
            raises: 0,
            lowers: 0,
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        self
    }

    /// τ, the target size of the clean list.
    pub fn tau(&self) -> f64 {
        self.tau
    }

    /// |C|, the size of the clean list.
    pub fn clean_len(&self) -> usize {
        self.l.len(C)
    }

    /// The normalised costs `(c_R, c_W)` in use now.
    pub fn costs(&self) -> (f64, f64) {
        self.costs.normalised()
    }

    /// (C, D), each from MRU to LRU.
    pub fn lists(&self) -> (Vec<DenseId>, Vec<DenseId>) {
        (self.l.iter(C).collect(), self.l.iter(D).collect())
    }
}

impl Policy for Casa {
    /// The dirty list D from its least recently used end. Which clean
    /// pages its evictions pass between those depends on τ as they
    /// happen, so it knows no bounded window.
    fn dirty_ahead(&self, want: Ahead, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) -> bool {
        want.window == usize::MAX && self.l.dirty_from_tails(&[D], want, |_| true, pages, out)
    }

    crate::policy::list::list_policy_basics!("CASA", lists);
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
        self.tau = self.tau.min(capacity as f64);
    }
    fn len(&self) -> usize {
        self.l.len(C) + self.l.len(D)
    }

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        let (c, d) = (self.l.len(C) as f64, self.l.len(D) as f64);
        match (self.l.list_of(page), op) {
            (0, _) => return false,
            (C, Op::Read) => {
                let c_r = self.costs.normalised().0;
                self.tau = (self.tau + c_r * d / c).min(self.cap as f64);
                self.raises += 1;
                self.l.move_front(C, page);
            }
            (C, Op::Write) => {
                self.l.unlink(page);
                self.l.push_front(D, page);
                self.l.set_dirty(page, true);
            }
            (_, Op::Write) => {
                let c_w = self.costs.normalised().1;
                self.tau = (self.tau - c_w * c / d).max(0.0);
                self.lowers += 1;
                self.l.move_front(D, page);
            }
            (_, Op::Read) => self.l.move_front(D, page),
        }
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.costs.admitted(cost);
        let list = if op.is_write() { D } else { C };
        self.l.admit(list, page, op);
    }

    #[inline]
    fn evict<F: FnMut(DenseId) -> bool>(&mut self, evictable: F) -> Option<Victim> {
        let (first, second) = if self.l.len(C) as f64 > self.tau {
            (C, D)
        } else {
            (D, C)
        };
        let page = self.l.find_from_backs(&[first, second], evictable)?;
        Some(self.l.remove_saving(page, &mut self.undo))
    }

    fn reinstate(&mut self, _victim: Victim) {
        self.l.restore_saved(&mut self.undo);
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.l.list_of(page) == C {
            self.l.unlink(page);
            self.l.push_front(D, page);
            self.l.set_dirty(page, true);
        }
    }
    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        if self.l.list_of(page) == D {
            self.l.unlink(page);
            self.l.push_front(C, page);
            self.l.set_dirty(page, false);
        }
    }
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.contains(page).then(|| self.l.remove(page))
    }

    /// The clean list's LRU end: the first clean page its evictions take
    /// (τ decides when they take from C).
    fn has_cold_end(&self) -> bool {
        true
    }
    fn insert_cold(&mut self, page: DenseId, cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.costs.admitted(cost);
        self.l.push_back(C, page);
        self.l.set_dirty(page, false);
    }

    fn reprice(&mut self, _page: DenseId, cost: PageCost) {
        self.costs.admitted(cost);
    }

    fn observe_io(&mut self, kind: IoKind, cost: f64) {
        self.costs.observed(kind, cost);
    }

    fn needs_measured_io(&self) -> bool {
        self.costs.is_measured()
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("tau", self.tau));
        out.push(("clean", self.l.len(C) as f64));
        out.push(("read_hits_c", self.raises as f64));
        out.push(("write_hits_d", self.lowers as f64));
        if let Some((read, write)) = self.costs.averages() {
            // The moving averages of measured latencies (µs), CASA Fig. 5.
            out.push(("read_cost", read));
            out.push(("write_cost", write));
        }
    }
}

// The policy's spec (`policy/named.rs`).

impl crate::policy::Named for Casa {
    const SERVES: crate::policy::Serves = Serves::ACE_BASE;
    const ENTRY: crate::spec::Entry = crate::spec::Entry {
        name: "casa",
        description: "cost-aware self-adaptive, Ou & Härder 2010: clean and dirty lists, target |C| = τ tuned by hits",
        params: &[crate::policy::costs::COST, crate::policy::costs::N],
    };
    type Params = CostSource;
    fn params(g: &crate::spec::Given) -> crate::error::Result<Self::Params> {
        crate::policy::costs::cost_source(g)
    }
    fn build(p: Self::Params, capacity: usize, pages: usize) -> crate::error::Result<Self> {
        Ok(Casa::new(capacity, p).with_pages(pages))
    }
    fn canonical(g: &crate::spec::Given) -> String {
        crate::policy::costs::canonical_with_cost(g, &[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page read ahead enters C at its LRU end: the first clean page
    /// CASA's evictions take, once τ lets them take from C.
    #[test]
    fn a_page_read_ahead_is_the_first_clean_page_evicted() {
        let c = PageCost::new(1.0, 1.0);
        let mut casa = Casa::new(4, CostSource::Model);
        casa.insert(1, Op::Read, c);
        casa.insert(2, Op::Read, c);
        casa.insert(3, Op::Write, c);
        casa.insert_cold(9, c);
        assert!(!casa.is_dirty(9));
        let (clean, dirty) = casa.lists();
        assert_eq!((clean, dirty), (vec![2, 1, 9], vec![3]));
        let first_clean = (0..4)
            .map(|_| casa.evict(|_| true).unwrap())
            .find(|v| !v.dirty)
            .unwrap();
        assert_eq!(first_clean.page, 9);
    }

    /// Algorithm 1 by hand: B = 4, read 1 and write 3, so c_R = 0.25 and
    /// c_W = 0.75. Each row: request, hit, victim, τ after, |C| after.
    #[test]
    fn tau_follows_a_hand_worked_example_step_by_step() {
        let cost = PageCost::new(1.0, 3.0);
        let (r, w) = (Op::Read, Op::Write);
        type Step = (u32, Op, bool, Option<(u32, bool)>, f64, usize);
        #[rustfmt::skip]
        let steps: &[Step] = &[
            (1, r, false, None, 0.0, 1),
            (2, r, false, None, 0.0, 2),
            (3, w, false, None, 0.0, 2),
            // Read hit in C: τ += 0.25 · |D|/|C| = 0.25 · 1/2.
            (1, r, true, None, 0.125, 2),
            // Write hit in D: τ −= 0.75 · |C|/|D| = 1.5, floored at 0.
            (3, w, true, None, 0.0, 2),
            // Write hit in C: the page moves to D, τ stays.
            (2, w, true, None, 0.0, 1),
            (4, r, false, None, 0.0, 2),
            // |C| = 2, |D| = 2: each read hit in C adds 0.25.
            (1, r, true, None, 0.25, 2),
            // Full: |C| = 2 > τ, so C's LRU page (4) goes, clean.
            (5, r, false, Some((4, false)), 0.25, 2),
            // A read hit in D moves nothing between lists and leaves τ.
            (3, r, true, None, 0.25, 2),
            (1, r, true, None, 0.5, 2),
            (5, r, true, None, 0.75, 2),
            (1, r, true, None, 1.0, 2),
            (5, r, true, None, 1.25, 2),
            (1, r, true, None, 1.5, 2),
            (5, r, true, None, 1.75, 2),
            (1, r, true, None, 2.0, 2),
            // |C| = 2 is not above τ = 2: D's LRU page (2) goes, dirty.
            (6, r, false, Some((2, true)), 2.0, 3),
        ];
        let mut casa = Casa::new(4, CostSource::Model);
        for (i, &(page, op, hit, victim, tau, clean)) in steps.iter().enumerate() {
            assert_eq!(casa.access(page, op), hit, "step {i}");
            if !hit {
                let v = if casa.len() == casa.capacity() {
                    casa.evict(|_| true).map(|v| (v.page, v.dirty))
                } else {
                    None
                };
                assert_eq!(v, victim, "step {i}");
                casa.insert(page, op, cost);
            }
            assert!(
                (casa.tau() - tau).abs() < 1e-12,
                "step {i}: τ = {}",
                casa.tau()
            );
            assert_eq!(casa.clean_len(), clean, "step {i}");
        }
        assert_eq!(casa.costs(), (0.25, 0.75));
    }

    /// A captured PostgreSQL fix that modifies its page arrives as `R p`
    /// then `W p`: one read hit in C (τ credited once), then the page moves
    /// to D with no further change of τ; a page already in D is charged by
    /// its `W` alone, exactly as a single `W` request would be.
    #[test]
    fn a_captured_read_then_write_of_one_fix_is_one_read_hit_and_a_move() {
        let cost = PageCost::new(1.0, 1.0);
        let mut casa = Casa::new(8, CostSource::Model);
        for (p, op) in [(1, Op::Read), (2, Op::Read), (3, Op::Write)] {
            assert!(!casa.access(p, op));
            casa.insert(p, op, cost);
        }
        // Page 1 in C, |C| = 2, |D| = 1: the R earns 0.5 · 1/2.
        assert!(casa.access(1, Op::Read));
        assert_eq!(casa.tau(), 0.25);
        assert!(casa.access(1, Op::Write));
        assert_eq!(
            casa.tau(),
            0.25,
            "the W of the same fix moves the page only"
        );
        assert_eq!(casa.lists(), (vec![2], vec![1, 3]));
        // Page 3 in D: its R changes nothing, its W is a write hit in D.
        assert!(casa.access(3, Op::Read));
        assert!(casa.access(3, Op::Write));
        assert_eq!(casa.tau(), 0.0, "0.25 - 0.5 · 1/2");
    }

    /// With `cost=measured`, c_R : c_W follows the moving averages of the
    /// latencies observed, over the last n of each kind only.
    #[test]
    fn measured_costs_converge_to_the_observed_latencies() {
        let mut casa = Casa::new(4, CostSource::Measured { n: 4 });
        assert!(casa.needs_measured_io());
        assert_eq!(casa.costs(), (0.5, 0.5), "1:1 until both kinds are seen");
        casa.observe_io(IoKind::Read, 100.0);
        assert_eq!(casa.costs(), (0.5, 0.5));
        casa.observe_io(IoKind::Write, 300.0);
        assert_eq!(casa.costs(), (0.25, 0.75));
        // Old, slow reads leave the 4-point window.
        for _ in 0..4 {
            casa.observe_io(IoKind::Read, 50.0);
        }
        let (cr, cw) = casa.costs();
        assert!((cr - 50.0 / 350.0).abs() < 1e-12 && (cw - 300.0 / 350.0).abs() < 1e-12);
        // The model's costs at admission are ignored when measuring.
        casa.insert(1, Op::Read, PageCost::new(1.0, 1.0));
        assert_eq!(casa.costs(), (cr, cw));
    }
}
