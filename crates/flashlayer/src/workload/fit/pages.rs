//! Which page each request names: the reference model of [`super`].
//!
//! Every request is one of three kinds:
//!
//! - a **first reference**: the next page never named before. While pages
//!   are left, each request is one with the probability selection sampling
//!   gives (the pages left over the requests left), so exactly `N` pages
//!   appear; under Spirn's stack of infinite depth ([`PageModel::spirn`])
//!   a recency draw deeper than the pages named so far is one too;
//! - with probability `rho`, a **recency** reference: the page at LRU
//!   stack depth `d` (the `d`-th most recently used), `d` drawn from a
//!   distribution piecewise linear in `ln(1 + d)` through the knots
//!   `(ln(1 + C_k), a_k)` and `(ln(1 + N), 1)`, from 0 at depth 0 and, with
//!   two knots or more, through depth 1 where the first two knots' line
//!   meets it — Spirn's LRU stack model, whose hit ratio at `C` is the
//!   distribution's mass up to `C`;
//! - else a **frequency** reference: a page drawn among the pages named so
//!   far in proportion to a fixed weight (the independent reference
//!   model), `(rank + q)^-alpha` (Zipf–Mandelbrot; [`super::irm`] chooses
//!   its shape). Which page a first reference names follows the weights:
//!   the ranks enter as an exponential race, as under the model itself, so
//!   a hot page is met early.
//!
//! The mixture is 2DIO's (a recency and a frequency component fitted to
//! an LRU hit-ratio curve); the stack distance of every request is known
//! as it is drawn (markers over request times, a Fenwick tree), so a
//! round's LRU misses at every size cost no second pass.
//!
//! Each component draws from its own random stream, fixed by the seed, so
//! the same seed and a slightly different parameter give a slightly
//! different trace (common random numbers), which is what lets the fit
//! converge.

use crate::curve::Markers;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Parameters of the reference model.
#[derive(Clone, Debug, PartialEq)]
pub struct PageModel {
    /// Share of re-references drawn by recency (the rest by frequency).
    pub rho: f64,
    /// The frequency component's exponent (0: uniform).
    pub alpha: f64,
    /// The frequency component's rank offset (0: Zipf's law).
    pub q: f64,
    /// Knots of the recency depth distribution: `(depth, mass up to it)`,
    /// depths increasing, masses non-decreasing; `(0, 0)` and `(N, 1)` are
    /// implied.
    pub knots: Vec<(u64, f64)>,
    /// Where first references fall. `false`: spread uniformly over the
    /// trace, a recency draw deeper than the pages named so far stopping
    /// at the bottom of the stack. `true`: Spirn's stack of infinite
    /// depth, where such a draw names a new page (reuse at long distances
    /// from the start, as a scan has), the rest spread as before.
    pub spirn: bool,
}

/// What a round generated: the pages in request order, each request's
/// stack distance (0 for a first reference), and each page's requests.
#[derive(Debug, Default)]
pub struct Drawn {
    pub pages: Vec<u32>,
    pub distance: Vec<u32>,
    pub counts: Vec<u32>,
}

impl Drawn {
    /// LRU misses with a buffer of `size` pages: first references and
    /// requests of stack distance above `size`.
    pub fn misses(&self, size: u64) -> u64 {
        self.distance
            .iter()
            .filter(|&&d| d == 0 || u64::from(d) > size)
            .count() as u64
    }

    /// Requests to the hottest `fraction` of the pages.
    pub fn hottest(&self, fraction: f64) -> u64 {
        let mut counts = self.counts.clone();
        crate::trace::hottest_requests(&mut counts, fraction)
    }
}

/// The LRU stack as markers over time slots, one at each page's last
/// request ([`Markers`], the structure of [`crate::curve`]'s pass): a
/// page's depth is the markers after its own, and the page at depth `d`
/// is the one at the marker `d` from the end. The slots span a window of
/// twice the pages; when time reaches its end the marks are renumbered in
/// order, so memory follows the pages, not the requests.
struct Stack {
    marks: Markers,
    /// The page whose request took each slot.
    page_at: Vec<u32>,
    /// Each page's slot (`u32::MAX` before its first request).
    last: Vec<u32>,
    next: usize,
    named: u32,
}

