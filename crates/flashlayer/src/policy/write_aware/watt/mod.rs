//! WATT, write-aware timestamp tracking (Vöhringer & Leis, PVLDB 16(11),
//! 2023): each resident page keeps the epochs of its last `kr` accesses and
//! of its last `kw` writes; the victim is the page of least estimated
//! frequency among a random sample of resident pages.
//!
//! As the authors' simulator runs the configuration it names `WATT`
//! (`WATT_RANDOMHeap_N_EVICT_HISTORY` in `WATT-Simulate`):
//!
//! - Time is counted in epochs: an epoch is `capacity / epochs` admissions
//!   (at least one). A history records the epoch of an access unless its
//!   newest entry is that epoch already, and keeps its newest `k` entries.
//! - Every access (read or write) enters the access history; a write also
//!   enters the write history.
//! - A history `t₀ > t₁ > …` (newest first) estimates the frequency
//!   `max_i min(c_i / (now − t_i + 1), 1)` with `c_0 = first` (damping a
//!   page seen once) and `c_i = i + 1`.
//! - A page's value is its access frequency plus `write_cost` times its
//!   write frequency; the victim is the sampled page of least value.
//! - Among sampled pages of equal value (pages of equal histories, common
//!   when epochs are short), the one in the highest slot leaves: pages are
//!   admitted into the highest slot, so that is the most recently admitted
//!   but for a page moved into a leaving page's slot. The simulator takes
//!   the first in its hash map's order, which puts recently inserted pages
//!   first. Taking the lowest slot instead (older pages) costs 1.3% fewer
//!   misses than the simulator at 96 frames on the TPC-B trace; this way
//!   every size of `tests/test_watt_simulate.py` is within 0.5%.
//! - The sample is `sample` distinct resident pages drawn at random (at
//!   most half the buffer), or every resident page for `sample=0`: the
//!   first distinct ones among the slots the generator's outputs name, two
//!   an output, from at most four times as many candidates. The simulator
//!   draws its sample alike: distinct positions, from at most four times
//!   as many tries.
//! - A page that leaves keeps its history while it is among the last
//!   `z × capacity` evicted pages still out (the simulator's `Z`; `z=0`,
//!   the default, forgets it as the `WATT` configuration does). A page
//!   admitted with its history kept resumes it, and its admission does not
//!   advance the epoch, as in the simulator.
//!
//! Pages the caller cannot evict are left out of the sample; when no
//! sampled page may leave, every resident page is considered.

mod history;
mod kept;

use crate::policy::Serves;
use crate::policy::{Ahead, Neighbours, Policy, Victim};
use crate::spec::{Param, Ty};
use crate::types::{DenseId, Op, PageCost};
use history::{most, push, rates, value_short, Counts, Layout, Line, DIRTY, LANES, SHORT};
use kept::Kept;
use rand::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;
use wide::u32x8;

const NONE: u32 = u32::MAX;
/// Copies a record: one line, the usual layout, without a call to
/// `memcpy`.
#[inline(always)]
fn copy_lines(to: &mut [Line], from: &[Line]) {
    match (to, from) {
        ([t], [f]) => *t = *f,
        (t, f) => t.copy_from_slice(f),
    }
}

/// Pages whose values are computed together ([`Watt::least_key`]).
const GROUP: usize = 8;

/// No page may leave.
const NO_KEY: u64 = u64::MAX;

/// The order in which a page of `value` in `slot` competes to leave: the
/// least key leaves. A value is a finite non-negative `f32`, whose bits
/// order as it does; below them, the complement of the slot puts the higher
/// slot first among equal values (the module doc says why). Comparing keys
/// needs no branch that could mispredict.
#[inline(always)]
fn key_of(value: f32, slot: u32) -> u64 {
    u64::from(value.to_bits()) << 32 | u64::from(u32::MAX - slot)
}

