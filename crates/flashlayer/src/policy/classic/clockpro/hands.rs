//! CLOCK-Pro's three hands (§3.2 of the paper): HAND_cold evicts, HAND_hot
//! demotes, HAND_test ends test periods.

use super::{in_test, resident_cold, ClockPro, Step, COLD, COLD_TEST, GHOST, HOT, IN};
use crate::policy::list::NIL;
use crate::policy::Victim;
use crate::types::DenseId;

impl ClockPro {
    pub(super) fn next_hand_cold(&mut self) {
        if self.s.cold == 0 {
            self.s.hand_cold = NIL;
            return;
        }
        let mut h = match self.s.hand_cold {
            NIL => self.l.tail(IN),
            h => h,
        };
        while !resident_cold(self.st(h)) {
            h = self.fwd(h);
        }
        self.s.hand_cold = h;
    }

    /// Puts HAND_hot on the next hot page, ending the test periods of the
    /// cold pages it passes.
    pub(super) fn next_hand_hot(&mut self) {
        if self.s.hot == 0 {
            self.s.hand_hot = NIL;
        } else {
            if self.s.hand_hot == NIL {
                self.s.hand_hot = self.l.tail(IN);
            }
            while self.st(self.s.hand_hot) != HOT {
                let p = self.s.hand_hot;
                self.s.hand_hot = self.fwd(p);
                self.end_test(p);
            }
        }
        self.next_hand_test();
    }

    pub(super) fn next_hand_test(&mut self) {
        if self.s.in_test == 0 {
            self.s.hand_test = NIL;
            return;
        }
        let mut h = match (self.s.hand_test, self.s.hand_hot) {
            (NIL, NIL) => self.l.tail(IN),
            (NIL, hot) => hot,
            (h, _) => h,
        };
        while !in_test(self.st(h)) {
            h = self.fwd(h);
        }
        self.s.hand_test = h;
    }

    pub(super) fn organize_hands(&mut self) {
        self.next_hand_cold();
        self.next_hand_hot();
        self.next_hand_test();
    }

    pub(super) fn run_hand_test(&mut self) {
        let p = self.s.hand_test;
        self.end_test(p);
        self.next_hand_test();
    }

    /// Runs HAND_hot until it demotes a hot page or reaches `until` (a page
    /// in its test period, or `NIL` to run until a demotion); whether it
    /// demoted one.
    pub(super) fn run_hand_hot(&mut self, until: u32) -> bool {
        let mut demoted = false;
        while self.s.hand_hot != until && self.s.hand_hot != NIL {
            let p = self.s.hand_hot;
            if self.st(p) == HOT {
                if self.l.marked(p) {
                    self.move_to_head(p, HOT);
                } else {
                    self.move_to_head(p, COLD);
                    demoted = true;
                    break;
                }
            } else {
                self.s.hand_hot = self.fwd(p);
                self.end_test(p);
            }
        }
        self.next_hand_hot();
        demoted
    }

    /// Whether `page`, re-referenced, may turn hot: it must be in its test
    /// period, and HAND_hot must demote a hot page before it reaches it
    /// whenever the hot pages fill their share.
    pub(super) fn promotes(&mut self, page: DenseId) -> bool {
        if !in_test(self.st(page)) {
            return false;
        }
        self.adjust_target(true);
        while self.s.hot >= self.cap.saturating_sub(self.s.cold_target) {
            if !in_test(self.st(page)) || self.s.hot == 0 || !self.run_hand_hot(page) {
                return false;
            }
        }
        true
    }

    /// One step of HAND_cold, from the resident cold page it points at.
    pub(super) fn run_hand_cold(&mut self, evictable: &mut impl FnMut(DenseId) -> bool) -> Step {
        let p = self.s.hand_cold;
        if self.l.marked(p) {
            let st = if self.st(p) == COLD_TEST && self.promotes(p) {
                HOT
            } else {
                COLD_TEST
            };
            self.move_to_head(p, st);
            self.next_hand_cold();
            return Step::Moved;
        }
        if !evictable(p) {
            self.s.hand_cold = self.fwd(p);
            self.next_hand_cold();
            return Step::Passed;
        }
        let dirty = self.l.is_dirty(p);
        if self.st(p) == COLD_TEST {
            self.note(p);
            self.l.set_dirty(p, false);
            self.set_status(p, GHOST);
            self.s.hand_cold = self.fwd(p);
        } else {
            self.leave(p);
        }
        while self.s.ghosts > self.cap {
            self.run_hand_test();
        }
        self.next_hand_cold();
        Step::Evicted(Victim { page: p, dirty })
    }
}
