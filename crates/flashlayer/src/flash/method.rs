//! The page update methods' specs: the methods' table of the one grammar
//! ([`crate::spec`]), whose sizes follow the method's name (`pdl:256`).

use crate::error::Result;
use crate::spec::{self, Entry, Param, Table, Ty};
use std::fmt;

/// A method's size in bytes, after its name; it has no default.
const fn size(key: &'static str, help: &'static str) -> Param {
    Param::new(key, Ty::Bytes(1), "", help)
}

/// Every page update method: the methods' table of the one grammar. A
/// method's size follows its name (`ipl:18k` is `ipl:log=18k`).
pub static METHODS: Table = Table {
    what: "method",
    entries: &[
        Entry {
            name: "ipu",
            description: "in-place update (PDL §3)",
            params: &[],
        },
        Entry {
            name: "opu",
            description:
                "out-of-place update, page-level mapping, greedy collection (PDL §3, §5.1)",
            params: &[],
        },
        Entry {
            name: "ipl",
            description: "in-page logging (Lee & Moon 2007): a log area in each erase unit",
            params: &[size("log", "log bytes per erase unit, e.g. ipl:18k")],
        },
        Entry {
            name: "pdl",
            description: "page-differential logging (PDL §4)",
            params: &[size(
                "max_diff",
                "Max_Differential_Size, e.g. pdl:256 or pdl:2k",
            )],
        },
    ],
    more: None,
    lead: true,
    unnamed: None,
};

/// A page update method and its parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// In-place update.
    Ipu,
    /// Out-of-place update.
    Opu,
    /// In-page logging with `log_bytes` of log pages per erase unit.
    Ipl {
        /// Bytes of log pages in each erase unit (`ipl:18k`: 18,432).
        log_bytes: usize,
    },
    /// Page-differential logging with `Max_Differential_Size` = `max_diff`.
    Pdl {
        /// Largest differential kept as a differential (`pdl:256`: 256).
        max_diff: usize,
    },
}

impl Method {
    /// Parses a method spec by the one grammar ([`METHODS`]): `ipu`, `opu`,
    /// `ipl:18k`, `pdl:256`, `pdl:2k` (sizes in bytes, `k` for KiB).
    pub fn parse(spec: &str) -> Result<Method> {
        let g = spec::parse(&METHODS, spec)?;
        let size = |key: &str| {
            g.bytes(key).ok_or_else(|| {
                g.error(format!(
                    "needs a size: {}:SIZE ({})",
                    g.name(),
                    g.entry.params[0].help
                ))
            })
        };
        Ok(match g.name() {
            "ipu" => Method::Ipu,
            "opu" => Method::Opu,
            "ipl" => Method::Ipl {
                log_bytes: size("log")?,
            },
            _ => Method::Pdl {
                max_diff: size("max_diff")?,
            },
        })
    }

    /// The name the PDL paper's figures use: `IPL(18KB)`, `PDL(256B)`.
    pub fn label(&self) -> String {
        let size = |n: usize| {
            if n.is_multiple_of(1024) {
                format!("{}KB", n / 1024)
            } else {
                format!("{n}B")
            }
        };
        match self {
            Method::Ipu => "IPU".into(),
            Method::Opu => "OPU".into(),
            Method::Ipl { log_bytes } => format!("IPL({})", size(*log_bytes)),
            Method::Pdl { max_diff } => format!("PDL({})", size(*max_diff)),
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = |n: usize| {
            if n.is_multiple_of(1024) {
                format!("{}k", n / 1024)
            } else {
                n.to_string()
            }
        };
        match self {
            Method::Ipu => write!(f, "ipu"),
            Method::Opu => write!(f, "opu"),
            Method::Ipl { log_bytes } => write!(f, "ipl:{}", size(*log_bytes)),
            Method::Pdl { max_diff } => write!(f, "pdl:{}", size(*max_diff)),
        }
    }
}
