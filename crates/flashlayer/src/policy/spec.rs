//! Policy names as users type them, with parameters: `lru`, `cflru:w=0.5`,
//! `casa:cost=measured,n=1024`. One parser serves the CLI, Python and Rust.
//!
//! Grammar: `name[:key=value[,key=value]...]`, case-insensitive names and
//! keys. In a list (`lru,cflru:w=0.25,casa`) a piece of the form `key=value`
//! continues the parameters of the policy before it, so lists need no other
//! quoting. Every parameter has a default; [`PolicySpec`]'s `Display` writes
//! the canonical form with every default filled in (`cflru:w=0.5`), which
//! is what result rows carry.

use super::fdbuffer::{Mc, DEFAULT_EPOCH};
use crate::error::{Error, Result};
use std::fmt;

/// Where a cost-aware policy takes the device's read/write costs from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostSource {
    /// The `PageCost` of the device model, passed with each admitted page.
    Model,
    /// An `n`-point moving average of the latencies the store measures
    /// ([`crate::policy::Policy::observe_io`]), CASA §5.3.
    Measured {
        /// Points in each moving average.
        n: usize,
    },
}

/// Default moving-average window of `cost=measured` (CASA §5.3 leaves `n`
/// open): long enough to smooth a flash device's garbage-collection spikes.
pub const DEFAULT_MEASURED_WINDOW: usize = 32_768;

/// Default clean-first window of CFLRU, as a fraction of the buffer.
pub const DEFAULT_CFLRU_WINDOW: f64 = 0.5;

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
        /// The clean pool's policy (one of [`BASE_POLICIES`]).
        clean: &'static str,
        /// The dirty pool's policy (one of [`BASE_POLICIES`]).
        dirty: &'static str,
        /// Where `mc=auto` takes the asymmetry from.
        cost: CostSource,
        /// Write clustering: dirty neighbours written with each victim.
        cluster: usize,
    },
}

/// Policies that can manage a pool of FD-Buffer: online, one per pool.
pub const BASE_POLICIES: &[&str] = &["lru", "fifo", "clock", "2q", "arc"];

/// One parameter of a policy, for `--help`, `flashlayer list policies` and
/// error messages.
#[derive(Clone, Copy, Debug)]
pub struct ParamInfo {
    /// Key as typed.
    pub key: &'static str,
    /// Default value as typed.
    pub default: &'static str,
    /// Allowed values, in words.
    pub allowed: &'static str,
    /// What it does.
    pub help: &'static str,
}

/// A policy the engine can build by name.
#[derive(Clone, Copy, Debug)]
pub struct PolicyInfo {
    /// Name as typed.
    pub name: &'static str,
    /// One-line description with its source.
    pub description: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
}

