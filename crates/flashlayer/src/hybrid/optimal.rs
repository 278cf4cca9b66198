//! The offline optimal placement (Koltsidas & Viglas §4: "an off-line
//! algorithm that knows the exact workload for each page beforehand"),
//! for comparison in reports and for the competitive bound of the
//! Appendix.
//!
//! Placement is decided per page and independently of other pages, so the
//! optimum is a two-state dynamic program over each page's own sequence of
//! physical events, recorded in a first run in which every page stays on
//! the magnetic disk ([`EventLog`]):
//!
//! - a physical read costs `r` of the page's disk, a write that is not an
//!   eviction (write clustering, a checkpoint) `w`;
//! - at an eviction the page may stay (paying `w` if dirty) or move, which
//!   costs a write on the destination whether or not it was dirty (the
//!   page is in memory; §4, Figure 2's transition cost) — exactly the
//!   choices the online algorithms have.
//!
//! Pages start on the magnetic disk, where new pages go. The DP keeps the
//! cheapest cost of ending each event on each disk, O(events) per page.
//! [`PlacementSchedule`] holds the devices the optimum puts each page on after each
//! of its evictions; a second run with `Placement::Optimal` follows it, so
//! the reported cost is a real replay's. For a buffer policy that ignores
//! costs (LRU) both runs see the same events and the replay's cost is the
//! DP's; a cost-aware buffer policy may evict differently once pages move,
//! and the replay then follows the schedule by eviction count.

use super::costs::{other, Costs};
use crate::types::{DeviceId, PageId};
use rustc_hash::FxHashMap;

/// A physical event of one page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The page was read from its disk.
    Read,
    /// The page was written while staying in the buffer.
    Write,
    /// The page left the buffer (written if `dirty`).
    Evict {
        /// Whether it was dirty.
        dirty: bool,
    },
}

/// The minimum cost of `events` for a page starting on `start`, and the
/// device it is on after each eviction in an optimal schedule.
pub fn optimum(events: &[Event], k: &Costs, start: DeviceId) -> (f64, Vec<DeviceId>) {
    const DEV: [DeviceId; 2] = [DeviceId::FLASH, DeviceId::MAGNETIC];
    let mut cost = [f64::INFINITY; 2];
    cost[start.index()] = 0.0;
    // For each eviction, where each end state came from.
    let mut from: Vec<[DeviceId; 2]> = Vec::new();
    for e in events {
        match *e {
            Event::Read => {
                for d in DEV {
                    cost[d.index()] += k.of(d).0;
                }
            }
            Event::Write => {
                for d in DEV {
                    cost[d.index()] += k.of(d).1;
                }
            }
            Event::Evict { dirty } => {
                let mut next = [0.0; 2];
                let mut came = [DeviceId::FLASH; 2];
                for d in DEV {
                    let w = k.of(d).1;
                    let stay = cost[d.index()] + if dirty { w } else { 0.0 };
                    let moved = cost[other(d).index()] + w;
                    // Ties stay: no migration without a saving.
                    if stay <= moved {
                        next[d.index()] = stay;
                        came[d.index()] = d;
                    } else {
                        next[d.index()] = moved;
                        came[d.index()] = other(d);
                    }
                }
                cost = next;
                from.push(came);
            }
        }
    }
    let mut at = if cost[0] < cost[1] {
        DeviceId::FLASH
    } else {
        DeviceId::MAGNETIC
    };
    let best = cost[at.index()];
    let mut path = vec![DeviceId::MAGNETIC; from.len()];
    for i in (0..from.len()).rev() {
        path[i] = at;
        at = from[i][at.index()];
    }
    (best, path)
}

/// Each page's physical events, recorded by a hybrid store that moves
/// nothing.
#[derive(Clone, Debug, Default)]
pub struct EventLog {
    pub(super) events: FxHashMap<PageId, Vec<Event>>,
}

