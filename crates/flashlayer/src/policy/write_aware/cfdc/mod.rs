//! CFDC, clean-first dirty-clustered (Ou, Härder, Jin, DaMoN 2009), as
//! CASA §3 and FD-Buffer §2 describe it: an LRU list split into a working
//! region and a priority region (its last `w·B` pages). In the priority
//! region clean pages wait in an LRU queue and are evicted first; dirty
//! pages are grouped into clusters of neighbouring page numbers, and when
//! no clean page is left there the cluster of lowest priority goes, all of
//! it written in one batch.
//!
//! Cluster priority, after the CFDC paper: `P(c) = IPD(c) / (n(c)² · age(c))`
//! with `n(c)` its pages, `IPD(c)` the sum of the page-number distances
//! between successive pages as they joined the cluster (1 for a single
//! page), and `age(c)` the requests since the cluster last gained a page
//! (at least 1). Large, dense, old clusters go first.
//!
//! Choices where the papers are silent, each tested:
//! - Clusters form by proximity: a dirty page entering the priority region
//!   joins the cluster of the page numbered one below it, else one above it,
//!   if that page is a dirty page of the region and its cluster has fewer
//!   than `cluster` pages (`cluster=64` by default); when it bridges two
//!   clusters that fit together they merge. A cluster stays one cluster
//!   until its last page leaves. `cluster=0` makes every dirty page its own
//!   cluster and writes it alone.
//! - The victim is the cluster's least recently joined evictable page; the
//!   rest of the cluster is written in the same batch
//!   ([`Policy::cluster`]) and stays resident, clean, at the LRU end of the
//!   clean queue, so the next misses evict it first unless it is used again.
//! - `IPD` accumulates over joins while the cluster lives; pages leaving
//!   (a hit moves a page back to the working region) do not change it.
//! - The window is `round(w·B)` pages, counted over every page, pinned or
//!   not; a smaller window after a resize takes effect as region pages
//!   leave.
//! - If the priority region has no evictable page, the LRU evictable page of
//!   the working region goes.
//!
//! Finding the cluster of lowest priority: priorities change with every
//! request (ages grow), so no single order holds. For clusters of equal
//! `k = IPD/n²` the oldest has the lowest priority, so clusters are kept in
//! 128 lists by `k` quantised on a log scale (four lists per doubling), each
//! in the order they last gained a page; the victim cluster is the one of
//! lowest exact priority among the oldest of each list: at most 128
//! candidates, O(1) per eviction. A cluster's list is chosen when it gains a
//! page; pages leaving it (a hit moves a page back to the working region)
//! leave it where it is. Everything else is O(1) amortised per request;
//! merging two clusters moves the pages of the one the page did not join
//! (at most `cluster`).
//!
//! Representation, for speed only (the decisions are the ones above):
//! - A cluster of one page (nearly every dirty page starts one, and most
//!   leave alone) has no cluster record: it is an entry of a queue in
//!   joining order ([`Queue`]), and the list of `k = 1` continues there (the
//!   older of the list's and the queue's oldest is that list's candidate). A
//!   singleton that gains a page becomes a record.
//! - Everything CFDC keeps of a page (number, numeric neighbours, cluster,
//!   and its links in its cluster or its place in the queue) is in its list
//!   node, 32 bytes aligned to 32: a refill reads the node of the page it
//!   moves anyway, and a join then reads no other line of that page.

mod clusters;

use crate::policy::list::{Align32, Bits, Extra, Lists, Saved, NIL};
use crate::policy::queue::Queue;
use crate::policy::Serves;
use crate::policy::{Neighbours, Numbered, Policy, Victim};
use crate::types::{DenseId, Op, PageCost, PageId};

const WORKING: u8 = 1;
const CLEAN: u8 = 2;
/// Dirty pages of the priority region: members without a place in the
/// list's order ([`Lists::tag`]), since their clusters keep the order.
const DIRTY: u8 = 3;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Cluster {
    head: u32,
    tail: u32,
    n: u32,
    ipd: f64,
    last_number: PageId,
    stamp: u64,
    /// When it was last appended to its list: the order of the list, and
    /// of the list of `k = 1` with the queue of singletons.
    grown: u64,
    /// Its list by `k`, and its neighbours there (`NIL` at the ends).
    bucket: u8,
    bprev: u32,
    bnext: u32,
}

const BUCKETS: usize = 128;

/// The list by `k` of the clusters with `k = 1`, every singleton's.
const SINGLES: usize = 64;

/// In [`Slot::cluster`]: the page is a cluster of its own, kept as an entry
/// of the singletons' queue rather than a cluster record.
const SINGLE: u32 = NIL - 1;

