//! FD-Buffer (On, Li, Luo, Lee, Ng, Hong: "FD-Buffer: a buffer manager for
//! databases on flash disks", CIKM 2010), §4: the buffer is split into a
//! clean pool C and a dirty pool D, each managed by its own replacement
//! policy (any of LRU, FIFO, CLOCK, 2Q, ARC: the existing policy values),
//! and frames move between the pools exactly as Algorithms 1 and 2 say:
//!
//! - a read hit in either pool, or a write hit in D, is that pool's hit; a
//!   write hit in C moves the page, with its frame, from C to D (`Remove`,
//!   `Add`: admitted to D as a page moving in, not a demand miss);
//! - a read miss calls FindVictimForClean: if |D| > M_d = M − M_c the victim
//!   is D's (written back) and its frame moves to C, else C's;
//! - a write miss calls FindVictimForDirty: if |C| > M_c the victim is C's
//!   and its frame moves to D, else D's (written back);
//! - the missing page enters C on a read, D on a write.
//!
//! Each pool is a [`Policy`] whose capacity is the number of frames it owns
//! ([`Policy::set_capacity`] follows every frame that moves), so targets that
//! depend on capacity (ARC's, 2Q's) follow the pool's real size.
//!
//! Choices where the paper is silent, each tested:
//! - Frames of an empty buffer start in C (the paper's example starts with
//!   D empty); a miss while frames are free takes a free frame of its own
//!   pool, else one from the other pool.
//! - When the pool Algorithm 2 names has no page the caller may evict (all
//!   pinned), the victim comes from the other pool, and the frame moves to
//!   the pool of the incoming page.
//! - A page written back while it stays resident (a checkpoint) moves, with
//!   its frame, to C; a page of C modified without a new access moves to D.
//! - A base policy with ghosts is told of a miss only when the page will be
//!   admitted to it (a read miss is announced to C, a write miss to D), so a
//!   ghost hit is counted in the pool the page returns to.
//!
//! `M_c` is fixed here (`mc=K` pages); its online adaptation from each
//! pool's miss-ratio curve is not built yet.

use super::{Arc, Clock, Fifo, Lru, Policy, TwoQ, Victim};
use crate::types::{DenseId, IoKind, Op, PageCost};

/// The policy of one pool.
#[derive(Clone, Debug)]
pub enum Base {
    /// [`Lru`]
    Lru(Lru),
    /// [`Fifo`]
    Fifo(Fifo),
    /// [`Clock`]
    Clock(Clock),
    /// [`TwoQ`]
    TwoQ(TwoQ),
    /// [`Arc`]
    Arc(Arc),
}

/// Calls `$body` with the pool's policy bound to `$p`.
macro_rules! with_base {
    ($base:expr, $p:ident => $body:expr) => {
        match $base {
            Base::Lru($p) => $body,
            Base::Fifo($p) => $body,
            Base::Clock($p) => $body,
            Base::TwoQ($p) => $body,
            Base::Arc($p) => $body,
        }
    };
}

impl Base {
    /// The base policy `name` (`lru`, `fifo`, `clock`, `2q`, `arc`) with
    /// `capacity` pages, pre-sized for dense ids `0..pages`; `None` for any
    /// other name.
    pub fn by_name(name: &str, capacity: usize, pages: usize) -> Option<Self> {
        Some(match name {
            "lru" => Base::Lru(Lru::new(capacity).with_pages(pages)),
            "fifo" => Base::Fifo(Fifo::new(capacity).with_pages(pages)),
            "clock" => Base::Clock(Clock::new(capacity).with_pages(pages)),
            "2q" => Base::TwoQ(TwoQ::new(capacity).with_pages(pages)),
            "arc" => Base::Arc(Arc::new(capacity).with_pages(pages)),
            _ => return None,
        })
    }
}

