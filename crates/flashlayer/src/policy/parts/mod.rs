//! What policies are built from: intrusive lists over dense ids
//! ([`list`]), an arrival queue with removal by position ([`queue`]), an
//! indexed heap ([`heap`]), the read and write costs a cost-aware policy
//! learns ([`costs`]), and `forward_policy!`, which forwards the
//! [`super::Policy`] contract to an inner policy.

#[macro_use]
pub(super) mod forward;
pub(super) mod costs;
pub(super) mod heap;
pub(super) mod list;
pub(super) mod queue;
