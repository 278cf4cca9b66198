//! Every policy against a slow, obviously-correct reference model, request by
//! request: same hit/miss, same victim, same dirty flag. Random traces with
//! random "pinned" pages exercise the evictable filter too.

use flashlayer::policy::{
    boxed_online_policy, Arc, Belady, BoxedPolicy, Casa, CcfLru, Cfdc, Cflru, Clock, CostSource,
    FdBuffer, Fifo, Koltsidas, Lambda, Lru, LruWsr, Mc, Policy, PolicySpec, TwoQ, Victim,
    WbLandlord,
};
use flashlayer::types::{pack, DeviceId, Op, PageCost};
use proptest::prelude::*;
use std::collections::VecDeque;

const COST: PageCost = PageCost::new(1.0, 1.0);

#[derive(Debug, PartialEq, Clone, Copy)]
enum Event {
    Hit,
    Miss(Option<Victim>),
}

/// Drives a policy the way the simulator does; `pinned(i, page)` says whether
/// `page` is pinned at request `i`.
fn drive<P: Policy>(
    p: &mut P,
    trace: &[(u32, Op)],
    pinned: &dyn Fn(usize, u32) -> bool,
) -> Vec<Event> {
    drive_priced(p, trace, pinned, COST)
}

/// [`drive`] with every page priced at `cost`.
fn drive_priced<P: Policy>(
    p: &mut P,
    trace: &[(u32, Op)],
    pinned: &dyn Fn(usize, u32) -> bool,
    cost: PageCost,
) -> Vec<Event> {
    let mut out = Vec::new();
    for (i, &(page, op)) in trace.iter().enumerate() {
        if p.access(page, op) {
            out.push(Event::Hit);
            continue;
        }
        let mut victim = None;
        if p.len() >= p.capacity() {
            victim = p.evict(|q| !pinned(i, q));
            if victim.is_none() {
                out.push(Event::Miss(None));
                continue;
            }
        }
        p.insert(page, op, cost);
        out.push(Event::Miss(victim));
    }
    out
}

trait Model {
    fn step(&mut self, page: u32, op: Op, evictable: &dyn Fn(u32) -> bool) -> Event;
}

fn run_model(
    m: &mut dyn Model,
    trace: &[(u32, Op)],
    pinned: &dyn Fn(usize, u32) -> bool,
) -> Vec<Event> {
    trace
        .iter()
        .enumerate()
        .map(|(i, &(p, op))| m.step(p, op, &|q| !pinned(i, q)))
        .collect()
}

/// Resident pages with dirty flags, in a Vec, searched linearly.
#[derive(Default)]
struct Resident(Vec<(u32, bool)>);
impl Resident {
    fn pos(&self, p: u32) -> Option<usize> {
        self.0.iter().position(|e| e.0 == p)
    }
}

/// LRU / FIFO model: index 0 is the LRU (or oldest) end.
struct QueueModel {
    cap: usize,
    promote: bool,
    r: Resident,
}
impl Model for QueueModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        if let Some(i) = self.r.pos(page) {
            let mut e = self.r.0[i];
            e.1 |= op.is_write();
            if self.promote {
                self.r.0.remove(i);
                self.r.0.push(e);
            } else {
                self.r.0[i] = e;
            }
            return Event::Hit;
        }
        let mut victim = None;
        if self.r.0.len() == self.cap {
            let Some(i) = self.r.0.iter().position(|e| ev(e.0)) else {
                return Event::Miss(None);
            };
            let (p, d) = self.r.0.remove(i);
            victim = Some(Victim { page: p, dirty: d });
        }
        self.r.0.push((page, op.is_write()));
        Event::Miss(victim)
    }
}

/// CLOCK model: a fixed array of frames and a hand.
struct ClockModel {
    frames: Vec<Option<(u32, bool, bool)>>, // page, referenced, dirty
    hand: usize,
}
impl Model for ClockModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        if let Some(f) = self.frames.iter_mut().flatten().find(|f| f.0 == page) {
            f.1 = true;
            f.2 |= op.is_write();
            return Event::Hit;
        }
        // Fill the lowest empty frame first (matches the free stack order).
        if let Some(slot) = self.frames.iter().position(Option::is_none) {
            self.frames[slot] = Some((page, true, op.is_write()));
            return Event::Miss(None);
        }
        let n = self.frames.len();
        // A scan that finds no victim changes nothing.
        let before = (self.frames.clone(), self.hand);
        for _ in 0..=2 * n {
            let f = self.hand;
            self.hand = (f + 1) % n;
            let (p, r, d) = self.frames[f].expect("full");
            if !ev(p) {
                continue;
            }
            if r {
                self.frames[f] = Some((p, false, d));
                continue;
            }
            self.frames[f] = Some((page, true, op.is_write()));
            return Event::Miss(Some(Victim { page: p, dirty: d }));
        }
        (self.frames, self.hand) = before;
        Event::Miss(None)
    }
}

/// 2Q model straight from Johnson & Shasha's full-version pseudo-code.
struct TwoQModel {
    cap: usize,
    kin: usize,
    kout: usize,
    a1in: VecDeque<(u32, bool)>, // front = newest
    am: VecDeque<(u32, bool)>,   // front = MRU
    a1out: VecDeque<u32>,
}
impl Model for TwoQModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        let w = op.is_write();
        if let Some(i) = self.am.iter().position(|e| e.0 == page) {
            let mut e = self.am.remove(i).expect("present");
            e.1 |= w;
            self.am.push_front(e);
            return Event::Hit;
        }
        if let Some(e) = self.a1in.iter_mut().find(|e| e.0 == page) {
            e.1 |= w;
            return Event::Hit;
        }
        // "if X is in A1out": decided before reclaimfor(X), X leaving A1out
        // for Am, so the reclaim's push into A1out cannot forget it.
        let ghost = self.a1out.iter().position(|&p| p == page);
        if let Some(i) = ghost {
            self.a1out.remove(i);
        }
        let mut victim = None;
        if self.a1in.len() + self.am.len() == self.cap {
            let from_a1 = self.a1in.len() > self.kin || self.am.is_empty();
            let take_a1 = |s: &mut Self| -> Option<Victim> {
                let i = s.a1in.iter().rposition(|e| ev(e.0))?;
                let (p, d) = s.a1in.remove(i).expect("present");
                s.a1out.push_front(p);
                if s.a1out.len() > s.kout {
                    s.a1out.pop_back();
                }
                Some(Victim { page: p, dirty: d })
            };
            let take_am = |s: &mut Self| -> Option<Victim> {
                let i = s.am.iter().rposition(|e| ev(e.0))?;
                let (p, d) = s.am.remove(i).expect("present");
                Some(Victim { page: p, dirty: d })
            };
            victim = if from_a1 {
                take_a1(self).or_else(|| take_am(self))
            } else {
                take_am(self).or_else(|| take_a1(self))
            };
            if victim.is_none() {
                if let Some(i) = ghost {
                    self.a1out.insert(i, page);
                }
                return Event::Miss(None);
            }
        }
        if ghost.is_some() {
            self.am.push_front((page, w));
        } else {
            self.a1in.push_front((page, w));
        }
        Event::Miss(victim)
    }
}

