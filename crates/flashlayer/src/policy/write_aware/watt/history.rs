//! WATT's per-page record: the epochs of a page's last accesses and
//! writes in one cache line, and the frequency estimate over them, in f32
//! lanes as the authors' simulator computes it in single precision. A
//! record of at most 8 access and 4 write epochs (the defaults) has fixed
//! places, so that its value is three vector divisions (`wide`'s `f32x4`,
//! SSE on x86-64); any other is estimated lane group by lane group. Both
//! give the same value, bit for bit.

use wide::{f32x4, i32x4};

/// Lanes of one step of a frequency estimate: histories are padded to a
/// multiple of it, so that an estimate is a few vector divisions.
pub(super) const LANES: usize = 4;

/// One cache line of a slot's record.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub(super) struct Line(pub(super) [u32; 16]);

/// Where a record keeps what: `kr` access epochs then `kw` write epochs
/// (newest first, each padded to [`LANES`]), then the page, a word of
/// lengths and the dirty flag; records are whole cache lines, so that an eviction's candidate costs one
/// miss.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) kr: usize,
    pub(super) kw: usize,
    /// Word of the write epochs.
    pub(super) writes: usize,
    /// Word of the page.
    pub(super) page: usize,
    /// Word of the lengths (bits 0–7 accesses, 8–15 writes, 16 dirty).
    pub(super) lens: usize,
    /// Cache lines per record.
    pub(super) lines: usize,
    /// Whether this is the [`SHORT`] layout.
    pub(super) short: bool,
}

impl Layout {
    pub(super) fn new(kr: usize, kw: usize) -> Self {
        if kr <= SHORT_READS && kw <= SHORT_WRITES {
            return Layout { kr, kw, ..SHORT };
        }
        let writes = kr.next_multiple_of(LANES);
        let page = writes + kw.next_multiple_of(LANES);
        Layout {
            kr,
            kw,
            writes,
            page,
            lens: page + 1,
            lines: (page + 2).div_ceil(16),
            short: false,
        }
    }
}

/// Access epochs a short record has room for.
const SHORT_READS: usize = 8;
/// Write epochs a short record has room for.
const SHORT_WRITES: usize = 4;
/// Entries of a short record.
const SHORT_ENTRIES: usize = SHORT_READS + SHORT_WRITES;
/// Rows of [`Counts::short`] by access length: the lengths four bits
/// name.
const SHORT_READ_ROWS: usize = 16;
/// Rows of [`Counts::short`] by write length: the lengths three bits name.
const SHORT_WRITE_ROWS: usize = 8;

/// The layout of a short record (`kr` ≤ 8, `kw` ≤ 4, the defaults among
/// them; `kr` and `kw` are the run's): one line, at fixed places, whose
/// estimate [`value_short`] computes without a loop. Fewer entries than it
/// has room for leave the rest unused: an entry beyond a history's length
/// counts nothing.
pub(super) const SHORT: Layout = Layout {
    kr: SHORT_READS,
    kw: SHORT_WRITES,
    writes: SHORT_READS,
    page: SHORT_READS + SHORT_WRITES,
    lens: SHORT_READS + SHORT_WRITES + 1,
    lines: 1,
    short: true,
};

/// The dirty flag in a record's word of lengths.
pub(super) const DIRTY: u32 = 1 << 16;

/// Puts `epoch` at the front of `h` (holding `n` of at most `k` entries,
/// padded to [`LANES`]) unless it is there already; returns the new count.
/// Every lane moves, used or not, a whole lane group at a time: no call to
/// `memmove`, and entries beyond the count stay epochs of the past.
#[inline]
pub(super) fn push(h: &mut [u32], n: u32, k: usize, epoch: u32) -> u32 {
    if n > 0 && h[0] == epoch {
        return n;
    }
    let mut carry = epoch;
    for chunk in h.chunks_exact_mut(LANES) {
        let lanes: &mut [u32; LANES] = chunk.try_into().expect("chunks are LANES long");
        let last = lanes[LANES - 1];
        *lanes = std::array::from_fn(|l| if l == 0 { carry } else { lanes[l - 1] });
        carry = last;
    }
    (n as usize + 1).min(k) as u32
}

