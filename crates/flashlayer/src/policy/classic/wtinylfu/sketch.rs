//! W-TinyLFU's frequency sketches: counting Bloom filters sized for the main
//! cache's M pages at a 0.001 false-positive rate (⌈14.38·M⌉ counters, 10
//! hashes), every counter of a page incremented on each add, an estimate the
//! least of them, every counter halved on decay. Two layouts of the same
//! counts:
//!
//! - [`Blocked`] (`sketch=blocked`, the default): a page's 10 counters lie
//!   in one 4 KiB block (double hashing inside the block, the block chosen
//!   by another hash of the dense id), 8-bit and saturating at 255. Counting
//!   a page touches one page of memory, so one address translation instead
//!   of ten, in a sketch of one byte a counter (632 KiB for 45,000 pages,
//!   against 2.5 MiB); a page whose counters saturate is already far more
//!   frequent than any admission compares it with.
//! - [`Flat`] (`sketch=libcachesim`): libCacheSim 0.3.5's
//!   (`minimalIncrementCBF.c`): 32-bit counters in one array, the i-th of a
//!   page at `(a + i·b) mod n` with `a` and `b` the low 32 bits of XXH64 of
//!   the page's number (its 8 little-endian bytes) under its two seeds.
//!   Keyed by page number, as libCacheSim keys by object id, so the same
//!   collisions and the same decisions.

/// Hashes a page, `⌈ln 2 · -ln(0.001) / ln(2)²⌉`, as libCacheSim computes it.
pub(super) const HASHES: u32 = 10;

/// Counters a page: `-ln(0.001) / ln(2)²`, computed as libCacheSim does.
fn counters_per_page() -> f64 {
    -(0.001f64).ln() / 0.480_453_013_918_201
}

/// Counters in a block: one 4 KiB page of memory.
const BLOCK: usize = 4096;

/// One page of counters: every counter of a page lies in one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(align(4096))]
struct Block([u8; BLOCK]);

/// Counters whose 10 for a page share one block of memory, keyed by dense
/// id.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Blocked {
    blocks: Vec<Block>,
}

impl Blocked {
    fn for_pages(pages: usize) -> Self {
        let n = (counters_per_page() * pages as f64).ceil() as usize;
        Blocked {
            blocks: vec![Block([0; BLOCK]); n.div_ceil(BLOCK).max(1)],
        }
    }

    /// The block of `page`, and the first position and the stride of its
    /// counters in it: double hashing inside the block, the stride odd so
    /// that the counters are distinct.
    #[inline]
    fn place(&self, page: u64) -> (usize, u32, u32) {
        let mut z = page ^ 0x9e37_79b9_7f4a_7c15;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        // Lemire's range reduction: a multiply where a modulo would divide.
        let block = ((z & 0xffff_ffff) * self.blocks.len() as u64) >> 32;
        (block as usize, (z >> 32) as u32, (z >> 48) as u32 | 1)
    }

    /// The position in its block of a page's `i`-th counter.
    #[inline]
    fn slot(first: u32, stride: u32, i: u32) -> usize {
        first.wrapping_add(i.wrapping_mul(stride)) as usize % BLOCK
    }

    #[inline]
    fn counter(&mut self, x: usize) -> &mut u8 {
        &mut self.blocks[x / BLOCK].0[x % BLOCK]
    }

    fn halve(&mut self) {
        for block in &mut self.blocks {
            for c in &mut block.0 {
                *c >>= 1;
            }
        }
    }
}

/// libCacheSim's counters: one array of 32-bit counters, keyed by page
/// number.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Flat {
    pub(super) counters: Vec<u32>,
    /// Each dense id's page number ([`Sketch::learn`]), `u64::MAX` unknown.
    numbers: Vec<u64>,
}

/// libCacheSim's two hash seeds (`hash.h`).
const SEEDS: (u64, u64) = (0x1234_5678, 0x1234_4321);

impl Flat {
    fn for_pages(pages: usize) -> Self {
        let n = (counters_per_page() * pages as f64)
            .ceil()
            .min(f64::from(i32::MAX)) as usize;
        // Too few for distinct hashes: libCacheSim takes twice the hashes.
        let n = if n < HASHES as usize {
            2 * HASHES as usize
        } else {
            n
        };
        Flat {
            counters: vec![0; n],
            numbers: Vec::new(),
        }
    }

