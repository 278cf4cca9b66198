//! How a built-in policy declares itself, in its own file: [`Named`] gives
//! its entry in the policies' table (name, description, parameters with
//! their defaults), what it can serve as ([`Serves`]), reads its parameters
//! and builds it; one line of `policies!` (`table/spec.rs`) adds it to the
//! table, the parser, the canonical printer and the builder. A policy
//! without parameters declares itself with
//! `named!(Type, "name", "description", Serves::ONLINE)`.

use crate::error::Result;
use crate::policy::build::WithPolicy;
use crate::policy::{BoxedPolicy, Policy};
use crate::spec::{Entry, Given};
use std::fmt::Debug;

/// What a policy can serve as, beside a buffer of its own: the one place
/// FD-Buffer's pools, ACE's bases and the offline check read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Serves {
    /// It needs the whole trace in advance (offline: Belady, costopt-ub),
    /// so it runs only on a trace's replay, never live.
    pub offline: bool,
    /// It can manage a pool of FD-Buffer (`clean=`, `dirty=`), at its
    /// defaults: an online policy whose capacity may change at run time.
    pub pool: bool,
    /// It can be ACE's base (`base=`), at its defaults: it knows the order
    /// its evictions reach dirty pages in ([`Policy::dirty_ahead`]).
    pub ace_base: bool,
}

impl Serves {
    /// An online policy that serves as its own buffer only.
    pub const ONLINE: Serves = Serves {
        offline: false,
        pool: false,
        ace_base: false,
    };
    /// An offline policy: a trace's replay only.
    pub const OFFLINE: Serves = Serves {
        offline: true,
        ..Serves::ONLINE
    };
    /// An online policy that can also manage a pool of FD-Buffer.
    pub const POOL: Serves = Serves {
        pool: true,
        ..Serves::ONLINE
    };
    /// An online policy that can also be ACE's base.
    pub const ACE_BASE: Serves = Serves {
        ace_base: true,
        ..Serves::ONLINE
    };
    /// Both a pool of FD-Buffer and ACE's base.
    pub const POOL_AND_ACE_BASE: Serves = Serves {
        pool: true,
        ace_base: true,
        offline: false,
    };

    /// Whether it serves as `role`.
    pub fn can(self, role: Role) -> bool {
        match role {
            Role::Pool => self.pool,
            Role::AceBase => self.ace_base,
        }
    }
}

/// A place one policy takes inside another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A pool of FD-Buffer.
    Pool,
    /// ACE's base.
    AceBase,
}

/// A policy the engine builds by name.
pub trait Named: Policy + Clone + Send + Sized + 'static {
    /// Its entry in the policies' table.
    const ENTRY: Entry;
    /// What it can serve as.
    const SERVES: Serves;
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

/// `given`'s name and `keys` with their values, by the grammar's one
/// printer ([`Given::canonical_of`]; a policy nests no spec).
pub(crate) fn canonical<'k>(given: &Given, keys: impl Iterator<Item = &'k str>) -> String {
    given
        .canonical_of(keys, &|_, v| Ok(v.to_owned()))
        .expect("a policy's keys nest no spec")
}

/// Declares a policy: `named!(Type, "name", "description", SERVES)` for
/// one without parameters, built by `Type::new(capacity)`; with
/// parameters, `named!(Type, "name", "description", SERVES, [PARAM, ...],
/// Params, |given| params, |params, capacity| policy)`. Either is then
/// pre-sized by `with_pages(pages)`. `SERVES` is a [`Serves`].
macro_rules! named {
    ($ty:ty, $name:literal, $description:literal, $serves:expr) => {
        named!($ty, $name, $description, $serves, [], (), |_| Ok(()), |_, capacity| <$ty>::new(capacity));
    };
    ($ty:ty, $name:literal, $description:literal, $serves:expr, [$($param:expr),*], $params:ty,
     $read:expr, $build:expr) => {
        impl $crate::policy::Named for $ty {
            const ENTRY: $crate::spec::Entry = $crate::spec::Entry {
                name: $name,
                description: $description,
                params: &[$($param),*],
            };
            const SERVES: $crate::policy::Serves = $serves;
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
