//! Which requests write: the write model of [`super`], fitted to LRU's
//! write-backs once the pages are drawn.
//!
//! Which pages are written, how often, and how soon after a read:
//!
//! - which pages: a request to page `p` writes in proportion to
//!   `(n_p / n̄)^beta`, `n_p` the page's requests and `n̄` their mean:
//!   `beta > 0` puts writes on the hot pages, `beta < 0` on the cold ones
//!   (a cold dirty page is evicted, and written back, at every size);
//! - how soon after a read: and in proportion to `(1 + d_t)^-gamma`, `d_t`
//!   the request's stack distance (the pages named since the page's
//!   previous request; a first reference counts as `N`): `gamma > 0` puts
//!   writes soon after the page's previous request (a transaction updates
//!   the row it has just read: a hit at every size that dirties the
//!   residency the read began), `gamma < 0` long after it;
//! - how often: the probability is `q_t = min(1, c × both)`, `c` making
//!   the expected writes the target write share.
//!
//! Whether request `t` writes is `u_t < q_t` for a uniform `u_t` fixed by
//! the seed and `t`.
//!
//! LRU's write-backs at a size `C` follow from the stack distances the
//! page model gave, by the counting rule of [`crate::curve`]: a residency
//! (from a miss to the page's next miss) costs one write-back if one of its
//! requests writes and it ends by eviction, at the next miss or before the
//! trace ends (at least `C` other pages named after the page's last
//! request). No final flush.

use super::pages::Drawn;

/// Parameters of the write model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WriteModel {
    /// How writes lean to hot (`> 0`) or cold (`< 0`) pages.
    pub beta: f64,
    /// How writes lean to requests soon after the page's previous one
    /// (`> 0`) or long after (`< 0`).
    pub gamma: f64,
    /// Scale of the write probability (set by the write share).
    pub c: f64,
}

