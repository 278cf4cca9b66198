//! ACE, asymmetry- and concurrency-aware buffer management (Papon &
//! Athanassoulis, ICDE 2023): a wrapper over a replacement policy that,
//! when the policy's victim is dirty, writes back `nw − 1` more dirty pages
//! with it in one batch, issued together, and still evicts only the victim.
//! On a device that serves `k ≥ nw` writes at once the batch costs about
//! one write ([`crate::device::DeviceModel::concurrency`]), and the pages
//! written stay resident, clean, so later evictions of them are free.
//!
//! The pages written with the victim are the next dirty pages the base
//! policy's evictions would reach ([`Policy::dirty_ahead`]), which ACE's
//! own simulator (`BU-DiSC/ACE-codebase`, its variant 5, `COW-Xa`) finds by
//! walking the LRU list from its tail (over LRU-WSR, the dirty pages marked
//! cold). Over WATT, which draws its candidates at random, they are the
//! dirty pages among the candidates drawn for its next evictions, least
//! value first. LRU and CFLRU under ACE give its simulator's counts exactly
//! (`tests/test_ace_codebase.py`). The base decides everything else:
//! which page leaves, hits, admissions. The batch goes through the one
//! write-clustering protocol ([`Policy::cluster`]), so the simulator and
//! the buffer pool write it alike.
//!
//! With a `window` of `W` pages, only the dirty pages among the `W` pages
//! nearest eviction, the victim's included, are written: the simulator's
//! variant 4 (`COW-a`, `W` = its concurrency), and with `ne = nw` its
//! variant 2 (`CONE-a`). A base that cannot say which clean pages its
//! evictions pass (CASA, whose τ decides as they happen; WATT, whose
//! samples do) is refused a window.
//!
//! ACE's evicting variant (`ne` > 1) evicts the victim and the first
//! `ne − 1` pages written with it, once written ([`Policy::leaving`]), so
//! the next `ne − 1` misses find free frames. With `ne = nw` it is the
//! simulator's variant 3 (`CONE-Xa`), whose counts it gives
//! (`tests/test_ace_codebase.py`).
//!
//! The paper's prefetching variant (`pf=on`) fills those frames by reading
//! `ne − 1` pages ahead, which no code of its authors does; it follows the
//! step their project page draws (`BU-DiSC/disc-projects.bu.edu`,
//! `ACE/background.html` and `ACE/img/ace_example.png`: LRU, `nw = ne =
//! 3`): the dirty pages nearest eviction are written, the `ne` pages
//! nearest eviction leave, clean ones among them (the caller evicts the
//! base's next victims while they are clean, [`Policy::read_ahead`]), and
//! the `ne − 1` pages numbered after the requested one are read with it
//! and enter at the end nearest eviction ([`Policy::insert_cold`]). Which
//! pages the figure's p8 and p9 are it does not say; read as the pages
//! numbered after p7, they are a sequential read-ahead. They enter where
//! they are the first clean pages the base's evictions take: LRU's and
//! LRU-WSR's tail, CFLRU's clean-first region's clean tail, CASA's clean
//! list's tail (τ decides when evictions take from it). WATT, whose
//! samples pick its victims, has no such place. The simulator and the
//! buffer pool read them alike (the pool into the frames the evictions
//! freed, outside its lock; `crate::buffer`).

use crate::error::{Error, Result};
use crate::policy::build::WithPolicy;
use crate::policy::named::{Named, Role};
use crate::policy::nested::{allowed, boxed_at_defaults, serving_as};
use crate::policy::Serves;
use crate::policy::{Ahead, BoxedPolicy, Neighbours, Policy, Victim};
use crate::spec::{Given, Param, Ty};
use crate::types::{DenseId, IoKind, Op, PageCost};

/// ACE over the base policy `P`.
#[derive(Clone, Debug)]
pub struct Ace<P = BoxedPolicy> {
    base: P,
    nw: usize,
    ne: usize,
    /// Pages nearest eviction, the victim's included, whose dirty ones are
    /// written with it (0: no window).
    window: usize,
    /// Whether a dirty victim's miss reads `ne − 1` pages ahead (the
    /// prefetching variant).
    pf: bool,
}

