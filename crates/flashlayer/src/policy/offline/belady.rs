//! Belady's MIN (1966): the offline, miss-optimal policy. It evicts the
//! resident page whose next use lies furthest in the future.
//!
//! Tie rule: among pages never used again, a clean one is evicted before a
//! dirty one, which saves write-backs without costing a miss; among pages of
//! the same kind, the one that became "never used again" last goes first.
//!
//! Belady must see the whole trace first: [`Belady::new`] computes the next
//! use of every request in one backward pass. It must then be driven by
//! exactly that trace, in order; each `access` hit and each `insert`
//! consumes one request.
//!
//! Data structure: each request index is the next use of at most one earlier
//! request, so the next uses of the resident pages are distinct request
//! indices. They are kept as set bits of a hierarchical bitmap over the
//! trace ([`Marks`], 64-way), and the page behind a set bit is the page of
//! that request. The victim is the highest set bit, found in one step per
//! level (four for 16M requests); a hit clears the current bit, which is
//! cache-hot, and sets one other. Pages never used again sit on two stacks
//! (clean, dirty; the newest goes first). Memory: 4 bytes per request (next
//! use; the page of a request is read from the borrowed trace) plus a bit,
//! and 8 bytes per page; no step is O(log capacity).

use crate::policy::list::prefetch;
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost, MAX_DENSE};

const NEVER: u32 = u32::MAX;
const RESIDENT: u32 = 1;
const DIRTY_FLAG: u32 = 2;

/// Entries of [`Belady::recent`]: 32 KiB, within the first-level data
/// cache (on libCacheSim's Twitter trace, 1,024 entries made Belady 3%
/// slower, 16,384 no faster).
const RECENT: usize = 4096;

/// How many requests ahead the bitmap word of a coming next use is loaded.
const AHEAD: usize = 16;

/// A set of indices below `n` with predecessor search: level 0 has a bit per
/// index, each higher level a bit per non-empty word of the level below, up
/// to a single word.
#[derive(Clone, Debug)]
struct Marks {
    levels: Vec<Vec<u64>>,
}

impl Marks {
    fn new(n: usize) -> Self {
        let mut levels = Vec::new();
        let mut words = n.div_ceil(64).max(1);
        loop {
            levels.push(vec![0u64; words]);
            if words == 1 {
                break;
            }
            words = words.div_ceil(64);
        }
        Marks { levels }
    }

    #[inline]
    fn set(&mut self, mut k: usize) {
        for level in &mut self.levels {
            let w = &mut level[k >> 6];
            let was = *w;
            *w |= 1 << (k & 63);
            if was != 0 {
                return;
            }
            k >>= 6;
        }
    }

    #[inline]
    fn clear(&mut self, mut k: usize) {
        for level in &mut self.levels {
            let w = &mut level[k >> 6];
            *w &= !(1 << (k & 63));
            if *w != 0 {
                return;
            }
            k >>= 6;
        }
    }

    /// The highest index `<= k` at `level` that is set.
    fn prev_at(&self, level: usize, k: usize) -> Option<usize> {
        let (w, b) = (k >> 6, k & 63);
        let bits = self.levels[level][w] & (u64::MAX >> (63 - b));
        if bits != 0 {
            return Some(w << 6 | (63 - bits.leading_zeros() as usize));
        }
        if w == 0 {
            return None;
        }
        // The highest non-empty word of this level below `w`.
        let word = self.prev_at(level + 1, w - 1)?;
        let bits = self.levels[level][word];
        Some(word << 6 | (63 - bits.leading_zeros() as usize))
    }

    /// The highest set index `<= k`.
    #[inline]
    fn prev(&self, k: usize) -> Option<usize> {
        self.prev_at(0, k)
    }

    #[inline]
    fn word(&self, k: usize) -> &u64 {
        &self.levels[0][k >> 6]
    }
}