const ITERATIONS: ParamInfo = ParamInfo {
    key: "iterations",
    default: "100",
    allowed: "an integer ≥ 0",
    help: "subgradient iterations of the planner (more: a tighter lower bound, a schedule found among more prices)",
};
const W: ParamInfo = ParamInfo {
    key: "w",
    default: "0.5",
    allowed: "a fraction of the buffer from 0 to 1",
    help: "size of the clean-first region at the LRU end",
};
const LAMBDA: ParamInfo = ParamInfo {
    key: "lambda",
    default: "auto",
    allowed: "a fraction of the buffer from 0 to 1, or auto",
    help: "size of the cost segment (0: LRU); auto adapts it by §5's criterion r_m·H_m > r_f·M_f",
};
const LAMBDA_EPOCH: ParamInfo = ParamInfo {
    key: "epoch",
    default: "4",
    allowed: "an integer ≥ 1 (buffers of requests)",
    help: "with lambda=auto: requests between adjustments of λ, in multiples of the buffer size",
};
const COST: ParamInfo = ParamInfo {
    key: "cost",
    default: "model",
    allowed: "model or measured",
    help: "c_R and c_W from the device model, or from the store's measured latencies (CASA §5.3)",
};
const MC: ParamInfo = ParamInfo {
    key: "mc",
    default: "auto",
    allowed: "auto, a whole number of pages (0 to B), or a fraction of the buffer written with a point (0.0 to 1.0)",
    help: "size threshold M_c of the clean pool; auto adapts it from both pools' miss-ratio curves",
};
const CLEAN: ParamInfo = ParamInfo {
    key: "clean",
    default: "lru",
    allowed: "lru, fifo, clock, 2q or arc",
    help: "replacement policy of the clean pool",
};
const DIRTY: ParamInfo = ParamInfo {
    key: "dirty",
    default: "lru",
    allowed: "lru, fifo, clock, 2q or arc",
    help: "replacement policy of the dirty pool",
};
const EPOCH: ParamInfo = ParamInfo {
    key: "epoch",
    default: "100000",
    allowed: "an integer of at least 1, with mc=auto only",
    help: "requests between two decisions of mc=auto",
};
const FD_COST: ParamInfo = ParamInfo {
    key: "cost",
    default: "model",
    allowed: "model or measured, with mc=auto only",
    help: "the asymmetry R from the device model, or from the store's measured latencies",
};
const CFDC_W: ParamInfo = ParamInfo {
    key: "w",
    default: "0.5",
    allowed: "a fraction of the buffer from 0 to 1",
    help: "size of the priority region at the LRU end",
};
const CFDC_CLUSTER: ParamInfo = ParamInfo {
    key: "cluster",
    default: "64",
    allowed: "a whole number of pages, 0 for none",
    help: "largest cluster of dirty pages with neighbouring page numbers, written in one batch",
};
const CLUSTER: ParamInfo = ParamInfo {
    key: "cluster",
    default: "0",
    allowed: "a whole number of pages, 0 for none",
    help: "write clustering: up to this many dirty pages with neighbouring page numbers go with each write-back",
};
const N: ParamInfo = ParamInfo {
    key: "n",
    default: "32768",
    allowed: "an integer of at least 1, with cost=measured only",
    help: "points in the moving average of measured read and write latencies",
};

/// Every policy, for `--help`, listings and errors.
pub const POLICIES: &[PolicyInfo] = &[
    PolicyInfo {
        name: "lru",
        description: "least recently used",
        params: &[],
    },
    PolicyInfo {
        name: "fifo",
        description: "first in, first out",
        params: &[],
    },
    PolicyInfo {
        name: "clock",
        description: "second chance with a reference bit per frame",
        params: &[],
    },
    PolicyInfo {
        name: "2q",
        description: "2Q, Johnson & Shasha 1994 (Kin 25%, Kout 50%)",
        params: &[],
    },
    PolicyInfo {
        name: "arc",
        description: "ARC, Megiddo & Modha 2003",
        params: &[],
    },
    PolicyInfo {
        name: "belady",
        description: "offline MIN, miss-optimal; clean pages first among never-reused",
        params: &[],
    },
    PolicyInfo {
        name: "costopt-ub",
        description: "offline, writeback-aware: the cheapest schedule the cost-optimal bound's planner finds (never above Belady)",
        params: &[ITERATIONS],
    },
    PolicyInfo {
        name: "wblandlord",
        description: "Writeback-Aware Landlord, Beckmann et al. 2020: credits of read cost plus pending write-back",
        params: &[],
    },
    PolicyInfo {
        name: "cflru",
        description: "clean-first LRU, Park et al. 2006: the LRU clean page of the last w·B pages goes first",
        params: &[W],
    },
    PolicyInfo {
        name: "lruwsr",
        description: "LRU with write sequence reordering, Jung et al. 2008: dirty pages get a cold mark and a second chance",
        params: &[],
    },
    PolicyInfo {
        name: "ccflru",
        description: "cold-clean-first LRU, Li et al. 2009: cold-clean, cold-dirty, hot-clean, hot-dirty",
        params: &[],
    },
    PolicyInfo {
        name: "casa",
        description: "cost-aware self-adaptive, Ou & Härder 2010: clean and dirty lists, target |C| = τ tuned by hits",
        params: &[COST, N],
    },
    PolicyInfo {
        name: "cfdc",
        description: "clean-first dirty-clustered, Ou, Härder & Jin 2009: clean pages of the priority region first, then dirty clusters by priority, each written in one batch",
        params: &[CFDC_W, CFDC_CLUSTER],
    },
    PolicyInfo {
        name: "koltsidas",
        description: "cost-segment buffer, Koltsidas & Viglas 2008 §5: a time segment in LRU order and a cost segment of the λB least recent pages, evicted cheapest class first",
        params: &[LAMBDA, LAMBDA_EPOCH],
    },
    PolicyInfo {
        name: "fdbuffer",
        description: "FD-Buffer, On et al. 2010: clean and dirty pools, each with its own policy, split at M_c",
        params: &[MC, CLEAN, DIRTY, CLUSTER, EPOCH, FD_COST, N],
    },
];