/// A singleton's data in the queue: when it joined, and its place in the
/// order of the list of `k = 1`.
#[derive(Clone, Copy, Debug)]
struct Single {
    stamp: u64,
    grown: u64,
}

/// A page's CFDC state, in its list node ([`Lists::extra`]): a join reads
/// the node of the page at the working region's end, and with it all this.
/// A dirty page of the region keeps in its node's links ([`Lists::word`])
/// its neighbours in its cluster record, or, alone ([`SINGLE`]), its
/// position in the singletons' queue.
///
/// Its fields are 4-byte aligned (the number in halves) so that with the
/// node's links it makes 32 bytes, aligned to 32: one cache line per node.
#[derive(Clone, Copy, Debug)]
struct Slot {
    number: [u32; 2],
    /// The pages numbered one below and one above (`NIL` when unknown),
    /// learned at admission: a dense index, no hashing.
    below: u32,
    above: u32,
    /// Its cluster record, or [`SINGLE`], while it is a dirty page of the
    /// region ([`Cfdc::clustered`]).
    cluster: u32,
}

impl Slot {
    fn number(&self) -> PageId {
        PageId::from(self.number[0]) | PageId::from(self.number[1]) << 32
    }

    fn set_number(&mut self, number: PageId) {
        self.number = [number as u32, (number >> 32) as u32];
    }
}

impl Extra for Slot {
    const EMPTY: Slot = Slot {
        number: [0, 0],
        below: NIL,
        above: NIL,
        cluster: NIL,
    };
    type Align = Align32;
    const ALIGN: Align32 = Align32;
}

/// What the last eviction changed, for [`Policy::reinstate`].
#[derive(Clone, Copy, Debug)]
enum Undo {
    None,
    List(Saved),
    Cluster {
        cluster: Cluster,
        index: u32,
        prev: u32,
        next: u32,
    },
    /// A singleton left its queue at this position.
    Single(u32),
}

/// Clean-first, dirty-clustered replacement.
#[derive(Clone, Debug)]
pub struct Cfdc {
    cap: usize,
    w: f64,
    window: usize,
    max_size: u32,
    l: Lists<3, Slot>,
    /// Requests served (hits and admissions): a cluster's age is measured
    /// in it.
    clock: u64,
    /// Per page, whether it is a dirty page of the region, in a cluster
    /// ([`Slot::cluster`]). A dirty page entering the region asks this of
    /// both its numeric neighbours, and nearly always the answer is no:
    /// the bits (1 KiB per 8,192 pages) stay in cache, the neighbours'
    /// nodes are read only when they are clustered.
    clustered: Bits,
    /// Per page, whether its number and neighbours were learned: asked at
    /// every miss, so kept apart from the nodes for the same reason.
    known: Bits,
    /// Per page, whether its link to the page numbered one above (`[0]`) and
    /// one below (`[1]`) is set (`Slot::above`/`below` not `NIL`):
    /// [`Policy::learn_number`] asks them of a page's neighbours, whose
    /// nodes it then need not read.
    linked: [Bits; 2],
    clusters: Vec<Cluster>,
    /// Per list by `k`: its oldest and newest cluster; `mask` marks the
    /// lists that are not empty.
    bhead: [u32; BUCKETS],
    btail: [u32; BUCKETS],
    mask: u128,
    /// Per list, a copy of its oldest cluster's `k`, growth time and first
    /// page: the victim search reads these (2.5 KiB, in cache) instead of
    /// one cluster record per list.
    head_k: [f64; BUCKETS],
    head_stamp: [u64; BUCKETS],
    head_page: [u32; BUCKETS],
    free: Vec<u32>,
    /// Clusters of one page, in the order they joined: nearly every dirty
    /// page entering the region starts one, and most leave alone, so these
    /// have no cluster record; the oldest is the queue's first.
    singles: Queue<Single>,
    /// Appends to a list by `k` or to the singletons' queue so far.
    growths: u64,
    /// The cluster the last victim came from, for [`Policy::cluster`].
    victim_cluster: u32,
    /// The position of the last singleton [`Cfdc::pick_cluster`] found.
    victim_single: u32,
    undo: Undo,
}

