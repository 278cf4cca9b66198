//! W-TinyLFU (Einziger, Friedman & Manes, "TinyLFU: A Highly Efficient
//! Cache Admission Policy", ACM TOS 2017): new pages enter a small LRU
//! window; the main cache is a segmented LRU (probation, protected); when
//! the buffer is full, the window's oldest page is admitted to the main
//! cache only if a frequency sketch counts it more often than the main
//! cache's own victim, and the one that loses leaves.
//!
//! As libCacheSim 0.3.5 (`WTinyLFU.c`): the window is ⌊`window`·B⌋ pages
//! (1%); the main cache a two-segment SLRU of 1:4 (probation, protected;
//! the remaining page goes to probation, as [`crate::policy::Slru`] does); the
//! sketch a counting Bloom filter sized for the main cache's M pages at a
//! 0.001 false-positive rate (⌈14.38·M⌉ counters, 10 hashes), every
//! counter of a page incremented on each add, an estimate the least of
//! them; adds on admission, on hits in the main cache and on each window
//! page an eviction considers; every counter halved after 32·main hits in
//! the main cache. The window is drained lazily: an eviction moves the
//! window's oldest pages into the main cache while it has room, and only
//! then compares.
//!
//! The sketch keeps libCacheSim's counts in a layout of its own by
//! default, a page's counters in one 4 KiB block (`sketch=blocked`), so its
//! collisions, and some decisions, differ from libCacheSim's;
//! `sketch=libcachesim` lays them out as libCacheSim does, keyed by page
//! number, and gives its decisions exactly wherever the main cache's
//! ⌊4M/5⌋ + (M − ⌊4M/5⌋) split is libCacheSim's too, M a multiple of 5
//! ([`sketch`]; `tests/test_libcachesim.py`). Elsewhere libCacheSim sizes
//! probation ⌊M/5⌋, lets an insertion overfill it, and then evicts on a hit
//! (`SLRU_cool` demotes protected's oldest page into a full probation and
//! evicts from it), which no policy of this calling protocol does: a hit
//! moves no page out.
//!
//! Pages the caller cannot evict (pinned) are passed over in both the
//! window and the main cache; moving a page into the main cache is not an
//! eviction, so a pinned page may move.

mod sketch;

use crate::policy::list::{Journal, Lists};
use crate::policy::Serves;
use crate::policy::{Numbered, Policy, Victim};
use crate::types::{DenseId, Op, PageCost};
use sketch::{Sketch, HASHES};

const WINDOW: u8 = 1;
const PROBATION: u8 = 2;
const PROTECTED: u8 = 3;

/// Main-cache hits between two halvings, per page of the main cache.
const SAMPLE: usize = 32;

/// W-TinyLFU replacement.
#[derive(Clone, Debug)]
pub struct WTinyLfu {
    cap: usize,
    window: f64,
    main_cap: usize,
    max_probation: usize,
    max_protected: usize,
    l: Lists<3>,
    sketch: Sketch,
    /// Main-cache hits since the last halving.
    hits: usize,
    /// The last eviction's moves and counter changes, for
    /// [`Policy::reinstate`].
    undo: Journal,
    undo_counters: Vec<(usize, u32)>,
}

impl WTinyLfu {
    /// W-TinyLFU with libCacheSim's 1% window.
    pub fn new(capacity: usize) -> Self {
        Self::with_window(capacity, 0.01)
    }

    /// W-TinyLFU whose window is ⌊`window`·`capacity`⌋ pages.
    pub fn with_window(capacity: usize, window: f64) -> Self {
        Self::with_sketch(capacity, window, false)
    }

    /// W-TinyLFU whose window is ⌊`window`·`capacity`⌋ pages, its sketch
    /// in libCacheSim's layout if `flat` (`sketch=libcachesim`, module docs).
    pub fn with_sketch(capacity: usize, window: f64, flat: bool) -> Self {
        let mut w = WTinyLfu {
            cap: capacity,
            window,
            main_cap: 0,
            max_probation: 0,
            max_protected: 0,
            l: Lists::new(),
            sketch: Sketch::for_pages(0, flat),
            hits: 0,
            undo: Journal::default(),
            undo_counters: Vec::new(),
        };
        w.size();
        w.sketch = Sketch::for_pages(w.main_cap, flat);
        // The first eviction moves the whole main cache's worth of pages
        // out of the window, each counted undoably: reserved at once, the
        // journal is one large block (huge pages, where the allocator asks
        // for them) instead of a dozen grown ones.
        w.undo_counters = Vec::with_capacity(HASHES as usize * (w.main_cap + 1));
        w
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        self
    }

