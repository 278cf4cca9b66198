//! Device specs: the devices' table of the one grammar ([`crate::spec`]).
//! A device is a preset by name, `ratio:R:W` (read and write by position,
//! normalised to a read of 1), or its costs, `read=R,write=W[,...]`, a spec
//! without a name.

use super::{CostUnit, DeviceModel, PRESETS};
use crate::error::Result;
use crate::spec::{self, Entry, Given, Param, Table, Ty};
use std::sync::OnceLock;

const ANY: Ty = Ty::Positive(f64::INFINITY);

/// Every device's concurrency ([`DeviceModel::concurrency`]): 1, or a
/// preset's own where its source gives one.
const K: Param = Param::new(
    "k",
    Ty::Int(1, 4096),
    "1",
    "I/Os served at once: a batch of up to k page writes issued together costs one write",
);

/// The entry a spec of costs is: named by how it is written.
const COSTS: &str = "read=R,write=W";

/// Every device: `ratio`, a device's costs (the unnamed entry), then each
/// preset of [`PRESETS`].
pub static DEVICES: Table = Table {
    what: "device",
    entries: &[
        Entry {
            name: "ratio",
            description: "a read and a write cost by position, normalised to a read of 1 (ratio:1:N: writes N times a read)",
            params: &[
                Param::new("read", ANY, "", "the read cost"),
                Param::new("write", ANY, "", "the write cost"),
                K,
            ],
        },
        Entry {
            name: COSTS,
            description: "a device's costs, keys without a name: read=R,write=W[,seq_read=..,seq_write=..,erase=..,unit=us]",
            params: &[
                Param::new("read", ANY, "", "random page read"),
                Param::new("write", ANY, "", "random page write"),
                Param::new("seq_read", ANY, "", "sequential page read (default: the random read)"),
                Param::new("seq_write", ANY, "", "sequential page write (default: the random write)"),
                Param::new("erase", ANY, "", "block erase, for raw NAND (default: none)"),
                Param::new("unit", Ty::Choice(&["units", "us"]), "units", "the unit of every cost"),
                K,
            ],
        },
    ],
    more: Some(presets),
    lead: true,
    unnamed: Some(COSTS),
};

/// The presets as entries of [`DEVICES`], made once.
fn presets() -> Vec<&'static Entry> {
    static ENTRIES: OnceLock<Vec<Entry>> = OnceLock::new();
    ENTRIES
        .get_or_init(|| {
            PRESETS
                .iter()
                .map(|p| Entry {
                    name: p.name,
                    description: p.source,
                    params: if p.concurrency == 1 {
                        &[K]
                    } else {
                        // The preset's own concurrency is its default. A
                        // table's keys live as long as the program; these
                        // are made once, here.
                        let default = Box::leak(p.concurrency.to_string().into_boxed_str());
                        Box::leak(Box::new([Param { default, ..K }]))
                    },
                })
                .collect()
        })
        .iter()
        .collect()
}

/// A cost key that has no default: given, or the error `missing`.
fn required(g: &Given, key: &str, missing: &str) -> Result<f64> {
    g.given(key)
        .map(|_| g.number(key))
        .ok_or_else(|| g.error(missing))
}

impl DeviceModel {
    /// Parses a device spec by the one grammar ([`DEVICES`]): a preset
    /// name, `ratio:1:N` (or `ratio:R:W`), or `read=R,write=W` with
    /// optional `seq_read`, `seq_write`, `erase` and `unit=us|units`
    /// (default `units`); each may add `k=K`, its concurrency (default 1, or
    /// a preset's own).
    /// Omitted sequential costs equal the random ones.
    /// Every cost is a finite number above 0. The model is named by the
    /// spec as written (a preset by its own name).
    pub fn parse(text: &str) -> Result<Self> {
        let g = spec::parse(&DEVICES, text)?;
        let name = text.trim().to_owned();
        let concurrency = g.int("k") as u32;
        Ok(match g.name() {
            "ratio" => {
                let missing = "expected ratio:R:W, e.g. ratio:1:N for writes N times a read";
                let (r, w) = (
                    required(&g, "read", missing)?,
                    required(&g, "write", missing)?,
                );
                DeviceModel {
                    name,
                    concurrency,
                    ..DeviceModel::ratio(w / r)
                }
            }
            COSTS => {
                let missing = "both read= and write= are required";
                let (read, write) = (
                    required(&g, "read", missing)?,
                    required(&g, "write", missing)?,
                );
                let or = |key: &str, default: f64| g.given(key).map_or(default, |_| g.number(key));
                DeviceModel {
                    name,
                    read,
                    write,
                    seq_read: or("seq_read", read),
                    seq_write: or("seq_write", write),
                    erase: g.given("erase").map(|_| g.number("erase")),
                    unit: match g.choice("unit") {
                        "us" => CostUnit::Micros,
                        _ => CostUnit::Units,
                    },
                    concurrency,
                }
            }
            preset => {
                let model = DeviceModel::preset(preset).expect("a preset of the table");
                DeviceModel {
                    // A preset at another concurrency is named as written.
                    name: if concurrency == model.concurrency {
                        preset.to_owned()
                    } else {
                        name
                    },
                    concurrency,
                    ..model
                }
            }
        })
    }
}