impl Cfdc {
    /// CFDC for `capacity` pages, priority region `w` (a fraction in
    /// `[0, 1]`) of the buffer, clusters of `cluster` page numbers (0: none).
    pub fn new(capacity: usize, w: f64, cluster: usize) -> Self {
        let w = w.clamp(0.0, 1.0);
        Cfdc {
            cap: capacity,
            w,
            window: (w * capacity as f64).round() as usize,
            max_size: u32::try_from(cluster.max(1)).unwrap_or(u32::MAX),
            l: Lists::new(),
            clock: 0,
            clustered: Bits::default(),
            known: Bits::default(),
            linked: [Bits::default(), Bits::default()],
            clusters: Vec::new(),
            bhead: [NIL; BUCKETS],
            head_k: [0.0; BUCKETS],
            head_stamp: [0; BUCKETS],
            head_page: [NIL; BUCKETS],
            btail: [NIL; BUCKETS],
            mask: 0,
            free: Vec::new(),
            singles: Queue::new(),
            growths: 0,
            victim_cluster: NIL,
            victim_single: 0,
            undo: Undo::None,
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        self.l.reserve_pages(pages);
        self.grow(pages);
        self
    }

    fn grow(&mut self, pages: usize) {
        self.clustered.grow(pages);
        self.known.grow(pages);
        for l in &mut self.linked {
            l.grow(pages);
        }
    }

    #[inline]
    fn slot(&self, page: DenseId) -> &Slot {
        self.l.extra(page)
    }

    #[inline]
    fn slot_mut(&mut self, page: DenseId) -> &mut Slot {
        self.l.extra_mut(page)
    }

    /// A clustered page's neighbours in its cluster record.
    #[inline]
    fn links(&self, page: DenseId) -> [u32; 2] {
        self.l.word(page)
    }

    #[inline]
    fn set_prev(&mut self, page: DenseId, prev: u32) {
        let [_, next] = self.l.word(page);
        self.l.set_word(page, [prev, next]);
    }

    #[inline]
    fn set_next(&mut self, page: DenseId, next: u32) {
        let [prev, _] = self.l.word(page);
        self.l.set_word(page, [prev, next]);
    }

    /// Puts `page`, a dirty page of the region, in cluster record `c`.
    #[inline]
    fn set_cluster(&mut self, page: DenseId, c: u32) {
        self.slot_mut(page).cluster = c;
        self.clustered.set(page, true);
    }

    /// The pages of each live cluster, in join order, with its priority now.
    pub fn clusters(&self) -> Vec<(Vec<DenseId>, f64)> {
        let mut out = Vec::new();
        for b in 0..BUCKETS {
            let mut c = self.bhead[b];
            while c != NIL {
                let mut pages = Vec::new();
                let mut p = self.clusters[c as usize].head;
                while p != NIL {
                    pages.push(p);
                    p = self.links(p)[1];
                }
                out.push((pages, self.priority(c)));
                c = self.clusters[c as usize].bnext;
            }
        }
        for (p, s) in self.singles.iter() {
            out.push((vec![p], 1.0 / self.age(s.stamp)));
        }
        out
    }
}

impl Policy for Cfdc {
    fn name(&self) -> String {
        format!("CFDC({}, cluster={})", self.w, self.max_size)
    }
    crate::policy::list::list_policy_basics!(lists);
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
        self.window = (self.w * capacity as f64).round() as usize;
        self.refill();
    }
    fn len(&self) -> usize {
        self.l.len(WORKING) + self.region_len()
    }

    /// Only a policy that clusters asks: with `cluster` 0 or 1 every dirty
    /// page is alone and numbers are never read.
    #[inline]
    fn wants_number(&self, page: DenseId) -> bool {
        self.max_size > 1 && !self.known.get(page)
    }
    fn learn_number(&mut self, page: DenseId, number: Numbered) {
        let Numbered {
            number,
            below,
            above,
        } = number;
        self.slot_mut(page).set_number(number);
        self.known.set(page, true);
        // Links are about numbers, not residency: they stay, and a page
        // learned later links itself to both sides. A neighbour gets its
        // link to this page here only if it learned its number without it
        // (its caller did not know this page then); one not learned yet gets
        // it when it is, since callers never forget a page. In a trace's
        // pass over every page each link is so written once, by its own
        // page, and no other page's slot is touched.
        if let Some(b) = below {
            self.slot_mut(page).below = b;
            self.linked[1].set(page, true);
            if self.known.get(b) && !self.linked[0].get(b) {
                self.slot_mut(b).above = page;
                self.linked[0].set(b, true);
            }
        }
        if let Some(a) = above {
            self.slot_mut(page).above = a;
            self.linked[0].set(page, true);
            if self.known.get(a) && !self.linked[1].get(a) {
                self.slot_mut(a).below = page;
                self.linked[1].set(a, true);
            }
        }
    }

