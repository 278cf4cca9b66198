//! CLOCK-Pro's decisions, worked by hand.

use super::*;
use crate::policy::testing::{agrees_at_sizes, Xorshift, MODEL_SIZES};

const C: PageCost = PageCost::new(1.0, 1.0);

#[derive(Clone, Copy, PartialEq, Debug)]
enum S {
    Hot,
    Cold,
    ColdTest,
    Ghost,
}

/// CLOCK-Pro over a vector (index 0 = the head, the last = the oldest
/// end), hands as page ids, following the paper's §3.2–3.3 with the
/// reference simulator's bounds and first fill.
struct Model {
    cap: usize,
    min: usize,
    max: usize,
    target: usize,
    clock: Vec<(DenseId, S, bool)>,
    hot: Option<DenseId>,
    cold: Option<DenseId>,
    test: Option<DenseId>,
}

impl Model {
    fn new(cap: usize) -> Self {
        let min = (cap / 100).max(1);
        let max = (cap - min.min(cap)).max(min);
        Model {
            cap,
            min,
            max,
            target: min,
            clock: Vec::new(),
            hot: None,
            cold: None,
            test: None,
        }
    }
    fn pos(&self, p: DenseId) -> Option<usize> {
        self.clock.iter().position(|e| e.0 == p)
    }
    fn st(&self, p: DenseId) -> Option<S> {
        self.pos(p).map(|i| self.clock[i].1)
    }
    fn count(&self, f: impl Fn(S) -> bool) -> usize {
        self.clock.iter().filter(|e| f(e.1)).count()
    }
    fn hots(&self) -> usize {
        self.count(|s| s == S::Hot)
    }
    fn resident(&self) -> usize {
        self.count(|s| s != S::Ghost)
    }
    /// Clockwise: towards index 0, then round to the oldest end.
    fn fwd(&self, p: DenseId) -> DenseId {
        let i = self.pos(p).unwrap();
        if i == 0 {
            self.clock.last().unwrap().0
        } else {
            self.clock[i - 1].0
        }
    }
    fn unhand(&mut self, p: DenseId, leaving: bool) {
        let n = self.fwd(p);
        if n == p && !leaving {
            return;
        }
        let n = (n != p).then_some(n);
        for h in [&mut self.hot, &mut self.cold, &mut self.test] {
            if *h == Some(p) {
                *h = n;
            }
        }
    }
    fn take(&mut self, p: DenseId, leaving: bool) {
        self.unhand(p, leaving);
        let i = self.pos(p).unwrap();
        self.clock.remove(i);
    }
    fn head(&mut self, p: DenseId, s: S) {
        if self.pos(p).is_some() {
            self.take(p, false);
        }
        self.clock.insert(0, (p, s, false));
    }
    fn set(&mut self, p: DenseId, s: S) {
        let i = self.pos(p).unwrap();
        self.clock[i].1 = s;
    }
    fn adjust(&mut self, up: bool) {
        let t = if up {
            self.target + 1
        } else {
            self.target.saturating_sub(1)
        };
        self.target = t.clamp(self.min, self.max);
    }
    fn end_test(&mut self, p: DenseId) {
        let i = self.pos(p).unwrap();
        let (_, s, r) = self.clock[i];
        match s {
            S::ColdTest => self.clock[i].1 = S::Cold,
            S::Ghost => self.take(p, true),
            _ => return,
        }
        self.adjust(r);
    }
    fn seek(&self, from: Option<DenseId>, ok: impl Fn(S) -> bool) -> Option<DenseId> {
        if !self.clock.iter().any(|e| ok(e.1)) {
            return None;
        }
        let mut h = from.unwrap_or_else(|| self.clock.last().unwrap().0);
        while !ok(self.st(h).unwrap()) {
            h = self.fwd(h);
        }
        Some(h)
    }
    fn seek_hot(&mut self) {
        if self.hots() == 0 {
            self.hot = None;
        } else {
            let mut h = self.hot.unwrap_or_else(|| self.clock.last().unwrap().0);
            while self.st(h) != Some(S::Hot) {
                let p = h;
                h = self.fwd(p);
                self.hot = Some(h);
                self.end_test(p);
                h = self.hot.unwrap();
            }
            self.hot = Some(h);
        }
        self.seek_test();
    }
    fn seek_test(&mut self) {
        let from = self.test.or(self.hot);
        self.test = self.seek(from, |s| matches!(s, S::ColdTest | S::Ghost));
    }
    fn organize(&mut self) {
        self.cold = self.seek(self.cold, |s| matches!(s, S::Cold | S::ColdTest));
        self.seek_hot();
        self.seek_test();
    }
    fn hand_hot(&mut self, until: DenseId) -> bool {
        let mut demoted = false;
        while self.hot.is_some() && self.hot != Some(until) {
            let p = self.hot.unwrap();
            let i = self.pos(p).unwrap();
            if self.clock[i].1 == S::Hot {
                if self.clock[i].2 {
                    self.head(p, S::Hot);
                } else {
                    self.head(p, S::Cold);
                    demoted = true;
                    break;
                }
            } else {
                self.hot = Some(self.fwd(p));
                self.end_test(p);
            }
        }
        self.seek_hot();
        demoted
    }
    fn promotes(&mut self, p: DenseId) -> bool {
        let in_test = |m: &Self| matches!(m.st(p), Some(S::ColdTest | S::Ghost));
        if !in_test(self) {
            return false;
        }
        self.adjust(true);
        while self.hots() >= self.cap - self.target {
            if !in_test(self) || !self.hand_hot(p) {
                return false;
            }
        }
        true
    }
    /// One HAND_cold step; the page it evicted, if any.
    fn hand_cold(&mut self) -> Option<DenseId> {
        let p = self.cold.unwrap();
        let (_, s, r) = self.clock[self.pos(p).unwrap()];
        let victim = if r {
            let to = if s == S::ColdTest && self.promotes(p) {
                S::Hot
            } else {
                S::ColdTest
            };
            self.head(p, to);
            None
        } else {
            if s == S::ColdTest {
                self.set(p, S::Ghost);
                self.cold = Some(self.fwd(p));
            } else {
                self.take(p, true);
            }
            while self.count(|s| s == S::Ghost) > self.cap {
                let t = self.test.unwrap();
                self.end_test(t);
                self.seek_test();
            }
            Some(p)
        };
        self.cold = self.seek(self.cold, |s| matches!(s, S::Cold | S::ColdTest));
        victim
    }
    fn request(&mut self, p: DenseId) -> (bool, Option<DenseId>) {
        if matches!(self.st(p), Some(S::Hot | S::Cold | S::ColdTest)) {
            let i = self.pos(p).unwrap();
            self.clock[i].2 = true;
            return (true, None);
        }
        let mut victim = None;
        if self.resident() == self.cap {
            while victim.is_none() {
                victim = self.hand_cold();
            }
        }
        let s = if self.cap - self.resident() > self.min || self.promotes(p) {
            S::Hot
        } else {
            S::ColdTest
        };
        self.head(p, s);
        self.organize();
        (false, victim)
    }
}

