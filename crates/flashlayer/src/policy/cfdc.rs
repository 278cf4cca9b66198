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
//! merging two clusters moves the smaller one's pages.

use super::list::{Bits, Lists, Saved, NIL};
use super::{Neighbours, Policy, Victim};
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
    /// Its list by `k`, and its neighbours there (`NIL` at the ends).
    bucket: u8,
    bprev: u32,
    bnext: u32,
}

const BUCKETS: usize = 128;

/// A page's CFDC state beside its list node. Kept together because a miss
/// reads all of it, and each separate array would cost a cache miss.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct Slot {
    number: PageId,
    /// Its cluster (`NIL` unless it is a dirty page of the priority
    /// region) and its neighbours there.
    cluster: u32,
    prev: u32,
    next: u32,
    /// The pages numbered one below and one above (`NIL` when unknown),
    /// learned at admission: a dense index, no hashing.
    below: u32,
    above: u32,
}

impl Slot {
    const EMPTY: Slot = Slot {
        number: 0,
        cluster: NIL,
        prev: NIL,
        next: NIL,
        below: NIL,
        above: NIL,
    };
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
}

/// Clean-first, dirty-clustered replacement.
#[derive(Clone, Debug)]
pub struct Cfdc {
    cap: usize,
    w: f64,
    window: usize,
    max_size: u32,
    l: Lists<3>,
    /// Requests served (hits and admissions): a cluster's age is measured
    /// in it.
    clock: u64,
    /// Per page, one cache line: everything CFDC keeps beside the lists.
    slots: Vec<Slot>,
    /// Per page, whether it is in a cluster (`Slot::cluster` is not
    /// `NIL`). A dirty page entering the region asks this of both its
    /// numeric neighbours, and nearly always the answer is no: the bits
    /// (1 KiB per 8,192 pages) stay in cache, the neighbours' slots are
    /// read only when they are clustered.
    clustered: Bits,
    /// Per page, whether its number and neighbours were learned: asked at
    /// every miss, so kept apart from the slots for the same reason.
    known: Bits,
    /// Per page, whether its link to the page numbered one above ([0]) and
    /// one below ([1]) is set (`Slot::above`/`below` not `NIL`):
    /// [`Policy::learn_number`] asks them of a page's neighbours, whose
    /// slots it then need not read.
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
    /// The cluster the last victim came from, for [`Policy::cluster`].
    victim_cluster: u32,
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
            slots: Vec::new(),
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
            victim_cluster: NIL,
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
        if pages > self.slots.len() {
            self.slots.resize(pages, Slot::EMPTY);
            self.clustered.grow(pages);
            self.known.grow(pages);
            for l in &mut self.linked {
                l.grow(pages);
            }
        }
    }

    /// Puts `page` in cluster `c`, or in none with `NIL`.
    #[inline]
    fn set_cluster(&mut self, page: DenseId, c: u32) {
        self.slots[page as usize].cluster = c;
        self.clustered.set(page, c != NIL);
    }

    #[inline]
    fn ensure(&mut self, page: DenseId) {
        let need = page as usize + 1;
        if need > self.slots.len() {
            self.grow(need.max(self.slots.len() * 2));
        }
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
                    p = self.slots[p as usize].next;
                }
                out.push((pages, self.priority(c)));
                c = self.clusters[c as usize].bnext;
            }
        }
        out
    }

    fn k(cl: &Cluster) -> f64 {
        let ipd = if cl.n <= 1 { 1.0 } else { cl.ipd.max(1.0) };
        ipd / (f64::from(cl.n) * f64::from(cl.n))
    }

    fn priority(&self, c: u32) -> f64 {
        let cl = &self.clusters[c as usize];
        let age = (self.clock.saturating_sub(cl.stamp)).max(1) as f64;
        Self::k(cl) / age
    }

    /// Appends cluster `c` to the list of its current `k`.
    fn blink(&mut self, c: u32) {
        let k = Self::k(&self.clusters[c as usize]);
        let b = ((4.0 * k.log2()).floor() + 64.0).clamp(0.0, (BUCKETS - 1) as f64) as usize;
        let tail = self.btail[b];
        let cl = &mut self.clusters[c as usize];
        cl.bucket = b as u8;
        cl.bprev = tail;
        cl.bnext = NIL;
        self.bridge(b, tail, NIL, c, c);
        self.mask |= 1 << b;
        // Appending changes the oldest cluster only of an empty list.
        if tail == NIL {
            self.refresh(b);
        }
    }

    /// In list `b`, points `prev` (or the head) forward to `after_prev` and
    /// `next` (or the tail) back to `before_next`: unlinking what lies
    /// between them, or linking a cluster there.
    fn bridge(&mut self, b: usize, prev: u32, next: u32, after_prev: u32, before_next: u32) {
        if prev == NIL {
            self.bhead[b] = after_prev;
        } else {
            self.clusters[prev as usize].bnext = after_prev;
        }
        if next == NIL {
            self.btail[b] = before_next;
        } else {
            self.clusters[next as usize].bprev = before_next;
        }
    }

    /// Copies list `b`'s oldest cluster into the per-list arrays, and
    /// starts loading what evicting it will read (its first page's node and
    /// slot) and what taking it out of its list will read (the record of
    /// the cluster after it, the list's next oldest).
    #[inline]
    fn refresh(&mut self, b: usize) {
        let c = self.bhead[b];
        if c != NIL {
            let cl = &self.clusters[c as usize];
            self.head_k[b] = Self::k(cl);
            self.head_stamp[b] = cl.stamp;
            self.head_page[b] = cl.head;
            if let Some(next) = self.clusters.get(cl.bnext as usize) {
                super::list::prefetch(next);
            }
            if let Some(s) = self.slots.get(cl.head as usize) {
                super::list::prefetch(s);
                self.l.prefetch(cl.head);
            }
        }
    }

    /// Takes cluster `c` out of its list.
    fn bunlink(&mut self, c: u32) {
        let Cluster {
            bucket,
            bprev,
            bnext,
            ..
        } = self.clusters[c as usize];
        let b = usize::from(bucket);
        self.bridge(b, bprev, bnext, bnext, bprev);
        if self.bhead[b] == NIL {
            self.mask &= !(1 << b);
        } else if bprev == NIL {
            self.refresh(b);
        }
    }

    /// Puts cluster `c` back where [`Cfdc::bunlink`] took it from.
    fn brelink(&mut self, c: u32) {
        let Cluster {
            bucket,
            bprev,
            bnext,
            ..
        } = self.clusters[c as usize];
        let b = usize::from(bucket);
        self.bridge(b, bprev, bnext, c, c);
        self.mask |= 1 << b;
        self.refresh(b);
    }

    fn region_len(&self) -> usize {
        self.l.len(CLEAN) + self.l.len(DIRTY)
    }

    fn new_cluster(&mut self, number: PageId) -> u32 {
        let cl = Cluster {
            head: NIL,
            tail: NIL,
            n: 0,
            ipd: 0.0,
            last_number: number,
            stamp: 0,
            bucket: 0,
            bprev: NIL,
            bnext: NIL,
        };
        match self.free.pop() {
            Some(c) => {
                self.clusters[c as usize] = cl;
                c
            }
            None => {
                self.clusters.push(cl);
                (self.clusters.len() - 1) as u32
            }
        }
    }

    fn retire(&mut self, c: u32) {
        self.bunlink(c);
        self.free.push(c);
    }

    /// Appends `page` to cluster `c`, updating its statistics.
    fn append(&mut self, c: u32, page: DenseId) {
        let number = self.slots[page as usize].number;
        if self.clusters[c as usize].n > 0 {
            self.bunlink(c);
        }
        let clock = self.clock;
        let cl = &mut self.clusters[c as usize];
        if cl.n > 0 {
            cl.ipd += number.abs_diff(cl.last_number) as f64;
        }
        cl.last_number = number;
        cl.n += 1;
        cl.stamp = clock;
        let tail = cl.tail;
        cl.tail = page;
        if tail == NIL {
            cl.head = page;
        } else {
            self.slots[tail as usize].next = page;
        }
        self.slots[page as usize].prev = tail;
        self.slots[page as usize].next = NIL;
        self.set_cluster(page, c);
        self.blink(c);
    }

    /// The cluster of `page` if it is a dirty page of the region.
    #[inline]
    fn cluster_at(&self, page: u32) -> Option<u32> {
        self.clustered
            .get(page)
            .then(|| self.slots[page as usize].cluster)
    }

    /// A dirty page enters the priority region: it joins a neighbour's
    /// cluster or starts one (module docs).
    fn join(&mut self, page: DenseId) {
        self.l.tag(DIRTY, page);
        let number = self.slots[page as usize].number;
        let below = self.cluster_at(self.slots[page as usize].below);
        let above = self.cluster_at(self.slots[page as usize].above);
        let fits =
            |c: &Option<u32>, me: &Self| c.filter(|&c| me.clusters[c as usize].n < me.max_size);
        let c = match fits(&below, self).or_else(|| fits(&above, self)) {
            Some(c) => c,
            None => self.new_cluster(number),
        };
        self.append(c, page);
        // A page that bridges two clusters merges them when they fit.
        let other = match (below, above) {
            (Some(b), Some(a)) if a != b => Some(if c == b { a } else { b }),
            _ => None,
        };
        if let Some(o) = other {
            if self.clusters[c as usize].n + self.clusters[o as usize].n <= self.max_size {
                let o_ipd = self.clusters[o as usize].ipd;
                let mut p = self.clusters[o as usize].head;
                self.retire(o);
                while p != NIL {
                    let next = self.slots[p as usize].next;
                    self.append(c, p);
                    p = next;
                }
                self.bunlink(c);
                self.clusters[c as usize].ipd += o_ipd;
                self.blink(c);
            }
        }
    }

    /// A page leaves its cluster (and the dirty set of the region).
    fn leave(&mut self, page: DenseId) {
        self.l.untag(page);
        let c = self.slots[page as usize].cluster;
        let (prev, next) = (
            self.slots[page as usize].prev,
            self.slots[page as usize].next,
        );
        let cl = &mut self.clusters[c as usize];
        if prev == NIL {
            cl.head = next;
        } else {
            self.slots[prev as usize].next = next;
        }
        if next == NIL {
            cl.tail = prev;
        } else {
            self.slots[next as usize].prev = prev;
        }
        cl.n -= 1;
        let (n, b) = (cl.n, usize::from(cl.bucket));
        self.set_cluster(page, NIL);
        if n == 0 {
            self.retire(c);
        } else if self.bhead[b] == c {
            self.refresh(b);
        }
    }

    /// Moves working-region LRU pages into the priority region until it
    /// holds `window` pages or the working region is empty.
    #[inline]
    fn refill(&mut self) {
        while self.region_len() < self.window {
            let t = self.l.tail(WORKING);
            if t == NIL {
                break;
            }
            self.l.unlink(t);
            if self.l.is_dirty(t) {
                self.join(t);
            } else {
                self.l.push_front(CLEAN, t);
            }
            self.prefetch_refill();
        }
    }

    /// Starts loading what the next refills will read, so those loads
    /// overlap the requests in between: the node of the page two behind the
    /// working tail (it tells the refill after next where to go on), and
    /// the slot of the page behind the tail if it is dirty (its join reads
    /// it; a clean page's slot is not read at all).
    #[inline]
    fn prefetch_refill(&self) {
        let t = self.l.tail(WORKING);
        if t == NIL {
            return;
        }
        let behind = self.l.prev_of(t);
        if behind == NIL {
            return;
        }
        if self.l.is_dirty(behind) {
            super::list::prefetch(&self.slots[behind as usize]);
        }
        let further = self.l.prev_of(behind);
        if further != NIL {
            self.l.prefetch(further);
        }
    }

    /// Takes `page` out of whatever holds it in the region or the list.
    fn detach(&mut self, page: DenseId) {
        if self.l.list_of(page) == DIRTY {
            self.leave(page);
        } else {
            self.l.unlink(page);
        }
    }

    fn pick_cluster(
        &mut self,
        evictable: &mut impl FnMut(DenseId) -> bool,
    ) -> Option<(u32, DenseId)> {
        let mut best: Option<(f64, u32, DenseId)> = None;
        let mut mask = self.mask;
        while mask != 0 {
            let b = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            // The oldest cluster's first page may go (no pin): its priority
            // from the per-list copies, without touching the cluster.
            let first = self.head_page[b];
            if evictable(first) {
                let age = (self.clock.saturating_sub(self.head_stamp[b])).max(1) as f64;
                let pr = self.head_k[b] / age;
                if best.is_none_or(|(bp, _, _)| pr < bp) {
                    best = Some((pr, self.bhead[b], first));
                }
                continue;
            }
            // The oldest cluster of the list with a page that may go.
            let mut c = self.bhead[b];
            while c != NIL {
                let mut p = self.clusters[c as usize].head;
                while p != NIL && !evictable(p) {
                    p = self.slots[p as usize].next;
                }
                if p != NIL {
                    let pr = self.priority(c);
                    if best.is_none_or(|(bp, _, _)| pr < bp) {
                        best = Some((pr, c, p));
                    }
                    break;
                }
                c = self.clusters[c as usize].bnext;
            }
        }
        best.map(|(_, c, p)| (c, p))
    }
}

