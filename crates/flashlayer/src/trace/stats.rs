//! Summary statistics of a trace (`flashlayer trace stats`).

use super::Flt;
use crate::types::unpack;

/// What `trace stats` reports.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceStats {
    /// Requests.
    pub requests: u64,
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// Distinct pages.
    pub distinct_pages: u64,
    /// Distinct pages written at least once.
    pub pages_written: u64,
    /// `writes / requests`.
    pub write_share: f64,
    /// Share of requests that go to the hottest 20% of pages (by request
    /// count; `ceil(0.2 × distinct)` pages), the skew measure of CASA Table 1
    /// and FD-Buffer Table 2.
    pub hot20_share: f64,
}

/// Computes [`TraceStats`] in one pass, O(distinct pages) memory.
pub fn stats(t: &Flt) -> TraceStats {
    let mut count = vec![0u32; t.pages()];
    let mut written = vec![false; t.pages()];
    let mut writes = 0u64;
    for w in t.words() {
        let (p, op) = unpack(w);
        count[p as usize] = count[p as usize].saturating_add(1);
        if op.is_write() {
            writes += 1;
            written[p as usize] = true;
        }
    }
    let requests = t.len() as u64;
    let hot_requests = hottest_requests(&mut count, 0.2);
    let share = |x: u64| {
        if requests == 0 {
            0.0
        } else {
            x as f64 / requests as f64
        }
    };
    TraceStats {
        requests,
        reads: requests - writes,
        writes,
        distinct_pages: t.pages() as u64,
        pages_written: written.iter().filter(|&&w| w).count() as u64,
        write_share: share(writes),
        hot20_share: share(hot_requests),
    }
}

/// Pages in the hottest `fraction` of `n`: `ceil(fraction × n)`, at least
/// one.
pub fn hot_pages(n: usize, fraction: f64) -> usize {
    // The nudge keeps 0.2 × 5 at 1 where f64 rounds it up.
    ((fraction * n as f64 - 1e-9).ceil().max(1.0) as usize).min(n)
}

/// Requests to the hottest `fraction` of the pages, given each page's
/// requests (`counts`, reordered).
pub fn hottest_requests(counts: &mut [u32], fraction: f64) -> u64 {
    counts.sort_unstable_by(|a, b| b.cmp(a));
    counts[..hot_pages(counts.len(), fraction)]
        .iter()
        .map(|&c| u64::from(c))
        .sum()
}
