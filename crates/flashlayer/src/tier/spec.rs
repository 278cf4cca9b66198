//! Scheme names with parameters (`hypro:p_elevate=auto,p_sink=0.15,seed=1`,
//! `lc:dirty=0.5,level=arc`): the schemes' table ([`SCHEMES`]) of the one
//! grammar ([`crate::spec`]), and the scheme built from its spec.

use super::tac::DEFAULT_AGE_FACTOR;
use super::{Face, Hypro, Io, Lc, Leaving, PolicyLevel, Prob, Scheme, Serve, Tac};
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::policy::{PolicySpec, POLICIES};
use crate::spec::{self, Entry, Given, Param, Table, Ty, NO_MAX};
use crate::types::{DenseId, Op, PageCost};

const LEVEL: Param = Param {
    key: "level",
    ty: Ty::Spec(&POLICIES),
    default: "lru",
    help:
        "the SSD level's replacement policy: any online policy spec, its own parameters following",
};

/// Every hierarchy scheme: the schemes' table of the one grammar.
pub static SCHEMES: Table = Table::of(
    "scheme",
    &[
        Entry {
            name: "hypro",
            description: "HyPro, Lv et al.: DRAM and SSD exclusive, pages sink with p_sink and elevate with p_elevate, both tuned by §4's costs",
            params: &[
                Param {
                    key: "p_sink",
                    ty: Ty::FractionOrAuto,
                    default: "auto",
                    help: "probability that a page leaving DRAM sinks to the SSD; auto tunes it from 0.2 by Eqs. 1-2",
                },
                Param {
                    key: "p_elevate",
                    ty: Ty::FractionOrAuto,
                    default: "auto",
                    help: "probability that an SSD hit brings the page into DRAM; auto tunes it from 0.02",
                },
                Param {
                    key: "seed",
                    ty: Ty::Int(0, NO_MAX),
                    default: "0",
                    help: "seed of the generator that draws both",
                },
                Param {
                    key: "window",
                    ty: Ty::Int(1, NO_MAX),
                    default: "1000",
                    help: "evictions from DRAM between tuning steps",
                },
                LEVEL,
            ],
        },
        Entry {
            name: "tac",
            description: "TAC, Canim et al. 2010: temperature-aware SSD cache of clean pages, admitted by extent temperature, dirty pages written through",
            params: &[
                Param {
                    key: "extent",
                    ty: Ty::Int(1, NO_MAX),
                    default: "32",
                    help: "pages per extent",
                },
                Param {
                    key: "age",
                    ty: Ty::Int(1, NO_MAX),
                    default: "",
                    help: "DRAM misses per halving of temperatures (default 8 × the SSD's pages)",
                },
            ],
        },
        Entry {
            name: "face",
            description: "FaCE, Kang, Lee & Moon 2012: a multi-version FIFO log on the SSD with group replacement",
            params: &[
                Param {
                    key: "group",
                    ty: Ty::Int(1, NO_MAX),
                    default: "",
                    help: "slots replaced at once, at most the SSD's slots (default: 64, or 1/16 of the SSD's slots where that is fewer)",
                },
                Param {
                    key: "second_chance",
                    ty: Ty::Switch,
                    default: "on",
                    help: "group second chance: referenced pages of a replaced group go to the log's head",
                },
            ],
        },
        Entry {
            name: "lc",
            description: "lazy cleaning, Do et al. 2011: a write-back SSD cache whose cleaner runs above a dirty threshold",
            params: &[
                Param {
                    key: "dirty",
                    ty: Ty::Fraction,
                    default: "0.5",
                    help: "dirty fraction of the SSD above which the cleaner runs",
                },
                LEVEL,
            ],
        },
    ],
);

/// A scheme and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemeKind {
    /// HyPro.
    Hypro {
        /// `p_sink`.
        p_sink: Prob,
        /// `p_elevate`.
        p_elevate: Prob,
        /// The generator's seed.
        seed: u64,
        /// Evictions from DRAM per tuning window.
        window: u64,
        /// The SSD level's policy.
        level: PolicySpec,
    },
    /// TAC.
    Tac {
        /// Pages per extent.
        extent: u64,
        /// DRAM misses per halving; `None`: 8 × the SSD's pages.
        age: Option<u64>,
    },
    /// FaCE.
    Face {
        /// Slots replaced at once; `None`: 64, or 1/16 of the SSD's slots
        /// where that is fewer.
        group: Option<usize>,
        /// Group second chance.
        second_chance: bool,
    },
    /// Lazy cleaning.
    Lc {
        /// Dirty threshold.
        dirty: f64,
        /// The SSD level's policy.
        level: PolicySpec,
    },
}

