//! CFDC's clusters: how a dirty page joins or leaves one, and how the
//! cluster of lowest priority is found among the lists by `k` (module docs
//! of [`super`]).

use super::{Cfdc, Cluster, Single, Slot, BUCKETS, CLEAN, DIRTY, SINGLE, SINGLES, WORKING};
use crate::policy::list::NIL;
use crate::types::{DenseId, PageId};

impl Cfdc {
    /// Requests since `stamp`, at least 1. Converted through `i64`, one
    /// instruction where `u64` takes four (the victim search does this for
    /// every list): the same value, as an age never reaches 2⁶³.
    #[inline]
    pub(super) fn age(&self, stamp: u64) -> f64 {
        let age = (self.clock.saturating_sub(stamp)).max(1);
        debug_assert!(age < 1 << 63);
        age as i64 as f64
    }

    pub(super) fn k(cl: &Cluster) -> f64 {
        let ipd = if cl.n <= 1 { 1.0 } else { cl.ipd.max(1.0) };
        ipd / (f64::from(cl.n) * f64::from(cl.n))
    }

    /// The list by `k`: `k` quantised on a log scale, four lists per
    /// doubling, `k = 1` in list [`SINGLES`].
    pub(super) fn bucket(k: f64) -> usize {
        ((4.0 * k.log2()).floor() + SINGLES as f64).clamp(0.0, (BUCKETS - 1) as f64) as usize
    }

    pub(super) fn priority(&self, c: u32) -> f64 {
        let cl = &self.clusters[c as usize];
        Self::k(cl) / self.age(cl.stamp)
    }

