//! LIRS (Jiang & Zhang, "LIRS: An Efficient Low Inter-reference Recency
//! Set Replacement Policy", SIGMETRICS 2002): a page's worth is its
//! inter-reference recency, the number of other pages seen between its last
//! two references. Pages of low recency (LIR) hold most of the buffer and
//! leave only by demotion; the rest (HIR) share a small part of it, `hirs`
//! of the buffer (1%, at least one page), and are the only pages evicted.
//!
//! Three lists, as the paper's §3.3 keeps them:
//!
//! - stack **S**, in recency order: every LIR page, and the HIR pages
//!   (resident or not) referenced since the oldest LIR page. A reference to
//!   a page of S proves its recency is below that LIR page's: it becomes
//!   LIR, and the oldest LIR page is demoted to HIR. S's bottom is always a
//!   LIR page (stack pruning removes the HIR entries below it).
//! - list **Q**: the resident HIR pages, the oldest first out.
//! - the non-resident HIR pages of S, in the order they left, so that S can
//!   be bounded: beyond twice the buffer, the oldest of them leave S.
//!
//! As libCacheSim 0.3.5 (`LIRS.c`) in its sizes (`hirs` 1%, at least one
//! page), its first fill (pages are LIR while the LIR set has room) and its
//! bound on S, with one difference: a hit on a resident HIR page that is
//! not in S pushes it onto S and to Q's newest end, as the paper says;
//! libCacheSim also demotes the oldest LIR page then, which may evict a
//! page on a hit — something no caller of [`Policy`] can be asked to write
//! back. The miss ratios differ by the bound `tests/test_libcachesim.py`
//! states.
//!
//! Pages the caller cannot evict (pinned) are passed over in Q; with no
//! evictable page in Q, the oldest evictable LIR page leaves instead.

use crate::policy::list::{Bits, Lists, Saved, NIL};
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

/// A list: which [`Lists`] of [`Lirs::l`] holds it, and its number there.
/// S has its own because a page may be in S and Q, or in S and NH, at
/// once; Q and NH never share a page, so they share nodes (a page moving
/// from Q to NH touches one node).
#[derive(Clone, Copy, Debug)]
struct L {
    at: usize,
    tag: u8,
}
const S: L = L { at: 0, tag: 1 };
const Q: L = L { at: 1, tag: 1 };
const NH: L = L { at: 1, tag: 2 };

/// A change an eviction made to one list, for [`Policy::reinstate`].
#[derive(Clone, Copy, Debug)]
struct Step {
    list: L,
    page: DenseId,
    /// Where the page was; `None` if it was in no place of that list.
    was: Option<Saved>,
}

/// LIRS replacement.
#[derive(Clone, Debug)]
pub struct Lirs {
    cap: usize,
    hirs: f64,
    /// Resident HIR pages Q holds before it evicts (`max(1, hirs·B)`).
    hir_cap: usize,
    /// LIR pages the buffer holds (`B − hir_cap`).
    lir_cap: usize,
    /// S (the mark is LIR status), Q and NH.
    l: [Lists<2>; 2],
    lirs: usize,
    dirty: Bits,
    dirty_count: usize,
    /// The page whose miss was announced and not yet admitted, and whether
    /// the room it needs was made (libCacheSim's `can_insert` steps).
    pending: u32,
    prepared: bool,
    /// The last eviction's changes, recorded while `recording`.
    undo: Vec<Step>,
    undo_lirs: usize,
    recording: bool,
}

impl Lirs {
    /// A LIRS buffer of `capacity` pages with libCacheSim's share of
    /// resident HIR pages (1%).
    pub fn new(capacity: usize) -> Self {
        Self::with_hirs(capacity, 0.01)
    }

    /// A LIRS buffer whose resident HIR pages are `hirs` of `capacity`
    /// (at least one page, and at least one page left for LIR pages).
    pub fn with_hirs(capacity: usize, hirs: f64) -> Self {
        let mut p = Lirs {
            cap: capacity,
            hirs,
            hir_cap: 0,
            lir_cap: 0,
            l: [Lists::new(), Lists::new()],
            lirs: 0,
            dirty: Bits::default(),
            dirty_count: 0,
            pending: NIL,
            prepared: false,
            undo: Vec::new(),
            undo_lirs: 0,
            recording: false,
        };
        p.size_sets();
        p
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        for l in &mut self.l {
            l.reserve_pages(pages);
        }
        self.dirty.grow(pages);
        self
    }