/// A parsed policy name with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySpec {
    /// Which policy, with its parameters.
    pub kind: PolicyKind,
}

fn info(name: &str) -> Option<&'static PolicyInfo> {
    POLICIES.iter().find(|p| p.name == name)
}

fn unknown_policy(name: &str) -> Error {
    let valid: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
    Error::invalid(format!(
        "unknown policy '{name}'; valid policies: {}",
        valid.join(", ")
    ))
}

/// The `key=value` pairs of one spec, consumed by the builder of its kind.
struct Params<'a> {
    policy: &'static PolicyInfo,
    pairs: Vec<(String, &'a str)>,
}

impl Params<'_> {
    fn bad(&self, key: &str, value: &str) -> Error {
        let allowed = self
            .policy
            .params
            .iter()
            .find(|p| p.key == key)
            .map_or("", |p| p.allowed);
        Error::invalid(format!(
            "policy '{}': bad value '{value}' for '{key}'; expected {allowed}",
            self.policy.name
        ))
    }

    fn take(&mut self, key: &str) -> Option<String> {
        let i = self.pairs.iter().position(|(k, _)| k == key)?;
        Some(self.pairs.remove(i).1.trim().to_ascii_lowercase())
    }

    fn int(&mut self, key: &str, default: usize, min: usize) -> Result<usize> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => match v.parse::<usize>() {
                Ok(x) if x >= min => Ok(x),
                _ => Err(self.bad(key, &v)),
            },
        }
    }

    /// `cost=model|measured` and its `n`; `n` only with `measured`.
    fn cost_source(&mut self) -> Result<CostSource> {
        let cost = self.take("cost");
        let n = self.take("n");
        let name = self.policy.name;
        match (cost.as_deref(), n) {
            (None | Some("model"), None) => Ok(CostSource::Model),
            (None | Some("model"), Some(_)) => Err(Error::invalid(format!(
                "policy '{name}': 'n' applies only with cost=measured"
            ))),
            (Some("measured"), n) => Ok(CostSource::Measured {
                n: match n {
                    None => DEFAULT_MEASURED_WINDOW,
                    Some(v) => match v.parse::<usize>() {
                        Ok(x) if x >= 1 => x,
                        _ => return Err(self.bad("n", &v)),
                    },
                },
            }),
            (Some(other), _) => Err(self.bad("cost", other)),
        }
    }

    /// A pool's policy: one of [`BASE_POLICIES`].
    fn base(&mut self, key: &str) -> Result<&'static str> {
        let Some(v) = self.take(key) else {
            return Ok("lru");
        };
        if let Some(&b) = BASE_POLICIES.iter().find(|&&b| b == v) {
            return Ok(b);
        }
        if v == "belady" {
            return Err(Error::invalid(format!(
                "policy '{}': '{key}=belady' is offline (it must see the whole trace); a pool needs \
                 an online policy: {}",
                self.policy.name,
                BASE_POLICIES.join(", ")
            )));
        }
        Err(self.bad(key, &v))
    }

    fn fraction(&mut self, key: &str, default: f64) -> Result<f64> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
                _ => Err(self.bad(key, &v)),
            },
        }
    }

    fn done(self) -> Result<()> {
        match self.pairs.first() {
            None => Ok(()),
            Some((k, _)) => {
                let keys: Vec<&str> = self.policy.params.iter().map(|p| p.key).collect();
                Err(Error::invalid(if keys.is_empty() {
                    format!(
                        "policy '{}' takes no parameters, got '{k}'",
                        self.policy.name
                    )
                } else {
                    format!(
                        "policy '{}' has no parameter '{k}'; its parameters: {}",
                        self.policy.name,
                        keys.join(", ")
                    )
                }))
            }
        }
    }
}