/// ARC model following Fig. 4 of Megiddo & Modha (FAST 2003) literally.
struct ArcModel {
    c: usize,
    p: f64,
    t1: VecDeque<(u32, bool)>, // front = MRU
    t2: VecDeque<(u32, bool)>,
    b1: VecDeque<u32>,
    b2: VecDeque<u32>,
}
impl ArcModel {
    fn replace(&mut self, x_in_b2: bool, ev: &dyn Fn(u32) -> bool) -> Option<Victim> {
        let t1 = self.t1.len();
        let from_t1 = t1 >= 1 && ((x_in_b2 && t1 as f64 == self.p) || t1 as f64 > self.p);
        let take_t1 = |s: &mut Self| {
            let i = s.t1.iter().rposition(|e| ev(e.0))?;
            let (pg, d) = s.t1.remove(i).expect("present");
            s.b1.push_front(pg);
            Some(Victim { page: pg, dirty: d })
        };
        let take_t2 = |s: &mut Self| {
            let i = s.t2.iter().rposition(|e| ev(e.0))?;
            let (pg, d) = s.t2.remove(i).expect("present");
            s.b2.push_front(pg);
            Some(Victim { page: pg, dirty: d })
        };
        if from_t1 {
            take_t1(self).or_else(|| take_t2(self))
        } else {
            take_t2(self).or_else(|| take_t1(self))
        }
    }
}
impl Model for ArcModel {
    fn step(&mut self, x: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        let w = op.is_write();
        let c = self.c;
        // Case I
        for list in [0, 1] {
            let l = if list == 0 {
                &mut self.t1
            } else {
                &mut self.t2
            };
            if let Some(i) = l.iter().position(|e| e.0 == x) {
                let mut e = l.remove(i).expect("present");
                e.1 |= w;
                self.t2.push_front(e);
                return Event::Hit;
            }
        }
        let full = self.t1.len() + self.t2.len() == c;
        // Case II
        if let Some(i) = self.b1.iter().position(|&p| p == x) {
            let (b1, b2) = (self.b1.len() as f64, self.b2.len() as f64);
            self.p = (self.p + if b1 >= b2 { 1.0 } else { b2 / b1 }).min(c as f64);
            let v = if full { self.replace(false, ev) } else { None };
            if full && v.is_none() {
                return Event::Miss(None);
            }
            let i = self.b1.iter().position(|&p| p == x).unwrap_or(i);
            self.b1.remove(i);
            self.t2.push_front((x, w));
            return Event::Miss(v);
        }
        // Case III
        if let Some(i) = self.b2.iter().position(|&p| p == x) {
            let (b1, b2) = (self.b1.len() as f64, self.b2.len() as f64);
            self.p = (self.p - if b2 >= b1 { 1.0 } else { b1 / b2 }).max(0.0);
            let v = if full { self.replace(true, ev) } else { None };
            if full && v.is_none() {
                return Event::Miss(None);
            }
            let i = self.b2.iter().position(|&p| p == x).unwrap_or(i);
            self.b2.remove(i);
            self.t2.push_front((x, w));
            return Event::Miss(v);
        }
        // Case IV
        let mut v = None;
        if self.t1.len() + self.b1.len() == c {
            if self.t1.len() < c {
                self.b1.pop_back();
                if full {
                    v = self.replace(false, ev);
                }
            } else {
                let i = self.t1.iter().rposition(|e| ev(e.0));
                v = match i {
                    Some(i) => {
                        let (pg, d) = self.t1.remove(i).expect("present");
                        Some(Victim { page: pg, dirty: d })
                    }
                    None => self.replace(false, ev),
                };
            }
        } else {
            let total = self.t1.len() + self.t2.len() + self.b1.len() + self.b2.len();
            if total >= c {
                if total == 2 * c {
                    self.b2.pop_back();
                }
                if full {
                    v = self.replace(false, ev);
                }
            }
        }
        if full && v.is_none() {
            return Event::Miss(None);
        }
        self.t1.push_front((x, w));
        Event::Miss(v)
    }
}

/// Belady model: on a miss, scan residents for the furthest next use; among
/// never-used-again pages prefer clean, then the lowest page id... any
/// never-reused clean page is equally good, so the test compares miss counts
/// and dirty flags of victims, not victim identities, for ties.
fn belady_model_misses(cap: usize, trace: &[(u32, Op)]) -> (u64, u64) {
    let mut res: Vec<(u32, bool)> = Vec::new();
    let (mut misses, mut dirty_ev) = (0, 0);
    for (i, &(p, op)) in trace.iter().enumerate() {
        if let Some(e) = res.iter_mut().find(|e| e.0 == p) {
            e.1 |= op.is_write();
            continue;
        }
        misses += 1;
        if res.len() == cap {
            let next = |q: u32| {
                trace[i + 1..]
                    .iter()
                    .position(|r| r.0 == q)
                    .map_or(usize::MAX, |d| d)
            };
            let best = (0..res.len())
                .max_by_key(|&k| (next(res[k].0), !res[k].1))
                .expect("full");
            if res[best].1 {
                dirty_ev += 1;
            }
            res.remove(best);
        }
        res.push((p, op.is_write()));
    }
    (misses, dirty_ev)
}

fn trace_strategy(max_pages: u32, max_len: usize) -> impl Strategy<Value = Vec<(u32, Op)>> {
    prop::collection::vec(
        (0..max_pages, prop::bool::weighted(0.3))
            .prop_map(|(p, w)| (p, if w { Op::Write } else { Op::Read })),
        0..max_len,
    )
}

/// A page in a flash-aware model: (page, dirty, mark).
#[derive(Clone, Copy, Debug)]
struct Entry {
    page: u32,
    dirty: bool,
    mark: bool,
}

fn entry(page: u32, op: Op) -> Entry {
    Entry {
        page,
        dirty: op.is_write(),
        mark: false,
    }
}

fn find(list: &[Entry], page: u32) -> Option<usize> {
    list.iter().position(|e| e.page == page)
}

