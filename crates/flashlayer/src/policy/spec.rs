//! Policy names as users type them, with parameters: `lru`, `cflru:w=0.5`,
//! `casa:cost=measured,n=1024`: the policies' table ([`POLICIES`]) of the
//! one grammar ([`crate::spec`]), which serves the CLI, Python and Rust.
//! Every parameter has a default, written once in the table;
//! [`PolicySpec`]'s `Display` writes the canonical form with every default
//! filled in (`cflru:w=0.5`), which is what result rows carry.

pub use super::costs::CostSource;
use super::fdbuffer::{BasePolicy, Mc};
use super::registry::{self, Registration};
use super::BoxedPolicy;
use crate::error::Result;
use crate::spec::{self, Entry, Given, Param, Table, Ty, NO_MAX};
use std::fmt;

/// The policies the engine can build by name, with their parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PolicyKind {
    /// [`super::Lru`]
    Lru,
    /// [`super::Fifo`]
    Fifo,
    /// [`super::Clock`]
    Clock,
    /// [`super::TwoQ`]
    TwoQ,
    /// [`super::Arc`]
    Arc,
    /// [`super::Sieve`]
    Sieve,
    /// [`super::S3Fifo`]
    S3Fifo {
        /// The small queue's share of the buffer.
        small: f64,
        /// The ghost queue's entries as a share of the buffer's pages.
        ghost: f64,
        /// Frequency at which a page leaving the small queue moves to main.
        threshold: u8,
    },
    /// [`super::Lfu`]
    Lfu,
    /// [`super::LruK`]
    LruK {
        /// K: the reference whose age orders pages.
        k: usize,
    },
    /// [`super::Slru`]
    Slru {
        /// Number of segments.
        segments: usize,
    },
    /// [`super::Lirs`]
    Lirs {
        /// Resident HIR pages' share of the buffer.
        hirs: f64,
    },
    /// [`super::WTinyLfu`]
    WTinyLfu {
        /// The window's share of the buffer.
        window: f64,
    },
    /// [`super::ClockPro`]
    ClockPro {
        /// The least share of the buffer the resident cold pages target.
        cold: f64,
    },
    /// [`super::Belady`] (offline)
    Belady,
    /// [`super::CostOpt`] (offline): the schedule of the cost-optimal
    /// bound's planner, [`crate::bound`].
    CostOptUb {
        /// Subgradient iterations of the planner.
        iterations: usize,
    },
    /// [`super::WbLandlord`]
    WbLandlord,
    /// [`super::Cflru`] with clean-first window `w` (a fraction of the buffer).
    Cflru {
        /// Window as a fraction of the buffer, in `[0, 1]`.
        w: f64,
    },
    /// [`super::LruWsr`]
    LruWsr,
    /// [`super::CcfLru`]
    CcfLru,
    /// [`super::Casa`]
    Casa {
        /// Where c_R and c_W come from.
        cost: CostSource,
    },
    /// [`super::Cfdc`]
    Cfdc {
        /// Priority region as a fraction of the buffer, in `[0, 1]`.
        w: f64,
        /// Largest cluster in pages (0: every dirty page alone).
        cluster: usize,
    },
    /// [`super::Koltsidas`]
    Koltsidas {
        /// The cost segment's share of the buffer, or adapted.
        lambda: super::Lambda,
    },
    /// [`super::FdBuffer`]
    FdBuffer {
        /// How M_c is set.
        mc: Mc,
        /// The clean pool's policy (one of [`BASE_POLICIES`], or registered).
        clean: BasePolicy,
        /// The dirty pool's policy (one of [`BASE_POLICIES`], or registered).
        dirty: BasePolicy,
        /// Where `mc=auto` takes the asymmetry from.
        cost: CostSource,
        /// Write clustering: dirty neighbours written with each victim.
        cluster: usize,
    },
    /// A policy added at run time ([`super::register`]).
    Registered(Registered),
}

/// A registered policy ([`super::register`]) with its canonical spec.
#[derive(Clone, Copy, Debug, PartialEq)]
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