    fn size(&mut self) {
        let window = (self.window * self.cap as f64) as usize;
        self.main_cap = self.cap - window.min(self.cap);
        self.max_protected = self.main_cap * 4 / 5;
        self.max_probation = self.main_cap - self.max_protected;
    }

    fn main_len(&self) -> usize {
        self.l.len(PROBATION) + self.l.len(PROTECTED)
    }

    /// Admits `page` to the main cache: the lowest segment with room.
    fn admit(&mut self, page: DenseId) {
        let list = if self.l.len(PROBATION) < self.max_probation {
            PROBATION
        } else if self.l.len(PROTECTED) < self.max_protected {
            PROTECTED
        } else {
            PROBATION
        };
        self.l.push_front(list, page);
    }

    /// The main cache's victim: the oldest evictable page of probation,
    /// then of protected.
    fn main_victim(&self, evictable: &mut impl FnMut(DenseId) -> bool) -> Option<DenseId> {
        self.l
            .find_from_backs(&[PROBATION, PROTECTED], &mut *evictable)
    }

    fn count(&mut self, page: DenseId) {
        self.sketch.add(page, None);
        self.hits += 1;
        if self.hits >= SAMPLE * self.main_cap {
            self.hits = 0;
            self.sketch.halve();
        }
    }

    /// Takes `page` out of the buffer, recording its place.
    fn take(&mut self, page: DenseId) -> Victim {
        self.undo.save(&self.l, page);
        let dirty = self.l.remove(page);
        Victim { page, dirty }
    }

    fn undo_all(&mut self) {
        self.undo.undo(&mut self.l);
        while let Some((x, v)) = self.undo_counters.pop() {
            self.sketch.restore(x, v);
        }
    }
}

impl Policy for WTinyLfu {
    fn name(&self) -> String {
        format!("W-TinyLFU({})", self.window)
    }
    crate::policy::list::list_policy_basics!(lists, own prefetch);
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        // The sketch keeps the size it was built with: what it counted
        // stays meaningful.
        self.cap = capacity;
        self.size();
    }
    fn len(&self) -> usize {
        self.l.len(WINDOW) + self.main_len()
    }
    #[inline]
    fn prefetch(&self, page: DenseId) {
        // Every admission and every main-cache hit counts the page.
        self.l.prefetch(page);
        self.sketch.prefetch(page);
    }

    // Always inlined into the caller's loop (cachegrind: 4% fewer
    // instructions on the benchmark trace).
    #[inline(always)]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        match self.l.list_of(page) {
            0 => return false,
            WINDOW => self.l.move_front(WINDOW, page),
            PROBATION => {
                self.l.unlink(page);
                self.l.push_front(PROTECTED, page);
                if self.l.len(PROTECTED) > self.max_protected {
                    let tail = self.l.tail(PROTECTED);
                    self.l.unlink(tail);
                    self.l.push_front(PROBATION, tail);
                }
                self.count(page);
            }
            _ => {
                self.l.move_front(PROTECTED, page);
                self.count(page);
            }
        }
        self.l.dirty_if_write(page, op);
        true
    }

    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.l.admit(WINDOW, page, op);
        self.sketch.add(page, None);
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        self.undo.clear();
        self.undo_counters.clear();
        let victim = loop {
            if self.l.len(WINDOW) == 0 {
                break self.main_victim(&mut evictable).map(|m| self.take(m));
            }
            if self.main_len() < self.main_cap {
                // Room in the main cache: the window's oldest page moves in.
                let oldest = self.l.tail(WINDOW);
                self.undo.save(&self.l, oldest);
                self.l.unlink(oldest);
                self.admit(oldest);
                self.sketch.add(oldest, Some(&mut self.undo_counters));
                continue;
            }
            let candidate = self.l.find_from_back(WINDOW, &mut evictable);
            let main = self.main_victim(&mut evictable);
            let v = match (candidate, main) {
                (Some(c), Some(m)) if self.sketch.estimate(c) > self.sketch.estimate(m) => {
                    let v = self.take(m);
                    self.undo.save(&self.l, c);
                    self.l.unlink(c);
                    self.admit(c);
                    Some(v)
                }
                (Some(c), _) => Some(self.take(c)),
                (None, Some(m)) => Some(self.take(m)),
                (None, None) => None,
            };
            if let Some(c) = candidate {
                self.sketch.add(c, Some(&mut self.undo_counters));
            }
            break v;
        };
        if victim.is_none() {
            self.undo_all();
        }
        victim
    }

    fn reinstate(&mut self, _v: Victim) {
        self.undo_all();
    }

    crate::policy::list::dirty_marks!();
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.contains(page).then(|| self.l.remove(page))
    }
    fn wants_number(&self, page: DenseId) -> bool {
        self.sketch.wants_number(page)
    }
    fn learn_number(&mut self, page: DenseId, number: Numbered) {
        self.sketch.learn(page, number.number);
    }
}

