//! Reference models of the write-aware policies: CFLRU, LRU-WSR, CCF-LRU,
//! CASA, FD-Buffer, Koltsidas & Viglas, Writeback-Aware Landlord and CFDC,
//! each restated slowly from its paper.

use super::*;

/// A page in a flash-aware model: (page, dirty, mark).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) page: u32,
    pub(crate) dirty: bool,
    pub(crate) mark: bool,
}

pub(crate) fn entry(page: u32, op: Op) -> Entry {
    Entry {
        page,
        dirty: op.is_write(),
        mark: false,
    }
}

pub(crate) fn find(list: &[Entry], page: u32) -> Option<usize> {
    list.iter().position(|e| e.page == page)
}

pub(crate) fn take(list: &mut Vec<Entry>, i: usize) -> Event {
    let e = list.remove(i);
    Event::Miss(Some(Victim {
        page: e.page,
        dirty: e.dirty,
    }))
}

/// One list, index 0 the LRU end: a hit moves the page to the MRU end,
/// dirtied by a write and no longer marked; a miss on a full list takes
/// the victim `pick` names (none: the miss is refused, nothing admitted),
/// then admits the page at the MRU end.
fn one_list_step(
    list: &mut Vec<Entry>,
    cap: usize,
    page: u32,
    op: Op,
    pick: impl FnOnce(&mut Vec<Entry>) -> Option<usize>,
) -> Event {
    if let Some(i) = find(list, page) {
        let mut e = list.remove(i);
        e.dirty |= op.is_write();
        e.mark = false;
        list.push(e);
        return Event::Hit;
    }
    let mut out = Event::Miss(None);
    if list.len() == cap {
        match pick(list) {
            Some(i) => out = take(list, i),
            None => return Event::Miss(None),
        }
    }
    list.push(entry(page, op));
    out
}

/// CFLRU: one list, index 0 the LRU end; the window is its first
/// round(w·cap) entries.
pub(crate) struct CflruModel {
    pub(crate) cap: usize,
    pub(crate) w: f64,
    pub(crate) list: Vec<Entry>,
}
impl Model for CflruModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        let window = (self.w * self.cap as f64).round() as usize;
        one_list_step(&mut self.list, self.cap, page, op, |list| {
            let clean = list[..window].iter().position(|e| !e.dirty && ev(e.page));
            clean.or_else(|| list.iter().position(|e| ev(e.page)))
        })
    }
}

/// LRU-WSR: one list, index 0 the LRU end, `mark` = cold.
pub(crate) struct LruWsrModel {
    pub(crate) cap: usize,
    pub(crate) list: Vec<Entry>,
}
impl Model for LruWsrModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        one_list_step(&mut self.list, self.cap, page, op, |list| {
            let mut i = 0;
            while i < list.len() {
                let e = list[i];
                if !ev(e.page) {
                    i += 1;
                } else if !e.dirty || e.mark {
                    return Some(i);
                } else {
                    // Second chance: cold, to the MRU end; the next page
                    // slides into position i.
                    let mut e = list.remove(i);
                    e.mark = true;
                    list.push(e);
                }
            }
            None
        })
    }
}

/// CCF-LRU: the cold-clean list and the mixed list (`mark` = cold), index 0
/// the LRU end of each.
pub(crate) struct CcfLruModel {
    pub(crate) cap: usize,
    pub(crate) cold_clean: Vec<Entry>,
    pub(crate) mixed: Vec<Entry>,
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

/// A clean pool C and a dirty pool D, index 0 the LRU end of each.
#[derive(Default)]
pub(crate) struct Pools {
    pub(crate) c: Vec<Entry>,
    pub(crate) d: Vec<Entry>,
}

impl Pools {
    /// A hit: a write moves a clean page to D's MRU end, any other hit
    /// moves the page to its own pool's MRU end. Returns whether the page
    /// was in C, or `None` on a miss.
    fn hit(&mut self, page: u32, op: Op) -> Option<bool> {
        if let Some(i) = find(&self.c, page) {
            let mut e = self.c.remove(i);
            if op.is_write() {
                e.dirty = true;
                self.d.push(e);
            } else {
                self.c.push(e);
            }
            return Some(true);
        }
        let i = find(&self.d, page)?;
        let e = self.d.remove(i);
        self.d.push(e);
        Some(false)
    }