fn take(list: &mut Vec<Entry>, i: usize) -> Event {
    let e = list.remove(i);
    Event::Miss(Some(Victim {
        page: e.page,
        dirty: e.dirty,
    }))
}

/// CFLRU: one list, index 0 the LRU end; the window is its first
/// round(w·cap) entries.
struct CflruModel {
    cap: usize,
    w: f64,
    list: Vec<Entry>,
}
impl Model for CflruModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        if let Some(i) = find(&self.list, page) {
            let mut e = self.list.remove(i);
            e.dirty |= op.is_write();
            self.list.push(e);
            return Event::Hit;
        }
        let mut out = Event::Miss(None);
        if self.list.len() == self.cap {
            let window = (self.w * self.cap as f64).round() as usize;
            let clean = self.list[..window]
                .iter()
                .position(|e| !e.dirty && ev(e.page));
            match clean.or_else(|| self.list.iter().position(|e| ev(e.page))) {
                Some(i) => out = take(&mut self.list, i),
                None => return Event::Miss(None),
            }
        }
        self.list.push(entry(page, op));
        out
    }
}

/// LRU-WSR: one list, index 0 the LRU end, `mark` = cold.
struct LruWsrModel {
    cap: usize,
    list: Vec<Entry>,
}
impl Model for LruWsrModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        if let Some(i) = find(&self.list, page) {
            let mut e = self.list.remove(i);
            e.dirty |= op.is_write();
            e.mark = false;
            self.list.push(e);
            return Event::Hit;
        }
        let mut out = Event::Miss(None);
        if self.list.len() == self.cap {
            let mut i = 0;
            let mut victim = None;
            while i < self.list.len() {
                let e = self.list[i];
                if !ev(e.page) {
                    i += 1;
                } else if !e.dirty || e.mark {
                    victim = Some(i);
                    break;
                } else {
                    // Second chance: cold, to the MRU end; the next page
                    // slides into position i.
                    let mut e = self.list.remove(i);
                    e.mark = true;
                    self.list.push(e);
                }
            }
            match victim {
                Some(i) => out = take(&mut self.list, i),
                None => return Event::Miss(None),
            }
        }
        self.list.push(entry(page, op));
        out
    }
}

/// CCF-LRU: the cold-clean list and the mixed list (`mark` = cold), index 0
/// the LRU end of each.
struct CcfLruModel {
    cap: usize,
    cold_clean: Vec<Entry>,
    mixed: Vec<Entry>,
}
impl Model for CcfLruModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        let found = find(&self.cold_clean, page)
            .map(|i| self.cold_clean.remove(i))
            .or_else(|| find(&self.mixed, page).map(|i| self.mixed.remove(i)));
        if let Some(mut e) = found {
            e.dirty |= op.is_write();
            e.mark = false;
            self.mixed.push(e);
            return Event::Hit;
        }
        let mut out = Event::Miss(None);
        if self.cold_clean.len() + self.mixed.len() == self.cap {
            out = self.evict(ev);
            if out == Event::Miss(None) {
                return out;
            }
        }
        let e = Entry {
            page,
            dirty: op.is_write(),
            mark: true,
        };
        if op.is_write() {
            self.mixed.push(e);
        } else {
            self.cold_clean.push(e);
        }
        out
    }
}
impl CcfLruModel {
    fn evict(&mut self, ev: &dyn Fn(u32) -> bool) -> Event {
        if let Some(i) = self.cold_clean.iter().position(|e| ev(e.page)) {
            return take(&mut self.cold_clean, i);
        }
        // One pass over the mixed list as it was when the search began.
        let snapshot: Vec<u32> = self.mixed.iter().map(|e| e.page).collect();
        for p in snapshot {
            let i = find(&self.mixed, p).unwrap();
            let e = self.mixed[i];
            if !ev(p) {
                continue;
            }
            if e.mark {
                return take(&mut self.mixed, i);
            }
            let mut e = self.mixed.remove(i);
            e.mark = true;
            if e.dirty {
                self.mixed.push(e);
            } else {
                self.cold_clean.push(e);
            }
        }
        if let Some(i) = self.cold_clean.iter().position(|e| ev(e.page)) {
            return take(&mut self.cold_clean, i);
        }
        if let Some(i) = self.mixed.iter().position(|e| ev(e.page)) {
            return take(&mut self.mixed, i);
        }
        Event::Miss(None)
    }
}

/// CASA, Algorithm 1 line by line: C and D, index 0 the LRU end.
struct CasaModel {
    b: usize,
    tau: f64,
    c_r: f64,
    c_w: f64,
    c: Vec<Entry>,
    d: Vec<Entry>,
}
impl Model for CasaModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        let (nc, nd) = (self.c.len() as f64, self.d.len() as f64);
        if let Some(i) = find(&self.c, page) {
            let mut e = self.c.remove(i);
            if op.is_write() {
                e.dirty = true;
                self.d.push(e);
            } else {
                self.tau = (self.tau + self.c_r * nd / nc).min(self.b as f64);
                self.c.push(e);
            }
            return Event::Hit;
        }
        if let Some(i) = find(&self.d, page) {
            let e = self.d.remove(i);
            if op.is_write() {
                self.tau = (self.tau - self.c_w * nc / nd).max(0.0);
            }
            self.d.push(e);
            return Event::Hit;
        }
        let mut out = Event::Miss(None);
        if self.c.len() + self.d.len() == self.b {
            let from_c = nc > self.tau;
            let pick = |l: &Vec<Entry>| l.iter().position(|e| ev(e.page));
            out = match (from_c, pick(&self.c), pick(&self.d)) {
                (true, Some(i), _) | (false, Some(i), None) => take(&mut self.c, i),
                (false, _, Some(i)) | (true, None, Some(i)) => take(&mut self.d, i),
                _ => return Event::Miss(None),
            };
        }
        let e = entry(page, op);
        if op.is_write() {
            self.d.push(e);
        } else {
            self.c.push(e);
        }
        out
    }
}

