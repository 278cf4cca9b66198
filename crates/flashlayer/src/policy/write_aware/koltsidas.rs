//! The cost-segment buffer of Koltsidas & Viglas 2008, §5 (Figures 6–8):
//! a time segment in LRU order and a cost segment of the `λB` least
//! recently used pages, split into one queue per eviction-cost class —
//! FRQ, FWQ, MRQ, MWQ for clean and dirty pages of the flash and the
//! magnetic disk. The victim is the front (least recent page) of the
//! non-empty queue whose pages cost least to evict: `r` of their device,
//! plus `w` if dirty. Figure 8 hard-codes the order FRQ, MRQ, MWQ, FWQ for
//! Table 1's costs; here the order is computed from the [`PageCost`] each
//! page arrives with (its device's identity and prices), so any devices
//! work, and a store with one device gives two queues, clean and dirty.
//!
//! Layout for O(1) operations, as in CFLRU (`cflru.rs`): the time segment
//! is one LRU list; each class is an LRU list; a page leaves the time
//! segment at its LRU end into the back of its class queue, so each queue
//! stays in recency order. A stamp given as a page enters the segment (in
//! recency order, so entering order is recency order) keeps that order when
//! a cost-segment page changes class without an access (written back and
//! kept, modified at unfix, moved to another device: rare); a hit touches
//! no per-page record beyond the list node.
//!
//! Choices where the paper is silent, each tested:
//! - The cost segment holds `round(λB)` pages; `λ = 0` is LRU, `λ = 1`
//!   orders every page by eviction cost alone.
//! - With pinned pages, the front of a queue is its least recent evictable
//!   page; when no cost-segment page may go, the least recent evictable
//!   page of the time segment goes.
//! - Equal eviction costs: clean before dirty, then the lower device id.
//! - Devices with ids 0–3 get their own queues; higher ids share device 3's.
//!
//! `lambda=auto` follows §5's criterion: the cost segment pays off while
//! `r_m · H_m > r_f · M_f`, `H_m` the magnetic hits it adds over LRU and
//! `M_f` the flash misses it adds. We measure both against a shadow LRU of
//! `B` page ids (no data; from 1,024 pages on, one page in 16 by a hash of
//! its id against a shadow of `B/16`, SHARDS' spatial sampling): a hit on a page LRU would have evicted gains that
//! page's eviction cost (§5: `r`, plus `w` if it was dirty, which LRU would
//! have written back), and a miss on a page LRU would still hold loses the
//! eviction cost it had when we evicted it. This is the paper's inequality
//! extended to dirty pages and to any devices, as §5 says it can be. Every
//! `epoch` buffers of requests (`epoch · B`, default 4) λ takes a step of
//! 0.05 in the direction that raised the measured net gain per request over
//! the previous epoch (reversing when it fell), starting at 0.5 and bounded
//! to `[0, 1]`: hill climbing on the paper's criterion.

use crate::policy::list::{Lists, Saved, NIL};
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, DeviceId, Op, PageCost};

const TIME: u8 = 1;
/// Devices with their own queues.
const DEVICES: usize = 4;
/// The shadow LRU's one list.
const SHADOW: u8 = 1;

/// How λ is set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lambda {
    /// A fixed share of the buffer in `[0, 1]`.
    Fixed(f64),
    /// Adapted by §5's criterion every `epoch · B` requests (module docs).
    Auto {
        /// Buffers of requests between decisions.
        epoch: u64,
    },
}

/// Default buffers of requests between `lambda=auto` decisions.
pub const DEFAULT_LAMBDA_EPOCH: u64 = 4;
const STEP: f64 = 0.05;

/// Buffers of at least this many pages measure `lambda=auto`'s criterion
/// on a spatial sample of the pages (SHARDS, Waldspurger et al. FAST
/// 2015): one page in [`SAMPLE`], by a hash of its id, against a shadow LRU
/// of `B / SAMPLE` pages, which tracks an LRU of `B` pages on the sample.
/// Smaller buffers track every page.
const SAMPLE_FROM: usize = 1024;
/// One page in this many is sampled.
const SAMPLE: usize = 16;