pub use super::fdbuffer::{BASE_ALLOWED, BASE_POLICIES};

const S3_SMALL: Param = Param {
    key: "small",
    ty: Ty::Fraction,
    default: "0.1",
    help: "the small FIFO's share of the buffer, where new pages enter (libCacheSim's default)",
};
const S3_GHOST: Param = Param {
    key: "ghost",
    ty: Ty::Fraction,
    default: "0.9",
    help: "pages the ghost FIFO remembers after they leave the small FIFO, as a share of the buffer's pages",
};
const S3_THRESHOLD: Param = Param {
    key: "threshold",
    ty: Ty::Int(1, u8::MAX as u64),
    default: "2",
    help: "hits a page needs in the small FIFO to move to the main FIFO when it reaches the small FIFO's end",
};
const K: Param = Param {
    key: "k",
    ty: Ty::Int(1, super::lruk::MAX_K as u64),
    default: "2",
    help: "K: pages are ordered by the time of their K-th most recent reference (1 is LRU)",
};
const SEGMENTS: Param = Param {
    key: "segments",
    ty: Ty::Int(1, super::slru::MAX_SEGMENTS as u64),
    default: "4",
    help: "LRU segments, each a share of the buffer; a hit moves a page one segment up (libCacheSim's 4; the paper's 2)",
};
const HIRS: Param = Param {
    key: "hirs",
    ty: Ty::Fraction,
    default: "0.01",
    help: "share of the buffer for resident HIR pages, at least one page (the paper's and libCacheSim's 1%)",
};
const WINDOW: Param = Param {
    key: "window",
    ty: Ty::Fraction,
    default: "0.01",
    help: "share of the buffer for the LRU window new pages enter (libCacheSim's 1%)",
};
const COLD: Param = Param {
    key: "cold",
    ty: Ty::FractionTo(0.5),
    default: "0.01",
    help: "least share of the buffer the resident cold pages target, and where the target starts; \
           the most is 1 - cold (the authors' reference simulator's 1%, at least one page)",
};
const ITERATIONS: Param = Param {
    key: "iterations",
    ty: Ty::Int(0, NO_MAX),
    default: "100",
    help: "subgradient iterations of the planner (more: a tighter lower bound, a schedule found among more prices)",
};
const W: Param = Param {
    key: "w",
    ty: Ty::Fraction,
    default: "0.5",
    help: "size of the clean-first region at the LRU end, as a share of the buffer",
};
const LAMBDA: Param = Param {
    key: "lambda",
    ty: Ty::FractionOrAuto,
    default: "auto",
    help: "size of the cost segment (0: LRU); auto adapts it by §5's criterion r_m·H_m > r_f·M_f",
};
const LAMBDA_EPOCH: Param = Param {
    key: "epoch",
    ty: Ty::Int(1, NO_MAX),
    default: "4",
    help: "with lambda=auto: requests between adjustments of λ, in multiples of the buffer size",
};
const COST: Param = Param {
    key: "cost",
    ty: Ty::Choice(&["model", "measured"]),
    default: "model",
    help: "c_R and c_W from the device model, or from the store's measured latencies (CASA §5.3)",
};
const MC: Param = Param {
    key: "mc",
    ty: Ty::Other("auto, a whole number of pages (0 to B), or a fraction of the buffer written with a point (0.0 to 1.0)"),
    default: "auto",
    help: "size threshold M_c of the clean pool; auto adapts it from both pools' miss-ratio curves",
};
const CLEAN: Param = Param {
    key: "clean",
    ty: Ty::Other(BASE_ALLOWED),
    default: "lru",
    help: "replacement policy of the clean pool (an online policy)",
};
const DIRTY: Param = Param {
    key: "dirty",
    ty: Ty::Other(BASE_ALLOWED),
    default: "lru",
    help: "replacement policy of the dirty pool (an online policy)",
};
const EPOCH: Param = Param {
    key: "epoch",
    ty: Ty::Int(1, NO_MAX),
    default: "100000",
    help: "with mc=auto: requests between two decisions of M_c",
};
const FD_COST: Param = Param {
    key: "cost",
    ty: Ty::Choice(&["model", "measured"]),
    default: "model",
    help: "with mc=auto: the asymmetry R from the device model, or from the store's measured latencies",
};
const CFDC_W: Param = Param {
    key: "w",
    ty: Ty::Fraction,
    default: "0.5",
    help: "size of the priority region at the LRU end, as a share of the buffer",
};
const CFDC_CLUSTER: Param = Param {
    key: "cluster",
    ty: Ty::Int(0, NO_MAX),
    default: "64",
    help: "largest cluster of dirty pages with neighbouring page numbers, written in one batch (0: none)",
};
const CLUSTER: Param = Param {
    key: "cluster",
    ty: Ty::Int(0, NO_MAX),
    default: "0",
    help: "write clustering: up to this many dirty pages with neighbouring page numbers go with each write-back (0: none)",
};
/// The longest window of measured latencies: two arrays of this many
/// points (8 MiB each).
const MAX_N: u64 = 1 << 20;
const N: Param = Param {
    key: "n",
    ty: Ty::Int(1, MAX_N),
    default: "32768",
    help: "with cost=measured: points in the moving average of measured read and write latencies \
           (CASA §5.3 leaves n open: long enough to smooth a flash device's garbage-collection spikes)",
};

