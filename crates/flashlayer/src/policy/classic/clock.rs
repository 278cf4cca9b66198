//! CLOCK (second chance): frames on a circle with a reference bit each; the
//! hand clears set bits and evicts the first page whose bit is clear.
//!
//! Choices: a page's bit is set when it is admitted (its loading request is a
//! reference, as the hardware bit of the virtual-memory CLOCK is set by the
//! access that faulted the page in) and on every hit; the new page takes the
//! victim's frame, so the hand, already past that frame, reaches it last.
//! Pages the caller cannot evict (pinned) are skipped without clearing their
//! bit. libCacheSim 0.3.5 (`Clock.c`, `init-freq=0`) sets the bit only on
//! hits: `bit_on_admit=off` does the same and then gives its miss ratios
//! exactly (its FIFO queue, new objects at the head and referenced ones
//! moved there as the hand passes, is this circle: `tests/test_libcachesim.py`).

use crate::policy::list::NIL;
use crate::policy::Serves;
use crate::policy::{Policy, Victim};
use crate::types::{DenseId, Op, PageCost};

/// CLOCK replacement.
#[derive(Clone, Debug)]
pub struct Clock {
    /// Page in each frame, `NIL` if the frame is empty.
    frames: Vec<u32>,
    referenced: Vec<bool>,
    dirty: Vec<bool>,
    /// Frame of each page, `NIL` if not resident.
    slot: Vec<u32>,
    /// Empty frames, most recently freed last.
    free: Vec<u32>,
    hand: usize,
    cap: usize,
    len: usize,
    dirty_count: usize,
    /// The hand before the last eviction and the frames whose bit it
    /// cleared, for [`Policy::reinstate`].
    undo_hand: usize,
    undo_cleared: Vec<u32>,
    /// The bit a page is admitted with (`bit_on_admit`).
    admit_bit: bool,
}

impl Clock {
    /// A CLOCK buffer of `capacity` pages.
    pub fn new(capacity: usize) -> Self {
        Clock {
            frames: vec![NIL; capacity],
            referenced: vec![false; capacity],
            dirty: vec![false; capacity],
            slot: Vec::new(),
            free: (0..capacity as u32).rev().collect(),
            hand: 0,
            cap: capacity,
            len: 0,
            dirty_count: 0,
            undo_hand: 0,
            undo_cleared: Vec::new(),
            admit_bit: true,
        }
    }

    /// A CLOCK buffer of `capacity` pages whose pages enter with their bit
    /// set if `admit_bit` (the default), else clear (libCacheSim's).
    pub fn with_admit_bit(capacity: usize, admit_bit: bool) -> Self {
        Clock {
            admit_bit,
            ..Clock::new(capacity)
        }
    }

    /// Pre-sizes per-page state for dense ids `0..pages`.
    pub fn with_pages(mut self, pages: usize) -> Self {
        if pages > self.slot.len() {
            self.slot.resize(pages, NIL);
        }
        self
    }

    #[inline]
    fn frame_of(&self, page: DenseId) -> Option<usize> {
        match self.slot.get(page as usize) {
            Some(&f) if f != NIL => Some(f as usize),
            _ => None,
        }
    }

    fn set_dirty(&mut self, frame: usize, dirty: bool) {
        if self.dirty[frame] != dirty {
            self.dirty[frame] = dirty;
            if dirty {
                self.dirty_count += 1;
            } else {
                self.dirty_count -= 1;
            }
        }
    }

    /// Gives back the reference bits the last scan cleared and puts the hand
    /// where the scan started.
    fn restore_scan(&mut self) {
        for &c in &self.undo_cleared {
            self.referenced[c as usize] = true;
        }
        self.hand = self.undo_hand;
    }

    fn clear_frame(&mut self, frame: usize) -> bool {
        let page = self.frames[frame];
        let dirty = self.dirty[frame];
        self.set_dirty(frame, false);
        self.frames[frame] = NIL;
        self.referenced[frame] = false;
        self.slot[page as usize] = NIL;
        self.free.push(frame as u32);
        self.len -= 1;
        dirty
    }
}