/// Whether `page` is in the sample of a buffer of `cap` pages.
#[inline]
fn sampled(page: DenseId, cap: usize) -> bool {
    cap < SAMPLE_FROM || page.wrapping_mul(0x9E37_79B1) >> 28 == 0
}

/// The shadow LRU's size for a buffer of `cap` pages.
#[inline]
fn shadow_capacity(cap: usize) -> usize {
    if cap < SAMPLE_FROM {
        cap
    } else {
        cap / SAMPLE
    }
}

/// Queue of class (device, dirty).
#[inline]
fn queue(device: u8, dirty: bool) -> u8 {
    2 + 2 * device.min(DEVICES as u8 - 1) + u8::from(dirty)
}

/// A page's stamp (when it last entered the cost segment, which it enters
/// in recency order: its place when it changes class), its device, and (for `lambda=auto`) whether it was dirty when
/// last evicted.
#[derive(Clone, Copy, Debug, Default)]
struct Meta {
    stamp: u64,
    device: u8,
    evicted_dirty: bool,
}

#[derive(Clone, Debug)]
struct Tuner {
    epoch: u64,
    shadow: Lists<1>,
    /// Requests left in this epoch.
    left: u64,
    gain: f64,
    last_rate: Option<f64>,
    direction: f64,
}

/// The cost-segment buffer (module docs).
#[derive(Clone, Debug)]
pub struct Koltsidas {
    cap: usize,
    lambda: f64,
    segment: usize,
    l: Lists<{ 1 + 2 * DEVICES }>,
    /// Pages in the cost segment now.
    seg_len: usize,
    /// Per page, what the lists do not hold, in one record so a request
    /// touches one more cache line, not three.
    meta: Vec<Meta>,
    clock: u64,
    /// `(read, write)` of each device, from the costs pages arrive with.
    costs: [(f64, f64); DEVICES],
    /// Queues in increasing eviction cost.
    order: [u8; 2 * DEVICES],
    undo: Option<Saved>,
    tuner: Option<Tuner>,
}

impl Koltsidas {
    /// A buffer of `capacity` pages with a cost segment set by `lambda`.
    pub fn new(capacity: usize, lambda: Lambda) -> Self {
        let (l0, tuner) = match lambda {
            Lambda::Fixed(x) => (x.clamp(0.0, 1.0), None),
            Lambda::Auto { epoch } => (
                0.5,
                Some(Tuner {
                    epoch: epoch.max(1),
                    shadow: Lists::new(),
                    left: epoch.max(1) * capacity.max(1) as u64,
                    gain: 0.0,
                    last_rate: None,
                    direction: 1.0,
                }),
            ),
        };
        let mut k = Koltsidas {
            cap: capacity,
            lambda: l0,
            segment: 0,
            l: Lists::new(),
            seg_len: 0,
            meta: Vec::new(),
            clock: 0,
            costs: [(1.0, 1.0); DEVICES],
            order: [0; 2 * DEVICES],
            undo: None,
            tuner,
        };
        k.segment = k.segment_for(capacity);
        k.sort_queues();
        k
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        self.grow(pages.saturating_sub(1));
        if let Some(t) = self.tuner.as_mut() {
            t.shadow.reserve_pages(pages);
        }
        self
    }

    /// λ now.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// The cost segment's size in pages, `round(λB)`.
    pub fn segment(&self) -> usize {
        self.segment
    }

    /// Resident pages from MRU to LRU, each with whether it is in the cost
    /// segment.
    pub fn order(&self) -> Vec<(DenseId, bool)> {
        let mut seg: Vec<DenseId> = (2..=2 * DEVICES as u8)
            .flat_map(|q| self.l.iter(q))
            .collect();
        seg.sort_by_key(|&p| std::cmp::Reverse(self.meta[p as usize].stamp));
        self.l
            .iter(TIME)
            .map(|p| (p, false))
            .chain(seg.into_iter().map(|p| (p, true)))
            .collect()
    }

    fn segment_for(&self, cap: usize) -> usize {
        (self.lambda * cap as f64).round() as usize
    }

    fn grow(&mut self, i: usize) {
        if i >= self.meta.len() {
            let n = (i + 1).max(self.meta.len() * 2);
            self.meta.resize(n, Meta::default());
        }
    }