impl Policy for Base {
    fn name(&self) -> String {
        with_base!(self, p => p.name())
    }
    fn capacity(&self) -> usize {
        with_base!(self, p => p.capacity())
    }
    fn set_capacity(&mut self, capacity: usize) {
        with_base!(self, p => p.set_capacity(capacity))
    }
    fn len(&self) -> usize {
        with_base!(self, p => p.len())
    }
    fn contains(&self, page: DenseId) -> bool {
        with_base!(self, p => p.contains(page))
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        with_base!(self, p => p.is_dirty(page))
    }
    fn dirty_count(&self) -> usize {
        with_base!(self, p => p.dirty_count())
    }
    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        with_base!(self, p => p.access(page, op))
    }
    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, cost: PageCost) {
        with_base!(self, p => p.insert(page, op, cost))
    }
    fn adopt(&mut self, page: DenseId, dirty: bool, cost: PageCost) {
        with_base!(self, p => p.adopt(page, dirty, cost))
    }
    #[inline]
    fn evict<F: FnMut(DenseId) -> bool>(&mut self, evictable: F) -> Option<Victim> {
        with_base!(self, p => p.evict(evictable))
    }
    fn reinstate(&mut self, victim: Victim) {
        with_base!(self, p => p.reinstate(victim))
    }
    fn mark_dirty(&mut self, page: DenseId) {
        with_base!(self, p => p.mark_dirty(page))
    }
    fn mark_clean(&mut self, page: DenseId, cost: PageCost) {
        with_base!(self, p => p.mark_clean(page, cost))
    }
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        with_base!(self, p => p.remove(page))
    }
    #[inline]
    fn prefetch(&self, page: DenseId) {
        with_base!(self, p => p.prefetch(page))
    }
    fn observe_io(&mut self, kind: IoKind, cost: f64) {
        with_base!(self, p => p.observe_io(kind, cost))
    }
}

/// Which pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pool {
    Clean,
    Dirty,
}

/// FD-Buffer over two pools.
#[derive(Clone, Debug)]
pub struct FdBuffer {
    m: usize,
    mc: usize,
    clean: Base,
    dirty: Base,
    /// The op of the miss announced last, for Algorithm 2.
    incoming: Op,
    /// The pool of the last victim, for [`Policy::reinstate`]. Its frame
    /// moves to the incoming page's pool only at `insert`, so undoing an
    /// eviction never has to undo a resize.
    undo: Option<Pool>,
    /// The cost of the page admitted last: what a page moving between pools
    /// is priced at (one device).
    cost: PageCost,
}

impl FdBuffer {
    /// FD-Buffer of `capacity` pages with clean-pool threshold `mc`
    /// (clamped to `capacity`) over the pools `clean` and `dirty` (their
    /// capacities are reset: every frame starts in the clean pool).
    pub fn new(capacity: usize, mc: usize, mut clean: Base, mut dirty: Base) -> Self {
        clean.set_capacity(capacity);
        dirty.set_capacity(0);
        FdBuffer {
            m: capacity,
            mc: mc.min(capacity),
            clean,
            dirty,
            incoming: Op::Read,
            undo: None,
            cost: PageCost {
                read: 1.0,
                write: 1.0,
            },
        }
    }

    /// M_c, the clean pool's size threshold.
    pub fn mc(&self) -> usize {
        self.mc
    }

    /// (|C|, |D|): pages in each pool.
    pub fn pool_sizes(&self) -> (usize, usize) {
        (self.clean.len(), self.dirty.len())
    }

    /// (frames of C, frames of D).
    pub fn pool_frames(&self) -> (usize, usize) {
        (self.clean.capacity(), self.dirty.capacity())
    }

    fn pool(&mut self, p: Pool) -> &mut Base {
        match p {
            Pool::Clean => &mut self.clean,
            Pool::Dirty => &mut self.dirty,
        }
    }

    /// Moves one frame from pool `from` to the other.
    fn move_frame(&mut self, from: Pool) {
        let (a, b) = match from {
            Pool::Clean => (&mut self.clean, &mut self.dirty),
            Pool::Dirty => (&mut self.dirty, &mut self.clean),
        };
        a.set_capacity(a.capacity() - 1);
        b.set_capacity(b.capacity() + 1);
    }

    fn other(p: Pool) -> Pool {
        match p {
            Pool::Clean => Pool::Dirty,
            Pool::Dirty => Pool::Clean,
        }
    }

    /// Makes sure pool `to` has a free frame, taking a free one from the
    /// other pool if it has none. The buffer is not full.
    fn free_frame_for(&mut self, to: Pool) {
        let p = self.pool(to);
        if p.len() < p.capacity() {
            return;
        }
        self.move_frame(Self::other(to));
    }
}