impl Policy for Clock {
    fn name(&self) -> String {
        "CLOCK".into()
    }
    fn capacity(&self) -> usize {
        self.cap
    }
    fn set_capacity(&mut self, capacity: usize) {
        debug_assert!(capacity >= self.len);
        // Frames are never taken off the circle (indices stay put): a
        // smaller capacity leaves empty frames unused, a larger one adds
        // empty frames where none are spare.
        while self.frames.len() < capacity {
            self.free.insert(0, self.frames.len() as u32);
            self.frames.push(NIL);
            self.referenced.push(false);
            self.dirty.push(false);
        }
        self.cap = capacity;
    }
    fn len(&self) -> usize {
        self.len
    }
    fn contains(&self, page: DenseId) -> bool {
        self.frame_of(page).is_some()
    }
    fn is_dirty(&self, page: DenseId) -> bool {
        self.frame_of(page).is_some_and(|f| self.dirty[f])
    }
    fn dirty_count(&self) -> usize {
        self.dirty_count
    }

    #[inline]
    fn prefetch(&self, page: DenseId) {
        if let Some(s) = self.slot.get(page as usize) {
            crate::policy::list::prefetch(s);
        }
    }

    #[inline]
    fn access(&mut self, page: DenseId, op: Op) -> bool {
        let Some(f) = self.frame_of(page) else {
            return false;
        };
        self.referenced[f] = true;
        if op.is_write() {
            self.set_dirty(f, true);
        }
        true
    }

    #[inline]
    fn insert(&mut self, page: DenseId, op: Op, _cost: PageCost) {
        debug_assert!(self.len < self.cap, "insert into a full CLOCK buffer");
        let f = self.free.pop().expect("insert into a full CLOCK buffer") as usize;
        if page as usize >= self.slot.len() {
            self.slot
                .resize((page as usize + 1).max(self.slot.len() * 2), NIL);
        }
        self.frames[f] = page;
        self.referenced[f] = self.admit_bit;
        self.slot[page as usize] = f as u32;
        self.len += 1;
        self.set_dirty(f, op.is_write());
    }

    #[inline]
    fn evict<F: FnMut(DenseId) -> bool>(&mut self, mut evictable: F) -> Option<Victim> {
        let n = self.frames.len();
        if n == 0 {
            return None;
        }
        self.undo_hand = self.hand;
        self.undo_cleared.clear();
        // Two full turns clear every bit; a third finds nothing new.
        for _ in 0..=2 * n {
            let f = self.hand;
            self.hand = if f + 1 == n { 0 } else { f + 1 };
            let page = self.frames[f];
            if page == NIL || !evictable(page) {
                continue;
            }
            if self.referenced[f] {
                self.referenced[f] = false;
                self.undo_cleared.push(f as u32);
                continue;
            }
            let dirty = self.clear_frame(f);
            return Some(Victim { page, dirty });
        }
        // Nothing evictable: the turns changed nothing, as far as anyone
        // can tell.
        self.restore_scan();
        None
    }

    fn reinstate(&mut self, v: Victim) {
        // The victim's frame is the most recently freed one.
        let f = self.free.pop().expect("the victim's frame is free") as usize;
        self.frames[f] = v.page;
        self.slot[v.page as usize] = f as u32;
        self.len += 1;
        self.set_dirty(f, v.dirty);
        self.restore_scan();
    }

    fn mark_dirty(&mut self, page: DenseId) {
        if let Some(f) = self.frame_of(page) {
            self.set_dirty(f, true);
        }
    }
    fn mark_clean(&mut self, page: DenseId, _cost: PageCost) {
        if let Some(f) = self.frame_of(page) {
            self.set_dirty(f, false);
        }
    }
    fn remove(&mut self, page: DenseId) -> Option<bool> {
        let f = self.frame_of(page)?;
        Some(self.clear_frame(f))
    }
}

const BIT_ON_ADMIT: crate::spec::Param = crate::spec::Param::new(
    "bit_on_admit",
    crate::spec::Ty::Switch,
    "on",
    "a page enters with its reference bit set (off: only hits set it, as libCacheSim's Clock does)",
);

named!(
    Clock,
    "clock",
    "second chance with a reference bit per frame, set on admission too (bit_on_admit=off: only on hits, as libCacheSim's)",
    Serves::POOL,
    [BIT_ON_ADMIT],
    bool,
    |g| Ok(g.switch("bit_on_admit")),
    |on, capacity| Clock::with_admit_bit(capacity, on)
);
