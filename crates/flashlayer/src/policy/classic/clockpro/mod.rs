//! CLOCK-Pro (Jiang, Chen & Zhang, "CLOCK-Pro: An Effective Improvement of
//! the CLOCK Replacement", USENIX ATC 2005): LIRS's reuse-distance test run
//! on one clock, as an OS can afford it. Hits only set a reference bit.
//!
//! Every page the policy knows is on one circle in the order of its last
//! move to the list head: **hot** pages (small reuse distance; they leave
//! only by demotion), resident **cold** pages, and non-resident cold pages
//! (ghosts) still in their **test period**. A cold page re-referenced during
//! its test period proves a reuse distance below the oldest hot page's and
//! turns hot. Three hands sweep the circle from its oldest end (§3.2):
//!
//! - HAND_cold finds the victim: an unreferenced resident cold page leaves
//!   (if in its test period, its entry stays as a ghost); a referenced one
//!   turns hot if in its test period, else starts one, and moves to the head.
//! - HAND_hot demotes the oldest unreferenced hot page when the hot pages
//!   exceed `B − m_c` (a referenced one gets a second chance), ending the
//!   test periods of the cold pages it passes.
//! - HAND_test ends test periods once the ghosts exceed `B` (a ghost leaves
//!   the circle when its test ends).
//!
//! The resident cold target `m_c` adapts (§3.3): +1 when a page in its test
//! period is re-referenced, −1 when a test period ends without one. The
//! paper leaves its bounds and the first fill to the implementation; ours
//! are those of the authors' reference simulator as Caffeine's simulator
//! documents them: `m_c` starts at its least value, `cold` of the buffer (1%,
//! at least one page), and stays within `[cold·B, B − cold·B]`; while the
//! buffer fills, pages enter hot until only `m_c` frames are free, cold
//! after; a page re-referenced in its test period stays cold if HAND_hot
//! finds no hot page to demote before reaching it.
//!
//! libCacheSim 0.3.5's `ClockPro.c` is not compared: its admission check
//! refuses every miss once the cold pages reach their share, and only its
//! eviction could lower them, so its cache keeps its first `⌊ratio·B⌋`
//! objects for ever (`tests/test_libcachesim.py` shows it).
//!
//! Pages the caller cannot evict (pinned) are passed over by HAND_cold;
//! with every resident cold page pinned, the first evictable hot page from
//! HAND_hot's place leaves instead.

mod hands;

use crate::policy::list::{Extra, Lists, Saved, NIL};
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

const IN: u8 = 1;

/// A page's status, kept in its node (one cache line a page).
#[derive(Clone, Copy, Debug)]
struct Status(u8);

impl Extra for Status {
    const EMPTY: Self = Status(OUT);
    type Align = ();
    const ALIGN: Self::Align = ();
}

const OUT: u8 = 0;
const HOT: u8 = 1;
/// Resident cold, its test period over.
const COLD: u8 = 2;
/// Resident cold, in its test period.
const COLD_TEST: u8 = 3;
/// Non-resident cold, in its test period.
const GHOST: u8 = 4;

#[inline]
fn resident(s: u8) -> bool {
    matches!(s, HOT | COLD | COLD_TEST)
}
#[inline]
fn in_test(s: u8) -> bool {
    matches!(s, COLD_TEST | GHOST)
}
#[inline]
fn resident_cold(s: u8) -> bool {
    matches!(s, COLD | COLD_TEST)
}

/// The counts, target and hands: what an eviction changes besides pages.
#[derive(Clone, Copy, Debug)]
struct State {
    hot: usize,
    cold: usize,
    ghosts: usize,
    in_test: usize,
    cold_target: usize,
    hand_hot: u32,
    hand_cold: u32,
    hand_test: u32,
}

/// What one step of HAND_cold did.
enum Step {
    Evicted(Victim),
    /// A referenced page moved to the head.
    Moved,
    /// A pinned page was passed over.
    Passed,
}

/// CLOCK-Pro replacement.
#[derive(Clone, Debug)]
pub struct ClockPro {
    cap: usize,
    cold: f64,
    min_cold: usize,
    max_cold: usize,
    /// The circle, head = the newest move; the mark is the reference bit,
    /// the extra the page's status (kept when it leaves the circle).
    l: Lists<1, Status>,
    s: State,
    /// The last eviction's page changes, and the state before it.
    journal: Vec<(Saved, u8)>,
    before: State,
    recording: bool,
}