/// `n` dirty pages among those after the victim that the walk may pass,
/// for a `window` (0: no window, no bound).
fn after_victim(n: usize, window: usize) -> Ahead {
    Ahead {
        n,
        window: window.checked_sub(1).unwrap_or(usize::MAX),
    }
}

/// ACE's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AceParams {
    /// The base policy, at its defaults: one that serves as ACE's base
    /// ([`crate::policy::Serves`]).
    pub base: &'static str,
    /// Pages written back together when the victim is dirty, the victim
    /// included.
    pub nw: usize,
    /// Pages evicted when the victim is dirty: the victim and the first
    /// `ne − 1` written with it.
    pub ne: usize,
    /// Pages nearest eviction, the victim's included, whose dirty ones are
    /// written with it (0: no window).
    pub window: usize,
    /// Whether a dirty victim's miss reads `ne − 1` pages ahead.
    pub pf: bool,
}

impl<P: Policy> Ace<P> {
    /// ACE over `base` writing up to `nw` pages a batch, the dirty ones
    /// among the `window` pages nearest eviction (0: no window), and
    /// evicting `ne` of them; refused if `base` does not know the order its
    /// evictions reach dirty pages in (or, with a window, the clean pages
    /// between them), or if `ne` exceeds `nw` (only written pages leave).
    pub fn new(base: P, nw: usize, ne: usize, window: usize) -> Result<Self> {
        Self::with_read_ahead(base, nw, ne, window, false)
    }

    /// [`Ace::new`], and with `pf` the prefetching variant: a dirty
    /// victim's miss evicts the `ne` pages nearest eviction, the victim
    /// first, and reads the `ne − 1` pages numbered after the requested
    /// one into their frames, at the end nearest eviction; refused over a
    /// base without such an end ([`Policy::has_cold_end`]) or with
    /// `ne = 1`, which reads nothing ahead.
    pub fn with_read_ahead(base: P, nw: usize, ne: usize, window: usize, pf: bool) -> Result<Self> {
        if pf && !base.has_cold_end() {
            return Err(Error::invalid(format!(
                "policy 'ace': pf=on puts the pages read ahead where {}'s evictions take the \
                 first clean page, and it has no such place (lru, cflru, lruwsr and casa have)",
                base.name()
            )));
        }
        if pf && ne < 2 {
            return Err(Error::invalid(
                "policy 'ace': pf=on reads ne-1 pages ahead, so it needs ne of 2 or more",
            ));
        }
        if !base.dirty_ahead(after_victim(0, window), &mut NoPages, &mut Vec::new()) {
            let what = match window {
                0 => String::new(),
                w => format!(" among the next {w} pages"),
            };
            return Err(Error::invalid(format!(
                "policy 'ace': {} does not know which dirty pages its evictions reach next{what}",
                base.name()
            )));
        }
        let nw = nw.max(1);
        if ne > nw {
            return Err(Error::invalid(format!(
                "policy 'ace': ne={ne} exceeds nw={nw}; only the pages written with the victim can leave with it"
            )));
        }
        Ok(Ace {
            base,
            nw,
            ne: ne.max(1),
            window,
            pf,
        })
    }

    /// The written pages that leave with the victim: none when reading
    /// ahead, whose `ne − 1` other pages leave by the base's order
    /// ([`Ace::ace_read_ahead`]).
    fn ace_leaving(&self) -> usize {
        if self.pf {
            0
        } else {
            self.ne - 1
        }
    }

    /// The pages read ahead after a dirty victim.
    fn ace_read_ahead(&self) -> usize {
        if self.pf {
            self.ne - 1
        } else {
            0
        }
    }

    /// The next `nw − 1` dirty pages the base's evictions reach, within
    /// the window (ACE's bases write no clusters of their own).
    fn gather(&mut self, _victim: DenseId, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) {
        self.base
            .dirty_ahead(after_victim(self.nw - 1, self.window), pages, out);
    }

    fn ace_name(&self) -> String {
        let mut name = format!("ACE({}, nw={}", self.base.name(), self.nw);
        if self.ne > 1 {
            name += &format!(", ne={}", self.ne);
        }
        if self.window > 0 {
            name += &format!(", window={}", self.window);
        }
        if self.pf {
            name += ", pf";
        }
        name + ")"
    }
}

