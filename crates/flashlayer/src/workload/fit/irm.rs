//! The frequency component's shape, chosen before any trace is drawn: a
//! Zipf–Mandelbrot popularity `(k + q)^-alpha` over the ranks `k = 1..N`
//! (`q = 0` is Zipf's law; a larger `q` flattens the head, as when many
//! pages are about equally hot). For each `q` of a grid, `alpha` is solved
//! for the skew point, and the `q` kept is the one whose independent
//! reference model has LRU miss ratios closest (in logarithm) to the
//! targets, by Che's approximation (Che, Tung & Wang 2002): a page of
//! probability `p` is resident with probability `1 − e^(−p T)`, `T` the
//! time in which `C` distinct pages are requested. The recency component
//! then corrects what the shape leaves.
//!
//! Ranks are summed in geometric buckets (each rank up to 64 alone, then
//! buckets growing by 1%), so an evaluation costs about a thousand terms
//! whatever `N`.

/// Ranks in buckets: `(count, weight of one rank)`.
struct Buckets {
    parts: Vec<(f64, f64)>,
    /// The weight of all ranks.
    total: f64,
}

/// The ranks `1..=n` in buckets.
fn buckets(n: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut lo = 1usize;
    while lo <= n {
        let width = if lo <= 64 { 1 } else { (lo / 100).max(1) };
        let hi = (lo + width - 1).min(n);
        out.push((lo, hi));
        lo = hi + 1;
    }
    out
}

impl Buckets {
    fn new(ranges: &[(usize, usize)], alpha: f64, q: f64) -> Self {
        let w = |k: f64| (k + q).powf(-alpha);
        let parts: Vec<(f64, f64)> = ranges
            .iter()
            .map(|&(lo, hi)| {
                let count = (hi - lo + 1) as f64;
                // The bucket's mean weight by its ends and middle (Simpson).
                let mean = (w(lo as f64) + 4.0 * w((lo + hi) as f64 / 2.0) + w(hi as f64)) / 6.0;
                (count, mean)
            })
            .collect();
        let total = parts.iter().map(|&(c, x)| c * x).sum();
        Buckets { parts, total }
    }

    /// Share of the weight on the hottest `hot` ranks.
    fn share(&self, ranges: &[(usize, usize)], hot: usize) -> f64 {
        let mut s = 0.0;
        for (&(lo, hi), &(_, x)) in ranges.iter().zip(&self.parts) {
            if lo > hot {
                break;
            }
            s += (hi.min(hot) - lo + 1) as f64 * x;
        }
        s / self.total
    }

    /// LRU's hit ratio with `size` pages under the independent reference
    /// model, by Che's approximation.
    fn hits(&self, size: f64) -> f64 {
        let resident = |t: f64| {
            self.parts
                .iter()
                .map(|&(c, x)| c * (1.0 - (-x / self.total * t).exp()))
                .sum::<f64>()
        };
        let (mut lo, mut hi) = (0.0, 1.0);
        while resident(hi) < size {
            hi *= 2.0;
            if hi > 1e300 {
                return 1.0;
            }
        }
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            if resident(mid) < size {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let t = (lo + hi) / 2.0;
        self.parts
            .iter()
            .map(|&(c, x)| {
                let p = x / self.total;
                c * p * (1.0 - (-p * t).exp())
            })
            .sum()
    }
}

/// The grid of `q`: 0 and a geometric ladder up to `n`.
fn q_grid(n: usize) -> Vec<f64> {
    let mut out = vec![0.0];
    let mut q = 1.0;
    while q < n as f64 {
        out.push(q);
        q *= 2.0;
    }
    out
}

/// The Zipf exponent giving the hottest `fraction` of `n` ranks `share`
/// of the weight at offset `q` (`alpha` in `[0, ALPHA_MAX]`).
pub fn alpha_for(n: usize, fraction: f64, share: f64, q: f64) -> f64 {
    let ranges = buckets(n);
    let hot = crate::trace::hot_pages(n, fraction);
    let (mut lo, mut hi) = (0.0, ALPHA_MAX);
    for _ in 0..50 {
        let mid = (lo + hi) / 2.0;
        if Buckets::new(&ranges, mid, q).share(&ranges, hot) < share {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// Share of the weight on the hottest `fraction` of `n` ranks.
pub fn share(n: usize, fraction: f64, alpha: f64, q: f64) -> f64 {
    let ranges = buckets(n);
    Buckets::new(&ranges, alpha, q).share(&ranges, crate::trace::hot_pages(n, fraction))
}

/// The largest exponent searched.
pub const ALPHA_MAX: f64 = 6.0;

/// `(alpha, q)` for the targets: `skew` as `(fraction, share)`, and the
/// miss ratios among re-references `(size, ratio)`.
pub fn shape(n: usize, skew: Option<(f64, f64)>, ratios: &[(u64, f64)]) -> (f64, f64) {
    let ranges = buckets(n);
    let error = |alpha: f64, q: f64| {
        let b = Buckets::new(&ranges, alpha, q);
        ratios
            .iter()
            .map(|&(c, want)| {
                let got = (1.0 - b.hits(c as f64)).max(1e-6);
                (got.ln() - want.max(1e-6).ln()).powi(2)
            })
            .sum::<f64>()
    };
    let mut best = (f64::INFINITY, 0.0, 0.0);
    for q in q_grid(n) {
        let alphas: Vec<f64> = match skew {
            Some((f, s)) => vec![alpha_for(n, f, s, q)],
            None => (0..=24).map(|i| f64::from(i) * 0.125).collect(),
        };
        for alpha in alphas {
            let e = error(alpha, q);
            if e < best.0 {
                best = (e, alpha, q);
            }
        }
    }
    (best.1, best.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exponent_meets_the_skew_point() {
        let ranges = buckets(50_000);
        for (q, share) in [(0.0, 0.8), (100.0, 0.72), (5_000.0, 0.5)] {
            let a = alpha_for(50_000, 0.2, share, q);
            let got = Buckets::new(&ranges, a, q).share(&ranges, 10_000);
            assert!((got - share).abs() < 1e-3, "q {q}: {got} for {share}");
        }
    }

    #[test]
    fn che_gives_the_uniform_models_hit_ratio() {
        // Uniform popularity: LRU holds C of N pages, each hit C/N of the time.
        let ranges = buckets(10_000);
        let b = Buckets::new(&ranges, 0.0, 0.0);
        assert!((b.hits(2_500.0) - 0.25).abs() < 1e-3);
    }
}
