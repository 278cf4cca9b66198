//! Policies inside policies: FD-Buffer's pools and ACE's base name a
//! policy, built at its defaults, that declares it serves there
//! ([`super::Serves`]); these read the declarations for them.

use super::named::Role;
use super::spec::{PolicySpec, SERVING};
use super::{registry, BoxedPolicy};
use crate::error::Result;
use crate::spec::Given;

/// The built-in policies that serve as `role`, in the table's order.
fn builtin(role: Role) -> impl Iterator<Item = &'static str> {
    SERVING
        .iter()
        .filter(move |(_, s)| s.can(role))
        .map(|(name, _)| *name)
}

/// The names of the policies that serve as `role`: the built-in ones in
/// the table's order, then the registered ones.
pub fn serving(role: Role) -> Vec<&'static str> {
    let registered = registry::all()
        .into_iter()
        .filter(|r| r.serves.can(role))
        .map(|r| r.entry.name);
    builtin(role).chain(registered).collect()
}

/// What a `role` key may name, in words: the built-in policies serving as
/// it (registered ones are only added at run time, so they are named
/// generally).
pub fn allowed(role: Role) -> String {
    let builtin: Vec<&str> = builtin(role).collect();
    format!(
        "an online policy at its defaults: {}, or one registered at run time",
        builtin.join(", ")
    )
}

/// The name of the policy that `g`'s `key` names, to be built at its
/// defaults; refused unless it serves as `role` (its declaration,
/// [`Serves`]).
pub(crate) fn serving_as(g: &Given, key: &str, role: Role) -> Result<&'static str> {
    let v = g.value(key);
    let name = v.trim();
    let kind = (!name.contains([':', '=']))
        .then(|| PolicySpec::parse(name).ok())
        .flatten()
        .map(|spec| spec.kind)
        .filter(|kind| kind.serves().can(role));
    kind.map(|k| k.name()).ok_or_else(|| g.bad(key, name))
}

/// The policy named `name`, at its defaults, behind one pointer.
pub(crate) fn boxed_at_defaults(name: &str, capacity: usize, pages: usize) -> Result<BoxedPolicy> {
    PolicySpec::parse(name)?.kind.boxed(capacity, pages)
}