    fn size_sets(&mut self) {
        // A buffer of one page has no room for an HIR page: it holds one
        // LIR page, and evicts it.
        let hir = ((self.hirs * self.cap as f64) as usize).max(1);
        self.lir_cap = self.cap.saturating_sub(hir).max(1);
        self.hir_cap = self.cap.saturating_sub(self.lir_cap);
    }

    #[inline]
    fn in_list(&self, list: L, page: DenseId) -> bool {
        self.l[list.at].list_of(page) == list.tag
    }

    #[inline]
    fn is_lir(&self, page: DenseId) -> bool {
        self.in_list(S, page) && self.l[S.at].marked(page)
    }

    fn set_dirty(&mut self, page: DenseId, on: bool) {
        if self.dirty.get(page) != on {
            self.dirty.set(page, on);
            if on {
                self.dirty_count += 1;
            } else {
                self.dirty_count -= 1;
            }
        }
    }

    /// Records `page`'s place in `list` before a change, while an eviction
    /// is recording.
    #[inline]
    fn note(&mut self, list: L, page: DenseId) {
        if self.recording {
            let was = self.in_list(list, page).then(|| self.l[list.at].save(page));
            self.undo.push(Step { list, page, was });
        }
    }

    fn push_front(&mut self, list: L, page: DenseId) {
        self.note(list, page);
        self.l[list.at].push_front(list.tag, page);
    }

    fn take(&mut self, list: L, page: DenseId) {
        self.note(list, page);
        self.l[list.at].remove(page);
    }

    /// Stack pruning: HIR entries below the oldest LIR page leave S (the
    /// last entry stays, as libCacheSim keeps it).
    fn prune(&mut self) {
        while self.l[S.at].len(S.tag) > 1 {
            let bottom = self.l[S.at].tail(S.tag);
            if self.l[S.at].marked(bottom) {
                break;
            }
            if self.in_list(NH, bottom) {
                self.take(NH, bottom);
            }
            self.take(S, bottom);
        }
    }

    /// Bounds S at twice the buffer: the non-resident HIR pages that left
    /// first leave S.
    fn limit_stack(&mut self) {
        while self.l[S.at].len(S.tag) > 2 * self.cap {
            let oldest = self.l[NH.at].tail(NH.tag);
            if oldest == NIL {
                break;
            }
            self.take(NH, oldest);
            self.take(S, oldest);
        }
    }

    /// Evicts the oldest evictable resident HIR page; its entry in S, if
    /// any, stays as a non-resident one.
    fn evict_hir(&mut self, evictable: &mut impl FnMut(DenseId) -> bool) -> Option<Victim> {
        let page = self.l[Q.at].find_from_back(Q.tag, &mut *evictable)?;
        self.take(Q, page);
        if self.in_list(S, page) {
            self.push_front(NH, page);
        }
        let dirty = self.dirty.get(page);
        self.set_dirty(page, false);
        Some(Victim { page, dirty })
    }

    /// Demotes the oldest LIR page to the newest end of Q.
    fn demote(&mut self) {
        // S ends in a LIR page except after the LIR set ran empty (pinned
        // pages, a smaller pool) and refilled above older HIR entries.
        self.prune();
        let bottom = self.l[S.at].tail(S.tag);
        debug_assert!(self.l[S.at].marked(bottom), "S's bottom is a LIR page");
        self.take(S, bottom);
        self.lirs -= 1;
        self.push_front(Q, bottom);
        self.prune();
    }

    /// [`Lirs::demote`], evicting an HIR page first if Q is full; returns
    /// that victim. (libCacheSim takes the LIR page out of S before it
    /// evicts; the two steps touch different pages, so the order is moot.)
    fn demote_lir(&mut self, evictable: &mut impl FnMut(DenseId) -> bool) -> Option<Victim> {
        let victim = if self.l[Q.at].len(Q.tag) + 1 > self.hir_cap {
            self.evict_hir(evictable)
        } else {
            None
        };
        self.demote();
        victim
    }