/// The two candidates one 64-bit output of the generator names among
/// `len` slots, its low half's first: a half `h` names ⌊h · len / 2³²⌋
/// (a multiply and a shift, no rejection: a slot's chance is off by at
/// most `len` / 2³², under 0.002% at a million pages).
#[inline(always)]
fn candidates(x: u64, len: u32) -> [u32; 2] {
    let at = |h: u64| (((h & u64::from(u32::MAX)) * u64::from(len)) >> 32) as u32;
    [at(x), at(x >> 32)]
}

/// WATT's parameters (the `WATT` configuration of the authors' simulator).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WattParams {
    /// Access epochs kept per page.
    pub kr: usize,
    /// Write epochs kept per page.
    pub kw: usize,
    /// Epochs per buffer's worth of admissions.
    pub epochs: usize,
    /// Pages sampled per eviction (0: every resident page).
    pub sample: usize,
    /// Weight of the write frequency.
    pub write_cost: f64,
    /// Damping of the newest entry.
    pub first: f64,
    /// Seed of the sampling.
    pub seed: u64,
    /// Buffers' worth of evicted pages whose histories are kept (0: none).
    pub z: usize,
}

impl Default for WattParams {
    /// The table's defaults ([`Param::default`] of each key).
    fn default() -> Self {
        fn at<T: std::str::FromStr>(p: Param) -> T {
            p.default
                .parse()
                .ok()
                .expect("a default of the table parses")
        }
        WattParams {
            kr: at(KR),
            kw: at(KW),
            epochs: at(EPOCHS),
            sample: at(SAMPLE),
            write_cost: at(WRITE_COST),
            first: at(FIRST),
            seed: at(SEED),
            z: at(Z),
        }
    }
}

/// WATT replacement.
#[derive(Clone, Debug)]
pub struct Watt {
    p: WattParams,
    at: Layout,
    counts: Counts,
    write_cost: f32,
    cap: usize,
    len: usize,
    dirty_count: usize,
    /// Per dense page id: its slot, or `NONE`.
    slot_of: Vec<u32>,
    /// Per slot: its record, `at.lines` lines; those of slots `0..len`
    /// are the resident pages'. It only grows, so that an admission writes
    /// a record without resizing.
    records: Vec<Line>,
    epoch: u32,
    /// Admissions in the current epoch.
    admitted: usize,
    rng: Pcg64Mcg,
    /// A ring of samples: those of the next [`AHEAD`] evictions, the next
    /// at `head`, drawn for a buffer of `drawn_for` pages (their records
    /// load while requests are served), and before `head` the sample the
    /// last eviction used.
    samples: Box<[Sample; RING]>,
    head: usize,
    drawn_for: usize,
    /// What [`Policy::reinstate`] restores.
    undo: Undo,
    /// Histories of evicted pages (boxed: most runs keep none).
    kept: Box<Kept>,
}

/// The last eviction: its slot and record, and the generator and
/// `drawn_for` before it.
#[derive(Clone, Debug)]
struct Undo {
    slot: usize,
    record: Vec<Line>,
    rng: Pcg64Mcg,
    drawn_for: usize,
}

/// Evictions whose samples are drawn ahead.
const AHEAD: usize = 4;
/// Samples kept: those drawn ahead and the last one used.
const RING: usize = AHEAD + 1;

/// A sample of this many slots, WATT's, is drawn eight candidates at once
/// ([`Watt::draw`]).
const HEAD: usize = 8;

/// Sampled slots.
#[derive(Clone, Copy, Debug)]
struct Sample {
    slots: [u32; 64],
    n: usize,
}

const EMPTY_SAMPLE: Sample = Sample {
    slots: [0; 64],
    n: 0,
};

impl Watt {
    /// WATT over `capacity` pages at its defaults.
    pub fn new(capacity: usize) -> Self {
        Self::with_params(capacity, WattParams::default())
    }

