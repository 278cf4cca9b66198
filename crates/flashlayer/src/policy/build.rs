//! Building a policy from its spec ([`crate::policy::PolicySpec`]), monomorphised:
//! the caller hands a [`WithPolicy`] visitor, which receives the concrete
//! policy type, so the per-request path stays free of dynamic dispatch.
//! Each policy builds itself ([`crate::policy::Named`]); nested specs (FD-Buffer's
//! pools, ACE's base) are built by name too, with no match per
//! combination: a nested policy goes behind one pointer
//! ([`crate::policy::BoxedPolicy`]), except for the default (two LRU pools, an LRU
//! base), built as its own type so that its calls inline (same decisions;
//! about 100 instructions fewer a request).

use crate::error::Result;
use crate::policy::{BoxedPolicy, Policy, PolicySpec};

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
    spec.kind.visit(capacity, pages, w)
}

/// The online policy `spec` names, as [`with_online_policy`] builds it,
/// behind one pointer ([`BoxedPolicy`]): for a caller that chooses the
/// policy at run time off the per-request path.
pub fn boxed_online_policy(
    spec: &PolicySpec,
    capacity: usize,
    pages: usize,
) -> Result<BoxedPolicy> {
    spec.kind.boxed(capacity, pages)
}
