//! S3-FIFO (Yang et al., "FIFO queues are all you need for cache
//! eviction", SOSP 2023): a small FIFO `S` that new pages enter, a main
//! FIFO `M`, and a ghost FIFO `G` of pages recently evicted from `S`, with
//! a 2-bit-style frequency per page instead of any reordering on a hit.
//!
//! - A hit adds one to the page's frequency; nothing moves.
//! - A miss on a page `G` remembers enters `M`; any other enters `S` (until
//!   the first eviction, a page that finds `S` full enters `M`).
//! - An eviction takes from `M` if `M` holds more than its share or `S` is
//!   empty, else from `S`. From `S`'s oldest end: a page with frequency ≥
//!   `threshold` moves to `M` (frequency 0), others leave to `G`, until one
//!   has left (or `S` is empty: then from `M`, whatever `M`'s size has
//!   become). From `M`'s oldest end: a page with frequency ≥ 1 goes back to
//!   `M`'s newest end with frequency `min(f, 3) − 1`, until one with 0
//!   leaves.
//!
//! Parameters and choices as libCacheSim 0.3.5 (`S3FIFO.c`, its defaults):
//! `S` is `small` = 10% of the buffer (rounded down, at least one page),
//! `M` the rest, `G` remembers `ghost` = 90% of the buffer's page count;
//! `threshold` = 2. A page remembered by `G` is forgotten by it the moment
//! it is requested again, before the eviction that request causes, so that
//! eviction's ghost cannot push it out. Pages the caller cannot evict
//! (pinned) are treated as just used: from `S` they move to `M`, in `M` they
//! go round again with their frequency; with none evictable the eviction
//! changes nothing.

use crate::policy::list::{Journal, Lists, NIL};
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

const S: u8 = 1;
const M: u8 = 2;
const G: u8 = 3;

/// Default share of the buffer for the small queue (libCacheSim's).
pub const DEFAULT_SMALL: f64 = 0.1;
/// Default ghost size as a share of the buffer's pages (libCacheSim's).
pub const DEFAULT_GHOST: f64 = 0.9;
/// Default frequency at which a page leaving `S` moves to `M`.
pub const DEFAULT_THRESHOLD: u8 = 2;

/// S3-FIFO replacement.
#[derive(Clone, Debug)]
pub struct S3Fifo {
    cap: usize,
    small_share: f64,
    ghost_share: f64,
    threshold: u8,
    small: usize,
    ghost: usize,
    l: Lists<3>,
    freq: Vec<u8>,
    /// Whether an eviction has happened (before it, `S` overflows into `M`).
    evicted: bool,
    /// The page of the last miss if `G` remembers it: already gone from
    /// `G` as far as evictions are concerned.
    pending: u32,
    /// What the last eviction moved, for [`Policy::reinstate`]: the pages'
    /// places, the frequencies it changed, and whether it was the first.
    journal: Journal,
    freq_undo: Vec<(DenseId, u8)>,
    was_evicted: bool,
}

impl S3Fifo {
    /// S3-FIFO with libCacheSim's defaults.
    pub fn new(capacity: usize) -> Self {
        Self::with_params(capacity, DEFAULT_SMALL, DEFAULT_GHOST, DEFAULT_THRESHOLD)
    }

    /// S3-FIFO with `S` = `small` × capacity pages, a ghost of `ghost` ×
    /// capacity entries and the move-to-main frequency `threshold`.
    pub fn with_params(capacity: usize, small: f64, ghost: f64, threshold: u8) -> Self {
        let mut s = S3Fifo {
            cap: capacity,
            small_share: small,
            ghost_share: ghost,
            threshold,
            small: 0,
            ghost: 0,
            l: Lists::new(),
            freq: Vec::new(),
            evicted: false,
            pending: NIL,
            journal: Journal::default(),
            freq_undo: Vec::new(),
            was_evicted: false,
        };
        s.size_queues();
        s
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        if pages > self.freq.len() {
            self.freq.resize(pages, 0);
        }
        self
    }

    fn size_queues(&mut self) {
        self.small = ((self.cap as f64 * self.small_share) as usize).max(1);
        self.ghost = (self.cap as f64 * self.ghost_share) as usize;
    }

    #[inline]
    fn resident(&self, page: DenseId) -> bool {
        matches!(self.l.list_of(page), S | M)
    }

    #[inline]
    fn set_freq(&mut self, page: DenseId, f: u8) {
        let old = std::mem::replace(&mut self.freq[page as usize], f);
        self.freq_undo.push((page, old));
    }

    /// Moves `page` from where it is to `M`'s newest end.
    fn move_to_main(&mut self, page: DenseId) {
        self.journal.save(&self.l, page);
        self.l.unlink(page);
        self.l.push_front(M, page);
    }

