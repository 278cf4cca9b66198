//! costopt-ub: an offline policy for writeback-aware caching that evicts by
//! rent. It is the schedule half of [`crate::bound`]: the planner there
//! chooses the rent, this policy replays it, so the upper bound it reports
//! is the cost of a real run of `sim`.
//!
//! Keeping a page in the buffer from now until its next use occupies a frame
//! over that stretch of the trace. Each request `t` has a price `μ_t ≥ 0`
//! for a frame held across it (the Lagrange multipliers of the buffer's
//! capacity, [`crate::bound`]); the rent of keeping page `q` until its next
//! use `n_q` is `Σ_{now<τ<n_q} μ_τ`, the rent of a page never used again
//! runs to the end of the trace. Evicting `q` instead loses
//!
//! - the read cost `r`, if `q` is used again;
//! - the write cost `w`, if `q` is dirty and either is written again later
//!   (keeping it would fold the two writes into one write-back) or the run
//!   ends without a flush (kept to the end, it would never be written).
//!
//! The victim is the resident page whose rent exceeds its loss the most.
//! Rent is a difference of prefix sums `P[n_q] − P[now+1]`; the second term
//! is common to every candidate, so each page's priority `P[n_q] − loss_q`
//! changes only when the page is requested, and the resident pages sit in
//! an indexed heap: O(log B) per request. Among equal priorities the page
//! used again later leaves first.
//!
//! With a rent that grows faster than any loss (`μ ≡ 2(r + w)`), the
//! priority orders pages by next use and, among pages never used again,
//! clean before dirty: Belady's MIN, at Belady's cost. The planner always
//! tries that rent too, so costopt-ub never costs more than Belady.

use super::belady::{zeroed, Words};
use crate::policy::heap::KeyHeap;
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{unpack, DenseId, Op, PageCost};

/// Subgradient iterations of the planner by default (`costopt-ub`'s
/// `iterations`, the bound's).
pub const DEFAULT_ITERATIONS: usize = 100;

const NEVER: u32 = u32::MAX;

/// What the offline policies know of a trace's future: each request's next
/// use of the same page and whether that page is written again later.
#[derive(Clone, Debug)]
pub struct Future<'a> {
    pub(crate) words: Words<'a>,
    /// Per request: the index of the same page's next request, or 0 if none.
    next_use: Vec<u32>,
    /// Per request, one bit: the same page is written again later.
    later_write: Vec<u64>,
    /// Distinct pages (one more than the largest dense id).
    pages: usize,
}

impl<'a> Future<'a> {
    /// One backward pass over the packed words of an `flt` file's request
    /// section.
    pub fn from_bytes(bytes: &'a [u8], pages: usize) -> crate::Result<Self> {
        Self::build(Words::Bytes(bytes.as_chunks().0), pages)
    }

    /// One backward pass over packed request words.
    pub fn new(words: &'a [u32]) -> crate::Result<Self> {
        Self::build(Words::Packed(words), 0)
    }

    fn build(words: Words<'a>, pages: usize) -> crate::Result<Self> {
        let len = words.len();
        if len >= NEVER as usize {
            return Err(crate::Error::invalid(
                "costopt supports fewer than 2^32 - 1 requests",
            ));
        }
        let mut next_use = zeroed(len).ok_or_else(|| {
            crate::Error::invalid(format!(
                "costopt needs {} MB for {len} requests, more than can be allocated",
                (len * 4) >> 20
            ))
        })?;
        let mut later_write = vec![0u64; len.div_ceil(64)];
        let mut last: Vec<u32> = vec![0; pages];
        let mut written: Vec<bool> = vec![false; pages];
        for i in (0..len).rev() {
            let (p, op) = unpack(words.get(i));
            let p = p as usize;
            if p >= last.len() {
                last.resize((p + 1).max(last.len() * 2), 0);
                written.resize(last.len(), false);
            }
            next_use[i] = last[p];
            last[p] = i as u32;
            if written[p] {
                later_write[i >> 6] |= 1 << (i & 63);
            }
            written[p] |= op.is_write();
        }
        Ok(Future {
            words,
            next_use,
            later_write,
            pages: last.len().max(1),
        })
    }

