//! Policy names as users type them (`--policy lru,arc,belady`).

use crate::error::{Error, Result};

/// The policies the engine can build by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
}

/// A parsed policy name. Names are case-insensitive.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySpec {
    /// Which policy.
    pub kind: PolicyKind,
}

/// `(name, kind, one-line description)` of every policy, for `--help` and errors.
pub const POLICIES: &[(&str, PolicyKind, &str)] = &[
    ("lru", PolicyKind::Lru, "least recently used"),
    ("fifo", PolicyKind::Fifo, "first in, first out"),
    (
        "clock",
        PolicyKind::Clock,
        "second chance with a reference bit per frame",
    ),
    (
        "2q",
        PolicyKind::TwoQ,
        "2Q, Johnson & Shasha 1994 (Kin 25%, Kout 50%)",
    ),
    ("arc", PolicyKind::Arc, "ARC, Megiddo & Modha 2003"),
    (
        "belady",
        PolicyKind::Belady,
        "offline MIN, miss-optimal; clean pages first among never-reused",
    ),
];

impl PolicySpec {
    /// Parses one policy name.
    pub fn parse(name: &str) -> Result<Self> {
        let lower = name.trim().to_ascii_lowercase();
        POLICIES
            .iter()
            .find(|(n, _, _)| *n == lower)
            .map(|&(_, kind, _)| PolicySpec { kind })
            .ok_or_else(|| {
                let valid: Vec<&str> = POLICIES.iter().map(|p| p.0).collect();
                Error::invalid(format!(
                    "unknown policy '{}'; valid policies: {}",
                    name.trim(),
                    valid.join(", ")
                ))
            })
    }

    /// The canonical lower-case name.
    pub fn name(&self) -> &'static str {
        POLICIES
            .iter()
            .find(|p| p.1 == self.kind)
            .map(|p| p.0)
            .expect("every kind is listed")
    }

    /// Whether the policy must see the whole trace before the run.
    pub fn is_offline(&self) -> bool {
        self.kind == PolicyKind::Belady
    }
}
