//! The online placement algorithms of Koltsidas & Viglas §4 (Figures 3–5)
//! and the per-page counters they keep.
//!
//! Each page is a two-state task system (§4, Figure 2): it lives on the
//! flash disk `f` or the magnetic disk `m`; a migration costs a write on
//! the destination (the page is in memory when it is decided, at its
//! eviction). Every algorithm decides only when the page leaves the buffer.
//!
//! - **conservative** (Figure 3): a counter `C` of physical operations,
//!   `C += r − r'` per physical read and `C += w − w'` per dirty eviction
//!   (unprimed: the page's disk, primed: the other); migrate when
//!   `C > w_f + w_m`.
//! - **optimistic** (Figure 4): logical reads and writes since the last
//!   migration; at eviction migrate to the disk on which they would have
//!   cost less.
//! - **hybrid** (Figure 5): logical (`lr`, `lw`) and physical (`pr`, `pw`)
//!   counts; logical ones weigh `q = 1 − b/n` (the chance a logical
//!   operation becomes physical, `b` buffer pages, `n` the file's pages);
//!   migrate when the current disk's cost exceeds the other's by
//!   `w_f + w_m`.
//!
//! The printed Figures 4 and 5 test `c_f > c_m` (resp. `c_f − c_m > …`)
//! for a page on `m`, which would move pages to the disk that costs *more*;
//! the text says the page "migrates to the disk with the least total cost"
//! and "if the accumulated cost for the current disk surpasses the cost for
//! the other disk". We follow the text (a test pins it down).
//!
//! Optimistic and hybrid do no accounting for a new page until its first
//! physical write (Figure 4 line 3, Figure 5 line 4): a page being created
//! is written many times (a B+-tree split) in a way that says nothing of
//! its later workload. Conservative, which counts only physical
//! operations, has no such rule (Figure 3).

use super::costs::{other, Costs};
use crate::types::{DeviceId, Op};

/// Which placement algorithm a hybrid store runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Placement {
    /// Figure 3.
    Conservative,
    /// Figure 4.
    Optimistic,
    /// Figure 5.
    Hybrid,
    /// The offline optimum for a recorded sequence of physical operations
    /// ([`super::optimal`]): the device each page must be on after each of
    /// its evictions.
    Optimal(std::sync::Arc<super::optimal::PlacementSchedule>),
    /// Every page stays on one device (`M-only`, `F-only` in §6), or, with
    /// `record`, stays where it is while its physical operations are
    /// recorded for [`Placement::Optimal`].
    Fixed(DeviceId),
}

impl Placement {
    /// Parses `conservative`, `optimistic`, `hybrid`, `m-only`, `f-only`.
    /// (`optimal` needs a first pass; callers build it with
    /// [`super::optimal::PlacementSchedule`].)
    pub fn parse(name: &str) -> Option<Placement> {
        Some(match name {
            "conservative" => Placement::Conservative,
            "optimistic" => Placement::Optimistic,
            "hybrid" => Placement::Hybrid,
            "m-only" => Placement::Fixed(DeviceId::MAGNETIC),
            "f-only" => Placement::Fixed(DeviceId::FLASH),
            _ => return None,
        })
    }

    /// The placement `name` names, any of [`PLACEMENTS`]: `optimal` is
    /// solved from the events `record` returns (a first pass with every page
    /// left on the magnetic disk, recording); the others need no pass. An
    /// unknown name is an error listing the valid ones.
    pub fn by_name(
        name: &str,
        record: impl FnOnce() -> crate::error::Result<(super::EventLog, Costs)>,
    ) -> crate::error::Result<Placement> {
        if name == "optimal" {
            let (rec, costs) = record()?;
            return Ok(Placement::Optimal(std::sync::Arc::new(
                super::PlacementSchedule::solve(&rec, &costs),
            )));
        }
        Placement::parse(name).ok_or_else(|| {
            crate::error::Error::invalid(format!(
                "unknown placement '{name}'; valid placements: {}",
                PLACEMENTS.join(", ")
            ))
        })
    }

    /// For `optimal`: the offline optimum's cost of the recorded events.
    pub fn optimum(&self) -> Option<f64> {
        match self {
            Placement::Optimal(s) => Some(s.cost()),
            _ => None,
        }
    }

    /// The name [`Placement::parse`] takes (`optimal` for the offline one).
    pub fn label(&self) -> &'static str {
        match self {
            Placement::Conservative => "conservative",
            Placement::Optimistic => "optimistic",
            Placement::Hybrid => "hybrid",
            Placement::Optimal(_) => "optimal",
            Placement::Fixed(d) if *d == DeviceId::FLASH => "f-only",
            Placement::Fixed(_) => "m-only",
        }
    }
}

/// Every placement name users may type, `optimal` included.
pub const PLACEMENTS: &[&str] = &[
    "conservative",
    "optimistic",
    "hybrid",
    "optimal",
    "m-only",
    "f-only",
];

