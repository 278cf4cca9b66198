//! FD-Buffer's M_c tuner (§4): a shadow stack per pool, sampled, cut
//! around each pool's boundary, whose hits there give the slope of the
//! pool's miss-ratio curve; every epoch M_c moves a step towards the pool
//! whose pages save more (module docs of [`super`]).

use super::Pool;
use crate::policy::costs::{CostSource, Costs};
use crate::policy::list::{Lists, NIL};
use crate::types::{DenseId, Op};

/// Shadow stacks per pool, cut around their boundaries, and the counts that
/// give the slope of each pool's miss-ratio curve there (module docs).
#[derive(Clone, Debug)]
pub(super) struct Tuner {
    /// Lists `3k + 1 ..= 3k + 3` are pool k's segments: positions
    /// `[1, b − Δ]`, `(b − Δ, b]`, `(b, b + Δ]`, in sampled pages.
    pub(super) l: Lists<6>,
    /// Δ in pages of the buffer (the step of M_c) and in sampled pages.
    step: usize,
    delta: usize,
    /// log2 of the sampling ratio S.
    shift: u32,
    epoch: u64,
    /// Requests left until the next decision (a countdown: the request
    /// path divides nothing).
    left: u64,
    /// [pool] -> (gain, loss) since the last decision (halved at each).
    counts: [(f64, f64); 2],
    pub(super) costs: Costs,
}

impl Tuner {
    pub(super) fn new(m: usize, epoch: u64, cost: CostSource) -> Self {
        let step = ((m as f64 / 32.0).round() as usize).max(1);
        let shift = (m / 512).clamp(1, 64).ilog2();
        Tuner {
            l: Lists::new(),
            step,
            delta: (step >> shift).max(1),
            shift,
            epoch: epoch.max(1),
            left: epoch.max(1),
            counts: [(0.0, 0.0); 2],
            costs: Costs::new(cost),
        }
    }

    pub(super) fn seg(pool: Pool, i: u8) -> u8 {
        match pool {
            Pool::Clean => 1 + i,
            Pool::Dirty => 4 + i,
        }
    }

    pub(super) fn pool_of(&self, page: DenseId) -> Option<Pool> {
        match self.l.list_of(page) {
            0 => None,
            1..=3 => Some(Pool::Clean),
            _ => Some(Pool::Dirty),
        }
    }

    /// Whether `page` is in the sample.
    #[inline]
    pub(super) fn sampled(&self, page: DenseId) -> bool {
        self.shift == 0 || page.wrapping_mul(0x9E37_79B9) >> (32 - self.shift) == 0
    }

    /// Sizes of pool `p`'s three segments for boundary `b` (in pages of the
    /// buffer), in sampled pages.
    pub(super) fn sizes(&self, b: usize) -> [usize; 3] {
        let b = (b + (1 << self.shift >> 1)) >> self.shift;
        let top = b.saturating_sub(self.delta);
        [top, b - top, self.delta]
    }

    /// Restores the segment sizes of pool `p` for boundary `b`: pages move
    /// between neighbouring segments, the ones past `b + Δ` are forgotten.
    pub(super) fn rebalance(&mut self, p: Pool, b: usize) {
        let sizes = self.sizes(b);
        for i in 0..2u8 {
            let (a, n) = (Self::seg(p, i), Self::seg(p, i + 1));
            let want = sizes[usize::from(i)];
            while self.l.len(a) > want {
                let t = self.l.tail(a);
                self.l.unlink(t);
                self.l.push_front(n, t);
                // The next overflow takes the new tail (just written) and
                // writes the node before it: start loading that one.
                let next = self.l.tail(a);
                if next != NIL {
                    self.l.prefetch(self.l.prev_of(next));
                }
            }
            while self.l.len(a) < want && self.l.len(n) > 0 {
                let h = self.l.head(n);
                self.l.unlink(h);
                self.l.push_back(a, h);
            }
        }
        let last = Self::seg(p, 2);
        while self.l.len(last) > sizes[2] {
            let t = self.l.tail(last);
            self.l.unlink(t);
            let next = self.l.tail(last);
            if next != NIL {
                self.l.prefetch(self.l.prev_of(next));
            }
        }
    }

    /// A request for `page` with `op`; `bounds` are the two pools' current
    /// boundaries (M_c, M − M_c).
    #[inline]
    pub(super) fn touch(&mut self, page: DenseId, op: Op, bounds: [usize; 2]) {
        self.left -= 1;
        if self.sampled(page) {
            self.touch_sampled(page, op, bounds);
        }
    }

    #[inline(never)]
    fn touch_sampled(&mut self, page: DenseId, op: Op, bounds: [usize; 2]) {
        let current = self.pool_of(page);
        let class = current.unwrap_or_else(|| {
            if op.is_write() {
                Pool::Dirty
            } else {
                Pool::Clean
            }
        });
        let k = class as usize;
        match self.l.list_of(page) {
            s if s == Self::seg(class, 1) => self.counts[k].1 += 1.0,
            s if s == Self::seg(class, 2) => self.counts[k].0 += 1.0,
            _ => {}
        }
        let next = if op.is_write() { Pool::Dirty } else { class };
        self.move_to_top(page, current, next, bounds);
    }

    /// Puts `page` on top of pool `to`'s stack (leaving `from`'s).
    pub(super) fn move_to_top(
        &mut self,
        page: DenseId,
        from: Option<Pool>,
        to: Pool,
        bounds: [usize; 2],
    ) {
        if from.is_some() {
            self.l.unlink(page);
        }
        self.l.push_front(Self::seg(to, 0), page);
        self.rebalance(to, bounds[to as usize]);
        if let Some(f) = from.filter(|&f| f != to) {
            self.rebalance(f, bounds[f as usize]);
        }
    }

    /// A page written back and kept moves to the clean pool's stack.
    pub(super) fn cleaned(&mut self, page: DenseId, bounds: [usize; 2]) {
        if self.pool_of(page) == Some(Pool::Dirty) {
            self.move_to_top(page, Some(Pool::Dirty), Pool::Clean, bounds);
        }
    }

    /// At the end of an epoch, the new M_c (module docs); else `mc`.
    #[inline]
    pub(super) fn decide(&mut self, mc: usize, m: usize) -> usize {
        if self.left != 0 {
            return mc;
        }
        self.left = self.epoch;
        self.decide_now(mc, m)
    }

    #[cold]
    fn decide_now(&mut self, mc: usize, m: usize) -> usize {
        let w = 1.0 + self.costs.asymmetry();
        let [(gain_c, loss_c), (gain_d, loss_d)] = self.counts;
        let grow_c = gain_c - w * loss_d;
        let grow_d = w * gain_d - loss_c;
        let next = if grow_c > 0.0 && grow_c >= grow_d && mc < m {
            (mc + self.step).min(m)
        } else if grow_d > 0.0 && mc > 0 {
            mc.saturating_sub(self.step)
        } else {
            mc
        };
        for c in &mut self.counts {
            c.0 /= 2.0;
            c.1 /= 2.0;
        }
        if next != mc {
            self.rebalance(Pool::Clean, next);
            self.rebalance(Pool::Dirty, m - next);
        }
        next
    }
}
