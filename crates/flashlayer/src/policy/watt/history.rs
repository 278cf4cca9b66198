//! WATT's per-page record: the epochs of a page's last accesses and
//! writes in one cache line, and the frequency estimate over them, in f32
//! lanes as the authors' simulator computes it in single precision.

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
}

impl Layout {
    pub(super) fn new(kr: usize, kw: usize) -> Self {
        let writes = kr.next_multiple_of(LANES);
        let page = writes + kw.next_multiple_of(LANES);
        Layout {
            kr,
            kw,
            writes,
            page,
            lens: page + 1,
            lines: (page + 2).div_ceil(16),
        }
    }
}

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
}

impl Counts {
    /// Rows for histories of up to `k` entries.
    pub(super) fn new(first: f32, k: usize) -> Self {
        let width = k.next_multiple_of(LANES);
        let mut rows = vec![0f32; (k + 1) * width];
        for n in 0..=k {
            for i in 0..n {
                rows[n * width + i] = if i == 0 { first } else { (i + 1) as f32 };
            }
        }
        Counts { rows, width }
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
            best[l] = best[l].max((counts[l] / d).min(1.0));
        }
    }
    best
}

/// The greatest lane of [`rates`]: the estimate `max_i min(c_i / (now −
/// t_i + 1), 1)`.
#[inline(always)]
pub(super) fn most(lanes: [f32; LANES]) -> f32 {
    lanes.into_iter().fold(0.0, f32::max)
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