    /// WATT over `capacity` pages with `p`.
    pub fn with_params(capacity: usize, p: WattParams) -> Self {
        let rng = Pcg64Mcg::seed_from_u64(p.seed);
        let at = Layout::new(p.kr, p.kw);
        Watt {
            p,
            at,
            // As the authors' simulator, in single precision.
            counts: Counts::new(p.first as f32, p.kr.max(p.kw)),
            write_cost: p.write_cost as f32,
            cap: capacity,
            len: 0,
            dirty_count: 0,
            slot_of: Vec::new(),
            records: vec![Line::default(); capacity * at.lines],
            epoch: 0,
            admitted: 0,
            rng: rng.clone(),
            samples: Box::new([EMPTY_SAMPLE; RING]),
            head: 0,
            drawn_for: usize::MAX,
            undo: Undo {
                slot: 0,
                record: vec![Line::default(); at.lines],
                rng,
                drawn_for: usize::MAX,
            },
            kept: Box::new(Kept::new(p.z.saturating_mul(capacity), at.lines, at.page)),
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        if pages > self.slot_of.len() {
            self.slot_of.resize(pages, NONE);
            self.kept.with_pages(pages);
        }
        self
    }

    #[inline]
    fn slot(&self, page: DenseId) -> Option<usize> {
        match self.slot_of.get(page as usize) {
            Some(&s) if s != NONE => Some(s as usize),
            _ => None,
        }
    }

    #[inline]
    fn record(&self, slot: usize) -> &[u32] {
        let lines = &self.records[slot * self.at.lines..(slot + 1) * self.at.lines];
        // SAFETY: a `Line` is 16 `u32`s with no padding (`repr(C)`), so
        // consecutive lines are a slice of `u32`s.
        unsafe { std::slice::from_raw_parts(lines.as_ptr().cast::<u32>(), lines.len() * 16) }
    }

    #[inline]
    fn record_mut(&mut self, slot: usize) -> &mut [u32] {
        let n = self.at.lines;
        let lines = &mut self.records[slot * n..(slot + 1) * n];
        // SAFETY: as in `record`.
        unsafe { std::slice::from_raw_parts_mut(lines.as_mut_ptr().cast::<u32>(), n * 16) }
    }

    #[inline]
    fn page_at(&self, slot: usize) -> DenseId {
        DenseId::from(self.record(slot)[self.at.page])
    }

    #[inline]
    fn dirty_at(&self, slot: usize) -> bool {
        self.record(slot)[self.at.lens] & DIRTY != 0
    }

    /// Records the current epoch in the slot's histories.
    #[inline]
    fn touch(&mut self, slot: usize, write: bool) {
        let (at, epoch) = (self.at, self.epoch);
        let r = self.record_mut(slot);
        let lens = r[at.lens];
        let reads = push(&mut r[..at.writes], lens & 0xff, at.kr, epoch);
        let writes = if write {
            push(&mut r[at.writes..at.page], (lens >> 8) & 0xff, at.kw, epoch)
        } else {
            (lens >> 8) & 0xff
        };
        r[at.lens] = (lens & DIRTY) | writes << 8 | reads;
    }

    /// The least key ([`Watt::key_of`]) among `slots`. Values are
    /// computed afresh: a short record's ([`value_short`]) in three vector
    /// divisions; a longer one's [`GROUP`] pages at a time, each page's
    /// lanes first, then every page's greatest lane, so that the pages'
    /// estimates overlap instead of waiting on each other. With the
    /// records in cache, that costs less than keeping each value with the
    /// epoch it holds for and checking it.
    #[inline(always)]
    fn least_key<F: FnMut(DenseId) -> bool>(&self, slots: &[u32], evictable: &mut F) -> u64 {
        let (at, epoch) = (self.at, self.epoch);
        let mut best = NO_KEY;
        if at.short {
            for &s in slots {
                let r = &self.records[s as usize].0;
                let value = value_short(r, epoch, &self.counts, self.write_cost);
                if evictable(DenseId::from(r[SHORT.page])) {
                    best = best.min(key_of(value, s));
                }
            }
            return best;
        }
        for group in slots.chunks(GROUP) {
            let mut reads = [[0f32; LANES]; GROUP];
            let mut writes = [[0f32; LANES]; GROUP];
            for (i, &s) in group.iter().enumerate() {
                let r = self.record(s as usize);
                let lens = r[at.lens];
                // Both estimates always (an empty history's is 0, which
                // adds nothing): no branch to mispredict.
                reads[i] = rates(&r[..at.writes], lens & 0xff, epoch, &self.counts);
                writes[i] = rates(
                    &r[at.writes..at.page],
                    (lens >> 8) & 0xff,
                    epoch,
                    &self.counts,
                );
            }
            for (i, &s) in group.iter().enumerate() {
                let value = most(reads[i]) + self.write_cost * most(writes[i]);
                if evictable(self.page_at(s as usize)) {
                    best = best.min(key_of(value, s));
                }
            }
        }
        best
    }

    /// The key ([`key_of`]) of the page in `slot`, its value computed
    /// afresh as [`Watt::least_key`] computes it.
    fn key_at(&self, slot: usize) -> u64 {
        let (at, epoch) = (self.at, self.epoch);
        let value = if at.short {
            value_short(&self.records[slot].0, epoch, &self.counts, self.write_cost)
        } else {
            let r = self.record(slot);
            let lens = r[at.lens];
            let reads = rates(&r[..at.writes], lens & 0xff, epoch, &self.counts);
            let writes = rates(
                &r[at.writes..at.page],
                (lens >> 8) & 0xff,
                epoch,
                &self.counts,
            );
            most(reads) + self.write_cost * most(writes)
        };
        key_of(value, slot as u32)
    }

    /// Draws the sample of an eviction from a buffer of `len` pages into
    /// `samples[which]`: the first `want` distinct [`candidates`] the
    /// generator gives, from at most `4 × want` of them, their records
    /// prefetched.
    fn draw(&mut self, which: usize, len: usize, want: usize) {
        let len = len as u32;
        let tries = 4 * want;
        let sample = &mut self.samples[which];
        let mut n = 0;
        let mut taken = 0;
        if want == HEAD {
            // WATT's sample: eight candidates from four outputs, checked
            // against each other at once. Eight distinct ones (all but
            // about one draw in 1,600 from 45,000 pages) are the sample;
            // otherwise they are taken one by one below, as any draw is.
            let mut c = [0; HEAD];
            for pair in c.chunks_exact_mut(2) {
                pair.copy_from_slice(&candidates(self.rng.next_u64(), len));
            }
            let v = u32x8::new(c);
            // Lanes `k` apart, for every `k` from 1 to 4, are every pair.
            let same = (1..=HEAD / 2).fold(u32x8::ZERO, |same, k| {
                same | v.simd_eq(u32x8::new(std::array::from_fn(|i| c[(i + k) % HEAD])))
            });
            if !same.any() {
                sample.slots[..HEAD].copy_from_slice(&c);
                n = HEAD;
            } else {
                for s in c {
                    if !sample.slots[..n].contains(&s) {
                        sample.slots[n] = s;
                        n += 1;
                    }
                }
            }
            taken = HEAD;
        }
        while n < want && taken < tries {
            for s in candidates(self.rng.next_u64(), len) {
                if n == want || taken == tries {
                    break;
                }
                taken += 1;
                if !sample.slots[..n].contains(&s) {
                    sample.slots[n] = s;
                    n += 1;
                }
            }
        }
        sample.n = n;
        let lines = self.at.lines;
        for &s in &sample.slots[..n] {
            if let Some(line) = self.records.get(s as usize * lines) {
                crate::types::prefetch(line);
            }
        }
    }

    /// Pages sampled from a buffer of `len` (every one: `len`).
    fn want(&self, len: usize) -> usize {
        match self.p.sample {
            0 => len,
            s => s.min(len / 2).max(1),
        }
    }

    /// The slot of least value among a sample (or all) of those whose page
    /// `evictable` allows. The sample was drawn at the last eviction if the
    /// buffer held as many pages then; the next one is drawn now, so that
    /// its records load while requests are served.
    fn choose<F: FnMut(DenseId) -> bool>(&mut self, evictable: &mut F) -> Option<usize> {
        let len = self.len;
        let want = self.want(len);
        let mut best = NO_KEY;
        if want < len {
            if self.drawn_for != len {
                for k in 0..AHEAD {
                    self.draw((self.head + k) % RING, len, want);
                }
                self.drawn_for = len;
            }
            // The slot before `head` (the sample used before) takes the
            // one drawn AHEAD evictions ahead.
            let used = self.head;
            self.draw((used + AHEAD) % RING, len, want);
            self.head = (used + 1) % RING;
            let sample = &self.samples[used];
            best = self.least_key(&sample.slots[..sample.n], evictable);
        }
        if best == NO_KEY {
            for start in (0..len).step_by(GROUP) {
                let group: [u32; GROUP] = std::array::from_fn(|i| (start + i) as u32);
                best = best.min(self.least_key(&group[..GROUP.min(len - start)], evictable));
            }
        }
        (best != NO_KEY).then(|| (u32::MAX - best as u32) as usize)
    }

    fn set_dirty(&mut self, page: DenseId, dirty: bool) {
        if let Some(s) = self.slot(page) {
            let lens = self.at.lens;
            let r = self.record_mut(s);
            if (r[lens] & DIRTY != 0) != dirty {
                r[lens] ^= DIRTY;
                if dirty {
                    self.dirty_count += 1;
                } else {
                    self.dirty_count -= 1;
                }
            }
        }
    }

    /// Takes the page in `slot` out (the last slot's record moves into
    /// it); returns its dirty flag.
    fn take(&mut self, slot: usize) -> bool {
        let (page, dirty) = (self.page_at(slot), self.dirty_at(slot));
        self.len -= 1;
        let last = self.len;
        if slot != last {
            self.copy_record(last, slot);
            let moved = self.page_at(slot);
            self.slot_of[moved as usize] = slot as u32;
        }
        self.slot_of[page as usize] = NONE;
        if dirty {
            self.dirty_count -= 1;
        }
        dirty
    }

    /// Copies the record of slot `from` over that of slot `to`.
    #[inline]
    fn copy_record(&mut self, from: usize, to: usize) {
        match self.at.lines {
            // The usual layout (`kr` ≤ 8, `kw` ≤ 4), without a call to
            // `memmove`.
            1 => self.records[to] = self.records[from],
            n => self.records.copy_within(from * n..(from + 1) * n, to * n),
        }
    }

    /// Keeps the history of the page in `slot`, leaving ([`Kept::keep`]).
    #[inline(always)]
    fn keep(&mut self, slot: usize) {
        if !self.kept.keeps() {
            return;
        }
        let n = self.at.lines;
        let page = self.page_at(slot);
        self.kept
            .keep(page, &self.records[slot * n..(slot + 1) * n]);
    }

    /// Puts `page`'s kept history, if any, into the new `slot` (clean):
    /// whether there was one.
    fn resume(&mut self, page: DenseId, slot: usize) -> bool {
        let n = self.at.lines;
        if !self
            .kept
            .resume(page, &mut self.records[slot * n..(slot + 1) * n])
        {
            return false;
        }
        let lens = self.at.lens;
        self.record_mut(slot)[lens] &= !DIRTY;
        true
    }

    /// The epoch length in admissions.
    fn epoch_len(&self) -> usize {
        (self.cap / self.p.epochs.max(1)).max(1)
    }
}

impl Policy for Watt {
    fn name(&self) -> String {
        format!(
            "WATT(kr={},kw={},sample={})",
            self.p.kr, self.p.kw, self.p.sample
        )
    }
    crate::policy::list::counted_capacity!();
    fn contains(&self, page: DenseId) -> bool {
        self.slot(page).is_some()
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.slot(page).is_some_and(|s| self.dirty_at(s))
    }
    fn dirty_count(&self) -> usize {
        self.dirty_count
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        if let Some(s) = self.slot_of.get(page as usize) {
            crate::types::prefetch(s);
        }
    }

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        let Some(s) = self.slot(page) else {
            return false;
        };
        self.touch(s, op.is_write());
        if op.is_write() {
            self.set_dirty(page, true);
        }
        true
    }

    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len < self.cap && !self.contains(page));
        if page as usize >= self.slot_of.len() {
            self.slot_of
                .resize((page as usize + 1).max(2 * self.slot_of.len()), NONE);
        }
        let (s, n) = (self.len, self.at.lines);
        self.len += 1;
        if self.records.len() < (s + 1) * n {
            // The capacity grew ([`Policy::set_capacity`]).
            self.records.resize((s + 1) * n, Line::default());
        }
        // A slot left holds its last page's record: its stale epochs are of
        // the past, as the history functions require, but its lengths and
        // flag must go.
        self.records[s * n..(s + 1) * n].fill(Line::default());
        self.slot_of[page as usize] = s as u32;
        let (at, epoch, write) = (self.at, self.epoch, op.is_write());
        let dirty = if write { DIRTY } else { 0 };
        self.dirty_count += usize::from(write);
        if self.resume(page, s) {
            // A kept history (resumed clean) takes this access as any
            // other.
            let r = self.record_mut(s);
            r[at.page] = page;
            r[at.lens] |= dirty;
            self.touch(s, write);
            return;
        }
        // A new record: this access, and this write, are its histories'
        // first entries ([`push`] onto empty ones).
        let r = self.record_mut(s);
        r[0] = epoch;
        if write {
            r[at.writes] = epoch;
        }
        r[at.page] = page;
        r[at.lens] = 1 | u32::from(write) << 8 | dirty;
        // The epoch advances after the admission is recorded.
        self.admitted += 1;
        if self.admitted >= self.epoch_len() {
            self.epoch += 1;
            self.admitted = 0;
        }
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let (before, drawn_for) = (self.rng.clone(), self.drawn_for);
        let s = self.choose(&mut evictable)?;
        let n = self.at.lines;
        self.undo.slot = s;
        copy_lines(&mut self.undo.record, &self.records[s * n..(s + 1) * n]);
        self.undo.rng = before;
        self.undo.drawn_for = drawn_for;
        let page = self.page_at(s);
        self.keep(s);
        let dirty = self.take(s);
        Some(Victim { page, dirty })
    }

    fn reinstate(&mut self, v: Victim) {
        let (s, n) = (self.undo.slot, self.at.lines);
        // Undo the move: the record that moved into `s` goes back to the
        // end, the victim's back into `s`.
        let end = self.len;
        self.len += 1;
        if s != end {
            self.copy_record(s, end);
            let moved = self.page_at(end);
            self.slot_of[moved as usize] = end as u32;
        }
        copy_lines(&mut self.records[s * n..(s + 1) * n], &self.undo.record);
        self.slot_of[v.page as usize] = s as u32;
        self.kept.unkeep(v.page);
        if v.dirty {
            self.dirty_count += 1;
        }
        // The sample this eviction used is the next one again (the one it
        // drew ahead is drawn again from the restored generator).
        self.rng = self.undo.rng.clone();
        if self.want(self.len) < self.len {
            self.head = (self.head + RING - 1) % RING;
            self.drawn_for = self.undo.drawn_for;
        }
    }

    /// The dirty pages among the candidates WATT has drawn for its next 4
    /// evictions (every resident page when it samples them all),
    /// least value first: those its coming evictions weigh, in the order
    /// they would choose them. Its evictions pass no fixed sequence of
    /// clean pages, so it knows no bounded window.
    fn dirty_ahead(&self, want: Ahead, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) -> bool {
        if want.window != usize::MAX {
            return false;
        }
        let len = self.len;
        let wanted = |w: &Self, s: usize, pages: &mut dyn crate::policy::Neighbours| {
            (s < len && w.dirty_at(s) && pages.evictable(w.page_at(s))).then(|| w.key_at(s))
        };
        // The candidates' keys, drawn ones (a slot drawn twice has one key,
        // taken once below) or, with every page weighed, found afresh by
        // each pass.
        let mut keys = [NO_KEY; AHEAD * 64];
        let mut drawn = 0;
        let sampled = self.want(len) < len;
        if sampled {
            for k in 0..AHEAD {
                let sample = &self.samples[(self.head + k) % RING];
                for &s in &sample.slots[..sample.n] {
                    if let Some(key) = wanted(self, s as usize, pages) {
                        keys[drawn] = key;
                        drawn += 1;
                    }
                }
            }
        }
        // `n` passes, each taking the least key above the last taken.
        let mut last = None;
        for _ in 0..want.n {
            let above = |k: &u64| last.is_none_or(|l| *k > l);
            let next = if sampled {
                keys[..drawn].iter().copied().filter(above).min()
            } else {
                (0..len)
                    .filter_map(|s| wanted(self, s, pages))
                    .filter(above)
                    .min()
            };
            let Some(key) = next else { break };
            out.push(self.page_at((u32::MAX - key as u32) as usize));
            last = Some(key);
        }
        true
    }

    fn mark_dirty(&mut self, page: DenseId) {
        self.set_dirty(page, true);
    }
    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        self.set_dirty(page, false);
    }

    fn remove(&mut self, page: DenseId) -> Option<bool> {
        let s = self.slot(page)?;
        Some(self.take(s))
    }
}

