//! Building a policy from its spec ([`super::PolicySpec`]), monomorphised:
//! the caller hands a [`WithPolicy`] visitor, which receives the concrete
//! policy type, so the per-request path stays free of dynamic dispatch.
//! Nested specs (FD-Buffer's pools) are built by name too, with no match
//! per combination: a pool's calls go through [`super::Base`], except for
//! the default pair, two LRU pools, built as `FdBuffer<Lru>` so that they
//! inline (same decisions; about 100 instructions fewer a request).

use super::{
    Arc, Base, BasePolicy, BoxedPolicy, Casa, CcfLru, Cfdc, Cflru, Clock, ClockPro, FdBuffer, Fifo,
    Koltsidas, Lfu, Lirs, Lru, LruK, LruWsr, Policy, PolicyKind, PolicySpec, S3Fifo, Sieve, Slru,
    TwoQ, WTinyLfu, WbLandlord,
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

/// The one match from a spec to an online policy: binds the policy built
/// with `$cap` pages (state pre-sized for `$pages` dense ids) to `$p` and
/// evaluates `$use`.
macro_rules! online_policy {
    ($spec:expr, $cap:expr, $pages:expr, $p:ident => $use:expr) => {{
        let (cap, pages) = ($cap, $pages);
        match $spec.kind {
            PolicyKind::Lru => {
                let $p = Lru::new(cap).with_pages(pages);
                $use
            }
            PolicyKind::Fifo => {
                let $p = Fifo::new(cap).with_pages(pages);
                $use
            }
            PolicyKind::Clock => {
                let $p = Clock::new(cap).with_pages(pages);
                $use
            }
            PolicyKind::TwoQ => {
                let $p = TwoQ::new(cap).with_pages(pages);
                $use
            }
            PolicyKind::Arc => {
                let $p = Arc::new(cap).with_pages(pages);
                $use
            }
            PolicyKind::Sieve => {
                let $p = Sieve::new(cap).with_pages(pages);
                $use
            }
            PolicyKind::S3Fifo {
                small,
                ghost,
                threshold,
            } => {
                let $p = S3Fifo::with_params(cap, small, ghost, threshold).with_pages(pages);
                $use
            }
            PolicyKind::Lfu => {
                let $p = Lfu::new(cap).with_pages(pages);
                $use
            }
            PolicyKind::LruK { k } => {
                let $p = LruK::with_k(cap, k).with_pages(pages);
                $use
            }
            PolicyKind::Slru { segments } => {
                let $p = Slru::with_segments(cap, segments).with_pages(pages);
                $use
            }
            PolicyKind::Lirs { hirs } => {
                let $p = Lirs::with_hirs(cap, hirs).with_pages(pages);
                $use
            }
            PolicyKind::WTinyLfu { window } => {
                let $p = WTinyLfu::with_window(cap, window).with_pages(pages);
                $use
            }
            PolicyKind::ClockPro { cold } => {
                let $p = ClockPro::with_cold(cap, cold).with_pages(pages);
                $use
            }
            PolicyKind::Belady | PolicyKind::CostOptUb { .. } => Err(Error::invalid(format!(
                "{} is offline: it needs the whole trace in advance, so it runs only on traces \
                 (flashlayer sim), not on a live workload",
                $spec.name()
            ))),
            PolicyKind::WbLandlord => {
                let $p = WbLandlord::new(cap).with_pages(pages);
                $use
            }
            PolicyKind::Cflru { w: window } => {
                let $p = Cflru::new(cap, window).with_pages(pages);
                $use
            }
            PolicyKind::LruWsr => {
                let $p = LruWsr::new(cap).with_pages(pages);
                $use
            }
            PolicyKind::CcfLru => {
                let $p = CcfLru::new(cap).with_pages(pages);
                $use
            }
            PolicyKind::Casa { cost } => {
                let $p = Casa::new(cap, cost).with_pages(pages);
                $use
            }
            PolicyKind::Cfdc { w: window, cluster } => {
                let $p = Cfdc::new(cap, window, cluster).with_pages(pages);
                $use
            }
            PolicyKind::Koltsidas { lambda } => {
                let $p = Koltsidas::new(cap, lambda).with_pages(pages);
                $use
            }
            PolicyKind::Registered(r) => {
                let $p = r.build(cap, pages)?;
                $use
            }
            PolicyKind::FdBuffer {
                mc: super::Mc::Pages(k),
                ..
            } if k > cap => Err(Error::invalid(format!(
                "policy 'fdbuffer': mc={k} is more pages than the buffer's {cap}; give 0 to {cap} \
                 pages, or a share of the buffer such as 0.5"
            ))),
            PolicyKind::FdBuffer {
                mc,
                clean,
                dirty,
                cost,
                cluster,
            } => {
                if clean == BasePolicy::Lru && dirty == BasePolicy::Lru {
                    // The default pools, built as LRU itself: their calls
                    // inline where `Base` dispatches on every one.
                    let lru = || Lru::new(cap).with_pages(pages);
                    let $p = FdBuffer::with_mc(cap, mc, cost, lru(), lru()).with_cluster(cluster);
                    $use
                } else {
                    let base = |kind| Base::new(kind, cap, pages);
                    let $p = FdBuffer::with_mc(cap, mc, cost, base(clean)?, base(dirty)?)
                        .with_cluster(cluster);
                    $use
                }
            }
        }
    }};
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
    online_policy!(spec, capacity, pages, p => w.visit(p))
}

/// The online policy `spec` names, as [`with_online_policy`] builds it,
/// behind one pointer ([`BoxedPolicy`]): for a caller that chooses the
/// policy at run time off the per-request path.
pub fn boxed_online_policy(
    spec: &PolicySpec,
    capacity: usize,
    pages: usize,
) -> Result<BoxedPolicy> {
    online_policy!(spec, capacity, pages, p => Ok(BoxedPolicy::new(p)))
}