    /// Orders the class queues by eviction cost (stable: clean before
    /// dirty, then by device).
    fn sort_queues(&mut self) {
        let mut qs: Vec<(f64, bool, u8)> = Vec::with_capacity(2 * DEVICES);
        for d in 0..DEVICES as u8 {
            let (r, w) = self.costs[usize::from(d)];
            qs.push((r, false, d));
            qs.push((r + w, true, d));
        }
        qs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        for (i, &(_, dirty, d)) in qs.iter().enumerate() {
            self.order[i] = queue(d, dirty);
        }
    }

    /// Learns the costs of the device `cost` names.
    #[inline]
    fn price(&mut self, page: DenseId, cost: PageCost) {
        let d = cost.device.0.min(DEVICES as u8 - 1);
        self.meta[page as usize].device = d;
        if self.costs[usize::from(d)] != (cost.read, cost.write) {
            self.costs[usize::from(d)] = (cost.read, cost.write);
            self.sort_queues();
        }
    }

    /// Moves time-segment LRU pages to the back of their class queue until
    /// the cost segment holds `segment` pages.
    #[inline]
    fn refill(&mut self) {
        while self.seg_len < self.segment {
            let t = self.l.tail(TIME);
            if t == NIL {
                break;
            }
            self.l.unlink(t);
            self.clock += 1;
            let m = &mut self.meta[t as usize];
            m.stamp = self.clock;
            let q = queue(m.device, self.l.is_dirty(t));
            self.l.push_front(q, t);
            self.seg_len += 1;
            // The next refill takes the new tail (its node is in cache:
            // unlinking `t` just wrote it), reads its record and writes the
            // node before it: start loading those two now.
            let next = self.l.tail(TIME);
            if next != NIL {
                crate::policy::list::prefetch(&self.meta[next as usize]);
                // And the record of the one after: a refill comes about
                // once a miss, too soon to wait for one load.
                let after = self.l.prev_of(next);
                if after != NIL {
                    self.l.prefetch(after);
                    crate::policy::list::prefetch(&self.meta[after as usize]);
                }
            }
        }
    }

    /// A cost-segment page whose class changed moves to its new queue, in
    /// recency order.
    fn refile(&mut self, page: DenseId) {
        let list = self.l.list_of(page);
        if list <= TIME {
            return;
        }
        let to = queue(self.meta[page as usize].device, self.l.is_dirty(page));
        if to == list {
            return;
        }
        self.l.unlink(page);
        let s = self.meta[page as usize].stamp;
        let mut cur = self.l.head(to);
        while cur != NIL && self.meta[cur as usize].stamp > s {
            cur = self.l.next_of(cur);
        }
        self.l.insert_before(to, page, cur);
    }

    /// Sets λ and the segment size; a smaller segment gives its most recent
    /// pages back to the time segment's LRU end.
    fn set_lambda(&mut self, lambda: f64) {
        self.lambda = lambda.clamp(0.0, 1.0);
        self.segment = self.segment_for(self.cap);
        while self.seg_len > self.segment {
            let newest = (2..=2 * DEVICES as u8)
                .map(|q| self.l.head(q))
                .filter(|&h| h != NIL)
                .max_by_key(|&h| self.meta[h as usize].stamp);
            let Some(p) = newest else { break };
            self.l.unlink(p);
            self.l.push_back(TIME, p);
            self.seg_len -= 1;
        }
        self.refill();
    }

    /// `lambda=auto`: one request's effect against the shadow LRU; `dirty`
    /// says whether the page was dirty before a hit.
    #[inline]
    fn observe(&mut self, page: DenseId, hit: bool, dirty: bool) {
        if self.tuner.is_none() {
            return;
        }
        if sampled(page, self.cap) {
            self.shadow_step(page, hit, dirty);
        }
        let Some(t) = self.tuner.as_mut() else {
            return;
        };
        // Counted down rather than divided: a division on every request
        // costs more than the rest of this step.
        t.left = t.left.saturating_sub(1);
        if t.left == 0 {
            let epoch = t.epoch * self.cap.max(1) as u64;
            t.left = epoch;
            let rate = t.gain / epoch as f64;
            if let Some(last) = t.last_rate {
                if rate < last {
                    t.direction = -t.direction;
                }
            }
            t.last_rate = Some(rate);
            t.gain = 0.0;
            let next = (self.lambda + t.direction * STEP).clamp(0.0, 1.0);
            if next == self.lambda {
                t.direction = -t.direction;
            }
            self.set_lambda(next);
        }
    }