/// A parsed scheme name.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemeSpec {
    /// What to build.
    pub kind: SchemeKind,
    /// The text it was parsed from.
    pub text: String,
    /// The canonical spec, by the grammar's one printer
    /// ([`Given::canonical`]; `level` written as its policy's).
    canonical: String,
}

fn prob(g: &Given, key: &str) -> Prob {
    g.fraction_or_auto(key).map_or(Prob::Auto, Prob::Fixed)
}

/// The SSD level's policy: online.
fn level(g: &Given) -> Result<PolicySpec> {
    let p = PolicySpec::parse(&g.value("level"))?;
    if p.is_offline() {
        return Err(g.error(format!(
            "level must be an online policy ({} needs the whole trace in advance)",
            p.name()
        )));
    }
    Ok(p)
}

impl SchemeSpec {
    /// Parses `name[:key=value,...]` by the one grammar.
    pub fn parse(text: &str) -> Result<Self> {
        let g = spec::parse(&SCHEMES, text)?;
        let kind = match g.name() {
            "hypro" => SchemeKind::Hypro {
                p_sink: prob(&g, "p_sink"),
                p_elevate: prob(&g, "p_elevate"),
                seed: g.int("seed"),
                window: g.int("window"),
                level: level(&g)?,
            },
            "tac" => SchemeKind::Tac {
                extent: g.int("extent"),
                age: g.int_given("age"),
            },
            "face" => SchemeKind::Face {
                group: g.int_given("group").map(|x| x as usize),
                second_chance: g.switch("second_chance"),
            },
            "lc" => SchemeKind::Lc {
                dirty: g.fraction("dirty"),
                level: level(&g)?,
            },
            other => unreachable!("scheme '{other}' is listed but not built"),
        };
        let policy = |_: &'static spec::Table, v: &str| Ok(PolicySpec::parse(v)?.to_string());
        Ok(SchemeSpec {
            kind,
            text: text.trim().to_string(),
            canonical: g.canonical(&policy)?,
        })
    }

    /// Parses a comma-separated list by the one continuation rule
    /// ([`crate::spec::split_list`]).
    pub fn parse_list(list: &str) -> Result<Vec<Self>> {
        spec::split_list(&SCHEMES, list, Self::parse)
    }

    /// The spec with its parameters at their defaults left out.
    pub fn short(&self) -> String {
        spec::short(&SCHEMES, &self.to_string())
    }