impl ClockPro {
    /// A CLOCK-Pro buffer of `capacity` pages whose resident cold target
    /// starts at, and never goes below, 1% of it.
    pub fn new(capacity: usize) -> Self {
        Self::with_cold(capacity, 0.01)
    }

    /// A CLOCK-Pro buffer whose resident cold target stays within
    /// `[cold·capacity, capacity − cold·capacity]` (at least one page).
    pub fn with_cold(capacity: usize, cold: f64) -> Self {
        let s = State {
            hot: 0,
            cold: 0,
            ghosts: 0,
            in_test: 0,
            cold_target: 0,
            hand_hot: NIL,
            hand_cold: NIL,
            hand_test: NIL,
        };
        let mut p = ClockPro {
            cap: capacity,
            cold,
            min_cold: 0,
            max_cold: 0,
            l: Lists::new(),
            s,
            journal: Vec::new(),
            before: s,
            recording: false,
        };
        p.size_target();
        p.s.cold_target = p.min_cold;
        p
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        self
    }

    fn size_target(&mut self) {
        self.min_cold = ((self.cold * self.cap as f64) as usize).max(1);
        self.max_cold = (self.cap - self.min_cold.min(self.cap)).max(self.min_cold);
        self.s.cold_target = self.s.cold_target.clamp(self.min_cold, self.max_cold);
    }

    #[inline]
    fn st(&self, page: DenseId) -> u8 {
        if self.l.list_of(page) == 0 {
            OUT
        } else {
            self.l.extra(page).0
        }
    }

    fn set_status(&mut self, page: DenseId, new: u8) {
        let old = self.st(page);
        let s = &mut self.s;
        for (status, up) in [(old, false), (new, true)] {
            let count = match status {
                HOT => &mut s.hot,
                COLD | COLD_TEST => &mut s.cold,
                GHOST => &mut s.ghosts,
                _ => continue,
            };
            if up {
                *count += 1;
            } else {
                *count -= 1;
            }
            if in_test(status) {
                if up {
                    s.in_test += 1;
                } else {
                    s.in_test -= 1;
                }
            }
        }
        self.l.extra_mut(page).0 = new;
    }

    /// Records a page on the circle before an eviction changes it.
    #[inline]
    fn note(&mut self, page: DenseId) {
        if self.recording {
            self.journal.push((self.l.save(page), self.st(page)));
        }
    }

    /// The next page clockwise: towards the head, from the head round to
    /// the oldest end.
    #[inline]
    fn fwd(&self, page: DenseId) -> u32 {
        match self.l.prev_of(page) {
            NIL => self.l.tail(IN),
            p => p,
        }
    }

    /// Moves every hand on `page` to the next page, before it leaves its
    /// place; a page alone on the circle keeps its hands when it only moves
    /// (`leaving` false) and leaves none behind when it goes.
    fn hands_off(&mut self, page: DenseId, leaving: bool) {
        let next = match self.fwd(page) {
            p if p != page => p,
            _ if leaving => NIL,
            _ => return,
        };
        for h in [
            &mut self.s.hand_hot,
            &mut self.s.hand_cold,
            &mut self.s.hand_test,
        ] {
            if *h == page {
                *h = next;
            }
        }
    }

    /// Puts `page` at the head with status `st` and its reference bit clear.
    fn move_to_head(&mut self, page: DenseId, st: u8) {
        if self.st(page) != OUT {
            self.note(page);
            self.hands_off(page, false);
            self.l.unlink(page);
        }
        self.l.push_front(IN, page);
        self.l.set_mark(page, false);
        self.set_status(page, st);
    }

    /// Takes `page` off the circle.
    fn leave(&mut self, page: DenseId) {
        self.note(page);
        self.hands_off(page, true);
        self.set_status(page, OUT);
        self.l.remove(page);
    }

    fn adjust_target(&mut self, up: bool) {
        let t = &mut self.s.cold_target;
        *t = if up { *t + 1 } else { t.saturating_sub(1) }.clamp(self.min_cold, self.max_cold);
    }

    /// Ends `page`'s test period, if it is in one: a ghost leaves the circle.
    fn end_test(&mut self, page: DenseId) {
        let st = self.st(page);
        if !in_test(st) {
            return;
        }
        let referenced = self.l.marked(page);
        if st == COLD_TEST {
            self.note(page);
            self.set_status(page, COLD);
        } else {
            self.leave(page);
        }
        self.adjust_target(referenced);
    }