    /// One sampled page's request against the shadow LRU of
    /// [`shadow_capacity`] pages.
    #[inline]
    fn shadow_step(&mut self, page: DenseId, hit: bool, dirty: bool) {
        let cap = shadow_capacity(self.cap);
        let Some(t) = self.tuner.as_mut() else {
            return;
        };
        let in_lru = t.shadow.list_of(page) == SHADOW;
        if hit != in_lru {
            // A page the shadow holds has been admitted, so its device is
            // known.
            let m = self.meta[page as usize];
            let (r, w) = self.costs[usize::from(m.device)];
            if hit {
                t.gain += r + if dirty { w } else { 0.0 };
            } else {
                t.gain -= r + if m.evicted_dirty { w } else { 0.0 };
            }
        }
        if in_lru {
            t.shadow.move_front(SHADOW, page);
        } else {
            t.shadow.push_front(SHADOW, page);
            while t.shadow.len(SHADOW) > cap {
                let old = t.shadow.tail(SHADOW);
                t.shadow.remove(old);
            }
            // The next page to leave the shadow is its new tail (in cache);
            // removing it writes the node before it: load that now.
            let tail = t.shadow.tail(SHADOW);
            if tail != NIL {
                t.shadow.prefetch(t.shadow.prev_of(tail));
            }
        }
    }
}

impl Policy for Koltsidas {
    fn name(&self) -> String {
        match self.tuner {
            Some(_) => "Koltsidas(auto)".into(),
            None => format!("Koltsidas({})", self.lambda),
        }
    }
    crate::policy::list::list_policy_basics!(lists, own prefetch);
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
        self.set_lambda(self.lambda);
    }
    fn len(&self) -> usize {
        self.l.len(TIME) + self.seg_len
    }
    #[inline]
    fn prefetch(&self, page: DenseId) {
        self.l.prefetch(page);
        if let Some(m) = self.meta.get(page as usize) {
            crate::policy::list::prefetch(m);
        }
        if let Some(t) = self.tuner.as_ref() {
            if sampled(page, self.cap) {
                t.shadow.prefetch(page);
            }
        }
    }

    // Always inlined into the caller's loop (cachegrind: 4% fewer
    // instructions on the benchmark trace).
    #[inline(always)]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        let list = self.l.list_of(page);
        if list == 0 {
            // Counted at `insert`: an announced miss leaves no trace.
            return false;
        }
        let was_dirty = self.l.is_dirty(page);
        self.l.dirty_if_write(page, op);
        if list == TIME {
            self.l.move_front(TIME, page);
        } else {
            self.l.unlink(page);
            self.seg_len -= 1;
            self.l.push_front(TIME, page);
            self.refill();
        }
        self.observe(page, true, was_dirty);
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.grow(page as usize);
        self.price(page, cost);
        self.l.admit(TIME, page, op);
        self.refill();
        self.observe(page, false, false);
    }

    #[inline]
    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let mut page = None;
        for i in 0..self.order.len() {
            let q = self.order[i];
            if self.l.len(q) == 0 {
                continue;
            }
            if let Some(p) = self.l.find_from_back(q, &mut evictable) {
                page = Some(p);
                break;
            }
        }
        let page = match page {
            Some(p) => p,
            None => self.l.find_from_back(TIME, &mut evictable)?,
        };
        // The segment is refilled by the next insert, so undoing this
        // eviction only has to put the victim back.
        self.seg_len -= usize::from(self.l.list_of(page) > TIME);
        let victim = self.l.remove_saving(page, &mut self.undo);
        // Only `lambda=auto` reads it, and only for sampled pages: the
        // victim's record is not in cache.
        if self.tuner.is_some() && sampled(page, self.cap) {
            self.meta[page as usize].evicted_dirty = victim.dirty;
        }
        Some(victim)
    }

    fn reinstate(&mut self, _victim: Victim) {
        if let Some(s) = self.l.restore_saved(&mut self.undo) {
            self.seg_len += usize::from(self.l.list_of(s.page()) > TIME);
        }
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.contains(page) {
            self.l.set_dirty(page, true);
            self.refile(page);
        }
    }
    fn mark_clean(&mut self, page: DenseId, cost: PageCost) {
        if self.contains(page) {
            self.l.set_dirty(page, false);
            self.price(page, cost);
            self.refile(page);
        }
    }
    fn reprice(&mut self, page: DenseId, cost: PageCost) {
        if self.contains(page) {
            self.price(page, cost);
            self.refile(page);
        }
    }
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        if !self.contains(page) {
            return None;
        }
        self.seg_len -= usize::from(self.l.list_of(page) > TIME);
        let dirty = self.l.remove(page);
        self.refill();
        Some(dirty)
    }
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("lambda", self.lambda));
    }
}