/// The trace Belady was built for, borrowed: the page of a request is read
/// from it rather than copied.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Words<'a> {
    Packed(&'a [u32]),
    /// Little-endian words, as in an `flt` file.
    Bytes(&'a [[u8; 4]]),
}

impl Words<'_> {
    #[inline]
    pub(crate) fn get(self, i: usize) -> u32 {
        match self {
            Words::Packed(w) => w[i],
            Words::Bytes(b) => u32::from_le_bytes(b[i]),
        }
    }

    #[inline]
    pub(crate) fn page(self, i: usize) -> DenseId {
        self.get(i) & MAX_DENSE
    }

    /// Starts loading request `i`.
    #[inline]
    fn prefetch(self, i: usize) {
        match self {
            Words::Packed(w) => prefetch(&w[i]),
            Words::Bytes(b) => prefetch(&b[i]),
        }
    }

    pub(crate) fn len(self) -> usize {
        match self {
            Words::Packed(w) => w.len(),
            Words::Bytes(b) => b.len(),
        }
    }
}

/// A page's state.
#[derive(Clone, Copy, Debug)]
struct Slot {
    /// Its next use while resident.
    key: u32,
    /// `RESIDENT` and `DIRTY_FLAG` bits.
    flags: u32,
}

const FREE: Slot = Slot {
    key: NEVER,
    flags: 0,
};

/// Belady's offline MIN policy over a trace it borrows.
#[derive(Clone, Debug)]
pub struct Belady<'a> {
    cap: usize,
    /// Per request: the index of the same page's next request, or 0 if
    /// there is none (a next use is always later than its request, so 0 is
    /// free; and a zeroed vector costs no pass over memory).
    next_use: Vec<u32>,
    /// The requests: the page behind a next use.
    words: Words<'a>,
    t: usize,
    /// The next uses of resident pages.
    marks: Marks,
    /// Per page: its next use and flags, side by side (an eviction reads
    /// both, one cache line).
    slots: Vec<Slot>,
    /// Resident pages never used again, clean (`[0]`) and dirty (`[1]`),
    /// newest last. An entry is stale once its page left, or changed from
    /// clean to dirty or back; stale entries are skipped and dropped.
    never: [Vec<u32>; 2],
    /// The most recently filed next uses and their pages, at `next %
    /// RECENT`: the page behind a mark, read here instead of from the
    /// trace when it was filed lately (with 1,024 entries, two thirds of the
    /// victims found by mark on libCacheSim's Twitter trace, and Belady 8%
    /// faster there). An entry never goes stale: a request index has one
    /// page.
    recent: Box<[(u32, u32); RECENT]>,
    len: usize,
    dirty_count: usize,
    /// The last victim's next use and, if it was never used again, its place
    /// in its stack, for [`Policy::reinstate`].
    undo: (u32, usize),
}

/// A vector of `n` zeros from the allocator's zeroed memory (no pass over
/// it), or `None` if it cannot be had. `vec![0; n]` aborts the process when
/// memory runs out, so a fallible reservation asks first.
pub(crate) fn zeroed(n: usize) -> Option<Vec<u32>> {
    Vec::<u32>::new().try_reserve_exact(n).ok()?;
    Some(vec![0; n])
}

impl<'a> Belady<'a> {
    /// Belady for `capacity` pages over `trace`, a sequence of packed request
    /// words (see [`crate::types::pack`]). Fails if the trace has `u32::MAX`
    /// requests or more.
    pub fn new(capacity: usize, trace: &'a [u32]) -> crate::Result<Self> {
        Self::build(capacity, Words::Packed(trace), 0)
    }

    /// Like [`Belady::new`], from the little-endian words of an `flt` file's
    /// request section (so a mapped file needs no copy); `pages` is the
    /// number of distinct pages, a hint for sizing.
    pub fn from_bytes(capacity: usize, bytes: &'a [u8], pages: usize) -> crate::Result<Self> {
        Self::build(capacity, Words::Bytes(bytes.as_chunks().0), pages)
    }

    /// One backward pass over the trace.
    pub(crate) fn build(capacity: usize, words: Words<'a>, pages: usize) -> crate::Result<Self> {
        let len = words.len();
        if len >= NEVER as usize {
            return Err(crate::Error::invalid(
                "Belady supports fewer than 2^32 - 1 requests",
            ));
        }
        let too_big = || {
            crate::Error::invalid(format!(
                "Belady needs {} MB for {len} requests, more than can be allocated",
                (len * 4) >> 20
            ))
        };
        let mut next_use: Vec<u32> = zeroed(len).ok_or_else(too_big)?;
        let mut last: Vec<u32> = vec![0; pages];
        for i in (0..len).rev() {
            // Random accesses to `last`: load a slot a little further back
            // while this one is served.
            if i >= AHEAD {
                if let Some(slot) = last.get(words.page(i - AHEAD) as usize) {
                    prefetch(slot);
                }
            }
            let p = words.page(i);
            if p as usize >= last.len() {
                last.resize((p as usize + 1).max(last.len() * 2), 0);
            }
            next_use[i] = last[p as usize];
            last[p as usize] = i as u32;
        }
        let pages = last.len();
        Ok(Belady {
            cap: capacity,
            next_use,
            words,
            t: 0,
            marks: Marks::new(len),
            slots: vec![FREE; pages],
            never: [Vec::new(), Vec::new()],
            recent: Box::new([(NEVER, 0); RECENT]),
            len: 0,
            dirty_count: 0,
            undo: (NEVER, 0),
        })
    }