impl Stack {
    fn new(pages: usize) -> Self {
        let marks = Markers::new(2 * pages + 2);
        Stack {
            page_at: vec![0; marks.len()],
            marks,
            last: vec![u32::MAX; pages],
            next: 0,
            named: 0,
        }
    }

    /// The stack distance of a request to `page` now (0 for a first).
    fn depth_of(&self, page: usize) -> u32 {
        match self.last[page] {
            u32::MAX => 0,
            at => self.named - self.marks.prefix(at) + 1,
        }
    }

    /// The page at depth `d` (1 ≤ d ≤ pages named).
    fn at_depth(&self, d: u32) -> usize {
        self.page_at[self.marks.select(self.named - d + 1)] as usize
    }

    /// `page` requested now: its mark moves to the newest slot.
    fn touch(&mut self, page: usize) {
        if self.next == self.page_at.len() {
            self.renumber();
        }
        match self.last[page] {
            u32::MAX => self.named += 1,
            at => self.marks.add(at, -1),
        }
        self.marks.add(self.next as u32, 1);
        self.last[page] = self.next as u32;
        self.page_at[self.next] = page as u32;
        self.next += 1;
    }

    /// Marks to slots `0..named` in order.
    fn renumber(&mut self) {
        let mut k = 0;
        for s in 0..self.next {
            let p = self.page_at[s] as usize;
            if self.last[p] == s as u32 {
                self.page_at[k] = p as u32;
                self.last[p] = k as u32;
                k += 1;
            }
        }
        self.next = k;
        self.marks.reset_to_prefix(k as u32);
    }
}

/// A Fenwick tree of the blocks' weights: sums by prefix and the block
/// where a running sum passes a value.
struct Tree {
    tree: Vec<f64>,
}

impl Tree {
    fn new(n: usize) -> Self {
        Tree {
            tree: vec![0.0; n + 1],
        }
    }

    fn add(&mut self, at: usize, delta: f64) {
        let mut i = at + 1;
        while i < self.tree.len() {
            self.tree[i] += delta;
            i += i & i.wrapping_neg();
        }
    }

    /// The block whose running sum passes `target` (the sum before it is
    /// `<= target`), and what is left of `target` inside it.
    fn find(&self, mut target: f64) -> (usize, f64) {
        let mut pos = 0;
        let mut step = (self.tree.len() - 1).next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next < self.tree.len() && self.tree[next] <= target {
                pos = next;
                target -= self.tree[next];
            }
            step >>= 1;
        }
        (pos, target)
    }
}

/// Pages per block of [`Weights`].
const SPAN: usize = 64;

/// Weights over pages with sampling in proportion: a Fenwick tree of the
/// blocks' sums, then a scan of one block.
struct Weights {
    each: Vec<f64>,
    blocks: Tree,
    total: f64,
}

impl Weights {
    fn new(n: usize) -> Self {
        Weights {
            each: vec![0.0; n],
            blocks: Tree::new(n.div_ceil(SPAN)),
            total: 0.0,
        }
    }

    fn add(&mut self, page: usize, w: f64) {
        self.total += w;
        self.each[page] += w;
        self.blocks.add(page / SPAN, w);
    }

    /// The page where the running sum passes `target` (in `[0, total)`).
    fn find(&self, target: f64, named: usize) -> usize {
        let (block, mut left) = self.blocks.find(target);
        let (lo, hi) = (block * SPAN, ((block + 1) * SPAN).min(named));
        for p in lo..hi {
            if left < self.each[p] {
                return p;
            }
            left -= self.each[p];
        }
        // Rounding can walk past the last page of the block or named.
        hi.max(lo + 1).min(named) - 1
    }
}

/// The exponential variates that order the pages' first references, one
/// per popularity rank, fixed by the seed.
pub fn races(pages: usize, seed: u64) -> Vec<f64> {
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x5EED_0001);
    (0..pages)
        .map(|_| -(1.0 - rng.random::<f64>()).ln())
        .collect()
}

