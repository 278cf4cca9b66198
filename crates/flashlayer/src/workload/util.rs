//! Random helpers shared by the workload drivers.

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use std::sync::atomic::{AtomicU64, Ordering};

/// The workloads' random generator.
pub type WRng = Pcg64Mcg;

/// Uniform integer in `[lo, hi]`.
#[inline]
pub(crate) fn uniform(rng: &mut WRng, lo: u64, hi: u64) -> u64 {
    rng.random_range(lo..=hi)
}

/// TPC-C's non-uniform random NURand(A, x, y) with run-time constant `c`
/// (TPC-C §2.1.6): `(((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x`.
#[inline]
pub(crate) fn nurand(rng: &mut WRng, a: u64, x: u64, y: u64, c: u64) -> u64 {
    (((uniform(rng, 0, a) | uniform(rng, x, y)) + c) % (y - x + 1)) + x
}

/// Index of the entry of `mix` (percentages summing to 100) a uniform draw
/// falls into.
pub(crate) fn pick(rng: &mut WRng, mix: &[u32]) -> usize {
    let x = rng.random_range(0..100);
    let mut acc = 0;
    for (k, &share) in mix.iter().enumerate() {
        acc += share;
        if x < acc {
            return k;
        }
    }
    mix.len() - 1
}

/// Fills `buf` with printable random characters (the spec's a-strings).
pub(crate) fn fill_text(rng: &mut WRng, buf: &mut [u8]) {
    for b in buf {
        *b = b'a' + (rng.random::<u8>() % 26);
    }
}

/// Big-endian key of 32-bit parts: byte order equals numeric order.
pub(crate) fn key(parts: &[u32]) -> Vec<u8> {
    let mut k = Vec::with_capacity(4 * parts.len());
    for p in parts {
        k.extend_from_slice(&p.to_be_bytes());
    }
    k
}

/// Part `i` of a key made by [`key`].
pub(crate) fn key_part(k: &[u8], i: usize) -> u32 {
    u32::from_be_bytes(k[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

/// Rows store their u32 fields as the B+-tree's pages do.
pub(crate) use crate::btree::{put_u32, u32_at};

/// Reads the little-endian i64 at `o`.
#[inline]
pub(crate) fn get_i64(b: &[u8], o: usize) -> i64 {
    i64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"))
}

/// Writes a little-endian i64 at `o`.
#[inline]
pub(crate) fn put_i64(b: &mut [u8], o: usize, v: i64) {
    b[o..o + 8].copy_from_slice(&v.to_le_bytes());
}

/// Checks a share given as a fraction in `[0, 1]`.
pub(crate) fn check_share(name: &str, v: f64) -> crate::Result<()> {
    if !(0.0..=1.0).contains(&v) {
        return Err(crate::Error::invalid(format!(
            "{name} must be in [0, 1], got {v}"
        )));
    }
    Ok(())
}

/// Checks a count that must be at least `min`.
pub(crate) fn check_min(name: &str, v: u64, min: u64) -> crate::Result<()> {
    if v < min {
        return Err(crate::Error::invalid(format!(
            "{name} must be at least {min}, got {v}"
        )));
    }
    Ok(())
}

/// Steps run per kind, counted by every terminal of a run at once.
pub(crate) struct Counts<const N: usize>([AtomicU64; N]);

impl<const N: usize> Default for Counts<N> {
    fn default() -> Self {
        Counts(std::array::from_fn(|_| AtomicU64::new(0)))
    }
}

impl<const N: usize> Counts<N> {
    /// Counts one step of kind `k`.
    pub(crate) fn add(&self, k: usize) {
        self.0[k].fetch_add(1, Ordering::Relaxed);
    }

    /// The counts, per kind.
    pub(crate) fn values(&self) -> [u64; N] {
        std::array::from_fn(|k| self.0[k].load(Ordering::Relaxed))
    }

    /// `(name, count)` per kind, for [`super::Workload::summary`].
    pub(crate) fn named(&self, names: &[&str; N]) -> Vec<(String, u64)> {
        names
            .iter()
            .zip(self.values())
            .map(|(n, c)| (n.to_string(), c))
            .collect()
    }
}

impl<const N: usize> std::fmt::Debug for Counts<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.values().fmt(f)
    }
}