impl EventLog {
    /// Pages recorded.
    pub fn pages(&self) -> usize {
        self.events.len()
    }

    /// One page's events.
    pub fn events(&self, page: PageId) -> &[Event] {
        self.events.get(&page).map_or(&[], Vec::as_slice)
    }

    pub(super) fn push(&mut self, page: PageId, e: Event) {
        self.events.entry(page).or_default().push(e);
    }
}

/// Where the optimum puts every page after each of its evictions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlacementSchedule {
    after: FxHashMap<PageId, Vec<DeviceId>>,
    cost: f64,
}

impl PlacementSchedule {
    /// Solves every page of `rec` for costs `k` (pages start on the
    /// magnetic disk).
    pub fn solve(rec: &EventLog, k: &Costs) -> PlacementSchedule {
        let mut after = FxHashMap::default();
        let mut cost = 0.0;
        for (&page, events) in &rec.events {
            let (c, path) = optimum(events, k, DeviceId::MAGNETIC);
            cost += c;
            if path.contains(&DeviceId::FLASH) {
                after.insert(page, path);
            }
        }
        PlacementSchedule { after, cost }
    }

    /// The optimum's total cost over the recorded events.
    pub fn cost(&self) -> f64 {
        self.cost
    }

    /// The device `page` should be on after its `k`-th eviction (from 0);
    /// past the recorded evictions, where it was last.
    pub fn device_after(&self, page: PageId, k: u32) -> DeviceId {
        match self.after.get(&page) {
            None => DeviceId::MAGNETIC,
            Some(p) => p
                .get(k as usize)
                .or_else(|| p.last())
                .copied()
                .unwrap_or(DeviceId::MAGNETIC),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Event::*;

    const K: Costs = Costs::TABLE_1;

    /// Every schedule of moves at evictions, tried exhaustively.
    fn brute(events: &[Event]) -> f64 {
        let n = events.iter().filter(|e| matches!(e, Evict { .. })).count();
        let mut best = f64::INFINITY;
        for mask in 0u32..(1 << n) {
            let mut at = DeviceId::MAGNETIC;
            let mut cost = 0.0;
            let mut i = 0;
            for e in events {
                let (r, w) = K.of(at);
                match *e {
                    Read => cost += r,
                    Write => cost += w,
                    Evict { dirty } => {
                        let want = if mask >> i & 1 == 1 {
                            DeviceId::FLASH
                        } else {
                            DeviceId::MAGNETIC
                        };
                        i += 1;
                        if want != at {
                            cost += K.of(want).1;
                            at = want;
                        } else if dirty {
                            cost += w;
                        }
                    }
                }
            }
            best = best.min(cost);
        }
        best
    }

    #[test]
    fn the_dp_matches_exhaustive_search_on_every_short_sequence() {
        let alphabet = [Read, Write, Evict { dirty: false }, Evict { dirty: true }];
        for len in 0..=7u32 {
            for code in 0..4u32.pow(len) {
                let events: Vec<Event> = (0..len)
                    .map(|i| alphabet[(code / 4u32.pow(i) % 4) as usize])
                    .collect();
                let (c, path) = optimum(&events, &K, DeviceId::MAGNETIC);
                assert_eq!(c, brute(&events), "{events:?}");
                assert_eq!(
                    path.len(),
                    events.iter().filter(|e| matches!(e, Evict { .. })).count()
                );
            }
        }
    }

    #[test]
    fn a_page_read_many_times_goes_to_flash_at_its_first_eviction() {
        let mut ev = vec![Read, Evict { dirty: false }];
        for _ in 0..20 {
            ev.extend([Read, Evict { dirty: false }]);
        }
        let (c, path) = optimum(&ev, &K, DeviceId::MAGNETIC);
        assert_eq!(path[0], DeviceId::FLASH);
        assert_eq!(c, 23.0 + 118.0 + 20.0);
    }
}