/// Each page's frequency weight, pages numbered in the order of their
/// first reference: ranks enter as an exponential race, rank `r` at
/// `races[r] / weight(r)`, as they would under the independent reference
/// model itself (a hot page is met early), the hottest first on average.
fn weights_in_order(m: &PageModel, races: &[f64]) -> Vec<f64> {
    let w: Vec<f64> = (0..races.len())
        .map(|r| (r as f64 + 1.0 + m.q).powf(-m.alpha))
        .collect();
    let mut order: Vec<u32> = (0..races.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| {
        (races[a as usize] / w[a as usize]).total_cmp(&(races[b as usize] / w[b as usize]))
    });
    order.iter().map(|&r| w[r as usize]).collect()
}

/// Generates `requests` requests over `pages` pages under `m`, into `out`
/// (its vectors reused between rounds).
pub fn draw(
    m: &PageModel,
    pages: usize,
    requests: usize,
    seed: u64,
    races: &[f64],
    out: &mut Drawn,
) {
    let stream = |k: u64| Pcg64Mcg::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ k);
    let (mut first, mut mix, mut depth, mut freq) = (stream(1), stream(2), stream(3), stream(4));
    let knots = Knots::new(&m.knots, pages);
    out.pages.clear();
    out.distance.clear();
    out.counts.clear();
    out.counts.resize(pages, 0);
    let mut stack = Stack::new(pages);
    let weight = weights_in_order(m, races);
    let mut weights = Weights::new(pages);
    let mut named = 0usize;
    for t in 0..requests {
        // Selection sampling: of the `left` requests still to come, the
        // pages not yet named are first references at least at its rate,
        // and all of them when `left` reaches them.
        let need = pages - named;
        let left = requests - t;
        let sampled = need > 0 && (named == 0 || first.random_range(0..left) < need);
        let pick = if sampled {
            None
        } else if mix.random::<f64>() < m.rho {
            // A depth below the pages named so far: a new page under
            // Spirn's infinite stack while some are left, else the bottom.
            let d = knots.sample(depth.random::<f64>());
            if m.spirn && d > named as u64 && need > 0 {
                None
            } else {
                let d = d.min(named as u64) as u32;
                Some((stack.at_depth(d), d))
            }
        } else {
            let p = weights.find(freq.random::<f64>() * weights.total, named);
            Some((p, stack.depth_of(p)))
        };
        let (page, dist) = pick.unwrap_or_else(|| {
            let p = named;
            named += 1;
            weights.add(p, weight[p]);
            (p, 0)
        });
        stack.touch(page);
        out.pages.push(page as u32);
        out.distance.push(dist);
        out.counts[page] += 1;
    }
}

/// The recency depth distribution's inverse: knots in `ln(1 + d)`, the
/// mass piecewise linear between them.
struct Knots {
    /// `(ln(1 + depth), mass)`, from `(0, 0)` to `(ln(1 + N), 1)`.
    at: Vec<(f64, f64)>,
}

impl Knots {
    fn new(knots: &[(u64, f64)], pages: usize) -> Self {
        let given: Vec<(f64, f64)> = knots
            .iter()
            .filter(|&&(d, _)| (d as usize) < pages)
            .map(|&(d, a)| ((1.0 + d as f64).ln(), a))
            .collect();
        let mut at = vec![(0.0, 0.0)];
        // Below the smallest size the distribution keeps the slope (in
        // ln(1 + d)) of the first two knots down to depth 1, whose mass is
        // what that line leaves there: a curve's trend carried on, rather
        // than a line to nothing at depth 0.
        if let [(u1, a1), (u2, a2), ..] = given[..] {
            let slope = (a2 - a1) / (u2 - u1);
            let one = 2f64.ln();
            if u1 > one {
                at.push((one, (a1 - slope * (u1 - one)).clamp(0.0, a1)));
            }
        }
        at.extend(given);
        at.push(((1.0 + pages as f64).ln(), 1.0));
        Knots { at }
    }