impl PolicySpec {
    /// Parses one policy spec, `name[:key=value,...]`.
    pub fn parse(spec: &str) -> Result<Self> {
        let spec = spec.trim();
        let (name, rest) = match spec.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (spec, None),
        };
        let lower = name.to_ascii_lowercase();
        if lower == "costopt-lb" {
            return Err(Error::invalid(
                "costopt-lb is a lower bound on every policy's cost, not a schedule to replay; \
                 compute it with 'flashlayer bound' (costopt-ub is the schedule that comes close)",
            ));
        }
        let policy = info(&lower).ok_or_else(|| unknown_policy(name))?;
        let mut pairs: Vec<(String, &str)> = Vec::new();
        for piece in rest.into_iter().flat_map(|r| r.split(',')) {
            let Some((k, v)) = piece.split_once('=') else {
                return Err(Error::invalid(format!(
                    "policy '{lower}': expected key=value, got '{}'",
                    piece.trim()
                )));
            };
            let k = k.trim().to_ascii_lowercase();
            if pairs.iter().any(|(seen, _)| *seen == k) {
                return Err(Error::invalid(format!(
                    "policy '{lower}': parameter '{k}' given twice"
                )));
            }
            pairs.push((k, v));
        }
        let mut p = Params { policy, pairs };
        let kind = match policy.name {
            "lru" => PolicyKind::Lru,
            "fifo" => PolicyKind::Fifo,
            "clock" => PolicyKind::Clock,
            "2q" => PolicyKind::TwoQ,
            "arc" => PolicyKind::Arc,
            "belady" => PolicyKind::Belady,
            "costopt-ub" => PolicyKind::CostOptUb {
                iterations: p.int("iterations", crate::bound::DEFAULT_ITERATIONS, 0)?,
            },
            "wblandlord" => PolicyKind::WbLandlord,
            "lruwsr" => PolicyKind::LruWsr,
            "ccflru" => PolicyKind::CcfLru,
            "cflru" => PolicyKind::Cflru {
                w: p.fraction("w", DEFAULT_CFLRU_WINDOW)?,
            },
            "casa" => PolicyKind::Casa {
                cost: p.cost_source()?,
            },
            "cfdc" => PolicyKind::Cfdc {
                w: p.fraction("w", DEFAULT_CFLRU_WINDOW)?,
                cluster: p.int("cluster", 64, 0)?,
            },
            "koltsidas" => {
                let lambda = match p.take("lambda").as_deref() {
                    None | Some("auto") => None,
                    Some(v) => match v.parse::<f64>() {
                        Ok(x) if (0.0..=1.0).contains(&x) => Some(x),
                        _ => return Err(p.bad("lambda", v)),
                    },
                };
                if lambda.is_some() && p.pairs.iter().any(|(k, _)| k == "epoch") {
                    return Err(Error::invalid(
                        "policy 'koltsidas': 'epoch' applies only with lambda=auto",
                    ));
                }
                let epoch = p.int("epoch", super::DEFAULT_LAMBDA_EPOCH as usize, 1)? as u64;
                PolicyKind::Koltsidas {
                    lambda: match lambda {
                        Some(x) => super::Lambda::Fixed(x),
                        None => super::Lambda::Auto { epoch },
                    },
                }
            }
            "fdbuffer" => {
                let mc = match p.take("mc").as_deref() {
                    None | Some("auto") => None,
                    Some(v) if v.contains('.') => match v.parse::<f64>() {
                        Ok(f) if (0.0..=1.0).contains(&f) => Some(Mc::Share(f)),
                        _ => return Err(p.bad("mc", v)),
                    },
                    Some(v) => match v.parse::<usize>() {
                        Ok(k) => Some(Mc::Pages(k)),
                        _ => return Err(p.bad("mc", v)),
                    },
                };
                let clean = p.base("clean")?;
                let dirty = p.base("dirty")?;
                let cluster = p.int("cluster", 0, 0)?;
                let fixed = mc.is_some();
                if fixed
                    && p.pairs
                        .iter()
                        .any(|(k, _)| ["epoch", "cost", "n"].contains(&k.as_str()))
                {
                    return Err(Error::invalid(
                        "policy 'fdbuffer': 'epoch', 'cost' and 'n' apply only with mc=auto",
                    ));
                }
                let epoch = p.int("epoch", DEFAULT_EPOCH as usize, 1)? as u64;
                let cost = p.cost_source()?;
                PolicyKind::FdBuffer {
                    mc: mc.unwrap_or(Mc::Auto { epoch }),
                    clean,
                    dirty,
                    cost,
                    cluster,
                }
            }
            other => unreachable!("policy '{other}' is listed but not built"),
        };
        p.done()?;
        Ok(PolicySpec { kind })
    }

    /// Parses a comma-separated list of specs, where a `key=value` piece
    /// continues the parameters of the spec before it:
    /// `lru,cflru:w=0.25,casa` is three policies.
    pub fn parse_list(list: &str) -> Result<Vec<Self>> {
        let mut specs: Vec<String> = Vec::new();
        for piece in list.split(',') {
            let piece = piece.trim();
            if piece.is_empty() {
                continue;
            }
            let continues = piece.contains('=') && !piece.contains(':');
            match specs.last_mut() {
                Some(last) if continues => {
                    last.push(if last.contains(':') { ',' } else { ':' });
                    last.push_str(piece);
                }
                None if continues => {
                    return Err(Error::invalid(format!(
                        "'{piece}' is a parameter but no policy comes before it"
                    )))
                }
                _ => specs.push(piece.to_string()),
            }
        }
        if specs.is_empty() {
            return Err(Error::invalid("no policy given"));
        }
        specs.iter().map(|s| Self::parse(s)).collect()
    }

    /// The policy's name without parameters (`cflru`).
    pub fn name(&self) -> &'static str {
        match self.kind {
            PolicyKind::Lru => "lru",
            PolicyKind::Fifo => "fifo",
            PolicyKind::Clock => "clock",
            PolicyKind::TwoQ => "2q",
            PolicyKind::Arc => "arc",
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
        f.write_str(self.name())?;
        match self.kind {
            PolicyKind::Cflru { w } => write!(f, ":w={w}"),
            PolicyKind::CostOptUb { iterations } => write!(f, ":iterations={iterations}"),
            PolicyKind::Cfdc { w, cluster } => write!(f, ":w={w},cluster={cluster}"),
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
                write!(f, ",clean={clean},dirty={dirty},cluster={cluster}")?;
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
        for p in POLICIES {
            let c = canon(p.name);
            assert_eq!(canon(&c), c, "canonical form parses to itself");
        }
    }

    #[test]
    fn bad_parameters_name_the_policy_the_key_and_the_range() {
        assert!(err("cflru:w=1.5").contains("policy 'cflru': bad value '1.5' for 'w'; expected a fraction of the buffer from 0 to 1"));
        assert!(err("koltsidas:lambda=2").contains(
            "bad value '2' for 'lambda'; expected a fraction of the buffer from 0 to 1, or auto"
        ));
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
        assert!(err("lfu").contains("unknown policy 'lfu'"));
        assert!(err("fdbuffer:mc=-1").contains("bad value '-1' for 'mc'"));
        assert!(err("fdbuffer:mc=1.5").contains("bad value '1.5' for 'mc'"));
        assert!(err("fdbuffer:clean=nosuch").contains("bad value 'nosuch' for 'clean'"));
        assert!(err("fdbuffer:clean=belady").contains("is offline"));
        assert!(err("fdbuffer:mc=10,epoch=5").contains("only with mc=auto"));
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
