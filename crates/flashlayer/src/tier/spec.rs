//! Scheme names with parameters (`hypro:p_elevate=auto,p_sink=0.15,seed=1`,
//! `lc:dirty=0.5`), one parser for the CLI, Python and Rust, and the
//! scheme built from its spec.

use super::face::DEFAULT_GROUP;
use super::lc::DEFAULT_DIRTY;
use super::tac::{DEFAULT_AGE_FACTOR, DEFAULT_EXTENT};
use super::{Face, Hypro, Io, Lc, PolicyLevel, Prob, Reason, Scheme, Serve, Tac, DEFAULT_WINDOW};
use crate::device::DeviceModel;
use crate::error::{Error, Result};
use crate::policy::{PolicySpec, POLICIES};
use crate::types::{DenseId, Op, PageCost};

/// The schemes, each with its parameters and their defaults, for `--help`
/// and errors.
pub const SCHEMES: &[(&str, &str)] = &[
    (
        "hypro",
        "p_sink=auto|P (default auto, from 0.2), p_elevate=auto|P (default auto, from 0.02), \
         seed=N (default 0), window=N requests between tuning steps (default 10000), \
         ssd=POLICY the SSD level's policy, any online policy spec, its own parameters following (default lru)",
    ),
    (
        "tac",
        "extent=N pages per extent (default 32), age=N DRAM misses per halving of \
         temperatures (default 8 x SSD pages)",
    ),
    (
        "face",
        "group=N slots replaced at once (default 64, at most 1/16 of the SSD), \
         second_chance=on|off (default on)",
    ),
    (
        "lc",
        "dirty=F dirty fraction of the SSD above which the cleaner runs (default 0.5), \
         ssd=POLICY the SSD level's policy, any online policy spec, its own parameters following (default lru)",
    ),
];

/// The parameter names of the policy a spec text names.
fn policy_keys(text: &str) -> Vec<&'static str> {
    let name = text.split(':').next().unwrap_or("").trim();
    POLICIES
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
        .map(|p| p.params.iter().map(|q| q.key).collect())
        .unwrap_or_default()
}

fn lru() -> PolicySpec {
    PolicySpec::parse("lru").expect("lru is a policy")
}

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
        /// Requests per tuning window.
        window: u64,
        /// The SSD level's policy.
        ssd: PolicySpec,
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
        /// Slots replaced at once.
        group: usize,
        /// Group second chance.
        second_chance: bool,
    },
    /// Lazy cleaning.
    Lc {
        /// Dirty threshold.
        dirty: f64,
        /// The SSD level's policy.
        ssd: PolicySpec,
    },
}

/// A parsed scheme name.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemeSpec {
    /// What to build.
    pub kind: SchemeKind,
    /// The text it was parsed from.
    pub text: String,
}

fn bad(spec: &str, msg: impl std::fmt::Display) -> Error {
    Error::invalid(format!("scheme '{spec}': {msg}"))
}

fn prob(spec: &str, key: &str, v: &str) -> Result<Prob> {
    if v == "auto" {
        return Ok(Prob::Auto);
    }
    match v.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(Prob::Fixed(x)),
        _ => Err(bad(
            spec,
            format!("{key} must be 'auto' or a probability in [0, 1], found '{v}'"),
        )),
    }
}

fn count(spec: &str, key: &str, v: &str) -> Result<u64> {
    match v.parse::<u64>() {
        Ok(x) if x >= 1 => Ok(x),
        _ => Err(bad(
            spec,
            format!("{key} must be a whole number ≥ 1, found '{v}'"),
        )),
    }
}

fn ssd_policy(spec: &str, v: &str) -> Result<PolicySpec> {
    let p = PolicySpec::parse(v).map_err(|e| bad(spec, format!("ssd: {e}")))?;
    if p.is_offline() {
        return Err(bad(
            spec,
            format!(
                "ssd must be an online policy ({} needs the whole trace in advance)",
                p.name()
            ),
        ));
    }
    Ok(p)
}