/// FD-Buffer with LRU pools, Algorithms 1 and 2 line by line: C and D,
/// index 0 the LRU end.
struct FdBufferModel {
    m: usize,
    mc: usize,
    c: Vec<Entry>,
    d: Vec<Entry>,
}
impl Model for FdBufferModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        if let Some(i) = find(&self.c, page) {
            let mut e = self.c.remove(i);
            if op.is_write() {
                e.dirty = true;
                self.d.push(e);
            } else {
                self.c.push(e);
            }
            return Event::Hit;
        }
        if let Some(i) = find(&self.d, page) {
            let e = self.d.remove(i);
            self.d.push(e);
            return Event::Hit;
        }
        let mut out = Event::Miss(None);
        if self.c.len() + self.d.len() == self.m {
            let from_d = if op.is_write() {
                self.c.len() <= self.mc
            } else {
                self.d.len() > self.m - self.mc
            };
            let pick = |l: &Vec<Entry>| l.iter().position(|e| ev(e.page));
            let (first, second) = if from_d {
                (&mut self.d, &mut self.c)
            } else {
                (&mut self.c, &mut self.d)
            };
            out = match (pick(first), pick(second)) {
                (Some(i), _) => take(first, i),
                (None, Some(i)) => take(second, i),
                _ => return Event::Miss(None),
            };
        }
        let e = entry(page, op);
        if op.is_write() {
            self.d.push(e);
        } else {
            self.c.push(e);
        }
        out
    }
}

/// Koltsidas & Viglas §5: one list, index 0 the LRU end; the cost segment
/// is its first round(λ·cap) entries; the victim is the least recent
/// evictable segment page of the cheapest class to evict (r, plus w if
/// dirty; ties clean first, then lower device), else the least recent
/// evictable page.
struct KoltsidasModel {
    cap: usize,
    lambda: f64,
    list: Vec<Entry>,
}
fn koltsidas_cost(page: u32) -> PageCost {
    // Even pages on flash, odd on the magnetic disk: Table 1.
    if page.is_multiple_of(2) {
        PageCost {
            read: 1.0,
            write: 118.0,
            seq_write: 118.0,
            device: DeviceId::FLASH,
        }
    } else {
        PageCost {
            read: 23.0,
            write: 12.0,
            seq_write: 12.0,
            device: DeviceId::MAGNETIC,
        }
    }
}
impl Model for KoltsidasModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        if let Some(i) = find(&self.list, page) {
            let mut e = self.list.remove(i);
            e.dirty |= op.is_write();
            self.list.push(e);
            return Event::Hit;
        }
        let mut out = Event::Miss(None);
        if self.list.len() == self.cap {
            let seg = (self.lambda * self.cap as f64).round() as usize;
            let key = |e: &Entry| {
                let c = koltsidas_cost(e.page);
                (
                    c.read + if e.dirty { c.write } else { 0.0 },
                    e.dirty,
                    c.device,
                )
            };
            let best = (0..seg)
                .filter(|&i| ev(self.list[i].page))
                .min_by(|&a, &b| {
                    let (x, y) = (key(&self.list[a]), key(&self.list[b]));
                    x.0.total_cmp(&y.0)
                        .then(x.1.cmp(&y.1))
                        .then(x.2.cmp(&y.2))
                        .then(a.cmp(&b))
                });
            match best.or_else(|| self.list.iter().position(|e| ev(e.page))) {
                Some(i) => out = take(&mut self.list, i),
                None => return Event::Miss(None),
            }
        }
        self.list.push(entry(page, op));
        out
    }
}

/// Landlord as written (Young 2002) with the writeback-aware cost: every
/// resident page holds a credit, set to r + w·dirty on admission and on
/// each hit; to make room every credit falls by the smallest evictable
/// credit (never rises), and the evictable page at the smallest credit
/// leaves, the one whose credit was set first among equals.
struct WbLandlordModel {
    cap: usize,
    cost: PageCost,
    /// (page, dirty, credit, when the credit was set)
    resident: Vec<(u32, bool, f64, u64)>,
    clock: u64,
}
impl Model for WbLandlordModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        self.clock += 1;
        let full = |dirty: bool, c: PageCost| c.read + if dirty { c.write } else { 0.0 };
        if let Some(e) = self.resident.iter_mut().find(|e| e.0 == page) {
            e.1 |= op.is_write();
            e.2 = full(e.1, self.cost);
            e.3 = self.clock;
            return Event::Hit;
        }
        let mut out = Event::Miss(None);
        if self.resident.len() == self.cap {
            let Some(i) = (0..self.resident.len())
                .filter(|&i| ev(self.resident[i].0))
                .min_by(|&a, &b| {
                    let (x, y) = (self.resident[a], self.resident[b]);
                    x.2.total_cmp(&y.2).then(x.3.cmp(&y.3))
                })
            else {
                return Event::Miss(None);
            };
            let delta = self.resident[i].2.max(0.0);
            for e in &mut self.resident {
                e.2 -= delta;
            }
            let (p, dirty, _, _) = self.resident.remove(i);
            out = Event::Miss(Some(Victim { page: p, dirty }));
        }
        self.resident.push((
            page,
            op.is_write(),
            full(op.is_write(), self.cost),
            self.clock,
        ));
        out
    }
}

