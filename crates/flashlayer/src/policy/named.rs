//! How a built-in policy declares itself, in its own file: [`Named`] gives
//! its entry in the policies' table (name, description, parameters with
//! their defaults), reads its parameters and builds it; one line of
//! `policies!` (`policy/spec.rs`) adds it to the table, the parser, the
//! canonical printer and the builder. A policy without parameters declares
//! itself with `named!(Type, "name", "description")`.

use super::build::WithPolicy;
use super::{BoxedPolicy, Policy};
use crate::error::Result;
use crate::spec::{Entry, Given, Ty};
use std::fmt::Debug;

/// A policy the engine builds by name.
pub trait Named: Policy + Clone + Send + Sized + 'static {
    /// Its entry in the policies' table.
    const ENTRY: Entry;
    /// Its parameters, read from a spec.
    type Params: Copy + Debug + PartialEq;

    /// Reads the parameters of a spec checked against [`Self::ENTRY`];
    /// refuses combinations the grammar cannot see.
    fn params(given: &Given) -> Result<Self::Params>;

    /// The canonical spec: the name and every key, each value written
    /// once one way (`cflru:w=0.5`). A policy whose keys apply only with
    /// another's value leaves them out without it.
    fn canonical(given: &Given) -> String {
        canonical(given, Self::ENTRY.params.iter().map(|p| p.key))
    }

    /// The policy with `capacity` pages, its per-page state pre-sized for
    /// dense ids `0..pages`.
    fn build(params: Self::Params, capacity: usize, pages: usize) -> Result<Self>;

    /// Builds the policy and hands it to `w`, monomorphised. A policy that
    /// picks its type by its parameters (FD-Buffer's pools) overrides it.
    fn visit<W: WithPolicy>(
        params: Self::Params,
        capacity: usize,
        pages: usize,
        w: W,
    ) -> Result<W::Out> {
        w.visit(Self::build(params, capacity, pages)?)
    }

    /// The policy behind one pointer.
    fn boxed(params: Self::Params, capacity: usize, pages: usize) -> Result<BoxedPolicy> {
        Ok(BoxedPolicy::new(Self::build(params, capacity, pages)?))
    }
}

/// `given`'s name and `keys` with their values, numbers written as parsed
/// (`0.50` as `0.5`).
pub(crate) fn canonical<'k>(given: &Given, keys: impl Iterator<Item = &'k str>) -> String {
    let pairs: Vec<String> = keys
        .map(|key| {
            let v = given.value(key);
            let ty = given.entry.param(key).map(|p| p.ty);
            let v = match ty {
                Some(Ty::Int(..)) => given.int(key).to_string(),
                Some(Ty::Fraction | Ty::FractionTo(_)) => given.fraction(key).to_string(),
                Some(Ty::FractionOrAuto) => given
                    .fraction_or_auto(key)
                    .map_or_else(|| "auto".to_owned(), |x| x.to_string()),
                _ => v,
            };
            format!("{key}={v}")
        })
        .collect();
    match pairs.is_empty() {
        true => given.name().to_owned(),
        false => format!("{}:{}", given.name(), pairs.join(",")),
    }
}

/// Declares a policy: `named!(Type, "name", "description")` for one
/// without parameters, built by `Type::new(capacity)`; with parameters,
/// `named!(Type, "name", "description", [PARAM, ...], Params,
/// |given| params, |params, capacity| policy)`. Either is then pre-sized
/// by `with_pages(pages)`.
macro_rules! named {
    ($ty:ty, $name:literal, $description:literal) => {
        named!($ty, $name, $description, [], (), |_| Ok(()), |_, capacity| <$ty>::new(capacity));
    };
    ($ty:ty, $name:literal, $description:literal, [$($param:expr),*], $params:ty,
     $read:expr, $build:expr) => {
        impl $crate::policy::Named for $ty {
            const ENTRY: $crate::spec::Entry = $crate::spec::Entry {
                name: $name,
                description: $description,
                params: &[$($param),*],
            };
            type Params = $params;
            fn params(given: &$crate::spec::Given) -> $crate::error::Result<$params> {
                let read: fn(&$crate::spec::Given) -> $crate::error::Result<$params> = $read;
                read(given)
            }
            fn build(params: $params, capacity: usize, pages: usize) -> $crate::error::Result<Self> {
                let build: fn($params, usize) -> $ty = $build;
                Ok(build(params, capacity).with_pages(pages))
            }
        }
    };
}