    /// Belady for `capacity` pages over this trace.
    pub fn belady(&self, capacity: usize) -> crate::Result<crate::policy::Belady<'a>> {
        crate::policy::Belady::build(capacity, self.words, self.pages)
    }

    /// Requests in the trace.
    pub fn len(&self) -> usize {
        self.next_use.len()
    }

    /// Whether the trace is empty.
    pub fn is_empty(&self) -> bool {
        self.next_use.is_empty()
    }

    /// Upper bound on dense ids, for sizing per-page state.
    pub(crate) fn pages(&self) -> usize {
        self.pages
    }

    /// Request `i`'s page and op.
    #[inline]
    pub(crate) fn request(&self, i: usize) -> (DenseId, Op) {
        unpack(self.words.get(i))
    }

    /// The next use of request `i`'s page (`None` if it is the last).
    #[inline]
    pub(crate) fn next_use(&self, i: usize) -> Option<usize> {
        match self.next_use[i] {
            0 => None,
            n => Some(n as usize),
        }
    }

    /// Whether request `i`'s page is written after `i`.
    #[inline]
    pub(crate) fn written_later(&self, i: usize) -> bool {
        self.later_write[i >> 6] >> (i & 63) & 1 == 1
    }
}

/// The costs a schedule is charged: a read per miss, a write per page
/// written back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScheduleCosts {
    /// Cost of reading a page (every miss, demand fetch).
    pub read: f64,
    /// Cost of writing one page back.
    pub write: f64,
    /// Cost of writing a page in a sequential batch: the lower bound
    /// charges `min(write, seq_write)` per write-back, so it holds for
    /// policies that cluster writes too.
    pub seq_write: f64,
    /// Whether the pages still dirty at the end are written (and charged).
    pub flush_at_end: bool,
}

impl ScheduleCosts {
    /// The costs of `device` (reads are always random in simulation).
    pub fn of(device: &crate::device::DeviceModel, flush_at_end: bool) -> Self {
        ScheduleCosts {
            read: device.read,
            write: device.write,
            seq_write: device.seq_write,
            flush_at_end,
        }
    }
}

/// What [`CostOpt`] replays: prefix sums of the frame prices
/// (`rent[i] = Σ_{τ<i} μ_τ`, one more entry than requests) and, optionally,
/// one bit per request saying whether a plan keeps the page until its next
/// use (pages the plan lets go leave before pages it keeps).
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    /// Prefix sums of the prices.
    pub rent: Vec<f64>,
    /// One bit per request, or empty for none.
    pub keep: Vec<u64>,
}

const DIRTY: u8 = 1;
const LATER_WRITE: u8 = 2;
const RESIDENT: u8 = 4;
const PLANNED: u8 = 8;

/// The rent-driven offline policy over a [`Future`] and a [`Schedule`].
#[derive(Clone, Debug)]
pub struct CostOpt<'a> {
    cap: usize,
    future: &'a Future<'a>,
    rent: &'a [f64],
    keep: &'a [u64],
    /// Added to the key of a page the plan keeps: more than any rent or loss.
    planned: f64,
    costs: ScheduleCosts,
    t: usize,
    heap: KeyHeap,
    /// Per page: its next use while resident (`NEVER` if none).
    next: Vec<u32>,
    flags: Vec<u8>,
    dirty_count: usize,
    /// The last victim's key and flags, for [`Policy::reinstate`].
    undo: ((f64, u64), u8),
}

impl<'a> CostOpt<'a> {
    /// The policy for `capacity` pages. Fails unless the schedule has one
    /// rent entry more than the trace has requests, and a keep bit per
    /// request or none.
    pub fn new(
        capacity: usize,
        future: &'a Future<'a>,
        schedule: &'a Schedule,
        costs: ScheduleCosts,
    ) -> crate::Result<Self> {
        let (rent, keep) = (&schedule.rent[..], &schedule.keep[..]);
        if rent.len() != future.len() + 1
            || !(keep.is_empty() || keep.len() == future.len().div_ceil(64))
        {
            return Err(crate::Error::invalid(format!(
                "costopt: a schedule of {} rent entries and {} keep words for {} requests",
                rent.len(),
                keep.len(),
                future.len()
            )));
        }
        let planned = 4.0 * (rent[future.len()].abs() + costs.read + costs.write) + 1.0;
        let pages = future.pages();
        Ok(CostOpt {
            cap: capacity,
            future,
            rent,
            keep,
            planned,
            costs,
            t: 0,
            heap: KeyHeap::with_pages(pages),
            next: vec![NEVER; pages],
            flags: vec![0; pages],
            dirty_count: 0,
            undo: ((0.0, 0), 0),
        })
    }

    fn flag(&self, page: DenseId, f: u8) -> bool {
        self.flags.get(page as usize).is_some_and(|&x| x & f != 0)
    }

    /// The heap key: smallest = the page whose rent exceeds its loss most.
    fn key(&self, page: DenseId) -> (f64, u64) {
        let next = self.next[page as usize];
        let (rent, loss_read) = if next == NEVER {
            (self.rent[self.future.len()], 0.0)
        } else {
            (self.rent[next as usize], self.costs.read)
        };
        let f = self.flags[page as usize];
        let owes = f & DIRTY != 0 && (f & LATER_WRITE != 0 || !self.costs.flush_at_end);
        let loss = loss_read + if owes { self.costs.write } else { 0.0 };
        let loss = loss + if f & PLANNED != 0 { self.planned } else { 0.0 };
        // Later next use first among equal priorities.
        let tie = u64::from(NEVER - next.min(NEVER - 1));
        (loss - rent, tie)
    }