/// Every policy: the policies' table of the one grammar.
pub static POLICIES: Table = Table {
    what: "policy",
    entries: &[
        Entry {
            name: "lru",
            description: "least recently used",
            params: &[],
        },
        Entry {
            name: "fifo",
            description: "first in, first out",
            params: &[],
        },
        Entry {
            name: "clock",
            description: "second chance with a reference bit per frame, set on admission too (libCacheSim's only on hits)",
            params: &[],
        },
        Entry {
            name: "2q",
            description: "2Q, Johnson & Shasha 1994 (Kin 25%, Kout 50%)",
            params: &[],
        },
        Entry {
            name: "arc",
            description: "ARC, Megiddo & Modha 2003",
            params: &[],
        },
        Entry {
            name: "sieve",
            description: "SIEVE, Zhang et al. 2024: a FIFO queue and a hand that spares visited pages once",
            params: &[],
        },
        Entry {
            name: "s3fifo",
            description: "S3-FIFO, Yang et al. 2023: a small and a main FIFO with frequencies, and a ghost FIFO",
            params: &[S3_SMALL, S3_GHOST, S3_THRESHOLD],
        },
        Entry {
            name: "lfu",
            description: "least frequently used since admission, ties to the least recently promoted",
            params: &[],
        },
        Entry {
            name: "slru",
            description: "segmented LRU, Karedla et al. 1994: a hit moves a page one segment up, overflow moves down",
            params: &[SEGMENTS],
        },
        Entry {
            name: "lruk",
            description: "LRU-K, O'Neil et al. 1993: the oldest K-th most recent reference leaves; pages with fewer first",
            params: &[K],
        },
        Entry {
            name: "lirs",
            description: "LIRS, Jiang & Zhang 2002: pages of low inter-reference recency hold the buffer, the rest share hirs of it; \
                          a hit on a resident HIR page outside S only moves it, as the paper says (libCacheSim's also demotes a LIR page)",
            params: &[HIRS],
        },
        Entry {
            name: "wtinylfu",
            description: "W-TinyLFU, Einziger et al. 2017: an LRU window, an SLRU main cache, and a frequency sketch \
                          that admits the window's oldest page only if it beats main's victim (our sketch's layout: near libCacheSim's)",
            params: &[WINDOW],
        },
        Entry {
            name: "clockpro",
            description: "CLOCK-Pro, Jiang et al. 2005: LIRS's reuse-distance test on one clock with three hands; \
                          hits set a bit, the resident cold target adapts (not compared with libCacheSim's, which stops evicting)",
            params: &[COLD],
        },
        Entry {
            name: "belady",
            description: "offline MIN, miss-optimal; clean pages first among never-reused",
            params: &[],
        },
        Entry {
            name: "costopt-ub",
            description: "offline, writeback-aware: the cheapest schedule the cost-optimal bound's planner finds (never above Belady)",
            params: &[ITERATIONS],
        },
        Entry {
            name: "wblandlord",
            description: "Writeback-Aware Landlord, Beckmann et al. 2020: credits of read cost plus pending write-back",
            params: &[],
        },
        Entry {
            name: "cflru",
            description: "clean-first LRU, Park et al. 2006: the LRU clean page of the last w·B pages goes first",
            params: &[W],
        },
        Entry {
            name: "lruwsr",
            description: "LRU with write sequence reordering, Jung et al. 2008: dirty pages get a cold mark and a second chance",
            params: &[],
        },
        Entry {
            name: "ccflru",
            description: "cold-clean-first LRU, Li et al. 2009: cold-clean, cold-dirty, hot-clean, hot-dirty",
            params: &[],
        },
        Entry {
            name: "casa",
            description: "cost-aware self-adaptive, Ou & Härder 2010: clean and dirty lists, target |C| = τ tuned by hits",
            params: &[COST, N],
        },
        Entry {
            name: "cfdc",
            description: "clean-first dirty-clustered, Ou, Härder & Jin 2009: clean pages of the priority region first, then dirty clusters by priority, each written in one batch",
            params: &[CFDC_W, CFDC_CLUSTER],
        },
        Entry {
            name: "koltsidas",
            description: "cost-segment buffer, Koltsidas & Viglas 2008 §5: a time segment in LRU order and a cost segment of the λB least recent pages, evicted cheapest class first",
            params: &[LAMBDA, LAMBDA_EPOCH],
        },
        Entry {
            name: "fdbuffer",
            description: "FD-Buffer, On et al. 2010: clean and dirty pools, each with its own policy, split at M_c",
            params: &[MC, CLEAN, DIRTY, CLUSTER, EPOCH, FD_COST, N],
        },
    ],
    more: Some(super::registry::entries),
};