    // Always inlined into the caller's loop (cachegrind: 4% fewer
    // instructions on the benchmark trace).
    #[inline(always)]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        let list = self.l.list_of(page);
        if list == 0 {
            return false;
        }
        self.clock += 1;
        if list == WORKING {
            self.l.move_front(WORKING, page);
        } else {
            self.detach(page);
            self.l.push_front(WORKING, page);
        }
        self.l.dirty_if_write(page, op);
        if list != WORKING {
            self.refill();
        }
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.clock += 1;
        self.l.admit(WORKING, page, op);
        self.refill();
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        self.victim_cluster = NIL;
        if let Some(p) = self.l.find_from_back(CLEAN, &mut evictable) {
            self.undo = Undo::List(self.l.save(p));
            let dirty = self.l.remove(p);
            return Some(Victim { page: p, dirty });
        }
        if let Some((c, p)) = self.pick_cluster(&mut evictable) {
            if c == SINGLE {
                let pos = self.victim_single;
                self.undo = Undo::Single(pos);
                self.leave(p);
                let dirty = self.l.is_dirty(p);
                self.l.set_dirty(p, false);
                return Some(Victim { page: p, dirty });
            }
            self.undo = Undo::Cluster {
                cluster: self.clusters[c as usize],
                index: c,
                prev: self.links(p)[0],
                next: self.links(p)[1],
            };
            self.leave(p);
            self.victim_cluster = c;
            let dirty = self.l.is_dirty(p);
            self.l.set_dirty(p, false);
            return Some(Victim { page: p, dirty });
        }
        let p = self.l.find_from_back(WORKING, &mut evictable)?;
        self.undo = Undo::List(self.l.save(p));
        let dirty = self.l.remove(p);
        Some(Victim { page: p, dirty })
    }

    fn reinstate(&mut self, victim: Victim) {
        match std::mem::replace(&mut self.undo, Undo::None) {
            Undo::None => {}
            Undo::List(s) => self.l.restore(s),
            // Nothing entered or left the queue since: the entry is where it
            // was.
            Undo::Single(pos) => {
                let page = victim.page;
                self.singles.restore(pos, page);
                self.l.tag(DIRTY, page, [pos, NIL]);
                self.l.set_dirty(page, victim.dirty);
                self.set_cluster(page, SINGLE);
            }
            Undo::Cluster {
                cluster,
                index,
                prev,
                next,
            } => {
                let page = victim.page;
                self.l.tag(DIRTY, page, [prev, next]);
                self.l.set_dirty(page, victim.dirty);
                self.clusters[index as usize] = cluster;
                let b = usize::from(cluster.bucket);
                if self.bhead[b] == index {
                    self.refresh(b);
                }
                if cluster.n == 1 {
                    // The cluster died with its last page: bring it back to
                    // its place in its list, so ties break as before.
                    let freed = self.free.pop();
                    debug_assert_eq!(freed, Some(index));
                    self.brelink(index);
                }
                if prev != NIL {
                    self.set_next(prev, page);
                }
                if next != NIL {
                    self.set_prev(next, page);
                }
                self.set_cluster(page, index);
            }
        }
        self.victim_cluster = NIL;
    }

    fn cluster(&mut self, _victim: DenseId, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) {
        let c = self.victim_cluster;
        if c == NIL || self.max_size <= 1 {
            return;
        }
        let mut p = self.clusters[c as usize].head;
        while p != NIL {
            if pages.evictable(p) {
                out.push(p);
            }
            p = self.links(p)[1];
        }
    }

    fn mark_dirty(&mut self, page: DenseId) {
        match self.l.list_of(page) {
            0 => {}
            CLEAN => {
                self.l.unlink(page);
                self.l.set_dirty(page, true);
                self.join(page);
            }
            _ => self.l.set_dirty(page, true),
        }
    }

    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        match self.l.list_of(page) {
            0 => {}
            DIRTY => {
                self.leave(page);
                self.l.set_dirty(page, false);
                // Written with its cluster: the next clean victim.
                self.l.push_back(CLEAN, page);
            }
            _ => self.l.set_dirty(page, false),
        }
    }

    fn remove(&mut self, page: DenseId) -> Option<bool> {
        if !self.contains(page) {
            return None;
        }
        let dirty = self.l.is_dirty(page);
        self.detach(page);
        self.l.set_dirty(page, false);
        self.refill();
        Some(dirty)
    }
}

// The policy's spec (`policy/named.rs`).

const CFDC_W: crate::spec::Param = crate::spec::Param {
    key: "w",
    ty: crate::spec::Ty::Fraction,
    default: "0.5",
    help: "size of the priority region at the LRU end, as a share of the buffer",
};
const CFDC_CLUSTER: crate::spec::Param = crate::spec::Param {
    key: "cluster",
    ty: crate::spec::Ty::Int(0, crate::spec::NO_MAX),
    default: "64",
    help: "largest cluster of dirty pages with neighbouring page numbers, written in one batch (0: none)",
};