/// A request's uniform number in `[0, 1)`, fixed by the seed and its
/// position (SplitMix64).
pub fn uniform(seed: u64, t: usize) -> f64 {
    let mut z = seed
        ^ (t as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// The requests grouped by page (each page's requests in time order) with
/// what the write model and the counting rule read of them, so that one
/// evaluation streams through memory.
pub struct ByPage {
    /// `start[p]..start[p + 1]`: page `p`'s requests in the arrays below.
    start: Vec<usize>,
    distance: Vec<u32>,
    u: Vec<f64>,
    /// Pages named after each page's last request.
    end: Vec<u32>,
    /// Requests per page.
    counts: Vec<u32>,
}

impl ByPage {
    pub fn new(d: &Drawn, seed: u64) -> Self {
        let n = d.counts.len();
        let mut start = vec![0usize; n + 1];
        for (p, &c) in d.counts.iter().enumerate() {
            start[p + 1] = start[p] + c as usize;
        }
        let mut next = start.clone();
        let mut distance = vec![0u32; d.pages.len()];
        let mut u = vec![0f64; d.pages.len()];
        let mut last = vec![0usize; n];
        for (t, (&p, &dist)) in d.pages.iter().zip(&d.distance).enumerate() {
            let i = next[p as usize];
            next[p as usize] += 1;
            distance[i] = dist;
            u[i] = uniform(seed, t);
            last[p as usize] = t;
        }
        // A page's end distance: the pages whose last request comes later.
        let mut by_last: Vec<u32> = (0..n as u32).collect();
        by_last.sort_unstable_by_key(|&p| last[p as usize]);
        let mut end = vec![0u32; n];
        for (i, &p) in by_last.iter().enumerate() {
            end[p as usize] = (n - 1 - i) as u32;
        }
        ByPage {
            start,
            distance,
            u,
            end,
            counts: d.counts.clone(),
        }
    }

    /// Each request's lean `(1 + d)^-gamma` by its stack distance `d` (a
    /// first reference counts as the farthest, `N`).
    pub fn lean(&self, beta: f64, gamma: f64) -> Lean {
        let far = self.counts.len() as f64;
        let mean = self.distance.len() as f64 / far;
        let mut by_request = vec![0.0; self.distance.len()];
        for (p, &n) in self.counts.iter().enumerate() {
            let pop = (f64::from(n) / mean).powf(beta);
            let (a, b) = (self.start[p], self.start[p + 1]);
            for (l, &d) in by_request[a..b].iter_mut().zip(&self.distance[a..b]) {
                *l = pop * (1.0 + if d == 0 { far } else { f64::from(d) }).powf(-gamma);
            }
        }
        let total = by_request.iter().sum();
        Lean {
            beta,
            gamma,
            by_request,
            total,
        }
    }

    /// Expected writes at scale `c`, and their slope in `c`.
    fn expected(&self, lean: &Lean, c: f64) -> (f64, f64) {
        let (mut sum, mut slope) = (0.0, 0.0);
        for &l in &lean.by_request {
            if c * l < 1.0 {
                sum += c * l;
                slope += l;
            } else {
                sum += 1.0;
            }
        }
        (sum, slope)
    }

    /// The scale `c` whose expected writes are `writes` (at most every
    /// request).
    pub fn scale(&self, lean: &Lean, writes: f64) -> f64 {
        // Uncapped, the expected writes are c × the leans' sum; the cap at
        // 1 only lowers them. They are concave in c, so Newton's steps
        // from below stay below and rise to the answer.
        let writes = writes.min(self.distance.len() as f64);
        let mut c = writes / lean.total;
        for _ in 0..100 {
            let (e, slope) = self.expected(lean, c);
            if slope <= 0.0 || writes - e <= 1e-6 * writes {
                break;
            }
            c += (writes - e) / slope;
        }
        c
    }

    /// Per request (by page), whether it writes under `m`; calls
    /// `each(page, requests)` page by page with `(distance, writes)`.
    fn decide(
        &self,
        m: &WriteModel,
        lean: &Lean,
        mut each: impl FnMut(usize, &mut dyn Iterator<Item = (u32, bool)>),
    ) {
        debug_assert_eq!((lean.beta, lean.gamma), (m.beta, m.gamma));
        let c = m.c;
        for p in 0..self.counts.len() {
            let (a, b) = (self.start[p], self.start[p + 1]);
            let mut it = self.distance[a..b]
                .iter()
                .zip(&self.u[a..b])
                .zip(&lean.by_request[a..b])
                .map(|((&d, &u), &l)| (d, u < (c * l).min(1.0)));
            each(p, &mut it);
        }
    }

    /// Writes, and LRU's write-backs at each of `sizes`, under `m`.
    pub fn count(&self, m: &WriteModel, lean: &Lean, sizes: &[u64]) -> (u64, Vec<u64>) {
        let mut writes = 0u64;
        let mut back = vec![0u64; sizes.len()];
        let mut dirty = vec![false; sizes.len()];
        self.decide(m, lean, |p, reqs| {
            dirty.iter_mut().for_each(|x| *x = false);
            for (d, w) in reqs {
                for (k, &size) in sizes.iter().enumerate() {
                    if d == 0 || u64::from(d) > size {
                        back[k] += u64::from(dirty[k]);
                        dirty[k] = false;
                    }
                    dirty[k] |= w;
                }
                writes += u64::from(w);
            }
            for (k, &size) in sizes.iter().enumerate() {
                back[k] += u64::from(dirty[k] && u64::from(self.end[p]) >= size);
            }
        });
        (writes, back)
    }

    /// Whether each request writes under `m`, in request order, for the
    /// trace `d` these were built from.
    pub fn ops(&self, m: &WriteModel, lean: &Lean, d: &Drawn) -> Vec<bool> {
        let mut by_page = vec![false; d.pages.len()];
        self.decide(m, lean, |p, reqs| {
            for (i, (_, w)) in reqs.enumerate() {
                by_page[self.start[p] + i] = w;
            }
        });
        let mut next = self.start.clone();
        d.pages
            .iter()
            .map(|&p| {
                let i = next[p as usize];
                next[p as usize] += 1;
                by_page[i]
            })
            .collect()
    }
}

/// The requests' leans for one `beta` and `gamma`, and their sum.
pub struct Lean {
    beta: f64,
    gamma: f64,
    by_request: Vec<f64>,
    total: f64,
}

impl Lean {
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
    pub fn beta(&self) -> f64 {
        self.beta
    }
}

#[cfg(test)]
mod tests {
    use super::super::pages::tests::drawn;
    use super::*;
    use crate::curve::lru_curve;
    use crate::types::Op;

    #[test]
    fn write_backs_follow_the_curves_counting_rule() {
        let d = drawn((0.6, 0.9, 2.0), &[(8, 0.5), (60, 0.85)], 200, 20_000, 5);
        let by = ByPage::new(&d, 5);
        let lean = by.lean(-0.7, 0.5);
        let w = WriteModel {
            beta: -0.7,
            gamma: 0.5,
            c: by.scale(&lean, 4_000.0),
        };
        let sizes = [1, 8, 30, 60, 199];
        let (writes, back) = by.count(&w, &lean, &sizes);
        let ops = by.ops(&w, &lean, &d);
        assert_eq!(writes, ops.iter().filter(|&&x| x).count() as u64);
        let curve = lru_curve(
            d.pages
                .iter()
                .zip(&ops)
                .map(|(&p, &x)| (p, if x { Op::Write } else { Op::Read })),
            200,
        );
        for (k, &s) in sizes.iter().enumerate() {
            assert_eq!(back[k] as f64, curve.writebacks_at(s), "size {s}");
            assert_eq!(d.misses(s) as f64, curve.misses_at(s), "size {s}");
        }
    }

    #[test]
    fn the_scale_meets_the_expected_writes() {
        let d = drawn((0.0, 1.0, 0.0), &[], 500, 50_000, 2);
        let by = ByPage::new(&d, 2);
        for (beta, gamma, want) in [
            (1.0, -0.5, 10_000.0),
            (-2.0, 1.0, 30_000.0),
            (0.0, 0.0, 50_000.0),
        ] {
            let lean = by.lean(beta, gamma);
            let c = by.scale(&lean, want);
            let (writes, _) = by.count(&WriteModel { beta, gamma, c }, &lean, &[]);
            assert!((writes as f64 - want).abs() < 400.0, "{writes} for {want}");
        }
    }
}