    /// The indexes of the counters of `page`, by its number.
    #[inline]
    fn slots(&self, page: u32) -> impl Iterator<Item = usize> + use<> {
        let bytes = self.number(page).to_le_bytes();
        let a = xxhash_rust::xxh64::xxh64(&bytes, SEEDS.0) as u32;
        let b = xxhash_rust::xxh64::xxh64(&bytes, SEEDS.1) as u32;
        let n = self.counters.len() as u32;
        (0..HASHES).map(move |i| (a.wrapping_add(i.wrapping_mul(b)) % n) as usize)
    }

    fn number(&self, page: u32) -> u64 {
        let n = self.numbers.get(page as usize).copied().unwrap_or(u64::MAX);
        debug_assert!(
            n != u64::MAX,
            "page {page}'s number is told before it is counted"
        );
        n
    }
}

/// W-TinyLFU's sketch in either layout.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Sketch {
    Blocked(Blocked),
    Flat(Flat),
}

impl Sketch {
    /// A sketch for a main cache of `pages` pages, in libCacheSim's layout
    /// if `flat`.
    pub(super) fn for_pages(pages: usize, flat: bool) -> Self {
        if flat {
            Sketch::Flat(Flat::for_pages(pages))
        } else {
            Sketch::Blocked(Blocked::for_pages(pages))
        }
    }

    /// The estimate of `page`'s count: the least of its counters.
    pub(super) fn estimate(&self, page: u32) -> u32 {
        match self {
            Sketch::Blocked(s) => {
                // One block holds them all: indexed once.
                let (k, first, stride) = s.place(u64::from(page));
                let block = &s.blocks[k].0;
                (0..HASHES)
                    .map(|i| u32::from(block[Blocked::slot(first, stride, i)]))
                    .min()
            }
            Sketch::Flat(s) => s.slots(page).map(|x| s.counters[x]).min(),
        }
        .unwrap_or(0)
    }

    /// Counts `page` once; with `undo`, first putting each counter it
    /// changes, with its old value, there.
    #[inline]
    pub(super) fn add(&mut self, page: u32, mut undo: Option<&mut Vec<(usize, u32)>>) {
        match self {
            Sketch::Blocked(s) => {
                let (k, first, stride) = s.place(u64::from(page));
                let block = &mut s.blocks[k].0;
                for i in 0..HASHES {
                    let x = Blocked::slot(first, stride, i);
                    if let Some(u) = undo.as_deref_mut() {
                        u.push((k * BLOCK + x, u32::from(block[x])));
                    }
                    block[x] = block[x].saturating_add(1);
                }
            }
            Sketch::Flat(s) => {
                for x in s.slots(page) {
                    if let Some(u) = undo.as_deref_mut() {
                        u.push((x, s.counters[x]));
                    }
                    s.counters[x] = s.counters[x].wrapping_add(1);
                }
            }
        }
    }

    /// Puts back a counter [`Sketch::add`] changed.
    pub(super) fn restore(&mut self, index: usize, value: u32) {
        match self {
            Sketch::Blocked(s) => *s.counter(index) = value as u8,
            Sketch::Flat(s) => s.counters[index] = value,
        }
    }

    /// Starts loading what counting `page` reads: its block's first line,
    /// and with it the block's address translation. (libCacheSim's layout
    /// spreads a page's counters: nothing one line loads.)
    #[inline]
    pub(super) fn prefetch(&self, page: u32) {
        if let Sketch::Blocked(s) = self {
            crate::types::prefetch(&s.blocks[s.place(u64::from(page)).0]);
        }
    }

    /// Halves every counter.
    pub(super) fn halve(&mut self) {
        match self {
            Sketch::Blocked(s) => s.halve(),
            Sketch::Flat(s) => s.counters.iter_mut().for_each(|c| *c >>= 1),
        }
    }

    /// Whether the sketch must be told `page`'s number: libCacheSim's
    /// layout keys by number, and does not know it yet.
    pub(super) fn wants_number(&self, page: u32) -> bool {
        matches!(self, Sketch::Flat(s) if s.numbers.get(page as usize).is_none_or(|&n| n == u64::MAX))
    }

    /// `page`'s number, for libCacheSim's layout.
    pub(super) fn learn(&mut self, page: u32, number: u64) {
        if let Sketch::Flat(s) = self {
            let i = page as usize;
            if i >= s.numbers.len() {
                s.numbers.resize((i + 1).max(2 * s.numbers.len()), u64::MAX);
            }
            s.numbers[i] = number;
        }
    }
}