#[test]
fn clockpro_runs_its_three_hands_as_the_paper_says_victim_by_victim() {
    agrees_at_sizes(&MODEL_SIZES, 0x9e3779b97f4a7c15, |cap| {
        let mut m = Model::new(cap);
        (ClockPro::new(cap), move |p| m.request(p))
    });
}

/// A buffer of `cap` pages after misses on pages `0..cap`.
fn filled(cap: usize) -> ClockPro {
    let mut c = ClockPro::new(cap);
    for p in 0..cap as DenseId {
        assert!(!c.access(p, Op::Read));
        c.insert(p, Op::Read, C);
    }
    c
}

#[test]
fn clockpro_hit_in_test_period_turns_a_cold_page_hot() {
    // 4 frames, least cold target 1: three pages fill hot, then cold.
    let mut c = filled(4);
    assert_eq!((c.s.hot, c.s.cold), (3, 1));
    assert_eq!(c.st(3), COLD_TEST);
    // 3 is referenced in its test period; the next miss's HAND_cold
    // finds it marked and promotes it, demoting the oldest hot page (0),
    // which is then the victim.
    assert!(c.access(3, Op::Write));
    assert!(!c.access(9, Op::Read));
    let v = c.evict(|_| true).unwrap();
    assert_eq!(
        v,
        Victim {
            page: 0,
            dirty: false
        }
    );
    c.insert(9, Op::Read, C);
    assert_eq!(c.st(3), HOT);
    assert!(c.is_dirty(3));
    assert_eq!(c.len(), 4);
}

#[test]
fn clockpro_ghost_readmitted_in_its_test_period_enters_hot() {
    let mut c = filled(4);
    // 3 (cold, unreferenced) leaves but stays as a ghost in its test.
    assert!(!c.access(4, Op::Read));
    assert_eq!(c.evict(|_| true).unwrap().page, 3);
    c.insert(4, Op::Read, C);
    assert_eq!(c.st(3), GHOST);
    assert!(!c.contains(3));
    assert!(!c.access(3, Op::Read));
    let target = c.s.cold_target;
    let v = c.evict(|_| true).unwrap();
    c.insert(3, Op::Read, C);
    assert_eq!(c.st(3), HOT);
    assert_eq!(c.s.cold_target, target + 1);
    assert!(!c.contains(v.page));
}

#[test]
fn clockpro_passes_pinned_pages_and_reinstate_undoes_everything() {
    let snapshot = |c: &ClockPro| {
        (
            c.l.iter(IN).collect::<Vec<_>>(),
            (0..40)
                .map(|q| (c.st(q), c.l.marked(q), c.is_dirty(q)))
                .collect::<Vec<_>>(),
            format!("{:?}", c.s),
            c.dirty_count(),
        )
    };
    let mut c = ClockPro::new(10);
    let mut rng = Xorshift(7);
    for _ in 0..5_000 {
        let (p, op) = rng.request(40, 3);
        if c.access(p, op) {
            continue;
        }
        if c.len() == c.capacity() {
            let before = snapshot(&c);
            let pinned = rng.0 >> 32 & 7;
            let v = c.evict(|q| u64::from(q) % 8 != pinned).unwrap();
            assert_ne!(u64::from(v.page) % 8, pinned);
            c.reinstate(v);
            let after = snapshot(&c);
            assert_eq!(before, after);
            c.evict(|_| true).unwrap();
        }
        c.insert(p, op, C);
    }
    // Nothing evictable: no victim, nothing changed.
    let before = c.l.iter(IN).collect::<Vec<_>>();
    assert!(!c.access(99, Op::Read));
    assert_eq!(c.evict(|_| false), None);
    assert_eq!(c.l.iter(IN).collect::<Vec<_>>(), before);
}