/// Neighbours of nothing: the probe of [`Ace::new`] asks for no page.
struct NoPages;

impl Neighbours for NoPages {
    fn neighbour(&self, _: DenseId, _: i64) -> Option<DenseId> {
        None
    }
    fn evictable(&mut self, _: DenseId) -> bool {
        false
    }
}

macro_rules! with_ace {
    ($s:expr, $p:ident => $body:expr) => {
        match $s {
            Ace { base: $p, .. } => $body,
        }
    };
}

forward_policy!(impl [P: Policy] Ace<P>, with_ace, cluster = gather, leaving = ace_leaving, read_ahead = ace_read_ahead, name = ace_name);

/// What `base` may name, in words (a registered policy is refused when
/// built if it does not tell the order of its evictions).
fn base_allowed() -> String {
    allowed(Role::AceBase)
}
const BASE: Param = Param::new(
    "base",
    Ty::Listed(base_allowed),
    "lru",
    "the replacement policy ACE wraps, at its defaults",
);
const NW: Param = Param::new(
    "nw",
    Ty::Int(1, 1024),
    "8",
    "pages written back together when the victim is dirty, the victim included (the device's concurrency k makes a batch of up to k cost one write)",
);
const NE: Param = Param::new(
    "ne",
    Ty::Int(1, 1024),
    "1",
    "pages evicted when the victim is dirty: the victim and the first ne-1 written with it (at most nw; 1: the written pages stay, clean)",
);
const PF: Param = Param::new(
    "pf",
    Ty::Switch,
    "off",
    "the prefetching variant: a dirty victim's miss evicts the ne pages nearest eviction and reads the ne-1 pages numbered after the requested one into their frames, where they are the first clean pages evicted (any base but watt; needs ne of 2 or more)",
);
const WINDOW: Param = Param::new(
    "window",
    Ty::Int(0, 1024),
    "0",
    "write only the dirty pages among this many pages nearest eviction, the victim's included (0: no window, the next nw-1 dirty pages however far)",
);

impl Named for Ace {
    const SERVES: crate::policy::Serves = Serves::ONLINE;
    const ENTRY: crate::spec::Entry = crate::spec::Entry {
        name: "ace",
        description: "ACE, Papon & Athanassoulis 2023: a dirty victim is written with the next nw-1 dirty pages its base policy would evict, in one concurrent batch; the victim and ne-1 of them leave",
        params: &[BASE, NW, NE, WINDOW, PF],
    };
    type Params = AceParams;

    fn params(g: &Given) -> Result<AceParams> {
        Ok(AceParams {
            base: serving_as(g, "base", Role::AceBase)?,
            nw: g.int("nw") as usize,
            ne: g.int("ne") as usize,
            window: g.int("window") as usize,
            pf: g.switch("pf"),
        })
    }

    fn build(p: AceParams, capacity: usize, pages: usize) -> Result<Self> {
        let base = boxed_at_defaults(p.base, capacity, pages)?;
        Ace::with_read_ahead(base, p.nw, p.ne, p.window, p.pf)
    }

