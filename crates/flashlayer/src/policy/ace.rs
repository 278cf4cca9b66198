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
//! cold). LRU and CFLRU under ACE give its simulator's counts exactly
//! (`tests/test_ace_codebase.py`). The base decides everything else:
//! which page leaves, hits, admissions. The batch goes through the one
//! write-clustering protocol ([`Policy::cluster`]), so the simulator and
//! the buffer pool write it alike. ACE's prefetching variant (evicting
//! `ne` pages and reading `ne − 1` ahead) is not built.

use super::build::WithPolicy;
use super::named::Named;
use super::{BoxedPolicy, Neighbours, Policy, PolicySpec, Victim};
use crate::error::{Error, Result};
use crate::spec::{Given, Param, Ty};
use crate::types::{DenseId, IoKind, Op, PageCost};

/// ACE over the base policy `P`.
#[derive(Clone, Debug)]
pub struct Ace<P = BoxedPolicy> {
    base: P,
    nw: usize,
}

/// The policies ACE wraps: those that know the order their evictions
/// reach dirty pages in, at their defaults.
const BASES: &[&str] = &["lru", "cflru", "lruwsr", "casa"];

/// ACE's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AceParams {
    /// The base policy, as typed (one of `BASES`).
    pub base: &'static str,
    /// Pages written back together when the victim is dirty, the victim
    /// included.
    pub nw: usize,
}

impl<P: Policy> Ace<P> {
    /// ACE writing `nw` pages a batch over `base`; refused if `base` does
    /// not know the order its evictions reach dirty pages in.
    pub fn new(base: P, nw: usize) -> Result<Self> {
        if !base.dirty_ahead(0, &mut NoPages, &mut Vec::new()) {
            return Err(Error::invalid(format!(
                "policy 'ace': {} does not know which dirty pages its evictions reach next",
                base.name()
            )));
        }
        Ok(Ace {
            base,
            nw: nw.max(1),
        })
    }

    /// The next `nw − 1` dirty pages the base's evictions reach (ACE's
    /// bases write no clusters of their own).
    fn gather(&mut self, _victim: DenseId, pages: &mut dyn Neighbours, out: &mut Vec<DenseId>) {
        self.base.dirty_ahead(self.nw - 1, pages, out);
    }

    fn ace_name(&self) -> String {
        format!("ACE({}, nw={})", self.base.name(), self.nw)
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

forward_policy!(impl [P: Policy] Ace<P>, with_ace, cluster = gather, name = ace_name);

const BASE: Param = Param::new(
    "base",
    Ty::Choice(BASES),
    "lru",
    "the replacement policy ACE wraps, at its defaults",
);
const NW: Param = Param::new(
    "nw",
    Ty::Int(1, 1024),
    "8",
    "pages written back together when the victim is dirty, the victim included (the device's concurrency k makes a batch of up to k cost one write)",
);

impl Named for Ace {
    const ENTRY: crate::spec::Entry = crate::spec::Entry {
        name: "ace",
        description: "ACE, Papon & Athanassoulis 2023: a dirty victim is written with the next nw-1 dirty pages its base policy would evict, in one concurrent batch; only the victim leaves",
        params: &[BASE, NW],
    };
    type Params = AceParams;

    fn params(g: &Given) -> Result<AceParams> {
        Ok(AceParams {
            base: g.choice("base"),
            nw: g.int("nw") as usize,
        })
    }

    fn build(p: AceParams, capacity: usize, pages: usize) -> Result<Self> {
        let base = PolicySpec::parse(p.base)?.kind.boxed(capacity, pages)?;
        Ace::new(base, p.nw)
    }

    /// The base built as its own type, so that its calls inline.
    fn visit<W: WithPolicy>(p: AceParams, capacity: usize, pages: usize, w: W) -> Result<W::Out> {
        fn base<T: Named>(name: &str, capacity: usize, pages: usize) -> Result<T> {
            let g = crate::spec::parse(&super::POLICIES, name)?;
            T::build(T::params(&g)?, capacity, pages)
        }
        match p.base {
            "lru" => w.visit(Ace::new(
                base::<super::Lru>(p.base, capacity, pages)?,
                p.nw,
            )?),
            "cflru" => w.visit(Ace::new(
                base::<super::Cflru>(p.base, capacity, pages)?,
                p.nw,
            )?),
            "lruwsr" => w.visit(Ace::new(
                base::<super::LruWsr>(p.base, capacity, pages)?,
                p.nw,
            )?),
            _ => w.visit(Ace::new(
                base::<super::Casa>(p.base, capacity, pages)?,
                p.nw,
            )?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::testing::AllWritable as All;
    use crate::policy::Lru;

    #[test]
    fn a_dirty_victim_gathers_the_next_dirty_pages_in_lru_order() {
        let c = PageCost::new(1.0, 1.0);
        let mut a = Ace::new(Lru::new(6), 3).unwrap();
        // LRU order, oldest first: 0 (dirty), 1, 2 (dirty), 3, 4 (dirty), 5 (dirty).
        for (p, op) in [
            (0, Op::Write),
            (1, Op::Read),
            (2, Op::Write),
            (3, Op::Read),
            (4, Op::Write),
            (5, Op::Write),
        ] {
            a.insert(p, op, c);
        }
        let v = a.evict(|_| true).unwrap();
        assert_eq!((v.page, v.dirty), (0, true));
        let mut out = Vec::new();
        a.cluster(v.page, &mut All, &mut out);
        assert_eq!(out, vec![2, 4], "the next two dirty pages from the LRU end");
        assert_eq!(a.len(), 5, "only the victim left");
    }

    #[test]
    fn a_base_that_does_not_know_its_dirty_order_is_refused() {
        let e = Ace::new(crate::policy::Arc::new(4), 4)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not know which dirty pages"), "{e}");
    }
}