named!(
    Cfdc,
    "cfdc",
    "clean-first dirty-clustered, Ou, Härder & Jin 2009: clean pages of the priority region first, then dirty clusters by priority, each written in one batch", Serves::ONLINE,
    [CFDC_W, CFDC_CLUSTER],
    (f64, usize),
    |g| Ok((g.fraction("w"), g.int("cluster") as usize)),
    |p, capacity| Cfdc::new(capacity, p.0, p.1)
);

#[cfg(test)]
mod tests {
    use super::*;

    const COST: PageCost = PageCost::new(1.0, 1.0);

    fn admit(c: &mut Cfdc, page: DenseId, number: PageId, op: Op) {
        assert!(!c.access(page, op));
        // The test's pages: dense id i has the number the test gives it.
        let known = |n: Option<PageId>| (0..page).find(|&q| Some(c.slot(q).number()) == n);
        let (below, above) = (known(number.checked_sub(1)), known(number.checked_add(1)));
        c.learn_number(
            page,
            Numbered {
                number,
                below,
                above,
            },
        );
        c.insert(page, op, COST);
    }

    /// Clean pages of the priority region go first; then the cluster of
    /// lowest priority IPD / (n² · age), whose other pages are written with
    /// the victim and stay, clean, as the next victims.
    #[test]
    fn clean_first_then_the_densest_oldest_cluster_in_one_batch() {
        let mut c = Cfdc::new(5, 1.0, 64);
        admit(&mut c, 0, 100, Op::Write);
        admit(&mut c, 1, 101, Op::Write);
        admit(&mut c, 2, 500, Op::Write);
        admit(&mut c, 3, 900, Op::Read);
        admit(&mut c, 4, 102, Op::Write);
        let clusters = c.clusters();
        assert_eq!(clusters.len(), 2, "{clusters:?}");
        // {100, 101, 102}: n = 3, IPD 2; {500}: n = 1, IPD 1 (ages 1 and 3).
        let dense = clusters.iter().find(|(p, _)| p.len() == 3).unwrap();
        assert_eq!(dense.0, vec![0, 1, 4]);
        assert!((dense.1 - 2.0 / 9.0).abs() < 1e-12, "{}", dense.1);
        // The clean page goes first.
        assert_eq!(
            c.evict(|_| true),
            Some(Victim {
                page: 3,
                dirty: false
            })
        );
        // Then the dense cluster (2/9 < 1/3): its first page, with the rest.
        let v = c.evict(|_| true).unwrap();
        assert_eq!(
            v,
            Victim {
                page: 0,
                dirty: true
            }
        );
        let mut out = Vec::new();
        c.cluster(v.page, &mut crate::policy::testing::AllWritable, &mut out);
        assert_eq!(out, vec![1, 4]);
        for p in out {
            c.mark_clean(p, COST);
        }
        // Each written page went to the LRU end of the clean queue.
        assert_eq!(
            c.evict(|_| true),
            Some(Victim {
                page: 4,
                dirty: false
            })
        );
        assert_eq!(
            c.evict(|_| true),
            Some(Victim {
                page: 1,
                dirty: false
            })
        );
        assert_eq!(
            c.evict(|_| true),
            Some(Victim {
                page: 2,
                dirty: true
            })
        );
    }

    /// Everything CFDC keeps of a page is in its node, one aligned cache
    /// line; the other list policies' nodes stay small.
    #[test]
    fn a_node_with_its_slot_fills_one_aligned_half_line() {
        assert_eq!(Lists::<3, Slot>::NODE_BYTES, 32);
        assert_eq!(std::mem::align_of::<Slot>(), 4);
        assert_eq!(Lists::<3>::NODE_BYTES, 12);
    }

    /// A page bridging two clusters merges them; `cluster=0` keeps every
    /// page alone.
    #[test]
    fn neighbours_merge_and_cluster_zero_keeps_pages_apart() {
        let mut c = Cfdc::new(4, 1.0, 64);
        admit(&mut c, 0, 10, Op::Write);
        admit(&mut c, 1, 12, Op::Write);
        assert_eq!(c.clusters().len(), 2);
        admit(&mut c, 2, 11, Op::Write);
        assert_eq!(c.clusters().len(), 1);
        let mut alone = Cfdc::new(4, 1.0, 0);
        for (p, n) in [(0, 10), (1, 11), (2, 12)] {
            admit(&mut alone, p, n, Op::Write);
        }
        assert_eq!(alone.clusters().len(), 3);
    }
}