    /// Appends cluster `c` to the list of its current `k`.
    pub(super) fn blink(&mut self, c: u32) {
        let b = Self::bucket(Self::k(&self.clusters[c as usize]));
        let tail = self.btail[b];
        self.growths += 1;
        let cl = &mut self.clusters[c as usize];
        cl.grown = self.growths;
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
    pub(super) fn bridge(
        &mut self,
        b: usize,
        prev: u32,
        next: u32,
        after_prev: u32,
        before_next: u32,
    ) {
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
    pub(super) fn refresh(&mut self, b: usize) {
        let c = self.bhead[b];
        if c != NIL {
            let cl = &self.clusters[c as usize];
            self.head_k[b] = Self::k(cl);
            self.head_stamp[b] = cl.stamp;
            self.head_page[b] = cl.head;
            if let Some(next) = self.clusters.get(cl.bnext as usize) {
                crate::policy::list::prefetch(next);
            }
            if cl.head != NIL {
                self.l.prefetch(cl.head);
            }
        }
    }

    /// Cluster `c`'s bucket and its neighbours in the bucket's list.
    fn blinks(&self, c: u32) -> (usize, u32, u32) {
        let k = &self.clusters[c as usize];
        (usize::from(k.bucket), k.bprev, k.bnext)
    }

    /// Takes cluster `c` out of its list.
    pub(super) fn bunlink(&mut self, c: u32) {
        let (b, bprev, bnext) = self.blinks(c);
        self.bridge(b, bprev, bnext, bnext, bprev);
        if self.bhead[b] == NIL {
            self.mask &= !(1 << b);
        } else if bprev == NIL {
            self.refresh(b);
        }
    }

    /// Puts cluster `c` back where [`Cfdc::bunlink`] took it from.
    pub(super) fn brelink(&mut self, c: u32) {
        let (b, bprev, bnext) = self.blinks(c);
        self.bridge(b, bprev, bnext, c, c);
        self.mask |= 1 << b;
        self.refresh(b);
    }

    pub(super) fn region_len(&self) -> usize {
        self.l.len(CLEAN) + self.l.len(DIRTY)
    }

    pub(super) fn new_cluster(&mut self, number: PageId) -> u32 {
        let cl = Cluster {
            head: NIL,
            tail: NIL,
            n: 0,
            ipd: 0.0,
            last_number: number,
            stamp: 0,
            grown: 0,
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

    /// `page`, a dirty page entering the region, starts a cluster of its
    /// own: an entry at the singletons' queue's end.
    pub(super) fn push_single(&mut self, page: DenseId) {
        self.growths += 1;
        let single = Single {
            stamp: self.clock,
            grown: self.growths,
        };
        let l = &mut self.l;
        let pos = self
            .singles
            .push_back(page, single, |p, at| l.set_word(p, [at, NIL]));
        self.l.set_word(page, [pos, NIL]);
        self.set_cluster(page, SINGLE);
    }

    /// The singleton `page` gains a page: from here on it is a cluster
    /// record, at the end of the list of `k = 1` (where the caller, which
    /// appends to it or merges it away, takes it from at once).
    pub(super) fn promote(&mut self, page: DenseId) -> u32 {
        let Single { stamp, .. } = self.singles.remove(self.l.word(page)[0]);
        let c = self.new_cluster(self.slot(page).number());
        self.l.set_word(page, [NIL, NIL]);
        let cl = &mut self.clusters[c as usize];
        cl.head = page;
        cl.tail = page;
        cl.n = 1;
        cl.stamp = stamp;
        self.set_cluster(page, c);
        self.blink(c);
        c
    }

    pub(super) fn retire(&mut self, c: u32) {
        self.bunlink(c);
        self.free.push(c);
    }

    /// Appends `page` to cluster `c`, updating its statistics.
    pub(super) fn append(&mut self, c: u32, page: DenseId) {
        let number = self.slot(page).number();
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
            self.set_next(tail, page);
        }
        self.l.set_word(page, [tail, NIL]);
        self.set_cluster(page, c);
        self.blink(c);
    }

    /// The cluster of `page` ([`SINGLE`] if it is alone) and the page, if
    /// it is a dirty page of the region.
    #[inline]
    pub(super) fn cluster_at(&self, page: u32) -> Option<(u32, DenseId)> {
        self.clustered
            .get(page)
            .then(|| (self.slot(page).cluster, page))
    }

    /// How many pages the cluster [`Cfdc::cluster_at`] found has.
    pub(super) fn size(&self, (c, _): (u32, DenseId)) -> u32 {
        if c == SINGLE {
            1
        } else {
            self.clusters[c as usize].n
        }
    }

    /// The cluster record of what [`Cfdc::cluster_at`] found, made one if
    /// it was a singleton.
    pub(super) fn record(&mut self, (c, page): (u32, DenseId)) -> u32 {
        if c == SINGLE {
            self.promote(page)
        } else {
            c
        }
    }

    /// A dirty page enters the priority region: it joins a neighbour's
    /// cluster or starts one (module docs).
    pub(super) fn join(&mut self, page: DenseId) {
        self.l.tag(DIRTY, page, [NIL, 0]);
        if self.max_size <= 1 {
            self.push_single(page);
            return;
        }
        let Slot { below, above, .. } = *self.slot(page);
        let (below, above) = (self.cluster_at(below), self.cluster_at(above));
        let fits = |m: Option<(u32, DenseId)>, me: &Self| m.filter(|&m| me.size(m) < me.max_size);
        let Some(chosen) = fits(below, self).or_else(|| fits(above, self)) else {
            // No neighbour to join, and none could merge with a cluster of
            // one (it would have fitted).
            self.push_single(page);
            return;
        };
        // A page that bridges two clusters merges them when they fit
        // (two singletons are two clusters).
        let other = match (below, above) {
            (Some(b), Some(a)) if a.0 != b.0 || a.0 == SINGLE => {
                Some(if chosen == b { a } else { b })
            }
            _ => None,
        };
        let c = self.record(chosen);
        self.append(c, page);
        if let Some(o) = other {
            if self.clusters[c as usize].n + self.size(o) <= self.max_size {
                let o = self.record(o);
                let o_ipd = self.clusters[o as usize].ipd;
                let mut p = self.clusters[o as usize].head;
                self.retire(o);
                while p != NIL {
                    let next = self.links(p)[1];
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
    pub(super) fn leave(&mut self, page: DenseId) {
        let c = self.slot(page).cluster;
        let [prev, next] = self.links(page);
        self.l.untag(page);
        self.clustered.set(page, false);
        if c == SINGLE {
            self.singles.remove(prev);
            return;
        }
        if prev != NIL {
            self.set_next(prev, next);
        }
        if next != NIL {
            self.set_prev(next, prev);
        }
        let cl = &mut self.clusters[c as usize];
        if prev == NIL {
            cl.head = next;
        }
        if next == NIL {
            cl.tail = prev;
        }
        cl.n -= 1;
        let (n, b) = (cl.n, usize::from(cl.bucket));
        if n == 0 {
            self.retire(c);
        } else if self.bhead[b] == c {
            self.refresh(b);
        }
    }

    /// Moves working-region LRU pages into the priority region until it
    /// holds `window` pages or the working region is empty.
    #[inline]
    pub(super) fn refill(&mut self) {
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

    /// Starts loading what the refill after next will read, so the load
    /// overlaps the requests in between: the node of the page two behind
    /// the working tail (all a refill reads of the page it moves, a join
    /// included, is in its node; the page behind the tail was loaded by the
    /// previous refill).
    #[inline]
    pub(super) fn prefetch_refill(&self) {
        let t = self.l.tail(WORKING);
        if t == NIL {
            return;
        }
        let behind = self.l.prev_of(t);
        if behind == NIL {
            return;
        }
        let further = self.l.prev_of(behind);
        if further != NIL {
            self.l.prefetch(further);
        }
    }

    /// Takes `page` out of whatever holds it in the region or the list.
    pub(super) fn detach(&mut self, page: DenseId) {
        match self.l.list_of(page) {
            DIRTY => self.leave(page),
            _ => self.l.unlink(page),
        }
    }

    /// The cluster of lowest priority among the oldest cluster with a page
    /// that may go of each list by `k` ([`SINGLE`] for a singleton), and
    /// that page.
    pub(super) fn pick_cluster(
        &mut self,
        evictable: &mut impl FnMut(DenseId) -> bool,
    ) -> Option<(u32, DenseId)> {
        let l = &self.l;
        let single = self
            .singles
            .first(&mut *evictable, |p| l.prefetch(p))
            .map(|(pos, p, s)| {
                self.victim_single = pos;
                (p, s)
            });
        let mut best: Option<(f64, u32, DenseId)> = None;
        let mut mask = self.mask | (u128::from(single.is_some()) << SINGLES);
        while mask != 0 {
            let b = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let mut candidate = self.oldest_in(b, evictable);
            // The list of `k = 1` continues in the singletons' queue: the
            // older of the two heads is its oldest.
            if let Some((p, s)) = single.filter(|_| b == SINGLES) {
                if candidate.is_none_or(|(_, c, _)| s.grown < self.clusters[c as usize].grown) {
                    candidate = Some((1.0 / self.age(s.stamp), SINGLE, p));
                }
            }
            if let Some(cand) = candidate {
                if best.is_none_or(|(bp, _, _)| cand.0 < bp) {
                    best = Some(cand);
                }
            }
        }
        best.map(|(_, c, p)| (c, p))
    }

    /// The oldest cluster of list `b` with a page that may go, its
    /// priority, and that page.
    #[inline]
    pub(super) fn oldest_in(
        &self,
        b: usize,
        evictable: &mut impl FnMut(DenseId) -> bool,
    ) -> Option<(f64, u32, DenseId)> {
        if self.bhead[b] == NIL {
            return None;
        }
        // The oldest cluster's first page may go (no pin): its priority
        // from the per-list copies, without touching the cluster.
        let first = self.head_page[b];
        if evictable(first) {
            let pr = self.head_k[b] / self.age(self.head_stamp[b]);
            return Some((pr, self.bhead[b], first));
        }
        let mut c = self.bhead[b];
        while c != NIL {
            let mut p = self.clusters[c as usize].head;
            while p != NIL && !evictable(p) {
                p = self.links(p)[1];
            }
            if p != NIL {
                return Some((self.priority(c), c, p));
            }
            c = self.clusters[c as usize].bnext;
        }
        None
    }
}
