//! The values a spec's keys take, and their parsers: what the grammar
//! checks a value against ([`super::Ty`]) and reads it as.

use crate::error::{Error, Result};

/// A value of a [`super::Ty::CountShareOrAuto`] key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    /// `auto`.
    Auto,
    /// A whole number.
    Count(u64),
    /// A fraction from 0 to 1.
    Share(f64),
}

/// A size in pages: a whole number of pages (at least 1), or `P%` of a
/// trace's distinct pages (0 < P ≤ 100, rounded, at least 1 page).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Size {
    /// Pages.
    Pages(u64),
    /// A percentage of the trace's distinct pages.
    Percent(f64),
}

impl Size {
    /// What [`Size::parse`] takes, in words.
    pub const ALLOWED: &'static str =
        "a whole number of pages (at least 1), or P% of the trace's distinct pages (0 < P <= 100)";

    /// Parses `N` or `P%`.
    pub fn parse(text: &str) -> Result<Size> {
        let t = text.trim();
        let bad = || Error::invalid(format!("bad size '{t}': expected {}", Size::ALLOWED));
        if let Some(p) = t.strip_suffix('%') {
            let p: f64 = p.trim().parse().map_err(|_| bad())?;
            if !(p > 0.0 && p <= 100.0) {
                return Err(bad());
            }
            return Ok(Size::Percent(p));
        }
        match t.parse::<u64>() {
            Ok(n) if n >= 1 => Ok(Size::Pages(n)),
            _ => Err(bad()),
        }
    }

    /// Pages, for a trace of `distinct` pages.
    pub fn pages(self, distinct: usize) -> usize {
        match self {
            Size::Pages(n) => usize::try_from(n).unwrap_or(usize::MAX),
            Size::Percent(p) => ((distinct as f64 * p / 100.0).round_ties_even() as usize).max(1),
        }
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Size::Pages(n) => write!(f, "{n}"),
            Size::Percent(p) => write!(f, "{p}%"),
        }
    }
}

pub(super) fn fraction(v: &str) -> Option<f64> {
    v.parse::<f64>().ok().filter(|x| (0.0..=1.0).contains(x))
}

pub(super) fn positive(v: &str) -> Option<f64> {
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x > 0.0)
}

/// Bytes: a whole number, `k` or `kb` for KiB, an optional `b`.
pub(super) fn bytes(v: &str) -> Option<u64> {
    let v = v.trim().to_ascii_lowercase();
    let (num, mult) = match v.strip_suffix("kb").or_else(|| v.strip_suffix('k')) {
        Some(n) => (n, 1024),
        None => (v.strip_suffix('b').unwrap_or(&v), 1),
    };
    num.parse::<u64>().ok()?.checked_mul(mult)
}

pub(super) fn mix(v: &str, n: usize, total: f64, whole: bool) -> Option<Vec<f64>> {
    let shares: Vec<f64> = v
        .split('/')
        .map(|p| {
            let p = p.trim();
            if whole {
                p.parse::<u64>().ok().map(|x| x as f64)
            } else {
                p.parse::<f64>().ok()
            }
        })
        .collect::<Option<_>>()?;
    let sum: f64 = shares.iter().sum();
    (shares.len() == n
        && shares.iter().all(|x| (0.0..=total).contains(x))
        && (sum - total).abs() <= 1e-9 * total.max(1.0))
    .then_some(shares)
}

pub(super) fn amount(v: &str) -> Option<Amount> {
    match v {
        "auto" => Some(Amount::Auto),
        v if v.contains('.') => fraction(v).map(Amount::Share),
        v => v.parse().ok().map(Amount::Count),
    }
}

pub(super) fn switch(v: &str) -> Option<bool> {
    match v {
        "on" | "true" | "1" => Some(true),
        "off" | "false" | "0" => Some(false),
        _ => None,
    }
}