    /// The scheme's short name (`hypro`, `tac`, `face`, `lc`).
    pub fn name(&self) -> &'static str {
        match self.kind {
            SchemeKind::Hypro { .. } => "hypro",
            SchemeKind::Tac { .. } => "tac",
            SchemeKind::Face { .. } => "face",
            SchemeKind::Lc { .. } => "lc",
        }
    }

    /// Builds the scheme for an SSD of `ssd_pages` (≥ 1) and dense ids
    /// `0..pages`; `number(d)` is page `d`'s number (TAC's extents).
    pub fn build(
        &self,
        ssd_pages: usize,
        pages: usize,
        number: impl Fn(DenseId) -> u64,
        ssd: &DeviceModel,
        hdd: &DeviceModel,
    ) -> Result<AnyScheme> {
        if ssd_pages == 0 {
            return Err(Error::invalid(format!(
                "scheme '{}': the SSD must hold at least 1 page",
                self.text
            )));
        }
        // Slots are named by 32-bit numbers, one of them kept spare.
        if ssd_pages >= u32::MAX as usize {
            return Err(Error::invalid(format!(
                "scheme '{}': an SSD of {ssd_pages} pages is more than the {} slots an SSD can have",
                self.text,
                u32::MAX - 1
            )));
        }
        let cost = PageCost::new(ssd.read, ssd.write);
        let level = |policy: &PolicySpec| PolicyLevel::new(policy, ssd_pages, pages, cost);
        Ok(match &self.kind {
            SchemeKind::Hypro {
                p_sink,
                p_elevate,
                seed,
                window,
                level: policy,
            } => AnyScheme::Hypro(Box::new(Hypro::new(
                level(policy)?,
                (ssd, hdd),
                *p_sink,
                *p_elevate,
                *seed,
                *window,
            ))),
            SchemeKind::Tac { extent, age } => {
                let mut ids = rustc_hash::FxHashMap::default();
                let extent_of = (0..pages as DenseId)
                    .map(|d| {
                        let n = ids.len() as u32;
                        *ids.entry(number(d) / extent).or_insert(n)
                    })
                    .collect();
                let age = age.unwrap_or(DEFAULT_AGE_FACTOR * ssd_pages as u64);
                AnyScheme::Tac(Tac::new(
                    ssd_pages,
                    extent_of,
                    *extent,
                    hdd.read - ssd.read,
                    age,
                ))
            }
            SchemeKind::Face {
                group,
                second_chance,
            } => {
                if let Some(g) = group.filter(|&g| g > ssd_pages) {
                    return Err(Error::invalid(format!(
                        "scheme 'face': group={g} is more slots than the SSD's {ssd_pages}; give 1 \
                         to {ssd_pages}"
                    )));
                }
                AnyScheme::Face(Face::new(ssd_pages, pages, *group, *second_chance))
            }
            SchemeKind::Lc {
                dirty,
                level: policy,
            } => AnyScheme::Lc(Lc::new(level(policy)?, *dirty)),
        })
    }
}

impl std::fmt::Display for SchemeSpec {
    /// The canonical spec, every parameter written out.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.canonical)
    }
}

/// Any of the four schemes, chosen at run time.
#[derive(Debug)]
pub enum AnyScheme {
    /// HyPro (boxed: its tuning state makes it the largest by far).
    Hypro(Box<Hypro>),
    /// TAC.
    Tac(Tac),
    /// FaCE.
    Face(Face),
    /// Lazy cleaning.
    Lc(Lc),
}

macro_rules! with_scheme {
    ($s:expr, $x:ident => $body:expr) => {
        match $s {
            AnyScheme::Hypro($x) => $body,
            AnyScheme::Tac($x) => $body,
            AnyScheme::Face($x) => $body,
            AnyScheme::Lc($x) => $body,
        }
    };
}

impl Scheme for AnyScheme {
    fn name(&self) -> String {
        with_scheme!(self, s => s.name())
    }
    #[inline]
    fn on_ssd(&self, page: DenseId) -> bool {
        with_scheme!(self, s => s.on_ssd(page))
    }
    #[inline]
    fn ssd_hit(&mut self, page: DenseId, op: Op, io: &mut impl Io) -> Result<Serve> {
        with_scheme!(self, s => s.ssd_hit(page, op, io))
    }
    #[inline]
    fn hdd_loaded(&mut self, page: DenseId, op: Op, io: &mut impl Io) -> Result<()> {
        with_scheme!(self, s => s.hdd_loaded(page, op, io))
    }
    #[inline]
    fn dram_evicted(&mut self, left: Leaving, io: &mut impl Io) -> Result<bool> {
        with_scheme!(self, s => s.dram_evicted(left, io))
    }
    #[inline]
    fn dram_request(&mut self, page: DenseId, op: Op) {
        with_scheme!(self, s => s.dram_request(page, op))
    }
    #[inline]
    fn watches_dram(&self) -> bool {
        with_scheme!(self, s => s.watches_dram())
    }
    fn serves_on_ssd(&self) -> bool {
        with_scheme!(self, s => s.serves_on_ssd())
    }
    #[inline(always)]
    fn prefetch(&self, page: DenseId) {
        with_scheme!(self, s => s.prefetch(page))
    }
    fn ssd_pages(&self) -> (u64, u64) {
        with_scheme!(self, s => s.ssd_pages())
    }
    fn state(&self, out: &mut Vec<(&'static str, f64)>) {
        with_scheme!(self, s => s.state(out))
    }
    fn restore(&mut self, found: &[super::Found]) -> Result<()> {
        with_scheme!(self, s => s.restore(found))
    }
}