    /// Remembers `page`, which left `S`, forgetting the oldest entries
    /// beyond `G`'s size.
    fn remember(&mut self, page: DenseId) {
        if self.ghost == 0 {
            return;
        }
        while self.l.ghosts_without(G, self.pending) + 1 > self.ghost {
            let old = self.l.oldest_without(G, self.pending);
            self.journal.save(&self.l, old);
            self.l.unlink(old);
        }
        self.l.push_front(G, page);
    }

    /// One step of the eviction from the oldest end of `list`: the victim
    /// if that page leaves.
    fn step(&mut self, list: u8, evictable: &mut impl FnMut(DenseId) -> bool) -> Option<Victim> {
        let page = self.l.tail(list);
        let f = self.freq[page as usize];
        let ok = evictable(page);
        if list == S {
            if f >= self.threshold || !ok {
                self.move_to_main(page);
                self.set_freq(page, if ok { 0 } else { f });
                return None;
            }
            self.journal.save(&self.l, page);
            let dirty = self.l.remove(page);
            self.remember(page);
            return Some(Victim { page, dirty });
        }
        if f >= 1 || !ok {
            self.move_to_main(page);
            self.set_freq(page, if ok { f.min(3) - 1 } else { f });
            return None;
        }
        self.journal.save(&self.l, page);
        let dirty = self.l.remove(page);
        Some(Victim { page, dirty })
    }

    /// Undoes the moves of the last eviction.
    fn undo(&mut self) {
        self.journal.undo(&mut self.l);
        while let Some((page, f)) = self.freq_undo.pop() {
            self.freq[page as usize] = f;
        }
        self.evicted = self.was_evicted;
    }
}

impl Policy for S3Fifo {
    fn name(&self) -> String {
        format!(
            "S3-FIFO(small={}, ghost={}, threshold={})",
            self.small_share, self.ghost_share, self.threshold
        )
    }
    crate::policy::list::list_policy_basics!(resident);
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
        self.size_queues();
        while self.l.len(G) > self.ghost {
            let old = self.l.tail(G);
            self.l.unlink(old);
        }
    }
    fn len(&self) -> usize {
        self.l.len(S) + self.l.len(M)
    }

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        match self.l.list_of(page) {
            S | M => {
                let f = &mut self.freq[page as usize];
                *f = f.saturating_add(1);
                self.l.dirty_if_write(page, op);
                self.pending = NIL;
                true
            }
            G => {
                self.pending = page;
                false
            }
            _ => {
                self.pending = NIL;
                false
            }
        }
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        if page as usize >= self.freq.len() {
            self.freq
                .resize((page as usize + 1).max(2 * self.freq.len()), 0);
        }
        let list = if self.l.list_of(page) == G {
            self.l.unlink(page);
            M
        } else if !self.evicted && self.l.len(S) >= self.small {
            M
        } else {
            S
        };
        self.pending = NIL;
        self.l.admit(list, page, op);
        self.freq[page as usize] = 0;
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        if self.len() == 0 {
            return None;
        }
        self.journal.clear();
        self.freq_undo.clear();
        self.was_evicted = self.evicted;
        self.evicted = true;
        // The queue is chosen once: S is walked until a page leaves it (or it
        // empties), M until a page leaves it. Every page is looked at a few
        // times at most (a frequency of 3 drops to 0 in three rounds of M);
        // past that, all are pinned.
        let mut list = if self.l.len(M) > self.cap - self.small.min(self.cap) || self.l.len(S) == 0
        {
            M
        } else {
            S
        };
        let mut budget = 5 * self.len() + 2;
        while budget > 0 {
            budget -= 1;
            if list == S && self.l.len(S) == 0 {
                list = M;
            }
            if let Some(v) = self.step(list, &mut evictable) {
                return Some(v);
            }
        }
        self.undo();
        None
    }

    fn reinstate(&mut self, _v: Victim) {
        self.undo();
    }

    crate::policy::list::dirty_marks!();
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.resident(page).then(|| self.l.remove(page))
    }
}

// The policy's spec (`policy/named.rs`).

const S3_SMALL: crate::spec::Param = crate::spec::Param {
    key: "small",
    ty: crate::spec::Ty::Fraction,
    default: "0.1",
    help: "the small FIFO's share of the buffer, where new pages enter (libCacheSim's default)",
};
const S3_GHOST: crate::spec::Param = crate::spec::Param {
    key: "ghost",
    ty: crate::spec::Ty::Fraction,
    default: "0.9",
    help: "pages the ghost FIFO remembers after they leave the small FIFO, as a share of the buffer's pages",
};
const S3_THRESHOLD: crate::spec::Param = crate::spec::Param {
    key: "threshold",
    ty: crate::spec::Ty::Int(1, u8::MAX as u64),
    default: "2",
    help: "hits a page needs in the small FIFO to move to the main FIFO when it reaches the small FIFO's end",
};