impl Policy for FdBuffer {
    fn name(&self) -> String {
        format!(
            "FD-Buffer(mc={}, clean={}, dirty={})",
            self.mc,
            self.clean.name(),
            self.dirty.name()
        )
    }
    fn capacity(&self) -> usize {
        self.m
    }
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len());
        // Frames come and go through the clean pool's free ones first.
        if capacity >= self.m {
            self.clean
                .set_capacity(self.clean.capacity() + capacity - self.m);
        } else {
            let mut drop = self.m - capacity;
            for pool in [Pool::Clean, Pool::Dirty] {
                let p = self.pool(pool);
                let free = (p.capacity() - p.len()).min(drop);
                p.set_capacity(p.capacity() - free);
                drop -= free;
            }
        }
        self.m = capacity;
        self.mc = self.mc.min(capacity);
    }
    fn len(&self) -> usize {
        self.clean.len() + self.dirty.len()
    }
    fn contains(&self, page: DenseId) -> bool {
        self.clean.contains(page) || self.dirty.contains(page)
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.dirty.is_dirty(page)
    }
    fn dirty_count(&self) -> usize {
        self.dirty.dirty_count()
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        self.clean.prefetch(page);
        self.dirty.prefetch(page);
    }

    fn access(&mut self, page: DenseId, op: Op) -> bool {
        if self.clean.contains(page) {
            if op.is_write() {
                // Algorithm 1, Write lines 1–4: the page and its frame move.
                let dirty = self.clean.remove(page);
                debug_assert_eq!(dirty, Some(false));
                self.move_frame(Pool::Clean);
                self.dirty.adopt(page, true, self.cost);
            } else {
                self.clean.access(page, op);
            }
            return true;
        }
        if self.dirty.access(page, op) {
            return true;
        }
        // A miss: announced to the pool that will admit the page.
        self.incoming = op;
        let hit = match op {
            Op::Read => self.clean.access(page, op),
            Op::Write => self.dirty.access(page, op),
        };
        debug_assert!(!hit);
        false
    }

    fn insert(&mut self, page: DenseId, op: Op, cost: PageCost) {
        debug_assert!(self.len() < self.m);
        let to = if op.is_write() {
            Pool::Dirty
        } else {
            Pool::Clean
        };
        // The victim's frame (if any) now moves to `to`, or a free one does.
        self.free_frame_for(to);
        self.pool(to).insert(page, op, cost);
        self.undo = None;
        self.cost = cost;
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let to = if self.incoming.is_write() {
            Pool::Dirty
        } else {
            Pool::Clean
        };
        // Algorithm 2.
        let first = match to {
            Pool::Clean if self.dirty.len() > self.m - self.mc => Pool::Dirty,
            Pool::Clean => Pool::Clean,
            Pool::Dirty if self.clean.len() > self.mc => Pool::Clean,
            Pool::Dirty => Pool::Dirty,
        };
        let (from, v) = match self.pool(first).evict(&mut evictable) {
            Some(v) => (first, v),
            None => {
                let second = Self::other(first);
                (second, self.pool(second).evict(&mut evictable)?)
            }
        };
        self.undo = Some(from);
        Some(v)
    }

    fn reinstate(&mut self, victim: Victim) {
        if let Some(from) = self.undo.take() {
            self.pool(from).reinstate(victim);
        }
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.clean.contains(page) {
            self.clean.remove(page);
            self.move_frame(Pool::Clean);
            self.dirty.adopt(page, true, self.cost);
        }
    }

    fn mark_clean(&mut self, page: DenseId, cost: PageCost) {
        if self.dirty.contains(page) {
            self.dirty.remove(page);
            self.move_frame(Pool::Dirty);
            self.clean.adopt(page, false, cost);
        }
    }

    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.clean.remove(page).or_else(|| self.dirty.remove(page))
    }

    fn observe_io(&mut self, kind: IoKind, cost: f64) {
        self.clean.observe_io(kind, cost);
        self.dirty.observe_io(kind, cost);
    }

    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("mc", self.mc as f64));
        out.push(("clean", self.clean.len() as f64));
        out.push(("dirty", self.dirty.len() as f64));
    }
}