// The policy's spec (`policy/named.rs`).

const LAMBDA: crate::spec::Param = crate::spec::Param {
    key: "lambda",
    ty: crate::spec::Ty::FractionOrAuto,
    default: "auto",
    help: "size of the cost segment (0: LRU); auto adapts it by §5's criterion r_m·H_m > r_f·M_f",
};
const LAMBDA_EPOCH: crate::spec::Param = crate::spec::Param {
    key: "epoch",
    ty: crate::spec::Ty::Int(1, crate::spec::NO_MAX),
    default: "4",
    help: "with lambda=auto: requests between adjustments of λ, in multiples of the buffer size",
};

impl crate::policy::Named for Koltsidas {
    const SERVES: crate::policy::Serves = Serves::ONLINE;
    const ENTRY: crate::spec::Entry = crate::spec::Entry {
        name: "koltsidas",
        description: "cost-segment buffer, Koltsidas & Viglas 2008 §5: a time segment in LRU order and a cost segment of the λB least recent pages, evicted cheapest class first",
        params: &[LAMBDA, LAMBDA_EPOCH],
    };
    type Params = Lambda;
    fn params(g: &crate::spec::Given) -> crate::error::Result<Self::Params> {
        match g.fraction_or_auto("lambda") {
            Some(_) if g.has("epoch") => Err(g.error("'epoch' applies only with lambda=auto")),
            Some(x) => Ok(Lambda::Fixed(x)),
            None => Ok(Lambda::Auto {
                epoch: g.int("epoch"),
            }),
        }
    }
    fn build(p: Self::Params, capacity: usize, pages: usize) -> crate::error::Result<Self> {
        Ok(Koltsidas::new(capacity, p).with_pages(pages))
    }
    fn canonical(g: &crate::spec::Given) -> String {
        let keys: &[&str] = match g.fraction_or_auto("lambda") {
            Some(_) => &["lambda"],
            None => &["lambda", "epoch"],
        };
        crate::policy::named::canonical(g, keys.iter().copied())
    }
}

/// Table 1's costs of a page on the flash disk, normalised to a flash read,
/// sequential writes priced as random ones: the costs Figure 8's order and
/// the worked examples assume.
pub const TABLE_1_FLASH: PageCost = PageCost {
    read: 1.0,
    write: 118.0,
    seq_write: 118.0,
    device: DeviceId::FLASH,
};

/// Table 1's costs of a page on the magnetic disk, as [`TABLE_1_FLASH`].
pub const TABLE_1_MAGNETIC: PageCost = PageCost {
    read: 23.0,
    write: 12.0,
    seq_write: 12.0,
    device: DeviceId::MAGNETIC,
};

#[cfg(test)]
mod tests {
    use super::*;

    const FLASH: PageCost = TABLE_1_FLASH;
    const MAGNETIC: PageCost = TABLE_1_MAGNETIC;

    /// A full buffer whose cost segment is all of it, holding pages 1, 2,
    /// … admitted in that order as `pages` says.
    fn whole_segment(pages: &[(Op, PageCost)]) -> Koltsidas {
        let mut k = Koltsidas::new(pages.len(), Lambda::Fixed(1.0));
        for (p, &(op, cost)) in (1..).zip(pages) {
            k.insert(p, op, cost);
        }
        k
    }

