//! Building a policy from its spec ([`super::PolicySpec`]), monomorphised:
//! the caller hands a [`WithPolicy`] visitor, which receives the concrete
//! policy type, so the per-request path stays free of dynamic dispatch.
//! Nested specs (FD-Buffer's pools) are built by name too, with no match
//! per combination.

use super::{
    Arc, Base, Casa, CcfLru, Cfdc, Cflru, Clock, FdBuffer, Fifo, Koltsidas, Lru, LruWsr, Policy,
    PolicyKind, PolicySpec, TwoQ,
};
use crate::error::{Error, Result};

/// Something to do with a policy built by name: [`with_online_policy`]
/// (or `sim::with_policy`, which adds the offline Belady) builds the policy
/// a [`PolicySpec`] names and hands it over, monomorphised.
pub trait WithPolicy {
    /// What the visit returns.
    type Out;
    /// Uses `policy`.
    fn visit<P: Policy>(self, policy: P) -> Result<Self::Out>;
}

/// Builds the online policy `spec` names with `capacity` pages, its
/// per-page state pre-sized for dense ids `0..pages`, and calls `w`.
/// Belady, which must see the whole trace, is refused here.
pub fn with_online_policy<W: WithPolicy>(
    spec: &PolicySpec,
    capacity: usize,
    pages: usize,
    w: W,
) -> Result<W::Out> {
    let cap = capacity;
    match spec.kind {
        PolicyKind::Lru => w.visit(Lru::new(cap).with_pages(pages)),
        PolicyKind::Fifo => w.visit(Fifo::new(cap).with_pages(pages)),
        PolicyKind::Clock => w.visit(Clock::new(cap).with_pages(pages)),
        PolicyKind::TwoQ => w.visit(TwoQ::new(cap).with_pages(pages)),
        PolicyKind::Arc => w.visit(Arc::new(cap).with_pages(pages)),
        PolicyKind::Belady => Err(Error::invalid(
            "belady is offline: it needs the whole trace in advance, so it runs only on traces \
             (flashlayer sim), not on a live workload",
        )),
        PolicyKind::Cflru { w: window } => w.visit(Cflru::new(cap, window).with_pages(pages)),
        PolicyKind::LruWsr => w.visit(LruWsr::new(cap).with_pages(pages)),
        PolicyKind::CcfLru => w.visit(CcfLru::new(cap).with_pages(pages)),
        PolicyKind::Casa { cost } => w.visit(Casa::new(cap, cost).with_pages(pages)),
        PolicyKind::Cfdc { w: window, cluster } => {
            w.visit(Cfdc::new(cap, window, cluster).with_pages(pages))
        }
        PolicyKind::Koltsidas { lambda } => w.visit(Koltsidas::new(cap, lambda).with_pages(pages)),
        PolicyKind::FdBuffer {
            mc,
            clean,
            dirty,
            cost,
            cluster,
        } => {
            let base =
                |name| Base::by_name(name, cap, pages).expect("the spec names a base policy");
            let fd = FdBuffer::with_mc(cap, mc, cost, base(clean), base(dirty));
            w.visit(fd.with_cluster(cluster))
        }
    }
}
