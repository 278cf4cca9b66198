//! Policy names as users type them, with parameters: `lru`, `cflru:w=0.5`,
//! `casa:cost=measured,n=1024`: the policies' table ([`POLICIES`]) of the
//! one grammar ([`crate::spec`]), which serves the CLI, Python and Rust.
//! Each policy declares its name, parameters and defaults in its own file
//! ([`crate::policy::Named`]); one line of `policies!` below adds it to the
//! table, the parser, the canonical printer and the builder. A program
//! adds its own with [`crate::policy::register`]. [`PolicySpec`]'s `Display`
//! writes the canonical form with every default filled in (`cflru:w=0.5`),
//! which is what result rows carry.

use crate::error::Result;
use crate::policy::build::WithPolicy;
pub use crate::policy::costs::CostSource;
use crate::policy::named::{Named, Serves};
use crate::policy::registry::{self, Registration};
use crate::policy::BoxedPolicy;
use crate::spec::{self, Given, Table};
use std::fmt;

/// Declares the built-in policies, one line each (`Variant => Type`, in
/// the order `flashlayer list policies` shows them): [`PolicyKind`],
/// [`POLICIES`], and the dispatch from a spec to its type.
macro_rules! policies {
    ($($variant:ident => $ty:ty),* $(,)?) => {
        /// The policies the engine can build by name, with their parameters.
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub enum PolicyKind {
            $(
                #[doc = concat!("[`", stringify!($ty), "`]")]
                $variant(<$ty as Named>::Params),
            )*
            /// A policy added at run time ([`crate::policy::register`]).
            Registered(Registered),
        }

        /// Every policy: the policies' table of the one grammar.
        pub static POLICIES: Table = Table {
            what: "policy",
            entries: &[$(<$ty as Named>::ENTRY),*],
            more: Some(registry::entries),
            lead: false,
            unnamed: None,
        };

        impl PolicyKind {
            /// The kind and canonical spec of a spec checked against
            /// [`POLICIES`].
            fn of(g: &Given) -> Result<(Self, String)> {
                $(
                    if g.name() == <$ty as Named>::ENTRY.name {
                        let kind = PolicyKind::$variant(<$ty as Named>::params(g)?);
                        return Ok((kind, <$ty as Named>::canonical(g)));
                    }
                )*
                let policy = registry::find(g.name())
                    .unwrap_or_else(|| unreachable!("policy '{}' is listed but not built", g.name()));
                let canonical = crate::policy::named::canonical(g, policy.entry.params.iter().map(|p| p.key));
                let spec = registry::keep(canonical.clone());
                Ok((PolicyKind::Registered(Registered { policy, spec }), canonical))
            }

            /// The policy's name without parameters (`cflru`).
            pub fn name(&self) -> &'static str {
                match self {
                    $(PolicyKind::$variant(_) => <$ty as Named>::ENTRY.name,)*
                    PolicyKind::Registered(r) => r.policy.entry.name,
                }
            }

            /// What the policy can serve as, as it declares.
            pub fn serves(&self) -> Serves {
                match self {
                    $(PolicyKind::$variant(_) => <$ty as Named>::SERVES,)*
                    PolicyKind::Registered(r) => r.policy.serves,
                }
            }
        }

        /// The built-in policies' names and what each serves as, in the
        /// table's order.
        pub static SERVING: &[(&str, Serves)] = &[$((<$ty as Named>::ENTRY.name, <$ty as Named>::SERVES)),*];

        impl PolicyKind {
            /// Builds the policy and hands it to `w`, monomorphised.
            pub(crate) fn visit<W: WithPolicy>(self, capacity: usize, pages: usize, w: W) -> Result<W::Out> {
                match self {
                    $(PolicyKind::$variant(p) => <$ty as Named>::visit(p, capacity, pages, w),)*
                    PolicyKind::Registered(r) => w.visit(r.build(capacity, pages)?),
                }
            }

            /// Builds the policy behind one pointer.
            pub(crate) fn boxed(self, capacity: usize, pages: usize) -> Result<BoxedPolicy> {
                match self {
                    $(PolicyKind::$variant(p) => <$ty as Named>::boxed(p, capacity, pages),)*
                    PolicyKind::Registered(r) => r.build(capacity, pages),
                }
            }
        }
    };
}