named!(
    S3Fifo,
    "s3fifo",
    "S3-FIFO, Yang et al. 2023: a small and a main FIFO with frequencies, and a ghost FIFO",
    Serves::POOL,
    [S3_SMALL, S3_GHOST, S3_THRESHOLD],
    (f64, f64, u8),
    |g| Ok((
        g.fraction("small"),
        g.fraction("ghost"),
        g.int("threshold") as u8
    )),
    |(small, ghost, threshold), capacity| S3Fifo::with_params(capacity, small, ghost, threshold)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::agrees_with_model;
    use std::collections::VecDeque;

    const C: PageCost = PageCost::new(1.0, 1.0);

    /// S3-FIFO as the paper's Algorithm 1 states it (with libCacheSim's
    /// sizes and first-fill rule), over three deques and a frequency map.
    struct Model {
        cap: usize,
        small: usize,
        ghost_cap: usize,
        s: VecDeque<DenseId>,
        m: VecDeque<DenseId>,
        g: VecDeque<DenseId>,
        freq: std::collections::HashMap<DenseId, u8>,
        evicted: bool,
    }

    impl Model {
        fn new(cap: usize) -> Self {
            Model {
                cap,
                small: ((cap as f64 * 0.1) as usize).max(1),
                ghost_cap: (cap as f64 * 0.9) as usize,
                s: VecDeque::new(),
                m: VecDeque::new(),
                g: VecDeque::new(),
                freq: Default::default(),
                evicted: false,
            }
        }

        fn request(&mut self, page: DenseId) -> (bool, Option<DenseId>) {
            if self.s.contains(&page) || self.m.contains(&page) {
                *self.freq.get_mut(&page).unwrap() += 1;
                return (true, None);
            }
            let ghost_hit = if let Some(i) = self.g.iter().position(|&p| p == page) {
                self.g.remove(i);
                true
            } else {
                false
            };
            let mut victim = None;
            if self.s.len() + self.m.len() == self.cap {
                self.evicted = true;
                let mut from_main = self.m.len() > self.cap - self.small || self.s.is_empty();
                while victim.is_none() {
                    from_main |= self.s.is_empty();
                    if from_main {
                        let p = self.m.pop_back().unwrap();
                        let f = self.freq[&p];
                        if f >= 1 {
                            self.m.push_front(p);
                            self.freq.insert(p, f.min(3) - 1);
                        } else {
                            victim = Some(p);
                        }
                    } else {
                        let p = self.s.pop_back().unwrap();
                        if self.freq[&p] >= 2 {
                            self.m.push_front(p);
                            self.freq.insert(p, 0);
                        } else {
                            if self.g.len() + 1 > self.ghost_cap {
                                self.g.pop_back();
                            }
                            self.g.push_front(p);
                            victim = Some(p);
                        }
                    }
                }
            }
            if ghost_hit || (!self.evicted && self.s.len() >= self.small) {
                self.m.push_front(page);
            } else {
                self.s.push_front(page);
            }
            self.freq.insert(page, 0);
            (false, victim)
        }
    }

    #[test]
    fn s3fifo_evicts_as_the_papers_algorithm_victim_by_victim() {
        for cap in [10usize, 20, 37, 100] {
            let mut m = Model::new(cap);
            let model = |p| m.request(p);
            agrees_with_model(
                &mut S3Fifo::new(cap),
                model,
                300,
                20_000,
                0x243f6a8885a308d3,
            );
        }
    }

    #[test]
    fn s3fifo_reinstate_undoes_every_move_of_the_eviction() {
        let mut s = S3Fifo::new(10);
        let mut rng = 7u64;
        for _ in 0..2_000 {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let page = ((rng >> 33) % 40) as DenseId;
            if !s.access(page, Op::Write) {
                if s.len() == s.capacity() {
                    let before = s.clone();
                    let v = s.evict(|_| true).unwrap();
                    s.reinstate(v);
                    assert_eq!(
                        s.l.iter(S).collect::<Vec<_>>(),
                        before.l.iter(S).collect::<Vec<_>>()
                    );
                    assert_eq!(
                        s.l.iter(M).collect::<Vec<_>>(),
                        before.l.iter(M).collect::<Vec<_>>()
                    );
                    assert_eq!(
                        s.l.iter(G).collect::<Vec<_>>(),
                        before.l.iter(G).collect::<Vec<_>>()
                    );
                    assert_eq!(s.freq, before.freq);
                    assert_eq!(s.dirty_count(), before.dirty_count());
                    s.evict(|_| true).unwrap();
                }
                s.insert(page, Op::Read, C);
            }
        }
    }

    #[test]
    fn s3fifo_passes_pinned_pages_and_refuses_when_none_is_evictable() {
        let mut s = S3Fifo::new(10);
        for p in 0..10 {
            s.insert(p, Op::Read, C);
        }
        let before = (
            s.l.iter(S).collect::<Vec<_>>(),
            s.l.iter(M).collect::<Vec<_>>(),
        );
        assert_eq!(s.evict(|_| false), None);
        assert_eq!(before, (s.l.iter(S).collect(), s.l.iter(M).collect()));
        let v = s.evict(|p| p == 5).unwrap();
        assert_eq!(v.page, 5);
        assert_eq!(s.len(), 9);
    }
}