    /// Every page of `k`, in the order it evicts them.
    fn victims(k: &mut Koltsidas) -> Vec<DenseId> {
        (0..k.len())
            .map(|_| k.evict(|_| true).unwrap().page)
            .collect()
    }

    /// Figure 8's order for Table 1's costs comes out of the costs:
    /// FRQ (1), MRQ (23), MWQ (35), FWQ (119).
    #[test]
    fn eviction_order_follows_eviction_cost_as_figure_8() {
        let mut k = whole_segment(&[
            (Op::Write, FLASH),
            (Op::Write, MAGNETIC),
            (Op::Read, MAGNETIC),
            (Op::Read, FLASH),
        ]);
        assert_eq!(victims(&mut k), vec![4, 3, 2, 1]);
    }

    #[test]
    fn lambda_zero_is_lru_and_the_segment_holds_the_least_recent_pages() {
        let mut k = Koltsidas::new(4, Lambda::Fixed(0.0));
        for p in 1..=4 {
            k.insert(p, Op::Read, if p % 2 == 0 { FLASH } else { MAGNETIC });
        }
        assert_eq!(k.evict(|_| true).unwrap().page, 1);
        let mut k = Koltsidas::new(4, Lambda::Fixed(0.5));
        for p in 1..=4 {
            k.insert(p, Op::Read, if p <= 2 { MAGNETIC } else { FLASH });
        }
        assert_eq!(k.segment(), 2);
        assert_eq!(
            k.order(),
            vec![(4, false), (3, false), (2, true), (1, true)]
        );
        // Pages 1 and 2 (magnetic) are the segment: 1 goes though the time
        // segment holds cheaper flash pages.
        assert_eq!(k.evict(|_| true).unwrap().page, 1);
        // A hit moves a segment page back to the time segment, whose LRU
        // page takes its place.
        k.insert(5, Op::Read, FLASH);
        assert!(k.access(2, Op::Read));
        assert_eq!(
            k.order(),
            vec![(2, false), (5, false), (4, true), (3, true)]
        );
    }

    #[test]
    fn a_page_that_moves_to_flash_is_refiled_in_recency_order() {
        let mut k = whole_segment(&[
            (Op::Read, MAGNETIC),
            (Op::Read, MAGNETIC),
            (Op::Read, FLASH),
        ]);
        k.reprice(1, FLASH);
        // Both flash pages go before the magnetic one, least recent first.
        assert_eq!(victims(&mut k), vec![1, 3, 2]);
    }
}

#[cfg(test)]
mod auto_tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn run(trace: &[(u32, bool)], cap: usize) -> (f64, f64) {
        let mut k = Koltsidas::new(cap, Lambda::Auto { epoch: 20 });
        let mut cost = 0.0;
        for &(p, flash) in trace {
            if !k.access(p, Op::Read) {
                let c = if flash {
                    TABLE_1_FLASH
                } else {
                    TABLE_1_MAGNETIC
                };
                cost += c.read;
                if k.len() >= k.capacity() {
                    k.evict(|_| true);
                }
                k.insert(p, Op::Read, c);
            }
        }
        (k.lambda(), cost)
    }

    #[test]
    fn auto_grows_the_cost_segment_when_both_disks_are_equally_hot() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
        // Query set A's shape: flash and magnetic pages equally likely.
        let t: Vec<(u32, bool)> = (0..200_000)
            .map(|_| {
                let p = rng.random_range(0..400u32);
                (p, p % 2 == 0)
            })
            .collect();
        let (lambda, _) = run(&t, 100);
        assert!(lambda >= 0.8, "λ = {lambda}");
    }

    #[test]
    fn auto_shrinks_the_cost_segment_when_hot_flash_pages_would_be_evicted() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(2);
        // Hot flash pages (90% of requests) and a cold magnetic tail: the
        // cost segment would evict the hot flash pages for nothing.
        let t: Vec<(u32, bool)> = (0..200_000)
            .map(|_| {
                if rng.random_bool(0.9) {
                    (rng.random_range(0..60u32), true)
                } else {
                    (1000 + rng.random_range(0..5000u32), false)
                }
            })
            .collect();
        let (lambda, _) = run(&t, 80);
        assert!(lambda <= 0.3, "λ = {lambda}");
    }
}