impl SchemeSpec {
    /// Parses `name[:key=value,...]`.
    pub fn parse(text: &str) -> Result<Self> {
        let t = text.trim();
        let (name, params) = t.split_once(':').unwrap_or((t, ""));
        let name = name.trim().to_ascii_lowercase();
        let mut kind = match name.as_str() {
            "hypro" => SchemeKind::Hypro {
                p_sink: Prob::Auto,
                p_elevate: Prob::Auto,
                seed: 0,
                window: DEFAULT_WINDOW,
                ssd: lru(),
            },
            "tac" => SchemeKind::Tac {
                extent: DEFAULT_EXTENT,
                age: None,
            },
            "face" => SchemeKind::Face {
                group: DEFAULT_GROUP,
                second_chance: true,
            },
            "lc" => SchemeKind::Lc {
                dirty: DEFAULT_DIRTY,
                ssd: lru(),
            },
            _ => {
                let names: Vec<&str> = SCHEMES.iter().map(|s| s.0).collect();
                return Err(Error::invalid(format!(
                    "unknown scheme '{t}': expected one of {}",
                    names.join(", ")
                )));
            }
        };
        // After `ssd=POLICY`, a piece whose key is one of that policy's
        // parameters continues its spec (`ssd=fdbuffer:mc=auto,clean=lru`),
        // so the scheme's own parameters go before `ssd=` (as the canonical
        // spec writes them) where the names clash (lazy cleaning's `dirty`,
        // FD-Buffer's `dirty`).
        let mut ssd_text: Option<String> = None;
        for kv in params.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some((k, v)) = kv.split_once('=') else {
                return Err(bad(t, format!("'{kv}' is not key=value")));
            };
            let (k, v) = (k.trim(), v.trim());
            let continues = ssd_text
                .as_deref()
                .is_some_and(|text| policy_keys(text).contains(&k));
            if let (Some(text), true) = (ssd_text.as_mut(), continues) {
                text.push(',');
                text.push_str(kv);
                let p = ssd_policy(t, text)?;
                if let SchemeKind::Hypro { ssd, .. } | SchemeKind::Lc { ssd, .. } = &mut kind {
                    *ssd = p;
                }
                continue;
            }
            ssd_text = None;
            match (&mut kind, k) {
                (SchemeKind::Hypro { p_sink, .. }, "p_sink") => *p_sink = prob(t, k, v)?,
                (SchemeKind::Hypro { p_elevate, .. }, "p_elevate") => *p_elevate = prob(t, k, v)?,
                (SchemeKind::Hypro { seed, .. }, "seed") => {
                    *seed = v
                        .parse()
                        .map_err(|_| bad(t, format!("seed must be a whole number, found '{v}'")))?
                }
                (SchemeKind::Hypro { window, .. }, "window") => *window = count(t, k, v)?,
                (SchemeKind::Hypro { ssd, .. } | SchemeKind::Lc { ssd, .. }, "ssd") => {
                    *ssd = ssd_policy(t, v)?;
                    ssd_text = Some(v.to_string());
                }
                (SchemeKind::Tac { extent, .. }, "extent") => *extent = count(t, k, v)?,
                (SchemeKind::Tac { age, .. }, "age") => *age = Some(count(t, k, v)?),
                (SchemeKind::Face { group, .. }, "group") => *group = count(t, k, v)? as usize,
                (SchemeKind::Face { second_chance, .. }, "second_chance") => {
                    *second_chance = match v {
                        "on" | "true" | "1" => true,
                        "off" | "false" | "0" => false,
                        _ => {
                            return Err(bad(
                                t,
                                format!("second_chance must be on or off, found '{v}'"),
                            ))
                        }
                    }
                }
                (SchemeKind::Lc { dirty, .. }, "dirty") => {
                    *dirty = match v.parse::<f64>() {
                        Ok(x) if (0.0..=1.0).contains(&x) => x,
                        _ => {
                            return Err(bad(
                                t,
                                format!("dirty must be a fraction in [0, 1], found '{v}'"),
                            ))
                        }
                    }
                }
                _ => {
                    let help = SCHEMES.iter().find(|s| s.0 == name).map_or("", |s| s.1);
                    return Err(bad(
                        t,
                        format!("unknown parameter '{k}' (parameters: {help})"),
                    ));
                }
            }
        }
        Ok(SchemeSpec {
            kind,
            text: t.to_string(),
        })
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
            return Err(bad(&self.text, "the SSD must hold at least 1 page"));
        }
        let cost = PageCost::new(ssd.read, ssd.write);
        let level = |policy: &PolicySpec| PolicyLevel::new(policy, ssd_pages, pages, cost);
        Ok(match &self.kind {
            SchemeKind::Hypro {
                p_sink,
                p_elevate,
                seed,
                window,
                ssd: policy,
            } => AnyScheme::Hypro(Hypro::new(
                level(policy)?,
                (ssd, hdd),
                *p_sink,
                *p_elevate,
                *seed,
                *window,
            )?),
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
            } => AnyScheme::Face(Face::new(ssd_pages, pages, *group, *second_chance)),
            SchemeKind::Lc { dirty, ssd: policy } => AnyScheme::Lc(Lc::new(level(policy)?, *dirty)),
        })
    }
}

impl std::fmt::Display for SchemeSpec {
    /// The canonical spec, every parameter written out.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = |x: &Prob| match x {
            Prob::Auto => "auto".to_string(),
            Prob::Fixed(v) => format!("{v}"),
        };
        match &self.kind {
            SchemeKind::Hypro {
                p_sink,
                p_elevate,
                seed,
                window,
                ssd,
            } => write!(
                f,
                "hypro:p_sink={},p_elevate={},seed={seed},window={window},ssd={ssd}",
                p(p_sink),
                p(p_elevate)
            ),
            SchemeKind::Tac { extent, age } => match age {
                Some(a) => write!(f, "tac:extent={extent},age={a}"),
                None => write!(f, "tac:extent={extent}"),
            },
            SchemeKind::Face {
                group,
                second_chance,
            } => write!(
                f,
                "face:group={group},second_chance={}",
                if *second_chance { "on" } else { "off" }
            ),
            SchemeKind::Lc { dirty, ssd } => write!(f, "lc:dirty={dirty},ssd={ssd}"),
        }
    }
}

/// Any of the four schemes, chosen at run time.
#[derive(Debug)]
pub enum AnyScheme {
    /// HyPro.
    Hypro(Hypro),
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
    fn dram_evicted(
        &mut self,
        page: DenseId,
        dirty: bool,
        why: Reason,
        io: &mut impl Io,
    ) -> Result<bool> {
        with_scheme!(self, s => s.dram_evicted(page, dirty, why, io))
    }
    #[inline]
    fn dram_request(&mut self, at_victim: bool, op: Op) {
        with_scheme!(self, s => s.dram_request(at_victim, op))
    }
    #[inline]
    fn watches_dram(&self) -> bool {
        with_scheme!(self, s => s.watches_dram())
    }
    fn serves_on_ssd(&self) -> bool {
        with_scheme!(self, s => s.serves_on_ssd())
    }
    #[inline]
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