    /// Consumes the next request of the trace for `page`.
    fn consume(&mut self, page: DenseId, op: Op) {
        let t = self.t;
        self.t += 1;
        let f = &mut self.flags[page as usize];
        let was_dirty = *f & DIRTY != 0;
        *f = (*f & DIRTY) | RESIDENT;
        if op.is_write() {
            *f |= DIRTY;
        }
        if self.future.written_later(t) {
            *f |= LATER_WRITE;
        }
        if self
            .keep
            .get(t >> 6)
            .is_some_and(|w| w >> (t & 63) & 1 == 1)
        {
            *f |= PLANNED;
        }
        self.dirty_count += usize::from(op.is_write() && !was_dirty);
        self.next[page as usize] = self.future.next_use(t).map_or(NEVER, |n| n as u32);
        let key = self.key(page);
        self.heap.set(page, key);
    }

    fn take(&mut self, page: DenseId) -> bool {
        self.heap.remove(page);
        let dirty = self.flags[page as usize] & DIRTY != 0;
        self.flags[page as usize] = 0;
        self.dirty_count -= usize::from(dirty);
        dirty
    }

    fn set_dirty(&mut self, page: DenseId, dirty: bool) {
        let f = &mut self.flags[page as usize];
        let was = *f & DIRTY != 0;
        if was == dirty {
            return;
        }
        *f ^= DIRTY;
        if dirty {
            self.dirty_count += 1;
        } else {
            self.dirty_count -= 1;
        }
        let key = self.key(page);
        self.heap.set(page, key);
    }
}

impl Policy for CostOpt<'_> {
    fn name(&self) -> String {
        "costopt-ub".into()
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
    }
    fn len(&self) -> usize {
        self.heap.len()
    }
    fn contains(&self, page: DenseId) -> bool {
        self.flag(page, RESIDENT)
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.flag(page, RESIDENT) && self.flag(page, DIRTY)
    }
    fn dirty_count(&self) -> usize {
        self.dirty_count
    }

    fn access(&mut self, page: DenseId, op: Op) -> bool {
        if !self.contains(page) {
            return false;
        }
        self.consume(page, op);
        true
    }

    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        if page as usize >= self.flags.len() {
            self.flags.resize(page as usize + 1, 0);
            self.next.resize(page as usize + 1, NEVER);
        }
        self.flags[page as usize] = 0;
        self.consume(page, op);
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let (key, page) = match self.heap.top() {
            Some((key, page)) if evictable(page) => (key, page),
            Some(_) => self
                .heap
                .entries()
                .iter()
                .copied()
                .filter(|&(_, p)| evictable(p))
                .min_by(|a, b| a.0.partial_cmp(&b.0).expect("priorities are numbers"))?,
            None => return None,
        };
        self.undo = (key, self.flags[page as usize]);
        let dirty = self.take(page);
        Some(Victim { page, dirty })
    }

    fn reinstate(&mut self, v: Victim) {
        let (key, flags) = self.undo;
        self.flags[v.page as usize] = flags;
        self.dirty_count += usize::from(v.dirty);
        self.heap.set(v.page, key);
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.contains(page) {
            self.set_dirty(page, true);
        }
    }
    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        if self.contains(page) {
            self.set_dirty(page, false);
        }
    }
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.contains(page).then(|| self.take(page))
    }
}

// The policy's spec (`policy/named.rs`).

const ITERATIONS: crate::spec::Param = crate::spec::Param {
    key: "iterations",
    ty: crate::spec::Ty::Int(0, crate::spec::NO_MAX),
    default: "100",
    help: "subgradient iterations of the planner (more: a tighter lower bound, a schedule found among more prices)",
};

impl crate::policy::Named for CostOpt<'static> {
    const SERVES: crate::policy::Serves = Serves::OFFLINE;
    const ENTRY: crate::spec::Entry = crate::spec::Entry {
        name: "costopt-ub",
        description: "offline, writeback-aware: the cheapest schedule the cost-optimal bound's planner finds (never above Belady, except with a flush at the end priced in sequence)",
        params: &[ITERATIONS],
    };
    type Params = usize;
    fn params(g: &crate::spec::Given) -> crate::error::Result<usize> {
        Ok(g.int("iterations") as usize)
    }
    fn build(_: usize, _: usize, _: usize) -> crate::error::Result<Self> {
        super::belady::offline("costopt-ub")
    }
}