    /// Every resident cold page is pinned: the first evictable hot page
    /// from HAND_hot's place leaves.
    fn evict_hot(&mut self, evictable: &mut impl FnMut(DenseId) -> bool) -> Option<Victim> {
        let mut p = self.s.hand_hot;
        for _ in 0..self.l.len(IN) {
            if p == NIL {
                return None;
            }
            if self.st(p) == HOT && evictable(p) {
                let dirty = self.l.is_dirty(p);
                self.leave(p);
                self.organize_hands();
                return Some(Victim { page: p, dirty });
            }
            p = self.fwd(p);
        }
        None
    }

    fn undo(&mut self) {
        while let Some((saved, st)) = self.journal.pop() {
            let page = saved.page();
            self.l.restore(saved);
            self.l.extra_mut(page).0 = st;
        }
        self.s = self.before;
    }
}

impl Policy for ClockPro {
    fn name(&self) -> String {
        format!("CLOCK-Pro({})", self.cold)
    }
    crate::policy::list::list_policy_basics!();
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
        self.size_target();
        while self.s.ghosts > self.cap {
            self.run_hand_test();
        }
        self.organize_hands();
    }
    fn len(&self) -> usize {
        self.s.hot + self.s.cold
    }
    fn contains(&self, page: DenseId) -> bool {
        resident(self.st(page))
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        self.l.prefetch(page);
    }

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        if !resident(self.st(page)) {
            return false;
        }
        self.l.set_mark(page, true);
        self.l.dirty_if_write(page, op);
        true
    }

    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        // While the buffer fills, pages enter hot until only the least cold
        // target's frames are free; later a page seen in its test period
        // turns hot if HAND_hot makes room, any other enters cold, in its
        // test period.
        let st = if self.cap - self.len() > self.min_cold || self.promotes(page) {
            HOT
        } else {
            COLD_TEST
        };
        self.move_to_head(page, st);
        self.l.set_dirty(page, op.is_write());
        self.organize_hands();
    }

    fn adopt(&mut self, page: DenseId, dirty: bool, cost: PageCost) {
        // It enters as a page seen for the first time: a ghost is forgotten.
        if self.st(page) == GHOST {
            self.leave(page);
        }
        let op = if dirty { Op::Write } else { Op::Read };
        self.insert(page, op, cost);
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        if self.len() == 0 {
            return None;
        }
        self.journal.clear();
        self.before = self.s;
        self.recording = true;
        let mut passed = 0;
        let victim = loop {
            if self.s.cold == 0 {
                // Hot pages above their share (a pool that shrank): HAND_hot
                // makes a cold one.
                self.run_hand_hot(NIL);
                self.next_hand_cold();
            }
            match self.run_hand_cold(&mut evictable) {
                Step::Evicted(v) => break Some(v),
                Step::Moved => passed = 0,
                Step::Passed => passed += 1,
            }
            if passed > self.s.cold {
                break self.evict_hot(&mut evictable);
            }
        };
        self.recording = false;
        if victim.is_none() {
            self.undo();
        }
        victim
    }

    fn reinstate(&mut self, v: Victim) {
        self.undo();
        debug_assert!(self.contains(v.page));
        self.l.set_dirty(v.page, v.dirty);
    }

    crate::policy::list::dirty_marks!();

    fn remove(&mut self, page: DenseId) -> Option<bool> {
        if !self.contains(page) {
            return None;
        }
        let dirty = self.l.is_dirty(page);
        self.leave(page);
        self.organize_hands();
        Some(dirty)
    }
}

// The policy's spec (`policy/named.rs`).

const COLD_SHARE: crate::spec::Param = crate::spec::Param {
    key: "cold",
    ty: crate::spec::Ty::FractionTo(0.5),
    default: "0.01",
    help: "least share of the buffer the resident cold pages target, and where the target starts; \
           the most is 1 - cold (the authors' reference simulator's 1%, at least one page)",
};

named!(
    ClockPro,
    "clockpro",
    "CLOCK-Pro, Jiang et al. 2005: LIRS's reuse-distance test on one clock with three hands; \
                          hits set a bit, the resident cold target adapts (not compared with libCacheSim's, which stops evicting)", Serves::POOL,
    [COLD_SHARE],
    f64,
    |g| Ok(g.fraction("cold")),
    |p, capacity| ClockPro::with_cold(capacity, p)
);

#[cfg(test)]
mod tests;