    /// A miss in pools of `cap` pages in all: when they are full, the
    /// least recent evictable page of C (`from_c`) or else D goes, or of
    /// the other pool if that one has none (none in either: the miss is
    /// refused, nothing admitted); the missed page then enters D's MRU end
    /// if written, else C's.
    fn miss(
        &mut self,
        cap: usize,
        from_c: bool,
        page: u32,
        op: Op,
        ev: &dyn Fn(u32) -> bool,
    ) -> Event {
        let mut out = Event::Miss(None);
        if self.c.len() + self.d.len() == cap {
            let (first, second) = if from_c {
                (&mut self.c, &mut self.d)
            } else {
                (&mut self.d, &mut self.c)
            };
            let pick = |l: &Vec<Entry>| l.iter().position(|e| ev(e.page));
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

/// CASA, Algorithm 1 line by line.
pub(crate) struct CasaModel {
    pub(crate) b: usize,
    pub(crate) tau: f64,
    pub(crate) c_r: f64,
    pub(crate) c_w: f64,
    pub(crate) pools: Pools,
}
impl Model for CasaModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        let (nc, nd) = (self.pools.c.len() as f64, self.pools.d.len() as f64);
        if let Some(clean) = self.pools.hit(page, op) {
            match (clean, op.is_write()) {
                (true, false) => self.tau = (self.tau + self.c_r * nd / nc).min(self.b as f64),
                (false, true) => self.tau = (self.tau - self.c_w * nc / nd).max(0.0),
                _ => {}
            }
            return Event::Hit;
        }
        let from_c = nc > self.tau;
        self.pools.miss(self.b, from_c, page, op, ev)
    }
}

/// FD-Buffer with LRU pools, Algorithms 1 and 2 line by line.
pub(crate) struct FdBufferModel {
    pub(crate) m: usize,
    pub(crate) mc: usize,
    pub(crate) pools: Pools,
}
impl Model for FdBufferModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        if self.pools.hit(page, op).is_some() {
            return Event::Hit;
        }
        let from_d = if op.is_write() {
            self.pools.c.len() <= self.mc
        } else {
            self.pools.d.len() > self.m - self.mc
        };
        self.pools.miss(self.m, !from_d, page, op, ev)
    }
}

/// Koltsidas & Viglas §5: one list, index 0 the LRU end; the cost segment
/// is its first round(λ·cap) entries; the victim is the least recent
/// evictable segment page of the cheapest class to evict (r, plus w if
/// dirty; ties clean first, then lower device), else the least recent
/// evictable page.
pub(crate) struct KoltsidasModel {
    pub(crate) cap: usize,
    pub(crate) lambda: f64,
    pub(crate) list: Vec<Entry>,
}
pub(crate) fn koltsidas_cost(page: u32) -> PageCost {
    // Even pages on flash, odd on the magnetic disk: Table 1.
    if page.is_multiple_of(2) {
        flashlayer::policy::TABLE_1_FLASH
    } else {
        flashlayer::policy::TABLE_1_MAGNETIC
    }
}
impl Model for KoltsidasModel {
    fn step(&mut self, page: u32, op: Op, ev: &dyn Fn(u32) -> bool) -> Event {
        let seg = (self.lambda * self.cap as f64).round() as usize;
        let key = |e: &Entry| {
            let c = koltsidas_cost(e.page);
            (
                c.read + if e.dirty { c.write } else { 0.0 },
                e.dirty,
                c.device,
            )
        };
        one_list_step(&mut self.list, self.cap, page, op, |list| {
            let best = (0..seg).filter(|&i| ev(list[i].page)).min_by(|&a, &b| {
                let (x, y) = (key(&list[a]), key(&list[b]));
                x.0.total_cmp(&y.0)
                    .then(x.1.cmp(&y.1))
                    .then(x.2.cmp(&y.2))
                    .then(a.cmp(&b))
            });
            best.or_else(|| list.iter().position(|e| ev(e.page)))
        })
    }
}

/// Landlord as written (Young 2002) with the writeback-aware cost: every
/// resident page holds a credit, set to r + w·dirty on admission and on
/// each hit; to make room every credit falls by the smallest evictable
/// credit (never rises), and the evictable page at the smallest credit
/// leaves, the one whose credit was set first among equals.
pub(crate) struct WbLandlordModel {
    pub(crate) cap: usize,
    pub(crate) cost: PageCost,
    /// (page, dirty, credit, when the credit was set)
    pub(crate) resident: Vec<(u32, bool, f64, u64)>,
    pub(crate) clock: u64,
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

/// CFDC, restated slowly: the list in LRU order, the priority region as
/// its LRU-most `round(w·B)` pages, clusters as vectors of pages in join
/// order, and the victim cluster found by sorting every cluster by its
/// list (log-quantised IPD/n² at its last growth) and growth order.
pub(crate) struct CfdcModel {
    pub(crate) cap: usize,
    pub(crate) window: usize,
    pub(crate) max: usize,
    pub(crate) list: Vec<Entry>,
    /// Pages of the region, as it was after the last refill.
    pub(crate) region: Vec<u32>,
    pub(crate) clusters: Vec<ModelCluster>,
    pub(crate) clock: u64,
    pub(crate) growths: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct ModelCluster {
    pub(crate) pages: Vec<u32>,
    pub(crate) ipd: f64,
    pub(crate) last: u64,
    pub(crate) stamp: u64,
    pub(crate) bucket: i64,
    pub(crate) grown: u64,
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