/// The counts `c_i` of a history's entries, `c_0 = first` and
/// `c_i = i + 1`, as one row per history length `n` holding zeros from
/// entry `n` on (an entry beyond a history's length counts nothing), so
/// that an estimate loads its counts as whole lanes.
#[derive(Clone, Debug)]
pub(super) struct Counts {
    rows: Vec<f32>,
    /// Entries per row: the longest history, padded to [`LANES`].
    width: usize,
    /// The counts of a [`SHORT`] record's entries, access entries then
    /// write entries, by its histories' lengths. Rows for every length a
    /// masked word of lengths can name (boxed: 6 KiB), so that
    /// [`value_short`] indexes them without a bounds check; lengths beyond
    /// a short record's room are never recorded.
    short: Box<[[[f32x4; SHORT_ENTRIES / LANES]; SHORT_WRITE_ROWS]; SHORT_READ_ROWS]>,
}

impl Counts {
    /// Rows for histories of up to `k` entries.
    pub(super) fn new(first: f32, k: usize) -> Self {
        let count = |n: usize, i: usize| match i {
            _ if i >= n => 0.0,
            0 => first,
            i => (i + 1) as f32,
        };
        let width = k.next_multiple_of(LANES);
        let rows = (0..=k)
            .flat_map(|n| (0..width).map(move |i| count(n, i)))
            .collect();
        // Rows past a short record's room are never named: they repeat the
        // longest.
        let short = Box::new(std::array::from_fn(|reads: usize| {
            std::array::from_fn(|writes: usize| {
                let (reads, writes) = (reads.min(SHORT_READS), writes.min(SHORT_WRITES));
                std::array::from_fn(|group| {
                    f32x4::new(std::array::from_fn(|l| {
                        let i = group * LANES + l;
                        match i.checked_sub(SHORT_READS) {
                            None => count(reads, i),
                            Some(i) => count(writes, i),
                        }
                    }))
                })
            })
        }));
        Counts { rows, width, short }
    }

    /// The counts of a history of `n` entries.
    #[inline(always)]
    fn row(&self, n: u32) -> &[f32] {
        let at = n as usize * self.width;
        &self.rows[at..at + self.width]
    }
}

/// `min(c_i / (now − t_i + 1), 1)` over the first `n` entries of `h`, `c`
/// from [`Counts`], as the best of each lane: the estimate is their
/// [`most`] (0 for an empty history). `h` is padded to [`LANES`]: every
/// entry is an epoch of the past (stale ones beyond `n` count 0), so the
/// lanes divide without a branch.
#[inline(always)]
pub(super) fn rates(h: &[u32], n: u32, now: u32, c: &Counts) -> [f32; LANES] {
    let mut best = [0f32; LANES];
    // Every lane, used or not: a fixed number of steps, no branch on `n`.
    for (chunk, counts) in h.chunks_exact(LANES).zip(c.row(n).chunks_exact(LANES)) {
        for l in 0..LANES {
            let d = now.wrapping_sub(chunk[l]).wrapping_add(1) as i32 as f32;
            best[l] = larger(best[l], at_most_one(counts[l] / d));
        }
    }
    best
}

/// The value of a [`SHORT`] record `r` at epoch `now`: its access
/// estimate plus `write_cost` times its write estimate, each as [`rates`]
/// and [`most`] compute it (the same single-precision operations, so the
/// same value), as three vector divisions without a loop.
#[inline(always)]
pub(super) fn value_short(r: &[u32; 16], now: u32, c: &Counts, write_cost: f32) -> f32 {
    let lens = r[SHORT.lens];
    let counts =
        &c.short[(lens as usize) % SHORT_READ_ROWS][(lens as usize >> 8) % SHORT_WRITE_ROWS];
    let next = i32x4::splat(now.wrapping_add(1) as i32);
    // `min(c_i / (now − t_i + 1), 1)` over the four entries from `group * 4`.
    let rates = |group: usize| {
        let t = i32x4::new(std::array::from_fn(|l| r[group * LANES + l] as i32));
        (counts[group] / (next - t).round_float()).fast_min(f32x4::ONE)
    };
    let reads = rates(0).fast_max(rates(1));
    let writes = rates(SHORT.writes / LANES);
    // Both greatest lanes at once: lanes (0, 2) of `pairs` hold the access
    // lanes' greatest of 0/2 and 1/3, lanes (1, 3) the write lanes'. Every
    // lane is at least +0 (a count over a positive age), so leaving out
    // [`most`]'s starting 0 and taking the lanes in another order changes
    // no bit.
    let pairs = reads
        .unpack_lo(writes)
        .fast_max(reads.unpack_hi(writes))
        .to_array();
    larger(pairs[0], pairs[2]) + write_cost * larger(pairs[1], pairs[3])
}