const KR: Param = Param::new("kr", Ty::Int(1, 64), "8", "access epochs kept per page");
const KW: Param = Param::new("kw", Ty::Int(1, 64), "4", "write epochs kept per page");
const EPOCHS: Param = Param::new(
    "epochs",
    Ty::Int(1, 1 << 20),
    "4",
    "epochs per buffer's worth of admissions (an epoch is capacity/epochs admissions)",
);
const SAMPLE: Param = Param::new(
    "sample",
    Ty::Int(0, 64),
    "8",
    "resident pages sampled per eviction, at most half the buffer (0: every resident page)",
);
const WRITE_COST: Param = Param::new(
    "write_cost",
    Ty::FractionTo(1024.0),
    "1",
    "weight of the write frequency against the access frequency (0: writes count as accesses only)",
);
const FIRST: Param = Param::new(
    "first",
    Ty::Fraction,
    "0.1",
    "damping of a history's newest entry (a page seen once counts this much)",
);
const Z: Param = Param::new(
    "z",
    Ty::Int(0, 1 << 20),
    "0",
    "buffers' worth of evicted pages whose histories are kept, resumed if they return (the simulator's Z; 0: none)",
);
const SEED: Param = Param::new(
    "seed",
    Ty::Int(0, crate::spec::NO_MAX),
    "0",
    "seed of the sampling",
);

named!(
    Watt,
    "watt",
    "WATT, Vöhringer & Leis 2023: least estimated access + write frequency from each page's last epochs, among a random sample", Serves::POOL_AND_ACE_BASE,
    [KR, KW, EPOCHS, SAMPLE, WRITE_COST, FIRST, Z, SEED],
    WattParams,
    |g| Ok(WattParams {
        kr: g.int("kr") as usize,
        kw: g.int("kw") as usize,
        epochs: g.int("epochs") as usize,
        sample: g.int("sample") as usize,
        write_cost: g.fraction("write_cost"),
        first: g.fraction("first"),
        seed: g.int("seed"),
        z: g.int("z") as usize,
    }),
    |p, capacity| Watt::with_params(capacity, p)
);

#[cfg(test)]
mod tests;
