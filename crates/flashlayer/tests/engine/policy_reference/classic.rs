//! Reference models of the classic policies: LRU, FIFO, CLOCK, 2Q, ARC and
//! Belady, each restated slowly.

use super::*;

/// Resident pages with dirty flags, in a Vec, searched linearly.
#[derive(Default)]
pub(crate) struct Resident(Vec<(u32, bool)>);
impl Resident {
    fn pos(&self, p: u32) -> Option<usize> {
        self.0.iter().position(|e| e.0 == p)
    }
}

/// LRU / FIFO model: index 0 is the LRU (or oldest) end.
pub(crate) struct QueueModel {
    pub(crate) cap: usize,
    pub(crate) promote: bool,
    pub(crate) r: Resident,
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
pub(crate) struct ClockModel {
    pub(crate) frames: Vec<Option<(u32, bool, bool)>>, // page, referenced, dirty
    pub(crate) hand: usize,
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
pub(crate) struct TwoQModel {
    pub(crate) cap: usize,
    pub(crate) kin: usize,
    pub(crate) kout: usize,
    pub(crate) a1in: VecDeque<(u32, bool)>, // front = newest
    pub(crate) am: VecDeque<(u32, bool)>,   // front = MRU
    pub(crate) a1out: VecDeque<u32>,
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
pub(crate) struct ArcModel {
    pub(crate) c: usize,
    pub(crate) p: f64,
    pub(crate) t1: VecDeque<(u32, bool)>, // front = MRU
    pub(crate) t2: VecDeque<(u32, bool)>,
    pub(crate) b1: VecDeque<u32>,
    pub(crate) b2: VecDeque<u32>,
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
pub(crate) fn belady_model_misses(cap: usize, trace: &[(u32, Op)]) -> (u64, u64) {
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