/// The greatest lane of [`rates`]: the estimate `max_i min(c_i / (now −
/// t_i + 1), 1)`.
#[inline(always)]
pub(super) fn most(lanes: [f32; LANES]) -> f32 {
    lanes.into_iter().fold(0.0, larger)
}

/// The larger of two estimates. Estimates are never NaN, so this needs
/// none of [`f32::max`]'s NaN handling: it compiles to one `maxps`.
#[inline(always)]
fn larger(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// `q` capped at 1 (as [`larger`], without NaN handling).
#[inline(always)]
fn at_most_one(q: f32) -> f32 {
    if q < 1.0 {
        q
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_keeps_its_newest_epochs_once_each() {
        // Three entries kept, padded to four lanes.
        let mut h = [0u32; 4];
        let mut n = 0;
        for e in [1, 1, 2, 5, 5, 7] {
            n = push(&mut h, n, 3, e);
        }
        assert_eq!((n, &h[..3]), (3, &[7, 5, 2][..]));
    }

    proptest::proptest! {
        /// A short record's value is, bit for bit, what the general
        /// estimate gives for the same histories.
        #[test]
        fn a_short_record_is_valued_as_any_record(
            reads in proptest::collection::vec(0u32..5_000, 0..=SHORT_READS),
            writes in proptest::collection::vec(0u32..5_000, 0..=SHORT_WRITES),
            stale in proptest::array::uniform12(0u32..5_000),
            ahead in 0u32..5_000,
            first in 0.01f32..1.0,
            write_cost in 0.0f32..16.0,
        ) {
            let now = 5_000 + ahead;
            // Newest first; entries beyond a history's length are stale
            // epochs of the past.
            let mut r = [0u32; 16];
            r[..SHORT_ENTRIES].copy_from_slice(&stale);
            let mut newest_first = |at: usize, h: &[u32]| {
                let mut h = h.to_vec();
                h.sort_unstable_by(|a, b| b.cmp(a));
                r[at..at + h.len()].copy_from_slice(&h);
            };
            newest_first(0, &reads);
            newest_first(SHORT.writes, &writes);
            r[SHORT.lens] = reads.len() as u32 | (writes.len() as u32) << 8;
            let c = Counts::new(first, SHORT_READS);
            let general = most(rates(&r[..SHORT.writes], reads.len() as u32, now, &c))
                + write_cost
                    * most(rates(&r[SHORT.writes..SHORT.page], writes.len() as u32, now, &c));
            let short = value_short(&r, now, &c, write_cost);
            proptest::prop_assert_eq!(short.to_bits(), general.to_bits());
        }
    }

    /// The estimate by hand: history 10, 6, 2 at epoch 10 with `first` 0.1
    /// is max(0.1/1, 2/5, 3/9) = 0.4.
    #[test]
    fn frequency_is_the_best_rate_over_the_history() {
        // Padded to four lanes; the stale fourth entry counts nothing.
        let c = Counts::new(0.1, 4);
        let frequency = |h: &[u32], n, now, c: &Counts| most(rates(h, n, now, c));
        assert!((frequency(&[10, 6, 2, 9], 3, 10, &c) - 0.4).abs() < 1e-6);
        assert_eq!(frequency(&[3, 3, 3, 3], 0, 10, &c), 0.0);
        assert_eq!(frequency(&[10, 9, 0, 0], 2, 10, &Counts::new(1.0, 4)), 1.0);
    }
}
