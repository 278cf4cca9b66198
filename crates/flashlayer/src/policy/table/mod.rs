//! The table of every policy: the built-in ones, one line each of
//! `policies!` ([`spec`]), and those a program registers at run time
//! ([`registry`]).

pub(super) mod registry;
pub(super) mod spec;

pub use registry::{register, Registration};
pub use spec::{CostSource, FdParams, PolicyKind, PolicySpec, Registered, POLICIES, SERVING};