    /// What the pending miss needs before its page is admitted: room in
    /// the LIR set for a non-resident HIR page of S that becomes LIR, room
    /// in Q for a page seen first. Returns the page evicted on the way.
    fn prepare(&mut self, evictable: &mut impl FnMut(DenseId) -> bool) -> Option<Victim> {
        self.prepared = true;
        let page = self.pending;
        let mut victim = None;
        if page != NIL && self.in_list(S, page) {
            while victim.is_none() && self.lirs + 1 > self.lir_cap && self.lirs > 0 {
                victim = self.demote_lir(evictable);
            }
            if self.in_list(NH, page) {
                self.take(NH, page);
            }
        } else if self.len() >= self.cap && self.lirs + 1 > self.lir_cap {
            while victim.is_none() && self.l[Q.at].len(Q.tag) + 1 > self.hir_cap {
                match self.evict_hir(evictable) {
                    Some(v) => victim = Some(v),
                    None => break,
                }
            }
        }
        victim
    }

    /// Evicts the oldest evictable LIR page outright: every page left in Q
    /// is pinned.
    fn evict_lir(&mut self, evictable: &mut impl FnMut(DenseId) -> bool) -> Option<Victim> {
        let page =
            self.l[S.at].find_from_back(S.tag, |p| self.l[S.at].marked(p) && evictable(p))?;
        self.take(S, page);
        self.lirs -= 1;
        self.prune();
        let dirty = self.dirty.get(page);
        self.set_dirty(page, false);
        Some(Victim { page, dirty })
    }
}

impl Policy for Lirs {
    fn name(&self) -> String {
        format!("LIRS({})", self.hirs)
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
        self.size_sets();
        // LIR pages beyond the new LIR set become HIR; Q's excess leaves
        // by the evictions to come.
        while self.lirs > self.lir_cap {
            self.demote();
        }
    }
    fn len(&self) -> usize {
        self.lirs + self.l[Q.at].len(Q.tag)
    }
    fn contains(&self, page: DenseId) -> bool {
        self.is_lir(page) || self.in_list(Q, page)
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.contains(page) && self.dirty.get(page)
    }
    fn dirty_count(&self) -> usize {
        self.dirty_count
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        for l in &self.l {
            l.prefetch(page);
        }
    }

    // Always inlined into the caller's loop (cachegrind: 14% fewer
    // instructions on the benchmark trace).
    #[inline(always)]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        self.pending = NIL;
        let hit = if self.in_list(S, page) {
            self.l[S.at].move_front(S.tag, page);
            if self.l[S.at].marked(page) {
                self.prune();
                true
            } else if self.in_list(Q, page) {
                // A resident HIR page of S: its recency beats the oldest LIR
                // page's, so they trade places.
                // Q lost this page, so it has room for the demoted one.
                self.l[Q.at].remove(page);
                while self.lirs + 1 > self.lir_cap && self.lirs > 0 {
                    self.demote();
                }
                self.l[S.at].set_mark(page, true);
                self.lirs += 1;
                true
            } else {
                false
            }
        } else if self.in_list(Q, page) {
            self.l[S.at].push_front(S.tag, page);
            self.l[S.at].set_mark(page, false);
            self.l[Q.at].move_front(Q.tag, page);
            true
        } else {
            false
        };
        if hit {
            if op.is_write() {
                self.set_dirty(page, true);
            }
            self.limit_stack();
        } else {
            self.pending = page;
            self.prepared = false;
        }
        hit
    }

    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        if self.pending != page {
            self.pending = page;
            self.prepared = false;
        }
        if !self.prepared {
            let v = self.prepare(&mut |_| true);
            debug_assert!(v.is_none(), "a buffer with room evicts nothing");
        }
        if self.in_list(S, page) {
            // A non-resident HIR page of S: referenced again within S, it
            // becomes LIR.
            self.l[S.at].move_front(S.tag, page);
            self.l[S.at].set_mark(page, true);
            self.lirs += 1;
        } else if self.lirs < self.lir_cap {
            self.l[S.at].push_front(S.tag, page);
            self.l[S.at].set_mark(page, true);
            self.lirs += 1;
        } else {
            self.l[S.at].push_front(S.tag, page);
            self.l[S.at].set_mark(page, false);
            self.l[Q.at].push_front(Q.tag, page);
        }
        self.set_dirty(page, op.is_write());
        self.pending = NIL;
        self.limit_stack();
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        self.undo.clear();
        self.undo_lirs = self.lirs;
        self.recording = true;
        let prepared = self.prepared;
        let mut victim = if prepared {
            None
        } else {
            self.prepare(&mut evictable)
        };
        if victim.is_none() {
            victim = self
                .evict_hir(&mut evictable)
                .or_else(|| self.evict_lir(&mut evictable));
        }
        self.recording = false;
        if victim.is_none() {
            self.undo_all();
            self.prepared = prepared;
        }
        victim
    }

    fn reinstate(&mut self, v: Victim) {
        self.undo_all();
        self.prepared = false;
        self.set_dirty(v.page, v.dirty);
    }

    crate::policy::list::dirty_marks!(set_dirty);
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        if self.is_lir(page) {
            self.l[S.at].remove(page);
            self.lirs -= 1;
            self.prune();
        } else if self.in_list(Q, page) {
            self.l[Q.at].remove(page);
            if self.in_list(S, page) {
                self.l[S.at].remove(page);
            }
        } else {
            return None;
        }
        let dirty = self.dirty.get(page);
        self.set_dirty(page, false);
        Some(dirty)
    }
}