/// A parsed policy name with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySpec {
    /// Which policy, with its parameters.
    pub kind: PolicyKind,
}

/// `cost=model|measured` and its `n`; `n` only with `measured`.
fn cost_source(g: &Given) -> Result<CostSource> {
    match g.choice("cost") {
        "model" if g.has("n") => Err(g.error("'n' applies only with cost=measured")),
        "model" => Ok(CostSource::Model),
        _ => Ok(CostSource::Measured {
            n: g.int("n") as usize,
        }),
    }
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
        let kind = match g.name() {
            "lru" => PolicyKind::Lru,
            "fifo" => PolicyKind::Fifo,
            "clock" => PolicyKind::Clock,
            "2q" => PolicyKind::TwoQ,
            "arc" => PolicyKind::Arc,
            "sieve" => PolicyKind::Sieve,
            "s3fifo" => PolicyKind::S3Fifo {
                small: g.fraction("small"),
                ghost: g.fraction("ghost"),
                threshold: g.int("threshold") as u8,
            },
            "lfu" => PolicyKind::Lfu,
            "lruk" => PolicyKind::LruK {
                k: g.int("k") as usize,
            },
            "slru" => PolicyKind::Slru {
                segments: g.int("segments") as usize,
            },
            "lirs" => PolicyKind::Lirs {
                hirs: g.fraction("hirs"),
            },
            "wtinylfu" => PolicyKind::WTinyLfu {
                window: g.fraction("window"),
            },
            "clockpro" => PolicyKind::ClockPro {
                cold: g.fraction("cold"),
            },
            "belady" => PolicyKind::Belady,
            "costopt-ub" => PolicyKind::CostOptUb {
                iterations: g.int("iterations") as usize,
            },
            "wblandlord" => PolicyKind::WbLandlord,
            "lruwsr" => PolicyKind::LruWsr,
            "ccflru" => PolicyKind::CcfLru,
            "cflru" => PolicyKind::Cflru { w: g.fraction("w") },
            "casa" => PolicyKind::Casa {
                cost: cost_source(&g)?,
            },
            "cfdc" => PolicyKind::Cfdc {
                w: g.fraction("w"),
                cluster: g.int("cluster") as usize,
            },
            "koltsidas" => PolicyKind::Koltsidas {
                lambda: match g.fraction_or_auto("lambda") {
                    Some(_) if g.has("epoch") => {
                        return Err(g.error("'epoch' applies only with lambda=auto"))
                    }
                    Some(x) => super::Lambda::Fixed(x),
                    None => super::Lambda::Auto {
                        epoch: g.int("epoch"),
                    },
                },
            },
            "fdbuffer" => {
                let v = g.value("mc");
                let mc = match v.as_str() {
                    "auto" => None,
                    v if v.contains('.') => match v.parse::<f64>() {
                        Ok(f) if (0.0..=1.0).contains(&f) => Some(Mc::Share(f)),
                        _ => return Err(g.bad("mc", v)),
                    },
                    v => match v.parse::<usize>() {
                        Ok(k) => Some(Mc::Pages(k)),
                        _ => return Err(g.bad("mc", v)),
                    },
                };
                let base = |key| {
                    let v = g.value(key);
                    BasePolicy::of(&v).ok_or_else(|| g.bad(key, &v))
                };
                if mc.is_some() && ["epoch", "cost", "n"].iter().any(|k| g.has(k)) {
                    return Err(g.error("'epoch', 'cost' and 'n' apply only with mc=auto"));
                }
                PolicyKind::FdBuffer {
                    mc: mc.unwrap_or_else(|| Mc::Auto {
                        epoch: g.int("epoch"),
                    }),
                    clean: base("clean")?,
                    dirty: base("dirty")?,
                    cost: cost_source(&g)?,
                    cluster: g.int("cluster") as usize,
                }
            }
            other => {
                let policy = registry::find(other)
                    .unwrap_or_else(|| unreachable!("policy '{other}' is listed but not built"));
                let pairs: Vec<String> = policy
                    .entry
                    .params
                    .iter()
                    .map(|p| format!("{}={}", p.key, g.value(p.key)))
                    .collect();
                let canonical = match pairs.is_empty() {
                    true => other.to_owned(),
                    false => format!("{other}:{}", pairs.join(",")),
                };
                PolicyKind::Registered(Registered {
                    policy,
                    spec: registry::keep(canonical),
                })
            }
        };
        Ok(PolicySpec { kind })
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
        spec::short(&POLICIES, &self.to_string())
    }

    /// The policy's name without parameters (`cflru`).
    pub fn name(&self) -> &'static str {
        match self.kind {
            PolicyKind::Lru => "lru",
            PolicyKind::Fifo => "fifo",
            PolicyKind::Clock => "clock",
            PolicyKind::TwoQ => "2q",
            PolicyKind::Arc => "arc",
            PolicyKind::Sieve => "sieve",
            PolicyKind::S3Fifo { .. } => "s3fifo",
            PolicyKind::Lfu => "lfu",
            PolicyKind::Slru { .. } => "slru",
            PolicyKind::LruK { .. } => "lruk",
            PolicyKind::Lirs { .. } => "lirs",
            PolicyKind::WTinyLfu { .. } => "wtinylfu",
            PolicyKind::ClockPro { .. } => "clockpro",
            PolicyKind::Belady => "belady",
            PolicyKind::CostOptUb { .. } => "costopt-ub",
            PolicyKind::WbLandlord => "wblandlord",
            PolicyKind::Cflru { .. } => "cflru",
            PolicyKind::LruWsr => "lruwsr",
            PolicyKind::CcfLru => "ccflru",
            PolicyKind::Casa { .. } => "casa",
            PolicyKind::Cfdc { .. } => "cfdc",
            PolicyKind::Koltsidas { .. } => "koltsidas",
            PolicyKind::FdBuffer { .. } => "fdbuffer",
            PolicyKind::Registered(r) => r.policy.entry.name,
        }
    }

    /// Whether the policy must see the whole trace before the run.
    pub fn is_offline(&self) -> bool {
        matches!(self.kind, PolicyKind::Belady | PolicyKind::CostOptUb { .. })
    }
}