    #[inline]
    fn resident(&self, page: DenseId) -> bool {
        self.slots
            .get(page as usize)
            .map(|s| s.flags)
            .is_some_and(|f| f & RESIDENT != 0)
    }

    #[inline]
    fn dirty(&self, page: DenseId) -> bool {
        self.slots[page as usize].flags & DIRTY_FLAG != 0
    }

    /// Takes the next request's next use (`NEVER` if none), loading the
    /// bitmap word a coming request will set.
    #[inline]
    fn consume(&mut self) -> u32 {
        if let Some(&ahead) = self.next_use.get(self.t + AHEAD) {
            if ahead != 0 {
                prefetch(self.marks.word(ahead as usize));
            }
        }
        let next = self.next_use[self.t];
        self.t += 1;
        if next == 0 {
            NEVER
        } else {
            next
        }
    }

    /// Files a resident page under its next use.
    #[inline(always)]
    fn file(&mut self, page: DenseId, next: u32) {
        self.slots[page as usize].key = next;
        if next == NEVER {
            self.never[usize::from(self.dirty(page))].push(page);
        } else {
            self.marks.set(next as usize);
            self.recent[next as usize % RECENT] = (next, page);
        }
    }

    /// The page of request `m` if it was filed lately (from
    /// [`Belady::recent`]).
    #[inline]
    fn filed(&self, m: usize) -> Option<DenseId> {
        let (at, page) = self.recent[m % RECENT];
        (at as usize == m).then_some(page)
    }

    /// The page of request `m`, a set mark.
    #[inline]
    fn page_at(&self, m: usize) -> DenseId {
        self.filed(m).unwrap_or_else(|| self.words.page(m))
    }

    /// Takes a resident page out of the bitmap (its stack entry, if it was
    /// never used again, goes stale by itself).
    #[inline]
    fn unfile(&mut self, page: DenseId) {
        let next = self.slots[page as usize].key;
        if next != NEVER {
            self.marks.clear(next as usize);
        }
        self.slots[page as usize].key = NEVER - 1;
    }

    /// Whether an entry of stack `dirty` stands for a resident page.
    #[inline]
    fn live(&self, page: DenseId, dirty: bool) -> bool {
        self.resident(page) && self.slots[page as usize].key == NEVER && self.dirty(page) == dirty
    }

    fn set_dirty(&mut self, page: DenseId, dirty: bool) {
        if self.dirty(page) == dirty {
            return;
        }
        self.slots[page as usize].flags ^= DIRTY_FLAG;
        if dirty {
            self.dirty_count += 1;
        } else {
            self.dirty_count -= 1;
        }
        if self.slots[page as usize].key == NEVER {
            // Its old entry is stale now; file it in the other stack.
            self.never[usize::from(dirty)].push(page);
            self.compact();
        }
    }

    /// Drops stale entries once they outnumber the buffer, keeping the
    /// stacks O(capacity).
    fn compact(&mut self) {
        for d in 0..2 {
            if self.never[d].len() > 2 * self.cap + 64 {
                let mut stack = std::mem::take(&mut self.never[d]);
                stack.retain(|&p| self.live(p, d == 1));
                stack.dedup();
                self.never[d] = stack;
            }
        }
    }

    /// Removes a resident page; returns whether it was dirty.
    fn take(&mut self, page: DenseId) -> bool {
        self.unfile(page);
        let dirty = self.dirty(page);
        self.slots[page as usize].flags = 0;
        self.dirty_count -= usize::from(dirty);
        self.len -= 1;
        dirty
    }
}