impl Lirs {
    /// Undoes the recorded changes, last first.
    fn undo_all(&mut self) {
        while let Some(step) = self.undo.pop() {
            let l = &mut self.l[step.list.at];
            match step.was {
                Some(s) => l.restore(s),
                None => {
                    if l.list_of(step.page) != 0 {
                        l.remove(step.page);
                    }
                }
            }
        }
        self.lirs = self.undo_lirs;
    }
}

// The policy's spec (`policy/named.rs`).

const HIRS: crate::spec::Param = crate::spec::Param {
    key: "hirs",
    ty: crate::spec::Ty::Fraction,
    default: "0.01",
    help: "share of the buffer for resident HIR pages, at least one page (the paper's and libCacheSim's 1%)",
};

named!(
    Lirs,
    "lirs",
    "LIRS, Jiang & Zhang 2002: pages of low inter-reference recency hold the buffer, the rest share hirs of it; \
                          a hit on a resident HIR page outside S only moves it, as the paper says (libCacheSim's also demotes a LIR page)", Serves::POOL,
    [HIRS],
    f64,
    |g| Ok(g.fraction("hirs")),
    |p, capacity| Lirs::with_hirs(capacity, p)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::{agrees_at_sizes, MODEL_SIZES};

    const C: PageCost = PageCost::new(1.0, 1.0);

    /// LIRS over vectors (front = newest), step by step as the paper's
    /// §3.3 cases and libCacheSim's sizes, first fill and bound on S say.
    struct Model {
        cap: usize,
        lir_cap: usize,
        hir_cap: usize,
        /// (page, LIR)
        s: Vec<(DenseId, bool)>,
        q: Vec<DenseId>,
        /// Non-resident HIR pages of S, newest first.
        nh: Vec<DenseId>,
    }

    impl Model {
        fn new(cap: usize) -> Self {
            let hir = ((0.01 * cap as f64) as usize).max(1);
            let lir_cap = cap.saturating_sub(hir).max(1);
            Model {
                cap,
                lir_cap,
                hir_cap: cap - lir_cap,
                s: Vec::new(),
                q: Vec::new(),
                nh: Vec::new(),
            }
        }
        fn lirs(&self) -> usize {
            self.s.iter().filter(|e| e.1).count()
        }
        fn in_s(&self, p: DenseId) -> Option<usize> {
            self.s.iter().position(|e| e.0 == p)
        }
        fn raise(&mut self, p: DenseId) {
            let i = self.in_s(p).unwrap();
            let e = self.s.remove(i);
            self.s.insert(0, e);
        }
        fn prune(&mut self) {
            while self.s.len() > 1 && !self.s.last().unwrap().1 {
                let (p, _) = self.s.pop().unwrap();
                self.nh.retain(|&x| x != p);
            }
        }
        fn evict_hir(&mut self) -> DenseId {
            let v = self.q.pop().unwrap();
            if self.in_s(v).is_some() {
                self.nh.insert(0, v);
            }
            v
        }
        fn demote(&mut self) -> Option<DenseId> {
            let v = (self.q.len() + 1 > self.hir_cap).then(|| self.evict_hir());
            let (p, lir) = self.s.pop().unwrap();
            assert!(lir);
            self.q.insert(0, p);
            self.prune();
            v
        }
        fn limit(&mut self) {
            while self.s.len() > 2 * self.cap {
                let Some(p) = self.nh.pop() else { break };
                let i = self.in_s(p).unwrap();
                self.s.remove(i);
            }
        }

        fn request(&mut self, p: DenseId) -> (bool, Option<DenseId>) {
            let resident = self.s.contains(&(p, true)) || self.q.contains(&p);
            let full = self.lirs() + self.q.len() == self.cap;
            let mut victim = None;
            match (self.in_s(p), resident) {
                (Some(i), true) if self.s[i].1 => {
                    self.raise(p);
                    self.prune();
                }
                (Some(_), true) => {
                    self.raise(p);
                    self.q.retain(|&x| x != p);
                    while self.lirs() + 1 > self.lir_cap {
                        assert_eq!(self.demote(), None);
                    }
                    self.s[0].1 = true;
                }
                (None, true) => {
                    self.s.insert(0, (p, false));
                    self.q.retain(|&x| x != p);
                    self.q.insert(0, p);
                }
                (Some(_), false) => {
                    self.raise(p);
                    while self.lirs() + 1 > self.lir_cap {
                        // Demotes every time round; the first victim stays.
                        let demoted = self.demote();
                        victim = victim.or(demoted);
                    }
                    self.nh.retain(|&x| x != p);
                    if full && victim.is_none() {
                        victim = Some(self.evict_hir());
                    }
                    self.s[0].1 = true;
                }
                (None, false) => {
                    if full {
                        victim = Some(self.evict_hir());
                    }
                    if self.lirs() < self.lir_cap {
                        self.s.insert(0, (p, true));
                    } else {
                        self.s.insert(0, (p, false));
                        self.q.insert(0, p);
                    }
                }
            }
            self.limit();
            (resident, victim)
        }
    }

    #[test]
    fn lirs_promotes_demotes_and_evicts_as_the_paper_says_victim_by_victim() {
        // One page leaves no room for a HIR page beside the LIR one: the
        // model does not cover it; `lirs_of_one_page_holds_its_last_page`
        // does.
        agrees_at_sizes(&MODEL_SIZES[1..], 0x2545f4914f6cdd1d, |cap| {
            let mut m = Model::new(cap);
            (Lirs::new(cap), move |p| m.request(p))
        });
    }

    #[test]
    fn lirs_of_one_page_holds_its_last_page() {
        let mut l = Lirs::new(1);
        l.insert(3, Op::Write, C);
        assert!(!l.access(4, Op::Read));
        assert_eq!(
            l.evict(|_| true),
            Some(Victim {
                page: 3,
                dirty: true
            })
        );
        l.insert(4, Op::Read, C);
        assert!(l.access(4, Op::Read) && !l.contains(3));
    }

    #[test]
    fn lirs_passes_pinned_pages_and_reinstate_undoes_the_demotion() {
        // 3 pages: two LIR, one HIR slot.
        let mut l = Lirs::new(3);
        for p in 0..3 {
            assert!(!l.access(p, Op::Read));
            l.insert(p, Op::Read, C);
        }
        // 0 and 1 are LIR, 2 is the resident HIR page; 2 leaves, keeping its
        // entry in S.
        assert!(!l.access(5, Op::Read));
        assert_eq!(l.evict(|_| true).unwrap().page, 2);
        l.insert(5, Op::Read, C);
        // 2 again: it is in S, so it becomes LIR and demotes 0, which needs
        // Q's slot: 5 leaves — unless 5 is pinned, when 0 leaves instead.
        assert!(!l.access(2, Op::Read));
        let before = (l.len(), l.lirs, l.l[Q.at].iter(Q.tag).collect::<Vec<_>>());
        let v = l.evict(|p| p != 5).unwrap();
        assert_eq!(v.page, 0);
        l.reinstate(v);
        assert_eq!(
            (l.len(), l.lirs, l.l[Q.at].iter(Q.tag).collect::<Vec<_>>()),
            before
        );
        assert_eq!(l.evict(|_| true).unwrap().page, 5);
        l.insert(2, Op::Read, C);
        assert!(l.is_lir(2) && l.is_lir(1) && l.in_list(Q, 0));
        assert_eq!(l.evict(|_| false), None);
    }
}