    /// The depth whose distribution function first reaches `v`.
    fn sample(&self, v: f64) -> u64 {
        for w in self.at.windows(2) {
            let ((u0, a0), (u1, a1)) = (w[0], w[1]);
            if v < a1 && a1 > a0 {
                let u = u0 + (v - a0) / (a1 - a0) * (u1 - u0);
                return (u.exp() - 1.0).ceil().max(1.0) as u64;
            }
        }
        self.at
            .last()
            .map_or(1, |&(u, _)| (u.exp() - 1.0).round() as u64)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A trace of the model `(rho, alpha, q, knots)`.
    pub(in crate::workload::fit) fn drawn(
        (rho, alpha, q): (f64, f64, f64),
        knots: &[(u64, f64)],
        pages: usize,
        requests: usize,
        seed: u64,
    ) -> Drawn {
        let m = PageModel {
            rho,
            alpha,
            q,
            knots: knots.to_vec(),
            spirn: false,
        };
        let mut out = Drawn::default();
        draw(&m, pages, requests, seed, &races(pages, seed), &mut out);
        out
    }

    /// Stack distances by a list kept in recency order: the reference.
    fn distances(pages: &[u32]) -> Vec<u32> {
        let mut stack: Vec<u32> = Vec::new();
        pages
            .iter()
            .map(|&p| {
                let d = stack
                    .iter()
                    .rev()
                    .position(|&q| q == p)
                    .map_or(0, |i| i as u32 + 1);
                stack.retain(|&q| q != p);
                stack.push(p);
                d
            })
            .collect()
    }

    #[test]
    fn every_page_appears_and_distances_are_lru_stack_distances() {
        // 1,500 pages: several blocks of marks, renumbered many times.
        let out = drawn((0.5, 0.8, 0.0), &[(5, 0.4), (400, 0.8)], 1_500, 20_000, 3);
        assert_eq!(out.pages.len(), 20_000);
        assert!(out.counts.iter().all(|&c| c > 0));
        assert_eq!(out.distance, distances(&out.pages));
    }

    #[test]
    fn a_pure_stack_model_hits_by_its_knots() {
        // All re-references by recency: LRU's hit ratio among re-references
        // at a knot's size is the knot's mass, up to sampling noise and the
        // draws early in the trace that reach below the pages named so far
        // and stop at the bottom (a few more hits).
        let out = drawn((1.0, 0.0, 0.0), &[(100, 0.5)], 2_000, 200_000, 1);
        let reuse = 200_000 - 2_000;
        let hits = 200_000 - out.misses(100);
        let share = hits as f64 / reuse as f64;
        assert!((0.49..0.54).contains(&share), "{share}");
    }

    #[test]
    fn under_spirns_stack_reuse_only_beyond_a_depth_misses_from_the_start() {
        // Every re-reference at a depth beyond half the pages, as a scan
        // over them all: a buffer of a quarter of them hits nothing. Without
        // Spirn's infinite stack a draw deeper than the pages named so far
        // stops at the bottom, a short distance early in the trace: hits.
        let (pages, requests) = (2_000, 100_000);
        let knots = [(pages as u64 / 2, 0.0)];
        let by = |spirn| {
            let m = PageModel {
                rho: 1.0,
                alpha: 0.0,
                q: 0.0,
                knots: knots.to_vec(),
                spirn,
            };
            let mut out = Drawn::default();
            draw(&m, pages, requests, 5, &races(pages, 5), &mut out);
            out
        };
        let (spirn, spread) = (by(true), by(false));
        for d in [&spirn, &spread] {
            assert!(d.counts.iter().all(|&c| c > 0), "every page appears");
            assert_eq!(d.distance, distances(&d.pages));
        }
        assert_eq!(spirn.misses(pages as u64 / 4), requests as u64);
        assert!(spread.misses(pages as u64 / 4) < requests as u64 * 99 / 100);
    }

    #[test]
    fn the_same_seed_draws_the_same_trace() {
        let a = drawn((0.3, 1.0, 5.0), &[(10, 0.3)], 50, 1_000, 9);
        let b = drawn((0.3, 1.0, 5.0), &[(10, 0.3)], 50, 1_000, 9);
        assert_eq!(a.pages, b.pages);
    }
}
