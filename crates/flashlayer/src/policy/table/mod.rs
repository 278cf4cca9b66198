//! How policies are named, declared and built: the policies' table of the
//! one grammar ([`spec`]), each policy's declaration of itself ([`named`]:
//! its entry, what it serves as, how it is built), policies a program
//! registers at run time ([`registry`]), building one from its spec,
//! monomorphised ([`build`]) or behind one pointer ([`boxed`]).

#[macro_use]
pub(super) mod named;
pub(super) mod boxed;
pub(super) mod build;
pub(super) mod registry;
pub(super) mod spec;

pub use boxed::BoxedPolicy;
pub use build::{boxed_online_policy, with_online_policy, WithPolicy};
pub use named::{Named, Role, Serves};
pub use registry::{register, Registration};
pub use spec::{
    allowed, serving, CostSource, FdParams, PolicyKind, PolicySpec, Registered, POLICIES, SERVING,
};