impl fmt::Display for PolicySpec {
    /// The canonical spec, every parameter written out (`cflru:w=0.5`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let PolicyKind::Registered(r) = self.kind {
            return f.write_str(r.spec);
        }
        f.write_str(self.name())?;
        match self.kind {
            PolicyKind::Cflru { w } => write!(f, ":w={w}"),
            PolicyKind::CostOptUb { iterations } => write!(f, ":iterations={iterations}"),
            PolicyKind::Cfdc { w, cluster } => write!(f, ":w={w},cluster={cluster}"),
            PolicyKind::S3Fifo {
                small,
                ghost,
                threshold,
            } => write!(f, ":small={small},ghost={ghost},threshold={threshold}"),
            PolicyKind::Slru { segments } => write!(f, ":segments={segments}"),
            PolicyKind::LruK { k } => write!(f, ":k={k}"),
            PolicyKind::Lirs { hirs } => write!(f, ":hirs={hirs}"),
            PolicyKind::WTinyLfu { window } => write!(f, ":window={window}"),
            PolicyKind::ClockPro { cold } => write!(f, ":cold={cold}"),
            PolicyKind::Koltsidas {
                lambda: super::Lambda::Fixed(x),
            } => write!(f, ":lambda={x}"),
            PolicyKind::Koltsidas {
                lambda: super::Lambda::Auto { epoch },
            } => write!(f, ":lambda=auto,epoch={epoch}"),
            PolicyKind::Casa {
                cost: CostSource::Model,
            } => f.write_str(":cost=model"),
            PolicyKind::Casa {
                cost: CostSource::Measured { n },
            } => write!(f, ":cost=measured,n={n}"),
            PolicyKind::FdBuffer {
                mc,
                clean,
                dirty,
                cost,
                cluster,
            } => {
                match mc {
                    Mc::Pages(k) => write!(f, ":mc={k}")?,
                    Mc::Share(x) => write!(f, ":mc={x:?}")?,
                    Mc::Auto { .. } => f.write_str(":mc=auto")?,
                }
                write!(
                    f,
                    ",clean={},dirty={},cluster={cluster}",
                    clean.name(),
                    dirty.name()
                )?;
                if let Mc::Auto { epoch } = mc {
                    write!(f, ",epoch={epoch}")?;
                    match cost {
                        CostSource::Model => f.write_str(",cost=model")?,
                        CostSource::Measured { n } => write!(f, ",cost=measured,n={n}")?,
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
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
        assert!(err("fdbuffer:clean=belady").contains(
            "expected an online policy at its defaults: lru, fifo, clock, 2q, arc, sieve, s3fifo, lfu, \
             slru, lruk, lirs, wtinylfu, clockpro, or one registered at run time"
        ));
        assert!(err("fdbuffer:mc=10,epoch=5").contains("only with mc=auto"));
    }

    #[test]
    fn the_table_defaults_are_the_builders_defaults() {
        let auto = PolicySpec::parse("fdbuffer").unwrap();
        assert!(matches!(
            auto.kind,
            PolicyKind::FdBuffer { mc: Mc::Auto { epoch }, .. } if epoch == super::super::DEFAULT_EPOCH
        ));
        let k = PolicySpec::parse("koltsidas").unwrap();
        assert!(matches!(
            k.kind,
            PolicyKind::Koltsidas { lambda: super::super::Lambda::Auto { epoch } }
                if epoch == super::super::DEFAULT_LAMBDA_EPOCH
        ));
        let c = PolicySpec::parse("costopt-ub").unwrap();
        assert_eq!(
            c.kind,
            PolicyKind::CostOptUb {
                iterations: super::super::DEFAULT_ITERATIONS
            }
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