impl Policy for Belady<'_> {
    fn name(&self) -> String {
        "Belady".into()
    }
    crate::policy::list::counted_capacity!();
    fn contains(&self, page: DenseId) -> bool {
        self.resident(page)
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.resident(page) && self.dirty(page)
    }
    fn dirty_count(&self) -> usize {
        self.dirty_count
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        if let Some(s) = self.slots.get(page as usize) {
            prefetch(s);
        }
    }

    #[inline(always)]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        if !self.resident(page) {
            return false;
        }
        self.unfile(page);
        if op.is_write() && !self.dirty(page) {
            self.slots[page as usize].flags |= DIRTY_FLAG;
            self.dirty_count += 1;
        }
        let next = self.consume();
        self.file(page, next);
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len < self.cap);
        if page as usize >= self.slots.len() {
            self.slots.resize(page as usize + 1, FREE);
        }
        self.slots[page as usize].flags = RESIDENT | if op.is_write() { DIRTY_FLAG } else { 0 };
        self.dirty_count += usize::from(op.is_write());
        self.len += 1;
        let next = self.consume();
        self.file(page, next);
    }

    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let mut page = None;
        'stacks: for d in 0..2 {
            let mut i = self.never[d].len();
            while i > 0 {
                i -= 1;
                let p = self.never[d][i];
                if !self.live(p, d == 1) {
                    if i + 1 == self.never[d].len() {
                        self.never[d].pop();
                    }
                    continue;
                }
                if evictable(p) {
                    self.never[d].remove(i);
                    self.undo = (NEVER, i);
                    // The next victim is likely the stack's new top: its
                    // state sits at a random place in a large array.
                    if let Some(&n) = self.never[d].last() {
                        prefetch(&self.slots[n as usize]);
                    }
                    page = Some(p);
                    break 'stacks;
                }
            }
        }
        if page.is_none() {
            // Highest next use first; `k` bounds the search from above.
            let mut k = self.next_use.len();
            while k > 0 {
                let Some(m) = self.marks.prev(k - 1) else {
                    break;
                };
                let p = self.page_at(m);
                if evictable(p) {
                    self.undo = (m as u32, 0);
                    page = Some(p);
                    // The next victim is likely the next lower mark: its
                    // page sits at a random place in a large array.
                    if let Some(n) = m.checked_sub(1).and_then(|k| self.marks.prev(k)) {
                        match self.filed(n) {
                            Some(page) => prefetch(&self.slots[page as usize]),
                            None => self.words.prefetch(n),
                        }
                    }
                    break;
                }
                k = m;
            }
        }
        let page = page?;
        let dirty = self.take(page);
        Some(Victim { page, dirty })
    }

    fn reinstate(&mut self, v: Victim) {
        let (next, at) = self.undo;
        self.slots[v.page as usize].flags = RESIDENT | if v.dirty { DIRTY_FLAG } else { 0 };
        self.dirty_count += usize::from(v.dirty);
        self.len += 1;
        self.slots[v.page as usize].key = next;
        if next == NEVER {
            self.never[usize::from(v.dirty)].insert(at, v.page);
        } else {
            self.marks.set(next as usize);
        }
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if self.resident(page) {
            self.set_dirty(page, true);
        }
    }
    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        if self.resident(page) {
            self.set_dirty(page, false);
        }
    }
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        self.resident(page).then(|| self.take(page))
    }
}

// The policy's spec (`policy/named.rs`).

impl crate::policy::Named for Belady<'static> {
    const SERVES: crate::policy::Serves = Serves::OFFLINE;
    const ENTRY: crate::spec::Entry = crate::spec::Entry {
        name: "belady",
        description: "offline MIN, miss-optimal; clean pages first among never-reused",
        params: &[],
    };
    type Params = ();
    fn params(_: &crate::spec::Given) -> crate::error::Result<()> {
        Ok(())
    }
    fn build(_: (), _: usize, _: usize) -> crate::error::Result<Self> {
        offline("belady")
    }
}

/// Refuses an offline policy where a live workload or a trace's future is
/// not at hand (`sim::with_policy` builds them from the trace).
pub(crate) fn offline<T>(name: &str) -> crate::error::Result<T> {
    Err(crate::Error::invalid(format!(
        "{name} is offline: it needs the whole trace in advance, so it runs only on traces \
         (flashlayer sim), not on a live workload"
    )))
}