impl Policy for Cfdc {
    fn name(&self) -> String {
        format!("CFDC({}, cluster={})", self.w, self.max_size)
    }
    super::list::list_policy_basics!();
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        self.cap = capacity;
        self.window = (self.w * capacity as f64).round() as usize;
        self.refill();
    }
    fn len(&self) -> usize {
        self.l.len(WORKING) + self.region_len()
    }
    fn contains(&self, page: DenseId) -> bool {
        self.l.list_of(page) != 0
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        self.l.prefetch(page);
        if let Some(s) = self.slots.get(page as usize) {
            super::list::prefetch(s);
        }
    }

    /// Only a policy that clusters asks: with `cluster` 0 or 1 every dirty
    /// page is alone and numbers are never read.
    #[inline]
    fn wants_number(&self, page: DenseId) -> bool {
        self.max_size > 1 && !self.known.get(page)
    }
    fn learn_number(
        &mut self,
        page: DenseId,
        number: PageId,
        below: Option<DenseId>,
        above: Option<DenseId>,
    ) {
        self.ensure(page);
        self.slots[page as usize].number = number;
        self.known.set(page, true);
        // Links are about numbers, not residency: they stay, and a page
        // learned later links itself to both sides. A neighbour gets its
        // link to this page here only if it learned its number without it
        // (its caller did not know this page then); one not learned yet gets
        // it when it is, since callers never forget a page. In a trace's
        // pass over every page each link is so written once, by its own
        // page, and no other page's slot is touched.
        if let Some(b) = below {
            self.slots[page as usize].below = b;
            self.linked[1].set(page, true);
            if self.known.get(b) && !self.linked[0].get(b) {
                self.slots[b as usize].above = page;
                self.linked[0].set(b, true);
            }
        }
        if let Some(a) = above {
            self.slots[page as usize].above = a;
            self.linked[0].set(page, true);
            if self.known.get(a) && !self.linked[1].get(a) {
                self.slots[a as usize].below = page;
                self.linked[1].set(a, true);
            }
        }
    }

    #[inline]
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
        if op.is_write() {
            self.l.set_dirty(page, true);
        }
        if list != WORKING {
            self.refill();
        }
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len() < self.cap);
        self.ensure(page);
        self.clock += 1;
        self.l.push_front(WORKING, page);
        self.l.set_dirty(page, op.is_write());
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
            self.undo = Undo::Cluster {
                cluster: self.clusters[c as usize],
                index: c,
                prev: self.slots[p as usize].prev,
                next: self.slots[p as usize].next,
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
            Undo::Cluster {
                cluster,
                index,
                prev,
                next,
            } => {
                let page = victim.page;
                self.l.tag(DIRTY, page);
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
                    self.slots[prev as usize].next = page;
                }
                if next != NIL {
                    self.slots[next as usize].prev = page;
                }
                self.slots[page as usize].prev = prev;
                self.slots[page as usize].next = next;
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
            p = self.slots[p as usize].next;
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

#[cfg(test)]
mod tests {
    use super::*;

    const COST: PageCost = PageCost::new(1.0, 1.0);

    fn admit(c: &mut Cfdc, page: DenseId, number: PageId, op: Op) {
        assert!(!c.access(page, op));
        // The test's pages: dense id i has the number the test gives it.
        let known = |n: Option<PageId>| (0..page).find(|&q| Some(c.slots[q as usize].number) == n);
        let (below, above) = (known(number.checked_sub(1)), known(number.checked_add(1)));
        c.learn_number(page, number, below, above);
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
        struct All;
        impl Neighbours for All {
            fn neighbour(&self, _: DenseId, _: i64) -> Option<DenseId> {
                None
            }
            fn evictable(&mut self, _: DenseId) -> bool {
                true
            }
        }
        let mut out = Vec::new();
        c.cluster(v.page, &mut All, &mut out);
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