// The policy's spec (`policy/named.rs`).

const WINDOW_SHARE: crate::spec::Param = crate::spec::Param {
    key: "window",
    ty: crate::spec::Ty::Fraction,
    default: "0.01",
    help: "share of the buffer for the LRU window new pages enter (libCacheSim's 1%)",
};
const SKETCH: crate::spec::Param = crate::spec::Param {
    key: "sketch",
    ty: crate::spec::Ty::Choice(&["blocked", "libcachesim"]),
    default: "blocked",
    help: "how the frequency sketch lays out its counters: a page's in one 4 KiB block (blocked), or as libCacheSim's, keyed by page number, for its decisions exactly (libcachesim)",
};

named!(
    WTinyLfu,
    "wtinylfu",
    "W-TinyLFU, Einziger et al. 2017: an LRU window, an SLRU main cache, and a frequency sketch \
                          that admits the window's oldest page only if it beats main's victim (sketch=libcachesim: libCacheSim's decisions exactly)", Serves::POOL,
    [WINDOW_SHARE, SKETCH],
    (f64, bool),
    |g| Ok((g.fraction("window"), g.value("sketch") == "libcachesim")),
    |(window, flat), capacity| WTinyLfu::with_sketch(capacity, window, flat)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::{agrees_at_sizes, MODEL_SIZES};

    const C: PageCost = PageCost::new(1.0, 1.0);

    /// W-TinyLFU over vectors (front = newest) and the same sketch, as
    /// libCacheSim's `WTinyLFU_get` steps through it.
    struct Model {
        cap: usize,
        main_cap: usize,
        max_prob: usize,
        max_prot: usize,
        window: Vec<DenseId>,
        prob: Vec<DenseId>,
        prot: Vec<DenseId>,
        sketch: Sketch,
        hits: usize,
    }

    impl Model {
        fn new(cap: usize) -> Self {
            let main_cap = cap - cap / 100;
            Model {
                cap,
                main_cap,
                max_prob: main_cap - main_cap * 4 / 5,
                max_prot: main_cap * 4 / 5,
                window: Vec::new(),
                prob: Vec::new(),
                prot: Vec::new(),
                sketch: Sketch::for_pages(main_cap, false),
                hits: 0,
            }
        }
        fn admit(&mut self, p: DenseId) {
            if self.prob.len() < self.max_prob || self.prot.len() >= self.max_prot {
                self.prob.insert(0, p);
            } else {
                self.prot.insert(0, p);
            }
        }
        fn main_victim(&self) -> Option<DenseId> {
            self.prob.last().or_else(|| self.prot.last()).copied()
        }
        fn drop_main(&mut self, p: DenseId) {
            self.prob.retain(|&x| x != p);
            self.prot.retain(|&x| x != p);
        }
        fn request(&mut self, p: DenseId) -> (bool, Option<DenseId>) {
            if let Some(i) = self.window.iter().position(|&x| x == p) {
                self.window.remove(i);
                self.window.insert(0, p);
                return (true, None);
            }
            let in_prob = self.prob.contains(&p);
            if in_prob || self.prot.contains(&p) {
                self.drop_main(p);
                self.prot.insert(0, p);
                if in_prob && self.prot.len() > self.max_prot {
                    let t = self.prot.pop().unwrap();
                    self.prob.insert(0, t);
                }
                self.sketch.add(p, None);
                self.hits += 1;
                if self.hits >= SAMPLE * self.main_cap {
                    self.hits = 0;
                    self.sketch.halve();
                }
                return (true, None);
            }
            let full = self.window.len() + self.prob.len() + self.prot.len() == self.cap;
            let mut victim = None;
            if full {
                loop {
                    let Some(&c) = self.window.last() else {
                        let m = self.main_victim().unwrap();
                        self.drop_main(m);
                        victim = Some(m);
                        break;
                    };
                    if self.prob.len() + self.prot.len() < self.main_cap {
                        self.window.pop();
                        self.admit(c);
                        self.sketch.add(c, None);
                        continue;
                    }
                    let m = self.main_victim().unwrap();
                    if self.sketch.estimate(c) > self.sketch.estimate(m) {
                        self.drop_main(m);
                        self.window.pop();
                        self.admit(c);
                        victim = Some(m);
                    } else {
                        self.window.pop();
                        victim = Some(c);
                    }
                    self.sketch.add(c, None);
                    break;
                }
            }
            self.window.insert(0, p);
            self.sketch.add(p, None);
            (false, victim)
        }
    }

    #[test]
    fn wtinylfu_admits_by_frequency_as_libcachesim_steps_victim_by_victim() {
        agrees_at_sizes(&MODEL_SIZES, 0x5851_f42d_4c95_7f2d, |cap| {
            let mut m = Model::new(cap);
            (WTinyLfu::new(cap), move |p| m.request(p))
        });
    }

    #[test]
    fn wtinylfu_reinstate_restores_lists_and_counts() {
        for flat in [false, true] {
            let mut w = WTinyLfu::with_sketch(4, 0.01, flat);
            for p in 0..4 {
                let number = Numbered {
                    number: 1_000 + u64::from(p),
                    below: None,
                    above: None,
                };
                w.learn_number(p, number);
                w.insert(p, if p == 1 { Op::Write } else { Op::Read }, C);
            }
            let counters = w.sketch.clone();
            let v = w.evict(|p| p != 0).unwrap();
            assert_eq!(v.page, 1);
            assert!(v.dirty);
            w.reinstate(v);
            assert_eq!(w.sketch, counters);
            assert_eq!((w.len(), w.dirty_count()), (4, 1));
            assert_eq!(w.l.iter(WINDOW).collect::<Vec<_>>(), vec![3, 2, 1, 0]);
            assert_eq!(w.evict(|_| false), None);
            assert_eq!(w.sketch, counters);
        }
    }

    /// libCacheSim's layout: the counters of the page numbered 42 where its
    /// `minimalIncrementCBF_add` puts them, `(a + i·b) mod n` from the low
    /// 32 bits of XXH64 under its two seeds (the hash taken from the same
    /// crate: this pins the formula; `tests/test_libcachesim.py` checks the
    /// decisions against libCacheSim itself).
    #[test]
    fn the_libcachesim_sketch_indexes_counters_as_libcachesim_does() {
        let mut s = Sketch::for_pages(1_000, true);
        s.learn(0, 42);
        let bytes = 42u64.to_le_bytes();
        let a = xxhash_rust::xxh64::xxh64(&bytes, 0x1234_5678) as u32;
        let b = xxhash_rust::xxh64::xxh64(&bytes, 0x1234_4321) as u32;
        // ⌈14.3775…·1000⌉ counters.
        let n = 14_378u32;
        s.add(0, None);
        s.add(0, None);
        let Sketch::Flat(f) = &s else { unreachable!() };
        assert_eq!(f.counters.len(), n as usize);
        for i in 0..HASHES {
            assert_eq!(
                f.counters[(a.wrapping_add(i.wrapping_mul(b)) % n) as usize],
                2
            );
        }
        assert_eq!(
            f.counters.iter().map(|&c| u64::from(c)).sum::<u64>(),
            2 * u64::from(HASHES)
        );
        assert_eq!(s.estimate(0), 2);
        s.halve();
        assert_eq!(s.estimate(0), 1);
    }
}