/// Whether a page on `on` whose estimated saving on flash is `saving`
/// ([`Counters::flash_saving`]) should move to the other disk: conservative
/// and hybrid once the other disk would have saved more than two moves
/// (`w_f + w_m`), optimistic as soon as it would have saved anything.
pub fn moves(placement: &Placement, on: DeviceId, saving: f64, k: &Costs) -> bool {
    // Saving of the other disk over this one.
    let gain = if on == DeviceId::FLASH {
        -saving
    } else {
        saving
    };
    match placement {
        Placement::Conservative | Placement::Hybrid => gain > k.w_f + k.w_m,
        Placement::Optimistic => gain > 0.0,
        Placement::Optimal(_) | Placement::Fixed(_) => false,
    }
}

/// What the placement algorithms count for one page (persisted with it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counters {
    /// Conservative's `C`.
    pub c: f64,
    /// Logical reads since the last migration (optimistic's `reads`).
    pub lr: u32,
    /// Logical writes since the last migration.
    pub lw: u32,
    /// Physical reads since the last migration.
    pub pr: u32,
    /// Physical writes (dirty evictions) since the last migration.
    pub pw: u32,
}

impl Counters {
    /// A logical request (optimistic, hybrid), if accounting has started.
    pub fn logical(&mut self, op: Op) {
        match op {
            Op::Read => self.lr = self.lr.saturating_add(1),
            Op::Write => self.lw = self.lw.saturating_add(1),
        }
    }

    /// A physical read of a page on `on`.
    pub fn physical_read(&mut self, on: DeviceId, k: &Costs) {
        self.pr = self.pr.saturating_add(1);
        self.c += k.of(on).0 - k.of(other(on)).0;
    }

    /// A dirty eviction of a page on `on`.
    pub fn physical_write(&mut self, on: DeviceId, k: &Costs) {
        self.pw = self.pw.saturating_add(1);
        self.c += k.of(on).1 - k.of(other(on)).1;
    }

    /// The estimated saving of the page being on flash rather than on the
    /// magnetic disk, by `placement`'s own counters (positive: flash is
    /// better). Ranks pages for a full flash disk.
    pub fn flash_saving(&self, placement: &Placement, on: DeviceId, k: &Costs, q: f64) -> f64 {
        match placement {
            Placement::Conservative => {
                if on == DeviceId::FLASH {
                    -self.c
                } else {
                    self.c
                }
            }
            Placement::Optimistic => {
                let (r, w) = (f64::from(self.lr), f64::from(self.lw));
                (r * k.r_m + w * k.w_m) - (r * k.r_f + w * k.w_f)
            }
            _ => {
                let r = f64::from(self.lr) * q + f64::from(self.pr);
                let w = f64::from(self.lw) * q + f64::from(self.pw);
                (r * k.r_m + w * k.w_m) - (r * k.r_f + w * k.w_f)
            }
        }
    }

    /// The decision at an eviction of a page on `on`, after its counters
    /// took that eviction: whether it should move to the other disk. The
    /// caller resets the counters when the page does move (a full flash
    /// disk may refuse it, and it then keeps counting). `q = 1 − b/n`
    /// (hybrid only).
    pub fn decide(&self, placement: &Placement, on: DeviceId, k: &Costs, q: f64) -> bool {
        moves(placement, on, self.flash_saving(placement, on, k, q), k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: Costs = Costs::TABLE_1;

    #[test]
    fn conservative_moves_a_read_page_to_flash_after_two_migrations_worth() {
        let mut c = Counters::default();
        let m = DeviceId::MAGNETIC;
        // Each physical read on m would have saved 22 on flash; w_f + w_m
        // = 130, so the sixth read (132 > 130) tips it.
        for i in 1..=6 {
            c.physical_read(m, &K);
            let go = c.decide(&Placement::Conservative, m, &K, 1.0);
            assert_eq!(go, i == 6, "after {i} reads");
        }
    }

    #[test]
    fn optimistic_and_hybrid_move_towards_the_cheaper_disk_as_the_text_says() {
        // A read-only page on m: flash is cheaper for it.
        let mut c = Counters::default();
        c.logical(Op::Read);
        assert!(c.decide(&Placement::Optimistic, DeviceId::MAGNETIC, &K, 1.0));
        // A written page on flash: magnetic is cheaper.
        let mut c = Counters::default();
        c.logical(Op::Write);
        assert!(c.decide(&Placement::Optimistic, DeviceId::FLASH, &K, 1.0));
        // ... and a read page already on flash stays.
        let mut c = Counters::default();
        c.logical(Op::Read);
        assert!(!c.decide(&Placement::Optimistic, DeviceId::FLASH, &K, 1.0));
        // Hybrid: 7 logical reads at q = 0.5 and 3 physical reads weigh
        // 6.5 reads, 6.5 × 22 = 143 > 130; 6 × 0.5 + 3 = 6 reads, 132 > 130
        // as well; one read fewer is not.
        let hybrid_moves = |logical: usize| {
            let mut c = Counters::default();
            for _ in 0..logical {
                c.logical(Op::Read);
            }
            for _ in 0..3 {
                c.physical_read(DeviceId::MAGNETIC, &K);
            }
            c.decide(&Placement::Hybrid, DeviceId::MAGNETIC, &K, 0.5)
        };
        assert!(hybrid_moves(7));
        assert!(hybrid_moves(6));
        assert!(!hybrid_moves(4));
    }
}
