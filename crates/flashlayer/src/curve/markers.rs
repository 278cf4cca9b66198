//! Markers over a window of request times: which times hold a page's last
//! request, counted by prefix and found by rank. The LRU stack as
//! [`super::CurveBuilder`] and the trace fit's page model
//! (`workload::fit::pages`) keep it: a page's stack distance is the markers
//! after its own, the page at depth `d` is the one at the marker `d` from
//! the end.

/// Fenwick tree over blocks of [`BLOCK`] bits counting the ones in each.
/// A prefix count is a walk of the small block tree (a few kilobytes for a
/// million pages: it stays in the first-level cache) plus the popcounts of
/// at most a block's words; the bits take an eighth of a byte per time, so
/// the window of a million-page trace fits the second-level cache. (A
/// Fenwick tree with a counter per time is 32 times larger and misses the
/// cache on most of its ~21 levels.)
#[derive(Debug)]
pub(crate) struct Markers {
    pub(super) bits: Vec<u64>,
    /// Fenwick tree over the blocks' counts, 1-based.
    blocks: Vec<u32>,
    pub(super) ones: u32,
}

/// Bits per block of [`Markers`]: eight words, one cache line.
const BLOCK: usize = 512;
const WORDS: usize = BLOCK / 64;

impl Markers {
    pub(crate) fn new(len: usize) -> Self {
        let words = len.div_ceil(BLOCK) * WORDS;
        Markers {
            bits: vec![0; words],
            blocks: vec![0; words / WORDS + 1],
            ones: 0,
        }
    }

    /// Times the window holds.
    pub(crate) fn len(&self) -> usize {
        self.bits.len() * 64
    }

    /// Sets (`delta` 1) or clears (`delta` −1) the marker at `at`.
    #[inline]
    pub(crate) fn add(&mut self, at: u32, delta: i32) {
        let at = at as usize;
        if delta > 0 {
            self.bits[at >> 6] |= 1 << (at & 63);
        } else {
            self.bits[at >> 6] &= !(1 << (at & 63));
        }
        let mut i = at / BLOCK + 1;
        while i < self.blocks.len() {
            self.blocks[i] = self.blocks[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
        self.ones = self.ones.wrapping_add_signed(delta);
    }

    /// Markers at times `≤ at`.
    #[inline]
    pub(crate) fn prefix(&self, at: u32) -> u32 {
        let at = at as usize;
        let block = at / BLOCK;
        let mut i = block;
        let mut s = 0;
        while i > 0 {
            s += self.blocks[i];
            i &= i - 1;
        }
        let first = block * WORDS;
        let word = at >> 6;
        for w in &self.bits[first..word] {
            s += w.count_ones();
        }
        s + (self.bits[word] & (u64::MAX >> (63 - (at & 63)))).count_ones()
    }

    /// The word holding time `at`, for a prefetch.
    pub(crate) fn word(&self, at: u32) -> Option<&u64> {
        self.bits.get(at as usize >> 6)
    }

    /// The time of the `k`-th marker (1-based) from the start: a descent of
    /// the block tree to the block holding it, then its words.
    pub(crate) fn select(&self, k: u32) -> usize {
        let mut k = k;
        let mut block = 0;
        let mut step = (self.blocks.len() - 1).next_power_of_two();
        while step > 0 {
            let next = block + step;
            if next < self.blocks.len() && self.blocks[next] < k {
                block = next;
                k -= self.blocks[next];
            }
            step >>= 1;
        }
        let mut w = block * WORDS;
        loop {
            let c = self.bits[w].count_ones();
            if c >= k {
                let mut x = self.bits[w];
                for _ in 1..k {
                    x &= x - 1;
                }
                return w * 64 + x.trailing_zeros() as usize;
            }
            k -= c;
            w += 1;
        }
    }

    /// Rebuilds with markers at `0..ones` exactly (after renumbering).
    pub(crate) fn reset_to_prefix(&mut self, ones: u32) {
        self.bits.fill(0);
        let ones_usize = ones as usize;
        for (i, w) in self.bits.iter_mut().enumerate() {
            let lo = i * 64;
            if lo + 64 <= ones_usize {
                *w = u64::MAX;
            } else if lo < ones_usize {
                *w = (1u64 << (ones_usize - lo)) - 1;
            }
        }
        self.blocks.fill(0);
        for b in 1..self.blocks.len() {
            let words = &self.bits[(b - 1) * WORDS..b * WORDS];
            self.blocks[b] += words.iter().map(|w| w.count_ones()).sum::<u32>();
            let parent = b + (b & b.wrapping_neg());
            if parent < self.blocks.len() {
                self.blocks[parent] += self.blocks[b];
            }
        }
        self.ones = ones;
    }
}