    /// The default base, LRU, built as its own type so that its calls
    /// inline; any other goes behind one pointer.
    fn visit<W: WithPolicy>(p: AceParams, capacity: usize, pages: usize, w: W) -> Result<W::Out> {
        if p.base == crate::policy::Lru::ENTRY.name {
            let lru = crate::policy::Lru::new(capacity).with_pages(pages);
            w.visit(Ace::with_read_ahead(lru, p.nw, p.ne, p.window, p.pf)?)
        } else {
            w.visit(Self::build(p, capacity, pages)?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::AllWritable as All;
    use crate::policy::Lru;

    /// Six pages in LRU order, oldest first: 0 (dirty), 1, 2 (dirty), 3,
    /// 4 (dirty), 5 (dirty).
    const SIX: [(DenseId, Op); 6] = [
        (0, Op::Write),
        (1, Op::Read),
        (2, Op::Write),
        (3, Op::Read),
        (4, Op::Write),
        (5, Op::Write),
    ];

    #[test]
    fn a_dirty_victim_gathers_the_next_dirty_pages_in_lru_order() {
        let c = PageCost::new(1.0, 1.0);
        let mut a = Ace::new(Lru::new(6), 3, 1, 0).unwrap();
        for (p, op) in SIX {
            a.insert(p, op, c);
        }
        let v = a.evict(|_| true).unwrap();
        assert_eq!((v.page, v.dirty), (0, true));
        let mut out = Vec::new();
        a.cluster(v.page, &mut All, &mut out);
        assert_eq!(out, vec![2, 4], "the next two dirty pages from the LRU end");
        assert_eq!(a.len(), 5, "only the victim left");
    }

    /// A window of 4 pages holds 0 (the victim), 1, 2 and 3: only 2 is
    /// written with the victim, though `nw` allows two; a window of 5
    /// reaches 4 too.
    #[test]
    fn a_window_writes_only_the_dirty_pages_nearest_eviction() {
        let c = PageCost::new(1.0, 1.0);
        for (window, written) in [(4, vec![2]), (5, vec![2, 4]), (6, vec![2, 4]), (1, vec![])] {
            let mut a = Ace::new(Lru::new(6), 3, 1, window).unwrap();
            for (p, op) in SIX {
                a.insert(p, op, c);
            }
            let v = a.evict(|_| true).unwrap();
            let mut out = Vec::new();
            a.cluster(v.page, &mut All, &mut out);
            assert_eq!(out, written, "window {window}");
        }
    }

    #[test]
    fn a_window_over_a_base_that_cannot_count_one_is_refused() {
        let casa = || crate::policy::Casa::new(4, crate::policy::CostSource::Model);
        assert!(Ace::new(casa(), 4, 1, 0).is_ok());
        let e = Ace::new(casa(), 4, 1, 4).unwrap_err().to_string();
        assert!(e.contains("among the next 4 pages"), "{e}");
    }

    /// `ne = 3`: a dirty victim leaves with the first two pages written
    /// with it, so the next two misses evict nothing.
    #[test]
    fn the_evicting_variant_frees_the_frames_of_written_pages() {
        use crate::device::DeviceModel;
        use crate::sim::Simulator;
        use crate::store::CostStore;
        let device = DeviceModel::parse("ratio:1:4").unwrap();
        let mut sim = Simulator::new(
            Ace::new(Lru::new(6), 3, 3, 0).unwrap(),
            CostStore::new(device),
        )
        .unwrap();
        for (p, op) in SIX {
            sim.request(p, op).unwrap();
        }
        sim.request(6, Op::Read).unwrap();
        let a = sim.policy();
        assert_eq!(a.len(), 4, "0 left, and 2 and 4 with it");
        assert!(![0, 2, 4].iter().any(|&p| a.contains(p)));
        assert!(a.is_dirty(5) && !a.is_dirty(1));
        sim.request(7, Op::Read).unwrap();
        sim.request(8, Op::Read).unwrap();
        let m = sim.metrics();
        assert_eq!((m.physical_writes, m.dirty_evictions), (3, 1));
        assert!(
            [1, 3, 5, 6, 7, 8].iter().all(|&p| sim.policy().contains(p)),
            "the freed frames took the next misses"
        );
    }

    /// The step its authors' project page draws (`ACE/img/ace_example.png`):
    /// LRU, `nw = ne = 3`, the buffer from its most recent page p1 (dirty),
    /// p2 (dirty), p3, p4 (dirty), p5 to p6 (dirty), and a write of p7.
    /// p6, p4 and p2 are written in one batch; p6, p5 and p4 leave; p7
    /// enters at the head, and p8 and p9 are read ahead into the tail, p9
    /// nearest eviction.
    #[test]
    fn the_prefetching_variant_takes_the_step_its_authors_draw() {
        use crate::device::DeviceModel;
        use crate::sim::Simulator;
        use crate::store::CostStore;
        let device = DeviceModel::parse("ratio:1:4").unwrap();
        let ace = Ace::with_read_ahead(Lru::new(6), 3, 3, 0, true).unwrap();
        let mut sim = Simulator::new(ace, CostStore::new(device)).unwrap();
        for (p, op) in [
            (6, Op::Write),
            (5, Op::Read),
            (4, Op::Write),
            (3, Op::Read),
            (2, Op::Write),
            (1, Op::Write),
        ] {
            sim.request(p, op).unwrap();
        }
        sim.request(7, Op::Write).unwrap();
        let a = sim.policy();
        let order: Vec<(DenseId, bool)> = [7, 1, 2, 3, 8, 9]
            .into_iter()
            .map(|p| (p, a.is_dirty(p)))
            .collect();
        assert_eq!(
            order,
            [
                (7, true),
                (1, true),
                (2, false),
                (3, false),
                (8, false),
                (9, false)
            ]
        );
        assert!(![4, 5, 6].iter().any(|&p| a.contains(p)));
        let mut lru = Lru::new(6);
        std::mem::swap(&mut lru, &mut sim.into_parts().0.base);
        assert_eq!(lru.order(), vec![7, 1, 2, 3, 8, 9]);
    }

    /// Pages read ahead count in the reads, once, and as used when a
    /// request finds them; ahead of a clean victim nothing is read. At
    /// k = 4 the two pages read ahead cost one read, on one device they
    /// cost one sequential read each.
    #[test]
    fn pages_read_ahead_are_counted_and_priced_as_one_batch() {
        use crate::device::DeviceModel;
        use crate::sim::Simulator;
        use crate::store::CostStore;
        for (device, ahead_cost) in [
            ("read=1,write=4,seq_read=0.25,k=4", 1.0),
            ("read=1,write=4,seq_read=0.25", 0.5),
        ] {
            let device = DeviceModel::parse(device).unwrap();
            let ace = Ace::with_read_ahead(Lru::new(3), 3, 3, 0, true).unwrap();
            let mut sim = Simulator::new(ace, CostStore::new(device)).unwrap();
            for p in [10, 20, 30] {
                sim.request(p, Op::Write).unwrap();
            }
            let before = sim.metrics();
            sim.request(40, Op::Read).unwrap();
            let m = sim.metrics();
            assert_eq!(
                (m.read_ahead, m.physical_reads - before.physical_reads),
                (2, 3)
            );
            // The write of 10, 20 and 30, the read of 40 and the two pages
            // read ahead.
            let batch = if ahead_cost == 1.0 { 4.0 } else { 12.0 };
            assert_eq!(
                m.virtual_time - before.virtual_time,
                batch + 1.0 + ahead_cost
            );
            sim.request(41, Op::Read).unwrap();
            sim.request(42, Op::Read).unwrap();
            let m = sim.metrics();
            assert_eq!((m.read_ahead_used, m.misses), (2, 4));
            // A clean victim reads nothing ahead.
            sim.request(50, Op::Read).unwrap();
            assert_eq!(sim.metrics().read_ahead, 2);
        }
    }

    #[test]
    fn prefetching_without_a_cold_end_or_with_ne_1_is_refused() {
        let watt = crate::policy::Watt::new(4);
        let e = Ace::with_read_ahead(watt, 4, 4, 0, true)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("pf=on") && e.contains("lru, cflru, lruwsr and casa"),
            "{e}"
        );
        let casa = crate::policy::Casa::new(4, crate::policy::CostSource::Model);
        assert!(Ace::with_read_ahead(casa, 4, 4, 0, true).is_ok());
        let cflru = crate::policy::Cflru::new(4, 0.5);
        assert!(Ace::with_read_ahead(cflru, 4, 4, 0, true).is_ok());
        let lruwsr = crate::policy::LruWsr::new(4);
        assert!(Ace::with_read_ahead(lruwsr, 4, 4, 0, true).is_ok());
        let e = Ace::with_read_ahead(Lru::new(4), 4, 1, 0, true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("ne of 2 or more"), "{e}");
    }

    #[test]
    fn more_pages_leaving_than_written_is_refused() {
        let e = Ace::new(Lru::new(4), 2, 3, 0).unwrap_err().to_string();
        assert!(e.contains("ne=3 exceeds nw=2"), "{e}");
    }

    #[test]
    fn a_base_that_does_not_know_its_dirty_order_is_refused() {
        let e = Ace::new(crate::policy::Arc::new(4), 4, 1, 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not know which dirty pages"), "{e}");
    }
}
