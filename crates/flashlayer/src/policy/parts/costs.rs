//! The read and write costs a cost-aware policy decides with (CASA §4.2 and
//! §5.3, FD-Buffer §3): from the device model (`cost=model`, the
//! [`PageCost`] of the page admitted last: one device, one ratio) or from
//! `n`-point moving averages of the latencies the store measured
//! (`cost=measured`, reported through `Policy::observe_io`). Until both a
//! read and a write have been measured the costs are taken as equal.

use crate::error::Result;
use crate::spec::{Given, Param, Ty};
use crate::types::{IoKind, PageCost};

/// Where a cost-aware policy takes the device's read/write costs from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostSource {
    /// The `PageCost` of the device model, passed with each admitted page.
    Model,
    /// An `n`-point moving average of the latencies the store measures
    /// ([`crate::policy::Policy::observe_io`]), CASA §5.3.
    Measured {
        /// Points in each moving average.
        n: usize,
    },
}

/// An `n`-point moving average with an exact running sum.
#[derive(Clone, Debug)]
struct MovingAverage {
    points: Box<[f64]>,
    next: usize,
    filled: usize,
    sum: f64,
}

impl MovingAverage {
    fn new(n: usize) -> Self {
        MovingAverage {
            points: vec![0.0; n.max(1)].into_boxed_slice(),
            next: 0,
            filled: 0,
            sum: 0.0,
        }
    }

    fn push(&mut self, x: f64) {
        let n = self.points.len();
        self.sum += x - self.points[self.next];
        self.points[self.next] = x;
        self.next += 1;
        if self.next == n {
            self.next = 0;
            // Summing afresh once a window keeps rounding from drifting.
            self.sum = self.points.iter().sum();
        }
        self.filled = (self.filled + 1).min(n);
    }

    fn mean(&self) -> Option<f64> {
        (self.filled > 0).then(|| self.sum / self.filled as f64)
    }
}

/// Where the costs come from, and the costs now.
#[derive(Clone, Debug)]
pub(crate) struct Costs {
    read: f64,
    write: f64,
    /// `(c_R, c_W)`, kept with `read` and `write`: CASA reads them on hits.
    normalised: (f64, f64),
    measured: Option<(MovingAverage, MovingAverage)>,
}

impl Costs {
    pub(crate) fn new(source: CostSource) -> Self {
        Costs {
            read: 1.0,
            write: 1.0,
            normalised: (0.5, 0.5),
            measured: match source {
                CostSource::Model => None,
                CostSource::Measured { n } => Some((MovingAverage::new(n), MovingAverage::new(n))),
            },
        }
    }

    /// Whether the costs come from measured latencies.
    pub(crate) fn is_measured(&self) -> bool {
        self.measured.is_some()
    }

    /// A page was admitted at `cost` (used with `cost=model`).
    #[inline]
    pub(crate) fn admitted(&mut self, cost: PageCost) {
        let changed = (cost.read, cost.write) != (self.read, self.write);
        if changed && self.measured.is_none() && cost.read + cost.write > 0.0 {
            self.set(cost.read, cost.write);
        }
    }

    fn set(&mut self, read: f64, write: f64) {
        self.read = read;
        self.write = write;
        let sum = read + write;
        self.normalised = (read / sum, write / sum);
    }

    /// A physical I/O cost `cost` (used with `cost=measured`).
    pub(crate) fn observed(&mut self, kind: IoKind, cost: f64) {
        let Some((reads, writes)) = self.measured.as_mut() else {
            return;
        };
        match kind {
            IoKind::Read => reads.push(cost),
            IoKind::Write => writes.push(cost),
        }
        if let (Some(r), Some(w)) = (reads.mean(), writes.mean()) {
            if r + w > 0.0 && (r + w).is_finite() {
                self.set(r, w);
            }
        }
    }

    /// `(c_R, c_W)` normalised so that `c_R + c_W = 1`.
    #[inline]
    pub(crate) fn normalised(&self) -> (f64, f64) {
        self.normalised
    }

    /// The asymmetry `R = c_W / c_R` (FD-Buffer §3).
    pub(crate) fn asymmetry(&self) -> f64 {
        if self.read > 0.0 {
            self.write / self.read
        } else {
            1.0
        }
    }

    /// The moving averages of measured read and write latencies (NaN until
    /// measured), for time series; `None` with `cost=model`.
    pub(crate) fn averages(&self) -> Option<(f64, f64)> {
        self.measured
            .as_ref()
            .map(|(r, w)| (r.mean().unwrap_or(f64::NAN), w.mean().unwrap_or(f64::NAN)))
    }
}

// The `cost` and `n` keys of the cost-aware policies' specs.

/// The longest window of measured latencies: two arrays of this many
/// points (8 MiB each).
const MAX_N: u64 = 1 << 20;
pub(crate) const COST: Param = Param {
    key: "cost",
    ty: Ty::Choice(&["model", "measured"]),
    default: "model",
    help: "c_R and c_W from the device model, or from the store's measured latencies (CASA §5.3)",
};
pub(crate) const N: Param = Param {
    key: "n",
    ty: Ty::Int(1, MAX_N),
    default: "32768",
    help: "with cost=measured: points in the moving average of measured read and write latencies \
           (CASA §5.3 leaves n open: long enough to smooth a flash device's garbage-collection spikes)",
};

/// `cost=model|measured` and its `n`; `n` only with `measured`.
pub(crate) fn cost_source(g: &Given) -> Result<CostSource> {
    match g.choice("cost") {
        "model" if g.has("n") => Err(g.error("'n' applies only with cost=measured")),
        "model" => Ok(CostSource::Model),
        _ => Ok(CostSource::Measured {
            n: g.int("n") as usize,
        }),
    }
}

/// The canonical spec of `keys`, then `cost` and, with `measured`, `n`.
pub(crate) fn canonical_with_cost(g: &Given, keys: &[&str]) -> String {
    let n: &[&str] = match g.choice("cost") {
        "model" => &[],
        _ => &["n"],
    };
    crate::policy::named::canonical(g, keys.iter().chain(&["cost"]).chain(n).copied())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::IoKind;

    /// `n` (`casa:cost=measured,n=N`) is the window of the averages: after
    /// a change of latency, a short window follows it and a long one
    /// still remembers the old one.
    #[test]
    fn the_measured_costs_average_the_last_n_latencies() {
        let costs = |n: usize| {
            let mut c = Costs::new(CostSource::Measured { n });
            for cost in [1.0, 1.0, 1.0, 1.0, 9.0, 9.0] {
                c.observed(IoKind::Read, 1.0);
                c.observed(IoKind::Write, cost);
            }
            c.asymmetry()
        };
        assert_eq!(costs(1), 9.0);
        assert_eq!(costs(2), 9.0);
        assert_eq!(costs(4), 5.0);
        assert_eq!(costs(100), 22.0 / 6.0);
    }
}
