//! Workload specs (`tpcc:warehouses=2,transactions=50000`): the workloads'
//! table of the one grammar ([`crate::spec`]) and the driver built from a
//! spec. Each workload's parameters, defaults and reading are written once,
//! in its own file ([`FromSpec`] on its parameters); [`workloads!`] lists
//! the workloads, and the table, the parse, the names, the drivers and the
//! canonical form follow from the list. A mix is written with `/` between
//! its shares (`tpcc:mix=45/43/4/4/4`), since `,` separates keys.

use super::{
    BTreeSets, BTreeSetsParams, PdlUpdates, PdlUpdatesParams, Tatp, TatpParams, TpcB, TpcBParams,
    TpcC, TpcCParams, TpcH, TpcHParams, Workload,
};
use crate::error::Result;
use crate::spec::{self, FromSpec, Given, Param, Table, Ty, NO_MAX};

/// The help of every workload's `page_size`.
pub(super) const PAGE_SIZE: &str = "page size in bytes";
/// The page sizes the B+-tree and heap pages take.
pub(super) const PAGE_TY: Ty =
    Ty::Int(crate::btree::MIN_PAGE as u64, crate::btree::MAX_PAGE as u64);
/// A transaction workload's length.
pub(super) const TRANSACTIONS: Param = Param {
    key: "transactions",
    ty: Ty::Int(1, NO_MAX),
    default: "100000",
    help: "transactions to run",
};
/// A share of keys or queries.
pub(super) const SHARE: Ty = Ty::Fraction;
/// PostgreSQL's page size, the transaction workloads' default.
pub(super) const PAGE_8192: Param = Param {
    key: "page_size",
    ty: PAGE_TY,
    default: "8192",
    help: PAGE_SIZE,
};

/// Lists the workloads: `Variant(Params, Driver)`, each `Params`
/// implementing [`FromSpec`] in the workload's own file.
macro_rules! workloads {
    ($($(#[$doc:meta])* $variant:ident($params:ty, $driver:ty)),* $(,)?) => {
        /// A workload with its parameters, parsed from a spec.
        #[derive(Clone, Debug)]
        pub enum WorkloadSpec {
            $($(#[$doc])* $variant($params),)*
        }

        /// Every workload generator: the workloads' table of the one grammar.
        pub static WORKLOADS: Table = Table::of("workload", &[$(<$params as FromSpec>::ENTRY),*]);

        impl WorkloadSpec {
            /// Parses `name[:key=value,...]` by the one grammar; a key left
            /// out takes the table's default.
            pub fn parse(text: &str) -> Result<Self> {
                let g = spec::parse(&WORKLOADS, text)?;
                $(if g.name() == <$params as FromSpec>::ENTRY.name {
                    return Ok(WorkloadSpec::$variant(<$params as FromSpec>::from_spec(&g)?));
                })*
                Err(g.error("is not a workload"))
            }

            /// The workload's name.
            pub fn name(&self) -> &'static str {
                match self {
                    $(WorkloadSpec::$variant(_) => <$params as FromSpec>::ENTRY.name,)*
                }
            }

            /// The driver, its parameters validated.
            pub fn build(&self) -> Result<Box<dyn Workload + Send>> {
                Ok(match self.clone() {
                    $(WorkloadSpec::$variant(p) => Box::new(<$driver>::new(p)?),)*
                })
            }
        }

        impl std::fmt::Display for WorkloadSpec {
            /// The canonical spec, every parameter written out.
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $(WorkloadSpec::$variant(p) => spec::write_canonical(p, f),)*
                }
            }
        }

        $(
            /// The defaults of the workload's entry in [`WORKLOADS`].
            impl Default for $params {
                fn default() -> Self {
                    match WorkloadSpec::parse(<$params as FromSpec>::ENTRY.name) {
                        Ok(WorkloadSpec::$variant(p)) => p,
                        _ => unreachable!("a workload's entry builds its parameters"),
                    }
                }
            }
        )*
    };
}

workloads! {
    /// TPC-C.
    TpcC(TpcCParams, TpcC),
    /// TPC-B.
    TpcB(TpcBParams, TpcB),
    /// TATP.
    Tatp(TatpParams, Tatp),
    /// TPC-H-like.
    TpcH(TpcHParams, TpcH),
    /// Koltsidas's B+-tree query sets.
    BTree(BTreeSetsParams, BTreeSets),
    /// PDL's synthetic updates.
    PdlUpdates(PdlUpdatesParams, PdlUpdates),
}

/// A parameter's type as a workload reads it from a checked spec and
/// writes it back ([`spec_fields!`]).
pub(super) trait Value: Sized {
    /// The value of `key` in `g`.
    fn read(g: &Given, key: &str) -> Self;
    /// The value as a spec writes it.
    fn write(&self) -> String;
}

macro_rules! whole_values {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn read(g: &Given, key: &str) -> Self {
                <$t>::try_from(g.int(key)).expect("the grammar checked its range")
            }
            fn write(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

whole_values!(u32, u64, usize);

impl Value for f64 {
    fn read(g: &Given, key: &str) -> Self {
        match g.entry.param(key).map(|p| p.ty) {
            Some(Ty::Positive(_)) => g.number(key),
            _ => g.fraction(key),
        }
    }
    fn write(&self) -> String {
        self.to_string()
    }
}

/// A mix's shares with `/` between them (`,` separates keys).
fn slashed<T: std::fmt::Display>(shares: &[T]) -> String {
    let parts: Vec<String> = shares.iter().map(T::to_string).collect();
    parts.join("/")
}

/// A mix of whole percentages.
impl<const N: usize> Value for [u32; N] {
    fn read(g: &Given, key: &str) -> Self {
        let m = g.mix(key);
        std::array::from_fn(|i| m[i] as u32)
    }
    fn write(&self) -> String {
        slashed(self)
    }
}

/// A mix of fractions.
impl<const N: usize> Value for [f64; N] {
    fn read(g: &Given, key: &str) -> Self {
        let m = g.mix(key);
        std::array::from_fn(|i| m[i])
    }
    fn write(&self) -> String {
        slashed(self)
    }
}