policies! {
    Lru => crate::policy::Lru,
    Fifo => crate::policy::Fifo,
    Clock => crate::policy::Clock,
    TwoQ => crate::policy::TwoQ,
    Arc => crate::policy::Arc,
    Sieve => crate::policy::Sieve,
    S3Fifo => crate::policy::S3Fifo,
    Lfu => crate::policy::Lfu,
    Slru => crate::policy::Slru,
    LruK => crate::policy::LruK,
    Lirs => crate::policy::Lirs,
    WTinyLfu => crate::policy::WTinyLfu,
    ClockPro => crate::policy::ClockPro,
    Belady => crate::policy::Belady<'static>,
    CostOptUb => crate::policy::CostOpt<'static>,
    WbLandlord => crate::policy::WbLandlord,
    Cflru => crate::policy::Cflru,
    LruWsr => crate::policy::LruWsr,
    CcfLru => crate::policy::CcfLru,
    Casa => crate::policy::Casa,
    Cfdc => crate::policy::Cfdc,
    Koltsidas => crate::policy::Koltsidas,
    FdBuffer => crate::policy::FdBuffer,
    Watt => crate::policy::Watt,
    Ace => crate::policy::Ace,
}

pub use crate::policy::write_aware::FdParams;

/// A registered policy ([`crate::policy::register`]) with its canonical spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registered {
    /// The policy.
    pub policy: &'static Registration,
    /// Its spec with every parameter written out.
    spec: &'static str,
}

impl Registered {
    /// Builds the policy with `capacity` pages, its per-page state
    /// pre-sized for dense ids `0..pages`.
    pub fn build(&self, capacity: usize, pages: usize) -> Result<BoxedPolicy> {
        let given = spec::parse(&POLICIES, self.spec)?;
        (self.policy.build)(&given, capacity, pages)
    }
}

/// A parsed policy name with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySpec {
    /// Which policy, with its parameters.
    pub kind: PolicyKind,
    /// The canonical spec.
    canonical: String,
}

impl PolicySpec {
    /// Parses one policy spec, `name[:key=value,...]`.
    pub fn parse(spec: &str) -> Result<Self> {
        if spec.trim().eq_ignore_ascii_case("costopt-lb") {
            return Err(crate::Error::invalid(
                "costopt-lb is a lower bound on every policy's cost, not a schedule to replay; \
                 compute it with 'flashlayer bound' (costopt-ub is the schedule that comes close)",
            ));
        }
        let g = spec::parse(&POLICIES, spec)?;
        let (kind, canonical) = PolicyKind::of(&g)?;
        Ok(PolicySpec { kind, canonical })
    }

    /// Parses a comma-separated list of specs by the one continuation rule
    /// ([`crate::spec::split_list`]): `lru,cflru:w=0.25,casa` is three
    /// policies, `cflru,w=0.75` one.
    pub fn parse_list(list: &str) -> Result<Vec<Self>> {
        spec::split_list(&POLICIES, list, Self::parse)
    }

    /// The spec with its parameters at their defaults left out (`cflru`
    /// for `cflru:w=0.5`): for tables people read.
    pub fn short(&self) -> String {
        spec::short(&POLICIES, &self.canonical)
    }

    /// The policy's name without parameters (`cflru`).
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// Whether the policy must see the whole trace before the run.
    pub fn is_offline(&self) -> bool {
        self.kind.serves().offline
    }
}