/// A deterministic "pinned" pattern: page q is pinned at request i when a
/// hash of (seed, i, q) falls under `share`.
fn pins(seed: u64, share: u8) -> impl Fn(usize, u32) -> bool {
    move |i, q| {
        if share == 0 {
            return false;
        }
        let mut h = seed
            ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ u64::from(q).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 32;
        (h % 100) < u64::from(share)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn lru_matches_reference(cap in 1usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut Lru::new(cap), &t, &pin);
        let want = run_model(&mut QueueModel { cap, promote: true, r: Resident::default() }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn fifo_matches_reference(cap in 1usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut Fifo::new(cap), &t, &pin);
        let want = run_model(&mut QueueModel { cap, promote: false, r: Resident::default() }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn clock_matches_reference(cap in 1usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut Clock::new(cap), &t, &pin);
        let want = run_model(&mut ClockModel { frames: vec![None; cap], hand: 0 }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn twoq_matches_reference(cap in 1usize..16, t in trace_strategy(40, 500), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut TwoQ::new(cap), &t, &pin);
        let kin = (cap / 4).max(1);
        let kout = (cap / 2).max(1);
        let mut m = TwoQModel { cap, kin, kout, a1in: VecDeque::new(), am: VecDeque::new(), a1out: VecDeque::new() };
        let want = run_model(&mut m, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn cflru_matches_reference(cap in 1usize..12, w in 0.0f64..=1.0, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut Cflru::new(cap, w), &t, &pin);
        let want = run_model(&mut CflruModel { cap, w, list: Vec::new() }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn wblandlord_matches_landlord_with_writeback_costs(cap in 1usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40, write in 1u8..8) {
        let pin = pins(seed, share);
        let cost = PageCost::new(1.0, f64::from(write));
        let got = drive_priced(&mut WbLandlord::new(cap), &t, &pin, cost);
        let want = run_model(&mut WbLandlordModel { cap, cost, resident: Vec::new(), clock: 0 }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn koltsidas_matches_section_5(cap in 1usize..12, lambda in 0.0f64..=1.0, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let mut k = Koltsidas::new(cap, Lambda::Fixed(lambda));
        let mut got = Vec::new();
        for (i, &(page, op)) in t.iter().enumerate() {
            if k.access(page, op) {
                got.push(Event::Hit);
                continue;
            }
            let mut victim = None;
            if k.len() >= k.capacity() {
                victim = k.evict(|q| !pin(i, q));
                if victim.is_none() {
                    got.push(Event::Miss(None));
                    continue;
                }
            }
            k.insert(page, op, koltsidas_cost(page));
            got.push(Event::Miss(victim));
        }
        let want = run_model(&mut KoltsidasModel { cap, lambda, list: Vec::new() }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn lruwsr_matches_reference(cap in 1usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut LruWsr::new(cap), &t, &pin);
        let want = run_model(&mut LruWsrModel { cap, list: Vec::new() }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn ccflru_matches_reference(cap in 1usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let got = drive(&mut CcfLru::new(cap), &t, &pin);
        let want = run_model(&mut CcfLruModel { cap, cold_clean: Vec::new(), mixed: Vec::new() }, &t, &pin);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn casa_matches_algorithm_1(cap in 1usize..12, ratio in 1u32..130, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let cost = PageCost::new(1.0, f64::from(ratio));
        let mut casa = Casa::new(cap, CostSource::Model);
        let got = drive_priced(&mut casa, &t, &pin, cost);
        let total = 1.0 + f64::from(ratio);
        let mut m = CasaModel { b: cap, tau: 0.0, c_r: 1.0 / total, c_w: f64::from(ratio) / total, c: Vec::new(), d: Vec::new() };
        let want = run_model(&mut m, &t, &pin);
        prop_assert_eq!(got, want);
        prop_assert!((casa.tau() - m.tau).abs() < 1e-9, "tau {} vs {}", casa.tau(), m.tau);
        prop_assert_eq!(casa.clean_len(), m.c.len());
    }

    #[test]
    fn fdbuffer_matches_algorithms_1_and_2(m in 1usize..12, mc_share in 0.0f64..=1.0, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        let mc = (mc_share * m as f64).round() as usize;
        let mut fd = FdBuffer::new(m, mc, BoxedPolicy::new(Lru::new(m)), BoxedPolicy::new(Lru::new(m)));
        let got = drive(&mut fd, &t, &pin);
        let want = run_model(&mut FdBufferModel { m, mc, c: Vec::new(), d: Vec::new() }, &t, &pin);
        prop_assert_eq!(&got, &want);
        // Pools named as LRU itself (the builder's default) decide alike.
        let mut direct = FdBuffer::new(m, mc, Lru::new(m), Lru::new(m));
        prop_assert_eq!(drive(&mut direct, &t, &pin), want);
        let (c, d) = fd.pool_sizes();
        let (fc, fdr) = fd.pool_frames();
        prop_assert!(c <= fc && d <= fdr && fc + fdr == m);
    }

    #[test]
    fn fdbuffer_keeps_its_frames_with_any_base_policies(m in 1usize..12, mc in 0usize..12, t in trace_strategy(30, 400), seed: u64, share in 0u8..40) {
        let pin = pins(seed, share);
        for (c, d) in [("arc", "2q"), ("clock", "fifo"), ("2q", "arc"), ("lru", "clock")] {
            let pool = |name| boxed_online_policy(&PolicySpec::parse(name).unwrap(), m, 0).unwrap();
            let mut fd = FdBuffer::new(m, mc, pool(c), pool(d));
            for (i, e) in drive(&mut fd, &t, &pin).into_iter().enumerate() {
                if let Event::Miss(Some(v)) = e {
                    prop_assert!(!pin(i, v.page));
                }
                let (pc, pd) = fd.pool_sizes();
                let (fc, fdr) = fd.pool_frames();
                prop_assert!(pc <= fc && pd <= fdr && fc + fdr == m, "{} {}: {:?} {:?}", c, d, (pc, pd), (fc, fdr));
                prop_assert_eq!(fd.dirty_count(), pd);
            }
        }
    }

    #[test]
    fn arc_matches_reference(cap in 1usize..16, t in trace_strategy(40, 500)) {
        let none = |_: usize, _: u32| false;
        let got = drive(&mut Arc::new(cap), &t, &none);
        let mut m = ArcModel { c: cap, p: 0.0, t1: VecDeque::new(), t2: VecDeque::new(), b1: VecDeque::new(), b2: VecDeque::new() };
        let want = run_model(&mut m, &t, &none);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn arc_with_pins_keeps_pinned_pages_and_its_invariants(cap in 1usize..16, t in trace_strategy(40, 500), seed: u64, share in 1u8..40) {
        let pin = pins(seed, share);
        let mut a = Arc::new(cap);
        for (i, e) in drive(&mut a, &t, &pin).into_iter().enumerate() {
            if let Event::Miss(Some(v)) = e {
                prop_assert!(!pin(i, v.page));
            }
            prop_assert!(a.len() <= cap);
            prop_assert!(a.p() >= 0.0 && a.p() <= cap as f64);
        }
    }

    #[test]
    fn belady_matches_reference_miss_and_dirty_eviction_counts(cap in 1usize..10, t in trace_strategy(25, 300)) {
        let words: Vec<u32> = t.iter().map(|&(p, op)| pack(p, op)).collect();
        let mut b = Belady::new(cap, &words).unwrap();
        let ev = drive(&mut b, &t, &|_, _| false);
        let misses = ev.iter().filter(|e| matches!(e, Event::Miss(_))).count() as u64;
        let dirty = ev.iter().filter(|e| matches!(e, Event::Miss(Some(Victim { dirty: true, .. })))).count() as u64;
        prop_assert_eq!((misses, dirty), belady_model_misses(cap, &t));
    }

    #[test]
    fn no_online_policy_beats_belady_in_misses(cap in 1usize..10, t in trace_strategy(25, 300)) {
        let words: Vec<u32> = t.iter().map(|&(p, op)| pack(p, op)).collect();
        let none = |_: usize, _: u32| false;
        let count = |ev: Vec<Event>| ev.iter().filter(|e| matches!(e, Event::Miss(_))).count();
        let opt = count(drive(&mut Belady::new(cap, &words).unwrap(), &t, &none));
        prop_assert!(opt <= count(drive(&mut Lru::new(cap), &t, &none)));
        prop_assert!(opt <= count(drive(&mut Fifo::new(cap), &t, &none)));
        prop_assert!(opt <= count(drive(&mut Clock::new(cap), &t, &none)));
        prop_assert!(opt <= count(drive(&mut TwoQ::new(cap), &t, &none)));
        prop_assert!(opt <= count(drive(&mut Arc::new(cap), &t, &none)));
    }

    #[test]
    fn belady_equals_exhaustive_optimum_on_tiny_traces(cap in 1usize..4, t in trace_strategy(6, 14)) {
        let words: Vec<u32> = t.iter().map(|&(p, op)| pack(p, op)).collect();
        let got = drive(&mut Belady::new(cap, &words).unwrap(), &t, &|_, _| false)
            .iter().filter(|e| matches!(e, Event::Miss(_))).count();
        prop_assert_eq!(got, exhaustive_min_misses(cap, &t));
    }

    #[test]
    fn dirty_count_matches_is_dirty(cap in 1usize..12, t in trace_strategy(30, 300)) {
        fn check<P: Policy>(mut p: P, t: &[(u32, Op)]) -> Result<(), TestCaseError> {
            drive(&mut p, t, &|_, _| false);
            let n = (0..30).filter(|&q| p.is_dirty(q)).count();
            prop_assert_eq!(n, p.dirty_count());
            Ok(())
        }
        check(Lru::new(cap), &t)?;
        check(Fifo::new(cap), &t)?;
        check(Clock::new(cap), &t)?;
        check(TwoQ::new(cap), &t)?;
        check(Arc::new(cap), &t)?;
    }
}

/// Minimum misses over every eviction choice (demand paging), by exhaustive
/// search over resident sets.
fn exhaustive_min_misses(cap: usize, t: &[(u32, Op)]) -> usize {
    use std::collections::HashMap;
    fn go(
        cap: usize,
        t: &[(u32, Op)],
        i: usize,
        set: u64,
        memo: &mut HashMap<(usize, u64), usize>,
    ) -> usize {
        if i == t.len() {
            return 0;
        }
        if let Some(&v) = memo.get(&(i, set)) {
            return v;
        }
        let p = t[i].0;
        let bit = 1u64 << p;
        let v = if set & bit != 0 {
            go(cap, t, i + 1, set, memo)
        } else if (set.count_ones() as usize) < cap {
            1 + go(cap, t, i + 1, set | bit, memo)
        } else {
            (0..64)
                .filter(|q| set & (1 << q) != 0)
                .map(|q| 1 + go(cap, t, i + 1, (set & !(1 << q)) | bit, memo))
                .min()
                .expect("full set is not empty")
        };
        memo.insert((i, set), v);
        v
    }
    go(cap, t, 0, 0, &mut HashMap::new())
}

fn ops(s: &str) -> Vec<(u32, Op)> {
    s.split_whitespace()
        .map(|tok| {
            let (op, p) = tok.split_at(1);
            (
                p.parse().unwrap(),
                if op == "w" { Op::Write } else { Op::Read },
            )
        })
        .collect()
}

fn misses<P: Policy>(mut p: P, t: &[(u32, Op)]) -> usize {
    drive(&mut p, t, &|_, _| false)
        .iter()
        .filter(|e| matches!(e, Event::Miss(_)))
        .count()
}

#[test]
fn hand_worked_reference_string_gives_textbook_miss_counts() {
    // The classic string 7 0 1 2 0 3 0 4 2 3 0 3 2 1 2 0 1 7 0 1 with three
    // frames: 15 faults FIFO, 12 LRU, 9 OPT (Silberschatz, "Operating System
    // Concepts", ch. 10).
    let t = ops("r7 r0 r1 r2 r0 r3 r0 r4 r2 r3 r0 r3 r2 r1 r2 r0 r1 r7 r0 r1");
    let words: Vec<u32> = t.iter().map(|&(p, op)| pack(p, op)).collect();
    assert_eq!(misses(Fifo::new(3), &t), 15);
    assert_eq!(misses(Lru::new(3), &t), 12);
    assert_eq!(misses(Belady::new(3, &words).unwrap(), &t), 9);
}

#[test]
fn fifo_shows_beladys_anomaly_and_lru_does_not() {
    // 1 2 3 4 1 2 5 1 2 3 4 5: FIFO faults 9 with 3 frames, 10 with 4.
    let t = ops("r1 r2 r3 r4 r1 r2 r5 r1 r2 r3 r4 r5");
    assert_eq!(misses(Fifo::new(3), &t), 9);
    assert_eq!(misses(Fifo::new(4), &t), 10);
    assert_eq!(misses(Lru::new(3), &t), 10);
    assert_eq!(misses(Lru::new(4), &t), 8);
}

#[test]
fn clock_gives_second_chance_to_referenced_pages() {
    // Frames [1,2,3] all referenced; 4 sweeps and clears every bit, evicts 1.
    // Then 2 is hit (bit set again); 5 skips 2, evicts 3.
    let t = ops("r1 r2 r3 r4 r2 r5");
    let mut c = Clock::new(3);
    let ev = drive(&mut c, &t, &|_, _| false);
    assert_eq!(
        ev[3],
        Event::Miss(Some(Victim {
            page: 1,
            dirty: false
        }))
    );
    assert_eq!(ev[4], Event::Hit);
    assert_eq!(
        ev[5],
        Event::Miss(Some(Victim {
            page: 3,
            dirty: false
        }))
    );
}

#[test]
fn belady_evicts_a_clean_page_first_among_never_reused() {
    // Buffer 2: w1 r2 then r3 needs a victim; neither 1 nor 2 is used again,
    // so the clean page 2 goes and no write-back happens.
    let t = ops("w1 r2 r3");
    let words: Vec<u32> = t.iter().map(|&(p, op)| pack(p, op)).collect();
    let ev = drive(&mut Belady::new(2, &words).unwrap(), &t, &|_, _| false);
    assert_eq!(
        ev[2],
        Event::Miss(Some(Victim {
            page: 2,
            dirty: false
        }))
    );
}

#[test]
fn scan_resistance_of_2q_and_arc_beats_lru_on_hot_set_plus_scan() {
    // A hot set of 4 pages, each referenced twice to establish it, then
    // rounds of the hot set between one-time scan pages. With 5 frames LRU
    // cycles through 6 pages a round and, after the first round, misses every
    // request (4 + 2 + 49 × 6 = 300); 2Q and ARC
    // keep the hot set (ARC in T2) and miss only the scan pages.
    let mut s = String::from("r0 r0 r1 r1 r2 r2 r3 r3 ");
    for round in 0..50 {
        for h in 0..4 {
            s.push_str(&format!("r{h} "));
        }
        s.push_str(&format!("r{} r{} ", 100 + 2 * round, 101 + 2 * round));
    }
    let t = ops(&s);
    assert_eq!(misses(Lru::new(5), &t), 300);
    assert_eq!(misses(Arc::new(5), &t), 4 + 100);
    assert!(misses(TwoQ::new(5), &t) < 300);
}

/// FD-Buffer Table 1: a 2-page buffer, both pools LRU, M_c = 1, warmed with
/// clean pages (Y, then X, so that the buffer states match the table), then
/// W_A W_B R_C R_D R_C R_D R_C W_B R_A. After the warm-up Belady reads 6
/// pages and writes 2, FD-Buffer reads 8 and writes 1; `sim` counts the two
/// warm-up reads too.
#[test]
fn fdbuffer_table_1_exactly() {
    use flashlayer::device::DeviceModel;
    use flashlayer::sim::Simulator;
    use flashlayer::store::CostStore;
    let (x, y, a, b, c, d) = (0, 1, 2, 3, 4, 5);
    let (r, w) = (Op::Read, Op::Write);
    let t = [
        (y, r),
        (x, r),
        (a, w),
        (b, w),
        (c, r),
        (d, r),
        (c, r),
        (d, r),
        (c, r),
        (b, w),
        (a, r),
    ];
    let words: Vec<u32> = t.iter().map(|&(p, op)| pack(p, op)).collect();
    fn replay<P: Policy>(p: P, t: &[(u32, Op)]) -> flashlayer::types::Metrics {
        let mut sim = Simulator::new(p, CostStore::new(DeviceModel::unit())).unwrap();
        for &(page, op) in t {
            sim.request(page, op).unwrap();
        }
        sim.finish()
    }
    let fd = replay(
        FdBuffer::new(
            2,
            1,
            BoxedPolicy::new(Lru::new(2)),
            BoxedPolicy::new(Lru::new(2)),
        ),
        &t,
    );
    let opt = replay(Belady::new(2, &words).unwrap(), &t);
    assert_eq!((fd.physical_reads, fd.physical_writes, fd.hits), (10, 1, 1));
    assert_eq!(
        (opt.physical_reads, opt.physical_writes, opt.hits),
        (8, 2, 3)
    );
    // Every state of the table after the warm-up is [D, C]: one dirty page
    // and one clean page.
    let mut p = FdBuffer::new(
        2,
        1,
        BoxedPolicy::new(Lru::new(2)),
        BoxedPolicy::new(Lru::new(2)),
    );
    let mut states = Vec::new();
    for &(page, op) in &t {
        if !p.access(page, op) {
            if p.len() == 2 {
                p.evict(|_| true).unwrap();
            }
            p.insert(page, op, COST);
        }
        states.push(p.pool_sizes());
    }
    assert_eq!(states[..2], [(1, 0), (2, 0)], "warm-up: clean pages");
    assert_eq!(states[2..], [(1, 1); 9]);
}

/// A page adopted from another pool is not a ghost hit: ARC's target p does
/// not move, where the same page returning on a demand miss moves it.
#[test]
fn adopting_a_ghost_is_not_a_ghost_hit() {
    let setup = || {
        let mut a = Arc::new(2);
        for p in [1, 2] {
            assert!(!a.access(p, Op::Read));
            a.insert(p, Op::Read, COST);
        }
        assert!(a.access(2, Op::Read), "2 moves to T2");
        assert!(!a.access(3, Op::Read));
        assert_eq!(a.evict(|_| true).map(|v| v.page), Some(1), "1 goes to B1");
        a.insert(3, Op::Read, COST);
        a
    };
    let mut moved = setup();
    moved.evict(|_| true).unwrap();
    moved.adopt(1, true, COST);
    assert!(moved.contains(1) && moved.is_dirty(1));
    assert_eq!(moved.p(), 0.0);

    let mut demand = setup();
    assert!(!demand.access(1, Op::Write));
    demand.evict(|_| true).unwrap();
    demand.insert(1, Op::Write, COST);
    assert_eq!(demand.p(), 1.0, "a ghost hit in B1 raises p");
}

/// `mc=auto` moves M_c the right way: a write-heavy mix on an expensive
/// write grows the dirty pool; the same mix at asymmetry 1, where the read
/// set is the busier one, grows the clean pool. The larger buffer runs the
/// sampled estimator (1 page in 8).
#[test]
fn fdbuffer_auto_moves_mc_towards_the_cheaper_pool() {
    use flashlayer::device::DeviceModel;
    use flashlayer::sim::Simulator;
    use flashlayer::store::CostStore;
    use rand::{Rng, SeedableRng};
    for (m, set, n) in [(100usize, 80u32, 400_000usize), (4096, 3300, 3_000_000)] {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        // 70% reads over one set, 30% writes over another, each 80% of M.
        let trace: Vec<(u32, Op)> = (0..n)
            .map(|_| {
                if rng.random_bool(0.7) {
                    (rng.random_range(0..set), Op::Read)
                } else {
                    (set + rng.random_range(0..set), Op::Write)
                }
            })
            .collect();
        let mc_after = |device: &str| {
            let fd = FdBuffer::with_mc(
                m,
                Mc::Auto { epoch: 5_000 },
                CostSource::Model,
                BoxedPolicy::new(Lru::new(m)),
                BoxedPolicy::new(Lru::new(m)),
            );
            let store = CostStore::new(DeviceModel::parse(device).unwrap());
            let mut sim = Simulator::new(fd, store).unwrap();
            for &(p, op) in &trace {
                sim.request(p, op).unwrap();
            }
            sim.policy().mc()
        };
        let (symmetric, asymmetric) = (mc_after("ratio:1:1"), mc_after("ratio:1:64"));
        assert!(symmetric > m / 2, "M = {m}: M_c grew at 1:1: {symmetric}");
        assert!(
            asymmetric < m / 2,
            "M = {m}: M_c shrank at 1:64: {asymmetric}"
        );
    }
}

/// CFDC, restated slowly: the list in LRU order, the priority region as
/// its LRU-most `round(w·B)` pages, clusters as vectors of pages in join
/// order, and the victim cluster found by sorting every cluster by its
/// list (log-quantised IPD/n² at its last growth) and growth order.
struct CfdcModel {
    cap: usize,
    window: usize,
    max: usize,
    list: Vec<Entry>,
    /// Pages of the region, as it was after the last refill.
    region: Vec<u32>,
    clusters: Vec<ModelCluster>,
    clock: u64,
    growths: u64,
}

#[derive(Clone, Debug)]
struct ModelCluster {
    pages: Vec<u32>,
    ipd: f64,
    last: u64,
    stamp: u64,
    bucket: i64,
    grown: u64,
}

impl ModelCluster {
    fn k(&self) -> f64 {
        let n = self.pages.len() as f64;
        let ipd = if self.pages.len() <= 1 {
            1.0
        } else {
            self.ipd.max(1.0)
        };
        ipd / (n * n)
    }
}

impl CfdcModel {
    fn cluster_of(&self, page: u32) -> Option<usize> {
        self.clusters.iter().position(|c| c.pages.contains(&page))
    }

    fn grow(&mut self, c: usize, page: u32) {
        let cl = &mut self.clusters[c];
        let number = u64::from(page);
        if !cl.pages.is_empty() {
            cl.ipd += number.abs_diff(cl.last) as f64;
        }
        cl.last = number;
        cl.pages.push(page);
        cl.stamp = self.clock;
        self.growths += 1;
        cl.grown = self.growths;
        cl.bucket = ((4.0 * cl.k().log2()).floor() + 64.0).clamp(0.0, 127.0) as i64;
    }

    fn dirty_in_region(&self, page: Option<u32>) -> Option<usize> {
        let p = page?;
        let dirty = self.list.iter().any(|e| e.page == p && e.dirty);
        (dirty && self.region.contains(&p))
            .then(|| self.cluster_of(p))
            .flatten()
    }

    fn join(&mut self, page: u32) {
        let below = self.dirty_in_region(page.checked_sub(1));
        let above = self.dirty_in_region(page.checked_add(1));
        let fits = |c: Option<usize>, m: &Self| c.filter(|&c| m.clusters[c].pages.len() < m.max);
        let c = match fits(below, self).or_else(|| fits(above, self)) {
            Some(c) => c,
            None => {
                self.clusters.push(ModelCluster {
                    pages: vec![],
                    ipd: 0.0,
                    last: u64::from(page),
                    stamp: 0,
                    bucket: 0,
                    grown: 0,
                });
                self.clusters.len() - 1
            }
        };
        self.grow(c, page);
        if let (Some(b), Some(a)) = (below, above) {
            if a != b {
                let o = if c == b { a } else { b };
                if self.clusters[c].pages.len() + self.clusters[o].pages.len() <= self.max {
                    let other = self.clusters[o].clone();
                    for &p in &other.pages {
                        self.grow(c, p);
                    }
                    self.clusters[c].ipd += other.ipd;
                    let k = self.clusters[c].k();
                    self.clusters[c].bucket =
                        ((4.0 * k.log2()).floor() + 64.0).clamp(0.0, 127.0) as i64;
                    self.growths += 1;
                    self.clusters[c].grown = self.growths;
                    self.clusters.remove(o);
                }
            }
        }
    }

    fn leave(&mut self, page: u32) {
        self.region.retain(|&p| p != page);
        if let Some(c) = self.cluster_of(page) {
            self.clusters[c].pages.retain(|&p| p != page);
            if self.clusters[c].pages.is_empty() {
                self.clusters.remove(c);
            }
        }
    }

    /// Pages enter the region from the working region's LRU end.
    fn refill(&mut self) {
        for i in 0..self.list.len() {
            if self.region.len() >= self.window {
                break;
            }
            let e = self.list[i];
            if self.region.contains(&e.page) {
                continue;
            }
            self.region.push(e.page);
            if e.dirty {
                self.join(e.page);
            }
        }
    }
}

impl Model for CfdcModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        if let Some(i) = find(&self.list, page) {
            self.clock += 1;
            let mut e = self.list.remove(i);
            e.dirty |= op.is_write();
            self.list.push(e);
            if self.region.contains(&page) {
                self.leave(page);
                self.refill();
            }
            return Event::Hit;
        }
        let mut out = Event::Miss(None);
        if self.list.len() == self.cap {
            let clean = self
                .list
                .iter()
                .find(|e| !e.dirty && ev(e.page) && self.region.contains(&e.page));
            let victim = match clean {
                Some(e) => Some(e.page),
                None => {
                    let mut order: Vec<usize> = (0..self.clusters.len()).collect();
                    order.sort_by_key(|&c| (self.clusters[c].bucket, self.clusters[c].grown));
                    let mut best: Option<(f64, u32)> = None;
                    let mut seen = std::collections::HashSet::new();
                    for c in order {
                        let cl = &self.clusters[c];
                        if seen.contains(&cl.bucket) {
                            continue;
                        }
                        if let Some(&p) = cl.pages.iter().find(|&&p| ev(p)) {
                            seen.insert(cl.bucket);
                            let age = (self.clock.saturating_sub(cl.stamp)).max(1) as f64;
                            let pr = cl.k() / age;
                            if best.is_none_or(|(b, _)| pr < b) {
                                best = Some((pr, p));
                            }
                        }
                    }
                    best.map(|(_, p)| p).or_else(|| {
                        self.list
                            .iter()
                            .find(|e| ev(e.page) && !self.region.contains(&e.page))
                            .map(|e| e.page)
                    })
                }
            };
            let Some(v) = victim else {
                return Event::Miss(None);
            };
            let i = find(&self.list, v).unwrap();
            self.leave(v);
            out = take(&mut self.list, i);
        }
        self.clock += 1;
        self.list.push(entry(page, op));
        self.refill();
        out
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn cfdc_matches_its_slow_restatement(cap in 1usize..12, w in 0.0f64..=1.0, max in 0usize..6, t in trace_strategy(24, 400), seed: u64, share in 0u8..30) {
        let pin = pins(seed, share);
        let mut c = Cfdc::new(cap, w, max);
        // Page numbers are the dense ids; each admission learns its neighbours.
        let mut got = Vec::new();
        for (i, &(page, op)) in t.iter().enumerate() {
            if c.access(page, op) {
                got.push(Event::Hit);
                continue;
            }
            let mut victim = None;
            if c.len() >= c.capacity() {
                victim = c.evict(|q| !pin(i, q));
                if victim.is_none() {
                    got.push(Event::Miss(None));
                    continue;
                }
            }
            c.learn_number(page, u64::from(page), page.checked_sub(1), Some(page + 1));
            c.insert(page, op, COST);
            got.push(Event::Miss(victim));
        }
        let mut m = CfdcModel {
            cap,
            window: (w * cap as f64).round() as usize,
            max: max.max(1),
            list: Vec::new(),
            region: Vec::new(),
            clusters: Vec::new(),
            clock: 0,
            growths: 0,
        };
        let want = run_model(&mut m, &t, &pin);
        prop_assert_eq!(got, want);
    }
}