impl fmt::Display for PolicySpec {
    /// The canonical spec, every parameter written out (`cflru:w=0.5`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> String {
        PolicySpec::parse(s).unwrap().to_string()
    }

    fn err(s: &str) -> String {
        PolicySpec::parse(s).unwrap_err().to_string()
    }

    #[test]
    fn canonical_specs_fill_in_every_default() {
        assert_eq!(canon("LRU"), "lru");
        assert_eq!(canon("cflru"), "cflru:w=0.5");
        assert_eq!(canon("cflru:w=0.25"), "cflru:w=0.25");
        assert_eq!(canon("koltsidas"), "koltsidas:lambda=auto,epoch=4");
        assert_eq!(canon("koltsidas:lambda=0.5"), "koltsidas:lambda=0.5");
        assert_eq!(canon("koltsidas:lambda=0"), "koltsidas:lambda=0");
        assert_eq!(canon("casa"), "casa:cost=model");
        assert_eq!(canon("casa:cost=measured"), "casa:cost=measured,n=32768");
        assert_eq!(canon("casa:n=10,cost=measured"), "casa:cost=measured,n=10");
        assert_eq!(
            canon("fdbuffer"),
            "fdbuffer:mc=auto,clean=lru,dirty=lru,cluster=0,epoch=100000,cost=model"
        );
        assert_eq!(
            canon("fdbuffer:mc=0.3,dirty=ARC,cluster=64"),
            "fdbuffer:mc=0.3,clean=lru,dirty=arc,cluster=64"
        );
        assert_eq!(
            canon("fdbuffer:mc=1"),
            "fdbuffer:mc=1,clean=lru,dirty=lru,cluster=0"
        );
        assert_eq!(
            canon("fdbuffer:mc=1.0"),
            "fdbuffer:mc=1.0,clean=lru,dirty=lru,cluster=0"
        );
        assert!(err("fdbuffer:cluster=-3").contains("bad value '-3' for 'cluster'"));
        assert!(err("cfdc:cluster=-3").contains("bad value '-3' for 'cluster'"));
        assert_eq!(canon("cfdc"), "cfdc:w=0.5,cluster=64");
        assert_eq!(canon("s3fifo"), "s3fifo:small=0.1,ghost=0.9,threshold=2");
        for p in POLICIES.entries {
            let c = canon(p.name);
            assert_eq!(canon(&c), c, "canonical form parses to itself");
        }
    }

    #[test]
    fn bad_parameters_name_the_policy_the_key_and_the_range() {
        assert!(err("cflru:w=1.5")
            .contains("policy 'cflru': bad value '1.5' for 'w'; expected a fraction from 0 to 1"));
        assert!(err("koltsidas:lambda=2")
            .contains("bad value '2' for 'lambda'; expected auto, or a fraction from 0 to 1"));
        assert!(
            err("koltsidas:lambda=0.5,epoch=9").contains("'epoch' applies only with lambda=auto")
        );
        assert!(err("cflru:x=1").contains("policy 'cflru' has no parameter 'x'; its parameters: w"));
        assert!(err("lruwsr:w=0.5").contains("policy 'lruwsr' takes no parameters, got 'w'"));
        assert!(err("casa:cost=guess").contains("expected model or measured"));
        assert!(err("casa:n=5").contains("'n' applies only with cost=measured"));
        assert!(err("casa:cost=measured,n=0").contains("bad value '0' for 'n'"));
        assert!(err("cflru:w").contains("expected key=value"));
        assert!(err("cflru:w=0.1,w=0.2").contains("given twice"));
        assert!(err("lfru").contains("unknown policy 'lfru'"));
        assert!(err("lruk:k=9").contains("bad value '9' for 'k'"));
        assert!(err("clockpro:cold=0.6").contains("bad value '0.6' for 'cold'"));
        assert!(err("slru:segments=9").contains("bad value '9' for 'segments'"));
        assert!(err("s3fifo:threshold=300").contains("bad value '300' for 'threshold'"));
        assert!(err("fdbuffer:mc=-1").contains("bad value '-1' for 'mc'"));
        assert!(err("fdbuffer:mc=1.5").contains("bad value '1.5' for 'mc'"));
        assert!(err("fdbuffer:clean=nosuch").contains("bad value 'nosuch' for 'clean'"));
        // Belady sees the future: it serves no pool, and the error lists
        // those that do, as each declares (`Serves`).
        let belady = err("fdbuffer:clean=belady");
        let pools = crate::policy::nested::allowed(crate::policy::Role::Pool);
        assert!(belady.contains(&format!("expected {pools}")), "{belady}");
        assert!(
            pools.contains("lru, ") && !pools.contains("belady"),
            "{pools}"
        );
        assert!(err("fdbuffer:mc=10,epoch=5").contains("only with mc=auto"));
    }

    #[test]
    fn the_table_defaults_are_the_builders_defaults() {
        let auto = PolicySpec::parse("fdbuffer").unwrap();
        assert!(matches!(
            auto.kind,
            PolicyKind::FdBuffer(FdParams { mc: crate::policy::Mc::Auto { epoch }, .. }) if epoch == crate::policy::DEFAULT_EPOCH
        ));
        let k = PolicySpec::parse("koltsidas").unwrap();
        assert!(matches!(
            k.kind,
            PolicyKind::Koltsidas(crate::policy::Lambda::Auto { epoch })
                if epoch == crate::policy::DEFAULT_LAMBDA_EPOCH
        ));
        let c = PolicySpec::parse("costopt-ub").unwrap();
        assert_eq!(
            c.kind,
            PolicyKind::CostOptUb(crate::policy::DEFAULT_ITERATIONS)
        );
    }

    #[test]
    fn tables_show_the_short_spec() {
        let s = |t: &str| PolicySpec::parse(t).unwrap().short();
        assert_eq!(s("fdbuffer"), "fdbuffer");
        assert_eq!(s("fdbuffer:cluster=64"), "fdbuffer:cluster=64");
        assert_eq!(s("cflru:w=0.25"), "cflru:w=0.25");
        assert_eq!(s("casa:cost=measured"), "casa:cost=measured");
    }

    #[test]
    fn key_value_pieces_of_a_list_continue_the_policy_before_them() {
        let l = PolicySpec::parse_list("lru, cflru:w=0.25 ,casa:cost=measured,n=64,arc").unwrap();
        let names: Vec<String> = l.iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            ["lru", "cflru:w=0.25", "casa:cost=measured,n=64", "arc"]
        );
        // A bare name followed by parameters gets its colon.
        let l = PolicySpec::parse_list("cflru,w=0.75").unwrap();
        assert_eq!(l[0].to_string(), "cflru:w=0.75");
        assert!(PolicySpec::parse_list("w=0.5,lru").is_err());
        assert!(PolicySpec::parse_list(" , ").is_err());
    }
}
